//===- pipeline.hpp - TOML pipeline files: parse, override, resolve, check ===//
//
// A pipeline file describes a DAG of plugin nodes:
//
//   version = 1
//   description = "..."
//   [inputs.NAME]   kind = "file"|"table"|"document"|"profile", schema = "...",
//                   required = true, default = ..., description = "..."
//   [nodes.ID]      plugin = "vendor.name", kind = "kind_name",
//                   params = { ... }, inputs = { port = "node.port" | ["a.p", "b.p"] },
//                   description = "...", deadline_s = 600, isolate = true|false
//   [outputs]       NAME = "node.port"
//
// Edges are written on the consumer as "node.port"; "inputs.NAME" refers to
// a pipeline input. The whole graph is checked before anything runs and all
// problems are reported at once, each with file:line:col and node id.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_PIPELINE_HPP
#define PERFBOUND_HOST_PIPELINE_HPP

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnostics.hpp"
#include "plugin_info.hpp"

namespace perfbound {

using json = nlohmann::json;

/// The pipeline file format version this host reads.
inline constexpr int64_t kPipelineFormatVersion = 1;
/// Schema id of the documents a "profile" input produces.
inline constexpr const char *kProfileSchema = "perfbound.profile/1";

struct EdgeRef {
  std::string text;  // as written: "node.port" or "inputs.name"
  std::string node;  // producer node id, or input name when from_input
  std::string port;  // producer port ("" for inputs)
  bool from_input = false;
  SourceLoc loc;
};

struct InputDecl {
  std::string name;
  std::string kind;  // file | table | document | profile
  std::string schema;
  bool required = true;
  std::optional<json> default_value;
  std::string description;
  SourceLoc loc;
  SourceLoc default_loc;
};

struct NodeInput {
  std::string port;
  std::vector<EdgeRef> refs;
  bool written_as_list = false;
  SourceLoc loc;
};

struct NodeDecl {
  std::string id;
  std::string plugin;
  std::string kind;
  std::string description;
  json params = json::object();
  std::map<std::string, SourceLoc> param_locs;
  std::vector<NodeInput> inputs;
  /// `deadline_s`: seconds the node's create + run + destroy may take
  /// (`run --node-deadline` overrides it; the engine's default otherwise).
  std::optional<double> deadline_s;
  /// `isolate`: run the node in a child process (true) or in the host's
  /// (false); unset: the engine decides (`run --isolate`).
  std::optional<bool> isolate;
  SourceLoc loc;
  SourceLoc plugin_loc;
  SourceLoc kind_loc;
};

/// The most a node's deadline may be: a week, in seconds.
inline constexpr double kMaxNodeDeadlineSeconds = 604800;

struct OutputDecl {
  std::string name;
  EdgeRef ref;
};

struct Pipeline {
  std::filesystem::path path;  // absolute; empty for in-memory text
  std::string display_path;    // as given by the user, for messages
  std::string sha256;
  int64_t version = 0;
  std::string description;
  std::vector<InputDecl> inputs;
  std::vector<NodeDecl> nodes;
  std::vector<OutputDecl> outputs;

