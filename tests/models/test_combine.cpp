//===- test_combine.cpp - the composition rule, the two limits, the invariant
#include <doctest/doctest.h>

#include "combine.hpp"
#include "render.hpp"
#include "render_html.hpp"

namespace m = pb::models;
using pb::sdk::json;

namespace {

m::ComponentValue entry(const std::string &core, const std::string &comp, double value, double strict,
                        m::Assurance a = m::Assurance::Strict) {
  m::ComponentValue cv;
  cv.core = core;
  cv.component = comp;
  cv.value = m::Time::known(value);
  cv.strict_value = m::Time::known(strict);
  cv.assurance = a;
  return cv;
}

m::Term floor_term(const std::string &name, const std::string &tier, std::vector<m::ComponentValue> comps) {
  m::Term t;
  t.name = name;
  t.tier = tier;
  t.role = "floor";
  t.per_component = std::move(comps);
  t.settle();
  return t;
}

m::Term additive_term(const std::string &name, const std::string &tier, std::vector<m::ComponentValue> comps) {
  m::Term t = floor_term(name, tier, std::move(comps));
  t.role = "additive";
  return t;
}

}  // namespace

TEST_CASE("compose: additive time lands on its own component only") {
  // Floors: component floor vector 10 s, mte2 7 s; a memory floor 9 s.
  // Additive 4 s on mte2: max(10, 9, 7 + 4) = 11 on mte2.
  std::vector<m::Term> terms{floor_term("component_floor", "hivm", {entry("aiv", "vector", 10, 10), entry("aiv", "mte2", 7, 7)}),
                             floor_term("memory", "hivm", {entry("", "hbm", 9, 9)}),
                             additive_term("serialization", "hivm", {entry("aiv", "mte2", 4, 0, m::Assurance::Argued)})};
  m::Limit limit = m::compose(terms, "hivm");
  REQUIRE(limit.value.seconds.has_value());
  CHECK(*limit.value.seconds == doctest::Approx(11));
  CHECK(limit.binding_term == "component_floor+serialization");
  CHECK(limit.binding_component == "mte2");
  CHECK(limit.assurance == m::Assurance::Argued);
  // Strict: the argued 4 s contributes its strict value 0: max(10, 9, 7) = 10.
  CHECK(*limit.strict.seconds == doctest::Approx(10));
  CHECK(limit.strict_binding_component == "vector");

  // The same additive on vector: 10 + 4 = 14 (it delays vector, not mte2).
  terms[2] = additive_term("serialization", "hivm", {entry("aiv", "vector", 4, 4)});
  limit = m::compose(terms, "hivm");
  CHECK(*limit.value.seconds == doctest::Approx(14));
  CHECK(limit.binding_component == "vector");
  CHECK(limit.assurance == m::Assurance::Strict);
}

TEST_CASE("compose: diagnostic terms never enter a limit; unknown floors are named") {
  m::Term diag = floor_term("predictor", "hivm", {entry("aiv", "scalar", 1000, 1000)});
  diag.assurance = m::Assurance::Diagnostic;
  m::Term unknown;
  unknown.name = "issue_floor";
  unknown.tier = "hivm";
  unknown.role = "floor";
  unknown.value = m::Time::unknown("block count unknown");
  std::vector<m::Term> terms{diag, unknown, floor_term("memory", "hivm", {entry("", "hbm", 3, 3)})};
  m::Limit limit = m::compose(terms, "hivm");
  CHECK(*limit.value.seconds == doctest::Approx(3));
  REQUIRE(limit.not_counted.size() == 1);
  CHECK(limit.not_counted[0].what == "issue_floor");
  // No term of the tier: null with a reason, never 0.
  m::Limit dsl = m::compose(terms, "dsl");
  CHECK_FALSE(dsl.value.seconds.has_value());
  CHECK(dsl.value.reason == "no dsl-tier term is wired in");
}

TEST_CASE("combine: a DSL limit above the HIVM limit is reported, and the bound takes the larger") {
  m::CombineInputs in;
  in.terms = {floor_term("memory", "dsl", {entry("", "hbm", 20e-6, 20e-6)}),
              floor_term("component_floor", "hivm", {entry("aiv", "vector", 15e-6, 15e-6)})};
  json report = m::combine(in, {});
  CHECK(report["limits"]["invariant"]["holds"] == false);
  std::string message = report["limits"]["invariant"]["message"];
  CHECK(message.rfind("VIOLATED: T_bound_DSL 20 us (memory on hbm) exceeds T_bound_HIVM 15 us", 0) == 0);
  CHECK(report["bound"]["value"] == doctest::Approx(20e-6));
  CHECK(report["bound"]["tier"] == "dsl");
  bool flagged = false;
  for (const json &f : report["findings"]) flagged = flagged || f["category"] == "invariant";
  CHECK(flagged);
}

