//===- op_syntax.cpp - reading the parts of an op's text ------------------===//
#include "op_syntax.hpp"

#include "lexer.hpp"

namespace pb::hivm::analysis {

GenericParts generic_parts(const Op &op) {
  GenericParts g;
  TokSpan s = tokens_of(op);
  size_t idx = 0;
  if (idx < s.size() && s[idx].kind == Tok::LParen) {
    if (auto grp = group_at(s, idx)) {
      g.operands = percent_ids(grp->first);
      idx = grp->second;
    }
  }
  while (idx < s.size()) {
    Tok k = s[idx].kind;
    if (k == Tok::LSquare || k == Tok::LParen) {
      auto grp = group_at(s, idx);
      if (!grp) break;
      idx = grp->second;
    } else if (k == Tok::Less) {
      auto grp = group_at(s, idx);
      if (!grp) break;
      TokSpan inner = grp->first;
      if (!inner.empty() && inner[0].kind == Tok::LBrace)
        if (auto br = group_at(inner, 0)) g.props = br->first;
      idx = grp->second;
    } else if (k == Tok::LBrace) {
      auto grp = group_at(s, idx);
      if (!grp) break;
      g.attrs = grp->first;
      idx = grp->second;
    } else if (k == Tok::Colon) {
      TokSpan fn = s.from(idx + 1);
      auto arrow = find_top(fn, Tok::Arrow);
      TokSpan ins = arrow ? fn.sub(0, *arrow) : fn;
      g.has_function_type = arrow.has_value() && !ins.empty() && ins[0].kind == Tok::LParen;
      if (!ins.empty() && ins[0].kind == Tok::LParen)
        if (auto grp = group_at(ins, 0)) g.operand_types = grp->first.empty() ? std::vector<TokSpan>{} : split_top(grp->first, Tok::Comma);
      if (arrow) {
        TokSpan res = fn.from(*arrow + 1);
        if (auto loc = find_word(res, "loc")) res = res.sub(0, *loc);
        if (!res.empty() && res[0].kind == Tok::LParen) {
          if (auto grp = group_at(res, 0)) g.result_types = grp->first.empty() ? std::vector<TokSpan>{} : split_top(grp->first, Tok::Comma);
        } else if (!res.empty()) {
          g.result_types = split_top(res, Tok::Comma);
        }
      }
      break;
    } else {
      ++idx;
    }
  }
  return g;
}

std::string_view leading_operand(const Op &op) {
  if (op.generic) {
    GenericParts g = generic_parts(op);
    return g.operands.empty() ? std::string_view{} : g.operands[0];
  }
  TokSpan s = tokens_of(op);
  return !s.empty() && s[0].kind == Tok::PercentId ? s[0].text() : std::string_view{};
}

/// The value of `name = value` in an attribute dictionary's tokens.
std::optional<TokSpan> named_attr(TokSpan dict, std::string_view name) {
  for (TokSpan entry : split_top(dict, Tok::Comma)) {
    if (entry.empty()) continue;
    if ((entry[0].kind == Tok::BareId || entry[0].kind == Tok::String) &&
        (entry[0].text() == name || (entry[0].kind == Tok::String && entry[0].text().substr(1, entry[0].text().size() - 2) == name))) {
      if (entry.size() >= 2 && entry[1].kind == Tok::Equal) return entry.from(2);
      return TokSpan{entry.e, entry.e};  // unit attribute
    }
  }
  return std::nullopt;
}

bool has_word(TokSpan s, std::string_view word) {
  for (size_t idx = 0; idx < s.size(); ++idx)
    if (s[idx].kind == Tok::BareId && s[idx].text() == word) return true;
  return false;
}

/// First enum-like identifier inside an attribute value: "#hivm.pipe<PIPE_V>" or "<PIPE_V>" -> "PIPE_V".
std::string_view enum_word(TokSpan s) {
  for (size_t idx = 0; idx < s.size(); ++idx)
    if (s[idx].kind == Tok::BareId) return s[idx].text();
  return {};
}

std::optional<int64_t> first_int(TokSpan s) {
  bool neg = false;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (s[idx].kind == Tok::Minus) neg = true;
    if (s[idx].kind == Tok::Integer) {
      auto v = parse_int(s[idx].text());
      if (v) return neg ? -*v : *v;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// A Python source location from a trailing loc(...), resolving #loc aliases:
/// the first file location in textual order (for callsite(callee at caller): the callee).
std::string location_of(TokSpan s, const AliasMap &aliases, int depth) {
  if (depth > 6) return {};
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (s[idx].kind == Tok::String && idx + 4 < s.size() && s[idx + 1].kind == Tok::Colon &&
        s[idx + 2].kind == Tok::Integer && s[idx + 3].kind == Tok::Colon && s[idx + 4].kind == Tok::Integer) {
      std::string_view file = s[idx].text().substr(1, s[idx].text().size() - 2);
      return std::string(file) + ":" + std::string(s[idx + 2].text()) + ":" + std::string(s[idx + 4].text());
    }
    if (s[idx].kind == Tok::HashId) {
      auto it = aliases.find(s[idx].text());
      if (it == aliases.end()) continue;
      Lexer lex(it->second);
      std::vector<Token> toks;
      for (Token t = lex.next(); t.kind != Tok::Eof && toks.size() < 256; t = lex.next()) toks.push_back(t);
      std::string found = location_of({toks.data(), toks.data() + toks.size()}, aliases, depth + 1);
      if (!found.empty()) return found;
    }
  }
  return {};
}

std::optional<size_t> find_loc(TokSpan s) {
  int depth = 0;
  for (size_t idx = 0; idx + 1 < s.size(); ++idx) {
    if (depth == 0 && s[idx].kind == Tok::BareId && s[idx].text() == "loc" && s[idx + 1].kind == Tok::LParen) return idx;
    depth += depth_delta(s[idx].kind);
  }
  return std::nullopt;
}

/// Trailing result types of a custom-form op: after the last top-level ':' (or '->'),
/// the part after 'to'/'into' when present.
std::vector<TokSpan> trailing_types(const Op &op) {
  TokSpan s = tokens_of(op);
  if (auto loc = find_loc(s)) s = s.sub(0, *loc);
  if (op.generic) return generic_parts(op).result_types;
  std::optional<size_t> at = find_last_top(s, Tok::Colon);
  std::optional<size_t> arrow = find_last_top(s, Tok::Arrow);
  if (arrow && (!at || *arrow > *at)) at = arrow;
  if (!at) return {};
  TokSpan t = s.from(*at + 1);
  if (auto to = find_word(t, "to")) t = t.from(*to + 1);
  else if (auto into = find_word(t, "into")) t = t.from(*into + 1);
  if (!t.empty() && t[0].kind == Tok::LParen) {
    if (auto g = group_at(t, 0)) return g->first.empty() ? std::vector<TokSpan>{} : split_top(g->first, Tok::Comma);
  }
  // Drop a trailing attribute dictionary.
  if (auto brace = find_top(t, Tok::LBrace)) t = t.sub(0, *brace);
  return split_top(t, Tok::Comma);
}

std::vector<ListEntry> list_entries(TokSpan inner) {
  std::vector<ListEntry> out;
  if (inner.empty()) return out;
  for (TokSpan part : split_top(inner, Tok::Comma)) {
    ListEntry e;
    for (size_t idx = 0; idx < part.size(); ++idx) {
      if (part[idx].kind == Tok::PercentId) {
        e.name = part[idx].text();
        break;
      }
      if (part[idx].kind == Tok::Integer) {
        auto v = parse_int(part[idx].text());
        bool neg = idx > 0 && part[idx - 1].kind == Tok::Minus;
        if (v) e.c = neg ? -*v : *v;
        break;
      }
    }
    out.push_back(e);
  }
  return out;
}

/// The '[' group that follows BareId `kw` (optionally with ':' in between).
std::optional<TokSpan> list_after(TokSpan s, std::string_view kw) {
  auto at = find_word(s, kw);
  if (!at) return std::nullopt;
  size_t idx = *at + 1;
  if (idx < s.size() && s[idx].kind == Tok::Colon) ++idx;
  if (idx < s.size() && s[idx].kind == Tok::LSquare)
    if (auto g = group_at(s, idx)) return g->first;
  return std::nullopt;
}

}  // namespace pb::hivm::analysis
