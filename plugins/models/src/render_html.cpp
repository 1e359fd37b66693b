//===- render_html.cpp - the models' documents as HTML with inline SVG ----===//
#include "render_html.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <sstream>
#include <vector>

#include <perfbound/sdk/html.hpp>

#include "rates.hpp"
#include "render.hpp"
#include "render_numbers.hpp"
#include "render_trace.hpp"
#include "term.hpp"

namespace pb::models {

namespace {

using pb::sdk::json;
namespace h = pb::sdk::html;

// ---- small readers ----------------------------------------------------------

double num_of(const json &q) {
  if (q.is_number()) return q.get<double>();
  if (q.is_object() && q.contains("value") && q["value"].is_number()) return q["value"].get<double>();
  return std::nan("");
}

std::string str(const json &obj, const char *key, const std::string &fallback = "") {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return fallback;
  return obj[key].get<std::string>();
}

const json &member(const json &obj, const char *key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

/// "165.3 µs" or "unknown (reason)", escaped.
std::string time_html(const json &q) {
  double v = num_of(q);
  if (std::isfinite(v)) return h::escape(h::seconds(v));
  std::string reason = str(q, "reason");
  return "<span class=\"muted\">unknown" + (reason.empty() ? std::string() : " (" + h::escape(reason) + ")") + "</span>";
}

std::string pill(const std::string &assurance) {
  if (assurance.empty()) return "";
  return "<span class=\"pill " + h::escape(assurance) + "\">" + h::escape(assurance) + "</span>";
}

std::string scalar_html(const json &v) {
  if (v.is_string()) return h::escape(v.get<std::string>());
  if (v.is_number_float()) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.6g", v.get<double>());
    return buf;
  }
  return h::escape(v.dump());
}

/// Any JSON value as compact HTML: objects as key/value lists, arrays of
/// objects as tables (a document member we do not know is still shown).
std::string generic_html(const json &v, int depth = 0) {
  if (!v.is_object() && !v.is_array()) return scalar_html(v);
  if (depth > 3) return "<code>" + h::escape(v.dump()) + "</code>";
  std::ostringstream os;
  if (v.is_array()) {
    bool objects = !v.empty() && std::all_of(v.begin(), v.end(), [](const json &x) { return x.is_object(); });
    if (!objects) {
      os << "<ul>";
      for (const json &x : v) os << "<li>" << generic_html(x, depth + 1) << "</li>";
      os << "</ul>";
      return os.str();
    }
    std::vector<std::string> cols;
    for (const json &x : v)
      for (const auto &[k, _] : x.items())
        if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
    os << "<table><thead><tr>";
    for (const std::string &c : cols) os << "<th>" << h::escape(c) << "</th>";
    os << "</tr></thead><tbody>";
    for (const json &x : v) {
      os << "<tr>";
      for (const std::string &c : cols) os << "<td>" << (x.contains(c) ? generic_html(x[c], depth + 1) : "") << "</td>";
      os << "</tr>";
    }
    os << "</tbody></table>";
    return os.str();
  }
  os << "<div class=\"kv\">";
  for (const auto &[k, x] : v.items()) os << "<div class=\"k\">" << h::escape(k) << "</div><div>" << generic_html(x, depth + 1) << "</div>";
  os << "</div>";
  return os.str();
}

// ---- source lines -------------------------------------------------------------

/// Reads source files once per rendering; lines of a file that cannot be
/// read come back empty (the caller says so).
class SourceCache {
 public:
  const std::vector<std::string> *lines(const std::string &path) {
    auto it = files_.find(path);
    if (it != files_.end()) return it->second.empty() ? nullptr : &it->second;
    std::vector<std::string> &out = files_[path];
    std::ifstream in(path, std::ios::binary);
    std::string line;
    size_t total = 0;
    while (in && std::getline(in, line) && total < (64u << 20)) {
      total += line.size();
      out.push_back(line.size() > 400 ? line.substr(0, 400) + " ..." : line);
    }
    return out.empty() ? nullptr : &out;
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

/// The line with two lines of context on each side.
std::string source_block(SourceCache &cache, const std::string &file, int64_t line) {
  const std::vector<std::string> *lines = cache.lines(file);
  if (lines == nullptr || line < 1 || static_cast<size_t>(line) > lines->size())
    return "<p class=\"muted\">source " + h::escape(file) + ":" + std::to_string(line) + " is not readable here</p>";
  std::ostringstream os;
  os << "<pre>";
  for (int64_t l = std::max<int64_t>(1, line - 2); l <= std::min<int64_t>(static_cast<int64_t>(lines->size()), line + 2); ++l) {
    std::string text = std::to_string(l);
    text = std::string(text.size() < 6 ? 6 - text.size() : 0, ' ') + text + "  " + (*lines)[static_cast<size_t>(l - 1)];
    if (l == line) os << "<span class=\"hit\">" << h::escape(text) << "</span>\n";
    else os << h::escape(text) << "\n";
  }
  os << "</pre>";
  return os.str();
}

std::string base_name(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ---- roofline -------------------------------------------------------------------

/// One line of the roofline. A memory ceiling is a slope in FLOP/s per
/// (FLOP per byte of the kernel's HBM traffic): for HBM its bandwidth, for a
/// per-core GM path (which carries only some of those bytes) its rate times
/// total bytes / the path's bytes, so that at the kernel's intensity the line
/// stands at FLOP / (the time the path needs for its bytes): the point and
/// the ceiling count the same bytes.
struct Ceiling {
  std::string label;
  double value = 0;  // FLOP/s (compute) or B/s on the total-bytes axis (memory)
  bool memory = false;
  std::string source;
  std::string note;   // what the slope means for this kernel
  std::string brief;  // the legend's text after the label (the note in full is its tooltip)
};

/// The kernel's arithmetic and HBM traffic, from the bound's tier (else the other one).
struct KernelWork {
  double flop = 0, bytes = 0;
  std::string flop_from, bytes_from, tier;
};

KernelWork kernel_work(const json &report) {
  KernelWork w;
  const std::string tier = str(member(report, "bound"), "tier");
  for (int pass = 0; pass < 2 && (w.flop <= 0 || w.bytes <= 0); ++pass) {
    for (const json &t : report.value("terms", json::array())) {
      if ((str(t, "tier") == tier) != (pass == 0)) continue;
      if (str(t, "term") == "grid_floor" && w.flop <= 0) {
        double flop = 0;
        for (const json &c : t.value("per_component", json::array()))
          if (str(member(c, "work"), "unit") == "FLOP" && member(c["work"], "total_work").is_number())
            flop += c["work"]["total_work"].get<double>();
          else if (member(member(c, "work"), "resource").is_string() &&
                   str(c["work"], "resource").find("FLOP") != std::string::npos && member(c["work"], "total_work").is_number())
            flop += c["work"]["total_work"].get<double>();
        if (flop > 0) {
          w.flop = flop;
          w.flop_from = "grid_floor (" + str(t, "tier") + " tier): cube + vector FLOP";
        }
      }
      if (str(t, "term") == "memory" && w.bytes <= 0)
        for (const json &c : t.value("per_component", json::array()))
          if (member(member(c, "work"), "bytes").is_number() && c["work"]["bytes"].get<double>() > 0) {
            w.bytes = c["work"]["bytes"].get<double>();
            w.bytes_from = "memory (" + str(t, "tier") + " tier): HBM bytes, reads and writes";
            w.tier = str(t, "tier");
          }
    }
  }
  return w;
}

/// Bytes per GM path (aiv.mte2 = GM->UB, aiv.mte3 = UB->GM, aic.mte2 =
/// GM->L1, aic.fixpipe = L0C->GM) in `tier`, from its grid_floor.
std::map<std::string, double> path_bytes(const json &report, const std::string &tier) {
  std::map<std::string, double> out;
  for (const json &t : report.value("terms", json::array())) {
    if (str(t, "tier") != tier || str(t, "term") != "grid_floor") continue;
    for (const json &c : t.value("per_component", json::array())) {
      const json &work = member(c, "work");
      const std::string resource = str(work, "resource");
      if (resource.find("GM") == std::string::npos || !member(work, "total_work").is_number()) continue;
      out[str(c, "core") + "." + str(c, "component")] += work["total_work"].get<double>();
    }
  }
  return out;
}

std::vector<Ceiling> ceilings(const json *profile, const json &report, const KernelWork &w, std::string &note) {
  std::vector<Ceiling> out;
  if (profile == nullptr || !profile->is_object()) {
    note = "no hardware profile was available to the renderer, so no ceilings are drawn";
    return out;
  }
  try {
    Rates r = Rates::from_profile(*profile, "profile");
    auto add = [&](const std::string &label, std::optional<double> v, bool memory, const std::string &source,
                   const std::string &what = "") {
      if (v && *v > 0) out.push_back({label, *v, memory, source, what, {}});
    };
    auto q = [](const auto &rate, double times) -> std::optional<double> {
      if (!rate.known()) return std::nullopt;
      return rate.value->value() * times;
    };
    const std::string aic = std::to_string(static_cast<int64_t>(r.cores_aic));
    const std::string aiv = std::to_string(static_cast<int64_t>(r.cores_aiv));
    add("cube fp16/bf16 × " + aic + " AIC", q(r.cube("f16"), r.cores_aic), false, r.cube("f16").record.source);
    add("vector fp16 × " + aiv + " AIV", q(r.vector_flop("f16"), r.cores_aiv), false, r.vector_flop("f16").record.source);
    add("vector fp32 × " + aiv + " AIV", q(r.vector_flop("f32"), r.cores_aiv), false, r.vector_flop("f32").record.source);
    add("HBM", q(r.hbm(), 1), true, r.hbm().record.source, "reads and writes");
    // The per-core GM paths carry part of the bytes each: scaled to the
    // total so the point and the ceiling count the same bytes.
    struct Path {
      const char *key, *profile_path, *label, *cores;
    };
    static const Path kPaths[] = {{"aiv.mte2", "gm_to_ub", "GM→UB", "AIV"},
                                  {"aiv.mte3", "ub_to_gm", "UB→GM", "AIV"},
                                  {"aic.mte2", "gm_to_l1", "GM→L1", "AIC"},
                                  {"aic.fixpipe", "l0c_to_gm", "L0C→GM", "AIC"}};
    const std::map<std::string, double> bytes = w.bytes > 0 ? path_bytes(report, w.tier) : std::map<std::string, double>{};
    // A mix kernel's block moves GM bytes over its AIC's and AIV's paths at
    // once: the grid floor's chip-level components carry the block's rate.
    if (w.bytes > 0)
      for (const json &t : report.value("terms", json::array())) {
        if (str(t, "tier") != w.tier || str(t, "term") != "grid_floor") continue;
        for (const json &c : t.value("per_component", json::array())) {
          const json &work = member(c, "work");
          if (!member(c, "core").is_null() || str(work, "resource").find("GM") == std::string::npos) continue;
          const double total = num_of(member(work, "total_work")), per_slot = num_of(member(work, "i_binding")),
                       slots = num_of(member(work, "n_cores"));
          if (!(total > 0) || !(per_slot > 0) || !(slots > 0)) continue;
          const double share = total / w.bytes, rate = per_slot * slots;
          const bool read = str(c, "component") == "mte2";
          add(std::string(read ? "mix GM read" : "mix GM write") + " × " + std::to_string(static_cast<int64_t>(slots)),
              rate / share, true, "grid_floor " + str(c, "component") + " (per block slot: every core of the block at once)",
              h::si(rate) + "B/s on " + fmt::percent(std::min(1.0, share)) + " of the bytes");
          if (!out.empty() && out.back().memory) out.back().brief = h::si(rate) + "B/s, " + fmt::percent(std::min(1.0, share));
        }
      }
    for (const Path &p : kPaths) {
      auto it = bytes.find(p.key);
      if (it == bytes.end() || !(it->second > 0)) continue;
      const double cores = std::string(p.cores) == "AIC" ? r.cores_aic : r.cores_aiv;
      auto rate = q(r.path(p.profile_path), cores);
      if (!rate) continue;
      const double share = it->second / w.bytes;
      add(std::string(p.label) + " × " + std::to_string(static_cast<int64_t>(cores)) + " " + p.cores, *rate / share, true,
          r.path(p.profile_path).record.source,
          h::si(*rate) + "B/s on " + fmt::percent(std::min(1.0, share)) + " of the bytes");
      out.back().brief = h::si(*rate) + "B/s, " + fmt::percent(std::min(1.0, share)) + " of B";
    }
    note = "L2: the profile gives no L2 bandwidth, so no L2 ceiling is drawn. Instruction issue is not a FLOP rate: its "
           "floor is the scalar bar under 'Busy time per core type and component'";
  } catch (const std::exception &e) {
    note = std::string("the profile's rates could not be read: ") + e.what();
  }
  // Ceilings at the same rate are one line, one legend entry.
  std::vector<Ceiling> merged;
  for (const Ceiling &c : out) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const Ceiling &m) {
      return m.memory == c.memory && std::fabs(m.value - c.value) <= 1e-9 * c.value;
    });
    if (same == merged.end()) {
      merged.push_back(c);
    } else {
      same->label += " = " + c.label;
      same->source += "; " + c.source;
    }
  }
  return merged;
}

struct Point {
  std::string label, cls;
  double seconds;
};

/// A tick of the intensity axis in plain decimals (0.01, 0.1, 1, 10): an SI
/// prefix there ("10 m") reads as metres.
std::string decimal_tick(double v) {
  char buf[32];
  if (v >= 1) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(std::ceil(-std::log10(v) - 1e-9)), v);
  return buf;
}

/// A tick of the performance axis with its unit ("100 GFLOP/s").
std::string flops_tick(double v) {
  std::string s = h::si(v);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  const bool prefixed = !s.empty() && !std::isdigit(static_cast<unsigned char>(s.back()));
  return prefixed ? s.substr(0, s.size() - (static_cast<unsigned char>(s.back()) >= 0x80 ? 2 : 1)) + " " +
                        s.substr(s.size() - (static_cast<unsigned char>(s.back()) >= 0x80 ? 2 : 1)) + "FLOP/s"
                  : s + " FLOP/s";
}

std::string roofline_svg(const json &report, const json *profile, double measured) {
  std::string note;
  KernelWork w = kernel_work(report);
  std::vector<Ceiling> ceils = ceilings(profile, report, w, note);
  const double bound = num_of(member(member(report, "bound"), "value"));
  std::vector<Point> points;
  if (std::isfinite(bound) && bound > 0) points.push_back({"bound", "pt-bound", bound});
  const double strict = num_of(member(member(report, "bound"), "strict"));
  if (std::isfinite(strict) && strict > 0 && std::fabs(strict - bound) > 1e-15) points.push_back({"strict bound", "pt-strict", strict});
  if (std::isfinite(measured) && measured > 0) points.push_back({"measured", "pt-measured", measured});
  const bool have_point = w.flop > 0 && w.bytes > 0;
  const double ai = have_point ? w.flop / w.bytes : 0;

  // The plot on the left, the legend (every line and point, so no label
  // sits on another) on the right.
  const double W = 900, L = 92, R = 300, T = 20, B = 50;
  double xmin = 1e-2, xmax = 1e3, ymin = 1e9, ymax = 1e12;
  for (const Ceiling &c : ceils)
    if (!c.memory) ymax = std::max(ymax, c.value * 2);
  if (have_point) {
    xmin = std::min(xmin, ai / 3);
    xmax = std::max(xmax, ai * 3);
    for (const Point &p : points) ymin = std::min(ymin, w.flop / p.seconds / 3);
  }
  const double legend_rows = static_cast<double>(ceils.size() + points.size()) + 2;
  const double H = std::max(430.0, T + 24 + 17 * legend_rows + B);
  h::LogScale xs(xmin, xmax, L, W - R), ys(ymin, ymax, H - B, T);
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pb-roofline\" viewBox=\"0 0 " << W << " " << H << "\" width=\"" << W
     << "\" height=\"" << H << "\" role=\"img\" aria-label=\"roofline\">\n";
  os << "<defs><clipPath id=\"rf-clip\"><rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << (W - R - L) << "\" height=\""
     << (H - B - T) << "\"/></clipPath></defs>\n";
  // Axes with decade grid lines; the data-* attributes let a reader (and the
  // tests) map a value to its position: p = p0 + (log v - log lo) / (log hi - log lo) * (p1 - p0).
  os << "<g class=\"xaxis\" data-lo=\"" << h::exact(xs.lo) << "\" data-hi=\"" << h::exact(xs.hi) << "\" data-p0=\"" << h::exact(xs.p0) << "\" data-p1=\"" << h::exact(xs.p1) << "\">";
  for (double v : xs.decades())
    os << "<line class=\"grid\" x1=\"" << h::num(xs(v)) << "\" y1=\"" << T << "\" x2=\"" << h::num(xs(v)) << "\" y2=\"" << H - B
       << "\"/><text x=\"" << h::num(xs(v)) << "\" y=\"" << H - B + 19 << "\" text-anchor=\"middle\">" << h::escape(decimal_tick(v)) << "</text>";
  os << "</g>\n<g class=\"yaxis\" data-lo=\"" << h::exact(ys.lo) << "\" data-hi=\"" << h::exact(ys.hi) << "\" data-p0=\"" << h::exact(ys.p0) << "\" data-p1=\"" << h::exact(ys.p1) << "\">";
  for (double v : ys.decades())
    os << "<line class=\"grid\" x1=\"" << L << "\" y1=\"" << h::num(ys(v)) << "\" x2=\"" << W - R << "\" y2=\"" << h::num(ys(v))
       << "\"/><text x=\"" << L - 6 << "\" y=\"" << h::num(ys(v) + 4) << "\" text-anchor=\"end\">" << h::escape(flops_tick(v)) << "</text>";
  os << "</g>\n";
  os << "<line class=\"axis\" x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B << "\"/>";
  os << "<line class=\"axis\" x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\"/>\n";
  os << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">arithmetic intensity (FLOP per byte of HBM traffic)</text>\n";
  // Ceilings: memory lines y = AI · BW up to the highest compute ceiling
  // (the roof), compute lines y = peak from where the fastest memory line
  // meets them. Colours are classes, so the dark theme has its own.
  double roof = 0, fastest_bw = 0;
  for (const Ceiling &c : ceils) {
    if (c.memory) fastest_bw = std::max(fastest_bw, c.value);
    else roof = std::max(roof, std::min(c.value, ys.hi));
  }
  if (roof <= 0) roof = ys.hi;
  os << "<g clip-path=\"url(#rf-clip)\">";
  std::ostringstream legend;
  const double lx = W - R + 18;
  double ly = T + 10;
  legend << "<text class=\"legend-title\" x=\"" << h::num(lx) << "\" y=\"" << h::num(ly) << "\">ceilings (profile)</text>";
  ly += 17;
  size_t ci = 0;
  for (const Ceiling &c : ceils) {
    const std::string cls = "pb-c" + std::to_string(ci++ % 7);
    const std::string rate = c.memory ? h::si(c.value) + "B/s" : flops_tick(c.value);
    const std::string tip = c.label + ": " + (c.note.empty() ? rate : c.note) + " (" + c.source + ")";
    if (c.memory) {
      double x_end = std::min(xs.hi, roof / c.value);
      os << "<line class=\"ceiling memory " << cls << "\" data-bw=\"" << h::exact(c.value) << "\" stroke-width=\"1.8\" stroke-dasharray=\"6 3\" x1=\""
         << h::num(xs(xs.lo)) << "\" y1=\"" << h::num(ys(xs.lo * c.value)) << "\" x2=\"" << h::num(xs(x_end)) << "\" y2=\""
         << h::num(ys(x_end * c.value)) << "\"><title>" << h::escape(tip) << "</title></line>";
    } else {
      double x_start = fastest_bw > 0 ? std::max(xs.lo, c.value / fastest_bw) : xs.lo;
      os << "<line class=\"ceiling compute " << cls << "\" data-peak=\"" << h::exact(c.value) << "\" stroke-width=\"1.8\" x1=\""
         << h::num(xs(x_start)) << "\" y1=\"" << h::num(ys(c.value)) << "\" x2=\"" << W - R << "\" y2=\"" << h::num(ys(c.value))
         << "\"><title>" << h::escape(tip) << "</title></line>";
    }
    legend << "<line class=\"ceiling-key " << cls << "\" x1=\"" << h::num(lx) << "\" y1=\"" << h::num(ly - 4) << "\" x2=\""
           << h::num(lx + 18) << "\" y2=\"" << h::num(ly - 4) << "\" stroke-width=\"2\"" << (c.memory ? " stroke-dasharray=\"6 3\"" : "")
           << "/><text class=\"ceiling-label " << cls << "\" x=\"" << h::num(lx + 24) << "\" y=\"" << h::num(ly) << "\"><title>"
           << h::escape(tip) << "</title>" << h::escape(c.label + "  " + (!c.brief.empty() ? c.brief : rate)) << "</text>";
    ly += 17;
  }
  os << "</g>\n";
  if (have_point) {
    os << "<line class=\"ai-line\" stroke-dasharray=\"3 3\" x1=\"" << h::num(xs(ai)) << "\" y1=\"" << T << "\" x2=\""
       << h::num(xs(ai)) << "\" y2=\"" << H - B << "\"/>";
    std::sort(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.seconds < b.seconds; });
    ly += 6;
    legend << "<text class=\"legend-title\" x=\"" << h::num(lx) << "\" y=\"" << h::num(ly) << "\">the kernel at "
           << h::escape(h::si(ai)) << "FLOP/B</text>";
    ly += 17;
    for (const Point &p : points) {
      const double perf = w.flop / p.seconds;
      const std::string tip = p.label + ": " + h::seconds(p.seconds) + " → " + flops_tick(perf) + " at " + h::si(ai) + "FLOP/B";
      os << "<circle class=\"point " << p.cls << "\" data-ai=\"" << h::exact(ai) << "\" data-perf=\"" << h::exact(perf) << "\" cx=\""
         << h::num(xs(ai)) << "\" cy=\"" << h::num(ys(perf)) << "\" r=\"5.5\"><title>" << h::escape(tip) << "</title></circle>";
      legend << "<circle class=\"point-key " << p.cls << "\" cx=\"" << h::num(lx + 9) << "\" cy=\"" << h::num(ly - 4) << "\" r=\"5\"/>"
             << "<text class=\"point-label\" x=\"" << h::num(lx + 24) << "\" y=\"" << h::num(ly) << "\">"
             << h::escape(p.label + " " + h::seconds(p.seconds) + " → " + flops_tick(perf)) << "</text>";
      ly += 17;
    }
  }
  os << legend.str() << "\n</svg>\n";
  std::ostringstream cap;
  cap << "<p class=\"muted\">";
  if (have_point)
    cap << "Kernel: " << h::escape(h::si(w.flop)) << "FLOP (" << h::escape(w.flop_from) << "), " << h::escape(h::si(w.bytes)) << "B ("
        << h::escape(w.bytes_from) << "): " << h::escape(h::si(ai)) << "FLOP/B. A point's height is FLOP / time. A GM path "
        << "carries only part of those bytes, so its line is drawn at its rate over its share of them: at the kernel's "
        << "intensity every line stands at FLOP / (the time its unit needs), and the bound's point is under all of them. ";
  else
    cap << "No kernel point: the report counts " << (w.flop > 0 ? "no HBM bytes" : "no FLOP") << " (a roofline needs both). ";
  cap << h::escape(note) << ".</p>";
  return os.str() + cap.str();
}

