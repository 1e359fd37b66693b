//===- plugin_info.cpp - plugin descriptors, manifests and their checks ---===//
#include "plugin_info.hpp"

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "json_schema.hpp"

namespace perfbound {

const PortInfo *KindInfo::find_input(std::string_view port) const {
  for (const PortInfo &p : inputs)
    if (p.name == port) return &p;
  return nullptr;
}
const PortInfo *KindInfo::find_output(std::string_view port) const {
  for (const PortInfo &p : outputs)
    if (p.name == port) return &p;
  return nullptr;
}
const ParamInfo *KindInfo::find_param(std::string_view param) const {
  for (const ParamInfo &p : params)
    if (p.name == param) return &p;
  return nullptr;
}
const KindInfo *PluginInfo::find_kind(std::string_view kind) const {
  for (const KindInfo &k : kinds)
    if (k.name == kind) return &k;
  return nullptr;
}
std::vector<std::string> PluginInfo::kind_names() const {
  std::vector<std::string> names;
  for (const KindInfo &k : kinds) names.push_back(k.name);
  return names;
}

namespace {
/// "0", "-1", "600000", "1e-06", "2.5": whole numbers without a fraction.
std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return json(v).dump();
}
}  // namespace

std::string ParamInfo::range_text() const {
  std::string out;
  if (minimum) out += std::string(minimum_exclusive ? "> " : ">= ") + number_text(*minimum);
  if (maximum) out += std::string(out.empty() ? "" : " and ") + (maximum_exclusive ? "< " : "<= ") + number_text(*maximum);
  return out;
}

std::string ParamInfo::range_problem(double value) const {
  const std::string got = number_text(value);
  if (!std::isfinite(value)) return "must be a finite number, got " + got;
  bool ok = true;
  if (minimum) ok = ok && (minimum_exclusive ? value > *minimum : value >= *minimum);
  if (maximum) ok = ok && (maximum_exclusive ? value < *maximum : value <= *maximum);
  return ok ? std::string() : "must be " + range_text() + ", got " + got;
}

const char *param_type_name(pb_param_type type) {
  switch (type) {
    case PB_PARAM_BOOL: return "bool";
    case PB_PARAM_INT: return "int";
    case PB_PARAM_FLOAT: return "float";
    case PB_PARAM_STRING: return "string";
    case PB_PARAM_JSON: return "json";
  }
  return "unknown";
}

std::optional<pb_param_type> param_type_from_name(std::string_view name) {
  for (pb_param_type t : {PB_PARAM_BOOL, PB_PARAM_INT, PB_PARAM_FLOAT, PB_PARAM_STRING, PB_PARAM_JSON})
    if (name == param_type_name(t)) return t;
  return std::nullopt;
}

bool param_value_matches(pb_param_type type, const json &value) {
  switch (type) {
    case PB_PARAM_BOOL: return value.is_boolean();
    case PB_PARAM_INT: return value.is_number_integer();
    case PB_PARAM_FLOAT: return value.is_number();
    case PB_PARAM_STRING: return value.is_string();
    case PB_PARAM_JSON: return true;
  }
  return false;
}

const std::vector<std::string> &known_extension_ids() {
  static const std::vector<std::string> kIds = {PB_EXT_RENDER, PB_EXT_COMMAND, PB_EXT_EXAMPLES, PB_EXT_TIMING_BACKEND};
  return kIds;
}

// Names and ids are checked by hand, not with std::regex: libstdc++'s matcher recurses
// once per character, so a name of 2 MB in a pipeline file overflowed the stack
// (found by fuzz_pipeline). These read each character once.
namespace {
bool lower(char c) { return c >= 'a' && c <= 'z'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
/// [a-z] then [a-z0-9] or `extra`, at least one character.
bool word(std::string_view s, char extra) {
  if (s.empty() || !lower(s.front())) return false;
  return std::all_of(s.begin() + 1, s.end(), [extra](char c) { return lower(c) || digit(c) || c == extra; });
}
}  // namespace

bool is_valid_plugin_id(std::string_view id) {  // [a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+
  size_t parts = 0;
  for (size_t start = 0;; ++parts) {
    const size_t dot = id.find('.', start);
    if (!word(id.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start), '_')) return false;
    if (dot == std::string_view::npos) return parts + 1 >= 2;
    start = dot + 1;
  }
}
bool is_valid_name(std::string_view name) { return word(name, '_'); }        // [a-z][a-z0-9_]*
bool is_valid_command_name(std::string_view name) { return word(name, '-'); }  // [a-z][a-z0-9-]*

