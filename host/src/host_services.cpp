//===- host_services.cpp - the pb_host table and logging ------------------===//
#include "host_services.hpp"

#include <cstring>
#include <iostream>

#include "version.hpp"

namespace perfbound {
namespace {
thread_local CallScope *t_current_scope = nullptr;
}  // namespace

const char *pb_severity_name(pb_severity severity) {
  switch (severity) {
    case PB_SEVERITY_DEBUG: return "debug";
    case PB_SEVERITY_INFO: return "info";
    case PB_SEVERITY_WARNING: return "warning";
    case PB_SEVERITY_ERROR: return "error";
    case PB_SEVERITY_HOST_MISBEHAVING: return "host misbehaving";
    case PB_SEVERITY_PLUGIN_MISBEHAVING: return "plugin misbehaving";
  }
  return "error";
}

void Logger::set_writer(std::function<void(const std::string &)> writer) {
  std::lock_guard<std::mutex> lock(mutex_);
  writer_ = std::move(writer);
}

void Logger::log(pb_severity severity, std::string_view scope, std::string_view message) {
  if (severity < min_severity_) return;
  std::string line = "perfbound: ";
  line += pb_severity_name(severity);
  line += ": ";
  if (!scope.empty()) {
    line += scope;
    line += ": ";
  }
  line += message;
  std::lock_guard<std::mutex> lock(mutex_);
  if (writer_)
    writer_(line);
  else
    std::cerr << line << '\n';
}

CallScope::CallScope(std::string scope) : scope_(std::move(scope)), previous_(t_current_scope) {
  t_current_scope = this;
}
CallScope::~CallScope() { t_current_scope = previous_; }
CallScope *CallScope::current() { return t_current_scope; }

std::string CallScope::error_summary() const {
  std::string out;
  for (const LogMessage &m : messages_) {
    if (m.severity < PB_SEVERITY_ERROR) continue;
    if (!out.empty()) out += "; ";
    out += m.message;
  }
  return out;
}

HostServices::HostServices(Logger &logger) : logger_(logger) {
  host_.struct_size = sizeof(pb_host);
  host_.abi_major = PB_ABI_VERSION_MAJOR;
  host_.abi_minor = PB_ABI_VERSION_MINOR;
  host_.name = "perfbound";
  host_.version = kPerfboundVersion;
  host_.host_data = this;
  host_.log = &HostServices::c_log;
  host_.get_extension = &HostServices::c_get_extension;
  pipeline_ext_.struct_size = sizeof(pb_host_ext_pipeline);
  pipeline_ext_.run = &HostServices::c_run_pipeline;
  profile_ext_.struct_size = sizeof(pb_host_ext_profile);
  profile_ext_.load = &HostServices::c_load_profile;
  plugins_ext_.struct_size = sizeof(pb_host_ext_plugins);
  plugins_ext_.find = &HostServices::c_find_plugins;
  plugins_ext_.get_extension = &HostServices::c_plugin_extension;
}

void HostServices::plugin_log(pb_severity severity, std::string_view message) {
  std::string scope;
  std::string text(message.substr(0, PB_MAX_STRING_LENGTH));
  if (CallScope *cs = CallScope::current()) {
    scope = cs->scope();
    cs->capture({severity, scope, text});
  }
  // Errors of a failing call are reported by the caller with context; print
  // them here only in verbose mode to avoid saying everything twice.
  if (severity >= PB_SEVERITY_ERROR && CallScope::current() != nullptr && logger_.min_severity() > PB_SEVERITY_DEBUG)
    return;
  logger_.log(severity, scope, text);
}

void HostServices::c_log(const pb_host *host, pb_severity severity, const char *message) {
  if (host == nullptr || host->host_data == nullptr) return;
  auto *self = static_cast<HostServices *>(host->host_data);
  self->plugin_log(severity, message != nullptr ? message : "(null message)");
}

const void *HostServices::c_get_extension(const pb_host *host, const char *id) {
  if (host == nullptr || host->host_data == nullptr || id == nullptr) return nullptr;
  auto *self = static_cast<HostServices *>(host->host_data);
  if (std::strcmp(id, PB_HOST_EXT_PIPELINE) == 0 && self->pipeline_runner_) return &self->pipeline_ext_;
  if (std::strcmp(id, PB_HOST_EXT_PROFILE) == 0 && self->profile_provider_) return &self->profile_ext_;
  if (std::strcmp(id, PB_HOST_EXT_PLUGINS) == 0 && self->plugin_directory_.find) return &self->plugins_ext_;
  return nullptr;
}

pb_status HostServices::c_find_plugins(const pb_host *host, const char *extension_id, pb_text_sink sink, void *sink_data) {
  if (host == nullptr || host->host_data == nullptr || extension_id == nullptr || sink == nullptr)
    return PB_ERR_INVALID_ARGUMENT;
  auto *self = static_cast<HostServices *>(host->host_data);
  if (!self->plugin_directory_.find) return PB_ERR_UNSUPPORTED;
  std::string list = self->plugin_directory_.find(extension_id);
  sink(sink_data, list.data(), list.size());
  return PB_OK;
}

const void *HostServices::c_plugin_extension(const pb_host *host, const char *plugin_id, const char *extension_id) {
  if (host == nullptr || host->host_data == nullptr || plugin_id == nullptr || extension_id == nullptr) return nullptr;
  auto *self = static_cast<HostServices *>(host->host_data);
  if (!self->plugin_directory_.get_extension) return nullptr;
  return self->plugin_directory_.get_extension(plugin_id, extension_id);
}

pb_status HostServices::c_load_profile(const pb_host *host, const char *name_or_dir, pb_text_sink sink, void *sink_data) {
  if (host == nullptr || host->host_data == nullptr || name_or_dir == nullptr || sink == nullptr)
    return PB_ERR_INVALID_ARGUMENT;
  auto *self = static_cast<HostServices *>(host->host_data);
  if (!self->profile_provider_) return PB_ERR_UNSUPPORTED;
  std::string doc;
  pb_status status = PB_ERR_INTERNAL;
  try {
    status = self->profile_provider_(name_or_dir, doc);
  } catch (const std::exception &e) {
    self->logger_.log(PB_SEVERITY_ERROR, "host", std::string("profile load failed: ") + e.what());
    return PB_ERR_INTERNAL;
  }
  if (status == PB_OK) sink(sink_data, doc.data(), doc.size());
  return status;
}

pb_status HostServices::c_run_pipeline(const pb_host *host, const char *pipeline_path, uint32_t set_count,
                                       const char *const *sets, pb_text_sink sink, void *sink_data) {
  if (host == nullptr || host->host_data == nullptr || pipeline_path == nullptr || sink == nullptr ||
      (set_count > 0 && sets == nullptr))
    return PB_ERR_INVALID_ARGUMENT;
  auto *self = static_cast<HostServices *>(host->host_data);
  if (!self->pipeline_runner_) return PB_ERR_UNSUPPORTED;
  std::vector<std::string> overrides;
  for (uint32_t idx = 0; idx < set_count; ++idx) {
    if (sets[idx] == nullptr) return PB_ERR_INVALID_ARGUMENT;
    overrides.emplace_back(sets[idx]);
  }
  std::string result;
  pb_status status = PB_ERR_INTERNAL;
  try {
    status = self->pipeline_runner_(pipeline_path, overrides, result);
  } catch (const std::exception &e) {
    self->logger_.log(PB_SEVERITY_ERROR, "host", std::string("pipeline run failed: ") + e.what());
    return PB_ERR_INTERNAL;
  }
  sink(sink_data, result.data(), result.size());
  return status;
}

}  // namespace perfbound
