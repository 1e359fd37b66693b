//===- test_corpus.cpp - the real dumps: histograms, pipes, bytes, counts --===//
//
// Every expected number is derived by hand from the dump text in the comment
// next to it (../shared/data/hivm/*.npuir.mlir, line numbers of the raw file).
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <map>
#include <numeric>
#include <set>

#include "hivm_test_util.hpp"

using namespace pb::hivm;
using hivmtest::op_at;
using hivmtest::value;

namespace {

int64_t hist(const Program &p, const std::string &name) {
  auto it = p.histogram.find(name);
  return it == p.histogram.end() ? 0 : it->second;
}

/// Sum of per-block bytes of the DMA ops of one function on one pipe.
int64_t dma_bytes(const Program &p, uint32_t function, Pipe pipe) {
  int64_t sum = 0;
  for (const OpRecord &r : p.ops)
    if (r.function == function && r.cls == OpClass::Dma && !r.pipes.empty() && r.pipes[0] == pipe)
      sum += hivmtest::value(r.totals().bytes_block);
  return sum;
}

const BarrierRecord &barrier_at(const Program &p, uint32_t line) {
  for (const BarrierRecord &b : p.barriers)
    if (b.line == line) return b;
  FAIL("no barrier on line " << line);
  throw std::logic_error("unreachable");
}

const HandoffEdge &handoff(const Program &p, Pipe from, Pipe to, const std::string &event, uint32_t function = 0) {
  for (const HandoffEdge &e : p.handoffs)
    if (e.function == function && e.producer == from && e.consumer == to && e.event == event) return e;
  FAIL("no handoff " << pipe_name(from) << "->" << pipe_name(to) << " " << event);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("chunk_kda: op histogram (checked against the file with grep, no op names in comments)") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), {});
  CHECK(hist(p, "hivm.hir.pointer_cast") == 183);
  CHECK(hist(p, "hivm.hir.set_flag") == 116);
  CHECK(hist(p, "hivm.hir.wait_flag") == 110);
  CHECK(hist(p, "hivm.hir.pipe_barrier") == 80);
  CHECK(hist(p, "hivm.hir.sync_block_set") == 48);
  CHECK(hist(p, "hivm.hir.sync_block_wait") == 48);
  CHECK(hist(p, "hivm.hir.mmadL1") == 9);
  CHECK(hist(p, "hivm.hir.fixpipe") == 9);
  CHECK(hist(p, "scf.for") == 10);
  CHECK(hist(p, "hivm.hir.vmul") == 26);
  CHECK(hist(p, "hivm.hir.store") == 22);
  CHECK(hist(p, "hivm.hir.vbrc") == 20);
  CHECK(hist(p, "hivm.hir.nd2nz") == 18);
  CHECK(hist(p, "hivm.hir.load") == 17);
  CHECK(hist(p, "hivm.hir.copy") == 10);  // the predecessor's filter dropped these 10
  CHECK(hist(p, "memref.load") == 11);
  CHECK(hist(p, "scf.if") == 34);
  CHECK(hist(p, "arith.constant") == 207);
  // Nothing in the real dump is left unmodelled.
  CHECK(p.unmodelled.empty());
}

TEST_CASE("chunk_kda: pipe of each op kind and core types") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), {});
  std::map<std::string, std::set<std::string>> pipes_of;
  for (const OpRecord &r : p.ops) {
    std::string ps;
    for (Pipe pp : r.pipes) ps += std::string(ps.empty() ? "" : "+") + pipe_name(pp);
    pipes_of[r.name].insert(ps);
  }
  CHECK(pipes_of["hivm.hir.nd2nz"] == std::set<std::string>{"MTE2"});
  CHECK(pipes_of["hivm.hir.fixpipe"] == std::set<std::string>{"FIX"});
  CHECK(pipes_of["hivm.hir.mmadL1"] == std::set<std::string>{"MTE1+M"});
  CHECK(pipes_of["hivm.hir.load"] == std::set<std::string>{"MTE2"});
  CHECK(pipes_of["hivm.hir.store"] == std::set<std::string>{"MTE3"});
  CHECK(pipes_of["hivm.hir.vmul"] == std::set<std::string>{"V"});
  CHECK(pipes_of["hivm.hir.copy"] == std::set<std::string>{"V"});           // all 10 are UB -> UB
  CHECK(pipes_of["hivm.hir.vbrc"] == (std::set<std::string>{"V", "MTE2"})); // 19 into ub, 1 into cbuf (L364)
  CHECK(pipes_of["memref.load"] == std::set<std::string>{"S"});
  CHECK(p.functions[0].core == CoreType::AIC);
  CHECK(p.functions[1].core == CoreType::AIV);
  CHECK(p.functions[0].mix_part == "aic");
  CHECK(p.functions[1].instances_per_block == 2);  // one AIC feeds two AIVs per block
  for (const OpRecord &r : p.ops) CHECK(r.core == (r.function == 0 ? CoreType::AIC : CoreType::AIV));
}

