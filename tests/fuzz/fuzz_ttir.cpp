//===- fuzz_ttir.cpp - libFuzzer target: the TTIR reader -------------------===//
//
// MLIR's parser with our `tt` dialect, the verifier and the kernel model, as
// the perfbound.extract_ttir plugin runs them; an Error result is the reader
// refusing the input. Exceptions escaping are findings.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.hpp"

#include "ttir_analysis.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  auto module = perfbound::ttir::analyze_ttir(text, "fuzz.ttir");
  (void)module;
  return 0;
}
