//===- test_types.cpp - MLIR types, intervals and affine maps --------------===//
#include <doctest/doctest.h>

#include "interval.hpp"
#include "op_table.hpp"
#include "types.hpp"

using namespace pb::hivm;

TEST_CASE("memref types: shape, element type, strided layout, address space") {
  Type t = parse_type("memref<?x?xbf16, strided<[4096, 1], offset: ?>, #hivm.address_space<gm>>");
  CHECK(t.kind == Type::Kind::Memref);
  CHECK(t.shape == std::vector<int64_t>{kDynamic, kDynamic});
  CHECK(t.elem.name == "bf16");
  CHECK(t.elem.bits == 16);
  CHECK(t.has_strides);
  CHECK(t.strides == std::vector<int64_t>{4096, 1});
  CHECK(t.offset == kDynamic);
  CHECK(t.space == Space::GM);
  CHECK_FALSE(t.contiguous());

  Type nz = parse_type("memref<2x4x16x16xf32, #hivm.address_space<cc>>");
  CHECK(nz.static_elements() == 2048);
  CHECK(nz.strides == std::vector<int64_t>{1024, 256, 16, 1});  // identity layout, row-major
  CHECK(nz.contiguous());
  CHECK(nz.space == Space::L0C);

  // A column of a 2048x8 buffer: rank-reduced, stride 8.
  Type col = parse_type("memref<?xf32, strided<[8]>, #hivm.address_space<ub>>");
  CHECK(col.strides == std::vector<int64_t>{8});
  CHECK_FALSE(col.contiguous());
  // A unit dimension's stride does not break contiguity.
  CHECK(parse_type("memref<1x64xf32, strided<[64, 1]>, #hivm.address_space<ub>>").contiguous());

  Type i1 = parse_type("memref<2048xi1, #hivm.address_space<ub>>");
  CHECK(i1.elem.bits == 1);
  CHECK(parse_type("tensor<1024x1024xf32>").kind == Type::Kind::Tensor);
  CHECK(parse_type("tensor<1024x1024xf32>").space == Space::Unknown);
  CHECK(parse_type("index").elem.bits == 64);
  CHECK(parse_type("i64").kind == Type::Kind::Scalar);
  CHECK(parse_type("!tt.ptr<f32>").kind == Type::Kind::Other);
  // An address space given through an alias.
  AliasMap aliases{{"#ub", "#hivm.address_space<ub>"}};
  CHECK(parse_type("memref<16xf16, #ub>", &aliases).space == Space::UB);
}

TEST_CASE("intervals: the arithmetic the evaluator relies on") {
  const Interval full = Interval::full();
  CHECK(iv_add(Interval::point(3), Interval::range(1, 2)) == Interval::range(4, 5));
  CHECK(iv_sub(Interval::range(0, 64), Interval::point(64)) == Interval::range(-64, 0));
  CHECK(iv_mul(Interval::range(-2, 3), Interval::range(4, 5)) == Interval::range(-10, 15));
  CHECK(iv_mul(Interval::point(0), full) == Interval::point(0));
  CHECK(iv_floordiv(Interval::point(-7), Interval::point(2)) == Interval::point(-4));
  CHECK(iv_ceildiv(Interval::point(7), Interval::point(2)) == Interval::point(4));
  CHECK(iv_divs(Interval::point(-7), Interval::point(2)) == Interval::point(-3));
  CHECK(iv_rems(Interval::point(-7), Interval::point(2)) == Interval::point(-1));
  CHECK(iv_mod(Interval::point(-7), Interval::point(2)) == Interval::point(1));
  CHECK(iv_mod(Interval::range(0, 100), Interval::point(16)) == Interval::range(0, 15));
  // affine.min(64, x) bounds an unknown x from above.
  CHECK(iv_min(Interval::point(64), full).hi == 64);
  CHECK(iv_min(Interval::point(64), full).lo == Interval::kNegInf);
  // Unbounded products stay unbounded with the right sign.
  CHECK(iv_mul(Interval::range(1, Interval::kPosInf), Interval::point(-2)) == Interval::range(Interval::kNegInf, -2));
  CHECK(iv_floordiv(Interval::range(0, Interval::kPosInf), Interval::point(4096)) == Interval::range(0, Interval::kPosInf));
  // Division by an interval containing zero is unknown.
  CHECK(iv_divs(Interval::point(8), Interval::range(-1, 1)) == full);
}

