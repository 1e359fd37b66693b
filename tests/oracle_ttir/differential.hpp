//===- differential.hpp - dsl_facts and the DSL terms against the oracle --===//
//
// One differential case: a TTIR file, a kernel and a small launch. The
// extractor's document (perfbound.dsl_facts/1, build_dsl_facts) and the
// oracle's execution (plugins/extract_ttir/oracle) of the same launch are
// compared figure by figure:
//   - a figure marked exact must equal the oracle's count, one marked as a
//     lower bound (`bound: "lower"`) must not exceed it, an upper estimate
//     must not fall below it, an unknown (null) is not compared;
//   - per-program distributions: min, max and mean each;
//   - under launch.data (and no trips facts) the `given` figures too;
//   - the DSL terms (grid_floor, component_floor, memory; plugins/models)
//     fed the extractor's document: every strict value, of the term and of
//     each component, must not exceed the same term fed the oracle's exact
//     counts (ttir_oracle::exact_facts) at the same profile's rates; run
//     at the profile as shipped and with its L2 cut to 1 KiB, so that the
//     memory term's forced-HBM floor (bytes beyond the L2) bites on small
//     launches.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_ORACLE_TTIR_DIFFERENTIAL_HPP
#define PERFBOUND_TESTS_ORACLE_TTIR_DIFFERENTIAL_HPP

#include <filesystem>
#include <string>
#include <vector>

#include "ttir_oracle.hpp"

namespace oracletest {

namespace fs = std::filesystem;
using json = perfbound::ttir_oracle::json;

struct Case {
  std::string id;          // for messages: origin#kernel (launch)
  std::string text;        // the TTIR
  std::string origin;      // the file name in diagnostics
  json launch;             // perfbound.launch/1
  perfbound::ttir_oracle::Options options;
};

struct Finding {
  std::string what;    // the figure, e.g. "bytes.read.unique_total"
  std::string claim;   // exact | lower | upper
  double document = 0;
  double truth = 0;
  [[nodiscard]] std::string text() const;
};

struct Outcome {
  bool ran = false;           // both sides produced a result
  std::string skipped;        // why not (the extractor or the oracle refused)
  int compared = 0;           // figures compared
  int exact = 0, lower = 0, upper = 0;  // of which: claims exact, a lower bound, an upper estimate
  std::vector<Finding> violations;
  std::vector<std::string> oracle_notes;
  [[nodiscard]] std::string summary(const Case &c) const;
};

/// Runs the extractor and the oracle on `c` and compares (910B3 profile
/// unless `profile` is given).
Outcome check(const Case &c, const json &profile);

/// The perfbound.profile/1 document of hardware_profiles/<name>.
const json &profile(const std::string &name);

/// A launch for every kernel of `text` without one (tests/extract_ttir
/// golden's derived launches, scaled down): grid [3, 2, 2]; integer scalars
/// a small multiple of their divisibility hint (16 -> 16, 32, 48 by position)
/// or 20 + 3 * position; i1 true; floats 0.5.
std::vector<json> derived_launches(const std::string &text, const std::string &origin);

}  // namespace oracletest

#endif  // PERFBOUND_TESTS_ORACLE_TTIR_DIFFERENTIAL_HPP
