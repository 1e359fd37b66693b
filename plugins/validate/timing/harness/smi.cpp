//===- smi.cpp - npu-smi / nvidia-smi parsers ------------------------------===//
#include "smi.hpp"

#include <algorithm>
#include <charconv>
#include <regex>
#include <sstream>

namespace pb::bench {

const char *const kNvidiaSmiGpuQuery =
    "index,pci.bus_id,name,driver_version,utilization.gpu,memory.used,memory.total,"
    "ecc.errors.uncorrected.volatile.total,temperature.gpu,power.draw";
const char *const kNvidiaSmiAppsQuery = "gpu_bus_id,pid,process_name,used_memory";

namespace {

std::string trim(const std::string &text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  size_t last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

bool is_unknown_token(const std::string &value) {
  return value.empty() || value == "-" || value == "NA" || value == "N/A" || value == "[N/A]" ||
         value == "[Not Supported]" || value == "Not Supported";
}

std::optional<double> to_number(const std::string &value) {
  std::string text = trim(value);
  if (is_unknown_token(text)) return std::nullopt;
  double number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return number;
}

std::optional<std::string> to_text(const std::string &value) {
  std::string text = trim(value);
  if (is_unknown_token(text)) return std::nullopt;
  return text;
}

/// "used/total" -> (used, total).
std::pair<std::optional<double>, std::optional<double>> used_total(const std::string &value) {
  size_t slash = value.find('/');
  if (slash == std::string::npos) return {std::nullopt, std::nullopt};
  return {to_number(value.substr(0, slash)), to_number(value.substr(slash + 1))};
}

std::vector<std::string> split_runs_of_spaces(const std::string &text) {
  std::vector<std::string> parts;
  std::string current;
  size_t idx = 0;
  std::string trimmed = trim(text);
  while (idx < trimmed.size()) {
    if (trimmed[idx] == ' ' && idx + 1 < trimmed.size() && trimmed[idx + 1] == ' ') {
      if (!current.empty()) parts.push_back(trim(current));
      current.clear();
      while (idx < trimmed.size() && trimmed[idx] == ' ') ++idx;
      continue;
    }
    current += trimmed[idx++];
  }
  if (!trim(current).empty()) parts.push_back(trim(current));
  return parts;
}

/// Whitespace-separated values, with "a / b", "a/ b" and "a /b" joined into
/// one "a/b" value (npu-smi's used/total cells).
std::vector<std::string> split_values(const std::string &cell) {
  std::vector<std::string> tokens;
  std::istringstream in(cell);
  std::string token;
  while (in >> token) tokens.push_back(token);
  std::vector<std::string> values;
  bool join_next = false;
  for (const std::string &tok : tokens) {
    if (!values.empty() && (join_next || tok.front() == '/')) {
      values.back() += tok;
    } else {
      values.push_back(tok);
    }
    join_next = values.back().back() == '/';
  }
  return values;
}

/// Values separated by runs of two or more spaces (a value may then hold a
/// single space, e.g. a name "Ascend 910B3"), used/total pairs joined.
std::vector<std::string> split_aligned_values(const std::string &cell) {
  std::vector<std::string> values;
  for (std::string part : split_runs_of_spaces(cell)) {
    std::string compact;
    for (char c : part)
      if (!(c == ' ' && (compact.empty() || compact.back() == '/'))) compact += c;
    size_t space_slash = compact.find(" /");
    if (space_slash != std::string::npos) compact.erase(space_slash, 1);
    if (!values.empty() && (values.back().back() == '/' || compact.front() == '/'))
      values.back() += compact;
    else
      values.push_back(compact);
  }
  return values;
}

std::vector<std::string> split_cells(const std::string &line) {
  std::vector<std::string> cells;
  std::string current;
  for (size_t idx = 1; idx < line.size(); ++idx) {  // line[0] == '|'
    if (line[idx] == '|') {
      cells.push_back(trim(current));
      current.clear();
    } else {
      current += line[idx];
    }
  }
  if (!trim(current).empty()) cells.push_back(trim(current));
  return cells;
}

enum class TableKind { kNone, kDevices, kProcesses, kUnrecognized };

struct HeaderLine {
  std::vector<std::vector<std::string>> cells;  // column names per cell
};

class NpuSmiParser {
 public:
  SmiSnapshot parse(const std::string &text) {
    snapshot_.tool = "npu-smi";
    std::istringstream in(text);
    std::string raw;
    int line_no = 0;
    while (std::getline(in, raw)) {
      ++line_no;
      std::string line = trim(raw);
      if (line.empty()) continue;
      if (line[0] == '+') {
        separator(line, line_no);
      } else if (line[0] == '|') {
        row(line, line_no);
      }
    }
    flush_group(line_no);
    if (snapshot_.devices.empty() && snapshot_.processes.empty() && snapshot_.idle_npus.empty())
      snapshot_.warnings.push_back("no npu-smi table found in the output");
    return std::move(snapshot_);
  }

 private:
  void separator(const std::string &line, int line_no) {
    bool has_inner_plus = line.size() > 2 && line.find('+', 1) < line.size() - 1;
    bool is_double = line.find('=') != std::string::npos;
    if (is_double) {
      if (!in_data_) {
        in_data_ = true;
        kind_ = classify();
        if (kind_ == TableKind::kUnrecognized && !header_.empty())
          snapshot_.warnings.push_back("line " + std::to_string(line_no) + ": " + std::to_string(header_.size()) +
                                       " table line(s) before any known header were ignored (output cut off?)");
      } else {
        flush_group(line_no);
      }
      return;
    }
    flush_group(line_no);
    if (has_inner_plus) {  // the border above a table header
      in_data_ = false;
      header_.clear();
      kind_ = TableKind::kNone;
    }
  }

  void row(const std::string &line, int line_no) {
    static const std::regex kVersion(R"(npu-smi\s+(\S+)\s+Version:\s*(\S+))");
    static const std::regex kNoProcess(R"(No running processes found in NPU\s+(\S+))");
    std::smatch match;
    if (std::regex_search(line, match, kVersion)) {
      snapshot_.version = match[2].str();
      return;
    }
    if (std::regex_search(line, match, kNoProcess)) {
      snapshot_.idle_npus.push_back(match[1].str());
      snapshot_.process_table_seen = true;
      return;
    }
    std::vector<std::string> cells = split_cells(line);
    if (!in_data_) {
      HeaderLine header;
      for (const std::string &cell : cells) header.cells.push_back(split_runs_of_spaces(cell));
      header_.push_back(std::move(header));
      return;
    }
    if (kind_ == TableKind::kUnrecognized || kind_ == TableKind::kNone) return;
    group_.push_back({line_no, std::move(cells)});
    if (group_.size() == header_.size()) emit();
  }

  TableKind classify() const {
    bool health = false;
    bool process = false;
    for (const HeaderLine &header : header_)
      for (const auto &cell : header.cells)
        for (const std::string &name : cell) {
          health = health || name == "Health";
          process = process || name == "Process id";
        }
    if (health) return TableKind::kDevices;
    if (process) return TableKind::kProcesses;
    return header_.empty() ? TableKind::kNone : TableKind::kUnrecognized;
  }

  void flush_group(int line_no) {
    if (!group_.empty())
      snapshot_.warnings.push_back("line " + std::to_string(line_no) + ": a table record has " +
                                   std::to_string(group_.size()) + " line(s), its header has " +
                                   std::to_string(header_.size()) + "; record ignored");
    group_.clear();
  }

  /// Maps the values of the current group onto the header's column names.
  void emit() {
    std::map<std::string, std::string> fields;
    for (size_t line_idx = 0; line_idx < group_.size(); ++line_idx) {
      const auto &[line_no, cells] = group_[line_idx];
      const HeaderLine &header = header_[line_idx];
      if (cells.size() != header.cells.size()) {
        snapshot_.warnings.push_back("line " + std::to_string(line_no) + ": " + std::to_string(cells.size()) +
                                     " cells under a header of " + std::to_string(header.cells.size()) +
                                     "; record ignored");
        group_.clear();
        return;
      }
      for (size_t cell_idx = 0; cell_idx < cells.size(); ++cell_idx) {
        const std::vector<std::string> &names = header.cells[cell_idx];
        if (names.size() == 1) {
          fields[names[0]] = cells[cell_idx];
          continue;
        }
        std::vector<std::string> values = split_values(cells[cell_idx]);
        if (values.size() != names.size()) values = split_aligned_values(cells[cell_idx]);
        if (values.size() != names.size()) {
          std::string joined;
          for (const std::string &name : names) joined += (joined.empty() ? "" : ", ") + name;
          snapshot_.warnings.push_back("line " + std::to_string(line_no) + ": cannot split '" + cells[cell_idx] +
                                       "' into " + joined + "; those fields are unknown");
          continue;
        }
        for (size_t name_idx = 0; name_idx < names.size(); ++name_idx) fields[names[name_idx]] = values[name_idx];
      }
    }
    group_.clear();
    auto get = [&fields](const char *name) -> std::string {
      auto it = fields.find(name);
      return it == fields.end() ? std::string() : it->second;
    };
    if (kind_ == TableKind::kDevices) {
      SmiDevice device;
      device.npu = get("NPU");
      device.name = get("Name");
      device.chip = get("Chip");
      device.phy_id = to_text(get("Phy-ID"));
      device.health = to_text(get("Health"));
      device.bus_id = to_text(get("Bus-Id"));
      device.power_w = to_number(get("Power(W)"));
      device.temperature_c = to_number(get("Temp(C)"));
      device.utilization_pct = to_number(get("AICore(%)"));
      auto [used, total] = used_total(get("HBM-Usage(MB)"));
      device.memory_used_mb = used;
      device.memory_total_mb = total;
      snapshot_.devices.push_back(std::move(device));
    } else if (kind_ == TableKind::kProcesses) {
      SmiProcess process;
      process.npu = get("NPU");
      process.chip = get("Chip");
      process.pid = get("Process id");
      process.name = get("Process name");
      process.memory_mb = to_number(get("Process memory(MB)"));
      process.container_pid = to_text(get("Process id in container"));
      snapshot_.processes.push_back(std::move(process));
      snapshot_.process_table_seen = true;
    }
  }

  SmiSnapshot snapshot_;
  std::vector<HeaderLine> header_;
  std::vector<std::pair<int, std::vector<std::string>>> group_;
  bool in_data_ = false;
  TableKind kind_ = TableKind::kNone;
};

/// CSV (nvidia-smi style: ", " separated, no quoting) into maps by header
/// name; " [unit]" suffixes are dropped from header names.
std::vector<std::map<std::string, std::string>> parse_csv_by_header(const std::string &text,
                                                                    std::vector<std::string> &warnings,
                                                                    const std::string &what) {
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  int line_no = 0;
  auto split = [](const std::string &row) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream cells_in(row);
    while (std::getline(cells_in, cell, ',')) cells.push_back(trim(cell));
    return cells;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    std::vector<std::string> cells = split(line);
    if (header.empty()) {
      for (std::string &name : cells) {
        size_t bracket = name.find(" [");
        header.push_back(bracket == std::string::npos ? name : trim(name.substr(0, bracket)));
      }
      continue;
    }
    if (cells.size() != header.size()) {
      warnings.push_back(what + " line " + std::to_string(line_no) + ": " + std::to_string(cells.size()) +
                         " values under " + std::to_string(header.size()) + " header names; row ignored");
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t idx = 0; idx < header.size(); ++idx) row[header[idx]] = cells[idx];
    rows.push_back(std::move(row));
  }
  if (header.empty()) warnings.push_back(what + ": no CSV header");
  return rows;
}

}  // namespace

json SmiDevice::to_json() const {
  auto opt = [](const auto &value) { return value ? json(*value) : json(nullptr); };
  return json{{"npu", npu},
              {"chip", chip},
              {"phy_id", opt(phy_id)},
              {"name", name},
              {"health", opt(health)},
              {"bus_id", opt(bus_id)},
              {"power_w", opt(power_w)},
              {"temperature_c", opt(temperature_c)},
              {"utilization_pct", opt(utilization_pct)},
              {"memory_used_mb", opt(memory_used_mb)},
              {"memory_total_mb", opt(memory_total_mb)},
              {"ecc_uncorrected", opt(ecc_uncorrected)}};
}

json SmiProcess::to_json() const {
  return json{{"npu", npu},
              {"chip", chip},
              {"pid", pid},
              {"name", name},
              {"memory_mb", memory_mb ? json(*memory_mb) : json(nullptr)},
              {"container_pid", container_pid ? json(*container_pid) : json(nullptr)}};
}

const SmiDevice *SmiSnapshot::find_device(const std::string &npu, const std::string &chip) const {
  for (const SmiDevice &device : devices)
    if (device.npu == npu && device.chip == chip) return &device;
  return nullptr;
}

std::vector<SmiProcess> SmiSnapshot::processes_on(const std::string &npu, const std::string &chip) const {
  std::vector<SmiProcess> out;
  for (const SmiProcess &process : processes)
    if (process.npu == npu && process.chip == chip) out.push_back(process);
  return out;
}

bool SmiSnapshot::process_table_known(const std::string &npu) const {
  for (const std::string &idle : idle_npus)
    if (idle == npu) return true;
  for (const SmiProcess &process : processes)
    if (process.npu == npu) return true;
  // nvidia-smi's app query lists every process; an absent GPU has none.
  return tool == "nvidia-smi" && process_table_seen;
}

SmiSnapshot parse_npu_smi_info(const std::string &text) { return NpuSmiParser().parse(text); }

std::vector<NpuChipMapping> parse_npu_smi_mapping(const std::string &text) {
  std::vector<NpuChipMapping> out;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> parts = split_runs_of_spaces(line);
    if (parts.empty()) continue;
    if (header.empty()) {
      if (std::find(parts.begin(), parts.end(), "NPU ID") != parts.end()) header = parts;
      continue;
    }
    if (parts.size() != header.size()) continue;
    std::map<std::string, std::string> fields;
    for (size_t idx = 0; idx < header.size(); ++idx) fields[header[idx]] = parts[idx];
    out.push_back({fields["NPU ID"], fields["Chip ID"], to_text(fields["Chip Logic ID"]), fields["Chip Name"]});
  }
  return out;
}

