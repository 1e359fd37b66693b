//===- perfbound/sdk/plugin.hpp - header-only C++ SDK for plugin authors ---===//
//
// Writing a plugin with this header takes a class per node kind and one
// function that describes the plugin:
//
//   class Double : public pb::sdk::Node {
//    public:
//     explicit Double(const pb::sdk::Params &) {}
//     void run(pb::sdk::RunContext &ctx) override {
//       double x = pb::sdk::require_number(ctx.json_input("x"), "value", "x");
//       auto out = pb::sdk::make_document("example.number/1");
//       out["value"] = 2 * x;
//       ctx.set_output("y", out);
//     }
//   };
//   pb::sdk::PluginSpec describe() {
//     pb::sdk::PluginSpec spec{"example.double", "Doubler", "1.0.0"};
//     spec.kinds.push_back(pb::sdk::kind<Double>(
//         "double", "Doubles a number",
//         {pb::sdk::input("x", "example.number/1")},
//         {pb::sdk::output("y", "example.number/1")}));
//     return spec;
//   }
//   PB_PLUGIN_ENTRY(describe)
//
// What the SDK does for you:
//   - builds the C descriptor tables once, in static storage, from the spec;
//   - negotiates the ABI version (answers 1.<minor of this header>);
//   - wraps every entry point in an exception barrier: pb::sdk::Error and
//     subclasses become their status code, any other exception becomes
//     PB_ERR_INTERNAL; the message is logged as an ERROR for the host;
//   - parses JSON inputs lazily and caches them; adds the "schema" member to
//     outputs when missing and checks it when present;
//   - exposes render, command and example extensions from plain C++.
//
// Only this header, <perfbound/perfbound.h> and nlohmann_json are needed;
// plugins never link host code.
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_PLUGIN_HPP
#define PERFBOUND_SDK_PLUGIN_HPP

#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "perfbound/perfbound.h"
#include "perfbound/sdk/cancel.hpp"
#include "perfbound/sdk/json.hpp"

namespace pb::sdk {

//===----------------------------------------------------------------------===//
// Declarations: ports and parameters
//===----------------------------------------------------------------------===//

struct PortSpec {
  std::string name;
  std::string schema;
  uint32_t flags = 0;
  std::string description;
  std::string one_of;  // group of alternative inputs (ABI 1.1), "" for none
};

/// A required input port taking exactly one document.
inline PortSpec input(std::string name, std::string schema, std::string description = "") {
  return {std::move(name), std::move(schema), 0u, std::move(description), {}};
}
/// An input that may be left unconnected.
inline PortSpec optional_input(std::string name, std::string schema, std::string description = "") {
  return {std::move(name), std::move(schema), PB_PORT_OPTIONAL, std::move(description), {}};
}
/// One of a group of alternative inputs: a pipeline connects exactly one
/// input of `group`, and the host checks that before anything runs (ABI 1.1).
inline PortSpec alternative_input(std::string name, std::string schema, std::string group, std::string description = "") {
  return {std::move(name), std::move(schema), PB_PORT_OPTIONAL, std::move(description), std::move(group)};
}
/// An input taking a list of documents (at least one).
inline PortSpec multi_input(std::string name, std::string schema, std::string description = "") {
  return {std::move(name), std::move(schema), PB_PORT_MULTI, std::move(description), {}};
}
/// An output port.
inline PortSpec output(std::string name, std::string schema, std::string description = "") {
  return {std::move(name), std::move(schema), 0u, std::move(description), {}};
}

struct ParamSpec {
  std::string name;
  pb_param_type type = PB_PARAM_JSON;
  std::optional<json> default_value;  // nullopt == required
  std::optional<json> choices;        // JSON array or nullopt
  std::string description;
  std::optional<double> minimum;      // ABI 1.2: meaningful range of a number
  std::optional<double> maximum;
  bool minimum_exclusive = false;
  bool maximum_exclusive = false;

