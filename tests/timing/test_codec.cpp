//===- test_codec.cpp - bf16/fp16 conversions and dtype encoding -----------===//
#include <doctest/doctest.h>

#include <perfbound/sdk/sha256.hpp>

#include <bit>
#include <cmath>
#include <vector>

#include "common/float_codec.hpp"
#include "harness/dtype.hpp"

namespace codec = pb::timing_codec;
namespace bench = pb::bench;

TEST_CASE("bf16 rounds to nearest, ties to even") {
  CHECK(codec::float_to_bf16(1.0f) == 0x3f80);
  // 1 + 2^-8 is exactly halfway between 1.0 (0x3f80, even) and 1 + 2^-7 (0x3f81): ties go to even.
  CHECK(codec::float_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 0x3f81 (odd) and 0x3f82 (even): up to 0x3f82.
  CHECK(codec::float_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
  // Just above half an ulp rounds up.
  CHECK(codec::float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);
  CHECK(codec::float_to_bf16(-2.0f) == 0xc000);
  CHECK(codec::bf16_to_float(0x3f81) == 1.0f + 0x1p-7f);
  CHECK(std::isnan(codec::bf16_to_float(codec::float_to_bf16(std::nanf("")))));
}

TEST_CASE("fp16 conversions: normals, subnormals, overflow") {
  CHECK(codec::float_to_fp16(1.0f) == 0x3c00);
  CHECK(codec::float_to_fp16(-2.0f) == 0xc000);
  CHECK(codec::float_to_fp16(65504.0f) == 0x7bff);  // largest finite half
  CHECK(codec::float_to_fp16(65519.0f) == 0x7bff);  // below the halfway point 65520
  CHECK(codec::float_to_fp16(65520.0f) == 0x7c00);  // halfway: ties to even = infinity
  CHECK(codec::float_to_fp16(0x1p-24f) == 0x0001);  // smallest subnormal
  CHECK(codec::float_to_fp16(0x1p-25f) == 0x0000);  // half of it: tie to even zero
  CHECK(codec::float_to_fp16(3 * 0x1p-25f) == 0x0002);  // 1.5 units: tie to even 2
  CHECK(codec::float_to_fp16(0x1p-14f) == 0x0400);  // smallest normal
  // 1/3 = 0x3555 in binary16 (mantissa 0101010101 rounded down).
  CHECK(codec::float_to_fp16(1.0f / 3.0f) == 0x3555);
  CHECK(codec::fp16_to_float(0x3555) == doctest::Approx(0.333251953125));
  CHECK(codec::fp16_to_float(0x0001) == 0x1p-24f);
  CHECK(std::isinf(codec::fp16_to_float(0x7c00)));
}

TEST_CASE("encode_element stores the rounded value and decode_element reads it back") {
  std::vector<unsigned char> buffer(8 * 4);
  CHECK(bench::encode_element(bench::Dtype::kBf16, 1.0 + 0x1p-8, buffer.data(), 1) == 1.0);
  CHECK(bench::decode_element(bench::Dtype::kBf16, buffer.data(), 1) == 1.0);
  CHECK(bench::encode_element(bench::Dtype::kFp32, 0.1, buffer.data(), 2) == static_cast<double>(0.1f));
  CHECK(bench::encode_element(bench::Dtype::kFp64, 0.1, buffer.data(), 3) == 0.1);
  CHECK(bench::decode_element(bench::Dtype::kFp64, buffer.data(), 3) == 0.1);
}

TEST_CASE("dtype names: supported, known-unsupported and unknown") {
  CHECK(bench::parse_dtype("bf16") == bench::Dtype::kBf16);
  CHECK_FALSE(bench::parse_dtype("fp8_e4m3").has_value());
  CHECK(bench::dtype_refusal("fp8_e4m3").find("not supported by perfbound bench") != std::string::npos);
  CHECK(bench::dtype_refusal("float") == "unknown dtype 'float' (known: fp64, fp32, fp16, bf16)");
}

TEST_CASE("the harness fingerprints with the SDK's SHA-256 (one implementation)") {
  // The harness used to carry its own copy; plan hashes and journal
  // fingerprints now come from perfbound/sdk/sha256.hpp, which the host's
  // FIPS 180-4 vector tests cover. A million 'a's (FIPS 180-4 example):
  pb::sdk::Sha256 stream;
  std::string chunk(1000, 'a');
  for (int chunk_idx = 0; chunk_idx < 1000; ++chunk_idx) stream.update(chunk);
  CHECK(stream.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
