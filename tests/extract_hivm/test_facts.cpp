//===- test_facts.cpp - block minima, unknown loops and user-given facts ---===//
//
// Issue 13, extractor side: count.min and block_min over every block of the grid, the
// loops whose trip count nothing in the IR gives (unknown_loop, hint, fact_key), and the
// launch facts `trips` and `data` with their `given` overlay and refusals. The dumps in
// data/ are written by us; every expected number is derived in the comment beside it.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <filesystem>

#include "document.hpp"
#include "facts.hpp"
#include "hivm_test_util.hpp"
#include "support/schema_support.hpp"

using namespace pb::hivm;
using hivmtest::op_at;
using hivmtest::value;
using json = nlohmann::json;

namespace {

json document_of(const std::string &text, const AnalysisOptions &o) {
  json doc = to_json(analyze_text(text, o), {"test", text.size()}, o);
  pbtest::check_schema_valid(doc, kProgramSchema);
  return doc;
}

const json &op_json(const json &doc, uint32_t line) {
  for (const json &op : doc["ops"])
    if (op["line"] == line) return op;
  FAIL("no op on line " << line);
  throw std::logic_error("unreachable");
}

const json &loop_json(const json &doc, uint32_t line) {
  for (const json &l : doc["loops"])
    if (l["line"] == line) return l;
  FAIL("no loop on line " << line);
  throw std::logic_error("unreachable");
}

AnalysisOptions with_launch(json launch) {
  AnalysisOptions o;
  apply_launch(launch, o);
  return o;
}

/// The SourceError message and line a text and options produce ("" when none).
std::pair<uint32_t, std::string> source_error(const std::string &text, const AnalysisOptions &o) {
  try {
    (void)analyze_text(text, o);
  } catch (const SourceError &e) {
    return {e.line(), e.what()};
  }
  return {0, ""};
}

std::string fact_error(const std::string &text, const AnalysisOptions &o) {
  try {
    (void)analyze_text(text, o);
  } catch (const FactError &e) {
    return e.what();
  }
  return "";
}

std::string launch_error(const json &launch) {
  try {
    AnalysisOptions o;
    apply_launch(launch, o);
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}

/// A minimal .npy (format 1.0) with the given dtype and little-endian payload.
std::string npy(const std::string &descr, const std::string &shape, const std::string &payload) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + payload;
}

std::string le32(std::initializer_list<int32_t> values) {
  std::string out;
  for (int32_t v : values)
    for (int b = 0; b < 4; ++b) out += static_cast<char>((static_cast<uint32_t>(v) >> (8 * b)) & 0xff);
  return out;
}

}  // namespace

