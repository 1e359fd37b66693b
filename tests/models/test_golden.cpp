//===- test_golden.cpp - bounds derived by hand, through the shipped pipelines
//
// Every expected number is derived in the comment next to it from the
// kernel, the launch and the 910B3 profile (hardware_profiles/ascend_910b3:
// clock 1.8 GHz, 40 AIV, 20 AIC, paths 128/256 B/cycle (UB->GM argued),
// HBM max(1.8 TB/s theoretical, 1.5546 TB/s calibrated peak) = 1.8 TB/s, vector 1 repeat per
// cycle, head latency 13 cycles; calibration.json for the peaks and eta).
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "models_test_util.hpp"

using modelstest::component;
using modelstest::json;
using modelstest::seconds;
using modelstest::term;

namespace {

const std::vector<std::string> kVectorAddLaunch = {
    "--set", "launch={grid=[8192,1,1],args={n_elements=16777216,\"3\"=16777216}}"};

modelstest::RunOut vector_add(const std::string &profile = "ascend_910b3") {
  std::vector<std::string> args{"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
                                "hivm=" + modelstest::example("vector_add.npuir.mlir"), "--profile", profile};
  args.insert(args.end(), kVectorAddLaunch.begin(), kVectorAddLaunch.end());
  return modelstest::run_pipeline(modelstest::pipeline("bound.toml"), args);
}

}  // namespace

