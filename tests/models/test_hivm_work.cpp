//===- test_hivm_work.cpp - the aggregated HIVM work document -------------===//
//
// The shipped pipelines aggregate the hivm_program once (`hivm_work` node)
// and wire the result into every HIVM-tier term and the combiner. Wiring
// the program itself into each node must give the same report, the
// document must read back into the same view, and a malformed one must be
// refused naming the member and the row.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "hivm_view.hpp"
#include "models_test_util.hpp"
#include "term.hpp"

namespace m = pb::models;
using modelstest::json;

namespace {

/// bound_hivm.toml as it was before the `hivm_work` node: every term and
/// the combiner read the whole program.
std::string program_wired_pipeline() {
  std::string toml = R"(version = 1
[inputs]
hivm = { kind = "file", schema = "perfbound.hivm_text/1" }
launch = { kind = "table", schema = "perfbound.launch/1" }
profile = { kind = "profile", default = "ascend_910b3" }
[nodes.ops]
plugin = "perfbound.extract_hivm"
kind = "hivm_program"
inputs = { hivm = "inputs.hivm", launch = "inputs.launch", profile = "inputs.profile" }
)";
  const std::pair<const char *, const char *> terms[] = {
      {"grid", "grid_floor"}, {"core", "component_floor"}, {"memory", "memory"}, {"serial", "serialization"}, {"issue", "issue_floor"}};
  for (const auto &[node, kind] : terms)
    toml += std::string("[nodes.") + node + "]\nplugin = \"perfbound.models\"\nkind = \"" + kind +
            "\"\ninputs = { hivm = \"ops.program\", profile = \"inputs.profile\" }\n";
  toml += R"([nodes.path]
plugin = "perfbound.models"
kind = "critical_path"
inputs = { hivm = "ops.program", profile = "inputs.profile" }
[nodes.bound]
plugin = "perfbound.models"
kind = "combiner"
inputs = { terms = ["grid.term", "core.term", "memory.term", "serial.term", "issue.term", "path.term"], hivm = "ops.program", profile = "inputs.profile" }
[outputs]
bound = "bound.report"
findings = "bound.findings"
program = "ops.program"
)";
  return toml;
}

/// The same report through both wirings, and the program document.
json same_report_both_ways(const std::string &hivm, const std::string &launch) {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "program_wired.toml", program_wired_pipeline());
  std::vector<std::string> args{"--set", "hivm=" + hivm, "--set", launch};
  modelstest::RunOut via_work = modelstest::run_pipeline(modelstest::pipeline("bound_hivm.toml"), args);
  modelstest::RunOut via_program = modelstest::run_pipeline((tmp / "program_wired.toml").string(), args);
  REQUIRE(via_work.report.is_object());
  CHECK(via_work.report == via_program.report);
  CHECK(via_work.findings == via_program.findings);
  pbtest::CliResult r = pbtest::run_cli({"run", (tmp / "program_wired.toml").string(), "--set", "hivm=" + hivm, "--set",
                                         launch, "--out", (tmp / "out").string(), "-q"});
  REQUIRE(r.code == 0);
  return json::parse(pbtest::read_file(tmp / "out" / "program.json"));
}

/// to_work -> from_work -> to_work is the identity.
void check_round_trip(const json &program) {
  m::HivmView view = m::HivmView::from_json(program, "test");
  json work = view.to_work();
  CHECK(work["schema"] == m::kHivmWorkSchema);
  m::HivmView back = m::HivmView::from_work(work, "test.work");
  CHECK(back.to_work() == work);
  CHECK(back.blocks == view.blocks);
  CHECK(back.components.size() == view.components.size());
  CHECK(back.transfers.size() == view.transfers.size());
}

}  // namespace

TEST_CASE("hivm_work: the bundled vector add gives the same report wired through the work document") {
  json program = same_report_both_ways(modelstest::example("vector_add.npuir.mlir"), "launch={grid=[8192],args={\"3\"=16777216}}");
  check_round_trip(program);
}

TEST_CASE("hivm_work: chunk_kda and seeded_serial give the same report wired through the work document") {
  PBTEST_REQUIRE_SHARED();
  check_round_trip(same_report_both_ways(modelstest::shared_hivm("chunk_kda.npuir.mlir"),
                                         "launch={grid=[128,32],args={\"20\"=8192,\"22\"=8192}}"));
  check_round_trip(same_report_both_ways(modelstest::shared_hivm("seeded_serial_on.npuir.mlir"),
                                         "launch={grid=[4096],args={\"4\"=8388608,\"5\"=65536}}"));
}

TEST_CASE("hivm_work: a malformed document is refused naming the member and the row") {
  m::HivmView view;
  view.origin = "k.mlir";
  view.kernel = "k";
  view.blocks = 8;
  view.aiv.present = true;
  view.aiv.function = "@k";
  view.transfers.push_back({false, 8192, 8192, "gm_to_ub", "aiv", {8192, 0}, 12, "arg"});
  json work = view.to_work();
  CHECK(m::HivmView::from_work(work, "node.work").transfers.front().line == 12);

  json short_row = work;
  short_row["transfers"][0].erase(7);
  CHECK_THROWS_WITH_AS(m::HivmView::from_work(short_row, "node.work"),
                       "node.work: perfbound.hivm_work/1: transfers[0] must be a row of 9 fields", pb::sdk::InputError);
  json bad_amount = work;
  bad_amount["transfers"][0][5] = json::array({1});
  CHECK_THROWS_WITH_AS(m::HivmView::from_work(bad_amount, "node.work"),
                       "node.work: perfbound.hivm_work/1: transfers: an amount is [per-block minimum, grid excess] or [per-block minimum, grid excess, given per-block, given grid excess]",
                       pb::sdk::InputError);
  json no_cores = work;
  no_cores["cores"] = json::object();
  CHECK_THROWS_WITH_AS(m::HivmView::from_work(no_cores, "node.work"),
                       "node.work: perfbound.hivm_work/1: no AIC or AIV core in 'cores'", pb::sdk::InputError);
  json missing = work;
  missing.erase("edges");
  CHECK_THROWS_WITH_AS(m::HivmView::from_work(missing, "node.work"),
                       "node.work: perfbound.hivm_work/1: member 'edges' must be an array", pb::sdk::InputError);
}
