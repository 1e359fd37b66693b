//===- value_eval.cpp - the values of SSA values, as intervals ------------===//
#include "value_eval.hpp"

#include <cmath>
#include <functional>
#include <limits>

namespace pb::hivm::analysis {

Interval ValueEvaluator::arg_value(uint32_t index, uint8_t &taint) {
  if (index < launch.arg_launch.size() && launch.arg_launch[index]) return Interval::point(*launch.arg_launch[index]);
  taint |= kTArg;
  return Interval::full();
}

Eval ValueEvaluator::eval(ValueId v) {
  if (v == kNone) return {Interval::full(), kTUnknown};
  if (memo_gen_.size() < ir_.values.size()) {
    memo_gen_.resize(ir_.values.size(), 0);
    memo_.resize(ir_.values.size());
  }
  if (memo_gen_[v] == gen_) return memo_[v];
  Eval e = eval_uncached(v);
  memo_gen_[v] = gen_;
  memo_[v] = e;
  return e;
}

Eval ValueEvaluator::eval_uncached(ValueId id) {
  const Value &v = ir_.values[id];
  Eval out;
  auto bin = [&](ValueId a, ValueId b) -> std::pair<Eval, Eval> {
    Eval ea = eval(a), eb = eval(b);
    out.taint = static_cast<uint8_t>(ea.taint | eb.taint);
    return {ea, eb};
  };
  switch (v.kind) {
    case VKind::Unknown: out.taint = kTUnknown; break;
    case VKind::Data: out.taint = kTData; break;
    case VKind::Load: out = eval_load(v); break;
    case VKind::Const: out.iv = Interval::point(v.c); break;
    case VKind::Arg: out.iv = arg_value(static_cast<uint32_t>(v.c), out.taint); break;
    case VKind::BlockIdx: out.iv = ctx.block; out.taint = kTBlock; break;
    case VKind::SubBlockIdx: out.iv = ctx.sub; out.taint = kTSub; break;
    case VKind::SubBlockNum: out.iv = Interval::point(ir_.instances); break;
    case VKind::BlockNum:
      if (ir_.prog.blocks) out.iv = Interval::point(*ir_.prog.blocks);
      else out.taint = kTArg;
      break;
    case VKind::IV: {
      const LoopInfo &loop = ir_.loops[v.aux];
      if (v.aux < ctx.iv.size() && ctx.iv[v.aux]) {
        out.iv = *ctx.iv[v.aux];
      } else {
        Eval lb = eval(loop.lb), ub = eval(loop.ub);
        out.taint = static_cast<uint8_t>(lb.taint | ub.taint);
        out.iv = {lb.iv.lo, ub.iv.hi == Interval::kPosInf ? ub.iv.hi : ub.iv.hi - 1};
        if (out.iv.hi < out.iv.lo) out.iv.hi = out.iv.lo;
      }
      out.taint |= kTIV;
      break;
    }
    case VKind::Binary: {
      auto [a, b] = bin(v.a, v.b);
      switch (static_cast<BinOp>(v.op)) {
        case BinOp::Add: out.iv = iv_add(a.iv, b.iv); break;
        case BinOp::Sub: out.iv = iv_sub(a.iv, b.iv); break;
        case BinOp::Mul: out.iv = iv_mul(a.iv, b.iv); break;
        case BinOp::DivS: out.iv = iv_divs(a.iv, b.iv); break;
        case BinOp::FloorDiv: out.iv = iv_floordiv(a.iv, b.iv); break;
        case BinOp::CeilDiv: out.iv = iv_ceildiv(a.iv, b.iv); break;
        case BinOp::RemS: out.iv = iv_rems(a.iv, b.iv); break;
        case BinOp::Min: out.iv = iv_min(a.iv, b.iv); break;
        case BinOp::Max: out.iv = iv_max(a.iv, b.iv); break;
        case BinOp::And:
        case BinOp::Or:
        case BinOp::Xor:
        case BinOp::Shl:
        case BinOp::ShrS:
          if (a.iv.exact() && b.iv.exact()) {
            int64_t x = a.iv.lo, y = b.iv.lo, r = 0;
            switch (static_cast<BinOp>(v.op)) {
              case BinOp::And: r = x & y; break;
              case BinOp::Or: r = x | y; break;
              case BinOp::Xor: r = x ^ y; break;
              case BinOp::Shl: r = (y >= 0 && y < 63) ? static_cast<int64_t>(static_cast<uint64_t>(x) << y) : 0; break;
              default: r = (y >= 0 && y < 63) ? (x >> y) : (x < 0 ? -1 : 0); break;
            }
            out.iv = Interval::point(r);
          } else if (a.iv.lo >= 0 && a.iv.hi <= 1 && b.iv.lo >= 0 && b.iv.hi <= 1) {
            // Booleans: a decided operand may decide the result.
            auto op = static_cast<BinOp>(v.op);
            if (op == BinOp::Or && ((a.iv.exact() && a.iv.lo == 1) || (b.iv.exact() && b.iv.lo == 1)))
              out.iv = Interval::point(1);
            else if (op == BinOp::And && ((a.iv.exact() && a.iv.lo == 0) || (b.iv.exact() && b.iv.lo == 0)))
              out.iv = Interval::point(0);
            else
              out.iv = {0, 1};
          } else {
            out.iv = Interval::full();
          }
          break;
      }
      break;
    }
    case VKind::Compare: {
      auto [a, b] = bin(v.a, v.b);
      auto pred = static_cast<CmpPred>(v.op);
      bool always = false, never = false;
      switch (pred) {
        case CmpPred::EQ:
          always = a.iv.exact() && b.iv.exact() && a.iv.lo == b.iv.lo;
          never = a.iv.hi < b.iv.lo || b.iv.hi < a.iv.lo;
          break;
        case CmpPred::NE:
          never = a.iv.exact() && b.iv.exact() && a.iv.lo == b.iv.lo;
          always = a.iv.hi < b.iv.lo || b.iv.hi < a.iv.lo;
          break;
        case CmpPred::LT: always = a.iv.hi < b.iv.lo; never = a.iv.lo >= b.iv.hi; break;
        case CmpPred::LE: always = a.iv.hi <= b.iv.lo; never = a.iv.lo > b.iv.hi; break;
        case CmpPred::GT: always = a.iv.lo > b.iv.hi; never = a.iv.hi <= b.iv.lo; break;
        case CmpPred::GE: always = a.iv.lo >= b.iv.hi; never = a.iv.hi < b.iv.lo; break;
      }
      out.iv = always ? Interval::point(1) : (never ? Interval::point(0) : Interval{0, 1});
      break;
    }
    case VKind::Select: {
      Eval c = eval(v.a);
      out.taint = c.taint;
      if (c.iv.exact()) {
        Eval chosen = eval(c.iv.lo != 0 ? v.b : v.d);
        out.iv = chosen.iv;
        out.taint |= chosen.taint;
      } else {
        Eval x = eval(v.b), y = eval(v.d);
        out.iv = iv_union(x.iv, y.iv);
        out.taint = static_cast<uint8_t>(out.taint | x.taint | y.taint);
      }
      break;
    }
    case VKind::Cast: {
      Eval a = eval(v.a);
      out = a;
      if (v.to_i1) {
        if (a.iv.exact()) out.iv = Interval::point(a.iv.lo & 1);
        else out.iv = {0, 1};
      }
      break;
    }
    case VKind::Affine: {
      const AffineUse &use = ir_.affine_uses[v.aux];
      const AffineMap &map = ir_.maps[use.map];
      std::vector<Interval> operands;
      operands.reserve(use.operands.size());
      for (ValueId o : use.operands) {
        Eval e = eval(o);
        out.taint |= e.taint;
        operands.push_back(e.iv);
      }
      if (map.num_results() == 0) {
        out.iv = Interval::full();
        out.taint |= kTUnknown;
        break;
      }
      Interval acc = map.eval(0, operands);
      for (size_t r = 1; r < map.num_results(); ++r) {
        Interval x = map.eval(r, operands);
        acc = use.flavour == 2 ? iv_max(acc, x) : iv_min(acc, x);
      }
      out.iv = acc;
      break;
    }
  }
  return out;
}

Interval ValueEvaluator::eval_dimref(const DimRef &d, uint8_t &taint) {
  if (d.c != kDynamic) return Interval::point(d.c);
  if (d.v == kNone) {
    taint |= kTUnknown;
    return Interval::full();
  }
  Eval e = eval(d.v);
  taint |= e.taint;
  return e.iv;
}

/// A load from an argument the user gave the contents of evaluates to the element it
/// reads (or the range of the elements it may read); any other load is data.
Eval ValueEvaluator::eval_load(const Value &v) {
  Eval out;
  out.taint = kTData;
  const LoadInfo &li = ir_.loads[v.aux];
  if (li.arg >= launch.arg_data.size() || launch.arg_data[li.arg] < 0) return out;
  const auto fact = static_cast<size_t>(launch.arg_data[li.arg]);
  const DataFact &data = ir_.opts.data[fact];
  uint8_t taint = 0;
  Interval index = eval_dimref(li.offset, taint);
  for (size_t k = 0; k < li.indices.size(); ++k) {
    Eval idx = eval(li.indices[k]);
    taint |= idx.taint;
    index = iv_add(index, iv_mul(idx.iv, eval_dimref(li.strides[k], taint)));
  }
  facts_used |= data_bit(fact);
  ir_.prog.data_fact_lines[static_cast<uint32_t>(fact)].insert(v.line);
  const auto n = static_cast<int64_t>(data.values.size());
  auto range_of = [&](int64_t lo, int64_t hi) {
    if (lo == 0 && hi == n - 1) return launch.data_range[fact];
    Interval r{Interval::kPosInf, Interval::kNegInf};
    for (int64_t k = lo; k <= hi; ++k) r = {std::min(r.lo, data.values[static_cast<size_t>(k)]),
                                            std::max(r.hi, data.values[static_cast<size_t>(k)])};
    return r;
  };
  out.taint = static_cast<uint8_t>(taint | kTGiven);
  if (index.exact() && (index.lo < 0 || index.lo >= n))
    throw SourceError(v.line, 1, "launch data.\"" + data.key + "\": this load reads element " +
                                     std::to_string(index.lo) + ", outside the " + std::to_string(n) +
                                     " elements given (" + data.source + ")");
  const int64_t lo = index.lo == Interval::kNegInf ? 0 : std::max<int64_t>(0, index.lo);
  const int64_t hi = index.hi == Interval::kPosInf ? n - 1 : std::min<int64_t>(n - 1, index.hi);
  if (lo > hi) {
    out.taint = static_cast<uint8_t>(out.taint | kTUnknown);
    return out;
  }
  // Any element of the range (the whole tensor when the index is unbounded).
  out.iv = hi - lo < (int64_t{1} << 16) ? range_of(lo, hi) : range_of(0, n - 1);
  return out;
}

/// Whether launch key `key` names the Triton argument at `position` whose
/// location carries `loc_name`: "%argP", "P", or a name (the TTIR
/// signature's, else the location's).
bool ValueEvaluator::names_position(const std::string &key, int64_t position, const std::string &loc_name) const {
  if (key == std::to_string(position) || key == "%arg" + std::to_string(position)) return true;
  if (!loc_name.empty() && key == loc_name) return true;
  auto it = ir_.opts.arg_names.find(key);
  return it != ir_.opts.arg_names.end() && it->second == position;
}

/// Refuses a launch value the argument's declared type cannot hold: a
/// non-integer or out-of-range number for an integer type, true/false for
/// anything but i1, a non-finite or out-of-range number for a float type.
void ValueEvaluator::check_launch_value(const std::string &key, const LaunchArgValue &given, const std::string &type) {
  auto refuse = [&](const std::string &expected) {
    throw FactError("launch.args.\"" + key + "\" = " + given.text + ": the argument is " + type + ", which takes " + expected);
  };
  if (type == "i1") {
    if (!given.boolean && !(given.integer && (given.exact == 0 || given.exact == 1))) refuse("true, false, 0 or 1");
    return;
  }
  int bits = 0;
  if (type == "index" || type == "i64" || type == "si64") bits = 64;
  else if (type == "i32" || type == "si32") bits = 32;
  else if (type == "i16" || type == "si16") bits = 16;
  else if (type == "i8" || type == "si8") bits = 8;
  if (bits > 0) {
    const std::string range = bits == 64 ? std::string("-2^63 to 2^63-1")
                                         : "-2^" + std::to_string(bits - 1) + " to 2^" + std::to_string(bits - 1) + "-1";
    // A whole number written as a float (TOML 16777216.0) is that integer.
    const bool whole = given.integer || (!given.boolean && std::isfinite(given.value) &&
                                         given.value == std::floor(given.value) && std::fabs(given.value) < 9.2e18);
    if (given.boolean || !whole || !given.fits) refuse("an integer from " + range);
    const int64_t exact = given.integer ? given.exact : static_cast<int64_t>(given.value);
    if (exact < (bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1))) ||
        exact > (bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1))
      refuse("an integer from " + range);
    return;
  }
  double max = 0;
  if (type == "f64") max = std::numeric_limits<double>::max();
  else if (type == "f32") max = std::numeric_limits<float>::max();
  else if (type == "f16") max = 65504.0;
  else if (type == "bf16") max = 3.3895313892515355e38;
  if (max > 0 && (given.boolean || !std::isfinite(given.value) || std::fabs(given.value) > max))
    refuse("a finite number of magnitude at most " + std::string(type == "f16" ? "65504" : type == "f32" ? "3.4e38" : type == "bf16" ? "3.39e38" : "1.8e308"));
}

