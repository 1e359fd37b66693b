//===- parser.cpp - reads a raw HIVM dump into operations ------------------===//
#include "parser.hpp"

#include <deque>

#include "json_writer.hpp"
#include "verify.hpp"

namespace pb::hivm {

std::string_view span(const Token &first, const Token &last) {
  const char *begin = first.begin;
  const char *end = last.begin + last.length;
  if (end < begin) return first.text();
  return {begin, static_cast<size_t>(end - begin)};
}

namespace {

std::string quote(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) {
      out += c;
    } else {
      static const char *hex = "0123456789ABCDEF";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  if (text.size() > 40) out += "...";
  out += "'";
  return out;
}

bool is_closer(Tok k) { return k == Tok::RParen || k == Tok::RSquare || k == Tok::RBrace || k == Tok::Greater; }
bool is_opener(Tok k) { return k == Tok::LParen || k == Tok::LSquare || k == Tok::LBrace || k == Tok::Less; }
Tok closer_of(Tok opener) {
  switch (opener) {
    case Tok::LParen: return Tok::RParen;
    case Tok::LSquare: return Tok::RSquare;
    case Tok::LBrace: return Tok::RBrace;
    default: return Tok::Greater;
  }
}

// Op names printed without a dialect prefix (func.return, func.call, builtin.module, cf.br).
bool is_dotless_op_name(std::string_view name) {
  return name == "return" || name == "call" || name == "call_indirect" || name == "module" || name == "br" ||
         name == "cond_br";
}

/// Recursive-descent parser over a token stream with unbounded lookahead.
class Parser {
 public:
  Parser(std::string_view buffer, size_t offset, uint32_t line) : lex_(buffer) { lex_.reset(offset, line); }

  const Token &peek(size_t k = 0) {
    while (la_.size() <= k) la_.push_back(lex_.next());
    return la_[k];
  }
  Token take() {
    Token t = peek();
    la_.pop_front();
    return t;
  }

  /// True when the token at lookahead k begins a new statement.
  bool starts_statement(size_t k) {
    const Token &t = peek(k);
    switch (t.kind) {
      case Tok::PercentId: {
        const Token &n = peek(k + 1);
        if (n.kind == Tok::Equal) return true;
        if (n.kind == Tok::Comma) return peek(k + 2).kind == Tok::PercentId;
        if (n.kind == Tok::Colon && peek(k + 2).kind == Tok::Integer) {
          Tok after = peek(k + 3).kind;
          return after == Tok::Equal || after == Tok::Comma;
        }
        return false;
      }
      case Tok::String: return peek(k + 1).kind == Tok::LParen;
      case Tok::CaretId: return true;
      case Tok::BareId: {
        const Token &n = peek(k + 1);
        if (n.kind == Tok::Equal || n.kind == Tok::Comma) return false;
        // `dialect.op : type` is an op printed without its results' names
        // (`hivm.hir.create_sync_block_lock : memref<1xi64>`) or with only a
        // functional type (`scope.scope : () -> () {`); a bare word before
        // ':' is not an op.
        if (n.kind == Tok::Colon) return t.text().find('.') != std::string_view::npos;
        if (n.kind == Tok::RBrace && !n.first_on_line) return false;
        if (n.kind == Tok::Greater || n.kind == Tok::RParen || n.kind == Tok::RSquare) return false;
        if (t.text().find('.') != std::string_view::npos) return true;
        return is_dotless_op_name(t.text());
      }
      default: return false;
    }
  }

  /// peek(k) is '{': does it open a region (true) or an attribute dictionary?
  bool lbrace_opens_region(size_t k) {
    const Token &n = peek(k + 1);
    if (n.kind == Tok::RBrace) return n.first_on_line;
    if (n.kind == Tok::CaretId) return true;
    if (n.first_on_line) return starts_statement(k + 1);
    return n.kind == Tok::PercentId && starts_statement(k + 1);
  }

