//===- bench_hivm.cpp - speed and memory of the HIVM extractor ------------===//
//
// Reading throughput (tokenize + parse; parse + analysis; the whole document),
// chunk_kda end to end, and peak memory on 1x/10x/100x concatenations of
// chunk_kda measured in a child process each (so the sizes do not share a
// high-water mark). Needs ../shared/data/hivm (the real dumps).
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "analyze.hpp"
#include "document.hpp"
#include "parser.hpp"

namespace {

std::string shared_dir() {
  if (const char *env = std::getenv("PERFBOUND_SHARED_DIR"); env != nullptr && *env != '\0') return env;
  return PB_SHARED_DIR;
}

const std::string &chunk_kda() {
  static const std::string text = [] {
    std::ifstream in(shared_dir() + "/data/hivm/chunk_kda.npuir.mlir", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return text;
}

pb::hivm::AnalysisOptions kda_launch() {
  pb::hivm::AnalysisOptions o;
  o.have_launch = true;
  o.grid = {128, 32};
  return o;
}

bool have_data(benchmark::State &state) {
  if (!chunk_kda().empty()) return true;
  state.SkipWithError("../shared/data/hivm/chunk_kda.npuir.mlir not found (set PERFBOUND_SHARED_DIR)");
  return false;
}

std::string repeated(int times) {
  std::string out;
  out.reserve(chunk_kda().size() * static_cast<size_t>(times));
  for (int idx = 0; idx < times; ++idx) out += chunk_kda();
  return out;
}

/// Tokenize + parse only (no analysis): the reader.
void BM_ParseChunkKda(benchmark::State &state) {
  if (!have_data(state)) return;
  const std::string &text = chunk_kda();
  for (auto _ : state) {
    pb::hivm::FileReader reader(text);
    size_t ops = 0;
    reader.read([&](const pb::hivm::Op &func, const pb::hivm::FunctionContext &) { ops += func.regions.size(); });
    benchmark::DoNotOptimize(ops);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseChunkKda)->Unit(benchmark::kMillisecond);

/// Parse + analysis (op records, counts, totals inputs, sync).
void BM_AnalyzeChunkKda(benchmark::State &state) {
  if (!have_data(state)) return;
  const std::string &text = chunk_kda();
  auto opts = kda_launch();
  for (auto _ : state) benchmark::DoNotOptimize(pb::hivm::analyze_text(text, opts));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_AnalyzeChunkKda)->Unit(benchmark::kMillisecond);

/// End to end: text -> perfbound.hivm_program/1 JSON text (what the plugin hands to the host).
void BM_EndToEndChunkKda(benchmark::State &state) {
  if (!have_data(state)) return;
  const std::string &text = chunk_kda();
  auto opts = kda_launch();
  for (auto _ : state) {
    pb::hivm::Program p = pb::hivm::analyze_text(text, opts);
    std::string json = pb::hivm::to_json_text(p, {"chunk_kda", text.size()}, opts);
    benchmark::DoNotOptimize(json);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_EndToEndChunkKda)->Unit(benchmark::kMillisecond);

/// Throughput of the reader on a 100x concatenation (17 MB, 200 functions).
void BM_AnalyzeConcatenated(benchmark::State &state) {
  if (!have_data(state)) return;
  const std::string text = repeated(static_cast<int>(state.range(0)));
  auto opts = kda_launch();
  for (auto _ : state) benchmark::DoNotOptimize(pb::hivm::analyze_text(text, opts));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_AnalyzeConcatenated)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(3);

/// Peak resident memory of a child that reads N concatenated copies: analysis
/// only (peak_rss_analysis_MiB) and with the JSON document (peak_rss_document_MiB).
void BM_PeakMemory(benchmark::State &state) {
  if (!have_data(state)) return;
  const int times = static_cast<int>(state.range(0));
  auto child_peak = [&](bool document) -> double {
    pid_t pid = fork();
    if (pid == 0) {
      std::string text = repeated(times);
      auto opts = kda_launch();
      pb::hivm::Program p = pb::hivm::analyze_text(text, opts);
      if (document) {
        std::string json = pb::hivm::to_json_text(p, {"x", text.size()}, opts);
        benchmark::DoNotOptimize(json);
      }
      _exit(0);
    }
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB -> MiB
  };
  double analysis = 0, document = 0;
  for (auto _ : state) {
    analysis = child_peak(false);
    document = child_peak(true);
  }
  state.counters["input_MiB"] = static_cast<double>(chunk_kda().size()) * times / (1024.0 * 1024.0);
  state.counters["peak_rss_analysis_MiB"] = analysis;
  state.counters["peak_rss_document_MiB"] = document;
}
BENCHMARK(BM_PeakMemory)->Arg(1)->Arg(10)->Arg(100)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
