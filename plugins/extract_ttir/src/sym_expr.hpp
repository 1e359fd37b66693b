//===- sym_expr.hpp - symbolic integer expressions over a Triton program --===//
//
// Index, pointer-offset, mask and loop-bound computations of a TTIR kernel
// are recorded as a hash-consed expression DAG over a few kinds of leaves:
// scalar kernel arguments, program ids, program counts, loop iteration
// counters (0-based), tensor indices (Dim d of the value's own shape),
// placeholders for loop-carried values (bound once the loop is understood)
// and opaque values (loaded from memory, not modelled) that carry a reason.
//
// On top of the DAG: a polynomial normal form (induction detection, printing),
// a numeric evaluator with program/launch values, and "concretisation": with
// the launch and one program fixed, an expression becomes affine in the tile
// indices and loop counters, or the reason it does not. No MLIR here.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_SYM_EXPR_HPP
#define PERFBOUND_EXTRACT_TTIR_SYM_EXPR_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace perfbound::ttir {

using ExprId = std::int32_t;
inline constexpr ExprId kNoExpr = -1;

/// Every walk over an expression that recurses (polynomial form, dimension
/// rewriting, evaluation, concretisation, printing) stops at this depth and
/// gives its conservative answer: an atom, an unknown value with the reason
/// kTooDeepReason, a failure to concretise, "...". The analysis also refuses
/// to build an index expression taller than kMaxExprHeight (the value is
/// unknown instead, with the op's line), so real walks stay far below it;
/// the limit is for chains through loop-carried values. A walk's frame is a
/// few hundred bytes: the limit fits the smallest stack it runs on (the
/// host's thread, 8 MiB) with room to spare, also under AddressSanitizer.
inline constexpr int kMaxExprDepth = 2000;
/// Index expressions are not built taller than this (FunctionUnit::set_int).
inline constexpr int kMaxExprHeight = 1000;
inline constexpr const char *kTooDeepReason = "an index expression nested too deeply to be modelled";

/// Counts the depth of a recursive walk (see kMaxExprDepth).
class DepthGuard {
 public:
  explicit DepthGuard(int &depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard &) = delete;
  DepthGuard &operator=(const DepthGuard &) = delete;
  [[nodiscard]] bool too_deep() const { return depth_ > kMaxExprDepth; }

 private:
  int &depth_;
};

enum class ExprOp : std::uint8_t {
  // leaves
  Const,        // value
  Arg,          // value = kernel argument index
  Pid,          // value = grid axis
  NumPrograms,  // value = grid axis
  LoopIter,     // value = loop id; the 0-based iteration counter
  Dim,          // value = tensor dimension
  Placeholder,  // value = placeholder index (loop-carried value)
  Opaque,       // value = opaque index (reason in the pool)
  // integer arithmetic (i1 values are 0/1)
  Add, Sub, Mul, DivS, DivU, FloorDivS, CeilDivS, CeilDivU, RemS, RemU,
  MinS, MaxS, MinU, MaxU, And, Or, Xor, Shl, ShrS, ShrU,
  Cmp,     // value = CmpPred; a pred b
  Select,  // a ? b : c
};

enum class CmpPred : std::uint8_t { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };

struct ExprNode {
  ExprOp op = ExprOp::Const;
  /// Operations on the longest path down to a leaf (saturating; a
  /// placeholder counts as a leaf until it is bound).
  std::uint16_t height = 0;
  std::int64_t value = 0;
  ExprId a = kNoExpr, b = kNoExpr, c = kNoExpr;
  std::uint32_t dims = 0;  // bit d: Dim(d) may occur below (conservative for placeholders)
};

/// Why a value is unknown, with the TTIR line of the op that made it.
struct OpaqueInfo {
  std::string reason;
  int line = 0;
  /// A scalar loaded from kernel argument `load_arg` at element offset
  /// `load_offset` (-1 / kNoExpr: not a load). With user-given data for the
  /// argument (EvalEnv::data) the evaluator reads the element.
  int load_arg = -1;
  ExprId load_offset = kNoExpr;
  int ttir_line = 0;  // TTIR line of the load
};

/// Monomial: sorted ids of atoms (leaves or non-polynomial nodes); a Poly
/// maps monomials to integer coefficients (the empty monomial is the constant).
using Monomial = std::vector<ExprId>;
using Poly = std::map<Monomial, std::int64_t>;

/// Names used when printing expressions.
struct ExprNamer {
  std::function<std::string(int)> arg;         // kernel argument index -> name
  std::function<std::string(int)> loop_iter;   // loop id -> name of the counter
};

class ExprPool {
 public:
  ExprPool();

