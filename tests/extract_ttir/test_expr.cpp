//===- test_expr.cpp - symbolic index expressions: folding, forms, affinity
#include <doctest/doctest.h>

#include "sym_expr.hpp"

using namespace perfbound::ttir;

namespace {

ExprNamer names() {
  ExprNamer n;
  n.arg = [](int idx) { return idx == 0 ? std::string("K") : "%arg" + std::to_string(idx); };
  n.loop_iter = [](int loop) { return "t" + std::to_string(loop); };
  return n;
}

VarRange tile(std::int64_t size) {
  return [size](int var) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
    if (var == 0) return std::make_pair(std::int64_t{0}, size - 1);
    return std::nullopt;
  };
}

}  // namespace

TEST_CASE("expressions fold constants and trivial identities, and are hash-consed") {
  ExprPool p;
  ExprId x = p.arg(0);
  CHECK(p.add(p.constant(2), p.constant(3)) == p.constant(5));
  CHECK(p.add(x, p.constant(0)) == x);
  CHECK(p.mul(x, p.constant(1)) == x);
  CHECK(p.mul(x, p.constant(0)) == p.constant(0));
  CHECK(p.sub(x, x) == p.constant(0));
  CHECK(p.add(x, p.pid(0)) == p.add(p.pid(0), x));  // commutative operands are ordered
  // An exactly divisible polynomial divides: (16*pid + 32) / 16 = pid + 2.
  ExprId e = p.binary(ExprOp::DivS, p.add(p.mul(p.pid(0), p.constant(16)), p.constant(32)), p.constant(16));
  CHECK(p.to_string(e, names()) == "pid_x + 2");
  CHECK(p.binary(ExprOp::RemS, p.mul(p.pid(0), p.constant(16)), p.constant(8)) == p.constant(0));
  // Division by zero in constants is an opaque value, not a crash.
  std::int64_t v = 0;
  CHECK_FALSE(p.is_const(p.binary(ExprOp::DivS, p.constant(1), p.constant(0)), &v));
}

TEST_CASE("the polynomial normal form cancels, and prints readably") {
  ExprPool p;
  ExprId k = p.arg(0);
  // (K + 1) * 3 - 3 == 3K
  ExprId lhs = p.sub(p.mul(p.add(k, p.constant(1)), p.constant(3)), p.constant(3));
  CHECK(p.difference(lhs, p.mul(k, p.constant(3))).empty());
  CHECK(p.to_string(p.add(p.mul(p.pid(0), p.constant(2048)), p.dim(0)), names()) == "2048*pid_x + i0");
  // Non-polynomial atoms keep their operands grouped.
  ExprId cdiv = p.binary(ExprOp::DivS, p.add(k, p.constant(15)), p.constant(16));
  CHECK(p.to_string(cdiv, names()) == "(K + 15) / 16");
  CHECK(p.to_string(p.trip_count(p.constant(0), k, p.constant(64)), names()) == "max(0, cdiv(K, 64))");
  CHECK(p.to_string(p.cmp(CmpPred::Slt, p.dim(0), k), names()) == "i0 < K");
}

TEST_CASE("placeholders bind once and every consumer sees the binding") {
  ExprPool p;
  ExprId carried = p.placeholder(0);
  ExprId next = p.add(carried, p.constant(64));
  // Induction: yielded - carried is the increment.
  Poly inc = p.difference(next, carried);
  REQUIRE(inc.size() == 1);
  CHECK(inc.begin()->second == 64);
  p.bind(carried, p.add(p.constant(5), p.mul(p.loop_iter(0), p.constant(64))));
  EvalEnv env;
  env.loop_iters = {std::int64_t{3}};
  Evaluator ev(p);
  // 5 + 3*64 + 64
  CHECK(ev.eval(next, env).value == 261);
}

