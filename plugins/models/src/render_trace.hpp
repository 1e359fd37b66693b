//===- render_trace.hpp - the bound's schedule as a Chrome trace ----------===//
//
// A bound report's schedule, per core type and pipe, as the combiner sees it:
// each track (core, component) of the binding tier takes
//     max over floor terms F of T_F,c  +  sum over additive terms A of T_A,c
// (docs/model.md §4), so the busiest track's total is the bound itself when
// a component binds. render_trace() writes it in the trace-event format
// (ui.perfetto.dev, MindStudio Insight): one process per core type, one
// thread per pipe, complete ("X") slices for a representative block's
// itemised IR lines followed by the remaining waves, additive time as its own
// slice, cross-core handoffs as flow ("s"/"f") events, barriers as instants.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_RENDER_TRACE_HPP
#define PERFBOUND_MODELS_RENDER_TRACE_HPP

#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace pb::models {

/// One piece of a track's time.
struct TraceSlice {
  std::string name;
  double seconds = 0;
  pb::sdk::json args = pb::sdk::json::object();
};

/// The busy time of one component of one core type (core "chip" for
/// chip-level terms such as memory) on the busiest slot.
struct TraceTrack {
  std::string core;       // "aic", "aiv" or "chip"
  std::string component;  // msprof vocabulary: scalar, vector, cube, mte1, mte2, mte3, fixpipe, hbm
  double floor = 0;       // the largest floor term on it
  std::string floor_term;
  double additive = 0;    // additive terms added on it
  std::vector<TraceSlice> slices;  // sum to total()
  [[nodiscard]] double total() const { return floor + additive; }
};

struct BoundSchedule {
  std::string tier;  // the bound's tier ("hivm" or "dsl"); empty without a bound
  double waves = 1, blocks = 0, slots = 0;
  std::string slot_kind;
  std::vector<TraceTrack> tracks;  // busiest first
  pb::sdk::json edges = pb::sdk::json::array();     // cross-core handoffs {producer, consumer, lines, ...}
  pb::sdk::json barriers = pb::sdk::json::array();  // {core, component, lines, per_block}
};

/// The per-component schedule of the bound's tier of a bound report.
BoundSchedule bound_schedule(const pb::sdk::json &report);

/// The trace-event JSON ({"traceEvents": [...], ...}) of a bound report.
pb::sdk::json render_trace(const pb::sdk::json &report);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_RENDER_TRACE_HPP
