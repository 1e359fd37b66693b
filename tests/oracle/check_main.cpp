//===- check_main.cpp - perfbound_hivm_oracle_check: reproduce a check ----===//
//
//   perfbound_hivm_oracle_check --seed N [--print] [--regress FILE]
//       generate the program of seed N, check it, print the violations
//       (--print: the program and its launch; --regress: write it as a
//       regression file for tests/oracle/regress/)
//   perfbound_hivm_oracle_check --file F.mlir [--launch JSON] [--seed N]
//       check a dump (a regression file carries its launch on its first line)
//   perfbound_hivm_oracle_check --batch FIRST COUNT [--strict]
//       check COUNT generated programs from seed FIRST and print a summary
//   perfbound_hivm_oracle_check --oracle F.mlir --launch JSON [--trace]
//       print the oracle's counts (per op: block 0, fewest, grid) for a dump
// --strict: report known review items as violations too.
// Exit status: 0 clean, 1 violations, 2 usage or input error.
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "driver.hpp"
#include "oracle.hpp"

namespace {

using pb::oracle_test::Case;
using json = nlohmann::json;

int usage() {
  std::fprintf(stderr,
               "usage: perfbound_hivm_oracle_check --seed N [--print] [--regress FILE] [--strict]\n"
               "       perfbound_hivm_oracle_check --file F.mlir [--launch JSON] [--seed N] [--strict]\n"
               "       perfbound_hivm_oracle_check --batch FIRST COUNT [--strict] [--stop]\n"
               "       perfbound_hivm_oracle_check --oracle F.mlir --launch JSON [--trace]\n");
  return 2;
}

std::string read(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  return {std::istreambuf_iterator<char>(in), {}};
}

int print_oracle(const std::string &path, const json &launch, bool trace) {
  namespace o = pb::hivm::oracle;
  o::Options opt;
  o::apply_profile(pb::oracle_test::profile_document(), opt);
  opt.trace = trace;
  const std::string text = read(path);
  o::Result r = o::run(text, o::launch_from_json(launch), opt);
  std::printf("%lld blocks, %llu op executions\n", static_cast<long long>(r.blocks), static_cast<unsigned long long>(r.executed_ops));
  for (const o::OpStats &s : r.ops) {
    if (s.grid[o::kCount] == 0) continue;
    std::printf("line %u %s [%s]: count block0 %lld min %lld max %lld grid %lld", s.line, s.name.c_str(), o::core_name(s.core),
                static_cast<long long>(s.block0[o::kCount]), static_cast<long long>(s.block_min[o::kCount]),
                static_cast<long long>(s.block_max[o::kCount]), static_cast<long long>(s.grid[o::kCount]));
    for (o::Field f : {o::kBytes, o::kRepeats, o::kFlop, o::kMte1, o::kIterations, o::kGuaranteed})
      if (s.grid[f] != 0)
        std::printf("; %s block0 %lld min %lld grid %lld", o::field_name(f), static_cast<long long>(s.block0[f]),
                    static_cast<long long>(s.block_min[f]), static_cast<long long>(s.grid[f]));
    std::printf("\n");
  }
  for (const auto &[arg, set] : r.dma_read) std::printf("argument %d: %lld unique bytes read by DMA\n", arg, static_cast<long long>(set.size()));
  for (const auto &[arg, set] : r.dma_written)
    std::printf("argument %d: %lld unique bytes written by DMA\n", arg, static_cast<long long>(set.size()));
  if (trace)
    for (size_t b = 0; b < r.trace.size(); ++b) {
      std::printf("block %zu:", b);
      for (const o::TraceEvent &e : r.trace[b]) std::printf(" %u@%u", r.ops[e.op].line, e.instance);
      std::printf("\n");
    }
  std::printf("%s\n", o::work_document(r, path, false).dump(1).c_str());
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    pb::oracle_test::CheckOptions options;
    std::string mode, file, regress_out, launch_text;
    uint64_t seed = 1, first = 1, count = 0;
    bool print = false, stop = false, trace = false, seed_given = false;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--seed") {
        seed = std::stoull(next());
        seed_given = true;
        if (mode.empty()) mode = "seed";
      } else if (a == "--file") {
        mode = "file";
        file = next();
      } else if (a == "--oracle") {
        mode = "oracle";
        file = next();
      } else if (a == "--batch") {
        mode = "batch";
        first = std::stoull(next());
        count = std::stoull(next());
      } else if (a == "--launch") {
        launch_text = next();
      } else if (a == "--regress") {
        regress_out = next();
      } else if (a == "--print") {
        print = true;
      } else if (a == "--strict") {
        options.waive_known = false;
      } else if (a == "--stop") {
        stop = true;
      } else if (a == "--trace") {
        trace = true;
      } else {
        return usage();
      }
    }
    if (mode == "oracle") return print_oracle(file, launch_text.empty() ? json::object() : json::parse(launch_text), trace);
    if (mode == "batch") {
      const auto start = std::chrono::steady_clock::now();
      pb::oracle_test::BatchSummary s = pb::oracle_test::run_batch(first, count, options, stop);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("%s%.1f s (%.2f ms per program)\n", s.str().c_str(), secs, 1000 * secs / std::max<uint64_t>(1, s.programs));
      return s.failed > 0 ? 1 : 0;
    }
    Case c;
    if (mode == "seed") {
      c = pb::oracle_test::generated_case(seed);
    } else if (mode == "file") {
      const std::string text = read(file);
      if (text.rfind(pb::oracle_test::kRegressPrefix, 0) == 0) {
        c = pb::oracle_test::regress_case(file);
      } else {
        c.name = file;
        c.text = text;
      }
      if (!launch_text.empty()) c.launch = json::parse(launch_text);
      if (seed_given) c.seed = seed;
    } else {
      return usage();
    }
    if (print) std::printf("%s\n", pb::oracle_test::regress_text(c).c_str());
    if (!regress_out.empty()) {
      std::ofstream out(regress_out, std::ios::binary);
      out << pb::oracle_test::regress_text(c);
      if (!out) throw std::runtime_error(regress_out + ": cannot write");
    }
    options.seed = c.seed;
    pb::oracle_test::CheckReport r = pb::oracle_test::check_program(c.text, c.launch, c.index_data, options, c.name);
    if (r.skipped) {
      std::printf("%s: skipped: %s\n", c.name.c_str(), r.skip_reason.c_str());
      return 0;
    }
    std::printf("%s", pb::oracle_test::describe(c, r).c_str());
    return r.violations.empty() ? 0 : 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "perfbound_hivm_oracle_check: %s\n", e.what());
    return 2;
  }
}
