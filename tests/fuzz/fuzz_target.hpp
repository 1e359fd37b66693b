//===- fuzz_target.hpp - the libFuzzer entry point every target defines ----===//
#ifndef PERFBOUND_TESTS_FUZZ_TARGET_HPP
#define PERFBOUND_TESTS_FUZZ_TARGET_HPP

#include <cstddef>
#include <cstdint>

/// Runs one input; returns 0 (libFuzzer's contract). A crash, a sanitizer
/// report or an exception escaping is a finding.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif  // PERFBOUND_TESTS_FUZZ_TARGET_HPP
