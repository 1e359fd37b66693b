//===- pipeline_parse.cpp - TOML pipeline files to the Pipeline model -----===//
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/number.hpp>

#include <toml++/toml.h>

#include "json_schema.hpp"
#include "paths.hpp"
#include "pipeline.hpp"
#include "sha256.hpp"
#include "suggest.hpp"

namespace perfbound {
namespace {

/// Limits of one pipeline file (docs/cli.md, Limits): a pipeline past them is
/// refused at the line that crosses them, before resolution allocates per
/// connection.
constexpr size_t kMaxPipelineNodes = 4096;
constexpr size_t kMaxRefsPerPort = 4096;

SourceLoc loc_of(const toml::source_region &region, const std::string &file) {
  return SourceLoc{file, region.begin.line, region.begin.column};
}

json toml_to_json(const toml::node &node) {
  if (const auto *t = node.as_table()) {
    json obj = json::object();
    for (auto &&[key, value] : *t) obj[std::string(key.str())] = toml_to_json(value);
    return obj;
  }
  if (const auto *a = node.as_array()) {
    json arr = json::array();
    for (const toml::node &value : *a) arr.push_back(toml_to_json(value));
    return arr;
  }
  if (const auto *s = node.as_string()) return s->get();
  if (const auto *i = node.as_integer()) return i->get();
  if (const auto *f = node.as_floating_point()) return f->get();
  if (const auto *b = node.as_boolean()) return b->get();
  std::ostringstream os;
  if (const auto *d = node.as_date()) os << d->get();
  else if (const auto *tm = node.as_time()) os << tm->get();
  else if (const auto *dt = node.as_date_time()) os << dt->get();
  return os.str();
}

/// Reports every NaN or infinite float in a TOML value (a node's params, an
/// input's default) at its line and column: JSON cannot carry one (it would
/// become null), and no parameter means one.
void check_finite(const toml::node &node, const std::string &path, const std::string &file, const std::string &node_id,
                  Diagnostics &diags) {
  if (const auto *f = node.as_floating_point()) {
    if (!std::isfinite(f->get()))
      diags.error(loc_of(node.source(), file), node_id,
                  "'" + path + "' is " + (std::isnan(f->get()) ? "nan" : f->get() > 0 ? "inf" : "-inf") + "; every number must be finite");
  } else if (const auto *t = node.as_table()) {
    for (auto &&[key, value] : *t) check_finite(value, path + "." + std::string(key.str()), file, node_id, diags);
  } else if (const auto *a = node.as_array()) {
    size_t idx = 0;
    for (const toml::node &value : *a) check_finite(value, path + "[" + std::to_string(idx++) + "]", file, node_id, diags);
  }
}

const char *toml_type_name(const toml::node &node) {
  switch (node.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    default: return "date/time";
  }
}

class Parser {
 public:
  Parser(std::string file, Diagnostics &diags) : file_(std::move(file)), diags_(diags) {}

  void parse(const toml::table &root, Pipeline &pipeline) {
    static const std::vector<std::string> kTopKeys = {"version", "description", "inputs", "nodes", "outputs"};
    check_keys(root, kTopKeys, "", "top-level key");
    if (const toml::node *v = root.get("version")) {
      if (const auto *i = v->as_integer()) {
        pipeline.version = i->get();
        if (pipeline.version != kPipelineFormatVersion)
          diags_.error(loc(*v), "", "unsupported pipeline format version " + std::to_string(pipeline.version) +
                                        "; this perfbound reads version " + std::to_string(kPipelineFormatVersion));
      } else {
        diags_.error(loc(*v), "", std::string("'version' must be an integer, got ") + toml_type_name(*v));
      }
    } else {
      diags_.error({file_, 1, 1}, "", "missing 'version = 1' at the top of the pipeline file");
    }
    if (const toml::node *d = root.get("description")) {
      if (const auto *s = d->as_string())
        pipeline.description = s->get();
      else
        diags_.error(loc(*d), "", "'description' must be a string");
    }
    if (const toml::node *in = root.get("inputs")) parse_inputs(*in, pipeline);
    if (const toml::node *nodes = root.get("nodes")) parse_nodes(*nodes, pipeline);
    if (const toml::node *outs = root.get("outputs")) parse_outputs(*outs, pipeline);
  }

