//===- merge.cpp - one result from the journals of many devices and shards --===//
#include "merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <perfbound/sdk/plugin.hpp>

#include "journal.hpp"
#include "process.hpp"
#include "result.hpp"
#include "runner.hpp"

namespace pb::bench {

namespace {

const json &member(const json &object, const char *key) {
  static const json kNull;
  return object.is_object() && object.contains(key) ? object.at(key) : kNull;
}

/// The plan part without the shard: what every journal of a campaign shares.
json campaign_part(const json &header) {
  json plan = member(member(header, "fingerprint"), "plan");
  if (plan.is_object()) plan.erase("shard");
  return plan;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

struct Candidate {
  size_t source;
  const json *row;
};

json reference(const MergeSource &source, const std::string &device) {
  return json{{"journal", source.label},
              {"device", device},
              {"shard", member(member(member(source.header, "fingerprint"), "plan"), "shard")}};
}

}  // namespace

std::vector<fs::path> journals_in(const fs::path &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw pb::sdk::InputError(dir.string() + ": not a run directory");
  std::vector<fs::path> journals;
  if (fs::exists(dir / "journal.jsonl", ec)) journals.push_back(dir / "journal.jsonl");
  if (fs::is_directory(dir / "lanes", ec)) {
    std::vector<fs::path> lanes;
    for (const fs::directory_entry &entry : fs::directory_iterator(dir / "lanes", ec))
      if (fs::exists(entry.path() / "journal.jsonl", ec)) lanes.push_back(entry.path() / "journal.jsonl");
    std::sort(lanes.begin(), lanes.end());
    journals.insert(journals.end(), lanes.begin(), lanes.end());
  }
  if (journals.empty())
    throw pb::sdk::InputError(dir.string() + ": no journal (neither journal.jsonl nor lanes/*/journal.jsonl)");
  return journals;
}

MergeSource load_source(const fs::path &journal) {
  JournalContents contents = read_journal(journal);
  if (contents.header.value("schema", "") != kJournalHeaderSchema)
    throw pb::sdk::InputError(journal.string() + ":1: not a " + std::string(kJournalHeaderSchema) + " header");
  return MergeSource{journal.string(), contents.header, contents.records, contents.torn_bytes};
}

std::string device_key(const json &header) {
  const json &hardware = member(member(header, "fingerprint"), "hardware");
  const json &identity = member(hardware, "device");
  std::string id;
  if (member(identity, "bus_id").is_string())
    id = identity["bus_id"].get<std::string>();
  else if (member(identity, "unique_id").is_string())
    id = identity["unique_id"].get<std::string>();
  else
    id = "index" + member(hardware, "device_index").dump();
  std::string host = member(hardware, "host").is_string() ? hardware["host"].get<std::string>() : "?";
  std::string backend = member(hardware, "backend").is_string() ? hardware["backend"].get<std::string>() : "?";
  return host + "/" + backend + ":" + id;
}

void check_mergeable(const std::vector<MergeSource> &sources) {
  if (sources.empty()) throw pb::sdk::InputError("merge: no journal to merge");
  const MergeSource &first = sources.front();
  std::set<std::string> run_ids;
  for (const MergeSource &source : sources) {
    std::string run_id = source.header.value("run_id", "");
    if (!run_ids.insert(run_id + "\n" + source.label).second)
      throw UsageError("merge refused: " + source.label + " is given twice");
    json before = campaign_part(first.header);
    json after = campaign_part(source.header);
    if (before != after) {
      std::string what = member(before, "protocol") != member(after, "protocol") ? "another timing protocol"
                         : member(before, "plan_sha256") != member(after, "plan_sha256") ? "another plan"
                                                                                          : "another plan setup";
      std::string change = compare_fingerprints(json{{"plan", before}}, json{{"plan", after}}).value_or("");
      throw pb::sdk::InputError("merge refused: " + source.label + " measured " + what + " than " + first.label +
                                " (" + change + "); only journals of one plan and protocol merge");
    }
    json source_before = member(member(first.header, "fingerprint"), "source");
    json source_after = member(member(source.header, "fingerprint"), "source");
    if (source_before != source_after) {
      std::string change = compare_fingerprints(json{{"source", source_before}}, json{{"source", source_after}}).value_or("");
      throw pb::sdk::InputError("merge refused: " + source.label + " was measured by another perfbound build than " +
                                first.label + " (" + change + "); measure every shard with the same binary and plugins");
    }
  }
}

json merge_sources(const std::vector<MergeSource> &sources, const MergeOptions &options) {
  check_mergeable(sources);
  const MergeSource &first = sources.front();
  const json plan_part = campaign_part(first.header);
  const json source_part = member(member(first.header, "fingerprint"), "source");

  std::vector<std::string> keys;
  for (const MergeSource &source : sources) keys.push_back(device_key(source.header));
  std::map<std::string, std::vector<Candidate>> by_case;
  for (size_t source_idx = 0; source_idx < sources.size(); ++source_idx) {
    std::set<std::string> seen;  // a journal never records a case twice; keep the first if it does
    for (const json &record : sources[source_idx].records) {
      std::string case_id = record.value("case_id", "");
      if (!seen.insert(case_id).second || !record.contains("row")) continue;
      by_case[case_id].push_back({source_idx, &record.at("row")});
    }
  }

  json rows = json::array();
  json duplicates = json::array();
  json replicas = json::array();
  json missing = json::array();
  std::set<std::string> planned;
  // Every row of every device, by case, for the sick-card comparison.
  std::map<std::string, std::vector<std::pair<std::string, const json *>>> per_case_device;
  for (const json &id_json : member(plan_part, "case_ids")) {
    std::string case_id = id_json.get<std::string>();
    planned.insert(case_id);
    auto it = by_case.find(case_id);
    if (it == by_case.end()) {
      missing.push_back(case_id);
      continue;
    }
    const std::vector<Candidate> &candidates = it->second;
    size_t used = 0;
    for (size_t idx = 0; idx < candidates.size(); ++idx)
      if (candidates[idx].row->value("status", "") == "ok") {
        used = idx;
        break;
      }
    json row = *candidates[used].row;
    rows.push_back(row);
    for (const Candidate &candidate : candidates) per_case_device[case_id].emplace_back(keys[candidate.source], candidate.row);
    if (candidates.size() < 2) continue;
    json entry{{"case_id", case_id},
               {"used", reference(sources[candidates[used].source], keys[candidates[used].source])},
               {"others", json::array()}};
    for (size_t idx = 0; idx < candidates.size(); ++idx) {
      if (idx == used) continue;
      json other = reference(sources[candidates[idx].source], keys[candidates[idx].source]);
      other["status"] = candidates[idx].row->value("status", "");
      other["latency_us"] = candidates[idx].row->value("latency_us", json(nullptr));
      other["row"] = *candidates[idx].row;
      entry["others"].push_back(other);
    }
    (row.value("phase", "") == "smoke" ? replicas : duplicates).push_back(entry);
  }
  json strays = json::array();
  for (const auto &[case_id, candidates] : by_case)
    if (planned.count(case_id) == 0) strays.push_back(json{{"case_id", case_id}, {"journal", sources[candidates[0].source].label}});
  if (!strays.empty())
    throw pb::sdk::InputError("merge refused: " + strays[0]["journal"].get<std::string>() + " records case '" +
                              strays[0]["case_id"].get<std::string>() + "', which the plan does not have");

  // Per device: rows, throughput, disagreements.
  struct DeviceStats {
    const MergeSource *source = nullptr;
    std::set<std::string> journals;
    size_t rows = 0, ok = 0, failed = 0, measured = 0;
    double busy_s = 0;
    size_t compared = 0;
    size_t decisive = 0;  // disagreements against two or more others, or failures where others pass
    json disagreements = json::array();
  };
  std::map<std::string, DeviceStats> devices;
  for (size_t source_idx = 0; source_idx < sources.size(); ++source_idx) {
    DeviceStats &stats = devices[keys[source_idx]];
    if (stats.source == nullptr) stats.source = &sources[source_idx];
    stats.journals.insert(sources[source_idx].label);
  }
  for (const auto &[case_id, entries] : per_case_device) {
    for (const auto &[key, row] : entries) {
      DeviceStats &stats = devices[key];
      std::string status = row->value("status", "");
      ++stats.rows;
      stats.ok += status == "ok" ? 1 : 0;
      stats.failed += is_failure_status(status) ? 1 : 0;
      if (row->value("duration_s", json(nullptr)).is_number() && row->value("worker", json(nullptr)).is_object()) {
        stats.busy_s += (*row)["duration_s"].get<double>();
        ++stats.measured;
      }
    }
    // One status and latency per device (its first ok row, else its first row).
    std::map<std::string, std::pair<std::string, std::optional<double>>> outcome;
    for (const auto &[key, row] : entries) {
      std::string status = row->value("status", "");
      bool ok = status == "ok" && row->value("latency_us", json(nullptr)).is_number();
      auto found = outcome.find(key);
      if (found == outcome.end() || (ok && !found->second.second))
        outcome[key] = {status, ok ? std::optional<double>((*row)["latency_us"].get<double>()) : std::nullopt};
    }
    if (outcome.size() < 2) continue;
    std::vector<double> all_ok;
    for (const auto &[key, value] : outcome)
      if (value.second) all_ok.push_back(*value.second);
    for (const auto &[key, value] : outcome) {
      DeviceStats &stats = devices[key];
      size_t others_ok = all_ok.size() - (value.second ? 1 : 0);
      if (others_ok == 0) continue;
      if (value.second) {
        // Against the median of every device (itself included) when at least
        // two others measured the case; against the other one otherwise.
        double reference_us = 0;
        if (others_ok >= 2) {
          reference_us = median_of(all_ok);
        } else {
          for (const auto &[other_key, other] : outcome)
            if (other_key != key && other.second) reference_us = *other.second;
        }
        ++stats.compared;
        double ratio = *value.second / reference_us;
        if (std::fabs(std::log(ratio)) > std::log(kSickCardRatio)) {
          stats.disagreements.push_back(json{{"case_id", case_id}, {"latency_us", *value.second},
                                             {"reference_us", reference_us}, {"ratio", ratio},
                                             {"devices_compared", outcome.size()}});
          stats.decisive += others_ok >= 2 ? 1 : 0;
        }
      } else if (is_failure_status(value.first)) {
        ++stats.compared;
        stats.disagreements.push_back(json{{"case_id", case_id}, {"status", value.first}, {"others_ok", others_ok}});
        ++stats.decisive;
      }
    }
  }
  json device_list = json::array();
  for (const auto &[key, stats] : devices) {
    const json &hardware = member(member(stats.source->header, "fingerprint"), "hardware");
    bool disagrees = !stats.disagreements.empty() && stats.disagreements.size() * 2 > stats.compared;
    bool sick = stats.decisive * 2 > stats.compared;
    std::string reason;
    if (stats.compared == 0)
      reason = "no case was measured on this device and another one";
    else if (!disagrees)
      reason = "agrees with the other devices on " + std::to_string(stats.compared - stats.disagreements.size()) + " of " +
               std::to_string(stats.compared) + " shared cases";
    else if (!sick)
      reason = "disagrees with the only other device that measured them on " + std::to_string(stats.disagreements.size()) +
               " of " + std::to_string(stats.compared) + " shared cases; a third device would tell which card is sick";
    else
      reason = "disagrees with the other devices on " + std::to_string(stats.disagreements.size()) + " of " +
               std::to_string(stats.compared) + " shared cases (latency off by more than " +
               std::to_string(kSickCardRatio).substr(0, 3) + "x, or failing where they pass)";
    json entry{{"device", key},
               {"host", member(hardware, "host")},
               {"backend", member(hardware, "backend")},
               {"index", member(hardware, "device_index")},
               {"name", member(member(hardware, "device"), "name")},
               {"journals", json(std::vector<std::string>(stats.journals.begin(), stats.journals.end()))},
               {"rows", stats.rows},
               {"ok", stats.ok},
               {"failed", stats.failed},
               {"busy_s", stats.busy_s},
               {"cases_per_hour", stats.busy_s > 0 ? json(static_cast<double>(stats.measured) / stats.busy_s * 3600) : json(nullptr)},
               {"sick_card", json{{"flag", sick},
                                  {"suspect", disagrees},
                                  {"compared_cases", stats.compared},
                                  {"disagreements", stats.disagreements},
                                  {"reason", reason}}}};
    device_list.push_back(entry);
  }

  json run_sources = json::array();
  std::string started_at;
  bool resumed = false;
  for (size_t source_idx = 0; source_idx < sources.size(); ++source_idx) {
    const MergeSource &source = sources[source_idx];
    const json &hardware = member(member(source.header, "fingerprint"), "hardware");
    std::string created = source.header.value("created_at", "");
    if (started_at.empty() || (!created.empty() && created < started_at)) started_at = created;
    resumed = resumed || source.torn_bytes > 0;
    run_sources.push_back(json{{"journal", source.label},
                               {"run_id", source.header.value("run_id", "")},
                               {"created_at", created},
                               {"hostname", member(hardware, "host")},
                               {"device_key", keys[source_idx]},
                               {"device", json{{"index", member(hardware, "device_index")}, {"identity", member(hardware, "device")}}},
                               {"shard", member(member(member(source.header, "fingerprint"), "plan"), "shard")},
                               {"records", source.records.size()},
                               {"fingerprint_sha256", member(source.header, "fingerprint_sha256")}});
  }
  json digests = fingerprint_digests(json{{"plan", plan_part}, {"source", source_part}});
  std::string plan_file = first.header.value("plan_file", "");
  json run{{"kind", "merged"},
           {"id", options.id},
           {"started_at", started_at},
           {"finished_at", utc_now_iso()},
           {"resumed", resumed},
           {"hostname", host_name()},
           {"perfbound_version", member(member(source_part, "perfbound"), "version")},
           {"bench_plugin_version", member(member(source_part, "bench_plugin"), "version")},
           {"plan", json{{"file", fs::path(plan_file).filename().string()}, {"path", plan_file},
                         {"sha256", member(plan_part, "plan_sha256")}}},
           {"fingerprint_sha256", json{{"plan", digests["plan"]}, {"source", digests["source"]}}},
           {"protocol", member(plan_part, "protocol")},
           {"backend", json{{"name", member(member(plan_part, "backend"), "name")},
                            {"plugin", member(member(plan_part, "backend"), "plugin")},
                            {"version", member(member(source_part, "backend_plugin"), "version")}}},
           {"shape_divisor", member(plan_part, "shape_divisor")},
           {"sources", run_sources}};
  for (const auto &[key, value] : options.extra_run.items()) run[key] = value;
  std::vector<json> row_list(rows.begin(), rows.end());
  std::string state = !options.state.empty() ? options.state : missing.empty() ? "complete" : "incomplete";
  json result = make_result(run, row_list, state);
  result["summary"]["pending"] = missing.size();
  result["summary"]["duplicates"] = duplicates.size();
  result["summary"]["replicas"] = replicas.size();
  result["devices"] = device_list;
  result["duplicates"] = duplicates;
  result["replicas"] = replicas;
  result["missing"] = missing;
  return result;
}

}  // namespace pb::bench
