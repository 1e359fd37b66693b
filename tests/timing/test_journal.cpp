//===- test_journal.cpp - fingerprints, torn lines, corruption -------------===//
#include <doctest/doctest.h>

#include <perfbound/sdk/json.hpp>

#include "harness/journal.hpp"
#include "harness/plan.hpp"
#include "support/test_support.hpp"

namespace bench = pb::bench;
using bench::json;

namespace {

json fingerprint() {
  return json{{"plan", {{"plan_sha256", "aaa"}, {"shape_divisor", 16}}},
              {"source", {{"backend_library", {{"sha256", "111"}}}, {"perfbound", {{"version", "0.1.0"}}}}},
              {"hardware", {{"device", {{"name", "Ascend910B3"}, {"bus_id", "0000:01:00.0"}}}, {"host", "node1"}}}};
}

json header() { return json{{"schema", bench::kJournalHeaderSchema}, {"run_id", "r1"}, {"fingerprint", fingerprint()}}; }

json record(const std::string &case_id, int seq) {
  return json{{"schema", bench::kJournalRecordSchema}, {"case_id", case_id}, {"seq", seq}, {"row", {{"status", "ok"}}}};
}

}  // namespace

TEST_CASE("identical fingerprints match; each changed part is named with its members") {
  CHECK_FALSE(bench::compare_fingerprints(fingerprint(), fingerprint()).has_value());
  json plan_changed = fingerprint();
  plan_changed["plan"]["shape_divisor"] = 8;
  CHECK(bench::compare_fingerprints(fingerprint(), plan_changed) == "plan changed: shape_divisor 16 -> 8");
  json source_changed = fingerprint();
  source_changed["source"]["backend_library"]["sha256"] = "222";
  CHECK(bench::compare_fingerprints(fingerprint(), source_changed) ==
        "source changed: backend_library.sha256 \"111\" -> \"222\"");
  json hardware_changed = fingerprint();
  hardware_changed["hardware"]["device"]["name"] = "Ascend910B4";
  hardware_changed["hardware"]["host"] = "node2";
  CHECK(bench::compare_fingerprints(fingerprint(), hardware_changed) ==
        "hardware changed: device.name \"Ascend910B3\" -> \"Ascend910B4\", host \"node1\" -> \"node2\"");
  json two_parts = plan_changed;
  two_parts["hardware"] = hardware_changed["hardware"];
  std::string both = *bench::compare_fingerprints(fingerprint(), two_parts);
  CHECK(both.find("plan changed: ") == 0);
  CHECK(both.find("; hardware changed: ") != std::string::npos);
}

TEST_CASE("the digests of the parts change exactly with the parts") {
  json digests = bench::fingerprint_digests(fingerprint());
  json changed = fingerprint();
  changed["hardware"]["host"] = "node2";
  json other = bench::fingerprint_digests(changed);
  CHECK(digests["plan"] == other["plan"]);
  CHECK(digests["source"] == other["source"]);
  CHECK(digests["hardware"] != other["hardware"]);
}

TEST_CASE("a journal reads back its header and records; a torn last line is cut off and its bytes counted") {
  pbtest::TempDir dir;
  std::filesystem::path path = dir / "journal.jsonl";
  {
    bench::JournalWriter writer = bench::JournalWriter::create(path, header());
    writer.append(record("a#0", 1));
    writer.append(record("a#1", 2));
  }
  std::string complete = pbtest::read_file(path);
  // A crash while writing the third record: part of the line, no newline.
  std::string partial = record("a#2", 3).dump().substr(0, 25);
  pbtest::write_file(path, complete + partial);
  bench::JournalContents contents = bench::read_journal(path);
  CHECK(contents.header["run_id"] == "r1");
  REQUIRE(contents.records.size() == 2);
  CHECK(contents.records[1]["case_id"] == "a#1");
  CHECK(contents.good_bytes == complete.size());
  CHECK(contents.torn_bytes == partial.size());
  // Reopening cuts the torn bytes, and appends after the last good line.
  {
    bench::JournalWriter writer = bench::JournalWriter::reopen(path, contents.good_bytes);
    writer.append(record("a#2", 3));
  }
  bench::JournalContents healed = bench::read_journal(path);
  CHECK(healed.torn_bytes == 0);
  REQUIRE(healed.records.size() == 3);
  CHECK(healed.records[2]["case_id"] == "a#2");
  CHECK(pbtest::lines(pbtest::read_file(path)).size() == 4);
}

TEST_CASE("a complete line that is not JSON is corruption, not a torn write") {
  pbtest::TempDir dir;
  std::filesystem::path path = dir / "journal.jsonl";
  pbtest::write_file(path, header().dump() + "\n" + "{\"schema\": oops}\n" + record("a#1", 2).dump() + "\n");
  CHECK_THROWS_WITH_AS((void)bench::read_journal(path),
                       (path.string() + ":2: not a valid journal line; only a last line without its newline can come "
                                        "from a crash (a torn write), so the journal is corrupt").c_str(),
                       pb::sdk::InputError);
  // Even as the last line: it has its newline, so it was written whole.
  pbtest::write_file(path, header().dump() + "\n" + "{\"schema\": oops}\n");
  CHECK_THROWS_AS((void)bench::read_journal(path), pb::sdk::InputError);
}

TEST_CASE("a journal never overwrites an existing file") {
  pbtest::TempDir dir;
  std::filesystem::path path = dir / "journal.jsonl";
  { bench::JournalWriter writer = bench::JournalWriter::create(path, header()); }
  CHECK_THROWS_AS(bench::JournalWriter::create(path, header()), pb::sdk::InfraError);
}
