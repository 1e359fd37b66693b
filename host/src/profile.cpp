//===- profile.cpp - hardware profile loading, unit conversion and checks -===//
#include "profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/json.hpp>
#include <perfbound/sdk/number.hpp>
#include <toml++/toml.h>

#include "suggest.hpp"

namespace perfbound {

namespace fs = std::filesystem;
namespace units = pb::units;

std::optional<UnitConversion> parse_unit(std::string_view unit) { return units::find_unit(unit); }

std::vector<std::string> known_units() {
  std::vector<std::string> out;
  for (const units::UnitSpec &unit : units::kUnits) out.emplace_back(unit.name);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string str(std::string_view text) { return std::string(text); }

/// Empty or only white space: a "source" or "reason" that says nothing.
/// True when `text` shows nothing: empty, or only white space or invisible
/// characters — ASCII's, and Unicode's (U+00A0 no-break space, U+3000
/// ideographic space, U+2000..U+200A, zero-width spaces and joiners, the
/// byte-order mark...), which a source string of no-break spaces would
/// otherwise pass as a citation. The text is valid UTF-8 (checked on read).
bool blank(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : 4;
    if (i + length > text.size()) return false;
    char32_t cp = length == 1 ? byte : length == 2 ? (byte & 0x1F) : length == 3 ? (byte & 0x0F) : (byte & 0x07);
    for (size_t k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    const bool invisible = cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
                           (cp >= 0x2000 && cp <= 0x200D) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
                           cp == 0x205F || cp == 0x2060 || cp == 0x3000 || cp == 0xFEFF;
    if (!invisible) return false;
    i += length;
  }
  return true;
}

/// A "declared" member as written ({value, unit}); read with at() after this,
/// never with const operator[] (a missing key there is undefined behaviour).
bool has_number_and_unit(const json &declared) {
  return declared.is_object() && declared.value("value", json()).is_number() && declared.value("unit", json()).is_string();
}

}  // namespace

//===----------------------------------------------------------------------===//
// Sane ranges and human-readable values
//===----------------------------------------------------------------------===//

const std::vector<RangeRule> &profile_ranges() {
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0, kTiB = kGiB * 1024.0;
  static const std::vector<RangeRule> kRules = {
      {"clock.frequency", Dimension::Frequency, 1e8, 1e10, false},
      {"clock.alternatives", Dimension::Frequency, 1e8, 1e10, false},
      {"cores.aic", Dimension::Count, 1, 1024, true},
      {"cores.aiv", Dimension::Count, 1, 4096, true},
      {"cores.aiv_per_aic", Dimension::Count, 1, 8, true},
      {"buffers.ub", Dimension::Bytes, kKiB, 64 * kMiB, true},
      {"buffers.l1", Dimension::Bytes, kKiB, 64 * kMiB, true},
      {"buffers.l0a", Dimension::Bytes, kKiB, 16 * kMiB, true},
      {"buffers.l0b", Dimension::Bytes, kKiB, 16 * kMiB, true},
      {"buffers.l0c", Dimension::Bytes, kKiB, 16 * kMiB, true},
      {"buffers.alignment.", Dimension::Bytes, 1, 4096, true},
      {"memory.l2", Dimension::Bytes, kMiB, 64 * kGiB, true},
      {"memory.hbm", Dimension::Bytes, kGiB, 16 * kTiB, false},
      {"memory.hbm_bandwidth", Dimension::Bandwidth, 1e10, 1e14, false},
      {"vector.repeat_bytes", Dimension::Bytes, 16, 4096, true},
      {"vector.repeats_per_cycle", Dimension::RepeatsPerCycle, 1.0 / 16, 16, false},
      {"vector.head_latency", Dimension::Cycles, 1, 10000, false},
      {"peak.", Dimension::FlopPerCycle, 1, 1048576, false},
      {"paths.", Dimension::BytesPerCycle, 1, 65536, false},
  };
  return kRules;
}

namespace {

//===----------------------------------------------------------------------===//
// TOML -> JSON with units
//===----------------------------------------------------------------------===//

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

/// Every quantity under these tables must have this dimension, whatever its
/// name (a vendor may add paths.l2_to_ub).
const std::vector<RequiredKey> &prefix_dimensions() {
  static const std::vector<RequiredKey> kPrefixes = {
      {"peak.", Dimension::FlopPerCycle},
      {"paths.", Dimension::BytesPerCycle},
      {"buffers.", Dimension::Bytes},
      {"clock.alternatives", Dimension::Frequency},
  };
  return kPrefixes;
}

const std::vector<std::string> &required_pipes() {
  static const std::vector<std::string> kPipes = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
  return kPipes;
}

const std::vector<std::string> &required_fractals() {
  static const std::vector<std::string> kDtypes = {"fp16", "bf16", "int8", "fp32"};
  return kDtypes;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

/// One quantity found in the file: where it is and what it measures.
struct QuantityInfo {
  const toml::node *node = nullptr;  // the quantity's table
  const toml::node *value_node = nullptr;
  Dimension dimension = Dimension::Count;
  std::string declared_unit;
  bool known = true;  // false for { unknown = "reason" }
};

class Loader {
 public:
  Loader(std::string file, Diagnostics &diags) : file_(std::move(file)), diags_(diags) {}

  json convert(const toml::node &node, const std::string &key_path) {
    if (const auto *t = node.as_table()) {
      if (t->contains("value") || t->contains("unit") || t->contains("unknown")) return quantity(*t, key_path);
      json obj = json::object();
      for (auto &&[key, value] : *t) {
        std::string child = key_path.empty() ? str(key.str()) : key_path + "." + str(key.str());
        obj[str(key.str())] = convert(value, child);
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
    diags_.error(loc(node), "", "key '" + key + "': " + message);
  }
  void warning(const toml::node &node, const std::string &key, const std::string &message) {
    diags_.warning(loc(node), "", "key '" + key + "': " + message);
  }
  [[nodiscard]] SourceLoc loc(const toml::node &node) const {
    return {file_, node.source().begin.line, node.source().begin.column};
  }

  std::map<std::string, QuantityInfo> quantities;

 private:
  json quantity(const toml::table &t, const std::string &key_path) {
    static const std::vector<std::string> kAllowed = {"value", "unit",     "source",   "note",       "kind",
                                                      "core",  "verified", "unknown", "alternative"};
    for (auto &&[key, value] : t) {
      std::string k(key.str());
      if (std::find(kAllowed.begin(), kAllowed.end(), k) == kAllowed.end())
        error(value, key_path, "unknown member '" + k + "' in a quantity" + valid_list_suffix(k, kAllowed, "valid members"));
    }
    const toml::node *value = t.get("value");
    const toml::node *unit = t.get("unit");
    const toml::node *unknown = t.get("unknown");
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
    json q = json::object();
    QuantityInfo info{&t, value, conv->dimension, unit_text, true};
    if (unknown != nullptr) {
      // Unknown means null plus a reason, never a made-up number.
      if (value != nullptr) error(*value, key_path, "a quantity has either 'value' or 'unknown', not both");
      if (!unknown->is_string() || blank(unknown->as_string()->get())) {
        error(*unknown, key_path, "'unknown' must say why the value is not known");
        return nullptr;
      }
      q["value"] = nullptr;
      q["reason"] = unknown->as_string()->get();
      info.known = false;
      info.value_node = unknown;
    } else {
      if (value == nullptr || !(value->is_integer() || value->is_floating_point())) {
        error(value != nullptr ? *value : static_cast<const toml::node &>(t), key_path,
              "a quantity needs a numeric 'value' (or 'unknown = \"why\"')");
        return nullptr;
      }
      double raw = value->is_integer() ? static_cast<double>(value->as_integer()->get()) : value->as_floating_point()->get();
      if (!std::isfinite(raw) || raw <= 0) error(*value, key_path, "value must be positive and finite, got " + units::format_number(raw));
      if (conv->dimension == Dimension::Ratio && raw > 1.0) error(*value, key_path, "a ratio must lie in (0, 1], got " + units::format_number(raw));
      q["value"] = raw * conv->factor;
      if (unit_text != units::canonical_unit(conv->dimension)) q["declared"] = {{"value", raw}, {"unit", unit_text}};
    }
    q["unit"] = str(units::canonical_unit(conv->dimension));
    const toml::node *source = t.get("source");
    if (source != nullptr && source->is_string() && !blank(source->as_string()->get()))
      q["source"] = source->as_string()->get();
    else if (source != nullptr)
      error(*source, key_path, "'source' must name where the number comes from (a datasheet, a measurement, or \"unverified: why\"); "
                               "an empty or blank string says nothing");
    else if (info.known)
      error(t, key_path, "every number needs a 'source' (a datasheet, a measurement, or \"unverified: why\")");
    for (const char *extra : {"note", "core"})
      if (const toml::node *n = t.get(extra); n != nullptr && n->is_string()) q[extra] = n->as_string()->get();
    if (const toml::node *kind = t.get("kind"); kind != nullptr) {
      static const std::vector<std::string> kKinds = {"theoretical", "peak", "sustained", "argued"};
      std::string k = kind->is_string() ? kind->as_string()->get() : "";
      if (std::find(kKinds.begin(), kKinds.end(), k) == kKinds.end())
        error(*kind, key_path, "kind must be \"theoretical\", \"peak\", \"sustained\" or \"argued\"");
      else
        q["kind"] = k;
    }
    if (const toml::node *n = t.get("verified"); n != nullptr && n->is_boolean()) q["verified"] = n->as_boolean()->get();
    if (const toml::node *alt = t.get("alternative"); alt != nullptr) {
      const auto *alt_table = alt->as_table();
      if (alt_table == nullptr || !alt_table->contains("value"))
        error(*alt, key_path, "'alternative' must be a quantity { value, unit, source, note } (a figure not used)");
      else
        q["alternative"] = convert(*alt, key_path + ".alternative");
    }
    quantities[key_path] = info;
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

//===----------------------------------------------------------------------===//
// The calibration database (perfbound.calibration/1)
//===----------------------------------------------------------------------===//

/// Line of the first occurrence of `needle` in `text` (1-based), 0 if absent.
uint32_t line_of(const std::string &text, const std::string &needle) {
  size_t pos = text.find(needle);
  if (pos == std::string::npos) return 0;
  return static_cast<uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n') + 1);
}

class CalibrationChecker {
 public:
  CalibrationChecker(const json &profile, const Loader &loader, std::string file, std::string text, Diagnostics &diags)
      : profile_(profile), loader_(loader), file_(std::move(file)), text_(std::move(text)), diags_(diags) {}

  void check(const json &cal) {
    SourceLoc top{file_, 1, 1};
    if (cal.value("schema", json()) != "perfbound.calibration/1") {
      diags_.error(top, "", "key 'schema': a calibration file must declare \"schema\": \"perfbound.calibration/1\"");
      return;
    }
    const json *constants = cal.contains("constants") ? &cal["constants"] : nullptr;
    if (constants == nullptr || !constants->is_object() || constants->empty()) {
      diags_.error(top, "", "key 'constants': a calibration file needs an object of constants keyed by id");
      return;
    }
    for (const auto &[id, constant] : constants->items()) check_constant(id, constant);
  }

 private:
  void error(const std::string &id, const std::string &member, const std::string &message) {
    diags_.error(where(id), "", "key 'constants." + id + (member.empty() ? "" : "." + member) + "': " + message);
  }
  [[nodiscard]] SourceLoc where(const std::string &id) const {
    uint32_t line = line_of(text_, "\"" + id + "\": {");
    return {file_, line, line > 0 ? 1u : 0u};
  }

  void check_constant(const std::string &id, const json &c) {
    if (!c.is_object()) return error(id, "", "a constant must be an object");
    // Unit: canonical only, so a reader never guesses a scale.
    std::optional<Dimension> dim;
    std::string unit = c.value("unit", std::string());
    if (auto spec = parse_unit(unit); !spec)
      error(id, "unit", "unknown unit '" + unit + "'" + valid_list_suffix(unit, known_units(), "known units"));
    else if (units::canonical_unit(spec->dimension) != unit)
      error(id, "unit", "unit '" + unit + "' is not canonical; calibration files use canonical units ('" +
                            str(units::canonical_unit(spec->dimension)) + "')");
    else
      dim = spec->dimension;
    std::string kind = c.value("kind", std::string());
    if (kind != "peak" && kind != "sustained")
      error(id, "kind", "kind must be \"peak\" (usable in a lower bound) or \"sustained\" (diagnostic only)");
    if (!c.contains("n") || !c["n"].is_number_integer() || c["n"].get<int64_t>() < 1)
      error(id, "n", "n must be the number of measurements (an integer >= 1)");
    if (!c.contains("method") || !c["method"].is_string() || blank(c["method"].get<std::string>()))
      error(id, "method", "every constant needs a 'method' a reader can repeat by hand");
    const json &sources = c.contains("sources") ? c["sources"] : json();
    if (!sources.is_array() || sources.empty())
      error(id, "sources", "every constant needs 'sources': the measurement files it was derived from");
    else
      for (const json &s : sources)
        if (!s.is_object() || !s.value("file", json()).is_string() || !s.value("sha256", json()).is_string() ||
            blank(s.at("file").get<std::string>()) || blank(s.at("sha256").get<std::string>()))
          error(id, "sources", "each source needs 'file' and 'sha256' (neither blank)");

    const json &value = c.contains("value") ? c["value"] : json();
    if (value.is_object()) return;  // a table (checked by the schema)
    if (value.is_null()) {
      const json reason = c.value("reason", json());
      if (!reason.is_string() || blank(reason.get<std::string>())) error(id, "value", "a null value needs a 'reason'");
      return;
    }
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0)
      return error(id, "value", "value must be a positive number, a table, or null with a reason");
    double v = value.get<double>();
    std::optional<double> half_width;
    if (c.contains("ci95") && c["ci95"].is_object()) {
      const json &ci = c["ci95"];
      if (!ci.value("low", json()).is_number() || !ci.value("high", json()).is_number() ||
          ci["low"].get<double>() > ci["high"].get<double>())
        return error(id, "ci95", "ci95 needs numbers 'low' <= 'high'");
      half_width = (ci["high"].get<double>() - ci["low"].get<double>()) / 2;
    } else if (!c.value("ci95_reason", json()).is_string()) {
      error(id, "ci95", "give a 95 % confidence interval {low, high}, or null with 'ci95_reason'");
    }
    if (dim && c.contains("theoretical")) check_against_theoretical(id, c, *dim, v, half_width, kind);
  }

  /// A measured rate above the theoretical peak means one of them is wrong;
  /// if the theoretical figure is the wrong one, every bound computed from it
  /// may exceed a real run time (unsound). So it is an error, not a warning.
  void check_against_theoretical(const std::string &id, const json &c, Dimension dim, double v,
                                 std::optional<double> half_width, const std::string &kind) {
    const json &key_json = c["theoretical"];
    if (!key_json.is_string()) return error(id, "theoretical", "must name a profile key, e.g. \"peak.cube_fp16\"");
    const std::string key = key_json.get<std::string>();
    const json *theory = lookup(profile_, key);
    auto info = loader_.quantities.find(key);
    if (theory == nullptr || info == loader_.quantities.end())
      return error(id, "theoretical", "names '" + key + "', which is not a quantity of the profile");
    // value()/at(), not const operator[]: a missing key there is undefined behaviour.
    if (!theory->is_object() || !theory->value("value", json()).is_number()) return;  // unknown theoretical: nothing to compare
    double theoretical = theory->at("value").get<double>();
    std::string how = units::format_number(theoretical) + " " + str(units::canonical_unit(info->second.dimension));
    units::Exponents have = units::exponents(info->second.dimension);
    if (have != units::exponents(dim)) {
      // A per-cycle peak becomes a per-second rate at the profile's clock.
      const json *clock = lookup(profile_, "clock.frequency");
      units::Exponents per_second = have * units::exponents(Dimension::Frequency);
      if (per_second != units::exponents(dim) || clock == nullptr || !clock->is_object() || !clock->value("value", json()).is_number())
        return error(id, "theoretical", "'" + key + "' is " + str(units::dimension_name(info->second.dimension)) +
                                            " and cannot be compared with a constant in " + str(units::canonical_unit(dim)));
      double f = clock->at("value").get<double>();
      how += " x " + human_quantity(f, Dimension::Frequency) + " = " + units::format_number(theoretical * f) + " " +
             str(units::canonical_unit(dim));
      theoretical *= f;
    }
    double excess = v - theoretical;
    if (excess > half_width.value_or(0))
      error(id, "value",
            "calibrated " + kind + " " + units::format_number(v) + " " + str(units::canonical_unit(dim)) + " is above the theoretical " +
                key + " (" + how + ") by " + units::format_number(excess) +
                (half_width ? ", more than its 95 % CI half-width " + units::format_number(*half_width) : std::string(" and has no CI")) +
                ": either the theoretical figure is not an upper limit (bounds computed from it would be unsound) "
                "or the benchmark's work count is wrong");
  }

  const json &profile_;
  const Loader &loader_;
  std::string file_;
  std::string text_;
  Diagnostics &diags_;
};

//===----------------------------------------------------------------------===//
// Profile checks
//===----------------------------------------------------------------------===//

class ProfileChecker {
 public:
  ProfileChecker(const json &doc, const toml::table &root, Loader &loader, std::string file, Diagnostics &diags)
      : doc_(doc), root_(root), loader_(loader), file_(std::move(file)), diags_(diags) {}

  void run() {
    header();
    required();
    prefixes();
    ranges();
    pipes();
    fractals();
    cores();
    unknowns();
  }

 private:
  void top_error(const std::string &message) { diags_.error({file_, 1, 1}, "", message); }
  /// An error about `key` placed at the nearest enclosing table that exists
  /// in the file ("missing key 'clock.frequency'" points at [clock]).
  void missing(const std::string &key, const std::string &message) {
    std::string path = key;
    while (!path.empty()) {
      if (const toml::node *node = root_.at_path(path).node(); node != nullptr) {
        diags_.error(loader_.loc(*node), "", message);
        return;
      }
      size_t dot = path.rfind('.');
      path = dot == std::string::npos ? std::string() : path.substr(0, dot);
    }
    top_error(message);
  }
  void key_error(const std::string &key, const std::string &message) {
    auto it = loader_.quantities.find(key);
    if (it != loader_.quantities.end())
      loader_.error(it->second.value_node != nullptr ? *it->second.value_node : *it->second.node, key, message);
    else
      top_error("key '" + key + "': " + message);
  }

  void header() {
    const json *format = lookup(doc_, "format");
    if (format == nullptr || !format->is_number_integer())
      top_error("missing 'format = 1' at the top of the profile");
    else if (format->get<int64_t>() != kProfileFormatVersion)
      top_error("unsupported profile format " + format->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "; this perfbound reads format " +
                std::to_string(kProfileFormatVersion));
    const json *name = lookup(doc_, "name");
    if (name == nullptr || !name->is_string() || blank(name->get<std::string>())) top_error("missing key 'name'");
  }

 public:
  /// `--profile NAME` finds a profile by its directory's name, and reports
  /// name it by `name`: the two must be the same word.
  void name_matches_directory(const fs::path &dir) {
    const json *name = lookup(doc_, "name");
    if (name == nullptr || !name->is_string()) return;  // reported by header()
    fs::path normal = fs::absolute(dir).lexically_normal();
    if (normal.filename().empty()) normal = normal.parent_path();
    const std::string directory = normal.filename().string();
    if (name->get<std::string>() == directory) return;
    const toml::node *node = root_.get("name");
    const std::string message = "key 'name': the profile is named '" + name->get<std::string>() + "' but its directory is '" +
                                directory + "'; a profile is found (--profile NAME) by its directory, so the two must agree";
    if (node != nullptr)
      diags_.error(loader_.loc(*node), "", message);
    else
      top_error(message);
  }

 private:

  void wrong_dimension(const std::string &key, const QuantityInfo &info, Dimension want) {
    loader_.error(*info.node, key,
                  "unit '" + info.declared_unit + "' is " + str(units::dimension_name(info.dimension)) +
                      ", but this key needs " + str(units::dimension_name(want)) + " (e.g. " +
                      str(units::canonical_unit(want)) + ")");
  }

  void required() {
    for (const RequiredKey &req : required_keys()) {
      const json *q = lookup(doc_, req.path);
      auto info = loader_.quantities.find(req.path);
      if (q == nullptr) {
        missing(req.path, std::string("missing key '") + req.path + "' (" + str(units::dimension_name(req.dimension)) +
                              ", e.g. " + str(units::canonical_unit(req.dimension)) + ")");
        continue;
      }
      if (info == loader_.quantities.end()) {
        if (!q->is_null()) top_error(std::string("key '") + req.path + "' must be a quantity { value, unit, source }");
        continue;
      }
      if (info->second.dimension != req.dimension) wrong_dimension(req.path, info->second, req.dimension);
    }
  }

  void prefixes() {
    for (const auto &[key, info] : loader_.quantities) {
      for (const RequiredKey &rule : prefix_dimensions()) {
        if (!starts_with(key, rule.path) || info.dimension == rule.dimension) continue;
        bool is_required = std::any_of(required_keys().begin(), required_keys().end(),
                                       [&](const RequiredKey &r) { return key == r.path; });
        if (!is_required) wrong_dimension(key, info, rule.dimension);  // required keys were reported already
      }
    }
  }

  void ranges() {
    for (const auto &[key, info] : loader_.quantities) {
      if (!info.known || key.find(".alternative") != std::string::npos) continue;
      const json *q = lookup(doc_, key);
      if (q == nullptr) q = element(key);
      if (q == nullptr || !q->is_object() || !q->value("value", json()).is_number()) continue;
      double v = q->at("value").get<double>();
      for (const RangeRule &rule : profile_ranges()) {
        bool match = rule.key.back() == '.' ? starts_with(key, rule.key) : starts_with(key, rule.key) &&
                                                                              (key.size() == rule.key.size() || key[rule.key.size()] == '[');
        if (!match || info.dimension != rule.dimension) continue;
        if (rule.integral && v != std::floor(v))
          key_error(key, human_value(*q, info) + " must be a whole number");
        if (v > 0 && (v < rule.min || v > rule.max))
          key_error(key, human_value(*q, info) + " is outside the sane range " + human_quantity(rule.min, rule.dimension) +
                             " .. " + human_quantity(rule.max, rule.dimension) + " for this key; check the unit");
      }
    }
  }

  /// "clock.alternatives[0]" -> the array element.
  const json *element(const std::string &key) {
    size_t open = key.rfind('[');
    if (open == std::string::npos) return nullptr;
    const json *arr = lookup(doc_, key.substr(0, open));
    size_t idx = std::stoul(key.substr(open + 1));
    if (arr == nullptr || !arr->is_array() || idx >= arr->size()) return nullptr;
    return &(*arr)[idx];
  }

  static std::string human_value(const json &q, const QuantityInfo &info) {
    std::string text = human_quantity(q.at("value").get<double>(), info.dimension);
    if (const json declared = q.value("declared", json()); has_number_and_unit(declared))
      text += " (declared " + units::format_number(declared.at("value").get<double>()) + " " + declared.at("unit").get<std::string>() + ")";
    return text;
  }

  void pipes() {
    const json *pipes = lookup(doc_, "pipes");
    for (const std::string &pipe : required_pipes()) {
      const json *p = pipes != nullptr ? lookup(*pipes, pipe) : nullptr;
      if (p == nullptr || !p->is_object() || !p->contains("cores") || !(*p)["cores"].is_array() || (*p)["cores"].empty()) {
        missing("pipes." + pipe + ".cores",
                "missing key 'pipes." + pipe + ".cores' (the core types that own pipe " + pipe + ", e.g. [\"aiv\"])");
        continue;
      }
      for (const json &core : (*p)["cores"])
        if (core != "aic" && core != "aiv") top_error("key 'pipes." + pipe + ".cores': unknown core type " + core.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " (aic or aiv)");
    }
  }

  void fractals() {
    for (const std::string &dtype : required_fractals()) {
      const std::string key = "cube.fractal." + dtype;
      const json *f = lookup(doc_, key);
      if (f == nullptr || !f->is_object()) {
        missing(key, "missing key '" + key + "' (the MMAD fractal { m, k, n, source } for " + dtype + ")");
        continue;
      }
      for (const char *dim : {"m", "k", "n"}) {
        const json &d = f->contains(dim) ? (*f)[dim] : json();
        if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > 1024)
          missing(key + "." + dim, "key '" + key + "." + dim + "': must be a whole number of elements in 1 .. 1024");
      }
      if (const json source = f->value("source", json()); !source.is_string() || blank(source.get<std::string>()))
        missing(key, "key '" + key + "': every number needs a 'source' (not blank)");
    }
  }

  void cores() {
    const json *aic = lookup(doc_, "cores.aic");
    const json *aiv = lookup(doc_, "cores.aiv");
    const json *ratio = lookup(doc_, "cores.aiv_per_aic");
    auto num = [](const json *q) -> std::optional<double> {
      // find(), not operator[]: on a const object a missing key is
      // undefined behaviour (it read freed memory under ASan).
      if (q == nullptr || !q->is_object()) return std::nullopt;
      auto value = q->find("value");
      if (value == q->end() || !value->is_number()) return std::nullopt;
      return value->get<double>();
    };
    auto n_aic = num(aic), n_aiv = num(aiv), n_ratio = num(ratio);
    auto whole = [](std::optional<double> v) { return v && *v == std::floor(*v); };
    if (whole(n_aic) && whole(n_aiv) && whole(n_ratio) && *n_aiv != *n_aic * *n_ratio)
      key_error("cores.aiv", units::format_number(*n_aiv) + " vector cores is not cores.aiv_per_aic (" + units::format_number(*n_ratio) +
                                 ") x cores.aic (" + units::format_number(*n_aic) + ")");
  }

  void unknowns() {
    for (const auto &[key, info] : loader_.quantities) {
      if (info.known) continue;
      const json *q = lookup(doc_, key);
      std::string reason = q != nullptr && q->is_object() ? q->value("reason", std::string()) : std::string();
      loader_.warning(*info.node, key, "value unknown (" + reason + "); terms that need it report null");
    }
  }

  const json &doc_;
  const toml::table &root_;
  Loader &loader_;
  std::string file_;
  Diagnostics &diags_;
};

/// Reads a profile's text file within the limits (regular file, size,
/// UTF-8), reporting a problem at `loc` (or at the bad byte).
std::optional<std::string> read_text(const fs::path &path, const SourceLoc &loc, const std::string &what, Diagnostics &diags) {
  std::string error;
  auto text = pb::sdk::read_input_file(path, pb::sdk::kMaxConfigFileBytes, error);
  if (!text) {
    if (error == "no such file")
      diags.error(loc, "", what + "'" + path.string() + "' does not exist");
    else
      diags.error(loc, "", what + "'" + path.string() + "': " + error);
    return std::nullopt;
  }
  if (auto bad = pb::sdk::find_invalid_utf8(*text)) {
    diags.error({path.string(), bad->line, bad->column}, "", pb::sdk::describe_utf8_error(*bad));
    return std::nullopt;
  }
  return text;
}

}  // namespace

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

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
  auto profile_text = read_text(file, {where, 0, 0}, "", result.diagnostics);
  if (!profile_text) return result;
  result.files.push_back(file);
  toml::table root;
  try {
    root = toml::parse(*profile_text, file.string());
  } catch (const toml::parse_error &err) {
    result.diagnostics.error({where, err.source().begin.line, err.source().begin.column}, "",
                             std::string("TOML syntax error: ") + std::string(err.description()));
    return result;
  }
  Loader loader(where, result.diagnostics);
  json doc = loader.convert(root, "");
  if (!doc.is_object()) doc = json::object();
  ProfileChecker checker(doc, root, loader, where, result.diagnostics);
  checker.run();
  checker.name_matches_directory(dir);

  // Calibration database (optional; format owned by perfbound.calibration/1).
  doc["calibration"] = nullptr;
  if (const json *cal = lookup(doc, "calibration_file"); cal != nullptr) {
    const toml::node *node = root.get("calibration_file");
    SourceLoc cal_loc = node != nullptr ? loader.loc(*node) : SourceLoc{where, 1, 1};
    if (!cal->is_string()) {
      result.diagnostics.error(cal_loc, "", "key 'calibration_file': must be a file name");
    } else {
      fs::path cal_path = dir / cal->get<std::string>();
      std::optional<std::string> text = read_text(cal_path, cal_loc, "key 'calibration_file': ", result.diagnostics);
      if (text) {
        result.files.push_back(cal_path);
        // Without exceptions: a number JSON cannot hold (1e400) is an
        // out_of_range error, not a parse_error, and aborted `profile check`.
        json calibration = json::parse(*text, nullptr, /*allow_exceptions=*/false);
        if (calibration.is_discarded()) {
          const std::string where_why = pb::sdk::json_syntax_error(*text);  // "line L, column C: why"
          uint32_t line = 0, column = 0;
          std::sscanf(where_why.c_str(), "line %u, column %u", &line, &column);
          const size_t colon = where_why.find(": ");
          result.diagnostics.error({cal_path.string(), line, column}, "",
                                   "not valid JSON: " + (colon == std::string::npos ? where_why : where_why.substr(colon + 2)));
          calibration = nullptr;
        }
        if (!calibration.is_null() && !calibration.is_object())
          result.diagnostics.error({cal_path.string(), 1, 1}, "", "a calibration file is one JSON object");
        else if (calibration.is_object()) {
          CalibrationChecker(doc, loader, cal_path.string(), *text, result.diagnostics).check(calibration);
          doc["calibration"] = calibration;
        }
      }
    }
  }
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

//===----------------------------------------------------------------------===//
// `profile show`
//===----------------------------------------------------------------------===//

namespace {

struct Row {
  std::string key, value, human, kind, source;
};

void collect_rows(const json &node, const std::string &prefix, std::vector<Row> &rows) {
  if (!node.is_object()) {
    if (node.is_array())
      for (size_t idx = 0; idx < node.size(); ++idx) collect_rows(node[idx], prefix + "[" + std::to_string(idx) + "]", rows);
    return;
  }
  if (node.contains("unit") && node.contains("value") && node["unit"].is_string()) {
    auto spec = parse_unit(node["unit"].get<std::string>());
    Row row;
    row.key = prefix;
    row.kind = node.value("kind", std::string());
    row.source = node.value("source", std::string());
    if (node["value"].is_number() && spec) {
      // A count's unit is "1": written bare ("20", not "20 1").
      const std::string unit = node["unit"].get<std::string>();
      row.value = units::format_number(node["value"].get<double>()) + (unit == "1" ? std::string() : " " + unit);
      // As written when the author chose a unit ("64 GiB", "512 KB").
      const json &declared = node.contains("declared") ? node["declared"] : json();
      row.human = has_number_and_unit(declared) ? units::format_number(declared.at("value").get<double>()) + " " + declared.at("unit").get<std::string>()
                                       : human_quantity(node["value"].get<double>(), spec->dimension);
    } else {
      row.value = "null";
      row.human = "unknown";
      row.source = "unknown: " + node.value("reason", std::string());
    }
    rows.push_back(row);
    if (node.contains("alternative")) collect_rows(node["alternative"], prefix + ".alternative", rows);
    return;
  }
  for (const auto &[key, value] : node.items()) {
    if (prefix.empty() && (key == "calibration" || key == "pipes" || key == "cube")) continue;
    collect_rows(value, prefix.empty() ? key : prefix + "." + key, rows);
  }
}

std::string table(const std::vector<std::string> &header, const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> width(header.size());
  for (size_t col = 0; col < header.size(); ++col) width[col] = header[col].size();
  for (const auto &row : rows)
    for (size_t col = 0; col + 1 < row.size(); ++col) width[col] = std::max(width[col], row[col].size());
  auto line = [&](const std::vector<std::string> &cells) {
    std::string out;
    for (size_t col = 0; col < cells.size(); ++col) {
      out += cells[col];
      if (col + 1 < cells.size()) out += std::string(width[col] - cells[col].size() + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  for (const auto &row : rows) out += line(row);
  return out;
}

}  // namespace

std::string render_profile_table(const json &doc) {
  std::string out = doc.value("display_name", doc.value("name", std::string("?"))) + " (" + doc.value("name", std::string()) +
                    ", " + doc.value("arch", std::string("?")) + ")\n\n";
  std::vector<Row> rows;
  collect_rows(doc, "", rows);
  std::vector<std::vector<std::string>> cells;
  for (const Row &r : rows) cells.push_back({r.key, r.value, r.human, r.kind, r.source});
  out += table({"key", "value", "human", "kind", "source"}, cells);

  if (const json *fractal = lookup(doc, "cube.fractal"); fractal != nullptr && fractal->is_object()) {
    out += "\nMMAD fractals (m x k x n)\n";
    cells.clear();
    for (const auto &[dtype, f] : fractal->items())
      cells.push_back({dtype, f.value("m", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " x " + f.value("k", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " x " + f.value("n", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                       f.value("source", std::string())});
    out += table({"dtype", "fractal", "source"}, cells);
  }
  if (const json *pipes = lookup(doc, "pipes"); pipes != nullptr && pipes->is_object()) {
    out += "\nPipes\n";
    cells.clear();
    for (const auto &[name, p] : pipes->items()) {
      std::string owners;
      for (const json &c : p.value("cores", json::array())) owners += (owners.empty() ? "" : ", ") + c.get<std::string>();
      cells.push_back({name, owners, p.value("description", std::string())});
    }
    out += table({"pipe", "cores", "what"}, cells);
  }
  const json &cal = doc.contains("calibration") ? doc["calibration"] : json();
  if (cal.is_object() && cal.contains("constants") && cal["constants"].is_object()) {
    out += "\nCalibration (" + doc.value("calibration_file", std::string()) + ")\n";
    cells.clear();
    for (const auto &[id, c] : cal["constants"].items()) {
      std::string unit = c.value("unit", std::string());
      auto spec = parse_unit(unit);
      std::string value, ci;
      const json &v = c.contains("value") ? c["value"] : json();
      if (v.is_number() && spec)
        value = human_quantity(v.get<double>(), spec->dimension);
      else if (v.is_object())
        value = "table of " + std::to_string(v.value("points", json::array()).size()) + " points (" + unit + ")";
      else
        value = "null";
      if (const json ci95 = c.value("ci95", json());
          ci95.is_object() && ci95.value("low", json()).is_number() && ci95.value("high", json()).is_number() && spec)
        ci = human_quantity(ci95.at("low").get<double>(), spec->dimension) + " .. " +
             human_quantity(ci95.at("high").get<double>(), spec->dimension);
      std::string files;
      for (const json &s : c.value("sources", json::array())) files += (files.empty() ? "" : ", ") + s.value("file", std::string());
      cells.push_back({id, value, c.value("kind", std::string()), ci, c.contains("n") ? c["n"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "", files});
    }
    out += table({"constant", "value", "kind", "95% CI (median)", "n", "source"}, cells);
  }
  return out;
}

}  // namespace perfbound
