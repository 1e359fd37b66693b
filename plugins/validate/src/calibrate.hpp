//===- calibrate.hpp - measured constants from raw microbenchmark outputs -===//
//
// `perfbound calibrate SPEC --data DIR --out FILE` turns microbenchmark
// outputs (msprof op_summary CSVs, JSON sweeps) into a calibration database
// (perfbound.calibration/1). The spec (TOML, written by a person, committed
// next to the profile) says for each constant which file, which kernel,
// which column, and how much work one launch does, as arithmetic a reader
// can check against the benchmark source ("2*128*128*4096*30"). Everything
// else (kept launches, statistics, intervals, hashes, the method sentence)
// is computed, so a user with a new chip redoes it from their own runs.
//
// Measures (docs/profiles.md has the full spec format):
//   msprof_rate        per launch, work / time column; "max" (a peak: the
//                      fastest launch) or "median"
//   msprof_difference  median(with) - median(without), divided by a count
//                      (e.g. a per-barrier cost), optionally in cycles
//   msprof_intercept   least-squares intercept of median time vs a swept x
//   sweep              JSON runs: bytes / time per run, as a table, a table
//                      normalised to the largest x, or the fastest run
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_CALIBRATE_HPP
#define PERFBOUND_VALIDATE_CALIBRATE_HPP

#include <filesystem>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace perfbound::validate {

struct CalibrateOptions {
  std::filesystem::path spec;      // the calibration spec (TOML)
  std::filesystem::path data_dir;  // measurement file paths in the spec are relative to it
  std::string command;             // recorded as generated.command
  std::string tool;                // recorded as generated.tool
};

/// Reads the spec and every measurement it names and returns the
/// perfbound.calibration/1 document. Throws pb::sdk::InputError with
/// "file:line:col: message" for a bad spec or a bad measurement file.
pb::sdk::json calibrate(const CalibrateOptions &options);

/// Rounds to 9 significant digits: far finer than any measurement here, and
/// makes the written file identical across compilers and platforms.
double round_significant(double value);

/// UTC calendar date (YYYY-MM-DD) of a time in microseconds since the epoch.
std::string utc_date_from_us(double microseconds);

/// `perfbound calibrate` (argv[0] == "calibrate"). Returns the exit code.
int calibrate_main(const std::vector<std::string> &args);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_CALIBRATE_HPP
