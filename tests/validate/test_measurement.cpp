//===- test_measurement.cpp - the one measurement rule on real and own CSVs ===//
#include <doctest/doctest.h>

#include <cstdio>

#include <perfbound/sdk/json.hpp>

#include "measurement.hpp"
#include "msprof_csv.hpp"
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

json measure(const fs::path &file, const std::string &kernel, size_t warmup) {
  return pv::measure_file(file, request_for(kernel, warmup));
}

/// Seconds in a measurement quantity, as microseconds.
double us(const json &quantity) { return quantity["value"].get<double>() * 1e6; }

}  // namespace

TEST_CASE("the rule on the real corpus CSVs reproduces CORPUS.md") {
  PBTEST_REQUIRE_SHARED();
  const fs::path msprof = pbtest::shared_dir() / "data" / "msprof";

  SUBCASE("chunk_kda: 6 MIX_AIC launches among 213 setup rows, drop 1") {
    // Task Duration(us) of the 6 chunk_kda rows in start order: 104316.524,
    // 104277.644, 104294.964, 104288.944, 104228.240, 104326.164. Dropping
    // the first leaves five; sorted: 104228.240, 104277.644, 104288.944,
    // 104294.964, 104326.164 -> median 104288.944 (the 3rd), min 104228.240,
    // max 104326.164. CORPUS.md: 104,288.9 / 104,228.2.
    json m = measure(msprof / "chunk_kda_op_summary.csv", "chunk_kda_bwd_kernel_wy_dqkg_fused_opt_v2", 1);
    REQUIRE(m["status"] == "ok");
    CHECK(m["launches"]["found"] == 6);
    CHECK(m["launches"]["dropped"] == 1);
    CHECK(m["launches"]["kept"] == 5);
    CHECK(us(m["t_measured"]) == doctest::Approx(104288.944));
    CHECK(us(m["t_min"]) == doctest::Approx(104228.240));
    CHECK(us(m["t_max"]) == doctest::Approx(104326.164));
    CHECK(m["block_dim"] == 4096);
    CHECK(m["mix_block_dim"] == 8192);
    // The first sample is the warm-up, dropped; every sample is MIX_AIC.
    CHECK(m["samples"][0]["kept"] == false);
    CHECK(m["samples"][0]["duration_us"].get<double>() == doctest::Approx(104316.524));
    CHECK(m["samples"][1]["task_type"] == "MIX_AIC");
    // aiv_scalar_time(us) of the kept launches: 87921.081, 87996.362,
    // 87948.779, 87918.852, 87970.920 -> median 87948.779, larger than any
    // other pipe column (aic_scalar ~7,6xx, aiv_vec ~4,598): the AIV is
    // scalar-bound (CORPUS.md: "AIV time is about 84 % scalar").
    const json &dominant = m["pipes"]["dominant"];
    CHECK(dominant["core"] == "aiv");
    CHECK(dominant["component"] == "scalar");
    CHECK(dominant["time_us"].get<double>() == doctest::Approx(87948.779));
  }

  SUBCASE("seeded_serial ON: 48 AI_VECTOR_CORE launches, drop 8") {
    // 40 kept launches; sorted, the 20th and 21st are 3289.584 and 3289.624
    // -> median (3289.584 + 3289.624) / 2 = 3289.604; the fastest 3285.504.
    // CORPUS.md: 3,289.6 / 3,285.5.
    json m = measure(msprof / "seeded_serial_on_op_summary.csv", "seeded_serial_kernel", 8);
    REQUIRE(m["status"] == "ok");
    CHECK(m["launches"]["found"] == 48);
    CHECK(m["launches"]["kept"] == 40);
    CHECK(us(m["t_measured"]) == doctest::Approx(3289.604));
    CHECK(us(m["t_min"]) == doctest::Approx(3285.504));
    CHECK(m["block_dim"] == 4096);
  }

  SUBCASE("vector_add 16M: 11 launches on device 1, drop 1") {
    // Kept durations sorted: 257.664, 257.984, 290.904, 302.688, 307.028,
    // 311.648, 311.768, 335.408, 352.348, 356.708 -> median (307.028 +
    // 311.648) / 2 = 309.338, min 257.664. CORPUS.md: 309.3 / 257.7.
    json m = measure(msprof / "vector_add_16m_op_summary.csv", "add_kernel", 1);
    REQUIRE(m["status"] == "ok");
    CHECK(m["launches"]["found"] == 11);
    CHECK(us(m["t_measured"]) == doctest::Approx(309.338));
    CHECK(us(m["t_min"]) == doctest::Approx(257.664));
    CHECK(m["device"] == "1");
  }

  SUBCASE("the same rule as calibrate: the ON/OFF pair medians") {
    // ON 1660.372, OFF 1649.832 (drop 8 of 48 each): the difference 10.540 us
    // is what calibration.json's pipe_barrier_all_cost (364.79 cycles x 52
    // programs / 1.7997 GHz) was derived from.
    json on = measure(msprof / "seeded_serial_calib4m_on_op_summary.csv", "seeded_serial_kernel", 8);
    json off = measure(msprof / "seeded_serial_calib4m_off_op_summary.csv", "seeded_serial_kernel", 8);
    CHECK(us(on["t_measured"]) == doctest::Approx(1660.372));
    CHECK(us(off["t_measured"]) == doctest::Approx(1649.832));
  }
}

