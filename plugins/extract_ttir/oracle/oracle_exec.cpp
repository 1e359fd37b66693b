//===- oracle_exec.cpp - parse a TTIR text and execute its kernel (MLIR) --===//
//
// The oracle's one MLIR translation unit: reads the text with MLIR 19 and
// our `tt` dialect (the extractor's parsing: sections, opaque-op lines,
// tt_dialect.hpp), then interprets the selected tt.func once per program
// with concrete values, reporting every access and every unit of work to a
// Recorder (oracle_record.hpp). Counting rules: docs/extract_ttir.md §3
// (FLOP and ops table), re-implemented here from that page.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/thread.h>
#include <mlir/AsmParser/AsmParser.h>
#include <mlir/AsmParser/AsmParserState.h>
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/ControlFlow/IR/ControlFlowOps.h>
#include <mlir/IR/BuiltinAttributes.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/BuiltinTypes.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/Parser/Parser.h>

#include "oracle_record.hpp"
#include "tt_dialect.hpp"
#include "ttir_analysis.hpp"  // split_sections (text preparation only)
#include "ttir_oracle.hpp"
#include "ttir_text.hpp"

namespace perfbound::ttir_oracle {

namespace {

using mlir::Operation;
using mlir::Type;
using mlir::Value;

/// A refusal while executing; caught in run_oracle.
struct Refusal {
  std::string message;
};

//===----------------------------------------------------------------------===//
// Runtime values
//===----------------------------------------------------------------------===//

struct Ptr {
  int arg = -1;           // the kernel argument, -1 when not derived from one
  std::int64_t off = 0;   // byte offset in it
};

enum class Kind : std::uint8_t { None, Int, Float, Ptr, Block, Desc };

/// tt.make_tensor_ptr: offsets in elements per dimension.
struct BlockPtr {
  Ptr base;
  int elem_bytes = 0;
  std::vector<std::int64_t> shape, strides, offsets;
};

/// tt.make_tensor_descriptor (or a descriptor kernel argument).
struct Desc {
  Ptr base;
  int elem_bytes = 0;
  std::vector<std::int64_t> shape, strides;
};

struct RV {
  Kind kind = Kind::None;
  std::vector<std::int64_t> shape;  // empty for a scalar
  std::vector<std::int64_t> i;
  std::vector<double> f;
  std::vector<Ptr> p;
  std::shared_ptr<const BlockPtr> block;
  std::shared_ptr<const Desc> desc;
  [[nodiscard]] size_t lanes() const {
    switch (kind) {
      case Kind::Int: return i.size();
      case Kind::Float: return f.size();
      case Kind::Ptr: return p.size();
      default: return 1;
    }
  }
};
using Val = std::shared_ptr<const RV>;

size_t count_of(const std::vector<std::int64_t> &shape) {
  size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type elem_of(Type t) {
  if (auto rt = llvm::dyn_cast<mlir::RankedTensorType>(t)) return rt.getElementType();
  return t;
}

std::vector<std::int64_t> shape_of(Type t) {
  if (auto rt = llvm::dyn_cast<mlir::RankedTensorType>(t)) return {rt.getShape().begin(), rt.getShape().end()};
  return {};
}

int int_bits(Type e) {
  if (auto it = llvm::dyn_cast<mlir::IntegerType>(e)) return static_cast<int>(it.getWidth());
  if (llvm::isa<mlir::IndexType>(e)) return 64;
  return 64;
}

/// Bytes of one element in memory.
int byte_size(Type e) {
  if (llvm::isa<tt::PointerType>(e)) return 8;
  if (auto it = llvm::dyn_cast<mlir::IntegerType>(e)) return std::max(1, static_cast<int>(it.getWidth()) / 8);
  if (auto ft = llvm::dyn_cast<mlir::FloatType>(e)) return std::max(1, static_cast<int>(ft.getWidth()) / 8);
  if (llvm::isa<mlir::IndexType>(e)) return 8;
  return 0;
}

Kind kind_of(Type t) {
  Type e = elem_of(t);
  if (auto ptr = llvm::dyn_cast<tt::PointerType>(e))
    return llvm::isa<mlir::RankedTensorType>(ptr.getPointeeType()) ? Kind::Block : Kind::Ptr;
  if (llvm::isa<tt::TensorDescType>(e)) return Kind::Desc;
  if (llvm::isa<mlir::FloatType>(e)) return Kind::Float;
  if (e.isIntOrIndex()) return Kind::Int;
  return Kind::None;
}

std::string type_text(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return os.str();
}

std::int64_t wrap(std::int64_t v, int bits) {
  if (bits >= 64) return v;
  if (bits == 1) return v & 1;
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if ((u >> (bits - 1)) & 1) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

std::uint64_t uval(std::int64_t v, int bits) {
  if (bits >= 64) return static_cast<std::uint64_t>(v);
  return static_cast<std::uint64_t>(v) & ((std::uint64_t{1} << bits) - 1);
}

/// The signed value (i1 true is -1 as a signed 1-bit integer).
std::int64_t sval(std::int64_t v, int bits) { return bits == 1 ? -(v & 1) : v; }

double half_to_double(std::uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(mant + 1024, exp - 25);
}

std::uint16_t double_to_half(double d) {
  float f = static_cast<float>(d);
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  std::uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    return static_cast<std::uint16_t>(sign | (mant >> (14 - exp)));
  }
  return static_cast<std::uint16_t>(sign | (exp << 10) | (mant >> 13));
}

/// Bits of a float value of type `e` (for bitcasts).
std::int64_t float_bits(double v, Type e) {
  unsigned w = llvm::cast<mlir::FloatType>(e).getWidth();
  if (w == 64) {
    std::int64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  if (w == 32) {
    float f = static_cast<float>(v);
    std::int32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  if (w == 16 && e.isBF16()) {
    float f = static_cast<float>(v);
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return static_cast<std::int16_t>(b >> 16);
  }
  if (w == 16) return static_cast<std::int16_t>(double_to_half(v));
  return static_cast<std::int64_t>(v);  // 8-bit floats: not modelled bit-exactly
}

double bits_float(std::int64_t b, Type e) {
  unsigned w = llvm::cast<mlir::FloatType>(e).getWidth();
  if (w == 64) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
  }
  if (w == 32) {
    std::int32_t n = static_cast<std::int32_t>(b);
    float f;
    std::memcpy(&f, &n, 4);
    return f;
  }
  if (w == 16 && e.isBF16()) {
    std::uint32_t n = static_cast<std::uint32_t>(b & 0xffff) << 16;
    float f;
    std::memcpy(&f, &n, 4);
    return f;
  }
  if (w == 16) return half_to_double(static_cast<std::uint16_t>(b & 0xffff));
  return static_cast<double>(b);
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

//===----------------------------------------------------------------------===//
// Unit classes (docs/extract_ttir.md §3, FLOP and ops)
//===----------------------------------------------------------------------===//

bool is_transcendental_name(llvm::StringRef n) {
  static const std::set<std::string> names = {
      "math.exp",  "math.exp2",  "math.expm1", "math.log",   "math.log2",  "math.log10", "math.log1p",
      "math.sqrt", "math.rsqrt", "math.cbrt",  "math.sin",   "math.cos",   "math.tan",   "math.tanh",
      "math.asin", "math.acos",  "math.atan",  "math.atan2", "math.sinh",  "math.cosh",  "math.asinh",
      "math.acosh", "math.atanh", "math.erf",  "math.erfc",  "math.powf",  "math.fpowi", "tt.precise_sqrt"};
  return names.count(n.str()) > 0;
}

/// The function an extern_elementwise symbol names, if a transcendental
/// one (`__nv_exp2f`, `__hmf_expf`, ...): the name with the library prefix
/// and the f/d type suffix stripped.
std::string extern_function(llvm::StringRef symbol) {
  std::string s = symbol.str();
  for (const char *prefix : {"__nv_", "__hmf_", "__ocml_", "__imf_", "__ll_"})
    if (s.rfind(prefix, 0) == 0) {
      s = s.substr(std::strlen(prefix));
      break;
    }
  while (!s.empty() && s[0] == '_') s.erase(0, 1);
  size_t us = s.find('_');
  if (us != std::string::npos) s = s.substr(0, us);
  return s;
}

bool extern_is_transcendental(llvm::StringRef symbol) {
  static const std::set<std::string> names = {"exp", "exp2", "expm1", "exp10", "log", "log2", "log10", "log1p",
                                              "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan", "tanh", "asin",
                                              "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh",
                                              "erf", "erfc", "pow", "powi", "expf", "exp2f", "logf", "log2f",
                                              "sqrtf", "rsqrtf", "sinf", "cosf", "tanf", "tanhf", "erff", "powf"};
  std::string f = extern_function(symbol);
  if (names.count(f)) return true;
  if (!f.empty() && (f.back() == 'f' || f.back() == 'd')) return names.count(f.substr(0, f.size() - 1)) > 0;
  return false;
}

/// Integer arithmetic that may be index work (docs: "integer tensor
/// arithmetic whose results only feed addresses and masks").
bool is_int_arith(Operation *op) {
  llvm::StringRef n = op->getName().getStringRef();
  if (!n.starts_with("arith.") || n == "arith.constant") return false;
  if (op->getNumResults() != 1) return false;
  Type r = elem_of(op->getResult(0).getType());
  if (!r.isIntOrIndex()) return false;
  for (Value v : op->getOperands())
    if (!elem_of(v.getType()).isIntOrIndex()) return false;
  return true;
}

bool is_shape_forward(llvm::StringRef n) {
  return n == "tt.splat" || n == "tt.broadcast" || n == "tt.expand_dims" || n == "tt.reshape" || n == "tt.trans" ||
         n == "tt.cat" || n == "tt.join" || n == "tt.split" || n == "tt.unsplat" || n == "tt.annotation";
}

/// Values of a function whose data (not only addresses and masks) depends
/// on them: reachable backwards from a data use through integer arithmetic,
/// shape ops and loop-carried values.
class DataUses {
 public:
  explicit DataUses(Operation *func) {
    llvm::DenseMap<Value, llvm::SmallVector<Value, 2>> sources;  // w -> values feeding w
    std::vector<Value> seeds;
    auto forward = [&](Value from, Value to) { sources[to].push_back(from); };
    func->walk([&](Operation *user) {
      llvm::StringRef n = user->getName().getStringRef();
      for (mlir::OpOperand &use : user->getOpOperands()) {
        Value v = use.get();
        unsigned idx = use.getOperandNumber();
        if (n == "tt.addptr" && idx == 1) continue;
        if (n == "tt.load" && idx == 1) continue;  // the mask (other is operand 2)
        if (n == "tt.store" && idx == 2) continue;
        if (n == "tt.atomic_rmw" && idx == 2) continue;
        if (n == "tt.advance" || n == "tt.make_tensor_ptr" || n == "tt.make_tensor_descriptor") continue;
        if ((n == "tt.descriptor_load" || n == "tt.experimental_descriptor_load") && idx >= 1) continue;
        if ((n == "tt.descriptor_store" || n == "tt.experimental_descriptor_store" || n == "tt.descriptor_reduce") &&
            idx >= 1 && idx + 1 < user->getNumOperands())
          continue;
        if ((n == "tt.descriptor_gather" || n == "tt.experimental_descriptor_gather") && idx >= 1) continue;
        if ((n == "tt.descriptor_scatter" || n == "tt.experimental_descriptor_scatter") && idx >= 1 && idx <= 2)
          continue;
        if (is_int_arith(user) || is_shape_forward(n)) {
          for (Value r : user->getResults()) forward(v, r);
          continue;
        }
        if (n == "scf.yield") {
          Operation *parent = user->getParentOp();
          llvm::StringRef pn = parent->getName().getStringRef();
          if (pn == "scf.for") {
            forward(v, parent->getResult(idx));
            forward(v, parent->getRegion(0).front().getArgument(idx + 1));
            continue;
          }
          if (pn == "scf.if") {
            forward(v, parent->getResult(idx));
            continue;
          }
          if (pn == "scf.while") {
            forward(v, parent->getRegion(0).front().getArgument(idx));
            continue;
          }
        }
        if (n == "scf.for" && idx >= 3) {
          forward(v, user->getResult(idx - 3));
          forward(v, user->getRegion(0).front().getArgument(idx - 3 + 1));
          continue;
        }
        if (n == "scf.for") continue;  // bounds and step
        if (n == "scf.while") {
          forward(v, user->getRegion(0).front().getArgument(idx));
          continue;
        }
        if (n == "scf.condition") {
          if (idx == 0) continue;
          Operation *loop = user->getParentOp();
          forward(v, loop->getResult(idx - 1));
          forward(v, loop->getRegion(1).front().getArgument(idx - 1));
          continue;
        }
        if (n == "scf.if" || n == "cf.cond_br" || n == "llvm.intr.assume" || n == "tt.assert" || n == "tt.print")
          continue;
        seeds.push_back(v);
      }
    });
    while (!seeds.empty()) {
      Value v = seeds.back();
      seeds.pop_back();
      if (!data_.insert(v).second) continue;
      auto it = sources.find(v);
      if (it == sources.end()) continue;
      for (Value s : it->second) seeds.push_back(s);
    }
  }
  [[nodiscard]] bool address_only(Value v) const { return !data_.contains(v); }

 private:
  llvm::DenseSet<Value> data_;
};

//===----------------------------------------------------------------------===//
// The machine
//===----------------------------------------------------------------------===//

/// What the launch gives: scalars by argument, data facts by argument.
struct LaunchInput {
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::map<int, double> float_args;
  std::map<int, std::int64_t> int_args;
  std::map<int, std::vector<std::int64_t>> data;
};

class Machine {
 public:
  Machine(Operation *func, const std::string &origin, const llvm::DenseMap<Operation *, int> &lines,
          const std::vector<ArgInfo> &args, const LaunchInput &in, const Options &options, Recorder &rec,
          std::vector<std::string> &notes, const std::vector<std::int64_t> &arg_offset)
      : func_(func), origin_(origin), lines_(lines), args_(args), in_(in), options_(options), rec_(rec),
        notes_(notes), uses_(func), arg_offset_(arg_offset) {
    for (const ArgInfo &a : args_) buffers_ = std::max(buffers_, a.buffer + 1);
    memory_.resize(static_cast<size_t>(std::max(buffers_, 1)));
  }

  void run_program(const std::array<std::int64_t, 3> &pid) {
    pid_ = pid;
    env_.clear();
    rec_.begin_program(pid);
    mlir::Block &entry = func_->getRegion(0).front();
    std::vector<Val> args;
    for (mlir::BlockArgument a : entry.getArguments()) args.push_back(argument_value(a));
    call_function(func_, args, 0);
    rec_.end_program();
  }

  [[nodiscard]] std::uint64_t lane_ops() const { return lane_ops_; }

 private:
  Operation *func_;
  const std::string &origin_;
  const llvm::DenseMap<Operation *, int> &lines_;
  const std::vector<ArgInfo> &args_;
  const LaunchInput &in_;
  const Options &options_;
  Recorder &rec_;
  std::vector<std::string> &notes_;
  DataUses uses_;
  const std::vector<std::int64_t> &arg_offset_;
  int buffers_ = 0;
  std::array<std::int64_t, 3> pid_{};
  llvm::DenseMap<Value, Val> env_;
  std::uint64_t lane_ops_ = 0;
  std::set<std::string> noted_;
  struct Cell {
    std::int64_t i = 0;
    double f = 0;
    Ptr p;
    Kind kind = Kind::None;
  };
  std::vector<std::unordered_map<std::int64_t, Cell>> memory_;  // per buffer: what the kernel stored
  int uncounted_ = 0;  // > 0 inside a combiner region

  // --- diagnostics -------------------------------------------------------
  std::string where(Operation *op) const {
    auto it = lines_.find(op);
    std::string line = it != lines_.end() ? std::to_string(it->second) : std::string("?");
    return origin_ + ":" + line;
  }
  std::string program() const {
    return "program (" + std::to_string(pid_[0]) + ", " + std::to_string(pid_[1]) + ", " + std::to_string(pid_[2]) +
           ")";
  }
  [[noreturn]] void refuse(Operation *op, const std::string &what) const {
    throw Refusal{where(op) + ": oracle: " + what + " ('" + op->getName().getStringRef().str() + "', " + program() +
                  ")"};
  }
  void note(Operation *op, const std::string &what) {
    std::string text = where(op) + ": " + what;
    if (noted_.insert(text).second) notes_.push_back(text);
  }
  void spend(Operation *op, std::uint64_t cost) {
    lane_ops_ += std::max<std::uint64_t>(cost, 1);
    if (lane_ops_ > options_.op_budget)
      refuse(op, "the budget of " + std::to_string(options_.op_budget) +
                     " lane-operations is spent; give a smaller launch (grid and shape arguments)");
  }

  // --- values --------------------------------------------------------------
  Val get(Operation *op, Value v) {
    auto it = env_.find(v);
    if (it != env_.end()) return it->second;
    if (auto ba = llvm::dyn_cast<mlir::BlockArgument>(v))
      if (ba.getOwner()->getParentOp() == func_ && ba.getOwner()->isEntryBlock())
        refuse(op, "the launch gives no value for argument " + args_[ba.getArgNumber()].key);
    refuse(op, "an operand has no value (an op the oracle skipped?)");
  }
  void set(Value v, Val x) { env_[v] = std::move(x); }

  Val argument_value(mlir::BlockArgument a) {
    const int idx = static_cast<int>(a.getArgNumber());
    Type t = a.getType();
    auto rv = std::make_shared<RV>();
    if (auto ptr = llvm::dyn_cast<tt::PointerType>(t)) {
      (void)ptr;
      rv->kind = Kind::Ptr;
      rv->p = {Ptr{idx, 0}};
      return rv;
    }
    if (auto desc = llvm::dyn_cast<tt::TensorDescType>(t)) {
      // (desc, shape i32 x rank, strides i64 x rank), as the host expands it.
      mlir::Block *entry = a.getOwner();
      const size_t rank = static_cast<size_t>(desc.getBlockType().getRank());
      auto d = std::make_shared<Desc>();
      d->base = Ptr{idx, 0};
      d->elem_bytes = byte_size(desc.getBlockType().getElementType());
      bool expanded = entry->getNumArguments() >= static_cast<unsigned>(idx) + 1 + 2 * rank;
      for (size_t r = 0; expanded && r < rank; ++r) {
        int s = idx + 1 + static_cast<int>(r), st = idx + 1 + static_cast<int>(rank + r);
        expanded = in_.int_args.count(s) && in_.int_args.count(st);
        if (expanded) {
          d->shape.push_back(in_.int_args.at(s));
          d->strides.push_back(in_.int_args.at(st));
        }
      }
      if (!expanded) return nullptr;  // refused when used
      rv->kind = Kind::Desc;
      rv->desc = d;
      return rv;
    }
    if (llvm::isa<mlir::RankedTensorType>(t)) return seeded(t, 0x7e750000ull + static_cast<std::uint64_t>(idx));
    if (llvm::isa<mlir::FloatType>(t)) {
      auto it = in_.float_args.find(idx);
      if (it == in_.float_args.end()) {
        auto ii = in_.int_args.find(idx);
        if (ii == in_.int_args.end()) return nullptr;
        rv->f = {static_cast<double>(ii->second)};
      } else {
        rv->f = {it->second};
      }
      rv->kind = Kind::Float;
      return rv;
    }
    if (t.isIntOrIndex()) {
      auto it = in_.int_args.find(idx);
      if (it == in_.int_args.end()) return nullptr;
      rv->kind = Kind::Int;
      rv->i = {wrap(it->second, int_bits(t))};
      return rv;
    }
    return nullptr;
  }

  /// A value nobody gave (opaque results, tensor arguments): seeded.
  Val seeded(Type t, std::uint64_t salt) {
    auto rv = std::make_shared<RV>();
    rv->kind = kind_of(t);
    rv->shape = shape_of(t);
    size_t n = count_of(rv->shape);
    Type e = elem_of(t);
    for (size_t idx = 0; idx < n; ++idx) {
      std::uint64_t h = splitmix(options_.seed ^ splitmix(salt * 1315423911ull + idx));
      if (rv->kind == Kind::Float) rv->f.push_back(static_cast<double>(h % 2000000) / 1000000.0 - 1.0);
      else if (rv->kind == Kind::Int)
        rv->i.push_back(wrap(static_cast<std::int64_t>(h % static_cast<std::uint64_t>(std::max<std::int64_t>(
                                                              1, int_bits(e) == 1 ? 2 : options_.int_range))),
                             int_bits(e)));
      else if (rv->kind == Kind::Ptr) rv->p.push_back(Ptr{-1, static_cast<std::int64_t>(h % 4096)});
    }
    return rv;
  }

  static Val scalar_int(std::int64_t v) {
    auto rv = std::make_shared<RV>();
    rv->kind = Kind::Int;
    rv->i = {v};
    return rv;
  }

  static std::int64_t int_of(const Val &v) { return v->kind == Kind::Int ? v->i.at(0) : static_cast<std::int64_t>(v->f.at(0)); }

  // --- control flow ----------------------------------------------------------
  /// Executes a function's body (a CFG of blocks) and returns what tt.return gives.
  std::vector<Val> call_function(Operation *func, const std::vector<Val> &args, int depth) {
    if (depth > 64) refuse(func, "calls nest deeper than 64");
    mlir::Region &body = func->getRegion(0);
    mlir::Block *block = &body.front();
    std::vector<Val> block_args = args;
    for (;;) {
      for (unsigned idx = 0; idx < block->getNumArguments(); ++idx)
        if (idx < block_args.size() && block_args[idx]) set(block->getArgument(idx), block_args[idx]);
      Operation *term = run_ops(*block, depth);
      llvm::StringRef n = term->getName().getStringRef();
      if (n == "tt.return") return values(term, term->getOperands());
      if (n == "cf.br") {
        spend(term, 1);
        block_args = values(term, term->getOperands());
        block = term->getSuccessor(0);
        continue;
      }
      if (n == "cf.cond_br") {
        spend(term, 1);
        auto cond = llvm::cast<mlir::cf::CondBranchOp>(term);
        bool taken = int_of(get(term, cond.getCondition())) != 0;
        block_args = values(term, taken ? cond.getTrueDestOperands() : cond.getFalseDestOperands());
        block = taken ? cond.getTrueDest() : cond.getFalseDest();
        continue;
      }
      refuse(term, "a function body ending in this terminator is not executed");
    }
  }

  std::vector<Val> values(Operation *op, mlir::ValueRange vs) {
    std::vector<Val> out;
    out.reserve(vs.size());
    for (Value v : vs) out.push_back(get(op, v));
    return out;
  }

  /// Runs the ops of a block except its terminator, which it returns.
  Operation *run_ops(mlir::Block &block, int depth) {
    for (Operation &op : block) {
      if (op.hasTrait<mlir::OpTrait::IsTerminator>()) return &op;
      exec(&op, depth);
    }
    refuse(block.getParentOp(), "a block without a terminator");
  }

  /// Runs a single-block region with `args`; returns the terminator's operands.
  std::vector<Val> run_region(mlir::Region &region, const std::vector<Val> &args, int depth) {
    mlir::Block &block = region.front();
    for (unsigned idx = 0; idx < block.getNumArguments() && idx < args.size(); ++idx) set(block.getArgument(idx), args[idx]);
    Operation *term = run_ops(block, depth);
    return values(term, term->getOperands());
  }

  // --- the ops ---------------------------------------------------------------
  void exec(Operation *op, int depth) {
    llvm::StringRef n = op->getName().getStringRef();
    if (n.starts_with("scf.")) return exec_scf(op, n, depth);
    if (n.starts_with("arith.")) return exec_arith(op, n);
    if (n.starts_with("math.")) return exec_math(op, n);
    if (n.starts_with("tt.")) return exec_tt(op, n, depth);
    if (n == "ub.poison") {
      spend(op, 1);
      auto rv = std::make_shared<RV>();
      rv->kind = kind_of(op->getResult(0).getType());
      rv->shape = shape_of(op->getResult(0).getType());
      size_t cnt = count_of(rv->shape);
      if (rv->kind == Kind::Int) rv->i.assign(cnt, 0);
      if (rv->kind == Kind::Float) rv->f.assign(cnt, 0);
      if (rv->kind == Kind::Ptr) rv->p.assign(cnt, Ptr{});
      set(op->getResult(0), rv);
      return;
    }
    if (n == "llvm.intr.assume" || n == "gpu.barrier") return spend(op, 1);
    if (!op->getDialect()) {
      // An op of a dialect nobody registers (read as opaque, ttir_text.hpp):
      // its results are seeded values.
      spend(op, 1);
      if (op->getNumResults() > 0) note(op, "the results of opaque op '" + n.str() + "' are seeded values");
      for (Value r : op->getResults())
        set(r, seeded(r.getType(), 0x0b5c0000ull + static_cast<std::uint64_t>(lines_.lookup(op))));
      return;
    }
    refuse(op, "the oracle does not execute this op");
  }

  void exec_scf(Operation *op, llvm::StringRef n, int depth) {
    if (n == "scf.for") {
      std::int64_t lb = int_of(get(op, op->getOperand(0))), ub = int_of(get(op, op->getOperand(1))),
                   step = int_of(get(op, op->getOperand(2)));
      if (step <= 0) refuse(op, "a loop step of " + std::to_string(step) + " (must be positive)");
      const int bits = int_bits(op->getOperand(0).getType());
      std::vector<Val> carried = values(op, op->getOperands().drop_front(3));
      mlir::Region &body = op->getRegion(0);
      for (std::int64_t iv = lb; iv < ub; iv = wrap(iv + step, bits)) {
        spend(op, 1);
        std::vector<Val> args{scalar_int(iv)};
        args.insert(args.end(), carried.begin(), carried.end());
        carried = run_region(body, args, depth);
        if (iv + step < iv) break;  // wrapped past the top
      }
      for (unsigned idx = 0; idx < op->getNumResults(); ++idx) set(op->getResult(idx), carried[idx]);
      return;
    }
    if (n == "scf.while") {
      std::vector<Val> carried = values(op, op->getOperands());
      for (;;) {
        spend(op, 1);
        std::vector<Val> cond = run_region(op->getRegion(0), carried, depth);
        bool go = int_of(cond.at(0)) != 0;
        std::vector<Val> passed(cond.begin() + 1, cond.end());
        if (!go) {
          for (unsigned idx = 0; idx < op->getNumResults(); ++idx) set(op->getResult(idx), passed[idx]);
          return;
        }
        carried = run_region(op->getRegion(1), passed, depth);
      }
    }
    if (n == "scf.if") {
      spend(op, 1);
      bool taken = int_of(get(op, op->getOperand(0))) != 0;
      mlir::Region &region = op->getRegion(taken ? 0 : 1);
      if (region.empty()) return;
      std::vector<Val> out = run_region(region, {}, depth);
      for (unsigned idx = 0; idx < op->getNumResults(); ++idx) set(op->getResult(idx), out[idx]);
      return;
    }
    if (n == "scf.execute_region") {
      std::vector<Val> out = run_region(op->getRegion(0), {}, depth);
      for (unsigned idx = 0; idx < op->getNumResults(); ++idx) set(op->getResult(idx), out[idx]);
      return;
    }
    refuse(op, "the oracle does not execute this op");
  }

  // --- work ------------------------------------------------------------------
  /// Work outside combiner regions (whose ops are the reduction's work).
  void work(const std::string &cls, const std::string &key, double amount) {
    if (uncounted_ == 0) rec_.work(cls, key, amount);
  }

  /// Elementwise work of `op` (tensor result): index, vector or transcendental.
  void elementwise_work(Operation *op, double per_element = 1.0, bool transcendental = false) {
    if (op->getNumResults() == 0) return;
    Type rt = op->getResult(0).getType();
    if (!llvm::isa<mlir::RankedTensorType>(rt)) return;  // scalar unit work: ops.scalar, not FLOP
    if (!elem_of(rt).isIntOrIndex() && !llvm::isa<mlir::FloatType>(elem_of(rt))) return;  // selects of pointers
    const double elements = static_cast<double>(count_of(shape_of(rt)));
    llvm::StringRef n = op->getName().getStringRef();
    bool compare = n == "arith.cmpi" || n == "arith.cmpf";
    Type key_type = elem_of(compare ? op->getOperand(0).getType() : rt);
    if (is_int_arith(op) && uses_.address_only(op->getResult(0))) {
      work("index", type_text(key_type), elements);
      return;
    }
    work(transcendental ? "transcendental" : "vector", type_text(key_type), elements * per_element);
  }

  // --- arith -----------------------------------------------------------------
  static std::shared_ptr<RV> make_like(Type t) {
    auto rv = std::make_shared<RV>();
    rv->kind = kind_of(t);
    rv->shape = shape_of(t);
    return rv;
  }

  void exec_arith(Operation *op, llvm::StringRef n) {
    if (n == "arith.constant") {
      spend(op, 1);
      set(op->getResult(0), constant(op));
      return;
    }
    Type rt = op->getResult(0).getType();
    const size_t lanes = count_of(shape_of(rt));
    spend(op, lanes);
    elementwise_work(op);
    std::vector<Val> in = values(op, op->getOperands());
    auto out = std::make_shared<RV>();
    out->kind = kind_of(rt);
    out->shape = shape_of(rt);
    Type re = elem_of(rt);
    const int rbits = out->kind == Kind::Int ? int_bits(re) : 0;
    Type oe = elem_of(op->getOperand(0).getType());
    const int obits = oe.isIntOrIndex() ? int_bits(oe) : 0;
    auto lane_i = [&](size_t k, size_t idx) { return in[k]->i[in[k]->i.size() == 1 ? 0 : idx]; };
    auto lane_f = [&](size_t k, size_t idx) { return in[k]->f[in[k]->f.size() == 1 ? 0 : idx]; };
    auto int_binary = [&](auto fn) {
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->i[idx] = wrap(fn(lane_i(0, idx), lane_i(1, idx)), rbits);
    };
    auto float_binary = [&](auto fn) {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = fn(lane_f(0, idx), lane_f(1, idx));
    };
    using i64 = std::int64_t;
    using u64 = std::uint64_t;
    const int b = rbits;
    if (n == "arith.addi") int_binary([](i64 x, i64 y) { return static_cast<i64>(static_cast<u64>(x) + static_cast<u64>(y)); });
    else if (n == "arith.subi") int_binary([](i64 x, i64 y) { return static_cast<i64>(static_cast<u64>(x) - static_cast<u64>(y)); });
    else if (n == "arith.muli") int_binary([](i64 x, i64 y) { return static_cast<i64>(static_cast<u64>(x) * static_cast<u64>(y)); });
    else if (n == "arith.divsi") int_binary([b](i64 x, i64 y) { x = sval(x, b); y = sval(y, b); return y == 0 || (y == -1 && x == INT64_MIN) ? 0 : x / y; });
    else if (n == "arith.divui") int_binary([b](i64 x, i64 y) { return uval(y, b) == 0 ? 0 : static_cast<i64>(uval(x, b) / uval(y, b)); });
    else if (n == "arith.remsi") int_binary([b](i64 x, i64 y) { x = sval(x, b); y = sval(y, b); return y == 0 || y == -1 ? 0 : x % y; });
    else if (n == "arith.remui") int_binary([b](i64 x, i64 y) { return uval(y, b) == 0 ? 0 : static_cast<i64>(uval(x, b) % uval(y, b)); });
    else if (n == "arith.ceildivsi") int_binary([b](i64 x, i64 y) {
      x = sval(x, b); y = sval(y, b);
      if (y == 0 || (y == -1 && x == INT64_MIN)) return i64{0};
      i64 q = x / y;
      return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
    });
    else if (n == "arith.ceildivui") int_binary([b](i64 x, i64 y) { u64 ux = uval(x, b), uy = uval(y, b); return uy == 0 ? 0 : static_cast<i64>(ux / uy + (ux % uy != 0)); });
    else if (n == "arith.floordivsi") int_binary([b](i64 x, i64 y) {
      x = sval(x, b); y = sval(y, b);
      if (y == 0 || (y == -1 && x == INT64_MIN)) return i64{0};
      i64 q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    });
    else if (n == "arith.andi") int_binary([](i64 x, i64 y) { return x & y; });
    else if (n == "arith.ori") int_binary([](i64 x, i64 y) { return x | y; });
    else if (n == "arith.xori") int_binary([](i64 x, i64 y) { return x ^ y; });
    else if (n == "arith.shli") int_binary([b](i64 x, i64 y) { return uval(y, b) >= static_cast<u64>(b) ? 0 : static_cast<i64>(static_cast<u64>(x) << uval(y, b)); });
    else if (n == "arith.shrsi") int_binary([b](i64 x, i64 y) { return uval(y, b) >= static_cast<u64>(b) ? (sval(x, b) < 0 ? -1 : 0) : sval(x, b) >> uval(y, b); });
    else if (n == "arith.shrui") int_binary([b](i64 x, i64 y) { return uval(y, b) >= static_cast<u64>(b) ? 0 : static_cast<i64>(uval(x, b) >> uval(y, b)); });
    else if (n == "arith.maxsi") int_binary([b](i64 x, i64 y) { return std::max(sval(x, b), sval(y, b)); });
    else if (n == "arith.minsi") int_binary([b](i64 x, i64 y) { return std::min(sval(x, b), sval(y, b)); });
    else if (n == "arith.maxui") int_binary([b](i64 x, i64 y) { return uval(x, b) >= uval(y, b) ? x : y; });
    else if (n == "arith.minui") int_binary([b](i64 x, i64 y) { return uval(x, b) <= uval(y, b) ? x : y; });
    else if (n == "arith.addf") float_binary([](double x, double y) { return x + y; });
    else if (n == "arith.subf") float_binary([](double x, double y) { return x - y; });
    else if (n == "arith.mulf") float_binary([](double x, double y) { return x * y; });
    else if (n == "arith.divf") float_binary([](double x, double y) { return x / y; });
    else if (n == "arith.remf") float_binary([](double x, double y) { return std::fmod(x, y); });
    else if (n == "arith.maximumf") float_binary([](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); });
    else if (n == "arith.minimumf") float_binary([](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); });
    else if (n == "arith.maxnumf") float_binary([](double x, double y) { return std::fmax(x, y); });
    else if (n == "arith.minnumf") float_binary([](double x, double y) { return std::fmin(x, y); });
    else if (n == "arith.negf") {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = -lane_f(0, idx);
    } else if (n == "arith.cmpi") {
      auto pred = llvm::cast<mlir::arith::CmpIOp>(op).getPredicate();
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) {
        i64 x = lane_i(0, idx), y = lane_i(1, idx);
        i64 sx = sval(x, obits), sy = sval(y, obits);
        u64 ux = uval(x, obits), uy = uval(y, obits);
        bool r = false;
        switch (pred) {
          case mlir::arith::CmpIPredicate::eq: r = ux == uy; break;
          case mlir::arith::CmpIPredicate::ne: r = ux != uy; break;
          case mlir::arith::CmpIPredicate::slt: r = sx < sy; break;
          case mlir::arith::CmpIPredicate::sle: r = sx <= sy; break;
          case mlir::arith::CmpIPredicate::sgt: r = sx > sy; break;
          case mlir::arith::CmpIPredicate::sge: r = sx >= sy; break;
          case mlir::arith::CmpIPredicate::ult: r = ux < uy; break;
          case mlir::arith::CmpIPredicate::ule: r = ux <= uy; break;
          case mlir::arith::CmpIPredicate::ugt: r = ux > uy; break;
          case mlir::arith::CmpIPredicate::uge: r = ux >= uy; break;
        }
        out->i[idx] = r ? 1 : 0;
      }
    } else if (n == "arith.cmpf") {
      auto pred = llvm::cast<mlir::arith::CmpFOp>(op).getPredicate();
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) {
        double x = lane_f(0, idx), y = lane_f(1, idx);
        bool uno = std::isnan(x) || std::isnan(y);
        bool r = false;
        using P = mlir::arith::CmpFPredicate;
        switch (pred) {
          case P::AlwaysFalse: r = false; break;
          case P::OEQ: r = !uno && x == y; break;
          case P::OGT: r = !uno && x > y; break;
          case P::OGE: r = !uno && x >= y; break;
          case P::OLT: r = !uno && x < y; break;
          case P::OLE: r = !uno && x <= y; break;
          case P::ONE: r = !uno && x != y; break;
          case P::ORD: r = !uno; break;
          case P::UEQ: r = uno || x == y; break;
          case P::UGT: r = uno || x > y; break;
          case P::UGE: r = uno || x >= y; break;
          case P::ULT: r = uno || x < y; break;
          case P::ULE: r = uno || x <= y; break;
          case P::UNE: r = uno || x != y; break;
          case P::UNO: r = uno; break;
          case P::AlwaysTrue: r = true; break;
        }
        out->i[idx] = r ? 1 : 0;
      }
    } else if (n == "arith.select") {
      const Val &c = in[0], &x = in[1], &y = in[2];
      auto pick = [&](size_t idx) { return c->i[c->i.size() == 1 ? 0 : idx] != 0; };
      out->kind = x->kind;
      if (x->kind == Kind::Int) {
        out->i.resize(lanes);
        for (size_t idx = 0; idx < lanes; ++idx) out->i[idx] = pick(idx) ? lane_i(1, idx) : lane_i(2, idx);
      } else if (x->kind == Kind::Float) {
        out->f.resize(lanes);
        for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = pick(idx) ? lane_f(1, idx) : lane_f(2, idx);
      } else if (x->kind == Kind::Ptr) {
        out->p.resize(lanes);
        for (size_t idx = 0; idx < lanes; ++idx)
          out->p[idx] = pick(idx) ? x->p[x->p.size() == 1 ? 0 : idx] : y->p[y->p.size() == 1 ? 0 : idx];
      } else {
        set(op->getResult(0), pick(0) ? x : y);  // block pointers, descriptors
        return;
      }
    } else if (n == "arith.extsi" || n == "arith.index_cast" || n == "arith.trunci") {
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->i[idx] = wrap(sval(lane_i(0, idx), obits), rbits);
    } else if (n == "arith.extui" || n == "arith.index_castui") {
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->i[idx] = wrap(static_cast<i64>(uval(lane_i(0, idx), obits)), rbits);
    } else if (n == "arith.extf" || n == "arith.truncf") {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = lane_f(0, idx);
    } else if (n == "arith.sitofp") {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = static_cast<double>(sval(lane_i(0, idx), obits));
    } else if (n == "arith.uitofp") {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = static_cast<double>(uval(lane_i(0, idx), obits));
    } else if (n == "arith.fptosi" || n == "arith.fptoui") {
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) {
        double x = lane_f(0, idx);
        i64 v = std::isnan(x) ? 0 : x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : static_cast<i64>(x);
        out->i[idx] = wrap(v, rbits);
      }
    } else if (n == "arith.bitcast") {
      const Val &x = in[0];
      if (out->kind == Kind::Int && x->kind == Kind::Float) {
        out->i.resize(lanes);
        for (size_t idx = 0; idx < lanes; ++idx) out->i[idx] = wrap(float_bits(lane_f(0, idx), oe), rbits);
      } else if (out->kind == Kind::Float && x->kind == Kind::Int) {
        out->f.resize(lanes);
        for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = bits_float(lane_i(0, idx), re);
      } else {
        set(op->getResult(0), x);
        return;
      }
    } else {
      refuse(op, "the oracle does not execute this op");
    }
    set(op->getResult(0), out);
  }

