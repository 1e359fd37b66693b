//===- test_pass_counts.cpp - trip counts, op quantities, execution counts -===//
//
// Unit tests of trip_count.hpp (multiplicities of loops and branches),
// op_quantities.hpp (one execution of a DMA, vector or cube op) and
// counts.hpp (per-block, per-grid and minimum sums), each on a small dump
// written here; line numbers are those of the raw string.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "pass_harness.hpp"

using namespace hivmtest;

namespace {

// Line 9: a loop of ceil(10 / 3) = 4 iterations; line 13: a nested loop whose bound is
// select(block < 3, 5, 4); line 15: an if on block == 0 inside both; line 21: a loop
// bounded by Triton argument 1 (n); line 24: an if marked unlikely.
const std::string kLoops = R"(func.func @loops(%arg0: memref<?xf32, #hivm.address_space<gm>>, %arg1: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  %0 = hivm.hir.get_block_idx -> i64
  scf.for %arg2 = %c0 to %c10 step %c3 {
    %1 = arith.index_cast %0 : i64 to index
    %2 = arith.cmpi slt, %1, %c3 : index
    %3 = arith.select %2, %c5, %c4 : index
    scf.for %arg3 = %c0 to %3 step %c1 {
      %4 = arith.cmpi eq, %1, %c0 : index
      scf.if %4 {
        %5 = arith.addi %arg2, %arg3 : index
      }
    }
  }
  %6 = arith.index_cast %arg1 : i32 to index
  scf.for %arg4 = %c0 to %6 step %c1 {
    %7 = arith.addi %arg4, %c1 : index
    %8 = arith.cmpi slt, %7, %c4 : index
    scf.if %8 {
      %9 = arith.addi %7, %c1 : index
    } {hivm.unlikely_condition}
  }
  return
}
)";

AnalysisOptions grid(std::vector<int64_t> g, std::map<std::string, double> args = {}) {
  AnalysisOptions o;
  o.have_launch = true;
  o.grid = std::move(g);
  for (const auto &[key, value] : args) o.args[key] = value;
  return o;
}

}  // namespace

TEST_CASE("trip_count: constant bounds enumerate every iteration; past the budget the trip count is a factor") {
  with_function(kLoops, grid({8}), [](Passes &p) {
    p.ev.bind_launch();
    p.at_block(Interval::point(0));
    uint64_t leaves = 0;
    Mult m = p.executions_of(10, &leaves);  // the index_cast in the first loop: 4 iterations
    CHECK(m.value == 4);
    CHECK(m.min == 4);
    CHECK(m.exact);
    CHECK(leaves == 4);
    // Block 0 runs the inner loop 5 times per outer iteration (0 < 3), the if is taken: 4 x 5.
    m = p.executions_of(16, &leaves);
    CHECK(m.value == 20);
    CHECK(m.exact);
    // Block 5: 4 inner iterations, the if is never taken.
    p.at_block(Interval::point(5));
    CHECK(p.executions_of(14).value == 16);
    CHECK(p.executions_of(16).value == 0);
  });
  AnalysisOptions small = grid({8});
  small.enumeration_budget = 2;
  with_function(kLoops, small, [](Passes &p) {
    p.ev.bind_launch();
    p.at_block(Interval::point(0));
    uint64_t leaves = 0;
    Mult m = p.executions_of(10, &leaves);
    CHECK(leaves == 1);  // one leaf with the loop index as an interval
    CHECK(m.value == 4);
    CHECK(m.exact);
  });
}

TEST_CASE("trip_count: bounds that are intervals give a trip-count range with its reason; branches min 0") {
  with_function(kLoops, grid({8}), [](Passes &p) {
    p.ev.bind_launch();
    // Every block at once: the inner loop runs 4..5 times, the if on block == 0 may not run.
    p.at_block(Interval::range(0, 7));
    std::string reason;
    Mult m = p.executions_of(16, nullptr, &reason);
    CHECK(m.min == 0);
    CHECK(m.max == 20);
    CHECK_FALSE(m.exact);
    CHECK(reason.find("loop at line 13 runs 4..5 times (bounds are not constant)") != std::string::npos);
    CHECK(reason.find("branch at line 15 not decidable (counted as taken)") != std::string::npos);
    // n not given: the loop on line 21 runs 0..unbounded times, its count unknown.
    p.at_block(Interval::point(0));
    m = p.executions_of(22, nullptr, &reason);
    CHECK_FALSE(m.known);
    CHECK(m.min == 0);
    CHECK(reason == "loop at line 21 runs 0..unbounded times (bounds depend on launch arguments not given)");
  });
  // n = 6: iterations 0..5; the unlikely if holds for %7 = 1..3 and is decided per iteration.
  with_function(kLoops, grid({8}, {{"1", 6}}), [](Passes &p) {
    p.ev.bind_launch();
    p.at_block(Interval::point(0));
    CHECK(p.executions_of(22).value == 6);
    CHECK(p.executions_of(25).value == 3);
    CHECK(p.executions_of(25).exact);
  });
}

