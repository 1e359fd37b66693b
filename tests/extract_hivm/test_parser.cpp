//===- test_parser.cpp - the MLIR tokenizer/parser and the C.H parser traps ===//
//
// One test per trap of ../shared/research/parser_traps.md section C.H (H1-H24),
// on the real files where the trap was found and on small texts written here.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "hivm_test_util.hpp"
#include "lexer.hpp"
#include "parser.hpp"

using namespace pb::hivm;
using hivmtest::op_at;
using hivmtest::value;

namespace {

std::vector<Token> lex_all(std::string_view text) {
  Lexer lex(text);
  std::vector<Token> out;
  for (Token t = lex.next(); t.kind != Tok::Eof; t = lex.next()) out.push_back(t);
  return out;
}

int64_t histogram(const Program &p, const std::string &name) {
  auto it = p.histogram.find(name);
  return it == p.histogram.end() ? 0 : it->second;
}

}  // namespace

TEST_CASE("lexer: SSA names with '-', result numbers, symbols, strings, arrows and comments") {
  auto toks = lex_all("%c-1_i64_37 = arith.constant -1 : i64 // hivm.hir.load in a comment\n"
                      "%43#2 @\"quoted name\" ^bb0 #hivm.pipe<PIPE_V> -> \"a\\\"b\" 9.99999974E-5 0x1F");
  REQUIRE(toks.size() == 18);
  CHECK(toks[0].kind == Tok::PercentId);
  CHECK(toks[0].text() == "%c-1_i64_37");
  CHECK(toks[3].kind == Tok::Minus);  // "-1" is '-' then an integer, as in MLIR
  CHECK(toks[4].text() == "1");
  CHECK(toks[7].text() == "%43#2");
  CHECK(toks[7].line == 2);
  CHECK(bool(toks[7].first_on_line));
  CHECK(toks[8].kind == Tok::AtId);
  CHECK(toks[8].text() == "@\"quoted name\"");
  CHECK(toks[9].kind == Tok::CaretId);
  CHECK(toks[10].kind == Tok::HashId);
  CHECK(toks[10].text() == "#hivm.pipe");
  CHECK(toks[14].kind == Tok::Arrow);
  CHECK(toks[15].kind == Tok::String);
  CHECK(toks[15].text() == "\"a\\\"b\"");
  CHECK(toks[16].kind == Tok::Float);
  CHECK(toks[17].text() == "0x1F");
}

TEST_CASE("lexer: a token is 16 bytes; its column is found from the buffer, its text is never cut") {
  static_assert(sizeof(Token) == 16);
  const std::string text = "%0 = arith.addi %a, %b : i32\n\t  %1 = \"x.y\"() : () -> ()";
  auto toks = lex_all(text);
  REQUIRE(toks.size() == 19);
  CHECK(toks[0].column(text) == 1);
  CHECK(toks[5].text() == "%b");
  CHECK(toks[5].column(text) == 21);
  CHECK(toks[8].text() == "%1");
  CHECK(toks[8].line == 2);
  CHECK(toks[8].column(text) == 4);  // bytes: a tab counts as one
  CHECK(toks[10].kind == Tok::String);
  CHECK(toks[10].text() == "\"x.y\"");
  CHECK(toks[10].column(text) == 9);
  // The end-of-input token sits past the last byte.
  Lexer lex(text);
  Token t = lex.next();
  while (t.kind != Tok::Eof) t = lex.next();
  CHECK(t.line == 2);
  CHECK(t.column(text) == 27);
}

TEST_CASE("parser: columns of ops sharing a line, and of a region argument defined twice") {
  // Several regions on one line, each with an op: Op::col comes from the parser's per-line cache.
  Op op = parse_single_op("x.a {%1 = x.b} {  %2 = x.c} {\n x.d\n}\n");
  REQUIRE(op.regions.size() == 3);
  CHECK(op.col == 1);
  CHECK(op.regions[0].blocks[0].ops[0].col == 6);
  CHECK(op.regions[1].blocks[0].ops[0].col == 19);
  CHECK(op.regions[2].blocks[0].ops[0].col == 2);
  CHECK(op.regions[2].blocks[0].ops[0].line == 2);
  // A function argument defined twice: both columns are found from the text when the message is made.
  auto f = hivmtest::failure_of("func.func @k(%a: i32,  %a: i32) {\n  return\n}\n");
  CHECK(f.line == 1);
  CHECK(f.col == 24);
  CHECK(f.message == "SSA value %a is defined twice: it is already defined at line 1:14");
}

