//===- document.cpp - the oracle's inputs and its hivm_work document ------===//
#include <algorithm>
#include <cmath>

#include "oracle.hpp"

namespace pb::hivm::oracle {

using json = nlohmann::json;

void apply_profile(const json &profile, Options &options) {
  if (!profile.is_object()) return;
  auto value_of = [](const json &q) -> std::optional<double> {
    if (q.is_number()) return q.get<double>();
    if (q.is_object() && q.contains("value") && q["value"].is_number()) return q["value"].get<double>();
    return std::nullopt;
  };
  if (profile.contains("vector") && profile["vector"].is_object() && profile["vector"].contains("repeat_bytes"))
    if (auto v = value_of(profile["vector"]["repeat_bytes"]); v && *v > 0) options.vector_repeat_bytes = static_cast<int64_t>(*v);
  if (profile.contains("cores") && profile["cores"].is_object()) {
    auto aic = value_of(profile["cores"].value("aic", json()));
    auto aiv = value_of(profile["cores"].value("aiv", json()));
    if (aic && aiv && *aic > 0 && *aiv >= *aic) options.aiv_per_aic = static_cast<uint32_t>(std::llround(*aiv / *aic));
  }
  if (profile.contains("cube") && profile["cube"].is_object() && profile["cube"].contains("fractal") &&
      profile["cube"]["fractal"].is_object())
    for (const auto &[dtype, f] : profile["cube"]["fractal"].items()) {
      if (!f.is_object() || !f.contains("m") || !f.contains("k") || !f.contains("n")) continue;
      // Profile spellings (fp16, fp32, int8) to HIVM element types.
      std::string key = dtype == "fp16" ? "f16" : dtype == "fp32" ? "f32" : dtype == "int8" ? "i8" : dtype;
      options.fractal[key] = {f["m"].get<int64_t>(), f["k"].get<int64_t>(), f["n"].get<int64_t>()};
    }
}

Launch launch_from_json(const json &launch) {
  Launch out;
  if (!launch.is_object()) return out;
  if (launch.contains("grid") && launch["grid"].is_array())
    for (const json &g : launch["grid"]) {
      if (!g.is_number_integer()) throw OracleError(OracleError::Kind::Input, 0, "grid: " + g.dump() + " is not an integer");
      out.grid.push_back(g.get<int64_t>());
    }
  if (launch.contains("args") && launch["args"].is_object())
    for (const auto &[key, v] : launch["args"].items()) {
      if (v.is_boolean()) out.args[key] = v.get<bool>() ? 1.0 : 0.0;
      else if (v.is_number()) out.args[key] = v.get<double>();
    }
  if (launch.contains("data") && launch["data"].is_object())
    for (const auto &[key, v] : launch["data"].items()) {
      if (!v.is_array())
        throw OracleError(OracleError::Kind::Input, 0, "data." + key + ": the oracle reads inline arrays only");
      std::vector<int64_t> values;
      for (const json &e : v) {
        if (e.is_boolean()) values.push_back(e.get<bool>() ? 1 : 0);
        else if (e.is_number_integer()) values.push_back(e.get<int64_t>());
        else throw OracleError(OracleError::Kind::Input, 0, "data." + key + ": " + e.dump() + " is not an integer");
      }
      out.data[key] = std::move(values);
    }
  return out;
}

namespace {

json amount(const Result::Work &w, double blocks) {
  const double uniform = static_cast<double>(w.block_min);
  return json::array({uniform, static_cast<double>(w.grid) - blocks * uniform});
}

std::string kernel_name(std::string name) {
  if (!name.empty() && name.front() == '@') name.erase(0, 1);
  for (std::string suffix : {"_mix_aic", "_mix_aiv"})
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return name.substr(0, name.size() - suffix.size());
  return name;
}

}  // namespace

json work_document(const Result &result, const std::string &origin, bool cap_unique) {
  const double blocks = static_cast<double>(result.blocks);
  json doc = json::object();
  doc["schema"] = "perfbound.hivm_work/1";
  doc["kernel"] = "";
  doc["origin"] = origin;
  doc["blocks"] = blocks;
  json cores = json::object();
  for (const FunctionInfo &f : result.functions) {
    if (f.core == Core::Unknown) continue;
    const char *name = core_name(f.core);
    double instances = cores.contains(name) ? cores[name]["instances"].get<double>() : 1.0;
    cores[name] = {{"instances", std::max<double>(instances, f.instances)}, {"function", f.name}};
    if (doc["kernel"] == "") doc["kernel"] = kernel_name(f.name);
  }
  doc["cores"] = cores;
  json components = json::array();
  for (const auto &[key, classes] : result.components) {
    const size_t dot = key.find('.');
    json by_class = json::object();
    for (const auto &[cls, w] : classes)
      if (w.grid > 0) by_class[cls] = amount(w, blocks);
    if (by_class.empty()) continue;
    components.push_back({{"core", key.substr(0, dot)}, {"component", key.substr(dot + 1)}, {"by_class", by_class},
                          {"top", json::array()}});
  }
  doc["components"] = components;
  auto amounts = [&](const std::map<std::string, Result::Work> &m) {
    json out = json::object();
    for (const auto &[k, w] : m) out[k] = amount(w, blocks);
    return out;
  };
  doc["issued_guaranteed"] = amounts(result.issued_guaranteed);
  doc["issued_as_written"] = amounts(result.issued_as_written);
  doc["scalar_as_written"] = amounts(result.scalar_as_written);
  doc["issue_top"] = json::object();
  doc["vector_flop"] = amounts(result.vector_flop);
  // Transfers: exact grid bytes per (direction, size, path, core, GM buffer);
  // the per-block minimum of each direction spread over its rows in
  // proportion to their grid bytes (only sums of rows are read by the terms).
  double grid_read = 0, grid_write = 0;
  std::map<std::pair<int32_t, bool>, double> arg_bytes;
  for (const auto &[k, bytes] : result.transfer_grid) {
    (k.write ? grid_write : grid_read) += static_cast<double>(bytes);
    if (k.gm_kind == "arg") arg_bytes[{k.arg, k.write}] += static_cast<double>(bytes);
  }
  json transfers = json::array();
  for (const auto &[k, bytes] : result.transfer_grid) {
    if (bytes <= 0) continue;
    const double total = k.write ? grid_write : grid_read;
    const double per_block_min = static_cast<double>(k.write ? result.write_block_min : result.read_block_min);
    double factor = 1.0;
    if (cap_unique && k.gm_kind == "arg") {
      const auto &sets = k.write ? result.dma_written : result.dma_read;
      auto it = sets.find(k.arg);
      const double unique = it == sets.end() ? 0.0 : static_cast<double>(it->second.size());
      const double all = arg_bytes[{k.arg, k.write}];
      if (all > unique) factor = unique / all;
    }
    const double grid = static_cast<double>(bytes) * factor;
    const double uniform = total > 0 ? per_block_min * static_cast<double>(bytes) / total * factor : 0.0;
    transfers.push_back(json::array({k.write, static_cast<double>(k.transfer_bytes), static_cast<double>(k.packet_bytes),
                                     k.path, k.core, json::array({uniform, grid - blocks * uniform}), 0, k.gm_kind,
                                     nullptr}));  // no Triton position: the oracle keeps HIVM argument indices
  }
  doc["transfers"] = transfers;
  doc["barriers"] = json::array();
  doc["edges"] = json::array();
  doc["fallback_loops"] = json::array();
  doc["fallbacks"] = json::array();
  doc["fallback_per_block"] = json::object();
  doc["vector_wasted_repeats"] = json::object();
  doc["vector_instructions"] = amounts(result.vector_instructions);
  doc["missing"] = json::array();
  doc["unmodelled"] = json::array();
  return doc;
}

}  // namespace pb::hivm::oracle
