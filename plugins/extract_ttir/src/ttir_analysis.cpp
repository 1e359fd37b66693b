//===- ttir_analysis.cpp - parse printed TTIR and model its kernels (MLIR) ===//
//
// The second MLIR translation unit (with dialect/tt_dialect.cpp). It parses
// TTIR with MLIR's real parser, then walks each tt.func once:
//   - integer and pointer values become symbolic expressions (sym_expr.hpp);
//     loop-carried values become placeholders, bound to `init + t*inc` when
//     the loop proves them induction variables;
//   - tt.load/store/atomics/descriptor ops become Access records with their
//     element offset, mask, enclosing loop and execution condition;
//   - arithmetic becomes ComputeOp records by unit class;
//   - data tensors become Tiles, and a liveness walk records which tiles are
//     live together (the on-chip buffer footprint).
// Everything MLIR stays in this file; the result is a plain KernelModel.
//
//===----------------------------------------------------------------------===//
#include "ttir_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "tt_dialect.hpp"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringSwitch.h>
#include <llvm/Support/ConvertUTF.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/thread.h>
#include <mlir/AsmParser/AsmParser.h>
#include <mlir/AsmParser/AsmParserState.h>
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/ControlFlow/IR/ControlFlowOps.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/Matchers.h>
#include <mlir/Parser/Parser.h>

namespace perfbound::ttir {

namespace {

using mlir::Operation;
using mlir::Type;
using mlir::Value;

//===----------------------------------------------------------------------===//
// Types and locations
//===----------------------------------------------------------------------===//

std::string type_text(Type type) {
  std::string out;
  llvm::raw_string_ostream os(out);
  type.print(os);
  return out;
}

std::vector<std::int64_t> shape_of(Type type) {
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type)) {
    std::vector<std::int64_t> shape(tensor.getShape().begin(), tensor.getShape().end());
    for (std::int64_t &s : shape)
      if (s < 0) s = 0;  // dynamic dims do not occur in TTIR; never let them poison sizes
    return shape;
  }
  return {};
}

bool is_tensor(Type type) { return llvm::isa<mlir::RankedTensorType>(type); }

Type element_of(Type type) {
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type)) return tensor.getElementType();
  return type;
}

int bits_of(Type type) {
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) return static_cast<int>(integer.getWidth());
  if (auto fp = llvm::dyn_cast<mlir::FloatType>(type)) return static_cast<int>(fp.getWidth());
  if (llvm::isa<tt::PointerType, mlir::IndexType>(type)) return 64;
  return 0;
}

bool is_pointer_like(Type type) {
  Type element = element_of(type);
  return llvm::isa<tt::PointerType>(element) || llvm::isa<tt::TensorDescType>(element);
}

bool is_integer_like(Type type) { return llvm::isa<mlir::IntegerType, mlir::IndexType>(element_of(type)); }

std::uint32_t dims_mask(Type type) {
  size_t rank = shape_of(type).size();
  return rank >= 32 ? 0xffffffffu : ((1u << rank) - 1u);
}

std::int64_t product(const std::vector<std::int64_t> &shape) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return n;
}

/// The innermost Python location of `loc` as "file:line:col": the callee of a
/// callsite (inlined library code names its own line), the first known part of
/// a fused location; "" when the location is unknown or the TTIR file itself.
std::string python_loc(mlir::Location loc, llvm::StringRef buffer_name) {
  mlir::Location current = loc;
  for (int guard = 0; guard < 64; ++guard) {
    if (auto named = llvm::dyn_cast<mlir::NameLoc>(current)) {
      current = named.getChildLoc();
    } else if (auto callsite = llvm::dyn_cast<mlir::CallSiteLoc>(current)) {
      current = callsite.getCallee();
    } else if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(current)) {
      auto parts = fused.getLocations();
      auto known = std::find_if(parts.begin(), parts.end(),
                                [](mlir::Location l) { return !llvm::isa<mlir::UnknownLoc>(l); });
      if (known == parts.end()) return "";
      current = *known;
    } else if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(current)) {
      if (file.getFilename() == buffer_name) return "";
      return file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" + std::to_string(file.getColumn());
    } else {
      return "";
    }
  }
  return "";
}

/// Resolves a location to the line the user wrote: named locations give the
/// Python variable; callsite locations (inlined library code) resolve to the
/// outermost caller, which is in the kernel.
SourceLoc to_source(mlir::Location loc, llvm::StringRef buffer_name, bool with_python = true) {
  SourceLoc out;
  mlir::Location current = loc;
  for (int guard = 0; guard < 64; ++guard) {
    if (auto named = llvm::dyn_cast<mlir::NameLoc>(current)) {
      if (out.name.empty()) out.name = named.getName().str();
      current = named.getChildLoc();
      continue;
    }
    if (auto callsite = llvm::dyn_cast<mlir::CallSiteLoc>(current)) {
      current = callsite.getCaller();
      continue;
    }
    if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(current)) {
      bool found = false;
      for (mlir::Location inner : fused.getLocations()) {
        if (!llvm::isa<mlir::UnknownLoc>(inner)) {
          current = inner;
          found = true;
          break;
        }
      }
      if (found) continue;
      break;
    }
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(current)) {
      out.file = file.getFilename().str();
      out.line = static_cast<int>(file.getLine());
      out.col = static_cast<int>(file.getColumn());
      out.in_ttir = file.getFilename() == buffer_name;
    }
    break;
  }
  if (with_python) out.python = python_loc(loc, buffer_name);
  return out;
}

//===----------------------------------------------------------------------===//
// Value information
//===----------------------------------------------------------------------===//

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

bool is_cube_op(Operation *op) { return llvm::isa<tt::DotOp, tt::DotScaledOp>(op); }

bool is_layout_only(Operation *op) {
  return llvm::isa<tt::TransOp, tt::ReshapeOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::AnnotationOp>(op);
}

const char *kTranscendental[] = {"exp",  "exp2", "expm1", "log",  "log2", "log10", "log1p", "sqrt", "rsqrt",
                                 "cbrt", "sin",  "cos",   "tan",  "tanh", "sinh",  "cosh",  "asin", "acos",
                                 "atan", "atan2", "erf",  "erfc", "pow",  "powf",  "fpowi", "ipowi"};

bool is_transcendental_name(llvm::StringRef name) {
  for (const char *t : kTranscendental)
    if (name == t) return true;
  return false;
}

/// Classifies a libdevice symbol (`__nv_exp2f`, `__imf_rsqrtf`, `__hmf_expf`, ...).
std::string transcendental_in_symbol(llvm::StringRef symbol) {
  llvm::StringRef s = symbol;
  for (llvm::StringRef prefix : {"__nv_", "__imf_", "__hmf_", "__ocml_", "__"})
    if (s.consume_front(prefix)) break;
  // Longest names first so that exp2 is not read as exp.
  static const char *const kOrdered[] = {"rsqrt", "atan2", "expm1", "log10", "log1p", "exp10", "exp2", "log2",
                                         "sqrt",  "cbrt",  "tanh",  "sinh",  "cosh",  "asin",  "acos", "atan",
                                         "erfc",  "erf",   "pow",   "exp",   "log",   "sin",   "cos",  "tan"};
  for (const char *name : kOrdered)
    if (s.starts_with(name)) return name;
  return "";
}

//===----------------------------------------------------------------------===//
// The function analyzer
//===----------------------------------------------------------------------===//

class FunctionAnalyzer {
 public:
  FunctionAnalyzer(KernelModel &model, llvm::StringRef buffer_name, std::function<int(Operation *)> ttir_line_of)
      : model_(model), pool_(*model.pool), buffer_name_(buffer_name), ttir_line_of_(std::move(ttir_line_of)) {}

  void run(tt::FuncOp func);

 private:
  // Values.
  VInfo info(Value v);
  ExprId int_expr(Value v);
  void set(Value v, VInfo i) { values_[v] = i; }
  void set_int(Value v, ExprId e);
  void set_unknown(Value v, const std::string &reason, Operation *op);
  ExprId canonical_dims(ExprId e, Type type);
  int line_of(Operation *op) { return to_source(op->getLoc(), buffer_name_, false).line; }
  SourceLoc loc_of(Operation *op) {
    SourceLoc loc = to_source(op->getLoc(), buffer_name_);
    loc.ttir_line = ttir_line_of_(op);
    return loc;
  }
  void unresolved(const std::string &what, const std::string &reason, const SourceLoc &loc, std::string hint = "");
  void not_counted(Operation *op, const std::string &reason);
  /// The trip count of an scf.while in the affine or single-trip forms, with
  /// the carried value that counts (its before-region argument index).
  struct WhileTrip {
    ExprId trip = kNoExpr;
    int iv = -1;           // before-region argument that is the counter
    ExprId init = kNoExpr, step = kNoExpr;
    std::string pattern;   // what was recognised, or why nothing was
  };
  WhileTrip while_trip(mlir::scf::WhileOp op);

