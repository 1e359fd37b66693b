//===- engine.cpp - run a resolved pipeline on a thread pool --------------===//
#include "engine.hpp"

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/json.hpp>

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "fault_guard.hpp"
#include "isolate.hpp"
#include "json_schema_stream.hpp"
#include "run_context.hpp"
#include "sha256.hpp"
#include "version.hpp"

namespace perfbound {

namespace fs = std::filesystem;

Document::Document(pb_encoding encoding, std::string schema, std::string data, std::string origin)
    : encoding_(encoding), schema_(std::move(schema)), data_(std::move(data)), origin_(std::move(origin)) {
  view_.struct_size = sizeof(pb_document);
  view_.encoding = static_cast<uint32_t>(encoding_);
  view_.schema = schema_.c_str();
  view_.data = data_.c_str();
  view_.size = data_.size();
  view_.origin = origin_.c_str();
}

const json &Document::parsed() const {
  std::lock_guard<std::mutex> lock(parse_mutex_);
  if (!parsed_) {
    if (encoding_ == PB_ENCODING_JSON)
      parsed_ = std::make_unique<json>(json::parse(data_, nullptr, false));
    else
      parsed_ = std::make_unique<json>(nullptr);
  }
  return *parsed_;
}

std::optional<Isolation> isolation_from_name(std::string_view name) {
  if (name == "auto") return Isolation::Auto;
  if (name == "all") return Isolation::All;
  if (name == "none") return Isolation::None;
  return std::nullopt;
}

const char *node_status_name(NodeStatus s) {
  switch (s) {
    case NodeStatus::Ok: return "ok";
    case NodeStatus::Failed: return "failed";
    case NodeStatus::Skipped: return "skipped";
  }
  return "failed";
}

namespace {

// The checks before validation: JSON, an object, the port's schema id.
// Returns the problem, empty when none.
constexpr const char *kNotJson = "is not valid JSON";

std::string envelope_problem(const json &parsed, const std::string &schema) {
  if (parsed.is_discarded()) return kNotJson;
  if (!parsed.is_object()) return "is not a JSON object";
  auto it = parsed.find("schema");
  if (it == parsed.end() || !it->is_string()) return "has no \"schema\" member (expected \"" + schema + "\")";
  if (it->get<std::string>() != schema)
    return "declares schema \"" + it->get<std::string>() + "\" but the port carries \"" + schema + "\"";
  return {};
}

/// "is not valid JSON" says where and why: "... at line 3, column 5: syntax error ...".
std::string with_syntax_error(const std::string &problem, const Document &doc) {
  if (problem != kNotJson) return problem;
  const std::string where = pb::sdk::json_syntax_error(doc.data());
  return where.empty() ? problem : problem + " at " + where;
}

}  // namespace

std::vector<std::string> check_document(const SchemaRegistry &schemas, const std::string &schema, const Document &doc,
                                        bool validate_structure, size_t limit, size_t stream_above) {
  std::vector<std::string> problems;
  if (doc.encoding() == PB_ENCODING_TEXT) return problems;
  const bool validate = validate_structure && schemas.has(schema);
  std::vector<std::string> errors;
  if (doc.data().size() <= stream_above) {
    // Small documents keep their parse: the report renders them from it.
    const json &parsed = doc.parsed();
    if (std::string problem = envelope_problem(parsed, schema); !problem.empty()) return {with_syntax_error(problem, doc)};
    if (validate) errors = schemas.validate(schema, parsed);
  } else if (validate) {
    // Checked while parsed, never held whole (json_schema_stream.hpp); a
    // consumer that needs the document parses it itself.
    TextValidation checked = validate_json_text(schemas, schema, doc.data());
    if (std::string problem = envelope_problem(checked.skeleton, schema); !problem.empty()) return {with_syntax_error(problem, doc)};
    errors = std::move(checked.errors);
  } else if (std::string problem = envelope_problem(parse_json_envelope(doc.data()), schema); !problem.empty()) {
    return {with_syntax_error(problem, doc)};
  }
  for (size_t idx = 0; idx < errors.size() && idx < limit; ++idx) problems.push_back("violates " + schema + ": " + errors[idx]);
  if (errors.size() > limit) problems.push_back("... and " + std::to_string(errors.size() - limit) + " more violations");
  return problems;
}

namespace {

/// "violates perfbound.launch/1: /args/n: expected ..." of table input
/// `name` as the user wrote it: "--set launch...: launch.args.n: expected ...".
std::string table_problem(const std::string &name, const std::string &schema, const std::string &problem,
                          const std::string &origin) {
  const std::string prefix = "violates " + schema + ": ";
  if (problem.rfind(prefix, 0) != 0) return "pipeline input '" + name + "' " + problem;
  std::string rest = problem.substr(prefix.size());
  const size_t colon = rest.find(": ");
  if (rest.empty() || rest[0] != '/' || colon == std::string::npos)
    return "pipeline input '" + name + "' " + problem;
  std::string pointer = rest.substr(0, colon), member = name;
  if (pointer != "/") {
    // JSON pointer to dotted: "/args/0" -> "name.args[0]" ("~1" and "~0" unescaped).
    size_t at = 1;
    while (at <= pointer.size()) {
      size_t next = pointer.find('/', at);
      std::string part = pointer.substr(at, next == std::string::npos ? std::string::npos : next - at);
      for (size_t tilde = part.find('~'); tilde != std::string::npos && tilde + 1 < part.size(); tilde = part.find('~', tilde + 1))
        part.replace(tilde, 2, part[tilde + 1] == '1' ? "/" : "~");
      const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
      member += index ? "[" + part + "]" : "." + part;
      if (next == std::string::npos) break;
      at = next + 1;
    }
  }
  return (origin == "pipeline default" ? "pipeline input '" + name + "': " : std::string("--set ") + name + ": ") +
         member + rest.substr(colon) + " (" + schema + ")";
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string iso8601_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Expected<std::string> read_file(const fs::path &path) {
  std::string error;
  auto text = pb::sdk::read_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!text) return make_error(path.string() + ": " + error);
  return std::move(*text);
}

std::string status_text(pb_status st) {
  switch (st) {
    case PB_ERR_INVALID_ARGUMENT: return "invalid argument";
    case PB_ERR_INVALID_INPUT: return "invalid input";
    case PB_ERR_VERSION: return "version mismatch";
    case PB_ERR_UNSUPPORTED: return "unsupported";
    case PB_ERR_RESOURCE: return "out of resources";
    case PB_ERR_CANCELLED: return "cancelled";
    case PB_ERR_INTERNAL: return "internal plugin error";
    case PB_ERR_INFRA: return "infrastructure error";
    default: return "status " + std::to_string(st);
  }
}


std::string seconds_text(std::chrono::milliseconds span) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(span.count()) / 1000.0);
  return buf;
}

