//===- counterfactual.hpp - edit the HIVM, predict, and (optionally) measure ===//
//
// `perfbound counterfactual CONFIG.toml` tests an explanation by changing
// the kernel: it applies text edits to the raw HIVM dump (hivm_edit.hpp),
// checks by re-extraction that exactly the edited ops changed, predicts the
// time delta, and - when the config has a [measure] section and the user has
// the toolchain - builds, runs and profiles both variants, checks that the
// edited kernel's outputs match the baseline's (allclose on .npy files),
// and compares the predicted with the measured delta.
//
//   version = 1
//   kernel = "seeded_serial_kernel"             # Op Name in msprof
//   hivm = "seeded_serial_on.npuir.mlir"        # relative to this file
//   launch = { grid = [4096], args = { "%arg4" = 8388608 } }
//   profile = "ascend_910b3"                    # optional
//   bound_pipeline = "../pipelines/bound_hivm.toml"   # optional: also predicts the bound's shift
//   [[edit]]
//   kind = "remove_barrier"                     # or remove_sync_pair, set_multi_buffer
//   line = 46
//   pipe = "ALL"
//   [measure]                                   # optional
//   compile = { argv = ["bishengir-compile", "{ir}", "-o", "{dir}/kernel.o"], timeout_s = 900 }
//   run = { argv = ["python3", "run.py", "{dir}"], timeout_s = 900 }
//   csv = "op_summary_*.csv"                    # file name pattern, searched under {dir}
//   outputs = ["out.npy"]                       # written by the run into {dir}
//   rtol = 1e-5
//   atol = 1e-8
//   warmup = 8
//   remote = "npu_host.toml"                    # optional: compile and run over ssh
//   [recorded]                                  # optional: a pair measured before
//   baseline = "on_op_summary.csv"              # relative to this file
//   edited = "off_op_summary.csv"
//   warmup = 8
//   note = "..."
//
// Placeholders in argv: {ir} the variant's dump, {dir} its directory, {out}
// its profiler output directory ({dir}/prof), {variant} "baseline" or
// "edited", {kernel}. With `remote`, {ir}/{dir}/{out} are the remote paths
// and the run is wrapped in the host's msprof prefix.
//
// Status: PASS (both variants built, ran, measured; outputs match), FAIL
// (the edited kernel's outputs differ: the edit is not a legal change),
// INFRA_ERROR (a step could not run, timed out, or left no measurement),
// PREDICTED (no [measure] section, or --predict-only; with [recorded], the
// prediction is also compared with the recorded pair's measured delta).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_COUNTERFACTUAL_HPP
#define PERFBOUND_VALIDATE_COUNTERFACTUAL_HPP

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

#include "corpus.hpp"
#include "hivm_edit.hpp"
#include "npy.hpp"

namespace perfbound::validate {

struct StepCommand {
  std::vector<std::string> argv;
  double timeout_s = 600;
};

struct MeasureConfig {
  StepCommand compile;
  StepCommand run;
  std::string csv_pattern = "op_summary_*.csv";
  std::vector<std::string> outputs;
  Tolerance tolerance;
  int64_t warmup = 0;
  std::optional<std::filesystem::path> remote;
};

/// A baseline/edited pair already measured (e.g. the same kernel profiled
/// with and without the edit on real hardware): compared with the
/// prediction without building or running anything.
struct RecordedPair {
  std::filesystem::path baseline;  // profiler CSVs, relative to the config
  std::filesystem::path edited;
  int64_t warmup = 0;
  std::string note;
};

struct CounterfactualConfig {
  std::filesystem::path file;
  std::string description;
  std::string kernel;
  std::filesystem::path hivm;
  json launch;  // or null
  std::string profile = "ascend_910b3";
  std::optional<std::filesystem::path> bound_pipeline;
  std::string bound_hivm_input = "hivm";
  std::string report_output = "bound";
  std::vector<EditSpec> edits;
  std::optional<MeasureConfig> measure;
  std::optional<RecordedPair> recorded;
};

/// Reads a config; InputError "file:line:col: ..." when it is bad.
CounterfactualConfig load_counterfactual(const std::filesystem::path &file);

/// What the command gets from the host.
struct CounterfactualServices {
  /// perfbound.hivm_program/1 of a dump (through the extractor pipeline);
  /// throws InputError when the extraction fails.
  std::function<json(const std::filesystem::path &hivm)> extract;
  /// The bound of a dump through the bound pipeline (only called when the
  /// config names one).
  std::function<BoundOutcome(const std::filesystem::path &hivm)> bound;
  json profile;  // perfbound.profile/1 (with its calibration)
};

/// The time-delta prediction for applied edits on `program`:
/// {time_delta: {value, unit, interval, reason}, per_edit: [...]}.
json predict_delta(const json &program, const EditResult &edits, const json &profile);

/// Runs the whole counterfactual. Artifacts (edited dump, variant
/// directories, logs) go under `out_dir`. Returns a
/// perfbound.counterfactual/1 document.
json run_counterfactual(const CounterfactualConfig &config, const CounterfactualServices &services,
                        const std::filesystem::path &out_dir, bool predict_only);

std::string render_counterfactual(const json &doc);

/// Exit status: 0 PASS or PREDICTED, 1 FAIL, 5 INFRA_ERROR.
int counterfactual_exit_code(const json &doc);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_COUNTERFACTUAL_HPP
