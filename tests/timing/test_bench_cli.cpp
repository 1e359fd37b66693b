//===- test_bench_cli.cpp - perfbound bench end to end, with the real binary -===//
//
// Every test runs the real `perfbound` executable (workers included) on the
// CPU backend or on the test backend with a deliberately hanging case
// (tests/timing/plugins/hang_backend.cpp). Documents are validated against
// the published schemas in abi/schemas/. Nothing here asserts a speed.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "json_schema.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path builtin_plugins() { return fs::path(PB_PLUGIN_DIR); }
fs::path hang_plugins() { return pbtest::plugin_dir("hang"); }

/// `perfbound [globals] bench ARGS`, with device locks in `locks`.
pbtest::CliResult bench(const fs::path &locks, const std::vector<std::string> &args,
                        const std::vector<std::string> &globals = {}, std::map<std::string, std::string> env = {}) {
  std::vector<std::string> full = globals;
  full.emplace_back("bench");
  full.insert(full.end(), args.begin(), args.end());
  env["PERFBOUND_LOCK_DIR"] = locks.string();
  return pbtest::run_cli(full, {}, env);
}

json read_json(const fs::path &path) { return json::parse(pbtest::read_file(path)); }

const perfbound::SchemaRegistry &schemas() {
  static perfbound::SchemaRegistry registry = [] {
    perfbound::SchemaRegistry loaded;
    std::vector<std::string> problems = loaded.load_dir(pbtest::source_dir() / "abi/schemas");
    for (const std::string &problem : problems) MESSAGE("schema problem: " << problem);
    return loaded;
  }();
  return registry;
}

void check_schema(const std::string &schema_id, const json &doc) {
  std::vector<std::string> problems = schemas().validate(schema_id, doc);
  std::string text;
  for (const std::string &problem : problems) text += problem + "\n";
  CHECK_MESSAGE(problems.empty(), schema_id << ":\n" << text);
}

std::string gemm_entry(int m, int n, int k, const std::string &dtype = "fp32", const std::string &extra_args = "") {
  return R"({"type": "gemm", "args": {"m": )" + std::to_string(m) + R"(, "n": )" + std::to_string(n) + R"(, "k": )" +
         std::to_string(k) + R"(, "a": {"dtype": ")" + dtype + R"("}, "b": {"dtype": ")" + dtype + R"("}, "out": ")" +
         dtype + "\"" + extra_args + R"(}, "sources": [], "name": []})";
}

fs::path write_testlist(const pbtest::TempDir &dir, const std::string &name, const std::vector<std::string> &entries) {
  std::string text = "[\n";
  for (size_t idx = 0; idx < entries.size(); ++idx) text += "  " + entries[idx] + (idx + 1 < entries.size() ? ",\n" : "\n");
  text += "]\n";
  fs::path path = dir / name;
  pbtest::write_file(path, text);
  return path;
}

/// Rows of a result by case id.
std::map<std::string, json> rows_by_id(const json &result) {
  std::map<std::string, json> out;
  for (const json &row : result["rows"]) out[row["case_id"].get<std::string>()] = row;
  return out;
}

/// A `perfbound` run in the background (for lock and interrupt tests).
struct Background {
  pid_t pid = -1;
  fs::path out;
  fs::path err;
};

Background start_background(const std::vector<std::string> &args, const std::map<std::string, std::string> &env,
                            const pbtest::TempDir &dir) {
  Background bg;
  bg.out = dir / "bg.stdout";
  bg.err = dir / "bg.stderr";
  std::map<std::string, std::string> environment = env;
  environment["PERFBOUND_PLUGIN_PATH"] = "";
  bg.pid = pbtest::start_program(PB_PERFBOUND_EXE, args, bg.out, bg.err, {}, environment);
  return bg;
}

int wait_background(const Background &bg) { return pbtest::finish_program(bg.pid, bg.out, bg.err).code; }

