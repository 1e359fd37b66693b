//===- test_plugin_cli.cpp - the plugin through the real perfbound binary --===//
#include "ttir_test_support.hpp"

using namespace ttirtest;

namespace {

const fs::path kPipeline = fs::path(PB_TTIR_TEST_DIR) / "dsl_facts.toml";

}  // namespace

TEST_CASE("perfbound run: the vector-add example through the pipeline, document checked by the host") {
  pbtest::TempDir out;
  pbtest::CliResult r = pbtest::run_cli({"run", kPipeline.string(), "--set",
                                         "ttir=" + example_kernel("vector_add").string(), "--set",
                                         "launch.grid=[8192,1,1]", "--set", "launch.args.n_elements=16777216", "--out",
                                         out.path().string(), "--format", "md"});
  REQUIRE_MESSAGE(r.code == 0, (r.out + r.err));
  json doc = json::parse(pbtest::read_file(out / "facts.json"));
  CHECK(doc.at("schema") == "perfbound.dsl_facts/1");
  // 8192 programs x 2 x 2048 x 4 B (see test_reference_kernels.cpp).
  CHECK(value(doc.at("bytes").at("read").at("requested").at("total")) == 134217728);
  // The profile came from hardware_profiles/ascend_910b3 through the host.
  CHECK(doc.at("cores").at("profile") == "ascend_910b3");
  // The plugin's Markdown renderer produced the report.
  CHECK(r.out.find("### Kernel add_kernel") != std::string::npos);
}

TEST_CASE("perfbound run: a TTIR syntax error fails the node with MLIR's file:line:col message") {
  pbtest::TempDir tmp;
  fs::path bad = tmp / "bad.ttir";
  pbtest::write_file(bad, "module {\n  tt.func public @k() {\n    %0 = tt.frobnicate : i32\n    tt.return\n  }\n}\n");
  pbtest::CliResult r = pbtest::run_cli(
      {"run", kPipeline.string(), "--set", "ttir=" + bad.string(), "--set", "launch.grid=[1]"});
  CHECK(r.code == 3);  // the node refused its input: invalid input (docs/cli.md)
  CHECK_MESSAGE(r.err.find(bad.string() + ":3:10: error: custom op 'tt.frobnicate' is unknown") != std::string::npos,
                r.err);
}

TEST_CASE("perfbound run: TTIR with `ttg.barrier local` (Triton 3.5) runs, the barrier listed as not counted") {
  pbtest::TempDir out;
  pbtest::CliResult r = pbtest::run_cli({"run", kPipeline.string(), "--set",
                                         "ttir=" + kernel_file("coverage_forms.ttir").string(), "--set",
                                         "launch={grid=[4],kernel=\"barrier_add\"}", "--out", out.path().string(),
                                         "--format", "text"});
  REQUIRE_MESSAGE(r.code == 0, (r.out + r.err));
  json doc = json::parse(pbtest::read_file(out / "facts.json"));
  REQUIRE(doc.at("not_counted").size() == 2);
  CHECK(doc.at("not_counted")[0].at("op") == "ttg.barrier");
  CHECK(r.out.find("Not counted") != std::string::npos);
}

TEST_CASE("perfbound plugin check: the plugin passes every ABI check and runs its examples") {
  pbtest::CliResult r = pbtest::run_cli({"plugin", "check", PB_TTIR_PLUGIN});
  CHECK_MESSAGE(r.code == 0, (r.out + r.err));
  CHECK(r.out.find("example 'vector add, BLOCK_SIZE 2048, 16M f32 elements' run: returned PB_OK") != std::string::npos);
  CHECK(r.out.find("example 'TTIR with an unknown grid axis' run: returned PB_ERR_INVALID_INPUT") != std::string::npos);
  CHECK(r.out.find("OK: no violations") != std::string::npos);
}
