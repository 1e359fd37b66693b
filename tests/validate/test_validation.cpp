//===- test_validation.cpp - tri-state validation, corpus runner, CLI -----===//
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include <sys/stat.h>

#include <perfbound/sdk/json.hpp>

#include "corpus.hpp"
#include "measurement.hpp"
#include "support/test_support.hpp"
#include "validate_support.hpp"
#include "validation.hpp"

namespace fs = std::filesystem;
using pbtest::validate::error_of;
using pbtest::validate::fixtures;
using pbtest::validate::request_for;
namespace pv = perfbound::validate;
using pb::sdk::json;

namespace {

/// A bound report in the perfbound.bound_report/1 contract, written by hand
/// (the models plugin writes the real ones): times in seconds.
json report(double bound, double dsl, double hivm, const std::string &component) {
  return {{"schema", "perfbound.bound_report/1"},
          {"kernel", {{"name", "mix_k"}}},
          {"profile", {{"name", "ascend_910b3"}}},
          {"bound",
           {{"value", bound}, {"unit", "s"}, {"tier", "hivm"}, {"binding_term", "scalar_issue"}, {"binding_component", component}}},
          {"limits",
           {{"dsl", {{"value", dsl}, {"unit", "s"}}}, {"hivm", {{"value", hivm}, {"unit", "s"}}}, {"invariant", {{"holds", true}}}}},
          {"terms", json::array()},
          {"verdict", {{"class", "latency-bound"}, {"unit", component}}},
          {"attribution", json::object()},
          {"findings", json::array()}};
}

/// mix_k in our fixture, drop 1: kept 98, 101, 96 us -> median 98, min 96;
/// dominant pipe aiv scalar (test_measurement.cpp derives these).
json mix_measurement() {
  pv::MeasureRequest request = request_for("mix_k", 1);
  return pv::measure_file(fixtures() / "op_summary_mix.csv", request);
}

pv::ReportOrigin origin(const std::string &where) {
  pv::ReportOrigin o;
  o.origin = where;
  return o;
}

}  // namespace

TEST_CASE("PASS: the bound is at or below the fastest kept launch; tightness and reachability") {
  // Bound 90 us (HIVM), DSL 50 us; measured median 98, min 96.
  json v = pv::validate_bound(report(90e-6, 50e-6, 90e-6, "scalar"), mix_measurement(), origin("r.json"), "mix");
  CHECK(v["status"] == "PASS");
  CHECK(v["infra"].is_null());
  CHECK(v["reason"] == "T_bound 90.0 us <= fastest kept launch 96.0 us");
  CHECK(v["soundness"]["sound"] == true);
  // margin = 96 - 90 = 6 us; tightness = 98 / 90 = 1.0889.
  CHECK(v["soundness"]["margin"]["value"].get<double>() == doctest::Approx(6e-6));
  CHECK(v["tightness"]["value"].get<double>() == doctest::Approx(98.0 / 90.0));
  // Compiler headroom 90 - 50 = 40 us (ratio 1.8), author headroom 98 - 90 = 8 us.
  const json &r = v["reachability"];
  CHECK(r["levels"][0]["level"] == "T_bound_DSL");
  CHECK(r["levels"][2]["provenance"]["statistic"] == "median of the kept launches");
  CHECK(r["levels"][2]["provenance"]["source"]["origin"] == (fixtures() / "op_summary_mix.csv").string());
  CHECK(r["compiler_headroom"]["value"].get<double>() == doctest::Approx(40e-6));
  CHECK(r["compiler_headroom"]["ratio"].get<double>() == doctest::Approx(1.8));
  CHECK(r["author_headroom"]["value"].get<double>() == doctest::Approx(8e-6));
  CHECK(r["ordered"]["holds"] == true);
  // Predicted scalar, msprof's largest pipe column is aiv_scalar_time.
  CHECK(v["binding"]["predicted"] == "scalar");
  CHECK(v["binding"]["measured"] == "scalar");
  CHECK(v["binding"]["measured_column"] == "aiv_scalar_time(us)");
  CHECK(v["binding"]["match"] == true);
}

