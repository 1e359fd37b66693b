//===- walk.cpp - one pass over a function's regions, blocks and ops ------===//
#include "walk.hpp"

#include <algorithm>

#include "lexer.hpp"
#include "op_syntax.hpp"

namespace pb::hivm::analysis {

namespace {

/// The ops in `region`, nested regions included: one record each, so the per-record
/// vectors are reserved once instead of doubling (a large function's would hold up to
/// twice their size). The values are not reserved: loops and views define more than
/// the results and block arguments, and a reserve that is exceeded doubles from there.
size_t ops_in(const Region &region) {
  size_t ops = 0;
  std::vector<const Region *> pending{&region};
  while (!pending.empty()) {
    const Region *r = pending.back();
    pending.pop_back();
    for (const Block &block : r->blocks) {
      ops += block.ops.size();
      for (const Op &op : block.ops)
        for (const Region &inner : op.regions) pending.push_back(&inner);
    }
  }
  return ops;
}

/// The name a location gives (MLIR's NameLoc, `loc("n_elements"(#loc))` or
/// `loc("n_elements")`, directly or through a `#locN` alias): the Triton
/// argument name a signature argument carries. Empty for a file location
/// (`loc("k.py":3:0)`) or none.
std::string loc_name(TokSpan s, const AliasMap &aliases, int depth = 0) {
  if (depth > 6 || s.size() < 3 || s[0].kind != Tok::BareId || s[0].text() != "loc" || s[1].kind != Tok::LParen) return {};
  if (s[2].kind == Tok::String && (s.size() < 4 || s[3].kind != Tok::Colon))
    return std::string(s[2].text().substr(1, s[2].text().size() - 2));
  if (s[2].kind == Tok::HashId) {
    auto it = aliases.find(s[2].text());
    if (it == aliases.end()) return {};
    Lexer lex(it->second);
    std::vector<Token> toks;
    for (Token t = lex.next(); t.kind != Tok::Eof && toks.size() < 64; t = lex.next()) toks.push_back(t);
    return loc_name({toks.data(), toks.data() + toks.size()}, aliases, depth + 1);
  }
  return {};
}

}  // namespace

CoreType core_needed(const OpRecord &r) {
  bool cube = false, vec = false;
  auto pipe_says = [&](Pipe p) {
    cube = cube || p == Pipe::M || p == Pipe::MTE1 || p == Pipe::FIX;
    vec = vec || p == Pipe::V || p == Pipe::MTE3;
  };
  if (r.sync && (r.cls == OpClass::SyncBlockSet || r.cls == OpClass::SyncBlockWait)) {
    // The core that sets or waits is the one it names; its pipes span both cores.
    if (r.sync->tcore == "CUBE") return CoreType::AIC;
    if (r.sync->tcore == "VECTOR") return CoreType::AIV;
    return CoreType::Unknown;
  }
  for (Pipe p : r.pipes) pipe_says(p);
  if (r.sync) {
    pipe_says(r.sync->from);
    pipe_says(r.sync->to);
  }
  if (r.cls == OpClass::Cube || r.cls == OpClass::CubeMacro) cube = true;
  // MTE2 by where it writes: L1 and L0 are the cube core's, UB the vector core's.
  const bool mte2 = std::find(r.pipes.begin(), r.pipes.end(), Pipe::MTE2) != r.pipes.end();
  if (mte2 && (r.dst == Space::L1 || r.dst == Space::L0A || r.dst == Space::L0B || r.dst == Space::L0C)) cube = true;
  if (mte2 && r.dst == Space::UB) vec = true;
  if (std::optional<OpInfo> info = lookup_op(r.name)) {
    if (info->core == CoreAffinity::Cube) cube = true;
    if (info->core == CoreAffinity::Vector && r.cls != OpClass::Dma) vec = true;
  }
  if (r.opaque && r.opaque->core != CoreType::Unknown) return r.opaque->core;
  if (cube != vec) return cube ? CoreType::AIC : CoreType::AIV;
  return CoreType::Unknown;
}

uint32_t FunctionWalker::new_record(const Op &op, int32_t path) {
  auto idx = static_cast<uint32_t>(ir_.prog.ops.size());
  OpRecord &r = ir_.prog.ops.emplace_back();  // built in place: records are large
  r.id = idx;
  r.function = ir_.fn_index;
  r.name = std::string(op.name);
  r.line = op.line;
  r.path = static_cast<uint32_t>(path);
  r.loop_depth = static_cast<uint32_t>(loop_stack_.size());
  r.core = ir_.prog.functions[ir_.fn_index].core;
  TokSpan toks = tokens_of(op);
  if (auto loc = find_loc(toks)) pending_locs_.emplace_back(idx, toks.from(*loc).text());
  ir_.details.emplace_back();
  ir_.record_path.push_back(path);
  ir_.loop_of_record.push_back(loop_stack_.empty() ? -1 : loop_stack_.back());
  ++ir_.histogram[op.name];
  return idx;
}

void FunctionWalker::walk_block(const Block &block, int32_t path) {
  for (const BlockArg &arg : block.args) {
    Value v;
    v.type = parse_type(arg.type, &ir_.aliases);
    v.line = arg.line;
    scope_.define(arg.name, ir_.add_value(std::move(v)));
  }
  for (const Op &op : block.ops) handle(op, path);
}

void FunctionWalker::walk_regions_opaque(const Op &op, int32_t path, uint32_t record) {
  if (op.regions.empty()) return;
  PathNode node;
  node.kind = PathNode::Kind::Opaque;
  node.parent = path;
  node.line = op.line;
  node.what = std::string(op.name);
  int32_t inner = ir_.add_path(std::move(node));
  (void)record;
  for (const Region &region : op.regions) {
    scope_.push();
    for (const Block &block : region.blocks) walk_block(block, inner);
    scope_.pop();
  }
}

void FunctionWalker::handle(const Op &op, int32_t path) {
  uint32_t r = new_record(op, path);
  std::optional<OpInfo> info = lookup_op(op.name);
  if (!info) {
    ir_.rec(r).cls = OpClass::Unknown;
    ir_.rec(r).modelled = false;
    ir_.rec(r).notes.push_back("operation not in the HIVM op table: counted, not modelled");
    hivm_.handle_opaque(op, r, "op not modelled: " + std::string(op.name));
    views_.define_results_unknown(op, trailing_types(op));
    walk_regions_opaque(op, path, r);
    return;
  }
  ir_.rec(r).cls = info->cls;
  if (info->pipe != Pipe::None) ir_.rec(r).pipes = {info->pipe};
  switch (info->cls) {
    case OpClass::Constant: scalar_.handle_constant(op, r); break;
    case OpClass::ScalarArith:
    case OpClass::ScalarCompare:
    case OpClass::ScalarBitwise:
    case OpClass::ScalarCast: scalar_.handle_arith(op, r, info->cls); break;
    case OpClass::AffineIndex: scalar_.handle_affine(op, r); break;
    case OpClass::ScalarMemory: scalar_.handle_scalar_memory(op, r, path); break;
    case OpClass::View: views_.handle_view(op, r); break;
    case OpClass::Alloc: views_.handle_alloc(op, r); break;
    case OpClass::HivmScalar:
    case OpClass::SyncOther: scalar_.handle_hivm_scalar(op, r); break;
    case OpClass::Annotation:
      scalar_.handle_annotation(op, r);
      if (!op.regions.empty()) {
        // scope.scope, scf.execute_region: the region runs once where the op stands.
        views_.define_results_unknown(op, trailing_types(op));
        for (const Region &region : op.regions) {
          scope_.push();
          for (const Block &block : region.blocks) walk_block(block, path);
          scope_.pop();
        }
      }
      break;
    case OpClass::SetFlag:
    case OpClass::WaitFlag:
    case OpClass::PipeBarrier:
    case OpClass::SyncBlockSet:
    case OpClass::SyncBlockWait:
    case OpClass::SyncBlock: hivm_.handle_sync(op, r, info->cls, path); break;
    case OpClass::Loop: handle_loop(op, r, path); break;
    case OpClass::Branch: handle_if(op, r, path); break;
    case OpClass::Terminator:
      if (op.name != "scf.yield" && op.name != "scf.condition" && op.name != "scope.return") {
        set_scalar_work(ir_.rec(r), 1, "branch");
      }
      break;
    default: hivm_.handle_structured(op, r, *info, path); break;
  }
}

void FunctionWalker::handle_loop(const Op &op, uint32_t r, int32_t path) {
  OpRecord &record = ir_.rec(r);
  set_scalar_work(record, 2, "loop_control");
  TokSpan s = tokens_of(op);
  LoopInfo li;
  li.line = op.line;
  li.record = r;
  li.parent = loop_stack_.empty() ? -1 : loop_stack_.back();
  li.depth = static_cast<uint32_t>(loop_stack_.size());
  std::string_view iv_name;
  std::vector<std::pair<std::string_view, std::string_view>> iter_args;  // region arg, init
  Type iv_type = parse_type("index");
  if (op.name == "scf.while") {
    li.unknown_trip = true;
  } else if (op.generic) {
    GenericParts g = generic_parts(op);
    if (g.operands.size() >= 3) {
      li.lb = scope_.use(g.operands[0]);
      li.ub = scope_.use(g.operands[1]);
      li.step = scope_.use(g.operands[2]);
    } else {
      li.unknown_trip = true;
    }
    if (!op.regions.empty() && !op.regions[0].blocks.empty()) {
      const Block &entry = op.regions[0].blocks[0];
      if (!entry.args.empty()) {
        iv_name = entry.args[0].name;
        iv_type = parse_type(entry.args[0].type);
      }
      for (size_t idx = 1; idx < entry.args.size(); ++idx)
        iter_args.emplace_back(entry.args[idx].name, idx + 2 < g.operands.size() ? g.operands[idx + 2] : std::string_view{});
    }
  } else {
    if (s.size() >= 7 && s[0].kind == Tok::PercentId && s[1].kind == Tok::Equal && s[3].kind == Tok::BareId &&
        s[3].text() == "to" && s[5].kind == Tok::BareId && s[5].text() == "step") {
      iv_name = s[0].text();
      li.lb = scope_.use(s[2].text());
      li.ub = scope_.use(s[4].text());
      li.step = scope_.use(s[6].text());
    } else {
      li.unknown_trip = true;
      record.notes.push_back("loop header not understood: trip count unknown");
    }
    if (auto ia = keyword_group(s, "iter_args"))
      for (TokSpan entry : split_top(*ia, Tok::Comma)) {
        std::vector<std::string_view> ids = percent_ids(entry);
        if (ids.size() >= 2) iter_args.emplace_back(ids[0], ids[1]);
      }
    if (auto colon = find_last_top(s, Tok::Colon)) {
      Type t = ir_.type_of(s.from(*colon + 1));
      if (t.kind == Type::Kind::Scalar) iv_type = t;
    }
  }
  // Attributes printed after the region: {ExtractedLoadOrStore}.
  if (!op.regions.empty()) {
    TokSpan after = s.from(op.regions.back().at);
    for (size_t idx = 0; idx < after.size(); ++idx)
      if (after[idx].kind == Tok::BareId) li.attributes.emplace_back(after[idx].text());
  }
  li.extracted = std::find(li.attributes.begin(), li.attributes.end(), "ExtractedLoadOrStore") != li.attributes.end();
  ir_.loops.push_back(li);
  auto loop_idx = static_cast<uint32_t>(ir_.loops.size() - 1);
  PathNode node;
  node.kind = PathNode::Kind::Loop;
  node.parent = path;
  node.loop = loop_idx;
  node.line = op.line;
  int32_t body_path = ir_.add_path(std::move(node));
  ir_.loops[loop_idx].body_path = body_path;

  scope_.push();
  if (!iv_name.empty()) {
    Value iv;
    iv.kind = VKind::IV;
    iv.aux = loop_idx;
    iv.type = iv_type;
    iv.line = op.line;
    ValueId id = ir_.add_value(std::move(iv));
    ir_.loops[loop_idx].iv = id;
    scope_.define(iv_name, id);
  }
  std::vector<std::vector<BufferRef>> carried(iter_args.size());
  for (size_t idx = 0; idx < iter_args.size(); ++idx) {
    Value v;
    v.line = op.line;
    ValueId init = scope_.use(iter_args[idx].second);
    if (init != kNone) {
      v.type = ir_.values[init].type;
      if (const MemrefInfo *mi = ir_.mem_of(init)) {
        carried[idx] = mi->roots;
        MemrefInfo copy = *mi;
        copy.offset = kUnknownOffset;  // each iteration may yield another view
        v.mem = ir_.new_mem(std::move(copy));
      }
    }
    scope_.define(iter_args[idx].first, ir_.add_value(std::move(v)));
  }
  loop_stack_.push_back(static_cast<int32_t>(loop_idx));
  uint32_t body_begin = static_cast<uint32_t>(ir_.prog.ops.size());
  for (size_t ri = 0; ri < op.regions.size(); ++ri) {
    const Region &region = op.regions[ri];
    for (size_t bi = 0; bi < region.blocks.size(); ++bi) {
      const Block &block = region.blocks[bi];
      if (!(ri == 0 && bi == 0)) {
        for (const BlockArg &arg : block.args) {
          Value v;
          v.type = parse_type(arg.type, &ir_.aliases);
          scope_.define(arg.name, ir_.add_value(std::move(v)));
        }
      }
      for (const Op &child : block.ops) handle(child, body_path);
    }
    for (size_t idx = 0; idx < iter_args.size(); ++idx) append_roots(carried[idx], views_.yield_roots(region, idx));
  }
  uint32_t body_end = static_cast<uint32_t>(ir_.prog.ops.size());
  loop_stack_.pop_back();
  scope_.pop();
  ir_.loop_spans.push_back({r, body_begin, body_end});
  // Loop results carry the iteration arguments.
  views_.define_region_results(op, s, carried);
}

void FunctionWalker::handle_if(const Op &op, uint32_t r, int32_t path) {
  OpRecord &record = ir_.rec(r);
  set_scalar_work(record, 1, "branch");
  TokSpan s = tokens_of(op);
  std::string_view cond_name = leading_operand(op);
  bool unlikely = false;
  std::vector<std::string> attrs;
  if (!op.regions.empty()) {
    TokSpan after = s.from(op.regions.back().at);
    for (size_t idx = 0; idx < after.size(); ++idx)
      if (after[idx].kind == Tok::BareId && after[idx].text() != "else") attrs.emplace_back(after[idx].text());
  }
  for (const std::string &a : attrs)
    if (a == "hivm.unlikely_condition") unlikely = true;
  ValueId cond = scope_.use(cond_name);
  std::vector<std::vector<BufferRef>> yielded;
  for (size_t ri = 0; ri < op.regions.size(); ++ri) {
    PathNode node;
    node.kind = PathNode::Kind::Cond;
    node.parent = path;
    node.cond = cond;
    node.negated = ri == 1;
    node.unlikely = unlikely && ri == 0;
    node.line = op.line;
    int32_t branch = ir_.add_path(std::move(node));
    scope_.push();
    for (const Block &block : op.regions[ri].blocks) walk_block(block, branch);
    for (size_t idx = 0; idx < op.result_count(); ++idx) {
      if (yielded.size() <= idx) yielded.resize(idx + 1);
      append_roots(yielded[idx], views_.yield_roots(op.regions[ri], idx));
    }
    scope_.pop();
  }
  views_.define_region_results(op, s, yielded);
}

/// Defines the results of an scf.for/scf.if: types from `-> (...)` (or the generic

void FunctionWalker::walk_function(const Op &func, const FunctionContext &fctx) {
  ir_.fn_index = static_cast<uint32_t>(ir_.prog.functions.size());
  ir_.prog.functions.emplace_back();
  FunctionRecord &fr = ir_.prog.functions.back();
  fr.index = ir_.fn_index;
  fr.line = func.line;
  fr.end_line = func.end_line;
  fr.dump_header = std::string(fctx.dump_header);
  TokSpan s = tokens_of(func);
  TokSpan attrs;
  std::vector<BlockArg> sig_args;
  std::vector<TokSpan> arg_attrs;
  std::vector<std::string> arg_loc_names;
  if (func.generic) {
    GenericParts g = generic_parts(func);
    if (auto name = named_attr(g.props, "sym_name")) fr.name = "@" + std::string((*name)[0].text().substr(1, (*name)[0].text().size() - 2));
    else if (auto name2 = named_attr(g.attrs, "sym_name")) fr.name = "@" + std::string((*name2)[0].text().substr(1, (*name2)[0].text().size() - 2));
    attrs = g.attrs;
    if (!func.regions.empty() && !func.regions[0].blocks.empty()) sig_args.assign(func.regions[0].blocks[0].args.begin(), func.regions[0].blocks[0].args.end());
    arg_attrs.resize(sig_args.size());
  } else {
    size_t at = 0;
    while (at < s.size() && s[at].kind != Tok::AtId) ++at;
    if (at < s.size()) fr.name = std::string(s[at].text());
    if (at + 1 < s.size() && s[at + 1].kind == Tok::LParen)
      if (auto g = group_at(s, at + 1)) {
        for (TokSpan entry : split_top(g->first, Tok::Comma)) {
          if (entry.size() < 3 || entry[0].kind != Tok::PercentId) continue;
          BlockArg a;
          a.name = entry[0].text();
          a.line = entry[0].line;
          TokSpan type = entry.from(2);
          TokSpan attr;
          // `%arg6: i32 {attrs} loc("n_elements")`: the location follows the attributes.
          std::string name_loc;
          if (auto loc = find_loc(type)) name_loc = loc_name(type.from(*loc), ir_.aliases);
          if (auto brace = find_top(type, Tok::LBrace)) {
            if (auto ag = group_at(type, *brace)) attr = ag->first;
            type = type.sub(0, *brace);
          }
          if (auto loc = find_loc(type)) type = type.sub(0, *loc);
          a.type = type.text();
          sig_args.push_back(a);
          arg_attrs.push_back(attr);
          arg_loc_names.push_back(std::move(name_loc));
        }
      }
    if (auto kw = find_word(s, "attributes"))
      if (*kw + 1 < s.size() && s[*kw + 1].kind == Tok::LBrace)
        if (auto g = group_at(s, *kw + 1)) attrs = g->first;
  }
  if (fr.name.empty()) fr.name = "@<unnamed>";
  if (auto core = named_attr(attrs, "hivm.func_core_type")) {
    std::string_view w = enum_word(core->from(core->size() > 1 ? 1 : 0));
    if (w == "func_core_type") w = enum_word(core->from(2));
    for (size_t idx = 0; idx < core->size(); ++idx)
      if ((*core)[idx].kind == Tok::BareId) w = (*core)[idx].text();
    if (w == "AIC") fr.core = CoreType::AIC;
    else if (w == "AIV") fr.core = CoreType::AIV;
    fr.core_source = "hivm.func_core_type = " + std::string(w);
    if (w == "MIX") fr.core_source += " (not split into AIC/AIV parts)";
  }
  if (fr.core == CoreType::Unknown) {
    if (fr.name.size() > 8 && fr.name.substr(fr.name.size() - 8) == "_mix_aic") {
      fr.core = CoreType::AIC;
      fr.core_source = "function name suffix _mix_aic";
    } else if (fr.name.size() > 8 && fr.name.substr(fr.name.size() - 8) == "_mix_aiv") {
      fr.core = CoreType::AIV;
      fr.core_source = "function name suffix _mix_aiv";
    }
  }
  if (auto mm = named_attr(attrs, "mix_mode"); mm && !mm->empty() && (*mm)[0].kind == Tok::String)
    fr.mix_mode = std::string((*mm)[0].text().substr(1, (*mm)[0].text().size() - 2));
  const bool part_of_mix = named_attr(attrs, "hivm.part_of_mix").has_value() || fr.mix_mode == "mix";
  if (part_of_mix && fr.core != CoreType::Unknown) fr.mix_part = core_name(fr.core);
  ir_.instances = (part_of_mix && fr.core == CoreType::AIV) ? std::max<uint32_t>(1, ir_.opts.vector_cores_per_cube_core) : 1;
  fr.instances_per_block = ir_.instances;

  // Arguments. A memref argument without an address space is in GM, or in UB
  // for a vector function (InferHIVMMemScope.cpp).
  const bool vector_function = named_attr(attrs, "hivm.vector_function").has_value();
  scope_.push();
  for (size_t idx = 0; idx < sig_args.size(); ++idx) {
    FunctionArg fa;
    fa.name = std::string(sig_args[idx].name);
    fa.type = std::string(sig_args[idx].type);
    if (idx < arg_loc_names.size()) fa.loc_name = arg_loc_names[idx];
    Value v;
    v.kind = VKind::Arg;
    v.c = static_cast<int64_t>(idx);
    v.type = parse_type(sig_args[idx].type, &ir_.aliases);
    if (auto role = named_attr(arg_attrs[idx], "hacc.arg_type")) {
      std::string_view w;
      for (size_t t = 0; t < role->size(); ++t)
        if ((*role)[t].kind == Tok::BareId) w = (*role)[t].text();
      fa.role = std::string(w);
    }
    if (fa.role.empty()) fa.role = v.type.kind == Type::Kind::Memref ? "pointer" : "scalar";
    if (v.type.kind == Type::Kind::Memref) {
      MemrefInfo info = static_memref_info(v.type);
      BufferRef root;
      root.kind = BufferRef::Kind::Arg;
      root.space = v.type.space != Space::Unknown ? v.type.space : vector_function ? Space::UB : Space::GM;
      root.id = static_cast<uint32_t>(idx);
      if (fa.role == "workspace") {
        root.kind = BufferRef::Kind::Workspace;
        root.base0 = 0;
        root.bytes = -1;
      }
      info.roots.push_back(root);
      v.mem = ir_.new_mem(std::move(info));
    }
    fr.args.push_back(std::move(fa));
    ValueId id = ir_.add_value(std::move(v));
    ir_.arg_values.push_back(id);
    scope_.define(sig_args[idx].name, id);
  }
  ir_.first_record = static_cast<uint32_t>(ir_.prog.ops.size());
  PathNode root;
  root.kind = PathNode::Kind::Root;
  int32_t root_path = ir_.add_path(std::move(root));
  if (!func.regions.empty()) {
    const Region &body = func.regions[0];
    const size_t ops = ops_in(body);
    ir_.details.reserve(ops);
    ir_.record_path.reserve(ops);
    ir_.loop_of_record.reserve(ops);
    if (body.blocks.size() > 1)
      ir_.prog.warnings.push_back(fr.name + " (line " + std::to_string(fr.line) + ") has " +
                               std::to_string(body.blocks.size()) +
                               " blocks: ops in every block are counted as executed once");
    for (size_t bi = 0; bi < body.blocks.size(); ++bi) {
      const Block &block = body.blocks[bi];
      if (bi > 0 || !func.generic) {
        if (bi > 0)
          for (const BlockArg &arg : block.args) {
            Value v;
            v.type = parse_type(arg.type, &ir_.aliases);
            scope_.define(arg.name, ir_.add_value(std::move(v)));
          }
      }
      for (const Op &op : block.ops) handle(op, root_path);
    }
  }
  scope_.pop();
  // Core type from the ops when the function does not say, and the ops of a
  // MIX function on the core each needs (docs/extract_hivm.md §2).
  FunctionRecord &f2 = ir_.prog.functions[ir_.fn_index];
  const bool mix_attr = f2.core == CoreType::Unknown && f2.core_source.find("= MIX") != std::string::npos;
  if (f2.core == CoreType::Unknown && (mix_attr || f2.core_source.empty())) {
    bool cube = false, vec = false;
    for (uint32_t r = ir_.first_record; r < ir_.prog.ops.size(); ++r) {
      CoreType needed = core_needed(ir_.prog.ops[r]);
      cube = cube || needed == CoreType::AIC;
      vec = vec || needed == CoreType::AIV;
    }
    if (mix_attr && (cube || vec)) {
      f2.core_source = "hivm.func_core_type = MIX: analysed as a mix kernel, cube ops on the AIC and vector ops on the AIV";
    } else if (!mix_attr && cube && vec) {
      f2.core_source = "no core type attribute; its ops need both a cube and a vector core: analysed as a mix kernel, "
                       "cube ops on the AIC and vector ops on the AIV";
    } else if (!mix_attr) {
      // InferFuncCoreType.cpp: only cube ops -> AIC, only vector ops -> AIV, and
      // a function whose ops constrain neither is made an AIV function.
      f2.core = cube ? CoreType::AIC : CoreType::AIV;
      f2.core_source = cube || vec ? "inferred from the ops: only " + std::string(cube ? "cube" : "vector") +
                                         "-core units are used (InferFuncCoreType.cpp rule)"
                                   : std::string("no core type attribute and no op that needs a particular core: a vector "
                                                 "function, as the compiler's InferFuncCoreType.cpp makes it");
      for (uint32_t r = ir_.first_record; r < ir_.prog.ops.size(); ++r) ir_.prog.ops[r].core = f2.core;
      hivm_.settle_local_spaces(f2.core);
    } else {
      f2.core_source = "hivm.func_core_type = MIX, but no op needs a cube or a vector core in particular";
    }
    if (!f2.core_source.empty() && f2.core_source.find("analysed as a mix kernel") != std::string::npos) {
      f2.split_mix = true;
      f2.core = CoreType::AIC;
      f2.mix_part = "aic";
      for (uint32_t r = ir_.first_record; r < ir_.prog.ops.size(); ++r) {
        OpRecord &rec = ir_.prog.ops[r];
        rec.core = core_needed(rec);
        const bool work = is_vector_class(rec.cls) || rec.cls == OpClass::Dma || rec.cls == OpClass::Cube ||
                          rec.cls == OpClass::CubeMacro || (rec.opaque && rec.opaque->shaped > 0);
        if (rec.core == CoreType::Unknown && work)
          rec.notes.push_back("in a mix function, either core could run this op: counted on neither");
      }
    }
  }
}

}  // namespace pb::hivm::analysis
