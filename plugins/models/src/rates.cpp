//===- rates.cpp - the rates a bound may use, read from a profile ---------===//
#include "rates.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "render_numbers.hpp"

namespace pb::models {

const json &json_at(const json &doc, std::initializer_list<const char *> keys) {
  static const json kNull;
  const json *cur = &doc;
  for (const char *k : keys) {
    if (!cur->is_object() || !cur->contains(k)) return kNull;
    cur = &(*cur)[k];
  }
  return *cur;
}

namespace {

/// doc[k0][k1]...; nullptr when any step is missing or not an object.
const json *member(const json &doc, std::initializer_list<const char *> keys) {
  const json *at = &doc;
  for (const char *key : keys) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

std::optional<double> value_of(const json *quantity) {
  if (quantity == nullptr || !quantity->is_object()) return std::nullopt;
  auto it = quantity->find("value");
  if (it == quantity->end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string string_of(const json *quantity, const char *key) {
  if (quantity == nullptr || !quantity->is_object()) return {};
  auto it = quantity->find(key);
  return it != quantity->end() && it->is_string() ? it->get<std::string>() : std::string();
}

RateKind kind_of(const json *quantity, RateKind fallback) {
  std::string kind = string_of(quantity, "kind");
  if (kind == "peak") return RateKind::Peak;
  if (kind == "sustained") return RateKind::Sustained;
  if (kind == "theoretical") return RateKind::Theoretical;
  if (kind == "argued") return RateKind::Argued;
  return fallback;
}

std::string human_rate(double value, const std::string &unit) {
  for (u::Dimension dim : u::kAllDimensions)
    if (u::canonical_unit(dim) == unit) return u::human(value, dim);
  return u::format_number(value) + " " + unit;
}

/// The faster of a theoretical figure and a calibrated peak, each possibly
/// absent (NaN). Both in the same canonical unit.
template <class Q>
Rate<Q> faster_of(const std::string &name, const std::string &unit, double theoretical, const RateRecord &theoretical_record,
                  double calibrated, const RateRecord &calibrated_record, const std::string &missing_reason) {
  Rate<Q> rate;
  const bool has_theoretical = !std::isnan(theoretical), has_calibrated = !std::isnan(calibrated);
  if (!has_theoretical && !has_calibrated) {
    rate.record = theoretical_record;
    rate.record.name = name;
    rate.record.unit = unit;
    rate.record.value.reset();
    if (rate.record.reason.empty()) rate.record.reason = missing_reason;
    return rate;
  }
  const bool use_calibrated = has_calibrated && (!has_theoretical || calibrated > theoretical);
  rate.record = use_calibrated ? calibrated_record : theoretical_record;
  rate.record.name = name;
  rate.record.unit = unit;
  const double chosen = use_calibrated ? calibrated : theoretical;
  rate.record.value = chosen;
  rate.value = Q(chosen);
  if (has_theoretical && has_calibrated) {
    const RateRecord &other = use_calibrated ? theoretical_record : calibrated_record;
    const double other_value = use_calibrated ? theoretical : calibrated;
    rate.record.note = "faster than " + other.source + " (" + human_rate(other_value, unit) + ")";
  }
  return rate;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// Profile key suffix of a cube dtype: "bf16"/"cube_bf16" -> "cube_bf16".
std::string cube_key(const std::string &dtype) {
  std::string d = lower(dtype);
  if (d.rfind("cube_", 0) == 0) d = d.substr(5);
  if (d == "f16" || d == "fp16" || d == "half") return "cube_fp16";
  if (d == "bf16") return "cube_bf16";
  if (d == "f32" || d == "fp32") return "cube_fp32";
  if (d == "tf32" || d == "hf32") return "cube_" + d;
  if (d == "i8" || d == "int8" || d == "s8" || d == "u8") return "cube_int8";
  return "cube_" + d;
}

int element_bits(const std::string &dtype) {
  std::string d = lower(dtype);
  if (d == "i1") return 1;
  if (d.find("64") != std::string::npos) return 64;
  if (d.find("32") != std::string::npos) return 32;
  if (d.find("16") != std::string::npos) return 16;
  if (d.find("8") != std::string::npos) return 8;
  return 0;
}

}  // namespace

const char *rate_kind_name(RateKind kind) {
  switch (kind) {
    case RateKind::Theoretical: return "theoretical";
    case RateKind::Peak: return "peak";
    case RateKind::Sustained: return "sustained";
    case RateKind::Argued: return "argued";
  }
  return "theoretical";
}

json RateRecord::to_json() const {
  json out = json::object();
  out["name"] = name;
  out["value"] = value ? json(*value) : json(nullptr);
  out["unit"] = unit;
  out["kind"] = rate_kind_name(kind);
  out["source"] = source;
  if (!note.empty()) out["note"] = note;
  if (!value && !reason.empty()) out["reason"] = reason;
  return out;
}

double Table::upper(double x) const {
  if (points.empty()) return 1.0;
  if (x <= points.front().first) return points.front().second;
  if (x >= points.back().first) return points.back().second;
  for (size_t idx = 1; idx < points.size(); ++idx)
    if (x <= points[idx].first) return std::max(points[idx - 1].second, points[idx].second);
  return points.back().second;
}

std::string Rates::profile_path_key(const std::string &hivm_path) {
  // HIVM address spaces -> profile buffer names.
  auto space = [](const std::string &s) -> std::string {
    if (s == "cbuf") return "l1";
    if (s == "ca") return "l0a";
    if (s == "cb") return "l0b";
    if (s == "cc") return "l0c";
    return s;
  };
  size_t sep = hivm_path.find("_to_");
  if (sep == std::string::npos) return hivm_path;
  return space(hivm_path.substr(0, sep)) + "_to_" + space(hivm_path.substr(sep + 4));
}

Rates Rates::from_profile(const json &profile, const std::string &origin) {
  Rates rates;
  rates.profile_ = profile;
  rates.origin_ = origin;
  auto need = [&](std::initializer_list<const char *> keys, const std::string &what) {
    std::optional<double> v = value_of(member(profile, keys));
    if (!v || *v <= 0)
      throw pb::sdk::InputError(origin + ": profile member " + what + " is missing or unknown; the models need it");
    return *v;
  };
  rates.profile_name = string_of(&profile, "name");
  rates.clock = u::Hertz{need({"clock", "frequency"}, "clock.frequency")};
  rates.clock_record = {"clock", rates.clock.value(), "Hz", RateKind::Theoretical,
                        "profile:clock.frequency", "", ""};
  rates.cores_aic = need({"cores", "aic"}, "cores.aic");
  rates.cores_aiv = need({"cores", "aiv"}, "cores.aiv");
  std::optional<double> per_aic = value_of(member(profile, {"cores", "aiv_per_aic"}));
  rates.aiv_per_aic = per_aic ? *per_aic : rates.cores_aiv / rates.cores_aic;
  rates.repeat_bytes = u::Bytes{need({"vector", "repeat_bytes"}, "vector.repeat_bytes")};

  // Vector repeats per second: repeats_per_cycle x clock.
  {
    const json *q = member(profile, {"vector", "repeats_per_cycle"});
    RateRecord rec{"vector repeats (aiv)", std::nullopt, "repeat/s", kind_of(q, RateKind::Theoretical),
                   "profile:vector.repeats_per_cycle", "", ""};
    if (std::optional<double> v = value_of(q)) {
      double per_s = *v * rates.clock.value();
      rec.value = per_s;
      rates.vector_repeats_.value = RepeatsPerSecond(per_s);
    } else {
      rec.reason = q ? string_of(q, "reason") : "profile has no vector.repeats_per_cycle";
    }
    rates.vector_repeats_.record = rec;
  }

  const json *constants = member(profile, {"calibration", "constants"});
  auto calibration = [&](const std::string &id) -> const json * {
    if (constants == nullptr || !constants->is_object()) return nullptr;
    auto it = constants->find(id);
    return it == constants->end() ? nullptr : &*it;
  };
  auto calibrated_record = [&](const std::string &id, const std::string &unit) {
    const json *c = calibration(id);
    RateRecord rec{"", value_of(c), unit, kind_of(c, RateKind::Sustained), "calibration:" + id, "", ""};
    return rec;
  };

  // HBM: the profile's theoretical figure vs the calibrated all-core peak.
  {
    const json *q = member(profile, {"memory", "hbm_bandwidth"});
    RateRecord theo{"", value_of(q), "B/s", kind_of(q, RateKind::Theoretical), "profile:memory.hbm_bandwidth", "",
                    string_of(q, "reason")};
    RateRecord cal = calibrated_record("hbm_read_allcore_peak", "B/s");
    const double cal_value = cal.kind == RateKind::Peak && cal.value ? *cal.value : NAN;
    rates.hbm_ = faster_of<u::BytesPerSecond>("HBM (chip)", "B/s", theo.value.value_or(NAN), theo, cal_value, cal,
                                           "profile has no memory.hbm_bandwidth");
  }
  {
    RateRecord rec = calibrated_record("hbm_copy_aggregate_rate", "B/s");
    rec.name = "fastest sustained GM copy (chip)";
    if (!rec.value) rec.reason = constants ? "calibration has no hbm_copy_aggregate_rate" : "the profile has no calibration";
    rates.copy_.record = rec;
    if (rec.value) rates.copy_.value = u::BytesPerSecond{*rec.value};
  }
  {
    const json *q = member(profile, {"memory", "l2"});
    rates.l2_.record = {"L2 capacity", value_of(q), "B", RateKind::Theoretical, "profile:memory.l2", "",
                        q ? string_of(q, "reason") : "profile has no memory.l2"};
    if (rates.l2_.record.value) rates.l2_.value = u::Bytes{*rates.l2_.record.value};
  }
  {
    const json *q = member(profile, {"vector", "head_latency"});
    rates.vector_latency_.record = {"exposed vector latency per pipe_barrier[PIPE_V]", value_of(q), "cycle",
                                    kind_of(q, RateKind::Sustained), "profile:vector.head_latency", "",
                                    q ? string_of(q, "reason") : "profile has no vector.head_latency"};
    if (rates.vector_latency_.record.value) rates.vector_latency_.value = u::Cycles{*rates.vector_latency_.record.value};
  }
  auto cycles_constant = [&](const std::string &id, const std::string &name, Rate<u::Cycles> &out) {
    RateRecord rec = calibrated_record(id, "cycle");
    rec.name = name;
    if (!rec.value) rec.reason = constants ? "calibration has no " + id : "the profile has no calibration";
    out.record = rec;
    if (rec.value) out.value = u::Cycles{*rec.value};
  };
  cycles_constant("mandatory_handoff_intercept", "mandatory handoff", rates.handoff_);
  cycles_constant("pipe_barrier_all_cost", "pipe_barrier[PIPE_ALL] cost", rates.barrier_all_);
  if (const json *eta = calibration("hbm_packet_efficiency")) {
    const json *points = member(*eta, {"value", "points"});
    if (points != nullptr && points->is_array() && !points->empty()) {
      Table table;
      for (const json &point : *points)
        if (point.is_array() && point.size() == 2 && point[0].is_number() && point[1].is_number())
          table.points.emplace_back(point[0].get<double>(), point[1].get<double>());
      std::sort(table.points.begin(), table.points.end());
      table.record = {"HBM packet efficiency", std::nullopt, "ratio", kind_of(eta, RateKind::Sustained),
                      "calibration:hbm_packet_efficiency", "", ""};
      // Not one number: a table by transfer size. The note says so, with its
      // ends, rather than leaving the value to read "unknown".
      if (!table.points.empty())
        table.record.note = "a table by transfer size, each DMA at its own size: " +
                            fmt::sig4(table.points.front().second) + " at " + fmt::count(table.points.front().first) +
                            " B .. " + fmt::sig4(table.points.back().second) + " at " + fmt::count(table.points.back().first) +
                            " B (" + std::to_string(table.points.size()) + " points)";
      if (!table.points.empty()) rates.eta_ = std::move(table);
    }
  }
  return rates;
}

Rate<u::FlopPerSecond> Rates::cube_figure(const std::string &key) const {
  const json *q = member(profile_, {"peak", key.c_str()});
  std::optional<double> per_cycle = value_of(q);
  RateRecord theo{"", per_cycle ? std::optional<double>(*per_cycle * clock.value()) : std::nullopt, "FLOP/s",
                  kind_of(q, RateKind::Theoretical), "profile:peak." + key, "",
                  q ? string_of(q, "reason") : "profile has no peak." + key};
  const std::string cal_id = key + "_peak";
  const json *c = member(profile_, {"calibration", "constants", cal_id.c_str()});
  RateRecord cal{"", value_of(c), "FLOP/s", kind_of(c, RateKind::Sustained), "calibration:" + cal_id, "", ""};
  const double cal_value = cal.kind == RateKind::Peak && cal.value ? *cal.value : NAN;
  return faster_of<u::FlopPerSecond>("cube " + key.substr(5) + " (aic)", "FLOP/s", theo.value.value_or(NAN), theo, cal_value, cal,
                                  "profile has no peak." + key);
}

Rate<u::FlopPerSecond> Rates::cube(const std::string &dtype) const {
  std::string key = cube_key(dtype);
  const bool floating = key == "cube_fp16" || key == "cube_bf16" || key == "cube_fp32" || key == "cube_hf32" ||
                        key == "cube_tf32";
  // The fastest floating-point cube figure of the profile (any kind, or
  // strict ones only).
  auto fastest_float = [&](bool strict_only) {
    std::optional<Rate<u::FlopPerSecond>> best;
    for (const char *k : {"cube_fp16", "cube_bf16", "cube_fp32"}) {
      Rate<u::FlopPerSecond> r = cube_figure(k);
      if (!r.known() || (strict_only && !strict_kind(r.record.kind))) continue;
      if (!best || r.value->value() > best->value->value()) best = r;
    }
    return best;
  };
  Rate<u::FlopPerSecond> rate;
  if ((key == "cube_hf32" || key == "cube_tf32") && member(profile_, {"peak", key.c_str()}) == nullptr) {
    // HF32/TF32 exist to be faster than fp32 (Huawei documents SetHF32 as
    // raising the matmul's speed) and no public document gives their rate:
    // a lower bound takes the fastest floating-point cube figure the
    // profile has.
    std::optional<Rate<u::FlopPerSecond>> best = fastest_float(false);
    if (!best) {
      rate.record = {"cube " + key.substr(5) + " (aic)", std::nullopt, "FLOP/s", RateKind::Theoretical, "profile:peak." + key,
                     "", "the profile has no floating-point cube rate"};
      return rate;
    }
    rate = *best;
    rate.record.name = "cube " + key.substr(5) + " (aic)";
    rate.record.note = "no public " + key.substr(5) + " rate (" + key.substr(5) +
                       " is documented as faster than fp32): the fastest floating-point cube figure, " + best->record.source;
  } else {
    rate = cube_figure(key);
  }
  // A floating-point figure that may not enter a strict value (an argued
  // fp32 rate) is bounded from above by the fastest strict floating-point
  // cube figure: no floating-point MMAD is faster than the fastest one.
  if (rate.known() && !strict_kind(rate.record.kind) && floating)
    if (std::optional<Rate<u::FlopPerSecond>> bound = fastest_float(true))
      if (bound->value->value() >= rate.value->value()) rate.strict_bound = bound->value;
  return rate;
}

Rate<u::FlopPerSecond> Rates::vector_flop(const std::string &dtype) const {
  int bits = element_bits(dtype);
  std::string key = bits == 16 ? "vector_fp16" : bits == 32 ? "vector_fp32" : "vector_" + lower(dtype);
  if (lower(dtype) == "bf16" && member(profile_, {"peak", "vector_bf16"}) != nullptr) key = "vector_bf16";
  const json *q = member(profile_, {"peak", key.c_str()});
  Rate<u::FlopPerSecond> rate;
  if (std::optional<double> per_cycle = value_of(q)) {
    rate.record = {"vector " + lower(dtype) + " (aiv)", *per_cycle * clock.value(), "FLOP/s",
                   kind_of(q, RateKind::Theoretical), "profile:peak." + key, "", ""};
    rate.value = u::FlopPerSecond{*per_cycle * clock.value()};
    return rate;
  }
  // No peak for this width: derive it as the profile derives its vector
  // peaks, lanes per repeat x 2 (FMA) x repeats per cycle.
  if (bits > 0 && vector_repeats_.known()) {
    double lanes = repeat_bytes.value() * 8.0 / bits;
    double per_s = lanes * 2.0 * vector_repeats_.value->value();
    rate.record = {"vector " + lower(dtype) + " (aiv)", per_s, "FLOP/s", RateKind::Theoretical,
                   "profile:vector.repeat_bytes x vector.repeats_per_cycle",
                   "derived: " + u::format_number(lanes) + " lanes x 2 FLOP (FMA) per repeat", ""};
    rate.value = u::FlopPerSecond{per_s};
    return rate;
  }
  rate.record = {"vector " + lower(dtype) + " (aiv)", std::nullopt, "FLOP/s", RateKind::Theoretical,
                 "profile:peak." + key, "", "no vector rate for element type '" + dtype + "'"};
  return rate;
}

bool Rates::has_path(const std::string &path_name) const {
  std::string key = profile_path_key(path_name);
  return member(profile_, {"paths", key.c_str()}) != nullptr;
}

Rate<u::BytesPerSecond> Rates::path(const std::string &path_name) const {
  std::string key = profile_path_key(path_name);
  const json *q = member(profile_, {"paths", key.c_str()});
  std::optional<double> per_cycle = value_of(q);
  RateRecord theo{"", per_cycle ? std::optional<double>(*per_cycle * clock.value()) : std::nullopt, "B/s",
                  kind_of(q, RateKind::Theoretical), "profile:paths." + key, "",
                  q ? string_of(q, "reason") : "profile has no paths." + key};
  const json *c = member(profile_, {"calibration", "constants", (key + "_peak").c_str()});
  RateRecord cal{"", value_of(c), "B/s", kind_of(c, RateKind::Sustained), "calibration:" + key + "_peak", "", ""};
  const double cal_value = cal.kind == RateKind::Peak && cal.value ? *cal.value : NAN;
  return faster_of<u::BytesPerSecond>(key + " (per core)", "B/s", theo.value.value_or(NAN), theo, cal_value, cal,
                                   "profile has no paths." + key);
}

}  // namespace pb::models