TEST_CASE("FAIL: a bound above any kept launch says by how much") {
  // Bound 97 us against kept launches 98, 101, 96: one ran faster; the
  // excess over the fastest is 1 us = 1.04 % of 96.
  json v = pv::validate_bound(report(97e-6, 50e-6, 97e-6, "vector"), mix_measurement(), origin("r.json"), "mix");
  CHECK(v["status"] == "FAIL");
  CHECK(v["soundness"]["sound"] == false);
  CHECK(v["soundness"]["faster_launches"] == 1);
  CHECK(v["soundness"]["excess"]["value"].get<double>() == doctest::Approx(1e-6));
  CHECK(v["reason"] == "unsound: T_bound 97.0 us exceeds the fastest kept launch 96.0 us by 1.0 us (1.04 %); "
                       "1 of 3 kept launches ran faster than the bound");
  CHECK(v["reachability"]["ordered"]["holds"] == false);
  CHECK(v["reachability"]["ordered"]["message"] == "T_bound_HIVM 97.0 us > fastest launch 96.0 us");
  // Predicted vector, measured scalar.
  CHECK(v["binding"]["match"] == false);
  // The bound equal to the fastest launch is still sound.
  CHECK(pv::validate_bound(report(96e-6, 50e-6, 96e-6, "scalar"), mix_measurement(), origin("r"), "")["status"] == "PASS");
}

TEST_CASE("INFRA_ERROR: no measurement or no bound is never a pass") {
  pv::MeasureRequest request = request_for("absent", 0);
  json none = pv::measure_file(fixtures() / "op_summary_mix.csv", request);
  json v = pv::validate_bound(report(1e-6, 1e-6, 1e-6, "scalar"), none, origin("r"), "c");
  CHECK(v["status"] == "INFRA_ERROR");
  CHECK(v["infra"] == "no_measurement");
  CHECK(v["soundness"]["sound"].is_null());
  CHECK(v["tightness"]["value"].is_null());
  json nb = pv::validate_bound(nullptr, mix_measurement(), origin("pipeline p.toml"), "c", "node 'core' failed: boom");
  CHECK(nb["status"] == "INFRA_ERROR");
  CHECK(nb["infra"] == "no_bound");
  CHECK(nb["reason"] == "no bound: node 'core' failed: boom");
  // A report whose bound is unknown (value null with a reason) is no bound.
  json unknown = report(0, 1e-6, 1e-6, "scalar");
  unknown["bound"]["value"] = nullptr;
  unknown["bound"]["reason"] = "no launch grid";
  CHECK(pv::validate_bound(unknown, mix_measurement(), origin("r"), "c")["reason"] == "no bound: no launch grid");
}

TEST_CASE("validation refuses documents outside the contract") {
  json broken = report(1e-6, 1e-6, 1e-6, "scalar");
  broken.erase("limits");
  CHECK(error_of([&] { pv::validate_bound(broken, mix_measurement(), origin("r.json"), ""); })
            .find("r.json") == 0);
  CHECK(error_of([&] { pv::validate_bound(report(1e-6, 1e-6, 1e-6, "x"), json{{"schema", "other/1"}}, origin("r"), ""); }) ==
        "measurement: not a perfbound.measurement/1 document");
  // A negative or non-finite bound in a saved report is refused, never PASS.
  CHECK(error_of([&] { pv::validate_bound(report(-1e-6, 1e-6, 1e-6, "scalar"), mix_measurement(), origin("r.json"), ""); }) ==
        "r.json.bound.value: -1e-06 is negative; a lower bound on a run time is never below 0 s");
  CHECK(error_of([&] { pv::validate_bound(report(NAN, 1e-6, 1e-6, "scalar"), mix_measurement(), origin("r.json"), ""); }) ==
        "r.json.bound.value: NaN is not a finite number of seconds");
  json text_bound = report(1e-6, 1e-6, 1e-6, "scalar");
  text_bound["bound"]["value"] = "fast";
  CHECK(error_of([&] { pv::validate_bound(text_bound, mix_measurement(), origin("r.json"), ""); }) ==
        "r.json.bound.value: expected a number of seconds or null, got \"fast\"");
  // DSL above HIVM breaks the ordering the two tiers promise.
  json v = pv::validate_bound(report(90e-6, 95e-6, 90e-6, "scalar"), mix_measurement(), origin("r"), "");
  CHECK(v["reachability"]["ordered"]["holds"] == false);
  CHECK(v["reachability"]["ordered"]["message"] == "T_bound_DSL 95.0 us > T_bound_HIVM 90.0 us");
}

