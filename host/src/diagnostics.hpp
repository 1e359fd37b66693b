//===- diagnostics.hpp - located diagnostics collected over a whole check -===//
//
// Every message the host prints about a user's file carries "file:line:col"
// and, where one applies, the node id, so a message alone is enough to find
// the problem. Checks collect all diagnostics before reporting (a pipeline
// with five mistakes gets five lines, not one).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_DIAGNOSTICS_HPP
#define PERFBOUND_HOST_DIAGNOSTICS_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfbound {

struct SourceLoc {
  std::string file;
  uint32_t line = 0;    // 1-based; 0 when unknown
  uint32_t column = 0;  // 1-based; 0 when unknown
};

enum class DiagSeverity { Note, Warning, Error };

struct Diagnostic {
  DiagSeverity severity = DiagSeverity::Error;
  SourceLoc loc;
  std::string node;  // node id, or "" when the message is not about a node
  std::string message;

  /// "file:line:col: error: node 'x': message"
  [[nodiscard]] std::string format() const;
  [[nodiscard]] nlohmann::json to_json() const;
};

class Diagnostics {
 public:
  void error(SourceLoc loc, std::string node, std::string message);
  void warning(SourceLoc loc, std::string node, std::string message);
  void note(SourceLoc loc, std::string node, std::string message);
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void append(const Diagnostics &other);

  [[nodiscard]] bool has_errors() const;
  [[nodiscard]] size_t error_count() const;
  [[nodiscard]] const std::vector<Diagnostic> &items() const { return items_; }
  [[nodiscard]] bool empty() const { return items_.empty(); }

  /// Sorts by file, line, column and removes exact duplicates.
  void sort_and_unique();
  /// One diagnostic per line, sorted.
  [[nodiscard]] std::string format() const;
  [[nodiscard]] nlohmann::json to_json() const;

 private:
  std::vector<Diagnostic> items_;
};

const char *severity_name(DiagSeverity s);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_DIAGNOSTICS_HPP
