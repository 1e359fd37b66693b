//===- tt_dialect.cpp - our `tt` dialect: types, custom syntax, registry --===//
//
// The one translation unit that instantiates the ODS-generated code of
// tt_ops.td (it is slow to compile; keep everything else out of it).
//
//===----------------------------------------------------------------------===//
#include "tt_dialect.hpp"

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/ControlFlow/IR/ControlFlow.h>
#include <mlir/Dialect/GPU/IR/GPUDialect.h>
#include <mlir/Dialect/LLVMIR/LLVMDialect.h>
#include <mlir/Dialect/Math/IR/Math.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/UB/IR/UBOps.h>
#include <mlir/IR/DialectImplementation.h>
#include <mlir/Interfaces/FunctionImplementation.h>

#include <llvm/ADT/TypeSwitch.h>

using namespace mlir;

namespace perfbound::tt {

//===----------------------------------------------------------------------===//
// Type helpers used by the ODS constraints
//===----------------------------------------------------------------------===//

Type elementTypeOf(Type type) {
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(type)) return tensor.getElementType();
  return type;
}

Type valueTypeOfPointer(Type ptr) {
  if (auto pointer = llvm::dyn_cast<PointerType>(ptr)) return pointer.getPointeeType();
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(ptr)) {
    if (auto element = llvm::dyn_cast<PointerType>(tensor.getElementType()))
      return RankedTensorType::get(tensor.getShape(), element.getPointeeType(), tensor.getEncoding());
  }
  return NoneType::get(ptr.getContext());
}

Type maskTypeLike(Type value) {
  auto i1 = IntegerType::get(value.getContext(), 1);
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(value))
    return RankedTensorType::get(tensor.getShape(), i1, tensor.getEncoding());
  return i1;
}

Type maskTypeOfPointer(Type ptr) { return maskTypeLike(valueTypeOfPointer(ptr)); }

Type baseTypeOfBlockPointer(Type block_ptr) {
  if (auto pointer = llvm::dyn_cast<PointerType>(block_ptr)) {
    if (auto tensor = llvm::dyn_cast<RankedTensorType>(pointer.getPointeeType()))
      return PointerType::get(block_ptr.getContext(), tensor.getElementType(), pointer.getAddressSpace());
  }
  return NoneType::get(block_ptr.getContext());
}

}  // namespace perfbound::tt

//===----------------------------------------------------------------------===//
// Custom directives (declared before the generated op definitions use them)
//===----------------------------------------------------------------------===//

namespace {

using perfbound::tt::DotOp;

// `, inputPrecision = KEYWORD` after tt.dot's accumulator. Both spellings of
// the value 3 are accepted (upstream bf16x3, triton-ascend hf32).
ParseResult parseInputPrecision(OpAsmParser &parser, IntegerAttr &attr) {
  if (failed(parser.parseOptionalComma())) return success();
  StringRef keyword;
  if (parser.parseKeyword("inputPrecision") || parser.parseEqual()) return failure();
  SMLoc at = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword)) return failure();
  int value = llvm::StringSwitch<int>(keyword)
                  .Case("tf32", 0)
                  .Case("tf32x3", 1)
                  .Case("ieee", 2)
                  .Case("bf16x3", 3)
                  .Case("hf32", 3)
                  .Case("bf16x6", 4)
                  .Default(-1);
  if (value < 0)
    return parser.emitError(at) << "unknown inputPrecision '" << keyword
                                << "' (expected tf32, tf32x3, ieee, bf16x3, hf32 or bf16x6)";
  attr = parser.getBuilder().getI32IntegerAttr(value);
  return success();
}

void printInputPrecision(OpAsmPrinter &printer, Operation *, IntegerAttr attr) {
  static const char *const kNames[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"};
  if (!attr || attr.getInt() == 2) return;
  int64_t value = attr.getInt();
  if (value >= 0 && value <= 4) printer << ", inputPrecision = " << kNames[value];
}

// `allow_reorder` / `efficient_layout` unit keywords of tt.reshape (3.2+);
// the 3.0/3.1 BoolAttr form arrives through attr-dict instead.
ParseResult parseReshapeFlags(OpAsmParser &parser, Attribute &allow_reorder, Attribute &efficient_layout) {
  if (succeeded(parser.parseOptionalKeyword("allow_reorder"))) allow_reorder = parser.getBuilder().getUnitAttr();
  if (succeeded(parser.parseOptionalKeyword("efficient_layout")))
    efficient_layout = parser.getBuilder().getUnitAttr();
  return success();
}

void printReshapeFlags(OpAsmPrinter &printer, Operation *, Attribute allow_reorder, Attribute efficient_layout) {
  if (allow_reorder && llvm::isa<UnitAttr>(allow_reorder)) printer << " allow_reorder";
  if (efficient_layout && llvm::isa<UnitAttr>(efficient_layout)) printer << " efficient_layout";
}

// 3.0/3.1 tt.assert: `, "file", "func", line` after the message.
ParseResult parseLegacyAssertInfo(OpAsmParser &parser, StringAttr &file, StringAttr &func, IntegerAttr &line) {
  if (failed(parser.parseOptionalComma())) return success();
  std::string file_name;
  std::string func_name;
  int32_t line_number = 0;
  if (parser.parseString(&file_name) || parser.parseComma() || parser.parseString(&func_name) ||
      parser.parseComma() || parser.parseInteger(line_number))
    return failure();
  Builder &builder = parser.getBuilder();
  file = builder.getStringAttr(file_name);
  func = builder.getStringAttr(func_name);
  line = builder.getI32IntegerAttr(line_number);
  return success();
}

void printLegacyAssertInfo(OpAsmPrinter &printer, Operation *, StringAttr file, StringAttr func, IntegerAttr line) {
  if (!file || !func || !line) return;
  printer << ", ";
  printer.printAttributeWithoutType(file);
  printer << ", ";
  printer.printAttributeWithoutType(func);
  printer << ", " << line.getInt();
}

}  // namespace

