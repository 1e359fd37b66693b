//===- test_cli.cpp - the perfbound executable, end to end ----------------===//
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/test_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using pbtest::run_cli;

namespace {

std::vector<std::string> plugin_args(std::initializer_list<const char *> dirs) {
  std::vector<std::string> args = {"--no-builtin-plugins"};
  for (const char *d : dirs) {
    args.emplace_back("--plugin-path");
    args.push_back(pbtest::plugin_dir(d).string());
  }
  return args;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

fs::path pipelines() { return pbtest::test_source_dir() / "host" / "pipelines"; }

}  // namespace

TEST_CASE("golden lint messages: cycle, unknown key, type mismatch, missing input, and more") {
  for (const char *name : {"cycle", "unknown_key", "type_mismatch", "missing_input", "many_errors", "syntax_error", "bad_version"}) {
    INFO("pipeline " << name);
    auto r = run_cli(concat(plugin_args({"good", "throwing"}), {"lint", std::string(name) + ".toml"}), pipelines());
    CHECK(r.code == 3);
    // The search path differs per build tree; the golden file says <plugins>.
    std::string out = r.out;
    const std::string root = pbtest::plugin_dir("").string();
    for (size_t at = out.find(root); at != std::string::npos; at = out.find(root, at)) out.replace(at, root.size(), "<plugins>/");
    CHECK(out == pbtest::read_file(pipelines() / (std::string(name) + ".expected")));
  }
}

TEST_CASE("lint of a good pipeline exits 0; --json follows perfbound.lint_result/1") {
  auto r = run_cli(concat(plugin_args({"good"}), {"lint", "sum.toml"}), pipelines());
  CHECK(r.code == 0);
  CHECK(r.out == "sum.toml: ok (3 nodes, 2 connections)\n");
  auto j = run_cli(concat(plugin_args({"good"}), {"lint", "--json", "cycle.toml"}), pipelines());
  CHECK(j.code == 3);
  json doc = json::parse(j.out);
  CHECK(doc["schema"] == "perfbound.lint_result/1");
  CHECK(doc["ok"] == false);
  CHECK(doc["diagnostics"][0]["node"] == "a");
  CHECK(doc["diagnostics"][0]["line"] == 4);
}

TEST_CASE("run prints the report, writes --out, and returns documented exit codes") {
  pbtest::TempDir out;
  auto r = run_cli(concat(plugin_args({"good"}), {"run", "sum.toml", "--out", out.path().string(), "--format", "json"}), pipelines());
  REQUIRE(r.code == 0);
  json result = json::parse(r.out);
  CHECK(result["status"] == "ok");
  CHECK(result["outputs"]["total"]["value"] == 21.0);
  CHECK(json::parse(pbtest::read_file(out / "total.json"))["value"] == 21.0);
  CHECK(json::parse(pbtest::read_file(out / "run.json"))["schema"] == "perfbound.run_result/1");
  CHECK(fs::exists(out / "report.json"));

  auto failed = run_cli(concat(plugin_args({"good", "throwing"}), {"run", "failure.toml"}), pipelines());
  CHECK(failed.code == 1);
  CHECK(failed.err.find("perfbound: node 'bad' (perfbound_test.throwing/boom) failed: ") != std::string::npos);
  CHECK(failed.out.find("skipped: upstream node 'bad' failed") != std::string::npos);

  auto invalid = run_cli(concat(plugin_args({"good"}), {"run", "cycle.toml"}), pipelines());
  CHECK(invalid.code == 3);
  CHECK(invalid.err.find("the pipeline has a cycle: a -> b -> c -> a") != std::string::npos);
}

TEST_CASE("run: Ctrl-C stops the run with exit 130 and a report whose later nodes were not started") {
  // A chain of two 3-second delays; SIGINT arrives during the first. The
  // first is stopped at once (a plugin not shipped with perfbound runs in a
  // child process, which is killed; delay does not poll the cancel flag),
  // the second is skipped, and the exit status is 130 rather than 1.
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "chain.toml", "version = 1\n"
                                         "[nodes.src]\nplugin = \"perfbound_test.good\"\nkind = \"source\"\nparams = { value = 1.0 }\n"
                                         "[nodes.first]\nplugin = \"perfbound_test.good\"\nkind = \"delay\"\nparams = { ms = 3000 }\n"
                                         "inputs = { in = \"src.out\" }\n"
                                         "[nodes.second]\nplugin = \"perfbound_test.good\"\nkind = \"delay\"\nparams = { ms = 3000 }\n"
                                         "inputs = { in = \"first.out\" }\n"
                                         "[outputs]\nend = \"second.out\"\n");
  std::vector<std::string> args = concat(plugin_args({"good"}), {"run", (tmp / "chain.toml").string(), "--jobs", "1", "--out",
                                                                  (tmp / "out").string(), "--format", "json"});
  auto r = pbtest::run_cli_signalled(args, SIGINT, std::chrono::milliseconds(1500));
  CHECK(r.end_signal == 0);
  CHECK(r.code == 130);
  CHECK(r.err.find("perfbound: interrupted") != std::string::npos);
  json run = json::parse(pbtest::read_file(tmp / "out" / "run.json"));
  CHECK(run["status"] == "interrupted");
  for (const json &n : run["nodes"]) {
    if (n["id"] == "first") {
      CHECK(n["status"] == "failed");
      CHECK(n["error"].get<std::string>().find("was stopped during run: interrupted") != std::string::npos);
    }
    if (n["id"] == "second") CHECK(n["skipped_because"] == "interrupted before it started");
  }
}

