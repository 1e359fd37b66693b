//===- fuzz_hivm.cpp - libFuzzer target: the HIVM dump reader --------------===//
//
// Lexer + parser + verifier + analysis + the hivm_program document, as the
// perfbound.extract_hivm plugin runs them on a raw kernel.npuir.mlir. A
// SourceError is the reader refusing the input (a finding only if it
// crashes); anything else escaping is a finding.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.hpp"

#include "analyze.hpp"
#include "document.hpp"
#include "ir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  pb::hivm::AnalysisOptions options;
  try {
    pb::hivm::Program program = pb::hivm::analyze_text(text, options);
    const std::string doc = pb::hivm::to_json_text(program, {"fuzz.npuir.mlir", size}, options);
    (void)doc;
  } catch (const pb::hivm::SourceError &) {
  }
  return 0;
}
