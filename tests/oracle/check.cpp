//===- check.cpp - the differential soundness check against the oracle ----===//
#include "check.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include "analyze.hpp"
#include "combine.hpp"
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
    if (!known.empty() && options_.waive_known && options_.fixed.count(known) == 0) report_.waived.push_back(std::move(v));
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

/// The review item a per-op violation belongs to, when it is a known one.
std::string known_op_item(const std::string &field, const json &op) {
  (void)op;
  if (field.find("mte1") != std::string::npos) return "item 2 (MTE1 bytes not a minimum)";
  return {};
}

void compare_count(Findings &out, const std::string &where, const json &count, const o::OpStats &s, bool given,
                   const std::string &layer) {
  if (!count.is_object()) return;
  const std::string prefix = layer + "count.";
  if (auto mn = num(count, "min"); mn && *mn > s.block_min[o::kCount])
    out.add(prefix + "min", where, std::to_string(*mn) + " > oracle fewest per block " + std::to_string(s.block_min[o::kCount]),
            given ? std::string() : std::string());
  if (auto mx = num(count, "max"); mx && *mx < s.block_max[o::kCount])
    out.add(prefix + "max", where, std::to_string(*mx) + " < oracle most per block " + std::to_string(s.block_max[o::kCount]));
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
  compare_count(out, where, rec.value("count", json()), s, !strict_layer, layer);
  const json &bm = rec.contains("block_min") ? rec["block_min"] : json();
  for (const FieldMap &f : kBlockMin)
    if (auto v = num(bm, f.key); v && *v > s.block_min[f.field])
      out.add(layer + "block_min." + f.key, where,
              std::to_string(*v) + " > oracle fewest per block " + std::to_string(s.block_min[f.field]),
              known_op_item(f.key, full_rec));
  if (strict_layer) {
    const json &block = rec.value("block", json());
    const json &reasons = full_rec.value("total_reasons", json());
    for (const FieldMap &f : kBlock)
      if (auto v = num(block, f.key); v && !has_key(reasons, f.key) && *v != s.block0[f.field])
        out.add("block." + std::string(f.key) + ".exact", where,
                std::to_string(*v) + " (no reason given: exact) != oracle block 0 " + std::to_string(s.block0[f.field]));
  }
  const json &grid = rec.value("grid", json());
  const json &greasons = rec.value("grid_reasons", json());
  if (grid.is_object())
    for (const FieldMap &f : kGrid)
      if (auto v = num(grid, f.key); v && !has_key(greasons, f.key) && *v != s.grid[f.field])
        out.add(layer + "grid." + std::string(f.key) + ".exact", where,
                std::to_string(*v) + " (no reason given: exact) != oracle grid sum " + std::to_string(s.grid[f.field]),
                known_op_item(f.key, full_rec));
}

