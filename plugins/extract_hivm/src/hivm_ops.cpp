//===- hivm_ops.cpp - operands, pipes and sync operands of HIVM ops -------===//
#include "hivm_ops.hpp"

#include <memory>

#include "op_syntax.hpp"

namespace pb::hivm::analysis {

void HivmOps::handle_structured(const Op &op, uint32_t r, const OpInfo &info, int32_t path) {
  OpDetail &d = ir_.detail(r);
  d.hivm = true;
  TokSpan s = tokens_of(op);
  auto read_group = [&](std::optional<TokSpan> grp, std::vector<Operand> &out) {
    if (!grp || grp->empty()) return;
    auto colon = find_top(*grp, Tok::Colon);
    TokSpan names = colon ? grp->sub(0, *colon) : *grp;
    std::vector<TokSpan> types = colon ? split_top(grp->from(*colon + 1), Tok::Comma) : std::vector<TokSpan>{};
    std::vector<TokSpan> entries = split_top(names, Tok::Comma);
    for (size_t idx = 0; idx < entries.size(); ++idx) {
      Operand o;
      std::vector<std::string_view> ids = percent_ids(entries[idx]);
      if (!ids.empty()) {
        o.name = ids[0];
        o.v = scope_.use(ids[0]);
      }
      if (idx < types.size()) o.type = ir_.type_of(types[idx]);
      else if (o.v != kNone) o.type = ir_.values[o.v].type;
      out.push_back(std::move(o));
    }
  };
  if (op.generic) {
    GenericParts g = generic_parts(op);
    std::vector<int64_t> segments;
    if (auto seg = named_attr(g.props, "operandSegmentSizes"))
      for (size_t idx = 0; idx < seg->size(); ++idx)
        if ((*seg)[idx].kind == Tok::Integer)
          if (auto n = parse_int((*seg)[idx].text())) segments.push_back(*n);
    std::vector<Operand> all;
    for (size_t idx = 0; idx < g.operands.size(); ++idx) {
      Operand o;
      o.name = g.operands[idx];
      o.v = scope_.use(o.name);
      if (idx < g.operand_types.size()) o.type = ir_.type_of(g.operand_types[idx]);
      else if (o.v != kNone) o.type = ir_.values[o.v].type;
      all.push_back(std::move(o));
    }
    size_t n_ins = all.empty() ? 0 : all.size() - 1, n_outs = all.empty() ? 0 : 1;
    if (segments.size() >= 2) {
      n_ins = static_cast<size_t>(segments[0]);
      n_outs = static_cast<size_t>(segments[1]);
    }
    for (size_t idx = 0; idx < all.size(); ++idx) {
      if (idx < n_ins) d.ins.push_back(all[idx]);
      else if (idx < n_ins + n_outs) d.outs.push_back(all[idx]);
    }
  } else {
    read_group(keyword_group(s, "ins"), d.ins);
    read_group(keyword_group(s, "outs"), d.outs);
  }
  OpRecord &record = ir_.rec(r);
  auto first_memref = [](const std::vector<Operand> &v) -> const Operand * {
    for (const Operand &o : v)
      if (o.type.kind == Type::Kind::Memref || o.type.kind == Type::Kind::Tensor) return &o;
    return nullptr;
  };
  const Operand *src = first_memref(d.ins);
  const Operand *dst = first_memref(d.outs);
  record.src = src != nullptr ? src->type.space : Space::Unknown;
  record.dst = dst != nullptr ? dst->type.space : Space::Unknown;
  if (record.src != Space::Unknown && record.dst != Space::Unknown)
    record.path_name = path_word(record.src, record.dst);
  const bool tensor_form = (src != nullptr && src->type.kind == Type::Kind::Tensor) ||
                           (dst != nullptr && dst->type.kind == Type::Kind::Tensor);
  std::string_view m = op.name.substr(op.name.rfind('.') + 1);
  if (m == "copy") {
    if (auto pipe = pipe_for_copy(record.src, record.dst)) {
      record.pipes = {*pipe};
      if (*pipe == Pipe::V) record.cls = OpClass::VectorMove;
    } else {
      record.unresolved_pipe = tensor_form ? "copy on tensors: no address spaces, so no pipe (pre-bufferization IR)"
                                           : "copy between address spaces with no known pipe";
      record.modelled = false;
    }
  } else if (m == "vbrc") {
    if (auto pipe = pipe_for_vbrc(record.dst)) {
      record.pipes = {*pipe};
      if (*pipe == Pipe::MTE2) record.cls = OpClass::Dma;
    } else {
      record.unresolved_pipe = tensor_form ? "vbrc on tensors: no destination address space, so no pipe"
                                           : "vbrc into an address space with no known pipe";
      record.modelled = false;
    }
  } else if (info.cls == OpClass::Cube) {
    record.pipes = {Pipe::MTE1, Pipe::M};
    for (size_t idx = 2; idx < d.ins.size(); ++idx) d.scalars.push_back(d.ins[idx].v);
  } else if (info.cls == OpClass::CubeMacro) {
    record.pipes = {Pipe::MTE2, Pipe::MTE3};
    record.notes.push_back("pre-lowering macro op (matmul family): no per-unit breakdown");
    record.modelled = false;
  }
  if (tensor_form && record.modelled) {
    record.notes.push_back("tensor operands: address spaces unknown (pre-bufferization IR)");
    if (info.cls == OpClass::Dma) record.modelled = false;
  }
  if (op.name == "hivm.hir.load") {
    record.core = ir_.prog.functions[ir_.fn_index].core;
    if (record.src == Space::GM && record.dst != Space::UB && record.dst != Space::Unknown &&
        record.core == CoreType::AIV)
      record.notes.push_back("load into a non-UB space in a vector function");
  }
  for (const Operand &o : d.ins)
    if (const MemrefInfo *mi = ir_.mem_of(o.v)) append_roots(record.reads, mi->roots);
  for (const Operand &o : d.outs)
    if (const MemrefInfo *mi = ir_.mem_of(o.v)) append_roots(record.writes, mi->roots);
  // Accumulating ops read their destination too.
  if (info.cls == OpClass::Cube)
    for (const Operand &o : d.outs)
      if (const MemrefInfo *mi = ir_.mem_of(o.v)) append_roots(record.reads, mi->roots);
  record.issued_instructions = info.cls == OpClass::Cube ? 3 : 1;
  ir_.mark_hivm(path, false);
  std::vector<std::string_view> names = scope_.result_names(op);
  if (!names.empty()) views_.define_results_unknown(op, trailing_types(op));
}

void HivmOps::handle_sync(const Op &op, uint32_t r, OpClass cls, int32_t path) {
  OpRecord &record = ir_.rec(r);
  record.issued_instructions = 1;
  SyncInfo info;
  TokSpan s = tokens_of(op);
  auto pipe_of = [&](TokSpan t) -> Pipe {
    auto p = pipe_from_enum(enum_word(t));
    return p ? *p : Pipe::None;
  };
  auto event_of = [&](TokSpan t) {
    std::vector<std::string_view> ids = percent_ids(t);
    if (!ids.empty()) {
      info.event_value = std::string(ids[0]);
      ir_.detail(r).event = scope_.use(ids[0]);
      return;
    }
    std::string_view w = enum_word(t);
    if (w.substr(0, 8) == "EVENT_ID") {
      if (auto n = parse_int(w.substr(8))) info.event = *n;
    } else if (auto n = first_int(t)) {
      info.event = *n;
    }
  };
  if (op.generic) {
    GenericParts g = generic_parts(op);
    auto prop = [&](std::string_view name) -> TokSpan {
      if (auto a = named_attr(g.props, name)) return *a;
      if (auto b = named_attr(g.attrs, name)) return *b;
      return {};
    };
    switch (cls) {
      case OpClass::SetFlag:
      case OpClass::WaitFlag:
        info.from = pipe_of(prop("set_pipe"));
        info.to = pipe_of(prop("wait_pipe"));
        if (TokSpan ev = prop("static_event_id"); !ev.empty()) event_of(ev);
        else if (!g.operands.empty()) {
          info.event_value = std::string(g.operands[0]);
          ir_.detail(r).event = scope_.use(g.operands[0]);
        }
        break;
      case OpClass::PipeBarrier: info.from = info.to = pipe_of(prop("pipe")); break;
      case OpClass::SyncBlockSet:
      case OpClass::SyncBlockWait:
        info.tcore = std::string(enum_word(prop("tcore_type")));
        info.from = pipe_of(prop("tpipe"));
        info.to = pipe_of(prop("pipe"));
        if (TokSpan f = prop("static_flag_id"); !f.empty()) info.event = first_int(f);
        else if (!g.operands.empty()) info.event_value = std::string(g.operands[0]);
        break;
      default:
        info.mode = std::string(enum_word(prop("sync_block_mode")));
        if (TokSpan f = prop("flag_id"); !f.empty()) info.event = first_int(f);
        break;
    }
  } else {
    auto open = find_top(s, Tok::LSquare);
    std::vector<TokSpan> entries;
    if (open)
      if (auto g = group_at(s, *open)) entries = split_top(g->first, Tok::Comma);
    switch (cls) {
      case OpClass::SetFlag:
      case OpClass::WaitFlag:
        if (entries.size() >= 3) {
          info.from = pipe_of(entries[0]);
          info.to = pipe_of(entries[1]);
          event_of(entries[2]);
        }
        break;
      case OpClass::PipeBarrier:
        if (!entries.empty()) info.from = info.to = pipe_of(entries[0]);
        break;
      case OpClass::SyncBlockSet:
      case OpClass::SyncBlockWait:
        if (entries.size() >= 3) {
          info.tcore = std::string(enum_word(entries[0]));
          info.from = pipe_of(entries[1]);
          info.to = pipe_of(entries[2]);
        }
        if (auto flag = find_word(s, "flag"); flag && *flag + 2 < s.size() + 1) {
          TokSpan value = s.from(*flag + 2);
          if (!value.empty() && value[0].kind == Tok::PercentId) info.event_value = std::string(value[0].text());
          else info.event = first_int(value.sub(0, std::min<size_t>(2, value.size())));
        }
        break;
      default:
        if (!entries.empty()) info.mode = std::string(enum_word(entries[0]));
        if (entries.size() > 1) info.event = first_int(entries[1]);
        break;
    }
  }
  switch (cls) {
    case OpClass::SetFlag: record.pipes = {info.from}; break;
    case OpClass::WaitFlag: record.pipes = {info.to}; break;
    case OpClass::PipeBarrier: record.pipes = {info.from}; break;
    case OpClass::SyncBlockSet: record.pipes = {info.from}; break;
    case OpClass::SyncBlockWait: record.pipes = {info.to}; break;
    default: record.pipes = {Pipe::ALL}; break;
  }
  if (!record.pipes.empty() && record.pipes[0] == Pipe::None) {
    record.pipes.clear();
    record.unresolved_pipe = "synchronisation operands not understood";
    record.modelled = false;
  }
  record.sync = std::make_unique<SyncInfo>(std::move(info));
  ir_.mark_hivm(path, false);
}

}  // namespace pb::hivm::analysis
