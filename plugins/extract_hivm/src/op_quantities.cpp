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


int64_t OpQuantities::elements_min(const Operand &o, uint8_t &taint) {
  const MemrefInfo *mi = ir_.mem_of(o.v);
  int64_t n = 1;
  for (size_t idx = 0; idx < o.type.rank(); ++idx) {
    int64_t lo = 0;
    if (o.type.shape[idx] != kDynamic) {
      lo = o.type.shape[idx];
    } else if (mi != nullptr && mi->dims.size() == o.type.rank()) {
      const DimRef &d = mi->dims[idx];
      if (d.c != kDynamic) {
        lo = d.c;
      } else if (d.v != kNone) {
        Eval e = ev_.eval(d.v);
        taint |= e.taint;
        if (e.iv.lo != Interval::kNegInf) lo = e.iv.lo;
      }
    }
    n = sat_mul(n, std::max<int64_t>(0, lo));
  }
  return n;
}

OpQuantities::Sample OpQuantities::sample(uint32_t r) {
  Sample out;
  const OpRecord &record = ir_.rec(r);
  const OpDetail &d = ir_.detail(r);
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
    int64_t lows[4] = {0, 0, 0, 0};  // the extents' lower ends (0 where unbounded below)
    auto get = [&](size_t idx) -> DimEval {
      if (idx >= d.scalars.size()) return {};
      Eval e = ev_.eval(d.scalars[idx]);
      taint |= e.taint;
      if (e.iv.lo != Interval::kNegInf) lows[idx] = std::max<int64_t>(0, e.iv.lo);
      if (e.iv.exact()) return {e.iv.lo, true, true};
      if (e.iv.hi != Interval::kPosInf && e.iv.hi >= 0) return {e.iv.hi, false, true};
      return {};
    };
    DimEval m = get(1), k = get(2), n = get(3);
    if (m.known) out.m = m.value;
    if (k.known) out.k = k.value;
    if (n.known) out.n = n.value;
    if (!ins.empty() && ins[0]->type.elem.known()) out.dtype = ins[0]->type.elem.name;
    if (m.known && k.known && n.known) {
      out.flop.value = sat_mul(sat_mul(sat_mul(2, m.value), k.value), n.value);
      out.elements.value = sat_mul(m.value, n.value);
      auto it = ir_.opts.fractal.find(std::string(out.dtype));
      Fractal f = it != ir_.opts.fractal.end() ? it->second : Fractal{};
      auto pad = [](int64_t x, int64_t to) { return to > 0 && x < kSaturated - to ? (x + to - 1) / to * to : x; };
      uint32_t bits = !ins.empty() && ins[0]->type.elem.known() ? ins[0]->type.elem.bits : 16;
      int64_t mp = pad(m.value, f.m), kp = pad(k.value, f.k), np = pad(n.value, f.n);
      out.mte1_bytes.value = elem_bytes_ceil(sat_add(sat_mul(mp, kp), sat_mul(kp, np)), bits);
      out.flop_min = out.flop.value;
      out.mte1_min = out.mte1_bytes.value;
      if (!(m.exact && k.exact && n.exact)) {
        // At the lower ends: 2mkn, and the operands' MTE1 bytes only when no extent can be 0
        // (a matmul with an empty side may load nothing).
        const int64_t ml = m.exact ? m.value : lows[1], kl = k.exact ? k.value : lows[2], nl = n.exact ? n.value : lows[3];
        out.flop_min = sat_mul(2, sat_mul(ml, sat_mul(kl, nl)));
        out.mte1_min = ml > 0 && kl > 0 && nl > 0
                           ? elem_bytes_ceil(sat_add(sat_mul(pad(ml, f.m), pad(kl, f.k)), sat_mul(pad(kl, f.k), pad(nl, f.n))), bits)
                           : 0;
        // The upper end of a dynamic extent: an estimate, never a minimum.
        out.flop.set_estimated(true);
        out.elements.set_estimated(true);
        out.mte1_bytes.set_estimated(true);
        out.flop.reason = "a matmul extent (real_m/real_k/real_n) is dynamic: its upper bound is used";
        out.mte1_bytes.reason = "a matmul extent (real_m/real_k/real_n) is dynamic: MTE1 bytes from its upper bound";
      }
    } else {
      out.flop.reason = "matmul extents real_m/real_k/real_n could not be resolved";
      out.mte1_bytes.reason = out.flop.reason;
      out.flop_min = sat_mul(2, sat_mul(lows[1], sat_mul(lows[2], lows[3])));
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
    if (side->type.elem.known()) out.dtype = side->type.elem.name;
    if (bits > 0)
      out.bytes_min = out.elements.value && !out.elements.estimated()
                          ? elem_bytes_ceil(*out.elements.value, bits)
                          : elem_bytes_ceil(elements_min(*side, taint), bits);
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
    if (lane->type.elem.known()) out.dtype = lane->type.elem.name;
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
    // The fewest elements the widest operand can have: every operand's lower end bounds it
    // from below. A repeat covers at most repeat_bytes of it, however the rows are laid out.
    int64_t n_min = n;
    if (lane_elems.estimated()) {
      out.repeats.set_estimated(true);
      out.masked.set_estimated(true);
      out.repeats.reason = out.masked.reason = "from an estimated element count";
      n_min = 0;
      for (const Operand *o : all) n_min = std::max(n_min, elements_min(*o, taint));
    }
    out.repeats_min = lane_elems.estimated() ? (n_min * bits + repeat_bits - 1) / repeat_bits : repeats;
    switch (record.cls) {
      case OpClass::VectorArith:
      case OpClass::VectorTranscendental:
      case OpClass::VectorReduce:
        out.flop = lane_elems;
        out.flop_min = n_min;
        break;
      default:
        out.flop = Quantity::exact(0);
        out.flop_min = 0;
        break;
    }
    if (record.name == "hivm.hir.copy") {
      out.bytes = lane_elems;
      out.bytes.value = elem_bytes_ceil(n, bits);
      out.bytes_min = elem_bytes_ceil(n_min, bits);
    }
    return out;
  }
  return out;
}

}  // namespace pb::hivm::analysis
