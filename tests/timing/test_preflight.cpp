//===- test_preflight.cpp - capacity preflight of GEMM tilings -------------===//
#include <doctest/doctest.h>

#include "harness/preflight.hpp"

namespace bench = pb::bench;
using bench::json;

namespace {

/// The 910B3 profile's buffers (hardware_profiles/ascend_910b3/profile.toml):
/// L0A 64 KiB, L0B 64 KiB, L0C 128 KiB, UB 192 KiB; bf16 fractal 16x16x16.
json capacities_910b3() {
  return json{{"name", "ascend_910b3"},
              {"buffers", {{"l0a", 65536}, {"l0b", 65536}, {"l0c", 131072}, {"ub", 196608}}},
              {"fractal", {{"bf16", {{"m", 16}, {"k", 16}, {"n", 16}}}, {"fp32", {{"m", 16}, {"k", 8}, {"n", 16}}}}}};
}

bench::GemmShape bf16_gemm() {
  bench::GemmShape shape;
  shape.m = 4096;
  shape.n = 4096;
  shape.k = 4096;
  shape.a = shape.b = shape.out = bench::Dtype::kBf16;
  return shape;
}

json tiling(int base_m, int base_n, int base_k, int l0a_buffers, int ub_buffers = 0) {
  return json{{"format", "perfbound.gemm_tiling/1"}, {"base_m", base_m}, {"base_n", base_n}, {"base_k", base_k},
              {"l0a_buffers", l0a_buffers}, {"l0b_buffers", 2}, {"l0c_buffers", 1}, {"ub_buffers", ub_buffers}};
}

}  // namespace

TEST_CASE("a tiling that needs 68 KiB of L0A is skipped before launch on a 64 KiB chip") {
  // base_m 272 (17 fractals of 16), base_k 128: L0A = 272 * 128 * 2 B (bf16) * 1 buffer = 69632 B = 68 KiB,
  // and the 910B3 has 65536 B.
  json over = bench::preflight_gemm(bf16_gemm(), tiling(272, 64, 128, 1), capacities_910b3());
  CHECK(over["status"] == "exceeds");
  CHECK(over["footprint_bytes"]["l0a"] == 69632);
  CHECK(over["capacity_bytes"]["l0a"] == 65536);
  CHECK(over["skipped_reason"] ==
        "l0a_capacity: l0a needs 69632 B (base_m 272 x base_k 128 x 2 B x 1 buffers), ascend_910b3 has 65536 B");
  // The same footprint from double buffering: 256 * 68 * 2 * 2 = 69632 B; but base_k 68 is not a multiple of
  // the bf16 fractal k 16, so that tiling is not decoded at all.
  json unaligned = bench::preflight_gemm(bf16_gemm(), tiling(256, 64, 68, 2), capacities_910b3());
  CHECK(unaligned["status"] == "unverified");
  CHECK(unaligned["skipped_reason"] ==
        "unverified_tiling: tiling 256x64x68 (m x n x k) is not a multiple of the bf16 fractal 16x16x16");
}

TEST_CASE("a tiling that fits records each footprint") {
  // L0A = 128*64*2*2 = 32768; L0B = 64*256*2*2 = 65536 (exactly full);
  // L0C = 128*256*4*1 = 131072 (exactly full); UB unused.
  json verdict = bench::preflight_gemm(bf16_gemm(), tiling(128, 256, 64, 2), capacities_910b3());
  CHECK(verdict["status"] == "fits");
  CHECK(verdict["footprint_bytes"] == json{{"l0a", 32768}, {"l0b", 65536}, {"l0c", 131072}, {"ub", 0}});
  CHECK(verdict["skipped_reason"].is_null());
}

TEST_CASE("L0B, L0C and UB overflows are named by their buffer") {
  // L0B = 128 * 272 * 2 * 2 = 139264 > 65536.
  CHECK(bench::preflight_gemm(bf16_gemm(), tiling(16, 272, 128, 1), capacities_910b3())["skipped_reason"].get<std::string>().rfind(
            "l0b_capacity: l0b needs 139264 B", 0) == 0);
  // L0C = 256 * 256 * 4 * 1 = 262144 > 131072 (L0A 256*16*2*1 = 8192, L0B 16*256*2*2 = 16384 fit).
  CHECK(bench::preflight_gemm(bf16_gemm(), tiling(256, 256, 16, 1), capacities_910b3())["skipped_reason"].get<std::string>().rfind(
            "l0c_capacity: l0c needs 262144 B", 0) == 0);
  // With an fp32 output staged through UB: L0C = 128 * 256 * 4 * 1 = 131072 fits exactly, but
  // UB = 128 * 256 * 4 B * 2 buffers = 262144 > 196608.
  bench::GemmShape fp32_out = bf16_gemm();
  fp32_out.out = bench::Dtype::kFp32;
  json ub = bench::preflight_gemm(fp32_out, tiling(128, 256, 16, 1, 2), capacities_910b3());
  CHECK(ub["status"] == "exceeds");
  CHECK(ub["footprint_bytes"]["l0c"] == 131072);
  CHECK(ub["skipped_reason"].get<std::string>().rfind("ub_capacity: ub needs 262144 B", 0) == 0);
}

TEST_CASE("what the preflight cannot decode is unverified, never guessed") {
  bench::GemmShape shape = bf16_gemm();
  CHECK(bench::preflight_gemm(shape, json(nullptr), capacities_910b3())["status"] == "not_applicable");
  json foreign = {{"format", "catlass.fp8_tiling/3"}, {"base_m", 128}};
  CHECK(bench::preflight_gemm(shape, foreign, capacities_910b3())["skipped_reason"] ==
        "unverified_tiling: cannot decode tiling format \"catlass.fp8_tiling/3\" (the preflight decodes \"perfbound.gemm_tiling/1\")");
  json missing = {{"format", "perfbound.gemm_tiling/1"}, {"base_m", 128}, {"base_n", 128}};
  CHECK(bench::preflight_gemm(shape, missing, capacities_910b3())["status"] == "unverified");
  json extra = tiling(128, 128, 64, 2);
  extra["swizzle"] = 3;
  CHECK(bench::preflight_gemm(shape, extra, capacities_910b3())["reason"] ==
        "tiling member \"swizzle\" is not part of perfbound.gemm_tiling/1");
  CHECK(bench::preflight_gemm(shape, tiling(128, 128, 64, 2), json(nullptr))["reason"] ==
        "the plan has no hardware profile (perfbound bench prepare --profile NAME|DIR)");
  json no_l0a = capacities_910b3();
  no_l0a["buffers"]["l0a"] = nullptr;
  CHECK(bench::preflight_gemm(shape, tiling(128, 128, 64, 2), no_l0a)["reason"] ==
        "profile ascend_910b3 does not give the size of l0a");
}
