//===- json_schema_test_suite.cpp - the official suite against our validator --===//
//
// perfbound_json_schema_test_suite DIR
//
// Runs every test file directly in DIR (the JSON-Schema-Test-Suite's draft
// folder, Debian package json-schema-test-suite) through the host's subset
// validator (host/src/json_schema.cpp). For each test group, this program
// decides on its own whether the group's schema uses only what the validator
// claims to support (the keyword list of json_schema.hpp, in the forms
// 2020-12 gives them):
//   - if so, the schema must load and every test's valid/invalid result must
//     be the suite's;
//   - if not, loading must be refused with a message naming the group and the
//     unsupported keyword: a keyword the validator does not implement is never
//     ignored.
// At the end every validation keyword the validator claims must have been
// exercised by at least one loaded group that the draft's files hold.
//
// Debian 12 packages the suite up to draft 7; the validator implements the
// 2020-12 meaning of its keywords. For every keyword it supports, the two
// drafts agree, except for forms that are refused here (and by the
// validator): the array form of "items", "definitions", URI "$id"s and the
// $refs that need them. The optional/ folder (format assertions, bignums,
// ECMAScript regex corner cases) is not part of the required suite and is not
// run.
//
// Exit: 0 all agree, 1 a disagreement (each printed), 77 the suite is not
// installed (ctest SKIP_RETURN_CODE).
//
//===----------------------------------------------------------------------===//
#include "json_schema.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using perfbound::json;

namespace {

// What json_schema.hpp claims, copied here on purpose: this list is the
// test's statement of the claim, not the validator's.
const std::set<std::string> kValidationKeywords = {
    "type",      "properties", "required",  "additionalProperties", "patternProperties", "items",
    "prefixItems", "enum",     "const",     "minimum",              "maximum",           "exclusiveMinimum",
    "exclusiveMaximum", "minItems", "maxItems", "minLength",        "maxLength",         "minProperties",
    "pattern",   "oneOf",      "anyOf",     "allOf",                "not",               "$ref",
    "$defs"};
const std::set<std::string> kAnnotations = {"$schema", "$id",    "$comment", "title", "description",
                                            "default", "examples", "format", "x-perfbound-encoding"};
// Claimed keywords that draft 7's files cannot exercise (2019-09/2020-12
// names); tests/host/test_schema.cpp covers them.
const std::set<std::string> kNotInDraft7 = {"prefixItems", "$defs"};

bool is_claimed(const std::string &key) { return kValidationKeywords.count(key) || kAnnotations.count(key); }

/// The first keyword of `schema` (a draft-7 test schema) outside the claimed
/// subset, or used in a form the subset does not give it; nullopt when the
/// validator must load it. Collects the claimed keywords used in `used`.
std::optional<std::string> unsupported(const json &schema, std::set<std::string> &used) {
  if (schema.is_boolean()) return std::nullopt;
  if (!schema.is_object()) return "(not a schema)";
  for (const auto &[key, value] : schema.items()) {
    if (!is_claimed(key)) return key;
    // Draft 7's ids are URIs that change the base of $ref resolution.
    if (key == "$id") return key;
    if (key == "$ref") {
      const std::string ref = value.is_string() ? value.get<std::string>() : "";
      // Only JSON pointers into the same schema ("#", "#/..."), unencoded.
      if (ref.empty() || ref[0] != '#' || (ref.size() > 1 && ref[1] != '/') || ref.find('%') != std::string::npos)
        return key;
    }
    if (key == "items" && value.is_array()) return key;  // draft 7's tuple form
    used.insert(key);
    std::optional<std::string> inner;
    if (key == "properties" || key == "patternProperties" || key == "$defs") {
      for (const auto &[name, sub] : value.items())
        if (!inner) inner = unsupported(sub, used);
    } else if (key == "items" || key == "additionalProperties" || key == "not") {
      inner = unsupported(value, used);
    } else if (key == "allOf" || key == "anyOf" || key == "oneOf" || key == "prefixItems") {
      for (const json &sub : value)
        if (!inner) inner = unsupported(sub, used);
    }
    if (inner) return inner;
  }
  return std::nullopt;
}

std::string dump(const json &v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 200 ? s.substr(0, 197) + "..." : s;
}

}  // namespace

