//===- critical_path.hpp - the critical_path term: the longest ordered chain ===//
//
// Per block, the longest chain of work through the orderings the ISA
// guarantees between a core's pipes (docs/model.md §3.6):
//   - each pipe runs its instructions in order (a pipe's work takes at least
//     its bytes / FLOP / repeats at the pipe's rate, one after another);
//   - `pipe_barrier[PIPE_ALL]` lets no later instruction start before every
//     earlier one of every pipe has completed;
//   - `set_flag(P, Q, e)` starts once every earlier instruction of pipe P has
//     completed, and `wait_flag(P, Q, e)` holds pipe Q's later instructions
//     until that flag is set.
// Where a block's pipes are serialized by barriers or by flags that wait on
// each other across loop iterations, that chain is longer than the busiest
// pipe, with the same throughput rates (strict). Loops are summarized, never
// expanded: a loop whose body holds a PIPE_ALL barrier is a sum of the
// segments between its barriers; any other loop is bounded by its busiest
// pipe and by its cycles of flags that carry from one iteration to the next.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_CRITICAL_PATH_HPP
#define PERFBOUND_MODELS_CRITICAL_PATH_HPP

#include <string>
#include <string_view>

#include "rates.hpp"
#include "term.hpp"

namespace pb::models {

struct CriticalPathOptions {
  /// "calibrated": add the per-event latencies the profile's calibration
  /// holds (argued, docs/model.md §3.6); "none": throughput only (strict).
  std::string latency = "calibrated";
  /// Instructions the scalar unit issues per cycle: the scalar pipe's
  /// guaranteed instructions enter the chain at this rate (argued, §3.5).
  double issue_per_cycle = 1.0;
};

/// The term from a perfbound.hivm_program/1 document (the ordering of the
/// ops is in the program, not in the aggregated hivm_work). Throws
/// pb::sdk::InputError naming `origin` when the program is malformed.
Term critical_path_hivm(const json &program, const std::string &origin, const json &profile, const Rates &rates,
                        const CriticalPathOptions &options);

/// The same from the program's JSON text, streamed: the op records are
/// never held as a DOM (what the node runs).
Term critical_path_hivm_text(std::string_view text, const std::string &origin, const json &profile, const Rates &rates,
                             const CriticalPathOptions &options);

/// The latency calibration constants the term reads (cycles each), in the
/// order the report lists the unknown ones.
inline constexpr int kLatencyConstantCount = 2;
extern const char *const kLatencyConstants[kLatencyConstantCount];
extern const char *const kArgumentLatency;

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_CRITICAL_PATH_HPP
