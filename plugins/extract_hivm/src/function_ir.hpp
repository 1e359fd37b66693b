//===- function_ir.hpp - the analysis model of one HIVM function ----------===//
//
// What the walk (walk.hpp) builds from one func.func and every later pass
// reads: SSA values as small expression nodes (constants, arguments, block
// and loop indices, arithmetic, compares, selects, casts, affine maps, scalar
// loads), the memref views behind memref values (views.hpp), loops and the
// path of regions each op sits in (the loops and branches that decide how
// often it runs), and per record the operands the quantities need. Also the
// name scopes of the walk and small saturating arithmetic shared by the passes.
//
// Inputs: the parsed function (ir.hpp), the dump's #aliases, the Program the
// records go into. Nothing here evaluates; value_eval.hpp does.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_FUNCTION_IR_HPP
#define PERFBOUND_EXTRACT_HIVM_FUNCTION_IR_HPP

#include <algorithm>
#include <charconv>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyze.hpp"
#include "interval.hpp"
#include "ir.hpp"
#include "parser.hpp"
#include "program.hpp"
#include "sync.hpp"
#include "tokens.hpp"
#include "types.hpp"

namespace pb::hivm::analysis {

using ValueId = uint32_t;
constexpr ValueId kNone = UINT32_MAX;
constexpr int64_t kInf = Interval::kPosInf;

// What a value depends on. kTGiven: through a value the user gave (launch data), so it
// holds under that fact.
enum Taint : uint8_t { kTBlock = 1, kTSub = 2, kTIV = 4, kTData = 8, kTArg = 16, kTUnknown = 32, kTGiven = 64 };
constexpr uint8_t kTUnresolved = kTData | kTArg | kTUnknown;  // no enumeration can pin it down

enum class VKind : uint8_t { Unknown, Const, Arg, BlockIdx, SubBlockIdx, BlockNum, SubBlockNum, IV, Data, Binary,
                             Compare, Select, Cast, Affine, Load };

enum class BinOp : uint8_t { Add, Sub, Mul, DivS, FloorDiv, CeilDiv, RemS, Min, Max, And, Or, Xor, Shl, ShrS };
enum class CmpPred : uint8_t { EQ, NE, LT, LE, GT, GE };

/// One extent, stride or offset of a memref view: static, an SSA value, or unknown with a bound.
struct DimRef {
  int64_t c = kDynamic;  // static value
  ValueId v = kNone;     // dynamic: the SSA value
  int64_t bound = -1;    // a static upper bound (the source buffer's extent), -1 when none
};

/// The view behind a memref value: extents, strides, offset and the buffers it views.
struct MemrefInfo {
  std::vector<DimRef> dims;
  std::vector<DimRef> strides;
  std::vector<BufferRef> roots;
  DimRef offset{0, kNone, -1};  // elements from the root's base; c == kDynamic and v == kNone: unknown
};

constexpr DimRef kUnknownOffset{kDynamic, kNone, -1};

/// A scalar load from a kernel argument: the element it reads, for the user's data facts.
struct LoadInfo {
  uint32_t arg = 0;                // HIVM argument index of the root
  DimRef offset;                   // of the loaded view
  std::vector<ValueId> indices;    // load indices
  std::vector<DimRef> strides;     // of the loaded view
};

/// An SSA value as an expression node (operands are other values).
struct Value {
  VKind kind = VKind::Unknown;
  uint8_t op = 0;
  bool to_i1 = false;
  int64_t c = 0;
  ValueId a = kNone, b = kNone, d = kNone;
  uint32_t aux = 0;  // IV: the loop; Affine: the AffineUse; Load: the LoadInfo
  uint32_t line = 0;
  Type type;
  int32_t mem = -1;  // memref values: index into FunctionIr::mems
};

struct AffineUse {
  uint32_t map = 0;
  uint8_t flavour = 0;  // 0 apply, 1 min, 2 max
  std::vector<ValueId> operands;
};

struct LoopInfo {
  ValueId iv = kNone, lb = kNone, ub = kNone, step = kNone;
  uint32_t line = 0;
  uint32_t record = 0;
  bool has_hivm = false;
  bool has_scalar_memory = false;
  bool extracted = false;  // {ExtractedLoadOrStore}
  bool unknown_trip = false;  // scf.while or an unparsable header
  std::vector<std::string> attributes;
  int32_t parent = -1;
  uint32_t depth = 0;
  int32_t body_path = -1;
};

/// A node of the region tree: the function body, a loop body, a branch of an scf.if,
/// or a region of an op whose semantics are unknown. A record's path is its innermost node.
struct PathNode {
  enum class Kind : uint8_t { Root, Loop, Cond, Opaque };
  Kind kind = Kind::Root;
  int32_t parent = -1;
  uint32_t loop = 0;       // Loop
  ValueId cond = kNone;    // Cond
  bool negated = false;
  bool unlikely = false;
  uint32_t line = 0;
  std::string what;        // Opaque: the op whose region semantics are unknown
};

struct Operand {
  ValueId v = kNone;
  Type type;
  std::string_view name;
};

/// What the quantities of one record need beyond the OpRecord.
struct OpDetail {
  std::vector<Operand> ins, outs;
  std::vector<ValueId> scalars;  // mmadL1: init, m, k, n
  ValueId event = kNone;         // dynamic event id
  bool hivm = false;
};

// sat_mul, sat_add and kTooLargeReason: program.hpp (the document writer uses them too).

inline std::optional<int64_t> parse_int(std::string_view text) {
  int64_t v = 0;
  if (text.size() > 2 && text[0] == '0' && text[1] == 'x') {
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), u, 16);
    if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

inline std::string fmt_count(int64_t v) { return v == kInf ? std::string("unbounded") : std::to_string(v); }

inline int64_t elem_bytes_ceil(int64_t elements, uint32_t bits) {
  if (elements < 0) return -1;
  return (elements * static_cast<int64_t>(bits) + 7) / 8;
}

inline std::string dtype_name(const ElemType &e) { return e.known() ? std::string(e.name) : std::string(); }

/// A record that issues `instructions` scalar instructions of one kind per execution.
inline void set_scalar_work(OpRecord &record, uint32_t instructions, Word kind) {
  record.scalar_instructions = instructions;
  record.issued_instructions = instructions;
  record.scalar_kind = kind;
}

/// The sizes and strides a memref type states (dynamic ones unbounded), no roots yet.
inline MemrefInfo static_memref_info(const Type &type) {
  MemrefInfo info;
  for (size_t idx = 0; idx < type.rank(); ++idx) {
    int64_t d = type.shape[idx];
    info.dims.push_back({d, kNone, d == kDynamic ? -1 : d});
    info.strides.push_back({type.strides[idx], kNone, -1});
  }
  return info;
}

/// The model of one function: filled by the walk, read by the passes after it.
struct FunctionIr {
  FunctionIr(const AnalysisOptions &o, const AliasMap &a, Program &p) : opts(o), aliases(a), prog(p) {}

