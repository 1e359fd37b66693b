//===- test_foreign_forms.cpp - TTIR printed by other compilers (issue 24) -===//
//
// What the peer test suites showed the front end must do, on TTIR written
// here: never recurse without end (the carried-pointer cycle, deep chains),
// read both tensor-descriptor syntaxes, make foreign ops opaque with their
// right result types, define triton-ascend's tt.mod / tt.gather_load /
// tt.call_scalar, refuse only the function an error is in, take kernel lines
// from the parser, and read lit files section by section.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "ttir_test_support.hpp"
#include "ttir_text.hpp"

using namespace ttirtest;
using namespace perfbound::ttir;

namespace {

const KernelModel &kernel_named(const TtirModule &m, const std::string &name) {
  for (const KernelModel &k : m.kernels)
    if (k.name == name) return k;
  FAIL("no kernel " << name);
  throw std::logic_error("unreachable");
}

json launch_for(const std::string &kernel, json args = json::object()) {
  return {{"schema", "perfbound.launch/1"}, {"grid", {2}}, {"kernel", kernel}, {"args", std::move(args)}};
}

std::string first_line(const std::string &text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("recursion: a pointer carried through nested scf.if yields in an scf.for is not an induction") {
  // Before the fix the carried pointer was bound to an expression holding
  // itself (select(c, p + 64, p) - p as its increment) and every walk over
  // it recursed until the stack ran out (SIGSEGV).
  const fs::path file = pbtest::source_dir() / "tests" / "regress" / "ttir" / "carried_ptr_nested_if_yield.ttir";
  TtirModule m = parse_file(file);
  REQUIRE(m.kernels.size() == 1);
  const KernelModel &k = m.kernels.front();
  // The load in the loop reads a pointer that is no induction variable: its
  // offset is unknown (with the loop's line), never a cycle.
  REQUIRE(k.accesses.size() == 5);
  ExprId offset = k.accesses[0].offset;
  CHECK(k.pool->first_opaque(offset) != kNoExpr);
  CHECK(k.pool->to_string(offset, k.namer()).find("unknown@") != std::string::npos);
  json doc = perfbound::ttir::build_dsl_facts(m, k, launch_for("skip_rows", {{"%arg3", 8}}),
                                              profile_910b3(), {});
  CHECK(doc.at("bytes").is_object());
}

TEST_CASE("recursion: a search loop's index moved by a data-decided select is not an induction") {
  // lo = v < key ? (lo + n) / 2 + 1 : lo: before the fix lo was bound to an
  // expression holding itself and building `lo / 2` after the loop recursed
  // in ExprPool::to_poly until the stack ran out (SIGSEGV).
  const fs::path file = pbtest::source_dir() / "tests" / "regress" / "ttir" / "search_carried_index.ttir";
  TtirModule m = parse_file(file);
  REQUIRE(m.kernels.size() == 1);
  const KernelModel &k = m.kernels.front();
  REQUIRE(k.accesses.size() == 2);
  // The load in the loop and the store after it read the unknown index.
  for (const Access &a : k.accesses) CHECK(k.pool->first_opaque(a.offset) != kNoExpr);
  json doc = perfbound::ttir::build_dsl_facts(m, k, launch_for("search", {{"%arg2", 1000}, {"%arg3", 0.5}}),
                                              profile_910b3(), {});
  CHECK(doc.at("bytes").is_object());
}

TEST_CASE("recursion: a placeholder is never bound to a value that contains it") {
  ExprPool pool;
  ExprId p = pool.placeholder(0);
  ExprId cyclic = pool.add(pool.select(pool.arg(0), pool.add(p, pool.constant(64)), p), pool.constant(1));
  CHECK_FALSE(pool.bind(p, cyclic));
  // The placeholder is an unknown value now, and every walk ends.
  CHECK(pool.node(pool.resolve(p)).op == ExprOp::Opaque);
  CHECK(pool.to_poly(cyclic).size() >= 1);
  ExprPool ok;
  ExprId q = ok.placeholder(0);
  CHECK(ok.bind(q, ok.add(ok.arg(0), ok.loop_iter(0))));
}

TEST_CASE("recursion: walks over expressions deeper than kMaxExprDepth give their conservative answer") {
  ExprPool pool;
  ExprId e = pool.dim(0);
  // a*(...(a*(i0 + 1) + 1)...): not folded by the polynomial form's cap
  // because each level multiplies by an unknown argument.
  for (int level = 0; level < 3 * kMaxExprDepth; ++level)
    e = pool.add(pool.mul(e, pool.arg(0)), pool.constant(1));
  CHECK(pool.height(e) == 3 * kMaxExprDepth * 2);  // saturates only at 65535
  // Rewriting dimensions, the polynomial form, printing, evaluating and
  // concretising all return without running out of stack.
  ExprId remapped = pool.remap_dims(e, {pool.dim(1)});
  CHECK(remapped != kNoExpr);
  CHECK_FALSE(pool.to_poly(e).empty());
  ExprNamer namer;
  const std::string printed = pool.to_string(e, namer);
  CHECK(printed.find("...") != std::string::npos);
  CHECK(printed.size() < 4'000'000);
  std::vector<std::optional<std::int64_t>> args{std::int64_t{1}};
  std::vector<std::int64_t> dims{3};
  EvalEnv env;
  env.args = &args;
  env.dims = &dims;
  Evaluator eval(pool);
  EvalResult r = eval.eval(e, env);
  CHECK_FALSE(r.value);  // too deep to evaluate: unknown, not a crash
  Concretizer conc(pool, namer);
  AffineForm form;
  AffineFailure failure;
  VarRange ranges = [](int) { return std::optional<std::pair<std::int64_t, std::int64_t>>({0, 3}); };
  CHECK_FALSE(conc.run(e, env, ranges, form, failure));
  CHECK(failure.why == kTooDeepReason);
}

TEST_CASE("recursion: a chain of thousands of index operations becomes unknown with the op's line") {
  // 1500 dependent `arith.addi` on the offset of a load: the expression is
  // capped at kMaxExprHeight operations (%v1000, line 1003, is the first
  // beyond it), the load's offset is unknown with the reason and that line,
  // and the facts are produced.
  std::string text = "module {\n  tt.func public @chain(%x: !tt.ptr<f32>, %n: i32) {\n    %v0 = arith.addi %n, %n : i32\n";
  for (int i = 1; i < 1500; ++i)
    text += "    %v" + std::to_string(i) + " = arith.addi %v" + std::to_string(i - 1) + ", %n : i32\n";
  text += "    %p = tt.addptr %x, %v1499 : !tt.ptr<f32>, i32\n    %l = tt.load %p : !tt.ptr<f32>\n"
          "    tt.store %x, %l : !tt.ptr<f32>\n    tt.return\n  }\n}\n";
  TtirModule m = model_of_text(text);
  const KernelModel &k = m.kernels.front();
  REQUIRE(k.accesses.size() == 2);
  ExprId opaque = k.pool->first_opaque(k.accesses[0].offset);
  REQUIRE(opaque != kNoExpr);
  CHECK(k.pool->opaque_info(opaque).reason.find(kTooDeepReason) != std::string::npos);
  CHECK(k.pool->opaque_info(opaque).line == 3 + kMaxExprHeight);
  json doc = perfbound::ttir::build_dsl_facts(m, k, launch_for("chain", {{"%arg1", 4}}), profile_910b3(), {});
  CHECK(doc.at("bytes").is_object());
}

TEST_CASE("tensor descriptors: the 2026 syntax and the 3.2-3.7 syntax give the same model") {
  TtirModule m = parse_file(test_dir() / "syntax" / "foreign_forms.ttir");
  const KernelModel &now = kernel_named(m, "desc_new_syntax");
  const KernelModel &old = kernel_named(m, "desc_old_syntax");
  REQUIRE(now.accesses.size() == 2);
  REQUIRE(old.accesses.size() == 2);
  for (size_t a = 0; a < 2; ++a) {
    CHECK(now.accesses[a].shape == std::vector<std::int64_t>{128, 64});
    CHECK(now.accesses[a].shape == old.accesses[a].shape);
    CHECK(now.accesses[a].dtype == "f16");
    CHECK(now.accesses[a].arg == 0);
    // 128 x 64 f16 = 16384 bytes per execution, both forms.
    CHECK(now.accesses[a].bytes() == 16384);
    CHECK(now.pool->to_string(now.accesses[a].offset, now.namer()) ==
          old.pool->to_string(old.accesses[a].offset, old.namer()));
  }
  // A descriptor argument in the new syntax with a layout: the block shape.
  const KernelModel &arg = kernel_named(m, "desc_arg_new_syntax");
  REQUIRE(arg.accesses.size() == 1);
  CHECK(arg.accesses[0].shape == std::vector<std::int64_t>{64, 32});
  CHECK(arg.args[0].kind == ArgKind::TensorDesc);
}

TEST_CASE("opaque ops: result types of extract, extract_slice, insert_slice, -> T, multi-line ops") {
  std::set<std::string> known{"builtin", "tt", "arith", "scf"};
  // tensor.extract yields the element, not the tensor.
  CHECK(generic_form_of_unknown_op("    %e = tensor.extract %t[%k] {DiscreteMemAccess} : tensor<128xi32>", known) ==
        std::optional<std::string>("    %e = \"tensor.extract\"() : () -> (i32)"));
  CHECK(generic_form_of_unknown_op("  %p = tensor.extract %t[%k] : tensor<4x?x!tt.ptr<f32>, #enc>", known) ==
        std::optional<std::string>("  %p = \"tensor.extract\"() : () -> (!tt.ptr<f32>)"));
  CHECK(generic_form_of_unknown_op("  %s = tensor.extract_slice %t[0] [16] [1] : tensor<128xi32> to tensor<16xi32>",
                                   known) == std::optional<std::string>("  %s = \"tensor.extract_slice\"() : () -> (tensor<16xi32>)"));
  CHECK(generic_form_of_unknown_op("  %i = tensor.insert_slice %s into %t[16] [16] [1] : tensor<16xi32> into "
                                   "tensor<128xi32> loc(#loc3)",
                                   known) ==
        std::optional<std::string>("  %i = \"tensor.insert_slice\"() : () -> (tensor<128xi32>) loc(#loc3)"));
  CHECK(generic_form_of_unknown_op("    %sub = hivm.hir.get_sub_block_idx -> i64", known) ==
        std::optional<std::string>("    %sub = \"hivm.hir.get_sub_block_idx\"() : () -> (i64)"));
  CHECK(generic_form_of_unknown_op("  %d = tensor.dim %t, %c0 : tensor<?xf32>", known) ==
        std::optional<std::string>("  %d = \"tensor.dim\"() : () -> (index)"));
  // An attribute of a module dictionary written over several lines.
  CHECK_FALSE(unknown_op_name("  ttg.target = \"npu:910b\",", known));
  CHECK_FALSE(generic_form_of_unknown_op("  ttg.target = \"npu:910b\",", known));
  // An op over three lines: one generic op, two empty lines.
  const std::string multi =
      "  %c = hivm.hir.custom \"f\"\n      ins(%t : tensor<8xi32>)\n      outs(%t : tensor<8xi32>) -> tensor<8xi32>\n"
      "  tt.return";
  CHECK(make_unknown_ops_opaque(multi, known) == "  %c = \"hivm.hir.custom\"() : () -> (tensor<8xi32>)\n\n\n  tt.return");

  // The whole section parses; each foreign op is listed in not_counted at its line.
  TtirModule m = parse_file(test_dir() / "syntax" / "foreign_forms.ttir");
  const KernelModel &k = kernel_named(m, "foreign_ops");
  std::vector<std::pair<std::string, int>> seen;
  for (const NotCounted &n : k.not_counted) seen.emplace_back(n.op, n.loc.ttir_line);
  std::vector<std::pair<std::string, int>> expected{{"tensor.extract", 56},      {"tensor.extract_slice", 57},
                                                    {"tensor.insert_slice", 58}, {"hivm.hir.get_sub_block_idx", 59},
                                                    {"hivm.hir.custom", 60}};
  CHECK(seen == expected);
  // The store after the multi-line op keeps its line.
  REQUIRE(k.accesses.size() == 1);
  CHECK(k.accesses[0].loc.ttir_line == 65);
}

TEST_CASE("triton-ascend ops: tt.mod is elementwise, tt.gather_load loads its result, tt.call_scalar is not counted") {
  TtirModule m = parse_file(test_dir() / "syntax" / "foreign_forms.ttir");
  const KernelModel &k = kernel_named(m, "ascend_ops");
  // tt.gather_load: 32 rows x 64 bf16 = 4096 bytes read from %src (arg 0),
  // where is data-dependent.
  const Access *gather = nullptr;
  for (const Access &a : k.accesses)
    if (a.detail == "gather_load") gather = &a;
  REQUIRE(gather != nullptr);
  CHECK(gather->arg == 0);
  CHECK(gather->kind == AccessKind::Load);
  CHECK(gather->shape == std::vector<std::int64_t>{32, 64});
  CHECK(gather->bytes() == 4096);
  CHECK(k.pool->first_opaque(gather->offset) != kNoExpr);
  // tt.mod: one vector op per element (32 x 64 = 2048).
  auto mod = std::find_if(k.ops.begin(), k.ops.end(), [](const ComputeOp &c) { return c.op == "tt.mod"; });
  REQUIRE(mod != k.ops.end());
  CHECK(mod->cls == OpClass::Vector);
  CHECK(mod->elements == 2048);
  CHECK(mod->flop == 2048);
  // tt.call_scalar: the helper's work is listed as not counted.
  auto call = std::find_if(k.not_counted.begin(), k.not_counted.end(),
                           [](const NotCounted &n) { return n.op == "tt.call_scalar"; });
  REQUIRE(call != k.not_counted.end());
  CHECK(call->reason.find("@helper") != std::string::npos);
  json doc = perfbound::ttir::build_dsl_facts(m, k, launch_for("ascend_ops", {{"%arg3", 7}}), profile_910b3(), {});
  CHECK(doc.at("bytes").is_object());
}

TEST_CASE("refusals: an error loses only the function it is in, with file:line") {
  const std::string text =
      "module {\n"                                                  // 1
      "  tt.func public @good(%x: !tt.ptr<f32>) {\n"                // 2
      "    %v = tt.load %x : !tt.ptr<f32>\n"                        // 3
      "    tt.store %x, %v : !tt.ptr<f32>\n"                        // 4
      "    tt.return\n"                                             // 5
      "  }\n"                                                       // 6
      "  tt.func public @bad(%x: !tt.ptr<f32>) {\n"                 // 7
      "    %v = tt.frobnicate %x : !tt.ptr<f32>\n"                  // 8
      "    tt.return\n"                                             // 9
      "  }\n"                                                       // 10
      "  tt.func public @bad_verify(%x: !tt.ptr<f32>) {\n"          // 11
      "    %c0 = arith.constant 0 : i32\n"                          // 12
      "    scf.for %i = %c0 to %c0 step %c0 : i32 {\n"              // 13
      "    }\n"                                                     // 14
      "    tt.return\n"                                             // 15
      "  }\n"                                                       // 16
      "  tt.func public @also_good(%x: !tt.ptr<f32>) {\n"           // 17
      "    tt.return\n"                                             // 18
      "  }\n"                                                       // 19
      "}\n";
  auto m = analyze_ttir(text, "mixed.ttir");
  REQUIRE_MESSAGE(static_cast<bool>(m), (m ? "" : m.error().message));
  REQUIRE(m->kernels.size() == 2);
  CHECK(m->kernels[0].name == "good");
  CHECK(m->kernels[0].ttir_line == 2);
  CHECK(m->kernels[1].name == "also_good");
  CHECK(m->kernels[1].ttir_line == 17);
  REQUIRE(m->refused.size() == 2);
  CHECK(m->refused[0].name == "bad");
  CHECK(m->refused[0].line == 7);
  CHECK(first_line(m->refused[0].message).rfind("mixed.ttir:8:", 0) == 0);
  CHECK(m->refused[0].message.find("tt.frobnicate") != std::string::npos);
  CHECK(m->refused[1].name == "bad_verify");
  CHECK(m->refused[1].line == 11);
  CHECK(first_line(m->refused[1].message).rfind("mixed.ttir:13:", 0) == 0);
  CHECK(m->refused[1].message.find("constant step of 0") != std::string::npos);
  // Selecting: the good kernels by name, the refused ones give MLIR's reason.
  CHECK(select_kernel(*m, launch_for("also_good")).name == "also_good");
  CHECK_THROWS_WITH_AS(select_kernel(*m, launch_for("bad")), doctest::Contains("mixed.ttir:8:"), pb::sdk::InputError);
  CHECK_THROWS_WITH_AS(select_kernel(*m, launch_for("bad_verify:11")), doctest::Contains("constant step of 0"),
                       pb::sdk::InputError);
  // Without a name the choice is ambiguous: every kernel is listed, refused ones marked.
  CHECK_THROWS_WITH_AS(select_kernel(*m, json{{"grid", {1}}}), doctest::Contains("bad:7 (refused)"),
                       pb::sdk::InputError);
  // When every function is refused there is nothing to analyse: an Error
  // with the first refusal's message and each refusal.
  auto none = analyze_ttir("module {\n  tt.func public @only() {\n    tt.frobnicate\n  }\n}\n", "none.ttir");
  REQUIRE_FALSE(none);
  CHECK(none.error().message.rfind("none.ttir:3:", 0) == 0);
  REQUIRE(none.error().refused.size() == 1);
  CHECK(none.error().refused[0].line == 2);
}

TEST_CASE("refusals: an error outside every function refuses the functions of its section only") {
  const std::string text =
      "module attributes {tt.bad = } {\n"                           // 1
      "  tt.func public @lost() {\n"                                // 2
      "    tt.return\n"                                             // 3
      "  }\n"                                                       // 4
      "}\n"                                                         // 5
      "// -----\n"                                                  // 6
      "module {\n"                                                  // 7
      "  tt.func public @kept() {\n"                                // 8
      "    tt.return\n"                                             // 9
      "  }\n"                                                       // 10
      "}\n";
  auto m = analyze_ttir(text, "sections.ttir");
  REQUIRE_MESSAGE(static_cast<bool>(m), (m ? "" : m.error().message));
  REQUIRE(m->kernels.size() == 1);
  CHECK(m->kernels[0].name == "kept");
  CHECK(m->kernels[0].ttir_line == 8);
  REQUIRE(m->refused.size() == 1);
  CHECK(m->refused[0].name == "lost");
  CHECK(m->refused[0].line == 2);
  CHECK(m->refused[0].section_line == 1);
  CHECK(first_line(m->refused[0].message).rfind("sections.ttir:1:", 0) == 0);
}

TEST_CASE("kernel lines: the parser's line of the tt.func, not a `CHECK-LABEL` comment naming it") {
  const std::string text =
      "// CHECK-LABEL: tt.func public @k(\n"                        // 1
      "// CHECK: tt.load\n"                                         // 2
      "module {\n"                                                  // 3
      "  // the kernel: @k(%x)\n"                                   // 4
      "  tt.func public @k(%x: !tt.ptr<f32>) {\n"                   // 5
      "    tt.return\n"                                             // 6
      "  }\n"                                                       // 7
      "}\n";
  TtirModule m = model_of_text(text);
  REQUIRE(m.kernels.size() == 1);
  CHECK(m.kernels[0].ttir_line == 5);
  CHECK(select_kernel(m, launch_for("k:5")).name == "k");
  CHECK_THROWS_WITH_AS(select_kernel(m, launch_for("k:1")), doctest::Contains("no kernel named 'k:1' (kernels: k:5)"),
                       pb::sdk::InputError);
}

TEST_CASE("lit files: split auto/on/off, sections alone, duplicates refused with both lines, ambiguity") {
  const std::string text =
      "// RUN: opt --split-input-file %s\n"                         // 1
      "module {\n"                                                  // 2
      "  tt.func public @k(%x: !tt.ptr<f32>) {\n"                   // 3
      "    tt.return\n"                                             // 4
      "  }\n"                                                       // 5
      "}\n"                                                         // 6
      "// -----\n"                                                  // 7
      "module {\n"                                                  // 8
      "  tt.func public @k(%x: !tt.ptr<f32>) {\n"                   // 9
      "    %v = tt.load %x : !tt.ptr<f32>\n"                        // 10
      "    tt.store %x, %v : !tt.ptr<f32>\n"                        // 11
      "    tt.return\n"                                             // 12
      "  }\n"                                                       // 13
      "}\n";
  // auto: the `// -----` line splits; each section is a module of its own.
  auto split = analyze_ttir(text, "lit.mlir");
  REQUIRE(static_cast<bool>(split));
  CHECK(split->split);
  CHECK(split->chunks == 2);
  REQUIRE(split->kernels.size() == 2);
  CHECK(split->kernels[0].ttir_line == 3);
  CHECK(split->kernels[1].ttir_line == 9);
  CHECK(split->kernels[1].accesses.size() == 2);
  // A name that two sections define is ambiguous; NAME:LINE picks one.
  CHECK_THROWS_WITH_AS(select_kernel(*split, launch_for("k")),
                       doctest::Contains("2 kernels match 'k'; choose one with launch.kernel = \"NAME\" or "
                                         "\"NAME:LINE\" (kernels: k:3, k:9)"),
                       pb::sdk::InputError);
  CHECK(&select_kernel(*split, launch_for("k:9")) == &split->kernels[1]);
  // on: the same as auto here.
  auto on = analyze_ttir(text, "lit.mlir", SplitMode::On);
  REQUIRE(static_cast<bool>(on));
  CHECK(on->kernels.size() == 2);
  // off: one module; the two definitions of @k in one section are refused,
  // each naming both lines.
  auto off = analyze_ttir(text, "lit.mlir", SplitMode::Off);
  REQUIRE_FALSE(off);
  REQUIRE(off.error().refused.size() == 2);
  CHECK(off.error().refused[0].line == 3);
  CHECK(off.error().refused[1].line == 9);
  CHECK(off.error().message.rfind("lit.mlir:3: error: symbol @k is defined 2 times in one section (lines 3, 9)", 0) ==
        0);
  // A text without `// -----` lines is one section under auto.
  auto plain = analyze_ttir("module {\n  tt.func public @one() {\n    tt.return\n  }\n}\n", "plain.ttir");
  REQUIRE(static_cast<bool>(plain));
  CHECK_FALSE(plain->split);
  CHECK(split_mode_named("auto") == SplitMode::Auto);
  CHECK(split_mode_named("off") == SplitMode::Off);
  CHECK_FALSE(split_mode_named("yes"));
}

TEST_CASE("function extents: the lines of each tt.func as written, without MLIR") {
  const std::string text =
      "module {\n"                                                           // 1
      "  tt.func private @decl(i32) -> i32\n"                                 // 2
      "  tt.func public @multi(\n"                                           // 3
      "      %a: !tt.ptr<f32> {tt.divisibility = 16 : i32},\n"               // 4
      "      %b: i32) attributes {noinline = false} {\n"                     // 5
      "    %s = \"x\" // a } in a comment\n"                                 // 6
      "    scf.if %c {\n"                                                    // 7
      "    }\n"                                                              // 8
      "  }\n"                                                                // 9
      "  tt.func @\"quoted.name\"() {\n"                                     // 10
      "    tt.return\n"                                                      // 11
      "  }\n"                                                                // 12
      "}\n";
  std::vector<FuncExtent> f = function_extents(text);
  REQUIRE(f.size() == 3);
  CHECK(f[0].name == "decl");
  CHECK_FALSE(f[0].is_public);
  CHECK_FALSE(f[0].has_body);
  CHECK(f[0].first_line == 2);
  CHECK(f[0].last_line == 2);
  CHECK(f[1].name == "multi");
  CHECK(f[1].first_line == 3);
  CHECK(f[1].last_line == 9);
  CHECK(f[2].name == "quoted.name");
  CHECK(f[2].first_line == 10);
  CHECK(f[2].last_line == 12);
  CHECK(has_split_marker("a\n  // ----- x\n"));
  CHECK_FALSE(has_split_marker("a // -----\n"));
  CHECK(diagnostic_line("x.ttir:12:3: error: boom", "x.ttir") == 12);
}

TEST_CASE("a verifier error names the TTIR line of the op, whatever the op's own location") {
  // Before: an op whose location is loc(unknown) (through an alias, as
  // Triton writes them) was reported at "<unknown>:0", and one with a Python
  // location only at the .py line: the TTIR line was never said.
  const std::string text =
      "#loc = loc(\"kernel.py\":30:0)\n"                             // 1
      "#loc1 = loc(unknown)\n"                                       // 2
      "module {\n"                                                   // 3
      "  tt.func public @k(%x: !tt.ptr<f32>) {\n"                    // 4
      "    %c0 = arith.constant 0 : i32 loc(#loc1)\n"                // 5
      "    %c8 = arith.constant 8 : i32 loc(#loc1)\n"                // 6
      "    scf.for %i = %c0 to %c8 step %c0 : i32 {\n"               // 7
      "    } loc(#loc1)\n"                                           // 8
      "    tt.return loc(#loc)\n"                                    // 9
      "  } loc(#loc)\n"                                              // 10
      "  tt.func public @p(%x: !tt.ptr<f32>) {\n"                    // 11
      "    %c0 = arith.constant 0 : i32 loc(#loc)\n"                 // 12
      "    %c8 = arith.constant 8 : i32 loc(#loc)\n"                 // 13
      "      scf.for %i = %c0 to %c8 step %c0 : i32 {\n"             // 14
      "    } loc(\"kernel.py\":41:7)\n"                              // 15
      "    tt.return loc(#loc)\n"                                    // 16
      "  } loc(#loc)\n"                                              // 17
      "  tt.func public @fine(%x: !tt.ptr<f32>) {\n"                 // 18
      "    tt.return loc(#loc)\n"                                    // 19
      "  } loc(#loc)\n"                                              // 20
      "}\n";
  auto m = analyze_ttir(text, "locs.ttir");
  REQUIRE_MESSAGE(static_cast<bool>(m), (m ? "" : m.error().message));
  REQUIRE(m->refused.size() == 2);
  INFO(m->refused[0].message);
  INFO(m->refused[1].message);
  CHECK(first_line(m->refused[0].message).rfind("locs.ttir:7:5: error: 'scf.for' op has a constant step of 0", 0) == 0);
  CHECK(first_line(m->refused[1].message).rfind("locs.ttir:14:7: error: 'scf.for' op has a constant step of 0", 0) == 0);
  CHECK(m->refused[0].message.find("<unknown>") == std::string::npos);
}
