//===- sync.cpp - handoffs, barriers and component edges -------------------===//
#include "sync.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <string>

namespace pb::hivm {

namespace {

constexpr size_t kScanCap = 96;  // work ops collected on each side of a sync point

bool is_work(const OpRecord &r) {
  const bool work = is_vector_class(r.cls) || r.cls == OpClass::Dma || r.cls == OpClass::Cube ||
                    r.cls == OpClass::ScalarMemory;
  return work && !r.pipes.empty();
}

/// What the walks below read of an op record, 16 bytes instead of the record's
/// ~1.5 KB: a walk over a large function then stays in cache.
struct Brief {
  const SyncInfo *sync = nullptr;
  OpClass cls = OpClass::Unknown;
  bool work = false;   // is_work()
  uint16_t pipes = 0;  // bit per pipe the op runs on

  [[nodiscard]] bool work_on(Pipe p) const {  // work on pipe p (any pipe for ALL)
    return work && (p == Pipe::ALL || (pipes & (1u << static_cast<unsigned>(p))) != 0);
  }
};

std::vector<Brief> briefs_of(const Program &prog) {
  std::vector<Brief> out(prog.ops.size());
  for (size_t idx = 0; idx < prog.ops.size(); ++idx) {
    const OpRecord &r = prog.ops[idx];
    Brief &b = out[idx];
    b.sync = r.sync.get();
    b.cls = r.cls;
    b.work = is_work(r);
    for (Pipe p : r.pipes) b.pipes |= static_cast<uint16_t>(1u << static_cast<unsigned>(p));
  }
  return out;
}

Count sum_counts(const std::vector<uint32_t> &ops, const Program &prog) {
  Count c = Count::exactly(0);
  for (uint32_t id : ops) {
    const Count &x = prog.ops[id].count;
    c.known = c.known && x.known;
    c.exact = c.exact && x.exact;
    c.value += x.value;
    c.min += x.min;
    c.max = (c.max == Interval::kPosInf || x.max == Interval::kPosInf) ? Interval::kPosInf : c.max + x.max;
    c.block_dependent = c.block_dependent || x.block_dependent;
    if (!x.exact && c.reason.empty()) c.reason = x.reason;
  }
  if (ops.empty()) c.value = c.min = c.max = 0;
  return c;
}

/// Program-order walks over one function, wrapping once around the innermost loop.
class Walker {
 public:
  explicit Walker(const FunctionView &view) : view_(view) {}

  const FunctionView::LoopSpan *loop_of(uint32_t r) const {
    int32_t L = view_.innermost_loop[r - view_.first_op];
    return L >= 0 ? &view_.loops[static_cast<size_t>(L)] : nullptr;
  }

  /// Visits records before `start` (nearest first). `fn` returns false to stop.
  template <typename Fn>
  void back(uint32_t start, Fn &&fn) const {
    const FunctionView::LoopSpan *loop = loop_of(start);
    if (loop != nullptr) {
      for (uint32_t r = start; r-- > loop->body_begin;)
        if (!fn(r)) return;
      for (uint32_t r = loop->body_end; r-- > start + 1;)  // the previous iteration's tail
        if (!fn(r)) return;
      for (uint32_t r = loop->body_begin; r-- > view_.first_op;)
        if (!fn(r)) return;
      return;
    }
    for (uint32_t r = start; r-- > view_.first_op;)
      if (!fn(r)) return;
  }

  /// Visits records after `start` (nearest first).
  template <typename Fn>
  void forward(uint32_t start, Fn &&fn) const {
    const FunctionView::LoopSpan *loop = loop_of(start);
    if (loop != nullptr) {
      for (uint32_t r = start + 1; r < loop->body_end; ++r)
        if (!fn(r)) return;
      for (uint32_t r = loop->body_begin; r < start; ++r)  // the next iteration's head
        if (!fn(r)) return;
      for (uint32_t r = loop->body_end; r < view_.end_op; ++r)
        if (!fn(r)) return;
      return;
    }
    for (uint32_t r = start + 1; r < view_.end_op; ++r)
      if (!fn(r)) return;
  }

 private:
  const FunctionView &view_;
};

struct Dependence {
  std::vector<std::string> kinds;  // RAW, WAR, WAW
};

/// The distinct buffers that the ops of one side of a sync point read and
/// write, each with the op touching it (or "several"). Comparing two sides
/// costs distinct buffers x distinct buffers, not ops x ops: a large function
/// whose sync groups collect thousands of ops reuses a few buffers.
class BufferSide {
 public:
  struct Entry {
    BufferRef ref;
    uint32_t op = 0;
    bool several = false;  // more than one op touches it
  };

  BufferSide(const Program &prog, const std::vector<uint32_t> &ops) {
    for (uint32_t id : ops) {
      for (const BufferRef &r : prog.ops[id].reads) add(reads_, read_index_, r, id);
      for (const BufferRef &w : prog.ops[id].writes) add(writes_, write_index_, w, id);
    }
  }
  [[nodiscard]] const std::vector<Entry> &reads() const { return reads_; }
  [[nodiscard]] const std::vector<Entry> &writes() const { return writes_; }

