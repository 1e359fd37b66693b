//===- test_pass_values.cpp - the walk, value evaluation and memref views -===//
//
// Unit tests of op_syntax.hpp (reading op text), walk.hpp, scalar_ops.hpp and
// hivm_ops.hpp (what the walk builds), value_eval.hpp
// (values as intervals, launch binding, data facts) and views.hpp (the views
// behind memrefs and their extents under a context), each on a small dump
// written here; line numbers are those of the raw string (line 1 is the
// first line after R"().
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "lexer.hpp"
#include "op_syntax.hpp"
#include "pass_harness.hpp"
#include "views.hpp"

using namespace hivmtest;

namespace {

// Block-index arithmetic, a compare, a select and an affine map; Triton argument 0 is n,
// the grid arguments are %arg2 and %arg3.
const std::string kArith = R"(func.func @arith(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: i32, %arg2: i32, %arg3: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %0 = hivm.hir.get_block_idx -> i64
  %1 = arith.index_cast %0 : i64 to index
  %2 = arith.muli %1, %c4 : index
  %3 = arith.addi %2, %c3 : index
  %4 = arith.cmpi slt, %1, %c3 : index
  %5 = arith.select %4, %c4, %c3 : index
  %6 = arith.remsi %3, %c4 : index
  %7 = affine.min affine_map<()[s0, s1] -> (s0 * 8, s1)>()[%1, %c4]
  %8 = arith.muli %arg2, %arg3 : i32
  annotation.mark %8 {logical_block_num} : i32
  %9 = arith.index_cast %arg1 : i32 to index
  %10 = arith.addi %9, %c3 : index
  %11 = arith.index_cast %arg2 : i32 to index
  return
}
)";

Eval eval_line(Passes &p, uint32_t line) { return p.ev.eval(p.value_at(line)); }

}  // namespace

TEST_CASE("walk: one record per op with its class, pipe and scalar instructions; loops and paths") {
  const std::string text = R"(func.func @walk(%arg0: memref<?xf32, #hivm.address_space<gm>>, %arg1: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c0_i64 = arith.constant 0 : i64
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  scf.for %arg2 = %c0 to %c8 step %c1 {
    %1 = hivm.hir.get_block_idx -> i64
    %2 = arith.cmpi eq, %1, %c0_i64 : i64
    scf.if %2 {
      hivm.hir.load ins(%arg0 : memref<?xf32, #hivm.address_space<gm>>) outs(%0 : memref<64xf32, #hivm.address_space<ub>>)
    }
  }
  return
}
)";
  with_function(text, {}, [](Passes &p) {
    CHECK(p.ir.prog.ops.size() == 11);  // 4 constants, pointer_cast, for, block idx, cmpi, if, load, return
    const OpRecord &load = p.ir.prog.ops[p.record_at(11)];
    CHECK(load.name == "hivm.hir.load");
    REQUIRE(load.pipes.size() == 1);
    CHECK(load.pipes[0] == Pipe::MTE2);
    CHECK(load.src == Space::GM);
    CHECK(load.dst == Space::UB);
    CHECK(load.loop_depth == 1);
    CHECK(p.ir.detail(p.record_at(11)).hivm);
    // The load's path: root -> loop (line 7) -> taken branch of the if (line 10).
    std::vector<int32_t> chain = p.ir.chain_of(p.ir.path_of(p.record_at(11)));
    REQUIRE(chain.size() == 3);
    CHECK(p.ir.paths[static_cast<size_t>(chain[1])].kind == PathNode::Kind::Loop);
    CHECK(p.ir.paths[static_cast<size_t>(chain[2])].kind == PathNode::Kind::Cond);
    CHECK_FALSE(p.ir.paths[static_cast<size_t>(chain[2])].negated);
    REQUIRE(p.ir.loops.size() == 1);
    CHECK(p.ir.loops[0].line == 7);
    CHECK(p.ir.loops[0].has_hivm);
    CHECK_FALSE(p.ir.loops[0].has_scalar_memory);
    const OpRecord &loop = p.ir.prog.ops[p.record_at(7)];
    CHECK(loop.scalar_instructions == 2);  // compare and branch per iteration
    CHECK(loop.scalar_kind == "loop_control");
    CHECK(p.ir.prog.ops[p.record_at(9)].scalar_kind == "compare");
    // Arguments: a pointer (a GM buffer root) and a scalar.
    const FunctionRecord &fr = p.ir.prog.functions[0];
    REQUIRE(fr.args.size() == 2);
    CHECK(fr.args[0].role == "pointer");
    CHECK(fr.args[1].role == "scalar");
    CHECK(fr.core == CoreType::AIV);
    const MemrefInfo *arg0 = p.ir.mem_of(p.ir.arg_values[0]);
    REQUIRE(arg0 != nullptr);
    REQUIRE(arg0->roots.size() == 1);
    CHECK(arg0->roots[0].kind == BufferRef::Kind::Arg);
    CHECK(arg0->roots[0].space == Space::GM);
  });
}

