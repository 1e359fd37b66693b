//===- fuzz_profile.cpp - libFuzzer target: hardware profile and calibration loading ---===//
//
// A hardware profile directory as `perfbound profile check` loads it: a copy
// of hardware_profiles/ascend_910b3 with the input as its profile.toml (even
// first byte) or its calibration.json (odd first byte).
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unistd.h>

#include "fuzz_target.hpp"
#include "profile.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fs::path dir = [] {
    // Named as the profile inside it (a profile's name must be its directory's).
    fs::path d = fs::temp_directory_path() / ("perfbound_fuzz_profile_" + std::to_string(getpid())) / "ascend_910b3";
    fs::remove_all(d.parent_path());
    fs::create_directories(d);
    fs::copy(PB_SOURCE_DIR "/hardware_profiles/ascend_910b3", d, fs::copy_options::overwrite_existing);
    return d;
  }();
  static const std::string profile = [] {
    std::ifstream in(dir / "profile.toml", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  static const std::string calibration = [] {
    std::ifstream in(dir / "calibration.json", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  if (size == 0) return 0;
  const bool as_calibration = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);
  {
    std::ofstream(dir / "profile.toml", std::ios::binary | std::ios::trunc) << (as_calibration ? std::string_view(profile) : text);
    std::ofstream(dir / "calibration.json", std::ios::binary | std::ios::trunc)
        << (as_calibration ? text : std::string_view(calibration));
  }
  perfbound::ProfileLoad load = perfbound::load_profile(dir);
  (void)load.diagnostics.format();
  if (!load.diagnostics.has_errors()) {
    (void)load.document.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    (void)perfbound::render_profile_table(load.document);
  }
  return 0;
}