 private:
  using Key = std::tuple<int, int, int64_t, int64_t, int64_t, uint32_t>;
  struct KeyHash {
    size_t operator()(const Key &k) const {
      size_t h = std::hash<int64_t>()(std::get<2>(k));
      auto mix = [&h](uint64_t v) { h ^= std::hash<uint64_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
      mix(static_cast<uint64_t>(std::get<0>(k)) << 8 | static_cast<uint64_t>(std::get<1>(k)));
      mix(static_cast<uint64_t>(std::get<3>(k)));
      mix(static_cast<uint64_t>(std::get<4>(k)));
      mix(std::get<5>(k));
      return h;
    }
  };
  using Index = std::unordered_map<Key, size_t, KeyHash>;
  static Key key_of(const BufferRef &r) {
    return {static_cast<int>(r.kind), static_cast<int>(r.space), r.base0, r.base1, r.bytes, r.id};
  }
  // Most sides touch a handful of buffers: searched in place; hashed once they are many.
  static constexpr size_t kLinear = 16;
  static void add(std::vector<Entry> &to, Index &index, const BufferRef &r, uint32_t op) {
    const Key key = key_of(r);
    size_t at = to.size();
    if (to.size() <= kLinear) {
      for (size_t idx = 0; idx < to.size(); ++idx)
        if (key_of(to[idx].ref) == key) at = idx;
    } else {
      if (index.empty())
        for (size_t idx = 0; idx < to.size(); ++idx) index.emplace(key_of(to[idx].ref), idx);
      at = index.try_emplace(key, to.size()).first->second;
    }
    if (at == to.size()) {
      to.push_back({r, op, false});
    } else if (to[at].op != op) {
      to[at].several = true;
    }
  }
  std::vector<Entry> reads_, writes_;
  Index read_index_, write_index_;
};

Dependence dependences(const BufferSide &before, const BufferSide &after) {
  // `distinct_ops`: only pairs of different ops count. The same op in
  // consecutive iterations: only an accumulation (it reads what it wrote)
  // counts; its writes land on different tiles in general.
  auto any = [](const std::vector<BufferSide::Entry> &a, const std::vector<BufferSide::Entry> &b, bool distinct_ops) {
    for (const BufferSide::Entry &x : a)
      for (const BufferSide::Entry &y : b) {
        if (distinct_ops && x.op == y.op && !x.several && !y.several) continue;
        if (may_overlap(x.ref, y.ref)) return true;
      }
    return false;
  };
  const bool raw = any(before.writes(), after.reads(), false);
  const bool war = any(before.reads(), after.writes(), true);
  const bool waw = any(before.writes(), after.writes(), true);
  Dependence d;
  if (raw) d.kinds.emplace_back("RAW");
  if (war) d.kinds.emplace_back("WAR");
  if (waw) d.kinds.emplace_back("WAW");
  return d;
}

Dependence dependences(const Program &prog, const std::vector<uint32_t> &before, const std::vector<uint32_t> &after) {
  return dependences(BufferSide(prog, before), BufferSide(prog, after));
}

std::string lines_of(const Program &prog, const std::vector<uint32_t> &ops, size_t max = 6) {
  std::vector<uint32_t> lines;
  lines.reserve(ops.size());
  for (uint32_t id : ops) lines.push_back(prog.ops[id].line);
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::string out;
  size_t n = 0;
  for (uint32_t l : lines) {
    if (n++ == max) {
      out += ", ...";
      break;
    }
    out += (out.empty() ? "" : ", ") + std::to_string(l);
  }
  return out;
}

/// Appends ids to a list once each, in order of first appearance, with a
/// hashed index (the lists of a sync group grow with the function).
class UniqueList {
 public:
  explicit UniqueList(std::vector<uint32_t> &to) : to_(to), seen_(to.begin(), to.end()) {}
  void add(uint32_t v) {
    if (seen_.insert(v).second) to_.push_back(v);
  }

