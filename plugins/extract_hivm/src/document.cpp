//===- document.cpp - Program -> perfbound.hivm_program/1 JSON -------------===//
#include "document.hpp"

#include "facts.hpp"
#include "json_writer.hpp"

#include <cmath>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace pb::hivm {

using json = nlohmann::json;

namespace {

Quantity times_count(const Count &c, int64_t per_exec) {
  Quantity q;
  if (!c.known) return q;
  q.value = sat_mul(c.value, per_exec);
  q.set_estimated(!c.exact);
  return q;
}

constexpr int64_t kInf = Interval::kPosInf;

void write_count(JsonWriter &w, const Count &c) {
  // A count that saturated (kInf) is unknown, never the number 2^63 - 1.
  const bool saturated = c.known && c.value >= kInf;
  w.begin_object();
  if (c.known && !saturated) w.field("value", c.value);
  else w.null_field("value");
  w.field("min", c.min);
  if (c.max == kInf) w.null_field("max");
  else w.field("max", c.max);
  w.field("exact", c.known && c.exact && !saturated);
  if (saturated) w.field("reason", c.reason.empty() ? std::string(kTooLargeReason) : std::string(kTooLargeReason) + "; " + c.reason.str());
  else if ((!c.known || !c.exact) && !c.reason.empty()) w.field("reason", c.reason);
  if (c.block_dependent) {
    w.field("block_dependent", true);
    if (c.last_block) w.field("last_block", *c.last_block);
  }
  if (c.unknown_loop != 0) {
    w.field("unknown_loop", c.unknown_loop);
    w.field("hint", "give trips.\"" + std::to_string(c.unknown_loop) + "\"");
  }
  w.end_object();
}

bool saturated(const Quantity &q) { return q.value && *q.value >= kInf; }

void write_q(JsonWriter &w, const Quantity &q) {
  if (q.value && !saturated(q)) w.value(*q.value);
  else w.null();
}

const char *kind_name(BufferRef::Kind k) {
  switch (k) {
    case BufferRef::Kind::Address: return "address";
    case BufferRef::Kind::Arg: return "arg";
    case BufferRef::Kind::Workspace: return "workspace";
    case BufferRef::Kind::Alloc: return "alloc";
    case BufferRef::Kind::Unknown: break;
  }
  return "unknown";
}

void write_space(JsonWriter &w, Space s) {
  if (space_name(s) != nullptr) w.value(space_name(s));
  else w.null();
}

void write_buffer(JsonWriter &w, const BufferRef &b) {
  w.begin_object();
  w.field("kind", kind_name(b.kind));
  w.key("space");
  write_space(w, b.space);
  if (b.kind == BufferRef::Kind::Address || b.kind == BufferRef::Kind::Workspace) {
    w.key("offsets").begin_array();
    if (b.base0 >= 0) w.value(b.base0);
    if (b.base1 >= 0) w.value(b.base1);
    w.end_array();
  }
  if (b.kind == BufferRef::Kind::Arg || b.kind == BufferRef::Kind::Alloc) w.field("id", b.id);
  if (b.bytes >= 0) w.field("bytes", b.bytes);
  else w.null_field("bytes");
  w.end_object();
}


/// Members of a per-op quantity object, with their reasons collected.
class QuantityObject {
 public:
  QuantityObject(JsonWriter &w, std::vector<std::pair<const char *, std::string>> &reasons, bool estimated_only)
      : w_(w), reasons_(reasons), estimated_only_(estimated_only) {
    w_.begin_object();
  }
  void put(const char *name, const Quantity &q) {
    if (!q.value && q.reason.empty()) return;  // not applicable
    w_.key(name);
    write_q(w_, q);
    if (saturated(q))
      reasons_.emplace_back(name, kTooLargeReason);
    else if (!q.value || q.estimated())
      reasons_.emplace_back(name, q.reason.empty() ? "estimated" : q.reason);
  }
  void close() { w_.end_object(); }

