//===- report.cpp - text, json and markdown reporters ---------------------===//
#include "report.hpp"

#include <cstdio>
#include <sstream>

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

}  // namespace

const std::vector<std::string> &report_formats() {
  static const std::vector<std::string> kFormats = {"text", "json", "md"};
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
  const bool md = format == "md";
  std::ostringstream os;
  const std::string file = result.resolved.value("file", "");
  if (md) {
    os << "# perfbound report\n\n";
    os << "- pipeline: `" << file << "`\n";
    os << "- status: **" << result.status << "** (" << result.nodes.size() << " nodes, " << fmt_ms(result.total_ms) << ")\n\n";
  } else {
    os << "perfbound: " << file << ": " << result.status << " (" << result.nodes.size() << " nodes, "
       << fmt_ms(result.total_ms) << ")\n";
  }
  if (!result.diagnostics.empty()) {
    os << (md ? "## Diagnostics\n\n```\n" : "\n") << result.diagnostics.format() << (md ? "```\n\n" : "");
  }
  for (const auto &[name, doc] : result.outputs) {
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
    os << "\n-- nodes --\n";
    size_t width = 4;
    for (const NodeResult &nr : result.nodes) width = std::max(width, nr.id.size());
    for (const NodeResult &nr : result.nodes) {
      os << "  " << nr.id << std::string(width - nr.id.size() + 2, ' ') << node_status_name(nr.status) << "  "
         << fmt_ms(nr.create_ms + nr.run_ms + nr.destroy_ms) << "  " << nr.plugin << "/" << nr.kind << "\n";
      if (!nr.error.empty()) os << "      error: " << nr.error << "\n";
      if (!nr.skipped_because.empty()) os << "      skipped: " << nr.skipped_because << "\n";
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
  return os.str();
}

}  // namespace perfbound
