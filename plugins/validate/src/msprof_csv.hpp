//===- msprof_csv.hpp - msprof op_summary CSV reader -----------------------===//
//
// The one place perfbound reads msprof `op_summary_*.csv` files (calibration
// here, validation later). What real files do that a naive reader trips on
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
#include <optional>
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

 private:
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

/// An msprof op_summary table: one row per task.
class OpSummary {
 public:
  static OpSummary parse(std::string_view text, std::string origin);
  /// Reads a file; throws InputError when it cannot be read or parsed.
  static OpSummary read(const std::filesystem::path &path);

  [[nodiscard]] const CsvTable &csv() const { return csv_; }
  [[nodiscard]] const std::string &origin() const { return csv_.origin(); }
  [[nodiscard]] size_t row_count() const { return csv_.row_count(); }

  /// Index of a column. "Block Dim" and "Block Num" (and the "Mix" pair)
  /// name the same column whichever spelling the file uses.
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

  /// Rows of the kernel `op_name` (Op Name) whose Task Type is one of
  /// `task_types`, sorted by Task Start Time: one per launch.
  [[nodiscard]] std::vector<size_t> launches(std::string_view op_name,
                                             const std::vector<std::string> &task_types = ai_core_task_types()) const;
  /// The distinct Op Names of AI-core tasks (for "did you mean" messages).
  [[nodiscard]] std::vector<std::string> kernel_names() const;

 private:
  CsvTable csv_;
};

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_MSPROF_CSV_HPP
