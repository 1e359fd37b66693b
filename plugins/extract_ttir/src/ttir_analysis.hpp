//===- ttir_analysis.hpp - parse printed TTIR and model its kernels -------===//
//
// The MLIR-free entry point of the TTIR front end: parses a TTIR text with
// MLIR's parser and our `tt` dialect (every `// -----` section separately,
// line numbers kept) and models each `tt.func` (kernel_model.hpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_TTIR_ANALYSIS_HPP
#define PERFBOUND_EXTRACT_TTIR_TTIR_ANALYSIS_HPP

#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "kernel_model.hpp"

namespace perfbound::ttir {

/// A failure with a message for the user ("path:line:col: error: ...").
struct Error {
  std::string message;
};

/// A value or an Error (LLVM's Expected without LLVM in the interface).
template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  explicit operator bool() const { return state_.index() == 0; }
  T &operator*() { return std::get<0>(state_); }
  T *operator->() { return &std::get<0>(state_); }
  [[nodiscard]] const Error &error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

/// Nesting of brackets ( [ { < refused beyond this (MLIR's parser recurses).
constexpr size_t kMaxTtirNesting = 256;
/// The stack of the thread MLIR parses on: kMaxTtirNesting levels of its
/// recursion with room to spare.
constexpr unsigned kTtirParseStackBytes = 64u << 20;

/// Parses `text` (named `origin` in diagnostics) and models every function.
/// Refused before MLIR sees it: text that is not UTF-8, nesting deeper than
/// kMaxTtirNesting (both with line and column).
/// Errors: MLIR's own diagnostic (file:line:col, the source line, a caret)
/// for syntax or ops we do not know; "pre-3.0 TTIR is not supported" for the
/// legacy printed form.
Expected<TtirModule> analyze_ttir(std::string_view text, const std::string &origin);

/// The sections of a text split at lines starting with `// -----` (lit
/// `--split-input-file` markers and MLIR IR-dump headers). Each section is
/// padded with the newlines that precede it, so line numbers stay those of
/// the whole file. Sections without code are dropped. A line
/// `llvm.intr.assume %c : i1` (LLVM 20+ syntax, printed by Triton >= 3.2) is
/// given in MLIR 19's generic form; nothing else is changed.
std::vector<std::pair<std::string, int>> split_sections(std::string_view text);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_TTIR_ANALYSIS_HPP
