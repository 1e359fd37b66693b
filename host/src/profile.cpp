//===- profile.cpp - hardware profile loading and unit conversion ---------===//
#include "profile.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <toml++/toml.h>

#include "suggest.hpp"

namespace perfbound {

namespace fs = std::filesystem;

const char *dimension_name(Dimension d) {
  switch (d) {
    case Dimension::Count: return "a count";
    case Dimension::Ratio: return "a ratio";
    case Dimension::Bytes: return "a size in bytes";
    case Dimension::Frequency: return "a frequency";
    case Dimension::Time: return "a time";
    case Dimension::Cycles: return "a number of cycles";
    case Dimension::Bandwidth: return "a bandwidth";
    case Dimension::BytesPerCycle: return "bytes per cycle";
    case Dimension::FlopPerCycle: return "FLOP per cycle";
    case Dimension::FlopPerSecond: return "FLOP per second";
    case Dimension::RepeatsPerCycle: return "vector repeats per cycle";
  }
  return "?";
}

const char *canonical_unit(Dimension d) {
  switch (d) {
    case Dimension::Count: return "1";
    case Dimension::Ratio: return "ratio";
    case Dimension::Bytes: return "B";
    case Dimension::Frequency: return "Hz";
    case Dimension::Time: return "s";
    case Dimension::Cycles: return "cycle";
    case Dimension::Bandwidth: return "B/s";
    case Dimension::BytesPerCycle: return "B/cycle";
    case Dimension::FlopPerCycle: return "FLOP/cycle";
    case Dimension::FlopPerSecond: return "FLOP/s";
    case Dimension::RepeatsPerCycle: return "repeat/cycle";
  }
  return "?";
}

namespace {

const std::map<std::string, UnitConversion, std::less<>> &unit_table() {
  static const std::map<std::string, UnitConversion, std::less<>> kUnits = [] {
    std::map<std::string, UnitConversion, std::less<>> t;
    t["1"] = {Dimension::Count, 1};
    t["count"] = {Dimension::Count, 1};
    t["ratio"] = {Dimension::Ratio, 1};
    const std::pair<const char *, double> bytes[] = {{"B", 1.0},        {"KB", 1e3},  {"MB", 1e6},
                                                     {"GB", 1e9},       {"TB", 1e12}, {"KiB", 1024.0},
                                                     {"MiB", 1048576.0}, {"GiB", 1073741824.0},
                                                     {"TiB", 1099511627776.0}};
    for (const auto &[name, factor] : bytes) {
      t[name] = {Dimension::Bytes, factor};
      t[std::string(name) + "/s"] = {Dimension::Bandwidth, factor};
    }
    t["B/cycle"] = {Dimension::BytesPerCycle, 1};
    t["Hz"] = {Dimension::Frequency, 1};
    t["kHz"] = {Dimension::Frequency, 1e3};
    t["MHz"] = {Dimension::Frequency, 1e6};
    t["GHz"] = {Dimension::Frequency, 1e9};
    t["s"] = {Dimension::Time, 1};
    t["ms"] = {Dimension::Time, 1e-3};
    t["us"] = {Dimension::Time, 1e-6};
    t["ns"] = {Dimension::Time, 1e-9};
    t["cycle"] = {Dimension::Cycles, 1};
    t["cycles"] = {Dimension::Cycles, 1};
    t["FLOP/cycle"] = {Dimension::FlopPerCycle, 1};
    t["FLOP/s"] = {Dimension::FlopPerSecond, 1};
    t["GFLOP/s"] = {Dimension::FlopPerSecond, 1e9};
    t["TFLOP/s"] = {Dimension::FlopPerSecond, 1e12};
    t["repeat/cycle"] = {Dimension::RepeatsPerCycle, 1};
    return t;
  }();
  return kUnits;
}

/// Keys every profile must define, with the dimension each must have.
struct RequiredKey {
  const char *path;
  Dimension dimension;
};
const std::vector<RequiredKey> &required_keys() {
  static const std::vector<RequiredKey> kKeys = {
      {"clock.frequency", Dimension::Frequency},   {"cores.aic", Dimension::Count},
      {"cores.aiv", Dimension::Count},             {"buffers.ub", Dimension::Bytes},
      {"buffers.l1", Dimension::Bytes},            {"buffers.l0a", Dimension::Bytes},
      {"buffers.l0b", Dimension::Bytes},           {"buffers.l0c", Dimension::Bytes},
      {"memory.l2", Dimension::Bytes},             {"memory.hbm", Dimension::Bytes},
      {"memory.hbm_bandwidth", Dimension::Bandwidth},
      {"vector.repeat_bytes", Dimension::Bytes},   {"vector.repeats_per_cycle", Dimension::RepeatsPerCycle},
      {"peak.cube_fp16", Dimension::FlopPerCycle}, {"peak.cube_bf16", Dimension::FlopPerCycle},
      {"peak.cube_int8", Dimension::FlopPerCycle}, {"peak.cube_fp32", Dimension::FlopPerCycle},
      {"peak.vector_fp16", Dimension::FlopPerCycle}, {"peak.vector_fp32", Dimension::FlopPerCycle},
      {"paths.gm_to_ub", Dimension::BytesPerCycle}, {"paths.ub_to_gm", Dimension::BytesPerCycle},
      {"paths.gm_to_l1", Dimension::BytesPerCycle}, {"paths.l1_to_l0a", Dimension::BytesPerCycle},
      {"paths.l1_to_l0b", Dimension::BytesPerCycle}, {"paths.l0c_to_gm", Dimension::BytesPerCycle},
  };
  return kKeys;
}

const std::vector<std::string> &required_pipes() {
  static const std::vector<std::string> kPipes = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
  return kPipes;
}

class Loader {
 public:
  Loader(std::string file, Diagnostics &diags) : file_(std::move(file)), diags_(diags) {}

