//===- perfbound/sdk/sha256.hpp - SHA-256 digests (FIPS 180-4) -------------===//
//
// Provenance needs hashes on both sides of the ABI: the host fingerprints
// every input, profile and plugin of a run; plugins record the hash of every
// measurement file they derive a number from (e.g. the calibration DB). One
// implementation, header-only, used by both.
//
//   pb::sdk::Sha256 h; h.update(bytes, n); std::string hex = h.hex_digest();
//   std::string hex = pb::sdk::sha256_hex(text);
//   std::optional<std::string> hex = pb::sdk::sha256_file(path);
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_SHA256_HPP
#define PERFBOUND_SDK_SHA256_HPP

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pb::sdk {

class Sha256 {
 public:
  Sha256();
  void update(const void *data, size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  /// Finishes and returns the lowercase hex digest. The object must not be
  /// updated afterwards.
  std::string hex_digest();

 private:
  void compress(const uint8_t *block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

namespace detail {

inline constexpr std::array<uint32_t, 64> kSha256Round = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t sha256_rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

}  // namespace detail

inline Sha256::Sha256()
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
             0x5be0cd19} {}

inline void Sha256::compress(const uint8_t *block) {
  std::array<uint32_t, 64> w{};
  for (size_t word_idx = 0; word_idx < 16; ++word_idx) {
    const uint8_t *p = block + word_idx * 4;
    w[word_idx] = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
  }
  for (size_t word_idx = 16; word_idx < 64; ++word_idx) {
    uint32_t s0 = detail::sha256_rotr(w[word_idx - 15], 7) ^ detail::sha256_rotr(w[word_idx - 15], 18) ^ (w[word_idx - 15] >> 3);
    uint32_t s1 = detail::sha256_rotr(w[word_idx - 2], 17) ^ detail::sha256_rotr(w[word_idx - 2], 19) ^ (w[word_idx - 2] >> 10);
    w[word_idx] = w[word_idx - 16] + s0 + w[word_idx - 7] + s1;
  }
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (size_t round = 0; round < 64; ++round) {
    uint32_t s1 = detail::sha256_rotr(e, 6) ^ detail::sha256_rotr(e, 11) ^ detail::sha256_rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + s1 + ch + detail::kSha256Round[round] + w[round];
    uint32_t s0 = detail::sha256_rotr(a, 2) ^ detail::sha256_rotr(a, 13) ^ detail::sha256_rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a; state_[1] += b; state_[2] += c; state_[3] += d;
  state_[4] += e; state_[5] += f; state_[6] += g; state_[7] += h;
}

inline void Sha256::update(const void *data, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  total_bytes_ += size;
  while (size > 0) {
    size_t take = std::min(size, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, bytes, take);
    buffered_ += take;
    bytes += take;
    size -= take;
    if (buffered_ == buffer_.size()) {
      compress(buffer_.data());
      buffered_ = 0;
    }
  }
}

inline std::string Sha256::hex_digest() {
  uint64_t bit_length = total_bytes_ * 8;
  uint8_t pad = 0x80;
  update(&pad, 1);
  uint8_t zero = 0;
  while (buffered_ != 56) update(&zero, 1);
  std::array<uint8_t, 8> length_bytes{};
  for (size_t byte_idx = 0; byte_idx < 8; ++byte_idx)
    length_bytes[byte_idx] = static_cast<uint8_t>(bit_length >> (56 - 8 * byte_idx));
  update(length_bytes.data(), length_bytes.size());
  static const char *kHex = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (uint32_t word : state_) {
    for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(word >> shift) & 0xf];
  }
  return out;
}

inline std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.hex_digest();
}

/// Digest of a file's bytes; nullopt when it cannot be opened or read.
inline std::optional<std::string> sha256_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  Sha256 h;
  std::vector<char> chunk(1 << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    std::streamsize got = in.gcount();
    if (got > 0) h.update(chunk.data(), static_cast<size_t>(got));
  }
  if (in.bad()) return std::nullopt;
  return h.hex_digest();
}

}  // namespace pb::sdk

#endif  // PERFBOUND_SDK_SHA256_HPP
