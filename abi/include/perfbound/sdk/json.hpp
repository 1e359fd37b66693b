//===- perfbound/sdk/json.hpp - JSON document helpers for plugin authors --===//
//
// Small helpers over nlohmann::json that every plugin needs: typed member
// access that fails with a message naming the document and the JSON path,
// and the "unknown means null plus a reason" convention.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_JSON_HPP
#define PERFBOUND_SDK_JSON_HPP

#include "perfbound/sdk/json_assert.hpp"  // before nlohmann: its checks throw

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "perfbound/pb_status.h"

namespace pb::sdk {

using json = nlohmann::json;

/// An error that crosses the SDK's exception barrier as a status code plus
/// message. Throw it (or a subclass) from Node::run(); never let anything
/// escape into C.
class Error : public std::runtime_error {
 public:
  Error(pb_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  [[nodiscard]] pb_status status() const noexcept { return status_; }

 private:
  pb_status status_;
};

/// Bad input document (parse error, missing member, out-of-range value).
/// The message should start with "<origin>:<line>:" or name the JSON path.
class InputError : public Error {
 public:
  explicit InputError(const std::string &message) : Error(PB_ERR_INVALID_INPUT, message) {}
};

/// Something outside the plugin is missing or broken (a device, a tool).
class InfraError : public Error {
 public:
  explicit InfraError(const std::string &message) : Error(PB_ERR_INFRA, message) {}
};

namespace detail {
// Accepts every SAX event and keeps the first parse error (json_syntax_error).
struct SyntaxErrorSax {
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const std::string &) { return true; }
  bool string(std::string &) { return true; }
  bool binary(json::binary_t &) { return true; }
  bool start_object(std::size_t) { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_object() { return true; }
  bool end_array() { return true; }
  bool key(std::string &) { return true; }
  bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &e) {
    failed = true;
    at = position;
    what = e.what();
    return false;
  }
  bool failed = false;
  std::size_t at = 0;  // characters read, the offending one included
  std::string what;
};
}  // namespace detail

/// Where and why `text` is not valid JSON: "line L, column C: reason", the
/// first error json::parse would report (a number it cannot hold included),
/// found without building anything; "" when the text is valid JSON.
inline std::string json_syntax_error(std::string_view text) {
  detail::SyntaxErrorSax sax;
  json::sax_parse(text.begin(), text.end(), &sax);
  if (!sax.failed) return {};
  // nlohmann's words without its prefixes ("[json.exception.parse_error.101]
  // parse error at line 1, column 5: "); line and column are counted here for
  // every kind of error alike.
  std::string why = sax.what;
  if (size_t close = why.find("] "); why.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    why.erase(0, close + 2);
  if (why.rfind("parse error at line ", 0) == 0)
    if (size_t colon = why.find(": "); colon != std::string::npos) why.erase(0, colon + 2);
  const size_t offending = std::min(sax.at > 0 ? sax.at - 1 : 0, text.size());
  size_t line = 1, line_start = 0;
  for (size_t idx = 0; idx < offending; ++idx)
    if (text[idx] == '\n') {
      ++line;
      line_start = idx + 1;
    }
  return "line " + std::to_string(line) + ", column " + std::to_string(offending - line_start + 1) + ": " + why;
}

/// "<origin>:<line>:<column>: not valid JSON: <reason>", or "" when `text` is
/// valid JSON: the message for a reader that parsed with exceptions off.
inline std::string json_syntax_error_message(std::string_view text, const std::string &origin) {
  std::string where = json_syntax_error(text);
  if (where.empty()) return {};
  // "line L, column C: why" -> "origin:L:C: not valid JSON: why"
  const size_t comma = where.find(", column "), colon = where.find(": ");
  return origin + ":" + where.substr(5, comma - 5) + ":" + where.substr(comma + 9, colon - comma - 9) +
         ": not valid JSON: " + where.substr(colon + 2);
}

/// Creates a document skeleton: an object whose "schema" member is `schema`.
inline json make_document(std::string_view schema) {
  json doc = json::object();
  doc["schema"] = std::string(schema);
  return doc;
}

/// A quantity whose value is known: {"value": v, "unit": u}.
inline json quantity(double value, std::string_view unit) {
  return json{{"value", value}, {"unit", std::string(unit)}};
}

/// A quantity that could not be determined: {"value": null, "unit": u,
/// "reason": r}. Never substitute 0 for an unknown.
inline json unknown_quantity(std::string_view unit, std::string_view reason) {
  return json{{"value", nullptr}, {"unit", std::string(unit)}, {"reason", std::string(reason)}};
}

namespace detail {
inline std::string join_path(std::string_view where, std::string_view key) {
  std::string path(where);
  path += '.';
  path += key;
  return path;
}
}  // namespace detail

/// Returns obj[key], throwing InputError("<where>.<key>: missing") when the
/// member is absent or `obj` is not an object.
inline const json &require(const json &obj, std::string_view key, std::string_view where) {
  if (!obj.is_object())
    throw InputError(std::string(where) + ": expected a JSON object");
  auto it = obj.find(key);
  if (it == obj.end())
    throw InputError(detail::join_path(where, key) + ": missing required member");
  return *it;
}

/// Required number member (integer or float).
inline double require_number(const json &obj, std::string_view key, std::string_view where) {
  const json &v = require(obj, key, where);
  if (!v.is_number())
    throw InputError(detail::join_path(where, key) + ": expected a number, got " +
                     std::string(v.type_name()));
  return v.get<double>();
}

/// Required integer member.
inline std::int64_t require_int(const json &obj, std::string_view key, std::string_view where) {
  const json &v = require(obj, key, where);
  if (!v.is_number_integer())
    throw InputError(detail::join_path(where, key) + ": expected an integer, got " +
                     std::string(v.type_name()));
  return v.get<std::int64_t>();
}

/// Required string member.
inline std::string require_string(const json &obj, std::string_view key, std::string_view where) {
  const json &v = require(obj, key, where);
  if (!v.is_string())
    throw InputError(detail::join_path(where, key) + ": expected a string, got " +
                     std::string(v.type_name()));
  return v.get<std::string>();
}

/// Optional number member: std::nullopt when absent or JSON null; throws when
/// present with another type.
inline std::optional<double> optional_number(const json &obj, std::string_view key,
                                             std::string_view where) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number())
    throw InputError(detail::join_path(where, key) + ": expected a number or null, got " +
                     std::string(it->type_name()));
  return it->get<double>();
}

/// Reads the numeric value of a quantity object ({"value": v|null, ...}).
/// std::nullopt for an unknown quantity.
inline std::optional<double> quantity_value(const json &q, std::string_view where) {
  if (q.is_number()) return q.get<double>();
  return optional_number(q, "value", where);
}

}  // namespace pb::sdk

#endif  // PERFBOUND_SDK_JSON_HPP
