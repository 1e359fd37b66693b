//===- test_coverage.cpp - block-dependent work, given facts, coverage ----===//
//
// The aggregation of op records into per-core work (HivmView) on a program
// document written here by hand, so that each rule is pinned without an
// extractor in the way:
//   - an op inside `scf.for 0 to select(block >= 8, 2, 3)` (the first 8 of
//     48 blocks run 3 iterations, the rest 2) is counted with its per-block
//     minimum over all blocks and the grid's exact excess over it, not
//     dropped as block-dependent;
//   - an op in a loop whose trip count depends on loaded data is not
//     counted, is listed with its line and "give trips.\"40\"", and lowers
//     the coverage share the verdict speaks of;
//   - the same op under a user-given trip fact is counted at assurance
//     `given`, the strict figures unchanged.
// The end-to-end versions (IR written by us through the extractor) are in
// tests/extract_hivm and test_coverage_cli below.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <algorithm>

#include "combine.hpp"
#include "hivm_view.hpp"
#include "models_test_util.hpp"
#include "terms.hpp"

namespace m = pb::models;
using modelstest::json;

namespace {

/// 48 blocks of one AIV function: a block-dependent vector op, a DMA in a
/// data-dependent loop (with a `given` overlay when `with_fact`), and ten
/// scalar GM loads per block.
json program(bool with_fact) {
  json doc = json::parse(R"({
    "schema": "perfbound.hivm_program/1",
    "source": { "origin": "uneven.npuir.mlir" },
    "blocks": { "value": 48 },
    "functions": [ { "name": "@uneven", "core": "aiv", "instances_per_block": 1 } ],
    "ops": [
      { "id": 0, "op": "hivm.hir.vadd", "line": 21, "class": "vector_elementwise", "core": "aiv", "pipes": ["V"],
        "count": { "value": 3, "min": 2, "max": 3, "exact": false, "block_dependent": true, "last_block": 2,
                   "reason": "depends on the block index: block 0 runs 3 times, the last block 2" },
        "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "repeats": 8, "elements": 512, "dtype": "f32" },
        "block_min": { "count": 2, "repeats": 16, "issued_instructions": 2 },
        "block": { "repeats": 24, "issued_instructions": 3 },
        "grid": { "count": 104, "repeats": 832, "issued_instructions": 104 },
        "grid_reasons": {} },
      { "id": 1, "op": "hivm.hir.load", "line": 42, "class": "dma", "core": "aiv", "pipes": ["MTE2"],
        "count": { "value": null, "min": 0, "max": null, "exact": false, "unknown_loop": 40,
                   "hint": "give trips.\"40\"", "reason": "the loop at line 40 is bounded by a loaded value" },
        "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 256, "src": "gm", "dst": "ub", "path": "gm_to_ub", "packet_bytes": 256 },
        "reads": [ { "kind": "arg", "space": "gm" } ],
        "block": {}, "grid": {}, "grid_reasons": {} },
      { "id": 2, "op": "memref.load", "line": 50, "class": "scalar_memory", "core": "aiv", "pipes": ["S"],
        "scalar_kind": "gm_load",
        "count": { "value": 10, "min": 10, "max": 10, "exact": true },
        "instructions": { "scalar": 1, "issued": 1 },
        "block_min": { "count": 10, "scalar_instructions": 10, "issued_instructions": 10 },
        "block": { "count": 10, "scalar_instructions": 10, "issued_instructions": 10 },
        "grid": { "count": 480, "scalar_instructions": 480, "issued_instructions": 480 }, "grid_reasons": {} }
    ]
  })");
  if (with_fact) {
    // trips."40" = { min = 64 }: 64 executions per block, 256 B each.
    doc["ops"][1]["given"] = json::parse(R"({
      "facts": ["trips.\"40\""],
      "count": { "value": 64, "min": 64, "max": 64, "exact": true },
      "block_min": { "count": 64, "bytes": 16384, "issued_instructions": 64 },
      "block": { "bytes": 16384, "issued_instructions": 64 },
      "grid": { "count": 3072, "bytes": 786432, "issued_instructions": 3072 }, "grid_reasons": {} })");
    doc["given_facts"] = json::parse(R"([ { "key": "trips.\"40\"", "fact": { "min": 64 }, "lines": [40], "ops": 1 } ])");
  }
  return doc;
}