TEST_CASE("mix kernel parts of one invocation are one launch, its duration the longest part") {
  // Our fixture: task 7 at 1000 (AIC, 100) and 1002 (AIV, 105, ends 1107) ->
  // launch 1 = 105; task 9 at 2000 (98) and 2001 (97) -> 98; task 10 written
  // AIV-first: 3000 (99) and 3003 (101) -> 101; task 7 again at 4000 (96):
  // the id is reused but it starts after launch 1 ended -> its own launch.
  // Drop 1: 98, 101, 96 -> median 98, min 96, max 101.
  json m = measure(fixtures() / "op_summary_mix.csv", "mix_k", 1);
  REQUIRE(m["status"] == "ok");
  CHECK(m["launches"]["found"] == 4);
  CHECK(m["launches"]["kept"] == 3);
  CHECK(m["samples"][0]["duration_us"] == 105.0);
  CHECK(m["samples"][0]["task_type"] == "MIX_AIC+MIX_AIV");
  CHECK(m["samples"][0]["lines"] == json::array({2, 3}));
  CHECK(m["samples"][2]["lines"] == json::array({7, 8}));
  CHECK(m["samples"][3]["lines"] == json::array({9}));
  CHECK(us(m["t_measured"]) == doctest::Approx(98));
  CHECK(us(m["t_min"]) == doctest::Approx(96));
  CHECK(us(m["t_max"]) == doctest::Approx(101));
  CHECK(m["block_dim"] == 24);
  CHECK(m["mix_block_dim"] == 48);
  // Per launch the largest of its rows (N/A skipped): aiv_scalar 50, 55, 40
  // -> median 50; aic_mac 31, 29, 28 -> 29; aiv_vec 21, 19, 18 -> 19.
  CHECK(m["pipes"]["dominant"]["component"] == "scalar");
  CHECK(m["pipes"]["dominant"]["time_us"] == 50.0);
}

TEST_CASE("torch_npu kernel_details.csv: Name / Accelerator Core / Start Time(us) / Duration(us)") {
  pv::OpSummary table = pv::OpSummary::read(fixtures() / "kernel_details_small.csv");
  CHECK(table.format() == pv::ProfilerFormat::KernelDetails);
  // add_kernel AI_VECTOR_CORE rows by start: 10 (50), 200 (44), 300 (40),
  // 400 (42); the AI_CPU row of the same name at 250 is not a launch. Drop
  // 1: 44, 40, 42 -> median 42, min 40.
  json m = measure(fixtures() / "kernel_details_small.csv", "add_kernel", 1);
  REQUIRE(m["status"] == "ok");
  CHECK(m["source"]["format"] == "torch_npu_kernel_details");
  CHECK(m["launches"]["found"] == 4);
  CHECK(us(m["t_measured"]) == doctest::Approx(42));
  CHECK(us(m["t_min"]) == doctest::Approx(40));
  // aiv_vec_time 26, 24, 25 -> 25 beats aiv_scalar 4.5, 4.0, 4.2.
  CHECK(m["pipes"]["dominant"]["component"] == "vector");
  CHECK(m["pipes"]["dominant"]["time_us"] == 25.0);
}