  Val constant(Operation *op) {
    Type t = op->getResult(0).getType();
    auto rv = std::make_shared<RV>();
    rv->kind = kind_of(t);
    rv->shape = shape_of(t);
    mlir::Attribute attr = op->getAttr("value");
    const size_t cnt = count_of(rv->shape);
    if (auto dense = llvm::dyn_cast_or_null<mlir::DenseElementsAttr>(attr)) {
      if (rv->kind == Kind::Int) {
        const int bits = int_bits(elem_of(t));
        for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
          rv->i.push_back(wrap(bits == 1 ? static_cast<std::int64_t>(v.getZExtValue()) : v.getSExtValue(), bits));
      } else if (rv->kind == Kind::Float) {
        for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>()) rv->f.push_back(v.convertToDouble());
      }
      if (rv->i.size() == 1 && cnt > 1) rv->i.assign(cnt, rv->i[0]);
      if (rv->f.size() == 1 && cnt > 1) rv->f.assign(cnt, rv->f[0]);
      return rv;
    }
    if (auto ia = llvm::dyn_cast_or_null<mlir::IntegerAttr>(attr)) {
      const int bits = int_bits(t);
      rv->i = {wrap(bits == 1 ? static_cast<std::int64_t>(ia.getValue().getZExtValue()) : ia.getValue().getSExtValue(), bits)};
      return rv;
    }
    if (auto fa = llvm::dyn_cast_or_null<mlir::FloatAttr>(attr)) {
      rv->f = {fa.getValue().convertToDouble()};
      return rv;
    }
    if (auto ba = llvm::dyn_cast_or_null<mlir::BoolAttr>(attr)) {
      rv->i = {ba.getValue() ? 1 : 0};
      return rv;
    }
    refuse(op, "a constant of a kind the oracle does not read");
  }

  // --- math ------------------------------------------------------------------
  void exec_math(Operation *op, llvm::StringRef n) {
    Type rt = op->getResult(0).getType();
    const size_t lanes = count_of(shape_of(rt));
    spend(op, lanes);
    std::vector<Val> in = values(op, op->getOperands());
    auto out = std::make_shared<RV>();
    out->kind = kind_of(rt);
    out->shape = shape_of(rt);
    elementwise_work(op, n == "math.fma" ? 2.0 : 1.0, is_transcendental_name(n));
    auto lf = [&](size_t k, size_t idx) { return in[k]->f[in[k]->f.size() == 1 ? 0 : idx]; };
    auto li = [&](size_t k, size_t idx) { return in[k]->i[in[k]->i.size() == 1 ? 0 : idx]; };
    static const std::map<std::string, double (*)(double)> unary = {
        {"math.exp", [](double x) { return std::exp(x); }},     {"math.exp2", [](double x) { return std::exp2(x); }},
        {"math.expm1", [](double x) { return std::expm1(x); }}, {"math.log", [](double x) { return std::log(x); }},
        {"math.log2", [](double x) { return std::log2(x); }},   {"math.log10", [](double x) { return std::log10(x); }},
        {"math.log1p", [](double x) { return std::log1p(x); }}, {"math.sqrt", [](double x) { return std::sqrt(x); }},
        {"math.rsqrt", [](double x) { return 1.0 / std::sqrt(x); }}, {"math.cbrt", [](double x) { return std::cbrt(x); }},
        {"math.sin", [](double x) { return std::sin(x); }},     {"math.cos", [](double x) { return std::cos(x); }},
        {"math.tan", [](double x) { return std::tan(x); }},     {"math.tanh", [](double x) { return std::tanh(x); }},
        {"math.asin", [](double x) { return std::asin(x); }},   {"math.acos", [](double x) { return std::acos(x); }},
        {"math.atan", [](double x) { return std::atan(x); }},   {"math.sinh", [](double x) { return std::sinh(x); }},
        {"math.cosh", [](double x) { return std::cosh(x); }},   {"math.asinh", [](double x) { return std::asinh(x); }},
        {"math.acosh", [](double x) { return std::acosh(x); }}, {"math.atanh", [](double x) { return std::atanh(x); }},
        {"math.erf", [](double x) { return std::erf(x); }},     {"math.erfc", [](double x) { return std::erfc(x); }},
        {"math.absf", [](double x) { return std::fabs(x); }},   {"math.floor", [](double x) { return std::floor(x); }},
        {"math.ceil", [](double x) { return std::ceil(x); }},   {"math.round", [](double x) { return std::round(x); }},
        {"math.roundeven", [](double x) { return std::nearbyint(x); }}, {"math.trunc", [](double x) { return std::trunc(x); }}};
    auto u = unary.find(n.str());
    if (u != unary.end() && out->kind == Kind::Float) {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = u->second(lf(0, idx));
    } else if (n == "math.fma") {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = lf(0, idx) * lf(1, idx) + lf(2, idx);
    } else if (n == "math.powf" || n == "math.atan2" || n == "math.copysign") {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx)
        out->f[idx] = n == "math.powf" ? std::pow(lf(0, idx), lf(1, idx))
                      : n == "math.atan2" ? std::atan2(lf(0, idx), lf(1, idx))
                                          : std::copysign(lf(0, idx), lf(1, idx));
    } else if (n == "math.fpowi") {
      out->f.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->f[idx] = std::pow(lf(0, idx), static_cast<double>(li(1, idx)));
    } else if (n == "math.absi") {
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) out->i[idx] = wrap(std::llabs(li(0, idx)), int_bits(elem_of(rt)));
    } else if (n == "math.isnan" || n == "math.isinf" || n == "math.isfinite") {
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) {
        double x = lf(0, idx);
        out->i[idx] = n == "math.isnan" ? std::isnan(x) : n == "math.isinf" ? std::isinf(x) : std::isfinite(x);
      }
    } else if (n == "math.ctpop" || n == "math.ctlz" || n == "math.cttz") {
      const int bits = int_bits(elem_of(rt));
      out->i.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) {
        std::uint64_t x = uval(li(0, idx), bits);
        int r = 0;
        if (n == "math.ctpop") r = __builtin_popcountll(x);
        else if (n == "math.ctlz") r = x == 0 ? bits : __builtin_clzll(x) - (64 - bits);
        else r = x == 0 ? bits : __builtin_ctzll(x);
        out->i[idx] = r;
      }
    } else {
      refuse(op, "the oracle does not execute this op");
    }
    set(op->getResult(0), out);
  }

  // --- memory ----------------------------------------------------------------
  /// The value at (arg, byte) as a `t` (element type): what the kernel
  /// stored there, the launch's data, or a seeded value.
  void read_lane(Operation *op, const Ptr &p, Type e, RV &out) {
    Kind k = kind_of(e);
    if (p.arg >= 0) {
      const ArgInfo &a = args_[static_cast<size_t>(p.arg)];
      if (a.buffer >= 0) {
        const std::int64_t at = arg_offset_[static_cast<size_t>(p.arg)] + p.off;
        auto &mem = memory_[static_cast<size_t>(a.buffer)];
        auto it = mem.find(at);
        if (it != mem.end()) {
          const Cell &c = it->second;
          if (k == Kind::Int) out.i.push_back(wrap(c.kind == Kind::Float ? static_cast<std::int64_t>(c.f) : c.i, int_bits(e)));
          else if (k == Kind::Float) out.f.push_back(c.kind == Kind::Int ? static_cast<double>(c.i) : c.f);
          else out.p.push_back(c.kind == Kind::Ptr ? c.p : Ptr{-1, c.i});
          return;
        }
      }
      auto d = in_.data.find(p.arg);
      if (d != in_.data.end()) {
        const std::int64_t eb = byte_size(e);
        const std::int64_t index = eb > 0 ? p.off / eb : -1;
        if (eb > 0 && p.off % eb == 0 && index >= 0 && index < static_cast<std::int64_t>(d->second.size())) {
          std::int64_t v = d->second[static_cast<size_t>(index)];
          if (k == Kind::Int) out.i.push_back(wrap(v, int_bits(e)));
          else if (k == Kind::Float) out.f.push_back(static_cast<double>(v));
          else out.p.push_back(Ptr{-1, v});
          return;
        }
        note(op, "a load of " + a.key + " outside the launch's data is a seeded value");
      }
    }
    const std::uint64_t h = splitmix(options_.seed ^ splitmix(static_cast<std::uint64_t>(p.arg + 2) * 0x100000001b3ull ^
                                                              static_cast<std::uint64_t>(p.off)));
    if (k == Kind::Float) {
      out.f.push_back(static_cast<double>(h % 2000000) / 1000000.0 - 1.0);
    } else if (k == Kind::Int) {
      const int bits = int_bits(e);
      out.i.push_back(wrap(static_cast<std::int64_t>(h % static_cast<std::uint64_t>(bits == 1 ? 2 : std::max<std::int64_t>(1, options_.int_range))), bits));
    } else {
      note(op, "a loaded pointer is not derived from an argument");
      out.p.push_back(Ptr{-1, static_cast<std::int64_t>(h % 4096)});
    }
  }

  void write_lane(const Ptr &p, const RV &v, size_t idx) {
    if (p.arg < 0) return;
    const ArgInfo &a = args_[static_cast<size_t>(p.arg)];
    if (a.buffer < 0) return;
    Cell c;
    c.kind = v.kind;
    if (v.kind == Kind::Int) c.i = v.i[v.i.size() == 1 ? 0 : idx];
    else if (v.kind == Kind::Float) c.f = v.f[v.f.size() == 1 ? 0 : idx];
    else if (v.kind == Kind::Ptr) c.p = v.p[v.p.size() == 1 ? 0 : idx];
    memory_[static_cast<size_t>(a.buffer)][arg_offset_[static_cast<size_t>(p.arg)] + p.off] = c;
  }

  static void pad_lane(Kind k, RV &out, double pad) {
    if (k == Kind::Int) out.i.push_back(0);
    else if (k == Kind::Float) out.f.push_back(pad);
    else out.p.push_back(Ptr{});
  }

  /// Lanes of a block-pointer or descriptor access: pointer and in-bounds flag.
  struct Lanes {
    std::vector<Ptr> ptr;
    std::vector<bool> in_bounds;
  };

  /// Element (i0, i1, ...) of a block: base + sum (offset_d + i_d) * stride_d,
  /// in bounds when 0 <= offset_d + i_d < shape_d for each checked dimension.
  static Lanes block_lanes(const Ptr &base, int elem_bytes, const std::vector<std::int64_t> &shape,
                           const std::vector<std::int64_t> &strides, const std::vector<std::int64_t> &offsets,
                           const std::vector<std::int64_t> &block, const std::vector<bool> &checked) {
    Lanes out;
    const size_t n = count_of(block), rank = block.size();
    out.ptr.resize(n);
    out.in_bounds.assign(n, true);
    std::vector<std::int64_t> idx(rank, 0);
    for (size_t lane = 0; lane < n; ++lane) {
      std::int64_t elem = 0;
      bool ok = true;
      for (size_t d = 0; d < rank; ++d) {
        std::int64_t pos = offsets[d] + idx[d];
        elem += pos * strides[d];
        if (checked[d] && (pos < 0 || pos >= shape[d])) ok = false;
      }
      out.ptr[lane] = Ptr{base.arg, base.off + elem * elem_bytes};
      out.in_bounds[lane] = ok;
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < block[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

  void record(Direction dir, int elem_bytes, const std::vector<Ptr> &ptrs, const std::vector<bool> &active) {
    std::vector<AccessLane> lanes(ptrs.size());
    for (size_t idx = 0; idx < ptrs.size(); ++idx) lanes[idx] = AccessLane{ptrs[idx].arg, ptrs[idx].off, active[idx]};
    rec_.access(dir, elem_bytes, lanes);
  }

  std::vector<bool> mask_of(Operation *op, Value mask, size_t lanes) {
    std::vector<bool> m(lanes, true);
    if (!mask) return m;
    Val mv = get(op, mask);
    for (size_t idx = 0; idx < lanes; ++idx) m[idx] = mv->i[mv->i.size() == 1 ? 0 : idx] != 0;
    return m;
  }

  std::vector<bool> checked_dims(Operation *op, size_t rank, bool all) {
    std::vector<bool> c(rank, all);
    if (all) return c;
    if (auto bc = op->getAttrOfType<mlir::DenseI32ArrayAttr>("boundaryCheck"))
      for (std::int32_t d : bc.asArrayRef())
        if (d >= 0 && static_cast<size_t>(d) < rank) c[static_cast<size_t>(d)] = true;
    return c;
  }

  double padding_of(Operation *op) {
    if (auto pad = op->getAttrOfType<mlir::IntegerAttr>("padding")) return pad.getInt() == 2 ? NAN : 0.0;
    return 0.0;
  }

  void exec_load(Operation *op) {
    Value ptr_v = op->getOperand(0);
    Type rt = op->getResult(0).getType();
    Type e = elem_of(rt);
    const int eb = byte_size(e);
    auto out = make_like(rt);
    RV &o = *out;
    Val ptr = get(op, ptr_v);
    if (ptr->kind == Kind::Block) {
      const BlockPtr &bp = *ptr->block;
      std::vector<std::int64_t> block = shape_of(rt);
      Lanes l = block_lanes(bp.base, bp.elem_bytes, bp.shape, bp.strides, bp.offsets, block,
                            checked_dims(op, block.size(), false));
      spend(op, l.ptr.size());
      record(kRead, eb, l.ptr, l.in_bounds);
      double pad = padding_of(op);
      for (size_t idx = 0; idx < l.ptr.size(); ++idx) {
        if (l.in_bounds[idx]) read_lane(op, l.ptr[idx], e, o);
        else pad_lane(o.kind, o, pad);
      }
      set(op->getResult(0), out);
      return;
    }
    const size_t lanes = ptr->p.size();
    spend(op, lanes);
    Value mask = op->getNumOperands() >= 2 ? op->getOperand(1) : Value();
    Value other = op->getNumOperands() >= 3 ? op->getOperand(2) : Value();
    std::vector<bool> m = mask_of(op, mask, lanes);
    record(kRead, eb, ptr->p, m);
    Val oth = other ? get(op, other) : nullptr;
    for (size_t idx = 0; idx < lanes; ++idx) {
      if (m[idx]) {
        read_lane(op, ptr->p[idx], e, o);
      } else if (oth) {
        if (o.kind == Kind::Int) o.i.push_back(oth->i[oth->i.size() == 1 ? 0 : idx]);
        else if (o.kind == Kind::Float) o.f.push_back(oth->f[oth->f.size() == 1 ? 0 : idx]);
        else o.p.push_back(oth->p[oth->p.size() == 1 ? 0 : idx]);
      } else {
        pad_lane(o.kind, o, 0.0);
      }
    }
    set(op->getResult(0), out);
  }

  void exec_store(Operation *op) {
    Val ptr = get(op, op->getOperand(0));
    Val value = get(op, op->getOperand(1));
    Type vt = op->getOperand(1).getType();
    const int eb = byte_size(elem_of(vt));
    if (ptr->kind == Kind::Block) {
      const BlockPtr &bp = *ptr->block;
      std::vector<std::int64_t> block = shape_of(vt);
      Lanes l = block_lanes(bp.base, bp.elem_bytes, bp.shape, bp.strides, bp.offsets, block,
                            checked_dims(op, block.size(), false));
      spend(op, l.ptr.size());
      record(kWritten, eb, l.ptr, l.in_bounds);
      for (size_t idx = 0; idx < l.ptr.size(); ++idx)
        if (l.in_bounds[idx]) write_lane(l.ptr[idx], *value, idx);
      return;
    }
    const size_t lanes = ptr->p.size();
    spend(op, lanes);
    Value mask = op->getNumOperands() >= 3 ? op->getOperand(2) : Value();
    std::vector<bool> m = mask_of(op, mask, lanes);
    record(kWritten, eb, ptr->p, m);
    for (size_t idx = 0; idx < lanes; ++idx)
      if (m[idx]) write_lane(ptr->p[idx], *value, idx);
  }

  void exec_atomic(Operation *op, llvm::StringRef n) {
    const bool cas = n == "tt.atomic_cas";
    Val ptr = get(op, op->getOperand(0));
    Type rt = op->getResult(0).getType();
    Type e = elem_of(rt);
    const int eb = byte_size(e);
    const size_t lanes = ptr->p.size();
    spend(op, lanes);
    Val val = get(op, op->getOperand(cas ? 2 : 1));
    Val cmp = cas ? get(op, op->getOperand(1)) : nullptr;
    Value mask = !cas && op->getNumOperands() >= 3 ? op->getOperand(2) : Value();
    std::vector<bool> m = mask_of(op, mask, lanes);
    record(kAtomic, eb, ptr->p, m);
    auto out = make_like(rt);
    RV &o = *out;
    if (llvm::isa<mlir::RankedTensorType>(rt)) work("atomic", n.str() + " " + type_text(e), static_cast<double>(std::count(m.begin(), m.end(), true)));
    else if (m[0]) work("atomic", n.str() + " " + type_text(e), 1);
    auto rmw = op->getAttrOfType<mlir::IntegerAttr>("atomic_rmw_op");
    const std::int64_t code = rmw ? rmw.getInt() : -1;
    for (size_t idx = 0; idx < lanes; ++idx) {
      if (!m[idx]) {
        pad_lane(o.kind, o, 0.0);
        continue;
      }
      RV old;
      old.kind = o.kind;
      read_lane(op, ptr->p[idx], e, old);
      if (o.kind == Kind::Int) o.i.push_back(old.i[0]);
      else o.f.push_back(old.f.empty() ? 0.0 : old.f[0]);
      RV nv;
      nv.kind = o.kind;
      if (o.kind == Kind::Int) {
        std::int64_t x = old.i[0], y = val->i[val->i.size() == 1 ? 0 : idx];
        const int bits = int_bits(e);
        std::int64_t r = y;
        if (cas) r = x == cmp->i[cmp->i.size() == 1 ? 0 : idx] ? y : x;
        // AtomicRMWKind (tt_ops.td): and, or, xor, add, fadd, max, min, umax, umin, exch.
        else if (code == 1) r = x & y;
        else if (code == 2) r = x | y;
        else if (code == 3) r = x ^ y;
        else if (code == 4) r = x + y;
        else if (code == 6) r = std::max(sval(x, bits), sval(y, bits));
        else if (code == 7) r = std::min(sval(x, bits), sval(y, bits));
        else if (code == 8) r = uval(x, bits) >= uval(y, bits) ? x : y;
        else if (code == 9) r = uval(x, bits) <= uval(y, bits) ? x : y;
        nv.i = {wrap(r, bits)};
      } else {
        double x = old.f.empty() ? 0.0 : old.f[0], y = val->f[val->f.size() == 1 ? 0 : idx];
        double r = y;
        if (cas) r = x == cmp->f[cmp->f.size() == 1 ? 0 : idx] ? y : x;
        else if (code == 4 || code == 5) r = x + y;
        else if (code == 6) r = std::max(x, y);
        else if (code == 7) r = std::min(x, y);
        nv.f = {r};
      }
      write_lane(ptr->p[idx], nv, 0);
    }
    set(op->getResult(0), out);
  }

  const Desc &desc_of(Operation *op, Value v) {
    Val d = get(op, v);
    if (!d || d->kind != Kind::Desc || !d->desc) refuse(op, "a tensor descriptor the oracle cannot follow");
    return *d->desc;
  }

  std::vector<std::int64_t> scalars(Operation *op, mlir::ValueRange vs) {
    std::vector<std::int64_t> out;
    for (Value v : vs) out.push_back(int_of(get(op, v)));
    return out;
  }

  void exec_descriptor(Operation *op, llvm::StringRef n) {
    if (n == "tt.make_tensor_descriptor") {
      spend(op, 1);
      Val base = get(op, op->getOperand(0));
      auto d = std::make_shared<Desc>();
      d->base = base->p.at(0);
      d->elem_bytes = byte_size(llvm::cast<tt::PointerType>(op->getOperand(0).getType()).getPointeeType());
      const size_t rank = (op->getNumOperands() - 1) / 2;
      for (size_t r = 0; r < rank; ++r) {
        d->shape.push_back(int_of(get(op, op->getOperand(1 + static_cast<unsigned>(r)))));
        d->strides.push_back(int_of(get(op, op->getOperand(1 + static_cast<unsigned>(rank + r)))));
      }
      auto rv = std::make_shared<RV>();
      rv->kind = Kind::Desc;
      rv->desc = d;
      set(op->getResult(0), rv);
      return;
    }
    if (n.starts_with("tt.experimental_descriptor")) refuse(op, "3.0 TMA descriptors (a raw pointer) are not modelled");
    const Desc &d = desc_of(op, op->getOperand(0));
    std::vector<bool> all(d.shape.size(), true);
    if (n == "tt.descriptor_load" || n == "tt.descriptor_store" || n == "tt.descriptor_reduce") {
      const bool load = n == "tt.descriptor_load";
      Value src = load ? Value() : op->getOperand(op->getNumOperands() - 1);
      mlir::ValueRange idx_range = load ? op->getOperands().drop_front(1) : op->getOperands().drop_front(1).drop_back(1);
      std::vector<std::int64_t> offsets = scalars(op, idx_range);
      Type vt = load ? op->getResult(0).getType() : src.getType();
      std::vector<std::int64_t> block = shape_of(vt);
      // A descriptor's block may have fewer dimensions than the tensor (leading ones of size 1).
      while (block.size() < d.shape.size()) block.insert(block.begin(), 1);
      Lanes l = block_lanes(d.base, d.elem_bytes, d.shape, d.strides, offsets, block, all);
      spend(op, l.ptr.size());
      Type e = elem_of(vt);
      const int eb = byte_size(e);
      if (load) {
        record(kRead, eb, l.ptr, l.in_bounds);
        auto out = make_like(vt);
        RV &o = *out;
        for (size_t idx = 0; idx < l.ptr.size(); ++idx) {
          if (l.in_bounds[idx]) read_lane(op, l.ptr[idx], e, o);
          else pad_lane(o.kind, o, padding_of(op));
        }
        set(op->getResult(0), out);
        return;
      }
      Val value = get(op, src);
      if (n == "tt.descriptor_reduce") {
        record(kAtomic, eb, l.ptr, l.in_bounds);
        work("atomic", n.str() + " " + type_text(e), static_cast<double>(std::count(l.in_bounds.begin(), l.in_bounds.end(), true)));
        note(op, "descriptor_reduce: the bytes and elements are counted, the stored values are the operand's");
      } else {
        record(kWritten, eb, l.ptr, l.in_bounds);
      }
      for (size_t idx = 0; idx < l.ptr.size(); ++idx)
        if (l.in_bounds[idx]) write_lane(l.ptr[idx], *value, idx);
      return;
    }
    if (n == "tt.descriptor_gather" || n == "tt.descriptor_scatter") {
      const bool gather = n == "tt.descriptor_gather";
      Val rows = get(op, op->getOperand(1));
      std::int64_t col0 = int_of(get(op, op->getOperand(2)));
      Type vt = gather ? op->getResult(0).getType() : op->getOperand(3).getType();
      std::vector<std::int64_t> block = shape_of(vt);  // [rows, cols]
      if (block.size() != 2 || d.shape.size() != 2) refuse(op, "a gather/scatter that is not two-dimensional");
      std::vector<Ptr> ptrs;
      std::vector<bool> in_bounds;
      for (std::int64_t r = 0; r < block[0]; ++r) {
        std::int64_t row = rows->i[static_cast<size_t>(r)];
        for (std::int64_t c = 0; c < block[1]; ++c) {
          std::int64_t col = col0 + c;
          ptrs.push_back(Ptr{d.base.arg, d.base.off + (row * d.strides[0] + col * d.strides[1]) * d.elem_bytes});
          in_bounds.push_back(row >= 0 && row < d.shape[0] && col >= 0 && col < d.shape[1]);
        }
      }
      spend(op, ptrs.size());
      Type e = elem_of(vt);
      if (gather) {
        record(kRead, byte_size(e), ptrs, in_bounds);
        auto out = make_like(vt);
        RV &o = *out;
        for (size_t idx = 0; idx < ptrs.size(); ++idx) {
          if (in_bounds[idx]) read_lane(op, ptrs[idx], e, o);
          else pad_lane(o.kind, o, 0.0);
        }
        set(op->getResult(0), out);
      } else {
        record(kWritten, byte_size(e), ptrs, in_bounds);
        Val value = get(op, op->getOperand(3));
        for (size_t idx = 0; idx < ptrs.size(); ++idx)
          if (in_bounds[idx]) write_lane(ptrs[idx], *value, idx);
      }
      return;
    }
    refuse(op, "the oracle does not execute this op");
  }

  // --- shapes ----------------------------------------------------------------
  /// out[lane] = in[src_of(lane)] for every lane of `rt`.
  Val gather_lanes(const Val &in, Type rt, const std::function<size_t(size_t)> &src_of) {
    auto out = std::make_shared<RV>();
    out->kind = in->kind;
    out->shape = shape_of(rt);
    const size_t n = count_of(out->shape);
    if (in->kind == Kind::Int) {
      out->i.resize(n);
      for (size_t idx = 0; idx < n; ++idx) out->i[idx] = in->i[in->i.size() == 1 ? 0 : src_of(idx)];
    } else if (in->kind == Kind::Float) {
      out->f.resize(n);
      for (size_t idx = 0; idx < n; ++idx) out->f[idx] = in->f[in->f.size() == 1 ? 0 : src_of(idx)];
    } else if (in->kind == Kind::Ptr) {
      out->p.resize(n);
      for (size_t idx = 0; idx < n; ++idx) out->p[idx] = in->p[in->p.size() == 1 ? 0 : src_of(idx)];
    } else {
      return in;
    }
    return out;
  }

  static std::vector<std::int64_t> unflatten(size_t lane, const std::vector<std::int64_t> &shape) {
    std::vector<std::int64_t> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d] = static_cast<std::int64_t>(lane % static_cast<size_t>(shape[d]));
      lane /= static_cast<size_t>(shape[d]);
    }
    return idx;
  }
  static size_t flatten(const std::vector<std::int64_t> &idx, const std::vector<std::int64_t> &shape) {
    size_t lane = 0;
    for (size_t d = 0; d < shape.size(); ++d) lane = lane * static_cast<size_t>(shape[d]) + static_cast<size_t>(idx[d]);
    return lane;
  }

  Val with_shape(const Val &in, Type rt) {
    auto out = std::make_shared<RV>(*in);
    out->shape = shape_of(rt);
    return out;
  }

  /// Layout work: moving data elements (not addresses, not index values).
  void layout_work(Operation *op) {
    if (op->getNumResults() == 0) return;
    Type rt = op->getResult(0).getType();
    if (!llvm::isa<mlir::RankedTensorType>(rt)) return;
    work("layout", type_text(elem_of(rt)), static_cast<double>(count_of(shape_of(rt))));
  }

  // --- reductions ------------------------------------------------------------
  /// The combiner of a reduce/scan region when it is one arith op on the two
  /// block arguments (fast path), else nullopt.
  std::optional<std::string> simple_combiner(mlir::Region &region) {
    mlir::Block &b = region.front();
    if (b.getNumArguments() != 2 || b.getOperations().size() != 2) return std::nullopt;
    Operation &first = b.front();
    Operation *term = b.getTerminator();
    if (first.getNumOperands() != 2 || first.getNumResults() != 1 || term->getNumOperands() != 1 ||
        term->getOperand(0) != first.getResult(0))
      return std::nullopt;
    if (first.getOperand(0) != b.getArgument(0) || first.getOperand(1) != b.getArgument(1)) return std::nullopt;
    std::string n = first.getName().getStringRef().str();
    static const std::set<std::string> ok = {"arith.addf", "arith.addi", "arith.mulf", "arith.muli", "arith.maxnumf",
                                             "arith.minnumf", "arith.maximumf", "arith.minimumf", "arith.maxsi",
                                             "arith.minsi", "arith.andi", "arith.ori", "arith.xori"};
    if (!ok.count(n)) return std::nullopt;
    return n;
  }

  static double combine_f(const std::string &n, double x, double y) {
    if (n == "arith.addf") return x + y;
    if (n == "arith.mulf") return x * y;
    if (n == "arith.maxnumf") return std::fmax(x, y);
    if (n == "arith.minnumf") return std::fmin(x, y);
    if (n == "arith.maximumf") return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
    return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
  }
  static std::int64_t combine_i(const std::string &n, std::int64_t x, std::int64_t y, int bits) {
    if (n == "arith.addi") return wrap(x + y, bits);
    if (n == "arith.muli") return wrap(x * y, bits);
    if (n == "arith.maxsi") return std::max(x, y);
    if (n == "arith.minsi") return std::min(x, y);
    if (n == "arith.andi") return x & y;
    if (n == "arith.ori") return x | y;
    return x ^ y;
  }

  /// Scalar lane `idx` of a tensor value, as a scalar value.
  static Val lane_of(const Val &v, size_t idx) {
    auto rv = std::make_shared<RV>();
    rv->kind = v->kind;
    if (v->kind == Kind::Int) rv->i = {v->i[idx]};
    else if (v->kind == Kind::Float) rv->f = {v->f[idx]};
    else if (v->kind == Kind::Ptr) rv->p = {v->p[idx]};
    return rv;
  }

  /// Counts ops of a combiner region (its terminator excluded).
  static double region_ops(mlir::Region &region) {
    double n = 0;
    region.walk([&](Operation *o) {
      if (!o->hasTrait<mlir::OpTrait::IsTerminator>()) n += 1;
    });
    return n;
  }

  void exec_reduce_like(Operation *op, bool scan, int depth) {
    std::vector<Val> srcs = values(op, op->getOperands());
    std::vector<std::int64_t> shape = shape_of(op->getOperand(0).getType());
    const std::int64_t axis = op->getAttrOfType<mlir::IntegerAttr>("axis").getInt();
    const bool reverse = scan && op->getAttrOfType<mlir::BoolAttr>("reverse") && op->getAttrOfType<mlir::BoolAttr>("reverse").getValue();
    const size_t n_in = count_of(shape);
    const std::int64_t extent = shape[static_cast<size_t>(axis)];
    mlir::Region &region = op->getRegion(0);
    const double ops = region_ops(region);
    spend(op, static_cast<std::uint64_t>(static_cast<double>(n_in) * std::max(1.0, ops)));
    const double combines = static_cast<double>(n_in) - static_cast<double>(n_in) / static_cast<double>(extent);
    work(scan ? "scan" : "reduction", type_text(elem_of(op->getOperand(0).getType())), combines * ops);
    // Positions: outer (before axis) x inner (after axis).
    size_t outer = 1, inner = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<std::int64_t>(d) < axis) outer *= static_cast<size_t>(shape[d]);
      if (static_cast<std::int64_t>(d) > axis) inner *= static_cast<size_t>(shape[d]);
    }
    const size_t k = srcs.size();
    std::optional<std::string> fast = k == 1 ? simple_combiner(region) : std::nullopt;
    const int bits = srcs[0]->kind == Kind::Int ? int_bits(elem_of(op->getOperand(0).getType())) : 64;
    std::vector<std::shared_ptr<RV>> outs(k);
    for (size_t r = 0; r < k; ++r) {
      outs[r] = std::make_shared<RV>();
      outs[r]->kind = srcs[r]->kind;
      outs[r]->shape = shape_of(op->getResult(static_cast<unsigned>(r)).getType());
      const size_t cnt = scan ? n_in : outer * inner;
      if (srcs[r]->kind == Kind::Int) outs[r]->i.resize(cnt);
      else outs[r]->f.resize(cnt);
    }
    for (size_t o = 0; o < outer; ++o)
      for (size_t in = 0; in < inner; ++in) {
        auto at = [&](std::int64_t e) {
          std::int64_t pos = reverse ? extent - 1 - e : e;
          return (o * static_cast<size_t>(extent) + static_cast<size_t>(pos)) * inner + in;
        };
        if (fast) {
          if (srcs[0]->kind == Kind::Float) {
            double acc = srcs[0]->f[at(0)];
            if (scan) outs[0]->f[at(0)] = acc;
            for (std::int64_t e = 1; e < extent; ++e) {
              acc = combine_f(*fast, acc, srcs[0]->f[at(e)]);
              if (scan) outs[0]->f[at(e)] = acc;
            }
            if (!scan) outs[0]->f[o * inner + in] = acc;
          } else {
            std::int64_t acc = srcs[0]->i[at(0)];
            if (scan) outs[0]->i[at(0)] = acc;
            for (std::int64_t e = 1; e < extent; ++e) {
              acc = combine_i(*fast, acc, srcs[0]->i[at(e)], bits);
              if (scan) outs[0]->i[at(e)] = acc;
            }
            if (!scan) outs[0]->i[o * inner + in] = acc;
          }
          continue;
        }
        std::vector<Val> acc(k);
        for (size_t r = 0; r < k; ++r) acc[r] = lane_of(srcs[r], at(0));
        auto put = [&](size_t lane) {
          for (size_t r = 0; r < k; ++r) {
            if (acc[r]->kind == Kind::Int) outs[r]->i[lane] = acc[r]->i[0];
            else outs[r]->f[lane] = acc[r]->f[0];
          }
        };
        if (scan) put(at(0));
        for (std::int64_t e = 1; e < extent; ++e) {
          std::vector<Val> args = acc;
          for (size_t r = 0; r < k; ++r) args.push_back(lane_of(srcs[r], at(e)));
          acc = run_region_uncounted(region, args, depth);
          if (scan) put(at(e));
        }
        if (!scan) put(o * inner + in);
      }
    for (size_t r = 0; r < k; ++r) set(op->getResult(static_cast<unsigned>(r)), outs[r]);
  }

  /// A combiner region: its ops are the reduction's work, not elementwise work.
  std::vector<Val> run_region_uncounted(mlir::Region &region, const std::vector<Val> &args, int depth) {
    ++uncounted_;
    std::vector<Val> out = run_region(region, args, depth);
    --uncounted_;
    return out;
  }

  // --- dot -------------------------------------------------------------------
  /// The cube unit class: cube_<a> when both operands have the same class,
  /// else cube_<a>x<b> (fp16, bf16, fp32, int8, fp8, fp4/6 for the
  /// 4- and 6-bit scaled formats, fp64).
  static std::string cube_norm(const std::string &t) {
    if (t == "f16" || t == "fp16") return "fp16";
    if (t == "bf16") return "bf16";
    if (t == "f32") return "fp32";
    if (t == "i8" || t == "ui8") return "int8";
    if (t.rfind("f8", 0) == 0 || t == "e4m3" || t == "e5m2") return "fp8";
    if (t == "e2m1" || t == "e2m3" || t == "e3m2") return "fp4/6";
    if (t == "f64") return "fp64";
    return t;
  }
  static std::string cube_class(const std::string &a, const std::string &b) {
    const std::string x = cube_norm(a), y = cube_norm(b);
    return "cube_" + (x == y ? x : x + "x" + y);
  }

  void exec_dot(Operation *op) {
    Val a = get(op, op->getOperand(0)), b = get(op, op->getOperand(1)), c = get(op, op->getOperand(2));
    std::vector<std::int64_t> as = shape_of(op->getOperand(0).getType()), bs = shape_of(op->getOperand(1).getType());
    const bool batched = as.size() == 3;
    const std::int64_t B = batched ? as[0] : 1, M = as[as.size() - 2], K = as[as.size() - 1], N = bs[bs.size() - 1];
    spend(op, static_cast<std::uint64_t>(B * M * N * K));
    work("cube", cube_class(type_text(elem_of(op->getOperand(0).getType())), type_text(elem_of(op->getOperand(1).getType()))),
         2.0 * static_cast<double>(B * M * N * K));
    Type rt = op->getResult(0).getType();
    auto out = std::make_shared<RV>(*c);
    out->shape = shape_of(rt);
    const bool ints = out->kind == Kind::Int;
    for (std::int64_t bb = 0; bb < B; ++bb)
      for (std::int64_t m = 0; m < M; ++m)
        for (std::int64_t nn = 0; nn < N; ++nn) {
          const size_t o = static_cast<size_t>((bb * M + m) * N + nn);
          if (ints) {
            std::int64_t acc = out->i[o];
            for (std::int64_t k = 0; k < K; ++k)
              acc += a->i[static_cast<size_t>((bb * M + m) * K + k)] * b->i[static_cast<size_t>((bb * K + k) * N + nn)];
            out->i[o] = wrap(acc, int_bits(elem_of(rt)));
          } else {
            double acc = out->f[o];
            for (std::int64_t k = 0; k < K; ++k)
              acc += a->f[static_cast<size_t>((bb * M + m) * K + k)] * b->f[static_cast<size_t>((bb * K + k) * N + nn)];
            out->f[o] = acc;
          }
        }
    set(op->getResult(0), out);
  }

  void exec_dot_scaled(Operation *op) {
    std::vector<std::int64_t> as = shape_of(op->getOperand(0).getType()), cs = shape_of(op->getOperand(2).getType());
    static const char *const kScaled[] = {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "bf16", "fp16"};
    auto kind = [&](const char *name) {
      auto k = op->getAttrOfType<mlir::IntegerAttr>(name);
      return k && k.getInt() >= 0 && k.getInt() < 7 ? std::string(kScaled[k.getInt()]) : std::string("?");
    };
    const std::string a = kind("a_elem_type"), b = kind("b_elem_type");
    // e2m1 packs two values per byte along K (docs/extract_ttir.md §3).
    const std::int64_t M = cs[0], N = cs[1], K = as[1] * (a == "e2m1" ? 2 : 1);
    spend(op, static_cast<std::uint64_t>(M * N * K));
    work("cube", cube_class(a, b), 2.0 * static_cast<double>(M * N * K));
    note(op, "tt.dot_scaled: the FLOP are counted, the result is the accumulator (values not modelled)");
    set(op->getResult(0), get(op, op->getOperand(2)));
  }

  // --- tt ----------------------------------------------------------------
  void exec_tt(Operation *op, llvm::StringRef n, int depth) {
    if (n == "tt.load") return exec_load(op);
    if (n == "tt.store") return exec_store(op);
    if (n == "tt.dot") return exec_dot(op);
    if (n == "tt.dot_scaled") return exec_dot_scaled(op);
    if (n == "tt.reduce") return exec_reduce_like(op, false, depth);
    if (n == "tt.scan") return exec_reduce_like(op, true, depth);
    if (n == "tt.atomic_rmw" || n == "tt.atomic_cas") return exec_atomic(op, n);
    if (n.contains("descriptor")) return exec_descriptor(op, n);
    if (n == "tt.get_program_id" || n == "tt.get_num_programs") {
      spend(op, 1);
      auto axis = op->getAttrOfType<mlir::IntegerAttr>("axis");
      const size_t a = axis ? static_cast<size_t>(axis.getInt()) : 0;
      set(op->getResult(0), scalar_int(n == "tt.get_program_id" ? pid_[a] : in_.grid[a]));
      return;
    }
    if (n == "tt.make_range") {
      const std::int64_t start = op->getAttrOfType<mlir::IntegerAttr>("start").getInt();
      const std::int64_t end = op->getAttrOfType<mlir::IntegerAttr>("end").getInt();
      spend(op, static_cast<std::uint64_t>(std::max<std::int64_t>(1, end - start)));
      auto rv = std::make_shared<RV>();
      rv->kind = Kind::Int;
      rv->shape = {end - start};
      for (std::int64_t v = start; v < end; ++v) rv->i.push_back(v);
      set(op->getResult(0), rv);
      return;
    }
    if (n == "tt.splat") {
      Type rt = op->getResult(0).getType();
      spend(op, count_of(shape_of(rt)));
      Val src = get(op, op->getOperand(0));
      set(op->getResult(0), gather_lanes(src, rt, [](size_t) { return size_t{0}; }));
      return;
    }
    if (n == "tt.broadcast") {
      Type rt = op->getResult(0).getType();
      std::vector<std::int64_t> rs = shape_of(rt), ss = shape_of(op->getOperand(0).getType());
      spend(op, count_of(rs));
      layout_work_if_data(op);
      Val src = get(op, op->getOperand(0));
      set(op->getResult(0), gather_lanes(src, rt, [&](size_t lane) {
            std::vector<std::int64_t> idx = unflatten(lane, rs);
            for (size_t d = 0; d < idx.size(); ++d)
              if (ss[d] == 1) idx[d] = 0;
            return flatten(idx, ss);
          }));
      return;
    }
    if (n == "tt.expand_dims" || n == "tt.reshape" || n == "tt.unsplat") {
      Type rt = op->getResult(0).getType();
      spend(op, 1);
      if (n == "tt.reshape") layout_work_if_data(op);
      set(op->getResult(0), with_shape(get(op, op->getOperand(0)), rt));
      return;
    }
    if (n == "tt.trans") {
      Type rt = op->getResult(0).getType();
      std::vector<std::int64_t> rs = shape_of(rt), ss = shape_of(op->getOperand(0).getType());
      spend(op, count_of(rs));
      layout_work_if_data(op);
      auto order = op->getAttrOfType<mlir::DenseI32ArrayAttr>("order").asArrayRef();
      std::vector<std::int32_t> ord(order.begin(), order.end());
      set(op->getResult(0), gather_lanes(get(op, op->getOperand(0)), rt, [&](size_t lane) {
            std::vector<std::int64_t> r = unflatten(lane, rs), s(ss.size());
            for (size_t d = 0; d < r.size(); ++d) s[static_cast<size_t>(ord[d])] = r[d];
            return flatten(s, ss);
          }));
      return;
    }
    if (n == "tt.cat") {
      Type rt = op->getResult(0).getType();
      Val x = get(op, op->getOperand(0)), y = get(op, op->getOperand(1));
      spend(op, count_of(shape_of(rt)));
      layout_work(op);
      auto out = std::make_shared<RV>(*x);
      out->shape = shape_of(rt);
      out->i.insert(out->i.end(), y->i.begin(), y->i.end());
      out->f.insert(out->f.end(), y->f.begin(), y->f.end());
      out->p.insert(out->p.end(), y->p.begin(), y->p.end());
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.join") {
      Type rt = op->getResult(0).getType();
      Val x = get(op, op->getOperand(0)), y = get(op, op->getOperand(1));
      spend(op, count_of(shape_of(rt)));
      layout_work(op);
      auto out = std::make_shared<RV>();
      out->kind = x->kind;
      out->shape = shape_of(rt);
      for (size_t idx = 0; idx < x->lanes(); ++idx) {
        if (x->kind == Kind::Int) out->i.insert(out->i.end(), {x->i[idx], y->i[idx]});
        else if (x->kind == Kind::Float) out->f.insert(out->f.end(), {x->f[idx], y->f[idx]});
        else out->p.insert(out->p.end(), {x->p[idx], y->p[idx]});
      }
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.split") {
      Val x = get(op, op->getOperand(0));
      spend(op, x->lanes());
      layout_work(op);
      for (unsigned r = 0; r < 2; ++r) {
        Type rt = op->getResult(r).getType();
        set(op->getResult(r), gather_lanes(x, rt, [r](size_t lane) { return lane * 2 + r; }));
      }
      return;
    }
    if (n == "tt.addptr") {
      Val p = get(op, op->getOperand(0)), off = get(op, op->getOperand(1));
      Type rt = op->getResult(0).getType();
      auto pt = llvm::cast<tt::PointerType>(elem_of(rt));
      const std::int64_t eb = byte_size(pt.getPointeeType());
      const size_t lanes = std::max(p->p.size(), off->i.size());
      spend(op, lanes);
      auto out = std::make_shared<RV>();
      out->kind = Kind::Ptr;
      out->shape = shape_of(rt);
      out->p.resize(lanes);
      for (size_t idx = 0; idx < lanes; ++idx) {
        Ptr q = p->p[p->p.size() == 1 ? 0 : idx];
        q.off += off->i[off->i.size() == 1 ? 0 : idx] * eb;
        out->p[idx] = q;
      }
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.make_tensor_ptr") {
      spend(op, 1);
      auto ptr_t = llvm::cast<tt::PointerType>(op->getResult(0).getType());
      auto block_t = llvm::cast<mlir::RankedTensorType>(ptr_t.getPointeeType());
      const size_t rank = static_cast<size_t>(block_t.getRank());
      auto bp = std::make_shared<BlockPtr>();
      bp->base = get(op, op->getOperand(0))->p.at(0);
      bp->elem_bytes = byte_size(block_t.getElementType());
      for (size_t r = 0; r < rank; ++r) {
        bp->shape.push_back(int_of(get(op, op->getOperand(1 + static_cast<unsigned>(r)))));
        bp->strides.push_back(int_of(get(op, op->getOperand(1 + static_cast<unsigned>(rank + r)))));
        bp->offsets.push_back(int_of(get(op, op->getOperand(1 + static_cast<unsigned>(2 * rank + r)))));
      }
      auto rv = std::make_shared<RV>();
      rv->kind = Kind::Block;
      rv->block = bp;
      set(op->getResult(0), rv);
      return;
    }
    if (n == "tt.advance") {
      spend(op, 1);
      Val src = get(op, op->getOperand(0));
      auto bp = std::make_shared<BlockPtr>(*src->block);
      for (size_t r = 0; r < bp->offsets.size(); ++r)
        bp->offsets[r] += int_of(get(op, op->getOperand(1 + static_cast<unsigned>(r))));
      auto rv = std::make_shared<RV>();
      rv->kind = Kind::Block;
      rv->block = bp;
      set(op->getResult(0), rv);
      return;
    }
    if (n == "tt.bitcast") {
      Type rt = op->getResult(0).getType();
      Val x = get(op, op->getOperand(0));
      spend(op, x->lanes());
      Type se = elem_of(op->getOperand(0).getType()), re = elem_of(rt);
      auto out = std::make_shared<RV>(*x);
      out->kind = kind_of(rt);
      if (x->kind == Kind::Float && out->kind == Kind::Int) {
        out->i.clear();
        for (double v : x->f) out->i.push_back(wrap(float_bits(v, se), int_bits(re)));
        out->f.clear();
      } else if (x->kind == Kind::Int && out->kind == Kind::Float) {
        out->f.clear();
        for (std::int64_t v : x->i) out->f.push_back(bits_float(v, re));
        out->i.clear();
      }
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.ptr_to_int") {
      Val x = get(op, op->getOperand(0));
      spend(op, x->lanes());
      auto out = make_like(op->getResult(0).getType());
      RV &o = *out;
      for (const Ptr &p : x->p) o.i.push_back(address_of(p));
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.int_to_ptr") {
      Val x = get(op, op->getOperand(0));
      spend(op, x->lanes());
      auto out = make_like(op->getResult(0).getType());
      RV &o = *out;
      for (std::int64_t v : x->i) o.p.push_back(pointer_of(v));
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.fp_to_fp" || n == "tt.clampf" || n == "tt.precise_divf" || n == "tt.precise_sqrt" ||
        n == "tt.mulhiui" || n == "tt.extern_elementwise") {
      Type rt = op->getResult(0).getType();
      const size_t lanes = count_of(shape_of(rt));
      spend(op, lanes);
      bool transcendental = n == "tt.precise_sqrt";
      if (n == "tt.extern_elementwise") {
        auto sym = op->getAttrOfType<mlir::StringAttr>("symbol");
        transcendental = sym && extern_is_transcendental(sym.getValue());
      }
      elementwise_work(op, 1.0, transcendental);
      std::vector<Val> in = values(op, op->getOperands());
      auto out = make_like(rt);
      RV &o = *out;
      auto lf = [&](size_t k, size_t idx) { return in[k]->f[in[k]->f.size() == 1 ? 0 : idx]; };
      for (size_t idx = 0; idx < lanes; ++idx) {
        if (n == "tt.fp_to_fp") o.f.push_back(lf(0, idx));
        else if (n == "tt.clampf") o.f.push_back(std::fmin(std::fmax(lf(0, idx), lf(1, idx)), lf(2, idx)));
        else if (n == "tt.precise_divf") o.f.push_back(lf(0, idx) / lf(1, idx));
        else if (n == "tt.precise_sqrt") o.f.push_back(std::sqrt(lf(0, idx)));
        else if (n == "tt.mulhiui") {
          std::uint64_t x = uval(in[0]->i[in[0]->i.size() == 1 ? 0 : idx], 32), y = uval(in[1]->i[in[1]->i.size() == 1 ? 0 : idx], 32);
          o.i.push_back(wrap(static_cast<std::int64_t>((x * y) >> 32), 32));
        } else {
          std::string f = extern_function(op->getAttrOfType<mlir::StringAttr>("symbol").getValue());
          double x = in.empty() ? 0.0 : (in[0]->kind == Kind::Float ? lf(0, idx) : static_cast<double>(in[0]->i[in[0]->i.size() == 1 ? 0 : idx]));
          double r = f.rfind("exp2", 0) == 0 ? std::exp2(x) : f.rfind("exp", 0) == 0 ? std::exp(x)
                     : f.rfind("log2", 0) == 0 ? std::log2(x) : f.rfind("log", 0) == 0 ? std::log(x)
                     : f.rfind("rsqrt", 0) == 0 ? 1.0 / std::sqrt(x) : f.rfind("sqrt", 0) == 0 ? std::sqrt(x)
                     : f.rfind("sin", 0) == 0 ? std::sin(x) : f.rfind("cos", 0) == 0 ? std::cos(x)
                     : f.rfind("tanh", 0) == 0 ? std::tanh(x) : f.rfind("erf", 0) == 0 ? std::erf(x) : x;
          if (o.kind == Kind::Float) o.f.push_back(r);
          else o.i.push_back(static_cast<std::int64_t>(r));
        }
      }
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.elementwise_inline_asm") {
      spend(op, 1);
      note(op, "the results of inline assembly are seeded values");
      for (Value r : op->getResults()) set(r, seeded(r.getType(), 0xa5a50000ull + static_cast<std::uint64_t>(lines_.lookup(op))));
      return;
    }
    if (n == "tt.map_elementwise") {
      std::vector<Val> in = values(op, op->getOperands());
      Type rt = op->getResult(0).getType();
      const size_t lanes = count_of(shape_of(rt));
      mlir::Region &region = op->getRegion(0);
      spend(op, static_cast<std::uint64_t>(static_cast<double>(lanes) * std::max(1.0, region_ops(region))));
      work("vector", type_text(elem_of(rt)), static_cast<double>(lanes) * region_ops(region));
      std::vector<std::shared_ptr<RV>> outs;
      for (Value r : op->getResults()) {
        auto o = std::make_shared<RV>();
        o->kind = kind_of(r.getType());
        o->shape = shape_of(r.getType());
        outs.push_back(o);
      }
      for (size_t idx = 0; idx < lanes; ++idx) {
        std::vector<Val> args;
        for (const Val &v : in) args.push_back(lane_of(v, v->lanes() == 1 ? 0 : idx));
        std::vector<Val> r = run_region_uncounted(region, args, depth);
        for (size_t k = 0; k < outs.size(); ++k) {
          if (outs[k]->kind == Kind::Int) outs[k]->i.push_back(r[k]->i[0]);
          else if (outs[k]->kind == Kind::Float) outs[k]->f.push_back(r[k]->f[0]);
          else outs[k]->p.push_back(r[k]->p[0]);
        }
      }
      for (unsigned k = 0; k < op->getNumResults(); ++k) set(op->getResult(k), outs[k]);
      return;
    }
    if (n == "tt.gather") {
      Type rt = op->getResult(0).getType();
      Val src = get(op, op->getOperand(0)), idx_v = get(op, op->getOperand(1));
      std::vector<std::int64_t> rs = shape_of(rt), ss = shape_of(op->getOperand(0).getType());
      const size_t axis = static_cast<size_t>(op->getAttrOfType<mlir::IntegerAttr>("axis").getInt());
      spend(op, count_of(rs));
      layout_work(op);
      set(op->getResult(0), gather_lanes(src, rt, [&](size_t lane) {
            std::vector<std::int64_t> r = unflatten(lane, rs);
            std::int64_t at = idx_v->i[lane];
            r[axis] = std::clamp<std::int64_t>(at, 0, ss[axis] - 1);
            return flatten(r, ss);
          }));
      return;
    }
    if (n == "tt.histogram") {
      Type rt = op->getResult(0).getType();
      Val src = get(op, op->getOperand(0));
      Val mask = op->getNumOperands() > 1 ? get(op, op->getOperand(1)) : nullptr;
      const size_t bins = count_of(shape_of(rt));
      spend(op, src->lanes());
      layout_work(op);
      auto out = make_like(rt);
      RV &o = *out;
      o.i.assign(bins, 0);
      for (size_t idx = 0; idx < src->i.size(); ++idx) {
        if (mask && mask->i[mask->i.size() == 1 ? 0 : idx] == 0) continue;
        std::int64_t v = src->i[idx];
        if (v >= 0 && static_cast<size_t>(v) < bins) ++o.i[static_cast<size_t>(v)];
      }
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.sort") {
      Type rt = op->getResult(0).getType();
      Val src = get(op, op->getOperand(0));
      spend(op, src->lanes());
      layout_work(op);
      std::vector<std::int64_t> shape = shape_of(rt);
      const bool desc = op->getAttrOfType<mlir::BoolAttr>("descending").getValue();
      auto out = std::make_shared<RV>(*src);
      const size_t row = static_cast<size_t>(shape.back());
      for (size_t start = 0; start + row <= out->lanes(); start += row) {
        if (out->kind == Kind::Int) {
          auto b = out->i.begin() + static_cast<long>(start);
          std::sort(b, b + static_cast<long>(row));
          if (desc) std::reverse(b, b + static_cast<long>(row));
        } else if (out->kind == Kind::Float) {
          auto b = out->f.begin() + static_cast<long>(start);
          std::sort(b, b + static_cast<long>(row));
          if (desc) std::reverse(b, b + static_cast<long>(row));
        }
      }
      set(op->getResult(0), out);
      return;
    }
    if (n == "tt.call") {
      auto callee = op->getAttrOfType<mlir::FlatSymbolRefAttr>("callee");
      Operation *target = callee ? mlir::SymbolTable::lookupNearestSymbolFrom(op, callee.getAttr()) : nullptr;
      if (!target || target->getRegion(0).empty()) refuse(op, "a call to a function the file does not define");
      spend(op, 1);
      std::vector<Val> out = call_function(target, values(op, op->getOperands()), depth + 1);
      for (unsigned k = 0; k < op->getNumResults() && k < out.size(); ++k) set(op->getResult(k), out[k]);
      return;
    }
    if (n == "tt.print" || n == "tt.assert" || n == "tt.annotation" || n == "tt.custom") return spend(op, 1);
    refuse(op, "the oracle does not execute this op");
  }

  /// broadcast, trans and reshape move data when they act on data tiles (layout work).
  void layout_work_if_data(Operation *op) {
    Type rt = op->getResult(0).getType();
    Type e = elem_of(rt);
    if (llvm::isa<tt::PointerType>(e)) return;
    if (e.isIntOrIndex() && uses_.address_only(op->getResult(0))) return;
    layout_work(op);
  }

  std::int64_t address_of(const Ptr &p) const {
    if (p.arg < 0) return p.off;
    const ArgInfo &a = args_[static_cast<size_t>(p.arg)];
    return ((static_cast<std::int64_t>(a.buffer) + 1) << 40) + arg_offset_[static_cast<size_t>(p.arg)] + p.off;
  }
  Ptr pointer_of(std::int64_t address) const {
    const std::int64_t buffer = (address >> 40) - 1;
    for (const ArgInfo &a : args_)
      if (a.pointer && a.buffer == buffer)
        return Ptr{a.index, address - ((buffer + 1) << 40) - arg_offset_[static_cast<size_t>(a.index)]};
    return Ptr{-1, address};
  }
};

