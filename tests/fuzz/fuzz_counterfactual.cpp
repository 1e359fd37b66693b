//===- fuzz_counterfactual.cpp - libFuzzer target: counterfactual configs ---===//
//
// A `perfbound counterfactual` config (TOML) as the command loads it;
// InputError is the reader refusing it.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unistd.h>

#include <perfbound/sdk/json.hpp>

#include "counterfactual.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("perfbound_fuzz_counterfactual_" + std::to_string(getpid()) + ".toml");
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  try {
    perfbound::validate::CounterfactualConfig config = perfbound::validate::load_counterfactual(file);
    (void)config;
  } catch (const pb::sdk::InputError &) {
  }
  return 0;
}
