//===- corpus.hpp - corpus manifests and the `perfbound validate` table ---===//
//
// A corpus manifest (TOML) lists validation cases: for each, the IR files and
// launch values the bound pipeline takes, the kernel name msprof shows, and
// the measurement (a profiler CSV or a bench result, its warm-up count and
// the rule) - or why there is none. Paths are relative to the data root
// (--data, default the manifest's data_root); a path written
// "manifest:REL" is relative to the manifest file instead.
//
//   version = 1
//   description = "..."
//   data_root = "../../../shared/data"      # relative to this file
//   pipeline = "manifest:../../pipelines/bound.toml"
//   report_output = "bound"                 # pipeline output with the report
//                                           # (default; else its one bound report)
//   [[case]]
//   name = "chunk_kda"
//   kernel = "chunk_kda_bwd_kernel_wy_dqkg_fused_opt_v2"
//   inputs = { hivm = "hivm/chunk_kda.npuir.mlir" }
//   launch = { grid = [128, 32] }
//   measurement = { file = "msprof/chunk_kda_op_summary.csv", warmup = 1, rule = "corpus-median/1" }
//
// run_corpus validates every case (the bound comes from a caller-supplied
// function, so the runner is testable without a host) into a
// perfbound.corpus_validation/1 document; render_corpus_table prints the
// stable table; corpus_exit_code maps it to the CLI's exit status.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_CORPUS_HPP
#define PERFBOUND_VALIDATE_CORPUS_HPP

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <perfbound/sdk/json.hpp>

#include "validation.hpp"

namespace perfbound::validate {

struct CorpusCase {
  std::string name;
  std::string kernel;
  std::string description;
  std::filesystem::path pipeline;  // resolved; empty when `report` is given
  std::vector<std::pair<std::string, std::filesystem::path>> inputs;  // pipeline file inputs
  json launch;                                                        // {grid, args} or null
  std::vector<std::string> sets;                                      // extra --set overrides
  std::optional<std::filesystem::path> report;                        // a saved report instead of a run
  // The measurement; absent when no_measurement is set.
  std::optional<std::filesystem::path> measurement;
  std::string bench_case;
  int64_t warmup = 0;
  std::optional<std::string> device;
  std::vector<std::string> task_types;
  std::string no_measurement;  // why there is none
  std::string where;           // manifest file:line:col of the case
};

struct Corpus {
  std::filesystem::path manifest;
  std::filesystem::path data_root;
  std::string description;
  std::string report_output = "bound";
  std::vector<CorpusCase> cases;
};

/// Reads a manifest. The data root is `data_root` when given, else the
/// manifest's `data_root`, else `fallback_root` when given, else the
/// manifest's directory. Throws InputError "file:line:col: ..." for a bad
/// manifest or a missing data root.
Corpus load_corpus(const std::filesystem::path &manifest, const std::optional<std::filesystem::path> &data_root,
                   const std::optional<std::filesystem::path> &fallback_root = std::nullopt);

/// What the bound side produced for a case: a report, or why there is none.
struct BoundOutcome {
  json report;  // perfbound.bound_report/1, or null
  ReportOrigin origin;
  std::string error;  // why `report` is null
};
using BoundSource = std::function<BoundOutcome(const CorpusCase &)>;

/// Validates every case: a perfbound.corpus_validation/1 document.
json run_corpus(const Corpus &corpus, const BoundSource &bound_source);

/// The stable text table `perfbound validate --corpus` prints.
std::string render_corpus_table(const json &corpus_validation);
/// One validation document as text.
std::string render_validation(const json &validation);

/// 4 when any case is FAIL, 5 when every case is INFRA_ERROR, 0 otherwise.
int corpus_exit_code(const json &corpus_validation);

/// A launch table {grid, args} as the TOML inline table `--set launch=...`
/// takes (keys quoted, so "%arg3" survives).
std::string launch_to_toml(const json &launch);

/// Reads a saved bound report: a perfbound.bound_report/1 document, or a
/// perfbound.run_result/1 whose output `report_output` is one.
BoundOutcome read_saved_report(const std::filesystem::path &path, const std::string &report_output);
/// The bound report in a perfbound.run_result/1: output `report_output`, or
/// else its one output that is a bound report (null with `error` set when
/// the run failed or holds no bound report).
BoundOutcome report_from_run_result(const json &run_result, const std::string &report_output, const std::string &origin);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_CORPUS_HPP