/// A plugin shipped with the host: its library sits in the host's own
/// plugin directory (not a vendor's directory on the search path).
bool is_shipped(const PluginInfo &info, const fs::path &shipped_dir) {
  std::error_code ec;
  return !shipped_dir.empty() && fs::equivalent(info.library.parent_path(), shipped_dir, ec);
}

/// What one node's create, run and destroy produced, wherever they ran.
struct NodeCall {
  pb_status status = PB_ERR_INTERNAL;
  bool create_failed = false;  // `status` is create's
  bool no_instance = false;    // create returned PB_OK without an instance
  double create_ms = 0, run_ms = 0, destroy_ms = 0;
  std::vector<LogMessage> messages;
  std::map<std::string, std::string, std::less<>> outputs;
  std::vector<std::string> misuse;
};

/// create -> run -> destroy; `phase` is told each phase before it starts.
template <class PhaseCallback>
NodeCall call_node(const pb_node_kind *kind, const pb_host *host, const std::string &node_id, const std::string &params,
                   NodeRunContext &run, const PhaseCallback &phase) {
  NodeCall call;
  const std::string scope_name = "node '" + node_id + "'";
  pb_node *instance = nullptr;
  const auto t0 = Clock::now();
  {
    phase("create");
    CallScope scope(scope_name);
    call.status = kind->create(kind, host, node_id.c_str(), params.c_str(), &instance);
    call.messages = scope.messages();
    call.create_ms = ms_since(t0);
  }
  if (call.status != PB_OK) {
    call.create_failed = true;
    return call;
  }
  if (instance == nullptr) {
    call.no_instance = true;
    return call;
  }
  const auto t1 = Clock::now();
  {
    phase("run");
    CallScope scope(scope_name);
    call.status = kind->run(instance, run.c());
    for (const LogMessage &m : scope.messages()) call.messages.push_back(m);
  }
  call.run_ms = ms_since(t1);
  const auto t2 = Clock::now();
  phase("destroy");
  kind->destroy(instance);
  call.destroy_ms = ms_since(t2);
  for (const LogMessage &m : run.messages()) call.messages.push_back(m);
  call.outputs = std::move(run.outputs());
  call.misuse = run.misuse();
  return call;
}