TEST_CASE("golden: vector add 16M is memory-bound (DSL and HIVM tiers)") {
  modelstest::RunOut run = vector_add();
  const json &report = run.report;
  REQUIRE(report["schema"] == "perfbound.bound_report/1");
  CHECK(report["kernel"]["name"] == "add_kernel");

  // DSL memory: unique bytes 3 x 16777216 x 4 = 201326592 B. Active blocks
  // min(8192, 40) = 40, each with gm_to_ub + ub_to_gm = 2 x 128 B/cycle x
  // 1.8 GHz = 460.8 GB/s -> 18.432 TB/s. Cold L2 (every byte crosses HBM,
  // argued: the L2 state is not stated): min(18.432, 1.8) TB/s ->
  // 201326592 / 1.8e12 = 111.848107 us. Strict (any L2 state): the read
  // paths, 134217728 B / (40 x 230.4 GB/s) = 14.563556 us (the writes cross
  // UB->GM, whose width is argued); no byte is forced past the 192 MiB L2
  // (reads 128 MiB, writes 64 MiB, each below 192 MiB).
  const json &dsl_mem = term(report, "memory", "dsl");
  CHECK(seconds(dsl_mem["value"]) == doctest::Approx(111.848107e-6).epsilon(1e-6));
  CHECK(seconds(dsl_mem["strict_value"]) == doctest::Approx(14.563556e-6).epsilon(1e-6));
  CHECK(dsl_mem["per_component"][0]["work"]["forced_hbm_bytes"] == 0);
  CHECK(dsl_mem["assurance"] == "argued");
  CHECK(dsl_mem["sound"] == false);

  // HIVM memory: two 8 KiB loads + one 8 KiB store per block, 8192 blocks =
  // 201326592 B, each argument's DMA bytes equal to its unique bytes (DSL
  // tier). Strict: the read paths, 14.563556 us (as the DSL tier). Argued
  // (cold L2 and packet efficiency): eta(8192 B) = 0.761016782
  // (calibration hbm_packet_efficiency) x 1.8e12 = 1.36983021e12 B/s, above
  // the fastest sustained copy 1.16725225e12, so 201326592 / 1.36983021e12 =
  // 146.97193 us.
  const json &hivm_mem = term(report, "memory", "hivm");
  CHECK(seconds(hivm_mem["strict_value"]) == doctest::Approx(14.563556e-6).epsilon(1e-6));
  CHECK(seconds(hivm_mem["value"]) == doctest::Approx(146.97193e-6).epsilon(1e-5));
  CHECK(hivm_mem["assurance"] == "argued");
  CHECK(hivm_mem["sound"] == false);

  // HIVM component floor: the vadd is 2048 f32 = 8 KiB = 32 repeats per
  // block; waves = ceil(8192 / 40) = 205 -> 205 x 32 / 1.8e9 = 3.64444 us.
  // MTE2: 2 x 8192 B per block over 8192 blocks on 40 AIVs at 230.4 GB/s:
  // 134217728 / (40 x 230.4e9) = 14.56356 us (the loads' sizes depend on the
  // block, so only the grid sum over the cores counts).
  const json &core = term(report, "component_floor", "hivm");
  CHECK(component(core, "aiv", "vector") == doctest::Approx(3.644444e-6).epsilon(1e-5));
  CHECK(component(core, "aiv", "mte2") == doctest::Approx(14.563557e-6).epsilon(1e-5));
  CHECK(core["component"] == "mte2");

  // The bound is the larger limit: HIVM 146.972 us (argued). Strict: the
  // HIVM critical path. Per block the two loads (8 KiB each, one after the
  // other on MTE2, 35.556 ns each at 230.4 GB/s), then (set_flag/wait_flag)
  // the vadd (32 repeats, 17.778 ns), then (set_flag/wait_flag) the store
  // (35.556 ns): 124.444 ns per block x 205 waves = 25.511111 us, above the
  // DSL grid floor's GM reads (205 waves x 16384 B at 230.4 GB/s = 14.577778 us).
  const json &bound = report["bound"];
  CHECK(seconds(bound) == doctest::Approx(146.97193e-6).epsilon(1e-5));
  CHECK(bound["tier"] == "hivm");
  CHECK(bound["binding_term"] == "memory");
  CHECK(bound["binding_component"] == "hbm");
  CHECK(bound["assurance"] == "argued");
  CHECK(seconds(bound["strict"]) == doctest::Approx(25.511111e-6).epsilon(1e-6).scale(0));
  CHECK(bound["strict"]["binding_term"] == "critical_path");
  CHECK(seconds(term(report, "grid_floor", "dsl")["strict_value"]) == doctest::Approx(14.577778e-6).epsilon(1e-6).scale(0));
  CHECK(seconds(report["limits"]["dsl"]) == doctest::Approx(111.848107e-6).epsilon(1e-6));
  CHECK(report["limits"]["invariant"]["holds"] == true);
  // Reads (2 x 64 MiB) exceed writes (64 MiB): MTE2 carries the binding traffic.
  CHECK(report["verdict"]["class"] == "memory-bound");
  CHECK(report["verdict"]["unit"] == "mte2");

  // The top finding is the packet size: the same bytes at eta = 1 would take
  // 111.848 us, so 8 KiB transfers cost 146.972 - 111.848 = 35.124 us.
  REQUIRE(report["findings"].size() >= 1);
  const json &first = report["findings"][0];
  CHECK(first["category"] == "coalescing");
  CHECK(seconds(first["gain"]) == doctest::Approx(35.1238e-6).epsilon(1e-4));
  // The findings output is the same list.
  CHECK(run.findings["schema"] == "perfbound.findings/1");
  CHECK(run.findings["findings"] == report["findings"]);
}

