//===- test_oracle.cpp - the concrete-execution oracle on IR written by us -===//
//
// Each expected number is derived by hand in the comment above its check.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <string>

#include "oracle.hpp"
#include "support/test_support.hpp"

namespace o = pb::hivm::oracle;

namespace {

o::Options options() {
  o::Options opt;  // 256-byte repeats, 2 AIVs per AIC, 16x16x16 fractals
  opt.fractal["f32"] = {16, 8, 16};
  return opt;
}

const o::OpStats &op_at(const o::Result &r, uint32_t line, const std::string &name) {
  for (const o::OpStats &s : r.ops)
    if (s.line == line && s.name == name) return s;
  FAIL("no op " << name << " at line " << line);
  static o::OpStats none;
  return none;
}

constexpr const char *kHeader =
    "func.func @k(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xf32, "
    "#hivm.address_space<gm>>, %arg2: memref<?xi32, #hivm.address_space<gm>>, %arg3: i32, %arg4: i32, %arg5: i32, "
    "%arg6: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {\n";

/// A function body under kHeader: Triton positions 0 = %arg1 (f32 tensor),
/// 1 = %arg2 (i32 tensor), 2 = %arg3 (i32 scalar); %arg4..6 the grid.
std::string kernel(const std::string &body) {
  return std::string(kHeader) +
         "  %g0 = arith.muli %arg4, %arg5 : i32\n"  // line 2
         "  %g1 = arith.muli %g0, %arg6 : i32\n"    // line 3
         "  annotation.mark %g1 {logical_block_num} : i32\n"  // line 4
         "  %b = hivm.hir.get_block_idx -> i64\n"   // line 5
         "  %bid = arith.index_cast %b : i64 to index\n"  // line 6
         + body + "  return\n}\n";
}

}  // namespace

TEST_CASE("oracle: the bundled vector_add example, block by block") {
  const std::string text = pbtest::read_file(pbtest::source_dir() / "examples" / "kernels" / "vector_add" / "vector_add.npuir.mlir");
  o::Launch launch;
  launch.grid = {4};
  launch.args["3"] = 5000;  // n_elements
  const o::Result r = o::run(text, launch, options());
  CHECK(r.blocks == 4);
  // Blocks 0 and 1 copy 2048 f32 each, block 2 the tail 5000 - 4096 = 904, block 3 nothing
  // (its offset 6144 is past n: max(6144, 5000) = 6144, min(6144 + 2048, 6144) - 6144 = 0).
  const o::OpStats &load = op_at(r, 42, "hivm.hir.load");
  CHECK(load.block0[o::kBytes] == 2048 * 4);
  CHECK(load.block_min[o::kBytes] == 0);
  CHECK(load.grid[o::kBytes] == (2048 + 2048 + 904) * 4);
  CHECK(load.grid[o::kCount] == 4);
  CHECK(load.first.packet_bytes == 8192);  // one contiguous run of 2048 f32
  // The padding broadcast runs where the tile is short: blocks 2 and 3.
  const o::OpStats &vbrc = op_at(r, 38, "hivm.hir.vbrc");
  CHECK(vbrc.block_min[o::kCount] == 0);
  CHECK(vbrc.grid[o::kCount] == 2);
  // vadd on 2048 f32 = 8192 B = 32 repeats of 256 B in every block; 2048 FLOP.
  const o::OpStats &vadd = op_at(r, 56, "hivm.hir.vadd");
  CHECK(vadd.block_min[o::kRepeats] == 32);
  CHECK(vadd.grid[o::kFlop] == 4 * 2048);
  CHECK(vadd.first.masked_lanes == 0);
  // x (%arg3) is read over [0, 5000 x 4 B): 20000 unique bytes; out (%arg5) written the same.
  CHECK(r.dma_read.at(3).size() == 20000);
  CHECK(r.dma_written.at(5).size() == 20000);
  // The work document: MTE2 gm_to_ub bytes, fewest per block 0 (block 3), grid 2 x 20000.
  const nlohmann::json work = o::work_document(r, "vector_add", false);
  bool found = false;
  for (const auto &c : work["components"])
    if (c["core"] == "aiv" && c["component"] == "mte2") {
      CHECK(c["by_class"]["gm_to_ub"][0] == 0.0);
      CHECK(c["by_class"]["gm_to_ub"][1] == 40000.0);
      found = true;
    }
  CHECK(found);
}

