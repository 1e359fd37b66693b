//===- generator.cpp - random well-formed HIVM programs --------------------===//
#include "generator.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

namespace pb::oracle_test {

uint64_t Choices::below(uint64_t bound) {
  if (bound <= 1) return 0;
  uint64_t x = 0;
  if (from_bytes_) {
    // Two bytes per decision: enough for every bound the generator uses.
    for (int k = 0; k < 2; ++k) x = (x << 8) | (at_ < size_ ? bytes_[at_++] : 0);
  } else {
    state_ += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    x = z ^ (z >> 31);
  }
  return x % bound;
}

namespace {

/// An index value in scope and an interval the generator is sure of.
struct IVal {
  std::string name;
  int64_t lo = 0, hi = 0;
};

/// A memref type as HIVM prints it.
struct MemT {
  std::string elem;
  std::string space;
  std::vector<int64_t> shape;    // -1: '?'
  std::vector<int64_t> strides;  // empty: identity layout
  int64_t offset = 0;            // -1: '?'
  [[nodiscard]] std::string str() const {
    std::string s = "memref<";
    for (int64_t d : shape) s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
    s += elem;
    if (!strides.empty()) {
      s += ", strided<[";
      for (size_t i = 0; i < strides.size(); ++i) s += (i ? ", " : "") + (strides[i] < 0 ? std::string("?") : std::to_string(strides[i]));
      s += "]";
      if (offset != 0) s += ", offset: " + (offset < 0 ? std::string("?") : std::to_string(offset));
      s += ">";
    }
    s += ", #hivm.address_space<" + space + ">>";
    return s;
  }
  [[nodiscard]] std::vector<int64_t> layout() const {
    if (!strides.empty()) return strides;
    std::vector<int64_t> st(shape.size(), 1);
    int64_t run = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      st[d] = run;
      run *= shape[d] < 0 ? 1 : shape[d];
    }
    return st;
  }
};

/// A memref value: its name, its type, and its concrete extents' upper bounds.
struct MVal {
  std::string name;
  MemT type;
  std::vector<int64_t> max_sizes;  // upper bound of each dimension
  size_t depth = 0;                // the scope depth it was defined at
};

enum class CoreKind { AIV, AIC };

int64_t elem_bytes(const std::string &e) {
  if (e == "f32" || e == "i32") return 4;
  if (e == "f16" || e == "bf16" || e == "i16") return 2;
  if (e == "i64") return 8;
  return 1;
}

/// The fixed kernel signature: hidden arguments, nine GM tensors, three i32
/// scalars and three grid arguments (Triton positions 0-8 tensors, 9-11 scalars).
struct Tensor {
  int hivm;    // %argN
  int triton;  // launch position
  std::string elem;
};
const std::vector<Tensor> kTensors = {{3, 0, "f32"},  {4, 1, "f32"},  {5, 2, "f32"}, {6, 3, "f16"}, {7, 4, "bf16"},
                                      {8, 5, "bf16"}, {9, 6, "f32"}, {10, 7, "i32"}, {11, 8, "i64"}};
constexpr int kScalarArg0 = 12;  // %arg12..14, Triton 9..11
constexpr int kGridArg0 = 15;    // %arg15..17
constexpr int64_t kIndexLen = 32;
constexpr int64_t kIndexMax = 6;

std::string header(const std::string &name, const std::string &core, bool mix) {
  std::string s = "func.func @" + name +
                  "(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, "
                  "#hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xi8, "
                  "#hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<workspace>}";
  for (const Tensor &t : kTensors)
    s += ", %arg" + std::to_string(t.hivm) + ": memref<?x" + t.elem +
         ", #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = " + (t.triton == 2 || t.triton == 6 ? "1" : "0") +
         " : i32}";
  for (int k = 0; k < 3; ++k) s += ", %arg" + std::to_string(kScalarArg0 + k) + ": i32";
  for (int k = 0; k < 3; ++k) s += ", %arg" + std::to_string(kGridArg0 + k) + ": i32";
  s += ") attributes {SyncBlockLockArgIdx = 0 : i64, WorkspaceArgIdx = 1 : i64, hacc.entry, hacc.function_kind = "
       "#hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<" +
       core + ">" + (mix ? ", hivm.part_of_mix" : "") + ", mix_mode = \"" + (mix ? "mix" : (core == "AIV" ? "aiv" : "aic")) +
       "\", parallel_mode = \"simd\"} {";
  return s;
}

class Gen {
 public:
  Gen(Choices &c, const GeneratorOptions &o, std::vector<std::string> &lines, int64_t blocks,
      const std::vector<std::pair<int64_t, int64_t>> &scalar_ranges, std::vector<std::string> &features)
      : c_(c), o_(o), lines_(lines), blocks_(blocks), scalar_ranges_(scalar_ranges), features_(features) {}

  void function(const std::string &name, CoreKind core, bool mix, int uid_base);

