//===- compile.cpp - HIVM functions prepared for concrete execution -------===//
#include <algorithm>
#include <charconv>
#include <deque>
#include <functional>
#include <map>

#include "compiled.hpp"
#include "tokens.hpp"

namespace pb::hivm::oracle {

OracleError::OracleError(Kind kind, uint32_t line, const std::string &message)
    : std::runtime_error((line > 0 ? "line " + std::to_string(line) + ": " : std::string()) + message),
      kind_(kind),
      line_(line) {}

namespace detail {

namespace {

[[noreturn]] void unsupported(uint32_t line, const std::string &what) {
  throw OracleError(OracleError::Kind::Unsupported, line, what);
}

std::optional<int64_t> to_int(std::string_view s) {
  int64_t v = 0;
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') {
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), u, 16);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    v = static_cast<int64_t>(u);
  } else {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) {
      // -9223372036854775808 (MLIR's dynamic marker) does not fit after the sign is removed.
      if (neg && s == "9223372036854775808") return INT64_MIN;
      return std::nullopt;
    }
  }
  return neg ? -v : v;
}

/// The tokens of an op without a trailing loc(...).
TokSpan own_tokens(const Op &op) {
  TokSpan s = tokens_of(op);
  int depth = 0;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (depth == 0 && s[idx].kind == Tok::BareId && s[idx].text() == "loc" && idx + 1 < s.size() &&
        s[idx + 1].kind == Tok::LParen)
      return s.sub(0, idx);
    depth += depth_delta(s[idx].kind);
  }
  return s;
}

/// The parts of an op in MLIR's generic form.
struct Generic {
  std::vector<std::string_view> operands;
  TokSpan props, attrs;
  std::vector<TokSpan> operand_types, result_types;
};

Generic generic_of(TokSpan s) {
  Generic g;
  size_t i = 0;
  if (i < s.size() && s[i].kind == Tok::LParen)
    if (auto grp = group_at(s, i)) {
      g.operands = percent_ids(grp->first);
      i = grp->second;
    }
  while (i < s.size()) {
    if (s[i].kind == Tok::Less && i + 1 < s.size() && s[i + 1].kind == Tok::LBrace) {
      auto grp = group_at(s, i);
      if (!grp) break;
      if (auto inner = group_at(grp->first, 0)) g.props = inner->first;
      i = grp->second;
    } else if (s[i].kind == Tok::LBrace) {
      auto grp = group_at(s, i);
      if (!grp) break;
      g.attrs = grp->first;
      i = grp->second;
    } else if (s[i].kind == Tok::LParen) {
      auto grp = group_at(s, i);  // the region list's parentheses
      if (!grp) break;
      i = grp->second;
    } else if (s[i].kind == Tok::Colon) {
      ++i;
      if (i < s.size() && s[i].kind == Tok::LParen)
        if (auto grp = group_at(s, i)) {
          for (TokSpan t : split_top(grp->first, Tok::Comma))
            if (!t.empty()) g.operand_types.push_back(t);
          i = grp->second;
        }
      if (i < s.size() && s[i].kind == Tok::Arrow) {
        ++i;
        TokSpan rest = s.from(i);
        if (!rest.empty() && rest[0].kind == Tok::LParen) {
          if (auto grp = group_at(rest, 0))
            for (TokSpan t : split_top(grp->first, Tok::Comma))
              if (!t.empty()) g.result_types.push_back(t);
        } else if (!rest.empty()) {
          g.result_types.push_back(rest);
        }
      }
      break;
    } else {
      ++i;
    }
  }
  return g;
}

/// `name = value` in an attribute dictionary's tokens.
std::optional<TokSpan> attr_value(TokSpan dict, std::string_view name) {
  for (TokSpan entry : split_top(dict, Tok::Comma)) {
    if (entry.size() >= 1 && entry[0].kind == Tok::BareId && entry[0].text() == name) {
      if (entry.size() >= 2 && entry[1].kind == Tok::Equal) return entry.from(2);
      return entry.from(1);
    }
  }
  return std::nullopt;
}

/// Integers of `array<i64: 1, -9223372036854775808>` or `[1, 2]`.
std::vector<int64_t> int_list(TokSpan s) {
  std::vector<int64_t> out;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (s[idx].kind != Tok::Integer) continue;
    if (idx > 0 && s[idx - 1].kind == Tok::BareId && s[idx - 1].text() == "array") continue;
    if (idx + 1 < s.size() && s[idx + 1].kind == Tok::BareId && !s[idx + 1].text().empty() &&
        s[idx + 1].text()[0] == 'x')
      continue;  // a type's dimension
    const bool neg = idx > 0 && s[idx - 1].kind == Tok::Minus;
    if (auto v = to_int((neg ? "-" : "") + std::string(s[idx].text()))) out.push_back(*v);
  }
  return out;
}

/// Types after the last top-level ':' split at top-level `to` / `into`.
std::vector<TokSpan> trailing_types(TokSpan s) {
  std::vector<TokSpan> out;
  auto colon = find_last_top(s, Tok::Colon);
  if (!colon) return out;
  TokSpan rest = s.from(*colon + 1);
  size_t start = 0;
  int depth = 0;
  for (size_t idx = 0; idx < rest.size(); ++idx) {
    if (depth == 0 && rest[idx].kind == Tok::BareId && (rest[idx].text() == "to" || rest[idx].text() == "into")) {
      out.push_back(rest.sub(start, idx));
      start = idx + 1;
    }
    depth += depth_delta(rest[idx].kind);
  }
  out.push_back(rest.sub(start, rest.size()));
  return out;
}

uint8_t width_of(const Type &t) {
  if (t.kind == Type::Kind::Scalar && t.elem.is_int) return static_cast<uint8_t>(std::min<uint32_t>(t.elem.bits, 64));
  return 64;
}

