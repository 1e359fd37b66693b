//===- dtype.cpp - GEMM element types --------------------------------------===//
#include "dtype.hpp"

#include <array>
#include <cstring>

#include "../common/float_codec.hpp"
#include "perfbound/pb_ext_timing_backend.h"

namespace pb::bench {

namespace codec = pb::timing_codec;

std::optional<Dtype> parse_dtype(std::string_view name) {
  if (name == "fp64") return Dtype::kFp64;
  if (name == "fp32") return Dtype::kFp32;
  if (name == "fp16") return Dtype::kFp16;
  if (name == "bf16") return Dtype::kBf16;
  return std::nullopt;
}

std::string dtype_refusal(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kKnownPrefixes = {"fp8", "int", "uint", "mxfp", "fp4", "fp6"};
  for (std::string_view prefix : kKnownPrefixes) {
    if (name.substr(0, prefix.size()) == prefix)
      return "dtype '" + std::string(name) +
             "' is not supported by perfbound bench (it runs fp64, fp32, fp16 and bf16 GEMMs; quantized and "
             "integer types need a quantization-aware reference that is not implemented)";
  }
  return "unknown dtype '" + std::string(name) + "' (known: fp64, fp32, fp16, bf16)";
}

std::string_view dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp64: return "fp64";
    case Dtype::kFp32: return "fp32";
    case Dtype::kFp16: return "fp16";
    case Dtype::kBf16: return "bf16";
  }
  return "?";
}

size_t dtype_size(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp64: return 8;
    case Dtype::kFp32: return 4;
    case Dtype::kFp16:
    case Dtype::kBf16: return 2;
  }
  return 0;
}

uint32_t dtype_abi_id(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp64: return PB_TIMING_DTYPE_FP64;
    case Dtype::kFp32: return PB_TIMING_DTYPE_FP32;
    case Dtype::kFp16: return PB_TIMING_DTYPE_FP16;
    case Dtype::kBf16: return PB_TIMING_DTYPE_BF16;
  }
  return 0;
}

double encode_element(Dtype dtype, double value, void *buffer, size_t index) {
  auto *bytes = static_cast<unsigned char *>(buffer);
  switch (dtype) {
    case Dtype::kFp64:
      std::memcpy(bytes + index * 8, &value, 8);
      return value;
    case Dtype::kFp32: {
      auto narrow = static_cast<float>(value);
      std::memcpy(bytes + index * 4, &narrow, 4);
      return narrow;
    }
    case Dtype::kFp16: {
      uint16_t bits = codec::float_to_fp16(static_cast<float>(value));
      std::memcpy(bytes + index * 2, &bits, 2);
      return codec::fp16_to_float(bits);
    }
    case Dtype::kBf16: {
      uint16_t bits = codec::float_to_bf16(static_cast<float>(value));
      std::memcpy(bytes + index * 2, &bits, 2);
      return codec::bf16_to_float(bits);
    }
  }
  return 0;
}

double decode_element(Dtype dtype, const void *buffer, size_t index) {
  const auto *bytes = static_cast<const unsigned char *>(buffer);
  switch (dtype) {
    case Dtype::kFp64: {
      double value = 0;
      std::memcpy(&value, bytes + index * 8, 8);
      return value;
    }
    case Dtype::kFp32: {
      float value = 0;
      std::memcpy(&value, bytes + index * 4, 4);
      return value;
    }
    case Dtype::kFp16: {
      uint16_t bits = 0;
      std::memcpy(&bits, bytes + index * 2, 2);
      return codec::fp16_to_float(bits);
    }
    case Dtype::kBf16: {
      uint16_t bits = 0;
      std::memcpy(&bits, bytes + index * 2, 2);
      return codec::bf16_to_float(bits);
    }
  }
  return 0;
}

Tolerance tolerance_for(Dtype out, Dtype a, Dtype b) {
  // Accumulation happens in fp64 when an operand is fp64, else in fp32.
  bool fp64_accumulate = a == Dtype::kFp64 || b == Dtype::kFp64;
  double atol = fp64_accumulate ? 1e-10 : 1e-4;
  switch (out) {
    case Dtype::kFp64: return {1e-12, atol};
    case Dtype::kFp32: return {1e-5, atol};
    case Dtype::kFp16: return {0x1p-10, atol};  // 2 x binary16 unit roundoff 2^-11
    case Dtype::kBf16: return {0x1p-7, atol};   // 2 x bfloat16 unit roundoff 2^-8
  }
  return {0, 0};
}

}  // namespace pb::bench
