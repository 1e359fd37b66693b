//===- run_context.cpp - the host side of pb_run_context ------------------===//
#include "run_context.hpp"

#include "engine.hpp"

namespace perfbound {

NodeRunContext::NodeRunContext(std::string node_id, const KindInfo &kind, Logger &logger)
    : node_id_(std::move(node_id)), kind_(kind), logger_(logger) {
  c_.struct_size = sizeof(pb_run_context);
  c_.host_data = this;
  c_.node_id = node_id_.c_str();
  c_.input_count = &NodeRunContext::c_input_count;
  c_.input = &NodeRunContext::c_input;
  c_.set_output = &NodeRunContext::c_set_output;
  c_.log = &NodeRunContext::c_log;
  c_.progress = &NodeRunContext::c_progress;
  c_.cancelled = &NodeRunContext::c_cancelled;
}

void NodeRunContext::add_input(const std::string &port, DocumentPtr doc) { inputs_[port].push_back(std::move(doc)); }

NodeRunContext &NodeRunContext::of(const pb_run_context *ctx) { return *static_cast<NodeRunContext *>(ctx->host_data); }

uint32_t NodeRunContext::c_input_count(const pb_run_context *ctx, const char *port) {
  if (ctx == nullptr || port == nullptr) return 0;
  NodeRunContext &self = of(ctx);
  auto it = self.inputs_.find(std::string_view(port));
  return it == self.inputs_.end() ? 0 : static_cast<uint32_t>(it->second.size());
}

const pb_document *NodeRunContext::c_input(const pb_run_context *ctx, const char *port, uint32_t index) {
  if (ctx == nullptr || port == nullptr) return nullptr;
  NodeRunContext &self = of(ctx);
  auto it = self.inputs_.find(std::string_view(port));
  if (it == self.inputs_.end() || index >= it->second.size()) return nullptr;
  return it->second[index]->view();
}

pb_status NodeRunContext::c_set_output(const pb_run_context *ctx, const char *port, const char *data, size_t size) {
  if (ctx == nullptr) return PB_ERR_INVALID_ARGUMENT;
  NodeRunContext &self = of(ctx);
  std::lock_guard<std::mutex> lock(self.mutex_);
  if (port == nullptr || (data == nullptr && size > 0)) {
    self.misuse_.emplace_back("set_output called with a NULL argument");
    return PB_ERR_INVALID_ARGUMENT;
  }
  if (self.kind_.find_output(port) == nullptr) {
    self.misuse_.push_back(std::string("set_output for undeclared output port '") + port + "'");
    return PB_ERR_INVALID_ARGUMENT;
  }
  if (self.outputs_.count(std::string_view(port)) != 0) {
    self.misuse_.push_back(std::string("set_output called twice for port '") + port + "'");
    return PB_ERR_INVALID_ARGUMENT;
  }
  self.outputs_.emplace(port, std::string(data != nullptr ? data : "", size));
  return PB_OK;
}

void NodeRunContext::c_log(const pb_run_context *ctx, pb_severity severity, const char *message) {
  if (ctx == nullptr) return;
  NodeRunContext &self = of(ctx);
  std::string text = message != nullptr ? std::string(message).substr(0, PB_MAX_STRING_LENGTH) : "(null)";
  const std::string scope = "node '" + self.node_id_ + "'";
  {
    std::lock_guard<std::mutex> lock(self.mutex_);
    self.messages_.push_back({severity, scope, text});
  }
  // Errors are reported with the failure; print the rest as they come.
  if (severity < PB_SEVERITY_ERROR) self.logger_.log(severity, scope, text);
}

void NodeRunContext::c_progress(const pb_run_context *ctx, double fraction, const char *message) {
  if (ctx == nullptr) return;
  NodeRunContext &self = of(ctx);
  if (!self.progress_sink_) return;
  std::lock_guard<std::mutex> lock(self.mutex_);
  auto now = std::chrono::steady_clock::now();
  if (fraction < 1.0 && now - self.last_progress_ < std::chrono::milliseconds(100)) return;
  self.last_progress_ = now;
  std::string line = "[" + self.node_id_ + "] ";
  if (fraction >= 0) line += std::to_string(static_cast<int>(fraction * 100 + 0.5)) + "% ";
  if (message != nullptr) line += message;
  self.progress_sink_(line);
}

pb_bool NodeRunContext::c_cancelled(const pb_run_context *ctx) {
  if (ctx == nullptr) return PB_FALSE;
  NodeRunContext &self = of(ctx);
  const bool cancelled = (self.cancel_ != nullptr && self.cancel_->load()) || (self.stop_ != nullptr && self.stop_->load());
  return cancelled ? PB_TRUE : PB_FALSE;
}

}  // namespace perfbound
