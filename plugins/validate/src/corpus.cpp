//===- corpus.cpp - corpus manifests and the `perfbound validate` table ---===//
#include "corpus.hpp"

#include <perfbound/sdk/text.hpp>

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/number.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "measurement.hpp"
#include "toml_reader.hpp"

namespace perfbound::validate {

namespace fs = std::filesystem;

namespace {

constexpr const char *kManifestPrefix = "manifest:";

fs::path resolve_path(const std::string &text, const fs::path &manifest_dir, const fs::path &data_root) {
  if (text.rfind(kManifestPrefix, 0) == 0) return (manifest_dir / text.substr(std::string(kManifestPrefix).size())).lexically_normal();
  fs::path path(text);
  if (path.is_absolute()) return path;
  return (data_root / path).lexically_normal();
}

std::optional<double> number_at(const json &obj, std::initializer_list<const char *> path) {
  const json *cur = &obj;
  for (const char *key : path) {
    if (!cur->is_object() || !cur->contains(key)) return std::nullopt;
    cur = &(*cur)[key];
  }
  if (!cur->is_number()) return std::nullopt;
  return cur->get<double>();
}

/// "104,288.9" (microseconds with one decimal and thousands separators).
std::string us_cell(std::optional<double> seconds) {
  if (!seconds) return "-";
  char buffer[64];
  // Beyond 10^15 us (or not finite) %.1f is no longer a short text, and the
  // digit grouping below needs its '.'.
  if (!std::isfinite(*seconds * 1e6) || std::fabs(*seconds * 1e6) >= 1e15) {
    std::snprintf(buffer, sizeof buffer, "%g", *seconds * 1e6);
    return buffer;
  }
  std::snprintf(buffer, sizeof buffer, "%.1f", *seconds * 1e6);
  std::string digits(buffer);
  size_t start = digits[0] == '-' ? 1 : 0;
  for (size_t pos = digits.find('.'); pos > start + 3; pos -= 3) digits.insert(pos - 3, ",");
  return digits;
}

std::string ratio_cell(std::optional<double> ratio) {
  if (!ratio) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2fx", *ratio);
  return buffer;
}

std::string pad_right(const std::string &text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}
std::string pad_left(const std::string &text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string string_at(const json &obj, std::initializer_list<const char *> path, const std::string &fallback = "") {
  const json *cur = &obj;
  for (const char *key : path) {
    if (!cur->is_object() || !cur->contains(key)) return fallback;
    cur = &(*cur)[key];
  }
  return cur->is_string() ? cur->get<std::string>() : fallback;
}

/// The report's headline coverage: the share of the binding unit's work
/// the bound counts ("51 %", rounded down; "-" without one). A validation
/// written before `headline_share` existed gives the share of the ops.
std::string coverage_cell(const json &bound) {
  const json &cov = bound.value("coverage", json());
  if (!cov.is_object()) return "-";
  const char *member = cov.contains("headline_share") && cov["headline_share"].is_number() ? "headline_share" : "share";
  if (!(cov.contains(member) && cov[member].is_number())) return "-";
  std::ostringstream os;
  os << static_cast<int>(std::floor(cov[member].get<double>() * 100)) << " %";
  return os.str();
}

/// What coverage_cell's share is of ("work on the binding unit", ...).
std::string coverage_of(const json &bound) {
  const json &cov = bound.value("coverage", json());
  if (cov.is_object() && cov.contains("headline_of") && cov["headline_of"].is_string()) return cov["headline_of"].get<std::string>();
  return "the IR's ops";
}

std::string binding_cell(const json &validation) {
  const json &binding = validation["binding"];
  std::string predicted = (binding.contains("predicted") && binding["predicted"].is_string()) ? binding["predicted"].get<std::string>() : "-";
  std::string measured = (binding.contains("measured") && binding["measured"].is_string()) ? binding["measured"].get<std::string>() : "-";
  std::string verdict = (binding.contains("match") && binding["match"].is_boolean()) ? (binding["match"].get<bool>() ? " (match)" : " (differ)") : "";
  return predicted + " / " + measured + verdict;
}

json summarize(const json &cases) {
  size_t pass = 0, fail = 0, infra = 0, no_measurement = 0, no_bound = 0, compared = 0, matches = 0;
  std::vector<double> tightness;
  for (const json &c : cases) {
    const std::string status = c["status"].get<std::string>();
    if (status == "PASS") ++pass;
    if (status == "FAIL") ++fail;
    if (status == "INFRA_ERROR") {
      ++infra;
      if (c["infra"] == "no_measurement") ++no_measurement;
      if (c["infra"] == "no_bound") ++no_bound;
      continue;
    }
    if (std::optional<double> t = number_at(c, {"tightness", "value"})) tightness.push_back(*t);
    if (c["binding"]["match"].is_boolean()) {
      ++compared;
      if (c["binding"]["match"].get<bool>()) ++matches;
    }
  }
  json summary = {{"cases", cases.size()}, {"pass", pass}, {"fail", fail}, {"infra_error", infra},
                  {"no_measurement", no_measurement}, {"no_bound", no_bound}};
  size_t validated = pass + fail;
  summary["soundness"] = {{"validated", validated}, {"sound", pass},
                          {"rate", validated > 0 ? json(static_cast<double>(pass) / static_cast<double>(validated)) : json(nullptr)}};
  json t = {{"n", tightness.size()}, {"min", nullptr}, {"median", nullptr}, {"geomean", nullptr}, {"max", nullptr}};
  if (!tightness.empty()) {
    std::sort(tightness.begin(), tightness.end());
    size_t n = tightness.size();
    double log_sum = 0;
    for (double value : tightness) log_sum += std::log(value);
    t["min"] = tightness.front();
    t["max"] = tightness.back();
    t["median"] = n % 2 == 1 ? tightness[n / 2] : (tightness[n / 2 - 1] + tightness[n / 2]) / 2;
    t["geomean"] = std::exp(log_sum / static_cast<double>(n));
  }
  summary["tightness"] = t;
  summary["binding"] = {{"compared", compared}, {"matches", matches}};
  return summary;
}

/// The longest time a saved report may state: a year. A bound or limit
/// beyond it is a broken or hostile file, not a kernel (and 1e308 s printed
/// in microseconds overflows every text form of it).
constexpr double kMaxReportSeconds = 365.0 * 86400.0;

/// Every time quantity ({"value": v, "unit": "s"}) anywhere in a saved
/// report or run result must be a number of seconds from 0 to a year;
/// refused at its line and column otherwise.
void check_report_times(const json &node, const json::json_pointer &at, const json &root, const pb::sdk::JsonSource &source) {
  if (node.is_object()) {
    auto unit = node.find("unit");
    auto value = node.find("value");
    if (unit != node.end() && value != node.end() && unit->is_string() && *unit == "s" && !value->is_null())
      (void)source.number(root, at / "value", pb::sdk::NumberRange::non_negative().at_most(kMaxReportSeconds),
                          "time " + (at / "value").to_string() + " (seconds)");
    for (const auto &[key, child] : node.items()) check_report_times(child, at / key, root, source);
  } else if (node.is_array()) {
    for (size_t idx = 0; idx < node.size(); ++idx) check_report_times(node[idx], at / idx, root, source);
  }
}

/// A saved report or run result: regular file, size, UTF-8 and depth limits.
std::string read_text(const fs::path &path) {
  std::string error;
  auto text = pb::sdk::read_json_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!text) throw pb::sdk::InputError(error);
  return std::move(*text);
}

}  // namespace

Corpus load_corpus(const fs::path &manifest, const std::optional<fs::path> &data_root,
                   const std::optional<fs::path> &fallback_root) {
  const std::string file = manifest.string();
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec)) throw pb::sdk::InputError(file + ": corpus manifest not found");
  toml::table root = parse_toml_file(file);
  TomlReader reader(file);
  reader.check_keys(root, {"version", "description", "data_root", "pipeline", "report_output", "case"}, "corpus manifest");
  const toml::node &version = reader.require(root, "version", "corpus manifest");
  if (!version.is_integer() || version.as_integer()->get() != 1)
    reader.fail(version, "corpus manifest: unsupported version (this perfbound reads version = 1)");
  Corpus corpus;
  corpus.manifest = fs::absolute(manifest).lexically_normal();
  const fs::path manifest_dir = corpus.manifest.parent_path();
  corpus.description = reader.optional_string(root, "description", "corpus manifest").value_or("");
  if (data_root) {
    corpus.data_root = fs::absolute(*data_root).lexically_normal();
  } else if (auto rel = reader.optional_string(root, "data_root", "corpus manifest")) {
    corpus.data_root = (manifest_dir / *rel).lexically_normal();
  } else if (fallback_root) {
    corpus.data_root = fs::absolute(*fallback_root).lexically_normal();
  } else {
    corpus.data_root = manifest_dir;
  }
  if (!fs::is_directory(corpus.data_root, ec))
    throw pb::sdk::InputError(file + ": data root " + corpus.data_root.string() +
                              " is not a directory (give --data DIR, e.g. the ../shared/data of the checkout)");
  corpus.report_output = reader.optional_string(root, "report_output", "corpus manifest").value_or("bound");
  std::optional<std::string> default_pipeline = reader.optional_string(root, "pipeline", "corpus manifest");

  const toml::node &cases_node = reader.require(root, "case", "corpus manifest");
  const toml::array *cases = cases_node.as_array();
  if (cases == nullptr || cases->empty()) reader.fail(cases_node, "corpus manifest: 'case' must be an array of tables ([[case]])");
  std::vector<std::string> names;
  for (const toml::node &node : *cases) {
    if (!node.is_table()) reader.fail(node, "corpus manifest: each [[case]] must be a table");
    const toml::table &entry = *node.as_table();
    CorpusCase c;
    c.where = reader.where(node);
    c.name = reader.string(entry, "name", "case");
    const std::string where = "case '" + c.name + "'";
    reader.check_keys(entry, {"name", "kernel", "description", "pipeline", "inputs", "launch", "set", "report", "measurement",
                              "no_measurement"},
                      where);
    if (std::find(names.begin(), names.end(), c.name) != names.end())
      reader.fail(reader.require(entry, "name", where), where + ": a case of this name already exists");
    names.push_back(c.name);
    c.kernel = reader.string(entry, "kernel", where);
    c.description = reader.optional_string(entry, "description", where).value_or("");
    if (auto report = reader.optional_string(entry, "report", where)) {
      c.report = resolve_path(*report, manifest_dir, corpus.data_root);
    } else {
      std::optional<std::string> pipeline = reader.optional_string(entry, "pipeline", where);
      if (!pipeline) pipeline = default_pipeline;
      if (!pipeline) reader.fail(entry, where + ": no pipeline (set 'pipeline' here or at the top) and no saved 'report'");
      c.pipeline = resolve_path(*pipeline, manifest_dir, corpus.data_root);
    }
    if (const toml::node *inputs = entry.get("inputs")) {
      if (!inputs->is_table()) reader.fail(*inputs, where + ": 'inputs' must be a table of pipeline input = path");
      for (auto &&[key, value] : *inputs->as_table()) {
        if (!value.is_string()) reader.fail(value, where + ": input '" + std::string(key.str()) + "' must be a path string");
        c.inputs.emplace_back(std::string(key.str()), resolve_path(value.as_string()->get(), manifest_dir, corpus.data_root));
      }
    }
    if (const toml::node *launch = entry.get("launch")) {
      if (!launch->is_table()) reader.fail(*launch, where + ": 'launch' must be a table { grid = [...], args = { ... } }");
      reader.check_keys(*launch->as_table(), {"grid", "args", "kernel", "note"}, where + " launch");
      c.launch = toml_to_json(*launch);
    }
    c.sets = reader.strings(entry, "set", where);
    const toml::node *measurement = entry.get("measurement");
    std::optional<std::string> none = reader.optional_string(entry, "no_measurement", where);
    if ((measurement != nullptr) == none.has_value())
      reader.fail(entry, where + ": give exactly one of 'measurement' and 'no_measurement' (why there is none)");
    if (none) {
      c.no_measurement = *none;
    } else {
      if (!measurement->is_table()) reader.fail(*measurement, where + ": 'measurement' must be a table");
      const toml::table &m = *measurement->as_table();
      const std::string mwhere = where + " measurement";
      reader.check_keys(m, {"file", "warmup", "rule", "device", "task_types", "bench_case"}, mwhere);
      c.measurement = resolve_path(reader.string(m, "file", mwhere), manifest_dir, corpus.data_root);
      c.warmup = reader.integer(m, "warmup", -1, mwhere);
      if (c.warmup < 0) reader.fail(m, mwhere + ": missing key 'warmup' (the number of warm-up launches to drop, 0 for none)");
      std::string rule = reader.string(m, "rule", mwhere);
      if (rule != kRuleId)
        reader.fail(reader.require(m, "rule", mwhere), mwhere + ": unknown rule '" + rule + "'; this perfbound applies '" +
                                                           std::string(kRuleId) + "' (" + rule_text() + ")");
      if (auto device = reader.optional_string(m, "device", mwhere)) c.device = *device;
      c.task_types = reader.strings(m, "task_types", mwhere);
      c.bench_case = reader.optional_string(m, "bench_case", mwhere).value_or("");
    }
    corpus.cases.push_back(std::move(c));
  }
  return corpus;
}