TEST_CASE("uneven block split: count.min and block_min are the fewest over every block, grid sums exact") {
  const std::string text = hivmtest::test_data("uneven_split.npuir.mlir");
  Program p = analyze_text(text, hivmtest::launch({8}));
  // Loop A (line 26): trip = select(block < 3, 5, 4): blocks 0..2 run 5 iterations, blocks 3..7 run 4.
  const OpRecord &load_a = op_at(p, 29);
  CHECK(load_a.count.value == 5);      // block 0, as before
  CHECK(load_a.count.min == 4);        // the fewest over the 8 blocks
  CHECK(load_a.count.last_block == 4);
  CHECK_FALSE(load_a.count.exact);
  CHECK(value(load_a.count_grid) == 35);  // 3 x 5 + 5 x 4
  CHECK_FALSE(load_a.count_grid.estimated());
  CHECK(value(load_a.totals().bytes_grid) == 35 * 256);
  // 64 f32 per load = 256 B; the guaranteed minimum per block: 4 loads = 1024 B, 4 issued DMA instructions.
  CHECK(load_a.block_min.count == 4);
  CHECK(load_a.block_min.bytes == 1024);
  CHECK(load_a.block_min.issued == 4);
  // vadd over 64 f32: 1 repeat and 64 FLOP per execution.
  const OpRecord &vadd = op_at(p, 30);
  CHECK(vadd.block_min.repeats == 4);
  CHECK(vadd.block_min.flop == 256);
  // The loop op: 1 entry + 2 per iteration, at least 1 + 2 x 4 = 9 scalar instructions per block.
  CHECK(op_at(p, 26).block_min.scalar == 9);
  CHECK(op_at(p, 26).block_min.count == 1);
  // Loop B (line 34): select(block == 2, 3, 5): block 0 and the last block both run 5, so the old
  // block-0 minimum (5, "exact") was wrong; block 2 runs 3.
  const OpRecord &load_b = op_at(p, 37);
  CHECK(load_b.count.value == 5);
  CHECK(load_b.count.last_block == 5);
  CHECK(load_b.count.min == 3);
  CHECK_FALSE(load_b.count.exact);
  CHECK(load_b.count.reason.find("the fewest executions over every block is 3") != std::string::npos);
  CHECK(value(load_b.count_grid) == 38);  // 7 x 5 + 3
  CHECK(load_b.block_min.bytes == 768);
  // A block-independent op: block_min = count.min x per execution (set_mask_norm: 1 instruction).
  CHECK(op_at(p, 17).block_min.count == 1);
  CHECK(op_at(p, 17).block_min.scalar == 1);

  // Beyond the enumeration budget the block index is the interval [0, 7]: select(block == 2, 3, 5)
  // gives 3..5, select(block < 3, 5, 4) gives 4..5 -- the same minima, soundly.
  AnalysisOptions small = hivmtest::launch({8});
  small.grid_budget = 1;
  Program q = analyze_text(text, small);
  CHECK(op_at(q, 37).count.min == 3);
  CHECK(op_at(q, 29).count.min == 4);
  CHECK(op_at(q, 37).block_min.bytes == 768);
  // Without a grid the block index is [0, inf): still the fewest any block can run.
  Program blind = analyze_text(text, {});
  CHECK(op_at(blind, 37).count.min == 3);

  json doc = document_of(text, hivmtest::launch({8}));
  CHECK(op_json(doc, 29)["block_min"] == json::parse(R"({"count":4,"bytes":1024,"issued_instructions":4,"scalar_instructions":0})"));
  CHECK(op_json(doc, 29)["count"]["min"] == 4);
  CHECK(op_json(doc, 29)["grid"]["count"] == 35);
  // Block-dependent trip counts are not exact: their loops name the fact that would pin them.
  CHECK(loop_json(doc, 26)["fact_key"] == "trips.\"26\"");
  CHECK_FALSE(op_json(doc, 29)["count"].contains("unknown_loop"));  // enumerable: not unknown
}

TEST_CASE("a loop bounded by a loaded value: unknown_loop and hint without facts") {
  const std::string text = hivmtest::test_data("loaded_bound.npuir.mlir");
  Program p = analyze_text(text, hivmtest::launch({4}));
  // Line 22: scf.for 0 to counts[block]: nothing in the IR bounds it (0 .. unbounded).
  for (uint32_t line : {23U, 24U, 25U, 26U}) {
    INFO("line " << line);
    const OpRecord &r = op_at(p, line);
    CHECK(r.count.min == 0);
    CHECK_FALSE(r.count.known);
    CHECK(r.count.unknown_loop == 22);
    CHECK(r.block_min.count == 0);
  }
  CHECK(op_at(p, 22).count.unknown_loop == 0);  // the loop op itself runs once per block
  CHECK(op_at(p, 19).count.unknown_loop == 0);
  json doc = document_of(text, hivmtest::launch({4}));
  CHECK(op_json(doc, 25)["count"]["unknown_loop"] == 22);
  CHECK(op_json(doc, 25)["count"]["hint"] == "give trips.\"22\"");
  CHECK(op_json(doc, 25)["block_min"]["count"] == 0);
  // Nothing surely runs in the loop: no byte is guaranteed.
  CHECK(op_json(doc, 25)["block_min"].value("bytes", 0) == 0);
  CHECK(loop_json(doc, 22)["fact_key"] == "trips.\"22\"");
  CHECK_FALSE(doc.contains("given_facts"));
  CHECK_FALSE(op_json(doc, 25).contains("given"));
}

