//===- interval.hpp - integer intervals and affine maps --------------------===//
//
// Values the extractor cannot pin down exactly are carried as closed integer
// intervals [lo, hi] (either end may be infinite), so that, e.g., a loop
// `scf.for %i = %a to %b` whose %b is `affine.min(64, ...)` still has a
// known maximum trip count. Affine maps (`affine_map<(d0)[s0] -> (...)>`)
// are parsed into expression trees and evaluated over intervals.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_INTERVAL_HPP
#define PERFBOUND_EXTRACT_HIVM_INTERVAL_HPP

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pb::hivm {

struct Interval {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;

  static Interval point(int64_t v) { return {v, v}; }
  static Interval full() { return {}; }
  static Interval range(int64_t lo, int64_t hi) { return {lo, hi}; }
  [[nodiscard]] bool exact() const { return lo == hi && lo != kNegInf && hi != kPosInf; }
  [[nodiscard]] bool bounded() const { return lo != kNegInf && hi != kPosInf; }
  [[nodiscard]] bool operator==(const Interval &o) const { return lo == o.lo && hi == o.hi; }
};

Interval iv_add(Interval a, Interval b);
Interval iv_sub(Interval a, Interval b);
Interval iv_mul(Interval a, Interval b);
Interval iv_floordiv(Interval a, Interval b);
Interval iv_ceildiv(Interval a, Interval b);
Interval iv_divs(Interval a, Interval b);  // truncating division (arith.divsi)
Interval iv_rems(Interval a, Interval b);  // arith.remsi
Interval iv_mod(Interval a, Interval b);   // affine mod (result >= 0)
Interval iv_min(Interval a, Interval b);
Interval iv_max(Interval a, Interval b);
Interval iv_union(Interval a, Interval b);
Interval iv_clamp_nonneg(Interval a);

/// An affine map: dims, symbols and result expressions.
class AffineMap {
 public:
  enum class Kind : uint8_t { Const, Dim, Sym, Add, Mul, FloorDiv, CeilDiv, Mod };
  struct Node {
    Kind kind;
    int64_t value = 0;  // constant, or dim/symbol position
    uint32_t lhs = 0, rhs = 0;
  };

  /// Parses "affine_map<(d0)[s0] -> (e0, e1)>" or "(d0)[s0] -> (e0, e1)".
  /// Returns std::nullopt (with `error` set) on malformed text.
  static std::optional<AffineMap> parse(std::string_view text, std::string *error = nullptr);

  [[nodiscard]] uint32_t num_dims() const { return num_dims_; }
  [[nodiscard]] uint32_t num_symbols() const { return num_syms_; }
  [[nodiscard]] size_t num_results() const { return results_.size(); }
  /// Evaluates result `idx`; `operands` lists dims then symbols.
  [[nodiscard]] Interval eval(size_t idx, std::span<const Interval> operands) const;
  /// Arithmetic operations (+, *, floordiv, ceildiv, mod) in result `idx`.
  [[nodiscard]] uint32_t op_count(size_t idx) const;

 private:
  Interval eval_node(uint32_t node, std::span<const Interval> operands) const;
  uint32_t count_node(uint32_t node) const;
  uint32_t num_dims_ = 0;
  uint32_t num_syms_ = 0;
  std::vector<Node> nodes_;
  std::vector<uint32_t> results_;
  friend class AffineParser;
};

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_INTERVAL_HPP
