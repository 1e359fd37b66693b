//===- dsl_render.cpp - text and Markdown views of perfbound.dsl_facts/1 --===//
//
// One view model, two syntaxes: a section is a title plus rows of
// (label, value) pairs or a table; "text" aligns them, "md" emits headings
// and pipe tables. Numbers that are estimates carry "~" (and "<=" / ">=" for
// bounds), unknown numbers print as "unknown (reason)".
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <sstream>

#include <perfbound/sdk/text.hpp>

#include "dsl_facts.hpp"

namespace perfbound::ttir {

namespace {

using json = pb::sdk::json;

std::string fmt_number(double v) {
  std::ostringstream os;
  double a = std::fabs(v);
  if (v == std::floor(v) && a < 1e15) {
    // Thousands separators for readability.
    std::string digits = std::to_string(static_cast<long long>(a));
    std::string out;
    for (size_t idx = 0; idx < digits.size(); ++idx) {
      if (idx > 0 && (digits.size() - idx) % 3 == 0) out += ',';
      out += digits[idx];
    }
    return (v < 0 ? "-" : "") + out;
  }
  os.precision(4);
  os << v;
  return os.str();
}

std::string fmt_bytes(double v) {
  static const char *const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double x = v;
  while (std::fabs(x) >= 1024 && unit < 4) {
    x /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt_number(v) + " B";
  std::ostringstream os;
  os.precision(4);
  os << x << " " << kUnits[unit];
  return os.str();
}

/// A {value, exact, bound, reason} quantity.
std::string fmt_qty(const json &q, bool bytes) {
  if (!q.is_object()) return "-";
  const json &v = q.value("value", json());
  if (v.is_null()) return "unknown (" + q.value("reason", std::string("no reason given")) + ")";
  double x = v.get<double>();
  std::string text = bytes ? fmt_bytes(x) : fmt_number(x);
  if (q.value("exact", false)) return text;
  std::string bound = q.value("bound", std::string());
  return (bound == "lower" ? ">= " : bound == "upper" ? "<= " : "~") + text;
}

/// A {min, max, mean, exact} distribution.
std::string fmt_dist(const json &d, bool bytes) {
  if (!d.is_object() || d.value("mean", json()).is_null())
    return "unknown (" + (d.is_object() ? d.value("reason", std::string("no reason given")) : std::string("-")) + ")";
  auto f = [bytes](const json &x) { return bytes ? fmt_bytes(x.get<double>()) : fmt_number(x.get<double>()); };
  std::string text = d["min"] == d["max"] ? f(d["min"]) : f(d["min"]) + " .. " + f(d["max"]) + " (mean " + f(d["mean"]) + ")";
  if (!d.value("exact", false)) text = "~" + text;
  return text;
}

std::string fmt_loc(const json &loc) {
  if (!loc.is_object()) return "-";
  std::string file = loc.value("file", std::string());
  size_t slash = file.rfind('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(loc.value("line", 0));
}

std::string shape_text(const json &shape, const std::string &dtype) {
  std::string out;
  for (const json &s : shape) out += std::to_string(s.get<long long>()) + "x";
  return out + dtype;
}

struct Section {
  std::string title;
  std::vector<std::pair<std::string, std::string>> rows;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> table;
};

std::vector<Section> view(const json &doc) {
  std::vector<Section> out;
  const json &kernel = doc.at("kernel");
  const json &launch = doc.at("launch");
  const json &cores = doc.at("cores");
  const json &schedule = doc.at("schedule");
  {
    Section s{"Kernel " + kernel.value("name", std::string()), {}, {}, {}};
    s.rows.push_back({"source", fmt_loc(kernel.value("source", json()))});
    std::string grid;
    for (const json &g : launch.at("grid")) grid += (grid.empty() ? "" : " x ") + std::to_string(g.get<long long>());
    s.rows.push_back({"grid", grid + " = " + fmt_number(launch.at("programs").get<double>()) + " programs"});
    std::string args;
    for (const auto &[key, value] : launch.at("args").items()) args += (args.empty() ? "" : ", ") + key + "=" + value.dump();
    s.rows.push_back({"arguments", args.empty() ? "-" : args});
    if (!launch.at("missing_args").empty()) {
      std::string missing;
      for (const json &m : launch.at("missing_args")) missing += (missing.empty() ? "" : ", ") + m.get<std::string>();
      s.rows.push_back({"missing arguments", missing});
    }
    s.rows.push_back({"cores", fmt_number(cores.at("count").get<double>()) + " " + cores.value("type", std::string()) +
                                   " (" + cores.value("profile", std::string()) + ")"});
    s.rows.push_back({"waves", fmt_number(schedule.at("waves").get<double>()) + " (tail wave " +
                                   fmt_number(schedule.at("tail_wave_programs").get<double>()) + " programs, occupancy " +
                                   fmt_number(std::round(schedule.at("occupancy").get<double>() * 1000) / 10) + "%)"});
    s.rows.push_back({"load balance (bytes)", fmt_qty(schedule.at("load_balance").at("bytes"), false)});
    if (schedule.at("persistent").is_object())
      s.rows.push_back({"persistent loop", "axis " + schedule["persistent"].value("axis", std::string()) + " at " +
                                               fmt_loc(schedule["persistent"].value("source", json()))});
    out.push_back(std::move(s));
  }
  {
    Section s{"Memory traffic", {}, {"", "requested / program", "requested total", "unique total", "unique / program (sum)"}, {}};
    for (const char *dir : {"read", "written", "atomic"}) {
      const json &d = doc.at("bytes").at(dir);
      s.table.push_back({dir, fmt_dist(d.at("requested").at("per_program"), true),
                         fmt_qty(d.at("requested").at("total"), true), fmt_qty(d.at("unique_total"), true),
                         fmt_qty(d.at("unique_per_program_sum"), true)});
      if (d.contains("by_arg"))
        for (const json &a : d.at("by_arg"))
          if (a.contains("credit"))
            s.rows.push_back({std::string(dir) + " " + a.value("arg_key", std::string()), a.at("credit").get<std::string>()});
    }
    if (doc.at("bytes").contains("assumes")) s.rows.push_back({"assumes", doc.at("bytes").at("assumes").get<std::string>()});
    out.push_back(std::move(s));
  }
  {
    Section s{"Work", {}, {"class", "type", "per program", "total"}, {}};
    for (const char *cls : {"cube", "vector", "transcendental", "reduction", "scan"})
      for (const auto &[dtype, v] : doc.at("flop").at(cls).items())
        s.table.push_back({std::string(cls) + " FLOP", dtype, fmt_dist(v.at("per_program"), false), fmt_qty(v.at("total"), false)});
    for (const auto &[key, v] : doc.at("flop").at("atomic").items())
      s.table.push_back({"atomic elements", key, "-", fmt_qty(v.at("elements_total"), false)});
    for (const char *cls : {"scalar", "index", "layout"})
      for (const auto &[dtype, v] : doc.at("ops").at(cls).items())
        s.table.push_back({std::string(cls) + " ops", dtype, fmt_dist(v.at("per_program"), false), fmt_qty(v.at("total"), false)});
    out.push_back(std::move(s));
  }
  if (!doc.at("loops").empty()) {
    Section s{"Loops", {}, {"loop", "source", "trip count", "per program", "persistent"}, {}};
    for (const json &l : doc.at("loops")) {
      const json &trip = l.at("trip_count");
      s.table.push_back({std::to_string(l.at("id").get<int>()), fmt_loc(l.value("source", json())),
                         trip.at("symbolic").is_string() ? trip["symbolic"].get<std::string>() + " (" +
                                                               trip.value("status", std::string()) + ")"
                                                         : trip.value("status", std::string()),
                         fmt_dist(trip.at("per_program"), false),
                         l.at("persistent_axis").is_string() ? l["persistent_axis"].get<std::string>() : "-"});
    }
    out.push_back(std::move(s));
  }
  {
    Section s{"Accesses", {}, {"op", "source", "arg", "tile", "runs / program", "active total", "run (last dim)", "mask"}, {}};
    for (const json &a : doc.at("accesses")) {
      std::string mask = a.at("mask").is_object() ? a["mask"].value("kind", std::string()) : "-";
      s.table.push_back({a.value("op", std::string()), fmt_loc(a.value("source", json())),
                         a.at("arg_key").is_string() ? a["arg_key"].get<std::string>() : "?",
                         shape_text(a.at("shape"), a.value("dtype", std::string())),
                         fmt_dist(a.at("executions_per_program"), false), fmt_qty(a.at("active_bytes"), true),
                         fmt_qty(a.at("contiguity").at("run_bytes"), true), mask});
    }
    out.push_back(std::move(s));
  }
  {
    const json &buffers = doc.at("buffers");
    Section s{"On-chip buffers (multibuffer " + std::to_string(buffers.value("multibuffer", 1)) + ")", {}, {}, {}};
    for (const char *name : {"ub", "l1", "l0c"}) {
      const json &b = buffers.at(name);
      std::string line = fmt_qty(b.at("footprint"), true) + " of " + fmt_bytes(b.at("capacity").get<double>()) +
                         (b.value("ok", true) ? " - fits" : " - OVERFLOWS");
      s.rows.push_back({name, line});
      for (const json &t : b.at("largest_live"))
        s.rows.push_back({"", "  " + t.value("name", std::string()) + " " +
                                  shape_text(t.at("shape"), t.value("dtype", std::string())) + " " +
                                  fmt_bytes(t.at("bytes").get<double>()) + " at " + fmt_loc(t.value("source", json()))});
      for (const json &f : b.at("largest_fitting"))
        if (f.at("largest").is_number() && f.at("largest") != f.at("dim"))
          s.rows.push_back({"", "  dimension " + std::to_string(f.at("dim").get<long long>()) + " fits up to " +
                                    std::to_string(f.at("largest").get<long long>())});
    }
    out.push_back(std::move(s));
  }
  auto line_cell = [](const json &entry, const char *key) {
    auto it = entry.find(key);
    return it != entry.end() && it->is_number() ? std::to_string(it->get<int>()) : std::string("-");
  };
  if (!doc.at("unresolved").empty()) {
    Section s{"Unresolved", {}, {"what", "line", "ttir line", "reason", "what would resolve it"}, {}};
    for (const json &u : doc.at("unresolved"))
      s.table.push_back({u.value("what", std::string()),
                         line_cell(u, "line") + (u.value("line_is", json()).is_string() ? " (" + u["line_is"].get<std::string>() + ")" : ""),
                         line_cell(u, "ttir_line"), u.value("reason", std::string()), u.value("hint", std::string("-"))});
    out.push_back(std::move(s));
  }
  if (doc.contains("not_counted") && !doc.at("not_counted").empty()) {
    Section s{"Not counted (ops not modelled)", {}, {"op", "ttir line", "python", "reason"}, {}};
    for (const json &n : doc.at("not_counted"))
      s.table.push_back({n.value("op", std::string()), line_cell(n, "ttir_line"),
                         n.value("python_loc", json()).is_string() ? n["python_loc"].get<std::string>() : "-",
                         n.value("reason", std::string())});
    out.push_back(std::move(s));
  }
  if (doc.contains("given")) {
    // Figures under the launch's facts (assurance "given"), beside the strict ones above.
    const json &given = doc.at("given");
    Section s{"Given facts (assurance: given)", {}, {}, {}};
    for (const json &f : given.at("facts")) s.rows.push_back({f.value("fact", std::string()), f.at("value").dump()});
    std::string used;
    for (const json &u : given.at("used")) used += (used.empty() ? "" : ", ") + u.get<std::string>();
    s.rows.push_back({"used", used.empty() ? "none (every figure they would change is already known)" : used});
    auto given_of = [](const json &q, bool bytes) { return fmt_qty(q.at("given"), bytes); };
    const json &requested = doc.at("bytes").at("requested_total");
    if (requested.contains("given"))
      s.rows.push_back({"requested bytes", given_of(requested, true) + " (strict: " + fmt_qty(requested, true) + ")"});
    const json &flop = doc.at("flop").at("total");
    if (flop.contains("given")) s.rows.push_back({"FLOP", given_of(flop, false) + " (strict: " + fmt_qty(flop, false) + ")"});
    out.push_back(std::move(s));
  }
  return out;
}

std::string as_text(const std::vector<Section> &sections) {
  std::ostringstream os;
  for (const Section &s : sections) {
    os << s.title << "\n";
    size_t width = 0;
    for (const auto &[label, value] : s.rows) width = std::max(width, label.size());
    // Long values (a credit, the no-overlap assumption) wrap at the report width with a hanging indent.
    for (const auto &[label, value] : s.rows)
      os << pb::sdk::text::wrap_line("  " + label + std::string(width - label.size() + 2, ' ') + value) << "\n";
    if (!s.header.empty() && !s.table.empty()) {
      std::vector<size_t> widths(s.header.size(), 0);
      for (size_t c = 0; c < s.header.size(); ++c) widths[c] = s.header[c].size();
      for (const auto &row : s.table)
        for (size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
      auto line = [&](const std::vector<std::string> &cells) {
        os << " ";
        for (size_t c = 0; c < cells.size(); ++c) os << " " << cells[c] << std::string(widths[c] - cells[c].size(), ' ');
        os << "\n";
      };
      line(s.header);
      for (const auto &row : s.table) line(row);
    }
    os << "\n";
  }
  return os.str();
}

std::string md_cell(const std::string &text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string as_md(const std::vector<Section> &sections) {
  std::ostringstream os;
  for (const Section &s : sections) {
    os << "### " << s.title << "\n\n";
    for (const auto &[label, value] : s.rows)
      os << (label.empty() ? "  - " : "- **" + label + "**: ") << md_cell(value) << "\n";
    if (!s.rows.empty()) os << "\n";
    if (!s.header.empty() && !s.table.empty()) {
      os << "|";
      for (const std::string &h : s.header) os << " " << md_cell(h) << " |";
      os << "\n|";
      for (size_t c = 0; c < s.header.size(); ++c) os << " --- |";
      os << "\n";
      for (const auto &row : s.table) {
        os << "|";
        for (const std::string &cell : row) os << " " << md_cell(cell) << " |";
        os << "\n";
      }
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace

std::optional<std::string> render_dsl_facts(const pb::sdk::json &doc, std::string_view format) {
  if (format != "text" && format != "md") return std::nullopt;
  std::vector<Section> sections = view(doc);
  return format == "md" ? as_md(sections) : as_text(sections);
}

}  // namespace perfbound::ttir
