//===- test_render_html.cpp - the pictures: HTML report, trace, sweep -----===//
//
// The roofline point is placed from the report's own FLOP, bytes and bound;
// the waterfall ends at the measured time with the remainder drawn; the
// trace's busiest track equals the bound; every input string is escaped; the
// page is well-formed XML (xmllint, from libxml2-utils).
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "models_test_util.hpp"
#include "render.hpp"
#include "render_html.hpp"
#include "render_trace.hpp"
#include "term.hpp"

#include <perfbound/sdk/html.hpp>

namespace {

using modelstest::json;
namespace m = pb::models;

const std::vector<std::string> kVectorAddArgs = {
    "--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set", "hivm=" + modelstest::example("vector_add.npuir.mlir"),
    "--set", "launch={grid=[8192,1,1],args={n_elements=16777216,\"3\"=16777216}}"};

/// The value of attribute `attr` of the first element whose opening tag
/// contains `marker`.
std::string attribute(const std::string &html, const std::string &marker, const std::string &attr) {
  size_t at = html.find(marker);
  REQUIRE_MESSAGE(at != std::string::npos, "no element with " << marker);
  size_t open = html.rfind('<', at);
  size_t close = html.find('>', at);
  std::string tag = html.substr(open, close - open);
  std::smatch match;
  REQUIRE_MESSAGE(std::regex_search(tag, match, std::regex("\\s" + attr + "=\"([^\"]*)\"")), "no " << attr << " in " << tag);
  return match[1];
}
double number_attribute(const std::string &html, const std::string &marker, const std::string &attr) {
  return std::stod(attribute(html, marker, attr));
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// xmllint --noout on the page: well-formed XML (the page is written
/// XHTML-compatible). Skips with a message when xmllint is absent.
void check_well_formed(const std::string &page) {
  std::error_code ec;
  if (!std::filesystem::exists("/usr/bin/xmllint", ec)) {
    MESSAGE("xmllint not installed (Debian libxml2-utils): well-formedness not checked");
    return;
  }
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "page.html", page);
  pbtest::CliResult r = pbtest::run_program("/usr/bin/xmllint", {"--noout", (tmp / "page.html").string()});
  INFO("xmllint: " << r.err);
  CHECK(r.code == 0);
}

json vector_add_report(const std::vector<std::string> &extra = {}) {
  std::vector<std::string> args = kVectorAddArgs;
  args.insert(args.end(), extra.begin(), extra.end());
  return modelstest::run_pipeline(modelstest::pipeline("bound.toml"), args).report;
}

}  // namespace

