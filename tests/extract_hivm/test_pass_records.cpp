//===- test_pass_records.cpp - eligibility and record assembly ------------===//
//
// Unit tests of eligibility.hpp (landed unit, scalar fallbacks and their
// causes) and records.hpp (loop records, instruction totals, unknown loops,
// the function view), each on a small dump written here; line numbers are
// those of the raw string.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "eligibility.hpp"
#include "pass_harness.hpp"

using namespace hivmtest;

namespace {

// An element-by-element gather loop (line 7, marked {ExtractedLoadOrStore}) and a vadd after it.
const std::string kGather = R"(func.func @gather(%arg0: memref<?xi64, #hivm.address_space<gm>>, %arg1: memref<?xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<16xf32, #hivm.address_space<ub>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %arg2 = %c0 to %c16 step %c1 {
    %1 = memref.load %arg0[%arg2] : memref<?xi64, #hivm.address_space<gm>>
    %2 = arith.index_cast %1 : i64 to index
    %3 = memref.load %arg1[%2] : memref<?xf32, #hivm.address_space<gm>>
    memref.store %3, %0[%arg2] : memref<16xf32, #hivm.address_space<ub>>
  } {ExtractedLoadOrStore}
  hivm.hir.vadd ins(%0, %0 : memref<16xf32, #hivm.address_space<ub>>, memref<16xf32, #hivm.address_space<ub>>) outs(%0 : memref<16xf32, #hivm.address_space<ub>>)
  return
}
)";

}  // namespace

TEST_CASE("eligibility: scalar work in an element-by-element loop is a fallback with its cause; HIVM ops land on their unit") {
  with_function(kGather, {}, [](Passes &p) {
    p.run_all();
    auto elig = [&](uint32_t line) -> const Eligibility & { return p.ir.prog.ops[p.record_at(line)].eligibility; };
    const std::string extracted =
        " (loop marked {ExtractedLoadOrStore}: an access the compiler could not turn into a DMA or vector op)";
    CHECK(elig(8).fallback);
    CHECK(elig(8).landed == "scalar");
    CHECK(elig(8).units == std::vector<Word>{"mte2", "vector", "scalar"});
    CHECK(elig(8).cause == "gather: element-by-element GM load on the scalar unit" + extracted);
    CHECK(elig(9).cause == "integer width conversion per element on the scalar unit");
    CHECK(elig(9).units == std::vector<Word>{"vector", "scalar"});
    CHECK(elig(11).cause == "element-by-element UB store on the scalar unit" + extracted);
    CHECK(elig(11).units == std::vector<Word>{"vector", "mte3", "scalar"});
    CHECK(elig(7).cause == "loop control of an element-by-element scalar loop");
    // Outside the loop: no fallback; the vadd lands on the vector unit, the constant on the scalar one.
    CHECK_FALSE(elig(13).fallback);
    CHECK(elig(13).units == std::vector<Word>{"vector"});
    CHECK(elig(13).landed == "vector");
    CHECK_FALSE(elig(2).fallback);
    // One finding per fallback, in record order, with its count per block.
    REQUIRE(p.ir.prog.fallbacks.size() == 5);
    CHECK(p.ir.prog.fallbacks[0].line == 7);
    CHECK(p.ir.prog.fallbacks[1].line == 8);
    CHECK(p.ir.prog.fallbacks[1].count_per_block == 16);
    CHECK(p.ir.prog.fallbacks[1].count_exact);
  });
}

TEST_CASE("eligibility: fallback_cause names the kind of scalar work") {
  OpRecord r;
  r.cls = OpClass::ScalarArith;
  r.dtype = "i64";
  CHECK(fallback_cause(r, false) == "i64 index arithmetic per element on the scalar unit");
  r.dtype = "f32";
  CHECK(fallback_cause(r, false) == "floating-point math per element on the scalar unit");
  r.cls = OpClass::ScalarCompare;
  r.name = "arith.select";
  CHECK(fallback_cause(r, false) == "mask/select evaluated per element on the scalar unit");
  r.cls = OpClass::ScalarMemory;
  r.scalar_kind = "gm_store";
  CHECK(fallback_cause(r, false) == "scatter: element-by-element GM store on the scalar unit");
}

TEST_CASE("records: an 8-byte optional number refuses the one value it uses for 'absent'") {
  OptInt64 q;
  CHECK_FALSE(q.has_value());
  q = INT64_MAX;
  REQUIRE(q);
  CHECK(*q == INT64_MAX);
  q = INT64_MIN + 1;
  CHECK(*q == INT64_MIN + 1);
  CHECK_THROWS_AS(q = INT64_MIN, std::overflow_error);
  CHECK_THROWS_AS(Quantity::exact(INT64_MIN), std::overflow_error);
  CHECK(q.value_or(0) == INT64_MIN + 1);  // unchanged by the refused store
  q = std::nullopt;
  CHECK(q.value_or(7) == 7);
  CHECK(OptInt64(std::optional<int64_t>(-3)).optional() == std::optional<int64_t>(-3));
}

