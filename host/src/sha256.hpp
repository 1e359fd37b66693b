//===- sha256.hpp - SHA-256 digests for provenance and fingerprints -------===//
//
// Implements FIPS 180-4 SHA-256. Used to fingerprint inputs, profiles and
// plugin libraries in every report.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_SHA256_HPP
#define PERFBOUND_HOST_SHA256_HPP

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "expected.hpp"

namespace perfbound {

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

std::string sha256_hex(std::string_view data);
Expected<std::string> sha256_file(const std::filesystem::path &path);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_SHA256_HPP
