//===- models_test_util.hpp - running the shipped pipelines in tests ------===//
#ifndef PERFBOUND_TESTS_MODELS_TEST_UTIL_HPP
#define PERFBOUND_TESTS_MODELS_TEST_UTIL_HPP

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace modelstest {

using json = nlohmann::json;

/// Output documents of one `perfbound run`, read back from --out.
struct RunOut {
  pbtest::CliResult cli;
  json report;    // the pipeline's `bound` output (perfbound.bound_report/1)
  json findings;  // its `findings` output, when the pipeline has one
  json facts;
};

inline std::string pipeline(const std::string &name) { return (pbtest::source_dir() / "pipelines" / name).string(); }
inline std::string example(const std::string &name) {
  return (pbtest::source_dir() / "examples" / "kernels" / "vector_add" / name).string();
}
inline std::string shared_hivm(const std::string &name) { return (pbtest::shared_dir() / "data" / "hivm" / name).string(); }

/// Runs `perfbound run PIPELINE ARGS... --out TMP --format json` and reads
/// the outputs back. Fails the test case when the run fails.
inline RunOut run_pipeline(const std::string &pipeline_path, const std::vector<std::string> &args) {
  pbtest::TempDir tmp;
  std::vector<std::string> argv{"run", pipeline_path};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--out", tmp.path().string(), "--format", "json"});
  RunOut out;
  out.cli = pbtest::run_cli(argv);
  INFO("stderr: " << out.cli.err);
  REQUIRE(out.cli.code == 0);
  auto read = [&](const char *name) {
    std::string text = pbtest::read_file(tmp / (std::string(name) + ".json"));
    return text.empty() ? json() : json::parse(text);
  };
  out.report = read("bound");
  out.findings = read("findings");
  out.facts = read("facts");
  return out;
}

/// The term document `name` of `tier` in a report.
inline const json &term(const json &report, const std::string &name, const std::string &tier) {
  for (const json &t : report["terms"])
    if (t["term"] == name && t["tier"] == tier) return t;
  FAIL("no term " << name << " (" << tier << ") in the report");
  static json none;
  return none;
}

/// Seconds in a {value, unit: "s"} object.
inline double seconds(const json &q) {
  REQUIRE(q.is_object());
  REQUIRE(q["value"].is_number());
  return q["value"].get<double>();
}

/// The per-component value of a term on `core`.`component`.
inline double component(const json &term_doc, const std::string &core, const std::string &comp) {
  for (const json &c : term_doc["per_component"])
    if (c["component"] == comp && (core.empty() ? c["core"].is_null() : c["core"] == core)) return seconds(c["value"]);
  FAIL("no component " << core << "." << comp << " in term " << term_doc["term"]);
  return 0;
}

/// A perfbound.profile/1 document as the host loads it.
inline json profile(const std::string &name) {
  pbtest::CliResult r = pbtest::run_cli({"profile", "show", "--json", name});
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

}  // namespace modelstest

#endif  // PERFBOUND_TESTS_MODELS_TEST_UTIL_HPP
