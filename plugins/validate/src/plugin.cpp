//===- plugin.cpp - the perfbound.validate plugin: commands and renderers --===//
//
// Measurement-side features of perfbound. Today: `perfbound calibrate`
// (raw microbenchmark outputs -> calibration database) and the text/md
// rendering of perfbound.calibration/1. msprof ingestion for validation
// (issue 7) builds on msprof_csv.hpp here.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/plugin.hpp>
#include <perfbound/sdk/units.hpp>

#include "calibrate.hpp"

namespace {

using pb::sdk::json;

/// One line per constant: id, value with unit (or table size), kind, CI, n.
std::optional<std::string> render(std::string_view schema, const json &doc, std::string_view format) {
  if (schema != "perfbound.calibration/1" || (format != "text" && format != "md")) return std::nullopt;
  const bool md = format == "md";
  std::string out = md ? "| constant | value | kind | 95 % CI | n | method |\n|---|---|---|---|---|---|\n"
                       : "calibration of " + doc.value("target", std::string("?")) + "\n";
  for (const auto &[id, c] : doc.value("constants", json::object()).items()) {
    std::string unit = c.value("unit", std::string());
    std::string value = c["value"].is_number() ? pb::units::format_number(c["value"].get<double>()) + " " + unit
                        : c["value"].is_object() ? "table, " + std::to_string(c["value"]["points"].size()) + " points (" + unit + ")"
                                                 : "null";
    std::string ci = c.value("ci95", json()).is_object()
                         ? pb::units::format_number(c["ci95"]["low"].get<double>()) + " .. " + pb::units::format_number(c["ci95"]["high"].get<double>())
                         : "-";
    std::string kind = c.value("kind", std::string());
    if (md)
      out += "| " + id + " | " + value + " | " + kind + " | " + ci + " | " + c.value("n", json()).dump() + " | " +
             c.value("method", std::string()) + " |\n";
    else
      out += "  " + id + " = " + value + " [" + kind + ", ci95 " + ci + ", n=" + c.value("n", json()).dump() + "]\n";
  }
  return out;
}

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.validate", "Validation and calibration", PERFBOUND_VALIDATE_VERSION};
  spec.vendor = "perfbound";
  spec.description =
      "Measurement side of perfbound: msprof op_summary ingestion and `perfbound calibrate`, which derives a "
      "hardware calibration database (perfbound.calibration/1) from raw microbenchmark outputs.";
  spec.commands.push_back({"calibrate", "Derive a calibration database from msprof CSVs and sweep files",
                           [](const pb::sdk::Host &, const std::vector<std::string> &args) {
                             return perfbound::validate::calibrate_main(args);
                           }});
  spec.render = render;
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
