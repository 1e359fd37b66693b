//===- test_document.cpp - the hivm_program document, renderer, DES, CLI ---===//
#include <doctest/doctest.h>

#include "des_import.hpp"
#include "document.hpp"
#include "hivm_test_util.hpp"
#include "support/schema_support.hpp"
#include "render.hpp"

using namespace pb::hivm;
using hivmtest::op_at;
using hivmtest::value;
using json = nlohmann::json;

namespace {

void check_valid(const json &doc) { pbtest::check_schema_valid(doc, kProgramSchema); }

json document(const std::string &text, const AnalysisOptions &o) {
  return to_json(analyze_text(text, o), {"test", text.size()}, o);
}

std::string example_dump() { return pbtest::read_file(pbtest::source_dir() / "examples/kernels/vector_add/vector_add.npuir.mlir"); }

AnalysisOptions vector_add_launch() {
  // n = 16M f32, grid = cdiv(n, 2048) = 8192; n_elements is Triton argument 3.
  return hivmtest::launch({8192}, {{"3", 16777216}});
}

}  // namespace

TEST_CASE("the bundled vector_add example: per-block totals derived by hand") {
  json doc = document(example_dump(), vector_add_launch());
  check_valid(doc);
  CHECK(doc["blocks"]["value"] == 8192);
  const json &aiv = doc["totals"]["per_block"]["aiv"];
  // Two 2048 f32 loads (8192 B each, one contiguous run) and one store.
  REQUIRE(aiv["mte"].size() == 2);
  CHECK(aiv["mte"][0]["pipe"] == "MTE2");
  CHECK(aiv["mte"][0]["path"] == "gm_to_ub");
  CHECK(aiv["mte"][0]["packet_bytes"] == 8192);
  CHECK(aiv["mte"][0]["bytes"] == 16384);
  CHECK(aiv["mte"][0]["transfers"] == 2);
  CHECK(aiv["mte"][1]["pipe"] == "MTE3");
  CHECK(aiv["mte"][1]["bytes"] == 8192);
  // One vadd over 2048 f32: 2048 * 4 / 256 = 32 repeats, 2048 FLOP; the two tail fills do not run (n % 2048 == 0).
  CHECK(aiv["vector"]["repeats"] == 32);
  CHECK(aiv["vector"]["flop"] == 2048);
  CHECK(aiv["vector"]["by_class"]["vector_arith"]["executions"] == 1);
  CHECK(aiv["cube"]["flop"] == 0);
  // Scalar work: 10 arith/cast/compare ops (4 muli, trunci, divsi, remsi, 2 index_cast, cmpi), affine max 1 +
  // min 2 + apply 1 = 4, 3 reinterpret_cast with one dynamic offset and 6 subview with one dynamic size = 9
  // address instructions, set_mask_norm + get_block_idx = 2, 2 scf.if + return = 3: 10 + 4 + 9 + 2 + 3 = 28.
  CHECK(aiv["scalar"]["instructions"] == 28);
  CHECK(aiv["scalar"]["by_kind"]["address"] == 13);  // the 4 affine and 9 view instructions
  // Issued: 28 scalar + 3 DMA + 1 vadd + the executed set/wait pairs MTE2->V and V->MTE3 (4) + 1 barrier = 37.
  CHECK(aiv["issued_instructions"] == 37);
  CHECK(aiv["sync"]["pipe_barrier"] == 1);
  CHECK(doc["totals"]["per_grid"]["aiv"]["mte"][0]["bytes"] == 16384LL * 8192);
  // Component edges: loads -> vadd (data), vadd -> store (data).
  bool mte2_to_vector = false, vector_to_mte3 = false;
  for (const json &e : doc["sync"]["component_edges"]) {
    if (e["producer"] == "aiv.mte2" && e["consumer"] == "aiv.vector") mte2_to_vector = e["mandatory"] && e["multiplicity"] == 1;
    if (e["producer"] == "aiv.vector" && e["consumer"] == "aiv.mte3") vector_to_mte3 = e["mandatory"] && e["multiplicity"] == 1;
  }
  CHECK(mte2_to_vector);
  CHECK(vector_to_mte3);
}