 private:
  // Output.
  void emit(const std::string &s) { lines_.push_back(std::string(2 * static_cast<size_t>(indent_), ' ') + s); }
  std::string fresh(const std::string &prefix) { return "%" + prefix + std::to_string(uid_++); }
  void feature(const std::string &f) {
    if (std::find(features_.begin(), features_.end(), f) == features_.end()) features_.push_back(f);
  }
  // Values.
  std::string constant(int64_t v) {
    std::string n = fresh("c" + std::string(v < 0 ? "m" : "") + std::to_string(v < 0 ? -v : v) + "_");
    emit(n + " = arith.constant " + std::to_string(v) + " : index");
    return n;
  }
  std::string constant_i64(int64_t v) {
    std::string n = fresh("c" + std::to_string(v) + "_i64_");
    emit(n + " = arith.constant " + std::to_string(v) + " : i64");
    return n;
  }
  void push() { scopes_.emplace_back(); }
  void pop() {
    scopes_.pop_back();
    // Buffers defined in the region just closed are out of scope.
    ub_bufs_.erase(std::remove_if(ub_bufs_.begin(), ub_bufs_.end(), [&](const MVal &b) { return b.depth > scopes_.size(); }),
                   ub_bufs_.end());
  }
  void add(IVal v) { scopes_.back().push_back(std::move(v)); }
  std::vector<IVal> visible() const {
    std::vector<IVal> out;
    for (const auto &s : scopes_) out.insert(out.end(), s.begin(), s.end());
    return out;
  }
  IVal any_value() {
    std::vector<IVal> v = visible();
    if (v.empty() || c_.percent(15)) {
      int64_t k = c_.range(0, 8);
      return {constant(k), k, k};
    }
    return c_.pick(v);
  }
  IVal nonneg_value() {
    std::vector<IVal> v, all = visible();
    for (const IVal &x : all)
      if (x.lo >= 0 && x.hi <= 4096) v.push_back(x);
    if (v.empty() || c_.percent(15)) {
      int64_t k = c_.range(0, 8);
      return {constant(k), k, k};
    }
    return c_.pick(v);
  }
  /// A value in [lo_bound, hi_bound], built from a value in scope.
  IVal clamp(IVal v, int64_t lo_bound, int64_t hi_bound) {
    if (v.hi > hi_bound) {
      std::string n = fresh("mn");
      if (c_.percent(50)) {
        std::string k = constant(hi_bound);
        emit(n + " = arith.minsi " + v.name + ", " + k + " : index");
      } else {
        emit(n + " = affine.min affine_map<()[s0] -> (s0, " + std::to_string(hi_bound) + ")>()[" + v.name + "]");
      }
      v = {n, std::min(v.lo, hi_bound), hi_bound};
    }
    if (v.lo < lo_bound) {
      std::string n = fresh("mx");
      if (c_.percent(50)) {
        std::string k = constant(lo_bound);
        emit(n + " = arith.maxsi " + v.name + ", " + k + " : index");
      } else {
        emit(n + " = affine.max affine_map<()[s0] -> (s0, " + std::to_string(lo_bound) + ")>()[" + v.name + "]");
      }
      v = {n, lo_bound, std::max(v.hi, lo_bound)};
    }
    return v;
  }

  // Statements.
  void block(int depth, int budget);
  void statement(int depth, int &budget);
  void scalar_statement();
  void for_statement(int depth, int &budget);
  void if_statement(int depth, int &budget);
  void while_statement(int depth, int &budget);
  void dma_load();
  void dma_store();
  void vector_op();
  void gather_loop();
  void sync_op();
  void cube_block();
  void workspace_op();
  IVal loop_bound(int64_t lb_hi);
  IVal data_value();

  // Buffers.
  MVal ub_buffer(const std::string &elem, std::vector<int64_t> shape);
  MVal ub_tile(const std::string &elem, const std::vector<int64_t> &shape, bool dynamic_ok, MVal *like);
  std::string gm_view(const Tensor &t, const std::vector<int64_t> &shape, int64_t row_stride, MemT &type);

  Choices &c_;
  const GeneratorOptions &o_;
  std::vector<std::string> &lines_;
  int64_t blocks_;
  const std::vector<std::pair<int64_t, int64_t>> &scalar_ranges_;
  std::vector<std::string> &features_;
  CoreKind core_ = CoreKind::AIV;
  bool mix_ = false;
  int indent_ = 0;
  int uid_ = 0;
  std::vector<std::vector<IVal>> scopes_;
  std::vector<MVal> ub_bufs_;
  int64_t ub_next_ = 0, l1_next_ = 0;
  int events_ = 0;
  size_t pid_index_ = 0;  // the block-derived value loop splits compare with (in the function's scope)
  std::map<std::string, std::vector<std::string>> like_sizes_;  // a dynamic UB view's size operands
};

MVal Gen::ub_buffer(const std::string &elem, std::vector<int64_t> shape) {
  int64_t bytes = elem_bytes(elem);
  for (int64_t d : shape) bytes *= d;
  bytes = (bytes + 31) / 32 * 32;
  if (ub_next_ + bytes > 192 * 1024) ub_next_ = 0;
  const int64_t at = ub_next_;
  ub_next_ += bytes;
  MVal m;
  m.name = fresh("ub");
  m.type = {elem, "ub", shape, {}, 0};
  m.max_sizes = shape;
  m.depth = scopes_.size();
  std::string addr = constant_i64(at);
  emit(m.name + " = hivm.hir.pointer_cast(" + addr + ") : " + m.type.str());
  ub_bufs_.push_back(m);
  return m;
}

/// A UB operand of `shape` (static), possibly a dynamic or strided view of a
/// larger buffer. `like`: reuse its dynamic sizes (operands of one op agree).
MVal Gen::ub_tile(const std::string &elem, const std::vector<int64_t> &shape, bool dynamic_ok, MVal *like) {
  // Reuse a buffer of that type and shape, or make one.
  MVal base;
  std::vector<MVal> same;
  for (const MVal &b : ub_bufs_)
    if (b.type.elem == elem && b.type.shape == shape) same.push_back(b);
  if (!same.empty() && c_.percent(60)) base = c_.pick(same);
  else base = ub_buffer(elem, shape);
  if (like != nullptr && like->max_sizes != shape) like = nullptr;
  const bool dyn = like != nullptr ? std::any_of(like->type.shape.begin(), like->type.shape.end(), [](int64_t d) { return d < 0; })
                                   : dynamic_ok && c_.percent(35);
  if (!dyn) return base;
  // memref.subview %base[0, ...] [sizes] [1, ...]: sizes dynamic (or a smaller static one).
  MVal out;
  out.name = fresh("subview");
  out.type = base.type;
  out.type.strides = base.type.layout();
  out.max_sizes = shape;
  std::vector<std::string> sizes;
  if (like != nullptr) {
    // The same sizes as `like`'s view (recorded in its name list below).
    sizes = like_sizes_[like->name];
  } else {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (c_.percent(40)) {
        sizes.push_back(std::to_string(shape[d]));
        continue;
      }
      IVal v = clamp(nonneg_value(), 0, shape[d]);
      sizes.push_back(v.name);
    }
  }
  std::string offs, szs, strs;
  for (size_t d = 0; d < shape.size(); ++d) {
    offs += (d ? ", " : "") + std::string("0");
    szs += (d ? ", " : "") + sizes[d];
    strs += (d ? ", " : "") + std::string("1");
    out.type.shape[d] = sizes[d][0] == '%' ? -1 : std::stoll(sizes[d]);
  }
  like_sizes_[out.name] = sizes;
  emit(out.name + " = memref.subview " + base.name + "[" + offs + "] [" + szs + "] [" + strs + "] : " + base.type.str() +
       " to " + out.type.str());
  feature("dynamic_vector_sizes");
  return out;
}