TEST_CASE("chunk_kda: block count, loop multipliers and per-block MTE bytes on the cube side") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  REQUIRE(p.blocks);
  CHECK(*p.blocks == 4096);  // grid (128, 32)
  // Loops: L168 scf.for %arg29 = 0 to 4, L203 scf.for %arg30 = 0 to 4 nested in it.
  CHECK(op_at(p, 168).count.value == 1);
  CHECK(op_at(p, 203).count.value == 4);
  CHECK(op_at(p, 264).count.value == 16);  // nd2nz in the inner loop: 4 x 4
  CHECK(op_at(p, 264).count.exact);
  // L349: scf.if %72 with %72 = (%arg29 == 0): its ops run once per %arg30 iteration of the first %arg29 one.
  CHECK(op_at(p, 384).count.value == 4);
  CHECK(op_at(p, 384).count.exact);
  // nd2nz GM -> L1 bytes per block (bf16 = 2 B):
  //   L137/142/147/152 before the loops: 4 x 64x64 = 4 x 8192 = 32768
  //   inner loop x16: L264 64x32 (4096), L269 4096, L275 32x32 (2048), L281 2048, L286 2048, L292 4096,
  //                   L299 4096, L306 4096 = 26624 per iteration -> 425984
  //   L367 (first outer iteration only, x4): extent %37 x 32 with %37 from loaded data, bounded by 64 -> 4096 est.
  //   L405/L411/L415 after the inner loop, x4: 3 x 64x32 = 12288 per iteration -> 49152
  //   L461 and L475 after the loops: 2 x 8192 = 16384
  //   total = 32768 + 425984 + 16384 + 49152 + 16384 = 540672 (16384 of it estimated)
  CHECK(dma_bytes(p, 0, Pipe::MTE2) == 540672);
  CHECK(op_at(p, 367).totals().bytes.estimated());
  // fixpipe L0C -> GM bytes per block (f32 = 4 B unless pre_quant F322BF16):
  //   L317/330/343: 64x32 f32 = 8192 x16 each = 393216
  //   L377 64x64 (16384) + L391 64x32 (8192) + L425 64x64 (16384) + L437 64x32 (8192), x4 = 196608
  //   L470 64x64 bf16 (pre_quant F322BF16) = 8192, L484 64x64 f32 = 16384
  //   total = 393216 + 196608 + 8192 + 16384 = 614400
  CHECK(dma_bytes(p, 0, Pipe::FIX) == 614400);
  CHECK(op_at(p, 470).dtype == "bf16");
}

TEST_CASE("chunk_kda: cube FLOP from mmadL1 operands") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  // (line, M, K, N, executions per block):
  //   L312 (64,32,32) x16, L325 (64,32,32) x16, L338 (64,32,32) x16,
  //   L373 (64,32,%37<=64) x4, L384 (64,64,32) x4, L421 (64,32,64) x4, L433 (64,64,32) x4,
  //   L466 (64,64,64) x1, L480 (64,64,64) x1
  // FLOP = 2MKN: 3 x 16 x 131072 + 4 x 4 x 262144 + 2 x 524288 = 6291456 + 4194304 + 1048576 = 11534336
  int64_t flop = 0;
  for (const OpRecord &r : p.ops)
    if (r.cls == OpClass::Cube) flop += value(r.totals().flop_block);
  CHECK(flop == 11534336);
  CHECK(op_at(p, 466).m == 64);
  CHECK(op_at(p, 466).k == 64);
  CHECK(op_at(p, 466).n == 64);
  // bf16 fractal 16x16x16: M,K,N are multiples of 16, so L1 -> L0A/L0B moves (64*32 + 32*32) * 2 = 6144 B at L312.
  CHECK(op_at(p, 312).totals().mte1_bytes.value == 6144);
}

TEST_CASE("chunk_kda: vector side counts with two AIV instances and sub-block conditions") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  // L825 scf.for %arg29 (4) and L914 scf.for %arg32 (4) inside it; 2 AIV instances per block.
  CHECK(op_at(p, 918).count.value == 32);           // vadd in both loops: 4 x 4 x 2
  CHECK(op_at(p, 918).count_instance.value == 16);  // on one AIV
  // L740: store under `scf.if %77` where %77 = (get_sub_block_idx == 0): only sub-block 0 stores.
  CHECK(op_at(p, 740).count.value == 1);
  CHECK(op_at(p, 740).count.exact);
  // 64x64 bf16 store = 8192 B.
  CHECK(value(op_at(p, 740).totals().bytes) == 8192);
  // L1175 vreduce, in both loops: 1024 f32 = 16 repeats x 32 executions = 512 repeats per block.
  CHECK(value(op_at(p, 1175).totals().repeats_block) == 512);
}

