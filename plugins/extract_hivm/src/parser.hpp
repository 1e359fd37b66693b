//===- parser.hpp - reads a raw HIVM dump into operations ------------------===//
//
// A raw `kernel.npuir.mlir` is a process capture: compiler warnings before and
// after the IR, `// -----// IR Dump After ...` headers, one `func.func` per
// mix part, sometimes `module { ... }` wrappers and `#alias = ...` lines.
// FileReader walks it line by line at the top level: it parses every line that
// starts IR (a function, a module, an alias) with the MLIR parser below and
// records every other line as compiler output. Inside a function everything
// must be IR; anything else is an error with its line.
//
// The operation parser knows MLIR's generic syntax (results, regions, blocks,
// balanced brackets) but no dialect's custom syntax. An operation ends where
// the next one starts: a line whose first token begins a statement
// (`%x = ...`, `dialect.op ...`, `"dialect.op"(`, `^bb`, `return`) or the '}'
// closing its region. A '{' opens a region when its first token starts a line
// with a statement or a block label, and an attribute dictionary otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_PARSER_HPP
#define PERFBOUND_EXTRACT_HIVM_PARSER_HPP

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir.hpp"

namespace pb::hivm {

/// A line outside the IR (compiler output) or an IR dump header.
struct TopLevelLine {
  enum class Kind { Diagnostic, DumpHeader, Text };
  Kind kind = Kind::Text;
  uint32_t line = 0;
  std::string_view text;
};

/// Context of a function: the module(s) around it.
struct FunctionContext {
  uint32_t index = 0;                     // 0-based, in file order
  std::string_view dump_header;           // the last "IR Dump After ..." header before it
  std::vector<const Op *> modules;        // enclosing modules, outermost first
};

/// Nesting limits: regions in regions, and brackets within one operation.
/// The parser and the analyses recurse on nesting; deeper input is refused
/// with its line instead of overflowing the stack.
constexpr size_t kMaxNesting = 256;
/// Results of one group (`%x:N`).
constexpr uint64_t kMaxResults = 1u << 16;

/// Throws SourceError at the line and column of the first byte that is not
/// valid UTF-8. `first_line` is the line of text[0].
void check_utf8(std::string_view text, uint32_t first_line = 1);

/// One input of a lit file (mlir-opt --split-input-file): bytes [begin, end)
/// of the file, starting on line `first_line`.
struct Section {
  size_t begin = 0, end = 0;
  uint32_t first_line = 1;
};

/// The file cut as mlir-opt's --split-input-file cuts it
/// (mlir/lib/Support/ToolUtilities.cpp, splitAndProcessBuffer): at every
/// `// -----` followed by one more character that is not '0' (so `// ---------`
/// and `// -----//` cut too; `// ----` does not); the 8 characters of the
/// marker belong to neither side. Always at least one section.
std::vector<Section> split_sections(std::string_view text);

/// Whether a line of `text` is exactly `// -----` (surrounding blanks
/// ignored): the sign of a lit file, which `split = auto` cuts.
bool has_split_marker_line(std::string_view text);

/// A function found in a file, for choosing a kernel: its name (without the
/// '@') and the line of its `func.func`.
struct FunctionSite {
  std::string name;
  uint32_t line = 0;
};

/// Reads a whole file, or one section of one (`text` is the section, whose
/// first byte is on line `first_line` of the file: every line reported is a
/// line of the file). [thread: instance]
class FileReader {
 public:
  explicit FileReader(std::string_view text, uint32_t first_line = 1) : text_(text), first_line_(first_line) {}

  /// Parses the file and calls `on_function` for every function with a body,
  /// in file order. The Op is only valid during the call. Throws SourceError
  /// on malformed IR (and when no function is found).
  void read(const std::function<void(const Op &, const FunctionContext &)> &on_function);
  /// The functions with a body, in order, without analysing or verifying them
  /// (only an input whose structure cannot be read throws); an input without
  /// functions gives none.
  std::vector<FunctionSite> list_functions();

  [[nodiscard]] const std::vector<TopLevelLine> &lines() const { return lines_; }
  /// `#name = ...` definitions: name -> source text of the value.
  [[nodiscard]] const std::map<std::string_view, std::string_view, std::less<>> &aliases() const { return aliases_; }
  [[nodiscard]] uint32_t line_count() const { return line_count_; }
  /// Function declarations without a body (skipped): name and line.
  [[nodiscard]] const std::vector<std::pair<std::string_view, uint32_t>> &declarations() const { return declarations_; }
  /// What the verifier could not prove (verify.hpp), e.g. non-constant loop steps,
  /// and the top-level operations that are not functions (ignored).
  [[nodiscard]] const std::vector<std::string> &warnings() const { return warnings_; }

 private:
  void visit_module_body(const Op &module, std::vector<const Op *> &stack,
                         const std::function<void(const Op &, const FunctionContext &)> &on_function);
  void handle_top_level_op(const Op &op, std::vector<const Op *> &stack,
                           const std::function<void(const Op &, const FunctionContext &)> &on_function);
  /// Enters `name` (a symbol of `op`) in the symbol table of the innermost
  /// module; a second definition is refused naming both lines.
  void define_symbol(std::string_view name, const Op &op);
  /// Refuses an alias whose value refers back to itself (directly or through other aliases).
  void check_alias_cycles() const;

  std::string_view text_;
  uint32_t first_line_ = 1;
  bool listing_ = false;  // list_functions(): no verification, no symbol or alias checks
  std::vector<TopLevelLine> lines_;
  std::map<std::string_view, std::string_view, std::less<>> aliases_;
  std::map<std::string_view, uint32_t, std::less<>> alias_lines_;
  std::vector<std::pair<std::string_view, uint32_t>> declarations_;
  std::vector<std::string> warnings_;
  std::vector<std::map<std::string, uint32_t, std::less<>>> symbols_;  // per enclosing module, outermost first
  std::string_view current_header_;
  uint32_t function_count_ = 0;
  uint32_t line_count_ = 0;
};

/// The symbol an op defines: `@name` (its first @-identifier outside brackets,
/// before its regions) or the generic form's `sym_name`; empty when none.
std::string symbol_of(const Op &op);

/// Parses one operation from `text` (which must start with it). For tests.
Op parse_single_op(std::string_view text);

/// The source text spanned by tokens [first, last] (both inclusive).
std::string_view span(const Token &first, const Token &last);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_PARSER_HPP