// ---- waterfall --------------------------------------------------------------------

struct Step {
  std::string label, cls;
  double from, to;
  std::string note;
};

std::string waterfall_svg(const json &report, double measured) {
  const json &bound = member(report, "bound");
  const double b = num_of(bound["value"]);
  if (!std::isfinite(b)) return "<p class=\"muted\">No bound, so no waterfall (" + h::escape(str(bound, "reason", "unknown")) + ").</p>";
  std::vector<Step> steps;
  double strict = num_of(member(bound, "strict"));
  if (!std::isfinite(strict)) strict = b;
  steps.push_back({"strict bound", "base", 0, strict, "theoretical and peak rates only"});
  double level = strict;
  const double given = num_of(member(bound, "given"));
  if (std::isfinite(given) && given > level) {
    steps.push_back({"+ given facts", "given", level, given, "facts the user stated (given_facts)"});
    level = given;
  }
  if (b > level + 1e-15) {
    if (str(bound, "assurance") == "given")
      steps.push_back({"+ given facts", "given", level, b, "facts the user stated (given_facts)"});
    else
      steps.push_back({"+ argued figures", "argued", level, b, "sustained figures with a written argument (docs/model.md §2)"});
    level = b;
  }
  steps.push_back({"bound", "total", 0, b, str(bound, "assurance")});
  const json &gaps = member(member(report, "attribution"), "gaps");
  for (const char *name : {"grid", "gap1", "gap2", "gap3", "gap4"}) {
    double g = num_of(member(gaps, name));
    if (!std::isfinite(g) || g <= 0) continue;
    steps.push_back({std::string("+ ") + name, "gap", level, level + g, str(member(gaps, name), "meaning")});
    level += g;
  }
  if (std::isfinite(measured) && measured > 0) {
    if (measured >= level)
      steps.push_back({"unexplained", "unexplained", level, measured, "measured time no term or gap accounts for"});
    else
      steps.push_back({"over-explained", "overlap", level, measured,
                       "the gaps are separate what-ifs and overlap: together they exceed the measured time"});
    steps.push_back({"measured", "measured", 0, measured, "the measurement given to the report"});
  } else {
    steps.push_back({"bound + gaps", "total", 0, level, "no measurement given: the unexplained remainder is unknown"});
  }
  double top = 0;
  for (const Step &s : steps) top = std::max({top, s.from, s.to});
  const double W = 900, L = 150, R = 170, row = 24;
  const double H = 30 + row * static_cast<double>(steps.size()) + 20;
  auto x = [&](double v) { return L + (W - L - R) * v / top; };
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pb-waterfall\" viewBox=\"0 0 " << W << " " << H << "\" width=\"" << W
     << "\" height=\"" << H << "\" role=\"img\" aria-label=\"where the time goes\">\n";
  os << "<defs><pattern id=\"wf-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
        "<rect width=\"6\" height=\"6\" fill=\"#fde2e0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b3261e\" stroke-width=\"2\"/></pattern></defs>\n";
  for (int i = 0; i <= 4; ++i) {
    double v = top * i / 4;
    os << "<line class=\"grid\" x1=\"" << h::num(x(v)) << "\" y1=\"20\" x2=\"" << h::num(x(v)) << "\" y2=\"" << H - 20 << "\"/><text x=\""
       << h::num(x(v)) << "\" y=\"14\" text-anchor=\"middle\">" << h::escape(h::seconds(v)) << "</text>";
  }
  double y = 26;
  for (const Step &s : steps) {
    static const std::map<std::string, std::string> kFill = {{"base", "#1b7f3b"}, {"given", "#1f5fa8"},   {"argued", "#d08a1c"},
                                                             {"total", "#44505c"}, {"gap", "#7a9cc6"},    {"unexplained", "url(#wf-hatch)"},
                                                             {"overlap", "#f4b6b0"}, {"measured", "#b3261e"}};
    double x0 = x(std::min(s.from, s.to)), x1 = x(std::max(s.from, s.to));
    os << "<g class=\"step " << s.cls << "\" data-from=\"" << h::exact(s.from) << "\" data-to=\"" << h::exact(s.to) << "\"><title>"
       << h::escape(s.label + ": " + h::seconds(s.to - s.from) + (s.note.empty() ? "" : " — " + s.note)) << "</title>";
    os << "<text x=\"" << L - 8 << "\" y=\"" << h::num(y + 13) << "\" text-anchor=\"end\">" << h::escape(s.label) << "</text>";
    os << "<rect x=\"" << h::num(x0) << "\" y=\"" << h::num(y) << "\" width=\"" << h::num(std::max(1.5, x1 - x0)) << "\" height=\"" << row - 6
       << "\" fill=\"" << kFill.at(s.cls) << "\"" << (s.cls == "unexplained" ? " stroke=\"#b3261e\"" : "") << "/>";
    os << "<text x=\"" << h::num(x1 + 6) << "\" y=\"" << h::num(y + 13) << "\">"
       << h::escape((s.cls == "total" || s.cls == "measured" || s.cls == "base" ? "" : (s.to >= s.from ? "+" : "−")) +
                    h::seconds(std::fabs(s.to - s.from)))
       << "</text></g>\n";
    y += row;
  }
  os << "</svg>\n";
  return os.str();
}

