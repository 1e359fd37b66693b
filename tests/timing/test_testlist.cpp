//===- test_testlist.cpp - OperatorX testlist parsing and entry errors ------===//
#include <doctest/doctest.h>

#include <perfbound/sdk/json.hpp>

#include "harness/testlist.hpp"
#include "support/test_support.hpp"

namespace bench = pb::bench;

TEST_CASE("the shipped OperatorX GEMM testlist parses into 11 valid bf16 entries with their lines") {
  PBTEST_REQUIRE_SHARED();
  bench::Testlist list = bench::load_testlist(pbtest::shared_dir() / "data/testlists/operatorx_gemm_perf.json");
  REQUIRE(list.entries.size() == 11);
  for (const bench::TestlistEntry &entry : list.entries) {
    CHECK(entry.error.empty());
    REQUIRE(entry.gemm.has_value());
    CHECK(entry.gemm->a == bench::Dtype::kBf16);
    CHECK(entry.gemm->out == bench::Dtype::kBf16);
    // Each entry of the file spans 17 lines and the first opens on line 2.
    CHECK(entry.line == 2 + 17 * static_cast<int>(entry.index));
  }
  CHECK(list.entries[0].gemm->m == 1);
  CHECK(list.entries[0].gemm->n == 7168);
  CHECK(list.entries[0].gemm->k == 2048);
  CHECK(list.entries[9].gemm->m == 32768);
  CHECK(list.entries[9].gemm->k == 7168);
}

TEST_CASE("each kind of bad entry becomes an error entry naming file, line and member") {
  const std::string text = R"([
  {"type": "gemm", "args": {"m": 0, "n": 8, "k": 8, "a": {"dtype": "bf16"}, "b": {"dtype": "bf16"}, "out": "bf16"}, "sources": [], "name": []},
  {"type": "attention", "args": {}, "sources": [], "name": []},
  {"type": "gemm", "args": {"m": 8, "n": 8, "k": 8, "a": {"dtype": "fp8_e4m3"}, "b": {"dtype": "bf16"}, "out": "bf16"}, "sources": [], "name": []},
  {"type": "gemm", "args": {"m": 8, "n": 8, "k": 8, "a": {"dtype": "bf16", "scale": {"dtype": "fp32", "static": true, "group": [1, -1]}}, "b": {"dtype": "bf16"}, "out": "bf16"}, "sources": [], "name": []},
  {"type": "gemm", "args": {"m": 8, "n": 8, "k": 8, "a": {"dtype": "bf16"}, "b": {"dtype": "bf16"}, "out": "bf16"}, "name": []},
  {"type": "gemm", "args": {"m": 8, "n": 8, "k": 8, "a": {"dtype": "bf16"}, "b": {"dtype": "bf16"}, "out": "bf16", "bias": true}, "sources": [], "name": []},
  {"type": "gemm", "args": {"m": 8, "n": 8, "k": 8, "a": {"dtype": "fp32", "input": "bf16"}, "b": {"dtype": "fp32"}, "out": "fp32"}, "sources": [""], "name": []},
  {"type": "gemm", "args": {"m": 8, "n": 8, "k": 8.5, "a": {"dtype": "fp32"}, "b": {"dtype": "fp32"}, "out": "fp32"}, "sources": [], "name": []},
  {"type": "gemm", "args": {"m": 8, "n": 4, "k": 2, "a": {"dtype": "fp32"}, "b": {"dtype": "fp16"}, "out": "fp64"}, "sources": ["ckpt"], "name": ["down_proj"]}
])";
  bench::Testlist list = bench::parse_testlist(text, "inline.json");
  REQUIRE(list.entries.size() == 9);
  CHECK(list.entries[0].error == "inline.json:2: entry 0: args.m must be a positive integer, got 0");
  CHECK(list.entries[1].error == "inline.json:3: entry 1: op type 'attention' is not timed by perfbound bench (it times 'gemm')");
  CHECK(list.entries[2].error.find("inline.json:4: entry 2: args.a.dtype: dtype 'fp8_e4m3' is not supported") == 0);
  CHECK(list.entries[3].error == "inline.json:5: entry 3: args.a is a scaled (quantized) operand; perfbound bench times unquantized GEMMs only");
  CHECK(list.entries[4].error == "inline.json:6: entry 4: 'sources' is missing (a list of strings, possibly empty)");
  CHECK(list.entries[5].error == "inline.json:7: entry 5: unknown member 'bias' in args (known: a, b, k, m, n, out, tiling)");
  // 'sources' is checked before args: the empty string is reported first.
  CHECK(list.entries[6].error == "inline.json:8: entry 6: 'sources'[0] must be a non-empty string, got \"\"");
  CHECK(list.entries[7].error == "inline.json:9: entry 7: args.k must be a positive integer, got 8.5");
  CHECK(list.entries[8].error.empty());
  REQUIRE(list.entries[8].gemm.has_value());
  CHECK(list.entries[8].gemm->b == bench::Dtype::kFp16);
  CHECK(list.entries[8].gemm->out == bench::Dtype::kFp64);
  CHECK(list.entries[8].roles == std::vector<std::string>{"down_proj"});
}

TEST_CASE("a testlist that is not JSON, or not an array, is refused with file and line") {
  try {
    (void)bench::parse_testlist("[\n  {\"type\": \"gemm\",\n   \"args\": {\"m\": 1,,}\n  }\n]", "broken.json");
    FAIL("expected an InputError");
  } catch (const pb::sdk::InputError &e) {
    CHECK(std::string(e.what()).find("broken.json:3: not valid JSON") == 0);
  }
  CHECK_THROWS_WITH_AS((void)bench::parse_testlist("{\"type\": \"gemm\"}", "object.json"),
                       "object.json:1: a testlist must be a JSON array of {type, args, sources, name}", pb::sdk::InputError);
}

TEST_CASE("array element lines skip strings that contain brackets and commas") {
  std::string text = "[\n\"a,[b\",\n\n{\"x\": [1,\n2]}, 3\n]";
  CHECK(bench::array_element_lines(text) == std::vector<int>{2, 4, 5});
}
