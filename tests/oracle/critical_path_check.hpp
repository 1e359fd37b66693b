//===- critical_path_check.hpp - the critical path against executed order --===//
//
// The critical_path term's strict chain per block, checked against the
// as-early-as-possible schedule of the oracle's trace of each block under the
// orderings of docs/model.md §3.6 (critical_path_check.cpp says how).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_ORACLE_CRITICAL_PATH_CHECK_HPP
#define PERFBOUND_TESTS_ORACLE_CRITICAL_PATH_CHECK_HPP

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "oracle.hpp"
#include "rates.hpp"

namespace pb::oracle_test {

struct CriticalPathCheck {
  std::string skip_reason;            // not compared (no trace, sync operands not read, flags that never settle)
  size_t compared = 0;                // functions compared
  double max_ratio = 0;               // the largest term / executed chain seen
  std::vector<Violation> violations;  // "term.critical_path.strict"
};

/// `traced`: an oracle run with Options::trace; `extractor_doc`: the
/// extractor's perfbound.hivm_program/1 of the same text and launch.
CriticalPathCheck check_critical_path(const std::string &text, const nlohmann::json &extractor_doc,
                                      const pb::hivm::oracle::Result &traced, const nlohmann::json &profile,
                                      const pb::models::Rates &rates, const std::string &origin);

}  // namespace pb::oracle_test

#endif  // PERFBOUND_TESTS_ORACLE_CRITICAL_PATH_CHECK_HPP
