//===- counterfactual.cpp - edit the HIVM, predict, and (optionally) measure ===//
#include "counterfactual.hpp"

#include <perfbound/sdk/input_file.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "measurement.hpp"
#include "process.hpp"
#include "remote.hpp"
#include "toml_reader.hpp"

namespace perfbound::validate {

namespace fs = std::filesystem;

namespace {

constexpr const char *kMarker = ".perfbound-counterfactual";

std::string read_text(const fs::path &path, const std::string &what) {
  std::string error;
  auto text = pb::sdk::read_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!text) throw pb::sdk::InputError(path.string() + ": cannot read " + what + ": " + error);
  return std::move(*text);
}

void write_text(const fs::path &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw pb::sdk::InfraError(path.string() + ": cannot write");
  out << text;
}

std::string replace_all(std::string text, const std::string &from, const std::string &to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

std::vector<std::string> substitute(const std::vector<std::string> &argv, const std::map<std::string, std::string> &values) {
  std::vector<std::string> out;
  for (std::string word : argv) {
    for (const auto &[key, value] : values) word = replace_all(word, "{" + key + "}", value);
    out.push_back(word);
  }
  return out;
}

std::string us_text(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f us", seconds * 1e6);
  return buffer;
}

StepCommand read_step(const TomlReader &reader, const toml::table &table, const std::string &key, const std::string &where) {
  const toml::table &step = reader.table(table, key, where);
  const std::string swhere = where + " " + key;
  reader.check_keys(step, {"argv", "timeout_s"}, swhere);
  StepCommand out;
  out.argv = reader.strings(step, "argv", swhere);
  if (out.argv.empty()) reader.fail(step, swhere + ": 'argv' must name the program and its arguments");
  out.timeout_s = reader.timeout(step, "timeout_s", 600, swhere);
  return out;
}

/// Files named like `pattern` (shell wildcards) anywhere under `dir`.
std::vector<fs::path> find_matching(const fs::path &dir, const std::string &pattern) {
  std::string re;
  for (char c : pattern) {
    if (c == '*') re += ".*";
    else if (c == '?') re += ".";
    else if (std::string("\\^$.|+()[]{}").find(c) != std::string::npos) re += std::string("\\") + c;
    else re += c;
  }
  const std::regex matcher(re);
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && std::regex_match(it->path().filename().string(), matcher)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

/// A fresh variant directory: one we made before is cleared, anything else
/// that is not empty is refused (never delete a user's files).
void fresh_directory(const fs::path &dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::exists(dir / kMarker, ec) && !fs::is_empty(dir, ec))
      throw pb::sdk::InputError(dir.string() + " exists and was not made by perfbound counterfactual; choose another --out");
    fs::remove_all(dir, ec);
  }
  fs::create_directories(dir);
  write_text(dir / kMarker, "made by perfbound counterfactual; cleared on the next run\n");
}

struct VariantOutcome {
  json record = json::object();
  json measurement;            // perfbound.measurement/1 or null
  std::vector<fs::path> outputs;  // local paths of the output files
  std::string infra;           // why the variant could not be measured
};

VariantOutcome run_variant(const CounterfactualConfig &config, const MeasureConfig &measure, const std::string &variant,
                           const std::string &text, const fs::path &out_dir, const std::optional<RemoteHost> &remote,
                           const std::string &run_id) {
  VariantOutcome outcome;
  const fs::path dir = fs::absolute(out_dir / variant);
  fresh_directory(dir);
  write_text(dir / "kernel.npuir.mlir", text);
  json steps = json::array();
  auto step_failed = [&](const std::string &step, const CommandResult &result) {
    steps.push_back({{"step", step}, {"command", result.to_json()}});
    if (result.ok()) return false;
    outcome.infra = variant + " " + step + ": " + display_command(result.argv) + " " + result.describe() + " (log " +
                    result.log.string() + ")";
    return true;
  };
  fs::path csv;
  if (!remote) {
    std::map<std::string, std::string> values = {{"ir", (dir / "kernel.npuir.mlir").string()}, {"dir", dir.string()},
                                                 {"out", (dir / "prof").string()}, {"variant", variant}, {"kernel", config.kernel}};
    auto local_step = [&](const std::string &step, const StepCommand &command) {
      CommandSpec spec;
      spec.cwd = dir;
      spec.argv = substitute(command.argv, values);
      spec.timeout_s = command.timeout_s;
      spec.log = dir / (step + ".log");
      return step_failed(step, run_command(spec));
    };
    if (local_step("compile", measure.compile) || local_step("run", measure.run)) {
      outcome.record["steps"] = steps;
      return outcome;
    }
    std::vector<fs::path> found = find_matching(dir, measure.csv_pattern);
    if (found.size() != 1) {
      outcome.infra = variant + ": " +
                      (found.empty() ? "the run left no file named " + measure.csv_pattern + " under " + dir.string()
                                     : std::to_string(found.size()) + " files named " + measure.csv_pattern + " under " +
                                           dir.string() + " (expected one)");
      outcome.record["steps"] = steps;
      return outcome;
    }
    csv = found.front();
    for (const std::string &name : measure.outputs) outcome.outputs.push_back(dir / name);
  } else {
    RemoteRunner runner(*remote, dir / "logs", run_id);
    const std::string rdir = runner.remote_root() + "/" + variant;
    std::map<std::string, std::string> values = {{"ir", rdir + "/kernel.npuir.mlir"}, {"dir", rdir}, {"out", rdir + "/prof"},
                                                 {"variant", variant}, {"kernel", config.kernel}};
    bool failed = step_failed("sync", runner.sync(dir)) ||
                  step_failed("compile", runner.compile(substitute(measure.compile.argv, values), rdir)) ||
                  step_failed("run", runner.run_under_msprof(substitute(measure.run.argv, values), rdir, rdir + "/prof"));
    std::string remote_csv;
    if (!failed) failed = step_failed("fetch", runner.fetch_matching(rdir, measure.csv_pattern, dir / "fetched" / "op_summary.csv", &remote_csv));
    for (const std::string &name : measure.outputs) {
      if (failed) break;
      failed = step_failed("fetch", runner.fetch(rdir + "/" + name, dir / "fetched" / name));
      outcome.outputs.push_back(dir / "fetched" / name);
    }
    outcome.record["remote"] = {{"destination", remote->destination}, {"directory", rdir}, {"csv", remote_csv}};
    if (failed) {
      outcome.record["steps"] = steps;
      return outcome;
    }
    csv = dir / "fetched" / "op_summary.csv";
  }
  outcome.record["steps"] = steps;
  MeasureRequest request;
  request.kernel = config.kernel;
  request.warmup = static_cast<size_t>(measure.warmup);
  try {
    outcome.measurement = measure_file(csv, request);
  } catch (const pb::sdk::InputError &e) {
    outcome.infra = variant + ": the profile the run left is unreadable: " + e.what();
    return outcome;
  }
  if (outcome.measurement["status"] != "ok") outcome.infra = variant + ": " + outcome.measurement["reason"].get<std::string>();
  outcome.record["measurement"] = {{"csv", csv.string()},
                                   {"t_measured", outcome.measurement["t_measured"]},
                                   {"t_min", outcome.measurement["t_min"]},
                                   {"launches", outcome.measurement["launches"]}};
  return outcome;
}

/// Measured (median edited - median baseline) against predicted delta.
json compare_delta(const json &predicted, const json &baseline, const json &edited) {
  const double base_median = baseline["t_measured"]["value"].get<double>();
  const double edit_median = edited["t_measured"]["value"].get<double>();
  const double base_min = baseline["t_min"]["value"].get<double>();
  const double edit_min = edited["t_min"]["value"].get<double>();
  const double measured = edit_median - base_median;
  json comparison = {{"measured_delta", {{"value", measured}, {"unit", "s"}, {"statistic", "median edited - median baseline"}}},
                     {"measured_min_delta", {{"value", edit_min - base_min}, {"unit", "s"}}},
                     {"predicted_delta", predicted}};
  if (predicted.contains("value") && predicted["value"].is_number()) {
    const double p = predicted["value"].get<double>();
    comparison["error"] = {{"value", measured - p}, {"unit", "s"}, {"definition", "measured - predicted"}};
    comparison["ratio"] = p != 0 ? json(measured / p) : json(nullptr);
    if (predicted.contains("interval") && predicted["interval"].is_object())
      comparison["within_interval"] =
          measured >= predicted["interval"]["low"].get<double>() && measured <= predicted["interval"]["high"].get<double>();
  }
  return comparison;
}

/// Blocks each core of the function's type runs (the busiest one).
std::optional<double> blocks_per_core(const json &program, const json &op, const json &profile, std::string &why) {
  std::optional<double> blocks = pb::sdk::quantity_value(program["blocks"], "blocks");
  if (!blocks) {
    why = "the number of blocks is unknown (" + program["blocks"].value("reason", std::string("no launch grid")) + ")";
    return std::nullopt;
  }
  const json &function = program["functions"][op["function"].get<size_t>()];
  // A mix kernel's block runs on one AIC and its AIV pair: AIC-many blocks
  // at a time. A pure kernel's blocks spread over all cores of its type.
  const bool mix = (function.contains("mix_part") && function["mix_part"].is_string());
  const std::string core = mix ? "aic" : op["core"].get<std::string>();
  std::optional<double> cores = pb::sdk::quantity_value(profile["cores"][core], "cores");
  if (!cores || *cores <= 0) {
    why = "the profile gives no " + core + " core count";
    return std::nullopt;
  }
  return std::ceil(*blocks / *cores);
}

}  // namespace

