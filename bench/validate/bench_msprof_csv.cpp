//===- bench_msprof_csv.cpp - msprof CSV ingest and calibration speed -----===//
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "calibrate.hpp"
#include "measurement.hpp"
#include "msprof_csv.hpp"
#include "validation.hpp"

namespace {

namespace fs = std::filesystem;

/// An op_summary in the CANN 9.0 layout (46 columns, TABs after start times,
/// triple-quoted shapes): every 10th row a kernel launch, the others
/// framework tasks, as in a profiled training step.
std::string synthetic_op_summary(size_t rows) {
  std::string text =
      "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),Task Duration(us),"
      "Task Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output "
      "Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,"
      "aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
      "aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),"
      "aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),"
      "aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)\n";
  for (size_t row_idx = 0; row_idx < rows; ++row_idx) {
    bool kernel = row_idx % 10 == 0;
    text += "0,4294967295," + std::to_string(row_idx) + ",46," + (kernel ? "my_kernel,my_kernel" : "aclnnCast_CastAiCore_Cast,Cast") +
            ",dynamic," + (kernel ? "MIX_AIC" : "AI_VECTOR_CORE") + ",17822725606" + std::to_string(10000 + row_idx) +
            ".276\t,104288.912,7371.328000,4096,8192,NO,\"\"\"32,1,8192,128;1,8192,32,128\"\"\",BF16;BF16,ND;ND,"
            "\"\"\"4194304\"\"\",FLOAT,ND,0,103971.2,3742963200,12.5,0.001,88.1,0.85,1.0,0.01,2.0,0.02,3.0,0.03,0.01,"
            "104001.3,7488093600,1.5,0.01,87.3,0.84,8.299,0.012,0.5,0.001,0.02,4.5\n";
  }
  return text;
}

void BM_ParseOpSummary(benchmark::State &state) {
  const std::string text = synthetic_op_summary(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto summary = perfbound::validate::OpSummary::parse(text, "synthetic.csv");
    benchmark::DoNotOptimize(summary.row_count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_ParseOpSummary)->Arg(1000)->Arg(10000)->Arg(30000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_SelectLaunches(benchmark::State &state) {
  const std::string text = synthetic_op_summary(static_cast<size_t>(state.range(0)));
  auto summary = perfbound::validate::OpSummary::parse(text, "synthetic.csv");
  for (auto _ : state) benchmark::DoNotOptimize(summary.launches("my_kernel").size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_SelectLaunches)->Arg(100000)->Unit(benchmark::kMillisecond);

/// What `perfbound validate` does per case once the bound exists: parse the
/// profiler CSV, apply the measurement rule (select, group, order, drop the
/// warm-up, median and minimum, pipe breakdown) and validate a bound report.
void BM_MeasureAndValidate(benchmark::State &state) {
  const std::string text = synthetic_op_summary(static_cast<size_t>(state.range(0)));
  const perfbound::validate::json report = {
      {"schema", "perfbound.bound_report/1"},
      {"kernel", {{"name", "my_kernel"}}},
      {"bound", {{"value", 5e-3}, {"unit", "s"}, {"tier", "hivm"}, {"binding_term", "t"}, {"binding_component", "scalar"}}},
      {"limits", {{"dsl", {{"value", 1e-3}, {"unit", "s"}}}, {"hivm", {{"value", 5e-3}, {"unit", "s"}}}}}};
  perfbound::validate::MeasureRequest request;
  request.kernel = "my_kernel";
  request.warmup = 1;
  perfbound::validate::ReportOrigin origin;
  origin.origin = "bench";
  for (auto _ : state) {
    auto table = perfbound::validate::OpSummary::parse(text, "synthetic.csv");
    auto measurement = perfbound::validate::measure_table(table, request, {"synthetic.csv", std::nullopt});
    benchmark::DoNotOptimize(perfbound::validate::validate_bound(report, measurement, origin).size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_MeasureAndValidate)->Arg(10000)->Unit(benchmark::kMillisecond);

/// The whole 910B3 calibration (21 constants, 30 files) from ../shared.
void BM_Calibrate910B3(benchmark::State &state) {
  const fs::path data = fs::path(PB_SHARED_DIR) / "data";
  if (!fs::is_directory(data)) {
    state.SkipWithError("../shared/data not found");
    return;
  }
  perfbound::validate::CalibrateOptions options{
      fs::path(PB_SOURCE_DIR) / "hardware_profiles" / "ascend_910b3" / "calibration_spec.toml", data, "bench", "bench"};
  for (auto _ : state) benchmark::DoNotOptimize(perfbound::validate::calibrate(options).size());
}
BENCHMARK(BM_Calibrate910B3)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
