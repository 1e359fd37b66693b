//===- ttir_extract.cpp - one TTIR file through analyze_ttir, its memory ---===//
//
// A driver for profiling (perf, heaptrack) the TTIR front end: reads one
// TTIR file (or builds a single function of N MiB from it, as the
// single_function_MiB benchmark does), runs analyze_ttir once and prints to
// stderr the input size, CPU seconds and the growth of the resident set
// during the call: the peak (VmHWM, reset just before the call) minus the
// resident set before it, split into what the process had not touched
// before (first call) and what a second call of the same input adds.
//
//   perfbound_ttir_extract FILE [--single-function MIB] [--warm-up FILE]
//
// --warm-up runs analyze_ttir once on another file first, so that the
// measured call starts with the process's one-time costs (the code pages of
// libMLIR/libLLVM it touches, LLVM's static registries) already paid: the
// difference between a cold and a warm call of the same input is that
// fixed cost.
//
//===----------------------------------------------------------------------===//
#include <malloc.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "../big_function.hpp"
#include "../process_memory.hpp"
#include "ttir_analysis.hpp"

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

using pb::bench_support::reset_peak;
using pb::bench_support::status_mib;

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << path << ": cannot open\n";
    std::exit(1);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int usage() {
  std::cerr << "usage: perfbound_ttir_extract FILE [--single-function MIB] [--warm-up FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const std::string path = argv[1];
  std::string warm_up;
  long single_mib = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string value = argv[++i];
    if (arg == "--single-function")
      single_mib = std::stol(value);
    else if (arg == "--warm-up")
      warm_up = value;
    else
      return usage();
  }
  std::string text = read_file(path);
  if (single_mib > 0)
    text = pb::bench_support::single_function(text, "tt.func", "tt.return", static_cast<size_t>(single_mib) << 20);
  if (!warm_up.empty()) {
    auto module = perfbound::ttir::analyze_ttir(read_file(warm_up), warm_up);
    if (!module) {
      std::cerr << module.error().message << "\n";
      return 1;
    }
  }
  malloc_trim(0);
  const double rss_before = status_mib("VmRSS"), anon_before = status_mib("RssAnon"),
               file_before = status_mib("RssFile");
  if (!reset_peak()) std::cerr << "note: /proc/self/clear_refs not writable, the peak is the process's\n";
  const double t0 = cpu_seconds();
  size_t kernels = 0;
  {
    auto module = perfbound::ttir::analyze_ttir(text, path);
    if (!module) {
      std::cerr << module.error().message << "\n";
      return 1;
    }
    kernels = module->kernels.size();
    std::fprintf(stderr, "after the call, result alive: RSS %.1f MiB (anon %.1f, file %.1f)\n", status_mib("VmRSS"),
                 status_mib("RssAnon"), status_mib("RssFile"));
  }
  const double cpu = cpu_seconds() - t0;
  const double mib = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  const double growth = status_mib("VmHWM") - rss_before;
  std::fprintf(stderr,
               "input %.3f MiB, %zu kernel(s)  cpu %.3f s  %.2f MB/s  RSS before %.1f MiB (anon %.1f, file %.1f)  "
               "peak growth %.1f MiB = %.1fx the input  after: anon +%.1f MiB, file +%.1f MiB\n",
               mib, kernels, cpu, static_cast<double>(text.size()) / 1e6 / cpu, rss_before, anon_before, file_before,
               growth, growth / mib, status_mib("RssAnon") - anon_before, status_mib("RssFile") - file_before);
  return 0;
}
