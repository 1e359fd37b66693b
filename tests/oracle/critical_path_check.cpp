//===- critical_path_check.cpp - the critical path against executed order --===//
//
// The critical_path term (plugins/models/src/critical_path.cpp) bounds each
// block by the longest chain through the orderings the ISA guarantees,
// reasoning over the program text with loops summarized. This check does not
// reason: it takes the oracle's trace of every op execution of a block, in the
// order the block executed them, gives each execution its time at the
// profile's rates (its exact bytes, repeats, FLOP), and schedules them as
// early as the same documented orderings allow (docs/model.md §3.6):
//   - each pipe of a core instance runs its executions in order;
//   - pipe_barrier[PIPE_ALL]: no later execution starts before every earlier
//     one of the instance has ended;
//   - set_flag(P, Q, e) / wait_flag(P, Q, e): where the key's executions
//     alternate set, wait, set, wait in the trace, the k-th wait holds Q
//     until the k-th set, which comes after P's earlier executions;
//   - sync_block_set / sync_block_wait (cross-core, same flag id): the k-th
//     wait waits for the k-th set (every setter instance's), and holds every
//     later execution of its instance.
// The block's time on that schedule is the longest chain of that execution;
// the term's strict chain per block (the per-block minimum) must not exceed
// it in any block. Independent of the term: no loop summaries, no segments,
// no flag provability, no op_work; the durations come from the oracle's own
// work rules (work.cpp) and the profile's rates.
//
//===----------------------------------------------------------------------===//
#include "critical_path_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "critical_path.hpp"

namespace pb::oracle_test {

namespace o = pb::hivm::oracle;
namespace m = pb::models;
using json = nlohmann::json;

namespace {

// Pipes by their names in the IR: S V M MTE1 MTE2 MTE3 FIX.
constexpr int kPipes = 7;
int pipe_index(const std::string &name) {
  static const std::map<std::string, int> k{{"PIPE_S", 0},    {"PIPE_V", 1},    {"PIPE_M", 2},  {"PIPE_MTE1", 3},
                                            {"PIPE_MTE2", 4}, {"PIPE_MTE3", 5}, {"PIPE_FIX", 6}};
  auto it = k.find(name);
  return it == k.end() ? -1 : it->second;
}
int pipe_index(pb::hivm::Pipe p) {
  switch (p) {
    case pb::hivm::Pipe::S: return 0;
    case pb::hivm::Pipe::V: return 1;
    case pb::hivm::Pipe::M: return 2;
    case pb::hivm::Pipe::MTE1: return 3;
    case pb::hivm::Pipe::MTE2: return 4;
    case pb::hivm::Pipe::MTE3: return 5;
    case pb::hivm::Pipe::FIX: return 6;
    default: return -1;
  }
}

/// What the text of a sync op says: its pipes, event or flag id, and for a
/// barrier whether it is PIPE_ALL.
struct SyncText {
  bool ok = false;
  bool all = false;
  int from = -1, to = -1;
  int64_t id = -1;
};

std::string line_text(const std::vector<size_t> &starts, const std::string &text, uint32_t line) {
  if (line == 0 || line > starts.size()) return {};
  size_t b = starts[line - 1], e = text.find('\n', b);
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

SyncText parse_sync(const std::string &line, pb::hivm::OpClass cls) {
  using pb::hivm::OpClass;
  SyncText s;
  std::smatch mt;
  // Every PIPE_ name and the first id (EVENT_IDn / flag = n / static ids), in text order.
  std::vector<std::string> pipes;
  static const std::regex pipe_re("PIPE_[A-Z0-9]+");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), pipe_re); it != std::sregex_iterator(); ++it)
    pipes.push_back(it->str());
  const bool generic = line.find("\"hivm.hir.") != std::string::npos;
  auto named_pipe = [&](const char *attr) -> int {
    std::regex re(std::string(attr) + "\\s*=\\s*#hivm\\.pipe<(PIPE_[A-Z0-9]+)>");
    return std::regex_search(line, mt, re) ? pipe_index(mt[1].str()) : -1;
  };
  switch (cls) {
    case OpClass::PipeBarrier:
      if (pipes.size() != 1) return s;
      s.all = pipes[0] == "PIPE_ALL";
      s.ok = true;
      return s;
    case OpClass::SetFlag:
    case OpClass::WaitFlag: {
      static const std::regex ev("EVENT_ID([0-9]+)");
      if (!std::regex_search(line, mt, ev)) return s;
      s.id = std::stoll(mt[1].str());
      if (generic) {
        s.from = named_pipe("set_pipe");
        s.to = named_pipe("wait_pipe");
      } else if (pipes.size() == 2) {
        s.from = pipe_index(pipes[0]);
        s.to = pipe_index(pipes[1]);
      }
      s.ok = s.from >= 0 && s.to >= 0;
      return s;
    }
    case OpClass::SyncBlockSet:
    case OpClass::SyncBlockWait: {
      static const std::regex flag("flag\\s*=\\s*([0-9]+)"), id("static_flag_id\\s*=\\s*([0-9]+)");
      if (std::regex_search(line, mt, flag) || std::regex_search(line, mt, id)) s.id = std::stoll(mt[1].str());
      if (generic) {
        s.from = named_pipe("tpipe");
        s.to = named_pipe("pipe");
      } else if (pipes.size() == 2) {
        s.from = pipe_index(pipes[0]);
        s.to = pipe_index(pipes[1]);
      }
      s.ok = s.id >= 0 && s.from >= 0;
      return s;
    }
    default: return s;
  }
}