TEST_CASE("render_html: the roofline places the kernel at its FLOP, HBM bytes and bound, under the profile's ceilings") {
  json report = vector_add_report();
  json profile = modelstest::profile("ascend_910b3");
  std::string html = *m::render_html(m::kReportSchema, report, &profile);
  // Hand derivation (vector_add, n = 16,777,216 f32): one add per element =
  // 16,777,216 FLOP; HBM bytes 3 x 4 x n = 201,326,592 B -> AI = 1/12 =
  // 0.083333 FLOP/B. Bound 146.972 us (docs/model.md §10) -> 16,777,216 /
  // 146.972e-6 = 1.14152e11 FLOP/s. The strict point sits at FLOP / the
  // report's bound.strict.
  const double ai = number_attribute(html, "point pt-bound", "data-ai");
  const double perf = number_attribute(html, "point pt-bound", "data-perf");
  CHECK(ai == doctest::Approx(1.0 / 12).epsilon(1e-9));
  CHECK(perf == doctest::Approx(16777216.0 / 146.9719319102567e-6).epsilon(1e-6));
  CHECK(number_attribute(html, "point pt-strict", "data-perf") ==
        doctest::Approx(16777216.0 / report["bound"]["strict"]["value"].get<double>()).epsilon(1e-6));
  // The drawn position follows the axes' own mapping.
  auto position = [&](const char *axis, double v) {
    double lo = number_attribute(html, axis, "data-lo"), hi = number_attribute(html, axis, "data-hi");
    double p0 = number_attribute(html, axis, "data-p0"), p1 = number_attribute(html, axis, "data-p1");
    return p0 + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (p1 - p0);
  };
  CHECK(number_attribute(html, "point pt-bound", "cx") == doctest::Approx(position("class=\"xaxis\"", ai)).epsilon(1e-3));
  CHECK(number_attribute(html, "point pt-bound", "cy") == doctest::Approx(position("class=\"yaxis\"", perf)).epsilon(1e-3));
  // Ceilings, from the 910B3 profile: HBM 1.8 TB/s; cube 8192 FLOP/cycle x
  // 1.8 GHz x 20 AIC = 2.94912e14; vector fp32 128 x 1.8e9 x 40 = 9.216e12.
  CHECK(number_attribute(html, "ceiling memory", "data-bw") == doctest::Approx(1.8e12));
  std::vector<double> peaks;
  std::regex peak("data-peak=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), peak); it != std::sregex_iterator(); ++it) peaks.push_back(std::stod((*it)[1]));
  auto has_peak = [&](double v) { return std::any_of(peaks.begin(), peaks.end(), [&](double p) { return std::fabs(p - v) < 1e-6 * v; }); };
  CHECK(has_peak(2.94912e14));
  CHECK(has_peak(9.216e12));
  CHECK(html.find("vector fp32 × 40 AIV") != std::string::npos);
  // Without a profile the roofline says why it has no ceilings.
  std::string bare = *m::render_html(m::kReportSchema, report, nullptr);
  CHECK(bare.find("class=\"ceiling") == std::string::npos);
  CHECK(bare.find("no hardware profile was available") != std::string::npos);
  check_well_formed(pb::sdk::html::page("t", html));
}

TEST_CASE("render_html: the waterfall climbs from the strict bound to the measured time and shows the unexplained rest") {
  // measured 300 us: strict bound (the report's bound.strict) -> + argued
  // -> bound 146.972 us -> + each positive gap (grid, gap1..gap4 of the
  // report's attribution) -> unexplained up to 300 us -> measured 300 us.
  json report = vector_add_report({"--set", "bound.measured_us=300"});
  std::string html = *m::render_html(m::kReportSchema, report, nullptr);
  const double strict_to = number_attribute(html, "step base", "data-to");
  CHECK(strict_to == doctest::Approx(report["bound"]["strict"]["value"].get<double>()));
  CHECK(number_attribute(html, "step argued", "data-from") == doctest::Approx(strict_to));
  CHECK(number_attribute(html, "step argued", "data-to") == doctest::Approx(146.9719319102567e-6));
  double explained = 146.9719319102567e-6;
  for (const char *gap : {"grid", "gap1", "gap2", "gap3", "gap4"})
    if (report["attribution"]["gaps"][gap]["value"].is_number()) explained += std::max(0.0, report["attribution"]["gaps"][gap]["value"].get<double>());
  CHECK(number_attribute(html, "step unexplained", "data-from") == doctest::Approx(explained));
  CHECK(number_attribute(html, "step unexplained", "data-to") == doctest::Approx(300e-6));
  CHECK(number_attribute(html, "step measured", "data-to") == doctest::Approx(300e-6));
  // Consecutive additive steps chain: each starts where the previous ended.
  std::regex step("class=\"step (argued|gap|unexplained)\" data-from=\"([^\"]+)\" data-to=\"([^\"]+)\"");
  double previous = strict_to;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), step); it != std::sregex_iterator(); ++it) {
    CHECK(std::stod((*it)[2]) == doctest::Approx(previous));
    previous = std::stod((*it)[3]);
  }
  CHECK(previous == doctest::Approx(300e-6));
  // A measurement below bound + gaps: the overlap is drawn, not hidden.
  json tight = vector_add_report({"--set", "bound.measured_us=180"});
  std::string html2 = *m::render_html(m::kReportSchema, tight, nullptr);
  CHECK(number_attribute(html2, "step overlap", "data-to") == doctest::Approx(180e-6));
}

