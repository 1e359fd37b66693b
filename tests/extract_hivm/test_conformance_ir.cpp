//===- test_conformance_ir.cpp - lit files, foreign forms, MIX and opaque ops -===//
//
// IR written here (tests/extract_hivm/data/conformance/) for every pattern the
// peer suites showed (docs/extract_hivm.md §1-2): lit files cut at `// -----`
// and a kernel chosen by NAME or NAME:LINE; top-level symbol ops; an op
// printed without its result names; `scope.scope` and the short form of a
// region's arguments; invalid IR refused with its line; MIX and untyped
// functions; ops the table does not know (opaque, with their bytes); the ops
// modelled from their definitions (mmadmxL1, matmul, tensor DMA, memrefs
// without an address space). The report's coverage of an unknown op is
// checked through `perfbound run` at the end.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "hivm_test_util.hpp"
#include "parser.hpp"
#include "walk.hpp"

using namespace pb::hivm;
using hivmtest::op_at;
using hivmtest::value;
using json = nlohmann::json;

namespace {

std::string fixture(const std::string &name) { return hivmtest::test_data("conformance/" + name); }

AnalysisOptions select(const std::string &kernel, SplitMode split = SplitMode::Auto) {
  AnalysisOptions o;
  o.kernel = kernel;
  o.split = split;
  return o;
}

/// The message of the SourceError or FactError the analysis throws, with its line ("" when none).
struct Refusal {
  std::string kind;  // "source", "fact" or ""
  uint32_t line = 0;
  std::string message;
};
Refusal refusal(const std::string &text, const AnalysisOptions &o) {
  try {
    (void)analyze_text(text, o);
  } catch (const SourceError &e) {
    return {"source", e.line(), e.what()};
  } catch (const FactError &e) {
    return {"fact", 0, e.what()};
  }
  return {};
}

bool has_warning(const Program &p, const std::string &part) {
  return std::any_of(p.warnings.begin(), p.warnings.end(), [&](const std::string &w) { return w.find(part) != std::string::npos; });
}

const Unmodelled *unmodelled(const Program &p, const std::string &op) {
  for (const Unmodelled &u : p.unmodelled)
    if (u.op == op) return &u;
  return nullptr;
}

}  // namespace

TEST_CASE("lit files: cut as mlir-opt --split-input-file cuts them") {
  const std::string text = fixture("lit_sections.mlir");
  // Lines 10 (`// -----`) and 19 (`// ---------`) cut; line 23 (`// ----`) is a near miss.
  std::vector<Section> sections = split_sections(text);
  REQUIRE(sections.size() == 3);
  CHECK(sections[0].first_line == 1);
  CHECK(sections[1].first_line == 10);
  CHECK(sections[2].first_line == 19);
  CHECK(has_split_marker_line(text));
  // A dump header is not a line of its own: auto does not cut a raw dump.
  CHECK_FALSE(has_split_marker_line("// -----// IR Dump After X (x) //----- //\nfunc.func @f() {\n  return\n}\n"));
  CHECK(split_sections("a // -----// b").size() == 2);  // mlir-opt cuts there too (split = on)
}

TEST_CASE("lit files: one input is analysed, chosen by NAME or NAME:LINE; others are not read as one program") {
  const std::string text = fixture("lit_sections.mlir");
  // No selection: three functions in three inputs, so the candidates are listed.
  Refusal none = refusal(text, {});
  CHECK(none.kind == "source");
  CHECK(none.message.find("k:3, k:12, helper_k:20") != std::string::npos);
  CHECK(none.message.find("launch.kernel") != std::string::npos);
  // NAME:LINE picks the second input: one function, its load of 1024 f32.
  Program second = analyze_text(text, select("k:12"));
  REQUIRE(second.functions.size() == 1);
  CHECK(second.functions[0].line == 12);
  CHECK(value(op_at(second, 15).totals().bytes) == 4096);
  CHECK(has_warning(second, "the one at line 10 is analysed"));
  // NAME alone is ambiguous here (two inputs hold a @k): both are named.
  Refusal both = refusal(text, select("k"));
  CHECK(both.kind == "fact");
  CHECK(both.message.find("k:3, k:12") != std::string::npos);
  // A prefix when no function has the exact name: @helper_k in the third input.
  Program third = analyze_text(text, select("helper"));
  REQUIRE(third.functions.size() == 1);
  CHECK(third.functions[0].name == "@helper_k");
  // A line where no such function starts.
  Refusal wrong = refusal(text, select("k:5"));
  CHECK(wrong.kind == "fact");
  CHECK(wrong.message.find("no such kernel") != std::string::npos);
  // split = off: one module holding @k twice is invalid, and both lines are named.
  Refusal whole = refusal(text, select("", SplitMode::Off));
  CHECK(whole.kind == "source");
  CHECK(whole.line == 12);
  CHECK(whole.message.find("redefinition of symbol @k: it is already defined at line 3") != std::string::npos);
}

