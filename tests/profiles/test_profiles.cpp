//===- test_profiles.cpp - profile loading, `profile check|show`, shipped targets ===//
#include <doctest/doctest.h>

#include <cmath>

#include "json_schema.hpp"
#include "profile.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using perfbound::json;

namespace {

fs::path fixtures() { return pbtest::test_source_dir() / "profiles" / "fixtures"; }
fs::path shipped(const std::string &name) { return pbtest::source_dir() / "hardware_profiles" / name; }

double value_at(const json &doc, const std::string &dotted) {
  const json *cursor = &doc;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t dot = dotted.find('.', start);
    std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    REQUIRE_MESSAGE(cursor->contains(part), "missing " << dotted);
    cursor = &(*cursor)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  REQUIRE((*cursor)["value"].is_number());
  return (*cursor)["value"].get<double>();
}

}  // namespace

TEST_CASE("golden `profile check` messages: missing keys, wrong units, bad values, calibration against theory") {
  // One fixture per rule; each .expected file is the exact output a user
  // sees (file:line:col, key, what is wrong), reviewed by hand.
  struct Case {
    const char *name;
    int code;
  };
  for (Case c : {Case{"minimal", 0}, Case{"missing_keys", 3}, Case{"wrong_units", 3}, Case{"bad_values", 3},
                 Case{"cores_mismatch", 3}, Case{"calibration_above_peak", 3}, Case{"unknown_value", 0}}) {
    INFO("fixture " << c.name);
    auto r = pbtest::run_cli({"profile", "check", c.name}, fixtures());
    CHECK(r.code == c.code);
    CHECK(r.out == pbtest::read_file(fixtures() / (std::string(c.name) + ".expected")));
  }
}

TEST_CASE("`profile show` prints canonical values with a human form; --json is the perfbound.profile/1 document") {
  auto r = pbtest::run_cli({"profile", "show", "minimal"}, fixtures());
  CHECK(r.code == 0);
  CHECK(r.out == pbtest::read_file(fixtures() / "minimal.show.expected"));

  auto j = pbtest::run_cli({"profile", "show", "--json", "minimal"}, fixtures());
  REQUIRE(j.code == 0);
  json doc = json::parse(j.out);
  CHECK(doc["schema"] == "perfbound.profile/1");
  // 192 KiB = 196608 B; 1.5 GHz = 1.5e9 Hz; 400 GB/s = 4e11 B/s; 16 GiB =
  // 17179869184 B. The declared form is kept next to the canonical value.
  CHECK(value_at(doc, "buffers.ub") == 196608);
  CHECK(value_at(doc, "clock.frequency") == 1.5e9);
  CHECK(value_at(doc, "memory.hbm_bandwidth") == 4e11);
  CHECK(value_at(doc, "memory.hbm") == 17179869184.0);
  CHECK(doc["buffers"]["ub"]["declared"] == json({{"value", 192}, {"unit", "KiB"}}));
  CHECK(doc["calibration"].is_null());

  auto broken = pbtest::run_cli({"profile", "show", "wrong_units"}, fixtures());
  CHECK(broken.code == 3);
  CHECK(broken.out.empty());
  CHECK(broken.err.find("wrong_units/profile.toml:18:6: error: key 'buffers.ub': unit 'GHz' is a frequency") != std::string::npos);
  auto absent = pbtest::run_cli({"profile", "check", "no_such_profile"}, fixtures());
  CHECK(absent.code == 3);
  CHECK(absent.err.find("hardware profile 'no_such_profile' not found") != std::string::npos);
}