// ---- busy time per component ---------------------------------------------------------

std::string components_svg(const BoundSchedule &s) {
  if (s.tracks.empty()) return "<p class=\"muted\">No per-component schedule (no bound).</p>";
  const double top = s.tracks.front().total();
  const double W = 900, L = 130, R = 230, row = 22;
  const double H = 10 + row * static_cast<double>(s.tracks.size()) + 10;
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pb-components\" viewBox=\"0 0 " << W << " " << H << "\" width=\"" << W
     << "\" height=\"" << H << "\" role=\"img\" aria-label=\"busy time per component\">\n";
  double y = 10;
  bool first = true;
  for (const TraceTrack &t : s.tracks) {
    double w = top > 0 ? (W - L - R) * t.total() / top : 0;
    double wf = top > 0 ? (W - L - R) * t.floor / top : 0;
    os << "<g class=\"component" << (first ? " binding" : "") << "\" data-core=\"" << h::escape(t.core) << "\" data-component=\""
       << h::escape(t.component) << "\" data-seconds=\"" << h::exact(t.total()) << "\"><title>"
       << h::escape(t.core + " " + t.component + ": " + h::seconds(t.total()) + " (" + t.floor_term +
                    (t.additive > 0 ? " + additive " + h::seconds(t.additive) : "") + ")")
       << "</title>";
    os << "<text x=\"" << L - 8 << "\" y=\"" << h::num(y + 12) << "\" text-anchor=\"end\">" << h::escape(t.core + " " + t.component) << "</text>";
    os << "<rect x=\"" << L << "\" y=\"" << h::num(y) << "\" width=\"" << h::num(std::max(1.0, wf)) << "\" height=\"" << row - 6
       << "\" fill=\"" << (first ? "#b3261e" : "#7a9cc6") << "\"/>";
    if (t.additive > 0)
      os << "<rect x=\"" << h::num(L + wf) << "\" y=\"" << h::num(y) << "\" width=\"" << h::num(std::max(1.0, w - wf)) << "\" height=\""
         << row - 6 << "\" fill=\"#d08a1c\"/>";
    char pct[32];
    std::snprintf(pct, sizeof(pct), "%.1f %%", top > 0 ? 100 * t.total() / top : 0.0);
    os << "<text x=\"" << h::num(L + w + 6) << "\" y=\"" << h::num(y + 12) << "\">"
       << h::escape(h::seconds(t.total()) + "  " + (first ? std::string("binds") : std::string(pct) + " of the binding") + " · " + t.floor_term)
       << "</text></g>\n";
    y += row;
    first = false;
  }
  os << "</svg>\n";
  return os.str();
}

