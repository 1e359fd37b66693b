//===- analyze.cpp - from HIVM text to a Program ---------------------------===//
#include "analyze.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <unordered_map>

#include "parser.hpp"
#include "sync.hpp"
#include "tokens.hpp"

namespace pb::hivm {

const char *core_name(CoreType core) {
  switch (core) {
    case CoreType::AIC: return "aic";
    case CoreType::AIV: return "aiv";
    case CoreType::Unknown: break;
  }
  return "unknown";
}

bool may_overlap(const BufferRef &a, const BufferRef &b) {
  using K = BufferRef::Kind;
  if (a.kind == K::Unknown || b.kind == K::Unknown)
    return a.space == b.space || a.space == Space::Unknown || b.space == Space::Unknown;
  if (a.space != b.space) return false;
  // Distinct kernel pointer arguments are assumed not to alias each other or the workspace.
  if (a.kind == K::Arg || b.kind == K::Arg) return a.kind == b.kind && a.id == b.id;
  if (a.kind == K::Alloc || b.kind == K::Alloc) return a.kind == b.kind && a.id == b.id;
  if (a.kind != b.kind || a.bytes < 0 || b.bytes < 0) return true;
  auto overlaps = [](int64_t x, int64_t xs, int64_t y, int64_t ys) {
    if (x < 0 || y < 0) return true;
    return x < y + ys && y < x + xs;
  };
  const int64_t abases[2] = {a.base0, a.base1};
  const int64_t bbases[2] = {b.base0, b.base1};
  for (int ai = 0; ai < (a.base1 >= 0 ? 2 : 1); ++ai)
    for (int bi = 0; bi < (b.base1 >= 0 ? 2 : 1); ++bi)
      if (overlaps(abases[ai], a.bytes, bbases[bi], b.bytes)) return true;
  return false;
}

namespace {

using ValueId = uint32_t;
constexpr ValueId kNone = UINT32_MAX;
constexpr int64_t kInf = Interval::kPosInf;

// kTGiven: through a value the user gave (launch data), so it holds under that fact.
enum Taint : uint8_t { kTBlock = 1, kTSub = 2, kTIV = 4, kTData = 8, kTArg = 16, kTUnknown = 32, kTGiven = 64 };
constexpr uint8_t kTUnresolved = kTData | kTArg | kTUnknown;  // no enumeration can pin it down

enum class VKind : uint8_t { Unknown, Const, Arg, BlockIdx, SubBlockIdx, BlockNum, SubBlockNum, IV, Data, Binary,
                             Compare, Select, Cast, Affine, Load };

enum class BinOp : uint8_t { Add, Sub, Mul, DivS, FloorDiv, CeilDiv, RemS, Min, Max, And, Or, Xor, Shl, ShrS };
enum class CmpPred : uint8_t { EQ, NE, LT, LE, GT, GE };

struct DimRef {
  int64_t c = kDynamic;  // static value
  ValueId v = kNone;     // dynamic: the SSA value
  int64_t bound = -1;    // a static upper bound (the source buffer's extent), -1 when none
};

struct MemrefInfo {
  std::vector<DimRef> dims;
  std::vector<DimRef> strides;
  std::vector<BufferRef> roots;
  DimRef offset{0, kNone, -1};  // elements from the root's base; c == kDynamic and v == kNone: unknown
};

/// A scalar load from a kernel argument: the element it reads, for the user's data facts.
struct LoadInfo {
  uint32_t arg = 0;                // HIVM argument index of the root
  DimRef offset;                   // of the loaded view
  std::vector<ValueId> indices;    // load indices
  std::vector<DimRef> strides;     // of the loaded view
};

constexpr DimRef kUnknownOffset{kDynamic, kNone, -1};

/// The sizes and strides a memref type states (dynamic ones unbounded), no roots yet.
MemrefInfo static_memref_info(const Type &type) {
  MemrefInfo info;
  for (size_t idx = 0; idx < type.rank(); ++idx) {
    int64_t d = type.shape[idx];
    info.dims.push_back({d, kNone, d == kDynamic ? -1 : d});
    info.strides.push_back({type.strides[idx], kNone, -1});
  }
  return info;
}

struct Value {
  VKind kind = VKind::Unknown;
  uint8_t op = 0;
  bool to_i1 = false;
  int64_t c = 0;
  ValueId a = kNone, b = kNone, d = kNone;
  uint32_t aux = 0;
  uint32_t line = 0;
  Type type;
  int32_t mem = -1;
};

struct AffineUse {
  uint32_t map = 0;
  uint8_t flavour = 0;  // 0 apply, 1 min, 2 max
  std::vector<ValueId> operands;
};

struct LoopInfo {
  ValueId iv = kNone, lb = kNone, ub = kNone, step = kNone;
  uint32_t line = 0;
  uint32_t record = 0;
  bool has_hivm = false;
  bool has_scalar_memory = false;
  bool extracted = false;  // {ExtractedLoadOrStore}
  bool unknown_trip = false;  // scf.while or an unparsable header
  std::vector<std::string> attributes;
  int32_t parent = -1;
  uint32_t depth = 0;
  int32_t body_path = -1;
};

struct PathNode {
  enum class Kind : uint8_t { Root, Loop, Cond, Opaque };
  Kind kind = Kind::Root;
  int32_t parent = -1;
  uint32_t loop = 0;       // Loop
  ValueId cond = kNone;    // Cond
  bool negated = false;
  bool unlikely = false;
  uint32_t line = 0;
  std::string what;        // Opaque: the op whose region semantics are unknown
};

struct Operand {
  ValueId v = kNone;
  Type type;
  std::string_view name;
};

struct OpDetail {
  std::vector<Operand> ins, outs;
  std::vector<ValueId> scalars;  // mmadL1: init, m, k, n
  ValueId event = kNone;         // dynamic event id
  ValueId memref = kNone;        // memref.load/store: the memref
  Type memref_type;
  bool hivm = false;
};

struct Mult {
  int64_t min = 1, value = 1, max = 1;
  bool exact = true;
  bool known = true;
};

Mult mult_mul(Mult a, int64_t lo, int64_t hi, int64_t value, bool exact, bool known) {
  auto mul = [](int64_t x, int64_t y) -> int64_t {
    if (x == 0 || y == 0) return 0;
    if (x == kInf || y == kInf) return kInf;
    int64_t p = 0;
    if (__builtin_mul_overflow(x, y, &p) || p >= kInf) return kInf;
    return p;
  };
  Mult r;
  r.min = mul(a.min, lo);
  r.max = mul(a.max, hi);
  r.value = mul(a.value, value);
  r.exact = a.exact && exact;
  r.known = a.known && known;
  return r;
}

int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a == kInf || b == kInf) return kInf;
  int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || p >= kInf) return kInf;
  return p;
}

int64_t sat_add(int64_t a, int64_t b) {
  if (a == kInf || b == kInf) return kInf;
  int64_t s = 0;
  if (__builtin_add_overflow(a, b, &s) || s >= kInf) return kInf;
  return s;
}

std::optional<int64_t> parse_int(std::string_view text) {
  int64_t v = 0;
  if (text.size() > 2 && text[0] == '0' && text[1] == 'x') {
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), u, 16);
    if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string fmt_count(int64_t v) { return v == kInf ? std::string("unbounded") : std::to_string(v); }

int64_t elem_bytes_ceil(int64_t elements, uint32_t bits) {
  if (elements < 0) return -1;
  return (elements * static_cast<int64_t>(bits) + 7) / 8;
}

std::string dtype_name(const ElemType &e) { return e.known() ? std::string(e.name) : std::string(); }

/// Evaluation context: which block, sub-block and loop iterations we are in.
struct Ctx {
  Interval block = Interval::point(0);
  Interval sub = Interval::point(0);
  std::vector<std::optional<Interval>> iv;  // per loop
};

struct Eval {
  Interval iv;
  uint8_t taint = 0;
};

}  // namespace