  /// The range a number must lie in (ABI 1.2), e.g.
  /// `param("issue_per_cycle", PB_PARAM_FLOAT, 1.0).above(0).at_most(1024)`.
  ParamSpec &at_least(double v) { minimum = v; minimum_exclusive = false; return *this; }
  ParamSpec &above(double v) { minimum = v; minimum_exclusive = true; return *this; }
  ParamSpec &at_most(double v) { maximum = v; maximum_exclusive = false; return *this; }
  ParamSpec &below(double v) { maximum = v; maximum_exclusive = true; return *this; }
};

namespace detail {
inline pb_param_type infer_param_type(const json &value) {
  if (value.is_boolean()) return PB_PARAM_BOOL;
  if (value.is_number_integer()) return PB_PARAM_INT;
  if (value.is_number()) return PB_PARAM_FLOAT;
  if (value.is_string()) return PB_PARAM_STRING;
  return PB_PARAM_JSON;
}
}  // namespace detail

namespace detail {
inline ParamSpec make_param(std::string name, pb_param_type type, std::optional<json> default_value,
                            std::optional<json> choices, std::string description) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(default_value);
  spec.choices = std::move(choices);
  spec.description = std::move(description);
  return spec;
}
}  // namespace detail

/// An optional parameter; its type is that of the default value.
inline ParamSpec param(std::string name, json default_value, std::string description = "") {
  pb_param_type type = detail::infer_param_type(default_value);
  return detail::make_param(std::move(name), type, std::move(default_value), std::nullopt, std::move(description));
}
/// An optional parameter of an explicit type (e.g. a FLOAT defaulting to 1).
inline ParamSpec param(std::string name, pb_param_type type, json default_value,
                       std::string description = "") {
  return detail::make_param(std::move(name), type, std::move(default_value), std::nullopt, std::move(description));
}
/// An optional string parameter restricted to `choices`.
inline ParamSpec choice_param(std::string name, std::string default_value,
                              std::vector<std::string> choices, std::string description = "") {
  return detail::make_param(std::move(name), PB_PARAM_STRING, json(std::move(default_value)), json(std::move(choices)),
                            std::move(description));
}
/// A parameter the pipeline must set.
inline ParamSpec required_param(std::string name, pb_param_type type, std::string description = "") {
  return detail::make_param(std::move(name), type, std::nullopt, std::nullopt, std::move(description));
}

//===----------------------------------------------------------------------===//
// Host services
//===----------------------------------------------------------------------===//

/// Thin wrapper over pb_host.
class Host {
 public:
  explicit Host(const pb_host *host) : host_(host) {}
  void log(pb_severity severity, const std::string &message) const {
    if (host_ != nullptr && host_->log != nullptr) host_->log(host_, severity, message.c_str());
  }
  void info(const std::string &m) const { log(PB_SEVERITY_INFO, m); }
  void warn(const std::string &m) const { log(PB_SEVERITY_WARNING, m); }
  void error(const std::string &m) const { log(PB_SEVERITY_ERROR, m); }
  /// Host extension lookup; nullptr when absent.
  template <class T>
  const T *extension(const char *id) const {
    if (host_ == nullptr || host_->get_extension == nullptr) return nullptr;
    return static_cast<const T *>(host_->get_extension(host_, id));
  }
  [[nodiscard]] const pb_host *raw() const { return host_; }

 private:
  const pb_host *host_;
};

/// Resolved parameters of a node (every declared parameter present).
class Params {
 public:
  Params(json values, std::string node_id) : values_(std::move(values)), node_id_(std::move(node_id)) {}
  [[nodiscard]] const json &raw() const { return values_; }
  [[nodiscard]] const std::string &node_id() const { return node_id_; }
  [[nodiscard]] const json &at(std::string_view name) const {
    return require(values_, name, "node '" + node_id_ + "' params");
  }
  [[nodiscard]] double number(std::string_view name) const { return at(name).get<double>(); }
  [[nodiscard]] std::int64_t integer(std::string_view name) const { return at(name).get<std::int64_t>(); }
  [[nodiscard]] bool boolean(std::string_view name) const { return at(name).get<bool>(); }
  [[nodiscard]] std::string string(std::string_view name) const { return at(name).get<std::string>(); }

 private:
  json values_;
  std::string node_id_;
};

//===----------------------------------------------------------------------===//
// The run context and the node base class
//===----------------------------------------------------------------------===//

