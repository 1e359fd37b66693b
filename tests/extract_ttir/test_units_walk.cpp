//===- test_units_walk.cpp - the units of the TTIR walk, one at a time ----===//
//
// Each case names the unit (function_unit.hpp lists them) and checks the
// KernelModel fields that unit alone decides, on small TTIR written here.
// The MLIR-free text unit (ttir_text.hpp) is called directly.
//
//===----------------------------------------------------------------------===//
#include "ttir_test_support.hpp"
#include "ttir_text.hpp"

using namespace ttirtest;
using namespace perfbound::ttir;

namespace {

std::string expr(const KernelModel &k, ExprId e) { return e == kNoExpr ? "-" : k.pool->to_string(e, k.namer()); }

// A 2-D tile x[i*stride + j] walked by a persistent loop over tiles, and a
// counter loop in scf.while: i = start; while i < n: ...; i += 2.
const char *kLoops = R"(module {
  tt.func public @loops(%arg0: !tt.ptr<f32>, %arg1: i32, %arg2: i32, %arg3: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c2_i32 = arith.constant 2 : i32
    %c4096_i32 = arith.constant 4096 : i32
    %0 = tt.get_program_id x : i32
    %1 = tt.get_num_programs x : i32
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %3 = tt.expand_dims %2 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %4 = tt.splat %arg1 : i32 -> tensor<64x1xi32>
    %5 = arith.muli %3, %4 : tensor<64x1xi32>
    %6 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %7 = tt.broadcast %5 : tensor<64x1xi32> -> tensor<64x64xi32>
    %8 = tt.broadcast %6 : tensor<1x64xi32> -> tensor<64x64xi32>
    %9 = arith.addi %7, %8 : tensor<64x64xi32>
    %10 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %11 = tt.addptr %10, %9 : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    %12 = scf.for %arg4 = %0 to %arg2 step %1 iter_args(%arg5 = %11) -> (tensor<64x64x!tt.ptr<f32>>)  : i32 {
      %13 = tt.load %arg5 : tensor<64x64x!tt.ptr<f32>>
      tt.store %arg5, %13 : tensor<64x64x!tt.ptr<f32>>
      %14 = tt.splat %c4096_i32 : i32 -> tensor<64x64xi32>
      %15 = tt.addptr %arg5, %14 : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
      scf.yield %15 : tensor<64x64x!tt.ptr<f32>>
    }
    %16 = scf.while (%arg4 = %c0_i32) : (i32) -> i32 {
      %17 = arith.cmpi slt, %arg4, %arg3 : i32
      scf.condition(%17) %arg4 : i32
    } do {
    ^bb0(%arg4: i32):
      %18 = tt.addptr %arg0, %arg4 : !tt.ptr<f32>, i32
      %19 = tt.load %18 : !tt.ptr<f32>
      tt.store %18, %19 : !tt.ptr<f32>
      %20 = arith.addi %arg4, %c2_i32 : i32
      scf.yield %20 : i32
    }
    tt.return
  }
}
)";

