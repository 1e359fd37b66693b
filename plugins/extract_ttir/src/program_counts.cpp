//===- program_counts.cpp - executions of each op in one program ----------===//
#include "program_counts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfbound::ttir {

using pb::sdk::InputError;

KernelStructure kernel_structure(const KernelModel &k, bool through_loads) {
  KernelStructure s;
  const ExprPool &pool = *k.pool;
  size_t nl = k.loops.size();
  s.child_loops.assign(nl + 1, {});
  s.loop_accesses.assign(nl + 1, {});
  s.loop_ops.assign(nl + 1, {});
  for (const Loop &l : k.loops) s.child_loops[static_cast<size_t>(l.parent + 1)].push_back(l.id);
  for (const Access &a : k.accesses) s.loop_accesses[static_cast<size_t>(a.loop + 1)].push_back(a.id);
  for (size_t idx = 0; idx < k.ops.size(); ++idx) s.loop_ops[static_cast<size_t>(k.ops[idx].loop + 1)].push_back(static_cast<int>(idx));
  // A loop is iterated one counter value at a time when something nested in
  // it (a loop bound or a condition) uses its counter.
  auto ancestors = [&](int loop) {
    std::vector<int> chain;
    for (int l = loop; l >= 0; l = k.loops[static_cast<size_t>(l)].parent) chain.push_back(l);
    return chain;
  };
  s.needs_iteration.assign(nl, false);
  // With given data (through_loads), a loaded value depends on what its index
  // depends on.
  auto uses_counter_of = [&](ExprId e, int loop_id) {
    ExprId it = const_cast<ExprPool &>(pool).loop_iter(loop_id);
    return e != kNoExpr && pool.contains(e, it, through_loads);
  };
  for (const Loop &inner : k.loops)
    for (int anc : ancestors(inner.parent))
      for (ExprId e : {inner.lb, inner.ub, inner.step, inner.cond, inner.trip})
        if (uses_counter_of(e, anc)) s.needs_iteration[static_cast<size_t>(anc)] = true;
  s.access_chain.assign(k.accesses.size(), {});
  s.cond_uses_loops.assign(k.accesses.size(), false);
  for (const Access &a : k.accesses) {
    std::vector<int> chain = ancestors(a.loop);
    for (int anc : chain)
      if (uses_counter_of(a.cond, anc)) {
        s.needs_iteration[static_cast<size_t>(anc)] = true;
        s.cond_uses_loops[static_cast<size_t>(a.id)] = true;
      }
    std::reverse(chain.begin(), chain.end());
    s.access_chain[static_cast<size_t>(a.id)] = chain;
  }
  for (const ComputeOp &op : k.ops)
    for (int anc : ancestors(op.loop))
      if (uses_counter_of(op.cond, anc)) s.needs_iteration[static_cast<size_t>(anc)] = true;
  // Per-program work is the same everywhere unless a loop bound or a
  // condition reads a program id.
  auto reads_pid = [&](ExprId e) {
    return e != kNoExpr &&
           pool.contains_if(e, [](const ExprNode &n, ExprId) { return n.op == ExprOp::Pid; }, through_loads);
  };
  for (const Loop &l : k.loops)
    for (ExprId e : {l.lb, l.ub, l.step, l.cond, l.trip})
      if (reads_pid(e)) s.uniform = false;
  for (const Access &a : k.accesses)
    if (reads_pid(a.cond)) s.uniform = false;
  for (const ComputeOp &op : k.ops)
    if (reads_pid(op.cond)) s.uniform = false;
  return s;
}

ProgramCounter::ProgramCounter(const KernelModel &k, const KernelStructure &s, Evaluator &ev, EvalEnv &env,
                               const LaunchValues &launch, const GivenFacts *facts, std::string origin)
    : ProgramPass(k, s, ev, env), launch_(launch), facts_(facts), origin_(std::move(origin)) {
  access_note.assign(k.accesses.size(), "");
  op_note.assign(k.ops.size(), "");
}

ProgramCounts ProgramCounter::count_program(std::int64_t p) {
  const size_t na = k_.accesses.size();
  const size_t no = k_.ops.size();
  const size_t nl = k_.loops.size();
  set_program(p);
  ProgramCounts pc;
  pc.access.assign(na, 0);
  pc.op.assign(no, 0);
  pc.access_unknown.assign(na, false);
  pc.op_unknown.assign(no, false);
  pc.loop_exec.assign(nl, 0);
  pc.loop_entries.assign(nl, 0);
  pc.trip_min.assign(nl, std::numeric_limits<std::int64_t>::max());
  pc.trip_max.assign(nl, 0);
  pc.loop_unknown.assign(nl, false);
  pc.loop_given.assign(nl, false);
  count(-1, 1.0, pc);
  return pc;
}