TEST_CASE("scalar_ops: affine maps cost one instruction per operation; a bad map is refused at its line") {
  with_function(kArith, {}, [](Passes &p) {
    // affine.min of (s0 * 8, s1): one multiply and one min.
    CHECK(p.ir.prog.ops[p.record_at(11)].scalar_instructions == 2);
    CHECK(p.ir.prog.ops[p.record_at(11)].scalar_kind == "address");
    CHECK(p.ir.values[p.value_at(11)].kind == VKind::Affine);
    CHECK(p.ir.values[p.value_at(8)].kind == VKind::Compare);
    CHECK(p.ir.values[p.value_at(9)].kind == VKind::Select);
    CHECK(p.ir.logical_block_num == p.value_at(12));
  });
  const std::string bad = R"(func.func @bad() {
  %c1 = arith.constant 1 : index
  %0 = affine.apply affine_map<()[s0] -> (s0 +)>()[%c1]
  return
}
)";
  try {
    with_function(bad, {}, [](Passes &) { FAIL("the walk accepted an unreadable affine map"); });
    FAIL("no error");
  } catch (const SourceError &e) {
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find("cannot read the affine map of affine.apply") == 0);
  }
}

TEST_CASE("value_eval: exact on constants and a known block, sound intervals over every block") {
  with_function(kArith, {}, [](Passes &p) {
    p.at_block(Interval::point(2));
    CHECK(eval_line(p, 7).iv.lo == 11);  // 2 * 4 + 3
    CHECK(eval_line(p, 7).iv.exact());
    CHECK(eval_line(p, 7).taint == kTBlock);
    CHECK(eval_line(p, 9).iv.lo == 4);    // 2 < 3: select the first
    CHECK(eval_line(p, 10).iv.lo == 3);   // 11 rem 4
    CHECK(eval_line(p, 11).iv.lo == 4);   // min(16, 4)
    p.at_block(Interval::range(0, 7));
    Eval x = eval_line(p, 7);
    CHECK(x.iv.lo == 3);
    CHECK(x.iv.hi == 31);
    CHECK((x.taint & kTBlock) != 0);
    Eval cond = eval_line(p, 8);  // undecided over [0, 7]
    CHECK(cond.iv.lo == 0);
    CHECK(cond.iv.hi == 1);
    Eval sel = eval_line(p, 9);  // either operand
    CHECK(sel.iv.lo == 3);
    CHECK(sel.iv.hi == 4);
    p.at_block(Interval::range(0, 2));  // decided: every block is below 3
    CHECK(eval_line(p, 9).iv.exact());
    CHECK(eval_line(p, 9).iv.lo == 4);
    // A name nothing defined is unknown.
    CHECK(p.ev.eval(kNone).taint == kTUnknown);
  });
}

TEST_CASE("value_eval: bind_launch - grid arguments from {logical_block_num}, scalars by Triton position") {
  // Without a launch a scalar argument is unknown (tainted as a launch argument).
  with_function(kArith, {}, [](Passes &p) {
    p.ev.bind_launch();
    p.at_block(Interval::point(0));
    Eval n = eval_line(p, 15);
    CHECK((n.taint & kTArg) != 0);
    CHECK_FALSE(n.iv.exact());
  });
  AnalysisOptions o;
  o.have_launch = true;
  o.grid = {6, 2};
  o.args = {{"0", 100.0}};
  with_function(kArith, o, [](Passes &p) {
    p.ev.bind_launch();
    const FunctionRecord &fr = p.ir.prog.functions[0];
    CHECK(fr.args[2].role == "grid_x");
    CHECK(fr.args[3].role == "grid_y");
    CHECK(fr.args[2].value_source == "launch.grid[0]");
    REQUIRE(fr.args[1].triton_index.has_value());
    CHECK(*fr.args[1].triton_index == 0);
    CHECK(fr.args[1].value_source == "launch.args[\"0\"]");
    p.at_block(Interval::point(0));
    CHECK(eval_line(p, 15).iv.lo == 103);  // n + 3
    CHECK(eval_line(p, 15).iv.exact());
    CHECK(eval_line(p, 16).iv.lo == 6);  // grid_x
    CHECK(eval_line(p, 12).iv.lo == 12);  // the block count 6 x 2
    // Every block index of the 12-block grid (Program::blocks from the launch).
    CHECK(p.ev.launch.block_any.lo == 0);
    CHECK(p.ev.launch.block_any.hi == 11);
  });
}