  // Walk.
  void walk_region_cfg(mlir::Region &region);
  void walk_block(mlir::Block &block);
  void visit(Operation *op);
  void visit_arith(Operation *op, llvm::StringRef name);
  void visit_for(mlir::scf::ForOp op);
  void visit_if(mlir::scf::IfOp op);
  void visit_while(mlir::scf::WhileOp op);
  void visit_shape(Operation *op, llvm::StringRef name);
  void visit_memory(Operation *op);
  void visit_descriptor(Operation *op);
  void visit_dot(Operation *op);
  void visit_reduce_like(Operation *op, OpClass cls);

  // Block pointers and descriptors are records; values refer to them.
  VInfo add_block_ptr(BlockPtrInfo b);
  VInfo add_desc(DescInfo d);
  /// The kernel argument and element offset a pointer operand comes from.
  std::pair<int, ExprId> base_of(Value ptr, Operation *op);

  // Records.
  void add_compute(Operation *op, OpClass cls, const std::string &dtype, std::int64_t elements, double flop,
                   std::string detail = "");
  void classify_elementwise(Operation *op, bool transcendental, std::string detail = "");
  Access &add_access(Operation *op, AccessKind kind, const VInfo &ptr, Type ptr_type);
  void access_from_block_ptr(Access &access, const BlockPtrInfo &block, const std::vector<std::int32_t> &checked);

  // Liveness and buffers.
  bool address_only(Value v);
  void collect_tiles(tt::FuncOp func);
  Buffer buffer_of(Value v);
  void liveness_block(mlir::Block &block, const std::vector<int> &outer);

  KernelModel &model_;
  ExprPool &pool_;
  llvm::StringRef buffer_name_;
  std::function<int(Operation *)> ttir_line_of_;
  llvm::DenseMap<Value, VInfo> values_;
  std::vector<BlockPtrInfo> block_ptrs_;
  std::vector<DescInfo> descs_;
  int cur_loop_ = -1;
  ExprId cur_cond_ = kNoExpr;
  llvm::DenseMap<Value, bool> address_only_;
  llvm::DenseMap<Value, int> tile_of_;
  std::set<std::string> unresolved_seen_;
};

void FunctionAnalyzer::unresolved(const std::string &what, const std::string &reason, const SourceLoc &loc,
                                  std::string hint) {
  if (!unresolved_seen_.insert(what + "\n" + reason).second) return;
  model_.unresolved.push_back({what, reason, loc.line, loc.ttir_line, loc.python, std::move(hint)});
}

void FunctionAnalyzer::not_counted(Operation *op, const std::string &reason) {
  model_.not_counted.push_back({op->getName().getStringRef().str(), reason, loc_of(op)});
}

VInfo FunctionAnalyzer::info(Value v) {
  auto it = values_.find(v);
  if (it != values_.end()) return it->second;
  VInfo i;
  if (is_integer_like(v.getType())) {
    i.kind = VKind::Int;
    i.expr = pool_.opaque("a value the analysis does not model", 0);
  }
  return i;
}

ExprId FunctionAnalyzer::int_expr(Value v) {
  VInfo i = info(v);
  if (i.kind == VKind::Int && i.expr != kNoExpr) return i.expr;
  int line = 0;
  if (Operation *def = v.getDefiningOp()) line = line_of(def);
  return pool_.opaque("a value computed from data (not an index expression)", line);
}

ExprId FunctionAnalyzer::canonical_dims(ExprId e, Type type) {
  // Size-1 dimensions have index 0: drop them so that broadcasts stay exact.
  std::vector<std::int64_t> shape = shape_of(type);
  std::uint32_t unit = 0;
  for (size_t d = 0; d < shape.size() && d < 32; ++d)
    if (shape[d] == 1) unit |= 1u << d;
  if (e == kNoExpr || (pool_.node(pool_.resolve(e)).dims & unit) == 0) return e;
  std::vector<ExprId> map(shape.size(), kNoExpr);
  for (size_t d = 0; d < shape.size() && d < 32; ++d)
    if (shape[d] == 1) map[d] = pool_.constant(0);
  return pool_.remap_dims(e, map);
}

void FunctionAnalyzer::set_int(Value v, ExprId e) {
  VInfo i;
  i.kind = VKind::Int;
  i.expr = canonical_dims(e, v.getType());
  set(v, i);
}

void FunctionAnalyzer::set_unknown(Value v, const std::string &reason, Operation *op) {
  Type type = v.getType();
  VInfo i;
  if (is_integer_like(type)) {
    i.kind = VKind::Int;
    i.expr = pool_.opaque(reason, op != nullptr ? line_of(op) : 0, dims_mask(type));
  } else if (llvm::isa<tt::PointerType>(element_of(type)) &&
             !llvm::isa<mlir::RankedTensorType>(llvm::cast<tt::PointerType>(element_of(type)).getPointeeType())) {
    i.kind = VKind::Ptr;
    i.base = -1;
    i.expr = pool_.opaque(reason, op != nullptr ? line_of(op) : 0, dims_mask(type));
  }
  set(v, i);
}

//===----------------------------------------------------------------------===//
// Walk
//===----------------------------------------------------------------------===//

void FunctionAnalyzer::run(tt::FuncOp func) {
  model_.name = func.getSymName().str();
  model_.is_public = func.isPublic();
  model_.loc = to_source(func.getLoc(), buffer_name_);
  if (func.isExternal()) return;
  mlir::Block &entry = func.getBody().front();
  // Signature.
  for (unsigned idx = 0; idx < func.getNumArguments(); ++idx) {
    mlir::BlockArgument arg = entry.getArgument(idx);
    KernelArg ka;
    ka.index = static_cast<int>(idx);
    ka.type = type_text(arg.getType());
    ka.used = !arg.use_empty();
    SourceLoc arg_loc = to_source(arg.getLoc(), buffer_name_);
    ka.name = arg_loc.name;
    if (auto div = func.getArgAttrOfType<mlir::IntegerAttr>(idx, "tt.divisibility")) ka.divisibility = div.getInt();
    Type type = arg.getType();
    VInfo vi;
    if (auto ptr = llvm::dyn_cast<tt::PointerType>(type)) {
      ka.kind = ArgKind::Pointer;
      ka.element_type = type_text(ptr.getPointeeType());
      ka.element_bits = bits_of(ptr.getPointeeType());
      ka.is_float = llvm::isa<mlir::FloatType>(ptr.getPointeeType());
      vi.kind = VKind::Ptr;
      vi.base = ka.index;
      vi.expr = pool_.constant(0);
    } else if (auto desc = llvm::dyn_cast<tt::TensorDescType>(type)) {
      // A host TensorDescriptor argument expands to (desc, shape i32 x rank,
      // strides i64 x rank) in the signature (ttir.md, tensor descriptors).
      ka.kind = ArgKind::TensorDesc;
      ka.element_type = type_text(desc.getBlockType().getElementType());
      ka.element_bits = bits_of(desc.getBlockType().getElementType());
      DescInfo d;
      d.base = ka.index;
      d.base_offset = pool_.constant(0);
      d.block = shape_of(desc.getBlockType());
      d.element = desc.getBlockType().getElementType();
      size_t rank = d.block.size();
      bool expanded = func.getNumArguments() >= idx + 1 + 2 * rank;
      for (size_t r = 0; expanded && r < rank; ++r) {
        expanded = expanded && entry.getArgument(idx + 1 + static_cast<unsigned>(r)).getType().isInteger(32) &&
                   entry.getArgument(idx + 1 + static_cast<unsigned>(rank + r)).getType().isInteger(64);
      }
      for (size_t r = 0; r < rank; ++r) {
        d.shape.push_back(expanded ? pool_.arg(static_cast<int>(idx + 1 + r))
                                   : pool_.opaque("shape of a tensor-descriptor argument", 0));
        d.strides.push_back(expanded ? pool_.arg(static_cast<int>(idx + 1 + rank + r))
                                     : pool_.opaque("strides of a tensor-descriptor argument", 0));
      }
      vi = add_desc(std::move(d));
    } else if (type.isIntOrIndex()) {
      ka.kind = ArgKind::Scalar;
      ka.element_type = type_text(type);
      ka.element_bits = bits_of(type);
      vi.kind = VKind::Int;
      vi.expr = pool_.arg(ka.index);
    } else if (type.isIntOrFloat()) {
      ka.kind = ArgKind::Scalar;
      ka.element_type = type_text(type);
      ka.element_bits = bits_of(type);
      ka.is_float = true;
    }
    set(arg, vi);
    model_.args.push_back(std::move(ka));
  }
  walk_region_cfg(func.getBody());
  collect_tiles(func);
  liveness_block(entry, {});
  for (size_t b = 1; b < func.getBody().getBlocks().size(); ++b)
    liveness_block(*std::next(func.getBody().begin(), static_cast<long>(b)), {});
}

