//===- driver.hpp - running the differential check on many programs -------===//
//
// Shared by the ctest suite, the reproduction tool and the fuzz target: one
// generated program by seed, a batch of seeds with a summary, regression files
// (tests/oracle/regress/*.mlir: the program with its launch on the first line).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_ORACLE_DRIVER_HPP
#define PERFBOUND_TESTS_ORACLE_DRIVER_HPP

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "check.hpp"
#include "generator.hpp"

namespace pb::oracle_test {

/// The first line of a regression file: `// oracle-check: {"launch": ..., "index_data": ..., "seed": N}`.
constexpr const char *kRegressPrefix = "// oracle-check: ";

struct Case {
  std::string name;
  std::string text;
  nlohmann::json launch;
  std::map<std::string, std::vector<int64_t>> index_data;
  uint64_t seed = 1;  // worlds and fact choices
};

/// The generated program of `seed` as a case.
Case generated_case(uint64_t seed);
/// A regression file's case; throws std::runtime_error naming the file when its header is malformed.
Case regress_case(const std::string &path);
/// The regression file of a case (header line + program).
std::string regress_text(const Case &c);

struct BatchSummary {
  uint64_t programs = 0, skipped = 0, failed = 0, waived = 0, records = 0, oracle_ops = 0;
  std::map<std::string, uint64_t> skip_reasons;        // first words of the oracle's refusal
  std::map<std::string, uint64_t> violation_classes;   // unknown violations by class
  std::map<std::string, uint64_t> waived_classes;      // known items by class
  std::map<std::string, uint64_t> features;            // generated features, by programs using them
  uint64_t critical_path_checked = 0;                  // programs whose critical path was compared
  std::map<std::string, uint64_t> critical_path_skips; // why the others were not
  std::vector<uint64_t> failing_seeds;
  std::string first_failure;                           // report of the first failing seed
  [[nodiscard]] std::string str() const;
};

/// Checks seeds [first, first + count). `stop_at_failure`: stop at the first failing seed.
BatchSummary run_batch(uint64_t first, uint64_t count, const CheckOptions &options, bool stop_at_failure = false);

/// A readable report of one case's check, with the command that reproduces it.
std::string describe(const Case &c, const CheckReport &r);

}  // namespace pb::oracle_test

#endif  // PERFBOUND_TESTS_ORACLE_DRIVER_HPP