TEST_CASE("value_eval: a scalar load from a tensor the user gave reads its element; out of range is refused") {
  const std::string text = R"(func.func @gather(%arg0: memref<?xi32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0 = arith.constant 0 : index
  %0 = hivm.hir.get_block_idx -> i64
  %1 = arith.index_cast %0 : i64 to index
  %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [%1], sizes: [1], strides: [1] : memref<?xi32, #hivm.address_space<gm>> to memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %2 = memref.load %reinterpret_cast[%c0] : memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  return
}
)";
  AnalysisOptions o;
  o.have_launch = true;
  o.grid = {3};
  o.data.push_back({"0", {5, 7, 9}, "inline"});
  with_function(text, o, [](Passes &p) {
    CHECK(p.ir.values[p.value_at(6)].kind == VKind::Load);
    p.ev.bind_launch();
    p.at_block(Interval::point(1));
    Eval e = eval_line(p, 6);
    CHECK(e.iv.exact());
    CHECK(e.iv.lo == 7);
    CHECK((e.taint & kTGiven) != 0);
    CHECK(p.ev.facts_used == p.ev.data_bit(0));
    CHECK(p.ir.prog.data_fact_lines[0].count(6) == 1);
    p.at_block(Interval::range(0, 2));
    e = eval_line(p, 6);
    CHECK(e.iv.lo == 5);
    CHECK(e.iv.hi == 9);
    p.at_block(Interval::point(3));
    try {
      (void)eval_line(p, 6);
      FAIL("element 3 of a 3-element tensor was read");
    } catch (const SourceError &err) {
      CHECK(err.line() == 6);
      CHECK(std::string(err.what()) == "launch data.\"0\": this load reads element 3, outside the 3 elements given (inline)");
    }
  });
  // Without the fact the load is data: unknown.
  with_function(text, {}, [](Passes &p) {
    p.ev.bind_launch();
    p.at_block(Interval::point(1));
    CHECK(eval_line(p, 6).taint == kTData);
  });
}

TEST_CASE("views: subview, reinterpret_cast, collapse_shape and pointer_cast build the views behind memrefs") {
  const std::string text = R"(func.func @views(%arg0: memref<?xf16, #hivm.address_space<gm>>, %arg1: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %c4096_i64 = arith.constant 4096 : i64
  %c2 = arith.constant 2 : index
  %0 = arith.index_cast %arg1 : i32 to index
  %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [%0], sizes: [64, 128], strides: [256, 1] : memref<?xf16, #hivm.address_space<gm>> to memref<64x128xf16, strided<[256, 1], offset: ?>, #hivm.address_space<gm>>
  %1 = affine.min affine_map<()[s0] -> (64, s0)>()[%0]
  %subview = memref.subview %reinterpret_cast[0, 0] [%1, 128] [1, 1] : memref<64x128xf16, strided<[256, 1], offset: ?>, #hivm.address_space<gm>> to memref<?x128xf16, strided<[256, 1], offset: ?>, #hivm.address_space<gm>>
  %2 = hivm.hir.pointer_cast(%c0_i64, %c4096_i64) : memref<2x4x16xf16, #hivm.address_space<ub>>
  %collapse_shape = memref.collapse_shape %2 [[0, 1], [2]] : memref<2x4x16xf16, #hivm.address_space<ub>> into memref<8x16xf16, #hivm.address_space<ub>>
  %alloc = memref.alloc() : memref<32xf32, #hivm.address_space<ub>>
  %alloc_0 = memref.alloc() : memref<32xf32, #hivm.address_space<ub>>
  return
}
)";
  with_function(text, {}, [](Passes &p) {
    const MemrefInfo &rc = p.view_at(6);
    REQUIRE(rc.dims.size() == 2);
    CHECK(rc.dims[0].c == 64);
    CHECK(rc.dims[1].c == 128);
    CHECK(rc.strides[0].c == 256);
    CHECK(rc.offset.v == p.value_at(5));  // offset: [%0]
    REQUIRE(rc.roots.size() == 1);
    CHECK(rc.roots[0].kind == BufferRef::Kind::Arg);
    CHECK(rc.roots[0].id == 0);
    // The subview: a dynamic row count bounded by the source's 64 rows, the offset kept (all-zero offsets).
    const MemrefInfo &sv = p.view_at(8);
    CHECK(sv.dims[0].c == kDynamic);
    CHECK(sv.dims[0].v == p.value_at(7));
    CHECK(sv.dims[0].bound == 64);
    CHECK(sv.dims[1].c == 128);
    CHECK(sv.offset.v == rc.offset.v);
    CHECK(sv.roots[0].kind == BufferRef::Kind::Arg);
    // pointer_cast: a fixed UB address pair (double buffer), 2*4*16 f16 = 256 bytes.
    const MemrefInfo &pc = p.view_at(9);
    REQUIRE(pc.roots.size() == 1);
    CHECK(pc.roots[0].kind == BufferRef::Kind::Address);
    CHECK(pc.roots[0].base0 == 0);
    CHECK(pc.roots[0].base1 == 4096);
    CHECK(pc.roots[0].bytes == 256);
    // collapse_shape [[0, 1], [2]]: 2 x 4 = 8 rows of 16, the same buffer.
    const MemrefInfo &cs = p.view_at(10);
    CHECK(cs.dims[0].c == 8);
    CHECK(cs.dims[1].c == 16);
    CHECK(cs.roots[0].base1 == 4096);
    // Two allocs are two buffers.
    CHECK(p.view_at(11).roots[0].kind == BufferRef::Kind::Alloc);
    CHECK(p.view_at(11).roots[0].id != p.view_at(12).roots[0].id);
  });
}

