//===- render_html.hpp - the models' documents as HTML with inline SVG ----===//
//
// Format "html" of perfbound.ext.render/1: an HTML fragment (XHTML-
// compatible, self-contained: inline SVG and CSS, no network) that the host
// places inside its page. A bound report draws its header (bound, assurance,
// verdict, coverage), a log-log roofline with the profile's ceilings, a
// waterfall from the strict bound to the measured time, the busy time per
// core type and component, the findings with their source lines, terms,
// rates and what was not counted. A sweep draws the bound per configuration.
// The profile (perfbound.profile/1) gives the roofline's ceilings; without
// it the roofline says so and draws the kernel's points only.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_RENDER_HTML_HPP
#define PERFBOUND_MODELS_RENDER_HTML_HPP

#include <optional>
#include <string>
#include <string_view>

#include <perfbound/sdk/json.hpp>

namespace pb::models {

/// The HTML fragment of a bound_report, bound_term, findings or sweep
/// document; nullopt for other schemas. `profile` may be null.
std::optional<std::string> render_html(std::string_view schema, const pb::sdk::json &doc, const pb::sdk::json *profile);

/// A whole self-contained page around render_html (for commands that write
/// a file themselves, such as `perfbound sweep --format html`).
std::string render_html_page(std::string_view schema, const pb::sdk::json &doc, const pb::sdk::json *profile);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_RENDER_HTML_HPP
