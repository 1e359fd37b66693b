//===- compute_analysis.hpp - per-op work by unit class -------------------===//
//
// ComputeAnalysis turns each op that computes into a ComputeOp record: its
// unit class (cube for tt.dot / tt.dot_scaled with FLOP = 2*M*N*K; vector,
// transcendental, reduction, scan; index for integer tensor arithmetic that
// only feeds addresses and masks; layout for data movement; scalar), the
// elements and FLOP per execution, and the loop and condition it runs in.
// AddressUses decides "only feeds addresses and masks" from the uses of a
// value (through splat / broadcast / integer arith / loop-carried values).
// From: the MLIR op, its operand and result types, and the FunctionState.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_COMPUTE_ANALYSIS_HPP
#define PERFBOUND_EXTRACT_TTIR_COMPUTE_ANALYSIS_HPP

#include "function_unit.hpp"

namespace perfbound::ttir {

/// Whether a tensor value only feeds addresses and masks (memoised).
class AddressUses {
 public:
  bool address_only(Value v);

 private:
  llvm::DenseMap<Value, bool> address_only_;
  int depth_ = 0;
};

class ComputeAnalysis : public FunctionUnit {
 public:
  ComputeAnalysis(FunctionState &s, AddressUses &addresses) : FunctionUnit(s), addresses_(addresses) {}

  void add_compute(Operation *op, OpClass cls, const std::string &dtype, std::int64_t elements, double flop,
                   std::string detail = "");
  /// An elementwise op: scalar, index (address-only integer tensor), vector or transcendental.
  void classify_elementwise(Operation *op, bool transcendental, std::string detail = "");
  /// tt.dot / tt.dot_scaled.
  void visit_dot(Operation *op);
  /// tt.reduce, tt.scan, tt.map_elementwise: combiner applications.
  void visit_reduce_like(Operation *op, OpClass cls);

 private:
  bool address_only(Value v) { return addresses_.address_only(v); }
  AddressUses &addresses_;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_COMPUTE_ANALYSIS_HPP
