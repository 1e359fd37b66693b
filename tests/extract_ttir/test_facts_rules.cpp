//===- test_facts_rules.cpp - unknowns, estimates, limits and bad launches -===//
#include "ttir_test_support.hpp"

using namespace ttirtest;
using perfbound::ttir::FactsOptions;

namespace {

/// dsl_facts of a TTIR text given inline.
json facts_of_text(const std::string &text, const json &launch, const FactsOptions &options = {}) {
  auto module = perfbound::ttir::analyze_ttir(text, "inline.ttir");
  REQUIRE_MESSAGE(static_cast<bool>(module), (module ? std::string() : module.error().message));
  const auto &kernel = perfbound::ttir::select_kernel(*module, launch);
  return perfbound::ttir::build_dsl_facts(*module, kernel, launch, profile_910b3(), options);
}

bool mentions(const json &unresolved, const std::string &what) {
  for (const json &u : unresolved)
    if (u.at("what").get<std::string>().find(what) != std::string::npos) return true;
  return false;
}

// Vector add with BLOCK 32768: three 128 KiB f32 tiles cannot share 192 KiB.
const char *kBigBlockAdd = R"(module {
  tt.func public @add_big(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: !tt.ptr<f32>, %arg3: i32) {
    %c32768_i32 = arith.constant 32768 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c32768_i32 : i32
    %2 = tt.make_range {end = 32768 : i32, start = 0 : i32} : tensor<32768xi32>
    %3 = tt.splat %1 : i32 -> tensor<32768xi32>
    %4 = arith.addi %3, %2 : tensor<32768xi32>
    %5 = tt.splat %arg3 : i32 -> tensor<32768xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<32768xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<32768x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<32768x!tt.ptr<f32>>, tensor<32768xi32>
    %9 = tt.load %8, %6 : tensor<32768x!tt.ptr<f32>>
    %10 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32768x!tt.ptr<f32>>
    %11 = tt.addptr %10, %4 : tensor<32768x!tt.ptr<f32>>, tensor<32768xi32>
    %12 = tt.load %11, %6 : tensor<32768x!tt.ptr<f32>>
    %13 = arith.addf %9, %12 : tensor<32768xf32>
    %14 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<32768x!tt.ptr<f32>>
    %15 = tt.addptr %14, %4 : tensor<32768x!tt.ptr<f32>>, tensor<32768xi32>
    tt.store %15, %13, %6 : tensor<32768x!tt.ptr<f32>>
    tt.return
  }
}
)";

// A gather: y[i] = x[idx[i]] with idx loaded from memory (line 9).
const char *kGather = R"(module {
  tt.func public @gather(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<i32>, %arg2: !tt.ptr<f32>) {
    %c256_i32 = arith.constant 256 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c256_i32 : i32
    %2 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %3 = tt.splat %1 : i32 -> tensor<256xi32>
    %4 = arith.addi %3, %2 : tensor<256xi32>
    %5 = tt.splat %arg1 : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %6 = tt.addptr %5, %4 : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    %7 = tt.load %6 : tensor<256x!tt.ptr<i32>>
    %8 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %9 = tt.addptr %8, %7 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %10 = tt.load %9 : tensor<256x!tt.ptr<f32>>
    %11 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %12 = tt.addptr %11, %4 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %12, %10 : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}
)";

}  // namespace

TEST_CASE("a missing launch value makes what needs it null or a bound, with the reason") {
  json doc = facts(example_kernel("vector_add"), {{"grid", {8192}}});
  CHECK(doc.at("launch").at("missing_args") == json{"n_elements"});
  CHECK(mentions(doc.at("unresolved"), "launch value of n_elements"));
  // Requested traffic does not depend on n_elements: still exact.
  CHECK(value(doc.at("bytes").at("read").at("requested").at("total")) == 134217728);
  CHECK(exact(doc.at("bytes").at("read").at("requested").at("total")));
  // What the mask cuts does: unique bytes are only a lower bound (here 0:
  // nothing could be enumerated), never a silent number.
  const json &unique = doc.at("bytes").at("read").at("unique_total");
  CHECK_FALSE(exact(unique));
  CHECK(unique.at("bound") == "lower");
  CHECK(unique.at("reason").get<std::string>().find("n_elements") != std::string::npos);
  CHECK(doc.at("accesses").at(0).at("active_bytes").at("value").is_null());
}

