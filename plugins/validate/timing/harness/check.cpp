//===- check.cpp - GEMM inputs and the FP64 numerical check ----------------===//
#include "check.hpp"

#include <algorithm>
#include <cmath>

namespace pb::bench {

namespace {

/// splitmix64: small, fast, and good enough for test inputs.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-52 - 1.0; }

 private:
  uint64_t state_;
};

/// Evenly spread indices of [0, count), always including 0 and count - 1.
std::vector<uint64_t> spread_indices(uint64_t count, uint64_t wanted) {
  std::vector<uint64_t> out;
  if (wanted >= count) {
    for (uint64_t idx = 0; idx < count; ++idx) out.push_back(idx);
    return out;
  }
  if (wanted < 2) wanted = 2;
  for (uint64_t pick = 0; pick < wanted; ++pick) out.push_back(pick * (count - 1) / (wanted - 1));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<double> decode_rows(Dtype dtype, const std::vector<unsigned char> &buffer, const std::vector<uint64_t> &rows,
                                uint64_t k) {
  std::vector<double> out(rows.size() * k);
  for (size_t row_idx = 0; row_idx < rows.size(); ++row_idx)
    for (uint64_t col = 0; col < k; ++col)
      out[row_idx * k + col] = decode_element(dtype, buffer.data(), rows[row_idx] * k + col);
  return out;
}

}  // namespace

uint64_t seed_for_case(const std::string &case_id) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : case_id) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

GemmInputs make_gemm_inputs(const GemmShape &shape, uint64_t seed) {
  GemmInputs inputs;
  inputs.a.resize(shape.m * shape.k * dtype_size(shape.a));
  inputs.b.resize(shape.n * shape.k * dtype_size(shape.b));
  SplitMix64 rng(seed);
  for (uint64_t idx = 0; idx < shape.m * shape.k; ++idx) encode_element(shape.a, rng.uniform(), inputs.a.data(), idx);
  for (uint64_t idx = 0; idx < shape.n * shape.k; ++idx) encode_element(shape.b, rng.uniform(), inputs.b.data(), idx);
  return inputs;
}

json check_gemm_output(const GemmShape &shape, const GemmInputs &inputs, const std::vector<unsigned char> &output) {
  const uint64_t m = shape.m;
  const uint64_t n = shape.n;
  const uint64_t k = shape.k;
  // The full check also needs (m + n) * k decoded doubles; cap that at 2 GiB.
  bool full = m * n * k <= kFullCheckMacBudget && (m + n) * k <= (uint64_t{1} << 28);
  std::vector<uint64_t> rows;
  std::vector<uint64_t> cols;
  if (full) {
    rows = spread_indices(m, m);
    cols = spread_indices(n, n);
  } else {
    uint64_t side = 64;
    while (side > 2 && side * side * k > kFullCheckMacBudget) side /= 2;
    rows = spread_indices(m, side);
    cols = spread_indices(n, side);
  }
  std::vector<double> a_rows = decode_rows(shape.a, inputs.a, rows, k);
  std::vector<double> b_rows = decode_rows(shape.b, inputs.b, cols, k);
  std::vector<double> reference(rows.size() * cols.size());
  double sum_squares = 0;
  for (size_t row_idx = 0; row_idx < rows.size(); ++row_idx) {
    const double *a_row = &a_rows[row_idx * k];
    for (size_t col_idx = 0; col_idx < cols.size(); ++col_idx) {
      const double *b_row = &b_rows[col_idx * k];
      double dot = 0;
      for (uint64_t inner = 0; inner < k; ++inner) dot += a_row[inner] * b_row[inner];
      reference[row_idx * cols.size() + col_idx] = dot;
      sum_squares += dot * dot;
    }
  }
  double rms = std::sqrt(sum_squares / static_cast<double>(reference.size()));
  double scale = rms > 0 ? rms : 1.0;
  Tolerance tol = tolerance_for(shape.out, shape.a, shape.b);
  double max_abs = 0;
  double max_rel = 0;
  bool passed = true;
  json worst = nullptr;
  double worst_excess = -1;
  for (size_t row_idx = 0; row_idx < rows.size(); ++row_idx) {
    for (size_t col_idx = 0; col_idx < cols.size(); ++col_idx) {
      double ref = reference[row_idx * cols.size() + col_idx];
      double got = decode_element(shape.out, output.data(), rows[row_idx] * n + cols[col_idx]);
      double err = std::fabs(got - ref);
      if (std::isnan(got)) err = INFINITY;
      double limit = tol.atol * scale + tol.rtol * std::fabs(ref);
      max_abs = std::max(max_abs, err);
      if (std::fabs(ref) > tol.atol * scale) max_rel = std::max(max_rel, err / std::fabs(ref));
      if (!(err <= limit)) passed = false;
      double excess = limit > 0 ? err / limit : err;
      if (excess > worst_excess) {
        worst_excess = excess;
        worst = json{{"row", rows[row_idx]}, {"col", cols[col_idx]}, {"got", std::isfinite(got) ? json(got) : json(nullptr)},
                     {"ref", ref}};
      }
    }
  }
  return json{{"passed", passed},
              {"method", full ? "full" : "sampled"},
              {"reference", "fp64 dot products of the dtype-rounded inputs (independent loop, not the backend's BLAS)"},
              {"elements_checked", rows.size() * cols.size()},
              {"rows_checked", rows.size()},
              {"cols_checked", cols.size()},
              {"rtol", tol.rtol},
              {"atol", tol.atol},
              {"criterion", "|got - ref| <= atol * reference_rms + rtol * |ref|"},
              {"reference_rms", rms},
              {"max_abs_err", std::isfinite(max_abs) ? json(max_abs) : json(nullptr)},
              {"max_rel_err", std::isfinite(max_rel) ? json(max_rel) : json(nullptr)},
              {"worst", worst}};
}

}  // namespace pb::bench