int main(int argc, char **argv) {
  const fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::path("/usr/share/json-schema-test-suite/tests/draft7");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::cout << "SKIP: the JSON-Schema-Test-Suite is not installed (" << dir.string()
              << " is missing); apt-get install json-schema-test-suite (scripts/debian-packages.txt)\n";
    return 77;
  }
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::cout << "FAIL: " << dir.string() << " holds no test files\n";
    return 1;
  }

  int failures = 0, loaded = 0, refused = 0, passed = 0;
  std::map<std::string, int> tests_per_keyword;
  std::map<std::string, int> refused_per_keyword;
  int case_number = 0;
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    json groups = json::parse(text.str(), nullptr, false);
    if (groups.is_discarded() || !groups.is_array()) {
      std::cout << "FAIL: " << file.string() << ": not a JSON array of test groups\n";
      ++failures;
      continue;
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      const json &group = groups[g];
      const std::string origin = file.filename().string() + "#" + std::to_string(g) + " (" +
                                 group.value("description", std::string("?")) + ")";
      const json &schema = group.at("schema");
      std::set<std::string> used;
      std::optional<std::string> bad = unsupported(schema, used);
      // The registry needs an object with a schema id at the root.
      const std::string id = "jsts.case_" + std::to_string(++case_number) + "/1";
      json loadable;
      if (schema.is_boolean()) {
        loadable = {{"$id", id}, {"allOf", json::array({schema})}};
      } else {
        loadable = schema;
        if (!loadable.contains("$id")) loadable["$id"] = id;
      }
      perfbound::SchemaRegistry registry;
      std::vector<std::string> problems = registry.add(loadable, origin);
      if (bad) {
        // Must be refused, naming the group and the keyword.
        const std::string needle = "'" + *bad + "'";
        const std::string needle_path = "/" + *bad + ":";
        const bool named = std::any_of(problems.begin(), problems.end(), [&](const std::string &p) {
          return p.rfind(origin + ": ", 0) == 0 && (p.find(needle) != std::string::npos ||
                                                    p.find(needle_path) != std::string::npos ||
                                                    p.find("\"" + *bad + "\"") != std::string::npos);
        });
        if (!named) {
          std::cout << "FAIL: " << origin << ": uses " << *bad << ", which the validator does not support, but "
                    << (problems.empty() ? "it was loaded (silently ignored)"
                                         : "the refusal does not name it: " + problems.front())
                    << "\n";
          ++failures;
        } else {
          ++refused;
          ++refused_per_keyword[*bad];
        }
        continue;
      }
      if (!problems.empty()) {
        std::cout << "FAIL: " << origin << ": uses supported keywords only, but was refused: " << problems.front()
                  << "\n";
        ++failures;
        continue;
      }
      ++loaded;
      for (const json &test : group.at("tests")) {
        const bool expected = test.at("valid").get<bool>();
        std::vector<std::string> errors = registry.validate(id, test.at("data"));
        if (errors.empty() != expected) {
          std::cout << "FAIL: " << origin << " / " << test.value("description", std::string("?")) << ": data "
                    << dump(test.at("data")) << " should be " << (expected ? "valid" : "invalid") << ", validator says "
                    << (errors.empty() ? "valid" : "invalid (" + errors.front() + ")") << "\n";
          ++failures;
        } else {
          ++passed;
          for (const std::string &k : used) ++tests_per_keyword[k];
        }
      }
    }
  }

  for (const std::string &k : kValidationKeywords) {
    if (kNotInDraft7.count(k) || tests_per_keyword.count(k)) continue;
    std::cout << "FAIL: no test of " << dir.string() << " exercised the claimed keyword '" << k << "'\n";
    ++failures;
  }
  std::cout << dir.string() << ": " << files.size() << " files; " << loaded << " groups loaded, " << passed
            << " tests agree; " << refused << " groups refused for an unsupported keyword or form:";
  for (const auto &[k, n] : refused_per_keyword) std::cout << " " << k << " " << n;
  std::cout << "\ntests per claimed keyword:";
  for (const auto &[k, n] : tests_per_keyword) std::cout << " " << k << " " << n;
  std::cout << "\nnot in this draft (covered by tests/host/test_schema.cpp):";
  for (const std::string &k : kNotInDraft7) std::cout << " " << k;
  std::cout << "\n" << (failures == 0 ? "OK" : "FAILED: " + std::to_string(failures) + " disagreement(s)") << "\n";
  return failures == 0 ? 0 : 1;
}
