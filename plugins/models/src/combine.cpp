//===- combine.cpp - the combiner: limits, verdict, attribution, findings -===//
#include "combine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "formulas.hpp"
#include "render_numbers.hpp"
#include "terms.hpp"

namespace pb::models {

namespace {

std::string join(const std::vector<std::string> &parts, const std::string &sep) {
  std::string out;
  for (const std::string &p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

struct Candidate {
  double seconds = -1;
  std::string term, component, core;
  std::vector<std::string> additive;
  double additive_seconds = 0;
  Assurance assurance = Assurance::Strict;  // the weakest claim the value rests on
};

void consider(Candidate &best, const Candidate &c) {
  if (c.seconds > best.seconds) best = c;
}

}  // namespace

namespace {

/// The claim a term's value rests on: that of its binding component when
/// the value is above the strict one, else strict.
Assurance binding_assurance(const Term &t) {
  for (const ComponentValue &cv : t.per_component)
    if (cv.component == t.component && cv.core == t.core && cv.value.seconds && t.value.seconds &&
        *cv.value.seconds == *t.value.seconds)
      return cv.strict_value.seconds && *cv.value.seconds > *cv.strict_value.seconds ? cv.assurance : Assurance::Strict;
  return t.assurance;
}

}  // namespace

Limit compose(const std::vector<Term> &terms, const std::string &tier) {
  Limit limit;
  limit.tier = tier;
  struct Slot {
    double floor = 0, floor_strict = 0;
    std::string floor_term, floor_term_strict, component, core;
    double add = 0, add_strict = 0;
    std::vector<std::string> adders;
    Assurance floor_assurance = Assurance::Strict, add_assurance = Assurance::Strict;
  };
  std::map<std::string, Slot> slots;
  Candidate best, best_strict;
  bool argued_used = false;
  for (const Term &t : terms) {
    if (t.tier != tier) continue;
    limit.present = true;
    if (t.assurance == Assurance::Diagnostic) continue;
    if (t.role == "floor") {
      if (!t.value.seconds) {
        limit.not_counted.push_back({t.name, t.value.reason});
        continue;
      }
      consider(best, {*t.value.seconds, t.name, t.component, t.core, {}, 0, binding_assurance(t)});
      if (t.strict_value.seconds) consider(best_strict, {*t.strict_value.seconds, t.name, t.component, t.core, {}, 0});
      for (const ComponentValue &cv : t.per_component) {
        if (cv.assurance == Assurance::Diagnostic || !cv.value.seconds) continue;
        Slot &slot = slots[cv.key()];
        slot.component = cv.component;
        slot.core = cv.core;
        if (*cv.value.seconds > slot.floor) {
          slot.floor = *cv.value.seconds;
          slot.floor_term = t.name;
          slot.floor_assurance = cv.assurance;
        }
        if (cv.strict_value.seconds && *cv.strict_value.seconds > slot.floor_strict) {
          slot.floor_strict = *cv.strict_value.seconds;
          slot.floor_term_strict = t.name;
        }
      }
    } else {
      for (const ComponentValue &cv : t.per_component) {
        if (cv.assurance == Assurance::Diagnostic || !cv.value.seconds) continue;
        Slot &slot = slots[cv.key()];
        slot.component = cv.component;
        slot.core = cv.core;
        slot.add += *cv.value.seconds;
        slot.add_strict += cv.strict_value.seconds.value_or(0);
        if (*cv.value.seconds > cv.strict_value.seconds.value_or(0))
          slot.add_assurance = weaker(slot.add_assurance, cv.assurance);
        if (*cv.value.seconds > 0) slot.adders.push_back(t.name);
      }
    }
  }
  for (const auto &[key, slot] : slots) {
    std::string name = slot.floor_term.empty() ? "(no floor)" : slot.floor_term;
    std::vector<std::string> adders = slot.adders;
    Candidate c{slot.floor + slot.add, adders.empty() ? name : name + "+" + join(adders, "+"), slot.component, slot.core,
                adders, slot.add, weaker(slot.floor_assurance, slot.add_assurance)};
    consider(best, c);
    std::string strict_name = slot.floor_term_strict.empty() ? "(no floor)" : slot.floor_term_strict;
    consider(best_strict, {slot.floor_strict + slot.add_strict, slot.add_strict > 0 ? strict_name + "+additive" : strict_name,
                           slot.component, slot.core, {}, slot.add_strict});
  }
  if (best.seconds < 0) {
    std::string why = !limit.present ? "no " + tier + "-tier term is wired in"
                      : limit.not_counted.empty() ? "no " + tier + "-tier term could be counted"
                                                  : "no term could be counted: " + limit.not_counted.front().what + ": " +
                                                        limit.not_counted.front().reason;
    limit.value = Time::unknown(why);
    limit.strict = limit.value;
    return limit;
  }
  limit.value = Time::known(best.seconds);
  limit.binding_term = best.term;
  limit.binding_component = best.component;
  limit.binding_core = best.core;
  limit.additive_terms = best.additive;
  limit.additive_seconds = best.additive_seconds;
  limit.strict = best_strict.seconds >= 0 ? Time::known(best_strict.seconds) : Time::known(0);
  limit.strict_binding_term = best_strict.term;
  limit.strict_binding_component = best_strict.component;
  // Above the strict limit the value rests on a given fact or an argued
  // figure: the binding candidate says which (the weakest of its parts).
  argued_used = best.seconds > best_strict.seconds * (1 + 1e-12);
  limit.assurance = !argued_used ? Assurance::Strict
                    : best.assurance == Assurance::Given || best.assurance == Assurance::Argued ? best.assurance
                                                                                                : Assurance::Argued;
  return limit;
}

json Limit::to_json() const {
  json out = value.to_json();
  out["binding_term"] = binding_term.empty() ? json(nullptr) : json(binding_term);
  out["binding_component"] = binding_component.empty() ? json(nullptr) : json(binding_component);
  out["binding_core"] = binding_core.empty() ? json(nullptr) : json(binding_core);
  out["sound"] = value.seconds.has_value() && assurance == Assurance::Strict;
  out["assurance"] = assurance_name(assurance);
  json s = strict.to_json();
  s["binding_term"] = strict_binding_term.empty() ? json(nullptr) : json(strict_binding_term);
  s["binding_component"] = strict_binding_component.empty() ? json(nullptr) : json(strict_binding_component);
  out["strict"] = std::move(s);
  out["additive"] = {{"terms", additive_terms}, {"seconds", additive_seconds}};
  json nc = json::array();
  for (const NotCounted &n : not_counted) nc.push_back({{"what", n.what}, {"reason", n.reason}});
  out["not_counted"] = std::move(nc);
  return out;
}

namespace {

//===----------------------------------------------------------------------===//
// Attribution and findings
//===----------------------------------------------------------------------===//

struct Gap {
  std::string name;     // grid, gap1, gap2, gap3, gap4
  std::string meaning;
  std::optional<double> seconds;
  std::string basis;
  json evidence = json::array();
  std::string reason;   // when seconds is null
};

struct Finding {
  std::string id, category, title, action, basis;
  std::optional<double> gain;
  std::string gain_reason;
  json evidence = json::array();
  json source;  // {file, line, python} or null
};

json source_of(const std::string &file, int line, const std::string &loc) {
  json s = json::object();
  s["file"] = file;
  s["line"] = line;
  s["python"] = loc.empty() ? json(nullptr) : json(loc);
  return s;
}

/// "01-vector-add.py:50" of a DSL source {file, line}.
std::string python_place(const json &source) {
  if (!source.is_object() || !source.contains("line") || !source["line"].is_number()) return "";
  std::string file = source.value("file", std::string());
  const size_t slash = file.find_last_of('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(source["line"].get<int64_t>());
}

/// The Python accesses (DSL facts) of Triton argument `arg`, loads or
/// stores: "01-vector-add.py:50 (x)". Empty without DSL facts.
std::vector<std::string> python_accesses(const json *dsl, int arg, bool write) {
  std::vector<std::string> out;
  if (dsl == nullptr || arg < 0 || !dsl->contains("accesses") || !(*dsl)["accesses"].is_array()) return out;
  for (const json &a : (*dsl)["accesses"]) {
    if (!a.is_object() || !a.contains("arg") || !a["arg"].is_number_integer() || a["arg"].get<int>() != arg) continue;
    const std::string op = a.value("op", std::string());
    if ((op == "tt.store" || op.find("atomic") != std::string::npos) != write) continue;
    std::string place = python_place(a.value("source", json()));
    if (place.empty()) continue;
    const json &source = a["source"];
    if (source.contains("name") && source["name"].is_string()) place += " (" + source["name"].get<std::string>() + ")";
    if (std::find(out.begin(), out.end(), place) == out.end()) out.push_back(place);
  }
  return out;
}

/// The tile a program covers along its grid axis, from a DSL access whose
/// offset is "K*pid_x + i0": K and that access's Python line. {0, ""} when
/// no access says.
std::pair<double, std::string> python_tile(const json *dsl) {
  if (dsl == nullptr || !dsl->contains("accesses") || !(*dsl)["accesses"].is_array()) return {0, ""};
  for (const json &a : (*dsl)["accesses"]) {
    if (!a.is_object() || !a.contains("offset") || !a["offset"].is_string()) continue;
    const std::string offset = a["offset"].get<std::string>();
    const size_t star = offset.find("*pid_x");
    if (star == std::string::npos || star == 0) continue;
    char *end = nullptr;
    const double k = std::strtod(offset.c_str(), &end);
    if (end != offset.c_str() + star || !(k > 0)) continue;
    return {k, python_place(a.value("source", json()))};
  }
  return {0, ""};
}

const Term *find_term(const std::vector<Term> &terms, const std::string &name, const std::string &tier) {
  for (const Term &t : terms)
    if (t.name == name && t.tier == tier) return &t;
  return nullptr;
}

/// Seconds of per-block work on the busiest core of a type: waves x work /
/// instances at `per_second`.
double per_core_seconds(double per_block, double waves, double instances, double per_second) {
  return per_second > 0 ? waves * per_block / instances / per_second : 0.0;
}

struct Context {
  const CombineInputs &in;
  const Limit &bound_limit;
  double bound_seconds;
  json schedule;  // of the binding term
};

/// Whether the attribution has the HIVM program and the rates; otherwise
/// records the gap as unknown with the reason.
bool has_hivm(const Context &ctx, Gap &gap, std::vector<Gap> &gaps) {
  if (ctx.in.hivm != nullptr && ctx.in.rates != nullptr && ctx.in.hivm->blocks) return true;
  gap.reason = "needs the HIVM program";
  gaps.push_back(gap);
  return false;
}

double schedule_number(const json &schedule, const char *key, double fallback) {
  return schedule.is_object() && schedule.contains(key) && schedule[key].is_number() ? schedule[key].get<double>() : fallback;
}

/// The bound if every block slot ran the same share of the work: the
/// largest floor that does not depend on the waves (a component's mean form
/// where the term gives one; the term's value otherwise: memory, chip-level
/// and vendor terms), plus the additive time on the same component.
double balanced_bound(const std::vector<Term> &terms) {
  std::map<std::string, double> floor, add;
  for (const Term &t : terms) {
    if (t.assurance == Assurance::Diagnostic) continue;
    for (const ComponentValue &cv : t.per_component) {
      if (cv.assurance == Assurance::Diagnostic || !cv.value.seconds) continue;
      double seconds = *cv.value.seconds;
      if (cv.work.is_object() && cv.work.contains("mean_form_s") && cv.work["mean_form_s"].is_number())
        seconds = std::min(seconds, cv.work["mean_form_s"].get<double>());
      if (t.role == "floor") floor[cv.key()] = std::max(floor[cv.key()], seconds);
      else add[cv.key()] += seconds;
    }
    if (t.per_component.empty() && t.role == "floor" && t.value.seconds)
      floor[t.name] = std::max(floor[t.name], *t.value.seconds);
  }
  double best = 0;
  for (const auto &[key, seconds] : floor) best = std::max(best, seconds + add[key]);
  for (const auto &[key, seconds] : add) best = std::max(best, floor[key] + seconds);
  return best;
}

void grid_gap(const Context &ctx, std::vector<Gap> &gaps, std::vector<Finding> &findings) {
  Gap gap{"grid", "cores left idle by the last wave (tail) or by a grid smaller than the cores", std::nullopt,
          "estimate: the bound minus the largest floor that does not depend on the waves (the mean forms of the "
          "busiest-core floors, the memory and chip-level terms), at most bound x (1 - occupancy)",
          json::array(), ""};
  const json &s = ctx.schedule;
  double blocks = schedule_number(s, "blocks", 0), slots = schedule_number(s, "slots", 0);
  double waves = schedule_number(s, "waves", 0), occupancy = schedule_number(s, "occupancy", 1);
  if (blocks <= 0 || slots <= 0) {
    gap.reason = "the binding term has no schedule";
    gaps.push_back(std::move(gap));
    return;
  }
  // Filling the idle slots can save no more than the waves cost the binding
  // floor, bound x (1 - occupancy), and nothing below what the kernel needs
  // with its work spread evenly: a floor that does not depend on the waves
  // (HBM, say) that binds leaves nothing to gain.
  const double balanced = balanced_bound(ctx.in.terms);
  gap.seconds = std::max(0.0, std::min(ctx.bound_seconds * (1.0 - occupancy), ctx.bound_seconds - balanced));
  double tail = schedule_number(s, "tail_wave_blocks", 0);
  gap.evidence.push_back({{"blocks", blocks}, {"slots", slots}, {"slot_kind", s.value("slot_kind", "")},
                          {"waves", waves}, {"tail_wave_blocks", tail}, {"occupancy", occupancy},
                          {"balanced_bound_s", balanced}});
  gaps.push_back(gap);
  if (occupancy >= 0.999 || *gap.seconds <= 0) return;
  Finding f;
  f.id = "grid.waves";
  f.category = "grid";
  f.gain = gap.seconds;
  f.basis = gap.basis;
  std::string kind = s.value("slot_kind", std::string("core"));
  double lower = std::floor(blocks / slots) * slots, upper = std::ceil(blocks / slots) * slots;
  if (blocks < slots) {
    f.title = "the grid has " + fmt::count(blocks) + " blocks for " + fmt::count(slots) + " " + kind +
              " slots: " + fmt::count(slots - blocks) + " cores stay idle";
    f.action = "split the work into at least " + fmt::count(slots) + " blocks (a multiple of " +
               fmt::count(slots) + ")";
  } else {
    f.title = fmt::count(blocks) + " blocks on " + fmt::count(slots) + " " + kind + " slots run " +
              fmt::count(waves) + " waves; the last has " + fmt::count(tail) + " block(s) (occupancy " +
              fmt::sig4(std::round(occupancy * 1000) / 10) + " %)";
    f.action = "choose a grid that is a multiple of " + fmt::count(slots) + " (e.g. " + fmt::count(lower) +
               " or " + fmt::count(upper) + " blocks, adjusting the block size), or a persistent kernel with " +
               fmt::count(slots) + " programs";
  }
  // The Python the grid comes from: the tile each program covers.
  if (auto [tile, place] = python_tile(ctx.in.dsl); tile > 0 && !place.empty()) {
    f.action += "; each program covers a tile of " + fmt::count(tile) + " elements (" + place +
                "): the block-size constexpr of that tile sets the grid";
    // The place is the tile's Python source ("file:line", the TTIR loc): the
    // finding points there (the schema's line is a number, never null).
    const size_t colon = place.rfind(':');
    const std::string digits = colon == std::string::npos ? std::string() : place.substr(colon + 1);
    if (!digits.empty() && digits.size() < 10 && std::all_of(digits.begin(), digits.end(), ::isdigit)) {
      f.source = json::object();
      f.source["file"] = place.substr(0, colon);
      f.source["line"] = std::stoi(digits);
      f.source["python"] = place;
    }
  }
  f.evidence = gap.evidence;
  findings.push_back(std::move(f));
}

void placement_gap(const Context &ctx, std::vector<Gap> &gaps, std::vector<Finding> &findings) {
  Gap gap{"gap1", "wrong-unit placement: element-by-element scalar work a vector or DMA unit could do", std::nullopt,
          "estimate (diagnostic): the fallback ops' instructions as the IR writes them, at the issue rate",
          json::array(), ""};
  const HivmView *view = ctx.in.hivm;
  const Rates *rates = ctx.in.rates;
  if (!has_hivm(ctx, gap, gaps)) return;
  Schedule s = hivm_schedule(*view, *rates);
  double issue_per_s = rates->clock.value();
  double total = 0;
  for (const auto &[core, per_block] : view->fallback_per_block)
    total = std::max(total, per_core_seconds(per_block, s.waves, s.instances(core), issue_per_s));
  gap.seconds = total;
  // One finding per outermost element loop nest, with its causes.
  for (size_t idx = 0; idx < view->fallback_loops.size(); ++idx) {
    const FallbackLoop &loop = view->fallback_loops[idx];
    if (idx > 0) {
      const FallbackLoop &prev = view->fallback_loops[idx - 1];
      if (prev.depth + 1 == loop.depth && loop.line > prev.line) continue;  // nested in the previous element loop
    }
    int next_line = 1 << 30;
    for (size_t j = idx + 1; j < view->fallback_loops.size(); ++j)
      if (view->fallback_loops[j].depth <= loop.depth) {
        next_line = view->fallback_loops[j].line;
        break;
      }
    std::map<std::string, double> causes;
    double executions = 0;
    std::string loc;
    for (const FallbackOp &f : view->fallbacks)
      if (f.line >= loop.line && f.line < next_line) {
        executions += f.count_per_block;
        if (f.cause.find("loop control") == std::string::npos) causes[f.cause] += f.count_per_block;
        if (loc.empty()) loc = f.loc;
      }
    std::string main_cause = "element-by-element scalar loop";
    double most = 0;
    for (const auto &[cause, n] : causes)
      if (n > most) {
        most = n;
        main_cause = cause;
      }
    double gain = per_core_seconds(executions, s.waves, s.instances(loop.core), issue_per_s);
    Finding f;
    f.id = "gap1.fallback." + std::to_string(loop.line);
    f.category = "placement";
    f.title = "scalar fallback: element loop at line " + std::to_string(loop.line) + " runs " +
              fmt::count(executions) + " scalar ops per block on " + loop.core + " (" + main_cause + ")";
    f.action = "keep this access on the vector/DMA units: load the tile with a (strided) DMA and do the arithmetic on "
               "vectors; avoid per-element gathers, i64/index arithmetic and masks that force scalar code";
    f.gain = gain;
    f.basis = gap.basis;
    json ev{{"loop_line", loop.line}, {"core", loop.core}, {"iterations_per_block_min", loop.iterations_per_block},
            {"iterations_exact", loop.exact}, {"issued_per_iteration", loop.issued_per_iteration},
            {"fallback_ops_per_block", executions}};
    json cause_list = json::object();
    for (const auto &[cause, n] : causes) cause_list[cause] = n;
    ev["causes"] = std::move(cause_list);
    f.evidence.push_back(ev);
    f.source = source_of(view->origin, loop.line, loc);
    gap.evidence.push_back(ev);
    findings.push_back(std::move(f));
  }
  gaps.push_back(std::move(gap));
}

void coalescing_gap(const Context &ctx, std::vector<Gap> &gaps, std::vector<Finding> &findings) {
  Gap gap{"gap2", "coalescing loss: DMA transfers whose contiguous packets are too small to reach the memory's peak",
          std::nullopt, "estimate (diagnostic): calibration hbm_packet_efficiency (sustained) at each packet size",
          json::array(), ""};
  const HivmView *view = ctx.in.hivm;
  const Rates *rates = ctx.in.rates;
  if (!has_hivm(ctx, gap, gaps)) return;
  if (!rates->packet_efficiency() || !rates->hbm().known()) {
    gap.reason = "the profile has no packet-efficiency table or HBM bandwidth";
    gaps.push_back(std::move(gap));
    return;
  }
  double chip = rates->hbm().value->value();
  double total = 0;
  // One finding per (path, packet size, transfer size): the lines share a fix.
  struct Group {
    std::string path;
    double packet = 0, transfer = 0, eta = 1, bytes = 0, loss = 0;
    std::vector<int> lines;
    std::vector<std::string> python;  // the Python accesses of the transfers' arguments
  };
  std::vector<Group> groups;
  for (const Transfer &t : view->transfers) {
    if (t.packet_bytes <= 0) continue;
    double eta = rates->packet_efficiency()->upper(t.packet_bytes);
    if (eta >= 0.999) continue;
    double bytes = t.bytes.grid(*view->blocks);
    double loss = bytes / (chip * eta) - bytes / chip;
    total += loss;
    json ev = json::object();
    ev["file"] = view->origin;
    ev["line"] = t.line;
    ev["path"] = t.path;
    ev["packet_bytes"] = t.packet_bytes;
    ev["transfer_bytes"] = t.transfer_bytes;
    ev["eta"] = eta;
    ev["grid_bytes"] = bytes;
    ev["loss_s"] = loss;
    gap.evidence.push_back(std::move(ev));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group &g) {
      return g.path == t.path && g.packet == t.packet_bytes && g.transfer == t.transfer_bytes;
    });
    if (it == groups.end()) {
      groups.push_back({t.path, t.packet_bytes, t.transfer_bytes, eta, 0, 0, {}, {}});
      it = groups.end() - 1;
    }
    it->bytes += bytes;
    it->loss += loss;
    it->lines.push_back(t.line);
    for (const std::string &place : python_accesses(ctx.in.dsl, t.arg, t.write))
      if (std::find(it->python.begin(), it->python.end(), place) == it->python.end()) it->python.push_back(place);
  }
  for (const Group &g : groups) {
    if (g.loss <= 0) continue;
    std::vector<std::string> lines;
    for (int l : g.lines) lines.push_back(std::to_string(l));
    Finding f;
    f.id = "gap2." + g.path + "." + u::format_number(g.packet);
    f.category = "coalescing";
    f.title = g.path + " DMAs (line" + (lines.size() > 1 ? "s " : " ") + join(lines, ", ") + ") move " +
              fmt::count(g.packet) + "-byte packets (" + fmt::count(g.transfer) +
              " B per transfer): " + fmt::sig4(std::round(g.eta * 1000) / 10) + " % of the peak rate";
    f.action = g.packet < g.transfer
                   ? "make the GM side contiguous (transpose the layout or the loop order) so each row is one packet"
                   : "move larger tiles per transfer (>= 16 KiB reaches 94 % of the peak)";
    f.gain = g.loss;
    f.basis = gap.basis;
    f.evidence.push_back({{"path", g.path}, {"packet_bytes", g.packet}, {"transfer_bytes", g.transfer}, {"eta", g.eta},
                          {"grid_bytes", g.bytes}, {"lines", g.lines}});
    f.source = source_of(view->origin, g.lines.front(), join(g.python, ", "));
    if (!g.python.empty() && g.packet >= g.transfer) {
      // One DMA per tile: the tile size in the Python is what to change.
      auto [tile, place] = python_tile(ctx.in.dsl);
      f.action = "move larger tiles per transfer (>= 16 KiB reaches 94 % of the peak): the DMA is the tile of " +
                 join(g.python, ", ") + (tile > 0 ? " (" + fmt::count(tile) + " elements per program)" : std::string()) +
                 "; raise that tile's block-size constexpr";
      // The value to give it: the tile doubled until one transfer is 16 KiB
      // (the TTIR keeps the constexpr's value, not its name).
      if (tile > 0 && g.transfer > 0 && g.transfer < 16384) {
        double target = tile;
        while (target / tile * g.transfer < 16384) target *= 2;
        f.action += " from " + fmt::count(tile) + " to " + fmt::count(target) + " or more" +
                    (place.empty() ? std::string() : " (the constexpr whose value is " + fmt::count(tile) +
                                                          " in the tile at " + place + ")");
      }
    }
    findings.push_back(std::move(f));
  }
  gap.seconds = total;
  gaps.push_back(std::move(gap));
}

/// What the critical path (docs/model.md §3.6) says about latency: the
/// serialized events on each core's chain per block (PIPE_ALL barriers,
/// matched wait_flags, DMA completions), the loops whose barriers make the
/// chain longer than their busiest pipe, and the chain per block.
struct LatencyChain {
  std::string core, function;
  double events = 0, barriers = 0, flag_waits = 0, dma = 0;
  double chain = 0, busiest = 0;
  std::vector<int> lines;
};

std::vector<LatencyChain> latency_chains(const Context &ctx) {
  std::vector<LatencyChain> out;
  const Term *t = find_term(ctx.in.terms, "critical_path", "hivm");
  if (t == nullptr) return out;
  for (const ComponentValue &cv : t->per_component) {
    const json &w = cv.work;
    LatencyChain c;
    c.core = cv.core;
    c.function = w.value("function", std::string());
    c.barriers = w.value("pipe_all_barriers_per_block", 0.0);
    c.flag_waits = w.value("flag_waits_on_path_per_block", 0.0);
    c.dma = w.value("dma_on_path_per_block", 0.0);
    c.events = c.barriers + c.flag_waits + c.dma;
    c.chain = w.value("strict_chain_per_block_s", 0.0);
    c.busiest = w.value("busiest_pipe_per_block_s", 0.0);
    if (w.contains("path_lines") && w["path_lines"].is_array())
      for (const json &l : w["path_lines"])
        if (l.is_number_integer()) c.lines.push_back(l.get<int>());
    out.push_back(std::move(c));
  }
  return out;
}

void latency_gap(const Context &ctx, std::vector<Gap> &gaps, std::vector<Finding> &findings) {
  const Term *t = find_term(ctx.in.terms, "critical_path", "hivm");
  if (t == nullptr) return;
  Gap gap{"latency",
          "serialized latency: waits on the critical path (DMA completions, set_flag/wait_flag pairs, PIPE_ALL "
          "barriers) whose per-event latency the bound does not count",
          std::nullopt, "the critical_path term's chain per block (docs/model.md §3.6)", json::array(),
          "per-event latencies are not in the profile's calibration; with a measurement, attribution.latency gives "
          "what each event would have to cost"};
  double waves = t->schedule.is_object() ? t->schedule.value("waves", 0.0) : 0.0;
  for (const LatencyChain &c : latency_chains(ctx)) {
    gap.evidence.push_back({{"core", c.core},
                            {"function", c.function},
                            {"events_per_block", c.events},
                            {"pipe_all_barriers_per_block", c.barriers},
                            {"flag_waits_per_block", c.flag_waits},
                            {"dma_completions_per_block", c.dma},
                            {"chain_per_block_s", c.chain},
                            {"busiest_pipe_per_block_s", c.busiest},
                            {"lines", c.lines}});
  }
  // Loops whose PIPE_ALL barriers serialize DMA and compute: the chain they
  // force beyond their busiest pipe, the time double-buffering could save.
  for (const ComponentValue &cv : t->per_component) {
    const json &loops = cv.work.contains("serialized_loops") ? cv.work["serialized_loops"] : json();
    if (!loops.is_array()) continue;
    for (const json &l : loops) {
      double chain = l.value("chain_per_block_s", 0.0), busiest = l.value("busiest_pipe_per_block_s", 0.0);
      int line = l.value("line", 0);
      Finding f;
      f.id = "latency.serialized_loop." + cv.core + "." + std::to_string(line);
      f.category = "serialization";
      f.title = "the loop at line " + std::to_string(line) + " on " + cv.core + " runs " +
                fmt::count(l.value("pipe_all_barriers_per_iteration", 0.0)) +
                " pipe_barrier[PIPE_ALL] per iteration: its chain is " + human_seconds(chain) +
                " per block against " + human_seconds(busiest) + " on its busiest pipe";
      f.action = "double-buffer the loop: give the DMA and the compute separate buffers and order them with "
                 "set_flag/wait_flag instead of PIPE_ALL, so one tile's transfer overlaps the other's compute";
      if (waves > 0) {
        f.gain = (chain - busiest) * waves;
        f.basis = "estimate (diagnostic): (chain - busiest pipe) per block x waves, throughput only";
      } else {
        f.gain_reason = "the schedule is unknown";
      }
      f.evidence.push_back(l);
      f.source = source_of(ctx.in.hivm != nullptr ? ctx.in.hivm->origin : std::string(), line, "");
      findings.push_back(std::move(f));
    }
  }
  gaps.push_back(std::move(gap));
}

void serialization_gap(const Context &ctx, std::vector<Gap> &gaps, std::vector<Finding> &findings) {
  Gap gap{"gap3", "avoidable serialization: barriers and handoffs between work that shares no buffer", std::nullopt,
          "estimate (diagnostic): calibration pipe_barrier_all_cost for PIPE_ALL, vector.head_latency for PIPE_V",
          json::array(), ""};
  const HivmView *view = ctx.in.hivm;
  const Rates *rates = ctx.in.rates;
  if (!has_hivm(ctx, gap, gaps)) return;
  Schedule s = hivm_schedule(*view, *rates);
  double total = 0;
  for (const BarrierStats &b : view->barriers) {
    if (b.kind != "avoidable" && b.kind != "redundant") continue;
    std::optional<double> cost;
    std::string basis;
    if (b.pipe == "ALL" && rates->barrier_all().known()) {
      cost = rates->barrier_all().value->value();
      basis = "calibration:pipe_barrier_all_cost";
    } else if (b.pipe == "V" && rates->vector_latency().known()) {
      cost = rates->vector_latency().value->value();
      basis = "profile:vector.head_latency";
    }
    json ev{{"core", b.core}, {"pipe", b.pipe}, {"kind", b.kind}, {"executions_per_block", b.executions.uniform},
            {"lines", b.lines}};
    Finding f;
    f.id = "gap3.barrier." + b.core + "." + b.pipe + "." + b.kind;
    f.category = "serialization";
    f.title = fmt::count(b.executions.uniform) + " " + b.kind + " pipe_barrier[PIPE_" + b.pipe + "] per block on " +
              b.core + " (line" + (b.lines.size() > 1 ? "s " : " ") + join([&] {
                std::vector<std::string> l;
                for (int x : b.lines) l.push_back(std::to_string(x));
                return l;
              }(), ", ") + ")";
    f.action = b.kind == "redundant" ? "remove the barrier: another barrier of the same pipe precedes it with no work between"
                                     : "remove the barrier or narrow it to the pipes that share a buffer";
    if (cost) {
      double gain = time_at(u::Cycles{*cost * s.waves * b.executions.uniform / s.instances(b.core)}, rates->clock).value();
      f.gain = gain;
      total += gain;
      ev["cost_cycles"] = *cost;
      ev["cost_source"] = basis;
      f.basis = "estimate (diagnostic): " + basis + " x waves";
    } else {
      f.gain_reason = "no per-barrier cost for PIPE_" + b.pipe;
    }
    f.evidence.push_back(ev);
    f.source = b.lines.empty() ? json(nullptr) : source_of(view->origin, b.lines.front(), "");
    gap.evidence.push_back(ev);
    if (b.executions.uniform > 0) findings.push_back(std::move(f));
  }
  gap.seconds = total;
  gaps.push_back(std::move(gap));
}

void intra_unit_gap(const Context &ctx, std::vector<Gap> &gaps, std::vector<Finding> &findings) {
  Gap gap{"gap4", "intra-unit inefficiency: masked vector lanes and per-instruction start-up of short vector instructions",
          std::nullopt, "estimate (diagnostic): masked lanes at the repeat rate + vector.head_latency per instruction",
          json::array(), ""};
  const HivmView *view = ctx.in.hivm;
  const Rates *rates = ctx.in.rates;
  if (!has_hivm(ctx, gap, gaps)) return;
  Schedule s = hivm_schedule(*view, *rates);
  double total = 0;
  for (const auto &[core, wasted] : view->vector_wasted_repeats) {
    if (!rates->vector_repeats().known()) break;
    double seconds = per_core_seconds(wasted.uniform, s.waves, s.instances(core), rates->vector_repeats().value->value());
    total += seconds;
    gap.evidence.push_back({{"core", core}, {"masked_repeats_per_block", wasted.uniform}, {"seconds", seconds}});
    if (seconds > 0) {
      Finding f;
      f.id = "gap4.masked." + core;
      f.category = "intra_unit";
      f.title = fmt::count(wasted.uniform) + " vector repeats per block on " + core + " are spent on masked lanes";
      f.action = "size tiles to whole 256-byte repeats (multiples of 64 f32 / 128 f16 elements per row)";
      f.gain = seconds;
      f.basis = gap.basis;
      findings.push_back(std::move(f));
    }
  }
  if (rates->vector_latency().known())
    for (const auto &[core, instructions] : view->vector_instructions) {
      // Start-up of vector instructions not already behind a barrier (those
      // are in the bound's serialization term).
      double behind_barriers = 0;
      for (const BarrierStats &b : view->barriers)
        if (b.core == core && b.pipe == "V" && (b.kind == "mandatory" || b.kind == "avoidable"))
          behind_barriers += b.executions.uniform;
      double exposed = std::max(0.0, instructions.uniform - behind_barriers);
      double seconds =
          time_at(u::Cycles{rates->vector_latency().value->value() * s.waves * exposed / s.instances(core)}, rates->clock)
              .value();
      total += seconds;
      gap.evidence.push_back({{"core", core}, {"vector_instructions_per_block", instructions.uniform},
                              {"behind_barriers_per_block", behind_barriers},
                              {"startup_cycles_each", rates->vector_latency().value->value()}, {"seconds", seconds}});
    }
  gap.seconds = total;
  gaps.push_back(std::move(gap));
}

/// The finding's document; moves its evidence and source out.
json finding_json(Finding &f, int rank) {
  json out = json::object();
  out["rank"] = rank;
  out["id"] = std::move(f.id);
  out["category"] = std::move(f.category);
  out["title"] = std::move(f.title);
  out["action"] = std::move(f.action);
  json gain = json::object();
  gain["unit"] = "s";
  gain["basis"] = std::move(f.basis);
  gain["value"] = f.gain ? json(*f.gain) : json(nullptr);
  if (!f.gain) gain["reason"] = f.gain_reason.empty() ? std::string("no estimate") : std::move(f.gain_reason);
  out["gain"] = std::move(gain);
  out["evidence"] = std::move(f.evidence);
  out["source"] = std::move(f.source);
  return out;
}

/// The verdict class of a binding component, in msprof's vocabulary
/// (docs/model.md §6): compute units, memory paths, and chip-level
/// components whose time is latency rather than a unit's throughput (a
/// launch-overhead floor binds on "launch"). nullopt for a component in
/// none of them: a vendor term's own name gets no class rather than a
/// wrong one.
std::optional<std::string> verdict_class(const std::string &component) {
  static const std::set<std::string> kCompute = {"cube", "vector", "scalar"};
  static const std::set<std::string> kMemory = {"mte1", "mte2", "mte3", "fixpipe", "hbm", "l2"};
  static const std::set<std::string> kLatency = {"launch", "sync"};
  if (kCompute.count(component) != 0) return "compute-bound";
  if (kMemory.count(component) != 0) return "memory-bound";
  if (kLatency.count(component) != 0) return "latency-bound";
  return std::nullopt;
}

std::string verdict_unit_for_memory(const std::vector<Term> &terms, const std::string &tier) {
  const Term *mem = find_term(terms, "memory", tier);
  if (mem == nullptr || mem->per_component.empty()) return "mte2";
  const json &w = mem->per_component.front().work;
  double read = w.value("read_bytes", w.value("read_unique", 0.0));
  double write = w.value("write_bytes", w.value("written_unique", 0.0));
  return write > read ? "mte3" : "mte2";
}


//===----------------------------------------------------------------------===//
// Coverage: what the bound counts against what the IR holds
//===----------------------------------------------------------------------===//

/// Below this share of the binding-relevant ops counted, the verdict says
/// in words what the bound left out.
constexpr double kCoverageWarning = 0.9;
/// Below this share of all the kernel's ops counted, it says so whatever
/// binds: gains computed from such a bound leave out most of the kernel.
constexpr double kMostOfTheKernel = 0.5;

/// The coverage rows that matter to a binding (core, component): the
/// component itself; the core's instruction issue for the scalar unit
/// (issue counts every instruction); the GM movers for HBM; every
/// component for the kernel as a whole (component "").
std::vector<const CoverageRow *> relevant_rows(const HivmView &view, const std::string &core, const std::string &component) {
  std::vector<const CoverageRow *> out;
  for (const auto &[key, row] : view.coverage) {
    bool core_ok = core.empty() || row.core == core;
    // Ops the extractor does not model (row `<core>.unmodelled`) may do any
    // kind of work: they matter to every binding component on their core.
    bool unmodelled = !component.empty() && row.component == "unmodelled" && core_ok;
    bool match = unmodelled                ? true
                 : component == "scalar" ? core_ok && row.component == "issue"
                 : component == "hbm"    ? row.component == "mte2" || row.component == "mte3"
                 : component.empty()     ? row.component != "issue"
                                         : core_ok && row.component == component;
    if (match) out.push_back(&row);
  }
  return out;
}

struct CoverageSummary {
  int present = 0, counted = 0, given = 0;
  std::string label;  // "MTE2 ops", "ops on aiv"
  // Work per block on the rows (one unit only: else unknown).
  double work_present = 0, work_counted = 0;
  bool work_known = true;
  std::string unit;   // B, FLOP, repeat, instruction
  [[nodiscard]] double share() const { return present > 0 ? double(counted) / present : 1.0; }
  [[nodiscard]] bool has_work() const { return work_known && work_present > 0; }
  [[nodiscard]] double work_share() const { return has_work() ? std::min(1.0, work_counted / work_present) : 1.0; }
  /// The lower of the two: a bound that counts most ops but little of the work is partial.
  [[nodiscard]] double lowest() const { return std::min(share(), work_share()); }
};

CoverageSummary summarise(const std::vector<const CoverageRow *> &rows, const std::string &label) {
  CoverageSummary s;
  s.label = label;
  for (const CoverageRow *r : rows) {
    s.present += r->ops_present;
    s.counted += r->ops_counted;
    s.given += r->ops_given;
    if (r->ops_present == 0 && r->ops_counted == 0) continue;
    if (s.unit.empty()) s.unit = r->unit;
    if (!r->present_known || r->unit != s.unit) s.work_known = false;
    s.work_present += r->present;
    s.work_counted += r->counted;
  }
  return s;
}

/// "136,629 of 267,701 instructions per block on aiv (51 %)".
std::string work_phrase(const CoverageSummary &s, const std::string &core) {
  const std::string unit = s.unit == "B" ? "bytes" : s.unit == "instruction" ? "instructions" : s.unit == "repeat" ? "vector repeats" : s.unit;
  return fmt::count(s.work_counted) + " of " + fmt::count(s.work_present) + " " + unit + " per block" +
         (core.empty() ? std::string() : " on " + core) + " (" + fmt::percent(s.work_share()) + ")";
}

std::string upper(std::string text) {
  for (char &c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

/// "the bound counts 2 of 14 MTE2 ops: 12 are in the loop at line 288 whose
/// trip count is unknown (give trips."288")".
std::string coverage_sentence(const CoverageSummary &sum, const HivmView &view,
                              const std::vector<const CoverageRow *> &rows, std::string &hint, const std::string &core = "") {
  std::string out = "the bound counts " +
                    (sum.has_work() && sum.work_share() < 1.0 ? work_phrase(sum, core) + " and " : std::string()) +
                    fmt::count(sum.counted) + " of " + fmt::count(sum.present) + " " + sum.label;
  int missing = sum.present - sum.counted;
  if (missing <= 0) return out;
  // Causes weighed by the instructions their ops would issue (best
  // estimate, block 0), then by how many ops they hold.
  struct Cause {
    int ops = 0;
    double weight = 0;
    std::string hint;
  };
  std::map<std::string, Cause> by_cause;
  for (const Uncounted &u : view.uncounted) {
    bool relevant = std::any_of(rows.begin(), rows.end(), [&](const CoverageRow *r) {
      return r->core == u.core && (r->component == "issue" ? !u.issue_counted : r->component == u.component);
    });
    if (!relevant) continue;
    std::string cause = u.loop_line > 0 ? "in the loop at line " + std::to_string(u.loop_line) + " whose trip count is unknown"
                                        : "not counted: " + u.reason;
    Cause &c = by_cause[cause];
    ++c.ops;
    c.weight += u.issued_estimate;
    if (!u.hint.empty()) c.hint = u.hint;
  }
  if (by_cause.empty()) return out + ": " + std::to_string(missing) + " could not be counted";
  auto top = std::max_element(by_cause.begin(), by_cause.end(), [](const auto &a, const auto &b) {
    return a.second.weight != b.second.weight ? a.second.weight < b.second.weight : a.second.ops < b.second.ops;
  });
  out += ": " + std::to_string(top->second.ops) + (top->second.ops == 1 ? " is " : " are ") + top->first;
  if (!top->second.hint.empty()) {
    hint = top->second.hint;
    out += " (" + hint + ")";
  }
  if (top->second.ops < missing) out += ", " + std::to_string(missing - top->second.ops) + " more for other reasons";
  return out;
}

/// The coverage section of the report (every format shows it) and, when the
/// binding-relevant share is low, the sentence the verdict carries.
json coverage_json(const CombineInputs &in, const Limit *chosen, std::string &warning, std::string &hint) {
  json out = json::object();
  if (in.hivm != nullptr) {
    const HivmView &view = *in.hivm;
    json rows = json::array();
    for (const auto &[key, r] : view.coverage) {
      json row = json::object();
      row["core"] = r.core;
      row["component"] = r.component;
      row["unit"] = r.unit;
      row["ops_present"] = r.ops_present;
      row["ops_counted"] = r.ops_counted;
      row["ops_given_only"] = r.ops_given;
      row["ops_left_out_by_rule"] = r.ops_excluded;
      row["share"] = r.share();
      row["work_present_per_block"] = r.present_known ? json(r.present) : json(nullptr);
      row["work_counted_per_block"] = r.counted;
      rows.push_back(std::move(row));
    }
    json uncounted = json::array();
    for (const Uncounted &u : view.uncounted)
      uncounted.push_back({{"line", u.line}, {"op", u.op}, {"core", u.core}, {"component", u.component},
                           {"reason", u.reason}, {"hint", u.hint.empty() ? json(nullptr) : json(u.hint)}});
    CoverageSummary all = summarise(relevant_rows(view, "", ""), "ops");
    json hivm = json::object();
    hivm["by_component"] = std::move(rows);
    hivm["not_counted"] = std::move(uncounted);
    hivm["not_counted_total"] = view.uncounted_total;
    hivm["ops_present"] = all.present;
    hivm["ops_counted"] = all.counted;
    hivm["share"] = all.share();
    if (chosen != nullptr && chosen->tier == "hivm") {
      std::string component = chosen->binding_component, core = chosen->binding_core;
      std::vector<const CoverageRow *> relevant = relevant_rows(view, core, component);
      std::string label = component == "scalar" ? "ops on " + (core.empty() ? std::string("the cores") : core)
                          : component == "hbm"  ? "GM transfer ops"
                                                : upper(component) + " ops";
      CoverageSummary binding = summarise(relevant, label);
      // The sentence speaks of the binding unit's ops, or of the kernel's
      // ops as a whole when the bound leaves out most of the kernel.
      const bool use_binding = binding.lowest() < kCoverageWarning || all.share() >= kMostOfTheKernel;
      std::string sentence = coverage_sentence(use_binding ? binding : all, view,
                                               use_binding ? relevant : relevant_rows(view, "", ""), hint,
                                               use_binding ? core : std::string());
      json b = {{"core", core.empty() ? json(nullptr) : json(core)}, {"component", component},
                {"ops_present", binding.present}, {"ops_counted", binding.counted}, {"share", binding.share()},
                {"sentence", sentence}};
      // The headline share: of the binding unit's work where it is known
      // (what the bound's time is made of), else of its ops.
      b["unit"] = binding.unit.empty() ? json(nullptr) : json(binding.unit);
      b["work_present_per_block"] = binding.has_work() ? json(binding.work_present) : json(nullptr);
      b["work_counted_per_block"] = binding.has_work() ? json(binding.work_counted) : json(nullptr);
      b["work_share"] = binding.has_work() ? json(binding.work_share()) : json(nullptr);
      hivm["binding"] = std::move(b);
      // An op that is not modelled on the binding core may hold any amount of
      // work: the verdict says so however few such ops there are.
      const bool unmodelled_work = std::any_of(relevant.begin(), relevant.end(), [](const CoverageRow *r) {
        return r->component == "unmodelled" && r->ops_present > r->ops_counted;
      });
      if (binding.lowest() < kCoverageWarning || all.share() < kMostOfTheKernel || unmodelled_work) warning = sentence;
    } else if (chosen != nullptr && all.share() < kCoverageWarning) {
      // The DSL tier binds, but the HIVM tier left out part of the kernel:
      // counted, its limit might have been the larger one, so the bound is
      // partial all the same.
      warning = coverage_sentence(all, view, relevant_rows(view, "", ""), hint);
    }
    out["hivm"] = std::move(hivm);
  }
  if (in.dsl != nullptr && in.dsl->contains("unresolved") && (*in.dsl)["unresolved"].is_array()) {
    json dsl = json::object();
    dsl["unresolved"] = (*in.dsl)["unresolved"];
    dsl["unresolved_total"] = (*in.dsl)["unresolved"].size();
    out["dsl"] = std::move(dsl);
  }
  out["warning"] = warning.empty() ? json(nullptr) : json(warning);
  return out;
}

/// The launch arguments not given that a tier needed: the TTIR's
/// launch.missing_args (by name) and the HIVM dump's scalar arguments
/// without a value (by position, named through the TTIR signature when
/// there is one). [{key, position, tiers}].
json missing_args_json(const CombineInputs &in) {
  json out = json::array();
  std::map<int64_t, std::string> name_of;
  if (in.dsl != nullptr && in.dsl->contains("signature") && (*in.dsl)["signature"].is_array())
    for (const json &a : (*in.dsl)["signature"])
      if (a.is_object() && a.contains("index") && a["index"].is_number_integer() && a.contains("key") && a["key"].is_string())
        name_of[a["index"].get<int64_t>()] = a["key"].get<std::string>();
  auto add = [&](const std::string &key, const json &position, const char *tier) {
    for (json &m : out)
      if (m["key"] == key) {
        m["tiers"].push_back(tier);
        return;
      }
    out.push_back({{"key", key}, {"position", position}, {"tiers", json::array({tier})}});
  };
  if (in.dsl != nullptr && in.dsl->contains("launch") && (*in.dsl)["launch"].is_object() &&
      (*in.dsl)["launch"].contains("missing_args") && (*in.dsl)["launch"]["missing_args"].is_array())
    for (const json &name : (*in.dsl)["launch"]["missing_args"]) {
      if (!name.is_string()) continue;
      json position = nullptr;
      for (const auto &[index, key] : name_of)
        if (key == name.get<std::string>()) position = index;
      add(name.get<std::string>(), position, "dsl");
    }
  if (in.hivm != nullptr)
    for (const HivmView::MissingArg &m : in.hivm->missing_args) {
      const int64_t position = std::stoll(m.position);
      auto it = name_of.find(position);
      add(it != name_of.end() ? it->second : "\"" + m.position + "\"", position, "hivm");
    }
  return out;
}

}  // namespace

json combine(CombineInputs in, const CombineOptions &options) {
  Limit dsl = compose(in.terms, "dsl");
  Limit hivm = compose(in.terms, "hivm");
  json report = pb::sdk::make_document(kReportSchema);

  std::string kernel;
  std::string kernel_source;
  if (in.hivm != nullptr) {
    kernel = in.hivm->kernel;
    kernel_source = in.hivm->origin;
  }
  if (kernel.empty() && in.dsl != nullptr && in.dsl->contains("kernel") && (*in.dsl)["kernel"].contains("name")) {
    kernel = (*in.dsl)["kernel"]["name"].get<std::string>();
    kernel_source = in.dsl_origin;
  }
  report["kernel"] = {{"name", kernel.empty() ? std::string("(unknown)") : kernel},
                      {"source", kernel_source.empty() ? json(nullptr) : json(kernel_source)}};
  if (in.rates != nullptr)
    report["profile"] = {{"name", in.rates->profile_name}, {"clock_hz", in.rates->clock.value()}};
  else
    report["profile"] = {{"name", "(unknown)"}, {"clock_hz", nullptr}};

  // The bound: the larger of the available limits.
  const Limit *chosen = nullptr;
  if (dsl.value.seconds && hivm.value.seconds)
    chosen = *dsl.value.seconds > *hivm.value.seconds ? &dsl : &hivm;
  else if (hivm.value.seconds)
    chosen = &hivm;
  else if (dsl.value.seconds)
    chosen = &dsl;
  json bound;
  if (chosen != nullptr) {
    bound = chosen->value.to_json();
    bound["tier"] = chosen->tier;
    bound["binding_term"] = chosen->binding_term;
    bound["binding_component"] = chosen->binding_component;
    bound["binding_core"] = chosen->binding_core.empty() ? json(nullptr) : json(chosen->binding_core);
    bound["sound"] = chosen->assurance == Assurance::Strict;
    bound["assurance"] = assurance_name(chosen->assurance);
    double strict_dsl = dsl.strict.seconds.value_or(0), strict_hivm = hivm.strict.seconds.value_or(0);
    const Limit &strict_from = strict_dsl > strict_hivm ? dsl : hivm;
    json strict = Time::known(std::max(strict_dsl, strict_hivm)).to_json();
    strict["tier"] = strict_from.tier;
    strict["binding_term"] = strict_from.strict_binding_term;
    strict["binding_component"] = strict_from.strict_binding_component;
    bound["strict"] = std::move(strict);
    // A bound that rests on the user's facts is the given bound (the
    // pictures draw the step from the strict bound to it).
    if (chosen->assurance == Assurance::Given) bound["given"] = chosen->value.to_json();
    // An argued bound over facts the user gave: the given bound is the
    // largest floor that rests on those facts and on no argued figure (each
    // such floor is a lower bound under the facts), at least the strict one.
    // Before, the varlen_rows report said "argued; strict 0 s" with its
    // memory floor of 133 ns given by the offsets tensor nowhere in the line.
    if (chosen->assurance == Assurance::Argued) {
      double given_level = std::max(strict_dsl, strict_hivm);
      bool any = false;
      for (const Term &t : in.terms)
        if (t.role == "floor" && t.assurance == Assurance::Given && t.value.seconds && *t.value.seconds > given_level) {
          given_level = *t.value.seconds;
          any = true;
        }
      if (any) bound["given"] = Time::known(given_level).to_json();
    }
  } else {
    bound = Time::unknown(hivm.present || dsl.present ? "no limit could be computed: " +
                                                            (hivm.present ? hivm.value.reason : dsl.value.reason)
                                                      : "no term is wired in")
                .to_json();
    bound["tier"] = nullptr;
    bound["binding_term"] = nullptr;
    bound["binding_component"] = nullptr;
    bound["sound"] = false;
    bound["assurance"] = "diagnostic";
  }
  bound["formula"] =
      "T_bound = max(T_bound_DSL, T_bound_HIVM); per tier T = max(max_F T_F, max_c (max_F T_F,c + sum_A T_A,c)) over "
      "floor terms F and additive terms A (docs/model.md §4)";
  report["bound"] = std::move(bound);

  json limits{{"dsl", dsl.to_json()}, {"hivm", hivm.to_json()}};
  json invariant;
  if (dsl.value.seconds && hivm.value.seconds) {
    bool holds = *dsl.value.seconds <= *hivm.value.seconds * (1 + 1e-9);
    invariant["holds"] = holds;
    invariant["message"] =
        holds ? "T_bound_DSL " + human_seconds(*dsl.value.seconds) + " <= T_bound_HIVM " + human_seconds(*hivm.value.seconds) +
                    " (compiler headroom " + human_seconds(*hivm.value.seconds - *dsl.value.seconds) + ")"
              : "VIOLATED: T_bound_DSL " + human_seconds(*dsl.value.seconds) + " (" + dsl.binding_term + " on " +
                    dsl.binding_component + ") exceeds T_bound_HIVM " + human_seconds(*hivm.value.seconds) + " (" +
                    hivm.binding_term + " on " + hivm.binding_component +
                    "): either the DSL tier assumed work the compiler avoided, or the HIVM tier missed work; the bound "
                    "uses the larger limit";
  } else {
    invariant["holds"] = nullptr;
    invariant["message"] = std::string("not checked: ") + (!dsl.value.seconds ? "no DSL limit" : "no HIVM limit");
  }
  limits["invariant"] = invariant;  // also read below, for the finding
  report["limits"] = std::move(limits);
  report["terms"] = std::move(in.term_documents);

  std::string coverage_warning, coverage_hint;
  report["coverage"] = coverage_json(in, chosen, coverage_warning, coverage_hint);
  json given_facts = json::array();
  if (in.hivm != nullptr)
    for (const GivenFact &f : in.hivm->given_facts) {
      json fact = json::parse(f.fact, nullptr, false);
      given_facts.push_back({{"key", f.key}, {"fact", fact.is_discarded() ? json(f.fact) : fact}, {"ops", f.ops}, {"tier", "hivm"}});
    }
  // The TTIR extractor's facts: every fact as given, with the ones it used.
  if (in.dsl != nullptr && in.dsl->contains("given") && (*in.dsl)["given"].is_object()) {
    const json &g = (*in.dsl)["given"];
    const json &used = g.contains("used") ? g["used"] : json::array();
    if (g.contains("facts") && g["facts"].is_array())
      for (const json &f : g["facts"]) {
        std::string key = f.value("fact", std::string("?"));
        bool was_used = used.is_array() && std::find(used.begin(), used.end(), json(key)) != used.end();
        given_facts.push_back({{"key", key}, {"fact", f.contains("value") ? f["value"] : json(nullptr)},
                               {"used", was_used}, {"tier", "dsl"}});
      }
  }
  if (!given_facts.empty()) report["given_facts"] = std::move(given_facts);

  // Verdict, in msprof's vocabulary.
  json verdict;
  if (chosen != nullptr) {
    std::string comp = chosen->binding_component;
    json unit = comp == "hbm" ? json(verdict_unit_for_memory(in.terms, chosen->tier)) : comp.empty() ? json(nullptr) : json(comp);
    std::optional<std::string> cls = verdict_class(comp);
    std::string why = "the bound is set by " + chosen->binding_term + " on " +
                      (chosen->binding_core.empty() ? std::string() : chosen->binding_core + " ") +
                      (comp.empty() ? std::string("no named component") : comp);
    if (cls == "latency-bound")
      why += " (a chip-level latency, not a compute unit's or a memory path's throughput)";
    else if (!cls)
      why += comp.empty() ? std::string("; the binding term names no component, so there is no class (a chip-level term names "
                                        "its component, e.g. launch: docs/model.md §6)")
                          : "; component '" + comp +
                                "' is none of cube, vector, scalar (compute), mte1, mte2, mte3, fixpipe, hbm, l2 (memory) or "
                                "launch, sync (latency), so there is no class (docs/model.md §6)";
    if (!chosen->additive_terms.empty())
      why += ", including " + human_seconds(chosen->additive_seconds) + " of irreducible serialization on that unit";
    // A floor of the binding tier with no number (the memory term when no
    // DMA size is known): the class is that of the largest term counted,
    // and the unknown one might be larger.
    for (const Term &t : in.terms) {
      if (t.tier != chosen->tier || t.role != "floor" || t.value.seconds) continue;
      why += "; the " + t.tier + " " + t.name + " term" + (t.component.empty() ? std::string() : " on " + t.component) +
             " has no number, so the kernel may be bound by it instead";
      break;
    }
    if (options.measured_seconds && *options.measured_seconds > 0) {
      // The ratio says how loose the bound is, not what the kernel is bound
      // by: the class stays the binding unit's (docs/model.md §6).
      double ratio = *chosen->value.seconds / *options.measured_seconds;
      if (ratio > 1)
        why += "; the bound EXCEEDS the measured " + fmt::seconds(*options.measured_seconds) + " by " +
               fmt::seconds(*chosen->value.seconds - *options.measured_seconds) +
               ": UNSOUND for this run. A lower bound above a real measurement is a bug to report with this report, "
               "unless the measurement is of another launch, input or profile";
      else
        why += "; the bound is " + fmt::percent(ratio) + " of the measured " + fmt::seconds(*options.measured_seconds);
      if (ratio < 0.8)
        why += ": the rest is time this bound does not model (latency, other units, uncounted work); see the attribution";
    }
    // Launch arguments a count depends on and the launch did not give: the
    // work they define is not counted in that tier, whichever tier binds.
    json missing = missing_args_json(in);
    if (!missing.empty()) {
      std::string names;
      for (const json &m : missing) names += (names.empty() ? "" : ", ") + m["key"].get<std::string>();
      why += "; launch argument" + std::string(missing.size() == 1 ? " " : "s ") + names +
             " not given: the work that depends on " + (missing.size() == 1 ? "it" : "them") +
             " is not counted (give args." + missing.front()["key"].get<std::string>() + ")";
    }
    verdict = {{"class", cls ? json(*cls) : json(nullptr)}, {"unit", unit}, {"why", why}};
    if (!missing.empty()) verdict["missing_args"] = std::move(missing);
    if (!coverage_warning.empty()) {
      verdict["coverage"] = coverage_warning;
      verdict["why"] = why + "; but " + coverage_warning + ": the bound may be far below the kernel's time";
    }
  } else {
    verdict = {{"class", nullptr}, {"unit", nullptr}, {"why", "no bound"}};
  }
  report["verdict"] = std::move(verdict);

  // Attribution and findings.
  std::vector<Gap> gaps;
  std::vector<Finding> findings;
  json schedule;
  if (chosen != nullptr) {
    std::string base = chosen->binding_term.substr(0, chosen->binding_term.find('+'));
    if (const Term *t = find_term(in.terms, base, chosen->tier)) schedule = t->schedule;
  }
  Context ctx{in, chosen != nullptr ? *chosen : hivm, chosen != nullptr ? *chosen->value.seconds : 0.0, schedule};
  grid_gap(ctx, gaps, findings);
  placement_gap(ctx, gaps, findings);
  coalescing_gap(ctx, gaps, findings);
  serialization_gap(ctx, gaps, findings);
  intra_unit_gap(ctx, gaps, findings);
  latency_gap(ctx, gaps, findings);
  if (invariant.contains("holds") && invariant["holds"].is_boolean() && !invariant["holds"].get<bool>()) {
    Finding f;
    f.id = "invariant.dsl_above_hivm";
    f.category = "invariant";
    f.title = invariant["message"].get<std::string>();
    f.action = "check the HIVM dump and the launch values against the TTIR: one tier counted work the other did not";
    f.gain_reason = "not a performance finding";
    findings.push_back(std::move(f));
  }
  json attribution;
  attribution["reference"] = options.measured_seconds ? Time::known(*options.measured_seconds).to_json()
                                                      : Time::unknown("no measurement given (combiner parameter measured_us)").to_json();
  attribution["bound"] = chosen != nullptr ? chosen->value.to_json() : Time::unknown("no bound").to_json();
  double explained = 0;
  json items = json::object();
  for (Gap &g : gaps) {
    json item = g.seconds ? Time::known(*g.seconds).to_json() : Time::unknown(g.reason).to_json();
    item["meaning"] = g.meaning;
    item["basis"] = g.basis;
    item["evidence"] = std::move(g.evidence);
    items[g.name] = std::move(item);
    if (g.seconds) explained += *g.seconds;
  }
  attribution["gaps"] = std::move(items);
  if (options.measured_seconds && chosen != nullptr) {
    double gap = *options.measured_seconds - *chosen->value.seconds;
    attribution["gap"] = Time::known(std::max(0.0, gap)).to_json();
    attribution["explained"] = Time::known(explained).to_json();
    attribution["unexplained"] = Time::known(std::max(0.0, gap - explained)).to_json();
    if (gap < 0)
      attribution["note"] = "the bound exceeds the measurement: UNSOUND for this run";
    else if (explained > gap)
      attribution["note"] = "the estimates overlap (each is a separate what-if); their sum exceeds the gap";
  } else {
    attribution["gap"] = Time::unknown("no measurement given").to_json();
    attribution["explained"] = Time::known(explained).to_json();
    attribution["note"] = "each gap is the estimated time a fix would save (separate what-ifs, not additive)";
  }
  // With a measurement, the time no throughput term explains, set against
  // the critical path's serialized events: what each would have to cost.
  if (options.measured_seconds && chosen != nullptr) {
    double unexplained = std::max(0.0, *options.measured_seconds - *chosen->value.seconds - explained);
    const Term *cp = find_term(in.terms, "critical_path", "hivm");
    double waves = cp != nullptr && cp->schedule.is_object() ? cp->schedule.value("waves", 0.0) : 0.0;
    const LatencyChain *busiest_chain = nullptr;
    std::vector<LatencyChain> chains = latency_chains(ctx);
    for (const LatencyChain &c : chains)
      if (c.events > 0 && (busiest_chain == nullptr || c.events > busiest_chain->events)) busiest_chain = &c;
    if (busiest_chain != nullptr && waves > 0 && unexplained > 0) {
      const LatencyChain &c = *busiest_chain;
      double per_event = unexplained / (waves * c.events);
      std::string lines;
      for (size_t idx = 0; idx < c.lines.size() && idx < 8; ++idx) lines += (idx ? ", " : "") + std::to_string(c.lines[idx]);
      if (c.lines.size() > 8) lines += ", ...";
      auto counted = [](double n, const char *one, const char *many) { return fmt::count(n) + " " + (n == 1 ? one : many); };
      std::string sentence = "per block " + counted(c.dma, "DMA completion", "DMA completions") + ", " +
                             counted(c.flag_waits, "flag wait", "flag waits") + " and " +
                             counted(c.barriers, "PIPE_ALL barrier", "PIPE_ALL barriers") + " on " + c.core +
                             "'s critical path" +
                             (lines.empty() ? std::string() : (c.lines.size() == 1 ? " (line " : " (lines ") + lines + ")") +
                             "; the unexplained " + human_seconds(unexplained) + " over " + counted(waves, "wave", "waves") +
                             " implies up to " + human_seconds(per_event) + " per event";
      attribution["latency"] = {{"core", c.core},
                                {"events_per_block", c.events},
                                {"unexplained", Time::known(unexplained).to_json()},
                                {"implied_per_event", Time::known(per_event).to_json()},
                                {"lines", c.lines},
                                {"sentence", sentence}};
      if (unexplained > 0.5 * (*options.measured_seconds - *chosen->value.seconds) && report.contains("verdict") &&
          report["verdict"].is_object()) {
        json &said = report["verdict"];
        said["latency"] = sentence;
        said["why"] = said.value("why", std::string()) + "; most of the gap to the measured time is unexplained and may be latency: " + sentence;
      }
    }
  }
  report["attribution"] = std::move(attribution);

  std::stable_sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) {
    double ga = a.gain.value_or(-1), gb = b.gain.value_or(-1);
    return ga > gb;
  });
  if (!coverage_warning.empty()) {
    // A bound that leaves out much of the kernel ranks nothing without
    // saying so: the coverage finding comes first, and every gain says it
    // was computed from a partial bound.
    Finding f;
    f.id = "coverage.binding";
    f.category = "coverage";
    f.title = coverage_warning;
    f.action = coverage_hint.empty() ? std::string("give the launch values or data facts that define the uncounted work")
                                     : coverage_hint + " in the launch (e.g. --set 'launch={...,trips={...}}'), or give the "
                                                       "data that defines the loop";
    f.gain_reason = "unknown: the bound does not count this work";
    for (Finding &other : findings) other.basis += " (from a bound that leaves out work: " + coverage_warning + ")";
    findings.insert(findings.begin(), std::move(f));
  }
  json list = json::array();
  int rank = 0;
  for (Finding &f : findings) {
    if (rank >= options.top_findings) break;
    list.push_back(finding_json(f, ++rank));
  }
  report["findings"] = std::move(list);
  if (options.measured_seconds) report["measurement"] = Time::known(*options.measured_seconds).to_json();
  return report;
}

json findings_document(const json &report) {
  json doc = pb::sdk::make_document(kFindingsSchema);
  doc["kernel"] = report.value("kernel", json::object()).value("name", std::string("(unknown)"));
  doc["bound"] = report.contains("bound") ? json{{"value", report["bound"]["value"]}, {"unit", "s"}} : json(nullptr);
  doc["findings"] = report.value("findings", json::array());
  // The same list is in the report: renderers of a run that shows both
  // list it once (with the report) and point there from here.
  doc["in_report"] = true;
  return doc;
}

}  // namespace pb::models
