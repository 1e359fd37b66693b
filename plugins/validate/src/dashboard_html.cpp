//===- dashboard_html.cpp - the corpus validation as one HTML page --------===//
#include "dashboard_html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include <perfbound/sdk/html.hpp>

namespace perfbound::validate {

namespace {

using pb::sdk::json;
namespace h = pb::sdk::html;

double at(const json &doc, std::initializer_list<const char *> path) {
  const json *cur = &doc;
  for (const char *k : path) {
    if (!cur->is_object() || !cur->contains(k)) return std::nan("");
    cur = &(*cur)[k];
  }
  if (cur->is_number()) return cur->get<double>();
  if (cur->is_object() && cur->contains("value") && (*cur)["value"].is_number()) return (*cur)["value"].get<double>();
  return std::nan("");
}

std::string text_at(const json &doc, std::initializer_list<const char *> path, const std::string &fallback = "-") {
  const json *cur = &doc;
  for (const char *k : path) {
    if (!cur->is_object() || !cur->contains(k)) return fallback;
    cur = &(*cur)[k];
  }
  return cur->is_string() ? cur->get<std::string>() : fallback;
}

std::string time_cell(double v) {
  if (!std::isfinite(v)) return "<td class=\"num\" data-v=\"\"><span class=\"muted\">-</span></td>";
  std::ostringstream os;
  os << "<td class=\"num\" data-v=\"" << h::exact(v) << "\">" << h::escape(h::seconds(v)) << "</td>";
  return os.str();
}

/// The validation's headline coverage ("51 % of work on the binding unit;
/// the kernel's ops 87 %"), the figure the report and the text table give;
/// empty when the validation has none (written before it existed).
std::string headline_coverage_text(const json &bound) {
  if (!bound.is_object() || !bound.contains("coverage") || !bound["coverage"].is_object()) return {};
  const json &cov = bound["coverage"];
  if (!(cov.contains("headline_share") && cov["headline_share"].is_number())) return {};
  auto pct = [](double share) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%d %%", static_cast<int>(std::floor(share * 100)));
    return std::string(buf);
  };
  std::string out = pct(cov["headline_share"].get<double>()) + " of " + cov.value("headline_of", std::string("the kernel's ops"));
  if (cov.value("headline_of", std::string()) != "the kernel's ops" && cov.contains("share") && cov["share"].is_number())
    out += "; the kernel's ops " + pct(cov["share"].get<double>());
  return out;
}

/// The report's coverage as one short line: each entry's share when it has
/// one, else its counted/present figures (the member's shape may grow).
std::string coverage_text(const json &coverage) {
  if (!coverage.is_object() && !coverage.is_array()) return coverage.is_null() ? "" : coverage.dump();
  std::string out;
  for (const auto &[k, v] : coverage.items()) {
    std::string item;
    if (v.is_object() && v.contains("share") && v["share"].is_number()) {
      char buf[48];
      std::snprintf(buf, sizeof(buf), "%.0f %%", 100 * v["share"].get<double>());
      item = buf;
    } else if (v.is_object() && v.contains("counted") && v.contains("present")) {
      item = v["counted"].dump() + "/" + v["present"].dump();
    } else if (v.is_string()) {
      item = v.get<std::string>();
    } else if (!v.is_object() && !v.is_array()) {
      item = v.dump();
    } else {
      continue;
    }
    out += (out.empty() ? "" : ", ") + (coverage.is_array() ? std::string() : k + " ") + item;
  }
  return out;
}

struct Marker {
  const char *cls, *label, *color;
  double value;
};

}  // namespace

