//===- backend.hpp - finding, validating and driving timing backends -------===//
//
// Backends are other plugins offering perfbound.ext.timing_backend/1. The
// harness finds them through the host (perfbound.host.plugins/1), checks the
// table they return like the host checks a descriptor, and wraps the C calls
// in RAII objects whose failures throw pb::sdk::InfraError with the backend's
// own message.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_BACKEND_HPP
#define PERFBOUND_TIMING_BACKEND_HPP

#include <optional>
#include <string>
#include <vector>

#include <perfbound/sdk/plugin.hpp>

#include "testlist.hpp"

namespace pb::bench {

/// A plugin that offers a timing backend, as the host lists it (not loaded).
struct BackendListing {
  std::string plugin_id;
  std::string version;
  std::string library;
};

std::vector<BackendListing> list_backends(const pb::sdk::Host &host);

/// Why `table` is not a usable timing backend table, or nullopt.
std::optional<std::string> validate_backend_table(const pb_ext_timing_backend *table);

class Backend {
 public:
  /// Resolves `selector` (a backend name such as "cpu", or a plugin id) among
  /// the listed backends, loads that plugin and validates its table. Throws
  /// pb::sdk::InputError naming the available backends when none matches,
  /// pb::sdk::InfraError when the plugin cannot be loaded.
  static Backend load(const pb::sdk::Host &host, const std::string &selector);

  [[nodiscard]] const pb_ext_timing_backend &table() const { return *table_; }
  [[nodiscard]] std::string name() const { return table_->name; }
  [[nodiscard]] const BackendListing &listing() const { return listing_; }
  /// {"name", "plugin", "version", "library", "event_clock", "shield_method", "flush_method"}
  [[nodiscard]] json to_json() const;

  /// nullopt when the backend can run `shape`, else its reason.
  [[nodiscard]] std::optional<std::string> unsupported(const GemmShape &shape) const;
  /// Throws pb::sdk::InfraError (no driver, no device).
  [[nodiscard]] uint32_t device_count() const;
  [[nodiscard]] json describe_device(uint32_t device_index) const;

 private:
  Backend(const pb_ext_timing_backend *table, BackendListing listing) : table_(table), listing_(std::move(listing)) {}
  const pb_ext_timing_backend *table_;
  BackendListing listing_;
};

pb_timing_gemm_desc gemm_desc(const GemmShape &shape);

/// One opened device. Not copyable; closes on destruction.
class Session {
 public:
  Session(const Backend &backend, uint32_t device_index);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Throws pb::sdk::InfraError "<what>: <backend's last_error>" unless PB_OK.
  void check(pb_status status, const char *what) const;
  [[nodiscard]] const pb_ext_timing_backend &table() const { return *table_; }
  [[nodiscard]] pb_timing_session *raw() const { return session_; }

 private:
  const pb_ext_timing_backend *table_;
  pb_timing_session *session_ = nullptr;
};

/// A GEMM with its device buffers.
class Gemm {
 public:
  Gemm(Session &session, const GemmShape &shape, const void *a, const void *b);
  ~Gemm();
  Gemm(const Gemm &) = delete;
  Gemm &operator=(const Gemm &) = delete;
  void enqueue();
  std::vector<unsigned char> read_output();

 private:
  Session &session_;
  GemmShape shape_;
  pb_timing_gemm *gemm_ = nullptr;
};

class Event {
 public:
  explicit Event(Session &session);
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  Event(Event &&other) noexcept : session_(other.session_), event_(other.event_) { other.event_ = nullptr; }
  void record();
  [[nodiscard]] pb_timing_event *raw() const { return event_; }

 private:
  Session &session_;
  pb_timing_event *event_ = nullptr;
};

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_BACKEND_HPP