 private:
  JsonWriter &w_;
  std::vector<std::pair<const char *, std::string>> &reasons_;
  bool estimated_only_;
};

void write_reasons(JsonWriter &w, const char *key, const std::vector<std::pair<const char *, std::string>> &reasons) {
  if (reasons.empty()) return;
  w.key(key).begin_object();
  for (const auto &[name, reason] : reasons) w.field(name, reason);
  w.end_object();
}

/// Ops that move bytes (DMA, scalar memory access, UB copies).
bool is_dma_like(const OpRecord &r) {
  return r.cls == OpClass::Dma || r.cls == OpClass::ScalarMemory || r.name == "hivm.hir.copy";
}

/// Which members of `block` an op has (the same ones get a `block_min`).
struct BlockKeys {
  bool bytes, flop, repeats, scalar, issued, mte1;
};
BlockKeys block_keys(const OpRecord &r) {
  auto has = [](const Quantity &q) { return q.value.has_value() || !q.reason.empty(); };
  return {is_dma_like(r) && has(r.totals().bytes_block), has(r.totals().flop_block), is_vector_class(r.cls) && has(r.totals().repeats_block),
          has(r.scalar_block), has(r.issued_block), r.cls == OpClass::Cube && has(r.totals().mte1_block)};
}

void write_block_min(JsonWriter &w, const OpRecord &r) {
  const BlockKeys keys = block_keys(r);
  const BlockMin &m = r.block_min;
  w.key("block_min").begin_object();
  if (m.count) w.field("count", *m.count);
  if (keys.bytes && m.bytes) w.field("bytes", *m.bytes);
  if (keys.flop && m.flop) w.field("flop", *m.flop);
  if (keys.repeats && m.repeats) w.field("repeats", *m.repeats);
  if (keys.scalar && m.scalar) w.field("scalar_instructions", *m.scalar);
  if (keys.issued && m.issued) w.field("issued_instructions", *m.issued);
  if (keys.mte1 && m.mte1) w.field("mte1_bytes", *m.mte1);
  w.end_object();
}

void write_block(JsonWriter &w, const OpRecord &r, std::vector<std::pair<const char *, std::string>> &reasons) {
  const bool dma_like = is_dma_like(r);
  const bool vec = is_vector_class(r.cls);
  w.key("block");
  QuantityObject block(w, reasons, true);
  if (dma_like) block.put("bytes", r.totals().bytes_block);
  block.put("elements", r.totals().elements_block);
  block.put("flop", r.totals().flop_block);
  if (vec) {
    block.put("repeats", r.totals().repeats_block);
    block.put("masked_lanes", r.totals().masked_block);
  }
  if (r.cls == OpClass::Dma) block.put("packets", r.totals().packets_block);
  if (r.cls == OpClass::Cube) block.put("mte1_bytes", r.totals().mte1_block);
  block.put("scalar_instructions", r.scalar_block);
  block.put("issued_instructions", r.issued_block);
  block.close();
}

/// The whole-grid sums and, always beside them, `grid_reasons`: which of
/// them are estimates or unknown (block 0 x the block count when the op
/// could not be summed over every block), so that a reader can tell an
/// exact sum from an estimate.
void write_grid(JsonWriter &w, const OpRecord &r) {
  std::vector<std::pair<const char *, std::string>> reasons;
  w.key("grid");
  QuantityObject grid(w, reasons, true);
  grid.put("count", r.count_grid);
  if (is_dma_like(r)) grid.put("bytes", r.totals().bytes_grid);
  grid.put("flop", r.totals().flop_grid);
  if (is_vector_class(r.cls)) grid.put("repeats", r.totals().repeats_grid);
  if (r.cls == OpClass::Cube) grid.put("mte1_bytes", r.totals().mte1_grid);
  grid.put("scalar_instructions", r.scalar_grid);
  grid.put("issued_instructions", r.issued_grid);
  grid.close();
  w.key("grid_reasons").begin_object();
  for (const auto &[name, reason] : reasons) w.field(name, reason);
  w.end_object();
}

bool same_q(const Quantity &a, const Quantity &b) { return a.value == b.value && a.estimated() == b.estimated(); }
bool same_count(const Count &a, const Count &b) {
  return a.known == b.known && a.exact == b.exact && a.value == b.value && a.min == b.min && a.max == b.max;
}

/// Whether the user's facts changed any number of the record (count, block_min, block, grid).
bool changed_by_facts(const OpRecord &s, const OpRecord &g) {
  return !same_count(s.count, g.count) || !(s.block_min == g.block_min) || !same_q(s.totals().bytes_block, g.totals().bytes_block) ||
         !same_q(s.totals().elements_block, g.totals().elements_block) || !same_q(s.totals().flop_block, g.totals().flop_block) ||
         !same_q(s.totals().repeats_block, g.totals().repeats_block) || !same_q(s.totals().masked_block, g.totals().masked_block) ||
         !same_q(s.totals().packets_block, g.totals().packets_block) || !same_q(s.scalar_block, g.scalar_block) ||
         !same_q(s.totals().mte1_block, g.totals().mte1_block) || !same_q(s.totals().mte1_grid, g.totals().mte1_grid) ||
         !same_q(s.issued_block, g.issued_block) || !same_q(s.count_grid, g.count_grid) ||
         !same_q(s.totals().bytes_grid, g.totals().bytes_grid) || !same_q(s.totals().flop_grid, g.totals().flop_grid) ||
         !same_q(s.totals().repeats_grid, g.totals().repeats_grid) || !same_q(s.scalar_grid, g.scalar_grid) ||
         !same_q(s.issued_grid, g.issued_grid);
}

/// `given`: the record's numbers under the user's facts, with the facts that entered them.
/// Counts `ops` per fact. A loop the facts count is no longer named as unknown.
void write_given(JsonWriter &w, const OpRecord &g, const GivenFacts &facts, bool with_grid, std::vector<int64_t> &ops) {
  w.key("given").begin_object();
  w.key("facts").begin_array();
  bool any = false;
  for (size_t f = 0; f < facts.facts.size(); ++f)
    if ((g.facts >> f) & 1U) {
      w.value(facts.facts[f].key);
      ++ops[f];
      any = true;
    }
  if (!any)
    for (size_t f = 0; f < facts.facts.size(); ++f) {
      w.value(facts.facts[f].key);
      ++ops[f];
    }
  w.end_array();
  Count count = g.count;
  if (count.min > 0) count.unknown_loop = 0;
  w.key("count");
  write_count(w, count);
  write_block_min(w, g);
  // Which per-block figures under the facts are estimates: a fact can make a count exact and
  // leave a size inside it an upper bound, which must not read as an exact sum.
  std::vector<std::pair<const char *, std::string>> reasons;
  write_block(w, g, reasons);
  if (with_grid) write_grid(w, g);
  write_reasons(w, "total_reasons", reasons);
  w.end_object();
}

void write_op(JsonWriter &w, const OpRecord &r, bool with_grid, const OpRecord *given, const GivenFacts *facts,
              std::vector<int64_t> &fact_ops) {
  w.begin_object();
  w.field("id", r.id).field("function", r.function).field("op", r.name).field("line", r.line);
  if (r.loc.empty()) w.null_field("loc");
  else w.field("loc", r.loc.str());
  w.field("class", op_class_name(r.cls)).field("modelled", r.modelled);
  w.key("pipes").begin_array();
  for (Pipe p : r.pipes) w.value(pipe_name(p));
  w.end_array();
  if (!r.unresolved_pipe.empty()) w.field("pipe_reason", r.unresolved_pipe.str());
  w.field("core", core_name(r.core)).field("loop_depth", r.loop_depth);
  w.key("count");
  write_count(w, r.count);
  w.key("count_instance");
  write_count(w, r.count_instance);
  w.key("instructions").begin_object().field("scalar", r.scalar_instructions).field("issued", r.issued_instructions).end_object();
  if (!r.scalar_kind.empty()) w.field("scalar_kind", r.scalar_kind);

  const bool dma_like = is_dma_like(r);
  const bool vec = is_vector_class(r.cls);
  const bool has_exec = r.totals().elements.value || !r.totals().elements.reason.empty() || r.totals().flop.value || !r.totals().flop.reason.empty() ||
                        !r.dtype.empty() || r.src != Space::Unknown || r.dst != Space::Unknown || r.cls == OpClass::Cube;
  std::vector<std::pair<const char *, std::string>> exec_reasons, total_reasons;
  if (has_exec) {
    w.key("exec");
    QuantityObject exec(w, exec_reasons, true);
    exec.put("elements", r.totals().elements);
    if (dma_like) exec.put("bytes", r.totals().bytes);
    exec.put("flop", r.totals().flop);
    if (vec) {
      exec.put("repeats", r.totals().repeats);
      exec.put("masked_lanes", r.totals().masked_lanes);
    }
    if (r.cls == OpClass::Dma) {
      exec.put("packet_bytes", r.totals().packet_bytes);
      exec.put("packets", r.totals().packets);
    }
    if (!r.dtype.empty()) w.field("dtype", r.dtype);
    if (r.src != Space::Unknown) {
      w.key("src");
      write_space(w, r.src);
    }
    if (r.dst != Space::Unknown) {
      w.key("dst");
      write_space(w, r.dst);
    }
    if (!r.path_name.empty()) w.field("path", r.path_name);
    if (r.cls == OpClass::Cube) {
      w.field("m", r.m.optional()).field("k", r.k.optional()).field("n", r.n.optional());
      const Quantity &mte1 = r.totals().mte1_bytes;
      if (mte1.value || !mte1.reason.empty()) exec.put("mte1_bytes", mte1);
      else w.null_field("mte1_bytes");
    }
    exec.close();
  }
  write_block(w, r, total_reasons);
  write_block_min(w, r);
  std::vector<std::pair<const char *, std::string>> ignored;
  w.key("instance");
  QuantityObject inst(w, ignored, true);
  if (dma_like) inst.put("bytes", r.totals().bytes_instance);
  inst.put("flop", r.totals().flop_instance);
  if (vec) inst.put("repeats", r.totals().repeats_instance);
  if (r.cls == OpClass::Cube) inst.put("mte1_bytes", r.totals().mte1_instance);
  inst.put("scalar_instructions", r.scalar_instance);
  inst.put("issued_instructions", r.issued_instance);
  inst.close();
  if (with_grid) write_grid(w, r);
  write_reasons(w, "exec_reasons", exec_reasons);
  write_reasons(w, "total_reasons", total_reasons);
  if (!r.estimated_fields.empty()) w.array("estimated", r.estimated_fields);
  w.key("eligibility").begin_object();
  w.array("units", r.eligibility.units);
  w.field("landed", r.eligibility.landed).field("fallback", r.eligibility.fallback);
  if (r.eligibility.fallback) w.field("cause", r.eligibility.cause.str());
  w.end_object();
  if (r.sync) {
    const SyncInfo &s = *r.sync;
    w.key("sync").begin_object();
    if (s.from == Pipe::None) w.null_field("from");
    else w.field("from", pipe_name(s.from));
    if (s.to == Pipe::None) w.null_field("to");
    else w.field("to", pipe_name(s.to));
    w.field("event", s.event);
    if (!s.event_value.empty()) {
      w.field("event_operand", s.event_value);
      w.array("event_values", s.event_values);
    }
    if (!s.tcore.empty()) w.field("tcore", s.tcore);
    if (!s.mode.empty()) w.field("mode", s.mode);
    w.end_object();
  }
  if (!r.reads.empty() || !r.writes.empty()) {
    w.key("reads").begin_array();
    for (const BufferRef &b : r.reads) write_buffer(w, b);
    w.end_array();
    w.key("writes").begin_array();
    for (const BufferRef &b : r.writes) write_buffer(w, b);
    w.end_array();
  }
  if (r.opaque) {
    w.key("opaque").begin_object().field("reason", r.opaque->reason).field("shaped_operands", r.opaque->shaped);
    if (r.opaque->bytes) w.field("operand_bytes", *r.opaque->bytes);
    else w.null_field("operand_bytes");
    w.end_object();
  }
  if (!r.notes.empty()) w.array("notes", r.notes);
  if (given != nullptr && facts != nullptr && changed_by_facts(r, *given)) write_given(w, *given, *facts, with_grid, fact_ops);
  w.end_object();
}

/// Sums per core type. `mode` picks which per-op numbers are added.
enum class Mode { Block, BlockMin, Instance, Grid };

struct Sum {
  int64_t value = 0;
  bool known = true;
  bool estimated = false;
  void add(const Quantity &q) {
    if (!known) return;
    if (!q.value) {
      known = false;
      return;
    }
    if (__builtin_add_overflow(value, *q.value, &value)) value = kInf;
    estimated = estimated || q.estimated();
  }
  void add(int64_t v) {
    if (known && __builtin_add_overflow(value, v, &value)) value = kInf;
  }
  void write(JsonWriter &w) const {
    if (known && value < kInf) w.value(value);  // saturated: unknown (kTooLargeReason)
    else w.null();
  }
};

struct CoreTotals {
  std::set<uint32_t> functions;
  uint32_t instances = 1;
  int64_t static_ops = 0;
  std::map<std::string, Sum> executions_by_pipe;
  // MTE: by (pipe, path, packet)
  struct Mte {
    Sum bytes, transfers, packets;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Mte> mte;
  std::map<std::string, Sum> bytes_by_pipe;
  // Vector
  Sum v_repeats, v_flop, v_masked, v_elements, v_exec;
  struct VClass {
    Sum exec, repeats, flop, masked;
  };
  std::map<std::string, VClass> v_by_class;
  // Cube
  Sum c_flop, c_mte1, c_exec;
  struct CubeShape {
    Sum exec, flop;
  };
  std::map<std::string, Sum> c_flop_by_dtype;
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>, CubeShape> c_shapes;
  // Scalar and issue
  Sum scalar, issued, gm_scalar_bytes, fallback_scalar;
  std::map<std::string, Sum> scalar_by_kind;
  std::map<std::string, Sum> sync_ops;
  bool estimated = false;
  std::set<std::string> unknown;
};

/// The quantity a totals scope adds for one op. Per block (minimum): the op's own block
/// minimum (block_min), which holds in every block of the grid; for a record without one
/// (the DES import), its per-block sum where that is exact in every block; else 0.
Quantity pick(const OpRecord &r, Mode mode, OptInt64 fewest, const Quantity &block, const Quantity &instance,
              const Quantity &grid) {
  switch (mode) {
    case Mode::Block: return block;
    case Mode::Instance: return instance;
    case Mode::Grid: return grid;
    case Mode::BlockMin: {
      if (fewest) return Quantity::exact(*fewest);
      if (r.count.known && r.count.exact && !r.count.block_dependent && block.value && !block.estimated()) return block;
      return Quantity::exact(0);
    }
  }
  return block;
}

Quantity count_q(const Count &c) {
  Quantity q;
  if (!c.known) return q;
  q.value = c.value;
  q.set_estimated(!c.exact);
  return q;
}

void write_totals(JsonWriter &w, const Program &prog, Mode mode) {
  std::map<std::string, CoreTotals> cores;
  for (const FunctionRecord &f : prog.functions) {
    CoreTotals &t = cores[core_name(f.core)];
    t.functions.insert(f.index);
    t.instances = std::max(t.instances, f.instances_per_block);
  }
  for (const OpRecord &r : prog.ops) {
    CoreTotals &t = cores[core_name(r.core)];
    ++t.static_ops;
    Quantity cnt = mode == Mode::Block    ? count_q(r.count)
                   : mode == Mode::Instance ? count_q(r.count_instance)
                   : mode == Mode::Grid     ? r.count_grid
                                            : Quantity::exact(r.count.known ? r.count.min : 0);
    for (Pipe p : r.pipes) t.executions_by_pipe[pipe_name(p)].add(cnt);
    Quantity scalar = pick(r, mode, r.block_min.scalar, r.scalar_block, r.scalar_instance, r.scalar_grid);
    Quantity issued = pick(r, mode, r.block_min.issued, r.issued_block, r.issued_instance, r.issued_grid);
    if (mode == Mode::BlockMin && r.cls == OpClass::Loop) scalar = issued = Quantity::exact(0);
    if (r.scalar_instructions > 0 || r.cls == OpClass::Loop) {
      t.scalar.add(scalar);
      t.scalar_by_kind[r.scalar_kind.empty() ? "other" : std::string(r.scalar_kind)].add(scalar);
      if (r.eligibility.fallback) t.fallback_scalar.add(scalar);
    }
    t.issued.add(issued);
    if (scalar.estimated() || issued.estimated()) t.estimated = true;
    if (r.cls == OpClass::ScalarMemory && r.scalar_gm_bytes > 0) {
      Quantity b = pick(r, mode, r.block_min.bytes, r.totals().bytes_block, times_count(r.count_instance, r.scalar_gm_bytes), r.totals().bytes_grid);
      t.gm_scalar_bytes.add(b);
    }
    switch (r.cls) {
      case OpClass::SetFlag:
      case OpClass::WaitFlag:
      case OpClass::PipeBarrier:
      case OpClass::SyncBlockSet:
      case OpClass::SyncBlockWait:
      case OpClass::SyncBlock: t.sync_ops[op_class_name(r.cls)].add(cnt); break;
      default: break;
    }
    if (!r.modelled) continue;
    if (r.cls == OpClass::Dma) {
      Quantity bytes = pick(r, mode, r.block_min.bytes, r.totals().bytes_block, r.totals().bytes_instance, r.totals().bytes_grid);
      Quantity packets = pick(r, mode, r.block_min.packets, r.totals().packets_block, Quantity{}, Quantity{});
      std::string pipe = r.pipes.empty() ? "none" : pipe_name(r.pipes.front());
      std::string packet = r.totals().packet_bytes.value ? std::to_string(*r.totals().packet_bytes.value) : "unknown";
      auto &m = t.mte[{pipe, r.path_name.empty() ? "unknown" : std::string(r.path_name), packet}];
      m.bytes.add(bytes);
      m.transfers.add(cnt);
      if (mode == Mode::Block || mode == Mode::BlockMin) m.packets.add(packets);
      t.bytes_by_pipe[pipe].add(bytes);
      if (bytes.estimated()) t.estimated = true;
      if (!bytes.value) t.unknown.insert("mte bytes (" + r.name + " line " + std::to_string(r.line) + ")");
    } else if (is_vector_class(r.cls)) {
      Quantity rep = pick(r, mode, r.block_min.repeats, r.totals().repeats_block, r.totals().repeats_instance, r.totals().repeats_grid);
      Quantity flop = pick(r, mode, r.block_min.flop, r.totals().flop_block, r.totals().flop_instance, r.totals().flop_grid);
      Quantity masked = pick(r, mode, r.block_min.masked, r.totals().masked_block, Quantity{}, Quantity{});
      t.v_repeats.add(rep);
      t.v_flop.add(flop);
      t.v_exec.add(cnt);
      if (mode == Mode::Block || mode == Mode::BlockMin) t.v_masked.add(masked);
      auto &vc = t.v_by_class[op_class_name(r.cls)];
      vc.exec.add(cnt);
      vc.repeats.add(rep);
      vc.flop.add(flop);
      if (mode == Mode::Block || mode == Mode::BlockMin) vc.masked.add(masked);
      if (rep.estimated() || flop.estimated()) t.estimated = true;
      if (r.name == "hivm.hir.copy") {
        Quantity bytes = pick(r, mode, r.block_min.bytes, r.totals().bytes_block, r.totals().bytes_instance, r.totals().bytes_grid);
        t.bytes_by_pipe["V"].add(bytes);
      }
    } else if (r.cls == OpClass::Cube) {
      Quantity flop = pick(r, mode, r.block_min.flop, r.totals().flop_block, r.totals().flop_instance, r.totals().flop_grid);
      t.c_flop.add(flop);
      t.c_exec.add(cnt);
      t.c_flop_by_dtype[r.dtype.empty() ? "unknown" : r.dtype].add(flop);
      t.c_mte1.add(pick(r, mode, r.block_min.mte1, r.totals().mte1_block, r.totals().mte1_instance, r.totals().mte1_grid));
      auto &shape = t.c_shapes[{r.dtype, r.m.value_or(-1), r.k.value_or(-1), r.n.value_or(-1)}];
      shape.exec.add(cnt);
      shape.flop.add(flop);
      if (flop.estimated()) t.estimated = true;
    }
  }
  const bool with_masked = mode == Mode::Block || mode == Mode::BlockMin;
  w.begin_object();
  for (auto &[core, t] : cores) {
    w.key(core).begin_object();
    w.key("functions").begin_array();
    for (uint32_t f : t.functions) w.value(f);
    w.end_array();
    w.field("instances_per_block", t.instances).field("static_ops", t.static_ops);
    w.key("pipes").begin_object();
    for (auto &[p, s] : t.executions_by_pipe) {
      w.key(p).begin_object();
      w.key("executions");
      s.write(w);
      if (auto it = t.bytes_by_pipe.find(p); it != t.bytes_by_pipe.end()) {
        w.key("bytes");
        it->second.write(w);
      }
      w.end_object();
    }
    w.end_object();
    w.key("mte").begin_array();
    for (auto &[key, m] : t.mte) {
      auto &[pipe, path, packet] = key;
      w.begin_object().field("pipe", pipe).field("path", path);
      if (packet == "unknown") w.null_field("packet_bytes");
      else w.field("packet_bytes", static_cast<int64_t>(std::stoll(packet)));
      w.key("bytes");
      m.bytes.write(w);
      w.key("transfers");
      m.transfers.write(w);
      if (with_masked) {
        w.key("packets");
        m.packets.write(w);
      }
      w.end_object();
    }
    w.end_array();
    // Executions, repeats, FLOP (and masked lanes) of some vector work.
    auto vector_work = [&](const auto &exec, const auto &repeats, const auto &flop, const auto &masked) {
      w.key("executions");
      exec.write(w);
      w.key("repeats");
      repeats.write(w);
      w.key("flop");
      flop.write(w);
      if (with_masked) {
        w.key("masked_lanes");
        masked.write(w);
      }
    };
    w.key("vector").begin_object();
    vector_work(t.v_exec, t.v_repeats, t.v_flop, t.v_masked);
    w.key("by_class").begin_object();
    for (auto &[cls, vc] : t.v_by_class) {
      w.key(cls).begin_object();
      vector_work(vc.exec, vc.repeats, vc.flop, vc.masked);
      w.end_object();
    }
    w.end_object();
    w.end_object();
    w.key("cube").begin_object();
    w.key("executions");
    t.c_exec.write(w);
    w.key("flop");
    t.c_flop.write(w);
    w.key("mte1_bytes");
    t.c_mte1.write(w);
    w.key("by_dtype").begin_object();
    for (auto &[dt, s] : t.c_flop_by_dtype) {
      w.key(dt).begin_object().key("flop");
      s.write(w);
      w.end_object();
    }
    w.end_object();
    w.key("shapes").begin_array();
    for (auto &[key, sh] : t.c_shapes) {
      auto &[dt, m, k, n] = key;
      w.begin_object().field("dtype", dt);
      auto dim = [&](const char *name, int64_t v) {
        if (v >= 0) w.field(name, v);
        else w.null_field(name);
      };
      dim("m", m);
      dim("k", k);
      dim("n", n);
      w.key("executions");
      sh.exec.write(w);
      w.key("flop");
      sh.flop.write(w);
      w.end_object();
    }
    w.end_array();
    w.end_object();
    w.key("scalar").begin_object();
    w.key("instructions");
    t.scalar.write(w);
    w.key("by_kind").begin_object();
    for (auto &[k, s] : t.scalar_by_kind) {
      w.key(k);
      s.write(w);
    }
    w.end_object();
    w.key("gm_load_bytes");
    t.gm_scalar_bytes.write(w);
    w.key("fallback_instructions");
    t.fallback_scalar.write(w);
    w.end_object();
    w.key("issued_instructions");
    t.issued.write(w);
    w.key("sync").begin_object();
    for (auto &[k, s] : t.sync_ops) {
      w.key(k);
      s.write(w);
    }
    w.end_object();
    w.field("estimated", t.estimated);
    w.key("unknown").begin_array();
    for (const std::string &u : t.unknown) w.value(u);
    w.end_array();
    w.end_object();
  }
  w.end_object();
}

void write_note_list(JsonWriter &w, const char *key, const std::vector<EstimateNote> &notes) {
  w.key(key).begin_array();
  for (const EstimateNote &n : notes) {
    w.begin_object();
    w.field("op", n.op).field("line", n.line).field("field", n.field).field("value", n.value).field("reason", n.reason);
    w.end_object();
  }
  w.end_array();
}

void write_ids(JsonWriter &w, const char *key, const std::vector<uint32_t> &ids) {
  w.key(key).begin_array();
  for (uint32_t id : ids) w.value(id);
  w.end_array();
}

}  // namespace

std::string to_json_text(const Program &prog, const SourceInfo &source, const AnalysisOptions &options) {
#if defined(__GLIBC__)
  // The syntax tree of a large function was freed in small pieces between the
  // op records, where the allocator keeps it: hand those pages back before the
  // document (~9x the dump) is written, so the two do not add up.
  malloc_trim(0);
#endif
  JsonWriter w(prog.ops.size() * 900 + 65536);
  w.begin_object();
  w.field("schema", kProgramSchema);
  w.key("source").begin_object();
  w.field("origin", source.origin).field("bytes", static_cast<uint64_t>(source.bytes)).field("lines", prog.lines_total);
  w.array("ir_dump_headers", prog.dump_headers);
  w.field("compiler_output_lines", prog.skipped_lines);
  w.key("compiler_output").begin_array();
  for (const auto &[line, text] : prog.diagnostics) w.begin_object().field("line", line).field("text", text).end_object();
  w.end_array();
  w.end_object();
  w.key("profile").begin_object();
  w.field("vector_repeat_bytes", prog.vector_repeat_bytes).field("vector_repeat_source", prog.vector_repeat_source);
  w.field("vector_cores_per_cube_core", options.vector_cores_per_cube_core);
  w.end_object();
  w.key("launch").begin_object().field("given", options.have_launch);
  if (options.grid.empty()) w.null_field("grid");
  else w.array("grid", options.grid);
  w.end_object();
  w.key("blocks").begin_object();
  w.field("value", prog.blocks);
  if (prog.blocks) w.field("source", prog.blocks_source);
  else w.field("reason", prog.blocks_reason);
  w.end_object();

  w.key("functions").begin_array();
  for (const FunctionRecord &f : prog.functions) {
    w.begin_object();
    w.field("index", f.index).field("name", f.name).field("core", core_name(f.core)).field("core_source", f.core_source);
    if (f.mix_part.empty()) w.null_field("mix_part");
    else w.field("mix_part", f.mix_part);
    if (f.mix_mode.empty()) w.null_field("mix_mode");
    else w.field("mix_mode", f.mix_mode);
    w.field("line", f.line).field("end_line", f.end_line).field("instances_per_block", f.instances_per_block);
    if (f.first_op) w.key("ops").begin_array().value(*f.first_op).value(*f.last_op).end_array();
    else w.null_field("ops");
    if (f.dump_header.empty()) w.null_field("dump_header");
    else w.field("dump_header", f.dump_header);
    w.key("args").begin_array();
    for (const FunctionArg &a : f.args) {
      w.begin_object().field("name", a.name).field("type", a.type).field("role", a.role);
      w.field("triton_index", a.triton_index).field("value", a.value);
      if (!a.value_source.empty()) w.field("value_source", a.value_source);
      w.end_object();
    }
    w.end_array();
    w.key("logical_block_num").begin_object();
    if (f.logical_block_num.empty()) w.null_field("operand");
    else w.field("operand", f.logical_block_num);
    if (f.block_num.known) w.field("value", f.block_num.value);
    else w.null_field("value").field("reason", f.block_num.reason);
    w.end_object();
    w.end_object();
  }
  w.end_array();

  const GivenFacts *facts = prog.given.get();
  std::vector<int64_t> fact_ops(facts != nullptr ? facts->facts.size() : 0, 0);
  w.key("ops").begin_array();
  for (size_t idx = 0; idx < prog.ops.size(); ++idx) {
    const OpRecord *given = facts != nullptr && idx < facts->ops.size() ? &facts->ops[idx] : nullptr;
    write_op(w, prog.ops[idx], prog.blocks.has_value(), given, facts, fact_ops);
  }
  w.end_array();

  w.key("loops").begin_array();
  for (const LoopRecord &l : prog.loops) {
    w.begin_object().field("function", l.function).field("line", l.line).field("depth", l.depth);
    w.key("trip");
    write_count(w, l.trip);
    w.key("entries");
    write_count(w, l.entries);
    w.key("iterations");
    write_count(w, l.iterations);
    w.field("element_loop", l.element_loop);
    w.array("attributes", l.attributes);
    w.field("scalar_instructions_per_iteration", l.body_scalar_instructions);
    w.field("issued_instructions_per_iteration", l.body_issued_instructions);
    if (!l.trip.exact) w.field("fact_key", "trips.\"" + std::to_string(l.line) + "\"");
    w.end_object();
  }
  w.end_array();

  w.key("totals").begin_object();
  w.key("per_block");
  write_totals(w, prog, Mode::Block);
  w.key("per_block_min");
  write_totals(w, prog, Mode::BlockMin);
  w.key("per_instance");
  write_totals(w, prog, Mode::Instance);
  w.key("per_grid");
  if (prog.blocks) write_totals(w, prog, Mode::Grid);
  else w.null();
  w.end_object();

  w.key("sync").begin_object();
  // Members shared by handoffs and cross-core edges.
  auto write_link = [&](JsonWriter &out, const SyncLink &e) {
    write_ids(out, "set_lines", e.set_lines);
    write_ids(out, "wait_lines", e.wait_lines);
    out.key("sets");
    write_count(out, e.sets);
    out.key("waits");
    write_count(out, e.waits);
    out.field("kind", e.kind).field("mandatory", e.kind == "mandatory");
    out.array("dependences", e.dependences);
    out.field("reason", e.reason);
    write_ids(out, "producer_ops", e.producer_ops);
    write_ids(out, "consumer_ops", e.consumer_ops);
  };
  w.key("handoffs").begin_array();
  for (const HandoffEdge &e : prog.handoffs) {
    w.begin_object().field("id", e.id).field("function", e.function).field("core", core_name(e.core));
    w.field("producer", pipe_name(e.producer)).field("consumer", pipe_name(e.consumer)).field("event", e.event);
    write_link(w, e);
    w.end_object();
  }
  w.end_array();
  w.key("cross_core").begin_array();
  for (const CrossCoreEdge &e : prog.cross_core) {
    w.begin_object().field("id", e.id).field("flag", e.flag);
    w.key("producer").begin_object().field("function", e.producer_function).field("core", core_name(e.producer_core));
    w.field("pipe", pipe_name(e.producer_pipe)).end_object();
    w.key("consumer").begin_object().field("function", e.consumer_function).field("core", core_name(e.consumer_core));
    if (e.consumer_pipe == Pipe::None) w.null_field("pipe");
    else w.field("pipe", pipe_name(e.consumer_pipe));
    w.end_object();
    write_link(w, e);
    w.end_object();
  }
  w.end_array();
  struct PipeBarriers {
    int64_t barriers = 0, executions = 0;
    bool exact = true;
    std::map<std::string, std::pair<int64_t, int64_t>> by_kind;
  };
  std::map<std::pair<std::string, std::string>, PipeBarriers> per_pipe;
  w.key("barriers").begin_array();
  for (const BarrierRecord &b : prog.barriers) {
    w.begin_object().field("op", b.op).field("function", b.function).field("line", b.line);
    w.field("core", core_name(b.core)).field("pipe", pipe_name(b.pipe));
    w.key("count");
    write_count(w, b.count);
    w.field("kind", b.kind).field("mandatory", b.kind == "mandatory");
    w.array("dependences", b.dependences);
    w.field("reason", b.reason);
    write_ids(w, "before_ops", b.before_ops);
    write_ids(w, "after_ops", b.after_ops);
    w.end_object();
    PipeBarriers &pp = per_pipe[{core_name(b.core), pipe_name(b.pipe)}];
    const int64_t exec = b.count.known ? b.count.value : 0;
    ++pp.barriers;
    pp.executions += exec;
    pp.exact = pp.exact && b.count.exact;
    auto &kind = pp.by_kind[b.kind];
    ++kind.first;
    kind.second += exec;
  }
  w.end_array();
  w.key("barriers_per_pipe").begin_array();
  for (const auto &[key, pp] : per_pipe) {
    w.begin_object().field("core", key.first).field("pipe", key.second).field("barriers", pp.barriers);
    w.field("executions", pp.executions).field("executions_exact", pp.exact);
    w.key("by_kind").begin_object();
    for (const auto &[kind, v] : pp.by_kind)
      w.key(kind).begin_object().field("barriers", v.first).field("executions", v.second).end_object();
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.key("component_edges").begin_array();
  for (const ComponentEdge &c : prog.component_edges) {
    w.begin_object().field("producer", c.producer).field("consumer", c.consumer).field("mandatory", c.mandatory);
    w.field("cross_core", c.cross_core).field("multiplicity", c.multiplicity).field("multiplicity_exact", c.multiplicity_exact);
    w.field("chains", c.chains);
    w.key("vias").begin_array();
    for (const auto &via : c.vias) {
      w.begin_array();
      for (const std::string &v : via) w.value(v);
      w.end_array();
    }
    w.end_array();
    write_ids(w, "handoffs", c.handoffs);
    write_ids(w, "cross_core_edges", c.cross_core_edges);
    write_ids(w, "lines", c.lines);
    w.end_object();
  }
  w.end_array();
  struct CrossCounts {
    int64_t set = 0, wait = 0, block = 0;
    bool exact = true;
  };
  std::map<std::string, CrossCounts> cc;
  for (const OpRecord &r : prog.ops) {
    if (r.cls != OpClass::SyncBlockSet && r.cls != OpClass::SyncBlockWait && r.cls != OpClass::SyncBlock) continue;
    CrossCounts &c = cc[core_name(r.core)];
    const int64_t v = r.count.known ? r.count.value : 0;
    if (r.cls == OpClass::SyncBlockSet) c.set += v;
    else if (r.cls == OpClass::SyncBlockWait) c.wait += v;
    else c.block += v;
    c.exact = c.exact && r.count.exact;
  }
  w.key("cross_core_counts").begin_object();
  for (const auto &[core, c] : cc) {
    w.key(core).begin_object().field("sync_block_set", c.set).field("sync_block_wait", c.wait);
    w.field("sync_block", c.block).field("exact", c.exact).end_object();
  }
  w.end_object();
  w.end_object();

  w.key("fallbacks").begin_array();
  for (const Finding &f : prog.fallbacks) {
    w.begin_object().field("op", f.op).field("line", f.line).field("name", f.op_name).field("cause", f.cause);
    w.field("count_per_block", f.count_per_block).field("count_exact", f.count_exact).end_object();
  }
  w.end_array();
  w.key("histogram").begin_object();
  for (const auto &[name, n] : prog.histogram) w.field(name, n);
  w.end_object();
  w.key("unmodelled").begin_array();
  for (const Unmodelled &u : prog.unmodelled) {
    w.begin_object().field("op", u.op).field("count", u.count);
    write_ids(w, "lines", u.lines);
    w.field("reason", u.reason).end_object();
  }
  w.end_array();
  write_note_list(w, "estimates", prog.estimates);
  write_note_list(w, "unresolved", prog.unresolved);
  w.array("warnings", prog.warnings);
  if (facts != nullptr) {
    w.key("given_facts").begin_array();
    for (size_t f = 0; f < facts->facts.size(); ++f) {
      const GivenFacts::Fact &fact = facts->facts[f];
      w.begin_object().field("key", fact.key).key("fact").raw(fact.echo_json);
      write_ids(w, "lines", fact.lines);
      w.field("ops", fact_ops[f]).end_object();
    }
    w.end_array();
  }
  w.end_object();
  return w.take();
}

json to_json(const Program &prog, const SourceInfo &source, const AnalysisOptions &options) {
  return json::parse(to_json_text(prog, source, options));
}

void apply_profile(const json &profile, AnalysisOptions &options) {
  if (!profile.is_object()) return;
  auto value_of = [](const json &q) -> std::optional<double> {
    if (q.is_number()) return q.get<double>();
    if (q.is_object() && q.contains("value") && q["value"].is_number()) return q["value"].get<double>();
    return std::nullopt;
  };
  if (profile.contains("vector") && profile["vector"].contains("repeat_bytes")) {
    const json &rb = profile["vector"]["repeat_bytes"];
    auto v = value_of(rb);
    if (!v || *v <= 0 || std::floor(*v) != *v)
      throw std::runtime_error("profile.vector.repeat_bytes: expected a positive whole number of bytes");
    options.vector_repeat_bytes = static_cast<int64_t>(*v);
    options.vector_repeat_source = "profile vector.repeat_bytes";
    if (rb.is_object() && rb.contains("source") && rb["source"].is_string())
      options.vector_repeat_source += " (" + rb["source"].get<std::string>() + ")";
  }
  if (profile.contains("cores")) {
    auto aic = value_of(profile["cores"].value("aic", json()));
    auto aiv = value_of(profile["cores"].value("aiv", json()));
    if (aic && aiv && *aic > 0 && *aiv >= *aic)
      options.vector_cores_per_cube_core = static_cast<uint32_t>(std::llround(*aiv / *aic));
  }
  if (profile.contains("cube") && profile["cube"].contains("fractal") && profile["cube"]["fractal"].is_object()) {
    for (const auto &[dtype, f] : profile["cube"]["fractal"].items()) {
      if (!f.is_object() || !f.contains("m") || !f.contains("k") || !f.contains("n")) continue;
      Fractal fr{f["m"].get<int64_t>(), f["k"].get<int64_t>(), f["n"].get<int64_t>()};
      std::string key = dtype == "fp16" ? "f16" : (dtype == "fp32" ? "f32" : (dtype == "int8" ? "i8" : dtype));
      options.fractal[key] = fr;
    }
  }
}

void apply_launch(const json &launch, AnalysisOptions &options) {
  if (!launch.is_object()) return;
  options.have_launch = true;
  if (launch.contains("grid") && launch["grid"].is_array())
    for (const json &g : launch["grid"]) {
      // The schema says so too; never cast a float beyond int64 (undefined).
      const double d = g.is_number() ? g.get<double>() : 0;
      if (!(d >= 1 && d <= 2147483647.0) || d != std::floor(d))
        throw std::invalid_argument("grid: " + g.dump() + " is not a whole number of programs from 1 to 2147483647");
      options.grid.push_back(static_cast<int64_t>(d));
    }
  if (launch.contains("args") && launch["args"].is_object())
    for (const auto &[key, v] : launch["args"].items()) {
      LaunchArgValue a;
      a.text = v.dump();
      if (v.is_boolean()) {
        a.boolean = true;
        a.value = v.get<bool>() ? 1.0 : 0.0;
      } else if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        a.integer = true;
        a.fits = u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        a.exact = a.fits ? static_cast<int64_t>(u) : std::numeric_limits<int64_t>::max();
        a.value = static_cast<double>(u);
      } else if (v.is_number_integer()) {
        a.integer = true;
        a.exact = v.get<int64_t>();
        a.value = static_cast<double>(a.exact);
      } else if (v.is_number()) {
        a.value = v.get<double>();
      } else {
        throw std::invalid_argument("args." + key + ": expected a number or true/false, got " + v.dump());
      }
      options.args[key] = std::move(a);
    }
  if (launch.contains("optional_args") && launch["optional_args"].is_array())
    for (const json &k : launch["optional_args"])
      if (k.is_string()) options.optional_args.push_back(k.get<std::string>());
  if (launch.contains("kernel") && launch["kernel"].is_string()) options.kernel = launch["kernel"].get<std::string>();
  apply_launch_facts(launch, options);
}

}  // namespace pb::hivm
