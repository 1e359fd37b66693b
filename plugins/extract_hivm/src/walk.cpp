//===- walk.cpp - one pass over a function's regions, blocks and ops ------===//
#include "walk.hpp"

#include "op_syntax.hpp"

namespace pb::hivm::analysis {

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
    case OpClass::Annotation: scalar_.handle_annotation(op, r); break;
    case OpClass::SetFlag:
    case OpClass::WaitFlag:
    case OpClass::PipeBarrier:
    case OpClass::SyncBlockSet:
    case OpClass::SyncBlockWait:
    case OpClass::SyncBlock: hivm_.handle_sync(op, r, info->cls, path); break;
    case OpClass::Loop: handle_loop(op, r, path); break;
    case OpClass::Branch: handle_if(op, r, path); break;
    case OpClass::Terminator:
      if (op.name != "scf.yield" && op.name != "scf.condition") {
        ir_.rec(r).scalar_instructions = 1;
        ir_.rec(r).issued_instructions = 1;
        ir_.rec(r).scalar_kind = "branch";
      }
      break;
    default: hivm_.handle_structured(op, r, *info, path); break;
  }
}

void FunctionWalker::handle_loop(const Op &op, uint32_t r, int32_t path) {
  OpRecord &record = ir_.rec(r);
  record.scalar_instructions = 2;
  record.issued_instructions = 2;
  record.scalar_kind = "loop_control";
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
        s[3].text == "to" && s[5].kind == Tok::BareId && s[5].text == "step") {
      iv_name = s[0].text;
      li.lb = scope_.use(s[2].text);
      li.ub = scope_.use(s[4].text);
      li.step = scope_.use(s[6].text);
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
  if (!op.region_at.empty()) {
    TokSpan after = s.from(op.region_at.back());
    for (size_t idx = 0; idx < after.size(); ++idx)
      if (after[idx].kind == Tok::BareId) li.attributes.emplace_back(after[idx].text);
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
  record.scalar_instructions = 1;
  record.issued_instructions = 1;
  record.scalar_kind = "branch";
  TokSpan s = tokens_of(op);
  std::string_view cond_name;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    if (!g.operands.empty()) cond_name = g.operands[0];
  } else if (!s.empty() && s[0].kind == Tok::PercentId) {
    cond_name = s[0].text;
  }
  bool unlikely = false;
  std::vector<std::string> attrs;
  if (!op.region_at.empty()) {
    TokSpan after = s.from(op.region_at.back());
    for (size_t idx = 0; idx < after.size(); ++idx)
      if (after[idx].kind == Tok::BareId && after[idx].text != "else") attrs.emplace_back(after[idx].text);
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

}  // namespace pb::hivm::analysis