// ---- tables ---------------------------------------------------------------------------

std::string findings_html(const json &findings, SourceCache &cache, const std::string &anchor_prefix) {
  if (!findings.is_array() || findings.empty()) return "<p class=\"muted\">No findings.</p>";
  std::ostringstream os, sources;
  os << "<table class=\"pb-findings pb-sortable\"><thead><tr><th class=\"num\">#</th><th class=\"word\">category</th><th>finding</th>"
        "<th class=\"num\">est. gain</th><th>fix</th><th>source</th></tr></thead><tbody>\n";
  size_t k = 0;
  for (const json &f : findings) {
    ++k;
    const json &src = member(f, "source");
    std::string file = str(src, "file");
    const bool has_line = member(src, "line").is_number();
    const int64_t line = has_line ? src["line"].get<int64_t>() : 0;
    const std::string id = anchor_prefix + "src-" + std::to_string(k);
    double gain = num_of(member(f, "gain"));
    os << "<tr class=\"finding\"><td class=\"num\">" << f.value("rank", 0) << "</td><td class=\"word\">" << h::escape(str(f, "category")) << "</td><td>"
       << h::escape(str(f, "title")) << "</td><td class=\"num\" data-v=\"" << h::exact((std::isfinite(gain) ? gain : 0.0)) << "\">"
       << (std::isfinite(gain) ? "~" + h::escape(h::seconds(gain)) : "<span class=\"muted\">unknown</span>") << "</td><td>"
       << h::escape(str(f, "action")) << "</td><td>";
    if (has_line)
      os << "<a class=\"src-link\" href=\"#" << id << "\">" << h::escape(base_name(file)) << ":" << line << "</a>";
    else if (str(f, "category") == "coverage")
      os << "<a class=\"src-link\" href=\"#coverage\">the uncounted ops (coverage)</a>";
    else if (!member(src, "python").is_string())
      os << "<span class=\"no-source muted\">the finding names no source line</span>";
    if (member(src, "python").is_string())
      os << (has_line ? "<br/>" : "") << "<span class=\"muted\">Python " << h::escape(src["python"].get<std::string>()) << "</span>";
    os << "</td></tr>\n";
    if (has_line) {
      sources << "<div class=\"src\" id=\"" << id << "\"><h3>#" << f.value("rank", 0) << " " << h::escape(file) << ":" << line;
      if (member(src, "python").is_string()) sources << " <span class=\"muted\">(Python " << h::escape(src["python"].get<std::string>()) << ")</span>";
      sources << "</h3>" << source_block(cache, file, line) << "</div>\n";
    }
  }
  os << "</tbody></table>\n<details open=\"open\"><summary>source lines of the findings</summary>\n" << sources.str() << "</details>\n";
  return os.str();
}