std::string launch_to_toml(const json &launch) {
  std::string out = "{";
  bool first = true;
  for (const auto &[key, value] : launch.items()) {
    out += (first ? "" : ",") + json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "=";
    first = false;
    if (value.is_object()) {
      out += launch_to_toml(value);
    } else {
      out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // numbers, strings, booleans and arrays of them read the same in TOML
    }
  }
  return out + "}";
}

BoundOutcome report_from_run_result(const json &run_result, const std::string &report_output, const std::string &origin) {
  BoundOutcome out;
  out.origin.origin = origin;
  out.origin.run_provenance = run_result.value("provenance", json(nullptr));
  if (run_result.contains("provenance") && run_result["provenance"].contains("pipeline"))
    out.origin.pipeline = string_at(run_result["provenance"], {"pipeline", "file"});
  const std::string status = run_result.value("status", std::string("?"));
  const json outputs = run_result.value("outputs", json::object());
  // The named output, or else the one output that is a bound report.
  std::string output = report_output;
  if (!outputs.contains(output)) {
    std::vector<std::string> reports;
    for (const auto &[name, doc] : outputs.items())
      if (doc.is_object() && doc.value("schema", std::string()) == "perfbound.bound_report/1") reports.push_back(name);
    if (reports.size() == 1) output = reports.front();
  }
  if (status != "ok" || !outputs.contains(output)) {
    std::string why = "the bound pipeline " + (status == "ok" ? "has no output '" + report_output + "'" : "run is " + status);
    for (const json &node : run_result.value("nodes", json::array()))
      if (node.value("status", std::string()) == "failed")
        why += "; node '" + node.value("id", std::string()) + "' failed: " + string_at(node, {"error"}, "no message");
    for (const json &d : run_result.value("diagnostics", json::array()))
      if (d.value("severity", std::string()) == "error")
        why += "; " + d.value("file", std::string()) + ":" + std::to_string(d.value("line", 0)) + ": " +
               d.value("message", std::string());
    out.error = why;
    return out;
  }
  out.report = outputs[output];
  if (out.report.value("schema", std::string()) != "perfbound.bound_report/1") {
    out.error = "pipeline output '" + output + "' is a " + out.report.value("schema", std::string("?")) +
                " document, not perfbound.bound_report/1";
    out.report = nullptr;
  }
  return out;
}