const m::Rates &rates() {
  static const m::Rates kRates = m::Rates::from_profile(modelstest::profile("ascend_910b3"), "ascend_910b3");
  return kRates;
}

}  // namespace

TEST_CASE("coverage: a block-dependent op counts its minimum over all blocks and the grid's exact excess") {
  m::HivmView view = m::HivmView::from_json(program(false), "uneven.json");
  const m::ComponentWork *vector = view.find("aiv", "vector");
  REQUIRE(vector != nullptr);
  const m::Amount &a = vector->by_class.at("vector_elementwise");
  // block_min: 2 executions x 8 repeats = 16 per block; grid: (8 x 3 + 40 x 2) x 8 = 832 repeats,
  // 832 - 48 x 16 = 64 beyond the minimum.
  CHECK(a.uniform == doctest::Approx(16));
  CHECK(a.dependent == doctest::Approx(64));
  CHECK_FALSE(a.has_given());
  for (const m::Missing &miss : view.missing) CHECK(miss.first_op != "hivm.hir.vadd");

  // The component floor: 48 blocks on 40 AIVs -> 2 waves; waves form 2 x 16 repeats,
  // mean form 832 / 40 = 20.8 repeats; at 1 repeat/cycle, 1.8 GHz: 32 / 1.8e9 s.
  m::Term core = m::component_floor_hivm(view, rates(), m::TermOptions{});
  bool found = false;
  for (const m::ComponentValue &cv : core.per_component)
    if (cv.key() == "aiv.vector") {
      found = true;
      CHECK(*cv.value.seconds == doctest::Approx(32 / 1.8e9));
      CHECK(cv.assurance == m::Assurance::Strict);
    }
  CHECK(found);
}

TEST_CASE("coverage: a loop bounded by loaded data is listed with its line and the fact that would count it") {
  m::HivmView view = m::HivmView::from_json(program(false), "uneven.json");
  const m::ComponentWork *mte2_work = view.find("aiv", "mte2");
  REQUIRE(mte2_work != nullptr);
  CHECK(mte2_work->total().grid(48) == 0);
  REQUIRE(view.coverage.count("aiv.mte2") == 1);
  const m::CoverageRow &mte2 = view.coverage.at("aiv.mte2");
  CHECK(mte2.ops_present == 1);
  CHECK(mte2.ops_counted == 0);
  CHECK(mte2.ops_given == 0);
  REQUIRE(view.uncounted.size() == 1);
  CHECK(view.uncounted[0].line == 42);
  CHECK(view.uncounted[0].loop_line == 40);
  CHECK(view.uncounted[0].hint == "give trips.\"40\"");
  CHECK(view.uncounted[0].reason == "in the loop at line 40 whose trip count is unknown");
  CHECK(view.coverage.at("aiv.vector").ops_counted == 1);
  CHECK(view.coverage.at("aiv.scalar").ops_counted == 1);

  // The report says so: coverage rows, the op, and the verdict's sentence
  // when the binding-relevant share is below 90 %. With the vector unit
  // binding (every vector op counted) and 2 of the kernel's 3 ops counted,
  // nothing is said; make the scalar loads 10,000 per block and the issue
  // floor binds (2 waves x 10,002 instructions), where only 2 of the 3
  // instruction-issuing ops on aiv are counted.
  auto report_of = [&](const m::HivmView &v) {
    std::vector<m::Term> terms{m::component_floor_hivm(v, rates(), m::TermOptions{}),
                               m::issue_floor_hivm(v, rates(), m::TermOptions{})};
    m::CombineInputs in;
    for (const m::Term &t : terms) in.term_documents.push_back(t.to_json());
    in.terms = terms;
    in.hivm = &v;
    in.rates = &rates();
    return m::combine(std::move(in), m::CombineOptions{});
  };
  json quiet = report_of(view);
  CHECK(quiet["bound"]["binding_component"] == "vector");
  CHECK_MESSAGE(quiet["coverage"]["warning"].is_null(), quiet["coverage"].dump());

  json doc = program(false);
  doc["ops"][2]["count"] = json::parse(R"({ "value": 10000, "min": 10000, "max": 10000, "exact": true })");
  doc["ops"][2]["block_min"] = json::parse(R"({ "count": 10000, "scalar_instructions": 10000, "issued_instructions": 10000 })");
  doc["ops"][2]["block"] = doc["ops"][2]["block_min"];
  m::HivmView scalar_view = m::HivmView::from_json(doc, "loads.json");
  json report = report_of(scalar_view);
  CHECK(report["bound"]["binding_term"] == "issue_floor");
  REQUIRE(report.contains("coverage"));
  const json &cov = report["coverage"]["hivm"];
  CHECK(cov["ops_present"] == 3);
  CHECK(cov["ops_counted"] == 2);
  CHECK(cov["not_counted_total"] == 1);
  CHECK(cov["not_counted"][0]["line"] == 42);
  CHECK(cov["not_counted"][0]["hint"] == "give trips.\"40\"");
  REQUIRE(report["coverage"]["warning"].is_string());
  std::string warning = report["coverage"]["warning"].get<std::string>();
  CHECK(warning.find("counts 2 of 3 ops on aiv") != std::string::npos);
  CHECK(warning.find("loop at line 40") != std::string::npos);
  CHECK(report["verdict"]["why"].get<std::string>().find(warning) != std::string::npos);
  REQUIRE(report["findings"].is_array());
  REQUIRE_FALSE(report["findings"].empty());
  CHECK(report["findings"][0]["category"] == "coverage");
  CHECK(report["findings"][0]["action"].get<std::string>().find("trips.\"40\"") != std::string::npos);
}