std::string terms_html(const json &terms) {
  std::ostringstream os;
  os << "<table class=\"pb-terms pb-sortable\"><thead><tr><th>tier</th><th>term</th><th>role</th><th class=\"num\">value</th>"
        "<th class=\"num\">strict</th><th>assurance</th><th>binding component</th></tr></thead><tbody>\n";
  for (const json &t : terms) {
    os << "<tr><td>" << h::escape(str(t, "tier")) << "</td><td>" << h::escape(str(t, "term")) << "</td><td>" << h::escape(str(t, "role"))
       << "</td><td class=\"num\" data-v=\"" << h::exact((std::isfinite(num_of(t["value"])) ? num_of(t["value"]) : -1)) << "\">" << time_html(t["value"])
       << "</td><td class=\"num\">" << (t.contains("strict_value") ? time_html(t["strict_value"]) : "-") << "</td><td>"
       << pill(str(t, "assurance", t.value("sound", false) ? "strict" : "diagnostic")) << "</td><td>"
       << h::escape((member(t, "core").is_string() ? t["core"].get<std::string>() + " " : "") + str(t, "component")) << "</td></tr>\n";
  }
  os << "</tbody></table>\n";
  return os.str();
}

std::string rates_html(const json &terms) {
  std::set<std::string> seen;
  std::ostringstream os;
  os << "<table class=\"pb-rates pb-sortable\"><thead><tr><th>rate</th><th class=\"num\">value</th><th>kind</th><th>source</th><th>note</th>"
        "<th>used by</th></tr></thead><tbody>\n";
  std::map<std::string, std::set<std::string>> users;
  for (const json &t : terms)
    for (const json &r : t.value("rates", json::array())) users[str(r, "name") + "|" + str(r, "source")].insert(str(t, "tier") + " " + str(t, "term"));
  for (const json &t : terms)
    for (const json &r : t.value("rates", json::array())) {
      std::string key = str(r, "name") + "|" + str(r, "source");
      if (!seen.insert(key).second) continue;
      std::string by;
      for (const std::string &u : users[key]) by += (by.empty() ? "" : ", ") + u;
      double v = num_of(r);
      os << "<tr><td>" << h::escape(str(r, "name")) << "</td><td class=\"num\">"
         << (std::isfinite(v)                                  ? h::escape(h::si(v) + str(r, "unit"))
             : str(r, "reason").empty() && !str(r, "note").empty() ? std::string("by size (see note)")
                                                                   : "<span class=\"muted\">unknown " + h::escape(str(r, "reason")) + "</span>")
         << "</td><td>" << h::escape(str(r, "kind")) << "</td><td><code>" << h::escape(str(r, "source")) << "</code></td><td>"
         << h::escape(str(r, "note")) << "</td><td>" << h::escape(by) << "</td></tr>\n";
    }
  os << "</tbody></table>\n";
  return os.str();
}

std::string not_counted_html(const json &report) {
  std::ostringstream os;
  size_t n = 0;
  os << "<ul class=\"pb-not-counted\">";
  for (const json &t : report.value("terms", json::array()))
    for (const json &nc : t.value("not_counted", json::array())) {
      ++n;
      os << "<li><b>" << h::escape(str(t, "tier") + " " + str(t, "term")) << "</b>: " << h::escape(str(nc, "what")) << " — "
         << h::escape(str(nc, "reason")) << "</li>";
    }
  for (const char *tier : {"dsl", "hivm"})
    for (const json &nc : member(member(member(report, "limits"), tier), "not_counted").is_array()
                              ? report["limits"][tier]["not_counted"]
                              : json::array()) {
      ++n;
      os << "<li><b>" << tier << " limit</b>: " << generic_html(nc) << "</li>";
    }
  os << "</ul>";
  return n == 0 ? "<p class=\"muted\">Every term counted all its work.</p>" : os.str();
}

