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

const char *const kLatencyConstants[kLatencyConstantCount] = {"dma_completion_latency", "pipe_barrier_all_latency"};

const char *const kArgumentLatency =
    "A calibrated latency is the slope, over launches of different lengths, of the fastest launch of a "
    "microbenchmark whose only work is a chain of one kind of event, per event as this term counts them on that "
    "microbenchmark's own dump (bench/calibration/latency/): dma_completion_latency for a small DMA whose set_flag "
    "the next DMA waits on (issue to release, the flag included), pipe_barrier_all_latency for a PIPE_ALL between "
    "two short ops. On the critical path the next node cannot start before such an event completes, so each is "
    "exposed once per execution. It is argued, not theoretical: a microbenchmark's chain may hide part of an "
    "event's cost in a neighbour's; latency = \"none\" leaves it out.";

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

Weights operator-(const Weights &a, const Weights &b) {
  Weights out{};
  for (int s = 0; s < kSlots; ++s) out[s] = a[s] - b[s];
  return out;
}
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

/// What the term keeps of one op record (the records themselves are not
/// held: the node streams the program).
struct OpRec {
  int function = -1;
  int line = 0;
  int depth = 0;
  std::string op, cls;
  Count count;
  bool regular = false;  // constant per-execution work and an exact count
  std::string pipe;      // the first of its pipes
  std::string from, to;  // sync operands
  std::optional<int64_t> event;
  std::vector<OpWorkItem> work;  // its sound work by (component, class)
};

OpRec op_record(const json &op, std::optional<double> blocks) {
  OpRec r;
  r.function = static_cast<int>(number(op, "function", -1));
  r.line = static_cast<int>(number(op, "line"));
  r.depth = static_cast<int>(number(op, "loop_depth"));
  r.op = text(op, "op");
  r.cls = text(op, "class");
  r.count = count_of(member(op, "count"));
  const json &pipes = member(op, "pipes");
  if (pipes.is_array() && !pipes.empty() && pipes[0].is_string()) r.pipe = pipes[0].get<std::string>();
  const json &sync = member(op, "sync");
  r.from = text(sync, "from");
  r.to = text(sync, "to");
  if (member(sync, "event").is_number_integer()) r.event = member(sync, "event").get<int64_t>();
  // An op whose per-execution values depend on the block or on a loop
  // index is not regular: one iteration's share of its total is unknown.
  bool tainted = false;
  const json &notes = member(op, "notes");
  if (notes.is_array())
    for (const json &note : notes)
      if (note.is_string() && note.get<std::string>().find("per-execution values are for block 0") != std::string::npos)
        tainted = true;
  const json &estimated = member(op, "estimated");
  r.regular = r.count.exact && !r.count.block_dependent && !tainted && (!estimated.is_array() || estimated.empty());
  r.work = op_work(op, blocks).items;
  return r;
}

struct LoopInfo {
  Count trip, entries;
};

struct FunctionInfo {
  int index = -1;
  std::string name, core;
  double instances = 1;
  int64_t first = 0, last = -1;
};

/// The program as the term reads it.
struct ProgramModel {
  std::optional<double> blocks;
  std::string blocks_reason;
  std::string dump;
  std::vector<FunctionInfo> functions;
  std::map<std::pair<int, int>, LoopInfo> loops;  // (function, line)
  std::vector<OpRec> ops;
};

void read_root(ProgramModel &model, const json &root) {
  const json &blocks = member(root, "blocks");
  if (member(blocks, "value").is_number()) model.blocks = number(blocks, "value");
  model.blocks_reason = text(blocks, "reason");
  model.dump = text(member(root, "source"), "origin");
  model.functions.clear();
  const json &functions = member(root, "functions");
  if (functions.is_array())
    for (const json &fn : functions) {
      FunctionInfo f;
      f.index = static_cast<int>(number(fn, "index", -1));
      f.name = text(fn, "name");
      f.core = text(fn, "core");
      f.instances = std::max(1.0, number(fn, "instances_per_block", 1));
      const json &range = member(fn, "ops");
      if (range.is_array() && range.size() == 2 && range[0].is_number_integer() && range[1].is_number_integer()) {
        f.first = range[0].get<int64_t>();
        f.last = range[1].get<int64_t>();
      }
      model.functions.push_back(std::move(f));
    }
  const json &loops = member(root, "loops");
  if (loops.is_array())
    for (const json &loop : loops)
      model.loops[{static_cast<int>(number(loop, "function", -2)), static_cast<int>(number(loop, "line"))}] = {
          count_of(member(loop, "trip")), count_of(member(loop, "entries"))};
}