  const AnalysisOptions &opts;
  const AliasMap &aliases;
  Program &prog;

  uint32_t fn_index = 0;
  uint32_t first_record = 0;  // the function's records are prog.ops[first_record, end)
  uint32_t instances = 1;     // AIV instances per block (mix kernels), else 1
  uint32_t alloc_ids = 0;
  ValueId logical_block_num = kNone;

  std::vector<Value> values;
  std::vector<MemrefInfo> mems;
  std::vector<AffineMap> maps;
  std::vector<AffineUse> affine_uses;
  std::vector<LoadInfo> loads;
  std::vector<LoopInfo> loops;
  std::vector<PathNode> paths;
  std::vector<ValueId> arg_values;  // by HIVM argument index
  // Per record of the function (index r - first_record).
  std::vector<OpDetail> details;
  std::vector<int32_t> record_path;
  std::vector<int32_t> loop_of_record;  // innermost loop, -1 outside loops
  std::vector<FunctionView::LoopSpan> loop_spans;
  std::unordered_map<std::string_view, int64_t> histogram;

  ValueId add_value(Value v) {
    values.push_back(std::move(v));
    return static_cast<ValueId>(values.size() - 1);
  }
  int32_t new_mem(MemrefInfo info) {
    mems.push_back(std::move(info));
    return static_cast<int32_t>(mems.size() - 1);
  }
  int32_t add_path(PathNode node) {
    paths.push_back(std::move(node));
    return static_cast<int32_t>(paths.size() - 1);
  }
  [[nodiscard]] const MemrefInfo *mem_of(ValueId v) const {
    if (v == kNone || values[v].mem < 0) return nullptr;
    return &mems[static_cast<size_t>(values[v].mem)];
  }
  [[nodiscard]] Type type_of(TokSpan s) const { return parse_type(s.text(), &aliases); }
  OpRecord &rec(uint32_t idx) { return prog.ops[idx]; }
  OpDetail &detail(uint32_t idx) { return details[idx - first_record]; }
  [[nodiscard]] int32_t path_of(uint32_t r) const { return record_path[r - first_record]; }
  [[nodiscard]] uint32_t end_record() const { return static_cast<uint32_t>(prog.ops.size()); }
  /// The path nodes from the root down to `path`.
  [[nodiscard]] std::vector<int32_t> chain_of(int32_t path) const {
    std::vector<int32_t> chain;
    for (int32_t p = path; p >= 0; p = paths[static_cast<size_t>(p)].parent) chain.push_back(p);
    std::reverse(chain.begin(), chain.end());
    return chain;
  }
  /// Marks the loops around `path` as holding HIVM work or scalar memory accesses.
  void mark_hivm(int32_t path, bool scalar_memory) {
    for (int32_t p = path; p >= 0; p = paths[static_cast<size_t>(p)].parent) {
      const PathNode &node = paths[static_cast<size_t>(p)];
      if (node.kind != PathNode::Kind::Loop) continue;
      if (scalar_memory) loops[node.loop].has_scalar_memory = true;
      else loops[node.loop].has_hivm = true;
    }
  }
};

/// SSA names in nested scopes: define, look up, undo at the end of a region.
class SsaScope {
 public:
  explicit SsaScope(std::deque<std::string> &owned_names) : owned_names_(owned_names) {}

