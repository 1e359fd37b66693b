//===- hivm_ops.hpp - operands, pipes and sync operands of HIVM ops -------===//
//
// HivmOps, during the walk, reads the HIVM ops that do work or synchronise:
//  - structured ops (DMA, vector, cube, copy, vbrc, ...): their ins/outs
//    operands with types and views (the quantities pass reads them), source
//    and destination address spaces, the pipe of copy and vbrc from those
//    spaces, the buffers read and written (for sync.hpp), and the issued
//    instructions per execution (3 for a cube op, else 1);
//  - set_flag/wait_flag/pipe_barrier/sync_block*: pipes, event or flag ids
//    (static or an SSA value) and modes, into the record's SyncInfo;
//  - ops the table does not know: their shaped operands and bytes (opaque).
// Operands printed without an address space (before the compiler infers
// them) and tensor operands take the space the op's definition implies
// (load reads GM, store writes GM) or their buffer's (docs/extract_hivm.md §2).
// Inputs: the op's text (op_syntax.hpp), the op table's class, the names and
// views in scope.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_HIVM_OPS_HPP
#define PERFBOUND_EXTRACT_HIVM_HIVM_OPS_HPP

#include "function_ir.hpp"
#include "views.hpp"

namespace pb::hivm::analysis {

class HivmOps {
 public:
  HivmOps(FunctionIr &ir, SsaScope &scope, ViewBuilder &views) : ir_(ir), scope_(scope), views_(views) {}

  void handle_structured(const Op &op, uint32_t r, const OpInfo &info, int32_t path);
  void handle_sync(const Op &op, uint32_t r, OpClass cls, int32_t path);
  /// An op the table does not know (or one whose work is not modelled): its
  /// operands with a shape and their bytes, the core it names (a custom op's
  /// hivm.tcore_type), into the record's OpaqueOperands; `reason` says why.
  void handle_opaque(const Op &op, uint32_t r, std::string reason);
  /// Once a function without a core type has one inferred: the tensor loads
  /// whose destination is that core's local buffer (UB, L1) are modelled.
  void settle_local_spaces(CoreType core);

 private:
  /// The address space of a memref operand printed without one, from its
  /// buffer: a kernel argument or the workspace is GM; a local buffer
  /// (memref.alloc, pointer_cast) is UB outside cube functions. Unknown otherwise.
  Space inferred_space(const Operand &o) const;
  /// load, store, copy: what their definition requires of src and dst (same
  /// element type, rank and, without pad_mode, shape; a load's both memrefs or
  /// both tensors; the address spaces each supports when both are printed).
  /// Throws SourceError at the op.
  void check_definition(const Op &op, const OpDetail &d) const;
  /// matmul / mix_matmul: M, K, N from the shapes of A (m x k), B (k x n) and
  /// C (m x n), honouring a_transpose/b_transpose; false when they are not static.
  bool macro_extents(const Op &op, OpDetail &d);

  FunctionIr &ir_;
  SsaScope &scope_;
  ViewBuilder &views_;
  std::vector<uint32_t> pending_loads_;  // tensor loads in a function whose core is not known yet
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_HIVM_OPS_HPP
