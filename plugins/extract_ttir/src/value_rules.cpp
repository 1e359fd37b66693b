//===- value_rules.cpp - SSA values as symbolic expressions ---------------===//
#include "value_rules.hpp"

#include <algorithm>
#include <tuple>

#include <llvm/ADT/StringSwitch.h>

namespace perfbound::ttir {

void ValueRules::visit_arith(Operation *op, llvm::StringRef name) {
  llvm::StringRef fn = name.drop_front(6);
  if (auto cst = llvm::dyn_cast<mlir::arith::ConstantOp>(op)) {
    mlir::Attribute value = cst.getValue();
    auto int_of = [](const llvm::APInt &v) {
      return v.getBitWidth() == 1 ? static_cast<std::int64_t>(v.getZExtValue()) : v.getSExtValue();
    };
    if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(value)) {
      if (is_integer_like(integer.getType())) return set_int(cst.getResult(), pool_.constant(int_of(integer.getValue())));
    }
    if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(value)) {
      if (dense.isSplat() && is_integer_like(dense.getElementType()))
        return set_int(cst.getResult(), pool_.constant(int_of(dense.getSplatValue<llvm::APInt>())));
    }
    return set_unknown(cst.getResult(), "a non-splat or float constant", op);
  }
  Type result_type = op->getNumResults() > 0 ? op->getResult(0).getType() : Type();
  auto binary = llvm::StringSwitch<std::optional<ExprOp>>(fn)
                    .Case("addi", ExprOp::Add)
                    .Case("subi", ExprOp::Sub)
                    .Case("muli", ExprOp::Mul)
                    .Case("divsi", ExprOp::DivS)
                    .Case("divui", ExprOp::DivU)
                    .Case("floordivsi", ExprOp::FloorDivS)
                    .Case("ceildivsi", ExprOp::CeilDivS)
                    .Case("ceildivui", ExprOp::CeilDivU)
                    .Case("remsi", ExprOp::RemS)
                    .Case("remui", ExprOp::RemU)
                    .Case("minsi", ExprOp::MinS)
                    .Case("maxsi", ExprOp::MaxS)
                    .Case("minui", ExprOp::MinU)
                    .Case("maxui", ExprOp::MaxU)
                    .Case("andi", ExprOp::And)
                    .Case("ori", ExprOp::Or)
                    .Case("xori", ExprOp::Xor)
                    .Case("shli", ExprOp::Shl)
                    .Case("shrsi", ExprOp::ShrS)
                    .Case("shrui", ExprOp::ShrU)
                    .Default(std::nullopt);
  // Work counting: tensors are vector work (or address arithmetic the
  // compiler folds into DMA addressing), scalars are scalar-unit work.
  classify_elementwise(op, false);
  if (binary) {
    return set_int(op->getResult(0), pool_.binary(*binary, int_expr(op->getOperand(0)), int_expr(op->getOperand(1))));
  }
  if (auto cmpi = llvm::dyn_cast<mlir::arith::CmpIOp>(op)) {
    using P = mlir::arith::CmpIPredicate;
    CmpPred pred = CmpPred::Eq;
    switch (cmpi.getPredicate()) {
      case P::eq: pred = CmpPred::Eq; break;
      case P::ne: pred = CmpPred::Ne; break;
      case P::slt: pred = CmpPred::Slt; break;
      case P::sle: pred = CmpPred::Sle; break;
      case P::sgt: pred = CmpPred::Sgt; break;
      case P::sge: pred = CmpPred::Sge; break;
      case P::ult: pred = CmpPred::Ult; break;
      case P::ule: pred = CmpPred::Ule; break;
      case P::ugt: pred = CmpPred::Ugt; break;
      case P::uge: pred = CmpPred::Uge; break;
    }
    return set_int(cmpi.getResult(), pool_.cmp(pred, int_expr(cmpi.getLhs()), int_expr(cmpi.getRhs())));
  }
  if (auto sel = llvm::dyn_cast<mlir::arith::SelectOp>(op)) {
    VInfo t = info(sel.getTrueValue());
    VInfo f = info(sel.getFalseValue());
    ExprId c = int_expr(sel.getCondition());
    if (t.kind == VKind::Int && f.kind == VKind::Int)
      return set_int(sel.getResult(), pool_.select(c, t.expr, f.expr));
    if (t.kind == VKind::Ptr && f.kind == VKind::Ptr && t.base == f.base) {
      VInfo p = t;
      p.expr = canonical_dims(pool_.select(c, t.expr, f.expr), sel.getType());
      return set(sel.getResult(), p);
    }
    return set_unknown(sel.getResult(), "a select between data values", op);
  }
  if (fn == "extsi" || fn == "extui" || fn == "trunci" || fn == "index_cast" || fn == "index_castui" ||
      (fn == "bitcast" && is_integer_like(result_type) && is_integer_like(op->getOperand(0).getType()))) {
    return set_int(op->getResult(0), int_expr(op->getOperand(0)));
  }
  for (Value r : op->getResults()) set_unknown(r, "a value computed by " + name.str(), op);
}