TEST_CASE("affine maps from the dumps: parse, evaluate, count operations") {
  // chunk_kda L98: the parity of a flattened 2-D iteration index.
  auto map = AffineMap::parse(
      "affine_map<()[s0, s1, s2, s3, s4, s5, s6] -> (((s0 - s1) floordiv s3 + ((s4 - s5) floordiv s6) * "
      "((-s1 + s2 + s3 - 1) floordiv s3)) mod 2)>");
  REQUIRE(map);
  CHECK(map->num_dims() == 0);
  CHECK(map->num_symbols() == 7);
  std::vector<Interval> ops = {Interval::point(3), Interval::point(0), Interval::point(4), Interval::point(1),
                               Interval::point(1), Interval::point(0), Interval::point(1)};
  // (3 - 0) / 1 + ((1 - 0) / 1) * ((0 + 4 + 1 - 1) / 1) = 3 + 4 = 7; 7 mod 2 = 1.
  CHECK(map->eval(0, ops) == Interval::point(1));
  // affine.min (s1 + 2048, s0): two results.
  auto mn = AffineMap::parse("affine_map<()[s0, s1] -> (s1 + 2048, s0)>");
  REQUIRE(mn);
  CHECK(mn->num_results() == 2);
  CHECK(mn->op_count(0) == 1);
  CHECK(mn->op_count(1) == 0);
  // Dims and symbols, and a subtraction written with '-'.
  auto ds = AffineMap::parse("(d0, d1)[s0] -> (d0 * 64 + d1 - s0)");
  REQUIRE(ds);
  CHECK(ds->eval(0, std::vector<Interval>{Interval::point(2), Interval::point(5), Interval::point(1)}) == Interval::point(132));
  CHECK(ds->op_count(0) == 3);  // *, +, - (a subtraction is one op)
  std::string error;
  CHECK_FALSE(AffineMap::parse("affine_map<()[s0] -> (s0 +)>", &error));
  CHECK_FALSE(error.empty());
}

TEST_CASE("op table: pipes by op and by address space") {
  CHECK(lookup_op("hivm.hir.vadd")->pipe == Pipe::V);
  CHECK(lookup_op("hivm.hir.nd2nz")->pipe == Pipe::MTE2);
  CHECK(lookup_op("hivm.hir.fixpipe")->pipe == Pipe::FIX);
  CHECK(lookup_op("hivm.hir.store")->pipe == Pipe::MTE3);
  CHECK(lookup_op("hivm.hir.mmadL1")->second_pipe_mte1);
  CHECK_FALSE(lookup_op("hivm.hir.not_an_op").has_value());
  // GetPipe.cpp for copy; vbrc by destination.
  CHECK(pipe_for_copy(Space::UB, Space::UB) == Pipe::V);
  CHECK(pipe_for_copy(Space::L0C, Space::GM) == Pipe::FIX);
  CHECK(pipe_for_copy(Space::GM, Space::L1) == Pipe::MTE2);
  CHECK(pipe_for_copy(Space::UB, Space::L1) == Pipe::MTE3);
  CHECK_FALSE(pipe_for_copy(Space::Unknown, Space::Unknown).has_value());
  CHECK(pipe_for_vbrc(Space::L1) == Pipe::MTE2);
  CHECK(pipe_for_vbrc(Space::UB) == Pipe::V);
  CHECK(pipe_from_enum("PIPE_MTE2") == Pipe::MTE2);
  CHECK_FALSE(pipe_from_enum("PIPE_MTE9").has_value());
}
