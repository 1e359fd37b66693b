//===- fuzz_msprof_csv.cpp - libFuzzer target: profiler CSV tables ---------===//
//
// msprof op_summary, torch_npu kernel_details and msprof OpBasicInfo CSVs:
// the table reader, then the measurement rule on the first kernel named in
// it and the measurement document serialised, as `perfbound validate` does.
// InputError is the reader refusing the input.
//
// Differential (issue 27): the input is also written to a file and read by
// the streamed reader (OpSummary::read) in blocks of 1-64 bytes (from the
// input's size), every row and then only the first kernel's; both readers
// must refuse with the same message or give the same cells, lines and
// columns, and the same measurement document. A difference aborts.
//
//===----------------------------------------------------------------------===//
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz_target.hpp"

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/json.hpp>

#include "measurement.hpp"
#include "msprof_csv.hpp"

namespace {

using namespace perfbound::validate;

[[noreturn]] void differ(const std::string &what) {
  std::fprintf(stderr, "fuzz_msprof_csv: the streamed reader differs from the whole-text reader: %s\n", what.c_str());
  std::abort();
}

/// The table or the refusal's message.
template <class Read>
std::string attempt(Read &&read, std::optional<OpSummary> &out) {
  try {
    out.emplace(read());
    return {};
  } catch (const pb::sdk::InputError &e) {
    return e.what();
  }
}

void same_table(const OpSummary &a, const OpSummary &b) {
  if (a.csv().header() != b.csv().header()) differ("header");
  if (a.row_count() != b.row_count()) differ("row count " + std::to_string(a.row_count()) + " vs " + std::to_string(b.row_count()));
  for (size_t row = 0; row < a.row_count(); ++row)
    for (size_t col = 0; col < a.csv().column_count(); ++col)
      if (a.csv().cell(row, col) != b.csv().cell(row, col) || a.csv().where(row, col) != b.csv().where(row, col))
        differ("cell " + a.csv().where(row, col) + " vs " + b.csv().where(row, col));
  if (a.format() != b.format()) differ("format");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("fuzz_msprof_csv." + std::to_string(::getpid()) + ".csv")).string();
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  OpSummary::ReadOptions options;
  options.block_bytes = 1 + size % 64;
  std::optional<OpSummary> whole, streamed;
  const std::string whole_error = attempt([&] { return OpSummary::parse(text, path); }, whole);
  const std::string streamed_error = attempt([&] { return OpSummary::read(path, options); }, streamed);
  // Both refuse or both read. The messages are the same unless the text has
  // a byte that is not UTF-8: the whole text is checked before it is parsed,
  // a streamed block before it is parsed, so a parse error in an earlier
  // block is reported first there.
  if (whole_error.empty() != streamed_error.empty() ||
      (whole_error != streamed_error && !pb::sdk::find_invalid_utf8(text)))
    differ("'" + whole_error + "' vs '" + streamed_error + "'");
  if (!whole) return 0;
  same_table(*whole, *streamed);

  MeasureRequest request;
  if (auto col = whole->find_column("Op Name"); col && whole->row_count() > 0) request.kernel = whole->text(0, *col);
  request.warmup = size % 3;
  pb::sdk::json doc, kept_doc;
  std::string doc_error, kept_error;
  try {
    doc = measure_table(*whole, request, {"fuzz.csv", std::nullopt});
    (void)doc.dump(-1, ' ', false, pb::sdk::json::error_handler_t::strict);
  } catch (const pb::sdk::InputError &e) {
    doc_error = e.what();
  }
  // Only the kernel's rows kept: the same measurement (or refusal).
  if (!whole->find_column("Op Name")) return 0;
  options.kernel = request.kernel;
  std::optional<OpSummary> kernel_rows;
  if (std::string error = attempt([&] { return OpSummary::read(path, options); }, kernel_rows); !error.empty()) differ("kept rows: " + error);
  if (kernel_rows->kernel_names() != whole->kernel_names()) differ("kernel names");
  try {
    kept_doc = measure_table(*kernel_rows, request, {"fuzz.csv", std::nullopt});
  } catch (const pb::sdk::InputError &e) {
    kept_error = e.what();
  }
  if (doc_error != kept_error) differ("measurement refusal '" + doc_error + "' vs '" + kept_error + "'");
  if (doc_error.empty() && doc != kept_doc) differ("measurement document");
  return 0;
}
