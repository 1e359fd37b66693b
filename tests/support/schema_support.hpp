//===- schema_support.hpp - checking documents against the published schemas in tests ===//
//
// For test suites that link the host library (its JSON-Schema checker,
// host/src/json_schema.hpp, on the include path).
#ifndef PERFBOUND_TESTS_SUPPORT_SCHEMA_SUPPORT_HPP
#define PERFBOUND_TESTS_SUPPORT_SCHEMA_SUPPORT_HPP

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "json_schema.hpp"
#include "support/test_support.hpp"

namespace pbtest {

/// Every schema in abi/schemas/, loaded once; a schema the checker refuses
/// fails the test.
inline const perfbound::SchemaRegistry &published_schemas() {
  static perfbound::SchemaRegistry registry = [] {
    perfbound::SchemaRegistry r;
    auto problems = r.load_dir(source_dir() / "abi" / "schemas");
    REQUIRE_MESSAGE(problems.empty(), problems.front());
    return r;
  }();
  return registry;
}

/// Checks `doc` against schema `id` (default: its own "schema" member),
/// reporting the first five problems.
inline void check_schema_valid(const nlohmann::json &doc, std::string id = {}) {
  if (id.empty()) id = doc.at("schema").get<std::string>();
  std::vector<std::string> problems = published_schemas().validate(id, doc);
  std::string all;
  for (size_t idx = 0; idx < problems.size() && idx < 5; ++idx) all += problems[idx] + "\n";
  CHECK_MESSAGE(problems.empty(), id << ": " << all);
}

}  // namespace pbtest

#endif  // PERFBOUND_TESTS_SUPPORT_SCHEMA_SUPPORT_HPP
