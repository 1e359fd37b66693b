//===- msprof_csv.cpp - msprof op_summary CSV reader -----------------------===//
#include "msprof_csv.hpp"

#include <perfbound/sdk/cancel.hpp>
#include <perfbound/sdk/input_file.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <perfbound/sdk/json.hpp>
#include <perfbound/sdk/number.hpp>

namespace perfbound::validate {

namespace {

/// Walks the text one character at a time, keeping line and column.
class Cursor {
 public:
  /// `text` starts at the beginning of line `first_line`; `file_start`: it
  /// is the start of the file, where a byte-order mark may stand.
  Cursor(std::string_view text, uint32_t first_line, bool file_start) : text_(text), line_(first_line) {
    if (file_start && text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
  }
  [[nodiscard]] bool done() const { return pos_ >= text_.size(); }
  [[nodiscard]] char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  [[nodiscard]] bool at_line_end() const { return peek() == '\n' || (peek() == '\r' && peek(1) == '\n'); }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  void skip_line_end() {
    if (peek() == '\r') advance();
    if (peek() == '\n') advance();
  }
  [[nodiscard]] uint32_t line() const { return line_; }
  [[nodiscard]] uint32_t column() const { return column_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
};

[[noreturn]] void fail(const std::string &origin, uint32_t line, uint32_t column, const std::string &message) {
  throw pb::sdk::InputError(origin + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message);
}

struct FieldStart {
  size_t offset;    // where the decoded text starts in the output buffer
  uint32_t column;  // 1-based character column in the file
};

/// Reads one record (one row, possibly spanning lines inside quotes),
/// appending the decoded fields to `out` and their starts to `fields`.
void read_record(Cursor &cur, const std::string &origin, std::string &out, std::vector<FieldStart> &fields) {
  fields.clear();
  while (true) {
    fields.push_back({out.size(), cur.column()});
    if (cur.peek() == '"') {
      uint32_t open_line = cur.line(), open_column = cur.column();
      cur.advance();
      while (true) {
        if (cur.done()) fail(origin, open_line, open_column, "unterminated quoted field (no closing '\"')");
        char c = cur.peek();
        if (c == '"') {
          if (cur.peek(1) == '"') {  // a doubled quote is one literal quote
            out += '"';
            cur.advance();
            cur.advance();
            continue;
          }
          cur.advance();
          break;
        }
        out += c;
        cur.advance();
      }
      if (!cur.done() && cur.peek() != ',' && !cur.at_line_end())
        fail(origin, cur.line(), cur.column(),
             std::string("unexpected '") + cur.peek() + "' after the closing quote of a field (expected ',' or the end of the line)");
    } else {
      while (!cur.done() && cur.peek() != ',' && !cur.at_line_end()) {
        if (cur.peek() == '"')
          fail(origin, cur.line(), cur.column(), "a quote inside an unquoted field (quote the whole field, doubling inner quotes)");
        out += cur.peek();
        cur.advance();
      }
    }
    if (cur.peek() == ',') {
      cur.advance();
      continue;
    }
    cur.skip_line_end();
    return;
  }
}

std::string_view trim(std::string_view text) {
  const char *kSpace = " \t\r\n";
  size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  size_t last = text.find_last_not_of(kSpace);
  return text.substr(first, last - first + 1);
}

/// The spellings one column has had: CANN 8.x vs 9.0 op_summary, and
/// torch_npu kernel_details / msprof op OpBasicInfo (ascend.md §4).
const std::vector<std::vector<std::string>> &column_aliases() {
  static const std::vector<std::vector<std::string>> kAliases = {
      {"Block Dim", "Block Num"},
      {"Mix Block Dim", "Mix Block Num"},
      {"Op Name", "Name"},
      {"Task Type", "Accelerator Core"},
      {"Task Start Time(us)", "Start Time(us)"},
      {"Task Duration(us)", "Duration(us)"},
      {"Device_id", "Device Id", "Device ID"},
  };
  return kAliases;
}

bool has_column(const std::vector<std::string> &header, std::string_view name) {
  return std::find(header.begin(), header.end(), name) != header.end();
}

}  // namespace

//===----------------------------------------------------------------------===//
// CsvTable
//===----------------------------------------------------------------------===//

CsvTable CsvTable::empty(std::string origin) {
  CsvTable table;
  table.origin_ = std::move(origin);
  table.starts_.push_back(0);  // the end of the last cell, always the last entry
  return table;
}

CsvTable CsvTable::parse(std::string_view text, std::string origin) {
  CsvTable table = empty(std::move(origin));
  if (text.size() >= (size_t{1} << 32)) fail(table.origin_, 1, 1, "file too large (4 GiB or more) for the CSV reader");
  // Reserve for the whole text at once: one allocation, no regrowth copies.
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  table.data_.reserve(text.size());
  table.row_lines_.reserve(lines);
  table.feed(text, 1, true, {}, {});
  table.finish();
  return table;
}

void CsvTable::feed(std::string_view block, uint32_t first_line, bool file_start, const RowKeep &keep,
                    const std::function<void(const CsvTable &)> &on_header) {
  // Every caller, not only read(): a cell that is not UTF-8 would otherwise
  // reach the measurement document and fail to serialise. A block holds
  // whole lines, so no UTF-8 sequence is cut and columns count from its start.
  if (auto bad = pb::sdk::find_invalid_utf8(block, [] { pb::sdk::throw_if_cancelled(); }))
    fail(origin_, first_line + bad->line - 1, bad->column, pb::sdk::describe_utf8_error(*bad));
  Cursor cur(block, first_line, file_start);
  std::vector<FieldStart> fields;
  if (!has_header_) {
    while (!cur.done() && cur.at_line_end()) cur.skip_line_end();
    if (cur.done()) return;  // blank lines so far: the header is in a later block
    uint32_t header_line = cur.line();
    std::string header_text;
    read_record(cur, origin_, header_text, fields);
    std::set<std::string> seen;
    for (size_t idx = 0; idx < fields.size(); ++idx) {
      size_t end = idx + 1 < fields.size() ? fields[idx + 1].offset : header_text.size();
      std::string name(trim(std::string_view(header_text).substr(fields[idx].offset, end - fields[idx].offset)));
      if (!seen.insert(name).second) fail(origin_, header_line, fields[idx].column, "column '" + name + "' appears twice in the header");
      header_.push_back(std::move(name));
    }
    has_header_ = true;
    if (on_header) on_header(*this);
  }
  const size_t width = header_.size();
  while (!cur.done()) {
    pb::sdk::poll_cancel();  // a 1 GB file stops within a few thousand rows of Ctrl-C
    if (cur.at_line_end()) {  // blank line
      cur.skip_line_end();
      continue;
    }
    uint32_t row_line = cur.line();
    const size_t row = row_lines_.size();
    starts_.pop_back();  // the end sentinel, pushed again below
    read_record(cur, origin_, data_, fields);
    if (fields.size() != width)
      fail(origin_, row_line, 1, "row has " + std::to_string(fields.size()) + " fields, the header has " + std::to_string(width));
    if (data_.size() >= (size_t{1} << 32)) fail(origin_, row_line, 1, "more than 4 GiB of cells kept by the CSV reader");
    row_lines_.push_back(row_line);
    for (const FieldStart &field : fields) {
      starts_.push_back(static_cast<uint32_t>(field.offset));
      columns_.push_back(field.column);
    }
    starts_.push_back(static_cast<uint32_t>(data_.size()));
    if (keep && !keep(*this, row)) {  // drop the row again
      data_.resize(starts_[row * width]);
      starts_.resize(row * width);
      starts_.push_back(static_cast<uint32_t>(data_.size()));
      columns_.resize(row * width);
      row_lines_.pop_back();
    }
  }
}

void CsvTable::finish() const {
  if (!has_header_) fail(origin_, 1, 1, "empty file: expected a header line of column names");
}

std::string CsvTable::where(size_t row, size_t col) const {
  return origin_ + ":" + std::to_string(line(row)) + ":" + std::to_string(column_position(row, col));
}

//===----------------------------------------------------------------------===//
// OpSummary
//===----------------------------------------------------------------------===//

const std::vector<std::string> &ai_core_task_types() {
  static const std::vector<std::string> kTypes = {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV"};
  return kTypes;
}

const char *format_name(ProfilerFormat format) {
  switch (format) {
    case ProfilerFormat::OpSummary: return "msprof op_summary";
    case ProfilerFormat::KernelDetails: return "torch_npu kernel_details";
    case ProfilerFormat::OpBasicInfo: return "msprof op OpBasicInfo";
  }
  return "?";
}

const char *format_id(ProfilerFormat format) {
  switch (format) {
    case ProfilerFormat::OpSummary: return "msprof_op_summary";
    case ProfilerFormat::KernelDetails: return "torch_npu_kernel_details";
    case ProfilerFormat::OpBasicInfo: return "msprof_op_basic_info";
  }
  return "?";
}

void OpSummary::classify() {
  const std::vector<std::string> &header = csv_.header();
  // OpBasicInfo has the frequency columns and neither a task type nor a
  // start time; kernel_details names the kernel column "Name".
  if (has_column(header, "Current Freq") || (!has_column(header, "Task Type") && !has_column(header, "Accelerator Core") &&
                                             !has_column(header, "Task Start Time(us)") && !has_column(header, "Start Time(us)")))
    format_ = ProfilerFormat::OpBasicInfo;
  else if (has_column(header, "Accelerator Core") || (has_column(header, "Name") && !has_column(header, "Op Name")))
    format_ = ProfilerFormat::KernelDetails;
  // Launches are ordered by their start time to tell warm-ups from the
  // rest; a per-task table without one would be read in file order, which
  // neither profiler promises (OpBasicInfo has one row per launch and none).
  if (format_ != ProfilerFormat::OpBasicInfo && !find_column("Task Start Time(us)"))
    throw pb::sdk::InputError(origin() + ":1:1: a " + format_name(format_) + " table needs the column '" +
                              (format_ == ProfilerFormat::KernelDetails ? "Start Time(us)" : "Task Start Time(us)") +
                              "' (the launches are ordered by it to drop the warm-ups); the header has none");
}

OpSummary OpSummary::parse(std::string_view text, std::string origin) {
  OpSummary summary;
  summary.csv_ = CsvTable::parse(text, std::move(origin));
  summary.classify();
  return summary;
}

OpSummary OpSummary::read(const std::filesystem::path &path) { return read(path, ReadOptions{}); }

OpSummary OpSummary::read(const std::filesystem::path &path, const ReadOptions &options) {
  std::string error;
  std::optional<std::ifstream> in = pb::sdk::open_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!in) throw pb::sdk::InputError(error == "no such file" ? path.string() + ": cannot open msprof CSV" : path.string() + ": " + error);

  OpSummary summary;
  summary.csv_ = CsvTable::empty(path.string());
  std::optional<size_t> name_col, type_col;
  if (options.kernel) summary.file_kernel_names_.emplace();
  // The format's checks come after the whole file is parsed, as for a text
  // parsed at once: a malformed row is reported before a missing column.
  auto on_header = [&](const CsvTable &) {
    name_col = summary.find_column("Op Name");
    type_col = summary.find_column("Task Type");
  };
  CsvTable::RowKeep keep;
  if (options.kernel)
    keep = [&](const CsvTable &, size_t row) {
      if (!name_col) return false;  // no kernel to keep; measuring will say the column is missing
      std::string name = summary.text(row, *name_col);
      const std::vector<std::string> &ai_core = ai_core_task_types();
      if (!type_col || std::find(ai_core.begin(), ai_core.end(), summary.text(row, *type_col)) != ai_core.end())
        summary.file_kernel_names_->insert(name);
      return name == *options.kernel;
    };

  // The file in blocks of whole records: `pending` starts at a record's
  // first byte; a scan that follows the quotes finds where the last whole
  // record of what was read ends (a line end outside quotes).
  std::string pending;
  std::string chunk(std::max<size_t>(1, options.block_bytes), '\0');
  size_t scanned = 0, cut = 0;
  bool in_quotes = false, file_start = true;
  uint32_t line = 1;
  uint64_t total = 0;
  auto feed = [&](size_t bytes) {
    std::string_view block(pending.data(), bytes);
    summary.csv_.feed(block, line, file_start, keep, on_header);
    file_start = false;
    line += static_cast<uint32_t>(std::count(block.begin(), block.end(), '\n'));
    pending.erase(0, bytes);
    scanned -= bytes;
    cut = 0;
  };
  while (true) {
    pb::sdk::throw_if_cancelled();
    in->read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const size_t got = static_cast<size_t>(in->gcount());
    if (in->bad()) throw pb::sdk::InputError(path.string() + ": read error");
    total += got;
    if (total > pb::sdk::kMaxDataFileBytes)  // the file grew while being read
      throw pb::sdk::InputError(path.string() + ": more than the limit of " +
                                pb::sdk::format_byte_limit(pb::sdk::kMaxDataFileBytes) + " for this kind of input");
    std::string_view bytes(chunk.data(), got);
    if (options.on_bytes && got > 0) options.on_bytes(bytes);
    pending.append(bytes);
    for (; scanned < pending.size(); ++scanned) {
      char c = pending[scanned];
      if (c == '"') in_quotes = !in_quotes;
      else if (c == '\n' && !in_quotes) cut = scanned + 1;
    }
    if (got == 0 || !*in) break;  // end of file: the rest is the last block
    if (cut > 0) {
      feed(cut);
    } else if (pending.size() > kMaxRecordBytes) {
      // A quote that opened and did not close (or a stray quote) is reported
      // where it is; the rest of the file is not read.
      try {
        feed(pending.size());
      } catch (const pb::sdk::InputError &e) {
        throw pb::sdk::InputError(std::string(e.what()) + " within the 64 MiB a record may span");
      }
      throw pb::sdk::InputError(path.string() + ":" + std::to_string(line) + ":1: a record longer than 64 MiB");
    }
  }
  if (!pending.empty()) feed(pending.size());
  summary.csv_.finish();
  summary.classify();
  return summary;
}

std::optional<size_t> OpSummary::find_column(std::string_view name) const {
  const std::vector<std::string> &header = csv_.header();
  auto index_of = [&](std::string_view n) -> std::optional<size_t> {
    auto it = std::find(header.begin(), header.end(), n);
    if (it == header.end()) return std::nullopt;
    return static_cast<size_t>(it - header.begin());
  };
  if (auto idx = index_of(name)) return idx;
  for (const std::vector<std::string> &aliases : column_aliases()) {
    if (std::find(aliases.begin(), aliases.end(), name) == aliases.end()) continue;
    for (const std::string &alias : aliases)
      if (auto idx = index_of(alias)) return idx;
  }
  return std::nullopt;
}

size_t OpSummary::column(std::string_view name) const {
  if (auto idx = find_column(name)) return *idx;
  std::string columns;
  for (const std::string &h : csv_.header()) columns += (columns.empty() ? "" : ", ") + h;
  throw pb::sdk::InputError(origin() + ":1: no column '" + std::string(name) + "'; the header has: " + columns);
}

std::string OpSummary::text(size_t row, size_t col) const {
  std::string_view value = trim(csv_.cell(row, col));
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  return std::string(value);
}

static pb::sdk::NumberRange column_range(std::string_view column) {
  using pb::sdk::NumberRange;
  auto ends_with = [&](std::string_view suffix) {
    return column.size() >= suffix.size() && column.substr(column.size() - suffix.size()) == suffix;
  };
  // A clock in MHz: above 0 and below 100 GHz (a 0 would make every
  // cycle count from it infinite).
  if (column == "Current Freq" || column == "Rated Freq") return NumberRange::positive().at_most(100000);
  // Block counts are stored as integers (a cast of 5e307 is undefined).
  if (column == "Block Dim" || column == "Block Num" || column == "Mix Block Dim" || column == "Mix Block Num")
    return NumberRange::whole(0, 2147483647);
  if (ends_with("_ratio")) return NumberRange::non_negative().at_most(1);
  // Times, durations, counts and rates: never below zero.
  return NumberRange::non_negative();
}

std::optional<double> OpSummary::number(size_t row, size_t col) const {
  std::string_view value = trim(csv_.cell(row, col));
  if (value.empty() || value == "N/A") return std::nullopt;
  std::optional<double> parsed = pb::sdk::parse_number(value);
  if (!parsed)
    throw pb::sdk::InputError(csv_.where(row, col) + ": column '" + csv_.header()[col] + "': expected a number, got '" +
                              std::string(value) + "'");
  // Every number a profiler writes here is a time, a duration, a count, a
  // clock or a ratio: NaN, infinity (1e400), a negative value or a clock of
  // 0 is a broken file, and dropping the row would quietly change which
  // launches are measured.
  if (std::string problem = pb::sdk::number_problem(*parsed, column_range(csv_.header()[col]), value); !problem.empty())
    throw pb::sdk::InputError(csv_.where(row, col) + ": column '" + csv_.header()[col] + "' " + problem);
  return *parsed;
}

double OpSummary::require_number(size_t row, size_t col) const {
  std::optional<double> value = number(row, col);
  if (!value)
    throw pb::sdk::InputError(csv_.where(row, col) + ": column '" + csv_.header()[col] + "': a number is required here, got '" +
                              std::string(csv_.cell(row, col)) + "'");
  return *value;
}

std::vector<Launch> OpSummary::launches(std::string_view op_name, const std::vector<std::string> &task_types) const {
  const size_t name_col = column("Op Name");
  const std::optional<size_t> type_col = find_column("Task Type");
  const std::optional<size_t> start_col = find_column("Task Start Time(us)");
  const std::optional<size_t> duration_col = find_column("Task Duration(us)");
  const std::optional<size_t> device_col = find_column("Device_id");
  const std::optional<size_t> stream_col = find_column("Stream ID");
  const std::optional<size_t> task_col = find_column("Task ID");

  struct Row {
    size_t row;
    double start;  // 0 without a start column (file order is kept by the stable sort)
    double end;
  };
  std::vector<Row> found;
  for (size_t row = 0; row < row_count(); ++row) {
    pb::sdk::poll_cancel();
    if (text(row, name_col) != op_name) continue;
    if (type_col && std::find(task_types.begin(), task_types.end(), text(row, *type_col)) == task_types.end()) continue;
    double start = start_col ? require_number(row, *start_col) : 0.0;
    std::optional<double> duration = duration_col ? number(row, *duration_col) : std::nullopt;
    found.push_back({row, start, start + duration.value_or(0.0)});
  }
  std::stable_sort(found.begin(), found.end(), [](const Row &a, const Row &b) { return a.start < b.start; });

  // One invocation's parts share device, stream and task id and overlap in
  // time; a table without those columns (or without start times) cannot
  // tell parts apart, so each row is its own launch there.
  const bool can_group = start_col && stream_col && task_col;
  auto same_task = [&](size_t a, size_t b) {
    if (device_col && text(a, *device_col) != text(b, *device_col)) return false;
    return text(a, *stream_col) == text(b, *stream_col) && text(a, *task_col) == text(b, *task_col);
  };
  std::vector<Launch> out;
  out.reserve(found.size());  // at most one launch per row: no regrowth copies of a million launches
  double open_end = 0;
  for (const Row &r : found) {
    if (can_group && !out.empty() && same_task(out.back().rows.front(), r.row) && r.start < open_end) {
      Launch &launch = out.back();
      launch.rows.push_back(r.row);
      open_end = std::max(open_end, r.end);
      std::string type = type_col ? text(r.row, *type_col) : std::string();
      if (!type.empty() && launch.task_type.find(type) == std::string::npos) launch.task_type += "+" + type;
      continue;
    }
    Launch launch;
    launch.rows.push_back(r.row);
    if (start_col) launch.start_us = r.start;
    if (type_col) launch.task_type = text(r.row, *type_col);
    open_end = r.end;
    out.push_back(std::move(launch));
  }
  for (Launch &launch : out) std::sort(launch.rows.begin(), launch.rows.end());
  return out;
}

std::optional<double> OpSummary::launch_number(const Launch &launch, size_t col) const {
  std::optional<double> best;
  for (size_t row : launch.rows) {
    std::optional<double> value = number(row, col);
    if (value && (!best || *value > *best)) best = value;
  }
  return best;
}

double OpSummary::launch_require_number(const Launch &launch, size_t col) const {
  std::optional<double> value = launch_number(launch, col);
  if (!value) return require_number(launch.rows.front(), col);  // throws, naming the cell
  return *value;
}

std::vector<uint32_t> OpSummary::launch_lines(const Launch &launch) const {
  std::vector<uint32_t> lines;
  for (size_t row : launch.rows) lines.push_back(csv_.line(row));
  return lines;
}

std::optional<std::string> OpSummary::ai_core_name(size_t row) const {
  const std::optional<size_t> type_col = find_column("Task Type");
  if (type_col) {
    std::string type = text(row, *type_col);
    if (std::find(ai_core_task_types().begin(), ai_core_task_types().end(), type) == ai_core_task_types().end())
      return std::nullopt;
  }
  return text(row, column("Op Name"));
}

std::vector<std::string> OpSummary::kernel_names() const {
  if (file_kernel_names_) return {file_kernel_names_->begin(), file_kernel_names_->end()};
  std::set<std::string> names;
  for (size_t row = 0; row < row_count(); ++row)
    if (std::optional<std::string> name = ai_core_name(row)) names.insert(*name);
  return {names.begin(), names.end()};
}

}  // namespace perfbound::validate