TEST_CASE("render_html: every string from the input is escaped") {
  pbtest::TempDir tmp;
  const std::string src = (tmp / "k<x>.mlir").string();
  pbtest::write_file(src, "line 1\nline 2\n  %0 = \"<script>alert('ir')</script>\" : i32\nline 4\nline 5\n");
  json report = {{"schema", m::kReportSchema},
                 {"kernel", {{"name", "<script>alert(1)</script>"}, {"source", src}}},
                 {"profile", {{"name", "p&q"}}},
                 {"bound", {{"value", 1e-3}, {"unit", "s"}, {"tier", "hivm"}, {"binding_term", "t<b>"}, {"binding_component", "scalar"},
                            {"binding_core", "aiv"}, {"assurance", "strict\" onload=\"x"}}},
                 {"limits", json::object()},
                 {"terms", json::array({{{"tier", "hivm"}, {"term", "t<b>"}, {"role", "floor"}, {"value", {{"value", 1e-3}, {"unit", "s"}}},
                                         {"per_component", json::array({{{"core", "aiv"}, {"component", "scalar"}, {"assurance", "strict"},
                                                                         {"value", {{"value", 1e-3}, {"unit", "s"}}}}})},
                                         {"evidence", json::array({{{"file", src}, {"line", 3}, {"op", "<op>"}, {"per_block", 1.0}, {"what", "aiv.scalar"}}})},
                                         {"not_counted", json::array({{{"what", "<img src=x>"}, {"reason", "r"}}})}}})},
                 {"verdict", {{"class", "compute-bound"}, {"unit", "scalar"}, {"why", "<b>why</b>"}}},
                 {"attribution", json::object()},
                 {"findings", json::array({{{"rank", 1}, {"category", "placement"}, {"title", "<script>t</script>"}, {"action", "a&b"},
                                            {"gain", {{"value", 1e-4}, {"unit", "s"}}},
                                            {"source", {{"file", src}, {"line", 3}, {"python", "<py>.py:3"}}}},
                                           {{"rank", 2}, {"category", "coverage"}, {"title", "uncounted"}, {"action", "give trips"},
                                            {"gain", {{"value", nullptr}, {"unit", "s"}, {"reason", "unknown"}}}, {"source", nullptr}}})},
                 {"coverage", {{"warning", "<c>"}, {"aiv.scalar", {{"counted", 3}, {"present", 4}, {"share", 0.75}, {"note", "<c>"}}}}}};
  std::string page = pb::sdk::html::page("t", *m::render_html(m::kReportSchema, report, nullptr));
  CHECK(page.find("<script>alert") == std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(&#39;ir&#39;)&lt;/script&gt;") != std::string::npos);  // the IR line with context
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("onload=\"x") == std::string::npos);
  CHECK(page.find("k&lt;x&gt;.mlir:3") != std::string::npos);
  CHECK(page.find("&lt;py&gt;.py:3") != std::string::npos);
  CHECK(page.find("&lt;c&gt;") != std::string::npos);  // the coverage warning is shown, escaped
  // The finding row links its source block, which holds the line with two lines of context.
  CHECK(attribute(page, "class=\"src-link\"", "href") == "#src-1");
  // A coverage finding without a line links the coverage section, which exists.
  CHECK(page.find("href=\"#coverage\"") != std::string::npos);
  CHECK(page.find("id=\"coverage\"") != std::string::npos);
  size_t block = page.find("id=\"src-1\"");
  REQUIRE(block != std::string::npos);
  std::string context = page.substr(block, page.find("</div>", block) - block);
  CHECK(context.find("1  line 1") != std::string::npos);
  CHECK(context.find("5  line 5") != std::string::npos);
  check_well_formed(page);
  // The trace escapes nothing (it is JSON) but keeps the names intact.
  json trace = m::render_trace(report);
  CHECK(trace["metadata"]["kernel"] == "<script>alert(1)</script>");
}

TEST_CASE("render_html: a report without a bound, coverage or given facts renders, and says why") {
  json report = {{"schema", m::kReportSchema}, {"kernel", {{"name", "k"}}}, {"profile", {{"name", "p"}}},
                 {"bound", {{"value", nullptr}, {"unit", "s"}, {"reason", "no terms"}, {"tier", nullptr}, {"binding_term", nullptr},
                            {"binding_component", nullptr}}},
                 {"limits", json::object()}, {"terms", json::array()}, {"verdict", {{"class", nullptr}, {"unit", nullptr}}},
                 {"attribution", json::object()}, {"findings", json::array()}};
  std::string html = *m::render_html(m::kReportSchema, report, nullptr);
  CHECK(html.find("No bound, so no waterfall (no terms)") != std::string::npos);
  CHECK(html.find("no FLOP") != std::string::npos);
  check_well_formed(pb::sdk::html::page("t", html));
  json trace = m::render_trace(report);
  CHECK(trace["traceEvents"].empty());
  CHECK(trace["metadata"]["reason"].is_string());
}

namespace {

/// Checks the trace-event format and returns the total duration per (pid, tid).
std::map<std::pair<int64_t, int64_t>, double> check_trace(const json &trace) {
  REQUIRE(trace["traceEvents"].is_array());
  std::map<std::pair<int64_t, int64_t>, double> totals, last_end;
  std::set<std::pair<int64_t, int64_t>> named;
  std::map<int64_t, int> flows;
  for (const json &e : trace["traceEvents"]) {
    REQUIRE(e["ph"].is_string());
    REQUIRE(e["pid"].is_number_integer());
    REQUIRE(e["tid"].is_number_integer());
    REQUIRE(e["name"].is_string());
    const std::string ph = e["ph"];
    std::pair<int64_t, int64_t> track{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()};
    if (ph == "M") {
      REQUIRE(e["args"].is_object());
      if (e["name"] == "thread_name") named.insert(track);
      continue;
    }
    REQUIRE(e["ts"].is_number());
    if (ph == "X") {
      REQUIRE(e["dur"].is_number());
      CHECK(e["dur"].get<double>() >= 0);
      CHECK(named.count(track) == 1);  // the track was named before its first slice
      CHECK(e["ts"].get<double>() >= last_end[track] - 1e-9);  // monotonic, no overlap on a track
      last_end[track] = e["ts"].get<double>() + e["dur"].get<double>();
      totals[track] += e["dur"].get<double>();
      CHECK(e["args"].is_object());
    } else if (ph == "s" || ph == "f") {
      REQUIRE(e["id"].is_number_integer());
      flows[e["id"].get<int64_t>()] += ph == "s" ? 1 : 10;
      CHECK(e["ts"].get<double>() <= last_end[track] + 1e-9);  // inside a slice of its track
    } else {
      CHECK(ph == "i");
    }
  }
  for (const auto &[id, n] : flows) CHECK_MESSAGE(n == 11, "flow " << id << " does not connect one start to one finish");
  return totals;
}

}  // namespace

TEST_CASE("render_trace: the trace-event format, and the busiest track equals the bound") {
  json report = vector_add_report();
  json trace = json::parse(*m::render_document(m::kReportSchema, report, "trace", nullptr));
  auto totals = check_trace(trace);
  REQUIRE(!totals.empty());
  auto busiest = std::max_element(totals.begin(), totals.end(), [](auto &a, auto &b) { return a.second < b.second; });
  // vector_add binds on the chip's HBM (memory, 146.972 us): pid 3 (chip), tid 8 (HBM).
  CHECK(busiest->first == std::make_pair<int64_t, int64_t>(3, 8));
  CHECK(busiest->second == doctest::Approx(report["bound"]["value"].get<double>() * 1e6).epsilon(1e-9));
  // Its slices name the IR lines and the quantity: 8192-byte transfers at
  // lines 42, 52 (GM->UB) and 62 (UB->GM), so one block's 146.972 / 205 =
  // 0.71694 us is split in thirds.
  std::set<int64_t> lines;
  for (const json &e : trace["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 3 && e["args"].contains("line")) {
      lines.insert(e["args"]["line"].get<int64_t>());
      CHECK(e["args"]["quantity"] == 8192.0);
      CHECK(e["dur"].get<double>() == doctest::Approx(146.9719319102567 / 205 / 3).epsilon(1e-9));
    }
  CHECK(lines == std::set<int64_t>{42, 52, 62});
  CHECK(trace["metadata"]["waves"] == 205.0);
}

TEST_CASE("render_trace: chunk_kda binds on the AIV scalar track, with cross-core handoffs as flows") {
  if (!pbtest::have_shared()) {
    MESSAGE("skipped: ../shared/data absent (chunk_kda.npuir.mlir)");
    return;
  }
  json report = modelstest::run_pipeline(modelstest::pipeline("bound_hivm.toml"),
                                         {"--set", "hivm=" + modelstest::shared_hivm("chunk_kda.npuir.mlir"), "--set",
                                          "launch={grid=[128,32],args={\"20\"=8192,\"22\"=8192}}"})
                    .report;
  json trace = m::render_trace(report);
  auto totals = check_trace(trace);
  auto busiest = std::max_element(totals.begin(), totals.end(), [](auto &a, auto &b) { return a.second < b.second; });
  // issue_floor on aiv scalar: 7,779.81 us (docs/model.md §10; 4 instructions per block fewer than
  // before issue 23: vector ops whose tile may be empty guarantee none): pid 2 (AIV), tid 1 (S).
  CHECK(busiest->first == std::make_pair<int64_t, int64_t>(2, 1));
  CHECK(busiest->second == doctest::Approx(7779.81).epsilon(1e-6));
  size_t flows = 0;
  for (const json &e : trace["traceEvents"]) flows += e["ph"] == "s" ? 1 : 0;
  CHECK(flows >= 4);  // the serialization term's mandatory edges (aiv.* -> aic.cube, ...)
  std::string html = *m::render_html(m::kReportSchema, report, nullptr);
  CHECK(attribute(html, "class=\"component binding\"", "data-component") == "scalar");
  CHECK(attribute(html, "class=\"component binding\"", "data-core") == "aiv");
}

TEST_CASE("render_html: the sweep chart marks pruned configurations with the term that pruned them") {
  json sweep = {{"schema", m::kSweepSchema}, {"kernel", "add<k>"}, {"profile", "ascend_910b3"},
                {"best", {{"bound", {{"value", 1e-4}, {"unit", "s"}}}}},
                {"configs", json::array({{{"index", 0}, {"grid", {1024}}, {"args", {{"n", 1}}}, {"bound", {{"value", 1e-4}, {"unit", "s"}}}, {"binding", "memory"}},
                                         {{"index", 1}, {"grid", {8}}, {"args", {{"n", 1}}}, {"bound", {{"value", 9e-4}, {"unit", "s"}}}, {"binding", "vector"},
                                          {"pruned_by", "vector"}},
                                         {{"index", 2}, {"grid", {4}}, {"args", {{"n", 1}}}, {"bound", {{"value", nullptr}, {"unit", "s"}, {"reason", "r"}}}}})}};
  std::string page = m::render_html_page(m::kSweepSchema, sweep, nullptr);
  CHECK(count(page, "class=\"config pruned\"") == 1);
  CHECK(count(page, "class=\"config\"") == 1);
  CHECK(page.find("pruned by vector") != std::string::npos);
  CHECK(page.find("add&lt;k&gt;") != std::string::npos);
  // Grids and arguments as the text view writes them, not as JSON (before:
  // tooltips and cells read {&quot;n&quot;:1}).
  CHECK(page.find("<code>[1024]</code></td><td><code>n=1</code>") != std::string::npos);
  CHECK(page.find("&quot;n&quot;") == std::string::npos);
  check_well_formed(page);
}

TEST_CASE("perfbound run --format html / trace and report.html under --out") {
  pbtest::TempDir tmp;
  std::vector<std::string> argv{"run", modelstest::pipeline("bound.toml")};
  argv.insert(argv.end(), kVectorAddArgs.begin(), kVectorAddArgs.end());
  argv.insert(argv.end(), {"--format", "html", "--out", tmp.path().string()});
  pbtest::CliResult r = pbtest::run_cli(argv);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(r.out.find("http://") == r.out.find("http://www.w3.org"));  // no network reference but the namespaces
  CHECK(r.out.find("src=\"http") == std::string::npos);
  CHECK(pbtest::read_file(tmp / "report.html") == r.out);
  CHECK(r.err.find("report.html") != std::string::npos);
  check_well_formed(r.out);
  // The packet-efficiency table the coalescing finding uses is a table, not
  // "unknown" (before: the Rates row read "unknown" beside eta(8192) = 0.761).
  const size_t eta = r.out.find("<td>HBM packet efficiency</td>");
  REQUIRE(eta != std::string::npos);
  const std::string row = r.out.substr(eta, r.out.find("</tr>", eta) - eta);
  CHECK(row.find("unknown") == std::string::npos);
  CHECK(row.find("a table by transfer size, each DMA at its own size: ") != std::string::npos);
  // The TTIR facts, which have no HTML view, are their text view (before: a
  // raw tree of the JSON document).
  const size_t facts = r.out.find("output <b>facts</b>");
  REQUIRE(facts != std::string::npos);
  CHECK(r.out.find("accesses:", facts) == std::string::npos);
  // --out writes report.html even when another format is asked for.
  pbtest::TempDir tmp2;
  argv = {"run", modelstest::pipeline("bound.toml")};
  argv.insert(argv.end(), kVectorAddArgs.begin(), kVectorAddArgs.end());
  argv.insert(argv.end(), {"--format", "trace", "--out", tmp2.path().string()});
  r = pbtest::run_cli(argv);
  REQUIRE(r.code == 0);
  CHECK(!pbtest::read_file(tmp2 / "report.html").empty());
  json trace = json::parse(pbtest::read_file(tmp2 / "report.trace.json"));
  check_trace(trace);
  CHECK(trace["metadata"]["outputs"].size() == 1);  // only the bound report draws a trace
}
