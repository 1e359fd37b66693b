//===- test_launch_args.cpp - launch arguments in the HIVM tier: keyed right, keyed wrong ===//
//
// The HIVM dump names its arguments %arg0..%argN including three hidden hacc
// arguments, while launch arguments are keyed by Triton position. A wrong key
// must be said (a warning naming the positions), and the DMA sizes it left
// unresolved must make the memory term unknown, never a zero-time floor. Issue 26:
// Triton names reach the HIVM tier (through the TTIR signature, or the dump's own
// argument locations), a key that matches nothing is refused (exit 3) unless optional,
// values must fit the declared type, and a missing argument is named in the verdict.
#include <doctest/doctest.h>

#include "models_test_util.hpp"

using modelstest::json;
using modelstest::seconds;
using modelstest::term;

TEST_CASE("launch args: the seeded strided copy with S keyed by Triton position is memory-bound") {
  PBTEST_REQUIRE_SHARED();
  // ../shared/data/hivm/seeded_gap2_strided.npuir.mlir: copy_kernel(x_ptr,
  // y_ptr, S) = dump %arg3, %arg4, %arg5. Each block loads 2048 f32 with GM
  // stride S and stores them back the same way. S = 2048, grid 2048:
  // 2 x 2048 x 2048 x 4 B = 33554432 B, half read, half written. Strict (any
  // L2 state, docs/model.md §3.3): the read paths, 40 active AIV x 230.4
  // GB/s -> 16777216 / 9.216e12 = 1.820444 us (the writes, the same at the
  // argued UB->GM width). Without the DSL tier's unique bytes
  // (bound_hivm.toml) the cold-cache floor counts no argument's DMA bytes:
  // they might be re-reads.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::shared_hivm("seeded_gap2_strided.npuir.mlir"), "--set",
       "launch={grid=[2048],args={\"2\"=2048}}"});
  const json &memory = term(run.report, "memory", "hivm");
  CHECK(seconds(memory["strict_value"]) == doctest::Approx(1.820444e-6).epsilon(1e-6));
  CHECK(memory["per_component"][0]["work"]["cold_hbm_floor_s"].get<double>() == 0);
  CHECK(memory["assurance"] == "strict");
  CHECK(run.cli.err.find("matches no HIVM argument") == std::string::npos);
  // Stride 2048 x 4 B between elements: every packet is one 4-byte f32, so
  // both DMAs get a coalescing finding naming 4-byte packets.
  int coalescing = 0;
  for (const json &f : run.report["findings"])
    if (f["category"] == "coalescing") {
      ++coalescing;
      CHECK(f["title"].get<std::string>().find("4-byte packets") != std::string::npos);
    }
  CHECK(coalescing == 2);
}

TEST_CASE("launch args: S keyed by the dump's own %arg5 is refused with the Triton positions") {
  PBTEST_REQUIRE_SHARED();
  // "%arg5" means Triton position 5, which copy_kernel does not have: a key
  // that matches no argument is the user's mistake, refused (exit 3) with the
  // positions there are (before: a warning, and the memory term unknown).
  pbtest::CliResult r = pbtest::run_cli(
      {"run", modelstest::pipeline("bound_hivm.toml"), "--set", "hivm=" + modelstest::shared_hivm("seeded_gap2_strided.npuir.mlir"),
       "--set", "launch={grid=[2048],args={\"%arg5\"=2048}}", "--format", "json"});
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(r.err.find("launch.args.\"%arg5\" matches no argument of the kernel: the kernel has no Triton argument at that "
                   "position") != std::string::npos);
  CHECK(r.err.find("2 (scalar %arg5)") != std::string::npos);
}

