//===- scalar_ops.cpp - scalar ops as SSA value expressions ---------------===//
#include "scalar_ops.hpp"

#include "op_syntax.hpp"

namespace pb::hivm::analysis {

void ScalarOps::handle_constant(const Op &op, uint32_t r) {
  Value v;
  v.line = op.line;
  TokSpan s = tokens_of(op);
  TokSpan value_toks = s;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    if (auto val = named_attr(g.props, "value")) value_toks = *val;
    else if (auto val2 = named_attr(g.attrs, "value")) value_toks = *val2;
    if (!g.result_types.empty()) v.type = ir_.type_of(g.result_types[0]);
  } else {
    std::vector<TokSpan> types = trailing_types(op);
    if (!types.empty()) v.type = ir_.type_of(types[0]);
  }
  bool neg = false;
  for (size_t idx = 0; idx < value_toks.size(); ++idx) {
    const Token &t = value_toks[idx];
    if (t.kind == Tok::Minus) {
      neg = true;
      continue;
    }
    if (t.kind == Tok::Integer) {
      if (auto n = parse_int(t.text())) {
        v.kind = VKind::Const;
        v.c = neg ? -*n : *n;
      }
    } else if (t.kind == Tok::BareId && (t.text() == "true" || t.text() == "false")) {
      v.kind = VKind::Const;
      v.c = t.text() == "true" ? 1 : 0;
      if (v.type.kind == Type::Kind::Unknown) v.type = parse_type("i1");
    }
    break;
  }
  std::vector<std::string_view> names = scope_.result_names(op);
  if (!names.empty()) scope_.define(names[0], ir_.add_value(std::move(v)));
  (void)r;
}

