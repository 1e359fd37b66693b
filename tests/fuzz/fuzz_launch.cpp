//===- fuzz_launch.cpp - libFuzzer target: launch documents -----------------===//
//
// A perfbound.launch/1 document: the schema check the host runs, then the
// HIVM reader's apply_launch (grid, arguments, kernel), as a run does.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze.hpp"
#include "document.hpp"
#include "fuzz_target.hpp"
#include "json_schema.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const perfbound::SchemaRegistry registry = [] {
    perfbound::SchemaRegistry loaded;
    (void)loaded.load_dir(PB_SOURCE_DIR "/abi/schemas");
    return loaded;
  }();
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  if (!registry.validate("perfbound.launch/1", doc).empty()) return 0;
  // A document the schema accepts must apply without an exception: any
  // throw here (a type error, a refused grid) is a disagreement between the
  // schema and the reader, so it is left to reach libFuzzer as a finding.
  pb::hivm::AnalysisOptions options;
  pb::hivm::apply_launch(doc, options);
  return 0;
}
