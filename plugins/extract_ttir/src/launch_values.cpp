//===- launch_values.cpp - the launch and the profile, read ---------------===//
//===----------------------------------------------------------------------===//
#include "launch_values.hpp"

namespace perfbound::ttir {

using pb::sdk::InputError;

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
  auto it = launch.find("args");
  if (it == launch.end()) return out;
  if (!it->is_object()) throw InputError("launch.args: expected an object keyed by argument name or position");
  for (const auto &[key, value] : it->items()) {
    const KernelArg *arg = nullptr;
    for (const KernelArg &a : k.args) {
      if ((!a.name.empty() && a.name == key) || key == "%arg" + std::to_string(a.index) ||
          key == std::to_string(a.index))
        arg = &a;
    }
    if (arg == nullptr) {
      std::string names;
      for (const KernelArg &a : k.args) names += (names.empty() ? "" : ", ") + a.key();
      throw InputError("launch.args." + key + ": kernel '" + k.name + "' has no argument '" + key +
                       "' (arguments: " + names + "; positions may be given as \"%argN\" or \"N\")");
    }
    if (arg->kind != ArgKind::Scalar) {
      out.ignored.push_back(key);
      continue;
    }
    if (!value.is_number() && !value.is_boolean())
      throw InputError("launch.args." + key + ": expected a number, got " + value.dump());
    out.args[arg->key()] = value;
    if (arg->is_float) continue;
    if (value.is_boolean()) {
      out.ints[static_cast<size_t>(arg->index)] = value.get<bool>() ? 1 : 0;
    } else if (value.is_number_integer()) {
      out.ints[static_cast<size_t>(arg->index)] = value.get<std::int64_t>();
    } else {
      double v = value.get<double>();
      if (v != std::floor(v) || std::fabs(v) > 9.0e18)
        throw InputError("launch.args." + key + ": argument '" + arg->key() + "' is " + arg->element_type +
                         ", got the non-integer " + value.dump());
      out.ints[static_cast<size_t>(arg->index)] = static_cast<std::int64_t>(v);
    }
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
