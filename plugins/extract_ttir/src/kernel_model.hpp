//===- kernel_model.hpp - what a TTIR kernel asks for, without MLIR -------===//
//
// The analysis (ttir_analysis.cpp and the units of function_unit.hpp) turns
// one `tt.func public` into a KernelModel: its signature, loops, memory
// accesses, compute operations and live tiles, with every index computation
// kept symbolic (sym_expr.hpp) and every op carrying its source location.
// dsl_facts.cpp (the units of evaluation.hpp) then evaluates the model for
// one launch and one hardware profile.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_KERNEL_MODEL_HPP
#define PERFBOUND_EXTRACT_TTIR_KERNEL_MODEL_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sym_expr.hpp"

namespace perfbound::ttir {

/// Where an op comes from. `file`/`line`/`col` are the Python source when the
/// TTIR carries locations (callsite locations resolve to the caller in the
/// kernel), else the TTIR file itself (`in_ttir` = true). `ttir_line` is the
/// line in the TTIR text when known. `name` is the Python variable (3.5+
/// named locations).
/// An immutable string that the records holding the same text share (a
/// Python file path, a "file:line:col"): a copy is a reference, so the tens
/// of thousands of records of a large function hold each location's text
/// once (issue 17: memory of one large function).
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT(google-explicit-constructor)
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  SharedText(const char *text) : SharedText(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] const std::string &str() const { return text_ ? *text_ : empty_text(); }
  operator const std::string &() const { return str(); }  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool empty() const { return str().empty(); }
  friend bool operator==(const SharedText &a, std::string_view b) { return a.str() == b; }

 private:
  static const std::string &empty_text() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};

struct SourceLoc {
  SharedText file;
  int line = 0;
  int col = 0;
  bool in_ttir = false;
  std::string name;
  /// The line of the op in the TTIR text (0: unknown), whatever its location says.
  int ttir_line = 0;
  /// The innermost Python location, "file:line:col" (inlined library code
  /// names the library line); empty when the TTIR carries none.
  SharedText python;
  [[nodiscard]] bool known() const { return line > 0; }
};

enum class ArgKind { Pointer, Scalar, TensorDesc, Other };

struct KernelArg {
  int index = 0;
  std::string name;          // Python name from a named location, else empty
  std::string type;          // printed MLIR type
  ArgKind kind = ArgKind::Other;
  std::string element_type;  // pointee / scalar type, e.g. "f32", "i32"
  int element_bits = 0;
  std::int64_t divisibility = 0;  // tt.divisibility hint, 0 when absent
  bool is_float = false;
  bool used = false;
  [[nodiscard]] std::string key() const { return name.empty() ? "%arg" + std::to_string(index) : name; }
};

enum class LoopKind { For, While };

/// The region of an scf.while a Loop record stands for: the before region
/// (the condition) runs once more than the after region (the body).
enum class WhileRegion { None, Before, After };

struct Loop {
  int id = 0;
  int parent = -1;  // enclosing loop, -1 at function level
  LoopKind kind = LoopKind::For;
  ExprId lb = kNoExpr, ub = kNoExpr, step = kNoExpr;
  ExprId trip = kNoExpr;  // symbolic trip count (kNoExpr: an scf.while whose trip count is not derived)
  WhileRegion region = WhileRegion::None;
  std::string trip_why;   // scf.while: the pattern the trip count follows, or why it is not derived
  ExprId cond = kNoExpr;  // condition under which the loop runs (kNoExpr: always)
  std::string iv_name;    // Python name of the induction variable when known
  int persistent_axis = -1;  // lb uses pid(axis) and step num_programs(axis): a persistent tile loop
  SourceLoc loc;
};

enum class AccessKind { Load, Store, AtomicRMW, AtomicCAS, DescLoad, DescStore, DescGather, DescScatter, DescReduce };

/// One memory operation of the kernel, per execution.
struct Access {
  int id = 0;
  AccessKind kind = AccessKind::Load;
  std::string op;            // "tt.load", "tt.store", ...
  int arg = -1;              // kernel argument the pointer is based on (-1: unknown)
  std::string base_unknown;  // why `arg` is unknown
  std::string dtype;         // element type moved
  int element_bits = 0;
  std::vector<std::int64_t> shape;  // tile shape (empty: scalar)
  ExprId offset = kNoExpr;   // element offset from the argument, symbolic in Dim(d) of `shape`
  ExprId mask = kNoExpr;     // i1 over the tile (kNoExpr: all lanes active)
  std::string mask_kind;     // "mask operand", "boundaryCheck [0, 1]", "descriptor bounds"
  bool has_other = false;    // a load with an `other` value for masked-off lanes
  int loop = -1;             // innermost enclosing loop
  ExprId cond = kNoExpr;     // execution condition (scf.if / early return), kNoExpr: always
  bool block_pointer = false;
  bool descriptor = false;
  std::string detail;        // atomic op kind, cache modifier, ...
  SourceLoc loc;
  [[nodiscard]] bool reads() const {
    return kind == AccessKind::Load || kind == AccessKind::DescLoad || kind == AccessKind::DescGather;
  }
  [[nodiscard]] bool writes() const {
    return kind == AccessKind::Store || kind == AccessKind::DescStore || kind == AccessKind::DescScatter;
  }
  [[nodiscard]] bool atomic() const {
    return kind == AccessKind::AtomicRMW || kind == AccessKind::AtomicCAS || kind == AccessKind::DescReduce;
  }
  [[nodiscard]] std::int64_t elements() const {
    std::int64_t n = 1;
    for (std::int64_t s : shape) n *= s;
    return n;
  }
  [[nodiscard]] std::int64_t bytes() const { return elements() * ((element_bits + 7) / 8); }
};

