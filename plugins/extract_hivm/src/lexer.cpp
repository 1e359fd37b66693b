//===- lexer.cpp - tokenizer for MLIR's textual syntax ---------------------===//
#include "lexer.hpp"

#include <string>

#include <perfbound/sdk/cancel.hpp>

namespace pb::hivm {

const char *tok_name(Tok kind) {
  switch (kind) {
    case Tok::Eof: return "end of input";
    case Tok::PercentId: return "SSA value";
    case Tok::AtId: return "symbol";
    case Tok::CaretId: return "block label";
    case Tok::HashId: return "attribute alias";
    case Tok::BangId: return "type alias";
    case Tok::BareId: return "identifier";
    case Tok::Integer: return "integer";
    case Tok::Float: return "float";
    case Tok::String: return "string";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LSquare: return "'['";
    case Tok::RSquare: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Less: return "'<'";
    case Tok::Greater: return "'>'";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::Equal: return "'='";
    case Tok::Arrow: return "'->'";
    case Tok::Question: return "'?'";
    case Tok::Star: return "'*'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Slash: return "'/'";
    case Tok::LessEqual: return "'<='";
    case Tok::GreaterEqual: return "'>='";
    case Tok::Error: return "unexpected character";
  }
  return "token";
}

namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// MLIR's suffix-id: digits, or (letter | [$._-]) followed by (letter | digit | [$._-])*.
bool is_suffix_char(char c) { return is_letter(c) || is_digit(c) || c == '$' || c == '.' || c == '_' || c == '-'; }

}  // namespace

void Lexer::reset(size_t offset, uint32_t line) {
  pos_ = offset;
  line_start_ = offset;
  line_ = line;
  last_token_line_ = 0;
}