TEST_CASE("a calibration file that is missing or not JSON is an error naming it") {
  pbtest::TempDir tmp;
  const fs::path dir = tmp / "minimal";  // the profile's name
  std::string profile = pbtest::read_file(fixtures() / "minimal" / "profile.toml");
  profile.replace(profile.find("arch = \"test-arch\"\n"), 19, "arch = \"test-arch\"\ncalibration_file = \"cal.json\"\n");
  pbtest::write_file(dir / "profile.toml", profile);
  // calibration_file is on line 7 of the edited profile, its value at column 20.
  perfbound::ProfileLoad missing = perfbound::load_profile(dir);
  CHECK(missing.diagnostics.format() == (dir / "profile.toml").string() + ":7:20: error: key 'calibration_file': '" +
                                            (dir / "cal.json").string() + "' does not exist\n");
  // Line 3 holds the stray comma.
  pbtest::write_file(dir / "cal.json", "{\n  \"schema\": \"perfbound.calibration/1\",\n  ,\n}\n");
  perfbound::ProfileLoad broken = perfbound::load_profile(dir);
  REQUIRE(broken.diagnostics.items().size() == 1);
  CHECK(broken.diagnostics.items()[0].loc.file == (dir / "cal.json").string());
  CHECK(broken.diagnostics.items()[0].loc.line == 3);
  CHECK(broken.diagnostics.items()[0].loc.column == 3);
  CHECK(broken.diagnostics.items()[0].message.rfind("not valid JSON: ", 0) == 0);
}

TEST_CASE("an unknown value is null plus a reason in the document, never a number") {
  perfbound::ProfileLoad load = perfbound::load_profile(fixtures() / "unknown_value");
  REQUIRE_FALSE(load.diagnostics.has_errors());
  const json &l2 = load.document["memory"]["l2"];
  CHECK(l2["value"].is_null());
  CHECK(l2["reason"] == "not published");
  CHECK(l2["unit"] == "B");
}

TEST_CASE("the shipped profiles load without errors and follow the published schema") {
  perfbound::SchemaRegistry schemas;
  REQUIRE(schemas.load_dir(pbtest::source_dir() / "abi" / "schemas").empty());
  for (const char *name : {"ascend_910b3", "ascend_910b1", "ascend_950pr"}) {
    INFO("profile " << name);
    perfbound::ProfileLoad load = perfbound::load_profile(shipped(name));
    CHECK_MESSAGE(!load.diagnostics.has_errors(), load.diagnostics.format());
    std::vector<std::string> problems = schemas.validate("perfbound.profile/1", load.document);
    CHECK_MESSAGE(problems.empty(), (problems.empty() ? std::string() : problems.front()));
    auto r = pbtest::run_cli({"profile", "check", shipped(name).string()});
    CHECK(r.code == 0);
  }
}

TEST_CASE("the three targets differ only in data: cores, clock and buffers as their sources give them") {
  perfbound::ProfileLoad b3 = perfbound::load_profile(shipped("ascend_910b3"));
  perfbound::ProfileLoad b1 = perfbound::load_profile(shipped("ascend_910b1"));
  perfbound::ProfileLoad pr = perfbound::load_profile(shipped("ascend_950pr"));
  REQUIRE_FALSE(b3.diagnostics.has_errors());
  REQUIRE_FALSE(b1.diagnostics.has_errors());
  REQUIRE_FALSE(pr.diagnostics.has_errors());
  // Chip cube fp16 peak = AIC x 8192 FLOP/cycle x clock:
  //   910B3 20 x 8192 x 1.80e9 = 2.949120e14 (294.9 TFLOPS, ascend.md §3.4)
  //   910B1 24 x 8192 x 1.80e9 = 3.538944e14 (353.9 TFLOPS)
  //   950PR 28 x 8192 x 1.65e9 = 3.784704e14 (378.5 TFLOPS, ascend.md §3.7)
  auto chip_cube = [](const json &doc) {
    return value_at(doc, "cores.aic") * value_at(doc, "peak.cube_fp16") * value_at(doc, "clock.frequency");
  };
  CHECK(chip_cube(b3.document) == doctest::Approx(2.949120e14));
  CHECK(chip_cube(b1.document) == doctest::Approx(3.538944e14));
  CHECK(chip_cube(pr.document) == doctest::Approx(3.784704e14));
  // UB 192 KiB = 196608 B on dav-c220; 248 KiB = 253952 B on 950 (the
  // compiler's usable size, 512 KB tilesim figure kept as the alternative).
  CHECK(value_at(b3.document, "buffers.ub") == 196608);
  CHECK(value_at(b1.document, "buffers.ub") == 196608);
  CHECK(value_at(pr.document, "buffers.ub") == 253952);
  CHECK(pr.document["buffers"]["ub"]["alternative"]["value"] == 512000);
  // L0C 128 KiB = 131072 B vs 256 KiB = 262144 B.
  CHECK(value_at(b3.document, "buffers.l0c") == 131072);
  CHECK(value_at(pr.document, "buffers.l0c") == 262144);
  // Both 910B clocks record the 1.85 GHz figure they do not use.
  CHECK(b3.document["clock"]["alternatives"][0]["value"] == 1.85e9);
  CHECK(b1.document["clock"]["alternatives"][0]["value"] == 1.85e9);
  // Only the 910B3 has a calibration database.
  CHECK(b3.document["calibration"]["schema"] == "perfbound.calibration/1");
  CHECK(b1.document["calibration"].is_null());
  CHECK(pr.document["calibration"].is_null());
}