TEST_CASE("foreign forms: top-level symbols, an op without result names, scope.scope, short region arguments") {
  Program p = analyze_text(fixture("forms.mlir"), {});
  // Lines 1-3: declarations and globals at the top level are read, named and left out.
  CHECK(has_warning(p, "llvm.func @__assertfail (line 1) is not a function: ignored"));
  CHECK(has_warning(p, "memref.global @__constant_4xi32 (line 2)"));
  CHECK(has_warning(p, "llvm.mlir.global @str0 (line 3)"));
  REQUIRE(p.functions.size() == 2);
  // Line 6: `hivm.hir.create_sync_block_lock : memref<1xi64>` is its own op.
  CHECK(op_at(p, 6).name == "hivm.hir.create_sync_block_lock");
  CHECK(op_at(p, 7).name == "hivm.hir.pointer_cast");
  // Line 9: the load inside `scope.scope : () -> () {` sees the function's values and runs once.
  const OpRecord &load = op_at(p, 9);
  CHECK(load.modelled);
  CHECK(load.count.known);
  CHECK(load.count.min == 1);
  CHECK(value(load.totals().bytes) == 4096);
  // Lines 13-17: linalg.reduce with `(%in: f32, %acc: f32) {`: read; not modelled, its
  // two tensor operands (16x8 + 16 f32 = 512 + 64 B) listed as its bytes.
  const OpRecord &reduce = op_at(p, 13);
  CHECK_FALSE(reduce.modelled);
  REQUIRE(reduce.opaque);
  CHECK(reduce.opaque->shaped == 2);
  CHECK(reduce.opaque->bytes == 576);
  CHECK(op_at(p, 15).name == "arith.addf");
  // Line 23: `outs(%0 : tensor<64xf32>) {` is an operand group, not the region's arguments
  // (%0 is defined once, at line 22); the region's own argument is ^bb0's %out.
  const OpRecord &generic = op_at(p, 23);
  REQUIRE(generic.opaque);
  CHECK(generic.opaque->shaped == 1);
  CHECK(generic.opaque->bytes == 256);
}

TEST_CASE("invalid IR the verifier can see is refused with its line") {
  const std::string text = fixture("invalid.mlir");
  // Lines 3-4: #a = #b, #b = #a.
  Refusal cycle = refusal(text, select("f"));
  CHECK(cycle.kind == "source");
  CHECK((cycle.line == 3 || cycle.line == 4));
  CHECK(cycle.message.find("refers to itself") != std::string::npos);
  // Line 10: three operands, two operand types.
  Refusal counts = refusal(text, select("g"));
  CHECK(counts.line == 10);
  CHECK(counts.message.find("has 3 operand(s) but its type lists 2 operand type(s)") != std::string::npos);
  // Lines 14 and 17: @h twice in one input.
  Refusal twice = refusal(text, select("h"));
  CHECK(twice.line == 17);
  CHECK(twice.message.find("already defined at line 14") != std::string::npos);
}

TEST_CASE("ops their definitions refuse are refused with their line") {
  const std::string text = fixture("invalid_ops.mlir");
  const std::vector<std::tuple<std::string, uint32_t, std::string>> cases = {
      {"elem", 4, "the same element type, not f32 and f16"},
      {"rank", 9, "the same rank, not 3 and 2"},
      {"shape", 14, "the same shape (dimension 1: 16 and 32)"},
      {"kinds", 19, "both memrefs or both tensors"},
      {"gm_gm", 24, "a copy from GM to GM is not supported"},
      {"store_ub", 29, "a store writes UB to GM"},
      {"no_address", 34, "no address"},
      {"lock", 39, "static shape"},
  };
  for (const auto &[kernel, line, why] : cases) {
    INFO(kernel);
    Refusal r = refusal(text, select(kernel));
    CHECK(r.kind == "source");
    CHECK(r.line == line);
    CHECK(r.message.find(why) != std::string::npos);
  }
  // Line 46: a load that pads may have shapes that differ: 16 f16 read, 32 B.
  Program padded = analyze_text(text, select("padded"));
  CHECK(value(op_at(padded, 46).totals().bytes) == 32);
}