namespace {


std::vector<std::string> vector_add_run(const std::string &pipeline, const std::string &launch) {
  std::vector<std::string> args{"run", modelstest::pipeline(pipeline)};
  if (pipeline != "bound_hivm.toml") args.insert(args.end(), {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir")});
  if (pipeline != "bound_dsl.toml") args.insert(args.end(), {"--set", "hivm=" + modelstest::example("vector_add.npuir.mlir")});
  args.insert(args.end(), {"--set", "launch=" + launch, "--format", "json"});
  return args;
}

}  // namespace

TEST_CASE("launch args: a Triton name reaches the HIVM tier through the TTIR signature") {
  // Issue 26: args={n_elements=16777216} gave the HIVM tier no value (the dump
  // names no arguments), so its DMAs counted nothing and T_bound_HIVM was
  // 3.644 us, strict, with exit 0 and no word in the verdict. Now the HIVM
  // extractor reads the names from the TTIR signature (the dsl edge of
  // bound.toml): the same limit as with the position "3", and no warning.
  // By hand: the HIVM tier moves 3 x 16,777,216 f32 = 201,326,592 B, so its
  // limit is at least that over the HBM peak, 201326592 / 1.6e12 = 125.83 us.
  modelstest::RunOut by_name = modelstest::run_pipeline(
      modelstest::pipeline("bound.toml"),
      {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set", "hivm=" + modelstest::example("vector_add.npuir.mlir"),
       "--set", "launch={grid=[8192,1,1],args={n_elements=16777216}}"});
  modelstest::RunOut by_position = modelstest::run_pipeline(
      modelstest::pipeline("bound.toml"),
      {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set", "hivm=" + modelstest::example("vector_add.npuir.mlir"),
       "--set", "launch={grid=[8192,1,1],args={\"3\"=16777216}}"});
  const double hivm = seconds(by_name.report["limits"]["hivm"]);
  CHECK(hivm >= 201326592.0 / 1.6e12);
  CHECK(hivm == doctest::Approx(seconds(by_position.report["limits"]["hivm"])).epsilon(1e-12));
  CHECK(by_name.report["bound"]["tier"] == "hivm");
  CHECK(by_name.cli.err.find("warning") == std::string::npos);
  CHECK(by_name.cli.err.find("matches no") == std::string::npos);
  CHECK_FALSE(by_name.report["verdict"].contains("missing_args"));
  // The coalescing finding names the Python lines of the tile and the value
  // to give its block-size constexpr: 2,048 f32 = 8 KiB per transfer, so
  // 4,096 reaches 16 KiB.
  bool found = false;
  for (const json &f : by_name.findings["findings"]) {
    if (f["category"] != "coalescing") continue;
    found = true;
    const std::string action = f["action"].get<std::string>();
    CHECK(action.find("01-vector-add.py:50") != std::string::npos);
    CHECK(action.find("raise that tile's block-size constexpr from 2,048 to 4,096 or more") != std::string::npos);
  }
  CHECK(found);
}

TEST_CASE("launch args: without n_elements the DMAs are uncounted with give args.\"3\" and the verdict names it") {
  // No argument at all: every DMA size and the masked vbrc branches depend on
  // n_elements, so those ops are not counted (never counted at 0 with 100 %
  // coverage): coverage lists them with the argument to give, and the
  // verdict says which argument is missing in both tiers.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound.toml"),
      {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set", "hivm=" + modelstest::example("vector_add.npuir.mlir"),
       "--set", "launch={grid=[8192,1,1]}"});
  const json &cov = run.report["coverage"]["hivm"];
  int dma_hinted = 0;
  for (const json &u : cov["not_counted"])
    if ((u["op"] == "hivm.hir.load" || u["op"] == "hivm.hir.store") && u["hint"] == "give args.\"3\"") ++dma_hinted;
  CHECK(dma_hinted == 3);  // two loads (lines 42, 52) and the store (line 62)
  const json &verdict = run.report["verdict"];
  REQUIRE(verdict.contains("missing_args"));
  REQUIRE(verdict["missing_args"].size() == 1);
  CHECK(verdict["missing_args"][0]["key"] == "n_elements");
  CHECK(verdict["missing_args"][0]["position"] == 3);
  CHECK(verdict["missing_args"][0]["tiers"] == json::array({"dsl", "hivm"}));
  CHECK(verdict["why"].get<std::string>().find("launch argument n_elements not given") != std::string::npos);
  // The memory term has no number: the vector floor binds among what is
  // counted, and the verdict says the unknown term might bind instead.
  CHECK(verdict["why"].get<std::string>().find("the hivm memory term has no number, so the kernel may be bound by it "
                                              "instead") != std::string::npos);
  // Two of the binding unit's three ops may not run (a branch on the
  // argument): its work share reads 100 % (32 of 32 repeats: those ops add
  // to neither side), its op share 1 of 3. The lower one leads the headline
  // (before: "100 % of the binding unit's vector repeats").
  const json &binding = cov["binding"];
  CHECK(binding["component"] == "vector");
  CHECK(binding["share"].get<double>() < 0.5);
  std::vector<std::string> as_text = vector_add_run("bound.toml", "{grid=[8192,1,1]}");
  as_text.back() = "text";
  const std::string text = pbtest::run_cli(as_text).out;
  CHECK(text.find("coverage      33.3 % of the binding unit's ops on aiv counted (1 of 3); its vector repeats 32 of") !=
        std::string::npos);
}

TEST_CASE("launch args: a name the HIVM-only pipeline cannot resolve is refused, unless optional") {
  // bound_hivm.toml has no TTIR to name the arguments: n_elements matches
  // nothing there. Before: a warning and a bound without the argument.
  pbtest::CliResult r = pbtest::run_cli(vector_add_run("bound_hivm.toml", "{grid=[8192],args={n_elements=16777216}}"));
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(r.err.find("launch.args.\"n_elements\" matches no argument of the kernel: the HIVM dump carries no argument names and "
                   "no TTIR signature is wired in") != std::string::npos);
  CHECK(r.err.find("3 (scalar %arg6)") != std::string::npos);
  // Listed as optional, it is ignored; the position still binds.
  pbtest::CliResult ok = pbtest::run_cli(
      vector_add_run("bound_hivm.toml", "{grid=[8192],args={n_elements=16777216,\"3\"=16777216},optional_args=[\"n_elements\"]}"));
  INFO(ok.err);
  CHECK(ok.code == 0);
}

TEST_CASE("launch args: a mistyped name is refused with did-you-mean, two keys of one argument must agree") {
  pbtest::CliResult typo = pbtest::run_cli(vector_add_run("bound.toml", "{grid=[8192,1,1],args={n_element=16777216}}"));
  INFO(typo.err);
  CHECK(typo.code == 3);
  CHECK(typo.err.find("kernel 'add_kernel' has no argument 'n_element' (did you mean 'n_elements'?)") != std::string::npos);
  pbtest::CliResult agree = pbtest::run_cli(vector_add_run("bound.toml", "{grid=[8192,1,1],args={n_elements=16777216,\"3\"=16777216}}"));
  CHECK(agree.code == 0);
  pbtest::CliResult differ = pbtest::run_cli(vector_add_run("bound.toml", "{grid=[8192,1,1],args={n_elements=16777216,\"3\"=1024}}"));
  INFO(differ.err);
  CHECK(differ.code == 3);
  CHECK(differ.err.find("both give argument 3 ('n_elements': i32)") != std::string::npos);
}

TEST_CASE("launch args: values outside the declared type are refused naming the key and the range") {
  // n_elements is an i32 in both the TTIR signature and the HIVM dump
  // (%arg6: i32): 2^31 does not fit, 1.5 is no integer, true is no i32, 1e300
  // is no integer in range.
  for (const char *value : {"2147483648", "1.5", "true", "1e300"}) {
    CAPTURE(value);
    pbtest::CliResult r = pbtest::run_cli(vector_add_run("bound_hivm.toml", std::string("{grid=[8192],args={\"3\"=") + value + "}}"));
    INFO(r.err);
    CHECK(r.code == 3);
    CHECK(r.err.find(std::string("launch.args.\"3\" = ") + (std::string(value) == "1e300" ? "1e+300" : value) +
                     ": the argument is i32, which takes an integer from -2^31 to 2^31-1") != std::string::npos);
  }
  // The TTIR reads the same range from its signature: 2^40 for n_elements.
  pbtest::CliResult ttir = pbtest::run_cli(vector_add_run("bound_dsl.toml", "{grid=[8192,1,1],args={n_elements=1099511627776}}"));
  INFO(ttir.err);
  CHECK(ttir.code == 3);
  CHECK(ttir.err.find("launch.args.n_elements = 1099511627776: argument 'n_elements' is i32, which takes an integer from -2^31 to "
                      "2^31-1") != std::string::npos);
  // The largest i32 is taken.
  CHECK(pbtest::run_cli(vector_add_run("bound_hivm.toml", "{grid=[8192],args={\"3\"=2147483647}}")).code == 0);
}

TEST_CASE("launch args: a name on the HIVM signature's own location binds without a TTIR") {
  // The same dump with %arg6 carrying its Triton name as a location, as a
  // dump printed with named locations would: bound_hivm.toml binds
  // n_elements through it, to the same limit as the position "3".
  pbtest::TempDir tmp;
  std::string text = pbtest::read_file(modelstest::example("vector_add.npuir.mlir"));
  const std::string plain = "%arg6: i32 {tt.divisibility = 16 : i32}";
  REQUIRE(text.find(plain) != std::string::npos);
  text.replace(text.find(plain), plain.size(), plain + " loc(\"n_elements\")");
  pbtest::write_file(tmp / "named.npuir.mlir", text);
  modelstest::RunOut named = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + (tmp / "named.npuir.mlir").string(), "--set", "launch={grid=[8192],args={n_elements=16777216}}"});
  modelstest::RunOut positional = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + modelstest::example("vector_add.npuir.mlir"), "--set", "launch={grid=[8192],args={\"3\"=16777216}}"});
  CHECK(seconds(named.report["bound"]) == doctest::Approx(seconds(positional.report["bound"])).epsilon(1e-12));
  // n counted: 8192 blocks in 205 waves of the per-block critical chain
  // (two 8 KiB loads, the vadd, the store: 124.44 ns, test_golden.cpp) =
  // 25.51 us; without n the DMAs would not be counted at all.
  CHECK(seconds(named.report["bound"]) >= 25.5e-6);
}

