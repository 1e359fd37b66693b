//===- work.hpp - the work of one op execution on concrete shapes ---------===//
//
// The rules of docs/extract_hivm.md §4 (elements, bytes, packets, vector
// repeats, masked lanes, FLOP, cube FLOP and fractal-padded MTE1 bytes) and
// §5 (scalar and issued instructions), and docs/model.md §3.5 (the
// instructions that must exist), re-implemented from the text on concrete
// operand shapes: every size and stride is a number here.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HIVM_ORACLE_WORK_HPP
#define PERFBOUND_HIVM_ORACLE_WORK_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "oracle.hpp"

namespace pb::hivm::oracle {

/// An operand of a HIVM op at one execution.
struct Shape {
  bool memref = false;  // false: a scalar operand (vbrc's value, mmadL1's sizes)
  Space space = Space::Unknown;
  ElemType elem;
  std::vector<int64_t> sizes, strides;
};

int64_t element_count(const Shape &s);
/// Bytes of `elements` elements of `bits` each, a sub-byte element taking a whole byte.
int64_t bytes_of(int64_t elements, uint32_t bits);
/// The contiguous run in elements: dimensions walked innermost first, merged
/// while the stride equals the elements gathered so far (size-1 dimensions
/// skipped).
int64_t contiguous_run(const Shape &s);

struct VectorWork {
  int64_t elements = 0, repeats = 0, masked_lanes = 0, flop = 0;
  std::string dtype;
};
/// Vector work: the lane operand is the memref with most elements (ties: the
/// widest element type; i1 masks only when nothing else is a memref).
VectorWork vector_work(const std::vector<Shape> &operands, OpClass cls, int64_t repeat_bytes);

/// Cube: FLOP and fractal-padded MTE1 bytes of M x K x N of `dtype`.
int64_t cube_flop(int64_t m, int64_t k, int64_t n);
int64_t cube_mte1_bytes(int64_t m, int64_t k, int64_t n, const ElemType &elem, const Options &options);

/// Vector instructions issued for `repeats` (255 repeats per instruction).
int64_t vector_instructions(int64_t repeats);

/// The model's classification of an op's scalar work: arith, compare,
/// bitwise, cast, address, gm_load, gm_store, ub_access, loop_control,
/// branch, hivm; "" for ops without scalar work.
std::string scalar_kind_of(OpClass cls, std::string_view name, Space access_space, bool store);
/// docs/model.md §3.5: HIVM scalar ops that act on the machine (not
/// convert_layout, multi_buffer_counter).
bool guaranteed_hivm_scalar(std::string_view name);

}  // namespace pb::hivm::oracle

#endif  // PERFBOUND_HIVM_ORACLE_WORK_HPP
