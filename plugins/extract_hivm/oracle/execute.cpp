//===- execute.cpp - running compiled HIVM functions block by block -------===//
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>

#include "compiled.hpp"
#include "work.hpp"

namespace pb::hivm::oracle {

const char *core_name(Core core) {
  switch (core) {
    case Core::AIC: return "aic";
    case Core::AIV: return "aiv";
    case Core::Unknown: break;
  }
  return "unknown";
}

const char *field_name(Field f) {
  switch (f) {
    case kCount: return "count";
    case kIterations: return "iterations";
    case kBytes: return "bytes";
    case kElements: return "elements";
    case kFlop: return "flop";
    case kRepeats: return "repeats";
    case kMasked: return "masked_lanes";
    case kPackets: return "packets";
    case kScalar: return "scalar_instructions";
    case kIssued: return "issued_instructions";
    case kGuaranteed: return "guaranteed_instructions";
    case kMte1: return "mte1_bytes";
    case kGmScalarBytes: return "gm_scalar_bytes";
    case kFieldCount: break;
  }
  return "?";
}

void ByteSet::add(int64_t begin, int64_t end) {
  if (end <= begin) return;
  auto it = runs.upper_bound(begin);
  if (it != runs.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= begin) {
      begin = prev->first;
      end = std::max(end, prev->second);
      it = runs.erase(prev);
    }
  }
  while (it != runs.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = runs.erase(it);
  }
  runs.emplace(begin, end);
}

int64_t ByteSet::size() const {
  int64_t n = 0;
  for (const auto &[b, e] : runs) n += e - b;
  return n;
}

const OpStats *Result::find(uint32_t function, uint32_t line, uint32_t nth) const {
  for (const OpStats &s : ops)
    if (s.function == function && s.line == line && s.ordinal == nth) return &s;
  return nullptr;
}

namespace {

using namespace detail;

enum class RootKind : uint8_t { Arg, Workspace, Address, Alloc, Unknown };

struct View {
  Space space = Space::Unknown;
  ElemType elem;
  RootKind root = RootKind::Unknown;
  int64_t root_id = -1;
  int64_t root_byte = 0;   // byte offset of the indexing base within the root
  int64_t offset = 0;      // elements
  std::vector<int64_t> sizes, strides;
};

struct Frame {
  std::vector<Val> vals;
  std::vector<View> views;
};

[[noreturn]] void world(uint32_t line, const std::string &what) {
  throw OracleError(OracleError::Kind::World, line, what);
}
[[noreturn]] void unsupported(uint32_t line, const std::string &what) {
  throw OracleError(OracleError::Kind::Unsupported, line, what);
}

int64_t canon(uint64_t v, uint8_t width) {
  if (width >= 64) return static_cast<int64_t>(v);
  if (width == 1) return static_cast<int64_t>(v & 1U);
  const uint64_t mask = (uint64_t{1} << width) - 1;
  v &= mask;
  if (v & (uint64_t{1} << (width - 1))) v |= ~mask;
  return static_cast<int64_t>(v);
}
uint64_t as_unsigned(int64_t v, uint8_t width) {
  if (width >= 64) return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t{1} << width) - 1);
}

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The extent given to a dynamic dimension of a kernel argument the launch has
/// no data for: any access fits, and a transfer over it is refused.
constexpr int64_t kUnknownExtent = int64_t{1} << 40;

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::vector<int64_t> row_major(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> st(sizes.size(), 1);
  int64_t run = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    st[d] = run;
    run *= std::max<int64_t>(sizes[d], 1);
  }
  return st;
}

class Machine {
 public:
  Machine(std::vector<Fn> &fns, Result &result, const Launch &launch, const Options &options)
      : fns_(fns), r_(result), launch_(launch), options_(options) {}
  void run();

 private:
  // Values.
  const Val &val(Frame &f, int32_t slot, const Fn &fn, uint32_t line) const {
    const Val &v = f.vals[static_cast<size_t>(slot)];
    if (v.t == Val::T::Poison)
      unsupported(line, "value " + fn.slot_names[static_cast<size_t>(slot)] + " (defined at line " +
                            std::to_string(fn.slot_lines[static_cast<size_t>(slot)]) + ") is not known to the oracle");
    return v;
  }
  int64_t int_of(Frame &f, int32_t slot, const Fn &fn, uint32_t line) const {
    const Val &v = val(f, slot, fn, line);
    if (v.t == Val::T::Int) return v.i;
    if (v.t == Val::T::Float) return static_cast<int64_t>(v.f);
    unsupported(line, "value " + fn.slot_names[static_cast<size_t>(slot)] + " is a memref, expected an integer");
  }
  const View &view_of(Frame &f, int32_t slot, const Fn &fn, uint32_t line) const {
    const Val &v = val(f, slot, fn, line);
    if (v.t != Val::T::Mem) unsupported(line, "value " + fn.slot_names[static_cast<size_t>(slot)] + " is not a memref");
    return f.views[static_cast<size_t>(v.mem)];
  }
  int64_t entry(Frame &f, const Entry &e, const Fn &fn, uint32_t line) const {
    return e.slot >= 0 ? int_of(f, e.slot, fn, line) : e.c;
  }
  void set_int(Frame &f, int32_t slot, int64_t v, uint8_t width) {
    Val &out = f.vals[static_cast<size_t>(slot)];
    out.t = Val::T::Int;
    out.width = width;
    out.i = canon(static_cast<uint64_t>(v), width);
  }
  void set_view(Frame &f, int32_t slot, View v) {
    f.views.push_back(std::move(v));
    Val &out = f.vals[static_cast<size_t>(slot)];
    out.t = Val::T::Mem;
    out.mem = static_cast<int32_t>(f.views.size() - 1);
  }
  /// A view of a static type (pointer_cast, alloc, workspace); dynamic sizes from `dyn`.
  View view_of_type(const Type &t, const std::vector<int64_t> &dyn, uint32_t line) const {
    View v;
    v.space = t.space;
    v.elem = t.elem;
    size_t next = 0;
    for (int64_t d : t.shape) {
      if (d == kDynamic) {
        if (next >= dyn.size()) unsupported(line, "a dynamic size the oracle cannot bind");
        v.sizes.push_back(dyn[next++]);
      } else {
        v.sizes.push_back(d);
      }
    }
    if (t.has_strides) {
      for (int64_t s : t.strides) {
        if (s == kDynamic) unsupported(line, "a dynamic stride in a result type");
        v.strides.push_back(s);
      }
      if (t.offset != kDynamic) v.offset = t.offset;
    } else {
      v.strides = row_major(v.sizes);
    }
    return v;
  }

  // Counting.
  void count(uint32_t op, const Exec &e, int64_t iterations = 0);
  void tick(uint32_t line) {
    if (++r_.executed_ops > options_.max_ops)
      throw OracleError(OracleError::Kind::Budget, line,
                        "refused: the launch executes more than " + std::to_string(options_.max_ops) +
                            " ops (Options::max_ops); use a smaller launch or raise the budget");
  }
  void rows(const View &v, int64_t run, const std::function<void(int64_t, int64_t)> &on_row, uint32_t line);
  void touch_gm(const View &v, bool write, bool dma, uint32_t line);

  // Execution.
  const Inst *run_region(const Fn &fn, Frame &f, const Region &region);
  void exec(const Fn &fn, Frame &f, const Inst &inst);
  void exec_hivm(const Fn &fn, Frame &f, const Inst &inst);
  void exec_view(const Fn &fn, Frame &f, const Inst &inst);
  void run_function(const Fn &fn, uint32_t instance);
  void prepare();
  void infer_cores();
  void fold_block();
  Val load(const Fn &fn, Frame &f, const Inst &inst, const View &v, int64_t element, uint32_t line);
  int64_t provider(uint64_t a, uint64_t b, uint64_t c, int64_t lo, int64_t hi) const {
    uint64_t h = mix64(options_.seed ^ mix64(a ^ mix64(b ^ mix64(c))));
    if (hi < lo) return lo;
    return lo + static_cast<int64_t>(h % static_cast<uint64_t>(hi - lo + 1));
  }

