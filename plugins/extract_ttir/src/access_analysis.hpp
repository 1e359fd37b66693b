//===- access_analysis.hpp - memory accesses and their shapes -------------===//
//
// AccessAnalysis turns each memory op into an Access record: tt.load,
// tt.store, tt.atomic_rmw / atomic_cas, and the tensor-descriptor loads,
// stores, gathers, scatters and reductions. Each record has the kernel
// argument its pointer is based on, the tile shape and element type, the
// element offset from the argument as an expression in the tile dimensions
// (block pointers: offsets x strides; descriptors: indices x strides), the
// mask (a mask operand, a block pointer's boundaryCheck, a descriptor's
// bounds), and the loop and condition it runs in. A scalar integer loaded at
// a known index becomes an opaque load that given data can resolve.
// From: the op and the values of its operands (FunctionState).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_ACCESS_ANALYSIS_HPP
#define PERFBOUND_EXTRACT_TTIR_ACCESS_ANALYSIS_HPP

#include "function_unit.hpp"

namespace perfbound::ttir {

class AccessAnalysis : public FunctionUnit {
 public:
  explicit AccessAnalysis(FunctionState &s) : FunctionUnit(s) {}

  /// tt.load, tt.store, tt.atomic_rmw, tt.atomic_cas.
  void visit_memory(Operation *op);
  /// Tensor-descriptor loads, stores, gathers, scatters, reductions.
  void visit_descriptor(Operation *op);

 private:
  /// A new Access record for `op`: its id, kind, op name, loop, condition, location.
  Access record(Operation *op, AccessKind kind);
  Access &add_access(Operation *op, AccessKind kind, const VInfo &ptr, Type ptr_type);
  void access_from_block_ptr(Access &access, const BlockPtrInfo &block, const std::vector<std::int32_t> &checked);
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_ACCESS_ANALYSIS_HPP