/// Unit class of a compute op.
enum class OpClass {
  Cube,            // tt.dot / tt.dot_scaled (FLOP = 2*M*N*K)
  Vector,          // elementwise arithmetic, compares, selects, conversions on tensors
  Transcendental,  // exp, log, sqrt, sin, ... (math.*, libdevice calls)
  Reduction,       // tt.reduce (elements combined)
  Scan,            // tt.scan
  Index,           // integer tensor arithmetic that only feeds addresses and masks
  Layout,          // data movement on tiles: trans, reshape, join, split, cat, gather, sort, ...
  Scalar,          // arithmetic on scalars (issued by the scalar unit)
};

struct ComputeOp {
  std::string op;       // MLIR op name
  OpClass cls = OpClass::Vector;
  std::string dtype;    // element type of the result (inputs for dots)
  std::int64_t elements = 1;  // result elements per execution
  double flop = 0;      // per execution (1 per element for vector ops, 2MNK for dots)
  int loop = -1;
  ExprId cond = kNoExpr;
  SourceLoc loc;
  // tt.dot / tt.dot_scaled
  std::int64_t m = 0, n = 0, k = 0;
  std::string a_dtype, b_dtype, acc_dtype, precision;
  // tt.reduce / tt.scan
  int combine_ops = 0;
  std::string detail;   // e.g. the extern symbol or the transcendental function
};

enum class Buffer { UB, L1, L0C };

/// A tensor value that occupies on-chip memory while live.
struct Tile {
  int id = 0;
  std::string name;     // Python name or a description ("tt.load at line 33")
  std::string op;       // defining op
  std::vector<std::int64_t> shape;
  std::string dtype;
  int element_bits = 0;
  Buffer buffer = Buffer::UB;
  bool loaded_in_loop = false;  // multi-buffered by the compiler
  SourceLoc loc;
  [[nodiscard]] std::int64_t elements() const {
    std::int64_t n = 1;
    for (std::int64_t s : shape) n *= s;
    return n;
  }
  /// Bytes at this shape; i1 tiles are bit masks.
  [[nodiscard]] std::int64_t bytes() const {
    return element_bits == 1 ? (elements() + 7) / 8 : elements() * ((element_bits + 7) / 8);
  }
};

/// The tiles live at one program point (after the op at `loc`).
struct LivePoint {
  std::vector<int> tiles;
  SourceLoc loc;
};

struct Unresolved {
  std::string what;
  std::string reason;
  int line = 0;
  int ttir_line = 0;
  std::string python;  // innermost Python location, "file:line:col"
  std::string hint;    // what would resolve it, e.g. give trips."ttir:12"
};

/// An op the analysis does not model (an unregistered dialect's op, or one
/// it parses but does not count): its work is not counted.
struct NotCounted {
  std::string op;
  std::string reason;
  SourceLoc loc;
};

struct KernelModel {
  std::string name;
  bool is_public = true;
  SourceLoc loc;
  int ttir_line = 0;         // line of `tt.func` in the TTIR text
  std::vector<KernelArg> args;
  std::vector<Loop> loops;
  std::vector<Access> accesses;
  std::vector<ComputeOp> ops;
  std::vector<Tile> tiles;
  std::vector<LivePoint> live_points;
  std::vector<Unresolved> unresolved;
  std::vector<NotCounted> not_counted;
  bool uses_program_id[3] = {false, false, false};
  bool uses_num_programs[3] = {false, false, false};
  bool has_dot = false;
  std::unique_ptr<ExprPool> pool = std::make_unique<ExprPool>();

  /// Printing names: arguments by their key, loop counters by loop id.
  [[nodiscard]] ExprNamer namer() const;
};

/// A `tt.func` the front end could not read (MLIR's parser or verifier
/// refused it), or a whole section when the error lies outside every
/// function. Only that function is lost: the others of its section and file
/// are analysed.
struct Refusal {
  std::string name;       // the tt.func's symbol; empty for a section without one
  bool is_public = true;  // as written (`tt.func private` is not)
  int line = 0;           // TTIR line of the tt.func (of the error for a section without one)
  int section_line = 0;   // first line of its `// -----` section
  std::string message;    // "origin:line:col: error: ..." with MLIR's diagnostic
};

/// Everything found in one TTIR text.
struct TtirModule {
  std::string origin;        // path or name the text came from
  int chunks = 0;            // `// -----` sections that held a module
  bool split = false;        // the text was read as `// -----` sections (lit --split-input-file)
  std::vector<KernelModel> kernels;  // every tt.func analysed, in text order
  std::vector<Refusal> refused;      // every tt.func (or section) refused, in text order
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_KERNEL_MODEL_HPP
