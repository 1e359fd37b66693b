//===- bench_models.cpp - whole-bound evaluation and sweep throughput -----===//
//
//   whole_bound/<case>            every HIVM-tier term + the combiner, from the
//                                 parsed perfbound.hivm_work/1 document (what the
//                                 shipped pipelines pass the model nodes)
//   whole_bound/<case>_with_parse the same, including parsing its JSON text
//   whole_bound/<case>_from_program
//                                 from the parsed hivm_program (including the
//                                 aggregation the hivm_work node does)
//   bound_from_view/<case>        only the terms and the combiner, from the
//                                 HivmView already read
//   hivm_work/<case>              the aggregation alone (program -> work)
//   critical_path/<case>          the critical_path term from the parsed program
//   critical_path/<case>_text     the node as it runs: the program's JSON text
//                                 streamed into the term (no DOM of the ops)
//   hivm_work_from_text/<case>_text|_dom  the node as it runs: program text ->
//                                 work, streamed (from_text) or parsed whole first
//   render_html/<case>            the HTML fragment of the bound report (roofline,
//                                 waterfall, bars, findings with source lines:
//                                 the IR file is read), on top of the bound
//   render_trace/<case>           the trace-event JSON of the bound report
//   sweep/<kernel>                DSL-tier bounds per second on one core
//                                 (configs/s = items_per_second)
//
// Inputs: the real chunk_kda and seeded_serial dumps from ../shared (skipped
// without it) analyzed in-process by the HIVM extractor library, the 910B3
// profile and dsl_facts documents written once by the perfbound binary.
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analyze.hpp"
#include "combine.hpp"
#include "critical_path.hpp"
#include "document.hpp"
#include "render_html.hpp"
#include "render_trace.hpp"
#include "sweep.hpp"
#include "terms.hpp"

namespace fs = std::filesystem;
namespace m = pb::models;
using nlohmann::json;