bool wait_for_file(const fs::path &path, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

/// True when `pid` is gone (or a zombie waiting for init to reap it).
bool process_gone(pid_t pid) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::string stat = pbtest::read_file("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

/// A recorded-output replay of `npu-smi info`.
std::string make_npu_smi_replay(const pbtest::TempDir &dir, const std::string &recording, const std::string &name) {
  fs::path script = dir / name;
  pbtest::write_file(script, "#!/bin/sh\n"
                             "if [ \"$*\" != \"info\" ]; then echo \"replay: unexpected arguments: $*\" >&2; exit 2; fi\n"
                             "exec cat '" + (pbtest::shared_dir() / "data/npu-smi" / recording).string() + "'\n");
  chmod(script.c_str(), 0755);
  return script.string();
}

}  // namespace

TEST_CASE("CPU end to end: the shipped OperatorX testlist, shapes scaled down by 32") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir dir;
  fs::path plan = dir / "plan.json";
  fs::path out = dir / "out";
  auto prepared = bench(dir / "locks", {"prepare", "--testlist", (pbtest::shared_dir() / "data/testlists/operatorx_gemm_perf.json").string(),
                                        "--backend", "cpu", "--shape-divisor", "32", "--profile", "ascend_910b3", "-o", plan.string()});
  REQUIRE_MESSAGE(prepared.code == 0, prepared.err);
  json plan_doc = read_json(plan);
  check_schema("perfbound.bench_plan/1", plan_doc);
  CHECK(plan_doc["shape_divisor"] == 32);
  REQUIRE(plan_doc["cases"].size() == 11);
  // Entry 0 is m=1 n=7168 k=2048: divided by 32 -> 1 (at least 1), 224, 64.
  CHECK(plan_doc["cases"][0]["op"]["n"] == 224);
  CHECK(plan_doc["cases"][0]["op"]["k"] == 64);
  CHECK(plan_doc["cases"][0]["op"]["testlist_shape"]["n"] == 7168);
  // The cheapest bf16 case (entry 0: 1 x 224 x 64) is the smoke case.
  CHECK(plan_doc["smoke_case_ids"] == json::array({"operatorx_gemm_perf#0"}));
  // The profile's L0A reached the plan through perfbound.host.profile/1.
  CHECK(plan_doc["hardware_profile"]["capacities"]["buffers"]["l0a"] == 65536);

  auto ran = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string()});
  REQUIRE_MESSAGE(ran.code == 0, ran.err);
  CHECK(ran.err.find("[11/11]") != std::string::npos);  // progress lines
  json result = read_json(out / "result.json");
  check_schema("perfbound.bench_result/1", result);
  CHECK(result["state"] == "complete");
  CHECK(result["summary"]["ok"] == 11);
  CHECK(result["run"]["shape_divisor"] == 32);
  bool first = true;
  for (const json &row : result["rows"]) {
    INFO(row["case_id"]);
    CHECK(row["status"] == "ok");
    REQUIRE(row["samples_us"].size() == 10);
    std::vector<double> samples = row["samples_us"].get<std::vector<double>>();
    double latency = row["latency_us"].get<double>();
    // The upper median: at most 5 samples below it, at least 6 at or below it.
    CHECK(std::count_if(samples.begin(), samples.end(), [&](double s) { return s < latency; }) <= 5);
    CHECK(std::count_if(samples.begin(), samples.end(), [&](double s) { return s <= latency; }) >= 6);
    CHECK(std::find(samples.begin(), samples.end(), latency) != samples.end());
    double flop = 2.0 * row["op"]["m"].get<double>() * row["op"]["n"].get<double>() * row["op"]["k"].get<double>();
    CHECK(row["tflops"].get<double>() * latency * 1e6 == doctest::Approx(flop));
    CHECK(row["check"]["passed"] == true);
    CHECK(row["check"]["method"] == "full");
    CHECK(row["timing"]["warmup_calls"] == 5);
    CHECK(row["timing"]["shield"] == "held");
    // Only the worker's first case gets the 1 s ramp; the ramp lasts at least its floor.
    CHECK(row["timing"]["first_op"] == first);
    CHECK(row["timing"]["ramp_target_ms"] == (first ? 1000 : 25));
    CHECK(row["timing"]["ramp_ms"].get<double>() >= row["timing"]["ramp_target_ms"].get<double>());
    CHECK(row["preflight"]["status"] == "not_applicable");
    first = false;
  }

  std::vector<std::string> journal = pbtest::lines(pbtest::read_file(out / "journal.jsonl"));
  REQUIRE(journal.size() == 12);
  check_schema("perfbound.bench_journal_header/1", json::parse(journal[0]));
  for (size_t line_idx = 1; line_idx < journal.size(); ++line_idx)
    check_schema("perfbound.bench_journal_record/1", json::parse(journal[line_idx]));
  CHECK(json::parse(journal[1])["case_id"] == "operatorx_gemm_perf#0");
  std::string summary = pbtest::read_file(out / "summary.md");
  CHECK(summary.find("| case | shape (m x n x k) | dtypes | status |") != std::string::npos);
  CHECK(summary.find("| operatorx_gemm_perf#10 | 16x128x128 | bf16,bf16->bf16 | ok |") != std::string::npos);

  // Resuming a finished run measures nothing again and leaves the journal as it was.
  std::string before = pbtest::read_file(out / "journal.jsonl");
  auto resumed = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--resume"});
  CHECK_MESSAGE(resumed.code == 0, resumed.err);
  CHECK(resumed.err.find("11 of 11 cases already recorded") != std::string::npos);
  CHECK(pbtest::read_file(out / "journal.jsonl") == before);

  auto report = bench(dir / "locks", {"report", (out / "result.json").string(), "--format", "md"});
  CHECK(report.code == 0);
  CHECK(report.out.find("| operatorx_gemm_perf#0 | 1x224x64 | bf16,bf16->bf16 | ok |") != std::string::npos);
}

TEST_CASE("protocol values other than the constants are refused while parsing, before any device work") {
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "tiny.json", {gemm_entry(8, 8, 8)});
  fs::path plan = dir / "plan.json";
  auto refused = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string(), "--samples", "9"});
  CHECK(refused.code == 2);
  CHECK(refused.err.find("--samples 9: the queued protocol uses exactly 10 samples") != std::string::npos);
  CHECK_FALSE(fs::exists(plan));

  auto prepared = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()});
  REQUIRE_MESSAGE(prepared.code == 0, prepared.err);
  for (const auto &[flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--warmup-ms", "24"}, {"--warmups", "4"}, {"--samples", "20"}, {"--first-warmup-ms", "500"}}) {
    fs::path out = dir / ("out" + flag);
    auto run = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), flag, value});
    CHECK(run.code == 2);
    CHECK(run.err.find(flag + " " + value + ": the queued protocol uses exactly") != std::string::npos);
    CHECK_FALSE(fs::exists(out));  // nothing was started
  }
  // Stating the protocol's own values is allowed.
  auto stated = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "ok").string(), "--samples", "10",
                                      "--warmups", "5", "--warmup-ms", "25", "--first-warmup-ms", "1000", "-q"});
  CHECK_MESSAGE(stated.code == 0, stated.err);
}