void ValueEvaluator::bind_launch() {
  FunctionRecord &fr = ir_.prog.functions[ir_.fn_index];
  // Grid arguments: the factors of the value annotated {logical_block_num}.
  std::vector<uint32_t> grid_args;
  std::function<void(ValueId, int)> leaves = [&](ValueId v, int depth) {
    if (v == kNone || depth > 8) return;
    const Value &val = ir_.values[v];
    if (val.kind == VKind::Arg) grid_args.push_back(static_cast<uint32_t>(val.c));
    else if (val.kind == VKind::Binary && static_cast<BinOp>(val.op) == BinOp::Mul) {
      leaves(val.a, depth + 1);
      leaves(val.b, depth + 1);
    } else if (val.kind == VKind::Cast) {
      leaves(val.a, depth + 1);
    }
  };
  leaves(ir_.logical_block_num, 0);
  static const char *kAxis[] = {"grid_x", "grid_y", "grid_z"};
  launch.arg_launch.assign(fr.args.size(), std::nullopt);
  for (size_t axis = 0; axis < grid_args.size() && axis < 3; ++axis) {
    uint32_t idx = grid_args[axis];
    if (idx >= fr.args.size()) continue;
    fr.args[idx].role = kAxis[axis];
    if (ir_.opts.have_launch) {
      int64_t g = axis < ir_.opts.grid.size() ? ir_.opts.grid[axis] : 1;
      fr.args[idx].value = static_cast<double>(g);
      fr.args[idx].value_source = "launch.grid[" + std::to_string(axis) + "]";
      launch.arg_launch[idx] = g;
    }
  }
  int64_t triton = 0;
  for (size_t idx = 0; idx < fr.args.size(); ++idx) {
    FunctionArg &a = fr.args[idx];
    if (a.role == "ffts_base_address" || a.role == "sync_block_lock" || a.role == "workspace" ||
        a.role.substr(0, 5) == "grid_")
      continue;
    a.triton_index = triton++;
    // Every key that names this position: "%argP", "P", its Triton name (the
    // TTIR signature's, or the name its own location carries). Two keys for
    // one argument must agree.
    std::string first_key;
    for (const auto &[key, given] : ir_.opts.args) {
      if (!names_position(key, *a.triton_index, a.loc_name)) continue;
      const bool scalar = ir_.values[ir_.arg_values[idx]].type.kind != Type::Kind::Memref;
      if (scalar) check_launch_value(key, given, a.type);
      if (!first_key.empty() && a.value && *a.value != given.value)
        throw FactError("launch.args: \"" + first_key + "\" = " + ir_.opts.args.at(first_key).text + " and \"" + key +
                        "\" = " + given.text + " both give Triton argument " + std::to_string(*a.triton_index) + " (" +
                        a.name + ": " + a.type + " of " + fr.name + "); give it once");
      a.value = given.value;
      a.value_source += (first_key.empty() ? "" : ", ") + std::string("launch.args[\"") + key + "\"]";
      if (first_key.empty()) first_key = key;
      if (scalar && (given.integer || given.boolean ||
                     (given.value == std::floor(given.value) && std::fabs(given.value) < 9.2e18)))
        launch.arg_launch[idx] = given.integer ? given.exact : static_cast<int64_t>(given.value);
    }
  }
  // Tensor contents the user gave, by Triton position.
  launch.arg_data.assign(fr.args.size(), -1);
  launch.data_range.clear();
  for (size_t f = 0; f < ir_.opts.data.size(); ++f) {
    const DataFact &d = ir_.opts.data[f];
    if (d.values.empty()) throw FactError("launch data.\"" + d.key + "\": no elements given");
    Interval range{Interval::kPosInf, Interval::kNegInf};
    for (int64_t v : d.values) range = {std::min(range.lo, v), std::max(range.hi, v)};
    launch.data_range.push_back(range);
    std::string_view key = d.key;
    if (key.substr(0, 4) == "%arg") key.remove_prefix(4);
    int64_t at = -1;
    if (auto parsed = parse_int(key); parsed && !key.empty() && key[0] != '-') at = *parsed;
    if (at < 0) {
      // A name: the TTIR signature's, or one an argument's location carries.
      if (auto it = ir_.opts.arg_names.find(d.key); it != ir_.opts.arg_names.end()) at = it->second;
      for (const FunctionArg &a : fr.args)
        if (at < 0 && a.triton_index && !a.loc_name.empty() && a.loc_name == d.key) at = *a.triton_index;
      if (at < 0) {
        if (std::find(ir_.opts.optional_args.begin(), ir_.opts.optional_args.end(), d.key) != ir_.opts.optional_args.end())
          continue;
        throw FactError("launch data.\"" + d.key + "\": names no argument of " + fr.name +
                        (ir_.opts.arg_names_source.empty()
                             ? std::string(": the HIVM dump carries no argument names and no TTIR signature is wired in; key "
                                           "the tensor by its Triton position (\"N\")")
                             : " (" + ir_.opts.arg_names_source + ")") +
                        ", or list it in launch.optional_args");
      }
    }
    size_t idx = 0;
    while (idx < fr.args.size() && fr.args[idx].triton_index != at) ++idx;
    if (idx == fr.args.size())
      throw FactError("launch data.\"" + d.key + "\": " + fr.name + " has no Triton argument " + std::to_string(at) +
                      " (" + std::to_string(triton) + " positions)");
    if (ir_.values[ir_.arg_values[idx]].type.kind != Type::Kind::Memref)
      throw FactError("launch data.\"" + d.key + "\": Triton argument " + std::to_string(at) + " of " + fr.name +
                      " (" + fr.args[idx].name + ": " + fr.args[idx].type + ") is a scalar, not a tensor");
    launch.arg_data[idx] = static_cast<int32_t>(f);
  }
  // Trip facts, by the line of their loop.
  launch.loop_fact.assign(ir_.loops.size(), -1);
  for (size_t L = 0; L < ir_.loops.size(); ++L)
    for (size_t f = 0; f < ir_.opts.trips.size(); ++f)
      if (ir_.opts.trips[f].line == ir_.loops[L].line) launch.loop_fact[L] = static_cast<int32_t>(f);
  if (ir_.prog.blocks) launch.block_any = Interval::range(0, std::max<int64_t>(0, *ir_.prog.blocks - 1));
}

}  // namespace pb::hivm::analysis
