//===- fuzz_set_value.cpp - libFuzzer target: --set values ------------------===//
//
// One `--set key=value` as the host splits and interprets it (a TOML value
// or a plain string), then serialised as the run document does.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string>

#include "diagnostics.hpp"
#include "fuzz_target.hpp"
#include "pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  perfbound::Diagnostics diags;
  auto override_value = perfbound::parse_override(text, diags);
  if (override_value) {
    const nlohmann::json value = perfbound::parse_override_value(override_value->value_text);
    (void)value.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  }
  (void)diags.format();
  return 0;
}