std::string render_corpus_dashboard(const json &doc, const std::map<std::string, json> &reports) {
  const json cases = doc.contains("cases") && doc["cases"].is_array() ? doc["cases"] : json::array();
  std::ostringstream os;
  os << "<section class=\"pb-card\"><h1>Corpus validation</h1><p>" << h::escape(text_at(doc, {"description"}, "")) << "</p><p class=\"muted\">"
     << cases.size() << " cases from <code>" << h::escape(text_at(doc, {"manifest"})) << "</code>; data <code>"
     << h::escape(text_at(doc, {"data_root"})) << "</code>. Rule " << h::escape(text_at(doc, {"rule", "id"}))
     << ": T_measured = median launch after the warm-up; sound iff T_bound ≤ the fastest launch; tightness = T_measured / T_bound.</p>";
  const json &s = doc.contains("summary") ? doc["summary"] : json::object();
  os << "<p><b>" << h::escape(std::to_string(s.value("pass", 0))) << " PASS</b>, <span class=\"" << (s.value("fail", 0) > 0 ? "bad" : "")
     << "\">" << s.value("fail", 0) << " FAIL</span>, " << s.value("infra_error", 0) << " INFRA_ERROR; binding unit matches msprof in "
     << at(s, {"binding", "matches"}) << " of " << at(s, {"binding", "compared"}) << " compared.</p></section>\n";

  // Chart: one row per case on a shared log time axis.
  std::vector<std::vector<Marker>> rows;
  double lo = 1e300, hi = 0;
  for (const json &c : cases) {
    const std::string name = text_at(c, {"case"}, "");
    const json *report = reports.count(name) ? &reports.at(name) : nullptr;
    std::vector<Marker> m;
    double strict = report ? at(*report, {"bound", "strict"}) : std::nan("");
    double given = report ? at(*report, {"bound", "given"}) : std::nan("");
    m.push_back({"m-strict", "strict", "#1b7f3b", strict});
    m.push_back({"m-given", "given", "#1f5fa8", given});
    m.push_back({"m-bound", "bound", "#1d2530", at(c, {"bound", "value"})});
    m.push_back({"m-min", "min", "#e07b00", at(c, {"measurement", "t_min", "value"})});
    m.push_back({"m-median", "median", "#b3261e", at(c, {"measurement", "t_measured", "value"})});
    for (const Marker &k : m)
      if (std::isfinite(k.value) && k.value > 0) lo = std::min(lo, k.value), hi = std::max(hi, k.value);
    rows.push_back(std::move(m));
  }
  if (hi > 0) {
    const double W = 1000, L = 170, R = 30, row = 26, T = 46;  // the legend at y 12, the ticks at T - 12
    const double H = T + row * static_cast<double>(rows.size()) + 16;
    h::LogScale xs(lo, hi, L, W - R);
    os << "<section class=\"pb-card\"><h2>Bounds against measurements</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pb-dashboard\" viewBox=\"0 0 "
       << W << " " << H << "\" width=\"" << W << "\" height=\"" << H << "\" role=\"img\" aria-label=\"bounds against measurements\">\n";
    for (double v : xs.decades())
      os << "<line class=\"grid\" x1=\"" << h::num(xs(v)) << "\" y1=\"" << T - 8 << "\" x2=\"" << h::num(xs(v)) << "\" y2=\"" << H - 10
         << "\"/><text x=\"" << h::num(xs(v)) << "\" y=\"" << T - 12 << "\" text-anchor=\"middle\">" << h::escape(h::seconds(v)) << "</text>";
    os << "<text x=\"" << L << "\" y=\"12\"><tspan style=\"fill:#1b7f3b\">● strict</tspan>  <tspan style=\"fill:#1f5fa8\">● given</tspan>  "
          "<tspan>● bound</tspan>  <tspan style=\"fill:#e07b00\">| measured min</tspan>  <tspan style=\"fill:#b3261e\">◆ median</tspan>"
          "  (log time axis)</text>\n";
    double y = T;
    for (size_t i = 0; i < rows.size(); ++i) {
      const json &c = cases[i];
      os << "<g class=\"case-row\" data-case=\"" << h::escape(text_at(c, {"case"}, "")) << "\"><text x=\"" << L - 8 << "\" y=\"" << h::num(y + 12)
         << "\" text-anchor=\"end\">" << h::escape(text_at(c, {"case"}, "")) << "</text>";
      double b = rows[i][2].value, med = rows[i][4].value;
      if (std::isfinite(b) && std::isfinite(med) && b > 0 && med > 0)
        os << "<line x1=\"" << h::num(xs(b)) << "\" y1=\"" << h::num(y + 8) << "\" x2=\"" << h::num(xs(med)) << "\" y2=\"" << h::num(y + 8)
           << "\" stroke=\"#c5ccd4\" stroke-width=\"4\"/>";
      for (const Marker &k : rows[i]) {
        if (!std::isfinite(k.value) || k.value <= 0) continue;
        const double cx = xs(k.value);
        os << "<g class=\"" << k.cls << "\" data-seconds=\"" << h::exact(k.value) << "\"><title>" << h::escape(std::string(k.label) + " " + h::seconds(k.value))
           << "</title>";
        if (std::string(k.cls) == "m-min")
          os << "<line x1=\"" << h::num(cx) << "\" y1=\"" << h::num(y) << "\" x2=\"" << h::num(cx) << "\" y2=\"" << h::num(y + 16) << "\" stroke=\"" << k.color
             << "\" stroke-width=\"2.5\"/>";
        else if (std::string(k.cls) == "m-median")
          os << "<path d=\"M" << h::num(cx) << " " << h::num(y + 2) << " l6 6 l-6 6 l-6 -6 z\" fill=\"" << k.color << "\"/>";
        else
          os << "<circle cx=\"" << h::num(cx) << "\" cy=\"" << h::num(y + 8) << "\" r=\"5\" fill=\"" << k.color << "\"/>";
        os << "</g>";
      }
      os << "</g>\n";
      y += row;
    }
    os << "</svg></section>\n";
  }

  os << "<section class=\"pb-card\"><h2>Cases</h2><table class=\"pb-cases pb-sortable\"><thead><tr><th>case</th><th>status</th>"
        "<th class=\"num\">bound</th><th>assurance</th><th class=\"num\">strict</th><th class=\"num\">given</th><th class=\"num\">min</th>"
        "<th class=\"num\">median</th><th class=\"num\">tightness</th><th>binding predicted / msprof</th><th>coverage</th><th>reason</th></tr></thead><tbody>\n";
  for (const json &c : cases) {
    const std::string name = text_at(c, {"case"}, "");
    const json *report = reports.count(name) ? &reports.at(name) : nullptr;
    const std::string status = text_at(c, {"status"}, "?");
    double tight = at(c, {"tightness", "value"});
    std::string match;
    if (c.contains("binding") && c["binding"].is_object() && c["binding"].contains("match") && c["binding"]["match"].is_boolean())
      match = c["binding"]["match"].get<bool>() ? " <span class=\"good\">match</span>" : " <span class=\"bad\">differ</span>";
    char tbuf[32];
    std::snprintf(tbuf, sizeof(tbuf), "%.2f×", tight);
    os << "<tr class=\"case\" data-case=\"" << h::escape(name) << "\"><td>" << h::escape(name) << "</td><td><span class=\"pill " << h::escape(status)
       << "\">" << h::escape(status) << "</span></td>" << time_cell(at(c, {"bound", "value"})) << "<td>"
       << h::escape(report ? text_at(*report, {"bound", "assurance"}) : "-") << "</td>"
       << time_cell(report ? at(*report, {"bound", "strict"}) : std::nan("")) << time_cell(report ? at(*report, {"bound", "given"}) : std::nan(""))
       << time_cell(at(c, {"measurement", "t_min", "value"})) << time_cell(at(c, {"measurement", "t_measured", "value"})) << "<td class=\"num\" data-v=\""
       << (std::isfinite(tight) ? std::to_string(tight) : "") << "\">" << (std::isfinite(tight) ? h::escape(tbuf) : "-") << "</td><td>"
       << h::escape(text_at(c, {"binding", "predicted"}) + " / " + text_at(c, {"binding", "measured"})) << match << "</td><td>"
       << h::escape(!headline_coverage_text(c.value("bound", json())).empty() ? headline_coverage_text(c["bound"])
                    : report && report->contains("coverage")                         ? coverage_text((*report)["coverage"])
                    : c.contains("bound") && c["bound"].is_object() && c["bound"].contains("coverage") ? coverage_text(c["bound"]["coverage"])
                                                                                                         : "-")
       << "</td><td class=\"muted\">"
       << (status == "PASS" ? "" : h::escape(text_at(c, {"reason"}, ""))) << "</td></tr>\n";
  }
  os << "</tbody></table></section>\n";
  return h::page("perfbound validate: " + text_at(doc, {"manifest"}, "corpus"), os.str());
}

}  // namespace perfbound::validate
