//===- plan.hpp - bench plans: testlists turned into a fixed list of cases --===//
//
// `perfbound bench prepare` writes a plan (perfbound.bench_plan/1): the
// backend, the protocol constants, the shape divisor, the hardware profile's
// buffer sizes, and every testlist entry as a case with an id, a phase
// ("smoke" or "measure") and a status ("planned", or "error" with a reason).
// `perfbound bench run` executes only a plan; the plan's SHA-256 (over
// everything but the hash itself) enters the journal fingerprint, so a plan
// edited after preparation is refused.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_PLAN_HPP
#define PERFBOUND_TIMING_PLAN_HPP

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend.hpp"

namespace pb::bench {

inline constexpr const char *kPlanSchema = "perfbound.bench_plan/1";

struct PlanOptions {
  std::vector<std::filesystem::path> testlists;
  /// Every m, n, k is divided by this (floor, at least 1); recorded in the
  /// plan and so in the fingerprint. 1 = the testlist's own shapes.
  uint64_t shape_divisor = 1;
  /// preflight_capacities() of the --profile, or null.
  json profile_capacities;
  /// {"name", "sha256"} of the profile document, or null.
  json profile_ref;
  /// The perfbound.profile/1 document (predicted costs), or null.
  json profile_document;
  /// > 1: record a split into this many shards (shard.hpp).
  uint32_t shards = 0;
};

/// Builds a plan. Entry problems and dtypes the backend cannot run become
/// error cases; only an unreadable testlist throws.
json build_plan(const PlanOptions &options, const Backend &backend);

/// SHA-256 of the plan without its "plan_sha256" member.
std::string plan_digest(const json &plan);

/// Reads and checks a plan file: schema, hash, protocol constants. Throws
/// pb::sdk::InputError naming the file.
json load_plan(const std::filesystem::path &path);

/// The cases of a plan in execution order: smoke phase first.
std::vector<json> cases_in_order(const json &plan);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_PLAN_HPP
