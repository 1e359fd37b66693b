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

bool has_bare_pointer(std::string_view text) {
  size_t at = 0;
  while ((at = text.find("!tt.ptr", at)) != std::string_view::npos) {
    size_t line_start = text.rfind('\n', at);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    const bool commented = text.substr(line_start, at - line_start).find("//") != std::string_view::npos;
    at += 7;
    if (!commented && (at >= text.size() || text[at] != '<')) return true;
  }
  return false;
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

namespace {

std::string_view trimmed(std::string_view s) {
  size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  size_t last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

/// The element type of a printed shaped type (`tensor<4x?x!tt.ptr<f32>, #l>`
/// -> `!tt.ptr<f32>`, `memref<8xf32, strided<[1]>>` -> `f32`); the type
/// itself when it is not one.
std::string_view element_type_text(std::string_view type) {
  for (std::string_view prefix : {"tensor<", "memref<", "vector<"}) {
    if (type.substr(0, prefix.size()) != prefix || type.back() != '>') continue;
    std::string_view inner = type.substr(prefix.size(), type.size() - prefix.size() - 1);
    std::vector<std::string_view> parts = split_top_level(inner);  // drops a layout / memory space
    inner = parts.empty() ? inner : parts.front();
    // Leading dimensions: `4x`, `?x`, `[4]x` (scalable vectors).
    while (true) {
      size_t k = 0;
      if (k < inner.size() && inner[k] == '[') k = inner.find(']') == std::string_view::npos ? 0 : inner.find(']') + 1;
      else
        while (k < inner.size() && (std::isdigit(static_cast<unsigned char>(inner[k])) != 0 || inner[k] == '?')) ++k;
      if (k == 0 || k >= inner.size() || inner[k] != 'x') break;
      inner.remove_prefix(k + 1);
    }
    return inner;
  }
  return type;
}

}  // namespace

std::optional<std::string> unknown_op_name(std::string_view line, const std::set<std::string> &known) {
  std::string_view rest = trimmed(line);
  if (!rest.empty() && rest.front() == '%') {
    size_t eq = rest.find(" = ");
    if (eq == std::string_view::npos) return std::nullopt;
    rest = trimmed(rest.substr(eq + 3));
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
  // `ttg.target = "cuda:90"`: an attribute of a `module attributes {` dict
  // written over several lines, not an op (an op name is never followed by `=`).
  std::string_view after = trimmed(rest.substr(name_end));
  if (!after.empty() && after.front() == '=') return std::nullopt;
  return std::string(name);
}

std::optional<std::string> generic_form_of_unknown_op(std::string_view line, const std::set<std::string> &known) {
  std::optional<std::string> op_name = unknown_op_name(line, known);
  if (!op_name) return std::nullopt;
  size_t first = line.find_first_not_of(" \t");
  std::string_view rest = line.substr(first);
  // Results: %a, %b:2 =
  int results = 0;
  std::string_view results_text;
  if (!rest.empty() && rest.front() == '%') {
    size_t eq = rest.find(" = ");
    results_text = rest.substr(0, eq);
    for (std::string_view r : split_top_level(results_text)) {
      if (r.empty() || r.front() != '%') return std::nullopt;
      size_t colon = r.find(':');
      results += colon == std::string_view::npos ? 1 : std::max(1, std::atoi(std::string(r.substr(colon + 1)).c_str()));
    }
    rest.remove_prefix(eq + 3);
    rest = rest.substr(rest.find_first_not_of(" \t"));
  }
  const std::string &name = *op_name;
  std::string_view body = rest.substr(name.size());
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
    // The result types: after the last `:` (`: T`, `: A -> B`, `: A to B`,
    // `: A into B`), or after `->` when the op prints no `:`
    // (`hivm.hir.get_sub_block_idx -> i64`).
    std::string_view type_text;
    size_t colon = last_top_level(body, ":");
    if (colon != std::string_view::npos) {
      type_text = body.substr(colon + 1);
      size_t arrow = last_top_level(type_text, "->");
      size_t to = last_top_level(type_text, " to ");
      size_t into = last_top_level(type_text, " into ");
      if (arrow != std::string_view::npos) type_text = type_text.substr(arrow + 2);
      else if (to != std::string_view::npos) type_text = type_text.substr(to + 4);
      else if (into != std::string_view::npos) type_text = type_text.substr(into + 6);
    } else {
      size_t arrow = last_top_level(body, "->");
      if (arrow == std::string_view::npos) return std::nullopt;
      type_text = body.substr(arrow + 2);
    }
    type_text = trimmed(type_text);
    if (type_text.empty()) return std::nullopt;
    if (type_text.size() >= 2 && type_text.front() == '(' && type_text.back() == ')')
      type_text = type_text.substr(1, type_text.size() - 2);
    std::vector<std::string_view> list = split_top_level(type_text);
    // Ops whose printed type is not their result's: an element of a shaped
    // value (`tensor.extract %t[%i] : tensor<128xi32>` is an i32), a size.
    if (list.size() == 1 && (name == "tensor.extract" || name == "memref.load" || name == "vector.extractelement"))
      list[0] = element_type_text(list[0]);
    std::string index_type = "index";
    if (name == "tensor.dim" || name == "memref.dim" || name == "tensor.rank" || name == "memref.rank")
      list = {index_type};
    if (static_cast<int>(list.size()) != results) return std::nullopt;
    for (std::string_view t : list) {
      if (t.empty()) return std::nullopt;
      types += (types.empty() ? "" : ", ") + std::string(t);
    }
  }
  std::string out(line.substr(0, first));
  if (results > 0) out += std::string(results_text) + " = ";
  out += "\"" + name + "\"() : () -> (" + types + ")" + std::string(loc);
  return out;
}

namespace {

/// How much `line` opens brackets ( [ { < minus what it closes, outside
/// strings and comments (`->` is not a bracket).
int bracket_balance(std::string_view line) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') break;
    else if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    else if ((c == '>' && (i == 0 || line[i - 1] != '-')) || c == ')' || c == ']' || c == '}') --depth;
  }
  return depth;
}

/// Whether `line` continues the op of the line before it rather than
/// starting a statement: not a new op (`%r = ...`, `name.op ...`, a quoted
/// generic op), a closing brace, a block label, a comment or a blank line
/// (`ins(...)`, `outs(...)`, `-> T`, `: T`, `{attrs}`, `loc(...)` continue).
bool continues_op(std::string_view line) {
  std::string_view t = trimmed(line);
  if (t.empty() || t.front() == '%' || t.front() == '}' || t.front() == '^' || t.front() == '"' ||
      t.substr(0, 2) == "//")
    return false;
  size_t k = 0;
  while (k < t.size() && (std::isalnum(static_cast<unsigned char>(t[k])) != 0 || t[k] == '_' || t[k] == '.')) ++k;
  std::string_view word = t.substr(0, k);
  bool op_name = word.find('.') != std::string_view::npos && std::isalpha(static_cast<unsigned char>(word[0])) != 0;
  return !op_name;
}

}  // namespace

