//===- toml_reader.cpp - typed TOML access with file:line:col errors ------===//
#include "toml_reader.hpp"

#include <perfbound/sdk/input_file.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace perfbound::validate {

toml::table parse_toml_file(const std::string &file) {
  std::string error;
  auto text = pb::sdk::read_text_input_file(file, pb::sdk::kMaxConfigFileBytes, error);
  if (!text) throw pb::sdk::InputError(error);
  try {
    return toml::parse(*text, file);
  } catch (const toml::parse_error &err) {
    throw pb::sdk::InputError(file + ":" + std::to_string(err.source().begin.line) + ":" +
                              std::to_string(err.source().begin.column) + ": TOML syntax error: " + std::string(err.description()));
  }
}

std::string TomlReader::where(const toml::node &node) const {
  const toml::source_region &src = node.source();
  return file_ + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
}

void TomlReader::fail(const toml::node &node, const std::string &message) const {
  throw pb::sdk::InputError(where(node) + ": " + message);
}

void TomlReader::check_keys(const toml::table &table, const std::vector<std::string> &allowed, const std::string &where) const {
  for (auto &&[key, value] : table) {
    std::string k(key.str());
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    std::string valid;
    for (const std::string &a : allowed) valid += (valid.empty() ? "" : ", ") + a;
    fail(value, where + ": unknown key '" + k + "'; valid keys: " + valid);
  }
}

const toml::node &TomlReader::require(const toml::table &table, const std::string &key, const std::string &where) const {
  const toml::node *node = table.get(key);
  if (node == nullptr) fail(table, where + ": missing key '" + key + "'");
  return *node;
}

std::string TomlReader::string(const toml::table &table, const std::string &key, const std::string &where) const {
  const toml::node &node = require(table, key, where);
  if (!node.is_string() || node.as_string()->get().empty()) fail(node, where + ": '" + key + "' must be a non-empty string");
  return node.as_string()->get();
}

std::optional<std::string> TomlReader::optional_string(const toml::table &table, const std::string &key,
                                                       const std::string &where) const {
  if (table.get(key) == nullptr) return std::nullopt;
  return string(table, key, where);
}

int64_t TomlReader::integer(const toml::table &table, const std::string &key, int64_t fallback, const std::string &where) const {
  const toml::node *node = table.get(key);
  if (node == nullptr) return fallback;
  if (!node->is_integer() || node->as_integer()->get() < 0) fail(*node, where + ": '" + key + "' must be a whole number >= 0");
  return node->as_integer()->get();
}

double TomlReader::number(const toml::table &table, const std::string &key, double fallback, const std::string &where,
                          double lo, double hi) const {
  const toml::node *node = table.get(key);
  if (node == nullptr) return fallback;
  if (!node->is_number()) fail(*node, where + ": '" + key + "' must be a number");
  // An integer beyond 2^53 has no exact double (toml++'s value<double>() is empty for it):
  // the nearest double, which the range check below refuses when it matters.
  const double v = node->is_integer() ? static_cast<double>(node->as_integer()->get()) : node->as_floating_point()->get();
  std::ostringstream range;
  range << lo << " to " << hi;
  if (!std::isfinite(v) || v < lo || v > hi) {
    std::ostringstream got;
    got << v;
    fail(*node, where + ": '" + key + "' must be a finite number from " + range.str() + ", got " + got.str());
  }
  return v;
}

double TomlReader::timeout(const toml::table &table, const std::string &key, double fallback, const std::string &where) const {
  const toml::node *node = table.get(key);
  if (node == nullptr) return fallback;
  const double v = number(table, key, fallback, where, 0, kMaxTimeoutS);
  if (v <= 0) fail(*node, where + ": '" + key + "' must be a positive number of seconds");
  return v;
}

const toml::table &TomlReader::table(const toml::table &parent, const std::string &key, const std::string &where) const {
  const toml::node &node = require(parent, key, where);
  if (!node.is_table()) fail(node, where + ": '" + key + "' must be a table");
  return *node.as_table();
}

std::vector<std::string> TomlReader::strings(const toml::table &table, const std::string &key, const std::string &where) const {
  std::vector<std::string> out;
  const toml::node *node = table.get(key);
  if (node == nullptr) return out;
  const toml::array *array = node->as_array();
  if (array == nullptr) fail(*node, where + ": '" + key + "' must be an array of strings");
  for (const toml::node &item : *array) {
    if (!item.is_string() || item.as_string()->get().empty()) fail(item, where + ": '" + key + "' must hold non-empty strings");
    out.push_back(item.as_string()->get());
  }
  return out;
}

pb::sdk::json toml_to_json(const toml::node &node) {
  using pb::sdk::json;
  if (const toml::table *t = node.as_table()) {
    json out = json::object();
    for (auto &&[key, value] : *t) out[std::string(key.str())] = toml_to_json(value);
    return out;
  }
  if (const toml::array *a = node.as_array()) {
    json out = json::array();
    for (const toml::node &item : *a) out.push_back(toml_to_json(item));
    return out;
  }
  if (node.is_string()) return node.as_string()->get();
  if (node.is_integer()) return node.as_integer()->get();
  if (node.is_floating_point()) return node.as_floating_point()->get();
  if (node.is_boolean()) return node.as_boolean()->get();
  std::ostringstream text;
  node.visit([&](auto &&v) { text << v; });
  return text.str();
}

}  // namespace perfbound::validate
