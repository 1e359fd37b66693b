//===- plugin.cpp - the perfbound.validate plugin: kinds, commands, renderers ===//
//
// Measurement side of perfbound:
//   kinds     measurement  profiler CSV or bench result -> perfbound.measurement/1
//             validate     bound report + measurement -> perfbound.validation/1
//   commands  validate        bounds vs measurements over a corpus manifest
//             counterfactual  edit the HIVM, predict, build/run/measure
//             calibrate       raw microbenchmark outputs -> calibration database
//   renderers text/md of the calibration, measurement, validation, corpus
//             validation and counterfactual documents.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/plugin.hpp>
#include <perfbound/sdk/sha256.hpp>
#include <perfbound/sdk/units.hpp>

#include "calibrate.hpp"
#include "commands.hpp"
#include "corpus.hpp"
#include "counterfactual.hpp"
#include "measurement.hpp"
#include "validation.hpp"

namespace {

using pb::sdk::json;
namespace pv = perfbound::validate;

std::string render_calibration(const json &doc, bool md) {
  std::string out = md ? "| constant | value | kind | 95 % CI | n | method |\n|---|---|---|---|---|---|\n"
                       : "calibration of " + doc.value("target", std::string("?")) + "\n";
  const json constants = doc.value("constants", json::object());
  for (const auto &[id, c] : constants.items()) {
    std::string unit = c.value("unit", std::string());
    std::string value = (c.contains("value") && c["value"].is_number()) ? pb::units::format_number(c["value"].get<double>()) + " " + unit
                        : (c.contains("value") && c["value"].is_object()) ? "table, " + std::to_string(c["value"]["points"].size()) + " points (" + unit + ")"
                                                 : "null";
    std::string ci = c.value("ci95", json()).is_object()
                         ? pb::units::format_number(c["ci95"]["low"].get<double>()) + " .. " + pb::units::format_number(c["ci95"]["high"].get<double>())
                         : "-";
    std::string kind = c.value("kind", std::string());
    if (md)
      out += "| " + id + " | " + value + " | " + kind + " | " + ci + " | " + c.value("n", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " | " +
             c.value("method", std::string()) + " |\n";
    else
      out += "  " + id + " = " + value + " [" + kind + ", ci95 " + ci + ", n=" + c.value("n", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "]\n";
  }
  return out;
}

std::string render_measurement(const json &doc) {
  std::string out = "measurement of " + doc["kernel"].get<std::string>() + " from " + doc["source"]["origin"].get<std::string>() +
                    " (" + doc["source"]["format"].get<std::string>() + "): ";
  if (doc["status"] != "ok") return out + "no measurement: " + doc["reason"].get<std::string>() + "\n";
  auto us = [](const json &q) { return pb::units::format_number(q["value"].get<double>() * 1e6) + " us"; };
  out += std::to_string(doc["launches"]["kept"].get<size_t>()) + " of " + std::to_string(doc["launches"]["found"].get<size_t>()) +
         " launches kept; median " + us(doc["t_measured"]) + ", min " + us(doc["t_min"]) + ", max " + us(doc["t_max"]) + "\n";
  const json &dominant = doc["pipes"]["dominant"];
  if (dominant.is_object())
    out += "  dominant pipe: " + dominant["core"].get<std::string>() + " " + dominant["component"].get<std::string>() + " (" +
           pb::units::format_number(dominant["time_us"].get<double>()) + " us)\n";
  return out;
}

std::optional<std::string> render(std::string_view schema, const json &doc, std::string_view format) {
  if (format != "text" && format != "md") return std::nullopt;
  if (schema == "perfbound.calibration/1") return render_calibration(doc, format == "md");
  if (schema == "perfbound.measurement/1") return render_measurement(doc);
  if (schema == "perfbound.validation/1") return pv::render_validation(doc);
  if (schema == "perfbound.corpus_validation/1") return pv::render_corpus_table(doc);
  if (schema == "perfbound.counterfactual/1") return pv::render_counterfactual(doc);
  return std::nullopt;
}

/// `measurement`: one kernel's launches in a profiler CSV (or a bench
/// result) under the measurement rule.
class MeasurementNode : public pb::sdk::Node {
 public:
  explicit MeasurementNode(const pb::sdk::Params &params) {
    request_.kernel = params.string("kernel");
    int64_t warmup = params.integer("warmup");
    if (warmup < 0) throw pb::sdk::InputError("node '" + params.node_id() + "': warmup must be >= 0");
    request_.warmup = static_cast<size_t>(warmup);
    if (std::string device = params.string("device"); !device.empty()) request_.device = device;
    bench_case_ = params.string("bench_case");
  }
  void run(pb::sdk::RunContext &ctx) override {
    const bool csv = ctx.has_input("csv"), bench = ctx.has_input("bench");
    if (csv == bench)
      throw pb::sdk::InputError("node '" + ctx.node_id() + "': connect exactly one of 'csv' (a profiler CSV) and 'bench' (a bench result)");
    json doc;
    if (csv) {
      std::string_view text = ctx.text_input("csv");
      pv::SourceInfo source{ctx.origin("csv"), pb::sdk::sha256_hex(text)};
      doc = pv::measure_table(pv::OpSummary::parse(text, source.origin), request_, source);
    } else {
      std::string_view text = ctx.text_input("bench");
      pv::SourceInfo source{ctx.origin("bench"), pb::sdk::sha256_hex(text)};
      doc = pv::measure_bench_result(ctx.json_input("bench"), bench_case_.empty() ? request_.kernel : bench_case_, source);
    }
    if (doc["status"] != "ok") ctx.warn(doc["reason"].get<std::string>());
    ctx.set_output("measurement", doc);
  }

 private:
  pv::MeasureRequest request_;
  std::string bench_case_;
};

/// `validate`: tri-state soundness, tightness and reachability of a bound.
class ValidateNode : public pb::sdk::Node {
 public:
  explicit ValidateNode(const pb::sdk::Params &params) : case_(params.string("case")) {}
  void run(pb::sdk::RunContext &ctx) override {
    pv::ReportOrigin origin;
    origin.origin = ctx.origin("report");
    json doc = pv::validate_bound(ctx.json_input("report"), ctx.json_input("measurement"), origin, case_);
    if (doc["status"] == "FAIL") ctx.warn(doc["reason"].get<std::string>());
    ctx.set_output("validation", doc);
  }

 private:
  std::string case_;
};

constexpr const char *kExampleCsv =
    "Device_id,Task ID,Stream ID,Op Name,Task Type,Task Start Time(us),Task Duration(us),Block Num,aiv_vec_time(us),"
    "aiv_scalar_time(us)\n"
    "0,1,7,k,AI_VECTOR_CORE,100.0\t,12.0,8,1.0,9.0\n"
    "0,2,7,k,AI_VECTOR_CORE,200.0\t,10.0,8,1.0,8.0\n"
    "0,3,7,k,AI_VECTOR_CORE,300.0\t,11.0,8,1.0,8.5\n";

constexpr const char *kExampleReport =
    R"({"schema":"perfbound.bound_report/1","kernel":{"name":"k"},"profile":{"name":"ascend_910b3"},)"
    R"("bound":{"value":8e-6,"unit":"s","tier":"hivm","binding_term":"scalar_issue","binding_component":"scalar"},)"
    R"("limits":{"dsl":{"value":5e-6,"unit":"s"},"hivm":{"value":8e-6,"unit":"s"},"invariant":{"holds":true}},)"
    R"("terms":[],"verdict":{"class":"latency-bound","unit":"scalar"},"attribution":{},"findings":[]})";

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.validate", "Validation and calibration", PERFBOUND_VALIDATE_VERSION};
  spec.vendor = "perfbound";
  spec.description =
      "Measurement side of perfbound: profiler CSV ingestion under the corpus measurement rule (msprof op_summary, "
      "torch_npu kernel_details, msprof op OpBasicInfo, perfbound bench results), tri-state validation with tightness "
      "and three-level reachability, `perfbound validate` over a corpus, counterfactual HIVM edits, and "
      "`perfbound calibrate`.";
  spec.kinds.push_back(pb::sdk::kind<MeasurementNode>(
      "measurement",
      "One kernel's launches in a profiler CSV or a bench result, under the measurement rule (median, minimum)",
      {pb::sdk::optional_input("csv", "perfbound.profiler_csv/1", "msprof op_summary, torch_npu kernel_details or OpBasicInfo"),
       pb::sdk::optional_input("bench", "perfbound.bench_result/1", "a perfbound bench result.json")},
      {pb::sdk::output("measurement", "perfbound.measurement/1")},
      {pb::sdk::required_param("kernel", PB_PARAM_STRING, "Op Name of the kernel (or the bench row's name)"),
       pb::sdk::required_param("warmup", PB_PARAM_INT, "warm-up launches to drop, in start-time order"),
       pb::sdk::param("device", std::string(), "Device_id to keep when the kernel ran on several devices"),
       pb::sdk::param("bench_case", std::string(), "bench result row (name or case_id); default: kernel")}));
  spec.kinds.push_back(pb::sdk::kind<ValidateNode>(
      "validate", "PASS / FAIL / INFRA_ERROR of a bound against a measurement, tightness and three-level reachability",
      {pb::sdk::input("report", "perfbound.bound_report/1"), pb::sdk::input("measurement", "perfbound.measurement/1")},
      {pb::sdk::output("validation", "perfbound.validation/1")},
      {pb::sdk::param("case", std::string(), "case name recorded in the document")}));
  spec.commands.push_back({"validate", "Check bounds against measurements (a corpus manifest or one report)",
                           [](const pb::sdk::Host &host, const std::vector<std::string> &args) {
                             return perfbound::validate::validate_main(host, args);
                           }});
  spec.commands.push_back({"counterfactual", "Edit a HIVM dump, predict the time delta, optionally build/run/measure",
                           [](const pb::sdk::Host &host, const std::vector<std::string> &args) {
                             return perfbound::validate::counterfactual_main(host, args);
                           }});
  spec.commands.push_back({"calibrate", "Derive a calibration database from msprof CSVs and sweep files",
                           [](const pb::sdk::Host &, const std::vector<std::string> &args) {
                             return perfbound::validate::calibrate_main(args);
                           }});
  spec.examples.push_back({"measurement", "three launches, one warm-up", json{{"kernel", "k"}, {"warmup", 1}},
                           {{"csv", "perfbound.profiler_csv/1", kExampleCsv, PB_ENCODING_TEXT}}, PB_OK});
  spec.examples.push_back({"measurement", "an unterminated quote", json{{"kernel", "k"}, {"warmup", 0}},
                           {{"csv", "perfbound.profiler_csv/1", "Op Name,Task Type\n\"k,AI_CORE\n", PB_ENCODING_TEXT}},
                           PB_ERR_INVALID_INPUT});
  json measurement = pv::measure_table(pv::OpSummary::parse(kExampleCsv, "example.csv"), {"k", 1}, {"example.csv", std::nullopt});
  spec.examples.push_back({"validate", "a sound bound", std::nullopt,
                           {{"report", "perfbound.bound_report/1", kExampleReport},
                            {"measurement", "perfbound.measurement/1", measurement.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)}},
                           PB_OK});
  spec.examples.push_back({"validate", "a measurement that is not one", std::nullopt,
                           {{"report", "perfbound.bound_report/1", kExampleReport},
                            {"measurement", "perfbound.measurement/1", R"({"schema":"perfbound.bound_report/1"})"}},
                           PB_ERR_INVALID_INPUT});
  spec.render = render;
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