TEST_CASE("golden: a block-pointer matmul is cube-bound (DSL tier)") {
  // tests/extract_ttir/kernels/blockptr_matmul.ttir: 128x128 tiles, K step 64,
  // fp16. Launch 8 x 8 programs, M = N = K = 1024 (strides 1024).
  std::string ttir = (pbtest::test_source_dir() / "extract_ttir" / "kernels" / "blockptr_matmul.ttir").string();
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_dsl.toml"),
      {"--set", "ttir=" + ttir, "--set",
       "launch={grid=[8,8,1],args={\"3\"=1024,\"4\"=1024,\"5\"=1024,\"6\"=1024,\"7\"=1024,\"8\"=1024}}"});
  const json &report = run.report;
  // Cube FLOP per program: 2 x 128 x 128 x 1024 = 33554432. A mix kernel: one
  // block per AIC, 64 programs on 20 AICs = ceil(64/20) = 4 waves. Rate:
  // max(8192 FLOP/cycle x 1.8 GHz = 14.7456 TFLOP/s, calibrated 13.13) =
  // 14.7456e12. 4 x 33554432 / 14.7456e12 = 9.102222 us (> the mean form
  // 64 x 33554432 / (20 x 14.7456e12) = 7.2818 us).
  const json &core = term(report, "component_floor", "dsl");
  CHECK(component(core, "aic", "cube") == doctest::Approx(9.102222e-6).epsilon(1e-5));
  // Memory: unique bytes 2 x 1024 x 1024 x 2 (A, B) + 1024 x 1024 x 2 (C) =
  // 6291456 B at 1.8 TB/s = 3.495253 us: far below the cube.
  CHECK(seconds(term(report, "memory", "dsl")["value"]) == doctest::Approx(3.495253e-6).epsilon(1e-5));
  const json &bound = report["bound"];
  CHECK(seconds(bound) == doctest::Approx(9.102222e-6).epsilon(1e-5));
  CHECK(bound["tier"] == "dsl");
  CHECK(bound["binding_component"] == "cube");
  CHECK(bound["assurance"] == "strict");
  CHECK(bound["sound"] == true);
  CHECK(report["verdict"]["class"] == "compute-bound");
  CHECK(report["verdict"]["unit"] == "cube");
  CHECK(report["limits"]["hivm"]["value"].is_null());
  CHECK(report["limits"]["invariant"]["holds"].is_null());
  // 64 programs on 20 slots: 4 waves, the last with 4 programs (occupancy
  // 64 / 80 = 80 %): the grid finding costs 9.102 x 0.2 = 1.820 us.
  bool grid_found = false;
  for (const json &f : report["findings"])
    if (f["category"] == "grid") {
      grid_found = true;
      CHECK(seconds(f["gain"]) == doctest::Approx(1.820444e-6).epsilon(1e-4));
      CHECK(f["title"].get<std::string>().find("the last has 4 block(s)") != std::string::npos);
    }
  CHECK(grid_found);
}

TEST_CASE("golden: seeded_serial ON is vector-bound plus its barriers (HIVM tier)") {
  PBTEST_REQUIRE_SHARED();
  // ../shared/data/hivm/seeded_serial_on.npuir.mlir, grid 4096; Triton args
  // 4 = n_copy 8388608, 5 = n_chain 65536 (msprof Input Shapes "8388608;65536").
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("seeded_serial_on.npuir.mlir"), "--set",
       "launch={grid=[4096],args={\"4\"=8388608,\"5\"=65536}}"});
  const json &report = run.report;
  // Per block: the loop (line 64) runs 512 times a vmul and a vadd of 2048
  // f32 = 32 repeats each: 1024 x 32 = 32768 repeats. 4096 blocks on 40 AIVs:
  // ceil(4096/40) = 103 waves -> 103 x 32768 / 1.8e9 = 1875.0578 us.
  const json &core = term(report, "component_floor", "hivm");
  CHECK(component(core, "aiv", "vector") == doctest::Approx(1875.0578e-6).epsilon(1e-6));
  // Two pipe_barrier[PIPE_V] per iteration (lines 66, 69), both between
  // dependent vector ops: 1024 per block, 13 cycles each (vector.head_latency)
  // on the mean core: 1024 x 4096 / 40 x 13 = 1363148.8 cycles = 757.3049 us.
  const json &serial = term(report, "serialization", "hivm");
  CHECK(component(serial, "aiv", "vector") == doctest::Approx(757.3049e-6).epsilon(1e-6));
  CHECK(serial["role"] == "additive");
  CHECK(serial["assurance"] == "argued");
  // T = floor on vector + serialization on vector = 2632.3627 us.
  const json &bound = report["bound"];
  CHECK(seconds(bound) == doctest::Approx(2632.3627e-6).epsilon(1e-6));
  CHECK(bound["binding_term"] == "component_floor+serialization");
  CHECK(bound["binding_component"] == "vector");
  CHECK(bound["binding_core"] == "aiv");
  // Strict: the critical path. Per block stream A's load and store (8 KiB
  // each, 35.556 ns at 230.4 GB/s) chained by their flag, the PIPE_ALL at
  // line 46, then the FMA loop's 32,768 repeats (18,204.444 ns) between
  // stream B's load and store, whose per-block minimum is 0 bytes (B has
  // 65,536 elements: 32 blocks): 18,275.556 ns x 103 waves = 1,882.3822 us,
  // above the vector component's 103 x 32,768 / 1.8e9 = 1,875.0578 us.
  CHECK(seconds(bound["strict"]) == doctest::Approx(1882.3822e-6).epsilon(1e-6).scale(0));
  CHECK(bound["strict"]["binding_term"] == "critical_path");
  CHECK(report["verdict"]["class"] == "compute-bound");
  CHECK(report["verdict"]["unit"] == "vector");
  // The redundant pipe_barrier[PIPE_ALL] after stream A's store (line 46) is
  // avoidable: 365 cycles (calibration pipe_barrier_all_cost 364.79) x 103
  // waves = 37573.4 cycles = 20.874 us.
  bool barrier_found = false;
  for (const json &f : report["findings"])
    if (f["id"] == "gap3.barrier.aiv.ALL.avoidable") {
      barrier_found = true;
      CHECK(seconds(f["gain"]) == doctest::Approx(364.790381 * 103 / 1.8e9).epsilon(1e-6));
      CHECK(f["source"]["line"] == 46);
    }
  CHECK(barrier_found);
}

