//===- json_schema.cpp - subset JSON Schema validator ---------------------===//
#include "json_schema.hpp"

#include "plugin_info.hpp"
#include "suggest.hpp"

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace perfbound {
namespace {

// std::regex (libstdc++) recurses once per character of the subject: a string or member
// name longer than this is reported instead of matched against a `pattern` (every pattern
// of the published schemas describes ids, names, digests: far shorter).
constexpr size_t kMaxPatternSubject = 4096;

const std::set<std::string, std::less<>> &known_keywords() {
  static const std::set<std::string, std::less<>> kKeywords = {
      "$schema",          "$id",          "$comment",      "$defs",       "$ref",
      "title",            "description",  "default",       "examples",    "format",
      "type",             "properties",   "required",      "additionalProperties",
      "patternProperties", "items",       "prefixItems",   "enum",        "const",
      "minimum",          "maximum",      "exclusiveMinimum", "exclusiveMaximum",
      "minItems",         "maxItems",     "minLength",     "maxLength",   "minProperties",
      "pattern",          "oneOf",        "anyOf",         "allOf",       "not",
      "x-perfbound-encoding"};
  return kKeywords;
}

// The one dialect the validator implements; a "$schema" naming another
// (draft 7's "items": [...] means prefixItems here) is refused.
constexpr const char *kDialect = "https://json-schema.org/draft/2020-12/schema";

// "#", "#/JSON-pointer", "SCHEMA_ID" or "SCHEMA_ID#/JSON-pointer": the $ref
// forms the validator resolves. Anything else (a URI, "#anchor", a relative
// name resolved against a nested $id, a percent-encoded pointer) would need
// resolution it does not do.
bool is_supported_ref(const std::string &ref) {
  if (ref.find('%') != std::string::npos) return false;
  const size_t hash = ref.find('#');
  const std::string doc_part = ref.substr(0, hash);
  if (!doc_part.empty() && !is_valid_schema_id(doc_part)) return false;
  if (hash == std::string::npos) return !doc_part.empty();
  const std::string fragment = ref.substr(hash + 1);
  return fragment.empty() || fragment.front() == '/';
}

std::string quoted(const json &v) { return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// Checks that every keyword used anywhere in `schema` is supported and that
// its value has the shape the validator reads (a wrong shape would throw or
// be misread during validation, so it is refused here). Internal "#..."
// references must resolve within `root`.
void check_keywords(const json &schema, const std::string &path, std::vector<std::string> &problems,
                    const json &root) {
  if (schema.is_boolean()) return;
  const std::string at = path.empty() ? "/" : path;
  if (!schema.is_object()) {
    problems.push_back(at + ": a schema must be an object or a boolean");
    return;
  }
  auto bad = [&](const std::string &key, const std::string &what) { problems.push_back(path + "/" + key + ": " + what); };
  for (const auto &[key, value] : schema.items()) {
    if (known_keywords().count(key) == 0) {
      problems.push_back(at + ": unsupported keyword '" + key + "'");
      continue;
    }
    if (key == "properties" || key == "$defs" || key == "patternProperties") {
      if (!value.is_object()) {
        bad(key, "must be an object");
        continue;
      }
      for (const auto &[name, sub] : value.items()) check_keywords(sub, path + "/" + key + "/" + name, problems, root);
      if (key == "patternProperties") {
        for (const auto &[pattern, sub] : value.items()) {
          try {
            std::regex re(pattern, std::regex::ECMAScript);
          } catch (const std::regex_error &) {
            problems.push_back(path + "/patternProperties: invalid regular expression '" + pattern + "'");
          }
        }
      }
    } else if (key == "items" && value.is_array()) {
      bad(key, "must be one schema; the array form of 'items' (draft 7 and before) is not supported, it is "
               "'prefixItems' in 2020-12");
    } else if (key == "items" || key == "additionalProperties" || key == "not") {
      check_keywords(value, path + "/" + key, problems, root);
    } else if (key == "oneOf" || key == "anyOf" || key == "allOf" || key == "prefixItems") {
      if (!value.is_array() || value.empty()) {
        bad(key, "must be a non-empty array of schemas");
        continue;
      }
      for (size_t idx = 0; idx < value.size(); ++idx)
        check_keywords(value[idx], path + "/" + key + "/" + std::to_string(idx), problems, root);
    } else if (key == "pattern") {
      if (!value.is_string()) {
        bad(key, "must be a string");
        continue;
      }
      try {
        std::regex re(value.get<std::string>(), std::regex::ECMAScript);
      } catch (const std::exception &) {
        bad(key, "invalid regular expression");
      }
    } else if (key == "type") {
      static const std::set<std::string> kTypes = {"object", "array",   "string", "number",
                                                   "integer", "boolean", "null"};
      auto check_type = [&](const json &t) {
        if (!t.is_string() || kTypes.count(t.get<std::string>()) == 0) bad(key, "unknown type " + quoted(t));
      };
      if (value.is_array())
        for (const json &t : value) check_type(t);
      else
        check_type(value);
    } else if (key == "minimum" || key == "maximum" || key == "exclusiveMinimum" || key == "exclusiveMaximum") {
      if (!value.is_number()) bad(key, "must be a number (the boolean form of draft 4 is not supported)");
    } else if (key == "minItems" || key == "maxItems" || key == "minLength" || key == "maxLength" ||
               key == "minProperties") {
      const bool whole = value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0) ||
                         (value.is_number_float() && value.get<double>() >= 0 &&
                          value.get<double>() == std::floor(value.get<double>()) && value.get<double>() < 1e18);
      if (!whole) bad(key, "must be a non-negative integer, not " + quoted(value));
    } else if (key == "required") {
      if (!value.is_array() || !std::all_of(value.begin(), value.end(), [](const json &n) { return n.is_string(); }))
        bad(key, "must be an array of strings");
    } else if (key == "enum") {
      if (!value.is_array()) bad(key, "must be an array");
    } else if (key == "$ref") {
      if (!value.is_string() || !is_supported_ref(value.get<std::string>())) {
        bad(key, "unsupported $ref " + quoted(value) +
                     " (supported: \"#\", \"#/JSON-pointer\", \"SCHEMA_ID\", \"SCHEMA_ID#/JSON-pointer\")");
      } else if (const std::string ref = value.get<std::string>(); ref.front() == '#') {
        try {
          (void)root.at(json::json_pointer(ref.substr(1)));
        } catch (const json::exception &) {
          bad(key, "$ref " + quoted(value) + " points at nothing in this schema");
        }
      }
    } else if (key == "$id") {
      if (!path.empty()) bad(key, "'$id' is supported only at the root of a schema file (a nested $id would start a new "
                                  "resolution scope)");
    } else if (key == "$schema") {
      if (value != kDialect) bad(key, "only the 2020-12 dialect (\"" + std::string(kDialect) + "\") is supported, not " + quoted(value));
    }
  }
}

std::string type_of(const json &v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "unknown";
  }
}

bool matches_type(const json &v, const std::string &type) {
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    if (v.is_number_float()) {
      // 2020-12: any number with a zero fractional part (1.0, 1e300).
      const double d = v.get<double>();
      return std::isfinite(d) && d == std::trunc(d);
    }
    return false;
  }
  return type_of(v) == type;
}