void check_root(const json &root, const std::string &origin) {
  const std::string where = origin + ": perfbound.hivm_program/1";
  if (!member(root, "functions").is_array())
    throw pb::sdk::InputError(where + ": 'functions' must be an array");
}

struct Region;

/// One op record or one loop of a region, in program order.
struct Item {
  const OpRec *op = nullptr;     // the op record (for a loop: its scf.for)
  std::unique_ptr<Region> body;  // loops only
};

struct Region {
  std::vector<Item> items;
  /// Executions of the region per block (all core instances together):
  /// the function's instances for its body, entries x trips for a loop's.
  std::optional<double> executions;
  /// For a loop's body: the exact trip count per entry, when it has one.
  std::optional<double> trips;
};

/// Builds the region tree of ops[first..last] from their loop depths: an
/// scf.for at depth d owns the ops after it at depth > d.
class TreeBuilder {
 public:
  TreeBuilder(const std::vector<OpRec> &ops, size_t first, size_t last, int function,
              const std::map<std::pair<int, int>, LoopInfo> &loops)
      : ops_(ops), pos_(first), last_(last), function_(function), loops_(loops) {}

  std::unique_ptr<Region> build(double instances) {
    auto top = std::make_unique<Region>();
    top->executions = instances;
    fill(*top, pos_ <= last_ ? ops_[pos_].depth : 0);
    return top;
  }

 private:
  void fill(Region &region, int depth) {
    while (pos_ <= last_) {
      const OpRec &op = ops_[pos_];
      if (op.depth < depth) return;
      ++pos_;
      Item item;
      item.op = &op;
      if (op.op == "scf.for") {
        item.body = std::make_unique<Region>();
        auto it = loops_.find({function_, op.line});
        if (it != loops_.end()) {
          const Count &trip = it->second.trip;
          if (trip.exact && trip.max && trip.min == *trip.max) item.body->trips = trip.min;
          if (op.count.exact && item.body->trips) item.body->executions = op.count.min * *item.body->trips;
        }
        fill(*item.body, op.depth + 1);
      }
      region.items.push_back(std::move(item));
    }
  }

  const std::vector<OpRec> &ops_;
  size_t pos_;
  size_t last_;
  int function_;
  const std::map<std::pair<int, int>, LoopInfo> &loops_;
};

/// An op runs every time its region runs (an op in an scf.if, or in a loop
/// whose trip count is unknown, may not).
bool unconditional(const OpRec &op, const Region &region) {
  const Count &c = op.count;
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

std::string flag_key(const OpRec &op) {
  if (!op.event) return {};
  return op.from + ">" + op.to + "#" + std::to_string(*op.event);
}

bool is_flag(const OpRec &op) { return op.cls == "set_flag" || op.cls == "wait_flag"; }

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
    const OpRec &op = *item.op;
    if (!is_flag(op)) continue;
    std::string key = flag_key(op);
    if (key.empty()) continue;
    Word letter{false, op.cls == "set_flag" ? 'S' : 'W', 0, unconditional(op, region)};
    letter.last = letter.first;
    words[key] = cat(words[key], letter);
  }
}

//===----------------------------------------------------------------------===//
// Segments and their longest paths
//===----------------------------------------------------------------------===//

