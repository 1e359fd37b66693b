//===- test_messages.cpp - a refusal says what is wrong, not something else ===//
//
// Messages that sent users looking for the wrong thing (issue 27):
//   - a directory, /dev/zero, a FIFO or a loop of symbolic links given as a
//     pipeline `file` input was "does not exist";
//   - `--set launch.grid=[9223372036854775808]` and `--set launch={grid=[1],
//     grid=[2]}` were taken as plain strings and then "has no value";
//   - NaN or infinite numbers in a pipeline or a --set value became JSON null;
//   - docs/cli.md's --set example named a parameter no shipped node has.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <algorithm>

#include <sys/stat.h>

#include <regex>

#include "pipeline.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {

pbtest::CliResult run_hivm(const std::vector<std::string> &sets) {
  std::vector<std::string> args = {"run", (pbtest::source_dir() / "pipelines" / "bound_hivm.toml").string()};
  for (const std::string &set : sets) {
    args.emplace_back("--set");
    args.push_back(set);
  }
  return pbtest::run_cli(args, pbtest::source_dir());
}

const std::string kKernel = "hivm=examples/kernels/vector_add/vector_add.npuir.mlir";

}  // namespace

TEST_CASE("a pipeline file input that is not a regular file says what it is") {
  pbtest::TempDir tmp;
  REQUIRE(mkfifo((tmp / "fifo").c_str(), 0600) == 0);
  fs::create_symlink(tmp / "loop_b", tmp / "loop_a");
  fs::create_symlink(tmp / "loop_a", tmp / "loop_b");
  struct Case {
    std::string path;
    std::string said;
  };
  const Case cases[] = {
      {tmp.path().string(), "is a directory, not a file"},
      {"/dev/zero", "is a device, not a regular file"},
      {(tmp / "fifo").string(), "is a FIFO, not a regular file"},
      {(tmp / "loop_a").string(), "is a loop of symbolic links"},
      {(tmp / "absent.mlir").string(), "does not exist"},
  };
  for (const Case &c : cases) {
    INFO(c.path);
    auto r = run_hivm({"hivm=" + c.path, "launch.grid=[8]"});
    CHECK(r.code == 3);
    CHECK(r.err.find("pipeline input 'hivm': file '" + c.path + "' " + c.said) != std::string::npos);
    if (c.said != "does not exist") CHECK(r.err.find("does not exist") == std::string::npos);
  }
}

TEST_CASE("a --set value that can only be TOML must parse; NaN and infinity are refused") {
  std::string error;
  CHECK_FALSE(perfbound::parse_override_value_checked("[9223372036854775808]", error));
  CHECK(error.rfind("not a TOML value: ", 0) == 0);
  CHECK_FALSE(perfbound::parse_override_value_checked("{grid=[1], grid=[2]}", error));
  CHECK(error.rfind("not a TOML value: ", 0) == 0);
  CHECK_FALSE(perfbound::parse_override_value_checked("9223372036854775808", error));
  CHECK_FALSE(perfbound::parse_override_value_checked("{grid=[8], args={n=nan}}", error));
  CHECK(error == "'args.n' is nan; every number must be finite");
  CHECK_FALSE(perfbound::parse_override_value_checked("[1, -inf]", error));
  CHECK(error == "'[1]' is -inf; every number must be finite");
  // Plain words stay plain strings, as before.
  CHECK(perfbound::parse_override_value_checked("kernel.npuir.mlir", error) == nlohmann::json("kernel.npuir.mlir"));
  CHECK(perfbound::parse_override_value_checked("3d", error) == nlohmann::json("3d"));
  CHECK(perfbound::parse_override_value_checked("[128, 32]", error) == nlohmann::json::array({128, 32}));

  auto overflow = run_hivm({kKernel, "launch.grid=[9223372036854775808]"});
  CHECK(overflow.code == 3);
  CHECK(overflow.err.find("--set launch.grid=[9223372036854775808]: not a TOML value:") != std::string::npos);
  CHECK(overflow.err.find("has no value") == std::string::npos);
  auto twice = run_hivm({kKernel, "launch={grid=[1], grid=[2]}"});
  CHECK(twice.code == 3);
  CHECK(twice.err.find("--set launch={grid=[1], grid=[2]}: not a TOML value:") != std::string::npos);
  CHECK(twice.err.find("has no value") == std::string::npos);
  auto measured = run_hivm({kKernel, "launch.grid=[8]", "bound.measured_us=inf"});
  CHECK(measured.code == 3);
  CHECK(measured.err.find("--set bound.measured_us=inf: the value is inf; every number must be finite") != std::string::npos);
}

