//===- op_table.cpp - what each HIVM and core-dialect op is and where it runs //
#include "op_table.hpp"

#include <string>
#include <unordered_map>

namespace pb::hivm {

const char *pipe_name(Pipe pipe) {
  switch (pipe) {
    case Pipe::S: return "S";
    case Pipe::V: return "V";
    case Pipe::M: return "M";
    case Pipe::MTE1: return "MTE1";
    case Pipe::MTE2: return "MTE2";
    case Pipe::MTE3: return "MTE3";
    case Pipe::FIX: return "FIX";
    case Pipe::ALL: return "ALL";
    case Pipe::None: break;
  }
  return "none";
}

std::optional<Pipe> pipe_from_enum(std::string_view text) {
  if (text.substr(0, 5) == "PIPE_") text.remove_prefix(5);
  if (text == "S") return Pipe::S;
  if (text == "V") return Pipe::V;
  if (text == "M") return Pipe::M;
  if (text == "MTE1") return Pipe::MTE1;
  if (text == "MTE2") return Pipe::MTE2;
  if (text == "MTE3") return Pipe::MTE3;
  if (text == "FIX") return Pipe::FIX;
  if (text == "ALL") return Pipe::ALL;
  return std::nullopt;
}

const char *op_class_name(OpClass cls) {
  switch (cls) {
    case OpClass::VectorArith: return "vector_arith";
    case OpClass::VectorTranscendental: return "vector_transcendental";
    case OpClass::VectorReduce: return "vector_reduce";
    case OpClass::VectorCompareSelect: return "vector_compare_select";
    case OpClass::VectorLogic: return "vector_logic";
    case OpClass::VectorConvert: return "vector_convert";
    case OpClass::VectorMove: return "vector_move";
    case OpClass::VectorGather: return "vector_gather";
    case OpClass::Dma: return "dma";
    case OpClass::Cube: return "cube";
    case OpClass::CubeMacro: return "cube_macro";
    case OpClass::SetFlag: return "set_flag";
    case OpClass::WaitFlag: return "wait_flag";
    case OpClass::PipeBarrier: return "pipe_barrier";
    case OpClass::SyncBlockSet: return "sync_block_set";
    case OpClass::SyncBlockWait: return "sync_block_wait";
    case OpClass::SyncBlock: return "sync_block";
    case OpClass::SyncOther: return "sync_other";
    case OpClass::HivmScalar: return "hivm_scalar";
    case OpClass::ScalarArith: return "scalar_arith";
    case OpClass::ScalarCompare: return "scalar_compare";
    case OpClass::ScalarBitwise: return "scalar_bitwise";
    case OpClass::ScalarCast: return "scalar_cast";
    case OpClass::Constant: return "constant";
    case OpClass::AffineIndex: return "affine_index";
    case OpClass::ScalarMemory: return "scalar_memory";
    case OpClass::View: return "view";
    case OpClass::Alloc: return "alloc";
    case OpClass::Annotation: return "annotation";
    case OpClass::Loop: return "loop";
    case OpClass::Branch: return "branch";
    case OpClass::Terminator: return "terminator";
    case OpClass::Unknown: break;
  }
  return "unknown";
}

bool is_vector_class(OpClass cls) {
  switch (cls) {
    case OpClass::VectorArith:
    case OpClass::VectorTranscendental:
    case OpClass::VectorReduce:
    case OpClass::VectorCompareSelect:
    case OpClass::VectorLogic:
    case OpClass::VectorConvert:
    case OpClass::VectorMove:
    case OpClass::VectorGather: return true;
    default: return false;
  }
}

namespace {

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using Table = std::unordered_map<std::string, OpInfo, NameHash, std::equal_to<>>;

Table build_table() {
  Table t;
  auto vec = [&](std::initializer_list<const char *> names, OpClass cls) {
    for (const char *n : names) t[std::string("hivm.hir.") + n] = {cls, Pipe::V, CoreAffinity::Vector, false};
  };
  vec({"vadd", "vsub", "vmul", "vdiv", "vmax", "vmin", "vabs", "vrelu", "vmod", "vmodui", "vmulext", "vmulextui",
       "vmulextended", "vpow", "vldexp", "vilogb", "vneg", "vaxpy", "vmla"},
      OpClass::VectorArith);
  vec({"vexp", "vexp2", "vln", "vlog2", "vlog10", "vlog1p", "vexpm1", "vrsqrt", "vsqrt", "vtanh", "vsin", "vcos",
       "vatan", "vtan", "verf", "vrec"},
      OpClass::VectorTranscendental);
  vec({"vreduce", "vcumsum", "vcumprod", "vcummax", "vcummin"}, OpClass::VectorReduce);
  vec({"vcmp", "vsel", "visinf", "visnan"}, OpClass::VectorCompareSelect);
  vec({"vnot", "vand", "vor", "vxor", "vshl", "vshr"}, OpClass::VectorLogic);
  vec({"vcast"}, OpClass::VectorConvert);
  vec({"varange", "vtranspose", "vinterleave", "vdeinterleave", "vflip", "vpad", "vconcat", "vsort"},
      OpClass::VectorMove);
  vec({"vgather", "vgathermask", "embedding_gather", "gather_load", "stride_load", "stride_store", "indirect_load",
       "indirect_store", "gatherT", "scatterT", "index_put"},
      OpClass::VectorGather);
  // Space-dependent pipes.
  t["hivm.hir.vbrc"] = {OpClass::VectorMove, Pipe::None, CoreAffinity::BySpace, false};
  t["hivm.hir.copy"] = {OpClass::Dma, Pipe::None, CoreAffinity::BySpace, false};
  // DMA.
  t["hivm.hir.load"] = {OpClass::Dma, Pipe::MTE2, CoreAffinity::BySpace, false};
  t["hivm.hir.store"] = {OpClass::Dma, Pipe::MTE3, CoreAffinity::Vector, false};
  t["hivm.hir.nd2nz"] = {OpClass::Dma, Pipe::MTE2, CoreAffinity::Cube, false};
  t["hivm.hir.nz2nd"] = {OpClass::Dma, Pipe::MTE3, CoreAffinity::Cube, false};
  t["hivm.hir.l12ub"] = {OpClass::Dma, Pipe::MTE1, CoreAffinity::Cube, false};
  t["hivm.hir.load_scale"] = {OpClass::Dma, Pipe::MTE2, CoreAffinity::Cube, false};
  t["hivm.hir.fixpipe"] = {OpClass::Dma, Pipe::FIX, CoreAffinity::Cube, false};
  // Cube.
  for (const char *n : {"mmadL1", "batchMmadL1", "mmadmxL1", "Conv1dL1", "Conv2dL1", "Conv3dL1"})
    t[std::string("hivm.hir.") + n] = {OpClass::Cube, Pipe::M, CoreAffinity::Cube, true};
  for (const char *n : {"matmul", "mix_matmul", "mix_group_matmul"})
    t[std::string("hivm.hir.") + n] = {OpClass::CubeMacro, Pipe::None, CoreAffinity::Either, false};
  // Synchronisation.
  t["hivm.hir.set_flag"] = {OpClass::SetFlag, Pipe::None, CoreAffinity::Either, false};
  t["hivm.hir.wait_flag"] = {OpClass::WaitFlag, Pipe::None, CoreAffinity::Either, false};
  t["hivm.hir.pipe_barrier"] = {OpClass::PipeBarrier, Pipe::None, CoreAffinity::Either, false};
  t["hivm.hir.sync_block_set"] = {OpClass::SyncBlockSet, Pipe::None, CoreAffinity::Either, false};
  t["hivm.hir.sync_block_wait"] = {OpClass::SyncBlockWait, Pipe::None, CoreAffinity::Either, false};
  t["hivm.hir.sync_block"] = {OpClass::SyncBlock, Pipe::ALL, CoreAffinity::Either, false};
  for (const char *n : {"create_sync_block_lock", "sync_block_lock", "sync_block_unlock", "free_lock_var"})
    t[std::string("hivm.hir.") + n] = {OpClass::SyncOther, Pipe::S, CoreAffinity::Either, false};
  // Scalar-unit HIVM ops.
  for (const char *n : {"get_block_idx", "get_block_num", "get_sub_block_idx", "get_sub_block_num", "get_sys_cnt",
                        "set_mask_norm", "load_scalar", "set_atomic", "set_ctrl", "dcci", "set_ffts_base_addr",
                        "init_debug", "finish_debug", "debug", "multi_buffer_counter", "convert_layout"})
    t[std::string("hivm.hir.") + n] = {OpClass::HivmScalar, Pipe::S, CoreAffinity::Either, false};
  t["hivm.hir.pointer_cast"] = {OpClass::Alloc, Pipe::S, CoreAffinity::Either, false};
  t["hivm.hir.bitcast"] = {OpClass::View, Pipe::S, CoreAffinity::Either, false};
  t["memref_ext.alloc_workspace"] = {OpClass::Alloc, Pipe::S, CoreAffinity::Either, false};
  t["memref.alloc"] = {OpClass::Alloc, Pipe::S, CoreAffinity::Either, false};
  t["memref.alloca"] = {OpClass::Alloc, Pipe::S, CoreAffinity::Either, false};
  t["annotation.mark"] = {OpClass::Annotation, Pipe::None, CoreAffinity::Either, false};
  // arith.
  for (const char *n : {"addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "ceildivsi", "ceildivui",
                        "floordivsi", "minsi", "maxsi", "minui", "maxui", "addf", "subf", "mulf", "divf", "remf",
                        "minimumf", "maximumf", "minnumf", "maxnumf", "negf", "absf", "mulsi_extended",
                        "mului_extended", "addui_extended"})
    t[std::string("arith.") + n] = {OpClass::ScalarArith, Pipe::S, CoreAffinity::Either, false};
  for (const char *n : {"cmpi", "cmpf", "select"})
    t[std::string("arith.") + n] = {OpClass::ScalarCompare, Pipe::S, CoreAffinity::Either, false};
  for (const char *n : {"andi", "ori", "xori", "shli", "shrsi", "shrui"})
    t[std::string("arith.") + n] = {OpClass::ScalarBitwise, Pipe::S, CoreAffinity::Either, false};
  for (const char *n : {"index_cast", "index_castui", "extsi", "extui", "trunci", "extf", "truncf", "sitofp",
                        "uitofp", "fptosi", "fptoui", "bitcast"})
    t[std::string("arith.") + n] = {OpClass::ScalarCast, Pipe::S, CoreAffinity::Either, false};
  t["arith.constant"] = {OpClass::Constant, Pipe::S, CoreAffinity::Either, false};
  for (const char *n : {"apply", "min", "max"})
    t[std::string("affine.") + n] = {OpClass::AffineIndex, Pipe::S, CoreAffinity::Either, false};
  t["memref.load"] = {OpClass::ScalarMemory, Pipe::S, CoreAffinity::Either, false};
  t["memref.store"] = {OpClass::ScalarMemory, Pipe::S, CoreAffinity::Either, false};
  for (const char *n : {"subview", "reinterpret_cast", "cast", "collapse_shape", "expand_shape",
                        "extract_strided_metadata", "view"})
    t[std::string("memref.") + n] = {OpClass::View, Pipe::S, CoreAffinity::Either, false};
  // Ops of other dialects that move or compute nothing: they allocate, cast,
  // reshape or view a buffer or a tensor, or read its shape. Known, so that an
  // op with a shaped operand that is not here is taken to do work (opaque).
  for (const char *n : {"tensor.empty", "bufferization.alloc_tensor"})
    t[n] = {OpClass::Alloc, Pipe::S, CoreAffinity::Either, false};
  for (const char *n : {"tensor.cast", "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice",
                        "tensor.dim", "tensor.rank", "bufferization.to_tensor", "bufferization.to_memref",
                        "bufferization.to_buffer", "memref.dim", "memref.rank", "memref.memory_space_cast",
                        "memref.assume_alignment", "memref.extract_aligned_pointer_as_index", "memref.get_global"})
    t[n] = {OpClass::View, Pipe::S, CoreAffinity::Either, false};
  t["memref.dealloc"] = {OpClass::Annotation, Pipe::None, CoreAffinity::Either, false};
  // Regions run once, in place (walk.cpp walks them inline).
  t["scope.scope"] = {OpClass::Annotation, Pipe::None, CoreAffinity::Either, false};
  t["scf.execute_region"] = {OpClass::Annotation, Pipe::None, CoreAffinity::Either, false};
  t["scope.return"] = {OpClass::Terminator, Pipe::None, CoreAffinity::Either, false};
  t["scf.for"] = {OpClass::Loop, Pipe::S, CoreAffinity::Either, false};
  t["scf.while"] = {OpClass::Loop, Pipe::S, CoreAffinity::Either, false};
  t["scf.if"] = {OpClass::Branch, Pipe::S, CoreAffinity::Either, false};
  t["scf.yield"] = {OpClass::Terminator, Pipe::None, CoreAffinity::Either, false};
  t["scf.condition"] = {OpClass::Terminator, Pipe::None, CoreAffinity::Either, false};
  t["func.return"] = {OpClass::Terminator, Pipe::S, CoreAffinity::Either, false};
  t["return"] = {OpClass::Terminator, Pipe::S, CoreAffinity::Either, false};
  return t;
}

const Table &table() {
  static const Table t = build_table();
  return t;
}

}  // namespace

std::optional<OpInfo> lookup_op(std::string_view name) {
  const Table &t = table();
  auto it = t.find(name);
  if (it == t.end()) return std::nullopt;
  return it->second;
}

std::optional<Pipe> pipe_for_copy(Space src, Space dst) {
  if (src == Space::UB && dst == Space::UB) return Pipe::V;
  if (src == Space::L0C && dst == Space::GM) return Pipe::FIX;
  if (src == Space::GM && dst == Space::L1) return Pipe::MTE2;
  if (src == Space::UB && dst == Space::L1) return Pipe::MTE3;
  if (src == Space::GM && dst == Space::UB) return Pipe::MTE2;
  if (src == Space::UB && dst == Space::GM) return Pipe::MTE3;
  return std::nullopt;
}

std::optional<Pipe> pipe_for_vbrc(Space dst) {
  if (dst == Space::UB) return Pipe::V;
  if (dst == Space::L1) return Pipe::MTE2;
  return std::nullopt;
}

}  // namespace pb::hivm