TEST_CASE("chunk_kda: scalar fallbacks and scalar work of the element-by-element loops") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  // L1048 memref.load of memref<1xbf16, gm> inside two 32-trip loops marked {ExtractedLoadOrStore},
  // inside the 4 x 4 loops, on 2 AIVs: 32 * 32 * 16 * 2 = 32768 executions per block, 2 B each.
  const OpRecord &gather = op_at(p, 1048);
  CHECK(gather.count.value == 32768);
  CHECK(gather.count.exact);
  CHECK(gather.scalar_kind == "gm_load");
  CHECK(value(gather.totals().bytes_block) == 65536);
  CHECK(gather.eligibility.fallback);
  CHECK(gather.eligibility.cause.find("gather: element-by-element GM load") == 0);
  CHECK(gather.eligibility.cause.find("ExtractedLoadOrStore") != std::string::npos);
  // L1043: the i64 index arithmetic feeding it is flagged too.
  const OpRecord &idx = op_at(p, 1043);  // %307 = arith.muli %306, %c128_i64 : i64
  CHECK(idx.eligibility.fallback);
  CHECK(idx.eligibility.cause == "i64 index arithmetic per element on the scalar unit");
  // L1119: the third nest has data-dependent bounds (0..64 x 32): at most 65536, at least 0.
  const OpRecord &dyn = op_at(p, 1119);
  CHECK(dyn.count.min == 0);
  CHECK(dyn.count.value == 65536);
  CHECK_FALSE(dyn.count.exact);
  // Loops: L1041 runs 32 iterations per entry; 1024 entries per block (2 x 16 x 32).
  const LoopRecord *inner = nullptr;
  for (const LoopRecord &l : p.loops)
    if (l.line == 1041) inner = &l;
  REQUIRE(inner != nullptr);
  CHECK(inner->trip.value == 32);
  CHECK(inner->entries.value == 1024);
  CHECK(inner->iterations.value == 32768);
  CHECK(inner->element_loop);
  // Body of L1041 per iteration: index_cast, muli, addi, index_cast (4 scalar ops), affine.apply s0 + s1 (1),
  // reinterpret_cast with one dynamic offset (1), memref.load (1), memref.store (1), loop control (2, plus
  // 1 per entry: 1024 / 32768 rounds away) = 10.
  CHECK(inner->body_scalar_instructions == 10);
}

TEST_CASE("seeded_serial: the 4 barriers, the handoffs and per-block work") {
  PBTEST_REQUIRE_SHARED();
  // grid 4096, n_a (Triton arg 4) = 8M f32, n_b (arg 5) = 64K f32 (stream B covers the first 32 blocks).
  Program p = analyze_text(hivmtest::shared_hivm("seeded_serial_on.npuir.mlir"),
                           hivmtest::launch({4096}, {{"4", 8388608}, {"5", 65536}}));
  REQUIRE(p.barriers.size() == 4);
  // L46 pipe_barrier[PIPE_ALL] between the copy stream (ub [0, 8192), args 3 and 4) and the FMA stream
  // (ub [8192, 24576), args 5 and 6): no shared buffer -> the redundant barrier of the ON variant.
  CHECK(barrier_at(p, 46).pipe == Pipe::ALL);
  CHECK(barrier_at(p, 46).kind == "avoidable");
  // L66 and L69 pipe_barrier[PIPE_V] inside the 512-step loop: vmul reads what vadd wrote (previous iteration,
  // ub 16384) and vadd reads what vmul wrote (ub 8192): true dependences, 512 executions each.
  CHECK(barrier_at(p, 66).kind == "mandatory");
  CHECK(barrier_at(p, 66).count.value == 512);
  CHECK(barrier_at(p, 69).kind == "mandatory");
  CHECK(barrier_at(p, 69).dependences == (std::vector<std::string>{"RAW", "WAR"}));  // and vadd overwrites what vmul read
  // L79 pipe_barrier[PIPE_ALL] before return: nothing follows.
  CHECK(barrier_at(p, 79).kind == "epilogue");
  // Handoffs: load -> store (L41/L44), load -> FMA (L62/L63), FMA -> store (L73/L77), once per block each.
  CHECK(handoff(p, Pipe::MTE2, Pipe::MTE3, "EVENT_ID0").kind == "mandatory");
  CHECK(handoff(p, Pipe::MTE2, Pipe::MTE3, "EVENT_ID0").sets.value == 1);
  CHECK(handoff(p, Pipe::MTE2, Pipe::V, "EVENT_ID0").kind == "mandatory");
  CHECK(handoff(p, Pipe::V, Pipe::MTE3, "EVENT_ID0").kind == "mandatory");
  // Vector work: vmul + vadd on 2048 f32 (32 repeats each) x 512 = 32768 repeats, 2 x 512 x 2048 FLOP.
  int64_t repeats = 0, flop = 0;
  for (const OpRecord &r : p.ops) {
    if (r.pipes != PipeList{Pipe::V} || !r.totals().repeats_block.value) continue;
    repeats += *r.totals().repeats_block.value;
    flop += r.totals().flop_block.value.value_or(0);
  }
  CHECK(repeats == 32768);
  CHECK(flop == 2097152);
  // MTE per block (block 0): two 2048 f32 loads and two stores: 16384 B each way.
  CHECK(dma_bytes(p, 0, Pipe::MTE2) == 16384);
  CHECK(dma_bytes(p, 0, Pipe::MTE3) == 16384);
  // Stream B is block-dependent: the grid total is 32 full blocks x 8192 B = 262144 B (64K f32), while
  // stream A moves 4096 x 8192 = 33554432 B.
  CHECK(value(op_at(p, 61).totals().bytes_grid) == 262144);
  CHECK_FALSE(op_at(p, 61).totals().bytes_grid.estimated());
  CHECK(value(op_at(p, 40).totals().bytes_grid) == 33554432);
  // Loop control of the 512-step loop: 1 + 2 x 512 = 1025 scalar instructions per block.
  CHECK(value(op_at(p, 64).scalar_block) == 1025);
}