void Lexer::skip_space_and_comments() {
  const size_t size = buf_.size();
  while (pos_ < size) {
    char c = buf_[pos_];
    if (c == '\n') {
      ++line_;
      ++pos_;
      line_start_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < size && buf_[pos_ + 1] == '/') {
      while (pos_ < size && buf_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

uint32_t Token::column_at(std::string_view buffer, const char *at) {
  const char *base = buffer.data();
  if (at < base || at > base + buffer.size()) return 1;  // not in this buffer
  const char *p = at;
  while (p > base && p[-1] != '\n') --p;
  return static_cast<uint32_t>(at - p + 1);
}

Token Lexer::make(Tok kind, size_t start, bool first) {
  const size_t length = pos_ - start;
  if (length > Token::kMaxLength)
    throw SourceError(line_, static_cast<uint32_t>(start - line_start_ + 1),
                      std::string(tok_name(kind)) + " of " + std::to_string(length) +
                          " bytes: the reader holds tokens of at most " + std::to_string(Token::kMaxLength) + " bytes");
  Token t;
  t.begin = buf_.data() + start;
  t.line = line_;
  t.kind = kind;
  t.first_on_line = first;
  t.length = static_cast<uint32_t>(length);
  last_token_line_ = line_;
  return t;
}

Token Lexer::next() {
  pb::sdk::poll_cancel();  // a 40 MB dump stops within a few thousand tokens of Ctrl-C
  skip_space_and_comments();
  const size_t size = buf_.size();
  const size_t start = pos_;
  const bool first = last_token_line_ != line_;
  if (pos_ >= size) {
    Token t;
    t.begin = buf_.data() + size;
    t.kind = Tok::Eof;
    t.line = line_;
    t.first_on_line = true;
    return t;
  }
  char c = buf_[pos_];
  auto suffix = [&](size_t from) {
    size_t p = from;
    if (p < size && buf_[p] == '"') {  // quoted symbol name
      ++p;
      while (p < size && buf_[p] != '"' && buf_[p] != '\n') p += buf_[p] == '\\' ? 2 : 1;
      if (p < size && buf_[p] == '"') ++p;
      return p;
    }
    while (p < size && is_suffix_char(buf_[p])) ++p;
    return p;
  };
  switch (c) {
    case '%': {
      pos_ = suffix(pos_ + 1);
      // A result-number suffix: %43#2.
      if (pos_ + 1 < size && buf_[pos_] == '#' && is_digit(buf_[pos_ + 1])) {
        ++pos_;
        while (pos_ < size && is_digit(buf_[pos_])) ++pos_;
      }
      return make(Tok::PercentId, start, first);
    }
    case '@': pos_ = suffix(pos_ + 1); return make(Tok::AtId, start, first);
    case '^': pos_ = suffix(pos_ + 1); return make(Tok::CaretId, start, first);
    case '#': pos_ = suffix(pos_ + 1); return make(Tok::HashId, start, first);
    case '!': pos_ = suffix(pos_ + 1); return make(Tok::BangId, start, first);
    case '"': {
      ++pos_;
      while (pos_ < size && buf_[pos_] != '"') {
        if (buf_[pos_] == '\n') break;
        pos_ += buf_[pos_] == '\\' && pos_ + 1 < size ? 2 : 1;
      }
      if (pos_ >= size || buf_[pos_] != '"') {
        error_ = "unterminated string literal";
        return make(Tok::Error, start, first);
      }
      ++pos_;
      return make(Tok::String, start, first);
    }
    case '(': ++pos_; return make(Tok::LParen, start, first);
    case ')': ++pos_; return make(Tok::RParen, start, first);
    case '[': ++pos_; return make(Tok::LSquare, start, first);
    case ']': ++pos_; return make(Tok::RSquare, start, first);
    case '{': ++pos_; return make(Tok::LBrace, start, first);
    case '}': ++pos_; return make(Tok::RBrace, start, first);
    case ',': ++pos_; return make(Tok::Comma, start, first);
    case ':': ++pos_; return make(Tok::Colon, start, first);
    case '=': ++pos_; return make(Tok::Equal, start, first);
    case '?': ++pos_; return make(Tok::Question, start, first);
    case '*': ++pos_; return make(Tok::Star, start, first);
    case '+': ++pos_; return make(Tok::Plus, start, first);
    case '/': ++pos_; return make(Tok::Slash, start, first);
    case '<':
      ++pos_;
      if (pos_ < size && buf_[pos_] == '=') {
        ++pos_;
        return make(Tok::LessEqual, start, first);
      }
      return make(Tok::Less, start, first);
    case '>':
      ++pos_;
      if (pos_ < size && buf_[pos_] == '=') {
        ++pos_;
        return make(Tok::GreaterEqual, start, first);
      }
      return make(Tok::Greater, start, first);
    case '-':
      ++pos_;
      if (pos_ < size && buf_[pos_] == '>') {
        ++pos_;
        return make(Tok::Arrow, start, first);
      }
      return make(Tok::Minus, start, first);
    default: break;
  }
  if (is_digit(c)) {
    if (c == '0' && pos_ + 2 < size && buf_[pos_ + 1] == 'x' && is_hex(buf_[pos_ + 2])) {
      pos_ += 2;
      while (pos_ < size && is_hex(buf_[pos_])) ++pos_;
      return make(Tok::Integer, start, first);
    }
    while (pos_ < size && is_digit(buf_[pos_])) ++pos_;
    bool is_float = false;
    if (pos_ < size && buf_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < size && is_digit(buf_[pos_])) ++pos_;
    }
    if (is_float && pos_ < size && (buf_[pos_] == 'e' || buf_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < size && (buf_[p] == '+' || buf_[p] == '-')) ++p;
      if (p < size && is_digit(buf_[p])) {
        pos_ = p;
        while (pos_ < size && is_digit(buf_[pos_])) ++pos_;
      }
    }
    return make(is_float ? Tok::Float : Tok::Integer, start, first);
  }
  if (is_letter(c) || c == '_') {
    while (pos_ < size && is_id_char(buf_[pos_])) ++pos_;
    return make(Tok::BareId, start, first);
  }
  // Anything else (a stray byte, UTF-8 outside a string) is reported as is.
  ++pos_;
  while (pos_ < size && (static_cast<unsigned char>(buf_[pos_]) & 0xC0) == 0x80) ++pos_;
  return make(Tok::Error, start, first);
}

}  // namespace pb::hivm