namespace {
bool is_semver(std::string_view v) {  // \d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?
  size_t at = 0;
  for (int part = 0; part < 3; ++part) {
    if (part > 0) {
      if (at >= v.size() || v[at] != '.') return false;
      ++at;
    }
    const size_t begin = at;
    while (at < v.size() && digit(v[at])) ++at;
    if (at == begin) return false;
  }
  if (at == v.size()) return true;
  if (v[at] != '-' && v[at] != '+') return false;
  const std::string_view rest = v.substr(at + 1);
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
    return lower(c) || digit(c) || (c >= 'A' && c <= 'Z') || c == '.' || c == '-';
  });
}
}  // namespace

namespace {

json port_json(const PortInfo &p) {
  json flags = json::array();
  if (p.optional()) flags.push_back("optional");
  if (p.multi()) flags.push_back("multi");
  json j{{"name", p.name}, {"schema", p.schema}, {"flags", flags}, {"description", p.description}};
  if (!p.one_of.empty()) j["one_of"] = p.one_of;
  return j;
}

json kind_json(const KindInfo &k) {
  json j;
  j["name"] = k.name;
  j["description"] = k.description;
  j["inputs"] = json::array();
  for (const PortInfo &p : k.inputs) j["inputs"].push_back(port_json(p));
  j["outputs"] = json::array();
  for (const PortInfo &p : k.outputs) j["outputs"].push_back(port_json(p));
  j["params"] = json::array();
  for (const ParamInfo &p : k.params) {
    json pj{{"name", p.name},
            {"type", param_type_name(p.type)},
            {"required", p.required},
            {"default", p.default_value},
            {"description", p.description}};
    pj["choices"] = p.choices ? *p.choices : json(nullptr);
    // Only when declared, so manifests of plugins without ranges keep their form.
    if (p.minimum) {
      pj["minimum"] = *p.minimum;
      if (p.minimum_exclusive) pj["minimum_exclusive"] = true;
    }
    if (p.maximum) {
      pj["maximum"] = *p.maximum;
      if (p.maximum_exclusive) pj["maximum_exclusive"] = true;
    }
    j["params"].push_back(pj);
  }
  return j;
}

bool is_valid_utf8(std::string_view text) { return !pb::sdk::find_invalid_utf8(text); }

/// Reads a C string from plugin memory, refusing NULL, over-long or invalid
/// UTF-8 strings.
std::optional<std::string> read_string(const char *s, const std::string &what, bool allow_null,
                                       std::vector<std::string> &violations) {
  if (s == nullptr) {
    if (!allow_null) violations.push_back(what + " is NULL");
    return std::nullopt;
  }
  size_t len = strnlen(s, PB_MAX_STRING_LENGTH + 1);
  if (len > PB_MAX_STRING_LENGTH) {
    violations.push_back(what + " is longer than " + std::to_string(PB_MAX_STRING_LENGTH) + " bytes");
    return std::nullopt;
  }
  std::string out(s, len);
  if (!is_valid_utf8(out)) {
    violations.push_back(what + " is not valid UTF-8");
    return std::nullopt;
  }
  return out;
}

void describe_ports(const pb_port *const *ports, uint32_t count, const std::string &where, bool inputs,
                    std::vector<PortInfo> &out, std::vector<std::string> &violations) {
  if (count > 0 && ports == nullptr) {
    violations.push_back(where + ": count is " + std::to_string(count) + " but the array is NULL");
    return;
  }
  if (count > 1024) {
    violations.push_back(where + ": " + std::to_string(count) + " ports is more than the limit of 1024");
    return;
  }
  std::set<std::string> seen;
  for (uint32_t idx = 0; idx < count; ++idx) {
    const pb_port *p = ports[idx];
    std::string at = where + "[" + std::to_string(idx) + "]";
    if (p == nullptr) {
      violations.push_back(at + " is NULL");
      continue;
    }
    if (p->struct_size < offsetof(pb_port, description) + sizeof(p->description)) {
      violations.push_back(at + ": struct_size " + std::to_string(p->struct_size) + " is smaller than ABI 1.0's pb_port");
      continue;
    }
    PortInfo info;
    auto name = read_string(p->name, at + ".name", false, violations);
    auto schema = read_string(p->schema, at + ".schema", false, violations);
    auto desc = read_string(p->description, at + ".description", true, violations);
    if (name) {
      if (!is_valid_name(*name)) violations.push_back(at + ": port name '" + *name + "' is not [a-z][a-z0-9_]*");
      if (!seen.insert(*name).second) violations.push_back(at + ": duplicate port name '" + *name + "'");
      info.name = *name;
      at = where + " '" + *name + "'";
    }
    if (schema) {
      if (!is_valid_schema_id(*schema))
        violations.push_back(at + ": schema id '" + *schema + "' is not of the form 'vendor.name/N'");
      info.schema = *schema;
    }
    if ((p->flags & ~(PB_PORT_OPTIONAL | PB_PORT_MULTI)) != 0)
      violations.push_back(at + ": unknown flag bits 0x" + [&] {
        std::ostringstream os;
        os << std::hex << (p->flags & ~(PB_PORT_OPTIONAL | PB_PORT_MULTI));
        return os.str();
      }());
    info.flags = p->flags & (PB_PORT_OPTIONAL | PB_PORT_MULTI);
    info.description = desc.value_or("");
    // ABI 1.1: groups of alternative inputs.
    if (p->struct_size >= offsetof(pb_port, one_of) + sizeof(p->one_of) && p->one_of != nullptr) {
      auto group = read_string(p->one_of, at + ".one_of", true, violations);
      if (group && !group->empty()) {
        if (!inputs)
          violations.push_back(at + ": one_of '" + *group + "' on an output (groups of alternatives are for inputs)");
        else if (!is_valid_name(*group))
          violations.push_back(at + ": one_of group name '" + *group + "' is not [a-z][a-z0-9_]*");
        else if ((p->flags & PB_PORT_OPTIONAL) == 0)
          violations.push_back(at + ": an input of one_of group '" + *group + "' must carry PB_PORT_OPTIONAL");
        else
          info.one_of = *group;
      }
    }
    out.push_back(std::move(info));
  }
}

/// ABI 1.2: pb_param.minimum_json / maximum_json and the exclusive flags.
void describe_range(const pb_param &p, const std::string &at, ParamInfo &info, std::vector<std::string> &violations) {
  auto bound = [&](const char *text, const char *field) -> std::optional<double> {
    auto s = read_string(text, at + "." + field, true, violations);
    if (!s) return std::nullopt;
    json parsed = json::parse(*s, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_number() || !std::isfinite(parsed.get<double>())) {
      violations.push_back(at + ": " + field + " must be a finite JSON number, got " + *s);
      return std::nullopt;
    }
    return parsed.get<double>();
  };
  info.minimum = bound(p.minimum_json, "minimum_json");
  info.maximum = bound(p.maximum_json, "maximum_json");
  info.minimum_exclusive = info.minimum && (p.flags & PB_PARAM_MIN_EXCLUSIVE) != 0;
  info.maximum_exclusive = info.maximum && (p.flags & PB_PARAM_MAX_EXCLUSIVE) != 0;
  if (!info.minimum && !info.maximum) return;
  if (info.type != PB_PARAM_INT && info.type != PB_PARAM_FLOAT) {
    violations.push_back(at + ": a range (minimum_json/maximum_json) is only meaningful on an int or float parameter");
    return;
  }
  if (info.minimum && info.maximum &&
      (*info.minimum > *info.maximum || (*info.minimum == *info.maximum && (info.minimum_exclusive || info.maximum_exclusive)))) {
    violations.push_back(at + ": the range " + info.range_text() + " is empty");
    return;
  }
  if (!info.required && info.default_value.is_number()) {
    std::string problem = info.range_problem(info.default_value.get<double>());
    if (!problem.empty()) violations.push_back(at + ": the default " + problem);
  }
}

void describe_params(const pb_param *const *params, uint32_t count, const std::string &where,
                     std::vector<ParamInfo> &out, std::vector<std::string> &violations) {
  if (count > 0 && params == nullptr) {
    violations.push_back(where + ": count is " + std::to_string(count) + " but the array is NULL");
    return;
  }
  if (count > 1024) {
    violations.push_back(where + ": " + std::to_string(count) + " params is more than the limit of 1024");
    return;
  }
  std::set<std::string> seen;
  for (uint32_t idx = 0; idx < count; ++idx) {
    const pb_param *p = params[idx];
    std::string at = where + "[" + std::to_string(idx) + "]";
    if (p == nullptr) {
      violations.push_back(at + " is NULL");
      continue;
    }
    if (p->struct_size < offsetof(pb_param, description) + sizeof(p->description)) {
      violations.push_back(at + ": struct_size " + std::to_string(p->struct_size) + " is smaller than ABI 1.0's pb_param");
      continue;
    }
    ParamInfo info;
    auto name = read_string(p->name, at + ".name", false, violations);
    if (name) {
      if (!is_valid_name(*name)) violations.push_back(at + ": parameter name '" + *name + "' is not [a-z][a-z0-9_]*");
      if (!seen.insert(*name).second) violations.push_back(at + ": duplicate parameter '" + *name + "'");
      info.name = *name;
      at = where + " '" + *name + "'";
    }
    if (p->type < PB_PARAM_BOOL || p->type > PB_PARAM_JSON) {
      violations.push_back(at + ": unknown parameter type " + std::to_string(p->type));
      continue;
    }
    info.type = static_cast<pb_param_type>(p->type);
    info.required = (p->flags & PB_PARAM_REQUIRED) != 0;
    auto def = read_string(p->default_json, at + ".default_json", true, violations);
    if (info.required && def)
      violations.push_back(at + ": a required parameter must have default_json == NULL");
    if (!info.required && !def)
      violations.push_back(at + ": an optional parameter needs a default_json (or set PB_PARAM_REQUIRED)");
    if (def) {
      json parsed = json::parse(*def, nullptr, false);
      if (parsed.is_discarded())
        violations.push_back(at + ": default_json is not valid JSON: " + *def);
      else if (!param_value_matches(info.type, parsed))
        violations.push_back(at + ": default " + *def + " is not of type " + param_type_name(info.type));
      else
        info.default_value = parsed;
    }
    auto choices = read_string(p->choices_json, at + ".choices_json", true, violations);
    if (choices) {
      json parsed = json::parse(*choices, nullptr, false);
      if (parsed.is_discarded() || !parsed.is_array() || parsed.empty())
        violations.push_back(at + ": choices_json must be a non-empty JSON array");
      else {
        info.choices = parsed;
        if (!info.required && !info.default_value.is_null()) {
          bool found = false;
          for (const json &c : parsed) found = found || c == info.default_value;
          if (!found) violations.push_back(at + ": default is not one of the choices");
        }
      }
    }
    info.description = read_string(p->description, at + ".description", true, violations).value_or("");
    if (p->struct_size >= offsetof(pb_param, maximum_json) + sizeof(p->maximum_json)) describe_range(*p, at, info, violations);
    out.push_back(std::move(info));
  }
}

}  // namespace