CounterfactualConfig load_counterfactual(const fs::path &file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw pb::sdk::InputError(file.string() + ": counterfactual config not found");
  toml::table root = parse_toml_file(file.string());
  TomlReader reader(file.string());
  const std::string where = "counterfactual";
  reader.check_keys(root, {"version", "description", "kernel", "hivm", "launch", "profile", "bound_pipeline", "bound_hivm_input",
                           "report_output", "edit", "measure", "recorded"},
                    where);
  const toml::node &version = reader.require(root, "version", where);
  if (!version.is_integer() || version.as_integer()->get() != 1)
    reader.fail(version, where + ": unsupported version (this perfbound reads version = 1)");
  const fs::path dir = fs::absolute(file).parent_path();
  CounterfactualConfig config;
  config.file = fs::absolute(file);
  config.description = reader.optional_string(root, "description", where).value_or("");
  config.kernel = reader.string(root, "kernel", where);
  config.hivm = (dir / reader.string(root, "hivm", where)).lexically_normal();
  if (const toml::node *launch = root.get("launch")) {
    if (!launch->is_table()) reader.fail(*launch, where + ": 'launch' must be a table { grid = [...], args = { ... } }");
    reader.check_keys(*launch->as_table(), {"grid", "args", "kernel", "note"}, where + " launch");
    config.launch = toml_to_json(*launch);
  }
  if (auto profile = reader.optional_string(root, "profile", where)) config.profile = *profile;
  if (auto pipeline = reader.optional_string(root, "bound_pipeline", where))
    config.bound_pipeline = (dir / *pipeline).lexically_normal();
  if (auto input = reader.optional_string(root, "bound_hivm_input", where)) config.bound_hivm_input = *input;
  if (auto output = reader.optional_string(root, "report_output", where)) config.report_output = *output;

  const toml::node &edits_node = reader.require(root, "edit", where);
  const toml::array *edits = edits_node.as_array();
  if (edits == nullptr || edits->empty()) reader.fail(edits_node, where + ": 'edit' must be an array of tables ([[edit]])");
  for (const toml::node &node : *edits) {
    if (!node.is_table()) reader.fail(node, where + ": each [[edit]] must be a table");
    const toml::table &e = *node.as_table();
    EditSpec spec;
    spec.where = reader.where(node);
    spec.kind = reader.string(e, "kind", "edit");
    const std::string ewhere = "edit " + spec.kind;
    auto line_of = [&](const char *key) {
      int64_t value = reader.integer(e, key, 0, ewhere);
      if (value < 1) reader.fail(e, ewhere + ": '" + std::string(key) + "' (a line of the dump, from 1) is required");
      return static_cast<uint32_t>(value);
    };
    if (spec.kind == "remove_barrier") {
      reader.check_keys(e, {"kind", "line", "pipe"}, ewhere);
      spec.line = line_of("line");
      spec.pipe = reader.optional_string(e, "pipe", ewhere);
    } else if (spec.kind == "remove_sync_pair") {
      reader.check_keys(e, {"kind", "set_line", "wait_line"}, ewhere);
      spec.set_line = line_of("set_line");
      spec.wait_line = line_of("wait_line");
    } else if (spec.kind == "set_multi_buffer") {
      reader.check_keys(e, {"kind", "line", "buffers"}, ewhere);
      spec.line = line_of("line");
      spec.buffers = reader.integer(e, "buffers", 0, ewhere);
    } else {
      reader.fail(reader.require(e, "kind", ewhere),
                  "edit: unknown kind '" + spec.kind + "'; known: remove_barrier, remove_sync_pair, set_multi_buffer");
    }
    config.edits.push_back(spec);
  }

  if (root.get("measure") != nullptr) {
    const toml::table &m = reader.table(root, "measure", where);
    const std::string mwhere = where + " measure";
    reader.check_keys(m, {"compile", "run", "csv", "outputs", "rtol", "atol", "equal_nan", "warmup", "remote"}, mwhere);
    MeasureConfig measure;
    measure.compile = read_step(reader, m, "compile", mwhere);
    measure.run = read_step(reader, m, "run", mwhere);
    measure.csv_pattern = reader.optional_string(m, "csv", mwhere).value_or(measure.csv_pattern);
    measure.outputs = reader.strings(m, "outputs", mwhere);
    for (const std::string &name : measure.outputs)
      if (name.find("..") != std::string::npos || name.front() == '/')
        reader.fail(reader.require(m, "outputs", mwhere), mwhere + ": outputs are file names relative to the variant directory");
    measure.tolerance.rtol = reader.number(m, "rtol", measure.tolerance.rtol, mwhere, 0, 1e300);
    measure.tolerance.atol = reader.number(m, "atol", measure.tolerance.atol, mwhere, 0, 1e300);
    if (const toml::node *nan = m.get("equal_nan")) {
      if (!nan->is_boolean()) reader.fail(*nan, mwhere + ": equal_nan must be true or false");
      measure.tolerance.equal_nan = nan->as_boolean()->get();
    }
    measure.warmup = reader.integer(m, "warmup", -1, mwhere);
    if (measure.warmup < 0) reader.fail(m, mwhere + ": 'warmup' (launches to drop, 0 for none) is required");
    if (auto remote = reader.optional_string(m, "remote", mwhere)) measure.remote = (dir / *remote).lexically_normal();
    config.measure = measure;
  }
  if (root.get("recorded") != nullptr) {
    const toml::table &r = reader.table(root, "recorded", where);
    const std::string rwhere = where + " recorded";
    reader.check_keys(r, {"baseline", "edited", "warmup", "note"}, rwhere);
    RecordedPair pair;
    pair.baseline = (dir / reader.string(r, "baseline", rwhere)).lexically_normal();
    pair.edited = (dir / reader.string(r, "edited", rwhere)).lexically_normal();
    pair.warmup = reader.integer(r, "warmup", -1, rwhere);
    if (pair.warmup < 0) reader.fail(r, rwhere + ": 'warmup' (launches to drop, 0 for none) is required");
    pair.note = reader.optional_string(r, "note", rwhere).value_or("");
    config.recorded = pair;
  }
  return config;
}

