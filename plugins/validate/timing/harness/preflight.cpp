//===- preflight.cpp - on-chip buffer capacity preflight -------------------===//
#include "preflight.hpp"

#include <array>
#include <string>

#include <perfbound/sdk/json.hpp>

namespace pb::bench {

namespace {

constexpr std::array<const char *, 4> kBuffers = {"l0a", "l0b", "l0c", "ub"};

json verdict(const char *status, json reason, json skipped_reason) {
  return json{{"status", status},
              {"reason", std::move(reason)},
              {"skipped_reason", std::move(skipped_reason)},
              {"footprint_bytes", nullptr},
              {"capacity_bytes", nullptr}};
}

json unverified(const std::string &why) { return verdict("unverified", why, "unverified_tiling: " + why); }

/// A non-negative integer member in [min, max], or nullopt.
std::optional<uint64_t> tiling_field(const json &tiling, const char *key, uint64_t min, uint64_t max) {
  if (!tiling.contains(key)) return std::nullopt;
  const json &value = tiling.at(key);
  if (!value.is_number_integer()) return std::nullopt;
  if (!value.is_number_unsigned() && value.get<int64_t>() < 0) return std::nullopt;
  auto number = value.get<uint64_t>();
  if (number < min || number > max) return std::nullopt;
  return number;
}

}  // namespace

json preflight_capacities(const json &profile_document) {
  if (!profile_document.is_object() || !profile_document.contains("buffers") ||
      !profile_document.at("buffers").is_object())
    throw pb::sdk::InputError("hardware profile has no [buffers] table; the capacity preflight needs L0A/L0B/L0C/UB sizes");
  const json &buffers = profile_document.at("buffers");
  json out;
  out["name"] = profile_document.value("name", "");
  out["buffers"] = json::object();
  for (const char *name : kBuffers) {
    const json *quantity = buffers.contains(name) ? &buffers.at(name) : nullptr;
    bool known = quantity != nullptr && quantity->is_object() && quantity->contains("value") &&
                 quantity->at("value").is_number() && quantity->value("unit", "") == "B";
    out["buffers"][name] = known ? json(quantity->at("value").get<uint64_t>()) : json(nullptr);
  }
  out["fractal"] = json::object();
  if (profile_document.contains("cube") && profile_document.at("cube").contains("fractal")) {
    for (const auto &[dtype, entry] : profile_document.at("cube").at("fractal").items()) {
      if (!entry.is_object()) continue;
      json mkn;
      for (const char *axis : {"m", "k", "n"}) {
        const json *value = entry.contains(axis) ? &entry.at(axis) : nullptr;
        if (value != nullptr && value->is_object() && value->contains("value")) value = &value->at("value");
        if (value != nullptr && value->is_number_integer()) mkn[axis] = value->get<uint64_t>();
      }
      if (mkn.size() == 3) out["fractal"][dtype] = mkn;
    }
  }
  return out;
}

json preflight_gemm(const GemmShape &shape, const json &tiling, const json &capacities) {
  if (tiling.is_null())
    return verdict("not_applicable", "the case names no tiling; the backend's own kernel selection is trusted", nullptr);
  if (!tiling.is_object()) return unverified("args.tiling is not an object: " + tiling.dump());
  if (!tiling.contains("format") || !tiling.at("format").is_string())
    return unverified("args.tiling has no \"format\"; the preflight decodes \"" + std::string(kTilingFormat) + "\" only");
  auto format = tiling.at("format").get<std::string>();
  if (format != kTilingFormat)
    return unverified("cannot decode tiling format \"" + format + "\" (the preflight decodes \"" + kTilingFormat + "\")");
  constexpr uint64_t kMaxBase = 1u << 16;
  auto base_m = tiling_field(tiling, "base_m", 1, kMaxBase);
  auto base_n = tiling_field(tiling, "base_n", 1, kMaxBase);
  auto base_k = tiling_field(tiling, "base_k", 1, kMaxBase);
  if (!base_m || !base_n || !base_k)
    return unverified("tiling base_m, base_n and base_k must be integers in 1.." + std::to_string(kMaxBase));
  uint64_t buffers[4] = {};
  const char *buffer_keys[4] = {"l0a_buffers", "l0b_buffers", "l0c_buffers", "ub_buffers"};
  for (int buffer_idx = 0; buffer_idx < 4; ++buffer_idx) {
    uint64_t min = buffer_idx == 3 ? 0 : 1;
    auto count = tiling_field(tiling, buffer_keys[buffer_idx], min, 2);
    if (!tiling.contains(buffer_keys[buffer_idx])) count = buffer_idx == 3 ? 0 : 1;
    if (!count)
      return unverified(std::string("tiling ") + buffer_keys[buffer_idx] + " must be " + (min == 0 ? "0, 1 or 2" : "1 or 2"));
    buffers[buffer_idx] = *count;
  }
  for (const auto &[key, value] : tiling.items()) {
    (void)value;
    static const std::array<std::string, 8> kKnown = {"format", "base_m", "base_n", "base_k",
                                                      "l0a_buffers", "l0b_buffers", "l0c_buffers", "ub_buffers"};
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end())
      return unverified("tiling member \"" + key + "\" is not part of " + kTilingFormat);
  }
  if (shape.a == Dtype::kFp64 || shape.b == Dtype::kFp64)
    return unverified("the cube unit has no fp64 path; an fp64 tiling cannot be sized");
  if (capacities.is_null())
    return unverified("the plan has no hardware profile (perfbound bench prepare --profile NAME|DIR)");

