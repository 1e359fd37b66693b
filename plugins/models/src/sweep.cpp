//===- sweep.cpp - DSL-tier bounds of many launch configurations ----------===//
#include "sweep.hpp"

#include "render_numbers.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

#include <perfbound/pb_host_ext_profile.h>
#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/number.hpp>

#include "render.hpp"
#include "render_html.hpp"
#include "term.hpp"
#include "terms.hpp"

namespace pb::models {

using pb::sdk::json;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Nesting limit of a sweep expression (parentheses, calls, signs).
constexpr int kMaxSweepExprDepth = 256;
/// Configurations one sweep may evaluate unless the spec's "max_configs"
/// (the command's --max-configs) asks for an even sample of fewer.
constexpr uint64_t kMaxSweepConfigs = 1000000;

/// A grid axis is a program count: a whole number from 1 to 2^31 - 1 (Triton's
/// tl.program_id is an i32), and the grid's product stays an exact double.
constexpr double kMaxGridAxis = 2147483647.0;
constexpr double kMaxGridPrograms = 9007199254740992.0;  // 2^53

/// Refuses a grid axis value that is not a whole number in 1 .. 2^31 - 1.
/// The values a scalar argument of type `type` ("i32", "i64", "ui16", "f32",
/// ...) may take in a sweep: integers are problem sizes and trip bounds, a
/// whole number from 0 to the type's maximum (a negative size or 1.5
/// elements has no run time), at most 2^53 (a double holds every integer up
/// to there); floats any finite number; an unknown type, 0 to 2^53.
static pb::sdk::NumberRange arg_range(const std::string &type) {
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (!type.empty() && (type[0] == 'f' || type == "bf16")) return pb::sdk::NumberRange::finite();
  std::string digits = type;
  if (digits.rfind("ui", 0) == 0) digits = digits.substr(2);
  else if (digits.rfind("si", 0) == 0 || digits.rfind("i", 0) == 0) digits = digits.substr(digits[0] == 's' ? 2 : 1);
  else return pb::sdk::NumberRange::whole(0, kExact);
  const bool is_unsigned = type.rfind("ui", 0) == 0;
  int bits = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || bits > 1000) return pb::sdk::NumberRange::whole(0, kExact);
    bits = bits * 10 + (c - '0');
  }
  if (bits <= 0) return pb::sdk::NumberRange::whole(0, kExact);
  const int value_bits = bits == 1 || is_unsigned ? bits : bits - 1;
  const double max = value_bits >= 53 ? kExact : std::ldexp(1.0, value_bits) - 1;
  return pb::sdk::NumberRange::whole(0, max);
}

static void check_grid_axis(double v, const std::string &where) {
  if (!(v >= 1) || !(v <= kMaxGridAxis) || v != std::floor(v))
    throw pb::sdk::InputError(where + ": expected a whole number of programs from 1 to 2147483647 (tl.program_id is an i32), got " +
                              pb::sdk::json(v).dump());
}

/// Refuses a grid whose program count is not an exact double.
static void check_grid_programs(const std::array<double, 3> &grid, const std::string &where) {
  if (!(grid[0] * grid[1] * grid[2] <= kMaxGridPrograms))
    throw pb::sdk::InputError(where + ": the grid has more than 2^53 programs (" + pb::sdk::json(grid[0]).dump() + " x " +
                              pb::sdk::json(grid[1]).dump() + " x " + pb::sdk::json(grid[2]).dump() + ")");
}

namespace {

/// Deepest parenthesis nesting of `text` (for the message about a too deep
/// expression; the parser itself stops at kMaxSweepExprDepth).
int paren_depth(const std::string &text) {
  int depth = 0, deepest = 0;
  for (char c : text) {
    if (c == '(') deepest = std::max(deepest, ++depth);
    if (c == ')') --depth;
  }
  return deepest;
}

/// Set by SIGINT/SIGTERM while the sweep command runs; a node polls its run
/// context instead. Checked between configurations.
std::atomic<bool> g_sweep_interrupted{false};
extern "C" void on_sweep_interrupt(int) { g_sweep_interrupted.store(true); }
std::function<bool()> &sweep_cancel_check() {
  static thread_local std::function<bool()> check;
  return check;
}
void throw_if_cancelled() {
  if (sweep_cancel_check() && sweep_cancel_check()()) throw pb::sdk::Error(PB_ERR_CANCELLED, "sweep interrupted");
}

}  // namespace

class SweepParser {
 public:
  SweepParser(const std::string &text, const std::function<int(const std::string &)> &arg_index, SweepExpr &out)
      : text_(text), arg_index_(arg_index), out_(out) {}

  bool parse() {
    pos_ = 0;
    int root = expr();
    skip();
    return root >= 0 && pos_ == text_.size();
  }

 private:
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(const char *token) {
    skip();
    size_t n = std::char_traits<char>::length(token);
    if (text_.compare(pos_, n, token) != 0) return false;
    // "/u", "%u", "<<": unsigned or shift forms are not compiled.
    if (n == 1 && pos_ + 1 < text_.size() && (token[0] == '/' || token[0] == '%') && text_[pos_ + 1] == 'u') return false;
    pos_ += n;
    return true;
  }
  int push(SweepExpr::Node::Kind kind, double value, int a, int b) {
    out_.nodes_.push_back({kind, value, a, b});
    return static_cast<int>(out_.nodes_.size()) - 1;
  }
  /// Nesting deeper than kMaxSweepExprDepth is refused (compile() answers
  /// null) before the recursion could exhaust the stack.
  struct Nest {
    explicit Nest(int &depth) : depth_(depth) { ++depth_; }
    ~Nest() { --depth_; }
    Nest(const Nest &) = delete;
    Nest &operator=(const Nest &) = delete;
    int &depth_;
  };
  [[nodiscard]] bool too_deep() const { return depth_ > kMaxSweepExprDepth; }

  int expr() {
    Nest nest(depth_);
    if (too_deep()) return -1;
    int lhs = term();
    while (lhs >= 0) {
      if (eat("+")) lhs = bin(SweepExpr::Node::Add, lhs, term());
      else if (eat("-")) lhs = bin(SweepExpr::Node::Sub, lhs, term());
      else break;
    }
    return lhs;
  }
  int term() {
    int lhs = unary();
    while (lhs >= 0) {
      if (eat("*")) lhs = bin(SweepExpr::Node::Mul, lhs, unary());
      else if (eat("/")) lhs = bin(SweepExpr::Node::Div, lhs, unary());
      else if (eat("%")) lhs = bin(SweepExpr::Node::Rem, lhs, unary());
      else break;
    }
    return lhs;
  }
  int bin(SweepExpr::Node::Kind kind, int a, int b) { return a < 0 || b < 0 ? -1 : push(kind, 0, a, b); }
  int unary() {
    Nest nest(depth_);
    if (too_deep()) return -1;
    if (eat("-")) {
      int a = unary();
      return a < 0 ? -1 : push(SweepExpr::Node::Neg, 0, a, -1);
    }
    return primary();
  }
  int call(SweepExpr::Node::Kind kind) {
    if (!eat("(")) return -1;
    int a = expr();
    if (a < 0 || !eat(",")) return -1;
    int b = expr();
    if (b < 0 || !eat(")")) return -1;
    return push(kind, 0, a, b);
  }
  int primary() {
    skip();
    if (pos_ >= text_.size()) return -1;
    if (eat("(")) {
      int a = expr();
      return a >= 0 && eat(")") ? a : -1;
    }
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) ++pos_;
      return push(SweepExpr::Node::Const, std::stod(text_.substr(start, pos_ - start)), -1, -1);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '%') {
      size_t start = pos_++;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      std::string name = text_.substr(start, pos_ - start);
      if (name == "max") return call(SweepExpr::Node::Max);
      if (name == "min") return call(SweepExpr::Node::Min);
      if (name == "cdiv") return call(SweepExpr::Node::CeilDiv);
      if (name == "floordiv") return call(SweepExpr::Node::FloorDiv);
      int idx = arg_index_(name);
      if (idx < 0) return -1;
      if (std::find(out_.args_used_.begin(), out_.args_used_.end(), idx) == out_.args_used_.end()) out_.args_used_.push_back(idx);
      return push(SweepExpr::Node::Arg, idx, -1, -1);
    }
    return -1;
  }

  const std::string &text_;
  const std::function<int(const std::string &)> &arg_index_;
  SweepExpr &out_;
  size_t pos_ = 0;
  int depth_ = 0;
};

