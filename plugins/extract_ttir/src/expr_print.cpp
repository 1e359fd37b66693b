//===- expr_print.cpp - the human-readable form of symbolic expressions ---===//
//
// print_expr / print_poly (declared in sym_expr.hpp, reached through
// ExprPool::to_string and poly_to_string): an expression in its polynomial
// normal form, non-constant terms first, e.g. "2048*pid_x + i0" or
// "cdiv(K, 16)". Reads the pool only; the text is what documents and
// messages show, so a change here changes output (the golden test says so).
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <functional>

#include "sym_expr.hpp"

namespace perfbound::ttir {

namespace {

const char *pred_text(CmpPred pred) {
  switch (pred) {
    case CmpPred::Eq: return "==";
    case CmpPred::Ne: return "!=";
    case CmpPred::Slt: return "<";
    case CmpPred::Sle: return "<=";
    case CmpPred::Sgt: return ">";
    case CmpPred::Sge: return ">=";
    case CmpPred::Ult: return "<u";
    case CmpPred::Ule: return "<=u";
    case CmpPred::Ugt: return ">u";
    case CmpPred::Uge: return ">=u";
  }
  return "?";
}

/// The printing in progress on this thread: print_expr and print_poly call
/// each other once per nesting level. Deeper than kMaxExprDepth, or after
/// kMaxPrintedAtoms atoms (a DAG that shares subexpressions prints as a
/// tree, which can be exponentially larger), a subexpression prints as "...".
struct PrintState {
  int depth = 0;
  size_t atoms = 0;
};
thread_local PrintState *active_print = nullptr;
constexpr size_t kMaxPrintedAtoms = 20000;

/// Makes a PrintState active for the outermost call on this thread.
class PrintScope {
 public:
  PrintScope() : owner_(active_print == nullptr) {
    if (owner_) active_print = &state_;
  }
  ~PrintScope() {
    if (owner_) active_print = nullptr;
  }
  PrintScope(const PrintScope &) = delete;
  PrintScope &operator=(const PrintScope &) = delete;
  PrintState &state() { return *active_print; }

