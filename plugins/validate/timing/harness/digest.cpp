//===- digest.cpp - SHA-256 (FIPS 180-4) -----------------------------------===//
#include "digest.hpp"

#include <fstream>
#include <vector>

namespace pb::bench {

namespace {

// First 32 bits of the fractional parts of the cube roots of the first 64
// primes (FIPS 180-4 §4.2.2).
constexpr std::array<uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t rotr(uint32_t word, int bits) { return (word >> bits) | (word << (32 - bits)); }

}  // namespace

Sha256Stream::Sha256Stream()
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256Stream::absorb_block(const uint8_t *block) {
  std::array<uint32_t, 64> schedule{};
  for (int word_idx = 0; word_idx < 16; ++word_idx)
    schedule[word_idx] = (uint32_t{block[4 * word_idx]} << 24) | (uint32_t{block[4 * word_idx + 1]} << 16) |
                         (uint32_t{block[4 * word_idx + 2]} << 8) | uint32_t{block[4 * word_idx + 3]};
  for (int word_idx = 16; word_idx < 64; ++word_idx) {
    uint32_t w15 = schedule[word_idx - 15];
    uint32_t w2 = schedule[word_idx - 2];
    uint32_t sigma0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3);
    uint32_t sigma1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10);
    schedule[word_idx] = schedule[word_idx - 16] + sigma0 + schedule[word_idx - 7] + sigma1;
  }
  std::array<uint32_t, 8> v = h_;  // a..h
  for (int round_idx = 0; round_idx < 64; ++round_idx) {
    uint32_t big_sigma1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
    uint32_t choose = (v[4] & v[5]) ^ (~v[4] & v[6]);
    uint32_t t1 = v[7] + big_sigma1 + choose + kRound[round_idx] + schedule[round_idx];
    uint32_t big_sigma0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
    uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
    uint32_t t2 = big_sigma0 + majority;
    for (int shift_idx = 7; shift_idx > 0; --shift_idx) v[shift_idx] = v[shift_idx - 1];
    v[4] += t1;
    v[0] = t1 + t2;
  }
  for (int word_idx = 0; word_idx < 8; ++word_idx) h_[word_idx] += v[word_idx];
}

void Sha256Stream::add(const void *data, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  length_ += size;
  while (size > 0) {
    size_t take = std::min(size, pending_.size() - pending_size_);
    std::copy(bytes, bytes + take, pending_.begin() + static_cast<std::ptrdiff_t>(pending_size_));
    pending_size_ += take;
    bytes += take;
    size -= take;
    if (pending_size_ == pending_.size()) {
      absorb_block(pending_.data());
      pending_size_ = 0;
    }
  }
}

std::string Sha256Stream::finish_hex() {
  uint64_t bit_length = length_ * 8;
  const uint8_t one_bit = 0x80;
  add(&one_bit, 1);
  const uint8_t zero = 0;
  while (pending_size_ != 56) add(&zero, 1);
  uint8_t length_bytes[8];
  for (int byte_idx = 0; byte_idx < 8; ++byte_idx)
    length_bytes[byte_idx] = static_cast<uint8_t>(bit_length >> (56 - 8 * byte_idx));
  add(length_bytes, 8);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(64);
  for (uint32_t word : h_)
    for (int shift = 28; shift >= 0; shift -= 4) hex.push_back(kHex[(word >> shift) & 0xf]);
  return hex;
}

std::string sha256_of(std::string_view data) {
  Sha256Stream stream;
  stream.add(data);
  return stream.finish_hex();
}

std::optional<std::string> sha256_of_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  Sha256Stream stream;
  std::vector<char> chunk(1 << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    std::streamsize got = in.gcount();
    if (got > 0) stream.add(chunk.data(), static_cast<size_t>(got));
  }
  if (in.bad()) return std::nullopt;
  return stream.finish_hex();
}

}  // namespace pb::bench
