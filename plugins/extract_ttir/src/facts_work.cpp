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

namespace {

/// Sorted, disjoint intervals.
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.lo < b.lo; });
  std::vector<Interval> out;
  for (const Interval &iv : v) {
    if (iv.hi <= iv.lo) continue;
    if (!out.empty() && iv.lo <= out.back().hi) out.back().hi = std::max(out.back().hi, iv.hi);
    else out.push_back(iv);
  }
  return out;
}

/// Bytes of `a` outside `b` (both sorted and disjoint).
double bytes_outside(const std::vector<Interval> &a, const std::vector<Interval> &b) {
  double total = 0;
  size_t j = 0;
  for (const Interval &iv : a) {
    std::int64_t at = iv.lo;
    while (j < b.size() && b[j].hi <= at) ++j;
    for (size_t k = j; k < b.size() && b[k].lo < iv.hi && at < iv.hi; ++k) {
      if (b[k].lo > at) total += static_cast<double>(b[k].lo - at);
      at = std::max(at, b[k].hi);
    }
    if (at < iv.hi) total += static_cast<double>(iv.hi - at);
  }
  return total;
}

/// What an argument's unique bytes in one direction contribute to the
/// direction's forced traffic (review item 9 of issue 23).
struct Credit {
  double total = 0;   // bytes of the argument's own that no earlier argument of its space and, for reads, no write covers
  std::string why;    // non-empty when the credit is below the argument's union
};