/// Wraps pb_run_context for the duration of one run().
class RunContext {
 public:
  explicit RunContext(const pb_run_context *ctx) : ctx_(ctx) {}

  [[nodiscard]] std::string node_id() const { return ctx_->node_id; }
  [[nodiscard]] uint32_t input_count(const char *port) const { return ctx_->input_count(ctx_, port); }
  [[nodiscard]] bool has_input(const char *port) const { return input_count(port) > 0; }

  /// Borrowed document; throws InputError when absent.
  [[nodiscard]] const pb_document &document(const char *port, uint32_t index = 0) const {
    const pb_document *doc = ctx_->input(ctx_, port, index);
    if (doc == nullptr)
      throw InputError("node '" + node_id() + "': input '" + port + "' [" + std::to_string(index) +
                       "] is not connected");
    return *doc;
  }

  /// The raw text of a document (valid until run() returns).
  [[nodiscard]] std::string_view text_input(const char *port, uint32_t index = 0) const {
    const pb_document &doc = document(port, index);
    return {doc.data, doc.size};
  }

  /// Where a document came from (a path or "node.port").
  [[nodiscard]] std::string origin(const char *port, uint32_t index = 0) const {
    return document(port, index).origin;
  }

  /// The parsed JSON of a document, cached for the run.
  [[nodiscard]] const json &json_input(const char *port, uint32_t index = 0) {
    std::string key = std::string(port) + '#' + std::to_string(index);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const pb_document &doc = document(port, index);
    json parsed = json::parse(doc.data, doc.data + doc.size, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded())
      throw InputError(std::string(doc.origin) + ": input '" + port + "' is not valid JSON");
    return cache_.emplace(std::move(key), std::move(parsed)).first->second;
  }

  /// All documents of a PB_PORT_MULTI port, parsed.
  [[nodiscard]] std::vector<const json *> json_inputs(const char *port) {
    std::vector<const json *> docs;
    uint32_t n = input_count(port);
    docs.reserve(n);
    for (uint32_t i = 0; i < n; ++i) docs.push_back(&json_input(port, i));
    return docs;
  }

  /// Hands a document to the host (which copies it). Adds "schema" from the
  /// port declaration when absent.
  void set_output(const char *port, json doc) {
    if (!doc.is_object()) throw Error(PB_ERR_INTERNAL, std::string("output '") + port + "' is not an object");
    if (!doc.contains("schema") && !default_schema_.empty()) {
      auto it = default_schema_.find(port);
      if (it != default_schema_.end()) doc["schema"] = it->second;
    }
    std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    pb_status st = ctx_->set_output(ctx_, port, text.data(), text.size());
    if (st != PB_OK)
      throw Error(PB_ERR_INTERNAL, std::string("host refused output '") + port + "' (status " +
                                       std::to_string(st) + ")");
  }

  /// Hands an already serialized JSON object to the host (which copies and
  /// validates it), for large documents written by a streaming writer. The
  /// text must carry its "schema" member; nothing is added.
  void set_output_text(const char *port, std::string_view json_text) {
    pb_status st = ctx_->set_output(ctx_, port, json_text.data(), json_text.size());
    if (st != PB_OK)
      throw Error(PB_ERR_INTERNAL, std::string("host refused output '") + port + "' (status " +
                                       std::to_string(st) + ")");
  }

  void log(pb_severity severity, const std::string &message) const {
    ctx_->log(ctx_, severity, message.c_str());
  }
  void info(const std::string &m) const { log(PB_SEVERITY_INFO, m); }
  void warn(const std::string &m) const { log(PB_SEVERITY_WARNING, m); }
  void debug(const std::string &m) const { log(PB_SEVERITY_DEBUG, m); }
  void progress(double fraction, const std::string &message = {}) const {
    ctx_->progress(ctx_, fraction, message.empty() ? nullptr : message.c_str());
  }
  [[nodiscard]] bool cancelled() const { return ctx_->cancelled(ctx_) != PB_FALSE; }
  /// Throws Error(PB_ERR_CANCELLED) when the user asked to stop.
  void check_cancelled() const {
    if (cancelled()) throw Error(PB_ERR_CANCELLED, "cancelled");
  }