  /// Refuses nesting deeper than kMaxNesting (the parser and the analyses recurse on it).
  void check_depth(size_t depth, const Token &at, const char *what) {
    if (depth > kMaxNesting)
      fail(at, std::string(what) + " nested deeper than " + std::to_string(kMaxNesting) + " levels (depth " +
                   std::to_string(depth) + " at line " + std::to_string(at.line) + ")");
  }

  [[noreturn]] void fail(const Token &t, const std::string &message) {
    throw SourceError(t.line, t.column(lex_.buffer()), message);
  }

  /// The column of `t`, for Op::col. Tokens do not store theirs; the start of
  /// the line is found once per line (ops come in line order), so a line
  /// holding many ops (regions on one line) is not scanned once per op.
  uint32_t column(const Token &t) {
    if (t.line != column_line_ || column_line_start_ == nullptr || t.begin < column_line_start_) {
      column_line_start_ = t.begin - (t.column(lex_.buffer()) - 1);
      column_line_ = t.line;
    }
    return static_cast<uint32_t>(t.begin - column_line_start_ + 1);
  }

  void check_token(const Token &t) {
    if (t.kind == Tok::Error) {
      if (!lex_.error().empty() && t.length > 0 && t.begin[0] == '"') fail(t, lex_.error());
      fail(t, "unexpected character " + quote(t.text()));
    }
  }

  /// Parses one operation starting at peek(0). `top_level`: a function or
  /// module at file level, which ends at the end of the line holding the
  /// '}' of its last region.
  Op parse_operation(bool top_level) {
    Op op;
    const Token first = peek();  // a copy: take() pops the element a reference would name
    op.line = first.line;
    op.col = column(first);
    if (first.kind == Tok::PercentId) {
      const size_t results_base = results_.size();
      while (true) {
        Token name = take();
        if (name.kind != Tok::PercentId)
          fail(name, "expected an SSA value name in the result list, found " + quote(name.text()));
        ResultGroup group{name.text(), 1};
        if (peek().kind == Tok::Colon && peek(1).kind == Tok::Integer) {
          take();
          Token count = take();
          uint64_t n = 0;
          for (char c : count.text()) n = c >= '0' && c <= '9' && n <= kMaxResults ? n * 10 + static_cast<uint64_t>(c - '0') : kMaxResults + 1;
          if (n == 0 || n > kMaxResults)
            fail(count, "result count " + quote(count.text()) + " of " + quote(name.text()) + " is not between 1 and " +
                            std::to_string(kMaxResults));
          group.count = static_cast<uint32_t>(n);
        }
        results_.push_back(group);
        if (peek().kind == Tok::Comma) {
          take();
          continue;
        }
        break;
      }
      op.results = Array<ResultGroup>::take_tail(results_, results_base);
      Token eq = take();
      if (eq.kind != Tok::Equal) fail(eq, "expected '=' after the result list, found " + quote(eq.text()));
    }
    Token name = take();
    check_token(name);
    if (name.kind == Tok::String) {
      op.generic = true;
      op.name = name.text().substr(1, name.length - 2);
    } else if (name.kind == Tok::BareId) {
      op.name = name.text();
    } else {
      fail(name, "expected an operation name, found " + std::string(tok_name(name.kind)) + " " + quote(name.text()));
    }
    // The op's tokens go on tokens_ above those of the ops it is nested in;
    // the ops of its regions take theirs off again before it continues.
    const size_t tokens_base = tokens_.size();
    const size_t brackets_base = brackets_.size();
    std::vector<Region> regions;
    bool region_closed_line = false;
    uint32_t last_region_end = 0;
    op.end_line = name.line;
    while (true) {
      const Token t = peek();
      const bool in_brackets = brackets_.size() > brackets_base;
      if (t.kind == Tok::Eof) {
        if (in_brackets)
          fail(brackets_.back(), "unexpected end of input: " + quote(brackets_.back().text()) + " opened at line " +
                                     std::to_string(brackets_.back().line) +
                                     " is never closed (is the dump truncated?)");
        break;
      }
      if (!in_brackets) {
        if (region_closed_line && top_level && t.line != last_region_end) break;
        if (t.kind == Tok::RBrace) break;
        if (t.first_on_line && starts_statement(0)) break;
      }
      check_token(t);
      if (t.kind == Tok::LBrace && lbrace_opens_region(0)) {
        Token lbrace = take();
        const auto at = static_cast<uint32_t>(tokens_.size() - tokens_base);
        regions.push_back(parse_region_body(lbrace));
        regions.back().at = at;
        last_region_end = regions.back().end_line;
        op.end_line = last_region_end;
        region_closed_line = brackets_.size() == brackets_base;
        continue;
      }
      Token tok = take();
      if (is_opener(tok.kind)) {
        brackets_.push_back(tok);
        check_depth(brackets_.size() - brackets_base, tok, "brackets");
      } else if (is_closer(tok.kind)) {
        if (brackets_.size() == brackets_base || closer_of(brackets_.back().kind) != tok.kind) {
          if (brackets_.size() == brackets_base) fail(tok, "unbalanced " + quote(tok.text()) + " in " + std::string(op.name));
          fail(tok, "expected the closing bracket of " + quote(brackets_.back().text()) + " opened at line " +
                        std::to_string(brackets_.back().line) + ", found " + quote(tok.text()));
        }
        brackets_.pop_back();
      }
      op.end_line = tok.line;
      tokens_.push_back(tok);
    }
    op.tokens = Array<Token>::take_tail(tokens_, tokens_base);
    op.regions = Array<Region>(std::move(regions));
    if (top_level) release_scratch();
    return op;
  }