TEST_CASE("binding components: msprof vocabulary, hbm covers both memory pipes") {
  CHECK(pv::binding_matches("scalar", "scalar"));
  CHECK(pv::binding_matches("Vector", "vector"));
  CHECK(pv::binding_matches("hbm", "mte2"));
  CHECK(pv::binding_matches("hbm", "mte3"));
  CHECK_FALSE(pv::binding_matches("hbm", "vector"));
  CHECK_FALSE(pv::binding_matches("mte2", "mte3"));
}

namespace {

/// A corpus of saved reports next to the manifest and our own CSVs.
struct OwnCorpus {
  pbtest::TempDir dir;
  fs::path manifest;

  explicit OwnCorpus(double pass_bound, double second_bound) {
    pbtest::write_file(dir / "pass.json", report(pass_bound, 50e-6, pass_bound, "scalar").dump());
    pbtest::write_file(dir / "second.json", report(second_bound, 20e-6, second_bound, "vector").dump());
    manifest = dir / "corpus.toml";
    pbtest::write_file(manifest, "version = 1\n"
                                 "description = \"own\"\n"
                                 "data_root = \"" + fixtures().string() + "\"\n"
                                 "[[case]]\n"
                                 "name = \"mix\"\n"
                                 "kernel = \"mix_k\"\n"
                                 "report = \"manifest:pass.json\"\n"
                                 "measurement = { file = \"op_summary_mix.csv\", warmup = 1, rule = \"corpus-median/1\" }\n"
                                 "[[case]]\n"
                                 "name = \"details\"\n"
                                 "kernel = \"add_kernel\"\n"
                                 "report = \"manifest:second.json\"\n"
                                 "measurement = { file = \"kernel_details_small.csv\", warmup = 1, rule = \"corpus-median/1\" }\n"
                                 "[[case]]\n"
                                 "name = \"unmeasured\"\n"
                                 "kernel = \"k\"\n"
                                 "report = \"manifest:pass.json\"\n"
                                 "no_measurement = \"never run on hardware\"\n");
  }
};

pv::BoundSource saved_reports(const pv::Corpus &corpus) {
  return [&corpus](const pv::CorpusCase &c) { return pv::read_saved_report(*c.report, corpus.report_output); };
}

}  // namespace

