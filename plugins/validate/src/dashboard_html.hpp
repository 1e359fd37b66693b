//===- dashboard_html.hpp - the corpus validation as one HTML page --------===//
//
// `perfbound validate --corpus M --format html`: per case, the bound (strict,
// given, argued) against the measured minimum and median on one log axis,
// the tightness, PASS/FAIL/INFRA_ERROR, the binding unit predicted vs the one
// msprof shows, and the report's coverage when it has one; a sortable table
// under the chart. Self-contained (inline SVG, CSS, a few lines of JS for
// sorting), every input string escaped.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_DASHBOARD_HTML_HPP
#define PERFBOUND_VALIDATE_DASHBOARD_HTML_HPP

#include <map>
#include <string>

#include <perfbound/sdk/json.hpp>

namespace perfbound::validate {

/// The dashboard of a perfbound.corpus_validation/1 document. `reports`
/// maps a case name to its bound report (for the strict/given bounds and the
/// coverage); a case without one shows what the validation document has.
std::string render_corpus_dashboard(const pb::sdk::json &corpus_validation, const std::map<std::string, pb::sdk::json> &reports);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_DASHBOARD_HTML_HPP
