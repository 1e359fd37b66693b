//===- unique_bytes.cpp - bytes each argument's accesses touch ------------===//
#include "unique_bytes.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>

namespace perfbound::ttir {

/// Sum of the lengths of the union of `v` (sorted in place).
double union_bytes(std::vector<Interval> &v) {
  std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.lo < b.lo; });
  double total = 0;
  std::int64_t cur_lo = 0;
  std::int64_t cur_hi = 0;
  bool open = false;
  for (const Interval &iv : v) {
    if (open && iv.lo <= cur_hi) {
      cur_hi = std::max(cur_hi, iv.hi);
      continue;
    }
    if (open) total += static_cast<double>(cur_hi - cur_lo);
    cur_lo = iv.lo;
    cur_hi = iv.hi;
    open = true;
  }
  if (open) total += static_cast<double>(cur_hi - cur_lo);
  return total;
}

UniqueBytes::UniqueBytes(const KernelModel &k, const KernelStructure &s, Evaluator &ev, EvalEnv &env,
                         const FactsOptions &options)
    : ProgramPass(k, s, ev, env), concretizer_(pool_, namer_), options_(options) {
  const size_t na = k.accesses.size();
  for (const Access &a : k.accesses)
    if (a.arg >= 0) unions[{a.arg, static_cast<int>(direction_of(a))}];
  access_active_sum.assign(na, 0);
  access_active_ok.assign(na, true);
  access_active_why.assign(na, "");
  first_form.assign(na, std::nullopt);
  first_form_why.assign(na, "");
  seen_signature_.assign(na, {});
  rows_left_ = options.row_budget;
}

