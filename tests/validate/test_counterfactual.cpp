//===- test_counterfactual.cpp - HIVM edits, re-extraction, orchestration -===//
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include <perfbound/sdk/json.hpp>

#include "counterfactual.hpp"
#include "hivm_edit.hpp"
#include "npy.hpp"
#include "process.hpp"
#include "support/test_support.hpp"
#include "validate_support.hpp"

namespace fs = std::filesystem;
using pbtest::validate::error_of;
namespace pv = perfbound::validate;
using pb::sdk::json;

namespace {

/// Our own HIVM dump (examples/kernels/vector_add): 4 set/wait pairs
/// (lines 39/40, 49/50, 53/54, 57/61) and one pipe_barrier[PIPE_ALL] at 63.
fs::path vector_add() { return pbtest::source_dir() / "examples" / "kernels" / "vector_add" / "vector_add.npuir.mlir"; }

/// perfbound.hivm_program/1 of a dump, through the real extractor pipeline.
json extract(const fs::path &hivm, const pbtest::TempDir &tmp, const std::string &name) {
  const fs::path out = tmp / name;
  pbtest::CliResult r = pbtest::run_cli({"run", (pbtest::test_source_dir() / "extract_hivm" / "data" / "hivm_program.toml").string(),
                                         "--set", "hivm=" + hivm.string(), "--out", out.string()});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return json::parse(pbtest::read_file(out / "program.json"));
}

pv::EditSpec barrier(uint32_t line, std::optional<std::string> pipe = std::nullopt) {
  pv::EditSpec spec;
  spec.kind = "remove_barrier";
  spec.line = line;
  spec.pipe = std::move(pipe);
  spec.where = "cf.toml:5:1";
  return spec;
}

pv::EditSpec sync_pair(uint32_t set_line, uint32_t wait_line) {
  pv::EditSpec spec;
  spec.kind = "remove_sync_pair";
  spec.set_line = set_line;
  spec.wait_line = wait_line;
  spec.where = "cf.toml:9:1";
  return spec;
}

std::vector<std::string> split_lines(const std::string &text) { return pbtest::lines(text); }

}  // namespace

TEST_CASE("remove_barrier and remove_sync_pair delete exactly their lines; re-extraction agrees") {
  pbtest::TempDir tmp;
  const std::string text = pbtest::read_file(vector_add());
  const json before = extract(vector_add(), tmp, "before");
  pv::EditResult result = pv::apply_edits(text, before, {barrier(63, "ALL"), sync_pair(53, 54)});
  REQUIRE(result.edits.size() == 2);
  CHECK(result.edits[0].record["extractor_kind"] == "epilogue");
  CHECK(result.edits[1].record["producer"] == "MTE2");
  CHECK(result.edits[1].record["consumer"] == "V");
  // The edited dump is the original without lines 53, 54 and 63.
  std::vector<std::string> original = split_lines(text), edited = split_lines(result.text);
  REQUIRE(edited.size() == original.size() - 3);
  std::vector<std::string> expected;
  for (size_t idx = 0; idx < original.size(); ++idx)
    if (idx + 1 != 53 && idx + 1 != 54 && idx + 1 != 63) expected.push_back(original[idx]);
  CHECK(edited == expected);

  pbtest::write_file(tmp / "edited.npuir.mlir", result.text);
  const json after = extract(tmp / "edited.npuir.mlir", tmp, "after");
  json check = pv::check_reextraction(before, after, result);
  CHECK(check["passed"] == true);
  CHECK(check["problems"].empty());
  // Checking against a program that still holds the removed ops fails and
  // says how: 53 ops where 50 were expected.
  json wrong = pv::check_reextraction(before, before, result);
  CHECK(wrong["passed"] == false);
  CHECK(wrong["problems"][0] == "the edited program has 53 ops; expected 50 (53 minus 3 removed)");
}