TEST_CASE("golden: the L2 state is a stated condition of the memory floor") {
  std::vector<std::string> base{"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
                                "hivm=" + modelstest::example("vector_add.npuir.mlir")};
  auto run_with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return modelstest::run_pipeline(modelstest::pipeline("bound.toml"), args);
  };
  SUBCASE("cache = cold with packet efficiency none: the HBM floor is strict") {
    // 201326592 B / 1.8e12 = 111.848107 us, every rate theoretical (the
    // strict cap is the chip's: UB->GM is argued) and the measurement stated
    // cold: strict on both tiers.
    modelstest::RunOut run = run_with({"--set", "launch={grid=[8192,1,1],args={n_elements=16777216,\"3\"=16777216}}",
                                       "--set", "memory.cache=cold", "--set", "memory.packet_efficiency=none",
                                       "--set", "dsl_memory.cache=cold"});
    const json &mem = term(run.report, "memory", "hivm");
    CHECK(seconds(mem["value"]) == doctest::Approx(111.848107e-6).epsilon(1e-6));
    CHECK(mem["assurance"] == "strict");
    CHECK(seconds(mem["strict_value"]) == doctest::Approx(111.848107e-6).epsilon(1e-6));
    CHECK(mem["per_component"][0]["work"]["cache"] == "cold");
  }
  SUBCASE("cache = warm: only what the L2 cannot hold crosses HBM") {
    // The read paths alone: 14.563556 us, strict (the writes' 7.28 us at the
    // argued UB->GM width is below it); the cold floor is listed as not
    // counted.
    modelstest::RunOut run = run_with({"--set", "launch={grid=[8192,1,1],args={n_elements=16777216,\"3\"=16777216}}",
                                       "--set", "memory.cache=warm"});
    const json &mem = term(run.report, "memory", "hivm");
    CHECK(seconds(mem["value"]) == doctest::Approx(14.563556e-6).epsilon(1e-6));
    CHECK(mem["assurance"] == "strict");
    bool listed = false;
    for (const json &n : mem["not_counted"]) listed = listed || n["what"] == "cold-cache HBM floor";
    CHECK(listed);
  }
  SUBCASE("a stream larger than the L2 keeps a strict HBM share") {
    // n = 67108864 (grid 32768): reads 2 x 256 MiB = 536870912 B, writes
    // 268435456 B. Beyond the 192 MiB (201326592 B) L2: 335544320 B read +
    // 67108864 B written = 402653184 B must cross HBM: 402653184 / 1.8e12 =
    // 223.69621 us strict, above the read paths' 536870912 / (32768 -> 40 x
    // 230.4e9) = 58.25422 us.
    modelstest::RunOut run = run_with({"--set", "launch={grid=[32768,1,1],args={n_elements=67108864,\"3\"=67108864}}"});
    const json &mem = term(run.report, "memory", "dsl");
    CHECK(seconds(mem["strict_value"]) == doctest::Approx(223.69621e-6).epsilon(1e-6));
    CHECK(mem["per_component"][0]["work"]["forced_hbm_bytes"] == 402653184.0);
    CHECK(seconds(run.report["bound"]["strict"]) == doctest::Approx(223.69621e-6).epsilon(1e-6));
  }
}
