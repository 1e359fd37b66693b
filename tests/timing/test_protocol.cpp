//===- test_protocol.cpp - protocol constants, upper median, TFLOPS --------===//
#include <doctest/doctest.h>

#include <array>

#include "harness/protocol.hpp"

namespace bench = pb::bench;

TEST_CASE("the protocol record holds the OperatorX constants") {
  bench::json protocol = bench::protocol_json();
  // research/timing.md §1.1: WARMUP 5, ITERS 10, 25 ms ramp, 1 s first op.
  CHECK(protocol["warmup_calls"] == 5);
  CHECK(protocol["samples"] == 10);
  CHECK(protocol["ramp_min_ms"] == 25);
  CHECK(protocol["first_op_ramp_min_ms"] == 1000);
  CHECK(protocol["statistic"] == "upper_median");
  CHECK(protocol["statistic_definition"] == "sorted(samples_us)[10 // 2]");
}

TEST_CASE("upper median is the 6th smallest of 10 samples, not the mean of the middle two") {
  // Sorted: 1 2 3 4 5 | 6 7 8 9 10 -> index 10 // 2 = 5 -> 6 (the mean would be 5.5).
  std::array<double, 10> samples = {7, 3, 10, 1, 6, 9, 2, 8, 5, 4};
  CHECK(bench::upper_median(samples) == doctest::Approx(6.0));
  // Duplicates: sorted 2 2 2 2 2 | 3 3 3 3 3 -> 3.
  std::array<double, 10> ties = {3, 2, 3, 2, 3, 2, 3, 2, 3, 2};
  CHECK(bench::upper_median(ties) == doctest::Approx(3.0));
}

TEST_CASE("upper median refuses anything but exactly ten finite samples") {
  std::array<double, 9> nine = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  CHECK_FALSE(bench::upper_median(nine).has_value());
  std::array<double, 10> with_nan = {1, 2, 3, 4, 5, 6, 7, 8, 9, std::numeric_limits<double>::quiet_NaN()};
  CHECK_FALSE(bench::upper_median(with_nan).has_value());
}

TEST_CASE("GEMM TFLOPS is 2 m n k / (latency_us * 1e6)") {
  // 4096^3 GEMM in 1000 us: 2 * 68719476736 / 1e9 = 137.438953472 TFLOP/s.
  CHECK(*bench::gemm_tflops(4096, 4096, 4096, 1000.0) == doctest::Approx(137.438953472));
  // m=1, n=7168, k=2048 in 10 us: 2 * 14680064 / 1e7 = 2.9360128.
  CHECK(*bench::gemm_tflops(1, 7168, 2048, 10.0) == doctest::Approx(2.9360128));
  CHECK_FALSE(bench::gemm_tflops(1, 1, 1, 0.0).has_value());
  CHECK_FALSE(bench::gemm_tflops(1, 1, 1, -3.0).has_value());
}

TEST_CASE("protocol flags accept only the protocol value") {
  CHECK_FALSE(bench::check_protocol_flag("--samples", "10").has_value());
  CHECK_FALSE(bench::check_protocol_flag("--warmups", "5").has_value());
  CHECK_FALSE(bench::check_protocol_flag("--warmup-ms", "25").has_value());
  CHECK_FALSE(bench::check_protocol_flag("--warmup-ms", "25.0").has_value());
  CHECK_FALSE(bench::check_protocol_flag("--first-warmup-ms", "1000").has_value());
  auto samples = bench::check_protocol_flag("--samples", "9");
  REQUIRE(samples.has_value());
  CHECK(samples->find("--samples 9: the queued protocol uses exactly 10 samples") == 0);
  CHECK(bench::check_protocol_flag("--samples", "20").has_value());
  CHECK(bench::check_protocol_flag("--warmups", "4").has_value());
  CHECK(bench::check_protocol_flag("--warmup-ms", "0").has_value());
  CHECK(bench::check_protocol_flag("--warmup-ms", "50").has_value());
  CHECK(bench::check_protocol_flag("--first-warmup-ms", "999").has_value());
  CHECK(bench::check_protocol_flag("--samples", "ten").has_value());
  CHECK(bench::check_protocol_flag("--samples", "10x").has_value());
}