TEST_CASE("MIX: cube ops on the AIC, vector ops on the AIV; the AIV part shared by the block's vector cores") {
  AnalysisOptions o;
  o.vector_cores_per_cube_core = 2;
  Program p = analyze_text(fixture("mix.mlir"), o);
  // One function in the IR, two parts in the program.
  REQUIRE(p.functions.size() == 2);
  CHECK(p.functions[0].name == "@mix");
  CHECK(p.functions[0].core == CoreType::AIC);
  CHECK(p.functions[0].mix_part == "aic");
  CHECK(p.functions[0].core_source.find("MIX") != std::string::npos);
  CHECK(p.functions[1].name == "@mix");
  CHECK(p.functions[1].core == CoreType::AIV);
  CHECK(p.functions[1].instances_per_block == 2);
  // Line 6 mmadL1 (16x16x16: 2*16^3 = 8192 FLOP) on the AIC; line 7 vadd on the AIV, once per block.
  CHECK(op_at(p, 6).core == CoreType::AIC);
  CHECK(value(op_at(p, 6).totals().flop) == 8192);
  CHECK(op_at(p, 7).core == CoreType::AIV);
  CHECK(op_at(p, 7).count.min == 1);
  // Lines 8-9: sync_block_set on the core it names (CUBE), the wait on VECTOR.
  CHECK(op_at(p, 8).core == CoreType::AIC);
  CHECK(op_at(p, 9).core == CoreType::AIV);
  // Line 4: a constant either core may hold: on no core.
  CHECK(op_at(p, 4).core == CoreType::Unknown);
}

TEST_CASE("functions without a core type: inferred from their ops; a MIX function of no core is named") {
  const std::string text = fixture("untyped.mlir");
  Program p = analyze_text(text, {});
  // @both (line 4): an mmadL1 and a vexp: a mix kernel (two parts). @vector_only (line 11): AIV.
  // @either (line 15): a tensor load either core could do: AIV, as the compiler's InferFuncCoreType
  // makes a function whose ops constrain neither core. @mix_scalar (line 19): MIX, with no op that
  // needs a particular core: on no core, named.
  std::vector<std::pair<std::string, CoreType>> seen;
  for (const FunctionRecord &f : p.functions) seen.emplace_back(f.name, f.core);
  CHECK(seen == std::vector<std::pair<std::string, CoreType>>{{"@both", CoreType::AIC},
                                                            {"@both", CoreType::AIV},
                                                            {"@vector_only", CoreType::AIV},
                                                            {"@either", CoreType::AIV},
                                                            {"@mix_scalar", CoreType::Unknown}});
  CHECK(p.functions[3].core_source.find("InferFuncCoreType") != std::string::npos);
  // Line 16: the load reads GM into the vector core's UB: 4096 f32 = 16 KiB.
  const OpRecord &load = op_at(p, 16);
  CHECK(load.modelled);
  CHECK(load.dst == Space::UB);
  CHECK(value(load.totals().bytes) == 16384);
  CHECK(has_warning(p, "function @mix_scalar (line 19) has no core type"));
  CHECK(op_at(p, 20).core == CoreType::Unknown);
  // Alone, the function that no core can be put on is refused with its line.
  Refusal alone = refusal(text, select("mix_scalar"));
  CHECK(alone.kind == "source");
  CHECK(alone.line == 19);
  CHECK(alone.message.find("has no core type") != std::string::npos);
  // The core a single op needs.
  OpRecord r;
  r.pipes = {Pipe::MTE2};
  r.dst = Space::L1;
  CHECK(analysis::core_needed(r) == CoreType::AIC);
  r.dst = Space::UB;
  CHECK(analysis::core_needed(r) == CoreType::AIV);
  r.dst = Space::Unknown;
  CHECK(analysis::core_needed(r) == CoreType::Unknown);
}

TEST_CASE("ops the table does not know are listed with their operands' bytes, never dropped") {
  Program p = analyze_text(fixture("opaque.mlir"), {});
  // Line 9: hivm.hir.frobnicate on two 1024 f32 UB buffers: 8192 B.
  const OpRecord &frob = op_at(p, 9);
  CHECK_FALSE(frob.modelled);
  REQUIRE(frob.opaque);
  CHECK(frob.opaque->shaped == 2);
  CHECK(frob.opaque->bytes == 8192);
  CHECK(frob.opaque->reason == "op not modelled: hivm.hir.frobnicate");
  REQUIRE(unmodelled(p, "hivm.hir.frobnicate"));
  CHECK(unmodelled(p, "hivm.hir.frobnicate")->lines == std::vector<uint32_t>{9});
  // Line 10: the custom op, by its symbol, with its 8-byte flag (the i64 is no shaped operand).
  const OpRecord &custom = op_at(p, 10);
  REQUIRE(custom.opaque);
  CHECK(custom.opaque->reason == "op not modelled: hivm.hir.custom \"dist.wait_flag_gm\"");
  CHECK(custom.opaque->shaped == 1);
  CHECK(custom.opaque->bytes == 8);
  CHECK(custom.opaque->core == CoreType::AIV);
  // Line 11: atomic_xchg: 4096 B in UB and 4096 B in GM.
  REQUIRE(op_at(p, 11).opaque);
  CHECK(op_at(p, 11).opaque->bytes == 8192);
  // Line 12: an op without operands: listed, no work.
  REQUIRE(op_at(p, 12).opaque);
  CHECK(op_at(p, 12).opaque->shaped == 0);
  // The vadd beside them is modelled as before: 1024 f32 = 16 repeats.
  CHECK(value(op_at(p, 8).totals().repeats) == 16);
  // Line 16: a copy from L1 to UB: no pipe is known for it: listed with its reason and 512 B.
  const OpRecord &copy = op_at(p, 16);
  CHECK_FALSE(copy.modelled);
  REQUIRE(copy.opaque);
  CHECK(copy.opaque->reason == "copy between address spaces with no known pipe");
  CHECK(copy.opaque->bytes == 512);
}