TEST_CASE("launch arguments: by name, by \"%argN\" or \"N\"; unknown names are refused") {
  for (const char *key : {"n_elements", "%arg3", "3"}) {
    json doc = facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{key, 16777216}}}});
    CHECK(doc.at("launch").at("args").at("n_elements") == 16777216);
  }
  CHECK_THROWS_WITH_AS(facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elemnts", 1}}}}),
                       "launch.args.n_elemnts: kernel 'add_kernel' has no argument 'n_elemnts' (did you mean 'n_elements'?); "
                       "arguments: x_ptr, y_ptr, output_ptr, n_elements; positions may be given as \"%argN\" or \"N\"; a "
                       "key that may match nothing goes in launch.optional_args",
                       pb::sdk::InputError);
  // Listed as optional, a key that names nothing is ignored.
  json optional = facts(example_kernel("vector_add"),
                        {{"grid", {8192}}, {"args", {{"n_elements", 16}, {"BLOCK", 1}}}, {"optional_args", {"BLOCK"}}});
  CHECK(optional.at("launch").at("args").at("n_elements") == 16);
  // Values the declared type cannot hold (issue 26): n_elements is an i32.
  CHECK_THROWS_WITH_AS(facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", 2.5}}}}),
                       "launch.args.n_elements = 2.5: argument 'n_elements' is i32, which takes an integer from -2^31 to 2^31-1",
                       pb::sdk::InputError);
  CHECK_THROWS_WITH_AS(facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", int64_t{1} << 40}}}}),
                       "launch.args.n_elements = 1099511627776: argument 'n_elements' is i32, which takes an integer from "
                       "-2^31 to 2^31-1",
                       pb::sdk::InputError);
  CHECK_THROWS_WITH_AS(facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", true}}}}),
                       "launch.args.n_elements = true: argument 'n_elements' is i32, which takes an integer from -2^31 to "
                       "2^31-1",
                       pb::sdk::InputError);
  // A whole number written as a float is that integer; two keys of one argument must agree.
  CHECK(facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", 16777216.0}}}})
            .at("launch").at("args").at("n_elements") == 16777216.0);
  CHECK_THROWS_AS(facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", 16}, {"3", 32}}}}),
                  pb::sdk::InputError);
  CHECK_THROWS_WITH_AS(facts(example_kernel("vector_add"), {{"grid", {0}}}),
                       "launch.grid[0]: expected a positive integer, got 0", pb::sdk::InputError);
}

TEST_CASE("kernel selection: the only public kernel, a name, or name:line among duplicates") {
  PBTEST_REQUIRE_SHARED();
  const fs::path file = shared_ttir("ascend_tensor_descriptor_split.ttir");
  perfbound::ttir::TtirModule m = parse_file(file);
  // Five public kernels share one name: a bare name is ambiguous.
  try {
    (void)perfbound::ttir::select_kernel(m, {{"grid", {1}}, {"kernel", "triton_tensor_descriptor_function_2d"}});
    FAIL("expected an InputError");
  } catch (const pb::sdk::InputError &e) {
    std::string msg = e.what();
    CHECK(msg.find("5 kernels match 'triton_tensor_descriptor_function_2d'") != std::string::npos);
    CHECK(msg.find("triton_tensor_descriptor_function_2d:35") != std::string::npos);
  }
  // name:line picks the second module's kernel (its load is i32).
  const auto &k = perfbound::ttir::select_kernel(m, {{"grid", {1}}, {"kernel", "triton_tensor_descriptor_function_2d:35"}});
  CHECK(k.accesses.at(0).dtype == "i32");
  CHECK_THROWS_AS((void)perfbound::ttir::select_kernel(m, {{"grid", {1}}, {"kernel", "nope"}}), pb::sdk::InputError);
}

TEST_CASE("UB overflow: buffer_ok is false, the culprits and the largest block that fits are named") {
  json doc = facts_of_text(kBigBlockAdd, {{"grid", {512}}, {"args", {{"%arg3", 16777216}}}});
  const json &ub = doc.at("buffers").at("ub");
  // x, y and x + y: 3 x 32768 x 4 B = 393216 B > 196608 B.
  CHECK(value(ub.at("footprint")) == 393216);
  CHECK(ub.at("ok") == false);
  CHECK(doc.at("buffers").at("buffer_ok") == false);
  REQUIRE(ub.at("largest_live").size() == 3);
  CHECK(ub.at("largest_live").at(0).at("name") == "tt.load at line 13");
  CHECK(ub.at("largest_live").at(0).at("bytes") == 131072);
  CHECK(ub.at("largest_live").at(0).at("source").at("line") == 13);
  // 3 x 16384 x 4 B = 196608 B fits exactly.
  CHECK(ub.at("largest_fitting").at(0).at("dim") == 32768);
  CHECK(ub.at("largest_fitting").at(0).at("largest") == 16384);
}

