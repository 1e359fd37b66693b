//===- combine.hpp - the combiner: limits, verdict, attribution, findings -===//
//
// Composition rule (docs/model.md §4): within one tier,
//   T_limit = max( max over floor terms F of T_F,
//                  max over components c of ( max over floors of T_F,c
//                                             + sum over additive terms A of T_A,c ) )
// which is max(T_grid_floor, T_core_floor) + T_serial_irreducible when the
// irreducible time lands on the binding component, and never adds idle
// time to a component it cannot delay. Diagnostic terms never enter a
// limit. The report's bound is the larger of the DSL and HIVM limits.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_COMBINE_HPP
#define PERFBOUND_MODELS_COMBINE_HPP

#include <optional>
#include <string>
#include <vector>

#include "hivm_view.hpp"
#include "rates.hpp"
#include "term.hpp"

namespace pb::models {

/// One tier's limit.
struct Limit {
  std::string tier;
  Time value;              // with argued terms
  Time strict;             // strict terms only
  Assurance assurance = Assurance::Strict;
  std::string binding_term, binding_component, binding_core;
  std::string strict_binding_term, strict_binding_component;
  std::vector<std::string> additive_terms;  // additive terms on the binding component
  double additive_seconds = 0;              // their share of the limit
  std::vector<NotCounted> not_counted;      // terms that could not be counted
  bool present = false;                     // any term of this tier wired in
  [[nodiscard]] json to_json() const;
};

/// The limit of one tier from the terms wired in (see the rule above).
Limit compose(const std::vector<Term> &terms, const std::string &tier);

struct CombineOptions {
  std::optional<double> measured_seconds;  // a measurement to attribute against
  int top_findings = 10;
};

struct CombineInputs {
  std::vector<Term> terms;
  std::vector<json> term_documents;  // as received, for the report
  const HivmView *hivm = nullptr;
  const json *dsl = nullptr;
  const Rates *rates = nullptr;
  std::string dsl_origin;
};

/// The perfbound.bound_report/1 document (and its findings). Takes the
/// inputs by value: pass them with std::move and the term documents move
/// into the report instead of being copied.
json combine(CombineInputs inputs, const CombineOptions &options);

/// The perfbound.findings/1 document of a report.
json findings_document(const json &report);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_COMBINE_HPP
