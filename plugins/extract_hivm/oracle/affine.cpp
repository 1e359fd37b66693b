//===- affine.cpp - affine maps, parsed and evaluated on integers ---------===//
#include "affine.hpp"

#include <stdexcept>

namespace pb::hivm::oracle {

namespace {

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error("affine map: " + what); }

bool word(TokSpan t, size_t i, std::string_view w) {
  return i < t.size() && t[i].kind == Tok::BareId && t[i].text() == w;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

int32_t AffineMap::add(Expr e) {
  exprs_.push_back(e);
  return static_cast<int32_t>(exprs_.size() - 1);
}

AffineMap AffineMap::parse(TokSpan toks, size_t at, size_t &end) {
  AffineMap m;
  if (!word(toks, at, "affine_map") || at + 1 >= toks.size() || toks[at + 1].kind != Tok::Less)
    fail("expected affine_map<...>");
  auto group = group_at(toks, at + 1);
  if (!group) fail("unterminated affine_map<");
  end = group->second;
  TokSpan t = group->first;
  size_t i = 0;
  auto names = [&](Tok open, Tok close, std::vector<std::string_view> &out) {
    if (i >= t.size() || t[i].kind != open) return;
    ++i;
    while (i < t.size() && t[i].kind != close) {
      if (t[i].kind == Tok::BareId) out.push_back(t[i].text());
      ++i;
    }
    if (i >= t.size()) fail("unterminated dimension or symbol list");
    ++i;
  };
  names(Tok::LParen, Tok::RParen, m.dim_names_);
  names(Tok::LSquare, Tok::RSquare, m.sym_names_);
  m.dims_ = m.dim_names_.size();
  m.symbols_ = m.sym_names_.size();
  if (i >= t.size() || t[i].kind != Tok::Arrow) fail("expected '->'");
  ++i;
  if (i >= t.size() || t[i].kind != Tok::LParen) fail("expected '(' after '->'");
  auto results = group_at(t, i);
  if (!results) fail("unterminated result list");
  for (TokSpan part : split_top(results->first, Tok::Comma)) {
    if (part.empty()) continue;
    size_t j = 0;
    m.roots_.push_back(m.parse_sum(part, j));
    if (j != part.size()) fail("unexpected '" + std::string(part[j].text()) + "'");
  }
  return m;
}

int32_t AffineMap::parse_sum(TokSpan t, size_t &i) {
  int32_t left = parse_product(t, i);
  while (i < t.size() && (t[i].kind == Tok::Plus || t[i].kind == Tok::Minus)) {
    Node n = t[i].kind == Tok::Plus ? Node::Add : Node::Sub;
    ++i;
    int32_t right = parse_product(t, i);
    ++operations_;
    left = add({n, 0, left, right});
  }
  return left;
}

int32_t AffineMap::parse_product(TokSpan t, size_t &i) {
  int32_t left = parse_factor(t, i);
  for (;;) {
    Node n;
    if (i < t.size() && t[i].kind == Tok::Star) n = Node::Mul;
    else if (word(t, i, "floordiv")) n = Node::FloorDiv;
    else if (word(t, i, "ceildiv")) n = Node::CeilDiv;
    else if (word(t, i, "mod")) n = Node::Mod;
    else return left;
    ++i;
    int32_t right = parse_factor(t, i);
    ++operations_;
    left = add({n, 0, left, right});
  }
}

int32_t AffineMap::parse_factor(TokSpan t, size_t &i) {
  if (i >= t.size()) fail("expression ends early");
  const Token &tok = t[i];
  if (tok.kind == Tok::Minus) {
    ++i;
    int32_t inner = parse_factor(t, i);
    return add({Node::Neg, 0, inner, -1});
  }
  if (tok.kind == Tok::LParen) {
    ++i;
    int32_t inner = parse_sum(t, i);
    if (i >= t.size() || t[i].kind != Tok::RParen) fail("missing ')'");
    ++i;
    return inner;
  }
  if (tok.kind == Tok::Integer) {
    ++i;
    int64_t v = 0;
    for (char c : tok.text()) {
      if (c < '0' || c > '9') fail("bad integer " + std::string(tok.text()));
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) fail("integer too large");
    }
    return add({Node::Const, v, -1, -1});
  }
  if (tok.kind == Tok::BareId) {
    ++i;
    for (size_t d = 0; d < dim_names_.size(); ++d)
      if (dim_names_[d] == tok.text()) return add({Node::Dim, static_cast<int64_t>(d), -1, -1});
    for (size_t s = 0; s < sym_names_.size(); ++s)
      if (sym_names_[s] == tok.text()) return add({Node::Sym, static_cast<int64_t>(s), -1, -1});
    fail("unknown identifier " + std::string(tok.text()));
  }
  fail("unexpected '" + std::string(tok.text()) + "'");
}

std::optional<int64_t> AffineMap::value(int32_t idx, const std::vector<int64_t> &ops, std::string &why) const {
  const Expr &e = exprs_[static_cast<size_t>(idx)];
  switch (e.node) {
    case Node::Const: return e.value;
    case Node::Dim: return ops[static_cast<size_t>(e.value)];
    case Node::Sym: return ops[dims_ + static_cast<size_t>(e.value)];
    case Node::Neg: {
      auto a = value(e.a, ops, why);
      if (!a) return std::nullopt;
      if (*a == INT64_MIN) {
        why = "overflow";
        return std::nullopt;
      }
      return -*a;
    }
    default: break;
  }
  auto a = value(e.a, ops, why);
  if (!a) return std::nullopt;
  auto b = value(e.b, ops, why);
  if (!b) return std::nullopt;
  int64_t r = 0;
  switch (e.node) {
    case Node::Add:
      if (__builtin_add_overflow(*a, *b, &r)) break;
      return r;
    case Node::Sub:
      if (__builtin_sub_overflow(*a, *b, &r)) break;
      return r;
    case Node::Mul:
      if (__builtin_mul_overflow(*a, *b, &r)) break;
      return r;
    case Node::FloorDiv:
    case Node::CeilDiv:
    case Node::Mod: {
      if (*b == 0) {
        why = "division by zero";
        return std::nullopt;
      }
      if (*a == INT64_MIN && *b == -1) break;
      if (e.node == Node::FloorDiv) return floor_div(*a, *b);
      if (e.node == Node::CeilDiv) return -floor_div(-*a, *b);
      int64_t m = *a % *b;
      if (m != 0 && (m < 0) != (*b < 0)) m += *b;
      return m;
    }
    default: break;
  }
  why = "overflow";
  return std::nullopt;
}

std::optional<std::vector<int64_t>> AffineMap::eval(const std::vector<int64_t> &operands, std::string &why) const {
  if (operands.size() != dims_ + symbols_) {
    why = "expects " + std::to_string(dims_ + symbols_) + " operands, got " + std::to_string(operands.size());
    return std::nullopt;
  }
  std::vector<int64_t> out;
  out.reserve(roots_.size());
  for (int32_t r : roots_) {
    auto v = value(r, operands, why);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

}  // namespace pb::hivm::oracle
