//===- perfbound/sdk/html.hpp - helpers for HTML/SVG renderers -------------===//
//
// What every renderer of format "html" (perfbound.ext.render/1) needs, so the
// host, the bundled plugins and a vendor's renderer draw alike:
//   - escape(): every string that comes from input (IR text, file and kernel
//     names) goes through it, in element text and in attribute values;
//   - LogScale: a log10 axis mapped to pixels, with its decade ticks;
//   - page(): one self-contained XHTML-compatible document (inline CSS and a
//     few lines of inline JS for sorting tables; readable with JS off).
// Header-only, standard library only.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_HTML_HPP
#define PERFBOUND_SDK_HTML_HPP

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace pb::sdk::html {

/// Escapes text for element content and double- or single-quoted attributes.
inline std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') out += "&#xFFFD;";
        else out += c;
    }
  }
  return out;
}

/// A number for an SVG coordinate or attribute (fixed, two decimals).
inline std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.2f", std::isfinite(v) ? v : 0.0);
  return buf;
}

/// A number for a data-* attribute: round-trips exactly ("%.17g"), so a
/// reader (or a test) gets the value the picture was drawn from.
inline std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

/// A short human figure with an SI prefix: 1.23e12 -> "1.23 T".
inline std::string si(double v) {
  static const char *kPrefix[] = {"p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
  if (v == 0 || !std::isfinite(v)) return "0 ";
  int exp3 = static_cast<int>(std::floor(std::log10(std::fabs(v)) / 3));
  exp3 = std::clamp(exp3, -4, 6);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.3g %s", v / std::pow(10.0, 3 * exp3), kPrefix[exp3 + 4]);
  return buf;
}

/// Seconds as a human time ("165.3 µs").
inline std::string seconds(double s) {
  if (!std::isfinite(s)) return "-";
  if (s == 0) return "0";
  double a = std::fabs(s);
  const char *unit = "s";
  double v = s;
  if (a < 1e-6) { v = s * 1e9; unit = "ns"; }
  else if (a < 1e-3) { v = s * 1e6; unit = "µs"; }
  else if (a < 1) { v = s * 1e3; unit = "ms"; }
  char buf[40];
  std::snprintf(buf, sizeof(buf), std::fabs(v) >= 100 ? "%.1f %s" : "%.3g %s", v, unit);
  return buf;
}

/// A log10 axis: values in [lo, hi] (widened to whole decades) onto pixels
/// [p0, p1] (p1 < p0 for a y axis growing upwards).
struct LogScale {
  double lo = 1, hi = 10, p0 = 0, p1 = 1;
  LogScale() = default;
  LogScale(double min_value, double max_value, double pixel0, double pixel1) : p0(pixel0), p1(pixel1) {
    if (!(min_value > 0)) min_value = 1e-12;
    if (!(max_value > min_value)) max_value = min_value * 10;
    lo = std::pow(10.0, std::floor(std::log10(min_value)));
    hi = std::pow(10.0, std::ceil(std::log10(max_value)));
    if (hi <= lo) hi = lo * 10;
  }
  [[nodiscard]] double operator()(double v) const {
    double t = (std::log10(std::max(v, lo * 1e-3)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return p0 + t * (p1 - p0);
  }
  /// The value at pixel `p` (the inverse of operator()).
  [[nodiscard]] double invert(double p) const {
    return std::pow(10.0, std::log10(lo) + (p - p0) / (p1 - p0) * (std::log10(hi) - std::log10(lo)));
  }
  [[nodiscard]] std::vector<double> decades() const {
    std::vector<double> out;
    for (double v = lo; v <= hi * 1.0001; v *= 10) out.push_back(v);
    return out;
  }
  [[nodiscard]] bool contains(double v) const { return v >= lo * 0.9999 && v <= hi * 1.0001; }
};

/// The style every perfbound page shares (renderers may add their own).
inline const char *base_css() {
  // Colours are variables with a dark set under prefers-color-scheme: the
  // page declares both schemes, so a browser's forced dark mode uses ours
  // instead of inverting the SVG. Tables never push the page wider than
  // the window: long cells wrap and a wide table scrolls inside its card.
  return R"CSS(
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1d2530;--muted:#5f6975;--line:#dde2e8;--rule:#d5dae1;
--th:#eef1f5;--pre:#f3f5f8;--hit:#ffe9a8;--link:#1f5fa8;--grid:#e3e7ec;--axis:#8a939e;
--good:#1b7f3b;--bad:#b3261e;--given:#1f5fa8;--argued:#9a5b00}
@media (prefers-color-scheme:dark){:root{--bg:#14181d;--card:#1d232a;--fg:#e3e7ec;--muted:#a3adb8;--line:#39424d;--rule:#39424d;
--th:#262e37;--pre:#232a32;--hit:#5c4a0e;--link:#8ab4f8;--grid:#2e3640;--axis:#7f8a96;
--good:#6fcf8a;--bad:#ff8a80;--given:#8ab4f8;--argued:#f0b35a}}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0;background:var(--bg)}
main{max-width:1240px;margin:0 auto;padding:18px 24px 48px;box-sizing:border-box}
a{color:var(--link)}
h1{font-size:22px;margin:6px 0 12px}h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid var(--rule);padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}
section.pb-card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 18px;margin:14px 0;overflow-x:auto}
table{border-collapse:collapse;margin:6px 0;font-size:13px;max-width:100%}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:var(--th)}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.pb-sortable th{cursor:pointer}
code,pre{font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace}pre{background:var(--pre);padding:6px 8px;overflow-x:auto;margin:4px 0}
pre .hit{background:var(--hit);display:inline-block;min-width:100%}
.muted{color:var(--muted)}.bad{color:var(--bad);font-weight:600}.good{color:var(--good);font-weight:600}
.pill{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;border:1px solid}
.pill.strict{color:var(--good);border-color:var(--good)}.pill.given{color:var(--given);border-color:var(--given)}
.pill.argued{color:var(--argued);border-color:var(--argued)}.pill.diagnostic{color:var(--muted);border-color:var(--muted)}
.pill.PASS{color:var(--good);border-color:var(--good)}.pill.FAIL{color:var(--bad);border-color:var(--bad)}.pill.INFRA_ERROR{color:var(--muted);border-color:var(--muted)}
.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 14px}.kv .k{color:var(--muted)}
.big{font-size:20px;font-weight:700}
svg{display:block;max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:var(--fg)}
svg .axis{stroke:var(--axis);stroke-width:1}svg .grid{stroke:var(--grid);stroke-width:1}
details>summary{cursor:pointer;color:var(--link)}
)CSS";
}

