//===- big_function.hpp - one large function made from a real one ---------===//
//
// For the single-function scaling benchmarks (bench/hivm, bench/ttir): the
// body of a real function repeated inside that one function until the text
// reaches a size, every SSA value defined in it renamed per copy (`%12` ->
// `%r3_12`, `%43#1` -> `%r3_43#1`) so that the result is valid IR (the
// readers refuse a value defined twice); the function's arguments keep
// their names.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_BENCH_BIG_FUNCTION_HPP
#define PERFBOUND_BENCH_BIG_FUNCTION_HPP

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

namespace pb::bench_support {

inline bool is_ssa_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

/// The `%name` followed by ':' in a function's signature line: its arguments.
inline std::set<std::string> argument_names(std::string_view signature) {
  std::set<std::string> names;
  for (size_t at = signature.find('%'); at != std::string_view::npos; at = signature.find('%', at + 1)) {
    size_t end = at + 1;
    while (end < signature.size() && is_ssa_char(signature[end])) ++end;
    if (end < signature.size() && signature[end] == ':') names.emplace(signature.substr(at, end - at));
  }
  return names;
}

/// `before` + copies of `body` (SSA names renamed per copy, `keep` excepted;
/// a prefix, since MLIR names that start with a digit are digits only)
/// until at least `bytes` bytes + `after`.
inline std::string repeat_body(std::string_view before, std::string_view body, std::string_view after, size_t bytes,
                               const std::set<std::string> &keep) {
  std::string out(before);
  for (size_t copy = 0; out.size() < bytes; ++copy) {
    const std::string prefix = "%r" + std::to_string(copy) + "_";
    for (size_t i = 0; i < body.size();) {
      if (body[i] != '%') {
        out += body[i++];
        continue;
      }
      size_t end = i + 1;
      while (end < body.size() && is_ssa_char(body[end])) ++end;
      const std::string_view name = body.substr(i, end - i);
      if (name.size() > 1 && keep.count(std::string(name)) == 0) {
        out += prefix;
        out += name.substr(1);
      } else {
        out += name;
      }
      i = end;
    }
  }
  out += after;
  return out;
}

/// The function starting at the first line holding `func_keyword` in `text`,
/// its body repeated to `bytes`: the lines before the function and its
/// signature line, the body up to the line holding `terminator`, then the
/// rest of the text from that line on.
inline std::string single_function(std::string_view text, std::string_view func_keyword, std::string_view terminator,
                                   size_t bytes) {
  const size_t func = text.find(func_keyword);
  if (func == std::string_view::npos) return {};
  const size_t body_begin = text.find('\n', func) + 1;
  size_t term = text.find(terminator, body_begin);
  if (term == std::string_view::npos) return {};
  term = text.rfind('\n', term) + 1;  // the start of the terminator's line
  const size_t line_begin = text.rfind('\n', func) == std::string_view::npos ? 0 : text.rfind('\n', func) + 1;
  return repeat_body(text.substr(0, body_begin), text.substr(body_begin, term - body_begin), text.substr(term), bytes,
                     argument_names(text.substr(line_begin, body_begin - line_begin)));
}

}  // namespace pb::bench_support

#endif  // PERFBOUND_BENCH_BIG_FUNCTION_HPP
