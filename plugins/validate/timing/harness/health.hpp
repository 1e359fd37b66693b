//===- health.hpp - the device health gate ----------------------------------===//
//
// Before a case: two observations of the vendor SMI tool, `idle_interval_s`
// apart, must both find the device healthy and idle (health OK, no
// uncorrected ECC errors, 0 % utilization, and no foreign process on it).
// During and after the case the device is observed again; a foreign process,
// a health change or rising ECC counts mark the case "contaminated" (its
// samples are kept, but it is not reported as a clean measurement).
//
// Foreign processes are told apart from our worker by comparing process
// tables, never by PID: the SMI tool reports host PIDs, which differ from the
// PIDs a containerised harness sees (PID namespaces; NVIDIA/nvidia-docker
// #1483, HAMi #1064). The rows that appear between the observation before the
// worker opened the device and the one after are the worker's, when exactly
// one appeared; when npu-smi shows "Process id in container", a row whose
// container PID is the worker's PID is the worker's as well. Every other row
// is foreign.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_HEALTH_HPP
#define PERFBOUND_TIMING_HEALTH_HPP

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "smi.hpp"

namespace pb::bench {

struct SmiTarget {
  std::string tool;      // "npu-smi" or "nvidia-smi"
  std::string program;   // what to execute (a name in PATH or a path)
  std::string npu;       // NPU id / GPU index to watch
  std::string chip = "0";
  double timeout_s = 30; // per invocation
};

/// Runs the SMI tool once and parses its output. nullopt plus `error` when
/// the tool could not be run or printed nothing usable.
std::optional<SmiSnapshot> observe_smi(const SmiTarget &target, std::string &error);

/// One observation of the watched device, judged.
struct Observation {
  std::string phase;  // "before", "worker_start", "during", "after"
  std::string at;     // UTC
  std::string error;  // the tool failed; nothing else is known
  bool device_found = false;
  std::optional<std::string> health;
  std::optional<double> utilization_pct;
  std::optional<double> memory_used_mb;
  std::optional<double> ecc_uncorrected;
  bool process_table_known = false;
  std::vector<SmiProcess> processes;  // on the device
  std::vector<SmiProcess> foreign;    // processes minus the worker's
  [[nodiscard]] json to_json() const;
};

class HealthGate {
 public:
  explicit HealthGate(SmiTarget target) : target_(std::move(target)) {}
  [[nodiscard]] const SmiTarget &target() const { return target_; }

  /// Judges a snapshot (pure: no process is run).
  [[nodiscard]] Observation judge(const SmiSnapshot &snapshot, const std::string &phase) const;
  /// Runs the tool and judges its output; the parsed snapshot goes to
  /// `snapshot` when given (nullopt when the tool failed).
  Observation observe(const std::string &phase, std::optional<SmiSnapshot> *snapshot = nullptr) const;

  /// nullopt when `observation` shows a healthy, idle device; else why not.
  [[nodiscard]] static std::optional<std::string> not_idle_reason(const Observation &observation);
  /// nullopt when nothing during/after a case casts doubt on it; else why.
  /// `before` is the last idle observation before the case.
  [[nodiscard]] static std::optional<std::string> contamination_reason(const Observation &before,
                                                                       const Observation &observation);

  /// Learns which rows are the worker's: those that appeared between
  /// `baseline` (before the worker opened the device) and `after_start`, when
  /// exactly one did, plus any whose container PID is `worker_pid`. Returns a
  /// note for the result (e.g. when several rows appeared at once).
  std::string learn_worker_rows(const SmiSnapshot &baseline, const SmiSnapshot &after_start,
                                const std::string &worker_pid);
  void forget_worker_rows() { worker_rows_.clear(); }
  [[nodiscard]] const std::vector<SmiProcess> &worker_rows() const { return worker_rows_; }

 private:
  SmiTarget target_;
  std::vector<SmiProcess> worker_rows_;
};

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_HEALTH_HPP