TEST_CASE("bad input never crashes: missing pipeline file, missing input file, bad --set") {
  auto missing = run_cli(concat(plugin_args({"good"}), {"run", "no_such.toml"}), pipelines());
  CHECK(missing.code == 3);
  CHECK(missing.err.find("no_such.toml: error: pipeline file does not exist") != std::string::npos);

  auto no_file = run_cli(concat(plugin_args({"good"}), {"run", "file_input.toml", "--set", "text=/nonexistent/x.txt"}), pipelines());
  CHECK(no_file.code == 3);
  CHECK(no_file.err.find("<command line>: error: pipeline input 'text': file '/nonexistent/x.txt' does not exist") != std::string::npos);

  auto bad_set = run_cli(concat(plugin_args({"good"}), {"run", "sum.toml", "--set", "oops"}), pipelines());
  CHECK(bad_set.code == 3);
  CHECK(bad_set.err.find("--set 'oops' must be written KEY=VALUE") != std::string::npos);
}

TEST_CASE("usage errors exit 2 and unknown commands get suggestions") {
  auto r = run_cli({"--no-builtin-plugins", "lnit", "x.toml"});
  CHECK(r.code == 2);
  CHECK(r.err.find("unknown command 'lnit'") != std::string::npos);
  CHECK(r.err.find("(did you mean 'lint'?)") != std::string::npos);
  auto help = run_cli({"--no-builtin-plugins", "run", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("--set") != std::string::npos);
  CHECK(help.out.find("Exit status") != std::string::npos);
  auto bad_format = run_cli(concat(plugin_args({"good"}), {"run", "sum.toml", "--format", "xml"}), pipelines());
  CHECK(bad_format.code == 2);
}

TEST_CASE("plugins lists what it found and what it refused, with reasons") {
  pbtest::TempDir junk;
  pbtest::write_file(junk / "libjunk.so", "not a library");
  auto r = run_cli(concat(plugin_args({"good", "newer_major", "no_entry"}), {"--plugin-path", junk.path().string(), "plugins", "--json"}));
  REQUIRE(r.code == 0);
  json doc = json::parse(r.out);
  CHECK(doc["schema"] == "perfbound.plugin_list/1");
  REQUIRE(doc["plugins"].size() == 1);
  CHECK(doc["plugins"][0]["id"] == "perfbound_test.good");
  CHECK(doc["plugins"][0]["described_by"] == "manifest");
  std::vector<std::string> reasons;
  for (const json &ref : doc["refused"]) reasons.push_back(ref["reason"]);
  REQUIRE(reasons.size() == 3);
  CHECK(reasons[0].find("built for perfbound plugin ABI 2.0") != std::string::npos);
  CHECK(reasons[1].find("does not export 'perfbound_plugin_negotiate'") != std::string::npos);
  CHECK(reasons[2] == (junk / "libjunk.so").string() + ": not an ELF file");
}

TEST_CASE("plugin check passes a good plugin and reports every violation of bad ones") {
  auto good = run_cli({"--no-builtin-plugins", "plugin", "check", "--json", (pbtest::plugin_dir("good") / "libpbtest_good.so").string()});
  INFO(good.out);
  CHECK(good.code == 0);
  json g = json::parse(good.out);
  CHECK(g["failures"] == 0);
  size_t example_passes = 0;
  for (const json &f : g["findings"])
    if (f["check"].get<std::string>().find("example") != std::string::npos && f["status"] == "pass") ++example_passes;
  CHECK(example_passes >= 5);
  // A negative example of a bad parameter (ABI 1.3 expected_at = create) passes without run being called.
  bool create_refusal = false;
  for (const json &f : g["findings"])
    create_refusal = create_refusal || (f["check"] == "kind 'add' example 'a scale of zero (refused by create)' create" && f["status"] == "pass" &&
                                        f["detail"].get<std::string>().find("refused as declared with PB_ERR_INVALID_INPUT: ") == 0 &&
                                        f["detail"].get<std::string>().find("scale must be > 0") != std::string::npos);
  CHECK(create_refusal);
  for (const json &f : g["findings"]) CHECK(f["check"] != "kind 'add' example 'a scale of zero (refused by create)' run");

  auto bad = run_cli({"--no-builtin-plugins", "plugin", "check", (pbtest::plugin_dir("bad_descriptor") / "libpbtest_bad_descriptor.so").string()});
  CHECK(bad.code == 1);
  CHECK(bad.out.find("[fail] descriptor: kind 'Broken-Kind': run is NULL") != std::string::npos);
  CHECK(bad.out.find("12 violation(s)") != std::string::npos);

  auto crashing = run_cli({"--no-builtin-plugins", "plugin", "check", (pbtest::plugin_dir("misbehaving") / "libpbtest_misbehaving.so").string()});
  CHECK(crashing.code == 1);
  CHECK(crashing.out.find("[fail] kind 'crash': plugin crashed with SIGSEGV during kind 'crash' without inputs run") != std::string::npos);
  CHECK(crashing.out.find("[fail] kind 'malformed' without inputs output 'out': is not valid JSON") != std::string::npos);
  CHECK(crashing.out.find("set_output called twice for port 'out'") != std::string::npos);
  CHECK(crashing.out.find("[fail] kind 'missing_output' example 'declares a refusal create never makes' create: create accepted the "
                          "parameters; expected a refusal with PB_ERR_INVALID_INPUT") != std::string::npos);
  CHECK(crashing.out.find("[fail] kind 'missing_output' example 'expects PB_OK at create' create: expected_at is PB_EXAMPLE_AT_CREATE "
                          "but expected_status is PB_OK") != std::string::npos);
  CHECK(crashing.out.find("[fail] kind 'missing_output' example 'an unknown expected_at': expected_at is 7") != std::string::npos);

  auto not_plugin = run_cli({"--no-builtin-plugins", "plugin", "check", (pbtest::plugin_dir("no_entry") / "libpbtest_no_entry.so").string()});
  CHECK(not_plugin.code == 3);
}

TEST_CASE("commands offered by a plugin run through the host") {
  auto r = run_cli(concat(plugin_args({"good"}), {"test-echo", "hello", "world"}));
  CHECK(r.code == 0);
  CHECK(r.out == "hello world\n");
  auto failing = run_cli(concat(plugin_args({"good"}), {"test-echo", "fail"}));
  CHECK(failing.code == 1);
  auto help = run_cli(concat(plugin_args({"good"}), {"--help"}));
  CHECK(help.out.find("test-echo") != std::string::npos);
}

TEST_CASE("PERFBOUND_PLUGIN_PATH is searched; the current directory is not") {
  auto from_env = run_cli({"--no-builtin-plugins", "lint", "sum.toml"}, pipelines(),
                          {{"PERFBOUND_PLUGIN_PATH", pbtest::plugin_dir("good").string()}});
  CHECK(from_env.code == 0);
  // Running from inside a plugin directory must not find its plugins.
  pbtest::TempDir tmp;
  fs::copy_file(pipelines() / "sum.toml", tmp / "sum.toml");
  auto cwd_only = run_cli({"--no-builtin-plugins", "lint", (tmp / "sum.toml").string()}, pbtest::plugin_dir("good"));
  CHECK(cwd_only.code == 3);
  CHECK(cwd_only.out.find("unknown plugin 'perfbound_test.good'") != std::string::npos);
}

TEST_CASE("a library beside a pipeline file is never loaded; the message lists the search path") {
  pbtest::TempDir dir;
  // The good plugin's library (and its manifest) beside the pipeline: not found.
  for (const auto &entry : fs::directory_iterator(pbtest::plugin_dir("good"))) fs::copy_file(entry.path(), dir / entry.path().filename().string());
  // A library that would end the process with exit(0) if anything ran it.
  fs::copy_file(pbtest::plugin_dir("hostile_exit") / "libpbtest_hostile_exit.so", dir / "libpbtest_hostile_exit.so");
  fs::copy_file(pipelines() / "sum.toml", dir / "sum.toml");
  auto r = run_cli({"--no-builtin-plugins", "--plugin-path", pbtest::plugin_dir("throwing").string(), "run", (dir / "sum.toml").string(),
                    "--format", "json"});
  const std::string said = r.out + r.err;
  INFO(said);
  CHECK(r.code == 3);
  CHECK(said.find("unknown plugin 'perfbound_test.good'") != std::string::npos);
  CHECK(said.find("searched " + pbtest::plugin_dir("throwing").string() + " (--plugin-path)") != std::string::npos);
  CHECK(said.find("add a directory with --plugin-path DIR or PERFBOUND_PLUGIN_PATH") != std::string::npos);
  CHECK(said.find(dir.path().string() + " (") == std::string::npos);
  // Named explicitly, the same folder works.
  fs::remove(dir / "libpbtest_hostile_exit.so");
  auto explicit_path = run_cli({"--no-builtin-plugins", "--plugin-path", dir.path().string(), "run", (dir / "sum.toml").string()});
  CHECK(explicit_path.code == 0);
}

TEST_CASE("hostile libraries on the search path: plugins, plugin check, plugin manifest and run report them and go on") {
  const std::map<std::string, std::string> fast = {{"PERFBOUND_PLUGIN_TIMEOUT", "1"}};
  struct Case {
    const char *dir;
    const char *message;
  };
  const Case cases[] = {
      {"hostile_segv", "plugin crashed with SIGSEGV during load"},
      {"hostile_abort", "plugin crashed with SIGABRT during load"},
      {"hostile_spin", "plugin timed out after 1 s during load and was killed"},
      {"hostile_exit", "plugin called exit(0) during load"},
      {"hostile_negotiate_segv", "plugin crashed with SIGSEGV during negotiate"},
      {"hostile_wild", "plugin crashed with SIGSEGV during describe"},
  };
  std::vector<std::string> all = {"--no-builtin-plugins", "--plugin-path", pbtest::plugin_dir("good").string()};
  for (const Case &c : cases) {
    all.emplace_back("--plugin-path");
    all.push_back(pbtest::plugin_dir(c.dir).string());
  }
  auto listed = run_cli(concat(all, {"plugins"}), {}, fast);
  INFO(listed.out << listed.err);
  CHECK(listed.code == 0);
  CHECK(listed.out.find("perfbound_test.good 1.2.3") != std::string::npos);
  for (const Case &c : cases) {
    std::string lib = (pbtest::plugin_dir(c.dir) / ("libpbtest_" + std::string(c.dir) + ".so")).string();
    INFO("library " << lib);
    CHECK(listed.out.find("refused: " + lib + ": " + c.message) != std::string::npos);

    auto checked = run_cli({"--no-builtin-plugins", "plugin", "check", lib}, {}, fast);
    CHECK(checked.code == 3);
    // The deadline the message names is the documented one
    // (PERFBOUND_PLUGIN_TIMEOUT), not the outer check's slack for kinds.
    CHECK(checked.out.find(c.message) != std::string::npos);

    pbtest::TempDir out;
    auto manifest = run_cli({"--no-builtin-plugins", "plugin", "manifest", lib, "-o", (out / "m.json").string()}, {}, fast);
    CHECK(manifest.code == 3);
    CHECK(manifest.err == "perfbound: " + lib + ": " + c.message + "\n");
    CHECK_FALSE(fs::exists(out / "m.json"));
  }
  // A run needs only the good plugin; the hostile ones cost a warning each.
  auto run = run_cli(concat(all, {"run", (pipelines() / "sum.toml").string(), "--format", "json"}), {}, fast);
  CHECK(run.code == 0);
  CHECK(json::parse(run.out)["outputs"]["total"]["value"] == 21.0);
}

TEST_CASE("plugin commands reach the host extensions: profile, plugins, pipeline") {
  auto r = run_cli(concat(plugin_args({"good"}), {"test-host", (pipelines() / "sum.toml").string()}));
  INFO(r.err);
  CHECK(r.code == 0);
  // 910B3 has 40 vector cores; sum.toml with b.value=1 gives (2 + 1) * 3.
  CHECK(r.out == "aiv=40.0\nrender:perfbound_test.good\npipeline=ok total=9.0 status=0\n");
}

TEST_CASE("perfbound sweep: backwards and oversized ranges are refused, --max-configs samples, SIGTERM ends with 130") {
  pbtest::TempDir tmp;
  auto facts = run_cli({"run", (pbtest::source_dir() / "pipelines" / "bound_dsl.toml").string(), "--set",
                        "ttir=" + (pbtest::source_dir() / "examples" / "kernels" / "vector_add" / "vector_add.ttir.mlir").string(),
                        "--set", "launch={grid=[8192,1,1],args={n_elements=16777216}}", "--out", (tmp / "out").string()});
  REQUIRE_MESSAGE(facts.code == 0, facts.err);
  const std::string dsl = (tmp / "out" / "facts.json").string();
  auto sweep = [&](const std::string &name, const std::string &spec, std::vector<std::string> extra = {}) {
    pbtest::write_file(tmp / name, spec);
    std::vector<std::string> args = {"sweep", "--dsl", dsl, "--configs", (tmp / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  auto back = sweep("back.json", R"({"args":{"n_elements":{"from":16,"to":1}}})");
  CHECK(back.code == 3);
  CHECK(back.err.find("back.json.args.n_elements: the range runs backwards (from 16 > to 1)") != std::string::npos);
  auto huge = sweep("huge.json", R"({"args":{"n_elements":{"from":1,"to":1e18}}})");
  CHECK(huge.code == 3);
  // n_elements is an i32: 1e18 is out of its type's range before the range is counted.
  CHECK(huge.err.find("huge.json.args.n_elements.to is 1e+18; it must be a whole number from 0 to 2147483647") !=
        std::string::npos);
  auto many = sweep("many.json", R"({"args":{"n_elements":{"from":1,"to":1e7}},"grid":{"x":{"from":1,"to":100}}})");
  CHECK(many.code == 3);
  CHECK(many.err.find("the spec expands to 1000000000.0 configurations, more than the limit of 1000000; narrow the ranges or "
                      "evaluate an even sample with --max-configs N") != std::string::npos);
  auto sampled = sweep("many.json", R"({"args":{"n_elements":{"from":1,"to":1e7}},"grid":{"x":{"from":1,"to":100}}})",
                       {"--max-configs", "500"});
  REQUIRE(sampled.code == 0);
  CHECK(json::parse(sampled.out)["summary"]["evaluated"] == 500);
  auto zero = sweep("zero.json", R"J({"args":{"n_elements":[1024,2048]},"grid_from":{"x":"cdiv(n_elements, n_elements - 1024)"}})J");
  CHECK(zero.code == 3);
  CHECK(zero.err.find("zero.json.grid_from.x: 'cdiv(n_elements, n_elements - 1024)' is not a finite number at n_elements = 1024") !=
        std::string::npos);

  // A million configurations take seconds to render; SIGTERM ends it with 130.
  pbtest::write_file(tmp / "million.json", R"({"args":{"n_elements":{"from":1,"to":1e6}}})");
  auto interrupted = pbtest::run_cli_signalled({"sweep", "--dsl", dsl, "--configs", (tmp / "million.json").string()}, SIGTERM,
                                               std::chrono::milliseconds(1500));
  CHECK(interrupted.end_signal == 0);
  CHECK(interrupted.code == 130);
  CHECK(interrupted.err.find("perfbound sweep: sweep interrupted") != std::string::npos);
}

TEST_CASE("errors a first-hour user meets say what was given, what was expected, and what to try") {
  // Issue 26, case by case; each is bad input: exit 3.
  // A mistyped bundled profile: the bundled names and the nearest one (before:
  // "not found" and no choices).
  auto profile = run_cli({"profile", "show", "ascend_910b"});
  CHECK(profile.code == 3);
  CHECK(profile.err.find("hardware profile 'ascend_910b' not found; bundled profiles: ascend_910b1, ascend_910b3, ascend_950pr "
                         "(did you mean 'ascend_910b1'?)") != std::string::npos);
  // A mistyped pipeline path: the pipelines beside it and the nearest one.
  auto pipeline = run_cli(concat(plugin_args({"good"}), {"run", "sum.tom"}), pipelines());
  CHECK(pipeline.code == 3);
  CHECK(pipeline.err.find("sum.tom: error: pipeline file does not exist; pipelines here and shipped: ") != std::string::npos);
  CHECK(pipeline.err.find("(did you mean 'sum.toml'?)") != std::string::npos);
}

TEST_CASE("a failed run prints the nodes that did not run well, not the whole node table") {
  // failure.toml: 'bad' throws, 'after' is skipped, 'one' and 'alone' run.
  auto failed = run_cli(concat(plugin_args({"good", "throwing"}), {"run", "failure.toml"}), pipelines());
  CHECK(failed.code == 1);
  CHECK(failed.out.find("-- nodes: 2 of 4 ok (") != std::string::npos);
  CHECK(failed.out.find("  bad  failed  perfbound_test.throwing/boom\n") != std::string::npos);
  CHECK(failed.out.find("  after  skipped  perfbound_test.good/delay\n") != std::string::npos);
  CHECK(failed.out.find("  one ") == std::string::npos);
  // Every text line fits 100 columns (wrapped, not cut).
  size_t start = 0;
  while (start < failed.out.size()) {
    size_t end = failed.out.find('\n', start);
    if (end == std::string::npos) end = failed.out.size();
    CHECK_MESSAGE(end - start <= 100, failed.out.substr(start, end - start));
    start = end + 1;
  }
}

TEST_CASE("PERFBOUND_PLUGIN_TIMEOUT out of its range is said, not silently replaced") {
  for (const char *bad : {"abc", "nan", "0", "1e9"}) {
    INFO(bad);
    // A library without a manifest is inspected in a child under the timeout.
    auto r = run_cli(concat(plugin_args({"newer_minor"}), {"plugins"}), {}, {{"PERFBOUND_PLUGIN_TIMEOUT", bad}});
    CHECK(r.code == 0);
    CHECK(r.err.find(std::string("PERFBOUND_PLUGIN_TIMEOUT='") + bad +
                     "' is not a number of seconds from 0.1 to 600; using the default, 5") != std::string::npos);
  }
  auto good = run_cli(concat(plugin_args({"newer_minor"}), {"plugins"}), {}, {{"PERFBOUND_PLUGIN_TIMEOUT", "2"}});
  CHECK(good.err.find("PERFBOUND_PLUGIN_TIMEOUT") == std::string::npos);
}
