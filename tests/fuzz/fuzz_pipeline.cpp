//===- fuzz_pipeline.cpp - libFuzzer target: pipeline TOML ------------------===//
//
// A pipeline file (host/src/pipeline.hpp) as `perfbound lint` reads it: the
// TOML parser, the pipeline model and the diagnostics, printed and as JSON.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "diagnostics.hpp"
#include "fuzz_target.hpp"
#include "pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  perfbound::Diagnostics diags;
  auto pipeline = perfbound::parse_pipeline_text(text, "fuzz.toml", diags);
  (void)pipeline;
  diags.sort_and_unique();
  (void)diags.format();
  (void)diags.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  return 0;
}
