//===- validation.hpp - tri-state soundness, tightness, reachability ------===//
//
// Compares a bound (perfbound.bound_report/1) with a measurement
// (perfbound.measurement/1) into a perfbound.validation/1 document:
//   PASS         T_bound <= the fastest kept launch (sound);
//   FAIL         T_bound is above a measurement: by how much, and how many
//                kept launches ran faster than the bound;
//   INFRA_ERROR  no usable measurement, or no bound: excluded from the
//                soundness statistics, never counted as a pass.
// Tightness = T_measured / T_bound. The three-level reachability report puts
// T_bound_DSL, T_bound_HIVM and T_measured side by side with the compiler
// headroom (HIVM - DSL) and the author headroom (measured - HIVM), each
// number with where it came from, and checks the predicted binding
// component against the pipe msprof's time columns say dominated.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_VALIDATION_HPP
#define PERFBOUND_VALIDATE_VALIDATION_HPP

#include <optional>
#include <string>

#include <perfbound/sdk/json.hpp>

namespace perfbound::validate {

using json = pb::sdk::json;

/// Where the bound report came from (all optional): recorded as the
/// provenance of its numbers.
struct ReportOrigin {
  std::string origin;         // a path, "pipeline <file>", or "node.port"
  json run_provenance;        // perfbound.run_result/1 provenance, or null
  std::string pipeline;       // the pipeline file that produced it, or ""
};

/// The validation document. `report` may be null (no bound could be
/// computed: `no_bound_reason` says why). Throws InputError when a present
/// document lacks a member the contract requires.
json validate_bound(const json &report, const json &measurement, const ReportOrigin &origin,
                    const std::string &case_name = "", const std::string &no_bound_reason = "");

/// Whether a predicted binding component (the bound report's msprof
/// vocabulary) matches the component msprof shows dominating. "hbm" matches
/// either memory pipe (mte2 reads, mte3 writes).
bool binding_matches(const std::string &predicted, const std::string &measured);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_VALIDATION_HPP