std::string ProgramCounter::blame_text(ExprId blame) const {
  if (blame == kNoExpr) return "it cannot be evaluated";
  const ExprNode &n = pool_.node(blame);
  switch (n.op) {
    case ExprOp::Arg:
      return "the launch value of argument '" + namer_.arg(static_cast<int>(n.value)) + "' is not given";
    case ExprOp::Opaque: {
      const OpaqueInfo &info = pool_.opaque_info(blame);
      return "it depends on " + info.reason + (info.line > 0 ? " (line " + std::to_string(info.line) + ")" : "");
    }
    case ExprOp::LoopIter: return "it changes with the counter of an enclosing loop";
    case ExprOp::Placeholder: return "it depends on a loop-carried value that is not an induction variable";
    case ExprOp::Dim: return "it varies inside the tile";
    default: return "it cannot be evaluated (a division by zero, or " + std::string(kTooDeepReason) + ")";
  }
}

void ProgramCounter::set_program(std::int64_t p) {
  env_.pid[0] = p % launch_.grid[0];
  env_.pid[1] = (p / launch_.grid[0]) % launch_.grid[1];
  env_.pid[2] = p / (launch_.grid[0] * launch_.grid[1]);
}

void ProgramCounter::walk_iterations(int l, std::int64_t t, double w, ProgramCounts &pc) {
  iterations_left_ -= t;
  for (std::int64_t it = 0; it < t; ++it) {
    env_.loop_iters[static_cast<size_t>(l)] = it;
    count(l, w, pc);
  }
  env_.loop_iters[static_cast<size_t>(l)].reset();
}

void ProgramCounter::check_fact(const TripFact &fact, std::int64_t t, double w) const {
  auto refuse = [&](const std::string &what) {
    std::string program = "program (" + std::to_string(env_.pid[0]) + ", " + std::to_string(env_.pid[1]) + ", " +
                          std::to_string(env_.pid[2]) + ")";
    throw InputError(origin_ + ":" + std::to_string(fact.line) + ": launch." + fact.key + ": " + what +
                     ", but the loop at this line runs " + std::to_string(t) + " times in " + program +
                     " (derived from the IR and the launch)");
  };
  if (fact.min && *fact.min > t) refuse("min = " + std::to_string(*fact.min));
  if (fact.max && *fact.max < t) refuse("max = " + std::to_string(*fact.max));
  if (fact.sum && !fact.grid && w == 1 && *fact.sum != t) refuse("sum = " + std::to_string(*fact.sum) + " per block");
}

void ProgramCounter::mark_unknown(int loop, ProgramCounts &pc) {
  pc.loop_unknown[static_cast<size_t>(loop)] = true;
  for (int a : s_.loop_accesses[static_cast<size_t>(loop + 1)]) pc.access_unknown[static_cast<size_t>(a)] = true;
  for (int o : s_.loop_ops[static_cast<size_t>(loop + 1)]) pc.op_unknown[static_cast<size_t>(o)] = true;
  for (int child : s_.child_loops[static_cast<size_t>(loop + 1)]) mark_unknown(child, pc);
}