TEST_CASE("edit guards refuse the wrong op, a mismatched pair, a repeat and a no-op") {
  pbtest::TempDir tmp;
  const std::string text = pbtest::read_file(vector_add());
  const json program = extract(vector_add(), tmp, "p");
  CHECK(error_of([&] { pv::apply_edits(text, program, {barrier(39)}); }) ==
        "cf.toml:5:1: line 39 holds hivm.hir.set_flag, not hivm.hir.pipe_barrier (refusing to edit the wrong op)");
  CHECK(error_of([&] { pv::apply_edits(text, program, {barrier(63, "V")}); }) ==
        "cf.toml:5:1: the barrier at line 63 drains PIPE_ALL, not PIPE_V (refusing to edit the wrong op)");
  CHECK(error_of([&] { pv::apply_edits(text, program, {barrier(500)}); }).find("line 500 is past the end of the dump") !=
        std::string::npos);
  CHECK(error_of([&] { pv::apply_edits(text, program, {barrier(63), barrier(63)}); }) ==
        "cf.toml:5:1: line 63 is already edited by an earlier edit");
  // 39 sets EVENT_ID0, 50 waits on EVENT_ID1.
  CHECK(error_of([&] { pv::apply_edits(text, program, {sync_pair(39, 50)}); }) ==
        "cf.toml:9:1: set_flag[<PIPE_V>,<PIPE_MTE2>,<EVENT_ID0>] at line 39 and wait_flag[<PIPE_V>,<PIPE_MTE2>,<EVENT_ID1>] "
        "at line 50 name different pipes or events");
  CHECK(error_of([&] { pv::apply_edits(text, program, {}); }) == "counterfactual: no edits given");
}

TEST_CASE("set_multi_buffer lowers the count and drops the extra address (real amort_copy dump)") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir tmp;
  const fs::path dump = pbtest::shared_dir() / "data" / "hivm" / "amort_copy_128.npuir.mlir";
  const std::string text = pbtest::read_file(dump);
  const json before = extract(dump, tmp, "before");
  pv::EditSpec spec;
  spec.kind = "set_multi_buffer";
  spec.line = 33;
  spec.buffers = 1;
  spec.where = "cf.toml:3:1";
  pv::EditResult result = pv::apply_edits(text, before, {spec});
  std::vector<std::string> edited = split_lines(result.text);
  // Line 32 `%16 = hivm.hir.pointer_cast(%c0_i64, %c512_i64)` keeps the first
  // address; line 33's annotation says 1.
  CHECK(edited[31] == "    %16 = hivm.hir.pointer_cast(%c0_i64) : memref<128xf32, #hivm.address_space<ub>>");
  CHECK(edited[32] == "    annotation.mark %16 {hivm.multi_buffer = 1 : i32} : memref<128xf32, #hivm.address_space<ub>>");
  CHECK(edited.size() == split_lines(text).size());
  pbtest::write_file(tmp / "edited.npuir.mlir", result.text);
  CHECK(pv::check_reextraction(before, extract(tmp / "edited.npuir.mlir", tmp, "after"), result)["passed"] == true);

  spec.buffers = 2;
  CHECK(error_of([&] { pv::apply_edits(text, before, {spec}); }) ==
        "cf.toml:3:1: the buffer at line 33 already has 2 buffers (the edit would change nothing)");
  spec.buffers = 3;
  CHECK(error_of([&] { pv::apply_edits(text, before, {spec}); }).find("only lowering is supported") != std::string::npos);
}

TEST_CASE("config numbers: timeouts and tolerances are finite and in range, named at their line and column") {
  pbtest::TempDir tmp;
  auto load_with = [&](const std::string &run_timeout, const std::string &extra = "") {
    pbtest::write_file(tmp / "cf.toml", "version = 1\nkernel = \"k\"\nhivm = \"k.mlir\"\n[[edit]]\nkind = \"remove_barrier\"\nline = 12\n"
                                        "[measure]\ncompile = { argv = [\"cc\"] }\nrun = { argv = [\"sh\"], timeout_s = " +
                                            run_timeout + " }\noutputs = [\"out.npy\"]\nwarmup = 1\n" + extra);
    return error_of([&] { (void)pv::load_counterfactual(tmp / "cf.toml"); });
  };
  // An integer beyond 2^53 has no exact double: toml++'s value<double>() was empty and
  // .value() threw bad_optional_access out of the reader (found by fuzz_counterfactual).
  CHECK(load_with("5888888888888888888").find("cf.toml:9:36: ") != std::string::npos);
  CHECK(load_with("5888888888888888888").find("'timeout_s' must be a finite number from 0 to 604800, got 5.88889e+18") !=
        std::string::npos);
  CHECK(load_with("nan").find("'timeout_s' must be a finite number from 0 to 604800, got nan") != std::string::npos);
  CHECK(load_with("inf").find("got inf") != std::string::npos);
  CHECK(load_with("-1").find("got -1") != std::string::npos);
  CHECK(load_with("0").find("'timeout_s' must be a positive number of seconds") != std::string::npos);
  CHECK(load_with("30", "rtol = nan\n").find("'rtol' must be a finite number from 0 to 1e+300, got nan") != std::string::npos);
  CHECK(load_with("30", "atol = -1e-3\n").find("'atol' must be a finite number") != std::string::npos);
  CHECK(load_with("30").empty());  // in range: the config loads
}

