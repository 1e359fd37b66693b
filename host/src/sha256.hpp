//===- sha256.hpp - SHA-256 digests for provenance and fingerprints -------===//
//
// FIPS 180-4 SHA-256 (the algorithm lives in <perfbound/sdk/sha256.hpp>,
// shared with plugins). Used to fingerprint inputs, profiles and
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

#include <perfbound/sdk/sha256.hpp>

#include "expected.hpp"

namespace perfbound {

/// The SDK's implementation, shared with plugins (one copy of the algorithm).
using Sha256 = pb::sdk::Sha256;

std::string sha256_hex(std::string_view data);
Expected<std::string> sha256_file(const std::filesystem::path &path);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_SHA256_HPP
