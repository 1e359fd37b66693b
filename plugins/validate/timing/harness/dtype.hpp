//===- dtype.hpp - GEMM element types: names, sizes, codecs, tolerances ----===//
#ifndef PERFBOUND_TIMING_DTYPE_HPP
#define PERFBOUND_TIMING_DTYPE_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pb::bench {

enum class Dtype { kFp64, kFp32, kFp16, kBf16 };

/// Parses an OperatorX dtype name ("bf16", "fp16", "fp32", "fp64").
std::optional<Dtype> parse_dtype(std::string_view name);
/// Why `name` is not a dtype the harness can run: names the known-but-
/// unsupported families (fp8, int8, ...) differently from unknown words.
std::string dtype_refusal(std::string_view name);
std::string_view dtype_name(Dtype dtype);
size_t dtype_size(Dtype dtype);
/// PB_TIMING_DTYPE_* of pb_ext_timing_backend.h.
uint32_t dtype_abi_id(Dtype dtype);

/// Stores `value` as element `index` of a packed `dtype` buffer, rounding to
/// nearest even; returns the value actually stored.
double encode_element(Dtype dtype, double value, void *buffer, size_t index);
/// Reads element `index` of a packed `dtype` buffer.
double decode_element(Dtype dtype, const void *buffer, size_t index);

/// Pass criterion of the numerical check, per output dtype:
///   |got - ref| <= atol * rms(ref) + rtol * |ref|   for every checked element.
/// rtol covers rounding to the output type (2 units of its roundoff); atol,
/// relative to the root mean square of the reference, covers accumulation
/// error of a length-k dot product in the accumulation type. docs/timing.md
/// derives each number.
struct Tolerance {
  double rtol;
  double atol;
};
Tolerance tolerance_for(Dtype out, Dtype a, Dtype b);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_DTYPE_HPP
