//===- test_scaleout.cpp - shards, predicted costs, merging journals --------===//
//
// The pure parts of scaling a campaign out: the shard split, the predicted
// cost it balances, and the merge of journals (refusals, duplicates,
// replicas, missing cases, per-device throughput, the sick-card verdict).
// Plans and journals here are written by the test; the end-to-end runs on
// the CPU backend are in test_bench_cli.cpp, the real Slurm run in
// slurm_cluster_test.sh.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "harness/merge.hpp"
#include "harness/shard.hpp"
#include "harness/slurm.hpp"
#include "support/test_support.hpp"

namespace bench = pb::bench;
using bench::json;

namespace {

json gemm_case(const std::string &id, uint64_t m, uint64_t n, uint64_t k, const std::string &phase = "measure",
               const std::string &dtype = "fp16") {
  json op{{"m", m}, {"n", n}, {"k", k}, {"a", dtype}, {"b", dtype}, {"out", dtype}};
  return json{{"id", id}, {"phase", phase}, {"status", "planned"}, {"op", op},
              {"predicted_cost", bench::predicted_cost(op, nullptr)}};
}

/// A profile written for the test: 2 cube cores, 1 GHz, 1000 fp16 FLOP per
/// cycle each, 1e9 B/s of HBM.
json tiny_profile() {
  return json{{"cores", {{"aic", {{"value", 2}, {"unit", "1"}}}}},
              {"clock", {{"frequency", {{"value", 1e9}, {"unit", "Hz"}}}}},
              {"peak", {{"cube_fp16", {{"value", 1000}, {"unit", "FLOP/cycle"}}}, {"cube_fp32", {{"value", 250}, {"unit", "FLOP/cycle"}}}}},
              {"memory", {{"hbm_bandwidth", {{"value", 1e9}, {"unit", "B/s"}}}}}};
}

json header(const std::string &run_id, const std::string &host, uint32_t device, const std::string &plan_sha = "p1",
            const std::string &shard = "") {
  json plan{{"plan_sha256", plan_sha}, {"protocol", {{"revision", 1}}}, {"shape_divisor", 1},
            {"backend", {{"name", "cpu"}, {"plugin", "perfbound.timing_cpu"}}},
            {"case_ids", {"t#0", "t#1", "t#2", "t#3"}}};
  if (!shard.empty()) plan["shard"] = shard;
  return json{{"schema", "perfbound.bench_journal_header/1"},
              {"run_id", run_id},
              {"created_at", "2026-12-01T10:00:00.000Z"},
              {"plan_file", "/x/plan.json"},
              {"fingerprint",
               {{"plan", plan},
                {"source", {{"perfbound", {{"version", "0.1.0"}}}, {"bench_plugin", {{"version", "0.1.0"}}},
                            {"backend_plugin", {{"version", "0.1.0"}}}}},
                {"hardware", {{"backend", "cpu"}, {"device_index", device}, {"device", {{"name", "cpu"}, {"bus_id", nullptr}}},
                              {"host", host}}}}}};
}

json record(const std::string &case_id, const std::string &phase, const std::string &status, double latency_us) {
  json row{{"case_id", case_id}, {"name", case_id}, {"phase", phase}, {"status", status},
           {"latency_us", status == "ok" ? json(latency_us) : json(nullptr)}, {"duration_s", 2.0},
           {"worker", {{"pid", 1}}}};
  return json{{"schema", "perfbound.bench_journal_record/1"}, {"case_id", case_id}, {"seq", 1}, {"row", row}};
}

bench::MergeSource source(const std::string &label, json head, std::vector<json> records) {
  return bench::MergeSource{label, std::move(head), std::move(records), 0};
}

json merge(const std::vector<bench::MergeSource> &sources) {
  bench::MergeOptions options;
  options.id = "m";
  return bench::merge_sources(sources, options);
}

const json &device_entry(const json &result, const std::string &key) {
  for (const json &device : result["devices"])
    if (device["device"] == key) return device;
  FAIL("no device " << key);
  static json none;
  return none;
}

}  // namespace