std::string Gen::gm_view(const Tensor &t, const std::vector<int64_t> &shape, int64_t row_stride, MemT &type) {
  // offset: a non-negative value times a row stride (block- or loop-dependent).
  IVal base = nonneg_value();
  std::string off = fresh("off");
  const int64_t scale = shape.size() == 2 ? shape[0] * row_stride : shape[0];
  emit(off + " = affine.apply affine_map<()[s0] -> (s0 * " + std::to_string(scale) + ")>()[" + base.name + "]");
  std::string n = fresh("reinterpret_cast");
  type = {t.elem, "gm", shape, shape.size() == 2 ? std::vector<int64_t>{row_stride, 1} : std::vector<int64_t>{1}, -1};
  std::string sizes, strides;
  for (size_t d = 0; d < shape.size(); ++d) {
    sizes += (d ? ", " : "") + std::to_string(shape[d]);
    strides += (d ? ", " : "") + std::to_string(type.strides[d]);
  }
  emit(n + " = memref.reinterpret_cast %arg" + std::to_string(t.hivm) + " to offset: [" + off + "], sizes: [" + sizes +
       "], strides: [" + strides + "] : memref<?x" + t.elem + ", #hivm.address_space<gm>> to " + type.str());
  return n;
}

IVal Gen::data_value() {
  // memref.load from an index tensor (Triton 7: i32, 8: i64) at a position in range.
  const Tensor &t = c_.percent(50) ? kTensors[7] : kTensors[8];
  IVal pos = clamp(nonneg_value(), 0, kIndexLen - 1);
  std::string rc = fresh("reinterpret_cast");
  MemT type{t.elem, "gm", {1}, {1}, -1};
  emit(rc + " = memref.reinterpret_cast %arg" + std::to_string(t.hivm) + " to offset: [" + pos.name +
       "], sizes: [1], strides: [1] : memref<?x" + t.elem + ", #hivm.address_space<gm>> to " + type.str());
  std::string c0 = constant(0);
  std::string v = fresh("ld");
  emit(v + " = memref.load " + rc + "[" + c0 + "] : " + type.str());
  std::string idx = fresh("ldx");
  emit(idx + " = arith.index_cast " + v + " : " + t.elem + " to index");
  feature("data_dependent");
  return {idx, 0, kIndexMax};
}

IVal Gen::loop_bound(int64_t lb_hi) {
  // An upper bound giving at most a few iterations above a lower bound <= lb_hi.
  const int64_t span = c_.range(1, 5);
  switch (c_.below(6)) {
    case 0: {  // block-dependent split: select(pid < k, a, b)
      std::vector<IVal> v = visible();
      IVal pid = v[pid_index_];
      int64_t k = c_.range(0, std::max<int64_t>(1, blocks_ - 1));
      std::string kk = constant(k);
      std::string cmp = fresh("cmp");
      emit(cmp + " = arith.cmpi slt, " + pid.name + ", " + kk + " : index");
      int64_t a = lb_hi + span, b = lb_hi + std::max<int64_t>(0, span - 1);
      std::string ca = constant(a), cb = constant(b);
      std::string s = fresh("sel");
      emit(s + " = arith.select " + cmp + ", " + ca + ", " + cb + " : index");
      feature("select_split");
      return {s, std::min(a, b), std::max(a, b)};
    }
    case 1: {  // argument-dependent
      int k = static_cast<int>(c_.below(3));
      std::string cast = fresh("n");
      emit(cast + " = arith.index_cast %arg" + std::to_string(kScalarArg0 + k) + " : i32 to index");
      IVal v{cast, scalar_ranges_[static_cast<size_t>(k)].first, scalar_ranges_[static_cast<size_t>(k)].second};
      feature("arg_dependent");
      return clamp(v, 0, lb_hi + span);
    }
    case 2: {  // data-dependent
      IVal v = data_value();
      if (c_.percent(50)) return clamp(v, 0, lb_hi + span);
      return v;
    }
    case 3: {  // affine.min tail of a value in scope
      IVal v = nonneg_value();
      std::string n = fresh("tail");
      emit(n + " = affine.min affine_map<()[s0] -> (" + std::to_string(lb_hi + span) + ", s0 + 1)>()[" + v.name + "]");
      feature("affine_min_tail");
      return {n, std::min(lb_hi + span, v.lo + 1), lb_hi + span};
    }
    default: {
      int64_t k = lb_hi + span;
      return {constant(k), k, k};
    }
  }
}

void Gen::scalar_statement() {
  IVal a = any_value();
  IVal b = any_value();
  std::string n = fresh("v");
  switch (c_.below(9)) {
    case 0:
      emit(n + " = arith.addi " + a.name + ", " + b.name + " : index");
      add({n, a.lo + b.lo, a.hi + b.hi});
      return;
    case 1: {
      int64_t k = c_.range(1, 4);
      std::string kk = constant(k);
      emit(n + " = arith.muli " + a.name + ", " + kk + " : index");
      add({n, std::min(a.lo * k, a.hi * k), std::max(a.lo * k, a.hi * k)});
      return;
    }
    case 2: {
      if (a.lo < 0) break;
      int64_t k = c_.range(1, 4);
      std::string kk = constant(k);
      const bool rem = c_.percent(50);
      emit(n + " = arith." + (rem ? "remsi " : "divsi ") + a.name + ", " + kk + " : index");
      add(rem ? IVal{n, 0, k - 1} : IVal{n, a.lo / k, a.hi / k});
      return;
    }
    case 3: {
      const bool mn = c_.percent(50);
      emit(n + " = arith." + (mn ? "minsi " : "maxsi ") + a.name + ", " + b.name + " : index");
      add(mn ? IVal{n, std::min(a.lo, b.lo), std::min(a.hi, b.hi)} : IVal{n, std::max(a.lo, b.lo), std::max(a.hi, b.hi)});
      return;
    }
    case 4: {
      static const std::vector<std::string> preds = {"slt", "sle", "sgt", "sge", "eq", "ne"};
      std::string cmp = fresh("cmp");
      emit(cmp + " = arith.cmpi " + c_.pick(preds) + ", " + a.name + ", " + b.name + " : index");
      emit(n + " = arith.select " + cmp + ", " + a.name + ", " + b.name + " : index");
      add({n, std::min(a.lo, b.lo), std::max(a.hi, b.hi)});
      feature("select");
      return;
    }
    case 5: {
      int64_t k = c_.range(1, 3), m = c_.range(0, 16);
      emit(n + " = affine.apply affine_map<()[s0, s1] -> (s0 * " + std::to_string(k) + " + s1 + " + std::to_string(m) +
           ")>()[" + a.name + ", " + b.name + "]");
      add({n, std::min(a.lo * k, a.hi * k) + b.lo + m, std::max(a.lo * k, a.hi * k) + b.hi + m});
      return;
    }
    case 6: {
      int64_t m = c_.range(0, 16);
      emit(n + " = affine.min affine_map<()[s0, s1] -> (s0, s1 + " + std::to_string(m) + ")>()[" + a.name + ", " + b.name + "]");
      add({n, std::min(a.lo, b.lo + m), std::min(a.hi, b.hi + m)});
      return;
    }
    case 7: {
      emit(n + " = affine.max affine_map<()[s0, s1] -> (s0 - s1, 0)>()[" + a.name + ", " + b.name + "]");
      add({n, std::max<int64_t>(0, a.lo - b.hi), std::max<int64_t>(0, a.hi - b.lo)});
      return;
    }
    default: {
      if (a.lo < 0) break;
      int64_t k = c_.range(2, 8);
      emit(n + " = affine.apply affine_map<()[s0] -> (s0 floordiv " + std::to_string(k) + " + s0 mod " + std::to_string(k) +
           ")>()[" + a.name + "]");
      add({n, 0, a.hi / k + k - 1});
      return;
    }
  }
  emit(n + " = arith.subi " + a.name + ", " + b.name + " : index");
  add({n, a.lo - b.hi, a.hi - b.lo});
}