// A block-pointer matmul step: a (16x32) and b (32x16) feed only tt.dot,
// the accumulator is carried by the loop; a row sum and an exp of the result.
const char *kDot = R"(module {
  tt.func public @dot(%arg0: !tt.ptr<f16>, %arg1: !tt.ptr<f16>, %arg2: !tt.ptr<f32>, %arg3: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %c1_i64 = arith.constant 1 : i64
    %c32_i64 = arith.constant 32 : i64
    %c16_i64 = arith.constant 16 : i64
    %0 = arith.extsi %arg3 : i32 to i64
    %1 = tt.make_tensor_ptr %arg0, [%c16_i64, %0], [%0, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<16x32xf16>>
    %2 = tt.make_tensor_ptr %arg1, [%0, %c16_i64], [%c16_i64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<32x16xf16>>
    %3:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg5 = %cst, %arg6 = %1, %arg7 = %2) -> (tensor<16x16xf32>, !tt.ptr<tensor<16x32xf16>>, !tt.ptr<tensor<32x16xf16>>)  : i32 {
      %4 = tt.load %arg6 {boundaryCheck = array<i32: 1>, padding = 1 : i32} : !tt.ptr<tensor<16x32xf16>>
      %5 = tt.load %arg7 : !tt.ptr<tensor<32x16xf16>>
      %6 = tt.dot %4, %5, %arg5 : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
      %7 = tt.advance %arg6, [%c0_i32, %c32_i32] : <tensor<16x32xf16>>
      %8 = tt.advance %arg7, [%c32_i32, %c0_i32] : <tensor<32x16xf16>>
      scf.yield %6, %7, %8 : tensor<16x16xf32>, !tt.ptr<tensor<16x32xf16>>, !tt.ptr<tensor<32x16xf16>>
    }
    %9 = math.exp %3#0 : tensor<16x16xf32>
    %10 = "tt.reduce"(%9) <{axis = 1 : i32}> ({
    ^bb0(%arg4: f32, %arg5: f32):
      %11 = arith.addf %arg4, %arg5 : f32
      tt.reduce.return %11 : f32
    }) : (tensor<16x16xf32>) -> tensor<16xf32>
    %12 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %13 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %14 = tt.addptr %13, %12 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %15 = tt.atomic_rmw fadd, relaxed, gpu, %14, %10 : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>) -> tensor<16xf32>
    %16 = arith.muli %arg3, %c32_i32 : i32
    %17 = tt.addptr %arg2, %16 : !tt.ptr<f32>, i32
    tt.store %17, %cst_0 : !tt.ptr<f32>
    tt.return
  }
}
)";

const Access &access_of(const KernelModel &k, const std::string &op, int nth = 0) {
  for (const Access &a : k.accesses)
    if (a.op == op && nth-- == 0) return a;
  FAIL("no access " << op);
  return k.accesses.front();
}

const ComputeOp &op_of(const KernelModel &k, const std::string &op) {
  for (const ComputeOp &c : k.ops)
    if (c.op == op) return c;
  FAIL("no op " << op);
  return k.ops.front();
}

}  // namespace

TEST_CASE("unit ValueRules: offsets of a 2-D tile follow expand_dims, broadcast, splat, muli, addptr") {
  TtirModule m = model_of_text(kLoops);
  const KernelModel &k = m.kernels.front();
  const Access &load = access_of(k, "tt.load");
  CHECK(load.arg == 0);
  CHECK(load.shape == std::vector<std::int64_t>{64, 64});
  CHECK(expr(k, load.offset) == "%arg1*i0 + 4096*t0 + i1");
}

TEST_CASE("unit LoopAnalysis: scf.for trip count, carried pointers, persistent loops; scf.while counters") {
  TtirModule m = model_of_text(kLoops);
  const KernelModel &k = m.kernels.front();
  REQUIRE(k.loops.size() == 3);
  const Loop &tiles = k.loops[0];
  CHECK(tiles.kind == LoopKind::For);
  CHECK(expr(k, tiles.trip) == "max(0, cdiv(%arg2 - pid_x, num_programs_x))");
  // lb reads pid(x), step reads num_programs(x): a persistent tile loop.
  CHECK(tiles.persistent_axis == 0);
  // i = 0; while i < n: i += 2 -> the body runs cdiv(n, 2) times, the condition once more.
  const Loop &before = k.loops[1];
  const Loop &after = k.loops[2];
  CHECK(before.region == WhileRegion::Before);
  CHECK(after.region == WhileRegion::After);
  CHECK(expr(k, after.trip) == "max(0, cdiv(%arg3, 2))");
  CHECK(expr(k, before.trip) == "max(0, cdiv(%arg3, 2)) + 1");
  CHECK(after.trip_why == "counter = init + 2*t while counter < bound");
  // Inside the body the counter is 2*t2: the scalar load reads x[2*t2].
  CHECK(expr(k, access_of(k, "tt.load", 1).offset) == "2*t2");
}

