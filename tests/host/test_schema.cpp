//===- test_schema.cpp - the JSON Schema subset validator -----------------===//
#include <doctest/doctest.h>

#include <fstream>

#include "json_schema.hpp"
#include "plugin_info.hpp"
#include "support/test_support.hpp"

using perfbound::json;
using perfbound::SchemaRegistry;

namespace {
SchemaRegistry registry_with(const json &schema) {
  SchemaRegistry reg;
  auto problems = reg.add(schema, "test");
  REQUIRE(problems.empty());
  return reg;
}
}  // namespace

TEST_CASE("every published schema in abi/schemas loads with supported keywords only") {
  SchemaRegistry reg;
  auto problems = reg.load_dir(pbtest::source_dir() / "abi" / "schemas");
  for (const std::string &p : problems) INFO(p);
  CHECK(problems.empty());
  CHECK(reg.has("perfbound.run_result/1"));
  CHECK(reg.has("perfbound.profile/1"));
  CHECK(reg.has("perfbound.plugin_manifest/1"));
}

TEST_CASE("schema ids and file names") {
  CHECK(perfbound::is_valid_schema_id("perfbound.hivm_program/1"));
  CHECK(perfbound::is_valid_schema_id("acme.l2.term/12"));
  CHECK_FALSE(perfbound::is_valid_schema_id("perfbound.hivm_program"));
  CHECK_FALSE(perfbound::is_valid_schema_id("nodot/1"));
  CHECK_FALSE(perfbound::is_valid_schema_id("perfbound.x/0"));
  CHECK(perfbound::schema_file_name("perfbound.bound_term/1") == "perfbound.bound_term.v1.schema.json");
  CHECK_FALSE(perfbound::is_valid_schema_id("perfbound.x/"));
  CHECK_FALSE(perfbound::is_valid_schema_id("perfbound.x/1a"));
  CHECK_FALSE(perfbound::is_valid_schema_id("Perfbound.x/1"));
  CHECK_FALSE(perfbound::is_valid_schema_id("perfbound..x/1"));
  CHECK_FALSE(perfbound::is_valid_schema_id("perfbound.x./1"));
  CHECK_FALSE(perfbound::is_valid_schema_id("/1"));
}

TEST_CASE("names and ids are checked in one pass: a name of megabytes is an answer, not a stack overflow") {
  // libstdc++'s std::regex recursed once per character: 2 MB overflowed the stack.
  const std::string long_name(4'000'000, 'a');
  CHECK(perfbound::is_valid_name(long_name));
  CHECK_FALSE(perfbound::is_valid_name(long_name + "-"));
  CHECK(perfbound::is_valid_plugin_id("acme." + long_name));
  CHECK(perfbound::is_valid_schema_id("acme." + long_name + "/3"));
  CHECK(perfbound::is_valid_command_name("bench-" + long_name));
  for (const char *name : {"a", "a_1", "node_0"}) CHECK(perfbound::is_valid_name(name));
  for (const char *name : {"", "1a", "_a", "a-b", "A", "a.b"}) CHECK_FALSE(perfbound::is_valid_name(name));
  for (const char *id : {"a.b", "perfbound.extract_hivm", "acme.l2.x_1"}) CHECK(perfbound::is_valid_plugin_id(id));
  for (const char *id : {"a", "a.", ".a", "a..b", "a.B", "a.1b", "a-b.c"}) CHECK_FALSE(perfbound::is_valid_plugin_id(id));
  CHECK(perfbound::is_valid_command_name("bench-run"));
  CHECK_FALSE(perfbound::is_valid_command_name("bench_run"));
}

TEST_CASE("a string or member name past 4096 bytes is reported, not matched against a pattern") {
  SchemaRegistry reg = registry_with(json::parse(R"({"$id": "t.pat/1", "type": "object",
    "properties": {"schema": {"const": "t.pat/1"}, "id": {"type": "string", "pattern": "^[a-z]+$"},
                   "map": {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "integer"}},
                           "additionalProperties": false}}})"));
  const std::string big(2'000'000, 'a');
  auto errors = reg.validate("t.pat/1", json{{"schema", "t.pat/1"}, {"id", big}, {"map", {{big, 1}}}});
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == "/id: a string of 2000000 bytes is longer than the 4096 bytes matched against a pattern");
  CHECK(errors[1] == "/map: a member name of 2000000 bytes is longer than the 4096 bytes matched against a pattern");
  CHECK(reg.validate("t.pat/1", json{{"schema", "t.pat/1"}, {"id", std::string(4096, 'a')}}).empty());
}

