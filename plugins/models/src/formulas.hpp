//===- formulas.hpp - the model's formulas over typed quantities ----------===//
//
// Every formula of the bound model (docs/model.md) written once, over the
// unit types of <perfbound/sdk/units.hpp>. A term computes its value only
// through these functions, so feeding a term FLOP where it expects bytes,
// or a byte count with a FLOP rate, does not compile
// (tests/models/units_misuse.cpp proves each such mix fails).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_FORMULAS_HPP
#define PERFBOUND_MODELS_FORMULAS_HPP

#include <cmath>
#include <type_traits>

#include <perfbound/sdk/units.hpp>

namespace pb::models {

namespace u = pb::units;

/// Instructions issued per cycle: a dimensionless rate (instructions are
/// counts), kept as its own type so a count is never passed as a rate.
struct IssueRate {
  double per_cycle = 1.0;
};

/// T = work / rate for a work and a rate whose quotient is a time:
/// bytes with B/s, FLOP with FLOP/s, repeats with repeat/s, cycles with Hz.
template <class Work, class Rate>
constexpr u::Seconds time_at(Work work, Rate rate) {
  static_assert(std::is_same_v<decltype(work / rate), u::Seconds>,
                "perfbound models: this work and this rate do not give a time (bytes need B/s, FLOP need FLOP/s, "
                "repeats need repeat/s, cycles need Hz)");
  return work / rate;
}

/// A per-cycle width at a clock: B/cycle x Hz -> B/s, FLOP/cycle x Hz ->
/// FLOP/s, repeat/cycle x Hz -> repeat/s.
template <class PerCycle>
constexpr auto per_second(PerCycle width, u::Hertz clock) {
  return width * clock;
}

/// Waves of a launch: ceil(blocks / slots) (pigeonhole: some slot runs at
/// least this many blocks, one after another).
constexpr double waves(double blocks, double slots) { return std::ceil(blocks / slots); }

/// Grid floor: total_work x redundancy / (n_cores x occupancy x load_balance
/// x i_binding). The work and the binding rate must agree (bytes with B/s,
/// FLOP with FLOP/s): anything else does not compile.
template <class Work, class Rate>
constexpr u::Seconds grid_floor(Work total_work, double redundancy, double n_cores, double occupancy,
                                double load_balance, Rate i_binding) {
  return time_at(total_work * redundancy, i_binding * (n_cores * occupancy * load_balance));
}

/// Busy time of one slot that runs `blocks_on_slot` blocks of `work_per_block`
/// each at `rate`.
template <class Work, class Rate>
constexpr u::Seconds slot_time(double blocks_on_slot, Work work_per_block, Rate rate) {
  return time_at(work_per_block * blocks_on_slot, rate);
}

/// Memory time of `bytes` crossing the memory at `bandwidth`.
inline u::Seconds memory_time(u::Bytes bytes, u::BytesPerSecond bandwidth) { return time_at(bytes, bandwidth); }

/// Occupancy-aware bandwidth: min(active x per_core, chip) x efficiency.
inline u::BytesPerSecond occupancy_bandwidth(double active_cores, u::BytesPerSecond per_core, u::BytesPerSecond chip,
                                             double efficiency) {
  u::BytesPerSecond aggregate = per_core * active_cores;
  return (aggregate < chip ? aggregate : chip) * efficiency;
}

/// Serialization: |E| handoffs of `handoff` cycles each at `clock`.
inline u::Seconds serialization_time(double edges, u::Cycles handoff, u::Hertz clock) {
  return time_at(handoff * edges, clock);
}

/// Issue time of `instructions` at `rate` instructions per cycle.
inline u::Seconds issue_time(double instructions, IssueRate rate, u::Hertz clock) {
  return time_at(u::Cycles{instructions / rate.per_cycle}, clock);
}

/// Weighted harmonic mean I_c = sum O_p / sum (O_p / P_p) of per-class
/// rates, given the total work and the time sum (O_p / P_p) it takes.
template <class Work>
constexpr auto harmonic_rate(Work total_work, u::Seconds total_time) {
  return total_work / total_time;
}

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_FORMULAS_HPP
