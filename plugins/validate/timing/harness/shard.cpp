//===- shard.cpp - predicted case costs and deterministic plan shards -------===//
#include "shard.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <perfbound/sdk/plugin.hpp>

#include "dtype.hpp"

namespace pb::bench {

namespace {

/// profile[a][b]["value"] as a positive number.
std::optional<double> quantity(const json &profile, const char *table, const char *member) {
  if (!profile.is_object() || !profile.contains(table) || !profile.at(table).is_object()) return std::nullopt;
  const json &entry = profile.at(table).value(member, json(nullptr));
  const json &value = entry.is_object() ? entry.value("value", json(nullptr)) : entry;
  if (!value.is_number() || value.get<double>() <= 0) return std::nullopt;
  return value.get<double>();
}

size_t bytes_of(const json &dtype) {
  std::optional<Dtype> parsed = dtype.is_string() ? parse_dtype(dtype.get<std::string>()) : std::nullopt;
  return parsed ? dtype_size(*parsed) : 4;
}

}  // namespace

std::optional<ShardSpec> parse_shard(const std::string &text, std::string &error) {
  size_t slash = text.find('/');
  auto number = [](const std::string &digits) -> std::optional<uint64_t> {
    if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::nullopt;
    return std::stoull(digits);
  };
  std::optional<uint64_t> index = slash == std::string::npos ? std::nullopt : number(text.substr(0, slash));
  std::optional<uint64_t> count = slash == std::string::npos ? std::nullopt : number(text.substr(slash + 1));
  if (!index || !count) {
    error = "--shard " + text + ": expected I/N, the 0-based shard index I of N shards (e.g. 0/4)";
    return std::nullopt;
  }
  if (*count == 0 || *count > kMaxShards) {
    error = "--shard " + text + ": the shard count must be 1.." + std::to_string(kMaxShards);
    return std::nullopt;
  }
  if (*index >= *count) {
    error = "--shard " + text + ": shard index " + std::to_string(*index) + " is out of range; shards of " +
            std::to_string(*count) + " are numbered 0.." + std::to_string(*count - 1);
    return std::nullopt;
  }
  return ShardSpec{static_cast<uint32_t>(*index), static_cast<uint32_t>(*count)};
}

json predicted_cost(const json &op, const json &profile) {
  double m = op.at("m").get<double>();
  double n = op.at("n").get<double>();
  double k = op.at("k").get<double>();
  double flop = 2 * m * n * k;
  if (profile.is_null())
    return json{{"value", flop}, {"unit", "FLOP"}, {"basis", "2 m n k (no --profile: FLOP count)"}};
  std::optional<double> cores = quantity(profile, "cores", "aic");
  std::optional<double> clock = quantity(profile, "clock", "frequency");
  std::optional<double> hbm = quantity(profile, "memory", "hbm_bandwidth");
  // The cube computes in the operand dtype; with two, the slower one.
  std::optional<double> per_cycle;
  std::string peak_names;
  for (const json &dtype : {op.at("a"), op.at("b")}) {
    std::string name = "cube_" + dtype.get<std::string>();
    std::optional<double> peak = quantity(profile, "peak", name.c_str());
    if (!peak) continue;
    if (!per_cycle || *peak < *per_cycle) {
      per_cycle = peak;
      peak_names = "peak." + name;
    }
  }
  if (!per_cycle) {
    // No cube peak for this dtype (fp64): the slowest cube peak the profile
    // has, so the cost is not underestimated against the other cases.
    if (profile.contains("peak") && profile.at("peak").is_object())
      for (const auto &[name, entry] : profile.at("peak").items()) {
        if (name.rfind("cube_", 0) != 0) continue;
        std::optional<double> peak = quantity(profile, "peak", name.c_str());
        if (peak && (!per_cycle || *peak < *per_cycle)) {
          per_cycle = peak;
          peak_names = "peak." + name + " (the profile has no cube peak for " + op.at("a").get<std::string>() + ")";
        }
      }
  }
  if (!cores || !clock || !per_cycle)
    return json{{"value", flop},
                {"unit", "FLOP"},
                {"basis", "2 m n k (the profile lacks cores.aic, clock.frequency or a cube peak)"}};
  double compute_us = flop / (*cores * *clock * *per_cycle) * 1e6;
  double bytes = m * k * static_cast<double>(bytes_of(op.at("a"))) + n * k * static_cast<double>(bytes_of(op.at("b"))) +
                 m * n * static_cast<double>(bytes_of(op.at("out")));
  double memory_us = hbm ? bytes / *hbm * 1e6 : 0;
  std::string basis = "roofline lower bound max(2 m n k / (cores.aic x clock.frequency x " + peak_names + ")";
  basis += hbm ? ", (m k + n k) operand bytes + m n output bytes / memory.hbm_bandwidth)" : ") (no memory.hbm_bandwidth)";
  return json{{"value", std::max(compute_us, memory_us)}, {"unit", "us"}, {"basis", basis}};
}

double case_cost(const json &plan_case) {
  if (plan_case.value("status", "") != "planned") return 0;
  const json &cost = plan_case.value("predicted_cost", json(nullptr));
  return cost.is_object() && cost.value("value", json(nullptr)).is_number() ? cost["value"].get<double>() : 0;
}

std::vector<std::vector<std::string>> split_plan(const json &plan, uint32_t count) {
  struct Item {
    double cost;
    size_t order;
    std::string id;
  };
  std::vector<Item> items;
  const json &cases = plan.at("cases");
  for (size_t order = 0; order < cases.size(); ++order) {
    const json &plan_case = cases[order];
    if (plan_case.value("phase", "") == "smoke") continue;
    items.push_back({case_cost(plan_case), order, plan_case.value("id", "")});
  }
  std::sort(items.begin(), items.end(), [](const Item &lhs, const Item &rhs) {
    return lhs.cost != rhs.cost ? lhs.cost > rhs.cost : lhs.order < rhs.order;
  });
  std::vector<double> load(count, 0.0);
  std::vector<std::vector<std::pair<size_t, std::string>>> members(count);
  for (const Item &item : items) {
    size_t best = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[best] += item.cost;
    members[best].emplace_back(item.order, item.id);
  }
  std::vector<std::vector<std::string>> shards(count);
  for (uint32_t shard = 0; shard < count; ++shard) {
    std::sort(members[shard].begin(), members[shard].end());
    for (auto &[order, id] : members[shard]) shards[shard].push_back(std::move(id));
  }
  return shards;
}

json sharding_table(const json &plan, uint32_t count) {
  std::map<std::string, double> cost_by_id;
  double smoke_cost = 0;
  std::string unit = "FLOP";
  for (const json &plan_case : plan.at("cases")) {
    double cost = case_cost(plan_case);
    cost_by_id[plan_case.value("id", "")] = cost;
    if (plan_case.value("phase", "") == "smoke") smoke_cost += cost;
    if (plan_case.contains("predicted_cost") && plan_case["predicted_cost"].is_object())
      unit = plan_case["predicted_cost"].value("unit", unit);
  }
  json shards = json::array();
  double max_cost = 0;
  double min_cost = 0;
  std::vector<std::vector<std::string>> split = split_plan(plan, count);
  for (uint32_t shard = 0; shard < count; ++shard) {
    double total = smoke_cost;
    for (const std::string &id : split[shard]) total += cost_by_id[id];
    max_cost = shard == 0 ? total : std::max(max_cost, total);
    min_cost = shard == 0 ? total : std::min(min_cost, total);
    shards.push_back(json{{"index", shard},
                          {"cases", split[shard].size()},
                          {"predicted_cost", total},
                          {"case_ids", split[shard]}});
  }
  return json{{"count", count},
              {"method", "greedy by predicted cost, most expensive case first, into the least-loaded shard (ties: plan "
                         "order, lowest shard); smoke cases run in every shard and are counted in each"},
              {"cost_unit", unit},
              {"smoke_case_ids", plan.value("smoke_case_ids", json::array())},
              {"shards", shards},
              {"balance", json{{"max", max_cost}, {"min", min_cost}, {"max_over_min", min_cost > 0 ? json(max_cost / min_cost) : json(nullptr)}}}};
}

std::set<std::string> shard_case_ids(const json &plan, const ShardSpec &shard) {
  std::set<std::string> ids;
  for (const json &plan_case : plan.at("cases"))
    if (plan_case.value("phase", "") == "smoke") ids.insert(plan_case.value("id", ""));
  const json &recorded = plan.value("sharding", json(nullptr));
  if (recorded.is_object()) {
    uint32_t count = recorded.value("count", 0u);
    if (count != shard.count)
      throw pb::sdk::InputError("--shard " + shard.text() + ": the plan was prepared with --shards " +
                                std::to_string(count) + "; run its shards as I/" + std::to_string(count));
    for (const json &id : recorded.at("shards").at(shard.index).at("case_ids")) ids.insert(id.get<std::string>());
    return ids;
  }
  std::vector<std::vector<std::string>> split = split_plan(plan, shard.count);
  for (std::string &id : split[shard.index]) ids.insert(std::move(id));
  return ids;
}

}  // namespace pb::bench
