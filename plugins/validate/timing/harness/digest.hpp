//===- digest.hpp - SHA-256 for plan hashes and journal fingerprints -------===//
//
// The harness is a plugin and may not link host code, so it carries its own
// FIPS 180-4 SHA-256 (checked against the standard test vectors in
// tests/timing/test_digest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_DIGEST_HPP
#define PERFBOUND_TIMING_DIGEST_HPP

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pb::bench {

class Sha256Stream {
 public:
  Sha256Stream();
  void add(const void *data, size_t size);
  void add(std::string_view text) { add(text.data(), text.size()); }
  /// Lowercase hex digest; the stream must not be used afterwards.
  std::string finish_hex();

 private:
  void absorb_block(const uint8_t *block);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> pending_{};
  size_t pending_size_ = 0;
  uint64_t length_ = 0;
};

std::string sha256_of(std::string_view data);
/// nullopt when the file cannot be read.
std::optional<std::string> sha256_of_file(const std::filesystem::path &path);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_DIGEST_HPP
