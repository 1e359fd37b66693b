//===- loop_analysis.hpp - loops, trip counts, carried values -------------===//
//
// LoopAnalysis models structured control flow:
//   scf.for    one Loop record; the trip count is
//              max(0, cdiv(upper - lower, step)) of the bounds' expressions
//              (ExprPool::trip_count); the induction variable is
//              lower + t*step; a carried value (integer, pointer, block-pointer
//              offsets) whose yield adds a loop-invariant increment is
//              init + t*inc inside and init + trip*inc after the loop, any
//              other carried value is opaque;
//   scf.while  two Loop records, the before region (T + 1 trips) and the
//              after region (T trips); T is derived for a counter compared
//              with a loop-invariant bound and stepped by a positive
//              constant, a carried flag the body clears, or a constant
//              condition (while_trip), else unknown with a hint;
//   scf.if     both regions under the condition and its negation; results
//              are selects.
// A loop bound reading pid(axis) and a step reading num_programs(axis) marks
// a persistent tile loop. From: the op, the values of its operands
// (FunctionState), and the walk of its regions (a callback to the driver).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_LOOP_ANALYSIS_HPP
#define PERFBOUND_EXTRACT_TTIR_LOOP_ANALYSIS_HPP

#include "function_unit.hpp"

namespace perfbound::ttir {

class LoopAnalysis : public FunctionUnit {
 public:
  LoopAnalysis(FunctionState &s, std::function<void(mlir::Block &)> walk)
      : FunctionUnit(s), walk_block(std::move(walk)) {}

  void visit_for(mlir::scf::ForOp op);
  void visit_if(mlir::scf::IfOp op);
  void visit_while(mlir::scf::WhileOp op);

 private:
  /// The trip count of an scf.while in the affine or single-trip forms, with
  /// the carried value that counts (its before-region argument index).
  struct WhileTrip {
    ExprId trip = kNoExpr;
    int iv = -1;           // before-region argument that is the counter
    ExprId init = kNoExpr, step = kNoExpr;
    std::string pattern;   // what was recognised, or why nothing was
  };
  WhileTrip while_trip(mlir::scf::WhileOp op);

  /// Walks the ops of a region's block (the driver's walk).
  std::function<void(mlir::Block &)> walk_block;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_LOOP_ANALYSIS_HPP
