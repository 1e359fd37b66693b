//===- access_shapes.cpp - the accesses section ---------------------------===//
//
// One entry per memory access of the kernel: its tile shape and element
// offset, the mask and what it compares against, executions and requested
// bytes per program, active (mask-true) bytes, and the contiguity along the
// last tile dimension (the affine offset of the first program that runs it,
// else the strides of the tile dimensions evaluated with the launch).
//
#include "facts_document.hpp"

namespace perfbound::ttir {

namespace {


/// Arguments and loaded values a mask compares against.
json mask_bounds(const KernelModel &k, ExprId mask) {
  json out = json::array();
  std::set<std::string> seen;
  const ExprPool &pool = *k.pool;
  ExprNamer namer = k.namer();
  (void)pool.contains_if(mask, [&](const ExprNode &n, ExprId id) {
    std::string name;
    if (n.op == ExprOp::Arg) name = namer.arg(static_cast<int>(n.value));
    if (n.op == ExprOp::Opaque) {
      const OpaqueInfo &info = pool.opaque_info(id);
      name = "value at line " + std::to_string(info.line) + " (" + info.reason + ")";
    }
    if (!name.empty() && seen.insert(name).second) out.push_back(name);
    return false;
  });
  return out;
}

/// The symbolic coefficient of Dim(d) in `offset` when the offset is linear in
/// it ("" when it is not).
std::string dim_stride_text(const KernelModel &k, ExprId offset, int d) {
  const ExprPool &pool = *k.pool;
  ExprId dim = const_cast<ExprPool &>(pool).dim(d);
  Poly p = pool.to_poly(offset);
  Poly coeff;
  for (const auto &[mono, c] : p) {
    size_t hits = static_cast<size_t>(std::count(mono.begin(), mono.end(), dim));
    bool nested = false;
    for (ExprId atom : mono)
      if (atom != dim && pool.node(atom).op != ExprOp::Dim && pool.contains(atom, dim)) nested = true;
    if (nested || hits > 1) return "";
    if (hits == 1) {
      Monomial rest;
      for (ExprId atom : mono)
        if (atom != dim) rest.push_back(atom);
      coeff[rest] += c;
    }
  }
  return pool.poly_to_string(coeff, k.namer());
}

/// Element strides of each tile dimension when the offset is linear in every
/// dimension and the coefficients evaluate with the launch (program 0).
std::optional<std::vector<std::int64_t>> dim_strides(const KernelModel &k, const Access &a, const LaunchValues &lv) {
  if (a.offset == kNoExpr) return std::nullopt;
  const ExprPool &pool = *k.pool;
  Evaluator ev(pool);
  EvalEnv env;
  env.args = &lv.ints;
  for (int axis = 0; axis < 3; ++axis) env.num_programs[axis] = lv.grid[axis];
  env.loop_iters.assign(k.loops.size(), 0);
  Poly p = pool.to_poly(a.offset);
  std::vector<std::int64_t> strides(a.shape.size(), 0);
  for (const auto &[mono, c] : p) {
    int dim = -1;
    std::int64_t value = c;
    for (ExprId atom : mono) {
      const ExprNode &n = pool.node(atom);
      if (n.op == ExprOp::Dim) {
        if (dim >= 0) return std::nullopt;  // a product of two tile indices
        dim = static_cast<int>(n.value);
        continue;
      }
      if (n.dims != 0) return std::nullopt;  // a tile index inside a non-linear atom
    }
    if (dim < 0) continue;
    for (ExprId atom : mono) {
      if (pool.node(atom).op == ExprOp::Dim) continue;
      EvalResult r = ev.eval(atom, env);
      if (!r.value) return std::nullopt;
      value *= *r.value;
    }
    if (static_cast<size_t>(dim) < strides.size()) strides[static_cast<size_t>(dim)] += value;
  }
  return strides;
}

}  // namespace

void add_accesses(FactsDoc &fd) {
  const KernelModel &k = fd.k;
  const LaunchValues &lv = fd.lv;
  Evaluation &ev = fd.ev;
  const ExprPool &pool = *k.pool;
  ExprNamer namer = k.namer();
  json accesses = json::array();
  for (const Access &a : k.accesses) {
    const auto id = static_cast<size_t>(a.id);
    json j;
    j["id"] = a.id;
    j["op"] = a.op;
    j["direction"] = kDirectionName[static_cast<int>(direction_of(a))];
    j["arg"] = a.arg >= 0 ? json(a.arg) : json(nullptr);
    j["arg_key"] = a.arg >= 0 ? json(k.args[static_cast<size_t>(a.arg)].key()) : json(nullptr);
    if (a.arg < 0) j["arg_reason"] = a.base_unknown;
    j["dtype"] = a.dtype;
    j["element_bytes"] = (a.element_bits + 7) / 8;
    j["shape"] = a.shape;
    j["elements"] = a.elements();
    j["bytes_per_execution"] = a.bytes();
    j["block_pointer"] = a.block_pointer;
    j["descriptor"] = a.descriptor;
    if (!a.detail.empty()) j["detail"] = a.detail;
    j["loop"] = a.loop >= 0 ? json(a.loop) : json(nullptr);
    j["conditional"] = a.cond != kNoExpr;
    j["offset"] = a.offset != kNoExpr ? json(pool.to_string(a.offset, namer)) : json(nullptr);
    if (a.mask != kNoExpr || !a.mask_kind.empty()) {
      json m;
      m["kind"] = a.mask_kind.empty() ? "mask operand" : a.mask_kind;
      m["expr"] = a.mask != kNoExpr ? json(pool.to_string(a.mask, namer)) : json(nullptr);
      m["bounds"] = a.mask != kNoExpr ? mask_bounds(k, a.mask) : json::array();
      m["other"] = a.has_other;
      j["mask"] = m;
    } else {
      j["mask"] = nullptr;
    }
    const Dist &exec = ev.access_exec[id];
    j["executions_per_program"] = exec.to_json();
    Qty req = exec.total();
    if (req.value) *req.value *= static_cast<double>(a.bytes());
    Dist req_pp = exec;
    req_pp.min *= static_cast<double>(a.bytes());
    req_pp.max *= static_cast<double>(a.bytes());
    req_pp.sum *= static_cast<double>(a.bytes());
    j["requested_bytes"] = {{"per_program", req_pp.to_json()}, {"total", req.to_json()}};
    Qty active = ev.unique().access_active_ok[id] ? Qty::of(ev.unique().access_active_sum[id])
                                         : Qty::unknown(ev.unique().access_active_why[id].empty() ? "not enumerated"
                                                                                          : ev.unique().access_active_why[id]);
    if (a.arg < 0) active = Qty::unknown(a.base_unknown);
    j["active_bytes"] = active.to_json();
    if (active.value && req.value && req.exact)
      j["masked_off_bytes"] = Qty::of(*req.value - *active.value).to_json();
    else
      j["masked_off_bytes"] = Qty::unknown(active.value ? "the requested bytes are not exact" : active.reason).to_json();
    // Contiguity along the last dimension (first program that runs it).
    json contiguity;
    if (a.shape.empty()) {
      contiguity["run_bytes"] = Qty::of(static_cast<double>(a.bytes())).to_json();
      contiguity["stride"] = nullptr;
    } else {
      const int last = static_cast<int>(a.shape.size()) - 1;
      std::string stride_text = a.offset != kNoExpr ? dim_stride_text(k, a.offset, last) : "";
      contiguity["stride"] = stride_text.empty() ? json(nullptr) : json(stride_text);
      const std::int64_t eb = (a.element_bits + 7) / 8;
      if (ev.unique().first_form[id]) {
        const AffineForm &f = *ev.unique().first_form[id];
        std::int64_t s = f.coeff(last);
        std::int64_t run = (s == 1 || s == -1) ? a.shape.back() : 1;
        contiguity["stride_elements"] = s;
        contiguity["run_bytes"] = Qty::of(static_cast<double>(run * eb)).to_json();
        // Whole-tile contiguity: dims merge while each stride is the size below.
        std::int64_t block = run;
        if (s == 1)
          for (int d = last - 1; d >= 0 && f.coeff(d) == block; --d) block *= a.shape[static_cast<size_t>(d)];
        contiguity["contiguous_block_bytes"] = Qty::of(static_cast<double>(block * eb)).to_json();
      } else if (auto strides = dim_strides(k, a, lv)) {
        // The base is unknown (e.g. offset by a loaded value) but the strides
        // of the tile dimensions are not: contiguity still follows.
        std::int64_t s = strides->back();
        std::int64_t run = (s == 1 || s == -1) ? a.shape.back() : 1;
        contiguity["stride_elements"] = s;
        contiguity["run_bytes"] = Qty::of(static_cast<double>(run * eb)).to_json();
        std::int64_t block = run;
        if (s == 1)
          for (int d = last - 1; d >= 0 && (*strides)[static_cast<size_t>(d)] == block; --d) block *= a.shape[static_cast<size_t>(d)];
        contiguity["contiguous_block_bytes"] = Qty::of(static_cast<double>(block * eb)).to_json();
      } else {
        std::string why = ev.unique().first_form_why[id].empty() ? (a.arg < 0 ? a.base_unknown : "the access does not run")
                                                        : ev.unique().first_form_why[id];
        contiguity["run_bytes"] = Qty::unknown(why).to_json();
        contiguity["contiguous_block_bytes"] = Qty::unknown(why).to_json();
      }
    }
    j["contiguity"] = contiguity;
    add_source(j, a.loc);
    accesses.push_back(std::move(j));
  }
  fd.doc["accesses"] = accesses;
}

}  // namespace perfbound::ttir
