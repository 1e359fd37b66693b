//===- measure.hpp - one case of the queued protocol, inside a worker -------===//
//
// Runs in the worker process (`perfbound bench worker`), never in the
// process that owns the journal:
//   1. inputs, then the numerical check (one call, compared with FP64);
//   2. kWarmupCalls calls back to back, then synchronize;
//   3. the ramp: call + synchronize until kRampMinMs (kFirstOpRampMinMs for a
//      worker's first case) of wall-clock time has passed;
//   4. shield; kSampleCount x {flush, start event, call, end event}; release;
//      synchronize; the elapsed time of each bracket is one sample.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_MEASURE_HPP
#define PERFBOUND_TIMING_MEASURE_HPP

#include <nlohmann/json.hpp>

#include "backend.hpp"

namespace pb::bench {

/// The GemmShape of a plan case's "op" member. Throws pb::sdk::InputError.
GemmShape shape_of_case(const json &plan_case);

/// Measures one plan case. Returns
///   {"status": "ok"|"check_failed"|"error", "reason": str|null,
///    "samples_us": [10]|null, "check": {...}|null, "timing": {...}}
/// Device failures become status "error" with the backend's message.
json measure_gemm_case(Session &session, const json &plan_case, bool first_op);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_MEASURE_HPP