TEST_CASE("--shard I/N is 0-based; an index out of range or a malformed spec is refused with the range") {
  std::string error;
  auto shard = bench::parse_shard("3/4", error);
  REQUIRE(shard);
  CHECK(shard->index == 3);
  CHECK(shard->count == 4);
  CHECK(shard->text() == "3/4");
  CHECK_FALSE(bench::parse_shard("4/4", error));
  CHECK(error == "--shard 4/4: shard index 4 is out of range; shards of 4 are numbered 0..3");
  CHECK_FALSE(bench::parse_shard("1/0", error));
  CHECK(error.find("the shard count must be 1..") != std::string::npos);
  for (const char *bad : {"", "1", "a/4", "1/", "-1/4", "1/4/2"}) {
    CHECK_FALSE(bench::parse_shard(bad, error));
    CHECK(error.find("expected I/N") != std::string::npos);
  }
}

TEST_CASE("the predicted cost is the roofline bound on the profile, or the FLOP count without one") {
  json op{{"m", 1000}, {"n", 1000}, {"k", 1000}, {"a", "fp16"}, {"b", "fp16"}, {"out", "fp16"}};
  json flop = bench::predicted_cost(op, nullptr);
  CHECK(flop["unit"] == "FLOP");
  CHECK(flop["value"].get<double>() == doctest::Approx(2e9));
  // Compute: 2e9 FLOP / (2 cores x 1e9 Hz x 1000 FLOP/cycle) = 1000 us.
  // Memory: (1e6 + 1e6 + 1e6) x 2 B / 1e9 B/s = 6000 us: memory-bound.
  json bound = bench::predicted_cost(op, tiny_profile());
  CHECK(bound["unit"] == "us");
  CHECK(bound["value"].get<double>() == doctest::Approx(6000));
  CHECK(bound["basis"].get<std::string>().find("peak.cube_fp16") != std::string::npos);
  // A long k makes it compute-bound: 2 x 10 x 10 x 1e6 / 2e12 s = 100 us;
  // bytes (1e7 + 1e7 + 100) x 2 / 1e9 = 40000 us. Still memory; a square
  // fp32 one at the slower fp32 peak: 2e9 / (2 x 1e9 x 250) = 4000 us vs
  // 3e6 x 4 / 1e9 = 12000 us.
  json fp32{{"m", 1000}, {"n", 1000}, {"k", 1000}, {"a", "fp32"}, {"b", "fp32"}, {"out", "fp32"}};
  CHECK(bench::predicted_cost(fp32, tiny_profile())["value"].get<double>() == doctest::Approx(12000));
  json profile = tiny_profile();
  profile["memory"].erase("hbm_bandwidth");
  CHECK(bench::predicted_cost(fp32, profile)["value"].get<double>() == doctest::Approx(4000));
  // fp64 has no cube peak: the slowest cube peak, said in the basis.
  json fp64{{"m", 1000}, {"n", 1000}, {"k", 1000}, {"a", "fp64"}, {"b", "fp64"}, {"out", "fp64"}};
  json slow = bench::predicted_cost(fp64, profile);
  CHECK(slow["value"].get<double>() == doctest::Approx(4000));
  CHECK(slow["basis"].get<std::string>().find("no cube peak for fp64") != std::string::npos);
}

