//===- walk.hpp - one pass over a function's regions, blocks and ops ------===//
//
// FunctionWalker reads a function's signature (name, core type, mix parts,
// argument roles from hacc.arg_type, pointer arguments as buffers) and walks
// the real structure of its body in order --
// regions, blocks, block arguments, SSA names in nested scopes -- creates one
// OpRecord per operation (pipe from the op table, line, loop depth, path,
// #loc) and hands each op to the unit that reads it: ScalarOps (scalar
// values), ViewBuilder (memref views), HivmOps (HIVM work and sync). It reads
// the control flow itself: scf.for/scf.while headers (bounds, step,
// iteration arguments, {ExtractedLoadOrStore}) into LoopInfo, scf.if
// conditions (and hivm.unlikely_condition) into the path tree, and regions
// of ops it does not know as opaque (execution count unknown).
//
// Output: the function model (function_ir.hpp) and the records in Program::ops;
// no counts or quantities yet (counts.hpp, op_quantities.hpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_WALK_HPP
#define PERFBOUND_EXTRACT_HIVM_WALK_HPP

#include <string_view>
#include <utility>
#include <vector>

#include "function_ir.hpp"
#include "hivm_ops.hpp"
#include "scalar_ops.hpp"
#include "value_eval.hpp"
#include "views.hpp"

namespace pb::hivm::analysis {

/// The core an op must run on when its function does not say (a MIX or an
/// untyped function): the AIC for cube-only units (M, MTE1, FIX, a cube op, an
/// MTE2 load into L1/L0), the AIV for vector-only ones (V, MTE3, an MTE2 load
/// into UB), a sync_block_set/wait's named core, a custom op's hivm.tcore_type;
/// Unknown when either core could run it.
CoreType core_needed(const OpRecord &r);

class FunctionWalker {
 public:
  FunctionWalker(FunctionIr &ir, SsaScope &scope, ValueEvaluator &ev,
                 std::vector<std::pair<uint32_t, std::string_view>> &pending_locs)
      : ir_(ir), scope_(scope), views_(ir, scope, ev), scalar_(ir, scope), hivm_(ir, scope, views_),
        pending_locs_(pending_locs) {}

  /// Reads the function's name, core type, mix attributes and arguments (roles, memref
  /// views of pointer arguments), then walks its body; infers the core type from the
  /// pipes used where no attribute gives it.
  void walk_function(const Op &func, const FunctionContext &fctx);
  /// Records one op (and its regions) on `path`.
  void handle(const Op &op, int32_t path);
  /// Defines the block's arguments and handles its ops.
  void walk_block(const Block &block, int32_t path);

 private:
  uint32_t new_record(const Op &op, int32_t path);
  void walk_regions_opaque(const Op &op, int32_t path, uint32_t record);
  void handle_loop(const Op &op, uint32_t r, int32_t path);
  void handle_if(const Op &op, uint32_t r, int32_t path);

  FunctionIr &ir_;
  SsaScope &scope_;
  ViewBuilder views_;
  ScalarOps scalar_;
  HivmOps hivm_;
  std::vector<std::pair<uint32_t, std::string_view>> &pending_locs_;  // resolved once every #loc alias is read
  std::vector<int32_t> loop_stack_;
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_WALK_HPP
