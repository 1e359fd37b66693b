//===- fuzz_schema.cpp - libFuzzer target: JSON-schema validation -----------===//
//
// Documents checked against the published schemas (abi/schemas), as the
// host checks every document between nodes; and the input loaded as a schema
// itself (a vendor schema beside a plugin is outside input too).
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.hpp"
#include "json_schema.hpp"

namespace {
perfbound::SchemaRegistry &registry() {
  static perfbound::SchemaRegistry r = [] {
    perfbound::SchemaRegistry loaded;
    (void)loaded.load_dir(PB_SOURCE_DIR "/abi/schemas");
    return loaded;
  }();
  return r;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  const perfbound::SchemaRegistry &r = registry();
  if (doc.is_object() && doc.contains("schema") && doc["schema"].is_string() && r.has(doc["schema"].get<std::string>())) {
    (void)r.validate(doc["schema"].get<std::string>(), doc);
  } else {
    const std::vector<std::string> ids = r.ids();
    if (!ids.empty()) (void)r.validate(ids[size % ids.size()], doc);
  }
  perfbound::SchemaRegistry own;
  if (own.add(doc, "fuzz.schema.json").empty() && doc.is_object() && doc.contains("$id") && doc["$id"].is_string())
    (void)own.validate(doc["$id"].get<std::string>(), doc);
  return 0;
}