  [[nodiscard]] const InputDecl *find_input(std::string_view name) const;
  [[nodiscard]] const NodeDecl *find_node(std::string_view id) const;
  [[nodiscard]] std::filesystem::path directory() const;
};

/// Parses a pipeline file. Returns nullopt when the file cannot be read or
/// is not TOML (one diagnostic with line:col); otherwise the model, with any
/// structural problems (unknown keys, wrong types) added to `diags`.
std::optional<Pipeline> parse_pipeline_file(const std::filesystem::path &path, Diagnostics &diags);
std::optional<Pipeline> parse_pipeline_text(std::string_view text, const std::string &display_path,
                                            Diagnostics &diags);

/// One `--set key=value` override.
struct Override {
  std::string key;
  std::string value_text;
};
/// Splits "key=value"; nullopt (with a diagnostic) when there is no '='.
std::optional<Override> parse_override(const std::string &text, Diagnostics &diags);
/// Interprets an override value as TOML ("[1,2]", "3", "true", "{a=1}",
/// "\"x\""); anything that is not a TOML value is taken as a plain string.
json parse_override_value(const std::string &text);
/// As parse_override_value, but a text that can only be meant as TOML (it
/// starts with '[', '{' or a quote, or is an integer literal) and does not
/// parse is an error, as is a NaN or infinite float anywhere in the value:
/// `grid=[9223372036854775808]` or `{grid=[1], grid=[2]}` is not quietly the
/// plain string. Returns nullopt and sets `error` ("not a TOML value:
/// ..."), else the value.
std::optional<json> parse_override_value_checked(const std::string &text, std::string &error);
/// The JSON path ("grid[1]", "args.n") of the first NaN or infinite number
/// in `value` ("" for the value itself), or nullopt when every number is finite.
/// `shown`, when given, is set to that number as text ("nan", "inf", "-inf").
std::optional<std::string> first_nonfinite_number(const json &value, std::string *shown = nullptr);

enum class ResolveMode {
  /// `lint` / `print-resolved`: input values may still be missing.
  Check,
  /// `run`: every required input must have a value, files must exist.
  Run,
};

struct ResolvedInput {
  const InputDecl *decl = nullptr;
  std::optional<json> value;  // nullopt: absent
  std::string origin;         // "--set", "--profile", "pipeline default"
  std::filesystem::path path; // resolved path for file/document/profile
};

struct ResolvedNode {
  const NodeDecl *decl = nullptr;
  const PluginInfo *plugin = nullptr;
  const KindInfo *kind = nullptr;
  json params = json::object();              // every declared parameter
  std::map<std::string, std::string> param_origin;  // "default" | "pipeline" | "--set"
  /// Per declared input port, the producers actually connected (absent
  /// optional pipeline inputs removed).
  std::map<std::string, std::vector<EdgeRef>> inputs;
  std::vector<size_t> depends_on;  // indices of producer nodes
};

/// Finds profile directories given by name ("ascend_910b3") or path.
using ProfileLocator = std::function<std::optional<std::filesystem::path>(const std::string &name_or_path,
                                                                          const std::filesystem::path &base_dir)>;

/// Move-only: inputs and nodes point into `pipeline`.
struct ResolvedPipeline {
  ResolvedPipeline() = default;
  ResolvedPipeline(ResolvedPipeline &&) = default;
  ResolvedPipeline &operator=(ResolvedPipeline &&) = default;
  ResolvedPipeline(const ResolvedPipeline &) = delete;
  ResolvedPipeline &operator=(const ResolvedPipeline &) = delete;

  Pipeline pipeline;
  std::map<std::string, ResolvedInput> inputs;
  std::vector<ResolvedNode> nodes;
  std::vector<size_t> order;  // a topological order of `nodes`

  [[nodiscard]] const ResolvedNode *find_node(std::string_view id) const;
  [[nodiscard]] json to_json() const;
  /// TOML-like text with the origin of every value as a comment.
  [[nodiscard]] std::string to_text() const;
  /// Ids of the plugins the pipeline uses (what `run` will load).
  [[nodiscard]] std::vector<std::string> plugin_ids() const;
};

struct PluginCatalog {
  /// Looks up a plugin description by id (nullptr when unknown).
  std::function<const PluginInfo *(std::string_view)> find;
  std::vector<std::string> ids;
  /// The directories searched, for the message about an unknown plugin
  /// (e.g. "/a (--plugin-path), /b (built-in)"); empty when not known.
  std::string search_path;
};

/// Applies overrides, checks the whole graph against the plugin catalog and
/// orders it. Every problem goes to `diags`; returns nullopt when any error
/// was found.
std::optional<ResolvedPipeline> resolve_pipeline(Pipeline pipeline, const PluginCatalog &catalog,
                                                 const std::vector<Override> &overrides, ResolveMode mode,
                                                 const ProfileLocator &locate_profile, Diagnostics &diags);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_PIPELINE_HPP