/// A NodeCall as the isolated child sends it: one line of JSON (status,
/// timings, messages, misuse, output sizes), then the outputs' bytes back to
/// back (not escaped: an output can be tens of megabytes).
std::string encode_call(const NodeCall &call) {
  json head{{"status", static_cast<int>(call.status)},
            {"create_failed", call.create_failed},
            {"no_instance", call.no_instance},
            {"create_ms", call.create_ms},
            {"run_ms", call.run_ms},
            {"destroy_ms", call.destroy_ms},
            {"messages", json::array()},
            {"misuse", call.misuse},
            {"outputs", json::array()}};
  for (const LogMessage &m : call.messages)
    head["messages"].push_back({{"severity", static_cast<int>(m.severity)}, {"scope", m.scope}, {"message", m.message}});
  size_t total = 0;
  for (const auto &[port, data] : call.outputs) {
    head["outputs"].push_back({{"port", port}, {"bytes", data.size()}});
    total += data.size();
  }
  std::string out = head.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
  out.reserve(out.size() + total);
  for (const auto &[port, data] : call.outputs) out += data;
  return out;
}

std::optional<NodeCall> decode_call(const std::string &answer) {
  const size_t newline = answer.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  json head = json::parse(std::string_view(answer).substr(0, newline), nullptr, false);
  if (!head.is_object()) return std::nullopt;
  try {
    NodeCall call;
    call.status = static_cast<pb_status>(head.at("status").get<int>());
    call.create_failed = head.at("create_failed").get<bool>();
    call.no_instance = head.at("no_instance").get<bool>();
    call.create_ms = head.at("create_ms").get<double>();
    call.run_ms = head.at("run_ms").get<double>();
    call.destroy_ms = head.at("destroy_ms").get<double>();
    for (const json &m : head.at("messages"))
      call.messages.push_back({static_cast<pb_severity>(m.at("severity").get<int>()), m.at("scope").get<std::string>(),
                               m.at("message").get<std::string>()});
    call.misuse = head.at("misuse").get<std::vector<std::string>>();
    size_t at = newline + 1;
    for (const json &o : head.at("outputs")) {
      const size_t bytes = o.at("bytes").get<size_t>();
      if (bytes > answer.size() - at) return std::nullopt;
      call.outputs.emplace(o.at("port").get<std::string>(), answer.substr(at, bytes));
      at += bytes;
    }
    if (at != answer.size()) return std::nullopt;
    return call;
  } catch (const json::exception &) {
    return std::nullopt;
  }
}

/// Per node, what the thread in Engine::run needs to enforce its deadline.
struct NodeWatch {
  CallState call{1};               // an in-process plugin call: 0 in flight, 1 returned, 2 abandoned
  std::atomic<bool> stop{false};   // asked to stop: its deadline passed
  bool isolated = false;
  std::chrono::milliseconds span{0};  // the deadline, from the start of create
  // Guarded by RunShared::mutex:
  bool in_flight = false;          // an in-process call is running
  Clock::time_point deadline{};
  Clock::time_point stop_at{};
};

/// The scheduler's state, shared by the workers and the watching thread;
/// on the heap so that a worker coming back from an abandoned call finds it.
struct RunShared {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<size_t> ready;
  size_t n = 0;
  size_t finished = 0;
  unsigned live_workers = 0;
  std::vector<std::unique_ptr<NodeWatch>> watch;
};

using ExecuteFn = std::function<bool(size_t, const std::shared_ptr<RunShared> &)>;

/// One worker: takes ready nodes until every node is finished. When a call
/// of its was abandoned it leaves without touching `execute` or `after`
/// (their frame may be gone) and is no longer counted.
void worker_loop(std::shared_ptr<RunShared> shared, const ExecuteFn *execute, const std::function<void(size_t)> *after) {
  std::unique_lock<std::mutex> lock(shared->mutex);
  while (true) {
    shared->cv.wait(lock, [&] { return !shared->ready.empty() || shared->finished == shared->n; });
    if (shared->finished == shared->n) break;
    const size_t idx = shared->ready.front();
    shared->ready.pop_front();
    lock.unlock();
    if ((*execute)(idx, shared)) return;
    lock.lock();
    (*after)(idx);
    shared->cv.notify_all();
  }
  --shared->live_workers;
  shared->cv.notify_all();
}

}  // namespace

