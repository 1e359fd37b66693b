//===- program_counts.hpp - executions of each op in one program ----------===//
//
// Pass 1 of the evaluation: for one program of the launch, how often each
// access, compute op and loop body runs. Trip counts are the loops' symbolic
// trip counts evaluated with the launch values and the program id (per entry
// of the loop, so triangular loops are exact); where a nested bound or
// condition reads a loop counter the loop is walked one counter value at a
// time. A trips fact stands in for a trip count the IR does not decide and
// is refused where the IR contradicts it. Conditions that cannot be decided
// count as executed (an upper bound, with a note).
// From: the KernelModel, the LaunchValues and the GivenFacts.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_PROGRAM_COUNTS_HPP
#define PERFBOUND_EXTRACT_TTIR_PROGRAM_COUNTS_HPP

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "given_facts.hpp"
#include "launch_values.hpp"

namespace perfbound::ttir {

/// How the records of a kernel nest, and what the per-program walk must
/// iterate. From the KernelModel alone.
struct KernelStructure {
  std::vector<std::vector<int>> child_loops;    // by parent + 1
  std::vector<std::vector<int>> loop_accesses;  // by loop + 1
  std::vector<std::vector<int>> loop_ops;       // by loop + 1
  std::vector<bool> needs_iteration;            // a nested bound or condition reads the loop's counter
  std::vector<std::vector<int>> access_chain;   // loops outermost first
  std::vector<bool> cond_uses_loops;            // access cond depends on a loop counter
  /// Per-program work is the same everywhere: no loop bound or condition reads a program id.
  bool uniform = true;
};

/// `through_loads`: given data makes a loaded value depend on its index.
KernelStructure kernel_structure(const KernelModel &k, bool through_loads);

/// What one program does (pass 1 results for one program).
struct ProgramCounts {
  std::vector<double> access;  // executions per access
  std::vector<double> op;      // executions per op
  std::vector<bool> access_unknown, op_unknown;
  std::vector<double> loop_exec;  // body executions per loop
  std::vector<double> loop_entries;  // times the loop is entered
  std::vector<std::int64_t> trip_min, trip_max;
  std::vector<bool> loop_unknown;
  std::vector<bool> loop_given;  // the trip count came from a trips fact
};

/// What both passes over a program read (ProgramCounter, UniqueBytes): the
/// kernel, its structure, and the evaluator with the environment of the
/// program being evaluated (shared with the Evaluation that runs them).
class ProgramPass {
 protected:
  ProgramPass(const KernelModel &k, const KernelStructure &s, Evaluator &ev, EvalEnv &env)
      : k_(k), s_(s), pool_(*k.pool), namer_(k.namer()), ev_(ev), env_(env) {}

  const KernelModel &k_;
  const KernelStructure &s_;
  const ExprPool &pool_;
  ExprNamer namer_;
  Evaluator &ev_;
  EvalEnv &env_;
};

/// Counts what each program executes (see the file comment).
class ProgramCounter : public ProgramPass {
 public:
  ProgramCounter(const KernelModel &k, const KernelStructure &s, Evaluator &ev, EvalEnv &env,
                 const LaunchValues &launch, const GivenFacts *facts, std::string origin);

  /// What program `p` (p = x + gx*(y + gy*z)) executes; sets env's program id.
  ProgramCounts count_program(std::int64_t p);
  /// Why an expression cannot be evaluated, for the user.
  [[nodiscard]] std::string blame_text(ExprId blame) const;

  std::vector<std::string> access_note, op_note;  // why an access/op count is an estimate
  std::vector<Unresolved> unresolved;
  std::set<std::string> facts_used;  // given facts that changed a count

 private:
  void set_program(std::int64_t p);
  void count(int parent, double weight, ProgramCounts &pc);
  void mark_unknown(int loop, ProgramCounts &pc);
  void walk_iterations(int l, std::int64_t t, double w, ProgramCounts &pc);
  /// Refuses a trips fact the IR contradicts (the loop provably runs `t` times).
  void check_fact(const TripFact &fact, std::int64_t t, double w) const;
  void add_unresolved(Unresolved entry) {
    for (const Unresolved &u : unresolved)
      if (u.what == entry.what && u.reason == entry.reason) return;
    unresolved.push_back(std::move(entry));
  }

  const LaunchValues &launch_;
  const GivenFacts *facts_;
  std::string origin_;
  std::set<ExprId> reported_conds_;
  std::int64_t iterations_left_ = 50'000'000;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_PROGRAM_COUNTS_HPP
