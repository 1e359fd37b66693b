//===- test_calibrate.cpp - `perfbound calibrate`, its statistics and the 910B3 DB ===//
#include <doctest/doctest.h>

#include <perfbound/sdk/json.hpp>

#include "calibrate.hpp"
#include "expr.hpp"
#include "stats.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using pb::sdk::json;
using namespace perfbound::validate;

namespace {

fs::path fixtures() { return pbtest::test_source_dir() / "validate" / "fixtures"; }

json run_spec(const fs::path &spec, const fs::path &data) {
  return calibrate({spec, data, "perfbound calibrate (test)", "perfbound.validate test"});
}

/// The InputError message of calibrating `spec_text` against the fixtures.
std::string spec_error(const std::string &spec_text) {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "spec.toml", spec_text);
  try {
    run_spec(tmp / "spec.toml", fixtures());
  } catch (const pb::sdk::InputError &e) {
    std::string message = e.what();
    // Paths differ per run: show the spec as "spec.toml".
    std::string prefix = (tmp / "spec.toml").string();
    if (message.rfind(prefix, 0) == 0) message = "spec.toml" + message.substr(prefix.size());
    return message;
  }
  return "";
}

const char *kSpecHead = R"(format = 1
target = "t"
[[constant]]
id = "c"
description = "d"
scope = "core"
)";

}  // namespace

TEST_CASE("medians and the distribution-free interval of a median") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  // P(Binomial(n, 1/2) <= k-1) <= 2.5 % picks the ranks:
  //   n = 5: P(B <= 0) = 1/32 = 3.1 % > 2.5 %        -> no interval
  //   n = 6: P(B <= 0) = 1/64 = 1.6 %, P(B <= 1) = 7/64 = 10.9 % -> k = 1
  //   n = 44: P(B <= 15) = 2.438 %, P(B <= 16) = 4.807 %         -> k = 16
  //   n = 40 at 97.5 %: P(B <= 12) = 0.38 %... P(B <= 12) <= 1.25 % < P(B <= 13) -> k = 13
  CHECK(median_interval_rank(5) == 0);
  CHECK(median_interval_rank(6) == 1);
  CHECK(median_interval_rank(44) == 16);
  CHECK(median_interval_rank(40, 0.975) == 13);
  CHECK_FALSE(median_interval({1, 2, 3, 4, 5}).has_value());
  auto ci = median_interval({7, 1, 6, 2, 5, 3});  // k = 1: the extremes
  REQUIRE(ci.has_value());
  CHECK(ci->low == 1);
  CHECK(ci->high == 7);
}

TEST_CASE("least-squares line with a Student-t interval on the intercept") {
  // y = 1.15 + 1.9 x through (0,1) (1,3.5) (2,4.5) (3,7): x mean 1.5, y mean
  // 4, Sxx = 5, Sxy = 9.5 -> slope 1.9, intercept 4 - 1.9 * 1.5 = 1.15.
  // Residuals -0.15, 0.45, -0.45, 0.15: SSR 0.45, s^2 = 0.45 / 2 = 0.225,
  // se = sqrt(0.225 * (1/4 + 2.25/5)) = sqrt(0.1575) = 0.396863,
  // t(0.975, 2) = 4.3027 -> half-width 1.707586; R^2 = 1 - 0.45 / 18.5.
  LineFit fit = fit_line({0, 1, 2, 3}, {1, 3.5, 4.5, 7});
  CHECK(fit.slope == doctest::Approx(1.9));
  CHECK(fit.intercept == doctest::Approx(1.15));
  CHECK(fit.intercept_se == doctest::Approx(0.396863).epsilon(1e-5));
  REQUIRE(fit.intercept_ci95.has_value());
  CHECK(fit.intercept_ci95->low == doctest::Approx(1.15 - 1.707586).epsilon(1e-5));
  CHECK(fit.intercept_ci95->high == doctest::Approx(1.15 + 1.707586).epsilon(1e-5));
  CHECK(fit.r_squared == doctest::Approx(1 - 0.45 / 18.5));
  CHECK(t_quantile_975(4) == 2.7764);
  CHECK_THROWS(fit_line({1, 1}, {2, 3}));
}

