//===- test_reference_kernels.cpp - DSL facts of ten kernels, derived by hand
//
// Each case states the kernel, the launch, and how every expected number
// follows from the Python source (written next to each TTIR file). Nothing
// here is computed with the tool's own formulas. Profile: ascend_910b3
// (40 AIV, 20 AIC, UB 192 KiB = 196608 B, L1 512 KiB, L0C 128 KiB).
//
//===----------------------------------------------------------------------===//
#include "ttir_test_support.hpp"

using namespace ttirtest;

namespace {

const json &access(const json &doc, int id) { return doc.at("accesses").at(static_cast<size_t>(id)); }
const json &dir(const json &doc, const char *d) { return doc.at("bytes").at(d); }

}  // namespace

// 1. Vector add: the Triton tutorial add_kernel, BLOCK_SIZE 2048, the
// CORPUS.md launch (N = 16,777,216 f32, grid 8192).
TEST_CASE("reference 1: vector add, BLOCK 2048, N = 16M") {
  json doc = facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", 16777216}}}});
  // Per program: two 2048 x 4 B loads = 16384 B read, one 8192 B store.
  CHECK(dir(doc, "read").at("requested").at("per_program").at("max") == 16384);
  CHECK(dir(doc, "read").at("requested").at("per_program").at("min") == 16384);
  CHECK(dir(doc, "written").at("requested").at("per_program").at("max") == 8192);
  // Totals: 8192 programs: 134,217,728 B read, 67,108,864 B written: 3 * N * 4 = 201,326,592 B.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 134217728);
  CHECK(value(dir(doc, "written").at("requested").at("total")) == 67108864);
  CHECK(value(doc.at("bytes").at("requested_total")) == 201326592);
  // N = 8192 * 2048: no tail, every byte distinct: unique = requested.
  CHECK(value(dir(doc, "read").at("unique_total")) == 134217728);
  CHECK(exact(dir(doc, "read").at("unique_total")));
  CHECK(value(doc.at("bytes").at("unique_total")) == 201326592);
  CHECK(value(access(doc, 0).at("masked_off_bytes")) == 0);
  // One f32 addition per element: 16,777,216 FLOP.
  CHECK(value(doc.at("flop").at("vector").at("f32").at("total")) == 16777216);
  CHECK(value(doc.at("flop").at("total")) == 16777216);
  // No tt.dot: one program per AIV, 40 cores. ceil(8192/40) = 205 waves; the
  // last has 8192 - 204*40 = 32 programs; occupancy 8192/8200.
  CHECK(doc.at("cores").at("type") == "aiv");
  CHECK(doc.at("cores").at("count") == 40);
  CHECK(doc.at("schedule").at("waves") == 205);
  CHECK(doc.at("schedule").at("tail_wave_programs") == 32);
  CHECK(doc.at("schedule").at("occupancy").get<double>() == doctest::Approx(8192.0 / 8200.0));
  // Cores 0..31 run 205 programs, 32..39 run 204: mean 204.8 / max 205.
  CHECK(value(doc.at("schedule").at("load_balance").at("bytes")) == doctest::Approx(204.8 / 205.0));
  // Offsets pid*2048 + i0: rows of 2048 contiguous f32 = 8192 B.
  CHECK(access(doc, 0).at("offset") == "2048*pid_x + i0");
  CHECK(value(access(doc, 0).at("contiguity").at("run_bytes")) == 8192);
  CHECK(access(doc, 0).at("mask").at("bounds") == json{"n_elements"});
  // The load of x is line 50 of the tutorial, named "x".
  CHECK(access(doc, 0).at("source").at("line") == 50);
  CHECK(access(doc, 0).at("source").at("name") == "x");
  // UB: x, y and output (3 x 8192 B) are live at the addition = 24576 B; the
  // block could grow to 16384 (3 * 16384 * 4 = 196608 = UB).
  const json &ub = doc.at("buffers").at("ub");
  CHECK(value(ub.at("footprint")) == 24576);
  CHECK(ub.at("ok") == true);
  CHECK(ub.at("largest_fitting").at(0).at("dim") == 2048);
  CHECK(ub.at("largest_fitting").at(0).at("largest") == 16384);
  CHECK(doc.at("unresolved").empty());
}

