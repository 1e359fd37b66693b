//===- test_check.cpp - inputs and the FP64 numerical check ----------------===//
#include <doctest/doctest.h>

#include <cmath>

#include "harness/check.hpp"

namespace bench = pb::bench;

namespace {

bench::GemmShape shape_of(uint64_t m, uint64_t n, uint64_t k, bench::Dtype in, bench::Dtype out) {
  bench::GemmShape shape;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  shape.a = shape.b = in;
  shape.out = out;
  return shape;
}

std::vector<unsigned char> encode_all(bench::Dtype dtype, const std::vector<double> &values) {
  std::vector<unsigned char> bytes(values.size() * bench::dtype_size(dtype));
  for (size_t idx = 0; idx < values.size(); ++idx) bench::encode_element(dtype, values[idx], bytes.data(), idx);
  return bytes;
}

}  // namespace

TEST_CASE("a correct output passes and a wrong element is found") {
  // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]] (rows of B are the columns of
  // B^T): C = A B^T = [[1*5+2*6, 1*7+2*8], [3*5+4*6, 3*7+4*8]] = [[17, 23], [39, 53]].
  bench::GemmShape shape = shape_of(2, 2, 2, bench::Dtype::kFp32, bench::Dtype::kFp32);
  bench::GemmInputs inputs{encode_all(bench::Dtype::kFp32, {1, 2, 3, 4}), encode_all(bench::Dtype::kFp32, {5, 6, 7, 8})};
  bench::json good = bench::check_gemm_output(shape, inputs, encode_all(bench::Dtype::kFp32, {17, 23, 39, 53}));
  CHECK(good["passed"] == true);
  CHECK(good["method"] == "full");
  CHECK(good["elements_checked"] == 4);
  CHECK(good["max_abs_err"] == 0.0);
  // 23 -> 23.01: off by 1e-2, far beyond fp32's rtol 1e-5 * 23 + atol 1e-4 * rms
  // (rms = sqrt((17^2 + 23^2 + 39^2 + 53^2) / 4) = sqrt((289 + 529 + 1521 + 2809) / 4) = sqrt(1287) = 35.87...).
  bench::json bad = bench::check_gemm_output(shape, inputs, encode_all(bench::Dtype::kFp32, {17, 23.01, 39, 53}));
  CHECK(bad["passed"] == false);
  CHECK(bad["worst"]["row"] == 0);
  CHECK(bad["worst"]["col"] == 1);
  CHECK(bad["max_abs_err"].get<double>() == doctest::Approx(0.01).epsilon(1e-3));
  CHECK(bad["reference_rms"].get<double>() == doctest::Approx(std::sqrt(1287.0)));
}

TEST_CASE("bf16 output: rounding within 2^-7 relative passes, a bf16-accumulated error does not") {
  // C = 17 exactly; bf16 neighbours of 17 are 17 and 17.125 (spacing 2^-3 at 16..32).
  bench::GemmShape shape = shape_of(1, 1, 2, bench::Dtype::kBf16, bench::Dtype::kBf16);
  bench::GemmInputs inputs{encode_all(bench::Dtype::kBf16, {1, 2}), encode_all(bench::Dtype::kBf16, {5, 6})};
  // 17.125 is 1 bf16 ulp away: |err| = 0.125 <= 2^-7 * 17 = 0.1328 + atol.
  CHECK(bench::check_gemm_output(shape, inputs, encode_all(bench::Dtype::kBf16, {17.125}))["passed"] == true);
  // 17.25 (2 ulps): 0.25 > 0.1328 + 1e-4 * 17.
  CHECK(bench::check_gemm_output(shape, inputs, encode_all(bench::Dtype::kBf16, {17.25}))["passed"] == false);
}

TEST_CASE("a NaN output never passes") {
  bench::GemmShape shape = shape_of(1, 1, 1, bench::Dtype::kFp32, bench::Dtype::kFp32);
  bench::GemmInputs inputs{encode_all(bench::Dtype::kFp32, {1}), encode_all(bench::Dtype::kFp32, {1})};
  bench::json verdict = bench::check_gemm_output(shape, inputs, encode_all(bench::Dtype::kFp32, {std::nan("")}));
  CHECK(verdict["passed"] == false);
  CHECK(verdict["max_abs_err"].is_null());
}

TEST_CASE("large GEMMs are checked on a grid that includes the first and last rows and columns") {
  // m * n * k = 65536 * 1024 * 8 = 2^29 multiply-adds > the 2^28 budget.
  // All-ones inputs make every output exactly k = 8.
  const uint64_t m = 65536, n = 1024, k = 8;
  bench::GemmShape shape = shape_of(m, n, k, bench::Dtype::kBf16, bench::Dtype::kBf16);
  bench::GemmInputs inputs{encode_all(bench::Dtype::kBf16, std::vector<double>(m * k, 1.0)),
                           encode_all(bench::Dtype::kBf16, std::vector<double>(n * k, 1.0))};
  std::vector<unsigned char> output = encode_all(bench::Dtype::kBf16, std::vector<double>(m * n, 8.0));
  bench::json verdict = bench::check_gemm_output(shape, inputs, output);
  CHECK(verdict["passed"] == true);
  CHECK(verdict["method"] == "sampled");
  CHECK(verdict["rows_checked"] == 64);
  CHECK(verdict["cols_checked"] == 64);
  // Break the very last element: the grid must include it.
  bench::encode_element(bench::Dtype::kBf16, 9.0, output.data(), m * n - 1);
  bench::json broken = bench::check_gemm_output(shape, inputs, output);
  CHECK(broken["passed"] == false);
  CHECK(broken["worst"]["row"] == m - 1);
  CHECK(broken["worst"]["col"] == n - 1);
}

TEST_CASE("inputs are deterministic per seed, rounded to their dtype and within [-1, 1)") {
  bench::GemmShape shape = shape_of(4, 3, 5, bench::Dtype::kBf16, bench::Dtype::kFp32);
  bench::GemmInputs first = bench::make_gemm_inputs(shape, bench::seed_for_case("list#0"));
  bench::GemmInputs again = bench::make_gemm_inputs(shape, bench::seed_for_case("list#0"));
  bench::GemmInputs other = bench::make_gemm_inputs(shape, bench::seed_for_case("list#1"));
  CHECK(first.a.size() == 4 * 5 * 2);
  CHECK(first.b.size() == 3 * 5 * 2);
  CHECK(first.a == again.a);
  CHECK(first.b == again.b);
  CHECK(first.a != other.a);
  for (size_t idx = 0; idx < 20; ++idx) {
    double value = bench::decode_element(bench::Dtype::kBf16, first.a.data(), idx);
    CHECK(value >= -1.0);
    CHECK(value <= 1.0);  // rounding to bf16 may reach 1.0 itself
  }
}