TEST_CASE("shards are deterministic, cover every case once, and balance the predicted cost") {
  json plan{{"cases", json::array()}, {"smoke_case_ids", {"t#0"}}};
  plan["cases"].push_back(gemm_case("t#0", 1, 8, 8, "smoke"));
  // Costs 8, 7, 6, 5, 4, 3, 2, 1 (x 2 x 64 x 64 FLOP): greedy into 3 shards.
  for (int idx = 1; idx <= 8; ++idx) plan["cases"].push_back(gemm_case("t#" + std::to_string(idx), 9 - idx, 64, 64));
  json error_case{{"id", "t#9"}, {"phase", "measure"}, {"status", "error"}, {"op", nullptr}};
  plan["cases"].push_back(error_case);
  auto shards = bench::split_plan(plan, 3);
  REQUIRE(shards.size() == 3);
  CHECK(shards == bench::split_plan(plan, 3));  // stable
  // 8 -> s0, 7 -> s1, 6 -> s2, 5 -> s2 (11), 4 -> s1 (11), 3 -> s0 (11), 2 -> s0 (13), 1 -> s1 (12),
  // the error case (cost 0) -> s2 (11): ties go to the lowest shard.
  CHECK(shards[0] == std::vector<std::string>{"t#1", "t#6", "t#7"});
  CHECK(shards[1] == std::vector<std::string>{"t#2", "t#5", "t#8"});
  CHECK(shards[2] == std::vector<std::string>{"t#3", "t#4", "t#9"});
  std::multiset<std::string> all;
  for (const auto &shard : shards) all.insert(shard.begin(), shard.end());
  CHECK(all.size() == 9);  // every non-smoke case once
  CHECK(all.count("t#0") == 0);
  json table = bench::sharding_table(plan, 3);
  CHECK(table["cost_unit"] == "FLOP");
  double unit = 2.0 * 64 * 64;
  double smoke = 2.0 * 8 * 8;
  CHECK(table["shards"][0]["predicted_cost"].get<double>() == doctest::Approx(13 * unit + smoke));
  CHECK(table["shards"][1]["predicted_cost"].get<double>() == doctest::Approx(12 * unit + smoke));
  CHECK(table["shards"][2]["predicted_cost"].get<double>() == doctest::Approx(11 * unit + smoke));
  CHECK(table["balance"]["max_over_min"].get<double>() == doctest::Approx((13 * unit + smoke) / (11 * unit + smoke)));

  // A shard runs its cases plus every smoke case; a plan prepared with
  // --shards follows its recorded split and refuses another count.
  std::set<std::string> ids = bench::shard_case_ids(plan, bench::ShardSpec{2, 3});
  CHECK(ids == std::set<std::string>{"t#0", "t#3", "t#4", "t#9"});
  plan["sharding"] = table;
  CHECK(bench::shard_case_ids(plan, bench::ShardSpec{2, 3}) == ids);
  CHECK_THROWS_WITH(bench::shard_case_ids(plan, bench::ShardSpec{0, 2}),
                    "--shard 0/2: the plan was prepared with --shards 3; run its shards as I/3");
}

TEST_CASE("merging refuses another plan, protocol or build, naming both journals") {
  auto a = source("a/journal.jsonl", header("r1", "n1", 0), {});
  auto other_plan = source("b/journal.jsonl", header("r2", "n2", 0, "p2"), {});
  CHECK_THROWS_WITH(bench::check_mergeable({a, other_plan}),
                    doctest::Contains("merge refused: b/journal.jsonl measured another plan than a/journal.jsonl (plan changed: plan_sha256 \"p1\" -> \"p2\")"));
  json protocol = header("r3", "n2", 0);
  protocol["fingerprint"]["plan"]["protocol"]["revision"] = 2;
  CHECK_THROWS_WITH(bench::check_mergeable({a, source("c/journal.jsonl", protocol, {})}),
                    doctest::Contains("measured another timing protocol than a/journal.jsonl"));
  json build = header("r4", "n2", 0);
  build["fingerprint"]["source"]["perfbound"]["version"] = "0.2.0";
  CHECK_THROWS_WITH(bench::check_mergeable({a, source("d/journal.jsonl", build, {})}),
                    doctest::Contains("was measured by another perfbound build than a/journal.jsonl (source changed: perfbound.version"));
  // Different shards and different hardware of one plan merge.
  CHECK_NOTHROW(bench::check_mergeable({a, source("e/journal.jsonl", header("r5", "n9", 3, "p1", "1/2"), {})}));
  CHECK_THROWS_WITH(bench::check_mergeable({a, a}), doctest::Contains("is given twice"));
}