TEST_CASE("reference 1b: vector add with a tail: the mask cuts the last program") {
  // N = 8192*2048 - 1000: the last program keeps 1048 of 2048 lanes.
  json doc = facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", 16777216 - 1000}}}});
  // Requested is unchanged (all lanes); active and unique lose 1000 * 4 B per access.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 134217728);
  CHECK(value(access(doc, 0).at("active_bytes")) == 67108864 - 4000);
  CHECK(value(access(doc, 0).at("masked_off_bytes")) == 4000);
  CHECK(value(dir(doc, "read").at("unique_total")) == 134217728 - 8000);
  CHECK(value(dir(doc, "written").at("unique_total")) == 67108864 - 4000);
  // Per-program unique: 8192 B for x and y in full programs, 1048*4 = 4192 B
  // in the last.
  const json &x = dir(doc, "read").at("by_arg").at(0);
  CHECK(x.at("unique_per_program").at("max") == 8192);
  CHECK(x.at("unique_per_program").at("min") == 4192);
}

// 2. Fused softmax (tutorial 02; real sample, triton-shared/Ascend lit input,
// BLOCK 128, one row per program). Launch: 1000 rows of 100 columns stored
// with a row stride of 128.
TEST_CASE("reference 2: fused softmax (real sample)") {
  PBTEST_REQUIRE_SHARED();
  json doc = facts(shared_ttir("softmax_tritonshared_nolocs.ttir"),
                   {{"grid", {1000}}, {"args", {{"%arg2", 128}, {"%arg3", 128}, {"%arg4", 100}}}});
  // Each program loads and stores one 128-lane row: 512 B requested each way.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 512000);
  CHECK(value(dir(doc, "written").at("requested").at("total")) == 512000);
  // 100 of 128 lanes active: 400 B per row, rows disjoint (stride 128 >= 100).
  CHECK(value(dir(doc, "read").at("unique_total")) == 400000);
  CHECK(value(dir(doc, "written").at("unique_total")) == 400000);
  CHECK(access(doc, 0).at("mask").at("bounds") == json{"%arg4"});
  // Per program: max-reduce over 128 = 127 combines x 2 ops (cmpf, select),
  // sum-reduce 127 x 1: 381; subf + divf: 256 vector; exp: 128.
  CHECK(value(doc.at("flop").at("reduction").at("f32").at("total")) == 381000);
  CHECK(value(doc.at("flop").at("vector").at("f32").at("total")) == 256000);
  CHECK(value(doc.at("flop").at("transcendental").at("f32").at("total")) == 128000);
  // 1000 programs on 40 AIV: 25 full waves.
  CHECK(doc.at("schedule").at("waves") == 25);
  CHECK(doc.at("schedule").at("tail_wave_programs") == 40);
  // UB peak: the loaded row, the broadcast max and their difference (3 x 512 B)
  // at the subtraction; the `other` fill (-inf) shares the load's buffer.
  CHECK(value(doc.at("buffers").at("ub").at("footprint")) == 1536);
  // No locations in this file: sources are TTIR lines (the load is line 15).
  CHECK(access(doc, 0).at("source").at("line") == 15);
  CHECK(access(doc, 0).at("source").at("in_ttir") == true);
}

