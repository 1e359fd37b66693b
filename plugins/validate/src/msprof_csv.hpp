//===- msprof_csv.hpp - profiler CSV reader (msprof, torch_npu) ------------===//
//
// The one place perfbound reads profiler CSVs (calibration and validation).
// Three layouts, told apart by their header (ascend.md §4):
//   - msprof `op_summary_*.csv`: one row per task (Op Name, Task Type,
//     Task Start Time(us), Task Duration(us), Block Dim|Num, pipe columns);
//   - torch_npu `kernel_details.csv`: the same data under other names (Name,
//     Accelerator Core, Start Time(us), Duration(us));
//   - msprof op `OpBasicInfo.csv`: one row per profiled launch, no task type
//     and no start time, with Current Freq / Rated Freq.
// Every name below is the op_summary name; the other layouts' names are
// aliases of it. What real files do that a naive reader trips on
// (../shared/research/parser_traps.md, ascend.md §4.1):
//   - the core-count column is `Block Dim`/`Mix Block Dim` (CANN 8.x) or
//     `Block Num`/`Mix Block Num` (CANN 9.0): either name finds either;
//   - `Task Start Time(us)` values end with a TAB;
//   - shapes are triple-quoted (`"""32,1;8192"""`), i.e. RFC 4180 quoting
//     with doubled quotes inside, and may hold commas;
//   - `N/A` in numeric columns of non-AI-core tasks;
//   - framework tasks (aclnn*, DSA_SQE) interleave with the kernel's rows.
// Malformed input (an unterminated quote, text after a closing quote, a row
// with the wrong number of fields, a non-number where a number is needed) is
// an InputError "file:line:column: message" naming the column.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_MSPROF_CSV_HPP
#define PERFBOUND_VALIDATE_MSPROF_CSV_HPP

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace perfbound::validate {

/// A CSV file (RFC 4180 quoting, CRLF or LF line ends), first line the
/// header. Every cell keeps the line and column where it starts.
class CsvTable {
 public:
  /// Parses `text`; `origin` (a path) prefixes every message. Throws
  /// pb::sdk::InputError on malformed input.
  static CsvTable parse(std::string_view text, std::string origin);

  [[nodiscard]] const std::string &origin() const { return origin_; }
  [[nodiscard]] const std::vector<std::string> &header() const { return header_; }
  [[nodiscard]] size_t row_count() const { return row_lines_.size(); }
  [[nodiscard]] size_t column_count() const { return header_.size(); }
  /// The cell as decoded (quotes removed, doubled quotes undone); valid as
  /// long as the table.
  [[nodiscard]] std::string_view cell(size_t row, size_t col) const {
    size_t idx = row * header_.size() + col;
    return std::string_view(data_).substr(starts_[idx], starts_[idx + 1] - starts_[idx]);
  }
  [[nodiscard]] uint32_t line(size_t row) const { return row_lines_[row]; }
  [[nodiscard]] uint32_t column_position(size_t row, size_t col) const { return columns_[row * header_.size() + col]; }
  /// "origin:line:col" of a cell, for messages.
  [[nodiscard]] std::string where(size_t row, size_t col) const;

  /// Incremental parsing, for a file read in blocks of whole records (the
  /// streamed reader, OpSummary::read): an empty table, then feed() per
  /// block, then finish(). `keep` (when given) sees each row as soon as it is
  /// parsed and checked; a row it refuses is dropped, so memory follows the
  /// rows kept, not the file. `on_header` runs once, after the header.
  using RowKeep = std::function<bool(const CsvTable &, size_t row)>;
  static CsvTable empty(std::string origin);
  /// Parses every record of `block`, whose first byte is at the start of
  /// line `first_line` of the file (`file_start`: the first block, where a
  /// byte-order mark may stand). Checks UTF-8 too.
  void feed(std::string_view block, uint32_t first_line, bool file_start, const RowKeep &keep,
            const std::function<void(const CsvTable &)> &on_header);
  /// Throws "empty file" when no header was fed.
  void finish() const;

 private:
  bool has_header_ = false;
  std::string origin_;
  std::vector<std::string> header_;
  // Every decoded cell back to back in one buffer (one allocation for the
  // whole file instead of one per cell): cell i is data_[starts_[i],
  // starts_[i+1]), row-major, header_.size() cells per row.
  std::string data_;
  std::vector<uint32_t> starts_;        // files are limited to 4 GiB
  std::vector<uint32_t> columns_;       // 1-based character column of each cell
  std::vector<uint32_t> row_lines_;     // 1-based line where each row starts
};

/// The Task Types of AI-core tasks (a kernel launch), as msprof writes them.
const std::vector<std::string> &ai_core_task_types();

/// Which profiler wrote a table (from its header).
enum class ProfilerFormat {
  OpSummary,      // msprof op_summary_*.csv
  KernelDetails,  // torch_npu kernel_details.csv
  OpBasicInfo,    // msprof op OpBasicInfo.csv
};
/// "msprof op_summary", "torch_npu kernel_details", "msprof op OpBasicInfo".
const char *format_name(ProfilerFormat format);
/// "msprof_op_summary", "torch_npu_kernel_details", "msprof_op_basic_info".
const char *format_id(ProfilerFormat format);

/// One kernel invocation: its rows (usually one; the AIC and AIV parts of a
/// mix kernel when msprof writes them as two tasks), in file order.
struct Launch {
  std::vector<size_t> rows;
  std::optional<double> start_us;  // earliest start; nullopt without a start column
  std::string task_type;           // the rows' Task Types joined with '+'
};

/// A profiler table: one row per task (or per launch for OpBasicInfo).
class OpSummary {
 public:
  static OpSummary parse(std::string_view text, std::string origin);

  /// The bytes read() reads at a time.
  static constexpr size_t kReadBlockBytes = size_t{4} << 20;
  /// The longest record (row) read() accepts: a quote that never closes
  /// would otherwise make one record of the rest of the file.
  static constexpr size_t kMaxRecordBytes = size_t{64} << 20;
  /// How read() streams a file.
  struct ReadOptions {
    /// Keep only the rows whose Op Name is this (every row is still parsed
    /// and checked); kernel_names() still lists every AI-core kernel of the
    /// file. Unset: every row.
    std::optional<std::string> kernel;
    /// Sees every byte of the file, in order (a digest of the file).
    std::function<void(std::string_view)> on_bytes;
    /// Bytes read at a time (tests and the fuzz target use a few, to put
    /// records across reads).
    size_t block_bytes = kReadBlockBytes;
  };
  /// Reads a file in blocks of whole records (4 MiB reads), never holding
  /// the whole file: memory follows the rows kept. Polls for Ctrl-C between
  /// blocks. Throws InputError when it cannot be read or parsed.
  static OpSummary read(const std::filesystem::path &path, const ReadOptions &options);
  static OpSummary read(const std::filesystem::path &path);  // every row, 4 MiB reads

  [[nodiscard]] const CsvTable &csv() const { return csv_; }
  [[nodiscard]] const std::string &origin() const { return csv_.origin(); }
  [[nodiscard]] size_t row_count() const { return csv_.row_count(); }

  [[nodiscard]] ProfilerFormat format() const { return format_; }

  /// Index of a column. "Block Dim" and "Block Num" (and the "Mix" pair)
  /// name the same column whichever spelling the file uses; so do the
  /// op_summary names and their kernel_details spellings ("Op Name" finds
  /// "Name", "Task Type" finds "Accelerator Core", "Task Start Time(us)"
  /// finds "Start Time(us)", "Task Duration(us)" finds "Duration(us)").
  [[nodiscard]] std::optional<size_t> find_column(std::string_view name) const;
  /// As find_column; throws InputError naming the file and its columns.
  [[nodiscard]] size_t column(std::string_view name) const;

  /// The cell with surrounding whitespace (the TAB after start times) and
  /// one pair of literal quotes (msprof's triple quoting) removed.
  [[nodiscard]] std::string text(size_t row, size_t col) const;
  /// A numeric cell; nullopt for "N/A" or an empty cell; throws InputError
  /// "file:line:col: column 'X': expected a number, got 'abc'" otherwise.
  [[nodiscard]] std::optional<double> number(size_t row, size_t col) const;
  /// A numeric cell that must be present (N/A is an error).
  [[nodiscard]] double require_number(size_t row, size_t col) const;

  /// The invocations of the kernel `op_name`: rows whose Op Name is
  /// `op_name` and whose Task Type is one of `task_types` (a table without
  /// a Task Type column, OpBasicInfo, keeps every row of the name), sorted
  /// by Task Start Time (file order without a start column). Rows of one
  /// invocation are grouped into one Launch: same Device, Stream ID and
  /// Task ID, and the later row starts before the earlier one ends. Throws
  /// InputError for a start or duration cell that is not a number.
  [[nodiscard]] std::vector<Launch> launches(std::string_view op_name,
                                             const std::vector<std::string> &task_types = ai_core_task_types()) const;
  /// A numeric column of one launch: the largest value over its rows (the
  /// parts of one invocation run together; it lasts as long as the longest).
  /// nullopt when every row holds N/A; throws InputError like number().
  [[nodiscard]] std::optional<double> launch_number(const Launch &launch, size_t col) const;
  /// As launch_number, N/A being an error naming the first row's cell.
  [[nodiscard]] double launch_require_number(const Launch &launch, size_t col) const;
  /// 1-based file lines of a launch's rows.
  [[nodiscard]] std::vector<uint32_t> launch_lines(const Launch &launch) const;
  /// The distinct Op Names of AI-core tasks (for "did you mean" messages),
  /// of the whole file also when read() kept one kernel's rows.
  [[nodiscard]] std::vector<std::string> kernel_names() const;

 private:
  /// The format from the header, and the columns that format needs.
  void classify();
  /// The Op Name of a row if it is an AI-core task (or the table has no
  /// Task Type column).
  [[nodiscard]] std::optional<std::string> ai_core_name(size_t row) const;

  CsvTable csv_;
  ProfilerFormat format_ = ProfilerFormat::OpSummary;
  // Set when read() filtered the rows: the AI-core kernels of the whole file.
  std::optional<std::set<std::string>> file_kernel_names_;
};

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_MSPROF_CSV_HPP
