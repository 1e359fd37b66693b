//===- test_schema_stream.cpp - validating a JSON text while parsing it ---===//
#include <doctest/doctest.h>

#include <limits>

#include "engine.hpp"
#include "json_schema_stream.hpp"
#include "support/test_support.hpp"

using perfbound::json;
using perfbound::SchemaRegistry;

namespace {

// Root members in key order: alpha, counted, name, ops, schema, tags, zeta.
// "ops" (through two $refs) and "tags" can be streamed; "counted" cannot
// (minItems counts the elements).
const char *kStreamSchema = R"({
  "$id": "t.stream/1", "type": "object", "required": ["schema", "ops", "name"],
  "additionalProperties": false,
  "properties": {
    "schema": {"const": "t.stream/1"},
    "alpha": {"type": "integer", "minimum": 0},
    "name": {"type": "string"},
    "ops": {"$ref": "#/$defs/ops", "description": "streamed through a $ref"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "zeta": {"type": "object", "properties": {"n": {"type": "integer"}}},
    "counted": {"type": "array", "minItems": 1, "items": {"type": "integer"}}
  },
  "$defs": {
    "ops": {"type": "array", "title": "op records", "items": {"$ref": "#/$defs/op"}},
    "op": {"type": "object", "required": ["name", "count"], "additionalProperties": false,
           "properties": {"name": {"type": "string"}, "count": {"type": "integer", "minimum": 1},
                          "dims": {"type": "array", "items": {"type": "integer"}}}}
  }
})";

// Violations in four of the five "ops" elements, in "tags" and in the
// skeleton before ("alpha", "bogus", "counted") and after ("zeta") them.
const char *kStreamDoc = R"({"schema":"t.stream/1","zeta":{"n":"x"},"tags":["a",1,"b",null],
  "ops":[{"name":"a","count":1},{"name":"b","count":0},{"count":2,"dims":[1,"2"]},
         {"name":"d","count":3,"extra":true},5],
  "alpha":-1,"counted":[],"name":"k","bogus":1})";

SchemaRegistry registry_with(std::initializer_list<const char *> schemas) {
  SchemaRegistry reg;
  for (const char *text : schemas) REQUIRE(reg.add(json::parse(text), "test").empty());
  return reg;
}

// The streamed check must say exactly what validating the whole DOM says.
std::vector<std::string> streamed_equals_dom(const SchemaRegistry &reg, const std::string &id, const std::string &text) {
  perfbound::TextValidation streamed = perfbound::validate_json_text(reg, id, text);
  const json dom = json::parse(text);
  const std::vector<std::string> whole = reg.validate(id, dom);
  CHECK(streamed.errors == whole);
  return streamed.errors;
}

}  // namespace

TEST_CASE("streamable members: arrays whose only constraints are type and items, found through $ref") {
  SchemaRegistry reg = registry_with({kStreamSchema});
  CHECK(perfbound::streamable_members(reg, "t.stream/1") == std::vector<std::string>{"ops", "tags"});

  SchemaRegistry refused = registry_with({R"({"$id":"t.list/1","$defs":{"list":{"type":"array","items":{"$ref":"#/$defs/item"}},
      "item":{"type":"integer"}}})",
                                          R"({"$id":"t.refuse/1","type":"object",
      "patternProperties":{"^pat_":{"type":"array"}},
      "properties":{
        "cross":{"$ref":"t.list/1#/$defs/list"},
        "counted":{"type":"array","maxItems":3,"items":{"type":"integer"}},
        "prefixed":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}},
        "typed_ref":{"$ref":"#/$defs/list","type":"array"},
        "pat_x":{"type":"array","items":{"type":"integer"}},
        "free":{"type":"array"},
        "any":{"anyOf":[{"type":"array","items":{"type":"integer"}}]},
        "schema":{"type":"array","items":{"type":"string"}},
        "a/b":{"type":"array","items":{"type":"integer"}}},
      "$defs":{"list":{"type":"array","items":{"type":"integer"}}}})"});
  // Only the cross-file $ref qualifies: every other member has a keyword
  // that sees the elements together, shares its name with a pattern, or is
  // read before validation ("schema") or ambiguous as a path ("a/b").
  CHECK(perfbound::streamable_members(refused, "t.refuse/1") == std::vector<std::string>{"cross"});

  // A root keyword that sees the whole document streams nothing.
  SchemaRegistry whole = registry_with({R"({"$id":"t.whole/1","type":"object",
      "properties":{"xs":{"type":"array","items":{"type":"integer"}}},"not":{"required":["nope"]}})"});
  CHECK(perfbound::streamable_members(whole, "t.whole/1").empty());
  CHECK(perfbound::streamable_members(whole, "nobody.here/1").empty());
}

