//===- facts_work.cpp - bytes and work sections ---------------------------===//
//
// bytes: requested bytes by direction (executions x bytes, per program and
// in total) and unique bytes (the union of each pointer argument's
// footprint, from UniqueBytes), with the reason wherever a figure is a bound.
// flop / ops: the work of compute ops by unit class and dtype (FLOP for
// cube, vector, transcendental, reduction, scan; operations for scalar,
// index, layout), atomics, and one entry per dot and reduction.
//
#include "facts_document.hpp"

namespace perfbound::ttir {

void add_bytes(FactsDoc &fd) {
  const KernelModel &k = fd.k;
  const LaunchValues &lv = fd.lv;
  Evaluation &ev = fd.ev;
  // Per-program totals: the sum over accesses of executions x bytes.
  json bytes = json::object();
  const double P = static_cast<double>(lv.programs);
  double grand_requested = 0;
  bool grand_known = true;
  bool grand_exact = true;
  double grand_unique = 0;
  bool grand_unique_exact = true;
  std::string grand_unique_why;
  for (int dir = 0; dir < 3; ++dir) {
    const Dist &rq = ev.dir_requested[static_cast<size_t>(dir)];
    bool known = rq.known && rq.weight > 0;
    bool exact = rq.exact;
    std::string why = rq.reason;
    double total = known ? rq.sum : 0;
    bool has_access = false;
    for (const Access &a : k.accesses)
      if (static_cast<int>(direction_of(a)) == dir) has_access = true;
    json d;
    if (!has_access) {
      known = true;
      exact = true;
      Dist zero;
      zero.add(0, P);
      d["requested"] = {{"per_program", zero.to_json()}, {"total", Qty::of(0).to_json()}};
    } else {
      d["requested"] = {{"per_program", rq.to_json()}, {"total", rq.total().to_json()}};
    }
    if (known) grand_requested += total;
    grand_known = grand_known && known;
    grand_exact = grand_exact && exact;
    // Unique bytes: union over the argument's accesses.
    Qty unique_total = Qty::of(0);
    Dist unique_pp_all;
    bool unique_known = true;
    bool unique_exact = true;
    std::string unique_why;
    double unique_pp_sum = 0;
    json by_arg = json::array();
    for (auto &[key, u] : ev.unique().unions) {
      if (key.second != dir) continue;
      double g = union_bytes(u.global);
      json a_j;
      a_j["arg"] = key.first;
      a_j["arg_key"] = k.args[static_cast<size_t>(key.first)].key();
      Qty q = u.complete ? Qty::of(g) : Qty::estimate(g, "lower", u.incomplete_why);
      a_j["unique_total"] = q.to_json();
      Dist pp_u = u.per_program;
      if (!u.complete) pp_u.inexact("lower", u.incomplete_why);
      a_j["unique_per_program"] = pp_u.to_json();
      by_arg.push_back(a_j);
      *unique_total.value += g;
      unique_pp_sum += u.per_program.sum;
      if (!u.complete) {
        unique_exact = false;
        if (unique_why.empty()) unique_why = "argument " + k.args[static_cast<size_t>(key.first)].key() + ": " + u.incomplete_why;
        if (u.incomplete_line > 0)
          fd.add_unresolved("unique bytes of " + k.args[static_cast<size_t>(key.first)].key(), u.incomplete_why,
                            u.incomplete_loc);
      }
    }
    for (const Access &a : k.accesses)
      if (static_cast<int>(direction_of(a)) == dir && a.arg < 0) {
        unique_exact = false;
        if (unique_why.empty()) unique_why = "the " + a.op + " at line " + std::to_string(a.loc.line) + ": " + a.base_unknown;
        fd.add_unresolved("pointer of the " + a.op + " at line " + std::to_string(a.loc.line), a.base_unknown, a.loc);
      }
    Qty ut = unique_exact ? Qty::of(*unique_total.value) : Qty::estimate(*unique_total.value, "lower", unique_why);
    Qty upp = unique_exact ? Qty::of(unique_pp_sum) : Qty::estimate(unique_pp_sum, "lower", unique_why);
    if (!unique_known) ut = Qty::unknown(unique_why);
    d["unique_total"] = ut.to_json();
    d["unique_per_program_sum"] = upp.to_json();
    d["by_arg"] = by_arg;
    grand_unique += *unique_total.value;
    grand_unique_exact = grand_unique_exact && unique_exact;
    if (!unique_exact && grand_unique_why.empty()) grand_unique_why = unique_why;
    bytes[kDirectionName[dir]] = d;
  }
  bytes["requested_total"] =
      (grand_known ? (grand_exact ? Qty::of(grand_requested)
                                  : Qty::estimate(grand_requested, "upper", "a condition could not be decided"))
                   : Qty::unknown("the trip count of a loop is not known"))
          .to_json();
  bytes["unique_total"] = (grand_unique_exact ? Qty::of(grand_unique)
                                              : Qty::estimate(grand_unique, "lower", grand_unique_why))
                              .to_json();
  fd.doc["bytes"] = bytes;
}

void add_work(FactsDoc &fd) {
  const KernelModel &k = fd.k;
  Evaluation &ev = fd.ev;
  json dots = json::array();
  json reductions = json::array();
  for (size_t idx = 0; idx < k.ops.size(); ++idx) {
    const ComputeOp &op = k.ops[idx];
    const Dist &e = ev.op_exec[idx];
    if (op.cls == OpClass::Cube) {
      dots.push_back({{"op", op.op},
                      {"m", op.m},
                      {"n", op.n},
                      {"k", op.k},
                      {"a_dtype", op.a_dtype},
                      {"b_dtype", op.b_dtype},
                      {"acc_dtype", op.acc_dtype},
                      {"precision", op.precision},
                      {"unit_class", cube_unit(op)},
                      {"flop_per_execution", number(op.flop)},
                      {"executions_per_program", e.to_json()},
                      {"loop", op.loop >= 0 ? json(op.loop) : json(nullptr)}});
      add_source(dots.back(), op.loc);
    }
    if (op.cls == OpClass::Reduction || op.cls == OpClass::Scan) {
      reductions.push_back({{"op", op.op},
                            {"dtype", op.dtype},
                            {"elements", op.elements},
                            {"combine_ops", op.combine_ops},
                            {"detail", op.detail},
                            {"executions_per_program", e.to_json()},
                            {"loop", op.loop >= 0 ? json(op.loop) : json(nullptr)}});
      add_source(reductions.back(), op.loc);
    }
  }
  auto class_json = [&](const std::string &cls) {
    json out = json::object();
    for (const auto &[key, d] : ev.class_work) {
      if (key.first != cls) continue;
      out[key.second] = {{"per_program", d.to_json()}, {"total", d.total().to_json()}};
    }
    return out;
  };
  json flop = json::object();
  double flop_total = 0;
  bool flop_known = true;
  bool flop_exact = true;
  std::string flop_why;
  for (const char *cls : {"cube", "vector", "transcendental", "reduction", "scan"}) {
    flop[cls] = class_json(cls);
    for (const auto &[key, d] : ev.class_work) {
      if (key.first != cls) continue;
      Qty t = d.total();
      if (!t.value) {
        flop_known = false;
        if (flop_why.empty()) flop_why = t.reason;
        continue;
      }
      flop_total += *t.value;
      if (!t.exact) {
        flop_exact = false;
        if (flop_why.empty()) flop_why = t.reason;
      }
    }
  }
  flop["total"] = (flop_known ? (flop_exact ? Qty::of(flop_total) : Qty::estimate(flop_total, "upper", flop_why))
                              : Qty::unknown(flop_why))
                      .to_json();
  // Atomics: elements updated.
  json atomics = json::object();
  for (const Access &a : k.accesses) {
    if (!a.atomic()) continue;
    const Dist &e = ev.access_exec[static_cast<size_t>(a.id)];
    std::string key = a.detail + " " + a.dtype;
    Qty q = e.total();
    if (q.value) *q.value *= static_cast<double>(a.elements());
    atomics[key] = {{"elements_total", q.to_json()}};
    add_source(atomics[key], a.loc);
  }
  flop["atomic"] = atomics;
  fd.doc["flop"] = flop;
  json ops = json::object();
  for (const char *cls : {"scalar", "index", "layout"}) ops[cls] = class_json(cls);
  fd.doc["ops"] = ops;
  fd.doc["dots"] = dots;
  fd.doc["reductions"] = reductions;
}

}  // namespace perfbound::ttir
