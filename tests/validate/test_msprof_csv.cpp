//===- test_msprof_csv.cpp - the msprof op_summary reader -----------------===//
#include <doctest/doctest.h>

#include <perfbound/sdk/json.hpp>
#include <perfbound/sdk/sha256.hpp>

#include <algorithm>

#include "msprof_csv.hpp"
#include "support/test_support.hpp"
#include "validate_support.hpp"

namespace fs = std::filesystem;
using pbtest::validate::error_of;
using pbtest::validate::fixtures;
using perfbound::validate::CsvTable;
using perfbound::validate::OpSummary;
using pbtest::validate::request_for;
namespace pv = perfbound::validate;

TEST_CASE("op_summary quirks: Block Num/Block Dim, TABs after start times, triple quotes, N/A, foreign rows") {
  OpSummary cann9 = OpSummary::read(fixtures() / "op_summary_cann9.csv");
  OpSummary cann8 = OpSummary::read(fixtures() / "op_summary_cann8.csv");
  // Either spelling finds the core-count column of either file.
  CHECK(cann9.find_column("Block Dim") == cann9.find_column("Block Num"));
  CHECK(cann8.find_column("Block Num") == cann8.find_column("Block Dim"));
  CHECK(cann9.find_column("Mix Block Dim").has_value());
  REQUIRE(cann9.find_column("Block Dim").has_value());
  CHECK(cann9.csv().header()[*cann9.find_column("Block Dim")] == "Block Num");

  // The launches of my_kernel: AI_VECTOR_CORE rows only (the AI_CPU row of
  // the same name and the DSA_SQE row are not launches), by start time,
  // although the file lists 1300.500 before 1100.250.
  std::vector<size_t> rows;
  for (const perfbound::validate::Launch &launch : cann9.launches("my_kernel")) {
    REQUIRE(launch.rows.size() == 1);
    rows.push_back(launch.rows.front());
  }
  REQUIRE(rows.size() == 8);
  size_t start = cann9.column("Task Start Time(us)"), duration = cann9.column("Task Duration(us)");
  // "1100.250\t" is a number once the TAB is trimmed.
  CHECK(cann9.require_number(rows[0], start) == 1100.25);
  CHECK(cann9.require_number(rows[0], duration) == 12.0);
  CHECK(cann9.require_number(rows[1], start) == 1200.125);
  CHECK(cann9.require_number(rows[2], start) == 1300.5);
  // Triple-quoted shapes: the CSV field is "32,1,8192;8192" with literal
  // quotes (commas inside); text() drops the literal pair.
  size_t shapes = cann9.column("Input Shapes");
  CHECK(cann9.csv().cell(rows[0], shapes) == "\"32,1,8192;8192\"");
  CHECK(cann9.text(rows[0], shapes) == "32,1,8192;8192");
  // N/A is "no number", not zero; requiring one is an error naming the cell.
  std::vector<std::string> names = cann9.kernel_names();
  CHECK(names == std::vector<std::string>{"aclnnCast_CastAiCore_Cast", "my_kernel"});
  size_t block = cann9.column("Block Num");
  // Row 2 (line 4) is the DSA_SQE row; its Block Num starts at column 35:
  // "0,rng,rng,DSA_SQE,1100.000<TAB>,1.000," is 34 characters.
  CHECK_FALSE(cann9.number(2, block).has_value());
  CHECK(error_of([&] { (void)cann9.require_number(2, block); }) ==
        (fixtures() / "op_summary_cann9.csv").string() + ":4:35: column 'Block Num': a number is required here, got 'N/A'");
  // CRLF line ends (cann8) parse like LF.
  CHECK(cann8.launches("my_kernel").size() == 8);
  CHECK(cann8.require_number(cann8.launches("my_kernel")[7].rows.front(), cann8.column("Task Duration(us)")) == 8.0);
}