  Region parse_region_body(const Token &lbrace) {
    check_depth(++region_depth_, lbrace, "regions");
    Region region;
    region.line = lbrace.line;
    std::vector<Block> blocks(1);
    blocks.back().line = lbrace.line;
    // The ops of the open block sit on ops_ from ops_base on.
    const size_t ops_base = ops_.size();
    auto close_block = [&] { blocks.back().ops = Array<Op>::take_tail(ops_, ops_base); };
    while (true) {
      const Token t = peek();
      if (t.kind == Tok::RBrace) {
        region.end_line = t.line;
        take();
        --region_depth_;
        close_block();
        region.blocks = Array<Block>(std::move(blocks));
        return region;
      }
      if (t.kind == Tok::Eof)
        fail(lbrace, "unexpected end of input: the region opened at line " + std::to_string(lbrace.line) +
                         " is never closed (is the dump truncated?)");
      check_token(t);
      if (t.kind == Tok::CaretId) {
        if (ops_.size() > ops_base || !blocks.back().label.empty() || !blocks.back().args.empty()) {
          close_block();
          blocks.emplace_back();
        }
        Block &block = blocks.back();
        Token label = take();
        block.label = label.text();
        block.line = label.line;
        if (peek().kind == Tok::LParen) {
          take();
          parse_block_args(block);
        }
        Token colon = take();
        if (colon.kind != Tok::Colon) fail(colon, "expected ':' after block label " + quote(label.text()));
        continue;
      }
      if (!starts_statement(0))
        fail(t, "expected an operation, found " + std::string(tok_name(t.kind)) + " " + quote(t.text()));
      Op op = parse_operation(false);
      ops_.push_back(std::move(op));
    }
  }