// 3. Layer norm forward (tutorial 05; real sample, BLOCK 256, three loops
// over the row). Launch: 32 rows of 1000 columns, row stride 1000.
TEST_CASE("reference 3: layer norm forward (real sample)") {
  PBTEST_REQUIRE_SHARED();
  json doc = facts(shared_ttir("layernorm_fwd_tritonshared_nolocs.ttir"),
                   {{"grid", {32}}, {"args", {{"%arg6", 1000}, {"%arg7", 1000}, {"%arg8", 1e-5}}}});
  // Each loop runs cdiv(1000, 256) = 4 times.
  REQUIRE(doc.at("loops").size() == 3);
  for (const json &l : doc.at("loops")) {
    CHECK(l.at("trip_count").at("symbolic") == "max(0, cdiv(%arg7, 256))");
    CHECK(l.at("trip_count").at("per_program").at("max") == 4);
  }
  // Per program: loads x (loop 1), x (loop 2), w, b, x (loop 3): 5 x 4 x 1024 B
  // = 20480 B; 32 programs: 655,360 B.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 655360);
  // Unique: x 32 x 1000 x 4 = 128,000 B, w and b 4000 B each (shared by all rows).
  CHECK(value(dir(doc, "read").at("unique_total")) == 136000);
  // Written: mean and rstd (4 B each) and y (4 x 1024 B): 4104 B per program.
  CHECK(value(dir(doc, "written").at("requested").at("total")) == 32 * 4104);
  CHECK(value(dir(doc, "written").at("unique_total")) == 128000 + 128 + 128);
  // Vector f32 per program: loop 1 addf; loop 2 subf, select, mulf, addf;
  // loop 3 subf, mulf, mulf, addf: 9 x 256 x 4 = 9216. Reductions: 2 x 255.
  CHECK(value(doc.at("flop").at("vector").at("f32").at("total")) == 32 * 9216);
  CHECK(value(doc.at("flop").at("reduction").at("f32").at("total")) == 32 * 510);
  // The scalar sqrt of the variance is scalar-unit work, not a vector op.
  CHECK(doc.at("flop").at("transcendental").empty());
}

// 4. Matmul with pointer arithmetic (tutorial 03 style; real 3.4 dump, 16x16x16
// tiles, GROUP_SIZE_M 1, masks on K). Launch M = N = K = 256, row-major.
TEST_CASE("reference 4: matmul with pointer arithmetic (real 3.4 dump)") {
  PBTEST_REQUIRE_SHARED();
  json args = {{"%arg3", 256}, {"%arg4", 256}, {"%arg5", 256}, {"%arg6", 256}, {"%arg7", 256}, {"%arg8", 256}};
  json doc = facts(shared_ttir("matmul_ptr_arith_3.4_cuda.ttir"), {{"grid", {256}}, {"args", args}});
  // 16 x 16 tiles: 256 programs, each with cdiv(256, 16) = 16 K steps.
  CHECK(doc.at("loops").at(0).at("trip_count").at("per_program").at("max") == 16);
  // Per step: A and B tiles of 16 x 16 f16 = 512 B each.
  // Requested: 256 x 16 x 1024 = 4,194,304 B; unique: A + B = 2 x 256^2 x 2 B.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 4194304);
  CHECK(value(dir(doc, "read").at("unique_total")) == 262144);
  // Each program moves its own A panel and B panel: 16 x 512 B each.
  CHECK(dir(doc, "read").at("by_arg").at(0).at("unique_per_program").at("max") == 8192);
  CHECK(value(dir(doc, "written").at("unique_total")) == 131072);
  // 2 * 256^3 FLOP on the fp16 cube.
  CHECK(value(doc.at("flop").at("cube").at("cube_fp16").at("total")) == 33554432);
  REQUIRE(doc.at("dots").size() == 1);
  CHECK(doc.at("dots").at(0).at("precision") == "tf32");
  CHECK(doc.at("dots").at(0).at("m") == 16);
  // A mix kernel: 20 AIC blocks in flight; ceil(256/20) = 13 waves, 16 in the last.
  CHECK(doc.at("cores").at("type") == "aic");
  CHECK(doc.at("schedule").at("waves") == 13);
  CHECK(doc.at("schedule").at("tail_wave_programs") == 16);
  // Buffers: A and B tiles (512 B, loaded in the loop: 2 copies) in L1; the
  // 16 x 16 f32 accumulator (1024 B, updated in place) in L0C; the f16 result
  // (512 B) in UB. The zero `other` of the masked loads is no extra tile.
  CHECK(value(doc.at("buffers").at("l1").at("footprint")) == 2048);
  CHECK(value(doc.at("buffers").at("l0c").at("footprint")) == 1024);
  CHECK(value(doc.at("buffers").at("ub").at("footprint")) == 512);
  // The load of A is on line 65 of the Python file (callsite locations).
  CHECK(access(doc, 0).at("source").at("line") == 65);
}