/// The share of the binding unit's work and ops the bound counts, in words.
std::string coverage_headline(const json &cov) {
  const json &hivm = member(cov, "hivm");
  if (!hivm.is_object()) return "";
  std::string out;
  const json &b = member(hivm, "binding");
  if (b.is_object()) {
    const std::string unit = str(b, "unit"), core = str(b, "core");
    const std::string what = unit == "B" ? "bytes" : unit == "instruction" ? "issued instructions" : unit == "repeat" ? "vector repeats" : unit;
    if (member(b, "work_share").is_number())
      out = fmt::percent(b["work_share"].get<double>()) + " of the binding unit's " + what + (core.empty() ? "" : " on " + core) +
            " counted (" + fmt::count(num_of(member(b, "work_counted_per_block"))) + " of " +
            fmt::count(num_of(member(b, "work_present_per_block"))) + " per block); its ops " +
            fmt::count(num_of(member(b, "ops_counted"))) + " of " + fmt::count(num_of(member(b, "ops_present")));
    else
      out = fmt::percent(num_of(member(b, "share"))) + " of the binding unit's ops counted (" +
            fmt::count(num_of(member(b, "ops_counted"))) + " of " + fmt::count(num_of(member(b, "ops_present"))) + ")";
    out += "; the kernel's ops " + fmt::count(num_of(member(hivm, "ops_counted"))) + " of " + fmt::count(num_of(member(hivm, "ops_present")));
  } else if (member(hivm, "share").is_number()) {
    out = fmt::percent(hivm["share"].get<double>()) + " of the kernel's ops counted (" + fmt::count(num_of(member(hivm, "ops_counted"))) +
          " of " + fmt::count(num_of(member(hivm, "ops_present"))) + ")";
  }
  return out;
}

/// Coverage as tables: per core and component, then every op not counted
/// with what would count it, then the TTIR facts not resolved.
std::string coverage_html(const json &cov) {
  std::ostringstream os;
  const json &hivm = member(cov, "hivm");
  if (hivm.is_object() && member(hivm, "by_component").is_array()) {
    os << "<table class=\"pb-coverage-rows\"><thead><tr><th>core</th><th>component</th><th class=\"num\">ops counted</th>"
          "<th class=\"num\">of present</th><th class=\"num\">only with given facts</th><th class=\"num\">left out by rule</th>"
          "<th class=\"num\">work counted per block</th><th class=\"num\">of present</th><th>unit</th></tr></thead><tbody>";
    for (const json &r : hivm["by_component"]) {
      const double present = num_of(member(r, "work_present_per_block"));
      os << "<tr><td>" << h::escape(str(r, "core")) << "</td><td>" << h::escape(str(r, "component")) << "</td><td class=\"num\">"
         << fmt::count(num_of(member(r, "ops_counted"))) << "</td><td class=\"num\">" << fmt::count(num_of(member(r, "ops_present")))
         << "</td><td class=\"num\">" << fmt::count(num_of(member(r, "ops_given_only"))) << "</td><td class=\"num\">"
         << fmt::count(num_of(member(r, "ops_left_out_by_rule"))) << "</td><td class=\"num\">"
         << fmt::count(num_of(member(r, "work_counted_per_block"))) << "</td><td class=\"num\">"
         << (std::isfinite(present) ? fmt::count(present) : std::string("unknown")) << "</td><td>" << h::escape(str(r, "unit"))
         << "</td></tr>";
    }
    os << "</tbody></table>";
    const json &nc = member(hivm, "not_counted");
    const double total = num_of(member(hivm, "not_counted_total"));
    if (nc.is_array() && !nc.empty()) {
      os << "<p>Not counted: " << fmt::count(total) << " op" << (total == 1 ? "" : "s")
         << (static_cast<double>(nc.size()) < total ? " (the first " + std::to_string(nc.size()) + " listed)" : std::string())
         << ".</p><table class=\"pb-not-counted-ops\"><thead><tr><th class=\"num\">line</th><th>op</th><th>core</th><th>component</th>"
            "<th>reason</th><th>would count it</th></tr></thead><tbody>";
      for (const json &u : nc)
        os << "<tr><td class=\"num\">" << fmt::count(num_of(member(u, "line"))) << "</td><td><code>" << h::escape(str(u, "op"))
           << "</code></td><td>" << h::escape(str(u, "core")) << "</td><td>" << h::escape(str(u, "component")) << "</td><td>"
           << h::escape(str(u, "reason")) << "</td><td>"
           << (member(u, "hint").is_string() ? "<code>" + h::escape(u["hint"].get<std::string>()) + "</code>" : std::string("-"))
           << "</td></tr>";
      os << "</tbody></table>";
    } else {
      os << "<p class=\"muted\">Every op with work is counted.</p>";
    }
  }
  const json &unresolved = member(member(cov, "dsl"), "unresolved");
  if (unresolved.is_array() && !unresolved.empty()) {
    os << "<p>TTIR facts not resolved:</p><ul>";
    for (const json &u : unresolved)
      os << "<li>" << h::escape(str(u, "what")) << ": " << h::escape(str(u, "reason"))
         << (member(u, "line").is_number() ? " (line " + std::to_string(u["line"].get<int64_t>()) + ")" : std::string()) << "</li>";
    os << "</ul>";
  }
  return os.str();
}

std::string limit_row(const char *name, const json &limit) {
  std::ostringstream os;
  // A tier without a value has no assurance, binding or strict value to show.
  const bool known = std::isfinite(num_of(member(limit, "value")));
  os << "<tr><td>" << name << "</td><td class=\"num\">" << time_html(limit) << "</td><td>"
     << (known ? pill(str(limit, "assurance")) : "<span class=\"muted\">-</span>") << "</td><td>"
     << (known ? h::escape(str(limit, "binding_term") + " on " +
                           (member(limit, "binding_core").is_string() ? limit["binding_core"].get<std::string>() + " " : "") +
                           str(limit, "binding_component"))
               : std::string("<span class=\"muted\">-</span>"))
     << "</td><td class=\"num\">" << (known && member(limit, "strict").is_object() ? time_html(limit["strict"]) : "-") << "</td></tr>";
  return os.str();
}

// ---- the report -----------------------------------------------------------------------------

/// The colours of the models' pictures, as classes with a dark-theme set
/// (the page's base style declares both schemes): a line and its legend
/// key take stroke, a label takes fill.
const char *models_css() {
  return "<style>"
         ".pb-c0{--c:#1f5fa8}.pb-c1{--c:#7a3fb0}.pb-c2{--c:#b3261e}.pb-c3{--c:#8a5200}.pb-c4{--c:#1b7f3b}.pb-c5{--c:#00707f}"
         ".pb-c6{--c:#4a55a2}"
         "@media (prefers-color-scheme:dark){.pb-c0{--c:#8ab4f8}.pb-c1{--c:#c58af9}.pb-c2{--c:#f28b82}.pb-c3{--c:#fdd663}"
         ".pb-c4{--c:#81c995}.pb-c5{--c:#78d9ec}.pb-c6{--c:#aecbfa}}"
         "td.word,th.word{white-space:nowrap}svg line.ceiling,svg line.ceiling-key{stroke:var(--c)}svg text.ceiling-label{fill:var(--c)}"
         "svg text.legend-title{font-weight:600}svg .ai-line{stroke:var(--axis)}"
         "svg circle.pt-bound{fill:var(--fg)}svg circle.pt-strict{fill:var(--good)}svg circle.pt-measured{fill:var(--bad)}"
         "svg text.pruned-by{fill:var(--bad)}svg .pruned-mark{stroke:var(--bad)}svg circle.kept{fill:var(--link)}"
         "</style>\n";
}

