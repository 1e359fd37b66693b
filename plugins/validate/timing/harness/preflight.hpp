//===- preflight.hpp - on-chip buffer capacity preflight of a GEMM tiling ---===//
//
// A cube-unit GEMM tiling that needs more L0A (or L0B, L0C, UB) than the chip
// has does not fault on Ascend: it silently corrupts results (review of
// tile-ai/tilelang-ascend PR #1312, "overflows 64KB L0A silently"). So before
// a case is launched its tiling is checked against the hardware profile's
// buffer sizes, and a case that cannot fit is skipped with a reason. A tiling
// the preflight cannot decode is skipped as unverified: never guessed.
//
// Tiling format "perfbound.gemm_tiling/1" (a testlist entry's args.tiling):
//   {"format": "perfbound.gemm_tiling/1", "base_m": int, "base_n": int,
//    "base_k": int, "l0a_buffers": 1|2, "l0b_buffers": 1|2,
//    "l0c_buffers": 1|2, "ub_buffers": 0..2}
// Footprints (bytes):
//   L0A = base_m * base_k * size(a) * l0a_buffers
//   L0B = base_k * base_n * size(b) * l0b_buffers
//   L0C = base_m * base_n * 4 (fp32 accumulator) * l0c_buffers
//   UB  = base_m * base_n * size(out) * ub_buffers   (epilogue through UB)
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_PREFLIGHT_HPP
#define PERFBOUND_TIMING_PREFLIGHT_HPP

#include <nlohmann/json.hpp>

#include "testlist.hpp"

namespace pb::bench {

inline constexpr const char *kTilingFormat = "perfbound.gemm_tiling/1";

/// The part of a perfbound.profile/1 document the preflight needs, as stored
/// in a plan: {"name", "buffers": {"l0a","l0b","l0c","ub"} in bytes (null when
/// the profile lacks one), "fractal": {dtype: {"m","k","n"}}}. Throws
/// pb::sdk::InputError when the document has no "buffers" table.
json preflight_capacities(const json &profile_document);

/// Checks `tiling` (a testlist args.tiling, or null) for `shape` against
/// `capacities` (preflight_capacities(), or null when the plan has no
/// profile). Returns
///   {"status": "fits"|"exceeds"|"unverified"|"not_applicable",
///    "reason": str|null, "skipped_reason": str|null,
///    "footprint_bytes": {...}|null, "capacity_bytes": {...}|null}
/// "exceeds" and "unverified" carry a skipped_reason; the case must not run.
json preflight_gemm(const GemmShape &shape, const json &tiling, const json &capacities);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_PREFLIGHT_HPP
