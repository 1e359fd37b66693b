//===- render_trace.cpp - the bound's schedule as a Chrome trace ----------===//
#include "render_trace.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace pb::models {

namespace {

using pb::sdk::json;

double seconds_of(const json &q) {
  if (q.is_number()) return q.get<double>();
  if (q.is_object() && q.contains("value") && q["value"].is_number()) return q["value"].get<double>();
  return std::nan("");
}

/// The array member `key` of `obj`, or an empty array (never a copy, so
/// pointers into it stay valid).
const json &array_of(const json &obj, const char *key) {
  static const json kEmpty = json::array();
  if (!obj.is_object()) return kEmpty;
  auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? *it : kEmpty;
}

/// The member `key` of `obj`, or null.
const json &at(const json &obj, const char *key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

double number_of(const json &obj, const char *key, double fallback) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return fallback;
  return obj[key].get<double>();
}

std::string text(const json &obj, const char *key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return "";
  return obj[key].get<std::string>();
}

/// Does an evidence item of `term` belong to the track (core, component)?
/// Items name it as "aiv.mte2" (component_floor), "aic scalar memory access"
/// (issue_floor: its one component) or carry `core` (memory: chip-level).
bool evidence_matches(const json &e, const std::string &term_name, const std::string &core, const std::string &component,
                      size_t components_of_core) {
  if (core == "chip") return true;
  std::string what = text(e, "what");
  if (what == core + "." + component) return true;
  if (what.rfind(core + " ", 0) == 0) return what.find(component) != std::string::npos || components_of_core == 1;
  (void)term_name;
  return false;
}

/// Whether `term` itemises IR lines for the track (core, component).
bool has_evidence(const json &term, const std::string &core, const std::string &component) {
  size_t components_of_core = 0;
  for (const json &c : array_of(term, "per_component"))
    if ((at(c, "core").is_string() ? c["core"].get<std::string>() : std::string("chip")) == core) ++components_of_core;
  for (const json &e : array_of(term, "evidence"))
    if (e.is_object() && evidence_matches(e, text(term, "term"), core, component, components_of_core) &&
        (number_of(e, "per_block", 0) > 0 || number_of(e, "transfer_bytes", 0) > 0))
      return true;
  return false;
}

/// The pipe's short name as msprof and MindStudio show it.
std::string pipe_name(const std::string &component) {
  static const std::map<std::string, std::string> kNames = {
      {"scalar", "S (scalar)"}, {"vector", "V (vector)"}, {"cube", "M (cube)"},   {"mte1", "MTE1"},
      {"mte2", "MTE2"},         {"mte3", "MTE3"},         {"fixpipe", "FIX (fixpipe)"}, {"hbm", "HBM (chip memory)"}};
  auto it = kNames.find(component);
  return it == kNames.end() ? component : it->second;
}

int pipe_tid(const std::string &component) {
  static const std::vector<std::string> kOrder = {"scalar", "vector", "cube", "mte1", "mte2", "mte3", "fixpipe", "hbm"};
  auto it = std::find(kOrder.begin(), kOrder.end(), component);
  return it == kOrder.end() ? 20 + static_cast<int>(std::hash<std::string>{}(component) % 50) : 1 + static_cast<int>(it - kOrder.begin());
}

int core_pid(const std::string &core) { return core == "aic" ? 1 : core == "aiv" ? 2 : 3; }

/// Splits the floor term's time on a track into a representative block's
/// itemised lines and the remaining waves.
void floor_slices(TraceTrack &track, const json &term, double waves) {
  // Each itemised line's weight: its per-block quantity; where the term
  // gives none (work that depends on the block index), its transfer size.
  std::vector<std::pair<const json *, double>> items;
  size_t components_of_core = 0;
  for (const json &c : array_of(term, "per_component"))
    if ((at(c, "core").is_string() ? c["core"].get<std::string>() : std::string("chip")) == track.core) ++components_of_core;
  double quantity = 0;
  for (const json &e : array_of(term, "evidence")) {
    if (!e.is_object() || !evidence_matches(e, track.floor_term, track.core, track.component, components_of_core)) continue;
    double weight = number_of(e, "per_block", 0);
    if (!(weight > 0)) weight = number_of(e, "transfer_bytes", 0);
    if (!(weight > 0)) continue;
    items.emplace_back(&e, weight);
    quantity += weight;
  }
  const double block = track.floor / std::max(1.0, waves);
  if (items.empty() || !(quantity > 0)) {
    TraceSlice s{track.floor_term + " (no per-line evidence)", track.floor, json::object()};
    s.args = {{"term", track.floor_term}, {"quantity", "the term's whole time on this component over the busiest slot"},
              {"waves", waves}};
    track.slices.push_back(std::move(s));
    return;
  }
  for (const auto &[e, weight] : items) {
    TraceSlice s;
    const std::string op = text(*e, "op");
    const std::string line = at(*e, "line").is_number() ? std::to_string((*e)["line"].get<int64_t>()) : "?";
    s.name = (op.empty() ? text(*e, "path") : op) + " @" + line;
    s.seconds = block * weight / quantity;
    s.args = {{"term", track.floor_term},
              {"file", text(*e, "file")},
              {"line", at(*e, "line")},
              {"op", op.empty() ? json(text(*e, "path")) : json(op)},
              {"per_block", at(*e, "per_block")},
              {"quantity", weight},
              {"quantity_of", number_of(*e, "per_block", 0) > 0 ? "per_block" : "transfer_bytes (the per-block amount depends on the block index)"},
              {"what", e->contains("what") ? (*e)["what"] : json(track.core + "." + track.component)},
              {"time_basis", "one block's share of the busiest slot's time, split over the itemised lines in proportion "
                             "to their quantity"}};
    track.slices.push_back(std::move(s));
  }
  if (waves > 1) {
    TraceSlice rest;
    rest.name = "waves 2-" + std::to_string(static_cast<int64_t>(waves)) + " (same work per block)";
    rest.seconds = track.floor - block;
    rest.args = {{"term", track.floor_term}, {"waves", waves}, {"blocks_after_the_first", waves - 1}};
    track.slices.push_back(std::move(rest));
  }
}

}  // namespace

