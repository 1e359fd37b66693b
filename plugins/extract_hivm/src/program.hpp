//===- program.hpp - what the extractor learns about a HIVM program --------===//
//
// The in-memory form of a perfbound.hivm_program/1 document: functions, one
// record per operation (pipe, core, count per block, bytes, elements, FLOP,
// vector repeats, packets, scalar and issued instructions, eligibility),
// buffers touched, synchronisation, and everything that had to be estimated
// or could not be resolved. document.cpp turns it into JSON.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_PROGRAM_HPP
#define PERFBOUND_EXTRACT_HIVM_PROGRAM_HPP

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "interval.hpp"
#include "op_table.hpp"
#include "types.hpp"

namespace pb::hivm {

enum class CoreType : uint8_t { AIC, AIV, Unknown };
const char *core_name(CoreType core);  // "aic", "aiv", "unknown"

/// Why a number is estimated or unknown: a string that costs one pointer when
/// empty (most records carry a dozen of these, nearly all empty). The pointer's
/// low bit is spare (a std::string is at least 8-byte aligned); Quantity keeps its
/// `estimated` flag there, so a quantity is 16 bytes instead of 24. The flag belongs
/// to the owner, not to the text: copying or assigning a Reason copies the text only
/// (a new Reason's flag is clear, an assigned one keeps its own).
class Reason {
 public:
  Reason() = default;
  Reason(std::string text) { assign(std::move(text)); }  // NOLINT(google-explicit-constructor): a string
  Reason(const char *text) { assign(std::string(text)); }  // NOLINT(google-explicit-constructor)
  Reason(const Reason &other) : bits_(copy_of(other)) {}
  Reason(Reason &&other) noexcept : bits_(other.release()) {}
  Reason &operator=(const Reason &other) {
    if (this != &other) reset(copy_of(other));
    return *this;
  }
  Reason &operator=(Reason &&other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  Reason &operator=(std::string text) {
    assign(std::move(text));
    return *this;
  }
  Reason &operator=(const char *text) { return *this = std::string(text); }
  ~Reason() { delete text(); }

  [[nodiscard]] bool empty() const { return text() == nullptr; }
  [[nodiscard]] const std::string &str() const {
    static const std::string kEmpty;
    return text() ? *text() : kEmpty;
  }
  operator const std::string &() const { return str(); }  // NOLINT(google-explicit-constructor)
  [[nodiscard]] size_t find(std::string_view part) const { return str().find(part); }
  Reason &operator+=(std::string_view more) {
    if (more.empty()) return *this;
    if (!text()) reset(reinterpret_cast<uintptr_t>(new std::string()));
    text()->append(more);
    return *this;
  }
  friend std::string operator+(std::string left, const Reason &right) { return left.append(right.str()); }
  friend bool operator==(const Reason &left, std::string_view right) { return left.str() == right; }
  friend std::string operator+(const char *left, const Reason &right) { return std::string(left) + right; }

 private:
  friend struct Quantity;
  static constexpr uintptr_t kFlag = 1;
  static_assert(alignof(std::string) > 1, "the low bit of a std::string pointer must be spare");
  [[nodiscard]] std::string *text() const { return reinterpret_cast<std::string *>(bits_ & ~kFlag); }
  [[nodiscard]] bool flag() const { return (bits_ & kFlag) != 0; }
  void set_flag(bool on) { bits_ = (bits_ & ~kFlag) | (on ? kFlag : 0); }
  static uintptr_t copy_of(const Reason &other) {
    return other.text() ? reinterpret_cast<uintptr_t>(new std::string(*other.text())) : 0;
  }
  /// Gives up the text (the flag stays).
  uintptr_t release() {
    const uintptr_t text_bits = bits_ & ~kFlag;
    bits_ &= kFlag;
    return text_bits;
  }
  /// Takes `text_bits` (a std::string* or 0) as the text, keeping the flag.
  void reset(uintptr_t text_bits) {
    delete text();
    bits_ = text_bits | (bits_ & kFlag);
  }
  void assign(std::string text) {
    reset(text.empty() ? 0 : reinterpret_cast<uintptr_t>(new std::string(std::move(text))));
  }
  uintptr_t bits_ = 0;  // std::string* of the text (null: empty) | kFlag
};

/// An int64_t that may be absent, in 8 bytes instead of std::optional's 16 (a record
/// holds ~40 of them). The one value it cannot hold, INT64_MIN, marks "absent": storing
/// it throws, so no number turns into "unknown" silently. Reads like std::optional.
class OptInt64 {
 public:
  constexpr OptInt64() = default;
  constexpr OptInt64(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  OptInt64(int64_t v) : v_(checked(v)) {}  // NOLINT(google-explicit-constructor)
  OptInt64(const std::optional<int64_t> &v) : v_(v ? checked(*v) : kAbsent) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const { return v_ != kAbsent; }
  explicit operator bool() const { return has_value(); }
  int64_t operator*() const { return v_; }  // only when has_value(), as std::optional
  [[nodiscard]] int64_t value_or(int64_t other) const { return has_value() ? v_ : other; }
  [[nodiscard]] std::optional<int64_t> optional() const { return has_value() ? std::optional<int64_t>(v_) : std::nullopt; }
  void reset() { v_ = kAbsent; }
  bool operator==(const OptInt64 &) const = default;

 private:
  static constexpr int64_t kAbsent = std::numeric_limits<int64_t>::min();
  static int64_t checked(int64_t v) {
    if (v == kAbsent) throw std::overflow_error("a count or quantity of -2^63 cannot be represented");
    return v;
  }
  int64_t v_ = kAbsent;
};

/// The value a saturated count or quantity takes (INT64_MAX, also Interval::kPosInf).
inline constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

/// Counts and quantities saturate instead of wrapping: a product or sum past
/// 2^63 - 2 becomes kSaturated (INT64_MAX, Interval::kPosInf), which the document writes as unknown (null) with
/// kTooLargeReason, never as a number (issue 27: a loop of 10^18 trips, or
/// 70 nested loops of 2 trips, gave negative work figures). Minimums stay
/// sound when they saturate (kSaturated is below the true value).
inline constexpr const char *kTooLargeReason = "more than 2^63 - 1: too large to count in 64 bits";

inline int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a == kSaturated || b == kSaturated) return kSaturated;
  int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || p >= kSaturated) return kSaturated;
  return p;
}

