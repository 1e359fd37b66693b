//===- document.cpp - Program -> perfbound.hivm_program/1 JSON -------------===//
#include "document.hpp"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace pb::hivm {

using json = nlohmann::json;

namespace {

Quantity times_count(const Count &c, int64_t per_exec) {
  Quantity q;
  if (!c.known) return q;
  q.value = c.value * per_exec;
  q.estimated = !c.exact;
  return q;
}

constexpr int64_t kInf = Interval::kPosInf;

json count_json(const Count &c) {
  json j;
  if (!c.known) {
    j["value"] = nullptr;
    j["min"] = c.min;
    j["max"] = c.max == kInf ? json(nullptr) : json(c.max);
    j["exact"] = false;
    j["reason"] = c.reason;
    return j;
  }
  j["value"] = c.value;
  j["min"] = c.min;
  j["max"] = c.max == kInf ? json(nullptr) : json(c.max);
  j["exact"] = c.exact;
  if (!c.exact && !c.reason.empty()) j["reason"] = c.reason;
  if (c.block_dependent) {
    j["block_dependent"] = true;
    if (c.last_block) j["last_block"] = *c.last_block;
  }
  return j;
}

json q_value(const Quantity &q) { return q.value ? json(*q.value) : json(nullptr); }

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

json buffer_json(const BufferRef &b) {
  json j;
  j["kind"] = kind_name(b.kind);
  j["space"] = space_name(b.space) != nullptr ? json(space_name(b.space)) : json(nullptr);
  if (b.kind == BufferRef::Kind::Address || b.kind == BufferRef::Kind::Workspace) {
    json bases = json::array();
    if (b.base0 >= 0) bases.push_back(b.base0);
    if (b.base1 >= 0) bases.push_back(b.base1);
    j["offsets"] = bases;
  }
  if (b.kind == BufferRef::Kind::Arg || b.kind == BufferRef::Kind::Alloc) j["id"] = b.id;
  j["bytes"] = b.bytes >= 0 ? json(b.bytes) : json(nullptr);
  return j;
}

json space_json(Space s) { return space_name(s) != nullptr ? json(space_name(s)) : json(nullptr); }

json pipes_json(const std::vector<Pipe> &pipes) {
  json a = json::array();
  for (Pipe p : pipes) a.push_back(pipe_name(p));
  return a;
}

bool is_vector(OpClass c) {
  switch (c) {
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

json op_json(const OpRecord &r, bool with_grid) {
  json j;
  j["id"] = r.id;
  j["function"] = r.function;
  j["op"] = r.name;
  j["line"] = r.line;
  j["loc"] = r.loc.empty() ? json(nullptr) : json(r.loc);
  j["class"] = op_class_name(r.cls);
  j["modelled"] = r.modelled;
  j["pipes"] = pipes_json(r.pipes);
  if (!r.unresolved_pipe.empty()) j["pipe_reason"] = r.unresolved_pipe;
  j["core"] = core_name(r.core);
  j["loop_depth"] = r.loop_depth;
  j["count"] = count_json(r.count);
  j["count_instance"] = count_json(r.count_instance);
  j["instructions"] = {{"scalar", r.scalar_instructions}, {"issued", r.issued_instructions}};
  if (!r.scalar_kind.empty()) j["scalar_kind"] = r.scalar_kind;

  json exec = json::object();
  json reasons = json::object();
  auto put = [&](json &obj, const char *name, const Quantity &q) {
    if (!q.value && q.reason.empty()) return;  // not applicable
    obj[name] = q_value(q);
    if (!q.reason.empty() && (q.estimated || !q.value)) reasons[name] = q.reason;
  };
  const bool dma_like = r.cls == OpClass::Dma || r.cls == OpClass::ScalarMemory || r.name == "hivm.hir.copy";
  put(exec, "elements", r.elements);
  if (dma_like) put(exec, "bytes", r.bytes);
  put(exec, "flop", r.flop);
  if (is_vector(r.cls)) {
    put(exec, "repeats", r.repeats);
    put(exec, "masked_lanes", r.masked_lanes);
  }
  if (r.cls == OpClass::Dma) {
    put(exec, "packet_bytes", r.packet_bytes);
    put(exec, "packets", r.packets);
  }
  if (!r.dtype.empty()) exec["dtype"] = r.dtype;
  if (r.src != Space::Unknown) exec["src"] = space_json(r.src);
  if (r.dst != Space::Unknown) exec["dst"] = space_json(r.dst);
  if (!r.path_name.empty()) exec["path"] = r.path_name;
  if (r.cls == OpClass::Cube) {
    exec["m"] = r.m ? json(*r.m) : json(nullptr);
    exec["k"] = r.k ? json(*r.k) : json(nullptr);
    exec["n"] = r.n ? json(*r.n) : json(nullptr);
    exec["mte1_bytes"] = r.mte1_bytes >= 0 ? json(r.mte1_bytes) : json(nullptr);
  }
  if (!exec.empty()) j["exec"] = exec;

  json block = json::object();
  json block_reasons = json::object();
  auto put_block = [&](json &obj, const char *name, const Quantity &q) {
    if (!q.value && q.reason.empty()) return;
    obj[name] = q_value(q);
    if (q.estimated || !q.value) block_reasons[name] = q.reason.empty() ? "estimated" : q.reason;
  };
  if (dma_like) put_block(block, "bytes", r.bytes_block);
  put_block(block, "elements", r.elements_block);
  put_block(block, "flop", r.flop_block);
  if (is_vector(r.cls)) {
    put_block(block, "repeats", r.repeats_block);
    put_block(block, "masked_lanes", r.masked_block);
  }
  if (r.cls == OpClass::Dma) put_block(block, "packets", r.packets_block);
  put_block(block, "scalar_instructions", r.scalar_block);
  put_block(block, "issued_instructions", r.issued_block);
  j["block"] = block;
  json inst = json::object();
  if (dma_like) put_block(inst, "bytes", r.bytes_instance);
  put_block(inst, "flop", r.flop_instance);
  if (is_vector(r.cls)) put_block(inst, "repeats", r.repeats_instance);
  put_block(inst, "scalar_instructions", r.scalar_instance);
  put_block(inst, "issued_instructions", r.issued_instance);
  j["instance"] = inst;
  if (with_grid) {
    json grid = json::object();
    put_block(grid, "count", r.count_grid);
    if (dma_like) put_block(grid, "bytes", r.bytes_grid);
    put_block(grid, "flop", r.flop_grid);
    if (is_vector(r.cls)) put_block(grid, "repeats", r.repeats_grid);
    put_block(grid, "scalar_instructions", r.scalar_grid);
    put_block(grid, "issued_instructions", r.issued_grid);
    j["grid"] = grid;
  }
  if (!reasons.empty()) j["exec_reasons"] = reasons;
  if (!block_reasons.empty()) j["total_reasons"] = block_reasons;
  if (!r.estimated_fields.empty()) j["estimated"] = r.estimated_fields;

  json elig;
  elig["units"] = r.eligibility.units;
  elig["landed"] = r.eligibility.landed;
  elig["fallback"] = r.eligibility.fallback;
  if (r.eligibility.fallback) elig["cause"] = r.eligibility.cause;
  j["eligibility"] = elig;

  if (r.sync) {
    json s;
    s["from"] = r.sync->from == Pipe::None ? json(nullptr) : json(pipe_name(r.sync->from));
    s["to"] = r.sync->to == Pipe::None ? json(nullptr) : json(pipe_name(r.sync->to));
    s["event"] = r.sync->event ? json(*r.sync->event) : json(nullptr);
    if (!r.sync->event_value.empty()) {
      s["event_operand"] = r.sync->event_value;
      s["event_values"] = r.sync->event_values;
    }
    if (!r.sync->tcore.empty()) s["tcore"] = r.sync->tcore;
    if (!r.sync->mode.empty()) s["mode"] = r.sync->mode;
    j["sync"] = s;
  }
  if (!r.reads.empty() || !r.writes.empty()) {
    json reads = json::array(), writes = json::array();
    for (const BufferRef &b : r.reads) reads.push_back(buffer_json(b));
    for (const BufferRef &b : r.writes) writes.push_back(buffer_json(b));
    j["reads"] = reads;
    j["writes"] = writes;
  }
  if (!r.notes.empty()) j["notes"] = r.notes;
  return j;
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
    estimated = estimated || q.estimated;
  }
  void add(int64_t v) {
    if (known && __builtin_add_overflow(value, v, &value)) value = kInf;
  }
  [[nodiscard]] json to_json() const { return known ? json(value) : json(nullptr); }
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

Quantity pick(const OpRecord &r, Mode mode, const Quantity &exec, const Quantity &block, const Quantity &instance,
              const Quantity &grid) {
  switch (mode) {
    case Mode::Block: return block;
    case Mode::Instance: return instance;
    case Mode::Grid: return grid;
    case Mode::BlockMin: {
      // Guaranteed minimum: the minimum count times an exact per-execution value (0 otherwise).
      Quantity q;
      q.value = 0;
      if (exec.value && !exec.estimated && r.count.known) q.value = r.count.min * *exec.value;
      return q;
    }
  }
  return block;
}

Quantity count_q(const Count &c) {
  Quantity q;
  if (!c.known) return q;
  q.value = c.value;
  q.estimated = !c.exact;
  return q;
}

json totals_json(const Program &prog, Mode mode) {
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
    Quantity scalar = pick(r, mode, Quantity::exact(r.scalar_instructions), r.scalar_block, r.scalar_instance, r.scalar_grid);
    Quantity issued = pick(r, mode, Quantity::exact(r.issued_instructions), r.issued_block, r.issued_instance, r.issued_grid);
    if (mode == Mode::BlockMin && r.cls == OpClass::Loop) scalar = issued = Quantity::exact(0);
    if (r.scalar_instructions > 0 || r.cls == OpClass::Loop) {
      t.scalar.add(scalar);
      t.scalar_by_kind[r.scalar_kind.empty() ? "other" : r.scalar_kind].add(scalar);
      if (r.eligibility.fallback) t.fallback_scalar.add(scalar);
    }
    t.issued.add(issued);
    if (scalar.estimated || issued.estimated) t.estimated = true;
    if (r.cls == OpClass::ScalarMemory && r.scalar_gm_bytes > 0) {
      Quantity b = pick(r, mode, r.bytes, r.bytes_block, times_count(r.count_instance, r.scalar_gm_bytes), r.bytes_grid);
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
      Quantity bytes = pick(r, mode, r.bytes, r.bytes_block, r.bytes_instance, r.bytes_grid);
      Quantity packets = pick(r, mode, r.packets, r.packets_block, Quantity{}, Quantity{});
      std::string pipe = r.pipes.empty() ? "none" : pipe_name(r.pipes.front());
      std::string packet = r.packet_bytes.value ? std::to_string(*r.packet_bytes.value) : "unknown";
      auto &m = t.mte[{pipe, r.path_name.empty() ? "unknown" : r.path_name, packet}];
      m.bytes.add(bytes);
      m.transfers.add(cnt);
      if (mode == Mode::Block || mode == Mode::BlockMin) m.packets.add(packets);
      t.bytes_by_pipe[pipe].add(bytes);
      if (bytes.estimated) t.estimated = true;
      if (!bytes.value) t.unknown.insert("mte bytes (" + r.name + " line " + std::to_string(r.line) + ")");
    } else if (is_vector(r.cls)) {
      Quantity rep = pick(r, mode, r.repeats, r.repeats_block, r.repeats_instance, r.repeats_grid);
      Quantity flop = pick(r, mode, r.flop, r.flop_block, r.flop_instance, r.flop_grid);
      Quantity masked = pick(r, mode, r.masked_lanes, r.masked_block, Quantity{}, Quantity{});
      t.v_repeats.add(rep);
      t.v_flop.add(flop);
      t.v_exec.add(cnt);
      if (mode == Mode::Block || mode == Mode::BlockMin) t.v_masked.add(masked);
      auto &vc = t.v_by_class[op_class_name(r.cls)];
      vc.exec.add(cnt);
      vc.repeats.add(rep);
      vc.flop.add(flop);
      if (mode == Mode::Block || mode == Mode::BlockMin) vc.masked.add(masked);
      if (rep.estimated || flop.estimated) t.estimated = true;
      if (r.name == "hivm.hir.copy") {
        Quantity bytes = pick(r, mode, r.bytes, r.bytes_block, r.bytes_instance, r.bytes_grid);
        t.bytes_by_pipe["V"].add(bytes);
      }
    } else if (r.cls == OpClass::Cube) {
      Quantity flop = pick(r, mode, r.flop, r.flop_block, r.flop_instance, r.flop_grid);
      t.c_flop.add(flop);
      t.c_exec.add(cnt);
      t.c_flop_by_dtype[r.dtype.empty() ? "unknown" : r.dtype].add(flop);
      if (r.mte1_bytes >= 0 && cnt.value) t.c_mte1.add(*cnt.value * r.mte1_bytes);
      auto &shape = t.c_shapes[{r.dtype, r.m.value_or(-1), r.k.value_or(-1), r.n.value_or(-1)}];
      shape.exec.add(cnt);
      shape.flop.add(flop);
      if (flop.estimated) t.estimated = true;
    }
  }
  json out = json::object();
  for (auto &[core, t] : cores) {
    json c;
    c["functions"] = t.functions;
    c["instances_per_block"] = t.instances;
    c["static_ops"] = t.static_ops;
    json pipes = json::object();
    for (auto &[p, s] : t.executions_by_pipe) {
      json pj;
      pj["executions"] = s.to_json();
      if (t.bytes_by_pipe.count(p)) pj["bytes"] = t.bytes_by_pipe[p].to_json();
      pipes[p] = pj;
    }
    c["pipes"] = pipes;
    json mte = json::array();
    for (auto &[key, m] : t.mte) {
      auto &[pipe, path, packet] = key;
      json mj;
      mj["pipe"] = pipe;
      mj["path"] = path;
      mj["packet_bytes"] = packet == "unknown" ? json(nullptr) : json(std::stoll(packet));
      mj["bytes"] = m.bytes.to_json();
      mj["transfers"] = m.transfers.to_json();
      if (mode == Mode::Block || mode == Mode::BlockMin) mj["packets"] = m.packets.to_json();
      mte.push_back(mj);
    }
    c["mte"] = mte;
    json vec;
    vec["executions"] = t.v_exec.to_json();
    vec["repeats"] = t.v_repeats.to_json();
    vec["flop"] = t.v_flop.to_json();
    if (mode == Mode::Block || mode == Mode::BlockMin) vec["masked_lanes"] = t.v_masked.to_json();
    json by_class = json::object();
    for (auto &[cls, vc] : t.v_by_class) {
      json cj = {{"executions", vc.exec.to_json()}, {"repeats", vc.repeats.to_json()}, {"flop", vc.flop.to_json()}};
      if (mode == Mode::Block || mode == Mode::BlockMin) cj["masked_lanes"] = vc.masked.to_json();
      by_class[cls] = cj;
    }
    vec["by_class"] = by_class;
    c["vector"] = vec;
    json cube;
    cube["executions"] = t.c_exec.to_json();
    cube["flop"] = t.c_flop.to_json();
    cube["mte1_bytes"] = t.c_mte1.to_json();
    json by_dtype = json::object();
    for (auto &[dt, s] : t.c_flop_by_dtype) by_dtype[dt] = {{"flop", s.to_json()}};
    json shapes = json::array();
    for (auto &[key, sh] : t.c_shapes) {
      auto &[dt, m, k, n] = key;
      shapes.push_back({{"dtype", dt},
                        {"m", m >= 0 ? json(m) : json(nullptr)},
                        {"k", k >= 0 ? json(k) : json(nullptr)},
                        {"n", n >= 0 ? json(n) : json(nullptr)},
                        {"executions", sh.exec.to_json()},
                        {"flop", sh.flop.to_json()}});
    }
    cube["by_dtype"] = by_dtype;
    cube["shapes"] = shapes;
    c["cube"] = cube;
    json scalar;
    scalar["instructions"] = t.scalar.to_json();
    json kinds = json::object();
    for (auto &[k, s] : t.scalar_by_kind) kinds[k] = s.to_json();
    scalar["by_kind"] = kinds;
    scalar["gm_load_bytes"] = t.gm_scalar_bytes.to_json();
    scalar["fallback_instructions"] = t.fallback_scalar.to_json();
    c["scalar"] = scalar;
    c["issued_instructions"] = t.issued.to_json();
    json sync = json::object();
    for (auto &[k, s] : t.sync_ops) sync[k] = s.to_json();
    c["sync"] = sync;
    c["estimated"] = t.estimated;
    c["unknown"] = json(std::vector<std::string>(t.unknown.begin(), t.unknown.end()));
    out[core] = c;
  }
  return out;
}

}  // namespace

json to_json(const Program &prog, const SourceInfo &source, const AnalysisOptions &options) {
  json doc;
  doc["schema"] = kProgramSchema;
  json src;
  src["origin"] = source.origin;
  src["bytes"] = source.bytes;
  src["lines"] = prog.lines_total;
  src["ir_dump_headers"] = prog.dump_headers;
  src["compiler_output_lines"] = prog.skipped_lines;
  json diags = json::array();
  for (const auto &[line, text] : prog.diagnostics) diags.push_back({{"line", line}, {"text", text}});
  src["compiler_output"] = diags;
  doc["source"] = src;
  doc["profile"] = {{"vector_repeat_bytes", prog.vector_repeat_bytes},
                    {"vector_repeat_source", prog.vector_repeat_source},
                    {"vector_cores_per_cube_core", options.vector_cores_per_cube_core}};
  json launch;
  launch["given"] = options.have_launch;
  launch["grid"] = options.grid.empty() ? json(nullptr) : json(options.grid);
  doc["launch"] = launch;
  json blocks;
  blocks["value"] = prog.blocks ? json(*prog.blocks) : json(nullptr);
  if (prog.blocks) blocks["source"] = prog.blocks_source;
  else blocks["reason"] = prog.blocks_reason;
  doc["blocks"] = blocks;

  json functions = json::array();
  for (const FunctionRecord &f : prog.functions) {
    json fj;
    fj["index"] = f.index;
    fj["name"] = f.name;
    fj["core"] = core_name(f.core);
    fj["core_source"] = f.core_source;
    fj["mix_part"] = f.mix_part.empty() ? json(nullptr) : json(f.mix_part);
    fj["mix_mode"] = f.mix_mode.empty() ? json(nullptr) : json(f.mix_mode);
    fj["line"] = f.line;
    fj["end_line"] = f.end_line;
    fj["instances_per_block"] = f.instances_per_block;
    fj["ops"] = f.first_op ? json::array({*f.first_op, *f.last_op}) : json(nullptr);
    fj["dump_header"] = f.dump_header.empty() ? json(nullptr) : json(f.dump_header);
    json args = json::array();
    for (const FunctionArg &a : f.args) {
      json aj;
      aj["name"] = a.name;
      aj["type"] = a.type;
      aj["role"] = a.role;
      aj["triton_index"] = a.triton_index ? json(*a.triton_index) : json(nullptr);
      aj["value"] = a.value ? json(*a.value) : json(nullptr);
      if (!a.value_source.empty()) aj["value_source"] = a.value_source;
      args.push_back(aj);
    }
    fj["args"] = args;
    json lbn;
    lbn["operand"] = f.logical_block_num.empty() ? json(nullptr) : json(f.logical_block_num);
    lbn["value"] = f.block_num.known ? json(f.block_num.value) : json(nullptr);
    if (!f.block_num.known) lbn["reason"] = f.block_num.reason;
    fj["logical_block_num"] = lbn;
    functions.push_back(fj);
  }
  doc["functions"] = functions;

  json ops = json::array();
  for (const OpRecord &r : prog.ops) ops.push_back(op_json(r, prog.blocks.has_value()));
  doc["ops"] = ops;

  json loops = json::array();
  for (const LoopRecord &l : prog.loops) {
    json lj;
    lj["function"] = l.function;
    lj["line"] = l.line;
    lj["depth"] = l.depth;
    lj["trip"] = count_json(l.trip);
    lj["entries"] = count_json(l.entries);
    lj["iterations"] = count_json(l.iterations);
    lj["element_loop"] = l.element_loop;
    lj["attributes"] = l.attributes;
    lj["scalar_instructions_per_iteration"] = l.body_scalar_instructions;
    lj["issued_instructions_per_iteration"] = l.body_issued_instructions;
    loops.push_back(lj);
  }
  doc["loops"] = loops;

  json totals;
  totals["per_block"] = totals_json(prog, Mode::Block);
  totals["per_block_min"] = totals_json(prog, Mode::BlockMin);
  totals["per_instance"] = totals_json(prog, Mode::Instance);
  totals["per_grid"] = prog.blocks ? totals_json(prog, Mode::Grid) : json(nullptr);
  doc["totals"] = totals;

  json sync;
  json handoffs = json::array();
  for (const HandoffEdge &e : prog.handoffs) {
    json hj;
    hj["id"] = e.id;
    hj["function"] = e.function;
    hj["core"] = core_name(e.core);
    hj["producer"] = pipe_name(e.producer);
    hj["consumer"] = pipe_name(e.consumer);
    hj["event"] = e.event;
    hj["set_lines"] = e.set_lines;
    hj["wait_lines"] = e.wait_lines;
    hj["sets"] = count_json(e.sets);
    hj["waits"] = count_json(e.waits);
    hj["kind"] = e.kind;
    hj["mandatory"] = e.kind == "mandatory";
    hj["dependences"] = e.dependences;
    hj["reason"] = e.reason;
    hj["producer_ops"] = e.producer_ops;
    hj["consumer_ops"] = e.consumer_ops;
    handoffs.push_back(hj);
  }
  sync["handoffs"] = handoffs;
  json cross = json::array();
  for (const CrossCoreEdge &e : prog.cross_core) {
    json cj;
    cj["id"] = e.id;
    cj["flag"] = e.flag;
    cj["producer"] = {{"function", e.producer_function}, {"core", core_name(e.producer_core)}, {"pipe", pipe_name(e.producer_pipe)}};
    cj["consumer"] = {{"function", e.consumer_function},
                      {"core", core_name(e.consumer_core)},
                      {"pipe", e.consumer_pipe == Pipe::None ? json(nullptr) : json(pipe_name(e.consumer_pipe))}};
    cj["set_lines"] = e.set_lines;
    cj["wait_lines"] = e.wait_lines;
    cj["sets"] = count_json(e.sets);
    cj["waits"] = count_json(e.waits);
    cj["kind"] = e.kind;
    cj["mandatory"] = e.kind == "mandatory";
    cj["dependences"] = e.dependences;
    cj["reason"] = e.reason;
    cj["producer_ops"] = e.producer_ops;
    cj["consumer_ops"] = e.consumer_ops;
    cross.push_back(cj);
  }
  sync["cross_core"] = cross;
  json barriers = json::array();
  std::map<std::pair<std::string, std::string>, json> per_pipe;
  for (const BarrierRecord &b : prog.barriers) {
    json bj;
    bj["op"] = b.op;
    bj["function"] = b.function;
    bj["line"] = b.line;
    bj["core"] = core_name(b.core);
    bj["pipe"] = pipe_name(b.pipe);
    bj["count"] = count_json(b.count);
    bj["kind"] = b.kind;
    bj["mandatory"] = b.kind == "mandatory";
    bj["dependences"] = b.dependences;
    bj["reason"] = b.reason;
    bj["before_ops"] = b.before_ops;
    bj["after_ops"] = b.after_ops;
    barriers.push_back(bj);
    json &pp = per_pipe[{core_name(b.core), pipe_name(b.pipe)}];
    if (pp.is_null()) pp = {{"core", core_name(b.core)}, {"pipe", pipe_name(b.pipe)}, {"barriers", 0}, {"executions", 0},
                            {"executions_exact", true}, {"by_kind", json::object()}};
    pp["barriers"] = pp["barriers"].get<int64_t>() + 1;
    pp["executions"] = pp["executions"].get<int64_t>() + (b.count.known ? b.count.value : 0);
    if (!b.count.exact) pp["executions_exact"] = false;
    json &k = pp["by_kind"][b.kind];
    if (k.is_null()) k = {{"barriers", 0}, {"executions", 0}};
    k["barriers"] = k["barriers"].get<int64_t>() + 1;
    k["executions"] = k["executions"].get<int64_t>() + (b.count.known ? b.count.value : 0);
  }
  sync["barriers"] = barriers;
  json pp_arr = json::array();
  for (auto &[key, v] : per_pipe) pp_arr.push_back(v);
  sync["barriers_per_pipe"] = pp_arr;
  json comps = json::array();
  for (const ComponentEdge &c : prog.component_edges) {
    json cj;
    cj["producer"] = c.producer;
    cj["consumer"] = c.consumer;
    cj["mandatory"] = c.mandatory;
    cj["cross_core"] = c.cross_core;
    cj["multiplicity"] = c.multiplicity;
    cj["multiplicity_exact"] = c.multiplicity_exact;
    cj["chains"] = c.chains;
    cj["vias"] = c.vias;
    cj["handoffs"] = c.handoffs;
    cj["cross_core_edges"] = c.cross_core_edges;
    cj["lines"] = c.lines;
    comps.push_back(cj);
  }
  sync["component_edges"] = comps;
  json cc_counts = json::object();
  for (const OpRecord &r : prog.ops) {
    if (r.cls != OpClass::SyncBlockSet && r.cls != OpClass::SyncBlockWait && r.cls != OpClass::SyncBlock) continue;
    json &c = cc_counts[core_name(r.core)];
    if (c.is_null()) c = {{"sync_block_set", 0}, {"sync_block_wait", 0}, {"sync_block", 0}, {"exact", true}};
    const char *key = op_class_name(r.cls);
    c[key] = c[key].get<int64_t>() + (r.count.known ? r.count.value : 0);
    if (!r.count.exact) c["exact"] = false;
  }
  sync["cross_core_counts"] = cc_counts;
  doc["sync"] = sync;

  json fallbacks = json::array();
  for (const Finding &f : prog.fallbacks)
    fallbacks.push_back({{"op", f.op}, {"line", f.line}, {"name", f.op_name}, {"cause", f.cause},
                         {"count_per_block", f.count_per_block}, {"count_exact", f.count_exact}});
  doc["fallbacks"] = fallbacks;
  doc["histogram"] = prog.histogram;
  json unmodelled = json::array();
  for (const Unmodelled &u : prog.unmodelled)
    unmodelled.push_back({{"op", u.op}, {"count", u.count}, {"lines", u.lines}, {"reason", u.reason}});
  doc["unmodelled"] = unmodelled;
  auto notes = [](const std::vector<EstimateNote> &v) {
    json a = json::array();
    for (const EstimateNote &n : v)
      a.push_back({{"op", n.op ? json(*n.op) : json(nullptr)}, {"line", n.line}, {"field", n.field}, {"value", n.value}, {"reason", n.reason}});
    return a;
  };
  doc["estimates"] = notes(prog.estimates);
  doc["unresolved"] = notes(prog.unresolved);
  doc["warnings"] = prog.warnings;
  return doc;
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
    for (const json &g : launch["grid"]) options.grid.push_back(g.get<int64_t>());
  if (launch.contains("args") && launch["args"].is_object())
    for (const auto &[key, v] : launch["args"].items()) {
      if (v.is_boolean()) options.args[key] = v.get<bool>() ? 1.0 : 0.0;
      else if (v.is_number()) options.args[key] = v.get<double>();
    }
  if (launch.contains("kernel") && launch["kernel"].is_string()) options.kernel = launch["kernel"].get<std::string>();
}

}  // namespace pb::hivm
