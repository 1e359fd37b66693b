//===- validation.cpp - tri-state soundness, tightness, reachability ------===//
#include "validation.hpp"

#include <perfbound/sdk/cancel.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "measurement.hpp"

namespace perfbound::validate {

namespace {

std::optional<double> value_of(const json &quantity) {
  if (!quantity.is_object()) return std::nullopt;
  auto it = quantity.find("value");
  if (it == quantity.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string reason_of(const json &quantity, const std::string &fallback) {
  if (quantity.is_object() && quantity.contains("reason") && quantity["reason"].is_string())
    return quantity["reason"].get<std::string>();
  return fallback;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// "1,234.5 us" for messages.
std::string us_text(double seconds) {
  char buffer[64];
  if (!std::isfinite(seconds * 1e6) || std::fabs(seconds * 1e6) >= 1e15) {  // no '.' to group around
    std::snprintf(buffer, sizeof buffer, "%g us", seconds * 1e6);
    return buffer;
  }
  std::snprintf(buffer, sizeof buffer, "%.1f", seconds * 1e6);
  std::string digits(buffer);
  size_t dot = digits.find('.');
  size_t start = digits[0] == '-' ? 1 : 0;
  for (size_t pos = dot; pos > start + 3; pos -= 3) digits.insert(pos - 3, ",");
  return digits + " us";
}

json seconds(std::optional<double> value, const std::string &reason) {
  if (value) return json{{"value", *value}, {"unit", "s"}};
  return json{{"value", nullptr}, {"unit", "s"}, {"reason", reason}};
}

std::string string_or(const json &obj, const char *key, const std::string &fallback = "") {
  if (obj.is_object() && obj.contains(key) && obj[key].is_string()) return obj[key].get<std::string>();
  return fallback;
}

json nullable_string(const json &obj, const char *key) {
  if (obj.is_object() && obj.contains(key) && obj[key].is_string()) return obj[key];
  return nullptr;
}

/// The report's contract members validation reads (schema
/// perfbound.bound_report/1): refuse a document without them.
void check_report(const json &report, const std::string &where) {
  if (!report.is_object()) throw pb::sdk::InputError(where + ": the bound report is not a JSON object");
  const json &bound = pb::sdk::require(report, "bound", where);
  const json &value = pb::sdk::require(bound, "value", where + ".bound");
  // A bound is a time: null (unknown, with a reason) or a finite number >= 0.
  // Anything else would compare as "at or below every launch" and PASS.
  if (!value.is_null() && !value.is_number())
    throw pb::sdk::InputError(where + ".bound.value: expected a number of seconds or null, got " +
                              value.dump(-1, ' ', false, json::error_handler_t::replace));
  if (value.is_number() && !std::isfinite(value.get<double>()))
    throw pb::sdk::InputError(where + ".bound.value: " + (std::isnan(value.get<double>()) ? "NaN" : "an infinite value") +
                              " is not a finite number of seconds");
  if (value.is_number() && value.get<double>() < 0)
    throw pb::sdk::InputError(where + ".bound.value: " + value.dump() + " is negative; a lower bound on a run time is never below 0 s");
  const json &limits = pb::sdk::require(report, "limits", where);
  pb::sdk::require(limits, "dsl", where + ".limits");
  pb::sdk::require(limits, "hivm", where + ".limits");
}

}  // namespace

bool binding_matches(const std::string &predicted, const std::string &measured) {
  std::string p = lower(predicted), m = lower(measured);
  if (p == m) return true;
  return p == "hbm" && (m == "mte2" || m == "mte3");
}

json validate_bound(const json &report, const json &measurement, const ReportOrigin &origin, const std::string &case_name,
                    const std::string &no_bound_reason) {
  const std::string where = origin.origin.empty() ? std::string("bound report") : origin.origin;
  const bool have_report = !report.is_null();
  if (have_report) check_report(report, where);
  if (!measurement.is_object() || measurement.value("schema", std::string()) != "perfbound.measurement/1")
    throw pb::sdk::InputError("measurement: not a perfbound.measurement/1 document");

  json doc = pb::sdk::make_document("perfbound.validation/1");
  doc["case"] = case_name.empty() ? json(nullptr) : json(case_name);
  const std::string measured_kernel = measurement.value("kernel", std::string());
  const std::string report_kernel = have_report ? string_or(report.value("kernel", json::object()), "name") : "";
  doc["kernel"] = measured_kernel.empty() ? report_kernel : measured_kernel;
  doc["rule"] = {{"id", kRuleId}, {"text", rule_text()}};
  json warnings = json::array();
  if (have_report && !report_kernel.empty() && !measured_kernel.empty() && report_kernel != measured_kernel &&
      report_kernel.rfind(measured_kernel, 0) != 0)
    warnings.push_back("the bound report is for kernel '" + report_kernel + "' but the measurement selects '" +
                       measured_kernel + "'");

  // The bound.
  const json bound_obj = have_report ? report["bound"] : json::object();
  std::optional<double> bound = have_report ? value_of(bound_obj) : std::nullopt;
  std::string bound_reason = have_report ? reason_of(bound_obj, "the bound report gives no value") : no_bound_reason;
  if (bound_reason.empty()) bound_reason = "no bound report";
  json bound_json = seconds(bound, bound_reason);
  bound_json["tier"] = have_report ? bound_obj.value("tier", json(nullptr)) : json(nullptr);
  bound_json["binding_term"] = nullable_string(bound_obj, "binding_term");
  bound_json["binding_component"] = nullable_string(bound_obj, "binding_component");
  bound_json["sound_claimed"] = bound_obj.contains("sound") ? bound_obj["sound"] : json(nullptr);
  bound_json["assurance"] = nullable_string(bound_obj, "assurance");
  // What the bound counts of the IR (the report's coverage): the share of
  // ops counted and, below 90 %, the sentence saying what it left out.
  json coverage = nullptr;
  if (have_report && report.contains("coverage") && report["coverage"].is_object()) {
    const json &cov = report["coverage"];
    coverage = json::object();
    const json &hivm = cov.contains("hivm") ? cov["hivm"] : json();
    coverage["share"] = hivm.is_object() && hivm.contains("share") ? hivm["share"] : json(nullptr);
    coverage["ops_counted"] = hivm.is_object() && hivm.contains("ops_counted") ? hivm["ops_counted"] : json(nullptr);
    coverage["ops_present"] = hivm.is_object() && hivm.contains("ops_present") ? hivm["ops_present"] : json(nullptr);
    coverage["warning"] = cov.contains("warning") ? cov["warning"] : json(nullptr);
    // The report's headline figure: the share of the binding unit's work
    // (what the bound's time is made of) or of its ops, whichever is lower,
    // else of the kernel's ops; the table, the text and the dashboard show
    // this one.
    const json &binding = hivm.is_object() && hivm.contains("binding") && hivm["binding"].is_object() ? hivm["binding"] : json();
    const bool ops_lower = binding.contains("share") && binding["share"].is_number() && binding.contains("work_share") &&
                           binding["work_share"].is_number() && binding["share"].get<double>() < binding["work_share"].get<double>();
    if (binding.contains("work_share") && binding["work_share"].is_number() && !ops_lower) {
      coverage["headline_share"] = binding["work_share"];
      coverage["headline_of"] = "work on the binding unit";
    } else if (binding.contains("share") && binding["share"].is_number()) {
      coverage["headline_share"] = binding["share"];
      coverage["headline_of"] = "ops on the binding unit";
    } else {
      coverage["headline_share"] = coverage["share"];
      coverage["headline_of"] = "the kernel's ops";
    }
  }
  bound_json["coverage"] = coverage;
  doc["bound"] = bound_json;

  // The measurement.
  const bool measured = measurement.value("status", std::string()) == "ok";
  std::optional<double> t_measured = measured ? value_of(measurement["t_measured"]) : std::nullopt;
  std::optional<double> t_min = measured ? value_of(measurement["t_min"]) : std::nullopt;
  const std::string measurement_reason = string_or(measurement, "reason", "no usable measurement");
  doc["measurement"] = {{"t_measured", seconds(t_measured, measurement_reason)},
                        {"t_min", seconds(t_min, measurement_reason)},
                        {"launches", measurement.value("launches", json::object())},
                        {"source", measurement.value("source", json::object())}};

  // Tri-state.
  json soundness = {{"sound", nullptr}, {"margin", seconds(std::nullopt, "not compared")},
                    {"excess", seconds(std::nullopt, "not compared")},
                    {"excess_ratio", nullptr}, {"faster_launches", nullptr}};
  if (!t_min || !t_measured) {
    doc["status"] = "INFRA_ERROR";
    doc["infra"] = "no_measurement";
    doc["reason"] = "no usable measurement: " + measurement_reason;
  } else if (!bound) {
    doc["status"] = "INFRA_ERROR";
    doc["infra"] = "no_bound";
    doc["reason"] = "no bound: " + bound_reason;
  } else {
    doc["infra"] = nullptr;
    size_t faster = 0, kept = 0;
    // Every kept duration (kept_durations_us; a document without it, written
    // before it existed, lists every launch in samples). By reference:
    // json::value() would copy them (2 M launches: seconds, unpolled).
    static const json kNone = json::array();
    if (measurement.contains("kept_durations_us")) {
      for (const json &duration : measurement["kept_durations_us"]) {
        pb::sdk::poll_cancel();
        ++kept;
        if (duration.is_number() && duration.get<double>() * 1e-6 < *bound) ++faster;
      }
    } else {
      for (const json &sample : measurement.contains("samples") ? measurement["samples"] : kNone) {
        pb::sdk::poll_cancel();
        if (!sample.value("kept", false)) continue;
        ++kept;
        if (sample["duration_us"].get<double>() * 1e-6 < *bound) ++faster;
      }
    }
    soundness["sound"] = *bound <= *t_min;
    soundness["margin"] = seconds(*t_min - *bound, "");
    soundness["excess"] = seconds(std::nullopt, "sound: the bound is at or below the fastest launch");
    soundness["faster_launches"] = faster;
    if (*bound <= *t_min) {
      doc["status"] = "PASS";
      doc["reason"] = "T_bound " + us_text(*bound) + " <= fastest kept launch " + us_text(*t_min);
    } else {
      double excess = *bound - *t_min;
      soundness["excess"] = seconds(excess, "");
      soundness["excess_ratio"] = *bound / *t_min;
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.2f", 100.0 * excess / *t_min);
      doc["status"] = "FAIL";
      doc["reason"] = "unsound: T_bound " + us_text(*bound) + " exceeds the fastest kept launch " + us_text(*t_min) + " by " +
                      us_text(excess) + " (" + pct + " %); " + std::to_string(faster) + " of " + std::to_string(kept) +
                      " kept launches ran faster than the bound";
    }
  }
  doc["soundness"] = soundness;
  if (bound && t_measured && *bound > 0)
    doc["tightness"] = {{"value", *t_measured / *bound}, {"definition", "T_measured / T_bound (1 is perfect)"}};
  else
    doc["tightness"] = {{"value", nullptr},
                        {"definition", "T_measured / T_bound (1 is perfect)"},
                        {"reason", !t_measured ? "no measurement" : !bound ? "no bound" : "the bound is 0"}};

  // Three-level reachability.
  const json limits = have_report ? report["limits"] : json::object();
  const json dsl = limits.value("dsl", json::object()), hivm = limits.value("hivm", json::object());
  std::optional<double> t_dsl = value_of(dsl), t_hivm = value_of(hivm);
  json report_source = {{"origin", origin.origin.empty() ? json(nullptr) : json(origin.origin)},
                        {"pipeline", origin.pipeline.empty() ? json(nullptr) : json(origin.pipeline)}};
  auto level = [&](const char *name, std::optional<double> value, const std::string &reason, json provenance) {
    json entry = seconds(value, reason);
    entry["level"] = name;
    entry["provenance"] = std::move(provenance);
    return entry;
  };
  json levels = json::array();
  levels.push_back(level("T_bound_DSL", t_dsl, have_report ? reason_of(dsl, "no TTIR limit") : bound_reason,
                         {{"member", "limits.dsl.value"}, {"binding_term", nullable_string(dsl, "binding_term")},
                          {"binding_component", nullable_string(dsl, "binding_component")}, {"report", report_source}}));
  levels.push_back(level("T_bound_HIVM", t_hivm, have_report ? reason_of(hivm, "no HIVM limit") : bound_reason,
                         {{"member", "limits.hivm.value"}, {"binding_term", nullable_string(hivm, "binding_term")},
                          {"binding_component", nullable_string(hivm, "binding_component")}, {"report", report_source}}));
  json measured_provenance = {{"source", measurement.value("source", json::object())},
                              {"statistic", "median of the kept launches"},
                              {"launches", measurement.value("launches", json::object())},
                              {"rule", kRuleId}};
  levels.push_back(level("T_measured", t_measured, measurement_reason, measured_provenance));
  json reach = {{"levels", levels}};
  if (t_dsl && t_hivm)
    reach["compiler_headroom"] = {{"value", *t_hivm - *t_dsl}, {"unit", "s"},
                                  {"ratio", *t_dsl > 0 ? json(*t_hivm / *t_dsl) : json(nullptr)},
                                  {"definition", "T_bound_HIVM - T_bound_DSL: time the emitted code must take beyond what "
                                                 "the DSL asks for"}};
  else
    reach["compiler_headroom"] = {{"value", nullptr}, {"unit", "s"}, {"ratio", nullptr},
                                  {"definition", "T_bound_HIVM - T_bound_DSL"},
                                  {"reason", !t_dsl ? "no T_bound_DSL: " + reason_of(dsl, "no TTIR limit")
                                                    : "no T_bound_HIVM: " + reason_of(hivm, "no HIVM limit")}};
  if (t_hivm && t_measured)
    reach["author_headroom"] = {{"value", *t_measured - *t_hivm}, {"unit", "s"},
                                {"ratio", *t_hivm > 0 ? json(*t_measured / *t_hivm) : json(nullptr)},
                                {"definition", "T_measured - T_bound_HIVM: time the kernel takes beyond what its "
                                               "emitted code must take"}};
  else
    reach["author_headroom"] = {{"value", nullptr}, {"unit", "s"}, {"ratio", nullptr},
                                {"definition", "T_measured - T_bound_HIVM"},
                                {"reason", !t_hivm ? "no T_bound_HIVM: " + reason_of(hivm, "no HIVM limit")
                                                   : "no measurement: " + measurement_reason}};
  // DSL <= HIVM <= fastest launch: each known pair is checked.
  std::vector<std::string> broken;
  if (t_dsl && t_hivm && *t_dsl > *t_hivm) broken.push_back("T_bound_DSL " + us_text(*t_dsl) + " > T_bound_HIVM " + us_text(*t_hivm));
  if (t_hivm && t_min && *t_hivm > *t_min) broken.push_back("T_bound_HIVM " + us_text(*t_hivm) + " > fastest launch " + us_text(*t_min));
  if (t_dsl && t_min && *t_dsl > *t_min) broken.push_back("T_bound_DSL " + us_text(*t_dsl) + " > fastest launch " + us_text(*t_min));
  int known = (t_dsl ? 1 : 0) + (t_hivm ? 1 : 0) + (t_min ? 1 : 0);
  if (!broken.empty()) {
    std::string message;
    for (const std::string &b : broken) message += (message.empty() ? "" : "; ") + b;
    reach["ordered"] = {{"holds", false}, {"message", message}};
  } else if (known < 2) {
    reach["ordered"] = {{"holds", nullptr}, {"message", "fewer than two of the three levels are known"}};
  } else {
    reach["ordered"] = {{"holds", true}, {"message", "T_bound_DSL <= T_bound_HIVM <= fastest launch (where known)"}};
  }
  reach["report_invariant"] = limits.value("invariant", json(nullptr));
  doc["reachability"] = reach;

  // Binding: predicted component vs the pipe msprof shows dominating.
  std::string predicted = string_or(bound_obj, "binding_component");
  if (predicted.empty() && have_report) predicted = string_or(report.value("verdict", json::object()), "unit");
  const json pipes = measurement.value("pipes", json::object());
  const json dominant = pipes.value("dominant", json(nullptr));
  json binding = {{"predicted", predicted.empty() ? json(nullptr) : json(predicted)},
                  {"predicted_term", nullable_string(bound_obj, "binding_term")},
                  {"measured", dominant.is_object() ? dominant["component"] : json(nullptr)},
                  {"measured_core", dominant.is_object() ? dominant["core"] : json(nullptr)},
                  {"measured_column", dominant.is_object() ? dominant["column"] : json(nullptr)},
                  {"measured_time_us", dominant.is_object() ? dominant["time_us"] : json(nullptr)},
                  {"match", nullptr}};
  if (predicted.empty())
    binding["reason"] = "the bound names no binding component";
  else if (!dominant.is_object())
    binding["reason"] = string_or(pipes, "reason", "no pipe times in the measurement");
  else
    binding["match"] = binding_matches(predicted, dominant["component"].get<std::string>());
  doc["binding"] = binding;
  doc["provenance"] = {{"report", report_source},
                       {"run", origin.run_provenance.is_null() ? json(nullptr) : origin.run_provenance},
                       {"measurement", measured_provenance}};
  doc["warnings"] = warnings;
  return doc;
}

}  // namespace perfbound::validate