  std::vector<Fn> &fns_;
  Result &r_;
  const Launch &launch_;
  const Options &options_;
  int64_t block_ = 0;
  uint32_t instance_ = 0;
  std::vector<Sums> cur_;
  std::vector<int64_t> inst_count_, inst_max_;
  std::vector<bool> folded_once_;
  int64_t cur_read_ = 0, cur_write_ = 0;
  bool first_block_folded_ = false;
  int64_t alloc_ids_ = 0;
  std::unordered_map<uint64_t, Val> gm_stores_, local_stores_;
  uint64_t rows_ = 0;
  // Component accumulation: per op, where its per-block sums go.
  struct Contribution {
    size_t key;
    Field field;
  };
  std::vector<std::vector<Contribution>> contributions_;
  std::vector<std::pair<std::string, std::string>> keys_;  // (map, class): map = "aiv.vector", "issued_guaranteed:aiv", ...
  std::vector<int64_t> key_block_, key_min_, key_grid_;
  // Vector FLOP by element type (the lane operand's, known at execution).
  std::map<std::string, int64_t> cur_dyn_;
  std::map<std::string, Result::Work> dyn_;
  // Launch data by HIVM argument index of each function.
  std::vector<std::vector<const std::vector<int64_t> *>> arg_data_;
};

void Machine::count(uint32_t op, const Exec &e, int64_t iterations) {
  Sums &c = cur_[op];
  c[kCount] += 1;
  c[kIterations] += iterations;
  if (e.bytes > 0) c[kBytes] += e.bytes;
  if (e.elements > 0) c[kElements] += e.elements;
  if (e.flop > 0) c[kFlop] += e.flop;
  if (e.repeats > 0) c[kRepeats] += e.repeats;
  if (e.masked_lanes > 0) c[kMasked] += e.masked_lanes;
  if (e.packets > 0) c[kPackets] += e.packets;
  if (e.mte1_bytes > 0) c[kMte1] += e.mte1_bytes;
  c[kScalar] += e.scalar;
  c[kIssued] += e.issued;
  c[kGuaranteed] += e.guaranteed;
  c[kGmScalarBytes] += e.gm_scalar_bytes;
  ++inst_count_[op];
  OpStats &s = r_.ops[op];
  auto fold = [](int64_t &lo, int64_t &hi, int64_t v) {
    if (v < 0) return;
    lo = lo < 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  };
  if (!s.executed) {
    s.executed = true;
    s.first = e;
    s.first_block = block_;
    s.exec_min = e;
    s.exec_max = e;
  } else {
    fold(s.exec_min.elements, s.exec_max.elements, e.elements);
    fold(s.exec_min.bytes, s.exec_max.bytes, e.bytes);
    fold(s.exec_min.packet_bytes, s.exec_max.packet_bytes, e.packet_bytes);
    fold(s.exec_min.packets, s.exec_max.packets, e.packets);
    fold(s.exec_min.repeats, s.exec_max.repeats, e.repeats);
    fold(s.exec_min.masked_lanes, s.exec_max.masked_lanes, e.masked_lanes);
    fold(s.exec_min.flop, s.exec_max.flop, e.flop);
    fold(s.exec_min.mte1_bytes, s.exec_max.mte1_bytes, e.mte1_bytes);
    fold(s.exec_min.m, s.exec_max.m, e.m);
    fold(s.exec_min.k, s.exec_max.k, e.k);
    fold(s.exec_min.n, s.exec_max.n, e.n);
    s.exec_min.scalar = std::min(s.exec_min.scalar, e.scalar);
    s.exec_max.scalar = std::max(s.exec_max.scalar, e.scalar);
    s.exec_min.issued = std::min(s.exec_min.issued, e.issued);
    s.exec_max.issued = std::max(s.exec_max.issued, e.issued);
    s.exec_min.guaranteed = std::min(s.exec_min.guaranteed, e.guaranteed);
    s.exec_max.guaranteed = std::max(s.exec_max.guaranteed, e.guaranteed);
  }
  if (options_.trace) r_.trace.back().push_back({op, instance_, e});
}