std::unique_ptr<SweepExpr> SweepExpr::compile(const std::string &text,
                                              const std::function<int(const std::string &)> &arg_index) {
  auto expr = std::make_unique<SweepExpr>();
  SweepParser parser(text, arg_index, *expr);
  if (!parser.parse() || expr->nodes_.empty()) return nullptr;
  return expr;
}

double SweepExpr::eval(const double *args) const {
  // Postorder: every operand precedes its node, so one forward pass works.
  double stack[64] = {};
  double *values = nodes_.size() <= 64 ? stack : nullptr;
  std::vector<double> heap;
  if (values == nullptr) {
    heap.resize(nodes_.size());
    values = heap.data();
  }
  for (size_t idx = 0; idx < nodes_.size(); ++idx) {
    const Node &n = nodes_[idx];
    double a = n.a >= 0 ? values[n.a] : 0, b = n.b >= 0 ? values[n.b] : 0;
    double v = 0;
    switch (n.kind) {
      case Node::Const: v = n.value; break;
      case Node::Arg: v = args[static_cast<int>(n.value)]; break;
      case Node::Add: v = a + b; break;
      case Node::Sub: v = a - b; break;
      case Node::Mul: v = a * b; break;
      case Node::Div: v = b != 0 ? std::trunc(a / b) : NAN; break;
      case Node::FloorDiv: v = b != 0 ? std::floor(a / b) : NAN; break;
      case Node::CeilDiv: v = b != 0 ? std::ceil(a / b) : NAN; break;
      case Node::Rem: v = b != 0 ? std::fmod(a, b) : NAN; break;
      case Node::Min: v = std::min(a, b); break;
      case Node::Max: v = std::max(a, b); break;
      case Node::Neg: v = -a; break;
    }
    values[idx] = v;
  }
  return values[nodes_.size() - 1];
}