TEST_CASE("a trips fact: the given overlay counts the loop, the strict fields stay as they were") {
  const std::string text = hivmtest::test_data("loaded_bound.npuir.mlir");
  json strict = document_of(text, hivmtest::launch({4}));
  AnalysisOptions o = with_launch(json::parse(R"({"grid":[4],"trips":{"22":{"min":2}}})"));
  json doc = document_of(text, o);
  const json &load = op_json(doc, 25);
  // Strict members: byte-identical to the run without the fact.
  for (const char *key : {"count", "block_min", "block", "grid", "instance", "exec"}) {
    INFO(key);
    CHECK(load[key] == op_json(strict, 25)[key]);
  }
  REQUIRE(load.contains("given"));
  CHECK(load["given"]["facts"] == json::array({"trips.\"22\""}));
  // At least 2 iterations per block: 2 loads of 256 B.
  CHECK(load["given"]["count"]["min"] == 2);
  CHECK_FALSE(load["given"]["count"].contains("unknown_loop"));
  CHECK(load["given"]["block_min"]["count"] == 2);
  CHECK(load["given"]["block_min"]["bytes"] == 512);
  CHECK(op_json(doc, 26)["given"]["block_min"]["repeats"] == 2);
  CHECK(op_json(doc, 26)["given"]["block_min"]["flop"] == 128);
  // The loop op's control: 1 + 2 x 2 = 5 instructions at least.
  CHECK(op_json(doc, 22)["given"]["block_min"]["scalar_instructions"] == 5);
  // Ops outside the loop are unchanged and carry no overlay.
  CHECK_FALSE(op_json(doc, 19).contains("given"));
  REQUIRE(doc["given_facts"].size() == 1);
  const json &fact = doc["given_facts"][0];
  CHECK(fact["key"] == "trips.\"22\"");
  CHECK(fact["fact"] == json::parse(R"({"min":2})"));
  CHECK(fact["lines"] == json::array({22}));
  // Changed: the loop op (22), affine.apply (23), reinterpret_cast (24), load (25), vmul (26).
  CHECK(fact["ops"] == 5);
  // "hivm:22" is the same key; "ttir:N" keys belong to the TTIR extractor and are ignored.
  AnalysisOptions o2 = with_launch(json::parse(R"({"grid":[4],"trips":{"hivm:22":{"min":2},"ttir:7":{"min":1}}})"));
  json doc2 = document_of(text, o2);
  CHECK(op_json(doc2, 25)["given"]["count"]["min"] == 2);
  CHECK(doc2["given_facts"].size() == 1);
  // A sum per block: 6 iterations in all (one entry per block): 6 loads.
  AnalysisOptions o3 = with_launch(json::parse(R"({"grid":[4],"trips":{"22":{"sum":6,"over":"block"}}})"));
  json doc3 = document_of(text, o3);
  CHECK(op_json(doc3, 25)["given"]["count"]["min"] == 6);
  CHECK(op_json(doc3, 25)["given"]["count"]["value"] == 6);
  CHECK(op_json(doc3, 25)["given"]["grid"]["count"] == 24);
  // A sum over the grid: 12 iterations over 4 blocks of one entry each, 3 per entry for the value;
  // no block is guaranteed any (the minimum stays 0).
  AnalysisOptions o4 = with_launch(json::parse(R"({"grid":[4],"trips":{"22":{"sum":12,"over":"grid"}}})"));
  json doc4 = document_of(text, o4);
  CHECK(op_json(doc4, 25)["given"]["count"]["value"] == 3);
  CHECK(op_json(doc4, 25)["given"]["count"]["min"] == 0);
  CHECK(op_json(doc4, 25)["given"]["grid"]["count"] == 12);
  CHECK(op_json(doc4, 25)["given"]["count"]["unknown_loop"] == 22);  // still not guaranteed in any block
  CHECK(doc4["given_facts"][0]["fact"] == json::parse(R"({"sum":12,"over":"grid"})"));
}

