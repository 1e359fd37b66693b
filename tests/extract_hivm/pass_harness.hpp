//===- pass_harness.hpp - the analysis passes of one function, for tests --===//
//
// Composes the passes of plugins/extract_hivm/src the way analyze.cpp does,
// on the first function of a small dump written in the test, so a test can
// run the walk and then one pass at a time and look at the function model
// (function_ir.hpp) in between.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_EXTRACT_HIVM_PASS_HARNESS_HPP
#define PERFBOUND_TESTS_EXTRACT_HIVM_PASS_HARNESS_HPP

#include <doctest/doctest.h>

#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analyze.hpp"
#include "counts.hpp"
#include "function_ir.hpp"
#include "op_quantities.hpp"
#include "parser.hpp"
#include "records.hpp"
#include "trip_count.hpp"
#include "value_eval.hpp"
#include "walk.hpp"

namespace hivmtest {

using namespace pb::hivm;
using namespace pb::hivm::analysis;

/// The passes of one function, wired as in analyze.cpp.
struct Passes {
  Passes(const AnalysisOptions &o, const AliasMap &aliases, Program &prog, std::deque<std::string> &names,
         std::vector<std::pair<uint32_t, std::string_view>> &locs)
      : ir(o, aliases, prog), scope(names), ev(ir), walker(ir, scope, ev, locs), trips(ir, ev), quantities(ir, ev),
        counts(ir, ev, trips, quantities), records(ir, ev, trips, counts) {}

  FunctionIr ir;
  SsaScope scope;
  ValueEvaluator ev;
  FunctionWalker walker;
  TripCounter trips;
  OpQuantities quantities;
  ExecutionCounts counts;
  RecordAssembler records;

  /// Every pass after the walk, in the driver's order.
  void run_all() {
    ev.bind_launch();
    counts.compute_counts();
    records.finish_records();
    FunctionView view;
    records.finish_function(view);
  }

  /// The record of the op on `line`.
  uint32_t record_at(uint32_t line) const {
    for (uint32_t r = ir.first_record; r < ir.prog.ops.size(); ++r)
      if (ir.prog.ops[r].line == line) return r;
    FAIL("no op on line " << line);
    return 0;
  }
  /// The last value defined on `line` (an op's result).
  ValueId value_at(uint32_t line) const {
    for (size_t v = ir.values.size(); v-- > 0;)
      if (ir.values[v].line == line) return static_cast<ValueId>(v);
    FAIL("no value defined on line " << line);
    return kNone;
  }
  /// The view behind the memref defined on `line`.
  const MemrefInfo &view_at(uint32_t line) const {
    const MemrefInfo *info = ir.mem_of(value_at(line));
    REQUIRE_MESSAGE(info != nullptr, "no memref view defined on line " << line);
    return *info;
  }
  /// The loop whose scf.for is on `line`.
  uint32_t loop_at(uint32_t line) const {
    for (uint32_t L = 0; L < ir.loops.size(); ++L)
      if (ir.loops[L].line == line) return L;
    FAIL("no loop on line " << line);
    return 0;
  }
  /// Sets the evaluation context: block and sub-block index, no loop bound.
  void at_block(Interval block, Interval sub = Interval::point(0)) {
    ev.ctx.block = block;
    ev.ctx.sub = sub;
    ev.ctx.iv.assign(ir.loops.size(), std::nullopt);
    ev.touch_ctx();
  }
  /// Sums what TripCounter enumerates for the body of the op on `line`.
  Mult executions_of(uint32_t line, uint64_t *leaves_out = nullptr, std::string *reason_out = nullptr) {
    Mult sum{0, 0, 0, true, true};
    uint64_t leaves = 0;
    std::string reason;
    uint8_t taint = 0;
    trips.clear_reasons();
    trips.enumerate(ir.chain_of(ir.path_of(record_at(line))), 0, Mult{}, leaves,
                    [&](const Mult &m) { add_executions(sum, m); },
                    reason, taint);
    if (leaves_out != nullptr) *leaves_out = leaves;
    if (reason_out != nullptr) *reason_out = reason;
    return sum;
  }
};

/// Parses `text`, walks its first function and hands its passes to `check`
/// (inside the reader's callback, while the function's ops are alive).
inline void with_function(const std::string &text, const AnalysisOptions &options,
                          const std::function<void(Passes &)> &check) {
  Program prog = start_program(options);
  FileReader reader(text);
  std::deque<std::string> names;
  std::vector<std::pair<uint32_t, std::string_view>> locs;
  bool seen = false;
  reader.read([&](const Op &func, const FunctionContext &fctx) {
    if (seen) return;
    seen = true;
    Passes p(options, reader.aliases(), prog, names, locs);
    p.walker.walk_function(func, fctx);
    check(p);
  });
  REQUIRE_MESSAGE(seen, "no function in the test's dump");
}

}  // namespace hivmtest

#endif  // PERFBOUND_TESTS_EXTRACT_HIVM_PASS_HARNESS_HPP