TEST_CASE("validator reports type, required, enum and additionalProperties violations with paths") {
  json schema = json::parse(R"({
    "$id": "t.doc/1", "type": "object", "required": ["schema", "items"],
    "properties": {
      "schema": {"const": "t.doc/1"},
      "items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "minItems": 1}
    },
    "additionalProperties": false,
    "$defs": {"item": {"type": "object", "required": ["unit"],
      "properties": {"value": {"type": ["number", "null"], "minimum": 0}, "unit": {"enum": ["s", "B"]}}}}
  })");
  SchemaRegistry reg = registry_with(schema);
  CHECK(reg.validate("t.doc/1", json::parse(R"({"schema":"t.doc/1","items":[{"value":1,"unit":"s"},{"value":null,"unit":"B"}]})")).empty());
  auto errors = reg.validate("t.doc/1", json::parse(R"({"schema":"t.doc/1","items":[{"value":-1,"unit":"kg"},{"value":"x"}],"extra":1})"));
  std::vector<std::string> expected = {
      "/items/0/value: -1 is below the minimum 0",
      "/items/0/unit: \"kg\" is not one of [\"s\",\"B\"]",
      "/items/1: missing required member 'unit'",
      "/items/1/value: expected number or null, got string",
      "/: unknown member 'extra' (valid: items, schema)",
  };
  for (const std::string &e : expected) {
    INFO(e);
    CHECK(std::find(errors.begin(), errors.end(), e) != errors.end());
  }
  CHECK(errors.size() == expected.size());
}

TEST_CASE("oneOf, anyOf, cross-schema $ref and pattern") {
  SchemaRegistry reg;
  REQUIRE(reg.add(json::parse(R"({"$id":"t.q/1","type":"object","required":["value"],
      "properties":{"value":{"type":["number","null"]},"reason":{"type":"string"}},
      "oneOf":[{"properties":{"value":{"type":"number"}}},{"properties":{"value":{"type":"null"}},"required":["reason"]}]})"), "q").empty());
  REQUIRE(reg.add(json::parse(R"({"$id":"t.w/1","type":"object","properties":{"q":{"$ref":"t.q/1"},
      "id":{"type":"string","pattern":"^[a-z]+$"}}})"), "w").empty());
  CHECK(reg.validate("t.w/1", json::parse(R"({"q":{"value":3},"id":"abc"})")).empty());
  CHECK(reg.validate("t.w/1", json::parse(R"({"q":{"value":null,"reason":"unknown trip count"}})")).empty());
  auto errors = reg.validate("t.w/1", json::parse(R"({"q":{"value":null},"id":"A1"})"));
  // Members are visited in key order: "id" before "q".
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == "/id: \"A1\" does not match pattern \"^[a-z]+$\"");
  CHECK(errors[1] == "/q: matches none of the alternatives (first: /q/value: expected number, got null)");
}

TEST_CASE("a schema using an unsupported keyword is refused, not silently ignored") {
  SchemaRegistry reg;
  auto problems = reg.add(json::parse(R"({"$id":"t.x/1","type":"object","dependentRequired":{"a":["b"]}})"), "x.json");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "x.json: /: unsupported keyword 'dependentRequired'");
}

TEST_CASE("an id without a published schema is reported") {
  SchemaRegistry reg;
  auto errors = reg.validate("nobody.nothing/1", json::object());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "no published JSON Schema for 'nobody.nothing/1'");
}

