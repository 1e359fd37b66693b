//===- sha256.cpp - SHA-256 of text and files (the SDK's implementation) --===//
#include "sha256.hpp"

#include <fstream>

namespace perfbound {

std::string sha256_hex(std::string_view data) { return pb::sdk::sha256_hex(data); }

Expected<std::string> sha256_file(const std::filesystem::path &path) {
  std::ifstream probe(path, std::ios::binary);
  if (!probe) return make_error(path.string() + ": cannot open for hashing");
  std::optional<std::string> digest = pb::sdk::sha256_file(path);
  if (!digest) return make_error(path.string() + ": read error while hashing");
  return *digest;
}

}  // namespace perfbound