std::string short_dump(const json &v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace

namespace detail {

class Validator {
 public:
  Validator(const SchemaRegistry &registry, const json &root) : registry_(registry), root_(root) {}

  void set_items_splice(SchemaValidator::ItemsSplice splice) { items_splice_ = std::move(splice); }

  void validate(const json &schema, const json &doc, const std::string &path, const json &root,
                std::vector<std::string> &errors, int depth) const {
    if (depth > 64) {
      errors.push_back(path + ": schema recursion too deep");
      return;
    }
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) errors.push_back(at(path) + ": no value is allowed here");
      return;
    }
    if (!schema.is_object()) return;

    if (auto it = schema.find("$ref"); it != schema.end()) {
      const json *target_root = &root;
      const json *target = resolve_ref(it->get<std::string>(), root, target_root);
      if (target == nullptr) {
        errors.push_back(at(path) + ": unresolvable $ref " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      } else {
        validate(*target, doc, path, *target_root, errors, depth + 1);
      }
    }
    if (auto it = schema.find("type"); it != schema.end()) {
      bool ok = false;
      std::string expected;
      if (it->is_array()) {
        for (const json &t : *it) {
          ok = ok || matches_type(doc, t.get<std::string>());
          expected += (expected.empty() ? "" : " or ") + t.get<std::string>();
        }
      } else {
        ok = matches_type(doc, it->get<std::string>());
        expected = it->get<std::string>();
      }
      if (!ok) {
        errors.push_back(at(path) + ": expected " + expected + ", got " + type_of(doc));
        return;  // further keywords would only repeat the type error
      }
    }
    if (auto it = schema.find("const"); it != schema.end() && doc != *it)
      errors.push_back(at(path) + ": expected " + short_dump(*it) + ", got " + short_dump(doc));
    if (auto it = schema.find("enum"); it != schema.end()) {
      if (std::find(it->begin(), it->end(), doc) == it->end())
        errors.push_back(at(path) + ": " + short_dump(doc) + " is not one of " + short_dump(*it));
    }
    if (doc.is_number()) check_number(schema, doc, path, errors);
    if (doc.is_string()) check_string(schema, doc.get<std::string>(), path, errors);
    if (doc.is_array()) check_array(schema, doc, path, root, errors, depth);
    if (doc.is_object()) check_object(schema, doc, path, root, errors, depth);

    if (auto it = schema.find("allOf"); it != schema.end())
      for (const json &sub : *it) validate(sub, doc, path, root, errors, depth + 1);
    if (auto it = schema.find("anyOf"); it != schema.end()) {
      bool any = false;
      std::vector<std::string> first_errors;
      for (const json &sub : *it) {
        std::vector<std::string> sub_errors;
        validate(sub, doc, path, root, sub_errors, depth + 1);
        if (sub_errors.empty()) {
          any = true;
          break;
        }
        if (first_errors.empty()) first_errors = sub_errors;
      }
      if (!any) {
        errors.push_back(at(path) + ": matches none of the allowed alternatives (first: " +
                         (first_errors.empty() ? std::string("?") : first_errors.front()) + ")");
      }
    }
    if (auto it = schema.find("oneOf"); it != schema.end()) {
      size_t matched = 0;
      std::string first_error;
      for (const json &sub : *it) {
        std::vector<std::string> sub_errors;
        validate(sub, doc, path, root, sub_errors, depth + 1);
        if (sub_errors.empty())
          ++matched;
        else if (first_error.empty())
          first_error = sub_errors.front();
      }
      if (matched == 0)
        errors.push_back(at(path) + ": matches none of the alternatives (first: " + first_error + ")");
      else if (matched > 1)
        errors.push_back(at(path) + ": matches " + std::to_string(matched) + " alternatives of oneOf, expected exactly one");
    }
    if (auto it = schema.find("not"); it != schema.end()) {
      std::vector<std::string> sub_errors;
      validate(*it, doc, path, root, sub_errors, depth + 1);
      if (sub_errors.empty()) errors.push_back(at(path) + ": matches a schema it must not match");
    }
  }

  const json *resolve_ref(const std::string &ref, const json &root, const json *&target_root) const {
    std::string doc_part = ref;
    std::string fragment;
    if (auto hash = ref.find('#'); hash != std::string::npos) {
      doc_part = ref.substr(0, hash);
      fragment = ref.substr(hash + 1);
    }
    const json *base = &root;
    if (!doc_part.empty()) {
      base = registry_.find(doc_part);
      if (base == nullptr) return nullptr;
    }
    target_root = base;
    if (fragment.empty()) return base;
    try {
      const json &target = base->at(json::json_pointer(fragment));
      return &target;
    } catch (const json::exception &) {
      return nullptr;
    }
  }

 private:
  static std::string at(const std::string &path) { return path.empty() ? "/" : path; }

  static void check_number(const json &schema, const json &doc, const std::string &path,
                           std::vector<std::string> &errors) {
    const double value = doc.get<double>();
    auto num = [&](const char *key) -> const json * {
      auto it = schema.find(key);
      return it == schema.end() || !it->is_number() ? nullptr : &*it;
    };
    if (const json *m = num("minimum"); m && value < m->get<double>())
      errors.push_back(at(path) + ": " + short_dump(doc) + " is below the minimum " + m->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (const json *m = num("maximum"); m && value > m->get<double>())
      errors.push_back(at(path) + ": " + short_dump(doc) + " is above the maximum " + m->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (const json *m = num("exclusiveMinimum"); m && value <= m->get<double>())
      errors.push_back(at(path) + ": " + short_dump(doc) + " must be greater than " + m->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (const json *m = num("exclusiveMaximum"); m && value >= m->get<double>())
      errors.push_back(at(path) + ": " + short_dump(doc) + " must be less than " + m->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }

  const std::regex &regex(const std::string &pattern) const {
    auto it = regex_cache_.find(pattern);
    if (it == regex_cache_.end()) it = regex_cache_.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
    return it->second;
  }

  // Lengths count Unicode code points, not bytes (JSON-Schema-Test-Suite:
  // one supplementary code point is one character): every byte that is not
  // a UTF-8 continuation byte starts one.
  static size_t code_points(const std::string &value) {
    return static_cast<size_t>(std::count_if(value.begin(), value.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
  }

  void check_string(const json &schema, const std::string &value, const std::string &path,
                    std::vector<std::string> &errors) const {
    const size_t length = code_points(value);
    if (auto it = schema.find("minLength"); it != schema.end() && length < it->get<size_t>())
      errors.push_back(at(path) + ": string shorter than " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (auto it = schema.find("maxLength"); it != schema.end() && length > it->get<size_t>())
      errors.push_back(at(path) + ": string longer than " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (auto it = schema.find("pattern"); it != schema.end()) {
      if (value.size() > kMaxPatternSubject)
        errors.push_back(at(path) + ": a string of " + std::to_string(value.size()) + " bytes is longer than the " +
                         std::to_string(kMaxPatternSubject) + " bytes matched against a pattern");
      else if (!std::regex_search(value, regex(it->get<std::string>())))
        errors.push_back(at(path) + ": " + short_dump(json(value)) + " does not match pattern " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  }

  void check_array(const json &schema, const json &doc, const std::string &path, const json &root,
                   std::vector<std::string> &errors, int depth) const {
    if (auto it = schema.find("minItems"); it != schema.end() && doc.size() < it->get<size_t>())
      errors.push_back(at(path) + ": expected at least " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " items, got " + std::to_string(doc.size()));
    if (auto it = schema.find("maxItems"); it != schema.end() && doc.size() > it->get<size_t>())
      errors.push_back(at(path) + ": expected at most " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " items, got " + std::to_string(doc.size()));
    size_t first_item = 0;
    if (auto it = schema.find("prefixItems"); it != schema.end()) {
      for (size_t idx = 0; idx < it->size() && idx < doc.size(); ++idx)
        validate((*it)[idx], doc[idx], path + "/" + std::to_string(idx), root, errors, depth + 1);
      first_item = it->size();
    }
    if (auto it = schema.find("items"); it != schema.end()) {
      if (items_splice_ && items_splice_(*it, path, errors)) return;
      for (size_t idx = first_item; idx < doc.size(); ++idx) {
        validate(*it, doc[idx], path + "/" + std::to_string(idx), root, errors, depth + 1);
        if (errors.size() > kValidationCutoff) return;  // enough to act on
      }
    }
  }

  void check_object(const json &schema, const json &doc, const std::string &path, const json &root,
                    std::vector<std::string> &errors, int depth) const {
    if (auto it = schema.find("required"); it != schema.end()) {
      for (const json &name : *it) {
        if (!doc.contains(name.get<std::string>()))
          errors.push_back(at(path) + ": missing required member '" + name.get<std::string>() + "'");
      }
    }
    if (auto it = schema.find("minProperties"); it != schema.end() && doc.size() < it->get<size_t>())
      errors.push_back(at(path) + ": expected at least " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " members");
    const json *props = nullptr;
    if (auto it = schema.find("properties"); it != schema.end()) props = &*it;
    const json *pattern_props = nullptr;
    if (auto it = schema.find("patternProperties"); it != schema.end()) pattern_props = &*it;
    const json *additional = nullptr;
    if (auto it = schema.find("additionalProperties"); it != schema.end()) additional = &*it;
    for (const auto &[key, value] : doc.items()) {
      std::string child = path + "/" + key;
      bool covered = false;
      if (props != nullptr) {
        if (auto p = props->find(key); p != props->end()) {
          validate(*p, value, child, root, errors, depth + 1);
          covered = true;
        }
      }
      if (pattern_props != nullptr && key.size() > kMaxPatternSubject) {
        errors.push_back(at(path) + ": a member name of " + std::to_string(key.size()) + " bytes is longer than the " +
                         std::to_string(kMaxPatternSubject) + " bytes matched against a pattern");
        covered = true;  // reported; not again as an unknown member
      } else if (pattern_props != nullptr) {
        for (const auto &[pattern, sub] : pattern_props->items()) {
          if (std::regex_search(key, regex(pattern))) {
            validate(sub, value, child, root, errors, depth + 1);
            covered = true;
          }
        }
      }
      if (!covered && additional != nullptr) {
        if (additional->is_boolean() && !additional->get<bool>()) {
          std::vector<std::string> valid;
          if (props != nullptr)
            for (const auto &[name, unused] : props->items()) valid.push_back(name);
          std::string list;
          for (const std::string &v : valid) list += (list.empty() ? "" : ", ") + v;
          const std::string closest = nearest(key, valid);
          errors.push_back(at(path) + ": unknown member '" + key + "'" +
                           (closest.empty() ? std::string() : " (did you mean '" + closest + "'?)") + " (valid: " + list + ")");
        } else {
          validate(*additional, value, child, root, errors, depth + 1);
        }
      }
      if (errors.size() > kValidationCutoff) return;
    }
  }

  const SchemaRegistry &registry_;
  const json &root_;
  mutable std::map<std::string, std::regex> regex_cache_;
  SchemaValidator::ItemsSplice items_splice_;
};

}  // namespace detail

std::string schema_file_name(std::string_view schema_id) {
  std::string id(schema_id);
  auto slash = id.rfind('/');
  if (slash == std::string::npos) return id + ".schema.json";
  return id.substr(0, slash) + ".v" + id.substr(slash + 1) + ".schema.json";
}

bool is_valid_schema_id(std::string_view schema_id) {  // a plugin-like id, '/', [1-9][0-9]* (no std::regex: linear)
  const size_t slash = schema_id.rfind('/');
  if (slash == std::string_view::npos || !is_valid_plugin_id(schema_id.substr(0, slash))) return false;
  const std::string_view version = schema_id.substr(slash + 1);
  return !version.empty() && version.front() >= '1' && version.front() <= '9' &&
         std::all_of(version.begin(), version.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> SchemaRegistry::add(const json &schema, const std::string &origin) {
  std::vector<std::string> problems;
  if (!schema.is_object()) {
    problems.push_back(origin + ": a schema file must hold a JSON object");
    return problems;
  }
  auto id_it = schema.find("$id");
  if (id_it == schema.end() || !id_it->is_string() || !is_valid_schema_id(id_it->get<std::string>())) {
    problems.push_back(origin + ": \"$id\" must be a schema id such as \"perfbound.bound_term/1\"");
    return problems;
  }
  std::vector<std::string> keyword_problems;
  check_keywords(schema, "", keyword_problems, schema);
  for (const std::string &p : keyword_problems) problems.push_back(origin + ": " + p);
  if (!problems.empty()) return problems;
  const std::string id = id_it->get<std::string>();
  if (auto existing = schemas_.find(id); existing != schemas_.end()) {
    if (existing->second != schema)
      problems.push_back(origin + ": schema '" + id + "' is already published by another file; this copy is ignored");
    return problems;
  }
  schemas_[id] = schema;
  return problems;
}

std::vector<std::string> SchemaRegistry::load_dir(const std::filesystem::path &dir) {
  std::vector<std::string> problems;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    problems.push_back(dir.string() + ": schema directory does not exist");
    return problems;
  }
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 12 && name.compare(name.size() - 12, 12, ".schema.json") == 0) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto &file : files) {
    std::string error;
    auto text = pb::sdk::read_json_input_file(file, pb::sdk::kMaxConfigFileBytes, error);  // UTF-8, depth
    if (!text) {
      problems.push_back(error);
      continue;
    }
    json schema = json::parse(*text, nullptr, false);
    if (schema.is_discarded()) {
      problems.push_back(pb::sdk::json_syntax_error_message(*text, file.string()));
      continue;
    }
    std::vector<std::string> p = add(schema, file.string());
    if (p.empty() && schema_file_name(schema["$id"].get<std::string>()) != file.filename().string())
      p.push_back(file.string() + ": file name does not match $id (expected " +
                  schema_file_name(schema["$id"].get<std::string>()) + ")");
    problems.insert(problems.end(), p.begin(), p.end());
  }
  return problems;
}

bool SchemaRegistry::has(std::string_view schema_id) const { return schemas_.find(schema_id) != schemas_.end(); }

const json *SchemaRegistry::find(std::string_view schema_id) const {
  auto it = schemas_.find(schema_id);
  return it == schemas_.end() ? nullptr : &it->second;
}

bool SchemaRegistry::is_text(std::string_view schema_id) const {
  const json *s = find(schema_id);
  if (s == nullptr) return false;
  auto it = s->find("x-perfbound-encoding");
  return it != s->end() && *it == "text";
}

std::vector<std::string> SchemaRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto &[id, unused] : schemas_) out.push_back(id);
  return out;
}

std::vector<std::string> SchemaRegistry::validate(std::string_view schema_id, const json &doc) const {
  const json *schema = find(schema_id);
  if (schema == nullptr) return {"no published JSON Schema for '" + std::string(schema_id) + "'"};
  std::vector<std::string> errors;
  detail::Validator v(*this, *schema);
  v.validate(*schema, doc, "", *schema, errors, 0);
  return errors;
}

SchemaValidator::SchemaValidator(const SchemaRegistry &registry, const json &root)
    : impl_(std::make_unique<detail::Validator>(registry, root)) {}

SchemaValidator::~SchemaValidator() = default;

void SchemaValidator::validate(const json &schema, const json &doc, const std::string &path, const json &root,
                               std::vector<std::string> &errors, int depth) const {
  impl_->validate(schema, doc, path, root, errors, depth);
}

const json *SchemaValidator::resolve_ref(const std::string &ref, const json &root, const json *&target_root) const {
  return impl_->resolve_ref(ref, root, target_root);
}

void SchemaValidator::set_items_splice(ItemsSplice splice) { impl_->set_items_splice(std::move(splice)); }

}  // namespace perfbound
