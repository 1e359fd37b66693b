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

  // 3. Schedule.
  const size_t n = pipeline.nodes.size();
  result.nodes.resize(n);
  std::vector<std::vector<size_t>> dependants(n);
  std::vector<size_t> pending(n, 0);
  for (size_t idx = 0; idx < n; ++idx) {
    const ResolvedNode &rn = pipeline.nodes[idx];
    NodeResult &nr = result.nodes[idx];
    nr.id = rn.decl->id;
    nr.plugin = rn.plugin->id;
    nr.plugin_version = rn.plugin->version;
    nr.kind = rn.kind->name;
    pending[idx] = rn.depends_on.size();
    for (size_t dep : rn.depends_on) dependants[dep].push_back(idx);
  }

  std::mutex mutex;
  std::condition_variable cv;
  std::deque<size_t> ready;
  size_t finished = 0;
  for (size_t idx : pipeline.order)
    if (pending[idx] == 0) ready.push_back(idx);

  // Marks every transitive dependant of `failed` as skipped. Caller holds the lock.
  std::function<void(size_t, const std::string &)> skip_dependants = [&](size_t failed, const std::string &why) {
    for (size_t dep : dependants[failed]) {
      NodeResult &dr = result.nodes[dep];
      if (!dr.skipped_because.empty()) continue;
      dr.status = NodeStatus::Skipped;
      dr.skipped_because = why;
      ++finished;
      skip_dependants(dep, why);
    }
  };

  auto execute = [&](size_t idx) {
    const ResolvedNode &rn = pipeline.nodes[idx];
    NodeResult &nr = result.nodes[idx];
    auto fail = [&](const std::string &why) {
      nr.status = NodeStatus::Failed;
      nr.error = why;
    };
    if (options.cancel != nullptr && options.cancel->load()) {
      nr.status = NodeStatus::Skipped;
      nr.skipped_because = "interrupted before it started";
      return;
    }
    if (auto it = load_errors.find(rn.plugin->id); it != load_errors.end()) {
      fail("plugin '" + rn.plugin->id + "' could not be loaded: " + it->second);
      return;
    }
    LoadedLibrary *lib = libraries.at(rn.plugin->id);
    const pb_node_kind *kind = lib->kind(rn.kind->name);
    if (kind == nullptr) {
      fail("plugin '" + rn.plugin->id + "' no longer offers kind '" + rn.kind->name + "'");
      return;
    }
    NodeRunContext run(nr.id, *rn.kind, host_.logger());
    run.set_progress_sink(options.on_progress);
    run.set_cancel_flag(options.cancel);
    for (const auto &[port, refs] : rn.inputs) {
      for (const EdgeRef &ref : refs) {
        if (ref.from_input) {
          auto it = input_docs.find(ref.node);
          if (it != input_docs.end()) run.add_input(port, it->second);
        } else {
          std::lock_guard<std::mutex> lock(mutex);
          for (const NodeResult &other : result.nodes)
            if (other.id == ref.node) run.add_input(port, other.outputs.at(ref.port));
        }
      }
    }

    pb_node *instance = nullptr;
    std::string params = rn.params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    auto t0 = Clock::now();
    pb_status st = PB_ERR_INTERNAL;
    {
      CallScope scope("node '" + nr.id + "'");
      st = kind->create(kind, host_.c_host(), nr.id.c_str(), params.c_str(), &instance);
      nr.messages = scope.messages();
      nr.create_ms = ms_since(t0);
      if (st != PB_OK) {
        std::string why = scope.error_summary();
        fail(rn.plugin->id + "/" + rn.kind->name + " create failed (" + status_text(st) + ")" + (why.empty() ? "" : ": " + why));
        return;
      }
      if (instance == nullptr) {
        fail("plugin misbehaviour: " + rn.plugin->id + "/" + rn.kind->name + " create returned PB_OK without an instance");
        return;
      }
    }
    auto t1 = Clock::now();
    {
      CallScope scope("node '" + nr.id + "'");
      st = kind->run(instance, run.c());
      for (const LogMessage &m : scope.messages()) nr.messages.push_back(m);
    }
    nr.run_ms = ms_since(t1);
    auto t2 = Clock::now();
    kind->destroy(instance);
    nr.destroy_ms = ms_since(t2);
    for (const LogMessage &m : run.messages()) nr.messages.push_back(m);

    if (st != PB_OK) {
      std::string why;
      for (const LogMessage &m : nr.messages)
        if (m.severity >= PB_SEVERITY_ERROR) why += (why.empty() ? "" : "; ") + m.message;
      nr.refused_input = st == PB_ERR_INVALID_INPUT;
      fail(rn.plugin->id + "/" + rn.kind->name + " failed (" + status_text(st) + ")" + (why.empty() ? "" : ": " + why));
      return;
    }
    std::vector<std::string> problems = run.misuse();
    for (const PortInfo &port : rn.kind->outputs) {
      auto it = run.outputs().find(port.name);
      if (it == run.outputs().end()) {
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
      fail("plugin misbehaviour in " + rn.plugin->id + "/" + rn.kind->name + ": " + why);
      return;
    }
    nr.status = NodeStatus::Ok;
  };

  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(n, 1)));
  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      cv.wait(lock, [&] { return !ready.empty() || finished == n; });
      if (finished == n) return;
      size_t idx = ready.front();
      ready.pop_front();
      lock.unlock();
      execute(idx);
      lock.lock();
      ++finished;
      NodeResult &nr = result.nodes[idx];
      if (nr.status == NodeStatus::Ok) {
        for (size_t dep : dependants[idx])
          if (--pending[dep] == 0 && result.nodes[dep].skipped_because.empty()) ready.push_back(dep);
      } else if (nr.status == NodeStatus::Skipped) {
        skip_dependants(idx, "upstream node '" + nr.id + "' was skipped: " + nr.skipped_because);
      } else {
        skip_dependants(idx, "upstream node '" + nr.id + "' failed");
      }
      cv.notify_all();
    }
  };
  if (n > 0) {
    if (jobs <= 1) {
      worker();
    } else {
      std::vector<std::thread> threads;
      for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
      for (std::thread &t : threads) t.join();
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
           {"destroy_ms", nr.destroy_ms}};
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
