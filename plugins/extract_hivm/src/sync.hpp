//===- sync.hpp - handoffs, barriers and component edges -------------------===//
//
// From the op records of each function (pipes, buffers read and written,
// counts) and the loop structure, derives:
//   - handoff edges: set_flag/wait_flag pairs between pipes, with event ids,
//     counts per block, and whether the work before the set and after the
//     wait share a buffer (a true dependence) or not (avoidable);
//   - barriers per pipe, classified the same way (or as redundant when they
//     follow another barrier with no work in between);
//   - cross-core edges from sync_block_set/sync_block_wait flag ids;
//   - canonical component edges: compute -> carrier -> compute chains traced
//     to compute-to-compute edges, deduplicated by (producer, consumer).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_SYNC_HPP
#define PERFBOUND_EXTRACT_HIVM_SYNC_HPP

#include <cstdint>
#include <vector>

#include "program.hpp"

namespace pb::hivm {

/// The flat program order of one function, with its loop bodies.
struct FunctionView {
  uint32_t function = 0;
  uint32_t first_op = 0;  // [first_op, end_op) in Program::ops, in program order
  uint32_t end_op = 0;
  struct LoopSpan {
    uint32_t op = 0;          // the loop's own record
    uint32_t body_begin = 0;  // records of its body: [body_begin, body_end)
    uint32_t body_end = 0;
  };
  std::vector<LoopSpan> loops;
  std::vector<int32_t> innermost_loop;  // per record of the function: index into `loops`, -1 outside loops
};

void analyze_sync(Program &program, const std::vector<FunctionView> &views);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_SYNC_HPP