BoundOutcome read_saved_report(const fs::path &path, const std::string &report_output) {
  BoundOutcome out;
  out.origin.origin = path.string();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found && !(ec && ec.value() == ELOOP)) {
    // A case without its report is a case without a bound (INFRA_ERROR).
    out.error = path.string() + ": saved bound report not found";
    return out;
  }
  // Something is there but it is no report: a directory, a device, a FIFO,
  // a loop of symbolic links. That is bad input, said before reading.
  if (std::string why; !pb::sdk::open_input_file(path, pb::sdk::kMaxDataFileBytes, why))
    throw pb::sdk::InputError(path.string() + ": the saved bound report " + why);
  const std::string text = read_text(path);
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw pb::sdk::InputError(pb::sdk::json_syntax_error_message(text, path.string()));
  if (!doc.is_object()) throw pb::sdk::InputError(path.string() + ": not a JSON object");
  check_report_times(doc, json::json_pointer(), doc, pb::sdk::JsonSource(path.string(), text));
  const std::string schema = doc.value("schema", std::string());
  if (schema == "perfbound.run_result/1") return report_from_run_result(doc, report_output, path.string());
  if (schema != "perfbound.bound_report/1")
    throw pb::sdk::InputError(path.string() + ": schema '" + schema +
                              "': expected a perfbound.bound_report/1 or a perfbound.run_result/1 document");
  out.report = std::move(doc);
  return out;
}

