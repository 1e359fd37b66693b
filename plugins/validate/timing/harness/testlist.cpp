//===- testlist.cpp - OperatorX testlist parsing ---------------------------===//
#include "testlist.hpp"

#include <set>

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/json.hpp>

#include <perfbound/sdk/sha256.hpp>

namespace pb::bench {

namespace fs = std::filesystem;

std::vector<int> array_element_lines(const std::string &text) {
  std::vector<int> lines;
  int line = 1;
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  bool expecting_element = false;
  bool saw_root = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      if (c == '\n') ++line;
      continue;
    }
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (!saw_root) {
      if (c != '[') return {};
      saw_root = true;
      depth = 1;
      expecting_element = true;
      continue;
    }
    if (depth == 1 && expecting_element && c != ']') {
      lines.push_back(line);
      expecting_element = false;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
      if (depth == 0) break;
    } else if (c == ',' && depth == 1) {
      expecting_element = true;
    }
  }
  return lines;
}

namespace {

int line_of_offset(const std::string &text, size_t offset) {
  int line = 1;
  for (size_t idx = 0; idx < offset && idx < text.size(); ++idx) line += text[idx] == '\n' ? 1 : 0;
  return line;
}

/// Collects the first problem of an entry; later checks are skipped once one
/// is found, so the message names the first thing to fix.
class EntryChecker {
 public:
  explicit EntryChecker(std::string where) : where_(std::move(where)) {}
  bool ok() const { return problem_.empty(); }
  void fail(const std::string &problem) {
    if (problem_.empty()) problem_ = problem;
  }
  std::string message() const { return where_ + ": " + problem_; }

  std::optional<uint64_t> positive_integer(const json &obj, const char *key, const std::string &path) {
    if (!ok()) return std::nullopt;
    if (!obj.contains(key)) {
      fail(path + "." + key + " is missing");
      return std::nullopt;
    }
    const json &value = obj.at(key);
    bool positive = value.is_number_unsigned() ? value.get<uint64_t>() > 0
                                               : value.is_number_integer() && value.get<int64_t>() > 0;
    if (!positive) {
      fail(path + "." + key + " must be a positive integer, got " + value.dump());
      return std::nullopt;
    }
    return value.get<uint64_t>();
  }

  std::optional<Dtype> dtype(const json &value, const std::string &path) {
    if (!ok()) return std::nullopt;
    if (!value.is_string()) {
      fail(path + " must be a dtype string, got " + value.dump());
      return std::nullopt;
    }
    auto name = value.get<std::string>();
    auto parsed = parse_dtype(name);
    if (!parsed) fail(path + ": " + dtype_refusal(name));
    return parsed;
  }

  void known_keys(const json &obj, const std::set<std::string> &known, const std::string &path) {
    if (!ok()) return;
    for (const auto &[key, value] : obj.items()) {
      (void)value;
      if (known.count(key) != 0) continue;
      std::string list;
      for (const std::string &name : known) list += (list.empty() ? "" : ", ") + name;
      fail("unknown member '" + key + "' in " + path + " (known: " + list + ")");
      return;
    }
  }

  std::vector<std::string> string_list(const json &entry, const char *key) {
    std::vector<std::string> out;
    if (!ok()) return out;
    if (!entry.contains(key)) {
      fail(std::string("'") + key + "' is missing (a list of strings, possibly empty)");
      return out;
    }
    const json &list = entry.at(key);
    if (!list.is_array()) {
      fail(std::string("'") + key + "' must be a list of strings, got " + list.dump());
      return out;
    }
    for (size_t item_idx = 0; item_idx < list.size(); ++item_idx) {
      const json &item = list[item_idx];
      if (!item.is_string() || item.get<std::string>().empty()) {
        fail(std::string("'") + key + "'[" + std::to_string(item_idx) + "] must be a non-empty string, got " + item.dump());
        return {};
      }
      out.push_back(item.get<std::string>());
    }
    return out;
  }

