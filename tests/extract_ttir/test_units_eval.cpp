//===- test_units_eval.cpp - the units of the evaluation, one at a time ---===//
//
// Each case names the unit (evaluation.hpp and facts_document.hpp list
// them) and calls it directly on a KernelModel of small TTIR written here.
//
//===----------------------------------------------------------------------===//
#include "facts_document.hpp"
#include "ttir_test_support.hpp"

using namespace ttirtest;
using namespace perfbound::ttir;

namespace {

// for i in range(n): for j in range(i): x[j] = x[j]     (line 5: the outer loop)
// for i in range(pid): y[i] = y[i]                       (line 13)
const char *kTriangle = R"(module {
  tt.func public @triangle(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32  : i32 {
      scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32  : i32 {
        %0 = tt.addptr %arg0, %arg4 : !tt.ptr<f32>, i32
        %1 = tt.load %0 : !tt.ptr<f32>
        tt.store %0, %1 : !tt.ptr<f32>
      }
    }
    %2 = tt.get_program_id x : i32
    scf.for %arg3 = %c0_i32 to %2 step %c1_i32  : i32 {
      %3 = tt.addptr %arg1, %arg3 : !tt.ptr<f32>, i32
      %4 = tt.load %3 : !tt.ptr<f32>
      tt.store %3, %4 : !tt.ptr<f32>
    }
    tt.return
  }
}
)";

json launch(std::int64_t programs, std::int64_t n) {
  return {{"grid", {programs}}, {"args", {{"%arg2", n}}}};
}

/// kTriangle evaluated for `programs` programs and n = 10.
struct Evaluated {
  explicit Evaluated(std::int64_t programs)
      : m(model_of_text(kTriangle)), k(m.kernels.front()), lv(resolve_launch(k, launch(programs, 10))),
        ev(k, lv, options) {
    ev.run();
  }
  TtirModule m;
  const KernelModel &k;
  LaunchValues lv;
  FactsOptions options;
  Evaluation ev;
};

}  // namespace

TEST_CASE("unit LaunchValues: grid, scalar arguments by key, pointers ignored; the profile's cores and buffers") {
  TtirModule m = model_of_text(kTriangle);
  const KernelModel &k = m.kernels.front();
  LaunchValues lv = resolve_launch(k, {{"grid", {4, 2}}, {"args", {{"2", 10}, {"%arg0", 1}}}});
  CHECK(lv.programs == 8);
  CHECK(lv.grid[2] == 1);
  CHECK(lv.ints[2] == std::optional<std::int64_t>(10));
  CHECK(lv.ignored == std::vector<std::string>{"%arg0"});
  CHECK_THROWS_AS(resolve_launch(k, {{"grid", {1, 1, 1, 1}}}), pb::sdk::InputError);
  Hardware hw = read_profile(profile_910b3());
  CHECK(hw.aiv == 40);
  CHECK(hw.aic == 20);
  CHECK(hw.ub == 196608);
  CHECK(hw.l1 == 524288);
  CHECK(hw.l0c == 131072);
}

TEST_CASE("unit GivenFacts: trips facts name loops by TTIR line; other lines are refused with the loop lines") {
  TtirModule m = model_of_text(kTriangle);
  const KernelModel &k = m.kernels.front();
  GivenFacts f = read_facts(k, {{"grid", {1}}, {"trips", {{"ttir:5", {{"min", 2}, {"max", 9}}}, {"123", {{"min", 1}}}}}},
                            "units.ttir");
  REQUIRE(f.trips.count(5) == 1);
  CHECK(f.trips.at(5).min == std::optional<std::int64_t>(2));
  CHECK(f.trips.at(5).max == std::optional<std::int64_t>(9));
  CHECK(f.trips.size() == 1);  // "123" is an HIVM line: left to that extractor
  CHECK_THROWS_WITH_AS(read_facts(k, {{"trips", {{"ttir:7", {{"min", 1}}}}}}, "units.ttir"),
                       "units.ttir:7: launch.trips.\"ttir:7\": there is no scf.for or scf.while of kernel 'triangle' at "
                       "this line (its loops are at TTIR lines 5, 6, 13)",
                       pb::sdk::InputError);
}