TEST_CASE("lexer: a token longer than the reader holds is refused with its line and column, not cut") {
  // A string literal of 8 MiB (one byte over the limit with its quotes) on line 3.
  std::string text = "func.func @k() {\n  %0 = x.y\n  x.z {a = ";
  const size_t col = text.size() - text.rfind('\n');
  text += '"' + std::string(Token::kMaxLength - 1, 'a') + '"' + "}\n  return\n}\n";
  auto f = hivmtest::failure_of(text);
  CHECK(f.line == 3);
  CHECK(f.col == col);
  CHECK(f.message == "string of 8388608 bytes: the reader holds tokens of at most 8388607 bytes");
  Lexer too_long(std::string_view(text).substr(text.find('"')));
  CHECK_THROWS_AS(too_long.next(), SourceError);
  // One byte shorter is read whole.
  text.erase(text.find('"') + 1, 1);
  Lexer lex(std::string_view(text).substr(text.find('"')));
  Token s = lex.next();
  CHECK(s.kind == Tok::String);
  CHECK(s.text().size() == Token::kMaxLength);
}

TEST_CASE("parser: an op ends where the next statement starts; regions vs attribute dictionaries") {
  Op op = parse_single_op("scf.if %14 {\n  hivm.hir.vbrc ins(%cst : f32) outs(%9 : memref<8xf32>)\n} {hivm.unlikely_condition}\n"
                          "%1 = arith.addi %a, %b : i32\n");
  CHECK(op.name == "scf.if");
  REQUIRE(op.regions.size() == 1);
  REQUIRE(op.regions[0].blocks.size() == 1);
  CHECK(op.regions[0].blocks[0].ops.size() == 1);
  CHECK(op.regions[0].blocks[0].ops[0].name == "hivm.hir.vbrc");
  // The attribute dictionary after the region belongs to the scf.if, the next line does not.
  CHECK(op.tokens.back().kind == Tok::RBrace);
  CHECK(op.end_line == 3);
  // `} else {` continues the op with a second region; results with counts.
  Op ifelse = parse_single_op("%300:2 = scf.if %165 -> (index, index) {\n  scf.yield %a, %b : index, index\n} else {\n"
                              "  scf.yield %c, %d : index, index\n}\n");
  CHECK(ifelse.results.size() == 1);
  CHECK(ifelse.results[0].count == 2);
  CHECK(ifelse.regions.size() == 2);
}

TEST_CASE("parser errors name the line: truncated, garbled, and IR outside a function") {
  // Truncated inside an operand list (the '(' of outs is never closed).
  auto f1 = hivmtest::failure_of("func.func @k(%a: i32) {\n  %0 = arith.addi %a, %a : i32\n"
                                 "  hivm.hir.load ins(%x : memref<4xf32>) outs(%y : memref<4xf32,\n");
  CHECK(f1.line == 3);
  CHECK(f1.message.find("is never closed (is the dump truncated?)") != std::string::npos);
  // Truncated after a complete op: the function's region is never closed.
  auto f2 = hivmtest::failure_of("func.func @k(%a: i32) {\n  %0 = arith.addi %a, %a : i32\n");
  CHECK(f2.line == 1);
  CHECK(f2.message == "unexpected end of input: the region opened at line 1 is never closed (is the dump truncated?)");
  // A garbled byte inside a function.
  auto f3 = hivmtest::failure_of("func.func @k(%a: i32) {\n  %0 = arith.addi %a, %a : i32\n  %1 = arith.addi %0 \x01 %a : i32\n}\n");
  CHECK(f3.line == 3);
  CHECK(f3.col == 22);
  CHECK(f3.message.find("unexpected character") != std::string::npos);
  // A dump cut at its start: ops without their func.func line.
  auto f4 = hivmtest::failure_of("warning: something\n  %0 = arith.addi %a, %a : i32\n}\n");
  CHECK(f4.line == 2);
  CHECK(f4.message.find("IR operation outside of any function") != std::string::npos);
  // No IR at all.
  auto f5 = hivmtest::failure_of("ld.lld: warning: nothing\n1 warning generated.\n");
  CHECK(f5.message.find("no function with a body found") != std::string::npos);
  // Mismatched brackets.
  auto f6 = hivmtest::failure_of("func.func @k() {\n  hivm.hir.pipe_barrier[<PIPE_V>)\n}\n");
  CHECK(f6.line == 2);
  CHECK(f6.message.find("expected the closing bracket of '['") != std::string::npos);
}