TEST_CASE("malformed CSV: each error names file, line and column") {
  // Columns below count characters of row 2: "k,AI_CORE,1.0," is 14 long.
  const std::string header = "Op Name,Task Type,Task Start Time(us),Task Duration(us)\n";
  CHECK(error_of([&] { CsvTable::parse(header + "k,AI_CORE,1.0,\"2.0\n", "bad.csv"); }) ==
        "bad.csv:2:15: unterminated quoted field (no closing '\"')");
  CHECK(error_of([&] { CsvTable::parse(header + "k,AI_CORE,\"1.0\"x,2.0\n", "bad.csv"); }) ==
        "bad.csv:2:16: unexpected 'x' after the closing quote of a field (expected ',' or the end of the line)");
  CHECK(error_of([&] { CsvTable::parse(header + "k,AI_CORE,1.0,2.0\nk,AI_CORE,1.0\n", "bad.csv"); }) ==
        "bad.csv:3:1: row has 3 fields, the header has 4");
  CHECK(error_of([&] { CsvTable::parse(header + "k,AI_\"CORE,1.0,2.0\n", "bad.csv"); }) ==
        "bad.csv:2:6: a quote inside an unquoted field (quote the whole field, doubling inner quotes)");
  CHECK(error_of([&] { CsvTable::parse("a,b,a\n", "bad.csv"); }) == "bad.csv:1:5: column 'a' appears twice in the header");
  CHECK(error_of([&] { CsvTable::parse("\n\n", "empty.csv"); }) == "empty.csv:1:1: empty file: expected a header line of column names");
  // A quoted field may span lines; the next row's line number follows.
  CsvTable multi = CsvTable::parse(header + "\"two\nlines\",AI_CORE,1,2\nk,AI_CORE,3,4\n", "multi.csv");
  CHECK(multi.cell(0, 0) == "two\nlines");
  CHECK(multi.line(1) == 4);

  OpSummary summary = OpSummary::parse(header + "k,AI_CORE,1.0,fast\n", "bad.csv");
  CHECK(error_of([&] { (void)summary.number(0, 3); }) == "bad.csv:2:15: column 'Task Duration(us)': expected a number, got 'fast'");
  CHECK(error_of([&] { (void)summary.column("aic_mac_time(us)"); }) ==
        "bad.csv:1: no column 'aic_mac_time(us)'; the header has: Op Name, Task Type, Task Start Time(us), Task Duration(us)");
  CHECK(error_of([&] { (void)OpSummary::read(fixtures() / "no_such.csv"); }) ==
        (fixtures() / "no_such.csv").string() + ": cannot open msprof CSV");
}

TEST_CASE("NaN, infinite or negative durations, counts and cycles are errors naming file, line and column") {
  // One range-checked reader for every number from outside (sdk/number.hpp, issue 27).
  const std::string header = "Op Name,Task Type,Task Start Time(us),Task Duration(us),aic_total_cycles\n";
  // One NaN row among good ones: not dropped, an error at its cell.
  OpSummary one_nan = OpSummary::parse(header + "k,AI_CORE,1.0,2.0,10\nk,AI_CORE,5.0,nan,10\nk,AI_CORE,9.0,2.0,10\n", "one.csv");
  CHECK(error_of([&] {
          for (const auto &launch : one_nan.launches("k")) (void)one_nan.launch_require_number(launch, 3);
        }) == "one.csv:3:15: column 'Task Duration(us)': expected a number, got 'nan'");
  // Every row NaN: the first one names the file.
  OpSummary all_nan = OpSummary::parse(header + "k,AI_CORE,1.0,NaN,10\nk,AI_CORE,5.0,NaN,10\n", "all.csv");
  CHECK(error_of([&] { (void)all_nan.launches("k"); }) == "all.csv:2:15: column 'Task Duration(us)': expected a number, got 'NaN'");
  OpSummary inf = OpSummary::parse(header + "k,AI_CORE,1.0,inf,10\nk,AI_CORE,1.0,-inf,10\n", "inf.csv");
  CHECK(error_of([&] { (void)inf.number(0, 3); }) == "inf.csv:2:15: column 'Task Duration(us)': expected a number, got 'inf'");
  CHECK(error_of([&] { (void)inf.number(1, 3); }) == "inf.csv:3:15: column 'Task Duration(us)': expected a number, got '-inf'");
  // A negative cycle count, as a calibration CSV would carry it.
  OpSummary negative = OpSummary::parse(header + "k,AI_CORE,1.0,2.0,-4096\n", "cal.csv");
  CHECK(error_of([&] { (void)negative.number(0, 4); }) ==
        "cal.csv:2:19: column 'aic_total_cycles' is -4096; it must be a number >= 0");
  CHECK(negative.number(0, 3) == 2.0);
}