//===----------------------------------------------------------------------===//
// Parsing and the launch
//===----------------------------------------------------------------------===//

std::string name_of(mlir::Location loc) {
  mlir::Location current = loc;
  for (int guard = 0; guard < 64; ++guard) {
    if (auto named = llvm::dyn_cast<mlir::NameLoc>(current)) return named.getName().str();
    if (auto callsite = llvm::dyn_cast<mlir::CallSiteLoc>(current)) {
      current = callsite.getCaller();
      continue;
    }
    break;
  }
  return {};
}

struct Parsed {
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  llvm::DenseMap<Operation *, int> lines;
  struct Func {
    Operation *op;
    std::string name;
    int line;
    bool is_public;
  };
  std::vector<Func> funcs;
};

std::optional<std::string> parse_text(mlir::MLIRContext &context, std::string_view text, const std::string &origin,
                                      Parsed &out) {
  std::set<std::string> known{"builtin"};
  for (llvm::StringRef name : context.getDialectRegistry().getDialectNames()) known.insert(name.str());
  std::map<std::string, size_t> seen;
  for (auto &[section, first_line] : ttir::split_sections(text)) {
    std::string rewritten;
    size_t start = 0;
    while (start < section.size()) {
      size_t end = section.find('\n', start);
      if (end == std::string::npos) end = section.size();
      std::string_view l(section.data() + start, end - start);
      if (auto generic = ttir::generic_form_of_unknown_op(l, known)) rewritten += *generic;
      else rewritten.append(l.data(), l.size());
      if (end < section.size()) rewritten.push_back('\n');
      start = end + 1;
    }
    std::string diagnostics;
    llvm::raw_string_ostream diag_stream(diagnostics);
    llvm::SourceMgr source_mgr;
    source_mgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(rewritten, origin), llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(source_mgr, &context, diag_stream);
    mlir::ParserConfig config(&context);
    mlir::AsmParserState state;
    mlir::Block block;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    if (mlir::succeeded(mlir::parseAsmSourceFile(source_mgr, &block, config, &state)))
      module = mlir::detail::constructContainerOpForParserIfNecessary<mlir::ModuleOp>(
          &block, &context, mlir::FileLineColLoc::get(&context, origin, 0, 0));
    if (!module) {
      std::string message = diag_stream.str();
      while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
      if (message.empty()) message = origin + ":" + std::to_string(first_line) + ": error: the TTIR does not parse";
      if (auto marker = ttir::legacy_marker(text)) message = origin + ": error: pre-3.0 TTIR (" + *marker + ")\n" + message;
      return message;
    }
    module->walk([&](Operation *op) {
      if (const mlir::AsmParserState::OperationDefinition *def = state.getOpDef(op))
        out.lines[op] = static_cast<int>(source_mgr.getLineAndColumn(def->loc.Start).first);
    });
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() != "tt.func") return;
      auto sym = op->getAttrOfType<mlir::StringAttr>("sym_name");
      auto vis = op->getAttrOfType<mlir::StringAttr>("sym_visibility");
      Parsed::Func f{op, sym ? sym.getValue().str() : std::string(), 0, !vis || vis.getValue() == "public"};
      std::string needle = "@" + f.name + "(";
      size_t occurrence = seen[f.name]++;
      size_t at = 0;
      for (size_t found = 0;; ++found) {
        at = text.find(needle, at);
        if (at == std::string_view::npos || found == occurrence) break;
        at += needle.size();
      }
      f.line = at != std::string_view::npos ? ttir::count_lines_before(text, at) : out.lines.lookup(op);
      out.funcs.push_back(f);
    });
    out.modules.push_back(std::move(module));
  }
  return std::nullopt;
}

