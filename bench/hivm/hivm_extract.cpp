//===- hivm_extract.cpp - one dump through the HIVM extractor, timed -------===//
//
// A driver for profiling (perf, heaptrack) and for checking that a change
// keeps the documents byte-identical: reads one dump (or builds a single
// function of N MiB from one, as BM_AnalyzeSingleFunction does), runs the
// analysis and the document writer once, writes the document to --out and
// prints the input size, CPU seconds, MB/s and peak RSS to stderr.
//
//   perfbound_hivm_extract FILE [--grid A,B,...] [--single-function MIB] [--concat N] [--out PATH]
//
//===----------------------------------------------------------------------===//
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "../big_function.hpp"
#include "analyze.hpp"
#include "document.hpp"
#include "parser.hpp"

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

/// The current resident set (VmRSS) in MiB, 0 when /proc is not there.
double rss_mib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  return 0;
}

int usage() {
  std::cerr << "usage: perfbound_hivm_extract FILE [--grid A,B,...] [--single-function MIB] [--concat N] [--out PATH]\n";
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  std::string path = argv[1], out_path;
  pb::hivm::AnalysisOptions options;
  long single_mib = 0, concat = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string value = argv[++i];
    if (arg == "--grid") {
      options.have_launch = true;
      std::stringstream ss(value);
      for (std::string axis; std::getline(ss, axis, ',');) options.grid.push_back(std::stoll(axis));
    } else if (arg == "--single-function") {
      single_mib = std::stol(value);
    } else if (arg == "--concat") {
      concat = std::stol(value);
    } else if (arg == "--out") {
      out_path = value;
    } else {
      return usage();
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << path << ": cannot open\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (single_mib > 0)
    text = pb::bench_support::single_function(text, "func.func", "\n  return", static_cast<size_t>(single_mib) << 20);
  if (concat > 1) {
    std::string one = std::move(text);
    text.reserve(one.size() * static_cast<size_t>(concat));
    for (long k = 0; k < concat; ++k) text += one;
  }
  const double rss_before = peak_rss_mib();
  const double t0 = cpu_seconds();
  std::string doc;
  try {
    pb::hivm::Program program = pb::hivm::analyze_text(text, options);
    std::fprintf(stderr, "after the analysis: RSS %.1f MiB, peak %.1f MiB, %zu op records\n", rss_mib(), peak_rss_mib(),
                 program.ops.size());
    doc = pb::hivm::to_json_text(program, {path, text.size()}, options);
  } catch (const pb::hivm::SourceError &e) {
    std::cerr << path << ":" << e.line() << ":" << e.col() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << path << ": " << e.what() << "\n";
    return 1;
  }
  const double cpu = cpu_seconds() - t0;
  const double mib = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  const double peak = peak_rss_mib();
  std::fprintf(stderr, "input %.2f MiB  cpu %.3f s  %.2f MB/s  peak RSS %.1f MiB (%.1f before: %.1fx the input)  document %.2f MiB\n",
               mib, cpu, static_cast<double>(text.size()) / 1e6 / cpu, peak, rss_before, (peak - rss_before) / mib,
               static_cast<double>(doc.size()) / (1024.0 * 1024.0));
  if (!out_path.empty()) {
    std::ofstream out(out_path, std::ios::binary);
    out << doc;
    if (!out) {
      std::cerr << out_path << ": cannot write\n";
      return 1;
    }
  }
  return 0;
}