 private:
  std::string where_;
  std::string problem_;
};

std::optional<Dtype> check_operand(EntryChecker &checker, const json &args, const char *key) {
  std::string path = std::string("args.") + key;
  if (!checker.ok()) return std::nullopt;
  if (!args.contains(key)) {
    checker.fail(path + " is missing");
    return std::nullopt;
  }
  const json &operand = args.at(key);
  if (!operand.is_object()) {
    checker.fail(path + " must be an object {dtype, ...}, got " + operand.dump());
    return std::nullopt;
  }
  checker.known_keys(operand, {"dtype", "input", "scale", "scale2", "symmetric"}, path);
  if (!checker.ok()) return std::nullopt;
  if (!operand.contains("dtype")) {
    checker.fail(path + ".dtype is missing");
    return std::nullopt;
  }
  auto dtype = checker.dtype(operand.at("dtype"), path + ".dtype");
  if (!checker.ok()) return std::nullopt;
  if (operand.contains("scale") || operand.contains("scale2")) {
    checker.fail(path + " is a scaled (quantized) operand; perfbound bench times unquantized GEMMs only");
    return std::nullopt;
  }
  if (operand.contains("input") && operand.at("input") != operand.at("dtype")) {
    checker.fail(path + ".input " + operand.at("input").dump() + " differs from dtype " + operand.at("dtype").dump() +
                 ": quantization inside the timed op is not supported");
    return std::nullopt;
  }
  return dtype;
}

TestlistEntry check_entry(const json &entry, size_t index, int line, const fs::path &origin) {
  TestlistEntry out;
  out.index = index;
  out.line = line;
  out.raw = entry;
  EntryChecker checker(origin.string() + ":" + std::to_string(line) + ": entry " + std::to_string(index));
  if (!entry.is_object()) {
    checker.fail("must be an object {type, args, sources, name}, got " + entry.dump());
    out.error = checker.message();
    return out;
  }
  checker.known_keys(entry, {"type", "args", "sources", "name"}, "the entry");
  if (checker.ok() && (!entry.contains("type") || !entry.at("type").is_string())) checker.fail("'type' must be a string");
  if (checker.ok()) out.type = entry.at("type").get<std::string>();
  out.sources = checker.string_list(entry, "sources");
  out.roles = checker.string_list(entry, "name");
  if (checker.ok() && out.type != "gemm")
    checker.fail("op type '" + out.type + "' is not timed by perfbound bench (it times 'gemm')");
  if (checker.ok() && (!entry.contains("args") || !entry.at("args").is_object())) checker.fail("'args' must be an object");
  if (!checker.ok()) {
    out.error = checker.message();
    return out;
  }
  const json &args = entry.at("args");
  checker.known_keys(args, {"m", "n", "k", "a", "b", "out", "tiling"}, "args");
  GemmShape shape;
  if (auto m = checker.positive_integer(args, "m", "args")) shape.m = *m;
  if (auto n = checker.positive_integer(args, "n", "args")) shape.n = *n;
  if (auto k = checker.positive_integer(args, "k", "args")) shape.k = *k;
  if (auto a = check_operand(checker, args, "a")) shape.a = *a;
  if (auto b = check_operand(checker, args, "b")) shape.b = *b;
  if (checker.ok() && !args.contains("out")) checker.fail("args.out is missing");
  if (checker.ok()) {
    if (auto dtype = checker.dtype(args.at("out"), "args.out")) shape.out = *dtype;
  }
  if (!checker.ok()) {
    out.error = checker.message();
    return out;
  }
  out.gemm = shape;
  out.tiling = args.contains("tiling") ? args.at("tiling") : json(nullptr);
  return out;
}

}  // namespace

Testlist parse_testlist(const std::string &text, const fs::path &origin) {
  // Deeper than the other readers allow: refused before parsing (walking or
  // serialising such a document recurses once per level).
  if (std::string deep = pb::sdk::json_depth_error(text, origin.string()); !deep.empty())
    throw pb::sdk::InputError(deep);
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::parse_error &e) {
    int line = line_of_offset(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    size_t cut = what.find("parse error");
    throw pb::sdk::InputError(origin.string() + ":" + std::to_string(line) + ": not valid JSON (" +
                              (cut == std::string::npos ? what : what.substr(cut)) + ")");
  } catch (const json::out_of_range &e) {
    // A number the parser cannot hold (e.g. 10241e308): not a testlist.
    throw pb::sdk::InputError(origin.string() + ": not a usable JSON document (" + std::string(e.what()) + ")");
  }
  if (!parsed.is_array())
    throw pb::sdk::InputError(origin.string() + ":1: a testlist must be a JSON array of {type, args, sources, name}");
  Testlist list;
  list.path = origin;
  list.sha256 = pb::sdk::sha256_hex(text);
  std::vector<int> lines = array_element_lines(text);
  for (size_t idx = 0; idx < parsed.size(); ++idx) {
    int line = idx < lines.size() ? lines[idx] : 1;
    list.entries.push_back(check_entry(parsed[idx], idx, line, origin));
  }
  return list;
}

Testlist load_testlist(const fs::path &path) {
  std::string error;
  std::optional<std::string> text = pb::sdk::read_input_file(path, pb::sdk::kMaxConfigFileBytes, error);
  if (!text) throw pb::sdk::InputError(path.string() + ": cannot read the testlist: " + error);
  return parse_testlist(*text, path);
}

}  // namespace pb::bench
