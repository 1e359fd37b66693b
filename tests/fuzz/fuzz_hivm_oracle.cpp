//===- fuzz_hivm_oracle.cpp - libFuzzer target: the HIVM differential check -===//
//
// The fuzzer's bytes drive the program generator of tests/oracle (every
// decision reads two bytes; past the end, zeros), and the generated program
// and launch go through the differential soundness check: the extractor's
// strict numbers and the HIVM terms' strict values against the
// concrete-execution oracle (docs/validation.md). A violation that is not a
// known review item aborts with the report, so libFuzzer keeps the input; a
// program the oracle refuses (budget, unsupported IR) is not a finding.
// Reproduce a finding with `perfbound_fuzz_hivm_oracle FILE` (prints the
// program and the report).
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "driver.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pb::oracle_test::Choices choices(data, size);
  pb::oracle_test::Program p = pb::oracle_test::generate(choices);
  pb::oracle_test::Case c;
  c.name = "fuzz input";
  c.text = p.text;
  c.launch = p.launch;
  c.index_data = p.index_data;
  uint64_t seed = 1469598103934665603ULL;
  for (size_t i = 0; i < size; ++i) seed = (seed ^ data[i]) * 1099511628211ULL;
  c.seed = seed % 1000003 + 1;
  pb::oracle_test::CheckOptions options;
  options.seed = c.seed;
  options.max_ops = 200'000;
  pb::oracle_test::CheckReport r = pb::oracle_test::check_program(c.text, c.launch, c.index_data, options, "fuzz.mlir");
  if (!r.violations.empty()) {
    std::fprintf(stderr, "%s\n%s", pb::oracle_test::regress_text(c).c_str(), pb::oracle_test::describe(c, r).c_str());
    std::abort();
  }
  return 0;
}