namespace {

/// The parts of an op printed in MLIR's generic form.
struct GenericParts {
  std::vector<std::string_view> operands;
  TokSpan props;  // inside <{ ... }>
  TokSpan attrs;  // inside { ... }
  std::vector<TokSpan> operand_types, result_types;
};

GenericParts generic_parts(const Op &op) {
  GenericParts g;
  TokSpan s = tokens_of(op);
  size_t idx = 0;
  if (idx < s.size() && s[idx].kind == Tok::LParen) {
    if (auto grp = group_at(s, idx)) {
      g.operands = percent_ids(grp->first);
      idx = grp->second;
    }
  }
  while (idx < s.size()) {
    Tok k = s[idx].kind;
    if (k == Tok::LSquare || k == Tok::LParen) {
      auto grp = group_at(s, idx);
      if (!grp) break;
      idx = grp->second;
    } else if (k == Tok::Less) {
      auto grp = group_at(s, idx);
      if (!grp) break;
      TokSpan inner = grp->first;
      if (!inner.empty() && inner[0].kind == Tok::LBrace)
        if (auto br = group_at(inner, 0)) g.props = br->first;
      idx = grp->second;
    } else if (k == Tok::LBrace) {
      auto grp = group_at(s, idx);
      if (!grp) break;
      g.attrs = grp->first;
      idx = grp->second;
    } else if (k == Tok::Colon) {
      TokSpan fn = s.from(idx + 1);
      auto arrow = find_top(fn, Tok::Arrow);
      TokSpan ins = arrow ? fn.sub(0, *arrow) : fn;
      if (!ins.empty() && ins[0].kind == Tok::LParen)
        if (auto grp = group_at(ins, 0)) g.operand_types = grp->first.empty() ? std::vector<TokSpan>{} : split_top(grp->first, Tok::Comma);
      if (arrow) {
        TokSpan res = fn.from(*arrow + 1);
        if (auto loc = find_word(res, "loc")) res = res.sub(0, *loc);
        if (!res.empty() && res[0].kind == Tok::LParen) {
          if (auto grp = group_at(res, 0)) g.result_types = grp->first.empty() ? std::vector<TokSpan>{} : split_top(grp->first, Tok::Comma);
        } else if (!res.empty()) {
          g.result_types = split_top(res, Tok::Comma);
        }
      }
      break;
    } else {
      ++idx;
    }
  }
  return g;
}

/// The value of `name = value` in an attribute dictionary's tokens.
std::optional<TokSpan> named_attr(TokSpan dict, std::string_view name) {
  for (TokSpan entry : split_top(dict, Tok::Comma)) {
    if (entry.empty()) continue;
    if ((entry[0].kind == Tok::BareId || entry[0].kind == Tok::String) &&
        (entry[0].text == name || (entry[0].kind == Tok::String && entry[0].text.substr(1, entry[0].text.size() - 2) == name))) {
      if (entry.size() >= 2 && entry[1].kind == Tok::Equal) return entry.from(2);
      return TokSpan{entry.e, entry.e};  // unit attribute
    }
  }
  return std::nullopt;
}

bool has_word(TokSpan s, std::string_view word) {
  for (size_t idx = 0; idx < s.size(); ++idx)
    if (s[idx].kind == Tok::BareId && s[idx].text == word) return true;
  return false;
}

/// First enum-like identifier inside an attribute value: "#hivm.pipe<PIPE_V>" or "<PIPE_V>" -> "PIPE_V".
std::string_view enum_word(TokSpan s) {
  for (size_t idx = 0; idx < s.size(); ++idx)
    if (s[idx].kind == Tok::BareId) return s[idx].text;
  return {};
}

std::optional<int64_t> first_int(TokSpan s) {
  bool neg = false;
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (s[idx].kind == Tok::Minus) neg = true;
    if (s[idx].kind == Tok::Integer) {
      auto v = parse_int(s[idx].text);
      if (v) return neg ? -*v : *v;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// A Python source location from a trailing loc(...), resolving #loc aliases:
/// the first file location in textual order (for callsite(callee at caller): the callee).
std::string location_of(TokSpan s, const AliasMap &aliases, int depth = 0) {
  if (depth > 6) return {};
  for (size_t idx = 0; idx < s.size(); ++idx) {
    if (s[idx].kind == Tok::String && idx + 4 < s.size() && s[idx + 1].kind == Tok::Colon &&
        s[idx + 2].kind == Tok::Integer && s[idx + 3].kind == Tok::Colon && s[idx + 4].kind == Tok::Integer) {
      std::string_view file = s[idx].text.substr(1, s[idx].text.size() - 2);
      return std::string(file) + ":" + std::string(s[idx + 2].text) + ":" + std::string(s[idx + 4].text);
    }
    if (s[idx].kind == Tok::HashId) {
      auto it = aliases.find(s[idx].text);
      if (it == aliases.end()) continue;
      Lexer lex(it->second);
      std::vector<Token> toks;
      for (Token t = lex.next(); t.kind != Tok::Eof && toks.size() < 256; t = lex.next()) toks.push_back(t);
      std::string found = location_of({toks.data(), toks.data() + toks.size()}, aliases, depth + 1);
      if (!found.empty()) return found;
    }
  }
  return {};
}

std::optional<size_t> find_loc(TokSpan s) {
  int depth = 0;
  for (size_t idx = 0; idx + 1 < s.size(); ++idx) {
    if (depth == 0 && s[idx].kind == Tok::BareId && s[idx].text == "loc" && s[idx + 1].kind == Tok::LParen) return idx;
    depth += depth_delta(s[idx].kind);
  }
  return std::nullopt;
}

struct DimEval {
  int64_t value = -1;
  bool exact = false;
  bool known = false;
};

class FunctionAnalyzer {
 public:
  FunctionAnalyzer(const Op &func, const FunctionContext &fctx, const AnalysisOptions &opts, const AliasMap &aliases,
                   Program &program, std::deque<std::string> &names,
                   std::vector<std::pair<uint32_t, std::string_view>> &pending_locs)
      : func_(func), fctx_(fctx), opts_(opts), aliases_(aliases), prog_(program), owned_names_(names),
        pending_locs_(pending_locs) {}

  void run(FunctionView &view);

 private:
  // ---- values and scopes
  ValueId add_value(Value v) {
    values_.push_back(std::move(v));
    return static_cast<ValueId>(values_.size() - 1);
  }
  ValueId add_unknown(const Type &t, uint32_t line, uint8_t why = kTUnknown) {
    Value v;
    v.kind = why == kTData ? VKind::Data : VKind::Unknown;
    v.type = t;
    v.line = line;
    return add_value(std::move(v));
  }
  void define(std::string_view name, ValueId id) {
    auto it = names_.find(name);
    undo_.emplace_back(name, it == names_.end() ? kNone : it->second);
    names_[name] = id;
  }
  ValueId lookup(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? kNone : it->second;
  }
  void push_scope() { marks_.push_back(undo_.size()); }
  void pop_scope() {
    size_t mark = marks_.back();
    marks_.pop_back();
    while (undo_.size() > mark) {
      auto [name, old] = undo_.back();
      undo_.pop_back();
      if (old == kNone) names_.erase(name);
      else names_[name] = old;
    }
  }
  /// Result names of `op`: "%x" or "%x#k".
  std::vector<std::string_view> result_names(const Op &op) {
    std::vector<std::string_view> out;
    for (const ResultGroup &g : op.results) {
      if (g.count == 1) {
        out.push_back(g.name);
        continue;
      }
      for (uint32_t k = 0; k < g.count; ++k) {
        owned_names_.push_back(std::string(g.name) + "#" + std::to_string(k));
        out.push_back(owned_names_.back());
      }
    }
    return out;
  }
  ValueId use(std::string_view name) { return lookup(name); }
  int32_t new_mem(MemrefInfo info) {
    mems_.push_back(std::move(info));
    return static_cast<int32_t>(mems_.size() - 1);
  }
  Type type_of(TokSpan s) const { return parse_type(s.text(), &aliases_); }
  const MemrefInfo *mem_of(ValueId v) const {
    if (v == kNone || values_[v].mem < 0) return nullptr;
    return &mems_[static_cast<size_t>(values_[v].mem)];
  }

  // ---- evaluation
  void touch_ctx() { ++gen_; }
  Eval eval(ValueId v);
  Eval eval_uncached(ValueId v);
  Interval arg_value(uint32_t index, uint8_t &taint);
  Eval eval_load(const Value &v);
  Interval eval_dimref(const DimRef &d, uint8_t &taint);
  /// Trip count per entry of loop L over every block and outer iteration (strict: no trips facts).
  void trip_any(uint32_t L, LoopRecord &lr);
  [[nodiscard]] uint64_t trip_bit(size_t fact) const { return uint64_t{1} << fact; }
  [[nodiscard]] uint64_t data_bit(size_t fact) const { return uint64_t{1} << (opts_.trips.size() + fact); }

  // ---- walking
  void walk_block(const Block &block, int32_t path);
  void handle(const Op &op, int32_t path);
  uint32_t new_record(const Op &op, int32_t path);
  OpRecord &rec(uint32_t idx) { return prog_.ops[idx]; }
  OpDetail &detail(uint32_t idx) { return details_[idx - first_record_]; }
  void walk_regions_opaque(const Op &op, int32_t path, uint32_t record);
  int32_t add_path(PathNode node) {
    paths_.push_back(std::move(node));
    return static_cast<int32_t>(paths_.size() - 1);
  }
  void mark_hivm(int32_t path, bool scalar_memory);

  void handle_constant(const Op &op, uint32_t r);
  void handle_arith(const Op &op, uint32_t r, OpClass cls);
  void handle_affine(const Op &op, uint32_t r);
  void handle_scalar_memory(const Op &op, uint32_t r, int32_t path);
  void handle_view(const Op &op, uint32_t r);
  void handle_alloc(const Op &op, uint32_t r);
  void handle_hivm_scalar(const Op &op, uint32_t r);
  void handle_structured(const Op &op, uint32_t r, const OpInfo &info, int32_t path);
  void handle_sync(const Op &op, uint32_t r, OpClass cls, int32_t path);
  void handle_loop(const Op &op, uint32_t r, int32_t path);
  void handle_if(const Op &op, uint32_t r, int32_t path);
  void handle_annotation(const Op &op, uint32_t r);
  void define_results_unknown(const Op &op, const std::vector<TokSpan> &types);
  std::vector<BufferRef> yield_roots(const Region &region, size_t position);
  void define_region_results(const Op &op, TokSpan s, const std::vector<std::vector<BufferRef>> &roots);

  // ---- quantities and counts
  DimEval eval_dim(const DimRef &d, uint8_t &taint);
  std::vector<DimEval> shape_of(const Operand &o, uint8_t &taint);
  std::vector<int64_t> strides_of(const Operand &o, uint8_t &taint);
  struct Sample {
    Quantity elements, bytes, flop, repeats, masked, packet_bytes, packets;
    uint8_t taint = 0;
  };
  struct RunResult {
    Count block, instance;
    Quantity bytes, elements, flop, repeats, masked, packets, issued;
    Quantity bytes_i, flop_i, repeats_i, issued_i;
    Quantity count_grid, bytes_grid, flop_grid, repeats_grid, issued_grid;
    BlockMin mins;  // guaranteed per-block minimum over every block (count, bytes, flop, repeats, issued)
    uint64_t facts = 0;
    uint8_t taint = 0;
  };
  RunResult run_counts(uint32_t r, const std::vector<int32_t> &chain, bool with_samples);
  Sample sample(uint32_t r);
  void enumerate(const std::vector<int32_t> &chain, size_t at, Mult mult, uint64_t &leaves,
                 const std::function<void(const Mult &)> &leaf, std::string &reason, uint8_t &taint);
  std::vector<int32_t> chain_of(int32_t path) const;
  void compute_counts();
  void compute_representative(uint32_t r);
  void finish_records();
  void finish_function(FunctionView &view);
  void resolve_args();
  void bind_first_iterations(const std::vector<int32_t> &chain, uint8_t &taint);

  const Op &func_;
  const FunctionContext &fctx_;
  const AnalysisOptions &opts_;
  const AliasMap &aliases_;
  Program &prog_;
  std::deque<std::string> &owned_names_;
  std::vector<std::pair<uint32_t, std::string_view>> &pending_locs_;  // resolved once every #loc alias is read

  std::vector<Value> values_;
  std::vector<MemrefInfo> mems_;
  std::vector<AffineMap> maps_;
  std::vector<AffineUse> affine_uses_;
  std::vector<LoadInfo> loads_;
  std::vector<LoopInfo> loops_;
  std::vector<PathNode> paths_;
  std::vector<OpDetail> details_;
  std::vector<int32_t> record_path_;
  std::unordered_map<std::string_view, ValueId> names_;
  std::vector<std::pair<std::string_view, ValueId>> undo_;
  std::vector<size_t> marks_;
  std::map<std::string, uint32_t> map_cache_;
  std::unordered_map<std::string_view, int64_t> histogram_;

  // Evaluation state.
  std::vector<uint64_t> reason_keys_;  // (construct kind, line) already explained in the current enumeration
  Ctx ctx_;
  uint32_t gen_ = 1;
  std::vector<uint32_t> memo_gen_;
  std::vector<Eval> memo_;
  uint8_t touched_ = 0;

  // Function facts.
  uint32_t fn_index_ = 0;
  uint32_t first_record_ = 0;
  std::vector<std::optional<int64_t>> arg_launch_;  // by HIVM argument index
  std::vector<ValueId> arg_values_;
  ValueId logical_block_num_ = kNone;
  uint32_t instances_ = 1;
  uint32_t alloc_ids_ = 0;
  std::vector<FunctionView::LoopSpan> loop_spans_;
  std::vector<int32_t> loop_of_record_;
  std::vector<int32_t> loop_stack_;

  // User facts (launch trips/data).
  std::vector<int32_t> arg_data_;   // by HIVM argument index: index into opts_.data, -1 none
  std::vector<Interval> data_range_;  // by data fact: smallest and largest element
  std::vector<int32_t> loop_fact_;  // by loop: index into opts_.trips, -1 none
  uint64_t facts_used_ = 0;         // facts that entered the evaluations since the last reset
  Interval block_any_ = Interval::range(0, Interval::kPosInf);  // every block index of the grid
};

}  // namespace

namespace {

Interval FunctionAnalyzer::arg_value(uint32_t index, uint8_t &taint) {
  if (index < arg_launch_.size() && arg_launch_[index]) return Interval::point(*arg_launch_[index]);
  taint |= kTArg;
  return Interval::full();
}

Eval FunctionAnalyzer::eval(ValueId v) {
  if (v == kNone) return {Interval::full(), kTUnknown};
  if (memo_gen_.size() < values_.size()) {
    memo_gen_.resize(values_.size(), 0);
    memo_.resize(values_.size());
  }
  if (memo_gen_[v] == gen_) return memo_[v];
  Eval e = eval_uncached(v);
  memo_gen_[v] = gen_;
  memo_[v] = e;
  return e;
}

Eval FunctionAnalyzer::eval_uncached(ValueId id) {
  const Value &v = values_[id];
  Eval out;
  auto bin = [&](ValueId a, ValueId b) -> std::pair<Eval, Eval> {
    Eval ea = eval(a), eb = eval(b);
    out.taint = static_cast<uint8_t>(ea.taint | eb.taint);
    return {ea, eb};
  };
  switch (v.kind) {
    case VKind::Unknown: out.taint = kTUnknown; break;
    case VKind::Data: out.taint = kTData; break;
    case VKind::Load: out = eval_load(v); break;
    case VKind::Const: out.iv = Interval::point(v.c); break;
    case VKind::Arg: out.iv = arg_value(static_cast<uint32_t>(v.c), out.taint); break;
    case VKind::BlockIdx: out.iv = ctx_.block; out.taint = kTBlock; break;
    case VKind::SubBlockIdx: out.iv = ctx_.sub; out.taint = kTSub; break;
    case VKind::SubBlockNum: out.iv = Interval::point(instances_); break;
    case VKind::BlockNum:
      if (prog_.blocks) out.iv = Interval::point(*prog_.blocks);
      else out.taint = kTArg;
      break;
    case VKind::IV: {
      const LoopInfo &loop = loops_[v.aux];
      if (v.aux < ctx_.iv.size() && ctx_.iv[v.aux]) {
        out.iv = *ctx_.iv[v.aux];
      } else {
        Eval lb = eval(loop.lb), ub = eval(loop.ub);
        out.taint = static_cast<uint8_t>(lb.taint | ub.taint);
        out.iv = {lb.iv.lo, ub.iv.hi == Interval::kPosInf ? ub.iv.hi : ub.iv.hi - 1};
        if (out.iv.hi < out.iv.lo) out.iv.hi = out.iv.lo;
      }
      out.taint |= kTIV;
      break;
    }
    case VKind::Binary: {
      auto [a, b] = bin(v.a, v.b);
      switch (static_cast<BinOp>(v.op)) {
        case BinOp::Add: out.iv = iv_add(a.iv, b.iv); break;
        case BinOp::Sub: out.iv = iv_sub(a.iv, b.iv); break;
        case BinOp::Mul: out.iv = iv_mul(a.iv, b.iv); break;
        case BinOp::DivS: out.iv = iv_divs(a.iv, b.iv); break;
        case BinOp::FloorDiv: out.iv = iv_floordiv(a.iv, b.iv); break;
        case BinOp::CeilDiv: out.iv = iv_ceildiv(a.iv, b.iv); break;
        case BinOp::RemS: out.iv = iv_rems(a.iv, b.iv); break;
        case BinOp::Min: out.iv = iv_min(a.iv, b.iv); break;
        case BinOp::Max: out.iv = iv_max(a.iv, b.iv); break;
        case BinOp::And:
        case BinOp::Or:
        case BinOp::Xor:
        case BinOp::Shl:
        case BinOp::ShrS:
          if (a.iv.exact() && b.iv.exact()) {
            int64_t x = a.iv.lo, y = b.iv.lo, r = 0;
            switch (static_cast<BinOp>(v.op)) {
              case BinOp::And: r = x & y; break;
              case BinOp::Or: r = x | y; break;
              case BinOp::Xor: r = x ^ y; break;
              case BinOp::Shl: r = (y >= 0 && y < 63) ? static_cast<int64_t>(static_cast<uint64_t>(x) << y) : 0; break;
              default: r = (y >= 0 && y < 63) ? (x >> y) : (x < 0 ? -1 : 0); break;
            }
            out.iv = Interval::point(r);
          } else if (a.iv.lo >= 0 && a.iv.hi <= 1 && b.iv.lo >= 0 && b.iv.hi <= 1) {
            // Booleans: a decided operand may decide the result.
            auto op = static_cast<BinOp>(v.op);
            if (op == BinOp::Or && ((a.iv.exact() && a.iv.lo == 1) || (b.iv.exact() && b.iv.lo == 1)))
              out.iv = Interval::point(1);
            else if (op == BinOp::And && ((a.iv.exact() && a.iv.lo == 0) || (b.iv.exact() && b.iv.lo == 0)))
              out.iv = Interval::point(0);
            else
              out.iv = {0, 1};
          } else {
            out.iv = Interval::full();
          }
          break;
      }
      break;
    }
    case VKind::Compare: {
      auto [a, b] = bin(v.a, v.b);
      auto pred = static_cast<CmpPred>(v.op);
      bool always = false, never = false;
      switch (pred) {
        case CmpPred::EQ:
          always = a.iv.exact() && b.iv.exact() && a.iv.lo == b.iv.lo;
          never = a.iv.hi < b.iv.lo || b.iv.hi < a.iv.lo;
          break;
        case CmpPred::NE:
          never = a.iv.exact() && b.iv.exact() && a.iv.lo == b.iv.lo;
          always = a.iv.hi < b.iv.lo || b.iv.hi < a.iv.lo;
          break;
        case CmpPred::LT: always = a.iv.hi < b.iv.lo; never = a.iv.lo >= b.iv.hi; break;
        case CmpPred::LE: always = a.iv.hi <= b.iv.lo; never = a.iv.lo > b.iv.hi; break;
        case CmpPred::GT: always = a.iv.lo > b.iv.hi; never = a.iv.hi <= b.iv.lo; break;
        case CmpPred::GE: always = a.iv.lo >= b.iv.hi; never = a.iv.hi < b.iv.lo; break;
      }
      out.iv = always ? Interval::point(1) : (never ? Interval::point(0) : Interval{0, 1});
      break;
    }
    case VKind::Select: {
      Eval c = eval(v.a);
      out.taint = c.taint;
      if (c.iv.exact()) {
        Eval chosen = eval(c.iv.lo != 0 ? v.b : v.d);
        out.iv = chosen.iv;
        out.taint |= chosen.taint;
      } else {
        Eval x = eval(v.b), y = eval(v.d);
        out.iv = iv_union(x.iv, y.iv);
        out.taint = static_cast<uint8_t>(out.taint | x.taint | y.taint);
      }
      break;
    }
    case VKind::Cast: {
      Eval a = eval(v.a);
      out = a;
      if (v.to_i1) {
        if (a.iv.exact()) out.iv = Interval::point(a.iv.lo & 1);
        else out.iv = {0, 1};
      }
      break;
    }
    case VKind::Affine: {
      const AffineUse &use = affine_uses_[v.aux];
      const AffineMap &map = maps_[use.map];
      std::vector<Interval> operands;
      operands.reserve(use.operands.size());
      for (ValueId o : use.operands) {
        Eval e = eval(o);
        out.taint |= e.taint;
        operands.push_back(e.iv);
      }
      if (map.num_results() == 0) {
        out.iv = Interval::full();
        out.taint |= kTUnknown;
        break;
      }
      Interval acc = map.eval(0, operands);
      for (size_t r = 1; r < map.num_results(); ++r) {
        Interval x = map.eval(r, operands);
        acc = use.flavour == 2 ? iv_max(acc, x) : iv_min(acc, x);
      }
      out.iv = acc;
      break;
    }
  }
  return out;
}

Interval FunctionAnalyzer::eval_dimref(const DimRef &d, uint8_t &taint) {
  if (d.c != kDynamic) return Interval::point(d.c);
  if (d.v == kNone) {
    taint |= kTUnknown;
    return Interval::full();
  }
  Eval e = eval(d.v);
  taint |= e.taint;
  return e.iv;
}

/// A load from an argument the user gave the contents of evaluates to the element it
/// reads (or the range of the elements it may read); any other load is data.
Eval FunctionAnalyzer::eval_load(const Value &v) {
  Eval out;
  out.taint = kTData;
  const LoadInfo &li = loads_[v.aux];
  if (li.arg >= arg_data_.size() || arg_data_[li.arg] < 0) return out;
  const auto fact = static_cast<size_t>(arg_data_[li.arg]);
  const DataFact &data = opts_.data[fact];
  uint8_t taint = 0;
  Interval index = eval_dimref(li.offset, taint);
  for (size_t k = 0; k < li.indices.size(); ++k) {
    Eval idx = eval(li.indices[k]);
    taint |= idx.taint;
    index = iv_add(index, iv_mul(idx.iv, eval_dimref(li.strides[k], taint)));
  }
  facts_used_ |= data_bit(fact);
  prog_.data_fact_lines[static_cast<uint32_t>(fact)].insert(v.line);
  const auto n = static_cast<int64_t>(data.values.size());
  auto range_of = [&](int64_t lo, int64_t hi) {
    if (lo == 0 && hi == n - 1) return data_range_[fact];
    Interval r{Interval::kPosInf, Interval::kNegInf};
    for (int64_t k = lo; k <= hi; ++k) r = {std::min(r.lo, data.values[static_cast<size_t>(k)]),
                                            std::max(r.hi, data.values[static_cast<size_t>(k)])};
    return r;
  };
  out.taint = static_cast<uint8_t>(taint | kTGiven);
  if (index.exact() && (index.lo < 0 || index.lo >= n))
    throw SourceError(v.line, 1, "launch data.\"" + data.key + "\": this load reads element " +
                                     std::to_string(index.lo) + ", outside the " + std::to_string(n) +
                                     " elements given (" + data.source + ")");
  const int64_t lo = index.lo == Interval::kNegInf ? 0 : std::max<int64_t>(0, index.lo);
  const int64_t hi = index.hi == Interval::kPosInf ? n - 1 : std::min<int64_t>(n - 1, index.hi);
  if (lo > hi) {
    out.taint = static_cast<uint8_t>(out.taint | kTUnknown);
    return out;
  }
  // Any element of the range (the whole tensor when the index is unbounded).
  out.iv = hi - lo < (int64_t{1} << 16) ? range_of(lo, hi) : range_of(0, n - 1);
  return out;
}

}  // namespace

namespace {

uint32_t FunctionAnalyzer::new_record(const Op &op, int32_t path) {
  auto idx = static_cast<uint32_t>(prog_.ops.size());
  OpRecord &r = prog_.ops.emplace_back();  // built in place: records are large
  r.id = idx;
  r.function = fn_index_;
  r.name = std::string(op.name);
  r.line = op.line;
  r.path = static_cast<uint32_t>(path);
  r.loop_depth = static_cast<uint32_t>(loop_stack_.size());
  r.core = prog_.functions[fn_index_].core;
  TokSpan toks = tokens_of(op);
  if (auto loc = find_loc(toks)) pending_locs_.emplace_back(idx, toks.from(*loc).text());
  details_.emplace_back();
  record_path_.push_back(path);
  loop_of_record_.push_back(loop_stack_.empty() ? -1 : loop_stack_.back());
  ++histogram_[op.name];
  return idx;
}

void FunctionAnalyzer::walk_block(const Block &block, int32_t path) {
  for (const BlockArg &arg : block.args) {
    Value v;
    v.type = parse_type(arg.type, &aliases_);
    v.line = arg.line;
    define(arg.name, add_value(std::move(v)));
  }
  for (const Op &op : block.ops) handle(op, path);
}

void FunctionAnalyzer::mark_hivm(int32_t path, bool scalar_memory) {
  for (int32_t p = path; p >= 0; p = paths_[static_cast<size_t>(p)].parent) {
    const PathNode &node = paths_[static_cast<size_t>(p)];
    if (node.kind != PathNode::Kind::Loop) continue;
    if (scalar_memory) loops_[node.loop].has_scalar_memory = true;
    else loops_[node.loop].has_hivm = true;
  }
}

void FunctionAnalyzer::define_results_unknown(const Op &op, const std::vector<TokSpan> &types) {
  std::vector<std::string_view> names = result_names(op);
  for (size_t idx = 0; idx < names.size(); ++idx) {
    Value v;
    if (idx < types.size()) v.type = type_of(types[idx]);
    v.line = op.line;
    if (v.type.kind == Type::Kind::Memref) {
      MemrefInfo info = static_memref_info(v.type);
      BufferRef root;
      root.space = v.type.space;
      info.roots.push_back(root);
      v.mem = new_mem(std::move(info));
    }
    define(names[idx], add_value(std::move(v)));
  }
}

/// Trailing result types of a custom-form op: after the last top-level ':' (or '->'),
/// the part after 'to'/'into' when present.
std::vector<TokSpan> trailing_types(const Op &op) {
  TokSpan s = tokens_of(op);
  if (auto loc = find_loc(s)) s = s.sub(0, *loc);
  if (op.generic) return generic_parts(op).result_types;
  std::optional<size_t> at = find_last_top(s, Tok::Colon);
  std::optional<size_t> arrow = find_last_top(s, Tok::Arrow);
  if (arrow && (!at || *arrow > *at)) at = arrow;
  if (!at) return {};
  TokSpan t = s.from(*at + 1);
  if (auto to = find_word(t, "to")) t = t.from(*to + 1);
  else if (auto into = find_word(t, "into")) t = t.from(*into + 1);
  if (!t.empty() && t[0].kind == Tok::LParen) {
    if (auto g = group_at(t, 0)) return g->first.empty() ? std::vector<TokSpan>{} : split_top(g->first, Tok::Comma);
  }
  // Drop a trailing attribute dictionary.
  if (auto brace = find_top(t, Tok::LBrace)) t = t.sub(0, *brace);
  return split_top(t, Tok::Comma);
}

void FunctionAnalyzer::walk_regions_opaque(const Op &op, int32_t path, uint32_t record) {
  if (op.regions.empty()) return;
  PathNode node;
  node.kind = PathNode::Kind::Opaque;
  node.parent = path;
  node.line = op.line;
  node.what = std::string(op.name);
  int32_t inner = add_path(std::move(node));
  (void)record;
  for (const Region &region : op.regions) {
    push_scope();
    for (const Block &block : region.blocks) walk_block(block, inner);
    pop_scope();
  }
}

void FunctionAnalyzer::handle(const Op &op, int32_t path) {
  uint32_t r = new_record(op, path);
  std::optional<OpInfo> info = lookup_op(op.name);
  if (!info) {
    rec(r).cls = OpClass::Unknown;
    rec(r).modelled = false;
    rec(r).notes.push_back("operation not in the HIVM op table: counted, not modelled");
    define_results_unknown(op, trailing_types(op));
    walk_regions_opaque(op, path, r);
    return;
  }
  rec(r).cls = info->cls;
  if (info->pipe != Pipe::None) rec(r).pipes = {info->pipe};
  switch (info->cls) {
    case OpClass::Constant: handle_constant(op, r); break;
    case OpClass::ScalarArith:
    case OpClass::ScalarCompare:
    case OpClass::ScalarBitwise:
    case OpClass::ScalarCast: handle_arith(op, r, info->cls); break;
    case OpClass::AffineIndex: handle_affine(op, r); break;
    case OpClass::ScalarMemory: handle_scalar_memory(op, r, path); break;
    case OpClass::View: handle_view(op, r); break;
    case OpClass::Alloc: handle_alloc(op, r); break;
    case OpClass::HivmScalar:
    case OpClass::SyncOther: handle_hivm_scalar(op, r); break;
    case OpClass::Annotation: handle_annotation(op, r); break;
    case OpClass::SetFlag:
    case OpClass::WaitFlag:
    case OpClass::PipeBarrier:
    case OpClass::SyncBlockSet:
    case OpClass::SyncBlockWait:
    case OpClass::SyncBlock: handle_sync(op, r, info->cls, path); break;
    case OpClass::Loop: handle_loop(op, r, path); break;
    case OpClass::Branch: handle_if(op, r, path); break;
    case OpClass::Terminator:
      if (op.name != "scf.yield" && op.name != "scf.condition") {
        rec(r).scalar_instructions = 1;
        rec(r).issued_instructions = 1;
        rec(r).scalar_kind = "branch";
      }
      break;
    default: handle_structured(op, r, *info, path); break;
  }
}

void FunctionAnalyzer::handle_constant(const Op &op, uint32_t r) {
  Value v;
  v.line = op.line;
  TokSpan s = tokens_of(op);
  TokSpan value_toks = s;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    if (auto val = named_attr(g.props, "value")) value_toks = *val;
    else if (auto val2 = named_attr(g.attrs, "value")) value_toks = *val2;
    if (!g.result_types.empty()) v.type = type_of(g.result_types[0]);
  } else {
    std::vector<TokSpan> types = trailing_types(op);
    if (!types.empty()) v.type = type_of(types[0]);
  }
  bool neg = false;
  for (size_t idx = 0; idx < value_toks.size(); ++idx) {
    const Token &t = value_toks[idx];
    if (t.kind == Tok::Minus) {
      neg = true;
      continue;
    }
    if (t.kind == Tok::Integer) {
      if (auto n = parse_int(t.text)) {
        v.kind = VKind::Const;
        v.c = neg ? -*n : *n;
      }
    } else if (t.kind == Tok::BareId && (t.text == "true" || t.text == "false")) {
      v.kind = VKind::Const;
      v.c = t.text == "true" ? 1 : 0;
      if (v.type.kind == Type::Kind::Unknown) v.type = parse_type("i1");
    }
    break;
  }
  std::vector<std::string_view> names = result_names(op);
  if (!names.empty()) define(names[0], add_value(std::move(v)));
  (void)r;
}

void FunctionAnalyzer::handle_arith(const Op &op, uint32_t r, OpClass cls) {
  OpRecord &record = rec(r);
  record.scalar_instructions = 1;
  record.issued_instructions = 1;
  record.scalar_kind = cls == OpClass::ScalarArith     ? "arith"
                       : cls == OpClass::ScalarCompare ? "compare"
                       : cls == OpClass::ScalarBitwise ? "bitwise"
                                                       : "cast";
  std::vector<std::string_view> operands;
  std::vector<TokSpan> result_types;
  std::string_view pred_word;
  std::optional<int64_t> pred_int;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    operands = g.operands;
    result_types = g.result_types;
    if (auto p = named_attr(g.props, "predicate")) pred_int = first_int(*p);
    else if (auto p2 = named_attr(g.attrs, "predicate")) pred_int = first_int(*p2);
  } else {
    TokSpan s = tokens_of(op);
    if (auto colon = find_top(s, Tok::Colon)) {
      TokSpan head = s.sub(0, *colon);
      operands = percent_ids(head);
      if (!head.empty() && head[0].kind == Tok::BareId) pred_word = head[0].text;
    }
    result_types = trailing_types(op);
  }
  std::string_view name = op.name;
  Value v;
  v.line = op.line;
  if (!result_types.empty()) v.type = type_of(result_types[0]);
  // Record the operand type for the fallback oracle (i32/i64 arithmetic).
  if (!operands.empty()) {
    ValueId a = use(operands[0]);
    if (a != kNone && values_[a].type.kind == Type::Kind::Scalar) record.dtype = dtype_name(values_[a].type.elem);
  }
  if (record.dtype.empty() && v.type.kind == Type::Kind::Scalar) record.dtype = dtype_name(v.type.elem);
  auto set_bin = [&](BinOp op2) {
    if (operands.size() >= 2) {
      v.kind = VKind::Binary;
      v.op = static_cast<uint8_t>(op2);
      v.a = use(operands[0]);
      v.b = use(operands[1]);
    }
  };
  std::string_view m = name.substr(name.find('.') + 1);
  if (m == "addi") set_bin(BinOp::Add);
  else if (m == "subi") set_bin(BinOp::Sub);
  else if (m == "muli") set_bin(BinOp::Mul);
  else if (m == "divsi" || m == "divui") set_bin(BinOp::DivS);
  else if (m == "floordivsi") set_bin(BinOp::FloorDiv);
  else if (m == "ceildivsi" || m == "ceildivui") set_bin(BinOp::CeilDiv);
  else if (m == "remsi" || m == "remui") set_bin(BinOp::RemS);
  else if (m == "minsi" || m == "minui") set_bin(BinOp::Min);
  else if (m == "maxsi" || m == "maxui") set_bin(BinOp::Max);
  else if (m == "andi") set_bin(BinOp::And);
  else if (m == "ori") set_bin(BinOp::Or);
  else if (m == "xori") set_bin(BinOp::Xor);
  else if (m == "shli") set_bin(BinOp::Shl);
  else if (m == "shrsi" || m == "shrui") set_bin(BinOp::ShrS);
  else if (m == "cmpi") {
    v.type = parse_type("i1");
    if (operands.size() >= 2) {
      static const std::pair<std::string_view, CmpPred> kPreds[] = {
          {"eq", CmpPred::EQ}, {"ne", CmpPred::NE}, {"slt", CmpPred::LT}, {"sle", CmpPred::LE}, {"sgt", CmpPred::GT},
          {"sge", CmpPred::GE}, {"ult", CmpPred::LT}, {"ule", CmpPred::LE}, {"ugt", CmpPred::GT}, {"uge", CmpPred::GE}};
      std::optional<CmpPred> pred;
      for (auto [w, p] : kPreds)
        if (w == pred_word) pred = p;
      if (!pred && pred_int && *pred_int >= 0 && *pred_int < 10) pred = kPreds[*pred_int].second;
      if (pred) {
        v.kind = VKind::Compare;
        v.op = static_cast<uint8_t>(*pred);
        v.a = use(operands[0]);
        v.b = use(operands[1]);
      }
    }
  } else if (m == "select") {
    if (operands.size() >= 3) {
      v.kind = VKind::Select;
      v.a = use(operands[0]);
      v.b = use(operands[1]);
      v.d = use(operands[2]);
    }
  } else if (m == "index_cast" || m == "index_castui" || m == "extsi" || m == "extui" || m == "trunci") {
    if (!operands.empty()) {
      v.kind = VKind::Cast;
      v.a = use(operands[0]);
      v.to_i1 = v.type.kind == Type::Kind::Scalar && v.type.elem.is_int && v.type.elem.bits == 1;
    }
  } else if (m == "cmpf") {
    v.type = parse_type("i1");
  }
  std::vector<std::string_view> names = result_names(op);
  if (names.size() == 1) {
    define(names[0], add_value(std::move(v)));
  } else {
    for (size_t idx = 0; idx < names.size(); ++idx) {
      Value u;
      u.line = op.line;
      if (idx < result_types.size()) u.type = type_of(result_types[idx]);
      define(names[idx], add_value(std::move(u)));
    }
  }
}

void FunctionAnalyzer::handle_affine(const Op &op, uint32_t r) {
  OpRecord &record = rec(r);
  record.scalar_kind = "address";
  std::string_view map_text;
  std::vector<std::string_view> dims, syms;
  TokSpan s = tokens_of(op);
  if (op.generic) {
    GenericParts g = generic_parts(op);
    if (auto m = named_attr(g.props, "map")) map_text = m->text();
    else if (auto m2 = named_attr(g.attrs, "map")) map_text = m2->text();
    dims = g.operands;  // dims then symbols, in order
  } else {
    size_t idx = 0;
    if (idx < s.size() && s[idx].kind == Tok::BareId && s[idx].text == "affine_map") {
      if (auto g = group_at(s, idx + 1)) {
        map_text = span(s[idx], s[g->second - 1]);
        idx = g->second;
      }
    } else if (idx < s.size() && s[idx].kind == Tok::HashId) {
      auto it = aliases_.find(s[idx].text);
      if (it != aliases_.end()) map_text = it->second;
      ++idx;
    }
    if (idx < s.size() && s[idx].kind == Tok::LParen)
      if (auto g = group_at(s, idx)) {
        dims = percent_ids(g->first);
        idx = g->second;
      }
    if (idx < s.size() && s[idx].kind == Tok::LSquare)
      if (auto g = group_at(s, idx)) syms = percent_ids(g->first);
  }
  Value v;
  v.line = op.line;
  v.type = parse_type("index");
  std::string key(map_text);
  auto cached = map_cache_.find(key);
  std::optional<uint32_t> map_idx;
  if (cached != map_cache_.end()) {
    map_idx = cached->second;
  } else {
    std::string error;
    if (auto map = AffineMap::parse(map_text, &error)) {
      maps_.push_back(std::move(*map));
      map_idx = static_cast<uint32_t>(maps_.size() - 1);
      map_cache_[key] = *map_idx;
    } else {
      throw SourceError(op.line, op.col, "cannot read the affine map of " + std::string(op.name) + ": " + error);
    }
  }
  const AffineMap &map = maps_[*map_idx];
  AffineUse use_rec;
  use_rec.map = *map_idx;
  use_rec.flavour = op.name == "affine.min" ? 1 : (op.name == "affine.max" ? 2 : 0);
  for (std::string_view d : dims) use_rec.operands.push_back(use(d));
  for (std::string_view sy : syms) use_rec.operands.push_back(use(sy));
  uint32_t ops = 0;
  for (size_t res = 0; res < map.num_results(); ++res) ops += map.op_count(res);
  if (map.num_results() > 1) ops += static_cast<uint32_t>(map.num_results() - 1);
  record.scalar_instructions = std::max<uint32_t>(1, ops);
  record.issued_instructions = record.scalar_instructions;
  affine_uses_.push_back(std::move(use_rec));
  v.kind = VKind::Affine;
  v.aux = static_cast<uint32_t>(affine_uses_.size() - 1);
  std::vector<std::string_view> names = result_names(op);
  if (!names.empty()) define(names[0], add_value(std::move(v)));
}

void FunctionAnalyzer::handle_scalar_memory(const Op &op, uint32_t r, int32_t path) {
  OpRecord &record = rec(r);
  record.scalar_instructions = 1;
  record.issued_instructions = 1;
  bool is_load = op.name == "memref.load";
  std::string_view memref_name;
  TokSpan type_toks;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    size_t mpos = is_load ? 0 : 1;
    if (g.operands.size() > mpos) memref_name = g.operands[mpos];
    if (g.operand_types.size() > mpos) type_toks = g.operand_types[mpos];
  } else {
    TokSpan s = tokens_of(op);
    auto colon = find_last_top(s, Tok::Colon);
    if (colon) {
      type_toks = s.from(*colon + 1);
      std::vector<std::string_view> ids = percent_ids(s.sub(0, *colon));
      size_t mpos = is_load ? 0 : 1;
      if (ids.size() > mpos) memref_name = ids[mpos];
    }
  }
  Type t = type_of(type_toks);
  ValueId m = use(memref_name);
  OpDetail &d = detail(r);
  d.memref = m;
  d.memref_type = t;
  Space space = t.space;
  if (space == Space::Unknown && m != kNone) space = values_[m].type.space;
  record.dtype = dtype_name(t.elem);
  const uint32_t bytes = t.elem.bits / 8 > 0 ? t.elem.bits / 8 : 1;
  if (is_load) {
    record.src = space;
    record.scalar_kind = space == Space::GM ? "gm_load" : "ub_access";
  } else {
    record.dst = space;
    record.scalar_kind = space == Space::GM ? "gm_store" : "ub_access";
  }
  if (space == Space::GM) record.scalar_gm_bytes = bytes;
  record.bytes = Quantity::exact(bytes);
  record.elements = Quantity::exact(1);
  if (const MemrefInfo *info = mem_of(m)) {
    if (is_load) record.reads = info->roots;
    else record.writes = info->roots;
  }
  mark_hivm(path, true);
  if (is_load) {
    Value v;
    v.kind = VKind::Data;
    v.line = op.line;
    // A load from a kernel argument at a known offset: the user may give its contents.
    const MemrefInfo *info = mem_of(m);
    if (info != nullptr && info->roots.size() == 1 && info->roots[0].kind == BufferRef::Kind::Arg &&
        !(info->offset.c == kDynamic && info->offset.v == kNone) && t.elem.is_int) {
      std::vector<std::string_view> ids;
      if (op.generic) {
        std::vector<std::string_view> all = generic_parts(op).operands;
        if (!all.empty()) ids.assign(all.begin() + 1, all.end());
      } else {
        TokSpan s = tokens_of(op);
        if (auto colon = find_last_top(s, Tok::Colon)) {
          std::vector<std::string_view> all = percent_ids(s.sub(0, *colon));
          if (!all.empty()) ids.assign(all.begin() + 1, all.end());
        }
      }
      if (ids.size() == info->strides.size()) {
        LoadInfo li;
        li.arg = info->roots[0].id;
        li.offset = info->offset;
        li.strides = info->strides;
        for (std::string_view id : ids) li.indices.push_back(use(id));
        loads_.push_back(std::move(li));
        v.kind = VKind::Load;
        v.aux = static_cast<uint32_t>(loads_.size() - 1);
      }
    }
    Type et;
    et.kind = Type::Kind::Scalar;
    et.elem = t.elem;
    v.type = et;
    std::vector<std::string_view> names = result_names(op);
    if (!names.empty()) define(names[0], add_value(std::move(v)));
  }
}

}  // namespace