const char *sweep_term_name(int term) {
  switch (term) {
    case kSweepCube: return "grid_floor:cube";
    case kSweepVector: return "grid_floor:vector";
    case kSweepRead: return "grid_floor:gm_read";
    case kSweepWrite: return "grid_floor:gm_write";
    case kSweepMemory: return "memory";
    default: return "?";
  }
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

namespace {


double num(const json &v, double fallback = 0) { return v.is_number() ? v.get<double>() : fallback; }

/// A sound (exact or lower) minimum of a dsl_facts distribution.
std::optional<double> sound_min(const json &dist) {
  if (!dist.is_object() || !dist.contains("min") || !dist["min"].is_number()) return std::nullopt;
  if (dist.contains("bound") && dist["bound"] == "upper") return std::nullopt;
  return dist["min"].get<double>();
}

std::optional<double> sound_value(const json &q) {
  if (!q.is_object() || !q.contains("value") || !q["value"].is_number()) return std::nullopt;
  if (q.contains("bound") && q["bound"] == "upper") return std::nullopt;
  return q["value"].get<double>();
}

/// Argument keys named in a symbolic text (identifiers that are arg keys).
std::vector<int> args_named(const std::string &text, const std::vector<std::string> &keys, bool &uses_grid) {
  std::vector<int> out;
  static const std::regex ident(R"((%?[A-Za-z_][A-Za-z0-9_]*))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), ident); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1];
    if (name.rfind("pid_", 0) == 0 || name.rfind("num_programs_", 0) == 0) uses_grid = true;
    auto k = std::find(keys.begin(), keys.end(), name);
    if (k != keys.end()) {
      int idx = static_cast<int>(k - keys.begin());
      if (std::find(out.begin(), out.end(), idx) == out.end()) out.push_back(idx);
    }
  }
  return out;
}

}  // namespace

SweepModel SweepModel::build(const json &dsl, const Rates &rates, const std::string &origin) {
  const std::string where = origin + ": perfbound.dsl_facts/1";
  SweepModel m;
  m.kernel = json_at(dsl, {"kernel", "name"}).is_string() ? json_at(dsl, {"kernel", "name"}).get<std::string>() : "";
  const json &launch = pb::sdk::require(dsl, "launch", where);
  const json &grid = pb::sdk::require(launch, "grid", where + ".launch");
  for (size_t axis = 0; axis < 3 && axis < grid.size(); ++axis) m.base_grid_[axis] = num(grid[axis], 1);
  m.base_programs_ = m.base_grid_[0] * m.base_grid_[1] * m.base_grid_[2];
  bool mix = !(json_at(dsl, {"cores", "type"}).is_string() && json_at(dsl, {"cores", "type"}).get<std::string>() == "aiv");
  m.slots_ = mix ? rates.cores_aic : rates.cores_aiv;
  m.aiv_instances_ = mix ? rates.aiv_per_aic : 1.0;
  if (const json &sig = json_at(dsl, {"signature"}); sig.is_array())
    for (const json &a : sig) {
      if (a.value("kind", std::string()) != "scalar") continue;
      std::string key = a.value("key", std::string());
      m.arg_keys.push_back(key);
      m.arg_ranges.push_back(arg_range(a.value("type", std::string())));
      const json &given = json_at(launch, {"args", key.c_str()});
      m.base_args.push_back(given.is_number() ? given.get<double>() : num(a.contains("value") ? a["value"] : json(), NAN));
    }
  auto arg_index = [&m](const std::string &name) {
    auto it = std::find(m.arg_keys.begin(), m.arg_keys.end(), name);
    return it == m.arg_keys.end() ? -1 : static_cast<int>(it - m.arg_keys.begin());
  };

  // Loops. dsl_facts members are read with json_at (null when absent), never
  // with const operator[]: a missing key there is undefined behaviour.
  std::map<int, int> loop_index;
  if (const json &loops = json_at(dsl, {"loops"}); loops.is_array()) {
    for (const json &l : loops) {
      Loop loop;
      loop_index[static_cast<int>(num(json_at(l, {"id"}), -1))] = static_cast<int>(m.loops_.size());
      loop.parent = l.contains("parent") && l["parent"].is_number() ? l["parent"].get<int>() : -1;
      std::string status = json_at(l, {"trip_count", "status"}).is_string() ? json_at(l, {"trip_count", "status"}).get<std::string>() : "";
      const json &sym = json_at(l, {"trip_count", "symbolic"});
      loop.base_trip = sound_min(json_at(l, {"trip_count", "per_program"})).value_or(0);
      if ((status == "exact" || status == "symbolic") && sym.is_string()) loop.trip = SweepExpr::compile(sym.get<std::string>(), arg_index);
      if (!loop.trip) {
        bool uses_grid = false;
        for (const char *key : {"lower", "upper", "step"})
          if (l.contains(key) && l[key].is_string())
            for (int a : args_named(l[key].get<std::string>(), m.arg_keys, uses_grid)) loop.depends.push_back(a);
        if (uses_grid) loop.depends.push_back(-2);
        int line = static_cast<int>(num(json_at(l, {"source", "line"}), 0));
        m.limitations.push_back("loop at line " + std::to_string(line) + " (" + status +
                                "): its trip count is not varied; work inside is kept only for launches equal to the "
                                "base on what it depends on");
      }
      m.loops_.push_back(std::move(loop));
    }
    for (Loop &loop : m.loops_) loop.parent = loop.parent >= 0 && loop_index.count(loop.parent) ? loop_index[loop.parent] : -1;
  }
  auto loop_of = [&](const json &v) { return v.is_number() && loop_index.count(v.get<int>()) ? loop_index[v.get<int>()] : -1; };

  // Cube work: one item per dot.
  if (const json &dots = json_at(dsl, {"dots"}); dots.is_array())
    for (const json &d : dots) {
      Item item;
      item.term = kSweepCube;
      item.work_per_exec = num(json_at(d, {"flop_per_execution"}));
      item.base_exec = sound_min(json_at(d, {"executions_per_program"})).value_or(0);
      item.loop = loop_of(json_at(d, {"loop"}));
      Rate<u::FlopPerSecond> r = rates.cube(d.value("unit_class", std::string("cube_fp16")));
      if (!r.known()) {
        m.limitations.push_back("dot " + d.value("unit_class", std::string()) + ": no cube rate (" + r.record.reason + ")");
        continue;
      }
      item.time_per_unit = 1.0 / r.value->value();
      if (std::optional<u::FlopPerSecond> strict = r.strict()) item.strict_time_per_unit = 1.0 / strict->value();
      m.items_.push_back(std::move(item));
    }
  // Vector work: dsl_facts gives it per program by type, not per op.
  for (const char *group : {"vector", "transcendental", "reduction", "scan"})
    if (const json &g = json_at(dsl, {"flop", group}); g.is_object())
      for (const auto &[dtype, entry] : g.items()) {
        std::optional<double> per_program = sound_min(json_at(entry, {"per_program"}));
        Rate<u::FlopPerSecond> r = rates.vector_flop(dtype);
        if (!per_program || !r.known()) continue;
        m.vector_flop_base_ += *per_program / (r.value->value() * m.aiv_instances_);
        if (std::optional<u::FlopPerSecond> strict = r.strict())
          m.vector_flop_base_strict_ += *per_program / (strict->value() * m.aiv_instances_);
      }
  int depth = 0;
  for (size_t idx = 0; idx < m.loops_.size(); ++idx) {
    int d = 0;
    for (int p = static_cast<int>(idx); p >= 0; p = m.loops_[static_cast<size_t>(p)].parent) ++d;
    depth = std::max(depth, d);
  }
  m.vector_depth_ = depth;

  // Bytes: one item per access, on the read or the write path; unique bytes
  // per pointer argument for the memory term.
  // The block's GM paths, as the grid floor takes them (docs/model.md §3.1).
  const Schedule block = make_schedule(1, mix, true, m.aiv_instances_, rates);
  Rate<u::BytesPerSecond> read_paths = block_gm_rate(rates, block, false);
  Rate<u::BytesPerSecond> write_paths = block_gm_rate(rates, block, true);
  double read_bw = read_paths.known() ? read_paths.value->value() : 0;
  double write_bw = write_paths.known() ? write_paths.value->value() : 0;
  m.block_bw_ = read_bw + write_bw;
  m.read_bw_ = read_bw;
  m.write_bw_ = write_bw;
  m.chip_bw_ = rates.hbm().known() ? rates.hbm().value->value() : 0;
  if (std::optional<u::BytesPerSecond> r = read_paths.strict()) m.read_bw_strict_ = r->value();
  if (std::optional<u::BytesPerSecond> w = write_paths.strict()) m.write_bw_strict_ = w->value();
  if (std::optional<u::BytesPerSecond> c = rates.hbm().strict()) m.chip_bw_strict_ = c->value();
  if (rates.l2().known()) m.l2_bytes_ = rates.l2().value->value();
  static const std::regex contiguous(R"(^\s*(\d+)\*pid_x \+ i0 < ([%A-Za-z_][A-Za-z0-9_]*)\s*$)");
  if (const json &accesses = json_at(dsl, {"accesses"}); accesses.is_array())
    for (const json &a : accesses) {
      std::string direction = a.value("direction", std::string("read"));
      Item item;
      item.term = direction == "read" ? kSweepRead : kSweepWrite;
      double bw = direction == "read" ? read_bw : write_bw;
      if (bw <= 0) continue;
      item.time_per_unit = 1.0 / bw;
      double strict_bw = direction == "read" ? m.read_bw_strict_ : m.write_bw_strict_;
      item.strict_time_per_unit = strict_bw > 0 ? 1.0 / strict_bw : 0.0;
      item.work_per_exec = num(json_at(a, {"bytes_per_execution"}));
      item.base_exec = sound_min(json_at(a, {"executions_per_program"})).value_or(0);
      item.loop = loop_of(json_at(a, {"loop"}));
      item.elem_bytes = num(json_at(a, {"element_bytes"}), 1);
      item.arg = json_at(a, {"arg"}).is_number() ? json_at(a, {"arg"}).get<int>() : -1;
      const json &mask = json_at(a, {"mask"});
      std::smatch match;
      std::string expr = mask.is_object() && json_at(mask, {"expr"}).is_string() ? json_at(mask, {"expr"}).get<std::string>() : "";
      bool one_d = json_at(a, {"shape"}).is_array() && json_at(a, {"shape"}).size() == 1;
      if (mask.is_object() && one_d && std::regex_match(expr, match, contiguous) &&
          std::stod(match[1]) == num(json_at(a, {"elements"})) && arg_index(match[2]) >= 0 && item.loop < 0) {
        item.contiguous_1d = true;
        item.k = std::stod(match[1]);
        item.bound_arg = arg_index(match[2]);
      } else {
        bool uses_grid = false;
        std::string offset = json_at(a, {"offset"}).is_string() ? json_at(a, {"offset"}).get<std::string>() : "?";
        item.depends = args_named(offset + " " + expr, m.arg_keys, uses_grid);
        if (mask.is_object() || json_at(a, {"offset"}).is_null()) {
          item.fixed = true;
          item.depends.push_back(-2);  // the whole launch
          item.base_unique = sound_value(json_at(a, {"active_bytes"})).value_or(0);
          int line = static_cast<int>(num(json_at(a, {"source", "line"}), 0));
          m.limitations.push_back("access at line " + std::to_string(line) + " (" + (expr.empty() ? "untraced offset" : expr) +
                                  "): its bytes are kept only for the base launch");
        }
      }
      m.items_.push_back(std::move(item));
    }
  // Unique bytes for the memory term: an argument whose accesses are all
  // 1-D contiguous counts min(arg, P*k) once per direction; any other
  // argument keeps its base unique figure, only for the base launch.
  for (const char *direction : {"read", "written", "atomic"})
    if (const json &by_arg = json_at(dsl, {"bytes", direction, "by_arg"}); by_arg.is_array())
      for (const json &arg : by_arg) {
        int arg_id = static_cast<int>(num(json_at(arg, {"arg"}), -1));
        bool write = std::string(direction) != "read";
        bool all_contiguous = true, counted = false;
        for (Item &item : m.items_) {
          if (item.arg != arg_id || (item.term == kSweepWrite) != write) continue;
          all_contiguous = all_contiguous && item.contiguous_1d;
        }
        if (all_contiguous) {
          for (Item &item : m.items_)
            if (item.arg == arg_id && (item.term == kSweepWrite) == write && !counted) {
              item.counts_unique = true;
              counted = true;
            }
          if (counted) continue;
        }
        Item item;
        item.term = kSweepMemory;
        item.write = write;
        item.fixed = true;
        item.depends = {-2};
        for (size_t k = 0; k < m.arg_keys.size(); ++k) item.depends.push_back(static_cast<int>(k));
        item.base_unique = sound_value(json_at(arg, {"unique_total"})).value_or(0);
        m.items_.push_back(std::move(item));
      }
  return m;
}

double SweepModel::loop_ratio(int loop, const SweepConfig &c) const {
  double ratio = 1;
  for (int l = loop; l >= 0; l = loops_[static_cast<size_t>(l)].parent) {
    const Loop &lp = loops_[static_cast<size_t>(l)];
    if (lp.trip) {
      double trip = std::max(0.0, lp.trip->eval(c.args.data()));
      ratio *= lp.base_trip > 0 ? trip / lp.base_trip : (trip > 0 ? 1.0 : 0.0);
    } else if (!same_as_base(lp.depends, c)) {
      return 0;  // not varied: dropped for launches that differ
    }
  }
  return ratio;
}

bool SweepModel::same_as_base(const std::vector<int> &args, const SweepConfig &c) const {
  for (int a : args) {
    if (a == -2) {
      if (c.grid != base_grid_) return false;
      continue;
    }
    if (c.args[static_cast<size_t>(a)] != base_args[static_cast<size_t>(a)]) return false;
  }
  return true;
}

SweepResult SweepModel::evaluate(const SweepConfig &c) const {
  SweepResult r;
  const double programs = c.grid[0] * c.grid[1] * c.grid[2];
  const double waves = std::ceil(programs / slots_);
  double waves_form[kSweepTermCount] = {0, 0, 0, 0, 0};
  double mean_form[kSweepTermCount] = {0, 0, 0, 0, 0};
  double strict_waves[kSweepTermCount] = {0, 0, 0, 0, 0};
  double strict_mean[kSweepTermCount] = {0, 0, 0, 0, 0};
  double unique_read = 0, unique_write = 0;
  double min_ratio = 1;
  auto add_unique = [&](bool write, double bytes) { (write ? unique_write : unique_read) += bytes; };
  for (const Item &item : items_) {
    if (item.term == kSweepMemory) {
      if (same_as_base(item.depends, c)) add_unique(item.write, item.base_unique);
      else r.partial = true;
      continue;
    }
    double ratio = loop_ratio(item.loop, c);
    min_ratio = std::min(min_ratio, ratio);
    if (ratio == 0 && item.loop >= 0) r.partial = true;
    if (item.contiguous_1d) {
      // offset k*pid + i0 < n: active elements min(n, P*k); no overlap.
      double n = std::max(0.0, c.args[static_cast<size_t>(item.bound_arg)]);
      double bytes = std::min(n, programs * item.k) * item.elem_bytes;
      mean_form[item.term] += bytes / slots_ * item.time_per_unit;
      strict_mean[item.term] += bytes / slots_ * item.strict_time_per_unit;
      if (item.counts_unique) add_unique(item.term == kSweepWrite, bytes);
      continue;
    }
    if (item.fixed) {
      if (same_as_base(item.depends, c)) {
        mean_form[item.term] += item.base_unique / slots_ * item.time_per_unit;
        strict_mean[item.term] += item.base_unique / slots_ * item.strict_time_per_unit;
      } else {
        r.partial = true;
      }
      continue;
    }
    double per_program = item.work_per_exec * item.base_exec * ratio;
    waves_form[item.term] += waves * per_program * item.time_per_unit;
    mean_form[item.term] += programs * per_program / slots_ * item.time_per_unit;
    strict_waves[item.term] += waves * per_program * item.strict_time_per_unit;
    strict_mean[item.term] += programs * per_program / slots_ * item.strict_time_per_unit;
  }
  // Vector work: scaled by the smallest loop ratio to the deepest nesting
  // (never above the true scale: docs/model.md §8).
  double vector_scale = min_ratio >= 1 ? 1.0 : std::pow(std::max(0.0, min_ratio), vector_depth_);
  waves_form[kSweepVector] += waves * vector_flop_base_ * vector_scale;
  mean_form[kSweepVector] += programs * vector_flop_base_ * vector_scale / slots_;
  strict_waves[kSweepVector] += waves * vector_flop_base_strict_ * vector_scale;
  strict_mean[kSweepVector] += programs * vector_flop_base_strict_ * vector_scale / slots_;
  // Memory (docs/model.md §3.3, §8): per direction the bytes over the active
  // blocks' GM paths (any L2 state), the bytes beyond the L2 at the HBM
  // figure, and, cold, every unique byte at min(active x block paths, HBM).
  const double active = std::min(programs, slots_);
  const double unique = unique_read + unique_write;
  auto path_floor = [&](double read_bw, double write_bw) {
    double t = 0;
    if (read_bw > 0 && active > 0) t = std::max(t, unique_read / (active * read_bw));
    if (write_bw > 0 && active > 0) t = std::max(t, unique_write / (active * write_bw));
    return t;
  };
  const double forced =
      l2_bytes_ > 0 ? std::max(0.0, unique_read - l2_bytes_) + std::max(0.0, unique_write - l2_bytes_) : 0.0;
  double bw = std::min(active * block_bw_, chip_bw_);
  double cold = bw > 0 ? unique / bw : 0;
  r.terms[kSweepMemory] = std::max({cold, path_floor(read_bw_, write_bw_), chip_bw_ > 0 ? forced / chip_bw_ : 0.0});
  r.strict_terms[kSweepMemory] =
      std::max(path_floor(read_bw_strict_, write_bw_strict_), chip_bw_strict_ > 0 ? forced / chip_bw_strict_ : 0.0);
  double cold_strict = 0;
  if (chip_bw_strict_ > 0) {
    double block_strict = read_bw_strict_ > 0 && write_bw_strict_ > 0 ? read_bw_strict_ + write_bw_strict_ : 0;
    double bw_strict = block_strict > 0 ? std::min(active * block_strict, chip_bw_strict_) : chip_bw_strict_;
    cold_strict = unique / bw_strict;
  }
  for (int t = 0; t < kSweepMemory; ++t) {
    r.terms[static_cast<size_t>(t)] = std::max(waves_form[t], mean_form[t]);
    r.strict_terms[static_cast<size_t>(t)] = std::max(strict_waves[t], strict_mean[t]);
  }
  for (int t = 0; t < kSweepTermCount; ++t) {
    if (r.terms[static_cast<size_t>(t)] > r.bound) {
      r.bound = r.terms[static_cast<size_t>(t)];
      r.binding = t;
    }
    if (r.strict_terms[static_cast<size_t>(t)] > r.strict_bound) {
      r.strict_bound = r.strict_terms[static_cast<size_t>(t)];
      r.strict_binding = t;
    }
  }
  r.strict_cold_bound = r.strict_bound;
  r.strict_cold_binding = r.strict_binding;
  if (cold_strict > r.strict_cold_bound) {
    r.strict_cold_bound = cold_strict;
    r.strict_cold_binding = kSweepMemory;
  }
  return r;
}

SweepConfig SweepModel::config_from_json(const json &value, const std::string &where) const {
  SweepConfig c;
  c.args = base_args;
  c.grid = base_grid_;
  if (!value.is_object()) throw pb::sdk::InputError(where + ": a configuration must be an object {grid, args}");
  if (value.contains("grid")) {
    const json &g = value["grid"];
    if (!g.is_array() || g.empty() || g.size() > 3) throw pb::sdk::InputError(where + ".grid: expected 1 to 3 positive integers");
    c.grid = {1, 1, 1};
    for (size_t axis = 0; axis < g.size(); ++axis) {
      if (!g[axis].is_number()) throw pb::sdk::InputError(where + ".grid[" + std::to_string(axis) + "]: expected a positive integer");
      c.grid[axis] = g[axis].get<double>();
      check_grid_axis(c.grid[axis], where + ".grid[" + std::to_string(axis) + "]");
    }
    check_grid_programs(c.grid, where + ".grid");
  }
  if (value.contains("args")) {
    if (!value["args"].is_object()) throw pb::sdk::InputError(where + ".args: expected an object");
    for (const auto &[key, v] : value["args"].items()) {
      auto it = std::find(arg_keys.begin(), arg_keys.end(), key);
      if (it == arg_keys.end()) {
        std::string known;
        for (const std::string &k : arg_keys) known += (known.empty() ? "" : ", ") + k;
        throw pb::sdk::InputError(where + ".args." + key + ": the kernel has no scalar argument '" + key + "' (it has: " +
                                  (known.empty() ? "none" : known) + ")");
      }
      if (!v.is_number()) throw pb::sdk::InputError(where + ".args." + key + ": expected a number");
      const size_t k = static_cast<size_t>(it - arg_keys.begin());
      if (std::string problem = pb::sdk::number_problem(v.get<double>(), arg_ranges[k]); !problem.empty())
        throw pb::sdk::InputError(where + ".args." + key + " " + problem);
      c.args[k] = v.get<double>();
    }
  }
  return c;
}

namespace {

/// One axis of a range spec: a list, or a range whose values are computed
/// on demand (a sampled sweep of a 10^9-value range needs no 8 GB vector).
struct Axis {
  std::vector<double> list;
  double from = 0, step = 0, mul = 0;
  uint64_t count = 0;
  Axis() = default;
  Axis(std::vector<double> values) : list(std::move(values)) {}  // NOLINT: implicit from a list
  [[nodiscard]] uint64_t size() const { return list.empty() ? count : list.size(); }
  [[nodiscard]] double operator[](uint64_t i) const {
    if (!list.empty()) return list[static_cast<size_t>(i)];
    return mul > 0 ? from * std::pow(mul, static_cast<double>(i)) : from + static_cast<double>(i) * step;
  }
};

/// Values one range may have (the configuration limit applies to the
/// product of all axes, after sampling).
constexpr double kMaxRangeValues = 1e15;

/// Every value of a range axis is in `values` (a grid axis: whole numbers
/// from 1 to 2^31 - 1; an argument: arg_range of its type), checked before
/// a configuration is built: from and to, and a step or factor that keeps
/// whole numbers whole.
Axis expand_range(const json &r, const std::string &where, const pb::sdk::NumberRange &values) {
  auto check = [&](double v, const std::string &at) {
    if (std::string problem = pb::sdk::number_problem(v, values); !problem.empty())
      throw pb::sdk::InputError(at + " " + problem);
  };
  if (r.is_number()) {
    check(r.get<double>(), where);
    return Axis({r.get<double>()});
  }
  if (r.is_array()) {
    std::vector<double> out;
    for (size_t idx = 0; idx < r.size(); ++idx) {
      const json &v = r[idx];
      if (!v.is_number()) throw pb::sdk::InputError(where + ": expected numbers");
      check(v.get<double>(), where + "[" + std::to_string(idx) + "]");
      out.push_back(v.get<double>());
    }
    return Axis(std::move(out));
  }
  if (!r.is_object() || !r.contains("from") || !r.contains("to"))
    throw pb::sdk::InputError(where + ": a range is a number, a list, or {from, to, step|mul}");
  auto member = [&](const char *key) {
    const json &v = r[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      throw pb::sdk::InputError(where + "." + key + ": expected a finite number, got " + v.dump());
    return v.get<double>();
  };
  Axis axis;
  axis.from = member("from");
  const double to = member("to");
  check(axis.from, where + ".from");
  check(to, where + ".to");
  const bool whole = values.whole_numbers();
  if (axis.from > to)
    throw pb::sdk::InputError(where + ": the range runs backwards (from " + r["from"].dump() + " > to " + r["to"].dump() +
                              "); write it as {from: " + r["to"].dump() + ", to: " + r["from"].dump() + ", ...}");
  // Counted, never enumerated: a step of 1e-300 is refused, not tried.
  double count = 0;
  if (r.contains("mul")) {
    axis.mul = member("mul");
    if (!(axis.mul > 1) || !(axis.from > 0)) throw pb::sdk::InputError(where + ": mul must be > 1 and from > 0");
    if (whole && axis.mul != std::floor(axis.mul))
      throw pb::sdk::InputError(where + ".mul is " + pb::sdk::NumberRange::format(axis.mul) +
                                "; the values are whole numbers, so the factor must be one too");
    count = std::floor(std::log(to * (1 + 1e-12) / axis.from) / std::log(axis.mul)) + 1;
  } else {
    axis.step = r.contains("step") ? member("step") : 1.0;
    if (!(axis.step > 0)) throw pb::sdk::InputError(where + ": step must be > 0");
    if (whole && axis.step != std::floor(axis.step))
      throw pb::sdk::InputError(where + ".step is " + pb::sdk::NumberRange::format(axis.step) +
                                "; the values are whole numbers, so the step must be one too");
    count = std::floor((to + 1e-9 - axis.from) / axis.step) + 1;
  }
  if (!(count <= kMaxRangeValues))
    throw pb::sdk::InputError(where + ": the range has " + pb::sdk::json(count).dump() + " values, more than the limit of 1e15 values of one range");
  axis.count = static_cast<uint64_t>(std::max(1.0, count));
  return axis;
}

}  // namespace

std::vector<SweepConfig> SweepModel::expand(const json &spec, const std::string &where) const {
  std::vector<SweepConfig> out;
  if (spec.is_array()) {
    for (size_t idx = 0; idx < spec.size(); ++idx) out.push_back(config_from_json(spec[idx], where + "[" + std::to_string(idx) + "]"));
    return out;
  }
  if (!spec.is_object()) throw pb::sdk::InputError(where + ": expected a list of configurations or a range spec");
  // Axes: grid x/y/z, then each argument; a grid axis may be derived from
  // the arguments ("grid_from": {"x": "cdiv(n_elements, 2048)"}).
  std::vector<Axis> axes(3 + arg_keys.size());
  const json grid = spec.value("grid", json::object());
  const char *names[3] = {"x", "y", "z"};
  for (size_t a = 0; a < 3; ++a)
    axes[a] = grid.contains(names[a]) ? expand_range(grid[names[a]], where + ".grid." + names[a], pb::sdk::NumberRange::whole(1, kMaxGridAxis))
                                      : Axis({base_grid_[a]});
  const json args = spec.value("args", json::object());
  for (const auto &[key, r] : args.items()) {
    auto it = std::find(arg_keys.begin(), arg_keys.end(), key);
    if (it == arg_keys.end()) throw pb::sdk::InputError(where + ".args." + key + ": the kernel has no scalar argument '" + key + "'");
  }
  for (size_t k = 0; k < arg_keys.size(); ++k)
    axes[3 + k] = args.contains(arg_keys[k]) ? expand_range(args[arg_keys[k]], where + ".args." + arg_keys[k], arg_ranges[k])
                                             : Axis({base_args[k]});
  std::array<std::unique_ptr<SweepExpr>, 3> derived;
  const json from = spec.value("grid_from", json::object());
  auto index = [this](const std::string &name) {
    auto it = std::find(arg_keys.begin(), arg_keys.end(), name);
    return it == arg_keys.end() ? -1 : static_cast<int>(it - arg_keys.begin());
  };
  for (size_t a = 0; a < 3; ++a)
    if (from.contains(names[a])) {
      if (!from[names[a]].is_string()) throw pb::sdk::InputError(where + ".grid_from." + names[a] + ": expected an expression");
      const std::string &text = from[names[a]].get_ref<const std::string &>();
      if (paren_depth(text) > kMaxSweepExprDepth)
        throw pb::sdk::InputError(where + ".grid_from." + names[a] + ": parentheses nested " + std::to_string(paren_depth(text)) +
                                  " deep, more than the limit of " + std::to_string(kMaxSweepExprDepth));
      derived[a] = SweepExpr::compile(text, index);
      if (!derived[a])
        throw pb::sdk::InputError(where + ".grid_from." + names[a] + ": cannot compile '" + from[names[a]].get<std::string>() +
                                  "' (numbers, + - * / %, min, max, cdiv, floordiv and the kernel's scalar arguments)");
      axes[a] = Axis({0.0});
    }
  for (const auto &axis : axes)
    if (axis.size() == 0) throw pb::sdk::InputError(where + ": an axis of the spec has no value; nothing to sweep");
  // "max_configs": evaluate an even sample of that many configurations
  // instead of refusing a larger spec (the command's --max-configs).
  uint64_t limit = kMaxSweepConfigs;
  bool sample = false;
  if (spec.contains("max_configs")) {
    const json &m = spec["max_configs"];
    if (!m.is_number_unsigned() || m.get<uint64_t>() == 0 || m.get<uint64_t>() > kMaxSweepConfigs)
      throw pb::sdk::InputError(where + ".max_configs: expected a whole number from 1 to " + std::to_string(kMaxSweepConfigs) + ", got " +
                                m.dump());
    limit = m.get<uint64_t>();
    sample = true;
  }
  double count = 1;
  for (const auto &axis : axes) count *= static_cast<double>(axis.size());
  if (count > static_cast<double>(limit) && (!sample || count > 9e18))
    throw pb::sdk::InputError(where + ": the spec expands to " + pb::sdk::json(count).dump() + " configurations, more than the limit of " +
                              std::to_string(limit) + "; narrow the ranges or evaluate an even sample with --max-configs N (\"max_configs\": N)");
  const uint64_t total = static_cast<uint64_t>(count);
  const uint64_t take = std::min<uint64_t>(total, limit);
  out.reserve(static_cast<size_t>(take));
  for (uint64_t i = 0; i < take; ++i) {
    if ((i & 1023) == 0) throw_if_cancelled();
    // The i-th of `take` evenly spaced indices into the full product, decoded
    // axis by axis (the first axis varies fastest).
    uint64_t at = take == total ? i : static_cast<uint64_t>(static_cast<long double>(i) * total / take);
    SweepConfig c;
    c.args.resize(arg_keys.size());
    std::vector<uint64_t> pos(axes.size(), 0);
    for (size_t d = 0; d < axes.size(); ++d) {
      pos[d] = at % axes[d].size();
      at /= axes[d].size();
    }
    for (size_t k = 0; k < arg_keys.size(); ++k) c.args[k] = axes[3 + k][pos[3 + k]];
    for (size_t a = 0; a < 3; ++a) {
      if (!derived[a]) {
        c.grid[a] = axes[a][pos[a]];
        check_grid_axis(c.grid[a], where + ".grid." + names[a]);
        continue;
      }
      const double v = derived[a]->eval(c.args.data());
      if (!std::isfinite(v)) {
        std::string values;
        for (size_t k = 0; k < arg_keys.size(); ++k)
          values += (values.empty() ? "" : ", ") + arg_keys[k] + " = " + pb::sdk::json(c.args[k]).dump();
        throw pb::sdk::InputError(where + ".grid_from." + names[a] + ": '" + from[names[a]].get<std::string>() +
                                  "' is not a finite number at " + (values.empty() ? std::string("the base launch") : values) +
                                  " (a division or remainder by zero?)");
      }
      c.grid[a] = std::max(1.0, v);
      check_grid_axis(c.grid[a], where + ".grid_from." + names[a] + " ('" + from[names[a]].get<std::string>() + "')");
    }
    check_grid_programs(c.grid, where + ".grid");
    out.push_back(std::move(c));
  }
  return out;
}

void SweepModel::read_tuning(const json &spec, const std::string &where) {
  tuning_args.clear();
  if (!spec.is_object() || !spec.contains("tuning")) return;
  const json &list = spec["tuning"];
  if (!list.is_array()) throw pb::sdk::InputError(where + ".tuning: expected a list of argument names");
  for (const json &name : list) {
    if (!name.is_string()) throw pb::sdk::InputError(where + ".tuning: expected argument names, got " + name.dump());
    const std::string key = name.get<std::string>();
    if (std::find(arg_keys.begin(), arg_keys.end(), key) == arg_keys.end()) {
      std::string known;
      for (const std::string &k : arg_keys) known += (known.empty() ? "" : ", ") + k;
      throw pb::sdk::InputError(where + ".tuning: '" + key + "' is no scalar argument of " + kernel + " (arguments: " +
                                (known.empty() ? std::string("none") : known) + ")");
    }
    tuning_args.push_back(key);
  }
}

std::string SweepModel::grid_coverage_warning(const SweepConfig &c) const {
  for (const Item &item : items_) {
    if (!item.contiguous_1d || item.bound_arg < 0 || item.k <= 0) continue;
    const double n = c.args[static_cast<size_t>(item.bound_arg)];
    const double covered = c.grid[0] * item.k;
    if (covered < n)
      return "grid x = " + fmt::count(c.grid[0]) + " programs of " + fmt::count(item.k) + " elements cover " +
             fmt::count(covered) + " of the " + fmt::count(n) + " elements " + arg_keys[static_cast<size_t>(item.bound_arg)] +
             " describes: the rest is never processed, so this bound is not the problem's";
  }
  return {};
}

namespace {

/// A whole number as a JSON integer (grids, sizes), anything else as a number.
json number_json(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.007199254740992e15) return json(static_cast<int64_t>(v));
  return json(v);
}

}  // namespace

SweepModel::Outcome SweepModel::prepare(const std::vector<SweepConfig> &configs, std::optional<double> threshold, double factor,
                                        const std::string &cache) const {
  Outcome o;
  o.threshold = threshold;
  o.factor = factor;
  o.cold = cache == "cold";
  o.results.reserve(configs.size());
  // A grid that does not cover the problem its arguments describe leaves
  // part of it unprocessed: its small bound is not the problem's, so it is
  // never the best while one that covers exists (before: grid [512] over 16M
  // elements was the best, and the grids that cover it "pruned by memory").
  std::vector<bool> covers(configs.size());
  auto better = [&](size_t a, size_t b) {
    if (covers[a] != covers[b]) return static_cast<bool>(covers[a]);
    return o.results[a].bound < o.results[b].bound;
  };
  for (size_t idx = 0; idx < configs.size(); ++idx) {
    if ((idx & 1023) == 0) throw_if_cancelled();
    o.results.push_back(evaluate(configs[idx]));
    covers[idx] = grid_coverage_warning(configs[idx]).empty();
    if (better(idx, o.best)) o.best = idx;
  }
  // One problem per distinct value of the arguments that are not tuning
  // parameters: an autotuner compares configurations of one problem only.
  for (size_t k = 0; k < arg_keys.size(); ++k)
    if (std::find(tuning_args.begin(), tuning_args.end(), arg_keys[k]) == tuning_args.end()) o.problem_args.push_back(k);
  std::map<std::vector<double>, size_t> problem_of_key;
  o.problem.assign(configs.size(), 0);
  for (size_t idx = 0; idx < configs.size(); ++idx) {
    std::vector<double> key;
    key.reserve(o.problem_args.size());
    for (size_t k : o.problem_args) key.push_back(configs[idx].args[k]);
    auto [it, added] = problem_of_key.emplace(key, o.problem_best.size());
    if (added) {
      o.problem_best.push_back(idx);
      o.problem_size.push_back(0);
      o.problem_values.push_back(key);
    }
    o.problem[idx] = it->second;
    ++o.problem_size[it->second];
    if (better(idx, o.problem_best[it->second])) o.problem_best[it->second] = idx;
  }
  for (size_t idx = 0; idx < configs.size(); ++idx) {
    if ((idx & 1023) == 0) throw_if_cancelled();
    o.pruned += pruning(o, idx).pruned ? 1 : 0;
    o.uncovered += covers[idx] ? 0 : 1;
  }
  return o;
}

SweepModel::Pruning SweepModel::pruning(const Outcome &o, size_t idx) const {
  // Safe pruning (a measured threshold) compares only what is sound under
  // the measurement's conditions: the strict bound (theoretical and peak
  // rates; memory: the GM path ceilings and the bytes beyond the L2, which
  // hold whatever the L2 held), plus the cold-cache HBM floor only when the
  // measurement is known to start cold. The argued cold floor of the bound
  // would prune a configuration a warm-L2 measurement can beat.
  const SweepResult &r = o.results[idx];
  Pruning p;
  p.cut = o.threshold ? *o.threshold : o.results[o.problem_best[o.problem[idx]]].bound * o.factor;
  const double compared = o.threshold ? (o.cold ? r.strict_cold_bound : r.strict_bound) : r.bound;
  p.compared_binding = o.threshold ? (o.cold ? r.strict_cold_binding : r.strict_binding) : r.binding;
  p.compared_term = o.threshold ? (o.cold && p.compared_binding == kSweepMemory ? r.strict_cold_bound
                                                                               : r.strict_terms[static_cast<size_t>(p.compared_binding)])
                                : r.terms[static_cast<size_t>(p.compared_binding)];
  p.pruned = compared > p.cut;
  return p;
}

json SweepModel::header(const Outcome &o, const std::vector<SweepConfig> &configs) const {
  json doc = pb::sdk::make_document(kSweepSchema);
  doc["kernel"] = kernel;
  json base_args_json = json::object();
  for (size_t k = 0; k < arg_keys.size(); ++k) base_args_json[arg_keys[k]] = number_json(base_args[k]);
  doc["base"] = {{"grid", {number_json(base_grid_[0]), number_json(base_grid_[1]), number_json(base_grid_[2])}},
                 {"args", base_args_json}};
  doc["model"] = {{"varies", {"programs, waves and occupancy (grid)", "symbolic loop trip counts (scalar arguments)",
                              "1-D mask tails of the form k*pid_x + i0 < arg"}},
                  {"limitations", limitations},
                  {"terms", {"grid_floor:cube", "grid_floor:vector", "grid_floor:gm_read", "grid_floor:gm_write", "memory"}}};
  std::string rule;
  if (!configs.empty()) {
    rule = o.threshold ? std::string("pruned when the strict bound exceeds the given threshold (a measured time: safe "
                                     "pruning). It uses only theoretical and peak rates and, for memory, the GM path "
                                     "ceilings and the bytes beyond the L2, which hold whatever the L2 held at launch; ") +
                             (o.cold ? "the measurement starts with a cold L2 (cache = cold), so every unique byte crossing "
                                       "HBM at the strict HBM figure counts too"
                                     : "the cold-cache HBM floor is left out: the L2 state of the measurement is not stated "
                                       "(cache = cold adds it)")
                       : "pruned when the bound exceeds " + fmt::sig4(o.factor) +
                             " x the best bound of the same problem (not a safe pruning: the bound may rest on argued figures)";
    doc["best"] = {{"index", o.best}, {"bound", Time::known(o.results[o.best].bound).to_json()},
                   {"binding", sweep_term_name(o.results[o.best].binding)}};
  } else {
    doc["best"] = {{"index", nullptr}, {"bound", Time::unknown("no configuration").to_json()}, {"binding", nullptr}};
  }
  doc["threshold"] = {{"value", configs.empty() ? json(nullptr) : json(o.threshold ? *o.threshold : o.results[o.best].bound * o.factor)},
                      {"unit", "s"}, {"rule", rule}};
  json tuning = json::array();
  for (const std::string &t : tuning_args) tuning.push_back(t);
  json problems = json::array();
  for (size_t p = 0; p < o.problem_best.size(); ++p) {
    json args = json::object();
    for (size_t j = 0; j < o.problem_args.size(); ++j) args[arg_keys[o.problem_args[j]]] = number_json(o.problem_values[p][j]);
    problems.push_back({{"index", p}, {"args", args}, {"configs", o.problem_size[p]}, {"best", o.problem_best[p]},
                        {"bound", Time::known(o.results[o.problem_best[p]].bound).to_json()}});
  }
  doc["tuning"] = std::move(tuning);
  doc["problems"] = std::move(problems);
  doc["summary"] = {{"evaluated", configs.size()}, {"pruned", o.pruned}, {"kept", configs.size() - o.pruned},
                    {"problems", o.problem_best.size()}, {"grid_does_not_cover", o.uncovered}};
  return doc;
}

json SweepModel::entry(const Outcome &o, const std::vector<SweepConfig> &configs, size_t idx) const {
  const SweepConfig &c = configs[idx];
  const SweepResult &r = o.results[idx];
  const size_t own_best = o.problem_best[o.problem[idx]];
  const Pruning p = pruning(o, idx);
  json args = json::object();
  for (size_t k = 0; k < arg_keys.size(); ++k) args[arg_keys[k]] = number_json(c.args[k]);
  json terms = json::object();
  for (int t = 0; t < kSweepTermCount; ++t) terms[sweep_term_name(t)] = r.terms[static_cast<size_t>(t)];
  json out{{"index", idx},
           {"grid", {number_json(c.grid[0]), number_json(c.grid[1]), number_json(c.grid[2])}},
           {"args", args},
           {"problem", o.problem[idx]},
           {"bound", Time::known(r.bound).to_json()},
           {"binding", sweep_term_name(r.binding)},
           {"terms", terms},
           {"partial", r.partial},
           {"pruned", p.pruned}};
  json strict = Time::known(o.cold ? r.strict_cold_bound : r.strict_bound).to_json();
  strict["binding"] = sweep_term_name(o.cold ? r.strict_cold_binding : r.strict_binding);
  out["strict"] = std::move(strict);
  if (p.pruned) {
    out["pruned_by"] = sweep_term_name(p.compared_binding);
    out["why"] = std::string(o.threshold ? "strict " : "") + sweep_term_name(p.compared_binding) + " = " +
                 fmt::seconds(p.compared_term) + " > threshold " + fmt::seconds(p.cut) + " (best of this problem: config " +
                 std::to_string(own_best) + ", " + fmt::seconds(o.results[own_best].bound) + " on " +
                 sweep_term_name(o.results[own_best].binding) + ")";
  } else {
    out["pruned_by"] = nullptr;
  }
  if (std::string warning = grid_coverage_warning(c); !warning.empty()) out["warning"] = warning;
  return out;
}

json SweepModel::run(const std::vector<SweepConfig> &configs, std::optional<double> threshold, double factor,
                     const std::string &cache, size_t listed) const {
  const Outcome o = prepare(configs, threshold, factor, cache);
  json doc = header(o, configs);
  json list = json::array();
  for (size_t idx = 0; idx < std::min(listed, configs.size()); ++idx) {
    if ((idx & 1023) == 0) throw_if_cancelled();
    list.push_back(entry(o, configs, idx));
  }
  doc["configs"] = std::move(list);
  return doc;
}

void SweepModel::write_json(std::ostream &out, const std::vector<SweepConfig> &configs, std::optional<double> threshold,
                            double factor, const std::string &cache, const std::string &profile) const {
  const Outcome o = prepare(configs, threshold, factor, cache);
  json doc = header(o, configs);
  doc["profile"] = profile;
  // The members in the order json::dump writes them (sorted), `configs`
  // written entry by entry where it falls.
  out << "{";
  bool first = true;
  bool configs_written = false;
  auto write_configs = [&] {
    out << (first ? "\n" : ",\n") << " \"configs\": [";
    for (size_t idx = 0; idx < configs.size(); ++idx) {
      if ((idx & 1023) == 0) throw_if_cancelled();
      out << (idx == 0 ? "\n  " : ",\n  ") << entry(o, configs, idx).dump(-1, ' ', false, json::error_handler_t::replace);
    }
    out << (configs.empty() ? "]" : "\n ]");
    first = false;
    configs_written = true;
  };
  for (const auto &[key, value] : doc.items()) {
    if (!configs_written && key > std::string("configs")) write_configs();
    out << (first ? "\n" : ",\n") << " " << json(key).dump() << ": " << value.dump(-1, ' ', false, json::error_handler_t::replace);
    first = false;
  }
  if (!configs_written) write_configs();
  out << "\n}\n";
}

//===----------------------------------------------------------------------===//
// Node kind and command
//===----------------------------------------------------------------------===//

SweepNode::SweepNode(const pb::sdk::Params &params) {
  configs_ = params.at("configs");
  const json &t = params.raw().value("threshold_us", json());
  if (t.is_number()) threshold_ = t.get<double>() * 1e-6;
  factor_ = params.raw().value("factor", 1.5);
  cache_ = params.raw().value("cache", std::string("unknown"));
}

void SweepNode::run(pb::sdk::RunContext &ctx) {
  Rates rates = Rates::from_profile(ctx.json_input("profile"), ctx.origin("profile"));
  SweepModel model = SweepModel::build(ctx.json_input("dsl"), rates, ctx.origin("dsl"));
  sweep_cancel_check() = [&ctx] { return ctx.cancelled(); };
  struct Reset {
    ~Reset() { sweep_cancel_check() = nullptr; }
  } reset;
  model.read_tuning(configs_, "node '" + ctx.node_id() + "' params.configs");
  std::vector<SweepConfig> configs = model.expand(configs_, "node '" + ctx.node_id() + "' params.configs");
  if (configs.empty()) throw pb::sdk::InputError("node '" + ctx.node_id() + "': params.configs names no configuration");
  json doc = model.run(configs, threshold_, factor_, cache_);
  doc["profile"] = rates.profile_name;
  ctx.set_output("sweep", std::move(doc));
}

namespace {

constexpr const char *kSweepHelp =
    R"HELP(usage: perfbound sweep --dsl FACTS.json --configs SPEC.json [--profile NAME|DIR]
                       [--threshold-us T] [--cache unknown|cold|warm] [--factor F] [--max-configs N]
                       [--format json|text|md|html] [--out FILE]

DSL-tier lower bounds of many launch configurations of one kernel, as an
autotuner would ask, evaluated in closed form from the kernel's dsl_facts
(perfbound.dsl_facts/1 of one launch; `perfbound run pipelines/bound_dsl.toml
--out DIR` writes it as DIR/facts.json).

SPEC is a list [{"grid": [x, y, z], "args": {"n_elements": 1024}}, ...] or a
range spec {"grid": {"x": R}, "args": {"name": R}, "grid_from": {"x": "cdiv(n, 2048)"}}
with R a number, a list, {"from": a, "to": b, "step": s} or {"from": a, "to": b, "mul": m}.
A configuration is pruned when its strict bound exceeds --threshold-us (a
measured time: safe pruning with theoretical/peak rates and, for memory, only
what holds whatever the L2 held; --cache cold, for a measurement that starts
with a cold L2, adds the cold-cache HBM floor) or, without a threshold,
--factor x the best bound (default 1.5; not safe); a pruned configuration
names the term that makes it slower.
"tuning": ["name", ...] names the arguments an autotuner may change for one
problem; the other arguments define the problem (the grid is always tuning).
Configurations are compared only within one problem (the factor's best is
the best of the same problem). A configuration whose grid does not reach
every element its arguments describe carries a warning.
A spec of more than 1000000 configurations is refused; --max-configs N
evaluates an even sample of N of them instead. --format json streams every
configuration (~200 bytes of memory each); text and md list the first 50,
html draws and lists the first 5,000, all three counting every one.
Exit 130 when interrupted.
)HELP";

}  // namespace