#include "tt_ops_dialect.cpp.inc"
#include "tt_ops_enums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tt_ops_types.cpp.inc"
#define GET_OP_CLASSES
#include "tt_ops.cpp.inc"

namespace perfbound::tt {

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

void TTDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tt_ops_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tt_ops.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// !tt.ptr<T[, addrspace]>
//===----------------------------------------------------------------------===//

Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  int address_space = 1;
  if (parser.parseLess() || parser.parseType(pointee)) return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseInteger(address_space)) return {};
  if (parser.parseGreater()) return {};
  return PointerType::get(parser.getContext(), pointee, address_space);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != 1) printer << ", " << getAddressSpace();
  printer << ">";
}

//===----------------------------------------------------------------------===//
// !tt.tensordesc<tensor<BLOCK>> and !tt.tensordesc<BLOCK[, #layout]>
//===----------------------------------------------------------------------===//

Type TensorDescType::parse(AsmParser &parser) {
  if (parser.parseLess()) return {};
  SMLoc at = parser.getCurrentLocation();
  RankedTensorType block;
  Type type;
  OptionalParseResult full = parser.parseOptionalType(type);
  if (full.has_value()) {
    // Triton 3.2 to 3.7: the block is a ranked tensor type.
    if (failed(*full)) return {};
    block = llvm::dyn_cast<RankedTensorType>(type);
    if (!block) {
      parser.emitError(at) << "expected the block type of a tensor descriptor (tensor<...> or 64x64xf16), got "
                           << type;
      return {};
    }
  } else {
    // Triton main from 2026-04-09: the block's shape and element type, and
    // optionally its layout, without `tensor<...>`.
    SmallVector<int64_t> shape;
    Type element;
    Attribute encoding;
    if (parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
        parser.parseType(element))
      return {};
    if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(encoding)) return {};
    block = RankedTensorType::get(shape, element, encoding);
  }
  if (parser.parseGreater()) return {};
  return TensorDescType::get(parser.getContext(), block);
}

void TensorDescType::print(AsmPrinter &printer) const { printer << "<" << getBlockType() << ">"; }

//===----------------------------------------------------------------------===//
// tt.func (the upstream function syntax)
//===----------------------------------------------------------------------===//

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto build_type = [](Builder &builder, ArrayRef<Type> inputs, ArrayRef<Type> results,
                       function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(inputs, results);
  };
  return function_interface_impl::parseFunctionOp(parser, result, /*allowVariadic=*/false,
                                                  getFunctionTypeAttrName(result.name), build_type,
                                                  getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
                                           getArgAttrsAttrName(), getResAttrsAttrName());
}

//===----------------------------------------------------------------------===//
// tt.dot_scaled (upstream and triton-ascend spellings)
//===----------------------------------------------------------------------===//

namespace {

ParseResult parse_scale_elem_type(OpAsmParser &parser, StringRef side, ScaleDotElemTypeAttr &attr) {
  StringRef keyword;
  SMLoc at = parser.getCurrentLocation();
  if (parser.parseKeyword(side) || parser.parseEqual() || parser.parseKeyword(&keyword)) return failure();
  std::optional<ScaleDotElemType> value = symbolizeScaleDotElemType(keyword);
  if (!value)
    return parser.emitError(at) << "unknown scaled-dot element type '" << keyword
                                << "' (expected e4m3, e5m2, e2m3, e3m2, e2m1, bf16 or fp16)";
  attr = ScaleDotElemTypeAttr::get(parser.getContext(), *value);
  return success();
}

}  // namespace