  // Used by the SDK to fill in output schemas.
  void set_default_schemas(std::map<std::string, std::string> m) { default_schema_ = std::move(m); }

 private:
  const pb_run_context *ctx_;
  std::map<std::string, json> cache_;
  std::map<std::string, std::string> default_schema_;
};

/// Base class of a node kind's implementation. One instance per pipeline
/// node; run() is never called concurrently on one instance.
class Node {
 public:
  virtual ~Node() = default;
  virtual void run(RunContext &ctx) = 0;
};

/// Everything a factory gets to build a node.
struct CreateContext {
  Host host;
  Params params;
};

using NodeFactory = std::function<std::unique_ptr<Node>(CreateContext &)>;

struct KindSpec {
  std::string name;
  std::string description;
  std::vector<PortSpec> inputs;
  std::vector<PortSpec> outputs;
  std::vector<ParamSpec> params;
  NodeFactory factory;
};

/// Describes a node kind implemented by class N, which must be constructible
/// from `const Params &` or from `CreateContext &`.
template <class N>
KindSpec kind(std::string name, std::string description, std::vector<PortSpec> inputs,
              std::vector<PortSpec> outputs, std::vector<ParamSpec> params = {}) {
  KindSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.inputs = std::move(inputs);
  spec.outputs = std::move(outputs);
  spec.params = std::move(params);
  spec.factory = [](CreateContext &cc) -> std::unique_ptr<Node> {
    if constexpr (std::is_constructible_v<N, CreateContext &>)
      return std::make_unique<N>(cc);
    else
      return std::make_unique<N>(cc.params);
  };
  return spec;
}

//===----------------------------------------------------------------------===//
// Extensions from plain C++
//===----------------------------------------------------------------------===//

/// A CLI subcommand. `main` receives argv with argv[0] == name and returns
/// the exit code. Exceptions are caught by the SDK (exit code 1).
struct CommandSpec {
  std::string name;
  std::string summary;
  std::function<int(const Host &, const std::vector<std::string> &)> main;
};

/// Renderer: return std::nullopt for schemas/formats it does not handle.
using RenderFn = std::function<std::optional<std::string>(std::string_view schema, const json &doc,
                                                          std::string_view format)>;

struct ExampleInputSpec {
  std::string port;
  std::string schema;
  std::string data;
  pb_encoding encoding = PB_ENCODING_JSON;
};

struct ExampleSpec {
  std::string kind;
  std::string title;
  std::optional<json> params;
  std::vector<ExampleInputSpec> inputs;
  pb_status expected_status = PB_OK;
  /// PB_EXAMPLE_AT_RUN: run() returns expected_status. PB_EXAMPLE_AT_CREATE
  /// (ABI 1.3): create() refuses the params with it, e.g. a negative
  /// bandwidth (the kind's constructor throws pb::sdk::InputError).
  uint32_t expected_at = PB_EXAMPLE_AT_RUN;
};

struct PluginSpec {
  PluginSpec() = default;
  PluginSpec(std::string id_, std::string name_, std::string version_)
      : id(std::move(id_)), name(std::move(name_)), version(std::move(version_)) {}
  std::string id;
  std::string name;
  std::string version;
  std::string vendor;
  std::string description;
  std::vector<KindSpec> kinds;
  std::vector<CommandSpec> commands;
  std::vector<ExampleSpec> examples;
  RenderFn render;
  /// Optional hooks run by the plugin's init()/deinit().
  std::function<void(const Host &)> on_init;
  std::function<void()> on_deinit;
  /// Raw C extension tables by id (for extensions the SDK does not wrap).
  std::map<std::string, const void *> raw_extensions;
};

}  // namespace pb::sdk

//===----------------------------------------------------------------------===//
// Implementation: static C tables and exception-barrier trampolines
//===----------------------------------------------------------------------===//

// The C ABI declares `struct pb_node` as opaque; each plugin library defines
// it privately (hidden visibility keeps libraries from interposing).
struct pb_node {
  std::unique_ptr<pb::sdk::Node> impl;
  const void *kind_record = nullptr;
  const pb_host *host = nullptr;
  std::string node_id;
};

