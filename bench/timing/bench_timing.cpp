//===- bench_timing.cpp - what the timing harness itself costs --------------===//
//
// The harness's own overheads, so a reader can tell them from what it
// measures: the floor of an empty event bracket on the CPU backend, the cost
// of one queued operation, the FP64 reference check, input generation, an
// fsync'd journal append, and parsing npu-smi output. Run:
//   ./build/bin/perfbound_bench_timing --benchmark_counters_tabular=true
// Figures are recorded in docs/performance/timing.md.
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include <perfbound/perfbound.h>

#include "harness/check.hpp"
#include "harness/journal.hpp"
#include "harness/process.hpp"
#include "harness/smi.hpp"

namespace bench = pb::bench;
namespace fs = std::filesystem;

namespace {

const void *no_extension(const pb_host *, const char *) { return nullptr; }

/// The CPU backend's table, loaded straight from the plugin library (the
/// benchmark plays a minimal host).
const pb_ext_timing_backend *cpu_backend() {
  static const pb_ext_timing_backend *table = [] {
    static pb_host host{};
    host.struct_size = sizeof host;
    host.abi_major = PB_ABI_VERSION_MAJOR;
    host.abi_minor = PB_ABI_VERSION_MINOR;
    host.name = "perfbound_bench_timing";
    host.version = "0";
    host.get_extension = no_extension;
    fs::path library = fs::path(PB_PLUGIN_DIR) / "libperfbound_timing_cpu.so";
    void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return static_cast<const pb_ext_timing_backend *>(nullptr);
    auto negotiate = reinterpret_cast<pb_negotiate_fn>(dlsym(handle, PB_ENTRY_SYMBOL));
    pb_negotiate_request request{sizeof(pb_negotiate_request), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MAJOR,
                                 PB_ABI_VERSION_MINOR, &host};
    pb_negotiate_response response{};
    response.struct_size = sizeof response;
    if (negotiate == nullptr || negotiate(&request, &response) != PB_OK) return static_cast<const pb_ext_timing_backend *>(nullptr);
    if (response.plugin->init != nullptr) response.plugin->init(&host);
    return static_cast<const pb_ext_timing_backend *>(response.plugin->get_extension(PB_EXT_TIMING_BACKEND));
  }();
  return table;
}

/// The upper median of an empty bracket: shield, 10 x {record start,
/// record end}, release, synchronize. This is the resolution floor of a CPU
/// sample (the stream thread's hand-off between two timestamp tasks).
void BM_CpuEmptyBracket(benchmark::State &state) {
  const pb_ext_timing_backend *table = cpu_backend();
  if (table == nullptr) {
    state.SkipWithError("cannot load libperfbound_timing_cpu.so");
    return;
  }
  pb_timing_session *session = nullptr;
  if (table->open(0, &session, nullptr, nullptr) != PB_OK) {
    state.SkipWithError("cannot open the CPU backend");
    return;
  }
  std::vector<pb_timing_event *> starts(10), ends(10);
  for (int idx = 0; idx < 10; ++idx) {
    table->event_create(session, &starts[idx]);
    table->event_create(session, &ends[idx]);
  }
  std::vector<double> medians;
  for (auto _ : state) {
    table->shield_enqueue(session, 30.0);
    for (int idx = 0; idx < 10; ++idx) {
      table->event_record(session, starts[idx]);
      table->event_record(session, ends[idx]);
    }
    table->shield_release(session);
    table->synchronize(session);
    std::vector<double> samples(10);
    for (int idx = 0; idx < 10; ++idx) table->event_elapsed_us(session, starts[idx], ends[idx], &samples[idx]);
    std::sort(samples.begin(), samples.end());
    medians.push_back(samples[5]);
  }
  std::sort(medians.begin(), medians.end());
  state.counters["bracket_floor_us"] = medians[medians.size() / 2];
  for (int idx = 0; idx < 10; ++idx) {
    table->event_destroy(session, starts[idx]);
    table->event_destroy(session, ends[idx]);
  }
  table->close(session);
}
BENCHMARK(BM_CpuEmptyBracket)->Unit(benchmark::kMicrosecond);

/// Host cost of queueing one operation on the CPU stream: 40 event records
/// (one sample batch's worth of queued operations) per iteration.
void BM_CpuEnqueue40(benchmark::State &state) {
  const pb_ext_timing_backend *table = cpu_backend();
  if (table == nullptr) {
    state.SkipWithError("cannot load libperfbound_timing_cpu.so");
    return;
  }
  pb_timing_session *session = nullptr;
  table->open(0, &session, nullptr, nullptr);
  std::vector<pb_timing_event *> events(40);
  for (pb_timing_event *&event : events) table->event_create(session, &event);
  for (auto _ : state) {
    for (pb_timing_event *event : events) table->event_record(session, event);
    state.PauseTiming();
    table->synchronize(session);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 40);
  for (pb_timing_event *event : events) table->event_destroy(session, event);
  table->close(session);
}
BENCHMARK(BM_CpuEnqueue40)->Unit(benchmark::kMicrosecond);

/// The FP64 reference check: multiply-adds per second of the independent loop.
void BM_CheckReference(benchmark::State &state) {
  bench::GemmShape shape;
  shape.m = shape.n = static_cast<uint64_t>(state.range(0));
  shape.k = static_cast<uint64_t>(state.range(1));
  shape.a = shape.b = shape.out = bench::Dtype::kBf16;
  bench::GemmInputs inputs = bench::make_gemm_inputs(shape, 1);
  std::vector<unsigned char> output(shape.m * shape.n * 2, 0);
  double checked = 0;
  for (auto _ : state) {
    bench::json verdict = bench::check_gemm_output(shape, inputs, output);
    checked = verdict["elements_checked"].get<double>();
  }
  state.counters["MAC/s"] =
      benchmark::Counter(checked * static_cast<double>(shape.k), benchmark::Counter::kIsIterationInvariantRate);
}
// 256 x 256 x 4096 = 2^28 MACs: the largest check that is still full; above
// it the check samples a 64 x 64 grid (4096 x 8192 x 8192 here).
BENCHMARK(BM_CheckReference)->Args({256, 1024})->Args({256, 4096})->Args({4096, 8192})->Unit(benchmark::kMillisecond);

/// Input generation (random, rounded to bf16).
void BM_MakeInputsBf16(benchmark::State &state) {
  bench::GemmShape shape;
  shape.m = shape.n = shape.k = static_cast<uint64_t>(state.range(0));
  shape.a = shape.b = shape.out = bench::Dtype::kBf16;
  for (auto _ : state) benchmark::DoNotOptimize(bench::make_gemm_inputs(shape, 7));
  state.counters["elements/s"] = benchmark::Counter(static_cast<double>(2 * shape.m * shape.k),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MakeInputsBf16)->Arg(2048)->Unit(benchmark::kMillisecond);

/// One journal record: write + fsync (the durability cost paid per case).
void BM_JournalAppendFsync(benchmark::State &state) {
  fs::path dir = fs::temp_directory_path() / ("perfbound-bench-journal-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path path = dir / "journal.jsonl";
  fs::remove(path);
  bench::json header{{"schema", bench::kJournalHeaderSchema}};
  bench::JournalWriter writer = bench::JournalWriter::create(path, header);
  bench::json record{{"schema", bench::kJournalRecordSchema}, {"case_id", "x#0"}, {"seq", 1},
                     {"row", {{"samples_us", std::vector<double>(10, 123.456)}, {"status", "ok"}}}};
  for (auto _ : state) writer.append(record);
  fs::remove_all(dir);
}
BENCHMARK(BM_JournalAppendFsync)->Unit(benchmark::kMicrosecond);

/// Parsing one recorded `npu-smi info` (910B1, two NPUs with processes).
void BM_ParseNpuSmi(benchmark::State &state) {
  std::optional<std::string> text =
      bench::read_whole_file(fs::path(PB_SHARED_DIR) / "data/npu-smi/npu-smi_info_910B1_with_processes.txt");
  if (!text) {
    state.SkipWithError("../shared/data/npu-smi not found");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(bench::parse_npu_smi_info(*text));
}
BENCHMARK(BM_ParseNpuSmi)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