// 5. Block-pointer matmul with tt.dot (kernels/blockptr_matmul.ttir).
// Launch M = N = K = 512, 128 x 128 output tiles: grid (4, 4).
TEST_CASE("reference 5: block-pointer matmul") {
  json args = {{"%arg3", 512}, {"%arg4", 512}, {"%arg5", 512}, {"%arg6", 512}, {"%arg7", 512}, {"%arg8", 512}};
  json doc = facts(kernel_file("blockptr_matmul.ttir"), {{"grid", {4, 4}}, {"args", args}});
  // K loop: range(0, 512, 64) = 8 steps; A tile 128x64 f16 = 16 KiB, B 64x128 = 16 KiB.
  CHECK(doc.at("loops").at(0).at("trip_count").at("per_program").at("max") == 8);
  // Per program 8 x 32 KiB = 262144 B read; 16 programs: 4,194,304 B.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 4194304);
  // Unique: A and B once each: 2 x 512 x 512 x 2 B.
  CHECK(value(dir(doc, "read").at("unique_total")) == 1048576);
  // C: 16 tiles of 128 x 128 f16.
  CHECK(value(dir(doc, "written").at("unique_total")) == 524288);
  // 2 * 512^3 FLOP.
  CHECK(value(doc.at("flop").at("cube").at("cube_fp16").at("total")) == 268435456);
  // Block pointers: offsets and boundary checks recovered.
  CHECK(access(doc, 0).at("block_pointer") == true);
  CHECK(access(doc, 0).at("mask").at("kind") == "boundaryCheck [0, 1]");
  // Rows pid_x*128 + i0 (stride %arg6), columns 64 per step + i1.
  CHECK(access(doc, 0).at("offset") == "128*%arg6*pid_x + %arg6*i0 + 64*t0 + i1");
  CHECK(value(access(doc, 0).at("contiguity").at("run_bytes")) == 128);
  // 16 programs on 20 AIC: one wave, occupancy 0.8.
  CHECK(doc.at("schedule").at("waves") == 1);
  CHECK(doc.at("schedule").at("occupancy").get<double>() == doctest::Approx(0.8));
  // L1: A and B tiles double-buffered: 2 x (16384 + 16384); L0C: one
  // 128x128 f32 accumulator (65536 B, the dot accumulates in place); UB: the
  // f16 result 32768 B.
  CHECK(value(doc.at("buffers").at("l1").at("footprint")) == 65536);
  CHECK(value(doc.at("buffers").at("l0c").at("footprint")) == 65536);
  CHECK(value(doc.at("buffers").at("ub").at("footprint")) == 32768);
  CHECK(doc.at("buffers").at("buffer_ok") == true);
}

// 5b. The real block-pointer sample is named matmul but has no tt.dot
// (parser trap T28): two block loads added in a K loop.
TEST_CASE("reference 5b: the real block-pointer sample (no dot) with its boundary checks") {
  PBTEST_REQUIRE_SHARED();
  // M = %arg3 = 256, N = %arg4, K = %arg5 = 512, strides (%arg6, %arg7) = (512, 1),
  // C strides (%arg10, %arg11) = (256, 1), offsets %arg12 = %arg13 = 0.
  json args = {{"%arg3", 256}, {"%arg4", 256}, {"%arg5", 512}, {"%arg6", 512}, {"%arg7", 1},
               {"%arg10", 256}, {"%arg11", 1}, {"%arg12", 0}, {"%arg13", 0}};
  json doc = facts(shared_ttir("blockptr_matmul_nolocs.ttir"), {{"grid", {1}}, {"args", args}});
  CHECK(doc.at("dots").empty());
  CHECK(doc.at("cores").at("type") == "aiv");
  // 8 steps (range(0, 512, 64)) of two 128x64 bf16 loads (16 KiB each).
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 8 * 2 * 16384);
  // Load 1 walks columns 64, 128, ..., 512 of rows 0..127; columns >= 512
  // are out of bounds: 448 columns x 128 rows x 2 B = 114688 B active.
  CHECK(value(access(doc, 0).at("active_bytes")) == 114688);
  // Load 2 walks rows 0, 64, ..., 448 (128 each) of columns 0..63; rows
  // >= 256 are out of bounds: rows 0-127, 64-191, 128-255, 192-255 =
  // 448 row-loads x 64 x 2 B = 57344 B active, 256 x 64 x 2 = 32768 B unique.
  CHECK(value(access(doc, 1).at("active_bytes")) == 57344);
  // The two regions are disjoint: 114688 + 32768.
  CHECK(value(dir(doc, "read").at("unique_total")) == 147456);
}