struct OpNames {
  std::map<std::string_view, IntOp> ints{
      {"arith.addi", IntOp::Add},        {"arith.subi", IntOp::Sub},         {"arith.muli", IntOp::Mul},
      {"arith.divsi", IntOp::DivS},      {"arith.divui", IntOp::DivU},       {"arith.remsi", IntOp::RemS},
      {"arith.remui", IntOp::RemU},      {"arith.ceildivsi", IntOp::CeilDivS}, {"arith.ceildivui", IntOp::CeilDivU},
      {"arith.floordivsi", IntOp::FloorDivS}, {"arith.minsi", IntOp::MinS},  {"arith.maxsi", IntOp::MaxS},
      {"arith.minui", IntOp::MinU},      {"arith.maxui", IntOp::MaxU},       {"arith.andi", IntOp::And},
      {"arith.ori", IntOp::Or},          {"arith.xori", IntOp::Xor},         {"arith.shli", IntOp::Shl},
      {"arith.shrsi", IntOp::ShrS},      {"arith.shrui", IntOp::ShrU}};
  std::map<std::string_view, FloatOp> floats{
      {"arith.addf", FloatOp::Add},     {"arith.subf", FloatOp::Sub},     {"arith.mulf", FloatOp::Mul},
      {"arith.divf", FloatOp::Div},     {"arith.remf", FloatOp::Rem},     {"arith.minimumf", FloatOp::Min},
      {"arith.maximumf", FloatOp::Max}, {"arith.minnumf", FloatOp::Min},  {"arith.maxnumf", FloatOp::Max},
      {"arith.negf", FloatOp::Neg},     {"arith.absf", FloatOp::Abs}};
  std::map<std::string_view, CastOp> casts{
      {"arith.index_cast", CastOp::SExt}, {"arith.index_castui", CastOp::ZExt}, {"arith.extsi", CastOp::SExt},
      {"arith.extui", CastOp::ZExt},      {"arith.trunci", CastOp::Trunc},      {"arith.sitofp", CastOp::IntToFloat},
      {"arith.uitofp", CastOp::UIntToFloat}, {"arith.fptosi", CastOp::FloatToInt}, {"arith.fptoui", CastOp::FloatToUInt},
      {"arith.extf", CastOp::FloatToFloat},  {"arith.truncf", CastOp::FloatToFloat}, {"arith.bitcast", CastOp::Same}};
  std::map<std::string_view, Pred> preds{{"eq", Pred::Eq},   {"ne", Pred::Ne},   {"slt", Pred::Slt}, {"sle", Pred::Sle},
                                         {"sgt", Pred::Sgt}, {"sge", Pred::Sge}, {"ult", Pred::Ult}, {"ule", Pred::Ule},
                                         {"ugt", Pred::Ugt}, {"uge", Pred::Uge}};
  std::map<std::string_view, Pred> fpreds{{"false", Pred::False}, {"oeq", Pred::Eq},  {"ogt", Pred::Sgt},
                                          {"oge", Pred::Sge},     {"olt", Pred::Slt}, {"ole", Pred::Sle},
                                          {"one", Pred::Ne},      {"ord", Pred::Ord}, {"ueq", Pred::Eq},
                                          {"ugt", Pred::Sgt},     {"uge", Pred::Sge}, {"ult", Pred::Slt},
                                          {"ule", Pred::Sle},     {"une", Pred::Ne},  {"uno", Pred::Uno},
                                          {"true", Pred::True}};
};

const OpNames &names() {
  static const OpNames n;
  return n;
}

class Compiler {
 public:
  Compiler(const AliasMap &aliases, uint32_t fn_index, const Options &options, std::vector<OpStats> &ops)
      : aliases_(aliases), fn_index_(fn_index), options_(options), ops_(ops) {}

  Fn run(const Op &func);

 private:
  // Scopes of SSA names.
  int32_t define(std::string_view name, uint32_t line) {
    const int32_t slot = static_cast<int32_t>(fn_.slots++);
    fn_.slot_names.emplace_back(name);
    fn_.slot_lines.push_back(line);
    scopes_.back().push_back({name, lookup_.count(name) ? lookup_[name] : -1});
    lookup_[name] = slot;
    return slot;
  }
  int32_t use(std::string_view name, uint32_t line) {
    auto it = lookup_.find(name);
    if (it == lookup_.end()) {
      // %x for %x#0.
      if (name.find('#') == std::string_view::npos) {
        std::string hashed = std::string(name) + "#0";
        auto h = lookup_.find(std::string_view(hashed));
        if (h != lookup_.end()) return h->second;
      }
      throw OracleError(OracleError::Kind::Input, line, "use of undefined value " + std::string(name));
    }
    return it->second;
  }
  void push() { scopes_.emplace_back(); }
  void pop() {
    for (auto it = scopes_.back().rbegin(); it != scopes_.back().rend(); ++it) {
      if (it->second < 0) lookup_.erase(it->first);
      else lookup_[it->first] = it->second;
    }
    scopes_.pop_back();
  }
  /// Result slots of an op (%x, %x:3 as %x#0..%x#2, several groups).
  std::vector<int32_t> define_results(const Op &op) {
    std::vector<int32_t> out;
    for (const ResultGroup &g : op.results) {
      if (g.count == 1) {
        out.push_back(define(g.name, op.line));
        hashed_.push_back(std::string(g.name) + "#0");
        lookup_[hashed_.back()] = out.back();
        scopes_.back().push_back({hashed_.back(), -1});
      } else {
        for (uint32_t idx = 0; idx < g.count; ++idx) {
          hashed_.push_back(std::string(g.name) + "#" + std::to_string(idx));
          out.push_back(define(hashed_.back(), op.line));
        }
      }
    }
    return out;
  }

  Type type_of(TokSpan t) const { return parse_type(t.text(), &aliases_); }
  Region region(const pb::hivm::Region &r, const std::vector<std::pair<std::string_view, uint32_t>> &header_args);
  void compile_op(const Op &op, Region &into);
  void compile_generic(const Op &op, Inst &inst, TokSpan s);
  void read_view_entries(TokSpan list, std::vector<Entry> &out, uint32_t line);
  Entry entry_of(TokSpan t, uint32_t line);
  void read_affine(const Op &op, Inst &inst, TokSpan s);
  OpStats &new_stats(const Op &op, const OpInfo *info);

  const AliasMap &aliases_;
  uint32_t fn_index_;
  const Options &options_;
  std::vector<OpStats> &ops_;
  Fn fn_;
  std::map<std::string_view, int32_t, std::less<>> lookup_;
  std::vector<std::vector<std::pair<std::string_view, int32_t>>> scopes_;
  std::deque<std::string> hashed_;
  std::map<uint32_t, uint32_t> ordinal_;
  std::map<std::string_view, std::shared_ptr<const AffineMap>> alias_maps_;
};

OpStats &Compiler::new_stats(const Op &op, const OpInfo *info) {
  OpStats s;
  s.function = fn_index_;
  s.line = op.line;
  s.ordinal = ordinal_[op.line]++;
  s.name = std::string(op.name);
  s.core = fn_.info.core;
  if (info != nullptr) {
    s.cls = info->cls;
    if (info->pipe != Pipe::None) s.pipes = {info->pipe};
  } else {
    s.modelled = false;
  }
  ops_.push_back(std::move(s));
  return ops_.back();
}

