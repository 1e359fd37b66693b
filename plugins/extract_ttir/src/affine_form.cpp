//===- affine_form.cpp - expressions made affine for one program ----------===//
//
// AffineForm, Concretizer and mask_constraints (declared in sym_expr.hpp):
// an element offset or a mask, with the launch values and fixed loop
// counters substituted, as an affine form in the tile dimensions and the
// free loop counters (with their ranges), or the reason it is not one.
// UniqueBytes enumerates the rows of these forms.
//
//===----------------------------------------------------------------------===//
#include "sym_expr.hpp"

#include <algorithm>
#include <limits>

namespace perfbound::ttir {

std::int64_t AffineForm::coeff(int var) const {
  for (const auto &[v, c] : terms)
    if (v == var) return c;
  return 0;
}

namespace {

AffineForm combine(const AffineForm &x, const AffineForm &y, std::int64_t scale_y) {
  AffineForm out;
  out.c0 = x.c0 + scale_y * y.c0;
  size_t ix = 0;
  size_t iy = 0;
  while (ix < x.terms.size() || iy < y.terms.size()) {
    if (iy >= y.terms.size() || (ix < x.terms.size() && x.terms[ix].first < y.terms[iy].first)) {
      out.terms.push_back(x.terms[ix++]);
    } else if (ix >= x.terms.size() || y.terms[iy].first < x.terms[ix].first) {
      out.terms.emplace_back(y.terms[iy].first, scale_y * y.terms[iy].second);
      ++iy;
    } else {
      std::int64_t c = x.terms[ix].second + scale_y * y.terms[iy].second;
      if (c != 0) out.terms.emplace_back(x.terms[ix].first, c);
      ++ix;
      ++iy;
    }
  }
  return out;
}

AffineForm scaled(const AffineForm &x, std::int64_t s) {
  AffineForm out;
  if (s == 0) return out;
  out.c0 = x.c0 * s;
  for (const auto &[v, c] : x.terms) out.terms.emplace_back(v, c * s);
  return out;
}

AffineForm constant_form(std::int64_t v) {
  AffineForm f;
  f.c0 = v;
  return f;
}

}  // namespace

bool Concretizer::run(ExprId e, const EvalEnv &env, const VarRange &ranges, AffineForm &out,
                      AffineFailure &failure) {
  env_ = &env;
  ranges_ = &ranges;
  memo_.clear();
  failure_ = {};
  bool ok = visit(e, out);
  if (!ok) failure = failure_;
  return ok;
}

bool Concretizer::range_of(const AffineForm &f, std::int64_t &lo, std::int64_t &hi) const {
  lo = hi = f.c0;
  for (const auto &[var, c] : f.terms) {
    auto r = (*ranges_)(var);
    if (!r) return false;
    if (c >= 0) {
      lo += c * r->first;
      hi += c * r->second;
    } else {
      lo += c * r->second;
      hi += c * r->first;
    }
  }
  return true;
}

bool Concretizer::visit(ExprId e, AffineForm &out) {
  e = pool_.resolve(e);
  auto it = memo_.find(e);
  if (it != memo_.end() && it->second.done) {
    out = it->second.form;
    return it->second.ok;
  }
  const ExprNode n = pool_.node(e);
  auto fail = [&](ExprId blame, std::string why) {
    if (failure_.blame == kNoExpr) {
      failure_.blame = blame;
      failure_.why = std::move(why);
    }
    return false;
  };
  DepthGuard guard(depth_);
  if (guard.too_deep()) return fail(e, kTooDeepReason);
  bool ok = true;
  AffineForm result;
  switch (n.op) {
    case ExprOp::Const: result = constant_form(n.value); break;
    case ExprOp::Arg: {
      const auto *args = env_->args;
      if (args != nullptr && static_cast<size_t>(n.value) < args->size() && (*args)[static_cast<size_t>(n.value)]) {
        result = constant_form(*(*args)[static_cast<size_t>(n.value)]);
      } else {
        std::string name = namer_.arg ? namer_.arg(static_cast<int>(n.value)) : "%arg" + std::to_string(n.value);
        ok = fail(e, "the launch value of argument '" + name + "' is not given");
      }
      break;
    }
    case ExprOp::Pid: result = constant_form(env_->pid[n.value]); break;
    case ExprOp::NumPrograms: result = constant_form(env_->num_programs[n.value]); break;
    case ExprOp::LoopIter:
      if (static_cast<size_t>(n.value) < env_->loop_iters.size() && env_->loop_iters[static_cast<size_t>(n.value)])
        result = constant_form(*env_->loop_iters[static_cast<size_t>(n.value)]);
      else
        result.terms.emplace_back(kLoopVar + static_cast<int>(n.value), 1);
      break;
    case ExprOp::Dim: result.terms.emplace_back(static_cast<int>(n.value), 1); break;
    case ExprOp::Placeholder: ok = fail(e, "a loop-carried value that is not an induction variable"); break;
    case ExprOp::Opaque: ok = fail(e, pool_.opaque_info(e).reason); break;
    case ExprOp::Add:
    case ExprOp::Sub: {
      AffineForm a;
      AffineForm b;
      ok = visit(n.a, a) && visit(n.b, b);
      if (ok) result = combine(a, b, n.op == ExprOp::Add ? 1 : -1);
      break;
    }
    case ExprOp::Mul: {
      AffineForm a;
      AffineForm b;
      ok = visit(n.a, a) && visit(n.b, b);
      if (!ok) break;
      if (a.is_constant())
        result = scaled(b, a.c0);
      else if (b.is_constant())
        result = scaled(a, b.c0);
      else
        ok = fail(e, "product of two varying terms: " + pool_.to_string(e, namer_));
      break;
    }
    case ExprOp::Select: {
      AffineForm c;
      ok = visit(n.a, c);
      if (!ok) break;
      if (!c.is_constant()) {
        std::int64_t lo = 0;
        std::int64_t hi = 0;
        if (range_of(c, lo, hi) && (lo > 0 || hi < 0 || (lo == 0 && hi == 0))) {
          c = constant_form(lo == 0 && hi == 0 ? 0 : 1);
        } else {
          ok = fail(e, "a select whose condition varies inside the tile: " + pool_.to_string(e, namer_));
          break;
        }
      }
      ok = visit(c.c0 != 0 ? n.b : n.c, result);
      break;
    }
    default: {
      AffineForm a;
      AffineForm b;
      ok = visit(n.a, a) && visit(n.b, b);
      if (!ok) break;
      if (a.is_constant() && b.is_constant()) {
        std::optional<std::int64_t> v;
        if (n.op == ExprOp::Cmp)
          v = compare_values(static_cast<CmpPred>(n.value), a.c0, b.c0) ? 1 : 0;
        else
          v = apply_binary(n.op, a.c0, b.c0);
        if (v)
          result = constant_form(*v);
        else
          ok = fail(e, "division by zero in " + pool_.to_string(e, namer_));
        break;
      }
      // Decide the operation from the ranges of the varying operand(s).
      std::int64_t alo = 0;
      std::int64_t ahi = 0;
      std::int64_t blo = 0;
      std::int64_t bhi = 0;
      bool ranged = range_of(a, alo, ahi) && range_of(b, blo, bhi);
      bool decided = false;
      if (ranged) {
        switch (n.op) {
          case ExprOp::DivS:
          case ExprOp::DivU:
          case ExprOp::FloorDivS:
          case ExprOp::ShrS:
          case ExprOp::ShrU: {
            if (!b.is_constant() || alo < 0) break;
            std::int64_t d = b.c0;
            if (n.op == ExprOp::ShrS || n.op == ExprOp::ShrU) {
              if (d < 0 || d > 62) break;
              d = std::int64_t{1} << d;
            }
            if (d <= 0) break;
            if (floor_div(alo, d) == floor_div(ahi, d)) {
              result = constant_form(floor_div(alo, d));
              decided = true;
            }
            break;
          }
          case ExprOp::CeilDivS:
          case ExprOp::CeilDivU:
            if (b.is_constant() && b.c0 > 0 && alo >= 0 && ceil_div(alo, b.c0) == ceil_div(ahi, b.c0)) {
              result = constant_form(ceil_div(alo, b.c0));
              decided = true;
            }
            break;
          case ExprOp::RemS:
          case ExprOp::RemU:
            if (b.is_constant() && b.c0 > 0 && alo >= 0 && floor_div(alo, b.c0) == floor_div(ahi, b.c0)) {
              result = combine(a, constant_form(floor_div(alo, b.c0) * b.c0), -1);
              decided = true;
            }
            break;
          case ExprOp::MinS:
          case ExprOp::MinU:
            if (ahi <= blo) { result = a; decided = true; }
            else if (bhi <= alo) { result = b; decided = true; }
            break;
          case ExprOp::MaxS:
          case ExprOp::MaxU:
            if (ahi <= blo) { result = b; decided = true; }
            else if (bhi <= alo) { result = a; decided = true; }
            break;
          case ExprOp::Cmp: {
            auto pred = static_cast<CmpPred>(n.value);
            bool always = false;
            bool never = false;
            switch (pred) {
              case CmpPred::Slt: case CmpPred::Ult: always = ahi < blo; never = alo >= bhi; break;
              case CmpPred::Sle: case CmpPred::Ule: always = ahi <= blo; never = alo > bhi; break;
              case CmpPred::Sgt: case CmpPred::Ugt: always = alo > bhi; never = ahi <= blo; break;
              case CmpPred::Sge: case CmpPred::Uge: always = alo >= bhi; never = ahi < blo; break;
              case CmpPred::Eq: never = ahi < blo || bhi < alo; break;
              case CmpPred::Ne: always = ahi < blo || bhi < alo; break;
            }
            if (always || never) {
              result = constant_form(always ? 1 : 0);
              decided = true;
            }
            break;
          }
          case ExprOp::And:
            if ((a.is_constant() && a.c0 == 0) || (b.is_constant() && b.c0 == 0)) {
              result = constant_form(0);
              decided = true;
            }
            break;
          default:
            break;
        }
      }
      if (!decided) ok = fail(e, "not affine in the tile indices: " + pool_.to_string(e, namer_));
      break;
    }
  }
  Slot &slot = memo_[e];
  slot.done = true;
  slot.ok = ok;
  slot.form = result;
  out = std::move(result);
  return ok;
}

namespace {

bool mask_constraints_at(const ExprPool &pool, Concretizer &concretizer, ExprId mask, const EvalEnv &env,
                         const VarRange &ranges, std::vector<LinearConstraint> &out, bool &never,
                         AffineFailure &failure, int &depth);

}  // namespace

bool mask_constraints(const ExprPool &pool, Concretizer &concretizer, ExprId mask, const EvalEnv &env,
                      const VarRange &ranges, std::vector<LinearConstraint> &out, bool &never,
                      AffineFailure &failure) {
  int depth = 0;
  return mask_constraints_at(pool, concretizer, mask, env, ranges, out, never, failure, depth);
}

namespace {

bool mask_constraints_at(const ExprPool &pool, Concretizer &concretizer, ExprId mask, const EvalEnv &env,
                         const VarRange &ranges, std::vector<LinearConstraint> &out, bool &never,
                         AffineFailure &failure, int &depth) {
  DepthGuard guard(depth);
  mask = pool.resolve(mask);
  if (guard.too_deep()) {
    failure.blame = mask;
    failure.why = kTooDeepReason;
    return false;
  }
  const ExprNode n = pool.node(mask);
  if (n.op == ExprOp::Const) {
    if (n.value == 0) never = true;
    return true;
  }
  if (n.op == ExprOp::And)
    return mask_constraints_at(pool, concretizer, n.a, env, ranges, out, never, failure, depth) &&
           mask_constraints_at(pool, concretizer, n.b, env, ranges, out, never, failure, depth);
  if (n.op == ExprOp::Cmp) {
    AffineForm a;
    AffineForm b;
    if (!concretizer.run(n.a, env, ranges, a, failure) || !concretizer.run(n.b, env, ranges, b, failure))
      return false;
    AffineForm d = combine(a, b, -1);  // a - b
    auto add = [&out](const AffineForm &f, std::int64_t bound) {
      // f <= bound, with f's constant moved to the right-hand side.
      LinearConstraint c;
      c.terms = f.terms;
      c.bound = bound - f.c0;
      out.push_back(std::move(c));
    };
    auto pred = static_cast<CmpPred>(n.value);
    if (d.is_constant()) {
      if (!compare_values(pred, d.c0, 0) && pred != CmpPred::Ult && pred != CmpPred::Ule && pred != CmpPred::Ugt &&
          pred != CmpPred::Uge)
        never = true;
      if (pred == CmpPred::Ult || pred == CmpPred::Ule || pred == CmpPred::Ugt || pred == CmpPred::Uge) {
        if (a.is_constant() && b.is_constant()) {
          if (!compare_values(pred, a.c0, b.c0)) never = true;
          return true;
        }
      } else {
        return true;
      }
    }
    switch (pred) {
      case CmpPred::Slt: add(d, -1); break;
      case CmpPred::Sle: add(d, 0); break;
      case CmpPred::Sgt: add(scaled(d, -1), -1); break;
      case CmpPred::Sge: add(scaled(d, -1), 0); break;
      case CmpPred::Eq:
        add(d, 0);
        add(scaled(d, -1), 0);
        break;
      case CmpPred::Ult:  // 0 <= a < b (b a non-negative size)
        add(scaled(a, -1), 0);
        add(d, -1);
        break;
      case CmpPred::Ule:
        add(scaled(a, -1), 0);
        add(d, 0);
        break;
      case CmpPred::Ugt:  // b <u a  ==  0 <= b < a
        add(scaled(b, -1), 0);
        add(scaled(d, -1), -1);
        break;
      case CmpPred::Uge:
        add(scaled(b, -1), 0);
        add(scaled(d, -1), 0);
        break;
      case CmpPred::Ne:
        failure.blame = mask;
        failure.why = "a '!=' comparison in a mask is not modelled";
        return false;
    }
    return true;
  }
  AffineForm whole;
  if (!concretizer.run(mask, env, ranges, whole, failure)) return false;
  if (!whole.is_constant()) {
    failure.blame = mask;
    failure.why = "the mask is not a conjunction of comparisons";
    return false;
  }
  if (whole.c0 == 0) never = true;
  return true;
}

}  // namespace

}  // namespace perfbound::ttir
