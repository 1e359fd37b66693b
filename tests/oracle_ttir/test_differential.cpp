//===- test_differential.cpp - dsl_facts and the DSL terms vs the oracle --===//
//
// The differential check (differential.hpp) on every TTIR we have, with
// launches small enough for the oracle:
//   - our kernels (tests/oracle_ttir/kernels): masked 1-D tails, 2-D tiles
//     with row/column masks (and overlapping rows), a K loop with tt.dot,
//     scf.while (derived, not derived, data-dependent), reductions with
//     scf.if, an argument passed twice, a read after write;
//   - examples/kernels/*, tests/extract_ttir/kernels and syntax, and
//     ../shared/data/ttir (skipped without ../shared).
// Scaling: the reference launches of tests/extract_ttir/test_reference_kernels
// are kept in shape and cut in size (grids of 1 to 20 programs, matrix sides
// 128 to 256 instead of 512 to 4096, N_CTX 128 instead of 1024, rows of 1000
// kept where a kernel loops over them); every other kernel gets the derived
// launch (differential.hpp: grid [3, 2, 2], small integers from the
// divisibility hints).
// Cases that a known review item breaks (issue 23, fixed elsewhere) run and
// print their findings without failing; each names its item.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <algorithm>

#include "differential.hpp"
#include "support/test_support.hpp"

namespace {

using oracletest::Case;
using oracletest::json;
using oracletest::Outcome;

std::filesystem::path oracle_kernel(const std::string &name) {
  return std::filesystem::path(PB_ORACLE_TTIR_TEST_DIR) / "kernels" / name;
}

Case make_case(const std::filesystem::path &path, const std::string &origin, json launch) {
  Case c;
  c.text = pbtest::read_file(path);
  c.origin = origin;
  launch["schema"] = "perfbound.launch/1";
  c.id = origin + " " + launch.dump();
  c.launch = std::move(launch);
  return c;
}

struct Tally {
  int cases = 0, compared = 0, figures = 0, skipped = 0, item9 = 0;
};

/// Runs a case that must hold: every figure within the oracle's.
void expect_sound(const Case &c, Tally &t) {
  Outcome o = oracletest::check(c, oracletest::profile("ascend_910b3"));
  ++t.cases;
  if (!o.ran) {
    ++t.skipped;
    MESSAGE(o.summary(c));
    return;
  }
  ++t.compared;
  t.figures += o.compared;
  for (const oracletest::Finding &f : o.violations)
    if (f.what.find("review item 9") != std::string::npos) ++t.item9;
  CHECK_MESSAGE(o.violations.empty(), o.summary(c));
}

/// Every kernel of a file with its derived launch.
void derived(const std::filesystem::path &path, const std::string &origin, Tally &t) {
  const std::string text = pbtest::read_file(path);
  for (const json &launch : oracletest::derived_launches(text, origin)) expect_sound(make_case(path, origin, launch), t);
}

void report(const char *what, const Tally &t) {
  MESSAGE(std::string(what) << ": " << t.cases << " cases, " << t.compared << " compared (" << t.figures << " figures), "
               << t.skipped << " not compared, " << t.item9 << " finding(s) review item 9 explains");
}

}  // namespace

