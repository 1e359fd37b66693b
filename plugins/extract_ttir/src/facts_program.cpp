//===- facts_program.cpp - kernel, launch and loop sections ---------------===//
#include "facts_document.hpp"

namespace perfbound::ttir {

namespace {

json signature_json(const KernelModel &k, const LaunchValues &lv) {
  json sig = json::array();
  for (const KernelArg &a : k.args) {
    json j;
    j["index"] = a.index;
    j["name"] = a.name.empty() ? json(nullptr) : json(a.name);
    j["key"] = a.key();
    j["type"] = a.type;
    switch (a.kind) {
      case ArgKind::Pointer: j["kind"] = "pointer"; break;
      case ArgKind::Scalar: j["kind"] = "scalar"; break;
      case ArgKind::TensorDesc: j["kind"] = "tensor_descriptor"; break;
      case ArgKind::Other: j["kind"] = "other"; break;
    }
    j["element_type"] = a.element_type;
    j["element_bytes"] = (a.element_bits + 7) / 8;
    j["divisibility"] = a.divisibility > 0 ? json(a.divisibility) : json(nullptr);
    j["used"] = a.used;
    if (a.kind == ArgKind::Scalar) {
      auto it = lv.args.find(a.key());
      j["value"] = it != lv.args.end() ? *it : json(nullptr);
    }
    sig.push_back(std::move(j));
  }
  return sig;
}

}  // namespace

void FactsDoc::add_entry(const Unresolved &u) {
  for (const json &e : unresolved)
    if (e["what"] == u.what && e["reason"] == u.reason) return;
  // `line` is the op's own location (Python when the TTIR has locations);
  // ttir_line and python_loc say which is which.
  json e{{"what", u.what}, {"reason", u.reason}, {"line", line_json(u.line)}};
  e["ttir_line"] = line_json(u.ttir_line);
  e["python_loc"] = python_json(u.python);
  e["line_is"] = u.line <= 0 ? json(nullptr) : json(u.python.empty() && u.line == u.ttir_line ? "ttir" : "python");
  if (!u.hint.empty()) e["hint"] = u.hint;
  unresolved.push_back(std::move(e));
}

json add_kernel_and_launch(FactsDoc &fd) {
  const KernelModel &k = fd.k;
  const LaunchValues &lv = fd.lv;
  json &doc = fd.doc;
  const TtirModule &module = fd.module;
  json kernels_in_file = json::array();
  for (const KernelModel &other : module.kernels)
    if (other.is_public) kernels_in_file.push_back(other.name);
  doc["kernel"] = {{"name", k.name},
                   {"source", loc_json(k.loc)},
                   {"ttir", {{"file", module.origin}, {"line", line_json(k.ttir_line)}}},
                   {"public_kernels_in_file", kernels_in_file}};
  doc["signature"] = signature_json(k, lv);
  json missing = json::array();
  for (const KernelArg &a : k.args)
    if (a.kind == ArgKind::Scalar && a.used && !a.is_float && !lv.ints[static_cast<size_t>(a.index)]) {
      missing.push_back(a.key());
    }
  doc["launch"] = {{"grid", {lv.grid[0], lv.grid[1], lv.grid[2]}},
                   {"programs", lv.programs},
                   {"args", lv.args},
                   {"missing_args", missing},
                   {"ignored_args", lv.ignored}};
  json pid_axes = json::array();
  json np_axes = json::array();
  for (int axis = 0; axis < 3; ++axis) {
    if (k.uses_program_id[axis]) pid_axes.push_back(axis_name(axis));
    if (k.uses_num_programs[axis]) np_axes.push_back(axis_name(axis));
  }
  doc["grid_axes"] = {{"program_id", pid_axes}, {"num_programs", np_axes}};
  return missing;
}

const Loop *add_loops(FactsDoc &fd) {
  const KernelModel &k = fd.k;
  Evaluation &ev = fd.ev;
  const ExprPool &pool = *k.pool;
  ExprNamer namer = k.namer();
  json loops = json::array();
  const Loop *persistent = nullptr;
  for (const Loop &l : k.loops) {
    json j;
    j["id"] = l.id;
    j["parent"] = l.parent >= 0 ? json(l.parent) : json(nullptr);
    j["kind"] = l.kind == LoopKind::For ? "for" : "while";
    add_source(j, l.loc);
    json trip;
    if (l.kind == LoopKind::While) {
      j["region"] = l.region == WhileRegion::Before ? "before" : "after";
      j["trip_pattern"] = l.trip_why;
    }
    if (l.trip == kNoExpr) {
      trip["symbolic"] = nullptr;
      trip["status"] = "unknown";
    } else {
      trip["symbolic"] = pool.to_string(l.trip, namer);
      std::int64_t c = 0;
      bool data = pool.first_opaque(l.trip) != kNoExpr;
      bool pid = pool.contains_if(l.trip, [](const ExprNode &n, ExprId) {
        return n.op == ExprOp::Pid || n.op == ExprOp::LoopIter;
      });
      trip["status"] = pool.is_const(l.trip, &c) ? "exact" : data ? "data-dependent" : pid ? "per-program" : "symbolic";
      if (l.kind == LoopKind::For) {
        j["lower"] = pool.to_string(l.lb, namer);
        j["upper"] = pool.to_string(l.ub, namer);
        j["step"] = pool.to_string(l.step, namer);
      }
    }
    trip["per_program"] = ev.loop_trip[static_cast<size_t>(l.id)].to_json();
    j["trip_count"] = trip;
    j["body_executions_per_program"] = ev.loop_exec[static_cast<size_t>(l.id)].to_json();
    j["persistent_axis"] = l.persistent_axis >= 0 ? json(axis_name(l.persistent_axis)) : json(nullptr);
    if (l.persistent_axis >= 0 && persistent == nullptr) persistent = &l;
    loops.push_back(std::move(j));
  }
  fd.doc["loops"] = loops;
  return persistent;
}

}  // namespace perfbound::ttir
