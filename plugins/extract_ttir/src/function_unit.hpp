//===- function_unit.hpp - shared state of one tt.func walk ---------------===//
//
// The analysis of one tt.func is a walk (FunctionAnalyzer, ttir_analysis.cpp)
// that hands each op to the unit that models it:
//   ValueRules       value_rules.hpp      integer / pointer values as symbolic
//                                         expressions (arith, tt shape ops)
//   LoopAnalysis     loop_analysis.hpp    scf.for / scf.while / scf.if: loop
//                                         records, trip counts, carried values
//   AccessAnalysis   access_analysis.hpp  tt.load / store / atomics /
//                                         descriptors: Access records
//   ComputeAnalysis  compute_analysis.hpp per-op work by unit class
//   TileAnalysis     tile_analysis.hpp    data tiles, their buffer, liveness
// They share a FunctionState: the KernelModel being written, the value of
// every SSA value seen so far (VInfo), block-pointer and descriptor records,
// and the loop and condition the walk is in. FunctionUnit is their common
// base: it reads and writes that state.
//
// These headers include MLIR; their .cpp files are compiled as one unity
// translation unit (plugins/extract_ttir/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_FUNCTION_UNIT_HPP
#define PERFBOUND_EXTRACT_TTIR_FUNCTION_UNIT_HPP

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernel_model.hpp"
#include "tt_dialect.hpp"

#include <llvm/ADT/DenseMap.h>
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/SCF/IR/SCF.h>

namespace perfbound::ttir {

using mlir::Operation;
using mlir::Type;
using mlir::Value;

// --- types and locations ----------------------------------------------------
std::string type_text(Type type);
/// Static shape of a ranked tensor (dynamic dims as 0), {} for scalars.
std::vector<std::int64_t> shape_of(Type type);
bool is_tensor(Type type);
Type element_of(Type type);
int bits_of(Type type);
bool is_pointer_like(Type type);
bool is_integer_like(Type type);
/// The Dim bits of a value of this type's rank.
std::uint32_t dims_mask(Type type);
std::int64_t product(const std::vector<std::int64_t> &shape);
/// The innermost Python location of `loc` as "file:line:col": the callee of a
/// callsite (inlined library code names its own line), the first known part of
/// a fused location; "" when the location is unknown or the TTIR file itself.
std::string python_loc(mlir::Location loc, llvm::StringRef buffer_name);
/// Resolves a location to the line the user wrote: named locations give the
/// Python variable; callsite locations (inlined library code) resolve to the
/// outermost caller, which is in the kernel.
SourceLoc to_source(mlir::Location loc, llvm::StringRef buffer_name, bool with_python = true);

// --- op classes -------------------------------------------------------------
bool is_cube_op(Operation *op);
bool is_layout_only(Operation *op);
bool is_transcendental_name(llvm::StringRef name);
/// Classifies a libdevice symbol (`__nv_exp2f`, `__imf_rsqrtf`, `__hmf_expf`, ...).
std::string transcendental_in_symbol(llvm::StringRef symbol);

// --- value information ------------------------------------------------------
enum class VKind : std::uint8_t { Int, Ptr, BlockPtr, Desc, Data };

struct VInfo {
  VKind kind = VKind::Data;
  ExprId expr = kNoExpr;  // Int: the value; Ptr: element offset from the base argument
  int base = -1;          // Ptr: kernel argument index (-1 unknown)
  int index = -1;         // BlockPtr / Desc record
};

struct BlockPtrInfo {
  int base = -1;
  ExprId base_offset = kNoExpr;
  std::vector<ExprId> shape, strides, offsets;
  std::vector<std::int64_t> block;
  Type element;
};

struct DescInfo {
  int base = -1;
  ExprId base_offset = kNoExpr;
  std::vector<ExprId> shape, strides;
  std::vector<std::int64_t> block;
  Type element;
};

/// What the units of one function's walk share.
struct FunctionState {
  FunctionState(KernelModel &m, llvm::StringRef buffer, std::function<int(Operation *)> line_of)
      : model(m), pool(*m.pool), buffer_name(buffer), ttir_line_of(std::move(line_of)) {}
  KernelModel &model;
  ExprPool &pool;
  llvm::StringRef buffer_name;
  std::function<int(Operation *)> ttir_line_of;  // the TTIR line an op is written on
  llvm::DenseMap<Value, VInfo> values;
  std::vector<BlockPtrInfo> block_ptrs;
  std::vector<DescInfo> descs;
  int cur_loop = -1;           // innermost enclosing loop record
  ExprId cur_cond = kNoExpr;   // condition the current op runs under
  std::set<std::string> unresolved_seen;
};

/// Base of the analysis units: the value table and the reports, over a
/// FunctionState.
class FunctionUnit {
 protected:
  explicit FunctionUnit(FunctionState &s)
      : model_(s.model), pool_(s.pool), buffer_name_(s.buffer_name), ttir_line_of_(s.ttir_line_of),
        values_(s.values), block_ptrs_(s.block_ptrs), descs_(s.descs), cur_loop_(s.cur_loop), cur_cond_(s.cur_cond),
        unresolved_seen_(s.unresolved_seen) {}

  // Values.
  VInfo info(Value v);
  ExprId int_expr(Value v);
  /// Records the value of `v`. An integer or pointer expression taller than
  /// kMaxExprHeight (a chain of thousands of index operations) is recorded
  /// as unknown with the reason and the op's line: every walk over an
  /// expression stays within its depth limit.
  void set(Value v, VInfo i);
  void set_int(Value v, ExprId e);
  void set_unknown(Value v, const std::string &reason, Operation *op);
  ExprId canonical_dims(ExprId e, Type type);
  int line_of(Operation *op) {
    const int line = to_source(op->getLoc(), buffer_name_, false).line;
    return line > 0 ? line : ttir_line_of_(op);
  }
  /// Where an op is: its location's line, or, when the location has none
  /// (`loc(unknown)`, `"kernel.py":0:0`), its line in the TTIR text, so that
  /// no message says "at line 0" (issue 27).
  SourceLoc loc_of(Operation *op) {
    SourceLoc loc = to_source(op->getLoc(), buffer_name_);
    loc.ttir_line = ttir_line_of_(op);
    if (loc.line <= 0 && loc.ttir_line > 0) {
      loc.line = loc.ttir_line;
      loc.in_ttir = true;
    }
    return loc;
  }
  void unresolved(const std::string &what, const std::string &reason, const SourceLoc &loc, std::string hint = "");
  void not_counted(Operation *op, const std::string &reason);
  // Block pointers and descriptors are records; values refer to them.
  VInfo add_block_ptr(BlockPtrInfo b);
  VInfo add_desc(DescInfo d);
  /// The kernel argument and element offset a pointer operand comes from.
  std::pair<int, ExprId> base_of(Value ptr, Operation *op);

  KernelModel &model_;
  ExprPool &pool_;
  llvm::StringRef buffer_name_;
  std::function<int(Operation *)> &ttir_line_of_;
  llvm::DenseMap<Value, VInfo> &values_;
  std::vector<BlockPtrInfo> &block_ptrs_;
  std::vector<DescInfo> &descs_;
  int &cur_loop_;
  ExprId &cur_cond_;
  std::set<std::string> &unresolved_seen_;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_FUNCTION_UNIT_HPP
