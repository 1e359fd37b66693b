//===- run_context.hpp - the host side of pb_run_context ------------------===//
//
// One NodeRunContext backs the pb_run_context handed to a node's run(): it
// serves the node's input documents, copies its outputs, records log
// messages and progress, and notes every contract violation (an undeclared
// output, an output set twice) so the caller can report plugin misbehaviour.
// Used by the engine and by `perfbound plugin check`.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_RUN_CONTEXT_HPP
#define PERFBOUND_HOST_RUN_CONTEXT_HPP

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "host_services.hpp"
#include "plugin_info.hpp"

namespace perfbound {

class Document;
using DocumentPtr = std::shared_ptr<const Document>;

class NodeRunContext {
 public:
  NodeRunContext(std::string node_id, const KindInfo &kind, Logger &logger);
  NodeRunContext(const NodeRunContext &) = delete;
  NodeRunContext &operator=(const NodeRunContext &) = delete;

  void add_input(const std::string &port, DocumentPtr doc);
  void set_progress_sink(std::function<void(const std::string &)> sink) { progress_sink_ = std::move(sink); }
  void set_cancel_flag(const std::atomic<bool> *cancel) { cancel_ = cancel; }
  /// A second flag that also makes cancelled() true: this node's own stop
  /// request (its deadline passed).
  void set_stop_flag(const std::atomic<bool> *stop) { stop_ = stop; }

  [[nodiscard]] const pb_run_context *c() const { return &c_; }
  /// Raw output bytes by port, as copied from set_output.
  std::map<std::string, std::string, std::less<>> &outputs() { return outputs_; }
  [[nodiscard]] const std::vector<std::string> &misuse() const { return misuse_; }
  [[nodiscard]] const std::vector<LogMessage> &messages() const { return messages_; }

 private:
  static NodeRunContext &of(const pb_run_context *ctx);
  static uint32_t c_input_count(const pb_run_context *ctx, const char *port);
  static const pb_document *c_input(const pb_run_context *ctx, const char *port, uint32_t index);
  static pb_status c_set_output(const pb_run_context *ctx, const char *port, const char *data, size_t size);
  static void c_log(const pb_run_context *ctx, pb_severity severity, const char *message);
  static void c_progress(const pb_run_context *ctx, double fraction, const char *message);
  static pb_bool c_cancelled(const pb_run_context *ctx);

  pb_run_context c_{};
  std::string node_id_;
  const KindInfo &kind_;
  Logger &logger_;
  std::map<std::string, std::vector<DocumentPtr>, std::less<>> inputs_;
  std::map<std::string, std::string, std::less<>> outputs_;
  std::vector<std::string> misuse_;
  std::vector<LogMessage> messages_;
  std::function<void(const std::string &)> progress_sink_;
  const std::atomic<bool> *cancel_ = nullptr;
  const std::atomic<bool> *stop_ = nullptr;
  std::chrono::steady_clock::time_point last_progress_{};
  std::mutex mutex_;
};

}  // namespace perfbound

#endif  // PERFBOUND_HOST_RUN_CONTEXT_HPP
