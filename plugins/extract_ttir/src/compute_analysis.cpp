//===- compute_analysis.cpp - per-op work by unit class -------------------===//
#include "compute_analysis.hpp"

#include <algorithm>

namespace perfbound::ttir {

bool AddressUses::address_only(Value v) {
  if (is_pointer_like(v.getType())) return true;
  if (!is_tensor(v.getType())) return false;
  auto it = address_only_.find(v);
  if (it != address_only_.end()) return it->second;
  // The walk follows the uses, as deep as the program is long: beyond
  // kMaxExprDepth the value counts as data (not memoised: a shallower visit
  // may still decide it).
  DepthGuard guard(depth_);
  if (guard.too_deep()) return false;
  address_only_[v] = true;  // optimistic while recursing (loop-carried cycles)
  bool result = true;
  for (mlir::OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    unsigned idx = use.getOperandNumber();
    bool ok = false;
    if (llvm::isa<tt::AddPtrOp>(user)) {
      ok = idx == 1;
    } else if (llvm::isa<tt::LoadOp>(user)) {
      ok = idx == 1;  // the mask (other is data)
      if (auto load = llvm::dyn_cast<tt::LoadOp>(user)) ok = load.getMask() == v;
    } else if (auto store = llvm::dyn_cast<tt::StoreOp>(user)) {
      ok = store.getMask() == v;
    } else if (auto rmw = llvm::dyn_cast<tt::AtomicRMWOp>(user)) {
      ok = rmw.getMask() == v;
    } else if (llvm::isa<tt::MakeTensorPtrOp, tt::AdvanceOp, tt::DescriptorGatherOp, tt::DescriptorScatterOp,
                         tt::ExperimentalDescriptorGatherOp, tt::ExperimentalDescriptorScatterOp>(user)) {
      ok = idx != 3 || !llvm::isa<tt::DescriptorScatterOp, tt::ExperimentalDescriptorScatterOp>(user);
    } else if (auto yield = llvm::dyn_cast<mlir::scf::YieldOp>(user)) {
      Operation *parent = yield->getParentOp();
      ok = idx < parent->getNumResults() && address_only(parent->getResult(idx));
      if (ok)
        if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(parent)) ok = address_only(for_op.getRegionIterArgs()[idx]);
    } else if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(user)) {
      unsigned first = for_op.getNumControlOperands();
      ok = idx >= first && address_only(for_op.getRegionIterArgs()[idx - first]);
    } else if (llvm::isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::ReshapeOp, tt::TransOp>(user) ||
               (user->getName().getStringRef().starts_with("arith.") && user->getNumResults() == 1 &&
                is_integer_like(user->getResult(0).getType()))) {
      ok = address_only(user->getResult(0));
    }
    if (!ok) {
      result = false;
      break;
    }
  }
  address_only_[v] = result;
  return result;
}

void ComputeAnalysis::add_compute(Operation *op, OpClass cls, const std::string &dtype, std::int64_t elements,
                                   double flop, std::string detail) {
  ComputeOp c;
  c.op = op->getName().getStringRef().str();
  c.cls = cls;
  c.dtype = dtype;
  c.elements = elements;
  c.flop = flop;
  c.loop = cur_loop_;
  c.cond = cur_cond_;
  c.loc = loc_of(op);
  c.detail = std::move(detail);
  model_.ops.push_back(std::move(c));
}

void ComputeAnalysis::classify_elementwise(Operation *op, bool transcendental, std::string detail) {
  if (op->getNumResults() == 0) return;
  Value r = op->getResult(0);
  Type t = r.getType();
  llvm::StringRef name = op->getName().getStringRef();
  if (llvm::isa<mlir::arith::ConstantOp>(op)) return;
  if (!is_tensor(t)) {
    add_compute(op, OpClass::Scalar, type_text(t), 1, 0, std::move(detail));
    return;
  }
  std::int64_t n = product(shape_of(t));
  Type operand_element = op->getNumOperands() > 0 ? element_of(op->getOperand(0).getType()) : element_of(t);
  bool int_op = is_integer_like(operand_element) && is_integer_like(element_of(t));
  // Compare results are i1: count them in the operands' type.
  std::string dtype = type_text(llvm::isa<mlir::arith::CmpIOp, mlir::arith::CmpFOp>(op) ? operand_element : element_of(t));
  if (int_op && address_only(r)) {
    add_compute(op, OpClass::Index, dtype, n, 0, std::move(detail));
    return;
  }
  double per = (name == "math.fma") ? 2.0 : 1.0;
  add_compute(op, transcendental ? OpClass::Transcendental : OpClass::Vector, dtype, n, per * static_cast<double>(n),
              std::move(detail));
}