TEST_CASE("spec arithmetic: the work of a launch written as the kernel's loop counts") {
  CHECK(evaluate_expression("2*128*128*4096*30") == 4026531840.0);
  CHECK(evaluate_expression("ceil(2048/40)") == 52);  // 51.2 -> 52
  CHECK(evaluate_expression("1280*(131072/8192)*8192*2") == 335544320.0);
  CHECK(evaluate_expression(" min(3, 2) + max(1, 4) ") == 6);
  CHECK(evaluate_expression("-2+5*floor(1.9)") == 3);
  CHECK(evaluate_expression("1e6*2") == 2e6);
  auto message = [](const char *text) {
    try {
      evaluate_expression(text);
    } catch (const std::invalid_argument &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message("2*(3") == "in '2*(3' at column 5: expected ')'");
  CHECK(message("4/0") == "in '4/0' at column 3: division by zero");
  CHECK(message("2^3") == "in '2^3' at column 2: unexpected '^'");
  CHECK(message("sqrt(4)") == "in 'sqrt(4)' at column 1: unknown function 'sqrt' (known: ceil, floor, min, max)");
  CHECK(message("") == "in '' at column 1: unexpected end of the expression");
  // 100k nested parentheses or signs: a depth-limit message, not a stack overflow.
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  CHECK(message(deep.c_str()) == "in '" + std::string(60, '(') + "...' at column 257: nesting deeper than 256 levels (parentheses, calls or signs)");
  CHECK(message((std::string(100000, '-') + "1").c_str()).find("nesting deeper than 256 levels") != std::string::npos);
  CHECK(evaluate_expression(std::string(100, '(') + "2" + std::string(100, ')')) == 2);
}

TEST_CASE("dates of msprof start times") {
  // 1780830683046852.5 us = 1780830683 s after 1970-01-01 = 20611 days
  // (1780830683 / 86400 = 20611.47) = 2026-06-07; 951782400 s = 2000-02-29.
  CHECK(utc_date_from_us(1780830683046852.5) == "2026-06-07");
  CHECK(utc_date_from_us(0) == "1970-01-01");
  CHECK(utc_date_from_us(951782400e6) == "2000-02-29");
  CHECK(round_significant(441505684210.5263) == 441505684000.0);
}

TEST_CASE("calibrate on the synthetic fixtures: every measure, values derived by hand") {
  json doc = run_spec(fixtures() / "spec_small.toml", fixtures());
  CHECK(doc["schema"] == "perfbound.calibration/1");
  CHECK(doc["target"] == "test_target");
  const json &c = doc["constants"];

  // my_kernel in op_summary_cann9.csv: AI_VECTOR_CORE launches by start time
  // have Task Duration 12.0 (dropped), 10.0, 10.5, 9.5, 11.0, 10.25, 9.75,
  // 10.0 us; the AI_CPU row of the same name is not a launch.
  // clock: aiv_total_cycles = 1800 x aiv_time(us) in every row -> 1.8e9 Hz.
  CHECK(c["clock"]["value"] == 1.8e9);
  CHECK(c["clock"]["n"] == 7);
  CHECK(c["clock"]["unit"] == "Hz");
  // copy_peak: 4194304 B / 9.5 us (fastest) = 441505684210.5 B/s -> 9
  // significant digits 441505684000. Seven launches: the 95 % interval of
  // the median is [x(1), x(7)] = [4194304 / 11 us, 4194304 / 9.5 us].
  CHECK(c["copy_peak"]["value"] == 441505684000.0);
  CHECK(c["copy_peak"]["statistic"] == "fastest launch");
  CHECK(c["copy_peak"]["ci95"]["low"] == 381300364000.0);
  CHECK(c["copy_peak"]["ci95"]["high"] == 441505684000.0);
  CHECK(c["copy_peak"]["samples"]["median"] == 419430400000.0);
  CHECK(c["copy_peak"]["measured_on"] == "1970-01-01");  // start 1200.125 us
  CHECK(c["copy_peak"]["sources"][0] ==
        json({{"file", "op_summary_cann9.csv"},
              {"sha256", "4dca5d803a348c99cb43f127f5d1ec4130534a2ea080111fc97ce0ef92ff16f1"},  // sha256sum
              {"rows", "launches 2-8 of op 'my_kernel' by Task Start Time (7 kept)"}}));
  CHECK(c["copy_peak"]["method"] ==
        "In op_summary_cann9.csv, take the rows with Op Name 'my_kernel' and an AI-core Task Type, sort them by Task "
        "Start Time(us) and drop the first 1; for each of the 7 launches left, rate = 4*1024*1024 = 4194304 B (4 MiB "
        "copied) / Task Duration(us); value = the fastest launch (B/s); ci95 = the 1st and 7th smallest rates "
        "(distribution-free 95 % interval of the median).");
  // copy_median: the median duration 10.0 us -> 4194304 / 10 us = 4.194304e11.
  CHECK(c["copy_median"]["value"] == 419430400000.0);
  CHECK(c["copy_median"]["statistic"] == "median launch");

  // extra_cost: op_summary_cann8.csv ("Block Dim" header, CRLF) keeps 8.0,
  // 8.25, 7.5, 8.0, 8.5, 7.75, 8.0 -> median 8.0; with-median 10.0 -> 2.0 us.
  // / ceil(8192/40) = 205 programs x 1.8e9 Hz = 3600 / 205 = 17.5609756
  // cycles. 97.5 % intervals of 7 launches are the extremes: [9.5, 11.0] and
  // [7.5, 8.5] -> [1.0, 3.5] us -> [1800/205, 6300/205] = [8.7804878,
  // 30.7317073] cycles.
  CHECK(c["extra_cost"]["value"] == 17.5609756);
  CHECK(c["extra_cost"]["unit"] == "cycle");
  CHECK(c["extra_cost"]["ci95"]["low"] == 8.7804878);
  CHECK(c["extra_cost"]["ci95"]["high"] == 30.7317073);
  CHECK(c["extra_cost"]["n"] == 14);

  // efficiency: 1000 B in 10, 2, 1 us at 128, 1024, 4096 B packets -> 1e8,
  // 5e8, 1e9 B/s -> relative to the largest packet 0.1, 0.5, 1 (the file
  // lists the runs out of order).
  CHECK(c["efficiency"]["value"] ==
        json({{"x", "packet_bytes"}, {"x_unit", "B"}, {"points", {{128, 0.1}, {1024, 0.5}, {4096, 1.0}}}}));
  CHECK(c["efficiency"]["ci95"].is_null());
  CHECK(c["efficiency"]["ci95_reason"].is_string());
}

TEST_CASE("calibrate refuses a bad spec with file:line:col and the reason") {
  const std::string head = kSpecHead;
  const std::string rate = R"spec(measure = "msprof_rate"
file = "op_summary_cann9.csv"
op = "my_kernel"
time_column = "Task Duration(us)"
)spec";
  CHECK(spec_error(head + "kind = \"peak\"\nunit = \"B/s\"\n" + rate +
                   "work = { expr = \"4096\", unit = \"B\", meaning = \"m\" }\nstatistic = \"median\"\n") ==
        "spec.toml:7:8: constant 'c': a peak must be the fastest launch or run the hardware achieved (statistic = \"max\" or "
        "reduce = \"max\")");
  CHECK(spec_error(head + "kind = \"sustained\"\nunit = \"FLOP/s\"\n" + rate +
                   "work = { expr = \"4096\", unit = \"B\", meaning = \"m\" }\nstatistic = \"median\"\n") ==
        "spec.toml:8:8: constant 'c': the measurement yields B/s, not FLOP/s");
  CHECK(spec_error(head + "kind = \"sustained\"\nunit = \"GB/s\"\n" + rate) ==
        "spec.toml:8:8: constant 'c': unit 'GB/s' must be a canonical unit (B/s, FLOP/s, Hz, cycle, s, ratio, ...)");
  CHECK(spec_error(head + "kind = \"sustained\"\nunit = \"B/s\"\n" + rate +
                   "work = { expr = \"2*(3\", unit = \"B\", meaning = \"m\" }\nstatistic = \"median\"\n") ==
        "spec.toml:13:17: constant 'c': work in '2*(3' at column 5: expected ')'");
  std::string wrong_op = head + "kind = \"sustained\"\nunit = \"B/s\"\n" + rate +
                         "work = { expr = \"1\", unit = \"B\", meaning = \"m\" }\nstatistic = \"median\"\n";
  wrong_op.replace(wrong_op.find("op = \"my_kernel\""), 16, "op = \"mykernel\"");
  CHECK(spec_error(wrong_op) ==
        "spec.toml:11:6: constant 'c': no AI-core launch of op 'mykernel' in op_summary_cann9.csv; kernels there: "
        "aclnnCast_CastAiCore_Cast, my_kernel");
  CHECK(spec_error(head + "kind = \"sustained\"\nunit = \"B/s\"\n" + rate + "fle = \"x\"\n")
            .rfind("spec.toml:13:7: constant 'c': unknown key 'fle'; valid keys: file, op, drop_first,", 0) == 0);
  std::string missing_file = head + "kind = \"sustained\"\nunit = \"B/s\"\n" + rate;
  missing_file.replace(missing_file.find("op_summary_cann9.csv"), 20, "nope.csv");
  CHECK(spec_error(missing_file) == "spec.toml:10:8: measurement file '" + (fixtures() / "nope.csv").string() + "' does not exist");
  CHECK(spec_error("format = 2\n") == "spec.toml:1:10: calibration spec: unsupported format (this perfbound reads format = 1)");
}