TEST_CASE("the generic printed form gives the same numbers as the custom form") {
  AnalysisOptions o = vector_add_launch();
  Program generic = analyze_text(hivmtest::test_data("vector_add.generic.mlir"), o);
  Program custom = analyze_text(example_dump(), o);
  REQUIRE(generic.functions.size() == 1);
  CHECK(generic.functions[0].name == "@add_kernel");
  CHECK(generic.functions[0].core == CoreType::AIV);
  CHECK(generic.functions[0].args.size() == 10);
  auto sums = [](const Program &p) {
    std::map<std::string, int64_t> s;
    for (const OpRecord &r : p.ops) {
      if (r.cls == OpClass::Dma) s[std::string("bytes.") + pipe_name(r.pipes[0])] += hivmtest::value(r.totals().bytes_block);
      if (r.totals().repeats_block.value) s["repeats"] += *r.totals().repeats_block.value;
      if (r.totals().flop_block.value) s["flop"] += *r.totals().flop_block.value;
    }
    return s;
  };
  CHECK(sums(generic) == sums(custom));
  CHECK(sums(generic)["bytes.MTE2"] == 16384);
  // Flags read from properties.
  const OpRecord &set = op_at(generic, 24);
  REQUIRE(set.sync);
  CHECK(set.sync->from == Pipe::MTE2);
  CHECK(set.sync->to == Pipe::V);
  CHECK(set.sync->event == 0);
  CHECK(generic.histogram.at("hivm.hir.pipe_barrier") == 1);
}

TEST_CASE("every real dump gives a document that validates against the published schema") {
  PBTEST_REQUIRE_SHARED();
  for (const char *name : {"chunk_kda.npuir.mlir", "seeded_serial_on.npuir.mlir", "amort_copy_128.npuir.mlir",
                           "amort_copy_512.npuir.mlir", "amort_copy_4096.npuir.mlir", "seeded_gap2_strided.npuir.mlir",
                           "seeded_gap2_coalesced.npuir.mlir", "ascendnpu-ir_IR_dma-ops.mlir", "ascendnpu-ir_IR_sync-ops.mlir",
                           "ascendnpu-ir_Integration_VecAdd_add.mlir", "ascendnpu-ir_inject-block-sync.mlir"}) {
    INFO(name);
    std::string text = hivmtest::shared_hivm(name);
    for (const std::string &kernel : hivmtest::kernels_of(text)) {  // each input of a lit file on its own
      INFO(kernel);
      try {
        check_valid(document(text, hivmtest::with_kernel({}, kernel)));
        check_valid(document(text, hivmtest::with_kernel(hivmtest::launch({128, 32}), kernel)));
      } catch (const SourceError &e) {
        // A lit input that is not a kernel (no core can be put on it) is refused naming its line.
        CHECK(std::string(e.what()).find("has no core type") != std::string::npos);
      }
    }
  }
}