TEST_CASE("resume refuses a changed plan, source or hardware, and says what changed") {
  pbtest::TempDir dir;
  // A private copy of the plugins, so the test can change a library.
  fs::path plugins = dir / "plugins";
  fs::create_directories(plugins);
  for (const char *name : {"libperfbound_bench.so", "libperfbound_timing_cpu.so"}) {
    fs::copy_file(builtin_plugins() / name, plugins / name);
    fs::copy_file(builtin_plugins() / (std::string(name) + ".pbplugin.json"), plugins / (std::string(name) + ".pbplugin.json"));
  }
  std::vector<std::string> globals = {"--no-builtin-plugins", "--plugin-path", plugins.string()};
  fs::path list = write_testlist(dir, "tiny.json", {gemm_entry(8, 8, 8), gemm_entry(16, 8, 8)});
  fs::path plan = dir / "plan.json";
  fs::path out = dir / "out";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()}, globals).code == 0);
  auto first = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "-q"}, globals);
  REQUIRE_MESSAGE(first.code == 0, first.err);

  SUBCASE("plan") {
    fs::path other = dir / "plan2.json";
    REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "--shape-divisor", "2", "-o",
                                  other.string()}, globals).code == 0);
    auto resumed = bench(dir / "locks", {"run", other.string(), "--out-dir", out.string(), "--resume"}, globals);
    CHECK(resumed.code == 3);
    CHECK(resumed.err.find("resume refused: ") != std::string::npos);
    CHECK(resumed.err.find("plan changed: ") != std::string::npos);
    CHECK(resumed.err.find("shape_divisor 1 -> 2") != std::string::npos);
  }
  SUBCASE("source") {
    // Rebuilt backend: same plugin, different bytes.
    std::ofstream(plugins / "libperfbound_timing_cpu.so", std::ios::app | std::ios::binary) << "rebuilt";
    auto resumed = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--resume"}, globals);
    CHECK(resumed.code == 3);
    CHECK(resumed.err.find("source changed: backend_library.sha256 ") != std::string::npos);
  }
  SUBCASE("hardware") {
    // The journal was started on another device.
    std::vector<std::string> journal = pbtest::lines(pbtest::read_file(out / "journal.jsonl"));
    json header = json::parse(journal[0]);
    header["fingerprint"]["hardware"]["device"]["name"] = "Imaginary CPU";
    journal[0] = header.dump();
    std::string text;
    for (const std::string &line : journal) text += line + "\n";
    pbtest::write_file(out / "journal.jsonl", text);
    auto resumed = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--resume"}, globals);
    CHECK(resumed.code == 3);
    CHECK(resumed.err.find("hardware changed: device.name \"Imaginary CPU\" -> ") != std::string::npos);
  }
  SUBCASE("a journal without --resume, or --resume without a journal") {
    auto again = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string()}, globals);
    CHECK(again.code == 2);
    CHECK(again.err.find("already exists: pass --resume") != std::string::npos);
    auto nothing = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "empty").string(), "--resume"}, globals);
    CHECK(nothing.code == 2);
    CHECK(nothing.err.find("--resume: there is no journal") != std::string::npos);
  }
}

TEST_CASE("a torn last journal line is dropped and its case runs again; finished cases never do") {
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "tiny.json", {gemm_entry(8, 8, 8), gemm_entry(16, 8, 8), gemm_entry(24, 8, 8)});
  fs::path plan = dir / "plan.json";
  fs::path out = dir / "out";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()}).code == 0);
  REQUIRE(bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "-q"}).code == 0);
  std::vector<std::string> journal = pbtest::lines(pbtest::read_file(out / "journal.jsonl"));
  REQUIRE(journal.size() == 4);
  // A crash in the middle of writing the last record: half a line, no newline.
  std::string torn = journal[0] + "\n" + journal[1] + "\n" + journal[2] + "\n" + journal[3].substr(0, journal[3].size() / 2);
  pbtest::write_file(out / "journal.jsonl", torn);
  std::string lost_case = json::parse(journal[3])["case_id"];

  auto resumed = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--resume"});
  REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
  CHECK(resumed.err.find("journal: dropped a torn last line") != std::string::npos);
  CHECK(resumed.err.find("2 of 3 cases already recorded") != std::string::npos);
  std::vector<std::string> healed = pbtest::lines(pbtest::read_file(out / "journal.jsonl"));
  REQUIRE(healed.size() == 4);
  // The two finished cases are untouched, byte for byte; the lost one was measured again.
  CHECK(healed[1] == journal[1]);
  CHECK(healed[2] == journal[2]);
  json rerun = json::parse(healed[3]);
  CHECK(rerun["case_id"] == lost_case);
  CHECK(rerun["seq"] == 3);
  CHECK(rerun["row"]["status"] == "ok");
  CHECK(read_json(out / "result.json")["summary"]["ok"] == 3);
}