TEST_CASE("a data fact: loads from a given tensor evaluate per block") {
  const std::string text = hivmtest::test_data("loaded_bound.npuir.mlir");
  // counts = [3, 1, 4, 1]: block b runs counts[b] iterations.
  AnalysisOptions o = with_launch(json::parse(R"({"grid":[4],"data":{"0":[3,1,4,1]}})"));
  Program p = analyze_text(text, o);
  REQUIRE(p.given);
  const OpRecord &strict = op_at(p, 25);
  CHECK(strict.count.min == 0);  // strict: unchanged
  const OpRecord &given = p.given->ops[strict.id];
  CHECK(given.count.value == 3);                // block 0
  CHECK(given.count.min == 1);                  // the fewest: blocks 1 and 3
  CHECK(given.count.last_block == 1);
  CHECK(value(given.count_grid) == 9);          // 3 + 1 + 4 + 1, every block enumerated
  CHECK_FALSE(given.count_grid.estimated());
  CHECK(value(given.totals().bytes_grid) == 9 * 256);
  CHECK(given.block_min.bytes == 256);
  json doc = document_of(text, o);
  CHECK(op_json(doc, 25)["given"]["facts"] == json::array({"data.\"0\""}));
  CHECK(op_json(doc, 25)["given"]["grid"]["count"] == 9);
  REQUIRE(doc["given_facts"].size() == 1);
  CHECK(doc["given_facts"][0]["key"] == "data.\"0\"");
  CHECK(doc["given_facts"][0]["lines"] == json::array({19}));  // the load of counts[block]
  CHECK(doc["given_facts"][0]["fact"] == json::parse(R"({"elements":4,"values":[3,1,4,1]})"));
  // "%arg0" is the same position; from a .npy file as well.
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "counts.npy", npy("<i4", "(4,)", le32({3, 1, 4, 1})));
  AnalysisOptions from_file;
  from_file.have_launch = true;
  from_file.grid = {4};
  DataFact d;
  d.key = "%arg0";
  d.values = read_npy_integers((tmp / "counts.npy").string());
  d.source = (tmp / "counts.npy").string();
  from_file.data.push_back(d);
  Program f = analyze_text(text, from_file);
  CHECK(value(f.given->ops[strict.id].count_grid) == 9);
}

