//===- backend.cpp - finding, validating and driving timing backends -------===//
#include "backend.hpp"

#include <regex>

namespace pb::bench {

namespace {

void append_to_string(void *data, const char *text, size_t size) { static_cast<std::string *>(data)->append(text, size); }

const pb_host_ext_plugins &plugins_extension(const pb::sdk::Host &host) {
  const auto *plugins = host.extension<pb_host_ext_plugins>(PB_HOST_EXT_PLUGINS);
  if (plugins == nullptr || plugins->struct_size < sizeof(pb_host_ext_plugins) || plugins->find == nullptr ||
      plugins->get_extension == nullptr)
    throw pb::sdk::InfraError("the host does not offer " + std::string(PB_HOST_EXT_PLUGINS) +
                              ", which perfbound bench needs to find timing backends");
  return *plugins;
}

std::string last_component(const std::string &plugin_id) {
  size_t dot = plugin_id.rfind('.');
  return dot == std::string::npos ? plugin_id : plugin_id.substr(dot + 1);
}

}  // namespace

std::vector<BackendListing> list_backends(const pb::sdk::Host &host) {
  const pb_host_ext_plugins &plugins = plugins_extension(host);
  std::string text;
  if (plugins.find(host.raw(), PB_EXT_TIMING_BACKEND, append_to_string, &text) != PB_OK)
    throw pb::sdk::InfraError("the host could not list timing backends");
  json list = json::parse(text, nullptr, false);
  if (!list.is_array()) throw pb::sdk::InfraError("the host listed timing backends as something other than a JSON array");
  std::vector<BackendListing> out;
  for (const json &entry : list)
    out.push_back({entry.value("id", ""), entry.value("version", ""), entry.value("library", "")});
  return out;
}

std::optional<std::string> validate_backend_table(const pb_ext_timing_backend *table) {
  if (table == nullptr) return "the plugin returned no table";
  if (table->struct_size < sizeof(pb_ext_timing_backend))
    return "struct_size " + std::to_string(table->struct_size) + " is smaller than revision 1's " +
           std::to_string(sizeof(pb_ext_timing_backend));
  static const std::regex kName("^[a-z][a-z0-9_]*$");
  if (table->name == nullptr || !std::regex_match(table->name, kName)) return "name is NULL or not [a-z][a-z0-9_]*";
  if (table->event_clock == nullptr || table->shield_method == nullptr || table->flush_method == nullptr)
    return "event_clock, shield_method or flush_method is NULL";
  const void *functions[] = {
      reinterpret_cast<const void *>(table->device_count),   reinterpret_cast<const void *>(table->describe_device),
      reinterpret_cast<const void *>(table->gemm_supported), reinterpret_cast<const void *>(table->open),
      reinterpret_cast<const void *>(table->close),          reinterpret_cast<const void *>(table->last_error),
      reinterpret_cast<const void *>(table->gemm_create),    reinterpret_cast<const void *>(table->gemm_enqueue),
      reinterpret_cast<const void *>(table->gemm_read_output), reinterpret_cast<const void *>(table->gemm_destroy),
      reinterpret_cast<const void *>(table->event_create),   reinterpret_cast<const void *>(table->event_destroy),
      reinterpret_cast<const void *>(table->event_record),   reinterpret_cast<const void *>(table->event_elapsed_us),
      reinterpret_cast<const void *>(table->shield_enqueue), reinterpret_cast<const void *>(table->shield_release),
      reinterpret_cast<const void *>(table->flush_enqueue),  reinterpret_cast<const void *>(table->synchronize),
  };
  for (const void *function : functions)
    if (function == nullptr) return "a required function pointer is NULL";
  return std::nullopt;
}

Backend Backend::load(const pb::sdk::Host &host, const std::string &selector) {
  std::vector<BackendListing> listings = list_backends(host);
  const BackendListing *chosen = nullptr;
  for (const BackendListing &listing : listings)
    if (listing.plugin_id == selector) chosen = &listing;
  if (chosen == nullptr)
    for (const BackendListing &listing : listings)
      if (last_component(listing.plugin_id) == "timing_" + selector) chosen = &listing;
  if (chosen == nullptr) {
    std::string available;
    for (const BackendListing &listing : listings)
      available += (available.empty() ? "" : ", ") + listing.plugin_id;
    throw pb::sdk::InputError("no timing backend '" + selector +
                              "' on the plugin search path (give a name such as 'cpu' or a plugin id); available: " +
                              (available.empty() ? "none" : available));
  }
  const pb_host_ext_plugins &plugins = plugins_extension(host);
  const auto *table = static_cast<const pb_ext_timing_backend *>(
      plugins.get_extension(host.raw(), chosen->plugin_id.c_str(), PB_EXT_TIMING_BACKEND));
  if (table == nullptr)
    throw pb::sdk::InfraError("timing backend plugin '" + chosen->plugin_id + "' (" + chosen->library +
                              ") could not be loaded or no longer offers " + PB_EXT_TIMING_BACKEND +
                              " (run with -v for the host's reason)");
  if (auto problem = validate_backend_table(table))
    throw pb::sdk::InfraError("timing backend plugin '" + chosen->plugin_id + "' is malformed: " + *problem);
  if (selector != chosen->plugin_id && selector != table->name)
    throw pb::sdk::InputError("plugin '" + chosen->plugin_id + "' offers backend '" + table->name + "', not '" + selector + "'");
  return Backend(table, *chosen);
}

json Backend::to_json() const {
  return json{{"name", table_->name},
              {"plugin", listing_.plugin_id},
              {"version", listing_.version},
              {"library", listing_.library},
              {"event_clock", table_->event_clock},
              {"shield_method", table_->shield_method},
              {"flush_method", table_->flush_method}};
}

pb_timing_gemm_desc gemm_desc(const GemmShape &shape) {
  pb_timing_gemm_desc desc{};
  desc.struct_size = sizeof(pb_timing_gemm_desc);
  desc.a_dtype = dtype_abi_id(shape.a);
  desc.b_dtype = dtype_abi_id(shape.b);
  desc.out_dtype = dtype_abi_id(shape.out);
  desc.m = shape.m;
  desc.n = shape.n;
  desc.k = shape.k;
  return desc;
}

std::optional<std::string> Backend::unsupported(const GemmShape &shape) const {
  pb_timing_gemm_desc desc = gemm_desc(shape);
  std::string reason;
  pb_status status = table_->gemm_supported(&desc, append_to_string, &reason);
  if (status == PB_OK) return std::nullopt;
  if (reason.empty()) reason = "gemm_supported returned status " + std::to_string(status);
  return "backend " + name() + ": " + reason;
}

uint32_t Backend::device_count() const {
  uint32_t count = 0;
  std::string reason;
  if (table_->device_count(&count, append_to_string, &reason) != PB_OK)
    throw pb::sdk::InfraError("backend " + name() + ": no usable device: " + (reason.empty() ? "(no reason given)" : reason));
  return count;
}

json Backend::describe_device(uint32_t device_index) const {
  std::string text;
  if (table_->describe_device(device_index, append_to_string, &text) != PB_OK)
    throw pb::sdk::InfraError("backend " + name() + ": cannot describe device " + std::to_string(device_index) + ": " + text);
  json identity = json::parse(text, nullptr, false);
  if (!identity.is_object())
    throw pb::sdk::InfraError("backend " + name() + ": describe_device returned something other than a JSON object");
  return identity;
}

Session::Session(const Backend &backend, uint32_t device_index) : table_(&backend.table()) {
  std::string reason;
  pb_status status = table_->open(device_index, &session_, append_to_string, &reason);
  if (status != PB_OK || session_ == nullptr)
    throw pb::sdk::InfraError("backend " + backend.name() + ": cannot open device " + std::to_string(device_index) + ": " +
                              (reason.empty() ? "status " + std::to_string(status) : reason));
}

Session::~Session() {
  if (session_ != nullptr) table_->close(session_);
}

void Session::check(pb_status status, const char *what) const {
  if (status == PB_OK) return;
  const char *reason = table_->last_error(session_);
  throw pb::sdk::InfraError(std::string(what) + ": " + (reason != nullptr && *reason != '\0' ? reason : "status " + std::to_string(status)));
}

Gemm::Gemm(Session &session, const GemmShape &shape, const void *a, const void *b) : session_(session), shape_(shape) {
  pb_timing_gemm_desc desc = gemm_desc(shape);
  session_.check(session_.table().gemm_create(session_.raw(), &desc, a, b, &gemm_), "gemm_create");
}

Gemm::~Gemm() {
  if (gemm_ != nullptr) session_.table().gemm_destroy(session_.raw(), gemm_);
}

void Gemm::enqueue() { session_.check(session_.table().gemm_enqueue(session_.raw(), gemm_), "gemm_enqueue"); }

std::vector<unsigned char> Gemm::read_output() {
  std::vector<unsigned char> out(shape_.m * shape_.n * dtype_size(shape_.out));
  session_.check(session_.table().gemm_read_output(session_.raw(), gemm_, out.data(), out.size()), "gemm_read_output");
  return out;
}

Event::Event(Session &session) : session_(session) {
  session_.check(session_.table().event_create(session_.raw(), &event_), "event_create");
}

Event::~Event() {
  if (event_ != nullptr) session_.table().event_destroy(session_.raw(), event_);
}

void Event::record() { session_.check(session_.table().event_record(session_.raw(), event_), "event_record"); }

}  // namespace pb::bench
