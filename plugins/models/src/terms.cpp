//===- terms.cpp - the five bound terms, on the DSL and the HIVM tier -----===//
#include "terms.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "formulas.hpp"
#include "render_numbers.hpp"

namespace pb::models {

const char *const kArgumentVectorLatency =
    "A pipe_barrier[PIPE_V] between two vector instructions holds the second until the first has completed, so "
    "the vector pipeline's drain latency is exposed once per barrier on the V pipe's own timeline, where no other "
    "vector work can hide it. vector.head_latency (13 cycles, Huawei's tilesim pipeline model) is below what every "
    "measurement shows per instruction: the vector microbenchmarks (calibration vector_*_fp16_rate) take 26-30 V-busy "
    "cycles per 2-repeat instruction, i.e. at least 24 cycles of per-instruction latency beyond the repeats.";
const char *const kArgumentPacketEfficiency =
    "The calibrated efficiency eta(s) is the rate a copy kernel reached with s-byte transfers relative to its 64 KiB "
    "rate. It is applied to the chip's peak (the fastest rate ever measured or specified, 1.37x the copy's own best), "
    "at each DMA's full transfer size (eta interpolated upward between table points), and the resulting bandwidth is "
    "never taken below the fastest sustained aggregate copy rate measured (calibration hbm_copy_aggregate_rate): no "
    "measured kernel moved s-byte transfers faster than that.";
const char *const kArgumentAsWritten =
    "Counts one issued instruction per HIVM operation as the extractor writes it. The backend may fold casts and "
    "strength-reduce address arithmetic, so this is an estimate, not a lower bound: diagnostic, never in a limit.";
const char *const kArgumentIssueRate =
    "Huawei documents that an AI Core reads its instructions in sequence and decodes them in sequence, executing "
    "scalar instructions directly and dispatching the others to the per-pipe queues (Huawei support, Ascend "
    "'Pipeline' chapter, EDOC1100164852; hiascend Ascend C 'Control Units'): every instruction of a core passes one "
    "in-order decode stream. No public document gives that stream's width, so issue_per_cycle (1 by default) is "
    "argued, not theoretical: a core that decoded w instructions per cycle would lower this figure w-fold. The "
    "strict value leaves the issue rate out.";
const char *const kArgumentColdCache =
    "The HBM floor assumes every counted GM byte crosses HBM once. That holds when the L2 is cold at launch (a "
    "harness that flushes before each sample) and, by the L2's capacity, for the bytes beyond it; with a warm L2 "
    "(msprof's back-to-back launches) data that fits in the 192 MiB L2 may come from the L2 instead. Set the memory "
    "node's cache = \"cold\" when the measurement is known to be cold (then the floor is strict), cache = \"warm\" to "
    "leave it out.";

namespace {

using ClassTime = std::function<u::Seconds(double)>;

/// The rate of one work class, with its typed time formula.
struct ClassRate {
  ClassTime time;         // empty when the rate is unknown
  ClassTime strict_time;  // at the rate a strict value may use; empty: the work adds nothing to a strict value
  RateRecord record;
  std::string unit;  // the work's unit
  /// The rate may not enter a strict value itself (sustained or argued).
  [[nodiscard]] bool argued() const { return !strict_kind(record.kind); }
};

/// A class rate from a typed rate: `Work` at `R` must give a time
/// (time_at refuses anything else at compile time).
template <class Work, class R>
ClassRate typed_rate(const Rate<R> &r, const char *unit) {
  ClassRate out{nullptr, nullptr, r.record, unit};
  if (r.known()) {
    R rate = *r.value;
    out.time = [rate](double work) { return time_at(Work{work}, rate); };
  }
  if (std::optional<R> strict = r.strict()) {
    R rate = *strict;
    out.strict_time = [rate](double work) { return time_at(Work{work}, rate); };
  }
  return out;
}

ClassRate repeat_rate(const Rates &rates) { return typed_rate<u::Repeats>(rates.vector_repeats(), "repeat"); }
ClassRate flop_rate(const Rate<u::FlopPerSecond> &r) { return typed_rate<u::Flop>(r, "FLOP"); }
ClassRate byte_rate(const Rate<u::BytesPerSecond> &r) { return typed_rate<u::Bytes>(r, "B"); }

/// The issue rate is a parameter no public document fixes
/// (kArgumentIssueRate): its record is argued.
RateRecord issue_record(const TermOptions &options, const Rates &rates) {
  return {"instruction issue (per core)", options.issue_per_cycle * rates.clock.value(), "instruction/s",
          RateKind::Argued, "parameter issue_per_cycle x profile:clock.frequency",
          u::format_number(options.issue_per_cycle) +
              " instruction(s) per cycle: in-order decode (Huawei 'Pipeline', EDOC1100164852); width unpublished, argued",
          ""};
}

ClassRate instruction_rate(const TermOptions &options, const Rates &rates) {
  ClassRate out{nullptr, nullptr, issue_record(options, rates), "instruction"};
  IssueRate rate{options.issue_per_cycle};
  u::Hertz clock = rates.clock;
  out.time = [rate, clock](double instructions) { return issue_time(instructions, rate, clock); };
  return out;
}

/// Busy time of the busiest core of one type: the larger of
///   waves x (per-block work / instances)           (pigeonhole on slots)
///   (blocks x per-block work + dependent) / cores  (the mean core)
/// summed over work classes at their rates; strict (strict counts at the
/// rates a strict value may use), and with the work the user's facts add
/// and every rate (the value).
struct Busy {
  double waves_form = 0;
  double mean_form = 0;
  double strict_waves_form = 0;
  double strict_mean_form = 0;
  bool argued = false;  // some counted work is at a rate that may not enter a strict value
  json work = json::object();
  json rates = json::array();
  std::vector<NotCounted> missing;
  std::vector<RateRecord> records;
  [[nodiscard]] double seconds() const { return std::max(waves_form, mean_form); }
  [[nodiscard]] double strict_seconds() const { return std::max(strict_waves_form, strict_mean_form); }
  [[nodiscard]] bool counted() const { return !work.empty(); }
};

Busy busy_time(const std::map<std::string, Amount> &by_class, const std::function<ClassRate(const std::string &)> &rate_of,
               const Schedule &s, double instances, const std::string &what) {
  Busy busy;
  for (const auto &[cls, amount] : by_class) {
    const Amount given = amount.with_given();
    double grid = given.grid(s.blocks);
    if (grid <= 0 && given.uniform <= 0) continue;
    ClassRate rate = rate_of(cls);
    if (!rate.time) {
      busy.missing.push_back({what + " " + cls, "no rate: " + rate.record.reason});
      continue;
    }
    busy.waves_form += rate.time(s.waves * given.uniform / instances).value();
    busy.mean_form += rate.time(grid / (s.slots * instances)).value();
    if (rate.strict_time) {
      busy.strict_waves_form += rate.strict_time(s.waves * amount.uniform / instances).value();
      busy.strict_mean_form += rate.strict_time(amount.grid(s.blocks) / (s.slots * instances)).value();
    }
    busy.argued = busy.argued || rate.argued();
    json &entry = busy.work[cls];
    entry["per_block_uniform"] = amount.uniform;
    entry["grid_dependent"] = amount.dependent;
    entry["grid_total"] = amount.grid(s.blocks);
    if (amount.has_given()) {
      entry["given_per_block_uniform"] = given.uniform;
      entry["given_grid_total"] = grid;
    }
    entry["unit"] = rate.unit;
    busy.records.push_back(rate.record);
    json r = rate.record.to_json();
    r["class"] = cls;
    busy.rates.push_back(std::move(r));
  }
  return busy;
}

/// The assurance of a value above its strict value: argued when some rate
/// it used may not enter a strict value, else given (the user's facts).
Assurance lifted(double value, double strict, bool argued) {
  if (value <= strict) return Assurance::Strict;
  return argued ? Assurance::Argued : Assurance::Given;
}

/// The component's entry; moves the busy time's work and rates into it.
ComponentValue component_value(const std::string &core, const std::string &component, Busy &busy) {
  ComponentValue cv;
  cv.core = core;
  cv.component = component;
  cv.value = Time::known(busy.seconds());
  cv.strict_value = Time::known(std::min(busy.seconds(), busy.strict_seconds()));
  cv.assurance = lifted(busy.seconds(), busy.strict_seconds(), busy.argued);
  cv.work = std::move(busy.work);
  cv.work["waves_form_s"] = busy.waves_form;
  cv.work["mean_form_s"] = busy.mean_form;
  if (busy.seconds() > busy.strict_seconds()) cv.work["strict_s"] = busy.strict_seconds();
  cv.rate = std::move(busy.rates);
  return cv;
}

/// Appends one evidence entry per contributing op to `out`.
void add_evidence(json &out, const std::vector<OpRef> &top, const std::string &origin, const std::string &what) {
  for (const OpRef &ref : top) {
    json e = json::object();
    e["file"] = origin;
    e["line"] = ref.line;
    e["op"] = ref.op;
    e["per_block"] = ref.per_block;
    e["what"] = what;
    if (!ref.loc.empty()) e["source"] = ref.loc;
    out.push_back(std::move(e));
  }
}

void absorb(Term &term, const Busy &busy) {
  for (const RateRecord &r : busy.records) term.add_rate(r);
  for (const NotCounted &n : busy.missing) term.not_counted.push_back(n);
}

void note_missing(Term &term, const HivmView &view) {
  for (const Missing &m : view.missing) {
    std::string lines;
    for (int l : m.lines) lines += (lines.empty() ? "" : ", ") + std::to_string(l);
    term.not_counted.push_back({m.what + " of " + std::to_string(m.ops) + " op(s) (first: " + m.first_op + ", lines " +
                                    lines + ")",
                                m.reason});
  }
}

Term start(const std::string &name, const std::string &tier, const std::string &role) {
  Term t;
  t.name = name;
  t.tier = tier;
  t.role = role;
  return t;
}

Term unknown_blocks(Term t, const HivmView &view) {
  t.value = Time::unknown("block count unknown: " + view.blocks_reason);
  t.strict_value = t.value;
  return t;
}

//===----------------------------------------------------------------------===//
// DSL facts
//===----------------------------------------------------------------------===//

/// A sound (lower or exact) figure of a dsl_facts quantity; nullopt for an
/// unknown or an upper estimate (which must never feed a lower bound).
std::optional<double> lower_value(const json &q) {
  if (!q.is_object()) return std::nullopt;
  auto v = q.find("value");
  if (v == q.end() || !v->is_number()) return std::nullopt;
  auto b = q.find("bound");
  if (b != q.end() && b->is_string() && b->get<std::string>() == "upper") return std::nullopt;
  return v->get<double>();
}

std::optional<double> lower_min(const json &dist) {
  if (!dist.is_object()) return std::nullopt;
  auto v = dist.find("min");
  if (v == dist.end() || !v->is_number()) return std::nullopt;
  auto b = dist.find("bound");
  if (b != dist.end() && b->is_string() && b->get<std::string>() == "upper") return std::nullopt;
  return v->get<double>();
}

/// A dsl_facts quantity under the launch's given facts (its `given`
/// member, extract_ttir §3a), or the quantity itself when no fact changed it.
const json &given_of(const json &q) {
  if (q.is_object()) {
    auto g = q.find("given");
    if (g != q.end() && g->is_object()) return *g;
  }
  return q;
}

std::string why_not(const json &q) {
  if (!q.is_object()) return "missing";
  if (q.contains("bound") && q["bound"] == "upper") return "an upper estimate (" + q.value("reason", std::string()) + ")";
  return q.value("reason", std::string("unknown"));
}


}  // namespace

UniqueBytes UniqueBytes::from_dsl(const json &dsl, const std::string &origin) {
  UniqueBytes out;
  out.origin = origin;
  for (const char *direction : {"read", "written", "atomic"}) {
    const json &by_arg = json_at(dsl, {"bytes", direction, "by_arg"});
    if (!by_arg.is_array()) continue;
    const bool write = std::string(direction) != "read";
    for (const json &entry : by_arg) {
      const json &position = json_at(entry, {"arg"});
      if (!position.is_number_integer()) continue;
      const json &q = json_at(entry, {"unique_total"});
      Figure figure;
      figure.key = json_at(entry, {"arg_key"}).is_string() ? json_at(entry, {"arg_key"}).get<std::string>() : "";
      figure.strict = lower_value(q);
      figure.given = lower_value(given_of(q));
      if (!figure.given) figure.given = figure.strict;
      // An argument both written and updated atomically: the union is at
      // least the larger of the two.
      Figure &slot = out.by_arg[{position.get<int>(), write}];
      if (slot.key.empty()) slot.key = figure.key;
      auto larger = [](std::optional<double> a, std::optional<double> b) -> std::optional<double> {
        if (!a) return b;
        if (!b) return a;
        return std::max(*a, *b);
      };
      slot.strict = larger(slot.strict, figure.strict);
      slot.given = larger(slot.given, figure.given);
    }
  }
  return out;
}

namespace {

struct DslShape {
  Schedule schedule;
  std::string kernel;
};

DslShape dsl_shape(const json &dsl, const Rates &rates, const std::string &origin) {
  const std::string where = origin + ": perfbound.dsl_facts/1";
  DslShape shape;
  const json &launch = pb::sdk::require(dsl, "launch", where);
  double programs = pb::sdk::require_number(launch, "programs", where + ".launch");
  std::string type = json_at(dsl, {"cores", "type"}).is_string() ? json_at(dsl, {"cores", "type"}).get<std::string>() : "aiv";
  bool mix = type != "aiv";
  shape.schedule = make_schedule(programs, mix, true, mix ? rates.aiv_per_aic : 1.0, rates);
  shape.kernel = json_at(dsl, {"kernel", "name"}).is_string() ? json_at(dsl, {"kernel", "name"}).get<std::string>() : "";
  return shape;
}

/// One resource of the DSL tier: work per program (sound minimum) and over
/// the launch, at a per-block rate.
struct DslResource {
  std::string core, component, cls;
  double per_program_min = 0;
  double total = 0;
  ClassRate rate;
  double per_block_parallel = 1;  // cores of the block sharing the work (2 AIVs in a mix block)
  // Under the user's facts (launch trips/data); equal to the strict figures
  // when none was given.
  double given_per_program_min = 0;
  double given_total = 0;
};

void dsl_flop_resources(const json &dsl, const Rates &rates, const Schedule &s, std::vector<DslResource> &out,
                        std::vector<NotCounted> &missing) {
  auto add_group = [&](const json &group, bool cube, const std::string &label) {
    if (!group.is_object()) return;
    for (const auto &[key, entry] : group.items()) {
      const json &total_q = json_at(entry, {"total"}), &per_program_q = json_at(entry, {"per_program"});
      std::optional<double> total = lower_value(total_q);
      std::optional<double> per_program = lower_min(per_program_q);
      std::optional<double> given_total = lower_value(given_of(total_q));
      std::optional<double> given_per_program = lower_min(given_of(per_program_q));
      if (!given_total || !given_per_program) {
        missing.push_back({label + " " + key, "not a sound figure: " + why_not(total_q)});
        continue;
      }
      // Sound only under the user's facts: strict 0, counted as given.
      if (!total || !per_program) total = per_program = 0.0;
      DslResource r;
      r.core = cube ? "aic" : "aiv";
      r.component = cube ? "cube" : "vector";
      r.cls = label == "vector" ? key : label + ":" + key;
      r.per_program_min = *per_program;
      r.total = *total;
      r.given_per_program_min = *given_per_program;
      r.given_total = *given_total;
      r.rate = flop_rate(cube ? rates.cube(key) : rates.vector_flop(key));
      r.per_block_parallel = cube ? 1.0 : s.aiv_instances;
      out.push_back(std::move(r));
    }
  };
  add_group(json_at(dsl, {"flop", "cube"}), true, "cube");
  add_group(json_at(dsl, {"flop", "vector"}), false, "vector");
  add_group(json_at(dsl, {"flop", "transcendental"}), false, "transcendental");
  add_group(json_at(dsl, {"flop", "reduction"}), false, "reduction");
  add_group(json_at(dsl, {"flop", "scan"}), false, "scan");
}

/// Sum of path rates (per block: every core of the block moving at once).
/// A path written "a|b|c" is one pipe that moves data over one of several
/// paths at a time: the fastest of those the profile has. A path written
/// "?a" counts only where the profile has it (an L1 -> GM path, say).
Rate<u::BytesPerSecond> block_paths(const Rates &rates, const std::vector<std::pair<std::string, double>> &paths,
                                    const std::string &name) {
  double sum = 0;
  std::vector<std::string> sources, argued_paths;
  RateKind kind = RateKind::Theoretical;
  for (const auto &[spec, count] : paths) {
    const bool optional = !spec.empty() && spec.front() == '?';
    std::vector<std::string> alternatives;
    std::string rest = optional ? spec.substr(1) : spec;
    for (size_t bar = rest.find('|'); bar != std::string::npos; bar = rest.find('|')) {
      alternatives.push_back(rest.substr(0, bar));
      rest.erase(0, bar + 1);
    }
    alternatives.push_back(rest);
    std::optional<Rate<u::BytesPerSecond>> fastest;
    for (size_t idx = 0; idx < alternatives.size(); ++idx) {
      const std::string &path = alternatives[idx];
      // The first alternative is the pipe's own path: it must be known.
      // Others, and an optional path, count only where the profile has them.
      if ((optional || idx > 0) && !rates.has_path(path)) continue;
      Rate<u::BytesPerSecond> r = rates.path(path);
      if (!r.known()) {
        RateRecord rec = r.record;
        rec.name = name;
        rec.reason = "path " + path + " unknown: " + r.record.reason;
        return Rate<u::BytesPerSecond>{std::nullopt, rec, std::nullopt};
      }
      if (!fastest || r.value->value() > fastest->value->value()) fastest = r;
    }
    if (!fastest) continue;
    sum += count * fastest->value->value();
    sources.push_back((count != 1 ? u::format_number(count) + " x " : std::string()) + fastest->record.source);
    // The block's rate may enter a strict value only if every path's may.
    if (!strict_kind(fastest->record.kind)) {
      kind = fastest->record.kind;
      argued_paths.push_back(fastest->record.source + " (" + rate_kind_name(fastest->record.kind) + ")");
    }
  }
  std::string joined;
  for (const std::string &src : sources) joined += (joined.empty() ? "" : " + ") + src;
  std::string note = "per block: every core of the block moving at once";
  if (!argued_paths.empty()) {
    note += "; not a strict rate: ";
    for (size_t idx = 0; idx < argued_paths.size(); ++idx) note += (idx ? ", " : "") + argued_paths[idx];
  }
  RateRecord rec{name, sum, "B/s", kind, joined, note, ""};
  return Rate<u::BytesPerSecond>{u::BytesPerSecond{sum}, rec, std::nullopt};
}

/// The GM paths of one block (docs/model.md §3.1): an AIV reads GM -> UB and
/// writes UB -> GM; an AIC reads over its MTE2 (GM -> L1, or straight into
/// L0A/L0B: one pipe, the fastest of them) and writes through the fixpipe
/// (L0C -> GM) and its MTE3 (L1 -> GM, where the profile has it); a mix
/// block has one AIC and `aiv_instances` AIVs moving at once.
const char *const kAicReadPaths = "gm_to_l1|gm_to_l0a|gm_to_l0b";

ClassRate read_rate(const Rates &rates, const Schedule &s) { return byte_rate(block_gm_rate(rates, s, false)); }
ClassRate write_rate(const Rates &rates, const Schedule &s) { return byte_rate(block_gm_rate(rates, s, true)); }

}  // namespace

Rate<u::BytesPerSecond> block_gm_rate(const Rates &rates, const Schedule &s, bool write) {
  if (!write) {
    if (s.mix) return block_paths(rates, {{kAicReadPaths, 1}, {"gm_to_ub", s.aiv_instances}}, "GM read paths (block)");
    if (s.slot_kind == "aic") return block_paths(rates, {{kAicReadPaths, 1}}, "GM read path (AIC block)");
    return block_paths(rates, {{"gm_to_ub", 1}}, "GM read path (block)");
  }
  if (s.mix)
    return block_paths(rates, {{"l0c_to_gm", 1}, {"?l1_to_gm", 1}, {"ub_to_gm", s.aiv_instances}}, "GM write paths (block)");
  if (s.slot_kind == "aic") return block_paths(rates, {{"l0c_to_gm", 1}, {"?l1_to_gm", 1}}, "GM write paths (AIC block)");
  return block_paths(rates, {{"ub_to_gm", 1}}, "GM write path (block)");
}

namespace {

/// The condition the DSL tier's unique bytes rest on (dsl_facts bytes.assumes: pointer arguments
/// without an address are taken not to overlap), carried into the term's evidence.
void note_dsl_assumption(Term &t, const json &dsl) {
  const json &assumes = json_at(dsl, {"bytes", "assumes"});
  if (assumes.is_string()) t.evidence.push_back({{"assumes", assumes}});
}

void dsl_byte_resources(const json &dsl, const Rates &rates, const Schedule &s, std::vector<DslResource> &out,
                        std::vector<NotCounted> &missing) {
  for (const char *direction : {"read", "written"}) {
    const json &dir = json_at(dsl, {"bytes", direction});
    const json &sum_q = json_at(dir, {"unique_per_program_sum"});
    std::optional<double> total = lower_value(sum_q);
    std::optional<double> given_total = lower_value(given_of(sum_q));
    double per_program = 0, given_per_program = 0;
    if (dir.contains("by_arg") && dir["by_arg"].is_array())
      for (const json &arg : dir["by_arg"]) {
        const json &q = json_at(arg, {"unique_per_program"});
        if (std::optional<double> m = lower_min(q)) per_program += *m;
        if (std::optional<double> m = lower_min(given_of(q))) given_per_program += *m;
      }
    if (!given_total) {
      missing.push_back({std::string("bytes ") + direction, "not a sound figure: " + why_not(sum_q)});
      continue;
    }
    if (!total) {
      total = 0.0;  // sound only under the user's facts
      per_program = 0;
    }
    if (*given_total <= 0) continue;
    bool read = std::string(direction) == "read";
    DslResource r;
    r.core = s.mix ? "" : s.slot_kind;
    r.component = read ? "mte2" : "mte3";
    r.cls = read ? "gm_read" : "gm_write";
    r.per_program_min = per_program;
    r.total = *total;
    r.given_per_program_min = std::max(per_program, given_per_program);
    r.given_total = std::max(*total, *given_total);
    r.rate = read ? read_rate(rates, s) : write_rate(rates, s);
    out.push_back(std::move(r));
  }
}

/// waves x per-program / rate vs total / (slots x rate): the resource's
/// busy time on the busiest block slot: the value (under the user's facts,
/// at every rate) or the strict figure (without the facts, at the rate a
/// strict value may use; 0 when there is none).
std::pair<double, double> dsl_forms(const DslResource &r, const Schedule &s, bool strict) {
  double per_core_rate_scale = r.per_block_parallel;  // work split across the block's cores
  double per_program = strict ? r.per_program_min : r.given_per_program_min;
  double total = strict ? r.total : r.given_total;
  const ClassTime &time = strict ? r.rate.strict_time : r.rate.time;
  if (!time) return {0.0, 0.0};
  double waves_form = time(s.waves * per_program / per_core_rate_scale).value();
  double mean_form = time(total / (s.slots * per_core_rate_scale)).value();
  return {waves_form, mean_form};
}

}  // namespace

json Schedule::to_json() const {
  return json{{"blocks", blocks},       {"slots", slots},         {"slot_kind", slot_kind},   {"waves", waves},
              {"tail_wave_blocks", tail}, {"occupancy", occupancy}, {"mix", mix},
              {"aiv_instances_per_block", aiv_instances}};
}

Schedule make_schedule(double blocks, bool has_aic, bool has_aiv, double aiv_instances, const Rates &rates) {
  Schedule s;
  s.blocks = blocks;
  s.mix = has_aic && has_aiv;
  s.slots = has_aic ? rates.cores_aic : rates.cores_aiv;
  s.slot_kind = has_aic ? "aic" : "aiv";
  s.aiv_instances = s.mix ? aiv_instances : 1.0;
  s.waves = blocks > 0 ? waves(blocks, s.slots) : 0;
  s.tail = blocks > 0 ? blocks - (s.waves - 1) * s.slots : 0;
  s.occupancy = s.waves > 0 ? blocks / (s.waves * s.slots) : 0;
  return s;
}

Schedule hivm_schedule(const HivmView &view, const Rates &rates) {
  return make_schedule(*view.blocks, view.aic.present, view.aiv.present, view.aiv.instances, rates);
}

//===----------------------------------------------------------------------===//
// grid_floor
//===----------------------------------------------------------------------===//

namespace {

/// Fills a grid-floor term from resources (shared by both tiers).
void grid_from_resources(Term &t, const std::vector<DslResource> &resources, const Schedule &s, double load_balance_info) {
  // Group classes into the binding resources: cube FLOP, vector FLOP, read
  // bytes, write bytes. Each resource's time is the sum over its classes.
  struct Group {
    double waves_form = 0, mean_form = 0, total = 0;
    double strict_seconds_sum_waves = 0, strict_seconds_sum_mean = 0;
    bool argued = false;
    std::string core, component, unit;
    json classes = json::object();
  };
  std::map<std::string, Group> groups;
  for (const DslResource &r : resources) {
    if (!r.rate.time) {
      t.not_counted.push_back({r.cls, "no rate: " + r.rate.record.reason});
      continue;
    }
    auto [waves_form, mean_form] = dsl_forms(r, s, false);
    auto [strict_waves, strict_mean] = dsl_forms(r, s, true);
    std::string key = r.component == "cube" ? "cube FLOP" : r.component == "vector" ? "vector FLOP"
                      : r.component == "mte2"  ? "GM read bytes"
                                               : "GM write bytes";
    Group &g = groups[key];
    g.waves_form += waves_form;
    g.mean_form += mean_form;
    g.strict_seconds_sum_waves += strict_waves;
    g.strict_seconds_sum_mean += strict_mean;
    g.argued = g.argued || r.rate.argued();
    g.total += r.given_total;
    g.core = r.core;
    g.component = r.component;
    g.unit = r.rate.unit;
    g.classes[r.cls] = {{"total", r.total}, {"per_block_min", r.per_program_min}, {"rate", r.rate.record.to_json()}};
    t.add_rate(r.rate.record);
  }
  for (const auto &[key, g] : groups) {
    double seconds = std::max(g.waves_form, g.mean_form);
    // The formula's pieces: occupancy from the waves, i_binding the
    // weighted harmonic mean of the class rates per block slot, and the
    // load balance for which total / (n x occ x lb x I) equals the sound
    // value (1 when every block does the same work and the waves bind).
    double i_binding = g.total / (g.mean_form * s.slots);
    double load_balance = g.mean_form / (s.occupancy * seconds);
    double formula = g.unit == "FLOP"
                         ? grid_floor(u::Flop{g.total}, 1.0, s.slots, s.occupancy, load_balance, u::FlopPerSecond{i_binding}).value()
                     : g.unit == "B"
                         ? grid_floor(u::Bytes{g.total}, 1.0, s.slots, s.occupancy, load_balance, u::BytesPerSecond{i_binding}).value()
                         : seconds;
    double strict_seconds = std::max(g.strict_seconds_sum_waves, g.strict_seconds_sum_mean);
    ComponentValue cv;
    cv.core = g.core;
    cv.component = g.component;
    cv.value = Time::known(seconds);
    cv.strict_value = Time::known(std::min(seconds, strict_seconds));
    cv.assurance = lifted(seconds, strict_seconds, g.argued);
    cv.work = {{"resource", key},
               {"total_work", g.total},
               {"unit", g.unit},
               {"redundancy", 1.0},
               {"n_cores", s.slots},
               {"occupancy", s.occupancy},
               {"load_balance", load_balance},
               {"i_binding", i_binding},
               {"i_binding_unit", g.unit + "/s per block slot (weighted harmonic mean over classes)"},
               {"classes", g.classes},
               {"waves_form_s", g.waves_form},
               {"mean_form_s", g.mean_form},
               {"formula_s", formula}};
    if (load_balance_info >= 0) cv.work["load_balance_round_robin"] = load_balance_info;
    t.per_component.push_back(std::move(cv));
  }
  t.schedule = s.to_json();
  t.formula = "T_grid = total_work x redundancy / (n_cores x occupancy x load_balance x i_binding), per resource; "
              "binding = the largest (bytes with B/s, FLOP with FLOP/s)";
  t.settle();
}

}  // namespace

Term grid_floor_dsl(const json &dsl, const Rates &rates, const TermOptions &, const std::string &origin) {
  Term t = start("grid_floor", "dsl", "floor");
  DslShape shape = dsl_shape(dsl, rates, origin);
  std::vector<DslResource> resources;
  dsl_flop_resources(dsl, rates, shape.schedule, resources, t.not_counted);
  dsl_byte_resources(dsl, rates, shape.schedule, resources, t.not_counted);
  note_dsl_assumption(t, dsl);
  double lb = -1;
  if (std::optional<double> v = lower_value(json_at(dsl, {"schedule", "load_balance", "flop"}))) lb = *v;
  grid_from_resources(t, resources, shape.schedule, lb);
  return t;
}

Term grid_floor_hivm(const HivmView &view, const Rates &rates, const TermOptions &) {
  Term t = start("grid_floor", "hivm", "floor");
  if (!view.blocks) return unknown_blocks(t, view);
  Schedule s = hivm_schedule(view, rates);
  std::vector<DslResource> resources;
  resources.reserve(8);
  auto add = [&](const std::string &core, const std::string &component, const std::string &cls, const Amount &a,
                 ClassRate rate, double parallel) {
    const Amount given = a.with_given();
    if (given.grid(s.blocks) <= 0) return;
    DslResource r;
    r.core = core;
    r.component = component;
    r.cls = cls;
    r.per_program_min = a.uniform;
    r.total = a.grid(s.blocks);
    r.given_per_program_min = given.uniform;
    r.given_total = given.grid(s.blocks);
    r.rate = std::move(rate);
    r.per_block_parallel = parallel;
    resources.push_back(std::move(r));
  };
  if (const ComponentWork *cube = view.find("aic", "cube"))
    for (const auto &[dtype, a] : cube->by_class) add("aic", "cube", "cube:" + dtype, a, flop_rate(rates.cube(dtype)), 1.0);
  for (const auto &[dtype, a] : view.vector_flop)
    add("aiv", "vector", dtype, a, flop_rate(rates.vector_flop(dtype)), s.aiv_instances);
  Amount read, write;
  for (const Transfer &tr : view.transfers) (tr.write ? write : read).add(tr.bytes);
  add(s.mix ? "" : s.slot_kind, "mte2", "gm_read", read, read_rate(rates, s), 1.0);
  add(s.mix ? "" : s.slot_kind, "mte3", "gm_write", write, write_rate(rates, s), 1.0);
  grid_from_resources(t, resources, s, -1);
  note_missing(t, view);
  return t;
}

//===----------------------------------------------------------------------===//
// component_floor
//===----------------------------------------------------------------------===//

Term component_floor_dsl(const json &dsl, const Rates &rates, const TermOptions &, const std::string &origin) {
  Term t = start("component_floor", "dsl", "floor");
  DslShape shape = dsl_shape(dsl, rates, origin);
  const Schedule &s = shape.schedule;
  std::vector<DslResource> resources;
  dsl_flop_resources(dsl, rates, s, resources, t.not_counted);
  dsl_byte_resources(dsl, rates, s, resources, t.not_counted);
  note_dsl_assumption(t, dsl);
  // One entry per (core, component), classes summed at their own rates
  // (the weighted harmonic mean of the per-class rates).
  std::map<std::string, ComponentValue> entries;
  std::map<std::string, std::pair<double, double>> forms, strict_forms;
  std::set<std::string> argued_keys;
  for (const DslResource &r : resources) {
    if (!r.rate.time) {
      t.not_counted.push_back({r.cls, "no rate: " + r.rate.record.reason});
      continue;
    }
    auto [waves_form, mean_form] = dsl_forms(r, s, false);
    auto [strict_waves, strict_mean] = dsl_forms(r, s, true);
    std::string key = r.core + "." + r.component;
    if (r.rate.argued()) argued_keys.insert(key);
    ComponentValue &cv = entries[key];
    cv.core = r.core;
    cv.component = r.component;
    forms[key].first += waves_form;
    forms[key].second += mean_form;
    strict_forms[key].first += strict_waves;
    strict_forms[key].second += strict_mean;
    cv.work[r.cls] = {{"per_block_min", r.per_program_min}, {"grid_total", r.total}, {"unit", r.rate.unit},
                      {"cores_sharing_a_block", r.per_block_parallel}};
    if (cv.rate.is_null()) cv.rate = json::array();
    cv.rate.push_back(r.rate.record.to_json());
    t.add_rate(r.rate.record);
  }
  for (auto &[key, cv] : entries) {
    double seconds = std::max(forms[key].first, forms[key].second);
    double strict_seconds = std::max(strict_forms[key].first, strict_forms[key].second);
    cv.value = Time::known(seconds);
    cv.strict_value = Time::known(std::min(seconds, strict_seconds));
    cv.assurance = lifted(seconds, strict_seconds, argued_keys.count(key) > 0);
    cv.work["waves_form_s"] = forms[key].first;
    cv.work["mean_form_s"] = forms[key].second;
    t.per_component.push_back(cv);
  }
  t.schedule = s.to_json();
  t.formula = "T_core = max_c O_c / I_c on the busiest core: max(waves x O_c,block, O_c,grid / cores) / I_c, "
              "I_c the weighted harmonic mean of the class rates";
  t.settle();
  return t;
}

Term component_floor_hivm(const HivmView &view, const Rates &rates, const TermOptions &options) {
  Term t = start("component_floor", "hivm", "floor");
  if (!view.blocks) return unknown_blocks(t, view);
  Schedule s = hivm_schedule(view, rates);
  if (view.components.count("aic.scalar") + view.components.count("aiv.scalar") > 0 && options.issue_per_cycle > 0)
    t.add_rate(issue_record(options, rates), "argued", kArgumentIssueRate);
  for (const auto &[key, cw] : view.components) {
    const std::string &component = cw.component;
    std::function<ClassRate(const std::string &)> rate_of;
    if (component == "vector") {
      rate_of = [&](const std::string &cls) {
        if (cls.rfind("bytes:", 0) == 0) return byte_rate(rates.path(cls.substr(6)));
        return repeat_rate(rates);
      };
    } else if (component == "cube") {
      rate_of = [&](const std::string &dtype) { return flop_rate(rates.cube(dtype)); };
    } else if (component == "scalar") {
      rate_of = [&](const std::string &) { return instruction_rate(options, rates); };
    } else {
      rate_of = [&](const std::string &path) { return byte_rate(rates.path(path)); };
    }
    Busy busy = busy_time(cw.by_class, rate_of, s, s.instances(cw.core), cw.core + "." + component);
    absorb(t, busy);
    if (!busy.counted()) continue;
    ComponentValue cv = component_value(cw.core, component, busy);
    if (component == "scalar")
      cv.work["counted"] = "instructions that must exist: one per scalar memory access and per HIVM scalar op";
    t.per_component.push_back(std::move(cv));
    add_evidence(t.evidence, cw.top, view.origin, key);
  }
  note_missing(t, view);
  t.schedule = s.to_json();
  t.formula = "T_core = max over (core, component) of the busiest core's busy time: max(waves x O_block / instances, "
              "O_grid / cores) / I_c, I_c the weighted harmonic mean of the per-class rates";
  t.settle();
  return t;
}

//===----------------------------------------------------------------------===//
// memory
//===----------------------------------------------------------------------===//

namespace {

struct MemoryRates {
  std::optional<double> chip;         // B/s, the HBM figure used
  std::optional<double> chip_strict;  // B/s, the HBM figure a strict value may use
  Rate<u::BytesPerSecond> read, write;  // per block: every core of a block moving at once
  double active_blocks = 0;
  RateRecord chip_record;
  /// Read + write paths of a block (the value, or the strict figure; nullopt
  /// when a direction is unknown, or, for the strict figure, not strict).
  [[nodiscard]] std::optional<double> per_block(bool strict) const {
    std::optional<u::BytesPerSecond> r = strict ? read.strict() : read.value, w = strict ? write.strict() : write.value;
    if (!r || !w) return std::nullopt;
    return r->value() + w->value();
  }
};

MemoryRates memory_rates(const Rates &rates, const Schedule &s) {
  MemoryRates m;
  m.chip_record = rates.hbm().record;
  if (rates.hbm().known()) m.chip = rates.hbm().value->value();
  if (std::optional<u::BytesPerSecond> strict = rates.hbm().strict()) m.chip_strict = strict->value();
  m.read = block_gm_rate(rates, s, false);
  m.write = block_gm_rate(rates, s, true);
  m.active_blocks = std::min(s.blocks, s.slots);
  return m;
}

/// The memory floors that hold whatever the L2 holds at launch.
struct MemoryFloors {
  // Per direction, bytes / (active blocks x the direction's per-block GM
  // paths): every byte crosses its core's path, from the L2 or from HBM.
  std::optional<double> path_s;
  std::optional<double> forced_s;  // bytes the L2 cannot hold / HBM peak
  double forced_bytes = 0;
  [[nodiscard]] double seconds() const { return std::max(path_s.value_or(0), forced_s.value_or(0)); }
};

/// Bytes that must cross HBM however warm the L2 is: read data beyond what
/// the L2 can hold at launch, written data beyond what it can hold at the
/// end (0 when the L2 capacity is unknown).
double forced_hbm_bytes(double read_unique, double write_unique, const Rates &rates) {
  if (!rates.l2().known()) return 0;
  double l2 = rates.l2().value->value();
  return std::max(0.0, read_unique - l2) + std::max(0.0, write_unique - l2);
}

/// The floors of `read` and `written` bytes: the path floor is the larger of
/// the two directions' (reads cross only the read paths, writes only the
/// write paths; at least their combined figure, bytes / (active x (read +
/// write))). `strict` takes only the rates a strict value may use: a
/// direction without one (UB -> GM is argued) adds nothing.
MemoryFloors memory_floors(double read, double written, double forced_bytes, const MemoryRates &m, bool strict) {
  MemoryFloors f;
  const std::pair<double, const Rate<u::BytesPerSecond> *> directions[] = {{read, &m.read}, {written, &m.write}};
  if (m.active_blocks > 0)
    for (const auto &[bytes, rate] : directions) {
      std::optional<u::BytesPerSecond> r = strict ? rate->strict() : rate->value;
      if (!r || bytes <= 0) continue;
      f.path_s = std::max(f.path_s.value_or(0), bytes / (m.active_blocks * r->value()));
    }
  f.forced_bytes = forced_bytes;
  std::optional<double> chip = strict ? m.chip_strict : m.chip;
  if (chip && forced_bytes > 0) f.forced_s = forced_bytes / *chip;
  return f;
}

/// What lifts the floors under the user's facts at every rate (`value`)
/// above the strict ones: an argued rate when the same bytes at strict rates
/// (`given_strict`) give less, else the facts.
Assurance floor_assurance(const MemoryFloors &given_strict, const MemoryFloors &value) {
  return value.seconds() > given_strict.seconds() ? Assurance::Argued : Assurance::Given;
}

/// The cache condition's effect on a memory component: the cold-cache HBM
/// floor is argued by default, strict when the measurement is known cold,
/// left out when it is known warm. `strict_floors` hold without the user's
/// facts at strict rates; `floors` with the facts at every rate (their
/// excess is `floors_assurance`: given, or argued when an argued rate
/// entered). `cold_seconds` is the cold floor under the facts,
/// `cold_strict_seconds` without them at strict rates (nullopt: none): a
/// strict value never rests on a fact or an argued figure.
/// `cold_assurance` is Argued when the cold floor itself rests on an argued
/// figure (the packet efficiency, an argued HBM or path figure), else
/// Strict.
void apply_cache_condition(Term &t, ComponentValue &cv, const TermOptions &options, double cold_seconds,
                           std::optional<double> cold_strict_seconds, const MemoryFloors &strict_floors,
                           const MemoryFloors &floors, Assurance floors_assurance, Assurance cold_assurance,
                           const RateRecord &hbm_record) {
  const double strict = strict_floors.seconds();
  const double warm = std::max(strict, floors.seconds());
  cv.strict_value = Time::known(strict);
  cv.work["warm_l2_floor_s"] = warm;
  cv.work["warm_l2_floor_strict_s"] = strict;
  cv.work["cold_hbm_floor_s"] = cold_seconds;
  cv.work["forced_hbm_bytes"] = floors.forced_bytes;
  cv.work["cache"] = options.cache;
  if (options.cache == "warm") {
    cv.value = Time::known(warm);
    cv.assurance = warm > strict ? floors_assurance : Assurance::Strict;
    cv.work["cache_condition"] = "warm L2 (parameter cache = warm): only the bytes the L2 cannot hold are HBM traffic";
    t.not_counted.push_back({"cold-cache HBM floor", "the memory node's cache = warm: data that fits in the L2 may be "
                                                     "served from it at a rate the profile does not bound"});
    return;
  }
  cv.value = Time::known(std::max(warm, cold_seconds));
  if (options.cache == "cold") {
    double strict_value = strict;
    if (cold_assurance == Assurance::Strict && cold_strict_seconds) strict_value = std::max(strict, *cold_strict_seconds);
    cv.strict_value = Time::known(strict_value);
    Assurance a = Assurance::Strict;
    if (warm > strict_value) a = weaker(a, floors_assurance);
    if (cold_seconds > strict_value) a = weaker(a, cold_assurance == Assurance::Strict ? Assurance::Given : cold_assurance);
    cv.assurance = a;
    cv.work["cache_condition"] = "cold L2 (parameter cache = cold): every counted byte crosses HBM";
    return;
  }
  Assurance a = Assurance::Strict;
  if (warm > strict) a = weaker(a, floors_assurance);
  if (cold_seconds > strict) a = weaker(a, weaker(cold_assurance, Assurance::Argued));
  cv.assurance = a;
  cv.work["cache_condition"] = "not stated (parameter cache = unknown): the cold-cache HBM floor is argued";
  if (cold_seconds > warm) t.add_rate(hbm_record, "argued", kArgumentColdCache);
}

}  // namespace

Term memory_dsl(const json &dsl, const Rates &rates, const TermOptions &options, const std::string &origin) {
  Term t = start("memory", "dsl", "floor");
  DslShape shape = dsl_shape(dsl, rates, origin);
  const Schedule &s = shape.schedule;
  const json &unique = json_at(dsl, {"bytes", "unique_total"});
  std::optional<double> bytes = lower_value(given_of(unique));
  const double strict_bytes = lower_value(unique).value_or(0);
  t.schedule = s.to_json();
  note_dsl_assumption(t, dsl);
  t.formula = "T_mem = max(unique GM bytes of each direction / (active blocks x its per-block path ceilings), bytes "
              "beyond the L2 / HBM peak) (strict, any cache state); cold L2: unique GM bytes / min(active blocks x "
              "per-block paths, HBM peak) (argued unless cache = cold)";
  if (!bytes) {
    t.value = Time::unknown("unique GM bytes are not a sound figure: " + why_not(unique));
    t.strict_value = t.value;
    return t;
  }
  MemoryRates m = memory_rates(rates, s);
  if (!m.chip) {
    t.value = Time::unknown("no HBM bandwidth: " + m.chip_record.reason);
    t.strict_value = t.value;
    return t;
  }
  // The cold floor's bandwidth: min(active x per-block paths, HBM); strict
  // only at strict figures (a path without one may be as fast as HBM).
  std::optional<double> block = m.per_block(false), block_strict = m.per_block(true);
  double bw = block ? occupancy_bandwidth(m.active_blocks, u::BytesPerSecond{*block}, u::BytesPerSecond{*m.chip}, 1.0).value()
                    : *m.chip;
  std::optional<double> bw_strict;
  if (m.chip_strict)
    bw_strict = block_strict ? std::min(m.active_blocks * *block_strict, *m.chip_strict) : *m.chip_strict;
  const json &read_q = json_at(dsl, {"bytes", "read", "unique_total"});
  const json &write_q = json_at(dsl, {"bytes", "written", "unique_total"});
  double read_unique = lower_value(read_q).value_or(0);
  double write_unique = lower_value(write_q).value_or(0);
  double read_given = std::max(read_unique, lower_value(given_of(read_q)).value_or(0));
  double write_given = std::max(write_unique, lower_value(given_of(write_q)).value_or(0));
  MemoryFloors strict_floors = memory_floors(read_unique, write_unique, forced_hbm_bytes(read_unique, write_unique, rates), m, true);
  MemoryFloors floors = memory_floors(read_given, write_given, forced_hbm_bytes(read_given, write_given, rates), m, false);
  MemoryFloors given_strict = memory_floors(read_given, write_given, forced_hbm_bytes(read_given, write_given, rates), m, true);
  ComponentValue cv;
  cv.component = "hbm";
  cv.work = {{"bytes", *bytes},
             {"bytes_exact", unique.value("exact", false)},
             {"read_unique", read_unique},
             {"written_unique", write_unique},
             {"active_blocks", m.active_blocks},
             {"bandwidth", bw},
             {"packet_efficiency", "not applied on the DSL tier: transfer sizes are the compiler's choice"}};
  std::optional<double> cold_strict;
  if (bw_strict) cold_strict = memory_time(u::Bytes{strict_bytes}, u::BytesPerSecond{*bw_strict}).value();
  apply_cache_condition(t, cv, options, memory_time(u::Bytes{*bytes}, u::BytesPerSecond{bw}).value(), cold_strict,
                        strict_floors, floors, floor_assurance(given_strict, floors), bw_strict ? Assurance::Strict : Assurance::Argued,
                        m.chip_record);
  t.add_rate(m.chip_record);
  if (m.read.known()) t.add_rate(m.read.record);
  if (m.write.known()) t.add_rate(m.write.record);
  if (rates.l2().known()) t.add_rate(rates.l2().record);
  t.per_component.push_back(cv);
  t.settle();
  return t;
}

Term memory_hivm(const HivmView &view, const Rates &rates, const TermOptions &options) {
  Term t = start("memory", "hivm", "floor");
  if (!view.blocks) return unknown_blocks(t, view);
  Schedule s = hivm_schedule(view, rates);
  t.schedule = s.to_json();
  t.formula = "T_mem = DMA bytes to kernel arguments / (active blocks x per-block GM path ceilings) (strict, any "
              "cache state); cold L2: sum over arguments and transfer sizes s of bytes_s / min(active x per-block "
              "paths, max(eta(s) x chip peak, fastest sustained copy)), each argument's bytes at most its unique "
              "bytes (DSL tier), placed on the fastest transfer sizes (argued)";
  MemoryRates m = memory_rates(rates, s);
  if (!m.chip) {
    t.value = Time::unknown("no HBM bandwidth: " + m.chip_record.reason);
    t.strict_value = t.value;
    return t;
  }
  std::optional<double> block = m.per_block(false), block_strict = m.per_block(true);
  double base = block ? std::min(m.active_blocks * *block, *m.chip) : *m.chip;
  // At strict figures only (a path without one may be as fast as HBM).
  std::optional<double> base_strict;
  if (m.chip_strict) base_strict = block_strict ? std::min(m.active_blocks * *block_strict, *m.chip_strict) : *m.chip_strict;
  bool use_eta = options.packet_efficiency == "transfer" && rates.packet_efficiency().has_value();
  // The fastest sustained aggregate copy rate: eta never takes the
  // bandwidth below it (kArgumentPacketEfficiency).
  const Rate<u::BytesPerSecond> &copy = rates.copy_aggregate();
  double copy_floor = copy.known() ? copy.value->value() : 0.0;
  auto eta_of = [&](double size) { return use_eta ? rates.packet_efficiency()->upper(size) : 1.0; };
  auto bandwidth = [&](double size) { return std::min(base, std::max(eta_of(size) * *m.chip, copy_floor)); };
  auto bandwidth_strict = [&](double size) {
    return std::min(*base_strict, std::max(eta_of(size) * *m.chip_strict, copy_floor));
  };

  // DMA bytes per kernel argument and direction, by transfer size.
  struct Traffic {
    std::map<double, double> strict, given;  // transfer size -> grid bytes
    double strict_total = 0, given_total = 0;
  };
  std::map<std::pair<int, bool>, Traffic> by_arg;
  double read_bytes = 0, write_bytes = 0, strict_bytes = 0, strict_read = 0;
  std::map<double, double> by_size;  // transfer size -> grid bytes (under the user's facts)
  std::map<std::string, double> left_out;  // GM buffer kind -> grid bytes not counted
  for (const Transfer &tr : view.transfers) {
    double grid = tr.bytes.with_given().grid(s.blocks);
    // Only kernel arguments are HBM traffic for sure: a workspace (GM
    // scratch between the cube and vector halves) is small and reused, so
    // it may be served by the L2 at a rate no profile gives.
    if (tr.gm_buffer != "arg") {
      left_out[tr.gm_buffer] += grid;
      continue;
    }
    double strict_grid = tr.bytes.grid(s.blocks);
    (tr.write ? write_bytes : read_bytes) += grid;
    strict_bytes += strict_grid;
    if (!tr.write) strict_read += strict_grid;
    by_size[tr.transfer_bytes] += grid;
    Traffic &traffic = by_arg[{tr.arg, tr.write}];
    traffic.strict[tr.transfer_bytes] += strict_grid;
    traffic.given[tr.transfer_bytes] += grid;
    traffic.strict_total += strict_grid;
    traffic.given_total += grid;
  }
  // The cold-cache floor: a line read twice is an L2 hit the second time,
  // so an argument's DMA bytes count at most as its unique bytes, which the
  // DSL tier proves; they are placed on the argument's fastest transfer
  // sizes first (the re-reads might be the slow ones). Without a unique
  // figure an argument's DMA bytes may be all re-reads: none count.
  bool eta_lowered = false;
  auto cold_of = [&](const std::map<double, double> &sizes, double cap, double &seconds, double &bytes, bool strict) {
    auto bw_of = [&](double size) { return strict ? bandwidth_strict(size) : bandwidth(size); };
    std::vector<std::pair<double, double>> order(sizes.begin(), sizes.end());
    std::stable_sort(order.begin(), order.end(), [&](const auto &a, const auto &b) { return bw_of(a.first) > bw_of(b.first); });
    double counted = 0;
    for (const auto &[size, moved] : order) {
      double take = std::min(moved, cap - counted);
      if (take <= 0) break;
      double bw = bw_of(size);
      if (bw < (strict ? *base_strict : base)) eta_lowered = true;
      seconds += memory_time(u::Bytes{take}, u::BytesPerSecond{bw}).value();
      counted += take;
    }
    bytes += counted;
  };
  double cold_seconds = 0, cold_strict_seconds = 0, cold_bytes = 0, cold_strict_bytes = 0;
  json per_arg = json::array();
  for (const auto &[key, traffic] : by_arg) {
    const auto &[arg, write] = key;
    const UniqueBytes::Figure *figure = nullptr;
    if (options.unique && arg >= 0) {
      auto it = options.unique->by_arg.find(key);
      if (it != options.unique->by_arg.end()) figure = &it->second;
    }
    std::string name = arg >= 0 ? "argument " + std::to_string(arg) : "an argument the dump does not name";
    if (figure != nullptr && !figure->key.empty()) name += " (" + figure->key + ")";
    json row{{"arg", arg >= 0 ? json(arg) : json(nullptr)}, {"direction", write ? "write" : "read"},
             {"dma_bytes", traffic.given_total}};
    if (figure == nullptr || !figure->given) {
      row["cold_bytes"] = 0.0;
      std::string why = !options.unique ? "no unique-byte figure: connect the DSL tier's facts to the memory node's "
                                          "'unique' port (pipelines/bound.toml does)"
                        : arg < 0       ? "the dump does not say which argument it is"
                        : figure == nullptr ? "the DSL tier gives no unique bytes for it in this direction"
                                            : "the DSL tier's unique bytes are not a sound figure";
      row["why"] = why;
      per_arg.push_back(std::move(row));
      t.not_counted.push_back({"cold-cache HBM floor: " + fmt::count(traffic.given_total) + " B of DMA " +
                                   (write ? "writes to " : "reads from ") + name,
                               "the bytes may move the same data more than once (a tile read by several blocks, or "
                               "twice by one), which a cold L2 serves once; " + why});
      continue;
    }
    double before = cold_bytes;
    cold_of(traffic.given, *figure->given, cold_seconds, cold_bytes, false);
    if (figure->strict && base_strict)
      cold_of(traffic.strict, *figure->strict, cold_strict_seconds, cold_strict_bytes, true);
    row["unique_bytes"] = *figure->given;
    row["cold_bytes"] = cold_bytes - before;
    if (figure->strict) row["unique_bytes_without_facts"] = *figure->strict;
    per_arg.push_back(std::move(row));
  }
  json sizes = json::array();
  for (const auto &[size, bytes] : by_size)
    sizes.push_back({{"transfer_bytes", size}, {"bytes", bytes}, {"eta", eta_of(size)}, {"bandwidth", bandwidth(size)}});
  for (const auto &[kind, bytes] : left_out)
    t.not_counted.push_back({fmt::count(bytes) + " B of DMA traffic to GM " + kind + " buffers",
                             kind == "workspace" ? "workspace scratch is small and reused: it may stay in L2, whose rate the "
                                                   "profile does not give (the MTE components still count it)"
                                                 : "the GM side is not a kernel argument: it may not reach HBM"});
  double total = read_bytes + write_bytes;
  // HIVM DMA counts are not unique bytes (a tile may be read twice), so no
  // share of them is forced past the L2 here; the DSL tier's unique bytes
  // carry that part.
  MemoryFloors strict_floors = memory_floors(strict_read, strict_bytes - strict_read, 0, m, true);
  MemoryFloors floors = memory_floors(read_bytes, write_bytes, 0, m, false);
  MemoryFloors given_strict = memory_floors(read_bytes, write_bytes, 0, m, true);
  ComponentValue cv;
  cv.component = "hbm";
  cv.work = {{"bytes", total},
             {"read_bytes", read_bytes},
             {"write_bytes", write_bytes},
             {"strict_bytes", strict_bytes},
             {"cold_bytes", cold_bytes},
             {"cold_strict_bytes", cold_strict_bytes},
             {"by_argument", per_arg},
             {"active_blocks", m.active_blocks},
             {"bandwidth_peak", base},
             {"by_transfer_size", sizes}};
  double left_out_bytes = 0;
  for (const auto &[kind, bytes] : left_out) left_out_bytes += bytes;
  cv.work["not_hbm_bytes"] = left_out_bytes;
  cv.work["cold_hbm_floor_without_facts_s"] = cold_strict_seconds;
  Assurance cold_assurance = (use_eta && eta_lowered) || !base_strict ? Assurance::Argued : Assurance::Strict;
  std::optional<double> cold_strict;
  if (base_strict) cold_strict = cold_strict_seconds;
  apply_cache_condition(t, cv, options, cold_seconds, cold_strict, strict_floors, floors,
                        floor_assurance(given_strict, floors), cold_assurance, m.chip_record);
  // Nothing counted because every DMA size was uncountable is not a
  // zero-time memory floor: it is an unknown, with the reason.
  if (total == 0) {
    for (const Missing &miss : view.missing) {
      if (miss.what.find("DMA bytes") == std::string::npos) continue;
      std::string why = "no DMA bytes could be counted: " + std::to_string(miss.ops) + " op(s) (first: " +
                        miss.first_op + (miss.lines.empty() ? std::string() : ", line " + std::to_string(miss.lines.front())) +
                        ") have a " + (miss.reason.find("estimate") != std::string::npos ? "size estimated from an upper bound"
                                                                                          : "size that is unknown") +
                        "; give the launch arguments that define it";
      cv.value = Time::unknown(why);
      cv.strict_value = cv.value;
      break;
    }
  }
  t.add_rate(m.chip_record);
  if (m.read.known()) t.add_rate(m.read.record);
  if (m.write.known()) t.add_rate(m.write.record);
  if (use_eta) {
    t.add_rate(rates.packet_efficiency()->record, cold_assurance == Assurance::Argued ? "argued" : "bound",
               kArgumentPacketEfficiency);
    if (copy.known()) t.add_rate(copy.record, "argued", kArgumentPacketEfficiency);
  }
  t.per_component.push_back(cv);
  for (const Transfer &tr : view.transfers)
    if (t.evidence.size() < 12)
      t.evidence.push_back({{"file", view.origin}, {"line", tr.line}, {"path", tr.path}, {"core", tr.core},
                            {"transfer_bytes", tr.transfer_bytes}, {"packet_bytes", tr.packet_bytes},
                            {"per_block", tr.bytes.uniform}});
  t.not_counted.push_back({"scalar GM loads", "element-by-element memref.load from GM goes through the scalar data "
                                              "cache; its traffic is not counted"});
  note_missing(t, view);
  t.settle();
  return t;
}

//===----------------------------------------------------------------------===//
// serialization (additive)
//===----------------------------------------------------------------------===//

Term serialization_hivm(const HivmView &view, const Rates &rates, const TermOptions &options) {
  Term t = start("serialization", "hivm", "additive");
  if (!view.blocks) return unknown_blocks(t, view);
  Schedule s = hivm_schedule(view, rates);
  t.schedule = s.to_json();
  t.formula = "T_serial = sum over barriers of exposed latency on their pipe (per busiest core) + |E_mandatory| x "
              "handoff_cycles / f_clk over distinct mandatory cross-core component edges";
  // 1. Exposed vector latency per pipe_barrier[PIPE_V] with vector work on
  // both sides (mandatory or avoidable; redundant, prologue and epilogue
  // barriers expose nothing more).
  double v_barriers = 0;
  json barrier_lines = json::array();
  for (const BarrierStats &b : view.barriers) {
    if (b.core != "aiv" || b.pipe != "V") continue;
    if (b.kind != "mandatory" && b.kind != "avoidable") continue;
    v_barriers += b.executions.uniform;
    for (int l : b.lines) barrier_lines.push_back(l);
  }
  const Rate<u::Cycles> &latency = rates.vector_latency();
  if (v_barriers > 0) {
    ComponentValue cv;
    cv.core = "aiv";
    cv.component = "vector";
    cv.strict_value = Time::known(0);
    cv.work = {{"pipe_barrier_v_per_block", v_barriers}, {"lines", barrier_lines}};
    if (options.vector_barrier_latency == "none") {
      cv.value = Time::known(0);
      cv.work["latency"] = "not used (vector_barrier_latency = none)";
    } else if (!latency.known()) {
      cv.value = Time::known(0);
      t.not_counted.push_back({"exposed vector latency per barrier", latency.record.reason});
    } else {
      // Mean form (blocks x per-block / cores): always sound to add to the
      // component floor (docs/model.md §4).
      double cycles_per_core = v_barriers * s.blocks / (s.slots * s.aiv_instances) * latency.value->value();
      cv.value = Time::known(time_at(u::Cycles{cycles_per_core}, rates.clock).value());
      cv.assurance = Assurance::Argued;
      cv.work["latency_cycles"] = latency.value->value();
      cv.work["cycles_on_busiest_core"] = cycles_per_core;
      cv.rate = latency.record.to_json();
      t.add_rate(latency.record, "argued", kArgumentVectorLatency);
    }
    t.per_component.push_back(std::move(cv));
  }
  // 2. Distinct mandatory cross-core handoffs (diagnostic: the calibrated
  // intercept includes a MIX launch and teardown).
  std::optional<double> handoff = options.handoff_cycles;
  if (!handoff && rates.handoff().known()) handoff = rates.handoff().value->value();
  std::map<std::string, std::vector<const EdgeInfo *>> by_consumer;
  for (const EdgeInfo &e : view.edges)
    if (e.mandatory && e.cross_core) by_consumer[e.consumer].push_back(&e);
  for (const auto &[consumer, edges] : by_consumer) {
    ComponentValue cv;
    size_t dot = consumer.find('.');
    cv.core = dot == std::string::npos ? "" : consumer.substr(0, dot);
    cv.component = dot == std::string::npos ? consumer : consumer.substr(dot + 1);
    cv.assurance = Assurance::Diagnostic;
    cv.strict_value = Time::known(0);
    json list = json::array();
    for (const EdgeInfo *e : edges)
      list.push_back({{"producer", e->producer}, {"consumer", e->consumer}, {"multiplicity_per_block", e->multiplicity},
                      {"lines", e->lines}});
    cv.work = {{"distinct_mandatory_edges", edges.size()}, {"edges", list}};
    if (handoff) {
      cv.value = Time::known(serialization_time(static_cast<double>(edges.size()), u::Cycles{*handoff}, rates.clock).value());
      cv.work["handoff_cycles"] = *handoff;
    } else {
      cv.value = Time::unknown("no handoff cost: " + rates.handoff().record.reason);
    }
    t.per_component.push_back(std::move(cv));
  }
  if (!by_consumer.empty()) {
    if (options.handoff_cycles) {
      t.add_rate({"mandatory handoff", *options.handoff_cycles, "cycle", RateKind::Sustained, "parameter handoff_cycles",
                  "", ""},
                 "diagnostic");
    } else {
      t.add_rate(rates.handoff().record, "diagnostic");
    }
  }
  for (const BarrierStats &b : view.barriers)
    if (b.pipe != "V" && (b.kind == "mandatory" || b.kind == "avoidable") && b.executions.uniform > 0)
      t.not_counted.push_back({"pipe_barrier[" + b.pipe + "] on " + b.core + " (" + b.kind + ", " +
                                   fmt::count(b.executions.uniform) + " per block)",
                               "no sound per-barrier latency for this pipe"});
  t.settle();
  if (!t.value.seconds && t.per_component.empty()) {
    t.value = Time::known(0);
    t.strict_value = Time::known(0);
    t.not_counted.push_back({"serialization", "no vector barrier and no mandatory cross-core edge"});
  }
  return t;
}

//===----------------------------------------------------------------------===//
// issue_floor
//===----------------------------------------------------------------------===//

Term issue_floor_hivm(const HivmView &view, const Rates &rates, const TermOptions &options) {
  Term t = start("issue_floor", "hivm", "floor");
  if (!view.blocks) return unknown_blocks(t, view);
  Schedule s = hivm_schedule(view, rates);
  t.schedule = s.to_json();
  bool as_written = options.instruction_count == "as_written";
  t.formula = "T_issue = max over core types of the busiest core's issued instructions / (issue_per_cycle x f_clk)";
  ClassRate rate = instruction_rate(options, rates);
  for (const char *core : {"aic", "aiv"}) {
    auto g = view.issued_guaranteed.find(core);
    auto w = view.issued_as_written.find(core);
    if (g == view.issued_guaranteed.end() && w == view.issued_as_written.end()) continue;
    Amount guaranteed = g != view.issued_guaranteed.end() ? g->second : Amount{};
    Amount written = w != view.issued_as_written.end() ? w->second : Amount{};
    double instances = s.instances(core);
    auto mean_seconds = [&](const Amount &a) { return rate.time(a.grid(s.blocks) / (s.slots * instances)).value(); };
    auto seconds = [&](const Amount &a) {
      double waves_form = rate.time(s.waves * a.uniform / instances).value();
      return std::max(waves_form, mean_seconds(a));
    };
    ComponentValue cv;
    cv.core = core;
    cv.component = "scalar";
    double counted = seconds(guaranteed);
    double with_facts = seconds(guaranteed.with_given());
    // The issue rate is argued (kArgumentIssueRate): the strict value
    // leaves it out.
    cv.strict_value = Time::known(0);
    cv.value = Time::known(with_facts);
    cv.assurance = Assurance::Argued;
    auto scalar = view.scalar_as_written.find(core);
    cv.work = {{"issued_guaranteed_per_block", guaranteed.uniform},
               {"issued_guaranteed_grid_dependent", guaranteed.dependent},
               {"issued_as_written_per_block", written.uniform},
               {"issued_as_written_grid_dependent", written.dependent},
               {"scalar_as_written_per_block", scalar != view.scalar_as_written.end() ? scalar->second.uniform : 0.0},
               {"as_written_s", seconds(written.with_given())},
               {"mean_form_s", mean_seconds(guaranteed.with_given())},
               {"instances_per_block", instances},
               {"counted", "instructions that must exist: vector/DMA/sync instructions, one per cube op, one per scalar "
                           "memory access, one per HIVM scalar op that acts on the machine; casts, index arithmetic, "
                           "address views and loop control are left out (the backend may fold them)"}};
    if (guaranteed.has_given()) {
      cv.work["issued_given_per_block"] = guaranteed.with_given().uniform;
      cv.work["without_given_facts_s"] = counted;
    }
    cv.rate = rate.record.to_json();
    t.per_component.push_back(std::move(cv));
    if (as_written) {
      // Every IR op as issued: an estimate (kArgumentAsWritten), shown
      // beside the bound and never in a limit.
      ComponentValue est;
      est.core = core;
      est.component = "scalar";
      est.value = Time::known(seconds(written.with_given()));
      est.strict_value = Time::known(0);
      est.assurance = Assurance::Diagnostic;
      est.work = {{"issued_as_written_per_block", written.uniform}, {"counted", "every IR op as written (an estimate)"}};
      t.per_component.push_back(std::move(est));
    }
    auto top = view.issue_top.find(core);
    if (top != view.issue_top.end())
      add_evidence(t.evidence, top->second, view.origin, std::string(core) + " scalar memory access");
  }
  t.add_rate(rate.record, "argued", kArgumentIssueRate);
  if (as_written)
    t.add_rate({"instruction count model", std::nullopt, "instruction", RateKind::Sustained,
                "parameter instruction_count = as_written", "", "a count model, not a rate"},
               "diagnostic", kArgumentAsWritten);
  note_missing(t, view);
  t.settle();
  return t;
}

}  // namespace pb::models