BoundSchedule bound_schedule(const json &report) {
  BoundSchedule out;
  static const json kNone;
  const json &bound = report.is_object() && report.contains("bound") ? report["bound"] : kNone;
  out.tier = text(bound, "tier");
  if (out.tier.empty()) return out;
  std::map<std::pair<std::string, std::string>, TraceTrack> tracks;
  std::map<std::pair<std::string, std::string>, const json *> floor_terms;
  std::vector<std::tuple<std::pair<std::string, std::string>, std::string, double, json>> additives;
  for (const json &t : array_of(report, "terms")) {
    if (text(t, "tier") != out.tier) continue;
    if (t.contains("schedule") && t["schedule"].is_object() && out.blocks == 0) {
      const json &s = t["schedule"];
      out.waves = std::max(1.0, number_of(s, "waves", 1.0));
      out.blocks = number_of(s, "blocks", 0.0);
      out.slots = number_of(s, "slots", 0.0);
      out.slot_kind = text(s, "slot_kind");
    }
    const bool additive = text(t, "role") == "additive";
    for (const json &c : array_of(t, "per_component")) {
      if (text(c, "assurance") == "diagnostic") {
        // Diagnostic components never enter a limit, but their handoff edges are drawn.
        if (c.contains("work"))
          for (const json &e : array_of(c["work"], "edges")) out.edges.push_back(e);
        continue;
      }
      double v = seconds_of(at(c, "value"));
      if (!std::isfinite(v)) continue;
      if (!c.is_object()) continue;
      std::pair<std::string, std::string> key{c.contains("core") && c["core"].is_string() ? c["core"].get<std::string>() : "chip",
                                              text(c, "component")};
      TraceTrack &track = tracks[key];
      track.core = key.first;
      track.component = key.second;
      if (additive) {
        additives.emplace_back(key, text(t, "term"), v, c.contains("work") ? c["work"] : json::object());
        track.additive += v;
        if (c.contains("work") && c["work"].is_object() && c["work"].contains("lines"))
          out.barriers.push_back({{"core", key.first}, {"component", key.second}, {"lines", c["work"]["lines"]}});
      } else if (v > track.floor * (1 + 1e-12) || track.floor_term.empty() ||
                 (v >= track.floor * (1 - 1e-12) && !has_evidence(*floor_terms[key], key.first, key.second) &&
                  has_evidence(t, key.first, key.second))) {
        // Of two terms with the same time on a track, the one that itemises
        // its IR lines draws it (grid_floor and component_floor often tie).
        track.floor = v;
        track.floor_term = text(t, "term");
        floor_terms[key] = &t;
      }
    }
  }
  for (auto &[key, track] : tracks) {
    if (floor_terms.count(key) && track.floor > 0) floor_slices(track, *floor_terms[key], out.waves);
    for (const auto &[akey, name, v, work] : additives) {
      if (akey != key || !(v > 0)) continue;
      TraceSlice s{name + " (added idle time, all waves)", v, json::object()};
      s.args = {{"term", name}, {"quantity", work}};
      track.slices.push_back(std::move(s));
    }
    out.tracks.push_back(std::move(track));
  }
  std::stable_sort(out.tracks.begin(), out.tracks.end(),
                   [](const TraceTrack &a, const TraceTrack &b) { return a.total() > b.total(); });
  return out;
}

