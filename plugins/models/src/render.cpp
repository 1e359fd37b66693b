//===- render.cpp - text and Markdown views of the models' documents ------===//
#include "render.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "render_html.hpp"
#include "render_trace.hpp"
#include "term.hpp"

namespace pb::models {

namespace {

using pb::sdk::json;

std::string seconds_text(const json &t) {
  if (t.is_object() && t.contains("value") && t["value"].is_number()) return human_seconds(t["value"].get<double>());
  if (t.is_object() && t.contains("reason") && t["reason"].is_string()) return "unknown (" + t["reason"].get<std::string>() + ")";
  return "unknown";
}

std::string str(const json &obj, const char *key, const std::string &fallback = "-") {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return fallback;
  return obj[key].get<std::string>();
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

std::string source_text(const json &source) {
  if (!source.is_object()) return "";
  std::string out = str(source, "file", "") + ":" + ((source.contains("line") && source["line"].is_number()) ? std::to_string(source["line"].get<int>()) : "?");
  if (source.contains("python") && source["python"].is_string()) out += " (" + source["python"].get<std::string>() + ")";
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
                             ? u::format_number(r.value("work_counted_per_block", 0.0)) + " / " +
                                   u::format_number(r["work_present_per_block"].get<double>()) + " " + str(r, "unit", "")
                             : u::format_number(r.value("work_counted_per_block", 0.0)) + " / unknown " + str(r, "unit", "");
      std::string ops = std::to_string(r.value("ops_counted", 0)) + " / " + std::to_string(r.value("ops_present", 0));
      if (md)
        os << "| " << str(r, "core") << " | " << str(r, "component") << " | " << ops << " | " << r.value("ops_given_only", 0)
           << " | " << r.value("ops_left_out_by_rule", 0) << " | " << work << " |\n";
      else
        os << "  " << str(r, "core") << " " << str(r, "component") << std::string(std::max<size_t>(1, 9 - str(r, "component").size()), ' ')
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
    bound_where += "; strict " + seconds_text(bound["strict"]);
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
  os << "  bound         " << seconds_text(bound) << (bound_where.empty() ? "" : "  (" + bound_where + ")") << "\n";
  os << "  verdict       " << verdict_text << "\n                " << str(verdict, "why", "") << "\n";
  os << "  T_bound_DSL   " << limit_line(limits["dsl"]) << "\n";
  os << "  T_bound_HIVM  " << limit_line(limits["hivm"]) << "\n";
  os << "  invariant     " << str(limits["invariant"], "message", "") << "\n";
  if (doc.contains("measurement")) os << "  measured      " << seconds_text(doc["measurement"]) << "\n";
  os << "\nterms\n";
  for (const json &t : doc["terms"]) {
    std::string comp = ((t.contains("core") && t["core"].is_string()) ? t["core"].get<std::string>() + " " : "") + str(t, "component");
    std::string tier = str(t, "tier");
    os << "  " << tier << std::string(tier.size() < 4 ? 4 - tier.size() : 0, ' ') << "  " << str(t, "term") << std::string(std::max<size_t>(1, 17 - str(t, "term").size()), ' ')
       << str(t, "role") << std::string(std::max<size_t>(1, 10 - str(t, "role").size()), ' ') << seconds_text(t["value"])
       << "  " << comp << "  " << str(t, "assurance", t.value("sound", false) ? "strict" : "diagnostic") << "\n";
  }
  const json &a = doc["attribution"];
  os << "\nattribution (reference " << seconds_text(a["reference"]) << ", gap " << seconds_text(a["gap"]) << ")\n";
  if (a.contains("gaps"))
    for (const auto &[name, g] : a["gaps"].items()) os << "  " << name << "  " << seconds_text(g) << "  " << str(g, "meaning") << "\n";
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
  os << (md ? "### Sweep: " : "sweep: ") << str(doc, "kernel") << ", " << configs.size() << " configurations; best "
     << seconds_text(doc["best"]["bound"]) << "\n\n";
  if (md) os << "| # | grid | args | bound | binding | pruned by |\n|---|---|---|---|---|---|\n";
  size_t shown = 0;
  for (const json &c : configs) {
    if (++shown > 50) {
      os << (md ? "\n" : "") << "  ... " << configs.size() - 50 << " more\n";
      break;
    }
    std::string pruned = c.contains("pruned_by") && c["pruned_by"].is_string() ? c["pruned_by"].get<std::string>() : "-";
    if (md)
      os << "| " << c.value("index", 0) << " | " << c["grid"].dump() << " | " << c["args"].dump() << " | "
         << seconds_text(c["bound"]) << " | " << str(c, "binding") << " | " << pruned << " |\n";
    else
      os << "  " << c["grid"].dump() << " " << c["args"].dump() << "  " << seconds_text(c["bound"]) << "  "
         << str(c, "binding") << "  " << pruned << "\n";
  }
  return os.str();
}

}  // namespace

std::optional<std::string> render_document(std::string_view schema, const pb::sdk::json &doc, std::string_view format) {
  if (format != "text" && format != "md") return std::nullopt;
  bool md = format == "md";
  if (schema == kReportSchema) return report(doc, md);
  if (schema == kTermSchema) return term(doc, md);
  if (schema == kFindingsSchema) {
    std::ostringstream os;
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