TEST_CASE("the unique-byte enumeration budget turns unique figures into lower bounds") {
  FactsOptions options;
  options.row_budget = 100;  // vector add needs 3 rows per program, 8192 programs
  json doc = facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", 16777216}}}}, options);
  CHECK(doc.at("evaluation").at("budget_reached") == true);
  const json &unique = doc.at("bytes").at("read").at("unique_total");
  CHECK_FALSE(exact(unique));
  CHECK(unique.at("bound") == "lower");
  // 100 rows cover 33 full programs of x and y (33 x 2 x 8192 B) plus one
  // more row of x: at most 100 x 8192 B, at least 33 x 16384 B.
  CHECK(value(unique) >= 33 * 16384);
  CHECK(value(unique) <= 100 * 8192);
  // Requested bytes and FLOP need no enumeration: still exact.
  CHECK(exact(doc.at("bytes").at("read").at("requested").at("total")));
  CHECK(exact(doc.at("flop").at("total")));
}

TEST_CASE("indirect accesses: offsets from loaded values make unique bytes a lower bound with the line") {
  json doc = facts_of_text(kGather, {{"grid", {4}}});
  const json &x = doc.at("accesses").at(1);
  CHECK(x.at("offset") == "unknown@11");
  CHECK(x.at("contiguity").at("run_bytes").at("value").is_null());
  CHECK(x.at("contiguity").at("run_bytes").at("reason").get<std::string>().find("loaded from memory at line 11") !=
        std::string::npos);
  // idx (4 x 1024 B) is known; x is not: the read union is a lower bound.
  const json &unique = doc.at("bytes").at("read").at("unique_total");
  CHECK(unique.at("bound") == "lower");
  CHECK(value(unique) == 4096);
  CHECK(value(doc.at("bytes").at("read").at("requested").at("total")) == 8192);
}

TEST_CASE("conditions that depend on loaded data: counted as executed, marked as upper bounds") {
  PBTEST_REQUIRE_SHARED();
  // linear_compress_bwd returns early when a loaded length is exceeded (line 42).
  json args = json::object();
  for (int idx = 7; idx <= 18; ++idx) args["%arg" + std::to_string(idx)] = 128;
  json doc = facts(shared_ttir("ascend_annotation_linear_compress_bwd.ttir"), {{"grid", {8, 4, 64}}, {"args", args}});
  const json &cube = doc.at("flop").at("cube").at("cube_fp16").at("total");
  CHECK_FALSE(exact(cube));
  CHECK(cube.at("bound") == "upper");
  CHECK(cube.at("reason").get<std::string>().find("a value loaded from memory at line") != std::string::npos);
  // Two dots of 2*16*128*32 and 2*128*32*16 FLOP in each of 2048 programs.
  CHECK(value(cube) == 2048.0 * 2 * 131072);
  bool condition_reported = false;
  for (const json &u : doc.at("unresolved"))
    condition_reported = condition_reported || u.at("what").get<std::string>().rfind("condition guarding", 0) == 0;
  CHECK(condition_reported);
}

TEST_CASE("per-program work that needs every program: beyond the program budget it is unknown") {
  FactsOptions options;
  options.program_budget = 10;
  json doc = facts(kernel_file("flash_attention_fwd.ttir"), {{"grid", {16, 4}}, {"args", {{"%arg5", 1024}}}}, options);
  const json &total = doc.at("bytes").at("read").at("requested").at("total");
  CHECK(total.at("value").is_null());
  CHECK(total.at("reason").get<std::string>().find("more than the evaluation budget of 10") != std::string::npos);
}

TEST_CASE("work inside scf.while is unknown, not zero") {
  json doc = facts(test_dir() / "syntax" / "printed_forms.ttir", {{"grid", {4}}, {"kernel", "control_flow_forms"}, {"args", {{"%arg1", 2}}}});
  // The load after the while loop is outside it: counted (under the early-return condition).
  CHECK(doc.at("accesses").at(0).at("executions_per_program").at("max") == 1);
  CHECK(mentions(doc.at("unresolved"), "scf.while"));
  CHECK(doc.at("loops").at(0).at("trip_count").at("status") == "unknown");
}