TEST_CASE("a truncated real dump fails with the line of the region left open") {
  PBTEST_REQUIRE_SHARED();
  std::string text = hivmtest::shared_hivm("chunk_kda.npuir.mlir");
  // Keep the first 300 lines: the aic function (opened at line 6) and its loops are cut.
  size_t pos = 0;
  for (int line = 0; line < 300; ++line) pos = text.find('\n', pos) + 1;
  auto f = hivmtest::failure_of(text.substr(0, pos));
  CHECK(f.message.find("is never closed") != std::string::npos);
  // The innermost open region is the scf.for of line 203.
  CHECK(f.line == 203);
}

TEST_CASE("H1/H2: compiler diagnostics before and after the IR are skipped and recorded; dump headers kept") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), {});
  // Lines 1-4: loc(...): warning; 1730-1734: ld.lld / overriding / "1 warning generated." (5 lines).
  CHECK(p.skipped_lines == 9);
  CHECK(p.diagnostics_lines == 9);
  REQUIRE(p.diagnostics.size() == 9);
  CHECK(p.diagnostics[0].first == 1);
  CHECK(p.diagnostics[0].second.rfind("loc(\"/root/vTriton/test/", 0) == 0);
  CHECK(p.diagnostics[4].first == 1730);
  CHECK(p.diagnostics[4].second.rfind("ld.lld: warning:", 0) == 0);
  // Two "IR Dump After GraphSyncSolver" headers (lines 5 and 491), one per mix part.
  REQUIRE(p.dump_headers.size() == 2);
  CHECK(p.dump_headers[0] == "// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //");
  REQUIRE(p.functions.size() == 2);
  CHECK(p.functions[0].name == "@chunk_kda_bwd_kernel_wy_dqkg_fused_opt_v2_mix_aic");
  CHECK(p.functions[1].name == "@chunk_kda_bwd_kernel_wy_dqkg_fused_opt_v2_mix_aiv");
}

TEST_CASE("H3: files without a final newline parse to their last function") {
  PBTEST_REQUIRE_SHARED();
  // sync-ops.mlir ends with "}" on line 100 and no newline; its last input is the lock test (line 95).
  Program p = analyze_text(hivmtest::shared_hivm("ascendnpu-ir_IR_sync-ops.mlir"),
                           hivmtest::with_kernel({}, "test_sync_block_lock_unlock_free_lock_var:95"));
  REQUIRE(!p.functions.empty());
  CHECK(p.functions.back().name == "@test_sync_block_lock_unlock_free_lock_var");
  CHECK(histogram(p, "hivm.hir.free_lock_var") == 1);
  Program q = analyze_text(hivmtest::shared_hivm("ascendnpu-ir_IR_dma-ops.mlir"), hivmtest::with_kernel({}, "noncontiguous_copy"));
  CHECK(q.functions.back().name == "@noncontiguous_copy");
}

TEST_CASE("H4: dynamic event ids resolve to the values they take") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("amort_copy_128.npuir.mlir"), {});
  // L38: wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, %15], %15 = select(iv mod 2 == 1, 0, 1) over 32 iterations.
  const OpRecord &w = op_at(p, 38);
  REQUIRE(w.sync);
  CHECK_FALSE(w.sync->event.has_value());
  CHECK(w.sync->event_value == "%15");
  CHECK(w.sync->event_values == std::vector<int64_t>{0, 1});
}

TEST_CASE("H5: unbalanced set/wait counts are reported, not forced into pairs") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), {});
  // Textually the aic part has 43 set_flag and 37 wait_flag (lines 6-489).
  int sets = 0, waits = 0;
  for (const OpRecord &r : p.ops) {
    if (r.function != 0) continue;
    sets += r.cls == OpClass::SetFlag;
    waits += r.cls == OpClass::WaitFlag;
  }
  CHECK(sets == 43);
  CHECK(waits == 37);
  // MTE2->MTE1 on EVENT_ID1..4 is set (L293, L287, L270, L276) but never waited in the function.
  int unmatched = 0;
  for (const HandoffEdge &e : p.handoffs)
    if (e.function == 0 && e.producer == Pipe::MTE2 && e.consumer == Pipe::MTE1 && e.kind == "unmatched") ++unmatched;
  CHECK(unmatched == 4);
}

