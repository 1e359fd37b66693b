//===- test_sweep.cpp - DSL-tier bounds of many launches, in closed form --===//
#include <doctest/doctest.h>

#include <sstream>

#include "models_test_util.hpp"
#include "rates.hpp"
#include "sweep.hpp"

namespace m = pb::models;
using modelstest::json;

namespace {

json vector_add_facts() {
  return modelstest::run_pipeline(modelstest::pipeline("bound_dsl.toml"),
                                  {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
                                   "launch={grid=[8192,1,1],args={n_elements=16777216}}"})
      .facts;
}

m::Rates rates_910b3() { return m::Rates::from_profile(modelstest::profile("ascend_910b3"), "ascend_910b3"); }

}  // namespace

TEST_CASE("sweep: vector add over n, grid = cdiv(n, 2048)") {
  json facts = vector_add_facts();
  REQUIRE(facts["schema"] == "perfbound.dsl_facts/1");
  m::Rates rates = rates_910b3();
  m::SweepModel model = m::SweepModel::build(facts, rates, "facts");
  json spec = json::parse(R"J({"args":{"n_elements":[1048576,16777216,16777215]},"grid_from":{"x":"cdiv(n_elements, 2048)"}})J");
  std::vector<m::SweepConfig> configs = model.expand(spec, "spec");
  REQUIRE(configs.size() == 3);
  CHECK(configs[0].grid[0] == 512);
  CHECK(configs[2].grid[0] == 8192);

  // n = 1048576, 512 programs: 3 accesses x min(n, 512 x 2048) x 4 B =
  // 12582912 B at min(40 x 460.8 GB/s, 1.8 TB/s) = 1.8e12 -> 6.990507 us.
  m::SweepResult small = model.evaluate(configs[0]);
  CHECK(small.bound == doctest::Approx(6.990507e-6).epsilon(1e-6));
  CHECK(std::string(m::sweep_term_name(small.binding)) == "memory");
  CHECK_FALSE(small.partial);
  // The base launch reproduces the DSL memory term: 201326592 B -> 111.848107 us.
  CHECK(model.evaluate(configs[1]).bound == doctest::Approx(111.848107e-6).epsilon(1e-6));
  // n = 16777215 (one element short): the tail masks it, 3 x 16777215 x 4 B.
  CHECK(model.evaluate(configs[2]).bound == doctest::Approx(3 * 16777215.0 * 4 / 1.8e12).epsilon(1e-9));

  // Each n is its own problem: nothing is compared across them, so nothing
  // is pruned (issue 26: an autotuner compares configurations of one problem).
  json apart = model.run(configs, std::nullopt, 1.5);
  CHECK(apart["summary"]["pruned"] == 0);
  CHECK(apart["summary"]["problems"] == 3);
  // n named a tuning argument: one problem. With factor 1.5, everything above
  // 1.5 x 6.990507 us goes, named by the term that makes it slower.
  model.read_tuning(json::parse(R"({"tuning":["n_elements"]})"), "spec");
  json doc = model.run(configs, std::nullopt, 1.5);
  CHECK(doc["best"]["index"] == 0);
  CHECK(doc["configs"][0]["pruned"] == false);
  CHECK(doc["configs"][1]["pruned"] == true);
  CHECK(doc["configs"][1]["pruned_by"] == "memory");
  CHECK(doc["summary"]["pruned"] == 2);
  // A measured threshold (safe pruning): 130 us keeps the base launch.
  json kept = model.run(configs, 130e-6, 1.5);
  CHECK(kept["configs"][1]["pruned"] == false);
}

