//===- op_table.hpp - what each HIVM and core-dialect op is and where it runs //
//
// The op -> pipe table (AscendNPU-IR ODS traits, ../shared/research/ascend.md
// §1.3), the op class used for aggregation (vector arithmetic, DMA, cube,
// sync, scalar arithmetic, views, ...) and FLOP per element. `copy` and
// `vbrc` get their pipe from their address spaces (pipe_for_copy/vbrc).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_OP_TABLE_HPP
#define PERFBOUND_EXTRACT_HIVM_OP_TABLE_HPP

#include <cstdint>
#include <optional>
#include <string_view>

#include "types.hpp"

namespace pb::hivm {

enum class Pipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX, ALL, None };
constexpr int kPipeCount = 8;  // S..ALL

const char *pipe_name(Pipe pipe);          // "S", "V", "M", "MTE1", ...
std::optional<Pipe> pipe_from_enum(std::string_view text);  // "PIPE_MTE2" -> MTE2

enum class OpClass : uint8_t {
  // Vector unit (PIPE_V)
  VectorArith,          // vadd vmul vmax ... (1 FLOP per element)
  VectorTranscendental, // vexp vln vsqrt vtanh ... (1 FLOP per element)
  VectorReduce,         // vreduce, vcumsum ...
  VectorCompareSelect,  // vcmp vsel visnan ...
  VectorLogic,          // vand vor vnot vxor vshl ...
  VectorConvert,        // vcast
  VectorMove,           // vbrc (into UB), copy UB->UB, varange, vtranspose, vpad, vconcat, vflip ...
  VectorGather,         // vgather, gather_load, indirect_load ... (irregular access on the vector unit)
  // Data movement
  Dma,                  // load store nd2nz nz2nd fixpipe copy(GM/L1/L0C) vbrc(into L1) l12ub
  Cube,                 // mmadL1 batchMmadL1 Conv*L1
  CubeMacro,            // matmul mix_matmul (pre-lowering macro)
  // Synchronisation
  SetFlag, WaitFlag, PipeBarrier, SyncBlockSet, SyncBlockWait, SyncBlock, SyncOther,
  // Scalar unit
  HivmScalar,           // get_block_idx set_mask_norm set_ffts_base_addr ...
  ScalarArith,          // arith integer/float arithmetic
  ScalarCompare,        // arith.cmpi/cmpf, select
  ScalarBitwise,        // arith.andi/ori/xori/shifts
  ScalarCast,           // index_cast ext trunc bitcast
  Constant,             // arith.constant
  AffineIndex,          // affine.apply/min/max
  ScalarMemory,         // memref.load/store (one element)
  View,                 // memref.subview/reinterpret_cast/cast/collapse/expand/extract_strided_metadata
  Alloc,                // hivm.hir.pointer_cast, memref_ext.alloc_workspace, memref.alloc
  Annotation,           // annotation.mark
  Loop,                 // scf.for / scf.while
  Branch,               // scf.if
  Terminator,           // scf.yield, func.return
  Unknown,
};

const char *op_class_name(OpClass cls);
/// The vector-unit classes (arith, transcendental, reduce, compare/select, logic, convert, move, gather).
bool is_vector_class(OpClass cls);

enum class CoreAffinity : uint8_t { Vector, Cube, Either, BySpace };

struct OpInfo {
  OpClass cls = OpClass::Unknown;
  Pipe pipe = Pipe::None;         // the pipe the op runs on (None: decided by spaces or by sync operands)
  CoreAffinity core = CoreAffinity::Either;
  bool second_pipe_mte1 = false;  // mmadL1 is MTE1 + M
};

/// Looks up an op by its full name ("hivm.hir.vadd", "arith.addi").
/// std::nullopt for ops the table does not know (reported as unmodelled).
std::optional<OpInfo> lookup_op(std::string_view name);

/// GetPipe.cpp for copy: UB->UB = V, L0C->GM = FIX, GM->L1 = MTE2, UB->L1 = MTE3;
/// GM->UB = MTE2 and UB->GM = MTE3 (the only engines with those paths).
std::optional<Pipe> pipe_for_copy(Space src, Space dst);
/// vbrc: V when the destination is UB, MTE2 when it is L1 (cbuf).
std::optional<Pipe> pipe_for_vbrc(Space dst);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_OP_TABLE_HPP
