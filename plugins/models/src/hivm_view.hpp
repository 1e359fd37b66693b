//===- hivm_view.hpp - what the HIVM-tier terms read from hivm_program ----===//
//
// One pass over a perfbound.hivm_program/1 document turns its op records
// into the work the terms need, split the way a sound per-core bound needs
// it: for every (core type, component, work class)
//   - `uniform`: work every block does, per block (summed over the block's
//     core instances): ops whose count does not depend on the block index,
//     counted with their guaranteed minimum count;
//   - `dependent`: work of block-dependent ops summed over the whole grid
//     (the extractor's exact per-grid sums), since block 0 is not a
//     minimum for them.
// A quantity the extractor marks estimated or unknown contributes nothing
// and is listed in `missing` (the bound stays a lower bound without it).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_HIVM_VIEW_HPP
#define PERFBOUND_MODELS_HIVM_VIEW_HPP

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace pb::models {

using json = pb::sdk::json;

/// Work of one class: per block for block-independent ops, per grid for
/// block-dependent ones.
struct Amount {
  double uniform = 0;    // per block, all instances of the block together
  double dependent = 0;  // summed over every block of the grid
  void add(const Amount &other) {
    uniform += other.uniform;
    dependent += other.dependent;
  }
  /// Total over a grid of `blocks` blocks.
  [[nodiscard]] double grid(double blocks) const { return uniform * blocks + dependent; }
};

/// An op that contributed, for evidence and findings.
struct OpRef {
  int id = -1;
  int line = 0;
  std::string op;
  std::string loc;  // Python file:line:col when the dump carries it
  double per_block = 0;
};

/// Something the view could not count, and why.
struct Missing {
  std::string what;
  std::string reason;
  int ops = 1;             // op records with this reason
  std::vector<int> lines;  // the first few
  std::string first_op;
};

/// Work of one component of one core type.
struct ComponentWork {
  std::string core;       // aic | aiv
  std::string component;  // msprof vocabulary: vector, cube, mte1, mte2, mte3, fixpipe, scalar
  std::map<std::string, Amount> by_class;  // work class -> amount (repeats, FLOP by dtype, bytes by path, instructions)
  std::vector<OpRef> top;                  // largest contributors (at most 8)
  [[nodiscard]] Amount total() const {
    Amount sum;
    for (const auto &[cls, amount] : by_class) sum.add(amount);
    return sum;
  }
};

/// GM traffic of one direction and transfer size.
struct Transfer {
  bool write = false;
  double transfer_bytes = 0;  // bytes per DMA execution (block 0)
  double packet_bytes = 0;    // contiguous run on the GM side (0 when unknown)
  std::string path;
  std::string core;
  Amount bytes;
  int line = 0;
  std::string gm_buffer;  // kind of the GM-side root buffer: arg, workspace, alloc, unknown
};

struct BarrierStats {
  std::string core;
  std::string pipe;
  std::string kind;  // mandatory, avoidable, redundant, prologue, epilogue
  Amount executions;
  std::vector<int> lines;
};

struct EdgeInfo {
  std::string producer, consumer;
  bool mandatory = false, cross_core = false;
  double multiplicity = 0;
  std::vector<int> lines;
};

struct FallbackLoop {
  int line = 0;
  int depth = 0;
  std::string core;
  double iterations_per_block = 0;  // guaranteed (min) element iterations per block
  bool exact = false;
  double scalar_per_iteration = 0;
  double issued_per_iteration = 0;
  std::string cause;  // the most frequent fallback cause inside
};

struct FallbackOp {
  int line = 0;
  std::string core;
  std::string op;
  std::string cause;
  double count_per_block = 0;
  std::string loc;
};

struct CoreType {
  bool present = false;
  double instances = 1;  // core instances per block
  std::string function;
};

struct HivmView {
  std::string kernel;
  std::string origin;
  std::optional<double> blocks;
  std::string blocks_reason;
  CoreType aic, aiv;
  std::map<std::string, ComponentWork> components;  // key "core.component"
  std::map<std::string, Amount> issued_guaranteed;  // per core: instructions that must exist
  std::map<std::string, Amount> issued_as_written;  // per core: the extractor's issued count
  std::map<std::string, Amount> scalar_as_written;  // per core: scalar instructions as written
  std::map<std::string, std::vector<OpRef>> issue_top;  // per core: largest scalar contributors
  std::map<std::string, Amount> vector_flop;        // by element type: FLOP of vector ops (grid floor)
  std::vector<Transfer> transfers;
  std::vector<BarrierStats> barriers;
  std::vector<EdgeInfo> edges;
  std::vector<FallbackLoop> fallback_loops;
  std::vector<FallbackOp> fallbacks;
  std::map<std::string, double> fallback_per_block;  // per core: fallback op executions (best estimate, block 0)
  std::map<std::string, Amount> vector_wasted_repeats;  // per core: repeats spent on masked lanes
  std::map<std::string, Amount> vector_instructions;    // per core: vector instructions issued
  std::vector<Missing> missing;
  std::vector<std::string> unmodelled;  // op names the extractor did not model

  /// Reads a perfbound.hivm_program/1 document; throws
  /// pb::sdk::InputError naming `origin` when a required member is absent
  /// or malformed. This walks every op record (chunk_kda: 1,672 records,
  /// 1.2 MB), so a pipeline does it once, in the `hivm_work` node.
  static HivmView from_json(const json &program, const std::string &origin);
  /// The view as a perfbound.hivm_work/1 document (a few kB): what every
  /// HIVM-tier term and the combiner read, already aggregated.
  [[nodiscard]] json to_work() const;
  /// Reads a perfbound.hivm_work/1 document back; throws
  /// pb::sdk::InputError naming `origin` when it is malformed.
  static HivmView from_work(const json &work, const std::string &origin);

  void note_missing(const std::string &what, const std::string &op, int line, const std::string &reason);
  [[nodiscard]] bool mix() const { return aic.present && aiv.present; }
  [[nodiscard]] const ComponentWork *find(const std::string &core, const std::string &component) const;
};

/// The msprof component of a HIVM pipe ("V" -> "vector", "MTE2" -> "mte2").
std::string component_of_pipe(const std::string &pipe);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_HIVM_VIEW_HPP
