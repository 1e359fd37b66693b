//===- oracle.hpp - a concrete-execution reference for HIVM programs ------===//
//
// The oracle runs every function of a HIVM dump, block by block, for one
// launch (grid, scalar arguments) and one data world (the launch's `data`
// tensors, else a seeded value provider), with concrete integers: every loop
// is iterated, every select/affine.min/scf.if decided, every dynamic size,
// offset and stride computed. It counts the work the bound model reasons
// about, exactly, per op and per block: DMA bytes per path and transfer size,
// vector repeats by class, cube FLOP by dtype, MTE1 bytes, scalar memory
// accesses, scalar/issued/guaranteed instructions, sync ops, loop trips, and
// the unique GM bytes each kernel argument touches.
//
// It is an independent reference for the extractor (plugins/extract_hivm/src)
// and shares only the parser (lexer, parser, types, ir) and the op table with
// it: no value evaluator, intervals, trip-count pass, op-quantity pass or
// sampling. The work rules (docs/extract_hivm.md §4-5, docs/model.md §3.5)
// are re-implemented in work.cpp. It is a test library, never linked into the
// plugin. docs/validation.md says what it checks and how.
//
// Execution model: a mix kernel's `_mix_aic` half runs once per block and its
// `_mix_aiv` half `aiv_per_aic` times (get_sub_block_idx 0, 1, ...); every
// other function runs once per block. Blocks run one after another; nothing
// is shared between them but the data world.
//
// Budget: a launch that needs more than `Options::max_ops` executed ops is
// refused with OracleError ("budget"), so a test can size its launches.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HIVM_ORACLE_HPP
#define PERFBOUND_HIVM_ORACLE_HPP

#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "op_table.hpp"
#include "types.hpp"

namespace pb::hivm::oracle {

/// The oracle refuses: unsupported IR that matters, a world that cannot
/// be executed (division by zero, a load outside the data given), or the
/// budget. `line` is the dump line (0 when none).
class OracleError : public std::runtime_error {
 public:
  enum class Kind { Unsupported, World, Budget, Input };
  OracleError(Kind kind, uint32_t line, const std::string &message);
  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] uint32_t line() const { return line_; }

 private:
  Kind kind_;
  uint32_t line_;
};

struct Fractal {
  int64_t m = 16, k = 16, n = 16;
};

/// Grid, scalar arguments and tensor contents, keyed as the extractor's launch
/// document keys them (docs/extract_hivm.md §3): by Triton position, "N" or "%argN".
struct Launch {
  std::vector<int64_t> grid;
  std::map<std::string, double> args;
  std::map<std::string, std::vector<int64_t>> data;
};

struct Options {
  // From the profile (apply_profile).
  int64_t vector_repeat_bytes = 256;
  uint32_t aiv_per_aic = 2;
  std::map<std::string, Fractal> fractal;  // by element type: "f16", "bf16", "f32", "i8"
  // Budget: executed ops over the whole launch, and GM rows tracked for unique bytes.
  uint64_t max_ops = 2'000'000;
  uint64_t max_rows = 4'000'000;
  // The data world where the launch gives no data: loaded integers are a seeded
  // hash of (seed, buffer, byte address) in [load_lo, load_hi]; scalar arguments
  // the launch does not give, a hash in [scalar_lo, scalar_hi].
  uint64_t seed = 1;
  int64_t load_lo = 0, load_hi = 16;
  int64_t scalar_lo = 1, scalar_hi = 64;
  /// Keep, per block, the ordered op executions with their pipe and work
  /// (Result::trace): for checks of terms that follow the order of execution.
  bool trace = false;
};

/// Reads vector.repeat_bytes, cores.aic/aiv and cube.fractal from a
/// perfbound.profile/1 document.
void apply_profile(const nlohmann::json &profile, Options &options);
/// Reads grid, args and data (inline arrays) from a perfbound.launch/1 document.
Launch launch_from_json(const nlohmann::json &launch);

enum class Core : uint8_t { AIC, AIV, Unknown };
const char *core_name(Core core);

/// The per-block sums kept for every op.
enum Field : uint8_t {
  kCount,        // executions
  kIterations,   // loops: iterations (all entries)
  kBytes,        // DMA-like: bytes on the GM side (else the source)
  kElements,     // elements (lane operand / GM side)
  kFlop,
  kRepeats,      // vector repeats
  kMasked,       // masked lanes
  kPackets,
  kScalar,       // scalar instructions
  kIssued,       // issued instructions (as the extractor writes them)
  kGuaranteed,   // instructions that must exist (docs/model.md §3.5)
  kMte1,         // cube: L1 -> L0A/L0B bytes (fractal-padded)
  kGmScalarBytes,// memref.load/store on GM
  kFieldCount
};
const char *field_name(Field f);
using Sums = std::array<int64_t, kFieldCount>;