TEST_CASE("forms the subset does not resolve are refused at load, naming the schema file and the keyword") {
  auto refused = [](const char *text) {
    SchemaRegistry reg;
    return reg.add(json::parse(text), "x.schema.json");
  };
  auto one = [&](const char *text) {
    auto problems = refused(text);
    REQUIRE(problems.size() == 1);
    return problems[0];
  };
  CHECK(one(R"({"$id":"t.x/1","properties":{"a":{"$ref":"http://example.com/a.json"}}})")
            .rfind("x.schema.json: /properties/a/$ref: unsupported $ref \"http://example.com/a.json\"", 0) == 0);
  CHECK(one(R"({"$id":"t.x/1","$ref":"#foo"})").find("/$ref: unsupported $ref \"#foo\"") != std::string::npos);
  CHECK(one(R"({"$id":"t.x/1","$ref":"#/$defs/a%25b","$defs":{"a%b":true}})").find("unsupported $ref") != std::string::npos);
  CHECK(one(R"({"$id":"t.x/1","$ref":"#/$defs/missing"})") ==
        "x.schema.json: /$ref: $ref \"#/$defs/missing\" points at nothing in this schema");
  CHECK(one(R"({"$id":"t.x/1","properties":{"a":{"$id":"t.y/1"}}})")
            .rfind("x.schema.json: /properties/a/$id: '$id' is supported only at the root", 0) == 0);
  CHECK(one(R"({"$id":"t.x/1","$schema":"http://json-schema.org/draft-07/schema#"})")
            .rfind("x.schema.json: /$schema: only the 2020-12 dialect", 0) == 0);
  CHECK(one(R"({"$id":"t.x/1","items":[{"type":"integer"}]})")
            .rfind("x.schema.json: /items: must be one schema; the array form of 'items'", 0) == 0);
  CHECK(one(R"({"$id":"t.x/1","minLength":-1})") == "x.schema.json: /minLength: must be a non-negative integer, not -1");
  CHECK(one(R"({"$id":"t.x/1","maxItems":"3"})") == "x.schema.json: /maxItems: must be a non-negative integer, not \"3\"");
  CHECK(one(R"({"$id":"t.x/1","required":"a"})") == "x.schema.json: /required: must be an array of strings");
  CHECK(one(R"({"$id":"t.x/1","enum":3})") == "x.schema.json: /enum: must be an array");
  CHECK(one(R"({"$id":"t.x/1","minimum":true})").rfind("x.schema.json: /minimum: must be a number", 0) == 0);
  CHECK(one(R"({"$id":"t.x/1","anyOf":[]})") == "x.schema.json: /anyOf: must be a non-empty array of schemas");
  // The supported forms still load.
  CHECK(refused(R"({"$id":"t.x/1","$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#",
                  "properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"t.y/1#/$defs/c"}},"minLength":2.0})")
            .empty());
}

TEST_CASE("a refused keyword in a schema file names the file") {
  pbtest::TempDir dir;
  const auto file = dir / "t.x.v1.schema.json";
  std::ofstream(file) << R"({"$id": "t.x/1", "type": "object", "maxProperties": 3})";
  SchemaRegistry reg;
  auto problems = reg.load_dir(dir.path());
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == file.string() + ": /: unsupported keyword 'maxProperties'");
  CHECK_FALSE(reg.has("t.x/1"));
}

TEST_CASE("string lengths count code points, integers are numbers without a fraction") {
  SchemaRegistry reg = registry_with(json::parse(R"({"$id":"t.s/1","type":"object","properties":{
      "s":{"type":"string","minLength":2,"maxLength":2},"i":{"type":"integer"}}})"));
  CHECK(reg.validate("t.s/1", json::parse(R"({"s":"\u00e9\u00e9"})")).empty());             // 4 bytes, 2 code points
  CHECK(reg.validate("t.s/1", json::parse(R"({"s":"\ud83d\udca9\ud83d\udca9"})")).empty());  // 8 bytes, 2 code points
  CHECK(reg.validate("t.s/1", json::parse(R"({"s":"\ud83d\udca9"})")).size() == 1);
  CHECK(reg.validate("t.s/1", json::parse(R"({"i":1.0})")).empty());
  CHECK(reg.validate("t.s/1", json::parse(R"({"i":1e300})")).empty());
  CHECK(reg.validate("t.s/1", json::parse(R"({"i":1.5})")).size() == 1);
}
