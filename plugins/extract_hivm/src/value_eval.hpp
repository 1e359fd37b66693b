//===- value_eval.hpp - the values of SSA values, as intervals ------------===//
//
// ValueEvaluator computes what an SSA value of the function model
// (function_ir.hpp) can be under an evaluation context: a block index, a
// sub-block (AIV instance) index and, per loop, the iteration values bound so
// far -- an Interval plus a taint that says what it depends on (the block
// index, a loop, loaded data, launch arguments not given, user-given data).
// Constants, arithmetic, compares, selects, casts and affine maps fold
// exactly where their operands are exact and to sound intervals where not.
//
// bind_launch() decides the launch-given inputs of the evaluation: which
// arguments are grid sizes (the factors of {logical_block_num}) and their
// values from launch.grid, the Triton positions of the scalar arguments and
// their launch.args values, which tensor arguments have user-given contents
// (launch data, read by scalar loads) and which loops have trips facts.
//
// Inputs: the function model, AnalysisOptions (grid, args, data, trips),
// Program::blocks. Results are memoised until the context changes
// (touch_ctx()).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_VALUE_EVAL_HPP
#define PERFBOUND_EXTRACT_HIVM_VALUE_EVAL_HPP

#include <optional>
#include <vector>

#include "function_ir.hpp"

namespace pb::hivm::analysis {

/// Evaluation context: which block, sub-block and loop iterations we are in.
struct Ctx {
  Interval block = Interval::point(0);
  Interval sub = Interval::point(0);
  std::vector<std::optional<Interval>> iv;  // per loop
};

struct Eval {
  Interval iv;
  uint8_t taint = 0;
};

/// What the launch document fixes for one function (bind_launch()).
struct LaunchBinding {
  std::vector<std::optional<int64_t>> arg_launch;  // by HIVM argument index
  std::vector<int32_t> arg_data;     // by HIVM argument index: index into opts.data, -1 none
  std::vector<Interval> data_range;  // by data fact: smallest and largest element
  std::vector<int32_t> loop_fact;    // by loop: index into opts.trips, -1 none
  Interval block_any = Interval::range(0, Interval::kPosInf);  // every block index of the grid
};

class ValueEvaluator {
 public:
  explicit ValueEvaluator(FunctionIr &ir) : ir_(ir) {}

  /// The value of `v` under `ctx` (memoised until touch_ctx()).
  Eval eval(ValueId v);
  /// A memref extent, stride or offset under `ctx`; adds what it depends on to `taint`.
  Interval eval_dimref(const DimRef &d, uint8_t &taint);
  /// Call after every change of `ctx`.
  void touch_ctx() { ++gen_; }

  /// Fills `launch` and the function's argument records (roles, Triton positions, values)
  /// from the options. Throws FactError for a data fact that names no tensor argument.
  void bind_launch();

  [[nodiscard]] uint64_t trip_bit(size_t fact) const { return uint64_t{1} << fact; }
  [[nodiscard]] uint64_t data_bit(size_t fact) const { return uint64_t{1} << (ir_.opts.trips.size() + fact); }

  Ctx ctx;
  LaunchBinding launch;
  uint64_t facts_used = 0;  // facts that entered the evaluations since the last reset

 private:
  Eval eval_uncached(ValueId v);
  Interval arg_value(uint32_t index, uint8_t &taint);
  Eval eval_load(const Value &v);
  bool names_position(const std::string &key, int64_t position, const std::string &loc_name) const;
  static void check_launch_value(const std::string &key, const LaunchArgValue &given, const std::string &type);

  FunctionIr &ir_;
  uint32_t gen_ = 1;
  std::vector<uint32_t> memo_gen_;
  std::vector<Eval> memo_;
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_VALUE_EVAL_HPP
