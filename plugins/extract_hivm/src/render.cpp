//===- render.cpp - text and Markdown views of a hivm_program document ----===//
#include "render.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

namespace pb::hivm {

using json = nlohmann::json;

namespace {

std::string num(const json &v) {
  if (v.is_null()) return "null";
  if (v.is_number_integer()) {
    std::string s = std::to_string(v.get<int64_t>());
    // Thousands separators for readability.
    std::string out;
    int count = 0;
    for (size_t idx = s.size(); idx-- > 0;) {
      out.insert(out.begin(), s[idx]);
      if (std::isdigit(static_cast<unsigned char>(s[idx])) && ++count % 3 == 0 && idx > 0 &&
          std::isdigit(static_cast<unsigned char>(s[idx - 1])))
        out.insert(out.begin(), ',');
    }
    return out;
  }
  if (v.is_number()) {
    std::ostringstream os;
    os << v.get<double>();
    return os.str();
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return v.dump();
}

std::string count_str(const json &c) {
  if (!c.is_object()) return num(c);
  std::string s = num(c.value("value", json()));
  if (!c.value("exact", true)) s += "~";
  return s;
}

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  [[nodiscard]] bool empty() const { return rows_.empty(); }
  [[nodiscard]] std::string render(bool md) const {
    std::ostringstream os;
    if (md) {
      os << "|";
      for (const std::string &h : header_) os << " " << h << " |";
      os << "\n|";
      for (size_t idx = 0; idx < header_.size(); ++idx) os << "---|";
      os << "\n";
      for (const auto &r : rows_) {
        os << "|";
        for (const std::string &c : r) os << " " << c << " |";
        os << "\n";
      }
      return os.str();
    }
    std::vector<size_t> width(header_.size(), 0);
    for (size_t idx = 0; idx < header_.size(); ++idx) width[idx] = header_[idx].size();
    for (const auto &r : rows_)
      for (size_t idx = 0; idx < r.size() && idx < width.size(); ++idx) width[idx] = std::max(width[idx], r[idx].size());
    auto line = [&](const std::vector<std::string> &cells) {
      os << " ";
      for (size_t idx = 0; idx < cells.size(); ++idx) {
        os << " " << cells[idx];
        if (idx + 1 < cells.size()) os << std::string(width[idx] - cells[idx].size() + 1, ' ');
      }
      os << "\n";
    };
    line(header_);
    for (const auto &r : rows_) line(r);
    return os.str();
  }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// A member by reference, or an empty array/object when absent (no temporaries to dangle).
const json &member(const json &doc, const char *key) {
  static const json kEmpty = json::array();
  auto it = doc.find(key);
  return it == doc.end() ? kEmpty : *it;
}

}  // namespace

std::optional<std::string> render_program(const json &doc, std::string_view format) {
  if (format != "text" && format != "md") return std::nullopt;
  const bool md = format == "md";
  std::ostringstream os;
  auto heading = [&](const std::string &title, int level) {
    if (md) os << "\n" << std::string(static_cast<size_t>(level), '#') << " " << title << "\n\n";
    else os << "\n" << title << "\n" << std::string(title.size(), level == 1 ? '=' : '-') << "\n";
  };
  const json &src = member(doc, "source");
  heading("HIVM program: " + src.value("origin", std::string("?")), 1);
  os << "lines " << num(src.value("lines", json())) << ", compiler-output lines skipped "
     << num(src.value("compiler_output_lines", json())) << "; blocks ";
  const json &blocks = member(doc, "blocks");
  os << num(blocks.value("value", json()));
  if (blocks.value("value", json()).is_null()) os << " (" << blocks.value("reason", std::string()) << ")";
  os << "\n";

  heading("Functions", 2);
  Table ft({"#", "function", "core", "mix part", "instances/block", "lines"});
  for (const json &f : member(doc, "functions"))
    ft.row({num(f["index"]), f.value("name", std::string()), f.value("core", std::string()),
            f["mix_part"].is_null() ? "-" : f["mix_part"].get<std::string>(), num(f["instances_per_block"]),
            num(f["line"]) + "-" + num(f["end_line"])});
  os << ft.render(md);

  // Op histogram per pipe: static ops and executions per block.
  heading("Op histogram per pipe (per block)", 2);
  struct Agg {
    int64_t ops = 0;
    int64_t exec = 0;
    bool exact = true;
  };
  std::map<std::string, std::map<std::string, Agg>> by_pipe;
  for (const json &op : member(doc, "ops")) {
    std::string pipe = op["pipes"].empty() ? "-" : op["pipes"].back().get<std::string>();
    std::string key = op.value("core", std::string()) + "." + pipe;
    Agg &a = by_pipe[key][op.value("op", std::string())];
    ++a.ops;
    const json &c = op["count"];
    if (c["value"].is_number()) a.exec += c["value"].get<int64_t>();
    if (!c.value("exact", true)) a.exact = false;
  }
  Table ht({"core.pipe", "op", "static", "executions/block"});
  for (auto &[pipe, names] : by_pipe) {
    std::vector<std::pair<std::string, Agg>> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second.exec > b.second.exec; });
    size_t shown = 0;
    for (const auto &[name, a] : sorted) {
      if (shown++ == 6) {
        ht.row({pipe, "... " + std::to_string(sorted.size() - 6) + " more", "", ""});
        break;
      }
      ht.row({pipe, name, std::to_string(a.ops), num(json(a.exec)) + (a.exact ? "" : "~")});
    }
  }
  os << ht.render(md);

