//===- generator.hpp - random well-formed HIVM programs --------------------===//
//
// Writes HIVM functions in the printed form of the real triton-ascend dumps
// (../shared/data/hivm, examples/kernels): AIV-only, AIC-only (nd2nz, mmadL1,
// fixpipe), mix (`_mix_aic` + `_mix_aiv`, sub-block dependent work) and files
// with several functions, built from nested `scf.for` with block-, argument-
// and data-dependent bounds, `arith.select` splits, `affine.min` tails,
// `scf.if` with and without `else` (and with results), `scf.while`, dynamic
// DMA sizes through subviews, vector ops of every class, scalar gathers,
// barriers, flags and cross-core syncs. Every choice comes from a Choices
// source: a seeded generator (ctest, reproducible by seed) or the bytes of a
// fuzzer input. Sizes are kept small so the oracle runs each launch quickly.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_ORACLE_GENERATOR_HPP
#define PERFBOUND_TESTS_ORACLE_GENERATOR_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pb::oracle_test {

/// The source of every decision of the generator.
class Choices {
 public:
  /// Decisions from a seeded splitmix64 stream (the seed itself is mixed first,
  /// so neighbouring seeds give unrelated programs).
  explicit Choices(uint64_t seed) : state_(mix(seed ^ 0x5851F42D4C957F2DULL)) {}
  /// Decisions read from `data` (a fuzzer input); past its end, zeros.
  Choices(const uint8_t *data, size_t size) : bytes_(data), size_(size), from_bytes_(true) {}
  /// A number in [0, bound) (0 when bound is 0).
  uint64_t below(uint64_t bound);
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo + 1))); }
  bool percent(unsigned p) { return below(100) < p; }
  template <class T>
  const T &pick(const std::vector<T> &v) { return v[below(v.size())]; }

 private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t state_ = 0;
  const uint8_t *bytes_ = nullptr;
  size_t size_ = 0, at_ = 0;
  bool from_bytes_ = false;
};

struct Program {
  std::string text;            // the dump
  nlohmann::json launch;       // grid and args (data and trips are the check's to add)
  /// Index tensors (Triton position -> contents) loads read control values from:
  /// the data world the check gives the oracle, and optionally the extractor.
  std::map<std::string, std::vector<int64_t>> index_data;
  std::string features;        // what the program uses, for reports
};

struct GeneratorOptions {
  int max_depth = 3;        // nested regions
  int max_statements = 28;  // statements per function (roughly)
};

Program generate(Choices &choices, const GeneratorOptions &options = {});

}  // namespace pb::oracle_test

#endif  // PERFBOUND_TESTS_ORACLE_GENERATOR_HPP
