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
#include <map>
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

}  // namespace perfbound

#endif  // PERFBOUND_HOST_JSON_SCHEMA_HPP
