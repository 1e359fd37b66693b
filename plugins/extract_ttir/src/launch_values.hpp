//===- launch_values.hpp - the launch and the profile, read ---------------===//
//
// What a perfbound.launch/1 table and a perfbound.profile/1 document say
// that the evaluation needs: the grid and the integer value of each scalar
// argument of one kernel (by name, "%argN" or "N"), and the core counts and
// on-chip buffer sizes. Throws pb::sdk::InputError for values that cannot be
// used.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_LAUNCH_VALUES_HPP
#define PERFBOUND_EXTRACT_TTIR_LAUNCH_VALUES_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts_json.hpp"

namespace perfbound::ttir {

struct LaunchValues {
  std::int64_t grid[3] = {1, 1, 1};
  std::int64_t programs = 1;
  std::vector<std::optional<std::int64_t>> ints;
  /// Pointer arguments given an integer value (an address): their bytes lie in
  /// one address space at those addresses, so two of them may overlap.
  std::vector<std::optional<std::int64_t>> pointers;
  json args = json::object();
  std::vector<std::string> ignored;
};

LaunchValues resolve_launch(const KernelModel &k, const json &launch);

struct Hardware {
  std::string name;
  std::int64_t aiv = 0, aic = 0, ub = 0, l1 = 0, l0c = 0;
};

Hardware read_profile(const json &profile);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_LAUNCH_VALUES_HPP