// 6. Persistent matmul (kernels/persistent_matmul.ttir): 6 programs walk the
// 16 output tiles of M = N = K = 512 (4 x 4 tiles of 128 x 128).
TEST_CASE("reference 6: persistent matmul") {
  json args = {{"%arg3", 512}, {"%arg4", 512}, {"%arg5", 512}, {"%arg6", 512}, {"%arg7", 512}, {"%arg8", 512}};
  json doc = facts(kernel_file("persistent_matmul.ttir"), {{"grid", {6}}, {"args", args}});
  // The tile loop range(pid, 16, 6): programs 0-3 get 3 tiles, 4-5 get 2.
  const json &outer = doc.at("loops").at(0);
  CHECK(outer.at("persistent_axis") == "x");
  CHECK(outer.at("trip_count").at("status") == "per-program");
  CHECK(outer.at("trip_count").at("per_program").at("min") == 2);
  CHECK(outer.at("trip_count").at("per_program").at("max") == 3);
  CHECK(doc.at("schedule").at("persistent").at("axis") == "x");
  CHECK_FALSE(doc.at("schedule").at("uniform_programs").get<bool>());
  // Inner K loop: 8 steps per tile; 16 to 24 steps per program.
  const json &inner = doc.at("loops").at(1);
  CHECK(inner.at("trip_count").at("per_program").at("max") == 8);
  CHECK(inner.at("body_executions_per_program").at("min") == 16);
  CHECK(inner.at("body_executions_per_program").at("max") == 24);
  // Per tile 8 x (16384 + 16384) B read: 3 tiles = 786432, 2 tiles = 524288.
  const json &rd = dir(doc, "read").at("requested");
  CHECK(rd.at("per_program").at("min") == 524288);
  CHECK(rd.at("per_program").at("max") == 786432);
  CHECK(value(rd.at("total")) == 16 * 262144);
  // Unique over the launch: A and B once (2 x 512 x 512 x 2 B).
  CHECK(value(dir(doc, "read").at("unique_total")) == 1048576);
  // Unique per program (tile t -> row block t / 4, column block t % 4; a row
  // or column block is 131072 B): p0 {0, 6, 12} -> rows {0,1,3}, cols {0,2}:
  // 5 blocks = 655360; p1-p3 likewise 5 blocks; p4 {4, 10} and p5 {5, 11}:
  // 2 rows + 2 cols = 524288. Sum 4 x 655360 + 2 x 524288 = 3670016.
  const json &a_and_b = dir(doc, "read");
  CHECK(value(a_and_b.at("unique_per_program_sum")) == 3670016);
  // FLOP: 16 tiles x 8 steps x 2*128*128*64.
  CHECK(value(doc.at("flop").at("cube").at("cube_fp16").at("total")) == 268435456);
  // Schedule: 6 programs on 20 AIC, one wave. Load balance (bytes): a tile
  // is 262144 + 32768 B; the busiest core has 3 tiles, the mean core 16/20:
  // 0.8 / 3.
  CHECK(doc.at("schedule").at("waves") == 1);
  CHECK(value(doc.at("schedule").at("load_balance").at("bytes")) == doctest::Approx(0.8 / 3.0));
  CHECK(value(doc.at("schedule").at("busiest_core").at("bytes")) == 3 * (262144 + 32768));
  // Buffers as in the block-pointer matmul: L1 65536, L0C 65536, UB 32768.
  CHECK(value(doc.at("buffers").at("l1").at("footprint")) == 65536);
  CHECK(value(doc.at("buffers").at("l0c").at("footprint")) == 65536);
  CHECK(value(doc.at("buffers").at("ub").at("footprint")) == 32768);
}