namespace {
int sweep_main(const pb::sdk::Host &host, const std::vector<std::string> &args);
}  // namespace

int sweep_command(const pb::sdk::Host &host, const std::vector<std::string> &args) {
  // Errors are printed here: the host keeps a command's log to itself.
  try {
    return sweep_main(host, args);
  } catch (const pb::sdk::InputError &e) {
    std::cerr << "perfbound sweep: " << e.what() << "\n";
    return 3;
  } catch (const pb::sdk::InfraError &e) {
    std::cerr << "perfbound sweep: " << e.what() << "\n";
    return 5;
  } catch (const pb::sdk::Error &e) {
    std::cerr << "perfbound sweep: " << e.what() << "\n";
    return e.status() == PB_ERR_CANCELLED ? 130 : 2;
  } catch (const std::exception &e) {
    std::cerr << "perfbound sweep: " << e.what() << "\n";
    return 1;
  }
}

namespace {

int sweep_main(const pb::sdk::Host &host, const std::vector<std::string> &args) {
  std::string dsl_path, spec_path, profile = "ascend_910b3", format = "json", out_path, cache = "unknown";
  std::optional<double> threshold;
  std::optional<uint64_t> max_configs;
  double factor = 1.5;
  auto number = [](const std::string &text, const char *name) {
    char *end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(v > 0))
      throw pb::sdk::Error(PB_ERR_INVALID_ARGUMENT, std::string(name) + ": expected a positive number, got '" + text + "'");
    return v;
  };
  for (size_t idx = 1; idx < args.size(); ++idx) {
    const std::string &a = args[idx];
    auto value = [&](const char *name) -> std::string {
      if (idx + 1 >= args.size()) throw pb::sdk::Error(PB_ERR_INVALID_ARGUMENT, std::string(name) + " needs a value");
      return args[++idx];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kSweepHelp;
      return 0;
    }
    if (a == "--dsl") dsl_path = value("--dsl");
    else if (a == "--configs") spec_path = value("--configs");
    else if (a == "--profile") profile = value("--profile");
    else if (a == "--format") format = value("--format");
    else if (a == "--out") out_path = value("--out");
    else if (a == "--threshold-us") threshold = number(value("--threshold-us"), "--threshold-us") * 1e-6;
    else if (a == "--factor") factor = number(value("--factor"), "--factor");
    else if (a == "--cache") {
      cache = value("--cache");
      if (cache != "unknown" && cache != "cold" && cache != "warm")
        throw pb::sdk::Error(PB_ERR_INVALID_ARGUMENT, "--cache: expected unknown, cold or warm, got '" + cache + "'");
    }
    else if (a == "--max-configs") {
      const std::string text = value("--max-configs");
      char *end = nullptr;
      unsigned long long n = std::strtoull(text.c_str(), &end, 10);
      if (text.empty() || text[0] == '-' || *end != '\0' || n == 0 || n > kMaxSweepConfigs)
        throw pb::sdk::Error(PB_ERR_INVALID_ARGUMENT,
                             "--max-configs: expected a whole number from 1 to " + std::to_string(kMaxSweepConfigs) + ", got '" + text + "'");
      max_configs = n;
    }
    else {
      std::cerr << "perfbound sweep: unknown option '" << a << "'\n" << kSweepHelp;
      return 2;
    }
  }
  if (dsl_path.empty() || spec_path.empty()) {
    std::cerr << "perfbound sweep: --dsl and --configs are required\n" << kSweepHelp;
    return 2;
  }
  if (format != "json" && format != "text" && format != "md" && format != "html") {
    std::cerr << "perfbound sweep: --format must be json, text, md or html\n";
    return 2;
  }
  auto read_json = [](const std::string &path) {
    std::string error;
    auto text = pb::sdk::read_json_input_file(path, pb::sdk::kMaxConfigFileBytes, error);  // UTF-8, depth
    if (!text) throw pb::sdk::InputError(error);
    json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded()) throw pb::sdk::InputError(pb::sdk::json_syntax_error_message(*text, path));
    return doc;
  };
  json dsl = read_json(dsl_path);
  if (dsl.is_object() && dsl.value("schema", std::string()) != kDslSchema)
    throw pb::sdk::InputError(dsl_path + ": expected a perfbound.dsl_facts/1 document (schema member is '" +
                              dsl.value("schema", std::string("missing")) + "')");
  json spec = read_json(spec_path);
  if (max_configs) {
    if (!spec.is_object())
      throw pb::sdk::Error(PB_ERR_INVALID_ARGUMENT, "--max-configs applies to a range spec, not to a list of configurations");
    spec["max_configs"] = *max_configs;
  }
  // Ctrl-C / SIGTERM end a long sweep with the documented 130; a second one
  // kills (the default action is back).
  g_sweep_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = on_sweep_interrupt;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  struct Restore {
    struct sigaction old_int {}, old_term {};
    ~Restore() {
      sweep_cancel_check() = nullptr;
      sigaction(SIGINT, &old_int, nullptr);
      sigaction(SIGTERM, &old_term, nullptr);
    }
  } restore;
  sigaction(SIGINT, &action, &restore.old_int);
  sigaction(SIGTERM, &action, &restore.old_term);
  sweep_cancel_check() = [] { return g_sweep_interrupted.load(); };
  const auto *ext = host.extension<pb_host_ext_profile>(PB_HOST_EXT_PROFILE);
  if (ext == nullptr) throw pb::sdk::InfraError("the host offers no perfbound.host.profile/1 extension");
  std::string profile_text;
  pb_status st = ext->load(host.raw(), profile.c_str(),
                           [](void *data, const char *text, size_t size) { static_cast<std::string *>(data)->append(text, size); },
                           &profile_text);
  if (st != PB_OK) throw pb::sdk::InputError("profile '" + profile + "' could not be loaded");
  const json profile_doc = json::parse(profile_text);
  Rates rates = Rates::from_profile(profile_doc, "profile " + profile);
  SweepModel model = SweepModel::build(dsl, rates, dsl_path);
  model.read_tuning(spec, spec_path);
  std::vector<SweepConfig> configs = model.expand(spec, spec_path);
  if (format == "json") {
    // Streamed, one configuration at a time (a sampled million configurations
    // would be a ~4 GB document); to --out through a temporary file renamed
    // at the end, so an interrupted or failed sweep leaves nothing half-written.
    if (out_path.empty()) {
      // Interrupted, the document on stdout stops where it was (exit 130).
      model.write_json(std::cout, configs, threshold, factor, cache, rates.profile_name);
      std::cout.flush();
      if (!std::cout) throw pb::sdk::InfraError("cannot write the sweep document to standard output");
      return 0;
    }
    const std::string partial = out_path + ".partial";
    {
      std::ofstream out(partial);
      if (!out) throw pb::sdk::InputError(out_path + ": cannot write");
      try {
        model.write_json(out, configs, threshold, factor, cache, rates.profile_name);
      } catch (...) {
        out.close();
        std::remove(partial.c_str());
        throw;
      }
      out.flush();
      if (!out) {
        std::remove(partial.c_str());
        throw pb::sdk::InfraError(out_path + ": write failed");
      }
    }
    if (std::rename(partial.c_str(), out_path.c_str()) != 0) {
      std::remove(partial.c_str());
      throw pb::sdk::InfraError(out_path + ": cannot write (rename of " + partial + " failed)");
    }
    return 0;
  }
  json doc = model.run(configs, threshold, factor, cache, format == "html" ? kSweepHtmlRows : kSweepTextRows);
  doc["profile"] = rates.profile_name;
  std::string text = format == "html" ? render_html_page(kSweepSchema, doc, &profile_doc) : *render_document(kSweepSchema, doc, format);
  throw_if_cancelled();  // a signal during rendering: nothing half-written
  if (out_path.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(out_path);
    if (!out) throw pb::sdk::InputError(out_path + ": cannot write");
    out << text;
  }
  return 0;
}

}  // namespace

}  // namespace pb::models
