//===- function_unit.cpp - shared state of one tt.func walk ---------------===//
#include "function_unit.hpp"

#include <algorithm>
#include <unordered_map>

#include <llvm/Support/raw_ostream.h>

namespace perfbound::ttir {

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

namespace {

/// One shared copy of each location text: the ops written at the same Python
/// line (and every copy of a repeated body) share it. The table is per
/// thread, and analyze_ttir parses and analyses on a thread of its own, so
/// it lives as long as one analysis.
SharedText interned(std::string text) {
  if (text.empty()) return {};
  thread_local std::unordered_map<std::string, SharedText> table;
  auto [it, inserted] = table.try_emplace(text);
  if (inserted) it->second = SharedText(std::move(text));
  return it->second;
}

}  // namespace

SourceLoc to_source(mlir::Location loc, llvm::StringRef buffer_name, bool with_python) {
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
      out.file = interned(file.getFilename().str());
      out.line = static_cast<int>(file.getLine());
      out.col = static_cast<int>(file.getColumn());
      out.in_ttir = file.getFilename() == buffer_name;
    }
    break;
  }
  if (with_python) out.python = interned(python_loc(loc, buffer_name));
  return out;
}

bool is_cube_op(Operation *op) { return llvm::isa<tt::DotOp, tt::DotScaledOp>(op); }

bool is_layout_only(Operation *op) {
  return llvm::isa<tt::TransOp, tt::ReshapeOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::AnnotationOp>(op);
}

namespace {

const char *kTranscendental[] = {"exp",  "exp2", "expm1", "log",  "log2", "log10", "log1p", "sqrt", "rsqrt",
                                 "cbrt", "sin",  "cos",   "tan",  "tanh", "sinh",  "cosh",  "asin", "acos",
                                 "atan", "atan2", "erf",  "erfc", "pow",  "powf",  "fpowi", "ipowi"};

}  // namespace

bool is_transcendental_name(llvm::StringRef name) {
  for (const char *t : kTranscendental)
    if (name == t) return true;
  return false;
}

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

void FunctionUnit::unresolved(const std::string &what, const std::string &reason, const SourceLoc &loc,
                                  std::string hint) {
  if (!unresolved_seen_.insert(what + "\n" + reason).second) return;
  model_.unresolved.push_back({what, reason, loc.line, loc.ttir_line, loc.python, std::move(hint)});
}

void FunctionUnit::not_counted(Operation *op, const std::string &reason) {
  model_.not_counted.push_back({op->getName().getStringRef().str(), reason, loc_of(op)});
}

VInfo FunctionUnit::info(Value v) {
  auto it = values_.find(v);
  if (it != values_.end()) return it->second;
  VInfo i;
  if (is_integer_like(v.getType())) {
    i.kind = VKind::Int;
    i.expr = pool_.opaque("a value the analysis does not model", 0);
  }
  return i;
}

ExprId FunctionUnit::int_expr(Value v) {
  VInfo i = info(v);
  if (i.kind == VKind::Int && i.expr != kNoExpr) return i.expr;
  int line = 0;
  if (Operation *def = v.getDefiningOp()) line = line_of(def);
  return pool_.opaque("a value computed from data (not an index expression)", line);
}

ExprId FunctionUnit::canonical_dims(ExprId e, Type type) {
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

void FunctionUnit::set(Value v, VInfo i) {
  if ((i.kind == VKind::Int || i.kind == VKind::Ptr) && i.expr != kNoExpr && pool_.height(i.expr) > kMaxExprHeight) {
    Operation *def = v.getDefiningOp();
    i.expr = pool_.opaque(std::string(kTooDeepReason) + " (more than " + std::to_string(kMaxExprHeight) +
                              " operations deep)",
                          def != nullptr ? line_of(def) : 0, dims_mask(v.getType()));
  }
  values_[v] = i;
}

void FunctionUnit::set_int(Value v, ExprId e) {
  VInfo i;
  i.kind = VKind::Int;
  i.expr = canonical_dims(e, v.getType());
  set(v, i);
}

void FunctionUnit::set_unknown(Value v, const std::string &reason, Operation *op) {
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

namespace {

/// Appends a block-pointer or descriptor record; the value refers to it.
template <class Record>
VInfo add_record(std::vector<Record> &records, VKind kind, Record r) {
  VInfo v;
  v.kind = kind;
  v.index = static_cast<int>(records.size());
  records.push_back(std::move(r));
  return v;
}

}  // namespace

VInfo FunctionUnit::add_block_ptr(BlockPtrInfo b) { return add_record(block_ptrs_, VKind::BlockPtr, std::move(b)); }

VInfo FunctionUnit::add_desc(DescInfo d) { return add_record(descs_, VKind::Desc, std::move(d)); }

std::pair<int, ExprId> FunctionUnit::base_of(Value ptr, Operation *op) {
  VInfo base = info(ptr);
  if (base.kind == VKind::Ptr) return {base.base, base.expr};
  return {-1, pool_.opaque("unknown base pointer", line_of(op))};
}

}  // namespace perfbound::ttir