TEST_CASE("npy files and allclose") {
  const std::string bytes = pv::write_npy({1.0, 2.0, 3.0, 4.0}, {2, 2}, "<f4");
  pv::NpyArray a = pv::parse_npy(bytes, "a.npy");
  CHECK(a.descr == "<f4");
  CHECK(a.shape == std::vector<uint64_t>{2, 2});
  CHECK(a.values == std::vector<double>{1.0, 2.0, 3.0, 4.0});
  // |4.00001 - 4| = 1e-5 <= 1e-8 + 1e-5 * 4: close; 4.001 is not.
  pv::NpyArray near = pv::parse_npy(pv::write_npy({1.0, 2.0, 3.0, 4.00001}, {2, 2}, "<f8"), "b.npy");
  CHECK(pv::allclose(near, a, {})["passed"] == true);
  pv::NpyArray far = pv::parse_npy(pv::write_npy({1.0, 2.0, 3.0, 4.001}, {2, 2}, "<f8"), "c.npy");
  json verdict = pv::allclose(far, a, {});
  CHECK(verdict["passed"] == false);
  CHECK(verdict["mismatches"] == 1);
  pv::NpyArray flat = pv::parse_npy(pv::write_npy({1.0, 2.0, 3.0, 4.0}, {4}, "<f8"), "d.npy");
  CHECK(pv::allclose(flat, a, {})["passed"] == false);
  CHECK(error_of([&] { pv::parse_npy("not numpy", "x.npy"); }).rfind("x.npy: not a valid .npy file: ", 0) == 0);
  CHECK(error_of([&] { pv::parse_npy(bytes.substr(0, bytes.size() - 4), "short.npy"); }).rfind("short.npy: not a valid .npy file", 0) == 0);
}

TEST_CASE("external commands: no shell, exit codes, timeouts, missing programs") {
  pbtest::TempDir tmp;
  pv::CommandSpec spec;
  spec.log = tmp / "log";
  spec.argv = {"true"};
  CHECK(pv::run_command(spec).ok());
  spec.argv = {"false"};
  pv::CommandResult failed = pv::run_command(spec);
  CHECK_FALSE(failed.ok());
  CHECK(failed.describe() == "exited with 1");
  // An argument with a shell metacharacter reaches the program verbatim.
  spec.argv = {"printf", "%s", "a;b $HOME"};
  CHECK(pv::run_command(spec).ok());
  CHECK(pbtest::read_file(tmp / "log").find("a;b $HOME") != std::string::npos);
  spec.argv = {"sleep", "30"};
  spec.timeout_s = 0.5;
  pv::CommandResult slow = pv::run_command(spec);
  CHECK(slow.timed_out);
  CHECK(slow.wall_s < 10);
  spec.argv = {"perfbound-no-such-program"};
  pv::CommandResult missing = pv::run_command(spec);
  CHECK_FALSE(missing.ok());
  CHECK(missing.describe().rfind("could not start: ", 0) == 0);
}

namespace {

/// A measure-only orchestration around our vector_add dump: "compile"
/// copies the dump, "run" (a real sh command, started without a shell by
/// perfbound) leaves an op_summary CSV and an output .npy per variant, as a
/// kernel run under msprof would; `run_tail` is appended to that command.
struct Orchestration {
  pbtest::TempDir dir;
  fs::path config;

