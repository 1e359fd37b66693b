//===- op_syntax.hpp - reading the parts of an op's text ------------------===//
//
// Token-level helpers the passes use to read an op, in MLIR's custom or
// generic form: the generic form's operands, properties, attributes and
// types; named attributes; enum words and integers; trailing result types;
// bracketed lists such as [0, %13, 1]; the Python location of a trailing
// loc(...). Input: the op's tokens (tokens.hpp); nothing is evaluated.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_OP_SYNTAX_HPP
#define PERFBOUND_EXTRACT_HIVM_OP_SYNTAX_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "function_ir.hpp"
#include "tokens.hpp"

namespace pb::hivm::analysis {

/// The parts of an op printed in MLIR's generic form.
struct GenericParts {
  std::vector<std::string_view> operands;
  TokSpan props;  // inside <{ ... }>
  TokSpan attrs;  // inside { ... }
  std::vector<TokSpan> operand_types, result_types;
  bool has_function_type = false;  // `: (...) -> ...` was printed
};
GenericParts generic_parts(const Op &op);

/// The first operand: the generic form's first, else a leading %name ("" when none).
std::string_view leading_operand(const Op &op);

/// The value of `name = value` in an attribute dictionary's tokens.
std::optional<TokSpan> named_attr(TokSpan dict, std::string_view name);
bool has_word(TokSpan s, std::string_view word);
/// First enum-like identifier inside an attribute value: "#hivm.pipe<PIPE_V>" or "<PIPE_V>" -> "PIPE_V".
std::string_view enum_word(TokSpan s);
std::optional<int64_t> first_int(TokSpan s);
/// A Python source location from a trailing loc(...), resolving #loc aliases:
/// the first file location in textual order (for callsite(callee at caller): the callee).
std::string location_of(TokSpan s, const AliasMap &aliases, int depth = 0);
/// Where a top-level trailing loc(...) starts.
std::optional<size_t> find_loc(TokSpan s);
/// Trailing result types of a custom-form op: after the last top-level ':' (or '->'),
/// the part after 'to'/'into' when present.
std::vector<TokSpan> trailing_types(const Op &op);

/// Entries of a bracketed list like [0, %13, 1] as static values or SSA names.
struct ListEntry {
  int64_t c = kDynamic;
  std::string_view name;
};
std::vector<ListEntry> list_entries(TokSpan inner);
/// The '[' group that follows BareId `kw` (optionally with ':' in between).
std::optional<TokSpan> list_after(TokSpan s, std::string_view kw);

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_OP_SYNTAX_HPP
