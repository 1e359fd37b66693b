//===- hivm_view.hpp - what the HIVM-tier terms read from hivm_program ----===//
//
// One pass over a perfbound.hivm_program/1 document turns its op records
// into the work the terms need, split the way a sound per-core bound needs
// it: for every (core type, component, work class)
//   - `uniform`: the work every block does at least, per block (summed over
//     the block's core instances): the per-block minimum over all blocks of
//     the grid (the extractor's `block_min`), for block-dependent ops too;
//   - `dependent`: what the grid does beyond `blocks x uniform` (from the
//     extractor's exact per-grid sums; 0 when no exact sum exists, which
//     leaves the mean form at blocks x the minimum: still a lower bound).
// Work under user-given data facts (launch `trips` / `data`, assurance
// `given`) is kept apart as `given_uniform` / `given_dependent`: the strict
// figures never include it.
// A quantity the extractor marks estimated or unknown contributes nothing
// and is listed in `missing` and in `uncounted` (the bound stays a lower
// bound without it, and the report says what it left out). The per-block
// minimum is the extractor's block_min, or an exact per-block sum; the
// representative execution (`exec`) is never multiplied by the count: past
// the enumeration budget it is one sample, not a minimum.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_HIVM_VIEW_HPP
#define PERFBOUND_MODELS_HIVM_VIEW_HPP

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace pb::models {

using json = pb::sdk::json;

/// Work of one class: the per-block minimum and the grid's excess over it,
/// strict, plus what user-given facts add to each.
struct Amount {
  double uniform = 0;          // per-block minimum over all blocks, all instances of the block together
  double dependent = 0;        // grid total minus blocks x uniform
  double given_uniform = 0;    // added to `uniform` under the user's facts
  double given_dependent = 0;  // added to `dependent` under the user's facts
  void add(const Amount &other) {
    uniform += other.uniform;
    dependent += other.dependent;
    given_uniform += other.given_uniform;
    given_dependent += other.given_dependent;
  }
  /// Total over a grid of `blocks` blocks (strict).
  [[nodiscard]] double grid(double blocks) const { return uniform * blocks + dependent; }
  /// Whether the user's facts change anything.
  [[nodiscard]] bool has_given() const { return given_uniform != 0 || given_dependent != 0; }
  /// The amount under the user's facts (strict when none was given).
  [[nodiscard]] Amount with_given() const { return {uniform + given_uniform, dependent + given_dependent, 0, 0}; }
  /// Strict (false) or with the user's facts (true).
  [[nodiscard]] Amount pick(bool given) const { return given ? with_given() : Amount{uniform, dependent, 0, 0}; }
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
  int arg = -1;           // Triton position of the GM-side kernel argument (gm_buffer "arg"); -1 when unknown
  // While reading a program: the op's function and the HIVM argument index,
  // resolved to `arg` once the functions are read.
  int function = -1, hivm_arg = -1;
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

/// Coverage of one (core type, component): what the IR holds against what
/// the terms count (per block, strict; `given` under the user's facts).
/// Component "issue" is the core's instruction issue: every op that issues
/// instructions, counted when its instructions enter the issue floor.
struct CoverageRow {
  std::string core, component;
  int ops_present = 0;   // op records with work on this component that execute (or may) in this launch
  int ops_counted = 0;   // of those, ops whose work entered the amounts (strict or under the user's facts)
  int ops_given = 0;     // of the counted, those counted only under the user's facts
  int ops_excluded = 0;  // ops left out by rule (scalar instructions the backend may fold)
  double present = 0;    // best-estimate work per block (block 0), in `unit`
  double counted = 0;    // counted work per block (strict): the minimum plus the grid excess spread over the blocks
  bool present_known = true;  // false when some op's best estimate is unknown
  std::string unit;      // B, FLOP, repeat, instruction
  [[nodiscard]] double share() const { return ops_present > 0 ? double(ops_counted) / ops_present : 1.0; }
};

/// One op whose work the bound does not count, and what would count it.
struct Uncounted {
  int line = 0;
  std::string op, core, component, reason, hint;
  int loop_line = 0;  // the loop with the unknown trip count, when that is the cause
  double issued_estimate = 0;  // best-estimate instructions per block (block 0; 0 when unknown): what it would weigh
  bool issue_counted = false;  // its instructions are counted by the issue floor although its work is not
};

/// A user-given fact, echoed from the extractor.
struct GivenFact {
  std::string key;   // trips."1106", data."7"
  std::string fact;  // the fact as JSON text
  int ops = 0;       // op records it changed
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
  std::map<std::string, CoverageRow> coverage;  // key "core.component"
  std::vector<Uncounted> uncounted;              // the first kMaxUncounted
  int uncounted_total = 0;                       // all of them
  std::vector<GivenFact> given_facts;
  /// Scalar Triton arguments the launch did not give a value for: "3"
  /// (the position, as launch.args keys it), with the dump's name and type.
  struct MissingArg {
    std::string position, name, type;
  };
  std::vector<MissingArg> missing_args;
  /// `give args."3"` (every missing scalar argument), or "" when none is missing.
  [[nodiscard]] std::string missing_args_hint() const;
  static constexpr size_t kMaxUncounted = 200;

  /// Reads a perfbound.hivm_program/1 document; throws
  /// pb::sdk::InputError naming `origin` when a required member is absent
  /// or malformed. This walks every op record (chunk_kda: 1,672 records,
  /// 1.2 MB), so a pipeline does it once, in the `hivm_work` node.
  static HivmView from_json(const json &program, const std::string &origin);
  /// The same view from the document's JSON text, aggregated while it is
  /// parsed: each op record is added as soon as it is complete and
  /// dropped, so the program is never held whole (20 x chunk_kda: a 28 MB
  /// document). Equal to from_json(json::parse(text), origin) for every
  /// document; invalid JSON throws pb::sdk::InputError
  /// "<origin>: input '<port>' is not valid JSON", as RunContext::json_input.
  static HivmView from_text(std::string_view text, const std::string &origin, const char *port = "hivm");
  /// The view as a perfbound.hivm_work/1 document (a few kB): what every
  /// HIVM-tier term and the combiner read, already aggregated.
  [[nodiscard]] json to_work() const;
  /// Reads a perfbound.hivm_work/1 document back; throws
  /// pb::sdk::InputError naming `origin` when it is malformed.
  static HivmView from_work(const json &work, const std::string &origin);

  void note_missing(const std::string &what, const std::string &op, int line, const std::string &reason);
  void note_uncounted(Uncounted u);
  /// Whether any amount depends on a user-given fact.
  [[nodiscard]] bool has_given() const { return !given_facts.empty(); }
  [[nodiscard]] bool mix() const { return aic.present && aiv.present; }
  [[nodiscard]] const ComponentWork *find(const std::string &core, const std::string &component) const;
};

/// The msprof component of a HIVM pipe ("V" -> "vector", "MTE2" -> "mte2").
std::string component_of_pipe(const std::string &pipe);

/// The work of one op record, split the way the view aggregates it: one
/// entry per (component, work class) with its sound amount (per-block
/// minimum, grid excess, and what the user's facts add). `blocks` is the
/// grid's block count (nullopt when unknown). The same rules as the view's
/// own aggregation, applied to one record (the critical_path term weighs
/// each op of the ordering graph with it).
struct OpWorkItem {
  std::string component;  // vector, cube, scalar, mte1, mte2, mte3, fixpipe
  std::string work_class;
  Amount amount;
};
struct OpWork {
  std::string core;  // aic | aiv | "" (not on a core the view counts)
  std::vector<OpWorkItem> items;
};
OpWork op_work(const json &op, std::optional<double> blocks);

/// Streams the text of a perfbound.hivm_program/1 without holding its ops:
/// `on_blocks` is called once with the root members read so far (among
/// `members`, and always `blocks`) before the first op is handed to
/// `on_op`; each element of `ops` is then handed over as soon as it is
/// complete and dropped. Returns the root members in `members` (`ops`
/// empty). Throws pb::sdk::InputError "<origin>: input '<port>' is not
/// valid JSON" on invalid JSON.
json stream_program(std::string_view text, const std::string &origin, const char *port,
                    const std::vector<std::string> &members, const std::function<void(const json &root)> &on_blocks,
                    const std::function<void(const json &op)> &on_op);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_HIVM_VIEW_HPP
