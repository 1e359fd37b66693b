//===- fuzz_testlist.cpp - libFuzzer target: bench testlists ----------------===//
//
// A `perfbound bench` testlist (JSON array of GEMM cases) as
// `bench prepare` reads it; InputError is the reader refusing it.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string>

#include <perfbound/sdk/json.hpp>

#include "fuzz_target.hpp"
#include "harness/testlist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    pb::bench::Testlist list = pb::bench::parse_testlist(text, "fuzz.json");
    (void)list;
  } catch (const pb::sdk::InputError &) {
  }
  return 0;
}
