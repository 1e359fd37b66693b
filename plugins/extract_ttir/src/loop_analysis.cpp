//===- loop_analysis.cpp - loops, trip counts, carried values -------------===//
#include "loop_analysis.hpp"

#include <map>

namespace perfbound::ttir {

void LoopAnalysis::visit_for(mlir::scf::ForOp op) {
  Loop loop;
  loop.id = static_cast<int>(model_.loops.size());
  loop.parent = cur_loop_;
  loop.lb = int_expr(op.getLowerBound());
  loop.ub = int_expr(op.getUpperBound());
  loop.step = int_expr(op.getStep());
  loop.trip = pool_.trip_count(loop.lb, loop.ub, loop.step);
  loop.cond = cur_cond_;
  loop.loc = loc_of(op);
  for (int axis = 0; axis < 3; ++axis) {
    ExprId pid = pool_.pid(axis);
    ExprId np = pool_.num_programs(axis);
    if (pool_.contains(loop.lb, pid) && pool_.contains(loop.step, np)) loop.persistent_axis = axis;
  }
  model_.loops.push_back(loop);
  const int id = loop.id;
  ExprId iter = pool_.loop_iter(id);
  set_int(op.getInductionVar(), pool_.add(loop.lb, pool_.mul(iter, loop.step)));

  // Loop-carried values start as placeholders.
  struct Carried {
    size_t index;
    VInfo init;
    std::vector<ExprId> placeholders;  // one (Int/Ptr) or one per block-pointer offset
  };
  std::vector<Carried> carried;
  auto inits = op.getInitArgs();
  auto region_args = op.getRegionIterArgs();
  for (size_t k = 0; k < inits.size(); ++k) {
    VInfo init = info(inits[k]);
    Value arg = region_args[k];
    Carried c{k, init, {}};
    if (init.kind == VKind::Int || init.kind == VKind::Ptr) {
      ExprId p = pool_.placeholder(dims_mask(arg.getType()));
      c.placeholders.push_back(p);
      VInfo v = init;
      v.expr = p;
      set(arg, v);
    } else if (init.kind == VKind::BlockPtr) {
      BlockPtrInfo b = block_ptrs_[static_cast<size_t>(init.index)];
      for (ExprId &off : b.offsets) {
        ExprId p = pool_.placeholder(0);
        c.placeholders.push_back(p);
        off = p;
      }
      set(arg, add_block_ptr(std::move(b)));
    } else {
      set(arg, init.kind == VKind::Desc ? init : VInfo{});  // descriptors are immutable
    }
    carried.push_back(std::move(c));
  }

  int saved_loop = cur_loop_;
  cur_loop_ = id;
  walk_block(*op.getBody());
  cur_loop_ = saved_loop;

  // Induction: yield = carried + increment, with the increment invariant in
  // this loop (it may use values already proven inductive).
  auto yield = llvm::cast<mlir::scf::YieldOp>(op.getBody()->getTerminator());
  std::set<ExprId> pending;
  for (const Carried &c : carried)
    for (ExprId p : c.placeholders) pending.insert(p);
  std::map<ExprId, ExprId> increment;  // placeholder -> per-iteration increment
  // The increment must not read any placeholder still pending, the
  // carried value's own included: `yield = select(c, p + 1, p)` (an scf.if
  // in the body that advances p in one branch) leaves `select(c, p + 1, p) - p`,
  // and binding p to `init + t * (that)` would define p by itself, a cycle
  // that every walk below p follows without end.
  auto invariant_increment = [&](ExprId yielded, ExprId p) -> std::optional<ExprId> {
    Poly inc = pool_.difference(yielded, p);
    ExprId inc_expr = pool_.from_poly(inc);
    if (pool_.contains(inc_expr, iter)) return std::nullopt;
    for (ExprId other : pending)
      if (pool_.contains(inc_expr, other)) return std::nullopt;
    return inc_expr;
  };
  bool progress = true;
  while (progress && !pending.empty()) {
    progress = false;
    for (const Carried &c : carried) {
      if (c.placeholders.empty() || pending.count(c.placeholders.front()) == 0) continue;
      VInfo y = info(yield.getOperand(static_cast<unsigned>(c.index)));
      std::vector<ExprId> yielded;
      if ((c.init.kind == VKind::Int && y.kind == VKind::Int) ||
          (c.init.kind == VKind::Ptr && y.kind == VKind::Ptr && y.base == c.init.base)) {
        yielded.push_back(y.expr);
      } else if (c.init.kind == VKind::BlockPtr && y.kind == VKind::BlockPtr) {
        const BlockPtrInfo &yb = block_ptrs_[static_cast<size_t>(y.index)];
        const BlockPtrInfo &ib = block_ptrs_[static_cast<size_t>(c.init.index)];
        if (yb.base == ib.base && yb.base_offset == ib.base_offset && yb.shape == ib.shape && yb.strides == ib.strides)
          yielded = yb.offsets;
      }
      if (yielded.size() != c.placeholders.size()) continue;
      // All components must be inductive together.
      std::vector<ExprId> incs;
      for (size_t k = 0; k < yielded.size(); ++k) {
        auto inc = invariant_increment(yielded[k], c.placeholders[k]);
        if (!inc) break;
        incs.push_back(*inc);
      }
      if (incs.size() != yielded.size()) continue;
      for (size_t k = 0; k < incs.size(); ++k) {
        ExprId init_expr = c.init.kind == VKind::BlockPtr
                               ? block_ptrs_[static_cast<size_t>(c.init.index)].offsets[k]
                               : c.init.expr;
        pool_.bind(c.placeholders[k], pool_.add(init_expr, pool_.mul(iter, incs[k])));
        increment[c.placeholders[k]] = incs[k];
        pending.erase(c.placeholders[k]);
      }
      progress = true;
    }
  }
  for (ExprId p : pending)
    pool_.bind(p, pool_.opaque("a value carried by the loop at line " + std::to_string(loop.loc.line) +
                                   " that is not an induction variable",
                               loop.loc.line));

  // Values after the loop: init + trip * increment for inductions.
  for (const Carried &c : carried) {
    Value res = op.getResult(static_cast<unsigned>(c.index));
    if (c.init.kind == VKind::Int || c.init.kind == VKind::Ptr) {
      ExprId p = c.placeholders.front();
      auto it = increment.find(p);
      VInfo v = c.init;
      v.expr = it != increment.end() ? pool_.add(c.init.expr, pool_.mul(loop.trip, it->second))
                                     : pool_.opaque("the final value of a loop-carried value", loop.loc.line);
      if (v.kind == VKind::Int)
        set_int(res, v.expr);
      else
        set(res, v);
    } else if (c.init.kind == VKind::BlockPtr) {
      BlockPtrInfo b = block_ptrs_[static_cast<size_t>(c.init.index)];
      for (size_t k = 0; k < b.offsets.size(); ++k) {
        auto it = increment.find(c.placeholders[k]);
        b.offsets[k] = it != increment.end() ? pool_.add(b.offsets[k], pool_.mul(loop.trip, it->second))
                                             : pool_.opaque("the final offset of a loop-carried block pointer",
                                                            loop.loc.line);
      }
      set(res, add_block_ptr(std::move(b)));
    } else {
      set(res, c.init.kind == VKind::Desc ? c.init : VInfo{});
    }
  }
}

void LoopAnalysis::visit_if(mlir::scf::IfOp op) {
  ExprId c = int_expr(op.getCondition());
  ExprId outer = cur_cond_;
  cur_cond_ = pool_.logical_and(outer, c);
  walk_block(op.getThenRegion().front());
  if (!op.getElseRegion().empty()) {
    cur_cond_ = pool_.logical_and(outer, pool_.logical_not(c));
    walk_block(op.getElseRegion().front());
  }
  cur_cond_ = outer;
  if (op.getNumResults() == 0) return;
  auto then_yield = llvm::cast<mlir::scf::YieldOp>(op.getThenRegion().front().getTerminator());
  if (op.getElseRegion().empty()) return;
  auto else_yield = llvm::cast<mlir::scf::YieldOp>(op.getElseRegion().front().getTerminator());
  for (unsigned k = 0; k < op.getNumResults(); ++k) {
    VInfo t = info(then_yield.getOperand(k));
    VInfo f = info(else_yield.getOperand(k));
    Value res = op.getResult(k);
    if (t.kind == VKind::Int && f.kind == VKind::Int) {
      set_int(res, pool_.select(c, t.expr, f.expr));
    } else if (t.kind == VKind::Ptr && f.kind == VKind::Ptr && t.base == f.base) {
      VInfo v = t;
      v.expr = pool_.select(c, t.expr, f.expr);
      set(res, v);
    } else if (t.kind == f.kind && (t.kind == VKind::BlockPtr || t.kind == VKind::Desc) && t.index == f.index) {
      set(res, t);
    } else {
      set_unknown(res, "a value selected by scf.if from different sources", op);
    }
  }
}

LoopAnalysis::WhileTrip LoopAnalysis::while_trip(mlir::scf::WhileOp op) {
  WhileTrip out;
  mlir::Block &before = op.getBefore().front();
  mlir::Block &after = op.getAfter().front();
  mlir::scf::ConditionOp condition = op.getConditionOp();
  mlir::scf::YieldOp yield = op.getYieldOp();
  auto inits = op.getInits();
  auto defined_outside = [&](Value v) {
    if (v.getDefiningOp<mlir::arith::ConstantOp>()) return true;
    return !op->isAncestor(v.getParentRegion()->getParentOp());
  };
  auto constant_of = [](Value v) -> std::optional<std::int64_t> {
    if (auto cst = v.getDefiningOp<mlir::arith::ConstantOp>())
      if (auto attr = llvm::dyn_cast<mlir::IntegerAttr>(cst.getValue()))
        return attr.getValue().getBitWidth() == 1 ? static_cast<std::int64_t>(attr.getValue().getZExtValue())
                                                  : attr.getValue().getSExtValue();
    return std::nullopt;
  };
  // The after-region argument a before-region argument is forwarded to.
  auto forwarded = [&](unsigned before_arg) -> std::optional<unsigned> {
    for (unsigned k = 0; k < condition.getArgs().size(); ++k)
      if (condition.getArgs()[k] == before.getArgument(before_arg)) return k;
    return std::nullopt;
  };
  Value cond = condition.getCondition();
  if (auto c = constant_of(cond)) {
    if (*c != 0) {
      out.pattern = "the condition is constant true";
    } else {
      out.trip = pool_.constant(0);
      out.pattern = "the condition is constant false: the body never runs";
    }
    return out;
  }
  // Single trip: the condition is a carried i1 flag that the body clears.
  if (auto flag = llvm::dyn_cast<mlir::BlockArgument>(cond); flag && flag.getOwner() == &before) {
    unsigned j = flag.getArgNumber();
    auto cleared = constant_of(yield.getOperand(j));
    if (cleared && *cleared == 0) {
      out.trip = pool_.cmp(CmpPred::Ne, int_expr(inits[j]), pool_.constant(0));
      out.pattern = "a carried flag that the body sets to false: the body runs at most once";
      return out;
    }
    out.pattern = "the condition is a carried flag the body does not clear";
    return out;
  }
  auto cmp = cond.getDefiningOp<mlir::arith::CmpIOp>();
  if (!cmp || cmp->getBlock() != &before) {
    out.pattern = "the condition is not an arith.cmpi in the before region";
    return out;
  }
  using P = mlir::arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  Value lhs = cmp.getLhs();
  Value rhs = cmp.getRhs();
  auto counter_arg = [&](Value v) -> int {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
    return arg && arg.getOwner() == &before ? static_cast<int>(arg.getArgNumber()) : -1;
  };
  if (counter_arg(lhs) < 0 && counter_arg(rhs) >= 0) {
    std::swap(lhs, rhs);
    switch (pred) {
      case P::sgt: pred = P::slt; break;
      case P::sge: pred = P::sle; break;
      case P::ugt: pred = P::ult; break;
      case P::uge: pred = P::ule; break;
      case P::ne: break;
      default: pred = P::eq; break;  // not a counting form
    }
  }
  int j = counter_arg(lhs);
  if (j < 0 || !defined_outside(rhs) ||
      !(pred == P::slt || pred == P::sle || pred == P::ult || pred == P::ule || pred == P::ne)) {
    out.pattern = "the condition is not `counter <, <= or != bound` with a carried counter and a loop-invariant bound";
    return out;
  }
  std::optional<unsigned> k = forwarded(static_cast<unsigned>(j));
  Value next = yield.getOperand(static_cast<unsigned>(j));
  auto add = next.getDefiningOp<mlir::arith::AddIOp>();
  std::optional<std::int64_t> step;
  if (k && add) {
    Value counter = after.getArgument(*k);
    if (add.getLhs() == counter) step = constant_of(add.getRhs());
    if (add.getRhs() == counter) step = constant_of(add.getLhs());
  }
  if (!step || *step <= 0) {
    out.pattern = "the counter is not incremented by a positive constant in the body";
    return out;
  }
  ExprId init = int_expr(inits[static_cast<unsigned>(j)]);
  std::optional<std::int64_t> bound_const = constant_of(rhs);  // a constant inside is not visited yet
  ExprId bound = bound_const ? pool_.constant(*bound_const) : int_expr(rhs);
  ExprId c = pool_.constant(*step);
  out.iv = j;
  out.init = init;
  out.step = c;
  ExprId nonnegative = pool_.logical_and(pool_.cmp(CmpPred::Sge, init, pool_.constant(0)),
                                         pool_.cmp(CmpPred::Sge, bound, pool_.constant(0)));
  auto unsigned_guard = [&](ExprId trip) {
    return pool_.select(nonnegative, trip,
                        pool_.opaque("an unsigned loop condition with a negative operand", line_of(op)));
  };
  std::string form = "counter = init + " + std::to_string(*step) + "*t";
  switch (pred) {
    case P::slt: out.trip = pool_.trip_count(init, bound, c); out.pattern = form + " while counter < bound"; break;
    case P::sle:
      out.trip = pool_.trip_count(init, pool_.add(bound, pool_.constant(1)), c);
      out.pattern = form + " while counter <= bound";
      break;
    case P::ult:
      out.trip = unsigned_guard(pool_.trip_count(init, bound, c));
      out.pattern = form + " while counter < bound (unsigned)";
      break;
    case P::ule:
      out.trip = unsigned_guard(pool_.trip_count(init, pool_.add(bound, pool_.constant(1)), c));
      out.pattern = form + " while counter <= bound (unsigned)";
      break;
    default: {
      // counter != bound: exact when the bound is reached, else it never stops.
      ExprId distance = pool_.sub(bound, init);
      ExprId reached = pool_.logical_and(pool_.cmp(CmpPred::Sge, distance, pool_.constant(0)),
                                         pool_.cmp(CmpPred::Eq, pool_.binary(ExprOp::RemS, distance, c),
                                                   pool_.constant(0)));
      out.trip = pool_.select(reached, pool_.binary(ExprOp::DivS, distance, c),
                              pool_.opaque("an scf.while whose counter steps over its bound", line_of(op)));
      out.pattern = form + " while counter != bound";
      break;
    }
  }
  return out;
}

void LoopAnalysis::visit_while(mlir::scf::WhileOp op) {
  // Two loop records: the before region (the condition) runs once more than
  // the after region (the body).
  SourceLoc where = loc_of(op);
  WhileTrip wt = while_trip(op);
  Loop before;
  before.id = static_cast<int>(model_.loops.size());
  before.parent = cur_loop_;
  before.kind = LoopKind::While;
  before.region = WhileRegion::Before;
  before.cond = cur_cond_;
  before.loc = where;
  before.trip_why = wt.pattern;
  Loop after = before;
  after.id = before.id + 1;
  after.region = WhileRegion::After;
  if (wt.trip != kNoExpr) {
    after.trip = wt.trip;
    before.trip = pool_.add(wt.trip, pool_.constant(1));
  }
  model_.loops.push_back(before);
  model_.loops.push_back(after);
  if (wt.trip == kNoExpr)
    unresolved("scf.while at line " + std::to_string(where.line),
               "the trip count of an scf.while loop is not derived; work inside it is not counted",
               where, where.ttir_line > 0 ? "give trips.\"ttir:" + std::to_string(where.ttir_line) + "\"" : "");
  mlir::Block &before_block = op.getBefore().front();
  mlir::Block &after_block = op.getAfter().front();
  auto counter = [&](int loop) { return pool_.add(wt.init, pool_.mul(pool_.loop_iter(loop), wt.step)); };
  for (mlir::BlockArgument arg : before_block.getArguments()) {
    if (static_cast<int>(arg.getArgNumber()) == wt.iv)
      set_int(arg, counter(before.id));
    else
      set_unknown(arg, "a value carried by an scf.while loop", op);
  }
  int saved = cur_loop_;
  cur_loop_ = before.id;
  walk_block(before_block);
  // What the condition forwards: the counter, loop-invariant values, or unknown.
  mlir::scf::ConditionOp condition = op.getConditionOp();
  ExprId before_iter = pool_.loop_iter(before.id);
  auto forward = [&](Value v, Value to, const std::function<ExprId()> &counter_value) {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
    if (arg && arg.getOwner() == &before_block && static_cast<int>(arg.getArgNumber()) == wt.iv)
      return set_int(to, counter_value());
    VInfo i = info(v);
    if ((i.kind == VKind::Int || i.kind == VKind::Ptr) && i.expr != kNoExpr && !pool_.contains(i.expr, before_iter) &&
        pool_.first_opaque(i.expr) == kNoExpr)
      return set(to, i);
    set_unknown(to, "a value carried by an scf.while loop", op);
  };
  for (unsigned k = 0; k < condition.getArgs().size() && k < after_block.getNumArguments(); ++k)
    forward(condition.getArgs()[k], after_block.getArgument(k), [&] { return counter(after.id); });
  cur_loop_ = after.id;
  walk_block(after_block);
  cur_loop_ = saved;
  for (unsigned k = 0; k < op.getNumResults() && k < condition.getArgs().size(); ++k)
    forward(condition.getArgs()[k], op.getResult(k),
            [&] { return pool_.add(wt.init, pool_.mul(wt.trip, wt.step)); });
}

}  // namespace perfbound::ttir