/// Calls on_row(first byte, end byte) for every contiguous run of `v`
/// (`run` elements), relative to its root.
void Machine::rows(const View &v, int64_t run, const std::function<void(int64_t, int64_t)> &on_row, uint32_t line) {
  const int64_t eb = static_cast<int64_t>((v.elem.bits + 7) / 8);
  const size_t rank = v.sizes.size();
  for (int64_t d : v.sizes)
    if (d <= 0) return;
  // Dimensions inside the run are the innermost ones whose product is `run`.
  size_t outer = rank;
  int64_t gathered = 1;
  while (outer > 0 && gathered < run) {
    --outer;
    gathered *= v.sizes[outer];
  }
  // Skip size-1 dims that the run walked over (they contribute nothing).
  std::vector<int64_t> idx(outer, 0);
  for (;;) {
    if (++rows_ > options_.max_rows)
      throw OracleError(OracleError::Kind::Budget, line,
                        "refused: more than " + std::to_string(options_.max_rows) + " contiguous GM rows (Options::max_rows)");
    int64_t off = v.offset;
    for (size_t d = 0; d < outer; ++d) off += idx[d] * v.strides[d];
    const int64_t begin = v.root_byte + off * eb;
    on_row(begin, begin + run * eb);
    size_t d = outer;
    while (d > 0) {
      --d;
      if (++idx[d] < v.sizes[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (outer == 0) return;
  }
}

void Machine::touch_gm(const View &v, bool write, bool dma, uint32_t line) {
  if (v.space != Space::GM) return;
  if (v.root != RootKind::Arg && v.root != RootKind::Workspace) return;
  Shape s;
  s.memref = true;
  s.elem = v.elem;
  s.sizes = v.sizes;
  s.strides = v.strides;
  const int64_t run = std::max<int64_t>(1, std::min(contiguous_run(s), element_count(s)));
  ByteSet *set = nullptr;
  if (v.root == RootKind::Workspace) set = write ? &r_.workspace_written[0] : &r_.workspace_read[0];
  else if (dma) set = write ? &r_.dma_written[static_cast<int32_t>(v.root_id)] : &r_.dma_read[static_cast<int32_t>(v.root_id)];
  else set = write ? &r_.scalar_written[static_cast<int32_t>(v.root_id)] : &r_.scalar_read[static_cast<int32_t>(v.root_id)];
  rows(v, run, [&](int64_t b, int64_t e) { set->add(b, e); }, line);
}

Val Machine::load(const Fn &fn, Frame &, const Inst &inst, const View &v, int64_t element, uint32_t line) {
  const int64_t eb = static_cast<int64_t>((v.elem.bits + 7) / 8);
  const int64_t byte = v.root_byte + element * eb;
  Val out;
  const bool is_float = v.elem.is_float;
  out.t = is_float ? Val::T::Float : Val::T::Int;
  out.width = inst.width;
  const uint64_t key = mix64(static_cast<uint64_t>(v.root) ^ mix64(static_cast<uint64_t>(v.root_id) ^ mix64(static_cast<uint64_t>(byte))));
  auto &stores = v.space == Space::GM ? gm_stores_ : local_stores_;
  if (auto it = stores.find(key); it != stores.end()) return it->second;
  if (v.root == RootKind::Arg) {
    const std::vector<int64_t> *data = arg_data_[static_cast<size_t>(&fn - fns_.data())][static_cast<size_t>(v.root_id)];
    if (data != nullptr) {
      const ArgInfo &a = fn.args[static_cast<size_t>(v.root_id)];
      const int64_t arg_eb = static_cast<int64_t>((a.type.elem.bits + 7) / 8);
      if (byte % arg_eb != 0) world(line, "a load of launch data at a byte offset that is not an element boundary");
      const int64_t index = byte / arg_eb;
      if (index < 0 || index >= static_cast<int64_t>(data->size()))
        world(line, "this load reads element " + std::to_string(index) + " of Triton argument " +
                        std::to_string(a.triton) + ", outside the " + std::to_string(data->size()) + " elements given");
      out.i = canon(static_cast<uint64_t>((*data)[static_cast<size_t>(index)]), inst.width);
      out.f = static_cast<double>((*data)[static_cast<size_t>(index)]);
      return out;
    }
  }
  const int64_t value = provider(static_cast<uint64_t>(v.root) + 11, static_cast<uint64_t>(v.root_id), static_cast<uint64_t>(byte),
                                 options_.load_lo, options_.load_hi);
  out.i = canon(static_cast<uint64_t>(value), inst.width);
  out.f = static_cast<double>(value);
  return out;
}

const Inst *Machine::run_region(const Fn &fn, Frame &f, const Region &region) {
  for (uint32_t idx : region.insts) {
    const Inst &inst = fn.insts[idx];
    if (inst.kind == K::Yield || inst.kind == K::Condition || inst.kind == K::Return) {
      tick(inst.line);
      Exec e;
      if (inst.kind == K::Return) {
        e.scalar = e.issued = 1;
      }
      count(inst.op, e);
      return &inst;
    }
    exec(fn, f, inst);
  }
  return nullptr;
}

void Machine::exec_view(const Fn &fn, Frame &f, const Inst &inst) {
  const uint32_t line = inst.line;
  Exec e;
  auto dyn = [](const std::vector<Entry> &v) {
    int64_t n = 0;
    for (const Entry &x : v) n += x.slot >= 0;
    return n;
  };
  e.scalar = e.issued = dyn(inst.offsets) + dyn(inst.sizes) + dyn(inst.strides);
  switch (inst.kind) {
    case K::Subview: {
      View src = view_of(f, inst.in[0], fn, line);
      const size_t rank = src.sizes.size();
      if (inst.offsets.size() != rank || inst.sizes.size() != rank || inst.strides.size() != rank)
        unsupported(line, "subview lists do not match the source's rank");
      View out = src;
      out.sizes.clear();
      out.strides.clear();
      std::vector<int64_t> sizes(rank), strides(rank);
      for (size_t d = 0; d < rank; ++d) {
        const int64_t o = entry(f, inst.offsets[d], fn, line), sz = entry(f, inst.sizes[d], fn, line),
                      st = entry(f, inst.strides[d], fn, line);
        if (o < 0 || sz < 0 || (sz > 0 && o + (sz - 1) * st >= src.sizes[d]) || (sz > 0 && o >= src.sizes[d]))
          world(line, "subview dimension " + std::to_string(d) + " [" + std::to_string(o) + ", size " + std::to_string(sz) +
                          ", stride " + std::to_string(st) + "] is outside the source's " + std::to_string(src.sizes[d]));
        out.offset += o * src.strides[d];
        sizes[d] = sz;
        strides[d] = src.strides[d] * st;
      }
      // Rank reduction: the first unit dimensions beyond the result type's rank are dropped.
      const size_t want = inst.type.kind == Type::Kind::Memref ? inst.type.rank() : rank;
      size_t drop = rank > want ? rank - want : 0;
      for (size_t d = 0; d < rank; ++d) {
        if (drop > 0 && sizes[d] == 1) {
          --drop;
          continue;
        }
        out.sizes.push_back(sizes[d]);
        out.strides.push_back(strides[d]);
      }
      if (drop > 0) unsupported(line, "a rank-reducing subview without enough unit dimensions");
      set_view(f, inst.out[0], std::move(out));
      break;
    }
    case K::Reinterpret: {
      const View &src = view_of(f, inst.in[0], fn, line);
      View out;
      out.space = inst.type.space != Space::Unknown ? inst.type.space : src.space;
      out.elem = inst.type.elem;
      out.root = src.root;
      out.root_id = src.root_id;
      out.root_byte = src.root_byte;
      if (inst.offsets.size() != 1) unsupported(line, "reinterpret_cast with " + std::to_string(inst.offsets.size()) + " offsets");
      out.offset = entry(f, inst.offsets[0], fn, line);
      for (const Entry &x : inst.sizes) out.sizes.push_back(entry(f, x, fn, line));
      for (const Entry &x : inst.strides) out.strides.push_back(entry(f, x, fn, line));
      if (out.sizes.size() != out.strides.size()) unsupported(line, "reinterpret_cast sizes and strides differ in rank");
      for (int64_t s : out.sizes)
        if (s < 0) world(line, "reinterpret_cast to a negative size");
      set_view(f, inst.out[0], std::move(out));
      break;
    }
    case K::ViewCast: {
      View out = view_of(f, inst.in[0], fn, line);
      if (inst.type.kind == Type::Kind::Memref) {
        if (inst.type.rank() != out.sizes.size()) unsupported(line, "memref.cast changes the rank");
        for (size_t d = 0; d < out.sizes.size(); ++d)
          if (inst.type.shape[d] != kDynamic && inst.type.shape[d] != out.sizes[d])
            world(line, "memref.cast to a static size that differs from the value's");
      }
      set_view(f, inst.out[0], std::move(out));
      break;
    }
    case K::Bitcast: {
      View out = view_of(f, inst.in[0], fn, line);
      if (inst.type.kind == Type::Kind::Memref && inst.type.elem.bits != out.elem.bits && inst.type.elem.bits != 0) {
        if (out.elem.bits == 0 || inst.type.elem.bits == 0) unsupported(line, "bitcast of unknown element types");
        unsupported(line, "a bitcast that changes the element width");
      }
      if (inst.type.kind == Type::Kind::Memref) out.elem = inst.type.elem;
      set_view(f, inst.out[0], std::move(out));
      break;
    }
    case K::Collapse: {
      const View &src = view_of(f, inst.in[0], fn, line);
      View out = src;
      out.sizes.clear();
      out.strides.clear();
      for (const std::vector<int64_t> &g : inst.groups) {
        int64_t size = 1, stride = 1;
        for (int64_t d : g) {
          if (d < 0 || static_cast<size_t>(d) >= src.sizes.size()) unsupported(line, "collapse group out of range");
          size *= src.sizes[static_cast<size_t>(d)];
        }
        if (!g.empty()) stride = src.strides[static_cast<size_t>(g.back())];
        // Only a group that is contiguous collapses into one stride.
        for (size_t k = g.size(); k-- > 1;) {
          const size_t inner = static_cast<size_t>(g[k]), outer_d = static_cast<size_t>(g[k - 1]);
          if (src.sizes[outer_d] > 1 && src.sizes[inner] > 1 &&
              src.strides[outer_d] != src.strides[inner] * src.sizes[inner])
            unsupported(line, "collapse_shape of a non-contiguous group");
        }
        out.sizes.push_back(size);
        out.strides.push_back(stride);
      }
      set_view(f, inst.out[0], std::move(out));
      break;
    }
    case K::Expand: {
      const View &src = view_of(f, inst.in[0], fn, line);
      View out = src;
      out.sizes.clear();
      out.strides.clear();
      std::vector<int64_t> shape;
      if (!inst.sizes.empty()) {
        for (const Entry &x : inst.sizes) shape.push_back(entry(f, x, fn, line));
      } else {
        for (int64_t d : inst.type.shape) {
          if (d == kDynamic) unsupported(line, "expand_shape without output_shape to a dynamic size");
          shape.push_back(d);
        }
      }
      size_t next = 0;
      if (inst.groups.size() != src.sizes.size()) unsupported(line, "expand_shape groups do not match the source rank");
      for (size_t d = 0; d < inst.groups.size(); ++d) {
        const std::vector<int64_t> &g = inst.groups[d];
        std::vector<int64_t> gs, gst(g.size());
        int64_t product = 1;
        for (size_t k = 0; k < g.size(); ++k) {
          if (next >= shape.size()) unsupported(line, "expand_shape output_shape too short");
          gs.push_back(shape[next++]);
          product *= gs.back();
        }
        if (product != src.sizes[d]) world(line, "expand_shape sizes do not multiply to the source's");
        int64_t st = src.strides[d];
        for (size_t k = g.size(); k-- > 0;) {
          gst[k] = st;
          st *= gs[k];
        }
        out.sizes.insert(out.sizes.end(), gs.begin(), gs.end());
        out.strides.insert(out.strides.end(), gst.begin(), gst.end());
      }
      set_view(f, inst.out[0], std::move(out));
      break;
    }
    case K::ExtractMeta: {
      const View &src = view_of(f, inst.in[0], fn, line);
      const size_t rank = src.sizes.size();
      if (inst.out.size() != 2 + 2 * rank) unsupported(line, "extract_strided_metadata result count");
      View base = src;
      base.offset = 0;
      base.sizes.clear();
      base.strides.clear();
      const int64_t off = src.offset;
      std::vector<int64_t> sizes = src.sizes, strides = src.strides;
      set_view(f, inst.out[0], std::move(base));
      set_int(f, inst.out[1], off, 64);
      for (size_t d = 0; d < rank; ++d) {
        set_int(f, inst.out[2 + d], sizes[d], 64);
        set_int(f, inst.out[2 + rank + d], strides[d], 64);
      }
      break;
    }
    case K::PointerCast: {
      std::vector<int64_t> addrs;
      for (int32_t s : inst.in) addrs.push_back(int_of(f, s, fn, line));
      if (addrs.empty()) unsupported(line, "pointer_cast without an address");
      View out = view_of_type(inst.type, {}, line);
      out.root = RootKind::Address;
      out.root_id = static_cast<int64_t>(inst.type.space) * 1'000'003 + addrs[0];
      out.root_byte = addrs[0];
      set_view(f, inst.out[0], std::move(out));
      e.scalar = e.issued = 0;
      break;
    }
    case K::AllocWorkspace: {
      const View &src = view_of(f, inst.in[0], fn, line);
      int64_t byte = 0;
      for (const Entry &x : inst.offsets) byte += entry(f, x, fn, line);
      View out = view_of_type(inst.type, {}, line);
      if (out.space == Space::Unknown) out.space = src.space;
      out.root = RootKind::Workspace;
      out.root_id = 0;
      out.root_byte = src.root_byte + byte;
      set_view(f, inst.out[0], std::move(out));
      e.scalar = e.issued = 1;
      break;
    }
    case K::Alloc: {
      std::vector<int64_t> sizes;
      for (int32_t s : inst.in) sizes.push_back(int_of(f, s, fn, line));
      View out = view_of_type(inst.type, sizes, line);
      out.root = RootKind::Alloc;
      out.root_id = ++alloc_ids_;
      set_view(f, inst.out[0], std::move(out));
      e.scalar = e.issued = 0;
      break;
    }
    default: break;
  }
  count(inst.op, e);
}

void Machine::exec_hivm(const Fn &, Frame &f, const Inst &inst) {
  const uint32_t line = inst.line;
  OpStats &st = r_.ops[inst.op];
  Exec e;
  e.issued = 1;
  if (!st.modelled) {
    count(inst.op, e);
    return;
  }
  auto shape_of = [&](const HOperand &h, Shape &out, int64_t *scalar) {
    if (h.type.kind != Type::Kind::Memref) {
      out.memref = false;
      if (scalar != nullptr && h.slot >= 0) {
        const Val &v = f.vals[static_cast<size_t>(h.slot)];
        if (v.t == Val::T::Int) *scalar = v.i;
      }
      return;
    }
    out.memref = true;
    out.space = h.type.space;
    out.elem = h.type.elem;
    if (h.slot >= 0 && f.vals[static_cast<size_t>(h.slot)].t == Val::T::Mem) {
      const View &v = f.views[static_cast<size_t>(f.vals[static_cast<size_t>(h.slot)].mem)];
      out.sizes = v.sizes;
      out.strides = v.strides;
      if (v.space != Space::Unknown) out.space = v.space;
      return;
    }
    View v = view_of_type(h.type, {}, line);
    out.sizes = v.sizes;
    out.strides = v.strides;
  };
  std::vector<Shape> ins(inst.ins.size()), outs(inst.outs.size());
  std::vector<int64_t> scalars(inst.ins.size(), INT64_MIN);
  for (size_t idx = 0; idx < inst.ins.size(); ++idx) shape_of(inst.ins[idx], ins[idx], &scalars[idx]);
  for (size_t idx = 0; idx < inst.outs.size(); ++idx) shape_of(inst.outs[idx], outs[idx], nullptr);
  for (const std::vector<Shape> *side : {&ins, &outs})
    for (const Shape &sh : *side)
      for (int64_t d : sh.sizes)
        if (d >= kUnknownExtent)
          unsupported(line, "an operand over a kernel argument of unknown extent (a dynamic dimension the launch gives no data for)");
  auto first_memref = [](const std::vector<Shape> &v, const std::vector<HOperand> &h) -> std::pair<const Shape *, int32_t> {
    for (size_t idx = 0; idx < v.size(); ++idx)
      if (v[idx].memref) return {&v[idx], h[idx].slot};
    return {nullptr, -1};
  };
  auto [src, src_slot] = first_memref(ins, inst.ins);
  auto [dst, dst_slot] = first_memref(outs, inst.outs);

  if (st.cls == OpClass::Cube) {
    if (ins.size() < 6 || src == nullptr) unsupported(line, "a cube op whose operands the oracle does not read");
    const int64_t m = scalars[3], k = scalars[4], n = scalars[5];
    if (m == INT64_MIN || k == INT64_MIN || n == INT64_MIN) {
      st.unknown.push_back("m/k/n");
    } else {
      e.m = m;
      e.k = k;
      e.n = n;
      e.flop = cube_flop(m, k, n);
      e.mte1_bytes = cube_mte1_bytes(m, k, n, src->elem, options_);
    }
    e.issued = 3;
    e.guaranteed = 1;
    count(inst.op, e);
    return;
  }
  if (is_vector_class(st.cls)) {
    std::vector<Shape> all = ins;
    all.insert(all.end(), outs.begin(), outs.end());
    VectorWork w = vector_work(all, st.cls, options_.vector_repeat_bytes);
    e.elements = w.elements;
    e.repeats = w.repeats;
    e.masked_lanes = w.masked_lanes;
    e.flop = w.flop;
    e.issued = e.guaranteed = vector_instructions(w.repeats);
    if (inst.name == "hivm.hir.copy" && src != nullptr) e.bytes = bytes_of(element_count(*src), src->elem.bits);
    if (st.dtype.empty()) st.dtype = w.dtype;
    if (w.flop > 0 && st.core != Core::Unknown && !st.pipes.empty() && st.pipes[0] == Pipe::V)
      cur_dyn_[w.dtype.empty() ? "unknown" : w.dtype] += w.flop;
    count(inst.op, e);
    return;
  }
  // DMA: the GM side, else the source.
  const Shape *side = nullptr;
  int32_t side_slot = -1;
  bool write = false;
  if (src != nullptr && src->space == Space::GM) {
    side = src;
    side_slot = src_slot;
  } else if (dst != nullptr && dst->space == Space::GM) {
    side = dst;
    side_slot = dst_slot;
    write = true;
  } else if (src != nullptr) {
    side = src;
    side_slot = src_slot;
  } else if (dst != nullptr) {
    side = dst;
    side_slot = dst_slot;
  }
  if (side == nullptr) {
    st.unknown.push_back("bytes");
    e.guaranteed = 1;
    count(inst.op, e);
    return;
  }
  e.elements = element_count(*side);
  e.bytes = bytes_of(e.elements, side->elem.bits);
  const int64_t run = std::max<int64_t>(1, contiguous_run(*side));
  e.packet_bytes = bytes_of(run, side->elem.bits);
  e.packets = e.elements == 0 ? 0 : (e.elements + run - 1) / run;
  e.guaranteed = 1;
  if (side->space == Space::GM && side_slot >= 0 && f.vals[static_cast<size_t>(side_slot)].t == Val::T::Mem) {
    const View &v = f.views[static_cast<size_t>(f.vals[static_cast<size_t>(side_slot)].mem)];
    touch_gm(v, write, true, line);
    const char *kind = v.root == RootKind::Arg         ? "arg"
                       : v.root == RootKind::Workspace ? "workspace"
                       : v.root == RootKind::Alloc     ? "alloc"
                                                       : "unknown";
    const int32_t arg = v.root == RootKind::Arg ? static_cast<int32_t>(v.root_id) : -1;
    if (st.gm_kind.empty()) {
      st.gm_kind = kind;
      st.gm_arg = arg;
      st.gm_write = write;
    }
    Result::TransferKey key{write, core_name(st.core), st.path, kind, arg, e.bytes, e.packet_bytes};
    r_.transfer_grid[key] += e.bytes;
    (write ? cur_write_ : cur_read_) += e.bytes;
  }
  count(inst.op, e);
}

void Machine::exec(const Fn &fn, Frame &f, const Inst &inst) {
  tick(inst.line);
  const uint32_t line = inst.line;
  Exec e;
  switch (inst.kind) {
    case K::Const:
      f.vals[static_cast<size_t>(inst.out[0])] = inst.constant;
      break;
    case K::IntBin: {
      const int64_t a = int_of(f, inst.in[0], fn, line), b = int_of(f, inst.in[1], fn, line);
      const uint8_t w = inst.width;
      const uint64_t ua = as_unsigned(a, w), ub = as_unsigned(b, w);
      int64_t r = 0;
      const int64_t min_w = w >= 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
      switch (static_cast<IntOp>(inst.sub)) {
        case IntOp::Add: r = static_cast<int64_t>(ua + ub); break;
        case IntOp::Sub: r = static_cast<int64_t>(ua - ub); break;
        case IntOp::Mul: r = static_cast<int64_t>(ua * ub); break;
        case IntOp::DivS:
        case IntOp::RemS:
        case IntOp::CeilDivS:
        case IntOp::FloorDivS:
          if (b == 0) world(line, "division by zero");
          if (a == min_w && b == -1) world(line, "signed division overflow");
          if (static_cast<IntOp>(inst.sub) == IntOp::DivS) r = a / b;
          else if (static_cast<IntOp>(inst.sub) == IntOp::RemS) r = a % b;
          else if (static_cast<IntOp>(inst.sub) == IntOp::FloorDivS) r = floor_div(a, b);
          else r = -floor_div(-a, b);
          break;
        case IntOp::DivU:
        case IntOp::RemU:
        case IntOp::CeilDivU:
          if (ub == 0) world(line, "division by zero");
          if (static_cast<IntOp>(inst.sub) == IntOp::DivU) r = static_cast<int64_t>(ua / ub);
          else if (static_cast<IntOp>(inst.sub) == IntOp::RemU) r = static_cast<int64_t>(ua % ub);
          else r = static_cast<int64_t>(ua / ub + (ua % ub != 0));
          break;
        case IntOp::MinS: r = std::min(a, b); break;
        case IntOp::MaxS: r = std::max(a, b); break;
        case IntOp::MinU: r = static_cast<int64_t>(std::min(ua, ub)); break;
        case IntOp::MaxU: r = static_cast<int64_t>(std::max(ua, ub)); break;
        case IntOp::And: r = a & b; break;
        case IntOp::Or: r = a | b; break;
        case IntOp::Xor: r = a ^ b; break;
        case IntOp::Shl:
        case IntOp::ShrS:
        case IntOp::ShrU:
          if (ub >= w) world(line, "shift by " + std::to_string(ub) + " of an i" + std::to_string(w));
          if (static_cast<IntOp>(inst.sub) == IntOp::Shl) r = static_cast<int64_t>(ua << ub);
          else if (static_cast<IntOp>(inst.sub) == IntOp::ShrS) r = a >> ub;
          else r = static_cast<int64_t>(ua >> ub);
          break;
      }
      set_int(f, inst.out[0], r, w);
      e.scalar = e.issued = 1;
      break;
    }
    case K::FloatBin: {
      const Val &a = val(f, inst.in[0], fn, line);
      const double x = a.t == Val::T::Float ? a.f : static_cast<double>(a.i);
      double y = 0;
      if (inst.in.size() > 1) {
        const Val &b = val(f, inst.in[1], fn, line);
        y = b.t == Val::T::Float ? b.f : static_cast<double>(b.i);
      }
      double r = 0;
      switch (static_cast<FloatOp>(inst.sub)) {
        case FloatOp::Add: r = x + y; break;
        case FloatOp::Sub: r = x - y; break;
        case FloatOp::Mul: r = x * y; break;
        case FloatOp::Div: r = x / y; break;
        case FloatOp::Rem: r = std::fmod(x, y); break;
        case FloatOp::Min: r = std::min(x, y); break;
        case FloatOp::Max: r = std::max(x, y); break;
        case FloatOp::Neg: r = -x; break;
        case FloatOp::Abs: r = std::fabs(x); break;
      }
      Val &out = f.vals[static_cast<size_t>(inst.out[0])];
      out.t = Val::T::Float;
      out.f = r;
      e.scalar = e.issued = 1;
      break;
    }
    case K::CmpI:
    case K::CmpF: {
      bool r = false;
      if (inst.kind == K::CmpI) {
        const int64_t a = int_of(f, inst.in[0], fn, line), b = int_of(f, inst.in[1], fn, line);
        const uint64_t ua = as_unsigned(a, inst.from_width), ub = as_unsigned(b, inst.from_width);
        switch (static_cast<Pred>(inst.sub)) {
          case Pred::Eq: r = a == b; break;
          case Pred::Ne: r = a != b; break;
          case Pred::Slt: r = a < b; break;
          case Pred::Sle: r = a <= b; break;
          case Pred::Sgt: r = a > b; break;
          case Pred::Sge: r = a >= b; break;
          case Pred::Ult: r = ua < ub; break;
          case Pred::Ule: r = ua <= ub; break;
          case Pred::Ugt: r = ua > ub; break;
          case Pred::Uge: r = ua >= ub; break;
          default: break;
        }
      } else {
        const Val &va = val(f, inst.in[0], fn, line), &vb = val(f, inst.in[1], fn, line);
        const double a = va.t == Val::T::Float ? va.f : static_cast<double>(va.i);
        const double b = vb.t == Val::T::Float ? vb.f : static_cast<double>(vb.i);
        switch (static_cast<Pred>(inst.sub)) {
          case Pred::Eq: r = a == b; break;
          case Pred::Ne: r = a != b; break;
          case Pred::Slt: r = a < b; break;
          case Pred::Sle: r = a <= b; break;
          case Pred::Sgt: r = a > b; break;
          case Pred::Sge: r = a >= b; break;
          case Pred::True: r = true; break;
          case Pred::Ord: r = !std::isnan(a) && !std::isnan(b); break;
          case Pred::Uno: r = std::isnan(a) || std::isnan(b); break;
          default: break;
        }
      }
      set_int(f, inst.out[0], r ? 1 : 0, 1);
      e.scalar = e.issued = 1;
      break;
    }
    case K::Select: {
      const int64_t c = int_of(f, inst.in[0], fn, line);
      f.vals[static_cast<size_t>(inst.out[0])] = val(f, c != 0 ? inst.in[1] : inst.in[2], fn, line);
      e.scalar = e.issued = 1;
      break;
    }
    case K::Cast: {
      const Val &a = val(f, inst.in[0], fn, line);
      Val out;
      const auto op = static_cast<CastOp>(inst.sub);
      if (inst.result_float) {
        out.t = Val::T::Float;
        out.f = a.t == Val::T::Float ? a.f
                : op == CastOp::UIntToFloat ? static_cast<double>(as_unsigned(a.i, inst.from_width))
                                             : static_cast<double>(a.i);
        f.vals[static_cast<size_t>(inst.out[0])] = out;
      } else {
        int64_t v = 0;
        if (a.t == Val::T::Float) {
          if (!std::isfinite(a.f) || std::fabs(a.f) > 9.2e18) world(line, "float to integer conversion out of range");
          v = static_cast<int64_t>(a.f);
        } else if (a.t == Val::T::Int) {
          v = a.i;
          if (op == CastOp::ZExt) v = static_cast<int64_t>(as_unsigned(a.i, inst.from_width));
          else if (inst.from_width == 1 && op == CastOp::SExt) v = a.i != 0 ? -1 : 0;
        } else {
          unsupported(line, "cast of a memref");
        }
        set_int(f, inst.out[0], v, inst.width);
      }
      e.scalar = e.issued = 1;
      break;
    }
    case K::Affine: {
      std::vector<int64_t> ops;
      ops.reserve(inst.in.size());
      for (int32_t s : inst.in) ops.push_back(int_of(f, s, fn, line));
      std::string why;
      auto vals = inst.map->eval(ops, why);
      if (!vals) world(line, "affine map: " + why);
      if (vals->empty()) unsupported(line, "affine map without results");
      int64_t r = (*vals)[0];
      if (inst.sub == 1) r = *std::min_element(vals->begin(), vals->end());
      if (inst.sub == 2) r = *std::max_element(vals->begin(), vals->end());
      set_int(f, inst.out[0], r, 64);
      const int64_t extra = inst.sub == 0 ? 0 : static_cast<int64_t>(inst.map->results()) - 1;
      e.scalar = e.issued = std::max<int64_t>(1, inst.map->operations() + extra);
      break;
    }
    case K::Subview:
    case K::Reinterpret:
    case K::ViewCast:
    case K::Collapse:
    case K::Expand:
    case K::Bitcast:
    case K::ExtractMeta:
    case K::PointerCast:
    case K::AllocWorkspace:
    case K::Alloc:
      exec_view(fn, f, inst);
      return;
    case K::BlockIdx:
      set_int(f, inst.out[0], block_, 64);
      e.scalar = e.issued = e.guaranteed = 1;
      break;
    case K::SubBlockIdx:
      set_int(f, inst.out[0], instance_, 64);
      e.scalar = e.issued = e.guaranteed = 1;
      break;
    case K::BlockNum:
      set_int(f, inst.out[0], r_.blocks, 64);
      e.scalar = e.issued = e.guaranteed = 1;
      break;
    case K::SubBlockNum:
      set_int(f, inst.out[0], fn.info.instances, 64);
      e.scalar = e.issued = e.guaranteed = 1;
      break;
    case K::OtherScalar:
      e.scalar = e.issued = 1;
      e.guaranteed = inst.info.cls == OpClass::HivmScalar && guaranteed_hivm_scalar(inst.name) ? 1 : 0;
      for (int32_t o : inst.out) f.vals[static_cast<size_t>(o)] = Val{};
      break;
    case K::Load:
    case K::Store: {
      const bool is_store = inst.kind == K::Store;
      const size_t mem_at = is_store ? 1 : 0;
      const View &v = view_of(f, inst.in[mem_at], fn, line);
      int64_t element = v.offset;
      const size_t first_index = inst.sub;
      if (inst.in.size() - first_index != v.sizes.size())
        unsupported(line, "memref access with " + std::to_string(inst.in.size() - first_index) + " indices into rank " +
                              std::to_string(v.sizes.size()));
      for (size_t d = 0; d < v.sizes.size(); ++d) {
        const int64_t i = int_of(f, inst.in[first_index + d], fn, line);
        if (i < 0 || i >= v.sizes[d])
          world(line, "index " + std::to_string(i) + " outside dimension " + std::to_string(d) + " of size " +
                          std::to_string(v.sizes[d]));
        element += i * v.strides[d];
      }
      const int64_t eb = static_cast<int64_t>((v.elem.bits + 7) / 8);
      if (is_store) {
        const Val &value = val(f, inst.in[0], fn, line);
        const uint64_t key = mix64(static_cast<uint64_t>(v.root) ^
                                   mix64(static_cast<uint64_t>(v.root_id) ^ mix64(static_cast<uint64_t>(v.root_byte + element * eb))));
        (v.space == Space::GM ? gm_stores_ : local_stores_)[key] = value;
      } else {
        f.vals[static_cast<size_t>(inst.out[0])] = load(fn, f, inst, v, element, line);
      }
      e.scalar = e.issued = e.guaranteed = 1;
      e.elements = 1;
      e.bytes = eb;
      if (v.space == Space::GM) {
        e.gm_scalar_bytes = eb;
        View one = v;
        one.offset = element;
        one.sizes.assign(1, 1);
        one.strides.assign(1, 1);
        touch_gm(one, is_store, false, line);
      }
      break;
    }
    case K::Hivm:
      exec_hivm(fn, f, inst);
      return;
    case K::Sync:
      e.issued = e.guaranteed = 1;
      break;
    case K::For: {
      const int64_t lb = int_of(f, inst.in[0], fn, line), ub = int_of(f, inst.in[1], fn, line),
                    step = int_of(f, inst.in[2], fn, line);
      if (step <= 0) world(line, "scf.for with step " + std::to_string(step));
      const Region &body = inst.regions[0];
      std::vector<Val> carried;
      for (size_t idx = 3; idx < inst.in.size(); ++idx) carried.push_back(val(f, inst.in[idx], fn, line));
      size_t trace_at = 0;
      if (options_.trace) {
        trace_at = r_.trace.back().size();
        r_.trace.back().push_back({inst.op, instance_, {}});
      }
      int64_t trips = 0;
      for (int64_t iv = lb; iv < ub; iv += step) {
        set_int(f, body.args[0], iv, inst.width);
        for (size_t idx = 0; idx < carried.size(); ++idx) f.vals[static_cast<size_t>(body.args[1 + idx])] = carried[idx];
        const Inst *term = run_region(fn, f, body);
        if (term != nullptr && term->kind == K::Yield)
          for (size_t idx = 0; idx < carried.size() && idx < term->in.size(); ++idx) carried[idx] = val(f, term->in[idx], fn, line);
        ++trips;
        if (iv > INT64_MAX - step) break;
      }
      for (size_t idx = 0; idx < inst.out.size() && idx < carried.size(); ++idx) f.vals[static_cast<size_t>(inst.out[idx])] = carried[idx];
      e.scalar = e.issued = 1 + 2 * trips;
      OpStats &st = r_.ops[inst.op];
      st.trip_min = st.trip_min < 0 ? trips : std::min(st.trip_min, trips);
      st.trip_max = std::max(st.trip_max, trips);
      const bool trace = options_.trace;
      if (trace) {
        // The loop's own event stays where the loop was entered.
        count(inst.op, e, trips);
        r_.trace.back()[trace_at].work = e;
        r_.trace.back().pop_back();
      } else {
        count(inst.op, e, trips);
      }
      return;
    }
    case K::While: {
      std::vector<Val> carried;
      for (int32_t s : inst.in) carried.push_back(val(f, s, fn, line));
      int64_t trips = 0;
      for (;;) {
        const Region &before = inst.regions[0];
        for (size_t idx = 0; idx < before.args.size() && idx < carried.size(); ++idx)
          f.vals[static_cast<size_t>(before.args[idx])] = carried[idx];
        const Inst *cond = run_region(fn, f, before);
        if (cond == nullptr || cond->kind != K::Condition || cond->in.empty())
          unsupported(line, "scf.while whose condition region does not end in scf.condition");
        const bool go = int_of(f, cond->in[0], fn, cond->line) != 0;
        std::vector<Val> passed;
        for (size_t idx = 1; idx < cond->in.size(); ++idx) passed.push_back(val(f, cond->in[idx], fn, line));
        if (!go) {
          for (size_t idx = 0; idx < inst.out.size() && idx < passed.size(); ++idx)
            f.vals[static_cast<size_t>(inst.out[idx])] = passed[idx];
          break;
        }
        const Region &after = inst.regions[1];
        for (size_t idx = 0; idx < after.args.size() && idx < passed.size(); ++idx)
          f.vals[static_cast<size_t>(after.args[idx])] = passed[idx];
        const Inst *term = run_region(fn, f, after);
        carried.clear();
        if (term != nullptr)
          for (int32_t s : term->in) carried.push_back(val(f, s, fn, line));
        ++trips;
      }
      e.scalar = e.issued = 1 + 2 * trips;
      OpStats &st = r_.ops[inst.op];
      st.trip_min = st.trip_min < 0 ? trips : std::min(st.trip_min, trips);
      st.trip_max = std::max(st.trip_max, trips);
      count(inst.op, e, trips);
      return;
    }
    case K::If: {
      const int64_t c = int_of(f, inst.in[0], fn, line);
      e.scalar = e.issued = 1;
      count(inst.op, e);
      const Region *taken = c != 0 ? &inst.regions[0] : (inst.regions.size() > 1 ? &inst.regions[1] : nullptr);
      if (taken != nullptr) {
        const Inst *term = run_region(fn, f, *taken);
        if (term != nullptr && term->kind == K::Yield)
          for (size_t idx = 0; idx < inst.out.size() && idx < term->in.size(); ++idx)
            f.vals[static_cast<size_t>(inst.out[idx])] = val(f, term->in[idx], fn, line);
      } else if (!inst.out.empty()) {
        unsupported(line, "scf.if with results and no else region");
      }
      return;
    }
    case K::Nop:
      break;
    case K::Other:
      for (int32_t o : inst.out) f.vals[static_cast<size_t>(o)] = Val{};
      break;
    case K::Yield:
    case K::Condition:
    case K::Return:
      break;
  }
  count(inst.op, e);
}

void Machine::run_function(const Fn &fn, uint32_t instance) {
  instance_ = instance;
  Frame f;
  f.vals.assign(fn.slots, Val{});
  f.views.reserve(64);
  local_stores_.clear();
  const size_t fn_at = static_cast<size_t>(&fn - fns_.data());
  for (size_t a = 0; a < fn.args.size(); ++a) {
    const ArgInfo &arg = fn.args[a];
    const int32_t slot = fn.arg_slots[a];
    if (arg.type.kind == Type::Kind::Memref) {
      View v;
      v.space = arg.type.space;
      v.elem = arg.type.elem;
      v.root = arg.role == "workspace" ? RootKind::Workspace : RootKind::Arg;
      v.root_id = arg.role == "workspace" ? 0 : static_cast<int64_t>(a);
      const std::vector<int64_t> *data = arg_data_[fn_at][a];
      for (int64_t d : arg.type.shape) v.sizes.push_back(d == kDynamic ? (data ? static_cast<int64_t>(data->size()) : kUnknownExtent) : d);
      v.strides = row_major(v.sizes);
      set_view(f, slot, std::move(v));
      continue;
    }
    std::optional<double> value;
    if (arg.grid_axis >= 0) {
      value = static_cast<double>(static_cast<size_t>(arg.grid_axis) < launch_.grid.size()
                                      ? launch_.grid[static_cast<size_t>(arg.grid_axis)]
                                      : 1);
    } else if (arg.triton >= 0) {
      for (const std::string &key : {"%arg" + std::to_string(arg.triton), std::to_string(arg.triton)}) {
        auto it = launch_.args.find(key);
        if (it != launch_.args.end()) {
          value = it->second;
          break;
        }
      }
    }
    Val &out = f.vals[static_cast<size_t>(slot)];
    const uint8_t width = arg.type.kind == Type::Kind::Scalar && arg.type.elem.is_int
                              ? static_cast<uint8_t>(std::min<uint32_t>(arg.type.elem.bits, 64))
                              : 64;
    if (arg.type.kind == Type::Kind::Scalar && arg.type.elem.is_float) {
      out.t = Val::T::Float;
      out.f = value ? *value
                    : static_cast<double>(provider(7, static_cast<uint64_t>(arg.triton + 1), 0, options_.scalar_lo, options_.scalar_hi));
      continue;
    }
    int64_t v = value ? static_cast<int64_t>(*value)
                      : provider(7, static_cast<uint64_t>(arg.triton + 1), 0, options_.scalar_lo, options_.scalar_hi);
    set_int(f, slot, v, width);
  }
  const Inst *term = run_region(fn, f, fn.body);
  (void)term;
  for (size_t op = fn.first_op; op < fn.end_op; ++op) {
    inst_max_[op] = std::max(inst_max_[op], inst_count_[op]);
    inst_count_[op] = 0;
  }
}

void Machine::prepare() {
  const size_t n = r_.ops.size();
  cur_.assign(n, Sums{});
  inst_count_.assign(n, 0);
  inst_max_.assign(n, 0);
  // Launch data per function argument.
  arg_data_.resize(fns_.size());
  for (size_t fi = 0; fi < fns_.size(); ++fi) {
    const Fn &fn = fns_[fi];
    arg_data_[fi].assign(fn.args.size(), nullptr);
    for (size_t a = 0; a < fn.args.size(); ++a) {
      if (fn.args[a].triton < 0) continue;
      for (const std::string &key : {"%arg" + std::to_string(fn.args[a].triton), std::to_string(fn.args[a].triton)}) {
        auto it = launch_.data.find(key);
        if (it == launch_.data.end()) continue;
        if (fn.args[a].type.kind != Type::Kind::Memref)
          throw OracleError(OracleError::Kind::Input, fn.info.line,
                            "launch data \"" + key + "\" names a scalar argument of " + fn.info.name);
        arg_data_[fi][a] = &it->second;
        break;
      }
    }
  }
  // Static facts of HIVM ops: class and pipe by address spaces, path, dtype, GM side.
  for (Fn &fn : fns_)
    for (Inst &inst : fn.insts) {
      OpStats &st = r_.ops[inst.op];
      if (inst.kind == K::Load || inst.kind == K::Store) {
        st.scalar_kind = scalar_kind_of(OpClass::ScalarMemory, inst.name, inst.src_type.space, inst.kind == K::Store);
        continue;
      }
      if (inst.kind == K::IntBin || inst.kind == K::FloatBin || inst.kind == K::CmpI || inst.kind == K::CmpF ||
          inst.kind == K::Select || inst.kind == K::Cast || inst.kind == K::Affine || inst.kind == K::Subview ||
          inst.kind == K::Reinterpret || inst.kind == K::Collapse || inst.kind == K::Expand || inst.kind == K::ViewCast ||
          inst.kind == K::Bitcast || inst.kind == K::ExtractMeta) {
        st.scalar_kind = scalar_kind_of(inst.info.cls, inst.name, Space::Unknown, false);
        continue;
      }
      if (inst.kind == K::BlockIdx || inst.kind == K::SubBlockIdx || inst.kind == K::BlockNum || inst.kind == K::SubBlockNum) {
        st.scalar_kind = "hivm";
        continue;
      }
      if (inst.kind != K::Hivm) continue;
      auto first = [](const std::vector<HOperand> &v) -> const HOperand * {
        for (const HOperand &h : v)
          if (h.type.kind == Type::Kind::Memref || h.type.kind == Type::Kind::Tensor) return &h;
        return nullptr;
      };
      const HOperand *src = first(inst.ins), *dst = first(inst.outs);
      st.src = src != nullptr ? src->type.space : Space::Unknown;
      st.dst = dst != nullptr ? dst->type.space : Space::Unknown;
      if (space_name(st.src) != nullptr && space_name(st.dst) != nullptr)
        st.path = std::string(space_name(st.src)) + "_to_" + space_name(st.dst);
      const bool tensor = (src != nullptr && src->type.kind == Type::Kind::Tensor) ||
                          (dst != nullptr && dst->type.kind == Type::Kind::Tensor);
      const std::string_view m = inst.name.substr(inst.name.rfind('.') + 1);
      if (m == "copy") {
        if (auto p = pipe_for_copy(st.src, st.dst)) {
          st.pipes = {*p};
          if (*p == Pipe::V) st.cls = OpClass::VectorMove;
        } else {
          st.modelled = false;
        }
      } else if (m == "vbrc") {
        if (auto p = pipe_for_vbrc(st.dst)) {
          st.pipes = {*p};
          if (*p == Pipe::MTE2) st.cls = OpClass::Dma;
        } else {
          st.modelled = false;
        }
      } else if (st.cls == OpClass::Cube) {
        st.pipes = {Pipe::MTE1, Pipe::M};
      } else if (st.cls == OpClass::CubeMacro) {
        st.modelled = false;
      }
      if (tensor) st.modelled = false;
      if (st.cls == OpClass::Cube && src != nullptr) st.dtype = std::string(src->type.elem.name);
    }
}

/// A function that names no core runs on the one its pipes need (AscendNPU-IR's
/// InferCoreType rule): only cube pipes (M, MTE1, FIX) -> AIC, only vector
/// pipes (V, MTE3) -> AIV.
void Machine::infer_cores() {
  for (size_t fi = 0; fi < fns_.size(); ++fi) {
    Fn &fn = fns_[fi];
    if (fn.core_declared || fn.info.core != Core::Unknown) continue;
    bool cube = false, vec = false;
    for (size_t op = fn.first_op; op < fn.end_op; ++op)
      for (Pipe p : r_.ops[op].pipes) {
        cube = cube || p == Pipe::M || p == Pipe::MTE1 || p == Pipe::FIX;
        vec = vec || p == Pipe::V || p == Pipe::MTE3;
      }
    if (cube == vec) continue;
    fn.info.core = cube ? Core::AIC : Core::AIV;
    r_.functions[fi].core = fn.info.core;
    for (size_t op = fn.first_op; op < fn.end_op; ++op) r_.ops[op].core = fn.info.core;
  }
}

void Machine::fold_block() {
  const bool first = !first_block_folded_;
  for (size_t op = 0; op < r_.ops.size(); ++op) {
    OpStats &s = r_.ops[op];
    const Sums &c = cur_[op];
    for (size_t fld = 0; fld < kFieldCount; ++fld) {
      s.grid[fld] += c[fld];
      s.block_min[fld] = first ? c[fld] : std::min(s.block_min[fld], c[fld]);
      s.block_max[fld] = first ? c[fld] : std::max(s.block_max[fld], c[fld]);
    }
    if (block_ == 0) {
      s.block0 = c;
      s.instance_max_block0 = inst_max_[op];
    }
    s.instance_max_min = first ? inst_max_[op] : std::min(s.instance_max_min, inst_max_[op]);
  }
  // Components, from the op sums of this block.
  std::fill(key_block_.begin(), key_block_.end(), 0);
  for (size_t op = 0; op < r_.ops.size(); ++op)
    for (const Contribution &k : contributions_[op]) key_block_[k.key] += cur_[op][k.field];
  for (size_t k = 0; k < keys_.size(); ++k) {
    key_grid_[k] += key_block_[k];
    key_min_[k] = first ? key_block_[k] : std::min(key_min_[k], key_block_[k]);
  }
  for (auto &[dtype, w] : dyn_) {
    auto it = cur_dyn_.find(dtype);
    const int64_t v = it == cur_dyn_.end() ? 0 : it->second;
    w.block_min = std::min(w.block_min, v);
  }
  for (const auto &[dtype, v] : cur_dyn_) {
    auto [it, fresh] = dyn_.emplace(dtype, Result::Work{first ? v : 0, 0});
    it->second.grid += v;
    (void)fresh;
  }
  cur_dyn_.clear();
  r_.read_block_min = first ? cur_read_ : std::min(r_.read_block_min, cur_read_);
  r_.write_block_min = first ? cur_write_ : std::min(r_.write_block_min, cur_write_);
  cur_read_ = cur_write_ = 0;
  first_block_folded_ = true;
  std::fill(cur_.begin(), cur_.end(), Sums{});
  std::fill(inst_max_.begin(), inst_max_.end(), 0);
}

void Machine::run() {
  prepare();
  infer_cores();
  // Where each op's per-block sums go in the work document (docs/model.md §3,
  // plugins/models hivm_view: the same classes, from exact counts).
  contributions_.assign(r_.ops.size(), {});
  std::map<std::pair<std::string, std::string>, size_t> index;
  auto key = [&](const std::string &map, const std::string &cls) {
    auto [it, fresh] = index.emplace(std::make_pair(map, cls), keys_.size());
    if (fresh) keys_.push_back({map, cls});
    return it->second;
  };
  for (size_t op = 0; op < r_.ops.size(); ++op) {
    const OpStats &s = r_.ops[op];
    if (s.core == Core::Unknown) continue;
    const std::string core = core_name(s.core);
    auto add = [&](const std::string &map, const std::string &cls, Field f) { contributions_[op].push_back({key(map, cls), f}); };
    add("issued_as_written", core, kIssued);
    add("scalar_as_written", core, kScalar);
    add("issued_guaranteed", core, kGuaranteed);
    if (!s.modelled) continue;
    const bool guaranteed_scalar =
        s.scalar_kind == "gm_load" || s.scalar_kind == "gm_store" || s.scalar_kind == "ub_access" ||
        (s.scalar_kind == "hivm" && guaranteed_hivm_scalar(s.name));
    if (guaranteed_scalar) add(core + ".scalar", s.scalar_kind, kGuaranteed);
    if (s.cls == OpClass::Cube) {
      add(core + ".cube", s.dtype.empty() ? "unknown" : s.dtype, kFlop);
      add(core + ".mte1", "l1_to_l0a", kMte1);
      continue;
    }
    const bool on_v = std::find(s.pipes.begin(), s.pipes.end(), Pipe::V) != s.pipes.end();
    if (is_vector_class(s.cls) && on_v) {
      add(core + ".vector", op_class_name(s.cls), kRepeats);
      add("vector_instructions", core, kIssued);
      continue;
    }
    if (s.cls == OpClass::Dma && !s.pipes.empty()) {
      static const std::map<Pipe, std::string> kComponent{{Pipe::V, "vector"}, {Pipe::M, "cube"}, {Pipe::S, "scalar"},
                                                          {Pipe::MTE1, "mte1"}, {Pipe::MTE2, "mte2"}, {Pipe::MTE3, "mte3"},
                                                          {Pipe::FIX, "fixpipe"}};
      auto c = kComponent.find(s.pipes[0]);
      if (c != kComponent.end()) add(core + "." + c->second, s.path.empty() ? "unknown" : s.path, kBytes);
    }
  }
  key_block_.assign(keys_.size(), 0);
  key_min_.assign(keys_.size(), 0);
  key_grid_.assign(keys_.size(), 0);

  for (block_ = 0; block_ < r_.blocks; ++block_) {
    if (options_.trace) r_.trace.emplace_back();
    for (const Fn &fn : fns_)
      for (uint32_t inst = 0; inst < fn.info.instances; ++inst) run_function(fn, inst);
    fold_block();
  }
  for (size_t k = 0; k < keys_.size(); ++k) {
    const auto &[map, cls] = keys_[k];
    Result::Work w{key_min_[k], key_grid_[k]};
    if (map == "issued_as_written") r_.issued_as_written[cls] = w;
    else if (map == "scalar_as_written") r_.scalar_as_written[cls] = w;
    else if (map == "issued_guaranteed") r_.issued_guaranteed[cls] = w;
    else if (map == "vector_instructions") r_.vector_instructions[cls] = w;
    else r_.components[map][cls] = w;
  }
  r_.vector_flop = dyn_;
}

}  // namespace

Result run(std::string_view text, const Launch &launch, const Options &options) {
  Result result;
  if (launch.grid.empty()) throw OracleError(OracleError::Kind::Input, 0, "the launch gives no grid");
  result.blocks = 1;
  for (int64_t g : launch.grid) {
    if (g < 1) throw OracleError(OracleError::Kind::Input, 0, "grid dimension " + std::to_string(g));
    result.blocks *= g;
  }
  std::vector<detail::Fn> fns;
  FileReader reader(text);
  reader.read([&](const Op &func, const FunctionContext &) {
    const size_t first = result.ops.size();
    fns.push_back(detail::compile_function(func, reader.aliases(), static_cast<uint32_t>(fns.size()), options, result.ops));
    fns.back().first_op = first;
    fns.back().end_op = result.ops.size();
  });
  for (const detail::Fn &fn : fns) result.functions.push_back(fn.info);
  Machine m(fns, result, launch, options);
  m.run();
  return result;
}

}  // namespace pb::hivm::oracle