void Gen::for_statement(int depth, int &budget) {
  IVal lb;
  if (c_.percent(70)) {
    lb = {constant(0), 0, 0};
  } else {
    lb = clamp(nonneg_value(), 0, 3);
  }
  IVal ub = loop_bound(lb.hi);
  const int64_t step = c_.percent(75) ? 1 : c_.range(2, 3);
  std::string st = constant(step);
  std::string iv = fresh("iv");
  const bool carry = c_.percent(20);
  IVal init;
  std::string result;
  if (carry) {
    init = nonneg_value();
    result = fresh("r");
  }
  std::string acc = fresh("acc");
  emit((carry ? result + " = " : std::string()) + "scf.for " + iv + " = " + lb.name + " to " + ub.name + " step " + st +
       (carry ? " iter_args(" + acc + " = " + init.name + ") -> (index)" : std::string()) + " {");
  ++indent_;
  push();
  add({iv, lb.lo, std::max(lb.lo, ub.hi - 1)});
  if (carry) add({acc, init.lo, init.hi + 64});
  const int inner = std::max(1, std::min(budget, static_cast<int>(c_.range(1, 5))));
  budget -= inner;
  block(depth + 1, inner);
  if (carry) {
    std::string next = fresh("next");
    emit(next + " = affine.min affine_map<()[s0, s1] -> (s0 + s1, " + std::to_string(init.hi + 64) + ")>()[" + acc + ", " + iv + "]");
    emit("scf.yield " + next + " : index");
  }
  pop();
  --indent_;
  emit(std::string("}") + (c_.percent(10) ? " {ExtractedLoadOrStore}" : ""));
  if (carry) add({result, init.lo, init.hi + 64});
  feature(depth > 0 ? "nested_for" : "for");
}

void Gen::if_statement(int depth, int &budget) {
  IVal a = any_value(), b = any_value();
  static const std::vector<std::string> preds = {"slt", "sle", "sgt", "sge", "eq", "ne"};
  std::string cmp = fresh("cond");
  emit(cmp + " = arith.cmpi " + c_.pick(preds) + ", " + a.name + ", " + b.name + " : index");
  const bool with_else = c_.percent(50);
  const bool with_result = with_else && c_.percent(40);
  std::string result = with_result ? fresh("ifr") : std::string();
  emit((with_result ? result + " = " : std::string()) + "scf.if " + cmp + (with_result ? " -> (index)" : "") + " {");
  int64_t lo = 0, hi = 0;
  for (int branch = 0; branch < (with_else ? 2 : 1); ++branch) {
    if (branch == 1) emit("} else {");
    ++indent_;
    push();
    const int inner = std::max(1, std::min(budget, static_cast<int>(c_.range(1, 4))));
    budget -= inner;
    block(depth + 1, inner);
    if (with_result) {
      IVal y = nonneg_value();
      emit("scf.yield " + y.name + " : index");
      lo = branch == 0 ? y.lo : std::min(lo, y.lo);
      hi = branch == 0 ? y.hi : std::max(hi, y.hi);
    }
    pop();
    --indent_;
  }
  emit(std::string("}") + (c_.percent(10) ? " {hivm.unlikely_condition}" : ""));
  if (with_result) add({result, lo, hi});
  feature(with_else ? "if_else" : "if");
}

void Gen::while_statement(int depth, int &budget) {
  IVal bound = c_.percent(50) ? data_value() : clamp(nonneg_value(), 0, 5);
  std::string init = constant(0);
  std::string w = fresh("w"), x = fresh("wx"), x2 = fresh("wy"), cond = fresh("wc");
  emit(w + " = scf.while (" + x + " = " + init + ") : (index) -> index {");
  ++indent_;
  emit(cond + " = arith.cmpi slt, " + x + ", " + bound.name + " : index");
  emit("scf.condition(" + cond + ") " + x + " : index");
  --indent_;
  emit("} do {");
  emit("^bb0(" + x2 + ": index):");
  ++indent_;
  push();
  add({x2, 0, bound.hi});
  const int inner = std::max(1, std::min(budget, static_cast<int>(c_.range(1, 3))));
  budget -= inner;
  block(depth + 1, inner);
  std::string one = constant(c_.percent(80) ? 1 : 2);
  std::string nx = fresh("wn");
  emit(nx + " = arith.addi " + x2 + ", " + one + " : index");
  emit("scf.yield " + nx + " : index");
  pop();
  --indent_;
  emit("}");
  add({w, 0, bound.hi + 1});
  feature("while");
}