// 7. Causal flash-attention forward (kernels/flash_attention_fwd.ttir):
// N_CTX = 1024, BLOCK 64: grid (16 query blocks, 4 batch*heads).
TEST_CASE("reference 7: causal flash attention forward") {
  json doc = facts(kernel_file("flash_attention_fwd.ttir"),
                   {{"grid", {16, 4}}, {"args", {{"%arg4", 0.125}, {"%arg5", 1024}}}});
  // Query block m runs m + 1 key blocks: 1..16, 136 per head.
  const json &loop = doc.at("loops").at(0);
  CHECK(loop.at("trip_count").at("status") == "per-program");
  CHECK(loop.at("trip_count").at("per_program").at("min") == 1);
  CHECK(loop.at("trip_count").at("per_program").at("max") == 16);
  CHECK(loop.at("trip_count").at("per_program").at("mean") == doctest::Approx(136.0 / 16.0));
  // Reads per program: q 8192 B + (m + 1) x (k 8192 + v 8192). Sum over
  // m = 0..15 and 4 heads: 4 x (16 x 8192 + 16384 x 136) = 9,437,184 B.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 9437184);
  CHECK(dir(doc, "read").at("requested").at("per_program").at("min") == 8192 + 16384);
  CHECK(dir(doc, "read").at("requested").at("per_program").at("max") == 8192 + 16 * 16384);
  // Unique: Q, K, V each 4 x 1024 x 64 x 2 B = 524288 (the last query block
  // reads all of K and V).
  CHECK(value(dir(doc, "read").at("unique_total")) == 3 * 524288);
  CHECK(value(dir(doc, "written").at("unique_total")) == 524288);
  // Cube: 544 iterations x 2 dots x 2*64*64*64.
  CHECK(value(doc.at("flop").at("cube").at("cube_fp16").at("total")) == 544.0 * 2 * 524288);
  // Per iteration: exp2 over 64x64 and over 64: 4160 transcendental; two
  // row reductions of 64x64 (64 x 63 combines each): 8064.
  CHECK(value(doc.at("flop").at("transcendental").at("f32").at("total")) == 544 * 4160);
  CHECK(value(doc.at("flop").at("reduction").at("f32").at("total")) == 544 * 8064);
  // Vector f32 per iteration: select, qk*scale, +mask, qk-m, acc*alpha over
  // 64x64 (5 x 4096) and maximum, m_i-m_ij, l_i*alpha, +l_ij over 64
  // (4 x 64) = 20736; after the loop acc/l_i (4096) per program.
  CHECK(value(doc.at("flop").at("vector").at("f32").at("total")) == 544 * 20736 + 64 * 4096);
  // Schedule: 64 programs on 20 AIC: 4 waves, 4 in the last, occupancy 0.8.
  CHECK(doc.at("schedule").at("waves") == 4);
  CHECK(doc.at("schedule").at("tail_wave_programs") == 4);
  // Program p = m + 16*h moves 16384 (m + 2) B and runs on core p mod 20.
  // Core 3 gets m = 3, 7, 11, 15: 44 x 16384 B, the most; the mean core
  // 608/20 = 30.4 units: balance 30.4/44.
  CHECK(value(doc.at("schedule").at("load_balance").at("bytes")) == doctest::Approx(30.4 / 44.0));
  CHECK(value(doc.at("schedule").at("busiest_core").at("bytes")) == 44 * 16384);
  // Buffers: L1 holds q (8 KiB) with k or v (8 KiB, 2 copies): 24576 B.
  // L0C holds the carried accumulator and the qk product: 2 x 16 KiB.
  // UB (T = one 64x64 f32 tile, 16384 B; r = one 64-vector, 256 B): live
  // across the loop are the zeros %cst_1, -1e6 %cst_2, the splat scale %19
  // and the causal row indices %28 (4 T), and the i32 vectors %5, %10
  // (2 r): 66048 B. Inside, at %57 = %52 - %56 the tiles %52, %56, %57
  // (3 T), %54 (r) and the carried m_i, l_i (2 r) are live: 49920 B.
  // Peak 66048 + 49920 = 115968 B.
  CHECK(value(doc.at("buffers").at("l1").at("footprint")) == 24576);
  CHECK(value(doc.at("buffers").at("l0c").at("footprint")) == 32768);
  CHECK(value(doc.at("buffers").at("ub").at("footprint")) == 115968);
}