struct Node {
  enum class Kind { Work, Set, Wait, Summary, CrossSet, CrossWait } kind = Kind::Work;
  int pipe = kS;
  Weights w{};           // throughput time: what the node keeps its pipe busy
  Weights tail{};        // latency after it (argued): exposed before a set_flag or barrier that waits for it
  Weights external{};    // a cross-core wait: when the other core's matching set ran
  int ordinal = 0;       // a cross-core set or wait: its place among its flag's sets (waits) on this core
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
struct PathStep {
  int line = 0;
  std::string op;
  int pipe = kS;
  double seconds = 0;  // per block (waves form, reported claim)
};

struct PathInfo {
  std::vector<PathStep> steps;  // in time order
  std::vector<int> lines;
  double flag_waits = 0;  // matched wait_flags on the path, per block
  double dma = 0;         // DMA executions on the path, per block
  double work_ops = 0;
  void append(const PathInfo &later) {
    steps.insert(steps.end(), later.steps.begin(), later.steps.end());
    lines.insert(lines.end(), later.lines.begin(), later.lines.end());
    flag_waits += later.flag_waits;
    dma += later.dma;
    work_ops += later.work_ops;
  }
};

/// When node `idx` can start, from the nodes before it that are reached:
/// the node before it on its pipe (plus that node's latency when `idx` is
/// a set_flag, which waits for it to complete) and, for a wait_flag, the
/// set_flag it waits for.
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
    const Weights &via = dist[node.match];
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

constexpr size_t kMaxSteps = 256;  // steps of the path kept for the report (the lines are all kept)

/// The longest path through a segment: each node starts after the node
/// before it on its pipe and, for a wait_flag, after the set_flag it waits
/// for (program order makes it a DAG); the segment ends when its last node
/// has completed (latency included). Also the nested loops' own bounds.
Weights longest(const Segment &seg, int report_slot, PathInfo *info, std::vector<Weights> *times = nullptr) {
  const size_t n = seg.nodes.size();
  std::vector<Weights> dist(n);
  std::vector<std::array<int, kSlots>> from(n);
  std::array<int, kPipeCount> last_on_pipe;
  last_on_pipe.fill(-1);
  Weights best{};
  std::array<int, kSlots> best_end;
  best_end.fill(-1);
  auto always = [](int) { return true; };
  // A cross-core wait holds every later instruction of its core, whatever
  // the pipe (hiascend Ascend C CrossCoreWaitFlag): a fence.
  Weights fence{};
  for (size_t idx = 0; idx < n; ++idx) {
    const Node &node = seg.nodes[idx];
    from[idx].fill(-1);
    Weights start = wmax(start_of(seg, dist, always, idx, last_on_pipe[node.pipe], &from[idx]).value_or(Weights{}), fence);
    if (node.kind == Node::Kind::CrossWait) {
      start = wmax(start, node.external);
      fence = start;
    }
    dist[idx] = start + node.w;
    Weights done = dist[idx] + node.tail;
    for (int s = 0; s < kSlots; ++s)
      if (done[s] > best[s]) best[s] = done[s], best_end[s] = static_cast<int>(idx);
    last_on_pipe[node.pipe] = static_cast<int>(idx);
  }
  if (times != nullptr) *times = dist;
  if (info != nullptr && best_end[report_slot] >= 0 && best[report_slot] >= seg.inner[report_slot]) {
    std::vector<PathStep> steps;
    for (int idx = best_end[report_slot]; idx >= 0; idx = from[idx][report_slot]) {
      const Node &node = seg.nodes[idx];
      if (node.kind == Node::Kind::Wait && node.match >= 0 && from[idx][report_slot] == node.match)
        info->flag_waits += node.executions;
      if (node.dma) info->dma += node.executions;
      if (node.kind == Node::Kind::Work || node.kind == Node::Kind::Summary) {
        info->work_ops += 1;
        if (node.line > 0 && info->lines.size() < 64) info->lines.push_back(node.line);
        if (node.w[report_slot] + node.tail[report_slot] > 0)
          steps.push_back({node.line, node.op, node.pipe, node.w[report_slot] + node.tail[report_slot]});
      }
    }
    if (info->steps.size() < kMaxSteps) info->steps.insert(info->steps.end(), steps.rbegin(), steps.rend());
  } else if (info != nullptr && seg.inner_line > 0 && info->lines.size() < 64) {
    info->lines.push_back(seg.inner_line);
    if (info->steps.size() < kMaxSteps) info->steps.push_back({seg.inner_line, "scf.for (its own bound)", kS, seg.inner[report_slot]});
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
        dist[idx] = node.w;  // reached through the wrap edge: the set at the end of the iteration before
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

/// A loop whose PIPE_ALL barriers serialize its pipes: what the chain
/// through it costs against its busiest pipe (for the findings).
struct SerializedLoop {
  int line = 0;
  double trips = 0;
  double barriers_per_iteration = 0;
  Weights chain{};    // the loop's barrier segments and wraps, per block
  Weights busiest{};  // its busiest pipe, per block
};

struct WeightContext {
  const Rates &rates;
  const CriticalPathOptions &options;
  std::optional<double> blocks;
  double instances = 1;
  std::set<std::string> valid_keys;        // intra-core flags that provably alternate
  std::set<std::string> cross_keys;        // cross-core flags matched k-th set to k-th wait
  std::string core;                        // of the function being analysed
  std::array<std::optional<double>, kLatencyConstantCount> latency_cycles;  // kLatencyConstants
  int report_slot = slot(kWaves, kArgued);
  std::vector<SerializedLoop> serialized;  // of the function being analysed
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
void work_nodes(const OpRec &op, const WeightContext &ctx, std::vector<Node> &out) {
  std::array<Weights, kPipeCount> by_pipe{};
  std::array<bool, kPipeCount> used{};
  const double blocks = ctx.blocks.value_or(0);
  const double k = ctx.instances;
  for (const OpWorkItem &item : op.work) {
    int pipe = pipe_of_component(item.component);
    if (pipe < 0) continue;
    std::optional<double> rate = class_rate(ctx, item.component, item.work_class);
    if (!rate || *rate <= 0) continue;
    const Amount &a = item.amount;
    const Amount g = a.with_given();
    Weights w{};
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
  for (int p = 0; p < kPipeCount; ++p) {
    if (!used[p]) continue;
    Node node;
    node.kind = Node::Kind::Work;
    node.pipe = p;
    node.w = by_pipe[p];
    node.regular = op.regular;
    node.line = op.line;
    node.op = op.op;
    node.executions = op.count.min / k;
    node.dma = op.cls == "dma";
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
  std::map<std::string, int> last_set;    // key -> node index of a set with no wait after it yet
  std::map<std::string, int> first_wait;  // key -> first wait of the segment (wrap candidates)
  std::map<std::string, int> last_kind;   // key -> 'S' / 'W' of the last one in this segment
  std::set<std::string> broken;           // a nested loop holds the key: no wrap
  void reset() { last_set.clear(), first_wait.clear(), last_kind.clear(), broken.clear(); }
};

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

/// The key of a cross-core flag: the core that sets it and its id.
std::string cross_key(const OpRec &op, const std::string &core) {
  if (!op.event) return {};
  bool set = op.op == "hivm.hir.sync_block_set";
  std::string setter = set ? core : (core == "aic" ? "aiv" : "aic");
  return "cc:" + setter + "#" + std::to_string(*op.event);
}

bool is_cross(const OpRec &op) { return op.op == "hivm.hir.sync_block_set" || op.op == "hivm.hir.sync_block_wait"; }

/// The loop at `item`: the wrap segment of a closed loop (its last
/// iteration's tail, then the next iteration's head), its set_flag at the
/// end of one iteration matched to the wait_flag at the start of the next.
Segment wrap_segment(const Summary &sub, double trips) {
  Segment wrap;
  append_instance(wrap, sub.tail, trips, trips - 1);
  const int tail_count = static_cast<int>(wrap.nodes.size());
  append_instance(wrap, sub.head, trips, trips - 1);
  // Only the tail's last op of a key can precede the head's first: the
  // segments between the barriers come before the tail in an iteration.
  std::map<std::string, int> last_set;
  for (int idx = 0; idx < static_cast<int>(wrap.nodes.size()); ++idx) {
    Node &node = wrap.nodes[idx];
    if (node.key.empty() || (node.kind != Node::Kind::Set && node.kind != Node::Kind::Wait)) continue;
    if (node.kind == Node::Kind::Set) {
      last_set[node.key] = idx;
      continue;
    }
    if (idx >= tail_count && node.match < 0) {
      auto it = last_set.find(node.key);
      if (it != last_set.end() && it->second < tail_count) node.match = it->second;
    }
    last_set.erase(node.key);
  }
  return wrap;
}

Summary analyze(const Region &region, WeightContext &ctx, bool top) {
  Summary out;
  Segment cur;
  bool seen_barrier = false;
  FlagState flags;
  std::map<std::string, int> cross_seen;  // key -> occurrences so far (top level)
  auto add_node = [&](Node node) {
    out.pipe_total[node.pipe] += node.w;
    cur.nodes.push_back(std::move(node));
  };
  for (const Item &item : region.items) {
    const OpRec &op = *item.op;
    if (item.body) {
      Summary sub = analyze(*item.body, ctx, false);
      for (int p = 0; p < kPipeCount; ++p) out.pipe_total[p] += sub.pipe_total[p];
      // A key the loop holds breaks matching across it (its last set is
      // inside the loop, where this segment cannot see it).
      std::map<std::string, Word> inner;
      key_words(*item.body, inner);
      for (const auto &entry : inner) {
        flags.last_set.erase(entry.first);
        flags.broken.insert(entry.first);
        flags.last_kind[entry.first] = 'X';
      }
      bool runs_exactly = unconditional(op, region) && item.body->trips && *item.body->trips >= 1;
      if (sub.closed && runs_exactly) {
        // A loop with a PIPE_ALL barrier in every iteration: its first
        // iteration's head belongs to this segment, then come the segments
        // between its barriers and the wraps (one iteration's tail and the
        // next one's head), and its last iteration's tail starts the next
        // segment.
        const double trips = *item.body->trips;
        append_instance(cur, sub.head, trips, 1.0);
        close_segment(out, cur, seen_barrier, ctx);
        out.middle += sub.middle;
        out.barriers += sub.barriers;
        out.path.append(sub.path);
        Weights chain = sub.middle;
        if (trips >= 2) chain += longest(wrap_segment(sub, trips), ctx.report_slot, &out.path);
        out.middle += chain - sub.middle;
        SerializedLoop note;
        note.line = op.line;
        note.trips = trips;
        note.barriers_per_iteration = item.body->executions ? sub.barriers * ctx.instances / *item.body->executions : 0;
        note.chain = chain;
        for (const Weights &w : sub.pipe_total) note.busiest = wmax(note.busiest, w);
        ctx.serialized.push_back(note);
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
        node.line = op.line;
        node.op = "scf.for";
        cur.nodes.push_back(std::move(node));
      }
      if (own[ctx.report_slot] > cur.inner[ctx.report_slot]) cur.inner_line = op.line;
      cur.inner = wmax(cur.inner, own);
      continue;
    }

    if (op.cls == "pipe_barrier") {
      if (op.from == "ALL" && unconditional(op, region)) {
        out.barriers += op.count.min / ctx.instances;
        // The barrier's own turnaround (argued). Not the completion latency
        // of the DMAs before it as well: the barrier microbenchmark's
        // turnaround may overlap it, and a latency must not be counted twice.
        Weights lat{};
        add_latency(lat, ctx, 1, op.count.min / ctx.instances);
        out.middle += lat;
        close_segment(out, cur, seen_barrier, ctx);
        flags.reset();
      }
      continue;  // a barrier on one pipe adds nothing to throughput order
    }
    if (is_cross(op)) {
      std::string key = cross_key(op, ctx.core);
      if (!top || key.empty() || ctx.cross_keys.count(key) == 0) continue;
      int pipe = pipe_index(op.op == "hivm.hir.sync_block_set" ? op.from : op.to);
      if (pipe < 0) pipe = kS;
      Node node;
      node.kind = op.op == "hivm.hir.sync_block_set" ? Node::Kind::CrossSet : Node::Kind::CrossWait;
      node.pipe = pipe;
      node.key = key;
      node.match = -1;
      node.line = op.line;
      node.op = op.op;
      node.ordinal = cross_seen[key]++;
      node.regular = true;
      add_node(std::move(node));
      continue;
    }
    if (is_flag(op)) {
      std::string key = flag_key(op);
      if (key.empty() || ctx.valid_keys.count(key) == 0) continue;
      int pipe = pipe_index(op.pipe);
      if (pipe < 0) continue;
      Node node;
      node.pipe = pipe;
      node.key = key;
      node.line = op.line;
      node.op = op.op;
      node.executions = op.count.min / ctx.instances;
      node.regular = true;
      const int idx = static_cast<int>(cur.nodes.size());
      if (op.cls == "set_flag") {
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
    }
    out.head = std::move(cur);
  } else {
    out.tail = std::move(cur);
  }
  out.closed = seen_barrier;
  return out;
}

/// One function's analysis per block and core instance.
struct FunctionPath {
  std::string name, core;
  double instances = 1;
  Summary summary;
  Weights chain{};
  Weights busiest{};  // the busiest pipe alone, for comparison
  PathInfo path;
  std::vector<SerializedLoop> serialized;
};

/// Which cross-core flags give edges: every sync_block_set and
/// sync_block_wait of the flag runs unconditionally at the top of its
/// function (not in a loop). Only the sets and waits in the first segment of
/// a function (before its first PIPE_ALL) are joined; the others give no
/// edge, which only shortens the path. The k-th wait of a flag then
/// waits for its k-th set: each flag id is a counter that a set increments
/// and a wait decrements (hiascend Ascend C CrossCoreSetFlag/WaitFlag).
std::set<std::string> cross_keys_of(const ProgramModel &model, const std::vector<std::unique_ptr<Region>> &tops) {
  std::map<std::string, bool> ok;
  std::map<std::string, std::array<int, 2>> counts;  // sets, waits
  for (size_t f = 0; f < model.functions.size(); ++f) {
    const FunctionInfo &fn = model.functions[f];
    if (!tops[f]) continue;
    std::function<void(const Region &, bool)> walk = [&](const Region &region, bool top) {
      for (const Item &item : region.items) {
        if (item.body) {
          walk(*item.body, false);
          continue;
        }
        const OpRec &op = *item.op;
        if (!is_cross(op)) continue;
        std::string key = cross_key(op, fn.core);
        if (key.empty()) continue;
        bool good = top && unconditional(op, region) && op.count.min == fn.instances;
        auto [it, fresh] = ok.emplace(key, good);
        if (!fresh) it->second = it->second && good;
        counts[key][op.op == "hivm.hir.sync_block_set" ? 0 : 1] += 1;
      }
    };
    walk(*tops[f], true);
  }
  std::set<std::string> keys;
  for (const auto &[key, good] : ok)
    if (good && counts[key][0] > 0 && counts[key][1] > 0) keys.insert(key);
  return keys;
}

std::string join_lines(const std::vector<int> &lines, size_t keep) {
  std::string out;
  for (size_t idx = 0; idx < lines.size() && idx < keep; ++idx) out += (idx ? ", " : "") + std::to_string(lines[idx]);
  if (lines.size() > keep) out += ", ...";
  return out;
}

Term critical_path_term(ProgramModel model, const std::string &origin, const json &profile, const Rates &rates,
                        const CriticalPathOptions &options) {
  Term t;
  t.name = "critical_path";
  t.tier = "hivm";
  t.role = "floor";
  std::string dump = model.dump.empty() ? origin : model.dump;
  t.formula = "T_cp = max(waves x chain per block, sum over blocks of the chain / slots); the chain: the longest "
              "path through in-order pipes, PIPE_ALL barriers, matched set_flag/wait_flag pairs and cross-core "
              "flags, each op weighed by its work at its pipe's rate";
  if (!model.blocks || *model.blocks <= 0) {
    t.value = Time::unknown("the number of blocks is unknown" +
                            (model.blocks_reason.empty() ? std::string() : ": " + model.blocks_reason));
    t.strict_value = t.value;
    t.not_counted.push_back({"the whole kernel", "no block count (give launch.grid)"});
    return t;
  }

  WeightContext ctx{rates, options, model.blocks, 1.0, {}, {}, {}, {}, slot(kWaves, kArgued), {}};
  const json &constants = member(member(profile, "calibration"), "constants");
  for (int idx = 0; idx < kLatencyConstantCount; ++idx) {
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
  std::vector<std::unique_ptr<Region>> tops(model.functions.size());
  for (size_t f = 0; f < model.functions.size(); ++f) {
    const FunctionInfo &fn = model.functions[f];
    if (fn.core != "aic" && fn.core != "aiv") continue;
    if (fn.first < 0 || fn.last < fn.first || static_cast<size_t>(fn.last) >= model.ops.size()) continue;
    if (fn.core == "aic") has_aic = true;
    if (fn.core == "aiv") has_aiv = true, aiv_instances = std::max(aiv_instances, fn.instances);
    TreeBuilder builder(model.ops, static_cast<size_t>(fn.first), static_cast<size_t>(fn.last), fn.index, model.loops);
    tops[f] = builder.build(fn.instances);
  }
  Schedule s = make_schedule(*model.blocks, has_aic, has_aiv, aiv_instances, rates);
  t.schedule = s.to_json();
  ctx.cross_keys = cross_keys_of(model, tops);

  std::vector<FunctionPath> paths(model.functions.size());
  for (size_t f = 0; f < model.functions.size(); ++f) {
    if (!tops[f]) continue;
    const FunctionInfo &fn = model.functions[f];
    FunctionPath &fp = paths[f];
    fp.name = fn.name;
    fp.core = fn.core;
    fp.instances = fn.instances;
    std::map<std::string, Word> words;
    key_words(*tops[f], words);
    ctx.valid_keys.clear();
    for (const auto &[key, w] : words)
      if (w.ok && !w.empty && w.first == 'S') ctx.valid_keys.insert(key);
    ctx.instances = fn.instances;
    ctx.core = fn.core;
    ctx.serialized.clear();
    fp.summary = analyze(*tops[f], ctx, true);
    fp.serialized = std::move(ctx.serialized);
    for (const Weights &w : fp.summary.pipe_total) fp.busiest = wmax(fp.busiest, w);
  }

  // The chains of the block's functions, joined by cross-core flags: a wait
  // starts no earlier than the other core's matching set. Repeated until no
  // set moves (each round moves at least one wait later, and the flags form
  // no cycle that could move forever: a wait's set never depends on it).
  std::map<std::pair<std::string, int>, Weights> set_times;
  const size_t rounds = ctx.cross_keys.size() * 2 + 2;
  for (size_t round = 0; round < rounds; ++round) {
    std::map<std::pair<std::string, int>, Weights> next;
    for (size_t f = 0; f < paths.size(); ++f) {
      if (!tops[f]) continue;
      FunctionPath &fp = paths[f];
      Segment &head = fp.summary.head;
      for (Node &node : head.nodes)
        if (node.kind == Node::Kind::CrossWait) {
          auto it = set_times.find({node.key, node.ordinal});
          node.external = it != set_times.end() ? it->second : Weights{};
        }
      PathInfo info;
      std::vector<Weights> times;
      Weights total = longest(head, ctx.report_slot, &info, &times);
      for (size_t idx = 0; idx < head.nodes.size(); ++idx)
        if (head.nodes[idx].kind == Node::Kind::CrossSet) {
          auto key = std::make_pair(head.nodes[idx].key, head.nodes[idx].ordinal);
          next[key] = wmax(next[key], times[idx]);
        }
      if (fp.summary.closed) {
        info.append(fp.summary.path);  // the segments between barriers, in program order
        total += fp.summary.middle + longest(fp.summary.tail, ctx.report_slot, &info);
      }
      fp.chain = total;
      fp.path = std::move(info);
    }
    if (next == set_times) break;
    set_times = std::move(next);
  }

  for (FunctionPath &fp : paths) {
    if (fp.core.empty()) continue;
    std::sort(fp.path.lines.begin(), fp.path.lines.end());
    fp.path.lines.erase(std::unique(fp.path.lines.begin(), fp.path.lines.end()), fp.path.lines.end());
    auto form_value = [&](const Weights &w, Claim c) {
      return std::max(s.waves * w[slot(kWaves, c)], w[slot(kMean, c)] / s.slots);
    };
    ComponentValue cv;
    cv.core = fp.core;
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
    cv.work["pipe_all_barriers_per_block"] = fp.summary.barriers;
    cv.work["flag_waits_on_path_per_block"] = fp.path.flag_waits;
    cv.work["dma_on_path_per_block"] = fp.path.dma;
    cv.work["path_lines"] = fp.path.lines;
    json steps = json::array();
    for (const PathStep &step : fp.path.steps) {
      if (steps.size() >= kMaxSteps) break;
      steps.push_back({{"line", step.line}, {"op", step.op}, {"pipe", kPipeNames[step.pipe]}, {"seconds_per_block", step.seconds}});
    }
    cv.work["path"] = std::move(steps);
    json loops = json::array();
    for (const SerializedLoop &l : fp.serialized) {
      double chain = l.chain[slot(kWaves, kStrict)], busiest = l.busiest[slot(kWaves, kStrict)];
      if (!(chain > busiest * 1.0001)) continue;  // barriers that cost nothing beyond the busiest pipe
      loops.push_back({{"line", l.line},
                       {"trips", l.trips},
                       {"pipe_all_barriers_per_iteration", l.barriers_per_iteration},
                       {"chain_per_block_s", chain},
                       {"busiest_pipe_per_block_s", busiest}});
    }
    cv.work["serialized_loops"] = std::move(loops);
    t.per_component.push_back(std::move(cv));
    if (!fp.path.lines.empty()) {
      json e = json::object();
      e["file"] = dump;
      e["line"] = fp.path.lines.front();
      e["op"] = "critical path of " + fp.name + " (lines " + join_lines(fp.path.lines, 12) + ")";
      t.evidence.push_back(std::move(e));
    }
  }
  if (options.latency != "none")
    for (int idx = 0; idx < kLatencyConstantCount; ++idx)
      if (!ctx.latency_cycles[idx])
        t.not_counted.push_back({std::string("latency ") + kLatencyConstants[idx],
                                 "the profile's calibration has no such constant (measure it: docs/profiles.md)"});
  t.settle();
  return t;
}

}  // namespace

Term critical_path_hivm(const json &program, const std::string &origin, const json &profile, const Rates &rates,
                        const CriticalPathOptions &options) {
  const std::string where = origin + ": perfbound.hivm_program/1";
  const json &ops = pb::sdk::require(program, "ops", where);
  if (!ops.is_array()) throw pb::sdk::InputError(where + ": 'ops' must be an array");
  check_root(program, origin);
  ProgramModel model;
  read_root(model, program);
  model.ops.reserve(ops.size());
  for (const json &op : ops) model.ops.push_back(op_record(op, model.blocks));
  return critical_path_term(std::move(model), origin, profile, rates, options);
}

Term critical_path_hivm_text(std::string_view text, const std::string &origin, const json &profile, const Rates &rates,
                             const CriticalPathOptions &options) {
  ProgramModel model;
  std::optional<double> blocks;
  json root = stream_program(
      text, origin, "hivm", {"blocks", "functions", "loops", "source"},
      [&](const json &head) {
        const json &b = member(head, "blocks");
        if (member(b, "value").is_number()) blocks = number(b, "value");
      },
      [&](const json &op) { model.ops.push_back(op_record(op, blocks)); });
  check_root(root, origin);
  read_root(model, root);
  return critical_path_term(std::move(model), origin, profile, rates, options);
}

}  // namespace pb::models