TEST_CASE("the published hivm_program schema streams its op records") {
  SchemaRegistry reg;
  REQUIRE(reg.load_dir(pbtest::source_dir() / "abi" / "schemas").empty());
  const std::vector<std::string> members = perfbound::streamable_members(reg, "perfbound.hivm_program/1");
  CHECK(std::find(members.begin(), members.end(), "ops") != members.end());
}

TEST_CASE("violations in several elements and in the skeleton: same messages, paths and order as the whole DOM") {
  SchemaRegistry reg = registry_with({kStreamSchema});
  perfbound::TextValidation checked = perfbound::validate_json_text(reg, "t.stream/1", kStreamDoc);
  CHECK(checked.streamed == std::vector<std::string>{"ops", "tags"});
  // The elements were dropped while parsing; the rest of the document stays.
  CHECK(checked.skeleton.at("ops") == json::array());
  CHECK(checked.skeleton.at("tags") == json::array());
  CHECK(checked.skeleton.at("counted") == json::array());
  CHECK(checked.skeleton.at("zeta") == json::parse(R"({"n":"x"})"));
  // Members in key order (alpha, bogus, counted, name, ops, schema, tags,
  // zeta); within "ops" element by element, each element's members in key
  // order after its "required".
  const std::vector<std::string> expected = {
      "/alpha: -1 is below the minimum 0",
      "/: unknown member 'bogus' (valid: alpha, counted, name, ops, schema, tags, zeta)",
      "/counted: expected at least 1 items, got 0",
      "/ops/1/count: 0 is below the minimum 1",
      "/ops/2: missing required member 'name'",
      "/ops/2/dims/1: expected integer, got string",
      "/ops/3: unknown member 'extra' (valid: count, dims, name)",
      "/ops/4: expected object, got integer",
      "/tags/1: expected string, got integer",
      "/tags/3: expected string, got null",
      "/zeta/n: expected integer, got string",
  };
  CHECK(checked.errors == expected);
  CHECK(reg.validate("t.stream/1", json::parse(kStreamDoc)) == expected);
}

TEST_CASE("past the validator's cut-off the streamed elements count the violations before them") {
  // "a" and "b" (before "rows" in key order) give 2 violations; every row
  // gives 10. Whole DOM: rows 0..18 bring the count to 2 + 190 = 192; row
  // 19's member check stops after 9 members (201 > 200), the rows loop and
  // the root's member loop stop too, so "z" is never checked: 201 in all.
  // Recorded from zero the 20 rows give 200 (within the cut-off), so simply
  // splicing them would give 202 + "z"'s.
  SchemaRegistry reg = registry_with({R"({"$id":"t.many/1","type":"object","properties":{
      "a":{"type":"string"},"b":{"type":"string"},"z":{"type":"string"},
      "rows":{"type":"array","items":{"type":"object","additionalProperties":{"type":"integer"}}}}})"});
  CHECK(perfbound::streamable_members(reg, "t.many/1") == std::vector<std::string>{"rows"});
  for (int rows : {20, 21, 25}) {
    CAPTURE(rows);
    json doc = {{"a", 1}, {"b", 2}, {"z", 3}, {"rows", json::array()}};
    for (int row_idx = 0; row_idx < rows; ++row_idx) {
      json row = json::object();
      for (int key_idx = 0; key_idx < 10; ++key_idx) row["k" + std::to_string(key_idx)] = "s";
      doc["rows"].push_back(row);
    }
    const std::vector<std::string> errors = streamed_equals_dom(reg, "t.many/1", doc.dump());
    CHECK(errors.size() == 201);
    CHECK(errors.back() == "/rows/19/k8: expected integer, got string");
  }
  // With nothing before the rows, 20 rows stay within the cut-off and the
  // recorded violations are spliced as they are: 200 plus "z"'s.
  json doc = {{"z", 3}, {"rows", json::array()}};
  for (int row_idx = 0; row_idx < 20; ++row_idx) {
    json row = json::object();
    for (int key_idx = 0; key_idx < 10; ++key_idx) row["k" + std::to_string(key_idx)] = "s";
    doc["rows"].push_back(row);
  }
  const std::vector<std::string> errors = streamed_equals_dom(reg, "t.many/1", doc.dump());
  CHECK(errors.size() == 201);
  CHECK(errors.back() == "/z: expected string, got integer");
}