TEST_CASE("corpus runner: summary, exit codes and the stable table") {
  SUBCASE("sound cases and one without a measurement: exit 0") {
    // mix: bound 90 us vs min 96 -> PASS, tightness 98/90 = 1.09x.
    // details: bound 30 us vs min 40 (kept 44, 40, 42; median 42) -> PASS,
    // tightness 42/30 = 1.40x. unmeasured: INFRA_ERROR.
    OwnCorpus own(90e-6, 30e-6);
    pv::Corpus corpus = pv::load_corpus(own.manifest, std::nullopt);
    json doc = pv::run_corpus(corpus, saved_reports(corpus));
    CHECK(doc["summary"]["pass"] == 2);
    CHECK(doc["summary"]["infra_error"] == 1);
    CHECK(doc["summary"]["no_measurement"] == 1);
    CHECK(doc["summary"]["soundness"]["rate"] == 1.0);
    // geometric mean of 98/90 and 42/30 = sqrt(1.08889 * 1.4) = 1.23467.
    CHECK(doc["summary"]["tightness"]["geomean"].get<double>() == doctest::Approx(1.23467).epsilon(1e-4));
    CHECK(doc["exit_code"] == 0);
    std::vector<std::string> table = pbtest::lines(pv::render_corpus_table(doc));
    // The header lines wrap at 100 columns (the manifest's path is a long temporary one): find the table.
    size_t h = 0;
    while (h < table.size() && table[h].rfind("case ", 0) != 0) ++h;
    REQUIRE(h + 12 == table.size());
    for (const std::string &line : table) CHECK_MESSAGE(line.size() <= 100, line);
    // Coverage: these saved reports carry none ("-"). The binding has its own line (100 columns).
    CHECK(table[h + 0] == "case        status         bound(us)  measured(us)      min(us)  tightness  coverage");
    CHECK(table[h + 1] == "mix         PASS                90.0          98.0         96.0      1.09x         -");
    CHECK(table[h + 2] == "            binding (predicted / msprof): scalar / scalar (match)");
    CHECK(table[h + 3] == "details     PASS                30.0          42.0         40.0      1.40x         -");
    CHECK(table[h + 4] == "            binding (predicted / msprof): vector / vector (match)");
    CHECK(table[h + 5] == "unmeasured  INFRA_ERROR         90.0             -            -          -         -");
    CHECK(table[h + 6] == "            binding (predicted / msprof): scalar / -");
    CHECK(table[h + 7] == "            no usable measurement: the manifest lists none: never run on hardware");
    CHECK(table[h + 9] == "summary: 2 validated: 2 PASS, 0 FAIL (sound 2/2); 1 INFRA_ERROR (1 no measurement, 0 no bound)");
  }
  SUBCASE("one unsound case: exit 4") {
    OwnCorpus own(90e-6, 41e-6);
    pv::Corpus corpus = pv::load_corpus(own.manifest, std::nullopt);
    json doc = pv::run_corpus(corpus, saved_reports(corpus));
    CHECK(doc["summary"]["fail"] == 1);
    CHECK(doc["exit_code"] == 4);
  }
  SUBCASE("nothing could be validated: exit 5") {
    OwnCorpus own(90e-6, 30e-6);
    pv::Corpus corpus = pv::load_corpus(own.manifest, std::nullopt);
    pv::BoundSource none = [](const pv::CorpusCase &) {
      pv::BoundOutcome out;
      out.error = "bound pipeline missing";
      return out;
    };
    json doc = pv::run_corpus(corpus, none);
    CHECK(doc["summary"]["infra_error"] == 3);
    CHECK(doc["summary"]["no_bound"] == 2);
    CHECK(doc["exit_code"] == 5);
  }
}

TEST_CASE("corpus manifest mistakes name file, line and column") {
  pbtest::TempDir tmp;
  const fs::path manifest = tmp / "m.toml";
  pbtest::write_file(manifest, "version = 1\n[[case]]\nname = \"a\"\nkernel = \"k\"\nreport = \"r.json\"\n"
                               "measurement = { file = \"x.csv\", warmup = 1, rule = \"mean\" }\n");
  std::string err = error_of([&] { pv::load_corpus(manifest, tmp.path()); });
  CHECK(err.rfind(manifest.string() + ":6:", 0) == 0);
  CHECK(err.find("unknown rule 'mean'") != std::string::npos);
  pbtest::write_file(manifest, "version = 1\n[[case]]\nname = \"a\"\nkernel = \"k\"\nreport = \"r.json\"\ncolour = 1\n"
                               "no_measurement = \"none\"\n");
  err = error_of([&] { pv::load_corpus(manifest, tmp.path()); });
  CHECK(err.rfind(manifest.string() + ":", 0) == 0);
  CHECK(err.find("colour") != std::string::npos);
  CHECK(error_of([&] { pv::load_corpus(tmp / "none.toml", tmp.path()); }) == (tmp / "none.toml").string() + ": corpus manifest not found");
}