/// Sorting for tables with class pb-sortable: click a header to sort by that
/// column (numbers by their data-v attribute when present). Without JS the
/// table stays in its written order.
inline const char *sort_js() {
  return R"JS(
document.querySelectorAll('table.pb-sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
    var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),asc=th.dataset.asc!=='1';th.dataset.asc=asc?'1':'0';
    function key(r){var c=r.cells[i];if(!c)return '';var v=c.getAttribute('data-v');return v!==null&&v!==''?parseFloat(v):c.textContent;}
    rows.sort(function(x,y){var a=key(x),c=key(y);if(typeof a==='number'&&typeof c==='number')return asc?a-c:c-a;
      return asc?String(a).localeCompare(String(c)):String(c).localeCompare(String(a));});
    rows.forEach(function(r){b.appendChild(r);});});});});
)JS";
}

/// One self-contained page around `body` (already HTML). XHTML-compatible:
/// every element closed, so `xmllint --noout` accepts it.
inline std::string page(std::string_view title, std::string_view body, std::string_view extra_css = {}) {
  std::string out;
  out.reserve(body.size() + 6000);
  out += "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  out += "<meta name=\"color-scheme\" content=\"light dark\"/>\n<title>";
  out += escape(title);
  out += "</title>\n<style>";
  out += base_css();
  out += extra_css;
  out += "</style>\n</head>\n<body>\n<main>\n";
  out += body;
  out += "\n</main>\n<script>//<![CDATA[";
  out += sort_js();
  out += "//]]></script>\n</body>\n</html>\n";
  return out;
}

}  // namespace pb::sdk::html

#endif  // PERFBOUND_SDK_HTML_HPP