bool UniqueBytes::dims_rows(const Access &a, std::int64_t base, const AffineForm &form,
                           const std::vector<LinearConstraint> &constraints, const std::vector<std::int64_t> &residual,
                           std::vector<Interval> &out, double &active) {
  const std::int64_t eb = std::max(1, (a.element_bits + 7) / 8);
  const auto rank = static_cast<int>(a.shape.size());
  if (rank == 0) {
    for (size_t c = 0; c < constraints.size(); ++c)
      if (residual[c] < 0) return true;
    if (rows_left_-- <= 0) return false;
    out.push_back({base * eb, (base + 1) * eb});
    active += 1;
    return true;
  }
  // The inner dimension: unit stride if any (the last such), else the last.
  int inner = rank - 1;
  for (int d = rank - 1; d >= 0; --d)
    if (std::llabs(form.coeff(d)) == 1) {
      inner = d;
      break;
    }
  const std::int64_t stride = form.coeff(inner);
  std::vector<std::int64_t> idx(static_cast<size_t>(rank), 0);
  std::vector<int> outer;
  for (int d = 0; d < rank; ++d)
    if (d != inner) outer.push_back(d);
  std::vector<std::int64_t> inner_coeff(constraints.size());
  for (size_t c = 0; c < constraints.size(); ++c) {
    std::int64_t v = 0;
    for (const auto &[var, coef] : constraints[c].terms)
      if (var == inner) v = coef;
    inner_coeff[c] = v;
  }
  while (true) {
    std::int64_t row_base = base;
    for (int d : outer) row_base += form.coeff(d) * idx[static_cast<size_t>(d)];
    std::int64_t lo = 0;
    std::int64_t hi = a.shape[static_cast<size_t>(inner)] - 1;
    for (size_t c = 0; c < constraints.size() && lo <= hi; ++c) {
      std::int64_t s = 0;
      for (const auto &[var, coef] : constraints[c].terms)
        if (var < kLoopVar && var != inner) s += coef * idx[static_cast<size_t>(var)];
      std::int64_t r = residual[c] - s;
      std::int64_t au = inner_coeff[c];
      if (au == 0) {
        if (r < 0) hi = lo - 1;
      } else if (au > 0) {
        hi = std::min(hi, floor_div(r, au));
      } else {
        lo = std::max(lo, ceil_div(r, au));
      }
    }
    if (lo <= hi) {
      active += static_cast<double>(hi - lo + 1);
      if (stride == 1 || stride == -1 || stride == 0) {
        if (rows_left_-- <= 0) return false;
        std::int64_t first = stride == 0 ? row_base : row_base + stride * (stride > 0 ? lo : hi);
        std::int64_t last = stride == 0 ? row_base : row_base + stride * (stride > 0 ? hi : lo);
        out.push_back({first * eb, (last + 1) * eb});
      } else {
        if (rows_left_ < hi - lo + 1) {
          rows_left_ = 0;
          return false;
        }
        rows_left_ -= hi - lo + 1;
        for (std::int64_t x = lo; x <= hi; ++x) out.push_back({(row_base + stride * x) * eb, (row_base + stride * x + 1) * eb});
      }
    }
    // Next row (odometer over the outer dimensions).
    size_t pos = outer.size();
    while (pos > 0) {
      int d = outer[pos - 1];
      if (++idx[static_cast<size_t>(d)] < a.shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
      --pos;
    }
    if (pos == 0) break;
  }
  return true;
}

bool UniqueBytes::enumerate_rows(const Access &a, const AffineForm &form, const std::vector<LinearConstraint> &constraints,
                                const std::vector<int> &chain, size_t level, std::vector<Interval> &out, double &active) {
  if (level == chain.size()) {
    if (s_.cond_uses_loops[static_cast<size_t>(a.id)]) {
      EvalResult c = ev_.eval(a.cond, env_);
      if (c.value && *c.value == 0) return true;
    }
    std::int64_t base = form.c0;
    for (const auto &[var, coef] : form.terms)
      if (var >= kLoopVar) base += coef * env_.loop_iters[static_cast<size_t>(var - kLoopVar)].value_or(0);
    std::vector<std::int64_t> residual(constraints.size());
    for (size_t c = 0; c < constraints.size(); ++c) {
      std::int64_t r = constraints[c].bound;
      for (const auto &[var, coef] : constraints[c].terms)
        if (var >= kLoopVar) r -= coef * env_.loop_iters[static_cast<size_t>(var - kLoopVar)].value_or(0);
      residual[c] = r;
    }
    return dims_rows(a, base, form, constraints, residual, out, active);
  }
  int l = chain[level];
  const Loop &loop = k_.loops[static_cast<size_t>(l)];
  EvalResult trip = ev_.eval(loop.trip, env_);
  if (!trip.value) return true;  // counted as unknown by the counting pass
  bool ok = true;
  for (std::int64_t t = 0; t < *trip.value && ok; ++t) {
    env_.loop_iters[static_cast<size_t>(l)] = t;
    ok = enumerate_rows(a, form, constraints, chain, level + 1, out, active);
  }
  env_.loop_iters[static_cast<size_t>(l)].reset();
  return ok;
}

void UniqueBytes::add_program(const ProgramCounts &pc, const std::vector<std::string> &access_note,
                              std::int64_t p) {
  // A member is one access with the outer loops of its chain that had to be
  // fixed (their counters sit inside a division or remainder, as in a
  // persistent tile loop) set to given values; the remaining loops and the
  // tile dimensions are affine.
  struct Member {
    int access;
    std::vector<std::pair<int, std::int64_t>> fixed;  // (loop, counter value)
    size_t free_from = 0;                             // first free level of the chain
    AffineForm form;
    std::vector<LinearConstraint> constraints;
    std::string signature;
  };
  std::map<std::pair<int, int>, std::vector<Member>> groups;
  std::int64_t member_budget = 1 << 16;
  for (const Access &a : k_.accesses) {
    auto key = std::make_pair(a.arg, static_cast<int>(direction_of(a)));
    if (a.arg < 0) continue;
    Union &u = unions[key];
    const auto id = static_cast<size_t>(a.id);
    auto incomplete = [&](const std::string &why, const SourceLoc &loc) {
      if (u.complete) {
        u.incomplete_why = why;
        u.incomplete_line = loc.line;
        u.incomplete_loc = loc;
      }
      u.complete = false;
      access_active_ok[id] = false;
      if (access_active_why[id].empty()) access_active_why[id] = why;
    };
    const std::string what = "the " + a.op + " at line " + std::to_string(a.loc.line);
    if (pc.access_unknown[id]) {
      incomplete(what + " runs an unknown number of times", a.loc);
      continue;
    }
    if (std::any_of(s_.access_chain[id].begin(), s_.access_chain[id].end(),
                    [&](int l) { return pc.loop_given[static_cast<size_t>(l)]; })) {
      incomplete(what + " sits in a loop whose trip count is given, not derived: its bytes are not enumerated", a.loc);
      continue;
    }
    if (pc.access[id] == 0) continue;
    if (!access_note[id].empty()) {
      incomplete(what + " runs under a condition that cannot be decided", a.loc);
      continue;
    }
    if (a.offset == kNoExpr) {
      incomplete(what + ": " + a.base_unknown, a.loc);
      continue;
    }
    const std::vector<int> &chain = s_.access_chain[id];
    std::string failure_why;
    std::function<bool(size_t, std::vector<std::pair<int, std::int64_t>> &)> make =
        [&](size_t level, std::vector<std::pair<int, std::int64_t>> &fixed) -> bool {
      VarRange ranges = [&](int var) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
        if (var < kLoopVar) {
          if (static_cast<size_t>(var) >= a.shape.size()) return std::nullopt;
          return std::make_pair(std::int64_t{0}, a.shape[static_cast<size_t>(var)] - 1);
        }
        auto l = static_cast<size_t>(var - kLoopVar);
        if (l >= pc.trip_max.size() || pc.trip_max[l] <= 0) return std::nullopt;
        return std::make_pair(std::int64_t{0}, pc.trip_max[l] - 1);
      };
      Member m;
      m.access = a.id;
      m.fixed = fixed;
      m.free_from = level;
      AffineFailure failure;
      bool affine = concretizer_.run(a.offset, env_, ranges, m.form, failure);
      bool never = false;
      if (affine && a.mask != kNoExpr)
        affine = mask_constraints(pool_, concretizer_, a.mask, env_, ranges, m.constraints, never, failure);
      if (!affine) {
        if (level < chain.size()) {
          // Fix the next loop's counter and try again inside.
          int l = chain[level];
          EvalResult trip = ev_.eval(k_.loops[static_cast<size_t>(l)].trip, env_);
          if (!trip.value) {
            failure_why = "the trip count of the loop at line " + std::to_string(k_.loops[static_cast<size_t>(l)].loc.line) +
                          " is not known";
            return false;
          }
          for (std::int64_t t = 0; t < *trip.value; ++t) {
            if (--member_budget < 0) {
              failure_why = "too many loop iterations to fix one by one";
              env_.loop_iters[static_cast<size_t>(l)].reset();
              return false;
            }
            env_.loop_iters[static_cast<size_t>(l)] = t;
            fixed.emplace_back(l, t);
            bool ok = make(level + 1, fixed);
            fixed.pop_back();
            if (!ok) {
              env_.loop_iters[static_cast<size_t>(l)].reset();
              return false;
            }
          }
          env_.loop_iters[static_cast<size_t>(l)].reset();
          return true;
        }
        failure_why = failure.why;
        return false;
      }
      if (!first_form[id]) first_form[id] = m.form;
      if (never) return true;
      std::string sig = std::to_string(m.form.c0) + ":";
      for (const auto &[var, coef] : m.form.terms) sig += std::to_string(var) + "*" + std::to_string(coef) + ",";
      for (const LinearConstraint &c : m.constraints) {
        sig += "|";
        for (const auto &[var, coef] : c.terms) sig += std::to_string(var) + "*" + std::to_string(coef) + ",";
        sig += "<=" + std::to_string(c.bound);
      }
      for (size_t j = level; j < chain.size(); ++j) {
        auto l = static_cast<size_t>(chain[j]);
        sig += "#" + std::to_string(pc.trip_min[l]) + "/" + std::to_string(pc.trip_max[l]);
      }
      if (s_.cond_uses_loops[id]) sig += "@" + std::to_string(p);  // per-iteration conditions: never merge programs
      m.signature = std::move(sig);
      groups[key].push_back(std::move(m));
      return true;
    };
    std::vector<std::pair<int, std::int64_t>> fixed;
    if (!make(0, fixed)) {
      if (first_form_why[id].empty()) first_form_why[id] = failure_why;
      incomplete("the offset or mask of " + what + " is not affine: " + failure_why, a.loc);
    }
  }
  for (auto &[key, u] : unions)
    if (groups.count(key) == 0) u.per_program.add(0);  // nothing of this argument runs in this program
  for (auto &[key, members] : groups) {
    Union &u = unions[key];
    // Per-program unique bytes, cached by the signature relative to the
    // program's lowest base (translated programs move the same bytes).
    std::int64_t min_base = std::numeric_limits<std::int64_t>::max();
    for (const Member &m : members) min_base = std::min(min_base, m.form.c0);
    std::vector<std::string> parts;
    for (const Member &m : members)
      parts.push_back(std::to_string(m.access) + "{" + std::to_string(m.form.c0 - min_base) +
                      m.signature.substr(m.signature.find(':')) + "}");
    std::sort(parts.begin(), parts.end());
    std::string normalized;
    for (const std::string &part : parts) normalized += part;
    auto &cache = per_program_cache_[key];
    auto cached = cache.find(normalized);
    std::vector<Interval> local;
    const bool need_local = cached == cache.end();
    bool ok = true;
    for (const Member &m : members) {
      const Access &a = k_.accesses[static_cast<size_t>(m.access)];
      const double eb = static_cast<double>(std::max(1, (a.element_bits + 7) / 8));
      auto &seen = seen_signature_[static_cast<size_t>(m.access)];
      auto hit = seen.find(m.signature);
      const bool need_global = hit == seen.end();
      if (!need_global) access_active_sum[static_cast<size_t>(m.access)] += hit->second * eb;
      if (!need_global && !need_local) continue;
      std::vector<Interval> rows;
      double active = 0;
      for (const auto &[l, t] : m.fixed) env_.loop_iters[static_cast<size_t>(l)] = t;
      ok = enumerate_rows(a, m.form, m.constraints, s_.access_chain[static_cast<size_t>(m.access)], m.free_from, rows,
                          active);
      for (const auto &[l, t] : m.fixed) env_.loop_iters[static_cast<size_t>(l)].reset();
      if (!ok) break;
      if (need_global) {
        seen.emplace(m.signature, active);
        access_active_sum[static_cast<size_t>(m.access)] += active * eb;
        u.global.insert(u.global.end(), rows.begin(), rows.end());
      }
      if (need_local) local.insert(local.end(), rows.begin(), rows.end());
    }
    if (!ok) {
      budget_hit = true;
      return;
    }
    double unique = need_local ? union_bytes(local) : cached->second;
    if (need_local) cache.emplace(std::move(normalized), unique);
    u.per_program.add(unique);
    // Keep the global list compact.
    if (u.global.size() > (1u << 20)) {
      std::vector<Interval> merged;
      std::sort(u.global.begin(), u.global.end(), [](const Interval &x, const Interval &y) { return x.lo < y.lo; });
      for (const Interval &iv : u.global) {
        if (!merged.empty() && iv.lo <= merged.back().hi)
          merged.back().hi = std::max(merged.back().hi, iv.hi);
        else
          merged.push_back(iv);
      }
      u.global.swap(merged);
    }
  }
}

void UniqueBytes::finish(std::int64_t programs_evaluated, std::int64_t programs) {
  if (budget_hit || programs_evaluated < programs) {
    for (auto &[key, u] : unions) {
      if (u.complete) {
        u.incomplete_why = budget_hit ? "the enumeration budget of " + std::to_string(options_.row_budget) +
                                            " rows was reached after " + std::to_string(programs_evaluated) + " of " +
                                            std::to_string(programs) + " programs"
                                      : "only " + std::to_string(programs_evaluated) + " of " +
                                            std::to_string(programs) + " programs were enumerated";
      }
      u.complete = false;
    }
    for (size_t a = 0; a < k_.accesses.size(); ++a) {
      access_active_ok[a] = false;
      if (access_active_why[a].empty()) access_active_why[a] = "not every program was enumerated";
    }
  }
}

}  // namespace perfbound::ttir
