//===- perfbound/sdk/number.hpp - numbers read from outside, range-checked ===//
//
// Every number perfbound reads from a file or a command line (a calibration
// constant, a saved bound, a CSV cell, a sweep range, a deadline) goes
// through one reader: it must be finite and lie in the range its meaning
// allows (a rate or a frequency > 0, a duration >= 0, a count a whole number
// that fits), and a refusal names the place and the range:
//
//   cal.json:7:18: "value" is 1e+400; it must be a finite number > 0
//   op_summary.csv:3:41: column 'Task Duration(us)' is -5; it must be a number >= 0
//
//   - NumberRange says what is allowed and describes it in words;
//   - parse_number() reads a number as JSON, TOML and CSV write them (no
//     "0x", no "inf"/"nan", nothing after it), keeping overflow visible
//     (1e400 is infinite, hence out of every range);
//   - number_problem() is the "is X; it must be ..." half of a message;
//   - json_position() finds the line and column of a member of a JSON text,
//     so a reader that parsed into a DOM can still name the place;
//   - JsonSource::number() reads a member of a parsed document and throws
//     InputError("origin:line:col: ...") when it is missing or out of range.
// Plugins use it as they use the rest of the SDK (header-only, nlohmann).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_NUMBER_HPP
#define PERFBOUND_SDK_NUMBER_HPP

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfbound/sdk/json.hpp"

namespace pb::sdk {

/// The values a number may take: always finite; optionally bounded on each
/// side (inclusive or not) and optionally a whole number.
class NumberRange {
 public:
  /// Any finite number.
  static NumberRange finite() { return NumberRange(); }
  /// > 0 (rates, frequencies, bandwidths, clocks, sizes of things that exist).
  static NumberRange positive() { return NumberRange().above(0); }
  /// >= 0 (durations, latencies, byte and element counts, ratios of work).
  static NumberRange non_negative() { return NumberRange().at_least(0); }
  /// A whole number from `lo` to `hi` (counts, indices, grid sizes).
  static NumberRange whole(double lo, double hi) {
    NumberRange range = NumberRange().at_least(lo).at_most(hi);
    range.whole_ = true;
    return range;
  }

  NumberRange at_least(double value) const { return with_min(value, false); }
  NumberRange above(double value) const { return with_min(value, true); }
  NumberRange at_most(double value) const { return with_max(value, false); }
  NumberRange below(double value) const { return with_max(value, true); }

  /// True when only whole numbers are in range.
  [[nodiscard]] bool whole_numbers() const { return whole_; }

  [[nodiscard]] bool contains(double value) const {
    if (!std::isfinite(value)) return false;
    if (whole_ && value != std::floor(value)) return false;
    if (min_ && (min_exclusive_ ? !(value > *min_) : !(value >= *min_))) return false;
    if (max_ && (max_exclusive_ ? !(value < *max_) : !(value <= *max_))) return false;
    return true;
  }

  /// "a finite number", "a number > 0", "a number >= 0 and <= 604800",
  /// "a whole number from 1 to 2147483647".
  [[nodiscard]] std::string describe() const {
    if (whole_ && min_ && max_ && !min_exclusive_ && !max_exclusive_)
      return "a whole number from " + format(*min_) + " to " + format(*max_);
    std::string text = whole_ ? "a whole number" : (min_ || max_ ? "a number" : "a finite number");
    if (min_) text += std::string(min_exclusive_ ? " > " : " >= ") + format(*min_);
    if (min_ && max_) text += " and";
    if (max_) text += std::string(max_exclusive_ ? " < " : " <= ") + format(*max_);
    return text;
  }

  /// A number as messages print it: integers in full up to 2^53, else %g
  /// with enough digits to tell it from its neighbours ("1e+400" stays "inf").
  static std::string format(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[64];
    if (value == std::floor(value) && std::fabs(value) <= 9007199254740992.0)
      std::snprintf(buffer, sizeof buffer, "%.0f", value);
    else
      std::snprintf(buffer, sizeof buffer, "%.10g", value);
    return buffer;
  }