Engine::Engine(HostServices &host, PluginRegistry &plugins, const SchemaRegistry &schemas, ProfileLoader profile_loader)
    : host_(host), plugins_(plugins), schemas_(schemas), profile_loader_(std::move(profile_loader)) {}

RunResult Engine::run(const ResolvedPipeline &pipeline, const RunOptions &options) {
  const auto start = Clock::now();
  RunResult result;
  result.resolved = pipeline.to_json();
  json &prov = result.provenance;
  prov["perfbound"] = {{"version", kPerfboundVersion},
                       {"git_sha", git_sha()},
                       {"abi", std::to_string(PB_ABI_VERSION_MAJOR) + "." + std::to_string(PB_ABI_VERSION_MINOR)}};
  prov["started_at"] = iso8601_now();
  prov["pipeline"] = {{"file", result.resolved["file"]}, {"sha256", pipeline.pipeline.sha256}};
  prov["inputs"] = json::array();
  prov["plugins"] = json::array();

  // 1. Pipeline inputs -> documents.
  std::map<std::string, DocumentPtr> input_docs;
  for (const auto &[name, ri] : pipeline.inputs) {
    if (!ri.value) continue;
    const InputDecl &decl = *ri.decl;
    json record{{"name", name}, {"kind", decl.kind}, {"schema", decl.schema}, {"origin", ri.origin}};
    if (decl.kind == "table") {
      json doc = *ri.value;
      doc["schema"] = decl.schema;
      std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      record["sha256"] = sha256_hex(text);
      record["value"] = *ri.value;
      auto document = std::make_shared<const Document>(PB_ENCODING_JSON, decl.schema, text, "inputs." + name);
      auto problems = check_document(schemas_, decl.schema, *document, options.validate_documents);
      // A table given on the command line is blamed there, and its members
      // are named as the user wrote them (launch.gird, not "/gird").
      const SourceLoc where = ri.origin == "pipeline default" ? decl.loc : SourceLoc{"<command line>", 0, 0};
      for (const std::string &p : problems)
        result.diagnostics.error(where, "", table_problem(name, decl.schema, p, ri.origin));
      input_docs[name] = document;
    } else if (decl.kind == "profile") {
      if (!profile_loader_) {
        result.diagnostics.error(decl.loc, "", "pipeline input '" + name + "': no profile loader available");
        continue;
      }
      auto loaded = profile_loader_(ri.path);
      if (!loaded) {
        result.diagnostics.error(decl.loc, "", "pipeline input '" + name + "': " + loaded.error().message);
        continue;
      }
      record["path"] = ri.path.string();
      json files = json::array();
      for (const fs::path &f : loaded->files) {
        auto digest = sha256_file(f);
        files.push_back({{"path", f.string()}, {"sha256", digest ? json(*digest) : json(nullptr)}});
      }
      record["files"] = files;
      auto document = std::make_shared<const Document>(PB_ENCODING_JSON, decl.schema, loaded->document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), ri.path.string());
      auto problems = check_document(schemas_, decl.schema, *document, options.validate_documents);
      for (const std::string &p : problems)
        result.diagnostics.error(decl.loc, "", "hardware profile " + ri.path.string() + " " + p);
      input_docs[name] = document;
    } else {
      // A JSON schema on a raw-text input would reach the plugin unchecked.
      if (decl.kind == "file" && schemas_.has(decl.schema) && !schemas_.is_text(decl.schema)) {
        result.diagnostics.error(decl.loc, "", "pipeline input '" + name + "' has kind \"file\" (raw text) but carries " +
                                                   decl.schema + ", a JSON document schema: declare it kind = \"document\" " +
                                                   "so the file is parsed and checked against the schema");
        continue;
      }
      auto text = read_file(ri.path);
      if (!text) {
        result.diagnostics.error(decl.loc, "", "pipeline input '" + name + "': " + text.error().message);
        continue;
      }
      if (decl.kind == "document") {
        // Parsing does not recurse, but walking and printing a document do:
        // refuse bad bytes and deep nesting at the file's line and column.
        std::string bad = pb::sdk::utf8_error_message(*text, ri.path.string());
        if (bad.empty()) bad = pb::sdk::json_depth_error(*text, ri.path.string());
        if (!bad.empty()) {
          result.diagnostics.error(decl.loc, "", "pipeline input '" + name + "': " + bad);
          continue;
        }
      }
      record["path"] = ri.path.string();
      record["sha256"] = sha256_hex(*text);
      record["bytes"] = text->size();
      pb_encoding encoding = decl.kind == "document" ? PB_ENCODING_JSON : PB_ENCODING_TEXT;
      auto document = std::make_shared<const Document>(encoding, decl.schema, std::move(*text), ri.path.string());
      if (encoding == PB_ENCODING_JSON) {
        for (const std::string &p : check_document(schemas_, decl.schema, *document, options.validate_documents))
          result.diagnostics.error(decl.loc, "", "pipeline input '" + name + "' (" + ri.path.string() + ") " + p);
      }
      input_docs[name] = document;
    }
    prov["inputs"].push_back(record);
  }
  if (result.diagnostics.has_errors()) {
    result.status = "invalid";
    result.total_ms = ms_since(start);
    return result;
  }

  // 2. Load the plugins this pipeline uses (and only those), on this thread.
  std::map<std::string, LoadedLibrary *> libraries;
  std::map<std::string, std::string> load_errors;
  for (const std::string &id : pipeline.plugin_ids()) {
    auto lib = plugins_.load(id);
    if (!lib) {
      load_errors[id] = lib.error().message;
      continue;
    }
    libraries[id] = *lib;
    const PluginInfo &info = (*lib)->info();

    prov["plugins"].push_back({{"id", info.id},
                               {"version", info.version},
                               {"abi", std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor)},
                               {"library", info.library.string()},
                               {"identity", (*lib)->file_identity()}});
  }

  // 3. Schedule. Worker threads run the nodes; this thread watches their
  // deadlines. What a worker needs after a plugin call returns lives in
  // `shared` (on the heap): a worker whose call was abandoned (past its
  // deadline, not stopping) may come back long after this function returned
  // and must find nothing of its frame, so it touches only `shared`.
  const size_t n = pipeline.nodes.size();
  result.nodes.resize(n);
  std::vector<std::vector<size_t>> dependants(n);
  std::vector<size_t> pending(n, 0);
  auto shared = std::make_shared<RunShared>();
  shared->watch.reserve(n);
  const fs::path shipped_dir = builtin_plugin_dir();
  for (size_t idx = 0; idx < n; ++idx) {
    const ResolvedNode &rn = pipeline.nodes[idx];
    NodeResult &nr = result.nodes[idx];
    nr.id = rn.decl->id;
    nr.plugin = rn.plugin->id;
    nr.plugin_version = rn.plugin->version;
    nr.kind = rn.kind->name;
    pending[idx] = rn.depends_on.size();
    for (size_t dep : rn.depends_on) dependants[dep].push_back(idx);
    auto watch = std::make_unique<NodeWatch>();
    watch->span = options.node_deadline.count() > 0 ? options.node_deadline
                  : rn.decl->deadline_s ? std::chrono::milliseconds(static_cast<long long>(*rn.decl->deadline_s * 1000.0))
                                         : std::chrono::milliseconds(kDefaultNodeDeadline);
    switch (options.isolation) {
      case Isolation::All: watch->isolated = true; break;
      case Isolation::None: watch->isolated = false; break;
      case Isolation::Auto:
        watch->isolated = rn.decl->isolate.has_value() ? *rn.decl->isolate : !is_shipped(*rn.plugin, shipped_dir);
        break;
    }
    nr.isolated = watch->isolated;
    shared->watch.push_back(std::move(watch));
  }

  for (size_t idx : pipeline.order)
    if (pending[idx] == 0) shared->ready.push_back(idx);

  // Marks every transitive dependant of `failed` as skipped. Caller holds the lock.
  std::function<void(size_t, const std::string &)> skip_dependants = [&](size_t failed, const std::string &why) {
    for (size_t dep : dependants[failed]) {
      NodeResult &dr = result.nodes[dep];
      if (!dr.skipped_because.empty()) continue;
      dr.status = NodeStatus::Skipped;
      dr.skipped_because = why;
      ++shared->finished;
      skip_dependants(dep, why);
    }
  };

  // Runs node `idx`; returns true when its plugin call was abandoned, in
  // which case this frame may be gone and the caller must leave at once.
  std::function<bool(size_t, const std::shared_ptr<RunShared> &)> execute =
      [&](size_t idx, const std::shared_ptr<RunShared> &keep) -> bool {
    const ResolvedNode &rn = pipeline.nodes[idx];
    NodeResult nr;  // committed to result.nodes[idx] under the lock at the end
    nr.id = rn.decl->id;
    nr.plugin = rn.plugin->id;
    nr.plugin_version = rn.plugin->version;
    nr.kind = rn.kind->name;
    NodeWatch &watch = *keep->watch[idx];
    nr.isolated = watch.isolated;
    auto commit = [&] {
      std::lock_guard<std::mutex> lock(keep->mutex);
      result.nodes[idx] = std::move(nr);
    };
    auto fail = [&](const std::string &why) {
      nr.status = NodeStatus::Failed;
      nr.error = why;
      commit();
      return false;
    };
    if (options.cancel != nullptr && options.cancel->load()) {
      nr.status = NodeStatus::Skipped;
      nr.skipped_because = "interrupted before it started";
      commit();
      return false;
    }
    if (auto it = load_errors.find(rn.plugin->id); it != load_errors.end())
      return fail("plugin '" + rn.plugin->id + "' could not be loaded: " + it->second);
    LoadedLibrary *lib = libraries.at(rn.plugin->id);
    const pb_node_kind *kind = lib->kind(rn.kind->name);
    if (kind == nullptr) return fail("plugin '" + rn.plugin->id + "' no longer offers kind '" + rn.kind->name + "'");
    NodeRunContext run(nr.id, *rn.kind, host_.logger());
    run.set_progress_sink(options.on_progress);
    run.set_cancel_flag(options.cancel);
    run.set_stop_flag(&watch.stop);
    for (const auto &[port, refs] : rn.inputs) {
      for (const EdgeRef &ref : refs) {
        if (ref.from_input) {
          auto it = input_docs.find(ref.node);
          if (it != input_docs.end()) run.add_input(port, it->second);
        } else {
          std::lock_guard<std::mutex> lock(keep->mutex);
          for (const NodeResult &other : result.nodes)
            if (other.id == ref.node) run.add_input(port, other.outputs.at(ref.port));
        }
      }
    }
    const std::string params = rn.params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // Failures name the plugin and kind (the report and the CLI add the
    // node); the in-process fault guard names all three.
    const std::string who = rn.plugin->id + "/" + rn.kind->name;
    const std::string guard_text = "node '" + nr.id + "' (plugin " + who + ")";
    const std::string deadline_text = seconds_text(watch.span);

    NodeCall call;
    if (watch.isolated) {
      IsolationLimits limits;
      limits.total_timeout = watch.span;
      limits.cancel = options.cancel;
      limits.own_process_group = true;
      Logger &logger = host_.logger();
      limits.in_child = [&logger] {
        fault_guard_in_child();
        logger.after_fork_in_child();
      };
      IsolatedOutcome outcome = run_isolated(
          [&](const PhaseFn &phase) {
            NodeCall in_child = call_node(kind, host_.c_host(), nr.id, params, run, [&](const char *p) { phase(p); });
            return encode_call(in_child);
          },
          limits);
      if (!outcome.answered) {
        const std::string during = " during " + outcome.phase;
        if (outcome.cancelled) return fail(who + " was stopped" + during + ": interrupted (its process was killed)");
        if (outcome.timed_out)
          return fail(who + " exceeded its deadline of " + deadline_text + " s" + during +
                      " and its process was killed (raise it with deadline_s on the node or run --node-deadline)");
        if (outcome.signal != 0)
          return fail(who + " crashed with " + signal_name(outcome.signal) + during + " (isolated: its process ended, the host did not)");
        if (!outcome.threw.empty()) return fail(who + " " + outcome.threw + during);
        if (outcome.exit_code >= 0)
          return fail(who + " called exit(" + std::to_string(outcome.exit_code) + ")" + during +
                      " without finishing (isolated: its process ended, the host did not)");
        return fail(who + ": " + outcome.failure);
      }
      std::optional<NodeCall> decoded = decode_call(outcome.answer);
      if (!decoded) return fail(who + ": the isolated node's process sent an answer the host cannot read");
      call = std::move(*decoded);
    } else {
      install_fault_guard();
      {
        std::lock_guard<std::mutex> lock(keep->mutex);
        watch.deadline = Clock::now() + watch.span;
        watch.in_flight = true;
      }
      keep->cv.notify_all();
      FaultScope scope(guard_text, watch.call);
      call = call_node(kind, host_.c_host(), nr.id, params, run, [&](const char *p) { scope.phase(p); });
      if (!scope.finish()) return true;  // abandoned: this frame may be gone; touch nothing
      std::lock_guard<std::mutex> lock(keep->mutex);
      watch.in_flight = false;
    }
    nr.messages = std::move(call.messages);
    nr.create_ms = call.create_ms;
    nr.run_ms = call.run_ms;
    nr.destroy_ms = call.destroy_ms;
    const bool past_deadline = watch.stop.load();
    if (call.create_failed) {
      std::string why;
      for (const LogMessage &m : nr.messages)
        if (m.severity >= PB_SEVERITY_ERROR) why += (why.empty() ? "" : "; ") + m.message;
      nr.refused_input = call.status == PB_ERR_INVALID_INPUT;
      return fail(rn.plugin->id + "/" + rn.kind->name + " create failed (" + status_text(call.status) + ")" +
                  (why.empty() ? "" : ": " + why));
    }
    if (call.no_instance)
      return fail("plugin misbehaviour: " + rn.plugin->id + "/" + rn.kind->name + " create returned PB_OK without an instance");
    if (past_deadline)
      return fail(who + " exceeded its deadline of " + deadline_text + " s and stopped when asked (" + status_text(call.status) +
                  "); raise it with deadline_s on the node or run --node-deadline");
    if (call.status != PB_OK) {
      std::string why;
      for (const LogMessage &m : nr.messages)
        if (m.severity >= PB_SEVERITY_ERROR) why += (why.empty() ? "" : "; ") + m.message;
      nr.refused_input = call.status == PB_ERR_INVALID_INPUT;
      return fail(rn.plugin->id + "/" + rn.kind->name + " failed (" + status_text(call.status) + ")" + (why.empty() ? "" : ": " + why));
    }
    std::vector<std::string> problems = std::move(call.misuse);
    for (const PortInfo &port : rn.kind->outputs) {
      auto it = call.outputs.find(port.name);
      if (it == call.outputs.end()) {
        problems.push_back("returned PB_OK without setting output '" + port.name + "'");
        continue;
      }
      auto doc = std::make_shared<const Document>(PB_ENCODING_JSON, port.schema, std::move(it->second), nr.id + "." + port.name);
      // A large output is checked while parsed and its parse is not kept
      // for the run: consumers read the text, the report parses outputs
      // again when it needs them.
      for (const std::string &p : check_document(schemas_, port.schema, *doc, options.validate_documents))
        problems.push_back("output '" + port.name + "' " + p);
      nr.outputs[port.name] = doc;
    }
    if (!problems.empty()) {
      std::string why;
      for (const std::string &p : problems) why += (why.empty() ? "" : "; ") + p;
      nr.outputs.clear();
      return fail("plugin misbehaviour in " + rn.plugin->id + "/" + rn.kind->name + ": " + why);
    }
    nr.status = NodeStatus::Ok;
    commit();
    return false;
  };

  // Bookkeeping after node `idx` finished; the caller holds the lock.
  std::function<void(size_t)> after = [&](size_t idx) {
    ++shared->finished;
    NodeResult &nr = result.nodes[idx];
    if (nr.status == NodeStatus::Ok) {
      for (size_t dep : dependants[idx])
        if (--pending[dep] == 0 && result.nodes[dep].skipped_because.empty()) shared->ready.push_back(dep);
    } else if (options.cancel != nullptr && options.cancel->load()) {
      skip_dependants(idx, "interrupted before it started");  // not for want of its input
    } else if (nr.status == NodeStatus::Skipped) {
      skip_dependants(idx, "upstream node '" + nr.id + "' was skipped: " + nr.skipped_because);
    } else {
      skip_dependants(idx, "upstream node '" + nr.id + "' failed");
    }
  };

  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(n, 1)));
  if (n > 0) {
    std::unique_lock<std::mutex> lock(shared->mutex);
    shared->n = n;
    auto start_worker = [&] {
      ++shared->live_workers;
      std::thread(worker_loop, shared, &execute, &after).detach();
    };
    for (unsigned t = 0; t < jobs; ++t) start_worker();
    bool cancel_seen = false;
    Clock::time_point cancel_at{};
    while (!(shared->finished == n && shared->live_workers == 0)) {
      // Wake at the next deadline (or its grace's end), and often enough to
      // see a cancel request (set by a signal handler, which cannot notify).
      Clock::time_point wake = Clock::now() + std::chrono::milliseconds(options.cancel != nullptr ? 50 : 1000);
      for (const auto &w : shared->watch)
        if (w->in_flight) wake = std::min(wake, w->stop.load() ? w->stop_at + options.stop_grace : w->deadline);
      shared->cv.wait_until(lock, wake);
      const Clock::time_point now = Clock::now();
      if (!cancel_seen && options.cancel != nullptr && options.cancel->load()) {
        cancel_seen = true;
        cancel_at = now;
      }
      for (size_t idx = 0; idx < n; ++idx) {
        NodeWatch &w = *shared->watch[idx];
        if (!w.in_flight) continue;
        if (!w.stop.load() && now >= w.deadline) {
          w.stop.store(true);  // the node sees cancelled() and may still return
          w.stop_at = now;
          continue;
        }
        const bool stop_expired = w.stop.load() && now >= w.stop_at + options.stop_grace;
        const bool cancel_expired = cancel_seen && now >= cancel_at + options.stop_grace;
        if (!stop_expired && !cancel_expired) continue;
        if (!abandon_plugin_call(w.call)) continue;  // it returned just now
        w.in_flight = false;
        NodeResult &nr = result.nodes[idx];
        nr.status = NodeStatus::Failed;
        const std::string who = nr.plugin + "/" + nr.kind;
        nr.error = stop_expired
                       ? who + " exceeded its deadline of " + seconds_text(w.span) + " s and did not return within " +
                             seconds_text(options.stop_grace) + " s of being asked to stop; it was abandoned (its thread is left "
                             "running until the process ends; isolate the node to have it killed instead)"
                       : who + " did not return within " + seconds_text(options.stop_grace) +
                             " s of the interrupt; it was abandoned (its thread is left running until the process ends)";
        after(idx);
        --shared->live_workers;  // that thread is no longer ours
        if (shared->finished < n) start_worker();
        shared->cv.notify_all();
      }
    }
  }

  // 4. Collect pipeline outputs.
  bool all_ok = true;
  for (const NodeResult &nr : result.nodes) all_ok = all_ok && nr.status == NodeStatus::Ok;
  for (const OutputDecl &out : pipeline.pipeline.outputs) {
    for (const NodeResult &nr : result.nodes) {
      if (nr.id != out.ref.node) continue;
      auto it = nr.outputs.find(out.ref.port);
      if (it != nr.outputs.end()) result.outputs[out.name] = it->second;
      result.output_producers[out.name] = out.ref.text;
      result.output_plugins[out.name] = nr.plugin;
    }
  }
  // Report nodes in execution order.
  std::vector<NodeResult> ordered;
  ordered.reserve(n);
  for (size_t idx : pipeline.order) ordered.push_back(std::move(result.nodes[idx]));
  result.nodes = std::move(ordered);
  result.ok = all_ok;
  result.status = all_ok ? "ok" : "failed";
  if (!all_ok && options.cancel != nullptr && options.cancel->load()) result.status = "interrupted";
  result.total_ms = ms_since(start);
  return result;
}

