//===- fuzz_schema.cpp - libFuzzer target: JSON-schema validation -----------===//
//
// Documents checked against the published schemas (abi/schemas), as the
// host checks every document between nodes; and the input loaded as a schema
// itself (a vendor schema beside a plugin is outside input too). Each
// validation also runs on the text through the streaming validator the host
// uses for large documents (json_schema_stream.hpp); any difference from the
// whole-DOM result, or in what the envelope parse reads, aborts: a finding.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_target.hpp"
#include "json_schema.hpp"
#include "json_schema_stream.hpp"

namespace {
perfbound::SchemaRegistry &registry() {
  static perfbound::SchemaRegistry r = [] {
    perfbound::SchemaRegistry loaded;
    (void)loaded.load_dir(PB_SOURCE_DIR "/abi/schemas");
    return loaded;
  }();
  return r;
}

[[noreturn]] void mismatch(const char *what) {
  std::fprintf(stderr, "fuzz_schema: streamed and whole-DOM checks differ: %s\n", what);
  std::abort();
}

// Validates `doc` (parsed from `text`) both ways; they must agree exactly.
void validate_both(const perfbound::SchemaRegistry &r, const std::string &id, const nlohmann::json &doc,
                   const std::string &text) {
  const std::vector<std::string> whole = r.validate(id, doc);
  const perfbound::TextValidation streamed = perfbound::validate_json_text(r, id, text);
  if (streamed.errors != whole) mismatch("violations");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const std::string owned(text);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const nlohmann::json envelope = perfbound::parse_json_envelope(owned);
  if (envelope.is_discarded() != doc.is_discarded()) mismatch("whether the text is JSON");
  if (doc.is_discarded()) return 0;
  if (envelope.is_object() != doc.is_object() || (doc.is_object() && envelope.value("schema", nlohmann::json()) != doc.value("schema", nlohmann::json())))
    mismatch("the envelope");
  const perfbound::SchemaRegistry &r = registry();
  if (doc.is_object() && doc.contains("schema") && doc["schema"].is_string() && r.has(doc["schema"].get<std::string>())) {
    validate_both(r, doc["schema"].get<std::string>(), doc, owned);
  } else {
    const std::vector<std::string> ids = r.ids();
    if (!ids.empty()) validate_both(r, ids[size % ids.size()], doc, owned);
  }
  perfbound::SchemaRegistry own;
  if (own.add(doc, "fuzz.schema.json").empty() && doc.is_object() && doc.contains("$id") && doc["$id"].is_string())
    validate_both(own, doc["$id"].get<std::string>(), doc, owned);
  return 0;
}
