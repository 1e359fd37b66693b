//===- views.hpp - the memref views behind memref values ------------------===//
//
// ViewBuilder, during the walk, records for every memref value the view it
// is (MemrefInfo in function_ir.hpp): its extents and strides (static, SSA
// values, or unknown with the source buffer's extent as a bound), its offset
// and the buffers it views (a kernel argument, the workspace, a fixed
// address from pointer_cast, an alloc). It reads subview, view,
// reinterpret_cast, cast, collapse_shape, expand_shape, pointer_cast,
// alloc_workspace and alloc, and the memref results of loops and branches
// (the buffers their regions yield).
//
// ShapeResolver, after the walk, evaluates a view's extents and strides
// under the evaluation context (value_eval.hpp): exact, bounded (then an
// estimate from the upper bound), or unknown.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_VIEWS_HPP
#define PERFBOUND_EXTRACT_HIVM_VIEWS_HPP

#include <vector>

#include "function_ir.hpp"
#include "value_eval.hpp"

namespace pb::hivm::analysis {

/// Appends the buffers of `from` not yet in `to`.
void append_roots(std::vector<BufferRef> &to, const std::vector<BufferRef> &from);

class ViewBuilder {
 public:
  ViewBuilder(FunctionIr &ir, SsaScope &scope, ValueEvaluator &ev) : ir_(ir), scope_(scope), ev_(ev) {}

  /// memref.subview/view/reinterpret_cast/cast/collapse_shape/expand_shape... (record r).
  void handle_view(const Op &op, uint32_t r);
  /// hivm.hir.pointer_cast, memref_ext.alloc_workspace, memref.alloc.
  void handle_alloc(const Op &op, uint32_t r);
  /// Results of an op that is not modelled: memrefs view an unknown buffer of their space.
  void define_results_unknown(const Op &op, const std::vector<TokSpan> &types);
  /// Defines the results of an scf.for/scf.if: types from `-> (...)` (or the generic
  /// result types); a memref result views the buffers its region yields.
  void define_region_results(const Op &op, TokSpan s, const std::vector<std::vector<BufferRef>> &roots);
  /// The buffers the `position`th operand of the region's scf.yield views.
  std::vector<BufferRef> yield_roots(const Region &region, size_t position);

 private:
  FunctionIr &ir_;
  SsaScope &scope_;
  ValueEvaluator &ev_;
};

/// One extent of a view under the evaluation context.
struct DimEval {
  int64_t value = -1;
  bool exact = false;
  bool known = false;  // value is exact or an upper bound
};

class ShapeResolver {
 public:
  ShapeResolver(const FunctionIr &ir, ValueEvaluator &ev) : ir_(ir), ev_(ev) {}

  DimEval eval_dim(const DimRef &d, uint8_t &taint);
  /// The extents of an operand: its type's static ones, else its view's evaluated ones.
  std::vector<DimEval> shape_of(const Operand &o, uint8_t &taint);
  /// The strides of an operand in elements, kDynamic where unresolved.
  std::vector<int64_t> strides_of(const Operand &o, uint8_t &taint);

 private:
  const FunctionIr &ir_;
  ValueEvaluator &ev_;
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_VIEWS_HPP