std::string make_unknown_ops_opaque(std::string_view section, const std::set<std::string> &known) {
  constexpr size_t kMaxOpLines = 64;
  std::vector<std::string_view> lines;
  {
    size_t start = 0;
    while (start <= section.size()) {
      size_t end = section.find('\n', start);
      if (end == std::string_view::npos) end = section.size();
      lines.push_back(section.substr(start, end - start));
      if (end == section.size()) break;
      start = end + 1;
    }
  }
  std::string out;
  out.reserve(section.size());
  for (size_t idx = 0; idx < lines.size(); ++idx) {
    std::string_view l = lines[idx];
    std::optional<std::string> generic;
    size_t used = 1;
    if (unknown_op_name(l, known)) {
      generic = generic_form_of_unknown_op(l, known);
      // An op written over several lines (`hivm.hir.custom "f"` and then
      // `ins(...)`, `outs(...) -> T`): its lines joined while its brackets
      // are open or the next line continues it; the generic form takes the
      // first line and the others stay, empty, so that lines keep their
      // numbers. A line that ends with `{` opens a region: left alone.
      std::string_view code = trimmed(l);
      int depth = bracket_balance(l);
      if (!generic && !code.empty() && code.back() != '{') {
        std::string joined(l);
        size_t k = idx + 1;
        while (k < lines.size() && k - idx < kMaxOpLines && (depth > 0 || continues_op(lines[k]))) {
          joined += " ";
          joined.append(trimmed(lines[k]));
          depth += bracket_balance(lines[k]);
          ++k;
        }
        if (k > idx + 1 && depth == 0) {
          generic = generic_form_of_unknown_op(joined, known);
          used = k - idx;
        }
      }
    }
    if (generic) {
      out += *generic;
      out.append(used - 1, '\n');
      idx += used - 1;
    } else {
      out.append(l.data(), l.size());
    }
    if (idx + 1 < lines.size()) out.push_back('\n');
  }
  return out;
}

