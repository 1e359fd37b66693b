//===- hivm_ops.cpp - operands, pipes and sync operands of HIVM ops -------===//
#include "hivm_ops.hpp"

#include <algorithm>
#include <memory>

#include "op_syntax.hpp"

namespace pb::hivm::analysis {

namespace {

/// Bytes of a shaped type with a static shape and a known element type.
std::optional<int64_t> static_bytes(const Type &t) {
  if (!t.elem.known()) return std::nullopt;
  std::optional<int64_t> n = t.kind == Type::Kind::Memref || t.kind == Type::Kind::Tensor ? t.static_elements() : std::nullopt;
  if (!n) return std::nullopt;
  return elem_bytes_ceil(*n, t.elem.bits);
}

bool is_memref_or_tensor(const Type &t) { return t.kind == Type::Kind::Memref || t.kind == Type::Kind::Tensor; }

}  // namespace

void HivmOps::check_definition(const Op &op, const OpDetail &d) const {
  std::string_view m = op.name.substr(op.name.rfind('.') + 1);
  if (m != "load" && m != "store" && m != "copy") return;
  auto first_shaped = [](const std::vector<Operand> &v) -> const Operand * {
    for (const Operand &o : v)
      if (is_memref_or_tensor(o.type)) return &o;
    return nullptr;
  };
  const Operand *src = first_shaped(d.ins), *dst = first_shaped(d.outs);
  if (src == nullptr || dst == nullptr) return;
  auto refuse = [&](const std::string &why) {
    throw SourceError(op.line, op.col, "'" + std::string(op.name) + "': " + why + " (HIVMDMAOps.td)");
  };
  const Type &a = src->type, &b = dst->type;
  if (m == "load" && a.kind != b.kind) refuse("src and dst must be both memrefs or both tensors");
  if (a.elem.known() && b.elem.known() && a.elem.name != b.elem.name)
    refuse("src and dst must have the same element type, not " + std::string(a.elem.name) + " and " +
           std::string(b.elem.name));
  TokSpan s = tokens_of(op);
  const bool padded = has_word(s, "pad_mode") || has_word(s, "collapse_reassociation");
  if (!padded && a.rank() != b.rank())
    refuse("src and dst must have the same rank, not " + std::to_string(a.rank()) + " and " + std::to_string(b.rank()));
  if (!padded)
    for (size_t idx = 0; idx < a.rank() && idx < b.rank(); ++idx)
      if (a.shape[idx] != kDynamic && b.shape[idx] != kDynamic && a.shape[idx] != b.shape[idx])
        refuse("without pad_mode, src and dst must have the same shape (dimension " + std::to_string(idx) + ": " +
               std::to_string(a.shape[idx]) + " and " + std::to_string(b.shape[idx]) + ")");
  // The spaces each op supports, where the IR prints both.
  if (a.space != Space::Unknown && b.space != Space::Unknown) {
    if (m == "load" && (a.space != Space::GM || b.space == Space::GM)) refuse("a load reads GM into a local buffer");
    if (m == "store" && !(a.space == Space::UB && b.space == Space::GM)) refuse("a store writes UB to GM");
    if (m == "copy" && a.space == Space::GM && b.space == Space::GM) refuse("a copy from GM to GM is not supported");
  }
  // left_padding_num = %x : index.
  if (auto at = find_word(s, "left_padding_num"); at && *at + 4 < s.size() && s[*at + 1].kind == Tok::Equal &&
                                                   s[*at + 3].kind == Tok::Colon && s[*at + 4].text() != "index")
    refuse("left_padding_num must be an index, not " + std::string(s[*at + 4].text()));
}

Space HivmOps::inferred_space(const Operand &o) const {
  if (o.type.kind != Type::Kind::Memref || o.type.space != Space::Unknown) return o.type.space;
  const MemrefInfo *mi = ir_.mem_of(o.v);
  if (mi == nullptr || mi->roots.empty()) return Space::Unknown;
  bool global = true, local = true;
  for (const BufferRef &b : mi->roots) {
    if (b.kind == BufferRef::Kind::Arg && b.space == Space::UB) return Space::UB;  // a vector function's argument
    global = global && (b.kind == BufferRef::Kind::Arg || b.kind == BufferRef::Kind::Workspace || b.space == Space::GM);
    local = local && (b.kind == BufferRef::Kind::Alloc || b.kind == BufferRef::Kind::Address) && b.space == Space::Unknown;
  }
  if (global) return Space::GM;
  if (local && ir_.prog.functions[ir_.fn_index].core != CoreType::AIC) return Space::UB;
  return Space::Unknown;
}

bool HivmOps::macro_extents(const Op &op, OpDetail &d) {
  auto shaped = [](const std::vector<Operand> &v, size_t idx) -> const Type * {
    size_t seen = 0;
    for (const Operand &o : v)
      if (is_memref_or_tensor(o.type) && seen++ == idx) return &o.type;
    return nullptr;
  };
  const Type *a = shaped(d.ins, 0), *b = shaped(d.ins, 1), *c = shaped(d.outs, 0);
  if (a == nullptr || b == nullptr || c == nullptr || a->rank() != 2 || b->rank() != 2 || c->rank() != 2) return false;
  TokSpan s = tokens_of(op);
  const bool a_t = has_word(s, "a_transpose"), b_t = has_word(s, "b_transpose");
  const int64_t m = c->shape[0], n = c->shape[1];
  const int64_t k = a_t ? a->shape[0] : a->shape[1];
  const int64_t k_b = b_t ? b->shape[1] : b->shape[0];
  const int64_t m_a = a_t ? a->shape[1] : a->shape[0];
  const int64_t n_b = b_t ? b->shape[0] : b->shape[1];
  for (int64_t x : {m, n, k, k_b, m_a, n_b})
    if (x == kDynamic || x <= 0) return false;
  if (k != k_b || m != m_a || n != n_b) return false;
  d.scalars.assign(1, kNone);  // no init condition
  for (int64_t x : {m, k, n}) {
    Value v;
    v.kind = VKind::Const;
    v.c = x;
    v.type = parse_type("index");
    v.line = op.line;
    d.scalars.push_back(ir_.add_value(std::move(v)));
  }
  return true;
}

void HivmOps::handle_opaque(const Op &op, uint32_t r, std::string reason) {
  OpRecord &record = ir_.rec(r);
  auto o = std::make_unique<OpaqueOperands>();
  TokSpan s = tokens_of(op);
  const size_t header = op.regions.empty() ? s.size() : op.regions[0].at;
  std::vector<std::string_view> names = op.generic ? generic_parts(op).operands : percent_ids(s.sub(0, header));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  bool bytes_known = true;
  int64_t bytes = 0;
  for (std::string_view name : names) {
    ValueId v = scope_.use(name);
    if (v == kNone || !is_memref_or_tensor(ir_.values[v].type)) continue;
    ++o->shaped;
    if (std::optional<int64_t> b = static_bytes(ir_.values[v].type)) bytes += *b;
    else bytes_known = false;
  }
  if (o->shaped > 0 && bytes_known) o->bytes = bytes;
  // A custom op's name and the core it says it runs on.
  if (op.name == "hivm.hir.custom" || op.name == "hivm.hir.custom_macro") {
    // The name it calls: the first string outside its attribute dictionary.
    int depth = 0;
    for (size_t idx = 0; idx < header; ++idx) {
      depth += depth_delta(s[idx].kind);
      if (depth == 0 && s[idx].kind == Tok::String) {
        reason += " " + std::string(s[idx].text());
        break;
      }
    }
  }
  for (size_t idx = 0; idx + 2 < header; ++idx)
    if (s[idx].kind == Tok::BareId && s[idx].text() == "hivm.tcore_type" && s[idx + 1].kind == Tok::Equal) {
      std::string_view w = enum_word(s.from(idx + 2));
      if (w == "tcore_type") w = enum_word(s.from(idx + 3));
      if (w == "CUBE") o->core = CoreType::AIC;
      if (w == "VECTOR") o->core = CoreType::AIV;
      break;
    }
  o->reason = std::move(reason);
  record.opaque = std::move(o);
}

void HivmOps::handle_structured(const Op &op, uint32_t r, const OpInfo &info, int32_t path) {
  OpDetail &d = ir_.detail(r);
  d.hivm = true;
  TokSpan s = tokens_of(op);
  auto read_group = [&](std::optional<TokSpan> grp, std::vector<Operand> &out) {
    if (!grp || grp->empty()) return;
    std::vector<TokSpan> entries = split_top(*grp, Tok::Comma);
    size_t colons = 0;
    for (TokSpan e : entries) colons += find_top(e, Tok::Colon) ? 1 : 0;
    if (colons > 1) {
      // `ins(%a : T, %b : T)`: each operand with its own type.
      for (TokSpan e : entries) {
        Operand o;
        auto colon = find_top(e, Tok::Colon);
        std::vector<std::string_view> ids = percent_ids(colon ? e.sub(0, *colon) : e);
        if (!ids.empty()) {
          o.name = ids[0];
          o.v = scope_.use(ids[0]);
        }
        if (colon) o.type = ir_.type_of(e.from(*colon + 1));
        else if (o.v != kNone) o.type = ir_.values[o.v].type;
        out.push_back(std::move(o));
      }
      return;
    }
    auto colon = find_top(*grp, Tok::Colon);
    TokSpan names = colon ? grp->sub(0, *colon) : *grp;
    std::vector<TokSpan> types = colon ? split_top(grp->from(*colon + 1), Tok::Comma) : std::vector<TokSpan>{};
    entries = split_top(names, Tok::Comma);
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
  std::string_view m = op.name.substr(op.name.rfind('.') + 1);
  check_definition(op, d);
  const CoreType fn_core = ir_.prog.functions[ir_.fn_index].core;
  // Address spaces the IR does not print. A memref without one takes its
  // buffer's; a tensor operand the one the op's definition implies.
  bool inferred = false;
  auto first_shaped = [](std::vector<Operand> &v) -> Operand * {
    for (Operand &o : v)
      if (is_memref_or_tensor(o.type)) return &o;
    return nullptr;
  };
  Operand *src = first_shaped(d.ins);
  Operand *dst = first_shaped(d.outs);
  const bool tensor_form = (src != nullptr && src->type.kind == Type::Kind::Tensor) ||
                           (dst != nullptr && dst->type.kind == Type::Kind::Tensor);
  // First what the op's definition says (HIVMDMAOps.td): load reads global
  // memory into a local buffer (UB on a vector core, L1 on a cube core); store
  // writes a local buffer (UB) to global memory; nd2nz loads global memory into
  // L1; fixpipe reads L0C. Then, for a memref, its buffer's space.
  auto set = [&](Operand *o, Space sp) {
    if (o != nullptr && is_memref_or_tensor(o->type) && o->type.space == Space::Unknown && sp != Space::Unknown) {
      o->type.space = sp;
      inferred = true;
    }
  };
  const Space local = fn_core == CoreType::AIV ? Space::UB : fn_core == CoreType::AIC ? Space::L1 : Space::Unknown;
  if (m == "load") {
    set(src, Space::GM);
    set(dst, local);
  } else if (m == "store") {
    set(src, Space::UB);
    set(dst, Space::GM);
  } else if (m == "nd2nz" || m == "load_scale") {
    set(src, Space::GM);
    set(dst, Space::L1);
  } else if (m == "fixpipe") {
    set(src, Space::L0C);
  } else if (tensor_form && info.cls != OpClass::Dma && m != "copy" && m != "vbrc" && fn_core != CoreType::AIC &&
             is_vector_class(info.cls)) {
    for (Operand *o : {src, dst}) set(o, Space::UB);
  }
  for (Operand *o : {src, dst})
    if (o != nullptr && o->type.kind == Type::Kind::Memref && o->type.space == Space::Unknown) set(o, inferred_space(*o));
  if (inferred)
    record.notes.push_back(tensor_form ? "tensor operands: address spaces from the op's definition (pre-bufferization IR)"
                                       : "address space not printed: a kernel argument is GM, a local buffer UB");
  record.src = src != nullptr ? src->type.space : Space::Unknown;
  record.dst = dst != nullptr ? dst->type.space : Space::Unknown;
  if (record.src != Space::Unknown && record.dst != Space::Unknown)
    record.path_name = path_word(record.src, record.dst);
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
    // mmadL1: ins(a, b, init, m, k, n); mmadmxL1: ins(a, b, scaleA, scaleB, init, m, k, n) (HIVMMacroOps.td).
    const size_t first_scalar = m == "mmadmxL1" ? 4 : 2;
    for (size_t idx = first_scalar; idx < d.ins.size(); ++idx) d.scalars.push_back(d.ins[idx].v);
  } else if (info.cls == OpClass::CubeMacro) {
    if ((m == "matmul" || m == "mix_matmul") && macro_extents(op, d)) {
      // C = A x B from global memory (HIVMMacroOps.td, MatmulOp): counted as its
      // cube work; the macro's own loads and stores are not counted.
      record.cls = OpClass::Cube;
      record.pipes = {Pipe::MTE1, Pipe::M};
      record.notes.push_back("matmul macro: its cube work counted (2*M*K*N from the shapes of A, B, C); its GM loads, "
                             "L1 staging and the store of C are not counted");
    } else {
      record.pipes = {Pipe::MTE2, Pipe::MTE3};
      record.notes.push_back("pre-lowering macro op (matmul family): no per-unit breakdown");
      record.modelled = false;
    }
  }
  if (tensor_form && record.modelled && record.cls == OpClass::Dma &&
      (record.src == Space::Unknown || record.dst == Space::Unknown)) {
    // A load's local buffer is known once the function's core is (settle_local_spaces).
    if (m == "load" && record.src == Space::GM && fn_core == CoreType::Unknown) pending_loads_.push_back(r);
    record.notes.push_back("tensor operands: address spaces unknown (pre-bufferization IR)");
    record.unresolved_pipe = "a DMA on tensors whose source or destination space is unknown (pre-bufferization IR)";
    record.modelled = false;
  } else if (tensor_form && record.modelled && !inferred) {
    record.notes.push_back("tensor operands: address spaces unknown (pre-bufferization IR)");
  }
  if (op.name == "hivm.hir.load") {
    record.core = fn_core;
    if (record.src == Space::GM && record.dst != Space::UB && record.dst != Space::Unknown &&
        record.core == CoreType::AIV)
      record.notes.push_back("load into a non-UB space in a vector function");
  }
  for (const Operand &o : d.ins)
    if (const MemrefInfo *mi = ir_.mem_of(o.v)) append_roots(record.reads, mi->roots);
  for (const Operand &o : d.outs)
    if (const MemrefInfo *mi = ir_.mem_of(o.v)) append_roots(record.writes, mi->roots);
  // Accumulating ops read their destination too.
  if (record.cls == OpClass::Cube)
    for (const Operand &o : d.outs)
      if (const MemrefInfo *mi = ir_.mem_of(o.v)) append_roots(record.reads, mi->roots);
  record.issued_instructions = record.cls == OpClass::Cube ? 3 : 1;
  if (!record.modelled)
    handle_opaque(op, r, !record.unresolved_pipe.empty() ? record.unresolved_pipe.str() : "op not modelled: " + std::string(op.name));
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

void HivmOps::settle_local_spaces(CoreType core) {
  const Space local = core == CoreType::AIV ? Space::UB : core == CoreType::AIC ? Space::L1 : Space::Unknown;
  if (local == Space::Unknown) return;
  for (uint32_t r : pending_loads_) {
    OpRecord &record = ir_.rec(r);
    OpDetail &d = ir_.detail(r);
    for (Operand &o : d.outs)
      if (is_memref_or_tensor(o.type)) {
        o.type.space = local;
        break;
      }
    record.dst = local;
    record.path_name = path_word(record.src, record.dst);
    record.unresolved_pipe = "";
    record.opaque.reset();
    record.modelled = true;
    record.notes.push_back("tensor operands: the load's destination is the local buffer of the core inferred for its function");
  }
  pending_loads_.clear();
}

}  // namespace pb::hivm::analysis
