//===- types.hpp - MLIR builtin types as HIVM uses them --------------------===//
//
// memref/tensor/vector types with shapes, element types, strided layouts and
// HIVM address spaces (`#hivm.address_space<ub>`), plus scalar types. Parsed
// from the source text of a type, independently of the token stream.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_TYPES_HPP
#define PERFBOUND_EXTRACT_HIVM_TYPES_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pb::hivm {

constexpr int64_t kDynamic = INT64_MIN;

enum class Space : uint8_t { Unknown, Zero, GM, L1, L0A, L0B, L0C, UB, SSBUF };

/// Printed name of an address space ("gm", "cbuf", "ub", ...); nullptr when unknown.
const char *space_name(Space space);
Space space_from_name(std::string_view name);

struct ElemType {
  std::string_view name;  // "bf16", "i32", "index"
  uint32_t bits = 0;      // 0 when unknown
  bool is_float = false;
  bool is_int = false;
  bool is_index = false;
  [[nodiscard]] bool known() const { return bits != 0; }
};

/// Extents or strides of a shaped type, exact size, 16 bytes: a Type is
/// copied into every SSA value, operand and op detail of the analysis, so
/// its size counts per op (a std::vector is 24 bytes and keeps slack).
class Dims {
 public:
  Dims() = default;
  Dims(const int64_t *first, size_t n) { assign(first, n); }
  Dims(const Dims &other) { assign(other.data_, other.size_); }
  Dims(Dims &&other) noexcept : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  Dims &operator=(const Dims &other) {
    Dims copy(other);
    swap(copy);
    return *this;
  }
  Dims &operator=(Dims &&other) noexcept {
    Dims moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~Dims() { delete[] data_; }

  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const int64_t *data() const { return data_; }
  [[nodiscard]] const int64_t *begin() const { return data_; }
  [[nodiscard]] const int64_t *end() const { return data_ + size_; }
  int64_t operator[](size_t idx) const { return data_[idx]; }
  friend bool operator==(const Dims &a, const std::vector<int64_t> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  void assign(const int64_t *first, size_t n) {
    if (n == 0) return;
    data_ = new int64_t[n];
    std::copy_n(first, n, data_);
    size_ = static_cast<uint32_t>(n);
  }
  void swap(Dims &other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

  int64_t *data_ = nullptr;
  uint32_t size_ = 0;
};

/// 88 bytes (was 128): members ordered so the flags share one word.
struct Type {
  enum class Kind : uint8_t { Unknown, Scalar, Memref, Tensor, Vector, Other };
  std::string_view text;
  ElemType elem;               // the scalar type, or the element type of a shaped type
  Dims shape;                  // kDynamic for '?'
  Dims strides;                // always filled for memrefs: explicit, or row-major for the identity layout
  int64_t offset = 0;          // kDynamic for '?'
  Kind kind = Kind::Unknown;
  bool has_strides = false;    // an explicit strided<...> layout
  bool strides_known = true;   // false for affine_map layouts
  Space space = Space::Unknown;
  bool space_explicit = false;

  [[nodiscard]] bool shaped() const { return kind == Kind::Memref || kind == Kind::Tensor || kind == Kind::Vector; }
  [[nodiscard]] size_t rank() const { return shape.size(); }
  /// Number of elements when every dimension is static.
  [[nodiscard]] std::optional<int64_t> static_elements() const;
  /// True when the layout is compact row-major (no gaps between elements).
  [[nodiscard]] bool contiguous() const;
};

using AliasMap = std::map<std::string_view, std::string_view, std::less<>>;

/// Parses a type from its source text. Unknown constructs give Kind::Other or
/// Kind::Unknown, never an exception.
Type parse_type(std::string_view text, const AliasMap *aliases = nullptr);

/// Element type from its spelling ("f32", "bf16", "i1", "index").
ElemType parse_elem_type(std::string_view name);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_TYPES_HPP