TEST_CASE("perfbound validate: table, --json and exit codes through the real binary") {
  OwnCorpus own(90e-6, 30e-6);
  pbtest::CliResult table = pbtest::run_cli({"validate", "--corpus", own.manifest.string()});
  CHECK(table.code == 0);
  CHECK(table.out.find("mix         PASS                90.0          98.0         96.0      1.09x") != std::string::npos);
  pbtest::CliResult js = pbtest::run_cli({"validate", "--corpus", own.manifest.string(), "--json", "--case", "details"});
  REQUIRE(js.code == 0);
  json doc = json::parse(js.out);
  CHECK(doc["schema"] == "perfbound.corpus_validation/1");
  REQUIRE(doc["cases"].size() == 1);
  CHECK(doc["cases"][0]["tightness"]["value"].get<double>() == doctest::Approx(42.0 / 30.0));

  OwnCorpus unsound(97e-6, 30e-6);
  CHECK(pbtest::run_cli({"validate", "--corpus", unsound.manifest.string()}).code == 4);

  // One report against one measurement file.
  pbtest::CliResult one = pbtest::run_cli({"validate", "--report", (unsound.dir / "pass.json").string(), "--measurement",
                                           (fixtures() / "op_summary_mix.csv").string(), "--kernel", "mix_k", "--warmup", "1"});
  CHECK(one.code == 4);
  CHECK(one.out.find("mix_k: FAIL") != std::string::npos);
  pbtest::CliResult infra = pbtest::run_cli({"validate", "--report", (unsound.dir / "pass.json").string(), "--measurement",
                                             (fixtures() / "op_summary_mix.csv").string(), "--kernel", "nope"});
  CHECK(infra.code == 5);
  CHECK(pbtest::run_cli({"validate", "--corpus", own.manifest.string(), "--report", "x"}).code == 2);
  CHECK(pbtest::run_cli({"validate", "--bogus"}).code == 2);
  pbtest::CliResult bad = pbtest::run_cli({"validate", "--corpus", (own.dir / "missing.toml").string()});
  CHECK(bad.code == 3);
  CHECK(bad.err == "perfbound validate: " + (own.dir / "missing.toml").string() + ": corpus manifest not found\n");
}

TEST_CASE("the bound report inside a pipeline's run result") {
  json bound = report(90e-6, 50e-6, 90e-6, "scalar");
  json run = {{"schema", "perfbound.run_result/1"},
              {"status", "ok"},
              {"outputs", {{"bound", bound}, {"findings", {{"schema", "perfbound.findings/1"}}}}}};
  CHECK(pv::report_from_run_result(run, "bound", "run.json").report == bound);
  // Another output name: the one bound report among the outputs is taken.
  CHECK(pv::report_from_run_result(run, "report", "run.json").report == bound);
  // A failed run: no report, and why.
  json failed = {{"schema", "perfbound.run_result/1"},
                 {"status", "failed"},
                 {"outputs", json::object()},
                 {"nodes", json::array({{{"id", "core"}, {"status", "failed"}, {"error", "no launch grid"}}})}};
  pv::BoundOutcome none = pv::report_from_run_result(failed, "bound", "pipeline p.toml");
  CHECK(none.report.is_null());
  CHECK(none.error == "the bound pipeline run is failed; node 'core' failed: no launch grid");
}