json run_corpus(const Corpus &corpus, const BoundSource &bound_source) {
  json doc = pb::sdk::make_document("perfbound.corpus_validation/1");
  doc["manifest"] = corpus.manifest.string();
  doc["data_root"] = corpus.data_root.string();
  doc["description"] = corpus.description;
  doc["rule"] = {{"id", kRuleId}, {"text", rule_text()}};
  json cases = json::array();
  for (const CorpusCase &c : corpus.cases) {
    // The measurement: a missing file is an infrastructure problem of this
    // case (reported, excluded), a malformed one is the user's to fix.
    json measurement;
    if (!c.measurement) {
      measurement = no_measurement(c.kernel, c.where, "the manifest lists none: " + c.no_measurement);
    } else if (std::error_code ec; !fs::is_regular_file(*c.measurement, ec)) {
      measurement = no_measurement(c.kernel, c.measurement->string(), "measurement file " + c.measurement->string() + " not found");
    } else {
      MeasureRequest request;
      request.kernel = c.kernel;
      request.warmup = static_cast<size_t>(c.warmup);
      request.device = c.device;
      if (!c.task_types.empty()) request.task_types = c.task_types;
      measurement = measure_file(*c.measurement, request, c.bench_case);
    }
    BoundOutcome bound = bound_source(c);
    json validation = validate_bound(bound.report, measurement, bound.origin, c.name, bound.error);
    validation["description"] = c.description;
    cases.push_back(std::move(validation));
  }
  doc["summary"] = summarize(cases);
  doc["cases"] = std::move(cases);
  doc["exit_code"] = corpus_exit_code(doc);
  return doc;
}