template <class R>
double per_second(const R &rate) {
  return rate.known() ? rate.value->value() : 0.0;
}

/// The time of one execution on each pipe it keeps busy, at the profile's
/// rates (the oracle's component rules: execute.cpp Machine::run).
std::vector<std::pair<int, double>> durations(const o::OpStats &s, const o::Exec &e, const m::Rates &rates) {
  std::vector<std::pair<int, double>> out;
  if (!s.modelled || s.core == o::Core::Unknown) return out;
  auto add = [&](int pipe, double amount, double rate) {
    if (pipe >= 0 && amount > 0 && rate > 0) out.push_back({pipe, amount / rate});
  };
  using pb::hivm::OpClass;
  if (s.cls == OpClass::Cube) {
    add(2, static_cast<double>(e.flop), per_second(rates.cube(s.dtype.empty() ? "unknown" : s.dtype)));
    add(3, static_cast<double>(e.mte1_bytes), per_second(rates.path("l1_to_l0a")));
    return out;
  }
  const bool on_v = std::find(s.pipes.begin(), s.pipes.end(), pb::hivm::Pipe::V) != s.pipes.end();
  if (pb::hivm::is_vector_class(s.cls) && on_v) {
    add(1, static_cast<double>(e.repeats), per_second(rates.vector_repeats()));
    return out;
  }
  if (s.cls == OpClass::Dma && !s.pipes.empty() && !s.path.empty())
    add(pipe_index(s.pipes[0]), static_cast<double>(e.bytes), per_second(rates.path(s.path)));
  return out;
}

struct Instance {
  uint32_t function = 0, instance = 0;
  o::Core core = o::Core::Unknown;
  std::vector<size_t> events;  // indices into the block's trace
};

}  // namespace

