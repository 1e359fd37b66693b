//===- test_overflow.cpp - counts past 64 bits are unknown, never wrapped --===//
//
// Issue 27: a loop of 10^18 trips around a 64-element vadd (6.4 x 10^19
// elements), 70 nested loops of 2 trips (2^70 executions), or a loop of
// 10^18 inside four loops of 2 gave negative work figures (a signed product
// wrapped) or an "internal plugin error" (a wrapped value of -2^63). Every
// count and quantity now saturates: one past 2^63 - 2 is written as null
// with the reason "more than 2^63 - 1: too large to count in 64 bits", and
// no number of the document is negative. A constant loop bound of 2^63 - 1
// is said to be too large, not "not constant".
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <functional>

#include "document.hpp"
#include "hivm_test_util.hpp"

using namespace hivmtest;
using nlohmann::json;

namespace {

const std::string kHead = R"(func.func @big(%arg0: memref<?xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cbig = arith.constant 1000000000000000000 : index
  %cmax = arith.constant 9223372036854775807 : index
  %6 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
)";

/// kHead, then loops with the given bounds around one 64-element f32 vadd
/// (on line 9 + number of loops), then the return.
std::string nest(const std::vector<std::string> &bounds) {
  std::string text = kHead, indent = "  ";
  for (size_t idx = 0; idx < bounds.size(); ++idx) {
    text += indent + "scf.for %i" + std::to_string(idx) + " = %c0 to " + bounds[idx] + " step %c1 {\n";
    indent += "  ";
  }
  text += indent +
          "hivm.hir.vadd ins(%6, %6 : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) "
          "outs(%6 : memref<64xf32, #hivm.address_space<ub>>)\n";
  for (size_t idx = 0; idx < bounds.size(); ++idx) {
    indent.resize(indent.size() - 2);
    text += indent + "}\n";
  }
  return text + "  return\n}\n";
}

json document_of(const std::string &text) {
  pb::hivm::AnalysisOptions options = launch({8});
  pb::hivm::Program program = pb::hivm::analyze_text(text, options);
  return pb::hivm::to_json(program, pb::hivm::SourceInfo{}, options);
}

/// Every negative number in the document, with its JSON path.
std::vector<std::string> negatives(const json &doc) {
  std::vector<std::string> found;
  std::function<void(const json &, const std::string &)> walk = [&](const json &node, const std::string &at) {
    if (node.is_object())
      for (const auto &[key, child] : node.items()) walk(child, at + "/" + key);
    else if (node.is_array())
      for (size_t idx = 0; idx < node.size(); ++idx) walk(node[idx], at + "/" + std::to_string(idx));
    else if (node.is_number() && node.get<double>() < 0 && at.find("/line") == std::string::npos)
      found.push_back(at + " = " + node.dump());
  };
  walk(doc, "");
  return found;
}

const json &vadd_of(const json &doc) {
  for (const json &op : doc.at("ops"))
    if (op.at("op") == "hivm.hir.vadd") return op;
  FAIL("no vadd in the document");
  throw std::logic_error("unreachable");
}

constexpr const char *kTooLarge = "more than 2^63 - 1: too large to count in 64 bits";

}  // namespace

TEST_CASE("overflow: 10^18 executions of a 64-element vadd: the count is exact, the elements are unknown, none negative") {
  json doc = document_of(nest({"%cbig"}));
  CHECK(negatives(doc).empty());
  const json &vadd = vadd_of(doc);
  // 10^18 fits in 64 bits: exact.
  CHECK(vadd["count"]["value"] == 1000000000000000000);
  CHECK(vadd["count"]["exact"] == true);
  // 64 x 10^18 = 6.4 x 10^19 does not (2^63 = 9.2 x 10^18): null with the reason.
  CHECK(vadd["block"]["elements"].is_null());
  CHECK(vadd["block"]["flop"].is_null());
  CHECK(vadd["total_reasons"]["elements"] == kTooLarge);
  // Over the grid of 8: 8 x 10^18 executions still fit.
  CHECK(vadd["grid"]["count"] == 8000000000000000000);
  CHECK(vadd["grid"]["flop"].is_null());
  CHECK(vadd["grid_reasons"]["flop"] == kTooLarge);
}

TEST_CASE("overflow: 70 nested loops of 2 trips (2^70 executions) are counted as unknown, not an internal error") {
  json doc;
  REQUIRE_NOTHROW(doc = document_of(nest(std::vector<std::string>(70, "%c2"))));
  CHECK_MESSAGE(negatives(doc).empty(), negatives(doc).front());
  const json &vadd = vadd_of(doc);
  CHECK(vadd["count"]["value"].is_null());
  CHECK(vadd["count"]["exact"] == false);
  CHECK(vadd["count"]["reason"].get<std::string>().find(kTooLarge) != std::string::npos);
  CHECK(vadd["grid"]["count"].is_null());
}

TEST_CASE("overflow: 10^18 trips inside four loops of 2: no total turns negative") {
  json doc = document_of(nest({"%cbig", "%c2", "%c2", "%c2", "%c2"}));
  const std::vector<std::string> found = negatives(doc);
  CHECK_MESSAGE(found.empty(), (found.empty() ? "" : found.front()));
  const json &vadd = vadd_of(doc);
  CHECK(vadd["count"]["value"].is_null());  // 1.6 x 10^19
  CHECK(doc["totals"]["per_block_min"]["aiv"]["vector"]["flop"] != -64);
}

TEST_CASE("overflow: a constant loop bound of 2^63 - 1 is too large to count, not 'not constant'") {
  json doc = document_of(nest({"%cmax"}));
  CHECK(negatives(doc).empty());
  const std::string reason = vadd_of(doc)["count"]["reason"].get<std::string>();
  // Exactly 2^63 - 1 here: the reason must not say "more than" (it did).
  CHECK(reason.find("its upper bound is 2^63 - 1 or more") != std::string::npos);
  CHECK(reason.find("more than 2^63") == std::string::npos);
  CHECK(reason.find("not constant") == std::string::npos);
}