TEST_CASE("coverage: a given trip fact counts the loop at assurance given, the strict bound unchanged") {
  m::HivmView strict_view = m::HivmView::from_json(program(false), "uneven.json");
  m::HivmView view = m::HivmView::from_json(program(true), "uneven.json");
  REQUIRE(view.given_facts.size() == 1);
  CHECK(view.given_facts[0].key == "trips.\"40\"");
  const m::ComponentWork *mte2 = view.find("aiv", "mte2");
  REQUIRE(mte2 != nullptr);
  const m::Amount &bytes = mte2->by_class.at("gm_to_ub");
  CHECK(bytes.uniform == 0);
  CHECK(bytes.given_uniform == doctest::Approx(16384));
  // Counted in the given bound, so not among the uncounted; the row says
  // it is counted only under the fact.
  CHECK(view.coverage.at("aiv.mte2").ops_given == 1);
  CHECK(view.coverage.at("aiv.mte2").ops_counted == 1);
  CHECK(view.uncounted.empty());

  // The aggregated document carries the given parts and reads back the same.
  json work = view.to_work();
  CHECK(m::HivmView::from_work(work, "work.json").to_work() == work);

  // Component floor: MTE2 under the fact: 2 waves x 16384 B at 128 B/cycle = 256 cycles (given);
  // strict: nothing on MTE2.
  m::TermOptions options;
  m::Term core = m::component_floor_hivm(view, rates(), options);
  m::Term core_strict = m::component_floor_hivm(strict_view, rates(), options);
  const m::ComponentValue *given_mte2 = nullptr;
  for (const m::ComponentValue &cv : core.per_component)
    if (cv.key() == "aiv.mte2") given_mte2 = &cv;
  REQUIRE(given_mte2 != nullptr);
  CHECK(*given_mte2->value.seconds == doctest::Approx(256 / 1.8e9));
  CHECK(*given_mte2->strict_value.seconds == 0);
  CHECK(given_mte2->assurance == m::Assurance::Given);

  m::Limit limit = m::compose({core}, "hivm");
  m::Limit strict_limit = m::compose({core_strict}, "hivm");
  CHECK(limit.binding_component == "mte2");
  CHECK(limit.assurance == m::Assurance::Given);
  CHECK(*limit.strict.seconds == doctest::Approx(*strict_limit.value.seconds));
  CHECK(*limit.value.seconds > *limit.strict.seconds);

  // The report echoes the fact.
  m::CombineInputs in;
  in.term_documents.push_back(core.to_json());
  in.terms = {core};
  in.hivm = &view;
  in.rates = &rates();
  json report = m::combine(std::move(in), m::CombineOptions{});
  CHECK(report["bound"]["assurance"] == "given");
  REQUIRE(report.contains("given_facts"));
  CHECK(report["given_facts"][0]["key"] == "trips.\"40\"");
  CHECK(report["given_facts"][0]["fact"]["min"] == 64);
}

