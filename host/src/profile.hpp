//===- profile.hpp - hardware profiles: TOML with units -> profile document ===//
//
// A hardware target is a directory of data (ARCHITECTURE §4):
//   profile.toml      every number as { value, unit, source }
//   calibration.json  measured constants (optional; perfbound.calibration/1)
// Loading converts every quantity to its canonical unit (B, Hz, s, B/s,
// B/cycle, FLOP/cycle, FLOP/s, cycle, 1), rejects unknown units and
// quantities of the wrong dimension, and produces the perfbound.profile/1
// document that model nodes read. Nothing about a target is compiled in.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_PROFILE_HPP
#define PERFBOUND_HOST_PROFILE_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnostics.hpp"
#include "engine.hpp"
#include "expected.hpp"

namespace perfbound {

using json = nlohmann::json;

/// The profile file format version this host reads.
inline constexpr int64_t kProfileFormatVersion = 1;

enum class Dimension {
  Count,         // "1"
  Ratio,         // "ratio", a dimensionless fraction
  Bytes,         // "B"
  Frequency,     // "Hz"
  Time,          // "s"
  Cycles,        // "cycle"
  Bandwidth,     // "B/s"
  BytesPerCycle, // "B/cycle"
  FlopPerCycle,  // "FLOP/cycle"
  FlopPerSecond, // "FLOP/s"
  RepeatsPerCycle, // "repeat/cycle"
};

const char *dimension_name(Dimension d);
const char *canonical_unit(Dimension d);

struct UnitConversion {
  Dimension dimension;
  double factor;  // value_in_canonical = value * factor
};

/// Looks up a unit as written in a profile ("GHz", "KiB", "TB/s").
std::optional<UnitConversion> parse_unit(std::string_view unit);
/// Every unit the loader understands (for error messages).
std::vector<std::string> known_units();

struct ProfileLoad {
  json document;                              // perfbound.profile/1 (valid only without errors)
  std::vector<std::filesystem::path> files;   // files read
  Diagnostics diagnostics;
};

/// Loads and checks a profile directory. Every problem is a diagnostic with
/// file, line and key.
ProfileLoad load_profile(const std::filesystem::path &dir);

/// The engine's ProfileLoader: errors become one message.
Expected<LoadedProfile> load_profile_document(const std::filesystem::path &dir);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_PROFILE_HPP
