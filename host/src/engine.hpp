//===- engine.hpp - run a resolved pipeline on a thread pool --------------===//
//
// The engine loads only the plugins the pipeline uses, reads the pipeline
// inputs into documents, runs nodes in dependency order with independent
// nodes in parallel, checks every output document against its port's schema,
// and returns one RunResult that the reporters render. A node that fails
// never takes down the others: its dependants are skipped and named, and the
// result says "failed" so no partial report passes for a complete one.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_ENGINE_HPP
#define PERFBOUND_HOST_ENGINE_HPP

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string_view>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnostics.hpp"
#include "expected.hpp"
#include "host_services.hpp"
#include "json_schema.hpp"
#include "pipeline.hpp"
#include "plugin_loader.hpp"

namespace perfbound {

using json = nlohmann::json;

/// A document owned by the host (see pb_document.h).
class Document {
 public:
  Document(pb_encoding encoding, std::string schema, std::string data, std::string origin);
  Document(const Document &) = delete;
  Document &operator=(const Document &) = delete;
  [[nodiscard]] const pb_document *view() const { return &view_; }
  [[nodiscard]] pb_encoding encoding() const { return encoding_; }
  [[nodiscard]] const std::string &schema() const { return schema_; }
  [[nodiscard]] const std::string &data() const { return data_; }
  [[nodiscard]] const std::string &origin() const { return origin_; }
  /// Parsed JSON (cached after the first call); null for text documents.
  /// check_document fills the cache only for documents it does not stream,
  /// so the run does not hold the parse (~8x the text) of every large
  /// intermediate document while its consumers parse the text themselves.
  [[nodiscard]] const json &parsed() const;

 private:
  pb_encoding encoding_;
  std::string schema_;
  std::string data_;
  std::string origin_;
  pb_document view_{};
  mutable std::unique_ptr<json> parsed_;
  mutable std::mutex parse_mutex_;
};

using DocumentPtr = std::shared_ptr<const Document>;

enum class NodeStatus { Ok, Failed, Skipped };
const char *node_status_name(NodeStatus s);

struct NodeResult {
  std::string id;
  std::string plugin;
  std::string plugin_version;
  std::string kind;
  NodeStatus status = NodeStatus::Skipped;
  std::string error;            // why it failed
  bool refused_input = false;   // it failed with PB_ERR_INVALID_INPUT: the user's input, not the job (exit 3)
  std::string skipped_because;  // why it did not run
  bool isolated = false;        // it ran in a child process
  double create_ms = 0;
  double run_ms = 0;
  double destroy_ms = 0;
  std::vector<LogMessage> messages;
  std::map<std::string, DocumentPtr> outputs;
};

struct RunResult {
  bool ok = false;
  /// "ok", "failed" (a node failed), "invalid" (the pipeline or an input
  /// was rejected before anything ran), or "interrupted" (cancelled before
  /// every node succeeded).
  std::string status = "invalid";
  json resolved;  // ResolvedPipeline::to_json()
  Diagnostics diagnostics;
  std::vector<NodeResult> nodes;
  std::map<std::string, DocumentPtr> outputs;            // pipeline outputs by name
  std::map<std::string, std::string> output_producers;   // output name -> "node.port"
  std::map<std::string, std::string> output_plugins;     // output name -> plugin id
  json provenance = json::object();
  double total_ms = 0;

  /// The perfbound.run_result/1 document.
  [[nodiscard]] json to_json() const;
};

/// Loads a hardware profile directory into a perfbound.profile/1 document
/// and returns the files it read (for provenance hashes).
struct LoadedProfile {
  json document;
  std::vector<std::filesystem::path> files;
};
using ProfileLoader = std::function<Expected<LoadedProfile>(const std::filesystem::path &dir)>;

/// Where nodes run (RunOptions::isolation, `perfbound run --isolate`).
enum class Isolation {
  /// A node with `isolate = true|false` in the pipeline gets that; any other
  /// node runs in a child process when its plugin is not shipped with the
  /// host (its library is outside builtin_plugin_dir()), in-process otherwise.
  Auto,
  All,   // every node in a child process
  None,  // every node in the host's process
};
/// "auto", "all", "none"; nullopt for anything else.
std::optional<Isolation> isolation_from_name(std::string_view name);

/// A node's deadline when neither the pipeline nor the command line sets one.
inline constexpr std::chrono::seconds kDefaultNodeDeadline{600};

struct RunOptions {
  unsigned jobs = 0;  // 0: hardware concurrency
  /// Validate every document on an edge against its published JSON Schema.
  bool validate_documents = true;
  /// Called with a progress line for long-running nodes (throttled).
  std::function<void(const std::string &)> on_progress;
  /// Set to true (e.g. by SIGINT) to ask running nodes to stop.
  const std::atomic<bool> *cancel = nullptr;
  Isolation isolation = Isolation::Auto;
  /// Every node's deadline (create + run + destroy); 0: the node's
  /// `deadline_s`, else kDefaultNodeDeadline. A node past it is asked to
  /// stop (pb_run_context.cancelled() turns true); one in a child process is
  /// killed; one in the host's process that has not returned `stop_grace`
  /// later is abandoned: it fails, its thread is left behind, and
  /// abandoned_plugin_calls() says the process must end with _exit.
  std::chrono::milliseconds node_deadline{0};
  /// How long a node asked to stop (deadline, or cancel) may take to return.
  std::chrono::milliseconds stop_grace{1000};
};

class Engine {
 public:
  Engine(HostServices &host, PluginRegistry &plugins, const SchemaRegistry &schemas, ProfileLoader profile_loader);

  /// Runs a resolved pipeline. Never throws for plugin misbehaviour.
  RunResult run(const ResolvedPipeline &pipeline, const RunOptions &options);

 private:
  HostServices &host_;
  PluginRegistry &plugins_;
  const SchemaRegistry &schemas_;
  ProfileLoader profile_loader_;
};

/// Documents larger than this are checked while parsed (json_schema_stream.hpp)
/// instead of through Document::parsed(), whose whole DOM is ~8x the text.
constexpr size_t kStreamCheckBytes = size_t{1} << 20;

/// Checks one document against a port schema: JSON object, "schema" member
/// equal to `schema`, and the published JSON Schema when there is one.
/// Returns the problems (empty when fine); at most `limit` are listed.
/// A document over `stream_above` bytes is checked without building its
/// whole DOM and without filling doc.parsed()'s cache; the problems are the
/// same either way.
std::vector<std::string> check_document(const SchemaRegistry &schemas, const std::string &schema, const Document &doc,
                                        bool validate_structure, size_t limit = 5,
                                        size_t stream_above = kStreamCheckBytes);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_ENGINE_HPP