  Orchestration(const std::vector<double> &edited_output, const std::string &run_tail, double timeout_s = 60) {
    // Baseline launches 12, 10, 11, 10.5 us; edited 9, 8, 8.5, 8.25 us. Drop
    // 1: baseline 10, 11, 10.5 -> median 10.5; edited 8, 8.5, 8.25 -> 8.25;
    // measured delta 8.25 - 10.5 = -2.25 us.
    const std::string header = "Device_id,Task ID,Stream ID,Op Name,Task Type,Task Start Time(us),Task Duration(us)\n";
    const std::string row = "0,1,1,add_kernel,AI_VECTOR_CORE,";
    pbtest::write_file(dir / "baseline.csv", header + row + "1\t,12\n" + row + "100\t,10\n" + row + "200\t,11\n" + row + "300\t,10.5\n");
    pbtest::write_file(dir / "edited.csv", header + row + "1\t,9\n" + row + "100\t,8\n" + row + "200\t,8.5\n" + row + "300\t,8.25\n");
    pbtest::write_file(dir / "baseline.npy", pv::write_npy({1.0, 2.0, 3.0}, {3}, "<f4"));
    pbtest::write_file(dir / "edited.npy", pv::write_npy(edited_output, {3}, "<f4"));
    const std::string d = dir.path().string();
    config = dir / "cf.toml";
    pbtest::write_file(config, "version = 1\nkernel = \"add_kernel\"\nhivm = \"" + vector_add().string() +
                                   "\"\n[[edit]]\nkind = \"remove_barrier\"\nline = 63\n[measure]\n"
                                   "compile = { argv = [\"cp\", \"{ir}\", \"{dir}/kernel.o\"] }\n"
                                   "run = { argv = [\"sh\", \"-c\", \"mkdir -p {out} && cp " + d + "/{variant}.csv {out}/op_summary_0_1.csv && cp " +
                                   d + "/{variant}.npy {dir}/out.npy" + run_tail + "\"], timeout_s = " + std::to_string(timeout_s) +
                                   " }\noutputs = [\"out.npy\"]\nwarmup = 1\n");
  }
  [[nodiscard]] pbtest::CliResult run() const {
    return pbtest::run_cli({"counterfactual", config.string(), "--out", (dir / "out").string(), "--json"});
  }
};

}  // namespace

TEST_CASE("counterfactual orchestration with real local commands: PASS, FAIL, INFRA_ERROR") {
  SUBCASE("both variants build, run, match and are measured") {
    Orchestration o({1.0, 2.0, 3.0}, "");
    pbtest::CliResult r = o.run();
    REQUIRE_MESSAGE(r.code == 0, r.err << r.out);
    json doc = json::parse(r.out);
    CHECK(doc["status"] == "PASS");
    CHECK(doc["reextraction"]["passed"] == true);
    CHECK(doc["comparison"]["measured_delta"]["value"].get<double>() == doctest::Approx(-2.25e-6));
    // The epilogue barrier has no calibrated cost: the prediction says why.
    CHECK(doc["prediction"]["time_delta"]["value"].is_null());
    CHECK(doc["prediction"]["time_delta"]["reason"].get<std::string>().find("epilogue") != std::string::npos);
    CHECK(doc["numerics"][0]["check"]["passed"] == true);
    CHECK(fs::exists(o.dir / "out" / "edited" / "kernel.o"));
  }
  SUBCASE("the edited kernel computes something else: FAIL, exit 1") {
    Orchestration o({1.0, 2.5, 3.0}, "");
    pbtest::CliResult r = o.run();
    CHECK(r.code == 1);
    json doc = json::parse(r.out);
    CHECK(doc["status"] == "FAIL");
    CHECK(doc["numerics"][0]["check"]["mismatches"] == 1);
  }
  SUBCASE("a run step that fails is INFRA_ERROR, exit 5, with its log") {
    Orchestration o({1.0, 2.0, 3.0}, " && test {variant} = baseline");
    pbtest::CliResult r = o.run();
    CHECK(r.code == 5);
    json doc = json::parse(r.out);
    CHECK(doc["status"] == "INFRA_ERROR");
    CHECK(doc["reason"].get<std::string>().rfind("edited run: sh -c ", 0) == 0);
    CHECK(doc["reason"].get<std::string>().find("exited with 1") != std::string::npos);
  }
  SUBCASE("a run step that hangs is killed at its timeout") {
    Orchestration o({1.0, 2.0, 3.0}, " && sleep 30", 1);
    pbtest::CliResult r = o.run();
    CHECK(r.code == 5);
    CHECK(json::parse(r.out)["reason"].get<std::string>().find("timed out after 1 s") != std::string::npos);
  }
}