  json convert(const toml::node &node, const std::string &key_path) {
    if (const auto *t = node.as_table()) {
      if (t->contains("value") || t->contains("unit")) return quantity(*t, key_path);
      json obj = json::object();
      for (auto &&[key, value] : *t) {
        std::string child = key_path.empty() ? std::string(key.str()) : key_path + "." + std::string(key.str());
        obj[std::string(key.str())] = convert(value, child);
      }
      return obj;
    }
    if (const auto *a = node.as_array()) {
      json arr = json::array();
      size_t idx = 0;
      for (const toml::node &value : *a) arr.push_back(convert(value, key_path + "[" + std::to_string(idx++) + "]"));
      return arr;
    }
    if (const auto *s = node.as_string()) return s->get();
    if (const auto *i = node.as_integer()) return i->get();
    if (const auto *f = node.as_floating_point()) return f->get();
    if (const auto *b = node.as_boolean()) return b->get();
    error(node, key_path, "dates and times are not used in profiles");
    return nullptr;
  }

  void error(const toml::node &node, const std::string &key, const std::string &message) {
    diags_.error({file_, node.source().begin.line, node.source().begin.column}, "", "key '" + key + "': " + message);
  }

  std::map<std::string, const toml::node *> quantity_nodes;

 private:
  json quantity(const toml::table &t, const std::string &key_path) {
    static const std::vector<std::string> kAllowed = {"value", "unit", "source", "note", "kind", "core", "verified"};
    for (auto &&[key, value] : t) {
      std::string k(key.str());
      if (std::find(kAllowed.begin(), kAllowed.end(), k) == kAllowed.end())
        error(value, key_path, "unknown member '" + k + "' in a quantity" + valid_list_suffix(k, kAllowed, "valid members"));
    }
    const toml::node *value = t.get("value");
    const toml::node *unit = t.get("unit");
    json q = json::object();
    if (value == nullptr || !(value->is_integer() || value->is_floating_point())) {
      error(value != nullptr ? *value : static_cast<const toml::node &>(t), key_path, "a quantity needs a numeric 'value'");
      return nullptr;
    }
    if (unit == nullptr || !unit->is_string()) {
      error(t, key_path, "a quantity needs a 'unit' string (e.g. \"GHz\", \"KiB\", \"B/cycle\")");
      return nullptr;
    }
    const std::string unit_text = unit->as_string()->get();
    auto conv = parse_unit(unit_text);
    if (!conv) {
      error(*unit, key_path, "unknown unit '" + unit_text + "'" + valid_list_suffix(unit_text, known_units(), "known units"));
      return nullptr;
    }
    double raw = value->is_integer() ? static_cast<double>(value->as_integer()->get()) : value->as_floating_point()->get();
    if (!std::isfinite(raw) || raw <= 0) {
      error(*value, key_path, "value must be positive and finite, got " + std::to_string(raw));
    }
    if (conv->dimension == Dimension::Ratio && raw > 1.0) error(*value, key_path, "a ratio must lie in (0, 1]");
    q["value"] = raw * conv->factor;
    q["unit"] = canonical_unit(conv->dimension);
    if (unit_text != q["unit"].get<std::string>()) q["declared"] = {{"value", raw}, {"unit", unit_text}};
    const toml::node *source = t.get("source");
    if (source == nullptr || !source->is_string() || source->as_string()->get().empty())
      error(t, key_path, "every number needs a 'source' (a datasheet, a measurement, or \"unverified: why\")");
    else
      q["source"] = source->as_string()->get();
    for (const char *extra : {"note", "kind", "core"})
      if (const toml::node *n = t.get(extra); n != nullptr && n->is_string()) q[extra] = n->as_string()->get();
    if (const toml::node *n = t.get("verified"); n != nullptr && n->is_boolean()) q["verified"] = n->as_boolean()->get();
    q["dimension"] = static_cast<int>(conv->dimension);
    quantity_nodes[key_path] = &t;
    return q;
  }

