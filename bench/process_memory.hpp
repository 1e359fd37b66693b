//===- process_memory.hpp - this process's resident set, for the benches ---===//
//
// Linux /proc/self/status fields and the peak (VmHWM) reset the memory
// figures of the benchmarks and drivers read (bench/ttir, bench/hivm).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_BENCH_PROCESS_MEMORY_HPP
#define PERFBOUND_BENCH_PROCESS_MEMORY_HPP

#include <cstdlib>
#include <fstream>
#include <string>

namespace pb::bench_support {

/// A field of /proc/self/status in MiB (VmRSS, VmHWM, RssAnon, RssFile), 0 when absent.
inline double status_mib(const char *field) {
  std::ifstream in("/proc/self/status");
  const std::string key = std::string(field) + ":";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::strtod(line.c_str() + key.size(), nullptr) / 1024.0;
  return 0;
}

/// Resets VmHWM to the current resident set (Linux >= 4.0); false if it cannot.
inline bool reset_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace pb::bench_support

#endif  // PERFBOUND_BENCH_PROCESS_MEMORY_HPP
