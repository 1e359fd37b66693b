//===- toml_reader.hpp - typed TOML access with file:line:col errors ------===//
//
// The plugin's TOML files (calibration spec, corpus manifest, counterfactual
// and remote-host configs) are written by people; every mistake in them is an
// InputError "file:line:col: where: what is wrong", and unknown keys are
// refused with the list of valid ones.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_TOML_READER_HPP
#define PERFBOUND_VALIDATE_TOML_READER_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include <perfbound/sdk/json.hpp>

namespace perfbound::validate {

/// Parses a TOML file; a syntax error is an InputError "file:line:col: ...".
toml::table parse_toml_file(const std::string &file);

class TomlReader {
 public:
  explicit TomlReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node &node, const std::string &message) const;
  void check_keys(const toml::table &table, const std::vector<std::string> &allowed, const std::string &where) const;
  const toml::node &require(const toml::table &table, const std::string &key, const std::string &where) const;
  /// A non-empty string.
  std::string string(const toml::table &table, const std::string &key, const std::string &where) const;
  std::optional<std::string> optional_string(const toml::table &table, const std::string &key, const std::string &where) const;
  /// A whole number >= 0, or `fallback` when absent.
  int64_t integer(const toml::table &table, const std::string &key, int64_t fallback, const std::string &where) const;
  /// A finite number (integer or float) from `lo` to `hi`, or `fallback` when absent.
  double number(const toml::table &table, const std::string &key, double fallback, const std::string &where, double lo,
                double hi) const;
  /// Seconds a step may take: a number above 0 and at most kMaxTimeoutS, or `fallback` when absent.
  double timeout(const toml::table &table, const std::string &key, double fallback, const std::string &where) const;
  static constexpr double kMaxTimeoutS = 7 * 24 * 3600;  // a week
  const toml::table &table(const toml::table &parent, const std::string &key, const std::string &where) const;
  /// An array of non-empty strings (absent: empty).
  std::vector<std::string> strings(const toml::table &table, const std::string &key, const std::string &where) const;
  /// "file:line:col" of a node.
  [[nodiscard]] std::string where(const toml::node &node) const;

  [[nodiscard]] const std::string &file() const { return file_; }

 private:
  std::string file_;
};

/// A TOML value as JSON (tables -> objects, arrays -> arrays; dates as text).
pb::sdk::json toml_to_json(const toml::node &node);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_TOML_READER_HPP