/// Arguments with a pointer value in the launch share one address space at
/// those addresses; the others each have their own. In each space and
/// direction, arguments in index order are credited only the bytes no earlier
/// one touched (a union, not a sum, when pointer values overlap), and reads
/// only the bytes the kernel never writes or updates atomically in that space
/// (a read of the kernel's own write may be served on chip or by the L2).
/// Every program's own union is at least its share of the launch's, so the
/// credit also bounds the sum over programs. A subtracted set that is not
/// complete (a lower bound of the bytes) could hide overlap: then nothing is
/// credited.
std::map<std::pair<int, int>, Credit> credits(const KernelModel &k, const LaunchValues &lv, const UniqueBytes &ub) {
  auto space_of = [&](int arg) { return lv.pointers[static_cast<size_t>(arg)] ? -1 : arg; };
  auto shift_of = [&](int arg) { return lv.pointers[static_cast<size_t>(arg)].value_or(0); };
  auto shifted = [&](int arg, const std::vector<Interval> &v) {
    std::vector<Interval> out;
    out.reserve(v.size());
    const std::int64_t d = shift_of(arg);
    for (const Interval &iv : v) out.push_back({iv.lo + d, iv.hi + d});
    return merged(std::move(out));
  };
  // Writes and atomic updates per space, and whether each is complete.
  std::map<int, std::vector<Interval>> stored;
  std::map<int, bool> stored_complete;
  for (const auto &[key, u] : ub.unions) {
    // An empty set that is not complete still counts: its bytes are unknown, not absent.
    if (key.second == 0 || (u.global.empty() && u.complete)) continue;
    std::vector<Interval> &w = stored[space_of(key.first)];
    std::vector<Interval> add = shifted(key.first, u.global);
    w.insert(w.end(), add.begin(), add.end());
    auto [it, fresh] = stored_complete.emplace(space_of(key.first), u.complete);
    if (!fresh) it->second = it->second && u.complete;
  }
  for (auto &[space, w] : stored) w = merged(std::move(w));
  std::map<std::pair<int, int>, Credit> out;
  std::map<std::pair<int, int>, std::vector<Interval>> seen;  // (space, direction): bytes credited so far
  std::map<std::pair<int, int>, bool> seen_complete;
  std::map<std::pair<int, int>, std::string> seen_by;
  for (const auto &[key, u] : ub.unions) {  // ordered by argument, then direction
    const int arg = key.first, dir = key.second, space = space_of(arg);
    Credit c;
    std::vector<Interval> mine = shifted(arg, u.global);
    double own = 0;
    for (const Interval &iv : mine) own += static_cast<double>(iv.hi - iv.lo);
    c.total = own;
    std::vector<Interval> &before = seen[{space, dir}];
    const bool before_complete = seen_complete.count({space, dir}) == 0 || seen_complete[{space, dir}];
    std::vector<Interval> minus = before;
    std::string with;
    const bool after_another = !before.empty() || !before_complete;
    if (after_another) with = "bytes of " + seen_by[{space, dir}] + " at the same addresses (pointer values in the launch)";
    bool complete = before_complete;
    bool may_overlap = after_another;
    if (dir == 0 && stored.count(space) != 0) {
      may_overlap = true;
      minus.insert(minus.end(), stored[space].begin(), stored[space].end());
      minus = merged(std::move(minus));
      complete = complete && stored_complete[space];
      with += std::string(with.empty() ? "" : " and ") + "bytes the kernel writes to " +
              (space < 0 ? "the same addresses" : k.args[static_cast<size_t>(arg)].key()) +
              " (a read of its own write need not reach the HBM)";
    }
    if (may_overlap && own > 0) {
      const double outside = bytes_outside(mine, minus);
      if (!complete) {
        c.total = 0;
        c.why = "none counted: it may overlap " + with + ", which is not enumerated completely";
      } else if (outside < own) {
        c.total = outside;
        c.why = "not counted: " + with;
      }
    }
    before.insert(before.end(), mine.begin(), mine.end());
    before = merged(std::move(before));
    seen_complete[{space, dir}] = before_complete && u.complete;
    if (seen_by[{space, dir}].empty()) seen_by[{space, dir}] = k.args[static_cast<size_t>(arg)].key();
    out[key] = std::move(c);
  }
  return out;
}

}  // namespace

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
  const std::map<std::pair<int, int>, Credit> credit = credits(k, lv, ev.unique());
  int pointers_accessed = 0, pointers_placed = 0;
  for (const KernelArg &a : k.args) {
    if (a.kind != ArgKind::Pointer) continue;
    const bool accessed = std::any_of(ev.unique().unions.begin(), ev.unique().unions.end(),
                                      [&](const auto &e) { return e.first.first == a.index && !e.second.global.empty(); });
    if (!accessed) continue;
    ++pointers_accessed;
    if (lv.pointers[static_cast<size_t>(a.index)]) ++pointers_placed;
  }
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
      std::vector<Interval> footprint = u.global;
      double g = union_bytes(footprint);
      json a_j;
      a_j["arg"] = key.first;
      a_j["arg_key"] = k.args[static_cast<size_t>(key.first)].key();
      Dist pp_u = u.per_program;
      double pp_sum = u.per_program.sum;
      Qty q = u.complete ? Qty::of(g) : Qty::estimate(g, "lower", u.incomplete_why);
      if (auto c = credit.find(key); c != credit.end() && !c->second.why.empty()) {
        // Shared with another argument or read after the kernel's own write
        // (item 9): the credit is a lower bound of the union and of the sum of
        // the programs' own unions; no program is guaranteed any of it.
        g = c->second.total;
        q = Qty::estimate(g, "lower", c->second.why);
        pp_sum = g;
        pp_u = Dist();
        pp_u.add(0, u.per_program.weight > 0 ? u.per_program.weight : 1);
        pp_u.sum = g;
        pp_u.max = u.per_program.max;  // the largest program's own union of this argument (descriptive)
        pp_u.inexact("lower", c->second.why);
        if (!u.per_program.known) pp_u.fail(u.per_program.reason);
        a_j["credit"] = c->second.why;
        unique_exact = false;
        if (unique_why.empty()) unique_why = "argument " + k.args[static_cast<size_t>(key.first)].key() + ": " + c->second.why;
      }
      a_j["unique_total"] = q.to_json();
      if (!u.complete) pp_u.inexact("lower", u.incomplete_why);
      a_j["unique_per_program"] = pp_u.to_json();
      by_arg.push_back(a_j);
      *unique_total.value += g;
      unique_pp_sum += pp_sum;
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
  if (pointers_accessed > 1 && pointers_placed < pointers_accessed)
    bytes["assumes"] = "pointer arguments without an address in launch.args (" + std::to_string(pointers_accessed - pointers_placed) +
                       " of " + std::to_string(pointers_accessed) +
                       ") do not overlap one another's bytes: unique bytes are summed over them; give every pointer "
                       "argument's address in launch.args to count overlap";
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