json PluginInfo::descriptor_json() const {
  json j;
  j["id"] = id;
  j["name"] = name;
  j["version"] = version;
  j["vendor"] = vendor;
  j["description"] = description;
  j["abi"] = {{"major", abi_major}, {"minor", abi_minor}};
  j["kinds"] = json::array();
  for (const KindInfo &k : kinds) j["kinds"].push_back(kind_json(k));
  j["commands"] = json::array();
  for (const CommandInfo &c : commands) j["commands"].push_back({{"name", c.name}, {"summary", c.summary}});
  j["extensions"] = extensions;
  return j;
}

json PluginInfo::manifest_json(const std::string &library_file_name) const {
  json m;
  m["schema"] = "perfbound.plugin_manifest/1";
  m["manifest_format"] = PB_MANIFEST_FORMAT_VERSION;
  m["library"] = library_file_name;
  m["plugin"] = descriptor_json();
  return m;
}

DescribeResult describe_plugin(const pb_plugin *plugin, uint32_t abi_major, uint32_t abi_minor) {
  DescribeResult result;
  std::vector<std::string> &v = result.violations;
  PluginInfo &info = result.info;
  info.abi_major = abi_major;
  info.abi_minor = abi_minor;
  if (plugin == nullptr) {
    v.emplace_back("negotiation returned PB_OK but response.plugin is NULL");
    return result;
  }
  if (plugin->struct_size < offsetof(pb_plugin, get_extension) + sizeof(plugin->get_extension)) {
    v.push_back("pb_plugin.struct_size " + std::to_string(plugin->struct_size) +
                " is smaller than ABI 1.0's pb_plugin (" +
                std::to_string(offsetof(pb_plugin, get_extension) + sizeof(plugin->get_extension)) + ")");
    return result;
  }
  info.id = read_string(plugin->id, "pb_plugin.id", false, v).value_or("");
  if (!info.id.empty() && !is_valid_plugin_id(info.id))
    v.push_back("pb_plugin.id '" + info.id + "' is not a lowercase dotted id such as 'vendor.name'");
  info.name = read_string(plugin->name, "pb_plugin.name", false, v).value_or("");
  info.version = read_string(plugin->version, "pb_plugin.version", false, v).value_or("");
  if (!info.version.empty() && !is_semver(info.version))
    v.push_back("pb_plugin.version '" + info.version + "' is not MAJOR.MINOR.PATCH");
  info.vendor = read_string(plugin->vendor, "pb_plugin.vendor", true, v).value_or("");
  info.description = read_string(plugin->description, "pb_plugin.description", true, v).value_or("");
  if (plugin->get_extension == nullptr) v.emplace_back("pb_plugin.get_extension is NULL");

  if (plugin->node_kind_count > 0 && plugin->node_kinds == nullptr)
    v.push_back("pb_plugin.node_kind_count is " + std::to_string(plugin->node_kind_count) + " but node_kinds is NULL");
  else if (plugin->node_kind_count > 4096)
    v.push_back("pb_plugin.node_kind_count " + std::to_string(plugin->node_kind_count) + " exceeds 4096");
  else {
    std::set<std::string> seen;
    for (uint32_t idx = 0; idx < plugin->node_kind_count; ++idx) {
      const pb_node_kind *k = plugin->node_kinds[idx];
      std::string at = "node_kinds[" + std::to_string(idx) + "]";
      if (k == nullptr) {
        v.push_back(at + " is NULL");
        continue;
      }
      if (k->struct_size < offsetof(pb_node_kind, destroy) + sizeof(k->destroy)) {
        v.push_back(at + ": struct_size " + std::to_string(k->struct_size) + " is smaller than ABI 1.0's pb_node_kind");
        continue;
      }
      KindInfo kind;
      auto name = read_string(k->name, at + ".name", false, v);
      if (name) {
        if (!is_valid_name(*name)) v.push_back(at + ": kind name '" + *name + "' is not [a-z][a-z0-9_]*");
        if (!seen.insert(*name).second) v.push_back(at + ": duplicate kind name '" + *name + "'");
        kind.name = *name;
        at = "kind '" + *name + "'";
      }
      kind.description = read_string(k->description, at + ".description", true, v).value_or("");
      if (k->create == nullptr) v.push_back(at + ": create is NULL");
      if (k->run == nullptr) v.push_back(at + ": run is NULL");
      if (k->destroy == nullptr) v.push_back(at + ": destroy is NULL");
      describe_ports(k->inputs, k->input_count, at + " inputs", true, kind.inputs, v);
      describe_ports(k->outputs, k->output_count, at + " outputs", false, kind.outputs, v);
      for (const PortInfo &p : kind.outputs)
        if (p.flags != 0) v.push_back(at + " output '" + p.name + "': flags are only meaningful on inputs");
      describe_params(k->params, k->param_count, at + " params", kind.params, v);
      info.kinds.push_back(std::move(kind));
    }
  }

  if (plugin->get_extension != nullptr) {
    for (const std::string &ext : known_extension_ids())
      if (plugin->get_extension(ext.c_str()) != nullptr) info.extensions.push_back(ext);
    if (plugin->get_extension("perfbound.ext.no_such_extension/999") != nullptr)
      v.emplace_back("get_extension returned non-NULL for an unknown id; unknown ids must answer NULL");
    if (const auto *cmds = static_cast<const pb_ext_command *>(plugin->get_extension(PB_EXT_COMMAND))) {
      if (cmds->struct_size < offsetof(pb_ext_command, commands) + sizeof(cmds->commands)) {
        v.emplace_back("perfbound.ext.command/1: struct_size too small");
      } else if (cmds->command_count > 0 && cmds->commands == nullptr) {
        v.emplace_back("perfbound.ext.command/1: command_count > 0 but commands is NULL");
      } else {
        for (uint32_t idx = 0; idx < cmds->command_count && idx < 256; ++idx) {
          const pb_command *c = cmds->commands[idx];
          std::string at = "command[" + std::to_string(idx) + "]";
          if (c == nullptr || c->struct_size < offsetof(pb_command, main) + sizeof(c->main)) {
            v.push_back(at + " is NULL or too small");
            continue;
          }
          CommandInfo ci;
          ci.name = read_string(c->name, at + ".name", false, v).value_or("");
          if (!ci.name.empty() && !is_valid_command_name(ci.name))
            v.push_back(at + ": command name '" + ci.name + "' is not [a-z][a-z0-9-]*");
          ci.summary = read_string(c->summary, at + ".summary", true, v).value_or("");
          if (c->main == nullptr) v.push_back(at + ": main is NULL");
          info.commands.push_back(std::move(ci));
        }
      }
    }
    if (const auto *render = static_cast<const pb_ext_render *>(plugin->get_extension(PB_EXT_RENDER))) {
      if (render->struct_size < offsetof(pb_ext_render, render) + sizeof(render->render) || render->render == nullptr)
        v.emplace_back("perfbound.ext.render/1: struct_size too small or render is NULL");
    }
  }
  return result;
}

