//===- sym_expr.cpp - symbolic integer expressions over a Triton program --===//
#include "sym_expr.hpp"

#include <algorithm>
#include <limits>
#include <set>

namespace perfbound::ttir {

namespace {

bool is_leaf(ExprOp op) { return op <= ExprOp::Opaque; }

bool is_commutative(ExprOp op) {
  switch (op) {
    case ExprOp::Add:
    case ExprOp::Mul:
    case ExprOp::MinS:
    case ExprOp::MaxS:
    case ExprOp::MinU:
    case ExprOp::MaxU:
    case ExprOp::And:
    case ExprOp::Or:
    case ExprOp::Xor:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool compare_values(CmpPred pred, std::int64_t a, std::int64_t b) {
  auto ua = static_cast<std::uint64_t>(a);
  auto ub = static_cast<std::uint64_t>(b);
  switch (pred) {
    case CmpPred::Eq: return a == b;
    case CmpPred::Ne: return a != b;
    case CmpPred::Slt: return a < b;
    case CmpPred::Sle: return a <= b;
    case CmpPred::Sgt: return a > b;
    case CmpPred::Sge: return a >= b;
    case CmpPred::Ult: return ua < ub;
    case CmpPred::Ule: return ua <= ub;
    case CmpPred::Ugt: return ua > ub;
    case CmpPred::Uge: return ua >= ub;
  }
  return false;
}

namespace {

CmpPred inverse(CmpPred pred) {
  switch (pred) {
    case CmpPred::Eq: return CmpPred::Ne;
    case CmpPred::Ne: return CmpPred::Eq;
    case CmpPred::Slt: return CmpPred::Sge;
    case CmpPred::Sle: return CmpPred::Sgt;
    case CmpPred::Sgt: return CmpPred::Sle;
    case CmpPred::Sge: return CmpPred::Slt;
    case CmpPred::Ult: return CmpPred::Uge;
    case CmpPred::Ule: return CmpPred::Ugt;
    case CmpPred::Ugt: return CmpPred::Ule;
    case CmpPred::Uge: return CmpPred::Ult;
  }
  return pred;
}

}  // namespace

std::optional<std::int64_t> apply_binary(ExprOp op, std::int64_t a, std::int64_t b) {
  auto ua = static_cast<std::uint64_t>(a);
  auto ub = static_cast<std::uint64_t>(b);
  switch (op) {
    case ExprOp::Add: return static_cast<std::int64_t>(ua + ub);
    case ExprOp::Sub: return static_cast<std::int64_t>(ua - ub);
    case ExprOp::Mul: return static_cast<std::int64_t>(ua * ub);
    case ExprOp::DivS:
      if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) return std::nullopt;
      return a / b;
    case ExprOp::DivU:
      if (b == 0) return std::nullopt;
      return static_cast<std::int64_t>(ua / ub);
    case ExprOp::FloorDivS:
      if (b == 0) return std::nullopt;
      return floor_div(a, b);
    case ExprOp::CeilDivS:
      if (b == 0) return std::nullopt;
      return ceil_div(a, b);
    case ExprOp::CeilDivU:
      if (b == 0) return std::nullopt;
      return static_cast<std::int64_t>(ua / ub + (ua % ub != 0 ? 1 : 0));
    case ExprOp::RemS:
      if (b == 0 || b == -1) return b == -1 ? std::optional<std::int64_t>(0) : std::nullopt;
      return a % b;
    case ExprOp::RemU:
      if (b == 0) return std::nullopt;
      return static_cast<std::int64_t>(ua % ub);
    case ExprOp::MinS: return std::min(a, b);
    case ExprOp::MaxS: return std::max(a, b);
    case ExprOp::MinU: return static_cast<std::int64_t>(std::min(ua, ub));
    case ExprOp::MaxU: return static_cast<std::int64_t>(std::max(ua, ub));
    case ExprOp::And: return a & b;
    case ExprOp::Or: return a | b;
    case ExprOp::Xor: return a ^ b;
    case ExprOp::Shl:
      if (b < 0 || b > 63) return std::nullopt;
      return static_cast<std::int64_t>(ua << b);
    case ExprOp::ShrS:
      if (b < 0 || b > 63) return std::nullopt;
      return a >> b;
    case ExprOp::ShrU:
      if (b < 0 || b > 63) return std::nullopt;
      return static_cast<std::int64_t>(ua >> b);
    default:
      return std::nullopt;
  }
}

namespace {

void poly_add(Poly &into, const Poly &other, std::int64_t scale) {
  for (const auto &[mono, coeff] : other) {
    std::int64_t &slot = into[mono];
    slot += coeff * scale;
    if (slot == 0) into.erase(mono);
  }
}

constexpr size_t kMaxPolyTerms = 64;

}  // namespace

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}

//===----------------------------------------------------------------------===//
// ExprPool
//===----------------------------------------------------------------------===//

size_t ExprPool::KeyHash::operator()(const ExprNode &n) const {
  size_t h = static_cast<size_t>(n.op);
  auto mix = [&h](std::uint64_t v) { h ^= static_cast<size_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(static_cast<std::uint64_t>(n.value));
  mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(n.a)));
  mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(n.b)));
  mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(n.c)));
  return h;
}

