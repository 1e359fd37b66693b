//===- eligibility.cpp - which unit an op lands on, and scalar fallbacks --===//
#include "eligibility.hpp"

namespace pb::hivm::analysis {

namespace {

Word unit_of_pipe(Pipe p) {
  switch (p) {
    case Pipe::S: return "scalar";
    case Pipe::V: return "vector";
    case Pipe::M: return "cube";
    case Pipe::MTE1: return "mte1";
    case Pipe::MTE2: return "mte2";
    case Pipe::MTE3: return "mte3";
    case Pipe::FIX: return "fixpipe";
    case Pipe::ALL: return "all";
    case Pipe::None: break;
  }
  return "none";
}

}  // namespace

std::string fallback_cause(const OpRecord &r, bool extracted) {
  const std::string where = extracted ? " (loop marked {ExtractedLoadOrStore}: an access the compiler could not turn into a DMA or vector op)" : "";
  const bool i64 = r.dtype == "i64";
  const bool is_float = !r.dtype.empty() && (r.dtype[0] == 'f' || r.dtype == "bf16");
  switch (r.cls) {
    case OpClass::ScalarMemory:
      if (r.scalar_kind == "gm_load") return "gather: element-by-element GM load on the scalar unit" + where;
      if (r.scalar_kind == "gm_store") return "scatter: element-by-element GM store on the scalar unit" + where;
      return r.name == "memref.store" ? "element-by-element UB store on the scalar unit" + where
                                      : "element-by-element UB load on the scalar unit" + where;
    case OpClass::ScalarCompare:
      if (r.name == "arith.select") return "mask/select evaluated per element on the scalar unit";
      return std::string(i64 ? "i64" : "i32/index") + " compare per element on the scalar unit";
    case OpClass::ScalarBitwise: return "bit operation per element on PIPE_S";
    case OpClass::ScalarCast: return "integer width conversion per element on the scalar unit";
    case OpClass::AffineIndex: return "address computation (affine.apply) per element on the scalar unit";
    case OpClass::View: return "address computation (memref view) per element on the scalar unit";
    case OpClass::Loop: return "loop control of an element-by-element scalar loop";
    case OpClass::ScalarArith:
      if (is_float) return "floating-point math per element on the scalar unit";
      return std::string(i64 ? "i64" : "i32/index") + " index arithmetic per element on the scalar unit";
    default: return "scalar work inside an element-by-element loop";
  }
}

void judge_eligibility(FunctionIr &ir, uint32_t r) {
  OpRecord &record = ir.rec(r);
  Eligibility &e = record.eligibility;
  e.landed = record.pipes.empty() ? Word("none") : unit_of_pipe(record.pipes.back());
  switch (record.cls) {
    case OpClass::Cube: e.units = {"cube"}; e.landed = "cube"; break;
    case OpClass::CubeMacro: e.units = {"cube"}; break;
    default: e.units = {is_vector_class(record.cls) ? Word("vector") : e.landed}; break;
  }
  // Scalar fallbacks: scalar work inside an element-by-element loop.
  bool in_element_loop = false, extracted = false;
  for (int32_t p = ir.record_path[r - ir.first_record]; p >= 0; p = ir.paths[static_cast<size_t>(p)].parent) {
    const PathNode &node = ir.paths[static_cast<size_t>(p)];
    if (node.kind != PathNode::Kind::Loop) continue;
    const LoopInfo &loop = ir.loops[node.loop];
    if (loop.has_scalar_memory && !loop.has_hivm) {
      in_element_loop = true;
      extracted = extracted || loop.extracted;
    }
  }
  if (record.cls == OpClass::Loop) {
    for (const LoopInfo &loop : ir.loops)
      if (loop.record == r && loop.has_scalar_memory && !loop.has_hivm) {
        in_element_loop = true;
        extracted = extracted || loop.extracted;
      }
  }
  const bool scalar_work = record.cls == OpClass::ScalarArith || record.cls == OpClass::ScalarCompare ||
                           record.cls == OpClass::ScalarBitwise || record.cls == OpClass::ScalarCast ||
                           record.cls == OpClass::AffineIndex || record.cls == OpClass::ScalarMemory ||
                           (record.cls == OpClass::View && record.scalar_instructions > 0) ||
                           record.cls == OpClass::Loop;
  if (in_element_loop && scalar_work) {
    e.fallback = true;
    e.landed = "scalar";
    if (record.cls == OpClass::ScalarMemory && record.scalar_kind == "gm_load") e.units = {"mte2", "vector", "scalar"};
    else if (record.cls == OpClass::ScalarMemory) e.units = {"vector", "mte3", "scalar"};
    else e.units = {"vector", "scalar"};
    e.cause = fallback_cause(record, extracted);
    Finding f;
    f.op = r;
    f.line = record.line;
    f.op_name = record.name;
    f.cause = e.cause;
    f.count_per_block = record.count.value;
    f.count_exact = record.count.exact;
    ir.prog.fallbacks.push_back(std::move(f));
  }
}

}  // namespace pb::hivm::analysis
