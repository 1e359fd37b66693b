//===- verify.cpp - what MLIR's verifier would refuse, for the ops we read -===//
#include "verify.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "op_syntax.hpp"

namespace pb::hivm {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_terminator(std::string_view name) {
  return name == "return" || name == "func.return" || name == "br" || name == "cond_br" || name == "cf.br" ||
         name == "cf.cond_br" || name == "cf.switch" || name == "scf.condition" || name == "scf.forall.in_parallel" ||
         ends_with(name, ".yield") || ends_with(name, ".return");
}

bool is_function(std::string_view name) { return name == "func.func" || name == "func" || ends_with(name, ".func"); }

/// An integer literal as written: sign, magnitude, and whether it exceeds 64 bits.
struct Literal {
  bool negative = false;
  bool overflow = false;
  uint64_t magnitude = 0;
};

Literal read_literal(std::string_view text, bool negative) {
  Literal lit;
  lit.negative = negative;
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const uint64_t base = hex ? 16 : 10;
  for (char c : hex ? text.substr(2) : text) {
    uint64_t digit = c >= '0' && c <= '9' ? static_cast<uint64_t>(c - '0')
                     : c >= 'a' && c <= 'f' ? static_cast<uint64_t>(c - 'a' + 10)
                                            : static_cast<uint64_t>(c - 'A' + 10);
    if (lit.magnitude > (UINT64_MAX - digit) / base) {
      lit.overflow = true;
      return lit;
    }
    lit.magnitude = lit.magnitude * base + digit;
  }
  return lit;
}

/// The width and signedness of an integer type name (`i32`, `si8`, `ui16`, `index`); nullopt otherwise.
struct IntType {
  uint32_t width = 0;
  char signedness = 0;  // 0 signless, 's', 'u'
};

std::optional<IntType> int_type(std::string_view name) {
  if (name == "index") return IntType{64, 0};
  IntType t;
  if (name.substr(0, 2) == "si" || name.substr(0, 2) == "ui") {
    t.signedness = name[0];
    name.remove_prefix(2);
  } else if (name.substr(0, 1) == "i") {
    name.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  if (name.empty() || name.size() > 8) return std::nullopt;
  uint64_t width = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    width = width * 10 + static_cast<uint64_t>(c - '0');
  }
  if (width == 0) return std::nullopt;
  t.width = static_cast<uint32_t>(width);
  return t;
}

/// Whether `lit` fits `type` as MLIR's parser accepts it (a signless integer
/// takes both the signed and the unsigned range).
bool fits(const Literal &lit, const IntType &type) {
  if (lit.overflow) return false;
  if (type.width > 64) return true;
  const uint64_t m = lit.magnitude;
  const uint64_t half = type.width == 64 ? (uint64_t{1} << 63) : (uint64_t{1} << (type.width - 1));  // 2^(K-1)
  const uint64_t full = type.width == 64 ? UINT64_MAX : (uint64_t{1} << type.width) - 1;            // 2^K - 1
  if (lit.negative) return type.signedness == 'u' ? m == 0 : m <= half;
  return type.signedness == 's' ? m <= half - 1 : m <= full;
}

std::string literal_text(const Literal &lit, std::string_view digits) {
  return (lit.negative ? "-" : "") + std::string(digits);
}

struct Def {
  uint32_t line = 0;
  uint32_t col = 0;                   // when not defined by `token`
  uint32_t count = 1;                 // results in the group (%x:3)
  const Token *token = nullptr;       // a region argument: its column is found only for a message
  std::optional<Literal> constant;    // the value of an integer arith.constant
};

/// "%43#2" -> ("%43", 2); "%arg0" -> ("%arg0", nullopt).
std::pair<std::string_view, std::optional<uint64_t>> split_result_number(std::string_view name) {
  size_t hash = name.find('#');
  if (hash == std::string_view::npos) return {name, std::nullopt};
  uint64_t n = 0;
  for (char c : name.substr(hash + 1)) n = n > (UINT64_MAX / 10) - 1 ? UINT64_MAX / 2 : n * 10 + static_cast<uint64_t>(c - '0');
  return {name.substr(0, hash), n};
}

class Verifier {
 public:
  Verifier(const Op &func, std::string_view text, std::vector<std::string> &warnings)
      : func_(func), text_(text), warnings_(warnings) {}

  void run() {
    check_literals(func_);
    const size_t mark = order_.size();
    if (func_.regions.empty()) return;
    // Function arguments: `%arg0: type` in the signature.
    std::vector<const Token *> args = header_definitions(func_);
    const Region &body = func_.regions[0];
    for (const Block &block : body.blocks) {
      check_block_order(block);
      if (block.ops.empty())
        throw SourceError(block.line ? block.line : body.line, 1,
                          "a block of function body ends without a terminator (it is empty; 'return' expected)");
      const Op &last = block.ops.back();
      if (!is_terminator(last.name))
        throw SourceError(last.line, last.col,
                          "the function body's block ends in '" + std::string(last.name) +
                              "', not in a terminator ('return' expected after it)");
    }
    walk_region(func_, 0, args);
    pop_to(mark);
  }