  // Leaves.
  ExprId constant(std::int64_t value);
  ExprId arg(int index) { return leaf(ExprOp::Arg, index); }
  ExprId pid(int axis) { return leaf(ExprOp::Pid, axis); }
  ExprId num_programs(int axis) { return leaf(ExprOp::NumPrograms, axis); }
  ExprId loop_iter(int loop) { return leaf(ExprOp::LoopIter, loop); }
  ExprId dim(int d);
  /// A loop-carried value to be bound later; `dims` lists the tensor
  /// dimensions the bound value may use.
  ExprId placeholder(std::uint32_t dims);
  /// An unknown value; `dims` marks the tensor dimensions it varies along
  /// (a loaded tensor of indices varies along all of them).
  ExprId opaque(std::string reason, int line, std::uint32_t dims = 0);
  /// A scalar loaded from argument `arg` at element offset `offset`: opaque
  /// unless the evaluation is given the argument's data.
  ExprId opaque_load(std::string reason, int line, int ttir_line, int arg, ExprId offset);

  // Operations (constant-folded, simplified and hash-consed).
  ExprId binary(ExprOp op, ExprId a, ExprId b);
  ExprId cmp(CmpPred pred, ExprId a, ExprId b);
  ExprId select(ExprId cond, ExprId if_true, ExprId if_false);
  ExprId add(ExprId a, ExprId b) { return binary(ExprOp::Add, a, b); }
  ExprId sub(ExprId a, ExprId b) { return binary(ExprOp::Sub, a, b); }
  ExprId mul(ExprId a, ExprId b) { return binary(ExprOp::Mul, a, b); }
  ExprId logical_and(ExprId a, ExprId b);
  ExprId logical_not(ExprId a);
  /// max(0, ceil((ub - lb) / step)): the trip count of `for i in range(lb, ub, step)`.
  ExprId trip_count(ExprId lb, ExprId ub, ExprId step);

  /// Binds a placeholder (once). A value that contains the placeholder
  /// itself (a cycle: every walk would recurse without end) is not bound:
  /// the placeholder becomes an unknown value instead, and false is returned.
  bool bind(ExprId placeholder, ExprId value);
  [[nodiscard]] bool is_bound(ExprId placeholder) const;
  /// Follows placeholder bindings.
  [[nodiscard]] ExprId resolve(ExprId e) const;
  /// Height of `e` through placeholder bindings (at least node(e).height).
  [[nodiscard]] int height(ExprId e) const;

  [[nodiscard]] const ExprNode &node(ExprId e) const { return nodes_[static_cast<size_t>(e)]; }
  [[nodiscard]] size_t size() const { return nodes_.size(); }
  [[nodiscard]] const OpaqueInfo &opaque_info(ExprId e) const;
  [[nodiscard]] bool is_const(ExprId e, std::int64_t *value = nullptr) const;

  /// Rewrites Dim(d) as `new_for_old[d]` (kNoExpr: keep). A placeholder that
  /// may use dims cannot be rewritten: the result is then opaque.
  ExprId remap_dims(ExprId e, const std::vector<ExprId> &new_for_old);

  /// Polynomial normal form (after resolving bindings).
  [[nodiscard]] Poly to_poly(ExprId e) const;
  ExprId from_poly(const Poly &poly);
  /// e1 - e2 in normal form.
  [[nodiscard]] Poly difference(ExprId e1, ExprId e2) const;

  /// True when `e` (through bindings) contains `target` (a leaf or a node).
  /// `through_loads`: also look inside the offsets of loads (opaque_load).
  [[nodiscard]] bool contains(ExprId e, ExprId target, bool through_loads = false) const;
  /// True when `e` contains any node satisfying `pred`.
  [[nodiscard]] bool contains_if(ExprId e, const std::function<bool(const ExprNode &, ExprId)> &pred,
                                 bool through_loads = false) const;
  /// First opaque leaf below `e` (kNoExpr when none).
  [[nodiscard]] ExprId first_opaque(ExprId e) const;

  /// Human-readable form, e.g. "2048*pid_x + i0" or "cdiv(K, 16)".
  [[nodiscard]] std::string to_string(ExprId e, const ExprNamer &namer) const;
  [[nodiscard]] std::string poly_to_string(const Poly &poly, const ExprNamer &namer) const;
  // (both in expr_print.cpp: print_expr, print_poly)

 private:
  ExprId leaf(ExprOp op, std::int64_t value);
  ExprId intern(const ExprNode &n);
  ExprId intern_binary(ExprOp op, std::int64_t value, ExprId a, ExprId b);
  ExprId fold(ExprOp op, std::int64_t a, std::int64_t b);

  struct KeyHash {
    size_t operator()(const ExprNode &n) const;
  };
  struct KeyEq {
    bool operator()(const ExprNode &x, const ExprNode &y) const;
  };
  std::vector<ExprNode> nodes_;
  std::unordered_map<ExprNode, ExprId, KeyHash, KeyEq> interned_;
  std::vector<ExprId> bindings_;       // per placeholder
  std::vector<std::uint16_t> bound_height_;  // per placeholder: height of its bound value
  std::vector<OpaqueInfo> opaques_;    // per opaque
};

/// The human-readable form (expr_print.cpp); ExprPool::to_string and
/// poly_to_string call these.
std::string print_expr(const ExprPool &pool, ExprId e, const ExprNamer &namer);
std::string print_poly(const ExprPool &pool, const Poly &poly, const ExprNamer &namer);

