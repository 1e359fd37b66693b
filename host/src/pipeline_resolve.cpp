//===- pipeline_resolve.cpp - overrides, graph checks and ordering --------===//
#include <algorithm>
#include <perfbound/sdk/text.hpp>
#include <cerrno>
#include <map>
#include <set>
#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "paths.hpp"
#include "pipeline.hpp"
#include "suggest.hpp"

namespace perfbound {
namespace {

namespace fs = std::filesystem;

const SourceLoc kCommandLine{"<command line>", 0, 0};

/// "" when `path` is a regular file (after symbolic links); otherwise what
/// it is, for "file 'X' <why>": does not exist, is a directory, is a device,
/// a FIFO or a socket (never read as input), loops through symbolic links,
/// or cannot be looked at (and why).
std::string why_not_a_readable_file(const fs::path &path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && ec.value() == ELOOP) return "is a loop of symbolic links (too many levels of symbolic links), not a file";
  if (status.type() == fs::file_type::not_found) return "does not exist";
  if (ec) return "cannot be read: " + ec.message();
  switch (status.type()) {
    case fs::file_type::regular: return {};
    case fs::file_type::directory: return "is a directory, not a file";
    case fs::file_type::character:
    case fs::file_type::block: return "is a device, not a regular file (a device is never read as input)";
    case fs::file_type::fifo: return "is a FIFO, not a regular file (a FIFO is never read as input)";
    case fs::file_type::socket: return "is a socket, not a regular file (a socket is never read as input)";
    default: return "is not a regular file";
  }
}

std::string describe_json(const json &v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::string json_type_word(const json &v) {
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "float";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  if (v.is_object()) return "table";
  return "null";
}

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

/// Records the first cycle found as a chain of vertex indices.
struct CycleFinder : public boost::default_dfs_visitor {
  std::vector<size_t> *stack;
  std::vector<size_t> *cycle;
  void discover_vertex(Graph::vertex_descriptor v, const Graph &) const { stack->push_back(v); }
  void finish_vertex(Graph::vertex_descriptor, const Graph &) const { stack->pop_back(); }
  void back_edge(Graph::edge_descriptor e, const Graph &g) const {
    if (!cycle->empty()) return;
    size_t from = boost::source(e, g);
    size_t to = boost::target(e, g);
    auto it = std::find(stack->begin(), stack->end(), to);
    if (it == stack->end()) return;
    cycle->assign(it, stack->end());
    if (cycle->back() != from) cycle->push_back(from);
    cycle->push_back(to);
  }
};

class Resolver {
 public:
  Resolver(ResolvedPipeline &out, const PluginCatalog &catalog, ResolveMode mode, const ProfileLocator &locate,
           Diagnostics &diags)
      : out_(out), catalog_(catalog), mode_(mode), locate_(locate), diags_(diags) {}

 private:
  std::set<std::string> refused_inputs_;  // a --set value for them was refused

 public:

  void run(const std::vector<Override> &overrides) {
    const Pipeline &p = out_.pipeline;
    for (const InputDecl &in : p.inputs) {
      ResolvedInput ri;
      ri.decl = &in;
      if (in.default_value) {
        ri.value = *in.default_value;
        ri.origin = "pipeline default";
      }
      out_.inputs[in.name] = ri;
    }
    for (const NodeDecl &n : p.nodes) {
      if (p.find_input(n.id) != nullptr)
        diags_.error(n.loc, n.id, "node id '" + n.id + "' is also the name of a pipeline input; ids must be unique");
    }
    std::map<std::string, json> cli_params;  // node -> {param: value}
    apply_overrides(overrides, cli_params);
    resolve_nodes(cli_params);
    resolve_outputs();
    resolve_input_values();
    if (!diags_.has_errors()) order_graph();
  }

 private:
  std::vector<std::string> node_ids() const {
    std::vector<std::string> ids;
    for (const NodeDecl &n : out_.pipeline.nodes) ids.push_back(n.id);
    return ids;
  }
  std::vector<std::string> input_names() const {
    std::vector<std::string> names;
    for (const InputDecl &i : out_.pipeline.inputs) names.push_back(i.name);
    return names;
  }

  void apply_overrides(const std::vector<Override> &overrides, std::map<std::string, json> &cli_params) {
    for (const Override &ov : overrides) {
      std::string where = "--set " + ov.key + "=" + ov.value_text;
      std::vector<std::string> parts;
      std::stringstream ss(ov.key);
      std::string part;
      while (std::getline(ss, part, '.')) parts.push_back(part);
      if (parts.empty() || std::any_of(parts.begin(), parts.end(), [](const std::string &s) { return s.empty(); })) {
        diags_.error(kCommandLine, "", where + ": malformed key");
        continue;
      }
      const std::string &head = parts.front();
      std::string value_error;
      std::optional<json> parsed = parse_override_value_checked(ov.value_text, value_error);
      const bool verbatim_input = out_.pipeline.find_input(head) != nullptr && out_.pipeline.find_input(head)->kind != "table";
      if (!parsed && !verbatim_input) {  // a path is taken as written
        diags_.error(kCommandLine, "", where + ": " + value_error);
        refused_inputs_.insert(head);  // said once: no "has no value" after it
        continue;
      }
      json value = parsed.value_or(json(ov.value_text));
      if (const InputDecl *in = out_.pipeline.find_input(head)) {
        ResolvedInput &ri = out_.inputs[head];
        if (in->kind == "table") {
          json table = ri.value.value_or(json::object());
          if (parts.size() == 1) {
            if (!value.is_object()) {
              diags_.error(kCommandLine, "", where + ": input '" + head + "' is a table; write --set " + head +
                                                  ".KEY=VALUE or --set " + head + "={...}");
              continue;
            }
            table = value;
          } else {
            json *cursor = &table;
            for (size_t idx = 1; idx + 1 < parts.size(); ++idx) {
              json &next = (*cursor)[parts[idx]];
              if (!next.is_object()) next = json::object();
              cursor = &next;
            }
            (*cursor)[parts.back()] = value;
          }
          ri.value = table;
          ri.origin = "--set";
        } else {
          if (parts.size() != 1) {
            diags_.error(kCommandLine, "", where + ": input '" + head + "' is a " + in->kind + " input and has no keys");
            continue;
          }
          ri.value = ov.value_text;  // paths stay verbatim ("1.mlir" is not a number)
          ri.origin = "--set";
        }
        continue;
      }
      if (const NodeDecl *node = out_.pipeline.find_node(head)) {
        if (parts.size() < 2) {
          diags_.error(kCommandLine, node->id, where + ": '" + head + "' is a node; set one of its parameters with --set " +
                                                   head + ".PARAM=VALUE");
          continue;
        }
        json &params = cli_params[head];
        if (!params.is_object()) params = json::object();
        json *cursor = &params;
        for (size_t idx = 1; idx + 1 < parts.size(); ++idx) {
          json &next = (*cursor)[parts[idx]];
          if (!next.is_object()) next = json::object();
          cursor = &next;
        }
        (*cursor)[parts.back()] = value;
        continue;
      }
      std::vector<std::string> targets = input_names();
      for (const std::string &id : node_ids()) targets.push_back(id);
      diags_.error(kCommandLine, "", where + ": '" + head + "' is neither a pipeline input nor a node" +
                                          valid_list_suffix(head, targets, "inputs and nodes"));
    }
  }

  void check_param(const ResolvedNode &rn, const ParamInfo &info, const json &value, const SourceLoc &loc) {
    if (!param_value_matches(info.type, value)) {
      diags_.error(loc, rn.decl->id, "parameter '" + info.name + "' of " + rn.plugin->id + "/" + rn.kind->name +
                                         " expects " + param_type_name(info.type) + ", got " + json_type_word(value) +
                                         " " + describe_json(value));
      return;
    }
    // A number outside the kind's declared range (ABI 1.2), and a NaN or an
    // infinite float under any declaration, is refused here: a nonsense
    // rate such as 1e-308 issues per cycle would silently null a term.
    if ((info.type == PB_PARAM_FLOAT || info.type == PB_PARAM_INT) && value.is_number()) {
      std::string problem = info.range_problem(value.get<double>());
      if (!problem.empty()) {
        diags_.error(loc, rn.decl->id, "parameter '" + info.name + "' of " + rn.plugin->id + "/" + rn.kind->name + " " + problem);
        return;
      }
    } else if (std::string shown; auto at = first_nonfinite_number(value, &shown)) {
      // A JSON parameter (e.g. measured_us) from TOML or --set: JSON has no
      // NaN or infinity (it would be written as null), and no parameter means one.
      diags_.error(loc, rn.decl->id, "parameter '" + info.name + "' of " + rn.plugin->id + "/" + rn.kind->name +
                                         (at->empty() ? "" : " at '" + *at + "'") + " must be a finite number, got " + shown);
      return;
    }
    if (info.choices) {
      bool found = std::find(info.choices->begin(), info.choices->end(), value) != info.choices->end();
      if (!found)
        diags_.error(loc, rn.decl->id, "parameter '" + info.name + "' must be one of " + info.choices->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                                           ", got " + describe_json(value));
    }
  }

  void resolve_nodes(const std::map<std::string, json> &cli_params) {
    const Pipeline &p = out_.pipeline;
    for (const NodeDecl &n : p.nodes) {
      ResolvedNode rn;
      rn.decl = &n;
      if (n.plugin.empty() || n.kind.empty()) {
        out_.nodes.push_back(std::move(rn));
        continue;
      }
      rn.plugin = catalog_.find(n.plugin);
      if (rn.plugin == nullptr) {
        diags_.error(n.plugin_loc, n.id,
                     "unknown plugin '" + n.plugin + "'" + valid_list_suffix(n.plugin, catalog_.ids, "known plugins") +
                         "; searched " + (catalog_.search_path.empty() ? std::string("no directory") : catalog_.search_path) +
                         " (plugins are never loaded from a pipeline's folder; add a directory with --plugin-path DIR "
                         "or PERFBOUND_PLUGIN_PATH)");
        out_.nodes.push_back(std::move(rn));
        continue;
      }
      rn.kind = rn.plugin->find_kind(n.kind);
      if (rn.kind == nullptr) {
        // The first plugin with an id wins: a kind from another build of the
        // same plugin is found only when its directory comes first.
        diags_.error(n.kind_loc, n.id, "plugin '" + n.plugin + "' has no node kind '" + n.kind + "'" +
                                           valid_list_suffix(n.kind, rn.plugin->kind_names(), "its kinds") + "; this is the one at " +
                                           rn.plugin->library.string() + ", the first on the search path " +
                                           (catalog_.search_path.empty() ? std::string("(unknown)") : catalog_.search_path) +
                                           "; if another build of it offers the kind, put its directory first with "
                                           "--plugin-path DIR or PERFBOUND_PLUGIN_PATH");
        out_.nodes.push_back(std::move(rn));
        continue;
      }
      // Parameters: defaults < pipeline file < --set.
      std::vector<std::string> param_names;
      for (const ParamInfo &pi : rn.kind->params) param_names.push_back(pi.name);
      for (const ParamInfo &pi : rn.kind->params) {
        if (!pi.required) {
          rn.params[pi.name] = pi.default_value;
          rn.param_origin[pi.name] = "default";
        }
      }
      for (const auto &[name, value] : n.params.items()) {
        const ParamInfo *pi = rn.kind->find_param(name);
        SourceLoc loc = n.param_locs.count(name) != 0 ? n.param_locs.at(name) : n.loc;
        if (pi == nullptr) {
          diags_.error(loc, n.id, "unknown parameter '" + name + "' for " + rn.plugin->id + "/" + rn.kind->name +
                                      valid_list_suffix(name, param_names, "valid parameters"));
          continue;
        }
        check_param(rn, *pi, value, loc);
        rn.params[name] = value;
        rn.param_origin[name] = "pipeline";
      }
      if (auto it = cli_params.find(n.id); it != cli_params.end()) {
        for (const auto &[name, value] : it->second.items()) {
          const ParamInfo *pi = rn.kind->find_param(name);
          if (pi == nullptr) {
            diags_.error(kCommandLine, n.id, "--set " + n.id + "." + name + ": unknown parameter '" + name + "' for " +
                                                 rn.plugin->id + "/" + rn.kind->name +
                                                 valid_list_suffix(name, param_names, "valid parameters"));
            continue;
          }
          check_param(rn, *pi, value, kCommandLine);
          rn.params[name] = value;
          rn.param_origin[name] = "--set";
        }
      }
      for (const ParamInfo &pi : rn.kind->params) {
        if (pi.required && !rn.params.contains(pi.name))
          diags_.error(n.loc, n.id, "required parameter '" + pi.name + "' (" + param_type_name(pi.type) + ") of " +
                                        rn.plugin->id + "/" + rn.kind->name + " is not set");
      }
      // Input ports.
      std::vector<std::string> port_names;
      for (const PortInfo &port : rn.kind->inputs) port_names.push_back(port.name);
      std::set<std::string> connected;
      for (const NodeInput &ni : n.inputs) {
        const PortInfo *port = rn.kind->find_input(ni.port);
        if (port == nullptr) {
          diags_.error(ni.loc, n.id, "unknown input port '" + ni.port + "' on " + rn.plugin->id + "/" + rn.kind->name +
                                         valid_list_suffix(ni.port, port_names, "its input ports"));
          continue;
        }
        connected.insert(ni.port);
        if (!port->multi() && ni.written_as_list) {
          diags_.error(ni.loc, n.id, "input port '" + ni.port + "' takes one document; connect it with a single \"node.port\" string, not a list");
          continue;
        }
        if (port->multi() && ni.refs.empty() && !port->optional()) {
          diags_.error(ni.loc, n.id, "input port '" + ni.port + "' needs at least one connection");
        }
        std::vector<EdgeRef> refs;
        for (const EdgeRef &ref : ni.refs)
          if (check_ref(rn, *port, ref)) refs.push_back(ref);
        rn.inputs[ni.port] = refs;
      }
      for (const PortInfo &port : rn.kind->inputs) {
        if (connected.count(port.name) == 0 && !port.optional())
          diags_.error(n.loc, n.id, "required input port '" + port.name + "' (" + port.schema + ") of " + rn.plugin->id +
                                        "/" + rn.kind->name + " is not connected");
      }
      check_alternatives(n, rn, connected);
      out_.nodes.push_back(std::move(rn));
    }
  }

  /// Groups of alternative inputs (pb_port.one_of, ABI 1.1): exactly one
  /// input of each group must be connected.
  void check_alternatives(const NodeDecl &n, const ResolvedNode &rn, const std::set<std::string> &connected) {
    std::map<std::string, std::vector<const PortInfo *>> groups;
    for (const PortInfo &port : rn.kind->inputs)
      if (!port.one_of.empty()) groups[port.one_of].push_back(&port);
    const std::string who = rn.plugin->id + "/" + rn.kind->name;
    for (const auto &[group, ports] : groups) {
      std::vector<std::string> all, on;
      for (const PortInfo *p : ports) {
        all.push_back("'" + p->name + "' (" + p->schema + ")");
        if (connected.count(p->name) != 0) on.push_back("'" + p->name + "'");
      }
      auto join = [](const std::vector<std::string> &items, const char *last) {
        std::string out;
        for (size_t idx = 0; idx < items.size(); ++idx)
          out += (idx == 0 ? "" : idx + 1 == items.size() ? last : ", ") + items[idx];
        return out;
      };
      if (on.empty())
        diags_.error(n.loc, n.id, "connect one of " + join(all, " or ") + " of " + who + " (alternative inputs '" + group + "')");
      else if (on.size() > 1)
        diags_.error(n.loc, n.id, "connects " + join(on, " and ") + " of " + who + ", which are alternatives ('" + group +
                                      "'): connect exactly one of " + join(all, " or "));
    }
  }

  /// Checks one connection; returns false when it is unusable.
  bool check_ref(const ResolvedNode &consumer, const PortInfo &port, const EdgeRef &ref) {
    const std::string &id = consumer.decl->id;
    if (ref.from_input) {
      const InputDecl *in = out_.pipeline.find_input(ref.node);
      if (in == nullptr) {
        diags_.error(ref.loc, id, "connection '" + ref.text + "' names an unknown pipeline input '" + ref.node + "'" +
                                      valid_list_suffix(ref.node, input_names(), "pipeline inputs"));
        return false;
      }
      if (!in->schema.empty() && in->schema != port.schema) {
        diags_.error(ref.loc, id, "type mismatch: pipeline input '" + in->name + "' provides " + in->schema +
                                      " but input port '" + port.name + "' expects " + port.schema);
        return false;
      }
      return true;
    }
    if (ref.node == id) {
      diags_.error(ref.loc, id, "connection '" + ref.text + "' connects the node to itself");
      return false;
    }
    const NodeDecl *producer = out_.pipeline.find_node(ref.node);
    if (producer == nullptr) {
      diags_.error(ref.loc, id, "connection '" + ref.text + "' names an unknown node '" + ref.node + "'" +
                                    valid_list_suffix(ref.node, node_ids(), "nodes"));
      return false;
    }
    const PluginInfo *pp = catalog_.find(producer->plugin);
    const KindInfo *pk = pp != nullptr ? pp->find_kind(producer->kind) : nullptr;
    if (pk == nullptr) return true;  // the producer's own error is reported on the producer
    const PortInfo *out_port = pk->find_output(ref.port);
    if (out_port == nullptr) {
      std::vector<std::string> outs;
      for (const PortInfo &o : pk->outputs) outs.push_back(o.name);
      diags_.error(ref.loc, id, "node '" + ref.node + "' (" + pp->id + "/" + pk->name + ") has no output port '" +
                                    ref.port + "'" + valid_list_suffix(ref.port, outs, "its output ports"));
      return false;
    }
    if (out_port->schema != port.schema) {
      diags_.error(ref.loc, id, "type mismatch: '" + ref.text + "' produces " + out_port->schema + " but input port '" +
                                    port.name + "' expects " + port.schema);
      return false;
    }
    return true;
  }

  void resolve_outputs() {
    for (const OutputDecl &out : out_.pipeline.outputs) {
      const NodeDecl *producer = out_.pipeline.find_node(out.ref.node);
      if (producer == nullptr) {
        diags_.error(out.ref.loc, "", "output '" + out.name + "' names an unknown node '" + out.ref.node + "'" +
                                          valid_list_suffix(out.ref.node, node_ids(), "nodes"));
        continue;
      }
      const PluginInfo *pp = catalog_.find(producer->plugin);
      const KindInfo *pk = pp != nullptr ? pp->find_kind(producer->kind) : nullptr;
      if (pk == nullptr) continue;
      if (pk->find_output(out.ref.port) == nullptr) {
        std::vector<std::string> outs;
        for (const PortInfo &o : pk->outputs) outs.push_back(o.name);
        diags_.error(out.ref.loc, "", "output '" + out.name + "': node '" + out.ref.node + "' has no output port '" +
                                          out.ref.port + "'" + valid_list_suffix(out.ref.port, outs, "its output ports"));
      }
    }
    if (out_.pipeline.outputs.empty() && !out_.pipeline.nodes.empty())
      diags_.warning({out_.pipeline.display_path, 1, 1}, "", "the pipeline declares no [outputs]; nothing will be reported");
  }

  void resolve_input_values() {
    const fs::path base = out_.pipeline.directory();
    for (auto &[name, ri] : out_.inputs) {
      const InputDecl &decl = *ri.decl;
      SourceLoc loc = ri.origin == "pipeline default" ? decl.default_loc : kCommandLine;
      if (!ri.value) {
        if (mode_ == ResolveMode::Run && decl.required && refused_inputs_.count(name) == 0) {
          std::string hint = decl.kind == "table" ? " --set " + name + ".KEY=VALUE"
                             : decl.kind == "profile" ? " --profile DIR"
                                                      : " --set " + name + "=PATH";
          diags_.error(decl.loc, "", "pipeline input '" + name + "' (" + decl.kind + ", " + decl.schema +
                                         ") has no value; give it with" + hint);
        }
        continue;
      }
      if (decl.kind == "table") {
        if (!ri.value->is_object()) diags_.error(loc, "", "pipeline input '" + name + "' must be a table");
        continue;
      }
      if (!ri.value->is_string()) {
        diags_.error(loc, "", "pipeline input '" + name + "' must be a path string");
        continue;
      }
      const std::string text = ri.value->get<std::string>();
      // Defaults are relative to the pipeline file; command-line values to the
      // current directory.
      fs::path relative_base = ri.origin == "pipeline default" ? base : fs::current_path();
      if (decl.kind == "profile") {
        std::optional<fs::path> dir = locate_ ? locate_(text, relative_base) : std::nullopt;
        if (!dir) {
          diags_.error(loc, "", "pipeline input '" + name + "': hardware profile '" + text + "' not found" +
                                    profile_not_found_hint(text));
          continue;
        }
        ri.path = *dir;
        continue;
      }
      fs::path path = fs::path(text).is_absolute() ? fs::path(text) : relative_base / text;
      path = path.lexically_normal();
      ri.path = path;
      // A missing default is worth a lint error; a missing --set file too.
      // Whatever is there instead is named: "does not exist" for a directory
      // or a FIFO sends the user looking for the wrong thing.
      if (std::string why = why_not_a_readable_file(path); !why.empty())
        diags_.error(loc, "", "pipeline input '" + name + "': file '" + path.string() + "' " + why);
    }
    // Consumers of absent optional inputs.
    for (ResolvedNode &rn : out_.nodes) {
      if (rn.kind == nullptr) continue;
      for (auto &[port_name, refs] : rn.inputs) {
        const PortInfo *port = rn.kind->find_input(port_name);
        std::vector<EdgeRef> kept;
        std::vector<std::string> absent;
        for (const EdgeRef &ref : refs) {
          if (ref.from_input) {
            auto it = out_.inputs.find(ref.node);
            if (it != out_.inputs.end() && !it->second.value) {
              absent.push_back(ref.node);
              continue;
            }
          }
          kept.push_back(ref);
        }
        // A required pipeline input without a value is already reported;
        // name the consumer only for optional inputs, where it is the news.
        bool absent_optional = false;
        for (const std::string &name : absent) absent_optional = absent_optional || !out_.inputs.at(name).decl->required;
        if (mode_ == ResolveMode::Run && kept.empty() && absent_optional && port != nullptr && !port->optional()) {
          diags_.error(rn.decl->loc, rn.decl->id, "required input port '" + port_name + "' is fed by pipeline input '" +
                                                      absent.front() + "', which has no value; give it with --set " +
                                                      absent.front() + "=...");
        }
        refs = kept;
      }
    }
  }

  void order_graph() {
    const size_t n = out_.nodes.size();
    Graph graph(n);
    std::map<std::string, size_t> index;
    for (size_t idx = 0; idx < n; ++idx) index[out_.nodes[idx].decl->id] = idx;
    for (size_t idx = 0; idx < n; ++idx) {
      std::set<size_t> deps;
      for (const auto &[port, refs] : out_.nodes[idx].inputs)
        for (const EdgeRef &ref : refs)
          if (!ref.from_input) deps.insert(index.at(ref.node));
      for (size_t dep : deps) boost::add_edge(dep, idx, graph);
      out_.nodes[idx].depends_on.assign(deps.begin(), deps.end());
    }
    std::vector<size_t> stack;
    std::vector<size_t> cycle;
    CycleFinder finder;
    finder.stack = &stack;
    finder.cycle = &cycle;
    boost::depth_first_search(graph, boost::visitor(finder));
    if (!cycle.empty()) {
      std::string chain;
      for (size_t idx = 0; idx < cycle.size(); ++idx) {
        if (idx > 0) chain += " -> ";
        chain += out_.nodes[cycle[idx]].decl->id;
      }
      const NodeDecl &first = *out_.nodes[cycle.front()].decl;
      diags_.error(first.loc, first.id, "the pipeline has a cycle: " + chain);
      return;
    }
    // Kahn's algorithm, always taking the lowest-indexed ready node, so the
    // order is deterministic and follows the file where dependencies allow.
    std::vector<size_t> indegree(n, 0);
    for (size_t idx = 0; idx < n; ++idx) indegree[idx] = boost::in_degree(idx, graph);
    std::set<size_t> ready;
    for (size_t idx = 0; idx < n; ++idx)
      if (indegree[idx] == 0) ready.insert(idx);
    while (!ready.empty()) {
      size_t idx = *ready.begin();
      ready.erase(ready.begin());
      out_.order.push_back(idx);
      for (auto [it, end] = boost::adjacent_vertices(idx, graph); it != end; ++it)
        if (--indegree[*it] == 0) ready.insert(*it);
    }
  }

  ResolvedPipeline &out_;
  const PluginCatalog &catalog_;
  ResolveMode mode_;
  const ProfileLocator &locate_;
  Diagnostics &diags_;
};

}  // namespace

const ResolvedNode *ResolvedPipeline::find_node(std::string_view id) const {
  for (const ResolvedNode &n : nodes)
    if (n.decl->id == id) return &n;
  return nullptr;
}

std::vector<std::string> ResolvedPipeline::plugin_ids() const {
  std::vector<std::string> ids;
  for (size_t idx : order) {
    const std::string &id = nodes[idx].plugin->id;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

json ResolvedPipeline::to_json() const {
  json j;
  j["file"] = pipeline.path.empty() ? pipeline.display_path : pipeline.path.string();
  j["sha256"] = pipeline.sha256;
  j["version"] = pipeline.version;
  j["description"] = pipeline.description;
  json ins = json::object();
  for (const auto &[name, ri] : inputs) {
    json e{{"kind", ri.decl->kind}, {"schema", ri.decl->schema}, {"required", ri.decl->required}};
    e["value"] = ri.value ? *ri.value : json(nullptr);
    e["origin"] = ri.value ? json(ri.origin) : json(nullptr);
    if (!ri.path.empty()) e["path"] = ri.path.string();
    ins[name] = e;
  }
  j["inputs"] = ins;
  json nodes_json = json::object();
  for (const ResolvedNode &rn : nodes) {
    json e;
    e["plugin"] = rn.decl->plugin;
    e["plugin_version"] = rn.plugin != nullptr ? json(rn.plugin->version) : json(nullptr);
    e["kind"] = rn.decl->kind;
    json params = json::object();
    for (const auto &[name, value] : rn.params.items())
      params[name] = {{"value", value}, {"origin", rn.param_origin.count(name) != 0 ? rn.param_origin.at(name) : "default"}};
    e["params"] = params;
    json in = json::object();
    for (const auto &[port, refs] : rn.inputs) {
      json arr = json::array();
      for (const EdgeRef &r : refs) arr.push_back(r.text);
      in[port] = arr;
    }
    e["inputs"] = in;
    nodes_json[rn.decl->id] = e;
  }
  j["nodes"] = nodes_json;
  json outs = json::object();
  for (const OutputDecl &o : pipeline.outputs) outs[o.name] = o.ref.text;
  j["outputs"] = outs;
  json order_json = json::array();
  for (size_t idx : order) order_json.push_back(nodes[idx].decl->id);
  j["order"] = order_json;
  return j;
}

std::string ResolvedPipeline::to_text() const {
  std::ostringstream os;
  os << "# resolved pipeline: " << (pipeline.path.empty() ? pipeline.display_path : pipeline.path.string()) << "\n";
  os << "# precedence: --set > pipeline file > plugin defaults\n";
  os << "version = " << pipeline.version << "\n";
  if (!pipeline.description.empty()) os << "description = " << json(pipeline.description).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  for (const InputDecl &decl : pipeline.inputs) {
    const ResolvedInput &ri = inputs.at(decl.name);
    os << "\n[inputs." << decl.name << "]  # " << decl.kind << ", " << decl.schema << (decl.required ? "" : ", optional") << "\n";
    if (ri.value) {
      os << "value = " << ri.value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "  # " << ri.origin << "\n";
      if (!ri.path.empty()) os << "# resolved path: " << ri.path.string() << "\n";
    } else {
      os << "# no value" << (decl.required ? " (required at run time)" : "") << "\n";
    }
  }
  for (size_t idx : order) {
    const ResolvedNode &rn = nodes[idx];
    os << "\n[nodes." << rn.decl->id << "]  # " << rn.plugin->id << " " << rn.plugin->version << " / " << rn.kind->name << "\n";
    for (const auto &[name, value] : rn.params.items())
      os << "params." << name << " = " << value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "  # " << rn.param_origin.at(name) << "\n";
    for (const auto &[port, refs] : rn.inputs) {
      os << "inputs." << port << " = ";
      if (refs.size() == 1 && !rn.kind->find_input(port)->multi()) {
        os << json(refs.front().text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      } else {
        json arr = json::array();
        for (const EdgeRef &r : refs) arr.push_back(r.text);
        std::string one_line = arr.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (port.size() + 10 + one_line.size() <= pb::sdk::text::kReportWidth) {
          os << one_line;
        } else {  // one entry per line (TOML allows it): the view fits 100 columns
          os << "[\n";
          for (const json &entry : arr) os << "  " << entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ",\n";
          os << "]";
        }
      }
      os << "\n";
    }
  }
  if (!pipeline.outputs.empty()) {
    os << "\n[outputs]\n";
    for (const OutputDecl &o : pipeline.outputs) os << o.name << " = " << json(o.ref.text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  // A comment that stays a comment when it wraps.
  std::string line = "# execution order:";
  for (size_t idx : order) {
    const std::string &id = nodes[idx].decl->id;
    if (line.size() + 1 + id.size() > pb::sdk::text::kReportWidth) {
      os << "\n" << line;
      line = "#  ";
    }
    line += " " + id;
  }
  os << "\n" << line << "\n";
  return os.str();
}

std::optional<ResolvedPipeline> resolve_pipeline(Pipeline pipeline, const PluginCatalog &catalog,
                                                 const std::vector<Override> &overrides, ResolveMode mode,
                                                 const ProfileLocator &locate_profile, Diagnostics &diags) {
  ResolvedPipeline out;
  out.pipeline = std::move(pipeline);
  size_t errors_before = diags.error_count();
  Resolver resolver(out, catalog, mode, locate_profile, diags);
  resolver.run(overrides);
  if (diags.error_count() > errors_before) return std::nullopt;
  return out;
}

}  // namespace perfbound