void ComputeAnalysis::visit_dot(Operation *op) {
  model_.has_dot = true;
  Value a = op->getOperand(0);
  Value b = op->getOperand(1);
  Value d = op->getResult(0);
  std::vector<std::int64_t> as = shape_of(a.getType());
  std::vector<std::int64_t> bs = shape_of(b.getType());
  std::vector<std::int64_t> ds = shape_of(d.getType());
  ComputeOp c;
  c.op = op->getName().getStringRef().str();
  c.cls = OpClass::Cube;
  c.loop = cur_loop_;
  c.cond = cur_cond_;
  c.loc = loc_of(op);
  c.a_dtype = type_text(element_of(a.getType()));
  c.b_dtype = type_text(element_of(b.getType()));
  c.acc_dtype = type_text(element_of(d.getType()));
  std::int64_t batch = 1;
  if (ds.size() >= 2) {
    for (size_t idx = 0; idx + 2 < ds.size(); ++idx) batch *= ds[idx];
    c.m = ds[ds.size() - 2];
    c.n = ds[ds.size() - 1];
  }
  if (!as.empty()) c.k = as.back();
  if (auto dot = llvm::dyn_cast<tt::DotOp>(op)) {
    static const char *const kPrecision[] = {"tf32", "tf32x3", "ieee", "bf16x3|hf32", "bf16x6"};
    std::uint32_t p = dot.getInputPrecision();
    c.precision = p < 5 ? kPrecision[p] : "unknown";
    c.dtype = c.a_dtype == c.b_dtype ? c.a_dtype : c.a_dtype + "x" + c.b_dtype;
  } else if (auto scaled = llvm::dyn_cast<tt::DotScaledOp>(op)) {
    std::string ea = tt::stringifyScaleDotElemType(scaled.getAElemType()).str();
    std::string eb = tt::stringifyScaleDotElemType(scaled.getBElemType()).str();
    // e2m1 operands are packed two per byte along K.
    if (ea == "e2m1" && !as.empty()) c.k = as.back() * 2;
    c.a_dtype = ea;
    c.b_dtype = eb;
    c.dtype = ea == eb ? ea : ea + "x" + eb;
    c.precision = "scaled";
  }
  (void)bs;
  c.elements = batch * c.m * c.n;
  c.flop = 2.0 * static_cast<double>(batch) * static_cast<double>(c.m) * static_cast<double>(c.n) *
           static_cast<double>(c.k);
  model_.ops.push_back(std::move(c));
  set(d, VInfo{});
}

void ComputeAnalysis::visit_reduce_like(Operation *op, OpClass cls) {
  Value src = op->getOperand(0);
  int combine = 0;
  for (mlir::Region &region : op->getRegions())
    for (mlir::Block &block : region)
      for (Operation &inner : block)
        if (!inner.hasTrait<mlir::OpTrait::IsTerminator>()) ++combine;
  std::vector<std::int64_t> shape = shape_of(src.getType());
  std::int64_t n = product(shape);
  // A reduction or scan of extent E along its axis combines E - 1 times per
  // output row: N - N/E applications of the combiner in all.
  std::int64_t applications = n;
  auto axis_attr = op->getAttrOfType<mlir::IntegerAttr>("axis");
  if (cls != OpClass::Vector && axis_attr && axis_attr.getInt() >= 0 &&
      static_cast<size_t>(axis_attr.getInt()) < shape.size() && shape[static_cast<size_t>(axis_attr.getInt())] > 0)
    applications = n - n / shape[static_cast<size_t>(axis_attr.getInt())];
  ComputeOp c;
  c.op = op->getName().getStringRef().str();
  c.cls = cls;
  c.dtype = type_text(element_of(src.getType()));
  c.elements = n;
  c.combine_ops = combine;
  c.flop = static_cast<double>(applications) * std::max(1, combine);
  c.loop = cur_loop_;
  c.cond = cur_cond_;
  c.loc = loc_of(op);
  if (axis_attr) c.detail = "axis " + std::to_string(axis_attr.getInt());
  model_.ops.push_back(std::move(c));
  for (Value r : op->getResults()) set_unknown(r, "the result of " + op->getName().getStringRef().str(), op);
}

}  // namespace perfbound::ttir