TEST_CASE("the text and Markdown views show the numbers a reader looks for") {
  json doc = facts(example_kernel("vector_add"), {{"grid", {8192}}, {"args", {{"n_elements", 16777216}}}});
  std::optional<std::string> text = perfbound::ttir::render_dsl_facts(doc, "text");
  REQUIRE(text);
  CHECK(text->find("205 (tail wave 32 programs, occupancy 99.9%)") != std::string::npos);
  CHECK(text->find("~24 KiB of 192 KiB - fits") != std::string::npos);
  CHECK(text->find("dimension 2048 fits up to 16384") != std::string::npos);
  std::optional<std::string> md = perfbound::ttir::render_dsl_facts(doc, "md");
  REQUIRE(md);
  CHECK(md->find("### Kernel add_kernel") != std::string::npos);
  CHECK(md->find("| read | 16 KiB | 128 MiB | 128 MiB | 128 MiB |") != std::string::npos);
  CHECK_FALSE(perfbound::ttir::render_dsl_facts(doc, "html"));
}

namespace {

// Written for issue 23, review item 9. x + y into out over 4 programs of 64
// f32 (256 B each), then a read of out[i] back after the store (a kernel that
// reads its own write), added into y's element 0 of no consequence here.
const char *kAliasAdd = R"(module {
  tt.func public @alias_add(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: !tt.ptr<f32>) {
    %c64_i32 = arith.constant 64 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %3 = tt.splat %1 : i32 -> tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %6 = tt.addptr %5, %4 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %7 = tt.load %6 : tensor<64x!tt.ptr<f32>>
    %8 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %9 = tt.addptr %8, %4 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %10 = tt.load %9 : tensor<64x!tt.ptr<f32>>
    %11 = arith.addf %7, %10 : tensor<64xf32>
    %12 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %13 = tt.addptr %12, %4 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %13, %11 : tensor<64x!tt.ptr<f32>>
    %14 = tt.load %13 : tensor<64x!tt.ptr<f32>>
    %15 = arith.addf %14, %11 : tensor<64xf32>
    tt.store %13, %15 : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
)";

double read_unique(const json &doc) { return doc.at("bytes").at("read").at("unique_total").at("value").get<double>(); }

}  // namespace

TEST_CASE("item 9: reads of the kernel's own writes and of arguments at one address are not forced traffic") {
  // Truth over 4 programs: x and y are 1 KiB each; out is written (1 KiB) and read back after the
  // write. Distinct buffers: the HBM must deliver x and y, 2,048 B; out's read-back need not reach it.
  json apart = facts_of_text(kAliasAdd, {{"grid", {4}}});
  CHECK(read_unique(apart) == 2048);
  CHECK_FALSE(apart.at("bytes").at("read").at("unique_total").at("exact").get<bool>());
  const json &by_arg = apart.at("bytes").at("read").at("by_arg");
  REQUIRE(by_arg.size() == 3);
  CHECK(by_arg.at(2).at("arg_key") == "%arg2");
  CHECK(by_arg.at(2).at("unique_total").at("value") == 0);
  CHECK(by_arg.at(2).at("credit").get<std::string>().find("writes to %arg2") != std::string::npos);
  CHECK(by_arg.at(2).at("unique_per_program").at("min") == 0);
  // Without addresses the sum over x and y rests on their not overlapping: said so.
  CHECK(apart.at("bytes").at("assumes").get<std::string>().find("do not overlap") != std::string::npos);
  // x and y at one address (add(x, x)): 1,024 B of reads, not 2,048; no assumption left.
  json same = facts_of_text(kAliasAdd, {{"grid", {4}}, {"args", {{"0", 1 << 20}, {"1", 1 << 20}, {"2", 1 << 24}}}});
  CHECK(read_unique(same) == 1024);
  CHECK(same.at("bytes").at("read").at("by_arg").at(1).at("credit").get<std::string>().find("%arg0") != std::string::npos);
  CHECK_FALSE(same.at("bytes").contains("assumes"));
  CHECK(same.at("bytes").at("read").at("unique_per_program_sum").at("value") == 1024);
  // y half over x (+128 B): 1,024 + 128 B.
  json half = facts_of_text(kAliasAdd, {{"grid", {4}}, {"args", {{"0", 1 << 20}, {"1", (1 << 20) + 128}, {"2", 1 << 24}}}});
  CHECK(read_unique(half) == 1152);
  // out placed over x: x's bytes are written by the kernel, none of them forced; y's are.
  json inplace = facts_of_text(kAliasAdd, {{"grid", {4}}, {"args", {{"0", 1 << 20}, {"1", 1 << 22}, {"2", 1 << 20}}}});
  CHECK(read_unique(inplace) == 1024);
  // Apart, with addresses: nothing shared, the same as without them.
  json placed = facts_of_text(kAliasAdd, {{"grid", {4}}, {"args", {{"0", 1 << 20}, {"1", 1 << 22}, {"2", 1 << 24}}}});
  CHECK(read_unique(placed) == 2048);
  CHECK(placed.at("bytes").at("read").at("by_arg").at(0).at("unique_total").at("exact") == true);
}
