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
#include <vector>

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

/// Whether the text writes `!tt.ptr` without `<T>` outside comments (seen in
/// lit tests whose pointee types were lost; no Triton parser reads it).
bool has_bare_pointer(std::string_view text);

/// The 1-based line of byte `offset`.
int count_lines_before(std::string_view text, size_t offset);

/// One printed op line whose op belongs to a dialect not in `known`, in
/// MLIR's generic form, so that an MLIR context that allows unregistered
/// dialects reads it as an opaque op: `%r = ttg.foo %a : T loc(#l)` becomes
/// `%r = "ttg.foo"() : () -> (T) loc(#l)` (operands dropped: the analysis
/// treats the op as opaque). nullopt when the line is not such an op or its
/// result types cannot be read (MLIR then reports the line).
std::optional<std::string> generic_form_of_unknown_op(std::string_view line, const std::set<std::string> &known);

/// The op name when `line` starts an op (`%r = name ...` or `name ...`) of a
/// dialect not in `known`; nullopt otherwise (also for `name = value`, an
/// attribute of a dictionary written over several lines).
std::optional<std::string> unknown_op_name(std::string_view line, const std::set<std::string> &known);

/// The section with every op of a dialect not in `known` in MLIR's generic
/// form (generic_form_of_unknown_op); an op written over several lines is
/// joined first, its generic form on its first line and its other lines left
/// empty (line numbers are kept).
std::string make_unknown_ops_opaque(std::string_view section, const std::set<std::string> &known);

/// A `tt.func` as written in a text, found without MLIR (the lines of a
/// function that does not parse are known only from the text).
struct FuncExtent {
  std::string name;        // the symbol, without `@` (quotes removed)
  bool is_public = true;   // `private` / `nested` visibility written
  int first_line = 0;      // the `tt.func` line (1-based, in the text given)
  int last_line = 0;       // the line of the body's closing `}`; the signature's end for a declaration
  bool has_body = false;
};

/// Every `tt.func` of `text` (a section padded to the file's lines), in
/// order: a line whose code starts with `tt.func`; the body is the `{` that
/// ends a line outside parentheses, and ends where its braces balance.
/// Comments and strings are skipped.
std::vector<FuncExtent> function_extents(std::string_view text);

/// True when `text` has a line whose code starts with `// -----` (a lit
/// `--split-input-file` marker or an MLIR IR-dump header).
bool has_split_marker(std::string_view text);

/// The line of the first diagnostic `origin:LINE:COL: error` in an MLIR
/// message, 0 when there is none.
int diagnostic_line(std::string_view message, std::string_view origin);

/// "origin:line:col: error: ..." for the first byte that is not UTF-8.
std::optional<std::string> invalid_utf8(std::string_view text, const std::string &origin);

/// "origin:line:col: error: ..." where brackets ( [ { < nest deeper than
/// kMaxTtirNesting, outside strings and comments. MLIR's parser recurses on
/// nested regions, attributes, types and locations without a limit of its own.
std::optional<std::string> too_deep(std::string_view text, const std::string &origin);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_TTIR_TEXT_HPP
