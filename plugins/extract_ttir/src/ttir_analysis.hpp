//===- ttir_analysis.hpp - parse printed TTIR and model its kernels -------===//
//
// The MLIR-free entry point of the TTIR front end: parses a TTIR text with
// MLIR's parser and our `tt` dialect (every `// -----` section separately,
// line numbers kept) and models each `tt.func` (kernel_model.hpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_TTIR_ANALYSIS_HPP
#define PERFBOUND_EXTRACT_TTIR_TTIR_ANALYSIS_HPP

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kernel_model.hpp"

namespace perfbound::ttir {

/// A failure with a message for the user ("path:line:col: error: ...").
struct Error {
  std::string message;
  /// When every function of the text was refused: each of them, with its
  /// own message (`message` is the first one's).
  std::vector<Refusal> refused = {};
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

/// How a text with `// -----` lines is read: `Auto` splits it there when it
/// has such a line (lit's --split-input-file), `On` always, `Off` never (the
/// lines are comments and the text is one module).
enum class SplitMode { Auto, On, Off };

/// "auto" | "on" | "off"; nullopt for anything else.
std::optional<SplitMode> split_mode_named(std::string_view name);

/// Parses `text` (named `origin` in diagnostics) and models every function,
/// each section (SplitMode) on its own.
/// A function MLIR refuses (its syntax, an op we do not know, its verifier,
/// a constant loop step <= 0, a symbol defined twice in one section) is
/// listed in TtirModule::refused with MLIR's diagnostic (file:line:col, the
/// source line, a caret) and the others are analysed; an error outside every
/// function refuses the functions of its section. Refused before MLIR sees
/// it: text that is not UTF-8 (the whole text), brackets nested deeper than
/// kMaxTtirNesting (its section); "pre-3.0 TTIR is not supported" prefixes
/// the diagnostic of the legacy printed form.
/// An Error only when nothing is left: the text is not UTF-8, or every
/// function was refused (the first refusal's message, and how many more).
Expected<TtirModule> analyze_ttir(std::string_view text, const std::string &origin,
                                  SplitMode split = SplitMode::Auto);

/// The sections of a text split at lines starting with `// -----` (lit
/// `--split-input-file` markers and MLIR IR-dump headers; with `split`
/// false the whole text is one section). Each section is padded with the
/// newlines that precede it, so line numbers stay those of the whole file.
/// Sections without code are dropped. A line `llvm.intr.assume %c : i1`
/// (LLVM 20+ syntax, printed by Triton >= 3.2) is given in MLIR 19's generic
/// form; nothing else is changed.
std::vector<std::pair<std::string, int>> split_sections(std::string_view text, bool split = true);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_TTIR_ANALYSIS_HPP