 private:
  SourceLoc loc(const toml::node &node) const { return loc_of(node.source(), file_); }

  void check_keys(const toml::table &table, const std::vector<std::string> &valid, const std::string &node,
                  const std::string &what) {
    for (auto &&[key, value] : table) {
      std::string k(key.str());
      if (std::find(valid.begin(), valid.end(), k) != valid.end()) continue;
      diags_.error(loc_of(key.source(), file_), node, "unknown " + what + " '" + k + "'" + valid_list_suffix(k, valid, "valid keys"));
    }
  }

  std::optional<std::string> get_string(const toml::table &t, const char *key, const std::string &node, bool required,
                                        const SourceLoc &owner) {
    const toml::node *n = t.get(key);
    if (n == nullptr) {
      if (required) diags_.error(owner, node, std::string("missing required key '") + key + "'");
      return std::nullopt;
    }
    if (const auto *s = n->as_string()) return s->get();
    diags_.error(loc(*n), node, std::string("'") + key + "' must be a string, got " + toml_type_name(*n));
    return std::nullopt;
  }

  void parse_inputs(const toml::node &node, Pipeline &pipeline) {
    const auto *table = node.as_table();
    if (table == nullptr) {
      diags_.error(loc(node), "", "[inputs] must be a table of input declarations");
      return;
    }
    static const std::vector<std::string> kKeys = {"kind", "schema", "required", "default", "description"};
    static const std::vector<std::string> kKinds = {"file", "table", "document", "profile"};
    for (auto &&[key, value] : *table) {
      InputDecl decl;
      decl.name = std::string(key.str());
      decl.loc = loc_of(key.source(), file_);
      const std::string who = "inputs." + decl.name;
      if (!is_valid_name(decl.name))
        diags_.error(decl.loc, "", "input name '" + decl.name + "' must match [a-z][a-z0-9_]*");
      const auto *t = value.as_table();
      if (t == nullptr) {
        diags_.error(loc(value), "", "input '" + decl.name + "' must be a table such as { kind = \"file\", schema = \"...\" }");
        continue;
      }
      for (auto &&[k, v] : *t) {
        std::string ks(k.str());
        if (std::find(kKeys.begin(), kKeys.end(), ks) == kKeys.end())
          diags_.error(loc_of(k.source(), file_), "", "unknown key '" + ks + "' in input '" + decl.name + "'" +
                                                         valid_list_suffix(ks, kKeys, "valid keys"));
      }
      decl.kind = get_string(*t, "kind", "", true, decl.loc).value_or("");
      if (!decl.kind.empty() && std::find(kKinds.begin(), kKinds.end(), decl.kind) == kKinds.end()) {
        diags_.error(loc(*t->get("kind")), "", "input '" + decl.name + "' has unknown kind '" + decl.kind + "'" +
                                                   valid_list_suffix(decl.kind, kKinds, "valid kinds"));
      }
      auto schema = get_string(*t, "schema", "", decl.kind != "profile" && !decl.kind.empty(), decl.loc);
      if (decl.kind == "profile") {
        if (schema && *schema != kProfileSchema)
          diags_.error(loc(*t->get("schema")), "", "input '" + decl.name + "' of kind profile always has schema '" +
                                                       std::string(kProfileSchema) + "'");
        decl.schema = kProfileSchema;
      } else if (schema) {
        decl.schema = *schema;
        if (!is_valid_schema_id(decl.schema))
          diags_.error(loc(*t->get("schema")), "", "input '" + decl.name + "': schema '" + decl.schema +
                                                       "' is not of the form 'vendor.name/N'");
      }
      if (const toml::node *r = t->get("required")) {
        if (const auto *b = r->as_boolean())
          decl.required = b->get();
        else
          diags_.error(loc(*r), "", "'required' must be true or false");
      }
      if (const toml::node *d = t->get("default")) {
        check_finite(*d, "inputs." + decl.name + ".default", file_, "", diags_);
        decl.default_value = toml_to_json(*d);
        decl.default_loc = loc(*d);
        bool wants_table = decl.kind == "table";
        if (wants_table && !d->is_table())
          diags_.error(loc(*d), "", "input '" + decl.name + "': the default of a table input must be a table");
        if (!wants_table && !decl.kind.empty() && !d->is_string())
          diags_.error(loc(*d), "", "input '" + decl.name + "': the default of a " + decl.kind + " input must be a string");
      }
      decl.description = get_string(*t, "description", "", false, decl.loc).value_or("");
      (void)who;
      pipeline.inputs.push_back(std::move(decl));
    }
  }