void ScalarOps::handle_arith(const Op &op, uint32_t r, OpClass cls) {
  OpRecord &record = ir_.rec(r);
  set_scalar_work(record, 1,
                  cls == OpClass::ScalarArith     ? Word("arith")
                  : cls == OpClass::ScalarCompare ? Word("compare")
                  : cls == OpClass::ScalarBitwise ? Word("bitwise")
                                                  : Word("cast"));
  std::vector<std::string_view> operands;
  std::vector<TokSpan> result_types;
  std::string_view pred_word;
  std::optional<int64_t> pred_int;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    operands = g.operands;
    result_types = g.result_types;
    if (auto p = named_attr(g.props, "predicate")) pred_int = first_int(*p);
    else if (auto p2 = named_attr(g.attrs, "predicate")) pred_int = first_int(*p2);
  } else {
    TokSpan s = tokens_of(op);
    if (auto colon = find_top(s, Tok::Colon)) {
      TokSpan head = s.sub(0, *colon);
      operands = percent_ids(head);
      if (!head.empty() && head[0].kind == Tok::BareId) pred_word = head[0].text();
    }
    result_types = trailing_types(op);
  }
  std::string_view name = op.name;
  Value v;
  v.line = op.line;
  if (!result_types.empty()) v.type = ir_.type_of(result_types[0]);
  // Record the operand type for the fallback oracle (i32/i64 arithmetic).
  if (!operands.empty()) {
    ValueId a = scope_.use(operands[0]);
    if (a != kNone && ir_.values[a].type.kind == Type::Kind::Scalar) record.dtype = dtype_name(ir_.values[a].type.elem);
  }
  if (record.dtype.empty() && v.type.kind == Type::Kind::Scalar) record.dtype = dtype_name(v.type.elem);
  auto set_bin = [&](BinOp op2) {
    if (operands.size() >= 2) {
      v.kind = VKind::Binary;
      v.op = static_cast<uint8_t>(op2);
      v.a = scope_.use(operands[0]);
      v.b = scope_.use(operands[1]);
    }
  };
  std::string_view m = name.substr(name.find('.') + 1);
  if (m == "addi") set_bin(BinOp::Add);
  else if (m == "subi") set_bin(BinOp::Sub);
  else if (m == "muli") set_bin(BinOp::Mul);
  else if (m == "divsi" || m == "divui") set_bin(BinOp::DivS);
  else if (m == "floordivsi") set_bin(BinOp::FloorDiv);
  else if (m == "ceildivsi" || m == "ceildivui") set_bin(BinOp::CeilDiv);
  else if (m == "remsi" || m == "remui") set_bin(BinOp::RemS);
  else if (m == "minsi" || m == "minui") set_bin(BinOp::Min);
  else if (m == "maxsi" || m == "maxui") set_bin(BinOp::Max);
  else if (m == "andi") set_bin(BinOp::And);
  else if (m == "ori") set_bin(BinOp::Or);
  else if (m == "xori") set_bin(BinOp::Xor);
  else if (m == "shli") set_bin(BinOp::Shl);
  else if (m == "shrsi" || m == "shrui") set_bin(BinOp::ShrS);
  else if (m == "cmpi") {
    v.type = parse_type("i1");
    if (operands.size() >= 2) {
      static const std::pair<std::string_view, CmpPred> kPreds[] = {
          {"eq", CmpPred::EQ}, {"ne", CmpPred::NE}, {"slt", CmpPred::LT}, {"sle", CmpPred::LE}, {"sgt", CmpPred::GT},
          {"sge", CmpPred::GE}, {"ult", CmpPred::LT}, {"ule", CmpPred::LE}, {"ugt", CmpPred::GT}, {"uge", CmpPred::GE}};
      std::optional<CmpPred> pred;
      for (auto [w, p] : kPreds)
        if (w == pred_word) pred = p;
      if (!pred && pred_int && *pred_int >= 0 && *pred_int < 10) pred = kPreds[*pred_int].second;
      if (pred) {
        v.kind = VKind::Compare;
        v.op = static_cast<uint8_t>(*pred);
        v.a = scope_.use(operands[0]);
        v.b = scope_.use(operands[1]);
      }
    }
  } else if (m == "select") {
    if (operands.size() >= 3) {
      v.kind = VKind::Select;
      v.a = scope_.use(operands[0]);
      v.b = scope_.use(operands[1]);
      v.d = scope_.use(operands[2]);
    }
  } else if (m == "index_cast" || m == "index_castui" || m == "extsi" || m == "extui" || m == "trunci") {
    if (!operands.empty()) {
      v.kind = VKind::Cast;
      v.a = scope_.use(operands[0]);
      v.to_i1 = v.type.kind == Type::Kind::Scalar && v.type.elem.is_int && v.type.elem.bits == 1;
    }
  } else if (m == "cmpf") {
    v.type = parse_type("i1");
  }
  std::vector<std::string_view> names = scope_.result_names(op);
  if (names.size() == 1) {
    scope_.define(names[0], ir_.add_value(std::move(v)));
  } else {
    for (size_t idx = 0; idx < names.size(); ++idx) {
      Value u;
      u.line = op.line;
      if (idx < result_types.size()) u.type = ir_.type_of(result_types[idx]);
      scope_.define(names[idx], ir_.add_value(std::move(u)));
    }
  }
}