Entry Compiler::entry_of(TokSpan t, uint32_t line) {
  Entry e;
  std::vector<std::string_view> ids = percent_ids(t);
  if (!ids.empty()) {
    e.slot = use(ids[0], line);
    return e;
  }
  bool neg = !t.empty() && t[0].kind == Tok::Minus;
  for (size_t idx = 0; idx < t.size(); ++idx)
    if (t[idx].kind == Tok::Integer) {
      auto v = to_int(t[idx].text());
      if (!v) unsupported(line, "bad integer " + std::string(t[idx].text()));
      e.c = neg ? -*v : *v;
      return e;
    }
  unsupported(line, "expected an integer or a value in '" + std::string(t.text()) + "'");
}

void Compiler::read_view_entries(TokSpan list, std::vector<Entry> &out, uint32_t line) {
  for (TokSpan part : split_top(list, Tok::Comma))
    if (!part.empty()) out.push_back(entry_of(part, line));
}

Region Compiler::region(const pb::hivm::Region &r, const std::vector<std::pair<std::string_view, uint32_t>> &header_args) {
  Region out;
  if (r.blocks.size() > 1)
    unsupported(r.line, "a region with " + std::to_string(r.blocks.size()) + " blocks (branches between blocks)");
  push();
  if (!r.blocks.empty() && !r.blocks[0].args.empty()) {
    for (const BlockArg &a : r.blocks[0].args) out.args.push_back(define(a.name, a.line));
  } else {
    for (const auto &[name, line] : header_args) out.args.push_back(define(name, line));
  }
  if (!r.blocks.empty())
    for (const Op &op : r.blocks[0].ops) compile_op(op, out);
  pop();
  return out;
}

void Compiler::read_affine(const Op &op, Inst &inst, TokSpan s) {
  // affine.min affine_map<...>(%d...)[%s...]  or  affine.min #map(%d)[%s]
  size_t at = 0;
  std::shared_ptr<const AffineMap> map;
  size_t after = 0;
  for (; at < s.size(); ++at) {
    if (s[at].kind == Tok::BareId && s[at].text() == "affine_map") {
      map = std::make_shared<AffineMap>(AffineMap::parse(s, at, after));
      break;
    }
    if (s[at].kind == Tok::HashId) {
      std::string_view alias = s[at].text();
      auto cached = alias_maps_.find(alias);
      if (cached != alias_maps_.end()) {
        map = cached->second;
      } else {
        auto it = aliases_.find(alias);
        if (it == aliases_.end()) unsupported(op.line, "unknown affine map alias " + std::string(alias));
        // Lex the alias's text on its own.
        auto text = std::make_shared<std::string>(it->second);
        Lexer lex(*text);
        std::vector<Token> toks;
        for (Token t = lex.next(); t.kind != Tok::Eof; t = lex.next()) toks.push_back(t);
        size_t end = 0;
        TokSpan ts{toks.data(), toks.data() + toks.size()};
        size_t first = 0;
        while (first < ts.size() && !(ts[first].kind == Tok::BareId && ts[first].text() == "affine_map")) ++first;
        map = std::make_shared<AffineMap>(AffineMap::parse(ts, first, end));
        alias_maps_[alias] = map;
      }
      after = at + 1;
      break;
    }
  }
  if (!map) unsupported(op.line, "affine op without a map");
  inst.map = map;
  std::vector<int32_t> dims, syms;
  if (after < s.size() && s[after].kind == Tok::LParen)
    if (auto g = group_at(s, after)) {
      for (std::string_view id : percent_ids(g->first)) dims.push_back(use(id, op.line));
      after = g->second;
    }
  if (after < s.size() && s[after].kind == Tok::LSquare)
    if (auto g = group_at(s, after))
      for (std::string_view id : percent_ids(g->first)) syms.push_back(use(id, op.line));
  if (dims.size() != map->dims() || syms.size() != map->symbols())
    unsupported(op.line, "affine map operands do not match its dimensions and symbols");
  inst.in = dims;
  inst.in.insert(inst.in.end(), syms.begin(), syms.end());
}

