//===- json_schema_stream.cpp - check a JSON text while parsing it --------===//
#include "json_schema_stream.hpp"

#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>

namespace perfbound {
namespace {

// Keywords that constrain nothing (json_schema.hpp's annotations, plus $defs,
// which only holds subschemas for $ref).
bool is_annotation(const std::string &keyword) {
  static const std::set<std::string, std::less<>> kAnnotations = {
      "$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples", "format",
      "x-perfbound-encoding"};
  return kAnnotations.count(keyword) != 0;
}

// Whether every keyword of `schema` is an annotation or one of `allowed`.
bool only_keywords(const json &schema, const std::set<std::string, std::less<>> &allowed) {
  for (auto it = schema.begin(); it != schema.end(); ++it)
    if (!is_annotation(it.key()) && allowed.count(it.key()) == 0) return false;
  return true;
}

// Where and how the elements of one root member's array are validated:
// what SchemaValidator::validate is called with for each of them.
struct StreamedArray {
  const json *items = nullptr;  // the "items" schema, by address (the splice recognises it)
  const json *root = nullptr;   // the schema file it lives in (for its $refs)
  int depth = 0;                // schema recursion depth of each element's validation
};

using Plan = std::map<std::string, StreamedArray, std::less<>>;

// Follows the root's properties.K through $ref hops that carry nothing else
// to a schema constraining only "type" and "items". The depth counts as
// validation does: 1 for a root member, +1 per $ref, +1 for the items.
std::optional<StreamedArray> streamed_array(const SchemaValidator &validator, const json &member_schema,
                                            const json &root_schema) {
  constexpr int kMaxHops = 16;
  const json *schema = &member_schema;
  const json *root = &root_schema;
  int depth = 1;
  for (int hop = 0;; ++hop) {
    if (!schema->is_object()) return std::nullopt;
    auto ref = schema->find("$ref");
    if (ref == schema->end()) break;
    if (hop == kMaxHops || !ref->is_string() || !only_keywords(*schema, {"$ref"})) return std::nullopt;
    const json *target_root = root;
    const json *target = validator.resolve_ref(ref->get<std::string>(), *root, target_root);
    if (target == nullptr) return std::nullopt;
    schema = target;
    root = target_root;
    ++depth;
  }
  auto items = schema->find("items");
  if (items == schema->end() || !only_keywords(*schema, {"type", "items"})) return std::nullopt;
  return StreamedArray{&*items, root, depth + 1};
}

Plan make_plan(const SchemaValidator &validator, const json &root) {
  Plan plan;
  if (!root.is_object()) return plan;
  for (const char *whole : {"$ref", "const", "enum", "allOf", "anyOf", "oneOf", "not"})
    if (root.contains(whole)) return plan;
  auto props = root.find("properties");
  if (props == root.end() || !props->is_object()) return plan;
  auto patterns = root.find("patternProperties");
  for (auto it = props->begin(); it != props->end(); ++it) {
    const std::string &key = it.key();
    // "schema" is read before validation; a '/' would make "/K" ambiguous
    // with a nested path (validation does not escape member names).
    if (key.empty() || key == "schema" || key.find('/') != std::string::npos) continue;
    bool pattern_matches = false;
    if (patterns != root.end() && patterns->is_object())
      for (auto pat = patterns->begin(); pat != patterns->end() && !pattern_matches; ++pat)
        pattern_matches = std::regex_search(key, std::regex(pat.key(), std::regex::ECMAScript));
    if (pattern_matches) continue;
    if (auto streamed = streamed_array(validator, *it, root)) plan.emplace(key, *streamed);
  }
  return plan;
}

// What one parse keeps and where the elements of streamed arrays go.
struct ParseHooks {
  /// Whether a non-streamed root member is kept (its value is not built otherwise).
  std::function<bool(const std::string &key)> keep_member;
  /// Whether root member `key`'s array elements go to `element` and are dropped.
  std::function<bool(const std::string &key)> streams;
  /// A value of a streamed member begins (with duplicate keys the last one counts).
  std::function<void(const std::string &key, bool is_array)> value_begins;
  /// One complete element of a streamed member's array.
  std::function<void(const std::string &key, const json &element)> element;
  /// Whether the contents of a root that is not an object are kept.
  bool keep_non_object_root = true;
};

// Builds what json::parse would, from nlohmann's SAX events, except what
// the hooks drop. (Not json::parse with a parser callback: nlohmann 3.11's
// callback parser scans the whole parent array after every object it
// keeps, quadratic in a large array of objects.) Depth counts the open
// containers: the root's members are at depth 1.
class HookedBuilder {
 public:
  explicit HookedBuilder(const ParseHooks &hooks) : hooks_(hooks) {}

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool value) { return scalar(json(value)); }
  bool number_integer(json::number_integer_t value) { return scalar(json(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return scalar(json(value)); }
  bool number_float(json::number_float_t value, const std::string &) { return scalar(json(value)); }
  bool string(std::string &value) { return scalar(json(std::move(value))); }
  bool binary(json::binary_t &value) { return scalar(json::binary(std::move(value))); }
  bool start_object(std::size_t) { return open(json::object(), false); }
  bool start_array(std::size_t) { return open(json::array(), true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string &name) {
    if (open_.size() == 1 && root_is_object_) {
      member_ = name;
      member_streamed_ = hooks_.streams(member_);
      member_kept_ = member_streamed_ || hooks_.keep_member(member_);
    }
    key_ = std::move(name);
    return true;
  }
  bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) { return false; }

  json result;

 private:
  // Where a value that starts now goes: nullptr when it is dropped. An
  // element of a streamed array is built in element_ and handed over when
  // complete.
  json *place(json &&value, bool is_array, bool &is_element) {
    is_element = false;
    if (open_.empty()) {
      result = std::move(value);
      return &result;
    }
    json *parent = open_.back();
    if (parent == nullptr) return nullptr;
    if (open_.size() == 1) {
      if (!root_is_object_) {
        if (!hooks_.keep_non_object_root) return nullptr;
      } else {
        if (member_streamed_) hooks_.value_begins(member_, is_array);
        if (!member_kept_) return nullptr;
      }
    } else if (open_.size() == 2 && in_streamed_array_) {
      is_element = true;
      element_ = std::move(value);
      return &element_;
    }
    if (parent->is_array()) {
      parent->push_back(std::move(value));
      return &parent->back();
    }
    json &slot = (*parent)[key_];
    slot = std::move(value);
    return &slot;
  }

  bool scalar(json &&value) {
    bool is_element = false;
    if (place(std::move(value), false, is_element) != nullptr && is_element) hand_over();
    return true;
  }

  bool open(json &&value, bool is_array) {
    const bool root = open_.empty();
    const bool streamed_array = open_.size() == 1 && root_is_object_ && is_array && member_streamed_;
    bool is_element = false;
    json *container = place(std::move(value), is_array, is_element);
    if (root) root_is_object_ = !is_array;
    if (streamed_array) in_streamed_array_ = true;
    open_.push_back(container);
    return true;
  }

  bool close() {
    const bool element_done = open_.size() == 3 && in_streamed_array_ && open_.back() == &element_;
    open_.pop_back();
    if (element_done) hand_over();
    if (open_.size() == 1) in_streamed_array_ = false;
    return true;
  }

  void hand_over() {
    hooks_.element(member_, element_);
    element_ = json();
  }

  const ParseHooks &hooks_;
  std::vector<json *> open_;  // the open containers (nullptr: being dropped)
  std::string key_;           // the member whose value comes next
  std::string member_;        // the root member whose value is being parsed
  bool root_is_object_ = false;
  bool member_kept_ = false;
  bool member_streamed_ = false;
  bool in_streamed_array_ = false;
  json element_;
};

// Parses `text` as json::parse(text, nullptr, false) does (a parse error
// yields a discarded value), keeping only what the hooks keep.
json parse_with_hooks(const std::string &text, const ParseHooks &hooks) {
  HookedBuilder builder(hooks);
  if (!json::sax_parse(text, &builder)) return json(json::value_t::discarded);
  return std::move(builder.result);
}

// The violations of one streamed member's last array, validated while
// parsing as if no violation came before it.
struct MemberRecord {
  std::vector<std::string> errors;
  size_t next_index = 0;
  bool complete = true;   // every element was visited (the cut-off was not reached)
  bool is_array = false;  // the member's value was an array (now empty in the skeleton)
  bool spliced = false;
};

std::string element_path(const std::string &key, size_t index) { return "/" + key + "/" + std::to_string(index); }

// Validates the elements of member `key` again with `before` violations
// counted ahead of them, appending theirs to `errors`: past the cut-off the
// validator's early stops depend on that count.
void revalidate_member(const std::string &text, const std::string &key, const StreamedArray &array,
                       const SchemaValidator &validator, size_t before, std::vector<std::string> &errors) {
  std::vector<std::string> counted(before);  // stand-ins for the violations before this array
  size_t index = 0;
  bool done = false;
  ParseHooks hooks;
  hooks.keep_member = [](const std::string &) { return false; };
  hooks.streams = [&](const std::string &name) { return name == key; };
  hooks.value_begins = [&](const std::string &, bool) {
    counted.resize(before);
    index = 0;
    done = false;
  };
  hooks.element = [&](const std::string &, const json &element) {
    const size_t element_index = index++;
    if (done) return;
    validator.validate(*array.items, element, element_path(key, element_index), *array.root, counted, array.depth);
    done = counted.size() > kValidationCutoff;
  };
  hooks.keep_non_object_root = false;
  (void)parse_with_hooks(text, hooks);
  errors.insert(errors.end(), std::make_move_iterator(counted.begin() + static_cast<std::ptrdiff_t>(before)),
                std::make_move_iterator(counted.end()));
}

}  // namespace

std::vector<std::string> streamable_members(const SchemaRegistry &registry, std::string_view schema_id) {
  std::vector<std::string> out;
  const json *schema = registry.find(schema_id);
  if (schema == nullptr) return out;
  SchemaValidator validator(registry, *schema);
  for (const auto &[key, unused] : make_plan(validator, *schema)) out.push_back(key);
  return out;
}

TextValidation validate_json_text(const SchemaRegistry &registry, std::string_view schema_id, const std::string &text) {
  TextValidation out;
  const json *schema = registry.find(schema_id);
  if (schema == nullptr) {
    out.skeleton = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!out.skeleton.is_discarded()) out.errors = registry.validate(schema_id, out.skeleton);
    return out;
  }
  SchemaValidator validator(registry, *schema);
  const Plan plan = make_plan(validator, *schema);
  std::map<std::string, MemberRecord, std::less<>> records;

