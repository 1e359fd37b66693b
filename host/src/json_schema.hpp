//===- json_schema.hpp - published document schemas and their validator --===//
//
// Every document schema is published as a JSON Schema file in abi/schemas/
// (installed to share/perfbound/schemas). The host validates every document
// that crosses an edge against the schema its port declares, so a plugin
// that emits the wrong shape is caught at the edge, not three nodes later.
//
// The validator implements the subset of JSON Schema (2020-12 keywords) the
// published schemas use; a schema file using any other keyword is refused
// when loaded, so nothing is silently unchecked. Supported keywords:
//   type, properties, required, additionalProperties, patternProperties,
//   items, prefixItems, enum, const, minimum, maximum, exclusiveMinimum,
//   exclusiveMaximum, minItems, maxItems, minLength, maxLength, minProperties,
//   pattern, oneOf, anyOf, allOf, not, $ref, $defs
// plus the annotations $schema, $id, $comment, title, description, default,
// examples, format, and "x-perfbound-encoding": "text" for raw-text schemas.
// $ref accepts "#", "#/JSON-pointer" (e.g. "#/$defs/NAME"), "SCHEMA_ID" and
// "SCHEMA_ID#/JSON-pointer"; other forms (URIs, anchors, percent-encoding),
// an internal pointer that resolves to nothing, $id below the root, a
// "$schema" other than 2020-12, the array form of "items" and keyword values
// of the wrong shape are refused at load too. minLength/maxLength count code
// points. Checked against the JSON-Schema-Test-Suite
// (tests/host/schema_suite/).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_JSON_SCHEMA_HPP
#define PERFBOUND_HOST_JSON_SCHEMA_HPP

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "expected.hpp"

namespace perfbound {

using json = nlohmann::json;

/// File name of the published schema for an id: "perfbound.hivm_program/1"
/// -> "perfbound.hivm_program.v1.schema.json".
std::string schema_file_name(std::string_view schema_id);

/// True for ids of the form "lower.dotted.name/N" with N >= 1.
bool is_valid_schema_id(std::string_view schema_id);

/// Validation stops visiting an array's items or an object's members once
/// more violations than this have been found (enough to act on).
constexpr size_t kValidationCutoff = 200;

class SchemaRegistry {
 public:
  /// Loads every *.schema.json in `dir`. Returns the problems found (one per
  /// line, naming the file); valid files are kept even when others fail.
  std::vector<std::string> load_dir(const std::filesystem::path &dir);
  /// Adds one schema from memory (tests). Returns problems, empty when ok.
  std::vector<std::string> add(const json &schema, const std::string &origin);

  [[nodiscard]] bool has(std::string_view schema_id) const;
  [[nodiscard]] const json *find(std::string_view schema_id) const;
  /// Schemas marked "x-perfbound-encoding": "text" describe raw text.
  [[nodiscard]] bool is_text(std::string_view schema_id) const;
  [[nodiscard]] std::vector<std::string> ids() const;

  /// Validates `doc` against the schema `schema_id`. Returns one message per
  /// violation ("/path/to/member: expected ..."), empty when valid. An id
  /// without a published schema yields one message saying so.
  [[nodiscard]] std::vector<std::string> validate(std::string_view schema_id, const json &doc) const;

 private:
  std::map<std::string, json, std::less<>> schemas_;
};

namespace detail {
class Validator;
}  // namespace detail

/// One validation session, the one SchemaRegistry::validate runs, open for
/// checking a document while it is parsed (json_schema_stream.hpp): it
/// validates a subschema at a given path and recursion depth (compiled
/// patterns are kept between calls), resolves $ref the way validation does,
/// and lets a caller take over where an array's "items" are checked.
class SchemaValidator {
 public:
  /// Called where the items of an array at `path` would be checked against
  /// `items` (the "items" value, by address in its schema). When it returns
  /// true it has appended the items' violations to `errors` itself and the
  /// validator does not visit the array's elements.
  using ItemsSplice = std::function<bool(const json &items, const std::string &path, std::vector<std::string> &errors)>;

  /// `root` is the schema validation starts from (it must outlive this).
  SchemaValidator(const SchemaRegistry &registry, const json &root);
  ~SchemaValidator();
  SchemaValidator(const SchemaValidator &) = delete;
  SchemaValidator &operator=(const SchemaValidator &) = delete;

  /// Appends the violations of `doc` against `schema` (a subschema of
  /// `root`) at `path`, `depth` levels of schema recursion deep.
  void validate(const json &schema, const json &doc, const std::string &path, const json &root,
                std::vector<std::string> &errors, int depth) const;
  /// The schema a $ref found in `root` names, or nullptr; `target_root` is
  /// set to the schema file the target lives in.
  [[nodiscard]] const json *resolve_ref(const std::string &ref, const json &root, const json *&target_root) const;
  void set_items_splice(ItemsSplice splice);

 private:
  std::unique_ptr<detail::Validator> impl_;
};

}  // namespace perfbound

#endif  // PERFBOUND_HOST_JSON_SCHEMA_HPP
