//===- tt_ops.td - our ODS definition of Triton's printed `tt` dialect ----===//
//
// This is perfbound's own description of the *printed form* of Triton TTIR
// (Triton 3.0 to 3.6, plus the triton-ascend 3.2 additions), written from the
// syntax facts in ../shared/research/ttir.md. It is not Triton's definition:
// it only has to accept what Triton prints, so that MLIR's real parser reads
// real dumps and reports anything else with file:line:col.
//
// Rules that shape the definitions below (ttir.md section 0):
//   - an operand or result whose constraint is one concrete type class
//     (PointerType, TensorDescType) is printed without the `!tt.` prefix
//     (`: <tensor<128x64xbf16>>`); any-of constraints print the full type;
//   - enums are I32 integer attributes: keywords where the format lists them,
//     plain integers (`cache = 1 : i32`) inside attr-dict;
//   - tt.reduce / tt.scan / tt.map_elementwise have no format (generic form);
//   - type constraints are kept loose (AnyType) wherever the printed text does
//     not depend on them: we read dumps, we do not check Triton's semantics.
//
//===----------------------------------------------------------------------===//

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def TT_Dialect : Dialect {
  let name = "tt";
  let cppNamespace = "::perfbound::tt";
  let summary = "Triton's `tt` dialect as printed by Triton 3.x (read-only model)";
  let useDefaultTypePrinterParser = 1;
  let usePropertiesForAttributes = 1;
}

class TT_Op<string mnemonic, list<Trait> traits = []>
    : Op<TT_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// `!tt.ptr<T>` and `!tt.ptr<T, N>`; the address space defaults to 1 and is
// elided when it is 1 (all 3.x releases). T is a scalar element type or, for
// block pointers, a ranked tensor.
def TT_PointerType : TypeDef<TT_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "Triton pointer";
  let parameters = (ins "::mlir::Type":$pointeeType, "int":$addressSpace);
  let hasCustomAssemblyFormat = 1;
}

