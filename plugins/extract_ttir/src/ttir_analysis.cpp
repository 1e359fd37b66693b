//===- ttir_analysis.cpp - parse TTIR and model its kernels (MLIR) --------===//
//
// The driver of the TTIR front end. analyze_ttir checks the text
// (ttir_text.hpp), parses every `// -----` section with MLIR's real parser
// and our `tt` dialect (the parser state gives each op its TTIR line), and
// models every tt.func with a FunctionAnalyzer: the signature (arguments,
// their kinds and divisibility), then one walk over the ops in order that
// hands each op to its unit (function_unit.hpp lists them; multi-block
// bodies from early returns run each block under the condition of its
// incoming edges), then the tiles and their liveness. The result is a plain
// KernelModel (kernel_model.hpp).
//
// The MLIR units (this file, function_unit.cpp, value_rules.cpp,
// loop_analysis.cpp, access_analysis.cpp, compute_analysis.cpp,
// tile_analysis.cpp) build as one unity translation unit.
//
//===----------------------------------------------------------------------===//
#include "ttir_analysis.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <perfbound/sdk/cancel.hpp>

#include "access_analysis.hpp"
#include "compute_analysis.hpp"
#include "loop_analysis.hpp"
#include "tile_analysis.hpp"
#include "ttir_text.hpp"
#include "value_rules.hpp"

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/thread.h>
#include <mlir/AsmParser/AsmParser.h>
#include <mlir/AsmParser/AsmParserState.h>
#include <mlir/Dialect/ControlFlow/IR/ControlFlowOps.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/Matchers.h>
#include <mlir/IR/Verifier.h>
#include <mlir/Parser/Parser.h>

namespace perfbound::ttir {

namespace {

/// Owns the FunctionState; a base so that it is built before FunctionUnit.
struct FunctionStateOwner {
  FunctionState state;
};

/// Models one tt.func: the signature, then the walk (see the file comment).
class FunctionAnalyzer : private FunctionStateOwner, public FunctionUnit {
 public:
  FunctionAnalyzer(KernelModel &model, llvm::StringRef buffer_name, std::function<int(Operation *)> ttir_line_of)
      : FunctionStateOwner{FunctionState(model, buffer_name, std::move(ttir_line_of))},
        FunctionUnit(state),
        compute_(state, addresses_),
        value_rules_(state, compute_),
        loops_(state, [this](mlir::Block &block) { walk_block(block); }),
        accesses_(state),
        tiles_(state, addresses_) {}

  void run(tt::FuncOp func);

 private:
  void walk_region_cfg(mlir::Region &region);
  void walk_block(mlir::Block &block);
  void visit(Operation *op);