void Gen::dma_load() {
  static const std::vector<int> data_args = {0, 1, 3, 4};
  const Tensor &t = kTensors[static_cast<size_t>(c_.pick(data_args))];
  std::vector<int64_t> shape;
  if (c_.percent(40)) shape = {c_.pick(std::vector<int64_t>{16, 32, 64, 100, 128})};
  else shape = {c_.pick(std::vector<int64_t>{1, 2, 4, 8}), c_.pick(std::vector<int64_t>{8, 16, 32, 64})};
  const int64_t row_stride = shape.size() == 2 ? shape[1] * c_.range(1, 2) + (c_.percent(30) ? c_.range(1, 7) : 0) : 1;
  MemT gm_type;
  std::string gm = gm_view(t, shape, row_stride, gm_type);
  MVal ub = ub_buffer(t.elem, shape);
  std::string src = gm, dst = ub.name;
  MemT src_t = gm_type, dst_t = ub.type;
  if (c_.percent(50)) {
    // Dynamic extents: a tail size min(extent, n - offset) or a clamp of a value in scope.
    std::vector<std::string> sizes;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (c_.percent(40)) {
        sizes.push_back(std::to_string(shape[d]));
        continue;
      }
      IVal v = clamp(nonneg_value(), 0, shape[d]);
      sizes.push_back(v.name);
    }
    std::string offs, szs, strs;
    MemT gs = gm_type, us = ub.type;
    us.strides = ub.type.layout();
    for (size_t d = 0; d < shape.size(); ++d) {
      offs += (d ? ", " : "") + std::string("0");
      szs += (d ? ", " : "") + sizes[d];
      strs += (d ? ", " : "") + std::string("1");
      gs.shape[d] = us.shape[d] = sizes[d][0] == '%' ? -1 : shape[d];
    }
    src = fresh("subview");
    dst = fresh("subview");
    emit(src + " = memref.subview " + gm + "[" + offs + "] [" + szs + "] [" + strs + "] : " + gm_type.str() + " to " + gs.str());
    emit(dst + " = memref.subview " + ub.name + "[" + offs + "] [" + szs + "] [" + strs + "] : " + ub.type.str() + " to " + us.str());
    src_t = gs;
    dst_t = us;
    feature("dynamic_dma");
  }
  emit("hivm.hir.load ins(" + src + " : " + src_t.str() + ") outs(" + dst + " : " + dst_t.str() + ")");
  feature("dma_load");
}

void Gen::dma_store() {
  std::vector<MVal> storable;
  for (const MVal &b : ub_bufs_)
    if (b.type.elem == "f32" || b.type.elem == "f16" || b.type.elem == "bf16") storable.push_back(b);
  MVal ub = storable.empty() ? ub_buffer("f32", {c_.pick(std::vector<int64_t>{2, 4}), 32}) : c_.pick(storable);
  std::vector<const Tensor *> targets;
  for (const Tensor &t : kTensors)
    if (t.elem == ub.type.elem) targets.push_back(&t);
  const Tensor &t = *targets[c_.below(targets.size())];
  const std::vector<int64_t> &shape = ub.type.shape;
  const int64_t row_stride = shape.size() == 2 ? shape[1] * c_.range(1, 2) : 1;
  MemT gm_type;
  std::string gm = gm_view(t, shape, row_stride, gm_type);
  std::string src = ub.name, dst = gm;
  MemT src_t = ub.type, dst_t = gm_type;
  if (c_.percent(40)) {
    std::vector<std::string> sizes;
    for (size_t d = 0; d < shape.size(); ++d) sizes.push_back(c_.percent(40) ? std::to_string(shape[d]) : clamp(nonneg_value(), 0, shape[d]).name);
    std::string offs, szs, strs;
    MemT gs = gm_type, us = ub.type;
    us.strides = ub.type.layout();
    for (size_t d = 0; d < shape.size(); ++d) {
      offs += (d ? ", " : "") + std::string("0");
      szs += (d ? ", " : "") + sizes[d];
      strs += (d ? ", " : "") + std::string("1");
      gs.shape[d] = us.shape[d] = sizes[d][0] == '%' ? -1 : shape[d];
    }
    src = fresh("subview");
    dst = fresh("subview");
    emit(src + " = memref.subview " + ub.name + "[" + offs + "] [" + szs + "] [" + strs + "] : " + ub.type.str() + " to " + us.str());
    emit(dst + " = memref.subview " + gm + "[" + offs + "] [" + szs + "] [" + strs + "] : " + gm_type.str() + " to " + gs.str());
    src_t = us;
    dst_t = gs;
    feature("dynamic_dma");
  }
  emit("hivm.hir.store ins(" + src + " : " + src_t.str() + ") outs(" + dst + " : " + dst_t.str() + ")");
  feature("dma_store");
}