TEST_CASE("differential: our kernels") {
  Tally t;
  auto ours = [&](const std::string &file, json launch) {
    expect_sound(make_case(oracle_kernel(file), "tests/oracle_ttir/kernels/" + file, std::move(launch)), t);
  };
  // Masked 1-D tails: a ragged tail, an exact fit, one live lane.
  ours("masked_tail.ttir", {{"grid", {3}}, {"args", {{"%arg2", 150}}}});
  ours("masked_tail.ttir", {{"grid", {4}}, {"args", {{"%arg2", 256}}}});
  ours("masked_tail.ttir", {{"grid", {2}}, {"args", {{"%arg2", 1}}}});
  // 2-D tiles: rows apart (stride 64 >= N) and overlapping (stride 30 < N = 50).
  ours("tile_2d.ttir", {{"grid", {3, 2}}, {"args", {{"%arg2", 40}, {"%arg3", 50}, {"%arg4", 64}}}});
  ours("tile_2d.ttir", {{"grid", {3, 2}}, {"args", {{"%arg2", 40}, {"%arg3", 50}, {"%arg4", 30}}}});
  ours("tile_2d.ttir", {{"grid", {1, 1}}, {"args", {{"%arg2", 0}, {"%arg3", 50}, {"%arg4", 64}}}});
  // A K loop with tt.dot: a K tail, K a multiple, no K step at all.
  ours("dot_k_loop.ttir", {{"grid", {2, 2}}, {"args", {{"%arg3", 32}, {"%arg4", 32}, {"%arg5", 40}}}});
  ours("dot_k_loop.ttir", {{"grid", {2, 1}}, {"args", {{"%arg3", 32}, {"%arg4", 16}, {"%arg5", 32}}}});
  ours("dot_k_loop.ttir", {{"grid", {1, 2}}, {"args", {{"%arg3", 16}, {"%arg4", 32}, {"%arg5", 0}}}});
  // scf.while: a step of num_programs, a constant step, a loaded count
  // (with data: the `given` figures are compared too; without: seeded).
  ours("while_loops.ttir", {{"kernel", "strided_while"}, {"grid", {4}}, {"args", {{"%arg1", 10}}}});
  ours("while_loops.ttir", {{"kernel", "chunk_while"}, {"grid", {2}}, {"args", {{"%arg2", 70}}}});
  ours("while_loops.ttir", {{"kernel", "data_while"}, {"grid", {4}}, {"data", {{"%arg0", {3, 0, 8, 1}}}}});
  ours("while_loops.ttir", {{"kernel", "data_while"}, {"grid", {3}}});
  // Reductions, exp and scf.if both ways; overlapping rows (stride 10 < 20).
  ours("row_softmax_if.ttir", {{"grid", {3}}, {"args", {{"%arg3", 40}, {"%arg4", 20}, {"%arg5", 1}}}});
  ours("row_softmax_if.ttir", {{"grid", {3}}, {"args", {{"%arg3", 40}, {"%arg4", 20}, {"%arg5", 0}}}});
  ours("row_softmax_if.ttir", {{"grid", {4}}, {"args", {{"%arg3", 10}, {"%arg4", 20}, {"%arg5", 1}}}});
  // add(x, y) with distinct arguments.
  ours("alias_add.ttir", {{"grid", {3}}, {"args", {{"%arg3", 150}}}});
  report("our kernels", t);
  CHECK(t.compared >= 16);
}

// Review item 9 (issue 23): the DSL tier's byte floors once assumed that
// arguments never alias and that a program never reads its own writes; the
// check reported both as known findings. Fixed: they must hold like any other
// case (and did not before the fix: 2 term violations each).
TEST_CASE("differential: review item 9 (aliasing, own-write reads)") {
  Tally t;
  // add(x, x): x and y have the same pointer value.
  expect_sound(make_case(oracle_kernel("alias_add.ttir"), "tests/oracle_ttir/kernels/alias_add.ttir",
                         {{"grid", {3}}, {"args", {{"%arg0", 4096}, {"%arg1", 4096}, {"%arg2", 1 << 20}, {"%arg3", 150}}}}),
               t);
  // y over half of x.
  expect_sound(make_case(oracle_kernel("alias_add.ttir"), "tests/oracle_ttir/kernels/alias_add.ttir",
                         {{"grid", {3}}, {"args", {{"%arg0", 4096}, {"%arg1", 4096 + 128}, {"%arg2", 1 << 20}, {"%arg3", 150}}}}),
               t);
  // t written, then read back by the same program.
  expect_sound(make_case(oracle_kernel("read_after_write.ttir"), "tests/oracle_ttir/kernels/read_after_write.ttir",
                         {{"grid", {3}}, {"args", {{"%arg3", 150}}}}),
               t);
  CHECK(t.compared == 3);
  CHECK(t.item9 == 0);
}