  std::optional<EdgeRef> parse_ref(const toml::node &node, const std::string &node_id) {
    const auto *s = node.as_string();
    if (s == nullptr) {
      diags_.error(loc(node), node_id, std::string("a connection must be a string \"node.port\", got ") + toml_type_name(node));
      return std::nullopt;
    }
    EdgeRef ref;
    ref.text = s->get();
    ref.loc = loc(node);
    auto dot = ref.text.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == ref.text.size() || ref.text.find('.', dot + 1) != std::string::npos) {
      diags_.error(ref.loc, node_id, "connection '" + ref.text + "' must be written \"node.port\" or \"inputs.name\"");
      return std::nullopt;
    }
    std::string head = ref.text.substr(0, dot);
    std::string tail = ref.text.substr(dot + 1);
    if (head == "inputs") {
      ref.from_input = true;
      ref.node = tail;
    } else {
      ref.node = head;
      ref.port = tail;
    }
    return ref;
  }

  void parse_nodes(const toml::node &node, Pipeline &pipeline) {
    const auto *table = node.as_table();
    if (table == nullptr) {
      diags_.error(loc(node), "", "[nodes] must be a table of node declarations");
      return;
    }
    static const std::vector<std::string> kKeys = {"plugin", "kind", "params", "inputs", "description", "deadline_s", "isolate"};
    if (table->size() > kMaxPipelineNodes) {
      diags_.error(loc(node), "", "the pipeline declares " + std::to_string(table->size()) + " nodes, more than the limit of " +
                                      std::to_string(kMaxPipelineNodes));
      return;
    }
    for (auto &&[key, value] : *table) {
      NodeDecl decl;
      decl.id = std::string(key.str());
      decl.loc = loc_of(key.source(), file_);
      if (!is_valid_name(decl.id))
        diags_.error(decl.loc, decl.id, "node id '" + decl.id + "' must match [a-z][a-z0-9_]*");
      if (decl.id == "inputs") diags_.error(decl.loc, decl.id, "'inputs' is reserved for pipeline inputs; rename the node");
      const auto *t = value.as_table();
      if (t == nullptr) {
        diags_.error(loc(value), decl.id, "a node must be a table with 'plugin' and 'kind'");
        continue;
      }
      check_keys(*t, kKeys, decl.id, "key");
      decl.plugin = get_string(*t, "plugin", decl.id, true, decl.loc).value_or("");
      if (const toml::node *p = t->get("plugin")) decl.plugin_loc = loc(*p);
      decl.kind = get_string(*t, "kind", decl.id, true, decl.loc).value_or("");
      if (const toml::node *k = t->get("kind")) decl.kind_loc = loc(*k);
      decl.description = get_string(*t, "description", decl.id, false, decl.loc).value_or("");
      if (const toml::node *d = t->get("deadline_s")) {
        const pb::sdk::NumberRange range = pb::sdk::NumberRange::positive().at_most(kMaxNodeDeadlineSeconds);
        std::optional<double> seconds;
        if (const auto *i = d->as_integer()) seconds = static_cast<double>(i->get());
        if (const auto *f = d->as_floating_point()) seconds = f->get();
        if (!seconds)
          diags_.error(loc(*d), decl.id, std::string("'deadline_s' must be a number of seconds, got ") + toml_type_name(*d));
        else if (std::string problem = pb::sdk::number_problem(*seconds, range); !problem.empty())
          diags_.error(loc(*d), decl.id, "'deadline_s' " + problem);
        else
          decl.deadline_s = *seconds;
      }
      if (const toml::node *i = t->get("isolate")) {
        if (const auto *b = i->as_boolean())
          decl.isolate = b->get();
        else
          diags_.error(loc(*i), decl.id, std::string("'isolate' must be true or false, got ") + toml_type_name(*i));
      }
      if (const toml::node *p = t->get("params")) {
        if (const auto *pt = p->as_table()) {
          for (auto &&[pk, pv] : *pt) {
            std::string name(pk.str());
            decl.params[name] = toml_to_json(pv);
            decl.param_locs[name] = loc_of(pk.source(), file_);
          }
        } else {
          diags_.error(loc(*p), decl.id, "'params' must be a table");
        }
      }
      if (const toml::node *in = t->get("inputs")) {
        if (const auto *it = in->as_table()) {
          for (auto &&[port_key, port_value] : *it) {
            NodeInput ni;
            ni.port = std::string(port_key.str());
            ni.loc = loc_of(port_key.source(), file_);
            if (const auto *arr = port_value.as_array()) {
              ni.written_as_list = true;
              if (arr->size() > kMaxRefsPerPort) {
                diags_.error(loc(port_value), decl.id, "input '" + ni.port + "' lists " + std::to_string(arr->size()) +
                                                           " connections, more than the limit of " + std::to_string(kMaxRefsPerPort) +
                                                           " per port");
                decl.inputs.push_back(std::move(ni));
                continue;
              }
              for (const toml::node &elem : *arr)
                if (auto ref = parse_ref(elem, decl.id)) ni.refs.push_back(*ref);
            } else if (auto ref = parse_ref(port_value, decl.id)) {
              ni.refs.push_back(*ref);
            }
            decl.inputs.push_back(std::move(ni));
          }
        } else {
          diags_.error(loc(*in), decl.id, "'inputs' must be a table such as { port = \"node.port\" }");
        }
      }
      pipeline.nodes.push_back(std::move(decl));
    }
  }

