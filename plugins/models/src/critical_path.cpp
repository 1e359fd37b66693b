//===- critical_path.cpp - the critical_path term (HIVM tier) -------------===//
//
// The ordering graph of a block, read from the op records of a
// perfbound.hivm_program/1 in program order, and its longest path, computed
// region by region without expanding loops. docs/model.md §3.6 states the
// rules and the argument for each; the comments here say where each rule is
// applied.
//
// Weights are totals: a node's weight is the time its op needs over all of
// its executions in one block (its per-block minimum over the grid, per core
// instance), at the pipe's throughput rate. A path through nodes that runs
// once per iteration of the loops around it then weighs the sum over those
// iterations of the path's per-iteration time, which is at most the time
// those iterations take whenever the iterations of the path cannot overlap:
// between PIPE_ALL barriers, and along chains that carry from one iteration
// to the next.
//
//===----------------------------------------------------------------------===//
#include "critical_path.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "formulas.hpp"
#include "hivm_view.hpp"
#include "terms.hpp"

namespace pb::models {

const char *const kLatencyConstants[4] = {"dma_completion_latency", "flag_latency", "pipe_barrier_all_latency",
                                         "scalar_gm_load_latency"};

const char *const kArgumentLatency =
    "A calibrated latency is the fastest time a microbenchmark measured between an event and the first instruction "
    "that waits for it: a DMA's issue and the set_flag (or barrier) that needs it complete, a set_flag and its "
    "wait_flag, a PIPE_ALL barrier and the next instruction. On the critical path each such wait is exposed once per "
    "execution, because the next node of the path cannot start before it; the figure is a measured minimum over "
    "repeated single-event chains (perfbound calibrate, docs/profiles.md), so it is argued, not theoretical: "
    "latency = \"none\" leaves it out.";

namespace {

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

enum PipeId : int { kS, kV, kM, kMte1, kMte2, kMte3, kFix, kPipeCount };
constexpr const char *kPipeNames[kPipeCount] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};

int pipe_index(const std::string &name) {
  for (int p = 0; p < kPipeCount; ++p)
    if (name == kPipeNames[p]) return p;
  return -1;
}

int pipe_of_component(const std::string &component) {
  if (component == "vector") return kV;
  if (component == "cube") return kM;
  if (component == "mte1") return kMte1;
  if (component == "mte2") return kMte2;
  if (component == "mte3") return kMte3;
  if (component == "fixpipe") return kFix;
  if (component == "scalar") return kS;
  return -1;
}

// Slots: (form) x (claim). The waves form weighs each op by its per-block
// minimum over the grid; the mean form by its grid total. Claims: strict
// (theoretical rates, guaranteed counts), given (plus the user's facts),
// argued (plus the scalar issue rate and calibrated latencies).
enum Claim : int { kStrict, kGiven, kArgued, kClaims };
enum Form : int { kWaves, kMean, kForms };
constexpr int kSlots = static_cast<int>(kClaims) * static_cast<int>(kForms);
constexpr int slot(Form f, Claim c) { return static_cast<int>(f) * static_cast<int>(kClaims) + static_cast<int>(c); }
using Weights = std::array<double, kSlots>;

Weights operator+(const Weights &a, const Weights &b) {
  Weights out{};
  for (int s = 0; s < kSlots; ++s) out[s] = a[s] + b[s];
  return out;
}
Weights &operator+=(Weights &a, const Weights &b) { return a = a + b; }
Weights wmax(const Weights &a, const Weights &b) {
  Weights out{};
  for (int s = 0; s < kSlots; ++s) out[s] = std::max(a[s], b[s]);
  return out;
}
Weights scaled(const Weights &a, double factor) {
  Weights out{};
  for (int s = 0; s < kSlots; ++s) out[s] = a[s] * factor;
  return out;
}
bool any(const Weights &a) {
  return std::any_of(a.begin(), a.end(), [](double x) { return x > 0; });
}

//===----------------------------------------------------------------------===//
// The function as a tree of regions
//===----------------------------------------------------------------------===//

const json &member(const json &obj, const char *key) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}
double number(const json &obj, const char *key, double fallback = 0) {
  const json &v = member(obj, key);
  return v.is_number() ? v.get<double>() : fallback;
}
std::string text(const json &obj, const char *key) {
  const json &v = member(obj, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}
bool flag(const json &obj, const char *key) {
  const json &v = member(obj, key);
  return v.is_boolean() && v.get<bool>();
}

struct Count {
  double min = 0;
  std::optional<double> max;
  bool exact = false;
  bool block_dependent = false;
};
Count count_of(const json &c) {
  Count out;
  out.min = number(c, "min");
  if (member(c, "max").is_number()) out.max = number(c, "max");
  out.exact = flag(c, "exact");
  out.block_dependent = flag(c, "block_dependent");
  return out;
}

struct Region;

/// One op record or one loop of a region, in program order.
struct Item {
  const json *op = nullptr;       // the op record (for a loop: its scf.for)
  std::unique_ptr<Region> body;   // loops only
};

struct Region {
  std::vector<Item> items;
  /// Executions of the region per block (all core instances together):
  /// the function's instances for its body, entries x trips for a loop's.
  std::optional<double> executions;
  /// For a loop's body: the exact trip count per entry, when it has one.
  std::optional<double> trips;
};

struct LoopInfo {
  Count trip, entries;
};

/// Builds the region tree of ops[first..last] from their loop depths: an
/// scf.for at depth d owns the ops after it at depth > d.
class TreeBuilder {
 public:
  TreeBuilder(const json &ops, size_t first, size_t last, const std::map<int, LoopInfo> &loops)
      : ops_(ops), pos_(first), last_(last), loops_(loops) {}

  std::unique_ptr<Region> build(double instances) {
    auto top = std::make_unique<Region>();
    top->executions = instances;
    fill(*top, depth_of(pos_));
    return top;
  }

 private:
  int depth_of(size_t idx) const { return idx <= last_ ? static_cast<int>(number(ops_[idx], "loop_depth")) : -1; }

  void fill(Region &region, int depth) {
    while (pos_ <= last_) {
      const json &op = ops_[pos_];
      int d = depth_of(pos_);
      if (d < depth) return;
      ++pos_;
      Item item;
      item.op = &op;
      if (text(op, "op") == "scf.for") {
        item.body = std::make_unique<Region>();
        auto it = loops_.find(static_cast<int>(number(op, "line")));
        Count loop_count = count_of(member(op, "count"));
        if (it != loops_.end()) {
          const Count &trip = it->second.trip;
          if (trip.exact && trip.max && trip.min == *trip.max) item.body->trips = trip.min;
          if (loop_count.exact && item.body->trips) item.body->executions = loop_count.min * *item.body->trips;
        }
        fill(*item.body, d + 1);
      }
      region.items.push_back(std::move(item));
    }
  }

  const json &ops_;
  size_t pos_;
  size_t last_;
  const std::map<int, LoopInfo> &loops_;
};

/// An op runs every time its region runs (an op in an scf.if, or in a loop
/// whose trip count is unknown, may not).
bool unconditional(const json &op, const Region &region) {
  Count c = count_of(member(op, "count"));
  return region.executions && *region.executions > 0 && c.exact && !c.block_dependent && c.min >= *region.executions;
}

//===----------------------------------------------------------------------===//
// Flags: which wait_flag waits for which set_flag
//===----------------------------------------------------------------------===//

// A flag is a bit per (set pipe, wait pipe, event): set_flag sets it,
// wait_flag waits for it and clears it. When every set_flag and wait_flag of
// a key runs unconditionally and, in execution order, they alternate
// starting with a set (set, wait, set, wait, ...), each wait_flag waits for
// the set_flag immediately before it. Keys for which this cannot be shown
// (a dynamic event id, a conditional set, a loop that may run zero times,
// two sets in a row) give no edge: fewer edges only shorten the path.

struct Word {
  bool empty = true;
  char first = 0, last = 0;
  bool ok = true;
};
Word cat(const Word &a, const Word &b) {
  if (a.empty) return b;
  if (b.empty) return a;
  return Word{false, a.first, b.last, a.ok && b.ok && a.last != b.first};
}

std::string flag_key(const json &op) {
  const json &sync = member(op, "sync");
  const json &event = member(sync, "event");
  if (!event.is_number_integer()) return {};
  return text(sync, "from") + ">" + text(sync, "to") + "#" + std::to_string(event.get<int64_t>());
}

bool is_flag(const json &op) {
  std::string cls = text(op, "class");
  return cls == "set_flag" || cls == "wait_flag";
}

/// The word of every key over a region (loops repeated).
void key_words(const Region &region, std::map<std::string, Word> &words) {
  for (const Item &item : region.items) {
    if (item.body) {
      std::map<std::string, Word> inner;
      key_words(*item.body, inner);
      for (auto &[key, w] : inner) {
        Word rep = w;
        // Repeated trips times (at least once): alternation survives only
        // if the body's word ends with the other letter it starts with.
        bool runs = item.body->trips && *item.body->trips >= 1 && item.body->executions && unconditional(*item.op, region);
        if (!runs) rep.ok = false;
        else if (*item.body->trips >= 2 && w.first == w.last) rep.ok = false;
        words[key] = cat(words[key], rep);
      }
      continue;
    }
    const json &op = *item.op;
    if (!is_flag(op)) continue;
    std::string key = flag_key(op);
    if (key.empty()) continue;
    Word letter{false, text(op, "class") == "set_flag" ? 'S' : 'W', 0, unconditional(op, region)};
    letter.last = letter.first;
    words[key] = cat(words[key], letter);
  }
}

//===----------------------------------------------------------------------===//
// Segments and their longest paths
//===----------------------------------------------------------------------===//

struct Node {
  enum class Kind { Work, Set, Wait, Summary } kind = Kind::Work;
  int pipe = kS;
  Weights w{};           // throughput time: what the node keeps its pipe busy
  Weights tail{};        // latency after it (argued): exposed before a set_flag or barrier that waits for it
  Weights match_lat{};   // a matched wait: the flag's latency after its set (argued)
  bool regular = false;  // constant per-execution time and exact count: an iteration's share is w / trips
  std::string key;       // flags
  int match = -1;        // a wait: index of the set it waits for, in the same segment
  int line = 0;
  std::string op;
  double executions = 0;  // per block and core instance (flags, DMAs: events on a chain)
  bool dma = false;
};

struct Segment {
  std::vector<Node> nodes;
  Weights inner{};  // a nested loop's own bound: the segment lasts at least this long
  int inner_line = 0;
};

/// What the longest path in a segment crosses, for the slot that is reported.
struct PathInfo {
  std::vector<int> lines;
  double flag_waits = 0;  // matched wait_flags on the path, per block
  double dma = 0;         // DMA executions on the path, per block
  double work_ops = 0;
};

/// When node `idx` can start, from the nodes before it that are reached:
/// the node before it on its pipe (plus that node's latency when `idx` is
/// a set_flag, which waits for it to complete) and, for a wait_flag, the
/// set_flag it waits for (plus the flag's latency).
template <class Reached>
std::optional<Weights> start_of(const Segment &seg, const std::vector<Weights> &dist, const Reached &reached, size_t idx,
                                int prev, std::array<int, kSlots> *from) {
  const Node &node = seg.nodes[idx];
  std::optional<Weights> start;
  if (prev >= 0 && reached(prev)) {
    start = dist[prev];
    if (node.kind == Node::Kind::Set) *start += seg.nodes[prev].tail;
    if (from != nullptr) from->fill(prev);
  }
  if (node.match >= 0 && reached(node.match)) {
    Weights via = dist[node.match] + node.match_lat;
    if (!start) {
      start = via;
      if (from != nullptr) from->fill(node.match);
    } else {
      for (int s = 0; s < kSlots; ++s)
        if (via[s] > (*start)[s]) {
          (*start)[s] = via[s];
          if (from != nullptr) (*from)[s] = node.match;
        }
    }
  }
  return start;
}

/// The longest path through a segment: each node starts after the node
/// before it on its pipe and, for a wait_flag, after the set_flag it waits
/// for (program order makes it a DAG); the segment ends when its last node
/// has completed (latency included). Also the nested loops' own bounds.
Weights longest(const Segment &seg, int report_slot, PathInfo *info) {
  const size_t n = seg.nodes.size();
  std::vector<Weights> dist(n);
  std::vector<std::array<int, kSlots>> from(n);
  std::array<int, kPipeCount> last_on_pipe;
  last_on_pipe.fill(-1);
  Weights best{};
  std::array<int, kSlots> best_end;
  best_end.fill(-1);
  auto always = [](int) { return true; };
  for (size_t idx = 0; idx < n; ++idx) {
    const Node &node = seg.nodes[idx];
    from[idx].fill(-1);
    std::optional<Weights> start = start_of(seg, dist, always, idx, last_on_pipe[node.pipe], &from[idx]);
    dist[idx] = start.value_or(Weights{}) + node.w;
    Weights done = dist[idx] + node.tail;
    for (int s = 0; s < kSlots; ++s)
      if (done[s] > best[s]) best[s] = done[s], best_end[s] = static_cast<int>(idx);
    last_on_pipe[node.pipe] = static_cast<int>(idx);
  }
  if (info != nullptr && best_end[report_slot] >= 0 && best[report_slot] >= seg.inner[report_slot]) {
    for (int idx = best_end[report_slot]; idx >= 0; idx = from[idx][report_slot]) {
      const Node &node = seg.nodes[idx];
      if (node.kind == Node::Kind::Wait && node.match >= 0 && from[idx][report_slot] == node.match)
        info->flag_waits += node.executions;
      if (node.dma) info->dma += node.executions;
      if (node.kind == Node::Kind::Work || node.kind == Node::Kind::Summary) {
        info->work_ops += 1;
        if (node.line > 0 && info->lines.size() < 64) info->lines.push_back(node.line);
      }
    }
  } else if (info != nullptr && seg.inner_line > 0 && info->lines.size() < 64) {
    info->lines.push_back(seg.inner_line);
  }
  return wmax(best, seg.inner);
}

/// A loop without a PIPE_ALL barrier in its body: its iterations may
/// overlap, so only chains that carry from one iteration to the next bound
/// it: each pipe's own work (a pipe is in order), and each cycle through a
/// flag whose set_flag ends an iteration and whose wait_flag starts the next
/// (the path from that wait to that set, summed over every iteration).
Weights open_loop_bound(const Segment &body, const std::vector<std::pair<int, int>> &wraps) {
  Weights best = body.inner;
  std::array<Weights, kPipeCount> per_pipe{};
  for (const Node &node : body.nodes) per_pipe[node.pipe] += node.w;
  for (const Weights &w : per_pipe) best = wmax(best, w);
  for (auto [wait_idx, set_idx] : wraps) {
    const size_t n = body.nodes.size();
    std::vector<Weights> dist(n);
    std::vector<bool> reached(n, false);
    auto is_reached = [&](int idx) { return reached[idx]; };
    std::array<int, kPipeCount> last_on_pipe;
    last_on_pipe.fill(-1);
    for (size_t idx = 0; idx < n; ++idx) {
      const Node &node = body.nodes[idx];
      if (static_cast<int>(idx) == wait_idx) {
        reached[idx] = true;
        dist[idx] = node.match_lat + node.w;  // the wrap edge: the set of the iteration before, plus the flag's latency
      } else if (static_cast<int>(idx) > wait_idx) {
        std::optional<Weights> start = start_of(body, dist, is_reached, idx, last_on_pipe[node.pipe], nullptr);
        if (start) {
          reached[idx] = true;
          dist[idx] = *start + node.w;
        }
      }
      last_on_pipe[node.pipe] = static_cast<int>(idx);
    }
    if (reached[set_idx]) best = wmax(best, dist[set_idx]);
  }
  return best;
}

struct Summary {
  bool closed = false;  // an unconditional PIPE_ALL runs inside
  Segment head;         // open: the whole region; closed: before the first barrier
  Segment tail;         // closed: after the last barrier
  Weights middle{};     // closed: the segments between barriers
  std::array<Weights, kPipeCount> pipe_total{};
  std::vector<std::pair<int, int>> wraps;  // open region used as a loop body: (wait index, set index) in head
  double barriers = 0;                     // unconditional PIPE_ALL executions per block and instance
  PathInfo path;                           // what the middle's longest paths cross
};

struct WeightContext {
  const Rates &rates;
  const CriticalPathOptions &options;
  std::optional<double> blocks;
  double instances = 1;
  std::set<std::string> valid_keys;
  std::array<std::optional<double>, 4> latency_cycles;  // kLatencyConstants
  int report_slot = slot(kWaves, kArgued);
};

std::optional<double> class_rate(const WeightContext &ctx, const std::string &component, const std::string &cls) {
  auto value_of = [](const auto &rate) -> std::optional<double> {
    if (!rate.known()) return std::nullopt;
    return rate.value->value();
  };
  if (component == "vector") {
    if (cls.rfind("bytes:", 0) == 0) return value_of(ctx.rates.path(cls.substr(6)));
    return value_of(ctx.rates.vector_repeats());
  }
  if (component == "cube") return value_of(ctx.rates.cube(cls));
  if (component == "scalar") return ctx.options.issue_per_cycle * ctx.rates.clock.value();
  return value_of(ctx.rates.path(cls));
}

/// The nodes of one work op: one per pipe it keeps busy (mmadL1: MTE1 and
/// M, with no order between them).
void work_nodes(const json &op, const WeightContext &ctx, std::vector<Node> &out) {
  OpWork work = op_work(op, ctx.blocks);
  if (work.core.empty()) return;
  std::array<Weights, kPipeCount> by_pipe{};
  std::array<bool, kPipeCount> used{};
  const double blocks = ctx.blocks.value_or(0);
  for (const OpWorkItem &item : work.items) {
    int pipe = pipe_of_component(item.component);
    if (pipe < 0) continue;
    std::optional<double> rate = class_rate(ctx, item.component, item.work_class);
    if (!rate || *rate <= 0) continue;
    const Amount &a = item.amount;
    const Amount g = a.with_given();
    Weights w{};
    double k = ctx.instances;
    w[slot(kWaves, kStrict)] = a.uniform / k / *rate;
    w[slot(kWaves, kGiven)] = g.uniform / k / *rate;
    w[slot(kMean, kStrict)] = a.grid(blocks) / k / *rate;
    w[slot(kMean, kGiven)] = g.grid(blocks) / k / *rate;
    w[slot(kWaves, kArgued)] = w[slot(kWaves, kGiven)];
    w[slot(kMean, kArgued)] = w[slot(kMean, kGiven)];
    if (item.component == "scalar") {
      // The issue rate is argued (docs/model.md §3.5): scalar work weighs
      // only in the argued slots.
      for (Form f : {kWaves, kMean})
        for (Claim c : {kStrict, kGiven}) w[slot(f, c)] = 0;
    }
    by_pipe[pipe] += w;
    used[pipe] = true;
  }
  Count count = count_of(member(op, "count"));
  bool tainted = false;
  for (const json &note : member(op, "notes").is_array() ? member(op, "notes") : json::array())
    if (note.is_string() && note.get<std::string>().find("per-execution values are for block 0") != std::string::npos)
      tainted = true;
  const json &estimated = member(op, "estimated");
  bool regular = count.exact && !count.block_dependent && !tainted && (!estimated.is_array() || estimated.empty());
  bool dma = text(op, "class") == "dma";
  for (int p = 0; p < kPipeCount; ++p) {
    if (!used[p]) continue;
    Node node;
    node.kind = Node::Kind::Work;
    node.pipe = p;
    node.w = by_pipe[p];
    node.regular = regular;
    node.line = static_cast<int>(number(op, "line"));
    node.op = text(op, "op");
    node.executions = count.min / ctx.instances;
    node.dma = dma;
    out.push_back(std::move(node));
  }
}

/// Adds the calibrated latency (argued slots) of an event that runs
/// `executions` times per block and instance on the chain.
void add_latency(Weights &w, const WeightContext &ctx, int constant, double executions) {
  const std::optional<double> &cycles = ctx.latency_cycles[constant];
  if (!cycles || ctx.options.latency == "none") return;
  double seconds = *cycles / ctx.rates.clock.value();
  double blocks = ctx.blocks.value_or(0);
  w[slot(kWaves, kArgued)] += executions * seconds;
  w[slot(kMean, kArgued)] += executions * blocks * seconds;
}

/// Tracks, per flag key, the last set_flag and wait_flag of the current
/// segment, to match each wait to the set before it.
struct FlagState {
  std::map<std::string, int> last_set;       // key -> node index of a set with no wait after it yet
  std::map<std::string, int> first_wait;     // key -> first wait of the segment (wrap candidates)
  std::map<std::string, int> last_kind;      // key -> 'S' / 'W' of the last one in this segment
  std::set<std::string> broken;              // a nested loop holds the key: no wrap
  void reset() { last_set.clear(), first_wait.clear(), last_kind.clear(), broken.clear(); }
};

Summary analyze(const Region &region, WeightContext &ctx);

/// The nodes of a closed loop's first (or last) iteration: an iteration's
/// share of each regular node; 0 for the others (their time is not known per
/// iteration, so it is left to no segment rather than counted twice).
void append_instance(Segment &to, const Segment &from, double trips, double keep_share) {
  const int offset = static_cast<int>(to.nodes.size());
  for (const Node &node : from.nodes) {
    Node copy = node;
    double share = node.regular ? keep_share / trips : 0.0;
    copy.w = scaled(node.w, share);
    copy.tail = scaled(node.tail, share);
    copy.match_lat = scaled(node.match_lat, share);
    if (copy.match >= 0) copy.match += offset;
    copy.executions = node.executions / trips * keep_share;
    to.nodes.push_back(std::move(copy));
  }
}

/// Ends the current segment at a PIPE_ALL barrier (or a loop that holds one).
void close_segment(Summary &out, Segment &cur, bool &seen_barrier, const WeightContext &ctx) {
  if (!seen_barrier) {
    out.head = std::move(cur);
  } else {
    out.middle += longest(cur, ctx.report_slot, &out.path);
  }
  seen_barrier = true;
  cur = Segment{};
}

Summary analyze(const Region &region, WeightContext &ctx) {
  Summary out;
  Segment cur;
  bool seen_barrier = false;
  FlagState flags;
  auto add_node = [&](Node node) {
    out.pipe_total[node.pipe] += node.w;
    cur.nodes.push_back(std::move(node));
  };
  for (const Item &item : region.items) {
    const json &op = *item.op;
    if (item.body) {
      Summary sub = analyze(*item.body, ctx);
      for (int p = 0; p < kPipeCount; ++p) out.pipe_total[p] += sub.pipe_total[p];
      // A key the loop holds breaks matching across it (its last set is
      // inside the loop, where this segment cannot see it).
      std::map<std::string, Word> inner;
      key_words(*item.body, inner);
      for (const auto &[key, w] : inner) {
        flags.last_set.erase(key);
        flags.broken.insert(key);
        flags.last_kind[key] = 'X';
      }
      bool runs_exactly = unconditional(op, region) && item.body->trips && *item.body->trips >= 1;
      if (sub.closed && runs_exactly) {
        // A loop with a PIPE_ALL barrier in every iteration: its first
        // iteration's head belongs to this segment, then come the segments
        // between its barriers, the (last iteration's tail + next iteration's
        // head) wraps, and its last iteration's tail starts the next segment.
        const double trips = *item.body->trips;
        append_instance(cur, sub.head, trips, 1.0);
        out.path.lines.insert(out.path.lines.end(), sub.path.lines.begin(), sub.path.lines.end());
        out.path.flag_waits += sub.path.flag_waits;
        out.path.dma += sub.path.dma;
        out.path.work_ops += sub.path.work_ops;
        close_segment(out, cur, seen_barrier, ctx);
        out.middle += sub.middle;
        out.barriers += sub.barriers;
        if (trips >= 2) {
          Segment wrap;
          append_instance(wrap, sub.tail, trips, trips - 1);
          // A set at the end of an iteration and the wait at the start of
          // the next: the wrap's own matching (FlagState is per segment).
          int tail_count = static_cast<int>(wrap.nodes.size());
          append_instance(wrap, sub.head, trips, trips - 1);
          std::map<std::string, int> last_set;
          for (int idx = 0; idx < static_cast<int>(wrap.nodes.size()); ++idx) {
            Node &node = wrap.nodes[idx];
            if (node.key.empty()) continue;
            if (node.kind == Node::Kind::Set) last_set[node.key] = idx;
            if (node.kind == Node::Kind::Wait) {
              if (idx >= tail_count && node.match < 0) {
                auto it = last_set.find(node.key);
                if (it != last_set.end() && it->second < tail_count) node.match = it->second;
              }
              last_set.erase(node.key);
            }
          }
          // A key with key ops between the head and the tail (in the
          // middle segments) must not match across: only the tail's last
          // op of a key may precede the head's first. The per-segment
          // FlagState of the body already cleared such keys from the tail
          // (a set followed by a wait), and a set in the middle is never in
          // the wrap. A set in the tail followed, in the middle of the next
          // iteration... cannot happen: the head comes first.
          out.middle += longest(wrap, ctx.report_slot, &out.path);
        }
        append_instance(cur, sub.tail, trips, 1.0);
        flags.reset();
        continue;
      }
      // Otherwise the loop is one piece of this segment: its work per pipe
      // (in pipe order with the rest), and its own bound.
      Weights own = sub.closed ? sub.middle : open_loop_bound(sub.head, sub.wraps);
      for (int p = 0; p < kPipeCount; ++p) {
        if (!any(sub.pipe_total[p])) continue;
        Node node;
        node.kind = Node::Kind::Summary;
        node.pipe = p;
        node.w = sub.pipe_total[p];
        node.line = static_cast<int>(number(op, "line"));
        node.op = "scf.for";
        cur.nodes.push_back(std::move(node));
      }
      if (own[ctx.report_slot] > cur.inner[ctx.report_slot]) cur.inner_line = static_cast<int>(number(op, "line"));
      cur.inner = wmax(cur.inner, own);
      continue;
    }

    const std::string cls = text(op, "class");
    if (cls == "pipe_barrier") {
      if (text(member(op, "sync"), "from") == "ALL" && unconditional(op, region)) {
        Count c = count_of(member(op, "count"));
        out.barriers += c.min / ctx.instances;
        Weights lat{};
        add_latency(lat, ctx, 2, c.min / ctx.instances);
        out.middle += lat;
        // Every earlier instruction completes before the barrier lets the
        // next one start: the last DMA of each pipe exposes its latency.
        std::array<int, kPipeCount> last{};
        last.fill(-1);
        for (size_t idx = 0; idx < cur.nodes.size(); ++idx) last[cur.nodes[idx].pipe] = static_cast<int>(idx);
        for (int idx : last)
          if (idx >= 0 && cur.nodes[idx].dma) add_latency(cur.nodes[idx].tail, ctx, 0, cur.nodes[idx].executions);
        close_segment(out, cur, seen_barrier, ctx);
        flags.reset();
      }
      continue;  // a barrier on one pipe adds nothing to throughput order
    }
    if (is_flag(op)) {
      std::string key = flag_key(op);
      if (key.empty() || ctx.valid_keys.count(key) == 0) continue;
      const json &pipes = member(op, "pipes");
      int pipe = pipes.is_array() && !pipes.empty() && pipes[0].is_string() ? pipe_index(pipes[0].get<std::string>()) : -1;
      if (pipe < 0) continue;
      Node node;
      node.pipe = pipe;
      node.key = key;
      node.line = static_cast<int>(number(op, "line"));
      node.op = text(op, "op");
      node.executions = count_of(member(op, "count")).min / ctx.instances;
      node.regular = true;
      const int idx = static_cast<int>(cur.nodes.size());
      if (cls == "set_flag") {
        node.kind = Node::Kind::Set;
        // set_flag waits for every earlier instruction of its pipe to
        // complete: the DMA just before it exposes its latency.
        for (int prev = idx - 1; prev >= 0; --prev) {
          Node &before = cur.nodes[prev];
          if (before.pipe != pipe) continue;
          if (before.dma) add_latency(before.tail, ctx, 0, before.executions);
          break;
        }
        flags.last_set[key] = idx;
        flags.last_kind[key] = 'S';
      } else {
        node.kind = Node::Kind::Wait;
        auto it = flags.last_set.find(key);
        if (it != flags.last_set.end()) {
          node.match = it->second;
          add_latency(node.match_lat, ctx, 1, node.executions);
          flags.last_set.erase(it);
        }
        if (flags.last_kind.count(key) == 0) flags.first_wait[key] = idx;
        flags.last_kind[key] = 'W';
      }
      add_node(std::move(node));
      continue;
    }
    std::vector<Node> nodes;
    work_nodes(op, ctx, nodes);
    for (Node &node : nodes) add_node(std::move(node));
  }
  if (!seen_barrier) {
    // Wraps of a loop body: a key whose first op here is a wait and last a
    // set, with nothing of the key in a nested loop.
    for (const auto &[key, wait_idx] : flags.first_wait) {
      if (flags.broken.count(key) != 0) continue;
      auto kind = flags.last_kind.find(key);
      if (kind == flags.last_kind.end() || kind->second != 'S') continue;
      auto set = flags.last_set.find(key);
      if (set == flags.last_set.end() || set->second < wait_idx) continue;
      out.wraps.emplace_back(wait_idx, set->second);
      Node &wait = cur.nodes[wait_idx];
      add_latency(wait.match_lat, ctx, 1, wait.executions);
    }
    out.head = std::move(cur);
  } else {
    out.tail = std::move(cur);
  }
  out.closed = seen_barrier;
  return out;
}

/// The chain of one function per block and core instance.
struct FunctionPath {
  std::string name, core;
  double instances = 1;
  Weights chain{};
  Weights busiest{};  // the busiest pipe alone, for comparison
  double barriers = 0;
  PathInfo path;
};

FunctionPath function_path(const json &program, const json &fn, WeightContext &ctx) {
  FunctionPath fp;
  fp.name = text(fn, "name");
  fp.core = text(fn, "core");
  fp.instances = std::max(1.0, number(fn, "instances_per_block", 1));
  const json &range = member(fn, "ops");
  const json &ops = member(program, "ops");
  if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() || !range[1].is_number_integer())
    return fp;
  auto first = range[0].get<int64_t>(), last = range[1].get<int64_t>();
  if (first < 0 || last < first || static_cast<size_t>(last) >= ops.size()) return fp;

  const int index = static_cast<int>(number(fn, "index", -1));
  std::map<int, LoopInfo> loops;
  for (const json &loop : member(program, "loops").is_array() ? member(program, "loops") : json::array())
    if (static_cast<int>(number(loop, "function", -2)) == index)
      loops[static_cast<int>(number(loop, "line"))] = {count_of(member(loop, "trip")), count_of(member(loop, "entries"))};

  TreeBuilder builder(ops, static_cast<size_t>(first), static_cast<size_t>(last), loops);
  std::unique_ptr<Region> top = builder.build(fp.instances);
  std::map<std::string, Word> words;
  key_words(*top, words);
  ctx.valid_keys.clear();
  for (const auto &[key, w] : words)
    if (w.ok && !w.empty && w.first == 'S') ctx.valid_keys.insert(key);
  ctx.instances = fp.instances;

  Summary s = analyze(*top, ctx);
  PathInfo info = s.path;
  Weights total = longest(s.head, ctx.report_slot, &info);
  if (s.closed) total += s.middle + longest(s.tail, ctx.report_slot, &info);
  fp.chain = total;
  for (const Weights &w : s.pipe_total) fp.busiest = wmax(fp.busiest, w);
  fp.barriers = s.barriers;
  fp.path = std::move(info);
  std::sort(fp.path.lines.begin(), fp.path.lines.end());
  fp.path.lines.erase(std::unique(fp.path.lines.begin(), fp.path.lines.end()), fp.path.lines.end());
  return fp;
}