int corpus_exit_code(const json &corpus_validation) {
  const json &summary = corpus_validation["summary"];
  if (summary["fail"].get<size_t>() > 0) return 4;
  if (summary["infra_error"].get<size_t>() == summary["cases"].get<size_t>()) return 5;
  return 0;
}

std::string render_corpus_table(const json &doc) {
  std::ostringstream out;
  const json &cases = doc["cases"];
  out << "perfbound validate: " << cases.size() << " cases from " << doc["manifest"].get<std::string>() << "\n";
  out << "data: " << doc["data_root"].get<std::string>() << "\n";
  out << "rule " << doc["rule"]["id"].get<std::string>()
      << ": T_measured = median launch after the warm-up; sound iff T_bound <= the fastest launch; "
         "tightness = T_measured / T_bound\n\n";
  size_t name_width = 4;
  for (const json &c : cases) name_width = std::max(name_width, c["case"].get<std::string>().size());
  out << pad_right("case", name_width) << "  " << pad_right("status", 11) << "  " << pad_left("bound(us)", 11) << "  "
      << pad_left("measured(us)", 12) << "  " << pad_left("min(us)", 11) << "  " << pad_left("tightness", 9) << "  "
      << pad_left("coverage", 8) << "\n";
  for (const json &c : cases) {
    out << pad_right(c["case"].get<std::string>(), name_width) << "  " << pad_right(c["status"].get<std::string>(), 11) << "  "
        << pad_left(us_cell(number_at(c, {"bound", "value"})), 11) << "  "
        << pad_left(us_cell(number_at(c, {"measurement", "t_measured", "value"})), 12) << "  "
        << pad_left(us_cell(number_at(c, {"measurement", "t_min", "value"})), 11) << "  "
        << pad_left(ratio_cell(number_at(c, {"tightness", "value"})), 9) << "  "
        << pad_left(coverage_cell(c["bound"]), 8) << "\n";
    // The binding component on its own line: as a column it took the table
    // past 100 columns (issue 26).
    out << pad_right("", name_width) << "  binding (predicted / msprof): " << binding_cell(c) << "\n";
    if (c["status"] != "PASS") out << pad_right("", name_width) << "  " << c["reason"].get<std::string>() << "\n";
    if (const json &cov = c["bound"].value("coverage", json()); cov.is_object() && (cov.contains("warning") && cov["warning"].is_string()))
      out << pad_right("", name_width) << "  coverage: " << cov["warning"].get<std::string>() << "\n";
  }
  const json &s = doc["summary"];
  out << "\nsummary: " << s["soundness"]["validated"].get<size_t>() << " validated: " << s["pass"].get<size_t>() << " PASS, "
      << s["fail"].get<size_t>() << " FAIL (sound " << s["soundness"]["sound"].get<size_t>() << "/"
      << s["soundness"]["validated"].get<size_t>() << "); " << s["infra_error"].get<size_t>() << " INFRA_ERROR ("
      << s["no_measurement"].get<size_t>() << " no measurement, " << s["no_bound"].get<size_t>() << " no bound)\n";
  const json &t = s["tightness"];
  if (t["n"].get<size_t>() > 0)
    out << "tightness over " << t["n"].get<size_t>() << " validated: min " << ratio_cell(t["min"].get<double>()) << ", median "
        << ratio_cell(t["median"].get<double>()) << ", geometric mean " << ratio_cell(t["geomean"].get<double>()) << ", max "
        << ratio_cell(t["max"].get<double>()) << "\n";
  out << "binding component matches msprof: " << s["binding"]["matches"].get<size_t>() << " of "
      << s["binding"]["compared"].get<size_t>() << " compared\n";
  return pb::sdk::text::wrap_lines(out.str());  // paths, reasons and notes wrap at 100 columns
}

