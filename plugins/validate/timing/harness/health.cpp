//===- health.cpp - the device health gate ----------------------------------===//
#include "health.hpp"

#include "process.hpp"

namespace pb::bench {

namespace {

bool same_row(const SmiProcess &left, const SmiProcess &right) {
  return left.pid == right.pid && left.name == right.name && left.npu == right.npu && left.chip == right.chip;
}

bool contains_row(const std::vector<SmiProcess> &rows, const SmiProcess &row) {
  for (const SmiProcess &candidate : rows)
    if (same_row(candidate, row)) return true;
  return false;
}

std::string describe_rows(const std::vector<SmiProcess> &rows) {
  std::string text;
  for (const SmiProcess &row : rows) {
    text += text.empty() ? "" : ", ";
    text += "pid " + row.pid + " (" + row.name;
    if (row.memory_mb) text += ", " + std::to_string(static_cast<long long>(*row.memory_mb)) + " MB";
    text += ")";
  }
  return text;
}

std::string format_number(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::optional<SmiSnapshot> observe_smi(const SmiTarget &target, std::string &error) {
  if (target.tool == "npu-smi") {
    CaptureResult run = run_capture({target.program, "info"}, target.timeout_s);
    if (!run.ok()) {
      error = target.program + " info: " + run.describe(target.timeout_s) + (run.err.empty() ? "" : ": " + run.err.substr(0, 200));
      return std::nullopt;
    }
    SmiSnapshot snapshot = parse_npu_smi_info(run.out);
    if (snapshot.devices.empty() && !snapshot.process_table_seen) {
      error = target.program + " info printed no device table";
      return std::nullopt;
    }
    return snapshot;
  }
  if (target.tool == "nvidia-smi") {
    CaptureResult gpus = run_capture(
        {target.program, std::string("--query-gpu=") + kNvidiaSmiGpuQuery, "--format=csv,nounits"}, target.timeout_s);
    CaptureResult apps = run_capture(
        {target.program, std::string("--query-compute-apps=") + kNvidiaSmiAppsQuery, "--format=csv,nounits"},
        target.timeout_s);
    if (!gpus.ok() || !apps.ok()) {
      error = target.program + ": " + (!gpus.ok() ? gpus.describe(target.timeout_s) : apps.describe(target.timeout_s));
      return std::nullopt;
    }
    return parse_nvidia_smi(gpus.out, apps.out);
  }
  error = "unknown SMI tool '" + target.tool + "'";
  return std::nullopt;
}

json Observation::to_json() const {
  json processes_json = json::array();
  for (const SmiProcess &row : processes) processes_json.push_back(row.to_json());
  json foreign_json = json::array();
  for (const SmiProcess &row : foreign) foreign_json.push_back(row.to_json());
  auto opt = [](const auto &value) { return value ? json(*value) : json(nullptr); };
  return json{{"phase", phase},
              {"at", at},
              {"error", error.empty() ? json(nullptr) : json(error)},
              {"device_found", device_found},
              {"health", opt(health)},
              {"utilization_pct", opt(utilization_pct)},
              {"memory_used_mb", opt(memory_used_mb)},
              {"ecc_uncorrected", opt(ecc_uncorrected)},
              {"process_table_known", process_table_known},
              {"processes", processes_json},
              {"foreign_processes", foreign_json}};
}

Observation HealthGate::judge(const SmiSnapshot &snapshot, const std::string &phase) const {
  Observation observation;
  observation.phase = phase;
  observation.at = utc_now_iso();
  const SmiDevice *device = snapshot.find_device(target_.npu, target_.chip);
  observation.device_found = device != nullptr;
  if (device != nullptr) {
    observation.health = device->health;
    observation.utilization_pct = device->utilization_pct;
    observation.memory_used_mb = device->memory_used_mb;
    observation.ecc_uncorrected = device->ecc_uncorrected;
  }
  observation.process_table_known = snapshot.process_table_known(target_.npu);
  observation.processes = snapshot.processes_on(target_.npu, target_.chip);
  for (const SmiProcess &row : observation.processes)
    if (!contains_row(worker_rows_, row)) observation.foreign.push_back(row);
  return observation;
}

Observation HealthGate::observe(const std::string &phase, std::optional<SmiSnapshot> *snapshot) const {
  std::string error;
  std::optional<SmiSnapshot> parsed = observe_smi(target_, error);
  Observation observation;
  if (parsed) {
    observation = judge(*parsed, phase);
  } else {
    observation.phase = phase;
    observation.at = utc_now_iso();
    observation.error = error;
  }
  if (snapshot != nullptr) *snapshot = std::move(parsed);
  return observation;
}

std::optional<std::string> HealthGate::not_idle_reason(const Observation &observation) {
  if (!observation.error.empty()) return "cannot observe the device: " + observation.error;
  if (!observation.device_found) return "the watched device is not in the SMI output";
  if (observation.health && *observation.health != "OK") return "device health is " + *observation.health;
  if (observation.ecc_uncorrected && *observation.ecc_uncorrected > 0)
    return "the device has " + format_number(*observation.ecc_uncorrected) + " uncorrected ECC errors";
  if (!observation.process_table_known) return "the SMI output has no process table for the device";
  if (!observation.foreign.empty()) return "foreign process(es) on the device: " + describe_rows(observation.foreign);
  if (!observation.utilization_pct) return "the device's utilization is not reported";
  if (*observation.utilization_pct > 0) return "the device is " + format_number(*observation.utilization_pct) + " % busy";
  return std::nullopt;
}

std::optional<std::string> HealthGate::contamination_reason(const Observation &before, const Observation &observation) {
  std::string when = "(" + observation.phase + " the case)";
  if (!observation.error.empty()) return "cannot observe the device " + when + ": " + observation.error;
  if (!observation.foreign.empty()) return "foreign process(es) on the device " + when + ": " + describe_rows(observation.foreign);
  if (!observation.device_found) return "the watched device vanished from the SMI output " + when;
  if (observation.health != before.health)
    return "device health changed from " + before.health.value_or("unknown") + " to " +
           observation.health.value_or("unknown") + " " + when;
  if (observation.ecc_uncorrected.value_or(0) > before.ecc_uncorrected.value_or(0))
    return "uncorrected ECC errors rose from " + format_number(before.ecc_uncorrected.value_or(0)) + " to " +
           format_number(*observation.ecc_uncorrected) + " " + when;
  return std::nullopt;
}

std::string HealthGate::learn_worker_rows(const SmiSnapshot &baseline, const SmiSnapshot &after_start,
                                          const std::string &worker_pid) {
  worker_rows_.clear();
  std::vector<SmiProcess> before = baseline.processes_on(target_.npu, target_.chip);
  std::vector<SmiProcess> appeared;
  for (const SmiProcess &row : after_start.processes_on(target_.npu, target_.chip)) {
    if (row.container_pid && *row.container_pid == worker_pid) {
      worker_rows_.push_back(row);
      continue;
    }
    if (!contains_row(before, row)) appeared.push_back(row);
  }
  if (appeared.size() == 1) {
    worker_rows_.push_back(appeared.front());
    return "the worker is SMI row pid " + appeared.front().pid + " (" + appeared.front().name +
           "), the one row that appeared when it opened the device";
  }
  if (appeared.empty())
    return worker_rows_.empty() ? "no new SMI row appeared when the worker opened the device" : "the worker was matched by container PID";
  return std::to_string(appeared.size()) + " rows appeared when the worker opened the device (" + describe_rows(appeared) +
         "); which one is the worker's cannot be told, so all are treated as foreign";
}

}  // namespace pb::bench
