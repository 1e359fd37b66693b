//===- diagnostics.cpp - located diagnostics ------------------------------===//
#include "diagnostics.hpp"

#include <algorithm>
#include <tuple>

namespace perfbound {

const char *severity_name(DiagSeverity s) {
  switch (s) {
    case DiagSeverity::Note: return "note";
    case DiagSeverity::Warning: return "warning";
    case DiagSeverity::Error: return "error";
  }
  return "error";
}

std::string Diagnostic::format() const {
  std::string out;
  if (!loc.file.empty()) {
    out += loc.file;
    if (loc.line > 0) {
      out += ':' + std::to_string(loc.line);
      if (loc.column > 0) out += ':' + std::to_string(loc.column);
    }
    out += ": ";
  }
  out += severity_name(severity);
  out += ": ";
  if (!node.empty()) out += "node '" + node + "': ";
  out += message;
  return out;
}

nlohmann::json Diagnostic::to_json() const {
  nlohmann::json j;
  j["severity"] = severity_name(severity);
  j["file"] = loc.file;
  j["line"] = loc.line;
  j["column"] = loc.column;
  j["node"] = node.empty() ? nlohmann::json(nullptr) : nlohmann::json(node);
  j["message"] = message;
  return j;
}

void Diagnostics::error(SourceLoc loc, std::string node, std::string message) {
  items_.push_back({DiagSeverity::Error, std::move(loc), std::move(node), std::move(message)});
}
void Diagnostics::warning(SourceLoc loc, std::string node, std::string message) {
  items_.push_back({DiagSeverity::Warning, std::move(loc), std::move(node), std::move(message)});
}
void Diagnostics::note(SourceLoc loc, std::string node, std::string message) {
  items_.push_back({DiagSeverity::Note, std::move(loc), std::move(node), std::move(message)});
}
void Diagnostics::append(const Diagnostics &other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

size_t Diagnostics::error_count() const {
  return static_cast<size_t>(std::count_if(items_.begin(), items_.end(), [](const Diagnostic &d) {
    return d.severity == DiagSeverity::Error;
  }));
}

void Diagnostics::sort_and_unique() {
  auto key = [](const Diagnostic &d) {
    return std::tie(d.loc.file, d.loc.line, d.loc.column, d.node, d.message);
  };
  std::stable_sort(items_.begin(), items_.end(),
                   [&](const Diagnostic &a, const Diagnostic &b) { return key(a) < key(b); });
  items_.erase(std::unique(items_.begin(), items_.end(),
                           [&](const Diagnostic &a, const Diagnostic &b) {
                             return key(a) == key(b) && a.severity == b.severity;
                           }),
               items_.end());
}

std::string Diagnostics::format() const {
  std::string out;
  for (const Diagnostic &d : items_) {
    out += d.format();
    out += '\n';
  }
  return out;
}

nlohmann::json Diagnostics::to_json() const {
  nlohmann::json arr = nlohmann::json::array();
  for (const Diagnostic &d : items_) arr.push_back(d.to_json());
  return arr;
}

}  // namespace perfbound