TEST_CASE("trip_count: a trips fact narrows an open trip count; trip_per_entry fills the loop record") {
  AnalysisOptions o = grid({8});
  o.trips.push_back({"21", 21, 2, 7, std::nullopt, false});
  with_function(kLoops, o, [](Passes &p) {
    p.ev.bind_launch();
    p.at_block(Interval::point(0));
    std::string reason;
    Mult m = p.executions_of(22, nullptr, &reason);
    CHECK(m.known);
    CHECK(m.min == 2);
    CHECK(m.max == 7);
    CHECK(m.value == 7);
    CHECK(reason.find("under the given trips.\"21\"") != std::string::npos);
    CHECK(p.ev.facts_used == p.ev.trip_bit(0));
  });
  with_function(kLoops, grid({8}), [](Passes &p) {
    p.ev.bind_launch();
    p.counts.compute_counts();  // entries of the loops, which trip_per_entry does not need
    LoopRecord inner;
    p.trips.trip_per_entry(p.loop_at(13), inner);
    CHECK(inner.trip.value == 5);  // block 0
    CHECK_FALSE(inner.trip.exact);  // depends on the block index
    CHECK(inner.trip_min_any == 4);
    CHECK(inner.trip_max_any == 5);
    CHECK_FALSE(inner.unknown_trip);
    LoopRecord open;
    p.trips.trip_per_entry(p.loop_at(21), open);
    CHECK(open.unknown_trip);  // may not run at all, nothing bounds it
    LoopRecord outer;
    p.trips.trip_per_entry(p.loop_at(9), outer);
    CHECK(outer.trip.value == 4);
    CHECK(outer.trip.exact);
  });
}

TEST_CASE("op_quantities: a strided GM load, a vector op with masked lanes, a cube op with padded MTE1 bytes") {
  const std::string text = R"(func.func @quantities(%arg0: memref<?xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %c20 = arith.constant 20 : index
  %c30 = arith.constant 30 : index
  %c40 = arith.constant 40 : index
  %true = arith.constant true
  %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [16, 64], strides: [128, 1] : memref<?xf32, #hivm.address_space<gm>> to memref<16x64xf32, strided<[128, 1]>, #hivm.address_space<gm>>
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<16x64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%reinterpret_cast : memref<16x64xf32, strided<[128, 1]>, #hivm.address_space<gm>>) outs(%0 : memref<16x64xf32, #hivm.address_space<ub>>)
  %1 = hivm.hir.pointer_cast(%c0_i64) : memref<100xf32, #hivm.address_space<ub>>
  hivm.hir.vadd ins(%1, %1 : memref<100xf32, #hivm.address_space<ub>>, memref<100xf32, #hivm.address_space<ub>>) outs(%1 : memref<100xf32, #hivm.address_space<ub>>)
  %2 = hivm.hir.pointer_cast(%c0_i64) : memref<32x48xbf16, #hivm.address_space<cbuf>>
  %3 = hivm.hir.pointer_cast(%c0_i64) : memref<32x48xf32, #hivm.address_space<cc>>
  hivm.hir.mmadL1 ins(%2, %2, %true, %c20, %c30, %c40 : memref<32x48xbf16, #hivm.address_space<cbuf>>, memref<32x48xbf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%3 : memref<32x48xf32, #hivm.address_space<cc>>)
  return
}
)";
  AnalysisOptions o;
  o.fractal["bf16"] = Fractal{16, 16, 16};
  with_function(text, o, [](Passes &p) {
    p.at_block(Interval::point(0));
    // 16 rows of 64 f32 with a row stride of 128: 1024 elements, 4096 bytes, 16 runs of 256 bytes.
    OpQuantities::Sample load = p.quantities.sample(p.record_at(9));
    CHECK(*load.elements.value == 1024);
    CHECK(*load.bytes.value == 4096);
    CHECK(*load.packet_bytes.value == 256);
    CHECK(*load.packets.value == 16);
    // 100 f32 = 400 bytes in 256-byte repeats: 2 repeats of 64 lanes, 28 lanes masked, 100 FLOP.
    OpQuantities::Sample vadd = p.quantities.sample(p.record_at(11));
    CHECK(*vadd.repeats.value == 2);
    CHECK(*vadd.masked.value == 28);
    CHECK(*vadd.flop.value == 100);
    CHECK(*vadd.elements.value == 100);
    // m, k, n = 20, 30, 40: 2mkn = 48000 FLOP; padded to 32 x 32 and 32 x 48 bf16: (1024 + 1536) x 2 bytes.
    OpQuantities::Sample mm = p.quantities.sample(p.record_at(14));
    CHECK(*mm.flop.value == 48000);
    CHECK(*mm.elements.value == 800);
    CHECK(mm.m == 20);
    CHECK(mm.n == 40);
    CHECK(*mm.mte1_bytes.value == 5120);
    CHECK_FALSE(mm.mte1_bytes.estimated());
    CHECK(mm.dtype == "bf16");
    // Sampling an execution leaves the record alone (its per-execution fields are the representative's).
    const OpRecord &cube = p.ir.prog.ops[p.record_at(14)];
    CHECK_FALSE(cube.m.has_value());
    CHECK(cube.issued_instructions == 3);
    // A non-HIVM record has no quantities.
    CHECK_FALSE(p.quantities.sample(p.record_at(2)).bytes.value.has_value());
  });
}