  ParseHooks hooks;
  hooks.keep_member = [](const std::string &) { return true; };
  hooks.streams = [&](const std::string &key) { return plan.count(key) != 0; };
  hooks.value_begins = [&](const std::string &key, bool is_array) {
    records[key] = MemberRecord{};
    records[key].is_array = is_array;
  };
  hooks.element = [&](const std::string &key, const json &element) {
    MemberRecord &record = records[key];
    const StreamedArray &array = plan.at(key);
    const size_t index = record.next_index++;
    if (!record.complete) return;
    validator.validate(*array.items, element, element_path(key, index), *array.root, record.errors, array.depth);
    record.complete = record.errors.size() <= kValidationCutoff;
  };
  out.skeleton = parse_with_hooks(text, hooks);
  if (out.skeleton.is_discarded()) return out;
  for (const auto &[key, record] : records)
    if (record.is_array) out.streamed.push_back(key);

  // Validation reaches a streamed array's items with `before` violations
  // already found. Recorded from zero, its elements' violations are the
  // same while before + recorded stays within the cut-off (no early stop
  // fires either way); beyond it they are checked again from `before`.
  validator.set_items_splice([&](const json &items, const std::string &path, std::vector<std::string> &errors) {
    if (path.size() < 2 || path.front() != '/') return false;
    auto record = records.find(std::string_view(path).substr(1));
    if (record == records.end() || !record->second.is_array || record->second.spliced) return false;
    const StreamedArray &array = plan.at(record->first);
    if (&items != array.items) return false;
    record->second.spliced = true;
    const size_t before = errors.size();
    if (record->second.complete && before + record->second.errors.size() <= kValidationCutoff) {
      errors.insert(errors.end(), record->second.errors.begin(), record->second.errors.end());
    } else {
      revalidate_member(text, record->first, array, validator, before, errors);
    }
    return true;
  });
  validator.validate(*schema, out.skeleton, "", *schema, out.errors, 0);
  return out;
}

json parse_json_envelope(const std::string &text) {
  ParseHooks hooks;
  hooks.keep_member = [](const std::string &key) { return key == "schema"; };
  hooks.streams = [](const std::string &) { return false; };
  hooks.value_begins = [](const std::string &, bool) {};
  hooks.element = [](const std::string &, const json &) {};
  hooks.keep_non_object_root = false;
  return parse_with_hooks(text, hooks);
}

}  // namespace perfbound