TEST_CASE("the watchdog kills a hanging case's process group, records a timeout, and the run goes on") {
  pbtest::TempDir dir;
  std::vector<std::string> globals = {"--plugin-path", hang_plugins().string()};
  // The hang backend blocks forever when m == 13, after forking a grandchild.
  fs::path list = write_testlist(dir, "hang.json", {gemm_entry(8, 8, 8), gemm_entry(13, 8, 8), gemm_entry(16, 8, 8)});
  fs::path plan = dir / "plan.json";
  fs::path out = dir / "out";
  fs::path pidfile = dir / "grandchild.pid";
  auto prepared = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "hang", "-o", plan.string()}, globals);
  REQUIRE_MESSAGE(prepared.code == 0, prepared.err);
  auto ran = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--case-timeout", "3"}, globals,
                   {{"PBTEST_HANG_PIDFILE", pidfile.string()}});
  CHECK(ran.code == 1);  // a timeout is a failed case
  json result = read_json(out / "result.json");
  check_schema("perfbound.bench_result/1", result);
  CHECK(result["state"] == "complete");
  std::map<std::string, json> rows = rows_by_id(result);
  CHECK(rows["hang#0"]["status"] == "ok");
  CHECK(rows["hang#1"]["status"] == "timeout");
  CHECK(rows["hang#1"]["reason"].get<std::string>().find("no result within the 3 s case deadline; the worker's process group was killed") == 0);
  CHECK(rows["hang#1"]["samples_us"].is_null());
  // The next case ran, in a fresh worker (whose first case gets the 1 s ramp again).
  CHECK(rows["hang#2"]["status"] == "ok");
  CHECK(rows["hang#2"]["worker"]["number"] == 2);
  CHECK(rows["hang#2"]["timing"]["first_op"] == true);
  // The worker's native stdout is in the journal record of its case.
  CHECK(rows["hang#0"]["native_output"]["stdout"] == "hang backend: gemm m=8 created\n");
  CHECK(rows["hang#1"]["native_output"]["stdout"] == "hang backend: gemm m=13 created\n");
  // The whole group died: the worker and the grandchild it forked.
  REQUIRE(wait_for_file(pidfile, 1));
  pid_t grandchild = std::stoi(pbtest::read_file(pidfile));
  CHECK(process_gone(grandchild));
  CHECK(process_gone(static_cast<pid_t>(rows["hang#1"]["worker"]["pid"].get<int>())));
}

TEST_CASE("two runs never share a device; an interrupted run resumes") {
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "hang.json", {gemm_entry(13, 8, 8)});
  fs::path plan = dir / "plan.json";
  std::vector<std::string> globals = {"--plugin-path", hang_plugins().string()};
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "hang", "-o", plan.string()}, globals).code == 0);
  fs::path out_a = dir / "a";
  Background run_a = start_background({"--plugin-path", hang_plugins().string(), "bench", "run", plan.string(), "--out-dir",
                                       out_a.string(), "--case-timeout", "60"},
                                      {{"PERFBOUND_LOCK_DIR", (dir / "locks").string()}}, dir);
  REQUIRE(wait_for_file(out_a / "worker-1.log", 20));

  fs::path out_b = dir / "b";
  auto run_b = bench(dir / "locks", {"run", plan.string(), "--out-dir", out_b.string()}, globals);
  CHECK(run_b.code == 5);
  CHECK(run_b.err.find("device hang-index0 is in use by another perfbound bench run (pid " + std::to_string(run_a.pid)) !=
        std::string::npos);
  CHECK_FALSE(fs::exists(out_b / "journal.jsonl"));

  // Ctrl-C / SIGTERM: the run stops the worker, keeps its journal, exits 130.
  kill(run_a.pid, SIGTERM);
  CHECK(wait_background(run_a) == 130);
  json interrupted = read_json(out_a / "result.json");
  CHECK(interrupted["state"] == "interrupted");
  CHECK(interrupted["rows"].empty());
  CHECK(interrupted["summary"]["pending"] == 1);
  // The unfinished case runs on --resume (and, hanging again, times out).
  auto resumed = bench(dir / "locks", {"run", plan.string(), "--out-dir", out_a.string(), "--resume", "--case-timeout", "2"}, globals);
  CHECK(resumed.code == 1);
  CHECK(rows_by_id(read_json(out_a / "result.json"))["hang#0"]["status"] == "timeout");
}

TEST_CASE("health gate on recorded npu-smi output: an idle device passes, a busy one is skipped before launch") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "tiny.json", {gemm_entry(8, 8, 8)});
  fs::path plan = dir / "plan.json";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()}).code == 0);

  std::string idle_smi = make_npu_smi_replay(dir, "npu-smi_info_910B3_gpustack.txt", "npu-smi-idle");
  auto idle = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "idle").string(), "--health", "npu-smi",
                                    "--smi-program", idle_smi, "--smi-device", "4", "--idle-interval", "0.05", "-q"});
  REQUIRE_MESSAGE(idle.code == 0, idle.err);
  json row = read_json(dir / "idle/result.json")["rows"][0];
  CHECK(row["status"] == "ok");
  CHECK(row["health"]["gate"] == "npu-smi");
  CHECK(row["health"]["verdict"] == "clean");
  REQUIRE(row["health"]["observations"].size() == 2);  // two idle observations before the case
  for (const json &observation : row["health"]["observations"]) {
    CHECK(observation["device_found"] == true);
    CHECK(observation["health"] == "OK");
    CHECK(observation["utilization_pct"] == 0);
    CHECK(observation["memory_used_mb"] == 3161);
  }
  CHECK(row["health"]["during"].size() >= 2);  // at least one during the case, one after
  CHECK(row["health"]["worker_rows"] == "no new SMI row appeared when the worker opened the device");

  std::string busy_smi = make_npu_smi_replay(dir, "npu-smi_info_910B1_with_processes.txt", "npu-smi-busy");
  auto busy = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "busy").string(), "--health", "npu-smi",
                                    "--smi-program", busy_smi, "--smi-device", "0", "--idle-timeout", "0", "-q"});
  CHECK(busy.code == 0);
  json skipped = read_json(dir / "busy/result.json")["rows"][0];
  CHECK(skipped["status"] == "skipped");
  CHECK(skipped["skipped_reason"] == "device_not_idle: foreign process(es) on the device: pid 576489 (python, 60703 MB)");
  CHECK(skipped["samples_us"].is_null());
  CHECK_FALSE(fs::exists(dir / "busy/worker-1.log"));  // never launched
}