CriticalPathCheck check_critical_path(const std::string &text, const json &extractor_doc, const o::Result &traced,
                                      const json &profile, const m::Rates &rates, const std::string &origin) {
  CriticalPathCheck out;
  if (traced.trace.empty()) {
    out.skip_reason = "no trace";
    return out;
  }
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  // The sync ops' operands, from their text.
  std::vector<SyncText> sync(traced.ops.size());
  using pb::hivm::OpClass;
  for (size_t k = 0; k < traced.ops.size(); ++k) {
    const o::OpStats &s = traced.ops[k];
    const bool is_sync = s.cls == OpClass::SetFlag || s.cls == OpClass::WaitFlag || s.cls == OpClass::PipeBarrier ||
                         s.cls == OpClass::SyncBlockSet || s.cls == OpClass::SyncBlockWait;
    if (!is_sync || !s.executed) continue;
    sync[k] = parse_sync(line_text(starts, text, s.line), s.cls);
    if (!sync[k].ok) {
      out.skip_reason = "line " + std::to_string(s.line) + ": " + s.name + " with operands this check does not read";
      return out;
    }
  }

  // The term, throughput only.
  m::CriticalPathOptions cpo;
  cpo.latency = "none";
  m::Term term = m::critical_path_hivm(extractor_doc, origin, profile, rates, cpo);

  // Per block, the ASAP schedule of its trace; per function, the smallest
  // over blocks of its slowest instance's end.
  std::map<uint32_t, double> fewest;  // function -> min over blocks
  for (size_t b = 0; b < traced.trace.size(); ++b) {
    const std::vector<o::TraceEvent> &trace = traced.trace[b];
    std::map<std::pair<uint32_t, uint32_t>, Instance> instances;
    for (size_t i = 0; i < trace.size(); ++i) {
      const o::OpStats &s = traced.ops[trace[i].op];
      Instance &inst = instances[{s.function, trace[i].instance}];
      inst.function = s.function;
      inst.instance = trace[i].instance;
      inst.core = traced.functions[s.function].core;
      inst.events.push_back(i);
    }
    // Intra-core flag keys that alternate set, wait, ... in execution order.
    std::map<std::pair<std::pair<uint32_t, uint32_t>, std::array<int64_t, 3>>, bool> alternates;
    for (auto &[key, inst] : instances) {
      std::map<std::array<int64_t, 3>, char> last;
      for (size_t i : inst.events) {
        const o::OpStats &s = traced.ops[trace[i].op];
        if (s.cls != OpClass::SetFlag && s.cls != OpClass::WaitFlag) continue;
        const SyncText &st = sync[trace[i].op];
        std::array<int64_t, 3> k{st.from, st.to, st.id};
        const char kind = s.cls == OpClass::SetFlag ? 'S' : 'W';
        auto [it, fresh] = last.emplace(k, kind);
        bool &ok = alternates.emplace(std::make_pair(key, k), true).first->second;
        if (fresh) ok = ok && kind == 'S';
        else ok = ok && it->second != kind;
        it->second = kind;
      }
    }
    // Cross-core: the k-th set of (setter core, flag) by instance, iterated to a fixed point.
    using CrossKey = std::pair<int, int64_t>;  // (setter core, flag)
    std::map<std::pair<CrossKey, size_t>, std::map<std::pair<uint32_t, uint32_t>, double>> set_times, next;
    std::map<std::pair<uint32_t, uint32_t>, double> ends;
    bool settled = false;
    for (int round = 0; round < 64 && !settled; ++round) {
      next.clear();
      for (auto &[key, inst] : instances) {
        std::array<double, kPipes> pipe_end{};
        double fence = 0, end = 0;
        std::map<std::array<int64_t, 3>, std::vector<double>> flag_sets;
        std::map<std::array<int64_t, 3>, size_t> flag_waits;
        std::map<CrossKey, size_t> cross_sets, cross_waits;
        for (size_t i : inst.events) {
          const o::TraceEvent &ev = trace[i];
          const o::OpStats &s = traced.ops[ev.op];
          const SyncText &st = sync[ev.op];
          switch (s.cls) {
            case OpClass::PipeBarrier:
              if (st.all)
                for (double t : pipe_end) fence = std::max(fence, t);
              break;
            case OpClass::SetFlag: {
              std::array<int64_t, 3> k{st.from, st.to, st.id};
              const double t = std::max(pipe_end[static_cast<size_t>(st.from)], fence);
              flag_sets[k].push_back(t);
              break;
            }
            case OpClass::WaitFlag: {
              std::array<int64_t, 3> k{st.from, st.to, st.id};
              const size_t nth = flag_waits[k]++;
              if (!alternates[{key, k}] || nth >= flag_sets[k].size()) break;
              double &q = pipe_end[static_cast<size_t>(st.to)];
              q = std::max({q, fence, flag_sets[k][nth]});
              break;
            }
            case OpClass::SyncBlockSet: {
              const CrossKey ck{static_cast<int>(inst.core), st.id};
              const size_t nth = cross_sets[ck]++;
              next[{ck, nth}][key] = std::max(pipe_end[static_cast<size_t>(st.from)], fence);
              break;
            }
            case OpClass::SyncBlockWait: {
              const int setter = inst.core == o::Core::AIC ? static_cast<int>(o::Core::AIV) : static_cast<int>(o::Core::AIC);
              const CrossKey ck{setter, st.id};
              const size_t nth = cross_waits[ck]++;
              double t = fence;
              if (st.to >= 0) t = std::max(t, pipe_end[static_cast<size_t>(st.to)]);
              auto it = set_times.find({ck, nth});
              if (it != set_times.end())
                for (const auto &[who, at] : it->second) t = std::max(t, at);  // every setter instance's k-th set
              fence = t;
              break;
            }
            default:
              for (auto [pipe, d] : durations(s, ev.work, rates)) {
                double &p = pipe_end[static_cast<size_t>(pipe)];
                p = std::max(p, fence) + d;
                end = std::max(end, p);
              }
              break;
          }
        }
        for (double t : pipe_end) end = std::max(end, t);
        ends[key] = std::max(end, fence);
      }
      settled = next == set_times;
      set_times = next;
    }
    if (!settled) {
      out.skip_reason = "block " + std::to_string(b) + ": the cross-core flags did not settle (a wait on its own set)";
      return out;
    }
    std::map<uint32_t, double> slowest;
    for (const auto &[key, t] : ends) slowest[key.first] = std::max(slowest[key.first], t);
    for (const auto &[fn, t] : slowest) {
      auto it = fewest.find(fn);
      fewest[fn] = it == fewest.end() ? t : std::min(it->second, t);
    }
  }

  for (const m::ComponentValue &c : term.per_component) {
    if (!c.work.is_object() || !c.work.contains("strict_chain_per_block_s")) continue;
    const std::string name = c.work.value("function", std::string());
    std::optional<uint32_t> fn;
    for (uint32_t f = 0; f < traced.functions.size(); ++f)
      if (traced.functions[f].name == name) fn = f;
    if (!fn || !fewest.count(*fn)) continue;
    const double chain = c.work["strict_chain_per_block_s"].get<double>(), truth = fewest[*fn];
    ++out.compared;
    out.max_ratio = std::max(out.max_ratio, truth > 0 ? chain / truth : (chain > 0 ? INFINITY : 0.0));
    if (chain > truth * (1 + 1e-9) + 1e-15) {
      char detail[200];
      std::snprintf(detail, sizeof detail, "strict chain per block %.6g s > %.6g s, the executed order's (fewest over blocks)",
                    chain, truth);
      out.violations.push_back({"term.critical_path.strict", "", "term critical_path (function " + name + ")", detail});
    }
  }
  return out;
}

}  // namespace pb::oracle_test