SmiSnapshot parse_nvidia_smi(const std::string &gpu_csv, const std::string &apps_csv) {
  SmiSnapshot snapshot;
  snapshot.tool = "nvidia-smi";
  for (auto &row : parse_csv_by_header(gpu_csv, snapshot.warnings, "nvidia-smi --query-gpu")) {
    SmiDevice device;
    device.npu = row["index"];
    device.chip = "0";
    device.name = row["name"];
    device.bus_id = to_text(row["pci.bus_id"]);
    device.utilization_pct = to_number(row["utilization.gpu"]);
    device.memory_used_mb = to_number(row["memory.used"]);
    device.memory_total_mb = to_number(row["memory.total"]);
    device.ecc_uncorrected = to_number(row["ecc.errors.uncorrected.volatile.total"]);
    device.temperature_c = to_number(row["temperature.gpu"]);
    device.power_w = to_number(row["power.draw"]);
    if (auto driver = to_text(row["driver_version"])) snapshot.version = *driver;
    snapshot.devices.push_back(std::move(device));
  }
  snapshot.process_table_seen = true;
  for (auto &row : parse_csv_by_header(apps_csv, snapshot.warnings, "nvidia-smi --query-compute-apps")) {
    SmiProcess process;
    std::optional<std::string> bus = to_text(row["gpu_bus_id"]);
    for (const SmiDevice &device : snapshot.devices)
      if (bus && device.bus_id == bus) process.npu = device.npu;
    if (process.npu.empty()) {
      snapshot.warnings.push_back("nvidia-smi: process " + row["pid"] + " is on bus " + bus.value_or("?") +
                                  ", which no listed GPU has");
      continue;
    }
    process.chip = "0";
    process.pid = row["pid"];
    process.name = row["process_name"];
    process.memory_mb = to_number(row["used_memory"]);
    snapshot.processes.push_back(std::move(process));
  }
  return snapshot;
}

}  // namespace pb::bench