json predict_delta(const json &program, const EditResult &edits, const json &profile) {
  json per_edit = json::array();
  double total = 0, low = 0, high = 0;
  bool known = true, interval = true;
  std::vector<std::string> reasons;
  const json constants = profile.value("calibration", json::object()).value("constants", json::object());
  double clock = 0;  // Hz; 0 when the profile has none
  if (profile.contains("clock") && profile["clock"].contains("frequency"))
    clock = pb::sdk::quantity_value(profile["clock"]["frequency"], "clock").value_or(0);
  for (size_t idx = 0; idx < edits.edits.size(); ++idx) {
    const AppliedEdit &edit = edits.edits[idx];
    json entry = {{"edit", idx}, {"kind", edit.spec.kind}, {"time_delta", nullptr}};
    std::string why;
    if (edit.spec.kind != "remove_barrier") {
      why = "no time model for " + edit.spec.kind + " edits (no calibrated cost); the bound pipeline's change, when "
            "configured, is the only prediction";
    } else if (edit.record["pipe"] != "ALL") {
      why = "no calibrated cost for removing a pipe_barrier[PIPE_" + edit.record["pipe"].get<std::string>() +
            "] (the calibration holds pipe_barrier_all_cost only)";
    } else if (edit.record["core"] != "aiv") {
      why = "pipe_barrier_all_cost was measured on an AIV kernel; this barrier is on " + edit.record["core"].get<std::string>();
    } else if (edit.record["extractor_kind"] != "avoidable" && edit.record["extractor_kind"] != "redundant") {
      why = "the extractor judges this barrier " + edit.record["extractor_kind"].get<std::string>() +
            "; pipe_barrier_all_cost is the cost of a barrier between unrelated work";
    } else if (!constants.contains("pipe_barrier_all_cost") || !constants["pipe_barrier_all_cost"]["value"].is_number()) {
      why = "the profile's calibration has no pipe_barrier_all_cost";
    } else if (clock <= 0) {
      why = "the profile gives no clock frequency";
    } else {
      const json &op = program["ops"][static_cast<size_t>(edit.removed_ops.front())];
      std::optional<double> per_core = blocks_per_core(program, op, profile, why);
      std::optional<double> count = pb::sdk::quantity_value(op.value("count_instance", json(nullptr)), "count_instance");
      if (per_core && !count) why = "the barrier's executions per instance are unknown";
      if (per_core && count) {
        const json &cost = constants["pipe_barrier_all_cost"];
        double executions = *count * *per_core;
        double cycles = cost["value"].get<double>();
        double delta = -executions * cycles / clock;
        entry["time_delta"] = {{"value", delta}, {"unit", "s"}};
        entry["executions_on_busiest_core"] = executions;
        entry["method"] = "-(executions per core instance " + pb::sdk::json(*count).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " x " +
                          pb::sdk::json(*per_core).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " blocks on the busiest core) x pipe_barrier_all_cost " +
                          pb::sdk::json(cycles).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " cycles / clock " + pb::sdk::json(clock).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " Hz";
        entry["constant"] = {{"id", "pipe_barrier_all_cost"}, {"value", cycles}, {"unit", "cycle"},
                             {"ci95", cost.value("ci95", json(nullptr))}, {"method", cost.value("method", json(nullptr))}};
        total += delta;
        if (cost.contains("ci95") && cost["ci95"].is_object()) {
          entry["time_delta"]["interval"] = {{"low", -executions * cost["ci95"]["high"].get<double>() / clock},
                                             {"high", -executions * cost["ci95"]["low"].get<double>() / clock}};
          low += entry["time_delta"]["interval"]["low"].get<double>();
          high += entry["time_delta"]["interval"]["high"].get<double>();
        } else {
          interval = false;
        }
        per_edit.push_back(entry);
        continue;
      }
    }
    entry["reason"] = why;
    known = false;
    reasons.push_back("edit " + std::to_string(idx) + " (" + edit.spec.kind + "): " + why);
    per_edit.push_back(entry);
  }
  json time_delta = {{"unit", "s"}};
  if (known) {
    time_delta["value"] = total;
    time_delta["interval"] = interval ? json{{"low", low}, {"high", high}, {"of", "the calibrated costs' 95 % intervals"}}
                                      : json(nullptr);
  } else {
    std::string why;
    for (const std::string &r : reasons) why += (why.empty() ? "" : "; ") + r;
    time_delta["value"] = nullptr;
    time_delta["reason"] = why;
    time_delta["interval"] = nullptr;
  }
  return json{{"time_delta", time_delta}, {"per_edit", per_edit}};
}