 private:
  // --- scopes -----------------------------------------------------------
  void define(std::string_view name, uint32_t line, uint32_t col, uint32_t count, std::optional<Literal> constant = {},
              const Token *token = nullptr) {
    auto [it, inserted] = visible_.try_emplace(name, Def{line, col, count, token, constant});
    if (!inserted)
      throw SourceError(line, token != nullptr ? column(*token) : col,
                        "SSA value " + std::string(name) + " is defined twice: it is already defined at line " +
                            std::to_string(it->second.line) + ":" + std::to_string(column(it->second)));
    order_.push_back(name);
  }

  void pop_to(size_t mark) {
    while (order_.size() > mark) {
      visible_.erase(order_.back());
      order_.pop_back();
    }
  }

  const Def &use(const Token &t) {
    auto [base, number] = split_result_number(t.text());
    auto it = visible_.find(base);
    if (it == visible_.end()) undefined(t, base);
    if (number && *number >= it->second.count)
      throw SourceError(t.line, column(t),
                        "use of " + std::string(t.text()) + ": " + std::string(base) + " (line " +
                            std::to_string(it->second.line) + ") has only " + std::to_string(it->second.count) +
                            " result(s)");
    return it->second;
  }

  [[noreturn]] void undefined(const Token &t, std::string_view base) {
    // Say where the value is defined, if anywhere: a later line or another region.
    const Op *def = find_definition(func_, base);
    if (def == nullptr)
      throw SourceError(t.line, column(t), "use of undefined SSA value " + std::string(t.text()));
    if (def->line > t.line || (def->line == t.line && def->col > column(t)))
      throw SourceError(t.line, column(t),
                        "SSA value " + std::string(t.text()) + " is used before its definition at line " +
                            std::to_string(def->line));
    throw SourceError(t.line, column(t),
                      "SSA value " + std::string(t.text()) + " is used where its definition (line " +
                          std::to_string(def->line) + ") does not dominate it");
  }

  static const Op *find_definition(const Op &op, std::string_view base) {
    for (const ResultGroup &g : op.results)
      if (g.name == base) return &op;
    for (const Region &r : op.regions)
      for (const Block &b : r.blocks)
        for (const Op &child : b.ops)
          if (const Op *found = find_definition(child, base)) return found;
    return nullptr;
  }

  // --- header: which %names in an op's own tokens define region arguments
  /// Tokens of `op` that define arguments of its first region: `%x = ...`
  /// (scf.for induction variable, iter_args, scf.while), `(%i, %j) in` /
  /// `(%i) = (` (scf.forall, scf.parallel), `%x: type` in a function signature.
  static std::vector<const Token *> header_definitions(const Op &op) {
    std::vector<const Token *> defs;
    if (op.regions.empty()) return defs;
    const Array<Token> &toks = op.tokens;
    const size_t end = op.regions.empty() ? toks.size() : op.regions[0].at;
    const bool function = is_function(op.name);
    for (size_t i = 0; i < end; ++i) {
      const Token &t = toks[i];
      if (t.kind == Tok::PercentId && i + 1 < end) {
        Tok next = toks[i + 1].kind;
        if (next == Tok::Equal || (function && next == Tok::Colon)) defs.push_back(&t);
      }
      // (Not `outs(%0 : tensor<...>) {`: a keyword's operand group is no argument list.)
      const bool after_keyword = i > 0 && toks[i - 1].kind == Tok::BareId;
      if (!function && !after_keyword && t.kind == Tok::LParen && i + 1 < end && toks[i + 1].kind == Tok::PercentId) {
        // A parenthesised list of `%name: type` right before the region: the
        // short form of a region's block arguments (`linalg.reduce ... (%in: f32,
        // %init: f32) {`, `linalg.map`).
        size_t j = i;
        int depth = 0;
        while (j < end) {
          if (toks[j].kind == Tok::LParen || toks[j].kind == Tok::LSquare || toks[j].kind == Tok::LBrace ||
              toks[j].kind == Tok::Less)
            ++depth;
          if (toks[j].kind == Tok::RParen || toks[j].kind == Tok::RSquare || toks[j].kind == Tok::RBrace ||
              toks[j].kind == Tok::Greater)
            --depth;
          if (depth == 0) break;
          ++j;
        }
        if (j + 1 == end && j < end) {
          bool typed_names = true;
          bool expect_name = true;
          std::vector<const Token *> names;
          int inner = 0;
          for (size_t k = i + 1; k < j && typed_names; ++k) {
            const Tok kk = toks[k].kind;
            if (inner == 0 && expect_name) {
              typed_names = kk == Tok::PercentId && k + 1 < j && toks[k + 1].kind == Tok::Colon;
              if (typed_names) names.push_back(&toks[k]);
              expect_name = false;
              continue;
            }
            if (kk == Tok::LParen || kk == Tok::LSquare || kk == Tok::LBrace || kk == Tok::Less) ++inner;
            if (kk == Tok::RParen || kk == Tok::RSquare || kk == Tok::RBrace || kk == Tok::Greater) --inner;
            if (inner == 0 && kk == Tok::Comma) expect_name = true;
          }
          if (typed_names && !names.empty()) {
            defs.insert(defs.end(), names.begin(), names.end());
            i = j;
            continue;
          }
        }
      }
      if (t.kind == Tok::LParen) {
        // A parenthesised list of names only, followed by '=' or 'in'.
        size_t j = i + 1;
        bool names_only = j < end && toks[j].kind == Tok::PercentId;
        while (j < end && (toks[j].kind == Tok::PercentId || toks[j].kind == Tok::Comma)) ++j;
        names_only = names_only && j < end && toks[j].kind == Tok::RParen && j + 1 < end &&
                     (toks[j + 1].kind == Tok::Equal || (toks[j + 1].kind == Tok::BareId && toks[j + 1].text() == "in"));
        if (names_only)
          for (size_t k = i + 1; k < j; ++k)
            if (toks[k].kind == Tok::PercentId) defs.push_back(&toks[k]);
      }
    }
    return defs;
  }

