//===- ttir_text.cpp - TTIR text before MLIR reads it ---------------------===//
#include "ttir_text.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <llvm/Support/ConvertUTF.h>

#include "ttir_analysis.hpp"

namespace perfbound::ttir {

std::optional<std::string> legacy_marker(std::string_view text) {
  int line = 1;
  size_t line_start = 0;
  for (size_t idx = 0; idx <= text.size(); ++idx) {
    if (idx < text.size() && text[idx] != '\n') continue;
    std::string_view l = text.substr(line_start, idx - line_start);
    size_t first = l.find_first_not_of(" \t");
    bool comment = first != std::string_view::npos && l.substr(first, 2) == "//";
    if (!comment) {
      if (l.find(", 1>") != std::string_view::npos && l.find("!tt.ptr<") != std::string_view::npos)
        return "line " + std::to_string(line) + ": '!tt.ptr<T, 1>' (Triton 3.x elides address space 1)";
      if (l.find("allowTF32") != std::string_view::npos)
        return "line " + std::to_string(line) + ": 'allowTF32' (3.x prints inputPrecision)";
      size_t splat = l.find("tt.splat");
      if (splat != std::string_view::npos && l.find(": (", splat) != std::string_view::npos)
        return "line " + std::to_string(line) + ": 'tt.splat %x : (T) -> ...' (3.x prints ': T -> ...')";
    }
    ++line;
    line_start = idx + 1;
  }
  return std::nullopt;
}

std::optional<std::string> hivm_marker(std::string_view text) {
  if (text.find("tt.func") != std::string_view::npos) return std::nullopt;
  const size_t func = text.find("func.func");
  if (func == std::string_view::npos) return std::nullopt;
  if (text.find("hivm.") == std::string_view::npos && text.find("hacc.") == std::string_view::npos) return std::nullopt;
  return "line " + std::to_string(count_lines_before(text, func)) + ": func.func with hivm/hacc ops and no tt.func";
}

std::string shorten_lines(const std::string &message, size_t width) {
  std::string out;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string_view line(message.data() + start, end - start);
    if (line.size() > width) {
      out.append(line.substr(0, width - 4));
      out += " ...";
    } else {
      out.append(line);
    }
    if (end < message.size()) out.push_back('\n');
    start = end + 1;
  }
  return out;
}

int count_lines_before(std::string_view text, size_t offset) {
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n')) + 1;
}

namespace {

/// Triton >= 3.2 prints `llvm.intr.assume %c : i1` (the custom form of LLVM
/// 20+); MLIR 19's LLVM dialect reads only the generic form, so that one line
/// is rewritten to `"llvm.intr.assume"(%c) : (i1) -> ()`, keeping its
/// indentation and trailing location. Any other spelling is left for MLIR to
/// diagnose.
void append_assume_generic(std::string &out, std::string_view line) {
  size_t op = line.find("llvm.intr.assume");
  size_t pos = op + 16;
  auto skip_space = [&]() {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  };
  skip_space();
  size_t value_start = pos;
  if (pos >= line.size() || line[pos] != '%') {
    out.append(line.data(), line.size());
    return;
  }
  while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t' && line[pos] != ':') ++pos;
  std::string_view value = line.substr(value_start, pos - value_start);
  skip_space();
  if (line.substr(pos, 1) != ":") {
    out.append(line.data(), line.size());
    return;
  }
  ++pos;
  skip_space();
  if (line.substr(pos, 2) != "i1" || (pos + 2 < line.size() && line[pos + 2] != ' ' && line[pos + 2] != '\r')) {
    out.append(line.data(), line.size());
    return;
  }
  pos += 2;
  out.append(line.data(), op);
  out += "\"llvm.intr.assume\"(";
  out.append(value.data(), value.size());
  out += ") : (i1) -> ()";
  out.append(line.data() + pos, line.size() - pos);
}

/// Index of the last `sep` outside <>, (), [], {} and strings in `text`
/// (npos when none).
size_t last_top_level(std::string_view text, std::string_view sep) {
  int depth = 0;
  bool quoted = false;
  size_t found = std::string_view::npos;
  for (size_t idx = 0; idx < text.size(); ++idx) {
    char c = text[idx];
    if (quoted) {
      if (c == '\\') ++idx;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == '>' && (idx == 0 || text[idx - 1] != '-')) || c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && text.substr(idx, sep.size()) == sep) found = idx;
  }
  return found;
}

/// Splits `text` at top-level commas, trimmed.
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t comma = std::string_view::npos;
    int depth = 0;
    for (size_t idx = 0; idx < text.size() && comma == std::string_view::npos; ++idx) {
      char c = text[idx];
      if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
      else if ((c == '>' && (idx == 0 || text[idx - 1] != '-')) || c == ')' || c == ']' || c == '}') --depth;
      else if (c == ',' && depth == 0) comma = idx;
    }
    std::string_view part = text.substr(0, comma);
    size_t first = part.find_first_not_of(" \t");
    size_t last = part.find_last_not_of(" \t\r");
    parts.push_back(first == std::string_view::npos ? std::string_view() : part.substr(first, last - first + 1));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return parts;
}

}  // namespace