TEST_CASE("`perfbound calibrate` on the command line: usage errors, bad input, output file") {
  auto usage = pbtest::run_cli({"calibrate", "spec.toml"});
  CHECK(usage.code == 2);
  CHECK(usage.err.find("SPEC, --data and --out are required") != std::string::npos);
  CHECK(pbtest::run_cli({"calibrate", "--bogus"}).code == 2);
  auto help = pbtest::run_cli({"calibrate", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.rfind("usage: perfbound calibrate SPEC --data DIR --out FILE", 0) == 0);

  pbtest::TempDir tmp;
  auto missing = pbtest::run_cli({"calibrate", (fixtures() / "spec_small.toml").string(), "--data", (tmp / "none").string(),
                                  "--out", (tmp / "out.json").string()});
  CHECK(missing.code == 3);
  CHECK(missing.err == "perfbound calibrate: " + (tmp / "none").string() + ": the --data directory does not exist\n");

  auto ok = pbtest::run_cli({"calibrate", "spec_small.toml", "--data", ".", "--out", (tmp / "out.json").string()}, fixtures());
  REQUIRE(ok.code == 0);
  json written = json::parse(pbtest::read_file(tmp / "out.json"));
  CHECK(written["generated"]["command"] == "perfbound calibrate spec_small.toml --data . --out " + (tmp / "out.json").string());
  CHECK(written["generated"]["spec"]["file"] == "spec_small.toml");
  CHECK(written["constants"]["copy_peak"]["value"] == 441505684000.0);
  CHECK(ok.out.find("wrote " + (tmp / "out.json").string() + " (5 constants)") != std::string::npos);
}

TEST_CASE("the validate plugin passes `perfbound plugin check`") {
  fs::path lib = pbtest::binary_dir() / "lib" / "perfbound" / "plugins" / "libperfbound_validate.so";
  auto r = pbtest::run_cli({"plugin", "check", lib.string()});
  CHECK_MESSAGE(r.code == 0, (r.out + r.err));
}

TEST_CASE("golden: 910B3 constants reproduced from the raw CSVs by hand") {
  PBTEST_REQUIRE_SHARED();
  const fs::path data = pbtest::shared_dir() / "data";
  json doc = run_spec(pbtest::source_dir() / "hardware_profiles" / "ascend_910b3" / "calibration_spec.toml", data);
  const json &c = doc["constants"];

  // cube_fp16_peak. cube_peak_fp16.csv: aic_mac_time(us) is 306.667 in all of
  // launches 2-45. Work: 30 repeats x 32 K-tiles of a 128x128x128 Mmad =
  // 128*128*4096*30 MACs = 2013265920 MAC = 4026531840 FLOP.
  // 4026531840 / 306.667e-6 s = 1.31299809e13 FLOP/s = 7294.4 FLOP/cycle at
  // 1.8 GHz, 89 % of the 8192 theoretical.
  CHECK(c["cube_fp16_peak"]["value"] == 13129980900000.0);
  CHECK(c["cube_fp16_peak"]["kind"] == "peak");
  CHECK(c["cube_fp16_peak"]["n"] == 44);

  // hbm_read_allcore_peak. mte_hbm_allcore.csv: 20 AICs x 1280 x 131072 fp16
  // = 20 * 1280 * 262144 B = 6710886400 B per launch. Smallest
  // aic_mte2_time(us) among launches 2-45 is 4316.830 (file line 39):
  // 6710886400 / 4316.830e-6 = 1.55458668e12 B/s (1.555 TB/s), below the
  // 1.6 TB/s prior.
  CHECK(c["hbm_read_allcore_peak"]["value"] == 1554586680000.0);

  // clock_frequency. scalar_peak.csv line 31: aiv_total_cycles 6005689 in
  // Task Duration 3337.004 us -> 1799724843 Hz, the highest of launches 2-45.
  CHECK(c["clock_frequency"]["value"] == 1799724840.0);

  // pipe_barrier_all_cost. seeded_serial calib4m, launches 9-48 (40 each):
  // sorted Task Duration(us) ON has 20th/21st values 1660.352, 1660.392 ->
  // median 1660.372; OFF 1649.752, 1649.912 -> median 1649.832. Difference
  // 10.540 us over ceil(2048 / 40) = 52 programs on the busiest AIV, one
  // redundant barrier each: 0.2026923 us x 1799724840 Hz = 364.790 cycles.
  CHECK(c["pipe_barrier_all_cost"]["value"] == 364.790381);
  CHECK(c["pipe_barrier_all_cost"]["n"] == 80);

  // hbm_packet_efficiency at 1024 B. eta_sweep.json: the 1024-byte run moves
  // 201326592 B in median 715.4755294322968 us, the 65536-byte run in
  // 172.4790781736374 us; the same bytes, so eta = 172.479078 / 715.475529 =
  // 0.241069151 (the file's own "eta" map says 0.241069150625589).
  const json &points = c["hbm_packet_efficiency"]["value"]["points"];
  REQUIRE(points.size() == 10);
  CHECK(points[3] == json({1024, 0.241069151}));
  CHECK(points[9] == json({65536, 1.0}));

  // The whole-task cube rate the predecessor used: median Task Duration of
  // launches 2-45 is 775.73 us -> 4026531840 / 775.73e-6 = 5.19 TFLOP/s, 2.5x
  // below the peak; it is marked sustained.
  CHECK(c["cube_fp16_task_rate"]["kind"] == "sustained");
  CHECK(c["cube_fp16_task_rate"]["value"].get<double>() == doctest::Approx(5.1905e12).epsilon(1e-3));
}

TEST_CASE("regenerating the 910B3 calibration from ../shared reproduces the committed file") {
  PBTEST_REQUIRE_SHARED();
  const fs::path committed_path = pbtest::source_dir() / "hardware_profiles" / "ascend_910b3" / "calibration.json";
  json committed = json::parse(pbtest::read_file(committed_path));
  // The recorded command, run from the repository root, is what a user types.
  CHECK(committed["generated"]["command"] ==
        "perfbound calibrate hardware_profiles/ascend_910b3/calibration_spec.toml --data ../shared/data --out "
        "hardware_profiles/ascend_910b3/calibration.json");
  pbtest::TempDir tmp;
  auto r = pbtest::run_cli({"calibrate", "hardware_profiles/ascend_910b3/calibration_spec.toml", "--data",
                            (pbtest::shared_dir() / "data").string(), "--out", (tmp / "calibration.json").string()},
                           pbtest::source_dir());
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json fresh = json::parse(pbtest::read_file(tmp / "calibration.json"));
  // Only the command differs (this run wrote elsewhere). Compared constant
  // by constant so a failure names the one that changed.
  fresh["generated"].erase("command");
  committed["generated"].erase("command");
  CHECK(fresh["generated"] == committed["generated"]);
  REQUIRE(fresh["constants"].size() == committed["constants"].size());
  for (const auto &[id, constant] : fresh["constants"].items()) CHECK_MESSAGE(constant == committed["constants"][id], id);
  fresh.erase("constants");
  committed.erase("constants");
  CHECK(fresh == committed);
}

TEST_CASE("msprof_slope: the shipped latency spec on CSVs in msprof's format with a known slope") {
  // bench/calibration/latency/calibration_spec.toml reads
  // <kernel>_N<n>.csv for N = 64 ... 1024. Written here: per N, 6 launches
  // (the first dropped) of a single-AIV kernel whose fastest launch takes
  //   dma_chain:     3 us + N x 0.25 us
  //   barrier_chain: 2 us + N x 0.125 us
  // and slower ones above it; aiv_total_cycles = 1800 x the duration (a
  // 1.8 GHz clock). The fastest points lie on the line, so the slopes are
  // exactly 0.25 us = 450 cycles and 0.125 us = 225 cycles, and the Student-t
  // interval of a perfect fit is the slope itself.
  pbtest::TempDir data;
  auto write_capture = [&](const std::string &kernel, int n, double intercept_us, double slope_us) {
    std::string csv =
        "Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),Block Num,Mix Block Num,"
        "aiv_time(us),aiv_total_cycles\n";
    const double fastest = intercept_us + n * slope_us;
    const double extra[] = {40.0, 0.0, 1.5, 0.75, 3.0, 0.25};  // the first launch (dropped) is the slowest
    for (int launch = 0; launch < 6; ++launch) {
      double duration = fastest + extra[launch];
      char row[256];
      std::snprintf(row, sizeof row, "0,%s,%s,AI_VECTOR_CORE,%.3f\t,%.3f,1,0,%.3f,%.0f\n", kernel.c_str(), kernel.c_str(),
                    1000.0 + 10000.0 * launch, duration, duration, 1800.0 * duration);
      csv += row;
    }
    pbtest::write_file(data / (kernel + "_N" + std::to_string(n) + ".csv"), csv);
  };
  for (int n : {64, 128, 256, 512, 1024}) {
    write_capture("dma_chain", n, 3.0, 0.25);
    write_capture("barrier_chain", n, 2.0, 0.125);
  }
  json doc = run_spec(pbtest::source_dir() / "bench" / "calibration" / "latency" / "calibration_spec.toml", data.path());
  const json &c = doc["constants"];
  CHECK(c["clock_frequency"]["value"] == 1.8e9);
  CHECK(c["dma_completion_latency"]["value"].get<double>() == doctest::Approx(450.0).epsilon(1e-9).scale(0));
  CHECK(c["dma_completion_latency"]["unit"] == "cycle");
  CHECK(c["dma_completion_latency"]["kind"] == "sustained");
  CHECK(c["dma_completion_latency"]["n"] == 5);
  CHECK(c["dma_completion_latency"]["ci95"]["low"].get<double>() == doctest::Approx(450.0).epsilon(1e-6).scale(0));
  CHECK(c["pipe_barrier_all_latency"]["value"].get<double>() == doctest::Approx(225.0).epsilon(1e-9).scale(0));
  CHECK(c["pipe_barrier_all_latency"]["statistic"] == "slope of a least-squares line through the fastest launches");

  // A sweep whose fastest launch does not grow with N isolates no per-event
  // cost: refused with the reason.
  for (int n : {64, 128, 256, 512, 1024}) write_capture("barrier_chain", n, 2.0, 0.0);
  try {
    run_spec(pbtest::source_dir() / "bench" / "calibration" / "latency" / "calibration_spec.toml", data.path());
    FAIL("a flat sweep was accepted");
  } catch (const pb::sdk::InputError &e) {
    CHECK(std::string(e.what()).find("not positive: the sweep does not isolate a per-event cost") != std::string::npos);
  }
}

TEST_CASE("least-squares line: the Student-t interval on the slope") {
  // The fit of the test above: (0,1) (1,3.5) (2,4.5) (3,7), slope 1.9,
  // s^2 = 0.225, Sxx = 5: se = sqrt(0.225 / 5) = 0.212132; t(0.975, 2) =
  // 4.3027 -> half-width 0.912741.
  LineFit fit = fit_line({0, 1, 2, 3}, {1, 3.5, 4.5, 7});
  CHECK(fit.slope_se == doctest::Approx(0.212132).epsilon(1e-5));
  REQUIRE(fit.slope_ci95.has_value());
  CHECK(fit.slope_ci95->low == doctest::Approx(1.9 - 0.912741).epsilon(1e-5));
  CHECK(fit.slope_ci95->high == doctest::Approx(1.9 + 0.912741).epsilon(1e-5));
}