void Compiler::compile_generic(const Op &op, Inst &inst, TokSpan s) {
  Generic g = generic_of(s);
  std::string_view name = op.name;
  auto operand_slots = [&]() {
    std::vector<int32_t> v;
    for (std::string_view id : g.operands) v.push_back(use(id, op.line));
    return v;
  };
  const std::vector<int32_t> results = define_results(op);
  inst.out = results;
  Type result_type = g.result_types.empty() ? Type{} : type_of(g.result_types[0]);
  const OpNames &n = names();
  if (name == "arith.constant") {
    inst.kind = K::Const;
    TokSpan v;
    if (auto a = attr_value(g.props, "value")) v = *a;
    else if (auto b = attr_value(g.attrs, "value")) v = *b;
    inst.type = result_type;
    inst.width = width_of(result_type);
    bool neg = !v.empty() && v[0].kind == Tok::Minus;
    for (size_t idx = 0; idx < v.size(); ++idx) {
      if (v[idx].kind == Tok::Integer) {
        inst.constant.t = Val::T::Int;
        inst.constant.i = to_int(v[idx].text()).value_or(0) * (neg ? -1 : 1);
        break;
      }
      if (v[idx].kind == Tok::Float) {
        inst.constant.t = Val::T::Float;
        inst.constant.f = std::stod(std::string(v[idx].text())) * (neg ? -1 : 1);
        break;
      }
      if (v[idx].kind == Tok::BareId && (v[idx].text() == "true" || v[idx].text() == "false")) {
        inst.constant.t = Val::T::Int;
        inst.constant.i = v[idx].text() == "true";
        break;
      }
    }
    inst.constant.width = inst.width;
    return;
  }
  if (auto it = n.ints.find(name); it != n.ints.end()) {
    inst.kind = K::IntBin;
    inst.sub = static_cast<uint8_t>(it->second);
    inst.in = operand_slots();
    inst.width = width_of(result_type);
    return;
  }
  if (auto it = n.casts.find(name); it != n.casts.end()) {
    inst.kind = K::Cast;
    inst.sub = static_cast<uint8_t>(it->second);
    inst.in = operand_slots();
    inst.width = width_of(result_type);
    inst.result_float = result_type.kind == Type::Kind::Scalar && result_type.elem.is_float;
    if (!g.operand_types.empty()) inst.from_width = width_of(type_of(g.operand_types[0]));
    return;
  }
  if (name == "arith.select") {
    inst.kind = K::Select;
    inst.in = operand_slots();
    return;
  }
  if (name == "hivm.hir.get_block_idx") { inst.kind = K::BlockIdx; return; }
  if (name == "hivm.hir.get_sub_block_idx") { inst.kind = K::SubBlockIdx; return; }
  if (name == "hivm.hir.get_block_num") { inst.kind = K::BlockNum; return; }
  if (name == "hivm.hir.get_sub_block_num") { inst.kind = K::SubBlockNum; return; }
  if (name == "hivm.hir.pointer_cast") {
    inst.kind = K::PointerCast;
    inst.in = operand_slots();
    inst.type = result_type;
    return;
  }
  if (name == "memref.reinterpret_cast" || name == "memref.subview") {
    // Operands: source, then the dynamic offsets, sizes, strides in order.
    std::vector<int32_t> ops = operand_slots();
    if (ops.empty()) unsupported(op.line, std::string(name) + " without a source");
    inst.kind = name == "memref.subview" ? K::Subview : K::Reinterpret;
    inst.in = {ops[0]};
    inst.type = result_type;
    if (!g.operand_types.empty()) inst.src_type = type_of(g.operand_types[0]);
    size_t next = 1;
    auto fill = [&](const char *key, std::vector<Entry> &out) {
      std::optional<TokSpan> v = attr_value(g.props, key);
      if (!v) v = attr_value(g.attrs, key);
      if (!v) unsupported(op.line, std::string(name) + " without " + key);
      for (int64_t c : int_list(*v)) {
        Entry e;
        if (c == INT64_MIN) {
          if (next >= ops.size()) unsupported(op.line, "too few dynamic operands");
          e.slot = ops[next++];
        } else {
          e.c = c;
        }
        out.push_back(e);
      }
    };
    fill("static_offsets", inst.offsets);
    fill("static_sizes", inst.sizes);
    fill("static_strides", inst.strides);
    return;
  }
  if (name == "annotation.mark") {
    inst.kind = K::Nop;
    inst.in = operand_slots();
    for (size_t idx = 0; idx < g.attrs.size(); ++idx)
      if (g.attrs[idx].kind == Tok::BareId && g.attrs[idx].text() == "logical_block_num" && !inst.in.empty())
        fn_.logical_block_num = inst.in[0];
    return;
  }
  if (name == "func.return" || name == "return") {
    inst.kind = K::Return;
    return;
  }
  if (inst.info.cls == OpClass::SetFlag || inst.info.cls == OpClass::WaitFlag || inst.info.cls == OpClass::PipeBarrier ||
      inst.info.cls == OpClass::SyncBlockSet || inst.info.cls == OpClass::SyncBlockWait ||
      inst.info.cls == OpClass::SyncBlock) {
    inst.kind = K::Sync;
    OpStats &st = ops_[inst.op];
    auto pipe_of = [&](std::string_view key) -> Pipe {
      std::optional<TokSpan> v = attr_value(g.props, key);
      if (!v) v = attr_value(g.attrs, key);
      if (!v) return Pipe::None;
      for (size_t idx = 0; idx < v->size(); ++idx)
        if ((*v)[idx].kind == Tok::BareId)
          if (auto p = pipe_from_enum((*v)[idx].text())) return *p;
      return Pipe::None;
    };
    Pipe p = Pipe::None;
    switch (inst.info.cls) {
      case OpClass::SetFlag: p = pipe_of("set_pipe"); break;
      case OpClass::WaitFlag: p = pipe_of("wait_pipe"); break;
      case OpClass::PipeBarrier: p = pipe_of("pipe"); break;
      case OpClass::SyncBlockSet: p = pipe_of("tpipe"); break;
      case OpClass::SyncBlockWait: p = pipe_of("pipe"); break;
      default: p = Pipe::ALL; break;
    }
    st.pipes.clear();
    if (p != Pipe::None) st.pipes = {p};
    else st.modelled = false;
    return;
  }
  if (inst.info.cls != OpClass::Unknown && (is_vector_class(inst.info.cls) || inst.info.cls == OpClass::Dma ||
                                            inst.info.cls == OpClass::Cube || inst.info.cls == OpClass::CubeMacro)) {
    inst.kind = K::Hivm;
    std::vector<int32_t> ops = operand_slots();
    std::vector<int64_t> segments;
    if (auto seg = attr_value(g.props, "operandSegmentSizes")) segments = int_list(*seg);
    size_t n_ins = ops.empty() ? 0 : ops.size() - 1, n_outs = ops.empty() ? 0 : 1;
    if (segments.size() >= 2) {
      n_ins = static_cast<size_t>(segments[0]);
      n_outs = static_cast<size_t>(segments[1]);
    }
    for (size_t idx = 0; idx < ops.size() && idx < n_ins + n_outs; ++idx) {
      HOperand h;
      h.slot = ops[idx];
      if (idx < g.operand_types.size()) h.type = type_of(g.operand_types[idx]);
      (idx < n_ins ? inst.ins : inst.outs).push_back(std::move(h));
    }
    return;
  }
  if (inst.info.cls == OpClass::HivmScalar) {
    inst.kind = K::OtherScalar;
    return;
  }
  inst.kind = K::Other;
}

