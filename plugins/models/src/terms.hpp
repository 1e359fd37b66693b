//===- terms.hpp - the five bound terms, on the DSL and the HIVM tier -----===//
//
//   term             DSL tier (dsl_facts)        HIVM tier (hivm_program)
//   grid_floor       yes                         yes
//   component_floor  yes (cube, vector, MTE)     yes (every pipe of every core)
//   memory           yes (unique bytes, no eta)  yes (DMA bytes, eta by transfer)
//   serialization    no (the DSL has no syncs)   yes (additive)
//   issue_floor      no (issue is compiled)      yes
//
// Formulas, rates and the argument for each: docs/model.md §3.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_TERMS_HPP
#define PERFBOUND_MODELS_TERMS_HPP

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "hivm_view.hpp"
#include "rates.hpp"
#include "term.hpp"

namespace pb::models {

/// What the DSL tier proves about the bytes each kernel argument moves: per
/// (Triton position, direction) the unique bytes over the launch, a sound
/// (exact or lower) figure, strict and under the user's facts. The HIVM
/// tier's cold-cache floor counts no more of an argument's DMA bytes than
/// this (docs/model.md §3.3).
struct UniqueBytes {
  struct Figure {
    std::string key;                // the argument's name or "%argN"
    std::optional<double> strict;   // without the user's facts; nullopt: no sound figure
    std::optional<double> given;    // under the user's facts
  };
  std::map<std::pair<int, bool>, Figure> by_arg;  // (Triton position, written) -> figure
  std::string origin;
  /// Reads bytes.read.by_arg and bytes.written.by_arg of a
  /// perfbound.dsl_facts/1 document (an upper estimate is no figure).
  static UniqueBytes from_dsl(const json &dsl, const std::string &origin);
};

struct TermOptions {
  /// memory: "transfer" applies the calibrated packet efficiency at each
  /// DMA's size (argued); "none" uses the peak alone (strict).
  std::string packet_efficiency = "transfer";
  /// serialization: "head_latency" exposes vector.head_latency per
  /// pipe_barrier[PIPE_V] between vector work (argued); "none" does not.
  std::string vector_barrier_latency = "head_latency";
  /// serialization: cycles per mandatory cross-core handoff; nullopt = the
  /// calibration's mandatory_handoff_intercept (diagnostic either way).
  std::optional<double> handoff_cycles;
  /// memory: the L2's state at launch. "unknown" (default): the cold-cache
  /// HBM floor is argued (kArgumentColdCache); "cold": the measurement is
  /// known to start cold (a flush before each sample), so it is strict;
  /// "warm": it is left out (only bytes beyond the L2 must cross HBM).
  std::string cache = "unknown";
  /// issue_floor: instructions issued per cycle per core.
  double issue_per_cycle = 1.0;
  /// issue_floor: "guaranteed" counts only instructions the backend cannot
  /// remove (strict); "as_written" counts every IR op (argued).
  std::string instruction_count = "guaranteed";
  /// memory (HIVM tier): the DSL tier's unique bytes per argument, which
  /// cap each argument's bytes in the cold-cache floor; without them the
  /// floor counts no argument's DMA bytes (they may re-read data).
  std::optional<UniqueBytes> unique;
};

/// Launch schedule of blocks over cores.
struct Schedule {
  double blocks = 0;
  double slots = 0;          // blocks in flight (AIVs, or AICs for mix/cube kernels)
  double waves = 0;
  double tail = 0;           // blocks in the last wave
  double occupancy = 0;      // blocks / (waves x slots)
  bool mix = false;
  double aic_instances = 1;  // core instances per block
  double aiv_instances = 1;
  std::string slot_kind;     // "aiv" or "aic"
  [[nodiscard]] json to_json() const;
  [[nodiscard]] double instances(const std::string &core) const { return core == "aic" ? aic_instances : aiv_instances; }
};

Schedule make_schedule(double blocks, bool has_aic, bool has_aiv, double aiv_instances, const Rates &rates);
/// The schedule of a HIVM program whose block count is known.
Schedule hivm_schedule(const HivmView &view, const Rates &rates);
/// The GM read (`write` false) or write paths of one block, every core of
/// the block moving at once (docs/model.md §3.1): AIV GM <-> UB; AIC reads
/// over its MTE2 (the fastest of GM -> L1/L0A/L0B), writes L0C -> GM plus
/// L1 -> GM where the profile has it; a mix block one AIC and its AIVs.
Rate<u::BytesPerSecond> block_gm_rate(const Rates &rates, const Schedule &s, bool write);

Term grid_floor_dsl(const json &dsl, const Rates &rates, const TermOptions &options, const std::string &origin);
Term grid_floor_hivm(const HivmView &view, const Rates &rates, const TermOptions &options);
Term component_floor_dsl(const json &dsl, const Rates &rates, const TermOptions &options, const std::string &origin);
Term component_floor_hivm(const HivmView &view, const Rates &rates, const TermOptions &options);
Term memory_dsl(const json &dsl, const Rates &rates, const TermOptions &options, const std::string &origin);
Term memory_hivm(const HivmView &view, const Rates &rates, const TermOptions &options);
Term serialization_hivm(const HivmView &view, const Rates &rates, const TermOptions &options);
Term issue_floor_hivm(const HivmView &view, const Rates &rates, const TermOptions &options);

/// The argued rates' arguments, in one place (also printed in docs/model.md).
extern const char *const kArgumentVectorLatency;
extern const char *const kArgumentPacketEfficiency;
extern const char *const kArgumentAsWritten;
extern const char *const kArgumentIssueRate;
extern const char *const kArgumentColdCache;

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_TERMS_HPP