std::string join_lines(const std::vector<int> &lines, size_t keep) {
  std::string out;
  for (size_t idx = 0; idx < lines.size() && idx < keep; ++idx) out += (idx ? ", " : "") + std::to_string(lines[idx]);
  if (lines.size() > keep) out += ", ...";
  return out;
}

}  // namespace

Term critical_path_hivm(const json &program, const std::string &origin, const json &profile, const Rates &rates,
                        const CriticalPathOptions &options) {
  Term t;
  t.name = "critical_path";
  t.tier = "hivm";
  t.role = "floor";
  const std::string where = origin + ": perfbound.hivm_program/1";
  const json &functions = pb::sdk::require(program, "functions", where);
  const json &ops = pb::sdk::require(program, "ops", where);
  if (!functions.is_array() || !ops.is_array())
    throw pb::sdk::InputError(where + ": 'functions' and 'ops' must be arrays");
  std::string dump = text(member(program, "source"), "origin");
  if (dump.empty()) dump = origin;

  const json &blocks_doc = member(program, "blocks");
  std::optional<double> blocks;
  if (member(blocks_doc, "value").is_number()) blocks = number(blocks_doc, "value");
  if (!blocks || *blocks <= 0) {
    t.value = Time::unknown("the number of blocks is unknown: " + text(blocks_doc, "reason"));
    t.strict_value = t.value;
    t.not_counted.push_back({"the whole kernel", "no block count (give launch.grid)"});
    t.formula = "T_cp = max(waves x chain per block, grid chain / slots)";
    return t;
  }

  WeightContext ctx{rates, options, blocks, 1.0, {}, {}, slot(kWaves, kArgued)};
  const json &constants = member(member(profile, "calibration"), "constants");
  for (int idx = 0; idx < 4; ++idx) {
    const json &c = member(constants, kLatencyConstants[idx]);
    if (!member(c, "value").is_number()) continue;
    if (text(c, "unit") != "cycle" && text(c, "unit") != "cycles")
      throw pb::sdk::InputError(origin + ": calibration constant " + kLatencyConstants[idx] +
                                " must be in cycles (unit \"cycle\"), not \"" + text(c, "unit") + "\"");
    double v = number(c, "value");
    if (!(v >= 0) || !std::isfinite(v))
      throw pb::sdk::InputError(origin + ": calibration constant " + kLatencyConstants[idx] +
                                " must be a finite number of cycles >= 0");
    ctx.latency_cycles[idx] = v;
    if (options.latency != "none")
      t.add_rate({std::string("latency ") + kLatencyConstants[idx], v, "cycle", RateKind::Sustained,
                  std::string("calibration:") + kLatencyConstants[idx], "per event on the critical path", ""},
                 "argued", kArgumentLatency);
  }
  bool has_aic = false, has_aiv = false;
  double aiv_instances = 1;
  for (const json &fn : functions) {
    std::string core = text(fn, "core");
    if (core == "aic") has_aic = true;
    if (core == "aiv") has_aiv = true, aiv_instances = std::max(aiv_instances, number(fn, "instances_per_block", 1));
  }
  Schedule s = make_schedule(*blocks, has_aic, has_aiv, aiv_instances, rates);
  t.schedule = s.to_json();

  for (const json &fn : functions) {
    std::string core = text(fn, "core");
    if (core != "aic" && core != "aiv") continue;
    FunctionPath fp = function_path(program, fn, ctx);
    auto form_value = [&](const Weights &w, Claim c) {
      return std::max(s.waves * w[slot(kWaves, c)], w[slot(kMean, c)] / s.slots);
    };
    ComponentValue cv;
    cv.core = core;
    cv.component = "sync";
    double strict = form_value(fp.chain, kStrict), given = form_value(fp.chain, kGiven),
           argued = form_value(fp.chain, kArgued);
    cv.value = Time::known(argued);
    cv.strict_value = Time::known(strict);
    cv.assurance = argued > given ? Assurance::Argued : given > strict ? Assurance::Given : Assurance::Strict;
    cv.work = json::object();
    cv.work["function"] = fp.name;
    cv.work["chain_per_block_s"] = fp.chain[slot(kWaves, kArgued)];
    cv.work["strict_chain_per_block_s"] = fp.chain[slot(kWaves, kStrict)];
    cv.work["busiest_pipe_per_block_s"] = fp.busiest[slot(kWaves, kArgued)];
    cv.work["waves_form_s"] = s.waves * fp.chain[slot(kWaves, kArgued)];
    cv.work["mean_form_s"] = fp.chain[slot(kMean, kArgued)] / s.slots;
    cv.work["pipe_all_barriers_per_block"] = fp.barriers;
    cv.work["flag_waits_on_path_per_block"] = fp.path.flag_waits;
    cv.work["dma_on_path_per_block"] = fp.path.dma;
    cv.work["path_lines"] = fp.path.lines;
    t.per_component.push_back(std::move(cv));
    if (!fp.path.lines.empty()) {
      json e = json::object();
      e["file"] = dump;
      e["line"] = fp.path.lines.front();
      e["op"] = "critical path of " + fp.name + " (lines " + join_lines(fp.path.lines, 12) + ")";
      t.evidence.push_back(std::move(e));
    }
  }
  for (int idx = 0; idx < 4; ++idx)
    if (!ctx.latency_cycles[idx])
      t.not_counted.push_back({std::string("latency ") + kLatencyConstants[idx],
                               "the profile's calibration has no such constant (measure it: docs/profiles.md)"});
  t.formula = "T_cp = max(waves x chain per block, sum over blocks of the chain / slots); the chain: the longest "
              "path through in-order pipes, PIPE_ALL barriers and matched set_flag/wait_flag pairs, each op weighed "
              "by its work at its pipe's rate";
  t.settle();
  return t;
}

}  // namespace pb::models