TEST_CASE("sync: sets on different dynamic operands taking the same values share one handoff group") {
  // Two double-buffered loops, each with its own event operand (%ev, %ev2) that takes 0 and 1:
  // both sets (L21, L33) match the same waits, so one group lists them, its waits once, and
  // names both operands. One group per operand listed the waits k times (k x w in a large function).
  const std::string text = R"(func.func @two_loops(%arg0: memref<?xf32, #hivm.address_space<gm>>, %arg1: memref<?xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %c512_i64 = arith.constant 512 : i64
  %e0 = arith.constant 0 : i64
  %e1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  hivm.hir.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
  hivm.hir.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID1>]
  scf.for %i = %c0 to %c8 step %c1 {
    %m = affine.apply affine_map<()[s0] -> (s0 mod 2)>()[%i]
    %p = arith.index_cast %m : index to i1
    %ev = arith.select %p, %e0, %e1 : i64
    %buf = hivm.hir.pointer_cast(%c0_i64, %c512_i64) : memref<128xf32, #hivm.address_space<ub>>
    hivm.hir.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, %ev]
    hivm.hir.load ins(%arg0 : memref<?xf32, #hivm.address_space<gm>>) outs(%buf : memref<128xf32, #hivm.address_space<ub>>)
    hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID2>]
    hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID2>]
    hivm.hir.store ins(%buf : memref<128xf32, #hivm.address_space<ub>>) outs(%arg1 : memref<?xf32, #hivm.address_space<gm>>)
    hivm.hir.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, %ev]
  }
  scf.for %j = %c0 to %c8 step %c1 {
    %m2 = affine.apply affine_map<()[s0] -> (s0 mod 2)>()[%j]
    %p2 = arith.index_cast %m2 : index to i1
    %ev2 = arith.select %p2, %e0, %e1 : i64
    %buf2 = hivm.hir.pointer_cast(%c0_i64, %c512_i64) : memref<128xf32, #hivm.address_space<ub>>
    hivm.hir.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, %ev2]
    hivm.hir.load ins(%arg1 : memref<?xf32, #hivm.address_space<gm>>) outs(%buf2 : memref<128xf32, #hivm.address_space<ub>>)
    hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID3>]
    hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID3>]
    hivm.hir.store ins(%buf2 : memref<128xf32, #hivm.address_space<ub>>) outs(%arg0 : memref<?xf32, #hivm.address_space<gm>>)
    hivm.hir.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, %ev2]
  }
  hivm.hir.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
  hivm.hir.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID1>]
  return
}
)";
  Program p = analyze_text(text, {});
  std::vector<const HandoffEdge *> dynamic;
  for (const HandoffEdge &e : p.handoffs)
    if (e.event.find(" in {") != std::string::npos) dynamic.push_back(&e);
  REQUIRE(dynamic.size() == 1);
  const HandoffEdge &g = *dynamic[0];
  CHECK(g.event == "%ev, %ev2 in {0,1}");
  CHECK(g.producer == Pipe::MTE3);
  CHECK(g.consumer == Pipe::MTE2);
  CHECK(g.set_lines == std::vector<uint32_t>{21, 33});
  CHECK(g.wait_lines == std::vector<uint32_t>{16, 28, 35, 36});  // the loops' waits and the two drains
  CHECK(g.sets.value == 16);
  CHECK(g.kind == "mandatory");
  // Static events keep one group each.
  size_t static_groups = 0;
  for (const HandoffEdge &e : p.handoffs) static_groups += e.event.rfind("EVENT_ID", 0) == 0;
  CHECK(static_groups == 4);
}

