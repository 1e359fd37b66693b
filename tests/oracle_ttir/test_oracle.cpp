//===- test_oracle.cpp - the TTIR oracle's own counts, derived by hand ----===//
//
// The oracle is the reference of the differential check, so its counts are
// pinned first: on our kernels (tests/oracle_ttir/kernels) with small
// launches, every expected number derived by hand in the comment beside it;
// then its refusals (budget, missing argument, an op it does not execute,
// text that does not parse) and the byte sets it counts with.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "oracle_record.hpp"
#include "support/test_support.hpp"
#include "ttir_oracle.hpp"

namespace {

namespace oracle = perfbound::ttir_oracle;
using json = oracle::json;

std::string kernel_text(const std::string &name) {
  return pbtest::read_file(std::filesystem::path(PB_ORACLE_TTIR_TEST_DIR) / "kernels" / name);
}

oracle::OracleResult run(const std::string &file, const json &launch, const oracle::Options &options = {}) {
  auto r = oracle::run_oracle(kernel_text(file), file, launch, options);
  REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message));
  return std::move(*r);
}

std::int64_t unique(const oracle::OracleResult &r, int arg, int dir) {
  auto it = r.unique_total.find({arg, dir});
  return it == r.unique_total.end() ? 0 : it->second;
}

double work(const oracle::ProgramFigures &p, const std::string &cls, const std::string &key) {
  auto c = p.work.find(cls);
  if (c == p.work.end()) return 0;
  auto k = c->second.find(key);
  return k == c->second.end() ? 0 : k->second;
}

double total_work(const oracle::OracleResult &r, const std::string &cls, const std::string &key) {
  double sum = 0;
  for (const oracle::ProgramFigures &p : r.per_program) sum += work(p, cls, key);
  return sum;
}

}  // namespace

// masked_tail, grid 3, n = 150: programs cover 0..63, 64..127, 128..191;
// the mask keeps 64, 64 and 22 lanes.
TEST_CASE("oracle: a masked 1-D tail") {
  oracle::OracleResult r = run("masked_tail.ttir", {{"grid", {3}}, {"args", {{"%arg2", 150}}}});
  REQUIRE(r.per_program.size() == 3);
  // Requested: every lane, 64 x 4 B = 256 B per program and direction.
  for (const oracle::ProgramFigures &p : r.per_program) {
    CHECK(p.requested[oracle::kRead] == 256);
    CHECK(p.requested[oracle::kWritten] == 256);
  }
  // Active and unique: 150 x 4 B = 600 B of x read and of y written.
  CHECK(r.per_program[2].active[oracle::kRead] == 88);
  CHECK(r.per_program[2].unique.at({0, oracle::kRead}) == 88);
  CHECK(unique(r, 0, oracle::kRead) == 600);
  CHECK(unique(r, 1, oracle::kWritten) == 600);
  CHECK(unique(r, 1, oracle::kRead) == 0);
  // FLOP: one mulf per lane, 64 per program (masked lanes included).
  CHECK(total_work(r, "vector", "f32") == 192);
  // The offsets' addi and the mask's cmpi only feed addresses and masks.
  CHECK(work(r.per_program[0], "index", "i32") == 128);
  CHECK(total_work(r, "vector", "i32") == 0);
  // The ideal machine moves what is touched; nothing is read twice.
  CHECK(r.per_program[2].must_move[oracle::kRead] == 88);
  CHECK(r.buffer_unique_total[oracle::kRead] == 600);
  CHECK(r.forced_read == 600);
  CHECK_FALSE(r.has_dot);
  CHECK(r.args.at(2).key == "%arg2");
}

// tile_2d, grid (3, 2), M = 40, N = 50, stride 64: rows 16, 16, 8 (of 40) by
// columns 32, 18 (of 50); p = x + 3 y.
TEST_CASE("oracle: 2-D tiles with row and column masks") {
  oracle::OracleResult r =
      run("tile_2d.ttir", {{"grid", {3, 2}}, {"args", {{"%arg2", 40}, {"%arg3", 50}, {"%arg4", 64}}}});
  REQUIRE(r.per_program.size() == 6);
  // 16 x 32 f16 lanes: 1024 B requested per program.
  CHECK(r.per_program[4].requested[oracle::kRead] == 1024);
  // Unique per program: (0,0) 16x32x2 = 1024, (2,0) 8x32x2 = 512,
  // (0,1) 16x18x2 = 576, (2,1) 8x18x2 = 288.
  CHECK(r.per_program[0].unique.at({0, oracle::kRead}) == 1024);
  CHECK(r.per_program[2].unique.at({0, oracle::kRead}) == 512);
  CHECK(r.per_program[3].unique.at({0, oracle::kRead}) == 576);
  CHECK(r.per_program[5].unique.at({0, oracle::kRead}) == 288);
  CHECK(r.per_program[5].pid == std::array<std::int64_t, 3>{2, 1, 0});
  // The whole 40 x 50 f16 matrix: 4000 B, read and written.
  CHECK(unique(r, 0, oracle::kRead) == 4000);
  CHECK(unique(r, 1, oracle::kWritten) == 4000);
  // addf over 512 lanes per program.
  CHECK(total_work(r, "vector", "f16") == 6 * 512);
}

