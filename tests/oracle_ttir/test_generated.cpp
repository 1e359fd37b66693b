//===- test_generated.cpp - the differential check on generated kernels ---===//
//
// Seeds 1..N of generator.cpp (N = 400, or PB_ORACLE_TTIR_SEEDS), each
// kernel checked like the shipped ones (differential.hpp). A failing seed is
// printed with its kernel's shape, and its TTIR and launch are written to
// <build>/tests/oracle_ttir/failing/seed_<N>.ttir (+ .json) to become a
// regression kernel. Reproduce one seed:
//   PB_ORACLE_TTIR_SEED=123 build/bin/perfbound_oracle_ttir_tests -tc='generated*'
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <cstdlib>

#include "differential.hpp"
#include "generator.hpp"
#include "support/test_support.hpp"

namespace {

std::uint64_t env_number(const char *name, std::uint64_t fallback) {
  const char *v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 10);
}

}  // namespace

TEST_CASE("generated kernels: the same seed gives the same kernel") {
  oracletest::Generated a = oracletest::generate(7), b = oracletest::generate(7), c = oracletest::generate(8);
  CHECK(a.text == b.text);
  CHECK(a.launch == b.launch);
  CHECK(a.text != c.text);
}

TEST_CASE("generated kernels: the differential check") {
  std::uint64_t first = 1, last = env_number("PB_ORACLE_TTIR_SEEDS", 400);
  if (std::uint64_t one = env_number("PB_ORACLE_TTIR_SEED", 0)) first = last = one;
  const std::filesystem::path failing = pbtest::binary_dir() / "tests" / "oracle_ttir" / "failing";
  int compared = 0, figures = 0, bad = 0, item9 = 0, exact = 0, lower = 0, upper = 0;
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    oracletest::Generated g = oracletest::generate(seed);
    oracletest::Case c;
    c.text = g.text;
    c.origin = "seed_" + std::to_string(seed) + ".ttir";
    c.launch = g.launch;
    c.id = "seed " + std::to_string(seed) + " (" + g.shape + ")";
    oracletest::Outcome o = oracletest::check(c, oracletest::profile("ascend_910b3"));
    // A generated kernel both sides must read and run.
    CHECK_MESSAGE(o.ran, o.summary(c) << "\n" << g.text);
    if (!o.ran) continue;
    ++compared;
    figures += o.compared;
    exact += o.exact;
    lower += o.lower;
    upper += o.upper;
    if (std::getenv("PB_ORACLE_TTIR_VERBOSE")) MESSAGE(o.summary(c));
    for (const oracletest::Finding &f : o.violations)
      if (f.what.find("review item 9") != std::string::npos) {
        ++item9;
        break;
      }
    if (!o.violations.empty()) {
      ++bad;
      std::filesystem::create_directories(failing);
      pbtest::write_file(failing / ("seed_" + std::to_string(seed) + ".ttir"), g.text);
      pbtest::write_file(failing / ("seed_" + std::to_string(seed) + ".json"), g.launch.dump(1) + "\n");
    }
    CHECK_MESSAGE(o.violations.empty(), o.summary(c));
  }
  MESSAGE("generated: seeds " << first << ".." << last << ", " << compared << " compared (" << figures
                              << " figures: " << exact << " exact, " << lower << " lower bounds (terms included), "
                              << upper << " upper estimates), " << bad << " with violations, " << item9
                              << " of them review item 9's (aliasing, own-write reads)");
}
