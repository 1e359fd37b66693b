//===- plugin_info.hpp - what the host knows about a plugin ---------------===//
//
// A PluginInfo is the host-side copy of a plugin's descriptor. It is built
// either from the live C tables of a loaded library (describe_plugin) or from
// the manifest next to it (from_manifest), so the rest of the host - lint,
// print-resolved, `perfbound plugins` - never touches plugin memory and never
// needs to load a library just to know what it offers.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_PLUGIN_INFO_HPP
#define PERFBOUND_HOST_PLUGIN_INFO_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "expected.hpp"
#include "perfbound/perfbound.h"

namespace perfbound {

using json = nlohmann::json;

struct PortInfo {
  std::string name;
  std::string schema;
  uint32_t flags = 0;
  std::string description;
  std::string one_of;  // group of alternative inputs (ABI 1.1): exactly one of the group is connected
  [[nodiscard]] bool optional() const { return (flags & PB_PORT_OPTIONAL) != 0; }
  [[nodiscard]] bool multi() const { return (flags & PB_PORT_MULTI) != 0; }
};

struct ParamInfo {
  std::string name;
  pb_param_type type = PB_PARAM_JSON;
  bool required = false;
  json default_value;                 // null when required
  std::optional<json> choices;        // JSON array
  std::string description;
  // ABI 1.2: the meaningful range of an int or float parameter.
  std::optional<double> minimum;
  std::optional<double> maximum;
  bool minimum_exclusive = false;
  bool maximum_exclusive = false;

  /// "" when `value` (a number) lies in the range; else why not, e.g.
  /// "must be > 0 and <= 1024, got 0". NaN and infinity never lie in it.
  [[nodiscard]] std::string range_problem(double value) const;
  /// "> 0 and <= 1024" (or "" without a range).
  [[nodiscard]] std::string range_text() const;
};

struct KindInfo {
  std::string name;
  std::string description;
  std::vector<PortInfo> inputs;
  std::vector<PortInfo> outputs;
  std::vector<ParamInfo> params;

  [[nodiscard]] const PortInfo *find_input(std::string_view port) const;
  [[nodiscard]] const PortInfo *find_output(std::string_view port) const;
  [[nodiscard]] const ParamInfo *find_param(std::string_view name) const;
};

struct CommandInfo {
  std::string name;
  std::string summary;
};

struct PluginInfo {
  std::string id;
  std::string name;
  std::string version;
  std::string vendor;
  std::string description;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::vector<KindInfo> kinds;
  std::vector<CommandInfo> commands;
  std::vector<std::string> extensions;  // well-known extension ids it offers

  std::filesystem::path library;        // absolute path of the shared library
  std::filesystem::path manifest;       // empty when described by loading
  std::string described_by;             // "manifest" or "library"

  [[nodiscard]] const KindInfo *find_kind(std::string_view kind) const;
  [[nodiscard]] std::vector<std::string> kind_names() const;

  /// The "plugin" object of a manifest (everything but file locations).
  [[nodiscard]] json descriptor_json() const;
  /// A full manifest for `library_file_name`.
  [[nodiscard]] json manifest_json(const std::string &library_file_name) const;
};

/// Name of a parameter type as written in manifests and messages ("int").
const char *param_type_name(pb_param_type type);
std::optional<pb_param_type> param_type_from_name(std::string_view name);

/// True when `value` has the JSON type a parameter of `type` needs.
bool param_value_matches(pb_param_type type, const json &value);

/// Well-known extension ids the host probes and records in manifests.
const std::vector<std::string> &known_extension_ids();

/// Builds a PluginInfo from a descriptor_json() object (no file locations).
Expected<PluginInfo> plugin_info_from_json(const json &descriptor, const std::string &where);

/// Reads and checks a manifest file. The library path is resolved relative
/// to the manifest's directory.
Expected<PluginInfo> read_manifest(const std::filesystem::path &manifest_path);

/// Reads every field of a negotiated plugin's C descriptor, checking each
/// against the ABI rules. Returns the info plus every violation found; the
/// loader refuses a plugin with any violation, the checker prints them all.
struct DescribeResult {
  PluginInfo info;
  std::vector<std::string> violations;
};
DescribeResult describe_plugin(const pb_plugin *plugin, uint32_t abi_major, uint32_t abi_minor);

/// Regular-expression checks shared by the loader and the pipeline parser.
bool is_valid_plugin_id(std::string_view id);
bool is_valid_name(std::string_view name);          // [a-z][a-z0-9_]*
bool is_valid_command_name(std::string_view name);  // [a-z][a-z0-9-]*

}  // namespace perfbound

#endif  // PERFBOUND_HOST_PLUGIN_INFO_HPP
