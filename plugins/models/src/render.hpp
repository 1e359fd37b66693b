//===- render.hpp - text and Markdown views of the models' documents ------===//
#ifndef PERFBOUND_MODELS_RENDER_HPP
#define PERFBOUND_MODELS_RENDER_HPP

#include <optional>
#include <string>
#include <string_view>

#include <perfbound/sdk/json.hpp>

namespace pb::models {

/// Configurations a sweep's text / Markdown view lists (the rest are
/// counted), and those its HTML view draws and lists: the CLI builds the
/// document with only these (`--format json` streams every one).
inline constexpr size_t kSweepTextRows = 50;
inline constexpr size_t kSweepHtmlRows = 5000;

/// A sweep configuration's grid and arguments written for people:
/// "[8192, 1, 1]" (no thousands separators in a list), "n_elements=16,777,216".
std::string grid_text(const pb::sdk::json &grid);
std::string args_text(const pb::sdk::json &args);

/// Renders a bound_report, bound_term, findings or sweep document as "text"
/// or "md"; nullopt for other schemas or formats.
std::optional<std::string> render_document(std::string_view schema, const pb::sdk::json &doc, std::string_view format);

/// As above, and also "html" (a fragment, render_html.hpp; `profile` draws
/// the roofline's ceilings, may be null) and "trace" (a bound_report's
/// schedule as trace-event JSON, render_trace.hpp).
std::optional<std::string> render_document(std::string_view schema, const pb::sdk::json &doc, std::string_view format,
                                           const pb::sdk::json *profile);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_RENDER_HPP