inline int64_t sat_add(int64_t a, int64_t b) {
  if (a == kSaturated || b == kSaturated) return kSaturated;
  int64_t s = 0;
  if (__builtin_add_overflow(a, b, &s) || s >= kSaturated) return kSaturated;
  return s;
}

/// How many times something executes, per block or per core instance.
struct Count {
  int64_t value = 0;    // best estimate (exact when `exact`)
  int64_t min = 0;      // guaranteed minimum
  int64_t max = 0;      // guaranteed maximum (Interval::kPosInf when unbounded)
  Reason reason;        // why it is not exact
  OptInt64 last_block;  // the value for the last block, when block-dependent and the grid is known
  uint32_t unknown_loop = 0;  // line of the outermost enclosing loop with an unknown trip count (0: none)
  bool known = true;    // false: no estimate at all (value is meaningless)
  bool exact = true;
  bool block_dependent = false;

  /// Exactly `v` times.
  static Count exactly(int64_t v) {
    Count c;
    c.value = c.min = c.max = v;
    return c;
  }
};

/// Per-block guaranteed minimum over every block of the grid of what an op does.
/// Unset: unknown, or the per-execution value is an estimate that could be lower.
struct BlockMin {
  OptInt64 count, bytes, flop, repeats, scalar, issued, mte1;
  OptInt64 packets, masked;  // for totals.per_block_min only (not op record members)
  bool operator==(const BlockMin &) const = default;
};

/// A per-execution number: exact, estimated (with a reason), or unknown. 16 bytes:
/// the `estimated` flag lives in the reason's spare pointer bit (a record holds ~20).
struct Quantity {
  OptInt64 value;
  Reason reason;