TEST_CASE("sweep: a matmul's K loop scales the cube term through its symbolic trip count") {
  std::string ttir = (pbtest::test_source_dir() / "extract_ttir" / "kernels" / "blockptr_matmul.ttir").string();
  json facts = modelstest::run_pipeline(
                   modelstest::pipeline("bound_dsl.toml"),
                   {"--set", "ttir=" + ttir, "--set",
                    "launch={grid=[8,8,1],args={\"3\"=1024,\"4\"=1024,\"5\"=1024,\"6\"=1024,\"7\"=1024,\"8\"=1024}}"})
                   .facts;
  m::SweepModel model = m::SweepModel::build(facts, rates_910b3(), "facts");
  // Base: 4 waves x 33554432 FLOP / 14.7456 TFLOP/s = 9.102222 us (as the
  // component floor). K = 2048: the loop "max(0, cdiv(%arg5, 64))" runs 32
  // times instead of 16, so 18.204444 us; grid 16 x 16 with K = 1024: 256
  // programs on 20 AICs = 13 waves -> 13 x 33554432 / 14.7456e12 = 29.58222 us.
  m::SweepConfig base = model.config_from_json(json::object(), "c");
  CHECK(model.evaluate(base).bound == doctest::Approx(9.102222e-6).epsilon(1e-5));
  m::SweepConfig longer = model.config_from_json(json::parse(R"({"args":{"%arg5":2048}})"), "c");
  m::SweepResult r = model.evaluate(longer);
  CHECK(r.bound == doctest::Approx(18.204444e-6).epsilon(1e-5));
  CHECK(std::string(m::sweep_term_name(r.binding)) == "grid_floor:cube");
  m::SweepConfig wider = model.config_from_json(json::parse(R"({"grid":[16,16,1]})"), "c");
  CHECK(model.evaluate(wider).bound == doctest::Approx(29.582222e-6).epsilon(1e-5));
  // The block-pointer accesses' bytes cannot vary in closed form: a launch
  // that differs from the base drops them and says so.
  CHECK(model.evaluate(wider).partial);
  CHECK_FALSE(model.limitations.empty());
}

TEST_CASE("sweep: a configuration naming an argument the kernel lacks is refused with the key") {
  m::SweepModel model = m::SweepModel::build(vector_add_facts(), rates_910b3(), "facts");
  CHECK_THROWS_WITH_AS(model.expand(json::parse(R"([{"args":{"n":5}}])"), "spec.json"),
                       "spec.json[0].args.n: the kernel has no scalar argument 'n' (it has: n_elements)",
                       pb::sdk::InputError);
}

TEST_CASE("sweep: the streamed JSON document is run()'s document, entry for entry") {
  // `perfbound sweep --format json` writes one configuration at a time
  // (write_json); it must say exactly what the whole document says: every
  // member, the configurations in order, pruning, problems and warnings.
  m::SweepModel model = m::SweepModel::build(vector_add_facts(), rates_910b3(), "facts");
  const json spec = json::parse(
      R"J({"grid":{"x":{"from":1,"to":9000,"mul":3}},"args":{"n_elements":[1024,4096,16777216]},"tuning":[]})J");
  model.read_tuning(spec, "spec");
  std::vector<m::SweepConfig> configs = model.expand(spec, "spec");
  REQUIRE(configs.size() == 27);
  for (const std::optional<double> threshold : {std::optional<double>{}, std::optional<double>{1e-6}}) {
    for (const char *cache : {"unknown", "cold"}) {
      json whole = model.run(configs, threshold, 1.5, cache);
      whole["profile"] = "ascend_910b3";
      std::ostringstream out;
      model.write_json(out, configs, threshold, 1.5, cache, "ascend_910b3");
      const json streamed = json::parse(out.str());
      CHECK(streamed == whole);
      CHECK(whole["problems"].size() == 3);
      CHECK(whole["summary"]["pruned"].get<int>() > 0);
      CHECK(whole["summary"]["grid_does_not_cover"].get<int>() > 0);
    }
  }
  // No configuration: still one valid document.
  std::ostringstream empty;
  model.write_json(empty, {}, std::nullopt, 1.5, "unknown", "p");
  const json none = json::parse(empty.str());
  CHECK(none["configs"] == json::array());
  CHECK(none["summary"]["evaluated"] == 0);
}