TEST_CASE("a merge keeps one row per case, lists replicas, duplicates and missing cases, and counts per device") {
  auto shard0 = source("s0/journal.jsonl", header("r1", "n1", 0, "p1", "0/2"),
                       {record("t#0", "smoke", "ok", 10), record("t#1", "measure", "check_failed", 0),
                        record("t#2", "measure", "ok", 30)});
  auto shard1 = source("s1/journal.jsonl", header("r2", "n2", 0, "p1", "1/2"),
                       {record("t#0", "smoke", "ok", 11), record("t#1", "measure", "ok", 21)});
  json result = merge({shard0, shard1});
  CHECK(result["run"]["kind"] == "merged");
  CHECK(result["state"] == "incomplete");
  REQUIRE(result["rows"].size() == 3);
  CHECK(result["rows"][0]["latency_us"] == 10);  // the first ok record in argument order
  CHECK(result["rows"][1]["status"] == "ok");    // t#1: the ok record wins over the failed one
  CHECK(result["rows"][1]["latency_us"] == 21);
  CHECK(result["missing"] == json::array({"t#3"}));
  CHECK(result["summary"]["pending"] == 1);
  REQUIRE(result["replicas"].size() == 1);
  CHECK(result["replicas"][0]["case_id"] == "t#0");
  REQUIRE(result["duplicates"].size() == 1);
  const json &duplicate = result["duplicates"][0];
  CHECK(duplicate["case_id"] == "t#1");
  CHECK(duplicate["used"]["journal"] == "s1/journal.jsonl");
  CHECK(duplicate["used"]["shard"] == "1/2");
  CHECK(duplicate["others"][0]["status"] == "check_failed");
  CHECK(duplicate["others"][0]["row"]["case_id"] == "t#1");  // both records are kept
  const json &n1 = device_entry(result, "n1/cpu:index0");
  CHECK(n1["rows"] == 3);
  CHECK(n1["ok"] == 2);
  CHECK(n1["failed"] == 1);
  CHECK(n1["busy_s"].get<double>() == doctest::Approx(6));
  CHECK(n1["cases_per_hour"].get<double>() == doctest::Approx(1800));
  CHECK(result["run"]["sources"].size() == 2);
  CHECK(result["run"]["sources"][1]["shard"] == "1/2");
}

TEST_CASE("a device that disagrees with the others on the same cases is flagged as a sick card") {
  // Three devices run the same two smoke cases; device 2 is 3x slower.
  std::vector<bench::MergeSource> sources;
  for (uint32_t device = 0; device < 3; ++device) {
    double factor = device == 2 ? 3.0 : 1.0 + 0.05 * device;
    sources.push_back(source("lane" + std::to_string(device), header("r", "n1", device),
                             {record("t#0", "smoke", "ok", 10 * factor), record("t#1", "smoke", "ok", 50 * factor)}));
  }
  json result = merge(sources);
  const json &sick = device_entry(result, "n1/cpu:index2")["sick_card"];
  CHECK(sick["flag"] == true);
  CHECK(sick["compared_cases"] == 2);
  CHECK(sick["disagreements"].size() == 2);
  // Against the median of all three (10.5 us on t#0).
  CHECK(sick["disagreements"][0]["ratio"].get<double>() == doctest::Approx(3.0 / 1.05));
  for (const char *healthy : {"n1/cpu:index0", "n1/cpu:index1"}) {
    CHECK(device_entry(result, healthy)["sick_card"]["flag"] == false);
    CHECK(device_entry(result, healthy)["sick_card"]["reason"] == "agrees with the other devices on 2 of 2 shared cases");
  }
  // A device failing a case the others pass disagrees too. (Devices 0 and 2,
  // now the only two that measured the cases, disagree with each other:
  // suspects, not flagged.)
  sources[1].records[0] = record("t#0", "smoke", "check_failed", 0);
  sources[1].records[1] = record("t#1", "smoke", "error", 0);
  json failing = merge(sources);
  CHECK(device_entry(failing, "n1/cpu:index1")["sick_card"]["flag"] == true);
  CHECK(device_entry(failing, "n1/cpu:index1")["sick_card"]["disagreements"][0]["status"] == "check_failed");
  CHECK(device_entry(failing, "n1/cpu:index0")["sick_card"]["flag"] == false);
  CHECK(device_entry(failing, "n1/cpu:index0")["sick_card"]["suspect"] == true);

  // Two devices: a disagreement cannot say which one is sick.
  std::vector<bench::MergeSource> two = {sources[0], sources[2]};
  json pair = merge(two);
  for (const char *key : {"n1/cpu:index0", "n1/cpu:index2"}) {
    CHECK(device_entry(pair, key)["sick_card"]["flag"] == false);
    CHECK(device_entry(pair, key)["sick_card"]["suspect"] == true);
    CHECK(device_entry(pair, key)["sick_card"]["reason"].get<std::string>().find("a third device would tell") != std::string::npos);
  }
}

