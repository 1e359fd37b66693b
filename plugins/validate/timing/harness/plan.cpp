//===- plan.cpp - bench plans ----------------------------------------------===//
#include "plan.hpp"

#include <map>
#include <set>

#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/sha256.hpp>
#include "process.hpp"
#include "protocol.hpp"
#include "shard.hpp"
#include "testlist.hpp"

namespace pb::bench {

namespace {

std::string case_name(const GemmShape &shape) {
  return "gemm_m" + std::to_string(shape.m) + "_n" + std::to_string(shape.n) + "_k" + std::to_string(shape.k) + "_" +
         std::string(dtype_name(shape.a)) + "_" + std::string(dtype_name(shape.b)) + "_" +
         std::string(dtype_name(shape.out));
}

uint64_t scaled(uint64_t value, uint64_t divisor) { return std::max<uint64_t>(1, value / divisor); }

}  // namespace

json build_plan(const PlanOptions &options, const Backend &backend) {
  if (options.testlists.empty()) throw pb::sdk::InputError("no testlist given (--testlist FILE)");
  if (options.shape_divisor == 0) throw pb::sdk::InputError("--shape-divisor must be at least 1");
  json plan;
  plan["schema"] = kPlanSchema;
  plan["protocol"] = protocol_json();
  plan["backend"] = json{{"name", backend.name()}, {"plugin", backend.listing().plugin_id}};
  plan["shape_divisor"] = options.shape_divisor;
  plan["hardware_profile"] = options.profile_ref.is_null()
                                 ? json(nullptr)
                                 : json{{"name", options.profile_ref.value("name", "")},
                                        {"sha256", options.profile_ref.value("sha256", "")},
                                        {"capacities", options.profile_capacities}};
  plan["testlists"] = json::array();
  json cases = json::array();
  std::set<std::string> stems;
  std::set<std::string> dtypes;
  for (const fs::path &path : options.testlists) {
    Testlist list = load_testlist(path);
    std::string stem = path.stem().string();
    if (!stems.insert(stem).second)
      throw pb::sdk::InputError(path.string() + ": two testlists are named '" + stem + "'; case ids would collide");
    plan["testlists"].push_back(json{{"file", path.filename().string()}, {"sha256", list.sha256}, {"entries", list.entries.size()}});
    for (const TestlistEntry &entry : list.entries) {
      json plan_case;
      plan_case["id"] = stem + "#" + std::to_string(entry.index);
      plan_case["source"] = json{{"testlist", path.filename().string()}, {"entry", entry.index}, {"line", entry.line}};
      plan_case["type"] = entry.type.empty() ? json(nullptr) : json(entry.type);
      plan_case["roles"] = entry.roles;
      plan_case["sources"] = entry.sources;
      plan_case["phase"] = "measure";
      plan_case["tiling"] = entry.tiling;
      if (!entry.gemm) {
        plan_case["name"] = plan_case["id"];
        plan_case["op"] = nullptr;
        plan_case["status"] = "error";
        plan_case["reason"] = entry.error;
        cases.push_back(plan_case);
        continue;
      }
      GemmShape shape = *entry.gemm;
      shape.m = scaled(shape.m, options.shape_divisor);
      shape.n = scaled(shape.n, options.shape_divisor);
      shape.k = scaled(shape.k, options.shape_divisor);
      plan_case["name"] = case_name(shape);
      plan_case["op"] = json{{"m", shape.m},
                             {"n", shape.n},
                             {"k", shape.k},
                             {"a", dtype_name(shape.a)},
                             {"b", dtype_name(shape.b)},
                             {"out", dtype_name(shape.out)},
                             {"testlist_shape", json{{"m", entry.gemm->m}, {"n", entry.gemm->n}, {"k", entry.gemm->k}}}};
      plan_case["predicted_cost"] = predicted_cost(plan_case["op"], options.profile_document);
      if (auto reason = backend.unsupported(shape)) {
        plan_case["status"] = "error";
        plan_case["reason"] = *reason;
      } else {
        plan_case["status"] = "planned";
        plan_case["reason"] = nullptr;
        for (Dtype dtype : {shape.a, shape.b, shape.out}) dtypes.insert(std::string(dtype_name(dtype)));
      }
      cases.push_back(plan_case);
    }
  }
  // Smoke cases: the cheapest planned case of each dtype combination runs
  // first, so a broken backend or dtype shows up before the long cases.
  std::map<std::string, size_t> cheapest;
  for (size_t case_idx = 0; case_idx < cases.size(); ++case_idx) {
    const json &plan_case = cases[case_idx];
    if (plan_case["status"] != "planned") continue;
    const json &op = plan_case["op"];
    std::string combo = op["a"].get<std::string>() + "," + op["b"].get<std::string>() + "," + op["out"].get<std::string>();
    auto work = [](const json &o) { return o["m"].get<double>() * o["n"].get<double>() * o["k"].get<double>(); };
    auto it = cheapest.find(combo);
    if (it == cheapest.end() || work(op) < work(cases[it->second]["op"])) cheapest[combo] = case_idx;
  }
  json smoke_ids = json::array();
  for (const auto &[combo, case_idx] : cheapest) {
    (void)combo;
    cases[case_idx]["phase"] = "smoke";
    smoke_ids.push_back(cases[case_idx]["id"]);
  }
  plan["phases"] = json::array({"smoke", "measure"});
  plan["smoke_case_ids"] = smoke_ids;
  plan["dtypes"] = json(std::vector<std::string>(dtypes.begin(), dtypes.end()));
  plan["cases"] = cases;
  if (options.shards > 0) plan["sharding"] = sharding_table(plan, options.shards);
  plan["plan_sha256"] = plan_digest(plan);
  return plan;
}

std::string plan_digest(const json &plan) {
  json copy = plan;
  copy.erase("plan_sha256");
  return pb::sdk::sha256_hex(copy.dump());
}

/// The members `bench run` and `bench slurm` read before a device, checked
/// for their type once here: a plan's hash tells an edited plan from a
/// prepared one, it does not keep hostile content out (anyone can recompute
/// it), and a member of the wrong type must be an error naming the plan, not
/// an escaping JSON exception.
static void check_plan_members(const json &plan, const std::string &where) {
  auto fail = [&where](const std::string &what) { throw pb::sdk::InputError(where + ": " + what + " (prepare the plan again)"); };
  const json &cases = plan.at("cases");
  if (!cases.is_array()) fail("'cases' is not a list");
  for (size_t idx = 0; idx < cases.size(); ++idx) {
    const json &c = cases[idx];
    const std::string at = "cases[" + std::to_string(idx) + "]";
    if (!c.is_object()) fail(at + " is not an object");
    for (const char *key : {"id", "phase", "status"}) {
      auto it = c.find(key);
      if (it != c.end() && !it->is_string()) fail(at + "." + key + " is not a string");
    }
    if (!c.contains("id")) fail(at + " has no id");
    // A planned case has reason null; any other status says why in words.
    auto reason = c.find("reason");
    const bool planned = c.value("status", "") == "planned";
    if (reason != c.end() && !reason->is_string() && !(planned && reason->is_null()))
      fail(at + ".reason is not a string" + std::string(planned ? " or null" : " (the case's status is not 'planned')"));
    // Every row of a case copies its op's members (result.cpp, base_row), whatever its status.
    auto op = c.find("op");
    if (op != c.end() && !op->is_null()) {
      if (!op->is_object()) fail(at + ".op is not an object");
      for (const char *key : {"m", "n", "k", "a", "b", "out", "testlist_shape"})
        if (!op->contains(key)) fail(at + ".op has no '" + key + "'");
    }
  }
  auto sharding = plan.find("sharding");
  if (sharding == plan.end() || sharding->is_null()) return;
  if (!sharding->is_object()) fail("'sharding' is not an object");
  auto count = sharding->find("count");
  auto shards = sharding->find("shards");
  if (count == sharding->end() || !count->is_number_unsigned() || count->get<uint64_t>() == 0)
    fail("sharding.count is not a whole number of shards");
  if (shards == sharding->end() || !shards->is_array() || shards->size() != count->get<uint64_t>())
    fail("sharding.shards does not list sharding.count (" + count->dump() + ") shards");
  for (size_t idx = 0; idx < shards->size(); ++idx) {
    const json &shard = (*shards)[idx];
    auto ids = shard.is_object() ? shard.find("case_ids") : shard.end();
    if (!shard.is_object() || ids == shard.end() || !ids->is_array())
      fail("sharding.shards[" + std::to_string(idx) + "] has no case_ids list");
    for (const json &id : *ids)
      if (!id.is_string()) fail("sharding.shards[" + std::to_string(idx) + "].case_ids holds a non-string");
  }
}

json load_plan(const fs::path &path) {
  // A regular file up to the data-file limit, UTF-8, nested no deeper than
  // the other JSON readers allow; the message names the file (and the line
  // and column of a bad byte or of the bracket past the depth limit).
  std::string error;
  std::optional<std::string> text = pb::sdk::read_json_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!text) throw pb::sdk::InputError(error);
  json plan = json::parse(*text, nullptr, false);
  if (plan.is_discarded())
    throw pb::sdk::InputError(pb::sdk::json_syntax_error_message(*text, path.string()) + " (make one with perfbound bench prepare)");
  if (!plan.is_object())
    throw pb::sdk::InputError(path.string() + ":1: not a JSON object (make one with perfbound bench prepare)");
  if (plan.value("schema", "") != kPlanSchema)
    throw pb::sdk::InputError(path.string() + ": schema is " + plan.value("schema", std::string("(none)")) + ", expected " +
                              kPlanSchema);
  if (!plan.contains("plan_sha256") || !plan.at("plan_sha256").is_string() ||
      plan.at("plan_sha256").get<std::string>() != plan_digest(plan))
    throw pb::sdk::InputError(path.string() + ": the plan's content does not match its plan_sha256; it was edited after "
                              "perfbound bench prepare. Prepare it again.");
  if (plan.value("protocol", json()) != protocol_json())
    throw pb::sdk::InputError(path.string() + ": the plan was prepared for a different timing protocol (" +
                              plan.value("protocol", json()).dump() + "); this perfbound runs " + protocol_json().dump() +
                              ". Prepare it again.");
  for (const char *key : {"backend", "cases", "shape_divisor"})
    if (!plan.contains(key)) throw pb::sdk::InputError(path.string() + ": the plan has no '" + key + "'");
  check_plan_members(plan, path.string());
  return plan;
}

std::vector<json> cases_in_order(const json &plan) {
  std::vector<json> ordered;
  for (const char *phase : {"smoke", "measure"})
    for (const json &plan_case : plan.at("cases"))
      if (plan_case.value("phase", "") == phase) ordered.push_back(plan_case);
  return ordered;
}

}  // namespace pb::bench