TEST_CASE("the capacity preflight skips a tiling that overflows L0A, and one it cannot decode") {
  pbtest::TempDir dir;
  const std::string fits = R"(, "tiling": {"format": "perfbound.gemm_tiling/1", "base_m": 128, "base_n": 256, "base_k": 64, "l0a_buffers": 2})";
  const std::string too_big = R"(, "tiling": {"format": "perfbound.gemm_tiling/1", "base_m": 272, "base_n": 64, "base_k": 128})";
  const std::string foreign = R"(, "tiling": {"format": "catlass.fp8_tiling/3", "blob": "00ff"})";
  fs::path list = write_testlist(dir, "tiled.json", {gemm_entry(64, 64, 64, "bf16", fits), gemm_entry(64, 64, 64, "bf16", too_big),
                                                     gemm_entry(64, 64, 64, "bf16", foreign), gemm_entry(32, 64, 64, "bf16")});
  fs::path plan = dir / "plan.json";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "--profile", "ascend_910b3", "-o",
                                plan.string()}).code == 0);
  auto ran = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "out").string(), "-q"});
  CHECK_MESSAGE(ran.code == 0, ran.err);
  std::map<std::string, json> rows = rows_by_id(read_json(dir / "out/result.json"));
  CHECK(rows["tiled#0"]["status"] == "ok");
  CHECK(rows["tiled#0"]["preflight"]["status"] == "fits");
  // 272 x 128 x 2 B (bf16) x 1 buffer = 69632 B of L0A; the 910B3 has 64 KiB.
  CHECK(rows["tiled#1"]["status"] == "skipped");
  CHECK(rows["tiled#1"]["skipped_reason"] ==
        "l0a_capacity: l0a needs 69632 B (base_m 272 x base_k 128 x 2 B x 1 buffers), ascend_910b3 has 65536 B");
  CHECK(rows["tiled#1"]["samples_us"].is_null());
  CHECK(rows["tiled#2"]["status"] == "skipped");
  CHECK(rows["tiled#2"]["skipped_reason"].get<std::string>().find("unverified_tiling: cannot decode tiling format") == 0);
  CHECK(rows["tiled#3"]["preflight"]["status"] == "not_applicable");

  // Without a profile a tiling cannot be sized at all.
  fs::path bare = dir / "bare.json";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", bare.string()}).code == 0);
  REQUIRE(bench(dir / "locks", {"run", bare.string(), "--out-dir", (dir / "bare").string(), "-q"}).code == 0);
  CHECK(rows_by_id(read_json(dir / "bare/result.json"))["tiled#0"]["skipped_reason"] ==
        "unverified_tiling: the plan has no hardware profile (perfbound bench prepare --profile NAME|DIR)");
}

TEST_CASE("bad testlist entries become error rows; bad files and edited plans are refused") {
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "mixed.json", {gemm_entry(8, 8, 8), gemm_entry(0, 8, 8), gemm_entry(8, 8, 8, "fp8_e4m3")});
  fs::path plan = dir / "plan.json";
  auto prepared = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()});
  REQUIRE_MESSAGE(prepared.code == 0, prepared.err);
  CHECK(prepared.out.find("3 cases (1 planned, 2 errors)") != std::string::npos);
  auto ran = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "out").string(), "-q"});
  CHECK(ran.code == 1);
  std::map<std::string, json> rows = rows_by_id(read_json(dir / "out/result.json"));
  CHECK(rows["mixed#0"]["status"] == "ok");
  CHECK(rows["mixed#1"]["status"] == "error");
  CHECK(rows["mixed#1"]["reason"] == list.string() + ":3: entry 1: args.m must be a positive integer, got 0");
  CHECK(rows["mixed#1"]["samples_us"].is_null());
  CHECK(rows["mixed#2"]["reason"].get<std::string>().find(":4: entry 2: args.a.dtype: dtype 'fp8_e4m3' is not supported") !=
        std::string::npos);

  // A dtype the chosen backend cannot run is an error row too (the hang backend runs fp32 only).
  fs::path bf16 = write_testlist(dir, "bf16.json", {gemm_entry(8, 8, 8, "bf16")});
  auto hang_plan = bench(dir / "locks", {"prepare", "--testlist", bf16.string(), "--backend", "hang", "-o", (dir / "h.json").string(), "--json"},
                         {"--plugin-path", hang_plugins().string()});
  REQUIRE(hang_plan.code == 0);
  CHECK(json::parse(hang_plan.out)["cases"][0]["reason"] == "backend hang: hang backend: fp32 only");

  pbtest::write_file(dir / "broken.json", "[\n  {\"type\": \"gemm\",, }\n]\n");
  auto broken = bench(dir / "locks", {"prepare", "--testlist", (dir / "broken.json").string(), "--backend", "cpu", "-o", (dir / "x.json").string()});
  CHECK(broken.code == 3);
  CHECK(broken.err.find((dir / "broken.json").string() + ":2: not valid JSON") != std::string::npos);

  auto unknown = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "tpu", "-o", (dir / "y.json").string()});
  CHECK(unknown.code == 3);
  CHECK(unknown.err.find("no timing backend 'tpu'") != std::string::npos);
  CHECK(unknown.err.find("perfbound.timing_cpu") != std::string::npos);

  json edited = read_json(plan);
  edited["cases"][0]["op"]["m"] = 9;
  pbtest::write_file(dir / "edited.json", edited.dump());
  auto tampered = bench(dir / "locks", {"run", (dir / "edited.json").string(), "--out-dir", (dir / "edited").string()});
  CHECK(tampered.code == 3);
  CHECK(tampered.err.find("does not match its plan_sha256; it was edited after perfbound bench prepare") != std::string::npos);
}

