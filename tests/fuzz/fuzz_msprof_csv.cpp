//===- fuzz_msprof_csv.cpp - libFuzzer target: profiler CSV tables ---------===//
//
// msprof op_summary, torch_npu kernel_details and msprof OpBasicInfo CSVs:
// the table reader, then the measurement rule on the first kernel named in
// it and the measurement document serialised, as `perfbound validate` does.
// InputError is the reader refusing the input.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_target.hpp"

#include <perfbound/sdk/json.hpp>

#include "measurement.hpp"
#include "msprof_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  using namespace perfbound::validate;
  try {
    OpSummary table = OpSummary::parse(text, "fuzz.csv");
    MeasureRequest request;
    if (auto col = table.find_column("Op Name"); col && table.row_count() > 0) request.kernel = table.text(0, *col);
    request.warmup = size % 3;
    const pb::sdk::json doc = measure_table(table, request, {"fuzz.csv", std::nullopt});
    (void)doc.dump(-1, ' ', false, pb::sdk::json::error_handler_t::strict);
  } catch (const pb::sdk::InputError &) {
  }
  return 0;
}
