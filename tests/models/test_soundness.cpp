//===- test_soundness.cpp - the bound never exceeds a real measurement ----===//
//
// For each corpus case with a real 910B3 measurement, the shipped pipeline
// runs on the real IR with the corpus launch values, and the bound must not
// exceed the minimum measured launch. The minima are the ones stated in
// ../shared/data/corpus/CORPUS.md ("min (us)" column: kept launches after
// the warm-up drop; msprof CSV parsing belongs to the validation plugin).
// Tightness (median / bound) is printed, not asserted: docs/model.md §10.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "models_test_util.hpp"

using modelstest::json;
using modelstest::seconds;

namespace {

/// The rules every term of a report keeps, whatever the numbers: a strict
/// term uses only theoretical or peak rates in its value and its value is
/// its strict value; a sustained rate never enters a value unless argued;
/// per component, the strict value never exceeds the value.
void check_terms(const json &report) {
  for (const json &t : report["terms"]) {
    CAPTURE(t["term"].get<std::string>());
    CAPTURE(t["tier"].get<std::string>());
    const std::string assurance = t["assurance"].get<std::string>();
    if (assurance == "strict" && t["value"]["value"].is_number()) {
      REQUIRE(t["strict_value"]["value"].is_number());
      CHECK(t["strict_value"]["value"].get<double>() == doctest::Approx(t["value"]["value"].get<double>()));
    }
    for (const json &r : t["rates"]) {
      CAPTURE(r.dump());
      if (r["kind"] == "sustained" || r["kind"] == "argued") CHECK(r["use"] != "bound");
      if (r["use"] == "argued") CHECK(r.contains("argument"));
    }
    for (const json &c : t["per_component"])
      if (c["value"]["value"].is_number() && c["strict_value"]["value"].is_number())
        CHECK(c["strict_value"]["value"].get<double>() <= c["value"]["value"].get<double>() * (1 + 1e-12));
  }
}

void check_sound(const std::string &name, const json &report, double min_us, double median_us) {
  REQUIRE(report["bound"]["value"].is_number());
  double bound_us = seconds(report["bound"]) * 1e6;
  double strict_us = seconds(report["bound"]["strict"]) * 1e6;
  MESSAGE(name << ": bound " << bound_us << " us (" << report["bound"]["binding_term"].get<std::string>() << " on "
               << report["bound"]["binding_component"].get<std::string>() << ", " << report["bound"]["assurance"].get<std::string>()
               << "), strict " << strict_us << " us; min measured " << min_us << " us; tightness " << median_us / bound_us
               << "x (strict " << median_us / strict_us << "x)");
  // Both bounds the report stands behind, each against the measurement.
  CHECK(bound_us <= min_us);
  CHECK(strict_us <= min_us);
  CHECK(strict_us > 0);
  check_terms(report);
  // The report says what it counted.
  REQUIRE(report.contains("coverage"));
  CHECK(report["coverage"]["hivm"]["by_component"].is_array());
}

}  // namespace

TEST_CASE("soundness: chunk_kda (mix cube + vector), HIVM tier") {
  PBTEST_REQUIRE_SHARED();
  // CORPUS.md: grid (128, 32); T_measured 104,288.9 us, min 104,228.2 us.
  // Trailing i32 arguments of the dump: %arg25 (Triton index 22) multiplies
  // the head index into the row offset, i.e. T = 8192 (msprof Input Shapes
  // 32,1,8192,128); %arg23 (index 20) is not read by the dump; given the same.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("chunk_kda.npuir.mlir"), "--set",
       "launch={grid=[128,32],args={\"20\"=8192,\"22\"=8192}}"});
  check_sound("chunk_kda", run.report, 104228.2, 104288.9);
}

TEST_CASE("soundness: chunk_kda with the trip fact of the third gather loop (line 1106)") {
  PBTEST_REQUIRE_SHARED();
  // The loop at line 1106 runs from cu_seqlens/chunk_indices loaded from GM,
  // so no launch value bounds it. For this launch every chunk is full: the
  // grid's first dimension is 128 = T / 64 chunks with T = 8192 (the i32
  // argument 22, msprof Input Shapes 32,1,8192,128), so each block's chunk
  // spans 64 tokens and the loop runs at least 64 times per entry: the fact
  // trips."1106" = { min = 64 }.
  modelstest::RunOut strict_run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("chunk_kda.npuir.mlir"), "--set",
       "launch={grid=[128,32],args={\"20\"=8192,\"22\"=8192}}"});
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("chunk_kda.npuir.mlir"), "--set",
       "launch={grid=[128,32],args={\"20\"=8192,\"22\"=8192},trips={\"1106\"={min=64}}}"});
  check_sound("chunk_kda + trips.1106", run.report, 104228.2, 104288.9);
  REQUIRE(run.report.contains("given_facts"));
  CHECK(run.report["given_facts"][0]["key"] == "trips.\"1106\"");
  // Counting the third loop: at least 1.8x the 7,780 us of the two loops alone.
  CHECK(seconds(run.report["bound"]) >= 1.8 * 7780.3e-6);
  CHECK(seconds(run.report["bound"]) > 1.8 * seconds(strict_run.report["bound"]));
  // The strict bound does not move with the fact.
  CHECK(seconds(run.report["bound"]["strict"]) == doctest::Approx(seconds(strict_run.report["bound"]["strict"])));
}

TEST_CASE("soundness: seeded_serial ON, HIVM tier") {
  PBTEST_REQUIRE_SHARED();
  // CORPUS.md: grid 4096, BLOCK 2048; T_measured 3,289.6 us, min 3,285.5 us.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("seeded_serial_on.npuir.mlir"), "--set",
       "launch={grid=[4096],args={\"4\"=8388608,\"5\"=65536}}"});
  check_sound("seeded_serial ON", run.report, 3285.5, 3289.6);
}

TEST_CASE("soundness: vector_add 16M, both tiers (example TTIR and HIVM)") {
  PBTEST_REQUIRE_SHARED();
  // CORPUS.md: N = 16,777,216, grid 8192; T_measured 309.3 us, min 257.7 us.
  // No real IR exists for it: the bundled example kernel's TTIR and HIVM.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound.toml"),
      {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
       "hivm=" + modelstest::example("vector_add.npuir.mlir"), "--set",
       "launch={grid=[8192,1,1],args={n_elements=16777216,\"3\"=16777216}}"});
  check_sound("vector_add 16M", run.report, 257.7, 309.3);
  CHECK(run.report["limits"]["invariant"]["holds"] == true);
}