TEST_CASE("sync: a handoff group of many dynamic operands names eight and counts the rest") {
  std::string text =
      "func.func @ten_loops(%arg0: memref<?xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = "
      "#hivm.func_core_type<AIV>} {\n"
      "  %c0_i64 = arith.constant 0 : i64\n  %c512_i64 = arith.constant 512 : i64\n"
      "  %e0 = arith.constant 0 : i64\n  %e1 = arith.constant 1 : i64\n"
      "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c4 = arith.constant 4 : index\n";
  for (int n = 0; n < 10; ++n) {
    const std::string k = std::to_string(n);
    text += "  scf.for %i" + k + " = %c0 to %c4 step %c1 {\n"
            "    %m" + k + " = affine.apply affine_map<()[s0] -> (s0 mod 2)>()[%i" + k + "]\n"
            "    %p" + k + " = arith.index_cast %m" + k + " : index to i1\n"
            "    %ev" + k + " = arith.select %p" + k + ", %e0, %e1 : i64\n"
            "    %b" + k + " = hivm.hir.pointer_cast(%c0_i64, %c512_i64) : memref<128xf32, #hivm.address_space<ub>>\n"
            "    hivm.hir.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, %ev" + k + "]\n"
            "    hivm.hir.load ins(%arg0 : memref<?xf32, #hivm.address_space<gm>>) outs(%b" + k +
            " : memref<128xf32, #hivm.address_space<ub>>)\n"
            "    hivm.hir.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, %ev" + k + "]\n  }\n";
  }
  text += "  return\n}\n";
  Program p = analyze_text(text, {});
  std::vector<const HandoffEdge *> dynamic;
  for (const HandoffEdge &e : p.handoffs)
    if (e.event.find(" in {") != std::string::npos) dynamic.push_back(&e);
  REQUIRE(dynamic.size() == 1);
  CHECK(dynamic[0]->event == "%ev0, %ev1, %ev2, %ev3, %ev4, %ev5, %ev6, %ev7 and 2 more in {0,1}");
  CHECK(dynamic[0]->set_lines.size() == 10);
  CHECK(dynamic[0]->wait_lines.size() == 10);
}

TEST_CASE("H6/H7/H8: attributes before ins, after outs, and ops without ins") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  // L137: nd2nz {dst_continuous} ins(%39 : memref<64x64xbf16, gm>) ... init_out_buffer = false: 64*64*2 = 8192 B.
  CHECK(value(op_at(p, 137).totals().bytes) == 8192);
  // L779: vcast ins(memref<64xi1>) outs(memref<64xf16>) temp_buffer(memref<48xf16>) round_mode = <trunc>:
  // the temp buffer is not an operand: 64 elements, the widest type f16 -> 64*2 = 128 B = 1 repeat of 256 B.
  const OpRecord &vcast = op_at(p, 779);
  CHECK(value(vcast.totals().elements) == 64);
  CHECK(value(vcast.totals().repeats) == 1);
  // L1175: vreduce <sum> ins(memref<32x32xf32>) outs(memref<1x32xf32>) temp_buffer(...) reduce_dims = [0]:
  // 1024 elements read, 1024*4/256 = 16 repeats.
  CHECK(value(op_at(p, 1175).totals().elements) == 1024);
  CHECK(value(op_at(p, 1175).totals().repeats) == 16);
  // L647: varange offset[%c0] strides[%c1] outs(memref<64xi32>): no ins, 64*4 = 256 B = 1 repeat.
  CHECK(value(op_at(p, 647).totals().repeats) == 1);
  // L87: set_ffts_base_addr %arg0 and L92: get_block_idx -> i64 are scalar-unit ops.
  CHECK(op_at(p, 87).pipes == PipeList{Pipe::S});
  CHECK(op_at(p, 92).pipes == PipeList{Pipe::S});
}

TEST_CASE("H6: a pad_value ': f32' after outs is not the op's type") {
  PBTEST_REQUIRE_SHARED();
  // seeded_serial L40: load ins(memref<?xf32, gm>) outs(memref<?xf32, ub>) pad_mode = <PadValue>
  // pad_value = %cst : f32 left_padding_num = %c0 : index ...
  Program p = analyze_text(hivmtest::shared_hivm("seeded_serial_on.npuir.mlir"),
                           hivmtest::launch({4096}, {{"4", 8388608}, {"5", 65536}}));
  const OpRecord &load = op_at(p, 40);
  CHECK(load.src == Space::GM);
  CHECK(load.dst == Space::UB);
  CHECK(load.dtype == "f32");
  CHECK(value(load.totals().elements) == 2048);
}

