//===- tokens.hpp - reading an operation's own tokens ----------------------===//
//
// Small helpers over the tokens of one operation: bracket-balanced searches
// ("the '(' group after `ins`"), splitting at top-level commas and colons,
// and the source text of a token range.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_TOKENS_HPP
#define PERFBOUND_EXTRACT_HIVM_TOKENS_HPP

#include <optional>
#include <string_view>
#include <vector>

#include "ir.hpp"
#include "parser.hpp"

namespace pb::hivm {

struct TokSpan {
  const Token *b = nullptr;
  const Token *e = nullptr;
  [[nodiscard]] bool empty() const { return b == e; }
  [[nodiscard]] size_t size() const { return static_cast<size_t>(e - b); }
  const Token &operator[](size_t idx) const { return b[idx]; }
  [[nodiscard]] TokSpan sub(size_t from, size_t to) const { return {b + from, b + to}; }
  [[nodiscard]] TokSpan from(size_t idx) const { return {b + (idx < size() ? idx : size()), e}; }
  [[nodiscard]] std::string_view text() const { return empty() ? std::string_view{} : span(*b, *(e - 1)); }
};

inline TokSpan tokens_of(const Op &op) { return {op.tokens.data(), op.tokens.data() + op.tokens.size()}; }

inline int depth_delta(Tok k) {
  switch (k) {
    case Tok::LParen:
    case Tok::LSquare:
    case Tok::LBrace:
    case Tok::Less: return 1;
    case Tok::RParen:
    case Tok::RSquare:
    case Tok::RBrace:
    case Tok::Greater: return -1;
    default: return 0;
  }
}

/// Index of the first token of `kind` at depth 0 at or after `from`.
inline std::optional<size_t> find_top(TokSpan s, Tok kind, size_t from = 0) {
  int depth = 0;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (idx >= from && depth == 0 && s[idx].kind == kind) return idx;
    depth += depth_delta(s[idx].kind);
  }
  return std::nullopt;
}

/// Index of the last token of `kind` at depth 0.
inline std::optional<size_t> find_last_top(TokSpan s, Tok kind) {
  int depth = 0;
  std::optional<size_t> found;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (depth == 0 && s[idx].kind == kind) found = idx;
    depth += depth_delta(s[idx].kind);
  }
  return found;
}

/// Index of a BareId `word` at depth 0.
inline std::optional<size_t> find_word(TokSpan s, std::string_view word, size_t from = 0) {
  int depth = 0;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (idx >= from && depth == 0 && s[idx].kind == Tok::BareId && s[idx].text() == word) return idx;
    depth += depth_delta(s[idx].kind);
  }
  return std::nullopt;
}

/// The tokens inside the bracket group opening at `open`, and the index after its closer.
inline std::optional<std::pair<TokSpan, size_t>> group_at(TokSpan s, size_t open) {
  if (open >= s.size() || depth_delta(s[open].kind) != 1) return std::nullopt;
  int depth = 0;
  for (size_t idx = open; idx < s.size(); ++idx) {
    depth += depth_delta(s[idx].kind);
    if (depth == 0) return std::make_pair(s.sub(open + 1, idx), idx + 1);
  }
  return std::nullopt;
}

/// The '(' group right after keyword `kw` (e.g. ins(...), outs(...)).
inline std::optional<TokSpan> keyword_group(TokSpan s, std::string_view kw) {
  auto at = find_word(s, kw);
  if (!at || *at + 1 >= s.size() || s[*at + 1].kind != Tok::LParen) return std::nullopt;
  auto g = group_at(s, *at + 1);
  if (!g) return std::nullopt;
  return g->first;
}

/// Splits at depth-0 separators.
inline std::vector<TokSpan> split_top(TokSpan s, Tok sep) {
  std::vector<TokSpan> parts;
  if (s.empty()) return parts;
  int depth = 0;
  size_t start = 0;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (depth == 0 && s[idx].kind == sep) {
      parts.push_back(s.sub(start, idx));
      start = idx + 1;
    }
    depth += depth_delta(s[idx].kind);
  }
  parts.push_back(s.sub(start, s.size()));
  return parts;
}

/// Value names among the tokens (uses), in order.
inline std::vector<std::string_view> percent_ids(TokSpan s) {
  std::vector<std::string_view> out;
  for (size_t idx = 0; idx < s.size(); ++idx)
    if (s[idx].kind == Tok::PercentId) out.push_back(s[idx].text());
  return out;
}

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_TOKENS_HPP
