//===- scalar_ops.hpp - scalar ops as SSA value expressions ---------------===//
//
// ScalarOps, during the walk, turns the scalar ops of a function into value
// expressions of the function model (function_ir.hpp) and sets their
// records' scalar instruction counts: arith constants, integer arithmetic,
// compares, selects and casts, affine.apply/min/max (one instruction per
// affine operation), memref.load/store on the scalar unit (a load from a
// kernel argument keeps the element it reads, for launch data facts), the
// block and sub-block index/number ops, and the {logical_block_num}
// annotation. Inputs: the op's text (op_syntax.hpp) and the names in scope.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_SCALAR_OPS_HPP
#define PERFBOUND_EXTRACT_HIVM_SCALAR_OPS_HPP

#include <map>
#include <string>

#include "function_ir.hpp"

namespace pb::hivm::analysis {

class ScalarOps {
 public:
  ScalarOps(FunctionIr &ir, SsaScope &scope) : ir_(ir), scope_(scope) {}

  void handle_constant(const Op &op, uint32_t r);
  void handle_arith(const Op &op, uint32_t r, OpClass cls);
  /// affine.apply/min/max; throws SourceError for a map it cannot read.
  void handle_affine(const Op &op, uint32_t r);
  /// memref.load/store: scalar accesses of GM or UB.
  void handle_scalar_memory(const Op &op, uint32_t r, int32_t path);
  /// get_block_idx and friends.
  void handle_hivm_scalar(const Op &op, uint32_t r);
  /// annotation.mark: {logical_block_num}.
  void handle_annotation(const Op &op, uint32_t r);

 private:
  FunctionIr &ir_;
  SsaScope &scope_;
  std::map<std::string, uint32_t> map_cache_;  // affine map text -> index into ir_.maps
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_SCALAR_OPS_HPP