TEST_CASE("H9/H10/H21/H23: multi-line ops, long and short enum syntax, duplicate names, module wrappers") {
  PBTEST_REQUIRE_SHARED();
  const std::string sync_ops = hivmtest::shared_hivm("ascendnpu-ir_IR_sync-ops.mlir");
  Program p = analyze_text(sync_ops, hivmtest::with_kernel({}, "set_flag:8"));
  // L9 long form and L10 mixed form, with a space before '[': both MTE1 -> M, event 0.
  for (uint32_t line : {9u, 10u}) {
    const OpRecord &s = op_at(p, line);
    REQUIRE(s.sync);
    CHECK(s.sync->from == Pipe::MTE1);
    CHECK(s.sync->to == Pipe::M);
    CHECK(s.sync->event == 0);
  }
  // L45-48: sync_block_set with `flag = 1` on the next line.
  Program b = analyze_text(sync_ops, hivmtest::with_kernel({}, "test_sync_block_set_flag_attr"));
  const OpRecord &sbs = op_at(b, 45);
  REQUIRE(sbs.sync);
  CHECK(sbs.sync->tcore == "CUBE");
  CHECK(sbs.sync->from == Pipe::FIX);
  CHECK(sbs.sync->event == 1);
  // H21, duplicate function names in lit splits: @set_flag at lines 8 and 17 are in two inputs, each
  // chosen by its line; read as one module (split = off) the second is a redefinition of the first.
  CHECK(analyze_text(sync_ops, hivmtest::with_kernel({}, "set_flag:17")).functions.at(0).line == 17);
  AnalysisOptions whole;
  whole.split = SplitMode::Off;
  try {
    (void)analyze_text(sync_ops, whole);
    FAIL("a module holding @set_flag twice was accepted");
  } catch (const SourceError &e) {
    CHECK(e.line() == 17);
    CHECK(std::string(e.what()).find("already defined at line 8") != std::string::npos);
  }
  // dma-ops L14-15: nd2nz over two lines, 256x128 f16 (the GM subview) = 65536 B.
  const std::string dma_ops = hivmtest::shared_hivm("ascendnpu-ir_IR_dma-ops.mlir");
  Program d = analyze_text(dma_ops, hivmtest::with_kernel({}, "test_nd2nz:8"));
  CHECK(value(op_at(d, 14).totals().bytes) == 65536);
  // H23: `module attributes {hacc.target = ...} {` wraps @test_fixpipe_A5_features (line 67).
  Program f = analyze_text(dma_ops, hivmtest::with_kernel({}, "test_fixpipe_A5_features"));
  REQUIRE(f.functions.size() == 1);
  CHECK(f.functions[0].line == 67);
}

TEST_CASE("H11: copies on tensors have no address spaces, so no pipe: counted as unmodelled") {
  PBTEST_REQUIRE_SHARED();
  const std::string dma_ops = hivmtest::shared_hivm("ascendnpu-ir_IR_dma-ops.mlir");
  // L186: %res = hivm.hir.copy ins(%src : tensor<16x16xf32>) outs(%dst : tensor<16x16xf32>) -> tensor<16x16xf32>
  Program d = analyze_text(dma_ops, hivmtest::with_kernel({}, "hivm_tensor_copy_gm_to_ub"));
  const OpRecord &copy = op_at(d, 186);
  CHECK_FALSE(copy.modelled);
  CHECK(copy.pipes.empty());
  CHECK(copy.unresolved_pipe.find("copy on tensors") != std::string::npos);
  bool listed = false;
  for (const Unmodelled &u : d.unmodelled)
    if (u.op == "hivm.hir.copy") listed = std::find(u.lines.begin(), u.lines.end(), 186u) != u.lines.end();
  CHECK(listed);
  // L196: copy UB -> UB on memrefs is a vector-pipe copy (its function is then a vector one).
  Program u = analyze_text(dma_ops, hivmtest::with_kernel({}, "hivm_memref_copy_ub_to_ub"));
  CHECK(op_at(u, 196).pipes == PipeList{Pipe::V});
  CHECK(u.functions.at(0).core == CoreType::AIV);
}