 private:
  NumberRange with_min(double value, bool exclusive) const {
    NumberRange copy = *this;
    copy.min_ = value;
    copy.min_exclusive_ = exclusive;
    return copy;
  }
  NumberRange with_max(double value, bool exclusive) const {
    NumberRange copy = *this;
    copy.max_ = value;
    copy.max_exclusive_ = exclusive;
    return copy;
  }
  std::optional<double> min_, max_;
  bool min_exclusive_ = false, max_exclusive_ = false;
  bool whole_ = false;
};

/// "" when `value` is in `range`; otherwise "is <value>; it must be <range>"
/// (`written`, when given, is shown instead of the value: "1e400").
inline std::string number_problem(double value, const NumberRange &range, std::string_view written = {}) {
  if (range.contains(value)) return {};
  const std::string shown = written.empty() ? NumberRange::format(value) : std::string(written);
  return "is " + shown + "; it must be " + range.describe();
}

/// Reads a number as JSON, TOML and CSV cells write it: optional '-',
/// digits, optional fraction and exponent (a leading '+' and TOML's '_'
/// separators are accepted, nothing after the number is). A value too large
/// for a double is returned as an infinity (so no range holds it), never
/// clamped. nullopt when `text` is not a number ("inf", "nan", "0x10", "").
inline std::optional<double> parse_number(std::string_view text) {
  std::string digits;
  digits.reserve(text.size());
  for (char c : text)
    if (c != '_') digits += c;
  std::string_view body = digits;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  if (body.empty()) return std::nullopt;
  const char first = body.front() == '-' ? (body.size() > 1 ? body[1] : '\0') : body.front();
  if (!(first >= '0' && first <= '9') && first != '.') return std::nullopt;  // no inf, nan, hex
  double value = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value, std::chars_format::general);
  if (end != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Too large (an infinity) or too small (a zero): say which.
    const bool negative = body.front() == '-';
    const size_t exp = body.find_first_of("eE");
    const bool tiny = exp != std::string_view::npos && exp + 1 < body.size() && body[exp + 1] == '-';
    if (tiny) return negative ? -0.0 : 0.0;
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (ec != std::errc()) return std::nullopt;
  return value;
}

/// Where a place in a text is: 1-based line and byte column.
struct TextPosition {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

namespace detail {
/// Walks JSON text without building anything, keeping line and column.
class JsonWalker {
 public:
  explicit JsonWalker(std::string_view text) : text_(text) {}

  /// Positions at the value `tokens` names (object keys, array indices);
  /// false when the path does not exist or the text is not valid JSON.
  bool seek(const std::vector<std::string> &tokens) {
    skip_ws();
    for (const std::string &token : tokens) {
      if (peek() == '{') {
        if (!enter_member(token)) return false;
      } else if (peek() == '[') {
        if (!enter_element(token)) return false;
      } else {
        return false;
      }
    }
    return pos_ < text_.size();
  }
  [[nodiscard]] TextPosition position() const { return {line_, static_cast<std::uint32_t>(pos_ - line_start_ + 1)}; }

