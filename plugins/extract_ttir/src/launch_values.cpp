//===- launch_values.cpp - the launch and the profile, read ---------------===//
//===----------------------------------------------------------------------===//
#include "launch_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace perfbound::ttir {

using pb::sdk::InputError;

namespace {

/// Edit distance, for "did you mean" (short strings only).
size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// The argument name closest to `key`, when it is close enough to be a typo.
std::string closest_key(const std::string &key, const KernelModel &k) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, key.size() / 3) + 1;
  if (key.size() > 256) return best;
  for (const KernelArg &a : k.args) {
    if (a.name.empty() || a.name.size() > 256) continue;
    const size_t d = edit_distance(key, a.name);
    if (d < best_distance) {
      best_distance = d;
      best = a.name;
    }
  }
  return best;
}

/// Refuses a value the argument's declared type cannot hold: a non-integer
/// or out-of-range number for iN, true/false for anything but i1, a
/// non-finite or out-of-range number for a float type.
void check_value(const std::string &key, const json &value, const KernelArg &arg) {
  const std::string &type = arg.element_type;
  auto refuse = [&](const std::string &expected) {
    throw InputError("launch.args." + key + " = " + value.dump() + ": argument '" + arg.key() + "' is " + type +
                     ", which takes " + expected);
  };
  if (!value.is_number() && !value.is_boolean()) refuse("a number");
  if (arg.is_float) {
    double max = std::numeric_limits<double>::max();
    std::string max_text = "1.8e308";
    if (type == "f32") max = std::numeric_limits<float>::max(), max_text = "3.4e38";
    else if (type == "f16") max = 65504.0, max_text = "65504";
    else if (type == "bf16") max = 3.3895313892515355e38, max_text = "3.39e38";
    if (value.is_boolean() || !std::isfinite(value.get<double>()) || std::fabs(value.get<double>()) > max)
      refuse("a finite number of magnitude at most " + max_text);
    return;
  }
  const int bits = arg.element_bits > 0 ? arg.element_bits : 64;
  if (bits == 1) {
    if (value.is_boolean()) return;
    if (value.is_number_integer() && (value.get<std::int64_t>() == 0 || value.get<std::int64_t>() == 1)) return;
    refuse("true, false, 0 or 1");
  }
  const std::string range = bits >= 64 ? std::string("-2^63 to 2^63-1")
                                       : "-2^" + std::to_string(bits - 1) + " to 2^" + std::to_string(bits - 1) + "-1";
  if (value.is_boolean()) refuse("an integer from " + range);
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    refuse("an integer from " + range);
  if (value.is_number_float()) {
    // A whole number written as a float (TOML 16777216.0) is that integer.
    const double v = value.get<double>();
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) >= 9.2e18) refuse("an integer from " + range);
  }
  if (bits < 64) {
    const auto v = value.is_number_float() ? static_cast<std::int64_t>(value.get<double>()) : value.get<std::int64_t>();
    if (v < -(std::int64_t{1} << (bits - 1)) || v > (std::int64_t{1} << (bits - 1)) - 1) refuse("an integer from " + range);
  }
}

}  // namespace