namespace pb::sdk::detail {

/// Runs `fn`, turning any exception into a status plus an ERROR log line.
template <class Fn, class Log>
pb_status barrier(Fn &&fn, Log &&log) noexcept {
  try {
    return fn();
  } catch (const Error &e) {
    try { log(e.status() == PB_ERR_INTERNAL ? PB_SEVERITY_PLUGIN_MISBEHAVING : PB_SEVERITY_ERROR, e.what()); } catch (...) {}
    return e.status();
  } catch (const json::exception &e) {
    try { log(PB_SEVERITY_ERROR, std::string("JSON error: ") + e.what()); } catch (...) {}
    return PB_ERR_INVALID_INPUT;
  } catch (const std::bad_alloc &) {
    try { log(PB_SEVERITY_ERROR, "out of memory"); } catch (...) {}
    return PB_ERR_RESOURCE;
  } catch (const std::exception &e) {
    try { log(PB_SEVERITY_PLUGIN_MISBEHAVING, std::string("unexpected exception: ") + e.what()); } catch (...) {}
    return PB_ERR_INTERNAL;
  } catch (...) {
    try { log(PB_SEVERITY_PLUGIN_MISBEHAVING, "unexpected non-standard exception"); } catch (...) {}
    return PB_ERR_INTERNAL;
  }
}

// Standard-layout records whose first member is the C table handed out, so
// the C pointer the host passes back can be converted to the record.
struct KindRecord {
  pb_node_kind c;
  const KindSpec *spec = nullptr;
  const std::map<std::string, std::string> *output_schemas = nullptr;
};
static_assert(std::is_standard_layout_v<KindRecord>);

struct CommandRecord {
  pb_command c;
  const CommandSpec *spec = nullptr;
};
static_assert(std::is_standard_layout_v<CommandRecord>);

/// Owns every C table of the plugin. Built once, never destroyed before
/// unload (function-local static).
struct Registry {
  PluginSpec spec;
  pb_plugin plugin{};
  std::deque<std::string> strings;
  std::deque<pb_port> ports;
  std::deque<pb_param> params;
  std::deque<KindRecord> kinds;
  std::deque<std::map<std::string, std::string>> output_schema_maps;
  std::vector<const pb_node_kind *> kind_ptrs;
  std::deque<std::vector<const pb_port *>> port_arrays;
  std::deque<std::vector<const pb_param *>> param_arrays;
  std::deque<CommandRecord> commands;
  std::vector<const pb_command *> command_ptrs;
  pb_ext_command command_ext{};
  pb_ext_render render_ext{};
  std::deque<pb_example_input> example_inputs;
  std::deque<std::vector<const pb_example_input *>> example_input_arrays;
  std::deque<pb_example> examples;
  std::vector<const pb_example *> example_ptrs;
  pb_ext_examples examples_ext{};
  const pb_host *host = nullptr;

