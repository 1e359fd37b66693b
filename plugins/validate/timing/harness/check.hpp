//===- check.hpp - GEMM inputs and the FP64 numerical check ----------------===//
//
// Each case is checked once, before it is timed: its output is compared with
// an FP64 reference computed here, from the very inputs the backend received
// (already rounded to their dtype), by an independent dot-product loop (not
// the backend's BLAS). A case that fails is marked and never timed.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_CHECK_HPP
#define PERFBOUND_TIMING_CHECK_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlist.hpp"

namespace pb::bench {

using json = nlohmann::json;

struct GemmInputs {
  std::vector<unsigned char> a;  // [m, k] in shape.a
  std::vector<unsigned char> b;  // [n, k] in shape.b
};

/// Deterministic inputs, uniform in [-1, 1) before rounding to the operand
/// dtypes; the same `seed` always gives the same bytes.
GemmInputs make_gemm_inputs(const GemmShape &shape, uint64_t seed);

/// A stable seed for a case id (FNV-1a of the id).
uint64_t seed_for_case(const std::string &case_id);

/// Most multiply-adds the reference may spend; above it the check covers a
/// grid of rows x columns that always includes the first and last of each.
inline constexpr uint64_t kFullCheckMacBudget = uint64_t{1} << 28;

/// Compares `output` (m*n elements of shape.out) with the FP64 reference.
/// Returns {"passed", "method": "full"|"sampled", "elements_checked",
/// "rows_checked", "cols_checked", "rtol", "atol", "reference_rms",
/// "max_abs_err", "max_rel_err", "worst": {"row","col","got","ref"}}.
/// max_rel_err is taken over elements with |ref| > atol * rms (a relative
/// error near a zero reference means nothing).
json check_gemm_output(const GemmShape &shape, const GemmInputs &inputs, const std::vector<unsigned char> &output);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_CHECK_HPP