  void parse_block_args(Block &block) {
    std::vector<BlockArg> args;
    while (true) {
      Token name = take();
      if (name.kind == Tok::RParen) break;
      if (name.kind != Tok::PercentId) fail(name, "expected a block argument, found " + quote(name.text()));
      Token colon = take();
      if (colon.kind != Tok::Colon) fail(colon, "expected ':' after block argument " + quote(name.text()));
      BlockArg arg{name.text(), {}, name.line};
      int depth = 0;
      bool have_type = false;
      Token type_first;
      Token type_last;
      while (true) {
        const Token t = peek();
        if (t.kind == Tok::Eof) fail(name, "unexpected end of input in the arguments of a block");
        if (depth == 0 && (t.kind == Tok::Comma || t.kind == Tok::RParen)) break;
        if (depth == 0 && t.kind == Tok::BareId && t.text() == "loc" && peek(1).kind == Tok::LParen) {
          // Skip the location; keep it out of the type.
          take();
          int loc_depth = 0;
          do {
            Token lt = take();
            if (lt.kind == Tok::Eof) fail(name, "unexpected end of input in a location");
            if (lt.kind == Tok::LParen) check_depth(static_cast<size_t>(++loc_depth), lt, "brackets");
            if (lt.kind == Tok::RParen) --loc_depth;
          } while (loc_depth > 0);
          continue;
        }
        Token tok = take();
        if (is_opener(tok.kind)) check_depth(static_cast<size_t>(++depth), tok, "brackets");
        if (is_closer(tok.kind)) --depth;
        if (!have_type) {
          type_first = tok;
          have_type = true;
        }
        type_last = tok;
      }
      if (have_type) arg.type = span(type_first, type_last);
      args.push_back(arg);
      if (peek().kind == Tok::Comma) take();
    }
    block.args = Array<BlockArg>(std::move(args));
  }

  /// Offset of the first unconsumed token, and its line.
  std::pair<size_t, uint32_t> resume_point() {
    const Token &t = peek();
    if (t.kind == Tok::Eof) return {lex_.buffer().size(), t.line};
    return {static_cast<size_t>(t.begin - lex_.buffer().data()), t.line};
  }

 private:
  /// Returns the scratch stacks' memory once a top-level op is complete: the
  /// function is analysed while this parser is alive.
  void release_scratch() {
    std::vector<Token>().swap(tokens_);
    std::vector<Token>().swap(brackets_);
    std::vector<ResultGroup>().swap(results_);
    std::vector<Op>().swap(ops_);
  }

  Lexer lex_;
  std::deque<Token> la_;
  size_t region_depth_ = 0;
  uint32_t column_line_ = 0;                // the line whose start column() last found
  const char *column_line_start_ = nullptr;
  // Scratch stacks, one level per nested op or region being parsed; each
  // finished op or block moves its part off into an exact-size Array.
  std::vector<Token> tokens_;
  std::vector<Token> brackets_;  // open brackets of the ops being parsed
  std::vector<ResultGroup> results_;
  std::vector<Op> ops_;
};

std::string_view trim(std::string_view s) {
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  size_t e = s.size();
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_diagnostic_line(std::string_view line) {
  if (line.find("warning:") != std::string_view::npos || line.find("error:") != std::string_view::npos ||
      line.find("note:") != std::string_view::npos || line.find("remark:") != std::string_view::npos)
    return true;
  return line.find(" generated.") != std::string_view::npos;
}

}  // namespace

void check_utf8(std::string_view text, uint32_t first_line) {
  uint32_t line = first_line;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\n') {
        ++line;
        line_start = i + 1;
      }
      ++i;
      continue;
    }
    const size_t len = JsonWriter::valid_utf8(text, i);
    if (len == 0) {
      static const char *hex = "0123456789ABCDEF";
      const std::string byte = {'0', 'x', hex[c >> 4], hex[c & 15]};
      throw SourceError(line, static_cast<uint32_t>(i - line_start + 1),
                        "invalid UTF-8: byte " + byte + " (the text must be UTF-8)");
    }
    i += len;
  }
}

Op parse_single_op(std::string_view text) {
  Parser parser(text, 0, 1);
  return parser.parse_operation(false);
}

std::vector<Section> split_sections(std::string_view text) {
  std::vector<Section> out;
  size_t begin = 0;
  size_t at = 0;
  // mlir-opt splits on the marker less its last two characters, then keeps a
  // cut only where those two follow, plus at least one more character that is
  // not '0' (its test for "no dash after the marker").
  while ((at = text.find("// ---", at)) != std::string_view::npos) {
    const size_t after = at + 6;
    if (after + 2 < text.size() && text[after] == '-' && text[after + 1] == '-' && text[after + 2] != '0') {
      out.push_back({begin, at, 0});
      begin = after + 2;
      at = begin;
    } else {
      at = after;
    }
  }
  out.push_back({begin, text.size(), 0});
  uint32_t line = 1;
  size_t pos = 0;
  for (Section &section : out) {
    for (; pos < section.begin; ++pos) line += text[pos] == '\n' ? 1 : 0;
    section.first_line = line;
  }
  return out;
}

