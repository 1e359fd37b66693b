//===- report.cpp - text, json and markdown reporters ---------------------===//
#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include <perfbound/sdk/html.hpp>
#include <perfbound/sdk/text.hpp>

namespace perfbound {
namespace {

std::string fmt_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), ms < 10 ? "%.2f ms" : "%.1f ms", ms);
  return buf;
}

std::string scalar_text(const json &v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "null";
  if (v.is_number_float()) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.6g", v.get<double>());
    return buf;
  }
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool is_scalar(const json &v) { return !v.is_object() && !v.is_array(); }

/// "1 node", "14 nodes".
std::string nodes_text(size_t n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); }

void tree(std::ostringstream &os, const json &v, int depth, bool md) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  const std::string bullet = md ? "- " : "";
  if (v.is_object()) {
    for (const auto &[key, child] : v.items()) {
      if (key == "schema" && depth == 0) continue;
      if (is_scalar(child)) {
        os << pad << bullet << (md ? "**" + key + "**" : key) << ": " << scalar_text(child) << "\n";
      } else if (child.is_array() && std::all_of(child.begin(), child.end(), is_scalar) && child.size() <= 16) {
        os << pad << bullet << (md ? "**" + key + "**" : key) << ": [";
        for (size_t idx = 0; idx < child.size(); ++idx) os << (idx ? ", " : "") << scalar_text(child[idx]);
        os << "]\n";
      } else {
        os << pad << bullet << (md ? "**" + key + "**" : key) << ":" << (child.empty() ? " (empty)" : "") << "\n";
        tree(os, child, depth + 1, md);
      }
    }
  } else if (v.is_array()) {
    const size_t limit = 20;
    for (size_t idx = 0; idx < v.size() && idx < limit; ++idx) {
      const json &child = v[idx];
      if (is_scalar(child)) {
        os << pad << "- " << scalar_text(child) << "\n";
      } else {
        os << pad << "- [" << idx << "]\n";
        tree(os, child, depth + 1, md);
      }
    }
    if (v.size() > limit) os << pad << "- ... " << (v.size() - limit) << " more\n";
  } else {
    os << pad << scalar_text(v) << "\n";
  }
}

void sink_append(void *sink_data, const char *text, size_t size) {
  static_cast<std::string *>(sink_data)->append(text, size);
}

/// The producer plugin's rendering of `doc` in `format`, or nullopt when it
/// offers none.
std::optional<std::string> plugin_render(const Document &doc, const std::string &producer_plugin, const std::string &format,
                                         PluginRegistry &plugins) {
  LoadedLibrary *lib = plugins.loaded(producer_plugin);
  if (lib == nullptr) return std::nullopt;
  const auto *ext = static_cast<const pb_ext_render *>(lib->extension(PB_EXT_RENDER));
  if (ext == nullptr) return std::nullopt;
  std::string out;
  if (ext->render(doc.schema().c_str(), doc.data().c_str(), doc.data().size(), format.c_str(), &sink_append, &out) != PB_OK)
    return std::nullopt;
  return out;
}

std::string output_plugin(const RunResult &result, const std::string &name) {
  return result.output_plugins.count(name) ? result.output_plugins.at(name) : "";
}

