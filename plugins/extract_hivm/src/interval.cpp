//===- interval.cpp - integer intervals and affine maps --------------------===//
#include "interval.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace pb::hivm {

namespace {

__extension__ typedef __int128 i128;  // GCC/Clang extension, silenced for -Wpedantic
constexpr int64_t kNeg = Interval::kNegInf;
constexpr int64_t kPos = Interval::kPosInf;

int64_t sat(i128 v) {
  if (v <= static_cast<i128>(kNeg)) return kNeg;
  if (v >= static_cast<i128>(kPos)) return kPos;
  return static_cast<int64_t>(v);
}

bool is_inf(int64_t v) { return v == kNeg || v == kPos; }
int sign_of(int64_t v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

Interval from_corners(i128 c0, i128 c1, i128 c2, i128 c3) {
  i128 lo = std::min({c0, c1, c2, c3});
  i128 hi = std::max({c0, c1, c2, c3});
  return {sat(lo), sat(hi)};
}

// Product of two interval ends, infinities included.
i128 mul_end(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (is_inf(a) || is_inf(b))
    return sign_of(a) * sign_of(b) > 0 ? static_cast<i128>(kPos) : static_cast<i128>(kNeg);
  return static_cast<i128>(a) * b;
}

i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

i128 ceil_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}

enum class DivKind { Floor, Ceil, Trunc };

// Quotient of two interval ends (b != 0); std::nullopt when both are infinite.
std::optional<i128> div_end(int64_t a, int64_t b, DivKind kind) {
  if (is_inf(a) && is_inf(b)) return std::nullopt;
  const int s = sign_of(a) * sign_of(b);
  if (is_inf(a)) return s > 0 ? static_cast<i128>(kPos) : static_cast<i128>(kNeg);
  if (is_inf(b)) {
    if (kind == DivKind::Floor && s < 0) return -1;
    if (kind == DivKind::Ceil && s > 0) return 1;
    return 0;
  }
  switch (kind) {
    case DivKind::Floor: return floor_div(a, b);
    case DivKind::Ceil: return ceil_div(a, b);
    case DivKind::Trunc: return static_cast<i128>(a) / b;
  }
  return std::nullopt;
}

Interval div_corners(Interval a, Interval b, DivKind kind) {
  if (a.exact() && a.lo == 0) return Interval::point(0);
  if (b.lo <= 0 && b.hi >= 0) return Interval::full();
  auto c0 = div_end(a.lo, b.lo, kind), c1 = div_end(a.lo, b.hi, kind), c2 = div_end(a.hi, b.lo, kind),
       c3 = div_end(a.hi, b.hi, kind);
  if (!c0 || !c1 || !c2 || !c3) return Interval::full();
  return from_corners(*c0, *c1, *c2, *c3);
}

}  // namespace

Interval iv_add(Interval a, Interval b) {
  int64_t lo = (a.lo == kNeg || b.lo == kNeg) ? kNeg : sat(static_cast<i128>(a.lo) + b.lo);
  int64_t hi = (a.hi == kPos || b.hi == kPos) ? kPos : sat(static_cast<i128>(a.hi) + b.hi);
  return {lo, hi};
}

Interval iv_sub(Interval a, Interval b) {
  int64_t lo = (a.lo == kNeg || b.hi == kPos) ? kNeg : sat(static_cast<i128>(a.lo) - b.hi);
  int64_t hi = (a.hi == kPos || b.lo == kNeg) ? kPos : sat(static_cast<i128>(a.hi) - b.lo);
  return {lo, hi};
}

Interval iv_mul(Interval a, Interval b) {
  if (a.exact() && a.lo == 0) return Interval::point(0);
  if (b.exact() && b.lo == 0) return Interval::point(0);
  return from_corners(mul_end(a.lo, b.lo), mul_end(a.lo, b.hi), mul_end(a.hi, b.lo), mul_end(a.hi, b.hi));
}

Interval iv_floordiv(Interval a, Interval b) { return div_corners(a, b, DivKind::Floor); }
Interval iv_ceildiv(Interval a, Interval b) { return div_corners(a, b, DivKind::Ceil); }
Interval iv_divs(Interval a, Interval b) { return div_corners(a, b, DivKind::Trunc); }