void Gen::vector_op() {
  std::vector<int64_t> shape;
  if (c_.percent(45)) shape = {c_.pick(std::vector<int64_t>{16, 64, 100, 128, 256, 1000})};
  else shape = {c_.pick(std::vector<int64_t>{2, 4, 8, 16}), c_.pick(std::vector<int64_t>{8, 16, 24, 32, 64, 200})};
  auto ops_text = [](const std::vector<MVal> &v) {
    std::string names, types;
    for (size_t i = 0; i < v.size(); ++i) {
      names += (i ? ", " : "") + v[i].name;
      types += (i ? ", " : "") + v[i].type.str();
    }
    return names + " : " + types;
  };
  const uint64_t kind = c_.below(13);
  const std::string fe = c_.percent(70) ? "f32" : "f16";
  if (kind <= 2) {  // arithmetic, two inputs
    static const std::vector<std::string> ops = {"vadd", "vsub", "vmul", "vmax", "vmin"};
    MVal a = ub_tile(fe, shape, true, nullptr);
    MVal b = ub_tile(fe, shape, true, &a);
    MVal o = ub_tile(fe, shape, true, &a);
    emit("hivm.hir." + c_.pick(ops) + " ins(" + ops_text({a, b}) + ") outs(" + ops_text({o}) + ")");
    feature("vector_arith");
  } else if (kind == 3) {  // one-input arithmetic / transcendental
    static const std::vector<std::string> ops = {"vexp", "vln", "vsqrt", "vrsqrt", "vtanh", "vabs", "vrec"};
    MVal a = ub_tile(fe, shape, true, nullptr);
    MVal o = ub_tile(fe, shape, true, &a);
    emit("hivm.hir." + c_.pick(ops) + " ins(" + ops_text({a}) + ") outs(" + ops_text({o}) + ")");
    feature("vector_transcendental");
  } else if (kind == 4) {  // reduce
    if (shape.size() == 1) shape = {4, shape[0] > 256 ? 64 : shape[0]};
    const bool rows = c_.percent(50);
    std::vector<int64_t> out_shape = rows ? std::vector<int64_t>{shape[0], 1} : std::vector<int64_t>{1, shape[1]};
    MVal a = ub_tile("f32", shape, false, nullptr);
    MVal o = ub_tile("f32", out_shape, false, nullptr);
    emit("hivm.hir.vreduce <" + std::string(c_.percent(50) ? "sum" : "max") + "> ins(" + ops_text({a}) + ") outs(" +
         ops_text({o}) + ") reduce_dims = [" + (rows ? "1" : "0") + "]");
    feature("vector_reduce");
  } else if (kind == 5) {  // compare
    MVal a = ub_tile(fe, shape, true, nullptr);
    MVal b = ub_tile(fe, shape, true, &a);
    MVal m = ub_tile("i1", shape, true, &a);
    emit("hivm.hir.vcmp ins(" + ops_text({a, b}) + ") outs(" + ops_text({m}) + ")");
    feature("vector_compare");
  } else if (kind == 6) {  // select
    MVal m = ub_tile("i1", shape, true, nullptr);
    MVal a = ub_tile(fe, shape, true, &m);
    MVal b = ub_tile(fe, shape, true, &m);
    MVal o = ub_tile(fe, shape, true, &m);
    emit("hivm.hir.vsel ins(" + ops_text({m, a, b}) + ") outs(" + ops_text({o}) + ")");
    feature("vector_select");
  } else if (kind == 7) {  // logic
    static const std::vector<std::string> ops = {"vand", "vor", "vxor"};
    MVal a = ub_tile("i16", shape, true, nullptr);
    if (c_.percent(30)) {
      MVal o = ub_tile("i16", shape, true, &a);
      emit("hivm.hir.vnot ins(" + ops_text({a}) + ") outs(" + ops_text({o}) + ")");
    } else {
      MVal b = ub_tile("i16", shape, true, &a);
      MVal o = ub_tile("i16", shape, true, &a);
      emit("hivm.hir." + c_.pick(ops) + " ins(" + ops_text({a, b}) + ") outs(" + ops_text({o}) + ")");
    }
    feature("vector_logic");
  } else if (kind == 8) {  // convert
    const bool up = c_.percent(50);
    MVal a = ub_tile(up ? "f16" : "f32", shape, true, nullptr);
    MVal o = ub_tile(up ? "f32" : "f16", shape, true, &a);
    emit("hivm.hir.vcast ins(" + ops_text({a}) + ") outs(" + ops_text({o}) + ")");
    feature("vector_convert");
  } else if (kind == 9) {  // broadcast
    MVal o = ub_tile(fe, shape, true, nullptr);
    std::string cst = fresh("cst");
    emit(cst + " = arith.constant 0.000000e+00 : " + fe);
    emit("hivm.hir.vbrc ins(" + cst + " : " + fe + ") outs(" + ops_text({o}) + ")");
    feature("vector_brc");
  } else if (kind == 10) {  // UB -> UB copy
    MVal a = ub_tile(fe, shape, true, nullptr);
    MVal o = ub_tile(fe, shape, true, &a);
    emit("hivm.hir.copy ins(" + ops_text({a}) + ") outs(" + ops_text({o}) + ")");
    feature("vector_copy");
  } else if (kind == 11) {  // gather: values by index (the structured ins/outs form of the other v ops)
    std::vector<int64_t> one = {shape.size() == 1 ? shape[0] : shape[1]};
    MVal src = ub_tile(fe, one, true, nullptr);
    MVal idx = ub_tile("i32", one, true, &src);
    MVal o = ub_tile(fe, one, true, &src);
    emit("hivm.hir.vgather ins(" + ops_text({src, idx}) + ") outs(" + ops_text({o}) + ")");
    feature("vector_gather");
  } else {  // arange into i32, one-dimensional
    std::vector<int64_t> one = {shape.size() == 1 ? shape[0] : shape[1]};
    MVal o = ub_tile("i32", one, false, nullptr);
    std::string c0 = constant(0), c1 = constant(1);
    emit("hivm.hir.varange offset[" + c0 + "] strides[" + c1 + "] outs(" + ops_text({o}) + ")");
    feature("vector_arange");
  }
}

void Gen::gather_loop() {
  // An element-by-element loop: scalar GM loads stored into UB (a scalar fallback).
  const Tensor &t = kTensors[0];
  const int64_t n = c_.pick(std::vector<int64_t>{4, 8, 16});
  MemT type;
  std::string gm = gm_view(t, {n}, 1, type);
  MVal ub = ub_buffer(t.elem, {n});
  IVal ub_n = clamp(nonneg_value(), 0, n);
  std::string c0 = constant(0), c1 = constant(1), i = fresh("i");
  emit("scf.for " + i + " = " + c0 + " to " + ub_n.name + " step " + c1 + " {");
  ++indent_;
  std::string v = fresh("g");
  emit(v + " = memref.load " + gm + "[" + i + "] : " + type.str());
  emit("memref.store " + v + ", " + ub.name + "[" + i + "] : " + ub.type.str());
  --indent_;
  emit("} {ExtractedLoadOrStore}");
  feature("scalar_gather");
}