  std::string file_;
  Diagnostics &diags_;
};

const json *lookup(const json &doc, const std::string &dotted) {
  const json *cursor = &doc;
  std::stringstream ss(dotted);
  std::string part;
  while (std::getline(ss, part, '.')) {
    if (!cursor->is_object()) return nullptr;
    auto it = cursor->find(part);
    if (it == cursor->end()) return nullptr;
    cursor = &*it;
  }
  return cursor;
}

/// Removes the internal "dimension" markers before the document is published.
void strip_dimensions(json &doc) {
  if (doc.is_object()) {
    doc.erase("dimension");
    for (auto &[key, value] : doc.items()) strip_dimensions(value);
  } else if (doc.is_array()) {
    for (json &value : doc) strip_dimensions(value);
  }
}

}  // namespace

std::optional<UnitConversion> parse_unit(std::string_view unit) {
  auto it = unit_table().find(unit);
  if (it == unit_table().end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> known_units() {
  std::vector<std::string> out;
  for (const auto &[name, unused] : unit_table()) out.push_back(name);
  return out;
}

ProfileLoad load_profile(const fs::path &dir) {
  ProfileLoad result;
  const fs::path file = dir / "profile.toml";
  const std::string where = file.string();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    result.diagnostics.error({dir.string(), 0, 0}, "", "hardware profile directory does not exist");
    return result;
  }
  if (!fs::exists(file, ec)) {
    result.diagnostics.error({where, 0, 0}, "", "missing profile.toml in the profile directory");
    return result;
  }
  result.files.push_back(file);
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error &err) {
    result.diagnostics.error({where, err.source().begin.line, err.source().begin.column}, "",
                             std::string("TOML syntax error: ") + std::string(err.description()));
    return result;
  }
  Loader loader(where, result.diagnostics);
  json doc = loader.convert(root, "");
  if (!doc.is_object()) doc = json::object();

  auto top_error = [&](const std::string &message) { result.diagnostics.error({where, 1, 1}, "", message); };
  const json *format = lookup(doc, "format");
  if (format == nullptr || !format->is_number_integer())
    top_error("missing 'format = 1' at the top of the profile");
  else if (format->get<int64_t>() != kProfileFormatVersion)
    top_error("unsupported profile format " + format->dump() + "; this perfbound reads format " +
              std::to_string(kProfileFormatVersion));
  const json *name = lookup(doc, "name");
  if (name == nullptr || !name->is_string() || name->get<std::string>().empty()) top_error("missing key 'name'");

  for (const RequiredKey &req : required_keys()) {
    const json *q = lookup(doc, req.path);
    if (q == nullptr) {
      top_error(std::string("missing key '") + req.path + "' (" + dimension_name(req.dimension) + ")");
      continue;
    }
    if (!q->is_object() || !q->contains("dimension")) {
      if (!q->is_null()) top_error(std::string("key '") + req.path + "' must be a quantity { value, unit, source }");
      continue;
    }
    auto dim = static_cast<Dimension>((*q)["dimension"].get<int>());
    if (dim != req.dimension) {
      const toml::node *node = loader.quantity_nodes.count(req.path) ? loader.quantity_nodes.at(req.path) : nullptr;
      std::string msg = std::string("key '") + req.path + "': unit '" + q->value("declared", json::object()).value("unit", (*q)["unit"].get<std::string>()) +
                        "' is " + dimension_name(dim) + ", but this key needs " + dimension_name(req.dimension) +
                        " (e.g. " + canonical_unit(req.dimension) + ")";
      if (node != nullptr)
        result.diagnostics.error({where, node->source().begin.line, node->source().begin.column}, "", msg);
      else
        top_error(msg);
    }
  }
  const json *pipes = lookup(doc, "pipes");
  for (const std::string &pipe : required_pipes()) {
    const json *p = pipes != nullptr ? lookup(*pipes, pipe) : nullptr;
    if (p == nullptr || !p->is_object() || !p->contains("cores") || !(*p)["cores"].is_array() || (*p)["cores"].empty()) {
      top_error("missing key 'pipes." + pipe + ".cores' (the core types that own pipe " + pipe + ", e.g. [\"aiv\"])");
      continue;
    }
    for (const json &core : (*p)["cores"]) {
      if (core != "aic" && core != "aiv") top_error("pipes." + pipe + ".cores: unknown core type " + core.dump() + " (aic or aiv)");
    }
  }
  // Integral counts.
  for (const char *count_key : {"cores.aic", "cores.aiv"}) {
    const json *q = lookup(doc, count_key);
    if (q != nullptr && q->is_object() && q->contains("value")) {
      double v = (*q)["value"].get<double>();
      if (v != std::floor(v)) top_error(std::string("key '") + count_key + "' must be a whole number");
    }
  }

  // Calibration database (optional; format owned by perfbound.calibration/1).
  doc["calibration"] = nullptr;
  if (const json *cal = lookup(doc, "calibration_file"); cal != nullptr) {
    if (!cal->is_string()) {
      top_error("'calibration_file' must be a file name");
    } else {
      fs::path cal_path = dir / cal->get<std::string>();
      std::ifstream in(cal_path);
      if (!in) {
        result.diagnostics.error({where, 1, 1}, "", "calibration file '" + cal_path.string() + "' named by 'calibration_file' does not exist");
      } else {
        result.files.push_back(cal_path);
        std::stringstream buffer;
        buffer << in.rdbuf();
        json calibration = json::parse(buffer.str(), nullptr, false);
        if (calibration.is_discarded() || !calibration.is_object())
          result.diagnostics.error({cal_path.string(), 0, 0}, "", "calibration file is not a JSON object");
        else
          doc["calibration"] = calibration;
      }
    }
  }
  strip_dimensions(doc);
  doc["schema"] = "perfbound.profile/1";
  doc["dir"] = fs::absolute(dir).lexically_normal().string();
  result.document = std::move(doc);
  result.diagnostics.sort_and_unique();
  return result;
}

Expected<LoadedProfile> load_profile_document(const fs::path &dir) {
  ProfileLoad load = load_profile(dir);
  if (load.diagnostics.has_errors()) {
    std::string message = "invalid hardware profile " + dir.string() + ":\n" + load.diagnostics.format();
    if (!message.empty() && message.back() == '\n') message.pop_back();
    return make_error(message);
  }
  return LoadedProfile{std::move(load.document), std::move(load.files)};
}

}  // namespace perfbound
