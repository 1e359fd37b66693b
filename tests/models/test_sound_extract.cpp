//===- test_sound_extract.cpp - strict work from the extractors is sound --===//
//
// Issue 23, extractor side. HIVM (review items 2, 3, 4 and 7): for dumps
// written by us (tests/extract_hivm/data), the work the HIVM view counts as
// strict (and under the user's facts, given) is compared with the truth
// derived by hand in each fixture's header; the program document comes from
// the extractor through the CLI, as a pipeline gets it. DSL (item 9): the
// forced-HBM share of the memory floor counts a byte once whatever the
// arguments' overlap.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "hivm_view.hpp"
#include "models_test_util.hpp"

namespace m = pb::models;
using modelstest::json;

namespace {

/// The perfbound.hivm_program/1 document of a fixture of tests/extract_hivm/data under `launch`
/// (a TOML inline table, as on the command line).
json program_of(const std::string &fixture, const std::string &launch) {
  pbtest::TempDir tmp;
  const auto data = pbtest::source_dir() / "tests" / "extract_hivm" / "data";
  pbtest::CliResult r = pbtest::run_cli({"run", (data / "hivm_program.toml").string(), "--set",
                                         "hivm=" + (data / fixture).string(), "--set", "launch=" + launch, "--out",
                                         tmp.path().string(), "-q"});
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  return json::parse(pbtest::read_file(tmp / "program.json"));
}

/// The total work of one (core, component) of a view; fails when there is none.
m::Amount work(const m::HivmView &view, const std::string &core, const std::string &component) {
  const m::ComponentWork *cw = view.find(core, component);
  REQUIRE_MESSAGE(cw != nullptr, "no work on " << core << "." << component);
  return cw->total();
}

}  // namespace

TEST_CASE("issue 23 item 2: the strict aic.mte1 work is a minimum when real_m is dynamic") {
  // mte1_dynamic.npuir.mlir: the loop's mmadL1 moves 18432 B (m = 16) then 32768 B (m = 128),
  // 51200 B in all; the second mmadL1 has real_m = min(128, counts[0]): with counts[0] = 16 it
  // moves 18432 B. Truth: 69632 B per block (grid [1]).
  m::HivmView strict = m::HivmView::from_json(program_of("mte1_dynamic.npuir.mlir", "{grid=[1]}"), "strict");
  m::Amount mte1 = work(strict, "aic", "mte1");
  CHECK(mte1.grid(1) <= 69632);
  // The loop's two executions summed exactly; nothing strict for the loaded real_m.
  CHECK(mte1.uniform == 51200);
  // Under data = {"0" = [16]} real_m is 16: 18432 B more, given.
  m::HivmView given = m::HivmView::from_json(program_of("mte1_dynamic.npuir.mlir", R"({grid=[1],data={"0"=[16]}})"), "given");
  m::Amount with_data = work(given, "aic", "mte1");
  CHECK(with_data.uniform == 51200);
  CHECK(with_data.with_given().uniform == 69632);
}

TEST_CASE("issue 23 item 3: past the enumeration budget the strict bytes are not one execution times the count") {
  // triangle_rows.npuir.mlir: the row loads move 32768 x 32769 = 1073774592 B per block in all;
  // the first iteration's 65536 B times 32768 executions would be 2 GiB.
  m::HivmView view = m::HivmView::from_json(program_of("triangle_rows.npuir.mlir", "{grid=[1]}"), "triangle");
  m::Amount mte2 = work(view, "aiv", "mte2");
  CHECK(mte2.grid(1) <= 1073774592.0);
  CHECK(mte2.grid(1) > 0);  // the fewest any execution moves, 2 B, 32768 times
}

TEST_CASE("issue 23 item 4: an estimate under the user's facts is not counted as given work") {
  // given_estimate.npuir.mlir with trips."26" = {min = 4, max = 4}: 4 row loads of at most 256 B;
  // with counts[1] = 16 the truth is 4 x 64 B = 256 B per block.
  m::HivmView view = m::HivmView::from_json(
      program_of("given_estimate.npuir.mlir", R"({grid=[1],trips={"26"={min=4,max=4}}})"), "given");
  m::Amount mte2 = work(view, "aiv", "mte2");
  CHECK(mte2.grid(1) == 0);  // nothing strict: the loop may not run
  CHECK(mte2.with_given().grid(1) <= 256.0);
}