void compare_exec(Findings &out, const json &rec, const o::OpStats &s) {
  if (!s.executed || s.first_block != 0) return;
  const json &exec = rec.value("exec", json());
  if (!exec.is_object()) return;
  const json &reasons = rec.value("exec_reasons", json());
  const json &estimated = rec.value("estimated", json());
  const std::string where = "line " + std::to_string(s.line) + " " + s.name;
  for (auto it = exec.begin(); it != exec.end(); ++it) {
    if (!it->is_number()) continue;
    const std::string key = it.key();
    const int64_t want = exec_field(s.first, key);
    if (want == -2 || want < 0) continue;
    if (has_key(reasons, key.c_str())) continue;
    bool est = false;
    if (estimated.is_array())
      for (const json &e : estimated)
        if (e.is_string() && e.get<std::string>() == key) est = true;
    if (est) continue;
    const int64_t v = static_cast<int64_t>(std::llround(it->get<double>()));
    if (v != want)
      out.add("exec." + key + ".exact", where,
              std::to_string(v) + " (not marked estimated) != oracle first execution " + std::to_string(want) +
                  " (over all executions " + std::to_string(exec_field(s.exec_min, key)) + ".." +
                  std::to_string(exec_field(s.exec_max, key)) + ")",
              known_op_item(key, rec));
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
    if (auto mx = num(it, "max"); mx && *mx < s->block_max[o::kIterations])
      out.add("loop.iterations.max", where, std::to_string(*mx) + " < oracle most per block " + std::to_string(s->block_max[o::kIterations]));
    if (it.value("exact", false))
      if (auto v = num(it, "value"); v && *v != s->block0[o::kIterations])
        out.add("loop.iterations.exact", where, "exact " + std::to_string(*v) + " != oracle block 0 " + std::to_string(s->block0[o::kIterations]));
    const json &trip = l.value("trip", json());
    if (s->trip_min >= 0) {
      if (auto mx = num(trip, "max"); mx && *mx < s->trip_max)
        out.add("loop.trip.max", where, std::to_string(*mx) + " < oracle most iterations in one entry " + std::to_string(s->trip_max));
    }
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
      out.add("totals.cube_flop", where, std::to_string(*v) + " > oracle " + std::to_string(class_sum("cube")));
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

void compare_terms(Findings &out, const m::HivmView &ext_view, const o::Result &r, bool facts_hold,
                   const std::function<std::string(const std::string &term, const std::string &component)> &known_term) {
  const m::HivmView ora = m::HivmView::from_work(o::work_document(r, "oracle", false), "oracle");
  const m::HivmView capped = m::HivmView::from_work(o::work_document(r, "oracle", true), "oracle");
  TermCheck sets[2];
  sets[0].options_name = "defaults";
  sets[1].options_name = "strict options (packet_efficiency = none, vector_barrier_latency = none, cache = cold)";
  sets[1].options.packet_efficiency = "none";
  sets[1].options.vector_barrier_latency = "none";
  sets[1].options.cache = "cold";
  for (const TermCheck &set : sets) {
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
    for (size_t idx = 0; idx < ext.size(); ++idx) {
      const m::Term &e = ext[idx], &t = truth[idx];
      const std::string where = "term " + e.name + " (" + set.options_name + ")";
      if (above(seconds(e.strict_value), seconds(t.strict_value)))
        out.add("term." + e.name + ".strict", where,
                "strict " + fmt(seconds(e.strict_value)) + " s > oracle " + fmt(seconds(t.strict_value)) + " s (binding " +
                    e.core + "." + e.component + ")",
                known_term(e.name, e.core.empty() ? e.component : e.core + "." + e.component));
      for (const m::ComponentValue &c : e.per_component) {
        if (c.assurance == m::Assurance::Diagnostic) continue;
        const m::ComponentValue *tc = component(t, c.key());
        const double truth_strict = tc ? seconds(tc->strict_value) : 0.0;
        if (above(seconds(c.strict_value), truth_strict))
          out.add("term." + e.name + "." + c.key() + ".strict", where,
                  "strict " + fmt(seconds(c.strict_value)) + " s > oracle " + fmt(truth_strict) + " s",
                  known_term(e.name, c.key()));
        // Under facts that hold, a value resting on them (and on nothing argued) is a lower bound too.
        if (facts_hold && (c.assurance == m::Assurance::Given || c.assurance == m::Assurance::Strict)) {
          const double truth_value = tc ? std::max(seconds(tc->value), seconds(tc->strict_value)) : 0.0;
          if (above(seconds(c.value), truth_value))
            out.add("term." + e.name + "." + c.key() + ".given", where,
                    "value " + fmt(seconds(c.value)) + " s (" + m::assurance_name(c.assurance) + ") > oracle " +
                        fmt(truth_value) + " s",
                    known_term(e.name + ".given", c.key()));
        }
      }
    }
    const m::Limit el = m::compose(ext, "hivm"), tl = m::compose(truth, "hivm");
    if (above(seconds(el.strict), seconds(tl.strict)))
      out.add("limit.hivm.strict", "limit (" + set.options_name + ")",
              "strict " + fmt(seconds(el.strict)) + " s (" + el.strict_binding_term + ") > oracle " + fmt(seconds(tl.strict)) + " s",
              known_term("limit:" + el.strict_binding_term, el.strict_binding_component));
  }
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
  try {
    oo.seed = options.seed * 2 + 1;
    worlds.push_back({o::run(text, la, oo), true, "world A (index tensors given)"});
    // World B: no tensor contents, another seed (strict numbers hold in every world).
    o::Launch lb = o::launch_from_json(launch);
    oo.seed = options.seed * 2 + 2;
    worlds.push_back({o::run(text, lb, oo), false, "world B (seeded values)"});
  } catch (const o::OracleError &e) {
    report.skipped = true;
    report.skip_reason = std::string("oracle: ") + e.what();
    return report;
  }
  report.oracle_ops = worlds[0].result.executed_ops + worlds[1].result.executed_ops;
  const o::Result &a = worlds[0].result;

  // Facts that hold in world A.
  json ext_launch = launch;
  bool gave_facts = false;
  if (options.facts) {
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

  // The extractor.
  json doc;
  try {
    pb::hivm::AnalysisOptions ao;
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
      if (&w == &worlds[0]) compare_exec(out, rec, *s);
      if (w.facts_hold && rec.contains("given")) compare_record(out, rec["given"], *s, false, rec);
    }
    compare_loops(out, doc, w.result, true);
    compare_totals(out, doc, w.result);
  }

  // Terms and limits.
  const m::HivmView ext_view = m::HivmView::from_json(doc, origin);
  const bool has_sum_fact = ext_launch.contains("trips") && ext_launch["trips"].dump().find("\"sum\"") != std::string::npos;
  for (const World &w : worlds) {
    auto known = [&](const std::string &term, const std::string &comp) -> std::string {
      if (term == "memory" || term == "limit:memory") return "item 1 (cold-cache floor counts re-reads)";
      if (comp.find("mte1") != std::string::npos) return "item 2 (MTE1 bytes not a minimum)";
      if (term.find(".given") != std::string::npos && has_sum_fact) return "item 7 (sum facts)";
      return {};
    };
    compare_terms(out, ext_view, w.result, w.facts_hold && gave_facts, known);
  }
  return report;
}

}  // namespace pb::oracle_test