/// The quantities of one execution of an op; -1 where not applicable.
struct Exec {
  int64_t elements = -1, bytes = -1, packet_bytes = -1, packets = -1, repeats = -1, masked_lanes = -1, flop = -1;
  int64_t mte1_bytes = -1, m = -1, k = -1, n = -1;
  int64_t scalar = 0, issued = 0, guaranteed = 0, gm_scalar_bytes = 0;
};

/// Everything the oracle knows about one static op.
struct OpStats {
  uint32_t function = 0;
  uint32_t line = 0;
  uint32_t ordinal = 0;  // index among the ops of its function, in textual order
  std::string name;
  OpClass cls = OpClass::Unknown;
  std::vector<Pipe> pipes;
  Core core = Core::Unknown;
  bool modelled = true;   // false: no work is counted (unknown op, tensor form, copy between unknown spaces)
  Space src = Space::Unknown, dst = Space::Unknown;
  std::string path;       // "gm_to_ub", ...
  std::string dtype;      // lane operand / left cube input element type
  std::string scalar_kind;
  std::string gm_kind;    // DMA: root of the GM side: arg, workspace, alloc, unknown
  int32_t gm_arg = -1;    // its argument index when an argument
  bool gm_write = false;  // the GM side is the destination

  // Per-block sums over the launch: block 0, the smallest and largest block, the grid.
  Sums block0{}, block_min{}, block_max{}, grid{};
  int64_t instance_max_block0 = 0;  // executions on block 0's busiest instance
  int64_t instance_max_min = 0;     // the fewest over blocks of the busiest instance's executions
  // Loops: iterations per entry over every entry of the launch.
  int64_t trip_min = -1, trip_max = -1;
  // Per execution: the first (block 0, instance 0 first; else the first anywhere) and
  // the smallest/largest over every execution.
  bool executed = false;
  int64_t first_block = -1;
  Exec first, exec_min, exec_max;
  // A quantity the oracle could not compute at some execution (value unknown): field names.
  std::vector<std::string> unknown;
};

/// One op execution, in order (Options::trace).
struct TraceEvent {
  uint32_t op = 0;        // index into Result::ops
  uint32_t instance = 0;
  Exec work;
};

struct FunctionInfo {
  std::string name;
  Core core = Core::Unknown;
  uint32_t instances = 1;
  uint32_t line = 0;
  bool mix = false;
};

/// An interval set of byte offsets.
struct ByteSet {
  std::map<int64_t, int64_t> runs;  // start -> end (exclusive), disjoint, non-adjacent
  void add(int64_t begin, int64_t end);
  [[nodiscard]] int64_t size() const;
};

struct Result {
  int64_t blocks = 0;
  std::vector<FunctionInfo> functions;
  std::vector<OpStats> ops;  // every op of every function, in file order
  uint64_t executed_ops = 0;
  // Unique GM bytes touched by DMAs (and by scalar accesses) per kernel argument
  // (HIVM argument index of the first function that has it) and direction.
  std::map<int32_t, ByteSet> dma_read, dma_written, scalar_read, scalar_written;
  std::map<int64_t, ByteSet> workspace_read, workspace_written;  // by nothing but one workspace (key 0)
  // Grid bytes of DMA transfers by (write, core, path, gm kind, arg, transfer bytes, packet bytes).
  struct TransferKey {
    bool write;
    std::string core, path, gm_kind;
    int32_t arg;
    int64_t transfer_bytes, packet_bytes;
    auto operator<=>(const TransferKey &) const = default;
  };
  std::map<TransferKey, int64_t> transfer_grid;
  // Per-block GM DMA bytes by direction (all GM buffers): fewest over blocks.
  int64_t read_block_min = 0, write_block_min = 0;
  // Per (core.component, class) the per-block minimum and the grid total, exact.
  struct Work {
    int64_t block_min = 0, grid = 0;
  };
  std::map<std::string, std::map<std::string, Work>> components;  // "aiv.vector" -> class -> work
  std::map<std::string, Work> issued_guaranteed, issued_as_written, scalar_as_written, vector_flop,
      vector_instructions;
  std::vector<std::vector<TraceEvent>> trace;  // per block (Options::trace)

  /// The op at (function, line, ordinal-on-that-line) or nullptr.
  [[nodiscard]] const OpStats *find(uint32_t function, uint32_t line, uint32_t nth) const;
};

/// Runs the whole dump for the launch. Throws OracleError (and
/// pb::hivm::SourceError for text the parser refuses).
Result run(std::string_view text, const Launch &launch, const Options &options);

/// The perfbound.hivm_work/1 document of an execution: amounts from the exact
/// counts (uniform = fewest over blocks, dependent = grid - blocks x uniform).
/// `cap_unique`: each argument's DMA bytes per direction capped at the unique
/// bytes it touches (the floor of a cold cache: a byte read twice crosses HBM once).
nlohmann::json work_document(const Result &result, const std::string &origin, bool cap_unique);

}  // namespace pb::hivm::oracle

#endif  // PERFBOUND_HIVM_ORACLE_HPP