json RunResult::to_json() const {
  json j;
  j["schema"] = "perfbound.run_result/1";
  j["status"] = status;
  j["pipeline"] = resolved;
  j["diagnostics"] = diagnostics.to_json();
  json nodes_json = json::array();
  for (const NodeResult &nr : nodes) {
    json e{{"id", nr.id},
           {"plugin", nr.plugin},
           {"plugin_version", nr.plugin_version},
           {"kind", nr.kind},
           {"status", node_status_name(nr.status)},
           {"create_ms", nr.create_ms},
           {"run_ms", nr.run_ms},
           {"destroy_ms", nr.destroy_ms},
           {"isolated", nr.isolated}};
    e["error"] = nr.error.empty() ? json(nullptr) : json(nr.error);
    e["skipped_because"] = nr.skipped_because.empty() ? json(nullptr) : json(nr.skipped_because);
    json msgs = json::array();
    for (const LogMessage &m : nr.messages) msgs.push_back({{"severity", pb_severity_name(m.severity)}, {"message", m.message}});
    e["messages"] = msgs;
    nodes_json.push_back(e);
  }
  j["nodes"] = nodes_json;
  json outs = json::object();
  for (const auto &[name, doc] : outputs) {
    const json &parsed = doc->parsed();
    outs[name] = parsed.is_discarded() ? json(nullptr) : parsed;
  }
  j["outputs"] = outs;
  j["provenance"] = provenance;
  j["total_ms"] = total_ms;
  return j;
}

}  // namespace perfbound
