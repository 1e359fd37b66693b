//===- check.cpp - the differential soundness check against the oracle ----===//
#include "check.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>

#include "analyze.hpp"
#include "combine.hpp"
#include "critical_path_check.hpp"
#include "document.hpp"
#include "generator.hpp"
#include "hivm_view.hpp"
#include "lexer.hpp"
#include "oracle.hpp"
#include "profile.hpp"
#include "rates.hpp"
#include "terms.hpp"

namespace pb::oracle_test {

using json = nlohmann::json;
namespace o = pb::hivm::oracle;
namespace m = pb::models;

std::string Violation::str() const {
  return (known.empty() ? std::string() : "[known: " + known + "] ") + cls + " at " + where + ": " + detail;
}

const json &profile_document() {
  static const json doc = [] {
    perfbound::ProfileLoad load = perfbound::load_profile(PB_SOURCE_DIR "/hardware_profiles/ascend_910b3");
    if (load.diagnostics.has_errors()) throw std::runtime_error("profile: " + load.diagnostics.format());
    return load.document;
  }();
  return doc;
}

namespace {

/// Process CPU time per phase of the check (PB_ORACLE_TIMING=1 prints it at exit).
struct PhaseTimes {
  double oracle = 0, extractor = 0, facts_invariant = 0, records = 0, terms = 0;
  uint64_t programs = 0;
  ~PhaseTimes() {
    if (std::getenv("PB_ORACLE_TIMING") == nullptr || programs == 0) return;
    std::fprintf(stderr, "oracle check, ms per program: oracle %.2f, extractor %.2f, facts invariant %.2f, records %.2f, terms %.2f\n",
                 1e3 * oracle / programs, 1e3 * extractor / programs, 1e3 * facts_invariant / programs,
                 1e3 * records / programs, 1e3 * terms / programs);
  }
};
PhaseTimes phase_times;

class Phase {
 public:
  explicit Phase(double &into) : into_(into), start_(std::clock()) {}
  ~Phase() { into_ += static_cast<double>(std::clock() - start_) / CLOCKS_PER_SEC; }

 private:
  double &into_;
  std::clock_t start_;
};

const m::Rates &rates() {
  static const m::Rates r = m::Rates::from_profile(profile_document(), "ascend_910b3");
  return r;
}

std::optional<int64_t> num(const json &obj, const char *key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return static_cast<int64_t>(std::llround(it->get<double>()));
}

bool has_key(const json &obj, const char *key) { return obj.is_object() && obj.contains(key); }

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

/// Accumulates violations, sorting known review items apart.
class Findings {
 public:
  Findings(CheckReport &report, const CheckOptions &options) : report_(report), options_(options) {}
  void add(const std::string &cls, const std::string &where, const std::string &detail, const std::string &known = {}) {
    Violation v{cls, known, where, detail};
    // `fixed` names items ("item 7"); a label is "item N (what it is)".
    const std::string item = known.substr(0, known.find(" ("));
    if (!known.empty() && options_.waive_known && options_.fixed.count(item) == 0) report_.waived.push_back(std::move(v));
    else report_.violations.push_back(std::move(v));
  }