// dot_k_loop, M = N = 32, K = 40, grid (2, 2): K steps k = 0, 16, 32, the
// last with 8 of 16 columns of A (rows of B) in bounds.
TEST_CASE("oracle: a K loop with tt.dot") {
  oracle::OracleResult r = run("dot_k_loop.ttir",
                               {{"grid", {2, 2}}, {"args", {{"%arg3", 32}, {"%arg4", 32}, {"%arg5", 40}}}});
  CHECK(r.has_dot);
  // A: 3 loads of 16 x 16 f16 = 1536 B requested per program; the program's
  // 16 rows x 40 columns x 2 B = 1280 B unique; all of A: 32 x 40 x 2 = 2560 B.
  CHECK(r.per_program[0].requested[oracle::kRead] == 2 * 1536);
  CHECK(r.per_program[0].unique.at({0, oracle::kRead}) == 1280);
  CHECK(r.per_program[3].unique.at({1, oracle::kRead}) == 1280);
  CHECK(unique(r, 0, oracle::kRead) == 2560);
  CHECK(unique(r, 1, oracle::kRead) == 2560);
  // C: 32 x 32 f32 = 4096 B.
  CHECK(unique(r, 2, oracle::kWritten) == 4096);
  // 3 dots of 2 x 16^3 per program.
  CHECK(work(r.per_program[1], "cube", "cube_fp16") == 3 * 8192);
  CHECK(total_work(r, "cube", "cube_fp16") == 98304);
}

// alias_add launched as add(x, x): x and y at the same address.
TEST_CASE("oracle: arguments that alias share bytes") {
  json launch = {{"grid", {3}}, {"args", {{"%arg0", 4096}, {"%arg1", 4096}, {"%arg2", 1 << 20}, {"%arg3", 150}}}};
  oracle::OracleResult r = run("alias_add.ttir", launch);
  // Each argument on its own touches 600 B...
  CHECK(unique(r, 0, oracle::kRead) == 600);
  CHECK(unique(r, 1, oracle::kRead) == 600);
  // ... of one buffer: 600 B to read, 256 B per full program (not 512).
  CHECK(r.buffer_unique_total[oracle::kRead] == 600);
  CHECK(r.per_program[0].must_move[oracle::kRead] == 256);
  CHECK(r.forced_read == 600);
  // Without the pointer values the two arguments are two buffers.
  json apart = {{"grid", {3}}, {"args", {{"%arg3", 150}}}};
  oracle::OracleResult s = run("alias_add.ttir", apart);
  CHECK(s.buffer_unique_total[oracle::kRead] == 1200);
  CHECK(s.per_program[0].must_move[oracle::kRead] == 512);
}

// read_after_write, grid 3, n = 150: t is written then read back.
TEST_CASE("oracle: a read of the program's own write is no traffic") {
  oracle::OracleResult r = run("read_after_write.ttir", {{"grid", {3}}, {"args", {{"%arg3", 150}}}});
  // Touched: x and t read, 600 B each; t and z written.
  CHECK(unique(r, 0, oracle::kRead) == 600);
  CHECK(unique(r, 1, oracle::kRead) == 600);
  CHECK(unique(r, 1, oracle::kWritten) == 600);
  // Must move: only x is read from memory (256, 256, 88 B).
  CHECK(r.per_program[0].must_move[oracle::kRead] == 256);
  CHECK(r.per_program[2].must_move[oracle::kRead] == 88);
  CHECK(r.buffer_unique_total[oracle::kRead] == 600);
  CHECK(r.forced_read == 600);
  CHECK(r.buffer_unique_total[oracle::kWritten] == 1200);
}