Interval iv_rems(Interval a, Interval b) {
  if (a.exact() && b.exact() && b.lo != 0) return Interval::point(a.lo % b.lo);
  if (a.exact() && a.lo == 0) return Interval::point(0);
  if (!b.bounded() || (b.lo <= 0 && b.hi >= 0)) {
    if (a.lo >= 0) return {0, a.hi};
    return Interval::full();
  }
  int64_t m = std::max(b.hi < 0 ? -b.lo : b.hi, b.lo < 0 ? -b.lo : b.lo) - 1;
  if (a.lo >= 0) return {0, std::min(m, a.hi)};
  if (a.hi <= 0) return {std::max(-m, a.lo), 0};
  return {-m, m};
}

Interval iv_mod(Interval a, Interval b) {
  if (!b.exact() || b.lo <= 0) return b.bounded() && b.lo > 0 ? Interval{0, b.hi - 1} : Interval::full();
  int64_t m = b.lo;
  if (a.bounded() && floor_div(a.lo, m) == floor_div(a.hi, m)) {
    i128 base = floor_div(a.lo, m) * m;
    return {sat(a.lo - base), sat(a.hi - base)};
  }
  return {0, m - 1};
}

Interval iv_min(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; }
Interval iv_max(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }
Interval iv_union(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
Interval iv_clamp_nonneg(Interval a) { return {std::max<int64_t>(a.lo, 0), std::max<int64_t>(a.hi, 0)}; }

//===----------------------------------------------------------------------===//
// Affine maps
//===----------------------------------------------------------------------===//

class AffineParser {
 public:
  AffineParser(std::string_view s, AffineMap &map) : s_(s), map_(map) {}

  bool parse(std::string *error) {
    skip();
    if (s_.substr(p_, 10) == "affine_map") {
      p_ += 10;
      if (!eat('<')) return fail(error, "expected '<' after affine_map");
    }
    if (!eat('(')) return fail(error, "expected '(' starting the dimension list");
    if (!ids(')', 'd', dims_)) return fail(error, "malformed dimension list");
    if (eat('[')) {
      if (!ids(']', 's', syms_)) return fail(error, "malformed symbol list");
    }
    map_.num_dims_ = static_cast<uint32_t>(dims_.size());
    map_.num_syms_ = static_cast<uint32_t>(syms_.size());
    skip();
    if (s_.substr(p_, 2) != "->") return fail(error, "expected '->'");
    p_ += 2;
    if (!eat('(')) return fail(error, "expected '(' starting the results");
    if (eat(')')) return true;
    while (true) {
      auto e = expr();
      if (!e) return fail(error, "malformed affine expression near offset " + std::to_string(p_));
      map_.results_.push_back(*e);
      if (eat(',')) continue;
      if (eat(')')) return true;
      return fail(error, "expected ',' or ')' in the results");
    }
  }

 private:
  static bool fail(std::string *error, const std::string &msg) {
    if (error != nullptr) *error = msg;
    return false;
  }
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool eat_word(std::string_view w) {
    skip();
    if (s_.substr(p_, w.size()) == w &&
        (p_ + w.size() >= s_.size() || !std::isalnum(static_cast<unsigned char>(s_[p_ + w.size()])))) {
      p_ += w.size();
      return true;
    }
    return false;
  }
  std::string_view ident() {
    skip();
    size_t b = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) ++p_;
    return s_.substr(b, p_ - b);
  }
  bool ids(char close, char, std::vector<std::string_view> &out) {
    if (eat(close)) return true;
    while (true) {
      std::string_view id = ident();
      if (id.empty()) return false;
      out.push_back(id);
      if (eat(',')) continue;
      return eat(close);
    }
  }
  uint32_t add(AffineMap::Kind k, int64_t v, uint32_t l = 0, uint32_t r = 0) {
    map_.nodes_.push_back({k, v, l, r});
    return static_cast<uint32_t>(map_.nodes_.size() - 1);
  }
  std::optional<uint32_t> expr() {
    auto lhs = term();
    if (!lhs) return std::nullopt;
    while (true) {
      if (eat('+')) {
        auto rhs = term();
        if (!rhs) return std::nullopt;
        lhs = add(AffineMap::Kind::Add, 0, *lhs, *rhs);
      } else if (peek_minus()) {
        ++p_;
        auto rhs = term();
        if (!rhs) return std::nullopt;
        uint32_t neg = add(AffineMap::Kind::Mul, 0, *rhs, add(AffineMap::Kind::Const, -1));
        lhs = add(AffineMap::Kind::Add, 0, *lhs, neg);
      } else {
        return lhs;
      }
    }
  }
  bool peek_minus() {
    skip();
    return p_ < s_.size() && s_[p_] == '-' && (p_ + 1 >= s_.size() || s_[p_ + 1] != '>');
  }
  std::optional<uint32_t> term() {
    auto lhs = factor();
    if (!lhs) return std::nullopt;
    while (true) {
      AffineMap::Kind k;
      if (eat('*')) k = AffineMap::Kind::Mul;
      else if (eat_word("floordiv")) k = AffineMap::Kind::FloorDiv;
      else if (eat_word("ceildiv")) k = AffineMap::Kind::CeilDiv;
      else if (eat_word("mod")) k = AffineMap::Kind::Mod;
      else return lhs;
      auto rhs = factor();
      if (!rhs) return std::nullopt;
      lhs = add(k, 0, *lhs, *rhs);
    }
  }
  std::optional<uint32_t> factor() {
    skip();
    if (p_ >= s_.size()) return std::nullopt;
    if (s_[p_] == '-') {
      ++p_;
      auto f = factor();
      if (!f) return std::nullopt;
      return add(AffineMap::Kind::Mul, 0, *f, add(AffineMap::Kind::Const, -1));
    }
    if (s_[p_] == '(') {
      ++p_;
      auto e = expr();
      if (!e || !eat(')')) return std::nullopt;
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(s_[p_]))) {
      int64_t v = 0;
      auto [q, ec] = std::from_chars(s_.data() + p_, s_.data() + s_.size(), v);
      if (ec != std::errc()) return std::nullopt;
      p_ = static_cast<size_t>(q - s_.data());
      return add(AffineMap::Kind::Const, v);
    }
    std::string_view id = ident();
    if (id.empty()) return std::nullopt;
    for (size_t idx = 0; idx < dims_.size(); ++idx)
      if (dims_[idx] == id) return add(AffineMap::Kind::Dim, static_cast<int64_t>(idx));
    for (size_t idx = 0; idx < syms_.size(); ++idx)
      if (syms_[idx] == id) return add(AffineMap::Kind::Sym, static_cast<int64_t>(idx));
    return std::nullopt;
  }

  std::string_view s_;
  size_t p_ = 0;
  AffineMap &map_;
  std::vector<std::string_view> dims_, syms_;
};

