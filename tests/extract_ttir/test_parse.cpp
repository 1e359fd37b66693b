//===- test_parse.cpp - TTIR text -> MLIR: real dumps, printed forms, errors
#include <algorithm>
#include <map>

#include "ttir_test_support.hpp"

using namespace ttirtest;
using perfbound::ttir::analyze_ttir;
using perfbound::ttir::KernelModel;
using perfbound::ttir::TtirModule;

namespace {

size_t public_kernels(const TtirModule &m) {
  return static_cast<size_t>(std::count_if(m.kernels.begin(), m.kernels.end(), [](const KernelModel &k) { return k.is_public; }));
}

const KernelModel &kernel_named(const TtirModule &m, const std::string &name) {
  for (const KernelModel &k : m.kernels)
    if (k.name == name) return k;
  FAIL("no kernel " << name);
  throw std::logic_error("unreachable");
}

/// First line of a (multi-line) diagnostic.
std::string first_line(const std::string &text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("every TTIR file in ../shared/data/ttir parses, or is refused as pre-3.0 TTIR") {
  PBTEST_REQUIRE_SHARED();
  const fs::path dir = pbtest::shared_dir() / "data" / "ttir";
  size_t parsed = 0;
  size_t refused = 0;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    const std::string origin = entry.path().string();
    CAPTURE(origin);
    auto module = analyze_ttir(pbtest::read_file(entry.path()), origin);
    if (!module) {
      // The only acceptable failure: the pre-3.0 printed form, said plainly.
      CHECK_MESSAGE(module.error().message.find("pre-3.0 TTIR is not supported") != std::string::npos,
                    module.error().message);
      ++refused;
      continue;
    }
    ++parsed;
    CHECK(public_kernels(*module) >= 1);
    // Every op of the real dumps is modelled: nothing is silently skipped.
    for (const KernelModel &k : module->kernels)
      for (const auto &u : k.unresolved) CHECK_MESSAGE(u.reason.find("not modelled") == std::string::npos, u.what);
  }
  // 14 samples today (PROVENANCE.md lists them); new files are picked up.
  CHECK(parsed + refused >= 14);
  CHECK(refused == 1);
}

TEST_CASE("split files: one module per `// -----` section, CHECK-only sections dropped, lines kept") {
  PBTEST_REQUIRE_SHARED();
  // atomic_add.mlir has 10 modules in 10 sections; the scan file has 6
  // modules and a final section of CHECK lines only (parser trap T4); the
  // tensor-descriptor file repeats one kernel name 5 times (trap T7).
  TtirModule atomic = parse_file(shared_ttir("ascend_atomic_add_split.ttir"));
  CHECK(atomic.chunks == 10);
  CHECK(public_kernels(atomic) == 10);
  // The second module's tt.func is on line 38 of the file.
  CHECK(atomic.kernels[1].name == "atomic_add_i16");
  CHECK(atomic.kernels[1].ttir_line == 38);
  TtirModule scan = parse_file(shared_ttir("ascend_scan_cumsum_split.ttir"));
  CHECK(scan.chunks == 6);
  CHECK(public_kernels(scan) == 6);
  TtirModule desc = parse_file(shared_ttir("ascend_tensor_descriptor_split.ttir"));
  CHECK(public_kernels(desc) == 5);
  // Line numbers of later sections are those of the whole file: the load of
  // the second module sits on line 47 (no locations: the TTIR line).
  CHECK(desc.kernels[1].accesses[0].loc.line == 47);
  CHECK(desc.kernels[1].accesses[0].loc.in_ttir);
}

TEST_CASE("an error in a later section is reported at its line in the whole file") {
  const std::string text =
      "module {\n"                                       // 1
      "  tt.func public @a() {\n"                        // 2
      "    tt.return\n"                                  // 3
      "  }\n"                                            // 4
      "}\n"                                              // 5
      "// -----\n"                                       // 6
      "module {\n"                                       // 7
      "  tt.func public @b() {\n"                        // 8
      "    %0 = tt.get_program_id w : i32\n"             // 9
      "    tt.return\n"
      "  }\n"
      "}\n";
  // The first section's kernel is analysed; the second's is refused alone,
  // with MLIR's diagnostic at its line in the whole file.
  auto module = analyze_ttir(text, "two.ttir");
  REQUIRE(static_cast<bool>(module));
  REQUIRE(module->kernels.size() == 1);
  CHECK(module->kernels[0].name == "a");
  REQUIRE(module->refused.size() == 1);
  CHECK(module->refused[0].name == "b");
  CHECK(module->refused[0].line == 8);
  CHECK(module->refused[0].message.rfind("two.ttir:9:28: error:", 0) == 0);
  CHECK_THROWS_WITH_AS(perfbound::ttir::select_kernel(*module, json{{"kernel", "b"}}),
                       doctest::Contains("two.ttir:9:28: error:"), pb::sdk::InputError);
}

TEST_CASE("CRLF line ends and a missing final newline are accepted") {
  const std::string text =
      "// RUN: lit line\r\nmodule {\r\n  tt.func public @crlf(%arg0: !tt.ptr<f32>) {\r\n    %0 = tt.load %arg0 : "
      "!tt.ptr<f32>\r\n    tt.store %arg0, %0 : !tt.ptr<f32>\r\n    tt.return\r\n  }\r\n}\r\n// CHECK: no newline at the end";
  TtirModule m = [&] {
    auto r = analyze_ttir(text, "crlf.ttir");
    REQUIRE_MESSAGE(static_cast<bool>(r), (r ? "" : r.error().message));
    return std::move(*r);
  }();
  REQUIRE(m.kernels.size() == 1);
  CHECK(m.kernels[0].accesses.size() == 2);
  CHECK(m.kernels[0].accesses[0].loc.line == 4);
}

TEST_CASE("text without a module: no kernels, and selecting one says so") {
  auto m = analyze_ttir("// only a comment\n\n", "empty.ttir");
  REQUIRE(static_cast<bool>(m));
  CHECK(m->kernels.empty());
  CHECK(m->chunks == 0);
  CHECK_THROWS_WITH_AS(perfbound::ttir::select_kernel(*m, json{{"grid", {1}}}), "empty.ttir: no tt.func in the TTIR",
                       pb::sdk::InputError);
}

TEST_CASE("printed forms of Triton 3.0-3.6 and triton-ascend all parse") {
  TtirModule m = parse_file(test_dir() / "syntax" / "printed_forms.ttir");
  CHECK(m.chunks == 11);
  CHECK(public_kernels(m) == 11);
  CHECK(m.kernels.size() == 12);  // plus one private library function

  // Integer enums in attr-dicts are the enums: cache = 2 is `ca`.
  const KernelModel &ls = kernel_named(m, "load_store_forms");
  REQUIRE(ls.accesses.size() == 6);
  CHECK(ls.accesses[0].detail == "cache=ca");
  CHECK(ls.accesses[1].detail == "cache=ca");
  CHECK(ls.accesses[2].shape.empty());  // the scalar i32 load
  CHECK(ls.accesses[3].op == "tt.store");
  CHECK(ls.accesses[5].shape.empty());  // the scalar load from address space 3
  CHECK(ls.accesses[5].dtype == "bf16");

  // Dot precisions (value 3 prints bf16x3 upstream, hf32 on triton-ascend)
  // and scaled dots: e2m1 packs two values per byte along K.
  const KernelModel &dots = kernel_named(m, "dot_forms");
  std::vector<std::string> precisions;
  std::vector<std::int64_t> ks;
  for (const auto &op : dots.ops)
    if (op.cls == perfbound::ttir::OpClass::Cube) {
      precisions.push_back(op.precision);
      ks.push_back(op.k);
    }
  CHECK(precisions == std::vector<std::string>{"ieee", "tf32", "bf16x3|hf32", "bf16x3|hf32", "tf32", "scaled", "scaled",
                                               "scaled"});
  CHECK(ks == std::vector<std::int64_t>{16, 16, 16, 16, 16, 64, 128, 64});

  // Reductions: 4x128 along axis 1 combines 4 * 127 = 508 times; the argmax
  // combiner has 3 ops; the scan of 128 combines 127 times.
  const KernelModel &red = kernel_named(m, "reduce_forms");
  std::vector<double> flops;
  std::vector<int> combine;
  for (const auto &op : red.ops)
    if (op.cls == perfbound::ttir::OpClass::Reduction || op.cls == perfbound::ttir::OpClass::Scan) {
      flops.push_back(op.flop);
      combine.push_back(op.combine_ops);
    }
  CHECK(flops == std::vector<double>{508, 508 * 3, 127, 127});
  CHECK(combine == std::vector<int>{1, 3, 1, 1});

  // Control flow: the while loop is reported, accesses after the early
  // return run under a condition.
  const KernelModel &cf = kernel_named(m, "control_flow_forms");
  // An scf.while is two loop records: its before region (the condition) and
  // its after region (the body); this one's step is not a constant, so its
  // trip count is not derived.
  REQUIRE(cf.loops.size() == 2);
  CHECK(cf.loops[0].kind == perfbound::ttir::LoopKind::While);
  CHECK(cf.loops[0].region == perfbound::ttir::WhileRegion::Before);
  CHECK(cf.loops[1].region == perfbound::ttir::WhileRegion::After);
  CHECK(cf.loops[1].trip == perfbound::ttir::kNoExpr);
  REQUIRE(cf.accesses.size() == 2);
  CHECK(cf.accesses[0].cond != perfbound::ttir::kNoExpr);
  bool while_reported = false;
  for (const auto &u : cf.unresolved) while_reported = while_reported || u.what.rfind("scf.while", 0) == 0;
  CHECK(while_reported);

  // Pre-inlining TTIR: the call is reported, not followed.
  const KernelModel &caller = kernel_named(m, "caller");
  REQUIRE(caller.unresolved.size() == 1);
  CHECK(caller.unresolved[0].what == "tt.call @triton.language.standard.zeros__Tc8T_cfp32");
}

TEST_CASE("locations: named, callsite and file locations resolve to the Python line") {
  TtirModule m = parse_file(test_dir() / "syntax" / "printed_forms.ttir");
  const KernelModel &k = kernel_named(m, "located");
  CHECK(k.loc.file == "/work/k.py");
  CHECK(k.loc.line == 10);
  CHECK_FALSE(k.loc.in_ttir);
  REQUIRE(k.args.size() == 2);
  CHECK(k.args[0].key() == "x_ptr");
  CHECK(k.args[1].key() == "%arg1");  // a file location carries no name
  REQUIRE(k.accesses.size() == 2);
  // loc("x"(#loc9)), #loc9 = k.py:12:8
  CHECK(k.accesses[0].loc.line == 12);
  CHECK(k.accesses[0].loc.col == 8);
  CHECK(k.accesses[0].loc.name == "x");
  // The addptr is inlined library code: callsite(standard.py:40 at k.py:12).
  // The store has a plain file location.
  CHECK(k.accesses[1].loc.line == 14);
}

// Diagnostics are part of the contract: what a user sees for a bad file.
TEST_CASE("diagnostics: MLIR's own message with file:line:col") {
  struct Case {
    std::string text;
    std::string first_line;
  };
  const std::vector<Case> cases = {
      {"module {\n  tt.func public @k() {\n    %0 = tt.frobnicate : i32\n    tt.return\n  }\n}\n",
       "bad.ttir:3:10: error: custom op 'tt.frobnicate' is unknown"},
      {"module {\n  tt.func public @k() {\n    %0 = tt.get_program_id w : i32\n    tt.return\n  }\n}\n",
       "bad.ttir:3:28: error: custom op 'tt.get_program_id' expected string or keyword containing one of the "
       "following enum values for attribute 'axis' [x, y, z]"},
      {"module {\n  tt.func public @k(%p: !tt.ptr<f32>) {\n    %0 = tt.load %p : tensor<4xf32>\n    tt.return\n  }\n}\n",
       "bad.ttir:3:18: error: use of value '%p' expects different type than prior uses: 'tensor<4xf32>' vs "
       "'!tt.ptr<f32>'"},
      {"module {\n  tt.func public @k(%v: tensor<4xf32>) {\n    %0 = tt.load %v : tensor<4xf32>\n    tt.return\n  }\n}\n",
       "bad.ttir:3:10: error: 'tt.load' op expects a pointer type after ':' (!tt.ptr<T>, a tensor of !tt.ptr<T> or "
       "!tt.ptr<tensor<...>>), got 'tensor<4xf32>'; Triton before 3.0 printed the loaded value type here"},
      {"module {\n  tt.func public @k() {\n    %0 = arith.constant 1 : i32\n", "bad.ttir:3:32: error: expected operation name in quotes"},
      {"module {\n  tt.func public @k(%p: !tt.ptr<f32>) {\n    %0 = tt.dot %p, %p, %p, inputPrecision = fp8 : "
       "!tt.ptr<f32> * !tt.ptr<f32> -> !tt.ptr<f32>\n    tt.return\n  }\n}\n",
       "bad.ttir:3:46: error: custom op 'tt.dot' unknown inputPrecision 'fp8' (expected tf32, tf32x3, ieee, bf16x3, hf32 "
       "or bf16x6)"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.text);
    auto m = analyze_ttir(c.text, "bad.ttir");
    REQUIRE_FALSE(m);
    CHECK(first_line(m.error().message) == c.first_line);
  }
}

TEST_CASE("pre-3.0 TTIR is refused with a message that says so and names the line") {
  PBTEST_REQUIRE_SHARED();
  const fs::path path = shared_ttir("legacy_pre3.0_attn_fwd_rocm.ttir");
  auto m = analyze_ttir(pbtest::read_file(path), path.string());
  REQUIRE_FALSE(m);
  CHECK(first_line(m.error().message) ==
        path.string() +
            ": error: pre-3.0 TTIR is not supported (line 2: '!tt.ptr<T, 1>' (Triton 3.x elides address space 1)); "
            "re-dump the kernel with Triton 3.0 or newer");
  // MLIR's own diagnostic follows, at the first construct it cannot read.
  CHECK(m.error().message.find(path.string() + ":23:49: error: expected '->'") != std::string::npos);
}

TEST_CASE("truncated and corrupted files give a diagnostic or a model, never a crash") {
  PBTEST_REQUIRE_SHARED();
  const fs::path dir = pbtest::shared_dir() / "data" / "ttir";
  size_t attempts = 0;
  size_t errors = 0;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    const std::string text = pbtest::read_file(entry.path());
    // 40 cuts through each file, and the same cuts with a byte flipped.
    for (size_t cut = 1; cut <= 40; ++cut) {
      std::string head = text.substr(0, text.size() * cut / 41);
      for (int flip = 0; flip < 2; ++flip) {
        std::string probe = head;
        if (flip == 1 && !probe.empty()) probe[probe.size() / 2] ^= 0x5a;
        auto m = analyze_ttir(probe, "cut.ttir");
        ++attempts;
        if (!m) {
          ++errors;
          // Every failure is a located diagnostic.
          CHECK(m.error().message.find("cut.ttir:") != std::string::npos);
        } else if (!m->refused.empty()) {
          // The functions the cut broke are refused, each with its line.
          ++errors;
          for (const perfbound::ttir::Refusal &r : m->refused)
            CHECK(r.message.find("cut.ttir:") != std::string::npos);
        }
      }
    }
  }
  CHECK(attempts >= 14 * 80);
  CHECK(errors > attempts / 2);  // most cuts break a module
}
