//===- check.hpp - the differential soundness check against the oracle ----===//
//
// For one HIVM program and launch: run the oracle (plugins/extract_hivm/oracle)
// in two data worlds, derive `trips` facts that hold in the first (and, on
// request, give the extractor the first world's index tensors as `data`), run
// the extractor with those facts, and compare:
//   - every strict number of every op record (count min/max, block_min, exact
//     block/grid sums, exact per-execution sizes, loop iterations, the per-core
//     per_block_min totals) with the oracle's exact counts in both worlds;
//   - every `given` number with the first world's (the facts hold there);
//   - every HIVM term's and limit's strict value (grid_floor, component_floor,
//     memory, serialization, issue_floor; the combiner's compose) with the same
//     terms run on the perfbound.hivm_work/1 document built from the oracle's
//     exact counts (the cold-cache bytes capped at the unique bytes touched);
//   - the critical_path term's strict chain per block with the schedule of the
//     first world's executed order (critical_path_check.hpp).
// docs/validation.md describes what is checked and how to reproduce a failure.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_ORACLE_CHECK_HPP
#define PERFBOUND_TESTS_ORACLE_CHECK_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pb::oracle_test {

struct Violation {
  std::string cls;     // what kind: "count.min", "term.memory.strict", ... (see classify)
  std::string known;   // the review item (issue 23) it belongs to, when it is a known one; "" otherwise
  std::string where;   // "line 12 hivm.hir.load" or "term memory (cache = cold)"
  std::string detail;  // extractor value vs oracle value
  [[nodiscard]] std::string str() const;
};

struct CheckOptions {
  uint64_t seed = 1;          // worlds and fact choices
  bool facts = true;          // derive trips facts (and sometimes data facts) from the first world
  bool waive_known = true;    // known review items are reported apart, not as failures
  uint64_t max_ops = 400'000; // oracle budget per world
  /// The extractor's enumeration budget per op (0: one seed in four draws 1..8, else the default).
  uint64_t enumeration_budget = 0;
  /// Review items of issue 23 fixed in this tree, by number ("item 7"): a violation the check
  /// attributes to one of them is a failure, not waived (a regression of a fixed item must not
  /// hide behind its old label). Item 2 stays waived: the cube record's exec.m/k/n are still
  /// upper bounds (descriptive, no term multiplies them).
  std::set<std::string> fixed = {"item 1", "item 3", "item 4", "item 6", "item 7"};
  /// Edits the extractor's document before it is compared (tests of the check itself).
  std::function<void(nlohmann::json &)> tamper;
};

struct CheckReport {
  bool skipped = false;
  std::string skip_reason;         // the oracle refused (budget, unsupported IR) or a world was not executable
  std::vector<Violation> violations;  // unknown: failures
  std::vector<Violation> waived;      // known review items
  nlohmann::json launch;           // the launch the extractor got (with its facts)
  std::string facts_summary;
  uint64_t enumeration_budget = 0;  // the extractor's, when the check lowered it (0: the default)
  uint64_t oracle_ops = 0;
  size_t records = 0, compared = 0;  // op records, op records matched with the oracle
  size_t critical_path_compared = 0;  // functions whose critical_path chain was checked against the trace
  std::string critical_path_skip;     // why it was not (critical_path_check.hpp)
};

/// Checks one program. `index_data`: tensors (Triton position -> contents) the
/// first world reads, and the extractor too when the check gives data facts.
CheckReport check_program(const std::string &text, const nlohmann::json &launch,
                          const std::map<std::string, std::vector<int64_t>> &index_data, const CheckOptions &options,
                          const std::string &origin = "program.mlir");

/// The ascend_910b3 profile document (loaded once).
const nlohmann::json &profile_document();

}  // namespace pb::oracle_test

#endif  // PERFBOUND_TESTS_ORACLE_CHECK_HPP