/// A launch key for argument `idx`: its name, "%argN" or "N".
const json *launch_value(const json &table, const ArgInfo &a) {
  if (!table.is_object()) return nullptr;
  for (const std::string &k : {a.key, "%arg" + std::to_string(a.index), std::to_string(a.index)}) {
    auto it = table.find(k);
    if (it != table.end()) return &*it;
  }
  return nullptr;
}

Expected<OracleResult> run_on_this_thread(std::string_view text, const std::string &origin, const json &launch,
                                          const Options &options) {
  mlir::DialectRegistry registry;
  tt::register_ttir_dialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects();
  Parsed parsed;
  if (auto error = parse_text(context, text, origin, parsed)) return Error{*error};

  // The kernel.
  const Parsed::Func *kernel = nullptr;
  std::string wanted = launch.is_object() && launch.contains("kernel") && launch["kernel"].is_string()
                           ? launch["kernel"].get<std::string>()
                           : std::string();
  if (!wanted.empty()) {
    std::string name = wanted;
    int line = 0;
    size_t colon = wanted.rfind(':');
    if (colon != std::string::npos && colon + 1 < wanted.size() &&
        wanted.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      name = wanted.substr(0, colon);
      line = std::stoi(wanted.substr(colon + 1));
    }
    for (const Parsed::Func &f : parsed.funcs)
      if (f.name == name && (line == 0 || f.line == line)) kernel = &f;
  } else {
    int publics = 0;
    for (const Parsed::Func &f : parsed.funcs)
      if (f.is_public) {
        kernel = &f;
        ++publics;
      }
    if (publics != 1) kernel = nullptr;
  }
  if (kernel == nullptr)
    return Error{origin + ": oracle: no kernel " + (wanted.empty() ? "(the file must have exactly one public tt.func, "
                                                                     "or give launch.kernel)"
                                                                   : "'" + wanted + "'")};
  if (kernel->op->getRegion(0).empty()) return Error{origin + ": oracle: kernel '" + kernel->name + "' has no body"};

  OracleResult result;
  result.kernel = kernel->name;
  result.ttir_line = kernel->line;
  kernel->op->walk([&](Operation *op) {
    llvm::StringRef n = op->getName().getStringRef();
    if (n == "tt.dot" || n == "tt.dot_scaled") result.has_dot = true;
  });

  // Arguments and their buffers.
  mlir::Block &entry = kernel->op->getRegion(0).front();
  int next_buffer = 0;
  int address_space = -1;
  std::map<int, int> buffer_of_placement;
  for (const auto &[idx, pl] : options.placement) (void)idx, buffer_of_placement[pl.buffer] = -1;
  std::vector<std::int64_t> arg_offset(entry.getNumArguments(), 0);
  for (mlir::BlockArgument a : entry.getArguments()) {
    ArgInfo info;
    info.index = static_cast<int>(a.getArgNumber());
    std::string name = name_of(a.getLoc());
    info.key = name.empty() ? "%arg" + std::to_string(info.index) : name;
    Type t = a.getType();
    info.pointer = llvm::isa<tt::PointerType>(t) || llvm::isa<tt::TensorDescType>(t);
    if (info.pointer) {
      auto pl = options.placement.find(info.index);
      const json *address = launch.is_object() && launch.contains("args") ? launch_value(launch["args"], info) : nullptr;
      if (pl == options.placement.end() && address != nullptr && address->is_number_integer()) {
        // A pointer value in the launch: its bytes are at that address of
        // one address space shared by every argument given one.
        if (address_space < 0) address_space = next_buffer++;
        info.buffer = address_space;
        arg_offset[a.getArgNumber()] = address->get<std::int64_t>();
      } else if (pl != options.placement.end()) {
        int &b = buffer_of_placement[pl->second.buffer];
        if (b < 0) b = next_buffer++;
        info.buffer = b;
        arg_offset[a.getArgNumber()] = pl->second.byte_offset;
      } else {
        info.buffer = next_buffer++;
      }
    }
    result.args.push_back(info);
  }

  // The launch.
  LaunchInput in;
  if (launch.contains("grid")) {
    const json &g = launch["grid"];
    if (!g.is_array() || g.empty() || g.size() > 3) return Error{origin + ": oracle: launch.grid must be 1 to 3 integers"};
    for (size_t d = 0; d < g.size(); ++d) {
      if (!g[d].is_number_integer() || g[d].get<std::int64_t>() < 1)
        return Error{origin + ": oracle: launch.grid must hold positive integers"};
      in.grid[d] = g[d].get<std::int64_t>();
    }
  }
  const json args = launch.contains("args") ? launch["args"] : json::object();
  for (const ArgInfo &a : result.args) {
    const json *v = launch_value(args, a);
    if (v == nullptr || a.pointer) continue;
    if (v->is_boolean()) in.int_args[a.index] = v->get<bool>() ? 1 : 0;
    else if (v->is_number_integer()) in.int_args[a.index] = v->get<std::int64_t>();
    else if (v->is_number()) {
      in.float_args[a.index] = v->get<double>();
      double d = v->get<double>();
      if (d == std::floor(d) && std::fabs(d) < 9e18) in.int_args[a.index] = static_cast<std::int64_t>(d);
    }
  }
  const json data = launch.contains("data") ? launch["data"] : json::object();
  for (const ArgInfo &a : result.args) {
    const json *v = launch_value(data, a);
    if (v == nullptr) continue;
    if (!v->is_array()) return Error{origin + ": oracle: launch.data." + a.key + ": only arrays of integers are read"};
    std::vector<std::int64_t> values;
    for (const json &x : *v) {
      if (!x.is_number_integer()) return Error{origin + ": oracle: launch.data." + a.key + " holds a non-integer"};
      values.push_back(x.get<std::int64_t>());
    }
    in.data[a.index] = std::move(values);
  }
  result.grid = in.grid;
  result.programs = in.grid[0] * in.grid[1] * in.grid[2];
  if (result.programs > options.program_budget)
    return Error{origin + ": oracle: " + std::to_string(result.programs) + " programs exceed the program budget of " +
                 std::to_string(options.program_budget) + "; give a smaller grid"};

  std::vector<std::int64_t> buffer_offsets(arg_offset.begin(), arg_offset.end());
  Recorder rec(result.args, next_buffer, buffer_offsets);
  Machine machine(kernel->op, origin, parsed.lines, result.args, in, options, rec, result.notes, arg_offset);
  try {
    for (std::int64_t p = 0; p < result.programs; ++p) {
      std::array<std::int64_t, 3> pid{p % in.grid[0], (p / in.grid[0]) % in.grid[1], p / (in.grid[0] * in.grid[1])};
      machine.run_program(pid);
    }
  } catch (const Refusal &r) {
    return Error{r.message};
  }
  rec.finish(result);
  result.lane_ops = machine.lane_ops();
  return result;
}

}  // namespace

Expected<OracleResult> run_oracle(std::string_view text, const std::string &origin, const json &launch,
                                  const Options &options) {
  if (auto error = ttir::invalid_utf8(text, origin)) return Error{*error};
  if (auto error = ttir::too_deep(text, origin)) return Error{*error};
  // MLIR parses recursively: on a thread with the extractor's parse stack.
  std::optional<Expected<OracleResult>> result;
  llvm::thread worker(std::optional<unsigned>(ttir::kTtirParseStackBytes),
                      [&] { result.emplace(run_on_this_thread(text, origin, launch, options)); });
  worker.join();
  return std::move(*result);
}

}  // namespace perfbound::ttir_oracle
