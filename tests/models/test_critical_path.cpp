//===- test_critical_path.cpp - the critical_path term on IR written here -===//
//
// Each fixture under tests/models/data/critical_path/ is a small AIV kernel
// written for these tests. Golden numbers by hand, on the 910B3 profile:
//   GM->UB and UB->GM: 128 B/cycle x 1.8 GHz = 230.4 GB/s per core, so one
//   64 KiB tile (16384 f32) takes 65536 / 230.4e9 = 284.444 ns;
//   a vadd of 16384 f32 = 65536 B / 256 B per repeat = 256 repeats at one
//   repeat per cycle: 256 / 1.8e9 = 142.222 ns.
// Grid 40 on 40 AIVs: one wave, so the term is the chain of one block.
//
//===----------------------------------------------------------------------===//
#include "models_test_util.hpp"
#include "render_trace.hpp"

namespace {

using modelstest::json;
namespace m = pb::models;

constexpr double kTile = 65536.0 / 230.4e9;  // 284.444 ns
constexpr double kAdd = 256.0 / 1.8e9;       // 142.222 ns

std::string fixture(const std::string &name) {
  return (pbtest::source_dir() / "tests" / "models" / "data" / "critical_path" / (name + ".npuir.mlir")).string();
}

json run_fixture(const std::string &name, const std::vector<std::string> &extra = {}) {
  std::vector<std::string> args{"--set", "hivm=" + fixture(name), "--set", "launch={grid=[40]}"};
  args.insert(args.end(), extra.begin(), extra.end());
  return modelstest::run_pipeline(modelstest::pipeline("bound_hivm.toml"), args).report;
}

double path_value(const json &report) {
  return modelstest::seconds(modelstest::term(report, "critical_path", "hivm")["value"]);
}

}  // namespace

TEST_CASE("critical_path: a loop fenced by PIPE_ALL is the sum of its pipes' work") {
  // Per iteration load, barrier, add, barrier, store, barrier: nothing
  // overlaps, 4 x (284.444 + 142.222 + 284.444) ns = 2,844.444 ns, where the
  // busiest pipe (MTE2 or MTE3: 4 x 284.444 = 1,137.778 ns) is 2.5x less.
  json report = run_fixture("pipe_all_loop");
  const json &t = modelstest::term(report, "critical_path", "hivm");
  CHECK(path_value(report) == doctest::Approx(4 * (kTile + kAdd + kTile)).epsilon(1e-9).scale(0));
  CHECK(t["assurance"] == "strict");
  CHECK(modelstest::seconds(t["strict_value"]) == doctest::Approx(2844.444e-9).epsilon(1e-6).scale(0));
  CHECK(t["per_component"][0]["work"]["busiest_pipe_per_block_s"].get<double>() ==
        doctest::Approx(4 * kTile).epsilon(1e-9).scale(0));
  CHECK(t["per_component"][0]["work"]["pipe_all_barriers_per_block"].get<double>() == 12);
  // It is the strict bound of the kernel: every other strict term is the
  // busiest pipe or less.
  CHECK(modelstest::seconds(report["bound"]["strict"]) == doctest::Approx(4 * (kTile + kAdd + kTile)).epsilon(1e-9).scale(0));
  CHECK(modelstest::component(modelstest::term(report, "component_floor", "hivm"), "aiv", "mte2") ==
        doctest::Approx(4 * kTile).epsilon(1e-9).scale(0));
}

TEST_CASE("critical_path: flags that carry from one iteration to the next chain the stages") {
  // wait(MTE3->MTE2) load set(MTE2->V) wait add set(V->MTE3) wait store
  // set(MTE3->MTE2): the next load waits for this store, so the cycle
  // through the loop is load + add + store every iteration, as with PIPE_ALL.
  json report = run_fixture("single_buffer_flags");
  CHECK(path_value(report) == doctest::Approx(4 * (kTile + kAdd + kTile)).epsilon(1e-9).scale(0));
  CHECK(modelstest::term(report, "critical_path", "hivm")["assurance"] == "strict");
}

TEST_CASE("critical_path: a double-buffered loop is its busiest pipe") {
  // Two tiles per iteration on their own events: one tile's load overlaps the
  // other's add, and no chain beats MTE2's 8 loads: 8 x 284.444 = 2,275.556 ns
  // (the cycle through event 0 is one load and one add per iteration: 1,706.7 ns).
  json report = run_fixture("double_buffer_flags");
  CHECK(path_value(report) == doctest::Approx(8 * kTile).epsilon(1e-9).scale(0));
  CHECK(path_value(report) ==
        doctest::Approx(modelstest::component(modelstest::term(report, "component_floor", "hivm"), "aiv", "mte2"))
            .epsilon(1e-9)
            .scale(0));
}