void ProgramCounter::count(int parent, double weight, ProgramCounts &pc) {
  auto cond_factor = [&](ExprId cond, const std::string &what, const SourceLoc &loc, std::string &note) -> double {
    if (cond == kNoExpr) return 1;
    EvalResult r = ev_.eval(cond, env_);
    if (r.value) return *r.value != 0 ? 1 : 0;
    if (note.empty()) {
      note = "counted as always executed: its condition cannot be decided because " + blame_text(r.blame);
      // One entry per condition (an early return guards every op after it).
      if (reported_conds_.insert(cond).second)
        add_unresolved(unresolved_at("condition guarding the " + what + " at line " + std::to_string(loc.line) +
                                         " and what follows it",
                                     note, loc));
    }
    return 1;
  };
  for (int a : s_.loop_accesses[static_cast<size_t>(parent + 1)]) {
    const Access &acc = k_.accesses[static_cast<size_t>(a)];
    pc.access[static_cast<size_t>(a)] += weight * cond_factor(acc.cond, acc.op, acc.loc, access_note[static_cast<size_t>(a)]);
  }
  for (int o : s_.loop_ops[static_cast<size_t>(parent + 1)]) {
    const ComputeOp &op = k_.ops[static_cast<size_t>(o)];
    pc.op[static_cast<size_t>(o)] += weight * cond_factor(op.cond, op.op, op.loc, op_note[static_cast<size_t>(o)]);
  }
  for (int l : s_.child_loops[static_cast<size_t>(parent + 1)]) {
    const Loop &loop = k_.loops[static_cast<size_t>(l)];
    if (pc.loop_unknown[static_cast<size_t>(l)]) continue;
    double w = weight;
    if (loop.cond != kNoExpr) {
      EvalResult c = ev_.eval(loop.cond, env_);
      if (c.value && *c.value == 0) continue;
    }
    const TripFact *fact = nullptr;
    if (facts_ != nullptr) {
      auto f = facts_->trips.find(loop.loc.ttir_line);
      if (f != facts_->trips.end()) fact = &f->second;
    }
    // The before region of an scf.while runs once more than its body; facts
    // count the body.
    const std::int64_t extra = loop.region == WhileRegion::Before ? 1 : 0;
    EvalResult trip;
    if (loop.trip != kNoExpr) trip = ev_.eval(loop.trip, env_);
    if (trip.value && fact != nullptr) check_fact(*fact, std::max<std::int64_t>(0, *trip.value) - extra, w);
    double given_trip = -1;
    if (!trip.value && fact != nullptr) {
      if (fact->sum && w == 1) {
        given_trip = static_cast<double>(*fact->sum) / (fact->grid ? static_cast<double>(launch_.programs) : 1.0);
      } else if (fact->min) {
        given_trip = static_cast<double>(*fact->min);
      }
      if (given_trip >= 0 && s_.needs_iteration[static_cast<size_t>(l)] && given_trip != std::floor(given_trip))
        given_trip = -1;  // a grid mean cannot be walked iteration by iteration
      if (given_trip >= 0) given_trip += static_cast<double>(extra);
    }
    if (!trip.value && given_trip < 0) {
      if (loop.trip != kNoExpr)
        add_unresolved(unresolved_at("trip count of the loop at line " + std::to_string(loop.loc.line),
                                     "not evaluated: " + blame_text(trip.blame), loop.loc, trips_hint(loop.loc)));
      mark_unknown(l, pc);
      continue;
    }
    if (given_trip >= 0) {
      facts_used.insert(fact->key);
      pc.loop_given[static_cast<size_t>(l)] = true;
      const auto floor_trip = static_cast<std::int64_t>(std::floor(given_trip));
      pc.trip_min[static_cast<size_t>(l)] = std::min(pc.trip_min[static_cast<size_t>(l)], floor_trip);
      pc.trip_max[static_cast<size_t>(l)] =
          std::max(pc.trip_max[static_cast<size_t>(l)], static_cast<std::int64_t>(std::ceil(given_trip)));
      pc.loop_exec[static_cast<size_t>(l)] += w * given_trip;
      pc.loop_entries[static_cast<size_t>(l)] += w;
      if (given_trip == 0) continue;
      if (s_.needs_iteration[static_cast<size_t>(l)]) {
        if (iterations_left_ < floor_trip) {
          mark_unknown(l, pc);
          continue;
        }
        walk_iterations(l, floor_trip, w, pc);
      } else {
        count(l, w * given_trip, pc);
      }
      continue;
    }
    std::int64_t t = std::max<std::int64_t>(0, *trip.value);
    pc.trip_min[static_cast<size_t>(l)] = std::min(pc.trip_min[static_cast<size_t>(l)], t);
    pc.trip_max[static_cast<size_t>(l)] = std::max(pc.trip_max[static_cast<size_t>(l)], t);
    pc.loop_exec[static_cast<size_t>(l)] += w * static_cast<double>(t);
    pc.loop_entries[static_cast<size_t>(l)] += w;
    if (t == 0) continue;
    if (s_.needs_iteration[static_cast<size_t>(l)]) {
      if (iterations_left_ < t) {
        add_unresolved(unresolved_at("iterations of the loop at line " + std::to_string(loop.loc.line),
                                     "the loop must be walked iteration by iteration and exceeds the evaluation budget",
                                     loop.loc));
        mark_unknown(l, pc);
        continue;
      }
      walk_iterations(l, t, w, pc);
    } else {
      count(l, w * static_cast<double>(t), pc);
    }
  }
}

}  // namespace perfbound::ttir