namespace {

/// Entries of a bracketed list like [0, %13, 1] as static values or SSA names.
struct ListEntry {
  int64_t c = kDynamic;
  std::string_view name;
};

std::vector<ListEntry> list_entries(TokSpan inner) {
  std::vector<ListEntry> out;
  if (inner.empty()) return out;
  for (TokSpan part : split_top(inner, Tok::Comma)) {
    ListEntry e;
    for (size_t idx = 0; idx < part.size(); ++idx) {
      if (part[idx].kind == Tok::PercentId) {
        e.name = part[idx].text;
        break;
      }
      if (part[idx].kind == Tok::Integer) {
        auto v = parse_int(part[idx].text);
        bool neg = idx > 0 && part[idx - 1].kind == Tok::Minus;
        if (v) e.c = neg ? -*v : *v;
        break;
      }
    }
    out.push_back(e);
  }
  return out;
}

/// The '[' group that follows BareId `kw` (optionally with ':' in between).
std::optional<TokSpan> list_after(TokSpan s, std::string_view kw) {
  auto at = find_word(s, kw);
  if (!at) return std::nullopt;
  size_t idx = *at + 1;
  if (idx < s.size() && s[idx].kind == Tok::Colon) ++idx;
  if (idx < s.size() && s[idx].kind == Tok::LSquare)
    if (auto g = group_at(s, idx)) return g->first;
  return std::nullopt;
}

int64_t static_bytes(const Type &t) {
  auto n = t.static_elements();
  if (!n || !t.elem.known()) return -1;
  return elem_bytes_ceil(*n, t.elem.bits);
}

void FunctionAnalyzer::handle_view(const Op &op, uint32_t r) {
  OpRecord &record = rec(r);
  record.scalar_kind = "address";
  std::string_view m = op.name.substr(op.name.find('.') + 1);
  TokSpan s = tokens_of(op);
  std::vector<std::string_view> names = result_names(op);
  std::vector<TokSpan> rtypes = trailing_types(op);
  std::string_view src_name;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    if (!g.operands.empty()) src_name = g.operands[0];
  } else if (!s.empty() && s[0].kind == Tok::PercentId) {
    src_name = s[0].text;
  }
  ValueId src = use(src_name);
  const MemrefInfo *src_info = mem_of(src);
  Type src_type = src != kNone ? values_[src].type : Type{};
  // Address computation: each dynamic offset/size/stride operand costs an instruction.
  uint32_t dynamic_operands = 0;
  if (m == "subview" || m == "reinterpret_cast" || m == "view") {
    std::vector<std::string_view> ids = op.generic ? generic_parts(op).operands : percent_ids(s);
    dynamic_operands = ids.size() > 1 ? static_cast<uint32_t>(ids.size() - 1) : 0;
  }
  record.scalar_instructions = dynamic_operands;
  record.issued_instructions = dynamic_operands;

  auto src_dim = [&](size_t idx) -> DimRef {
    if (src_info != nullptr && idx < src_info->dims.size()) return src_info->dims[idx];
    if (idx < src_type.shape.size()) {
      int64_t d = src_type.shape[idx];
      return {d, kNone, d == kDynamic ? -1 : d};
    }
    return {};
  };
  auto src_stride = [&](size_t idx) -> DimRef {
    if (src_info != nullptr && idx < src_info->strides.size()) return src_info->strides[idx];
    if (idx < src_type.strides.size()) return {src_type.strides[idx], kNone, -1};
    return {};
  };
  auto bound_of = [](const DimRef &d) { return d.c != kDynamic ? d.c : d.bound; };

  for (size_t res = 0; res < names.size(); ++res) {
    Value v;
    v.line = op.line;
    if (res < rtypes.size()) v.type = type_of(rtypes[res]);
    if (v.type.kind != Type::Kind::Memref) {
      define(names[res], add_value(std::move(v)));
      continue;
    }
    MemrefInfo info;
    info.offset = kUnknownOffset;
    const DimRef src_offset = src_info != nullptr ? src_info->offset : kUnknownOffset;
    if (src_info != nullptr) info.roots = src_info->roots;
    if (info.roots.empty()) {
      BufferRef root;
      root.space = v.type.space;
      info.roots.push_back(root);
    }
    const Type &t = v.type;
    info.dims.resize(t.rank());
    info.strides.resize(t.rank());
    for (size_t idx = 0; idx < t.rank(); ++idx) {
      info.dims[idx] = {t.shape[idx], kNone, t.shape[idx] == kDynamic ? -1 : t.shape[idx]};
      info.strides[idx] = {t.strides[idx], kNone, -1};
    }
    if (!op.generic && res == 0 && (m == "subview" || m == "view")) {
      // %src[offsets] [sizes] [strides]
      std::vector<TokSpan> groups;
      for (size_t idx = 1; idx < s.size() && groups.size() < 3;) {
        if (s[idx].kind == Tok::LSquare) {
          auto g = group_at(s, idx);
          if (!g) break;
          groups.push_back(g->first);
          idx = g->second;
        } else if (s[idx].kind == Tok::Colon) {
          break;
        } else {
          ++idx;
        }
      }
      if (!groups.empty()) {
        std::vector<ListEntry> offsets = list_entries(groups[0]);
        if (std::all_of(offsets.begin(), offsets.end(), [](const ListEntry &e) { return e.c == 0; }))
          info.offset = src_offset;
      }
      if (groups.size() >= 2) {
        std::vector<ListEntry> sizes = list_entries(groups[1]);
        std::vector<ListEntry> steps = groups.size() >= 3 ? list_entries(groups[2]) : std::vector<ListEntry>{};
        std::vector<size_t> kept;
        size_t drop = sizes.size() > t.rank() ? sizes.size() - t.rank() : 0;
        for (size_t idx = 0; idx < sizes.size(); ++idx) {
          if (drop > 0 && sizes[idx].c == 1) {
            --drop;
            continue;
          }
          kept.push_back(idx);
        }
        for (size_t idx = 0; idx < t.rank() && idx < kept.size(); ++idx) {
          const ListEntry &e = sizes[kept[idx]];
          int64_t bound = bound_of(src_dim(kept[idx]));
          if (e.c != kDynamic) info.dims[idx] = {e.c, kNone, e.c};
          else info.dims[idx] = {kDynamic, use(e.name), bound};
          if (t.strides[idx] == kDynamic) {
            bool unit_step = kept[idx] < steps.size() && steps[kept[idx]].c == 1;
            if (unit_step) info.strides[idx] = src_stride(kept[idx]);
          }
        }
      }
    } else if (!op.generic && res == 0 && m == "reinterpret_cast") {
      if (auto off = list_after(s, "offset")) {
        std::vector<ListEntry> offsets = list_entries(*off);
        if (offsets.size() == 1)
          info.offset = offsets[0].c != kDynamic ? DimRef{offsets[0].c, kNone, -1} : DimRef{kDynamic, use(offsets[0].name), -1};
      }
      if (auto sz = list_after(s, "sizes")) {
        std::vector<ListEntry> sizes = list_entries(*sz);
        for (size_t idx = 0; idx < t.rank() && idx < sizes.size(); ++idx)
          info.dims[idx] = sizes[idx].c != kDynamic ? DimRef{sizes[idx].c, kNone, sizes[idx].c}
                                                    : DimRef{kDynamic, use(sizes[idx].name), -1};
      }
      if (auto st = list_after(s, "strides")) {
        std::vector<ListEntry> strides = list_entries(*st);
        for (size_t idx = 0; idx < t.rank() && idx < strides.size(); ++idx)
          info.strides[idx] = strides[idx].c != kDynamic ? DimRef{strides[idx].c, kNone, -1}
                                                         : DimRef{kDynamic, use(strides[idx].name), -1};
      }
    } else if (m == "cast" || m == "bitcast") {
      if (m == "cast") info.offset = src_offset;
      if (src_info != nullptr && src_info->dims.size() == t.rank() && m == "cast") {
        info.dims = src_info->dims;
        info.strides = src_info->strides;
      }
    } else if (!op.generic && m == "collapse_shape") {
      info.offset = src_offset;
      std::vector<std::vector<int64_t>> groups;
      if (s.size() > 1 && s[1].kind == Tok::LSquare)
        if (auto g = group_at(s, 1))
          for (TokSpan grp : split_top(g->first, Tok::Comma)) {
            std::vector<int64_t> members;
            for (size_t idx = 0; idx < grp.size(); ++idx)
              if (grp[idx].kind == Tok::Integer)
                if (auto n = parse_int(grp[idx].text)) members.push_back(*n);
            groups.push_back(members);
          }
      for (size_t gi = 0; gi < groups.size() && gi < t.rank(); ++gi) {
        int64_t c = 1, bound = 1;
        ValueId dyn = kNone;
        bool bound_known = true;
        for (int64_t member : groups[gi]) {
          DimRef d = src_dim(static_cast<size_t>(member));
          int64_t b = bound_of(d);
          if (b < 0) bound_known = false;
          else bound *= b;
          if (d.c != kDynamic) {
            c *= d.c;
          } else if (d.v != kNone) {
            if (dyn == kNone) {
              dyn = d.v;
            } else {
              Value prod;
              prod.kind = VKind::Binary;
              prod.op = static_cast<uint8_t>(BinOp::Mul);
              prod.a = dyn;
              prod.b = d.v;
              prod.type = parse_type("index");
              dyn = add_value(std::move(prod));
            }
          } else {
            c = kDynamic;
          }
        }
        if (c == kDynamic) {
          info.dims[gi] = {kDynamic, kNone, bound_known ? bound : -1};
        } else if (dyn == kNone) {
          info.dims[gi] = {c, kNone, c};
        } else {
          ValueId prod = dyn;
          if (c != 1) {
            Value k;
            k.kind = VKind::Const;
            k.c = c;
            Value mul;
            mul.kind = VKind::Binary;
            mul.op = static_cast<uint8_t>(BinOp::Mul);
            mul.a = dyn;
            mul.b = add_value(std::move(k));
            prod = add_value(std::move(mul));
          }
          info.dims[gi] = {kDynamic, prod, bound_known ? bound : -1};
        }
        if (!groups[gi].empty() && t.strides[gi] == kDynamic)
          info.strides[gi] = src_stride(static_cast<size_t>(groups[gi].back()));
      }
    } else if (!op.generic && m == "expand_shape") {
      info.offset = src_offset;
      if (auto os = list_after(s, "output_shape")) {
        std::vector<ListEntry> shape = list_entries(*os);
        for (size_t idx = 0; idx < t.rank() && idx < shape.size(); ++idx)
          info.dims[idx] = shape[idx].c != kDynamic ? DimRef{shape[idx].c, kNone, shape[idx].c}
                                                    : DimRef{kDynamic, use(shape[idx].name), -1};
      }
    } else if (m == "extract_strided_metadata") {
      // Result 0 is the base buffer; the rest are index values.
    }
    // A dynamic dimension not resolved above still has the source's extent as a bound.
    for (size_t idx = 0; idx < info.dims.size(); ++idx)
      if (info.dims[idx].c == kDynamic && info.dims[idx].v == kNone && info.dims[idx].bound < 0 && src_info != nullptr &&
          src_info->dims.size() == info.dims.size())
        info.dims[idx].bound = bound_of(src_info->dims[idx]);
    v.mem = new_mem(std::move(info));
    define(names[res], add_value(std::move(v)));
  }
}