TEST_CASE("facts the IR contradicts are refused with the dump line") {
  const std::string loaded = hivmtest::test_data("loaded_bound.npuir.mlir");
  const std::string uneven = hivmtest::test_data("uneven_split.npuir.mlir");
  // A trips key on a line with no loop.
  auto [line1, msg1] = source_error(loaded, with_launch(json::parse(R"({"grid":[4],"trips":{"23":{"min":1}}})")));
  CHECK(line1 == 23);
  CHECK(msg1 == "launch trips.\"23\": no scf.for on line 23 of the dump");
  // A min above what the bounds allow: loop A runs 4 or 5 times.
  auto [line2, msg2] = source_error(uneven, with_launch(json::parse(R"({"grid":[8],"trips":{"26":{"min":64}}})")));
  CHECK(line2 == 26);
  CHECK(msg2 == "launch trips.\"26\": min = 64 cannot hold: the loop runs at most 5 times per entry");
  // A max below what the bounds force.
  auto [line3, msg3] = source_error(uneven, with_launch(json::parse(R"({"grid":[8],"trips":{"34":{"max":2}}})")));
  CHECK(line3 == 34);
  CHECK(msg3.find("max = 2 cannot hold: the loop runs at least 3 times per entry") != std::string::npos);
  // A data index out of range: block 1 reads counts[1] of a one-element tensor.
  auto [line4, msg4] = source_error(loaded, with_launch(json::parse(R"({"grid":[4],"data":{"0":[3]}})")));
  CHECK(line4 == 19);
  CHECK(msg4 == "launch data.\"0\": this load reads element 1, outside the 1 elements given (inline)");
  // A data key naming no argument, and one naming a scalar.
  CHECK(fact_error(loaded, with_launch(json::parse(R"({"grid":[4],"data":{"7":[1]}})"))) ==
        "launch data.\"7\": @loaded_bound has no Triton argument 7 (3 positions)");
  CHECK(fact_error(loaded, with_launch(json::parse(R"({"grid":[4],"data":{"2":[1]}})"))) ==
        "launch data.\"2\": Triton argument 2 of @loaded_bound (%arg4: i32) is a scalar, not a tensor");
  // A name the dump cannot resolve (no names in it, no TTIR signature given)
  // is refused (issue 26: before, a warning and the fact silently unused),
  // unless listed as optional.
  CHECK(fact_error(loaded, with_launch(json::parse(R"({"grid":[4],"data":{"counts":[1,1,1,1]}})"))) ==
        "launch data.\"counts\": names no argument of @loaded_bound: the HIVM dump carries no argument names and no TTIR "
        "signature is wired in; key the tensor by its Triton position (\"N\"), or list it in launch.optional_args");
  CHECK(fact_error(loaded, with_launch(json::parse(R"({"grid":[4],"data":{"counts":[1,1,1,1]},"optional_args":["counts"]})"))) == "");
  // With the names of the TTIR signature (pipelines/bound.toml), the name is position 0.
  AnalysisOptions by_name = with_launch(json::parse(R"({"grid":[4],"data":{"counts":[3,1,4,1]}})"));
  by_name.arg_names["counts"] = 0;
  by_name.arg_names_source = "a test signature";
  json doc = document_of(loaded, by_name);
  CHECK(doc["given_facts"][0]["key"] == "data.\"counts\"");
}

TEST_CASE("malformed facts in the launch document name the key") {
  CHECK(launch_error(json::parse(R"({"grid":[1],"trips":{"abc":{"min":1}}})")).find("trips.\"abc\": the key is not a dump line") == 0);
  CHECK(launch_error(json::parse(R"({"grid":[1],"trips":{"22":{"mn":1}}})")) == "trips.\"22\".mn: unknown member (min, max, sum, over)");
  CHECK(launch_error(json::parse(R"({"grid":[1],"trips":{"22":{"min":-1}}})")) == "trips.\"22\".min: a trip count cannot be negative");
  CHECK(launch_error(json::parse(R"({"grid":[1],"trips":{"22":{"sum":4,"over":"core"}}})")) == "trips.\"22\".over: expected \"block\" or \"grid\"");
  CHECK(launch_error(json::parse(R"({"grid":[1],"data":{"0":[1,2.5]}})")) == "data.\"0\"[1]: expected a whole number");
  CHECK(launch_error(json::parse(R"({"grid":[1],"data":{"0":"x"}})")).find("data.\"0\": expected an array") == 0);
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "f.npy", npy("<f4", "(2,)", le32({0, 0})));
  const std::string path = (tmp / "f.npy").string();
  CHECK(launch_error({{"grid", {1}}, {"data", {{"0", {{"npy", path}}}}}}) ==
        "data.\"0\".npy: " + path + ": not a readable integer .npy file: dtype '<f4' is not an integer type (int8..int64, uint8..uint64, bool)");
  CHECK(launch_error({{"grid", {1}}, {"data", {{"0", {{"npy", (tmp / "missing.npy").string()}}}}}}) ==
        "data.\"0\".npy: " + (tmp / "missing.npy").string() + ": cannot read the .npy file: no such file");
  // A device is refused at once, never read without end.
  CHECK(launch_error({{"grid", {1}}, {"data", {{"0", {{"npy", "/dev/zero"}}}}}}) ==
        "data.\"0\".npy: /dev/zero: cannot read the .npy file: not a regular file (a device, FIFO or socket is never read as input)");
  // Integer widths and byte orders.
  pbtest::write_file(tmp / "i8.npy", npy("|i1", "(3,)", std::string("\x01\xff\x7f", 3)));
  CHECK(read_npy_integers((tmp / "i8.npy").string()) == std::vector<int64_t>{1, -1, 127});
  pbtest::write_file(tmp / "b.npy", npy(">i4", "(1, 2)", std::string("\x00\x00\x01\x00\xff\xff\xff\xfe", 8)));
  CHECK(read_npy_integers((tmp / "b.npy").string()) == std::vector<int64_t>{256, -2});
}