TEST_CASE("msprof op OpBasicInfo.csv: no task type, no start time, clock columns") {
  pv::OpSummary table = pv::OpSummary::read(fixtures() / "op_basic_info_small.csv");
  CHECK(table.format() == pv::ProfilerFormat::OpBasicInfo);
  // File order (no start column): 20.5, 18.25, 19.0; nothing dropped ->
  // median 19.0, min 18.25.
  json m = measure(fixtures() / "op_basic_info_small.csv", "my_kernel", 0);
  REQUIRE(m["status"] == "ok");
  CHECK(m["source"]["format"] == "msprof_op_basic_info");
  CHECK(m["rule"]["order"] == "file order (the table has no start time)");
  CHECK(us(m["t_measured"]) == doctest::Approx(19.0));
  CHECK(us(m["t_min"]) == doctest::Approx(18.25));
  CHECK(m["block_dim"] == 48);
  // 1650 MHz measured against 1800 MHz rated: slower than rated.
  CHECK(m["frequency"]["current_mhz"] == 1650.0);
  CHECK(m["frequency"]["rated_mhz"] == 1800.0);
  CHECK(m["frequency"]["note"].get<std::string>().find("below its rated clock") != std::string::npos);
}

TEST_CASE("no usable selection is a no_measurement document with the reason, never numbers") {
  SUBCASE("no launch of that name") {
    json m = measure(fixtures() / "op_summary_mix.csv", "mix_kernel", 0);
    CHECK(m["status"] == "no_measurement");
    CHECK(m["t_measured"]["value"].is_null());
    CHECK(m["reason"] == "no AI-core launch of kernel 'mix_kernel' in " + (fixtures() / "op_summary_mix.csv").string() +
                             "; kernels there: aclnnZero_ZerosLikeAiCore_ZerosLike, mix_k");
  }
  SUBCASE("rows of the name exist but none is an AI-core task") {
    pv::MeasureRequest request = request_for("rng", 0);
    json m = pv::measure_file(fixtures() / "op_summary_mix.csv", request);
    CHECK(m["status"] == "no_measurement");
  }
  SUBCASE("the warm-up drops every launch") {
    json m = measure(fixtures() / "op_summary_mix.csv", "mix_k", 4);
    CHECK(m["status"] == "no_measurement");
    CHECK(m["launches"]["found"] == 4);
    CHECK(m["reason"] == "warmup = 4 drops all 4 launches of kernel 'mix_k' in " + (fixtures() / "op_summary_mix.csv").string());
  }
}

TEST_CASE("malformed measurements are errors naming file, line and column") {
  pbtest::TempDir tmp;
  const std::string header = "Device_id,Task ID,Stream ID,Op Name,Task Type,Task Start Time(us),Task Duration(us)\n";
  // "0,1,1,k,AI_CORE,1.0\t," is 21 characters: the duration starts at 22.
  pbtest::write_file(tmp / "bad.csv", header + "0,1,1,k,AI_CORE,1.0\t,fast\n");
  CHECK(error_of([&] { measure(tmp / "bad.csv", "k", 0); }) ==
        (tmp / "bad.csv").string() + ":2:22: column 'Task Duration(us)': expected a number, got 'fast'");
  pbtest::write_file(tmp / "zero.csv", header + "0,1,1,k,AI_CORE,1.0\t,0\n");
  CHECK(error_of([&] { measure(tmp / "zero.csv", "k", 0); }) ==
        (tmp / "zero.csv").string() + ":2:22: column 'Task Duration(us)' is 0; a duration must be positive");
  // "0,1,1,k,AI_CORE," is 16 characters: the start time starts at 17.
  pbtest::write_file(tmp / "start.csv", header + "0,1,1,k,AI_CORE,N/A,3\n");
  CHECK(error_of([&] { measure(tmp / "start.csv", "k", 0); }) ==
        (tmp / "start.csv").string() + ":2:17: column 'Task Start Time(us)': a number is required here, got 'N/A'");
  // One kernel on two devices is two series: refused unless one is chosen.
  pbtest::write_file(tmp / "two.csv", header + "0,1,1,k,AI_CORE,1\t,3\n1,1,1,k,AI_CORE,2\t,5\n");
  CHECK(error_of([&] { measure(tmp / "two.csv", "k", 0); }) ==
        (tmp / "two.csv").string() + ": kernel 'k' ran on devices 0, 1; choose one (device = \"N\")");
  pv::MeasureRequest on_one = request_for("k", 0);
  on_one.device = "1";
  json m = pv::measure_file(tmp / "two.csv", on_one);
  CHECK(us(m["t_measured"]) == doctest::Approx(5));
  CHECK(error_of([&] { measure(tmp / "missing.csv", "k", 0); }) ==
        (tmp / "missing.csv").string() + ": cannot open measurement file");
}