TEST_CASE("oracle: loops, select splits, affine tails and branches are decided per block") {
  const std::string text = kernel(
      "  %c0 = arith.constant 0 : index\n"                                     // 7
      "  %c1 = arith.constant 1 : index\n"                                     // 8
      "  %c2 = arith.constant 2 : index\n"                                     // 9
      "  %c3 = arith.constant 3 : index\n"                                     // 10
      "  %lt = arith.cmpi slt, %bid, %c2 : index\n"                           // 11
      "  %ub = arith.select %lt, %c3, %c2 : index\n"                           // 12
      "  scf.for %i = %c0 to %ub step %c1 {\n"                                // 13
      "    %t = affine.min affine_map<()[s0] -> (2, 5 - s0 * 2)>()[%i]\n"      // 14
      "    scf.for %j = %c0 to %t step %c1 {\n"                               // 15
      "      hivm.hir.pipe_barrier[<PIPE_V>]\n"                                // 16
      "    }\n"                                                                // 17
      "  }\n"                                                                  // 18
      "  %odd = arith.remsi %bid, %c2 : index\n"                              // 19
      "  %is = arith.cmpi eq, %odd, %c1 : index\n"                             // 20
      "  scf.if %is {\n"                                                       // 21
      "    hivm.hir.pipe_barrier[<PIPE_ALL>]\n"                                // 22
      "  } else {\n"                                                           // 23
      "    hivm.hir.set_mask_norm\n"                                           // 24
      "  }\n");
  o::Launch launch;
  launch.grid = {3};
  const o::Result r = o::run(text, launch, options());
  // Blocks 0, 1 run the outer loop 3 times, block 2 twice. Inner trips
  // min(2, 5 - 2i): i = 0 -> 2, 1 -> 2, 2 -> 1. Barriers: blocks 0, 1: 5; block 2: 4.
  const o::OpStats &outer = op_at(r, 13, "scf.for");
  CHECK(outer.block0[o::kIterations] == 3);
  CHECK(outer.block_min[o::kIterations] == 2);
  CHECK(outer.grid[o::kIterations] == 8);
  CHECK(outer.trip_min == 2);
  CHECK(outer.trip_max == 3);
  // Loop scalar instructions: 1 per entry + 2 per iteration -> block 0: 1 + 6 = 7.
  CHECK(outer.block0[o::kScalar] == 7);
  const o::OpStats &inner = op_at(r, 15, "scf.for");
  CHECK(inner.trip_min == 1);
  CHECK(inner.trip_max == 2);
  const o::OpStats &barrier = op_at(r, 16, "hivm.hir.pipe_barrier");
  CHECK(barrier.block0[o::kCount] == 5);
  CHECK(barrier.block_min[o::kCount] == 4);
  CHECK(barrier.block_max[o::kCount] == 5);
  CHECK(barrier.grid[o::kCount] == 14);
  CHECK(barrier.block0[o::kGuaranteed] == 5);
  // Odd blocks (1) take the branch, even ones (0, 2) the else.
  CHECK(op_at(r, 22, "hivm.hir.pipe_barrier").grid[o::kCount] == 1);
  CHECK(op_at(r, 24, "hivm.hir.set_mask_norm").grid[o::kCount] == 2);
  CHECK(op_at(r, 24, "hivm.hir.set_mask_norm").block_min[o::kCount] == 0);
  // affine.min with one multiplication and one subtraction plus the min: 3 instructions.
  CHECK(op_at(r, 14, "affine.min").first.scalar == 3);
}