TEST_CASE("records: a quantity's estimated flag travels with the quantity, not with its reason's text") {
  Quantity est{40, true, "upper bound of a dynamic extent"};
  CHECK(est.estimated());
  CHECK(est.reason == "upper bound of a dynamic extent");
  // Copies and moves of the quantity keep the flag and the text.
  Quantity copy = est;
  CHECK(copy.estimated());
  CHECK(copy.reason == "upper bound of a dynamic extent");
  Quantity moved = std::move(copy);
  CHECK(moved.estimated());
  CHECK(moved.reason == "upper bound of a dynamic extent");
  Quantity assigned = Quantity::exact(3);
  CHECK_FALSE(assigned.estimated());
  assigned = est;
  CHECK(assigned.estimated());
  CHECK(*assigned.value == 40);
  assigned = Quantity::exact(5);  // an exact quantity clears the flag and the reason
  CHECK_FALSE(assigned.estimated());
  CHECK(assigned.reason.empty());
  // Taking another quantity's reason text leaves this one's flag as it was.
  Quantity exact = Quantity::exact(7);
  exact.reason = est.reason;
  CHECK_FALSE(exact.estimated());
  CHECK(exact.reason == "upper bound of a dynamic extent");
  est.reason = "";  // clearing the text keeps the flag (estimated without a stated reason)
  CHECK(est.estimated());
  CHECK(est.reason.empty());
  est.reason += "appended";
  CHECK(est.estimated());
  CHECK(est.reason == "appended");
  est.set_estimated(false);
  CHECK_FALSE(est.estimated());
  CHECK(est.reason == "appended");
  Quantity self = est;
  const Quantity &alias = self;
  self = alias;  // self-assignment keeps the text
  CHECK(self.reason == "appended");
  CHECK(sizeof(Quantity) == 16);
}

TEST_CASE("records: loop records, loop control per entry and iteration, body instructions per iteration") {
  with_function(kGather, {}, [](Passes &p) {
    p.run_all();
    REQUIRE(p.ir.prog.loops.size() == 1);
    const LoopRecord &lr = p.ir.prog.loops[0];
    CHECK(lr.line == 7);
    CHECK(lr.entries.value == 1);
    CHECK(lr.iterations.value == 16);
    CHECK(lr.trip.value == 16);
    CHECK(lr.trip.exact);
    CHECK(lr.element_loop);
    CHECK(lr.attributes == std::vector<std::string>{"ExtractedLoadOrStore"});
    // The loop's control: 1 per entry + 2 per iteration = 33; the body's four scalar ops 16 each = 64;
    // (33 + 64) / 16 iterations = 6 instructions per iteration.
    const OpRecord &loop = p.ir.prog.ops[p.record_at(7)];
    CHECK(*loop.scalar_block.value == 33);
    CHECK(*loop.block_min.scalar == 33);
    CHECK(*p.ir.prog.ops[p.record_at(9)].scalar_block.value == 16);
    CHECK(lr.body_scalar_instructions == 6);
    // Scalar GM loads move their element per execution: 16 x 8 bytes.
    CHECK(*p.ir.prog.ops[p.record_at(8)].totals().bytes_block.value == 128);
    CHECK(p.ir.prog.functions[0].block_num.reason.str() == "no {logical_block_num} annotation in this function");
  });
}

TEST_CASE("records: a loop bounded by loaded data - its ops name it as their unknown loop and are unresolved") {
  const std::string text = R"(func.func @open(%arg0: memref<?xi32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = memref.load %arg0[%c0] : memref<?xi32, #hivm.address_space<gm>>
  %1 = arith.index_cast %0 : i32 to index
  scf.for %arg1 = %c0 to %1 step %c1 {
    %2 = arith.addi %arg1, %c1 : index
  }
  return
}
)";
  with_function(text, {}, [](Passes &p) {
    p.ev.bind_launch();
    p.counts.compute_counts();
    p.records.finish_records();
    FunctionView view;
    p.records.finish_function(view);
    REQUIRE(p.ir.prog.loops.size() == 1);
    CHECK(p.ir.prog.loops[0].unknown_trip);
    const OpRecord &add = p.ir.prog.ops[p.record_at(7)];
    CHECK(add.count.unknown_loop == 6);
    CHECK_FALSE(add.count.known);
    bool listed = false;
    for (const EstimateNote &u : p.ir.prog.unresolved) listed = listed || (u.line == 7 && u.field == "count");
    CHECK(listed);
    CHECK(p.ir.prog.ops[p.record_at(4)].count.unknown_loop == 0);  // before the loop
    // The view sync.hpp reads: the add's innermost loop is the one span.
    REQUIRE(view.loops.size() == 1);
    CHECK(view.loops[0].op == p.record_at(6));
    CHECK(view.innermost_loop[p.record_at(7) - view.first_op] == 0);
    CHECK(view.innermost_loop[p.record_at(4) - view.first_op] == -1);
  });
}