void FunctionAnalyzer::walk_region_cfg(mlir::Region &region) {
  if (region.hasOneBlock()) {
    walk_block(region.front());
    return;
  }
  // A multi-block body (early `return` inside `if` gives cf.cond_br): each
  // block runs under the disjunction of its incoming edge conditions.
  llvm::DenseMap<mlir::Block *, ExprId> incoming;
  llvm::DenseMap<mlir::Block *, bool> visited;
  ExprId outer = cur_cond_;
  bool first = true;
  for (mlir::Block &block : region) {
    ExprId cond = outer;
    if (!first) {
      auto it = incoming.find(&block);
      cond = it == incoming.end() ? pool_.constant(0) : pool_.logical_and(outer, it->second);
    }
    first = false;
    visited[&block] = true;
    for (mlir::BlockArgument arg : block.getArguments())
      if (!values_.count(arg)) set_unknown(arg, "a block argument of a control-flow block", nullptr);
    cur_cond_ = cond;
    walk_block(block);
    Operation *term = block.getTerminator();
    auto add_edge = [&](mlir::Block *dest, ExprId edge) {
      if (visited.count(dest) != 0) {
        unresolved("control flow", "a backward branch (a loop built from cf.br) is not modelled", loc_of(term));
        return;
      }
      ExprId e = edge == kNoExpr ? pool_.constant(1) : edge;
      auto it = incoming.find(dest);
      incoming[dest] = it == incoming.end() ? e : pool_.binary(ExprOp::Or, it->second, e);
    };
    if (term == nullptr) continue;
    ExprId here = cond == outer ? kNoExpr : cond;
    if (auto br = llvm::dyn_cast<mlir::cf::BranchOp>(term)) {
      add_edge(br.getDest(), here);
    } else if (auto cbr = llvm::dyn_cast<mlir::cf::CondBranchOp>(term)) {
      ExprId c = int_expr(cbr.getCondition());
      add_edge(cbr.getTrueDest(), pool_.logical_and(here, c));
      add_edge(cbr.getFalseDest(), pool_.logical_and(here, pool_.logical_not(c)));
    }
  }
  cur_cond_ = outer;
}

void FunctionAnalyzer::walk_block(mlir::Block &block) {
  for (Operation &op : block) visit(&op);
}

void FunctionAnalyzer::visit(Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  if (name.starts_with("arith.")) return visit_arith(op, name);
  if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(op)) return visit_for(for_op);
  if (auto if_op = llvm::dyn_cast<mlir::scf::IfOp>(op)) return visit_if(if_op);
  if (auto while_op = llvm::dyn_cast<mlir::scf::WhileOp>(op)) return visit_while(while_op);
  if (llvm::isa<tt::ReturnOp, mlir::scf::YieldOp, tt::ReduceReturnOp, tt::ScanReturnOp, mlir::scf::ConditionOp,
                mlir::cf::BranchOp, mlir::cf::CondBranchOp, tt::MapElementwiseReturnOp>(op))
    return;
  if (auto pid = llvm::dyn_cast<tt::GetProgramIdOp>(op)) {
    auto axis = static_cast<int>(pid.getAxis());
    model_.uses_program_id[axis] = true;
    return set_int(pid.getResult(), pool_.pid(axis));
  }
  if (auto np = llvm::dyn_cast<tt::GetNumProgramsOp>(op)) {
    auto axis = static_cast<int>(np.getAxis());
    model_.uses_num_programs[axis] = true;
    return set_int(np.getResult(), pool_.num_programs(axis));
  }
  if (auto range = llvm::dyn_cast<tt::MakeRangeOp>(op)) {
    std::int64_t start = static_cast<std::int32_t>(range.getStart());
    return set_int(range.getResult(), pool_.add(pool_.constant(start), pool_.dim(0)));
  }
  if (llvm::isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::TransOp, tt::ReshapeOp, tt::AddPtrOp,
                tt::BitcastOp, tt::IntToPtrOp, tt::PtrToIntOp, tt::UnsplatOp, tt::MakeTensorPtrOp, tt::AdvanceOp,
                tt::MakeTensorDescOp>(op))
    return visit_shape(op, name);
  if (llvm::isa<tt::LoadOp, tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp>(op)) return visit_memory(op);
  if (llvm::isa<tt::DescriptorLoadOp, tt::ExperimentalDescriptorLoadOp, tt::DescriptorStoreOp,
                tt::ExperimentalDescriptorStoreOp, tt::DescriptorGatherOp, tt::ExperimentalDescriptorGatherOp,
                tt::DescriptorScatterOp, tt::ExperimentalDescriptorScatterOp, tt::DescriptorReduceOp>(op))
    return visit_descriptor(op);
  if (is_cube_op(op)) return visit_dot(op);
  if (llvm::isa<tt::ReduceOp>(op)) return visit_reduce_like(op, OpClass::Reduction);
  if (llvm::isa<tt::ScanOp>(op)) return visit_reduce_like(op, OpClass::Scan);
  if (llvm::isa<tt::MapElementwiseOp>(op)) return visit_reduce_like(op, OpClass::Vector);
  if (name.starts_with("math.")) {
    llvm::StringRef fn = name.drop_front(5);
    classify_elementwise(op, is_transcendental_name(fn), fn.str());
    for (Value r : op->getResults()) set_unknown(r, "a value computed by " + name.str(), op);
    return;
  }
  if (auto ext = llvm::dyn_cast<tt::ExternElementwiseOp>(op)) {
    std::string fn = transcendental_in_symbol(ext.getSymbol());
    classify_elementwise(op, !fn.empty(), ext.getSymbol().str());
    return set_unknown(ext.getResult(), "a value computed by " + ext.getSymbol().str(), op);
  }
  if (llvm::isa<tt::PreciseSqrtOp>(op)) {
    classify_elementwise(op, true, "sqrt");
    return set_unknown(op->getResult(0), "a float value", op);
  }
  if (llvm::isa<tt::PreciseDivFOp, tt::ClampFOp, tt::FpToFpOp, tt::MulhiUIOp, tt::ElementwiseInlineAsmOp>(op)) {
    classify_elementwise(op, false);
    for (Value r : op->getResults()) set_unknown(r, "a value computed by " + name.str(), op);
    return;
  }
  if (llvm::isa<tt::CatOp, tt::JoinOp, tt::SplitOp, tt::GatherOp, tt::HistogramOp, tt::SortOp>(op)) {
    Type t = op->getResult(0).getType();
    add_compute(op, OpClass::Layout, type_text(element_of(t)), product(shape_of(t)) * op->getNumResults(), 0);
    for (Value r : op->getResults()) set_unknown(r, "a value rearranged by " + name.str(), op);
    return;
  }
  if (llvm::isa<tt::PrintOp, tt::AssertOp, tt::AnnotationOp, tt::CustomOp>(op) || name == "gpu.barrier" ||
      name == "llvm.intr.assume")
    return;
  if (auto call = llvm::dyn_cast<tt::CallOp>(op)) {
    unresolved("tt.call @" + call.getCallee().str(),
               "pre-inlining TTIR: the callee's work is not counted here (analyze the inlined .ttir instead)",
               loc_of(op));
    not_counted(op, "pre-inlining TTIR: the callee's work is not counted here");
    for (Value r : op->getResults()) set_unknown(r, "the result of tt.call @" + call.getCallee().str(), op);
    return;
  }
  if (name == "ub.poison" || name == "llvm.mlir.undef") {
    for (Value r : op->getResults()) set_unknown(r, "a poison value", op);
    return;
  }
  if (!op->isRegistered()) {
    // An op of a dialect the extractor does not register (Triton >= 3.5
    // prints tl.debug_barrier() as `ttg.barrier local`): parsed as an opaque
    // op, its work not counted, its results unknown.
    not_counted(op, "an op of dialect '" + op->getName().getDialectNamespace().str() +
                        "', which the TTIR analysis does not model: its work is not counted and its results are unknown");
  } else {
    // Anything else parses (its dialect knows it) but is not modelled.
    unresolved(name.str(), "op not modelled by the TTIR analysis; its work is not counted", loc_of(op));
    not_counted(op, "op not modelled by the TTIR analysis: its work is not counted and its results are unknown");
  }
  for (Value r : op->getResults()) set_unknown(r, "the result of " + name.str(), op);
  for (mlir::Region &region : op->getRegions())
    for (mlir::Block &block : region)
      for (mlir::BlockArgument arg : block.getArguments()) set_unknown(arg, "a region argument of " + name.str(), op);
}

