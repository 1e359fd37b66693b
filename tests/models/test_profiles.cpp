//===- test_profiles.cpp - one pipeline, three targets, no rebuild --------===//
//
// The same pipeline on the same kernel under --profile ascend_910b3,
// ascend_910b1 and ascend_950pr gives different, correctly scaled results
// (hand-derived from each profile.toml; docs/profiles.md §6), and a value a
// profile marks unknown comes out as null with the profile's reason, never 0.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "models_test_util.hpp"
#include "rates.hpp"
#include "terms.hpp"

using modelstest::component;
using modelstest::json;
using modelstest::seconds;
using modelstest::term;

namespace {

modelstest::RunOut vector_add(const std::string &profile) {
  return modelstest::run_pipeline(
      modelstest::pipeline("bound.toml"),
      {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
       "hivm=" + modelstest::example("vector_add.npuir.mlir"), "--profile", profile, "--set",
       "launch={grid=[8192,1,1],args={n_elements=16777216,\"3\"=16777216}}"});
}

}  // namespace

TEST_CASE("profiles: the vector add bound scales with each target's cores, clock and HBM") {
  modelstest::RunOut b3 = vector_add("ascend_910b3");
  modelstest::RunOut b1 = vector_add("ascend_910b1");
  modelstest::RunOut pr = vector_add("ascend_950pr");

  // DSL memory, 201326592 B at each chip's HBM rate: 910B3 max(1.8 TB/s,
  // calibrated 1.5546) = 1.8 -> 111.848107 us; 910B1 1.8 TB/s -> the same
  // (ratio 1); 950PR 1.6 TB/s -> 125.82912 us (ratio 1.8 / 1.6 = 1.125).
  double m3 = seconds(term(b3.report, "memory", "dsl")["value"]);
  double m1 = seconds(term(b1.report, "memory", "dsl")["value"]);
  double m5 = seconds(term(pr.report, "memory", "dsl")["value"]);
  CHECK(m3 == doctest::Approx(111.848107e-6).epsilon(1e-6));
  CHECK(m1 == doctest::Approx(111.848107e-6).epsilon(1e-6));
  CHECK(m5 == doctest::Approx(125.82912e-6).epsilon(1e-6));
  CHECK(m5 / m3 == doctest::Approx(1.125).epsilon(1e-9));

  // HIVM vector component: 32 repeats per block x waves at 1 repeat/cycle:
  // 910B3 ceil(8192/40) = 205 waves at 1.8 GHz = 3.644444 us; 910B1
  // ceil(8192/48) = 171 at 1.8 GHz = 3.04 us; 950PR ceil(8192/56) = 147 at
  // 1.65 GHz = 2.850909 us. Ratios 171/205 = 0.8341 and (147/1.65)/(205/1.8)
  // = 0.7823: 1/(AIV x clock) up to the tail wave.
  double v3 = component(term(b3.report, "component_floor", "hivm"), "aiv", "vector");
  double v1 = component(term(b1.report, "component_floor", "hivm"), "aiv", "vector");
  double v5 = component(term(pr.report, "component_floor", "hivm"), "aiv", "vector");
  CHECK(v3 == doctest::Approx(3.644444e-6).epsilon(1e-5));
  CHECK(v1 == doctest::Approx(3.04e-6).epsilon(1e-5));
  CHECK(v5 == doctest::Approx(2.850909e-6).epsilon(1e-5));
  CHECK(v1 / v3 == doctest::Approx(171.0 / 205.0).epsilon(1e-9));
  CHECK(v5 / v3 == doctest::Approx((147.0 / 1.65) / (205.0 / 1.8)).epsilon(1e-9));

  // Only the 910B3 has a calibration (packet efficiency): its HIVM memory
  // term is 146.972 us; the others take the cold-cache floor at their HBM
  // peak. Every one is argued (the L2 state is not stated, docs/model.md
  // §3.3); with cache = "cold" the 910B1's is strict. The 950PR's rates are
  // all argued (no public 950 figure), so its vector component is too.
  CHECK(term(b3.report, "memory", "hivm")["assurance"] == "argued");
  CHECK(term(b1.report, "memory", "hivm")["assurance"] == "argued");
  CHECK(seconds(term(b1.report, "memory", "hivm")["value"]) == doctest::Approx(111.848107e-6).epsilon(1e-6));
  CHECK(seconds(term(pr.report, "memory", "hivm")["value"]) == doctest::Approx(125.82912e-6).epsilon(1e-6));
  CHECK(b3.report["profile"]["name"] == "ascend_910b3");
  CHECK(pr.report["profile"]["name"] == "ascend_950pr");
}

TEST_CASE("profiles: 950PR values marked unknown come out null with the profile's reason") {
  namespace m = pb::models;
  json profile = modelstest::profile("ascend_950pr");
  m::Rates rates = m::Rates::from_profile(profile, "ascend_950pr");
  CHECK_FALSE(rates.l2().known());
  CHECK(rates.l2().record.reason.find("no public 950 L2 size") != std::string::npos);
  m::Rate<pb::units::BytesPerSecond> l0c_to_ub = rates.path("cc_to_ub");
  CHECK_FALSE(l0c_to_ub.known());
  CHECK(l0c_to_ub.record.reason.find("new 950 path") != std::string::npos);
  CHECK_FALSE(rates.vector_latency().known());

  // A fixpipe L0C -> UB transfer (a 950-only path) on 950PR: the fixpipe
  // component is not counted (absent, not 0) and the term says why.
  json program = json::parse(R"({"schema":"perfbound.hivm_program/1","blocks":{"value":56},
    "functions":[{"index":0,"name":"@k_mix_aic","core":"aic","instances_per_block":1},
                 {"index":1,"name":"@k_mix_aiv","core":"aiv","instances_per_block":2}],
    "ops":[{"id":0,"op":"hivm.hir.fixpipe","line":7,"class":"dma","core":"aic","pipes":["FIX"],
            "count":{"value":1,"min":1,"max":1,"exact":true},"instructions":{"scalar":0,"issued":1},
            "exec":{"bytes":65536,"src":"cc","dst":"ub","path":"cc_to_ub"},"block":{"bytes":65536,"issued_instructions":1}}],
    "loops":[],"fallbacks":[],"sync":{"barriers":[],"component_edges":[]}})");
  m::HivmView view = m::HivmView::from_json(program, "test");
  m::Term t = m::component_floor_hivm(view, rates, m::TermOptions{});
  bool fix = false;
  for (const m::ComponentValue &cv : t.per_component) fix = fix || cv.component == "fixpipe";
  CHECK_FALSE(fix);
  bool said = false;
  for (const m::NotCounted &n : t.not_counted)
    said = said || (n.what.find("fixpipe") != std::string::npos && n.reason.find("new 950 path") != std::string::npos);
  CHECK(said);
  // With nothing else to count, the floor is unknown (null + reason), not 0.
  json doc = t.to_json();
  CHECK(doc["value"]["value"].is_null());
  CHECK(doc["value"]["reason"].is_string());
}
