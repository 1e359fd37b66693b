//===- views.cpp - the memref views behind memref values ------------------===//
#include "views.hpp"

#include "op_syntax.hpp"

namespace pb::hivm::analysis {

namespace {

int64_t static_bytes(const Type &t) {
  auto n = t.static_elements();
  if (!n || !t.elem.known()) return -1;
  return elem_bytes_ceil(*n, t.elem.bits);
}

}  // namespace

void append_roots(std::vector<BufferRef> &to, const std::vector<BufferRef> &from) {
  for (const BufferRef &b : from) {
    bool dup = false;
    for (const BufferRef &x : to)
      if (x.kind == b.kind && x.space == b.space && x.base0 == b.base0 && x.base1 == b.base1 && x.id == b.id &&
          x.bytes == b.bytes)
        dup = true;
    if (!dup) to.push_back(b);
  }
}

void ViewBuilder::define_results_unknown(const Op &op, const std::vector<TokSpan> &types) {
  std::vector<std::string_view> names = scope_.result_names(op);
  for (size_t idx = 0; idx < names.size(); ++idx) {
    Value v;
    if (idx < types.size()) v.type = ir_.type_of(types[idx]);
    v.line = op.line;
    if (v.type.kind == Type::Kind::Memref) {
      MemrefInfo info = static_memref_info(v.type);
      BufferRef root;
      root.space = v.type.space;
      info.roots.push_back(root);
      v.mem = ir_.new_mem(std::move(info));
    }
    scope_.define(names[idx], ir_.add_value(std::move(v)));
  }
}

void ViewBuilder::handle_view(const Op &op, uint32_t r) {
  OpRecord &record = ir_.rec(r);
  record.scalar_kind = "address";
  std::string_view m = op.name.substr(op.name.find('.') + 1);
  TokSpan s = tokens_of(op);
  std::vector<std::string_view> names = scope_.result_names(op);
  std::vector<TokSpan> rtypes = trailing_types(op);
  ValueId src = scope_.use(leading_operand(op));
  const MemrefInfo *src_info = ir_.mem_of(src);
  Type src_type = src != kNone ? ir_.values[src].type : Type{};
  // Address computation: each dynamic offset/size/stride operand costs an instruction.
  uint32_t dynamic_operands = 0;
  if (m == "subview" || m == "reinterpret_cast" || m == "view") {
    std::vector<std::string_view> ids = op.generic ? generic_parts(op).operands : percent_ids(s);
    dynamic_operands = ids.size() > 1 ? static_cast<uint32_t>(ids.size() - 1) : 0;
  }
  record.scalar_instructions = dynamic_operands;
  record.issued_instructions = dynamic_operands;

  auto src_dim = [&](size_t idx) -> DimRef {
    if (src_info != nullptr && idx < src_info->dims.size()) return src_info->dims[idx];
    if (idx < src_type.shape.size()) {
      int64_t d = src_type.shape[idx];
      return {d, kNone, d == kDynamic ? -1 : d};
    }
    return {};
  };
  auto src_stride = [&](size_t idx) -> DimRef {
    if (src_info != nullptr && idx < src_info->strides.size()) return src_info->strides[idx];
    if (idx < src_type.strides.size()) return {src_type.strides[idx], kNone, -1};
    return {};
  };
  auto bound_of = [](const DimRef &d) { return d.c != kDynamic ? d.c : d.bound; };

  for (size_t res = 0; res < names.size(); ++res) {
    Value v;
    v.line = op.line;
    if (res < rtypes.size()) v.type = ir_.type_of(rtypes[res]);
    if (v.type.kind != Type::Kind::Memref) {
      scope_.define(names[res], ir_.add_value(std::move(v)));
      continue;
    }
    MemrefInfo info;
    info.offset = kUnknownOffset;
    const DimRef src_offset = src_info != nullptr ? src_info->offset : kUnknownOffset;
    if (src_info != nullptr) info.roots = src_info->roots;
    if (info.roots.empty()) {
      BufferRef root;
      root.space = v.type.space;
      info.roots.push_back(root);
    }
    const Type &t = v.type;
    info.dims.resize(t.rank());
    info.strides.resize(t.rank());
    for (size_t idx = 0; idx < t.rank(); ++idx) {
      info.dims[idx] = {t.shape[idx], kNone, t.shape[idx] == kDynamic ? -1 : t.shape[idx]};
      info.strides[idx] = {t.strides[idx], kNone, -1};
    }
    if (!op.generic && res == 0 && (m == "subview" || m == "view")) {
      // %src[offsets] [sizes] [strides]
      std::vector<TokSpan> groups;
      for (size_t idx = 1; idx < s.size() && groups.size() < 3;) {
        if (s[idx].kind == Tok::LSquare) {
          auto g = group_at(s, idx);
          if (!g) break;
          groups.push_back(g->first);
          idx = g->second;
        } else if (s[idx].kind == Tok::Colon) {
          break;
        } else {
          ++idx;
        }
      }
      if (!groups.empty()) {
        std::vector<ListEntry> offsets = list_entries(groups[0]);
        if (std::all_of(offsets.begin(), offsets.end(), [](const ListEntry &e) { return e.c == 0; }))
          info.offset = src_offset;
      }
      if (groups.size() >= 2) {
        std::vector<ListEntry> sizes = list_entries(groups[1]);
        std::vector<ListEntry> steps = groups.size() >= 3 ? list_entries(groups[2]) : std::vector<ListEntry>{};
        std::vector<size_t> kept;
        size_t drop = sizes.size() > t.rank() ? sizes.size() - t.rank() : 0;
        for (size_t idx = 0; idx < sizes.size(); ++idx) {
          if (drop > 0 && sizes[idx].c == 1) {
            --drop;
            continue;
          }
          kept.push_back(idx);
        }
        for (size_t idx = 0; idx < t.rank() && idx < kept.size(); ++idx) {
          const ListEntry &e = sizes[kept[idx]];
          int64_t bound = bound_of(src_dim(kept[idx]));
          if (e.c != kDynamic) info.dims[idx] = {e.c, kNone, e.c};
          else info.dims[idx] = {kDynamic, scope_.use(e.name), bound};
          if (t.strides[idx] == kDynamic) {
            bool unit_step = kept[idx] < steps.size() && steps[kept[idx]].c == 1;
            if (unit_step) info.strides[idx] = src_stride(kept[idx]);
          }
        }
      }
    } else if (!op.generic && res == 0 && m == "reinterpret_cast") {
      if (auto off = list_after(s, "offset")) {
        std::vector<ListEntry> offsets = list_entries(*off);
        if (offsets.size() == 1)
          info.offset = offsets[0].c != kDynamic ? DimRef{offsets[0].c, kNone, -1} : DimRef{kDynamic, scope_.use(offsets[0].name), -1};
      }
      if (auto sz = list_after(s, "sizes")) {
        std::vector<ListEntry> sizes = list_entries(*sz);
        for (size_t idx = 0; idx < t.rank() && idx < sizes.size(); ++idx)
          info.dims[idx] = sizes[idx].c != kDynamic ? DimRef{sizes[idx].c, kNone, sizes[idx].c}
                                                    : DimRef{kDynamic, scope_.use(sizes[idx].name), -1};
      }
      if (auto st = list_after(s, "strides")) {
        std::vector<ListEntry> strides = list_entries(*st);
        for (size_t idx = 0; idx < t.rank() && idx < strides.size(); ++idx)
          info.strides[idx] = strides[idx].c != kDynamic ? DimRef{strides[idx].c, kNone, -1}
                                                         : DimRef{kDynamic, scope_.use(strides[idx].name), -1};
      }
    } else if (m == "cast" || m == "bitcast") {
      if (m == "cast") info.offset = src_offset;
      if (src_info != nullptr && src_info->dims.size() == t.rank() && m == "cast") {
        info.dims = src_info->dims;
        info.strides = src_info->strides;
      }
    } else if (!op.generic && m == "collapse_shape") {
      info.offset = src_offset;
      std::vector<std::vector<int64_t>> groups;
      if (s.size() > 1 && s[1].kind == Tok::LSquare)
        if (auto g = group_at(s, 1))
          for (TokSpan grp : split_top(g->first, Tok::Comma)) {
            std::vector<int64_t> members;
            for (size_t idx = 0; idx < grp.size(); ++idx)
              if (grp[idx].kind == Tok::Integer)
                if (auto n = parse_int(grp[idx].text())) members.push_back(*n);
            groups.push_back(members);
          }
      for (size_t gi = 0; gi < groups.size() && gi < t.rank(); ++gi) {
        int64_t c = 1, bound = 1;
        ValueId dyn = kNone;
        bool bound_known = true;
        for (int64_t member : groups[gi]) {
          DimRef d = src_dim(static_cast<size_t>(member));
          int64_t b = bound_of(d);
          // Overflow-checked (found by fuzz_hivm: a dynamic member before a
          // static one multiplied kDynamic, INT64_MIN, by the static size).
          if (b < 0 || (bound_known && __builtin_mul_overflow(bound, b, &bound))) bound_known = false;
          if (d.c != kDynamic) {
            if (c != kDynamic && __builtin_mul_overflow(c, d.c, &c)) c = kDynamic;
          } else if (d.v != kNone) {
            if (dyn == kNone) {
              dyn = d.v;
            } else {
              Value prod;
              prod.kind = VKind::Binary;
              prod.op = static_cast<uint8_t>(BinOp::Mul);
              prod.a = dyn;
              prod.b = d.v;
              prod.type = parse_type("index");
              dyn = ir_.add_value(std::move(prod));
            }
          } else {
            c = kDynamic;
          }
        }
        if (c == kDynamic) {
          info.dims[gi] = {kDynamic, kNone, bound_known ? bound : -1};
        } else if (dyn == kNone) {
          info.dims[gi] = {c, kNone, c};
        } else {
          ValueId prod = dyn;
          if (c != 1) {
            Value k;
            k.kind = VKind::Const;
            k.c = c;
            Value mul;
            mul.kind = VKind::Binary;
            mul.op = static_cast<uint8_t>(BinOp::Mul);
            mul.a = dyn;
            mul.b = ir_.add_value(std::move(k));
            prod = ir_.add_value(std::move(mul));
          }
          info.dims[gi] = {kDynamic, prod, bound_known ? bound : -1};
        }
        if (!groups[gi].empty() && t.strides[gi] == kDynamic)
          info.strides[gi] = src_stride(static_cast<size_t>(groups[gi].back()));
      }
    } else if (!op.generic && m == "expand_shape") {
      info.offset = src_offset;
      if (auto os = list_after(s, "output_shape")) {
        std::vector<ListEntry> shape = list_entries(*os);
        for (size_t idx = 0; idx < t.rank() && idx < shape.size(); ++idx)
          info.dims[idx] = shape[idx].c != kDynamic ? DimRef{shape[idx].c, kNone, shape[idx].c}
                                                    : DimRef{kDynamic, scope_.use(shape[idx].name), -1};
      }
    } else if (m == "extract_strided_metadata") {
      // Result 0 is the base buffer; the rest are index values.
    }
    // A dynamic dimension not resolved above still has the source's extent as a bound.
    for (size_t idx = 0; idx < info.dims.size(); ++idx)
      if (info.dims[idx].c == kDynamic && info.dims[idx].v == kNone && info.dims[idx].bound < 0 && src_info != nullptr &&
          src_info->dims.size() == info.dims.size())
        info.dims[idx].bound = bound_of(src_info->dims[idx]);
    v.mem = ir_.new_mem(std::move(info));
    scope_.define(names[res], ir_.add_value(std::move(v)));
  }
}

void ViewBuilder::handle_alloc(const Op &op, uint32_t r) {
  OpRecord &record = ir_.rec(r);
  TokSpan s = tokens_of(op);
  std::vector<std::string_view> names = scope_.result_names(op);
  std::vector<TokSpan> rtypes = trailing_types(op);
  Value v;
  v.line = op.line;
  if (!rtypes.empty()) v.type = ir_.type_of(rtypes[0]);
  BufferRef root;
  root.space = v.type.space;
  root.bytes = static_bytes(v.type);
  std::vector<std::string_view> operands =
      op.generic ? generic_parts(op).operands
                 : (s.size() > 0 && s[0].kind == Tok::LParen ? (group_at(s, 0) ? percent_ids(group_at(s, 0)->first)
                                                                                 : std::vector<std::string_view>{})
                                                              : std::vector<std::string_view>{});
  auto const_of = [&](std::string_view name) -> int64_t {
    Eval e = ev_.eval(scope_.use(name));
    return e.iv.exact() ? e.iv.lo : -1;
  };
  if (op.name == "hivm.hir.pointer_cast") {
    // HIVMOps.td, PointerCastOp: at least one address.
    if (!op.generic && operands.empty() && !s.empty() && s[0].kind == Tok::LParen)
      throw SourceError(op.line, op.col, "'hivm.hir.pointer_cast': no address: it needs at least one (HIVMOps.td)");
    root.kind = BufferRef::Kind::Address;
    if (!operands.empty()) root.base0 = const_of(operands[0]);
    if (operands.size() > 1) root.base1 = const_of(operands[1]);
    if (operands.size() > 2) record.notes.push_back("pointer_cast with more than two addresses: the first two are kept");
    record.scalar_kind = "address";
  } else if (op.name == "memref_ext.alloc_workspace") {
    root.kind = BufferRef::Kind::Workspace;
    root.space = Space::GM;
    if (auto off = list_after(s, "offset")) {
      std::vector<ListEntry> entries = list_entries(*off);
      if (!entries.empty()) root.base0 = entries[0].c != kDynamic ? entries[0].c : const_of(entries[0].name);
    } else if (op.generic && operands.size() > 1) {
      root.base0 = const_of(operands[1]);
    }
    set_scalar_work(record, 1, "address");
  } else {
    root.kind = BufferRef::Kind::Alloc;
    root.id = ir_.alloc_ids++;
  }
  if (v.type.kind == Type::Kind::Memref) {
    MemrefInfo info = static_memref_info(v.type);
    info.roots.push_back(root);
    v.mem = ir_.new_mem(std::move(info));
  }
  if (!names.empty()) scope_.define(names[0], ir_.add_value(std::move(v)));
}

std::vector<BufferRef> ViewBuilder::yield_roots(const Region &region, size_t position) {
  std::vector<BufferRef> out;
  if (region.blocks.empty() || region.blocks.back().ops.empty()) return out;
  const Op &term = region.blocks.back().ops.back();
  if (term.name != "scf.yield") return out;
  TokSpan s = tokens_of(term);
  std::vector<std::string_view> ids;
  if (term.generic) ids = generic_parts(term).operands;
  else ids = percent_ids(find_top(s, Tok::Colon) ? s.sub(0, *find_top(s, Tok::Colon)) : s);
  if (position < ids.size())
    if (const MemrefInfo *mi = ir_.mem_of(scope_.use(ids[position]))) out = mi->roots;
  return out;
}

void ViewBuilder::define_region_results(const Op &op, TokSpan s, const std::vector<std::vector<BufferRef>> &roots) {
  std::vector<std::string_view> names = scope_.result_names(op);
  std::vector<TokSpan> rtypes;
  if (!op.generic) {
    if (auto arrow = find_top(s, Tok::Arrow))
      if (*arrow + 1 < s.size() && s[*arrow + 1].kind == Tok::LParen)
        if (auto g = group_at(s, *arrow + 1)) rtypes = split_top(g->first, Tok::Comma);
  } else {
    rtypes = generic_parts(op).result_types;
  }
  for (size_t idx = 0; idx < names.size(); ++idx) {
    Value v;
    v.line = op.line;
    if (idx < rtypes.size()) v.type = ir_.type_of(rtypes[idx]);
    if (v.type.kind == Type::Kind::Memref) {
      MemrefInfo info = static_memref_info(v.type);
      info.offset = kUnknownOffset;
      if (idx < roots.size()) info.roots = roots[idx];
      if (info.roots.empty()) info.roots.push_back(BufferRef{BufferRef::Kind::Unknown, v.type.space});
      v.mem = ir_.new_mem(std::move(info));
    }
    scope_.define(names[idx], ir_.add_value(std::move(v)));
  }
}

DimEval ShapeResolver::eval_dim(const DimRef &d, uint8_t &taint) {
  DimEval out;
  if (d.c != kDynamic) {
    out.value = d.c;
    out.exact = out.known = true;
    return out;
  }
  if (d.v != kNone) {
    Eval e = ev_.eval(d.v);
    taint |= e.taint;
    if (e.iv.exact()) {
      out.value = std::max<int64_t>(0, e.iv.lo);
      out.exact = out.known = true;
      return out;
    }
    if (e.iv.hi != Interval::kPosInf) {
      out.value = std::max<int64_t>(0, e.iv.hi);
      if (d.bound >= 0) out.value = std::min(out.value, d.bound);
      out.known = true;
      return out;
    }
  }
  if (d.bound >= 0) {
    out.value = d.bound;
    out.known = true;
  }
  return out;
}

std::vector<DimEval> ShapeResolver::shape_of(const Operand &o, uint8_t &taint) {
  std::vector<DimEval> dims;
  const MemrefInfo *mi = ir_.mem_of(o.v);
  for (size_t idx = 0; idx < o.type.rank(); ++idx) {
    int64_t s = o.type.shape[idx];
    if (s != kDynamic) {
      dims.push_back({s, true, true});
    } else if (mi != nullptr && mi->dims.size() == o.type.rank()) {
      dims.push_back(eval_dim(mi->dims[idx], taint));
    } else {
      dims.push_back({});
    }
  }
  return dims;
}

std::vector<int64_t> ShapeResolver::strides_of(const Operand &o, uint8_t &taint) {
  std::vector<int64_t> strides(o.type.rank(), kDynamic);
  const MemrefInfo *mi = ir_.mem_of(o.v);
  for (size_t idx = 0; idx < o.type.rank(); ++idx) {
    if (o.type.strides_known && idx < o.type.strides.size() && o.type.strides[idx] != kDynamic) {
      strides[idx] = o.type.strides[idx];
    } else if (mi != nullptr && mi->strides.size() == o.type.rank() && mi->strides[idx].v != kNone) {
      Eval e = ev_.eval(mi->strides[idx].v);
      taint |= e.taint;
      if (e.iv.exact()) strides[idx] = e.iv.lo;
    } else if (mi != nullptr && mi->strides.size() == o.type.rank() && mi->strides[idx].c != kDynamic) {
      strides[idx] = mi->strides[idx].c;
    }
  }
  return strides;
}


}  // namespace pb::hivm::analysis
