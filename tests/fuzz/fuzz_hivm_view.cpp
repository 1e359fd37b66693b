//===- fuzz_hivm_view.cpp - libFuzzer target: the models' HIVM program reader -===//
//
// A perfbound.hivm_program/1 document as the models plugin's hivm_work node
// reads it. Differential: the streaming reader (HivmView::from_text, which
// aggregates each op while parsing and keeps no DOM) and the whole-document
// reader (from_json on json::parse) must agree — both refuse with an
// InputError, or both give the same perfbound.hivm_work/1 document.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <perfbound/sdk/json.hpp>

#include "fuzz_target.hpp"
#include "hivm_view.hpp"

namespace {

/// The work document `read` gives, or nullopt when it refuses the input.
template <typename Read>
std::optional<std::string> work_of(Read &&read) {
  try {
    return read().to_work().dump();  // dump: NaN from inf - inf compares unequal to itself
  } catch (const pb::sdk::InputError &) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const std::optional<std::string> streamed = work_of([&] { return pb::models::HivmView::from_text(text, "fuzz"); });
  const std::optional<std::string> whole = work_of([&] {
    const pb::sdk::json doc = pb::sdk::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) throw pb::sdk::InputError("fuzz: input 'hivm' is not valid JSON");
    return pb::models::HivmView::from_json(doc, "fuzz");
  });
  if (streamed.has_value() != whole.has_value() || (streamed && *streamed != *whole)) std::abort();
  return 0;
}