TEST_CASE("the 910B3 calibration: every peak is at or below its theoretical figure, every constant is traceable") {
  perfbound::ProfileLoad load = perfbound::load_profile(shipped("ascend_910b3"));
  REQUIRE_FALSE(load.diagnostics.has_errors());
  const json &constants = load.document["calibration"]["constants"];
  size_t peaks = 0;
  for (const auto &[id, c] : constants.items()) {
    INFO("constant " << id);
    CHECK(c["sources"].size() >= 1);
    CHECK(c["sources"][0]["sha256"].get<std::string>().size() == 64);
    if (c["kind"] != "peak") continue;
    ++peaks;
    // A peak names the theoretical figure it is checked against, and the
    // loader accepted it: value <= theoretical (+ CI half-width).
    CHECK(c.contains("theoretical"));
    CHECK(c["statistic"] == "fastest launch");
  }
  // clock, cube fp16/bf16, GM->L1, L1->L0A, L0C->GM, all-core HBM read.
  CHECK(peaks == 7);
  // The whole-task cube rate and the stream copy are diagnostic only.
  CHECK(constants["cube_fp16_task_rate"]["kind"] == "sustained");
  CHECK(constants["hbm_copy_aggregate_rate"]["kind"] == "sustained");
  CHECK(constants["cube_int8_busy_rate"]["kind"] == "sustained");
}

TEST_CASE("profile ranges are sane: every rule's min is below its max and names a canonical dimension") {
  for (const perfbound::RangeRule &rule : perfbound::profile_ranges()) {
    INFO(rule.key);
    CHECK(rule.min > 0);
    CHECK(rule.min < rule.max);
  }
  // Humanised values used in messages and `profile show`.
  CHECK(perfbound::human_quantity(196608, pb::units::Dimension::Bytes) == "192 KiB");
  CHECK(perfbound::human_quantity(1.8e9, pb::units::Dimension::Frequency) == "1.8 GHz");
  CHECK(perfbound::human_quantity(1.6e12, pb::units::Dimension::Bandwidth) == "1.6 TB/s");
  CHECK(perfbound::human_quantity(64e9, pb::units::Dimension::Bytes) == "64 GB");
  CHECK(perfbound::human_quantity(2.5e-6, pb::units::Dimension::Time) == "2.5 us");
}

