//===- bench_host.cpp - host benchmarks: discovery, loading, lint, scheduling ===//
//
// Targets (issue 2): loading 5 plugins < 20 ms; lint of a 100-node pipeline
// < 5 ms; per-node scheduling overhead < 50 us. Run:
//   ./build/bin/perfbound_bench_host --benchmark_counters_tabular=true
// Figures are recorded in docs/performance.md.
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include <sstream>

#include "engine.hpp"
#include "paths.hpp"
#include "pipeline.hpp"
#include "plugin_loader.hpp"

using namespace perfbound;
namespace fs = std::filesystem;

namespace {

fs::path bench_plugin_root() { return fs::path(PB_BENCH_PLUGIN_ROOT); }

std::vector<SearchDir> bench_dirs() {
  std::vector<SearchDir> dirs;
  for (int idx = 1; idx <= 5; ++idx) dirs.push_back({bench_plugin_root() / ("p" + std::to_string(idx)), "bench"});
  return dirs;
}

/// A 100-node pipeline: a chain of "pass" nodes, where every node also reads
/// the node two back, so the graph has 197 edges and real fan-in.
std::string pipeline_text(size_t nodes) {
  std::ostringstream os;
  os << "version = 1\n";
  for (size_t idx = 0; idx < nodes; ++idx) {
    os << "[nodes.n" << idx << "]\nplugin = \"perfbound_bench.p" << (idx % 5 + 1) << "\"\n";
    if (idx == 0) {
      os << "kind = \"start\"\n";
    } else {
      os << "kind = \"pass\"\ninputs = { in = [\"n" << idx - 1 << ".out\"";
      if (idx >= 2) os << ", \"n" << idx - 2 << ".out\"";
      os << "] }\n";
    }
  }
  os << "[outputs]\nlast = \"n" << nodes - 1 << ".out\"\n";
  return os.str();
}

struct Quiet {
  Logger logger;
  Quiet() { logger.set_writer([](const std::string &) {}); }
};

void BM_DiscoverAndLoadFivePlugins(benchmark::State &state) {
  for (auto _ : state) {
    Quiet q;
    HostServices host(q.logger);
    PluginRegistry reg(host);
    reg.discover(bench_dirs());
    for (int idx = 1; idx <= 5; ++idx) {
      auto lib = reg.load("perfbound_bench.p" + std::to_string(idx));
      if (!lib) state.SkipWithError(lib.error().message.c_str());
    }
  }
}
BENCHMARK(BM_DiscoverAndLoadFivePlugins)->Unit(benchmark::kMillisecond);

void BM_DiscoverFromManifestsOnly(benchmark::State &state) {
  for (auto _ : state) {
    Quiet q;
    HostServices host(q.logger);
    PluginRegistry reg(host);
    reg.discover(bench_dirs());
    benchmark::DoNotOptimize(reg.plugins().size());
  }
}
BENCHMARK(BM_DiscoverFromManifestsOnly)->Unit(benchmark::kMillisecond);

void BM_Lint100NodePipeline(benchmark::State &state) {
  Quiet q;
  HostServices host(q.logger);
  PluginRegistry reg(host);
  reg.discover(bench_dirs());
  PluginCatalog cat;
  cat.find = [&](std::string_view id) { return reg.find(id); };
  cat.ids = reg.ids();
  const std::string text = pipeline_text(100);
  for (auto _ : state) {
    Diagnostics diags;
    auto p = parse_pipeline_text(text, "bench.toml", diags);
    auto rp = resolve_pipeline(std::move(*p), cat, {}, ResolveMode::Check, &locate_profile, diags);
    if (!rp) state.SkipWithError(diags.format().c_str());
    benchmark::DoNotOptimize(rp);
  }
}
BENCHMARK(BM_Lint100NodePipeline)->Unit(benchmark::kMillisecond);

/// Runs the 100-node pipeline; reports time per node (scheduling, create,
/// run, destroy, output checks) with and without schema validation.
/// range(0): workers; range(1): 1 = every node in a child process
/// (--isolate all), 0 = in the host's process (--isolate none).
void BM_Run100NodePipeline(benchmark::State &state) {
  Quiet q;
  HostServices host(q.logger);
  PluginRegistry reg(host);
  reg.discover(bench_dirs());
  SchemaRegistry schemas;
  schemas.load_dir(fs::path(PB_SOURCE_DIR) / "abi" / "schemas");
  PluginCatalog cat;
  cat.find = [&](std::string_view id) { return reg.find(id); };
  cat.ids = reg.ids();
  Diagnostics diags;
  auto p = parse_pipeline_text(pipeline_text(100), "bench.toml", diags);
  auto rp = resolve_pipeline(std::move(*p), cat, {}, ResolveMode::Run, &locate_profile, diags);
  Engine engine(host, reg, schemas, nullptr);
  RunOptions opts;
  opts.jobs = static_cast<unsigned>(state.range(0));
  opts.validate_documents = true;
  opts.isolation = state.range(1) != 0 ? Isolation::All : Isolation::None;
  engine.run(*rp, opts);  // loads the plugins once, outside the timing
  for (auto _ : state) {
    RunResult r = engine.run(*rp, opts);
    if (!r.ok) state.SkipWithError("run failed");
  }
  // Seconds per node, shown in microseconds by the tabular reporter.
  state.counters["per_node"] = benchmark::Counter(100.0, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Run100NodePipeline)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Args({2, 1})
    ->ArgNames({"jobs", "isolated"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