namespace {

std::optional<PortInfo> port_from_json(const json &j, std::string &err) {
  if (!j.is_object() || !j.contains("name") || !j.contains("schema")) {
    err = "port entries need 'name' and 'schema'";
    return std::nullopt;
  }
  PortInfo p;
  p.name = j.at("name").get<std::string>();
  p.schema = j.at("schema").get<std::string>();
  p.description = j.value("description", "");
  p.one_of = j.value("one_of", "");
  for (const json &f : j.value("flags", json::array())) {
    if (f == "optional")
      p.flags |= PB_PORT_OPTIONAL;
    else if (f == "multi")
      p.flags |= PB_PORT_MULTI;
    else {
      err = "unknown port flag " + f.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return std::nullopt;
    }
  }
  return p;
}

}  // namespace

Expected<PluginInfo> plugin_info_from_json(const json &p, const std::string &where) {
  try {
    PluginInfo info;
    info.id = p.at("id").get<std::string>();
    if (!is_valid_plugin_id(info.id)) return make_error(where + ": invalid plugin id '" + info.id + "'");
    info.name = p.value("name", "");
    info.version = p.at("version").get<std::string>();
    info.vendor = p.value("vendor", "");
    info.description = p.value("description", "");
    info.abi_major = p.at("abi").at("major").get<uint32_t>();
    info.abi_minor = p.at("abi").at("minor").get<uint32_t>();
    for (const json &kj : p.at("kinds")) {
      KindInfo k;
      k.name = kj.at("name").get<std::string>();
      k.description = kj.value("description", "");
      std::string err;
      for (const json &pj : kj.at("inputs")) {
        auto port = port_from_json(pj, err);
        if (!port) return make_error(where + ": kind '" + k.name + "': " + err);
        k.inputs.push_back(*port);
      }
      for (const json &pj : kj.at("outputs")) {
        auto port = port_from_json(pj, err);
        if (!port) return make_error(where + ": kind '" + k.name + "': " + err);
        k.outputs.push_back(*port);
      }
      for (const json &pj : kj.at("params")) {
        ParamInfo par;
        par.name = pj.at("name").get<std::string>();
        auto type = param_type_from_name(pj.at("type").get<std::string>());
        if (!type) return make_error(where + ": parameter '" + par.name + "' has unknown type");
        par.type = *type;
        par.required = pj.value("required", false);
        par.default_value = pj.value("default", json(nullptr));
        if (pj.contains("choices") && !pj.at("choices").is_null()) par.choices = pj.at("choices");
        par.description = pj.value("description", "");
        if (pj.contains("minimum")) par.minimum = pj.at("minimum").get<double>();
        if (pj.contains("maximum")) par.maximum = pj.at("maximum").get<double>();
        par.minimum_exclusive = par.minimum && pj.value("minimum_exclusive", false);
        par.maximum_exclusive = par.maximum && pj.value("maximum_exclusive", false);
        k.params.push_back(std::move(par));
      }
      info.kinds.push_back(std::move(k));
    }
    for (const json &cj : p.value("commands", json::array()))
      info.commands.push_back({cj.at("name").get<std::string>(), cj.value("summary", "")});
    for (const json &e : p.value("extensions", json::array())) info.extensions.push_back(e.get<std::string>());
    return info;
  } catch (const json::exception &e) {
    return make_error(where + ": malformed plugin description: " + e.what());
  }
}