void Gen::sync_op() {
  static const std::vector<std::string> pipes = {"PIPE_MTE2", "PIPE_V", "PIPE_MTE3", "PIPE_S", "PIPE_M", "PIPE_MTE1", "PIPE_FIX"};
  switch (c_.below(4)) {
    case 0:
    case 1: {
      std::string a = core_ == CoreKind::AIV ? c_.pick(std::vector<std::string>{"PIPE_MTE2", "PIPE_V", "PIPE_MTE3"})
                                             : c_.pick(std::vector<std::string>{"PIPE_MTE2", "PIPE_MTE1", "PIPE_M", "PIPE_FIX"});
      std::string b = core_ == CoreKind::AIV ? c_.pick(std::vector<std::string>{"PIPE_MTE2", "PIPE_V", "PIPE_MTE3"})
                                             : c_.pick(std::vector<std::string>{"PIPE_MTE2", "PIPE_MTE1", "PIPE_M", "PIPE_FIX"});
      std::string ev = "EVENT_ID" + std::to_string(events_++ % 4);
      emit("hivm.hir.set_flag[<" + a + ">, <" + b + ">, <" + ev + ">]");
      emit("hivm.hir.wait_flag[<" + a + ">, <" + b + ">, <" + ev + ">]");
      feature("flags");
      return;
    }
    case 2: {
      std::string p = c_.percent(50) ? "PIPE_ALL" : (core_ == CoreKind::AIV ? "PIPE_V" : "PIPE_M");
      emit("hivm.hir.pipe_barrier[<" + p + ">]");
      feature("barrier");
      return;
    }
    default: {
      if (!mix_) {
        emit("hivm.hir.pipe_barrier[<PIPE_ALL>]");
        feature("barrier");
        return;
      }
      const int flag = static_cast<int>(c_.below(4));
      if (core_ == CoreKind::AIV) emit("hivm.hir.sync_block_set[<VECTOR>, <PIPE_MTE3>, <PIPE_S>] flag = " + std::to_string(flag));
      else emit("hivm.hir.sync_block_wait[<CUBE>, <PIPE_MTE3>, <PIPE_S>] flag = " + std::to_string(flag));
      feature("cross_core_sync");
      return;
    }
  }
  (void)pipes;
}

void Gen::workspace_op() {
  // A tile through the workspace (GM scratch between the halves of a mix kernel).
  std::string off = constant(c_.range(0, 3) * 8192);
  std::string ws = fresh("ws");
  MemT type{"bf16", "gm", {32, 64}, {}, 0};
  emit(ws + " = memref_ext.alloc_workspace() from %arg2 offset = [" + off +
       "] : from memref<?xi8, #hivm.address_space<gm>> to " + type.str());
  if (core_ == CoreKind::AIV) {
    MVal ub = ub_tile("bf16", {32, 64}, false, nullptr);
    emit("hivm.hir.store ins(" + ub.name + " : " + ub.type.str() + ") outs(" + ws + " : " + type.str() + ")");
  } else {
    std::string l1 = fresh("l1w");
    MemT l1t{"bf16", "cbuf", {4, 2, 16, 16}, {}, 0};
    std::string addr = constant_i64(l1_next_);
    l1_next_ = (l1_next_ + 4096) % (512 * 1024);
    emit(l1 + " = hivm.hir.pointer_cast(" + addr + ") : " + l1t.str());
    std::string cast = fresh("cast");
    MemT dyn{"bf16", "cbuf", {-1, -1, -1, -1}, {}, 0};
    emit(cast + " = memref.cast " + l1 + " : " + l1t.str() + " to " + dyn.str());
    emit("hivm.hir.nd2nz {dst_continuous} ins(" + ws + " : " + type.str() + ") outs(" + cast + " : " + dyn.str() +
         ") init_out_buffer = false");
  }
  feature("workspace");
}

void Gen::cube_block() {
  const int64_t M = c_.pick(std::vector<int64_t>{16, 32, 64}), K = c_.pick(std::vector<int64_t>{16, 32, 64}),
                N = c_.pick(std::vector<int64_t>{16, 32, 64});
  auto l1 = [&](int64_t rows, int64_t cols, const std::string &elem, const std::string &space) {
    std::string p = fresh(space == "cc" ? "l0c" : "l1");
    MemT t{elem, space, {cols / 16, rows / 16, 16, 16}, {}, 0};
    std::string addr = constant_i64(l1_next_);
    l1_next_ = (l1_next_ + rows * cols * elem_bytes(elem)) % (256 * 1024);
    emit(p + " = hivm.hir.pointer_cast(" + addr + ") : " + t.str());
    std::string cast = fresh("cast");
    MemT dyn{elem, space, {-1, -1, -1, -1}, {}, 0};
    emit(cast + " = memref.cast " + p + " : " + t.str() + " to " + dyn.str());
    return std::make_pair(cast, dyn);
  };
  auto load_nd = [&](const Tensor &t, int64_t rows, int64_t cols) {
    auto [cast, dyn] = l1(rows, cols, t.elem, "cbuf");
    MemT gm_t;
    std::string gm = gm_view(t, {rows, cols}, cols, gm_t);
    std::string src = gm;
    MemT src_t = gm_t;
    if (c_.percent(30)) {
      IVal r = clamp(nonneg_value(), 1, rows);
      std::string sub = fresh("subview");
      MemT st = gm_t;
      st.shape = {-1, cols};
      emit(sub + " = memref.subview " + gm + "[0, 0] [" + r.name + ", " + std::to_string(cols) + "] [1, 1] : " + gm_t.str() +
           " to " + st.str());
      src = sub;
      src_t = st;
      feature("dynamic_nd2nz");
    }
    emit("hivm.hir.nd2nz {dst_continuous} ins(" + src + " : " + src_t.str() + ") outs(" + cast + " : " + dyn.str() +
         ") init_out_buffer = false");
    return std::make_pair(cast, dyn);
  };
  auto [a, at] = load_nd(kTensors[4], M, K);
  auto [b, bt] = load_nd(kTensors[5], K, N);
  auto [cc, ct] = l1(M, N, "f32", "cc");
  std::string t = fresh("true");
  emit(t + " = arith.constant true");
  auto dim = [&](int64_t full) {
    if (c_.percent(65)) return constant(full);
    feature("dynamic_mmad");
    return clamp(nonneg_value(), 1, full).name;
  };
  std::string m = dim(M), k = dim(K), n = dim(N);
  emit("hivm.hir.mmadL1 ins(" + a + ", " + b + ", " + t + ", " + m + ", " + k + ", " + n + " : " + at.str() + ", " + bt.str() +
       ", i1, index, index, index) outs(" + cc + " : " + ct.str() + ")");
  MemT gm_t;
  std::string gm = gm_view(kTensors[6], {M, N}, N, gm_t);
  emit("hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(" + cc + " : " + ct.str() + ") outs(" + gm + " : " +
       gm_t.str() + ")");
  feature("cube");
}