  // Fractal alignment, where the profile states the fractal of the operand type.
  const json &fractal = capacities.value("fractal", json::object());
  std::string a_name(dtype_name(shape.a));
  if (fractal.contains(a_name)) {
    const json &mkn = fractal.at(a_name);
    if (*base_m % mkn.at("m").get<uint64_t>() != 0 || *base_k % mkn.at("k").get<uint64_t>() != 0 ||
        *base_n % mkn.at("n").get<uint64_t>() != 0)
      return unverified("tiling " + std::to_string(*base_m) + "x" + std::to_string(*base_n) + "x" + std::to_string(*base_k) +
                        " (m x n x k) is not a multiple of the " + a_name + " fractal " + mkn.at("m").dump() + "x" +
                        mkn.at("n").dump() + "x" + mkn.at("k").dump());
  }

  uint64_t footprint[4] = {
      *base_m * *base_k * dtype_size(shape.a) * buffers[0],
      *base_k * *base_n * dtype_size(shape.b) * buffers[1],
      *base_m * *base_n * 4 * buffers[2],
      *base_m * *base_n * dtype_size(shape.out) * buffers[3],
  };
  std::string formula[4] = {
      "base_m " + std::to_string(*base_m) + " x base_k " + std::to_string(*base_k) + " x " +
          std::to_string(dtype_size(shape.a)) + " B x " + std::to_string(buffers[0]) + " buffers",
      "base_k " + std::to_string(*base_k) + " x base_n " + std::to_string(*base_n) + " x " +
          std::to_string(dtype_size(shape.b)) + " B x " + std::to_string(buffers[1]) + " buffers",
      "base_m " + std::to_string(*base_m) + " x base_n " + std::to_string(*base_n) + " x 4 B x " +
          std::to_string(buffers[2]) + " buffers",
      "base_m " + std::to_string(*base_m) + " x base_n " + std::to_string(*base_n) + " x " +
          std::to_string(dtype_size(shape.out)) + " B x " + std::to_string(buffers[3]) + " buffers",
  };
  json result = verdict("fits", nullptr, nullptr);
  result["footprint_bytes"] = json::object();
  result["capacity_bytes"] = json::object();
  const json &capacity = capacities.at("buffers");
  std::string profile_name = capacities.value("name", "the profile");
  for (int buffer_idx = 0; buffer_idx < 4; ++buffer_idx) {
    const char *name = kBuffers[buffer_idx];
    result["footprint_bytes"][name] = footprint[buffer_idx];
    result["capacity_bytes"][name] = capacity.contains(name) ? capacity.at(name) : json(nullptr);
    if (footprint[buffer_idx] == 0) continue;
    if (!capacity.contains(name) || capacity.at(name).is_null())
      return unverified(std::string("profile ") + profile_name + " does not give the size of " + name);
    auto available = capacity.at(name).get<uint64_t>();
    if (footprint[buffer_idx] > available && result["status"] == "fits") {
      std::string why = std::string(name) + " needs " + std::to_string(footprint[buffer_idx]) + " B (" +
                        formula[buffer_idx] + "), " + profile_name + " has " + std::to_string(available) + " B";
      result["status"] = "exceeds";
      result["reason"] = why;
      result["skipped_reason"] = std::string(name) + "_capacity: " + why;
    }
  }
  return result;
}

}  // namespace pb::bench