void ScalarOps::handle_affine(const Op &op, uint32_t r) {
  OpRecord &record = ir_.rec(r);
  record.scalar_kind = "address";
  std::string_view map_text;
  std::vector<std::string_view> dims, syms;
  TokSpan s = tokens_of(op);
  if (op.generic) {
    GenericParts g = generic_parts(op);
    if (auto m = named_attr(g.props, "map")) map_text = m->text();
    else if (auto m2 = named_attr(g.attrs, "map")) map_text = m2->text();
    dims = g.operands;  // dims then symbols, in order
  } else {
    size_t idx = 0;
    if (idx < s.size() && s[idx].kind == Tok::BareId && s[idx].text() == "affine_map") {
      if (auto g = group_at(s, idx + 1)) {
        map_text = span(s[idx], s[g->second - 1]);
        idx = g->second;
      }
    } else if (idx < s.size() && s[idx].kind == Tok::HashId) {
      auto it = ir_.aliases.find(s[idx].text());
      if (it != ir_.aliases.end()) map_text = it->second;
      ++idx;
    }
    if (idx < s.size() && s[idx].kind == Tok::LParen)
      if (auto g = group_at(s, idx)) {
        dims = percent_ids(g->first);
        idx = g->second;
      }
    if (idx < s.size() && s[idx].kind == Tok::LSquare)
      if (auto g = group_at(s, idx)) syms = percent_ids(g->first);
  }
  Value v;
  v.line = op.line;
  v.type = parse_type("index");
  std::string key(map_text);
  auto cached = map_cache_.find(key);
  std::optional<uint32_t> map_idx;
  if (cached != map_cache_.end()) {
    map_idx = cached->second;
  } else {
    std::string error;
    if (auto map = AffineMap::parse(map_text, &error)) {
      ir_.maps.push_back(std::move(*map));
      map_idx = static_cast<uint32_t>(ir_.maps.size() - 1);
      map_cache_[key] = *map_idx;
    } else {
      throw SourceError(op.line, op.col, "cannot read the affine map of " + std::string(op.name) + ": " + error);
    }
  }
  const AffineMap &map = ir_.maps[*map_idx];
  AffineUse use_rec;
  use_rec.map = *map_idx;
  use_rec.flavour = op.name == "affine.min" ? 1 : (op.name == "affine.max" ? 2 : 0);
  for (std::string_view d : dims) use_rec.operands.push_back(scope_.use(d));
  for (std::string_view sy : syms) use_rec.operands.push_back(scope_.use(sy));
  uint32_t ops = 0;
  for (size_t res = 0; res < map.num_results(); ++res) ops += map.op_count(res);
  if (map.num_results() > 1) ops += static_cast<uint32_t>(map.num_results() - 1);
  record.scalar_instructions = std::max<uint32_t>(1, ops);
  record.issued_instructions = record.scalar_instructions;
  ir_.affine_uses.push_back(std::move(use_rec));
  v.kind = VKind::Affine;
  v.aux = static_cast<uint32_t>(ir_.affine_uses.size() - 1);
  std::vector<std::string_view> names = scope_.result_names(op);
  if (!names.empty()) scope_.define(names[0], ir_.add_value(std::move(v)));
}

