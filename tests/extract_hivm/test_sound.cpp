//===- test_sound.cpp - strict figures of the document are minima ---------===//
//
// Issue 23 (review items 2, 3, 4 and 7): every figure the document offers as
// a sound minimum (block_min, count.min, totals.per_block_min) must be at
// most the truth, exact figures must be exact, and an estimate must say so,
// in the strict records and in the `given` overlay alike. The dumps in data/
// are written by us; the truth is derived by hand in each one's header and
// in the comments here.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "document.hpp"
#include "facts.hpp"
#include "hivm_test_util.hpp"
#include "support/schema_support.hpp"

using namespace pb::hivm;
using json = nlohmann::json;

namespace {

json document_of(const std::string &text, const AnalysisOptions &o) {
  json doc = to_json(analyze_text(text, o), {"test", text.size()}, o);
  pbtest::check_schema_valid(doc, kProgramSchema);
  return doc;
}

AnalysisOptions with_launch(const char *launch) {
  AnalysisOptions o;
  apply_launch(json::parse(launch), o);
  return o;
}

const json &op_json(const json &doc, uint32_t line) {
  for (const json &op : doc["ops"])
    if (op["line"] == line) return op;
  FAIL("no op on line " << line);
  throw std::logic_error("unreachable");
}

/// Whether the op record lists `name` among its estimated exec members.
bool listed(const json &op, const char *name) {
  auto it = op.find("estimated");
  return it != op.end() && std::find(it->begin(), it->end(), json(name)) != it->end();
}

}  // namespace

TEST_CASE("issue 23 item 2: MTE1 bytes are a quantity: exact per execution, summed per block, estimated when dynamic") {
  const std::string text = hivmtest::test_data("mte1_dynamic.npuir.mlir");
  json doc = document_of(text, with_launch(R"({"grid":[1]})"));
  // Line 26, in a loop of 2: real_m = 16 then 128 (K = 64, N = 128, f16, fractal 16):
  // (16 x 64 + 64 x 128) x 2 = 18432 B and (128 x 64 + 64 x 128) x 2 = 32768 B.
  const json &loop_mm = op_json(doc, 26);
  // The representative execution is the first iteration (it was the last one sampled).
  CHECK(loop_mm["exec"]["m"] == 16);
  CHECK(loop_mm["exec"]["mte1_bytes"] == 18432);
  CHECK_FALSE(listed(loop_mm, "mte1_bytes"));
  // Per block: both executions summed, exact; the guaranteed minimum is the same sum.
  CHECK(loop_mm["block"]["mte1_bytes"] == 51200);
  CHECK(loop_mm["block_min"]["mte1_bytes"] == 51200);
  CHECK(loop_mm["grid"]["mte1_bytes"] == 51200);
  // Line 32: real_m = min(128, counts[0]) is known only from above: 32768 B is an estimate,
  // said so, and the block minimum holds no more than the truth for any counts[0] >= 0.
  const json &loaded_mm = op_json(doc, 32);
  CHECK(loaded_mm["exec"]["mte1_bytes"] == 32768);
  CHECK(listed(loaded_mm, "mte1_bytes"));
  CHECK(loaded_mm["exec_reasons"].contains("mte1_bytes"));
  CHECK(loaded_mm["total_reasons"].contains("mte1_bytes"));
  CHECK(loaded_mm["block_min"].value("mte1_bytes", 0) == 0);
  // Totals: per block 51200 + 32768 (estimated); the minimum never above the loop's exact 51200.
  const json &cube = doc["totals"]["per_block"]["aic"]["cube"];
  CHECK(cube["mte1_bytes"] == 51200 + 32768);
  CHECK(doc["totals"]["per_block_min"]["aic"]["cube"]["mte1_bytes"].get<int64_t>() <= 51200);
  // Under data = {"0" = [16]} real_m is 16 exactly: the overlay has the exact 18432 B.
  json given = document_of(text, with_launch(R"({"grid":[1],"data":{"0":[16]}})"));
  const json &g = op_json(given, 32)["given"];
  CHECK(g["block"]["mte1_bytes"] == 18432);
  CHECK(g["block_min"]["mte1_bytes"] == 18432);
}

TEST_CASE("issue 23 item 3: past the enumeration budget, no single execution stands for the minimum") {
  // triangle_rows.npuir.mlir: iteration i of 32768 loads 32768 - i f16 (line 24).
  // Truth per block: 32768 x 32769 = 1073774592 B; the first iteration alone moves 65536 B.
  const std::string text = hivmtest::test_data("triangle_rows.npuir.mlir");
  json doc = document_of(text, with_launch(R"({"grid":[1]})"));
  const json &load = op_json(doc, 24);
  CHECK(load["count"]["min"] == 32768);
  CHECK(load["count"]["exact"] == true);
  CHECK(load["exec"]["bytes"] == 65536);  // the representative execution: i = 0
  // The sum over the iterations is an estimate from the largest row.
  CHECK(load["total_reasons"].contains("bytes"));
  // The guaranteed minimum is at most the truth (the fewest bytes any execution moves, 2 B, per execution).
  REQUIRE(load["block_min"].contains("bytes"));
  CHECK(load["block_min"]["bytes"].get<int64_t>() <= 1073774592);
  CHECK(load["block_min"]["bytes"] == 32768 * 2);
  // And so are the per-block-minimum totals.
  CHECK(doc["totals"]["per_block_min"]["aiv"]["mte"][0]["bytes"].get<int64_t>() <= 1073774592);
}

TEST_CASE("issue 23 item 4: the given overlay says which of its per-block figures are estimates") {
  // given_estimate.npuir.mlir: trips."26" = {min = 4, max = 4} makes the loop's count exact; the
  // row length min(64, counts[1]) is still an upper bound: 4 x 256 B = 1024 B is an estimate.
  const std::string text = hivmtest::test_data("given_estimate.npuir.mlir");
  json doc = document_of(text, with_launch(R"({"grid":[1],"trips":{"26":{"min":4,"max":4}}})"));
  const json &load = op_json(doc, 30);
  REQUIRE(load.contains("given"));
  const json &g = load["given"];
  CHECK(g["count"]["exact"] == true);
  CHECK(g["count"]["value"] == 4);
  CHECK(g["block"]["bytes"] == 1024);
  REQUIRE(g.contains("total_reasons"));
  CHECK(g["total_reasons"].contains("bytes"));
  // The strict record says the same of its own (unknown) figure.
  CHECK(load["total_reasons"].contains("bytes"));
  // No guaranteed bytes above the truth: with counts[1] = 16, 4 x 64 B = 256 B.
  CHECK(g["block_min"].value("bytes", 0) <= 256);
}