std::optional<std::string> generic_form_of_unknown_op(std::string_view line, const std::set<std::string> &known) {
  size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(first);
  // Results: %a, %b:2 =
  int results = 0;
  std::string_view results_text;
  if (!rest.empty() && rest.front() == '%') {
    size_t eq = rest.find(" = ");
    if (eq == std::string_view::npos) return std::nullopt;
    results_text = rest.substr(0, eq);
    for (std::string_view r : split_top_level(results_text)) {
      if (r.empty() || r.front() != '%') return std::nullopt;
      size_t colon = r.find(':');
      results += colon == std::string_view::npos ? 1 : std::max(1, std::atoi(std::string(r.substr(colon + 1)).c_str()));
    }
    rest.remove_prefix(eq + 3);
  }
  size_t name_end = 0;
  while (name_end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[name_end])) != 0 ||
                                    rest[name_end] == '_' || rest[name_end] == '.' || rest[name_end] == '$'))
    ++name_end;
  std::string_view name = rest.substr(0, name_end);
  size_t dot = name.find('.');
  if (name.empty() || dot == std::string_view::npos || dot == 0 || std::isalpha(static_cast<unsigned char>(name[0])) == 0)
    return std::nullopt;
  if (known.count(std::string(name.substr(0, dot))) != 0) return std::nullopt;
  std::string_view body = rest.substr(name_end);
  while (!body.empty() && (body.back() == '\r' || body.back() == ' ' || body.back() == '\t')) body.remove_suffix(1);
  if (!body.empty() && body.back() == '{') return std::nullopt;  // an op with regions: not rewritten
  std::string_view loc;
  size_t at = last_top_level(body, " loc(");
  if (at != std::string_view::npos && body.back() == ')') {
    loc = body.substr(at);
    body = body.substr(0, at);
  }
  std::string types;
  if (results > 0) {
    size_t colon = last_top_level(body, ":");
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view type_text = body.substr(colon + 1);
    size_t arrow = last_top_level(type_text, "->");
    if (arrow != std::string_view::npos) type_text = type_text.substr(arrow + 2);
    size_t t0 = type_text.find_first_not_of(" \t");
    if (t0 == std::string_view::npos) return std::nullopt;
    type_text = type_text.substr(t0);
    while (!type_text.empty() && type_text.back() == ' ') type_text.remove_suffix(1);
    if (type_text.size() >= 2 && type_text.front() == '(' && type_text.back() == ')')
      type_text = type_text.substr(1, type_text.size() - 2);
    std::vector<std::string_view> list = split_top_level(type_text);
    if (static_cast<int>(list.size()) != results) return std::nullopt;
    for (std::string_view t : list) {
      if (t.empty()) return std::nullopt;
      types += (types.empty() ? "" : ", ") + std::string(t);
    }
  }
  std::string out(line.substr(0, first));
  if (results > 0) out += std::string(results_text) + " = ";
  out += "\"" + std::string(name) + "\"() : () -> (" + types + ")" + std::string(loc);
  return out;
}

std::vector<std::pair<std::string, int>> split_sections(std::string_view text) {
  std::vector<std::pair<std::string, int>> sections;
  std::string current;
  int current_first = 1;
  bool has_code = false;
  int line = 1;
  size_t start = 0;
  auto flush = [&]() {
    if (has_code) sections.emplace_back(std::move(current), current_first);
    current.clear();
    has_code = false;
  };
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(start, end - start);
    size_t first = l.find_first_not_of(" \t\r");
    std::string_view trimmed = first == std::string_view::npos ? std::string_view() : l.substr(first);
    if (trimmed.substr(0, 8) == "// -----") {
      flush();
      current.assign(static_cast<size_t>(line), '\n');  // keeps line numbers
      current_first = line + 1;
    } else {
      if (!trimmed.empty() && trimmed.substr(0, 2) != "//") has_code = true;
      if (trimmed.substr(0, 16) == "llvm.intr.assume")
        append_assume_generic(current, l);
      else
        current.append(l.data(), l.size());
      current.push_back('\n');
    }
    if (end == text.size()) break;
    start = end + 1;
    ++line;
  }
  flush();
  return sections;
}

std::optional<std::string> invalid_utf8(std::string_view text, const std::string &origin) {
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data());
  const llvm::UTF8 *at = begin;
  if (llvm::isLegalUTF8String(&at, begin + text.size())) return std::nullopt;
  const size_t offset = static_cast<size_t>(at - begin);
  const size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t col = line_start == std::string_view::npos || offset == 0 ? offset + 1 : offset - line_start;
  static const char *hex = "0123456789ABCDEF";
  const auto byte = static_cast<unsigned char>(text[offset]);
  return origin + ":" + std::to_string(count_lines_before(text, offset)) + ":" + std::to_string(col) +
         ": error: invalid UTF-8: byte 0x" + hex[byte >> 4] + hex[byte & 15] + " (the text must be UTF-8)";
}

/// "origin:line:col: error: ..." where brackets ( [ { < nest deeper than
/// kMaxTtirNesting, outside strings and comments. MLIR's parser recurses on
/// nested regions, attributes, types and locations without a limit of its own.
std::optional<std::string> too_deep(std::string_view text, const std::string &origin) {
  size_t depth = 0;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxTtirNesting)
        return origin + ":" + std::to_string(line) + ":" + std::to_string(i - line_start + 1) +
               ": error: brackets nested deeper than " + std::to_string(kMaxTtirNesting) + " levels (depth " +
               std::to_string(depth) + " at line " + std::to_string(line) + ")";
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0 && !(c == '>' && i > 0 && text[i - 1] == '-')) {
      --depth;
    }
  }
  return std::nullopt;
}

Expected<TtirModule> analyze_ttir_on_this_thread(std::string_view text, const std::string &origin);

}  // namespace perfbound::ttir
