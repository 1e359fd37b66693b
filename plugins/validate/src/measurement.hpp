//===- measurement.hpp - the measurement rule and perfbound.measurement/1 -===//
//
// The rule of ../shared/data/corpus/CORPUS.md, defined once and used by
// validation and calibration alike:
//   1. select the kernel's rows by Op Name and Task Type in {AI_CORE,
//      AI_VECTOR_CORE, MIX_AIC, MIX_AIV} (OpSummary::launches, which also
//      groups the rows of one invocation and orders invocations by start);
//   2. drop the first `warmup` invocations (keep_after_warmup);
//   3. T_measured = median of the kept durations, T_min = their minimum
//      (rule_statistics); a bound is sound only if it is <= T_min.
// A duration of an invocation with several rows is the largest of them.
//
// measure_table / measure_bench_result turn a profiler table or a
// perfbound.bench_result/1 document into a perfbound.measurement/1 document.
// An empty selection is not an error but a document with status
// "no_measurement" and the reason: validation reports it as INFRA_ERROR,
// never as a pass. Malformed cells are InputErrors naming file:line:col.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_MEASUREMENT_HPP
#define PERFBOUND_VALIDATE_MEASUREMENT_HPP

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

#include "msprof_csv.hpp"

namespace perfbound::validate {

using json = pb::sdk::json;

/// The id and one-sentence statement of the rule, recorded in every
/// measurement and validation document.
inline constexpr const char *kRuleId = "corpus-median/1";
const std::string &rule_text();

/// Step 2 of the rule: the launches left after dropping the first `warmup`.
struct KeptLaunches {
  std::vector<Launch> kept;
  size_t found = 0;
  size_t dropped = 0;
};
KeptLaunches keep_after_warmup(std::vector<Launch> launches, size_t warmup);

/// Step 3 of the rule over per-launch values (requires at least one value).
struct RuleStatistics {
  double median = 0;
  double min = 0;
  double max = 0;
  size_t n = 0;
};
RuleStatistics rule_statistics(const std::vector<double> &values);

/// What to measure in a table.
struct MeasureRequest {
  std::string kernel;
  size_t warmup = 0;
  std::vector<std::string> task_types = ai_core_task_types();
  /// Keep only rows of this Device_id; when unset, a kernel seen on several
  /// devices is refused (its launches are not one series).
  std::optional<std::string> device;
};

/// Where a measurement came from, for provenance.
struct SourceInfo {
  std::string origin;                 // path as given
  std::optional<std::string> sha256;  // of the file's bytes
};

/// How many launches a measurement document lists in full (`samples`: index,
/// kept, start, duration, file lines, task type), in launch order; the rest
/// are counted in `samples_omitted`. Every kept duration is in
/// `kept_durations_us` whatever the count.
inline constexpr size_t kListedSamples = 1000;

/// Applies the rule to a profiler table: a perfbound.measurement/1 document.
json measure_table(const OpSummary &table, const MeasureRequest &request, const SourceInfo &source);

/// The `ok` row named `case_name` (its name or case_id) of a
/// perfbound.bench_result/1 document as a measurement: its ten samples, no
/// warm-up dropped (the harness ran its own), the same statistics. A
/// missing row or a row that is not ok gives status "no_measurement".
json measure_bench_result(const json &bench_result, const std::string &case_name, const SourceInfo &source);

/// A measurement document for a case with nothing to measure: status
/// "no_measurement", `reason` saying why, `source` where that was decided.
json no_measurement(const std::string &kernel, const std::string &origin, const std::string &reason);

/// Reads `path` (a profiler CSV, or a bench result JSON when it parses as
/// one) and measures it. Throws InputError when the file is unreadable or
/// malformed.
json measure_file(const std::filesystem::path &path, const MeasureRequest &request, const std::string &bench_case = "");

/// The msprof component a pipe-time column measures, in the bound report's
/// vocabulary ("aiv_scalar_time(us)" -> {aiv, scalar}); nullopt otherwise.
struct PipeColumn {
  std::string core;
  std::string component;
};
std::optional<PipeColumn> pipe_of_column(const std::string &column);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_MEASUREMENT_HPP