TEST_CASE("differential: examples and tests/extract_ttir kernels") {
  Tally t;
  const std::filesystem::path src = pbtest::source_dir();
  auto file = [&](const std::string &rel, json launch) { expect_sound(make_case(src / rel, rel, std::move(launch)), t); };
  // vector add: 5 programs of 2048 lanes, a tail of 1240 in the last.
  file("examples/kernels/vector_add/vector_add.ttir.mlir", {{"grid", {5}}, {"args", {{"n_elements", 9432}}}});
  // Row sums of 1000 columns in 512-chunks; rows 700 apart overlap.
  file("tests/extract_ttir/kernels/row_sum_loop.ttir", {{"grid", {6}}, {"args", {{"%arg2", 700}, {"%arg3", 1000}}}});
  file("tests/extract_ttir/kernels/row_sum_loop.ttir", {{"grid", {3}}, {"args", {{"%arg2", 1000}, {"%arg3", 1000}}}});
  // Block-pointer matmul, 128 x 128 x 64 blocks: M = N = 256, K = 128, and a
  // ragged M = 200, N = 136, K = 100 (boundary checks bite).
  file("tests/extract_ttir/kernels/blockptr_matmul.ttir",
       {{"grid", {2, 2}},
        {"args", {{"%arg3", 256}, {"%arg4", 256}, {"%arg5", 128}, {"%arg6", 128}, {"%arg7", 256}, {"%arg8", 256}}}});
  file("tests/extract_ttir/kernels/blockptr_matmul.ttir",
       {{"grid", {2, 2}},
        {"args", {{"%arg3", 200}, {"%arg4", 136}, {"%arg5", 100}, {"%arg6", 112}, {"%arg7", 144}, {"%arg8", 144}}}});
  // Persistent matmul: 4 tiles of 128 x 128 on 3 programs, 2 K steps.
  file("tests/extract_ttir/kernels/persistent_matmul.ttir",
       {{"grid", {3}},
        {"args", {{"%arg3", 256}, {"%arg4", 256}, {"%arg5", 128}, {"%arg6", 128}, {"%arg7", 256}, {"%arg8", 256}}}});
  // Causal flash attention: N_CTX 128 (2 query blocks), 2 heads.
  file("tests/extract_ttir/kernels/flash_attention_fwd.ttir", {{"grid", {2, 2}}, {"args", {{"%arg4", 0.125}, {"%arg5", 128}}}});
  // Every kernel of every file, derived launches.
  for (const char *rel : {"examples/kernels/vector_add/vector_add.ttir.mlir", "tests/extract_ttir/kernels/row_sum_loop.ttir",
                          "tests/extract_ttir/kernels/coverage_forms.ttir", "tests/extract_ttir/syntax/printed_forms.ttir",
                          "tests/extract_ttir/kernels/blockptr_matmul.ttir"})
    derived(src / rel, rel, t);
  // segment_sum with its cu_seqlens as data (the given figures compared too).
  file("tests/extract_ttir/kernels/coverage_forms.ttir",
       {{"kernel", "segment_sum"}, {"grid", {3}}, {"data", {{"%arg1", {0, 5, 5, 17}}}}});
  report("examples and tests/extract_ttir", t);
  CHECK(t.compared >= 10);
}

TEST_CASE("differential: ../shared/data/ttir") {
  PBTEST_REQUIRE_SHARED();
  Tally t;
  const std::filesystem::path dir = pbtest::shared_dir() / "data" / "ttir";
  auto file = [&](const std::string &name, json launch) {
    expect_sound(make_case(dir / name, "shared/data/ttir/" + name, std::move(launch)), t);
  };
  // Reference launches of tests/extract_ttir, cut down.
  file("softmax_tritonshared_nolocs.ttir", {{"grid", {6}}, {"args", {{"%arg2", 128}, {"%arg3", 128}, {"%arg4", 100}}}});
  file("layernorm_fwd_tritonshared_nolocs.ttir", {{"grid", {4}}, {"args", {{"%arg6", 1000}, {"%arg7", 1000}, {"%arg8", 1e-5}}}});
  file("matmul_ptr_arith_3.4_cuda.ttir",
       {{"grid", {16}}, {"args", {{"%arg3", 64}, {"%arg4", 64}, {"%arg5", 64}, {"%arg6", 64}, {"%arg7", 64}, {"%arg8", 64}}}});
  file("blockptr_matmul_nolocs.ttir",
       {{"grid", {1}},
        {"args", {{"%arg3", 128}, {"%arg4", 128}, {"%arg5", 256}, {"%arg6", 256}, {"%arg7", 1}, {"%arg10", 128},
                  {"%arg11", 1}, {"%arg12", 0}, {"%arg13", 0}}}});
  file("vector_add_3.4_cuda.ttir", {{"grid", {3}}, {"args", {{"%arg3", 2500}}}});
  // Sizes are constants of this dump (no shape arguments): one program.
  file("pre_pass_source_tensor_descriptor_3.7dev_xpu.ttir",
       {{"kernel", "matmul_kernel_with_tensor_descriptors"}, {"grid", {1}}});
  // Every kernel of every file, derived launches.
  std::vector<std::filesystem::path> files;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".ttir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path &p : files) derived(p, "shared/data/ttir/" + p.filename().string(), t);
  report("../shared/data/ttir", t);
  CHECK(t.compared >= 20);
}
