//===- test_node_faults.cpp - a plugin fault at run time never passes silently ===//
//
// tests/plugins/faulty_run_plugin.c loads cleanly; its nodes crash, abort,
// call exit(0), spin forever or stall until asked to stop. `perfbound run`
// must end every such run with a non-zero status and a message naming the
// node and the plugin, and never hang past the node's deadline:
//   - isolated (the default for a plugin not shipped with perfbound, and
//     --isolate all): the node fails with what ended its process, the other
//     nodes still run, the report is printed and says "failed";
//   - in perfbound's process (--isolate none, or isolate = false): a crash
//     ends perfbound by the same signal after naming the node, exit() ends
//     it with status 1 after naming the node, a node past its deadline is
//     abandoned and the report still comes out.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using pbtest::run_cli;

namespace {

/// A pipeline with the faulty node `bad` of `kind` and a healthy node `good`
/// beside it; `extra` lines are added to [nodes.bad].
fs::path write_pipeline(const pbtest::TempDir &dir, const std::string &kind, const std::string &extra = "") {
  const fs::path path = dir / ("fault_" + kind + ".toml");
  pbtest::write_file(path, "version = 1\n"
                           "[nodes.bad]\nplugin = \"perfbound_test.faulty\"\nkind = \"" + kind + "\"\n" + extra +
                               "[nodes.good]\nplugin = \"perfbound_test.faulty\"\nkind = \"ok\"\n"
                               "[outputs]\nbad = \"bad.out\"\ngood = \"good.out\"\n");
  return path;
}

std::vector<std::string> run_args(const fs::path &pipeline, const std::vector<std::string> &more) {
  std::vector<std::string> args = {"--no-builtin-plugins", "--plugin-path", pbtest::plugin_dir("faulty").string(),
                                   "run", pipeline.string(), "--format", "json"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const json &node_in(const json &report, const std::string &id) {
  for (const json &node : report.at("nodes"))
    if (node.at("id") == id) return node;
  throw std::runtime_error("no node " + id);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("isolated nodes (the default for a plugin not shipped with perfbound): each fault fails the node, not perfbound") {
  pbtest::TempDir dir;
  struct Case {
    const char *kind;
    const char *said;
  };
  const Case cases[] = {
      {"crash", "perfbound: node 'bad' (perfbound_test.faulty/crash) failed: perfbound_test.faulty/crash crashed with SIGSEGV "
                "during run (isolated: its process ended, the host did not)"},
      {"abort", "perfbound: node 'bad' (perfbound_test.faulty/abort) failed: perfbound_test.faulty/abort crashed with SIGABRT "
                "during run (isolated: its process ended, the host did not)"},
      {"exit", "perfbound: node 'bad' (perfbound_test.faulty/exit) failed: perfbound_test.faulty/exit called exit(0) during run "
               "without finishing"},
      {"spin", "perfbound: node 'bad' (perfbound_test.faulty/spin) failed: perfbound_test.faulty/spin exceeded its deadline of 1 s "
               "during run and its process was killed"},
  };
  for (const Case &c : cases) {
    INFO(c.kind);
    for (const char *mode : {"auto", "all"}) {
      INFO("--isolate " << mode);
      const auto start = std::chrono::steady_clock::now();
      auto r = run_cli(run_args(write_pipeline(dir, c.kind), {"--isolate", mode, "--node-deadline", "1"}));
      INFO(r.err);
      CHECK(r.code == 1);
      CHECK(r.err.find(c.said) != std::string::npos);
      // The report is complete about what happened: the healthy node's result is there.
      json report = json::parse(r.out);
      CHECK(report["status"] == "failed");
      CHECK(node_in(report, "bad")["status"] == "failed");
      CHECK(node_in(report, "bad")["isolated"] == true);
      CHECK(node_in(report, "good")["status"] == "ok");
      CHECK(report["outputs"]["good"]["value"] == 1);
      CHECK(seconds_since(start) < 60);  // no hang (the spin's deadline is 1 s)
    }
  }
}

TEST_CASE("in-process nodes: a crash or exit() ends perfbound naming the node; never exit 0") {
  pbtest::TempDir dir;
  // --isolate none, and the pipeline's own isolate = false.
  for (const std::string &how : {std::string("cli"), std::string("pipeline")}) {
    INFO(how);
    auto run = [&](const std::string &kind) {
      const fs::path pipeline = write_pipeline(dir, kind, how == "pipeline" ? "isolate = false\n" : "");
      return run_cli(run_args(pipeline, how == "cli" ? std::vector<std::string>{"--isolate", "none", "-j", "1"}
                                                     : std::vector<std::string>{"-j", "1"}));
    };
    auto crash = run("crash");
    INFO(crash.err);
    CHECK(crash.end_signal == SIGSEGV);
    CHECK(crash.err.find("perfbound: node 'bad' (plugin perfbound_test.faulty/crash) crashed with SIGSEGV during run; "
                         "the run is incomplete") != std::string::npos);
    auto aborted = run("abort");
    CHECK(aborted.end_signal == SIGABRT);
    CHECK(aborted.err.find("node 'bad' (plugin perfbound_test.faulty/abort) crashed with SIGABRT during run") != std::string::npos);
    auto exited = run("exit");
    INFO(exited.err);
    CHECK(exited.code == 1);
    CHECK(exited.end_signal == 0);
    CHECK(exited.err.find("perfbound: node 'bad' (plugin perfbound_test.faulty/exit) called exit() during run; "
                          "the run is incomplete") != std::string::npos);
  }
}

TEST_CASE("in-process nodes past their deadline: asked to stop, abandoned when they do not, the report still comes out") {
  pbtest::TempDir dir;
  // A node that stops when asked fails with the deadline named.
  auto stalled = run_cli(run_args(write_pipeline(dir, "stall"), {"--isolate", "none", "--node-deadline", "1"}));
  INFO(stalled.err);
  CHECK(stalled.code == 1);
  CHECK(stalled.err.find("node 'bad' (perfbound_test.faulty/stall) failed: perfbound_test.faulty/stall exceeded its deadline of 1 s "
                         "and stopped when asked") != std::string::npos);
  CHECK(json::parse(stalled.out)["outputs"]["good"]["value"] == 1);
  // One that never looks is abandoned 1 s later; the deadline comes from the pipeline here.
  const auto start = std::chrono::steady_clock::now();
  auto spun = run_cli(run_args(write_pipeline(dir, "spin", "deadline_s = 1\n"), {"--isolate", "none"}));
  INFO(spun.err);
  CHECK(spun.code == 1);
  CHECK(spun.end_signal == 0);
  CHECK(spun.err.find("node 'bad' (perfbound_test.faulty/spin) failed: perfbound_test.faulty/spin exceeded its deadline of 1 s and "
                      "did not return within 1 s of being asked to stop; it was abandoned") != std::string::npos);
  json report = json::parse(spun.out);
  CHECK(node_in(report, "bad")["isolated"] == false);
  CHECK(node_in(report, "good")["status"] == "ok");
  CHECK(seconds_since(start) < 60);
}

TEST_CASE("SIGINT while an in-process node ignores the request: perfbound ends with 130 within 2 s") {
  pbtest::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  auto r = pbtest::run_cli_signalled(run_args(write_pipeline(dir, "spin"), {"--isolate", "none"}), SIGINT,
                                     std::chrono::milliseconds(1500));
  const double took = seconds_since(start) - 1.5;
  INFO(r.err);
  CHECK(r.code == 130);
  CHECK(took < 2.0);
  CHECK(r.err.find("did not return within 1 s of the interrupt; it was abandoned") != std::string::npos);
  // The same for an isolated node: its process is killed at once.
  const auto start2 = std::chrono::steady_clock::now();
  auto iso = pbtest::run_cli_signalled(run_args(write_pipeline(dir, "spin"), {"--isolate", "all"}), SIGINT,
                                       std::chrono::milliseconds(1500));
  CHECK(iso.code == 130);
  CHECK(seconds_since(start2) - 1.5 < 2.0);
}

TEST_CASE("deadline and isolation settings: pipeline keys are checked, --node-deadline and --isolate take only sane values") {
  pbtest::TempDir dir;
  for (const char *bad : {"deadline_s = 0\n", "deadline_s = -1\n", "deadline_s = nan\n", "deadline_s = inf\n",
                          "deadline_s = 1e9\n", "deadline_s = \"5\"\n", "isolate = 1\n"}) {
    INFO(bad);
    auto r = run_cli(run_args(write_pipeline(dir, "ok", bad), {}));
    CHECK(r.code == 3);
    CHECK(r.err.find("fault_ok.toml:5:") != std::string::npos);
  }
  auto zero = run_cli(run_args(write_pipeline(dir, "ok"), {"--node-deadline", "0"}));
  CHECK(zero.code == 2);
  CHECK(zero.err.find("it must be a number > 0 and <= 604800") != std::string::npos);
  for (const char *bad : {"nan", "inf", "-5", "1e400", "ten"}) {
    INFO(bad);
    CHECK(run_cli(run_args(write_pipeline(dir, "ok"), {"--node-deadline", bad})).code == 2);
  }
  CHECK(run_cli(run_args(write_pipeline(dir, "ok"), {"--isolate", "sometimes"})).code == 2);
}
