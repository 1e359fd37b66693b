//===- float_codec.hpp - bf16/fp16 <-> binary32 conversions (header-only) ---===//
//
// Shared at compile time by the harness (input generation, reference,
// output decoding) and the CPU backend (fp16/bf16 emulation through fp32).
// Encodings are those of pb_ext_timing_backend.h: BF16 is the upper half of a
// binary32, FP16 is IEEE-754 binary16. Narrowing rounds to nearest, ties to
// even, like the hardware conversions it stands in for.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_COMMON_FLOAT_CODEC_HPP
#define PERFBOUND_TIMING_COMMON_FLOAT_CODEC_HPP

#include <bit>
#include <cstdint>

namespace pb::timing_codec {

inline float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

inline uint16_t float_to_bf16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // keep NaN a (quiet) NaN
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;  // round to nearest, ties to even
  return static_cast<uint16_t>(bits >> 16);
}

inline float fp16_to_float(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    // Subnormal: value = mantissa * 2^-24, exact in binary32.
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t float_to_fp16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
  // 65520 = largest value that rounds to a finite half (65504) or beyond.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal or zero. Scale to
    // units of 2^-24 and round to nearest even on the integer.
    float scaled = std::bit_cast<float>(magnitude) * 0x1p24f;
    auto whole = static_cast<uint32_t>(scaled);
    float fraction = scaled - static_cast<float>(whole);
    if (fraction > 0.5f || (fraction == 0.5f && (whole & 1u) != 0)) ++whole;
    return static_cast<uint16_t>(sign | whole);  // whole may carry into the first normal: still correct
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits.
  uint32_t rebased = magnitude - (112u << 23);
  uint32_t lsb = (rebased >> 13) & 1u;
  rebased += 0xfffu + lsb;
  return static_cast<uint16_t>(sign | (rebased >> 13));
}

}  // namespace pb::timing_codec

#endif  // PERFBOUND_TIMING_COMMON_FLOAT_CODEC_HPP