  Quantity() = default;
  Quantity(OptInt64 v, bool is_estimated, Reason why) : value(v), reason(std::move(why)) { set_estimated(is_estimated); }
  Quantity(const Quantity &other) : value(other.value), reason(other.reason) { set_estimated(other.estimated()); }
  Quantity(Quantity &&other) noexcept : value(other.value), reason(std::move(other.reason)) {
    set_estimated(other.estimated());
  }
  Quantity &operator=(const Quantity &other) {
    value = other.value;
    reason = other.reason;
    set_estimated(other.estimated());
    return *this;
  }
  Quantity &operator=(Quantity &&other) noexcept {
    value = other.value;
    const bool other_estimated = other.estimated();
    reason = std::move(other.reason);
    set_estimated(other_estimated);
    return *this;
  }
  ~Quantity() = default;

  [[nodiscard]] bool known() const { return value.has_value(); }
  [[nodiscard]] bool estimated() const { return reason.flag(); }
  void set_estimated(bool on) { reason.set_flag(on); }
  static Quantity exact(int64_t v) { return {v, false, {}}; }
};
static_assert(sizeof(Quantity) == 16, "a Quantity is a value and a tagged reason pointer");

/// A word of a fixed vocabulary in one pointer: a string literal, or a name with static
/// storage (pipe and unit names, copy paths). It cannot be built from a std::string, so it
/// never points into text that is gone.
class Word {
 public:
  constexpr Word() = default;
  template <size_t N>
  constexpr Word(const char (&literal)[N]) : text_(literal) {}  // NOLINT(google-explicit-constructor): a literal
  Word(const std::string &) = delete;
  /// `text` must live as long as the program (a literal or a static table's entry).
  static constexpr Word of_static(const char *text) {
    Word w;
    w.text_ = text;
    return w;
  }
  [[nodiscard]] const char *c_str() const { return text_; }
  [[nodiscard]] bool empty() const { return *text_ == '\0'; }
  operator std::string_view() const { return text_; }  // NOLINT(google-explicit-constructor)
  friend bool operator==(Word left, std::string_view right) { return std::string_view(left) == right; }

 private:
  const char *text_ = "";
};

/// "gm_to_ub", "cc_to_gm", ...: the path of a copy between two known address spaces.
inline Word path_word(Space src, Space dst) {
  constexpr size_t kSpaces = static_cast<size_t>(Space::SSBUF) + 1;
  static const auto kPaths = [] {
    std::array<std::array<std::string, kSpaces>, kSpaces> paths;
    for (size_t s = 0; s < kSpaces; ++s)
      for (size_t d = 0; d < kSpaces; ++d)
        if (space_name(Space(s)) != nullptr && space_name(Space(d)) != nullptr)
          paths[s][d] = std::string(space_name(Space(s))) + "_to_" + space_name(Space(d));
    return paths;
  }();
  return Word::of_static(kPaths.at(static_cast<size_t>(src)).at(static_cast<size_t>(dst)).c_str());
}

/// The pipes an op runs on: none, one, or two (mmadL1: MTE1 + M), kept inline.
class PipeList {
 public:
  PipeList() = default;
  PipeList(std::initializer_list<Pipe> pipes) {  // NOLINT(google-explicit-constructor): as a vector
    if (pipes.size() > kMax) throw std::logic_error("an op runs on at most " + std::to_string(kMax) + " pipes");
    for (Pipe p : pipes) pipes_[size_++] = p;
  }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] size_t size() const { return size_; }
  Pipe operator[](size_t i) const { return pipes_[i]; }
  [[nodiscard]] Pipe front() const { return pipes_[0]; }
  [[nodiscard]] Pipe back() const { return pipes_[size_ - 1]; }
  [[nodiscard]] const Pipe *begin() const { return pipes_.data(); }
  [[nodiscard]] const Pipe *end() const { return pipes_.data() + size_; }
  void clear() { size_ = 0; }
  bool operator==(const PipeList &other) const { return std::equal(begin(), end(), other.begin(), other.end()); }

 private:
  static constexpr size_t kMax = 2;
  std::array<Pipe, kMax> pipes_{};
  uint8_t size_ = 0;
};

/// A buffer a DMA or vector op reads or writes: the root allocation it views.
struct BufferRef {
  enum class Kind : uint8_t { Address, Arg, Workspace, Alloc, Unknown };
  Kind kind = Kind::Unknown;
  Space space = Space::Unknown;
  int64_t base0 = -1, base1 = -1;  // byte addresses (pointer_cast, up to 2 for double buffers) or workspace offset
  int64_t bytes = -1;              // size of the root allocation, -1 when unknown
  uint32_t id = 0;                 // argument index or allocation id
};
bool may_overlap(const BufferRef &a, const BufferRef &b);