  // --- walk ---------------------------------------------------------------
  void check_uses(const Op &op, const std::vector<const Token *> &header_defs) {
    for (const Token &t : op.tokens) {
      if (t.kind != Tok::PercentId) continue;
      if (std::find(header_defs.begin(), header_defs.end(), &t) == header_defs.end()) use(t);
    }
  }

  void check_loop_step(const Op &op) {
    const Array<Token> &toks = op.tokens;
    for (size_t i = 0; i + 1 < toks.size(); ++i) {
      if (toks[i].kind != Tok::BareId || toks[i].text() != "step" || toks[i + 1].kind != Tok::PercentId) continue;
      const Token &step = toks[i + 1];
      const Def &def = use(step);
      if (!def.constant) {
        warnings_.push_back("scf.for at line " + std::to_string(op.line) + ": the step " + std::string(step.text()) +
                            " is not a constant; it is not proved positive");
      } else if (def.constant->negative || def.constant->magnitude == 0) {
        throw SourceError(step.line, column(step),
                          "the step " + std::string(step.text()) + " of scf.for is " +
                              (def.constant->negative && def.constant->magnitude ? "-" : "") +
                              std::to_string(def.constant->magnitude) + " (defined at line " +
                              std::to_string(def.line) + "): a loop step must be positive");
      }
      return;
    }
  }

  static void check_block_order(const Block &block) {
    for (size_t i = 0; i + 1 < block.ops.size(); ++i) {
      const Op &op = block.ops[i];
      if (is_terminator(op.name))
        throw SourceError(op.line, op.col,
                          "terminator '" + std::string(op.name) + "' is not the last operation of its block ('" +
                              std::string(block.ops[i + 1].name) + "' follows at line " +
                              std::to_string(block.ops[i + 1].line) + ")");
    }
  }

  /// An op with results whose regions must yield them.
  static void check_yields(const Op &op) {
    if (op.results.empty() || op.generic) return;
    const bool loop_or_if = op.name == "scf.for" || op.name == "scf.if" || op.name == "scf.while" ||
                            op.name == "scf.execute_region" || op.name == "scf.index_switch";
    if (!loop_or_if) return;
    for (size_t r = 0; r < op.regions.size(); ++r) {
      const Region &region = op.regions[r];
      if (region.blocks.empty()) continue;
      const Block &last_block = region.blocks.back();
      const char *expected = op.name == "scf.while" && r == 0 ? "scf.condition" : "scf.yield";
      if (last_block.ops.empty() || last_block.ops.back().name != expected) {
        const uint32_t line = last_block.ops.empty() ? region.end_line : last_block.ops.back().line;
        throw SourceError(line, last_block.ops.empty() ? 1 : last_block.ops.back().col,
                          std::string(op.name) + " at line " + std::to_string(op.line) + " has results but its region " +
                              "does not end in '" + expected + "'");
      }
    }
  }

  static std::optional<Literal> constant_of(const Op &op) {
    if (op.name != "arith.constant" || op.generic || op.result_count() != 1) return std::nullopt;
    const Array<Token> &t = op.tokens;
    size_t i = 0;
    bool negative = false;
    if (i < t.size() && t[i].kind == Tok::Minus) {
      negative = true;
      ++i;
    }
    if (i + 2 >= t.size() || t[i].kind != Tok::Integer || t[i + 1].kind != Tok::Colon || t[i + 2].kind != Tok::BareId ||
        !int_type(t[i + 2].text()))
      return std::nullopt;
    return read_literal(t[i].text(), negative);
  }