void FunctionAnalyzer::handle_alloc(const Op &op, uint32_t r) {
  OpRecord &record = rec(r);
  TokSpan s = tokens_of(op);
  std::vector<std::string_view> names = result_names(op);
  std::vector<TokSpan> rtypes = trailing_types(op);
  Value v;
  v.line = op.line;
  if (!rtypes.empty()) v.type = type_of(rtypes[0]);
  BufferRef root;
  root.space = v.type.space;
  root.bytes = static_bytes(v.type);
  std::vector<std::string_view> operands =
      op.generic ? generic_parts(op).operands
                 : (s.size() > 0 && s[0].kind == Tok::LParen ? (group_at(s, 0) ? percent_ids(group_at(s, 0)->first)
                                                                                 : std::vector<std::string_view>{})
                                                              : std::vector<std::string_view>{});
  auto const_of = [&](std::string_view name) -> int64_t {
    Eval e = eval(use(name));
    return e.iv.exact() ? e.iv.lo : -1;
  };
  if (op.name == "hivm.hir.pointer_cast") {
    root.kind = BufferRef::Kind::Address;
    if (!operands.empty()) root.base0 = const_of(operands[0]);
    if (operands.size() > 1) root.base1 = const_of(operands[1]);
    if (operands.size() > 2) record.notes.push_back("pointer_cast with more than two addresses: the first two are kept");
    record.scalar_kind = "address";
  } else if (op.name == "memref_ext.alloc_workspace") {
    root.kind = BufferRef::Kind::Workspace;
    root.space = Space::GM;
    if (auto off = list_after(s, "offset")) {
      std::vector<ListEntry> entries = list_entries(*off);
      if (!entries.empty()) root.base0 = entries[0].c != kDynamic ? entries[0].c : const_of(entries[0].name);
    } else if (op.generic && operands.size() > 1) {
      root.base0 = const_of(operands[1]);
    }
    record.scalar_instructions = 1;
    record.issued_instructions = 1;
    record.scalar_kind = "address";
  } else {
    root.kind = BufferRef::Kind::Alloc;
    root.id = alloc_ids_++;
  }
  if (v.type.kind == Type::Kind::Memref) {
    MemrefInfo info = static_memref_info(v.type);
    info.roots.push_back(root);
    v.mem = new_mem(std::move(info));
  }
  if (!names.empty()) define(names[0], add_value(std::move(v)));
}

void FunctionAnalyzer::handle_hivm_scalar(const Op &op, uint32_t r) {
  OpRecord &record = rec(r);
  record.scalar_instructions = 1;
  record.issued_instructions = 1;
  record.scalar_kind = "hivm";
  std::vector<std::string_view> names = result_names(op);
  std::vector<TokSpan> rtypes = trailing_types(op);
  for (size_t idx = 0; idx < names.size(); ++idx) {
    Value v;
    v.line = op.line;
    if (idx < rtypes.size()) v.type = type_of(rtypes[idx]);
    if (op.name == "hivm.hir.get_block_idx") v.kind = VKind::BlockIdx;
    else if (op.name == "hivm.hir.get_sub_block_idx") v.kind = VKind::SubBlockIdx;
    else if (op.name == "hivm.hir.get_block_num") v.kind = VKind::BlockNum;
    else if (op.name == "hivm.hir.get_sub_block_num") v.kind = VKind::SubBlockNum;
    define(names[idx], add_value(std::move(v)));
  }
}

void FunctionAnalyzer::handle_annotation(const Op &op, uint32_t r) {
  (void)r;
  TokSpan s = tokens_of(op);
  std::vector<std::string_view> operands = op.generic ? generic_parts(op).operands : percent_ids(s.sub(0, 1));
  if (has_word(s, "logical_block_num") && !operands.empty()) {
    logical_block_num_ = use(operands[0]);
    prog_.functions[fn_index_].logical_block_num = std::string(operands[0]);
  }
}

}  // namespace

namespace {

void append_roots(std::vector<BufferRef> &to, const std::vector<BufferRef> &from) {
  for (const BufferRef &b : from) {
    bool dup = false;
    for (const BufferRef &x : to)
      if (x.kind == b.kind && x.space == b.space && x.base0 == b.base0 && x.base1 == b.base1 && x.id == b.id &&
          x.bytes == b.bytes)
        dup = true;
    if (!dup) to.push_back(b);
  }
}

void FunctionAnalyzer::handle_structured(const Op &op, uint32_t r, const OpInfo &info, int32_t path) {
  OpDetail &d = detail(r);
  d.hivm = true;
  TokSpan s = tokens_of(op);
  auto read_group = [&](std::optional<TokSpan> grp, std::vector<Operand> &out) {
    if (!grp || grp->empty()) return;
    auto colon = find_top(*grp, Tok::Colon);
    TokSpan names = colon ? grp->sub(0, *colon) : *grp;
    std::vector<TokSpan> types = colon ? split_top(grp->from(*colon + 1), Tok::Comma) : std::vector<TokSpan>{};
    std::vector<TokSpan> entries = split_top(names, Tok::Comma);
    for (size_t idx = 0; idx < entries.size(); ++idx) {
      Operand o;
      std::vector<std::string_view> ids = percent_ids(entries[idx]);
      if (!ids.empty()) {
        o.name = ids[0];
        o.v = use(ids[0]);
      }
      if (idx < types.size()) o.type = type_of(types[idx]);
      else if (o.v != kNone) o.type = values_[o.v].type;
      out.push_back(std::move(o));
    }
  };
  if (op.generic) {
    GenericParts g = generic_parts(op);
    std::vector<int64_t> segments;
    if (auto seg = named_attr(g.props, "operandSegmentSizes"))
      for (size_t idx = 0; idx < seg->size(); ++idx)
        if ((*seg)[idx].kind == Tok::Integer)
          if (auto n = parse_int((*seg)[idx].text)) segments.push_back(*n);
    std::vector<Operand> all;
    for (size_t idx = 0; idx < g.operands.size(); ++idx) {
      Operand o;
      o.name = g.operands[idx];
      o.v = use(o.name);
      if (idx < g.operand_types.size()) o.type = type_of(g.operand_types[idx]);
      else if (o.v != kNone) o.type = values_[o.v].type;
      all.push_back(std::move(o));
    }
    size_t n_ins = all.empty() ? 0 : all.size() - 1, n_outs = all.empty() ? 0 : 1;
    if (segments.size() >= 2) {
      n_ins = static_cast<size_t>(segments[0]);
      n_outs = static_cast<size_t>(segments[1]);
    }
    for (size_t idx = 0; idx < all.size(); ++idx) {
      if (idx < n_ins) d.ins.push_back(all[idx]);
      else if (idx < n_ins + n_outs) d.outs.push_back(all[idx]);
    }
  } else {
    read_group(keyword_group(s, "ins"), d.ins);
    read_group(keyword_group(s, "outs"), d.outs);
  }
  OpRecord &record = rec(r);
  auto first_memref = [](const std::vector<Operand> &v) -> const Operand * {
    for (const Operand &o : v)
      if (o.type.kind == Type::Kind::Memref || o.type.kind == Type::Kind::Tensor) return &o;
    return nullptr;
  };
  const Operand *src = first_memref(d.ins);
  const Operand *dst = first_memref(d.outs);
  record.src = src != nullptr ? src->type.space : Space::Unknown;
  record.dst = dst != nullptr ? dst->type.space : Space::Unknown;
  if (record.src != Space::Unknown && record.dst != Space::Unknown)
    record.path_name = std::string(space_name(record.src)) + "_to_" + space_name(record.dst);
  const bool tensor_form = (src != nullptr && src->type.kind == Type::Kind::Tensor) ||
                           (dst != nullptr && dst->type.kind == Type::Kind::Tensor);
  std::string_view m = op.name.substr(op.name.rfind('.') + 1);
  if (m == "copy") {
    if (auto pipe = pipe_for_copy(record.src, record.dst)) {
      record.pipes = {*pipe};
      if (*pipe == Pipe::V) record.cls = OpClass::VectorMove;
    } else {
      record.unresolved_pipe = tensor_form ? "copy on tensors: no address spaces, so no pipe (pre-bufferization IR)"
                                           : "copy between address spaces with no known pipe";
      record.modelled = false;
    }
  } else if (m == "vbrc") {
    if (auto pipe = pipe_for_vbrc(record.dst)) {
      record.pipes = {*pipe};
      if (*pipe == Pipe::MTE2) record.cls = OpClass::Dma;
    } else {
      record.unresolved_pipe = tensor_form ? "vbrc on tensors: no destination address space, so no pipe"
                                           : "vbrc into an address space with no known pipe";
      record.modelled = false;
    }
  } else if (info.cls == OpClass::Cube) {
    record.pipes = {Pipe::MTE1, Pipe::M};
    for (size_t idx = 2; idx < d.ins.size(); ++idx) d.scalars.push_back(d.ins[idx].v);
  } else if (info.cls == OpClass::CubeMacro) {
    record.pipes = {Pipe::MTE2, Pipe::MTE3};
    record.notes.push_back("pre-lowering macro op (matmul family): no per-unit breakdown");
    record.modelled = false;
  }
  if (tensor_form && record.modelled) {
    record.notes.push_back("tensor operands: address spaces unknown (pre-bufferization IR)");
    if (info.cls == OpClass::Dma) record.modelled = false;
  }
  if (op.name == "hivm.hir.load") {
    record.core = prog_.functions[fn_index_].core;
    if (record.src == Space::GM && record.dst != Space::UB && record.dst != Space::Unknown &&
        record.core == CoreType::AIV)
      record.notes.push_back("load into a non-UB space in a vector function");
  }
  for (const Operand &o : d.ins)
    if (const MemrefInfo *mi = mem_of(o.v)) append_roots(record.reads, mi->roots);
  for (const Operand &o : d.outs)
    if (const MemrefInfo *mi = mem_of(o.v)) append_roots(record.writes, mi->roots);
  // Accumulating ops read their destination too.
  if (info.cls == OpClass::Cube)
    for (const Operand &o : d.outs)
      if (const MemrefInfo *mi = mem_of(o.v)) append_roots(record.reads, mi->roots);
  record.issued_instructions = info.cls == OpClass::Cube ? 3 : 1;
  mark_hivm(path, false);
  std::vector<std::string_view> names = result_names(op);
  if (!names.empty()) define_results_unknown(op, trailing_types(op));
}

void FunctionAnalyzer::handle_sync(const Op &op, uint32_t r, OpClass cls, int32_t path) {
  OpRecord &record = rec(r);
  record.issued_instructions = 1;
  SyncInfo info;
  TokSpan s = tokens_of(op);
  auto pipe_of = [&](TokSpan t) -> Pipe {
    auto p = pipe_from_enum(enum_word(t));
    return p ? *p : Pipe::None;
  };
  auto event_of = [&](TokSpan t) {
    std::vector<std::string_view> ids = percent_ids(t);
    if (!ids.empty()) {
      info.event_value = std::string(ids[0]);
      detail(r).event = use(ids[0]);
      return;
    }
    std::string_view w = enum_word(t);
    if (w.substr(0, 8) == "EVENT_ID") {
      if (auto n = parse_int(w.substr(8))) info.event = *n;
    } else if (auto n = first_int(t)) {
      info.event = *n;
    }
  };
  if (op.generic) {
    GenericParts g = generic_parts(op);
    auto prop = [&](std::string_view name) -> TokSpan {
      if (auto a = named_attr(g.props, name)) return *a;
      if (auto b = named_attr(g.attrs, name)) return *b;
      return {};
    };
    switch (cls) {
      case OpClass::SetFlag:
      case OpClass::WaitFlag:
        info.from = pipe_of(prop("set_pipe"));
        info.to = pipe_of(prop("wait_pipe"));
        if (TokSpan ev = prop("static_event_id"); !ev.empty()) event_of(ev);
        else if (!g.operands.empty()) {
          info.event_value = std::string(g.operands[0]);
          detail(r).event = use(g.operands[0]);
        }
        break;
      case OpClass::PipeBarrier: info.from = info.to = pipe_of(prop("pipe")); break;
      case OpClass::SyncBlockSet:
      case OpClass::SyncBlockWait:
        info.tcore = std::string(enum_word(prop("tcore_type")));
        info.from = pipe_of(prop("tpipe"));
        info.to = pipe_of(prop("pipe"));
        if (TokSpan f = prop("static_flag_id"); !f.empty()) info.event = first_int(f);
        else if (!g.operands.empty()) info.event_value = std::string(g.operands[0]);
        break;
      default:
        info.mode = std::string(enum_word(prop("sync_block_mode")));
        if (TokSpan f = prop("flag_id"); !f.empty()) info.event = first_int(f);
        break;
    }
  } else {
    auto open = find_top(s, Tok::LSquare);
    std::vector<TokSpan> entries;
    if (open)
      if (auto g = group_at(s, *open)) entries = split_top(g->first, Tok::Comma);
    switch (cls) {
      case OpClass::SetFlag:
      case OpClass::WaitFlag:
        if (entries.size() >= 3) {
          info.from = pipe_of(entries[0]);
          info.to = pipe_of(entries[1]);
          event_of(entries[2]);
        }
        break;
      case OpClass::PipeBarrier:
        if (!entries.empty()) info.from = info.to = pipe_of(entries[0]);
        break;
      case OpClass::SyncBlockSet:
      case OpClass::SyncBlockWait:
        if (entries.size() >= 3) {
          info.tcore = std::string(enum_word(entries[0]));
          info.from = pipe_of(entries[1]);
          info.to = pipe_of(entries[2]);
        }
        if (auto flag = find_word(s, "flag"); flag && *flag + 2 < s.size() + 1) {
          TokSpan value = s.from(*flag + 2);
          if (!value.empty() && value[0].kind == Tok::PercentId) info.event_value = std::string(value[0].text);
          else info.event = first_int(value.sub(0, std::min<size_t>(2, value.size())));
        }
        break;
      default:
        if (!entries.empty()) info.mode = std::string(enum_word(entries[0]));
        if (entries.size() > 1) info.event = first_int(entries[1]);
        break;
    }
  }
  switch (cls) {
    case OpClass::SetFlag: record.pipes = {info.from}; break;
    case OpClass::WaitFlag: record.pipes = {info.to}; break;
    case OpClass::PipeBarrier: record.pipes = {info.from}; break;
    case OpClass::SyncBlockSet: record.pipes = {info.from}; break;
    case OpClass::SyncBlockWait: record.pipes = {info.to}; break;
    default: record.pipes = {Pipe::ALL}; break;
  }
  if (!record.pipes.empty() && record.pipes[0] == Pipe::None) {
    record.pipes.clear();
    record.unresolved_pipe = "synchronisation operands not understood";
    record.modelled = false;
  }
  record.sync = std::make_unique<SyncInfo>(std::move(info));
  mark_hivm(path, false);
}

std::vector<BufferRef> FunctionAnalyzer::yield_roots(const Region &region, size_t position) {
  std::vector<BufferRef> out;
  if (region.blocks.empty() || region.blocks.back().ops.empty()) return out;
  const Op &term = region.blocks.back().ops.back();
  if (term.name != "scf.yield") return out;
  TokSpan s = tokens_of(term);
  std::vector<std::string_view> ids;
  if (term.generic) ids = generic_parts(term).operands;
  else ids = percent_ids(find_top(s, Tok::Colon) ? s.sub(0, *find_top(s, Tok::Colon)) : s);
  if (position < ids.size())
    if (const MemrefInfo *mi = mem_of(use(ids[position]))) out = mi->roots;
  return out;
}

void FunctionAnalyzer::handle_loop(const Op &op, uint32_t r, int32_t path) {
  OpRecord &record = rec(r);
  record.scalar_instructions = 2;
  record.issued_instructions = 2;
  record.scalar_kind = "loop_control";
  TokSpan s = tokens_of(op);
  LoopInfo li;
  li.line = op.line;
  li.record = r;
  li.parent = loop_stack_.empty() ? -1 : loop_stack_.back();
  li.depth = static_cast<uint32_t>(loop_stack_.size());
  std::string_view iv_name;
  std::vector<std::pair<std::string_view, std::string_view>> iter_args;  // region arg, init
  Type iv_type = parse_type("index");
  if (op.name == "scf.while") {
    li.unknown_trip = true;
  } else if (op.generic) {
    GenericParts g = generic_parts(op);
    if (g.operands.size() >= 3) {
      li.lb = use(g.operands[0]);
      li.ub = use(g.operands[1]);
      li.step = use(g.operands[2]);
    } else {
      li.unknown_trip = true;
    }
    if (!op.regions.empty() && !op.regions[0].blocks.empty()) {
      const Block &entry = op.regions[0].blocks[0];
      if (!entry.args.empty()) {
        iv_name = entry.args[0].name;
        iv_type = parse_type(entry.args[0].type);
      }
      for (size_t idx = 1; idx < entry.args.size(); ++idx)
        iter_args.emplace_back(entry.args[idx].name, idx + 2 < g.operands.size() ? g.operands[idx + 2] : std::string_view{});
    }
  } else {
    if (s.size() >= 7 && s[0].kind == Tok::PercentId && s[1].kind == Tok::Equal && s[3].kind == Tok::BareId &&
        s[3].text == "to" && s[5].kind == Tok::BareId && s[5].text == "step") {
      iv_name = s[0].text;
      li.lb = use(s[2].text);
      li.ub = use(s[4].text);
      li.step = use(s[6].text);
    } else {
      li.unknown_trip = true;
      record.notes.push_back("loop header not understood: trip count unknown");
    }
    if (auto ia = keyword_group(s, "iter_args"))
      for (TokSpan entry : split_top(*ia, Tok::Comma)) {
        std::vector<std::string_view> ids = percent_ids(entry);
        if (ids.size() >= 2) iter_args.emplace_back(ids[0], ids[1]);
      }
    if (auto colon = find_last_top(s, Tok::Colon)) {
      Type t = type_of(s.from(*colon + 1));
      if (t.kind == Type::Kind::Scalar) iv_type = t;
    }
  }
  // Attributes printed after the region: {ExtractedLoadOrStore}.
  if (!op.region_at.empty()) {
    TokSpan after = s.from(op.region_at.back());
    for (size_t idx = 0; idx < after.size(); ++idx)
      if (after[idx].kind == Tok::BareId) li.attributes.emplace_back(after[idx].text);
  }
  li.extracted = std::find(li.attributes.begin(), li.attributes.end(), "ExtractedLoadOrStore") != li.attributes.end();
  loops_.push_back(li);
  auto loop_idx = static_cast<uint32_t>(loops_.size() - 1);
  PathNode node;
  node.kind = PathNode::Kind::Loop;
  node.parent = path;
  node.loop = loop_idx;
  node.line = op.line;
  int32_t body_path = add_path(std::move(node));
  loops_[loop_idx].body_path = body_path;

  push_scope();
  if (!iv_name.empty()) {
    Value iv;
    iv.kind = VKind::IV;
    iv.aux = loop_idx;
    iv.type = iv_type;
    iv.line = op.line;
    ValueId id = add_value(std::move(iv));
    loops_[loop_idx].iv = id;
    define(iv_name, id);
  }
  std::vector<std::vector<BufferRef>> carried(iter_args.size());
  for (size_t idx = 0; idx < iter_args.size(); ++idx) {
    Value v;
    v.line = op.line;
    ValueId init = use(iter_args[idx].second);
    if (init != kNone) {
      v.type = values_[init].type;
      if (const MemrefInfo *mi = mem_of(init)) {
        carried[idx] = mi->roots;
        MemrefInfo copy = *mi;
        copy.offset = kUnknownOffset;  // each iteration may yield another view
        v.mem = new_mem(std::move(copy));
      }
    }
    define(iter_args[idx].first, add_value(std::move(v)));
  }
  loop_stack_.push_back(static_cast<int32_t>(loop_idx));
  uint32_t body_begin = static_cast<uint32_t>(prog_.ops.size());
  for (size_t ri = 0; ri < op.regions.size(); ++ri) {
    const Region &region = op.regions[ri];
    for (size_t bi = 0; bi < region.blocks.size(); ++bi) {
      const Block &block = region.blocks[bi];
      if (!(ri == 0 && bi == 0)) {
        for (const BlockArg &arg : block.args) {
          Value v;
          v.type = parse_type(arg.type, &aliases_);
          define(arg.name, add_value(std::move(v)));
        }
      }
      for (const Op &child : block.ops) handle(child, body_path);
    }
    for (size_t idx = 0; idx < iter_args.size(); ++idx) append_roots(carried[idx], yield_roots(region, idx));
  }
  uint32_t body_end = static_cast<uint32_t>(prog_.ops.size());
  loop_stack_.pop_back();
  pop_scope();
  loop_spans_.push_back({r, body_begin, body_end});
  // Loop results carry the iteration arguments.
  define_region_results(op, s, carried);
}

void FunctionAnalyzer::handle_if(const Op &op, uint32_t r, int32_t path) {
  OpRecord &record = rec(r);
  record.scalar_instructions = 1;
  record.issued_instructions = 1;
  record.scalar_kind = "branch";
  TokSpan s = tokens_of(op);
  std::string_view cond_name;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    if (!g.operands.empty()) cond_name = g.operands[0];
  } else if (!s.empty() && s[0].kind == Tok::PercentId) {
    cond_name = s[0].text;
  }
  bool unlikely = false;
  std::vector<std::string> attrs;
  if (!op.region_at.empty()) {
    TokSpan after = s.from(op.region_at.back());
    for (size_t idx = 0; idx < after.size(); ++idx)
      if (after[idx].kind == Tok::BareId && after[idx].text != "else") attrs.emplace_back(after[idx].text);
  }
  for (const std::string &a : attrs)
    if (a == "hivm.unlikely_condition") unlikely = true;
  ValueId cond = use(cond_name);
  std::vector<std::vector<BufferRef>> yielded;
  for (size_t ri = 0; ri < op.regions.size(); ++ri) {
    PathNode node;
    node.kind = PathNode::Kind::Cond;
    node.parent = path;
    node.cond = cond;
    node.negated = ri == 1;
    node.unlikely = unlikely && ri == 0;
    node.line = op.line;
    int32_t branch = add_path(std::move(node));
    push_scope();
    for (const Block &block : op.regions[ri].blocks) walk_block(block, branch);
    for (size_t idx = 0; idx < op.result_count(); ++idx) {
      if (yielded.size() <= idx) yielded.resize(idx + 1);
      append_roots(yielded[idx], yield_roots(op.regions[ri], idx));
    }
    pop_scope();
  }
  define_region_results(op, s, yielded);
}