TEST_CASE("real dumps: every op has block_min.count = count.min; chunk_kda's third gather loop is named") {
  PBTEST_REQUIRE_SHARED();
  size_t files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(pbtest::shared_dir() / "data" / "hivm")) {
    if (entry.path().extension() != ".mlir") continue;
    ++files;
    INFO(entry.path().filename().string());
    const std::string text = pbtest::read_file(entry.path());
    for (const std::string &kernel : hivmtest::kernels_of(text))  // each input of a lit file on its own
    for (const AnalysisOptions &o : {hivmtest::with_kernel({}, kernel), hivmtest::with_kernel(hivmtest::launch({128, 32}), kernel)}) {
      INFO(kernel);
      Program program;
      try {
        program = analyze_text(text, o);
      } catch (const SourceError &e) {
        // A lit input that is not a kernel (no core can be put on it) is refused naming its line.
        REQUIRE(std::string(e.what()).find("has no core type") != std::string::npos);
        continue;
      }
      json doc = to_json(program, {"corpus", text.size()}, o);
      for (const json &op : doc["ops"]) {
        const int64_t min = op["count"]["min"];
        if (min == 0) continue;
        INFO("line " << op["line"]);
        REQUIRE(op["block_min"].contains("count"));
        CHECK(op["block_min"]["count"] == min);
      }
    }
  }
  CHECK(files >= 11);
  // chunk_kda line 1106: scf.for %arg39 = %99 to %100 with bounds from the loaded cu_seqlens and
  // chunk_indices; its body (lines 1107..1119) is named as left out, with the fact that counts it.
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  for (const OpRecord &r : p.ops)
    if (r.line > 1106 && r.line <= 1119) {
      INFO("line " << r.line);
      CHECK(r.count.unknown_loop == 1106);
    }
  // The two gather nests before it (lines 1039 and 1078) have constant bounds: counted, not named.
  CHECK(op_at(p, 1048).count.unknown_loop == 0);
  CHECK(op_at(p, 1087).count.unknown_loop == 0);
}