TEST_CASE("the measurement and validate node kinds in a pipeline, documents checked on the edges") {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "report.json", report(90e-6, 50e-6, 90e-6, "scalar").dump());
  const std::string pipeline = (pbtest::test_source_dir() / "validate" / "data" / "validate_saved_report.toml").string();
  auto run = [&](const fs::path &csv) {
    return pbtest::run_cli({"run", pipeline, "--set", "report=" + (tmp / "report.json").string(), "--set", "csv=" + csv.string(),
                            "--set", "measure.kernel=mix_k", "--set", "measure.warmup=1", "--out", (tmp / "out").string()});
  };
  pbtest::CliResult ok = run(fixtures() / "op_summary_mix.csv");
  REQUIRE_MESSAGE(ok.code == 0, ok.err);
  json validation = json::parse(pbtest::read_file(tmp / "out" / "validation.json"));
  CHECK(validation["status"] == "PASS");
  CHECK(validation["case"] == "saved");
  CHECK(validation["tightness"]["value"].get<double>() == doctest::Approx(98.0 / 90.0));
  // A malformed CSV fails the measurement node with file:line:column.
  // "0,1,1,mix_k,MIX_AIC,1\t," is 23 characters: the duration is at 24.
  pbtest::write_file(tmp / "bad.csv", "Device_id,Task ID,Stream ID,Op Name,Task Type,Task Start Time(us),Task Duration(us)\n"
                                      "0,1,1,mix_k,MIX_AIC,1\t,slow\n");
  pbtest::CliResult bad = run(tmp / "bad.csv");
  CHECK(bad.code == 3);  // the node refused its input: invalid input (docs/cli.md)
  CHECK(bad.err.find((tmp / "bad.csv").string() + ":2:24: column 'Task Duration(us)': expected a number, got 'slow'") !=
        std::string::npos);
}

TEST_CASE("perfbound validate --corpus on ../shared/data/corpus with the real bound pipelines") {
  PBTEST_REQUIRE_SHARED();
  const std::string manifest = (pbtest::source_dir() / "tests" / "corpus" / "shared_corpus.toml").string();
  pbtest::CliResult r = pbtest::run_cli({"validate", "--corpus", manifest, "--data", (pbtest::shared_dir() / "data").string(), "--json"});
  // Every measured case must be sound: a bound above the fastest launch is a
  // bug whatever its tightness (exit 4 would say so).
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json doc = json::parse(r.out);
  CHECK(doc["summary"]["fail"] == 0);
  CHECK(doc["summary"]["pass"] == 3);
  CHECK(doc["summary"]["no_bound"] == 0);
  std::map<std::string, json> cases;
  for (const json &c : doc["cases"]) cases[c["case"].get<std::string>()] = c;
  // The measured side, hand-derived in test_measurement.cpp (CORPUS.md).
  CHECK(cases["chunk_kda"]["measurement"]["t_min"]["value"].get<double>() == doctest::Approx(104228.240e-6));
  CHECK(cases["seeded_serial_on"]["measurement"]["t_measured"]["value"].get<double>() == doctest::Approx(3289.604e-6));
  CHECK(cases["vector_add_16m"]["measurement"]["t_min"]["value"].get<double>() == doctest::Approx(257.664e-6));
  for (const char *name : {"chunk_kda", "seeded_serial_on", "vector_add_16m"}) {
    INFO(name);
    CHECK(cases[name]["status"] == "PASS");
    CHECK(cases[name]["reachability"]["ordered"]["holds"] == true);
    // Both tiers came from the pipeline (vector_add runs bound.toml with the TTIR).
    CHECK(cases[name]["bound"]["value"].is_number());
  }
  // msprof says chunk_kda's AIV is scalar-bound (CORPUS.md).
  CHECK(cases["chunk_kda"]["binding"]["measured"] == "scalar");
  CHECK(cases["amort_copy_128"]["infra"] == "no_measurement");
}

TEST_CASE("corpus data root: --data, then the manifest's data_root, then the fallback ($PERFBOUND_SHARED_DIR/data)") {
  pbtest::TempDir tmp;
  fs::create_directories(tmp / "given");
  fs::create_directories(tmp / "env");
  const std::string cases = "[[case]]\nname = \"a\"\nkernel = \"k\"\nreport = \"r.json\"\nno_measurement = \"none\"\n";
  pbtest::write_file(tmp / "with.toml", "version = 1\ndata_root = \"given\"\n" + cases);
  pbtest::write_file(tmp / "without.toml", "version = 1\n" + cases);
  CHECK(pv::load_corpus(tmp / "with.toml", std::nullopt, tmp / "env").data_root == tmp / "given");
  CHECK(pv::load_corpus(tmp / "with.toml", tmp / "env", tmp / "given").data_root == tmp / "env");
  CHECK(pv::load_corpus(tmp / "without.toml", std::nullopt, tmp / "env").data_root == tmp / "env");
  CHECK(pv::load_corpus(tmp / "without.toml", std::nullopt).data_root == tmp.path());
  // The environment does not override a manifest's data_root.
  pbtest::CliResult r = pbtest::run_cli({"validate", "--corpus", (tmp / "with.toml").string(), "--json"}, {},
                                        {{"PERFBOUND_SHARED_DIR", "/nonexistent"}});
  CHECK(json::parse(r.out)["data_root"] == (tmp / "given").string());
}

