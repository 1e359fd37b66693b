//===- trip_count.cpp - loop trip counts and execution multiplicities -----===//
#include "trip_count.hpp"

#include <perfbound/sdk/cancel.hpp>

namespace pb::hivm::analysis {

namespace {
__extension__ typedef __int128 wide_int;  // GCC/Clang extension, silenced for -Wpedantic
}  // namespace

Mult mult_mul(Mult a, int64_t lo, int64_t hi, int64_t value, bool exact, bool known) {
  auto mul = [](int64_t x, int64_t y) -> int64_t {
    if (x == 0 || y == 0) return 0;
    if (x == kInf || y == kInf) return kInf;
    int64_t p = 0;
    if (__builtin_mul_overflow(x, y, &p) || p >= kInf) return kInf;
    return p;
  };
  Mult r;
  r.min = mul(a.min, lo);
  r.max = mul(a.max, hi);
  r.value = mul(a.value, value);
  r.exact = a.exact && exact;
  r.known = a.known && known;
  return r;
}

Count to_count(const Mult &m, const std::string &reason) {
  Count c;
  c.known = m.known;
  c.exact = m.exact && m.known;
  c.value = m.value;
  c.min = m.min;
  c.max = m.max;
  if (!c.exact) c.reason = reason;
  return c;
}


void TripCounter::enumerate(const std::vector<int32_t> &chain, size_t at, Mult mult, uint64_t &leaves,
                                 const std::function<void(const Mult &)> &leaf, std::string &reason, uint8_t &taint) {
  if (at == chain.size()) {
    pb::sdk::poll_cancel();
    ++leaves;
    leaf(mult);
    return;
  }
  const PathNode &node = ir_.paths[static_cast<size_t>(chain[at])];
  // Reasons are built once per (construct, line): leaves revisit the same nodes many times.
  auto seen_reason = [&](int kind, uint32_t line) {
    uint64_t key = (static_cast<uint64_t>(kind) << 32) | line;
    if (std::find(reason_keys_.begin(), reason_keys_.end(), key) != reason_keys_.end()) return true;
    reason_keys_.push_back(key);
    return false;
  };
  auto add_reason = [&](const std::string &text) {
    if (reason.find(text) == std::string::npos) reason += (reason.empty() ? "" : "; ") + text;
  };
  switch (node.kind) {
    case PathNode::Kind::Root: enumerate(chain, at + 1, mult, leaves, leaf, reason, taint); return;
    case PathNode::Kind::Opaque: {
      if (!seen_reason(0, node.line))
        add_reason("inside a region of " + node.what + " (line " + std::to_string(node.line) + ") whose execution count is unknown");
      Mult m = mult;
      m.min = 0;
      m.max = kInf;
      m.value = 0;
      m.exact = false;
      m.known = false;
      enumerate(chain, at + 1, m, leaves, leaf, reason, taint);
      return;
    }
    case PathNode::Kind::Cond: {
      Eval e = ev_.eval(node.cond);
      taint |= e.taint;
      if (e.iv.exact()) {
        bool truth = (e.iv.lo != 0) != node.negated;
        if (truth) enumerate(chain, at + 1, mult, leaves, leaf, reason, taint);
        return;
      }
      Mult m = mult;
      m.min = 0;
      if (node.unlikely) m.value = 0;
      m.exact = false;
      if (!seen_reason(1, node.line)) {
        std::string why = (e.taint & kTData) ? "depends on loaded data" : (e.taint & kTArg) ? "depends on launch arguments not given" : "not decidable";
        add_reason("branch at line " + std::to_string(node.line) + " " + why +
                   (node.unlikely ? " (hivm.unlikely_condition: counted as not taken)" : " (counted as taken)"));
      }
      enumerate(chain, at + 1, m, leaves, leaf, reason, taint);
      return;
    }
    case PathNode::Kind::Loop: break;
  }
  const LoopInfo &loop = ir_.loops[node.loop];
  const uint32_t L = node.loop;
  auto restore = [&](std::optional<Interval> old) {
    ev_.ctx.iv[L] = old;
    ev_.touch_ctx();
  };
  std::optional<Interval> saved = ev_.ctx.iv[L];
  // A trips fact the user gave for this loop narrows a trip count the IR leaves open.
  const TripFact *fact = L < ev_.launch.loop_fact.size() && ev_.launch.loop_fact[L] >= 0 ? &ir_.opts.trips[static_cast<size_t>(ev_.launch.loop_fact[L])] : nullptr;
  auto apply_fact = [&](int64_t &tlo, int64_t &thi, int64_t &value, bool &known) {
    if (fact == nullptr) return false;
    ev_.facts_used |= ev_.trip_bit(static_cast<size_t>(ev_.launch.loop_fact[L]));
    if (fact->min) tlo = std::max(tlo, *fact->min);
    if (fact->max) thi = std::min(thi, *fact->max);
    if (fact->sum) {
      // Total iterations over the loop's entries (per block or over the grid). How they fall on
      // the entries is not given: one entry may run all of them and the others none, and the
      // work per iteration may differ between entries, so spreading the sum gives no minimum
      // per entry (issue 23, item 7). The sum bounds every entry from above; it is the trip
      // count of the one entry only where every block enters the loop exactly once (a count
      // that is exact, the same in every block, and 1). The value spreads it evenly (an estimate).
      const Count &entries = ir_.rec(loop.record).count;
      const bool one_entry_per_block = !fact->sum_over_grid && entries.known && entries.exact &&
                                       !entries.block_dependent && entries.min == 1 && entries.max == 1 &&
                                       entries.value == 1;
      int64_t spread = entries.known && entries.value > 0 ? entries.value : 1;
      if (fact->sum_over_grid) spread = sat_mul(spread, ir_.prog.blocks ? std::max<int64_t>(1, *ir_.prog.blocks) : 1);
      if (one_entry_per_block) tlo = std::max(tlo, *fact->sum);
      thi = std::min(thi, *fact->sum);
      value = *fact->sum / spread;
    }
    tlo = std::min(tlo, thi);  // the IR's bound wins over a fact that cannot hold here
    if (!fact->sum) value = thi != kInf ? thi : tlo;
    value = std::clamp(value, tlo, thi);
    known = true;
    return true;
  };
  auto fact_note = [&]() {
    return fact == nullptr ? std::string() : std::string(" under the given trips.\"") + std::to_string(loop.line) + "\"";
  };
  if (loop.unknown_trip) {
    int64_t tlo = 0, thi = kInf, value = 0;
    bool known = false;
    const bool given = apply_fact(tlo, thi, value, known);
    if (!seen_reason(2, loop.line))
      add_reason("loop at line " + std::to_string(loop.line) + " has an unknown trip count" +
                 (given ? " (" + std::to_string(tlo) + ".." + fmt_count(thi) + fact_note() + ")" : std::string()));
    enumerate(chain, at + 1, mult_mul(mult, tlo, thi, value, given && tlo == thi, known), leaves, leaf, reason, taint);
    return;
  }
  Eval lb = ev_.eval(loop.lb), ub = ev_.eval(loop.ub), st = ev_.eval(loop.step);
  taint |= static_cast<uint8_t>(lb.taint | ub.taint | st.taint);
  if (lb.iv.exact() && ub.iv.exact() && st.iv.exact() && st.iv.lo > 0) {
    // In 128 bits: ub - lb of two 64-bit values can overflow; a trip count
    // past 2^63 - 2 saturates (counted as unknown, never wrapped).
    const wide_int span = static_cast<wide_int>(ub.iv.lo) - lb.iv.lo + st.iv.lo - 1;
    const wide_int trip_wide = ub.iv.lo > lb.iv.lo ? span / st.iv.lo : 0;
    const int64_t trip = trip_wide >= kInf ? kInf : static_cast<int64_t>(trip_wide);
    // Where the bounds are known (constants, the block index, given data) a trips fact must agree,
    // in an entry that surely runs (mult.min > 0): an entry reached only through a loop or branch
    // the data decides may not exist, and then cannot contradict the fact.
    if (fact != nullptr && mult.min > 0 && ((fact->min && trip < *fact->min) || (fact->max && trip > *fact->max)))
      throw SourceError(loop.line, 1, "launch trips.\"" + fact->key + "\": " + (fact->min && trip < *fact->min ? "min = " + std::to_string(*fact->min) : "max = " + std::to_string(*fact->max)) +
                                          " cannot hold: the loop runs " + std::to_string(trip) + " times in an entry whose bounds are known" +
                                          (ev_.ctx.block.exact() ? " (block " + std::to_string(ev_.ctx.block.lo) + ")" : std::string()));
    if (trip == 0) return;
    if (leaves + static_cast<uint64_t>(trip) <= ir_.opts.enumeration_budget) {
      for (int64_t k = 0; k < trip; ++k) {
        ev_.ctx.iv[L] = Interval::point(lb.iv.lo + k * st.iv.lo);  // within [lb, ub): no overflow
        ev_.touch_ctx();
        enumerate(chain, at + 1, mult, leaves, leaf, reason, taint);
      }
      restore(saved);
      return;
    }
    // The last value of the induction variable lies below ub (unless the trip count saturated).
    const wide_int last = static_cast<wide_int>(lb.iv.lo) + static_cast<wide_int>(trip - 1) * st.iv.lo;
    ev_.ctx.iv[L] = Interval::range(lb.iv.lo, last >= ub.iv.lo ? ub.iv.lo - 1 : static_cast<int64_t>(last));
    ev_.touch_ctx();
    enumerate(chain, at + 1, mult_mul(mult, trip, trip, trip, true, true), leaves, leaf, reason, taint);
    restore(saved);
    return;
  }
  // Non-constant bounds: a trip-count interval.
  int64_t tlo = 0, thi = kInf;
  bool step_ok = st.iv.lo > 0 && st.iv.hi != Interval::kPosInf;
  if (step_ok) {
    Interval span_lo = iv_sub(Interval::point(ub.iv.lo), Interval::point(lb.iv.hi));
    Interval span_hi = iv_sub(Interval::point(ub.iv.hi), Interval::point(lb.iv.lo));
    if (ub.iv.lo != Interval::kNegInf && lb.iv.hi != Interval::kPosInf && span_lo.exact())
      tlo = std::max<int64_t>(0, (span_lo.lo + st.iv.hi - 1) / st.iv.hi);
    if (ub.iv.hi != Interval::kPosInf && lb.iv.lo != Interval::kNegInf && span_hi.exact())
      thi = std::max<int64_t>(0, (span_hi.lo + st.iv.lo - 1) / st.iv.lo);
  }
  int64_t value = thi == kInf ? 0 : thi;
  bool known = thi != kInf;
  const bool given = apply_fact(tlo, thi, value, known);
  if (!seen_reason(3, loop.line)) {
    // A constant bound of 2^63 - 1 or more is the interval's +infinity: say
    // so, rather than "not constant" (it is a constant, too large to count).
    const bool huge_constant = ub.iv.lo == Interval::kPosInf && !((lb.taint | ub.taint | st.taint) & (kTData | kTArg));
    std::string why = ((lb.taint | ub.taint | st.taint) & kTData)  ? "bounds depend on loaded data"
                      : ((lb.taint | ub.taint | st.taint) & kTArg) ? "bounds depend on launch arguments not given"
                      : huge_constant ? std::string("its upper bound is 2^63 - 1 or more, the interval analysis's "
                                                    "infinity: too large to count in 64 bits")
                                      : "bounds are not constant";
    add_reason("loop at line " + std::to_string(loop.line) + " runs " + std::to_string(tlo) + ".." + fmt_count(thi) +
               " times (" + why + fact_note() + ")");
  }
  int64_t hi_iv = ub.iv.hi == Interval::kPosInf ? Interval::kPosInf : ub.iv.hi - 1;
  ev_.ctx.iv[L] = Interval::range(lb.iv.lo, std::max(lb.iv.lo, hi_iv));
  ev_.touch_ctx();
  enumerate(chain, at + 1, mult_mul(mult, tlo, thi, value, given && tlo == thi, known), leaves, leaf, reason, taint);
  restore(saved);
}

void TripCounter::bind_first_iterations(const std::vector<int32_t> &chain, uint8_t &taint) {
  for (int32_t p : chain) {
    const PathNode &node = ir_.paths[static_cast<size_t>(p)];
    if (node.kind != PathNode::Kind::Loop) continue;
    const LoopInfo &loop = ir_.loops[node.loop];
    if (loop.unknown_trip) continue;
    Eval lb = ev_.eval(loop.lb);
    taint |= lb.taint;
    if (lb.iv.exact()) {
      ev_.ctx.iv[node.loop] = Interval::point(lb.iv.lo);
      ev_.touch_ctx();
    }
  }
}

void TripCounter::trip_any(uint32_t L, LoopRecord &lr) {
  const LoopInfo &loop = ir_.loops[L];
  if (loop.unknown_trip) {
    lr.unknown_trip = true;
    return;
  }
  ev_.ctx.block = ev_.launch.block_any;
  ev_.ctx.sub = Interval::range(0, static_cast<int64_t>(ir_.instances) - 1);
  ev_.ctx.iv.assign(ir_.loops.size(), std::nullopt);
  ev_.touch_ctx();
  Eval lb = ev_.eval(loop.lb), ub = ev_.eval(loop.ub), st = ev_.eval(loop.step);
  const uint8_t taint = static_cast<uint8_t>(lb.taint | ub.taint | st.taint);
  if (st.iv.lo > 0 && st.iv.hi != Interval::kPosInf) {
    if (ub.iv.lo != Interval::kNegInf && lb.iv.hi != Interval::kPosInf)
      lr.trip_min_any = std::max<int64_t>(0, iv_ceildiv(iv_sub(Interval::point(ub.iv.lo), Interval::point(lb.iv.hi)),
                                                        Interval::point(st.iv.hi)).lo);
    if (ub.iv.hi != Interval::kPosInf && lb.iv.lo != Interval::kNegInf)
      lr.trip_max_any = std::max<int64_t>(0, iv_ceildiv(iv_sub(Interval::point(ub.iv.hi), Interval::point(lb.iv.lo)),
                                                        Interval::point(st.iv.lo)).hi);
  }
  // Bounds that depend only on the block index or outer loops are enumerated; the rest
  // (loaded data, launch values not given) leave a loop that may not run at all uncounted.
  lr.unknown_trip = (taint & kTUnresolved) != 0 && lr.trip_min_any == 0;
}

void TripCounter::trip_per_entry(uint32_t L, LoopRecord &lr) {
  const LoopInfo &loop = ir_.loops[L];
  // Trip count per entry, for block 0 at the outer loops' first iterations.
  ev_.ctx.block = Interval::point(0);
  ev_.ctx.sub = Interval::point(0);
  ev_.ctx.iv.assign(ir_.loops.size(), std::nullopt);
  ev_.touch_ctx();
  uint8_t taint = 0;
  bind_first_iterations(ir_.chain_of(ir_.record_path[loop.record - ir_.first_record]), taint);
  if (loop.unknown_trip) {
    lr.trip.known = false;
    lr.trip.exact = false;
    lr.trip.reason = "trip count unknown (scf.while or unparsed header)";
  } else {
    Eval lb = ev_.eval(loop.lb), ub = ev_.eval(loop.ub), st = ev_.eval(loop.step);
    if (lb.iv.exact() && ub.iv.exact() && st.iv.exact() && st.iv.lo > 0) {
      int64_t trip = ub.iv.lo > lb.iv.lo ? (ub.iv.lo - lb.iv.lo + st.iv.lo - 1) / st.iv.lo : 0;
      lr.trip = Count::exactly(trip);
      if ((lb.taint | ub.taint | st.taint) & (kTBlock | kTIV)) {
        lr.trip.exact = false;
        lr.trip.reason = "bounds depend on the block index or an outer loop: value for block 0 at the first outer iteration";
      }
    } else {
      Mult one{1, 1, 1, true, true};
      std::string reason;
      uint64_t leaves = 0;
      Mult got{0, 0, 0, true, true};
      // Reuse the interval logic on this loop alone.
      std::vector<int32_t> chain = {loop.body_path};
      enumerate(chain, 0, one, leaves,
                [&](const Mult &m) { add_executions(got, m); },
                reason, taint);
      lr.trip = to_count(got, reason);
    }
  }
  trip_any(L, lr);
}

}  // namespace pb::hivm::analysis
