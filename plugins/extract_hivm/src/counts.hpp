//===- counts.hpp - per-block executions and totals of each record --------===//
//
// ExecutionCounts sums, for one record, what TripCounter enumerates
// (trip_count.hpp) into the numbers of the document:
//  - count per block (all AIV instances of a mix block), per instance (the
//    busiest), over the grid, and the fewest over every block (block_min);
//  - for HIVM ops, per-execution quantities from OpQuantities summed over the
//    enumerated executions: bytes, elements, FLOP, repeats, masked lanes,
//    packets, issued instructions (a vector op issues one instruction per
//    255 repeats), MTE1 bytes of a cube op, per block, per instance and
//    over the grid;
//  - which user facts (trips, data) entered the numbers.
// Block 0 is enumerated first; when a count depends on the block index every
// block is enumerated while the grid budget lasts, else block 0 times the
// block count (estimated) and the block index as an interval for the minimum.
// compute_counts() does this for every record of the function and also
// collects the values a dynamic sync event id takes;
// compute_representative() fills a HIVM record's per-execution fields (for
// block 0 at the first iterations).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_COUNTS_HPP
#define PERFBOUND_EXTRACT_HIVM_COUNTS_HPP

#include <vector>

#include "function_ir.hpp"
#include "op_quantities.hpp"
#include "trip_count.hpp"
#include "value_eval.hpp"

namespace pb::hivm::analysis {

class ExecutionCounts {
 public:
  ExecutionCounts(FunctionIr &ir, ValueEvaluator &ev, TripCounter &trips, OpQuantities &quantities)
      : ir_(ir), ev_(ev), trips_(trips), quantities_(quantities) {}

  struct RunResult {
    Count block, instance;
    Quantity bytes, elements, flop, repeats, masked, packets, issued, mte1;
    Quantity bytes_i, flop_i, repeats_i, issued_i, mte1_i;
    Quantity count_grid, bytes_grid, flop_grid, repeats_grid, issued_grid, mte1_grid;
    BlockMin mins;  // guaranteed per-block minimum over every block (count, bytes, flop, repeats, issued, mte1)
    uint64_t facts = 0;
    uint8_t taint = 0;
  };
  /// How often record r runs on the path `chain`, with its quantities when `with_samples`.
  RunResult run_counts(uint32_t r, const std::vector<int32_t> &chain, bool with_samples);
  /// Counts and totals of every record of the function.
  void compute_counts();
  /// The per-execution fields of HIVM record r, for block 0 at the first iterations.
  void compute_representative(uint32_t r);

 private:
  FunctionIr &ir_;
  ValueEvaluator &ev_;
  TripCounter &trips_;
  OpQuantities &quantities_;
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_COUNTS_HPP