/// Format "html": one self-contained page; each output drawn by its
/// producer's renderer (a fragment), else shown as a collapsed tree.
std::string render_html_report(const RunResult &result, PluginRegistry &plugins) {
  namespace h = pb::sdk::html;
  std::ostringstream os;
  const std::string file = result.resolved.value("file", "");
  std::string kernel;
  for (const auto &[name, doc] : result.outputs)
    if (kernel.empty() && doc->parsed().is_object() && doc->parsed().contains("kernel") && doc->parsed()["kernel"].is_object())
      kernel = doc->parsed()["kernel"].value("name", "");
  os << "<p class=\"muted\">perfbound report: pipeline <code>" << h::escape(file) << "</code>, status <b>" << h::escape(result.status)
     << "</b> (" << nodes_text(result.nodes.size()) << ", " << h::escape(fmt_ms(result.total_ms)) << ")</p>\n";
  if (!result.diagnostics.empty())
    os << "<section class=\"pb-card\"><h2>Diagnostics</h2><pre>" << h::escape(result.diagnostics.format()) << "</pre></section>\n";
  for (const auto &[name, doc] : result.outputs) {
    if (std::optional<std::string> frag = plugin_render(*doc, output_plugin(result, name), "html", plugins)) {
      os << "<div class=\"pb-output\" data-output=\"" << h::escape(name) << "\" data-schema=\"" << h::escape(doc->schema()) << "\">\n"
         << *frag << "</div>\n";
      continue;
    }
    // No HTML view: the producer's text view (the facts of the TTIR tier are
    // a table a reader knows from the terminal), else the document as a tree.
    const json &parsed = doc->parsed();
    std::optional<std::string> text = plugin_render(*doc, output_plugin(result, name), "text", plugins);
    os << "<section class=\"pb-card pb-output\" data-output=\"" << h::escape(name) << "\" data-schema=\"" << h::escape(doc->schema())
       << "\"><details><summary>output <b>" << h::escape(name) << "</b> (" << h::escape(doc->schema()) << ")</summary><pre>"
       << h::escape(text                   ? *text
                    : parsed.is_discarded() ? std::string("(document is not valid JSON)")
                                            : render_json_tree(parsed, false))
       << "</pre></details></section>\n";
  }
  os << "<section class=\"pb-card\"><h2>Nodes</h2><table class=\"pb-sortable\"><thead><tr><th>node</th><th>plugin / kind</th><th>status</th>"
        "<th class=\"num\">ms</th><th>note</th></tr></thead><tbody>\n";
  for (const NodeResult &nr : result.nodes) {
    const double ms = nr.create_ms + nr.run_ms + nr.destroy_ms;
    os << "<tr><td>" << h::escape(nr.id) << "</td><td>" << h::escape(nr.plugin + " / " + nr.kind) << "</td><td>"
       << h::escape(node_status_name(nr.status)) << "</td><td class=\"num\" data-v=\"" << ms << "\">" << h::escape(fmt_ms(ms)) << "</td><td>"
       << h::escape(!nr.error.empty() ? nr.error : nr.skipped_because) << "</td></tr>\n";
  }
  os << "</tbody></table></section>\n";
  const json &prov = result.provenance;
  if (prov.contains("perfbound")) {
    os << "<section class=\"pb-card\"><h2>Provenance</h2><ul><li>perfbound " << h::escape(prov["perfbound"].value("version", "?")) << " ("
       << h::escape(prov["perfbound"].value("git_sha", "?")) << ", ABI " << h::escape(prov["perfbound"].value("abi", "?")) << ")</li>";
    for (const json &p : prov.value("plugins", json::array()))
      os << "<li>plugin <code>" << h::escape(p.value("id", "")) << "</code> " << h::escape(p.value("version", "")) << " (ABI "
         << h::escape(p.value("abi", "")) << ")</li>";
    for (const json &i : prov.value("inputs", json::array()))
      os << "<li>input <code>" << h::escape(i.value("name", "")) << "</code>: "
         << h::escape(i.value("path", i.contains("value") ? i["value"].dump() : "")) << (i.contains("sha256") ? " <span class=\"muted\">sha256 " + h::escape(i["sha256"].get<std::string>().substr(0, 12)) + "</span>" : "")
         << "</li>";
    os << "</ul></section>\n";
  }
  return h::page("perfbound: " + (kernel.empty() ? file : kernel), os.str());
}

/// Format "trace": the trace events of every output whose producer draws
/// one, merged (each output's processes kept apart by a pid offset).
std::string render_trace_report(const RunResult &result, PluginRegistry &plugins) {
  json events = json::array();
  json sources = json::array();
  int offset = 0;
  for (const auto &[name, doc] : result.outputs) {
    std::optional<std::string> text = plugin_render(*doc, output_plugin(result, name), "trace", plugins);
    if (!text) continue;
    json trace = json::parse(*text, nullptr, false);
    if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) continue;
    for (json &e : trace["traceEvents"]) {
      if (e.contains("pid") && e["pid"].is_number_integer()) e["pid"] = e["pid"].get<int64_t>() + offset;
      events.push_back(std::move(e));
    }
    sources.push_back({{"output", name}, {"schema", doc->schema()}, {"metadata", trace.value("metadata", json::object())}});
    offset += 100;
  }
  json meta = {{"pipeline", result.resolved.value("file", "")}, {"status", result.status}, {"outputs", sources}};
  if (sources.empty()) meta["reason"] = "no output of this run can be drawn as a trace (a bound report can)";
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"metadata", meta}}.dump(1) + "\n";
}

}  // namespace

