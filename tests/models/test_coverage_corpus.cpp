//===- test_coverage_corpus.cpp - nothing countable is dropped, on real IR -===//
//
// Every HIVM dump in ../shared/data/hivm/ runs through the shipped HIVM
// pipeline (one launch per file: the corpus launch where CORPUS.md gives
// one, else a 40-block grid). For each, the report must carry a coverage
// section, and no op whose work the extractor knows to be above zero (a
// known minimum count > 0 and an exact per-execution value) may be left
// uncounted. Skipped without ../shared.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <filesystem>
#include <map>

#include "hivm_view.hpp"
#include "models_test_util.hpp"

namespace m = pb::models;
using modelstest::json;

namespace {

/// bound_hivm.toml with the program as an output too.
std::string pipeline_with_program() {
  std::string text = pbtest::read_file(modelstest::pipeline("bound_hivm.toml"));
  REQUIRE(text.find("[outputs]") != std::string::npos);
  return text + "program = \"ops.program\"\n";
}

/// Launch values per dump (CORPUS.md and docs/model.md §10); the rest get a
/// 40-block grid and no scalar arguments.
std::string launch_for(const std::string &file) {
  static const std::map<std::string, std::string> kLaunch = {
      {"chunk_kda.npuir.mlir", R"(launch={grid=[128,32],args={"20"=8192,"22"=8192}})"},
      {"seeded_serial_on.npuir.mlir", R"(launch={grid=[4096],args={"4"=8388608,"5"=65536}})"},
  };
  auto it = kLaunch.find(file);
  return it != kLaunch.end() ? it->second : "launch={grid=[40]}";
}

/// The per-execution value of an op's main quantity, when exact.
bool exact_work(const json &op) {
  const json &exec = op.value("exec", json::object());
  const json &estimated = op.value("estimated", json::array());
  auto exact = [&](const char *key) {
    if (!exec.contains(key) || !exec[key].is_number() || exec[key].get<double>() <= 0) return false;
    for (const json &e : estimated)
      if (e == key) return false;
    return true;
  };
  std::string cls = op.value("class", std::string());
  if (cls == "cube") return exact("flop");
  if (cls == "dma") return exact("bytes");
  if (cls.rfind("vector_", 0) == 0) return exact("repeats") || exact("bytes");
  return false;
}

}  // namespace

TEST_CASE("coverage corpus: every real HIVM dump, nothing with a known minimum above zero is left out") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "bound_hivm_program.toml", pipeline_with_program());
  size_t files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(pbtest::shared_dir() / "data" / "hivm")) {
    if (entry.path().extension() != ".mlir") continue;
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    pbtest::TempDir out;
    // A lit file of the peer suites ('// -----' sections, names repeated
    // across them) is one program per section: conformance_hivm reads those.
    if (pbtest::read_file(entry.path()).find("\n// -----") != std::string::npos) {
      MESSAGE(name << ": a lit file, left to conformance_hivm");
      continue;
    }
    const std::string split = "ops.split=auto";
    pbtest::CliResult r = pbtest::run_cli({"run", (tmp / "bound_hivm_program.toml").string(), "--set",
                                           "hivm=" + entry.path().string(), "--set", launch_for(name), "--set", split,
                                           "--out", out.path().string(), "--format", "json"});
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    json report = json::parse(pbtest::read_file(out / "bound.json"));
    json program = json::parse(pbtest::read_file(out / "program.json"));
    ++files;
    REQUIRE(report.contains("coverage"));
    REQUIRE(report["coverage"].contains("hivm"));
    const json &cov = report["coverage"]["hivm"];
    CHECK(cov["by_component"].is_array());
    CHECK(cov["ops_counted"].get<int>() <= cov["ops_present"].get<int>());
    // The text and Markdown reports show the section too.
    for (const char *format : {"text", "md"}) {
      pbtest::CliResult shown = pbtest::run_cli({"run", (tmp / "bound_hivm_program.toml").string(), "--set",
                                                 "hivm=" + entry.path().string(), "--set", launch_for(name), "--set",
                                                 split, "--format", format});
      REQUIRE(shown.code == 0);
      CHECK(shown.out.find(std::string(format) == "md" ? "### Coverage" : "\ncoverage\n") != std::string::npos);
    }
    // No op with a known minimum above zero and an exact per-execution
    // value is among the uncounted.
    std::map<int, const json *> by_line;
    for (const json &op : program["ops"]) by_line[op.value("line", 0)] = &op;
    for (const json &u : cov["not_counted"]) {
      auto it = by_line.find(u.value("line", 0));
      REQUIRE(it != by_line.end());
      const json &op = *it->second;
      double min = op["count"].value("min", 0.0);
      CAPTURE(u.dump());
      CHECK_FALSE((min > 0 && exact_work(op) && !op["count"].value("block_dependent", false)));
      if (op.contains("block_min") && op["block_min"].value("count", 0.0) > 0) CHECK_FALSE(exact_work(op));
    }
  }
  CHECK(files >= 7);  // the four lit files apart
}