LaunchValues resolve_launch(const KernelModel &k, const json &launch) {
  LaunchValues out;
  if (!launch.is_object()) throw InputError("launch: expected a perfbound.launch/1 object");
  const json &grid = pb::sdk::require(launch, "grid", "launch");
  if (!grid.is_array() || grid.empty() || grid.size() > 3)
    throw InputError("launch.grid: expected 1 to 3 positive integers, got " + grid.dump());
  for (size_t axis = 0; axis < grid.size(); ++axis) {
    if (!grid[axis].is_number_integer() || grid[axis].get<std::int64_t>() < 1)
      throw InputError("launch.grid[" + std::to_string(axis) + "]: expected a positive integer, got " +
                       grid[axis].dump());
    out.grid[axis] = grid[axis].get<std::int64_t>();
  }
  double programs = static_cast<double>(out.grid[0]) * static_cast<double>(out.grid[1]) * static_cast<double>(out.grid[2]);
  if (programs > 1e12) throw InputError("launch.grid: " + grid.dump() + " is more than 10^12 programs");
  out.programs = out.grid[0] * out.grid[1] * out.grid[2];
  out.ints.assign(k.args.size(), std::nullopt);
  out.pointers.assign(k.args.size(), std::nullopt);
  auto it = launch.find("args");
  if (it == launch.end()) return out;
  if (!it->is_object()) throw InputError("launch.args: expected an object keyed by argument name or position");
  std::vector<std::string> optional;
  if (auto opt = launch.find("optional_args"); opt != launch.end()) {
    if (!opt->is_array()) throw InputError("launch.optional_args: expected an array of launch.args keys");
    for (const json &key : *opt) {
      if (!key.is_string()) throw InputError("launch.optional_args: expected strings, got " + key.dump());
      optional.push_back(key.get<std::string>());
    }
  }
  std::vector<std::string> key_of_arg(k.args.size());  // the first launch key that gave each argument
  for (const auto &[key, value] : it->items()) {
    const KernelArg *arg = nullptr;
    for (const KernelArg &a : k.args) {
      if ((!a.name.empty() && a.name == key) || key == "%arg" + std::to_string(a.index) ||
          key == std::to_string(a.index))
        arg = &a;
    }
    if (arg == nullptr) {
      if (std::find(optional.begin(), optional.end(), key) != optional.end()) continue;
      std::string names;
      for (const KernelArg &a : k.args) names += (names.empty() ? "" : ", ") + a.key();
      std::string closest = closest_key(key, k);
      throw InputError("launch.args." + key + ": kernel '" + k.name + "' has no argument '" + key + "'" +
                       (closest.empty() ? std::string() : " (did you mean '" + closest + "'?)") + "; arguments: " + names +
                       "; positions may be given as \"%argN\" or \"N\"; a key that may match nothing goes in "
                       "launch.optional_args");
    }
    if (arg->kind != ArgKind::Scalar) {
      out.ignored.push_back(key);
      if (arg->kind == ArgKind::Pointer && value.is_number_integer())
        out.pointers[static_cast<size_t>(arg->index)] = value.get<std::int64_t>();
      continue;
    }
    check_value(key, value, *arg);
    std::string &first = key_of_arg[static_cast<size_t>(arg->index)];
    if (!first.empty()) {
      if (it->at(first) != value)
        throw InputError("launch.args: '" + first + "' = " + it->at(first).dump() + " and '" + key + "' = " + value.dump() +
                         " both give argument " + std::to_string(arg->index) + " ('" + arg->key() + "': " +
                         arg->element_type + ") of kernel '" + k.name + "'; give it once");
      continue;
    }
    first = key;
    out.args[arg->key()] = value;
    if (arg->is_float) continue;
    if (value.is_boolean()) out.ints[static_cast<size_t>(arg->index)] = value.get<bool>() ? 1 : 0;
    else if (value.is_number_float()) out.ints[static_cast<size_t>(arg->index)] = static_cast<std::int64_t>(value.get<double>());
    else out.ints[static_cast<size_t>(arg->index)] = value.get<std::int64_t>();
  }
  return out;
}

namespace {

std::int64_t profile_int(const json &profile, const char *group, const char *key) {
  std::string where = std::string("profile.") + group;
  const json &g = pb::sdk::require(profile, group, "profile");
  const json &q = pb::sdk::require(g, key, where);
  std::optional<double> v = pb::sdk::quantity_value(q, where + "." + key);
  if (!v || *v <= 0) throw InputError(where + "." + key + ": expected a positive value");
  return static_cast<std::int64_t>(*v);
}

}  // namespace

Hardware read_profile(const json &profile) {
  Hardware hw;
  if (!profile.is_object()) throw InputError("profile: expected a perfbound.profile/1 object");
  hw.name = profile.value("name", "");
  hw.aiv = profile_int(profile, "cores", "aiv");
  hw.aic = profile_int(profile, "cores", "aic");
  hw.ub = profile_int(profile, "buffers", "ub");
  hw.l1 = profile_int(profile, "buffers", "l1");
  hw.l0c = profile_int(profile, "buffers", "l0c");
  return hw;
}

}  // namespace perfbound::ttir
