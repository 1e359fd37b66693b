//===- json_schema_stream.hpp - check a JSON text while parsing it --------===//
//
// The host checks every document that crosses an edge against its schema.
// A large node output (perfbound.hivm_program/1 of a 3.4 MB dump: 28 MB of
// text, ~47k op records) takes about 8x its text as a DOM, only to be
// checked and thrown away. validate_json_text builds it from the parser's
// SAX events instead: each element of a large root-level array is checked
// against the array's "items" schema as soon as it is complete and then
// dropped, so only the document's skeleton and one element are held.
//
// It streams a root member only where that gives exactly the messages of
// SchemaRegistry::validate on the whole document (streamable_members):
// the root schema's properties.K resolves, through $ref and annotations
// only, to a schema whose only constraints are "type" and "items" (nothing
// that counts or compares the elements), and nothing at the root sees the
// whole document ($ref, const, enum, allOf, anyOf, oneOf, not) or matches
// K by patternProperties. Every other keyword is then checked on the
// skeleton, where the streamed arrays are empty and their elements'
// violations are spliced in at the place validation would have reached
// them, so paths, order and the validator's cut-off are the same.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_JSON_SCHEMA_STREAM_HPP
#define PERFBOUND_HOST_JSON_SCHEMA_STREAM_HPP

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_schema.hpp"

namespace perfbound {

struct TextValidation {
  /// The document as parsed, except that the arrays of the `streamed`
  /// members are empty. Discarded when the text is not valid JSON.
  json skeleton;
  /// The violations SchemaRegistry::validate reports for the whole
  /// document, in its words and order.
  std::vector<std::string> errors;
  /// Root members whose array elements were checked one by one.
  std::vector<std::string> streamed;
};

/// The root members of `schema_id` whose array elements can be checked one
/// at a time with exactly the result of validating the whole document
/// (sorted; empty when the schema is not published or allows none).
std::vector<std::string> streamable_members(const SchemaRegistry &registry, std::string_view schema_id);

/// Parses `text` and validates it against `schema_id`, holding at most one
/// element of each streamable member's array at a time. A text whose root
/// is not an object is held whole (nothing is streamed).
TextValidation validate_json_text(const SchemaRegistry &registry, std::string_view schema_id, const std::string &text);

/// Parses only what the host reads before validation: the root and, when it
/// is an object, its "schema" member. Every other member's value is dropped
/// while parsing (a non-object root is left empty). Discarded when the text
/// is not valid JSON, exactly when json::parse would fail.
json parse_json_envelope(const std::string &text);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_JSON_SCHEMA_STREAM_HPP