void FunctionAnalyzer::visit_arith(Operation *op, llvm::StringRef name) {
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

void FunctionAnalyzer::visit_shape(Operation *op, llvm::StringRef name) {
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

VInfo FunctionAnalyzer::add_block_ptr(BlockPtrInfo b) {
  VInfo v;
  v.kind = VKind::BlockPtr;
  v.index = static_cast<int>(block_ptrs_.size());
  block_ptrs_.push_back(std::move(b));
  return v;
}

VInfo FunctionAnalyzer::add_desc(DescInfo d) {
  VInfo v;
  v.kind = VKind::Desc;
  v.index = static_cast<int>(descs_.size());
  descs_.push_back(std::move(d));
  return v;
}

std::pair<int, ExprId> FunctionAnalyzer::base_of(Value ptr, Operation *op) {
  VInfo base = info(ptr);
  if (base.kind == VKind::Ptr) return {base.base, base.expr};
  return {-1, pool_.opaque("unknown base pointer", line_of(op))};
}

//===----------------------------------------------------------------------===//
// Loops and conditionals
//===----------------------------------------------------------------------===//

void FunctionAnalyzer::visit_for(mlir::scf::ForOp op) {
  Loop loop;
  loop.id = static_cast<int>(model_.loops.size());
  loop.parent = cur_loop_;
  loop.lb = int_expr(op.getLowerBound());
  loop.ub = int_expr(op.getUpperBound());
  loop.step = int_expr(op.getStep());
  loop.trip = pool_.trip_count(loop.lb, loop.ub, loop.step);
  loop.cond = cur_cond_;
  loop.loc = loc_of(op);
  for (int axis = 0; axis < 3; ++axis) {
    ExprId pid = pool_.pid(axis);
    ExprId np = pool_.num_programs(axis);
    if (pool_.contains(loop.lb, pid) && pool_.contains(loop.step, np)) loop.persistent_axis = axis;
  }
  model_.loops.push_back(loop);
  const int id = loop.id;
  ExprId iter = pool_.loop_iter(id);
  set_int(op.getInductionVar(), pool_.add(loop.lb, pool_.mul(iter, loop.step)));

  // Loop-carried values start as placeholders.
  struct Carried {
    size_t index;
    VInfo init;
    std::vector<ExprId> placeholders;  // one (Int/Ptr) or one per block-pointer offset
  };
  std::vector<Carried> carried;
  auto inits = op.getInitArgs();
  auto region_args = op.getRegionIterArgs();
  for (size_t k = 0; k < inits.size(); ++k) {
    VInfo init = info(inits[k]);
    Value arg = region_args[k];
    Carried c{k, init, {}};
    if (init.kind == VKind::Int || init.kind == VKind::Ptr) {
      ExprId p = pool_.placeholder(dims_mask(arg.getType()));
      c.placeholders.push_back(p);
      VInfo v = init;
      v.expr = p;
      set(arg, v);
    } else if (init.kind == VKind::BlockPtr) {
      BlockPtrInfo b = block_ptrs_[static_cast<size_t>(init.index)];
      for (ExprId &off : b.offsets) {
        ExprId p = pool_.placeholder(0);
        c.placeholders.push_back(p);
        off = p;
      }
      set(arg, add_block_ptr(std::move(b)));
    } else {
      set(arg, init.kind == VKind::Desc ? init : VInfo{});  // descriptors are immutable
    }
    carried.push_back(std::move(c));
  }

  int saved_loop = cur_loop_;
  cur_loop_ = id;
  walk_block(*op.getBody());
  cur_loop_ = saved_loop;

  // Induction: yield = carried + increment, with the increment invariant in
  // this loop (it may use values already proven inductive).
  auto yield = llvm::cast<mlir::scf::YieldOp>(op.getBody()->getTerminator());
  std::set<ExprId> pending;
  for (const Carried &c : carried)
    for (ExprId p : c.placeholders) pending.insert(p);
  std::map<ExprId, ExprId> increment;  // placeholder -> per-iteration increment
  auto invariant_increment = [&](ExprId yielded, ExprId p) -> std::optional<ExprId> {
    Poly inc = pool_.difference(yielded, p);
    ExprId inc_expr = pool_.from_poly(inc);
    if (pool_.contains(inc_expr, iter)) return std::nullopt;
    for (ExprId other : pending)
      if (pool_.contains(inc_expr, other)) return std::nullopt;
    return inc_expr;
  };
  bool progress = true;
  while (progress && !pending.empty()) {
    progress = false;
    for (const Carried &c : carried) {
      if (c.placeholders.empty() || pending.count(c.placeholders.front()) == 0) continue;
      VInfo y = info(yield.getOperand(static_cast<unsigned>(c.index)));
      std::vector<ExprId> yielded;
      if ((c.init.kind == VKind::Int && y.kind == VKind::Int) ||
          (c.init.kind == VKind::Ptr && y.kind == VKind::Ptr && y.base == c.init.base)) {
        yielded.push_back(y.expr);
      } else if (c.init.kind == VKind::BlockPtr && y.kind == VKind::BlockPtr) {
        const BlockPtrInfo &yb = block_ptrs_[static_cast<size_t>(y.index)];
        const BlockPtrInfo &ib = block_ptrs_[static_cast<size_t>(c.init.index)];
        if (yb.base == ib.base && yb.base_offset == ib.base_offset && yb.shape == ib.shape && yb.strides == ib.strides)
          yielded = yb.offsets;
      }
      if (yielded.size() != c.placeholders.size()) continue;
      // All components must be inductive together.
      std::vector<ExprId> incs;
      for (size_t k = 0; k < yielded.size(); ++k) {
        pending.erase(c.placeholders[k]);
        auto inc = invariant_increment(yielded[k], c.placeholders[k]);
        pending.insert(c.placeholders[k]);
        if (!inc) break;
        incs.push_back(*inc);
      }
      if (incs.size() != yielded.size()) continue;
      for (size_t k = 0; k < incs.size(); ++k) {
        ExprId init_expr = c.init.kind == VKind::BlockPtr
                               ? block_ptrs_[static_cast<size_t>(c.init.index)].offsets[k]
                               : c.init.expr;
        pool_.bind(c.placeholders[k], pool_.add(init_expr, pool_.mul(iter, incs[k])));
        increment[c.placeholders[k]] = incs[k];
        pending.erase(c.placeholders[k]);
      }
      progress = true;
    }
  }
  for (ExprId p : pending)
    pool_.bind(p, pool_.opaque("a value carried by the loop at line " + std::to_string(loop.loc.line) +
                                   " that is not an induction variable",
                               loop.loc.line));

  // Values after the loop: init + trip * increment for inductions.
  for (const Carried &c : carried) {
    Value res = op.getResult(static_cast<unsigned>(c.index));
    if (c.init.kind == VKind::Int || c.init.kind == VKind::Ptr) {
      ExprId p = c.placeholders.front();
      auto it = increment.find(p);
      VInfo v = c.init;
      v.expr = it != increment.end() ? pool_.add(c.init.expr, pool_.mul(loop.trip, it->second))
                                     : pool_.opaque("the final value of a loop-carried value", loop.loc.line);
      if (v.kind == VKind::Int)
        set_int(res, v.expr);
      else
        set(res, v);
    } else if (c.init.kind == VKind::BlockPtr) {
      BlockPtrInfo b = block_ptrs_[static_cast<size_t>(c.init.index)];
      for (size_t k = 0; k < b.offsets.size(); ++k) {
        auto it = increment.find(c.placeholders[k]);
        b.offsets[k] = it != increment.end() ? pool_.add(b.offsets[k], pool_.mul(loop.trip, it->second))
                                             : pool_.opaque("the final offset of a loop-carried block pointer",
                                                            loop.loc.line);
      }
      set(res, add_block_ptr(std::move(b)));
    } else {
      set(res, c.init.kind == VKind::Desc ? c.init : VInfo{});
    }
  }
}

void FunctionAnalyzer::visit_if(mlir::scf::IfOp op) {
  ExprId c = int_expr(op.getCondition());
  ExprId outer = cur_cond_;
  cur_cond_ = pool_.logical_and(outer, c);
  walk_block(op.getThenRegion().front());
  if (!op.getElseRegion().empty()) {
    cur_cond_ = pool_.logical_and(outer, pool_.logical_not(c));
    walk_block(op.getElseRegion().front());
  }
  cur_cond_ = outer;
  if (op.getNumResults() == 0) return;
  auto then_yield = llvm::cast<mlir::scf::YieldOp>(op.getThenRegion().front().getTerminator());
  if (op.getElseRegion().empty()) return;
  auto else_yield = llvm::cast<mlir::scf::YieldOp>(op.getElseRegion().front().getTerminator());
  for (unsigned k = 0; k < op.getNumResults(); ++k) {
    VInfo t = info(then_yield.getOperand(k));
    VInfo f = info(else_yield.getOperand(k));
    Value res = op.getResult(k);
    if (t.kind == VKind::Int && f.kind == VKind::Int) {
      set_int(res, pool_.select(c, t.expr, f.expr));
    } else if (t.kind == VKind::Ptr && f.kind == VKind::Ptr && t.base == f.base) {
      VInfo v = t;
      v.expr = pool_.select(c, t.expr, f.expr);
      set(res, v);
    } else if (t.kind == f.kind && (t.kind == VKind::BlockPtr || t.kind == VKind::Desc) && t.index == f.index) {
      set(res, t);
    } else {
      set_unknown(res, "a value selected by scf.if from different sources", op);
    }
  }
}

FunctionAnalyzer::WhileTrip FunctionAnalyzer::while_trip(mlir::scf::WhileOp op) {
  WhileTrip out;
  mlir::Block &before = op.getBefore().front();
  mlir::Block &after = op.getAfter().front();
  mlir::scf::ConditionOp condition = op.getConditionOp();
  mlir::scf::YieldOp yield = op.getYieldOp();
  auto inits = op.getInits();
  auto defined_outside = [&](Value v) {
    if (v.getDefiningOp<mlir::arith::ConstantOp>()) return true;
    return !op->isAncestor(v.getParentRegion()->getParentOp());
  };
  auto constant_of = [](Value v) -> std::optional<std::int64_t> {
    if (auto cst = v.getDefiningOp<mlir::arith::ConstantOp>())
      if (auto attr = llvm::dyn_cast<mlir::IntegerAttr>(cst.getValue()))
        return attr.getValue().getBitWidth() == 1 ? static_cast<std::int64_t>(attr.getValue().getZExtValue())
                                                  : attr.getValue().getSExtValue();
    return std::nullopt;
  };
  // The after-region argument a before-region argument is forwarded to.
  auto forwarded = [&](unsigned before_arg) -> std::optional<unsigned> {
    for (unsigned k = 0; k < condition.getArgs().size(); ++k)
      if (condition.getArgs()[k] == before.getArgument(before_arg)) return k;
    return std::nullopt;
  };
  Value cond = condition.getCondition();
  if (auto c = constant_of(cond)) {
    if (*c != 0) {
      out.pattern = "the condition is constant true";
    } else {
      out.trip = pool_.constant(0);
      out.pattern = "the condition is constant false: the body never runs";
    }
    return out;
  }
  // Single trip: the condition is a carried i1 flag that the body clears.
  if (auto flag = llvm::dyn_cast<mlir::BlockArgument>(cond); flag && flag.getOwner() == &before) {
    unsigned j = flag.getArgNumber();
    auto cleared = constant_of(yield.getOperand(j));
    if (cleared && *cleared == 0) {
      out.trip = pool_.cmp(CmpPred::Ne, int_expr(inits[j]), pool_.constant(0));
      out.pattern = "a carried flag that the body sets to false: the body runs at most once";
      return out;
    }
    out.pattern = "the condition is a carried flag the body does not clear";
    return out;
  }
  auto cmp = cond.getDefiningOp<mlir::arith::CmpIOp>();
  if (!cmp || cmp->getBlock() != &before) {
    out.pattern = "the condition is not an arith.cmpi in the before region";
    return out;
  }
  using P = mlir::arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  Value lhs = cmp.getLhs();
  Value rhs = cmp.getRhs();
  auto counter_arg = [&](Value v) -> int {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
    return arg && arg.getOwner() == &before ? static_cast<int>(arg.getArgNumber()) : -1;
  };
  if (counter_arg(lhs) < 0 && counter_arg(rhs) >= 0) {
    std::swap(lhs, rhs);
    switch (pred) {
      case P::sgt: pred = P::slt; break;
      case P::sge: pred = P::sle; break;
      case P::ugt: pred = P::ult; break;
      case P::uge: pred = P::ule; break;
      case P::ne: break;
      default: pred = P::eq; break;  // not a counting form
    }
  }
  int j = counter_arg(lhs);
  if (j < 0 || !defined_outside(rhs) ||
      !(pred == P::slt || pred == P::sle || pred == P::ult || pred == P::ule || pred == P::ne)) {
    out.pattern = "the condition is not `counter <, <= or != bound` with a carried counter and a loop-invariant bound";
    return out;
  }
  std::optional<unsigned> k = forwarded(static_cast<unsigned>(j));
  Value next = yield.getOperand(static_cast<unsigned>(j));
  auto add = next.getDefiningOp<mlir::arith::AddIOp>();
  std::optional<std::int64_t> step;
  if (k && add) {
    Value counter = after.getArgument(*k);
    if (add.getLhs() == counter) step = constant_of(add.getRhs());
    if (add.getRhs() == counter) step = constant_of(add.getLhs());
  }
  if (!step || *step <= 0) {
    out.pattern = "the counter is not incremented by a positive constant in the body";
    return out;
  }
  ExprId init = int_expr(inits[static_cast<unsigned>(j)]);
  std::optional<std::int64_t> bound_const = constant_of(rhs);  // a constant inside is not visited yet
  ExprId bound = bound_const ? pool_.constant(*bound_const) : int_expr(rhs);
  ExprId c = pool_.constant(*step);
  out.iv = j;
  out.init = init;
  out.step = c;
  ExprId nonnegative = pool_.logical_and(pool_.cmp(CmpPred::Sge, init, pool_.constant(0)),
                                         pool_.cmp(CmpPred::Sge, bound, pool_.constant(0)));
  auto unsigned_guard = [&](ExprId trip) {
    return pool_.select(nonnegative, trip,
                        pool_.opaque("an unsigned loop condition with a negative operand", line_of(op)));
  };
  std::string form = "counter = init + " + std::to_string(*step) + "*t";
  switch (pred) {
    case P::slt: out.trip = pool_.trip_count(init, bound, c); out.pattern = form + " while counter < bound"; break;
    case P::sle:
      out.trip = pool_.trip_count(init, pool_.add(bound, pool_.constant(1)), c);
      out.pattern = form + " while counter <= bound";
      break;
    case P::ult:
      out.trip = unsigned_guard(pool_.trip_count(init, bound, c));
      out.pattern = form + " while counter < bound (unsigned)";
      break;
    case P::ule:
      out.trip = unsigned_guard(pool_.trip_count(init, pool_.add(bound, pool_.constant(1)), c));
      out.pattern = form + " while counter <= bound (unsigned)";
      break;
    default: {
      // counter != bound: exact when the bound is reached, else it never stops.
      ExprId distance = pool_.sub(bound, init);
      ExprId reached = pool_.logical_and(pool_.cmp(CmpPred::Sge, distance, pool_.constant(0)),
                                         pool_.cmp(CmpPred::Eq, pool_.binary(ExprOp::RemS, distance, c),
                                                   pool_.constant(0)));
      out.trip = pool_.select(reached, pool_.binary(ExprOp::DivS, distance, c),
                              pool_.opaque("an scf.while whose counter steps over its bound", line_of(op)));
      out.pattern = form + " while counter != bound";
      break;
    }
  }
  return out;
}

void FunctionAnalyzer::visit_while(mlir::scf::WhileOp op) {
  // Two loop records: the before region (the condition) runs once more than
  // the after region (the body).
  SourceLoc where = loc_of(op);
  WhileTrip wt = while_trip(op);
  Loop before;
  before.id = static_cast<int>(model_.loops.size());
  before.parent = cur_loop_;
  before.kind = LoopKind::While;
  before.region = WhileRegion::Before;
  before.cond = cur_cond_;
  before.loc = where;
  before.trip_why = wt.pattern;
  Loop after = before;
  after.id = before.id + 1;
  after.region = WhileRegion::After;
  if (wt.trip != kNoExpr) {
    after.trip = wt.trip;
    before.trip = pool_.add(wt.trip, pool_.constant(1));
  }
  model_.loops.push_back(before);
  model_.loops.push_back(after);
  if (wt.trip == kNoExpr)
    unresolved("scf.while at line " + std::to_string(where.line),
               "the trip count of an scf.while loop is not derived; work inside it is not counted",
               where, where.ttir_line > 0 ? "give trips.\"ttir:" + std::to_string(where.ttir_line) + "\"" : "");
  mlir::Block &before_block = op.getBefore().front();
  mlir::Block &after_block = op.getAfter().front();
  auto counter = [&](int loop) { return pool_.add(wt.init, pool_.mul(pool_.loop_iter(loop), wt.step)); };
  for (mlir::BlockArgument arg : before_block.getArguments()) {
    if (static_cast<int>(arg.getArgNumber()) == wt.iv)
      set_int(arg, counter(before.id));
    else
      set_unknown(arg, "a value carried by an scf.while loop", op);
  }
  int saved = cur_loop_;
  cur_loop_ = before.id;
  walk_block(before_block);
  // What the condition forwards: the counter, loop-invariant values, or unknown.
  mlir::scf::ConditionOp condition = op.getConditionOp();
  ExprId before_iter = pool_.loop_iter(before.id);
  auto forward = [&](Value v, Value to, const std::function<ExprId()> &counter_value) {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
    if (arg && arg.getOwner() == &before_block && static_cast<int>(arg.getArgNumber()) == wt.iv)
      return set_int(to, counter_value());
    VInfo i = info(v);
    if ((i.kind == VKind::Int || i.kind == VKind::Ptr) && i.expr != kNoExpr && !pool_.contains(i.expr, before_iter) &&
        pool_.first_opaque(i.expr) == kNoExpr)
      return set(to, i);
    set_unknown(to, "a value carried by an scf.while loop", op);
  };
  for (unsigned k = 0; k < condition.getArgs().size() && k < after_block.getNumArguments(); ++k)
    forward(condition.getArgs()[k], after_block.getArgument(k), [&] { return counter(after.id); });
  cur_loop_ = after.id;
  walk_block(after_block);
  cur_loop_ = saved;
  for (unsigned k = 0; k < op.getNumResults() && k < condition.getArgs().size(); ++k)
    forward(condition.getArgs()[k], op.getResult(k),
            [&] { return pool_.add(wt.init, pool_.mul(wt.trip, wt.step)); });
}

//===----------------------------------------------------------------------===//
// Memory accesses
//===----------------------------------------------------------------------===//

Access &FunctionAnalyzer::add_access(Operation *op, AccessKind kind, const VInfo &ptr, Type ptr_type) {
  Access a;
  a.id = static_cast<int>(model_.accesses.size());
  a.kind = kind;
  a.op = op->getName().getStringRef().str();
  a.loop = cur_loop_;
  a.cond = cur_cond_;
  a.loc = loc_of(op);
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

void FunctionAnalyzer::access_from_block_ptr(Access &access, const BlockPtrInfo &block,
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

void FunctionAnalyzer::visit_memory(Operation *op) {
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
  if (auto cas = llvm::dyn_cast<tt::AtomicCASOp>(op)) {
    VInfo ptr = info(cas.getPtr());
    Access &a = add_access(op, AccessKind::AtomicCAS, ptr, cas.getPtr().getType());
    a.detail = "cas";
    return set_unknown(cas.getResult(), "the old value returned by an atomic", op);
  }
}

void FunctionAnalyzer::visit_descriptor(Operation *op) {
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
  Access a;
  a.id = static_cast<int>(model_.accesses.size());
  a.kind = kind;
  a.op = op->getName().getStringRef().str();
  a.loop = cur_loop_;
  a.cond = cur_cond_;
  a.loc = loc_of(op);
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

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

void FunctionAnalyzer::add_compute(Operation *op, OpClass cls, const std::string &dtype, std::int64_t elements,
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

void FunctionAnalyzer::classify_elementwise(Operation *op, bool transcendental, std::string detail) {
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

void FunctionAnalyzer::visit_dot(Operation *op) {
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

void FunctionAnalyzer::visit_reduce_like(Operation *op, OpClass cls) {
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

//===----------------------------------------------------------------------===//
// Address-only values, tiles, liveness
//===----------------------------------------------------------------------===//

bool FunctionAnalyzer::address_only(Value v) {
  if (is_pointer_like(v.getType())) return true;
  if (!is_tensor(v.getType())) return false;
  auto it = address_only_.find(v);
  if (it != address_only_.end()) return it->second;
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

Buffer FunctionAnalyzer::buffer_of(Value v) {
  if (!model_.has_dot) return Buffer::UB;
  Operation *def = v.getDefiningOp();
  if (def != nullptr && is_cube_op(def)) return Buffer::L0C;
  // Accumulators carried by loops are dot results.
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
    if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(arg.getOwner()->getParentOp())) {
      if (arg.getArgNumber() >= 1) {
        Value yielded = for_op.getBody()->getTerminator()->getOperand(arg.getArgNumber() - 1);
        if (yielded.getDefiningOp() != nullptr && is_cube_op(yielded.getDefiningOp())) return Buffer::L0C;
      }
    }
  }
  if (auto res = llvm::dyn_cast<mlir::OpResult>(v)) {
    if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(res.getOwner())) {
      Value yielded = for_op.getBody()->getTerminator()->getOperand(res.getResultNumber());
      if (yielded.getDefiningOp() != nullptr && is_cube_op(yielded.getDefiningOp())) return Buffer::L0C;
    }
  }
  // Loaded tiles that only feed dot operands a/b (possibly through layout ops)
  // go GM -> L1 on the cube core.
  std::function<bool(Value)> feeds_cube_only = [&](Value x) -> bool {
    if (x.use_empty()) return false;
    for (mlir::OpOperand &use : x.getUses()) {
      Operation *user = use.getOwner();
      if (is_cube_op(user)) {
        if (use.getOperandNumber() > 1) return false;
        continue;
      }
      if (is_layout_only(user) && user->getNumResults() == 1 && feeds_cube_only(user->getResult(0))) continue;
      if (llvm::isa<tt::AnnotationOp>(user)) continue;
      return false;
    }
    return true;
  };
  std::function<bool(Value)> from_load = [&](Value x) -> bool {
    Operation *d = x.getDefiningOp();
    if (d == nullptr) return false;
    if (llvm::isa<tt::LoadOp, tt::DescriptorLoadOp, tt::ExperimentalDescriptorLoadOp>(d)) return true;
    return is_layout_only(d) && d->getNumOperands() > 0 && from_load(d->getOperand(0));
  };
  if (from_load(v) && feeds_cube_only(v)) return Buffer::L1;
  // A constant that only initialises an accumulator is an L0C fill.
  if (def != nullptr && llvm::isa<mlir::arith::ConstantOp>(def)) {
    bool only_acc = !v.use_empty();
    for (mlir::OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (is_cube_op(user) && use.getOperandNumber() == 2) continue;
      if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(user)) {
        unsigned first = for_op.getNumControlOperands();
        if (use.getOperandNumber() >= first &&
            buffer_of(for_op.getRegionIterArgs()[use.getOperandNumber() - first]) == Buffer::L0C)
          continue;
      }
      only_acc = false;
    }
    if (only_acc) return Buffer::L0C;
  }
  return Buffer::UB;
}

void FunctionAnalyzer::collect_tiles(tt::FuncOp func) {
  auto consider = [&](Value v, Operation *def_op, const SourceLoc &loc) {
    Type t = v.getType();
    if (!is_tensor(t) || is_pointer_like(t) || address_only(v)) return;
    // A value used only as the `other` of loads fills the load's own buffer;
    // a splat constant used only to initialise accumulators (loop-carried
    // values, a dot's accumulator) or as `other` fills those buffers.
    bool splat_constant = false;
    if (auto cst = llvm::dyn_cast_or_null<mlir::arith::ConstantOp>(def_op))
      if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(cst.getValue())) splat_constant = dense.isSplat();
    bool fill = !v.use_empty();
    for (mlir::OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      auto load = llvm::dyn_cast<tt::LoadOp>(user);
      bool as_other = load && load.getOther() == v && use.getOperandNumber() == 2;
      bool as_init = false;
      if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(user))
        as_init = use.getOperandNumber() >= for_op.getNumControlOperands();
      bool as_acc = is_cube_op(user) && use.getOperandNumber() == 2;
      fill = fill && (as_other || (splat_constant && (as_init || as_acc)));
    }
    if (fill) return;
    if (tile_of_.count(v) != 0) return;
    Tile tile;
    tile.id = static_cast<int>(model_.tiles.size());
    tile.shape = shape_of(t);
    tile.dtype = type_text(element_of(t));
    tile.element_bits = bits_of(element_of(t));
    tile.op = def_op != nullptr ? def_op->getName().getStringRef().str() : "loop-carried value";
    tile.loc = loc;
    tile.name = loc.name.empty() ? tile.op + (loc.line > 0 ? " at line " + std::to_string(loc.line) : "") : loc.name;
    tile.buffer = buffer_of(v);
    if (def_op != nullptr && llvm::isa<tt::LoadOp, tt::DescriptorLoadOp, tt::ExperimentalDescriptorLoadOp>(def_op))
      tile.loaded_in_loop = def_op->getParentOfType<mlir::scf::ForOp>() != nullptr;
    tile_of_[v] = tile.id;
    model_.tiles.push_back(std::move(tile));
  };
  func.walk([&](Operation *op) {
    // Values inside reduce/scan combiners are scalars of the combiner.
    if (op->getParentOfType<tt::ReduceOp>() || op->getParentOfType<tt::ScanOp>() ||
        op->getParentOfType<tt::MapElementwiseOp>())
      return;
    SourceLoc loc = loc_of(op);
    for (Value r : op->getResults()) consider(r, op, loc);
    for (mlir::Region &region : op->getRegions()) {
      if (llvm::isa<tt::ReduceOp, tt::ScanOp, tt::MapElementwiseOp>(op)) continue;
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments()) consider(arg, nullptr, loc);
    }
  });
}

void FunctionAnalyzer::liveness_block(mlir::Block &block, const std::vector<int> &outer) {
  // Position of each op; last position that uses each tile value, and
  // positions of ops whose nested regions use it.
  llvm::DenseMap<Operation *, size_t> position;
  size_t pos = 0;
  for (Operation &op : block) position[&op] = pos++;
  struct Use {
    long def = -1;  // -1: a block argument, live from the block's start
    size_t last = 0;
    std::vector<size_t> nested;
  };
  std::map<int, Use> uses;
  auto track = [&](Value v, long def_pos) {
    auto it = tile_of_.find(v);
    if (it == tile_of_.end()) return;
    Use u;
    u.def = def_pos;
    u.last = def_pos < 0 ? 0 : static_cast<size_t>(def_pos);
    for (mlir::OpOperand &use : v.getUses()) {
      Operation *user = block.findAncestorOpInBlock(*use.getOwner());
      if (user == nullptr) continue;
      size_t p = position[user];
      u.last = std::max(u.last, p);
      if (user != use.getOwner()) u.nested.push_back(p);
    }
    uses[it->second] = std::move(u);
  };
  for (mlir::BlockArgument arg : block.getArguments()) track(arg, -1);
  for (Operation &op : block)
    for (Value r : op.getResults()) track(r, static_cast<long>(position[&op]));

  auto push_point = [&](std::vector<int> live, Operation *op) {
    if (live.empty()) return;
    std::sort(live.begin(), live.end());
    live.erase(std::unique(live.begin(), live.end()), live.end());
    if (!model_.live_points.empty() && model_.live_points.back().tiles == live) return;
    model_.live_points.push_back({std::move(live), loc_of(op)});
  };
  for (Operation &op : block) {
    size_t p = position[&op];
    std::vector<int> live = outer;
    std::vector<int> into_regions = outer;
    // Values that die here and become a result share its buffer: the
    // accumulator of a dot (the cube accumulates in place) and the initial
    // values of a loop's carried tiles.
    std::vector<int> in_place;
    auto share = [&](Value v) {
      auto it = tile_of_.find(v);
      if (it != tile_of_.end()) in_place.push_back(it->second);
    };
    if (is_cube_op(&op) && op.getNumOperands() > 2) share(op.getOperand(2));
    if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(op))
      for (Value init : for_op.getInitArgs()) share(init);
    for (const auto &[tile, u] : uses) {
      bool nested_here = std::find(u.nested.begin(), u.nested.end(), p) != u.nested.end();
      if (u.last == p && std::find(in_place.begin(), in_place.end(), tile) != in_place.end() &&
          u.def < static_cast<long>(p)) {
        if (nested_here) into_regions.push_back(tile);  // still read inside the loop
        continue;
      }
      if (u.def == static_cast<long>(p)) {
        live.push_back(tile);  // a result of this op
        continue;
      }
      if (u.def > static_cast<long>(p)) continue;
      if (u.last >= p) live.push_back(tile);
      if (u.last > p || nested_here) into_regions.push_back(tile);
    }
    push_point(live, &op);
    for (mlir::Region &region : op.getRegions()) {
      if (llvm::isa<tt::ReduceOp, tt::ScanOp, tt::MapElementwiseOp>(op)) continue;
      for (mlir::Block &inner : region) liveness_block(inner, into_regions);
    }
  }
}

//===----------------------------------------------------------------------===//
// Text helpers
//===----------------------------------------------------------------------===//

/// A pre-3.0 printed form, if the text has one: `!tt.ptr<T, 1>` (3.x elides
/// address space 1), `allowTF32`, or `tt.splat %x : (T) -> ...`.
std::optional<std::string> legacy_marker(std::string_view text) {
  int line = 1;
  size_t line_start = 0;
  for (size_t idx = 0; idx <= text.size(); ++idx) {
    if (idx < text.size() && text[idx] != '\n') continue;
    std::string_view l = text.substr(line_start, idx - line_start);
    size_t first = l.find_first_not_of(" \t");
    bool comment = first != std::string_view::npos && l.substr(first, 2) == "//";
    if (!comment) {
      if (l.find(", 1>") != std::string_view::npos && l.find("!tt.ptr<") != std::string_view::npos)
        return "line " + std::to_string(line) + ": '!tt.ptr<T, 1>' (Triton 3.x elides address space 1)";
      if (l.find("allowTF32") != std::string_view::npos)
        return "line " + std::to_string(line) + ": 'allowTF32' (3.x prints inputPrecision)";
      size_t splat = l.find("tt.splat");
      if (splat != std::string_view::npos && l.find(": (", splat) != std::string_view::npos)
        return "line " + std::to_string(line) + ": 'tt.splat %x : (T) -> ...' (3.x prints ': T -> ...')";
    }
    ++line;
    line_start = idx + 1;
  }
  return std::nullopt;
}

int count_lines_before(std::string_view text, size_t offset) {
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n')) + 1;
}

}  // namespace

ExprNamer KernelModel::namer() const {
  ExprNamer n;
  n.arg = [this](int idx) {
    return idx >= 0 && static_cast<size_t>(idx) < args.size() ? args[static_cast<size_t>(idx)].key()
                                                              : "%arg" + std::to_string(idx);
  };
  n.loop_iter = [](int loop) { return "t" + std::to_string(loop); };
  return n;
}

namespace {

/// Triton >= 3.2 prints `llvm.intr.assume %c : i1` (the custom form of LLVM
/// 20+); MLIR 19's LLVM dialect reads only the generic form, so that one line
/// is rewritten to `"llvm.intr.assume"(%c) : (i1) -> ()`, keeping its
/// indentation and trailing location. Any other spelling is left for MLIR to
/// diagnose.
void append_assume_generic(std::string &out, std::string_view line) {
  size_t op = line.find("llvm.intr.assume");
  size_t pos = op + 16;
  auto skip_space = [&]() {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  };
  skip_space();
  size_t value_start = pos;
  if (pos >= line.size() || line[pos] != '%') {
    out.append(line.data(), line.size());
    return;
  }
  while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t' && line[pos] != ':') ++pos;
  std::string_view value = line.substr(value_start, pos - value_start);
  skip_space();
  if (line.substr(pos, 1) != ":") {
    out.append(line.data(), line.size());
    return;
  }
  ++pos;
  skip_space();
  if (line.substr(pos, 2) != "i1" || (pos + 2 < line.size() && line[pos + 2] != ' ' && line[pos + 2] != '\r')) {
    out.append(line.data(), line.size());
    return;
  }
  pos += 2;
  out.append(line.data(), op);
  out += "\"llvm.intr.assume\"(";
  out.append(value.data(), value.size());
  out += ") : (i1) -> ()";
  out.append(line.data() + pos, line.size() - pos);
}

/// Index of the last `sep` outside <>, (), [], {} and strings in `text`
/// (npos when none).
size_t last_top_level(std::string_view text, std::string_view sep) {
  int depth = 0;
  bool quoted = false;
  size_t found = std::string_view::npos;
  for (size_t idx = 0; idx < text.size(); ++idx) {
    char c = text[idx];
    if (quoted) {
      if (c == '\\') ++idx;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == '>' && (idx == 0 || text[idx - 1] != '-')) || c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && text.substr(idx, sep.size()) == sep) found = idx;
  }
  return found;
}

/// Splits `text` at top-level commas, trimmed.
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t comma = std::string_view::npos;
    int depth = 0;
    for (size_t idx = 0; idx < text.size() && comma == std::string_view::npos; ++idx) {
      char c = text[idx];
      if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
      else if ((c == '>' && (idx == 0 || text[idx - 1] != '-')) || c == ')' || c == ']' || c == '}') --depth;
      else if (c == ',' && depth == 0) comma = idx;
    }
    std::string_view part = text.substr(0, comma);
    size_t first = part.find_first_not_of(" \t");
    size_t last = part.find_last_not_of(" \t\r");
    parts.push_back(first == std::string_view::npos ? std::string_view() : part.substr(first, last - first + 1));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return parts;
}