 private:
  std::vector<uint32_t> &to_;
  std::unordered_set<uint32_t> seen_;
};

/// What a group's event key and label say about the values: "EVENT_ID2"; " in {2,3}"
/// for a dynamic operand that takes those values; "" for one whose values are unknown.
std::string event_values_text(const SyncInfo &s) {
  if (s.event) return "EVENT_ID" + std::to_string(*s.event);
  if (s.event_values.empty()) return "";
  std::string text = " in {";
  for (size_t idx = 0; idx < s.event_values.size(); ++idx)
    text += (idx ? "," : "") + std::to_string(s.event_values[idx]);
  return text + "}";
}

bool events_match(const SyncInfo &a, const SyncInfo &b) {
  // The static event, else the values a dynamic one takes; none: unresolved, matches anything.
  auto values = [](const SyncInfo &s) -> std::pair<const int64_t *, const int64_t *> {
    if (s.event) return {&*s.event, &*s.event + 1};
    return {s.event_values.data(), s.event_values.data() + s.event_values.size()};
  };
  const auto [a_begin, a_end] = values(a);
  const auto [b_begin, b_end] = values(b);
  if (a_begin == a_end || b_begin == b_end) return true;
  for (const int64_t *x = a_begin; x != a_end; ++x)
    if (std::find(b_begin, b_end, *x) != b_end) return true;
  return false;
}

/// The same pipes and a matching event: a set (or wait) that ends a walk from another.
bool same_flag(const Brief &b, OpClass cls, const SyncInfo &s) {
  return b.cls == cls && b.sync != nullptr && b.sync->from == s.from && b.sync->to == s.to && events_match(*b.sync, s);
}

void analyze_function(Program &prog, const FunctionView &view, const std::vector<Brief> &brief) {
  Walker walk(view);
  const FunctionRecord &fn = prog.functions[view.function];
  // --- set_flag / wait_flag handoffs, grouped by (producer pipe, consumer pipe, event).
  // Sets on dynamic operands group by the values the operand takes, not by its name:
  // every such set matches the same waits (all of its pipes with one of those values,
  // or all of them when the values are unknown), so one group per operand listed the
  // same waits and consumers k times over (k x w, the document growing faster than a
  // large function). The group's label names its operands: "%15, %27 in {0,1}".
  std::map<std::string, size_t> groups;
  struct Operands {
    std::vector<std::string> names;  // first seen first
    std::unordered_set<std::string> seen;
  };
  std::map<size_t, Operands> operands;  // group -> its dynamic operands
  // The handoff group of a set/wait: (producer pipe, consumer pipe, event) plus `suffix`, created on first use.
  auto group_of = [&](const OpRecord &op, const char *suffix) {
    const SyncInfo &s = *op.sync;
    const std::string values = event_values_text(s);
    std::string key = std::string(pipe_name(s.from)) + ">" + pipe_name(s.to) + ":" + (s.event ? values : "dynamic" + values) + suffix;
    auto it = groups.find(key);
    size_t idx = 0;
    if (it != groups.end()) {
      idx = it->second;
    } else {
      HandoffEdge e;
      e.id = static_cast<uint32_t>(prog.handoffs.size());
      e.function = view.function;
      e.core = fn.core;
      e.producer = s.from;
      e.consumer = s.to;
      e.event = values;
      prog.handoffs.push_back(std::move(e));
      idx = prog.handoffs.size() - 1;
      groups.emplace(std::move(key), idx);
    }
    if (!s.event) {
      Operands &o = operands[idx];
      std::string name = s.event_value.empty() ? "?" : s.event_value;
      if (o.seen.insert(name).second) o.names.push_back(std::move(name));
    }
    return idx;
  };
  std::vector<uint32_t> waits;
  for (uint32_t r = view.first_op; r < view.end_op; ++r) {
    const OpRecord &op = prog.ops[r];
    if (!op.sync) continue;
    if (op.cls == OpClass::WaitFlag) waits.push_back(r);
    if (op.cls != OpClass::SetFlag) continue;
    HandoffEdge &e = prog.handoffs[group_of(op, "")];
    e.set_ops.push_back(r);
    e.set_lines.push_back(op.line);
  }
  // Waits join every group they can match; a wait matching none gets its own group.
  // Only the groups of the wait's own pipes can match (every group so far has a set).
  std::map<std::pair<Pipe, Pipe>, std::vector<size_t>> groups_of_pipes;
  for (const auto &[key, idx] : groups)
    groups_of_pipes[{prog.handoffs[idx].producer, prog.handoffs[idx].consumer}].push_back(idx);
  for (uint32_t w : waits) {
    const OpRecord &op = prog.ops[w];
    bool matched = false;
    auto same_pipes = groups_of_pipes.find({op.sync->from, op.sync->to});
    if (same_pipes != groups_of_pipes.end()) for (size_t idx : same_pipes->second) {
      HandoffEdge &e = prog.handoffs[idx];
      if (!events_match(*prog.ops[e.set_ops[0]].sync, *op.sync)) continue;
      e.wait_ops.push_back(w);
      e.wait_lines.push_back(op.line);
      matched = true;
    }
    if (matched) continue;
    HandoffEdge &e = prog.handoffs[group_of(op, ":unmatched")];
    e.wait_ops.push_back(w);
    e.wait_lines.push_back(op.line);
  }
  // "%15, %27" before " in {0,1}"; past 8 operands, how many more (set_lines lists every set).
  constexpr size_t kNamedOperands = 8;
  for (const auto &[idx, o] : operands) {
    std::string names;
    for (size_t n = 0; n < o.names.size() && n < kNamedOperands; ++n) names += (n ? ", " : "") + o.names[n];
    if (o.names.size() > kNamedOperands) names += " and " + std::to_string(o.names.size() - kNamedOperands) + " more";
    prog.handoffs[idx].event.insert(0, names);
  }
  // The work after a wait depends on the wait alone, and a wait joins every
  // group it can match: walk once per wait, not once per group it joined.
  std::unordered_map<uint32_t, std::vector<uint32_t>> consumers_cache;
  auto consumers_of = [&](uint32_t w) -> const std::vector<uint32_t> & {
    auto [it, inserted] = consumers_cache.try_emplace(w);
    if (!inserted) return it->second;
    const SyncInfo &wi = *prog.ops[w].sync;
    size_t seen = 0;
    walk.forward(w, [&](uint32_t r) {
      if (r == w || same_flag(brief[r], OpClass::WaitFlag, wi)) return false;
      if (brief[r].work_on(wi.to)) {
        it->second.push_back(r);
        if (++seen >= kScanCap) return false;
      }
      return true;
    });
    return it->second;
  };
  // Groups with the same waits (every set whose event the analysis cannot
  // pin to one id matches every wait of its pipes) have the same consumer
  // side: computed once per distinct list of waits, not once per group.
  struct ConsumerSide {
    std::vector<uint32_t> ops;
    Count waits;
    std::optional<BufferSide> buffers;  // when a group needs the dependences
    std::string lines;                  // lines_of(ops), when a group needs it
  };
  std::map<std::vector<uint32_t>, ConsumerSide> consumer_sides;
  for (auto &[key, idx] : groups) {
    HandoffEdge &e = prog.handoffs[idx];
    UniqueList producers(e.producer_ops);
    for (uint32_t s : e.set_ops) {
      const SyncInfo &si = *prog.ops[s].sync;
      size_t seen = 0;
      walk.back(s, [&](uint32_t r) {
        if (same_flag(brief[r], OpClass::SetFlag, si)) return false;
        if (brief[r].work_on(si.from)) {
          producers.add(r);
          if (++seen >= kScanCap) return false;
        }
        return true;
      });
    }
    auto [side_it, new_side] = consumer_sides.try_emplace(e.wait_ops);
    ConsumerSide &side = side_it->second;
    if (new_side) {
      UniqueList consumers(side.ops);
      for (uint32_t w : e.wait_ops)
        for (uint32_t r : consumers_of(w)) consumers.add(r);
      side.waits = sum_counts(e.wait_ops, prog);
    }
    e.consumer_ops = side.ops;
    e.sets = sum_counts(e.set_ops, prog);
    e.waits = side.waits;
    auto consumer_lines = [&]() -> const std::string & {
      if (side.lines.empty()) side.lines = lines_of(prog, side.ops);
      return side.lines;
    };
    const std::string p = std::string("PIPE_") + pipe_name(e.producer), q = std::string("PIPE_") + pipe_name(e.consumer);
    if (e.set_ops.empty()) {
      e.kind = "unmatched";
      e.reason = "wait_flag with no set_flag of the same pipes and event in this function";
    } else if (e.producer_ops.empty()) {
      e.kind = "prologue";
      e.reason = "no " + p + " work precedes the set_flag: a credit that lets the first wait pass";
    } else if (e.consumer_ops.empty()) {
      e.kind = e.wait_ops.empty() ? "unmatched" : "epilogue";
      e.reason = e.wait_ops.empty() ? "set_flag with no wait_flag of the same pipes and event in this function"
                                    : "no " + q + " work follows the wait_flag: it drains an outstanding flag";
    } else {
      if (!side.buffers) side.buffers.emplace(prog, side.ops);
      Dependence d = dependences(BufferSide(prog, e.producer_ops), *side.buffers);
      e.dependences = d.kinds;
      if (!d.kinds.empty()) {
        e.kind = "mandatory";
        e.reason = "the " + p + " work before the set (lines " + lines_of(prog, e.producer_ops) + ") and the " + q +
                   " work after the wait (lines " + consumer_lines() + ") share a buffer";
      } else {
        e.kind = "avoidable";
        e.reason = "the " + p + " work before the set (lines " + lines_of(prog, e.producer_ops) + ") and the " + q +
                   " work after the wait (lines " + consumer_lines() + ") share no buffer";
      }
    }
  }
  // --- barriers.
  for (uint32_t r = view.first_op; r < view.end_op; ++r) {
    const OpRecord &op = prog.ops[r];
    if (op.cls != OpClass::PipeBarrier || !op.sync) continue;
    BarrierRecord b;
    b.op = r;
    b.function = view.function;
    b.line = op.line;
    b.core = fn.core;
    b.pipe = op.sync->from;
    b.count = op.count;
    const Pipe x = b.pipe;
    std::optional<uint32_t> stopped_at;
    walk.back(r, [&](uint32_t q) {
      const Brief &o = brief[q];
      if (q == r) return false;
      if (o.cls == OpClass::PipeBarrier && o.sync && (o.sync->from == x || o.sync->from == Pipe::ALL ||
                                                      (x == Pipe::ALL && o.sync->from == Pipe::ALL))) {
        if (x != Pipe::ALL || o.sync->from == Pipe::ALL) {
          stopped_at = q;
          return false;
        }
      }
      if (o.work_on(x)) b.before_ops.push_back(q);
      return b.before_ops.size() < kScanCap;
    });
    walk.forward(r, [&](uint32_t q) {
      const Brief &o = brief[q];
      if (q == r) return false;
      if (o.cls == OpClass::PipeBarrier && o.sync &&
          (x == Pipe::ALL ? o.sync->from == Pipe::ALL : (o.sync->from == x || o.sync->from == Pipe::ALL)))
        return false;
      if (o.work_on(x)) b.after_ops.push_back(q);
      return b.after_ops.size() < kScanCap;
    });
    const std::string pipe = std::string("PIPE_") + pipe_name(x);
    if (b.before_ops.empty() && stopped_at) {
      b.kind = "redundant";
      b.reason = "immediately follows the pipe_barrier at line " + std::to_string(prog.ops[*stopped_at].line) +
                 " with no " + pipe + " work in between";
    } else if (b.before_ops.empty()) {
      b.kind = "prologue";
      b.reason = "no " + pipe + " work precedes it";
    } else if (b.after_ops.empty()) {
      b.kind = "epilogue";
      b.reason = "no " + pipe + " work follows it (end of the kernel)";
    } else {
      Dependence d = dependences(prog, b.before_ops, b.after_ops);
      b.dependences = d.kinds;
      if (!d.kinds.empty()) {
        b.kind = "mandatory";
        b.reason = "work before (lines " + lines_of(prog, b.before_ops) + ") and after (lines " +
                   lines_of(prog, b.after_ops) + ") share a buffer";
      } else {
        b.kind = "avoidable";
        b.reason = "barrier between unrelated work: before (lines " + lines_of(prog, b.before_ops) +
                   ") and after (lines " + lines_of(prog, b.after_ops) + ") share no buffer";
      }
    }
    prog.barriers.push_back(std::move(b));
  }
}

void analyze_cross_core(Program &prog, const std::vector<FunctionView> &views, const std::vector<size_t> &group,
                        const std::vector<Brief> &brief) {
  struct SyncPoint {
    uint32_t op;
    size_t view;
  };
  std::vector<SyncPoint> sets, waits;
  const size_t first_edge = prog.cross_core.size();
  for (size_t vi : group)
    for (uint32_t r = views[vi].first_op; r < views[vi].end_op; ++r) {
      const OpRecord &op = prog.ops[r];
      if (!op.sync) continue;
      if (op.cls == OpClass::SyncBlockSet) sets.push_back({r, vi});
      if (op.cls == OpClass::SyncBlockWait) waits.push_back({r, vi});
    }
  std::map<std::pair<int64_t, std::pair<int, int>>, size_t> edges;
  auto flag_of = [&](uint32_t r) -> int64_t { return prog.ops[r].sync->event.value_or(-1); };
  // The waits of each flag, grouped by core in order of their first wait:
  // every set meets each group once (sets x groups, not sets x waits).
  struct WaitGroup {
    int core;
    const OpRecord *first;
    std::vector<uint32_t> lines;  // distinct, in wait order
    std::unordered_set<uint32_t> seen;
  };
  std::map<int64_t, std::vector<WaitGroup>> wait_groups;
  for (const SyncPoint &w : waits) {
    const OpRecord &wo = prog.ops[w.op];
    std::vector<WaitGroup> &groups_of_flag = wait_groups[flag_of(w.op)];
    auto g = std::find_if(groups_of_flag.begin(), groups_of_flag.end(),
                          [&](const WaitGroup &x) { return x.core == static_cast<int>(wo.core); });
    if (g == groups_of_flag.end()) g = groups_of_flag.insert(groups_of_flag.end(), {static_cast<int>(wo.core), &wo, {}, {}});
    if (g->seen.insert(wo.line).second) g->lines.push_back(wo.line);
  }
  std::map<size_t, std::unordered_set<uint32_t>> set_lines_seen;
  for (const SyncPoint &s : sets) {
    const OpRecord &so = prog.ops[s.op];
    auto groups_of_flag = wait_groups.find(flag_of(s.op));
    if (groups_of_flag == wait_groups.end()) continue;
    for (const WaitGroup &g : groups_of_flag->second) {
      const OpRecord &wo = *g.first;
      if (so.core == wo.core && so.core != CoreType::Unknown) continue;
      auto key = std::make_pair(flag_of(s.op), std::make_pair(static_cast<int>(so.core), g.core));
      auto it = edges.find(key);
      if (it == edges.end()) {
        CrossCoreEdge e;
        e.id = static_cast<uint32_t>(prog.cross_core.size());
        e.flag = flag_of(s.op);
        e.producer_function = so.function;
        e.consumer_function = wo.function;
        e.producer_core = so.core;
        e.consumer_core = wo.core;
        e.producer_pipe = so.sync->from;
        e.wait_lines = g.lines;
        prog.cross_core.push_back(std::move(e));
        it = edges.emplace(key, prog.cross_core.size() - 1).first;
      }
      CrossCoreEdge &e = prog.cross_core[it->second];
      if (set_lines_seen[it->second].insert(so.line).second) e.set_lines.push_back(so.line);
    }
  }
  for (size_t ei = first_edge; ei < prog.cross_core.size(); ++ei) {
    CrossCoreEdge &e = prog.cross_core[ei];
    std::vector<uint32_t> set_ops, wait_ops;
    UniqueList producers(e.producer_ops), consumers(e.consumer_ops);
    for (const SyncPoint &s : sets) {
      const OpRecord &so = prog.ops[s.op];
      if (flag_of(s.op) != e.flag || so.core != e.producer_core) continue;
      set_ops.push_back(s.op);
      Walker walk(views[s.view]);
      size_t seen = 0;
      const bool any_pipe = e.producer_pipe == Pipe::S || e.producer_pipe == Pipe::ALL;
      walk.back(s.op, [&](uint32_t r) {
        const Brief &op = brief[r];
        if (r == s.op) return false;
        if (op.cls == OpClass::SyncBlockSet && op.sync && op.sync->event.value_or(-1) == e.flag) return false;
        if (any_pipe && op.cls == OpClass::PipeBarrier && op.sync && op.sync->from == Pipe::ALL && seen > 0) return false;
        if (op.work_on(any_pipe ? Pipe::ALL : e.producer_pipe)) {
          producers.add(r);
          if (++seen >= 8) return false;
        }
        return true;
      });
    }
    for (const SyncPoint &w : waits) {
      const OpRecord &wo = prog.ops[w.op];
      if (flag_of(w.op) != e.flag || wo.core != e.consumer_core) continue;
      wait_ops.push_back(w.op);
      Walker walk(views[w.view]);
      size_t seen = 0;
      walk.forward(w.op, [&](uint32_t r) {
        const Brief &op = brief[r];
        if (r == w.op) return false;
        if (op.cls == OpClass::SyncBlockWait && op.sync && op.sync->event.value_or(-1) == e.flag) return false;
        if (op.work) {
          consumers.add(r);
          if (++seen >= 8) return false;
        }
        return true;
      });
    }
    e.sets = sum_counts(set_ops, prog);
    e.waits = sum_counts(wait_ops, prog);
    // The consumer pipe: the first consumer op that depends on the producer's data.
    std::vector<uint32_t> dependent;
    const BufferSide producer_side(prog, e.producer_ops);
    for (uint32_t c : e.consumer_ops)
      if (!dependences(producer_side, BufferSide(prog, {c})).kinds.empty()) dependent.push_back(c);
    if (!dependent.empty()) {
      e.consumer_pipe = prog.ops[dependent.front()].pipes.front();
      Dependence d = dependences(producer_side, BufferSide(prog, dependent));
      e.dependences = d.kinds;
      e.kind = "mandatory";
      e.reason = "the producer's work (lines " + lines_of(prog, e.producer_ops) + ") and the consumer's (lines " +
                 lines_of(prog, dependent) + ") share a GM buffer";
      e.consumer_ops = dependent;
    } else if (e.producer_ops.empty()) {
      e.kind = "prologue";
      e.reason = std::string("no PIPE_") + pipe_name(e.producer_pipe) + " work precedes the sync_block_set";
      if (!e.consumer_ops.empty()) e.consumer_pipe = prog.ops[e.consumer_ops.front()].pipes.front();
    } else if (e.consumer_ops.empty()) {
      e.kind = "epilogue";
      e.reason = "no work follows the sync_block_wait";
    } else {
      e.consumer_pipe = prog.ops[e.consumer_ops.front()].pipes.front();
      e.kind = "avoidable";
      e.reason = "the producer's work (lines " + lines_of(prog, e.producer_ops) + ") and the work after the wait (lines " +
                 lines_of(prog, e.consumer_ops) + ") share no buffer";
    }
  }
}

bool is_compute(Pipe p) { return p == Pipe::V || p == Pipe::M || p == Pipe::S; }

std::string component(CoreType core, Pipe p) {
  const char *c = "";
  switch (p) {
    case Pipe::S: c = "scalar"; break;
    case Pipe::V: c = "vector"; break;
    case Pipe::M: c = "cube"; break;
    case Pipe::MTE1: c = "mte1"; break;
    case Pipe::MTE2: c = "mte2"; break;
    case Pipe::MTE3: c = "mte3"; break;
    case Pipe::FIX: c = "fixpipe"; break;
    case Pipe::ALL: c = "all"; break;
    case Pipe::None: c = "none"; break;
  }
  return std::string(core_name(core)) + "." + c;
}

void trace_components(Program &prog, const std::set<uint32_t> &functions, size_t first_cross) {
  // A uniform view of intra-core handoffs and cross-core edges.
  struct Hop {
    bool cross = false;
    uint32_t id = 0;
    CoreType pcore = CoreType::Unknown, ccore = CoreType::Unknown;
    Pipe ppipe = Pipe::None, cpipe = Pipe::None;
    const std::vector<uint32_t> *producers = nullptr;
    const std::vector<uint32_t> *consumers = nullptr;
    std::vector<uint32_t> producers_sorted, consumers_sorted;  // for intersects()
    bool mandatory = false;
    bool raw = false;  // carries data (read after write): chains continue only through these
    int64_t count = 0;
    bool count_exact = true;
    std::vector<uint32_t> lines;
  };
  std::vector<Hop> hops;
  auto has_raw = [](const std::vector<std::string> &deps) {
    return std::find(deps.begin(), deps.end(), "RAW") != deps.end();
  };
  // The parts of a hop every sync edge gives the same way.
  auto link_hop = [&](Hop &h, const SyncLink &e) {
    h.producers = &e.producer_ops;
    h.consumers = &e.consumer_ops;
    h.mandatory = e.kind == "mandatory";
    h.raw = has_raw(e.dependences);
    h.count = e.sets.value;
    h.count_exact = e.sets.exact;
    h.lines = e.set_lines;
    h.lines.insert(h.lines.end(), e.wait_lines.begin(), e.wait_lines.end());
  };
  for (const HandoffEdge &e : prog.handoffs) {
    if (e.kind != "mandatory" && e.kind != "avoidable") continue;
    if (functions.count(e.function) == 0) continue;
    Hop h;
    h.id = e.id;
    h.pcore = h.ccore = e.core;
    h.ppipe = e.producer;
    h.cpipe = e.consumer;
    link_hop(h, e);
    hops.push_back(std::move(h));
  }
  for (size_t ei = first_cross; ei < prog.cross_core.size(); ++ei) {
    const CrossCoreEdge &e = prog.cross_core[ei];
    if (e.kind != "mandatory" && e.kind != "avoidable") continue;
    Hop h;
    h.cross = true;
    h.id = e.id;
    h.pcore = e.producer_core;
    h.ccore = e.consumer_core;
    h.ppipe = e.producer_pipe;
    h.cpipe = e.consumer_pipe;
    link_hop(h, e);
    hops.push_back(std::move(h));
  }
  // The MTE1 side of a cube macro op (mmadL1 loads L0A/L0B itself) is the cube component.
  auto all_cube = [&](const std::vector<uint32_t> *ops) {
    if (ops->empty()) return false;
    for (uint32_t id : *ops)
      if (prog.ops[id].cls != OpClass::Cube) return false;
    return true;
  };
  auto sorted = [](const std::vector<uint32_t> &ops) {
    std::vector<uint32_t> out(ops);
    std::sort(out.begin(), out.end());
    return out;
  };
  for (Hop &h : hops) {
    if (h.ppipe == Pipe::MTE1 && all_cube(h.producers)) h.ppipe = Pipe::M;
    if (h.cpipe == Pipe::MTE1 && all_cube(h.consumers)) h.cpipe = Pipe::M;
    h.producers_sorted = sorted(*h.producers);
    h.consumers_sorted = sorted(*h.consumers);
  }
  // Whether two sorted op lists share an op: the smaller one's ops looked up in the larger.
  auto intersects = [](const std::vector<uint32_t> &a, const std::vector<uint32_t> &b) {
    const std::vector<uint32_t> &small = a.size() <= b.size() ? a : b;
    const std::vector<uint32_t> &large = a.size() <= b.size() ? b : a;
    for (uint32_t x : small)
      if (std::binary_search(large.begin(), large.end(), x)) return true;
    return false;
  };
  struct Acc {
    std::map<size_t, int64_t> by_first_hop;  // first hop -> largest chain multiplicity
    bool exact = true;
    // What the edge's lists already hold (they grow with every chain through it).
    std::unordered_set<uint32_t> handoffs, cross_core_edges, lines;
  };
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<Acc> accs;
  std::vector<ComponentEdge> edges;
  auto emit = [&](const std::vector<size_t> &chain) {
    const Hop &first = hops[chain.front()];
    const Hop &last = hops[chain.back()];
    std::string producer = component(first.pcore, first.ppipe);
    std::string consumer = component(last.ccore, last.cpipe);
    bool mandatory = true, cross = false, exact = true;
    int64_t mult = -1;
    std::vector<std::string> via;
    for (size_t k = 0; k < chain.size(); ++k) {
      const Hop &h = hops[chain[k]];
      mandatory = mandatory && h.mandatory;
      cross = cross || h.cross;
      exact = exact && h.count_exact;
      mult = mult < 0 ? h.count : std::min(mult, h.count);
      if (k > 0) via.push_back(component(h.pcore, h.ppipe));
    }
    auto key = std::make_pair(producer, consumer);
    auto it = index.find(key);
    if (it == index.end()) {
      ComponentEdge ce;
      ce.producer = producer;
      ce.consumer = consumer;
      edges.push_back(std::move(ce));
      accs.emplace_back();
      it = index.emplace(key, edges.size() - 1).first;
    }
    ComponentEdge &ce = edges[it->second];
    Acc &acc = accs[it->second];
    if (mandatory && !ce.mandatory) {
      // Mandatory chains define the multiplicity; avoidable ones are kept as context.
      acc.by_first_hop.clear();
      acc.exact = true;
    }
    if (mandatory || !ce.mandatory) {
      int64_t &slot = acc.by_first_hop[chain.front()];
      slot = std::max(slot, std::max<int64_t>(0, mult));
      acc.exact = acc.exact && exact;
    }
    ce.mandatory = ce.mandatory || mandatory;
    ce.cross_core = ce.cross_core || cross;
    ++ce.chains;
    if (std::find(ce.vias.begin(), ce.vias.end(), via) == ce.vias.end() && ce.vias.size() < 16) ce.vias.push_back(via);
    for (size_t k : chain) {
      const Hop &h = hops[k];
      if (h.cross) {
        if (acc.cross_core_edges.insert(h.id).second) ce.cross_core_edges.push_back(h.id);
      } else if (acc.handoffs.insert(h.id).second) {
        ce.handoffs.push_back(h.id);
      }
      for (uint32_t l : h.lines)
        if (acc.lines.insert(l).second) ce.lines.push_back(l);
    }
  };
  // Follows data (RAW) through carriers until a compute pipe consumes it.
  std::function<void(std::vector<size_t> &)> follow = [&](std::vector<size_t> &chain) {
    const Hop &cur = hops[chain.back()];
    if (is_compute(cur.cpipe) || !cur.raw || chain.size() >= 6) {
      emit(chain);
      return;
    }
    bool continued = false;
    for (size_t k = 0; k < hops.size(); ++k) {
      const Hop &nx = hops[k];
      if (!nx.raw || nx.pcore != cur.ccore || nx.ppipe != cur.cpipe) continue;
      if (std::find(chain.begin(), chain.end(), k) != chain.end()) continue;
      if (!intersects(nx.producers_sorted, cur.consumers_sorted)) continue;
      continued = true;
      chain.push_back(k);
      follow(chain);
      chain.pop_back();
    }
    if (!continued) emit(chain);
  };
  for (size_t k = 0; k < hops.size(); ++k) {
    const Hop &h = hops[k];
    if (!is_compute(h.ppipe) && h.raw) {
      // Covered by the compute chains that feed this carrier when they run at least as often.
      int64_t fed = 0;
      for (const Hop &g : hops)
        if (g.raw && is_compute(g.ppipe) && g.ccore == h.pcore && g.cpipe == h.ppipe &&
            intersects(g.consumers_sorted, h.producers_sorted))
          fed += g.count;
      if (fed > 0 && fed >= h.count) continue;
    }
    std::vector<size_t> chain = {k};
    follow(chain);
  }
  for (size_t idx = 0; idx < edges.size(); ++idx) {
    ComponentEdge &ce = edges[idx];
    ce.multiplicity = 0;
    for (const auto &[hop, mult] : accs[idx].by_first_hop) ce.multiplicity += mult;
    ce.multiplicity_exact = accs[idx].exact;
    std::sort(ce.lines.begin(), ce.lines.end());
    prog.component_edges.push_back(std::move(ce));
  }
}

}  // namespace

void analyze_sync(Program &program, const std::vector<FunctionView> &views) {
  const std::vector<Brief> brief = briefs_of(program);
  for (const FunctionView &view : views) analyze_function(program, view, brief);
  // Kernels: the _mix_aic and _mix_aiv parts of one mix kernel (consecutive, same base name) sync with
  // each other; every other function stands alone.
  auto base = [](const std::string &name) {
    for (const char *suffix : {"_mix_aic", "_mix_aiv"})
      if (name.size() > 8 && name.compare(name.size() - 8, 8, suffix) == 0) return name.substr(0, name.size() - 8);
    return name;
  };
  for (size_t vi = 0; vi < views.size();) {
    std::vector<size_t> group = {vi};
    const FunctionRecord &f = program.functions[views[vi].function];
    if (!f.mix_part.empty() && vi + 1 < views.size()) {
      const FunctionRecord &g = program.functions[views[vi + 1].function];
      if (!g.mix_part.empty() && g.mix_part != f.mix_part && base(g.name) == base(f.name)) group.push_back(vi + 1);
    }
    const size_t first_cross = program.cross_core.size();
    analyze_cross_core(program, views, group, brief);
    std::set<uint32_t> functions;
    for (size_t idx : group) functions.insert(views[idx].function);
    trace_components(program, functions, first_cross);
    vi += group.size();
  }
}

}  // namespace pb::hivm