 private:
  [[nodiscard]] char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }
  void skip_ws() {
    while (pos_ < text_.size() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) advance();
  }
  static void append_utf8(std::string &out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(std::uint32_t &out) {
    out = 0;
    for (int idx = 0; idx < 4; ++idx) {
      const char c = peek();
      std::uint32_t digit = 0;
      if (c >= '0' && c <= '9') digit = static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') digit = static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') digit = static_cast<std::uint32_t>(c - 'A' + 10);
      else return false;
      out = out * 16 + digit;
      advance();
    }
    return true;
  }
  /// A string at the cursor, decoded into `out`.
  bool string(std::string &out) {
    if (peek() != '"') return false;
    advance();
    while (pos_ < text_.size()) {
      const char c = peek();
      if (c == '"') {
        advance();
        return true;
      }
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      const char e = peek();
      if (pos_ >= text_.size()) return false;
      advance();
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && peek() == '\\') {
            advance();
            if (peek() != 'u') return false;
            advance();
            std::uint32_t low = 0;
            if (!hex4(low)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: out += e;
      }
    }
    return false;
  }
  /// Skips one value at the cursor (any depth, without recursion).
  bool skip_value() {
    size_t depth = 0;
    do {
      skip_ws();
      const char c = peek();
      if (c == '"') {
        std::string ignored;
        if (!string(ignored)) return false;
      } else if (c == '{' || c == '[') {
        ++depth;
        advance();
        continue;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return false;
        --depth;
        advance();
      } else if (c == ',' || c == ':') {
        if (depth == 0) return false;
        advance();
        continue;
      } else if (pos_ >= text_.size()) {
        return false;
      } else {
        while (pos_ < text_.size() && std::string_view(",:]} \t\r\n").find(peek()) == std::string_view::npos) advance();
      }
    } while (depth > 0);
    return true;
  }
  bool enter_member(const std::string &key) {
    advance();  // '{'
    while (true) {
      skip_ws();
      if (peek() == '}') return false;
      std::string name;
      if (!string(name)) return false;
      skip_ws();
      if (peek() != ':') return false;
      advance();
      skip_ws();
      if (name == key) return true;
      if (!skip_value()) return false;
      skip_ws();
      if (peek() == ',') {
        advance();
        continue;
      }
      return false;
    }
  }
  bool enter_element(const std::string &index_text) {
    size_t index = 0;
    auto [end, ec] = std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
    if (ec != std::errc() || end != index_text.data() + index_text.size()) return false;
    advance();  // '['
    for (size_t at = 0;; ++at) {
      skip_ws();
      if (peek() == ']') return false;
      if (at == index) return true;
      if (!skip_value()) return false;
      skip_ws();
      if (peek() != ',') return false;
      advance();
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::uint32_t line_ = 1;
  size_t line_start_ = 0;
};
}  // namespace detail

/// The line and column where the value at `pointer` starts in the JSON
/// `text` (the first occurrence of a duplicated key); nullopt when there is
/// no such value. Linear in the text before it; for messages, not for loops.
inline std::optional<TextPosition> json_position(std::string_view text, const json::json_pointer &pointer) {
  std::vector<std::string> tokens;
  json::json_pointer rest = pointer;
  while (!rest.empty()) {
    tokens.insert(tokens.begin(), rest.back());
    rest.pop_back();
  }
  detail::JsonWalker walker(text);
  if (!walker.seek(tokens)) return std::nullopt;
  return walker.position();
}

/// Parses a JSON input; throws InputError "origin:line:col: not valid JSON:
/// ..." for a syntax error, a number JSON cannot hold (1e400) included.
inline json parse_json_input(std::string_view text, const std::string &origin) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    std::string message = json_syntax_error_message(text, origin);
    throw InputError(message.empty() ? origin + ": not valid JSON" : message);
  }
  return doc;
}

/// A JSON document and the text it was parsed from: numbers read through it
/// are range-checked, and refusals name the file, line and column.
class JsonSource {
 public:
  /// `first_line`: the line of the file `text` starts on (a JSON-lines
  /// record is its own text but sits on line N of its file).
  JsonSource(std::string origin, std::string_view text, std::uint32_t first_line = 1)
      : origin_(std::move(origin)), text_(text), first_line_(first_line) {}

  [[nodiscard]] const std::string &origin() const { return origin_; }
  /// "origin:line:col" of the value at `pointer` ("origin (at /a/0)" when
  /// it cannot be found, e.g. a member that is missing).
  [[nodiscard]] std::string where(const json::json_pointer &pointer) const {
    if (auto at = json_position(text_, pointer))
      return origin_ + ":" + std::to_string(at->line + first_line_ - 1) + ":" + std::to_string(at->column);
    return origin_ + " (at " + pointer.to_string() + ")";
  }
  /// Throws InputError("<where(pointer)>: <what> <message>").
  [[noreturn]] void fail(const json::json_pointer &pointer, const std::string &message) const {
    throw InputError(where(pointer) + ": " + message);
  }

  /// The number at `pointer` of `root` (the document parsed from this
  /// source), checked against `range`; `what` names it in the message
  /// ("\"bound_s\""). Throws InputError when it is missing, not a number or
  /// out of range.
  [[nodiscard]] double number(const json &root, const json::json_pointer &pointer, const NumberRange &range,
                              const std::string &what) const {
    if (!root.contains(pointer)) fail(parent_of(pointer), what + " is missing; it must be " + range.describe());
    const json &value = root.at(pointer);
    if (!value.is_number())
      fail(pointer, what + " is " + std::string(value.type_name()) + "; it must be " + range.describe());
    const double number = value.get<double>();
    if (std::string problem = number_problem(number, range); !problem.empty()) fail(pointer, what + " " + problem);
    return number;
  }
  /// As number(), but absent or null is nullopt.
  [[nodiscard]] std::optional<double> optional_number(const json &root, const json::json_pointer &pointer,
                                                      const NumberRange &range, const std::string &what) const {
    if (!root.contains(pointer) || root.at(pointer).is_null()) return std::nullopt;
    return number(root, pointer, range, what);
  }

 private:
  static json::json_pointer parent_of(const json::json_pointer &pointer) {
    return pointer.empty() ? pointer : pointer.parent_pointer();
  }
  std::string origin_;
  std::string_view text_;
  std::uint32_t first_line_ = 1;
};

}  // namespace pb::sdk

#endif  // PERFBOUND_SDK_NUMBER_HPP