 private:
  bool owner_;
  PrintState state_;
};

}  // namespace

std::string print_expr(const ExprPool &pool, ExprId e, const ExprNamer &namer) {
  if (e == kNoExpr) return "?";
  PrintScope scope;
  DepthGuard guard(scope.state().depth);
  if (guard.too_deep() || scope.state().atoms > kMaxPrintedAtoms) return "...";
  std::string text = print_poly(pool, pool.to_poly(e), namer);
  // Drop parentheses that enclose the whole text: "(K + 15) / 16", not "((K + 15) / 16)".
  if (text.size() >= 2 && text.front() == '(' && text.back() == ')') {
    int depth = 0;
    bool outer = true;
    for (size_t idx = 0; idx + 1 < text.size(); ++idx) {
      depth += text[idx] == '(' ? 1 : text[idx] == ')' ? -1 : 0;
      if (depth == 0) {
        outer = false;
        break;
      }
    }
    if (outer) text = text.substr(1, text.size() - 2);
  }
  return text;
}

std::string print_poly(const ExprPool &pool, const Poly &poly, const ExprNamer &namer) {
  static const char *const kAxis[] = {"x", "y", "z"};
  PrintScope scope;
  DepthGuard guard(scope.state().depth);
  if (guard.too_deep() || scope.state().atoms > kMaxPrintedAtoms) return "...";
  std::function<std::string(ExprId)> atom_text = [&](ExprId id) -> std::string {
    if (++scope.state().atoms > kMaxPrintedAtoms) return "...";
    id = pool.resolve(id);
    const ExprNode &n = pool.node(id);
    auto sub_text = [&](ExprId x) { return print_expr(pool, x, namer); };
    // Operands of infix operators get parentheses unless they are one term.
    auto sub_paren = [&](ExprId x) {
      Poly p = pool.to_poly(x);
      std::string text = print_poly(pool, p, namer);
      bool simple = p.empty() || (p.size() == 1 && (p.begin()->second == 1 || (p.begin()->first.empty() && p.begin()->second >= 0)));
      return simple ? text : "(" + text + ")";
    };
    auto axis = [&](std::int64_t v) { return std::string(v >= 0 && v < 3 ? kAxis[v] : "?"); };
    switch (n.op) {
      case ExprOp::Const: return std::to_string(n.value);
      case ExprOp::Arg: return namer.arg ? namer.arg(static_cast<int>(n.value)) : "%arg" + std::to_string(n.value);
      case ExprOp::Pid: return "pid_" + axis(n.value);
      case ExprOp::NumPrograms: return "num_programs_" + axis(n.value);
      case ExprOp::LoopIter:
        return namer.loop_iter ? namer.loop_iter(static_cast<int>(n.value)) : "t" + std::to_string(n.value);
      case ExprOp::Dim: return "i" + std::to_string(n.value);
      case ExprOp::Placeholder: return "carried" + std::to_string(n.value);
      case ExprOp::Opaque: {
        const OpaqueInfo &info = pool.opaque_info(id);
        return info.line > 0 ? "unknown@" + std::to_string(info.line) : "unknown";
      }
      case ExprOp::Add:
      case ExprOp::Sub:
      case ExprOp::Mul:
        return "(" + sub_text(id) + ")";
      case ExprOp::DivS: return "(" + sub_paren(n.a) + " / " + sub_paren(n.b) + ")";
      case ExprOp::DivU: return "(" + sub_paren(n.a) + " /u " + sub_paren(n.b) + ")";
      case ExprOp::FloorDivS: return "floordiv(" + sub_text(n.a) + ", " + sub_text(n.b) + ")";
      case ExprOp::CeilDivS:
      case ExprOp::CeilDivU: return "cdiv(" + sub_text(n.a) + ", " + sub_text(n.b) + ")";
      case ExprOp::RemS: return "(" + sub_paren(n.a) + " % " + sub_paren(n.b) + ")";
      case ExprOp::RemU: return "(" + sub_paren(n.a) + " %u " + sub_paren(n.b) + ")";
      case ExprOp::MinS:
      case ExprOp::MinU: return "min(" + sub_text(n.a) + ", " + sub_text(n.b) + ")";
      case ExprOp::MaxS:
      case ExprOp::MaxU:
        if (pool.is_const(n.b)) return "max(" + sub_text(n.b) + ", " + sub_text(n.a) + ")";
        return "max(" + sub_text(n.a) + ", " + sub_text(n.b) + ")";
      case ExprOp::And: return "(" + sub_paren(n.a) + " & " + sub_paren(n.b) + ")";
      case ExprOp::Or: return "(" + sub_paren(n.a) + " | " + sub_paren(n.b) + ")";
      case ExprOp::Xor: return "(" + sub_paren(n.a) + " ^ " + sub_paren(n.b) + ")";
      case ExprOp::Shl: return "(" + sub_paren(n.a) + " << " + sub_paren(n.b) + ")";
      case ExprOp::ShrS:
      case ExprOp::ShrU: return "(" + sub_paren(n.a) + " >> " + sub_paren(n.b) + ")";
      case ExprOp::Cmp:
        return "(" + sub_text(n.a) + " " + pred_text(static_cast<CmpPred>(n.value)) + " " + sub_text(n.b) + ")";
      case ExprOp::Select: return "(" + sub_text(n.a) + " ? " + sub_text(n.b) + " : " + sub_text(n.c) + ")";
    }
    return "?";
  };
  if (poly.empty()) return "0";
  // Non-constant terms first (in a stable, readable order), the constant last.
  std::vector<std::pair<std::string, std::int64_t>> terms;
  std::int64_t constant_term = 0;
  for (const auto &[mono, coeff] : poly) {
    if (mono.empty()) {
      constant_term = coeff;
      continue;
    }
    std::string text;
    for (ExprId atom : mono) text += (text.empty() ? "" : "*") + atom_text(atom);
    terms.emplace_back(std::move(text), coeff);
  }
  std::stable_sort(terms.begin(), terms.end(), [](const auto &x, const auto &y) {
    // Tile indices (i0, i1, ...) read best last among the varying terms.
    bool x_dim = x.first.size() <= 3 && x.first[0] == 'i';
    bool y_dim = y.first.size() <= 3 && y.first[0] == 'i';
    return x_dim != y_dim ? !x_dim : false;
  });
  std::string out;
  auto append = [&out](const std::string &text, std::int64_t coeff, bool is_const) {
    bool negative = coeff < 0;
    std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(coeff) : static_cast<std::uint64_t>(coeff);
    if (out.empty())
      out += negative ? "-" : "";
    else
      out += negative ? " - " : " + ";
    if (is_const)
      out += std::to_string(magnitude);
    else if (magnitude == 1)
      out += text;
    else
      out += std::to_string(magnitude) + "*" + text;
  };
  for (const auto &[text, coeff] : terms) append(text, coeff, false);
  if (constant_term != 0 || terms.empty()) append("", constant_term, true);
  return out;
}

}  // namespace perfbound::ttir
