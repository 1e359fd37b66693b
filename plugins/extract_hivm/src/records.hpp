//===- records.hpp - finishing a function's records, loops and view -------===//
//
// RecordAssembler completes what the document shows once counts are known
// (counts.hpp):
//  - one LoopRecord per loop: entries, iterations per block and over the
//    grid, the trip count per entry (trip_count.hpp), element-loop flag,
//    and the instructions per iteration of its body;
//  - per record: scalar and issued instructions per block, per instance and
//    over the grid (a loop costs 1 per entry + 2 per iteration), scalar
//    memory bytes, the guaranteed per-block minimum, the outermost enclosing
//    loop whose trip count is unknown, eligibility (eligibility.hpp), and the
//    estimated and unresolved quantities listed in Program::estimates and
//    Program::unresolved;
//  - the function's block count from {logical_block_num} and the
//    FunctionView that sync.hpp reads.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_RECORDS_HPP
#define PERFBOUND_EXTRACT_HIVM_RECORDS_HPP

#include "counts.hpp"
#include "function_ir.hpp"
#include "sync.hpp"
#include "trip_count.hpp"
#include "value_eval.hpp"

namespace pb::hivm::analysis {

/// `per_exec` times a count (unknown with the count's reason when it is unknown).
Quantity times(const Count &c, int64_t per_exec);

class RecordAssembler {
 public:
  RecordAssembler(FunctionIr &ir, ValueEvaluator &ev, TripCounter &trips, ExecutionCounts &counts)
      : ir_(ir), ev_(ev), trips_(trips), counts_(counts) {}

  /// Loop records, instruction totals, eligibility, estimates and unresolved quantities.
  void finish_records();
  /// The function's block count, loop body instructions and its FunctionView.
  void finish_function(FunctionView &view);

 private:
  FunctionIr &ir_;
  ValueEvaluator &ev_;
  TripCounter &trips_;
  ExecutionCounts &counts_;
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_RECORDS_HPP