TEST_CASE("evaluation: missing launch values are blamed, untaken branches do not matter") {
  ExprPool p;
  std::vector<std::optional<std::int64_t>> args = {std::nullopt, std::int64_t{7}};
  EvalEnv env;
  env.args = &args;
  env.pid[0] = 2;
  Evaluator ev(p);
  EvalResult r = ev.eval(p.add(p.arg(0), p.constant(1)), env);
  CHECK_FALSE(r.value);
  CHECK(r.blame == p.arg(0));
  // select(pid == 2, arg1, arg0): arg0 is unknown but not taken.
  ExprId sel = p.select(p.cmp(CmpPred::Eq, p.pid(0), p.constant(2)), p.arg(1), p.arg(0));
  CHECK(ev.eval(sel, env).value == 7);
  // 0 * unknown = 0
  CHECK(ev.eval(p.mul(p.sub(p.pid(0), p.constant(2)), p.arg(0)), env).value == 0);
  // Trip counts never go negative: range(100, 10, 8) runs 0 times.
  CHECK(ev.eval(p.trip_count(p.constant(100), p.constant(10), p.constant(8)), env).value == 0);
  CHECK(ev.eval(p.trip_count(p.constant(0), p.constant(1000), p.constant(256)), env).value == 4);
}

TEST_CASE("floor and ceiling division round the right way for negative values") {
  CHECK(floor_div(-7, 2) == -4);
  CHECK(floor_div(7, 2) == 3);
  CHECK(ceil_div(-7, 2) == -3);
  CHECK(ceil_div(7, 2) == 4);
  CHECK(ceil_div(8, 2) == 4);
}

TEST_CASE("concretisation: a remainder that does not wrap inside the tile is affine") {
  ExprPool p;
  ExprNamer n = names();
  // offs = (16*pid + i0) % M, the tutorial matmul's row offsets (M = arg 1).
  ExprId offs = p.binary(ExprOp::RemS, p.add(p.mul(p.pid(0), p.constant(16)), p.dim(0)), p.arg(1));
  std::vector<std::optional<std::int64_t>> args = {std::nullopt, std::int64_t{100}};
  EvalEnv env;
  env.args = &args;
  Concretizer c(p, n);
  AffineForm form;
  AffineFailure failure;
  // pid 3: rows 48..63, all below 100: 48 + i0.
  env.pid[0] = 3;
  REQUIRE(c.run(offs, env, tile(16), form, failure));
  CHECK(form.c0 == 48);
  CHECK(form.coeff(0) == 1);
  // pid 6: rows 96..111 wrap at 100 inside the tile: not affine, and why.
  env.pid[0] = 6;
  CHECK_FALSE(c.run(offs, env, tile(16), form, failure));
  CHECK(failure.why == "not affine in the tile indices: (16*pid_x + i0) % %arg1");
}

TEST_CASE("masks become linear constraints on the tile indices") {
  ExprPool p;
  ExprNamer n = names();
  // 64*pid + i0 < K with pid = 1, K = 100:  i0 <= 35.
  ExprId mask = p.cmp(CmpPred::Slt, p.add(p.mul(p.pid(0), p.constant(64)), p.dim(0)), p.arg(0));
  std::vector<std::optional<std::int64_t>> args = {std::int64_t{100}};
  EvalEnv env;
  env.args = &args;
  env.pid[0] = 1;
  Concretizer c(p, n);
  std::vector<LinearConstraint> out;
  bool never = false;
  AffineFailure failure;
  REQUIRE(mask_constraints(p, c, mask, env, tile(64), out, never, failure));
  REQUIRE(out.size() == 1);
  CHECK(out[0].terms == std::vector<std::pair<int, std::int64_t>>{{0, 1}});
  CHECK(out[0].bound == 35);
  CHECK_FALSE(never);
  // A mask that is false for the whole program.
  env.pid[0] = 2;
  out.clear();
  REQUIRE(mask_constraints(p, c, p.cmp(CmpPred::Slt, p.mul(p.pid(0), p.constant(64)), p.arg(0)), env, tile(64), out,
                           never, failure));
  CHECK(never);
}
