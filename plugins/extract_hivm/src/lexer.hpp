//===- lexer.hpp - tokenizer for MLIR's textual syntax ---------------------===//
//
// Splits MLIR text (custom and generic printed forms) into tokens that point
// into the caller's buffer. Knows exactly what MLIR's own lexer knows about
// identifiers (`%c-1_i64_37`, `%43#2`, `@"quoted"`, `^bb0`, `#hivm.pipe`),
// strings with escapes, numbers, `->`, and `//` comments; it knows nothing
// about any dialect. Every token records its line and whether it is the first
// token on its line: the parser uses that to find where an operation whose
// custom syntax it does not know ends.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_LEXER_HPP
#define PERFBOUND_EXTRACT_HIVM_LEXER_HPP

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pb::hivm {

enum class Tok : uint8_t {
  Eof,
  PercentId,  // %name, %name#3
  AtId,       // @name, @"quoted name"
  CaretId,    // ^bb0
  HashId,     // #alias, #hivm.address_space
  BangId,     // !tt.ptr
  BareId,     // func.func, memref, x4x16xbf16, true
  Integer,    // 42, 0x1F
  Float,      // 1.5, 9.99999974E-5
  String,     // "text" (text includes the quotes)
  LParen, RParen, LSquare, RSquare, LBrace, RBrace, Less, Greater,
  Comma, Colon, Equal, Arrow, Question, Star, Plus, Minus, Slash, LessEqual, GreaterEqual,
  Error,      // an unexpected character; text is that character
};

const char *tok_name(Tok kind);

/// 16 bytes (a function of 16 MiB has ~4 M of them, all alive while it is
/// analysed): a pointer to its text, its line, its kind, and its length and
/// first-on-line bit packed into the remaining 3 bytes. The column is not stored: column()
/// finds it from the buffer, which only error messages need.
struct Token {
  const char *begin = nullptr;  // into the lexer's buffer
  uint32_t line = 0;            // 1-based
  Tok kind = Tok::Eof;
  bool first_on_line : 1 = false;  // no other token precedes it on its line
  uint32_t length : 23 = 0;

  /// The longest token the reader holds (a longer one is refused with its line and column).
  static constexpr size_t kMaxLength = (size_t{1} << 23) - 1;

  [[nodiscard]] std::string_view text() const { return {begin, length}; }
  /// 1-based column (in bytes) of the token in `buffer`, which holds it.
  [[nodiscard]] uint32_t column(std::string_view buffer) const { return column_at(buffer, begin); }
  /// 1-based column (in bytes) of `at`, a position in `buffer` (or its end).
  static uint32_t column_at(std::string_view buffer, const char *at);
};
static_assert(sizeof(Token) == 16, "Token is kept at 16 bytes: the syntax tree of a large function is mostly tokens");

/// A problem in the input text at a line (and column when known).
class SourceError : public std::runtime_error {
 public:
  SourceError(uint32_t line, uint32_t col, const std::string &message)
      : std::runtime_error(message), line_(line), col_(col) {}
  [[nodiscard]] uint32_t line() const { return line_; }
  [[nodiscard]] uint32_t col() const { return col_; }

 private:
  uint32_t line_;
  uint32_t col_;
};

/// A pull lexer over a buffer the caller keeps alive. Throws SourceError for
/// a token longer than Token::kMaxLength. [thread: instance]
class Lexer {
 public:
  explicit Lexer(std::string_view buffer) : buf_(buffer) {}

  /// Starts lexing at byte `offset`, which must be the start of line `line`.
  void reset(size_t offset, uint32_t line);

  /// The next token (Eof at the end). Comments and whitespace are skipped.
  Token next();

  /// Byte offset just past the last token returned.
  [[nodiscard]] size_t offset() const { return pos_; }
  [[nodiscard]] uint32_t line() const { return line_; }
  [[nodiscard]] std::string_view buffer() const { return buf_; }

  /// Set when a string literal ran to the end of its line or of the input.
  [[nodiscard]] const std::string &error() const { return error_; }

 private:
  void skip_space_and_comments();
  Token make(Tok kind, size_t start, bool first);

  std::string_view buf_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  uint32_t line_ = 1;
  uint32_t last_token_line_ = 0;
  std::string error_;
};

/// True when `c` may continue a bare identifier or suffix id.
inline bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.';
}

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_LEXER_HPP