bool ExprPool::KeyEq::operator()(const ExprNode &x, const ExprNode &y) const {
  return x.op == y.op && x.value == y.value && x.a == y.a && x.b == y.b && x.c == y.c;
}

ExprPool::ExprPool() { nodes_.reserve(256); }

ExprId ExprPool::intern(const ExprNode &n) {
  auto it = interned_.find(n);
  if (it != interned_.end()) return it->second;
  auto id = static_cast<ExprId>(nodes_.size());
  nodes_.push_back(n);
  interned_.emplace(n, id);
  return id;
}

ExprId ExprPool::leaf(ExprOp op, std::int64_t value) {
  ExprNode n;
  n.op = op;
  n.value = value;
  return intern(n);
}

ExprId ExprPool::constant(std::int64_t value) { return leaf(ExprOp::Const, value); }

ExprId ExprPool::dim(int d) {
  ExprNode n;
  n.op = ExprOp::Dim;
  n.value = d;
  n.dims = d < 32 ? (1u << d) : 0xffffffffu;
  return intern(n);
}

ExprId ExprPool::placeholder(std::uint32_t dims) {
  ExprNode n;
  n.op = ExprOp::Placeholder;
  n.value = static_cast<std::int64_t>(bindings_.size());
  n.dims = dims;
  bindings_.push_back(kNoExpr);
  bound_height_.push_back(0);
  auto id = static_cast<ExprId>(nodes_.size());
  nodes_.push_back(n);
  return id;
}

ExprId ExprPool::opaque(std::string reason, int line, std::uint32_t dims) {
  ExprNode n;
  n.op = ExprOp::Opaque;
  n.value = static_cast<std::int64_t>(opaques_.size());
  n.dims = dims;
  opaques_.push_back({std::move(reason), line});
  auto id = static_cast<ExprId>(nodes_.size());
  nodes_.push_back(n);
  return id;
}

ExprId ExprPool::opaque_load(std::string reason, int line, int ttir_line, int arg, ExprId offset) {
  ExprId id = opaque(std::move(reason), line, 0);
  OpaqueInfo &info = opaques_.back();
  info.load_arg = arg;
  info.load_offset = offset;
  info.ttir_line = ttir_line;
  return id;
}

const OpaqueInfo &ExprPool::opaque_info(ExprId e) const {
  return opaques_[static_cast<size_t>(node(e).value)];
}

bool ExprPool::is_const(ExprId e, std::int64_t *value) const {
  e = resolve(e);
  if (e == kNoExpr || node(e).op != ExprOp::Const) return false;
  if (value != nullptr) *value = node(e).value;
  return true;
}

bool ExprPool::bind(ExprId placeholder, ExprId value) {
  const ExprNode &n = node(placeholder);
  if (n.op != ExprOp::Placeholder) return false;
  const auto index = static_cast<size_t>(n.value);
  if (value != kNoExpr && contains(value, placeholder)) {
    // A cycle: resolve() would lead from the placeholder back to itself and
    // every walk below it would recurse without end.
    value = opaque("a loop-carried value defined in terms of itself", 0, n.dims);
    bindings_[index] = value;
    return false;
  }
  bindings_[index] = value;
  bound_height_[index] = static_cast<std::uint16_t>(std::min(height(value), 0xffff));
  return true;
}

