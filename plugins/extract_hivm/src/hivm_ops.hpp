//===- hivm_ops.hpp - operands, pipes and sync operands of HIVM ops -------===//
//
// HivmOps, during the walk, reads the HIVM ops that do work or synchronise:
//  - structured ops (DMA, vector, cube, copy, vbrc, ...): their ins/outs
//    operands with types and views (the quantities pass reads them), source
//    and destination address spaces, the pipe of copy and vbrc from those
//    spaces, the buffers read and written (for sync.hpp), and the issued
//    instructions per execution (3 for a cube op, else 1);
//  - set_flag/wait_flag/pipe_barrier/sync_block*: pipes, event or flag ids
//    (static or an SSA value) and modes, into the record's SyncInfo.
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

 private:
  FunctionIr &ir_;
  SsaScope &scope_;
  ViewBuilder &views_;
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_HIVM_OPS_HPP