TEST_CASE("counts: per block, per grid and the fewest over every block, with quantities summed") {
  const std::string text = R"(func.func @counts(%arg0: memref<64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %0 = hivm.hir.get_block_idx -> i64
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %1 = arith.index_cast %0 : i64 to index
  %2 = arith.cmpi slt, %1, %c1 : index
  %3 = arith.select %2, %c4, %c3 : index
  %4 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  scf.for %arg1 = %c0 to %3 step %c1 {
    hivm.hir.load ins(%arg0 : memref<64xf32, #hivm.address_space<gm>>) outs(%4 : memref<64xf32, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%4, %4 : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) outs(%4 : memref<64xf32, #hivm.address_space<ub>>)
  }
  return
}
)";
  // Block 0 runs 4 iterations, blocks 1..3 run 3: per grid 4 + 3 x 3 = 13.
  with_function(text, grid({4}), [](Passes &p) {
    p.ev.bind_launch();
    p.counts.compute_counts();
    const OpRecord &vadd = p.ir.prog.ops[p.record_at(14)];
    CHECK(vadd.count.value == 4);      // block 0
    CHECK(vadd.count.min == 3);        // the fewest over every block
    CHECK_FALSE(vadd.count.exact);     // block 0 and the last block differ
    REQUIRE(vadd.count.last_block.has_value());
    CHECK(*vadd.count.last_block == 3);
    CHECK(*vadd.count_grid.value == 13);
    CHECK_FALSE(vadd.count_grid.estimated());
    // 64 f32 = 1 repeat and 64 FLOP per execution.
    CHECK(*vadd.totals().repeats_block.value == 4);
    CHECK(*vadd.totals().flop_block.value == 256);
    CHECK(*vadd.totals().flop_grid.value == 13 * 64);
    CHECK(*vadd.block_min.flop == 3 * 64);
    CHECK(*vadd.issued_block.value == 4);
    CHECK(vadd.totals().repeats.value == 1);  // the representative execution
    // The load: 64 f32 = 256 bytes per execution.
    const OpRecord &load = p.ir.prog.ops[p.record_at(13)];
    CHECK(*load.totals().bytes_block.value == 4 * 256);
    CHECK(*load.totals().bytes_grid.value == 13 * 256);
  });
  // With a budget too small to enumerate the grid: block 0 times the block count, estimated.
  AnalysisOptions small = grid({4});
  small.grid_budget = 1;
  with_function(text, small, [](Passes &p) {
    p.ev.bind_launch();
    p.counts.compute_counts();
    const OpRecord &vadd = p.ir.prog.ops[p.record_at(14)];
    CHECK(*vadd.count_grid.value == 16);
    CHECK(vadd.count_grid.estimated());
    CHECK(vadd.count.min == 3);  // from the block index as an interval [0, 3]
  });
}