namespace {

/// The critical_path term's chain of one block (docs/model.md §3.6), per
/// core, as its own track ("critical path", thread 90 of the core's
/// process): one slice per op on the chain in time order, each joined to
/// the next by a flow arrow, so the waits the chain is made of read left to
/// right. Nothing without the term.
void critical_path_events(const json &report, json &events, int &flow_id) {
  if (!report.is_object() || !report.contains("terms") || !report["terms"].is_array()) return;
  for (const json &term : report["terms"]) {
    if (text(term, "term") != "critical_path") continue;
    for (const json &cv : array_of(term, "per_component")) {
      const json &path = at(at(cv, "work"), "path");
      if (!path.is_array() || path.empty()) continue;
      const std::string core = text(cv, "core");
      const int pid = core_pid(core), tid = 90;
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", "critical path (one block)"}}}});
      events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
      double ts = 0;
      bool first = true;
      for (const json &step : path) {
        double dur = number_of(step, "seconds_per_block", 0) * 1e6;
        std::string name = text(step, "op") + " (line " + std::to_string(static_cast<int64_t>(number_of(step, "line", 0))) + ", " +
                           text(step, "pipe") + ")";
        json args = {{"line", at(step, "line")}, {"pipe", at(step, "pipe")}, {"term", "critical_path"}};
        if (!first)
          events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "chain"}, {"cat", "critical_path"}, {"id", flow_id},
                            {"pid", pid}, {"tid", tid}, {"ts", ts}});
        events.push_back({{"ph", "X"}, {"name", name}, {"cat", "critical_path"}, {"pid", pid}, {"tid", tid}, {"ts", ts},
                          {"dur", dur}, {"args", args}});
        ts += dur;
        if (&step != &path.back()) {
          ++flow_id;
          events.push_back({{"ph", "s"}, {"name", "chain"}, {"cat", "critical_path"}, {"id", flow_id}, {"pid", pid},
                            {"tid", tid}, {"ts", ts}});
        }
        first = false;
      }
      ++flow_id;
    }
  }
}

}  // namespace