TEST_CASE("the CUDA backend builds and plans; without a GPU a run is an infrastructure error") {
  if (!PB_TIMING_CUDA_BUILT) {
    MESSAGE("SKIPPED: the CUDA timing backend was not built (no CUDA toolkit at configure time)");
    return;
  }
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "cuda.json", {gemm_entry(64, 64, 64, "bf16"),
                                                    R"({"type": "gemm", "args": {"m": 8, "n": 8, "k": 8, "a": {"dtype": "fp32"}, "b": {"dtype": "bf16"}, "out": "fp32"}, "sources": [], "name": []})"});
  fs::path plan = dir / "plan.json";
  auto prepared = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cuda", "-o", plan.string()});
  REQUIRE_MESSAGE(prepared.code == 0, prepared.err);
  json plan_doc = read_json(plan);
  CHECK(plan_doc["cases"][0]["status"] == "planned");
  CHECK(plan_doc["cases"][1]["reason"] == "backend cuda: cuda backend: cublasGemmEx needs A and B of the same dtype");
  auto ran = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "out").string(), "-q"});
  if (ran.code == 5 && ran.err.find("no usable device") != std::string::npos) {
    MESSAGE("SKIPPED: no CUDA device here, the CUDA backend was built but not run: " << ran.err);
    CHECK_FALSE(fs::exists(dir / "out/journal.jsonl"));
    return;
  }
  CHECK_MESSAGE(ran.code == 1, ran.err);  // the mixed-dtype case is an error row
  CHECK(rows_by_id(read_json(dir / "out/result.json"))["cuda#0"]["status"] == "ok");
}

TEST_CASE("the ACL backend is offered only where it was built") {
  if (PB_TIMING_ACL_BUILT) {
    MESSAGE("the ACL backend was built; its runs need an NPU and are not part of this suite");
    return;
  }
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "tiny.json", {gemm_entry(8, 8, 8)});
  auto refused = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "acl", "-o", (dir / "p.json").string()});
  CHECK(refused.code == 3);
  CHECK(refused.err.find("no timing backend 'acl'") != std::string::npos);
}

TEST_CASE("perfbound plugin check finds no violation in the bench plugin and the backends") {
  std::vector<fs::path> libraries = {builtin_plugins() / "libperfbound_bench.so", builtin_plugins() / "libperfbound_timing_cpu.so",
                                     hang_plugins() / "libpbtest_timing_hang.so"};
  if (PB_TIMING_CUDA_BUILT) libraries.push_back(builtin_plugins() / "libperfbound_timing_cuda.so");
  for (const fs::path &library : libraries) {
    auto checked = pbtest::run_cli({"plugin", "check", library.string()});
    CHECK_MESSAGE(checked.code == 0, library.string() << "\n" << checked.out << checked.err);
  }
  auto listed = pbtest::run_cli({"bench", "backends", "--json"});
  REQUIRE(listed.code == 0);
  json backends = json::parse(listed.out);
  bool cpu_usable = false;
  for (const json &entry : backends)
    if (entry["plugin"] == "perfbound.timing_cpu") cpu_usable = entry["usable"].get<bool>();
  CHECK(cpu_usable);
}

//===----------------------------------------------------------------------===//
// Beyond one device: --devices, shards, merge (docs/timing.md §12)
//===----------------------------------------------------------------------===//

namespace {

/// The CPU backend's devices here (the logical CPUs of the test's affinity mask).
size_t cpu_device_count(const pbtest::TempDir &dir) {
  auto listed = bench(dir / "locks", {"backends", "--json"});
  REQUIRE(listed.code == 0);
  for (const json &entry : json::parse(listed.out))
    if (entry.value("name", "") == "cpu") return entry["devices"].size();
  FAIL("no cpu backend listed");
  return 0;
}

std::map<std::string, int> case_counts(const json &result) {
  std::map<std::string, int> counts;
  for (const json &row : result["rows"]) ++counts[row["case_id"].get<std::string>()];
  return counts;
}

}  // namespace