namespace {

/// Measures a recorded baseline/edited pair and compares its delta with the
/// prediction; a pair that cannot be measured says why in `recorded`.
void compare_recorded(json &doc, const CounterfactualConfig &config) {
  const RecordedPair &pair = *config.recorded;
  MeasureRequest request;
  request.kernel = config.kernel;
  request.warmup = static_cast<size_t>(pair.warmup);
  const json baseline = measure_file(pair.baseline, request);
  const json edited = measure_file(pair.edited, request);
  auto summary = [](const json &m) {
    return json{{"csv", m["source"]["origin"]}, {"sha256", m["source"]["sha256"]}, {"launches", m["launches"]},
                {"t_measured", m["t_measured"]}, {"t_min", m["t_min"]}};
  };
  doc["recorded"] = {{"baseline", summary(baseline)}, {"edited", summary(edited)}, {"warmup", pair.warmup}, {"note", pair.note}};
  if (baseline["status"] != "ok" || edited["status"] != "ok") {
    doc["recorded"]["reason"] = baseline["status"] != "ok" ? baseline["reason"] : edited["reason"];
    doc["reason"] = doc["reason"].get<std::string>() + "; the recorded pair has no usable measurement: " +
                    doc["recorded"]["reason"].get<std::string>();
    return;
  }
  json comparison = compare_delta(doc["prediction"]["time_delta"], baseline, edited);
  comparison["source"] = "recorded";
  doc["comparison"] = comparison;
  doc["reason"] = doc["reason"].get<std::string>() + "; compared with the recorded pair (measured delta " +
                  us_text(comparison["measured_delta"]["value"].get<double>()) + ")";
}

}  // namespace