TEST_CASE("views: ShapeResolver - a dynamic extent is exact under a launch value, else its upper bound") {
  const std::string text = R"(func.func @shape(%arg0: memref<?xf32, #hivm.address_space<gm>>, %arg1: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %0 = arith.index_cast %arg1 : i32 to index
  %1 = affine.min affine_map<()[s0] -> (256, s0)>()[%0]
  %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%1], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<?xf32, strided<[1]>, #hivm.address_space<gm>>
  %2 = arith.muli %0, %0 : index
  %reinterpret_cast_0 = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%2], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<?xf32, strided<[1]>, #hivm.address_space<gm>>
  return
}
)";
  auto check = [&](const AnalysisOptions &o, int64_t value, bool exact, bool second_known) {
    with_function(text, o, [&](Passes &p) {
      p.ev.bind_launch();
      p.at_block(Interval::point(0));
      ShapeResolver shapes(p.ir, p.ev);
      uint8_t taint = 0;
      DimEval d = shapes.eval_dim(p.view_at(4).dims[0], taint);
      CHECK(d.known);
      CHECK(d.exact == exact);
      CHECK(d.value == value);
      DimEval sq = shapes.eval_dim(p.view_at(6).dims[0], taint);
      CHECK(sq.known == second_known);  // n * n has no bound without n
    });
  };
  check({}, 256, false, false);  // min(256, n): at most 256
  AnalysisOptions o;
  o.have_launch = true;
  o.grid = {1};
  o.args = {{"1", 40.0}};  // n is Triton argument 1 (after the pointer)
  check(o, 40, true, true);
}

namespace {

/// The tokens of `text` (kept alive by the caller's vector).
TokSpan tokens(const std::string &text, std::vector<Token> &store) {
  Lexer lex(text);
  for (Token t = lex.next(); t.kind != Tok::Eof; t = lex.next()) store.push_back(t);
  return {store.data(), store.data() + store.size()};
}

}  // namespace