namespace {

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string run_capture(const std::string &command) {
  std::string out;
  FILE *pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[65536];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

const json &profile() {
  static json doc = json::parse(run_capture(std::string(PB_PERFBOUND_EXE) + " profile show --json ascend_910b3"));
  return doc;
}

/// hivm_program text of a real dump with launch values, or "" without ../shared.
std::string program_text(const std::string &dump, const json &launch) {
  fs::path path = fs::path(PB_SHARED_DIR) / "data" / "hivm" / dump;
  if (!fs::exists(path)) return {};
  std::string text = read_file(path);
  pb::hivm::AnalysisOptions options;
  pb::hivm::apply_profile(profile(), options);
  pb::hivm::apply_launch(launch, options);
  pb::hivm::Program program = pb::hivm::analyze_text(text, options);
  return pb::hivm::to_json_text(program, {path.string(), text.size()}, options);
}

json report_from_view(const m::HivmView &view, const m::Rates &rates) {
  // As a pipeline does it: each term node writes its document, the
  // combiner reads every term back and keeps the documents for the report.
  m::TermOptions options;
  std::vector<json> documents;
  documents.reserve(5);
  documents.push_back(m::grid_floor_hivm(view, rates, options).to_json());
  documents.push_back(m::component_floor_hivm(view, rates, options).to_json());
  documents.push_back(m::memory_hivm(view, rates, options).to_json());
  documents.push_back(m::serialization_hivm(view, rates, options).to_json());
  documents.push_back(m::issue_floor_hivm(view, rates, options).to_json());
  m::CombineInputs in;
  for (json &doc : documents) {
    in.terms.push_back(m::Term::from_json(doc, "bench", m::Term::Read::Numbers));
    in.term_documents.push_back(std::move(doc));
  }
  in.hivm = &view;
  in.rates = &rates;
  return m::combine(std::move(in), {});
}

json report_from(const json &program, const m::Rates &rates) {
  return report_from_view(m::HivmView::from_json(program, "bench"), rates);
}

struct Case {
  const char *dump;
  const char *launch;
};
const Case kChunkKda{"chunk_kda.npuir.mlir", R"({"schema":"perfbound.launch/1","grid":[128,32],"args":{"20":8192,"22":8192}})"};
const Case kSeededSerial{"seeded_serial_on.npuir.mlir",
                         R"({"schema":"perfbound.launch/1","grid":[4096],"args":{"4":8388608,"5":65536}})"};

/// What a whole-bound evaluation starts from.
enum class From {
  Work,           // the parsed perfbound.hivm_work/1 document (what the shipped pipelines pass the models)
  WorkText,       // its JSON text (parsing included)
  Program,        // the parsed perfbound.hivm_program/1 (aggregation included: the hivm_work node's job)
};

void whole_bound(benchmark::State &state, const Case &c, From from) {
  std::string text = program_text(c.dump, json::parse(c.launch));
  if (text.empty()) {
    state.SkipWithError("../shared not found: real dumps unavailable");
    return;
  }
  json program = json::parse(text);
  json work = m::HivmView::from_json(program, "bench").to_work();
  std::string work_text = work.dump();
  m::Rates rates = m::Rates::from_profile(profile(), "ascend_910b3");
  for (auto _ : state) {
    switch (from) {
      case From::Work: benchmark::DoNotOptimize(report_from_view(m::HivmView::from_work(work, "bench"), rates)); break;
      case From::WorkText:
        benchmark::DoNotOptimize(report_from_view(m::HivmView::from_work(json::parse(work_text), "bench"), rates));
        break;
      case From::Program: benchmark::DoNotOptimize(report_from(program, rates)); break;
    }
  }
  state.counters["document_bytes"] = static_cast<double>(from == From::Program ? text.size() : work_text.size());
}

/// The hivm_work node alone: the program's op records aggregated into the
/// work document.
void hivm_work(benchmark::State &state, const Case &c) {
  std::string text = program_text(c.dump, json::parse(c.launch));
  if (text.empty()) {
    state.SkipWithError("../shared not found: real dumps unavailable");
    return;
  }
  json program = json::parse(text);
  for (auto _ : state) benchmark::DoNotOptimize(m::HivmView::from_json(program, "bench").to_work());
  state.counters["document_bytes"] = static_cast<double>(text.size());
}

/// The critical_path node: the ordering graph of every block summarized
/// and its longest path (docs/model.md §3.6).
void critical_path(benchmark::State &state, const Case &c, bool from_text) {
  std::string text = program_text(c.dump, json::parse(c.launch));
  if (text.empty()) {
    state.SkipWithError("../shared not found: real dumps unavailable");
    return;
  }
  json program = json::parse(text);
  json prof = profile();
  m::Rates rates = m::Rates::from_profile(prof, "ascend_910b3");
  for (auto _ : state) {
    if (from_text) {
      benchmark::DoNotOptimize(m::critical_path_hivm_text(text, "bench", prof, rates, {}));
    } else {
      benchmark::DoNotOptimize(m::critical_path_hivm(program, "bench", prof, rates, {}));
    }
  }
  state.counters["document_bytes"] = static_cast<double>(text.size());
}

/// The hivm_work node as it runs: the program's JSON text to the work
/// document, aggregated while parsed (`text`) or parsed whole first (`dom`,
/// what the node did before HivmView::from_text).
void hivm_work_from_text(benchmark::State &state, const Case &c, bool streamed) {
  std::string text = program_text(c.dump, json::parse(c.launch));
  if (text.empty()) {
    state.SkipWithError("../shared not found: real dumps unavailable");
    return;
  }
  for (auto _ : state) {
    if (streamed) benchmark::DoNotOptimize(m::HivmView::from_text(text, "bench").to_work());
    else benchmark::DoNotOptimize(m::HivmView::from_json(json::parse(text), "bench").to_work());
  }
  state.counters["document_bytes"] = static_cast<double>(text.size());
}

/// Only the terms and the combiner, from the HivmView a pipeline node
/// builds once from its input document (the view's construction excluded).
void bound_from_view(benchmark::State &state, const Case &c) {
  std::string text = program_text(c.dump, json::parse(c.launch));
  if (text.empty()) {
    state.SkipWithError("../shared not found: real dumps unavailable");
    return;
  }
  m::HivmView view = m::HivmView::from_json(json::parse(text), "bench");
  m::Rates rates = m::Rates::from_profile(profile(), "ascend_910b3");
  for (auto _ : state) benchmark::DoNotOptimize(report_from_view(view, rates));
}

/// The pictures of one bound report (the report computed once, outside the loop).
void render_pictures(benchmark::State &state, const Case &c, bool html) {
  std::string text = program_text(c.dump, json::parse(c.launch));
  if (text.empty()) {
    state.SkipWithError("../shared not found: real dumps unavailable");
    return;
  }
  m::Rates rates = m::Rates::from_profile(profile(), "ascend_910b3");
  json report = report_from_view(m::HivmView::from_json(json::parse(text), "bench"), rates);
  size_t bytes = 0;
  for (auto _ : state) {
    if (html) {
      std::string page = *m::render_html("perfbound.bound_report/1", report, &profile());
      bytes = page.size();
      benchmark::DoNotOptimize(page);
    } else {
      std::string trace = m::render_trace(report).dump(1);
      bytes = trace.size();
      benchmark::DoNotOptimize(trace);
    }
  }
  state.counters["output_bytes"] = static_cast<double>(bytes);
}

json dsl_facts(const std::string &ttir, const std::string &launch) {
  fs::path out = fs::temp_directory_path() / ("perfbound-bench-models-" + std::to_string(::getpid()));
  std::string cmd = std::string(PB_PERFBOUND_EXE) + " run " + PB_SOURCE_DIR + "/pipelines/bound_dsl.toml --set ttir=" + ttir +
                    " --set '" + launch + "' --out " + out.string() + " -q > /dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return {};
  json facts = json::parse(read_file(out / "facts.json"), nullptr, false);
  fs::remove_all(out);
  return facts;
}

void sweep(benchmark::State &state, const std::string &ttir, const std::string &launch, const std::string &spec) {
  json facts = dsl_facts(ttir, launch);
  if (!facts.is_object()) {
    state.SkipWithError("could not write dsl_facts with the perfbound binary");
    return;
  }
  m::Rates rates = m::Rates::from_profile(profile(), "ascend_910b3");
  m::SweepModel model = m::SweepModel::build(facts, rates, "bench");
  std::vector<m::SweepConfig> configs = model.expand(json::parse(spec), "bench");
  double sink = 0;
  for (auto _ : state) {
    for (const m::SweepConfig &c : configs) sink += model.evaluate(c).bound;
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(configs.size()));
  state.counters["configs"] = static_cast<double>(configs.size());
}

}  // namespace

BENCHMARK_CAPTURE(whole_bound, chunk_kda, kChunkKda, From::Work)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(whole_bound, seeded_serial, kSeededSerial, From::Work)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(whole_bound, chunk_kda_with_parse, kChunkKda, From::WorkText)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(whole_bound, chunk_kda_from_program, kChunkKda, From::Program)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bound_from_view, chunk_kda, kChunkKda)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bound_from_view, seeded_serial, kSeededSerial)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(hivm_work, chunk_kda, kChunkKda)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(critical_path, chunk_kda, kChunkKda, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(critical_path, chunk_kda_text, kChunkKda, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(critical_path, seeded_serial, kSeededSerial, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(hivm_work_from_text, chunk_kda_text, kChunkKda, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(hivm_work_from_text, chunk_kda_dom, kChunkKda, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(render_pictures, html_chunk_kda, kChunkKda, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(render_pictures, trace_chunk_kda, kChunkKda, false)->Unit(benchmark::kMicrosecond);
// Fixed iteration counts, for instruction counts under valgrind --tool=callgrind
// (this VM's clock varies by 2x between runs; instruction counts do not):
//   valgrind --tool=callgrind --toggle-collect='*report_from_view*' \
//       build/bin/perfbound_bench_models --benchmark_filter=bound_from_view/chunk_kda_fixed
BENCHMARK_CAPTURE(whole_bound, chunk_kda_fixed, kChunkKda, From::Work)->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bound_from_view, chunk_kda_fixed, kChunkKda)->Iterations(20)->Unit(benchmark::kMicrosecond);

// 4096 launches of the tutorial vector add: n from 2048 to 8M in steps of
// 2048, grid = cdiv(n, 2048).
BENCHMARK_CAPTURE(sweep, vector_add, std::string(PB_SOURCE_DIR) + "/examples/kernels/vector_add/vector_add.ttir.mlir",
                  "launch={grid=[8192,1,1],args={n_elements=16777216}}",
                  R"J({"args":{"n_elements":{"from":2048,"to":8388608,"step":2048}},"grid_from":{"x":"cdiv(n_elements, 2048)"}})J")
    ->Unit(benchmark::kMicrosecond);
// 64 x 64 grids x 8 K values of the block-pointer matmul (32768 launches).
BENCHMARK_CAPTURE(sweep, blockptr_matmul,
                  std::string(PB_SOURCE_DIR) + "/tests/extract_ttir/kernels/blockptr_matmul.ttir",
                  R"(launch={grid=[8,8,1],args={"3"=1024,"4"=1024,"5"=1024,"6"=1024,"7"=1024,"8"=1024}})",
                  R"({"grid":{"x":{"from":1,"to":64},"y":{"from":1,"to":64}},"args":{"%arg5":{"from":256,"to":2048,"step":256}}})")
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