void Compiler::compile_op(const Op &op, Region &into) {
  const std::optional<OpInfo> found = lookup_op(op.name);
  new_stats(op, found ? &*found : nullptr);
  const size_t me = ops_.size() - 1;
  // Regions add ops: the record is reached by index, never by a reference kept across them.
  auto stats_of = [this, me]() -> OpStats & { return ops_[me]; };
  Inst inst;
  inst.op = static_cast<uint32_t>(ops_.size() - 1);
  inst.line = op.line;
  inst.name = op.name;
  if (found) inst.info = *found;
  TokSpan s = own_tokens(op);
  const uint32_t line = op.line;
  const std::string_view name = op.name;
  const OpNames &n = names();
  auto ids_before_colon = [&](TokSpan t) {
    auto colon = find_top(t, Tok::Colon);
    return percent_ids(colon ? t.sub(0, *colon) : t);
  };
  auto finish = [&]() {
    fn_.insts.push_back(std::move(inst));
    into.insts.push_back(static_cast<uint32_t>(fn_.insts.size() - 1));
  };

  // Region ops first: their regions are compiled in a scope of their own.
  if (name == "scf.for") {
    inst.kind = K::For;
    // %iv = %lb to %ub step %s [iter_args(%a = %x, ...)] [-> (types)] [: type]
    if (s.size() < 7 || s[0].kind != Tok::PercentId) unsupported(line, "scf.for header not understood");
    std::string_view iv = s[0].text();
    auto to = find_word(s, "to"), step = find_word(s, "step");
    if (!to || !step) unsupported(line, "scf.for header without 'to'/'step'");
    std::vector<std::string_view> lb = percent_ids(s.sub(2, *to)), ub = percent_ids(s.sub(*to + 1, *step));
    std::vector<std::string_view> st = percent_ids(s.sub(*step + 1, std::min(s.size(), *step + 2)));
    if (lb.size() != 1 || ub.size() != 1 || st.size() != 1) unsupported(line, "scf.for bounds must be values");
    inst.in = {use(lb[0], line), use(ub[0], line), use(st[0], line)};
    std::vector<std::pair<std::string_view, uint32_t>> header{{iv, line}};
    if (auto iter = keyword_group(s, "iter_args"))
      for (TokSpan part : split_top(*iter, Tok::Comma)) {
        std::vector<std::string_view> ids = percent_ids(part);
        if (ids.size() != 2) unsupported(line, "iter_args entry not understood");
        header.push_back({ids[0], line});
        inst.in.push_back(use(ids[1], line));
      }
    if (auto colon = find_last_top(s, Tok::Colon)) inst.width = width_of(type_of(s.from(*colon + 1)));
    if (op.regions.size() != 1) unsupported(line, "scf.for without one region");
    inst.regions.push_back(region(op.regions[0], header));
    inst.out = define_results(op);
    stats_of().scalar_kind = "loop_control";
    return finish();
  }
  if (name == "scf.if") {
    inst.kind = K::If;
    std::vector<std::string_view> cond = percent_ids(s.sub(0, std::min<size_t>(1, s.size())));
    if (cond.size() != 1) unsupported(line, "scf.if condition not understood");
    inst.in = {use(cond[0], line)};
    for (const pb::hivm::Region &r : op.regions) inst.regions.push_back(region(r, {}));
    inst.out = define_results(op);
    stats_of().scalar_kind = "branch";
    return finish();
  }
  if (name == "scf.while") {
    inst.kind = K::While;
    // (%a = %x, ...) : (types) -> (types) { before } do { ^bb0(...): after }
    std::vector<std::pair<std::string_view, uint32_t>> header;
    if (!s.empty() && s[0].kind == Tok::LParen)
      if (auto g = group_at(s, 0))
        for (TokSpan part : split_top(g->first, Tok::Comma)) {
          std::vector<std::string_view> ids = percent_ids(part);
          if (ids.size() != 2) unsupported(line, "scf.while operand not understood");
          header.push_back({ids[0], line});
          inst.in.push_back(use(ids[1], line));
        }
    if (op.regions.size() != 2) unsupported(line, "scf.while without two regions");
    inst.regions.push_back(region(op.regions[0], header));
    inst.regions.push_back(region(op.regions[1], {}));
    inst.out = define_results(op);
    stats_of().scalar_kind = "loop_control";
    return finish();
  }
  if (!op.regions.empty() && name != "scf.for") {
    // Another op with regions: not executed (its regions are skipped) but counted.
    inst.kind = K::Other;
    inst.out = define_results(op);
    return finish();
  }

  if (op.generic) {
    compile_generic(op, inst, s);
    return finish();
  }

  if (name == "scf.yield" || name == "scf.condition") {
    inst.kind = name == "scf.yield" ? K::Yield : K::Condition;
    for (std::string_view id : ids_before_colon(s)) inst.in.push_back(use(id, line));
    return finish();
  }
  if (name == "func.return" || name == "return") {
    inst.kind = K::Return;
    return finish();
  }
  if (name == "annotation.mark") {
    inst.kind = K::Nop;
    std::vector<std::string_view> ids = ids_before_colon(s);
    for (std::string_view id : ids) inst.in.push_back(use(id, line));
    if (find_word(s, "logical_block_num") || s.text().find("logical_block_num") != std::string_view::npos)
      if (!inst.in.empty()) fn_.logical_block_num = inst.in[0];
    return finish();
  }

  const std::vector<int32_t> results = define_results(op);
  inst.out = results;

  if (name == "arith.constant") {
    inst.kind = K::Const;
    auto colon = find_last_top(s, Tok::Colon);
    TokSpan v = colon ? s.sub(0, *colon) : s;
    Type t = colon ? type_of(s.from(*colon + 1)) : parse_type("i1");
    inst.type = t;
    inst.width = width_of(t);
    bool neg = !v.empty() && v[0].kind == Tok::Minus;
    if (!v.empty() && v[neg ? 1 : 0].kind == Tok::Integer) {
      auto c = to_int(v[neg ? 1 : 0].text());
      if (!c) unsupported(line, "constant not understood");
      inst.constant.t = t.elem.is_float ? Val::T::Float : Val::T::Int;
      inst.constant.i = neg ? -*c : *c;
      inst.constant.f = static_cast<double>(inst.constant.i);
    } else if (!v.empty() && v[neg ? 1 : 0].kind == Tok::Float) {
      inst.constant.t = Val::T::Float;
      inst.constant.f = std::stod(std::string(v[neg ? 1 : 0].text())) * (neg ? -1 : 1);
    } else if (!v.empty() && v[0].kind == Tok::BareId && (v[0].text() == "true" || v[0].text() == "false")) {
      inst.constant.t = Val::T::Int;
      inst.constant.i = v[0].text() == "true" ? 1 : 0;
      inst.width = 1;
    }  // dense<...> and others: poison
    inst.constant.width = inst.width;
    return finish();
  }
  if (auto it = n.ints.find(name); it != n.ints.end()) {
    inst.kind = K::IntBin;
    inst.sub = static_cast<uint8_t>(it->second);
    for (std::string_view id : ids_before_colon(s)) inst.in.push_back(use(id, line));
    if (auto colon = find_last_top(s, Tok::Colon)) inst.width = width_of(type_of(s.from(*colon + 1)));
    if (inst.in.size() != 2) unsupported(line, std::string(name) + " needs two operands");
    return finish();
  }
  if (auto it = n.floats.find(name); it != n.floats.end()) {
    inst.kind = K::FloatBin;
    inst.sub = static_cast<uint8_t>(it->second);
    for (std::string_view id : ids_before_colon(s)) inst.in.push_back(use(id, line));
    return finish();
  }
  if (name == "arith.cmpi" || name == "arith.cmpf") {
    inst.kind = name == "arith.cmpi" ? K::CmpI : K::CmpF;
    if (s.empty() || s[0].kind != Tok::BareId) unsupported(line, "comparison predicate not understood");
    const auto &table = name == "arith.cmpi" ? n.preds : n.fpreds;
    auto p = table.find(s[0].text());
    if (p == table.end()) unsupported(line, "unknown predicate " + std::string(s[0].text()));
    inst.sub = static_cast<uint8_t>(p->second);
    for (std::string_view id : ids_before_colon(s)) inst.in.push_back(use(id, line));
    if (auto colon = find_last_top(s, Tok::Colon)) inst.from_width = width_of(type_of(s.from(*colon + 1)));
    inst.width = 1;
    return finish();
  }
  if (name == "arith.select") {
    inst.kind = K::Select;
    for (std::string_view id : ids_before_colon(s)) inst.in.push_back(use(id, line));
    if (inst.in.size() != 3) unsupported(line, "arith.select needs three operands");
    return finish();
  }
  if (auto it = n.casts.find(name); it != n.casts.end()) {
    inst.kind = K::Cast;
    inst.sub = static_cast<uint8_t>(it->second);
    for (std::string_view id : ids_before_colon(s)) inst.in.push_back(use(id, line));
    std::vector<TokSpan> types = trailing_types(s);
    if (types.size() == 2) {
      Type from = type_of(types[0]), to = type_of(types[1]);
      inst.from_width = width_of(from);
      inst.width = width_of(to);
      inst.result_float = to.kind == Type::Kind::Scalar && to.elem.is_float;
    }
    return finish();
  }
  if (name == "affine.apply" || name == "affine.min" || name == "affine.max") {
    inst.kind = K::Affine;
    inst.sub = name == "affine.apply" ? 0 : (name == "affine.min" ? 1 : 2);
    read_affine(op, inst, s);
    return finish();
  }
  if (name == "hivm.hir.get_block_idx") { inst.kind = K::BlockIdx; return finish(); }
  if (name == "hivm.hir.get_sub_block_idx") { inst.kind = K::SubBlockIdx; return finish(); }
  if (name == "hivm.hir.get_block_num") { inst.kind = K::BlockNum; return finish(); }
  if (name == "hivm.hir.get_sub_block_num") { inst.kind = K::SubBlockNum; return finish(); }

  if (name == "memref.load" || name == "memref.store") {
    inst.kind = name == "memref.load" ? K::Load : K::Store;
    // load: %m[%i, %j] : type ; store: %v, %m[%i] : type
    auto open = find_top(s, Tok::LSquare);
    if (!open) unsupported(line, std::string(name) + " without indices");
    std::vector<std::string_view> before = percent_ids(s.sub(0, *open));
    auto grp = group_at(s, *open);
    if (!grp || before.empty()) unsupported(line, std::string(name) + " not understood");
    for (std::string_view id : before) inst.in.push_back(use(id, line));  // [value,] memref
    for (std::string_view id : percent_ids(grp->first)) inst.in.push_back(use(id, line));
    inst.sub = static_cast<uint8_t>(before.size());  // index of the first index operand
    if (auto colon = find_last_top(s, Tok::Colon)) inst.src_type = type_of(s.from(*colon + 1));
    inst.type = parse_type(inst.src_type.elem.name);
    inst.width = width_of(inst.type);
    return finish();
  }
  if (name == "memref.subview") {
    inst.kind = K::Subview;
    // %src[offsets] [sizes] [strides] : T to T
    if (s.empty() || s[0].kind != Tok::PercentId) unsupported(line, "subview source not understood");
    inst.in = {use(s[0].text(), line)};
    size_t at = 1;
    std::vector<Entry> *lists[] = {&inst.offsets, &inst.sizes, &inst.strides};
    for (std::vector<Entry> *list : lists) {
      if (at >= s.size() || s[at].kind != Tok::LSquare) unsupported(line, "subview lists not understood");
      auto g = group_at(s, at);
      if (!g) unsupported(line, "subview lists not understood");
      read_view_entries(g->first, *list, line);
      at = g->second;
    }
    std::vector<TokSpan> types = trailing_types(s);
    if (types.size() != 2) unsupported(line, "subview types not understood");
    inst.src_type = type_of(types[0]);
    inst.type = type_of(types[1]);
    stats_of().scalar_kind = "address";
    return finish();
  }
  if (name == "memref.reinterpret_cast") {
    inst.kind = K::Reinterpret;
    if (s.empty() || s[0].kind != Tok::PercentId) unsupported(line, "reinterpret_cast source not understood");
    inst.in = {use(s[0].text(), line)};
    auto list = [&](std::string_view kw, std::vector<Entry> &out) {
      auto at = find_word(s, kw);
      if (!at) unsupported(line, "reinterpret_cast without " + std::string(kw));
      size_t open = *at + 1;
      if (open < s.size() && s[open].kind == Tok::Colon) ++open;
      auto g = group_at(s, open);
      if (!g) unsupported(line, "reinterpret_cast list not understood");
      read_view_entries(g->first, out, line);
    };
    list("offset", inst.offsets);
    list("sizes", inst.sizes);
    list("strides", inst.strides);
    std::vector<TokSpan> types = trailing_types(s);
    if (types.size() != 2) unsupported(line, "reinterpret_cast types not understood");
    inst.src_type = type_of(types[0]);
    inst.type = type_of(types[1]);
    return finish();
  }
  if (name == "memref.cast" || name == "hivm.hir.bitcast" || name == "memref.collapse_shape" ||
      name == "memref.expand_shape") {
    inst.kind = name == "memref.cast"             ? K::ViewCast
                : name == "hivm.hir.bitcast"      ? K::Bitcast
                : name == "memref.collapse_shape" ? K::Collapse
                                                  : K::Expand;
    if (s.empty() || s[0].kind != Tok::PercentId) unsupported(line, std::string(name) + " source not understood");
    inst.in = {use(s[0].text(), line)};
    std::vector<TokSpan> types = trailing_types(s);
    if (types.size() == 2) {
      inst.src_type = type_of(types[0]);
      inst.type = type_of(types[1]);
    } else if (types.size() == 1) {
      // hivm.hir.bitcast %x : T1 -> T2
      auto arrow = find_top(types[0], Tok::Arrow);
      if (arrow) {
        inst.src_type = type_of(types[0].sub(0, *arrow));
        inst.type = type_of(types[0].from(*arrow + 1));
      } else {
        inst.type = type_of(types[0]);
      }
    }
    if (inst.kind == K::Collapse || inst.kind == K::Expand) {
      if (s.size() < 2 || s[1].kind != Tok::LSquare) unsupported(line, "reassociation not understood");
      auto g = group_at(s, 1);
      if (!g) unsupported(line, "reassociation not understood");
      for (TokSpan part : split_top(g->first, Tok::Comma)) {
        if (part.empty()) continue;
        auto inner = group_at(part, 0);
        if (!inner) unsupported(line, "reassociation group not understood");
        std::vector<int64_t> grp;
        for (TokSpan e : split_top(inner->first, Tok::Comma))
          if (!e.empty() && e[0].kind == Tok::Integer) grp.push_back(to_int(e[0].text()).value_or(0));
        inst.groups.push_back(grp);
      }
      if (inst.kind == K::Expand)
        if (auto at = find_word(s, "output_shape"))
          if (auto g2 = group_at(s, *at + 1)) read_view_entries(g2->first, inst.sizes, line);
    }
    return finish();
  }
  if (name == "memref.extract_strided_metadata") {
    inst.kind = K::ExtractMeta;
    if (s.empty() || s[0].kind != Tok::PercentId) unsupported(line, "extract_strided_metadata not understood");
    inst.in = {use(s[0].text(), line)};
    return finish();
  }
  if (name == "hivm.hir.pointer_cast") {
    inst.kind = K::PointerCast;
    if (!s.empty() && s[0].kind == Tok::LParen)
      if (auto g = group_at(s, 0))
        for (std::string_view id : percent_ids(g->first)) inst.in.push_back(use(id, line));
    if (auto colon = find_last_top(s, Tok::Colon)) inst.type = type_of(s.from(*colon + 1));
    return finish();
  }
  if (name == "memref_ext.alloc_workspace") {
    inst.kind = K::AllocWorkspace;
    auto from = find_word(s, "from");
    if (!from || *from + 1 >= s.size() || s[*from + 1].kind != Tok::PercentId)
      unsupported(line, "alloc_workspace source not understood");
    inst.in = {use(s[*from + 1].text(), line)};
    if (auto off = find_word(s, "offset")) {
      size_t open = *off + 1;
      if (open < s.size() && s[open].kind == Tok::Equal) ++open;
      if (auto g = group_at(s, open)) read_view_entries(g->first, inst.offsets, line);
    }
    std::vector<TokSpan> types = trailing_types(s);
    if (!types.empty()) inst.type = type_of(types.back());
    return finish();
  }
  if (name == "memref.alloc" || name == "memref.alloca") {
    inst.kind = K::Alloc;
    if (!s.empty() && s[0].kind == Tok::LParen)
      if (auto g = group_at(s, 0))
        for (std::string_view id : percent_ids(g->first)) inst.in.push_back(use(id, line));
    if (auto colon = find_last_top(s, Tok::Colon)) inst.type = type_of(s.from(*colon + 1));
    return finish();
  }
  if (found && (found->cls == OpClass::SetFlag || found->cls == OpClass::WaitFlag ||
                found->cls == OpClass::PipeBarrier || found->cls == OpClass::SyncBlockSet ||
                found->cls == OpClass::SyncBlockWait || found->cls == OpClass::SyncBlock)) {
    inst.kind = K::Sync;
    std::vector<TokSpan> entries;
    if (auto open = find_top(s, Tok::LSquare))
      if (auto g = group_at(s, *open)) entries = split_top(g->first, Tok::Comma);
    auto pipe_in = [&](size_t idx) -> Pipe {
      if (idx >= entries.size()) return Pipe::None;
      for (size_t t = 0; t < entries[idx].size(); ++t)
        if (entries[idx][t].kind == Tok::BareId)
          if (auto p = pipe_from_enum(entries[idx][t].text())) return *p;
      return Pipe::None;
    };
    Pipe p = Pipe::None;
    switch (found->cls) {
      case OpClass::SetFlag: p = pipe_in(0); break;
      case OpClass::WaitFlag: p = pipe_in(1); break;
      case OpClass::PipeBarrier: p = pipe_in(0); break;
      case OpClass::SyncBlockSet: p = pipe_in(1); break;
      case OpClass::SyncBlockWait: p = pipe_in(2); break;
      default: p = Pipe::ALL; break;
    }
    stats_of().pipes.clear();
    if (p != Pipe::None) stats_of().pipes = {p};
    else stats_of().modelled = false;
    return finish();
  }
  if (found && (is_vector_class(found->cls) || found->cls == OpClass::Dma || found->cls == OpClass::Cube ||
                found->cls == OpClass::CubeMacro)) {
    inst.kind = K::Hivm;
    auto read_group = [&](std::string_view kw, std::vector<HOperand> &out) {
      auto grp = keyword_group(s, kw);
      if (!grp || grp->empty()) return;
      auto colon = find_top(*grp, Tok::Colon);
      TokSpan ids = colon ? grp->sub(0, *colon) : *grp;
      std::vector<TokSpan> types = colon ? split_top(grp->from(*colon + 1), Tok::Comma) : std::vector<TokSpan>{};
      std::vector<TokSpan> entries = split_top(ids, Tok::Comma);
      for (size_t idx = 0; idx < entries.size(); ++idx) {
        HOperand h;
        std::vector<std::string_view> pid = percent_ids(entries[idx]);
        if (!pid.empty()) h.slot = use(pid[0], line);
        if (idx < types.size()) h.type = type_of(types[idx]);
        out.push_back(std::move(h));
      }
    };
    read_group("ins", inst.ins);
    read_group("outs", inst.outs);
    return finish();
  }
  if (found && (found->cls == OpClass::HivmScalar || found->cls == OpClass::SyncOther)) {
    inst.kind = K::OtherScalar;
    if (found->cls == OpClass::HivmScalar) stats_of().scalar_kind = "hivm";
    return finish();
  }
  inst.kind = K::Other;
  return finish();
}