json render_trace(const json &report) {
  BoundSchedule schedule;
  try {
    schedule = bound_schedule(report);
  } catch (const std::exception &e) {  // a document outside the schema: no schedule, and why
    return {{"traceEvents", json::array()}, {"displayTimeUnit", "ns"},
            {"metadata", {{"reason", std::string("the report could not be read as a schedule: ") + e.what()}}}};
  }
  json events = json::array();
  const std::string kernel = report.is_object() && report.contains("kernel") ? text(report["kernel"], "name") : "";
  const double bound =
      report.is_object() && report.contains("bound") && report["bound"].is_object() && report["bound"].contains("value")
          ? seconds_of(report["bound"]["value"])
          : std::nan("");
  std::map<std::string, bool> named_process;
  std::map<std::string, std::pair<double, double>> block_span;  // "core.component" -> [start of block 1, end of block 1] (us)
  std::map<std::string, double> total_us;                        // "core.component" -> the track's total (us)
  for (const TraceTrack &track : schedule.tracks) {
    const int pid = core_pid(track.core);
    const int tid = pipe_tid(track.component);
    if (!named_process[track.core]) {
      named_process[track.core] = true;
      std::string pname = track.core == "aic" ? "AIC (cube core)" : track.core == "aiv" ? "AIV (vector core)" : "chip";
      events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", pname}}}});
      events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
      events.push_back({{"ph", "M"},
                        {"name", "process_labels"},
                        {"pid", pid},
                        {"tid", 0},
                        {"args",
                         {{"labels", "busiest slot of " + std::to_string(static_cast<int64_t>(schedule.slots)) + " " +
                                         schedule.slot_kind + " slots: " + std::to_string(static_cast<int64_t>(schedule.waves)) +
                                         " waves of " + std::to_string(static_cast<int64_t>(schedule.blocks)) + " blocks"}}}});
    }
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", pipe_name(track.component)}}}});
    events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
    double ts = 0;  // microseconds
    block_span[track.core + "." + track.component] = {0.0, track.floor / std::max(1.0, schedule.waves) * 1e6};
    total_us[track.core + "." + track.component] = track.total() * 1e6;
    for (const TraceSlice &s : track.slices) {
      double dur = s.seconds * 1e6;
      json args = s.args;
      args["track_total_us"] = track.total() * 1e6;
      events.push_back({{"ph", "X"}, {"name", s.name}, {"cat", track.floor_term}, {"pid", pid}, {"tid", tid}, {"ts", ts}, {"dur", dur}, {"args", args}});
      ts += dur;
    }
  }
  // Cross-core handoffs: from the end of the producer's first block to the
  // consumer's first block (the consumer waits for the producer's flag).
  int flow_id = 1;
  for (const json &e : schedule.edges) {
    auto p = block_span.find(text(e, "producer"));
    auto c = block_span.find(text(e, "consumer"));
    if (p == block_span.end() || c == block_span.end()) continue;
    auto split = [](const std::string &what) {
      size_t dot = what.find('.');
      return std::make_pair(what.substr(0, dot), dot == std::string::npos ? std::string() : what.substr(dot + 1));
    };
    auto [pcore, pcomp] = split(text(e, "producer"));
    auto [ccore, ccomp] = split(text(e, "consumer"));
    // The flow runs forward in time: from the end of the producer's first
    // block to the start of the first consumer block that begins after it
    // (the consumer waits for the producer's flag), never before.
    const double start = std::max(p->second.first, p->second.second * 0.999);
    const double consumer_block = c->second.second - c->second.first;
    const double consumer_total = total_us.count(text(e, "consumer")) ? total_us.at(text(e, "consumer")) : c->second.second;
    double end = consumer_block > 0 ? std::ceil(start / consumer_block) * consumer_block : start;
    std::string placed = "the start of the first consumer block after the producer's first block ends";
    if (end >= consumer_total) {
      end = start;
      placed = "the consumer's busy time on this slot ends before the producer's first block does: drawn at the same instant";
    }
    end = std::max(end, start);
    json args = {{"producer", at(e, "producer")}, {"consumer", at(e, "consumer")}, {"lines", array_of(e, "lines")},
                 {"per_block", number_of(e, "multiplicity_per_block", std::nan(""))}, {"arrives_at", placed}};
    events.push_back({{"ph", "s"}, {"name", "handoff"}, {"cat", "sync"}, {"id", flow_id}, {"pid", core_pid(pcore)},
                      {"tid", pipe_tid(pcomp)}, {"ts", start}, {"args", args}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "handoff"}, {"cat", "sync"}, {"id", flow_id}, {"pid", core_pid(ccore)},
                      {"tid", pipe_tid(ccomp)}, {"ts", end}, {"args", args}});
    ++flow_id;
  }
  critical_path_events(report, events, flow_id);
  // One instant per barrier line, spread over the representative block in
  // line order (the bound does not place them in time; the order is the IR's).
  for (const json &b : schedule.barriers) {
    auto span = block_span.find(text(b, "core") + "." + text(b, "component"));
    if (span == block_span.end()) continue;
    std::vector<json> lines;
    if (at(b, "lines").is_array())
      for (const json &l : b["lines"]) lines.push_back(l);
    if (lines.empty()) lines.push_back(json(nullptr));
    const double block = span->second.second - span->second.first;
    for (size_t k = 0; k < lines.size(); ++k) {
      const double ts = span->second.first + block * static_cast<double>(k + 1) / static_cast<double>(lines.size() + 1);
      const std::string name = lines[k].is_number() ? "pipe_barrier @" + std::to_string(lines[k].get<int64_t>()) : "pipe_barrier";
      events.push_back({{"ph", "i"}, {"s", "t"}, {"name", name}, {"cat", "barrier"}, {"pid", core_pid(text(b, "core"))},
                        {"tid", pipe_tid(text(b, "component"))}, {"ts", ts},
                        {"args", {{"line", lines[k]}, {"placed", "in IR line order within the representative block"}}}});
    }
  }
  json meta = {{"kernel", kernel},
               {"bound_s", std::isfinite(bound) ? json(bound) : json(nullptr)},
               {"tier", schedule.tier},
               {"waves", schedule.waves},
               {"blocks", schedule.blocks},
               {"slots", schedule.slots},
               {"slot_kind", schedule.slot_kind},
               {"note", "perfbound's lower-bound schedule of the busiest slot, not a measurement: each track is one "
                        "pipe's busy time (the largest floor term plus additive terms, docs/model.md §4); the first "
                        "slices are one representative block's itemised IR lines, then the remaining waves"}};
  if (schedule.tracks.empty()) meta["reason"] = "the report has no bound, so there is no schedule to draw";
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"metadata", meta}};
}

}  // namespace pb::models
