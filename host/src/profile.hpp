//===- profile.hpp - hardware profiles: TOML with units -> profile document ===//
//
// A hardware target is a directory of data (ARCHITECTURE §4):
//   profile.toml      every number as { value, unit, source }
//   calibration.json  measured constants (optional; perfbound.calibration/1)
// Loading converts every quantity to its canonical unit (B, Hz, s, B/s,
// B/cycle, FLOP/cycle, FLOP/s, cycle, 1) with the unit table of
// <perfbound/sdk/units.hpp>, rejects unknown units and quantities of the
// wrong dimension, checks required keys, sane ranges and the calibration
// database (a measured peak may not beat its theoretical peak by more than
// its confidence interval), and produces the perfbound.profile/1 document
// that model nodes read. Nothing about a target is compiled in.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_PROFILE_HPP
#define PERFBOUND_HOST_PROFILE_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <perfbound/sdk/units.hpp>

#include "diagnostics.hpp"
#include "engine.hpp"
#include "expected.hpp"

namespace perfbound {

using json = nlohmann::json;

/// The profile file format version this host reads.
inline constexpr int64_t kProfileFormatVersion = 1;

using Dimension = pb::units::Dimension;
using UnitConversion = pb::units::UnitSpec;

/// Looks up a unit as written in a profile ("GHz", "KiB", "TB/s").
std::optional<UnitConversion> parse_unit(std::string_view unit);
/// Every unit the loader understands (for error messages).
std::vector<std::string> known_units();

/// A sane range for a key (or a key prefix ending in '.'), in the key's
/// canonical unit. A value outside it is almost always a unit mistake
/// ("192 B" for a UB), so it is an error. docs/profiles.md prints this table.
struct RangeRule {
  std::string_view key;
  Dimension dimension;
  double min;
  double max;
  bool integral;  // must be a whole number (cores, byte sizes)
};
const std::vector<RangeRule> &profile_ranges();

/// A value in its canonical unit written for people: 1.8e9 Hz -> "1.8 GHz",
/// 196608 B -> "192 KiB", 1.6e12 B/s -> "1.6 TB/s" (pb::units::human).
inline std::string human_quantity(double value, Dimension dimension) { return pb::units::human(value, dimension); }

struct ProfileLoad {
  json document;                              // perfbound.profile/1 (valid only without errors)
  std::vector<std::filesystem::path> files;   // files read
  Diagnostics diagnostics;                    // errors and warnings, each with file, line and key
};

/// Loads and checks a profile directory. Every problem is a diagnostic with
/// file, line and key. Paths in messages are `dir` as given.
ProfileLoad load_profile(const std::filesystem::path &dir);

/// The engine's ProfileLoader: errors become one message.
Expected<LoadedProfile> load_profile_document(const std::filesystem::path &dir);

/// `perfbound profile show`: one table of every quantity (key, value in the
/// canonical unit, a human form, kind, source), then the calibration
/// constants. `doc` is a perfbound.profile/1 document.
std::string render_profile_table(const json &doc);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_PROFILE_HPP