TEST_CASE("critical_path: latency = none is the same strict value; unknown latencies are listed") {
  json report = run_fixture("pipe_all_loop", {"--set", "path.latency=none"});
  CHECK(path_value(report) == doctest::Approx(4 * (kTile + kAdd + kTile)).epsilon(1e-9).scale(0));
  json with = run_fixture("pipe_all_loop");
  const json &t = modelstest::term(with, "critical_path", "hivm");
  std::string listed;
  for (const json &n : t["not_counted"]) listed += n["what"].get<std::string>() + ";";
  CHECK(listed.find("dma_completion_latency") != std::string::npos);
  CHECK(listed.find("pipe_barrier_all_latency") != std::string::npos);
}

TEST_CASE("critical_path: a cross-core flag chains the cube half to the vector half") {
  // AIC: 64 KiB GM->L1 at 256 B/cycle = 65536 / 460.8e9 = 142.222 ns, then
  // sync_block_set flag 1. Each AIV waits for flag 1 (a wait holds every
  // later instruction of its core), then load + add + store = 711.111 ns.
  // The block's chain: 142.222 + 711.111 = 853.333 ns. Grid 20 on 20 AICs:
  // one wave.
  std::vector<std::string> args{"--set", "hivm=" + fixture("cross_core_chain"), "--set", "launch={grid=[20]}"};
  json report = modelstest::run_pipeline(modelstest::pipeline("bound_hivm.toml"), args).report;
  const json &t = modelstest::term(report, "critical_path", "hivm");
  CHECK(modelstest::component(t, "aiv", "sync") == doctest::Approx(65536.0 / 460.8e9 + 2 * kTile + kAdd).epsilon(1e-9).scale(0));
  CHECK(modelstest::component(t, "aic", "sync") == doctest::Approx(65536.0 / 460.8e9).epsilon(1e-9).scale(0));
  CHECK(t["assurance"] == "strict");
}

TEST_CASE("critical_path: with a measurement the report names the latency, the chain and the time per event") {
  // pipe_all_loop with measured_us = 20 and a warm cache (the memory term's
  // argued cold floor left out): the bound is the chain, 2.84444 us; the
  // rest of the gap not explained by the other attribution rows (their sum
  // is the report's `explained`) is set against the chain's events per
  // block: 4 loads + 4 stores whose completion a barrier waits for, and 12
  // PIPE_ALL barriers = 20, over one wave.
  json report =
      run_fixture("pipe_all_loop", {"--set", "bound.measured_us=20", "--set", "memory.cache=warm"});
  REQUIRE(report["attribution"].contains("latency"));
  const json &lat = report["attribution"]["latency"];
  CHECK(lat["events_per_block"].get<double>() == 20);
  double explained = modelstest::seconds(report["attribution"]["explained"]);
  CHECK(modelstest::seconds(lat["unexplained"]) == doctest::Approx(20e-6 - 4 * (kTile + kAdd + kTile) - explained).epsilon(1e-9).scale(0));
  CHECK(modelstest::seconds(lat["implied_per_event"]) ==
        doctest::Approx((20e-6 - 4 * (kTile + kAdd + kTile) - explained) / 20).epsilon(1e-9).scale(0));
  CHECK(report["verdict"]["class"] == "latency-bound");
  CHECK(report["verdict"]["unit"] == "sync");
  CHECK(report["verdict"]["latency"].get<std::string>().find("12 PIPE_ALL barriers") != std::string::npos);
  // The loop's barriers cost 2.56 us per block against 1.138 us on MTE2:
  // the double-buffering finding names the loop.
  bool named = false;
  for (const json &f : report["findings"])
    if (f["id"] == "latency.serialized_loop.aiv.14") named = true;
  CHECK(named);
}

TEST_CASE("critical_path: the trace shows the chain of one block as its own track, slices joined by flow arrows") {
  // pipe_all_loop: the chain is the first load (284.444 ns), the adds
  // between the barriers (4 x 142.222), the stores (4 x 284.444) and the
  // wraps' loads (3 x 284.444): 2,844.444 ns in four slices.
  json report = run_fixture("pipe_all_loop");
  json trace = m::render_trace(report);
  double total_us = 0;
  int slices = 0, starts = 0, finishes = 0;
  std::vector<std::string> names;
  for (const json &e : trace["traceEvents"]) {
    // Thread 90 of the core's process: the chain's own track (the term's
    // total also appears on the generic sync track, as every term's does).
    if (e.value("cat", std::string()) != "critical_path" || e.value("tid", 0) != 90) continue;
    if (e["ph"] == "X") {
      total_us += e["dur"].get<double>();
      ++slices;
      names.push_back(e["name"].get<std::string>());
    }
    if (e["ph"] == "s") ++starts;
    if (e["ph"] == "f") ++finishes;
  }
  CHECK(slices == 4);
  CHECK(starts == 3);
  CHECK(finishes == 3);
  CHECK(total_us == doctest::Approx(4 * (kTile + kAdd + kTile) * 1e6).epsilon(1e-9).scale(0));
  REQUIRE(names.size() == 4);
  CHECK(names[0] == "hivm.hir.load (line 17, MTE2)");
  CHECK(names[1] == "hivm.hir.vadd (line 19, V)");
  CHECK(names[2] == "hivm.hir.store (line 22, MTE3)");
}