TEST_CASE("a perfbound bench result is measured with the same statistics") {
  // Samples 5, 3, 4, 10 -> sorted 3, 4, 5, 10: median 4.5, min 3.
  json bench = {{"schema", "perfbound.bench_result/1"},
                {"rows", json::array({{{"name", "copy"}, {"case_id", "c1"}, {"status", "ok"}, {"samples_us", {5, 3, 4, 10}}},
                                      {{"name", "slow"}, {"status", "infra_error"}, {"reason", "no device"}}})}};
  json m = pv::measure_bench_result(bench, "c1", {"bench.json", std::nullopt});
  REQUIRE(m["status"] == "ok");
  CHECK(us(m["t_measured"]) == doctest::Approx(4.5));
  CHECK(us(m["t_min"]) == doctest::Approx(3));
  json bad = pv::measure_bench_result(bench, "slow", {"bench.json", std::nullopt});
  CHECK(bad["status"] == "no_measurement");
  CHECK(bad["reason"] == "row 'slow' of bench.json has status 'infra_error', not a clean measurement: no device");
}

TEST_CASE("a kernel with thousands of launches: 1,000 listed, every kept duration counted") {
  // Our table: 2,500 AI_CORE launches of k, 10 us apart; launch i (1-based)
  // lasts 200 us, except launches 1,801..2,500, which last 100 + (i - 1800)
  // / 1000 us: the fastest 100.001 us is launch 1,801, long after the listed
  // ones. Drop 1 -> 2,499 kept: 1,799 of 200 us and 700 of 100.001..100.7 ->
  // sorted, the 1,250th is 200 (700 below it) -> median 200, min 100.001.
  std::string csv = "Op Name,Task Type,Task Start Time(us),Task Duration(us)\n";
  for (int i = 1; i <= 2500; ++i) {
    char duration[32];
    std::snprintf(duration, sizeof duration, "%.3f", i > 1800 ? 100.0 + (i - 1800) / 1000.0 : 200.0);
    csv += "k,AI_CORE," + std::to_string(10 * i) + "," + duration + "\n";
  }
  json m = pv::measure_table(pv::OpSummary::parse(csv, "many.csv"), request_for("k", 1), {"many.csv", std::nullopt});
  REQUIRE(m["status"] == "ok");
  CHECK(m["launches"]["found"] == 2500);
  CHECK(m["launches"]["kept"] == 2499);
  CHECK(m["samples"].size() == pv::kListedSamples);
  CHECK(m["samples"].back()["index"] == 1000);
  CHECK(m["samples_omitted"] == 1500);
  REQUIRE(m["kept_durations_us"].size() == 2499);
  CHECK(m["kept_durations_us"][1799].get<double>() == doctest::Approx(100.001));
  CHECK(us(m["t_measured"]) == doctest::Approx(200.0));
  CHECK(us(m["t_min"]) == doctest::Approx(100.001));

  // Validation counts faster launches among all the kept ones, the listed
  // and the omitted: a bound of 100.4995 us beats launches 1,801..2,299 (499).
  json bound_report = {{"schema", "perfbound.bound_report/1"},
                       {"kernel", {{"name", "k"}}},
                       {"bound", {{"value", 100.4995e-6}, {"unit", "s"}, {"tier", "hivm"}}},
                       {"limits", {{"dsl", {{"value", nullptr}, {"unit", "s"}}}, {"hivm", {{"value", 100.4995e-6}, {"unit", "s"}}}}}};
  json v = pv::validate_bound(bound_report, m, pv::ReportOrigin{}, "many");
  CHECK(v["status"] == "FAIL");
  CHECK(v["soundness"]["faster_launches"] == 499);
  CHECK(v["reason"].get<std::string>().find("499 of 2499 kept launches ran faster") != std::string::npos);
}
