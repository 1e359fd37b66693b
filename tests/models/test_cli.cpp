//===- test_cli.cpp - the models plugin through the perfbound binary -------===//
#include <doctest/doctest.h>

#include <algorithm>

#include "models_test_util.hpp"

using modelstest::json;

TEST_CASE("cli: plugin check exercises every models kind and finds no violation") {
  std::string lib = (pbtest::binary_dir() / "lib" / "perfbound" / "plugins" / "libperfbound_models.so").string();
  pbtest::CliResult r = pbtest::run_cli({"plugin", "check", lib});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("OK: no violations") != std::string::npos);
  // Every kind ran its examples (a skipped example list would hide a kind).
  for (const char *kind : {"grid_floor", "component_floor", "memory", "serialization", "issue_floor", "combiner", "sweep"})
    CHECK(r.out.find(std::string("kind '") + kind + "' example") != std::string::npos);
}

TEST_CASE("cli: the Markdown report a kernel author reads first") {
  pbtest::CliResult r = pbtest::run_cli(
      {"run", modelstest::pipeline("bound.toml"), "--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
       "hivm=" + modelstest::example("vector_add.npuir.mlir"), "--set",
       "launch={grid=[8192,1,1],args={n_elements=16777216}}", "--format", "md"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("## perfbound: `add_kernel` on ascend_910b3") != std::string::npos);
  // The strict bound is the HIVM critical path (test_golden.cpp: 25.5111 us);
  // the cold-cache HBM floors are argued. Four significant digits (issue 26).
  CHECK(r.out.find("| **bound** | **147 us** (hivm tier, memory on hbm, argued; strict 25.51 us) |") != std::string::npos);
  CHECK(r.out.find("| verdict | memory-bound, unit mte2") != std::string::npos);
  CHECK(r.out.find("| T_bound_DSL | 111.8 us (memory on hbm, argued; strict 14.58 us) |") != std::string::npos);
  // What the bound counted, in the same report.
  CHECK(r.out.find("### Coverage") != std::string::npos);
  CHECK(r.out.find("| aiv | vector | 1 / 1 | 0 | 0 | 32 / 32 repeat |") != std::string::npos);
}

TEST_CASE("cli: a term node given both tiers, or neither, is refused before the run, naming the node and the ports") {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "both.toml", R"(version = 1
[inputs]
ttir = { kind = "file", schema = "perfbound.ttir_text/1" }
hivm = { kind = "file", schema = "perfbound.hivm_text/1" }
launch = { kind = "table", schema = "perfbound.launch/1" }
profile = { kind = "profile", default = "ascend_910b3" }
[nodes.dsl]
plugin = "perfbound.extract_ttir"
kind = "dsl_facts"
inputs = { ttir = "inputs.ttir", launch = "inputs.launch", profile = "inputs.profile" }
[nodes.ops]
plugin = "perfbound.extract_hivm"
kind = "hivm_program"
inputs = { hivm = "inputs.hivm", launch = "inputs.launch", profile = "inputs.profile" }
[nodes.mem]
plugin = "perfbound.models"
kind = "memory"
inputs = { dsl = "dsl.facts", hivm = "ops.program", profile = "inputs.profile" }
[outputs]
term = "mem.term"
)");
  pbtest::CliResult r = pbtest::run_cli(
      {"run", (tmp / "both.toml").string(), "--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
       "hivm=" + modelstest::example("vector_add.npuir.mlir"), "--set", "launch={grid=[8192],args={n_elements=16777216}}"});
  // The host checks the kind's group of alternative inputs (pb_port.one_of)
  // when it resolves the pipeline: exit 3, nothing runs.
  CHECK(r.code == 3);
  CHECK((r.err + r.out).find("both.toml:15:8: error: node 'mem': connects 'dsl' and 'hivm' of perfbound.models/memory, which are alternatives "
                   "('tier'): connect exactly one of 'dsl' (perfbound.dsl_facts/1), 'work' (perfbound.hivm_work/1) or 'hivm' "
                   "(perfbound.hivm_program/1)") != std::string::npos);

  pbtest::write_file(tmp / "neither.toml", R"(version = 1
[inputs]
profile = { kind = "profile", default = "ascend_910b3" }
[nodes.issue]
plugin = "perfbound.models"
kind = "issue_floor"
inputs = { profile = "inputs.profile" }
[outputs]
term = "issue.term"
)");
  pbtest::CliResult lint = pbtest::run_cli({"lint", (tmp / "neither.toml").string()});
  CHECK(lint.code != 0);
  CHECK((lint.err + lint.out).find("neither.toml:4:8: error: node 'issue': connect one of 'work' (perfbound.hivm_work/1) or 'hivm' "
                      "(perfbound.hivm_program/1) of perfbound.models/issue_floor (alternative inputs 'tier')") !=
        std::string::npos);
}

