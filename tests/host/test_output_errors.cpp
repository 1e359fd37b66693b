//===- test_output_errors.cpp - a report that cannot be written is a failure ===//
//
// `perfbound run --format json > /dev/full` used to exit 0: the report was
// lost and nothing said so. Every command's standard output is flushed and
// checked before perfbound exits (host commands and plugin commands alike),
// and `run --out` checks every file it writes.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {

/// Runs perfbound with its standard output on /dev/full (every write fails
/// with ENOSPC).
pbtest::CliResult run_to_dev_full(const std::vector<std::string> &args) {
  pbtest::TempDir tmp;
  const pid_t pid = pbtest::start_program(PB_PERFBOUND_EXE, args, "/dev/full", tmp / "stderr", {}, {{"PERFBOUND_PLUGIN_PATH", ""}});
  return pbtest::finish_program(pid, {}, tmp / "stderr");
}

}  // namespace

TEST_CASE("run --format json > /dev/full fails, saying the report could not be written") {
  const std::string sum = (pbtest::test_source_dir() / "host" / "pipelines" / "sum.toml").string();
  const std::vector<std::string> args = {"--no-builtin-plugins", "--plugin-path", pbtest::plugin_dir("good").string(), "run", sum,
                                         "--format", "json"};
  // The same run succeeds when its output has somewhere to go.
  CHECK(pbtest::run_cli(args).code == 0);
  auto full = run_to_dev_full(args);
  INFO(full.err);
  CHECK(full.code == 1);
  CHECK(full.err.find("perfbound: cannot write the report to standard output: No space left on device") != std::string::npos);
}

TEST_CASE("every command's standard output is checked: a host command and a plugin command on /dev/full fail") {
  auto schemas = run_to_dev_full({"schemas"});
  CHECK(schemas.code == 1);
  CHECK(schemas.err.find("perfbound: cannot write to standard output: No space left on device") != std::string::npos);
  auto backends = run_to_dev_full({"bench", "backends"});
  INFO(backends.err);
  CHECK(backends.code == 1);
  CHECK(backends.err.find("cannot write to standard output") != std::string::npos);
}

TEST_CASE("run --out into a place that cannot hold files fails naming it") {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "not_a_dir", "x");
  const std::string sum = (pbtest::test_source_dir() / "host" / "pipelines" / "sum.toml").string();
  auto r = pbtest::run_cli({"--no-builtin-plugins", "--plugin-path", pbtest::plugin_dir("good").string(), "run", sum, "--out",
                            (tmp / "not_a_dir" / "out").string()});
  CHECK(r.code == 1);
  CHECK(r.err.find("not_a_dir") != std::string::npos);
}