void ValueRules::visit_shape(Operation *op, llvm::StringRef name) {
  Value result = op->getResult(0);
  Type type = result.getType();
  if (auto range_op = llvm::dyn_cast<tt::MakeTensorPtrOp>(op)) {
    BlockPtrInfo b;
    std::tie(b.base, b.base_offset) = base_of(range_op.getBase(), op);
    for (Value v : range_op.getShape()) b.shape.push_back(int_expr(v));
    for (Value v : range_op.getStrides()) b.strides.push_back(int_expr(v));
    for (Value v : range_op.getOffsets()) b.offsets.push_back(int_expr(v));
    auto block_type = llvm::dyn_cast<tt::PointerType>(type);
    auto pointee = block_type ? llvm::dyn_cast<mlir::RankedTensorType>(block_type.getPointeeType()) : nullptr;
    if (!pointee) return set_unknown(result, "a block pointer without a tensor block type", op);
    b.block = shape_of(pointee);
    b.element = pointee.getElementType();
    return set(result, add_block_ptr(std::move(b)));
  }
  if (auto adv = llvm::dyn_cast<tt::AdvanceOp>(op)) {
    VInfo src = info(adv.getPtr());
    if (src.kind != VKind::BlockPtr) return set_unknown(result, "an unknown block pointer", op);
    BlockPtrInfo b = block_ptrs_[static_cast<size_t>(src.index)];
    auto deltas = adv.getOffsets();
    for (size_t d = 0; d < b.offsets.size() && d < deltas.size(); ++d)
      b.offsets[d] = pool_.add(b.offsets[d], int_expr(deltas[d]));
    return set(result, add_block_ptr(std::move(b)));
  }
  if (auto mk = llvm::dyn_cast<tt::MakeTensorDescOp>(op)) {
    DescInfo d;
    std::tie(d.base, d.base_offset) = base_of(mk.getBase(), op);
    for (Value v : mk.getShape()) d.shape.push_back(int_expr(v));
    for (Value v : mk.getStrides()) d.strides.push_back(int_expr(v));
    auto block = mk.getResult().getType().getBlockType();
    d.block = shape_of(block);
    d.element = block.getElementType();
    return set(result, add_desc(std::move(d)));
  }
  if (auto addptr = llvm::dyn_cast<tt::AddPtrOp>(op)) {
    VInfo p = info(addptr.getPtr());
    if (p.kind != VKind::Ptr) return set_unknown(result, "an unknown pointer", op);
    p.expr = canonical_dims(pool_.add(p.expr, int_expr(addptr.getOffset())), type);
    return set(result, p);
  }
  Value src = op->getOperand(0);
  VInfo s = info(src);
  if (llvm::isa<tt::IntToPtrOp>(op)) return set_unknown(result, "a pointer made from an integer (tt.int_to_ptr)", op);
  if (llvm::isa<tt::PtrToIntOp>(op)) return set_unknown(result, "an integer made from a pointer (tt.ptr_to_int)", op);
  if (auto bc = llvm::dyn_cast<tt::BitcastOp>(op)) {
    if (s.kind == VKind::Ptr) {
      // Pointer bitcasts rescale the element offset (i1 -> i8 keeps it).
      auto from_ptr = llvm::dyn_cast<tt::PointerType>(element_of(src.getType()));
      auto to_ptr = llvm::dyn_cast<tt::PointerType>(element_of(type));
      if (!from_ptr || !to_ptr) return set_unknown(result, "a bitcast between pointer and non-pointer types", op);
      int from = std::max(8, bits_of(from_ptr.getPointeeType()));
      int to = std::max(8, bits_of(to_ptr.getPointeeType()));
      if (from == to) return set(result, s);
      if (from % to == 0) {
        s.expr = pool_.mul(s.expr, pool_.constant(from / to));
        return set(result, s);
      }
      return set_unknown(result, "a pointer bitcast to a wider element type", op);
    }
    if (s.kind == VKind::Int && is_integer_like(type)) return set_int(result, s.expr);
    return set_unknown(bc.getResult(), "a bitcast value", op);
  }
  if (s.kind == VKind::BlockPtr || s.kind == VKind::Desc) return set(result, s);
  if (s.kind == VKind::Data) {
    if (is_tensor(type) && !llvm::isa<tt::SplatOp>(op) && !is_integer_like(type)) {
      // Data movement of a tile (trans/reshape/broadcast of values).
      if (!llvm::isa<tt::ExpandDimsOp>(op) && !llvm::isa<tt::UnsplatOp>(op))
        add_compute(op, OpClass::Layout, type_text(element_of(type)), product(shape_of(type)), 0);
    }
    return set_unknown(result, "a data value", op);
  }
  // Int or Ptr: rewrite the tensor dimensions.
  ExprId e = s.expr;
  std::vector<std::int64_t> src_shape = shape_of(src.getType());
  std::vector<std::int64_t> dst_shape = shape_of(type);
  if (auto expand = llvm::dyn_cast<tt::ExpandDimsOp>(op)) {
    auto axis = static_cast<size_t>(expand.getAxis());
    std::vector<ExprId> map(src_shape.size(), kNoExpr);
    for (size_t d = axis; d < src_shape.size(); ++d) map[d] = pool_.dim(static_cast<int>(d + 1));
    e = pool_.remap_dims(e, map);
  } else if (auto trans = llvm::dyn_cast<tt::TransOp>(op)) {
    llvm::ArrayRef<std::int32_t> order = trans.getOrder();
    std::vector<ExprId> map(src_shape.size(), kNoExpr);
    for (size_t pos = 0; pos < order.size(); ++pos)
      if (static_cast<size_t>(order[pos]) < map.size()) map[static_cast<size_t>(order[pos])] = pool_.dim(static_cast<int>(pos));
    e = pool_.remap_dims(e, map);
  } else if (llvm::isa<tt::ReshapeOp>(op)) {
    // Old index = f(new linear index): exact for any reshape of a row-major tile.
    std::vector<ExprId> map(src_shape.size(), kNoExpr);
    ExprId linear = pool_.constant(0);
    for (size_t d = 0; d < dst_shape.size(); ++d)
      linear = pool_.add(pool_.mul(linear, pool_.constant(dst_shape[d])),
                         dst_shape[d] == 1 ? pool_.constant(0) : pool_.dim(static_cast<int>(d)));
    std::int64_t stride = 1;
    for (size_t d = src_shape.size(); d-- > 0;) {
      ExprId idx = pool_.binary(ExprOp::DivS, linear, pool_.constant(stride));
      if (d > 0) idx = pool_.binary(ExprOp::RemS, idx, pool_.constant(src_shape[d]));
      map[d] = idx;
      stride *= std::max<std::int64_t>(1, src_shape[d]);
    }
    // Unit-dimension reshapes map one index to one index; keep them affine.
    std::vector<size_t> src_nonunit, dst_nonunit;
    for (size_t d = 0; d < src_shape.size(); ++d)
      if (src_shape[d] != 1) src_nonunit.push_back(d);
    for (size_t d = 0; d < dst_shape.size(); ++d)
      if (dst_shape[d] != 1) dst_nonunit.push_back(d);
    bool same = src_nonunit.size() == dst_nonunit.size();
    for (size_t k = 0; same && k < src_nonunit.size(); ++k) same = src_shape[src_nonunit[k]] == dst_shape[dst_nonunit[k]];
    if (same) {
      std::fill(map.begin(), map.end(), kNoExpr);
      for (size_t k = 0; k < src_nonunit.size(); ++k) map[src_nonunit[k]] = pool_.dim(static_cast<int>(dst_nonunit[k]));
    }
    e = pool_.remap_dims(e, map);
  }
  // splat, broadcast, unsplat: the expression is unchanged.
  (void)name;
  if (s.kind == VKind::Ptr) {
    s.expr = canonical_dims(e, type);
    return set(result, s);
  }
  return set_int(result, e);
}

}  // namespace perfbound::ttir
