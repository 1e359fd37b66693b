//===- affine.hpp - affine maps, parsed and evaluated on integers ---------===//
//
// `affine_map<(d0, d1)[s0] -> (d0 + s0 * 4, d1 floordiv 2)>` as HIVM prints
// it (inline, or through a `#map = affine_map<...>` alias): parsed from the
// op's tokens into expression trees, evaluated on concrete integers with
// MLIR's semantics (floordiv/ceildiv round down/up, mod is non-negative for
// a positive divisor). Overflow and division by zero are errors.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HIVM_ORACLE_AFFINE_HPP
#define PERFBOUND_HIVM_ORACLE_AFFINE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tokens.hpp"

namespace pb::hivm::oracle {

class AffineMap {
 public:
  /// Parses `affine_map<...>` starting at toks[at] (the BareId `affine_map`);
  /// `end` receives the index after its closing '>'. Throws std::runtime_error.
  static AffineMap parse(TokSpan toks, size_t at, size_t &end);

  [[nodiscard]] size_t dims() const { return dims_; }
  [[nodiscard]] size_t symbols() const { return symbols_; }
  [[nodiscard]] size_t results() const { return roots_.size(); }
  /// Binary operations (+, -, *, floordiv, ceildiv, mod) over all results.
  [[nodiscard]] uint32_t operations() const { return operations_; }
  /// The value of every result for dims followed by symbols; nullopt with
  /// `why` on overflow or division by zero.
  [[nodiscard]] std::optional<std::vector<int64_t>> eval(const std::vector<int64_t> &operands, std::string &why) const;

 private:
  enum class Node : uint8_t { Const, Dim, Sym, Add, Sub, Mul, FloorDiv, CeilDiv, Mod, Neg };
  struct Expr {
    Node node = Node::Const;
    int64_t value = 0;  // constant, or dim/symbol position
    int32_t a = -1, b = -1;
  };
  int32_t parse_sum(TokSpan t, size_t &i);
  int32_t parse_product(TokSpan t, size_t &i);
  int32_t parse_factor(TokSpan t, size_t &i);
  int32_t add(Expr e);
  std::optional<int64_t> value(int32_t e, const std::vector<int64_t> &operands, std::string &why) const;

  std::vector<Expr> exprs_;
  std::vector<int32_t> roots_;
  std::vector<std::string_view> dim_names_, sym_names_;
  size_t dims_ = 0, symbols_ = 0;
  uint32_t operations_ = 0;
};

}  // namespace pb::hivm::oracle

#endif  // PERFBOUND_HIVM_ORACLE_AFFINE_HPP
