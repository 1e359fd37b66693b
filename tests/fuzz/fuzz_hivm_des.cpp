//===- fuzz_hivm_des.cpp - libFuzzer target: DES graph JSON import ---------===//
//
// The predecessor's DES graph (schema_version a3_hivm_des_v1), which the
// extract_hivm plugin accepts on its text port; then the program document.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.hpp"

#include "des_import.hpp"
#include "document.hpp"
#include "ir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  pb::hivm::AnalysisOptions options;
  try {
    if (!pb::hivm::looks_like_des(text)) return 0;
    pb::hivm::Program program = pb::hivm::import_des(text, options);
    (void)pb::hivm::to_json_text(program, {"fuzz.json", size}, options);
  } catch (const pb::hivm::SourceError &) {
  }
  return 0;
}