inline std::string ExprPool::to_string(ExprId e, const ExprNamer &namer) const { return print_expr(*this, e, namer); }
inline std::string ExprPool::poly_to_string(const Poly &poly, const ExprNamer &namer) const { return print_poly(*this, poly, namer); }

/// Values of everything an expression may read, for one program.
struct EvalEnv {
  const std::vector<std::optional<std::int64_t>> *args = nullptr;
  std::int64_t pid[3] = {0, 0, 0};
  std::int64_t num_programs[3] = {1, 1, 1};
  std::vector<std::optional<std::int64_t>> loop_iters;  // by loop id
  const std::vector<std::int64_t> *dims = nullptr;     // tile indices, when evaluating one element
  /// User-given contents of pointer arguments (by argument index), read by
  /// loads at a known index; nullptr: loads stay unknown.
  const std::map<int, std::vector<std::int64_t>> *data = nullptr;
};

/// A load from given data at an index outside it (the first one seen).
struct DataRangeError {
  ExprId load = kNoExpr;
  std::int64_t index = 0;
  std::int64_t size = 0;
};

/// Result of a numeric evaluation: a value, or the node that blocked it.
struct EvalResult {
  std::optional<std::int64_t> value;
  ExprId blame = kNoExpr;  // opaque leaf, unknown argument or unbound leaf
};

/// Numeric evaluation with a reusable memo (one per thread).
class Evaluator {
 public:
  explicit Evaluator(const ExprPool &pool) : pool_(pool) {}
  EvalResult eval(ExprId e, const EvalEnv &env);
  /// Set when a load read given data out of its range.
  [[nodiscard]] const std::optional<DataRangeError> &range_error() const { return range_error_; }
  /// Arguments whose given data a load read.
  [[nodiscard]] const std::set<int> &data_reads() const { return data_reads_; }

 private:
  EvalResult eval_node(ExprId e, const EvalEnv &env);
  const ExprPool &pool_;
  int depth_ = 0;
  std::vector<std::uint32_t> stamp_;
  std::vector<EvalResult> memo_;
  std::uint32_t generation_ = 0;
  std::optional<DataRangeError> range_error_;
  std::set<int> data_reads_;
};

/// Integer division helpers with floor/ceil semantics.
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t ceil_div(std::int64_t a, std::int64_t b);
/// Whether `a pred b` holds (unsigned predicates compare the bit patterns).
bool compare_values(CmpPred pred, std::int64_t a, std::int64_t b);
/// Numeric value of `op` on two integers; nullopt for division by zero or a
/// shift out of range.
std::optional<std::int64_t> apply_binary(ExprOp op, std::int64_t a, std::int64_t b);

/// Variables of an affine form: tile dimension d -> d, loop counter l -> kLoopVar + l.
inline constexpr int kLoopVar = 64;

/// c0 + sum(coeff * var).
struct AffineForm {
  std::int64_t c0 = 0;
  std::vector<std::pair<int, std::int64_t>> terms;  // sorted by var, no zero coefficients
  [[nodiscard]] std::int64_t coeff(int var) const;
  [[nodiscard]] bool is_constant() const { return terms.empty(); }
};

/// A failure to make an expression affine, with the node to blame.
struct AffineFailure {
  ExprId blame = kNoExpr;
  std::string why;
};

/// Inclusive range of a variable (tile index or loop counter).
using VarRange = std::function<std::optional<std::pair<std::int64_t, std::int64_t>>(int var)>;

/// Makes `e` affine in the tile indices and the loop counters not fixed in
/// `env`, with scalars taken from `env`. Div/rem/min/max/select that the
/// variable ranges decide are simplified (e.g. `(16*pid + i0) % M` is
/// `16*pid + i0` when the whole tile stays below M).
class Concretizer {
 public:
  Concretizer(const ExprPool &pool, const ExprNamer &namer) : pool_(pool), namer_(namer) {}
  bool run(ExprId e, const EvalEnv &env, const VarRange &ranges, AffineForm &out, AffineFailure &failure);

 private:
  struct Slot {
    bool done = false;
    bool ok = false;
    AffineForm form;
  };
  bool visit(ExprId e, AffineForm &out);
  bool range_of(const AffineForm &f, std::int64_t &lo, std::int64_t &hi) const;
  const ExprPool &pool_;
  const ExprNamer &namer_;
  const EvalEnv *env_ = nullptr;
  const VarRange *ranges_ = nullptr;
  int depth_ = 0;
  std::unordered_map<ExprId, Slot> memo_;
  AffineFailure failure_;
};

/// One linear constraint sum(coeff*var) <= bound.
struct LinearConstraint {
  std::vector<std::pair<int, std::int64_t>> terms;
  std::int64_t bound = 0;
};

/// Splits a mask (i1 expression) into linear constraints for one program.
/// Returns false (with failure) when a conjunct is not a linear comparison.
/// `never` is set when a conjunct is constant false.
bool mask_constraints(const ExprPool &pool, Concretizer &concretizer, ExprId mask, const EvalEnv &env,
                      const VarRange &ranges, std::vector<LinearConstraint> &out, bool &never,
                      AffineFailure &failure);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_SYM_EXPR_HPP