TEST_CASE("op_syntax: bracketed lists, named attributes, enum words, integers and #loc aliases") {
  // Tokens point into their text: the texts live as long as the test.
  const std::string list = "0, %13, -2";
  const std::string view = "to offset: [%0], sizes: [64, 128], strides: [256, 1]";
  const std::string attrs = "hivm.func_core_type = #hivm.func_core_type<AIV>, hacc.entry, n = <-3>";
  const std::string loc = "loc(#loc5)";
  std::vector<Token> a, b, c, d;
  std::vector<ListEntry> entries = list_entries(tokens(list, a));
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].c == 0);
  CHECK(entries[1].c == kDynamic);
  CHECK(entries[1].name == "%13");
  CHECK(entries[2].c == -2);
  std::optional<TokSpan> sizes = list_after(tokens(view, b), "sizes");
  REQUIRE(sizes.has_value());
  CHECK(list_entries(*sizes)[1].c == 128);
  TokSpan dict = tokens(attrs, c);
  std::optional<TokSpan> core = named_attr(dict, "hivm.func_core_type");
  REQUIRE(core.has_value());
  CHECK(enum_word(*core) == "AIV");
  std::optional<TokSpan> unit = named_attr(dict, "hacc.entry");
  REQUIRE(unit.has_value());
  CHECK(unit->empty());
  CHECK_FALSE(named_attr(dict, "missing").has_value());
  CHECK(first_int(*named_attr(dict, "n")) == -3);
  const std::string alias_text = R"(loc("kernel.py":12:3))";
  AliasMap aliases{{"#loc5", alias_text}};
  CHECK(location_of(tokens(loc, d), aliases) == "kernel.py:12:3");
}

TEST_CASE("op_syntax: the generic printed form gives the same values as the pretty one") {
  const std::string text = R"("func.func"() <{function_type = () -> (), sym_name = "generic"}> ({
  %0 = "arith.constant"() <{value = 7 : index}> : () -> index
  %1 = "arith.muli"(%0, %0) : (index, index) -> index
  %2 = "arith.cmpi"(%1, %0) <{predicate = 4 : i64}> : (index, index) -> i1
  "func.return"() : () -> ()
}) : () -> ()
)";
  with_function(text, {}, [](Passes &p) {
    CHECK(p.ir.prog.functions[0].name == "@generic");
    CHECK(p.ev.eval(p.value_at(3)).iv.lo == 49);
    CHECK(p.ev.eval(p.value_at(4)).iv.lo == 1);  // predicate 4 = sgt: 49 > 7
    CHECK(p.ir.prog.ops[p.record_at(3)].scalar_kind == "arith");
  });
}

TEST_CASE("hivm_ops: sync operands (static and dynamic events), copy pipes from address spaces") {
  const std::string text = R"(func.func @sync(%arg0: memref<64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  %1 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID3>]
  hivm.hir.pipe_barrier[<PIPE_ALL>]
  hivm.hir.copy ins(%0 : memref<64xf32, #hivm.address_space<ub>>) outs(%1 : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.copy ins(%0 : memref<64xf32, #hivm.address_space<ub>>) outs(%arg0 : memref<64xf32, #hivm.address_space<gm>>)
  scf.for %arg1 = %c0 to %c2 step %c1 {
    %2 = arith.index_cast %arg1 : index to i64
    hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_V>, %2]
  }
  return
}
)";
  with_function(text, {}, [](Passes &p) {
    const OpRecord &set = p.ir.prog.ops[p.record_at(8)];
    REQUIRE(set.sync != nullptr);
    CHECK(set.sync->from == Pipe::MTE2);
    CHECK(set.sync->to == Pipe::V);
    CHECK(set.sync->event == 3);
    CHECK(set.pipes == PipeList{Pipe::MTE2});
    CHECK(p.ir.prog.ops[p.record_at(9)].pipes == PipeList{Pipe::ALL});
    // UB -> UB copy: the vector pipe, reading one fixed UB buffer and writing the other.
    const OpRecord &copy = p.ir.prog.ops[p.record_at(10)];
    CHECK(copy.cls == OpClass::VectorMove);
    CHECK(copy.pipes == PipeList{Pipe::V});
    CHECK(copy.path_name == "ub_to_ub");
    REQUIRE(copy.reads.size() == 1);
    CHECK(copy.reads[0].kind == BufferRef::Kind::Address);
    CHECK(copy.writes.size() == 1);
    // UB -> GM: MTE3.
    const OpRecord &out = p.ir.prog.ops[p.record_at(11)];
    CHECK(out.pipes == PipeList{Pipe::MTE3});
    CHECK(out.path_name == "ub_to_gm");
    // The dynamic event id takes 0 and 1 over the loop's iterations.
    const uint32_t wait = p.record_at(14);
    CHECK(p.ir.prog.ops[wait].sync->event_value == "%2");
    CHECK(p.ir.detail(wait).event == p.value_at(13));
    p.run_all();
    CHECK(p.ir.prog.ops[wait].sync->event_values == std::vector<int64_t>{0, 1});
  });
}