int ExprPool::height(ExprId e) const {
  if (e == kNoExpr) return 0;
  const ExprNode &n = node(e);
  if (n.op == ExprOp::Placeholder) return std::max<int>(n.height, bound_height_[static_cast<size_t>(n.value)]);
  return n.height;
}

bool ExprPool::is_bound(ExprId placeholder) const {
  const ExprNode &n = node(placeholder);
  return n.op == ExprOp::Placeholder && bindings_[static_cast<size_t>(n.value)] != kNoExpr;
}

ExprId ExprPool::resolve(ExprId e) const {
  while (e != kNoExpr) {
    const ExprNode &n = nodes_[static_cast<size_t>(e)];
    if (n.op != ExprOp::Placeholder) return e;
    ExprId bound = bindings_[static_cast<size_t>(n.value)];
    if (bound == kNoExpr) return e;
    e = bound;
  }
  return e;
}

ExprId ExprPool::fold(ExprOp op, std::int64_t a, std::int64_t b) {
  std::optional<std::int64_t> v = apply_binary(op, a, b);
  if (!v) return opaque("division by zero or shift out of range in a constant expression", 0);
  return constant(*v);
}

ExprId ExprPool::binary(ExprOp op, ExprId a, ExprId b) {
  std::int64_t va = 0;
  std::int64_t vb = 0;
  bool ca = is_const(a, &va);
  bool cb = is_const(b, &vb);
  if (ca && cb) return fold(op, va, vb);
  if (is_commutative(op) && (ca || (!cb && a > b))) {
    std::swap(a, b);
    std::swap(va, vb);
    std::swap(ca, cb);
  }
  // Now, for commutative ops, a constant operand is `b`.
  switch (op) {
    case ExprOp::Add:
    case ExprOp::Or:
    case ExprOp::Xor:
      if (cb && vb == 0) return a;
      break;
    case ExprOp::Sub:
      if (cb && vb == 0) return a;
      if (a == b) return constant(0);
      break;
    case ExprOp::Mul:
      if (cb && vb == 1) return a;
      if (cb && vb == 0) return constant(0);
      break;
    case ExprOp::And:
      if (cb && vb == 0) return constant(0);
      if (a == b) return a;
      break;
    case ExprOp::Shl:
    case ExprOp::ShrS:
    case ExprOp::ShrU:
      if (cb && vb == 0) return a;
      break;
    case ExprOp::DivS:
    case ExprOp::DivU:
    case ExprOp::FloorDivS:
    case ExprOp::CeilDivS:
    case ExprOp::CeilDivU:
    case ExprOp::RemS:
    case ExprOp::RemU: {
      if (!cb || vb <= 0) break;
      bool is_rem = op == ExprOp::RemS || op == ExprOp::RemU;
      if (vb == 1) return is_rem ? constant(0) : a;
      // An exactly divisible polynomial divides (or has remainder 0).
      Poly p = to_poly(a);
      bool divisible = !p.empty();
      for (const auto &[mono, coeff] : p) divisible = divisible && coeff % vb == 0;
      if (divisible) {
        if (is_rem) return constant(0);
        for (auto &[mono, coeff] : p) coeff /= vb;
        return from_poly(p);
      }
      break;
    }
    case ExprOp::MinS:
    case ExprOp::MaxS:
    case ExprOp::MinU:
    case ExprOp::MaxU:
      if (a == b) return a;
      break;
    default:
      break;
  }
  return intern_binary(op, 0, a, b);
}

ExprId ExprPool::intern_binary(ExprOp op, std::int64_t value, ExprId a, ExprId b) {
  ExprNode n;
  n.op = op;
  n.value = value;
  n.a = a;
  n.b = b;
  n.dims = node(a).dims | node(b).dims;
  n.height = static_cast<std::uint16_t>(std::min(1 + std::max(height(a), height(b)), 0xffff));
  return intern(n);
}

