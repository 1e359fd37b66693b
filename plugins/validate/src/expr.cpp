//===- expr.cpp - recursive-descent evaluator for spec arithmetic ---------===//
#include "expr.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace perfbound::validate {

namespace {

/// Nesting (parentheses, function calls, unary signs) deeper than this is
/// refused before the recursion could exhaust the stack (docs/cli.md, Limits).
constexpr int kMaxExpressionDepth = 256;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  double parse() {
    double value = sum();
    skip_space();
    if (pos_ < text_.size()) fail(std::string("unexpected '") + text_[pos_] + "'");
    if (!std::isfinite(value)) fail_at(0, "the result is not a finite number");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string &message) const { fail_at(pos_, message); }
  [[noreturn]] void fail_at(size_t pos, const std::string &message) const {
    // A hostile expression may be 100k characters long: quote its start only.
    std::string shown = text_.size() > 80 ? std::string(text_.substr(0, 60)) + "..." : std::string(text_);
    throw std::invalid_argument("in '" + shown + "' at column " + std::to_string(pos + 1) + ": " + message);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }

  /// Counts one level of nesting for as long as it lives.
  class Nest {
   public:
    explicit Nest(Parser &p) : p_(p) {
      if (++p_.depth_ > kMaxExpressionDepth)
        p_.fail("nesting deeper than " + std::to_string(kMaxExpressionDepth) + " levels (parentheses, calls or signs)");
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest &) = delete;
    Nest &operator=(const Nest &) = delete;

   private:
    Parser &p_;
  };

  double sum() {
    Nest nest(*this);
    double value = product();
    while (true) {
      if (accept('+'))
        value += product();
      else if (accept('-'))
        value -= product();
      else
        return value;
    }
  }
  double product() {
    double value = unary();
    while (true) {
      if (accept('*')) {
        value *= unary();
      } else if (accept('/')) {
        size_t at = pos_;
        double divisor = unary();
        if (divisor == 0) fail_at(at, "division by zero");
        value /= divisor;
      } else {
        return value;
      }
    }
  }
  double unary() {
    if (accept('-')) {
      Nest nest(*this);
      return -unary();
    }
    if (accept('+')) {
      Nest nest(*this);
      return unary();
    }
    return primary();
  }
  double primary() {
    skip_space();
    if (accept('(')) {
      double value = sum();
      expect(')');
      return value;
    }
    if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      double value = 0;
      auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
      if (ec != std::errc()) fail("malformed number");
      pos_ = static_cast<size_t>(ptr - text_.data());
      return value;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    if (name.empty()) {
      if (pos_ >= text_.size()) fail("unexpected end of the expression");
      fail(std::string("unexpected '") + text_[pos_] + "'");
    }
    expect('(');
    double a = sum();
    if (name == "ceil" || name == "floor") {
      expect(')');
      return name == "ceil" ? std::ceil(a) : std::floor(a);
    }
    if (name == "min" || name == "max") {
      expect(',');
      double b = sum();
      expect(')');
      return name == "min" ? std::fmin(a, b) : std::fmax(a, b);
    }
    fail_at(start, "unknown function '" + std::string(name) + "' (known: ceil, floor, min, max)");
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

double evaluate_expression(std::string_view text) { return Parser(text).parse(); }

}  // namespace perfbound::validate
