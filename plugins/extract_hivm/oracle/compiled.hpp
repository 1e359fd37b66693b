//===- compiled.hpp - HIVM functions prepared for concrete execution ------===//
//
// compile.cpp turns each parsed function (ir.hpp) into a flat list of
// instructions whose operands are SSA slots, with everything that does not
// change between executions read once: op kind, predicates, affine maps,
// static view entries, result types, the op table's class and pipe.
// execute.cpp runs them. Internal to the oracle.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HIVM_ORACLE_COMPILED_HPP
#define PERFBOUND_HIVM_ORACLE_COMPILED_HPP

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "affine.hpp"
#include "ir.hpp"
#include "oracle.hpp"
#include "parser.hpp"

namespace pb::hivm::oracle::detail {

enum class K : uint8_t {
  Const, IntBin, FloatBin, CmpI, CmpF, Select, Cast, Affine,
  Subview, Reinterpret, ViewCast, Collapse, Expand, Bitcast, ExtractMeta,
  PointerCast, AllocWorkspace, Alloc,
  For, While, If, Yield, Condition,
  Hivm, Sync, Load, Store, BlockIdx, SubBlockIdx, BlockNum, SubBlockNum, OtherScalar,
  Return, Nop, Other
};

enum class IntOp : uint8_t {
  Add, Sub, Mul, DivS, DivU, RemS, RemU, CeilDivS, CeilDivU, FloorDivS, MinS, MaxS, MinU, MaxU, And, Or, Xor, Shl,
  ShrS, ShrU
};
enum class FloatOp : uint8_t { Add, Sub, Mul, Div, Rem, Min, Max, Neg, Abs };
enum class Pred : uint8_t { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge, True, False, Ord, Uno };
enum class CastOp : uint8_t { SExt, ZExt, Trunc, IntToFloat, UIntToFloat, FloatToInt, FloatToUInt, FloatToFloat, Same };

/// A scalar or memref value at run time.
struct Val {
  enum class T : uint8_t { Poison, Int, Float, Mem };
  T t = T::Poison;
  uint8_t width = 64;  // integers: bits (index = 64)
  int64_t i = 0;
  double f = 0;
  int32_t mem = -1;    // index into the frame's views
};

/// A static entry of a view list ([0, %13, 1]) or a slot.
struct Entry {
  int64_t c = 0;
  int32_t slot = -1;  // >= 0: the value of that slot
};

struct Region {
  std::vector<int32_t> args;   // slots bound on entry
  std::vector<uint32_t> insts; // indices into Fn::insts
};

/// An ins/outs operand of a HIVM op.
struct HOperand {
  int32_t slot = -1;
  Type type;
};

struct Inst {
  K kind = K::Other;
  uint32_t op = 0;  // index into Result::ops
  uint32_t line = 0;
  std::string_view name;
  std::vector<int32_t> in, out;
  uint8_t sub = 0;             // IntOp / FloatOp / Pred / CastOp / affine kind (0 apply, 1 min, 2 max)
  uint8_t width = 64;          // integer result width
  uint8_t from_width = 64;     // casts: source width
  bool result_float = false;
  Val constant;
  Type type;                   // result type (views, loads, allocs, constants)
  Type src_type;               // views: the source's type
  std::vector<Entry> offsets, sizes, strides;  // subview / reinterpret_cast / expand output_shape (sizes)
  std::vector<std::vector<int64_t>> groups;    // collapse/expand reassociation
  std::shared_ptr<const AffineMap> map;
  std::vector<Region> regions;
  std::vector<HOperand> ins, outs;
  OpInfo info;                 // the op table's entry (cls Unknown when absent)
  int64_t step_const = 0;
};

struct ArgInfo {
  std::string_view name;
  Type type;
  std::string role;   // ffts_base_address, sync_block_lock, workspace, pointer, scalar, grid_x/y/z
  int32_t triton = -1;
  int32_t grid_axis = -1;
};

struct Fn {
  FunctionInfo info;
  std::vector<ArgInfo> args;
  std::vector<int32_t> arg_slots;
  std::vector<Inst> insts;
  Region body;
  uint32_t slots = 0;
  std::vector<std::string> slot_names;
  std::vector<uint32_t> slot_lines;
  int32_t logical_block_num = -1;  // slot annotated {logical_block_num}
  std::vector<int32_t> grid_arg_order;  // argument indices that are grid factors, x, y, z
  size_t first_op = 0, end_op = 0;      // its ops in Result::ops
  bool core_declared = false;           // hivm.func_core_type or a mix suffix names the core (even MIX)
};

/// Compiles one function; `first_op` is the index its first op gets in `ops`
/// (which receives one OpStats per op, in textual order).
Fn compile_function(const Op &func, const AliasMap &aliases, uint32_t fn_index, const Options &options,
                    std::vector<OpStats> &ops);

}  // namespace pb::hivm::oracle::detail

#endif  // PERFBOUND_HIVM_ORACLE_COMPILED_HPP