// strided_while, grid 4, n = 10: program p handles p, p + 4, p + 8 (< 10).
TEST_CASE("oracle: scf.while with a step of num_programs") {
  oracle::OracleResult r = run("while_loops.ttir", {{"kernel", "strided_while"}, {"grid", {4}}, {"args", {{"%arg1", 10}}}});
  CHECK(r.per_program[0].unique.at({0, oracle::kRead}) == 12);
  CHECK(r.per_program[3].unique.at({0, oracle::kRead}) == 8);
  CHECK(unique(r, 0, oracle::kRead) == 40);
  CHECK(unique(r, 0, oracle::kWritten) == 40);
  // Scalar arithmetic is the scalar unit's, not FLOP.
  CHECK(total_work(r, "vector", "f32") == 0);
  // Each element is read by the one program that writes it, before it
  // writes it: every read byte must come from memory.
  CHECK(r.forced_read == 40);
}

// chunk_while, grid 2, n = 70: cdiv(70, 32) = 3 trips of 32 lanes, the same
// in both programs.
TEST_CASE("oracle: a counter scf.while with a tensor body") {
  oracle::OracleResult r = run("while_loops.ttir", {{"kernel", "chunk_while"}, {"grid", {2}}, {"args", {{"%arg2", 70}}}});
  CHECK(r.per_program[1].requested[oracle::kRead] == 3 * 128);
  CHECK(r.per_program[1].unique.at({0, oracle::kRead}) == 280);
  CHECK(unique(r, 0, oracle::kRead) == 280);
  CHECK(total_work(r, "vector", "f32") == 2 * 96);
}

// data_while, grid 4, count = [3, 0, 8, 1] as launch data: 3 + 0 + 8 + 1
// stores of 4 B; the count is read once per program.
TEST_CASE("oracle: a data-dependent loop follows the launch's data") {
  oracle::OracleResult r = run("while_loops.ttir", {{"kernel", "data_while"},
                                                    {"grid", {4}},
                                                    {"data", {{"%arg0", {3, 0, 8, 1}}}}});
  CHECK(unique(r, 1, oracle::kWritten) == 48);
  CHECK(r.per_program[2].unique.at({1, oracle::kWritten}) == 32);
  CHECK(r.per_program[1].unique.count({1, oracle::kWritten}) == 0);
  CHECK(unique(r, 0, oracle::kRead) == 16);
  // Without data the counts are seeded values in [0, int_range): the same
  // for the same seed.
  json no_data = {{"kernel", "data_while"}, {"grid", {4}}};
  oracle::OracleResult a = run("while_loops.ttir", no_data), b = run("while_loops.ttir", no_data);
  CHECK(unique(a, 1, oracle::kWritten) == unique(b, 1, oracle::kWritten));
  CHECK(unique(a, 1, oracle::kWritten) <= 4 * 8 * 4);
}

// row_softmax_if, grid 3, stride 40, n = 20.
TEST_CASE("oracle: reductions, exp and scf.if") {
  json args = {{"%arg3", 40}, {"%arg4", 20}, {"%arg5", 1}};
  oracle::OracleResult r = run("row_softmax_if.ttir", {{"grid", {3}}, {"args", args}});
  // 20 of 32 lanes per row: 80 B unique of 128 B requested.
  CHECK(unique(r, 0, oracle::kRead) == 240);
  CHECK(r.per_program[0].requested[oracle::kRead] == 128);
  // Two reductions of 32 elements, 31 combines of one op each: 62.
  CHECK(work(r.per_program[0], "reduction", "f32") == 62);
  CHECK(work(r.per_program[0], "transcendental", "f32") == 32);
  // subf and divf (flag set): 64 per program.
  CHECK(work(r.per_program[0], "vector", "f32") == 64);
  CHECK(unique(r, 1, oracle::kWritten) == 240);
  CHECK(unique(r, 2, oracle::kWritten) == 0);
  // flag = 0: the else branch stores one f32 per program to S.
  args["%arg5"] = 0;
  oracle::OracleResult e = run("row_softmax_if.ttir", {{"grid", {3}}, {"args", args}});
  CHECK(unique(e, 2, oracle::kWritten) == 12);
  CHECK(unique(e, 1, oracle::kWritten) == 0);
  CHECK(work(e.per_program[0], "vector", "f32") == 32);
}