void Gen::statement(int depth, int &budget) {
  --budget;
  const bool deep = depth >= o_.max_depth;
  const uint64_t r = c_.below(100);
  if (core_ == CoreKind::AIV) {
    if (r < 18) return scalar_statement();
    if (r < 32 && !deep) return for_statement(depth, budget);
    if (r < 40 && !deep) return if_statement(depth, budget);
    if (r < 43 && !deep) return while_statement(depth, budget);
    if (r < 55) return dma_load();
    if (r < 63) return dma_store();
    if (r < 83) return vector_op();
    if (r < 86) return gather_loop();
    if (r < 95) return sync_op();
    if (mix_) return workspace_op();
    return scalar_statement();
  }
  if (r < 20) return scalar_statement();
  if (r < 35 && !deep) return for_statement(depth, budget);
  if (r < 43 && !deep) return if_statement(depth, budget);
  if (r < 46 && !deep) return while_statement(depth, budget);
  if (r < 78) return cube_block();
  if (r < 92) return sync_op();
  if (mix_) return workspace_op();
  return scalar_statement();
}

void Gen::block(int depth, int budget) {
  while (budget > 0) statement(depth, budget);
}

void Gen::function(const std::string &name, CoreKind core, bool mix, int uid_base) {
  core_ = core;
  mix_ = mix;
  uid_ = uid_base;
  ub_bufs_.clear();
  ub_next_ = l1_next_ = 0;
  scopes_.clear();
  lines_.push_back("// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //");
  lines_.push_back(header(name, core == CoreKind::AIV ? "AIV" : "AIC", mix));
  indent_ = 1;
  push();
  if (core == CoreKind::AIV) emit("hivm.hir.set_mask_norm");
  std::string g0 = fresh("grid"), g1 = fresh("grid");
  emit(g0 + " = arith.muli %arg" + std::to_string(kGridArg0) + ", %arg" + std::to_string(kGridArg0 + 1) + " : i32");
  emit(g1 + " = arith.muli " + g0 + ", %arg" + std::to_string(kGridArg0 + 2) + " : i32");
  emit("annotation.mark " + g1 + " {logical_block_num} : i32");
  std::string bid = fresh("bid"), bidi = fresh("bidx");
  emit(bid + " = hivm.hir.get_block_idx -> i64");
  emit(bidi + " = arith.index_cast " + bid + " : i64 to index");
  add({bidi, 0, blocks_ - 1});
  pid_index_ = 0;
  if (c_.percent(40)) {
    // pid_x as triton computes it: (block / (gy * gz)) % gx.
    std::string t = fresh("t"), yz = fresh("yz"), q = fresh("q"), pid = fresh("pid"), pidi = fresh("pidx");
    emit(t + " = arith.trunci " + bid + " : i64 to i32");
    emit(yz + " = arith.muli %arg" + std::to_string(kGridArg0 + 2) + ", %arg" + std::to_string(kGridArg0 + 1) + " : i32");
    emit(q + " = arith.divsi " + t + ", " + yz + " : i32");
    emit(pid + " = arith.remsi " + q + ", %arg" + std::to_string(kGridArg0) + " : i32");
    emit(pidi + " = arith.index_cast " + pid + " : i32 to index");
    add({pidi, 0, blocks_ - 1});
    pid_index_ = 1;
  }
  if (mix && core == CoreKind::AIV) {
    std::string sb = fresh("sub"), sbi = fresh("subx");
    emit(sb + " = hivm.hir.get_sub_block_idx -> i64");
    emit(sbi + " = arith.index_cast " + sb + " : i64 to index");
    add({sbi, 0, 1});
    feature("sub_block");
  }
  for (int k = 0; k < 3; ++k)
    if (c_.percent(50)) {
      std::string n = fresh("sarg");
      emit(n + " = arith.index_cast %arg" + std::to_string(kScalarArg0 + k) + " : i32 to index");
      add({n, scalar_ranges_[static_cast<size_t>(k)].first, scalar_ranges_[static_cast<size_t>(k)].second});
    }
  block(0, static_cast<int>(c_.range(4, o_.max_statements)));
  emit("return");
  indent_ = 0;
  lines_.push_back("}");
  pop();
}

}  // namespace

Program generate(Choices &choices, const GeneratorOptions &options) {
  Program p;
  std::vector<std::string> lines{"// Generated by tests/oracle/generator.cpp (not compiler output)."};
  // Launch: a small grid and the scalar arguments (some left out: the extractor
  // then does not know them and the oracle draws them in [1, 40]).
  std::vector<int64_t> grid;
  if (choices.percent(70)) grid = {choices.range(1, 6)};
  else grid = {choices.range(1, 3), choices.range(1, 3)};
  int64_t blocks = 1;
  for (int64_t g : grid) blocks *= g;
  nlohmann::json args = nlohmann::json::object();
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int k = 0; k < 3; ++k) {
    if (choices.percent(85)) {
      int64_t v = choices.range(0, 40);
      args[(choices.percent(50) ? "" : "%arg") + std::to_string(9 + k)] = v;
      ranges.push_back({v, v});
    } else {
      ranges.push_back({1, 40});
    }
  }
  p.launch = {{"grid", grid}, {"args", args}};
  for (int t : {7, 8}) {
    std::vector<int64_t> values;
    for (int64_t i = 0; i < kIndexLen; ++i) values.push_back(choices.range(0, kIndexMax));
    p.index_data[std::to_string(t)] = values;
  }
  std::vector<std::string> features;
  const uint64_t shape = choices.below(100);
  auto fn = [&](const std::string &name, CoreKind core, bool mix, int base) {
    Gen g(choices, options, lines, blocks, ranges, features);
    g.function(name, core, mix, base);
  };
  if (shape < 45) {
    fn("kernel", CoreKind::AIV, false, 0);
    features.insert(features.begin(), "aiv");
  } else if (shape < 60) {
    fn("kernel", CoreKind::AIC, false, 0);
    features.insert(features.begin(), "aic");
  } else if (shape < 88) {
    fn("kernel_mix_aic", CoreKind::AIC, true, 0);
    fn("kernel_mix_aiv", CoreKind::AIV, true, 0);
    features.insert(features.begin(), "mix");
  } else {
    fn("kernel_a", CoreKind::AIV, false, 0);
    fn("kernel_b", choices.percent(50) ? CoreKind::AIV : CoreKind::AIC, false, 0);
    features.insert(features.begin(), "two_functions");
  }
  std::ostringstream text;
  for (const std::string &l : lines) text << l << "\n";
  p.text = text.str();
  for (size_t i = 0; i < features.size(); ++i) p.features += (i ? "," : "") + features[i];
  return p;
}

}  // namespace pb::oracle_test