TEST_CASE("facts through the CLI: the launch table takes trips and data; a refusal names the dump file and line") {
  pbtest::TempDir tmp;
  const std::string pipeline = (std::filesystem::path(PB_HIVM_TEST_DATA) / "hivm_program.toml").string();
  const std::string dump = (std::filesystem::path(PB_HIVM_TEST_DATA) / "loaded_bound.npuir.mlir").string();
  auto ok = pbtest::run_cli({"run", pipeline, "--set", "hivm=" + dump, "--set",
                             "launch={grid=[4], trips={\"22\"={min=2}}, data={\"0\"=[3,2,4,2]}}", "--out", tmp.path().string()});
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  json program = json::parse(pbtest::read_file(tmp / "program.json"));
  CHECK(program["given_facts"].size() == 2);
  // The data gives the trip count of every block (2..4): the loop is counted from it, and the trips
  // fact agrees with it (checked, not needed).
  const json &load = op_json(program, 25);
  CHECK(load["count"]["min"] == 0);
  CHECK(load["given"]["facts"] == json::array({"data.\"0\""}));
  CHECK(load["given"]["count"]["min"] == 2);
  CHECK(load["given"]["grid"]["count"] == 11);
  // A trips fact the given data contradicts: block 1 runs 1 iteration.
  auto clash = pbtest::run_cli({"run", pipeline, "--set", "hivm=" + dump, "--set",
                                "launch={grid=[4], trips={\"22\"={min=2}}, data={\"0\"=[3,1,4,1]}}"});
  CHECK(clash.code == 3);  // the input is refused: exit 3 (issue 26)
  CHECK(clash.err.find(dump + ":22:1: launch trips.\"22\": min = 2 cannot hold: the loop runs 1 times in an entry whose bounds are known (block 1)") != std::string::npos);
  auto bad = pbtest::run_cli({"run", pipeline, "--set", "hivm=" + dump, "--set", "launch={grid=[4], trips={\"23\"={min=1}}}"});
  CHECK(bad.code == 3);
  CHECK(bad.err.find(dump + ":23:1: launch trips.\"23\": no scf.for on line 23 of the dump") != std::string::npos);
  auto unnamed = pbtest::run_cli({"run", pipeline, "--set", "hivm=" + dump, "--set", "launch={grid=[4], data={\"9\"=[1]}}"});
  CHECK(unnamed.code == 3);
  CHECK(unnamed.err.find("launch data.\"9\": @loaded_bound has no Triton argument 9") != std::string::npos);
}

TEST_CASE("a sum fact over entries that differ: a bound on the total, no per-entry minimum, never exact (item 7)") {
  // data/sum_entries.npuir.mlir: every block enters the inner loop (line 27) twice, with rows of
  // 256 B and then 512 B; the fact says 6 iterations per block in all. The old rule spread
  // sum / entries = 3 iterations on each entry as their minimum: 3 x 256 + 3 x 512 = 2,304 B per
  // block, where an execution that satisfies the fact moves 1,536 B (all 6 in the first entry).
  const std::string text = hivmtest::test_data("sum_entries.npuir.mlir");
  AnalysisOptions o = with_launch(json::parse(R"({"grid":[2],"trips":{"27":{"sum":6,"over":"block"}}})"));
  json doc = document_of(text, o);
  const json &load = op_json(doc, 32);
  REQUIRE(load.contains("given"));
  const json &g = load["given"];
  // Never more than the truth: at most 6 loads and 1,536 B per block are guaranteed.
  CHECK(g["count"]["min"].get<int64_t>() <= 6);
  CHECK(g["block_min"]["count"].get<int64_t>() <= 6);
  CHECK(g["block_min"].value("bytes", 0) <= 1536);
  // An exact grid count (no reason in grid_reasons) must be the truth, 12.
  if (!g["grid_reasons"].contains("count")) CHECK(g["grid"]["count"] == 12);
  CHECK_FALSE(g["count"].value("exact", false));
  // The strict record knows nothing of the fact: the loop's bound is loaded data.
  CHECK(load["block_min"]["count"] == 0);
}

TEST_CASE("a sum fact on a loop entered once in every block is that loop's exact trip count (item 7)") {
  // data/loaded_bound.npuir.mlir: the loop at line 22 runs once per block; sum = 5 per block.
  const std::string text = hivmtest::test_data("loaded_bound.npuir.mlir");
  json doc = document_of(text, with_launch(json::parse(R"({"grid":[4],"trips":{"22":{"sum":5,"over":"block"}}})")));
  const json &g = op_json(doc, 25)["given"];
  CHECK(g["count"]["min"] == 5);
  CHECK(g["block_min"]["count"] == 5);
  CHECK(g["grid"]["count"] == 20);
}