json run_counterfactual(const CounterfactualConfig &config, const CounterfactualServices &services, const fs::path &out_dir,
                        bool predict_only) {
  json doc = pb::sdk::make_document("perfbound.counterfactual/1");
  doc["config"] = config.file.string();
  doc["kernel"] = config.kernel;
  doc["hivm"] = config.hivm.string();
  doc["description"] = config.description;
  const std::string original = read_text(config.hivm, "HIVM dump");
  fs::create_directories(out_dir);

  const json before = services.extract(config.hivm);
  EditResult edited = apply_edits(original, before, config.edits);
  std::string stem = config.hivm.filename().string();
  for (const char *suffix : {".npuir.mlir", ".mlir"})
    if (stem.size() > std::string(suffix).size() && stem.ends_with(suffix)) {
      stem.resize(stem.size() - std::string(suffix).size());
      break;
    }
  const fs::path edited_path = fs::absolute(out_dir / (stem + ".edited.npuir.mlir"));
  write_text(edited_path, edited.text);
  json edit_records = json::array();
  for (const AppliedEdit &edit : edited.edits) edit_records.push_back(edit.record);
  doc["edits"] = edit_records;
  doc["edited_hivm"] = edited_path.string();

  const json after = services.extract(edited_path);
  json check = check_reextraction(before, after, edited);
  doc["reextraction"] = check;
  doc["prediction"] = predict_delta(before, edited, services.profile);
  if (config.bound_pipeline) {
    BoundOutcome b0 = services.bound(config.hivm), b1 = services.bound(edited_path);
    auto value = [](const BoundOutcome &b) -> std::optional<double> {
      if (b.report.is_null()) return std::nullopt;
      return pb::sdk::quantity_value(b.report["bound"], "bound");
    };
    std::optional<double> v0 = value(b0), v1 = value(b1);
    json bound_delta = {{"pipeline", config.bound_pipeline->string()},
                        {"before", v0 ? json(*v0) : json(nullptr)},
                        {"after", v1 ? json(*v1) : json(nullptr)},
                        {"unit", "s"}};
    if (v0 && v1) {
      bound_delta["value"] = *v1 - *v0;
    } else {
      bound_delta["value"] = nullptr;
      bound_delta["reason"] = !b0.error.empty() ? "original: " + b0.error
                              : !b1.error.empty() ? "edited: " + b1.error
                                                  : "the bound report gives no value";
    }
    doc["prediction"]["bound_delta"] = bound_delta;
  }
  if (!check["passed"].get<bool>()) {
    doc["status"] = "FAIL";
    doc["reason"] = "the re-extraction check failed: the edited dump changed more than the edits: " + check["problems"][0].get<std::string>();
    return doc;
  }
  if (!config.measure || predict_only) {
    doc["status"] = "PREDICTED";
    doc["reason"] = !config.measure ? "no [measure] section: prediction only" : "--predict-only";
    if (config.recorded) compare_recorded(doc, config);
    return doc;
  }

  const MeasureConfig &measure = *config.measure;
  std::optional<RemoteHost> remote;
  if (measure.remote) remote = load_remote_host(*measure.remote);
  const std::string run_id = "perfbound-cf-" +
                             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                std::chrono::system_clock::now().time_since_epoch()).count()) +
                             "-" + std::to_string(::getpid());
  json variants = json::object();
  VariantOutcome baseline = run_variant(config, measure, "baseline", original, out_dir, remote, run_id);
  variants["baseline"] = baseline.record;
  VariantOutcome changed;
  if (baseline.infra.empty()) {
    changed = run_variant(config, measure, "edited", edited.text, out_dir, remote, run_id);
    variants["edited"] = changed.record;
  }
  doc["variants"] = variants;
  if (!baseline.infra.empty() || !changed.infra.empty()) {
    doc["status"] = "INFRA_ERROR";
    doc["reason"] = !baseline.infra.empty() ? baseline.infra : changed.infra;
    return doc;
  }
  // Numerics: the edited kernel must compute what the baseline computes.
  json checks = json::array();
  bool numerics_ok = true;
  for (size_t idx = 0; idx < measure.outputs.size(); ++idx) {
    json entry = {{"output", measure.outputs[idx]}};
    try {
      NpyArray expected = read_npy(baseline.outputs[idx]);
      NpyArray actual = read_npy(changed.outputs[idx]);
      entry["check"] = allclose(actual, expected, measure.tolerance);
    } catch (const pb::sdk::InputError &e) {
      doc["status"] = "INFRA_ERROR";
      doc["reason"] = std::string("output check: ") + e.what();
      doc["numerics"] = checks;
      return doc;
    }
    numerics_ok = numerics_ok && entry["check"]["passed"].get<bool>();
    checks.push_back(entry);
  }
  doc["numerics"] = checks;
  json comparison = compare_delta(doc["prediction"]["time_delta"], baseline.measurement, changed.measurement);
  comparison["source"] = "orchestrated";
  const double measured_delta = comparison["measured_delta"]["value"].get<double>();
  const json &predicted = doc["prediction"]["time_delta"];
  doc["comparison"] = comparison;
  if (!numerics_ok) {
    doc["status"] = "FAIL";
    doc["reason"] = "the edited kernel's outputs differ from the baseline's: the edit is not a legal change";
    return doc;
  }
  doc["status"] = "PASS";
  doc["reason"] = "both variants measured; outputs match; measured delta " + us_text(measured_delta) +
                  ((predicted.contains("value") && predicted["value"].is_number()) ? ", predicted " + us_text(predicted["value"].get<double>()) : std::string());
  return doc;
}