TEST_CASE("perfbound validate --corpus --format html: one row and one chart row per case, bounds against measurements") {
  OwnCorpus own(90e-6, 30e-6);
  // A strict bound and a coverage on the first case's report, and a case name
  // that must be escaped.
  json first = report(90e-6, 50e-6, 90e-6, "scalar");
  first["bound"]["strict"] = {{"value", 80e-6}, {"unit", "s"}};
  first["bound"]["assurance"] = "argued";
  first["coverage"] = {{"aiv.scalar", {{"counted", 3}, {"present", 4}, {"share", 0.75}}}};
  pbtest::write_file(own.dir / "pass.json", first.dump());
  std::string manifest = pbtest::read_file(own.manifest);
  manifest.replace(manifest.find("name = \"unmeasured\""), 19, "name = \"<script>u</script>\"");
  pbtest::write_file(own.manifest, manifest);
  pbtest::CliResult r = pbtest::run_cli({"validate", "--corpus", own.manifest.string(), "--format", "html"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string &html = r.out;
  auto count = [&](const std::string &what) {
    size_t n = 0;
    for (size_t at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
    return n;
  };
  // Three cases in the manifest: three table rows and three chart rows.
  CHECK(count("<tr class=\"case\"") == 3);
  CHECK(count("<g class=\"case-row\"") == 3);
  CHECK(html.find("<script>u") == std::string::npos);
  CHECK(html.find("&lt;script&gt;u&lt;/script&gt;") != std::string::npos);
  // mix: bound 90 us (argued), strict 80 us, measured min 96 / median 98 us (fixture, drop 1), coverage 75 %.
  size_t row = html.find("<g class=\"case-row\" data-case=\"mix\"");
  REQUIRE(row != std::string::npos);
  std::string mix = html.substr(row, html.find("</g>\n", row) - row);
  auto marker = [&](const std::string &cls) {
    size_t at = mix.find("class=\"" + cls + "\" data-seconds=\"");
    REQUIRE_MESSAGE(at != std::string::npos, "no marker " << cls);
    at = mix.find("data-seconds=\"", at) + 14;
    return std::stod(mix.substr(at, mix.find('"', at) - at));
  };
  CHECK(marker("m-strict") == doctest::Approx(80e-6));
  CHECK(marker("m-bound") == doctest::Approx(90e-6));
  CHECK(marker("m-min") == doctest::Approx(96e-6));
  CHECK(marker("m-median") == doctest::Approx(98e-6));
  CHECK(html.find("aiv.scalar 75 %") != std::string::npos);
  CHECK(html.find("<span class=\"pill INFRA_ERROR\">") != std::string::npos);
  CHECK(pbtest::run_cli({"validate", "--corpus", own.manifest.string(), "--format", "svg"}).code == 2);
  CHECK(pbtest::run_cli({"validate", "--report", "r.json", "--measurement", "m", "--kernel", "k", "--format", "html"}).code == 2);
}

TEST_CASE("validation: the report's coverage is carried per case, with its warning") {
  // A report that counts 3 of 4 ops says so; the validation keeps the share
  // and the sentence, and the single-case view prints both.
  json r = report(90e-6, 50e-6, 90e-6, "scalar");
  r["coverage"] = {{"hivm", {{"share", 0.75}, {"ops_counted", 3}, {"ops_present", 4}}},
                   {"warning", "the bound counts 3 of 4 ops: 1 is in the loop at line 40 whose trip count is unknown"}};
  json v = pv::validate_bound(r, mix_measurement(), origin("cov.json"), "cov", "");
  CHECK(v["bound"]["coverage"]["share"] == 0.75);
  CHECK(v["bound"]["coverage"]["ops_present"] == 4);
  // The view wraps at 100 columns: read it with the wrapping undone.
  std::string text = pbtest::unwrapped(pv::render_validation(v));
  CHECK(text.find("coverage: 75 % of the kernel's ops counted; the bound counts 3 of 4 ops: 1 is in the loop at line 40") !=
        std::string::npos);
  // With the binding unit's work in the report, that is the headline, as in
  // the report itself (before: the table showed 87 % of the ops where the
  // report said 51 % of the binding unit's instructions; the dashboard 88 %).
  json b = report(90e-6, 50e-6, 90e-6, "scalar");
  b["coverage"] = {{"hivm",
                    {{"share", 0.876},
                     {"ops_counted", 205},
                     {"ops_present", 234},
                     {"binding",
                      {{"core", "aiv"}, {"component", "scalar"}, {"share", 0.94}, {"work_share", 0.5104}, {"unit", "instruction"}}}}},
                   {"warning", "the bound counts 136,621 of 267,701 instructions per block on aiv (51.0 %)"}};
  json vb = pv::validate_bound(b, mix_measurement(), origin("b.json"), "b", "");
  CHECK(vb["bound"]["coverage"]["headline_share"] == 0.5104);
  CHECK(vb["bound"]["coverage"]["headline_of"] == "work on the binding unit");
  CHECK(pbtest::unwrapped(pv::render_validation(vb)).find("coverage: 51 % of work on the binding unit counted; the bound counts 136,621") !=
        std::string::npos);
  // A report without coverage: null, and "-" in the view.
  json plain = pv::validate_bound(report(90e-6, 50e-6, 90e-6, "scalar"), mix_measurement(), origin("p.json"), "p", "");
  CHECK(plain["bound"]["coverage"].is_null());
}

TEST_CASE("validate --report: a path that is there but is no report is bad input, said before reading (exit 3)") {
  // Before: a directory, /dev/zero, a FIFO or a loop of symbolic links were
  // all "saved bound report not found", an INFRA_ERROR with exit 5.
  pbtest::TempDir tmp;
  REQUIRE(mkfifo((tmp / "fifo").c_str(), 0600) == 0);
  std::filesystem::create_symlink(tmp / "loop_b", tmp / "loop_a");
  std::filesystem::create_symlink(tmp / "loop_a", tmp / "loop_b");
  const std::pair<std::string, std::string> cases[] = {
      {tmp.path().string(), "is a directory, not a file"},
      {"/dev/zero", "not a regular file (a device, FIFO or socket is never read as input)"},
      {(tmp / "fifo").string(), "not a regular file (a device, FIFO or socket is never read as input)"},
      {(tmp / "loop_a").string(), "is a loop of symbolic links"},
  };
  for (const auto &[path, said] : cases) {
    INFO(path);
    pbtest::CliResult r = pbtest::run_cli({"validate", "--report", path, "--measurement",
                                           (fixtures() / "op_summary_mix.csv").string(), "--kernel", "mix_k"});
    CHECK(r.code == 3);
    CHECK(r.err.find(path + ": the saved bound report " + said) != std::string::npos);
    CHECK(r.err.find("not found") == std::string::npos);
  }
  // Absent: still a case without a bound (exit 5), as before.
  pbtest::CliResult absent = pbtest::run_cli({"validate", "--report", (tmp / "absent.json").string(), "--measurement",
                                              (fixtures() / "op_summary_mix.csv").string(), "--kernel", "mix_k"});
  CHECK(absent.code == 5);
  CHECK(absent.out.find("saved bound report not found") != std::string::npos);
}
