//===- ttir_text.hpp - TTIR text before MLIR reads it ---------------------===//
//
// What the front end does with the TTIR text itself, without MLIR: refuse
// text that is not UTF-8 or nests brackets deeper than MLIR's parser can
// take, recognise the pre-3.0 printed form, rewrite a line whose op belongs
// to a dialect we do not register into MLIR's generic form (an opaque op),
// and count lines. split_sections is declared in ttir_analysis.hpp.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_TTIR_TEXT_HPP
#define PERFBOUND_EXTRACT_TTIR_TTIR_TEXT_HPP

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace perfbound::ttir {

/// A pre-3.0 printed form, if the text has one: `!tt.ptr<T, 1>` (3.x elides
/// address space 1), `allowTF32`, or `tt.splat %x : (T) -> ...`.
std::optional<std::string> legacy_marker(std::string_view text);

/// When the text is a HIVM dump (kernel.npuir.mlir: `func.func` with
/// `hivm.`/`hacc.` ops and no `tt.func`), where it shows: "line 6:
/// func.func @add_kernel with hivm ops". The extractor says so instead of
/// MLIR's "dialect not found".
std::optional<std::string> hivm_marker(std::string_view text);

/// An MLIR diagnostic with every line cut to `width` characters (MLIR
/// echoes the whole source line, which in a dump may be 10 kB long).
std::string shorten_lines(const std::string &message, size_t width = 200);

/// The 1-based line of byte `offset`.
int count_lines_before(std::string_view text, size_t offset);

/// One printed op line whose op belongs to a dialect not in `known`, in
/// MLIR's generic form, so that an MLIR context that allows unregistered
/// dialects reads it as an opaque op: `%r = ttg.foo %a : T loc(#l)` becomes
/// `%r = "ttg.foo"() : () -> (T) loc(#l)` (operands dropped: the analysis
/// treats the op as opaque). nullopt when the line is not such an op or its
/// result types cannot be read (MLIR then reports the line).
std::optional<std::string> generic_form_of_unknown_op(std::string_view line, const std::set<std::string> &known);

/// "origin:line:col: error: ..." for the first byte that is not UTF-8.
std::optional<std::string> invalid_utf8(std::string_view text, const std::string &origin);

/// "origin:line:col: error: ..." where brackets ( [ { < nest deeper than
/// kMaxTtirNesting, outside strings and comments. MLIR's parser recurses on
/// nested regions, attributes, types and locations without a limit of its own.
std::optional<std::string> too_deep(std::string_view text, const std::string &origin);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_TTIR_TEXT_HPP
