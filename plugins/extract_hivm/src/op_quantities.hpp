//===- op_quantities.hpp - what one execution of a HIVM op moves/computes -===//
//
// OpQuantities::sample() computes the per-execution quantities of one HIVM
// op under the evaluation context (value_eval.hpp), from its operands' views
// (views.hpp) and the profile options:
//  - cube (mmadL1): m, k, n from real_m/real_k/real_n, FLOP = 2mkn, output
//    elements m*n, MTE1 bytes of the operands padded to the dtype's fractal
//    (estimated, like the FLOP, when an extent is an upper bound);
//  - DMA and non-vector moves: elements and bytes of the GM side (else the
//    first memref operand; vbrc: its destination), contiguous runs on the GM
//    side as packets and packet bytes;
//  - vector ops: elements of the widest operand, repeats of
//    vector_repeat_bytes (row-wise for non-contiguous views in 32-byte
//    blocks), masked lanes, FLOP for arithmetic/transcendental/reduce ops.
// A dynamic extent is exact where it evaluates exactly, else estimated from
// its upper bound, else unknown with the reason; beside each estimate, the
// quantity at the extents' lower ends is a sound minimum for the execution.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_OP_QUANTITIES_HPP
#define PERFBOUND_EXTRACT_HIVM_OP_QUANTITIES_HPP

#include <vector>

#include "function_ir.hpp"
#include "value_eval.hpp"
#include "views.hpp"

namespace pb::hivm::analysis {

/// Product of dimension estimates as a Quantity (`what` names it in the reason).
Quantity product(const std::vector<DimEval> &dims, const char *what);

class OpQuantities {
 public:
  OpQuantities(FunctionIr &ir, ValueEvaluator &ev) : ir_(ir), ev_(ev), shapes_(ir, ev) {}

  struct Sample {
    Quantity elements, bytes, flop, repeats, masked, packet_bytes, packets, mte1_bytes;
    // The fewest this execution can do: the value where it is exact, else the quantity at
    // the lower ends of its dynamic extents (0 where nothing bounds one from below).
    OptInt64 bytes_min, flop_min, repeats_min, mte1_min;
    OptInt64 m, k, n;        // cube: the extents (an upper end where dynamic)
    std::string_view dtype;  // element type of the side the quantities are measured on
    uint8_t taint = 0;
  };
  /// The quantities of one execution of record r (empty for non-HIVM records). It
  /// changes nothing in the record: every execution is sampled, and the record's
  /// per-execution fields are the representative one's (ExecutionCounts).
  Sample sample(uint32_t r);

 private:
  FunctionIr &ir_;
  ValueEvaluator &ev_;
  ShapeResolver shapes_;

  /// The fewest elements operand `o` can have under the evaluation context: the product of
  /// each extent's lower end (0 where nothing bounds an extent from below).
  int64_t elements_min(const Operand &o, uint8_t &taint);
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_OP_QUANTITIES_HPP