  void parse_outputs(const toml::node &node, Pipeline &pipeline) {
    const auto *table = node.as_table();
    if (table == nullptr) {
      diags_.error(loc(node), "", "[outputs] must be a table of NAME = \"node.port\"");
      return;
    }
    for (auto &&[key, value] : *table) {
      OutputDecl out;
      out.name = std::string(key.str());
      if (!is_valid_name(out.name))
        diags_.error(loc_of(key.source(), file_), "", "output name '" + out.name + "' must match [a-z][a-z0-9_]*");
      auto ref = parse_ref(value, "");
      if (!ref) continue;
      if (ref->from_input) {
        diags_.error(ref->loc, "", "output '" + out.name + "' must come from a node (\"node.port\"), not from a pipeline input");
        continue;
      }
      out.ref = *ref;
      pipeline.outputs.push_back(std::move(out));
    }
  }

  std::string file_;
  Diagnostics &diags_;
};

}  // namespace

const InputDecl *Pipeline::find_input(std::string_view name) const {
  for (const InputDecl &i : inputs)
    if (i.name == name) return &i;
  return nullptr;
}

const NodeDecl *Pipeline::find_node(std::string_view id) const {
  for (const NodeDecl &n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

std::filesystem::path Pipeline::directory() const {
  if (path.empty()) return std::filesystem::current_path();
  return path.parent_path();
}

std::optional<Pipeline> parse_pipeline_text(std::string_view text, const std::string &display_path, Diagnostics &diags) {
  Pipeline pipeline;
  pipeline.display_path = display_path;
  pipeline.sha256 = sha256_hex(text);
  toml::table root;
  try {
    root = toml::parse(text, display_path);
  } catch (const toml::parse_error &err) {
    diags.error(loc_of(err.source(), display_path), "", std::string("TOML syntax error: ") + std::string(err.description()));
    return std::nullopt;
  }
  Parser parser(display_path, diags);
  parser.parse(root, pipeline);
  return pipeline;
}

namespace {

/// For a pipeline path that does not exist: the .toml files of its folder
/// (spelled as the user spelled the folder) and the shipped pipelines, with
/// the nearest one.
std::string pipeline_suggestions(const std::filesystem::path &path) {
  namespace fs = std::filesystem;
  std::vector<std::string> candidates;
  std::error_code ec;
  const fs::path folder = path.parent_path();
  if (fs::is_directory(folder.empty() ? fs::path(".") : folder, ec))
    for (const auto &entry : fs::directory_iterator(folder.empty() ? fs::path(".") : folder, ec))
      if (entry.path().extension() == ".toml") candidates.push_back((folder / entry.path().filename()).string());
  if (auto shipped = find_data_dir("pipelines"))
    for (const auto &entry : fs::directory_iterator(*shipped, ec))
      if (entry.path().extension() == ".toml") {
        std::string name = "pipelines/" + entry.path().filename().string();
        if (std::find(candidates.begin(), candidates.end(), name) == candidates.end()) candidates.push_back(name);
      }
  if (candidates.empty()) return {};
  return valid_list_suffix(path.string(), candidates, "pipelines here and shipped");
}

}  // namespace

std::optional<Pipeline> parse_pipeline_file(const std::filesystem::path &path, Diagnostics &diags) {
  std::error_code ec;
  // A path that cannot be looked at (a loop of symbolic links) is not "does
  // not exist": the reader below says what it is.
  if (!std::filesystem::exists(path, ec) && !ec) {
    diags.error({path.string(), 0, 0}, "", "pipeline file does not exist" + pipeline_suggestions(path));
    return std::nullopt;
  }
  std::string error;
  auto text = pb::sdk::read_input_file(path, pb::sdk::kMaxConfigFileBytes, error);
  if (!text) {
    diags.error({path.string(), 0, 0}, "", "cannot read pipeline file: " + error);
    return std::nullopt;
  }
  if (auto bad = pb::sdk::find_invalid_utf8(*text)) {
    diags.error({path.string(), bad->line, bad->column}, "", pb::sdk::describe_utf8_error(*bad));
    return std::nullopt;
  }
  auto pipeline = parse_pipeline_text(*text, path.string(), diags);
  if (pipeline) pipeline->path = std::filesystem::absolute(path).lexically_normal();
  return pipeline;
}

std::optional<Override> parse_override(const std::string &text, Diagnostics &diags) {
  // A value is echoed into documents and reports, which must be UTF-8: a
  // byte that is not is refused here, before anything stores it.
  if (auto bad = pb::sdk::find_invalid_utf8(text)) {
    diags.error({"<command line>", 0, 0}, "",
                "--set argument, byte " + std::to_string(bad->column) + ": " + pb::sdk::describe_utf8_error(*bad) +
                    " (the --set argument must be UTF-8 text)");
    return std::nullopt;
  }
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    diags.error({"<command line>", 0, 0}, "", "--set '" + text + "' must be written KEY=VALUE");
    return std::nullopt;
  }
  return Override{text.substr(0, eq), text.substr(eq + 1)};
}

std::optional<std::string> first_nonfinite_number(const json &value, std::string *shown) {
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number)) return std::nullopt;
    if (shown != nullptr) *shown = std::isnan(number) ? "nan" : number > 0 ? "inf" : "-inf";
    return std::string();
  }
  if (value.is_object()) {
    for (const auto &[key, child] : value.items())
      if (auto at = first_nonfinite_number(child, shown)) return at->empty() ? key : key + (at->front() == '[' ? "" : ".") + *at;
  } else if (value.is_array()) {
    for (size_t idx = 0; idx < value.size(); ++idx)
      if (auto at = first_nonfinite_number(value[idx], shown))
        return "[" + std::to_string(idx) + "]" + (at->empty() || at->front() == '[' ? "" : ".") + *at;
  }
  return std::nullopt;
}