/// Defines the results of an scf.for/scf.if: types from `-> (...)` (or the generic
/// result types); a memref result views the buffers its region yields.
void FunctionAnalyzer::define_region_results(const Op &op, TokSpan s, const std::vector<std::vector<BufferRef>> &roots) {
  std::vector<std::string_view> names = result_names(op);
  std::vector<TokSpan> rtypes;
  if (!op.generic) {
    if (auto arrow = find_top(s, Tok::Arrow))
      if (*arrow + 1 < s.size() && s[*arrow + 1].kind == Tok::LParen)
        if (auto g = group_at(s, *arrow + 1)) rtypes = split_top(g->first, Tok::Comma);
  } else {
    rtypes = generic_parts(op).result_types;
  }
  for (size_t idx = 0; idx < names.size(); ++idx) {
    Value v;
    v.line = op.line;
    if (idx < rtypes.size()) v.type = type_of(rtypes[idx]);
    if (v.type.kind == Type::Kind::Memref) {
      MemrefInfo info = static_memref_info(v.type);
      info.offset = kUnknownOffset;
      if (idx < roots.size()) info.roots = roots[idx];
      if (info.roots.empty()) info.roots.push_back(BufferRef{BufferRef::Kind::Unknown, v.type.space});
      v.mem = new_mem(std::move(info));
    }
    define(names[idx], add_value(std::move(v)));
  }
}

}  // namespace

