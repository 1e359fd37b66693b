//===- result.hpp - result rows, the run result document, Markdown ----------===//
//
// A row is what the journal records for one case and what the result
// document (perfbound.bench_result/1) lists; the validation side reads rows
// as measurements: case name, the ten raw samples in microseconds, the
// statistic and its definition, the device identity and the status.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_RESULT_HPP
#define PERFBOUND_TIMING_RESULT_HPP

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <perfbound/sdk/number.hpp>

namespace pb::bench {

using json = nlohmann::json;

inline constexpr const char *kResultSchema = "perfbound.bench_result/1";

/// Row statuses. Failures (exit 1): error, check_failed, timeout, contaminated.
inline constexpr const char *kRowStatuses[] = {"ok", "check_failed", "error", "timeout", "skipped", "contaminated"};

/// A row for a case that never reached a worker (plan error, preflight skip,
/// gate refusal).
json make_unmeasured_row(const json &plan_case, const std::string &status, const std::string &reason,
                         const json &skipped_reason, const json &preflight, const json &health, const json &device);

/// A row from a worker's outcome (measure_gemm_case()).
json make_measured_row(const json &plan_case, const json &outcome, const json &preflight, const json &health,
                       const json &device);

/// Fills the statistic, latency and TFLOPS of a row from its samples (the
/// one place they are computed).
void finish_statistic(json &row);

bool is_failure_status(const std::string &status);

/// The numbers of a row read back from a journal or a result file, each in
/// the range its meaning allows: every sample and the statistic/latency a
/// time > 0 us, TFLOPS and the worker's duration >= 0. A row that breaks
/// one is refused (InputError at `source`'s line and column of the member):
/// a negative latency would otherwise be merged, ranked and reported.
/// `at` is where the row sits in `root`, the document parsed from `source`.
void check_row_numbers(const json &root, const json::json_pointer &at, const pb::sdk::JsonSource &source);

/// The result document from the run metadata and rows (in plan order).
json make_result(const json &run, const std::vector<json> &rows, const std::string &state);

/// A Markdown summary of a result document.
std::string render_markdown(const json &result);
/// A plain-text table of a result document.
std::string render_text(const json &result);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_RESULT_HPP