ExprId ExprPool::cmp(CmpPred pred, ExprId a, ExprId b) {
  std::int64_t va = 0;
  std::int64_t vb = 0;
  if (is_const(a, &va) && is_const(b, &vb)) return constant(compare_values(pred, va, vb) ? 1 : 0);
  return intern_binary(ExprOp::Cmp, static_cast<std::int64_t>(pred), a, b);
}

ExprId ExprPool::select(ExprId cond, ExprId if_true, ExprId if_false) {
  std::int64_t vc = 0;
  if (is_const(cond, &vc)) return vc != 0 ? if_true : if_false;
  if (if_true == if_false) return if_true;
  ExprNode n;
  n.op = ExprOp::Select;
  n.a = cond;
  n.b = if_true;
  n.c = if_false;
  n.dims = node(cond).dims | node(if_true).dims | node(if_false).dims;
  n.height = static_cast<std::uint16_t>(
      std::min(1 + std::max({height(cond), height(if_true), height(if_false)}), 0xffff));
  return intern(n);
}

ExprId ExprPool::logical_and(ExprId a, ExprId b) {
  if (a == kNoExpr) return b;
  if (b == kNoExpr) return a;
  std::int64_t v = 0;
  if (is_const(a, &v)) return v != 0 ? b : constant(0);
  if (is_const(b, &v)) return v != 0 ? a : constant(0);
  return binary(ExprOp::And, a, b);
}

ExprId ExprPool::logical_not(ExprId a) {
  std::int64_t v = 0;
  if (is_const(a, &v)) return constant(v != 0 ? 0 : 1);
  const ExprNode &n = node(resolve(a));
  if (n.op == ExprOp::Cmp) return cmp(inverse(static_cast<CmpPred>(n.value)), n.a, n.b);
  return binary(ExprOp::Xor, a, constant(1));
}

ExprId ExprPool::trip_count(ExprId lb, ExprId ub, ExprId step) {
  return binary(ExprOp::MaxS, constant(0), binary(ExprOp::CeilDivS, sub(ub, lb), step));
}

ExprId ExprPool::remap_dims(ExprId e, const std::vector<ExprId> &new_for_old) {
  std::uint32_t touched = 0;
  for (size_t d = 0; d < new_for_old.size() && d < 32; ++d)
    if (new_for_old[d] != kNoExpr) touched |= 1u << d;
  std::unordered_map<ExprId, ExprId> memo;
  int depth = 0;
  std::function<ExprId(ExprId)> rewrite = [&](ExprId id) -> ExprId {
    id = resolve(id);
    if ((node(id).dims & touched) == 0) return id;
    auto it = memo.find(id);
    if (it != memo.end()) return it->second;
    DepthGuard guard(depth);
    const ExprNode n = node(id);  // copy: the pool grows below
    ExprId out = id;
    if (guard.too_deep()) {
      out = opaque(kTooDeepReason, 0, n.dims);
      memo.emplace(id, out);
      return out;
    }
    switch (n.op) {
      case ExprOp::Dim:
        out = static_cast<size_t>(n.value) < new_for_old.size() && new_for_old[static_cast<size_t>(n.value)] != kNoExpr
                  ? new_for_old[static_cast<size_t>(n.value)]
                  : id;
        break;
      case ExprOp::Placeholder:
        out = opaque("a loop-carried tensor whose dimensions are rearranged inside the loop is not modelled", 0);
        break;
      case ExprOp::Cmp:
        out = cmp(static_cast<CmpPred>(n.value), rewrite(n.a), rewrite(n.b));
        break;
      case ExprOp::Select:
        out = select(rewrite(n.a), rewrite(n.b), rewrite(n.c));
        break;
      default:
        if (!is_leaf(n.op)) out = binary(n.op, rewrite(n.a), rewrite(n.b));
        break;
    }
    memo.emplace(id, out);
    return out;
  };
  return rewrite(e);
}