/// One printed op line whose op belongs to a dialect not in `known`, in
/// MLIR's generic form, so that an MLIR context that allows unregistered
/// dialects reads it as an opaque op: `%r = ttg.foo %a : T loc(#l)` becomes
/// `%r = "ttg.foo"() : () -> (T) loc(#l)` (operands dropped: the analysis
/// treats the op as opaque). nullopt when the line is not such an op or its
/// result types cannot be read (MLIR then reports the line).
std::optional<std::string> generic_form_of_unknown_op(std::string_view line, const std::set<std::string> &known) {
  size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(first);
  // Results: %a, %b:2 =
  int results = 0;
  std::string_view results_text;
  if (!rest.empty() && rest.front() == '%') {
    size_t eq = rest.find(" = ");
    if (eq == std::string_view::npos) return std::nullopt;
    results_text = rest.substr(0, eq);
    for (std::string_view r : split_top_level(results_text)) {
      if (r.empty() || r.front() != '%') return std::nullopt;
      size_t colon = r.find(':');
      results += colon == std::string_view::npos ? 1 : std::max(1, std::atoi(std::string(r.substr(colon + 1)).c_str()));
    }
    rest.remove_prefix(eq + 3);
  }
  size_t name_end = 0;
  while (name_end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[name_end])) != 0 ||
                                    rest[name_end] == '_' || rest[name_end] == '.' || rest[name_end] == '$'))
    ++name_end;
  std::string_view name = rest.substr(0, name_end);
  size_t dot = name.find('.');
  if (name.empty() || dot == std::string_view::npos || dot == 0 || std::isalpha(static_cast<unsigned char>(name[0])) == 0)
    return std::nullopt;
  if (known.count(std::string(name.substr(0, dot))) != 0) return std::nullopt;
  std::string_view body = rest.substr(name_end);
  while (!body.empty() && (body.back() == '\r' || body.back() == ' ' || body.back() == '\t')) body.remove_suffix(1);
  if (!body.empty() && body.back() == '{') return std::nullopt;  // an op with regions: not rewritten
  std::string_view loc;
  size_t at = last_top_level(body, " loc(");
  if (at != std::string_view::npos && body.back() == ')') {
    loc = body.substr(at);
    body = body.substr(0, at);
  }
  std::string types;
  if (results > 0) {
    size_t colon = last_top_level(body, ":");
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view type_text = body.substr(colon + 1);
    size_t arrow = last_top_level(type_text, "->");
    if (arrow != std::string_view::npos) type_text = type_text.substr(arrow + 2);
    size_t t0 = type_text.find_first_not_of(" \t");
    if (t0 == std::string_view::npos) return std::nullopt;
    type_text = type_text.substr(t0);
    while (!type_text.empty() && type_text.back() == ' ') type_text.remove_suffix(1);
    if (type_text.size() >= 2 && type_text.front() == '(' && type_text.back() == ')')
      type_text = type_text.substr(1, type_text.size() - 2);
    std::vector<std::string_view> list = split_top_level(type_text);
    if (static_cast<int>(list.size()) != results) return std::nullopt;
    for (std::string_view t : list) {
      if (t.empty()) return std::nullopt;
      types += (types.empty() ? "" : ", ") + std::string(t);
    }
  }
  std::string out(line.substr(0, first));
  if (results > 0) out += std::string(results_text) + " = ";
  out += "\"" + std::string(name) + "\"() : () -> (" + types + ")" + std::string(loc);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, int>> split_sections(std::string_view text) {
  std::vector<std::pair<std::string, int>> sections;
  std::string current;
  int current_first = 1;
  bool has_code = false;
  int line = 1;
  size_t start = 0;
  auto flush = [&]() {
    if (has_code) sections.emplace_back(std::move(current), current_first);
    current.clear();
    has_code = false;
  };
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(start, end - start);
    size_t first = l.find_first_not_of(" \t\r");
    std::string_view trimmed = first == std::string_view::npos ? std::string_view() : l.substr(first);
    if (trimmed.substr(0, 8) == "// -----") {
      flush();
      current.assign(static_cast<size_t>(line), '\n');  // keeps line numbers
      current_first = line + 1;
    } else {
      if (!trimmed.empty() && trimmed.substr(0, 2) != "//") has_code = true;
      if (trimmed.substr(0, 16) == "llvm.intr.assume")
        append_assume_generic(current, l);
      else
        current.append(l.data(), l.size());
      current.push_back('\n');
    }
    if (end == text.size()) break;
    start = end + 1;
    ++line;
  }
  flush();
  return sections;
}