  void define_results(const Op &op) {
    std::optional<Literal> constant = constant_of(op);
    for (const ResultGroup &g : op.results) define(g.name, op.line, op.col, g.count, constant);
  }

  /// The generic form prints one type per operand and per result.
  static void check_generic_counts(const Op &op) {
    if (!op.generic) return;
    analysis::GenericParts g = analysis::generic_parts(op);
    if (!g.has_function_type) return;
    if (g.operands.size() != g.operand_types.size())
      throw SourceError(op.line, op.col,
                        "'" + std::string(op.name) + "' has " + std::to_string(g.operands.size()) +
                            " operand(s) but its type lists " + std::to_string(g.operand_types.size()) + " operand type(s)");
    if (op.result_count() != 0 && op.result_count() != g.result_types.size())
      throw SourceError(op.line, op.col,
                        "'" + std::string(op.name) + "' defines " + std::to_string(op.result_count()) +
                            " result(s) but its type lists " + std::to_string(g.result_types.size()) + " result type(s)");
  }

  void walk_op(const Op &op) {
    check_generic_counts(op);
    std::vector<const Token *> header_defs = header_definitions(op);
    check_uses(op, header_defs);
    if (op.name == "scf.for" && !op.generic) check_loop_step(op);
    check_yields(op);
    for (size_t r = 0; r < op.regions.size(); ++r) walk_region(op, r, r == 0 ? header_defs : std::vector<const Token *>{});
  }

  void walk_region(const Op &owner, size_t index, const std::vector<const Token *> &header_defs) {
    const Region &region = owner.regions[index];
    const size_t mark = order_.size();
    // Not column(*t) here: finding a column scans its line, and a signature line can hold 10^5 arguments.
    for (const Token *t : header_defs) define(t->text(), t->line, 0, 1, std::nullopt, t);
    if (region.blocks.size() == 1) {
      const Block &block = region.blocks[0];
      check_block_order(block);
      for (const BlockArg &a : block.args) define(a.name, a.line, 1, 1);
      for (const Op &op : block.ops) {
        walk_op(op);
        define_results(op);
      }
    } else {
      // Several blocks: scope only (values of every block are visible in all of them).
      for (const Block &block : region.blocks) {
        check_block_order(block);
        for (const BlockArg &a : block.args) define(a.name, a.line, 1, 1);
        for (const Op &op : block.ops) define_results(op);
      }
      for (const Block &block : region.blocks)
        for (const Op &op : block.ops) walk_op(op);
    }
    pop_to(mark);
  }

  // --- literals -------------------------------------------------------------
  void check_literals(const Op &op) const {
    const Array<Token> &t = op.tokens;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i].kind != Tok::Integer) continue;
      const bool negative = i > 0 && t[i - 1].kind == Tok::Minus;
      Literal lit = read_literal(t[i].text(), negative);
      std::optional<IntType> type;
      bool float_type = false;
      if (i + 2 < t.size() && t[i + 1].kind == Tok::Colon && t[i + 2].kind == Tok::BareId) {
        type = int_type(t[i + 2].text());
        std::string_view ty = t[i + 2].text();
        float_type = !type && (ty.substr(0, 1) == "f" || ty.substr(0, 2) == "bf" || ty.substr(0, 2) == "tf");
      }
      const Token &at = negative ? t[i - 1] : t[i];
      if (type && !fits(lit, *type))
        throw SourceError(at.line, column(at),
                          "integer literal " + literal_text(lit, t[i].text()) + " does not fit its type " +
                              std::string(t[i + 2].text()));
      if (!type && !float_type && lit.overflow)
        throw SourceError(at.line, column(at),
                          "integer literal " + literal_text(lit, t[i].text()) + " does not fit in 64 bits");
    }
    for (const Region &r : op.regions)
      for (const Block &b : r.blocks)
        for (const Op &child : b.ops) check_literals(child);
  }

  /// Column of a token, for a message (tokens do not store theirs).
  [[nodiscard]] uint32_t column(const Token &t) const { return t.column(text_); }
  [[nodiscard]] uint32_t column(const Def &d) const { return d.token != nullptr ? column(*d.token) : d.col; }

  const Op &func_;
  std::string_view text_;
  std::vector<std::string> &warnings_;
  std::unordered_map<std::string_view, Def> visible_;
  std::vector<std::string_view> order_;
};

}  // namespace

void verify_function(const Op &func, std::string_view text, std::vector<std::string> &warnings) {
  Verifier(func, text, warnings).run();
}

}  // namespace pb::hivm