TEST_CASE("ops modelled from their definitions: mmadmxL1, matmul, tensor DMA, memrefs without a space") {
  Program p = analyze_text(fixture("modelled.mlir"), {});
  // Line 8: mmadmxL1, real M, K, N = 64, 32, 64 (ins 5-7, after the two scales): 2*64*32*64 FLOP.
  const OpRecord &mx = op_at(p, 8);
  CHECK(mx.modelled);
  CHECK(mx.cls == OpClass::Cube);
  CHECK(value(mx.totals().flop) == 262144);
  CHECK(mx.m.optional() == 64);
  CHECK(mx.k.optional() == 32);
  // Line 9: matmul of A 128x256 by B 256x64: 2*128*256*64 FLOP on the cube.
  const OpRecord &mm = op_at(p, 9);
  CHECK(mm.modelled);
  CHECK(mm.cls == OpClass::Cube);
  CHECK(value(mm.totals().flop) == 4194304);
  // Line 14: a tensor load in an AIV function reads GM into UB: 4096 f32 = 16 KiB.
  const OpRecord &load = op_at(p, 14);
  CHECK(load.modelled);
  CHECK(load.src == Space::GM);
  CHECK(load.dst == Space::UB);
  CHECK(value(load.totals().bytes) == 16384);
  // Line 15: the tensor store writes UB to GM on MTE3.
  CHECK(op_at(p, 15).pipes == PipeList{Pipe::MTE3});
  CHECK(op_at(p, 15).dst == Space::GM);
  // Lines 17-19: memrefs without an address space: the argument is GM, the alloc UB.
  CHECK(op_at(p, 17).pipes == PipeList{Pipe::MTE2});
  CHECK(std::string(op_at(p, 17).path_name) == "gm_to_ub");
  CHECK(value(op_at(p, 17).totals().bytes) == 4096);
  CHECK(op_at(p, 18).pipes == PipeList{Pipe::V});
  CHECK(op_at(p, 19).pipes == PipeList{Pipe::MTE3});
}

TEST_CASE("report: an unknown op with work on the binding core is listed and the verdict warns") {
  pbtest::TempDir tmp;
  const std::string dump = (std::filesystem::path(PB_HIVM_TEST_DATA) / "conformance" / "opaque.mlir").string();
  auto r = pbtest::run_cli({"run", (pbtest::source_dir() / "pipelines" / "bound_hivm.toml").string(), "--set",
                            "hivm=" + dump, "--set", "launch.grid=[1]", "--out", tmp.path().string(), "--format", "json"});
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  json report = json::parse(pbtest::read_file(tmp / "bound.json"));
  const json &coverage = report["coverage"]["hivm"];
  auto listed = [&](int line, const std::string &op) {
    for (const json &u : coverage["not_counted"])
      if (u["line"] == line && u["op"] == op) return u;
    return json();
  };
  // Line 9: frobnicate, on the AIV, with its bytes.
  json frob = listed(9, "hivm.hir.frobnicate");
  REQUIRE(frob.is_object());
  CHECK(frob["core"] == "aiv");
  CHECK(frob["component"] == "unmodelled");
  CHECK(frob["reason"].get<std::string>().find("8192 B") != std::string::npos);
  CHECK(listed(10, "hivm.hir.custom").is_object());
  CHECK(listed(11, "hivm.hir.atomic_xchg").is_object());
  CHECK(listed(12, "hivm.hir.anchor").is_object());  // listed, no work
  CHECK(listed(16, "hivm.hir.copy").is_object());    // a copy with no known pipe
  CHECK(coverage["share"].get<double>() < 1.0);
  // The only core is the AIV, so whatever binds, its unmodelled work is named in the verdict.
  REQUIRE(report["verdict"].contains("coverage"));
  // "the bound counts 1 of 5 VECTOR ops: 1 is not counted: ..., 3 more for other reasons"
  CHECK(report["verdict"]["coverage"].get<std::string>().find("1 of 5 VECTOR ops") != std::string::npos);
  CHECK(report["verdict"]["coverage"].get<std::string>().find("is not counted") != std::string::npos);
}
