//===- ir.hpp - the structure of parsed MLIR text: ops, regions, blocks ----===//
//
// What the parser produces: a tree of operations with their regions and
// blocks, each operation keeping its own tokens (everything printed for it
// except the contents of its regions). Nothing here knows a dialect; the
// meaning of an operation is read off its tokens by the analysis.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_IR_HPP
#define PERFBOUND_EXTRACT_HIVM_IR_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "lexer.hpp"

namespace pb::hivm {

/// An exact-size array the parser fills once from a std::vector (which keeps
/// up to 2x slack and takes 24 bytes): 16 bytes, read like a vector.
template <class T>
class Array {
 public:
  Array() = default;
  explicit Array(std::vector<T> &&items) : Array(take_tail(items, 0)) {}
  /// Moves items[from...] into a new array and removes them from `items` (the
  /// parser's scratch stacks: an op's tokens, a block's ops).
  static Array take_tail(std::vector<T> &items, size_t from) {
    Array out;
    if (from >= items.size()) return out;
    const size_t n = items.size() - from;
    out.data_ = std::allocator<T>().allocate(n);
    std::uninitialized_move(items.begin() + static_cast<std::ptrdiff_t>(from), items.end(), out.data_);
    out.size_ = static_cast<uint32_t>(n);  // inputs are < 4 GiB, and every element holds a byte of it
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(from), items.end());
    return out;
  }
  Array(Array &&other) noexcept : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  Array &operator=(Array &&other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  Array(const Array &) = delete;
  Array &operator=(const Array &) = delete;
  ~Array() { release(); }

  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const T *data() const { return data_; }
  [[nodiscard]] const T *begin() const { return data_; }
  [[nodiscard]] const T *end() const { return data_ + size_; }
  const T &operator[](size_t idx) const { return data_[idx]; }
  [[nodiscard]] const T &front() const { return data_[0]; }
  [[nodiscard]] const T &back() const { return data_[size_ - 1]; }

 private:
  void release() {
    if (data_ == nullptr) return;
    std::destroy_n(data_, size_);
    std::allocator<T>().deallocate(data_, size_);
    data_ = nullptr;
    size_ = 0;
  }

  T *data_ = nullptr;
  uint32_t size_ = 0;
};

struct Op;

struct BlockArg {
  std::string_view name;  // "%arg6"
  std::string_view type;  // source text of the type
  uint32_t line = 0;
};

struct Block {
  std::string_view label;  // "^bb1", empty for an entry block without label
  uint32_t line = 0;
  Array<BlockArg> args;
  Array<Op> ops;
};

struct Region {
  uint32_t line = 0;      // line of the opening '{'
  uint32_t end_line = 0;  // line of the closing '}'
  uint32_t at = 0;        // the region sits before its op's tokens[at]
  Array<Block> blocks;
};

struct ResultGroup {
  std::string_view name;  // "%43"
  uint32_t count = 1;     // %43:3 defines %43#0..%43#2
};

struct Op {
  std::string_view name;  // "hivm.hir.load", "scf.for" (quotes stripped for the generic form)
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t end_line = 0;
  bool generic = false;   // printed as "dialect.op"(...)
  Array<ResultGroup> results;
  Array<Token> tokens;    // the op's own tokens after its name
  Array<Region> regions;  // in order; regions[i].at says where among the tokens

  [[nodiscard]] uint32_t result_count() const {
    uint32_t n = 0;
    for (const ResultGroup &g : results) n += g.count;
    return n;
  }
};

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_IR_HPP