ParseResult DotScaledOp::parse(OpAsmParser &parser, OperationState &result) {
  using Operand = OpAsmParser::UnresolvedOperand;
  Operand a, b, c, a_scale, b_scale;
  bool has_a_scale = false;
  bool has_b_scale = false;
  bool ascend_form = false;
  SMLoc operands_at = parser.getCurrentLocation();
  if (parser.parseOperand(a)) return failure();
  if (succeeded(parser.parseOptionalKeyword("scale"))) {
    has_a_scale = true;
    if (parser.parseOperand(a_scale)) return failure();
  }
  if (parser.parseComma() || parser.parseOperand(b)) return failure();
  if (succeeded(parser.parseOptionalKeyword("scale"))) {
    has_b_scale = true;
    if (parser.parseOperand(b_scale)) return failure();
  }
  if (parser.parseComma() || parser.parseOperand(c)) return failure();
  if (!has_a_scale && !has_b_scale && succeeded(parser.parseOptionalComma())) {
    // triton-ascend: `%a, %b, %c, %a_scale (, %b_scale)?`
    ascend_form = true;
    has_a_scale = true;
    if (parser.parseOperand(a_scale)) return failure();
    if (succeeded(parser.parseOptionalComma())) {
      has_b_scale = true;
      if (parser.parseOperand(b_scale)) return failure();
    }
  }
  auto &props = result.getOrAddProperties<Properties>();
  if (parse_scale_elem_type(parser, "lhs", props.a_elem_type) ||
      parse_scale_elem_type(parser, "rhs", props.b_elem_type))
    return failure();
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon()) return failure();

  Type a_type, b_type, c_type, a_scale_type, b_scale_type, d_type;
  if (ascend_form) {
    if (parser.parseType(a_type) || parser.parseComma() || parser.parseType(b_type) || parser.parseComma() ||
        parser.parseType(c_type) || parser.parseComma() || parser.parseType(a_scale_type))
      return failure();
    if (has_b_scale && (parser.parseComma() || parser.parseType(b_scale_type))) return failure();
    if (parser.parseArrow() || parser.parseType(d_type)) return failure();
  } else {
    if (parser.parseType(a_type)) return failure();
    if (has_a_scale && (parser.parseComma() || parser.parseType(a_scale_type))) return failure();
    if (parser.parseStar() || parser.parseType(b_type)) return failure();
    if (has_b_scale && (parser.parseComma() || parser.parseType(b_scale_type))) return failure();
    if (parser.parseArrow() || parser.parseType(d_type)) return failure();
    c_type = d_type;
  }
  props.operandSegmentSizes = {1, 1, 1, has_a_scale ? 1 : 0, has_b_scale ? 1 : 0};
  if (parser.resolveOperand(a, a_type, result.operands) || parser.resolveOperand(b, b_type, result.operands) ||
      parser.resolveOperand(c, c_type, result.operands))
    return failure();
  if (has_a_scale && parser.resolveOperand(a_scale, a_scale_type, result.operands)) return failure();
  if (has_b_scale && parser.resolveOperand(b_scale, b_scale_type, result.operands)) return failure();
  (void)operands_at;
  result.addTypes(d_type);
  return success();
}

void DotScaledOp::print(OpAsmPrinter &printer) {
  printer << " " << getA();
  if (getAScale()) printer << " scale " << getAScale();
  printer << ", " << getB();
  if (getBScale()) printer << " scale " << getBScale();
  printer << ", " << getC() << " lhs = " << stringifyScaleDotElemType(getAElemType())
          << " rhs = " << stringifyScaleDotElemType(getBElemType());
  printer.printOptionalAttrDict((*this)->getAttrs(), {"a_elem_type", "b_elem_type", "operandSegmentSizes"});
  printer << " : " << getA().getType();
  if (getAScale()) printer << ", " << getAScale().getType();
  printer << " * " << getB().getType();
  if (getBScale()) printer << ", " << getBScale().getType();
  printer << " -> " << getD().getType();
}

//===----------------------------------------------------------------------===//
// Verifiers: explain pointer-type mismatches (pre-3.0 printed value types)
//===----------------------------------------------------------------------===//

namespace {

LogicalResult verify_pointer_operand(Operation *op, Type ptr) {
  if (!llvm::isa<NoneType>(valueTypeOfPointer(ptr))) return success();
  return op->emitOpError() << "expects a pointer type after ':' (!tt.ptr<T>, a tensor of !tt.ptr<T> or "
                              "!tt.ptr<tensor<...>>), got "
                           << ptr << "; Triton before 3.0 printed the loaded value type here";
}

}  // namespace

LogicalResult LoadOp::verify() { return verify_pointer_operand(getOperation(), getPtr().getType()); }
LogicalResult StoreOp::verify() { return verify_pointer_operand(getOperation(), getPtr().getType()); }

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

void register_ttir_dialects(DialectRegistry &registry) {
  registry.insert<TTDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  ub::UBDialect, LLVM::LLVMDialect, gpu::GPUDialect>();
}

}  // namespace perfbound::tt