namespace {

/// The lines of `text` (without their '\n').
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

/// `line` without its `//` comment (outside strings) and trailing blanks.
std::string_view code_of(std::string_view line) {
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      line = line.substr(0, i);
      break;
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

std::string_view trim_front(std::string_view s) {
  size_t first = s.find_first_not_of(" \t");
  return first == std::string_view::npos ? std::string_view() : s.substr(first);
}

}  // namespace

std::vector<FuncExtent> function_extents(std::string_view text) {
  std::vector<FuncExtent> out;
  std::vector<std::string_view> lines = lines_of(text);
  size_t idx = 0;
  while (idx < lines.size()) {
    std::string_view code = trim_front(code_of(lines[idx]));
    if (code.substr(0, 8) != "tt.func " && code.substr(0, 8) != "tt.func\t") {
      ++idx;
      continue;
    }
    FuncExtent f;
    f.first_line = static_cast<int>(idx) + 1;
    std::string_view rest = trim_front(code.substr(8));
    for (std::string_view vis : {"public ", "private ", "nested "}) {
      if (rest.substr(0, vis.size()) == vis) {
        f.is_public = vis == "public ";
        rest = trim_front(rest.substr(vis.size()));
      }
    }
    if (!rest.empty() && rest.front() == '@') {
      rest.remove_prefix(1);
      if (!rest.empty() && rest.front() == '"') {
        size_t close = rest.find('"', 1);
        f.name = std::string(rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
      } else {
        size_t end = 0;
        while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) != 0 || rest[end] == '_' ||
                                     rest[end] == '.' || rest[end] == '$' || rest[end] == '-'))
          ++end;
        f.name = std::string(rest.substr(0, end));
      }
    }
    // The signature: parentheses until the body's `{` ends a line.
    int parens = 0;
    int braces = 0;
    size_t line = idx;
    for (; line < lines.size(); ++line) {
      std::string_view c = code_of(lines[line]);
      bool quoted = false;
      for (size_t i = 0; i < c.size(); ++i) {
        char ch = c[i];
        if (quoted) {
          if (ch == '\\') ++i;
          else if (ch == '"') quoted = false;
          continue;
        }
        if (ch == '"') quoted = true;
        else if (ch == '(') ++parens;
        else if (ch == ')') --parens;
        else if (!f.has_body && parens == 0 && ch == '{' && i + 1 == c.size()) {
          f.has_body = true;
          braces = 1;
        } else if (f.has_body && ch == '{') {
          ++braces;
        } else if (f.has_body && ch == '}') {
          --braces;
        }
      }
      if (f.has_body && braces <= 0) break;
      if (!f.has_body && parens <= 0) break;  // a declaration
    }
    f.last_line = static_cast<int>(std::min(line, lines.size() - 1)) + 1;
    out.push_back(std::move(f));
    idx = static_cast<size_t>(out.back().last_line);
  }
  return out;
}

bool has_split_marker(std::string_view text) {
  for (std::string_view l : lines_of(text))
    if (trim_front(l).substr(0, 8) == "// -----") return true;
  return false;
}

int diagnostic_line(std::string_view message, std::string_view origin) {
  std::string needle = std::string(origin) + ":";
  size_t at = 0;
  while ((at = message.find(needle, at)) != std::string_view::npos) {
    size_t pos = at + needle.size();
    int line = 0;
    while (pos < message.size() && std::isdigit(static_cast<unsigned char>(message[pos])) != 0)
      line = line * 10 + (message[pos++] - '0');
    if (line > 0 && pos < message.size() && message[pos] == ':') return line;
    at += needle.size();
  }
  return 0;
}

std::optional<SplitMode> split_mode_named(std::string_view name) {
  if (name == "auto") return SplitMode::Auto;
  if (name == "on") return SplitMode::On;
  if (name == "off") return SplitMode::Off;
  return std::nullopt;
}

std::vector<std::pair<std::string, int>> split_sections(std::string_view text, bool split) {
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
    if (split && trimmed.substr(0, 8) == "// -----") {
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

}  // namespace perfbound::ttir