TEST_CASE("unit ProgramCounter: triangular trip counts per entry, pid-dependent loops per program") {
  TtirModule m = model_of_text(kTriangle);
  const KernelModel &k = m.kernels.front();
  KernelStructure s = kernel_structure(k, false);
  // The inner bound reads the outer counter: the outer loop is walked.
  CHECK(s.needs_iteration == std::vector<bool>{true, false, false});
  // The third loop's bound reads the program id.
  CHECK_FALSE(s.uniform);
  LaunchValues lv = resolve_launch(k, launch(4, 10));
  Evaluator ev(*k.pool);
  EvalEnv env;
  env.args = &lv.ints;
  env.num_programs[0] = 4;
  env.loop_iters.assign(k.loops.size(), std::nullopt);
  ProgramCounter counter(k, s, ev, env, lv, nullptr, "units.ttir");
  ProgramCounts p3 = counter.count_program(3);
  // x: sum over i < 10 of i = 45 loads; y: pid = 3 loads.
  CHECK(p3.access[0] == 45);
  CHECK(p3.access[2] == 3);
  CHECK(p3.trip_min[1] == 0);
  CHECK(p3.trip_max[1] == 9);
  CHECK(counter.count_program(0).access[2] == 0);
}

TEST_CASE("unit UniqueBytes: intervals merge per argument; the union of overlapping rows") {
  std::vector<Interval> v{{20, 24}, {0, 8}, {4, 12}};
  CHECK(union_bytes(v) == 16);
  Evaluated e(4);
  Evaluation &ev = e.ev;
  // Every program reads x[0..8] (j < i <= 9): 9 x 4 B, the same bytes in all 4 programs.
  const UniqueBytes::Union &x = ev.unique().unions.at({0, 0});
  CHECK(x.complete);
  CHECK(x.per_program.max == 36);
  std::vector<Interval> global = x.global;
  CHECK(union_bytes(global) == 36);
  // y: program p reads y[0..p-1]: 0, 4, 8, 12 B; over the launch y[0..2].
  const UniqueBytes::Union &y = ev.unique().unions.at({1, 0});
  CHECK(y.per_program.min == 0);
  CHECK(y.per_program.max == 12);
  std::vector<Interval> ys = y.global;
  CHECK(union_bytes(ys) == 12);
}

TEST_CASE("unit Evaluation: executions summed over programs, load balance inputs per program") {
  Evaluated e(4);
  const Evaluation &ev = e.ev;
  CHECK_FALSE(ev.uniform);
  CHECK(ev.programs_evaluated == 4);
  // y's load: 0 + 1 + 2 + 3 executions.
  CHECK(ev.access_exec[2].sum == 6);
  CHECK(ev.access_exec[2].min == 0);
  CHECK(ev.access_exec[2].max == 3);
  // Per-program requested bytes: x 45 x (4 + 4) B plus y p x 8 B.
  CHECK(ev.program_bytes == std::vector<double>{360, 368, 376, 384});
}

TEST_CASE("unit schedule and buffers sections: waves over the cores, the live-tile peak") {
  Evaluated e(100);
  Hardware hw = read_profile(profile_910b3());
  json doc = json::object();
  FactsDoc fd{e.m, e.k, e.lv, hw, e.options, e.ev, doc};
  add_schedule(fd, nullptr);
  // 100 programs on 40 AIV: waves of 40, 40, 20.
  CHECK(doc.at("cores").at("type") == "aiv");
  CHECK(doc.at("schedule").at("waves") == 3);
  CHECK(doc.at("schedule").at("tail_wave_programs") == 20);
  CHECK(doc.at("schedule").at("uniform_programs") == false);
  add_buffers(fd);
  // Scalars only: no tile is live, the footprint is 0 and fits.
  CHECK(value(doc.at("buffers").at("ub").at("footprint")) == 0);
  CHECK(doc.at("buffers").at("buffer_ok") == true);
}
