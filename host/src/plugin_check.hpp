//===- plugin_check.hpp - `perfbound plugin check`: a plugin validator -----===//
//
// The clap-validator idea: load one library and exercise every rule of the
// ABI - negotiation, descriptor fields, extensions, and create/run/destroy of
// every node kind (with the plugin's own examples when it offers
// "perfbound.ext.examples/1"). Each kind is exercised in a child process so a
// crash is reported as a finding instead of killing the checker.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_PLUGIN_CHECK_HPP
#define PERFBOUND_HOST_PLUGIN_CHECK_HPP

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host_services.hpp"
#include "json_schema.hpp"

namespace perfbound {

struct CheckFinding {
  std::string check;   // e.g. "descriptor", "kind 'sum' example 'two numbers'"
  std::string status;  // "pass", "fail", "skip"
  std::string detail;
};

struct PluginCheckReport {
  std::filesystem::path library;
  std::string plugin_id;
  std::vector<CheckFinding> findings;
  [[nodiscard]] size_t failures() const;
  [[nodiscard]] nlohmann::json to_json() const;
  [[nodiscard]] std::string to_text() const;
};

PluginCheckReport check_plugin(const std::filesystem::path &library, HostServices &host, const SchemaRegistry &schemas);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_PLUGIN_CHECK_HPP