namespace {

DimEval FunctionAnalyzer::eval_dim(const DimRef &d, uint8_t &taint) {
  DimEval out;
  if (d.c != kDynamic) {
    out.value = d.c;
    out.exact = out.known = true;
    return out;
  }
  if (d.v != kNone) {
    Eval e = eval(d.v);
    taint |= e.taint;
    if (e.iv.exact()) {
      out.value = std::max<int64_t>(0, e.iv.lo);
      out.exact = out.known = true;
      return out;
    }
    if (e.iv.hi != Interval::kPosInf) {
      out.value = std::max<int64_t>(0, e.iv.hi);
      if (d.bound >= 0) out.value = std::min(out.value, d.bound);
      out.known = true;
      return out;
    }
  }
  if (d.bound >= 0) {
    out.value = d.bound;
    out.known = true;
  }
  return out;
}

std::vector<DimEval> FunctionAnalyzer::shape_of(const Operand &o, uint8_t &taint) {
  std::vector<DimEval> dims;
  const MemrefInfo *mi = mem_of(o.v);
  for (size_t idx = 0; idx < o.type.rank(); ++idx) {
    int64_t s = o.type.shape[idx];
    if (s != kDynamic) {
      dims.push_back({s, true, true});
    } else if (mi != nullptr && mi->dims.size() == o.type.rank()) {
      dims.push_back(eval_dim(mi->dims[idx], taint));
    } else {
      dims.push_back({});
    }
  }
  return dims;
}

std::vector<int64_t> FunctionAnalyzer::strides_of(const Operand &o, uint8_t &taint) {
  std::vector<int64_t> strides(o.type.rank(), kDynamic);
  const MemrefInfo *mi = mem_of(o.v);
  for (size_t idx = 0; idx < o.type.rank(); ++idx) {
    if (o.type.strides_known && idx < o.type.strides.size() && o.type.strides[idx] != kDynamic) {
      strides[idx] = o.type.strides[idx];
    } else if (mi != nullptr && mi->strides.size() == o.type.rank() && mi->strides[idx].v != kNone) {
      Eval e = eval(mi->strides[idx].v);
      taint |= e.taint;
      if (e.iv.exact()) strides[idx] = e.iv.lo;
    } else if (mi != nullptr && mi->strides.size() == o.type.rank() && mi->strides[idx].c != kDynamic) {
      strides[idx] = mi->strides[idx].c;
    }
  }
  return strides;
}

/// Product of dimension estimates as a Quantity.
Quantity product(const std::vector<DimEval> &dims, const char *what) {
  Quantity q;
  int64_t n = 1;
  bool exact = true;
  for (const auto &d : dims) {
    if (!d.known) {
      q.reason = std::string(what) + ": a dynamic dimension could not be resolved (no constant, no bound)";
      return q;
    }
    exact = exact && d.exact;
    n *= d.value;
  }
  q.value = n;
  if (!exact) {
    q.estimated = true;
    q.reason = std::string(what) + ": dynamic dimension estimated from its upper bound (affine.min constant or the buffer's static extent)";
  }
  return q;
}


FunctionAnalyzer::Sample FunctionAnalyzer::sample(uint32_t r) {
  Sample out;
  OpRecord &record = rec(r);
  OpDetail &d = detail(r);
  if (!d.hivm) return out;
  uint8_t &taint = out.taint;
  auto memrefs = [](const std::vector<Operand> &v) {
    std::vector<const Operand *> out2;
    for (const Operand &o : v)
      if (o.type.kind == Type::Kind::Memref || o.type.kind == Type::Kind::Tensor) out2.push_back(&o);
    return out2;
  };
  std::vector<const Operand *> ins = memrefs(d.ins), outs = memrefs(d.outs);
  const bool vector_op = !record.pipes.empty() && record.pipes[0] == Pipe::V;
  if (record.cls == OpClass::Cube) {
    auto get = [&](size_t idx) -> DimEval {
      if (idx >= d.scalars.size()) return {};
      Eval e = eval(d.scalars[idx]);
      taint |= e.taint;
      if (e.iv.exact()) return {e.iv.lo, true, true};
      if (e.iv.hi != Interval::kPosInf && e.iv.hi >= 0) return {e.iv.hi, false, true};
      return {};
    };
    DimEval m = get(1), k = get(2), n = get(3);
    if (m.known) record.m = m.value;
    if (k.known) record.k = k.value;
    if (n.known) record.n = n.value;
    if (!ins.empty()) record.dtype = dtype_name(ins[0]->type.elem);
    if (m.known && k.known && n.known) {
      out.flop.value = 2 * m.value * k.value * n.value;
      out.elements.value = m.value * n.value;
      if (!(m.exact && k.exact && n.exact)) {
        out.flop.estimated = out.elements.estimated = true;
        out.flop.reason = "a matmul extent (real_m/real_k/real_n) is dynamic: its upper bound is used";
      }
      auto it = opts_.fractal.find(record.dtype);
      Fractal f = it != opts_.fractal.end() ? it->second : Fractal{};
      auto pad = [](int64_t x, int64_t to) { return to > 0 ? (x + to - 1) / to * to : x; };
      uint32_t bits = !ins.empty() && ins[0]->type.elem.known() ? ins[0]->type.elem.bits : 16;
      int64_t mp = pad(m.value, f.m), kp = pad(k.value, f.k), np = pad(n.value, f.n);
      record.mte1_bytes = elem_bytes_ceil(mp * kp + kp * np, bits);
    } else {
      out.flop.reason = "matmul extents real_m/real_k/real_n could not be resolved";
    }
    return out;
  }
  if (record.cls == OpClass::Dma || (!vector_op && record.cls == OpClass::VectorMove)) {
    const Operand *gm = nullptr;
    for (const Operand *o : ins)
      if (o->type.space == Space::GM) gm = o;
    if (gm == nullptr)
      for (const Operand *o : outs)
        if (o->type.space == Space::GM) gm = o;
    const Operand *side = gm != nullptr ? gm : (!ins.empty() ? ins[0] : (!outs.empty() ? outs[0] : nullptr));
    if (record.name == "hivm.hir.vbrc" && !outs.empty()) side = outs[0];
    if (side == nullptr) return out;
    std::vector<DimEval> dims = shape_of(*side, taint);
    out.elements = product(dims, "elements");
    uint32_t bits = side->type.elem.bits;
    record.dtype = dtype_name(side->type.elem);
    if (out.elements.value && bits > 0) {
      out.bytes = out.elements;
      out.bytes.value = elem_bytes_ceil(*out.elements.value, bits);
      if (out.bytes.estimated) out.bytes.reason = "bytes: " + out.bytes.reason;
    } else if (bits == 0) {
      out.bytes.reason = "element type of the transfer unknown";
    } else {
      out.bytes.reason = out.elements.reason;
    }
    // Contiguous runs (packets) on the GM side.
    if (gm != nullptr && out.elements.value) {
      std::vector<int64_t> strides = strides_of(*gm, taint);
      int64_t run = 1;
      bool known = true;
      bool first = true;
      for (size_t idx = dims.size(); idx-- > 0;) {
        if (!dims[idx].known) {
          known = false;
          break;
        }
        if (dims[idx].value == 1) continue;
        if (strides[idx] == kDynamic) {
          known = first ? false : known;
          break;
        }
        if (strides[idx] != run) break;
        run *= dims[idx].value;
        first = false;
      }
      if (known && run > 0 && bits > 0) {
        out.packet_bytes.value = elem_bytes_ceil(run, bits);
        out.packets.value = (*out.elements.value + run - 1) / run;
        if (out.elements.estimated) {
          out.packet_bytes.estimated = out.packets.estimated = true;
          out.packet_bytes.reason = out.packets.reason = "from estimated dimensions";
        }
      } else {
        out.packet_bytes.reason = out.packets.reason =
            "the GM-side stride is dynamic and unresolved (give the launch arguments that define it)";
      }
    }
    return out;
  }
  if (vector_op) {
    std::vector<const Operand *> all = ins;
    all.insert(all.end(), outs.begin(), outs.end());
    if (all.empty()) return out;
    const Operand *lane = nullptr;
    Quantity lane_elems;
    uint32_t bits = 0;
    bool only_i1 = true;
    for (const Operand *o : all)
      if (o->type.elem.bits > 1) only_i1 = false;
    for (const Operand *o : all) {
      if (!only_i1 && o->type.elem.bits <= 1) continue;
      bits = std::max(bits, o->type.elem.bits);
    }
    std::vector<DimEval> lane_dims;
    for (const Operand *o : all) {
      std::vector<DimEval> dims = shape_of(*o, taint);
      Quantity n = product(dims, "elements");
      if (!n.value) continue;
      bool better = lane == nullptr || *n.value > *lane_elems.value ||
                    (*n.value == *lane_elems.value && o->type.elem.bits > lane->type.elem.bits);
      if (better) {
        lane = o;
        lane_elems = n;
        lane_dims = dims;
      }
    }
    if (lane == nullptr) {
      out.elements.reason = "no operand with a resolvable shape";
      return out;
    }
    out.elements = lane_elems;
    record.dtype = dtype_name(lane->type.elem);
    if (bits == 0) {
      out.repeats.reason = "element type unknown";
      return out;
    }
    const int64_t repeat_bits = opts_.vector_repeat_bytes * 8;
    const int64_t lanes_per_repeat = repeat_bits / bits;
    const int64_t n = *lane_elems.value;
    int64_t repeats = 0;
    if (lane->type.contiguous() || lane->type.rank() <= 1) {
      repeats = (n * bits + repeat_bits - 1) / repeat_bits;
    } else {
      std::vector<int64_t> strides = strides_of(*lane, taint);
      int64_t run = 1;
      for (size_t idx = lane_dims.size(); idx-- > 0;) {
        if (lane_dims[idx].value == 1) continue;
        if (strides[idx] != run) break;
        run *= lane_dims[idx].value;
      }
      int64_t rows = run > 0 ? (n + run - 1) / run : n;
      int64_t run_bytes = (run * bits + 7) / 8;
      int64_t blocks_per_row = (run_bytes + 31) / 32;
      int64_t blocks_per_repeat = opts_.vector_repeat_bytes / 32;
      if (blocks_per_row <= blocks_per_repeat) {
        repeats = (rows * blocks_per_row + blocks_per_repeat - 1) / blocks_per_repeat;
      } else {
        repeats = rows * ((run_bytes + opts_.vector_repeat_bytes - 1) / opts_.vector_repeat_bytes);
      }
    }
    out.repeats.value = repeats;
    out.masked.value = std::max<int64_t>(0, repeats * lanes_per_repeat - n);
    if (lane_elems.estimated) {
      out.repeats.estimated = out.masked.estimated = true;
      out.repeats.reason = out.masked.reason = "from an estimated element count";
    }
    switch (record.cls) {
      case OpClass::VectorArith:
      case OpClass::VectorTranscendental:
      case OpClass::VectorReduce: out.flop = lane_elems; break;
      default: out.flop = Quantity::exact(0); break;
    }
    if (record.name == "hivm.hir.copy") {
      out.bytes = lane_elems;
      out.bytes.value = elem_bytes_ceil(n, bits);
    }
    return out;
  }
  return out;
}

std::vector<int32_t> FunctionAnalyzer::chain_of(int32_t path) const {
  std::vector<int32_t> chain;
  for (int32_t p = path; p >= 0; p = paths_[static_cast<size_t>(p)].parent) chain.push_back(p);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

void FunctionAnalyzer::enumerate(const std::vector<int32_t> &chain, size_t at, Mult mult, uint64_t &leaves,
                                 const std::function<void(const Mult &)> &leaf, std::string &reason, uint8_t &taint) {
  if (at == chain.size()) {
    ++leaves;
    leaf(mult);
    return;
  }
  const PathNode &node = paths_[static_cast<size_t>(chain[at])];
  // Reasons are built once per (construct, line): leaves revisit the same nodes many times.
  auto seen_reason = [&](int kind, uint32_t line) {
    uint64_t key = (static_cast<uint64_t>(kind) << 32) | line;
    if (std::find(reason_keys_.begin(), reason_keys_.end(), key) != reason_keys_.end()) return true;
    reason_keys_.push_back(key);
    return false;
  };
  auto add_reason = [&](const std::string &text) {
    if (reason.find(text) == std::string::npos) reason += (reason.empty() ? "" : "; ") + text;
  };
  switch (node.kind) {
    case PathNode::Kind::Root: enumerate(chain, at + 1, mult, leaves, leaf, reason, taint); return;
    case PathNode::Kind::Opaque: {
      if (!seen_reason(0, node.line))
        add_reason("inside a region of " + node.what + " (line " + std::to_string(node.line) + ") whose execution count is unknown");
      Mult m = mult;
      m.min = 0;
      m.max = kInf;
      m.value = 0;
      m.exact = false;
      m.known = false;
      enumerate(chain, at + 1, m, leaves, leaf, reason, taint);
      return;
    }
    case PathNode::Kind::Cond: {
      Eval e = eval(node.cond);
      taint |= e.taint;
      if (e.iv.exact()) {
        bool truth = (e.iv.lo != 0) != node.negated;
        if (truth) enumerate(chain, at + 1, mult, leaves, leaf, reason, taint);
        return;
      }
      Mult m = mult;
      m.min = 0;
      if (node.unlikely) m.value = 0;
      m.exact = false;
      if (!seen_reason(1, node.line)) {
        std::string why = (e.taint & kTData) ? "depends on loaded data" : (e.taint & kTArg) ? "depends on launch arguments not given" : "not decidable";
        add_reason("branch at line " + std::to_string(node.line) + " " + why +
                   (node.unlikely ? " (hivm.unlikely_condition: counted as not taken)" : " (counted as taken)"));
      }
      enumerate(chain, at + 1, m, leaves, leaf, reason, taint);
      return;
    }
    case PathNode::Kind::Loop: break;
  }
  const LoopInfo &loop = loops_[node.loop];
  const uint32_t L = node.loop;
  auto restore = [&](std::optional<Interval> old) {
    ctx_.iv[L] = old;
    touch_ctx();
  };
  std::optional<Interval> saved = ctx_.iv[L];
  // A trips fact the user gave for this loop narrows a trip count the IR leaves open.
  const TripFact *fact = L < loop_fact_.size() && loop_fact_[L] >= 0 ? &opts_.trips[static_cast<size_t>(loop_fact_[L])] : nullptr;
  auto apply_fact = [&](int64_t &tlo, int64_t &thi, int64_t &value, bool &known) {
    if (fact == nullptr) return false;
    facts_used_ |= trip_bit(static_cast<size_t>(loop_fact_[L]));
    if (fact->min) tlo = std::max(tlo, *fact->min);
    if (fact->max) thi = std::min(thi, *fact->max);
    if (fact->sum) {
      // Total iterations over the loop's entries (per block or over the grid): spread evenly over
      // the entries for the value; per entry at least sum / most entries when summed per block.
      const Count &entries = rec(loop.record).count;
      int64_t spread = entries.known && entries.value > 0 ? entries.value : 1;
      if (fact->sum_over_grid) spread = sat_mul(spread, prog_.blocks ? std::max<int64_t>(1, *prog_.blocks) : 1);
      if (!fact->sum_over_grid && entries.max != kInf && entries.max > 0) tlo = std::max(tlo, *fact->sum / entries.max);
      thi = std::min(thi, *fact->sum);
      value = *fact->sum / spread;
    }
    tlo = std::min(tlo, thi);  // the IR's bound wins over a fact that cannot hold here
    if (!fact->sum) value = thi != kInf ? thi : tlo;
    value = std::clamp(value, tlo, thi);
    known = true;
    return true;
  };
  auto fact_note = [&]() {
    return fact == nullptr ? std::string() : std::string(" under the given trips.\"") + std::to_string(loop.line) + "\"";
  };
  if (loop.unknown_trip) {
    int64_t tlo = 0, thi = kInf, value = 0;
    bool known = false;
    const bool given = apply_fact(tlo, thi, value, known);
    if (!seen_reason(2, loop.line))
      add_reason("loop at line " + std::to_string(loop.line) + " has an unknown trip count" +
                 (given ? " (" + std::to_string(tlo) + ".." + fmt_count(thi) + fact_note() + ")" : std::string()));
    enumerate(chain, at + 1, mult_mul(mult, tlo, thi, value, given && tlo == thi, known), leaves, leaf, reason, taint);
    return;
  }
  Eval lb = eval(loop.lb), ub = eval(loop.ub), st = eval(loop.step);
  taint |= static_cast<uint8_t>(lb.taint | ub.taint | st.taint);
  if (lb.iv.exact() && ub.iv.exact() && st.iv.exact() && st.iv.lo > 0) {
    int64_t trip = ub.iv.lo > lb.iv.lo ? (ub.iv.lo - lb.iv.lo + st.iv.lo - 1) / st.iv.lo : 0;
    // Where the bounds are known (constants, the block index, given data) a trips fact must agree.
    if (fact != nullptr && ((fact->min && trip < *fact->min) || (fact->max && trip > *fact->max)))
      throw SourceError(loop.line, 1, "launch trips.\"" + fact->key + "\": " + (fact->min && trip < *fact->min ? "min = " + std::to_string(*fact->min) : "max = " + std::to_string(*fact->max)) +
                                          " cannot hold: the loop runs " + std::to_string(trip) + " times in an entry whose bounds are known" +
                                          (ctx_.block.exact() ? " (block " + std::to_string(ctx_.block.lo) + ")" : std::string()));
    if (trip == 0) return;
    if (leaves + static_cast<uint64_t>(trip) <= opts_.enumeration_budget) {
      for (int64_t k = 0; k < trip; ++k) {
        ctx_.iv[L] = Interval::point(lb.iv.lo + k * st.iv.lo);
        touch_ctx();
        enumerate(chain, at + 1, mult, leaves, leaf, reason, taint);
      }
      restore(saved);
      return;
    }
    ctx_.iv[L] = Interval::range(lb.iv.lo, lb.iv.lo + (trip - 1) * st.iv.lo);
    touch_ctx();
    enumerate(chain, at + 1, mult_mul(mult, trip, trip, trip, true, true), leaves, leaf, reason, taint);
    restore(saved);
    return;
  }
  // Non-constant bounds: a trip-count interval.
  int64_t tlo = 0, thi = kInf;
  bool step_ok = st.iv.lo > 0 && st.iv.hi != Interval::kPosInf;
  if (step_ok) {
    Interval span_lo = iv_sub(Interval::point(ub.iv.lo), Interval::point(lb.iv.hi));
    Interval span_hi = iv_sub(Interval::point(ub.iv.hi), Interval::point(lb.iv.lo));
    if (ub.iv.lo != Interval::kNegInf && lb.iv.hi != Interval::kPosInf && span_lo.exact())
      tlo = std::max<int64_t>(0, (span_lo.lo + st.iv.hi - 1) / st.iv.hi);
    if (ub.iv.hi != Interval::kPosInf && lb.iv.lo != Interval::kNegInf && span_hi.exact())
      thi = std::max<int64_t>(0, (span_hi.lo + st.iv.lo - 1) / st.iv.lo);
  }
  int64_t value = thi == kInf ? 0 : thi;
  bool known = thi != kInf;
  const bool given = apply_fact(tlo, thi, value, known);
  if (!seen_reason(3, loop.line)) {
    std::string why = ((lb.taint | ub.taint | st.taint) & kTData)  ? "bounds depend on loaded data"
                      : ((lb.taint | ub.taint | st.taint) & kTArg) ? "bounds depend on launch arguments not given"
                                                                   : "bounds are not constant";
    add_reason("loop at line " + std::to_string(loop.line) + " runs " + std::to_string(tlo) + ".." + fmt_count(thi) +
               " times (" + why + fact_note() + ")");
  }
  int64_t hi_iv = ub.iv.hi == Interval::kPosInf ? Interval::kPosInf : ub.iv.hi - 1;
  ctx_.iv[L] = Interval::range(lb.iv.lo, std::max(lb.iv.lo, hi_iv));
  touch_ctx();
  enumerate(chain, at + 1, mult_mul(mult, tlo, thi, value, given && tlo == thi, known), leaves, leaf, reason, taint);
  restore(saved);
}

void FunctionAnalyzer::bind_first_iterations(const std::vector<int32_t> &chain, uint8_t &taint) {
  for (int32_t p : chain) {
    const PathNode &node = paths_[static_cast<size_t>(p)];
    if (node.kind != PathNode::Kind::Loop) continue;
    const LoopInfo &loop = loops_[node.loop];
    if (loop.unknown_trip) continue;
    Eval lb = eval(loop.lb);
    taint |= lb.taint;
    if (lb.iv.exact()) {
      ctx_.iv[node.loop] = Interval::point(lb.iv.lo);
      touch_ctx();
    }
  }
}

void FunctionAnalyzer::trip_any(uint32_t L, LoopRecord &lr) {
  const LoopInfo &loop = loops_[L];
  if (loop.unknown_trip) {
    lr.unknown_trip = true;
    return;
  }
  ctx_.block = block_any_;
  ctx_.sub = Interval::range(0, static_cast<int64_t>(instances_) - 1);
  ctx_.iv.assign(loops_.size(), std::nullopt);
  touch_ctx();
  Eval lb = eval(loop.lb), ub = eval(loop.ub), st = eval(loop.step);
  const uint8_t taint = static_cast<uint8_t>(lb.taint | ub.taint | st.taint);
  if (st.iv.lo > 0 && st.iv.hi != Interval::kPosInf) {
    if (ub.iv.lo != Interval::kNegInf && lb.iv.hi != Interval::kPosInf)
      lr.trip_min_any = std::max<int64_t>(0, iv_ceildiv(iv_sub(Interval::point(ub.iv.lo), Interval::point(lb.iv.hi)),
                                                        Interval::point(st.iv.hi)).lo);
    if (ub.iv.hi != Interval::kPosInf && lb.iv.lo != Interval::kNegInf)
      lr.trip_max_any = std::max<int64_t>(0, iv_ceildiv(iv_sub(Interval::point(ub.iv.hi), Interval::point(lb.iv.lo)),
                                                        Interval::point(st.iv.lo)).hi);
  }
  // Bounds that depend only on the block index or outer loops are enumerated; the rest
  // (loaded data, launch values not given) leave a loop that may not run at all uncounted.
  lr.unknown_trip = (taint & kTUnresolved) != 0 && lr.trip_min_any == 0;
}

}  // namespace

namespace {

struct QSum {
  int64_t value = 0;
  bool known = true;
  bool estimated = false;
  std::string reason;
  void add(const Quantity &q, const Mult &m) {
    if (!known) return;
    if (m.value == 0 && m.min == 0 && !m.exact) {
      estimated = true;
      return;
    }
    if (!m.known) {
      known = false;
      reason = "execution count unknown";
      return;
    }
    if (!q.value) {
      if (m.value == 0) return;
      known = false;
      reason = q.reason;
      return;
    }
    value = sat_add(value, *q.value * m.value);
    if (q.estimated || !m.exact) {
      estimated = true;
      if (reason.empty()) reason = q.estimated ? q.reason : "execution count estimated";
    }
  }
  [[nodiscard]] Quantity get() const {
    Quantity q;
    if (known) q.value = value;
    q.estimated = estimated;
    q.reason = reason;
    return q;
  }
};

Count to_count(const Mult &m, const std::string &reason) {
  Count c;
  c.known = m.known;
  c.exact = m.exact && m.known;
  c.value = m.value;
  c.min = m.min;
  c.max = m.max;
  if (!c.exact) c.reason = reason;
  return c;
}

/// A guaranteed minimum summed over executions: each execution's exact value times its
/// minimum count; unknown once an execution that surely runs has no exact value.
struct MinSum {
  int64_t value = 0;
  bool ok = true;
  void add(const Quantity &q, const Mult &m) {
    if (!ok || m.min == 0) return;
    if (!q.value || q.estimated) {
      ok = false;
      return;
    }
    value = sat_add(value, sat_mul(*q.value, m.min));
  }
  void add(const MinSum &o) {
    ok = ok && o.ok;
    value = sat_add(value, o.value);
  }
  void keep_smaller(const MinSum &o) {
    if (!o.ok) ok = false;
    else if (ok) value = std::min(value, o.value);
  }
  [[nodiscard]] std::optional<int64_t> get() const { return ok ? std::optional<int64_t>(value) : std::nullopt; }
};

FunctionAnalyzer::RunResult FunctionAnalyzer::run_counts(uint32_t r, const std::vector<int32_t> &chain,
                                                         bool with_samples) {
  struct Inst {
    Mult sum{0, 0, 0, true, true};
    QSum bytes, elements, flop, repeats, masked, packets, issued;
    MinSum bytes_min, flop_min, repeats_min, issued_min;
    std::string reason;
    uint8_t taint = 0;
    uint64_t leaves = 0;
  };
  // The guaranteed minimum of one block (all instances), or of every block at once.
  struct BlockMins {
    int64_t count = 0;
    MinSum bytes, flop, repeats, issued;
    void add(const Inst &inst) {
      count = sat_add(count, inst.sum.min);
      bytes.add(inst.bytes_min);
      flop.add(inst.flop_min);
      repeats.add(inst.repeats_min);
      issued.add(inst.issued_min);
    }
    void keep_smaller(const BlockMins &o) {
      count = std::min(count, o.count);
      bytes.keep_smaller(o.bytes);
      flop.keep_smaller(o.flop);
      repeats.keep_smaller(o.repeats);
      issued.keep_smaller(o.issued);
    }
  };
  auto mins_of = [](const std::vector<Inst> &insts) {
    BlockMins b;
    for (const Inst &inst : insts) b.add(inst);
    return b;
  };
  auto run_block = [&](Interval block) {
    std::vector<Inst> out(instances_);
    for (uint32_t s = 0; s < instances_; ++s) {
      ctx_.block = block;
      ctx_.sub = Interval::point(s);
      ctx_.iv.assign(loops_.size(), std::nullopt);
      touch_ctx();
      Inst &inst = out[s];
      reason_keys_.clear();
      uint64_t &leaves = inst.leaves;
      enumerate(chain, 0, Mult{}, leaves,
                [&](const Mult &m) {
                  inst.sum.min = sat_add(inst.sum.min, m.min);
                  inst.sum.value = sat_add(inst.sum.value, m.value);
                  inst.sum.max = sat_add(inst.sum.max, m.max);
                  inst.sum.exact = inst.sum.exact && m.exact;
                  inst.sum.known = inst.sum.known && m.known;
                  if (!with_samples) return;
                  Sample smp = sample(r);
                  inst.taint |= smp.taint;
                  inst.bytes.add(smp.bytes, m);
                  inst.elements.add(smp.elements, m);
                  inst.flop.add(smp.flop, m);
                  inst.repeats.add(smp.repeats, m);
                  inst.masked.add(smp.masked, m);
                  inst.packets.add(smp.packets, m);
                  Quantity issued = Quantity::exact(rec(r).issued_instructions);
                  if (smp.repeats.value) issued.value = std::max<int64_t>(1, (*smp.repeats.value + 254) / 255);
                  inst.issued.add(issued, m);
                  inst.bytes_min.add(smp.bytes, m);
                  inst.flop_min.add(smp.flop, m);
                  inst.repeats_min.add(smp.repeats, m);
                  // An estimated repeat count still issues at least one instruction.
                  inst.issued_min.add(smp.repeats.value && smp.repeats.estimated ? Quantity::exact(1) : issued, m);
                },
                inst.reason, inst.taint);
    }
    return out;
  };
  facts_used_ = 0;
  std::vector<Inst> first = run_block(Interval::point(0));
  RunResult res;
  Mult total{0, 0, 0, true, true};
  std::string reason;
  size_t busiest = 0;
  for (size_t s = 0; s < first.size(); ++s) {
    const Inst &inst = first[s];
    total.min = sat_add(total.min, inst.sum.min);
    total.value = sat_add(total.value, inst.sum.value);
    total.max = sat_add(total.max, inst.sum.max);
    total.exact = total.exact && inst.sum.exact;
    total.known = total.known && inst.sum.known;
    res.taint |= inst.taint;
    if (!inst.reason.empty() && reason.find(inst.reason) == std::string::npos)
      reason += (reason.empty() ? "" : "; ") + inst.reason;
    if (inst.sum.value > first[busiest].sum.value) busiest = s;
  }
  res.block = to_count(total, reason);
  res.instance = to_count(first[busiest].sum, first[busiest].reason);
  auto merge = [&](QSum Inst::*field) {
    QSum acc;
    for (const Inst &inst : first) {
      const QSum &q = inst.*field;
      if (!q.known) {
        acc.known = false;
        acc.reason = q.reason;
      }
      acc.value = sat_add(acc.value, q.value);
      acc.estimated = acc.estimated || q.estimated;
      if (acc.reason.empty()) acc.reason = q.reason;
    }
    return acc.get();
  };
  res.bytes = merge(&Inst::bytes);
  res.elements = merge(&Inst::elements);
  res.flop = merge(&Inst::flop);
  res.repeats = merge(&Inst::repeats);
  res.masked = merge(&Inst::masked);
  res.packets = merge(&Inst::packets);
  res.issued = merge(&Inst::issued);
  res.bytes_i = first[busiest].bytes.get();
  res.flop_i = first[busiest].flop.get();
  res.repeats_i = first[busiest].repeats.get();
  res.issued_i = first[busiest].issued.get();
  if (res.taint & kTBlock) res.block.block_dependent = res.instance.block_dependent = true;
  const bool dependent = (res.taint & kTBlock) != 0;
  // The guaranteed minimum over every block: block 0's when nothing depends on the block index,
  // else the smallest over the enumerated blocks or, failing that, with the block index as an interval.
  BlockMins mins = mins_of(first);
  bool mins_enumerated = false;
  // Whole-grid sums.
  if (prog_.blocks) {
    const int64_t G = *prog_.blocks;
    uint64_t leaves0 = 0;
    for (const Inst &inst : first) leaves0 += std::max<uint64_t>(1, inst.leaves);
    const bool enumerable = dependent && (res.taint & kTUnresolved) == 0 &&
                            static_cast<uint64_t>(G) * leaves0 <= opts_.grid_budget;
    auto count_q = [](const Count &c) {
      Quantity q;
      if (!c.known) {
        q.reason = c.reason;
        return q;
      }
      q.value = c.value;
      q.estimated = !c.exact;
      q.reason = c.reason;
      return q;
    };
    auto scale_q = [&](const Quantity &q) {
      Quantity out = q;
      if (q.value) {
        int64_t v = 0;
        if (__builtin_mul_overflow(*q.value, G, &v)) v = kInf;
        out.value = v;
      }
      if (dependent) {
        out.estimated = true;
        out.reason = "depends on the block index and could not be summed over every block: block 0 times the block count";
      }
      return out;
    };
    if (enumerable) {
      mins_enumerated = true;
      QSum cnt, bytes, flop, repeats, issued;
      for (int64_t b = 0; b < G; ++b) {
        std::vector<Inst> per = b == 0 ? first : run_block(Interval::point(b));
        if (b > 0) mins.keep_smaller(mins_of(per));
        for (const Inst &inst : per) {
          Mult m = inst.sum;
          cnt.add(Quantity::exact(1), m);
          if (!with_samples) continue;
          Mult one{1, 1, 1, true, true};
          bytes.add(inst.bytes.get(), one);
          flop.add(inst.flop.get(), one);
          repeats.add(inst.repeats.get(), one);
          issued.add(inst.issued.get(), one);
        }
      }
      res.count_grid = cnt.get();
      if (with_samples) {
        res.bytes_grid = bytes.get();
        res.flop_grid = flop.get();
        res.repeats_grid = repeats.get();
        res.issued_grid = issued.get();
      }
    } else {
      res.count_grid = scale_q(count_q(res.block));
      if (with_samples) {
        res.bytes_grid = scale_q(res.bytes);
        res.flop_grid = scale_q(res.flop);
        res.repeats_grid = scale_q(res.repeats);
        res.issued_grid = scale_q(res.issued);
      }
    }
  }
  // Nothing to lower when block 0 already guarantees nothing.
  const bool all_zero = mins.count == 0 && (!mins.bytes.ok || mins.bytes.value == 0) &&
                        (!mins.flop.ok || mins.flop.value == 0) && (!mins.repeats.ok || mins.repeats.value == 0) &&
                        (!mins.issued.ok || mins.issued.value == 0);
  if (dependent && !mins_enumerated && !all_zero) mins.keep_smaller(mins_of(run_block(block_any_)));
  res.mins.count = mins.count;
  res.mins.bytes = mins.bytes.get();
  res.mins.flop = mins.flop.get();
  res.mins.repeats = mins.repeats.get();
  res.mins.issued = mins.issued.get();
  if (res.block.block_dependent) {
    if (prog_.blocks && *prog_.blocks > 1) {
      std::vector<Inst> last = run_block(Interval::point(*prog_.blocks - 1));
      int64_t last_value = 0;
      for (const Inst &inst : last) last_value = sat_add(last_value, inst.sum.value);
      res.block.last_block = last_value;
      if (last_value != res.block.value) {
        res.block.exact = false;
        std::string why = "depends on the block index: block 0 runs " + std::to_string(res.block.value) +
                          " times, the last block " + std::to_string(last_value);
        res.block.reason += (res.block.reason.empty() ? "" : "; ") + why;
        res.instance.exact = false;
        res.instance.reason += (res.instance.reason.empty() ? "" : "; ") + why;
      }
    } else if (res.block.exact) {
      res.block.exact = res.instance.exact = false;
      std::string why = "depends on the block index (value for block 0; the grid is unknown)";
      res.block.reason = res.instance.reason = why;
    }
  }
  if (mins.count < res.block.min) {
    res.block.min = mins.count;
    if (res.block.exact) {
      res.block.exact = false;
      res.block.reason = "depends on the block index: the fewest executions over every block is " + std::to_string(mins.count);
    }
  }
  res.facts = facts_used_;
  return res;
}

void FunctionAnalyzer::compute_representative(uint32_t r) {
  ctx_.block = Interval::point(0);
  ctx_.sub = Interval::point(0);
  ctx_.iv.assign(loops_.size(), std::nullopt);
  touch_ctx();
  uint8_t taint = 0;
  bind_first_iterations(chain_of(record_path_[r - first_record_]), taint);
  Sample smp = sample(r);
  OpRecord &record = rec(r);
  auto put = [&](Quantity &field, const Quantity &q, const char *name) {
    field = q;
    if (q.value && q.estimated) record.estimated_fields.emplace_back(name);
  };
  put(record.elements, smp.elements, "elements");
  put(record.bytes, smp.bytes, "bytes");
  put(record.flop, smp.flop, "flop");
  put(record.repeats, smp.repeats, "repeats");
  put(record.masked_lanes, smp.masked, "masked_lanes");
  put(record.packet_bytes, smp.packet_bytes, "packet_bytes");
  put(record.packets, smp.packets, "packets");
  if (smp.repeats.value) record.issued_instructions = static_cast<uint32_t>(std::max<int64_t>(1, (*smp.repeats.value + 254) / 255));
  if ((smp.taint & (kTBlock | kTIV)) && record.elements.value)
    record.notes.push_back("per-execution values are for block 0 at the first iteration; per-block totals sum every enumerated execution");
}

void FunctionAnalyzer::compute_counts() {
  std::map<int32_t, RunResult> by_path;
  const auto end = static_cast<uint32_t>(prog_.ops.size());
  for (uint32_t r = first_record_; r < end; ++r) {
    OpDetail &d = detail(r);
    OpRecord &record = rec(r);
    int32_t path = record_path_[r - first_record_];
    RunResult own;
    const RunResult *res_ptr = &own;
    if (d.hivm) {
      compute_representative(r);
      own = run_counts(r, chain_of(path), true);
    } else {
      auto it = by_path.find(path);
      if (it == by_path.end()) it = by_path.emplace(path, run_counts(r, chain_of(path), false)).first;
      res_ptr = &it->second;
    }
    const RunResult &res = *res_ptr;
    if (record.sync && d.event != kNone) {
      // The values a dynamic event id takes over the enumerated executions.
      std::set<int64_t> seen;
      bool all_exact = true;
      ctx_.block = Interval::point(0);
      ctx_.sub = Interval::point(0);
      ctx_.iv.assign(loops_.size(), std::nullopt);
      touch_ctx();
      uint64_t leaves = 0;
      std::string reason;
      uint8_t taint = 0;
      enumerate(chain_of(path), 0, Mult{}, leaves,
                [&](const Mult &) {
                  Eval e = eval(d.event);
                  if (e.iv.exact()) seen.insert(e.iv.lo);
                  else all_exact = false;
                },
                reason, taint);
      if (all_exact && !seen.empty() && seen.size() <= 16) rec(r).sync->event_values.assign(seen.begin(), seen.end());
    }
    OpRecord &rr = rec(r);
    rr.count = res.block;
    rr.count_instance = res.instance;
    rr.count_grid = res.count_grid;
    rr.block_min.count = res.block.min;
    rr.facts |= res.facts;
    if (d.hivm) {
      rr.block_min.bytes = res.mins.bytes;
      rr.block_min.flop = res.mins.flop;
      rr.block_min.repeats = res.mins.repeats;
      rr.block_min.issued = res.mins.issued;
      rr.bytes_block = res.bytes;
      rr.elements_block = res.elements;
      rr.flop_block = res.flop;
      rr.repeats_block = res.repeats;
      rr.masked_block = res.masked;
      rr.packets_block = res.packets;
      rr.bytes_instance = res.bytes_i;
      rr.flop_instance = res.flop_i;
      rr.repeats_instance = res.repeats_i;
      rr.issued_block = res.issued;
      rr.issued_instance = res.issued_i;
      rr.bytes_grid = res.bytes_grid;
      rr.flop_grid = res.flop_grid;
      rr.repeats_grid = res.repeats_grid;
      rr.issued_grid = res.issued_grid;
    }
    (void)record;
  }
}

}  // namespace

namespace {

Quantity times(const Count &c, int64_t per_exec) {
  Quantity q;
  if (!c.known) {
    q.reason = "execution count unknown: " + c.reason;
    return q;
  }
  q.value = c.value * per_exec;
  if (!c.exact) {
    q.estimated = true;
    q.reason = c.reason;
  }
  return q;
}

Quantity add_q(const Quantity &a, const Quantity &b) {
  Quantity q;
  if (!a.value || !b.value) {
    q.reason = !a.value ? a.reason : b.reason;
    return q;
  }
  q.value = sat_add(*a.value, *b.value);
  q.estimated = a.estimated || b.estimated;
  q.reason = a.estimated ? a.reason : b.reason;
  return q;
}

Quantity times_q(const Quantity &q, int64_t k) {
  Quantity out = q;
  if (q.value) {
    int64_t v = 0;
    if (__builtin_mul_overflow(*q.value, k, &v)) v = kInf;
    out.value = v;
  }
  return out;
}

const char *unit_of_pipe(Pipe p) {
  switch (p) {
    case Pipe::S: return "scalar";
    case Pipe::V: return "vector";
    case Pipe::M: return "cube";
    case Pipe::MTE1: return "mte1";
    case Pipe::MTE2: return "mte2";
    case Pipe::MTE3: return "mte3";
    case Pipe::FIX: return "fixpipe";
    case Pipe::ALL: return "all";
    case Pipe::None: break;
  }
  return "none";
}

std::string fallback_cause(const OpRecord &r, bool extracted) {
  const std::string where = extracted ? " (loop marked {ExtractedLoadOrStore}: an access the compiler could not turn into a DMA or vector op)" : "";
  const bool i64 = r.dtype == "i64";
  const bool is_float = !r.dtype.empty() && (r.dtype[0] == 'f' || r.dtype == "bf16");
  switch (r.cls) {
    case OpClass::ScalarMemory:
      if (r.scalar_kind == "gm_load") return "gather: element-by-element GM load on the scalar unit" + where;
      if (r.scalar_kind == "gm_store") return "scatter: element-by-element GM store on the scalar unit" + where;
      return r.name == "memref.store" ? "element-by-element UB store on the scalar unit" + where
                                      : "element-by-element UB load on the scalar unit" + where;
    case OpClass::ScalarCompare:
      if (r.name == "arith.select") return "mask/select evaluated per element on the scalar unit";
      return std::string(i64 ? "i64" : "i32/index") + " compare per element on the scalar unit";
    case OpClass::ScalarBitwise: return "bit operation per element on PIPE_S";
    case OpClass::ScalarCast: return "integer width conversion per element on the scalar unit";
    case OpClass::AffineIndex: return "address computation (affine.apply) per element on the scalar unit";
    case OpClass::View: return "address computation (memref view) per element on the scalar unit";
    case OpClass::Loop: return "loop control of an element-by-element scalar loop";
    case OpClass::ScalarArith:
      if (is_float) return "floating-point math per element on the scalar unit";
      return std::string(i64 ? "i64" : "i32/index") + " index arithmetic per element on the scalar unit";
    default: return "scalar work inside an element-by-element loop";
  }
}

void FunctionAnalyzer::finish_records() {
  const auto end = static_cast<uint32_t>(prog_.ops.size());
  // Loop records first: iterations are needed for loop-control instructions.
  std::vector<Count> iterations(loops_.size());
  std::vector<Quantity> iterations_grid(loops_.size());
  for (size_t L = 0; L < loops_.size(); ++L) {
    const LoopInfo &loop = loops_[L];
    RunResult it = run_counts(loop.record, chain_of(loop.body_path), false);
    iterations[L] = it.block;
    iterations_grid[L] = it.count_grid;
    rec(loop.record).facts |= it.facts;
    LoopRecord lr;
    lr.function = fn_index_;
    lr.line = loop.line;
    lr.depth = loop.depth;
    lr.entries = rec(loop.record).count;
    lr.iterations = it.block;
    lr.attributes = loop.attributes;
    lr.element_loop = loop.has_scalar_memory && !loop.has_hivm;
    // Trip count per entry, for block 0 at the outer loops' first iterations.
    ctx_.block = Interval::point(0);
    ctx_.sub = Interval::point(0);
    ctx_.iv.assign(loops_.size(), std::nullopt);
    touch_ctx();
    uint8_t taint = 0;
    bind_first_iterations(chain_of(record_path_[loop.record - first_record_]), taint);
    if (loop.unknown_trip) {
      lr.trip.known = false;
      lr.trip.exact = false;
      lr.trip.reason = "trip count unknown (scf.while or unparsed header)";
    } else {
      Eval lb = eval(loop.lb), ub = eval(loop.ub), st = eval(loop.step);
      if (lb.iv.exact() && ub.iv.exact() && st.iv.exact() && st.iv.lo > 0) {
        int64_t trip = ub.iv.lo > lb.iv.lo ? (ub.iv.lo - lb.iv.lo + st.iv.lo - 1) / st.iv.lo : 0;
        lr.trip = Count{true, true, trip, trip, trip, {}, false, std::nullopt};
        if ((lb.taint | ub.taint | st.taint) & (kTBlock | kTIV)) {
          lr.trip.exact = false;
          lr.trip.reason = "bounds depend on the block index or an outer loop: value for block 0 at the first outer iteration";
        }
      } else {
        Mult one{1, 1, 1, true, true};
        std::string reason;
        uint64_t leaves = 0;
        Mult got{0, 0, 0, true, true};
        // Reuse the interval logic on this loop alone.
        std::vector<int32_t> chain = {loop.body_path};
        enumerate(chain, 0, one, leaves,
                  [&](const Mult &m) {
                    got.min = sat_add(got.min, m.min);
                    got.value = sat_add(got.value, m.value);
                    got.max = sat_add(got.max, m.max);
                    got.exact = got.exact && m.exact;
                    got.known = got.known && m.known;
                  },
                  reason, taint);
        lr.trip = to_count(got, reason);
      }
    }
    trip_any(static_cast<uint32_t>(L), lr);
    prog_.loops.push_back(std::move(lr));
  }
  // Ops inside a loop whose trip count nothing here can give: the outermost such loop.
  const size_t loop_base = prog_.loops.size() - loops_.size();
  for (uint32_t r = first_record_; r < end; ++r) {
    uint32_t unknown = 0;
    for (int32_t p = record_path_[r - first_record_]; p >= 0; p = paths_[static_cast<size_t>(p)].parent) {
      const PathNode &node = paths_[static_cast<size_t>(p)];
      if (node.kind == PathNode::Kind::Loop && prog_.loops[loop_base + node.loop].unknown_trip) unknown = node.line;
    }
    rec(r).count.unknown_loop = unknown;
  }
  for (uint32_t r = first_record_; r < end; ++r) {
    OpRecord &record = rec(r);
    OpDetail &d = detail(r);
    if (record.cls == OpClass::Loop) {
      size_t L = 0;
      for (; L < loops_.size(); ++L)
        if (loops_[L].record == r) break;
      if (L < loops_.size()) {
        record.scalar_block = add_q(times(record.count, 1), times(iterations[L], 2));
        record.issued_block = record.scalar_block;
        record.scalar_instance = add_q(times(record.count_instance, 1), times(iterations[L], 2));
        record.issued_instance = record.scalar_instance;
        if (prog_.blocks) {
          record.scalar_grid = add_q(record.count_grid, times_q(iterations_grid[L], 2));
          record.issued_grid = record.scalar_grid;
        }
        record.block_min.scalar = record.block_min.issued =
            sat_add(record.count.min, sat_mul(iterations[L].min, 2));
      }
    } else {
      record.scalar_block = times(record.count, record.scalar_instructions);
      record.scalar_instance = times(record.count_instance, record.scalar_instructions);
      if (!d.hivm) {
        record.issued_block = times(record.count, record.issued_instructions);
        record.issued_instance = times(record.count_instance, record.issued_instructions);
      }
      if (prog_.blocks) {
        record.scalar_grid = times_q(record.count_grid, record.scalar_instructions);
        if (!d.hivm) record.issued_grid = times_q(record.count_grid, record.issued_instructions);
      }
      record.block_min.scalar = sat_mul(record.count.min, record.scalar_instructions);
      if (!d.hivm) record.block_min.issued = sat_mul(record.count.min, record.issued_instructions);
    }
    if (record.cls == OpClass::ScalarMemory) {
      record.block_min.bytes = sat_mul(record.count.min, record.bytes.value.value_or(0));
      record.bytes_block = times(record.count, record.bytes.value.value_or(0));
      record.elements_block = times(record.count, 1);
      if (prog_.blocks) record.bytes_grid = times_q(record.count_grid, record.bytes.value.value_or(0));
    }
    // Eligibility.
    Eligibility &e = record.eligibility;
    e.landed = record.pipes.empty() ? "none" : unit_of_pipe(record.pipes.back());
    switch (record.cls) {
      case OpClass::Cube: e.units = {"cube"}; e.landed = "cube"; break;
      case OpClass::CubeMacro: e.units = {"cube"}; break;
      default: e.units = {is_vector_class(record.cls) ? std::string("vector") : e.landed}; break;
    }
    // Scalar fallbacks: scalar work inside an element-by-element loop.
    bool in_element_loop = false, extracted = false;
    for (int32_t p = record_path_[r - first_record_]; p >= 0; p = paths_[static_cast<size_t>(p)].parent) {
      const PathNode &node = paths_[static_cast<size_t>(p)];
      if (node.kind != PathNode::Kind::Loop) continue;
      const LoopInfo &loop = loops_[node.loop];
      if (loop.has_scalar_memory && !loop.has_hivm) {
        in_element_loop = true;
        extracted = extracted || loop.extracted;
      }
    }
    if (record.cls == OpClass::Loop) {
      for (const LoopInfo &loop : loops_)
        if (loop.record == r && loop.has_scalar_memory && !loop.has_hivm) {
          in_element_loop = true;
          extracted = extracted || loop.extracted;
        }
    }
    const bool scalar_work = record.cls == OpClass::ScalarArith || record.cls == OpClass::ScalarCompare ||
                             record.cls == OpClass::ScalarBitwise || record.cls == OpClass::ScalarCast ||
                             record.cls == OpClass::AffineIndex || record.cls == OpClass::ScalarMemory ||
                             (record.cls == OpClass::View && record.scalar_instructions > 0) ||
                             record.cls == OpClass::Loop;
    if (in_element_loop && scalar_work) {
      e.fallback = true;
      e.landed = "scalar";
      if (record.cls == OpClass::ScalarMemory && record.scalar_kind == "gm_load") e.units = {"mte2", "vector", "scalar"};
      else if (record.cls == OpClass::ScalarMemory) e.units = {"vector", "mte3", "scalar"};
      else e.units = {"vector", "scalar"};
      e.cause = fallback_cause(record, extracted);
      Finding f;
      f.op = r;
      f.line = record.line;
      f.op_name = record.name;
      f.cause = e.cause;
      f.count_per_block = record.count.value;
      f.count_exact = record.count.exact;
      prog_.fallbacks.push_back(std::move(f));
    }
    // Estimates and unresolved quantities.
    for (const std::string &field : record.estimated_fields) {
      EstimateNote n;
      n.op = r;
      n.line = record.line;
      n.field = field;
      const Quantity *q = field == "bytes"          ? &record.bytes
                          : field == "elements"     ? &record.elements
                          : field == "flop"         ? &record.flop
                          : field == "repeats"      ? &record.repeats
                          : field == "masked_lanes" ? &record.masked_lanes
                          : field == "packet_bytes" ? &record.packet_bytes
                                                    : &record.packets;
      n.value = q->value ? std::to_string(*q->value) : "null";
      n.reason = q->reason;
      prog_.estimates.push_back(std::move(n));
    }
    if (!record.count.exact && record.count.known) {
      prog_.estimates.push_back({r, record.line, "count", std::to_string(record.count.value) + " (min " +
                                                              std::to_string(record.count.min) + ", max " +
                                                              fmt_count(record.count.max) + ")",
                                 record.count.reason});
    }
    if (!record.count.known) prog_.unresolved.push_back({r, record.line, "count", "null", record.count.reason});
    if (d.hivm && record.modelled) {
      auto unresolved = [&](const Quantity &q, const char *name) {
        if (!q.value && !q.reason.empty()) prog_.unresolved.push_back({r, record.line, name, "null", q.reason});
      };
      if (record.cls == OpClass::Dma) {
        unresolved(record.bytes, "bytes");
        unresolved(record.packet_bytes, "packet_bytes");
      } else if (record.cls == OpClass::Cube) {
        unresolved(record.flop, "flop");
      } else {
        unresolved(record.repeats, "repeats");
      }
    }
  }
}

void FunctionAnalyzer::resolve_args() {
  FunctionRecord &fr = prog_.functions[fn_index_];
  // Grid arguments: the factors of the value annotated {logical_block_num}.
  std::vector<uint32_t> grid_args;
  std::function<void(ValueId, int)> leaves = [&](ValueId v, int depth) {
    if (v == kNone || depth > 8) return;
    const Value &val = values_[v];
    if (val.kind == VKind::Arg) grid_args.push_back(static_cast<uint32_t>(val.c));
    else if (val.kind == VKind::Binary && static_cast<BinOp>(val.op) == BinOp::Mul) {
      leaves(val.a, depth + 1);
      leaves(val.b, depth + 1);
    } else if (val.kind == VKind::Cast) {
      leaves(val.a, depth + 1);
    }
  };
  leaves(logical_block_num_, 0);
  static const char *kAxis[] = {"grid_x", "grid_y", "grid_z"};
  arg_launch_.assign(fr.args.size(), std::nullopt);
  for (size_t axis = 0; axis < grid_args.size() && axis < 3; ++axis) {
    uint32_t idx = grid_args[axis];
    if (idx >= fr.args.size()) continue;
    fr.args[idx].role = kAxis[axis];
    if (opts_.have_launch) {
      int64_t g = axis < opts_.grid.size() ? opts_.grid[axis] : 1;
      fr.args[idx].value = static_cast<double>(g);
      fr.args[idx].value_source = "launch.grid[" + std::to_string(axis) + "]";
      arg_launch_[idx] = g;
    }
  }
  int64_t triton = 0;
  for (size_t idx = 0; idx < fr.args.size(); ++idx) {
    FunctionArg &a = fr.args[idx];
    if (a.role == "ffts_base_address" || a.role == "sync_block_lock" || a.role == "workspace" ||
        a.role.substr(0, 5) == "grid_")
      continue;
    a.triton_index = triton++;
    for (const std::string &key : {"%arg" + std::to_string(*a.triton_index), std::to_string(*a.triton_index)}) {
      auto it = opts_.args.find(key);
      if (it == opts_.args.end()) continue;
      a.value = it->second;
      a.value_source = "launch.args[\"" + key + "\"]";
      if (std::floor(it->second) == it->second) arg_launch_[idx] = static_cast<int64_t>(it->second);
      break;
    }
  }
  // Tensor contents the user gave, by Triton position.
  arg_data_.assign(fr.args.size(), -1);
  data_range_.clear();
  for (size_t f = 0; f < opts_.data.size(); ++f) {
    const DataFact &d = opts_.data[f];
    if (d.values.empty()) throw FactError("launch data.\"" + d.key + "\": no elements given");
    Interval range{Interval::kPosInf, Interval::kNegInf};
    for (int64_t v : d.values) range = {std::min(range.lo, v), std::max(range.hi, v)};
    data_range_.push_back(range);
    std::string_view key = d.key;
    if (key.substr(0, 4) == "%arg") key.remove_prefix(4);
    auto position = parse_int(key);
    if (!position || key.empty() || key[0] == '-') {
      std::string warning = "launch data key '" + d.key +
                            "' is not a Triton position: HIVM carries no argument names, so it is not used here "
                            "(key tensors by position, \"N\" or \"%argN\")";
      if (std::find(prog_.warnings.begin(), prog_.warnings.end(), warning) == prog_.warnings.end())
        prog_.warnings.push_back(warning);
      continue;
    }
    size_t idx = 0;
    while (idx < fr.args.size() && fr.args[idx].triton_index != *position) ++idx;
    if (idx == fr.args.size())
      throw FactError("launch data.\"" + d.key + "\": " + fr.name + " has no Triton argument " + std::to_string(*position) +
                      " (" + std::to_string(triton) + " positions)");
    if (values_[arg_values_[idx]].type.kind != Type::Kind::Memref)
      throw FactError("launch data.\"" + d.key + "\": Triton argument " + std::to_string(*position) + " of " + fr.name +
                      " (" + fr.args[idx].name + ": " + fr.args[idx].type + ") is a scalar, not a tensor");
    arg_data_[idx] = static_cast<int32_t>(f);
  }
  // Trip facts, by the line of their loop.
  loop_fact_.assign(loops_.size(), -1);
  for (size_t L = 0; L < loops_.size(); ++L)
    for (size_t f = 0; f < opts_.trips.size(); ++f)
      if (opts_.trips[f].line == loops_[L].line) loop_fact_[L] = static_cast<int32_t>(f);
  if (prog_.blocks) block_any_ = Interval::range(0, std::max<int64_t>(0, *prog_.blocks - 1));
}

void FunctionAnalyzer::run(FunctionView &view) {
  fn_index_ = static_cast<uint32_t>(prog_.functions.size());
  prog_.functions.emplace_back();
  FunctionRecord &fr = prog_.functions.back();
  fr.index = fn_index_;
  fr.line = func_.line;
  fr.end_line = func_.end_line;
  fr.dump_header = std::string(fctx_.dump_header);
  TokSpan s = tokens_of(func_);
  TokSpan attrs;
  std::vector<BlockArg> sig_args;
  std::vector<TokSpan> arg_attrs;
  if (func_.generic) {
    GenericParts g = generic_parts(func_);
    if (auto name = named_attr(g.props, "sym_name")) fr.name = "@" + std::string((*name)[0].text.substr(1, (*name)[0].text.size() - 2));
    else if (auto name2 = named_attr(g.attrs, "sym_name")) fr.name = "@" + std::string((*name2)[0].text.substr(1, (*name2)[0].text.size() - 2));
    attrs = g.attrs;
    if (!func_.regions.empty() && !func_.regions[0].blocks.empty()) sig_args = func_.regions[0].blocks[0].args;
    arg_attrs.resize(sig_args.size());
  } else {
    size_t at = 0;
    while (at < s.size() && s[at].kind != Tok::AtId) ++at;
    if (at < s.size()) fr.name = std::string(s[at].text);
    if (at + 1 < s.size() && s[at + 1].kind == Tok::LParen)
      if (auto g = group_at(s, at + 1)) {
        for (TokSpan entry : split_top(g->first, Tok::Comma)) {
          if (entry.size() < 3 || entry[0].kind != Tok::PercentId) continue;
          BlockArg a;
          a.name = entry[0].text;
          a.line = entry[0].line;
          TokSpan type = entry.from(2);
          TokSpan attr;
          if (auto brace = find_top(type, Tok::LBrace)) {
            if (auto ag = group_at(type, *brace)) attr = ag->first;
            type = type.sub(0, *brace);
          }
          if (auto loc = find_loc(type)) type = type.sub(0, *loc);
          a.type = type.text();
          sig_args.push_back(a);
          arg_attrs.push_back(attr);
        }
      }
    if (auto kw = find_word(s, "attributes"))
      if (*kw + 1 < s.size() && s[*kw + 1].kind == Tok::LBrace)
        if (auto g = group_at(s, *kw + 1)) attrs = g->first;
  }
  if (fr.name.empty()) fr.name = "@<unnamed>";
  if (auto core = named_attr(attrs, "hivm.func_core_type")) {
    std::string_view w = enum_word(core->from(core->size() > 1 ? 1 : 0));
    if (w == "func_core_type") w = enum_word(core->from(2));
    for (size_t idx = 0; idx < core->size(); ++idx)
      if ((*core)[idx].kind == Tok::BareId) w = (*core)[idx].text;
    if (w == "AIC") fr.core = CoreType::AIC;
    else if (w == "AIV") fr.core = CoreType::AIV;
    fr.core_source = "hivm.func_core_type = " + std::string(w);
    if (w == "MIX") fr.core_source += " (not split into AIC/AIV parts)";
  }
  if (fr.core == CoreType::Unknown) {
    if (fr.name.size() > 8 && fr.name.substr(fr.name.size() - 8) == "_mix_aic") {
      fr.core = CoreType::AIC;
      fr.core_source = "function name suffix _mix_aic";
    } else if (fr.name.size() > 8 && fr.name.substr(fr.name.size() - 8) == "_mix_aiv") {
      fr.core = CoreType::AIV;
      fr.core_source = "function name suffix _mix_aiv";
    }
  }
  if (auto mm = named_attr(attrs, "mix_mode"); mm && !mm->empty() && (*mm)[0].kind == Tok::String)
    fr.mix_mode = std::string((*mm)[0].text.substr(1, (*mm)[0].text.size() - 2));
  const bool part_of_mix = named_attr(attrs, "hivm.part_of_mix").has_value() || fr.mix_mode == "mix";
  if (part_of_mix && fr.core != CoreType::Unknown) fr.mix_part = core_name(fr.core);
  instances_ = (part_of_mix && fr.core == CoreType::AIV) ? std::max<uint32_t>(1, opts_.vector_cores_per_cube_core) : 1;
  fr.instances_per_block = instances_;

  // Arguments.
  push_scope();
  for (size_t idx = 0; idx < sig_args.size(); ++idx) {
    FunctionArg fa;
    fa.name = std::string(sig_args[idx].name);
    fa.type = std::string(sig_args[idx].type);
    Value v;
    v.kind = VKind::Arg;
    v.c = static_cast<int64_t>(idx);
    v.type = parse_type(sig_args[idx].type, &aliases_);
    if (auto role = named_attr(arg_attrs[idx], "hacc.arg_type")) {
      std::string_view w;
      for (size_t t = 0; t < role->size(); ++t)
        if ((*role)[t].kind == Tok::BareId) w = (*role)[t].text;
      fa.role = std::string(w);
    }
    if (fa.role.empty()) fa.role = v.type.kind == Type::Kind::Memref ? "pointer" : "scalar";
    if (v.type.kind == Type::Kind::Memref) {
      MemrefInfo info = static_memref_info(v.type);
      BufferRef root;
      root.kind = BufferRef::Kind::Arg;
      root.space = v.type.space == Space::Unknown ? Space::GM : v.type.space;
      root.id = static_cast<uint32_t>(idx);
      if (fa.role == "workspace") {
        root.kind = BufferRef::Kind::Workspace;
        root.base0 = 0;
        root.bytes = -1;
      }
      info.roots.push_back(root);
      v.mem = new_mem(std::move(info));
    }
    fr.args.push_back(std::move(fa));
    ValueId id = add_value(std::move(v));
    arg_values_.push_back(id);
    define(sig_args[idx].name, id);
  }
  first_record_ = static_cast<uint32_t>(prog_.ops.size());
  PathNode root;
  root.kind = PathNode::Kind::Root;
  int32_t root_path = add_path(std::move(root));
  if (!func_.regions.empty()) {
    const Region &body = func_.regions[0];
    if (body.blocks.size() > 1)
      prog_.warnings.push_back(fr.name + " (line " + std::to_string(fr.line) + ") has " +
                               std::to_string(body.blocks.size()) +
                               " blocks: ops in every block are counted as executed once");
    for (size_t bi = 0; bi < body.blocks.size(); ++bi) {
      const Block &block = body.blocks[bi];
      if (bi > 0 || !func_.generic) {
        if (bi > 0)
          for (const BlockArg &arg : block.args) {
            Value v;
            v.type = parse_type(arg.type, &aliases_);
            define(arg.name, add_value(std::move(v)));
          }
      }
      for (const Op &op : block.ops) handle(op, root_path);
    }
  }
  pop_scope();
  // Core type from the pipes used when the function does not say.
  if (prog_.functions[fn_index_].core == CoreType::Unknown && prog_.functions[fn_index_].core_source.empty()) {
    bool cube = false, vec = false;
    for (uint32_t r = first_record_; r < prog_.ops.size(); ++r)
      for (Pipe p : prog_.ops[r].pipes) {
        cube = cube || p == Pipe::M || p == Pipe::MTE1 || p == Pipe::FIX;
        vec = vec || p == Pipe::V || p == Pipe::MTE3;
      }
    FunctionRecord &f2 = prog_.functions[fn_index_];
    if (cube != vec) {
      f2.core = cube ? CoreType::AIC : CoreType::AIV;
      f2.core_source = "inferred from the pipes used (InferCoreType.cpp rule)";
      for (uint32_t r = first_record_; r < prog_.ops.size(); ++r) prog_.ops[r].core = f2.core;
    } else {
      f2.core_source = cube ? "uses both cube-only and vector-only pipes" : "no core type attribute and no core-specific pipe";
    }
  }
  resolve_args();
  compute_counts();
  finish_records();
  finish_function(view);
  for (const auto &[name, n] : histogram_) prog_.histogram[std::string(name)] += n;
}

void FunctionAnalyzer::finish_function(FunctionView &view) {
  FunctionRecord &fr = prog_.functions[fn_index_];
  const auto end = static_cast<uint32_t>(prog_.ops.size());
  if (end > first_record_) {
    fr.first_op = first_record_;
    fr.last_op = end - 1;
  }
  if (logical_block_num_ != kNone) {
    ctx_.block = Interval::point(0);
    ctx_.iv.assign(loops_.size(), std::nullopt);
    touch_ctx();
    Eval e = eval(logical_block_num_);
    if (e.iv.exact()) {
      fr.block_num = Count{true, true, e.iv.lo, e.iv.lo, e.iv.lo, {}, false, std::nullopt};
    } else {
      fr.block_num.known = false;
      fr.block_num.exact = false;
      fr.block_num.reason = "the product of grid arguments; give launch.grid";
    }
  } else {
    fr.block_num.known = false;
    fr.block_num.exact = false;
    fr.block_num.reason = "no {logical_block_num} annotation in this function";
  }
  // Instructions per iteration of each loop (nested loops included).
  size_t loop_base = prog_.loops.size() - loops_.size();
  for (size_t L = 0; L < loops_.size(); ++L) {
    LoopRecord &lr = prog_.loops[loop_base + L];
    const LoopInfo &loop = loops_[L];
    uint32_t body_begin = 0, body_end = 0;
    for (const FunctionView::LoopSpan &span : loop_spans_)
      if (span.op == loop.record) {
        body_begin = span.body_begin;
        body_end = span.body_end;
      }
    lr.iv = std::to_string(loop.line);
    if (lr.iterations.value > 0) {
      long double scalar = 0, issued = 0;
      // The loop's own control (1 per entry + 2 per iteration) counts towards its iterations.
      for (uint32_t r = loop.record; r < body_end; ++r) {
        if (r < body_begin && r != loop.record) continue;
        const OpRecord &op = prog_.ops[r];
        if (op.scalar_block.value) scalar += static_cast<long double>(*op.scalar_block.value);
        if (op.issued_block.value) issued += static_cast<long double>(*op.issued_block.value);
      }
      lr.body_scalar_instructions = static_cast<uint64_t>(std::llround(scalar / lr.iterations.value));
      lr.body_issued_instructions = static_cast<uint64_t>(std::llround(issued / lr.iterations.value));
    }
  }
  view.function = fn_index_;
  view.first_op = first_record_;
  view.end_op = end;
  view.loops = loop_spans_;
  view.innermost_loop.assign(end - first_record_, -1);
  std::vector<int32_t> span_of_loop(loops_.size(), -1);
  for (size_t L = 0; L < loops_.size(); ++L)
    for (size_t sp = 0; sp < loop_spans_.size(); ++sp)
      if (loop_spans_[sp].op == loops_[L].record) span_of_loop[L] = static_cast<int32_t>(sp);
  for (uint32_t r = first_record_; r < end; ++r) {
    int32_t L = loop_of_record_[r - first_record_];
    view.innermost_loop[r - first_record_] = L >= 0 ? span_of_loop[static_cast<size_t>(L)] : -1;
  }
}

}  // namespace

Program start_program(const AnalysisOptions &options) {
  Program prog;
  prog.vector_repeat_bytes = options.vector_repeat_bytes;
  prog.vector_repeat_source = options.vector_repeat_source;
  if (options.have_launch && !options.grid.empty()) {
    int64_t blocks = 1;
    for (int64_t g : options.grid) blocks *= g;
    prog.blocks = blocks;
    prog.grid = options.grid;
    prog.blocks_source = "launch.grid product";
  }
  return prog;
}

namespace {

Program analyze_once(std::string_view text, const AnalysisOptions &options) {
  Program prog = start_program(options);
  FileReader reader(text);
  prog.ops.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 16);
  std::deque<std::string> owned_names;
  std::vector<std::pair<uint32_t, std::string_view>> pending_locs;
  std::vector<FunctionView> views;
  reader.read([&](const Op &func, const FunctionContext &fctx) {
    if (!options.kernel.empty()) {
      std::string_view name;
      for (const Token &t : func.tokens)
        if (t.kind == Tok::AtId) {
          name = t.text.substr(1);
          break;
        }
      if (name.substr(0, options.kernel.size()) != options.kernel) return;
    }
    FunctionAnalyzer analyzer(func, fctx, options, reader.aliases(), prog, owned_names, pending_locs);
    FunctionView view;
    analyzer.run(view);
    views.push_back(std::move(view));
  });
  if (prog.functions.empty())
    throw SourceError(1, 1, "no function named '" + options.kernel + "...' in the dump (launch.kernel)");
  prog.lines_total = reader.line_count() > 0 ? reader.line_count() - 1 : 0;
  prog.warnings.insert(prog.warnings.end(), reader.warnings().begin(), reader.warnings().end());  // verify.hpp
  for (const auto &[record, loc_text] : pending_locs) {
    Lexer lex(loc_text);
    std::vector<Token> toks;
    for (Token t = lex.next(); t.kind != Tok::Eof && toks.size() < 4096; t = lex.next()) toks.push_back(t);
    prog.ops[record].loc = location_of({toks.data(), toks.data() + toks.size()}, reader.aliases());
  }
  for (const TopLevelLine &l : reader.lines()) {
    if (l.kind == TopLevelLine::Kind::DumpHeader) {
      prog.dump_headers.emplace_back(l.text);
    } else {
      if (l.kind == TopLevelLine::Kind::Diagnostic) ++prog.diagnostics_lines;
      ++prog.skipped_lines;
      if (prog.diagnostics.size() < 64) prog.diagnostics.emplace_back(l.line, std::string(l.text));
    }
  }
  for (const auto &[name, line] : reader.declarations())
    prog.warnings.push_back("function declaration " + std::string(name) + " (line " + std::to_string(line) +
                            ") has no body: skipped");
  // Block count without a launch grid.
  if (!prog.blocks) {
    for (const FunctionRecord &f : prog.functions)
      if (f.block_num.known) {
        prog.blocks = f.block_num.value;
        prog.blocks_source = "logical_block_num annotation in " + f.name;
      }
    if (!prog.blocks) {
      std::string which;
      for (const FunctionRecord &f : prog.functions)
        if (!f.logical_block_num.empty()) which = f.logical_block_num + " in " + f.name;
      prog.blocks_reason = which.empty()
                               ? "no launch grid and no {logical_block_num} annotation"
                               : "no launch grid: the block count is the product of the grid arguments (" + which + ")";
    }
  }
  // Launch arguments that matched nothing.
  for (const auto &[key, value] : options.args) {
    bool used = false;
    for (const FunctionRecord &f : prog.functions)
      for (const FunctionArg &a : f.args)
        if (a.value_source.find("\"" + key + "\"") != std::string::npos) used = true;
    if (!used) {
      // Name the positions, since the dump's own %argN count the hidden
      // hacc arguments too and are not Triton positions.
      std::string positions;
      for (const FunctionRecord &f : prog.functions)
        for (const FunctionArg &a : f.args)
          if (a.triton_index && positions.find(" " + a.name + ")") == std::string::npos)
            positions += (positions.empty() ? "" : ", ") + std::to_string(*a.triton_index) + " (" + a.role + " " +
                         a.name + ")";
      prog.warnings.push_back("launch argument '" + key +
                              "' matches no HIVM argument (HIVM carries no argument names: key scalars by their "
                              "Triton position, \"%argN\" or \"N\", which is not the dump's own %argN; positions: " +
                              (positions.empty() ? std::string("none") : positions) + ")");
    }
  }
  // Unmodelled ops.
  std::map<std::string, Unmodelled> unmodelled;
  for (const OpRecord &r : prog.ops) {
    if (r.modelled) continue;
    Unmodelled &u = unmodelled[r.name];
    u.op = r.name;
    ++u.count;
    if (u.lines.size() < 32) u.lines.push_back(r.line);
    if (u.reason.empty())
      u.reason = !r.unresolved_pipe.empty() ? r.unresolved_pipe : (r.notes.empty() ? "not modelled" : r.notes[0]);
  }
  for (auto &[name, u] : unmodelled) prog.unmodelled.push_back(std::move(u));
  analyze_sync(prog, views);
  return prog;
}

std::string trip_fact_json(const TripFact &f) {
  std::string out = "{";
  auto put = [&](const char *name, const std::string &value) {
    out += (out.size() > 1 ? "," : "") + std::string("\"") + name + "\":" + value;
  };
  if (f.min) put("min", std::to_string(*f.min));
  if (f.max) put("max", std::to_string(*f.max));
  if (f.sum) {
    put("sum", std::to_string(*f.sum));
    put("over", f.sum_over_grid ? "\"grid\"" : "\"block\"");
  }
  return out + "}";
}

std::string data_fact_json(const DataFact &f) {
  std::string out = "{\"elements\":" + std::to_string(f.values.size());
  if (f.source != "inline") {
    std::string path;
    for (char c : f.source) {
      if (c == '"' || c == '\\') path += '\\';
      path += c;
    }
    out += ",\"npy\":\"" + path + "\"";
  } else if (f.values.size() <= 64) {
    out += ",\"values\":[";
    for (size_t k = 0; k < f.values.size(); ++k) out += (k ? "," : "") + std::to_string(f.values[k]);
    out += "]";
  }
  return out + "}";
}

/// Refuses trips facts the IR contradicts: no loop on the line, or a trip count it cannot reach.
void check_trip_facts(const Program &strict, const AnalysisOptions &options) {
  for (const TripFact &f : options.trips) {
    const LoopRecord *loop = nullptr;
    for (const LoopRecord &l : strict.loops)
      if (l.line == f.line) loop = &l;
    const std::string key = "launch trips.\"" + f.key + "\"";
    if (loop == nullptr)
      throw SourceError(f.line, 1, key + ": no scf.for on line " + std::to_string(f.line) + " of the dump");
    if (f.min && loop->trip_max_any != kInf && *f.min > loop->trip_max_any)
      throw SourceError(f.line, 1, key + ": min = " + std::to_string(*f.min) + " cannot hold: the loop runs at most " +
                                       std::to_string(loop->trip_max_any) + " times per entry");
    if (f.max && *f.max < loop->trip_min_any)
      throw SourceError(f.line, 1, key + ": max = " + std::to_string(*f.max) + " cannot hold: the loop runs at least " +
                                       std::to_string(loop->trip_min_any) + " times per entry");
    if (f.min && f.max && *f.min > *f.max)
      throw SourceError(f.line, 1, key + ": min = " + std::to_string(*f.min) + " is above max = " + std::to_string(*f.max));
    if (f.sum && !f.sum_over_grid && *f.sum < loop->iterations.min)
      throw SourceError(f.line, 1, key + ": sum = " + std::to_string(*f.sum) + " per block cannot hold: the loop runs at least " +
                                       std::to_string(loop->iterations.min) + " iterations in every block");
  }
}

}  // namespace