  const char *keep(const std::string &s) { return strings.emplace_back(s).c_str(); }
};

inline Registry *&registry_slot() {
  static Registry *slot = nullptr;
  return slot;
}

inline void host_log(const pb_host *host, pb_severity sev, const std::string &msg) {
  if (host != nullptr && host->log != nullptr) host->log(host, sev, msg.c_str());
}

inline pb_status kind_create(const pb_node_kind *kind, const pb_host *host, const char *node_id,
                             const char *params_json, pb_node **out_node) {
  std::string id = node_id != nullptr ? node_id : "";
  return barrier(
      [&]() -> pb_status {
        if (kind == nullptr || out_node == nullptr || params_json == nullptr)
          throw Error(PB_ERR_INVALID_ARGUMENT, "create: NULL argument");
        const auto *rec = reinterpret_cast<const KindRecord *>(kind);
        json params = json::parse(params_json, nullptr, false);
        if (params.is_discarded() || !params.is_object())
          throw Error(PB_ERR_INVALID_ARGUMENT, "create: params_json is not a JSON object");
        CreateContext cc{Host(host), Params(std::move(params), id)};
        auto node = std::make_unique<pb_node>();
        node->impl = rec->spec->factory(cc);
        node->kind_record = rec;
        node->host = host;
        node->node_id = id;
        *out_node = node.release();
        return PB_OK;
      },
      [&](pb_severity sev, const std::string &msg) { host_log(host, sev, msg); });
}

inline pb_status kind_run(pb_node *node, const pb_run_context *ctx) {
  return barrier(
      [&]() -> pb_status {
        if (node == nullptr || ctx == nullptr) throw Error(PB_ERR_INVALID_ARGUMENT, "run: NULL argument");
        RunContext rc(ctx);
        const auto *rec = static_cast<const KindRecord *>(node->kind_record);
        rc.set_default_schemas(*rec->output_schemas);
        // Refuse missing required inputs here, so no kind has to remember to.
        for (const PortSpec &port : rec->spec->inputs) {
          if ((port.flags & PB_PORT_OPTIONAL) == 0 && ctx->input_count(ctx, port.name.c_str()) == 0)
            throw InputError("node '" + rc.node_id() + "': required input '" + port.name + "' (" + port.schema +
                             ") has no document");
        }
        // Readers deep in the kind poll pb::sdk::poll_cancel() (cancel.hpp).
        CancelScope cancel_scope([ctx] { return ctx->cancelled(ctx) != PB_FALSE; });
        node->impl->run(rc);
        return PB_OK;
      },
      [&](pb_severity sev, const std::string &msg) {
        if (ctx != nullptr) ctx->log(ctx, sev, msg.c_str());
      });
}

inline void kind_destroy(pb_node *node) {
  // Destructors must not throw; swallow anything that does.
  try {
    delete node;
  } catch (...) {
  }
}

inline const void *get_extension(const char *id) {
  Registry *reg = registry_slot();
  if (reg == nullptr || id == nullptr) return nullptr;
  std::string_view key(id);
  if (key == PB_EXT_COMMAND && reg->command_ext.command_count > 0) return &reg->command_ext;
  if (key == PB_EXT_RENDER && reg->spec.render) return &reg->render_ext;
  if (key == PB_EXT_EXAMPLES && reg->examples_ext.example_count > 0) return &reg->examples_ext;
  auto it = reg->spec.raw_extensions.find(std::string(key));
  return it == reg->spec.raw_extensions.end() ? nullptr : it->second;
}

inline int command_main(const pb_command *command, const pb_host *host, int argc, const char *const *argv) {
  int code = 1;
  pb_status st = barrier(
      [&]() -> pb_status {
        const auto *rec = reinterpret_cast<const CommandRecord *>(command);
        std::vector<std::string> args;
        for (int i = 0; i < argc; ++i) args.emplace_back(argv[i] != nullptr ? argv[i] : "");
        code = rec->spec->main(Host(host), args);
        return PB_OK;
      },
      [&](pb_severity sev, const std::string &msg) { host_log(host, sev, msg); });
  if (st == PB_ERR_INVALID_INPUT) return 3;
  if (st == PB_ERR_INFRA) return 5;
  return st == PB_OK ? code : 1;
}

inline pb_status render(const char *schema, const char *json_text, size_t size, const char *format,
                        pb_text_sink sink, void *sink_data) {
  Registry *reg = registry_slot();
  return barrier(
      [&]() -> pb_status {
        if (reg == nullptr || !reg->spec.render) return PB_ERR_UNSUPPORTED;
        json doc = json::parse(json_text, json_text + size, nullptr, false);
        if (doc.is_discarded()) return PB_ERR_INVALID_INPUT;
        std::optional<std::string> text = reg->spec.render(schema, doc, format);
        if (!text) return PB_ERR_UNSUPPORTED;
        sink(sink_data, text->data(), text->size());
        return PB_OK;
      },
      [&](pb_severity sev, const std::string &msg) { host_log(reg != nullptr ? reg->host : nullptr, sev, msg); });
}

inline pb_status plugin_init(const pb_host *host) {
  Registry *reg = registry_slot();
  return barrier(
      [&]() -> pb_status {
        if (reg != nullptr) {
          reg->host = host;
          if (reg->spec.on_init) reg->spec.on_init(Host(host));
        }
        return PB_OK;
      },
      [&](pb_severity sev, const std::string &msg) { host_log(host, sev, msg); });
}

inline void plugin_deinit() {
  Registry *reg = registry_slot();
  try {
    if (reg != nullptr && reg->spec.on_deinit) reg->spec.on_deinit();
  } catch (...) {
  }
}

inline void fill_port(Registry &reg, pb_port &p, const PortSpec &s) {
  p.struct_size = sizeof(pb_port);
  p.name = reg.keep(s.name);
  p.schema = reg.keep(s.schema);
  p.flags = s.flags;
  p.description = reg.keep(s.description);
  p.one_of = s.one_of.empty() ? nullptr : reg.keep(s.one_of);
}

inline Registry &build_registry(PluginSpec (*describe)()) {
  static Registry reg = [&] {
    Registry r;
    r.spec = describe();
    return r;
  }();
  static bool built = false;
  if (built) return reg;
  built = true;
  Registry &r = reg;
  registry_slot() = &r;
  for (const KindSpec &ks : r.spec.kinds) {
    KindRecord &rec = r.kinds.emplace_back();
    rec.spec = &ks;
    auto &schema_map = r.output_schema_maps.emplace_back();
    rec.output_schemas = &schema_map;
    pb_node_kind &k = rec.c;
    k.struct_size = sizeof(pb_node_kind);
    k.name = r.keep(ks.name);
    k.description = r.keep(ks.description);
    auto &in_arr = r.port_arrays.emplace_back();
    for (const PortSpec &ps : ks.inputs) {
      pb_port &p = r.ports.emplace_back();
      fill_port(r, p, ps);
      in_arr.push_back(&p);
    }
    auto &out_arr = r.port_arrays.emplace_back();
    for (const PortSpec &ps : ks.outputs) {
      pb_port &p = r.ports.emplace_back();
      fill_port(r, p, ps);
      out_arr.push_back(&p);
      schema_map[ps.name] = ps.schema;
    }
    auto &par_arr = r.param_arrays.emplace_back();
    for (const ParamSpec &ps : ks.params) {
      pb_param &p = r.params.emplace_back();
      p.struct_size = sizeof(pb_param);
      p.name = r.keep(ps.name);
      p.type = static_cast<uint32_t>(ps.type);
      p.flags = ps.default_value ? 0u : PB_PARAM_REQUIRED;
      p.default_json = ps.default_value ? r.keep(ps.default_value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) : nullptr;
      p.choices_json = ps.choices ? r.keep(ps.choices->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) : nullptr;
      p.description = r.keep(ps.description);
      if (ps.minimum) p.minimum_json = r.keep(json(*ps.minimum).dump());
      if (ps.maximum) p.maximum_json = r.keep(json(*ps.maximum).dump());
      if (ps.minimum_exclusive) p.flags |= PB_PARAM_MIN_EXCLUSIVE;
      if (ps.maximum_exclusive) p.flags |= PB_PARAM_MAX_EXCLUSIVE;
      par_arr.push_back(&p);
    }
    k.input_count = static_cast<uint32_t>(in_arr.size());
    k.inputs = in_arr.empty() ? nullptr : in_arr.data();
    k.output_count = static_cast<uint32_t>(out_arr.size());
    k.outputs = out_arr.empty() ? nullptr : out_arr.data();
    k.param_count = static_cast<uint32_t>(par_arr.size());
    k.params = par_arr.empty() ? nullptr : par_arr.data();
    k.create = &kind_create;
    k.run = &kind_run;
    k.destroy = &kind_destroy;
  }
  for (KindRecord &rec : r.kinds) r.kind_ptrs.push_back(&rec.c);

  for (const CommandSpec &cs : r.spec.commands) {
    CommandRecord &rec = r.commands.emplace_back();
    rec.spec = &cs;
    rec.c.struct_size = sizeof(pb_command);
    rec.c.name = r.keep(cs.name);
    rec.c.summary = r.keep(cs.summary);
    rec.c.main = &command_main;
  }
  for (CommandRecord &rec : r.commands) r.command_ptrs.push_back(&rec.c);
  r.command_ext.struct_size = sizeof(pb_ext_command);
  r.command_ext.command_count = static_cast<uint32_t>(r.command_ptrs.size());
  r.command_ext.commands = r.command_ptrs.empty() ? nullptr : r.command_ptrs.data();

  r.render_ext.struct_size = sizeof(pb_ext_render);
  r.render_ext.render = &render;

  for (const ExampleSpec &es : r.spec.examples) {
    auto &arr = r.example_input_arrays.emplace_back();
    for (const ExampleInputSpec &is : es.inputs) {
      pb_example_input &in = r.example_inputs.emplace_back();
      in.struct_size = sizeof(pb_example_input);
      in.port = r.keep(is.port);
      in.encoding = static_cast<uint32_t>(is.encoding);
      in.schema = r.keep(is.schema);
      in.data = r.keep(is.data);
      arr.push_back(&in);
    }
    pb_example &ex = r.examples.emplace_back();
    ex.struct_size = sizeof(pb_example);
    ex.kind = r.keep(es.kind);
    ex.title = r.keep(es.title);
    ex.params_json = es.params ? r.keep(es.params->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) : nullptr;
    ex.input_count = static_cast<uint32_t>(arr.size());
    ex.inputs = arr.empty() ? nullptr : arr.data();
    ex.expected_status = es.expected_status;
    ex.expected_at = es.expected_at;
  }
  for (pb_example &ex : r.examples) r.example_ptrs.push_back(&ex);
  r.examples_ext.struct_size = sizeof(pb_ext_examples);
  r.examples_ext.example_count = static_cast<uint32_t>(r.example_ptrs.size());
  r.examples_ext.examples = r.example_ptrs.empty() ? nullptr : r.example_ptrs.data();

  pb_plugin &pl = r.plugin;
  pl.struct_size = sizeof(pb_plugin);
  pl.id = r.keep(r.spec.id);
  pl.name = r.keep(r.spec.name);
  pl.version = r.keep(r.spec.version);
  pl.vendor = r.keep(r.spec.vendor);
  pl.description = r.keep(r.spec.description);
  pl.node_kind_count = static_cast<uint32_t>(r.kind_ptrs.size());
  pl.node_kinds = r.kind_ptrs.empty() ? nullptr : r.kind_ptrs.data();
  pl.init = &plugin_init;
  pl.deinit = &plugin_deinit;
  pl.get_extension = &get_extension;
  return r;
}

inline pb_status negotiate(const pb_negotiate_request *request, pb_negotiate_response *response,
                           PluginSpec (*describe)()) {
  if (request == nullptr || response == nullptr) return PB_ERR_INVALID_ARGUMENT;
  const pb_host *host = request->host;
  return barrier(
      [&]() -> pb_status {
        const size_t need = offsetof(pb_negotiate_response, plugin) + sizeof(response->plugin);
        if (response->struct_size < need) return PB_ERR_INVALID_ARGUMENT;
        response->abi_major = PB_ABI_VERSION_MAJOR;
        response->abi_minor = PB_ABI_VERSION_MINOR;
        if (request->abi_major_min > PB_ABI_VERSION_MAJOR || request->abi_major_max < PB_ABI_VERSION_MAJOR) {
          host_log(host, PB_SEVERITY_ERROR,
                   "plugin implements ABI " + std::to_string(PB_ABI_VERSION_MAJOR) + "." +
                       std::to_string(PB_ABI_VERSION_MINOR) + ", host speaks majors " +
                       std::to_string(request->abi_major_min) + ".." + std::to_string(request->abi_major_max));
          return PB_ERR_VERSION;
        }
        Registry &reg = build_registry(describe);
        reg.host = host;
        response->plugin = &reg.plugin;
        return PB_OK;
      },
      [&](pb_severity sev, const std::string &msg) { host_log(host, sev, msg); });
}

}  // namespace pb::sdk::detail

/// Defines the library's one exported entry symbol. `describe` is a function
/// `pb::sdk::PluginSpec describe()`; it is called once, on first negotiation.
#define PB_PLUGIN_ENTRY(describe)                                                                 \
  extern "C" PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request,  \
                                                            pb_negotiate_response *response);     \
  extern "C" PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request,  \
                                                            pb_negotiate_response *response) {    \
    return ::pb::sdk::detail::negotiate(request, response, &(describe));                          \
  }

#endif  // PERFBOUND_SDK_PLUGIN_HPP
