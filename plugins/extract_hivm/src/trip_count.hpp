//===- trip_count.hpp - loop trip counts and execution multiplicities -----===//
//
// TripCounter decides how often the ops on a path of the region tree run:
// enumerate() walks the path's loops and branches from the function body
// down, under the evaluation context of value_eval.hpp, and calls `leaf`
// once per distinct execution context with its multiplicity (Mult: min,
// value, max, exact, known).
//  - scf.for with bounds that evaluate exactly: the trip count
//    ceil((ub - lb) / step), iterations enumerated one by one (the loop index
//    bound to each value) while the enumeration budget lasts, else the index
//    as an interval and the trip count as a factor;
//  - bounds that are intervals: a trip-count range (min 0 unless the bounds
//    guarantee more), with the reason (loaded data, launch arguments not
//    given, not constant), narrowed by a trips fact the user gave;
//  - scf.while or an unread header: unknown unless a trips fact gives it;
//  - scf.if: taken or not where the condition evaluates, else min 0 and
//    counted as taken (not taken under hivm.unlikely_condition);
//  - regions of unknown ops: unknown.
// trip_per_entry() fills a loop's LoopRecord: its trip count per entry (for
// block 0 at the outer loops' first iterations) and the fewest/most over any
// block and outer iteration (for refusing trips facts the IR contradicts).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_TRIP_COUNT_HPP
#define PERFBOUND_EXTRACT_HIVM_TRIP_COUNT_HPP

#include <functional>
#include <string>
#include <vector>

#include "function_ir.hpp"
#include "value_eval.hpp"

namespace pb::hivm::analysis {

/// How often something runs: the fewest, the value used, the most.
struct Mult {
  int64_t min = 1, value = 1, max = 1;
  bool exact = true;
  bool known = true;
};

/// Adds the executions `m` to `sum` (saturating; exact and known while both are).
inline void add_executions(Mult &sum, const Mult &m) {
  sum.min = sat_add(sum.min, m.min);
  sum.value = sat_add(sum.value, m.value);
  sum.max = sat_add(sum.max, m.max);
  sum.exact = sum.exact && m.exact;
  sum.known = sum.known && m.known;
}

/// `a` times a trip count in [lo, hi] with the value `value` (saturating).
Mult mult_mul(Mult a, int64_t lo, int64_t hi, int64_t value, bool exact, bool known);
/// A multiplicity as a record's Count (`reason` when not exact).
Count to_count(const Mult &m, const std::string &reason);

class TripCounter {
 public:
  TripCounter(FunctionIr &ir, ValueEvaluator &ev) : ir_(ir), ev_(ev) {}

  /// Enumerates the executions of the path `chain` (root first) from `chain[at]` on:
  /// `leaf` per execution context, `leaves` counts them; reasons for inexact counts
  /// are added to `reason` once per construct, taints to `taint`.
  /// Throws SourceError for a trips fact the known bounds contradict.
  void enumerate(const std::vector<int32_t> &chain, size_t at, Mult mult, uint64_t &leaves,
                 const std::function<void(const Mult &)> &leaf, std::string &reason, uint8_t &taint);
  /// Binds each loop on `chain` to its first iteration where its lower bound is exact.
  void bind_first_iterations(const std::vector<int32_t> &chain, uint8_t &taint);
  /// lr.trip (per entry) and lr.trip_min_any/trip_max_any/unknown_trip of loop L.
  void trip_per_entry(uint32_t L, LoopRecord &lr);
  /// Forget which constructs were already explained (a new enumeration starts).
  void clear_reasons() { reason_keys_.clear(); }

 private:
  /// Trip count per entry of loop L over every block and outer iteration (strict: no trips facts).
  void trip_any(uint32_t L, LoopRecord &lr);

  FunctionIr &ir_;
  ValueEvaluator &ev_;
  std::vector<uint64_t> reason_keys_;  // (construct kind, line) already explained in the current enumeration
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_TRIP_COUNT_HPP