Fn Compiler::run(const Op &func) {
  TokSpan s = tokens_of(func);
  fn_.info.line = func.line;
  TokSpan attrs;
  std::vector<std::pair<std::string_view, TokSpan>> sig;  // name, type tokens
  std::vector<TokSpan> arg_attrs;
  if (func.generic) {
    Generic g = generic_of(s);
    if (auto name = attr_value(g.props, "sym_name")) fn_.info.name = "@" + std::string((*name)[0].text().substr(1, (*name)[0].text().size() - 2));
    attrs = g.attrs;
  } else {
    size_t at = 0;
    while (at < s.size() && s[at].kind != Tok::AtId) ++at;
    if (at < s.size()) fn_.info.name = std::string(s[at].text());
    if (at + 1 < s.size() && s[at + 1].kind == Tok::LParen)
      if (auto g = group_at(s, at + 1)) {
        for (TokSpan entry : split_top(g->first, Tok::Comma)) {
          if (entry.size() < 3 || entry[0].kind != Tok::PercentId) continue;
          TokSpan type = entry.from(2), attr;
          if (auto brace = find_top(type, Tok::LBrace)) {
            if (auto ag = group_at(type, *brace)) attr = ag->first;
            type = type.sub(0, *brace);
          }
          sig.push_back({entry[0].text(), type});
          arg_attrs.push_back(attr);
        }
      }
    if (auto kw = find_word(s, "attributes"))
      if (*kw + 1 < s.size() && s[*kw + 1].kind == Tok::LBrace)
        if (auto g = group_at(s, *kw + 1)) attrs = g->first;
  }
  // Core type: hivm.func_core_type, else the mix suffix.
  if (auto core = attr_value(attrs, "hivm.func_core_type")) {
    fn_.core_declared = true;
    for (size_t idx = 0; idx < core->size(); ++idx) {
      if ((*core)[idx].kind != Tok::BareId) continue;
      if ((*core)[idx].text() == "AIC") fn_.info.core = Core::AIC;
      if ((*core)[idx].text() == "AIV") fn_.info.core = Core::AIV;
    }
  }
  auto ends_with = [&](std::string_view suffix) {
    return fn_.info.name.size() > suffix.size() &&
           std::string_view(fn_.info.name).substr(fn_.info.name.size() - suffix.size()) == suffix;
  };
  if (fn_.info.core == Core::Unknown) {
    if (ends_with("_mix_aic")) fn_.info.core = Core::AIC;
    else if (ends_with("_mix_aiv")) fn_.info.core = Core::AIV;
    if (fn_.info.core != Core::Unknown) fn_.core_declared = true;
  }
  bool mix = attr_value(attrs, "hivm.part_of_mix").has_value();
  if (auto mm = attr_value(attrs, "mix_mode"); mm && !mm->empty() && (*mm)[0].kind == Tok::String)
    mix = mix || (*mm)[0].text() == "\"mix\"";
  fn_.info.mix = mix && fn_.info.core != Core::Unknown;
  fn_.info.instances = (fn_.info.mix && fn_.info.core == Core::AIV) ? std::max<uint32_t>(1, options_.aiv_per_aic) : 1;

  push();
  if (func.regions.empty() || func.regions[0].blocks.empty())
    throw OracleError(OracleError::Kind::Input, func.line, "function without a body");
  const pb::hivm::Block &entry = func.regions[0].blocks[0];
  if (func.generic) {
    for (const BlockArg &a : entry.args) {
      sig.push_back({a.name, {}});
      arg_attrs.emplace_back();
    }
  }
  for (size_t idx = 0; idx < sig.size(); ++idx) {
    ArgInfo a;
    a.name = sig[idx].first;
    if (func.generic) a.type = parse_type(entry.args[idx].type, &aliases_);
    else a.type = type_of(sig[idx].second);
    if (auto role = attr_value(arg_attrs[idx], "hacc.arg_type")) {
      for (size_t t = 0; t < role->size(); ++t)
        if ((*role)[t].kind == Tok::BareId) a.role = std::string((*role)[t].text());
    }
    if (a.role.empty()) a.role = a.type.kind == Type::Kind::Memref ? "pointer" : "scalar";
    fn_.args.push_back(a);
    fn_.arg_slots.push_back(define(a.name, func.line));
  }
  if (func.regions[0].blocks.size() > 1) unsupported(func.line, "a function body with several blocks");
  for (const Op &op : entry.ops) compile_op(op, fn_.body);
  pop();
  // Grid arguments: the factors of the value annotated {logical_block_num}
  // (multiplications and casts of arguments), x first.
  std::map<int32_t, size_t> def;
  for (size_t idx = 0; idx < fn_.insts.size(); ++idx)
    for (int32_t o : fn_.insts[idx].out) def[o] = idx;
  std::function<void(int32_t, int)> leaves = [&](int32_t slot, int depth) {
    if (slot < 0 || depth > 8) return;
    for (size_t a = 0; a < fn_.arg_slots.size(); ++a)
      if (fn_.arg_slots[a] == slot) {
        fn_.grid_arg_order.push_back(static_cast<int32_t>(a));
        return;
      }
    auto it = def.find(slot);
    if (it == def.end()) return;
    const Inst &d = fn_.insts[it->second];
    if (d.kind == K::IntBin && static_cast<IntOp>(d.sub) == IntOp::Mul && d.in.size() == 2) {
      leaves(d.in[0], depth + 1);
      leaves(d.in[1], depth + 1);
    } else if (d.kind == K::Cast && !d.in.empty()) {
      leaves(d.in[0], depth + 1);
    }
  };
  leaves(fn_.logical_block_num, 0);
  static const char *kAxis[] = {"grid_x", "grid_y", "grid_z"};
  for (size_t axis = 0; axis < fn_.grid_arg_order.size() && axis < 3; ++axis) {
    ArgInfo &a = fn_.args[static_cast<size_t>(fn_.grid_arg_order[axis])];
    a.role = kAxis[axis];
    a.grid_axis = static_cast<int32_t>(axis);
  }
  int32_t triton = 0;
  for (ArgInfo &a : fn_.args) {
    if (a.role == "ffts_base_address" || a.role == "sync_block_lock" || a.role == "workspace" || a.grid_axis >= 0)
      continue;
    a.triton = triton++;
  }
  return std::move(fn_);
}

}  // namespace

Fn compile_function(const Op &func, const AliasMap &aliases, uint32_t fn_index, const Options &options,
                    std::vector<OpStats> &ops) {
  Compiler c(aliases, fn_index, options, ops);
  return c.run(func);
}

}  // namespace detail
}  // namespace pb::hivm::oracle