TEST_CASE("coverage: without block_min a block-dependent op never takes block 0 as its minimum") {
  json doc = program(false);
  doc["ops"][0].erase("block_min");
  doc["ops"][0].erase("grid_reasons");
  m::HivmView view = m::HivmView::from_json(doc, "old.json");
  // An older extractor's count.min is block 0's; the grid sum is not known
  // to be exact (no grid_reasons): nothing is counted, and it says so.
  const m::ComponentWork *vector = view.find("aiv", "vector");
  REQUIRE(vector != nullptr);
  CHECK(vector->total().grid(48) == 0);
  CHECK(view.coverage.at("aiv.vector").ops_counted == 0);
  bool listed = false;
  for (const m::Missing &miss : view.missing)
    if (miss.first_op == "hivm.hir.vadd") listed = miss.reason.find("depends on the block index") != std::string::npos;
  CHECK(listed);
}

TEST_CASE("coverage: the issue rate is argued, the strict issue floor leaves it out") {
  m::HivmView view = m::HivmView::from_json(program(false), "uneven.json");
  m::Term issue = m::issue_floor_hivm(view, rates(), m::TermOptions{});
  CHECK(issue.assurance == m::Assurance::Argued);
  REQUIRE(issue.strict_value.seconds.has_value());
  CHECK(*issue.strict_value.seconds == 0);
  // Guaranteed instructions per block: 2 vadd + 10 loads = 12; 2 waves -> 24 cycles.
  CHECK(*issue.value.seconds == doctest::Approx(24 / 1.8e9));
  bool argued_rate = false;
  for (size_t idx = 0; idx < issue.rates.size(); ++idx)
    if (issue.rates[idx].name == "instruction issue (per core)") argued_rate = issue.rate_use[idx] == "argued";
  CHECK(argued_rate);

  // as_written is an estimate: a diagnostic component, never the value.
  m::TermOptions as_written;
  as_written.instruction_count = "as_written";
  m::Term estimate = m::issue_floor_hivm(view, rates(), as_written);
  CHECK(*estimate.value.seconds == doctest::Approx(*issue.value.seconds));
  bool diagnostic = false;
  for (const m::ComponentValue &cv : estimate.per_component) diagnostic = diagnostic || cv.assurance == m::Assurance::Diagnostic;
  CHECK(diagnostic);
}

TEST_CASE("coverage: a TTIR trips fact lifts the DSL tier at assurance given, the strict bound beside it") {
  // tests/extract_ttir/kernels/coverage_forms.ttir, kernel barrier_add: a
  // loop whose trip count comes from an op of an unregistered dialect adds
  // 256 f32 per iteration. With trips."ttir:<line>" = { min = 30 }: 30 x 256
  // = 7680 FLOP per program at 128 FLOP/cycle (vector fp32) = 60 cycles =
  // 33.333 ns (4 programs, one wave). Strict: only the 256 f32 loaded per
  // program, 1024 B at 128 B/cycle = 8 cycles = 4.444 ns.
  std::string file = (pbtest::test_source_dir() / "extract_ttir" / "kernels" / "coverage_forms.ttir").string();
  std::string text = pbtest::read_file(file);
  size_t at = text.find("scf.for %arg3 = %c0_i32 to %8");
  REQUIRE(at != std::string::npos);
  int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_dsl.toml"),
      {"--set", "ttir=" + file, "--set",
       "launch={grid=[4],kernel=\"barrier_add\",args={\"2\"=7},trips={\"ttir:" + std::to_string(line) + "\"={min=30}}}"});
  const json &bound = run.report["bound"];
  CHECK(modelstest::seconds(bound) == doctest::Approx(60 / 1.8e9));
  CHECK(bound["assurance"] == "given");
  CHECK(bound["binding_component"] == "vector");
  CHECK(modelstest::seconds(bound["strict"]) == doctest::Approx(8 / 1.8e9));
  REQUIRE(run.report.contains("given_facts"));
  CHECK(run.report["given_facts"][0]["key"] == "trips.\"ttir:" + std::to_string(line) + "\"");
  CHECK(run.report["given_facts"][0]["tier"] == "dsl");
}
