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

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lexer.hpp"

namespace pb::hivm {

/// A problem in the input text at a line (and column when known).
class SourceError : public std::runtime_error {
 public:
  SourceError(uint32_t line, uint32_t col, const std::string &message)
      : std::runtime_error(message), line_(line), col_(col) {}
  [[nodiscard]] uint32_t line() const { return line_; }
  [[nodiscard]] uint32_t col() const { return col_; }

 private:
  uint32_t line_;
  uint32_t col_;
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
  std::vector<BlockArg> args;
  std::vector<Op> ops;
};

struct Region {
  uint32_t line = 0;      // line of the opening '{'
  uint32_t end_line = 0;  // line of the closing '}'
  std::vector<Block> blocks;
};

struct ResultGroup {
  std::string_view name;  // "%43"
  uint32_t count = 1;     // %43:3 defines %43#0..%43#2
};

struct Op {
  std::string_view name;  // "hivm.hir.load", "scf.for" (quotes stripped for the generic form)
  bool generic = false;   // printed as "dialect.op"(...)
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t end_line = 0;
  std::vector<ResultGroup> results;
  std::vector<Token> tokens;        // the op's own tokens after its name
  std::vector<uint32_t> region_at;  // regions[i] sits before tokens[region_at[i]]
  std::vector<Region> regions;

  [[nodiscard]] uint32_t result_count() const {
    uint32_t n = 0;
    for (const ResultGroup &g : results) n += g.count;
    return n;
  }
};

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_IR_HPP