namespace {

/// "origin:line:col: error: ..." for the first byte that is not UTF-8.
std::optional<std::string> invalid_utf8(std::string_view text, const std::string &origin) {
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data());
  const llvm::UTF8 *at = begin;
  if (llvm::isLegalUTF8String(&at, begin + text.size())) return std::nullopt;
  const size_t offset = static_cast<size_t>(at - begin);
  const size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t col = line_start == std::string_view::npos || offset == 0 ? offset + 1 : offset - line_start;
  static const char *hex = "0123456789ABCDEF";
  const auto byte = static_cast<unsigned char>(text[offset]);
  return origin + ":" + std::to_string(count_lines_before(text, offset)) + ":" + std::to_string(col) +
         ": error: invalid UTF-8: byte 0x" + hex[byte >> 4] + hex[byte & 15] + " (the text must be UTF-8)";
}

/// "origin:line:col: error: ..." where brackets ( [ { < nest deeper than
/// kMaxTtirNesting, outside strings and comments. MLIR's parser recurses on
/// nested regions, attributes, types and locations without a limit of its own.
std::optional<std::string> too_deep(std::string_view text, const std::string &origin) {
  size_t depth = 0;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxTtirNesting)
        return origin + ":" + std::to_string(line) + ":" + std::to_string(i - line_start + 1) +
               ": error: brackets nested deeper than " + std::to_string(kMaxTtirNesting) + " levels (depth " +
               std::to_string(depth) + " at line " + std::to_string(line) + ")";
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0 && !(c == '>' && i > 0 && text[i - 1] == '-')) {
      --depth;
    }
  }
  return std::nullopt;
}