Program analyze_text(std::string_view text, const AnalysisOptions &options) {
  if (!options.has_facts()) return analyze_once(text, options);
  if (options.trips.size() + options.data.size() > 64)
    throw FactError("launch: at most 64 trips and data facts together");
  // The strict records first (no facts), then the same records under the facts.
  AnalysisOptions strict_options = options;
  strict_options.trips.clear();
  strict_options.data.clear();
  Program strict = analyze_once(text, strict_options);
  check_trip_facts(strict, options);
  Program given = analyze_once(text, options);
  auto facts = std::make_shared<GivenFacts>();
  for (const TripFact &f : options.trips) facts->facts.push_back({"trips.\"" + std::to_string(f.line) + "\"", trip_fact_json(f), {f.line}});
  for (const DataFact &f : options.data) {
    GivenFacts::Fact fact{"data.\"" + f.key + "\"", data_fact_json(f), {}};
    const auto index = static_cast<uint32_t>(&f - options.data.data());
    if (auto it = given.data_fact_lines.find(index); it != given.data_fact_lines.end())
      fact.lines.assign(it->second.begin(), it->second.end());
    facts->facts.push_back(std::move(fact));
  }
  for (std::string &w : given.warnings)
    if (std::find(strict.warnings.begin(), strict.warnings.end(), w) == strict.warnings.end())
      strict.warnings.push_back(std::move(w));
  facts->ops = std::move(given.ops);
  strict.given = std::move(facts);
  return strict;
}

}  // namespace pb::hivm