struct Eligibility {
  std::vector<Word> units;  // units that could execute the op: "vector", "cube", "scalar", "mte2", ...
  Word landed;              // the unit it runs on
  bool fallback = false;           // runs on the scalar unit although a wider unit is eligible
  Reason cause;                    // likely cause of the fallback
};

struct SyncInfo {
  Pipe from = Pipe::None;  // set_flag/wait_flag: set pipe; barrier: the pipe; sync_block_*: tpipe
  Pipe to = Pipe::None;    // set_flag/wait_flag: wait pipe; sync_block_*: pipe
  std::optional<int64_t> event;       // static event id / flag id
  std::string event_value;            // dynamic event operand name ("%15") when not static
  std::vector<int64_t> event_values;  // values a dynamic event takes (empty when unresolved)
  std::string tcore;                  // sync_block_*: "CUBE"/"VECTOR"
  std::string mode;                   // sync_block: ALL_CUBE, ...
};

/// The data an op moves or computes: per execution, and its per-block, per-instance and
/// whole-grid sums. Only HIVM ops and scalar memory accesses have them (about one op in
/// eight), so a record keeps them behind one pointer (OpRecord::totals).
struct DataTotals {
  // Per execution (representative: block 0, first iteration). mte1_bytes: cube ops only,
  // the L1 -> L0A/L0B bytes (fractal-padded).
  Quantity elements, bytes, flop, repeats, masked_lanes, packet_bytes, packets, mte1_bytes;
  Quantity bytes_block, elements_block, flop_block, repeats_block, masked_block, packets_block, mte1_block;
  Quantity bytes_instance, flop_instance, repeats_instance, mte1_instance;
  Quantity bytes_grid, flop_grid, repeats_grid, mte1_grid;  // whole grid, as the grid sums below
};

/// What an op the extractor does not model holds: its operands with a shape
/// (memref/tensor) and their bytes. Such an op is listed as not counted; with a
/// shaped operand it is assumed to do work (coverage says so).
struct OpaqueOperands {
  uint32_t shaped = 0;           // operands with a memref/tensor type
  std::optional<int64_t> bytes;  // their bytes summed (static shapes); empty when a shape is dynamic or unknown
  std::string reason;            // "op not modelled: hivm.hir.custom"
  CoreType core = CoreType::Unknown;  // the core the op names (a custom op's hivm.tcore_type), if any
};

struct OpRecord {
  uint32_t id = 0;
  uint32_t function = 0;
  std::string name;
  uint32_t line = 0;
  Reason loc;  // Python source location "file:line:col" when the dump carries one
  OpClass cls = OpClass::Unknown;
  bool modelled = true;
  PipeList pipes;
  CoreType core = CoreType::Unknown;
  Reason unresolved_pipe;  // why no pipe could be assigned (e.g. copy without address spaces)

  Count count;           // executions per block (all instances of the function in one block)
  Count count_instance;  // executions on the busiest instance (one core)
  uint32_t path = 0;     // enclosing loops/conditions (FunctionAnalysis path node)
  uint32_t loop_depth = 0;

  // Per execution (representative: block 0, first iteration); the data quantities
  // (elements, bytes, flop, ...) are in totals().
  std::string dtype;
  Space src = Space::Unknown, dst = Space::Unknown;
  Word path_name;         // "gm_to_ub", "cc_to_gm", ...
  OptInt64 m, k, n;                // cube (the upper end where an extent is dynamic)
  int64_t scalar_gm_bytes = 0;     // memref.load/store on GM: bytes per execution

  // Per block, summed over the enumerated executions (exact quantities at every execution).
  // Whole grid (every block), when the block count is known: exact sums over all blocks when the
  // quantity depends on the block index and can be enumerated, else per block x blocks.
  // The data totals (bytes, elements, flop, ...): totals(); instructions and counts here.
  Quantity count_grid, scalar_grid, issued_grid;
  Quantity scalar_block, issued_block;        // instructions per block (loops: 1 per entry + 2 per iteration)
  Quantity scalar_instance, issued_instance;  // the same on the busiest instance
  BlockMin block_min;                         // guaranteed per-block minimum over all blocks
  uint64_t facts = 0;                         // with user facts: bit i = fact i entered its numbers

