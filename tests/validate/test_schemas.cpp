//===- test_schemas.cpp - the validate plugin's documents match their schemas ===//
//
// The documents `perfbound validate` and `perfbound counterfactual` print are
// not pipeline edges, so the host never checks them: check here, against the
// published abi/schemas/, with the host's own schema validator.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <perfbound/sdk/json.hpp>

#include "corpus.hpp"
#include "measurement.hpp"
#include "support/schema_support.hpp"
#include "support/test_support.hpp"
#include "validate_support.hpp"
#include "validation.hpp"

namespace fs = std::filesystem;
using pbtest::validate::fixtures;
using pbtest::validate::request_for;
namespace pv = perfbound::validate;
using pb::sdk::json;

namespace {

void check_valid(const json &doc) { pbtest::check_schema_valid(doc); }

json measure(const std::string &file, const std::string &kernel, size_t warmup) {
  return pv::measure_file(fixtures() / file, request_for(kernel, warmup));
}

}  // namespace

TEST_CASE("measurement, validation and corpus documents match their published schemas") {
  std::vector<json> measurements = {measure("op_summary_mix.csv", "mix_k", 1), measure("kernel_details_small.csv", "add_kernel", 1),
                                    measure("op_basic_info_small.csv", "my_kernel", 0), measure("op_summary_mix.csv", "absent", 0),
                                    measure("op_summary_mix.csv", "mix_k", 9),
                                    pv::no_measurement("k", "manifest.toml:3:1", "never measured")};
  for (const json &m : measurements) check_valid(m);
  // A report in the bound_report contract, as the models plugin writes it.
  json report = {{"schema", "perfbound.bound_report/1"},
                 {"kernel", {{"name", "mix_k"}}},
                 {"profile", {{"name", "ascend_910b3"}}},
                 {"bound", {{"value", 90e-6}, {"unit", "s"}, {"tier", "hivm"}, {"binding_term", "t"}, {"binding_component", "scalar"}}},
                 {"limits",
                  {{"dsl", {{"value", 50e-6}, {"unit", "s"}}}, {"hivm", {{"value", 90e-6}, {"unit", "s"}}}, {"invariant", {{"holds", true}}}}},
                 {"terms", json::array()},
                 {"verdict", {{"class", "latency-bound"}, {"unit", "scalar"}}},
                 {"attribution", json::object()},
                 {"findings", json::array()}};
  check_valid(report);
  pv::ReportOrigin origin;
  origin.origin = "report.json";
  for (const json &m : measurements) check_valid(pv::validate_bound(report, m, origin, "c"));
  check_valid(pv::validate_bound(nullptr, measurements[0], origin, "c", "no pipeline"));
  json unsound = report;
  unsound["bound"]["value"] = 97e-6;
  check_valid(pv::validate_bound(unsound, measurements[0], origin, ""));

  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "r.json", report.dump());
  pbtest::write_file(tmp / "m.toml", "version = 1\ndata_root = \"" + fixtures().string() +
                                         "\"\n[[case]]\nname = \"a\"\nkernel = \"mix_k\"\nreport = \"manifest:r.json\"\n"
                                         "measurement = { file = \"op_summary_mix.csv\", warmup = 1, rule = \"corpus-median/1\" }\n"
                                         "[[case]]\nname = \"b\"\nkernel = \"k\"\nreport = \"manifest:missing.json\"\nno_measurement = \"none\"\n");
  pv::Corpus corpus = pv::load_corpus(tmp / "m.toml", std::nullopt);
  check_valid(pv::run_corpus(corpus, [&](const pv::CorpusCase &c) { return pv::read_saved_report(*c.report, "report"); }));
}

TEST_CASE("counterfactual documents match their published schema") {
  pbtest::TempDir tmp;
  const fs::path hivm = pbtest::source_dir() / "examples" / "kernels" / "vector_add" / "vector_add.npuir.mlir";
  pbtest::write_file(tmp / "cf.toml", "version = 1\nkernel = \"add_kernel\"\nhivm = \"" + hivm.string() +
                                          "\"\nlaunch = { grid = [8192] }\n[[edit]]\nkind = \"remove_barrier\"\nline = 63\n"
                                          "[[edit]]\nkind = \"remove_sync_pair\"\nset_line = 53\nwait_line = 54\n"
                                          "[recorded]\nbaseline = \"" + (fixtures() / "op_summary_mix.csv").string() +
                                          "\"\nedited = \"" + (fixtures() / "op_summary_mix.csv").string() + "\"\nwarmup = 1\n");
  pbtest::CliResult r = pbtest::run_cli({"counterfactual", (tmp / "cf.toml").string(), "--out", (tmp / "out").string(), "--json"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json doc = json::parse(r.out);
  CHECK(doc["status"] == "PREDICTED");
  check_valid(doc);
}
