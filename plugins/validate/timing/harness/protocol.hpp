//===- protocol.hpp - the queued timing protocol; every constant defined once -===//
//
// These are the OperatorX queued-timing constants (research/timing.md §1.1).
// They are not options: the CLI accepts a protocol flag only with the value
// below (check_protocol_flag), plans and journals record protocol_json() and
// refuse anything else, so a number in a result always means the same thing.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_PROTOCOL_HPP
#define PERFBOUND_TIMING_PROTOCOL_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pb::bench {

using json = nlohmann::json;

/// Calls made back to back before anything else, then one synchronize.
inline constexpr int kWarmupCalls = 5;
/// Wall-clock ramp after the warmups: call + synchronize until this much time
/// has passed. Counted warmups are far shorter than a device's clock ramp.
inline constexpr int kRampMinMs = 25;
/// The ramp for the first case a worker process runs: the device starts idle.
inline constexpr int kFirstOpRampMinMs = 1000;
/// Timed samples, all queued behind one launch shield.
inline constexpr int kSampleCount = 10;
/// The statistic is sorted(samples)[kSampleCount / 2]: the upper median.
inline constexpr int kStatisticIndex = kSampleCount / 2;
inline constexpr std::string_view kStatisticName = "upper_median";
inline constexpr std::string_view kStatisticDefinition = "sorted(samples_us)[10 // 2]";
inline constexpr std::string_view kTflopsDefinition = "2 * m * n * k / (latency_us * 1e6)";
/// How long a launch shield may hold the stream before giving up by itself
/// (NVBench's blocking kernel uses the same 30 s).
inline constexpr double kShieldTimeoutS = 30.0;
/// Revision of the protocol as a whole; bump it when any rule above changes.
inline constexpr int kProtocolRevision = 1;

/// The protocol as recorded in plans, journals and results.
json protocol_json();

/// The upper median of exactly kSampleCount samples: sorted[kSampleCount/2].
/// Returns nullopt for any other count, or when a sample is not finite.
std::optional<double> upper_median(std::span<const double> samples_us);

/// GEMM throughput in TFLOP/s from a latency in microseconds; nullopt when
/// the latency is not positive.
std::optional<double> gemm_tflops(uint64_t m, uint64_t n, uint64_t k, double latency_us);

/// The CLI accepts the protocol flags only with the protocol's values, so a
/// script can state them but never change them. Returns the error message for
/// `flag` (e.g. "--samples") given `value`, or nullopt when it is the
/// protocol value. Unknown flags are a programmer error.
std::optional<std::string> check_protocol_flag(std::string_view flag, std::string_view value);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_PROTOCOL_HPP