TEST_CASE("given facts: the argued bound states the given one, and coverage never counts more than is present") {
  // The bundled varlen_rows kernel reads its loop bounds from an offsets
  // tensor; the .npy gives them. Before: "argued; strict 0 s" (the memory
  // floor of 133 ns that the offsets give appeared nowhere in the headline)
  // and coverage rows "30,720 / 0 B" (the present figure was the guaranteed
  // 0 of ops the facts count).
  const std::string dir = (pbtest::source_dir() / "examples" / "kernels" / "varlen_rows").string();
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + dir + "/varlen_rows.npuir.mlir", "--set",
       "launch={grid=[4],data={\"0\"={npy=\"" + dir + "/offsets.npy\"}}}"});
  const json &bound = run.report["bound"];
  REQUIRE(bound["given"].is_object());
  const double given = bound["given"]["value"].get<double>();
  CHECK(given > bound["strict"]["value"].get<double>());
  CHECK(given <= bound["value"].get<double>());
  for (const json &t : run.report["terms"])
    if (t["assurance"] == "given" && t["role"] == "floor") CHECK(given >= t["value"]["value"].get<double>());
  for (const json &row : run.report["coverage"]["hivm"]["by_component"]) {
    INFO(row.dump());
    if (row["work_present_per_block"].is_number())
      CHECK(row["work_counted_per_block"].get<double>() <= row["work_present_per_block"].get<double>() * (1 + 1e-12));
  }
}