Poly ExprPool::to_poly(ExprId e) const {
  std::unordered_map<ExprId, Poly> memo;
  int depth = 0;
  std::function<const Poly &(ExprId)> convert = [&](ExprId id) -> const Poly & {
    id = resolve(id);
    auto it = memo.find(id);
    if (it != memo.end()) return it->second;
    DepthGuard guard(depth);
    const ExprNode &n = node(id);
    Poly p;
    auto atom = [&]() { p = Poly{{Monomial{id}, 1}}; };
    // Too deep: the node stays an atom (always a correct polynomial form).
    switch (guard.too_deep() ? ExprOp::Opaque : n.op) {
      case ExprOp::Const:
        if (n.value != 0) p[{}] = n.value;
        break;
      case ExprOp::Add:
        p = convert(n.a);
        poly_add(p, convert(n.b), 1);
        break;
      case ExprOp::Sub:
        p = convert(n.a);
        poly_add(p, convert(n.b), -1);
        break;
      case ExprOp::Mul: {
        const Poly &pa = convert(n.a);
        const Poly &pb = convert(n.b);
        if (pa.size() * pb.size() > kMaxPolyTerms) {
          atom();
          break;
        }
        for (const auto &[ma, ca] : pa)
          for (const auto &[mb, cb] : pb) {
            Monomial m = ma;
            m.insert(m.end(), mb.begin(), mb.end());
            std::sort(m.begin(), m.end());
            std::int64_t &slot = p[m];
            slot += ca * cb;
            if (slot == 0) p.erase(m);
          }
        break;
      }
      case ExprOp::Shl: {
        std::int64_t k = 0;
        if (is_const(n.b, &k) && k >= 0 && k < 62) {
          p = convert(n.a);
          for (auto &[mono, coeff] : p) coeff *= std::int64_t{1} << k;
        } else {
          atom();
        }
        break;
      }
      default:
        atom();
        break;
    }
    return memo.emplace(id, std::move(p)).first->second;
  };
  return convert(e);
}

ExprId ExprPool::from_poly(const Poly &poly) {
  ExprId sum = constant(0);
  for (const auto &[mono, coeff] : poly) {
    ExprId term = constant(coeff);
    if (!mono.empty()) {
      ExprId product = mono.front();
      for (size_t idx = 1; idx < mono.size(); ++idx) product = mul(product, mono[idx]);
      term = mul(product, constant(coeff));
    }
    sum = add(sum, term);
  }
  return sum;
}

Poly ExprPool::difference(ExprId e1, ExprId e2) const {
  Poly p = to_poly(e1);
  poly_add(p, to_poly(e2), -1);
  return p;
}

bool ExprPool::contains_if(ExprId e, const std::function<bool(const ExprNode &, ExprId)> &pred,
                           bool through_loads) const {
  std::vector<ExprId> stack{e};
  std::set<ExprId> seen;
  while (!stack.empty()) {
    ExprId id = stack.back();
    stack.pop_back();
    if (id == kNoExpr) continue;
    const ExprNode &raw = node(id);
    if (pred(raw, id)) return true;
    ExprId r = resolve(id);
    if (r != id) {
      stack.push_back(r);
      continue;
    }
    if (!seen.insert(id).second) continue;
    if (through_loads && raw.op == ExprOp::Opaque) stack.push_back(opaque_info(id).load_offset);
    if (!is_leaf(raw.op)) {
      stack.push_back(raw.a);
      stack.push_back(raw.b);
      if (raw.op == ExprOp::Select) stack.push_back(raw.c);
    }
  }
  return false;
}

bool ExprPool::contains(ExprId e, ExprId target, bool through_loads) const {
  return contains_if(e, [target](const ExprNode &, ExprId id) { return id == target; }, through_loads);
}

ExprId ExprPool::first_opaque(ExprId e) const {
  ExprId found = kNoExpr;
  (void)contains_if(e, [&found, this](const ExprNode &n, ExprId id) {
    if (n.op == ExprOp::Opaque || (n.op == ExprOp::Placeholder && !is_bound(id))) {
      found = id;
      return true;
    }
    return false;
  });
  return found;
}

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