 private:
  CheckReport &report_;
  const CheckOptions &options_;
};

struct World {
  o::Result result;
  bool facts_hold = false;  // the extractor's facts were derived from (and hold in) this world
  std::string name;
};

/// Extractor op record -> oracle op.
const o::OpStats *match(const o::Result &r, const json &op, std::map<std::pair<int64_t, int64_t>, uint32_t> &ordinals) {
  const int64_t fn = num(op, "function").value_or(-1), line = num(op, "line").value_or(-1);
  const uint32_t nth = ordinals[{fn, line}]++;
  const o::OpStats *s = r.find(static_cast<uint32_t>(fn), static_cast<uint32_t>(line), nth);
  if (s == nullptr || s->name != op.value("op", std::string())) return nullptr;
  return s;
}

struct FieldMap {
  const char *key;
  o::Field field;
};
const FieldMap kBlockMin[] = {{"count", o::kCount},   {"bytes", o::kBytes},
                              {"flop", o::kFlop},     {"repeats", o::kRepeats},
                              {"scalar_instructions", o::kScalar}, {"issued_instructions", o::kIssued}};
const FieldMap kBlock[] = {{"bytes", o::kBytes},     {"elements", o::kElements}, {"flop", o::kFlop},
                           {"repeats", o::kRepeats}, {"masked_lanes", o::kMasked}, {"packets", o::kPackets},
                           {"scalar_instructions", o::kScalar}, {"issued_instructions", o::kIssued}};
const FieldMap kGrid[] = {{"count", o::kCount},  {"bytes", o::kBytes},
                          {"flop", o::kFlop},    {"repeats", o::kRepeats},
                          {"scalar_instructions", o::kScalar}, {"issued_instructions", o::kIssued}};

int64_t exec_field(const o::Exec &e, const std::string &key) {
  if (key == "elements") return e.elements;
  if (key == "bytes") return e.bytes;
  if (key == "flop") return e.flop;
  if (key == "repeats") return e.repeats;
  if (key == "masked_lanes") return e.masked_lanes;
  if (key == "packet_bytes") return e.packet_bytes;
  if (key == "packets") return e.packets;
  if (key == "mte1_bytes") return e.mte1_bytes;
  if (key == "m") return e.m;
  if (key == "k") return e.k;
  if (key == "n") return e.n;
  return -2;
}

/// Whether the oracle has a figure for `field` of this op (an op that never
/// ran has 0 of everything).
bool applicable(const o::OpStats &s, o::Field f) {
  if (!s.executed) return true;
  switch (f) {
    case o::kBytes: return s.exec_max.bytes >= 0;
    case o::kElements: return s.exec_max.elements >= 0;
    case o::kFlop: return s.exec_max.flop >= 0;
    case o::kRepeats: return s.exec_max.repeats >= 0;
    case o::kMasked: return s.exec_max.masked_lanes >= 0;
    case o::kPackets: return s.exec_max.packets >= 0;
    case o::kMte1: return s.exec_max.mte1_bytes >= 0;
    default: return true;
  }
}

/// The review item a per-op violation belongs to, when it is a known one.
std::string known_op_item(const std::string &field, const json &op) {
  // mmadL1's real_m/k/n and MTE1 bytes: the last sample wins, an upper bound is not marked (review item 2).
  if (field.find("mte1") != std::string::npos || ((field == "m" || field == "k" || field == "n") && op.value("class", "") == "cube"))
    return "item 2 (MTE1 bytes not a minimum)";
  return {};
}

void compare_count(Findings &out, const std::string &where, const json &count, const o::OpStats &s, const std::string &layer) {
  if (!count.is_object()) return;
  const std::string prefix = layer + "count.";
  // `min` is the fewest over every block; `value` and `max` describe the
  // representative block 0 (docs/extract_hivm.md §3).
  if (auto mn = num(count, "min"); mn && *mn > s.block_min[o::kCount])
    out.add(prefix + "min", where, std::to_string(*mn) + " > oracle fewest per block " + std::to_string(s.block_min[o::kCount]));
  if (auto mx = num(count, "max"); mx && *mx < s.block0[o::kCount])
    out.add(prefix + "max", where, std::to_string(*mx) + " < oracle block 0 " + std::to_string(s.block0[o::kCount]));
  if (count.value("exact", false)) {
    if (auto v = num(count, "value"); v && *v != s.block0[o::kCount])
      out.add(prefix + "exact", where, "exact value " + std::to_string(*v) + " != oracle block 0 " + std::to_string(s.block0[o::kCount]));
    if (auto mn = num(count, "min"); mn && *mn != s.block_min[o::kCount])
      out.add(prefix + "exact", where, "exact, min " + std::to_string(*mn) + " != oracle fewest " + std::to_string(s.block_min[o::kCount]));
  }
}

/// The strict (or given) numbers of one op record against one world.
void compare_record(Findings &out, const json &rec, const o::OpStats &s, bool strict_layer, const json &full_rec) {
  const std::string where = "line " + std::to_string(s.line) + " " + s.name;
  const std::string layer = strict_layer ? "" : "given.";
  compare_count(out, where, rec.value("count", json()), s, layer);
  const json &bm = rec.contains("block_min") ? rec["block_min"] : json();
  for (const FieldMap &f : kBlockMin)
    if (auto v = num(bm, f.key); v && applicable(s, f.field) && *v > s.block_min[f.field])
      out.add(layer + "block_min." + f.key, where,
              std::to_string(*v) + " > oracle fewest per block " + std::to_string(s.block_min[f.field]),
              known_op_item(f.key, full_rec));
  if (strict_layer) {
    const json &block = rec.value("block", json());
    const json &reasons = full_rec.value("total_reasons", json());
    for (const FieldMap &f : kBlock)
      if (auto v = num(block, f.key); v && applicable(s, f.field) && !has_key(reasons, f.key) && *v != s.block0[f.field])
        out.add("block." + std::string(f.key) + ".exact", where,
                std::to_string(*v) + " (no reason given: exact) != oracle block 0 " + std::to_string(s.block0[f.field]));
  }
  const json &grid = rec.value("grid", json());
  const json &greasons = rec.value("grid_reasons", json());
  if (grid.is_object())
    for (const FieldMap &f : kGrid)
      if (auto v = num(grid, f.key); v && applicable(s, f.field) && !has_key(greasons, f.key) && *v != s.grid[f.field])
        out.add(layer + "grid." + std::string(f.key) + ".exact", where,
                std::to_string(*v) + " (no reason given: exact) != oracle grid sum " + std::to_string(s.grid[f.field]),
                known_op_item(f.key, full_rec));
}

/// Per-execution sizes not marked estimated. The extractor's representative
/// execution is block 0's first iteration, which may be one where the op does
/// not run, so the value itself is no claim; the model multiplies it by the
/// guaranteed count only where the record has no per-block minimum
/// (hivm_view.cpp `measure`), and there a value above every execution the
/// oracle saw overstates the work (review item 3). MTE1 bytes and real_m/k/n
/// come from the last sample (review item 2). Masked lanes are a waste figure
/// for attribution only.
void compare_exec(Findings &out, const json &rec, const o::OpStats &s) {
  if (!s.executed) return;
  const json &exec = rec.value("exec", json());
  if (!exec.is_object()) return;
  const json &reasons = rec.value("exec_reasons", json());
  const json &estimated = rec.value("estimated", json());
  const json &block_min = rec.value("block_min", json());
  const json &count = rec.value("count", json());
  const bool used_by_measure = num(count, "min").value_or(0) > 0 && !count.value("block_dependent", false);
  const std::string where = "line " + std::to_string(s.line) + " " + s.name;
  for (auto it = exec.begin(); it != exec.end(); ++it) {
    if (!it->is_number()) continue;
    const std::string key = it.key();
    if (key == "masked_lanes") continue;
    const int64_t top = exec_field(s.exec_max, key);
    if (top == -2 || top < 0) continue;
    if (has_key(reasons, key.c_str())) continue;
    bool est = false;
    if (estimated.is_array())
      for (const json &e : estimated)
        if (e.is_string() && e.get<std::string>() == key) est = true;
    if (est) continue;
    const int64_t v = static_cast<int64_t>(std::llround(it->get<double>()));
    if (v <= top) continue;
    std::string item = known_op_item(key, rec);
    if (item.empty()) {
      // Only bytes, flop and repeats reach a term through count.min x exec.
      if (key != "bytes" && key != "flop" && key != "repeats") continue;
      if (!used_by_measure || has_key(block_min, key.c_str())) continue;
      item = "item 3 (measure() falls back to block 0's first iteration)";
    }
    out.add("exec." + key + ".above_every_execution", where,
            std::to_string(v) + " (not marked estimated) > every execution of the op (" +
                std::to_string(exec_field(s.exec_min, key)) + ".." + std::to_string(top) + ")",
            item);
  }
}

/// loops[]: iterations per block and entries.
void compare_loops(Findings &out, const json &doc, const o::Result &r, bool strict_layer) {
  if (!strict_layer || !doc.contains("loops")) return;
  for (const json &l : doc["loops"]) {
    const int64_t fn = num(l, "function").value_or(-1), line = num(l, "line").value_or(-1);
    const o::OpStats *s = nullptr;
    for (const o::OpStats &cand : r.ops)
      if (static_cast<int64_t>(cand.function) == fn && static_cast<int64_t>(cand.line) == line &&
          (cand.name == "scf.for" || cand.name == "scf.while"))
        s = &cand;
    if (s == nullptr) continue;
    const std::string where = "loop at line " + std::to_string(line);
    const json &it = l.value("iterations", json());
    if (auto mn = num(it, "min"); mn && *mn > s->block_min[o::kIterations])
      out.add("loop.iterations.min", where, std::to_string(*mn) + " > oracle fewest per block " + std::to_string(s->block_min[o::kIterations]));
    if (auto mx = num(it, "max"); mx && *mx < s->block0[o::kIterations])
      out.add("loop.iterations.max", where, std::to_string(*mx) + " < oracle block 0 " + std::to_string(s->block0[o::kIterations]));
    if (it.value("exact", false))
      if (auto v = num(it, "value"); v && *v != s->block0[o::kIterations])
        out.add("loop.iterations.exact", where, "exact " + std::to_string(*v) + " != oracle block 0 " + std::to_string(s->block0[o::kIterations]));
  }
}

/// totals.per_block_min per core: strict sums of per-op minimums.
void compare_totals(Findings &out, const json &doc, const o::Result &r) {
  const json &t = doc.contains("totals") ? doc["totals"].value("per_block_min", json()) : json();
  if (!t.is_object()) return;
  for (auto it = t.begin(); it != t.end(); ++it) {
    const std::string core = it.key();
    if (core != "aic" && core != "aiv") continue;
    const json &c = it.value();
    auto oracle_min = [&](const std::map<std::string, o::Result::Work> &m) -> int64_t {
      auto w = m.find(core);
      return w == m.end() ? 0 : w->second.block_min;
    };
    auto class_sum = [&](const std::string &component) -> int64_t {
      auto comp = r.components.find(core + "." + component);
      if (comp == r.components.end()) return 0;
      int64_t s = 0;
      for (const auto &[cls, w] : comp->second) s += w.block_min;
      return s;
    };
    const std::string where = "totals.per_block_min." + core;
    if (auto v = num(c, "issued_instructions"); v && *v > oracle_min(r.issued_as_written))
      out.add("totals.issued_instructions", where, std::to_string(*v) + " > oracle " + std::to_string(oracle_min(r.issued_as_written)));
    if (auto v = num(c.value("scalar", json()), "instructions"); v && *v > oracle_min(r.scalar_as_written))
      out.add("totals.scalar_instructions", where, std::to_string(*v) + " > oracle " + std::to_string(oracle_min(r.scalar_as_written)));
    if (auto v = num(c.value("vector", json()), "repeats"); v && *v > class_sum("vector"))
      out.add("totals.vector_repeats", where, std::to_string(*v) + " > oracle " + std::to_string(class_sum("vector")));
    if (auto v = num(c.value("cube", json()), "flop"); v && *v > class_sum("cube"))
      out.add("totals.cube_flop", where, std::to_string(*v) + " > oracle " + std::to_string(class_sum("cube")),
              "item 2 (MTE1 bytes not a minimum: real_m/k/n of the last sample)");
    // DMA bytes by (pipe, path), summed over transfer sizes.
    std::map<std::pair<std::string, std::string>, int64_t> mte;
    if (c.contains("mte") && c["mte"].is_array())
      for (const json &row : c["mte"])
        if (auto b = num(row, "bytes")) mte[{row.value("pipe", std::string()), row.value("path", std::string())}] += *b;
    static const std::map<std::string, std::string> kComponent{{"MTE1", "mte1"}, {"MTE2", "mte2"}, {"MTE3", "mte3"},
                                                               {"FIX", "fixpipe"}, {"V", "vector"}};
    for (const auto &[key, bytes] : mte) {
      auto comp = kComponent.find(key.first);
      if (comp == kComponent.end()) continue;
      int64_t truth = 0;
      if (auto cw = r.components.find(core + "." + comp->second); cw != r.components.end())
        if (auto w = cw->second.find(key.second); w != cw->second.end()) truth = w->second.block_min;
      if (bytes > truth)
        out.add("totals.mte_bytes", where + ".mte." + key.first + "." + key.second,
                std::to_string(bytes) + " > oracle " + std::to_string(truth));
    }
    if (auto v = num(c.value("cube", json()), "mte1_bytes"); v && *v > class_sum("mte1"))
      out.add("totals.cube_mte1_bytes", where, std::to_string(*v) + " > oracle " + std::to_string(class_sum("mte1")),
              "item 2 (MTE1 bytes not a minimum)");
  }
}

// --- Terms ------------------------------------------------------------------

std::vector<m::Term> run_terms(const m::HivmView &v, const m::TermOptions &opt) {
  return {m::grid_floor_hivm(v, rates(), opt), m::component_floor_hivm(v, rates(), opt), m::memory_hivm(v, rates(), opt),
          m::serialization_hivm(v, rates(), opt), m::issue_floor_hivm(v, rates(), opt)};
}

double seconds(const m::Time &t) { return t.seconds.value_or(0.0); }

bool above(double ext, double truth) { return ext > truth * (1 + 1e-9) + 1e-15; }

const m::ComponentValue *component(const m::Term &t, const std::string &key) {
  for (const m::ComponentValue &c : t.per_component)
    if (c.key() == key && c.assurance != m::Assurance::Diagnostic) return &c;
  return nullptr;
}

struct TermCheck {
  std::string options_name;
  m::TermOptions options;
};

/// Strict values of the extractor's terms without the launch's facts, by "options|term|component"
/// ("" component: the term; term "limit": the limit).
using StrictValues = std::map<std::string, double>;

TermCheck *term_sets() {
  static TermCheck sets[2];
  static bool ready = false;
  if (!ready) {
    sets[0].options_name = "defaults";
    sets[1].options_name = "strict options (packet_efficiency = none, vector_barrier_latency = none, cache = cold)";
    sets[1].options.packet_efficiency = "none";
    sets[1].options.vector_barrier_latency = "none";
    sets[1].options.cache = "cold";
    ready = true;
  }
  return sets;
}

StrictValues strict_values(const m::HivmView &view) {
  StrictValues out;
  for (int k = 0; k < 2; ++k) {
    const TermCheck &set = term_sets()[k];
    std::vector<m::Term> terms = run_terms(view, set.options);
    for (const m::Term &t : terms) {
      out[set.options_name + "|" + t.name + "|"] = seconds(t.strict_value);
      for (const m::ComponentValue &c : t.per_component)
        if (c.assurance != m::Assurance::Diagnostic) out[set.options_name + "|" + t.name + "|" + c.key()] = seconds(c.strict_value);
    }
    out[set.options_name + "|limit|"] = seconds(m::compose(terms, "hivm").strict);
  }
  return out;
}

void compare_terms(Findings &out, const m::HivmView &ext_view, const o::Result &r, bool facts_hold,
                   const std::function<std::string(const std::string &term, const std::string &component)> &known_term,
                   const StrictValues *without_facts) {
  const m::HivmView ora = m::HivmView::from_work(o::work_document(r, "oracle", false), "oracle");
  const m::HivmView capped = m::HivmView::from_work(o::work_document(r, "oracle", true), "oracle");
  if (std::getenv("PB_ORACLE_DEBUG") != nullptr) {
    std::fprintf(stderr, "extractor work: %s\noracle work: %s\n", ext_view.to_work().dump().c_str(), ora.to_work().dump().c_str());
  }
  for (int set_idx = 0; set_idx < 2; ++set_idx) {
    const TermCheck &set = term_sets()[set_idx];
    std::vector<m::Term> ext = run_terms(ext_view, set.options);
    std::vector<m::Term> truth = run_terms(ora, set.options);
    // Memory on a cold cache: every unique byte crosses HBM once, every DMA byte
    // crosses a GM path: max(paths on all bytes, cold floor on unique bytes).
    if (set.options.cache == "cold") {
      m::TermOptions warm = set.options;
      warm.cache = "warm";
      m::Term paths = m::memory_hivm(ora, rates(), warm);
      m::Term cold = m::memory_hivm(capped, rates(), set.options);
      m::Term &mem = truth[2];
      for (m::ComponentValue &cv : mem.per_component) {
        const m::ComponentValue *p = component(paths, cv.key()), *c = component(cold, cv.key());
        const double best = std::max(p ? seconds(p->strict_value) : 0.0, c ? seconds(c->strict_value) : 0.0);
        cv.value = cv.strict_value = m::Time::known(best);
      }
      mem.settle();
    }
    // The cold floor on every DMA byte the oracle counted (re-reads too): a
    // memory figure up to this high owes it to review item 1 (re-reads
    // counted as HBM traffic); one that holds without the launch's facts
    // owes it to item 6 (given bytes in the cold floor's strict value).
    const m::Term uncapped = m::memory_hivm(ora, rates(), set.options);
    const double uncapped_s = std::max(seconds(uncapped.value), seconds(uncapped.strict_value));
    auto memory_item = [&](const std::string &term, const std::string &comp, double ext_s, double truth_s) -> std::string {
      if (set.options.cache != "cold" || term != "memory") return {};
      double bare = ext_s;
      if (without_facts != nullptr) {
        auto it = without_facts->find(set.options_name + "|" + term + "|" + comp);
        if (it != without_facts->end()) bare = it->second;
      }
      if (!above(ext_s, uncapped_s)) return "item 1 (cold-cache floor counts re-reads)";
      if (!above(bare, truth_s)) return "item 6 (cache = cold lets given bytes into strict_value)";
      if (!above(bare, uncapped_s)) return "items 1 and 6 (re-reads, and given bytes in the cold floor's strict value)";
      return {};
    };
    for (size_t idx = 0; idx < ext.size(); ++idx) {
      const m::Term &e = ext[idx], &t = truth[idx];
      const std::string where = "term " + e.name + " (" + set.options_name + ")";
      if (above(seconds(e.strict_value), seconds(t.strict_value)))
        out.add("term." + e.name + ".strict", where,
                "strict " + fmt(seconds(e.strict_value)) + " s > oracle " + fmt(seconds(t.strict_value)) + " s (binding " +
                    e.core + "." + e.component + ")",
                !memory_item(e.name, "", seconds(e.strict_value), seconds(t.strict_value)).empty()
                    ? memory_item(e.name, "", seconds(e.strict_value), seconds(t.strict_value))
                    : known_term(e.name, e.core.empty() ? e.component : e.core + "." + e.component));
      for (const m::ComponentValue &c : e.per_component) {
        if (c.assurance == m::Assurance::Diagnostic) continue;
        const m::ComponentValue *tc = component(t, c.key());
        const double truth_strict = tc ? seconds(tc->strict_value) : 0.0;
        if (above(seconds(c.strict_value), truth_strict))
          out.add("term." + e.name + "." + c.key() + ".strict", where,
                  "strict " + fmt(seconds(c.strict_value)) + " s > oracle " + fmt(truth_strict) + " s",
                  !memory_item(e.name, c.key(), seconds(c.strict_value), truth_strict).empty()
                      ? memory_item(e.name, c.key(), seconds(c.strict_value), truth_strict)
                      : known_term(e.name, c.key()));
        // Under facts that hold, a value resting on them (and on nothing argued) is a lower bound too.
        if (facts_hold && (c.assurance == m::Assurance::Given || c.assurance == m::Assurance::Strict)) {
          const double truth_value = tc ? std::max(seconds(tc->value), seconds(tc->strict_value)) : 0.0;
          if (above(seconds(c.value), truth_value))
            out.add("term." + e.name + "." + c.key() + ".given", where,
                    "value " + fmt(seconds(c.value)) + " s (" + m::assurance_name(c.assurance) + ") > oracle " +
                        fmt(truth_value) + " s",
                    !memory_item(e.name, c.key(), seconds(c.value), truth_value).empty()
                        ? memory_item(e.name, c.key(), seconds(c.value), truth_value)
                        : known_term(e.name + ".given", c.key()));
        }
      }
    }
    const m::Limit el = m::compose(ext, "hivm"), tl = m::compose(truth, "hivm");
    if (above(seconds(el.strict), seconds(tl.strict)))
      out.add("limit.hivm.strict", "limit (" + set.options_name + ")",
              "strict " + fmt(seconds(el.strict)) + " s (" + el.strict_binding_term + ") > oracle " + fmt(seconds(tl.strict)) + " s",
              !memory_item(el.strict_binding_term, "", seconds(el.strict), seconds(tl.strict)).empty()
                  ? memory_item(el.strict_binding_term, "", seconds(el.strict), seconds(tl.strict))
                  : known_term("limit:" + el.strict_binding_term, el.strict_binding_component));
  }
}

/// The term and limit violations of one extractor document against every world.
std::vector<Violation> term_violations(const json &doc, const std::vector<World> &worlds, bool gave_facts,
                                       const StrictValues *without_facts, const std::string &origin) {
  CheckReport scratch;
  CheckOptions all;
  all.waive_known = false;
  Findings out(scratch, all);
  const m::HivmView ext_view = m::HivmView::from_json(doc, origin);
  for (const World &w : worlds) {
    auto known = [&](const std::string &, const std::string &comp) -> std::string {
      if (comp.find("mte1") != std::string::npos) return "item 2 (MTE1 bytes not a minimum)";
      return {};
    };
    compare_terms(out, ext_view, w.result, w.facts_hold && gave_facts, known, without_facts);
  }
  return scratch.violations;
}

}  // namespace

CheckReport check_program(const std::string &text, const json &launch,
                          const std::map<std::string, std::vector<int64_t>> &index_data, const CheckOptions &options,
                          const std::string &origin) {
  CheckReport report;
  Findings out(report, options);
  Choices choices(options.seed ^ 0xC0FFEEULL);

  // The oracle, world A: the index tensors given, a seeded provider elsewhere.
  o::Options oo;
  o::apply_profile(profile_document(), oo);
  oo.max_ops = options.max_ops;
  oo.load_lo = 0;
  oo.load_hi = 6;
  oo.scalar_lo = 1;
  oo.scalar_hi = 40;
  o::Launch la = o::launch_from_json(launch);
  for (const auto &[k, v] : index_data) la.data[k] = v;
  std::vector<World> worlds;
  ++phase_times.programs;
  std::optional<Phase> timing(std::in_place, phase_times.oracle);
  try {
    oo.seed = options.seed * 2 + 1;
    oo.trace = true;  // the executed order, for the critical path
    worlds.push_back({o::run(text, la, oo), true, "world A (index tensors given)"});
    oo.trace = false;
    // World B: no tensor contents, another seed (strict numbers hold in every world).
    o::Launch lb = o::launch_from_json(launch);
    oo.seed = options.seed * 2 + 2;
    worlds.push_back({o::run(text, lb, oo), false, "world B (seeded values)"});
  } catch (const o::OracleError &e) {
    report.skipped = true;
    report.skip_reason = std::string("oracle: ") + e.what();
    return report;
  } catch (const pb::hivm::SourceError &e) {
    // The shared parser refuses the text: a generator bug, or a dump neither side reads.
    out.add("program.refused_by_parser", "line " + std::to_string(e.line()), e.what());
    return report;
  }
  report.oracle_ops = worlds[0].result.executed_ops + worlds[1].result.executed_ops;
  const o::Result &a = worlds[0].result;

  timing.emplace(phase_times.extractor);
  // Facts that hold in world A.
  json ext_launch = launch;
  // A launch that brings its own facts (a regression file) keeps them: they must hold in world A.
  bool gave_facts = launch.contains("trips") || launch.contains("data");
  if (gave_facts) report.facts_summary = "as given: " + json{{"trips", launch.value("trips", json())}, {"data", launch.value("data", json())}}.dump();
  if (options.facts && !gave_facts) {
    if (!index_data.empty() && choices.percent(40)) {
      json data = json::object();
      for (const auto &[k, v] : index_data) data[k] = v;
      ext_launch["data"] = data;
      report.facts_summary += "data(" + std::to_string(index_data.size()) + ") ";
      gave_facts = true;
    }
    json trips = json::object();
    for (const o::OpStats &s : a.ops) {
      if (s.name != "scf.for" || s.trip_min < 0 || !choices.percent(35)) continue;
      json fact;
      switch (choices.below(4)) {
        case 0: fact = {{"min", std::max<int64_t>(0, s.trip_min - (choices.percent(30) ? 1 : 0))}}; break;
        case 1: fact = {{"max", s.trip_max + (choices.percent(30) ? 1 : 0)}}; break;
        case 2:
          fact = {{"min", std::max<int64_t>(0, s.trip_min - (choices.percent(30) ? 1 : 0))}, {"max", s.trip_max}};
          break;
        default:
          if (s.block_min[o::kIterations] == s.block_max[o::kIterations])
            fact = {{"sum", s.block_min[o::kIterations]}, {"over", "block"}};
          else
            fact = {{"sum", s.grid[o::kIterations]}, {"over", "grid"}};
          break;
      }
      trips[std::to_string(s.line)] = fact;
      report.facts_summary += "trips." + std::to_string(s.line) + "=" + fact.dump() + " ";
      gave_facts = true;
    }
    if (!trips.empty()) ext_launch["trips"] = trips;
  }
  report.launch = ext_launch;

  // The extractor's enumeration budget: one program in four runs with a budget of 1 to 8
  // executions per op, so loops are summarised by intervals rather than enumerated — where
  // review item 3 lived (measure() fell back to block 0's first execution past the budget),
  // and where the generator's short loops never get otherwise. Soundness may not depend on
  // the budget. Drawn apart from the facts, which keep their seeds' choices.
  Choices budget_choice(options.seed ^ 0xB0D6E7ULL);
  const uint64_t budget = options.enumeration_budget != 0 ? options.enumeration_budget
                          : budget_choice.percent(25)     ? uint64_t{1} << budget_choice.below(4)
                                                          : 0;
  report.enumeration_budget = budget;
  auto limit = [&](pb::hivm::AnalysisOptions &ao) {
    if (budget != 0) ao.enumeration_budget = budget;
  };

  // The extractor.
  json doc;
  try {
    pb::hivm::AnalysisOptions ao;
    limit(ao);
    pb::hivm::apply_profile(profile_document(), ao);
    pb::hivm::apply_launch(ext_launch, ao);
    pb::hivm::Program prog = pb::hivm::analyze_text(text, ao);
    doc = pb::hivm::to_json(prog, {origin, text.size()}, ao);
    if (options.tamper) options.tamper(doc);
  } catch (const pb::hivm::SourceError &e) {
    out.add(gave_facts ? "extractor.refused_fact" : "extractor.refused", "line " + std::to_string(e.line()),
            std::string(e.what()) + (gave_facts ? " (the facts hold in an execution: " + report.facts_summary + ")" : ""));
    return report;
  } catch (const std::exception &e) {
    out.add(gave_facts ? "extractor.refused_fact" : "extractor.refused", "launch", e.what());
    return report;
  }

  // Strict numbers do not depend on the facts (docs/extract_hivm.md §3): the
  // document without them has the same strict members and terms.
  // Terms read only AIC and AIV functions (a lit-test file of unmarked functions has none).
  const bool has_core = std::any_of(a.functions.begin(), a.functions.end(),
                                    [](const o::FunctionInfo &f) { return f.core != o::Core::Unknown; });
  timing.emplace(phase_times.facts_invariant);
  std::optional<StrictValues> without_facts;
  if (gave_facts) {
    json bare = launch;
    json bare_doc;
    try {
      pb::hivm::AnalysisOptions ao;
      limit(ao);
      pb::hivm::apply_profile(profile_document(), ao);
      pb::hivm::apply_launch(bare, ao);
      bare_doc = pb::hivm::to_json(pb::hivm::analyze_text(text, ao), {origin, text.size()}, ao);
      if (options.tamper) options.tamper(bare_doc);
    } catch (const std::exception &e) {
      out.add("extractor.refused", "launch without facts", e.what());
      return report;
    }
    const json &a_ops = doc["ops"], &b_ops = bare_doc["ops"];
    for (size_t idx = 0; idx < a_ops.size() && idx < b_ops.size(); ++idx)
      for (const char *key : {"count", "block_min", "block", "grid", "exec", "count_instance"})
        if (a_ops[idx].value(key, json()) != b_ops[idx].value(key, json()))
          out.add("strict.depends_on_facts", "line " + std::to_string(num(a_ops[idx], "line").value_or(0)) + " " +
                                                 a_ops[idx].value("op", std::string()),
                  std::string(key) + " with facts " + a_ops[idx].value(key, json()).dump() + " != without " +
                      b_ops[idx].value(key, json()).dump());
    if (has_core) without_facts = strict_values(m::HivmView::from_json(bare_doc, origin));
    const StrictValues with = has_core ? strict_values(m::HivmView::from_json(doc, origin)) : StrictValues{};
    for (const auto &[k, v] : with) {
      auto it = without_facts->find(k);
      const double w0 = it == without_facts->end() ? 0.0 : it->second;
      if (std::fabs(v - w0) > 1e-9 * std::max(std::fabs(v), std::fabs(w0)) + 1e-18)
        out.add("term.strict_depends_on_facts", k, "strict " + fmt(v) + " s with the facts, " + fmt(w0) + " s without",
                k.find("cache = cold") != std::string::npos && k.find("|memory|") != std::string::npos
                    ? "item 6 (cache = cold lets given bytes into strict_value)"
                    : (k.find("cache = cold") != std::string::npos && k.find("|limit|") != std::string::npos
                           ? "item 6 (cache = cold lets given bytes into strict_value)"
                           : ""));
    }
  }

  timing.emplace(phase_times.records);
  // Op records against both worlds (strict) and world A (given).
  const json &ops = doc["ops"];
  report.records = ops.size();
  for (const World &w : worlds) {
    std::map<std::pair<int64_t, int64_t>, uint32_t> ordinals;
    for (const json &rec : ops) {
      const o::OpStats *s = match(w.result, rec, ordinals);
      if (s == nullptr) continue;
      if (&w == &worlds[0]) ++report.compared;
      compare_record(out, rec, *s, true, rec);
      compare_exec(out, rec, *s);
      if (w.facts_hold && rec.contains("given")) compare_record(out, rec["given"], *s, false, rec);
    }
    compare_loops(out, doc, w.result, true);
    compare_totals(out, doc, w.result);
  }

  // Terms and limits, with every violation not yet attributed tried against
  // the known review items by repairing what each one names and checking again.
  timing.emplace(phase_times.terms);
  if (!has_core) return report;
  std::vector<Violation> found = term_violations(doc, worlds, gave_facts, without_facts ? &*without_facts : nullptr, origin);
  auto unknown_left = [&]() {
    return std::any_of(found.begin(), found.end(), [](const Violation &v) { return v.known.empty(); });
  };
  auto attribute = [&](const json &repaired, const std::string &item) {
    if (!unknown_left()) return;
    std::vector<Violation> again = term_violations(repaired, worlds, gave_facts, without_facts ? &*without_facts : nullptr, origin);
    for (Violation &v : found) {
      if (!v.known.empty()) continue;
      const bool still = std::any_of(again.begin(), again.end(), [&](const Violation &w) { return w.cls == v.cls && w.where == v.where; });
      if (!still) v.known = item;
    }
  };
  if (unknown_left()) {
    // Item 2: a cube op's MTE1 bytes (and the FLOP from the same sampled sizes) as estimates.
    json repaired = doc;
    for (json &op : repaired["ops"])
      if (op.value("class", "") == "cube") {
        json est = op.value("estimated", json::array());
        est.push_back("mte1_bytes");
        est.push_back("flop");
        op["estimated"] = est;
      }
    attribute(repaired, "item 2 (MTE1 bytes not a minimum)");
  }
  if (unknown_left() && gave_facts) {
    // Item 4: the given overlay with the strict record's total_reasons.
    json repaired = doc;
    for (json &op : repaired["ops"])
      if (op.contains("given") && op.contains("total_reasons")) op["given"]["total_reasons"] = op["total_reasons"];
    attribute(repaired, "item 4 (the given overlay drops total_reasons)");
  }
  if (unknown_left() && ext_launch.contains("trips") && ext_launch["trips"].dump().find("\"sum\"") != std::string::npos) {
    // Item 7: the same launch without its sum facts.
    json launch_wo = ext_launch;
    for (auto it = launch_wo["trips"].begin(); it != launch_wo["trips"].end();) {
      if (it.value().contains("sum")) it = launch_wo["trips"].erase(it);
      else ++it;
    }
    try {
      pb::hivm::AnalysisOptions ao;
      limit(ao);
      pb::hivm::apply_profile(profile_document(), ao);
      pb::hivm::apply_launch(launch_wo, ao);
      json repaired = pb::hivm::to_json(pb::hivm::analyze_text(text, ao), {origin, text.size()}, ao);
      if (options.tamper) options.tamper(repaired);
      attribute(repaired, "item 7 (sum facts)");
    } catch (const std::exception &) {
    }
  }
  for (Violation &v : found) out.add(v.cls, v.where, v.detail, v.known);

  // The critical path against the first world's executed order.
  CriticalPathCheck cp = check_critical_path(text, doc, worlds[0].result, profile_document(), rates(), origin);
  report.critical_path_compared = cp.compared;
  report.critical_path_skip = cp.skip_reason;
  for (Violation &v : cp.violations) out.add(v.cls, v.where, v.detail, v.known);
  return report;
}

}  // namespace pb::oracle_test
