//===- test_launch_args.cpp - launch arguments in the HIVM tier: keyed right, keyed wrong ===//
//
// The HIVM dump names its arguments %arg0..%argN including three hidden hacc
// arguments, while launch arguments are keyed by Triton position. A wrong key
// must be said (a warning naming the positions), and the DMA sizes it left
// unresolved must make the memory term unknown, never a zero-time floor.
#include <doctest/doctest.h>

#include "models_test_util.hpp"

using modelstest::json;
using modelstest::seconds;
using modelstest::term;

TEST_CASE("launch args: the seeded strided copy with S keyed by Triton position is memory-bound") {
  PBTEST_REQUIRE_SHARED();
  // ../shared/data/hivm/seeded_gap2_strided.npuir.mlir: copy_kernel(x_ptr,
  // y_ptr, S) = dump %arg3, %arg4, %arg5. Each block loads 2048 f32 with GM
  // stride S and stores them back the same way. S = 2048, grid 2048:
  // 2 x 2048 x 2048 x 4 B = 33554432 B, half read, half written. Strict (any
  // L2 state, docs/model.md §3.3): the read paths, 40 active AIV x 230.4
  // GB/s -> 16777216 / 9.216e12 = 1.820444 us (the writes, the same at the
  // argued UB->GM width). Without the DSL tier's unique bytes
  // (bound_hivm.toml) the cold-cache floor counts no argument's DMA bytes:
  // they might be re-reads.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("seeded_gap2_strided.npuir.mlir"), "--set",
       "launch={grid=[2048],args={\"2\"=2048}}"});
  const json &memory = term(run.report, "memory", "hivm");
  CHECK(seconds(memory["strict_value"]) == doctest::Approx(1.820444e-6).epsilon(1e-6));
  CHECK(memory["per_component"][0]["work"]["cold_hbm_floor_s"].get<double>() == 0);
  CHECK(memory["assurance"] == "strict");
  CHECK(run.cli.err.find("matches no HIVM argument") == std::string::npos);
  // Stride 2048 x 4 B between elements: every packet is one 4-byte f32, so
  // both DMAs get a coalescing finding naming 4-byte packets.
  int coalescing = 0;
  for (const json &f : run.report["findings"])
    if (f["category"] == "coalescing") {
      ++coalescing;
      CHECK(f["title"].get<std::string>().find("4-byte packets") != std::string::npos);
    }
  CHECK(coalescing == 2);
}

TEST_CASE("launch args: S keyed by the dump's own %arg5 is refused by name and leaves memory unknown") {
  PBTEST_REQUIRE_SHARED();
  // "%arg5" means Triton position 5, which copy_kernel does not have: the
  // sizes min(2048, max(0, S)) stay estimates from their upper bound.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("seeded_gap2_strided.npuir.mlir"), "--set",
       "launch={grid=[2048],args={\"%arg5\"=2048}}"});
  CHECK(run.cli.err.find("launch argument '%arg5' matches no HIVM argument") != std::string::npos);
  CHECK(run.cli.err.find("2 (scalar %arg5)") != std::string::npos);
  const json &memory = term(run.report, "memory", "hivm");
  CHECK(memory["value"]["value"].is_null());
  CHECK(memory["value"]["reason"].get<std::string>().find("no DMA bytes could be counted") != std::string::npos);
  // The bound then comes from another term, and is not the memory term.
  CHECK(run.report["bound"]["binding_term"] != "memory");
}
