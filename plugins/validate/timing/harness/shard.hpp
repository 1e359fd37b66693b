//===- shard.hpp - predicted case costs and deterministic plan shards -------===//
//
// A campaign too long for one device is split into shards: `bench prepare
// --shards N` records the split in the plan, `bench run --shard I/N` runs
// shard I (0-based, as SLURM_ARRAY_TASK_ID counts an --array=0-(N-1)).
//
// The split is balanced by a predicted cost: the roofline lower bound of each
// GEMM on the plan's hardware profile, max(FLOP / cube peak, compulsory bytes
// / HBM bandwidth), in microseconds (prepare records it per case as
// `predicted_cost`). Without a profile the cost is the FLOP count. Shards are
// filled greedily, most expensive case first, each into the shard with the
// least cost so far (ties: plan order, then the lowest shard index), so the
// split depends on nothing but the plan. Smoke cases are not split: every
// shard runs all of them first, so each shard (and each device) checks its
// backend before its long cases, and the merged result gets the same cases
// measured on every node to compare (a sick card shows there).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_SHARD_HPP
#define PERFBOUND_TIMING_SHARD_HPP

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pb::bench {

using json = nlohmann::json;

/// The most shards a plan can be split into.
inline constexpr uint32_t kMaxShards = 100000;

struct ShardSpec {
  uint32_t index = 0;  // 0-based
  uint32_t count = 1;
  [[nodiscard]] std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Parses "I/N" (0 <= I < N <= kMaxShards); nullopt plus `error` otherwise.
std::optional<ShardSpec> parse_shard(const std::string &text, std::string &error);

/// The predicted cost of one plan case: {"value", "unit" ("us" or "FLOP"),
/// "basis"}. `profile` is the perfbound.profile/1 document or null.
json predicted_cost(const json &op, const json &profile);

/// The cost of a plan case as a number (0 for error cases).
double case_cost(const json &plan_case);

/// Splits the plan's non-smoke cases into `count` shards. Returns the case
/// ids of each shard, in plan order.
std::vector<std::vector<std::string>> split_plan(const json &plan, uint32_t count);

/// {"count", "method", "cost_unit", "shards": [{"index", "cases",
/// "predicted_cost", "case_ids"}], "balance": {max, min, ratio}}: what
/// prepare --shards records in the plan (smoke cases counted in every shard).
json sharding_table(const json &plan, uint32_t count);

/// The case ids a shard runs: its own cases plus every smoke case. Uses the
/// plan's recorded sharding when it has one (refusing another count).
std::set<std::string> shard_case_ids(const json &plan, const ShardSpec &shard);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_SHARD_HPP
