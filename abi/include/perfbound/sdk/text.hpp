//===- perfbound/sdk/text.hpp - text reports that fit a terminal ----------===//
//
// wrap_lines(): every line of a text report at most `width` columns (100 by
// default), wrapped at spaces (never truncated) with a hanging indent that
// keeps the column a line's value starts in:
//
//   "  verdict       memory-bound, unit mte2 ... long ..."
//   becomes
//   "  verdict       memory-bound, unit mte2 ..."
//   "                ... long ..."
//
// Columns are counted in code points (UTF-8 continuation bytes do not
// count). A word longer than the room left is split. Header-only, standard
// library only, so the host and every renderer wrap alike.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_TEXT_HPP
#define PERFBOUND_SDK_TEXT_HPP

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace pb::sdk::text {

/// The width of a text report, in columns.
inline constexpr size_t kReportWidth = 100;

/// Columns of `s` (code points: UTF-8 continuation bytes do not count).
inline size_t columns(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

/// The byte offset after the first `cols` columns of `s`.
inline size_t byte_at_column(std::string_view s, size_t cols) {
  size_t n = 0, idx = 0;
  for (; idx < s.size(); ++idx) {
    if ((static_cast<unsigned char>(s[idx]) & 0xC0) != 0x80) {
      if (n == cols) return idx;
      ++n;
    }
  }
  return idx;
}

/// Where the continuation of a long line starts: under its value (after a
/// gap of two spaces, or after "key: "), else two columns in.
inline size_t hanging_indent(std::string_view line, size_t width) {
  const size_t lead = line.find_first_not_of(' ') == std::string_view::npos ? 0 : line.find_first_not_of(' ');
  size_t indent = lead + 2;
  const size_t gap = line.find("  ", lead);
  const size_t colon = line.find(": ", lead);
  if (gap != std::string_view::npos && gap < 40) {
    const size_t value = line.find_first_not_of(' ', gap);
    if (value != std::string_view::npos) indent = columns(line.substr(0, value));
  } else if (colon != std::string_view::npos && colon < lead + 30) {
    indent = columns(line.substr(0, colon + 2));
  }
  return std::min(indent, width / 2);
}

/// One line wrapped to `width` columns (no newline in `line`).
inline std::string wrap_line(std::string_view line, size_t width = kReportWidth) {
  if (columns(line) <= width || width < 20) return std::string(line);
  const size_t indent = hanging_indent(line, width);
  std::string out;
  std::string_view rest = line;
  bool first = true;
  while (!rest.empty()) {
    const size_t room = first ? width : width - indent;
    if (!first) {
      const size_t skip = rest.find_first_not_of(' ');
      if (skip == std::string_view::npos) break;
      rest.remove_prefix(skip);
      out += '\n';
      out.append(indent, ' ');
    }
    if (columns(rest) <= room) {
      out.append(rest);
      break;
    }
    const size_t limit = byte_at_column(rest, room);
    // The last space at or before the limit, past the indent on the first line.
    size_t cut = rest.rfind(' ', limit);
    const size_t floor_at = first ? std::min<size_t>(rest.size(), indent + 1) : 1;
    if (cut == std::string_view::npos || cut < floor_at) cut = limit;  // a word longer than the room: split it
    std::string_view piece = rest.substr(0, cut);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    out.append(piece);
    rest.remove_prefix(cut);
    first = false;
  }
  return out;
}

/// Every line of `text` wrapped to `width` columns.
inline std::string wrap_lines(std::string_view text, size_t width = kReportWidth) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool newline = end != std::string_view::npos;
    if (!newline) end = text.size();
    out += wrap_line(text.substr(start, end - start), width);
    if (newline) out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace pb::sdk::text

#endif  // PERFBOUND_SDK_TEXT_HPP