TEST_CASE("the sbatch script: one array task per shard, devices from Slurm, resume per shard, a dependent merge") {
  bench::SlurmJob job;
  job.plan = "/runs/plan.json";
  job.plan_stem = "plan";
  job.backend = "acl";
  job.nodes = 2;
  job.devices_per_node = 8;
  job.shards = 6;
  job.partition = "ascend";
  job.time = "02:00:00";
  job.gres = bench::default_gres("acl");
  job.run_dir = "/runs/campaign";
  job.script = "/runs/job.sbatch";
  job.perfbound = "/opt/perfbound/bin/perfbound";
  job.plugin_dirs = {"/opt/perfbound/lib/perfbound/plugins"};
  std::string script = bench::slurm_script(job);
  for (const char *line : {"#SBATCH --array=0-5%2\n", "#SBATCH --gres=npu:8\n", "#SBATCH --partition=ascend\n",
                           "#SBATCH --time=02:00:00\n", "#SBATCH --nodes=1\n",
                           "#SBATCH --output=/runs/campaign/slurm/shard-%a-job-%A_%a.out\n",
                           "export ASCEND_RT_VISIBLE_DEVICES=\"$npus\"\n", "shard=$SLURM_ARRAY_TASK_ID\n",
                           "if [ -d \"$out/lanes\" ]; then resume=(--resume); fi\n"})
    CHECK_MESSAGE(script.find(line) != std::string::npos, line);
  CHECK(script.find("--shard \"$shard/$SHARDS\" --devices all --out-dir \"$out\"") != std::string::npos);
  CHECK(script.find("--dependency=afterany:\"$array\"") != std::string::npos);
  // The merge job's command, quoted word by word, then as one --wrap word.
  CHECK(script.find(R"(--wrap='exec '\''/opt/perfbound/bin/perfbound'\'' --plugin-path '\''/opt/perfbound/lib/perfbound/plugins'\'' )"
                    R"(bench merge '\''/runs/campaign'\''/shard-* -o '\''/runs/campaign/merged'\''')") != std::string::npos);
  CHECK(script.find("scontrol show job -d \"$SLURM_JOB_ID\"") != std::string::npos);
  CHECK(script.find("--cpus-per-task") == std::string::npos);
  // CPU plans ask for CPUs and use the binding Slurm gives; no gres.
  job.backend = "cpu";
  job.gres = bench::default_gres("cpu");
  std::string cpu = bench::slurm_script(job);
  CHECK(cpu.find("#SBATCH --cpus-per-task=8\n") != std::string::npos);
  CHECK(cpu.find("--gres") == std::string::npos);
  CHECK(cpu.find("ASCEND_RT_VISIBLE_DEVICES") == std::string::npos);
  // The script is valid bash.
  pbtest::TempDir dir;
  pbtest::write_file(dir / "job.sbatch", script);
  CHECK(pbtest::run_program("/bin/bash", {"-n", (dir / "job.sbatch").string()}).code == 0);
  CHECK(bench::valid_slurm_time("30"));
  CHECK(bench::valid_slurm_time("1-12:00"));
  CHECK_FALSE(bench::valid_slurm_time("2h"));
}