std::string render_validation(const json &v) {
  std::ostringstream out;
  out << ((v.contains("case") && v["case"].is_string()) ? v["case"].get<std::string>() + ": " : "") << "kernel " << v["kernel"].get<std::string>()
      << ": " << v["status"].get<std::string>() << "\n  " << v["reason"].get<std::string>() << "\n";
  out << "  bound " << us_cell(number_at(v, {"bound", "value"})) << " us (tier " << string_at(v, {"bound", "tier"}, "-")
      << ", binding " << string_at(v, {"bound", "binding_term"}, "-") << "), measured "
      << us_cell(number_at(v, {"measurement", "t_measured", "value"})) << " us (min "
      << us_cell(number_at(v, {"measurement", "t_min", "value"})) << "), tightness "
      << ratio_cell(number_at(v, {"tightness", "value"})) << "\n";
  out << "  reachability:";
  for (const json &level : v["reachability"]["levels"])
    out << " " << level["level"].get<std::string>() << " " << us_cell(number_at(level, {"value"}));
  out << " us; compiler headroom " << us_cell(number_at(v, {"reachability", "compiler_headroom", "value"}))
      << " us, author headroom " << us_cell(number_at(v, {"reachability", "author_headroom", "value"})) << " us\n";
  out << "  binding (predicted / msprof): " << binding_cell(v) << "\n";
  out << "  coverage: " << coverage_cell(v["bound"]) << " of " << coverage_of(v["bound"]) << " counted";
  if (const json &cov = v["bound"].value("coverage", json()); cov.is_object() && (cov.contains("warning") && cov["warning"].is_string()))
    out << "; " << cov["warning"].get<std::string>();
  out << "\n";
  for (const json &w : v.value("warnings", json::array())) out << "  warning: " << w.get<std::string>() << "\n";
  return pb::sdk::text::wrap_lines(out.str());
}

}  // namespace perfbound::validate