Expected<PluginInfo> read_manifest(const std::filesystem::path &manifest_path) {
  std::string error;
  auto text = pb::sdk::read_json_input_file(manifest_path, pb::sdk::kMaxConfigFileBytes, error);  // UTF-8, depth
  if (!text) return make_error(error);
  json m = json::parse(*text, nullptr, false);
  const std::string where = manifest_path.string();
  if (m.is_discarded()) return make_error(pb::sdk::json_syntax_error_message(*text, where) + " (a plugin manifest)");
  if (!m.is_object()) return make_error(where + ": manifest is not a JSON object");
  if (m.value("manifest_format", 0u) != PB_MANIFEST_FORMAT_VERSION)
    return make_error(where + ": unsupported manifest_format " + m.value("manifest_format", json(nullptr)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                      " (this perfbound reads format " + std::to_string(PB_MANIFEST_FORMAT_VERSION) + ")");
  auto described = plugin_info_from_json(m.contains("plugin") ? m.at("plugin") : json(nullptr), where);
  if (!described) return described.error();
  try {
    PluginInfo info = std::move(*described);
    std::string lib = m.at("library").get<std::string>();
    if (lib.find('/') != std::string::npos)
      return make_error(where + ": 'library' must be a file name in the manifest's directory, not a path");
    info.library = std::filesystem::absolute(manifest_path.parent_path() / lib).lexically_normal();
    info.manifest = std::filesystem::absolute(manifest_path).lexically_normal();
    info.described_by = "manifest";
    return info;
  } catch (const json::exception &e) {
    return make_error(where + ": malformed manifest: " + e.what());
  }
}

}  // namespace perfbound