TEST_CASE("--devices all: one worker per CPU device, every case once, smoke cases on every device, a merged result") {
  pbtest::TempDir dir;
  size_t devices = cpu_device_count(dir);
  REQUIRE(devices >= 1);
  fs::path list = write_testlist(dir, "multi.json", {gemm_entry(8, 8, 8), gemm_entry(16, 8, 8), gemm_entry(24, 8, 8),
                                                    gemm_entry(32, 8, 8), gemm_entry(8, 8, 8, "bf16")});
  fs::path plan = dir / "plan.json";
  fs::path out = dir / "out";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()}).code == 0);
  auto ran = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--devices", "all"});
  REQUIRE_MESSAGE(ran.code == 0, ran.err);
  CHECK(ran.err.find("devices: ") != std::string::npos);
  json result = read_json(out / "result.json");
  check_schema("perfbound.bench_result/1", result);
  CHECK(result["state"] == "complete");
  CHECK(result["run"]["kind"] == "merged");
  CHECK(case_counts(result) == std::map<std::string, int>{{"multi#0", 1}, {"multi#1", 1}, {"multi#2", 1}, {"multi#3", 1}, {"multi#4", 1}});
  CHECK(result["summary"]["ok"] == 5);
  CHECK(result["missing"].empty());
  CHECK(result["duplicates"].empty());
  // Each device ran both smoke cases itself; the other devices' copies are replicas.
  CHECK(result["replicas"].size() == (devices > 1 ? 2u : 0u));
  REQUIRE(result["devices"].size() == devices);
  size_t rows = 0;
  std::set<std::string> keys;
  for (const json &device : result["devices"]) {
    CHECK(device["rows"].get<size_t>() >= 2);
    CHECK(device["cases_per_hour"].get<double>() > 0);
    rows += device["rows"].get<size_t>();
    keys.insert(device["device"].get<std::string>());
  }
  CHECK(rows == 5 + 2 * (devices - 1));
  CHECK(keys.size() == devices);
  // Every row says which device measured it; each lane has its own journal
  // and fingerprint (the hardware part names its CPU).
  for (const json &row : result["rows"]) {
    CHECK(row["device"]["host"].is_string());
    CHECK(row["device"]["key"].get<std::string>().rfind("cpu", 0) == 0);
  }
  std::set<std::string> cpus;
  size_t lanes = 0;
  for (const fs::directory_entry &lane : fs::directory_iterator(out / "lanes")) {
    ++lanes;
    std::vector<std::string> journal = pbtest::lines(pbtest::read_file(lane.path() / "journal.jsonl"));
    json header = json::parse(journal[0]);
    check_schema("perfbound.bench_journal_header/1", header);
    cpus.insert(header["fingerprint"]["hardware"]["device"]["unique_id"].get<std::string>());
    check_schema("perfbound.bench_result/1", read_json(lane.path() / "result.json"));
  }
  CHECK(lanes == devices);
  CHECK(cpus.size() == devices);
  CHECK(pbtest::read_file(out / "summary.md").find("## Devices") != std::string::npos);

  // A finished run resumes to nothing; the lanes' journals stay as they were.
  auto resumed = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--devices", "all", "--resume", "-q"});
  CHECK_MESSAGE(resumed.code == 0, resumed.err);
  CHECK(case_counts(read_json(out / "result.json")).size() == 5);
  auto again = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--devices", "all", "-q"});
  CHECK(again.code == 2);
  CHECK(again.err.find("already holds journals: pass --resume") != std::string::npos);
}

TEST_CASE("a device named twice, a shard out of range, journals of different plans: one line, a distinct code, nothing written") {
  pbtest::TempDir dir;
  fs::path list = write_testlist(dir, "tiny.json", {gemm_entry(8, 8, 8), gemm_entry(16, 8, 8)});
  fs::path plan = dir / "plan.json";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()}).code == 0);
  auto one_line = [](const std::string &err) { return pbtest::lines(err).size() == 1; };

  auto twice = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "twice").string(), "--devices", "0,1,0"});
  CHECK(twice.code == 2);
  CHECK(twice.err == "perfbound bench: --devices 0,1,0: device 0 is named twice\n");
  CHECK_FALSE(fs::exists(dir / "twice"));
  auto overlap = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "overlap").string(), "--devices", "0-2,1"});
  CHECK(overlap.code == 2);
  CHECK(overlap.err.find("device 1 is named twice") != std::string::npos);
  auto both = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "both").string(), "--devices", "0", "--device", "0"});
  CHECK(both.code == 2);
  auto missing = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "missing").string(), "--devices", "0,4095"});
  CHECK(missing.code == 5);
  CHECK(missing.err.find("device 4095 does not exist") != std::string::npos);
  CHECK(one_line(missing.err));
  CHECK_FALSE(fs::exists(dir / "missing"));

  auto range = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "range").string(), "--shard", "4/4"});
  CHECK(range.code == 2);
  CHECK(range.err == "perfbound bench: --shard 4/4: shard index 4 is out of range; shards of 4 are numbered 0..3\n");
  CHECK_FALSE(fs::exists(dir / "range"));

  fs::path other_plan = dir / "other.json";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "--shape-divisor", "2", "-o",
                                other_plan.string()}).code == 0);
  REQUIRE(bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "a").string(), "-q"}).code == 0);
  REQUIRE(bench(dir / "locks", {"run", other_plan.string(), "--out-dir", (dir / "b").string(), "-q"}).code == 0);
  auto mixed = bench(dir / "locks", {"merge", (dir / "a").string(), (dir / "b").string(), "-o", (dir / "merged").string()});
  CHECK(mixed.code == 3);
  CHECK(mixed.err.find("merge refused: " + (dir / "b/journal.jsonl").string() + " measured another plan than ") != std::string::npos);
  CHECK(one_line(mixed.err));
  CHECK_FALSE(fs::exists(dir / "merged"));
}