void ScalarOps::handle_scalar_memory(const Op &op, uint32_t r, int32_t path) {
  OpRecord &record = ir_.rec(r);
  record.scalar_instructions = 1;
  record.issued_instructions = 1;
  bool is_load = op.name == "memref.load";
  std::string_view memref_name;
  TokSpan type_toks;
  if (op.generic) {
    GenericParts g = generic_parts(op);
    size_t mpos = is_load ? 0 : 1;
    if (g.operands.size() > mpos) memref_name = g.operands[mpos];
    if (g.operand_types.size() > mpos) type_toks = g.operand_types[mpos];
  } else {
    TokSpan s = tokens_of(op);
    auto colon = find_last_top(s, Tok::Colon);
    if (colon) {
      type_toks = s.from(*colon + 1);
      std::vector<std::string_view> ids = percent_ids(s.sub(0, *colon));
      size_t mpos = is_load ? 0 : 1;
      if (ids.size() > mpos) memref_name = ids[mpos];
    }
  }
  Type t = ir_.type_of(type_toks);
  ValueId m = scope_.use(memref_name);
  Space space = t.space;
  if (space == Space::Unknown && m != kNone) space = ir_.values[m].type.space;
  record.dtype = dtype_name(t.elem);
  const uint32_t bytes = t.elem.bits / 8 > 0 ? t.elem.bits / 8 : 1;
  if (is_load) {
    record.src = space;
    record.scalar_kind = space == Space::GM ? Word("gm_load") : Word("ub_access");
  } else {
    record.dst = space;
    record.scalar_kind = space == Space::GM ? Word("gm_store") : Word("ub_access");
  }
  if (space == Space::GM) record.scalar_gm_bytes = bytes;
  record.mutable_totals().bytes = Quantity::exact(bytes);
  record.mutable_totals().elements = Quantity::exact(1);
  if (const MemrefInfo *info = ir_.mem_of(m)) {
    if (is_load) record.reads = info->roots;
    else record.writes = info->roots;
  }
  ir_.mark_hivm(path, true);
  if (is_load) {
    Value v;
    v.kind = VKind::Data;
    v.line = op.line;
    // A load from a kernel argument at a known offset: the user may give its contents.
    const MemrefInfo *info = ir_.mem_of(m);
    if (info != nullptr && info->roots.size() == 1 && info->roots[0].kind == BufferRef::Kind::Arg &&
        !(info->offset.c == kDynamic && info->offset.v == kNone) && t.elem.is_int) {
      std::vector<std::string_view> ids;
      if (op.generic) {
        std::vector<std::string_view> all = generic_parts(op).operands;
        if (!all.empty()) ids.assign(all.begin() + 1, all.end());
      } else {
        TokSpan s = tokens_of(op);
        if (auto colon = find_last_top(s, Tok::Colon)) {
          std::vector<std::string_view> all = percent_ids(s.sub(0, *colon));
          if (!all.empty()) ids.assign(all.begin() + 1, all.end());
        }
      }
      if (ids.size() == info->strides.size()) {
        LoadInfo li;
        li.arg = info->roots[0].id;
        li.offset = info->offset;
        li.strides = info->strides;
        for (std::string_view id : ids) li.indices.push_back(scope_.use(id));
        ir_.loads.push_back(std::move(li));
        v.kind = VKind::Load;
        v.aux = static_cast<uint32_t>(ir_.loads.size() - 1);
      }
    }
    Type et;
    et.kind = Type::Kind::Scalar;
    et.elem = t.elem;
    v.type = et;
    std::vector<std::string_view> names = scope_.result_names(op);
    if (!names.empty()) scope_.define(names[0], ir_.add_value(std::move(v)));
  }
}

void ScalarOps::handle_hivm_scalar(const Op &op, uint32_t r) {
  OpRecord &record = ir_.rec(r);
  set_scalar_work(record, 1, "hivm");
  std::vector<std::string_view> names = scope_.result_names(op);
  std::vector<TokSpan> rtypes = trailing_types(op);
  if (op.name == "hivm.hir.create_sync_block_lock" && !op.generic && !rtypes.empty()) {
    // HIVMSynchronizationOps.td: the lock is a static buffer.
    Type t = ir_.type_of(rtypes[0]);
    if (t.kind == Type::Kind::Memref && !t.static_elements())
      throw SourceError(op.line, op.col, "'hivm.hir.create_sync_block_lock': the lock must have a static shape");
  }
  for (size_t idx = 0; idx < names.size(); ++idx) {
    Value v;
    v.line = op.line;
    if (idx < rtypes.size()) v.type = ir_.type_of(rtypes[idx]);
    if (op.name == "hivm.hir.get_block_idx") v.kind = VKind::BlockIdx;
    else if (op.name == "hivm.hir.get_sub_block_idx") v.kind = VKind::SubBlockIdx;
    else if (op.name == "hivm.hir.get_block_num") v.kind = VKind::BlockNum;
    else if (op.name == "hivm.hir.get_sub_block_num") v.kind = VKind::SubBlockNum;
    scope_.define(names[idx], ir_.add_value(std::move(v)));
  }
}

void ScalarOps::handle_annotation(const Op &op, uint32_t r) {
  (void)r;
  TokSpan s = tokens_of(op);
  std::vector<std::string_view> operands = op.generic ? generic_parts(op).operands : percent_ids(s.sub(0, 1));
  if (has_word(s, "logical_block_num") && !operands.empty()) {
    ir_.logical_block_num = scope_.use(operands[0]);
    ir_.prog.functions[ir_.fn_index].logical_block_num = std::string(operands[0]);
  }
}

}  // namespace pb::hivm::analysis