TEST_CASE("oracle: loads read the launch's data, else the seeded world, and bound loops") {
  const std::string text = kernel(
      "  %c0 = arith.constant 0 : index\n"                                                        // 7
      "  %c1 = arith.constant 1 : index\n"                                                        // 8
      "  %rc = memref.reinterpret_cast %arg2 to offset: [%bid], sizes: [1], strides: [1] : memref<?xi32, "
      "#hivm.address_space<gm>> to memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>\n"  // 9
      "  %v = memref.load %rc[%c0] : memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>\n"  // 10
      "  %n = arith.index_cast %v : i32 to index\n"                                               // 11
      "  %w = scf.while (%x = %c0) : (index) -> index {\n"                                       // 12
      "    %go = arith.cmpi slt, %x, %n : index\n"                                                // 13
      "    scf.condition(%go) %x : index\n"                                                       // 14
      "  } do {\n"                                                                                // 15
      "  ^bb0(%y: index):\n"                                                                      // 16
      "    hivm.hir.pipe_barrier[<PIPE_V>]\n"                                                     // 17
      "    %y1 = arith.addi %y, %c1 : index\n"                                                    // 18
      "    scf.yield %y1 : index\n"                                                               // 19
      "  }\n");
  o::Launch launch;
  launch.grid = {3};
  launch.data["1"] = {4, 0, 2};
  const o::Result r = o::run(text, launch, options());
  // Block b loads data[b]: the while loop runs 4, 0, 2 times.
  const o::OpStats &loop = op_at(r, 12, "scf.while");
  CHECK(loop.block0[o::kIterations] == 4);
  CHECK(loop.block_min[o::kIterations] == 0);
  CHECK(loop.grid[o::kIterations] == 6);
  CHECK(op_at(r, 17, "hivm.hir.pipe_barrier").grid[o::kCount] == 6);
  // Each block's scalar load reads 4 bytes of %arg2: 12 unique bytes.
  CHECK(r.scalar_read.at(2).size() == 12);
  CHECK(op_at(r, 10, "memref.load").grid[o::kGmScalarBytes] == 12);
  // A load past the data given is a world the oracle refuses.
  launch.data["1"] = {1};
  CHECK_THROWS_AS(o::run(text, launch, options()), o::OracleError);
  // Without data the seeded world decides (deterministically for a seed).
  launch.data.clear();
  o::Options seeded = options();
  seeded.load_lo = 1;
  seeded.load_hi = 1;
  const o::Result s = o::run(text, launch, seeded);
  CHECK(op_at(s, 12, "scf.while").grid[o::kIterations] == 3);
}

TEST_CASE("oracle: dynamic subviews, strided vector operands and unique bytes of re-read tiles") {
  const std::string text = kernel(
      "  %c0 = arith.constant 0 : index\n"                                                          // 7
      "  %c1 = arith.constant 1 : index\n"                                                          // 8
      "  %c2 = arith.constant 2 : index\n"                                                          // 9
      "  %c0_i64 = arith.constant 0 : i64\n"                                                        // 10
      "  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<4x64xf32, #hivm.address_space<ub>>\n"        // 11
      "  %n = arith.index_cast %arg3 : i32 to index\n"                                              // 12
      "  %cols = affine.min affine_map<()[s0] -> (s0, 64)>()[%n]\n"                                 // 13
      "  scf.for %i = %c0 to %c2 step %c1 {\n"                                                      // 14
      "    %gm = memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 64], strides: [100, 1] : memref<?xf32, "
      "#hivm.address_space<gm>> to memref<4x64xf32, strided<[100, 1]>, #hivm.address_space<gm>>\n"    // 15
      "    %gs = memref.subview %gm[0, 0] [4, %cols] [1, 1] : memref<4x64xf32, strided<[100, 1]>, "
      "#hivm.address_space<gm>> to memref<4x?xf32, strided<[100, 1]>, #hivm.address_space<gm>>\n"      // 16
      "    %us = memref.subview %ub[0, 0] [4, %cols] [1, 1] : memref<4x64xf32, #hivm.address_space<ub>> to "
      "memref<4x?xf32, strided<[64, 1]>, #hivm.address_space<ub>>\n"                                   // 17
      "    hivm.hir.load ins(%gs : memref<4x?xf32, strided<[100, 1]>, #hivm.address_space<gm>>) outs(%us : "
      "memref<4x?xf32, strided<[64, 1]>, #hivm.address_space<ub>>)\n"                                 // 18
      "    hivm.hir.vexp ins(%us : memref<4x?xf32, strided<[64, 1]>, #hivm.address_space<ub>>) outs(%us : "
      "memref<4x?xf32, strided<[64, 1]>, #hivm.address_space<ub>>)\n"                                 // 19
      "  }\n");
  o::Launch launch;
  launch.grid = {1};
  launch.args["2"] = 40;  // %arg3: 40 columns of the 64
  const o::Result r = o::run(text, launch, options());
  const o::OpStats &load = op_at(r, 18, "hivm.hir.load");
  // 4 rows of 40 f32 (160 B each, rows 400 B apart): 640 B, packets of 160 B, 4 packets.
  CHECK(load.first.bytes == 640);
  CHECK(load.first.packet_bytes == 160);
  CHECK(load.first.packets == 4);
  // The loop reads the same tile twice: 1280 DMA bytes, 640 unique.
  CHECK(load.grid[o::kBytes] == 1280);
  CHECK(r.dma_read.at(1).size() == 640);
  // vexp on 4 rows of 40 f32 in rows 64 apart: 160 B = 5 blocks of 32 B per row, rows of
  // <= 8 blocks pack: ceil(4 x 5 / 8) = 3 repeats; masked lanes 3 x 64 - 160 = 32.
  const o::OpStats &vexp = op_at(r, 19, "hivm.hir.vexp");
  CHECK(vexp.first.repeats == 3);
  CHECK(vexp.first.masked_lanes == 32);
  CHECK(vexp.first.flop == 160);
  // The cold-cache work document caps %arg1's DMA bytes at its unique bytes.
  const nlohmann::json capped = o::work_document(r, "t", true);
  double read = 0;
  for (const auto &t : capped["transfers"]) read += t[5][0].get<double>() + t[5][1].get<double>();
  CHECK(read == 640.0);
}

