//===- result.cpp - result rows, the run result document, Markdown ----------===//
#include "result.hpp"

#include <cstdio>
#include <map>

#include "protocol.hpp"

namespace pb::bench {

namespace {

json statistic_skeleton() {
  return json{{"name", std::string(kStatisticName)},
              {"definition", std::string(kStatisticDefinition)},
              {"value_us", nullptr}};
}

json base_row(const json &plan_case, const json &preflight, const json &health, const json &device) {
  json row;
  row["case_id"] = plan_case.value("id", "");
  row["name"] = plan_case.value("name", "");
  row["phase"] = plan_case.value("phase", "measure");
  row["source"] = plan_case.value("source", json(nullptr));
  row["op"] = plan_case.contains("op") && !plan_case.at("op").is_null()
                  ? json{{"type", "gemm"}, {"m", plan_case["op"]["m"]}, {"n", plan_case["op"]["n"]}, {"k", plan_case["op"]["k"]},
                         {"a", plan_case["op"]["a"]}, {"b", plan_case["op"]["b"]}, {"out", plan_case["op"]["out"]},
                         {"testlist_shape", plan_case["op"]["testlist_shape"]}}
                  : json(nullptr);
  row["status"] = "error";
  row["reason"] = nullptr;
  row["skipped_reason"] = nullptr;
  row["samples_us"] = nullptr;
  row["statistic"] = statistic_skeleton();
  row["latency_us"] = nullptr;
  row["tflops"] = nullptr;
  row["check"] = nullptr;
  row["timing"] = nullptr;
  row["preflight"] = preflight;
  row["health"] = health;
  row["device"] = device;
  row["native_output"] = nullptr;
  row["worker"] = nullptr;
  return row;
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string number_or_dash(const json &value, int digits) {
  return value.is_number() ? fixed(value.get<double>(), digits) : "-";
}

std::string scientific(const json &value) {
  if (!value.is_number()) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", value.get<double>());
  return text;
}

std::string shape_text(const json &row) {
  if (!row.contains("op") || row["op"].is_null()) return "-";
  const json &op = row["op"];
  return op["m"].dump() + "x" + op["n"].dump() + "x" + op["k"].dump();
}

std::string dtype_text(const json &row) {
  if (!row.contains("op") || row["op"].is_null()) return "-";
  const json &op = row["op"];
  return op["a"].get<std::string>() + "," + op["b"].get<std::string>() + "->" + op["out"].get<std::string>();
}

std::string note_of(const json &row) {
  for (const char *key : {"skipped_reason", "reason"})
    if (row.contains(key) && row[key].is_string()) return row[key].get<std::string>();
  return "";
}

std::string escape_cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out.size() > 160 ? out.substr(0, 157) + "..." : out;
}

/// The multi-device part of a merged result: per-device throughput and
/// sick-card verdicts, duplicates and replicas, missing cases.
std::string render_devices(const json &result, bool markdown) {
  std::string out;
  const json &devices = result.value("devices", json::array());
  if (devices.empty()) return out;
  if (markdown) {
    out += "\n## Devices\n\n| device | rows | ok | failed | device time s | cases/hour | sick card |\n|---|---:|---:|---:|---:|---:|---|\n";
  } else {
    out += "devices:\n";
  }
  for (const json &device : devices) {
    const json &sick = device.value("sick_card", json::object());
    std::string verdict = sick.value("flag", false) ? "SICK: " : sick.value("suspect", false) ? "suspect: " : "";
    verdict += sick.value("reason", std::string());
    if (markdown)
      out += "| " + escape_cell(device.value("device", std::string("?"))) + " | " + device.value("rows", json(0)).dump() +
             " | " + device.value("ok", json(0)).dump() + " | " + device.value("failed", json(0)).dump() + " | " +
             number_or_dash(device.value("busy_s", json(nullptr)), 1) + " | " +
             number_or_dash(device.value("cases_per_hour", json(nullptr)), 0) + " | " + escape_cell(verdict) + " |\n";
    else
      out += "  " + device.value("device", std::string("?")) + ": " + device.value("rows", json(0)).dump() + " rows, ok " +
             device.value("ok", json(0)).dump() + ", " + number_or_dash(device.value("cases_per_hour", json(nullptr)), 0) +
             " cases/hour of device time; " + verdict + "\n";
  }
  auto count = [&](const char *key) { return result.value(key, json::array()).size(); };
  std::string line = "duplicates " + std::to_string(count("duplicates")) + " (a case measured twice: the first ok row is used), replicas " +
                     std::to_string(count("replicas")) + " (smoke cases, run on every device and shard), missing " +
                     std::to_string(count("missing"));
  out += markdown ? "\n- " + line + "\n" : line + "\n";
  for (const json &duplicate : result.value("duplicates", json::array()))
    out += std::string(markdown ? "- " : "  ") + "duplicate " + duplicate.value("case_id", std::string()) + ": used " +
           duplicate["used"].value("device", std::string()) + " (" + duplicate["used"].value("journal", std::string()) + ")\n";
  size_t listed = 0;
  for (const json &case_id : result.value("missing", json::array()))
    if (listed++ < 50) out += std::string(markdown ? "- " : "  ") + "missing " + case_id.get<std::string>() + "\n";
  return out;
}

}  // namespace

json make_unmeasured_row(const json &plan_case, const std::string &status, const std::string &reason,
                         const json &skipped_reason, const json &preflight, const json &health, const json &device) {
  json row = base_row(plan_case, preflight, health, device);
  row["status"] = status;
  row["reason"] = reason;
  row["skipped_reason"] = skipped_reason;
  return row;
}

json make_measured_row(const json &plan_case, const json &outcome, const json &preflight, const json &health,
                       const json &device) {
  json row = base_row(plan_case, preflight, health, device);
  row["status"] = outcome.value("status", "error");
  row["reason"] = outcome.value("reason", json(nullptr));
  row["samples_us"] = outcome.value("samples_us", json(nullptr));
  row["check"] = outcome.value("check", json(nullptr));
  row["timing"] = outcome.value("timing", json(nullptr));
  finish_statistic(row);
  return row;
}

void finish_statistic(json &row) {
  row["statistic"] = statistic_skeleton();
  row["latency_us"] = nullptr;
  row["tflops"] = nullptr;
  if (!row["samples_us"].is_array()) return;
  std::vector<double> samples;
  for (const json &sample : row["samples_us"])
    if (sample.is_number()) samples.push_back(sample.get<double>());
  if (samples.size() != row["samples_us"].size()) return;
  std::optional<double> median = upper_median(samples);
  if (!median) return;
  row["statistic"]["value_us"] = *median;
  row["latency_us"] = *median;
  if (row["op"].is_object()) {
    auto tflops = gemm_tflops(row["op"]["m"].get<uint64_t>(), row["op"]["n"].get<uint64_t>(),
                              row["op"]["k"].get<uint64_t>(), *median);
    row["tflops"] = tflops ? json(*tflops) : json(nullptr);
  }
}

void check_row_numbers(const json &root, const json::json_pointer &at, const pb::sdk::JsonSource &source) {
  using pb::sdk::NumberRange;
  const json &row = root.at(at);
  if (!row.is_object()) source.fail(at, "a result row must be a JSON object");
  const NumberRange time_us = NumberRange::positive();
  (void)source.optional_number(root, at / "latency_us", time_us, "\"latency_us\"");
  (void)source.optional_number(root, at / "tflops", NumberRange::non_negative(), "\"tflops\"");
  if (row.contains("statistic") && row["statistic"].is_object())
    (void)source.optional_number(root, at / "statistic" / "value_us", time_us, "\"statistic.value_us\"");
  if (row.contains("samples_us") && row["samples_us"].is_array())
    for (size_t idx = 0; idx < row["samples_us"].size(); ++idx)
      (void)source.number(root, at / "samples_us" / idx, time_us, "sample " + std::to_string(idx + 1) + " of \"samples_us\"");
  (void)source.optional_number(root, at / "duration_s", NumberRange::non_negative(), "\"duration_s\"");
}

bool is_failure_status(const std::string &status) {
  return status == "error" || status == "check_failed" || status == "timeout" || status == "contaminated";
}

json make_result(const json &run, const std::vector<json> &rows, const std::string &state) {
  json result;
  result["schema"] = kResultSchema;
  result["schema_version"] = "1";
  result["state"] = state;
  result["run"] = run;
  result["rows"] = rows;
  std::map<std::string, int> counts;
  for (const char *status : kRowStatuses) counts[status] = 0;
  for (const json &row : rows) ++counts[row.value("status", "error")];
  json summary = json::object();
  for (const auto &[status, count] : counts) summary[status] = count;
  summary["cases"] = rows.size();
  result["summary"] = summary;
  return result;
}

std::string render_markdown(const json &result) {
  const json &run = result.value("run", json::object());
  std::string out = "# perfbound bench: " + run.value("id", std::string("run")) + "\n\n";
  out += "- state: **" + result.value("state", std::string("?")) + "**\n";
  if (run.contains("backend")) out += "- backend: `" + run["backend"].value("name", std::string("?")) + "` (" +
                                      run["backend"].value("plugin", std::string("?")) + ")\n";
  if (run.contains("device") && run["device"].contains("identity")) {
    const json &identity = run["device"]["identity"];
    out += "- device: " + (identity.value("name", json(nullptr)).is_string() ? identity["name"].get<std::string>() : "unknown") +
           " (index " + run["device"].value("index", json(0)).dump() + ")\n";
  }
  if (run.contains("plan")) out += "- plan: `" + run["plan"].value("file", std::string("?")) + "` sha256 " +
                                   run["plan"].value("sha256", std::string("?")).substr(0, 16) + "...\n";
  if (run.contains("shape_divisor") && run["shape_divisor"] != 1)
    out += "- shapes scaled down by " + run["shape_divisor"].dump() + " (recorded in the fingerprint)\n";
  out += "- statistic: upper median `" + std::string(kStatisticDefinition) + "` of " + std::to_string(kSampleCount) +
         " queued samples; TFLOPS = " + std::string(kTflopsDefinition) + "\n";
  const json &summary = result.value("summary", json::object());
  out += "- cases: " + summary.value("cases", json(0)).dump();
  for (const char *status : kRowStatuses) out += ", " + std::string(status) + " " + summary.value(status, json(0)).dump();
  out += "\n\n";
  out += "| case | shape (m x n x k) | dtypes | status | latency us (upper median) | TFLOPS | max rel err | note |\n";
  out += "|---|---|---|---|---:|---:|---:|---|\n";
  for (const json &row : result.value("rows", json::array())) {
    json max_rel = row.contains("check") && row["check"].is_object() ? row["check"].value("max_rel_err", json(nullptr)) : json(nullptr);
    out += "| " + escape_cell(row.value("case_id", std::string())) + " | " + shape_text(row) + " | " + dtype_text(row) +
           " | " + row.value("status", std::string("?")) + " | " + number_or_dash(row.value("latency_us", json(nullptr)), 2) +
           " | " + number_or_dash(row.value("tflops", json(nullptr)), 3) + " | " + scientific(max_rel) + " | " +
           escape_cell(note_of(row)) + " |\n";
  }
  out += render_devices(result, true);
  return out;
}

std::string render_text(const json &result) {
  std::string out;
  const json &summary = result.value("summary", json::object());
  out += "perfbound bench " + result.value("run", json::object()).value("id", std::string("run")) + " (" +
         result.value("state", std::string("?")) + "): " + summary.value("cases", json(0)).dump() + " cases";
  for (const char *status : kRowStatuses) out += ", " + std::string(status) + " " + summary.value(status, json(0)).dump();
  out += "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-22s %-16s %-13s %14s %10s\n", "case", "shape", "dtypes", "status",
                "latency_us", "TFLOPS");
  out += line;
  for (const json &row : result.value("rows", json::array())) {
    std::snprintf(line, sizeof line, "%-28s %-22s %-16s %-13s %14s %10s\n", row.value("case_id", std::string()).c_str(),
                  shape_text(row).c_str(), dtype_text(row).c_str(), row.value("status", std::string("?")).c_str(),
                  number_or_dash(row.value("latency_us", json(nullptr)), 2).c_str(),
                  number_or_dash(row.value("tflops", json(nullptr)), 3).c_str());
    out += line;
    std::string note = note_of(row);
    if (!note.empty()) out += "    " + note + "\n";
  }
  out += render_devices(result, false);
  return out;
}

}  // namespace pb::bench