TEST_CASE("a profiler CSV is read only from a regular file, up to the limit, as UTF-8") {
  CHECK(error_of([&] { (void)OpSummary::read("/dev/zero"); }) ==
        "/dev/zero: not a regular file (a device, FIFO or socket is never read as input)");
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "bad.csv", "Op Name,Task Type\nk\xFF,AI_CORE\n");
  CHECK(error_of([&] { (void)OpSummary::read(tmp / "bad.csv"); }) ==
        (tmp / "bad.csv").string() + ":2:2: invalid UTF-8 byte 0xFF (the file must be UTF-8 text)");
}

namespace {

/// An op_summary of `rows` tasks over three kernels (k is one task in three),
/// whose Op Name of every 97th row is a quoted name holding a newline, so
/// that records straddle the streamed reader's 4 MiB blocks at many offsets.
std::string three_kernel_summary(long rows) {
  std::string text = "Device_id,Task ID,Stream ID,Op Name,Task Type,Task Start Time(us),Task Duration(us),Block Dim\n";
  for (long i = 0; i < rows; ++i) {
    const long kernel = i % 3;
    std::string name = kernel == 0 ? "k" : kernel == 1 ? "other" : "\"two\nlines, \"\"quoted\"\"\"";
    if (kernel == 1 && i % 97 == 1) name = "\"other\"";
    text += "0," + std::to_string(i) + ",3," + name + "," + (kernel == 2 ? "AI_CPU" : "AI_VECTOR_CORE") + "," +
            std::to_string(1000 + 10 * i) + ".000\t," + std::to_string(5 + i % 7) + ".250,40\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a CSV read in blocks gives what the whole text gives; memory keeps only the kernel's rows") {
  pbtest::TempDir tmp;
  const std::string text = three_kernel_summary(330'000);  // ~18 MB: five blocks
  REQUIRE(text.size() > 4 * OpSummary::kReadBlockBytes);
  pbtest::write_file(tmp / "big.csv", text);

  const OpSummary whole = OpSummary::parse(text, "big.csv");
  std::string seen;
  OpSummary::ReadOptions options;
  options.kernel = "k";
  options.on_bytes = [&](std::string_view bytes) { seen += bytes; };
  const OpSummary streamed = OpSummary::read(tmp / "big.csv", options);
  CHECK(seen == text);  // every byte, in order, once (the digest's input)
  CHECK(whole.row_count() == 330'000);
  CHECK(streamed.row_count() == 110'000);  // only k's rows are kept
  CHECK(streamed.format() == whole.format());
  CHECK(streamed.kernel_names() == whole.kernel_names());
  CHECK(streamed.kernel_names() == std::vector<std::string>{"k", "other"});

  const auto a = whole.launches("k"), b = streamed.launches("k");
  REQUIRE(a.size() == 110'000);
  REQUIRE(b.size() == a.size());
  const size_t dur_a = whole.column("Task Duration(us)"), dur_b = streamed.column("Task Duration(us)");
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(whole.launch_lines(a[i]) == streamed.launch_lines(b[i]));  // file lines survive the blocks
    REQUIRE(a[i].start_us == b[i].start_us);
    REQUIRE(whole.launch_require_number(a[i], dur_a) == streamed.launch_require_number(b[i], dur_b));
  }
  // Unfiltered, the streamed table is the parsed one cell for cell.
  const OpSummary all = OpSummary::read(tmp / "big.csv");
  REQUIRE(all.row_count() == whole.row_count());
  for (size_t row = 0; row < all.row_count(); row += 997)
    for (size_t col = 0; col < all.csv().column_count(); ++col) {
      REQUIRE(all.csv().cell(row, col) == whole.csv().cell(row, col));
      REQUIRE(all.csv().where(row, col) == whole.csv().where(row, col).replace(0, 7, (tmp / "big.csv").string()));
    }

  // The measurement document is the same whichever way the file is read.
  pv::MeasureRequest request = request_for("k", 2);
  pb::sdk::json from_text = pv::measure_table(whole, request, {"big.csv", std::nullopt});
  pb::sdk::json from_file = pv::measure_file(tmp / "big.csv", request);
  from_text.erase("source");
  CHECK(from_file["source"]["sha256"] == pb::sdk::sha256_hex(text));
  from_file.erase("source");
  CHECK(from_text == from_file);
}

TEST_CASE("errors past the first block name the file's own line and column") {
  pbtest::TempDir tmp;
  const std::string good = three_kernel_summary(150'000);  // ~8.5 MB
  const long lines = std::count(good.begin(), good.end(), '\n');
  const fs::path path = tmp / "bad.csv";
  const std::string where = path.string() + ":" + std::to_string(lines + 1);
  pbtest::write_file(path, good + "0,1,3,k,AI_CORE,1.0,2.0\n");
  CHECK(error_of([&] { (void)OpSummary::read(path); }) == where + ":1: row has 7 fields, the header has 8");
  pbtest::write_file(path, good + "0,1,3,k\xFF,AI_CORE,1.0,2.0,4\n");
  CHECK(error_of([&] { (void)OpSummary::read(path); }) == where + ":8: invalid UTF-8 byte 0xFF (the file must be UTF-8 text)");
  std::string plain;  // rows without a quote: the open quote stays open to the end
  for (int i = 0; i < 200'000; ++i) plain += "0,1,3,k,AI_CORE,1.0,2.0,4\n";
  pbtest::write_file(path, good + "0,1,3,k,AI_CORE,1.0,2.0,\"4\n" + plain);
  CHECK(error_of([&] { (void)OpSummary::read(path); }) == where + ":25: unterminated quoted field (no closing '\"')");
  // Past the longest record the reader holds (64 MiB), the same message,
  // without reading the rest of the file.
  while (plain.size() <= OpSummary::kMaxRecordBytes) plain += plain;
  pbtest::write_file(path, good + "0,1,3,k,AI_CORE,1.0,2.0,\"4\n" + plain + "\"\n");
  CHECK(error_of([&] { (void)OpSummary::read(path); }) ==
        where + ":25: unterminated quoted field (no closing '\"') within the 64 MiB a record may span");
  pbtest::write_file(path, good + "0,1,3,k,AI_\"CORE,1.0,2.0,4\n" + good);
  CHECK(error_of([&] { (void)OpSummary::read(path); }) ==
        where + ":12: a quote inside an unquoted field (quote the whole field, doubling inner quotes)");
  // A cell of a kernel that is not kept is still a parse error; a number is
  // checked only where the rule reads it.
  OpSummary::ReadOptions only_other;
  only_other.kernel = "other";
  pbtest::write_file(path, good + "0,1,3,k,AI_CORE,1.0,\"2.0\"x,4\n");
  CHECK(error_of([&] { (void)OpSummary::read(path, only_other); }) ==
        where + ":26: unexpected 'x' after the closing quote of a field (expected ',' or the end of the line)");
  // Blank lines before the header, more than a block of them.
  pbtest::write_file(path, std::string(5 << 20, '\n') + good);
  CHECK(OpSummary::read(path, only_other).row_count() == 50'000);
  pbtest::write_file(path, std::string(5 << 20, '\n'));
  CHECK(error_of([&] { (void)OpSummary::read(path); }) == path.string() + ":1:1: empty file: expected a header line of column names");
}

TEST_CASE("every real msprof CSV in ../shared parses, and kernel rows come out per launch") {
  PBTEST_REQUIRE_SHARED();
  const fs::path data = pbtest::shared_dir() / "data";
  size_t files = 0;
  for (const fs::path &dir : {data / "msprof", data / "calibration" / "bench_output"}) {
    for (const auto &entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".csv" || entry.path().filename().string().rfind("bandwidth", 0) == 0) continue;
      INFO(entry.path().string());
      OpSummary summary = OpSummary::read(entry.path());
      CHECK(summary.find_column("Block Dim").has_value());
      CHECK_FALSE(summary.kernel_names().empty());
      ++files;
    }
  }
  CHECK(files == 5 + 21);
  // chunk_kda (CANN 9.0, Block Num header): 6 MIX_AIC launches among 213
  // framework rows (msprof/PROVENANCE.md), each with Block Num 4096 and Mix
  // Block Num 8192 (CORPUS.md).
  OpSummary kda = OpSummary::read(data / "msprof" / "chunk_kda_op_summary.csv");
  std::vector<perfbound::validate::Launch> launches = kda.launches("chunk_kda_bwd_kernel_wy_dqkg_fused_opt_v2");
  REQUIRE(launches.size() == 6);
  CHECK(kda.row_count() == 219);
  for (const perfbound::validate::Launch &launch : launches) {
    REQUIRE(launch.rows.size() == 1);
    size_t row = launch.rows.front();
    CHECK(kda.require_number(row, kda.column("Block Dim")) == 4096);
    CHECK(kda.require_number(row, kda.column("Mix Block Dim")) == 8192);
  }
}
