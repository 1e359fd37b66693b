//===- test_sha256.cpp - SHA-256 against FIPS 180-4 test vectors ----------===//
#include <doctest/doctest.h>

#include "sha256.hpp"

using perfbound::sha256_hex;

TEST_CASE("sha256 matches the FIPS 180-4 example vectors") {
  // FIPS 180-4 / NIST CSRC examples: "abc", the empty string, and the
  // two-block 448-bit message.
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("sha256 gives the same digest when fed in pieces") {
  perfbound::Sha256 h;
  std::string msg(1000, 'a');
  for (size_t off = 0; off < msg.size(); off += 7) h.update(msg.substr(off, 7));
  CHECK(h.hex_digest() == sha256_hex(msg));
}