  // Instructions issued by the scalar unit per execution.
  uint32_t scalar_instructions = 0;  // scalar work (arith, address, loads, loop control)
  uint32_t issued_instructions = 0;  // all instructions issued (scalar + dispatched to other pipes)
  Word scalar_kind;                  // arith, compare, bitwise, cast, address, gm_load, ub_access, loop_control, branch, hivm

  Eligibility eligibility;
  std::unique_ptr<SyncInfo> sync;  // sync ops only
  std::unique_ptr<OpaqueOperands> opaque;  // ops not modelled only
  std::vector<BufferRef> reads, writes;
  std::vector<std::string> estimated_fields;  // names of fields holding estimates
  std::vector<std::string> notes;

  /// The data totals: every quantity unknown without a reason when the op has none.
  [[nodiscard]] const DataTotals &totals() const {
    static const DataTotals kNone;
    return totals_ ? *totals_ : kNone;
  }
  /// The data totals to fill in (allocated on first use).
  DataTotals &mutable_totals() {
    if (!totals_) totals_ = std::make_unique<DataTotals>();
    return *totals_;
  }

 private:
  std::unique_ptr<DataTotals> totals_;
};

struct FunctionArg {
  std::string name;      // "%arg7"
  std::string type;
  std::string role;      // "ffts_base_address", "sync_block_lock", "workspace", "pointer", "scalar", "grid_x/y/z"
  std::optional<int64_t> triton_index;  // position among the Triton kernel arguments
  std::optional<double> value;          // from the launch document
  std::string value_source;             // which launch key gave it
  std::string loc_name;                 // the Triton name its location carries (loc("n_elements"...)), if any
};

struct LoopRecord {
  uint32_t function = 0;
  uint32_t line = 0;
  uint32_t depth = 0;
  std::string iv;
  Count trip;        // iterations per entry (representative)
  Count entries;     // entries per block
  Count iterations;  // iterations per block (all entries)
  bool element_loop = false;  // body is scalar memory work only (a scalar fallback)
  std::vector<std::string> attributes;
  // Instructions per iteration of the body (excluding nested loops' bodies).
  uint64_t body_scalar_instructions = 0;
  uint64_t body_issued_instructions = 0;
  // Trip count per entry over every block and outer iteration (intervals): refuses facts
  // that cannot hold and finds the loops a trips fact would count.
  int64_t trip_min_any = 0, trip_max_any = Interval::kPosInf;
  bool unknown_trip = false;  // trip count not derivable (bounds from data, missing launch values, scf.while)
};

/// What the user's facts (launch trips/data) changed: the same op records
/// computed with them, and which facts each record used.
struct GivenFacts {
  struct Fact {
    std::string key;        // trips."1106" / data."7"
    std::string echo_json;  // the fact as given (JSON text)
    std::vector<uint32_t> lines;
  };
  std::vector<Fact> facts;
  std::vector<OpRecord> ops;  // parallel to Program::ops (OpRecord::facts: which facts entered each)
};

struct FunctionRecord {
  uint32_t index = 0;
  std::string name;
  CoreType core = CoreType::Unknown;
  std::string core_source;  // how the core type was found
  std::string mix_part;     // "aic", "aiv" or "" (not part of a mix kernel)
  std::string mix_mode;
  uint32_t line = 0, end_line = 0;
  uint32_t instances_per_block = 1;  // AIV part of a mix kernel: 2 sub-blocks
  std::string dump_header;
  std::vector<FunctionArg> args;
  std::optional<uint32_t> first_op, last_op;  // record range in Program::ops
  std::string logical_block_num;  // the SSA value annotated {logical_block_num}
  Count block_num;                // its value when resolvable
  // A MIX function (or one without a core type whose ops need both cores) is
  // analysed as a mix kernel: this record is its AIC part and the next record,
  // made by the analysis, its AIV part; each op carries the core it needs.
  bool split_mix = false;
};

struct Finding {
  uint32_t op = 0;
  uint32_t line = 0;
  std::string op_name;
  std::string cause;
  int64_t count_per_block = 0;
  bool count_exact = true;
};