// `!tt.tensordesc<tensor<64x64xf16>>` (3.2 to 3.7) and
// `!tt.tensordesc<64x64xf16>` / `!tt.tensordesc<64x64xf16, #layout>`
// (Triton main from 2026-04-09); both read by a hand-written parser
// (tt_dialect.cpp) into the same block type. Printed in the first form.
def TT_TensorDescType : TypeDef<TT_Dialect, "TensorDesc"> {
  let mnemonic = "tensordesc";
  let summary = "Triton tensor descriptor";
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Enums (I32 integer attributes, see the file header)
//===----------------------------------------------------------------------===//

def TT_ProgramDimAttr : I32EnumAttr<"ProgramDim", "grid axis", [
    I32EnumAttrCase<"X", 0, "x">, I32EnumAttrCase<"Y", 1, "y">, I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_CacheModifierAttr : I32EnumAttr<"CacheModifier", "cache modifier", [
    I32EnumAttrCase<"NONE", 1, "none">, I32EnumAttrCase<"CA", 2, "ca">,
    I32EnumAttrCase<"CG", 3, "cg">, I32EnumAttrCase<"WB", 4, "wb">,
    I32EnumAttrCase<"CS", 5, "cs">, I32EnumAttrCase<"WT", 6, "wt">,
    I32EnumAttrCase<"CV", 7, "cv">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_EvictionPolicyAttr : I32EnumAttr<"EvictionPolicy", "eviction policy", [
    I32EnumAttrCase<"NORMAL", 1, "evict_normal">, I32EnumAttrCase<"EVICT_FIRST", 2, "evict_first">,
    I32EnumAttrCase<"EVICT_LAST", 3, "evict_last">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_PaddingOptionAttr : I32EnumAttr<"PaddingOption", "padding of out-of-bounds block elements", [
    I32EnumAttrCase<"PAD_ZERO", 1, "zero">, I32EnumAttrCase<"PAD_NAN", 2, "nan">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_AtomicRMWKindAttr : I32EnumAttr<"AtomicRMWKind", "atomic read-modify-write operation", [
    I32EnumAttrCase<"AND", 1, "and">, I32EnumAttrCase<"OR", 2, "or">,
    I32EnumAttrCase<"XOR", 3, "xor">, I32EnumAttrCase<"ADD", 4, "add">,
    I32EnumAttrCase<"FADD", 5, "fadd">, I32EnumAttrCase<"MAX", 6, "max">,
    I32EnumAttrCase<"MIN", 7, "min">, I32EnumAttrCase<"UMAX", 8, "umax">,
    I32EnumAttrCase<"UMIN", 9, "umin">, I32EnumAttrCase<"XCHG", 10, "exch">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_MemSemanticAttr : I32EnumAttr<"MemSemantic", "memory ordering", [
    I32EnumAttrCase<"RELAXED", 1, "relaxed">, I32EnumAttrCase<"ACQUIRE", 2, "acquire">,
    I32EnumAttrCase<"RELEASE", 3, "release">, I32EnumAttrCase<"ACQUIRE_RELEASE", 4, "acq_rel">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_MemSyncScopeAttr : I32EnumAttr<"MemSyncScope", "memory synchronisation scope", [
    I32EnumAttrCase<"GPU", 1, "gpu">, I32EnumAttrCase<"CTA", 2, "cta">,
    I32EnumAttrCase<"SYSTEM", 3, "sys">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_RoundingModeAttr : I32EnumAttr<"RoundingMode", "float rounding mode", [
    I32EnumAttrCase<"RTZ", 0, "rtz">, I32EnumAttrCase<"RTNE", 1, "rtne">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_PropagateNanAttr : I32EnumAttr<"PropagateNan", "NaN propagation of clampf", [
    I32EnumAttrCase<"NONE", 0, "none">, I32EnumAttrCase<"ALL", 0xFFFF, "all">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_ScaleDotElemTypeAttr : I32EnumAttr<"ScaleDotElemType", "element type of a scaled dot operand", [
    I32EnumAttrCase<"E4M3", 0, "e4m3">, I32EnumAttrCase<"E5M2", 1, "e5m2">,
    I32EnumAttrCase<"E2M3", 2, "e2m3">, I32EnumAttrCase<"E3M2", 3, "e3m2">,
    I32EnumAttrCase<"E2M1", 4, "e2m1">, I32EnumAttrCase<"BF16", 5, "bf16">,
    I32EnumAttrCase<"FP16", 6, "fp16">]> {
  let cppNamespace = "::perfbound::tt";
}

def TT_DescriptorReduceKindAttr : I32EnumAttr<"DescriptorReduceKind", "descriptor reduction", [
    I32EnumAttrCase<"ADD", 1, "add">, I32EnumAttrCase<"MIN", 2, "min">,
    I32EnumAttrCase<"MAX", 3, "max">, I32EnumAttrCase<"INC", 4, "inc">,
    I32EnumAttrCase<"DEC", 5, "dec">, I32EnumAttrCase<"AND", 6, "and">,
    I32EnumAttrCase<"OR", 7, "or">, I32EnumAttrCase<"XOR", 8, "xor">]> {
  let cppNamespace = "::perfbound::tt";
}

// tt.dot's inputPrecision has two spellings for the value 3 (upstream
// `bf16x3`, triton-ascend `hf32`), so it is a plain I32 attribute parsed by
// custom<InputPrecision> (tt_dialect.cpp): tf32=0 tf32x3=1 ieee=2
// bf16x3|hf32=3 bf16x6=4.

//===----------------------------------------------------------------------===//
// Type inference helpers (defined in tt_dialect.cpp). They never return a
// null type: an unexpected input yields NoneType and the op verifier explains.
//===----------------------------------------------------------------------===//

defvar kValueOfPtr = "::perfbound::tt::valueTypeOfPointer($_self)";
defvar kMaskOfPtr = "::perfbound::tt::maskTypeOfPointer($_self)";
defvar kMaskOfValue = "::perfbound::tt::maskTypeLike($_self)";
defvar kBaseOfBlockPtr = "::perfbound::tt::baseTypeOfBlockPointer($_self)";

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

def TT_FuncOp : TT_Op<"func", [AffineScope, AutomaticAllocationScope, FunctionOpInterface,
                              IsolatedFromAbove, OpAsmOpInterface]> {
  let summary = "a Triton function (the kernel is the `public` one)";
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return isExternal() ? nullptr : &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    bool isDeclaration() { return isExternal(); }
    static ::llvm::StringRef getDefaultDialect() { return "tt"; }
  }];
}

def TT_CallOp : TT_Op<"call"> {
  let summary = "direct call (pre-inlining TTIR)";
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs, OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = "$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)";
}

def TT_ReturnOp : TT_Op<"return", [Pure, Terminator, ReturnLike]> {
  let summary = "function return";
  let arguments = (ins Variadic<AnyType>:$srcs);
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
}

//===----------------------------------------------------------------------===//
// Program ids, ranges, shapes
//===----------------------------------------------------------------------===//

def TT_GetProgramIdOp : TT_Op<"get_program_id", [Pure]> {
  let arguments = (ins TT_ProgramDimAttr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_GetNumProgramsOp : TT_Op<"get_num_programs", [Pure]> {
  let arguments = (ins TT_ProgramDimAttr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_MakeRangeOp : TT_Op<"make_range", [Pure]> {
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

class TT_UnaryShapeOp<string mnemonic, list<Trait> traits = []> : TT_Op<mnemonic, !listconcat([Pure], traits)> {
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_SplatOp : TT_UnaryShapeOp<"splat"> { let arguments = (ins AnyType:$src); }
def TT_BroadcastOp : TT_UnaryShapeOp<"broadcast"> { let arguments = (ins AnyType:$src); }
def TT_ExpandDimsOp : TT_UnaryShapeOp<"expand_dims"> { let arguments = (ins AnyType:$src, I32Attr:$axis); }
def TT_TransOp : TT_UnaryShapeOp<"trans"> { let arguments = (ins AnyType:$src, DenseI32ArrayAttr:$order); }
def TT_BitcastOp : TT_UnaryShapeOp<"bitcast"> { let arguments = (ins AnyType:$src); }
def TT_IntToPtrOp : TT_UnaryShapeOp<"int_to_ptr"> { let arguments = (ins AnyType:$src); }
def TT_PtrToIntOp : TT_UnaryShapeOp<"ptr_to_int"> { let arguments = (ins AnyType:$src); }

def TT_UnsplatOp : TT_Op<"unsplat", [Pure,
    TypesMatchWith<"result is the element type of src", "src", "result",
                   "::perfbound::tt::elementTypeOf($_self)">]> {
  let arguments = (ins AnyType:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
}

// 3.2+: `allow_reorder` / `efficient_layout` keywords; 3.0/3.1: BoolAttr
// `{allow_reorder = true}` in attr-dict. custom<ReshapeFlags> reads both.
def TT_ReshapeOp : TT_Op<"reshape", [Pure]> {
  let arguments = (ins AnyType:$src, OptionalAttr<AnyAttr>:$allow_reorder,
                       OptionalAttr<AnyAttr>:$efficient_layout);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $src custom<ReshapeFlags>($allow_reorder, $efficient_layout) attr-dict `:` type($src) `->` type($result)
  }];
}

def TT_CatOp : TT_Op<"cat", [Pure, TypesMatchWith<"rhs matches lhs", "lhs", "rhs", "$_self">]> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
}

def TT_JoinOp : TT_Op<"join", [Pure, TypesMatchWith<"rhs matches lhs", "lhs", "rhs", "$_self">]> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
}

def TT_SplitOp : TT_Op<"split", [Pure, TypesMatchWith<"outRHS matches outLHS", "outLHS", "outRHS", "$_self">]> {
  let arguments = (ins AnyType:$src);
  let results = (outs AnyType:$outLHS, AnyType:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($outLHS)";
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def TT_AddPtrOp : TT_Op<"addptr", [Pure, TypesMatchWith<"ptr matches result", "result", "ptr", "$_self">]> {
  let arguments = (ins AnyType:$ptr, AnyType:$offset);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
}

def TT_LoadOp : TT_Op<"load", [AttrSizedOperandSegments,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result", kValueOfPtr>,
    TypesMatchWith<"mask is i1 shaped like ptr", "ptr", "mask", kMaskOfPtr,
                   "($_op.getOperands().size() <= 1) || std::equal_to<>()">,
    TypesMatchWith<"other is the pointee of ptr", "ptr", "other", kValueOfPtr,
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let arguments = (ins AnyType:$ptr, Optional<AnyType>:$mask, Optional<AnyType>:$other,
      DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
      OptionalAttr<TT_PaddingOptionAttr>:$padding,
      DefaultValuedAttr<TT_CacheModifierAttr, "::perfbound::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::perfbound::tt::EvictionPolicy::NORMAL">:$evict,
      DefaultValuedAttr<BoolAttr, "false">:$isVolatile);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def TT_StoreOp : TT_Op<"store", [
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value", kValueOfPtr>,
    TypesMatchWith<"mask is i1 shaped like ptr", "ptr", "mask", kMaskOfPtr,
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let arguments = (ins AnyType:$ptr, AnyType:$value, Optional<AnyType>:$mask,
      DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
      DefaultValuedAttr<TT_CacheModifierAttr, "::perfbound::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::perfbound::tt::EvictionPolicy::NORMAL">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def TT_MakeTensorPtrOp : TT_Op<"make_tensor_ptr", [Pure, AttrSizedOperandSegments,
    TypesMatchWith<"base points to the block element type", "result", "base", kBaseOfBlockPtr>]> {
  let arguments = (ins TT_PointerType:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                       Variadic<I32>:$offsets, DenseI32ArrayAttr:$order);
  let results = (outs TT_PointerType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` type($result)
  }];
}

def TT_AdvanceOp : TT_Op<"advance", [Pure, TypesMatchWith<"ptr matches result", "result", "ptr", "$_self">]> {
  let arguments = (ins TT_PointerType:$ptr, Variadic<I32>:$offsets);
  let results = (outs TT_PointerType:$result);
  let assemblyFormat = "$ptr `,` `[` $offsets `]` attr-dict `:` type($result)";
}

def TT_AtomicRMWOp : TT_Op<"atomic_rmw"> {
  let arguments = (ins TT_AtomicRMWKindAttr:$atomic_rmw_op, AnyType:$ptr, AnyType:$val,
                       Optional<AnyType>:$mask, TT_MemSemanticAttr:$sem, TT_MemSyncScopeAttr:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:`
    functional-type(operands, $result)
  }];
}

def TT_AtomicCASOp : TT_Op<"atomic_cas"> {
  let arguments = (ins AnyType:$ptr, AnyType:$cmp, AnyType:$val,
                       TT_MemSemanticAttr:$sem, TT_MemSyncScopeAttr:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` functional-type(operands, $result)
  }];
}

//===----------------------------------------------------------------------===//
// Tensor descriptors (3.2+; `experimental_` names in 3.0 to 3.3)
//===----------------------------------------------------------------------===//

def TT_MakeTensorDescOp : TT_Op<"make_tensor_descriptor", [Pure, AttrSizedOperandSegments]> {
  let arguments = (ins TT_PointerType:$base, Variadic<I32>:$shape, Variadic<I64>:$strides,
                       OptionalAttr<TT_PaddingOptionAttr>:$padding);
  let results = (outs TT_TensorDescType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `,` type($result)
  }];
}

class TT_DescLoadBase<string mnemonic> : TT_Op<mnemonic> {
  let arguments = (ins AnyType:$desc, Variadic<I32>:$indices,
      DefaultValuedAttr<TT_CacheModifierAttr, "::perfbound::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::perfbound::tt::EvictionPolicy::NORMAL">:$evict);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]`
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` qualified(type($desc)) `->` type($result)
  }];
}
def TT_DescriptorLoadOp : TT_DescLoadBase<"descriptor_load">;
def TT_ExperimentalDescriptorLoadOp : TT_DescLoadBase<"experimental_descriptor_load">;

class TT_DescStoreBase<string mnemonic> : TT_Op<mnemonic> {
  let arguments = (ins AnyType:$desc, Variadic<I32>:$indices, AnyType:$src);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
}
def TT_DescriptorStoreOp : TT_DescStoreBase<"descriptor_store">;
def TT_ExperimentalDescriptorStoreOp : TT_DescStoreBase<"experimental_descriptor_store">;

class TT_DescGatherBase<string mnemonic> : TT_Op<mnemonic> {
  let arguments = (ins AnyType:$desc, AnyType:$x_offsets, AnyType:$y_offset);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $desc `[` $x_offsets `,` $y_offset `]` attr-dict `:` functional-type(operands, results)
  }];
}
def TT_DescriptorGatherOp : TT_DescGatherBase<"descriptor_gather">;
def TT_ExperimentalDescriptorGatherOp : TT_DescGatherBase<"experimental_descriptor_gather">;

class TT_DescScatterBase<string mnemonic> : TT_Op<mnemonic> {
  let arguments = (ins AnyType:$desc, AnyType:$x_offsets, AnyType:$y_offset, AnyType:$src);
  let assemblyFormat = [{
    $desc `[` $x_offsets `,` $y_offset `]` `,` $src attr-dict `:` type(operands)
  }];
}
def TT_DescriptorScatterOp : TT_DescScatterBase<"descriptor_scatter">;
def TT_ExperimentalDescriptorScatterOp : TT_DescScatterBase<"experimental_descriptor_scatter">;

def TT_DescriptorReduceOp : TT_Op<"descriptor_reduce"> {
  let arguments = (ins TT_DescriptorReduceKindAttr:$kind, AnyType:$desc, Variadic<I32>:$indices,
                       AnyType:$src);
  let assemblyFormat = [{
    $kind `,` $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
}

def TT_ReinterpretTensorDescOp : TT_Op<"reinterpret_tensor_descriptor", [Pure]> {
  let arguments = (ins AnyType:$rawDesc);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$rawDesc attr-dict `:` qualified(type($rawDesc)) `to` qualified(type($result))";
}

//===----------------------------------------------------------------------===//
// Dot products
//===----------------------------------------------------------------------===//

def TT_DotOp : TT_Op<"dot", [Pure, TypesMatchWith<"accumulator matches result", "d", "c", "$_self">]> {
  let arguments = (ins AnyType:$a, AnyType:$b, AnyType:$c,
                       DefaultValuedAttr<I32Attr, "2">:$inputPrecision,
                       DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs AnyType:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c custom<InputPrecision>($inputPrecision) attr-dict `:`
    type($a) `*` type($b) `->` type($d)
  }];
}

// Two printed forms (ttir.md): upstream 3.2-3.6
//   tt.dot_scaled %a scale %as, %b scale %bs, %c lhs = e5m2 rhs = e2m1 {...} : Ta, Tas * Tb, Tbs -> Td
// and triton-ascend 3.2
//   tt.dot_scaled %a, %b, %c, %as(, %bs)? lhs = .. rhs = .. {...} : Ta, Tb, Tc, Tas(, Tbs)? -> Td
// Both are read by a hand-written parser (tt_dialect.cpp).
def TT_DotScaledOp : TT_Op<"dot_scaled", [Pure, AttrSizedOperandSegments]> {
  let arguments = (ins AnyType:$a, AnyType:$b, AnyType:$c,
                       Optional<AnyType>:$a_scale, Optional<AnyType>:$b_scale,
                       TT_ScaleDotElemTypeAttr:$a_elem_type, TT_ScaleDotElemTypeAttr:$b_elem_type,
                       OptionalAttr<BoolAttr>:$fastMath, OptionalAttr<BoolAttr>:$lhs_k_pack,
                       OptionalAttr<BoolAttr>:$rhs_k_pack);
  let results = (outs AnyType:$d);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, scans, map (generic form only)
//===----------------------------------------------------------------------===//

def TT_ReduceOp : TT_Op<"reduce", [Pure]> {
  let arguments = (ins Variadic<AnyType>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<AnyType>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
}
def TT_ReduceReturnOp : TT_Op<"reduce.return", [Pure, Terminator, ReturnLike]> {
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_ScanOp : TT_Op<"scan", [Pure]> {
  let arguments = (ins Variadic<AnyType>:$srcs, I32Attr:$axis, DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Variadic<AnyType>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
}
def TT_ScanReturnOp : TT_Op<"scan.return", [Pure, Terminator, ReturnLike]> {
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_MapElementwiseOp : TT_Op<"map_elementwise", [Pure]> {
  let arguments = (ins Variadic<AnyType>:$srcs, DefaultValuedAttr<I32Attr, "1">:$pack);
  let results = (outs Variadic<AnyType>:$result);
  let regions = (region SizedRegion<1>:$scalarOp);
}
def TT_MapElementwiseReturnOp : TT_Op<"map_elementwise.return", [Pure, Terminator, ReturnLike]> {
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

//===----------------------------------------------------------------------===//
// Casts and elementwise math
//===----------------------------------------------------------------------===//

def TT_FpToFpOp : TT_Op<"fp_to_fp", [Pure]> {
  let arguments = (ins AnyType:$src, OptionalAttr<TT_RoundingModeAttr>:$rounding);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)";
}

def TT_PreciseSqrtOp : TT_Op<"precise_sqrt", [Pure, AllTypesMatch<["x", "result"]>]> {
  let arguments = (ins AnyType:$x);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TT_PreciseDivFOp : TT_Op<"precise_divf", [Pure, AllTypesMatch<["x", "y", "result"]>]> {
  let arguments = (ins AnyType:$x, AnyType:$y);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_MulhiUIOp : TT_Op<"mulhiui", [Pure, AllTypesMatch<["x", "y", "result"]>]> {
  let arguments = (ins AnyType:$x, AnyType:$y);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_ClampFOp : TT_Op<"clampf", [Pure, AllTypesMatch<["x", "min", "max", "result"]>]> {
  let arguments = (ins AnyType:$x, AnyType:$min, AnyType:$max, TT_PropagateNanAttr:$propagateNan);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)";
}

def TT_ExternElementwiseOp : TT_Op<"extern_elementwise"> {
  let arguments = (ins Variadic<AnyType>:$srcs, StrAttr:$libname, StrAttr:$libpath, StrAttr:$symbol,
                       BoolAttr:$pure);
  let results = (outs AnyType:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, $result)";
}

def TT_ElementwiseInlineAsmOp : TT_Op<"elementwise_inline_asm"> {
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure, I32Attr:$packed_element,
                       Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$result);
  let assemblyFormat = "$asm_string attr-dict ($args^ `:` type($args))? `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Gather, histogram, debug
//===----------------------------------------------------------------------===//

def TT_GatherOp : TT_Op<"gather", [Pure]> {
  let arguments = (ins AnyType:$src, AnyType:$indices, I32Attr:$axis, OptionalAttr<UnitAttr>:$efficient_layout);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src `[` $indices `]` attr-dict `:` functional-type(operands, results)";
}

def TT_HistogramOp : TT_Op<"histogram", [Pure,
    TypesMatchWith<"mask is i1 shaped like src", "src", "mask", kMaskOfValue,
                   "($_op.getOperands().size() <= 1) || std::equal_to<>()">]> {
  let arguments = (ins AnyType:$src, Optional<AnyType>:$mask);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)";
}

def TT_PrintOp : TT_Op<"print"> {
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex, Variadic<AnyType>:$args,
                       OptionalAttr<DenseI32ArrayAttr>:$isSigned);
  let assemblyFormat = "$prefix attr-dict (`:` $args^ `:` type($args))?";
}

// 3.2+: `$cond, "msg" : T`; 3.0/3.1: `$cond, "msg", "file", "func", line : T`.
def TT_AssertOp : TT_Op<"assert"> {
  let arguments = (ins AnyType:$condition, StrAttr:$message, OptionalAttr<StrAttr>:$file,
                       OptionalAttr<StrAttr>:$func, OptionalAttr<I32Attr>:$line);
  let assemblyFormat = [{
    $condition `,` $message custom<LegacyAssertInfo>($file, $func, $line) attr-dict `:` type($condition)
  }];
}

//===----------------------------------------------------------------------===//
// triton-ascend (3.2-based lineage) additions
//===----------------------------------------------------------------------===//

def TT_AnnotationOp : TT_Op<"annotation"> {
  let summary = "compile hint on a tensor (tl.compile_hint)";
  let arguments = (ins AnyType:$src);
  let assemblyFormat = "$src attr-dict `:` type($src)";
}

def TT_CustomOp : TT_Op<"custom"> {
  let summary = "triton-ascend custom op";
  let arguments = (ins StrAttr:$op_name, OptionalAttr<ArrayAttr>:$str_args, Variadic<AnyType>:$args);
  let assemblyFormat = "$op_name attr-dict ($args^ `:` type($args))?";
}

// tt.mod (triton-ascend 3.2, `triton_patch` TritonOps.td): the elementwise
// remainder of two tensors or scalars, printed with both operand types:
//   %r = tt.mod %a, %b : tensor<1xf32> tensor<1xf32> -> tensor<1xf32>
def TT_ModOp : TT_Op<"mod", [Pure]> {
  let summary = "elementwise remainder (triton-ascend)";
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) type($rhs) `->` type($result)";
}

// tt.gather_load (triton-ascend lit tests, TritonToLinalg): rows of the
// tensor at `src` picked by the loaded indices `index` along dimension
// `dim`; `src_shape` / `src_offsets` are the source tensor's extents and
// offsets (index values), `read_shape` the extent read per index (-1 on the
// gathered dimension). The result holds the gathered elements:
//   %r = tt.gather_load %src, %idx, 0, [%c375144, %c240], [%c-1, %c0], [-1, 240]
//        : !tt.ptr<bf16>, tensor<133xi32> -> tensor<133x240xbf16>
def TT_GatherLoadOp : TT_Op<"gather_load", [AttrSizedOperandSegments]> {
  let summary = "gather of rows at loaded indices (triton-ascend)";
  let arguments = (ins AnyType:$src, AnyType:$index, I32Attr:$dim, Variadic<Index>:$src_shape,
                       Variadic<Index>:$src_offsets, DenseI64ArrayAttr:$read_shape);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $src `,` $index `,` $dim `,` `[` $src_shape `]` `,` `[` $src_offsets `]` `,` $read_shape attr-dict `:`
    type($src) `,` type($index) `->` type($result)
  }];
}

// tt.call_scalar (AscendNPU-IR, bishengir's Triton extension ops): a call of
// a scalar helper function whose result is staged through a shared-memory
// descriptor (`!ttg.memdesc`, a type of a dialect we do not register):
//   %r = tt.call_scalar %shm, @helper(%x) : !ttg.memdesc<1xi32, ...>, (i32) -> i32
def TT_CallScalarOp : TT_Op<"call_scalar"> {
  let summary = "scalar helper call backed by shared memory (AscendNPU-IR)";
  let arguments = (ins AnyType:$shm_desc, FlatSymbolRefAttr:$callee, Variadic<AnyType>:$call_args,
                       OptionalAttr<DictArrayAttr>:$arg_attrs, OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $shm_desc `,` $callee `(` $call_args `)` attr-dict `:` qualified(type($shm_desc)) `,`
    functional-type($call_args, results)
  }];
}

def TT_SortOp : TT_Op<"sort", [Pure]> {
  let arguments = (ins AnyType:$src, I64Attr:$dim, BoolAttr:$descending);
  let results = (outs AnyType:$sorted);
  let assemblyFormat = "$src `,` $dim `,` $descending attr-dict `:` type($src) `->` type($sorted)";
}