TEST_CASE("unit AccessAnalysis: block pointers, boundary checks, atomics") {
  TtirModule m = model_of_text(kDot);
  const KernelModel &k = m.kernels.front();
  const Access &a = access_of(k, "tt.load", 0);
  CHECK(a.block_pointer);
  CHECK(a.arg == 0);
  CHECK(a.mask_kind == "boundaryCheck [1]");
  CHECK(a.loop == 0);
  const Access &b = access_of(k, "tt.load", 1);
  CHECK(b.mask == kNoExpr);
  const Access &rmw = access_of(k, "tt.atomic_rmw");
  CHECK(rmw.atomic());
  CHECK(rmw.detail == "fadd");
  CHECK(rmw.arg == 2);
  CHECK(rmw.shape == std::vector<std::int64_t>{16});
}

TEST_CASE("unit ComputeAnalysis: dot FLOP, combiner applications, unit classes") {
  TtirModule m = model_of_text(kDot);
  const KernelModel &k = m.kernels.front();
  CHECK(k.has_dot);
  const ComputeOp &dot = op_of(k, "tt.dot");
  CHECK(dot.cls == OpClass::Cube);
  CHECK(dot.m == 16);
  CHECK(dot.n == 16);
  CHECK(dot.k == 32);
  CHECK(dot.flop == 2.0 * 16 * 16 * 32);
  // Sum over axis 1 of 16x16: 16 rows of 15 additions.
  const ComputeOp &reduce = op_of(k, "tt.reduce");
  CHECK(reduce.cls == OpClass::Reduction);
  CHECK(reduce.flop == 16 * 15);
  CHECK(op_of(k, "math.exp").cls == OpClass::Transcendental);
  CHECK(op_of(k, "arith.muli").cls == OpClass::Scalar);
}

TEST_CASE("unit TileAnalysis: dot operands in L1, accumulators in L0C, liveness points") {
  TtirModule m = model_of_text(kDot);
  const KernelModel &k = m.kernels.front();
  int l1 = 0;
  int l0c = 0;
  for (const Tile &t : k.tiles) {
    if (t.op == "tt.load") {
      CHECK(t.buffer == Buffer::L1);
      CHECK(t.loaded_in_loop);
      ++l1;
    }
    if (t.op == "tt.dot") {
      CHECK(t.buffer == Buffer::L0C);
      ++l0c;
    }
  }
  CHECK(l1 == 2);
  CHECK(l0c == 1);
  CHECK(!k.live_points.empty());
  // Without tt.dot every tile is in UB.
  TtirModule v = model_of_text(kLoops);
  for (const Tile &t : v.kernels.front().tiles) CHECK(t.buffer == Buffer::UB);
}

TEST_CASE("unit ttir_text: legacy forms, opaque ops, UTF-8, nesting, lines") {
  CHECK(legacy_marker("// !tt.ptr<f32, 1>\n  %0 = tt.splat %a : (i32) -> tensor<4xi32>\n") ==
        std::optional<std::string>("line 2: 'tt.splat %x : (T) -> ...' (3.x prints ': T -> ...')"));
  CHECK_FALSE(legacy_marker("  %0 = tt.splat %a : i32 -> tensor<4xi32>\n"));
  std::set<std::string> known{"builtin", "tt", "arith", "scf"};
  CHECK(generic_form_of_unknown_op("    %8 = acme.chunk_count %arg2 : i32 -> i32", known) ==
        std::optional<std::string>("    %8 = \"acme.chunk_count\"() : () -> (i32)"));
  CHECK_FALSE(generic_form_of_unknown_op("    %8 = arith.addi %a, %b : i32", known));
  CHECK(invalid_utf8("ok\nab\xff", "t.ttir") ==
        std::optional<std::string>("t.ttir:2:3: error: invalid UTF-8: byte 0xFF (the text must be UTF-8)"));
  CHECK_FALSE(invalid_utf8("ok", "t.ttir"));
  std::string deep(kMaxTtirNesting + 1, '(');
  REQUIRE(too_deep(deep, "t.ttir"));
  CHECK(too_deep(deep, "t.ttir")->rfind("t.ttir:1:257: error: brackets nested deeper than 256 levels", 0) == 0);
  CHECK(count_lines_before("a\nb\nc", 4) == 3);
}
