//===- evaluation.hpp - one kernel evaluated for one launch ---------------===//
//
// The driver of the two evaluation passes over the programs of a launch
// (program p = x + gx*(y + gy*z)): ProgramCounter (how often each access,
// op and loop body runs) and UniqueBytes (the bytes each pointer argument's
// accesses touch). It sums the per-program counts into distributions over
// the programs: executions of each access / op / loop, requested bytes by
// direction, work by unit class and dtype, and the per-program bytes and
// FLOP the schedule balances. When no bound and no condition reads a
// program id one program stands for all; otherwise every program is
// evaluated up to FactsOptions::program_budget.
// From: the KernelModel, LaunchValues, FactsOptions and GivenFacts.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_EVALUATION_HPP
#define PERFBOUND_EXTRACT_TTIR_EVALUATION_HPP

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "program_counts.hpp"
#include "unique_bytes.hpp"

namespace perfbound::ttir {

class Evaluation {
 public:
  Evaluation(const KernelModel &k, const LaunchValues &launch, const FactsOptions &options,
             const GivenFacts *facts = nullptr, std::string origin = "");

  void run();

  // Results, read by the document builder.
  std::vector<Dist> access_exec, op_exec, loop_exec, loop_trip;
  std::vector<double> program_bytes, program_flop;  // per enumerated program (non-uniform case)
  std::array<Dist, 3> dir_requested;                // per-program requested bytes by direction
  std::map<std::pair<std::string, std::string>, Dist> class_work;  // (class, dtype) -> per-program FLOP / ops
  bool uniform = true;
  bool counts_known = true;
  std::string counts_why;
  std::int64_t programs_evaluated = 0;

  [[nodiscard]] const Evaluator &evaluator() const { return ev_; }
  [[nodiscard]] const ProgramCounter &counter() const { return counter_; }
  [[nodiscard]] UniqueBytes &unique() { return unique_; }

 private:
  const KernelModel &k_;
  const LaunchValues &launch_;
  const FactsOptions &options_;
  Evaluator ev_;
  EvalEnv env_;
  KernelStructure structure_;
  ProgramCounter counter_;
  UniqueBytes unique_;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_EVALUATION_HPP