namespace {

/// Every quantity of a loaded profile document, by dotted key (alternatives
/// are figures not used and are left out).
void quantities(const json &node, const std::string &key, std::vector<std::pair<std::string, const json *>> &out) {
  if (!node.is_object()) return;
  if (node.contains("unit") && (node.contains("value") || node.contains("reason"))) {
    out.emplace_back(key, &node);
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it.key() != "alternative" && it.key() != "calibration")
      quantities(it.value(), key.empty() ? it.key() : key + "." + it.key(), out);
}

/// Why a `theoretical` figure's source names no public document, or "" when
/// it does: the source must cite one after "doc:" (docs/profiles.md §1) and
/// that citation must be more than our own research notes.
std::string undocumented(const json &q) {
  std::string source = q.value("source", std::string());
  if (source.rfind("unverified", 0) == 0) return "the source says it is unverified";
  size_t doc = source.find("doc: ");
  if (doc == std::string::npos) return "the source names no document (no 'doc: ...')";
  std::string cited = source.substr(doc + 5);
  cited = cited.substr(0, cited.find_first_of(";:"));
  if (cited.size() < 8) return "'doc:' is followed by no document";
  if (cited.rfind("ascend.md", 0) == 0) return "the document is our own research notes, not a public one";
  return "";
}

}  // namespace

TEST_CASE("every theoretical figure of a shipped profile names a public document; every rate says its kind") {
  // A lower bound may rest only on a theoretical figure (or a calibrated
  // peak): it must say which public document gives it. A figure no public
  // document gives is `argued` (docs/profiles.md §1, docs/model.md §2).
  int theoretical = 0;
  for (const std::string name : {"ascend_910b3", "ascend_910b1", "ascend_950pr"}) {
    perfbound::ProfileLoad load = perfbound::load_profile(shipped(name));
    REQUIRE_FALSE(load.diagnostics.has_errors());
    std::vector<std::pair<std::string, const json *>> all;
    quantities(load.document, "", all);
    REQUIRE(all.size() > 20);
    for (const auto &[key, q] : all) {
      INFO(name << ": " << key << " source: " << q->value("source", std::string()));
      // Rates a bound divides by: their kind must be written, so a figure
      // cannot become theoretical by leaving its kind out.
      bool rate = key.rfind("peak.", 0) == 0 || key.rfind("paths.", 0) == 0 || key == "memory.hbm_bandwidth" ||
                  key == "vector.repeats_per_cycle";
      if (rate && q->contains("value") && !(*q)["value"].is_null()) CHECK_MESSAGE(q->contains("kind"), "no kind");
      if (q->value("kind", std::string()) != "theoretical") continue;
      ++theoretical;
      std::string why = undocumented(*q);
      CHECK_MESSAGE(why.empty(), why);
    }
  }
  CHECK(theoretical >= 30);  // 910B3 and 910B1 have 16 each
}

TEST_CASE("a source of Unicode spaces only is as blank as one of ASCII spaces") {
  // Before: source = "\u00a0\u3000\u2003" (no-break, ideographic and em
  // spaces) passed `profile check` as a citation; "   " was refused.
  pbtest::TempDir tmp;
  const fs::path dir = tmp / "minimal";
  const std::string original = pbtest::read_file(fixtures() / "minimal" / "profile.toml");
  const std::string cited = "frequency = { value = 1.5, unit = \"GHz\", source = \"test\" }";
  REQUIRE(original.find(cited) != std::string::npos);
  for (const std::string &blankish : {std::string("   "), std::string("\u00a0\u3000\u2003"), std::string("\u200b\ufeff")}) {
    std::string profile = original;
    profile.replace(profile.find(cited), cited.size(), "frequency = { value = 1.5, unit = \"GHz\", source = \"" + blankish + "\" }");
    pbtest::write_file(dir / "profile.toml", profile);
    perfbound::ProfileLoad load = perfbound::load_profile(dir);
    CHECK_MESSAGE(load.diagnostics.format().find("key 'clock.frequency'") != std::string::npos, load.diagnostics.format());
    CHECK(load.diagnostics.has_errors());
  }
  // Text around a space is a source.
  std::string profile = original;
  profile.replace(profile.find(cited), cited.size(), "frequency = { value = 1.5, unit = \"GHz\", source = \"\u00a0a\u3000\" }");
  pbtest::write_file(dir / "profile.toml", profile);
  CHECK_FALSE(perfbound::load_profile(dir).diagnostics.has_errors());
}