Expected<TtirModule> analyze_ttir_on_this_thread(std::string_view text, const std::string &origin);

}  // namespace

Expected<TtirModule> analyze_ttir(std::string_view text, const std::string &origin) {
  if (auto error = invalid_utf8(text, origin)) return Error{*error};
  if (auto error = too_deep(text, origin)) return Error{*error};
  // MLIR parses recursively: on a thread whose stack holds kMaxTtirNesting
  // levels of it with room to spare (a level takes a few kB).
  std::optional<Expected<TtirModule>> result;
  llvm::thread worker(std::optional<unsigned>(kTtirParseStackBytes), [&] { result.emplace(analyze_ttir_on_this_thread(text, origin)); });
  worker.join();
  return std::move(*result);
}

namespace {

Expected<TtirModule> analyze_ttir_on_this_thread(std::string_view text, const std::string &origin) {
  TtirModule module;
  module.origin = origin;
  mlir::DialectRegistry registry;
  tt::register_ttir_dialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Ops of dialects we do not register (`ttg.barrier local`, printed for
  // tl.debug_barrier() by Triton >= 3.5) are read as opaque ops.
  context.allowUnregisteredDialects();
  std::set<std::string> known_dialects{"builtin"};
  for (llvm::StringRef name : registry.getDialectNames()) known_dialects.insert(name.str());
  std::map<std::string, size_t> name_seen;  // duplicate kernel names across sections
  for (auto &[section, first_line] : split_sections(text)) {
    {
      std::string rewritten;
      rewritten.reserve(section.size());
      size_t start = 0;
      while (start < section.size()) {
        size_t end = section.find('\n', start);
        if (end == std::string::npos) end = section.size();
        std::string_view l(section.data() + start, end - start);
        if (auto generic = generic_form_of_unknown_op(l, known_dialects))
          rewritten += *generic;
        else
          rewritten.append(l.data(), l.size());
        if (end < section.size()) rewritten.push_back('\n');
        start = end + 1;
      }
      section = std::move(rewritten);
    }
    std::string diagnostics;
    llvm::raw_string_ostream diag_stream(diagnostics);
    llvm::SourceMgr source_mgr;
    source_mgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(section, origin, /*RequiresNullTerminator=*/false),
                                  llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(source_mgr, &context, diag_stream);
    mlir::ParserConfig config(&context);
    // The parser state records where each op is written: its TTIR line.
    mlir::AsmParserState state;
    mlir::Block block;
    mlir::OwningOpRef<mlir::ModuleOp> parsed;
    if (mlir::succeeded(mlir::parseAsmSourceFile(source_mgr, &block, config, &state)))
      parsed = mlir::detail::constructContainerOpForParserIfNecessary<mlir::ModuleOp>(
          &block, &context, mlir::FileLineColLoc::get(&context, origin, 0, 0));
    if (!parsed) {
      std::string message = diag_stream.str();
      while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
      if (message.empty()) message = origin + ":" + std::to_string(first_line) + ": error: the TTIR does not parse";
      if (auto marker = legacy_marker(text))
        message = origin + ": error: pre-3.0 TTIR is not supported (" + *marker +
                  "); re-dump the kernel with Triton 3.0 or newer\n" + message;
      return Error{message};
    }
    // What MLIR's scf.for verifier checks only for `index` constants: a
    // step that is a constant is positive (TTIR steps are i32).
    std::optional<std::string> step_error;
    parsed->walk([&](mlir::scf::ForOp loop) {
      llvm::APInt step;
      if (step_error || !mlir::matchPattern(loop.getStep(), mlir::m_ConstantInt(&step)) || step.isStrictlyPositive())
        return;
      loop.emitOpError() << "has a constant step of " << llvm::toString(step, 10, /*Signed=*/true) << ": a loop step must be positive";
      step_error = diag_stream.str();
    });
    if (step_error) {
      while (!step_error->empty() && (step_error->back() == '\n' || step_error->back() == ' ')) step_error->pop_back();
      return Error{*step_error};
    }
    ++module.chunks;
    llvm::StringRef buffer_name(origin);
    parsed->walk([&](tt::FuncOp func) {
      KernelModel model;
      FunctionAnalyzer analyzer(model, buffer_name, [&](Operation *op) {
        const mlir::AsmParserState::OperationDefinition *def = state.getOpDef(op);
        return def != nullptr ? static_cast<int>(source_mgr.getLineAndColumn(def->loc.Start).first) : 0;
      });
      analyzer.run(func);
      // The TTIR line of `tt.func ... @name(`: the k-th occurrence for the
      // k-th function of that name (lit files repeat names).
      std::string needle = "@" + model.name + "(";
      size_t occurrence = name_seen[model.name]++;
      size_t at = 0;
      for (size_t found = 0;; ++found) {
        at = text.find(needle, at);
        if (at == std::string_view::npos || found == occurrence) break;
        at += needle.size();
      }
      if (at != std::string_view::npos) model.ttir_line = count_lines_before(text, at);
      module.kernels.push_back(std::move(model));
    });
  }
  return module;
}

}  // namespace

}  // namespace perfbound::ttir