TEST_CASE("oracle: a mix kernel runs its AIV half on every sub-block, its cube half once") {
  const std::string aic =
      "func.func @m_mix_aic(%arg0: memref<?xbf16, #hivm.address_space<gm>>, %arg1: memref<?xf32, #hivm.address_space<gm>>, "
      "%arg2: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>, hivm.part_of_mix, mix_mode = \"mix\"} {\n"  // 1
      "  %c0_i64 = arith.constant 0 : i64\n"                                                                    // 2
      "  %c20 = arith.constant 20 : index\n"                                                                    // 3
      "  %c32 = arith.constant 32 : index\n"                                                                    // 4
      "  %true = arith.constant true\n"                                                                        // 5
      "  %a = hivm.hir.pointer_cast(%c0_i64) : memref<2x2x16x16xbf16, #hivm.address_space<cbuf>>\n"            // 6
      "  %ac = memref.cast %a : memref<2x2x16x16xbf16, #hivm.address_space<cbuf>> to memref<?x?x?x?xbf16, #hivm.address_space<cbuf>>\n"  // 7
      "  %c = hivm.hir.pointer_cast(%c0_i64) : memref<2x2x16x16xf32, #hivm.address_space<cc>>\n"               // 8
      "  %cc = memref.cast %c : memref<2x2x16x16xf32, #hivm.address_space<cc>> to memref<?x?x?x?xf32, #hivm.address_space<cc>>\n"  // 9
      "  hivm.hir.mmadL1 ins(%ac, %ac, %true, %c20, %c32, %c20 : memref<?x?x?x?xbf16, #hivm.address_space<cbuf>>, "
      "memref<?x?x?x?xbf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%cc : memref<?x?x?x?xf32, "
      "#hivm.address_space<cc>>)\n"                                                                             // 10
      "  return\n}\n";
  const std::string aiv =
      "func.func @m_mix_aiv(%arg0: memref<?xbf16, #hivm.address_space<gm>>, %arg1: memref<?xf32, #hivm.address_space<gm>>, "
      "%arg2: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.part_of_mix, mix_mode = \"mix\"} {\n"  // 13
      "  %s = hivm.hir.get_sub_block_idx -> i64\n"                                                             // 14
      "  %c1_i64 = arith.constant 1 : i64\n"                                                                   // 15
      "  %one = arith.cmpi eq, %s, %c1_i64 : i64\n"                                                            // 16
      "  scf.if %one {\n"                                                                                      // 17
      "    hivm.hir.pipe_barrier[<PIPE_V>]\n"                                                                  // 18
      "  }\n"                                                                                                  // 19
      "  return\n}\n";
  o::Launch launch;
  launch.grid = {2};
  const o::Result r = o::run(aic + aiv, launch, options());
  REQUIRE(r.functions.size() == 2);
  CHECK(r.functions[1].instances == 2);
  // The AIV half runs twice per block (sub-blocks 0 and 1); only sub-block 1 takes the branch.
  const o::OpStats &sub = op_at(r, 14, "hivm.hir.get_sub_block_idx");
  CHECK(sub.block0[o::kCount] == 2);
  CHECK(sub.instance_max_block0 == 1);
  CHECK(op_at(r, 18, "hivm.hir.pipe_barrier").block0[o::kCount] == 1);
  // mmadL1 20 x 32 x 20 bf16: 2 x 20 x 32 x 20 = 25600 FLOP; MTE1 bytes with 16x16x16 fractals:
  // M, N -> 32, K -> 32: (32 x 32 + 32 x 32) x 2 B = 4096 B.
  const o::OpStats &mmad = op_at(r, 10, "hivm.hir.mmadL1");
  CHECK(mmad.first.flop == 25600);
  CHECK(mmad.first.mte1_bytes == 4096);
  CHECK(mmad.grid[o::kFlop] == 2 * 25600);
  CHECK(mmad.block0[o::kGuaranteed] == 1);
}