EvalResult Evaluator::eval(ExprId e, const EvalEnv &env) {
  if (stamp_.size() < pool_.size()) {
    stamp_.resize(pool_.size(), 0);
    memo_.resize(pool_.size());
  }
  if (++generation_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    generation_ = 1;
  }
  return eval_node(e, env);
}

EvalResult Evaluator::eval_node(ExprId e, const EvalEnv &env) {
  if (e == kNoExpr) return {};
  e = pool_.resolve(e);
  auto slot = static_cast<size_t>(e);
  if (stamp_[slot] == generation_) return memo_[slot];
  DepthGuard guard(depth_);
  if (guard.too_deep()) return EvalResult{std::nullopt, e};  // not memoised: a shallower path may decide it
  const ExprNode &n = pool_.node(e);
  EvalResult r;
  auto fail = [&](ExprId blame) { r.value.reset(); r.blame = blame; };
  switch (n.op) {
    case ExprOp::Const: r.value = n.value; break;
    case ExprOp::Arg:
      if (env.args != nullptr && static_cast<size_t>(n.value) < env.args->size() &&
          (*env.args)[static_cast<size_t>(n.value)])
        r.value = *(*env.args)[static_cast<size_t>(n.value)];
      else
        fail(e);
      break;
    case ExprOp::Pid: r.value = env.pid[n.value]; break;
    case ExprOp::NumPrograms: r.value = env.num_programs[n.value]; break;
    case ExprOp::LoopIter:
      if (static_cast<size_t>(n.value) < env.loop_iters.size() && env.loop_iters[static_cast<size_t>(n.value)])
        r.value = *env.loop_iters[static_cast<size_t>(n.value)];
      else
        fail(e);
      break;
    case ExprOp::Dim:
      if (env.dims != nullptr && static_cast<size_t>(n.value) < env.dims->size())
        r.value = (*env.dims)[static_cast<size_t>(n.value)];
      else
        fail(e);
      break;
    case ExprOp::Placeholder:
      fail(e);
      break;
    case ExprOp::Opaque: {
      // A load at a known index of user-given data reads the element.
      const OpaqueInfo &info = pool_.opaque_info(e);
      fail(e);
      if (env.data == nullptr || info.load_arg < 0) break;
      auto data = env.data->find(info.load_arg);
      if (data == env.data->end()) break;
      EvalResult index = eval_node(info.load_offset, env);
      if (!index.value) {
        r = index;
        break;
      }
      auto size = static_cast<std::int64_t>(data->second.size());
      if (*index.value < 0 || *index.value >= size) {
        if (!range_error_) range_error_ = DataRangeError{e, *index.value, size};
        break;
      }
      r.value = data->second[static_cast<size_t>(*index.value)];
      r.blame = kNoExpr;
      data_reads_.insert(info.load_arg);
      break;
    }
    case ExprOp::Select: {
      EvalResult c = eval_node(n.a, env);
      if (!c.value)
        r = c;
      else
        r = eval_node(*c.value != 0 ? n.b : n.c, env);
      break;
    }
    case ExprOp::Cmp: {
      EvalResult a = eval_node(n.a, env);
      EvalResult b = eval_node(n.b, env);
      if (!a.value) r = a;
      else if (!b.value) r = b;
      else r.value = compare_values(static_cast<CmpPred>(n.value), *a.value, *b.value) ? 1 : 0;
      break;
    }
    default: {
      EvalResult a = eval_node(n.a, env);
      // x * 0 and x & 0 are 0 whatever x is.
      if ((n.op == ExprOp::Mul || n.op == ExprOp::And) && a.value && *a.value == 0) {
        r.value = 0;
        break;
      }
      EvalResult b = eval_node(n.b, env);
      if ((n.op == ExprOp::Mul || n.op == ExprOp::And) && b.value && *b.value == 0) {
        r.value = 0;
        break;
      }
      if (!a.value) {
        r = a;
      } else if (!b.value) {
        r = b;
      } else {
        r.value = apply_binary(n.op, *a.value, *b.value);
        if (!r.value) r.blame = e;
      }
      break;
    }
  }
  stamp_[slot] = generation_;
  memo_[slot] = r;
  return r;
}

}  // namespace perfbound::ttir
