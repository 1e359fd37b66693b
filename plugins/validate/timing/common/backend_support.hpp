//===- backend_support.hpp - helpers shared by the timing backend plugins ----===//
//
// Header-only, compiled into each backend plugin (plugins never link each
// other): reporting through a pb_text_sink, a session's last error, dtype
// sizes and names, and the checks every backend makes on a GEMM first.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_COMMON_BACKEND_SUPPORT_HPP
#define PERFBOUND_TIMING_COMMON_BACKEND_SUPPORT_HPP

#include <cstdint>
#include <optional>
#include <string>

#include "perfbound/pb_ext_timing_backend.h"

namespace pb::timing_backend {

inline void send(pb_text_sink sink, void *data, const std::string &text) {
  if (sink != nullptr) sink(data, text.data(), text.size());
}

/// Bytes per element of a PB_TIMING_DTYPE_*; 0 for an unknown id.
inline size_t dtype_bytes(uint32_t dtype) {
  switch (dtype) {
    case PB_TIMING_DTYPE_FP64: return 8;
    case PB_TIMING_DTYPE_FP32: return 4;
    case PB_TIMING_DTYPE_FP16:
    case PB_TIMING_DTYPE_BF16: return 2;
    default: return 0;
  }
}

/// Stores `message` as the session's last error and returns `status`.
template <class Session>
pb_status fail(Session *session, pb_status status, std::string message) {
  if (session != nullptr) session->last_error = std::move(message);
  return status;
}

/// The checks before any backend-specific rule: a readable description,
/// known dtype ids, no zero dimension, every dimension at most `max_dim`.
/// nullopt when they pass, else "<backend> backend: why".
inline std::optional<std::string> basic_gemm_problem(const pb_timing_gemm_desc *desc, const char *backend,
                                                     uint64_t max_dim) {
  if (desc == nullptr || desc->struct_size < sizeof(pb_timing_gemm_desc)) return "malformed GEMM description";
  std::string prefix = std::string(backend) + " backend: ";
  for (uint32_t dtype : {desc->a_dtype, desc->b_dtype, desc->out_dtype})
    if (dtype_bytes(dtype) == 0) return prefix + "dtype id " + std::to_string(dtype) + " is not one of fp64, fp32, fp16, bf16";
  if (desc->m == 0 || desc->n == 0 || desc->k == 0) return prefix + "zero-size GEMM";
  if (desc->m > max_dim || desc->n > max_dim || desc->k > max_dim)
    return prefix + "a dimension exceeds " + std::to_string(max_dim);
  return std::nullopt;
}

}  // namespace pb::timing_backend

#endif  // PERFBOUND_TIMING_COMMON_BACKEND_SUPPORT_HPP