TEST_CASE("oracle: refusals name the line: budget, division by zero, undefined values") {
  const std::string loop = kernel(
      "  %c0 = arith.constant 0 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  %big = arith.constant 1000000 : index\n"
      "  scf.for %i = %c0 to %big step %c1 {\n"
      "    hivm.hir.pipe_barrier[<PIPE_V>]\n"
      "  }\n");
  o::Launch launch;
  launch.grid = {1};
  o::Options opt = options();
  opt.max_ops = 1000;
  try {
    (void)o::run(loop, launch, opt);
    FAIL("the budget was not enforced");
  } catch (const o::OracleError &e) {
    CHECK(e.kind() == o::OracleError::Kind::Budget);
    CHECK(std::string(e.what()).find("1000") != std::string::npos);
  }
  const std::string div = kernel(
      "  %c0 = arith.constant 0 : index\n"  // 7
      "  %q = arith.divsi %bid, %c0 : index\n");  // 8
  try {
    (void)o::run(div, launch, options());
    FAIL("division by zero was not refused");
  } catch (const o::OracleError &e) {
    CHECK(e.kind() == o::OracleError::Kind::World);
    CHECK(e.line() == 8);
  }
  const std::string undefined = kernel("  %q = arith.addi %bid, %nope : index\n");
  CHECK_THROWS(o::run(undefined, launch, options()));  // the shared parser's verifier refuses it first
  launch.grid.clear();
  CHECK_THROWS_AS(o::run(div, launch, options()), o::OracleError);
}

TEST_CASE("oracle: the trace lists each block's op executions in order") {
  const std::string text = kernel(
      "  %c0 = arith.constant 0 : index\n"  // 7
      "  %c1 = arith.constant 1 : index\n"  // 8
      "  %c2 = arith.constant 2 : index\n"  // 9
      "  scf.for %i = %c0 to %c2 step %c1 {\n"  // 10
      "    hivm.hir.pipe_barrier[<PIPE_V>]\n"   // 11
      "  }\n");
  o::Launch launch;
  launch.grid = {2};
  o::Options opt = options();
  opt.trace = true;
  const o::Result r = o::run(text, launch, opt);
  REQUIRE(r.trace.size() == 2);
  std::string order;
  for (const o::TraceEvent &e : r.trace[0]) order += std::to_string(r.ops[e.op].line) + " ";
  // muli, muli, mark, block idx, cast, 3 constants, the loop (at its entry), the barrier twice, return.
  CHECK(order == "2 3 4 5 6 7 8 9 10 11 11 13 ");
}
