//===- report.hpp - reporters over one run result (text, json, md) --------===//
//
// Catch2-style: every reporter renders the same RunResult; adding a format
// means adding one function here and nothing elsewhere. Documents are
// rendered by the plugin that produced them when it offers the
// "perfbound.ext.render/1" extension, and by a generic tree printer
// otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_REPORT_HPP
#define PERFBOUND_HOST_REPORT_HPP

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine.hpp"
#include "plugin_loader.hpp"

namespace perfbound {

/// Formats a `perfbound run` can print.
const std::vector<std::string> &report_formats();

/// Renders `result` in `format` ("text", "json" or "md").
std::string render_report(const RunResult &result, const std::string &format, PluginRegistry &plugins);

/// Generic, readable rendering of any JSON value (used when no plugin
/// renderer applies). `markdown` switches to Markdown lists.
std::string render_json_tree(const nlohmann::json &value, bool markdown);

/// Renders one document with its producer's renderer, if any; falls back to
/// the tree printer.
std::string render_document(const Document &doc, const std::string &producer_plugin, const std::string &format,
                            PluginRegistry &plugins);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_REPORT_HPP