struct Unmodelled {
  std::string op;
  int64_t count = 0;  // textual occurrences
  std::vector<uint32_t> lines;
  std::string reason;
};

struct EstimateNote {
  std::optional<uint32_t> op;
  uint32_t line = 0;
  std::string field;
  std::string value;  // rendered
  std::string reason;
};

/// What a handoff and a cross-core edge share: the set and wait sites, how often
/// they run, and whether the work on the two sides depends on each other.
struct SyncLink {
  std::vector<uint32_t> set_lines, wait_lines;
  Count sets, waits;  // per block
  std::string kind;   // mandatory | avoidable | prologue | epilogue | unmatched
  std::vector<std::string> dependences;  // RAW/WAR/WAW
  std::string reason;
  std::vector<uint32_t> producer_ops, consumer_ops;
};

struct HandoffEdge : SyncLink {
  uint32_t id = 0;
  uint32_t function = 0;
  CoreType core = CoreType::Unknown;
  Pipe producer = Pipe::None, consumer = Pipe::None;
  std::string event;  // "EVENT_ID0", "%15 in {0,1}"
  std::vector<uint32_t> set_ops, wait_ops;
};

struct CrossCoreEdge : SyncLink {
  uint32_t id = 0;
  int64_t flag = -1;
  uint32_t producer_function = 0, consumer_function = 0;
  CoreType producer_core = CoreType::Unknown, consumer_core = CoreType::Unknown;
  Pipe producer_pipe = Pipe::None;  // tpipe of the set
  Pipe consumer_pipe = Pipe::None;  // pipe of the first dependent work op after the wait
};

struct BarrierRecord {
  uint32_t op = 0;
  uint32_t function = 0;
  uint32_t line = 0;
  CoreType core = CoreType::Unknown;
  Pipe pipe = Pipe::None;
  Count count;
  std::string kind;  // mandatory | avoidable | redundant | epilogue | prologue
  std::vector<std::string> dependences;
  std::string reason;
  std::vector<uint32_t> before_ops, after_ops;
};

struct ComponentEdge {
  std::string producer, consumer;  // "aic.cube", "aiv.vector", "aiv.mte2"
  bool mandatory = false;
  bool cross_core = false;
  int64_t multiplicity = 0;      // per block, summed over the chains
  bool multiplicity_exact = true;
  uint32_t chains = 0;
  std::vector<std::vector<std::string>> vias;  // carriers between producer and consumer, per chain
  std::vector<uint32_t> handoffs;              // handoff edge ids (intra-core) on the chains
  std::vector<uint32_t> cross_core_edges;      // cross-core edge ids on the chains
  std::vector<uint32_t> lines;                 // set/wait lines
};

struct Program {
  std::vector<FunctionRecord> functions;
  std::vector<OpRecord> ops;
  std::vector<LoopRecord> loops;
  std::vector<HandoffEdge> handoffs;
  std::vector<CrossCoreEdge> cross_core;
  std::vector<BarrierRecord> barriers;
  std::vector<ComponentEdge> component_edges;
  std::vector<Finding> fallbacks;
  std::vector<Unmodelled> unmodelled;
  std::vector<EstimateNote> estimates;
  std::vector<EstimateNote> unresolved;
  std::vector<std::string> warnings;
  std::map<std::string, int64_t> histogram;  // op name -> textual occurrences

  // Launch / block count.
  std::optional<int64_t> blocks;
  std::string blocks_source;
  std::string blocks_reason;
  std::vector<int64_t> grid;

  // Input facts.
  uint32_t lines_total = 0;
  uint32_t diagnostics_lines = 0;
  uint32_t skipped_lines = 0;
  std::vector<std::pair<uint32_t, std::string>> diagnostics;  // line, text (compiler output)
  std::vector<std::string> dump_headers;
  int64_t vector_repeat_bytes = 256;
  std::string vector_repeat_source;

  // Under the user's data facts (absent when none were given).
  std::shared_ptr<GivenFacts> given;
  std::map<uint32_t, std::set<uint32_t>> data_fact_lines;  // data fact -> lines of the loads that read it
};

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_PROGRAM_HPP
