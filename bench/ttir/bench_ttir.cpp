//===- bench_ttir.cpp - TTIR front end: parse + analyze speed, facts, memory
//
// For every TTIR file in ../shared/data/ttir (that parses), our reference
// kernels and the example: the time of analyze_ttir (a fresh MLIRContext,
// MLIR parsing of every section, the symbolic analysis of every function),
// as bytes of TTIR text per second. Then dsl_facts for the launches of the
// reference tests. Peak RSS of the process is reported as a counter.
// Run: build/bin/perfbound_bench_ttir   (figures in docs/performance/ttir.md)
//
//===----------------------------------------------------------------------===//
#include <malloc.h>
#include <sys/resource.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <benchmark/benchmark.h>

#include "../big_function.hpp"
#include "../process_memory.hpp"
#include "dsl_facts.hpp"
#include "ttir_analysis.hpp"

namespace {

namespace fs = std::filesystem;
using pb::sdk::json;

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double peak_rss_mib() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

using pb::bench_support::status_mib;

/// The resident set now, with the peak (VmHWM) reset to it: a run measured
/// from here is not hidden by the peak of an earlier one (a 4 MiB run after
/// the 1 MiB one), and heap an earlier run freed is given back first. Falls
/// back to the process's peak where /proc/self/clear_refs cannot be written.
double start_peak_window() {
  malloc_trim(0);
  return pb::bench_support::reset_peak() ? status_mib("VmRSS") : peak_rss_mib();
}

/// The peak since start_peak_window.
double window_peak_mib() {
  const double hwm = status_mib("VmHWM");
  return hwm > 0 ? hwm : peak_rss_mib();
}

fs::path shared_dir() {
  if (const char *env = std::getenv("PERFBOUND_SHARED_DIR"); env != nullptr && *env != '\0') return env;
  return PB_SHARED_DIR;
}

void parse_and_analyze(benchmark::State &state, const fs::path &path) {
  const std::string text = read_file(path);
  const std::string origin = path.string();
  size_t kernels = 0;
  for (auto _ : state) {
    auto module = perfbound::ttir::analyze_ttir(text, origin);
    if (!module) {
      state.SkipWithError(module.error().message.c_str());
      return;
    }
    kernels = module->kernels.size();
    benchmark::DoNotOptimize(module->kernels.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["bytes"] = static_cast<double>(text.size());
  state.counters["kernels"] = static_cast<double>(kernels);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

/// One tt.func of N MiB: the example vector_add kernel's body repeated
/// (SSA values renamed per copy). Throughput and peak RSS as a multiple of
/// the input (issue 17: a single large function must scale linearly). The
/// growth is measured from the resident set at the call (start_peak_window);
/// the first size run in the process also pays the one-time cost of the
/// first analyze_ttir (~6 MiB, mostly libMLIR/libLLVM code pages first
/// touched; perfbound_ttir_extract --warm-up measures it apart).
void single_function(benchmark::State &state) {
  const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  const std::string example = read_file(fs::path(PB_SOURCE_DIR) / "examples/kernels/vector_add/vector_add.ttir.mlir");
  const std::string text = pb::bench_support::single_function(example, "tt.func", "tt.return", bytes);
  // analyze_ttir parses on a thread of its own: the process CPU time counts it.
  const double rss_before = start_peak_window();
  timespec t0{}, t1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (auto _ : state) {
    auto module = perfbound::ttir::analyze_ttir(text, "single_function.ttir");
    if (!module) {
      state.SkipWithError(module.error().message.substr(0, 300).c_str());
      return;
    }
    benchmark::DoNotOptimize(module->kernels.data());
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  const double cpu_s = static_cast<double>(t1.tv_sec - t0.tv_sec) + static_cast<double>(t1.tv_nsec - t0.tv_nsec) / 1e9;
  const double input_mib = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  state.counters["input_MiB"] = input_mib;
  state.counters["process_cpu_s"] = cpu_s / static_cast<double>(state.iterations());
  state.counters["cpu_MB_per_s"] = static_cast<double>(text.size()) / 1e6 / (cpu_s / static_cast<double>(state.iterations()));
  const double peak = window_peak_mib();
  state.counters["peak_rss_growth_MiB"] = peak - rss_before;
  state.counters["peak_growth_x_input"] = (peak - rss_before) / input_mib;
}

// The members of perfbound.profile/1 dsl_facts reads (910B3 values).
const json &profile() {
  static const json doc = json::parse(R"({"schema":"perfbound.profile/1","name":"ascend_910b3",
    "cores":{"aic":{"value":20},"aiv":{"value":40}},
    "buffers":{"ub":{"value":196608},"l1":{"value":524288},"l0a":{"value":65536},"l0b":{"value":65536},
               "l0c":{"value":131072}}})");
  return doc;
}

void facts(benchmark::State &state, const fs::path &path, const json &launch) {
  auto module = perfbound::ttir::analyze_ttir(read_file(path), path.string());
  if (!module) {
    state.SkipWithError(module.error().message.c_str());
    return;
  }
  const perfbound::ttir::KernelModel &kernel = perfbound::ttir::select_kernel(*module, launch);
  for (auto _ : state) {
    json doc = perfbound::ttir::build_dsl_facts(*module, kernel, launch, profile(), {});
    benchmark::DoNotOptimize(doc);
  }
  state.counters["programs"] = static_cast<double>(launch.at("grid").at(0).get<std::int64_t>());
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void register_all() {
  std::vector<fs::path> files;
  const fs::path shared = shared_dir() / "data" / "ttir";
  std::error_code ec;
  if (fs::is_directory(shared, ec)) {
    for (const auto &entry : fs::directory_iterator(shared))
      if (entry.is_regular_file() && entry.path().extension() == ".ttir" &&
          entry.path().filename().string().rfind("legacy_pre3.0", 0) != 0)
        files.push_back(entry.path());
  }
  const fs::path source = PB_SOURCE_DIR;
  for (const auto &entry : fs::directory_iterator(source / "tests" / "extract_ttir" / "kernels"))
    files.push_back(entry.path());
  files.push_back(source / "examples" / "kernels" / "vector_add" / "vector_add.ttir.mlir");
  std::sort(files.begin(), files.end());
  for (const fs::path &path : files)
    benchmark::RegisterBenchmark(("parse_analyze/" + path.filename().string()).c_str(),
                                 [path](benchmark::State &s) { parse_and_analyze(s, path); })
        ->Unit(benchmark::kMillisecond);

  struct Launch {
    const char *name;
    fs::path path;
    json launch;
  };
  json mm = {{"%arg3", 512}, {"%arg4", 512}, {"%arg5", 512}, {"%arg6", 512}, {"%arg7", 512}, {"%arg8", 512}};
  std::vector<Launch> launches = {
      {"vector_add_16M", source / "examples/kernels/vector_add/vector_add.ttir.mlir",
       {{"grid", {8192}}, {"args", {{"n_elements", 16777216}}}}},
      {"blockptr_matmul_512", source / "tests/extract_ttir/kernels/blockptr_matmul.ttir", {{"grid", {4, 4}}, {"args", mm}}},
      {"persistent_matmul_512", source / "tests/extract_ttir/kernels/persistent_matmul.ttir", {{"grid", {6}}, {"args", mm}}},
      {"flash_attention_1024", source / "tests/extract_ttir/kernels/flash_attention_fwd.ttir",
       {{"grid", {16, 4}}, {"args", {{"%arg5", 1024}}}}},
      {"row_sum_100x1000", source / "tests/extract_ttir/kernels/row_sum_loop.ttir",
       {{"grid", {100}}, {"args", {{"%arg2", 1000}, {"%arg3", 1000}}}}},
  };
  benchmark::RegisterBenchmark("single_function_MiB", single_function)
      ->Arg(1)->Arg(4)->Arg(16)->Iterations(1)->Unit(benchmark::kMillisecond);
  for (const Launch &l : launches)
    benchmark::RegisterBenchmark((std::string("dsl_facts/") + l.name).c_str(),
                                 [l](benchmark::State &s) { facts(s, l.path, l.launch); })
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char **argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
