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

#include <cstdint>
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

struct Token {
  Tok kind = Tok::Eof;
  bool first_on_line = false;  // no other token precedes it on its line
  uint32_t line = 0;           // 1-based
  uint32_t col = 0;            // 1-based
  std::string_view text;
};

/// A pull lexer over a buffer the caller keeps alive. [thread: instance]
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
  Token make(Tok kind, size_t start, uint32_t col, bool first);

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