std::string report_html(const json &doc, const json *profile) {
  SourceCache cache;
  std::ostringstream os;
  const json &bound = member(doc, "bound");
  const json &verdict = member(doc, "verdict");
  const std::string kernel = str(member(doc, "kernel"), "name", "?");
  const double measured = num_of(member(doc, "measurement"));
  const std::string assurance = str(bound, "assurance");
  os << models_css();
  os << "<section class=\"pb-card pb-report\" data-kernel=\"" << h::escape(kernel) << "\">\n";
  os << "<h1>" << h::escape(kernel) << " <span class=\"muted\">on " << h::escape(str(member(doc, "profile"), "name", "?")) << "</span></h1>\n";
  os << "<div class=\"kv\">";
  os << "<div class=\"k\">lower bound</div><div><span class=\"big\">" << time_html(bound) << "</span> " << pill(assurance) << " <span class=\"muted\">"
     << h::escape(str(bound, "tier") + " tier, " + str(bound, "binding_term") + " on " +
                  (member(bound, "binding_core").is_string() ? bound["binding_core"].get<std::string>() + " " : "") + str(bound, "binding_component"))
     << "</span></div>";
  if (member(bound, "strict").is_object())
    os << "<div class=\"k\">strict bound</div><div>" << time_html(bound["strict"]) << " " << pill("strict")
       << " <span class=\"muted\">theoretical and peak rates only</span></div>";
  if (member(bound, "given").is_object() || member(bound, "given").is_number())
    os << "<div class=\"k\">given bound</div><div>" << time_html(bound["given"]) << " " << pill("given")
       << " <span class=\"muted\">with the facts the user stated</span></div>";
  if (std::isfinite(measured)) {
    double b = num_of(bound);
    os << "<div class=\"k\">measured</div><div>" << time_html(doc["measurement"]);
    if (std::isfinite(b) && b > 0) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), " — %.2f× the bound", measured / b);
      os << (measured >= b ? "" : " <span class=\"bad\">below the bound: unsound</span>") << h::escape(buf);
    }
    os << "</div>";
  }
  const std::string verdict_unit = str(verdict, "unit");
  os << "<div class=\"k\">verdict</div><div><b>" << h::escape(str(verdict, "class", "no verdict")) << "</b>"
     << (verdict_unit.empty() ? "" : ", unit " + h::escape(verdict_unit)) << " <span class=\"muted\">" << h::escape(str(verdict, "why"))
     << "</span></div>";
  const json &inv = member(member(doc, "limits"), "invariant");
  if (inv.is_object())
    os << "<div class=\"k\">invariant</div><div" << (member(inv, "holds") == json(false) ? " class=\"bad\"" : "") << ">"
       << h::escape(str(inv, "message", "-")) << "</div>";
  os << "</div>\n";
  if (doc.contains("coverage") && doc["coverage"].is_object()) {
    const std::string headline = coverage_headline(doc["coverage"]);
    os << "<div class=\"kv\"><div class=\"k\">coverage</div><div>" << h::escape(headline.empty() ? std::string("see below") : headline)
       << (member(doc["coverage"], "warning").is_string()
               ? " <span class=\"bad\">" + h::escape(doc["coverage"]["warning"].get<std::string>()) + "</span>"
               : std::string())
       << "</div></div><details class=\"pb-coverage\" id=\"coverage\"><summary>coverage in detail</summary>"
       << coverage_html(doc["coverage"]) << "</details>";
  }
  const json &given_facts = doc.contains("given_facts") ? doc["given_facts"] : member(bound, "given_facts");
  if (!given_facts.is_null()) os << "<h3>Given facts</h3>" << generic_html(given_facts);
  os << "</section>\n";

  os << "<section class=\"pb-card\"><h2>Roofline</h2>\n" << roofline_svg(doc, profile, measured) << "</section>\n";
  os << "<section class=\"pb-card\"><h2>Where the time goes</h2>\n" << waterfall_svg(doc, measured)
     << (std::isfinite(measured)
             ? "<p class=\"muted\">From the strict bound up to the bound, then each attributed gap (grid tail, gap1 wrong-unit "
               "placement, gap2 coalescing, gap3 avoidable serialization, gap4 intra-unit) and the measured time. Gaps are "
               "separate what-ifs; what no gap explains is drawn hatched as <b>unexplained</b>.</p></section>\n"
             : "<p class=\"muted\">From the strict bound up to the bound, then each attributed gap (grid tail, gap1 wrong-unit "
               "placement, gap2 coalescing, gap3 avoidable serialization, gap4 intra-unit). No measurement was given "
               "(<code>--set bound.measured_us=T</code>), so the last bar is the bound plus every gap and what no gap "
               "explains is unknown.</p></section>\n");
  BoundSchedule schedule = bound_schedule(doc);
  os << "<section class=\"pb-card\"><h2>Busy time per core type and component</h2>\n" << components_svg(schedule)
     << "<p class=\"muted\">The busiest slot of the " << h::escape(schedule.tier) << " tier: each bar is the largest floor term on that "
     << "component plus additive terms (orange), " << schedule.waves << " waves of " << schedule.blocks << " blocks on " << schedule.slots << " "
     << h::escape(schedule.slot_kind) << " slots. <code>--format trace</code> draws the same schedule per pipe for Perfetto.</p></section>\n";
  os << "<section class=\"pb-card\" id=\"findings\"><h2>Findings</h2>\n" << findings_html(member(doc, "findings"), cache, "") << "</section>\n";
  const json &limits = member(doc, "limits");
  os << "<section class=\"pb-card\"><h2>Limits and terms</h2>\n<table class=\"pb-limits\"><thead><tr><th>limit</th><th class=\"num\">value</th>"
        "<th>assurance</th><th>binding</th><th class=\"num\">strict</th></tr></thead><tbody>"
     << limit_row("T_bound_DSL", member(limits, "dsl")) << limit_row("T_bound_HIVM", member(limits, "hivm")) << "</tbody></table>\n"
     << terms_html(doc.value("terms", json::array())) << "</section>\n";
  const json &attr = member(doc, "attribution");
  os << "<section class=\"pb-card\"><h2>Attribution</h2><p>" << h::escape(str(attr, "note")) << "</p><table class=\"pb-attribution\"><thead><tr>"
        "<th>gap</th><th class=\"num\">estimate</th><th>meaning</th><th>basis</th></tr></thead><tbody>";
  static const json kNoGaps = json::object();
  const json &gaps = member(attr, "gaps").is_object() ? attr["gaps"] : kNoGaps;
  for (const auto &[name, g] : gaps.items())
    // An unknown estimate carries its reason: a cell that wraps, not a number column.
    os << "<tr><td>" << h::escape(name) << "</td><td" << (member(g, "value").is_number() ? " class=\"num\"" : "") << ">"
       << time_html(g) << "</td><td>" << h::escape(str(g, "meaning")) << "</td><td>"
       << h::escape(str(g, "basis")) << "</td></tr>";
  os << "</tbody></table></section>\n";
  os << "<section class=\"pb-card\"><h2>Rates</h2>\n" << rates_html(doc.value("terms", json::array())) << "</section>\n";
  os << "<section class=\"pb-card\"><h2>Not counted</h2>\n" << not_counted_html(doc) << "</section>\n";
  return os.str();
}

std::string term_html(const json &doc) {
  std::ostringstream os;
  os << "<section class=\"pb-card pb-term\"><h2>" << h::escape(str(doc, "term")) << " <span class=\"muted\">(" << h::escape(str(doc, "tier"))
     << ", " << h::escape(str(doc, "role")) << ")</span></h2><p>" << time_html(doc["value"]) << " " << pill(str(doc, "assurance")) << "</p>";
  os << "<table><thead><tr><th>component</th><th class=\"num\">value</th><th>assurance</th></tr></thead><tbody>";
  for (const json &c : doc.value("per_component", json::array()))
    os << "<tr><td>" << h::escape((member(c, "core").is_string() ? c["core"].get<std::string>() + " " : "") + str(c, "component"))
       << "</td><td class=\"num\">" << time_html(c["value"]) << "</td><td>" << pill(str(c, "assurance")) << "</td></tr>";
  os << "</tbody></table>";
  for (const json &n : doc.value("not_counted", json::array()))
    os << "<p class=\"muted\">not counted: " << h::escape(str(n, "what")) << ": " << h::escape(str(n, "reason")) << "</p>";
  os << "</section>\n";
  return os.str();
}

// ---- the sweep ---------------------------------------------------------------------------------