TEST_CASE("combine: a measurement says how loose the bound is, never changes what binds") {
  // Issue 26: the ratio bound/measured measures the bound's looseness, not the
  // unit; the class stays the binding unit's (docs/model.md §6).
  m::CombineInputs in;
  in.terms = {floor_term("component_floor", "hivm", {entry("aiv", "vector", 50e-6, 50e-6)})};
  m::CombineOptions options;
  options.measured_seconds = 100e-6;  // the bound is 50 % of the measurement
  json report = m::combine(in, options);
  CHECK(report["verdict"]["class"] == "compute-bound");
  CHECK(report["verdict"]["unit"] == "vector");
  const std::string why = report["verdict"]["why"].get<std::string>();
  CHECK(why.find("of the measured") != std::string::npos);
  CHECK(why.find("the rest is time this bound does not model") != std::string::npos);
  CHECK(report["attribution"]["gap"]["value"] == doctest::Approx(50e-6));
  options.measured_seconds = 55e-6;  // 91 %: no word about unmodelled time
  json close = m::combine(in, options);
  CHECK(close["verdict"]["class"] == "compute-bound");
  CHECK(close["verdict"]["why"].get<std::string>().find("the rest is time") == std::string::npos);
}

TEST_CASE("combine: a chip-level launch floor that binds is latency-bound on 'launch', never memory-bound") {
  // A vendor launch-overhead floor (component "launch", no core) above the
  // component floor binds the bound; the verdict names it, not a memory path.
  m::CombineInputs in;
  in.terms = {floor_term("component_floor", "hivm", {entry("aiv", "vector", 1e-6, 1e-6)}),
              floor_term("launch_floor", "hivm", {entry("", "launch", 3e-6, 3e-6)})};
  json report = m::combine(in, {});
  CHECK(report["bound"]["binding_component"] == "launch");
  CHECK(report["verdict"]["class"] == "latency-bound");
  CHECK(report["verdict"]["unit"] == "launch");
  CHECK(report["verdict"]["why"].get<std::string>().find("launch_floor on launch (a chip-level latency") != std::string::npos);
  // Memory paths stay memory-bound, the L2 included.
  in.terms[1] = floor_term("l2_memory", "hivm", {entry("", "l2", 3e-6, 3e-6)});
  CHECK(m::combine(in, {})["verdict"]["class"] == "memory-bound");
  // A component in no class gets no class (and no invented unit), with the reason.
  in.terms[1] = floor_term("vendor_thing", "hivm", {entry("", "dma_engine", 3e-6, 3e-6)});
  json odd = m::combine(in, {});
  CHECK(odd["verdict"]["class"].is_null());
  CHECK(odd["verdict"]["unit"] == "dma_engine");
  CHECK(odd["verdict"]["why"].get<std::string>().find("component 'dma_engine' is none of") != std::string::npos);
  // A term naming no component: class and unit null, never "memory-bound" with an empty unit.
  m::Term bare;
  bare.name = "bare_floor";
  bare.tier = "hivm";
  bare.role = "floor";
  bare.value = m::Time::known(3e-6);
  bare.strict_value = m::Time::known(3e-6);
  in.terms[1] = bare;
  json none = m::combine(in, {});
  CHECK(none["bound"]["binding_term"] == "bare_floor");
  CHECK(none["verdict"]["class"].is_null());
  CHECK(none["verdict"]["unit"].is_null());
  // The renderings say nothing of a unit there is none of (was "unit -").
  for (const std::string &text : {m::render_document(m::kReportSchema, none, "text").value(),
                                   m::render_document(m::kReportSchema, none, "md").value(),
                                   m::render_html(m::kReportSchema, none, nullptr).value()}) {
    CHECK(text.find("no verdict") != std::string::npos);
    CHECK(text.find("no verdict, unit") == std::string::npos);
    CHECK(text.find("no verdict</b>, unit") == std::string::npos);
    CHECK(text.find("unit -") == std::string::npos);
  }
}

TEST_CASE("term documents: a vendor term without 'assurance' is strict only when it says it is sound") {
  json sound = json::parse(R"({"schema":"perfbound.bound_term/1","term":"l2","tier":"hivm","role":"floor",
    "value":{"value":2e-6,"unit":"s"},"rates":[],"work":{},"not_counted":[],"sound":true})");
  CHECK(m::Term::from_json(sound, "x").assurance == m::Assurance::Strict);
  sound["sound"] = false;
  CHECK(m::Term::from_json(sound, "x").assurance == m::Assurance::Diagnostic);
  json bad = sound;
  bad.erase("tier");
  CHECK_THROWS_WITH_AS(m::Term::from_json(bad, "node.port"),
                       "node.port: perfbound.bound_term/1.tier: missing required member", pb::sdk::InputError);
}