  AddressUses addresses_;
  ComputeAnalysis compute_;
  ValueRules value_rules_;
  LoopAnalysis loops_;
  AccessAnalysis accesses_;
  TileAnalysis tiles_;
};

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
  tiles_.collect_tiles(func);
  tiles_.liveness_block(entry, {});
  for (size_t b = 1; b < func.getBody().getBlocks().size(); ++b)
    tiles_.liveness_block(*std::next(func.getBody().begin(), static_cast<long>(b)), {});
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
  for (Operation &op : block) {
    pb::sdk::poll_cancel();  // one large function stops within a poll of Ctrl-C (issue 27)
    visit(&op);
  }
}

void FunctionAnalyzer::visit(Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  if (name.starts_with("arith.")) return value_rules_.visit_arith(op, name);
  if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(op)) return loops_.visit_for(for_op);
  if (auto if_op = llvm::dyn_cast<mlir::scf::IfOp>(op)) return loops_.visit_if(if_op);
  if (auto while_op = llvm::dyn_cast<mlir::scf::WhileOp>(op)) return loops_.visit_while(while_op);
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
    return value_rules_.visit_shape(op, name);
  if (llvm::isa<tt::LoadOp, tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp, tt::GatherLoadOp>(op))
    return accesses_.visit_memory(op);
  if (llvm::isa<tt::DescriptorLoadOp, tt::ExperimentalDescriptorLoadOp, tt::DescriptorStoreOp,
                tt::ExperimentalDescriptorStoreOp, tt::DescriptorGatherOp, tt::ExperimentalDescriptorGatherOp,
                tt::DescriptorScatterOp, tt::ExperimentalDescriptorScatterOp, tt::DescriptorReduceOp>(op))
    return accesses_.visit_descriptor(op);
  if (is_cube_op(op)) return compute_.visit_dot(op);
  if (llvm::isa<tt::ReduceOp>(op)) return compute_.visit_reduce_like(op, OpClass::Reduction);
  if (llvm::isa<tt::ScanOp>(op)) return compute_.visit_reduce_like(op, OpClass::Scan);
  if (llvm::isa<tt::MapElementwiseOp>(op)) return compute_.visit_reduce_like(op, OpClass::Vector);
  if (name.starts_with("math.")) {
    llvm::StringRef fn = name.drop_front(5);
    compute_.classify_elementwise(op, is_transcendental_name(fn), fn.str());
    for (Value r : op->getResults()) set_unknown(r, "a value computed by " + name.str(), op);
    return;
  }
  if (auto ext = llvm::dyn_cast<tt::ExternElementwiseOp>(op)) {
    std::string fn = transcendental_in_symbol(ext.getSymbol());
    compute_.classify_elementwise(op, !fn.empty(), ext.getSymbol().str());
    return set_unknown(ext.getResult(), "a value computed by " + ext.getSymbol().str(), op);
  }
  if (llvm::isa<tt::PreciseSqrtOp>(op)) {
    compute_.classify_elementwise(op, true, "sqrt");
    return set_unknown(op->getResult(0), "a float value", op);
  }
  if (llvm::isa<tt::PreciseDivFOp, tt::ClampFOp, tt::FpToFpOp, tt::MulhiUIOp, tt::ElementwiseInlineAsmOp, tt::ModOp>(op)) {
    compute_.classify_elementwise(op, false);
    for (Value r : op->getResults()) set_unknown(r, "a value computed by " + name.str(), op);
    return;
  }
  if (llvm::isa<tt::CatOp, tt::JoinOp, tt::SplitOp, tt::GatherOp, tt::HistogramOp, tt::SortOp>(op)) {
    Type t = op->getResult(0).getType();
    compute_.add_compute(op, OpClass::Layout, type_text(element_of(t)), product(shape_of(t)) * op->getNumResults(), 0);
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
  if (auto call = llvm::dyn_cast<tt::CallScalarOp>(op)) {
    // A scalar helper (AscendNPU-IR's fast division): its body is elsewhere.
    const std::string callee = call.getCallee().str();
    unresolved("tt.call_scalar @" + callee, "a call of a scalar helper function: its work is not counted", loc_of(op));
    not_counted(op, "a call of the scalar helper @" + callee + ": its work is not counted");
    for (Value r : op->getResults()) set_unknown(r, "the result of tt.call_scalar @" + callee, op);
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

Expected<TtirModule> analyze_ttir_on_this_thread(std::string_view text, const std::string &origin, bool split);

}  // namespace

Expected<TtirModule> analyze_ttir(std::string_view text, const std::string &origin, SplitMode split) {
  if (auto error = invalid_utf8(text, origin)) return Error{*error};
  const bool split_on = split == SplitMode::On || (split == SplitMode::Auto && has_split_marker(text));
  // MLIR parses recursively: on a thread whose stack holds kMaxTtirNesting
  // levels of it with room to spare (a level takes a few kB).
  std::optional<Expected<TtirModule>> result;
  // The analysis polls for a stop request (pb::sdk::poll_cancel) on that thread too.
  std::function<bool()> cancel_test = pb::sdk::cancel_test_of_this_thread();
  std::exception_ptr failure;
  llvm::thread worker(std::optional<unsigned>(kTtirParseStackBytes), [&] {
    pb::sdk::CancelScope cancel_scope(cancel_test);
    try {
      result.emplace(analyze_ttir_on_this_thread(text, origin, split_on));
    } catch (...) {
      failure = std::current_exception();  // a cancellation, rethrown on the caller's thread
    }
  });
  worker.join();
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

namespace {

std::string trimmed_message(std::string message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

/// One `// -----` section through MLIR: parsed without the verifier, a
/// function that does not parse is blanked out (its lines kept) and the rest
/// parsed again; then every tt.func is verified on its own, symbols defined
/// twice are refused, and the functions left are handed to `analyze`.
class SectionReader {
 public:
  SectionReader(mlir::MLIRContext &context, const std::string &origin, TtirModule &module, std::string text,
                int first_line)
      : context_(context), origin_(origin), module_(module), text_(std::move(text)), first_line_(first_line) {}

  /// Reads the section; false when nothing of it could be parsed.
  bool read();
  /// The functions left, each with its TTIR line.
  std::vector<std::pair<tt::FuncOp, int>> functions();
  /// The TTIR line of an op (0 when unknown).
  int line_of(Operation *op) const { return ttir_lines_.lookup(op); }

 private:
  bool parse();
  void refuse(const FuncExtent &f, std::string message);
  void refuse_rest(const std::string &message, int line);
  std::string func_message(tt::FuncOp func, int line, const std::string &diagnostic) const;

  mlir::MLIRContext &context_;
  const std::string &origin_;
  TtirModule &module_;
  std::string text_;
  int first_line_;
  std::vector<FuncExtent> extents_;
  std::set<int> refused_lines_;  // tt.func lines already refused
  // The source manager of the parse that succeeded: the verifier's
  // diagnostics quote its lines. Both are freed before the analysis.
  std::unique_ptr<llvm::SourceMgr> source_mgr_;
  mlir::OwningOpRef<mlir::ModuleOp> parsed_;
  llvm::DenseMap<Operation *, int> ttir_lines_;
  llvm::DenseMap<Operation *, int> ttir_columns_;  // for the verifier's diagnostics
};

void SectionReader::refuse(const FuncExtent &f, std::string message) {
  if (!refused_lines_.insert(f.first_line).second) return;
  module_.refused.push_back({f.name, f.is_public, f.first_line, first_line_, trimmed_message(std::move(message))});
}

/// Refuses every function of the section not refused yet (an error outside
/// all of them); a section without any is refused as itself.
void SectionReader::refuse_rest(const std::string &message, int line) {
  bool any = false;
  for (const FuncExtent &f : extents_) {
    if (refused_lines_.count(f.first_line) != 0) continue;
    refuse(f, message);
    any = true;
  }
  if (!any && extents_.empty()) module_.refused.push_back({"", true, line, first_line_, trimmed_message(message)});
}

std::string SectionReader::func_message(tt::FuncOp func, int line, const std::string &diagnostic) const {
  // MLIR names the op's own location: a Python line when the TTIR carries
  // locations. The refusal names the tt.func's TTIR line first.
  std::string head = origin_ + ":" + std::to_string(line) + ": error: tt.func @" + func.getSymName().str();
  if (diagnostic.rfind(origin_ + ":", 0) == 0) return diagnostic;
  return head + " is refused:\n" + diagnostic;
}

bool SectionReader::parse() {
  // Parsed with the parser state, which records where every op and every
  // use of a value is written; only each op's TTIR line is kept from it
  // (a table of op -> line), so that the state is freed before the
  // analysis (the largest of the transient costs at the peak, issue 17).
  for (size_t attempt = 0; attempt <= extents_.size(); ++attempt) {
    std::string diagnostics;
    llvm::raw_string_ostream diag_stream(diagnostics);
    auto source_mgr = std::make_unique<llvm::SourceMgr>();
    source_mgr->AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(text_, origin_, /*RequiresNullTerminator=*/false), llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler handler(*source_mgr, &context_, diag_stream);
    mlir::ParserConfig config(&context_, /*verifyAfterParse=*/false);
    mlir::AsmParserState state;
    mlir::Block block;
    if (mlir::succeeded(mlir::parseAsmSourceFile(*source_mgr, &block, config, &state))) {
      // One module holds the section (a section may hold several, or none:
      // top-level tt.func ops). Not verified here: see functions().
      if (llvm::hasSingleElement(block) && llvm::isa<mlir::ModuleOp>(block.front())) {
        parsed_ = llvm::cast<mlir::ModuleOp>(block.front());
        parsed_->getOperation()->remove();
      } else {
        mlir::OpBuilder builder(&context_);
        parsed_ = builder.create<mlir::ModuleOp>(mlir::FileLineColLoc::get(&context_, origin_, 0, 0));
        parsed_->getBody()->getOperations().splice(parsed_->getBody()->begin(), block.getOperations());
      }
      parsed_->walk([&](Operation *op) {
        if (const mlir::AsmParserState::OperationDefinition *def = state.getOpDef(op)) {
          const auto [op_line, op_column] = source_mgr->getLineAndColumn(def->loc.Start);
          ttir_lines_[op] = static_cast<int>(op_line);
          ttir_columns_[op] = static_cast<int>(op_column);
        }
      });
      source_mgr_ = std::move(source_mgr);
      return true;
    }
    std::string message = shorten_lines(trimmed_message(diag_stream.str()));
    if (message.empty()) message = origin_ + ":" + std::to_string(first_line_) + ": error: the TTIR does not parse";
    // A HIVM dump gets that said instead of MLIR's diagnostic (which only
    // echoes the first line it could not read: the signature, hundreds of
    // columns); the line the parser stopped at still decides which function
    // is refused. Pre-3.0 TTIR keeps MLIR's diagnostic: it names the first
    // construct the new syntax cannot read.
    const int parser_line = diagnostic_line(message, origin_);
    if (auto marker = legacy_marker(text_))
      message = origin_ + ": error: pre-3.0 TTIR is not supported (" + *marker +
                "); re-dump the kernel with Triton 3.0 or newer\n" + message;
    else if (auto hivm = hivm_marker(text_))
      message = origin_ + ": error: this is a HIVM dump (kernel.npuir.mlir), not TTIR (" + *hivm +
                "): give it as --set hivm=" + origin_ + " and the TTIR (kernel.ttir.mlir, tt.func) as --set ttir=...";
    else if (message.find("error: expected '<'") != std::string::npos && has_bare_pointer(text_))
      message += "\n" + origin_ +
                 ": note: `!tt.ptr` without its pointee type is not TTIR: Triton's own parser, like this one, "
                 "requires `!tt.ptr<T>`";
    // The function the error is in is refused and blanked out (its lines
    // kept, so that the lines of the others stay those of the file).
    const int line = parser_line;
    const FuncExtent *culprit = nullptr;
    for (const FuncExtent &f : extents_)
      if (line >= f.first_line && line <= f.last_line && refused_lines_.count(f.first_line) == 0) culprit = &f;
    if (culprit == nullptr) {
      refuse_rest(message, line > 0 ? line : first_line_);
      return false;
    }
    refuse(*culprit, message);
    int l = 1;
    for (char &c : text_) {
      if (c == '\n') ++l;
      else if (l >= culprit->first_line && l <= culprit->last_line) c = ' ';
    }
  }
  refuse_rest(origin_ + ":" + std::to_string(first_line_) + ": error: the section does not parse", first_line_);
  return false;
}

bool SectionReader::read() {
  extents_ = function_extents(text_);
  // MLIR's parser recurses on nesting without a limit of its own.
  if (auto error = too_deep(text_, origin_)) {
    refuse_rest(*error, diagnostic_line(*error, origin_));
    return false;
  }
  return parse();
}

std::vector<std::pair<tt::FuncOp, int>> SectionReader::functions() {
  // Diagnostics of the verifier name the op's location (the TTIR line where
  // the op carries no location of its own).
  std::string diagnostics;
  llvm::raw_string_ostream diag_stream(diagnostics);
  std::optional<mlir::SourceMgrDiagnosticHandler> handler;
  handler.emplace(*source_mgr_, &context_, diag_stream);
  auto take = [&]() {
    // The diagnostics quote the TTIR line of the op (see below): a long
    // quoted line is cut, as the parser's are; the diagnostic lines
    // themselves ("file:line:col: error: ...") stay whole.
    std::string message;
    const std::string raw = trimmed_message(diag_stream.str());
    for (size_t start = 0; start <= raw.size();) {
      size_t end = raw.find('\n', start);
      if (end == std::string::npos) end = raw.size();
      const std::string line = raw.substr(start, end - start);
      message += line.rfind(origin_ + ":", 0) == 0 ? line : shorten_lines(line);
      if (end < raw.size()) message += '\n';
      start = end + 1;
    }
    diagnostics.clear();
    return message;
  };
  auto extent_at = [&](int line) {
    for (const FuncExtent &f : extents_)
      if (f.first_line == line) return f;
    return FuncExtent{"", true, line, line, true};
  };
  std::vector<tt::FuncOp> funcs;
  parsed_->walk([&](tt::FuncOp f) { funcs.push_back(f); });
  // A symbol defined twice in one section: each definition is refused,
  // naming all of them.
  std::map<std::string, std::vector<tt::FuncOp>> by_name;
  for (tt::FuncOp f : funcs) by_name[f.getSymName().str()].push_back(f);
  std::set<Operation *> dropped;
  for (auto &[name, defs] : by_name) {
    if (defs.size() < 2) continue;
    std::string lines;
    for (tt::FuncOp f : defs) lines += (lines.empty() ? "" : ", ") + std::to_string(line_of(f));
    for (tt::FuncOp f : defs) {
      FuncExtent e = extent_at(line_of(f));
      e.name = name;
      e.is_public = f.isPublic();
      refuse(e, origin_ + ":" + std::to_string(line_of(f)) + ": error: symbol @" + name + " is defined " +
                    std::to_string(defs.size()) + " times in one section (lines " + lines +
                    "); a lit file separates test cases with `// -----` lines");
      dropped.insert(f);
    }
  }
  // Each function verified on its own; what fails is refused alone. While it
  // is verified, every op's location is its TTIR line, so that a diagnostic
  // names the line of this file where the op is written (an op's own
  // location is a Python line, or loc(unknown), which MLIR prints as
  // "<unknown>:0"); the locations are put back after.
  std::vector<std::pair<Operation *, mlir::Location>> own_locations;
  auto at_ttir_lines = [&](Operation *root) {
    root->walk([&](Operation *op) {
      const int op_line = line_of(op);
      if (op_line <= 0) return;
      own_locations.emplace_back(op, op->getLoc());
      const int op_column = std::max(1, ttir_columns_.lookup(op));
      op->setLoc(mlir::FileLineColLoc::get(&context_, origin_, static_cast<unsigned>(op_line),
                                           static_cast<unsigned>(op_column)));
    });
  };
  auto restore_locations = [&]() {
    for (auto &[op, loc] : own_locations) op->setLoc(loc);
    own_locations.clear();
  };
  for (tt::FuncOp f : funcs) {
    if (dropped.count(f) != 0) continue;
    const int line = line_of(f);
    std::optional<std::string> error;
    at_ttir_lines(f);
    if (mlir::failed(mlir::verify(f))) error = take();
    // What MLIR's scf.for verifier checks only for `index` constants: a
    // step that is a constant is positive (TTIR steps are i32).
    if (!error)
      f.walk([&](mlir::scf::ForOp loop) {
        llvm::APInt step;
        if (error || !mlir::matchPattern(loop.getStep(), mlir::m_ConstantInt(&step)) || step.isStrictlyPositive())
          return;
        loop.emitOpError() << "has a constant step of " << llvm::toString(step, 10, /*Signed=*/true)
                           << ": a loop step must be positive";
        error = take();
      });
    restore_locations();
    if (!error) continue;
    FuncExtent e = extent_at(line);
    e.name = f.getSymName().str();
    e.is_public = f.isPublic();
    refuse(e, func_message(f, line, *error));
    dropped.insert(f);
  }
  for (Operation *op : dropped) op->erase();
  // The ops outside the functions: modules (their own invariants only) and
  // any other top-level op. An error there refuses the section.
  std::optional<std::string> outer_error;
  parsed_->walk<mlir::WalkOrder::PreOrder>([&](Operation *op) {
    if (llvm::isa<tt::FuncOp>(op)) return mlir::WalkResult::skip();
    if (outer_error) return mlir::WalkResult::interrupt();
    bool holds_funcs = false;
    op->walk([&](tt::FuncOp) { holds_funcs = true; });
    if (mlir::failed(mlir::verify(op, /*verifyRecursively=*/!holds_funcs))) outer_error = take();
    return holds_funcs ? mlir::WalkResult::advance() : mlir::WalkResult::skip();
  });
  std::vector<std::pair<tt::FuncOp, int>> out;
  if (outer_error) {
    refuse_rest(*outer_error, diagnostic_line(*outer_error, origin_));
  } else {
    for (tt::FuncOp f : funcs)
      if (dropped.count(f) == 0) out.emplace_back(f, line_of(f));
  }
  // The text and its source manager are not needed by the analysis.
  handler.reset();
  source_mgr_.reset();
  std::string().swap(text_);
  return out;
}

Expected<TtirModule> analyze_ttir_on_this_thread(std::string_view text, const std::string &origin, bool split) {
  TtirModule module;
  module.origin = origin;
  module.split = split;
  mlir::DialectRegistry registry;
  tt::register_ttir_dialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Ops of dialects we do not register (`ttg.barrier local`, printed for
  // tl.debug_barrier() by Triton >= 3.5) are read as opaque ops.
  context.allowUnregisteredDialects();
  std::set<std::string> known_dialects{"builtin"};
  for (llvm::StringRef name : registry.getDialectNames()) known_dialects.insert(name.str());
  for (auto &[section, first_line] : split_sections(text, split)) {
    pb::sdk::poll_cancel();
    SectionReader reader(context, origin, module, make_unknown_ops_opaque(section, known_dialects), first_line);
    std::string().swap(section);
    if (!reader.read()) continue;
    ++module.chunks;
    llvm::StringRef buffer_name(origin);
    for (auto &[func, line] : reader.functions()) {
      KernelModel model;
      FunctionAnalyzer analyzer(model, buffer_name, [&reader](Operation *op) { return reader.line_of(op); });
      analyzer.run(func);
      // The kernel's line: where the parser read its `tt.func` (MLIR's
      // parser state), never a search of the text (which finds comments).
      model.ttir_line = line;
      module.kernels.push_back(std::move(model));
    }
  }
  std::sort(module.refused.begin(), module.refused.end(),
            [](const Refusal &a, const Refusal &b) { return a.line < b.line; });
  if (module.kernels.empty() && !module.refused.empty()) {
    std::string message = module.refused.front().message;
    if (module.refused.size() > 1)
      message += "\n(" + std::to_string(module.refused.size() - 1) + " more function" +
                 (module.refused.size() > 2 ? "s" : "") + " of " + origin + " refused; none could be analysed)";
    return Error{message, std::move(module.refused)};
  }
  return module;
}

}  // namespace

}  // namespace perfbound::ttir
