//===- fuzz_plan.cpp - libFuzzer target: bench plans -------------------------===//
//
// A perfbound.bench_plan/1 file as `perfbound bench run` and `bench slurm`
// read it before any device is touched: load_plan (schema, plan_sha256,
// protocol), the execution order, the fingerprint's case ids, the backend
// and sharding members, the case ids of the first and last shard, and per
// case what Runner::run_case does before the device: the unmeasured row of
// an error case, or shape_of_case and the capacity preflight.
//
// Each input is read twice: as it is (a mutated plan almost never keeps its
// hash, so this mostly exercises the refusal), and, when it is a JSON
// object, with plan_sha256 recomputed, as anyone editing a plan can do, so
// the readers after the hash check see the mutated content. InputError is
// the reader refusing the plan; any other exception escaping is a finding
// (`bench` reports it as "internal error" without naming the plan).
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

#include <perfbound/sdk/json.hpp>

#include "fuzz_target.hpp"
#include "harness/measure.hpp"
#include "harness/plan.hpp"
#include "harness/preflight.hpp"
#include "harness/result.hpp"
#include "harness/shard.hpp"

namespace fs = std::filesystem;
using pb::bench::json;

namespace {

void read_like_a_run(json plan) {  // a copy: the readers below use operator[] as run and slurm do
  (void)pb::bench::cases_in_order(plan);
  json case_ids = json::array();  // Runner::prepare_fingerprint
  for (const json &plan_case : plan.at("cases")) case_ids.push_back(plan_case.value("id", ""));
  (void)plan["backend"].value("plugin", "");  // Runner::setup, bench slurm
  (void)plan["backend"].value("name", "");
  const uint32_t recorded = plan.contains("sharding") ? plan["sharding"].value("count", 0u) : 0u;  // bench slurm
  const uint32_t count = recorded > 0 && recorded <= pb::bench::kMaxShards ? recorded : 2;
  for (uint32_t index : {0u, count - 1}) (void)pb::bench::shard_case_ids(plan, pb::bench::ShardSpec{index, count});
  const json capacities = plan.value("hardware_profile", json(nullptr)).is_object()
                              ? plan["hardware_profile"].value("capacities", json(nullptr))
                              : json(nullptr);
  for (const json &plan_case : pb::bench::cases_in_order(plan)) {  // Runner::run_case up to the device
    if (plan_case.value("status", "") != "planned") {
      (void)pb::bench::make_unmeasured_row(plan_case, "error", plan_case.value("reason", std::string("not runnable")),
                                           nullptr, nullptr, nullptr, nullptr);
      continue;
    }
    const pb::bench::GemmShape shape = pb::bench::shape_of_case(plan_case);
    json preflight = pb::bench::preflight_gemm(shape, plan_case.value("tiling", json(nullptr)), capacities);
    if (preflight["status"] == "exceeds" || preflight["status"] == "unverified")
      (void)pb::bench::make_unmeasured_row(plan_case, "skipped", preflight["reason"].get<std::string>(),
                                           preflight["skipped_reason"], preflight, nullptr, nullptr);
  }
}

void load_and_read(const fs::path &path, std::string_view text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  try {
    read_like_a_run(pb::bench::load_plan(path));
  } catch (const pb::sdk::InputError &) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const struct TempFile {  // removed at exit (not after a crash: the input is in the artifact)
    fs::path path = fs::temp_directory_path() / ("perfbound_fuzz_plan_" + std::to_string(getpid()) + ".json");
    ~TempFile() {
      std::error_code ec;
      fs::remove(path, ec);
    }
  } temp;
  const fs::path &path = temp.path;
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  load_and_read(path, text);
  json plan = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!plan.is_object()) return 0;
  plan["plan_sha256"] = pb::bench::plan_digest(plan);
  load_and_read(path, plan.dump());
  return 0;
}
