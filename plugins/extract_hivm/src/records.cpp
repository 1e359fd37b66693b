//===- records.cpp - finishing a function's records, loops and view -------===//
#include "records.hpp"

#include <cmath>

#include "eligibility.hpp"

namespace pb::hivm::analysis {

Quantity times(const Count &c, int64_t per_exec) {
  Quantity q;
  if (!c.known) {
    q.reason = "execution count unknown: " + c.reason;
    return q;
  }
  q.value = sat_mul(c.value, per_exec);
  if (!c.exact) {
    q.set_estimated(true);
    q.reason = c.reason;
  }
  return q;
}

namespace {

Quantity add_q(const Quantity &a, const Quantity &b) {
  Quantity q;
  if (!a.value || !b.value) {
    q.reason = !a.value ? a.reason : b.reason;
    return q;
  }
  q.value = sat_add(*a.value, *b.value);
  q.set_estimated(a.estimated() || b.estimated());
  q.reason = a.estimated() ? a.reason : b.reason;
  return q;
}

Quantity times_q(const Quantity &q, int64_t k) {
  Quantity out = q;
  if (q.value) {
    int64_t v = 0;
    if (__builtin_mul_overflow(*q.value, k, &v)) v = kInf;
    out.value = v;
  }
  return out;
}

}  // namespace

void RecordAssembler::finish_records() {
  const auto end = static_cast<uint32_t>(ir_.prog.ops.size());
  // Loop records first: iterations are needed for loop-control instructions.
  std::vector<Count> iterations(ir_.loops.size());
  std::vector<Quantity> iterations_grid(ir_.loops.size());
  for (size_t L = 0; L < ir_.loops.size(); ++L) {
    const LoopInfo &loop = ir_.loops[L];
    ExecutionCounts::RunResult it = counts_.run_counts(loop.record, ir_.chain_of(loop.body_path), false);
    iterations[L] = it.block;
    iterations_grid[L] = it.count_grid;
    ir_.rec(loop.record).facts |= it.facts;
    LoopRecord lr;
    lr.function = ir_.fn_index;
    lr.line = loop.line;
    lr.depth = loop.depth;
    lr.entries = ir_.rec(loop.record).count;
    lr.iterations = it.block;
    lr.attributes = loop.attributes;
    lr.element_loop = loop.has_scalar_memory && !loop.has_hivm;
    trips_.trip_per_entry(static_cast<uint32_t>(L), lr);
    ir_.prog.loops.push_back(std::move(lr));
  }
  // Ops inside a loop whose trip count nothing here can give: the outermost such loop.
  const size_t loop_base = ir_.prog.loops.size() - ir_.loops.size();
  for (uint32_t r = ir_.first_record; r < end; ++r) {
    uint32_t unknown = 0;
    for (int32_t p = ir_.record_path[r - ir_.first_record]; p >= 0; p = ir_.paths[static_cast<size_t>(p)].parent) {
      const PathNode &node = ir_.paths[static_cast<size_t>(p)];
      if (node.kind == PathNode::Kind::Loop && ir_.prog.loops[loop_base + node.loop].unknown_trip) unknown = node.line;
    }
    ir_.rec(r).count.unknown_loop = unknown;
  }
  for (uint32_t r = ir_.first_record; r < end; ++r) {
    OpRecord &record = ir_.rec(r);
    OpDetail &d = ir_.detail(r);
    if (record.cls == OpClass::Loop) {
      size_t L = 0;
      for (; L < ir_.loops.size(); ++L)
        if (ir_.loops[L].record == r) break;
      if (L < ir_.loops.size()) {
        record.scalar_block = add_q(times(record.count, 1), times(iterations[L], 2));
        record.issued_block = record.scalar_block;
        record.scalar_instance = add_q(times(record.count_instance, 1), times(iterations[L], 2));
        record.issued_instance = record.scalar_instance;
        if (ir_.prog.blocks) {
          record.scalar_grid = add_q(record.count_grid, times_q(iterations_grid[L], 2));
          record.issued_grid = record.scalar_grid;
        }
        record.block_min.scalar = record.block_min.issued =
            sat_add(record.count.min, sat_mul(iterations[L].min, 2));
      }
    } else {
      record.scalar_block = times(record.count, record.scalar_instructions);
      record.scalar_instance = times(record.count_instance, record.scalar_instructions);
      if (!d.hivm) {
        record.issued_block = times(record.count, record.issued_instructions);
        record.issued_instance = times(record.count_instance, record.issued_instructions);
      }
      if (ir_.prog.blocks) {
        record.scalar_grid = times_q(record.count_grid, record.scalar_instructions);
        if (!d.hivm) record.issued_grid = times_q(record.count_grid, record.issued_instructions);
      }
      record.block_min.scalar = sat_mul(record.count.min, record.scalar_instructions);
      if (!d.hivm) record.block_min.issued = sat_mul(record.count.min, record.issued_instructions);
    }
    if (record.cls == OpClass::ScalarMemory) {
      record.block_min.bytes = sat_mul(record.count.min, record.totals().bytes.value.value_or(0));
      record.mutable_totals().bytes_block = times(record.count, record.totals().bytes.value.value_or(0));
      record.mutable_totals().elements_block = times(record.count, 1);
      if (ir_.prog.blocks) record.mutable_totals().bytes_grid = times_q(record.count_grid, record.totals().bytes.value.value_or(0));
    }
    judge_eligibility(ir_, r);
    // Estimates and unresolved quantities.
    for (const std::string &field : record.estimated_fields) {
      EstimateNote n;
      n.op = r;
      n.line = record.line;
      n.field = field;
      const Quantity *q = field == "bytes"          ? &record.totals().bytes
                          : field == "elements"     ? &record.totals().elements
                          : field == "flop"         ? &record.totals().flop
                          : field == "repeats"      ? &record.totals().repeats
                          : field == "masked_lanes" ? &record.totals().masked_lanes
                          : field == "packet_bytes" ? &record.totals().packet_bytes
                          : field == "mte1_bytes"   ? &record.totals().mte1_bytes
                                                    : &record.totals().packets;
      n.value = q->value ? std::to_string(*q->value) : "null";
      n.reason = q->reason;
      ir_.prog.estimates.push_back(std::move(n));
    }
    if (!record.count.exact && record.count.known) {
      ir_.prog.estimates.push_back({r, record.line, "count", std::to_string(record.count.value) + " (min " +
                                                              std::to_string(record.count.min) + ", max " +
                                                              fmt_count(record.count.max) + ")",
                                 record.count.reason});
    }
    if (!record.count.known) ir_.prog.unresolved.push_back({r, record.line, "count", "null", record.count.reason});
    if (d.hivm && record.modelled) {
      auto unresolved = [&](const Quantity &q, const char *name) {
        if (!q.value && !q.reason.empty()) ir_.prog.unresolved.push_back({r, record.line, name, "null", q.reason});
      };
      if (record.cls == OpClass::Dma) {
        unresolved(record.totals().bytes, "bytes");
        unresolved(record.totals().packet_bytes, "packet_bytes");
      } else if (record.cls == OpClass::Cube) {
        unresolved(record.totals().flop, "flop");
      } else {
        unresolved(record.totals().repeats, "repeats");
      }
    }
  }
}

void RecordAssembler::finish_function(FunctionView &view) {
  FunctionRecord &fr = ir_.prog.functions[ir_.fn_index];
  const auto end = static_cast<uint32_t>(ir_.prog.ops.size());
  if (end > ir_.first_record) {
    fr.first_op = ir_.first_record;
    fr.last_op = end - 1;
  }
  if (ir_.logical_block_num != kNone) {
    // Evaluated for block 0, sub-block 0, outside every loop (as the representative execution).
    ev_.ctx.block = Interval::point(0);
    ev_.ctx.sub = Interval::point(0);
    ev_.ctx.iv.assign(ir_.loops.size(), std::nullopt);
    ev_.touch_ctx();
    Eval e = ev_.eval(ir_.logical_block_num);
    if (e.iv.exact()) {
      fr.block_num = Count::exactly(e.iv.lo);
    } else {
      fr.block_num.known = false;
      fr.block_num.exact = false;
      fr.block_num.reason = "the product of grid arguments; give launch.grid";
    }
  } else {
    fr.block_num.known = false;
    fr.block_num.exact = false;
    fr.block_num.reason = "no {logical_block_num} annotation in this function";
  }
  // Instructions per iteration of each loop (nested loops included).
  size_t loop_base = ir_.prog.loops.size() - ir_.loops.size();
  for (size_t L = 0; L < ir_.loops.size(); ++L) {
    LoopRecord &lr = ir_.prog.loops[loop_base + L];
    const LoopInfo &loop = ir_.loops[L];
    uint32_t body_begin = 0, body_end = 0;
    for (const FunctionView::LoopSpan &span : ir_.loop_spans)
      if (span.op == loop.record) {
        body_begin = span.body_begin;
        body_end = span.body_end;
      }
    lr.iv = std::to_string(loop.line);
    if (lr.iterations.value > 0) {
      long double scalar = 0, issued = 0;
      // The loop's own control (1 per entry + 2 per iteration) counts towards its iterations.
      for (uint32_t r = loop.record; r < body_end; ++r) {
        if (r < body_begin && r != loop.record) continue;
        const OpRecord &op = ir_.prog.ops[r];
        if (op.scalar_block.value) scalar += static_cast<long double>(*op.scalar_block.value);
        if (op.issued_block.value) issued += static_cast<long double>(*op.issued_block.value);
      }
      // Saturated sums (counts past 2^63 - 1) stay saturated: never rounded past the range.
      auto per_iteration = [&](long double total) {
        const long double v = total / lr.iterations.value;
        return v >= static_cast<long double>(kSaturated) ? static_cast<uint64_t>(kSaturated) : static_cast<uint64_t>(std::llround(v));
      };
      lr.body_scalar_instructions = per_iteration(scalar);
      lr.body_issued_instructions = per_iteration(issued);
    }
  }
  view.function = ir_.fn_index;
  view.first_op = ir_.first_record;
  view.end_op = end;
  view.loops = ir_.loop_spans;
  view.innermost_loop.assign(end - ir_.first_record, -1);
  std::vector<int32_t> span_of_loop(ir_.loops.size(), -1);
  for (size_t L = 0; L < ir_.loops.size(); ++L)
    for (size_t sp = 0; sp < ir_.loop_spans.size(); ++sp)
      if (ir_.loop_spans[sp].op == ir_.loops[L].record) span_of_loop[L] = static_cast<int32_t>(sp);
  for (uint32_t r = ir_.first_record; r < end; ++r) {
    int32_t L = ir_.loop_of_record[r - ir_.first_record];
    view.innermost_loop[r - ir_.first_record] = L >= 0 ? span_of_loop[static_cast<size_t>(L)] : -1;
  }
}

}  // namespace pb::hivm::analysis
