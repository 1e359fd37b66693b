//===- evaluation.cpp - one kernel evaluated for one launch ---------------===//
#include "evaluation.hpp"

#include <cmath>

namespace perfbound::ttir {

namespace {

EvalEnv launch_env(const KernelModel &k, const LaunchValues &launch, const GivenFacts *facts) {
  EvalEnv env;
  env.args = &launch.ints;
  if (facts != nullptr && !facts->data.empty()) env.data = &facts->data;
  for (int axis = 0; axis < 3; ++axis) env.num_programs[axis] = launch.grid[axis];
  env.loop_iters.assign(k.loops.size(), std::nullopt);
  return env;
}

}  // namespace

Evaluation::Evaluation(const KernelModel &k, const LaunchValues &launch, const FactsOptions &options,
                       const GivenFacts *facts, std::string origin)
    : k_(k), launch_(launch), options_(options), ev_(*k.pool), env_(launch_env(k, launch, facts)),
      structure_(kernel_structure(k, env_.data != nullptr)),
      counter_(k, structure_, ev_, env_, launch, facts, std::move(origin)),
      unique_(k, structure_, ev_, env_, options) {
  uniform = structure_.uniform;
}

void Evaluation::run() {
  const size_t na = k_.accesses.size();
  const size_t no = k_.ops.size();
  const size_t nl = k_.loops.size();
  access_exec.assign(na, {});
  op_exec.assign(no, {});
  loop_exec.assign(nl, {});
  loop_trip.assign(nl, {});

  const std::int64_t programs = launch_.programs;
  const std::int64_t enumerable = std::min<std::int64_t>(programs, options_.program_budget);
  if (!uniform && programs > options_.program_budget) {
    counts_known = false;
    counts_why = "per-program work depends on the program id and the grid has " + std::to_string(programs) +
                 " programs, more than the evaluation budget of " + std::to_string(options_.program_budget);
  }
  bool footprint_on = true;
  for (std::int64_t p = 0; p < enumerable; ++p) {
    ProgramCounts pc = counter_.count_program(p);
    const bool record = !uniform || p == 0;
    const double w = uniform ? static_cast<double>(programs) : 1.0;
    if (record && counts_known) {
      double bytes = 0;
      double flop = 0;
      bool work_known = true;
      std::array<double, 3> dir_bytes = {0, 0, 0};
      std::array<bool, 3> dir_known = {true, true, true};
      std::array<std::string, 3> dir_inexact;
      for (size_t a = 0; a < na; ++a) {
        const Access &acc = k_.accesses[a];
        auto dir = static_cast<size_t>(direction_of(acc));
        if (pc.access_unknown[a]) {
          access_exec[a].fail("it sits in a loop whose trip count is not known");
          dir_known[dir] = false;
          work_known = false;
          continue;
        }
        access_exec[a].add(pc.access[a], w);
        if (!counter_.access_note[a].empty()) {
          access_exec[a].inexact("upper", counter_.access_note[a]);
          if (dir_inexact[dir].empty()) dir_inexact[dir] = "the " + acc.op + " at line " + std::to_string(acc.loc.line) + " is " + counter_.access_note[a];
        }
        double b = pc.access[a] * static_cast<double>(acc.bytes());
        bytes += b;
        dir_bytes[dir] += b;
      }
      for (size_t dir = 0; dir < 3; ++dir) {
        if (!dir_known[dir]) {
          dir_requested[dir].fail("an access sits in a loop whose trip count is not known");
          continue;
        }
        dir_requested[dir].add(dir_bytes[dir], w);
        if (!dir_inexact[dir].empty()) dir_requested[dir].inexact("upper", dir_inexact[dir]);
      }
      std::map<std::pair<std::string, std::string>, double> key_sum;
      std::map<std::pair<std::string, std::string>, std::string> key_fail, key_inexact;
      for (size_t o = 0; o < no; ++o) {
        const ComputeOp &op = k_.ops[o];
        bool counts_ops = op.cls == OpClass::Scalar || op.cls == OpClass::Index || op.cls == OpClass::Layout;
        auto key = std::make_pair(op_class_name(op.cls), op.cls == OpClass::Cube ? cube_unit(op) : op.dtype);
        key_sum[key] += 0;
        if (pc.op_unknown[o]) {
          op_exec[o].fail("it sits in a loop whose trip count is not known");
          key_fail[key] = op.op + " at line " + std::to_string(op.loc.line) + " sits in a loop whose trip count is not known";
          if (!counts_ops) work_known = false;
          continue;
        }
        op_exec[o].add(pc.op[o], w);
        if (!counter_.op_note[o].empty()) {
          op_exec[o].inexact("upper", counter_.op_note[o]);
          key_inexact[key] = op.op + " at line " + std::to_string(op.loc.line) + " is " + counter_.op_note[o];
        }
        double per = counts_ops ? static_cast<double>(op.elements) : op.flop;
        key_sum[key] += pc.op[o] * per;
        if (!counts_ops) flop += pc.op[o] * op.flop;
      }
      for (const auto &[key, sum] : key_sum) {
        Dist &d = class_work[key];
        auto f = key_fail.find(key);
        if (f != key_fail.end()) {
          d.fail(f->second);
          continue;
        }
        d.add(sum, w);
        auto in = key_inexact.find(key);
        if (in != key_inexact.end()) d.inexact("upper", in->second);
      }
      for (size_t l = 0; l < nl; ++l) {
        if (pc.loop_unknown[l]) {
          loop_exec[l].fail("the trip count is not known");
          loop_trip[l].fail("the trip count is not known");
          continue;
        }
        loop_exec[l].add(pc.loop_exec[l], w);
        if (pc.loop_entries[l] > 0) {
          Dist &t = loop_trip[l];
          t.min = std::min(t.min, static_cast<double>(pc.trip_min[l]));
          t.max = std::max(t.max, static_cast<double>(pc.trip_max[l]));
          t.sum += pc.loop_exec[l] * w;
          t.weight += pc.loop_entries[l] * w;
        }
      }
      if (!uniform) {
        program_bytes.push_back(work_known ? bytes : std::nan(""));
        program_flop.push_back(work_known ? flop : std::nan(""));
      }
    }
    ++programs_evaluated;
    if (footprint_on) {
      unique_.add_program(pc, counter_.access_note, p);
      if (unique_.budget_hit) footprint_on = false;
    }
    if (uniform && !footprint_on) break;
  }
  unique_.finish(programs_evaluated, programs);
  if (!counts_known) {
    for (Dist &d : access_exec) d.fail(counts_why);
    for (Dist &d : op_exec) d.fail(counts_why);
    for (Dist &d : loop_exec) d.fail(counts_why);
    for (Dist &d : loop_trip) d.fail(counts_why);
    for (Dist &d : dir_requested) d.fail(counts_why);
    for (const ComputeOp &op : k_.ops)
      class_work[{op_class_name(op.cls), op.cls == OpClass::Cube ? cube_unit(op) : op.dtype}].fail(counts_why);
  }
}

}  // namespace perfbound::ttir