std::optional<json> parse_override_value_checked(const std::string &text, std::string &error) {
  const size_t first = text.find_first_not_of(" \t");
  const char lead = first == std::string::npos ? '\0' : text[first];
  bool integer_literal = first != std::string::npos;
  for (size_t idx = first; integer_literal && idx < text.size(); ++idx) {
    const char c = text[idx];
    integer_literal = (c >= '0' && c <= '9') || c == '_' || ((c == '-' || c == '+') && idx == first);
  }
  const bool must_be_toml = lead == '[' || lead == '{' || lead == '"' || lead == '\'' || integer_literal;
  try {
    toml::table t = toml::parse("v = " + text);
    if (const toml::node *v = t.get("v")) {
      json value = toml_to_json(*v);
      std::string shown;
      if (auto at = first_nonfinite_number(value, &shown)) {
        error = (at->empty() ? std::string("the value") : "'" + *at + "'") + " is " + shown + "; every number must be finite";
        return std::nullopt;
      }
      return value;
    }
  } catch (const toml::parse_error &err) {
    if (must_be_toml) {
      error = "not a TOML value: " + std::string(err.description());
      return std::nullopt;
    }
  }
  return json(text);
}

json parse_override_value(const std::string &text) {
  try {
    toml::table t = toml::parse("v = " + text);
    if (const toml::node *v = t.get("v")) return toml_to_json(*v);
  } catch (const toml::parse_error &) {
  }
  return text;
}

}  // namespace perfbound
