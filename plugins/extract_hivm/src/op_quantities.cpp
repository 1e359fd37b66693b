//===- op_quantities.cpp - what one execution of a HIVM op moves/computes -===//
#include "op_quantities.hpp"

#include <algorithm>

namespace pb::hivm::analysis {

Quantity product(const std::vector<DimEval> &dims, const char *what) {
  Quantity q;
  int64_t n = 1;
  bool exact = true;
  for (const auto &d : dims) {
    if (!d.known) {
      q.reason = std::string(what) + ": a dynamic dimension could not be resolved (no constant, no bound)";
      return q;
    }
    exact = exact && d.exact;
    n *= d.value;
  }
  q.value = n;
  if (!exact) {
    q.set_estimated(true);
    q.reason = std::string(what) + ": dynamic dimension estimated from its upper bound (affine.min constant or the buffer's static extent)";
  }
  return q;
}


OpQuantities::Sample OpQuantities::sample(uint32_t r) {
  Sample out;
  OpRecord &record = ir_.rec(r);
  OpDetail &d = ir_.detail(r);
  if (!d.hivm) return out;
  uint8_t &taint = out.taint;
  auto memrefs = [](const std::vector<Operand> &v) {
    std::vector<const Operand *> out2;
    for (const Operand &o : v)
      if (o.type.kind == Type::Kind::Memref || o.type.kind == Type::Kind::Tensor) out2.push_back(&o);
    return out2;
  };
  std::vector<const Operand *> ins = memrefs(d.ins), outs = memrefs(d.outs);
  const bool vector_op = !record.pipes.empty() && record.pipes[0] == Pipe::V;
  if (record.cls == OpClass::Cube) {
    auto get = [&](size_t idx) -> DimEval {
      if (idx >= d.scalars.size()) return {};
      Eval e = ev_.eval(d.scalars[idx]);
      taint |= e.taint;
      if (e.iv.exact()) return {e.iv.lo, true, true};
      if (e.iv.hi != Interval::kPosInf && e.iv.hi >= 0) return {e.iv.hi, false, true};
      return {};
    };
    DimEval m = get(1), k = get(2), n = get(3);
    if (m.known) record.m = m.value;
    if (k.known) record.k = k.value;
    if (n.known) record.n = n.value;
    if (!ins.empty()) record.dtype = dtype_name(ins[0]->type.elem);
    if (m.known && k.known && n.known) {
      out.flop.value = sat_mul(sat_mul(sat_mul(2, m.value), k.value), n.value);
      out.elements.value = sat_mul(m.value, n.value);
      if (!(m.exact && k.exact && n.exact)) {
        out.flop.set_estimated(true);
        out.elements.set_estimated(true);
        out.flop.reason = "a matmul extent (real_m/real_k/real_n) is dynamic: its upper bound is used";
      }
      auto it = ir_.opts.fractal.find(record.dtype);
      Fractal f = it != ir_.opts.fractal.end() ? it->second : Fractal{};
      auto pad = [](int64_t x, int64_t to) { return to > 0 && x < kSaturated - to ? (x + to - 1) / to * to : x; };
      uint32_t bits = !ins.empty() && ins[0]->type.elem.known() ? ins[0]->type.elem.bits : 16;
      int64_t mp = pad(m.value, f.m), kp = pad(k.value, f.k), np = pad(n.value, f.n);
      record.mte1_bytes = elem_bytes_ceil(sat_add(sat_mul(mp, kp), sat_mul(kp, np)), bits);
    } else {
      out.flop.reason = "matmul extents real_m/real_k/real_n could not be resolved";
    }
    return out;
  }
  if (record.cls == OpClass::Dma || (!vector_op && record.cls == OpClass::VectorMove)) {
    const Operand *gm = nullptr;
    for (const Operand *o : ins)
      if (o->type.space == Space::GM) gm = o;
    if (gm == nullptr)
      for (const Operand *o : outs)
        if (o->type.space == Space::GM) gm = o;
    const Operand *side = gm != nullptr ? gm : (!ins.empty() ? ins[0] : (!outs.empty() ? outs[0] : nullptr));
    if (record.name == "hivm.hir.vbrc" && !outs.empty()) side = outs[0];
    if (side == nullptr) return out;
    std::vector<DimEval> dims = shapes_.shape_of(*side, taint);
    out.elements = product(dims, "elements");
    uint32_t bits = side->type.elem.bits;
    record.dtype = dtype_name(side->type.elem);
    if (out.elements.value && bits > 0) {
      out.bytes = out.elements;
      out.bytes.value = elem_bytes_ceil(*out.elements.value, bits);
      if (out.bytes.estimated()) out.bytes.reason = "bytes: " + out.bytes.reason;
    } else if (bits == 0) {
      out.bytes.reason = "element type of the transfer unknown";
    } else {
      out.bytes.reason = out.elements.reason;
    }
    // Contiguous runs (packets) on the GM side.
    if (gm != nullptr && out.elements.value) {
      std::vector<int64_t> strides = shapes_.strides_of(*gm, taint);
      int64_t run = 1;
      bool known = true;
      bool first = true;
      for (size_t idx = dims.size(); idx-- > 0;) {
        if (!dims[idx].known) {
          known = false;
          break;
        }
        if (dims[idx].value == 1) continue;
        if (strides[idx] == kDynamic) {
          known = first ? false : known;
          break;
        }
        if (strides[idx] != run) break;
        run *= dims[idx].value;
        first = false;
      }
      if (known && run > 0 && bits > 0) {
        out.packet_bytes.value = elem_bytes_ceil(run, bits);
        out.packets.value = (*out.elements.value + run - 1) / run;
        if (out.elements.estimated()) {
          out.packet_bytes.set_estimated(true);
          out.packets.set_estimated(true);
          out.packet_bytes.reason = out.packets.reason = "from estimated dimensions";
        }
      } else {
        out.packet_bytes.reason = out.packets.reason =
            "the GM-side stride is dynamic and unresolved (give the launch arguments that define it)";
      }
    }
    return out;
  }
  if (vector_op) {
    std::vector<const Operand *> all = ins;
    all.insert(all.end(), outs.begin(), outs.end());
    if (all.empty()) return out;
    const Operand *lane = nullptr;
    Quantity lane_elems;
    uint32_t bits = 0;
    bool only_i1 = true;
    for (const Operand *o : all)
      if (o->type.elem.bits > 1) only_i1 = false;
    for (const Operand *o : all) {
      if (!only_i1 && o->type.elem.bits <= 1) continue;
      bits = std::max(bits, o->type.elem.bits);
    }
    std::vector<DimEval> lane_dims;
    for (const Operand *o : all) {
      std::vector<DimEval> dims = shapes_.shape_of(*o, taint);
      Quantity n = product(dims, "elements");
      if (!n.value) continue;
      bool better = lane == nullptr || *n.value > *lane_elems.value ||
                    (*n.value == *lane_elems.value && o->type.elem.bits > lane->type.elem.bits);
      if (better) {
        lane = o;
        lane_elems = n;
        lane_dims = dims;
      }
    }
    if (lane == nullptr) {
      out.elements.reason = "no operand with a resolvable shape";
      return out;
    }
    out.elements = lane_elems;
    record.dtype = dtype_name(lane->type.elem);
    if (bits == 0) {
      out.repeats.reason = "element type unknown";
      return out;
    }
    const int64_t repeat_bits = ir_.opts.vector_repeat_bytes * 8;
    const int64_t lanes_per_repeat = repeat_bits / bits;
    const int64_t n = *lane_elems.value;
    int64_t repeats = 0;
    if (lane->type.contiguous() || lane->type.rank() <= 1) {
      repeats = sat_mul(n, bits) >= kSaturated ? kSaturated : (n * bits + repeat_bits - 1) / repeat_bits;
    } else {
      std::vector<int64_t> strides = shapes_.strides_of(*lane, taint);
      int64_t run = 1;
      for (size_t idx = lane_dims.size(); idx-- > 0;) {
        if (lane_dims[idx].value == 1) continue;
        if (strides[idx] != run) break;
        run = sat_mul(run, lane_dims[idx].value);
      }
      int64_t rows = run > 0 ? (n + run - 1) / run : n;
      int64_t run_bytes = sat_mul(run, bits) >= kSaturated ? kSaturated : (run * bits + 7) / 8;
      int64_t blocks_per_row = (run_bytes + 31) / 32;
      int64_t blocks_per_repeat = ir_.opts.vector_repeat_bytes / 32;
      if (blocks_per_row <= blocks_per_repeat) {
        repeats = sat_mul(rows, blocks_per_row) >= kSaturated ? kSaturated
                                                               : (rows * blocks_per_row + blocks_per_repeat - 1) / blocks_per_repeat;
      } else {
        repeats = sat_mul(rows, (run_bytes + ir_.opts.vector_repeat_bytes - 1) / ir_.opts.vector_repeat_bytes);
      }
    }
    out.repeats.value = repeats;
    out.masked.value = repeats >= kSaturated ? kSaturated : std::max<int64_t>(0, sat_mul(repeats, lanes_per_repeat) - n);
    if (lane_elems.estimated()) {
      out.repeats.set_estimated(true);
      out.masked.set_estimated(true);
      out.repeats.reason = out.masked.reason = "from an estimated element count";
    }
    switch (record.cls) {
      case OpClass::VectorArith:
      case OpClass::VectorTranscendental:
      case OpClass::VectorReduce: out.flop = lane_elems; break;
      default: out.flop = Quantity::exact(0); break;
    }
    if (record.name == "hivm.hir.copy") {
      out.bytes = lane_elems;
      out.bytes.value = elem_bytes_ceil(n, bits);
    }
    return out;
  }
  return out;
}

}  // namespace pb::hivm::analysis
