//===- tt_dialect.hpp - C++ declarations of our `tt` dialect (MLIR) -------===//
//
// Declares the dialect, types, enums and ops generated from tt_ops.td, plus
// the type helpers the ODS constraints call. Only the two MLIR translation
// units (tt_dialect.cpp, and the unity build of ttir_analysis.cpp with the
// units of function_unit.hpp) include this header.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_TT_DIALECT_HPP
#define PERFBOUND_EXTRACT_TTIR_TT_DIALECT_HPP

#include <mlir/Bytecode/BytecodeOpInterface.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinTypes.h>
#include <mlir/IR/Dialect.h>
#include <mlir/IR/OpDefinition.h>
#include <mlir/IR/OpImplementation.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/Interfaces/CallInterfaces.h>
#include <mlir/Interfaces/ControlFlowInterfaces.h>
#include <mlir/Interfaces/FunctionInterfaces.h>
#include <mlir/Interfaces/SideEffectInterfaces.h>

namespace mlir {
class DialectRegistry;
}

namespace perfbound::tt {

/// The value type a load through `ptr` yields: `!tt.ptr<T>` -> T,
/// `tensor<SHAPE x !tt.ptr<T>>` -> `tensor<SHAPE x T>`, `!tt.ptr<tensor<..>>`
/// -> the block tensor. NoneType for anything else (never null).
mlir::Type valueTypeOfPointer(mlir::Type ptr);
/// The i1 mask type matching a pointer type's shape (i1 or tensor<SHAPE x i1>).
mlir::Type maskTypeOfPointer(mlir::Type ptr);
/// The i1 mask type matching a value type's shape.
mlir::Type maskTypeLike(mlir::Type value);
/// Element type of a tensor (the type itself for scalars).
mlir::Type elementTypeOf(mlir::Type type);
/// `!tt.ptr<E>` for a block pointer `!tt.ptr<tensor<..xE>>`.
mlir::Type baseTypeOfBlockPointer(mlir::Type block_ptr);

/// Registers every dialect printed TTIR uses: tt, arith, math, scf, cf, ub,
/// llvm (llvm.intr.assume, #llvm.loop_annotation) and gpu (gpu.barrier).
/// Dialects are loaded lazily by the parser when a file first names them.
void register_ttir_dialects(mlir::DialectRegistry &registry);

}  // namespace perfbound::tt

#include "tt_ops_dialect.h.inc"
#include "tt_ops_enums.h.inc"
#define GET_TYPEDEF_CLASSES
#include "tt_ops_types.h.inc"
#define GET_OP_CLASSES
#include "tt_ops.h.inc"

#endif  // PERFBOUND_EXTRACT_TTIR_TT_DIALECT_HPP