// 8. Looped reduction (kernels/row_sum_loop.ttir): 100 rows of 1000 f32.
TEST_CASE("reference 8: looped row reduction") {
  json doc = facts(kernel_file("row_sum_loop.ttir"), {{"grid", {100}}, {"args", {{"%arg2", 1000}, {"%arg3", 1000}}}});
  // range(0, 1000, 512): 2 chunks of 512 f32 (2048 B), 1000 of 1024 lanes active.
  CHECK(doc.at("loops").at(0).at("trip_count").at("symbolic") == "max(0, cdiv(%arg3, 512))");
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 100 * 4096);
  CHECK(value(access(doc, 0).at("active_bytes")) == 400000);
  CHECK(value(access(doc, 0).at("masked_off_bytes")) == 9600);
  CHECK(value(dir(doc, "read").at("unique_total")) == 400000);
  CHECK(value(dir(doc, "written").at("unique_total")) == 400);
  // 2 x 512 additions, then a 512 -> 1 reduction (511 combines) per row.
  CHECK(value(doc.at("flop").at("vector").at("f32").at("total")) == 100 * 1024);
  CHECK(value(doc.at("flop").at("reduction").at("f32").at("total")) == 100 * 511);
  // UB inside the loop: the accumulator (2048), the loaded chunk (2048, 2
  // copies in a loop) and the sum (2048): 8192 B; the zero tile only fills
  // the accumulator and the masked lanes. Scaling 512 up:
  // 8192 * x / 512 <= 196608 -> x <= 12288 -> 8192.
  const json &ub = doc.at("buffers").at("ub");
  CHECK(value(ub.at("footprint")) == 8192);
  CHECK(ub.at("largest_fitting").at(0).at("largest") == 8192);
}

// 9. Atomic add (real triton-ascend lit input, kernel atomic_add_f32): every
// program adds its 768-element slice of x into the same 768 floats of y and
// stores the old values to z[0:768].
TEST_CASE("reference 9: atomic add (real sample)") {
  PBTEST_REQUIRE_SHARED();
  json doc = facts(shared_ttir("ascend_atomic_add_split.ttir"), {{"grid", {4}}, {"kernel", "atomic_add_f32"}});
  // 4 programs x 768 x 4 B each way.
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 12288);
  CHECK(value(dir(doc, "atomic").at("requested").at("total")) == 12288);
  CHECK(value(dir(doc, "written").at("requested").at("total")) == 12288);
  // x slices are disjoint (12288 B unique); all atomics and stores hit the
  // same 768 floats: 3072 B unique.
  CHECK(value(dir(doc, "read").at("unique_total")) == 12288);
  CHECK(value(dir(doc, "atomic").at("unique_total")) == 3072);
  CHECK(value(dir(doc, "written").at("unique_total")) == 3072);
  CHECK(value(doc.at("flop").at("atomic").at("fadd f32").at("elements_total")) == 3072);
}

// 10. Scan (real triton-ascend lit input, kernel fn_npu_u32): cumsum of 8 i32.
TEST_CASE("reference 10: scan (real sample)") {
  PBTEST_REQUIRE_SHARED();
  json doc = facts(shared_ttir("ascend_scan_cumsum_split.ttir"), {{"grid", {1}}, {"kernel", "fn_npu_u32"}});
  CHECK(value(dir(doc, "read").at("requested").at("total")) == 32);
  CHECK(value(dir(doc, "written").at("requested").at("total")) == 32);
  // An inclusive scan of 8 elements combines 7 times (one addi each).
  REQUIRE(doc.at("reductions").size() == 1);
  CHECK(doc.at("reductions").at(0).at("op") == "tt.scan");
  CHECK(value(doc.at("flop").at("scan").at("i32").at("total")) == 7);
  // No program id: the kernel reads the same 8 values whatever the grid.
  CHECK(doc.at("grid_axes").at("program_id").empty());
}
