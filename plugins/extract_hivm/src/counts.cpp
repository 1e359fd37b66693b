//===- counts.cpp - per-block executions and totals of each record --------===//
#include "counts.hpp"

#include <map>
#include <set>

#include <perfbound/sdk/cancel.hpp>

namespace pb::hivm::analysis {

namespace {

struct QSum {
  int64_t value = 0;
  bool known = true;
  bool estimated = false;
  std::string reason;
  void add(const Quantity &q, const Mult &m) {
    if (!known) return;
    if (m.value == 0 && m.min == 0 && !m.exact) {
      estimated = true;
      return;
    }
    if (!m.known) {
      known = false;
      reason = "execution count unknown";
      return;
    }
    if (!q.value) {
      if (m.value == 0) return;
      known = false;
      reason = q.reason;
      return;
    }
    value = sat_add(value, sat_mul(*q.value, m.value));
    if (q.estimated() || !m.exact) {
      estimated = true;
      if (reason.empty()) reason = q.estimated() ? q.reason : "execution count estimated";
    }
  }
  [[nodiscard]] Quantity get() const {
    Quantity q;
    if (known) q.value = value;
    q.set_estimated(estimated);
    q.reason = reason;
    return q;
  }
};

/// A guaranteed minimum summed over executions: each execution's minimum (its exact value,
/// or the value at the lower ends of its dynamic extents) times its minimum count; unknown
/// once an execution that surely runs has no minimum. An estimate whose lower end is 0 says
/// nothing about the execution: it is no minimum (the op is then listed as not counted,
/// rather than counted as doing nothing).
struct MinSum {
  int64_t value = 0;
  bool ok = true;
  void add(const Quantity &q, OptInt64 fewest, const Mult &m) {
    if (!ok || m.min == 0) return;
    if (q.value && !q.estimated()) fewest = q.value;
    else if (fewest && *fewest == 0) fewest.reset();
    if (!fewest) {
      ok = false;
      return;
    }
    value = sat_add(value, sat_mul(*fewest, m.min));
  }
  void add(const MinSum &o) {
    ok = ok && o.ok;
    value = sat_add(value, o.value);
  }
  void keep_smaller(const MinSum &o) {
    if (!o.ok) ok = false;
    else if (ok) value = std::min(value, o.value);
  }
  [[nodiscard]] std::optional<int64_t> get() const { return ok ? std::optional<int64_t>(value) : std::nullopt; }
};

}  // namespace

ExecutionCounts::RunResult ExecutionCounts::run_counts(uint32_t r, const std::vector<int32_t> &chain,
                                                         bool with_samples) {
  // One op's counts can enumerate thousands of leaves per block: a large function stops within
  // a poll of Ctrl-C here, not only while its text is read (issue 27).
  pb::sdk::throw_if_cancelled();
  struct Inst {
    Mult sum{0, 0, 0, true, true};
    QSum bytes, elements, flop, repeats, masked, packets, issued, mte1;
    MinSum bytes_min, flop_min, repeats_min, issued_min, mte1_min, packets_min, masked_min;
    std::string reason;
    uint8_t taint = 0;
    uint64_t leaves = 0;
  };
  // The guaranteed minimum of one block (all instances), or of every block at once.
  struct BlockMins {
    int64_t count = 0;
    MinSum bytes, flop, repeats, issued, mte1, packets, masked;
    void add(const Inst &inst) {
      count = sat_add(count, inst.sum.min);
      bytes.add(inst.bytes_min);
      flop.add(inst.flop_min);
      repeats.add(inst.repeats_min);
      issued.add(inst.issued_min);
      mte1.add(inst.mte1_min);
      packets.add(inst.packets_min);
      masked.add(inst.masked_min);
    }
    void keep_smaller(const BlockMins &o) {
      count = std::min(count, o.count);
      bytes.keep_smaller(o.bytes);
      flop.keep_smaller(o.flop);
      repeats.keep_smaller(o.repeats);
      issued.keep_smaller(o.issued);
      mte1.keep_smaller(o.mte1);
      packets.keep_smaller(o.packets);
      masked.keep_smaller(o.masked);
    }
  };
  auto mins_of = [](const std::vector<Inst> &insts) {
    BlockMins b;
    for (const Inst &inst : insts) b.add(inst);
    return b;
  };
  auto run_block = [&](Interval block) {
    std::vector<Inst> out(ir_.instances);
    for (uint32_t s = 0; s < ir_.instances; ++s) {
      ev_.ctx.block = block;
      ev_.ctx.sub = Interval::point(s);
      ev_.ctx.iv.assign(ir_.loops.size(), std::nullopt);
      ev_.touch_ctx();
      Inst &inst = out[s];
      trips_.clear_reasons();
      uint64_t &leaves = inst.leaves;
      trips_.enumerate(chain, 0, Mult{}, leaves,
                [&](const Mult &m) {
                  add_executions(inst.sum, m);
                  if (!with_samples) return;
                  OpQuantities::Sample smp = quantities_.sample(r);
                  inst.taint |= smp.taint;
                  inst.bytes.add(smp.bytes, m);
                  inst.elements.add(smp.elements, m);
                  inst.flop.add(smp.flop, m);
                  inst.repeats.add(smp.repeats, m);
                  inst.masked.add(smp.masked, m);
                  inst.packets.add(smp.packets, m);
                  inst.mte1.add(smp.mte1_bytes, m);
                  Quantity issued = Quantity::exact(ir_.rec(r).issued_instructions);
                  // ceil(repeats / 255) instructions (docs/extract_hivm.md §5): none over an empty tile;
                  // from an estimated repeat count, an estimate too.
                  if (smp.repeats.value) {
                    issued.value = (*smp.repeats.value + 254) / 255;
                    if (smp.repeats.estimated()) {
                      issued.set_estimated(true);
                      issued.reason = smp.repeats.reason;
                    }
                  }
                  inst.issued.add(issued, m);
                  inst.bytes_min.add(smp.bytes, smp.bytes_min, m);
                  inst.flop_min.add(smp.flop, smp.flop_min, m);
                  inst.repeats_min.add(smp.repeats, smp.repeats_min, m);
                  inst.mte1_min.add(smp.mte1_bytes, smp.mte1_min, m);
                  inst.packets_min.add(smp.packets, std::nullopt, m);
                  inst.masked_min.add(smp.masked, std::nullopt, m);
                  // An estimated repeat count guarantees ceil(fewest / 255) instructions: none when the
                  // tile may be empty (an empty tile issues no vector instruction).
                  Quantity issued_fewest = issued;
                  if (smp.repeats.value && smp.repeats.estimated())
                    issued_fewest = Quantity::exact((smp.repeats_min.value_or(0) + 254) / 255);
                  inst.issued_min.add(issued_fewest, std::nullopt, m);
                },
                inst.reason, inst.taint);
    }
    return out;
  };
  ev_.facts_used = 0;
  std::vector<Inst> first = run_block(Interval::point(0));
  RunResult res;
  Mult total{0, 0, 0, true, true};
  std::string reason;
  size_t busiest = 0;
  for (size_t s = 0; s < first.size(); ++s) {
    const Inst &inst = first[s];
    add_executions(total, inst.sum);
    res.taint |= inst.taint;
    if (!inst.reason.empty() && reason.find(inst.reason) == std::string::npos)
      reason += (reason.empty() ? "" : "; ") + inst.reason;
    if (inst.sum.value > first[busiest].sum.value) busiest = s;
  }
  res.block = to_count(total, reason);
  res.instance = to_count(first[busiest].sum, first[busiest].reason);
  auto merge = [&](QSum Inst::*field) {
    QSum acc;
    for (const Inst &inst : first) {
      const QSum &q = inst.*field;
      if (!q.known) {
        acc.known = false;
        acc.reason = q.reason;
      }
      acc.value = sat_add(acc.value, q.value);
      acc.estimated = acc.estimated || q.estimated;
      if (acc.reason.empty()) acc.reason = q.reason;
    }
    return acc.get();
  };
  res.bytes = merge(&Inst::bytes);
  res.elements = merge(&Inst::elements);
  res.flop = merge(&Inst::flop);
  res.repeats = merge(&Inst::repeats);
  res.masked = merge(&Inst::masked);
  res.packets = merge(&Inst::packets);
  res.issued = merge(&Inst::issued);
  res.mte1 = merge(&Inst::mte1);
  res.bytes_i = first[busiest].bytes.get();
  res.flop_i = first[busiest].flop.get();
  res.repeats_i = first[busiest].repeats.get();
  res.issued_i = first[busiest].issued.get();
  res.mte1_i = first[busiest].mte1.get();
  if (res.taint & kTBlock) res.block.block_dependent = res.instance.block_dependent = true;
  const bool dependent = (res.taint & kTBlock) != 0;
  // The guaranteed minimum over every block: block 0's when nothing depends on the block index,
  // else the smallest over the enumerated blocks or, failing that, with the block index as an interval.
  BlockMins mins = mins_of(first);
  bool mins_enumerated = false;
  // Whole-grid sums.
  if (ir_.prog.blocks) {
    const int64_t G = *ir_.prog.blocks;
    uint64_t leaves0 = 0;
    for (const Inst &inst : first) leaves0 += std::max<uint64_t>(1, inst.leaves);
    const bool enumerable = dependent && (res.taint & kTUnresolved) == 0 &&
                            static_cast<uint64_t>(G) * leaves0 <= ir_.opts.grid_budget;
    auto count_q = [](const Count &c) {
      Quantity q;
      if (!c.known) {
        q.reason = c.reason;
        return q;
      }
      q.value = c.value;
      q.set_estimated(!c.exact);
      q.reason = c.reason;
      return q;
    };
    auto scale_q = [&](const Quantity &q) {
      Quantity out = q;
      if (q.value) {
        int64_t v = 0;
        if (__builtin_mul_overflow(*q.value, G, &v)) v = kInf;
        out.value = v;
      }
      if (dependent) {
        out.set_estimated(true);
        out.reason = "depends on the block index and could not be summed over every block: block 0 times the block count";
      }
      return out;
    };
    if (enumerable) {
      mins_enumerated = true;
      QSum cnt, bytes, flop, repeats, issued, mte1;
      for (int64_t b = 0; b < G; ++b) {
        std::vector<Inst> per = b == 0 ? first : run_block(Interval::point(b));
        if (b > 0) mins.keep_smaller(mins_of(per));
        for (const Inst &inst : per) {
          Mult m = inst.sum;
          cnt.add(Quantity::exact(1), m);
          if (!with_samples) continue;
          Mult one{1, 1, 1, true, true};
          bytes.add(inst.bytes.get(), one);
          flop.add(inst.flop.get(), one);
          repeats.add(inst.repeats.get(), one);
          issued.add(inst.issued.get(), one);
          mte1.add(inst.mte1.get(), one);
        }
      }
      res.count_grid = cnt.get();
      if (with_samples) {
        res.bytes_grid = bytes.get();
        res.flop_grid = flop.get();
        res.repeats_grid = repeats.get();
        res.issued_grid = issued.get();
        res.mte1_grid = mte1.get();
      }
    } else {
      res.count_grid = scale_q(count_q(res.block));
      if (with_samples) {
        res.bytes_grid = scale_q(res.bytes);
        res.flop_grid = scale_q(res.flop);
        res.repeats_grid = scale_q(res.repeats);
        res.issued_grid = scale_q(res.issued);
        res.mte1_grid = scale_q(res.mte1);
      }
    }
  }
  // Nothing to lower when block 0 already guarantees nothing.
  const bool all_zero = mins.count == 0 && (!mins.bytes.ok || mins.bytes.value == 0) &&
                        (!mins.flop.ok || mins.flop.value == 0) && (!mins.repeats.ok || mins.repeats.value == 0) &&
                        (!mins.issued.ok || mins.issued.value == 0) && (!mins.mte1.ok || mins.mte1.value == 0);
  if (dependent && !mins_enumerated && !all_zero) mins.keep_smaller(mins_of(run_block(ev_.launch.block_any)));
  res.mins.count = mins.count;
  res.mins.bytes = mins.bytes.get();
  res.mins.flop = mins.flop.get();
  res.mins.repeats = mins.repeats.get();
  res.mins.issued = mins.issued.get();
  res.mins.mte1 = mins.mte1.get();
  res.mins.packets = mins.packets.get();
  res.mins.masked = mins.masked.get();
  if (res.block.block_dependent) {
    if (ir_.prog.blocks && *ir_.prog.blocks > 1) {
      std::vector<Inst> last = run_block(Interval::point(*ir_.prog.blocks - 1));
      int64_t last_value = 0;
      for (const Inst &inst : last) last_value = sat_add(last_value, inst.sum.value);
      res.block.last_block = last_value;
      if (last_value != res.block.value) {
        res.block.exact = false;
        std::string why = "depends on the block index: block 0 runs " + std::to_string(res.block.value) +
                          " times, the last block " + std::to_string(last_value);
        res.block.reason += (res.block.reason.empty() ? "" : "; ") + why;
        res.instance.exact = false;
        res.instance.reason += (res.instance.reason.empty() ? "" : "; ") + why;
      }
    } else if (res.block.exact) {
      res.block.exact = res.instance.exact = false;
      std::string why = "depends on the block index (value for block 0; the grid is unknown)";
      res.block.reason = res.instance.reason = why;
    }
  }
  if (mins.count < res.block.min) {
    res.block.min = mins.count;
    if (res.block.exact) {
      res.block.exact = false;
      res.block.reason = "depends on the block index: the fewest executions over every block is " + std::to_string(mins.count);
    }
  }
  res.facts = ev_.facts_used;
  return res;
}

void ExecutionCounts::compute_representative(uint32_t r) {
  ev_.ctx.block = Interval::point(0);
  ev_.ctx.sub = Interval::point(0);
  ev_.ctx.iv.assign(ir_.loops.size(), std::nullopt);
  ev_.touch_ctx();
  uint8_t taint = 0;
  trips_.bind_first_iterations(ir_.chain_of(ir_.record_path[r - ir_.first_record]), taint);
  OpQuantities::Sample smp = quantities_.sample(r);
  OpRecord &record = ir_.rec(r);
  DataTotals &data = record.mutable_totals();
  auto put = [&](Quantity &field, const Quantity &q, const char *name) {
    field = q;
    if (q.value && q.estimated()) record.estimated_fields.emplace_back(name);
  };
  put(data.elements, smp.elements, "elements");
  put(data.bytes, smp.bytes, "bytes");
  put(data.flop, smp.flop, "flop");
  put(data.repeats, smp.repeats, "repeats");
  put(data.masked_lanes, smp.masked, "masked_lanes");
  put(data.packet_bytes, smp.packet_bytes, "packet_bytes");
  put(data.packets, smp.packets, "packets");
  if (record.cls == OpClass::Cube) {
    put(data.mte1_bytes, smp.mte1_bytes, "mte1_bytes");
    record.m = smp.m;
    record.k = smp.k;
    record.n = smp.n;
  }
  if (!smp.dtype.empty()) record.dtype = std::string(smp.dtype);
  if (smp.repeats.value) record.issued_instructions = static_cast<uint32_t>((*smp.repeats.value + 254) / 255);
  if ((smp.taint & (kTBlock | kTIV)) && data.elements.value)
    record.notes.push_back("per-execution values are for block 0 at the first iteration; per-block totals sum every enumerated execution");
}

void ExecutionCounts::compute_counts() {
  std::map<int32_t, RunResult> by_path;
  const auto end = static_cast<uint32_t>(ir_.prog.ops.size());
  for (uint32_t r = ir_.first_record; r < end; ++r) {
    OpDetail &d = ir_.detail(r);
    OpRecord &record = ir_.rec(r);
    int32_t path = ir_.record_path[r - ir_.first_record];
    RunResult own;
    const RunResult *res_ptr = &own;
    if (d.hivm) {
      compute_representative(r);
      own = run_counts(r, ir_.chain_of(path), true);
    } else {
      auto it = by_path.find(path);
      if (it == by_path.end()) it = by_path.emplace(path, run_counts(r, ir_.chain_of(path), false)).first;
      res_ptr = &it->second;
    }
    const RunResult &res = *res_ptr;
    if (record.sync && d.event != kNone) {
      // The values a dynamic event id takes over the enumerated executions.
      std::set<int64_t> seen;
      bool all_exact = true;
      ev_.ctx.block = Interval::point(0);
      ev_.ctx.sub = Interval::point(0);
      ev_.ctx.iv.assign(ir_.loops.size(), std::nullopt);
      ev_.touch_ctx();
      uint64_t leaves = 0;
      std::string reason;
      uint8_t taint = 0;
      trips_.enumerate(ir_.chain_of(path), 0, Mult{}, leaves,
                [&](const Mult &) {
                  Eval e = ev_.eval(d.event);
                  if (e.iv.exact()) seen.insert(e.iv.lo);
                  else all_exact = false;
                },
                reason, taint);
      if (all_exact && !seen.empty() && seen.size() <= 16) ir_.rec(r).sync->event_values.assign(seen.begin(), seen.end());
    }
    OpRecord &rr = ir_.rec(r);
    rr.count = res.block;
    rr.count_instance = res.instance;
    rr.count_grid = res.count_grid;
    rr.block_min.count = res.block.min;
    rr.facts |= res.facts;
    if (d.hivm) {
      rr.block_min.bytes = res.mins.bytes;
      rr.block_min.flop = res.mins.flop;
      rr.block_min.repeats = res.mins.repeats;
      rr.block_min.issued = res.mins.issued;
      rr.block_min.mte1 = res.mins.mte1;
      rr.block_min.packets = res.mins.packets;
      rr.block_min.masked = res.mins.masked;
      DataTotals &t = rr.mutable_totals();
      t.bytes_block = res.bytes;
      t.elements_block = res.elements;
      t.flop_block = res.flop;
      t.repeats_block = res.repeats;
      t.masked_block = res.masked;
      t.packets_block = res.packets;
      t.mte1_block = res.mte1;
      t.mte1_instance = res.mte1_i;
      t.mte1_grid = res.mte1_grid;
      t.bytes_instance = res.bytes_i;
      t.flop_instance = res.flop_i;
      t.repeats_instance = res.repeats_i;
      rr.issued_block = res.issued;
      rr.issued_instance = res.issued_i;
      t.bytes_grid = res.bytes_grid;
      t.flop_grid = res.flop_grid;
      t.repeats_grid = res.repeats_grid;
      rr.issued_grid = res.issued_grid;
    }
    (void)record;
  }
}

}  // namespace pb::hivm::analysis