std::optional<AffineMap> AffineMap::parse(std::string_view text, std::string *error) {
  AffineMap map;
  AffineParser parser(text, map);
  if (!parser.parse(error)) return std::nullopt;
  return map;
}

Interval AffineMap::eval_node(uint32_t node, std::span<const Interval> operands) const {
  const Node &n = nodes_[node];
  switch (n.kind) {
    case Kind::Const: return Interval::point(n.value);
    case Kind::Dim: {
      auto idx = static_cast<size_t>(n.value);
      return idx < operands.size() ? operands[idx] : Interval::full();
    }
    case Kind::Sym: {
      auto idx = static_cast<size_t>(n.value) + num_dims_;
      return idx < operands.size() ? operands[idx] : Interval::full();
    }
    case Kind::Add: return iv_add(eval_node(n.lhs, operands), eval_node(n.rhs, operands));
    case Kind::Mul: return iv_mul(eval_node(n.lhs, operands), eval_node(n.rhs, operands));
    case Kind::FloorDiv: return iv_floordiv(eval_node(n.lhs, operands), eval_node(n.rhs, operands));
    case Kind::CeilDiv: return iv_ceildiv(eval_node(n.lhs, operands), eval_node(n.rhs, operands));
    case Kind::Mod: return iv_mod(eval_node(n.lhs, operands), eval_node(n.rhs, operands));
  }
  return Interval::full();
}

Interval AffineMap::eval(size_t idx, std::span<const Interval> operands) const {
  if (idx >= results_.size()) return Interval::full();
  return eval_node(results_[idx], operands);
}

uint32_t AffineMap::count_node(uint32_t node) const {
  const Node &n = nodes_[node];
  switch (n.kind) {
    case Kind::Const:
    case Kind::Dim:
    case Kind::Sym: return 0;
    case Kind::Mul:
      // A negation (x * -1) folded into a subtraction costs nothing extra.
      if (nodes_[n.rhs].kind == Kind::Const && nodes_[n.rhs].value == -1) return count_node(n.lhs);
      return 1 + count_node(n.lhs) + count_node(n.rhs);
    default: return 1 + count_node(n.lhs) + count_node(n.rhs);
  }
}

uint32_t AffineMap::op_count(size_t idx) const { return idx < results_.size() ? count_node(results_[idx]) : 0; }

}  // namespace pb::hivm
