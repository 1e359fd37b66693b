//===- protocol.cpp - protocol record, upper median, TFLOPS, flag checks ---===//
#include "protocol.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <vector>

namespace pb::bench {

json protocol_json() {
  return json{{"revision", kProtocolRevision},
              {"warmup_calls", kWarmupCalls},
              {"ramp_min_ms", kRampMinMs},
              {"first_op_ramp_min_ms", kFirstOpRampMinMs},
              {"samples", kSampleCount},
              {"statistic", std::string(kStatisticName)},
              {"statistic_definition", std::string(kStatisticDefinition)},
              {"tflops_definition", std::string(kTflopsDefinition)},
              {"shield_timeout_s", kShieldTimeoutS},
              {"flush", "before each sample, outside the event brackets"},
              {"queue", "all samples enqueued behind one launch shield, then one synchronize"}};
}

std::optional<double> upper_median(std::span<const double> samples_us) {
  if (samples_us.size() != static_cast<size_t>(kSampleCount)) return std::nullopt;
  std::vector<double> sorted(samples_us.begin(), samples_us.end());
  for (double sample : sorted)
    if (!std::isfinite(sample)) return std::nullopt;
  std::sort(sorted.begin(), sorted.end());
  return sorted[kStatisticIndex];
}

std::optional<double> gemm_tflops(uint64_t m, uint64_t n, uint64_t k, double latency_us) {
  if (!(latency_us > 0) || !std::isfinite(latency_us)) return std::nullopt;
  double flop = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return flop / (latency_us * 1e6);
}

namespace {

struct ProtocolFlag {
  std::string_view flag;
  double value;
  std::string_view what;
};

constexpr ProtocolFlag kFlags[] = {
    {"--samples", kSampleCount, "samples"},
    {"--warmups", kWarmupCalls, "warmup calls"},
    {"--warmup-ms", kRampMinMs, "ms of wall-clock ramp"},
    {"--first-warmup-ms", kFirstOpRampMinMs, "ms of ramp for a worker's first case"},
};

std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> check_protocol_flag(std::string_view flag, std::string_view value) {
  for (const ProtocolFlag &known : kFlags) {
    if (known.flag != flag) continue;
    std::optional<double> parsed = parse_number(value);
    if (parsed && *parsed == known.value) return std::nullopt;
    char expected[32];
    auto [ptr, ec] = std::to_chars(expected, expected + sizeof expected, static_cast<long long>(known.value));
    (void)ec;
    return std::string(flag) + " " + std::string(value) + ": the queued protocol uses exactly " +
           std::string(expected, ptr) + " " + std::string(known.what) +
           "; the protocol constants are fixed (docs/timing.md), so results stay comparable";
  }
  assert(false && "check_protocol_flag: unknown protocol flag");
  return "unknown protocol flag " + std::string(flag);
}

}  // namespace pb::bench