TEST_CASE("H12/H13: fully dynamic NZ operands and mmadL1 details") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  // L312: mmadL1 ins(%cast_29, %cast_30, %true, %c64, %c32, %c32 : memref<?x?x?x?xbf16, cbuf>, ...) with
  // sync_related_args(%c3_i64, %c4_i64, %c-1_i64_37, ...): M,K,N = 64,32,32 -> 2*64*32*32 = 131072 FLOP.
  const OpRecord &mm = op_at(p, 312);
  CHECK(mm.pipes == (PipeList{Pipe::MTE1, Pipe::M}));
  CHECK(mm.m == 64);
  CHECK(mm.k == 32);
  CHECK(mm.n == 32);
  CHECK(value(mm.totals().flop) == 131072);
  CHECK_FALSE(mm.totals().flop.estimated());
  // L373: mmadL1 {b_transpose, ...} ins(..., %c64, %c32, %37 ...): real_n %37 comes from loaded data, bounded
  // by affine.min(64, ...): estimated 2*64*32*64 = 262144.
  const OpRecord &mm2 = op_at(p, 373);
  CHECK(mm2.n == 64);
  CHECK(value(mm2.totals().flop) == 262144);
  CHECK(mm2.totals().flop.estimated());
}

TEST_CASE("H17/H18: SSA names reused across functions and names containing '-'") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), hivmtest::launch({128, 32}));
  // In the aic part %100 is an event select (values 2 and 3, L226)...
  const OpRecord &w = op_at(p, 298);
  REQUIRE(w.sync);
  CHECK(w.sync->event_value == "%100");
  CHECK(w.sync->event_values == std::vector<int64_t>{2, 3});
  // ...in the aiv part %99/%100 are the bounds of the loop at L1106 (0..64 iterations, from loaded data).
  const LoopRecord *loop = nullptr;
  for (const LoopRecord &l : p.loops)
    if (l.line == 1106) loop = &l;
  REQUIRE(loop != nullptr);
  CHECK(loop->trip.min == 0);
  CHECK(loop->trip.max == 64);
  CHECK_FALSE(loop->trip.exact);
}

TEST_CASE("H19/H20: vbrc into cbuf runs on MTE2; pointer_cast with two addresses is a double buffer") {
  PBTEST_REQUIRE_SHARED();
  Program p = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), {});
  // L364: vbrc ins(%cst : bf16) outs(memref<2048xbf16, cbuf>): pipe MTE2.
  CHECK(op_at(p, 364).pipes == PipeList{Pipe::MTE2});
  // L784: vbrc ins(memref<64x1xf16, ub>) outs(memref<64x32xf16, ub>): pipe V, 2048 f16 = 16 repeats.
  CHECK(op_at(p, 784).pipes == PipeList{Pipe::V});
  CHECK(value(op_at(p, 784).totals().repeats) == 16);
  Program a = analyze_text(hivmtest::shared_hivm("amort_copy_128.npuir.mlir"), {});
  // L39: load into %16 = pointer_cast(%c0_i64, %c512_i64): memref<128xf32, ub>, 512 B at 0 and at 512.
  const OpRecord &load = op_at(a, 39);
  REQUIRE(load.writes.size() == 1);
  CHECK(load.writes[0].kind == BufferRef::Kind::Address);
  CHECK(load.writes[0].base0 == 0);
  CHECK(load.writes[0].base1 == 512);
  CHECK(load.writes[0].bytes == 512);
}

TEST_CASE("H22/H24: op names in CHECK comments are not counted; brackets in function attributes") {
  PBTEST_REQUIRE_SHARED();
  // inject-block-sync.mlir names sync_block_set 10x, sync_block_wait 10x, sync_block 3x and set_ffts_base_addr
  // once, all in CHECK comments: none is an op, in any of its inputs.
  const std::string text = hivmtest::shared_hivm("ascendnpu-ir_inject-block-sync.mlir");
  std::vector<std::string> kernels = hivmtest::kernels_of(text);
  for (const std::string &kernel : kernels) {
    INFO(kernel);
    Program p = analyze_text(text, hivmtest::with_kernel({}, kernel));
    CHECK(histogram(p, "hivm.hir.sync_block_set") == 0);
    CHECK(histogram(p, "hivm.hir.sync_block_wait") == 0);
    CHECK(histogram(p, "hivm.hir.sync_block") == 0);
    CHECK(histogram(p, "hivm.hir.set_ffts_base_addr") == 0);
  }
  // Nine functions with bodies (the tenth "func.func" is a CHECK-LABEL comment).
  CHECK(kernels.size() == 9);
  // chunk_kda L6: func_dyn_memref_args = dense<[false, true, ...]> : vector<29xi1> before hivm.func_core_type.
  Program k = analyze_text(hivmtest::shared_hivm("chunk_kda.npuir.mlir"), {});
  CHECK(k.functions[0].core == CoreType::AIC);
  CHECK(k.functions[0].core_source == "hivm.func_core_type = AIC");
  CHECK(k.functions[0].args.size() == 29);
}

