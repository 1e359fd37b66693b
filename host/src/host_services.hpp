//===- host_services.hpp - the pb_host table, logging and call scopes -----===//
//
// One HostServices object backs the `pb_host` every plugin receives. Messages
// a plugin logs are attributed to the node or command being called through a
// thread-local CallScope, which also captures them so a failing call can be
// reported with its own explanation.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_HOST_SERVICES_HPP
#define PERFBOUND_HOST_HOST_SERVICES_HPP

#include <functional>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "perfbound/perfbound.h"

namespace perfbound {

struct LogMessage {
  pb_severity severity = PB_SEVERITY_INFO;
  std::string scope;
  std::string message;
};

const char *pb_severity_name(pb_severity severity);

/// Prints log lines to stderr ("perfbound: warning: [node 'x'] message"),
/// filtered by a minimum severity. Thread-safe.
class Logger {
 public:
  void set_min_severity(pb_severity severity) { min_severity_ = severity; }
  [[nodiscard]] pb_severity min_severity() const { return min_severity_; }
  /// Redirects output (tests); the default writes to stderr.
  void set_writer(std::function<void(const std::string &line)> writer);
  void log(pb_severity severity, std::string_view scope, std::string_view message);
  /// In a child process just forked from a threaded host: another thread
  /// may have held the lock at the fork, so it is made anew (the child has
  /// one thread).
  void after_fork_in_child() { new (&mutex_) std::mutex(); }

 private:
  pb_severity min_severity_ = PB_SEVERITY_WARNING;
  std::function<void(const std::string &)> writer_;
  std::mutex mutex_;
};

/// While alive, plugin log messages on this thread are attributed to `scope`
/// and captured. Nests (the innermost scope wins).
class CallScope {
 public:
  explicit CallScope(std::string scope);
  ~CallScope();
  CallScope(const CallScope &) = delete;
  CallScope &operator=(const CallScope &) = delete;

  [[nodiscard]] const std::vector<LogMessage> &messages() const { return messages_; }
  /// ERROR-or-worse messages joined with "; " (the failure reason).
  [[nodiscard]] std::string error_summary() const;
  void capture(LogMessage message) { messages_.push_back(std::move(message)); }
  [[nodiscard]] const std::string &scope() const { return scope_; }

  static CallScope *current();

 private:
  std::string scope_;
  std::vector<LogMessage> messages_;
  CallScope *previous_;
};

/// Runs a pipeline on behalf of a plugin (the "perfbound.host.pipeline/1"
/// extension). Implemented by the CLI layer, which owns the engine.
using PipelineRunner = std::function<pb_status(const std::string &pipeline_path,
                                               const std::vector<std::string> &sets, std::string &result_json)>;

/// Loads a profile by name or directory into perfbound.profile/1 JSON (the
/// "perfbound.host.profile/1" extension). Implemented by the CLI layer.
using ProfileProvider = std::function<pb_status(const std::string &name_or_dir, std::string &profile_json)>;

/// Finds plugins offering an extension and hands out their tables (the
/// "perfbound.host.plugins/1" extension). Implemented by the CLI layer over
/// the plugin registry.
struct PluginDirectory {
  std::function<std::string(const std::string &extension_id)> find;  // JSON array text
  std::function<const void *(const std::string &plugin_id, const std::string &extension_id)> get_extension;
};

class HostServices {
 public:
  explicit HostServices(Logger &logger);
  HostServices(const HostServices &) = delete;
  HostServices &operator=(const HostServices &) = delete;

  [[nodiscard]] const pb_host *c_host() const { return &host_; }
  [[nodiscard]] Logger &logger() { return logger_; }
  void set_pipeline_runner(PipelineRunner runner) { pipeline_runner_ = std::move(runner); }
  void set_profile_provider(ProfileProvider provider) { profile_provider_ = std::move(provider); }
  void set_plugin_directory(PluginDirectory directory) { plugin_directory_ = std::move(directory); }

  /// Logs on behalf of a plugin: captured by the current CallScope and
  /// printed with its scope.
  void plugin_log(pb_severity severity, std::string_view message);

 private:
  static void c_log(const pb_host *host, pb_severity severity, const char *message);
  static const void *c_get_extension(const pb_host *host, const char *id);
  static pb_status c_find_plugins(const pb_host *host, const char *extension_id, pb_text_sink sink, void *sink_data);
  static const void *c_plugin_extension(const pb_host *host, const char *plugin_id, const char *extension_id);
  static pb_status c_load_profile(const pb_host *host, const char *name_or_dir, pb_text_sink sink, void *sink_data);
  static pb_status c_run_pipeline(const pb_host *host, const char *pipeline_path, uint32_t set_count,
                                   const char *const *sets, pb_text_sink sink, void *sink_data);

  Logger &logger_;
  pb_host host_{};
  pb_host_ext_pipeline pipeline_ext_{};
  pb_host_ext_profile profile_ext_{};
  pb_host_ext_plugins plugins_ext_{};
  PluginDirectory plugin_directory_;
  PipelineRunner pipeline_runner_;
  ProfileProvider profile_provider_;
};

}  // namespace perfbound

#endif  // PERFBOUND_HOST_HOST_SERVICES_HPP