TEST_CASE("chunk_kda per-block totals: cube, vector, scalar and sync counts per core") {
  PBTEST_REQUIRE_SHARED();
  json doc = document(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  const json &aic = doc["totals"]["per_block"]["aic"];
  const json &aiv = doc["totals"]["per_block"]["aiv"];
  // See test_corpus.cpp for the derivation: 11534336 FLOP; the 9 mmadL1 have 4 distinct (M, K, N):
  // (64,32,32) x3 ops, (64,32,64) L373/L421, (64,64,32) L384/L433, (64,64,64) L466/L480.
  CHECK(aic["cube"]["flop"] == 11534336);
  CHECK(aic["cube"]["by_dtype"]["bf16"]["flop"] == 11534336);
  CHECK(aic["cube"]["shapes"].size() == 4);
  CHECK(aic["instances_per_block"] == 1);
  CHECK(aiv["instances_per_block"] == 2);
  // Cross-core sync per block. aic: sync_block_set flag 2..9 at L195-202 (8 x 4 = 32) plus inside the inner loop
  // L265,271,277,282,288,294,301,307 (8 x 16 = 128), flag 0 after each fixpipe (3 x 16 + 2 x 4 + 2 x 4 + 1 = 65),
  // flag 14 at L389 (4): 32 + 128 + 65 + 4 = 229.
  CHECK(doc["sync"]["cross_core_counts"]["aic"]["sync_block_set"] == 229);
  // The per-block minimum drops the data-dependent loops: it can only be smaller.
  const json &aiv_min = doc["totals"]["per_block_min"]["aiv"];
  CHECK(aiv_min["scalar"]["instructions"].get<int64_t>() < aiv["scalar"]["instructions"].get<int64_t>());
  // Scalar GM loads on the aiv side: the 4 i64 loads of cu_seqlens (L631-642, 8 B, on 2 instances) = 64 B, and the
  // bf16 gathers L1048 and L1087 (32768 x 2 B each) and L1119 (65536 x 2 B, estimated): 65536 + 65536 + 131072.
  CHECK(aiv["scalar"]["gm_load_bytes"] == 262144 + 64);
}

TEST_CASE("renderer: text and Markdown summaries of a document") {
  json doc = document(example_dump(), vector_add_launch());
  auto text = render_program(doc, "text");
  auto md = render_program(doc, "md");
  REQUIRE(text);
  REQUIRE(md);
  CHECK_FALSE(render_program(doc, "html").has_value());
  CHECK(text->find("aiv: vector repeats 32, vector FLOP 2,048, cube FLOP 0, scalar instructions 28") != std::string::npos);
  CHECK(md->find("| MTE2 | gm_to_ub | 8,192 | 2 | 16,384 |") != std::string::npos);
  CHECK(md->find("| 56 | hivm.hir.vadd | aiv | 1 | 32 |") != std::string::npos);
  CHECK(text->find("Unmodelled ops\n--------------\nnone") != std::string::npos);
}

TEST_CASE("DES interop: records, counts and the known defects as warnings") {
  PBTEST_REQUIRE_SHARED();
  std::string des = pbtest::read_file(pbtest::shared_dir() / "data/hivm/des_json/amort_copy_128_des.json");
  REQUIRE(looks_like_des(des));
  CHECK_FALSE(looks_like_des(example_dump()));
  Program p = import_des(des, {});
  // The DES load record (line 39 of its filtered dump): 512 B, loop multiplier 32.
  const OpRecord &load = op_at(p, 39);
  CHECK(load.name == "hivm.hir.load");
  CHECK(load.count.value == 32);
  CHECK(value(load.totals().bytes) == 512);
  CHECK(value(load.totals().bytes_block) == 16384);
  bool flops_warning = false;
  for (const std::string &w : p.warnings) flops_warning = flops_warning || w.find("\"flops\" is 0 in every record") != std::string::npos;
  CHECK(flops_warning);
  // seeded_serial's DES carries bytes = 0 on its 2 loads and 2 stores: unknown, never 0.
  Program s = import_des(pbtest::read_file(pbtest::shared_dir() / "data/hivm/des_json/seeded_serial_on_des.json"), {});
  int unknown_bytes = 0;
  for (const OpRecord &r : s.ops)
    if (r.cls == OpClass::Dma && !r.totals().bytes.value) ++unknown_bytes;
  CHECK(unknown_bytes == 4);
  // The vector FLOP is unknown (null) with the DES defect as the reason.
  bool vmul_unknown = false;
  for (const OpRecord &r : s.ops)
    if (r.name == "hivm.hir.vmul") vmul_unknown = !r.totals().flop.value && r.totals().flop.reason.find("DES defect") == 0;
  CHECK(vmul_unknown);
  check_valid(to_json(s, {"des", 0}, {}));
  // Malformed DES JSON fails with its line.
  try {
    (void)import_des("{\"schema_version\": \"a3_hivm_des_v1\",\n \"operations\": [\n {\"name\": }\n]}", {});
    FAIL("no error");
  } catch (const SourceError &e) {
    CHECK(e.line() == 3);
  }
}

TEST_CASE("DES import: hostile graphs are SourceErrors naming the line or the operation") {
  auto error_of = [](const std::string &des) -> std::string {
    try {
      (void)import_des(des, {});
    } catch (const SourceError &e) {
      return std::to_string(e.line()) + ": " + e.what();
    }
    return "no error";
  };
  const std::string head = "{\"schema_version\": \"a3_hivm_des_v1\",\n \"operations\": [\n";
  // A number JSON cannot hold: the line of the literal.
  CHECK(error_of(head + "{\"name\": \"load\", \"pipe\": \"PIPE_MTE2\",\n \"bytes\": 1e999}]}").rfind("4: the DES graph holds a number", 0) == 0);
  // A member of the wrong type: the operation's index.
  CHECK(error_of(head + "{\"name\": \"load\", \"pipe\": \"PIPE_MTE2\"},\n {\"name\": 7, \"pipe\": \"PIPE_V\"}]}").find("in operation 1") !=
        std::string::npos);
  // Event ids that are not numbers, or beyond 64 bits.
  const std::string set_flag = "{\"name\": \"set_flag\", \"pipe\": \"PIPE_MTE2\", \"sender_pipe\": \"PIPE_MTE2\", \"receiver_pipe\": \"PIPE_V\", \"event_id\": ";
  CHECK(error_of(head + set_flag + "\"event_EVENT_IDx\"}]}").find("event_id \"event_EVENT_IDx\" is not an event number") != std::string::npos);
  CHECK(error_of(head + set_flag + "\"99999999999999999999\"}]}").find("is not an event number") != std::string::npos);
  CHECK(error_of(head + set_flag + "\"event_EVENT_ID3\"}]}") == "no error");
}

TEST_CASE("the plugin through the CLI: a run, and a garbled dump named by file and line") {
  pbtest::TempDir tmp;
  const std::string pipeline = (std::filesystem::path(PB_HIVM_TEST_DATA) / "hivm_program.toml").string();
  auto ok = pbtest::run_cli({"run", pipeline, "--set", "hivm=" + (pbtest::source_dir() / "examples/kernels/vector_add/vector_add.npuir.mlir").string(),
                             "--set", "launch={grid=[8192], args={\"3\"=16777216}}", "--out", tmp.path().string(), "--format", "md"});
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  json program = json::parse(pbtest::read_file(tmp / "program.json"));
  CHECK(program["schema"] == "perfbound.hivm_program/1");
  CHECK(program["totals"]["per_block"]["aiv"]["vector"]["repeats"] == 32);
  CHECK(ok.out.find("| MTE2 | gm_to_ub | 8,192 | 2 | 16,384 |") != std::string::npos);

  std::string garbled = pbtest::read_file(pbtest::source_dir() / "examples/kernels/vector_add/vector_add.npuir.mlir");
  garbled = garbled.substr(0, garbled.find("hivm.hir.vadd") + 30);  // cut inside the vadd's operand list
  pbtest::write_file(tmp / "cut.npuir.mlir", garbled);
  auto bad = pbtest::run_cli({"run", pipeline, "--set", "hivm=" + (tmp / "cut.npuir.mlir").string()});
  CHECK(bad.code == 3);  // a node refusing its input is invalid input (issue 26)
  // Line 56 holds the vadd whose 'ins(' is never closed.
  CHECK(bad.err.find((tmp / "cut.npuir.mlir").string() + ":56:") != std::string::npos);
  CHECK(bad.err.find("is never closed (is the dump truncated?)") != std::string::npos);
}

TEST_CASE("the plugin passes perfbound plugin check (examples, output schema, renderer)") {
  auto lib = pbtest::binary_dir() / "lib/perfbound/plugins/libperfbound_extract_hivm.so";
  auto r = pbtest::run_cli({"plugin", "check", lib.string()});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("[pass] kind 'hivm_program' example 'a truncated dump (an operand list left open)' run: returned PB_ERR_INVALID_INPUT") != std::string::npos);
  CHECK(r.out.find("[fail]") == std::string::npos);
}
