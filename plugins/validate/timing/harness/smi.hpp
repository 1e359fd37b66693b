//===- smi.hpp - vendor SMI tool output, parsed by header names -------------===//
//
// `npu-smi info` prints box tables whose layout differs between versions
// (23.0 vs 26.0: a Phy-ID column, two chips per NPU, a "Process id in
// container" column; research/timing.md §1.4). The parser therefore never
// uses column positions: it reads each table's header lines, splits every
// header cell into column names, and maps the values of each data line to
// those names. A value it cannot map is left unknown with a warning, never
// guessed. `nvidia-smi --query-* --format=csv` is mapped by its CSV header.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_SMI_HPP
#define PERFBOUND_TIMING_SMI_HPP

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pb::bench {

using json = nlohmann::json;

/// One device (an NPU chip or a GPU) as the SMI tool shows it.
struct SmiDevice {
  std::string npu;   // NPU id ("4"), or the GPU index
  std::string chip;  // chip id within the NPU ("0"); "0" for GPUs
  std::optional<std::string> phy_id;
  std::string name;
  std::optional<std::string> health;  // "OK", "Warning", ...
  std::optional<std::string> bus_id;
  std::optional<double> power_w;
  std::optional<double> temperature_c;
  std::optional<double> utilization_pct;  // AICore(%) / utilization.gpu
  std::optional<double> memory_used_mb;   // HBM used (npu-smi) / memory.used
  std::optional<double> memory_total_mb;
  std::optional<double> ecc_uncorrected;  // null when the tool does not say
  [[nodiscard]] json to_json() const;
};

/// One process holding a device. `pid` is the PID as the tool reports it,
/// which is a host PID even when we run inside a container (PID namespace);
/// it is kept as a string and never compared with getpid().
struct SmiProcess {
  std::string npu;
  std::string chip;
  std::string pid;
  std::string name;
  std::optional<double> memory_mb;
  std::optional<std::string> container_pid;  // npu-smi 26.x; null when "NA"
  [[nodiscard]] json to_json() const;
};

struct SmiSnapshot {
  std::string tool;     // "npu-smi" or "nvidia-smi"
  std::string version;  // "" when not shown
  std::vector<SmiDevice> devices;
  std::vector<SmiProcess> processes;
  /// NPU ids the tool states have no processes ("No running processes found").
  std::vector<std::string> idle_npus;
  /// Whether a process table (or its "no processes" lines) was seen at all.
  bool process_table_seen = false;
  std::vector<std::string> warnings;

  [[nodiscard]] const SmiDevice *find_device(const std::string &npu, const std::string &chip) const;
  /// Rows of the process table on one device.
  [[nodiscard]] std::vector<SmiProcess> processes_on(const std::string &npu, const std::string &chip) const;
  /// Whether the process table of this device is known (listed or stated empty).
  [[nodiscard]] bool process_table_known(const std::string &npu) const;
};

/// Parses `npu-smi info`. Lines outside the box tables (a shell prompt,
/// indentation) are ignored.
SmiSnapshot parse_npu_smi_info(const std::string &text);

/// `npu-smi info -m`: NPU ID, Chip ID, Chip Logic ID, Chip Name, split on runs
/// of two or more spaces. Logic id "-" (an MCU) is kept as null.
struct NpuChipMapping {
  std::string npu;
  std::string chip;
  std::optional<std::string> logic_id;
  std::string name;
};
std::vector<NpuChipMapping> parse_npu_smi_mapping(const std::string &text);

/// Parses `nvidia-smi --query-gpu=... --format=csv,nounits` and
/// `--query-compute-apps=gpu_bus_id,pid,process_name,used_memory
/// --format=csv,nounits` by header names.
SmiSnapshot parse_nvidia_smi(const std::string &gpu_csv, const std::string &apps_csv);

/// The fields nvidia-smi is asked for (kept next to the parser).
extern const char *const kNvidiaSmiGpuQuery;
extern const char *const kNvidiaSmiAppsQuery;

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_SMI_HPP
