//===- measurement.cpp - the measurement rule and perfbound.measurement/1 -===//
#include "measurement.hpp"

#include <perfbound/sdk/input_file.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <perfbound/sdk/cancel.hpp>
#include <perfbound/sdk/sha256.hpp>
#include <perfbound/sdk/units.hpp>

#include "stats.hpp"

namespace perfbound::validate {

namespace {

std::string join(const std::vector<std::string> &items, const std::string &sep = ", ") {
  std::string out;
  for (const std::string &item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

json seconds(double microseconds) { return json{{"value", microseconds * 1e-6}, {"unit", "s"}}; }

json no_seconds(const std::string &reason) { return json{{"value", nullptr}, {"unit", "s"}, {"reason", reason}}; }

json rule_json(const std::vector<std::string> &task_types, size_t warmup, const std::string &order, const std::string &grouping) {
  return json{{"id", kRuleId}, {"text", rule_text()}, {"task_types", task_types}, {"warmup", warmup}, {"order", order},
              {"grouping", grouping}};
}

/// A document with everything but the numbers: status no_measurement.
json empty_document(const std::string &kernel, const json &source, const json &rule, const std::string &reason) {
  json doc = pb::sdk::make_document("perfbound.measurement/1");
  doc["kernel"] = kernel;
  doc["status"] = "no_measurement";
  doc["reason"] = reason;
  doc["source"] = source;
  doc["rule"] = rule;
  doc["launches"] = {{"found", 0}, {"dropped", 0}, {"kept", 0}};
  doc["samples"] = json::array();
  doc["samples_omitted"] = 0;
  doc["kept_durations_us"] = json::array();
  doc["t_measured"] = no_seconds(reason);
  doc["t_min"] = no_seconds(reason);
  doc["t_max"] = no_seconds(reason);
  doc["block_dim"] = nullptr;
  doc["mix_block_dim"] = nullptr;
  doc["pipes"] = {{"components", json::array()}, {"dominant", nullptr}, {"reason", reason}};
  doc["frequency"] = nullptr;
  doc["device"] = nullptr;
  return doc;
}

void fill_statistics(json &doc, const std::vector<double> &kept_us) {
  RuleStatistics stats = rule_statistics(kept_us);
  doc["status"] = "ok";
  doc["reason"] = nullptr;
  doc["t_measured"] = seconds(stats.median);
  doc["t_measured"]["statistic"] = "median of the kept launches";
  doc["t_min"] = seconds(stats.min);
  doc["t_min"]["statistic"] = "fastest kept launch";
  doc["t_max"] = seconds(stats.max);
  doc["t_max"]["statistic"] = "slowest kept launch";
}

/// Median per pipe-time column over the kept launches, and the component
/// that took the most time.
json pipe_breakdown(const OpSummary &table, const std::vector<Launch> &kept) {
  json components = json::array();
  std::optional<size_t> best;
  double best_time = -1;
  const std::vector<std::string> &header = table.csv().header();
  for (size_t col = 0; col < header.size(); ++col) {
    std::optional<PipeColumn> pipe = pipe_of_column(header[col]);
    if (!pipe) continue;
    std::vector<double> times;
    for (const Launch &launch : kept)
      if (std::optional<double> value = table.launch_number(launch, col)) times.push_back(*value);
    if (times.empty()) continue;
    json entry = {{"core", pipe->core}, {"component", pipe->component}, {"column", header[col]},
                  {"time_us", median(times)}, {"ratio", nullptr}};
    std::string ratio_column = header[col].substr(0, header[col].size() - std::string("_time(us)").size()) + "_ratio";
    if (std::optional<size_t> ratio_col = table.find_column(ratio_column)) {
      std::vector<double> ratios;
      for (const Launch &launch : kept)
        if (std::optional<double> value = table.launch_number(launch, *ratio_col)) ratios.push_back(*value);
      if (!ratios.empty()) entry["ratio"] = median(ratios);
    }
    double time = entry["time_us"].get<double>();
    if (time > best_time) {
      best_time = time;
      best = components.size();
    }
    components.push_back(std::move(entry));
  }
  json out = {{"components", components}, {"dominant", nullptr}};
  if (!best || best_time <= 0) {
    out["reason"] = components.empty() ? "no pipe-time columns (aic_*_time(us), aiv_*_time(us)): profile with "
                                         "--aic-metrics=PipeUtilization"
                                       : "every pipe-time column is 0";
    return out;
  }
  out["dominant"] = components[*best];
  out["statistic"] = "median over the kept launches of each *_time(us) column (per-core averages); dominant = the largest";
  return out;
}

std::optional<double> median_column(const OpSummary &table, const std::vector<Launch> &kept, const std::string &column) {
  std::optional<size_t> col = table.find_column(column);
  if (!col) return std::nullopt;
  std::vector<double> values;
  for (const Launch &launch : kept)
    if (std::optional<double> value = table.launch_number(launch, *col)) values.push_back(*value);
  if (values.empty()) return std::nullopt;
  return median(values);
}

/// The median of a block-count column (Block Dim, Mix Block Dim) over the kept launches,
/// null when absent. Every cell read must be a whole number from 0 to 2^31 - 1: the median
/// is stored as an integer, and a cast of 5e307 to one is undefined (found by fuzz_msprof_csv).
json median_count(const OpSummary &table, const std::vector<Launch> &kept, const std::string &column) {
  std::optional<size_t> col = table.find_column(column);
  if (!col) return nullptr;
  constexpr double kMaxCount = 2147483647.0;
  for (const Launch &launch : kept)
    for (size_t row : launch.rows)
      if (std::optional<double> v = table.number(row, *col); v && !(*v >= 0 && *v <= kMaxCount && std::floor(*v) == *v))
        throw pb::sdk::InputError(table.csv().where(row, *col) + ": column '" + column + "': '" + table.text(row, *col) +
                                  "' is not a block count (a whole number from 0 to 2147483647)");
  std::optional<double> median = median_column(table, kept, column);
  if (!median) return nullptr;
  return static_cast<int64_t>(*median);
}

}  // namespace

const std::string &rule_text() {
  static const std::string kText =
      "select the kernel's rows by Op Name and Task Type in {AI_CORE, AI_VECTOR_CORE, MIX_AIC, MIX_AIV}, group the rows "
      "of one invocation (same device, stream and task id, overlapping in time; its duration is the longest), order the "
      "invocations by Task Start Time(us), drop the warm-up ones; T_measured = median Task Duration(us) of the rest; "
      "a bound is sound only if T_bound <= their minimum; tightness = T_measured / T_bound "
      "(../shared/data/corpus/CORPUS.md)";
  return kText;
}

KeptLaunches keep_after_warmup(std::vector<Launch> launches, size_t warmup) {
  KeptLaunches out;
  out.found = launches.size();
  out.dropped = std::min(warmup, launches.size());
  launches.erase(launches.begin(), launches.begin() + static_cast<std::ptrdiff_t>(out.dropped));  // in place: no second vector
  out.kept = std::move(launches);
  return out;
}

RuleStatistics rule_statistics(const std::vector<double> &values) {
  RuleStatistics stats;
  stats.n = values.size();
  stats.median = median(values);  // throws on an empty vector
  stats.min = *std::min_element(values.begin(), values.end());
  stats.max = *std::max_element(values.begin(), values.end());
  return stats;
}

std::optional<PipeColumn> pipe_of_column(const std::string &column) {
  // msprof PipeUtilization columns (ascend.md §4.1); "cube" is the name
  // older CANN versions use for "mac".
  static const std::map<std::string, PipeColumn> kColumns = {
      {"aic_mac_time(us)", {"aic", "cube"}},       {"aic_cube_time(us)", {"aic", "cube"}},
      {"aic_scalar_time(us)", {"aic", "scalar"}},  {"aic_mte1_time(us)", {"aic", "mte1"}},
      {"aic_mte2_time(us)", {"aic", "mte2"}},      {"aic_mte3_time(us)", {"aic", "mte3"}},
      {"aic_fixpipe_time(us)", {"aic", "fixpipe"}}, {"aiv_vec_time(us)", {"aiv", "vector"}},
      {"aiv_scalar_time(us)", {"aiv", "scalar"}},  {"aiv_mte1_time(us)", {"aiv", "mte1"}},
      {"aiv_mte2_time(us)", {"aiv", "mte2"}},      {"aiv_mte3_time(us)", {"aiv", "mte3"}},
  };
  auto it = kColumns.find(column);
  if (it == kColumns.end()) return std::nullopt;
  return it->second;
}

json measure_table(const OpSummary &table, const MeasureRequest &request, const SourceInfo &source_info) {
  const bool has_start = table.find_column("Task Start Time(us)").has_value();
  const bool has_type = table.find_column("Task Type").has_value();
  const bool can_group = has_start && table.find_column("Stream ID") && table.find_column("Task ID");
  json source = {{"format", format_id(table.format())}, {"origin", source_info.origin},
                 {"sha256", source_info.sha256 ? json(*source_info.sha256) : json(nullptr)}};
  json rule = rule_json(has_type ? request.task_types : std::vector<std::string>{}, request.warmup,
                        has_start ? "Task Start Time(us)" : "file order (the table has no start time)",
                        can_group ? "rows with the same device, Stream ID and Task ID that overlap in time are one invocation"
                                  : "one row per invocation (the table has no Stream ID / Task ID / start time)");
  const size_t duration_col = table.column("Task Duration(us)");

  std::vector<Launch> launches = table.launches(request.kernel, request.task_types);
  // One series per device: launches on two devices are not one run.
  if (std::optional<size_t> device_col = table.find_column("Device_id")) {
    std::set<std::string> devices;
    for (const Launch &launch : launches) {
      pb::sdk::poll_cancel();
      devices.insert(table.text(launch.rows.front(), *device_col));
    }
    if (request.device) {
      std::erase_if(launches, [&](const Launch &l) { return table.text(l.rows.front(), *device_col) != *request.device; });
    } else if (devices.size() > 1) {
      throw pb::sdk::InputError(table.origin() + ": kernel '" + request.kernel + "' ran on devices " +
                                join({devices.begin(), devices.end()}) + "; choose one (device = \"N\")");
    }
  }
  if (launches.empty()) {
    std::vector<std::string> names = table.kernel_names();
    std::string reason = "no " + std::string(has_type ? "AI-core " : "") + "launch of kernel '" + request.kernel + "' in " +
                         table.origin() + (request.device ? " on device " + *request.device : "") +
                         (names.empty() ? std::string("; it holds no kernel launch at all")
                                        : "; kernels there: " + join(names));
    return empty_document(request.kernel, source, rule, reason);
  }
  const size_t dropped = std::min(request.warmup, launches.size());
  json doc = empty_document(request.kernel, source, rule, "");
  doc["launches"] = {{"found", launches.size()}, {"dropped", dropped}, {"kept", launches.size() - dropped}};
  // The first kListedSamples launches in full (index, lines, task type) for
  // a reader; every kept duration as a bare number, for the statistics and
  // validation's count of faster launches: a file with millions of launches
  // of the kernel costs 16 bytes per launch here, not a JSON object (issue 27).
  json samples = json::array();
  json kept_durations = json::array();
  std::vector<double> kept_us;
  kept_us.reserve(launches.size() - dropped);
  for (size_t idx = 0; idx < launches.size(); ++idx) {
    pb::sdk::poll_cancel();
    const Launch &launch = launches[idx];
    double duration = table.launch_require_number(launch, duration_col);
    if (duration <= 0)
      throw pb::sdk::InputError(table.csv().where(launch.rows.front(), duration_col) + ": column '" +
                                table.csv().header()[duration_col] + "' is " + pb::units::format_number(duration) +
                                "; a duration must be positive");
    const bool is_kept = idx >= dropped;
    if (idx < kListedSamples)
      samples.push_back({{"index", idx + 1},
                         {"kept", is_kept},
                         {"start_us", launch.start_us ? json(*launch.start_us) : json(nullptr)},
                         {"duration_us", duration},
                         {"lines", table.launch_lines(launch)},
                         {"task_type", launch.task_type.empty() ? json(nullptr) : json(launch.task_type)}});
    if (is_kept) {
      kept_us.push_back(duration);
      kept_durations.push_back(duration);
    }
  }
  doc["samples_omitted"] = launches.size() - samples.size();
  doc["samples"] = std::move(samples);
  doc["kept_durations_us"] = std::move(kept_durations);
  // Moved, not copied: a copy of every launch is most of the memory a
  // kernel with a million launches costs.
  const size_t found = launches.size();
  const KeptLaunches kept = keep_after_warmup(std::move(launches), request.warmup);
  if (kept_us.empty()) {
    std::string reason = "warmup = " + std::to_string(request.warmup) + " drops all " + std::to_string(found) +
                         " launches of kernel '" + request.kernel + "' in " + table.origin();
    doc["status"] = "no_measurement";
    doc["reason"] = reason;
    doc["t_measured"] = no_seconds(reason);
    doc["t_min"] = no_seconds(reason);
    doc["t_max"] = no_seconds(reason);
    doc["pipes"]["reason"] = reason;
    return doc;
  }
  fill_statistics(doc, kept_us);
  doc["block_dim"] = median_count(table, kept.kept, "Block Dim");
  doc["mix_block_dim"] = median_count(table, kept.kept, "Mix Block Dim");
  doc["pipes"] = pipe_breakdown(table, kept.kept);
  if (std::optional<size_t> device_col = table.find_column("Device_id"))
    doc["device"] = table.text(kept.kept.front().rows.front(), *device_col);
  std::optional<double> current = median_column(table, kept.kept, "Current Freq");
  std::optional<double> rated = median_column(table, kept.kept, "Rated Freq");
  if (current || rated)
    doc["frequency"] = {{"current_mhz", current ? json(*current) : json(nullptr)},
                        {"rated_mhz", rated ? json(*rated) : json(nullptr)},
                        {"note", current && rated && *current < *rated
                                     ? "the device ran below its rated clock: the measured time is longer than at the "
                                       "rated clock, a bound at the rated clock stays a lower bound"
                                 : current && rated && *current > *rated
                                     ? "the device ran above its rated clock: a bound at the rated clock may exceed the "
                                       "measurement without being wrong at the rated clock"
                                     : "the device ran at its rated clock"}};
  return doc;
}

json measure_bench_result(const json &bench_result, const std::string &case_name, const SourceInfo &source_info) {
  json source = {{"format", "perfbound_bench_result"}, {"origin", source_info.origin},
                 {"sha256", source_info.sha256 ? json(*source_info.sha256) : json(nullptr)}};
  json rule = rule_json({}, 0, "queue order of the harness's samples",
                        "one sample per timed call (perfbound bench already ran its warm-ups)");
  if (!bench_result.is_object() || bench_result.value("schema", std::string()) != "perfbound.bench_result/1")
    throw pb::sdk::InputError(source_info.origin + ": not a perfbound.bench_result/1 document");
  const json &rows = pb::sdk::require(bench_result, "rows", source_info.origin);
  if (!rows.is_array()) throw pb::sdk::InputError(source_info.origin + ": rows: expected an array");
  const json *row = nullptr;
  std::vector<std::string> names;
  for (const json &candidate : rows) {
    std::string name = candidate.value("name", std::string());
    std::string id = candidate.value("case_id", std::string());
    names.push_back(name);
    if (name == case_name || id == case_name) row = &candidate;
  }
  if (row == nullptr)
    return empty_document(case_name, source, rule,
                          "no row named '" + case_name + "' in " + source_info.origin + "; rows: " + join(names));
  const std::string status = row->value("status", std::string());
  if (status != "ok") {
    // value(), not const operator[]: a row without "reason" is undefined behaviour there.
    const json reason = row->value("reason", json());
    std::string why = reason.is_string() ? reason.get<std::string>() : std::string("no reason given");
    return empty_document(case_name, source, rule,
                          "row '" + case_name + "' of " + source_info.origin + " has status '" + status +
                              "', not a clean measurement: " + why);
  }
  const json &samples_json = pb::sdk::require(*row, "samples_us", source_info.origin + ": row '" + case_name + "'");
  if (!samples_json.is_array() || samples_json.empty())
    throw pb::sdk::InputError(source_info.origin + ": row '" + case_name + "': samples_us is not a list of samples");
  json doc = empty_document(case_name, source, rule, "");
  json samples = json::array();
  std::vector<double> values;
  for (size_t idx = 0; idx < samples_json.size(); ++idx) {
    if (!samples_json[idx].is_number() || samples_json[idx].get<double>() <= 0)
      throw pb::sdk::InputError(source_info.origin + ": row '" + case_name + "': samples_us[" + std::to_string(idx) +
                                "] is not a positive number");
    double value = samples_json[idx].get<double>();
    values.push_back(value);
    if (idx < kListedSamples)
      samples.push_back({{"index", idx + 1}, {"kept", true}, {"start_us", nullptr}, {"duration_us", value},
                         {"lines", json::array()}, {"task_type", nullptr}});
  }
  doc["samples_omitted"] = values.size() - samples.size();
  doc["samples"] = std::move(samples);
  doc["kept_durations_us"] = values;
  doc["launches"] = {{"found", values.size()}, {"dropped", 0}, {"kept", values.size()}};
  fill_statistics(doc, values);
  doc["pipes"] = {{"components", json::array()}, {"dominant", nullptr},
                  {"reason", "a bench result has no per-pipe times"}};
  if (const json *statistic = row->contains("statistic") ? &(*row)["statistic"] : nullptr; statistic && statistic->is_object())
    doc["source_statistic"] = *statistic;
  if (row->contains("device") && (*row)["device"].is_object()) doc["device"] = (*row)["device"].value("name", json(nullptr));
  return doc;
}

json no_measurement(const std::string &kernel, const std::string &origin, const std::string &reason) {
  return empty_document(kernel, {{"format", "none"}, {"origin", origin}, {"sha256", nullptr}}, rule_json({}, 0, "none", "none"),
                        reason);
}

json measure_file(const std::filesystem::path &path, const MeasureRequest &request, const std::string &bench_case) {
  std::string error;
  auto refuse = [&] {
    return pb::sdk::InputError(error == "no such file" ? path.string() + ": cannot open measurement file"
                                                       : path.string() + ": " + error);
  };
  // A bench result is JSON (its first non-blank byte is '{'); anything else
  // is read as a profiler CSV.
  bool is_json = false;
  {
    std::optional<std::ifstream> in = pb::sdk::open_input_file(path, pb::sdk::kMaxDataFileBytes, error);
    if (!in) throw refuse();
    char c = 0;
    while (in->get(c) && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) pb::sdk::poll_cancel();
    is_json = *in && c == '{';
  }
  // Reading, checking and hashing a large file poll for Ctrl-C between chunks (issue 27).
  const std::function<void()> poll = [] { pb::sdk::throw_if_cancelled(); };
  pb::sdk::Sha256 digest;
  if (!is_json) {
    // Streamed: a profiler CSV of a whole model run is large, and the rule
    // needs only the kernel's rows; the others are parsed, checked and
    // dropped (issue 27: memory follows the kernel's launches, not the file).
    OpSummary::ReadOptions options;
    options.kernel = request.kernel;
    options.on_bytes = [&](std::string_view bytes) { digest.update(bytes); };
    OpSummary table = OpSummary::read(path, options);
    return measure_table(table, request, SourceInfo{path.string(), digest.hex_digest()});
  }
  auto read = pb::sdk::read_text_input_file(path, pb::sdk::kMaxDataFileBytes, error, poll);
  if (!read)
    throw pb::sdk::InputError(error == path.string() + ": no such file" ? path.string() + ": cannot open measurement file" : error);
  const std::string text = std::move(*read);
  for (size_t at = 0; at < text.size(); at += size_t{4} << 20) {
    poll();
    digest.update(std::string_view(text).substr(at, size_t{4} << 20));
  }
  SourceInfo source{path.string(), digest.hex_digest()};
  if (std::string deep = pb::sdk::json_depth_error(text, path.string()); !deep.empty()) throw pb::sdk::InputError(deep);
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw pb::sdk::InputError(pb::sdk::json_syntax_error_message(text, path.string()));
  return measure_bench_result(doc, bench_case.empty() ? request.kernel : bench_case, source);
}

}  // namespace perfbound::validate