TEST_CASE("a repeated member counts once, its last value, as json::parse keeps it") {
  SchemaRegistry reg = registry_with({kStreamSchema});
  CHECK(streamed_equals_dom(reg, "t.stream/1",
                            R"({"schema":"t.stream/1","name":"k","ops":[5,6],"ops":[{"name":"a","count":0}]})") ==
        std::vector<std::string>{"/ops/0/count: 0 is below the minimum 1"});
  CHECK(streamed_equals_dom(reg, "t.stream/1", R"({"schema":"t.stream/1","name":"k","ops":[5],"ops":{"x":[7]}})") ==
        std::vector<std::string>{"/ops: expected array, got object"});
  CHECK(streamed_equals_dom(reg, "t.stream/1", R"({"schema":"t.stream/1","name":"k","ops":{"x":1},"ops":[[1],{}]})") ==
        std::vector<std::string>{"/ops/0: expected object, got array", "/ops/1: missing required member 'name'",
                                 "/ops/1: missing required member 'count'"});
}

TEST_CASE("streamed items keep their schema file and recursion depth") {
  // Items in another schema file resolve their own "#/..." refs there; a
  // tree deeper than the validator's recursion limit stops at the same place.
  SchemaRegistry reg = registry_with({R"({"$id":"t.tree/1","$defs":{
      "forest":{"type":"array","items":{"$ref":"#/$defs/node"}},
      "node":{"type":"object","required":["v"],"properties":{"v":{"type":"integer"},
              "kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}})",
                                      R"({"$id":"t.grove/1","type":"object",
      "properties":{"trees":{"$ref":"t.tree/1#/$defs/forest"}}})"});
  REQUIRE(perfbound::streamable_members(reg, "t.grove/1") == std::vector<std::string>{"trees"});
  CHECK(streamed_equals_dom(reg, "t.grove/1", R"({"trees":[{"v":1},{"v":"x","kids":[{"w":2}]}]})") ==
        std::vector<std::string>{"/trees/1/kids/0: missing required member 'v'", "/trees/1/v: expected integer, got string"});
  std::string deep = R"({"v":0})";
  for (int level = 0; level < 30; ++level) deep = R"({"v":1,"kids":[)" + deep + "]}";
  // Depths: "trees" 1, its $ref 2, the items 3, their $ref 4: the node at
  // nesting level L (0 = /trees/0) at 4 + 3L, its "kids" and "v" at 5 + 3L.
  // The validator refuses depths above 64: level 20's node is at 64, its
  // "kids" and "v" at 65.
  std::string level20 = "/trees/0";
  for (int level = 0; level < 20; ++level) level20 += "/kids/0";
  const std::vector<std::string> errors = streamed_equals_dom(reg, "t.grove/1", R"({"trees":[)" + deep + "]}");
  CHECK(errors == std::vector<std::string>{level20 + "/kids: schema recursion too deep",
                                           level20 + "/v: schema recursion too deep"});
}

TEST_CASE("text that is not JSON, or not an object, reads as json::parse reads it") {
  SchemaRegistry reg = registry_with({kStreamSchema});
  // A parse error after elements were already checked and dropped.
  const std::string truncated = std::string(kStreamDoc).substr(0, std::string(kStreamDoc).find("5],"));
  CHECK(perfbound::validate_json_text(reg, "t.stream/1", truncated).skeleton.is_discarded());
  CHECK(perfbound::validate_json_text(reg, "t.stream/1", std::string(kStreamDoc) + ",").skeleton.is_discarded());
  CHECK(perfbound::parse_json_envelope(truncated).is_discarded());
  CHECK(perfbound::parse_json_envelope("{\"schema\":\"t.stream/1\"} x").is_discarded());
  // A root array is held whole and validated as it is.
  perfbound::TextValidation array = perfbound::validate_json_text(reg, "t.stream/1", R"([{"ops":[1]}])");
  CHECK(array.skeleton == json::parse(R"([{"ops":[1]}])"));
  CHECK(array.errors == std::vector<std::string>{"/: expected object, got array"});
  // The envelope keeps the root's type and its "schema" member only.
  CHECK(perfbound::parse_json_envelope(kStreamDoc) == json::parse(R"({"schema":"t.stream/1"})"));
  CHECK(perfbound::parse_json_envelope(R"([1,{"schema":"x"}])") == json::array());
  CHECK(perfbound::parse_json_envelope(R"({"schema":{"not":"a string"},"x":[1]})") ==
        json::parse(R"({"schema":{"not":"a string"}})"));
  CHECK(perfbound::parse_json_envelope("\"text\"") == json("text"));
}

TEST_CASE("check_document says the same for a document checked while parsed and one parsed whole") {
  SchemaRegistry reg = registry_with({kStreamSchema});
  const std::string schema = "t.stream/1";
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {kStreamDoc,
       {"violates t.stream/1: /alpha: -1 is below the minimum 0",
        "violates t.stream/1: /: unknown member 'bogus' (valid: alpha, counted, name, ops, schema, tags, zeta)",
        "violates t.stream/1: /counted: expected at least 1 items, got 0",
        "violates t.stream/1: /ops/1/count: 0 is below the minimum 1",
        "violates t.stream/1: /ops/2: missing required member 'name'", "... and 6 more violations"}},
      {R"({"schema":"t.stream/1","name":"k","ops":[{"name":"a","count":1}]})", {}},
      {R"({"schema":"t.stream/1","ops":[1,)",
       {"is not valid JSON at line 1, column 33: syntax error while parsing value - unexpected end of input; expected '[', "
        "'{', or a literal"}},
      {"{\"schema\":\"t.stream/1\",\n\"ops\":[1e999]}", {"is not valid JSON at line 2, column 12: number overflow parsing '1e999'"}},
      {"{\"schema\":\"t.stream/1\",\n\n  \"name\": tru}", {"is not valid JSON at line 3, column 14: syntax error while parsing value - "
                                                               "invalid literal; last read: '\"name\": tru}'"}},
      {R"([{"schema":"t.stream/1"}])", {"is not a JSON object"}},
      {R"({"ops":[],"schema":7})", {"has no \"schema\" member (expected \"t.stream/1\")"}},
      {R"({"ops":[1],"schema":"t.other/1"})", {"declares schema \"t.other/1\" but the port carries \"t.stream/1\""}},
  };
  for (const auto &[text, expected] : cases) {
    CAPTURE(text);
    perfbound::Document doc(PB_ENCODING_JSON, schema, text, "test");
    const auto whole = perfbound::check_document(reg, schema, doc, true, 5, std::numeric_limits<size_t>::max());
    const auto streamed = perfbound::check_document(reg, schema, doc, true, 5, 0);
    CHECK(whole == expected);
    CHECK(streamed == expected);
    // Without structural validation only the envelope is read.
    CHECK(perfbound::check_document(reg, schema, doc, false, 5, 0) ==
          perfbound::check_document(reg, schema, doc, false, 5, std::numeric_limits<size_t>::max()));
  }
}