const std::vector<std::string> &report_formats() {
  static const std::vector<std::string> kFormats = {"text", "json", "md", "html", "trace"};
  return kFormats;
}

std::string render_json_tree(const json &value, bool markdown) {
  std::ostringstream os;
  tree(os, value, 0, markdown);
  return os.str();
}

std::string render_document(const Document &doc, const std::string &producer_plugin, const std::string &format,
                            PluginRegistry &plugins) {
  if (LoadedLibrary *lib = plugins.loaded(producer_plugin)) {
    if (const auto *ext = static_cast<const pb_ext_render *>(lib->extension(PB_EXT_RENDER))) {
      std::string out;
      pb_status st = ext->render(doc.schema().c_str(), doc.data().c_str(), doc.data().size(), format.c_str(),
                                 &sink_append, &out);
      if (st == PB_OK) return out;
    }
  }
  const json &parsed = doc.parsed();
  if (parsed.is_discarded()) return "(document is not valid JSON)\n";
  return render_json_tree(parsed, format == "md");
}

std::string render_report(const RunResult &result, const std::string &format, PluginRegistry &plugins) {
  if (format == "json") return result.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (format == "html") return render_html_report(result, plugins);
  if (format == "trace") return render_trace_report(result, plugins);
  const bool md = format == "md";
  std::ostringstream os;
  const std::string file = result.resolved.value("file", "");
  if (md) {
    os << "# perfbound report\n\n";
    os << "- pipeline: `" << file << "`\n";
    os << "- status: **" << result.status << "** (" << nodes_text(result.nodes.size()) << ", " << fmt_ms(result.total_ms) << ")\n\n";
  } else {
    os << "perfbound: " << file << ": " << result.status << " (" << nodes_text(result.nodes.size()) << ", "
       << fmt_ms(result.total_ms) << ")\n";
  }
  if (!result.diagnostics.empty()) {
    os << (md ? "## Diagnostics\n\n```\n" : "\n") << result.diagnostics.format() << (md ? "```\n\n" : "");
  }
  // A run that did not finish names the outputs its nodes did produce rather
  // than printing them in full: what the reader needs first is why it failed
  // (the nodes below); --format json and --out keep every document.
  if (result.status != "ok" && !result.outputs.empty()) {
    std::string names;
    for (const auto &[name, doc] : result.outputs) {
      const std::string producer = result.output_producers.count(name) ? result.output_producers.at(name) : "";
      names += (names.empty() ? "" : ", ") + name + " (" + doc->schema() + (producer.empty() ? "" : ", from " + producer) + ")";
    }
    os << "\nOutputs produced before the run stopped, not shown here (--format json or --out DIR has them): "
       << names << "\n";
  }
  for (const auto &[name, doc] : result.outputs) {
    if (result.status != "ok") break;
    const std::string producer = result.output_producers.count(name) ? result.output_producers.at(name) : "";
    const std::string plugin = result.output_plugins.count(name) ? result.output_plugins.at(name) : "";
    if (md)
      os << "## Output `" << name << "` (" << doc->schema() << ", from `" << producer << "`)\n\n";
    else
      os << "\n== " << name << " (" << doc->schema() << ", from " << producer << ") ==\n";
    os << render_document(*doc, plugin, format, plugins);
    if (md) os << "\n";
  }
  if (md) {
    os << "## Nodes\n\n| node | plugin / kind | status | create | run | note |\n|---|---|---|---:|---:|---|\n";
    for (const NodeResult &nr : result.nodes) {
      std::string note = !nr.error.empty() ? nr.error : nr.skipped_because;
      os << "| " << nr.id << " | " << nr.plugin << " / " << nr.kind << " | " << node_status_name(nr.status) << " | "
         << fmt_ms(nr.create_ms) << " | " << fmt_ms(nr.run_ms) << " | " << note << " |\n";
    }
  } else {
    // The nodes that ran well in one line; a failed or skipped node on its
    // own lines with why (--format md or json lists every node).
    size_t ok_nodes = 0;
    double ok_ms = 0;
    std::vector<const NodeResult *> other;
    for (const NodeResult &nr : result.nodes) {
      if (nr.status == NodeStatus::Ok) {
        ++ok_nodes;
        ok_ms += nr.create_ms + nr.run_ms + nr.destroy_ms;
      } else {
        other.push_back(&nr);
      }
    }
    os << "\n-- nodes: " << ok_nodes << " of " << result.nodes.size() << " ok (" << fmt_ms(ok_ms) << " of node time) --\n";
    // Failed nodes one by one with their error; nodes skipped for the same
    // reason (most often: downstream of the failed one) on one line together.
    std::vector<std::pair<std::string, std::vector<const NodeResult *>>> skipped;
    for (const NodeResult *nr : other) {
      if (nr->status == NodeStatus::Skipped && nr->error.empty()) {
        auto same = std::find_if(skipped.begin(), skipped.end(),
                                 [&](const auto &group) { return group.first == nr->skipped_because; });
        if (same == skipped.end()) skipped.push_back({nr->skipped_because, {nr}});
        else same->second.push_back(nr);
        continue;
      }
      os << "  " << nr->id << "  " << node_status_name(nr->status) << "  " << nr->plugin << "/" << nr->kind << "\n";
      if (!nr->error.empty()) os << "      error: " << nr->error << "\n";
      if (!nr->skipped_because.empty()) os << "      skipped: " << nr->skipped_because << "\n";
    }
    for (const auto &[because, nodes] : skipped) {
      if (nodes.size() == 1) {
        const NodeResult *nr = nodes.front();
        os << "  " << nr->id << "  skipped  " << nr->plugin << "/" << nr->kind << "\n";
        os << "      skipped: " << because << "\n";
        continue;
      }
      std::string ids;
      for (const NodeResult *nr : nodes) ids += (ids.empty() ? "" : ", ") + nr->id;
      os << "  " << nodes_text(nodes.size()) << " skipped (" << (because.empty() ? "no reason given" : because)
         << "): " << ids << "\n";
    }
  }
  const json &prov = result.provenance;
  if (prov.contains("perfbound")) {
    std::string line = "perfbound " + prov["perfbound"].value("version", "?") + " (" + prov["perfbound"].value("git_sha", "?") +
                       ", ABI " + prov["perfbound"].value("abi", "?") + ")";
    if (md) {
      os << "\n## Provenance\n\n- " << line << "\n";
      for (const json &p : prov.value("plugins", json::array()))
        os << "- plugin `" << p.value("id", "") << "` " << p.value("version", "") << " (ABI " << p.value("abi", "") << ")\n";
      for (const json &i : prov.value("inputs", json::array()))
        os << "- input `" << i.value("name", "") << "`: " << i.value("path", i.contains("value") ? i["value"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "")
           << (i.contains("sha256") ? " sha256 " + i["sha256"].get<std::string>().substr(0, 12) : "") << "\n";
    } else {
      os << "\n-- provenance --\n  " << line << "\n";
      for (const json &p : prov.value("plugins", json::array()))
        os << "  plugin " << p.value("id", "") << " " << p.value("version", "") << " (ABI " << p.value("abi", "") << ")\n";
      for (const json &i : prov.value("inputs", json::array()))
        os << "  input " << i.value("name", "") << ": " << i.value("path", i.contains("value") ? i["value"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "")
           << (i.contains("sha256") ? "  sha256:" + i["sha256"].get<std::string>().substr(0, 12) : "") << "\n";
    }
  }
  // Text fits 100 columns, wrapped (Markdown is left to its renderer).
  return md ? os.str() : pb::sdk::text::wrap_lines(os.str());
}

}  // namespace perfbound