TEST_CASE("H14/H16: dynamic extents from affine.min/max and ops under conditions") {
  PBTEST_REQUIRE_SHARED();
  // No launch: n_a is unknown; the extent min(max(%8, n), %8 + 2048) - %8 is bounded by 2048 -> 8192 B estimated.
  Program none = analyze_text(hivmtest::shared_hivm("seeded_serial_on.npuir.mlir"), {});
  CHECK(value(op_at(none, 40).totals().bytes) == 8192);
  CHECK(op_at(none, 40).totals().bytes.estimated());
  // The tail fill (L36, under `scf.if %14 {...} {hivm.unlikely_condition}`) is undecidable: counted as not taken.
  const OpRecord &fill = op_at(none, 36);
  CHECK(fill.count.value == 0);
  CHECK(fill.count.min == 0);
  CHECK(fill.count.max == 1);
  CHECK_FALSE(fill.count.exact);
  // With the launch values the extent is exact: block 0 loads 2048 f32.
  Program with = analyze_text(hivmtest::shared_hivm("seeded_serial_on.npuir.mlir"),
                              hivmtest::launch({4096}, {{"4", 8388608}, {"5", 65536}}));
  CHECK(value(op_at(with, 40).totals().bytes) == 8192);
  CHECK_FALSE(op_at(with, 40).totals().bytes.estimated());
  CHECK(op_at(with, 36).count.exact);
  CHECK(op_at(with, 36).count.value == 0);
}

TEST_CASE("locations: loc(...) inline and through #loc aliases defined after the function") {
  std::string text =
      "func.func @k(%arg0: memref<64xf32, #hivm.address_space<gm>>) {\n"
      "  %c0_i64 = arith.constant 0 : i64 loc(#loc1)\n"
      "  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>> loc(\"/k.py\":7:3)\n"
      "  hivm.hir.load ins(%arg0 : memref<64xf32, #hivm.address_space<gm>>) outs(%0 : memref<64xf32, "
      "#hivm.address_space<ub>>) loc(#loc2)\n"
      "  return loc(#loc1)\n"
      "}\n"
      "#loc1 = loc(\"/k.py\":5:1)\n"
      "#loc2 = loc(callsite(#loc1 at \"/k.py\":9:12))\n";
  Program p = analyze_text(text, {});
  CHECK(op_at(p, 3).loc == "/k.py:7:3");
  CHECK(op_at(p, 4).loc == "/k.py:5:1");
  CHECK(op_at(p, 2).loc == "/k.py:5:1");
}

TEST_CASE("aliases of every length: the first token of a value is read after the lookahead dropped it") {
  // The alias reader once kept a reference to the first token of a value and
  // then popped it from the lookahead queue; when that token was the last of a
  // queue block the block was freed and the value's text was read from freed
  // memory (ASan: heap-use-after-free, found in CI on an AscendNPU-IR lit file).
  // Values of 1..80 tokens put the first token at every position of a block;
  // a plain build reads stale but intact memory, the asan stage catches it.
  std::string text;
  for (int n = 1; n <= 80; ++n) {
    text += "#pad" + std::to_string(n) + " = affine_map<(d0) -> (d0";
    for (int i = 0; i < n; ++i) text += " + d0";
    text += ")>\n";
  }
  text +=
      "#loc9 = loc(\"/k.py\":9:4)\n"
      "func.func @k(%arg0: memref<64xf32, #hivm.address_space<gm>>) {\n"
      "  %c0_i64 = arith.constant 0 : i64 loc(#loc9)\n"
      "  return\n"
      "}\n";
  Program p = analyze_text(text, {});
  CHECK(op_at(p, 83).loc == "/k.py:9:4");
}
