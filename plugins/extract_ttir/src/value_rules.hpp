//===- value_rules.hpp - SSA values as symbolic expressions ---------------===//
//
// ValueRules gives each integer and pointer value an expression (sym_expr.hpp)
// from the op that defines it: arith constants and integer arithmetic,
// compares and selects, casts; tt.make_range (a tile dimension), splat,
// broadcast, expand_dims, trans, reshape (dimensions remapped), addptr and
// pointer bitcasts (element offset from the base argument), block pointers
// (tt.make_tensor_ptr, tt.advance) and tensor descriptors. Values it cannot
// follow become opaque with a reason. The work of these ops is counted by
// ComputeAnalysis. From: the op and the values of its operands
// (FunctionState).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_VALUE_RULES_HPP
#define PERFBOUND_EXTRACT_TTIR_VALUE_RULES_HPP

#include "compute_analysis.hpp"

namespace perfbound::ttir {

class ValueRules : public FunctionUnit {
 public:
  ValueRules(FunctionState &s, ComputeAnalysis &compute) : FunctionUnit(s), compute_(compute) {}

  /// arith.* ops.
  void visit_arith(Operation *op, llvm::StringRef name);
  /// Shape, pointer, block-pointer and descriptor ops of `tt`.
  void visit_shape(Operation *op, llvm::StringRef name);

 private:
  void classify_elementwise(Operation *op, bool transcendental) { compute_.classify_elementwise(op, transcendental); }
  void add_compute(Operation *op, OpClass cls, const std::string &dtype, std::int64_t elements, double flop) {
    compute_.add_compute(op, cls, dtype, elements, flop);
  }
  ComputeAnalysis &compute_;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_VALUE_RULES_HPP