std::string sweep_html(const json &doc) {
  const json &configs = member(doc, "configs");
  std::ostringstream os;
  const size_t problems = member(doc, "problems").is_array() ? doc["problems"].size() : 1;
  os << models_css();
  os << "<section class=\"pb-card pb-sweep\"><h1>Sweep: " << h::escape(str(doc, "kernel", "?")) << " <span class=\"muted\">on "
     << h::escape(str(doc, "profile", "?")) << "</span></h1><p>"
     << fmt::count(member(member(doc, "summary"), "evaluated").is_number() ? doc["summary"]["evaluated"].get<double>()
                   : configs.is_array()                                     ? static_cast<double>(configs.size())
                                                                            : 0)
     << " configurations of " << fmt::count(static_cast<double>(problems)) << " problem" << (problems == 1 ? "" : "s")
     << " (configurations are compared within one problem); best " << time_html(member(member(doc, "best"), "bound")) << "</p>\n";
  const size_t listed = configs.is_array() ? configs.size() : 0;
  const double total = member(member(doc, "summary"), "evaluated").is_number() ? doc["summary"]["evaluated"].get<double>()
                                                                              : static_cast<double>(listed);
  if (total > static_cast<double>(listed))
    os << "<p class=\"muted\">The first " << fmt::count(static_cast<double>(listed)) << " of " << fmt::count(total)
       << " configurations are drawn and listed here; <code>--format json</code> lists them all.</p>\n";
  std::vector<const json *> rows;
  double lo = 1e300, hi = 0;
  if (configs.is_array())
    for (const json &c : configs) {
      rows.push_back(&c);
      double v = num_of(member(c, "bound"));
      if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  if (hi > 0) {
    const size_t n = rows.size();
    const double W = 900, L = 80, R = 40, T = 30, B = 44, H = 330;
    const double step = (W - L - R) / static_cast<double>(std::max<size_t>(1, n));
    h::LogScale ys(lo, hi, H - B, T);
    os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pb-sweep-chart\" viewBox=\"0 0 " << W << " " << H << "\" width=\"" << W << "\" height=\""
       << H << "\" role=\"img\" aria-label=\"bound per configuration\">\n";
    for (double v : ys.decades())
      os << "<line class=\"grid\" x1=\"" << L << "\" y1=\"" << h::num(ys(v)) << "\" x2=\"" << W - R << "\" y2=\"" << h::num(ys(v))
         << "\"/><text x=\"" << L - 6 << "\" y=\"" << h::num(ys(v) + 4) << "\" text-anchor=\"end\">" << h::escape(h::seconds(v)) << "</text>";
    os << "<line class=\"axis\" x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B << "\"/>";
    os << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 8 << "\" text-anchor=\"middle\">configuration # (hover for grid, arguments and problem)</text>";
    os << "<text x=\"" << W - R << "\" y=\"14\" text-anchor=\"end\">● kept  ✕ pruned (the term that makes it slower)</text>\n";
    // Tick labels at most every 40 px, so they never overlap.
    const size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(40.0 / step)));
    for (size_t i = 0; i < n; ++i) {
      const json &c = *rows[i];
      double v = num_of(member(c, "bound"));
      if (!std::isfinite(v) || v <= 0) continue;
      const bool pruned = member(c, "pruned_by").is_string();
      double cx = L + step * (static_cast<double>(i) + 0.5), cy = ys(v);
      os << "<g class=\"config" << (pruned ? " pruned" : "") << "\" data-index=\"" << c.value("index", static_cast<int64_t>(i)) << "\" data-bound=\"" << h::exact(v
        ) << "\"><title>" << h::escape("grid " + grid_text(member(c, "grid")) + ", " + args_text(member(c, "args")) + ": " + h::seconds(v) +
                                      (pruned ? " — pruned by " + c["pruned_by"].get<std::string>() + (member(c, "why").is_string() ? ": " + c["why"].get<std::string>() : "") : ""))
         << "</title>";
      if (i % every == 0)
        os << "<text x=\"" << h::num(cx) << "\" y=\"" << h::num(H - B + 14) << "\" text-anchor=\"middle\">" << c.value("index", static_cast<int64_t>(i))
           << "</text>";
      if (pruned)
        os << "<path class=\"pruned-mark\" d=\"M" << h::num(cx - 4) << " " << h::num(cy - 4) << " l8 8 m0 -8 l-8 8\" stroke-width=\"1.6\"/>";
      else
        os << "<circle class=\"kept\" cx=\"" << h::num(cx) << "\" cy=\"" << h::num(cy) << "\" r=\"4\"/>";
      os << "</g>";
    }
    os << "\n</svg>\n";
  }
  os << "<table class=\"pb-sortable\"><thead><tr><th class=\"num\">#</th><th class=\"num\">problem</th><th>grid</th><th>args</th>"
        "<th class=\"num\">bound</th><th>binding</th><th>pruned by</th><th>warning</th></tr></thead><tbody>\n";
  for (const json *c : rows) {
    double v = num_of(member(*c, "bound"));
    os << "<tr" << (member(*c, "pruned_by").is_string() ? " class=\"muted\"" : "") << "><td class=\"num\">" << c->value("index", 0)
       << "</td><td class=\"num\">" << c->value("problem", 0) << "</td><td><code>" << h::escape(grid_text(member(*c, "grid")))
       << "</code></td><td><code>" << h::escape(args_text(member(*c, "args"))) << "</code></td><td class=\"num\" data-v=\""
       << h::exact(std::isfinite(v) ? v : -1) << "\">" << time_html(member(*c, "bound")) << "</td><td>" << h::escape(str(*c, "binding", "-"))
       << "</td><td>" << h::escape(str(*c, "pruned_by", "-")) << "</td><td>"
       << (member(*c, "warning").is_string() ? "<span class=\"bad\">" + h::escape((*c)["warning"].get<std::string>()) + "</span>" : std::string("-"))
       << "</td></tr>\n";
  }
  os << "</tbody></table></section>\n";
  return os.str();
}

std::optional<std::string> render_fragment(std::string_view schema, const json &doc, const json *profile);

}  // namespace

std::optional<std::string> render_html(std::string_view schema, const json &doc, const json *profile) {
  try {
    return render_fragment(schema, doc, profile);
  } catch (const std::exception &e) {  // a document outside its schema: say so instead of failing the run
    return "<section class=\"pb-card\"><p class=\"bad\">perfbound.models could not draw this " + h::escape(std::string(schema)) +
           " document: " + h::escape(e.what()) + "</p><pre>" + h::escape(doc.dump(1)) + "</pre></section>\n";
  }
}

namespace {
std::optional<std::string> render_fragment(std::string_view schema, const json &doc, const json *profile) {
  if (schema == kReportSchema) return report_html(doc, profile);
  if (schema == kTermSchema) return term_html(doc);
  if (schema == kFindingsSchema) {
    if (doc.value("in_report", false))  // listed once, with the report
      return "<p class=\"muted pb-findings-ref\">The findings of " + h::escape(str(doc, "kernel", "?")) +
             " are listed with the report above (<a href=\"#findings\">Findings</a>).</p>\n";
    SourceCache cache;
    return "<section class=\"pb-card\"><h2>Findings: " + h::escape(str(doc, "kernel", "?")) + "</h2>\n" +
           findings_html(member(doc, "findings"), cache, "findings-") + "</section>\n";
  }
  if (schema == kSweepSchema) return sweep_html(doc);
  return std::nullopt;
}
}  // namespace

std::string render_html_page(std::string_view schema, const json &doc, const json *profile) {
  std::optional<std::string> body = render_html(schema, doc, profile);
  std::string title = "perfbound: " + std::string(schema);
  return h::page(title, body ? *body : "<pre>" + h::escape(doc.dump(2)) + "</pre>");
}

}  // namespace pb::models