TEST_CASE("cli: perfbound sweep prices launches and names why it prunes") {
  pbtest::TempDir tmp;
  pbtest::CliResult facts = pbtest::run_cli({"run", modelstest::pipeline("bound_dsl.toml"), "--set",
                                             "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
                                             "launch={grid=[8192,1,1],args={n_elements=16777216}}", "--out",
                                             (tmp / "out").string()});
  REQUIRE(facts.code == 0);
  pbtest::write_file(tmp / "spec.json",
                     R"J({"args":{"n_elements":{"from":1048576,"to":16777216,"mul":4}},"grid_from":{"x":"cdiv(n_elements, 2048)"},"tuning":["n_elements"]})J");
  pbtest::CliResult r = pbtest::run_cli({"sweep", "--dsl", (tmp / "out" / "facts.json").string(), "--configs",
                                         (tmp / "spec.json").string(), "--factor", "2"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  json doc = json::parse(r.out);
  CHECK(doc["schema"] == "perfbound.sweep/1");
  // n = 1M, 4M, 16M: bounds 3 x 4 x n / 1.8e12 = 6.991, 27.962, 111.848 us. n is named a
  // tuning argument, so the three are one problem and compared with each other.
  REQUIRE(doc["configs"].size() == 3);
  CHECK(doc["configs"][1]["bound"]["value"] == doctest::Approx(27.962027e-6).epsilon(1e-6));
  CHECK(doc["configs"][1]["pruned"] == true);
  CHECK(doc["configs"][1]["why"].get<std::string>().rfind("memory = 27.96 us > threshold 13.98 us", 0) == 0);
  // Two problems (n is not a tuning argument here), three grids each. Grid
  // 512 covers 512 x 2,048 = 1M elements: all of the first problem, part of
  // the second, where its 6.99 us is not the problem's bound. The best of the
  // second problem is a grid that covers it (before: grid 512, with the two
  // that cover it "pruned by memory" against it).
  pbtest::write_file(tmp / "cover.json", R"J({"args":{"n_elements":[1048576,16777216]},"grid":{"x":[512,8192,16384]}})J");
  pbtest::CliResult cover = pbtest::run_cli({"sweep", "--dsl", (tmp / "out" / "facts.json").string(), "--configs",
                                             (tmp / "cover.json").string(), "--factor", "2"});
  INFO(cover.err);
  REQUIRE(cover.code == 0);
  json cdoc = json::parse(cover.out);
  REQUIRE(cdoc["problems"].size() == 2);
  for (const json &c : cdoc["configs"]) {
    if (c["args"]["n_elements"] != 16777216) continue;
    const bool covers_problem = c["grid"][0] != 512;
    CHECK(c.contains("warning") != covers_problem);
    if (covers_problem) CHECK(c["pruned"] == false);
  }
  const json &big = cdoc["problems"][1];
  CHECK(big["args"]["n_elements"] == 16777216);
  CHECK(cdoc["configs"][big["best"].get<size_t>()]["grid"][0] != 512);
  CHECK(big["bound"]["value"].get<double>() > 100e-6);
  pbtest::CliResult cover_text = pbtest::run_cli({"sweep", "--dsl", (tmp / "out" / "facts.json").string(), "--configs",
                                                  (tmp / "cover.json").string(), "--format", "text"});
  CHECK(cover_text.out.find("6 configurations of 2 problems; the best of each problem:\n") != std::string::npos);
  CHECK(cover_text.out.find("  problem 1 (n_elements=16,777,216): config ") != std::string::npos);
  CHECK(cover_text.out.find("[8192, 1, 1]") != std::string::npos);  // no "[8,192, 1, 1]"
  CHECK(cover_text.out.find("[8,192") == std::string::npos);

  // An unknown argument: invalid input (exit 3) naming the spec file and key.
  pbtest::write_file(tmp / "bad.json", R"([{"args":{"K":3}}])");
  pbtest::CliResult bad = pbtest::run_cli({"sweep", "--dsl", (tmp / "out" / "facts.json").string(), "--configs",
                                           (tmp / "bad.json").string()});
  CHECK(bad.code == 3);
  CHECK(bad.err.find("bad.json[0].args.K: the kernel has no scalar argument 'K'") != std::string::npos);

  // A sampled sweep: JSON streams every configuration; text lists 50 and
  // HTML 5,000 of them, and both count all (issue 27: the views no longer
  // build a document of every configuration).
  pbtest::write_file(tmp / "wide.json", R"J({"grid":{"x":{"from":1,"to":100000}},"args":{"n_elements":{"from":1,"to":100000}}})J");
  auto sweep = [&](const char *format) {
    return pbtest::run_cli({"sweep", "--dsl", (tmp / "out" / "facts.json").string(), "--configs", (tmp / "wide.json").string(),
                            "--max-configs", "6000", "--format", format});
  };
  pbtest::CliResult as_json = sweep("json");
  REQUIRE(as_json.code == 0);
  json streamed = json::parse(as_json.out);
  CHECK(streamed["configs"].size() == 6000);
  CHECK(streamed["configs"][5999]["index"] == 5999);
  CHECK(streamed["summary"]["evaluated"] == 6000);
  pbtest::CliResult as_text = sweep("text");
  REQUIRE(as_text.code == 0);
  CHECK(as_text.out.find("sweep: add_kernel, 6,000 configurations of 6,000 problems") != std::string::npos);
  CHECK(as_text.out.find("  ... 5,950 more (--format json lists them all)") != std::string::npos);
  pbtest::CliResult as_html = sweep("html");
  REQUIRE(as_html.code == 0);
  CHECK(as_html.out.find("The first 5,000 of 6,000 configurations are drawn and listed here") != std::string::npos);
  CHECK(as_html.out.find("data-index=\"4999\"") != std::string::npos);
  CHECK(as_html.out.find("data-index=\"5000\"") == std::string::npos);
}

namespace {

std::vector<std::string> vector_add(const std::string &ttir, const std::string &hivm, const std::string &launch) {
  return {"run", modelstest::pipeline("bound.toml"), "--set", "ttir=" + ttir, "--set", "hivm=" + hivm, "--set", "launch=" + launch};
}

}  // namespace

TEST_CASE("cli: files swapped, a mistyped launch member: what was given, what was expected, what to try, exit 3") {
  const std::string ttir = modelstest::example("vector_add.ttir.mlir"), hivm = modelstest::example("vector_add.npuir.mlir");
  // The TTIR given as the HIVM dump (before: "is the dump truncated?", exit 1).
  pbtest::CliResult ttir_as_hivm = pbtest::run_cli(vector_add(ttir, ttir, "{grid=[8192,1,1],args={n_elements=16777216}}"));
  INFO(ttir_as_hivm.err);
  CHECK(ttir_as_hivm.code == 3);
  CHECK(ttir_as_hivm.err.find(ttir + ":7: this is TTIR (kernel.ttir.mlir, tt.func), not a HIVM dump: give it as --set ttir=" +
                              ttir) != std::string::npos);
  // The TTIR facts its own node produced are named, not printed in full
  // above the failure (before: the whole facts report, then the node table).
  CHECK(ttir_as_hivm.out.find("== facts") == std::string::npos);
  CHECK(pbtest::unwrapped(ttir_as_hivm.out).find("Outputs produced before the run stopped, not shown here (--format json or --out DIR has "
                              "them): facts (perfbound.dsl_facts/1, from dsl.facts)") != std::string::npos);
  // The HIVM dump given as the TTIR (before: MLIR's "Dialect `func' not
  // found" and the 1,500-character signature line echoed).
  pbtest::CliResult hivm_as_ttir = pbtest::run_cli(vector_add(hivm, hivm, "{grid=[8192,1,1],args={\"3\"=16777216}}"));
  INFO(hivm_as_ttir.err);
  CHECK(hivm_as_ttir.code == 3);
  CHECK(hivm_as_ttir.err.find(hivm + ": error: this is a HIVM dump (kernel.npuir.mlir), not TTIR (line 9: func.func with "
                              "hivm/hacc ops and no tt.func): give it as --set hivm=" + hivm) != std::string::npos);
  // Only that: not MLIR's "Dialect `func' not found" with the signature
  // line it could not read; the nodes downstream of the failed one on one
  // line, not one entry each.
  CHECK(hivm_as_ttir.err.find("Dialect") == std::string::npos);
  CHECK(hivm_as_ttir.out.find("Dialect") == std::string::npos);
  CHECK(pbtest::unwrapped(hivm_as_ttir.out).find("12 nodes skipped (upstream node 'dsl' failed): dsl_core, ") != std::string::npos);
  CHECK(std::count(hivm_as_ttir.out.begin(), hivm_as_ttir.out.end(), '\n') < 25);
  size_t start = 0;
  while (start < hivm_as_ttir.err.size()) {  // no line of the message is a whole dump line
    size_t end = hivm_as_ttir.err.find('\n', start);
    if (end == std::string::npos) end = hivm_as_ttir.err.size();
    CHECK(end - start <= 700);
    start = end + 1;
  }
  // launch.gird on the command line: blamed on the command line, named as
  // written, with the member meant (before: "/: unknown member", at the
  // pipeline file's line).
  pbtest::CliResult gird = pbtest::run_cli({"run", modelstest::pipeline("bound_hivm.toml"), "--set", "hivm=" + hivm, "--set",
                                            "launch.gird=[8192]"});
  INFO(gird.err);
  CHECK(gird.code == 3);
  CHECK(gird.err.find("<command line>: error: --set launch: launch: unknown member 'gird' (did you mean 'grid'?)") !=
        std::string::npos);
}

TEST_CASE("cli: an op perfbound does not model is listed in the text report, which still renders") {
  // Before: the coverage table padded the component name to 9 columns with
  // an unsigned subtraction; "unmodelled" (10) wrapped it, the renderer threw
  // basic_string::_M_create, and the run printed a raw dump with exit 0.
  const std::string hivm = pbtest::read_file(modelstest::example("vector_add.npuir.mlir"));
  // An op of our own invention on the UB tile the store reads (%16).
  const std::string anchor = "  hivm.hir.store ins(%subview_5";
  const size_t at = hivm.find(anchor);
  REQUIRE(at != std::string::npos);
  pbtest::TempDir dir;
  const std::filesystem::path file = dir.path() / "unknown_op.npuir.mlir";
  pbtest::write_file(file, hivm.substr(0, at) + "  hivm.hir.frobnicate ins(%16 : memref<2048xf32, #hivm.address_space<ub>>)\n" +
                               hivm.substr(at));
  pbtest::CliResult r = pbtest::run_cli({"run", modelstest::pipeline("bound_hivm.toml"), "--set", "hivm=" + file.string(),
                                         "--set", "launch={grid=[8192,1,1],args={\"3\"=16777216}}", "--format", "text"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.err.find("misbehaving") == std::string::npos);
  CHECK(r.out.find("== bound (perfbound.bound_report/1, from bound.report) ==") != std::string::npos);
  CHECK(r.out.find("  aiv unmodelled ops 0 / 1 (") != std::string::npos);
  CHECK(r.out.find("hivm.hir.frobnicate") != std::string::npos);
}

TEST_CASE("cli: a measurement below the bound is called UNSOUND in the verdict; an absurd one is refused") {
  // The bundled kernel's strict HIVM bound is ~25 us: a "measurement" of
  // 20 us contradicts it. Before: "the bound is 100 % of the measured 20 us"
  // and "the gap of 0 s", exit 0, the word only in the JSON's note.
  const std::vector<std::string> base = {"run", modelstest::pipeline("bound_hivm.toml"), "--set",
                                         "hivm=" + modelstest::example("vector_add.npuir.mlir"), "--set",
                                         "launch={grid=[8192,1,1],args={\"3\"=16777216}}", "--format", "text"};
  auto with = [&](const std::string &measured) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--set", "bound.measured_us=" + measured});
    return pbtest::run_cli(args);
  };
  pbtest::CliResult below = with("20");
  INFO(below.err);
  CHECK(below.code == 0);
  CHECK(pbtest::unwrapped(below.out).find("the bound EXCEEDS the measured 20") != std::string::npos);
  CHECK(pbtest::unwrapped(below.out).find("UNSOUND for this run") != std::string::npos);
  CHECK(pbtest::unwrapped(below.out).find("the bound is 100 % of the measured") == std::string::npos);
  CHECK(pbtest::unwrapped(below.out).find("attribution: the bound exceeds the measurement: UNSOUND for this run") != std::string::npos);
  pbtest::CliResult above = with("309.3");
  CHECK(above.code == 0);
  CHECK(above.out.find("UNSOUND") == std::string::npos);
  pbtest::CliResult absurd = with("1e300");
  INFO(absurd.err);
  CHECK(absurd.code == 3);
  CHECK(absurd.err.find("measured_us is 1e+300; it must be > 0 and at most 31,536,000,000,000 us (a year), or null") !=
        std::string::npos);
}