  void define(std::string_view name, ValueId id) {
    auto it = names_.find(name);
    undo_.emplace_back(name, it == names_.end() ? kNone : it->second);
    names_[name] = id;
  }
  [[nodiscard]] ValueId use(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? kNone : it->second;
  }
  void push() { marks_.push_back(undo_.size()); }
  void pop() {
    size_t mark = marks_.back();
    marks_.pop_back();
    while (undo_.size() > mark) {
      auto [name, old] = undo_.back();
      undo_.pop_back();
      if (old == kNone) names_.erase(name);
      else names_[name] = old;
    }
  }
  /// Result names of `op`: "%x" or "%x#k".
  std::vector<std::string_view> result_names(const Op &op) {
    std::vector<std::string_view> out;
    for (const ResultGroup &g : op.results) {
      if (g.count == 1) {
        out.push_back(g.name);
        continue;
      }
      for (uint32_t k = 0; k < g.count; ++k) {
        owned_names_.push_back(std::string(g.name) + "#" + std::to_string(k));
        out.push_back(owned_names_.back());
      }
    }
    return out;
  }

 private:
  std::deque<std::string> &owned_names_;
  std::unordered_map<std::string_view, ValueId> names_;
  std::vector<std::pair<std::string_view, ValueId>> undo_;
  std::vector<size_t> marks_;
};

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_FUNCTION_IR_HPP