  // Top ops.
  auto top = [&](const char *title, const char *field, const std::vector<std::string> &classes) {
    std::vector<const json *> list;
    for (const json &op : member(doc, "ops")) {
      if (!op.contains("block") || !op["block"].contains(field) || !op["block"][field].is_number()) continue;
      if (!classes.empty() && std::find(classes.begin(), classes.end(), op.value("class", std::string())) == classes.end())
        continue;
      if (op["block"][field].get<int64_t>() <= 0) continue;
      list.push_back(&op);
    }
    std::sort(list.begin(), list.end(),
              [&](const json *a, const json *b) { return (*a)["block"][field].get<int64_t>() > (*b)["block"][field].get<int64_t>(); });
    if (list.empty()) return;
    heading(title, 2);
    Table t({"line", "op", "core", "executions/block", std::string(field) + "/block"});
    for (size_t idx = 0; idx < list.size() && idx < 10; ++idx) {
      const json &op = *list[idx];
      bool est = op.contains("total_reasons") && op["total_reasons"].contains(field);
      t.row({num(op["line"]), op.value("op", std::string()), op.value("core", std::string()), count_str(op["count"]),
             num(op["block"][field]) + (est ? "~" : "")});
    }
    os << t.render(md);
  };
  top("Top transfers by bytes", "bytes", {"dma"});
  top("Top vector ops by repeats", "repeats", {});
  top("Top scalar work by instructions", "scalar_instructions", {});

  // Totals per core.
  heading("Per-block totals per core", 2);
  const json &per_block = doc["totals"]["per_block"];
  for (const auto &[core, t] : per_block.items()) {
    os << (md ? "**" : "") << core << (md ? "**" : "") << ": vector repeats " << num(t["vector"]["repeats"]) << ", vector FLOP "
       << num(t["vector"]["flop"]) << ", cube FLOP " << num(t["cube"]["flop"]) << ", scalar instructions "
       << num(t["scalar"]["instructions"]) << " (fallback " << num(t["scalar"]["fallback_instructions"])
       << "), issued instructions " << num(t["issued_instructions"]) << (t.value("estimated", false) ? " (some estimated)" : "")
       << "\n";
    if (md) os << "\n";
    Table mt({"pipe", "path", "packet bytes", "transfers", "bytes"});
    for (const json &m : t["mte"]) mt.row({num(m["pipe"]), num(m["path"]), num(m["packet_bytes"]), num(m["transfers"]), num(m["bytes"])});
    if (!mt.empty()) os << mt.render(md);
  }

  // Synchronisation.
  heading("Synchronisation", 2);
  const json &sync = doc["sync"];
  std::map<std::string, int> kinds;
  for (const json &h : sync["handoffs"]) ++kinds[h.value("kind", std::string())];
  os << "set/wait handoff groups:";
  for (auto &[k, n] : kinds) os << " " << k << " " << n;
  os << "; cross-core edges " << sync["cross_core"].size() << "\n";
  if (md) os << "\n";
  Table bt({"core", "pipe", "barriers", "executions/block", "by kind"});
  for (const json &b : sync["barriers_per_pipe"]) {
    std::string by;
    for (const auto &[k, v] : b["by_kind"].items()) by += (by.empty() ? "" : ", ") + k + " " + num(v["barriers"]);
    bt.row({num(b["core"]), num(b["pipe"]), num(b["barriers"]), num(b["executions"]) + (b.value("executions_exact", true) ? "" : "~"), by});
  }
  if (!bt.empty()) os << bt.render(md);
  Table ct({"producer", "consumer", "mandatory", "multiplicity/block", "via"});
  for (const json &c : sync["component_edges"]) {
    std::string via;
    if (!c["vias"].empty())
      for (const json &v : c["vias"][0]) via += (via.empty() ? "" : " > ") + v.get<std::string>();
    ct.row({num(c["producer"]), num(c["consumer"]), num(c["mandatory"]), num(c["multiplicity"]), via.empty() ? "-" : via});
  }
  if (!ct.empty()) {
    heading("Component edges (distinct producer -> consumer)", 3);
    os << ct.render(md);
  }

  const json &fallbacks = member(doc, "fallbacks");
  if (!fallbacks.empty()) {
    heading("Scalar fallbacks (" + std::to_string(fallbacks.size()) + ")", 2);
    std::vector<const json *> list;
    for (const json &f : fallbacks) list.push_back(&f);
    std::sort(list.begin(), list.end(), [](const json *a, const json *b) {
      return (*a)["count_per_block"].get<int64_t>() > (*b)["count_per_block"].get<int64_t>();
    });
    Table t({"line", "op", "executions/block", "cause"});
    for (size_t idx = 0; idx < list.size() && idx < 10; ++idx)
      t.row({num((*list[idx])["line"]), num((*list[idx])["name"]), num((*list[idx])["count_per_block"]), num((*list[idx])["cause"])});
    os << t.render(md);
  }
  const json &unmodelled = member(doc, "unmodelled");
  heading("Unmodelled ops", 2);
  if (unmodelled.empty()) {
    os << "none\n";
  } else {
    Table t({"op", "count", "lines", "reason"});
    for (const json &u : unmodelled) {
      std::string lines;
      for (const json &l : u["lines"]) lines += (lines.empty() ? "" : ",") + num(l);
      t.row({num(u["op"]), num(u["count"]), lines, num(u["reason"])});
    }
    os << t.render(md);
  }
  os << "\nestimates " << member(doc, "estimates").size() << ", unresolved "
     << member(doc, "unresolved").size() << " (see the JSON document)\n";
  for (const json &w : member(doc, "warnings")) os << (md ? "- " : "warning: ") << w.get<std::string>() << "\n";
  return os.str();
}

}  // namespace pb::hivm