TEST_CASE("oracle: refusals name the file and line") {
  const std::string text = kernel_text("masked_tail.ttir");
  // The budget: 3 programs of ~17 ops on 64 lanes exceed 100 lane-operations.
  oracle::Options tight;
  tight.op_budget = 100;
  auto r = oracle::run_oracle(text, "masked_tail.ttir", {{"grid", {3}}, {"args", {{"%arg2", 150}}}}, tight);
  REQUIRE_FALSE(static_cast<bool>(r));
  CHECK(r.error().message.find("masked_tail.ttir:") == 0);
  CHECK(r.error().message.find("budget of 100 lane-operations is spent") != std::string::npos);
  CHECK(r.error().message.find("program (") != std::string::npos);
  // A scalar the launch does not give.
  auto m = oracle::run_oracle(text, "masked_tail.ttir", {{"grid", {1}}});
  REQUIRE_FALSE(static_cast<bool>(m));
  CHECK(m.error().message.find("the launch gives no value for argument %arg2") != std::string::npos);
  // The program budget.
  oracle::Options few;
  few.program_budget = 2;
  auto p = oracle::run_oracle(text, "masked_tail.ttir", {{"grid", {3}}, {"args", {{"%arg2", 1}}}}, few);
  REQUIRE_FALSE(static_cast<bool>(p));
  CHECK(p.error().message.find("3 programs exceed the program budget of 2") != std::string::npos);
  // An op the oracle does not execute, with its line (4).
  const std::string odd = "module {\n  tt.func public @k(%a: i32) {\n    %c = arith.constant 3 : i32\n"
                          "    %lo, %hi = arith.mulsi_extended %a, %c : i32\n    tt.return\n  }\n}\n";
  auto u = oracle::run_oracle(odd, "odd.ttir", {{"grid", {1}}, {"args", {{"%arg0", 2}}}});
  REQUIRE_FALSE(static_cast<bool>(u));
  CHECK(u.error().message.find("odd.ttir:4: oracle: the oracle does not execute this op ('arith.mulsi_extended'") == 0);
  // Text that does not parse: MLIR's diagnostic.
  auto bad = oracle::run_oracle("module {\n  tt.func public @k() {\n    tt.frobnicate\n  }\n}\n", "bad.ttir", {});
  REQUIRE_FALSE(static_cast<bool>(bad));
  CHECK(bad.error().message.find("bad.ttir:3:") == 0);
}

TEST_CASE("oracle: byte sets") {
  oracle::ByteSet a;
  a.add(0, 4);
  a.add(4, 8);    // touches: one interval
  a.add(16, 20);
  a.add(2, 6);    // inside
  a.add(10, 12);  // out of order
  CHECK(a.size() == 8 + 4 + 2);
  CHECK(a.intervals().size() == 3);
  CHECK(a.covers(1, 7));
  CHECK_FALSE(a.covers(7, 9));
  oracle::ByteSet b;
  b.add(6, 11);
  b.add(19, 30);
  // a = [0,8) [10,12) [16,20); b = [6,11) [19,30)
  CHECK(oracle::ByteSet::intersect(a, b).size() == 2 + 1 + 1);
  CHECK(oracle::ByteSet::subtract(a, b).size() == 6 + 1 + 3);
}

// Forced reads: bytes that must come from memory whatever the order of the
// programs. Built directly on the recorder: two programs, one buffer.
TEST_CASE("oracle: forced reads") {
  std::vector<oracle::ArgInfo> args(1);
  args[0].pointer = true;
  args[0].buffer = 0;
  oracle::Recorder rec(args, 1, {0});
  auto lanes = [](std::int64_t from, std::int64_t count) {
    std::vector<oracle::AccessLane> out;
    for (std::int64_t idx = 0; idx < count; ++idx) out.push_back({0, from + 4 * idx, true});
    return out;
  };
  // Program 0 reads [0, 16) and then writes [0, 32); program 1 reads
  // [16, 48). [0, 16): read by its only writer before it writes: forced.
  // [16, 32): read by program 1 only, written by program 0, which may run
  // first: not forced. [32, 48): written by nobody: forced. 32 B.
  rec.begin_program({0, 0, 0});
  rec.access(oracle::kRead, 4, lanes(0, 4));
  rec.access(oracle::kWritten, 4, lanes(0, 8));
  rec.end_program();
  rec.begin_program({1, 0, 0});
  rec.access(oracle::kRead, 4, lanes(16, 8));
  rec.end_program();
  oracle::OracleResult out;
  rec.finish(out);
  CHECK(out.forced_read == 32);
  CHECK(out.buffer_unique_total[oracle::kRead] == 48);
  // A read after the program's own write is no must-move traffic.
  oracle::Recorder again(args, 1, {0});
  again.begin_program({0, 0, 0});
  again.access(oracle::kWritten, 4, lanes(0, 4));
  again.access(oracle::kRead, 4, lanes(0, 8));
  again.end_program();
  oracle::OracleResult out2;
  again.finish(out2);
  CHECK(out2.per_program[0].must_move[oracle::kRead] == 16);
  CHECK(out2.per_program[0].unique.at({0, oracle::kRead}) == 32);
}