TEST_CASE("amort_copy: chunk size sets the trip count and the packet size, not the bytes") {
  PBTEST_REQUIRE_SHARED();
  // 4096 f32 per program = 16384 B each way, in 32 x 128, 8 x 512 or 1 x 4096 contiguous runs.
  struct Case {
    const char *file;
    uint32_t load_line;
    int64_t trips;
    int64_t packet;
  };
  for (const Case &c : {Case{"amort_copy_128.npuir.mlir", 39, 32, 512}, Case{"amort_copy_512.npuir.mlir", 39, 8, 2048},
                        Case{"amort_copy_4096.npuir.mlir", 18, 1, 16384}}) {
    INFO(c.file);
    Program p = analyze_text(hivmtest::shared_hivm(c.file), hivmtest::launch({2048}, {{"2", 2048}}));
    const OpRecord &load = op_at(p, c.load_line);
    CHECK(load.count.value == c.trips);
    CHECK(value(load.totals().packet_bytes) == c.packet);
    CHECK(value(load.totals().packets) == 1);
    CHECK(dma_bytes(p, 0, Pipe::MTE2) == 16384);
    CHECK(dma_bytes(p, 0, Pipe::MTE3) == 16384);
  }
}

TEST_CASE("seeded_gap2: strided vs coalesced packets and UB-strided vector repeats") {
  PBTEST_REQUIRE_SHARED();
  // S = 2048 (Triton arg 2), grid 2048.
  auto opts = hivmtest::launch({2048}, {{"2", 2048}});
  Program strided = analyze_text(hivmtest::shared_hivm("seeded_gap2_strided.npuir.mlir"), opts);
  Program coalesced = analyze_text(hivmtest::shared_hivm("seeded_gap2_coalesced.npuir.mlir"), opts);
  // Strided L33: a column, memref<?xf32, strided<[?]>> with stride S = 2048: 2048 runs of one f32.
  const OpRecord &col = op_at(strided, 33);
  CHECK(value(col.totals().bytes) == 8192);
  CHECK(value(col.totals().packet_bytes) == 4);
  CHECK(value(col.totals().packets) == 2048);
  // Coalesced L31: a row, stride 1: one run of 2048 f32.
  const OpRecord &row = op_at(coalesced, 31);
  CHECK(value(row.totals().bytes) == 8192);
  CHECK(value(row.totals().packet_bytes) == 8192);
  CHECK(value(row.totals().packets) == 1);
  // Strided L29: vbrc into memref<2048x1xf32, strided<[8, 1]>, ub>: each element sits in its own 32-byte block,
  // 8 blocks per 256-byte repeat -> 2048 / 8 = 256 repeats of 64 lanes, 256 x 64 - 2048 = 14336 idle lanes.
  CHECK(value(op_at(strided, 29).totals().repeats) == 256);
  CHECK(value(op_at(strided, 29).totals().masked_lanes) == 14336);
  // Without S the stride is unknown: the packet size is null with a reason, never 0.
  Program blind = analyze_text(hivmtest::shared_hivm("seeded_gap2_strided.npuir.mlir"), {});
  CHECK_FALSE(op_at(blind, 33).totals().packet_bytes.value.has_value());
  CHECK(op_at(blind, 33).totals().packet_bytes.reason.find("stride is dynamic") != std::string::npos);
}
