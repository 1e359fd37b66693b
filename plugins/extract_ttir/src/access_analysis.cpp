//===- access_analysis.cpp - memory accesses and their shapes -------------===//
#include "access_analysis.hpp"

#include <algorithm>

namespace perfbound::ttir {

Access AccessAnalysis::record(Operation *op, AccessKind kind) {
  Access a;
  a.id = static_cast<int>(model_.accesses.size());
  a.kind = kind;
  a.op = op->getName().getStringRef().str();
  a.loop = cur_loop_;
  a.cond = cur_cond_;
  a.loc = loc_of(op);
  return a;
}

Access &AccessAnalysis::add_access(Operation *op, AccessKind kind, const VInfo &ptr, Type ptr_type) {
  Access a = record(op, kind);
  Type value_type = tt::valueTypeOfPointer(ptr_type);
  a.shape = shape_of(value_type);
  a.dtype = type_text(element_of(value_type));
  a.element_bits = bits_of(element_of(value_type));
  if (ptr.kind == VKind::Ptr) {
    a.arg = ptr.base;
    a.offset = ptr.expr;
    if (ptr.base < 0) a.base_unknown = "the pointer is not derived from a kernel argument";
  } else if (ptr.kind != VKind::BlockPtr) {
    a.base_unknown = "the pointer is not derived from a kernel argument";
  }
  if (a.arg >= 0) model_.args[static_cast<size_t>(a.arg)].used = true;
  model_.accesses.push_back(std::move(a));
  return model_.accesses.back();
}

void AccessAnalysis::access_from_block_ptr(Access &access, const BlockPtrInfo &block,
                                             const std::vector<std::int32_t> &checked) {
  access.block_pointer = true;
  access.arg = block.base;
  if (block.base < 0) access.base_unknown = "the block pointer's base is not a kernel argument";
  ExprId offset = block.base_offset;
  ExprId mask = kNoExpr;
  for (size_t d = 0; d < block.offsets.size() && d < block.strides.size(); ++d) {
    ExprId index = block.block.size() > d && block.block[d] == 1 ? block.offsets[d]
                                                                  : pool_.add(block.offsets[d], pool_.dim(static_cast<int>(d)));
    offset = pool_.add(offset, pool_.mul(index, block.strides[d]));
    if (std::find(checked.begin(), checked.end(), static_cast<std::int32_t>(d)) != checked.end() && d < block.shape.size()) {
      mask = pool_.logical_and(mask, pool_.cmp(CmpPred::Sge, index, pool_.constant(0)));
      mask = pool_.logical_and(mask, pool_.cmp(CmpPred::Slt, index, block.shape[d]));
    }
  }
  access.offset = offset;
  access.mask = mask;
  if (!checked.empty()) {
    std::string dims;
    for (std::int32_t d : checked) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    access.mask_kind = "boundaryCheck [" + dims + "]";
  }
}

void AccessAnalysis::visit_memory(Operation *op) {
  if (auto load = llvm::dyn_cast<tt::LoadOp>(op)) {
    VInfo ptr = info(load.getPtr());
    Access &a = add_access(op, AccessKind::Load, ptr, load.getPtr().getType());
    a.detail = load.getCache() != tt::CacheModifier::NONE ? "cache=" + tt::stringifyCacheModifier(load.getCache()).str() : "";
    if (ptr.kind == VKind::BlockPtr) {
      std::vector<std::int32_t> checked(load.getBoundaryCheck().begin(), load.getBoundaryCheck().end());
      access_from_block_ptr(a, block_ptrs_[static_cast<size_t>(ptr.index)], checked);
    }
    if (load.getMask()) {
      a.mask = int_expr(load.getMask());
      a.mask_kind = "mask operand";
    }
    a.has_other = static_cast<bool>(load.getOther());
    Value r = load.getResult();
    if (is_integer_like(r.getType()) && !is_tensor(r.getType()) && !load.getMask() && ptr.kind == VKind::Ptr &&
        ptr.base >= 0)
      // A scalar at a known index: evaluates to the element when the launch
      // gives the argument's data, else it stays unknown.
      set_int(r, pool_.opaque_load("a value loaded from memory at line " + std::to_string(a.loc.line), a.loc.line,
                                   a.loc.ttir_line, ptr.base, ptr.expr));
    else if (is_integer_like(r.getType()))
      set_unknown(r, "a value loaded from memory at line " + std::to_string(a.loc.line), op);
    else if (llvm::isa<tt::PointerType>(element_of(r.getType())))
      set_unknown(r, "a pointer loaded from memory at line " + std::to_string(a.loc.line), op);
    else
      set(r, VInfo{});
    return;
  }
  if (auto store = llvm::dyn_cast<tt::StoreOp>(op)) {
    VInfo ptr = info(store.getPtr());
    Access &a = add_access(op, AccessKind::Store, ptr, store.getPtr().getType());
    if (ptr.kind == VKind::BlockPtr) {
      std::vector<std::int32_t> checked(store.getBoundaryCheck().begin(), store.getBoundaryCheck().end());
      access_from_block_ptr(a, block_ptrs_[static_cast<size_t>(ptr.index)], checked);
    }
    if (store.getMask()) {
      a.mask = int_expr(store.getMask());
      a.mask_kind = "mask operand";
    }
    return;
  }
  if (auto rmw = llvm::dyn_cast<tt::AtomicRMWOp>(op)) {
    VInfo ptr = info(rmw.getPtr());
    Access &a = add_access(op, AccessKind::AtomicRMW, ptr, rmw.getPtr().getType());
    a.detail = tt::stringifyAtomicRMWKind(rmw.getAtomicRmwOp()).str();
    if (rmw.getMask()) {
      a.mask = int_expr(rmw.getMask());
      a.mask_kind = "mask operand";
    }
    return set_unknown(rmw.getResult(), "the old value returned by an atomic", op);
  }
  if (auto gather = llvm::dyn_cast<tt::GatherLoadOp>(op)) {
    // triton-ascend's gather of rows at loaded indices: every element of the
    // result is read from `src`; where is data-dependent (the offset is
    // unknown, so unique bytes are a lower bound).
    VInfo ptr = info(gather.getSrc());
    Access a = record(op, AccessKind::Load);
    Type result_type = gather.getResult().getType();
    a.shape = shape_of(result_type);
    a.dtype = type_text(element_of(result_type));
    a.element_bits = bits_of(element_of(result_type));
    a.detail = "gather_load";
    if (ptr.kind == VKind::Ptr && ptr.base >= 0) {
      a.arg = ptr.base;
      model_.args[static_cast<size_t>(a.arg)].used = true;
    } else {
      a.base_unknown = "the pointer is not derived from a kernel argument";
    }
    a.offset = pool_.opaque("rows gathered at indices loaded from memory (tt.gather_load)", a.loc.line,
                            dims_mask(result_type));
    if (ptr.kind == VKind::Ptr && ptr.expr != kNoExpr) a.offset = pool_.add(ptr.expr, a.offset);
    model_.accesses.push_back(std::move(a));
    Value r = gather.getResult();
    if (is_integer_like(r.getType()))
      set_unknown(r, "a value gathered from memory at line " + std::to_string(model_.accesses.back().loc.line), op);
    else
      set(r, VInfo{});
    return;
  }
  if (auto cas = llvm::dyn_cast<tt::AtomicCASOp>(op)) {
    VInfo ptr = info(cas.getPtr());
    Access &a = add_access(op, AccessKind::AtomicCAS, ptr, cas.getPtr().getType());
    a.detail = "cas";
    return set_unknown(cas.getResult(), "the old value returned by an atomic", op);
  }
}

void AccessAnalysis::visit_descriptor(Operation *op) {
  Value desc_value = op->getOperand(0);
  VInfo d = info(desc_value);
  auto kind = AccessKind::DescLoad;
  Type tile_type;
  std::vector<Value> indices;
  if (llvm::isa<tt::DescriptorLoadOp, tt::ExperimentalDescriptorLoadOp>(op)) {
    kind = AccessKind::DescLoad;
    tile_type = op->getResult(0).getType();
    for (unsigned k = 1; k < op->getNumOperands(); ++k) indices.push_back(op->getOperand(k));
  } else if (auto st = llvm::dyn_cast<tt::DescriptorStoreOp>(op)) {
    kind = AccessKind::DescStore;
    tile_type = st.getSrc().getType();
    indices.assign(st.getIndices().begin(), st.getIndices().end());
  } else if (auto st2 = llvm::dyn_cast<tt::ExperimentalDescriptorStoreOp>(op)) {
    kind = AccessKind::DescStore;
    tile_type = st2.getSrc().getType();
    indices.assign(st2.getIndices().begin(), st2.getIndices().end());
  } else if (auto red = llvm::dyn_cast<tt::DescriptorReduceOp>(op)) {
    kind = AccessKind::DescReduce;
    tile_type = red.getSrc().getType();
    indices.assign(red.getIndices().begin(), red.getIndices().end());
  } else if (llvm::isa<tt::DescriptorGatherOp, tt::ExperimentalDescriptorGatherOp>(op)) {
    kind = AccessKind::DescGather;
    tile_type = op->getResult(0).getType();
    indices = {op->getOperand(1), op->getOperand(2)};
  } else {
    kind = AccessKind::DescScatter;
    tile_type = op->getOperand(3).getType();
    indices = {op->getOperand(1), op->getOperand(2)};
  }
  Access a = record(op, kind);
  a.descriptor = true;
  a.shape = shape_of(tile_type);
  a.dtype = type_text(element_of(tile_type));
  a.element_bits = bits_of(element_of(tile_type));
  if (kind == AccessKind::DescReduce) a.detail = tt::stringifyDescriptorReduceKind(llvm::cast<tt::DescriptorReduceOp>(op).getKind()).str();
  if (d.kind != VKind::Desc) {
    a.base_unknown = "the tensor descriptor is not traced to a kernel argument";
  } else {
    const DescInfo &info_d = descs_[static_cast<size_t>(d.index)];
    a.arg = info_d.base;
    if (a.arg >= 0) model_.args[static_cast<size_t>(a.arg)].used = true;
    ExprId offset = info_d.base_offset;
    ExprId mask = kNoExpr;
    size_t rank = info_d.strides.size();
    for (size_t dim = 0; dim < rank; ++dim) {
      ExprId index = kNoExpr;
      if (kind == AccessKind::DescGather || kind == AccessKind::DescScatter) {
        // Rows come from the x-offset tensor (dim 0), columns from y + i1.
        index = dim == 0 ? int_expr(indices[0]) : pool_.add(int_expr(indices[1]), pool_.dim(1));
      } else if (dim < indices.size()) {
        index = a.shape.size() > dim && a.shape[dim] == 1 ? int_expr(indices[dim])
                                                           : pool_.add(int_expr(indices[dim]), pool_.dim(static_cast<int>(dim)));
      } else {
        index = pool_.opaque("a descriptor index", a.loc.line);
      }
      offset = pool_.add(offset, pool_.mul(index, info_d.strides[dim]));
      if (dim < info_d.shape.size()) {
        mask = pool_.logical_and(mask, pool_.cmp(CmpPred::Sge, index, pool_.constant(0)));
        mask = pool_.logical_and(mask, pool_.cmp(CmpPred::Slt, index, info_d.shape[dim]));
      }
    }
    a.offset = offset;
    a.mask = mask;
    a.mask_kind = "descriptor bounds";
  }
  model_.accesses.push_back(std::move(a));
  for (Value r : op->getResults()) set(r, VInfo{});
}

}  // namespace perfbound::ttir
