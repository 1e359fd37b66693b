//===- render.hpp - text and Markdown views of a hivm_program document ----===//
//
// What a user reads after `perfbound run ... --format md`: the functions,
// an op histogram per pipe, the top ops by bytes, repeats and scalar work,
// per-block totals per core, the synchronisation summary (handoffs, barriers,
// component edges), scalar fallbacks, unmodelled ops and estimates.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_RENDER_HPP
#define PERFBOUND_EXTRACT_HIVM_RENDER_HPP

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pb::hivm {

/// Renders a perfbound.hivm_program/1 document as "text" or "md";
/// std::nullopt for other formats.
std::optional<std::string> render_program(const nlohmann::json &doc, std::string_view format);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_RENDER_HPP
