//===- bench_hivm.cpp - speed and memory of the HIVM extractor ------------===//
//
// Reading throughput (tokenize + parse; parse + analysis; the whole document),
// chunk_kda end to end warm and one-shot in a fresh child, throughput on 10x
// and 100x concatenations, peak memory growth on 1x/10x/100x measured in a
// child each, and the machine's first-touch page cost that separates the cold
// figure from the warm one. Needs ../shared/data/hivm (the real dumps).
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include <malloc.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "../big_function.hpp"
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

/// A /proc/self/status figure in KiB ("VmRSS:", "VmHWM:"), 0 when unreadable.
long status_kib(const char *field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t len = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, len, field) == 0) return std::strtol(line.c_str() + len, nullptr, 10);
  return 0;
}

/// Resets this process's peak RSS (VmHWM) to its current RSS.
void reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

/// What a child process measured: peak RSS growth over its starting RSS, and
/// the CPU time of the measured work.
struct ChildFigures {
  double peak_growth_mib = 0;
  double cpu_ms = 0;
};

/// Runs `work` once in a forked child (fresh page tables: every page the work
/// touches is faulted in, as in a one-shot `perfbound run`).
template <typename Work>
ChildFigures in_child(Work work) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    malloc_trim(0);  // hand the parent's free heap back, so reusing it cannot hide growth
    reset_peak_rss();  // the peak inherited from the parent is not ours
    const long start_kib = status_kib("VmRSS:");
    timespec t0{}, t1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    work();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    ChildFigures f;
    f.peak_growth_mib = static_cast<double>(status_kib("VmHWM:") - start_kib) / 1024.0;
    f.cpu_ms = static_cast<double>(t1.tv_sec - t0.tv_sec) * 1e3 + static_cast<double>(t1.tv_nsec - t0.tv_nsec) / 1e6;
    ssize_t wrote = write(fds[1], &f, sizeof f);
    _exit(wrote == static_cast<ssize_t>(sizeof f) ? 0 : 1);
  }
  close(fds[1]);
  ChildFigures f;
  if (read(fds[0], &f, sizeof f) != static_cast<ssize_t>(sizeof f)) f = {};
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return f;
}

/// Peak memory of the extractor on N concatenated copies of chunk_kda, measured
/// in a child as growth of its peak RSS over its RSS at entry (the copies are
/// built before measuring starts): analysis only, and with the JSON document.
void BM_PeakMemory(benchmark::State &state) {
  if (!have_data(state)) return;
  const int times = static_cast<int>(state.range(0));
  auto child_peak = [&](bool document) {
    return in_child([&] {
      std::string input = repeated(times);
      auto opts = kda_launch();
      pb::hivm::Program p = pb::hivm::analyze_text(input, opts);
      if (document) {
        std::string json = pb::hivm::to_json_text(p, {"x", input.size()}, opts);
        benchmark::DoNotOptimize(json);
      }
    });
  };
  ChildFigures analysis, document;
  for (auto _ : state) {
    analysis = child_peak(false);
    document = child_peak(true);
  }
  const double input_mib = static_cast<double>(chunk_kda().size()) * times / (1024.0 * 1024.0);
  state.counters["input_MiB"] = input_mib;
  state.counters["peak_growth_analysis_MiB"] = analysis.peak_growth_mib - input_mib;
  state.counters["peak_growth_document_MiB"] = document.peak_growth_mib - input_mib;
}
BENCHMARK(BM_PeakMemory)->Arg(1)->Arg(10)->Arg(100)->Iterations(1)->Unit(benchmark::kMillisecond);

/// One function of N MiB: chunk_kda's AIC function with its body repeated
/// (SSA values renamed per copy), then its AIV function. Throughput of the
/// whole analysis, and the peak memory growth in a child, as a multiple of
/// the input (issue 17: a single large function must scale linearly).
void BM_AnalyzeSingleFunction(benchmark::State &state) {
  if (!have_data(state)) return;
  const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  const std::string text = pb::bench_support::single_function(chunk_kda(), "func.func", "\n  return", bytes);
  auto opts = kda_launch();
  for (auto _ : state) benchmark::DoNotOptimize(pb::hivm::analyze_text(text, opts));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  const ChildFigures child = in_child([&] {
    pb::hivm::Program p = pb::hivm::analyze_text(text, opts);
    std::string json = pb::hivm::to_json_text(p, {"x", text.size()}, opts);
    benchmark::DoNotOptimize(json);
  });
  const double input_mib = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  state.counters["input_MiB"] = input_mib;
  state.counters["peak_growth_document_MiB"] = child.peak_growth_mib;
  state.counters["peak_x_input"] = child.peak_growth_mib / input_mib;
}
BENCHMARK(BM_AnalyzeSingleFunction)->Arg(1)->Arg(4)->Arg(16)->Iterations(1)->Unit(benchmark::kMillisecond);

/// One-shot chunk_kda (text -> JSON text) in a fresh child, as the plugin runs
/// inside `perfbound run`: first-touch page faults included. Reports the
/// child's CPU time (cold_cpu_ms).
void BM_ColdEndToEndChunkKda(benchmark::State &state) {
  if (!have_data(state)) return;
  const std::string &text = chunk_kda();
  double total = 0;
  int64_t runs = 0;
  for (auto _ : state) {
    ChildFigures f = in_child([&] {
      auto opts = kda_launch();
      pb::hivm::Program p = pb::hivm::analyze_text(text, opts);
      std::string json = pb::hivm::to_json_text(p, {"chunk_kda", text.size()}, opts);
      benchmark::DoNotOptimize(json);
    });
    total += f.cpu_ms;
    ++runs;
  }
  state.counters["cold_cpu_ms"] = runs > 0 ? total / static_cast<double>(runs) : 0;
}
BENCHMARK(BM_ColdEndToEndChunkKda)->Iterations(5)->Unit(benchmark::kMillisecond);

/// The machine's cost of touching a fresh page (mmap + first write), the unit
/// in which the cold one-shot figure above differs from the warm one.
void BM_FirstTouchPage(benchmark::State &state) {
  constexpr size_t kPages = 4096;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (auto _ : state) {
    void *mem = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      return;
    }
    auto *bytes = static_cast<volatile char *>(mem);
    for (size_t idx = 0; idx < kPages; ++idx) bytes[idx * page] = 1;
    munmap(mem, kPages * page);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kPages));
}
BENCHMARK(BM_FirstTouchPage)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