TEST_CASE("NaN or infinity in a pipeline's params or defaults is refused at its line and column") {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "p.toml", "version = 1\n[inputs]\nt = { kind = \"table\", schema = \"perfbound_test.config/1\", "
                                     "default = { x = -inf } }\n[nodes.a]\nplugin = \"perfbound_test.good\"\nkind = \"source\"\n"
                                     "params = { value = nan }\n[outputs]\no = \"a.out\"\n");
  auto r = pbtest::run_cli({"--no-builtin-plugins", "--plugin-path", pbtest::plugin_dir("good").string(), "lint", (tmp / "p.toml").string()});
  CHECK(r.code == 3);
  CHECK(r.out.find("p.toml:7:12: error: node 'a': parameter 'value' of perfbound_test.good/source must be a finite number, got nan") !=
        std::string::npos);
  // Column 75: the -inf inside the default table.
  CHECK(r.out.find("p.toml:3:75: error: 'inputs.t.default.x' is -inf; every number must be finite") != std::string::npos);
  // A JSON-typed parameter (no declared range) is checked too: measured_us = nan was written as null.
  std::string bound = pbtest::read_file(pbtest::source_dir() / "pipelines" / "bound_hivm.toml");
  const std::string combiner = "kind = \"combiner\"\n";
  const size_t params_at = bound.find(combiner) + combiner.size();
  bound.replace(bound.find(combiner), combiner.size(), combiner + "params = { measured_us = nan }\n");
  const std::string params_line =
      std::to_string(1 + std::count(bound.begin(), bound.begin() + static_cast<std::ptrdiff_t>(params_at), '\n'));
  pbtest::write_file(tmp / "bound_nan.toml", bound);
  auto in_file = pbtest::run_cli({"lint", (tmp / "bound_nan.toml").string()});
  CHECK(in_file.code == 3);
  CHECK(in_file.out.find("bound_nan.toml:" + params_line + ":12: error: node 'bound': parameter 'measured_us' of "
                         "perfbound.models/combiner must be a finite number, got nan") != std::string::npos);
  auto measured = pbtest::run_cli({"lint", (pbtest::source_dir() / "pipelines" / "bound_hivm.toml").string(), "--set",
                                   "bound.measured_us=[1, nan]"});
  CHECK(measured.code == 3);
  CHECK(measured.out.find("--set bound.measured_us=[1, nan]: '[1]' is nan; every number must be finite") != std::string::npos);
}

TEST_CASE("every `--set NODE.PARAM=VALUE` example of docs/cli.md names a parameter of a shipped pipeline") {
  const std::string cli = pbtest::read_file(pbtest::source_dir() / "docs" / "cli.md");
  const std::regex example(R"(`--set ([a-z_]+)\.([a-z_]+)=([^`]+)`)");
  size_t checked = 0;
  for (auto it = std::sregex_iterator(cli.begin(), cli.end(), example); it != std::sregex_iterator(); ++it) {
    const std::string node = (*it)[1], param = (*it)[2], value = (*it)[3];
    if (node == "launch") continue;  // a table input, not a node
    INFO("--set " << node << "." << param << "=" << value);
    auto r = pbtest::run_cli({"lint", (pbtest::source_dir() / "pipelines" / "bound_hivm.toml").string(), "--set",
                              node + "." + param + "=" + value},
                             pbtest::source_dir());
    CHECK_MESSAGE(r.code == 0, r.out << r.err);
    ++checked;
  }
  CHECK(checked >= 1);
}

TEST_CASE("a pipeline path that is a loop of symbolic links is not 'does not exist'") {
  pbtest::TempDir tmp;
  fs::create_symlink(tmp / "loop_b", tmp / "loop_a");
  fs::create_symlink(tmp / "loop_a", tmp / "loop_b");
  for (const char *command : {"run", "lint"}) {
    INFO(std::string(command));
    auto r = pbtest::run_cli({command, (tmp / "loop_a").string()});
    CHECK(r.code == 3);
    const std::string said = r.out + r.err;  // lint reports on stdout
    CHECK(said.find("loop of symbolic links") != std::string::npos);
    CHECK(said.find("does not exist") == std::string::npos);
  }
}
