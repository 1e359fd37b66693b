//===- render.cpp - text and Markdown views of the models' documents ------===//
#include "render.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include <perfbound/sdk/text.hpp>

#include "render_html.hpp"
#include "render_numbers.hpp"
#include "render_trace.hpp"
#include "term.hpp"

namespace pb::models {

/// A grid or an argument table written compactly: [8192, 1, 1], n_elements=16,777,216.
/// The grid's numbers carry no thousands separators: in "[2,048, 1, 1]" the
/// comma would read as one more dimension.
std::string grid_text(const pb::sdk::json &grid) {
  std::string out = "[";
  if (grid.is_array())
    for (size_t idx = 0; idx < grid.size(); ++idx)
      out += (idx ? ", " : "") + grid[idx].dump();
  return out + "]";
}

std::string args_text(const pb::sdk::json &args) {
  std::string out;
  if (args.is_object())
    for (const auto &[key, value] : args.items())
      out += (out.empty() ? "" : " ") + key + "=" + (value.is_number() ? fmt::count(value.get<double>()) : value.dump());
  return out.empty() ? "-" : out;
}

namespace {

using pb::sdk::json;

std::string seconds_text(const json &t) {
  if (t.is_object() && t.contains("value") && t["value"].is_number()) return fmt::seconds(t["value"].get<double>());
  if (t.is_object() && t.contains("reason") && t["reason"].is_string()) return "unknown (" + t["reason"].get<std::string>() + ")";
  return "unknown";
}

std::string str(const json &obj, const char *key, const std::string &fallback = "-") {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return fallback;
  return obj[key].get<std::string>();
}

/// `text` padded with spaces to `width` columns (code points).
std::string pad(const std::string &text, size_t width) {
  const size_t n = pb::sdk::text::columns(text);
  return n >= width ? text : text + std::string(width - n, ' ');
}

/// One line: the share of the binding unit's work the bound counts, and of
/// its ops ("51.0 % of the instructions on aiv (136,629 of 267,701 per
/// block); ops 206 of 234"), with the report's warning when there is one.
std::string coverage_headline(const json &doc) {
  const json &cov = doc.contains("coverage") ? doc["coverage"] : json();
  if (!cov.is_object() || !cov.contains("hivm") || !cov["hivm"].is_object()) return "";
  const json &hivm = cov["hivm"];
  std::string out;
  if (hivm.contains("binding") && hivm["binding"].is_object()) {
    const json &b = hivm["binding"];
    const std::string core = str(b, "core", ""), unit = str(b, "unit", "");
    const std::string what = unit == "B" ? "bytes" : unit == "instruction" ? "issued instructions" : unit == "repeat" ? "vector repeats" : unit;
    // The lower of the two shares leads: it is the one the warning speaks
    // of (ops not counted because they may not run add no work to either
    // side of the work share, which then reads 100 %).
    const bool ops_lower = b.contains("share") && b["share"].is_number() && b.contains("work_share") &&
                           b["work_share"].is_number() && b["share"].get<double>() < b["work_share"].get<double>();
    if (ops_lower)
      out = fmt::percent(b["share"].get<double>()) + " of the binding unit's ops" + (core.empty() ? "" : " on " + core) +
            " counted (" + fmt::count(b.value("ops_counted", 0)) + " of " + fmt::count(b.value("ops_present", 0)) + "); its " +
            what + " " + fmt::count(b.value("work_counted_per_block", 0.0)) + " of " +
            fmt::count(b.value("work_present_per_block", 0.0)) + " per block";
    else if (b.contains("work_share") && b["work_share"].is_number())
      out = fmt::percent(b["work_share"].get<double>()) + " of the binding unit's " + what + (core.empty() ? "" : " on " + core) +
            " counted (" + fmt::count(b.value("work_counted_per_block", 0.0)) + " of " +
            fmt::count(b.value("work_present_per_block", 0.0)) + " per block); its ops " +
            fmt::count(b.value("ops_counted", 0)) + " of " + fmt::count(b.value("ops_present", 0));
    else
      out = fmt::percent(b.value("share", 1.0)) + " of the binding unit's ops counted (" + fmt::count(b.value("ops_counted", 0)) +
            " of " + fmt::count(b.value("ops_present", 0)) + ")";
    out += "; the kernel's ops " + fmt::count(hivm.value("ops_counted", 0)) + " of " + fmt::count(hivm.value("ops_present", 0));
  } else {
    out = fmt::percent(hivm.value("share", 1.0)) + " of the kernel's ops counted (" + fmt::count(hivm.value("ops_counted", 0)) +
          " of " + fmt::count(hivm.value("ops_present", 0)) + ")";
  }
  return out;
}

std::string where_text(const json &limit) {
  std::string core = str(limit, "binding_core", "");
  return str(limit, "binding_term") + " on " + (core.empty() ? "" : core + " ") + str(limit, "binding_component");
}

std::string limit_line(const json &limit) {
  if (!limit.is_object() || !(limit.contains("value") && limit["value"].is_number())) return seconds_text(limit);
  std::string out = seconds_text(limit) + " (" + where_text(limit) + ", " + str(limit, "assurance");
  if (str(limit, "assurance") == "argued" || str(limit, "assurance") == "given")
    out += "; strict " + seconds_text(limit["strict"]);
  return out + ")";
}

/// "vector_add.npuir.mlir:42 (Python 01-vector-add.py:50 (x))", or the
/// Python place alone for a finding without an IR line.
std::string source_text(const json &source) {
  if (!source.is_object()) return "";
  const bool python = source.contains("python") && source["python"].is_string() && !source["python"].get<std::string>().empty();
  if (!(source.contains("line") && source["line"].is_number())) return python ? "Python " + source["python"].get<std::string>() : "";
  std::string file = str(source, "file", "");
  const size_t slash = file.find_last_of('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  std::string out = file + ":" + std::to_string(source["line"].get<int>());
  if (python) out += " (Python " + source["python"].get<std::string>() + ")";
  return out;
}

std::string gain_text(const json &gain) {
  if (gain.is_object() && (gain.contains("value") && gain["value"].is_number())) return "~" + human_seconds(gain["value"].get<double>());
  return "gain unknown";
}

void findings_text(std::ostringstream &os, const json &findings, bool md) {
  if (!findings.is_array() || findings.empty()) {
    os << (md ? "_No findings._\n" : "  (none)\n");
    return;
  }
  if (md) {
    os << "| # | category | finding | est. gain | action | where |\n|---|---|---|---|---|---|\n";
    for (const json &f : findings)
      os << "| " << f.value("rank", 0) << " | " << str(f, "category") << " | " << str(f, "title") << " | "
         << gain_text(f["gain"]) << " | " << str(f, "action") << " | " << source_text(f["source"]) << " |\n";
    return;
  }
  for (const json &f : findings) {
    os << "  " << f.value("rank", 0) << ". [" << str(f, "category") << "] " << str(f, "title") << "\n"
       << "     gain " << gain_text(f["gain"]) << " (" << str(f["gain"], "basis", "") << ")\n"
       << "     fix: " << str(f, "action") << "\n";
    std::string where = source_text(f["source"]);
    if (!where.empty()) os << "     at " << where << "\n";
  }
}

std::string percent(double share) {
  // Floor to one decimal: 99.96 % counted is not "100 %".
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(share >= 1.0 ? 0 : 1);
  os << (share >= 1.0 ? 100.0 : std::floor(share * 1000) / 10) << " %";
  return os.str();
}

std::string fact_text(const json &f) {
  return str(f, "key", "?") + " = " + (f.contains("fact") ? f["fact"].dump() : std::string("?"));
}

/// Coverage: per core and component, ops counted against ops present, and
/// every op left out with what would count it.
void coverage_text(std::ostringstream &os, const json &doc, bool md) {
  const json &cov = doc.contains("coverage") ? doc["coverage"] : json();
  if (!cov.is_object()) return;
  const json &hivm = cov.contains("hivm") ? cov["hivm"] : json();
  if (md) os << "\n### Coverage\n\n";
  else os << "\ncoverage\n";
  if (cov.contains("warning") && cov["warning"].is_string())
    os << (md ? "**Warning:** " : "  WARNING: ") << cov["warning"].get<std::string>() << "\n" << (md ? "\n" : "");
  if (hivm.is_object() && hivm.contains("by_component")) {
    if (md) os << "| core | component | ops counted / present | of those, only with given facts | left out by rule | work counted / present per block |\n|---|---|---|---|---|---|\n";
    for (const json &r : hivm["by_component"]) {
      std::string work = (r.contains("work_present_per_block") && r["work_present_per_block"].is_number())
                             ? fmt::count(r.value("work_counted_per_block", 0.0)) + " / " +
                                   fmt::count(r["work_present_per_block"].get<double>()) + " " + str(r, "unit", "")
                             : fmt::count(r.value("work_counted_per_block", 0.0)) + " / unknown " + str(r, "unit", "");
      std::string ops = fmt::count(r.value("ops_counted", 0)) + " / " + fmt::count(r.value("ops_present", 0));
      if (md)
        os << "| " << str(r, "core") << " | " << str(r, "component") << " | " << ops << " | " << r.value("ops_given_only", 0)
           << " | " << r.value("ops_left_out_by_rule", 0) << " | " << work << " |\n";
      else
        os << "  " << str(r, "core") << " " << pad(str(r, "component"), 8) << " "
           << "ops " << ops << " (" << percent(r.value("share", 1.0)) << ")"
           << (r.value("ops_given_only", 0) > 0 ? ", " + std::to_string(r.value("ops_given_only", 0)) + " of them only with given facts" : "")
           << (r.value("ops_left_out_by_rule", 0) > 0 ? ", " + std::to_string(r.value("ops_left_out_by_rule", 0)) + " left out by rule" : "")
           << "; work per block " << work << "\n";
    }
    const json &nc = hivm.contains("not_counted") ? hivm["not_counted"] : json::array();
    int total = hivm.value("not_counted_total", 0);
    if (total > 0) {
      os << (md ? "\nNot counted (" : "  not counted (") << total << " op" << (total == 1 ? "" : "s")
         << (static_cast<int>(nc.size()) < total ? ", first " + std::to_string(nc.size()) + " listed" : "") << ")"
         << (md ? ":\n\n| line | op | core | component | reason | would count it |\n|---|---|---|---|---|---|\n" : ":\n");
      // Text lists a few; Markdown and JSON list them all.
      size_t shown = 0;
      for (const json &u : nc) {
        if (!md && ++shown > 12) {
          os << "    ... " << (total - 12) << " more (see --format md or json)\n";
          break;
        }
        std::string hint = (u.contains("hint") && u["hint"].is_string()) ? u["hint"].get<std::string>() : "";
        if (md)
          os << "| " << u.value("line", 0) << " | `" << str(u, "op") << "` | " << str(u, "core") << " | " << str(u, "component")
             << " | " << str(u, "reason") << " | " << (hint.empty() ? "-" : "`" + hint + "`") << " |\n";
        else
          os << "    line " << u.value("line", 0) << "  " << str(u, "op") << " (" << str(u, "core") << " " << str(u, "component")
             << "): " << str(u, "reason") << (hint.empty() ? "" : "; " + hint) << "\n";
      }
    } else {
      os << (md ? "\nEvery op with work is counted.\n" : "  every op with work is counted\n");
    }
  }
  if (cov.contains("dsl") && cov["dsl"].is_object()) {
    const json &unresolved = cov["dsl"]["unresolved"];
    if (unresolved.is_array() && !unresolved.empty()) {
      os << (md ? "\nTTIR facts not resolved:\n\n" : "  TTIR facts not resolved:\n");
      for (const json &u : unresolved)
        os << (md ? "- " : "    ") << str(u, "what") << ": " << str(u, "reason")
           << (u.contains("line") && u["line"].is_number() ? " (line " + std::to_string(u["line"].get<int>()) + ")" : "") << "\n";
    }
  }
  if (doc.contains("given_facts") && doc["given_facts"].is_array() && !doc["given_facts"].empty()) {
    os << (md ? "\nGiven facts (the bound holds if these hold):\n\n" : "  given facts (the bound holds if these hold):\n");
    for (const json &f : doc["given_facts"]) os << (md ? "- `" : "    ") << fact_text(f) << (md ? "`" : "") << "\n";
  }
}

/// Everything the terms and limits did not count, in one list.
void not_counted_text(std::ostringstream &os, const json &doc, bool md) {
  std::vector<std::string> lines;
  for (const json &t : doc["terms"])
    if (t.contains("not_counted") && t["not_counted"].is_array())
      for (const json &n : t["not_counted"]) {
        std::string line = str(t, "tier") + " " + str(t, "term") + ": " + str(n, "what") + " (" + str(n, "reason") + ")";
        if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
      }
  if (lines.empty()) return;
  os << (md ? "\n### Not counted by the terms\n\n" : "\nnot counted by the terms\n");
  for (const std::string &l : lines) os << (md ? "- " : "  ") << l << "\n";
}

std::string report(const json &doc, bool md) {
  std::ostringstream os;
  const json &bound = doc["bound"];
  const json &limits = doc["limits"];
  const json &verdict = doc["verdict"];
  std::string kernel = str(doc["kernel"], "name");
  std::string profile = str(doc["profile"], "name");
  // A verdict without a unit (no class, or a component no unit runs) says nothing of one.
  const std::string verdict_unit = str(verdict, "unit", "");
  std::string verdict_text = str(verdict, "class", "no verdict") + (verdict_unit.empty() ? "" : ", unit " + verdict_unit);
  std::string bound_where = (bound.contains("value") && bound["value"].is_number())
                                ? str(bound, "tier") + " tier, " + str(bound, "binding_term") + " on " +
                                      ((bound.contains("binding_core") && bound["binding_core"].is_string()) ? bound["binding_core"].get<std::string>() + " " : "") +
                                      str(bound, "binding_component") + ", " + str(bound, "assurance")
                                : "";
  if ((bound.contains("value") && bound["value"].is_number()) && (str(bound, "assurance") == "argued" || str(bound, "assurance") == "given"))
    bound_where += (str(bound, "assurance") == "argued" && bound.contains("given") && bound["given"].is_object()
                        ? "; given " + seconds_text(bound["given"])
                        : std::string()) +
                   "; strict " + seconds_text(bound["strict"]);
  if (md) {
    os << "## perfbound: `" << kernel << "` on " << profile << "\n\n";
    os << "| | |\n|---|---|\n";
    os << "| **bound** | **" << seconds_text(bound) << "** (" << bound_where << ") |\n";
    os << "| verdict | " << verdict_text << " — " << str(verdict, "why", "") << " |\n";
    os << "| T_bound_DSL | " << limit_line(limits["dsl"]) << " |\n";
    os << "| T_bound_HIVM | " << limit_line(limits["hivm"]) << " |\n";
    os << "| invariant | " << str(limits["invariant"], "message", "") << " |\n";
    if (doc.contains("measurement")) os << "| measured | " << seconds_text(doc["measurement"]) << " |\n";
    os << "\n### Terms\n\n| tier | term | role | value | component | assurance | strict value |\n|---|---|---|---|---|---|---|\n";
    for (const json &t : doc["terms"])
      os << "| " << str(t, "tier") << " | " << str(t, "term") << " | " << str(t, "role") << " | " << seconds_text(t["value"])
         << " | " << ((t.contains("core") && t["core"].is_string()) ? t["core"].get<std::string>() + " " : "") << str(t, "component") << " | "
         << str(t, "assurance", t.value("sound", false) ? "strict" : "diagnostic") << " | "
         << (t.contains("strict_value") ? seconds_text(t["strict_value"]) : "-") << " |\n";
    os << "\n### Attribution\n\n";
    const json &a = doc["attribution"];
    os << "Reference: " << seconds_text(a["reference"]) << "; gap " << seconds_text(a["gap"]) << ". " << str(a, "note", "")
       << "\n\n| gap | estimate | meaning | basis |\n|---|---|---|---|\n";
    if (a.contains("gaps"))
      for (const auto &[name, g] : a["gaps"].items())
        os << "| " << name << " | " << seconds_text(g) << " | " << str(g, "meaning") << " | " << str(g, "basis") << " |\n";
    if (a.contains("latency")) os << "\nLatency: " << str(a["latency"], "sentence") << ".\n";
    coverage_text(os, doc, true);
    not_counted_text(os, doc, true);
    os << "\n### Findings\n\n";
    findings_text(os, doc["findings"], true);
    return os.str();
  }
  os << "perfbound: " << kernel << " on " << profile << "\n\n";
  os << "  bound         " << seconds_text(bound) << (bound_where.empty() ? "" : ", " + bound_where) << "\n";
  os << "  verdict       " << verdict_text << ": " << str(verdict, "why", "") << "\n";
  os << "  T_bound_DSL   " << limit_line(limits["dsl"]) << "\n";
  os << "  T_bound_HIVM  " << limit_line(limits["hivm"]) << "\n";
  os << "  invariant     " << str(limits["invariant"], "message", "") << "\n";
  if (doc.contains("measurement")) os << "  measured      " << seconds_text(doc["measurement"]) << "\n";
  if (std::string headline = coverage_headline(doc); !headline.empty()) os << "  coverage      " << headline << "\n";
  os << "\nterms\n";
  os << "  tier  term              role      value       on             assurance\n";
  for (const json &t : doc["terms"]) {
    std::string comp = ((t.contains("core") && t["core"].is_string()) ? t["core"].get<std::string>() + " " : "") + str(t, "component", "");
    if (comp.empty()) comp = "(none)";
    os << "  " << pad(str(t, "tier"), 4) << "  " << pad(str(t, "term"), 16) << "  " << pad(str(t, "role"), 8) << "  "
       << pad(seconds_text(t["value"]), 10) << "  " << pad(comp, 13) << "  "
       << str(t, "assurance", t.value("sound", false) ? "strict" : "diagnostic") << "\n";
  }
  const json &a = doc["attribution"];
  const bool measured = a.contains("reference") && a["reference"].is_object() && a["reference"].contains("value") &&
                        a["reference"]["value"].is_number();
  const std::string note = str(a, "note", "");
  if (measured && note.find("UNSOUND") != std::string::npos)
    os << "\nattribution: " << note << " (the bound is above the measured " << seconds_text(a["reference"])
       << "); each gap below is the time one fix would save (separate what-ifs)\n";
  else
    os << "\nattribution: "
       << (measured ? "the gap of " + seconds_text(a["gap"]) + " between the bound and the measured " + seconds_text(a["reference"])
                    : std::string("no measurement given (--set bound.measured_us=T), so the gap is unknown"))
       << "; each gap below is the time one fix would save (separate what-ifs)\n";
  if (a.contains("gaps"))
    for (const auto &[name, g] : a["gaps"].items())
      os << "  " << pad(name, 5) << "  " << pad(seconds_text(g), 10) << "  " << str(g, "meaning") << "\n";
  if (a.contains("latency")) os << "  latency: " << str(a["latency"], "sentence") << "\n";
  coverage_text(os, doc, false);
  not_counted_text(os, doc, false);
  os << "\nfindings\n";
  findings_text(os, doc["findings"], false);
  return os.str();
}

std::string term(const json &doc, bool md) {
  std::ostringstream os;
  std::string comp = ((doc.contains("core") && doc["core"].is_string()) ? doc["core"].get<std::string>() + " " : "") + str(doc, "component");
  if (md) {
    os << "**" << str(doc, "term") << "** (" << str(doc, "tier") << ", " << str(doc, "role") << "): "
       << seconds_text(doc["value"]) << " on " << comp << ", " << str(doc, "assurance", "") << "\n\n";
    os << "| component | value | assurance |\n|---|---|---|\n";
    for (const json &c : doc["per_component"])
      os << "| " << ((c.contains("core") && c["core"].is_string()) ? c["core"].get<std::string>() + " " : "") << str(c, "component") << " | "
         << seconds_text(c["value"]) << " | " << str(c, "assurance", "") << " |\n";
    return os.str();
  }
  os << str(doc, "term") << " (" << str(doc, "tier") << ", " << str(doc, "role") << "): " << seconds_text(doc["value"])
     << " on " << comp << ", " << str(doc, "assurance", "") << "\n";
  for (const json &c : doc["per_component"])
    os << "  " << ((c.contains("core") && c["core"].is_string()) ? c["core"].get<std::string>() + " " : "") << str(c, "component") << "  "
       << seconds_text(c["value"]) << "  " << str(c, "assurance", "") << "\n";
  for (const json &n : doc["not_counted"]) os << "  not counted: " << str(n, "what") << ": " << str(n, "reason") << "\n";
  return os.str();
}

std::string sweep(const json &doc, bool md) {
  std::ostringstream os;
  const json &configs = doc["configs"];
  const json &problems = doc.contains("problems") && doc["problems"].is_array() ? doc["problems"] : json::array();
  // The CLI lists only the configurations a view shows (a sampled million
  // would not fit in memory as one document): the count is the summary's.
  const double total = doc.contains("summary") && doc["summary"].is_object() && doc["summary"].value("evaluated", json()).is_number()
                           ? doc["summary"]["evaluated"].get<double>()
                           : static_cast<double>(configs.size());
  os << (md ? "### Sweep: " : "sweep: ") << str(doc, "kernel") << ", " << fmt::count(total)
     << " configurations of " << fmt::count(static_cast<double>(std::max<size_t>(1, problems.size()))) << " problem"
     << (problems.size() == 1 ? "" : "s");
  // The best of one problem is a choice to make; a best across problems of
  // different sizes says nothing (the smallest problem's), so each problem
  // gets its own.
  if (problems.size() <= 1) {
    os << "; best " << seconds_text(doc["best"]["bound"]) << "\n";
  } else {
    os << "; the best of each problem:\n";
    size_t listed = 0;
    for (const json &p : problems) {
      if (listed++ == kSweepTextRows) {
        os << "  ... " << fmt::count(static_cast<double>(problems.size() - kSweepTextRows)) << " more problems\n";
        break;
      }
      os << "  problem " << p.value("index", 0) << " (" << args_text(p.value("args", json::object())) << "): config "
         << p.value("best", 0) << ", " << seconds_text(p["bound"]) << "\n";
    }
  }
  if (doc.contains("tuning") && doc["tuning"].is_array())
    os << (md ? "\n" : "") << "tuning parameters: the grid" << [&] {
      std::string t;
      for (const json &name : doc["tuning"]) t += ", " + name.get<std::string>();
      return t;
    }() << "; configurations are compared within one problem (the other arguments)\n";
  os << "\n";
  if (md) os << "| # | problem | grid | args | bound | binding | pruned by | warning |\n|---|---|---|---|---|---|---|---|\n";
  else os << "  #     problem  grid                  bound       binding             pruned by\n";
  size_t shown = 0;
  for (const json &c : configs) {
    if (shown == kSweepTextRows) break;
    ++shown;
    std::string pruned = c.contains("pruned_by") && c["pruned_by"].is_string() ? c["pruned_by"].get<std::string>() : "-";
    std::string warning = c.contains("warning") && c["warning"].is_string() ? c["warning"].get<std::string>() : "";
    if (md) {
      os << "| " << c.value("index", 0) << " | " << c.value("problem", 0) << " | " << grid_text(c["grid"]) << " | "
         << args_text(c["args"]) << " | " << seconds_text(c["bound"]) << " | " << str(c, "binding") << " | " << pruned << " | "
         << (warning.empty() ? "-" : warning) << " |\n";
    } else {
      os << "  " << pad(std::to_string(c.value("index", 0)), 5) << " " << pad(std::to_string(c.value("problem", 0)), 8) << " "
         << pad(grid_text(c["grid"]), 21) << " " << pad(seconds_text(c["bound"]), 10) << "  " << pad(str(c, "binding"), 18) << "  "
         << pruned << "\n";
      os << "        args " << args_text(c["args"]) << "\n";
      if (!warning.empty()) os << "        WARNING: " << warning << "\n";
    }
  }
  if (total > static_cast<double>(shown))
    os << (md ? "\n" : "") << "  ... " << fmt::count(total - static_cast<double>(shown)) << " more (--format json lists them all)\n";
  return os.str();
}

}  // namespace

std::optional<std::string> render_text(std::string_view schema, const pb::sdk::json &doc, bool md);

std::optional<std::string> render_document(std::string_view schema, const pb::sdk::json &doc, std::string_view format) {
  if (format != "text" && format != "md") return std::nullopt;
  std::optional<std::string> out = render_text(schema, doc, format == "md");
  // Text fits 100 columns, wrapped (Markdown tables are left whole).
  if (out && format == "text") return pb::sdk::text::wrap_lines(*out);
  return out;
}

std::optional<std::string> render_text(std::string_view schema, const pb::sdk::json &doc, bool md) {
  if (schema == kReportSchema) return report(doc, md);
  if (schema == kTermSchema) return term(doc, md);
  if (schema == kFindingsSchema) {
    std::ostringstream os;
    if (doc.value("in_report", false)) {
      const size_t n = doc.contains("findings") && doc["findings"].is_array() ? doc["findings"].size() : 0;
      os << (md ? "" : "  ") << n << " finding" << (n == 1 ? "" : "s") << " for " << str(doc, "kernel")
         << ", listed with the bound report (the same list; --out writes it as findings.json)\n";
      return os.str();
    }
    os << (md ? "### Findings: " : "findings: ") << str(doc, "kernel") << "\n\n";
    findings_text(os, doc["findings"], md);
    return os.str();
  }
  if (schema == kSweepSchema) return sweep(doc, md);
  return std::nullopt;
}

std::optional<std::string> render_document(std::string_view schema, const pb::sdk::json &doc, std::string_view format,
                                           const pb::sdk::json *profile) {
  if (format == "html") return render_html(schema, doc, profile);
  if (format == "trace") return schema == kReportSchema ? std::optional<std::string>(render_trace(doc).dump(1) + "\n") : std::nullopt;
  return render_document(schema, doc, format);
}

}  // namespace pb::models