TEST_CASE("shards run apart and merge into every case once; a missing shard and a shard run twice are reported") {
  pbtest::TempDir dir;
  std::vector<std::string> entries;
  for (int m : {8, 16, 24, 32, 40, 48, 56}) entries.push_back(gemm_entry(m, 16, 16));
  entries.push_back(gemm_entry(8, 8, 8, "bf16"));
  fs::path list = write_testlist(dir, "sh.json", entries);
  fs::path plan = dir / "plan.json";
  auto prepared = bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "--shards", "3", "-o", plan.string()});
  REQUIRE_MESSAGE(prepared.code == 0, prepared.err);
  CHECK(prepared.out.find("shards: 3 (run one with --shard I/3)") != std::string::npos);
  json plan_doc = read_json(plan);
  check_schema("perfbound.bench_plan/1", plan_doc);
  REQUIRE(plan_doc["sharding"]["shards"].size() == 3);
  CHECK(plan_doc["cases"][0]["predicted_cost"]["unit"] == "FLOP");

  std::vector<std::string> shard_dirs;
  for (int shard = 0; shard < 3; ++shard) {
    fs::path out = dir / ("s" + std::to_string(shard));
    shard_dirs.push_back(out.string());
    auto ran = bench(dir / "locks", {"run", plan.string(), "--out-dir", out.string(), "--shard", std::to_string(shard) + "/3", "-q"});
    REQUIRE_MESSAGE(ran.code == 0, ran.err);
    json header = json::parse(pbtest::lines(pbtest::read_file(out / "journal.jsonl"))[0]);
    CHECK(header["fingerprint"]["plan"]["shard"] == std::to_string(shard) + "/3");
    // The shard's own cases plus both smoke cases.
    CHECK(read_json(out / "result.json")["rows"].size() == plan_doc["sharding"]["shards"][shard]["cases"].get<size_t>() + 2);
  }
  auto merged = bench(dir / "locks", {"merge", shard_dirs[0], shard_dirs[1], shard_dirs[2], "-o", (dir / "merged").string()});
  REQUIRE_MESSAGE(merged.code == 0, (merged.err + merged.out));
  json result = read_json(dir / "merged/result.json");
  check_schema("perfbound.bench_result/1", result);
  CHECK(result["state"] == "complete");
  std::map<std::string, int> counts = case_counts(result);
  CHECK(counts.size() == 8);
  for (const auto &[case_id, count] : counts) CHECK_MESSAGE(count == 1, case_id);
  CHECK(result["duplicates"].empty());
  CHECK(result["missing"].empty());
  CHECK(result["replicas"].size() == 2);  // both smoke cases, measured by every shard
  for (const json &replica : result["replicas"]) CHECK(replica["others"].size() == 2);

  auto partial = bench(dir / "locks", {"merge", shard_dirs[0], shard_dirs[2], "-o", (dir / "partial").string()});
  CHECK(partial.code == 1);
  json partial_doc = read_json(dir / "partial/result.json");
  CHECK(partial_doc["state"] == "incomplete");
  CHECK(partial_doc["missing"].size() == plan_doc["sharding"]["shards"][1]["cases"].get<size_t>());
  CHECK(partial.out.find("missing: ") != std::string::npos);

  fs::path again = dir / "s1-again";
  REQUIRE(bench(dir / "locks", {"run", plan.string(), "--out-dir", again.string(), "--shard", "1/3", "-q"}).code == 0);
  auto doubled = bench(dir / "locks", {"merge", shard_dirs[0], shard_dirs[1], again.string(), shard_dirs[2], "-o", (dir / "doubled").string()});
  CHECK(doubled.code == 0);
  json doubled_doc = read_json(dir / "doubled/result.json");
  CHECK(doubled_doc["duplicates"].size() == plan_doc["sharding"]["shards"][1]["cases"].get<size_t>());
  CHECK(doubled.out.find("duplicate: ") != std::string::npos);
  CHECK(case_counts(doubled_doc).size() == 8);

  // Resume is per shard: a shard's journal refuses another shard.
  auto wrong = bench(dir / "locks", {"run", plan.string(), "--out-dir", shard_dirs[0], "--shard", "1/3", "--resume"});
  CHECK(wrong.code == 3);
  CHECK(wrong.err.find("plan changed: shard \"0/3\" -> \"1/3\"") != std::string::npos);
}

TEST_CASE("--devices with a health gate: each lane watches its own device in the recorded npu-smi output") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir dir;
  if (cpu_device_count(dir) < 2) {
    MESSAGE("SKIPPED: one CPU device here; two lanes need two");
    return;
  }
  fs::path list = write_testlist(dir, "gate.json", {gemm_entry(8, 8, 8), gemm_entry(16, 8, 8), gemm_entry(24, 8, 8)});
  fs::path plan = dir / "plan.json";
  REQUIRE(bench(dir / "locks", {"prepare", "--testlist", list.string(), "--backend", "cpu", "-o", plan.string()}).code == 0);
  // The 910B1 recording: a foreign python process on NPU 0 (pid 576489) and
  // another on NPU 1 (pid 576491). Lane 0 watches NPU 0, lane 1 NPU 1.
  std::string busy_smi = make_npu_smi_replay(dir, "npu-smi_info_910B1_with_processes.txt", "npu-smi-busy");
  auto busy = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "busy").string(), "--devices", "0,1", "--health",
                                    "npu-smi", "--smi-program", busy_smi, "--smi-device", "0,1", "--idle-timeout", "0", "-q"});
  CHECK_MESSAGE(busy.code == 0, busy.err);
  json result = read_json(dir / "busy/result.json");
  check_schema("perfbound.bench_result/1", result);
  CHECK(result["missing"].empty());
  size_t seen = 0;
  auto check_row = [&](const json &row) {
    CHECK(row["status"] == "skipped");
    int64_t index = row["device"]["index"].get<int64_t>();
    std::string pid = index == 0 ? "576489" : "576491";
    CHECK_MESSAGE(row["skipped_reason"].get<std::string>().find("pid " + pid + " (python") != std::string::npos, row.dump());
    ++seen;
  };
  for (const json &row : result["rows"]) check_row(row);
  for (const json &replica : result["replicas"])
    for (const json &other : replica["others"]) check_row(other["row"]);
  CHECK(seen == 4);  // three cases, the smoke case on both lanes
  auto mismatch = bench(dir / "locks", {"run", plan.string(), "--out-dir", (dir / "mismatch").string(), "--devices", "0,1", "--health",
                                        "npu-smi", "--smi-program", busy_smi, "--smi-device", "0"});
  CHECK(mismatch.code == 2);
  CHECK(mismatch.err == "perfbound bench: --smi-device names 1 device(s), --devices 2\n");
  CHECK_FALSE(fs::exists(dir / "mismatch"));
}