bool has_split_marker_line(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    if (trim(text.substr(pos, eol - pos)) == "// -----") return true;
    pos = eol + 1;
  }
  return false;
}

std::string symbol_of(const Op &op) {
  const size_t end = op.regions.empty() ? op.tokens.size() : op.regions[0].at;
  int depth = 0;
  for (size_t i = 0; i < end; ++i) {
    const Token &t = op.tokens[i];
    if (is_opener(t.kind)) ++depth;
    if (is_closer(t.kind)) --depth;
    if (depth == 0 && t.kind == Tok::AtId) return std::string(t.text());
    // The generic form: <{sym_name = "f", ...}>.
    if (op.generic && t.kind == Tok::BareId && t.text() == "sym_name" && i + 2 < end && op.tokens[i + 1].kind == Tok::Equal &&
        op.tokens[i + 2].kind == Tok::String) {
      std::string_view quoted = op.tokens[i + 2].text();
      return "@" + std::string(quoted.substr(1, quoted.size() - 2));
    }
  }
  return {};
}

void FileReader::define_symbol(std::string_view name, const Op &op) {
  if (listing_ || name.empty() || symbols_.empty()) return;
  auto [it, inserted] = symbols_.back().try_emplace(std::string(name), op.line);
  if (!inserted)
    throw SourceError(op.line, op.col,
                      "redefinition of symbol " + std::string(name) + ": it is already defined at line " +
                          std::to_string(it->second) + " of the same module (a lit file's inputs are cut at its '// -----' lines: "
                          "is the input split?)");
}

void FileReader::check_alias_cycles() const {
  // The aliases an alias's value names (not dialect attributes: those hold a '.').
  auto refs = [&](std::string_view value) {
    std::vector<std::string_view> out;
    Lexer lex(value);
    for (Token t = lex.next(); t.kind != Tok::Eof && t.kind != Tok::Error; t = lex.next())
      if ((t.kind == Tok::HashId || t.kind == Tok::BangId) && t.text().find('.') == std::string_view::npos &&
          aliases_.count(t.text()) != 0)
        out.push_back(t.text());
    return out;
  };
  // Iterative depth-first search: 0 unvisited, 1 on the path, 2 done.
  std::map<std::string_view, int, std::less<>> state;
  for (const auto &[root, value] : aliases_) {
    if (state[root] != 0) continue;
    std::vector<std::pair<std::string_view, std::vector<std::string_view>>> path;
    path.emplace_back(root, refs(value));
    state[root] = 1;
    while (!path.empty()) {
      auto &[name, pending] = path.back();
      if (pending.empty()) {
        state[name] = 2;
        path.pop_back();
        continue;
      }
      std::string_view next = pending.back();
      pending.pop_back();
      int &s = state[next];
      if (s == 1) {
        std::string chain;
        bool in_cycle = false;
        for (const auto &step : path) {
          in_cycle = in_cycle || step.first == next;
          if (in_cycle) chain += std::string(step.first) + " -> ";
        }
        chain += std::string(next);
        const uint32_t line = alias_lines_.count(next) ? alias_lines_.at(next) : first_line_;
        throw SourceError(line, 1, "alias " + std::string(next) + " refers to itself: " + chain);
      }
      if (s == 0) {
        s = 1;
        path.emplace_back(next, refs(aliases_.at(next)));
      }
    }
  }
}