std::string render_counterfactual(const json &doc) {
  std::ostringstream out;
  out << "counterfactual: kernel " << doc["kernel"].get<std::string>() << " (" << doc["hivm"].get<std::string>() << ")\n";
  for (const json &edit : doc.value("edits", json::array())) {
    out << "  edit " << edit["kind"].get<std::string>();
    if (edit.contains("line")) out << " line " << edit["line"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (edit.contains("set_line")) out << " lines " << edit["set_line"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "/" << edit["wait_line"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (edit.contains("extractor_kind")) out << " [" << edit["extractor_kind"].get<std::string>() << "]";
    out << "\n";
    if (edit.contains("warning")) out << "    warning: " << edit["warning"].get<std::string>() << "\n";
  }
  out << "  edited dump: " << doc.value("edited_hivm", std::string("-")) << "\n";
  const json check = doc.value("reextraction", json::object());
  out << "  re-extraction check: " << (check.value("passed", false) ? "passed" : "FAILED") << "\n";
  for (const json &p : check.value("problems", json::array())) out << "    problem: " << p.get<std::string>() << "\n";
  for (const json &s : check.value("side_effects", json::array())) out << "    side effect: " << s.get<std::string>() << "\n";
  const json &delta = doc["prediction"]["time_delta"];
  if (delta.contains("value") && delta["value"].is_number()) {
    out << "  predicted time delta: " << us_text(delta["value"].get<double>());
    if (delta.contains("interval") && delta["interval"].is_object())
      out << " (95 % interval " << us_text(delta["interval"]["low"].get<double>()) << " .. "
          << us_text(delta["interval"]["high"].get<double>()) << ")";
    out << "\n";
  } else {
    out << "  predicted time delta: unknown: " << delta.value("reason", std::string()) << "\n";
  }
  if (doc["prediction"].contains("bound_delta")) {
    const json &b = doc["prediction"]["bound_delta"];
    out << "  bound delta: " << ((b.contains("value") && b["value"].is_number()) ? us_text(b["value"].get<double>()) : "unknown: " + b.value("reason", std::string()))
        << "\n";
  }
  if (doc.contains("comparison")) {
    const json &c = doc["comparison"];
    out << "  measured delta" << (c.value("source", std::string()) == "recorded" ? " (recorded pair)" : "") << ": "
        << us_text(c["measured_delta"]["value"].get<double>()) << " (median), "
        << us_text(c["measured_min_delta"]["value"].get<double>()) << " (fastest launch)\n";
    if (c.contains("error")) out << "  measured - predicted: " << us_text(c["error"]["value"].get<double>()) << "\n";
    if (c.contains("within_interval"))
      out << "  measured delta within the predicted 95 % interval: " << (c["within_interval"].get<bool>() ? "yes" : "no") << "\n";
  }
  for (const json &n : doc.value("numerics", json::array()))
    out << "  output " << n["output"].get<std::string>() << ": " << (n["check"]["passed"].get<bool>() ? "matches" : "DIFFERS")
        << " (" << n["check"]["mismatches"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << " of " << n["check"]["elements"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << " elements outside rtol "
        << n["check"]["rtol"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ", atol " << n["check"]["atol"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ")\n";
  out << "status: " << doc["status"].get<std::string>() << ": " << doc["reason"].get<std::string>() << "\n";
  return out.str();
}

int counterfactual_exit_code(const json &doc) {
  const std::string status = doc["status"].get<std::string>();
  if (status == "FAIL") return 1;
  if (status == "INFRA_ERROR") return 5;
  return 0;
}

}  // namespace perfbound::validate
