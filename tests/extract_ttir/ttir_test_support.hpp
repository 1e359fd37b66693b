//===- ttir_test_support.hpp - helpers for the extract_ttir tests ---------===//
#ifndef PERFBOUND_TESTS_EXTRACT_TTIR_SUPPORT_HPP
#define PERFBOUND_TESTS_EXTRACT_TTIR_SUPPORT_HPP

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "dsl_facts.hpp"
#include "profile.hpp"
#include "support/test_support.hpp"
#include "ttir_analysis.hpp"

namespace ttirtest {

namespace fs = std::filesystem;
using json = pb::sdk::json;

inline fs::path test_dir() { return fs::path(PB_TTIR_TEST_DIR); }
inline fs::path kernel_file(const std::string &name) { return test_dir() / "kernels" / name; }
inline fs::path example_kernel(const std::string &name) {
  return pbtest::source_dir() / "examples" / "kernels" / name / (name + ".ttir.mlir");
}
inline fs::path shared_ttir(const std::string &name) { return pbtest::shared_dir() / "data" / "ttir" / name; }

/// The real perfbound.profile/1 of hardware_profiles/ascend_910b3, loaded by
/// the host's profile loader.
inline const json &profile_910b3() {
  static const json doc = [] {
    perfbound::ProfileLoad load = perfbound::load_profile(pbtest::source_dir() / "hardware_profiles" / "ascend_910b3");
    REQUIRE_MESSAGE(!load.diagnostics.has_errors(), load.diagnostics.format());
    return load.document;
  }();
  return doc;
}

/// Parses a file that must parse.
inline perfbound::ttir::TtirModule parse_file(const fs::path &path) {
  auto module = perfbound::ttir::analyze_ttir(pbtest::read_file(path), path.string());
  REQUIRE_MESSAGE(static_cast<bool>(module), (module ? std::string() : module.error().message));
  return std::move(*module);
}

/// Parses TTIR text written in a test (named "units.ttir"); it must parse
/// and hold a kernel.
inline perfbound::ttir::TtirModule model_of_text(const std::string &text) {
  auto module = perfbound::ttir::analyze_ttir(text, "units.ttir");
  REQUIRE_MESSAGE(static_cast<bool>(module), (module ? std::string() : module.error().message));
  REQUIRE(!module->kernels.empty());
  return std::move(*module);
}

/// dsl_facts of one kernel of `path` for `launch`.
inline json facts(const fs::path &path, const json &launch, const perfbound::ttir::FactsOptions &options = {}) {
  perfbound::ttir::TtirModule module = parse_file(path);
  const perfbound::ttir::KernelModel &kernel = perfbound::ttir::select_kernel(module, launch);
  return perfbound::ttir::build_dsl_facts(module, kernel, launch, profile_910b3(), options);
}

/// The value of a {value, exact} quantity that must be known.
inline double value(const json &q) {
  REQUIRE_MESSAGE(q.is_object(), q.dump());
  REQUIRE_MESSAGE(q.contains("value"), q.dump());
  REQUIRE_MESSAGE(!q["value"].is_null(), q.dump());
  return q["value"].get<double>();
}

inline bool exact(const json &q) { return q.value("exact", false); }

}  // namespace ttirtest

#endif  // PERFBOUND_TESTS_EXTRACT_TTIR_SUPPORT_HPP