void FileReader::handle_top_level_op(const Op &op, std::vector<const Op *> &stack,
                                     const std::function<void(const Op &, const FunctionContext &)> &on_function) {
  std::string_view name = op.name;
  if (name == "module" || name == "builtin.module") {
    define_symbol(symbol_of(op), op);
    stack.push_back(&op);
    symbols_.emplace_back();
    visit_module_body(op, stack, on_function);
    symbols_.pop_back();
    stack.pop_back();
    return;
  }
  if (name == "func.func" || name == "func") {
    define_symbol(symbol_of(op), op);
    if (op.regions.empty()) {
      std::string_view fname;
      for (const Token &t : op.tokens)
        if (t.kind == Tok::AtId) {
          fname = t.text();
          break;
        }
      declarations_.emplace_back(fname, op.line);
      return;
    }
    if (!listing_) verify_function(op, text_, warnings_);
    FunctionContext ctx;
    ctx.index = function_count_++;
    ctx.dump_header = current_header_;
    ctx.modules = stack;
    on_function(op, ctx);
    return;
  }
  // Other symbols (`llvm.func @__assertfail`, `memref.global`, `llvm.mlir.global`):
  // no kernel work lives in them; they are read, checked for redefinition and left out.
  if (std::string symbol = symbol_of(op); !symbol.empty() && op.results.empty()) {
    define_symbol(symbol, op);
    warnings_.push_back("top-level operation " + std::string(name) + " " + symbol + " (line " + std::to_string(op.line) +
                        ") is not a function: ignored");
    return;
  }
  throw SourceError(op.line, op.col,
                    "expected a function or a module at the top level, found operation '" + std::string(name) +
                        "' (is the dump truncated?)");
}

void FileReader::visit_module_body(const Op &module, std::vector<const Op *> &stack,
                                   const std::function<void(const Op &, const FunctionContext &)> &on_function) {
  for (const Region &region : module.regions)
    for (const Block &block : region.blocks)
      for (const Op &child : block.ops) handle_top_level_op(child, stack, on_function);
}

std::vector<FunctionSite> FileReader::list_functions() {
  std::vector<FunctionSite> out;
  listing_ = true;
  read([&](const Op &func, const FunctionContext &) {
    std::string symbol = symbol_of(func);
    out.push_back({symbol.empty() ? std::string("<unnamed>") : symbol.substr(1), func.line});
  });
  return out;
}