TEST_CASE("seeded_serial: removing the redundant barrier, predicted from the calibrated barrier cost") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir tmp;
  pbtest::CliResult r = pbtest::run_cli({"counterfactual", (pbtest::source_dir() / "tests" / "corpus" / "seeded_serial_barrier.toml").string(),
                                         "--out", (tmp / "out").string(), "--json"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json doc = json::parse(r.out);
  CHECK(doc["status"] == "PREDICTED");
  CHECK(doc["edits"][0]["extractor_kind"] == "avoidable");
  CHECK(doc["reextraction"]["passed"] == true);
  // calibration.json: pipe_barrier_all_cost 364.790381 cycles (from the 4M
  // ON/OFF pair). Grid 4096 over 40 AIVs: ceil(4096 / 40) = 103 blocks on the
  // busiest core, one barrier each: 364.790381 x 103 = 37,573.41 cycles /
  // 1,799,724,840 Hz = 20.877 us saved.
  CHECK(doc["prediction"]["time_delta"]["value"].get<double>() == doctest::Approx(-20.877e-6).epsilon(1e-4));
}

TEST_CASE("seeded_serial 4M: the prediction against the recorded ON/OFF pair") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir tmp;
  pbtest::CliResult r = pbtest::run_cli({"counterfactual",
                                         (pbtest::source_dir() / "tests" / "corpus" / "seeded_serial_calib4m_barrier.toml").string(),
                                         "--out", (tmp / "out").string(), "--json"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json doc = json::parse(r.out);
  CHECK(doc["status"] == "PREDICTED");
  const json &c = doc["comparison"];
  CHECK(c["source"] == "recorded");
  // Medians after dropping 8 of 48: OFF 1649.832 - ON 1660.372 = -10.540 us.
  CHECK(c["measured_delta"]["value"].get<double>() == doctest::Approx(-10.540e-6).epsilon(1e-4));
  // Grid 2048 on 40 AIVs: ceil(2048 / 40) = 52 blocks; 364.790381 x 52 =
  // 18,969.10 cycles / 1,799,724,840 Hz = 10.540 us. Equal by construction:
  // the constant was calibrated from this pair (see the config's caveat).
  CHECK(c["predicted_delta"]["value"].get<double>() == doctest::Approx(-10.540e-6).epsilon(1e-4));
  CHECK(c["within_interval"] == true);
  CHECK(doc["recorded"]["baseline"]["launches"]["kept"] == 40);
}

TEST_CASE("Ctrl-C during a step kills its process group and exits 130") {
  Orchestration o({1.0, 2.0, 3.0}, "");
  // The run step records its shell's pid, then hangs far past the test.
  pbtest::write_file(o.config, [&] {
    std::string text = pbtest::read_file(o.config);
    const std::string from = "{dir}/out.npy";
    text.replace(text.find(from), from.size(), "{dir}/out.npy && echo $$ > " + (o.dir / "sh.pid").string() + " && sleep 60");
    return text;
  }());
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = pbtest::start_program(PB_PERFBOUND_EXE, {"counterfactual", o.config.string(), "--out", (o.dir / "out").string()},
                                          {}, o.dir / "stderr", {}, {{"PERFBOUND_PLUGIN_PATH", ""}});
  // Wait until the hanging step runs (its pid file appears), then interrupt.
  for (int tick = 0; tick < 600 && !fs::exists(o.dir / "sh.pid"); ++tick) usleep(50 * 1000);
  REQUIRE(fs::exists(o.dir / "sh.pid"));
  usleep(100 * 1000);
  kill(pid, SIGINT);
  const pbtest::CliResult interrupted = pbtest::finish_program(pid, {}, o.dir / "stderr");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(interrupted.end_signal == 0);
  CHECK(interrupted.code == 130);
  CHECK(seconds < 30);
  // The step's shell (in its own process group) did not survive.
  const pid_t shell = std::stoi(pbtest::read_file(o.dir / "sh.pid"));
  bool gone = false;
  for (int tick = 0; tick < 100 && !gone; ++tick) {
    gone = kill(shell, 0) != 0;
    if (!gone) usleep(20 * 1000);
  }
  CHECK(gone);
  json record = json::parse(pbtest::read_file(o.dir / "out" / "counterfactual.json"));
  CHECK(record["status"] == "INFRA_ERROR");
  CHECK(record["reason"].get<std::string>().find("interrupted") != std::string::npos);
}