void FileReader::read(const std::function<void(const Op &, const FunctionContext &)> &on_function) {
  check_utf8(text_, first_line_);
  size_t pos = 0;
  uint32_t line = first_line_;
  const size_t size = text_.size();
  std::vector<const Op *> stack;
  symbols_.assign(1, {});  // the implicit module around top-level functions
  while (pos < size) {
    size_t eol = text_.find('\n', pos);
    if (eol == std::string_view::npos) eol = size;
    std::string_view raw = text_.substr(pos, eol - pos);
    std::string_view content = trim(raw);
    auto next_line = [&] {
      pos = eol + 1;
      ++line;
    };
    if (content.empty()) {
      next_line();
      continue;
    }
    if (starts_with(content, "//")) {
      if (content.find("IR Dump") != std::string_view::npos) {
        lines_.push_back({TopLevelLine::Kind::DumpHeader, line, content});
        current_header_ = content;
      }
      next_line();
      continue;
    }
    // Decide with the MLIR lexer whether this line starts IR.
    Parser probe(text_, pos, line);
    const Token &t0 = probe.peek();
    const bool is_alias = (t0.kind == Tok::HashId || t0.kind == Tok::BangId) && probe.peek(1).kind == Tok::Equal &&
                          probe.peek(1).line == t0.line;
    const std::string_view t0_text = t0.text();
    const bool is_container =
        (t0.kind == Tok::BareId && (t0_text == "func.func" || t0_text == "module" || t0_text == "builtin.module")) ||
        (t0.kind == Tok::String && (t0_text == "\"func.func\"" || t0_text == "\"builtin.module\"") &&
         probe.peek(1).kind == Tok::LParen);
    if (is_alias) {
      Token name = probe.take();
      probe.take();  // '='
      // The value runs to the end of the line (balanced).
      const Token first = probe.peek();  // a copy: the loop below pops it
      if (first.kind == Tok::Eof || first.line != name.line)
        throw SourceError(name.line, name.column(text_), "alias " + std::string(name.text()) + " has no value");
      Token last = first;
      int depth = 0;
      while (true) {
        const Token t = probe.peek();
        if (t.kind == Tok::Eof || (depth == 0 && t.line != name.line)) break;
        Token tok = probe.take();
        probe.check_token(tok);
        if (is_opener(tok.kind)) probe.check_depth(static_cast<size_t>(++depth), tok, "brackets");
        if (is_closer(tok.kind)) --depth;
        last = tok;
      }
      aliases_[name.text()] = span(first, last);
      alias_lines_[name.text()] = name.line;
      auto [next_pos, next_line_no] = probe.resume_point();
      (void)next_line_no;
      // Resume at the start of the line of the next token.
      size_t line_start = next_pos;
      while (line_start > 0 && text_[line_start - 1] != '\n') --line_start;
      if (line_start <= pos) line_start = eol + 1 <= size ? eol + 1 : size;
      for (size_t p = pos; p < line_start && p < size; ++p) line += text_[p] == '\n' ? 1 : 0;
      pos = line_start;
      continue;
    }
    if (is_container) {
      Op op = probe.parse_operation(true);
      handle_top_level_op(op, stack, on_function);
      // Resume at the line after the op's last line: comments there (the next IR dump header) are
      // top-level lines too, which the lexer's lookahead has skipped.
      const uint32_t resume_line = op.end_line + 1;
      while (line < resume_line && pos < size) {
        size_t nl = text_.find('\n', pos);
        pos = nl == std::string_view::npos ? size : nl + 1;
        ++line;
      }
      continue;
    }
    if (t0.kind == Tok::RBrace)
      throw SourceError(t0.line, t0.column(text_), "unbalanced '}' outside of any function or module");
    // A symbol op at the top level (`llvm.func @__assertfail(...)`, `memref.global
    // "private" @c ...`): read as IR, then left out with a note. `ld.lld: warning: ...`
    // and other compiler output are not ops.
    const bool symbol_op = t0.kind == Tok::BareId && t0_text.find('.') != std::string_view::npos &&
                           probe.peek(1).kind != Tok::Colon && !is_diagnostic_line(content) &&
                           content.find('@') != std::string_view::npos;
    if (symbol_op) {
      Op op = probe.parse_operation(true);
      handle_top_level_op(op, stack, on_function);
      const uint32_t resume_line = op.end_line + 1;
      while (line < resume_line && pos < size) {
        size_t nl = text_.find('\n', pos);
        pos = nl == std::string_view::npos ? size : nl + 1;
        ++line;
      }
      continue;
    }
    // `word.word: ...` at the top level is compiler output (`ld.lld: warning: ...`), not an op.
    const bool colon_after_word = t0.kind == Tok::BareId && probe.peek(1).kind == Tok::Colon;
    if (probe.starts_statement(0) && t0.kind != Tok::String && !colon_after_word)
      throw SourceError(t0.line, t0.column(text_),
                        "IR operation outside of any function: " + quote(content) +
                            " (is the dump truncated or is its 'func.func' line missing?)");
    lines_.push_back({is_diagnostic_line(content) ? TopLevelLine::Kind::Diagnostic : TopLevelLine::Kind::Text, line,
                      content});
    next_line();
  }
  line_count_ = line;
  if (listing_) return;
  check_alias_cycles();
  if (function_count_ == 0) {
    uint32_t last_line = line > first_line_ ? line - 1 : first_line_;
    std::string what = std::to_string(last_line - first_line_ + 1) + " lines read";
    if (first_line_ > 1) what += ", lines " + std::to_string(first_line_) + " to " + std::to_string(last_line);
    if (!declarations_.empty()) what += "; only declarations such as " + std::string(declarations_.front().first);
    throw SourceError(last_line, 1,
                      "no function with a body found (" + what + "; a HIVM dump has at least one 'func.func @name(...) {')");
  }
}

}  // namespace pb::hivm
