//===- hivm_view.cpp - what the HIVM-tier terms read from hivm_program ----===//
#include "hivm_view.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <unordered_map>
#include <utility>
#include <vector>

#include "term.hpp"

namespace pb::models {

namespace {

/// obj[key], or a null document when obj is not an object or lacks it.
/// (Never `obj.contains(k) ? obj[k] : json()`: the conditional is a
/// prvalue, so that form copies the whole member.)
const json &null_json() {
  static const json kNull;
  return kNull;
}

const json &child(const json &obj, const char *key) {
  if (!obj.is_object()) return null_json();
  auto it = obj.find(key);
  return it == obj.end() ? null_json() : *it;
}

double number_or(const json &obj, const char *key, double fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string string_or(const json &obj, const char *key, const std::string &fallback = {}) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool bool_or(const json &obj, const char *key, bool fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

bool listed(const json &arr, const std::string &name) {
  if (!arr.is_array()) return false;
  return std::any_of(arr.begin(), arr.end(), [&](const json &v) { return v.is_string() && v.get<std::string>() == name; });
}

bool has_reason(const json &reasons, const char *key) {
  return reasons.is_object() && reasons.contains(key);
}

/// The count facts of one op record (or of its `given` overlay).
struct CountFacts {
  double min = 0;
  std::optional<double> value;  // best estimate (block 0)
  bool exact = false;
  bool block_dependent = false;
  std::string reason;
  int unknown_loop = 0;  // line of the enclosing loop whose trip count is unknown
  std::string hint;      // what would count it ("give trips.\"1106\"")
  /// Known to run zero times in this launch.
  [[nodiscard]] bool known_zero() const { return exact && value && *value == 0; }
};

CountFacts count_of(const json &count) {
  CountFacts facts;
  facts.min = number_or(count, "min", 0);
  if (count.is_object() && count.contains("value") && count["value"].is_number()) facts.value = count["value"].get<double>();
  facts.exact = bool_or(count, "exact", false);
  facts.block_dependent = bool_or(count, "block_dependent", false);
  facts.reason = string_or(count, "reason");
  facts.unknown_loop = static_cast<int>(number_or(count, "unknown_loop", 0));
  facts.hint = string_or(count, "hint");
  return facts;
}

/// Counts and per-block / per-grid quantities of one op record: the record
/// itself (strict) or its `given` overlay (under the user's facts).
struct Layer {
  CountFacts count;
  const json *block_min = &null_json();
  const json *block = &null_json();
  const json *grid = &null_json();
  const json *total_reasons = &null_json();
  const json *grid_reasons = &null_json();
  bool grid_reasons_written = false;  // the extractor states which grid sums are estimates
};

Layer layer_of(const json &record) {
  Layer l;
  l.count = count_of(child(record, "count"));
  l.block_min = &child(record, "block_min");
  l.block = &child(record, "block");
  l.grid = &child(record, "grid");
  l.total_reasons = &child(record, "total_reasons");
  l.grid_reasons = &child(record, "grid_reasons");
  l.grid_reasons_written = l.grid_reasons->is_object();
  return l;
}

const json *number_member(const json &obj, const char *key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it != obj.end() && it->is_number() ? &*it : nullptr;
}

/// The strict amount of one quantity of one layer: the per-block minimum
/// over all blocks and the grid's exact excess over blocks x minimum;
/// nullopt (with `why`) when no sound minimum is known.
/// The minimum is the extractor's block_min. Without it, only a per-block
/// sum the extractor states exact counts: the representative execution
/// (`exec`, block 0's first iteration) times the fewest executions is no
/// minimum when executions differ (a row that shrinks with the loop index
/// past the enumeration budget), so it is never used.
std::optional<Amount> measure(const Layer &l, const char *key, std::optional<double> per_exec, bool per_exec_estimated,
                              double blocks, std::string &why) {
  const CountFacts &count = l.count;
  // Nothing executes, or nothing per execution: no work to count.
  if (count.known_zero() || (per_exec && !per_exec_estimated && *per_exec == 0)) return Amount{};
  std::optional<double> uniform;
  if (const json *m = number_member(*l.block_min, key)) {
    uniform = m->get<double>();
  } else if (!count.block_dependent) {
    const json *b = number_member(*l.block, key);
    if (count.exact && b != nullptr && !has_reason(*l.total_reasons, key)) uniform = b->get<double>();
    else if (count.min <= 0) uniform = 0.0;  // nothing surely runs: nothing to lower
  } else {
    // A block-dependent op without the extractor's block_min: block 0 is
    // not a minimum, so only an exact grid sum counts (below).
    uniform = 0.0;
  }
  if (!uniform) {
    why = !per_exec             ? "per-execution value unknown"
          : per_exec_estimated ? "per-execution value is an estimate"
                               : "no guaranteed per-block minimum (block_min) and no exact per-block sum: the "
                                 "executions' values differ and are not all known";
    return std::nullopt;
  }
  Amount out;
  out.uniform = *uniform;
  const json *g = number_member(*l.grid, key);
  bool grid_exact = g != nullptr && blocks > 0 && !has_reason(*l.grid_reasons, key) &&
                    (l.grid_reasons_written || count.exact);
  if (grid_exact) out.dependent = std::max(0.0, g->get<double>() - blocks * out.uniform);
  if (count.block_dependent && out.uniform <= 0 && out.dependent <= 0 && count.min > 0) {
    why = "depends on the block index and has neither a per-block minimum nor an exact per-grid sum" +
          (count.reason.empty() ? std::string() : " (" + count.reason + ")");
    return std::nullopt;
  }
  return out;
}

/// Kernel name without the mix suffix.
std::string kernel_name(std::string name) {
  if (!name.empty() && name.front() == '@') name.erase(0, 1);
  for (const char *suffix : {"_mix_aic", "_mix_aiv"}) {
    std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0)
      return name.substr(0, name.size() - s.size());
  }
  return name;
}

/// Scalar ops whose instruction cannot be removed by the backend: a memory
/// access per execution, and HIVM scalar ops that act on the machine (block
/// index, masks, control registers). `convert_layout` and
/// `multi_buffer_counter` are left out: no public source says they survive
/// as an instruction (a layout change or a buffer counter may be resolved at
/// compile time).
bool guaranteed_scalar_op(const std::string &kind, const std::string &op) {
  if (kind == "gm_load" || kind == "gm_store" || kind == "ub_access") return true;
  if (kind != "hivm") return false;
  return op != "hivm.hir.convert_layout" && op != "hivm.hir.multi_buffer_counter";
}

void remember(std::vector<OpRef> &top, OpRef ref, size_t keep = 8) {
  if (ref.per_block <= 0) return;
  top.push_back(std::move(ref));
  std::sort(top.begin(), top.end(), [](const OpRef &a, const OpRef &b) { return a.per_block > b.per_block; });
  if (top.size() > keep) top.resize(keep);
}

}  // namespace

std::string component_of_pipe(const std::string &pipe) {
  if (pipe == "V") return "vector";
  if (pipe == "M") return "cube";
  if (pipe == "S") return "scalar";
  if (pipe == "MTE1") return "mte1";
  if (pipe == "MTE2") return "mte2";
  if (pipe == "MTE3") return "mte3";
  if (pipe == "FIX") return "fixpipe";
  return "";
}

void HivmView::note_missing(const std::string &what, const std::string &op, int line, const std::string &reason) {
  for (Missing &m : missing)
    if (m.what == what && m.reason == reason) {
      ++m.ops;
      if (m.lines.size() < 8) m.lines.push_back(line);
      return;
    }
  missing.push_back({what, reason, 1, {line}, op});
}

void HivmView::note_uncounted(Uncounted u) {
  ++uncounted_total;
  if (uncounted.size() < kMaxUncounted) uncounted.push_back(std::move(u));
}

const ComponentWork *HivmView::find(const std::string &core, const std::string &component) const {
  auto it = components.find(core + "." + component);
  return it == components.end() ? nullptr : &it->second;
}

namespace {

/// What the end of the program reads of an op record by its id (a fallback
/// names its op): the record's `core` and `loc`, interned, so that the
/// records themselves need not be kept.
class OpTable {
 public:
  void add(const json &op) { rows_.push_back({intern(string_or(op, "core")), intern(string_or(op, "loc"))}); }
  [[nodiscard]] size_t size() const { return rows_.size(); }
  [[nodiscard]] const std::string &core(size_t id) const { return *strings_[rows_[id].first]; }
  [[nodiscard]] const std::string &loc(size_t id) const { return *strings_[rows_[id].second]; }

 private:
  uint32_t intern(std::string text) {
    auto [it, fresh] = index_.emplace(std::move(text), static_cast<uint32_t>(strings_.size()));
    if (fresh) strings_.push_back(&it->first);
    return it->second;
  }
  std::unordered_map<std::string, uint32_t> index_;  // nodes do not move: strings_ points into them
  std::vector<const std::string *> strings_;
  std::vector<std::pair<uint32_t, uint32_t>> rows_;  // per op: core, loc
};

/// Reads a perfbound.hivm_program/1 into a view in four steps, whatever
/// holds the document: `read_head` (origin, core types, and the checks that
/// name the document), `read_blocks`, `add_op` for every element of `ops`
/// in order, `finish` (sync, fallbacks, loops, unmodelled, given facts).
/// `add_op` reads nothing of the view but its block count, so the ops may
/// be added before the head is read (HivmView::from_text does, while the
/// text is parsed) as long as `read_blocks` came first.
class ProgramReader {
 public:
  explicit ProgramReader(const std::string &origin) : where_(origin + ": perfbound.hivm_program/1") {
    view_.origin = origin;
  }
  void read_head(const json &program);
  void read_blocks(const json &program);
  void add_op(const json &op);
  HivmView finish(const json &program);
  /// The view as aggregated so far (op_work reads one record's share).
  [[nodiscard]] const HivmView &partial() const { return view_; }
  void set_blocks(std::optional<double> blocks) { view_.blocks = blocks; }

 private:
  HivmView view_;
  OpTable ops_;
  std::string where_;
};

void ProgramReader::read_head(const json &program) {
  HivmView &view = view_;
  const std::string &where = where_;
  // Evidence points at the dump itself, not at the edge it came over.
  if (program.contains("source") && program["source"].is_object() && program["source"].contains("origin") &&
      program["source"]["origin"].is_string())
    view.origin = program["source"]["origin"].get<std::string>();
  const json &functions = pb::sdk::require(program, "functions", where);
  const json &ops = pb::sdk::require(program, "ops", where);
  if (!functions.is_array() || !ops.is_array())
    throw pb::sdk::InputError(where + ": 'functions' and 'ops' must be arrays");

  // Core types and their instances per block.
  for (const json &fn : functions) {
    std::string core = string_or(fn, "core");
    CoreType *type = core == "aic" ? &view.aic : core == "aiv" ? &view.aiv : nullptr;
    if (type == nullptr) continue;
    type->present = true;
    type->instances = std::max(1.0, number_or(fn, "instances_per_block", 1));
    type->function = string_or(fn, "name");
    if (view.kernel.empty()) view.kernel = kernel_name(type->function);
  }
  if (!view.aic.present && !view.aiv.present)
    throw pb::sdk::InputError(where + ": no function runs on an AIC or an AIV core");
}

void ProgramReader::read_blocks(const json &program) {
  const json &blocks = child(program, "blocks");
  if (blocks.is_object() && blocks.contains("value") && blocks["value"].is_number()) {
    view_.blocks = blocks["value"].get<double>();
    view_.blocks_reason.clear();
  } else {
    view_.blocks.reset();
    view_.blocks_reason = string_or(blocks, "reason", "the document gives no block count (no launch grid)");
  }
}

/// One op record: its work, coverage, transfers; and its row in `ops_`.
/// An op whose work no term counts because the extractor does not model it
/// (`modelled: false`) or does not know which core runs it (`core: unknown`):
/// listed as not counted, with its reason and the bytes of its shaped operands.
/// One with a memref/tensor operand (or a work class) is taken to do work: it
/// is present on row `<core>.unmodelled` and lowers coverage; one without is
/// left out by rule. Rows of core "unknown" count for the kernel as a whole.
void note_unmodelled(HivmView &view, const json &op, const std::string &core) {
  const std::string name = string_or(op, "op");
  const std::string cls = string_or(op, "class");
  const int line = static_cast<int>(number_or(op, "line", 0));
  const CountFacts count = count_of(child(op, "count"));
  if (count.known_zero()) return;  // never executes in this launch
  const json &opaque = child(op, "opaque");
  const double shaped = number_or(opaque, "shaped_operands", 0);
  const bool work_class = cls.rfind("vector_", 0) == 0 || cls == "dma" || cls == "cube" || cls == "cube_macro";
  const bool work = shaped > 0 || work_class;
  const bool on_core = core == "aic" || core == "aiv";
  if (!work && bool_or(op, "modelled", true)) return;  // a scalar op of a mix function: on no core, no work
  CoverageRow &row = view.coverage[(on_core ? core : std::string("unknown")) + ".unmodelled"];
  row.core = on_core ? core : "unknown";
  row.component = "unmodelled";
  row.unit = "op";
  Uncounted u;
  u.line = line;
  u.op = name;
  u.core = row.core;
  u.component = "unmodelled";
  std::string reason = string_or(opaque, "reason");
  if (reason.empty()) reason = string_or(op, "pipe_reason");
  if (reason.empty()) reason = "op not modelled: " + name;
  if (!on_core) reason = "no core is known for it (its function has no core type, and either core could run it); " + reason;
  if (shaped > 0) {
    const json &bytes = child(opaque, "operand_bytes");
    reason += bytes.is_number() ? "; its " + std::to_string(static_cast<int64_t>(shaped)) + " shaped operand(s) hold " +
                                      std::to_string(bytes.get<int64_t>()) + " B"
                                : "; its " + std::to_string(static_cast<int64_t>(shaped)) +
                                      " shaped operand(s) have a dynamic size";
  } else if (!work) {
    reason += " (no shaped operand: no work assumed)";
  }
  u.reason = reason;
  if (count.value) u.issued_estimate = *count.value;
  if (work) {
    ++row.ops_present;
    if (count.value) row.present += *count.value;
  } else {
    ++row.ops_excluded;
  }
  view.note_uncounted(std::move(u));
}

void ProgramReader::add_op(const json &op) {
  HivmView &view = view_;
  ops_.add(op);
  const double grid_blocks = view.blocks.value_or(0);
  std::string core = string_or(op, "core");
  if (!bool_or(op, "modelled", true) || (core != "aic" && core != "aiv")) note_unmodelled(view, op, core);
  if (core != "aic" && core != "aiv") return;
  const std::string name = string_or(op, "op");
  const std::string cls = string_or(op, "class");
  const int line = static_cast<int>(number_or(op, "line", 0));
  const int id = static_cast<int>(number_or(op, "id", -1));
  const std::string loc = string_or(op, "loc");
  const Layer strict = layer_of(op);
  const json &given_obj = child(op, "given");
  const bool has_given_layer = given_obj.is_object();
  const Layer given = has_given_layer ? layer_of(given_obj) : Layer{};
  const json &exec = child(op, "exec");
  const json &estimated = child(op, "estimated");
  std::string failure;  // why the last quantity asked for could not be counted
  const json &instr = child(op, "instructions");
  double issued_exec = number_or(instr, "issued", 0);
  double scalar_exec = number_or(instr, "scalar", 0);

  // Sound amount of one per-execution quantity (strict, plus what the
  // user's facts add); an uncountable quantity is noted in `missing`.
  auto amount = [&](const char *block_key, std::optional<double> per_exec, bool per_exec_estimated,
                    const std::string &what) -> Amount {
    std::string why;
    std::optional<Amount> out = measure(strict, block_key, per_exec, per_exec_estimated, grid_blocks, why);
    std::optional<Amount> with_facts;
    if (has_given_layer) {
      std::string ignored;
      with_facts = measure(given, block_key, per_exec, per_exec_estimated, grid_blocks, ignored);
    }
    Amount result = out.value_or(Amount{});
    if (with_facts) {
      result.given_uniform = with_facts->uniform - result.uniform;
      result.given_dependent = with_facts->dependent - result.dependent;
    }
    failure.clear();
    if (!out) {
      failure = why;
      if (!with_facts) view.note_missing(what, name, line, why);
    }
    return result;
  };
  auto exec_value = [&](const char *key) -> std::optional<double> {
    if (!exec.is_object() || !exec.contains(key) || !exec[key].is_number()) return std::nullopt;
    return exec[key].get<double>();
  };
  auto add_work = [&](const std::string &component, const std::string &work_class, const Amount &a) {
    ComponentWork &cw = view.components[core + "." + component];
    cw.core = core;
    cw.component = component;
    cw.by_class[work_class].add(a);
    remember(cw.top, {id, line, name, loc, a.uniform + (view.blocks ? a.dependent / *view.blocks : 0)});
  };
  // Coverage of the op's main quantity on `component`.
  // `component` "issue" is the core's instruction issue (every op that
  // issues instructions): it lists nothing itself, it marks whether the
  // op's instructions are counted for the ops listed by their component.
  bool issue_counted = false;
  auto cover = [&](const std::string &component, const char *block_key, std::optional<double> per_exec,
                   const Amount &a, const char *unit, bool excluded = false, bool list = true) {
    if (strict.count.known_zero()) return;  // never executes in this launch
    CoverageRow &row = view.coverage[core + "." + component];
    row.core = core;
    row.component = component;
    row.unit = unit;
    ++row.ops_present;
    // Present per block in the measure `counted` uses: the grid's mean where
    // the grid sum is known (a block-dependent op fully counted is 100 %),
    // else block 0's sum.
    const json &block = *strict.block, &grid = *strict.grid;
    const double present_before = row.present;
    if (grid_blocks > 0 && grid.is_object() && grid.contains(block_key) && grid[block_key].is_number())
      row.present += grid[block_key].get<double>() / grid_blocks;
    else if (block.is_object() && block.contains(block_key) && block[block_key].is_number())
      row.present += block[block_key].get<double>();
    else if (per_exec && strict.count.value)
      row.present += *per_exec * *strict.count.value;
    else
      row.present_known = false;
    if (excluded) {
      ++row.ops_excluded;
      --row.ops_present;
      return;
    }
    if (a.uniform > 0 || a.dependent > 0) {
      ++row.ops_counted;
      row.counted += a.uniform + (grid_blocks > 0 ? a.dependent / grid_blocks : 0.0);
      if (!list) issue_counted = true;
      return;
    }
    if (a.with_given().uniform > 0 || a.with_given().dependent > 0) {
      // Counted in the bound the report gives (assurance given), not in
      // the strict one.
      ++row.ops_counted;
      ++row.ops_given;
      const double given_amount = a.with_given().uniform + (grid_blocks > 0 ? a.with_given().dependent / grid_blocks : 0.0);
      row.counted += given_amount;
      // Its present figure came out as the guaranteed 0 (the count rests on
      // the facts): the work present is what the facts say, as counted
      // (before: "30,720 / 0 B", more counted than present).
      if (row.present == present_before) row.present += given_amount;
      if (!list) issue_counted = true;
      return;
    }
    if (!list) return;
    Uncounted u;
    u.issue_counted = issue_counted;
    u.line = line;
    u.op = name;
    u.core = core;
    u.component = component;
    u.loop_line = strict.count.unknown_loop;
    u.hint = strict.count.hint;
    u.issued_estimate = strict.count.value ? *strict.count.value * std::max(issued_exec, 1.0) : 0.0;
    if (u.loop_line > 0) {
      u.reason = "in the loop at line " + std::to_string(u.loop_line) + " whose trip count is unknown";
      if (u.hint.empty()) u.hint = "give trips.\"" + std::to_string(u.loop_line) + "\"";
    } else if (!failure.empty()) {
      u.reason = failure;
    } else if (strict.count.min <= 0) {
      u.reason = "its guaranteed execution count is 0" +
                 (strict.count.reason.empty() ? std::string() : " (" + strict.count.reason + ")");
    } else {
      u.reason = "its work could not be counted";
    }
    if (u.hint.empty() && strict.count.min <= 0) u.hint = "give the launch values or data facts its count depends on";
    view.note_uncounted(std::move(u));
  };

  // Issued instructions: as written, and the part that must exist.
  const std::string scalar_kind = string_or(op, "scalar_kind");
  Amount issued = amount("issued_instructions", issued_exec, false, "issued instructions");
  view.issued_as_written[core].add(issued);
  Amount scalar = amount("scalar_instructions", scalar_exec, false, "scalar instructions");
  view.scalar_as_written[core].add(scalar);
  bool is_scalar_op = scalar_exec > 0 || (!scalar_kind.empty() && issued_exec == 0);
  if (!is_scalar_op) {
    // One instruction per cube op is all that must exist; the extractor's
    // as-written count (load, mmad, bookkeeping) has no public source for
    // a fixed number. Vector, DMA, sync: their instructions as counted.
    Amount must = cls == "cube" && issued_exec > 1 ? amount("count", 1.0, false, "cube instructions") : issued;
    view.issued_guaranteed[core].add(must);
    if (issued_exec > 0) cover("issue", "issued_instructions", issued_exec, must, "instruction", false, false);
  } else if (guaranteed_scalar_op(scalar_kind, name)) {
    // One machine instruction per execution, whatever the op's IR count.
    Amount one = amount("count", 1.0, false, "scalar instructions");
    view.issued_guaranteed[core].add(one);
    add_work("scalar", scalar_kind, one);
    cover("issue", "count", 1.0, one, "instruction", false, false);
    cover("scalar", "count", 1.0, one, "instruction");
    remember(view.issue_top[core], {id, line, name, loc, one.uniform + (view.blocks ? one.dependent / *view.blocks : 0)});
  } else {
    cover("scalar", "scalar_instructions", scalar_exec, scalar, "instruction", true);
  }

  const json &pipes = child(op, "pipes");
  if (cls == "cube") {
    std::optional<double> flop = exec_value("flop");
    std::string dtype = string_or(exec, "dtype", "unknown");
    Amount cube_flop = amount("flop", flop, listed(estimated, "flop"), "cube FLOP");
    add_work("cube", dtype, cube_flop);
    cover("cube", "flop", flop, cube_flop, "FLOP");
    std::optional<double> mte1 = exec_value("mte1_bytes");
    Amount mte1_bytes = amount("mte1_bytes", mte1, listed(estimated, "mte1_bytes"), "MTE1 bytes");
    add_work("mte1", "l1_to_l0a", mte1_bytes);
    cover("mte1", "mte1_bytes", mte1, mte1_bytes, "B");
    return;
  }
  if (cls.rfind("vector_", 0) == 0 && listed(pipes, "V")) {
    std::optional<double> repeats = exec_value("repeats");
    if (std::optional<double> flop = exec_value("flop"); flop && *flop > 0)
      view.vector_flop[string_or(exec, "dtype", "unknown")].add(
          amount("flop", flop, listed(estimated, "flop"), "vector FLOP"));
    if (repeats) {
      Amount instructions = amount("issued_instructions", issued_exec, false, "vector instructions");
      view.vector_instructions[core].add(instructions);
      Amount r = amount("repeats", repeats, listed(estimated, "repeats"), "vector repeats");
      double masked = exec_value("masked_lanes").value_or(0), elements = exec_value("elements").value_or(0);
      if (masked > 0 && masked + elements > 0) {
        double share = masked / (masked + elements);
        view.vector_wasted_repeats[core].add(
            {r.uniform * share, r.dependent * share, r.given_uniform * share, r.given_dependent * share});
      }
      add_work("vector", cls, r);
      cover("vector", "repeats", repeats, r, "repeat");
    } else if (std::optional<double> bytes = exec_value("bytes")) {
      Amount moved = amount("bytes", bytes, listed(estimated, "bytes"), "vector bytes");
      add_work("vector", "bytes:" + string_or(exec, "path", "ub_to_ub"), moved);
      cover("vector", "bytes", bytes, moved, "B");
    } else if (strict.count.min > 0) {
      view.note_missing("vector work", name, line, "neither repeats nor bytes are known");
      failure = "neither repeats nor bytes are known";
      cover("vector", "repeats", std::nullopt, Amount{}, "repeat");
    }
    return;
  }
  if (cls == "dma" && pipes.is_array() && !pipes.empty()) {
    std::string pipe = pipes[0].is_string() ? pipes[0].get<std::string>() : "";
    std::string component = component_of_pipe(pipe);
    std::string path = string_or(exec, "path", "unknown");
    std::optional<double> bytes = exec_value("bytes");
    Amount moved = amount("bytes", bytes, listed(estimated, "bytes"), "DMA bytes");
    if (!component.empty()) {
      add_work(component, path, moved);
      cover(component, "bytes", bytes, moved, "B");
    }
    std::string src = string_or(exec, "src"), dst = string_or(exec, "dst");
    if ((src == "gm" || dst == "gm") && (moved.grid(grid_blocks) > 0 || moved.uniform > 0 ||
                                         moved.with_given().uniform > 0 || moved.with_given().dependent > 0)) {
      Transfer t;
      t.write = dst == "gm";
      t.transfer_bytes = bytes.value_or(0);
      t.packet_bytes = exec_value("packet_bytes").value_or(0);
      t.path = path;
      t.core = core;
      t.bytes = moved;
      t.line = line;
      const json &side = child(op, src == "gm" ? "reads" : "writes");
      t.gm_buffer = "unknown";
      if (side.is_array())
        for (const json &buffer : side)
          if (string_or(buffer, "space") == "gm") {
            t.gm_buffer = string_or(buffer, "kind", "unknown");
            // Which argument: resolved to its Triton position in finish().
            if (t.gm_buffer == "arg" && buffer.contains("id") && buffer["id"].is_number_integer()) {
              t.hivm_arg = buffer["id"].get<int>();
              t.function = static_cast<int>(number_or(op, "function", -1));
            }
          }
      view.transfers.push_back(t);
    }
    return;
  }
}

HivmView ProgramReader::finish(const json &program) {
  HivmView &view = view_;
  const json &functions = child(program, "functions");
  // Scalar arguments without a launch value: an op whose count or size they
  // define is uncounted, and giving them is what counts it.
  for (const json &fn : functions.is_array() ? functions : json::array())
    for (const json &a : child(fn, "args").is_array() ? child(fn, "args") : json::array()) {
      if (string_or(a, "role") != "scalar" || !child(a, "triton_index").is_number() || child(a, "value").is_number()) continue;
      const std::string position = std::to_string(child(a, "triton_index").get<int64_t>());
      if (std::none_of(view.missing_args.begin(), view.missing_args.end(),
                       [&](const HivmView::MissingArg &m) { return m.position == position; }))
        view.missing_args.push_back({position, string_or(a, "name"), string_or(a, "type")});
    }
  // The GM argument of each transfer by its Triton position (the key the
  // DSL tier's per-argument figures use; the AIC and AIV functions of a mix
  // kernel number their HIVM arguments alike, their Triton positions too).
  for (Transfer &t : view.transfers) {
    if (t.hivm_arg < 0 || !functions.is_array()) continue;
    for (const json &fn : functions) {
      if (static_cast<int>(number_or(fn, "index", -2)) != t.function) continue;
      const json &args = child(fn, "args");
      if (args.is_array() && static_cast<size_t>(t.hivm_arg) < args.size()) {
        const json &position = child(args[static_cast<size_t>(t.hivm_arg)], "triton_index");
        if (position.is_number_integer()) t.arg = position.get<int>();
      }
    }
  }
  if (const std::string hint = view.missing_args_hint(); !hint.empty())
    for (Uncounted &u : view.uncounted)
      if (u.hint.empty() || u.hint.rfind("give the launch values", 0) == 0) u.hint = hint;
  // Barriers by (core, pipe, kind).
  const json &sync = child(program, "sync");
  if (sync.is_object() && sync.contains("barriers") && sync["barriers"].is_array()) {
    for (const json &b : sync["barriers"]) {
      std::string core = string_or(b, "core"), pipe = string_or(b, "pipe"), kind = string_or(b, "kind");
      CountFacts count = count_of(child(b, "count"));
      auto it = std::find_if(view.barriers.begin(), view.barriers.end(), [&](const BarrierStats &s) {
        return s.core == core && s.pipe == pipe && s.kind == kind;
      });
      if (it == view.barriers.end()) {
        view.barriers.push_back({core, pipe, kind, {}, {}});
        it = view.barriers.end() - 1;
      }
      // A block-dependent barrier count has no per-grid figure here: count
      // its guaranteed minimum only when it does not depend on the block.
      if (!count.block_dependent) it->executions.uniform += count.min;
      if (it->lines.size() < 16) it->lines.push_back(static_cast<int>(number_or(b, "line", 0)));
    }
  }
  if (sync.is_object() && sync.contains("component_edges") && sync["component_edges"].is_array()) {
    for (const json &e : sync["component_edges"]) {
      EdgeInfo edge;
      edge.producer = string_or(e, "producer");
      edge.consumer = string_or(e, "consumer");
      edge.mandatory = bool_or(e, "mandatory", false);
      edge.cross_core = bool_or(e, "cross_core", false);
      edge.multiplicity = number_or(e, "multiplicity", 0);
      if (e.contains("lines") && e["lines"].is_array())
        for (const json &l : e["lines"])
          if (l.is_number() && edge.lines.size() < 8) edge.lines.push_back(l.get<int>());
      view.edges.push_back(std::move(edge));
    }
  }

  // Element-by-element loops (scalar fallbacks), with their causes.
  std::map<int, std::string> cause_by_line;
  if (program.contains("fallbacks") && program["fallbacks"].is_array())
    for (const json &f : program["fallbacks"]) {
      cause_by_line[static_cast<int>(number_or(f, "line", 0))] = string_or(f, "cause");
      int op_id = static_cast<int>(number_or(f, "op", -1));
      const bool known = op_id >= 0 && static_cast<size_t>(op_id) < ops_.size();
      std::string core = known ? ops_.core(static_cast<size_t>(op_id)) : "aiv";
      view.fallback_per_block[core] += number_or(f, "count_per_block", 0);
      std::string loc = known ? ops_.loc(static_cast<size_t>(op_id)) : "";
      view.fallbacks.push_back({static_cast<int>(number_or(f, "line", 0)), core, string_or(f, "name"), string_or(f, "cause"),
                                number_or(f, "count_per_block", 0), loc});
    }
  if (program.contains("loops") && program["loops"].is_array()) {
    for (const json &l : program["loops"]) {
      if (!bool_or(l, "element_loop", false)) continue;
      FallbackLoop loop;
      loop.line = static_cast<int>(number_or(l, "line", 0));
      loop.depth = static_cast<int>(number_or(l, "depth", 0));
      int fn = static_cast<int>(number_or(l, "function", -1));
      if (fn >= 0 && static_cast<size_t>(fn) < functions.size()) loop.core = string_or(functions[static_cast<size_t>(fn)], "core");
      const json &iterations = child(l, "iterations");
      loop.iterations_per_block = number_or(iterations, "min", 0);
      loop.exact = bool_or(iterations, "exact", false);
      loop.scalar_per_iteration = number_or(l, "scalar_instructions_per_iteration", 0);
      loop.issued_per_iteration = number_or(l, "issued_instructions_per_iteration", 0);
      auto cause = cause_by_line.find(loop.line);
      loop.cause = cause != cause_by_line.end() ? cause->second : "element-by-element scalar loop";
      view.fallback_loops.push_back(loop);
    }
  }
  if (program.contains("unmodelled") && program["unmodelled"].is_array())
    for (const json &u : program["unmodelled"]) view.unmodelled.push_back(string_or(u, "op"));
  // The user's facts, echoed into every report that uses them.
  const json &facts = child(program, "given_facts");
  if (facts.is_array())
    for (const json &f : facts)
      view.given_facts.push_back({string_or(f, "key"), child(f, "fact").dump(), static_cast<int>(number_or(f, "ops", 0))});
  return std::move(view_);
}

/// Builds the DOM of a perfbound.hivm_program/1 text except the elements of
/// the root's `ops` array: each is handed to the reader as soon as it is
/// complete and dropped (so the program is never held whole), or, when
/// `blocks` (which the ops need) comes later in the text, held and added
/// after the parse. Members of the root the reader never reads (`estimates`,
/// `summary`, ...) are checked for syntax and not built. The SAX interface
/// rather than a parser callback:
/// nlohmann's callback parser (3.11) scans the enclosing container for a
/// discarded value after every object it closes, which is quadratic in an
/// array of objects.
class ProgramSax : public nlohmann::json_sax<json> {
 public:
  /// Where the ops go: `blocks` is called once the root members before
  /// `ops` are known and they include `blocks` (ops are then handed over
  /// as they complete), `op` with each element of `ops`.
  struct Sink {
    std::function<void(const json &root)> blocks;
    std::function<void(const json &op)> op;
  };
  explicit ProgramSax(ProgramReader &reader)
      : ProgramSax(Sink{[&reader](const json &head) { reader.read_blocks(head); },
                        [&reader](const json &op) { reader.add_op(op); }},
                   kReaderMembers) {}
  ProgramSax(Sink sink, std::vector<std::string> members) : sink_(std::move(sink)), members_(std::move(members)) {}

  json root;
  std::vector<json> held;  // ops that came before `blocks`, in order
  bool online = false;     // ops were added while parsing
  bool again = false;      // `ops` or `blocks` appears twice: read the whole document instead

  /// The members of the root that ProgramReader reads.
  inline static const std::vector<std::string> kReaderMembers = {
      "blocks", "fallbacks", "functions", "given_facts", "loops", "ops", "source", "sync", "unmodelled"};
  bool read_member(const std::string &key) const {
    return std::find(members_.begin(), members_.end(), key) != members_.end();
  }

  bool null() override { return value(json(nullptr)); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override { return value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(json(v)); }
  bool number_float(number_float_t v, const string_t & /*text*/) override { return value(json(v)); }
  bool string(string_t &v) override { return value(json(std::move(v))); }
  bool binary(binary_t &v) override { return value(json(std::move(v))); }
  bool start_object(std::size_t /*size*/) override { return open(json::object()); }
  bool start_array(std::size_t /*size*/) override { return open(json::array()); }
  bool key(string_t &k) override {
    if (skipped_ > 0) return true;
    json &object = *open_.back();
    if (open_.size() == 1) {
      root_key_ = k;
      if (!read_member(k)) {
        skip_next_ = true;
        return true;
      }
      if ((k == "ops" || k == "blocks") && object.contains(k)) again = true;
    }
    slot_ = &object[k];
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t /*position*/, const std::string & /*token*/,
                   const nlohmann::detail::exception & /*error*/) override {
    return false;
  }

 private:
  /// Where the next value goes: the root, the element of `ops` being
  /// built, the end of an array, or the member just named.
  json *place(json &&v) {
    if (open_.empty()) {
      root = std::move(v);
      return &root;
    }
    json &top = *open_.back();
    if (top.is_array()) {
      if (&top == ops_) {
        element_ = std::move(v);
        return &element_;
      }
      top.push_back(std::move(v));
      return &top.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  bool value(json &&v) {
    if (skipped_ > 0 || skip_next_) {
      skip_next_ = false;
      return true;
    }
    if (place(std::move(v)) == &element_) hand_over();
    return true;
  }
  bool open(json &&container) {
    if (skipped_ > 0 || skip_next_) {
      skip_next_ = false;
      ++skipped_;
      return true;
    }
    bool ops = open_.size() == 1 && open_.back()->is_object() && root_key_ == "ops" && container.is_array();
    json *at = place(std::move(container));
    open_.push_back(at);
    if (ops) {
      ops_ = at;
      // Every member before `ops` is complete: the ops can be added now
      // when the block count they need is among them.
      online = root.contains("blocks");
      if (online) sink_.blocks(root);
    }
    return true;
  }
  bool close() {
    if (skipped_ > 0) {
      --skipped_;
      return true;
    }
    json *done = open_.back();
    open_.pop_back();
    if (done == &element_) hand_over();
    else if (done == ops_) ops_ = nullptr;
    return true;
  }
  void hand_over() {
    if (online) {
      sink_.op(element_);
      element_ = json();
    } else {
      held.push_back(std::move(element_));
    }
  }

  Sink sink_;
  std::vector<std::string> members_;
  std::vector<json *> open_;  // the containers being built, innermost last
  json *slot_ = nullptr;      // the member named by the last key
  json *ops_ = nullptr;       // the root's `ops` array while it is open (stays empty)
  json element_;              // the element of `ops` being built
  std::string root_key_;      // the last member named at the root
  bool skip_next_ = false;    // the next value is a root member nobody reads
  size_t skipped_ = 0;        // depth inside such a member
};

}  // namespace

HivmView HivmView::from_json(const json &program, const std::string &origin) {
  ProgramReader reader(origin);
  reader.read_head(program);
  reader.read_blocks(program);
  for (const json &op : program["ops"]) reader.add_op(op);
  return reader.finish(program);
}

json stream_program(std::string_view text, const std::string &origin, const char *port,
                    const std::vector<std::string> &members, const std::function<void(const json &root)> &on_blocks,
                    const std::function<void(const json &op)> &on_op) {
  std::vector<std::string> keep = members;
  for (const char *needed : {"blocks", "ops"})
    if (std::find(keep.begin(), keep.end(), needed) == keep.end()) keep.emplace_back(needed);
  ProgramSax sax(ProgramSax::Sink{on_blocks, on_op}, keep);
  if (!json::sax_parse(text.data(), text.data() + text.size(), &sax))
    throw pb::sdk::InputError(origin + ": input '" + port + "' is not valid JSON");
  if (sax.again) {
    // A repeated `ops` or `blocks`: the last one counts, as in a parsed
    // document; read the whole document.
    json whole = json::parse(text);
    json root = json::object();
    for (const std::string &key : keep)
      if (whole.contains(key) && key != "ops") root[key] = whole[key];
    on_blocks(root);
    for (const json &op : whole["ops"]) on_op(op);
    return root;
  }
  if (!sax.online) {
    on_blocks(sax.root);
    for (const json &op : sax.held) on_op(op);
  }
  return std::move(sax.root);
}

OpWork op_work(const json &op, std::optional<double> blocks) {
  ProgramReader reader("op");
  reader.set_blocks(blocks);
  reader.add_op(op);
  OpWork out;
  out.core = string_or(op, "core");
  for (const auto &[key, cw] : reader.partial().components)
    for (const auto &[cls, amount] : cw.by_class) out.items.push_back({cw.component, cls, amount});
  return out;
}

HivmView HivmView::from_text(std::string_view text, const std::string &origin, const char *port) {
  ProgramReader reader(origin);
  ProgramSax sax(reader);
  if (!json::sax_parse(text.data(), text.data() + text.size(), &sax))
    throw pb::sdk::InputError(origin + ": input '" + port + "' is not valid JSON");
  // A repeated `ops` or `blocks` (the last one counts, as in a parsed
  // document) after ops were already added: read the whole document.
  if (sax.again) return from_json(json::parse(text), origin);
  reader.read_head(sax.root);
  if (!sax.online) {
    reader.read_blocks(sax.root);
    for (const json &op : sax.held) reader.add_op(op);
    sax.held.clear();
  }
  return reader.finish(sax.root);
}

}  // namespace pb::models

//===----------------------------------------------------------------------===//
// perfbound.hivm_work/1: the view as a document
//===----------------------------------------------------------------------===//
//
// Records that repeat are rows (fixed-position arrays, laid out in
// abi/schemas/perfbound.hivm_work.v1.schema.json) so that reading the
// document back is a few hundred array lookups, not a member search per
// field.

namespace pb::models {

namespace {

json amount_row(const Amount &a) {
  if (a.has_given()) return json::array({a.uniform, a.dependent, a.given_uniform, a.given_dependent});
  return json::array({a.uniform, a.dependent});
}

json ref_row(const OpRef &r) { return json::array({r.id, r.line, r.op, r.loc, r.per_block}); }

json amounts(const std::map<std::string, Amount> &by_key) {
  json out = json::object();
  for (const auto &[key, a] : by_key) out[key] = amount_row(a);
  return out;
}

json ints(const std::vector<int> &values) {
  json out = json::array();
  for (int v : values) out.push_back(v);
  return out;
}

/// Reads the rows of one member with positional checks; every malformed
/// row names the member and its index.
class WorkReader {
 public:
  WorkReader(const json &doc, std::string where) : doc_(doc), where_(std::move(where)) {}

  const json &member(const char *key, bool array) const {
    auto it = doc_.find(key);
    if (it == doc_.end() || (array ? !it->is_array() : !it->is_object()))
      throw pb::sdk::InputError(where_ + ": member '" + key + "' must be " + (array ? "an array" : "an object"));
    return *it;
  }
  /// Row `idx` of `key`, checked to have `size` fields.
  const json &row(const json &rows, const char *key, size_t idx, size_t size) const {
    const json &r = rows[idx];
    if (!r.is_array() || r.size() != size)
      throw pb::sdk::InputError(where_ + ": " + key + "[" + std::to_string(idx) + "] must be a row of " +
                                std::to_string(size) + " fields");
    return r;
  }
  double number(const json &v, const char *key) const {
    if (!v.is_number()) throw pb::sdk::InputError(where_ + ": " + key + ": expected a number, got " + v.dump());
    return v.get<double>();
  }
  std::string text(const json &v, const char *key) const {
    if (!v.is_string()) throw pb::sdk::InputError(where_ + ": " + key + ": expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  bool flag(const json &v, const char *key) const {
    if (!v.is_boolean()) throw pb::sdk::InputError(where_ + ": " + key + ": expected true or false, got " + v.dump());
    return v.get<bool>();
  }
  Amount amount(const json &v, const char *key) const {
    if (!v.is_array() || (v.size() != 2 && v.size() != 4))
      throw pb::sdk::InputError(where_ + ": " + key +
                                ": an amount is [per-block minimum, grid excess] or [per-block minimum, grid excess, "
                                "given per-block, given grid excess]");
    if (v.size() == 2) return {number(v[0], key), number(v[1], key), 0, 0};
    return {number(v[0], key), number(v[1], key), number(v[2], key), number(v[3], key)};
  }
  std::map<std::string, Amount> amounts(const json &obj, const char *key) const {
    std::map<std::string, Amount> out;
    if (!obj.is_object()) throw pb::sdk::InputError(where_ + ": " + key + " must be an object of amounts");
    for (auto it = obj.begin(); it != obj.end(); ++it) out.emplace(it.key(), amount(it.value(), key));
    return out;
  }
  std::vector<OpRef> refs(const json &rows, const char *key) const {
    std::vector<OpRef> out;
    if (!rows.is_array()) throw pb::sdk::InputError(where_ + ": " + key + " must be an array of op rows");
    out.reserve(rows.size());
    for (size_t idx = 0; idx < rows.size(); ++idx) {
      const json &r = row(rows, key, idx, 5);
      out.push_back({static_cast<int>(number(r[0], key)), static_cast<int>(number(r[1], key)), text(r[2], key),
                     text(r[3], key), number(r[4], key)});
    }
    return out;
  }
  std::vector<int> lines(const json &v, const char *key) const {
    std::vector<int> out;
    if (!v.is_array()) throw pb::sdk::InputError(where_ + ": " + key + ": lines must be an array");
    out.reserve(v.size());
    for (const json &l : v) out.push_back(static_cast<int>(number(l, key)));
    return out;
  }

 private:
  const json &doc_;
  std::string where_;
};

}  // namespace

json HivmView::to_work() const {
  json doc = pb::sdk::make_document(kHivmWorkSchema);
  doc["kernel"] = kernel;
  doc["origin"] = origin;
  doc["blocks"] = blocks ? json(*blocks) : json(nullptr);
  if (!blocks) doc["blocks_reason"] = blocks_reason;
  json cores = json::object();
  for (const auto &[name, type] : {std::pair<const char *, const CoreType *>{"aic", &aic}, {"aiv", &aiv}})
    if (type->present) cores[name] = {{"instances", type->instances}, {"function", type->function}};
  doc["cores"] = std::move(cores);
  json comps = json::array();
  for (const auto &[key, cw] : components) {
    json c = json::object();
    c["core"] = cw.core;
    c["component"] = cw.component;
    c["by_class"] = amounts(cw.by_class);
    json top = json::array();
    for (const OpRef &r : cw.top) top.push_back(ref_row(r));
    c["top"] = std::move(top);
    comps.push_back(std::move(c));
  }
  doc["components"] = std::move(comps);
  doc["issued_guaranteed"] = amounts(issued_guaranteed);
  doc["issued_as_written"] = amounts(issued_as_written);
  doc["scalar_as_written"] = amounts(scalar_as_written);
  json issue = json::object();
  for (const auto &[core, refs] : issue_top) {
    json rows = json::array();
    for (const OpRef &r : refs) rows.push_back(ref_row(r));
    issue[core] = std::move(rows);
  }
  doc["issue_top"] = std::move(issue);
  doc["vector_flop"] = amounts(vector_flop);
  json rows = json::array();
  for (const Transfer &t : transfers)
    rows.push_back(json::array({t.write, t.transfer_bytes, t.packet_bytes, t.path, t.core, amount_row(t.bytes), t.line,
                                t.gm_buffer, t.arg >= 0 ? json(t.arg) : json(nullptr)}));
  doc["transfers"] = std::move(rows);
  rows = json::array();
  for (const BarrierStats &b : barriers)
    rows.push_back(json::array({b.core, b.pipe, b.kind, amount_row(b.executions), ints(b.lines)}));
  doc["barriers"] = std::move(rows);
  rows = json::array();
  for (const EdgeInfo &e : edges)
    rows.push_back(json::array({e.producer, e.consumer, e.mandatory, e.cross_core, e.multiplicity, ints(e.lines)}));
  doc["edges"] = std::move(rows);
  rows = json::array();
  for (const FallbackLoop &l : fallback_loops)
    rows.push_back(json::array({l.line, l.depth, l.core, l.iterations_per_block, l.exact, l.scalar_per_iteration,
                                l.issued_per_iteration, l.cause}));
  doc["fallback_loops"] = std::move(rows);
  rows = json::array();
  for (const FallbackOp &f : fallbacks) rows.push_back(json::array({f.line, f.core, f.op, f.cause, f.count_per_block, f.loc}));
  doc["fallbacks"] = std::move(rows);
  json per_block = json::object();
  for (const auto &[core, n] : fallback_per_block) per_block[core] = n;
  doc["fallback_per_block"] = std::move(per_block);
  doc["vector_wasted_repeats"] = amounts(vector_wasted_repeats);
  doc["vector_instructions"] = amounts(vector_instructions);
  rows = json::array();
  for (const Missing &m : missing) rows.push_back(json::array({m.what, m.reason, m.ops, ints(m.lines), m.first_op}));
  doc["missing"] = std::move(rows);
  doc["unmodelled"] = unmodelled;
  rows = json::array();
  for (const auto &[key, c] : coverage)
    rows.push_back(json::array({c.core, c.component, c.unit, c.ops_present, c.ops_counted, c.ops_given, c.ops_excluded,
                                c.present, c.counted, c.present_known}));
  doc["coverage"] = std::move(rows);
  rows = json::array();
  for (const Uncounted &u : uncounted)
    rows.push_back(json::array({u.line, u.op, u.core, u.component, u.reason, u.hint, u.loop_line, u.issued_estimate, u.issue_counted}));
  doc["uncounted"] = std::move(rows);
  doc["uncounted_total"] = uncounted_total;
  rows = json::array();
  for (const GivenFact &f : given_facts) rows.push_back(json::array({f.key, f.fact, f.ops}));
  doc["given_facts"] = std::move(rows);
  rows = json::array();
  for (const MissingArg &m : missing_args) rows.push_back(json::array({m.position, m.name, m.type}));
  doc["missing_args"] = std::move(rows);
  return doc;
}

std::string HivmView::missing_args_hint() const {
  std::string out;
  for (const MissingArg &m : missing_args) out += (out.empty() ? "give args.\"" : ", args.\"") + m.position + "\"";
  return out;
}

HivmView HivmView::from_work(const json &work, const std::string &origin) {
  const std::string where = origin + ": " + kHivmWorkSchema;
  if (!work.is_object()) throw pb::sdk::InputError(where + ": the document must be a JSON object");
  WorkReader in(work, where);
  HivmView view;
  view.kernel = in.text(pb::sdk::require(work, "kernel", where), "kernel");
  view.origin = in.text(pb::sdk::require(work, "origin", where), "origin");
  const json &blocks = pb::sdk::require(work, "blocks", where);
  if (blocks.is_null()) {
    view.blocks_reason = work.contains("blocks_reason") ? in.text(work["blocks_reason"], "blocks_reason") : "unknown";
  } else {
    view.blocks = in.number(blocks, "blocks");
  }
  const json &cores = in.member("cores", false);
  for (auto it = cores.begin(); it != cores.end(); ++it) {
    CoreType *type = it.key() == "aic" ? &view.aic : it.key() == "aiv" ? &view.aiv : nullptr;
    if (type == nullptr) throw pb::sdk::InputError(where + ": cores: unknown core type '" + it.key() + "' (aic, aiv)");
    type->present = true;
    type->instances = in.number(pb::sdk::require(it.value(), "instances", where + ".cores"), "instances");
    type->function = in.text(pb::sdk::require(it.value(), "function", where + ".cores"), "function");
  }
  if (!view.aic.present && !view.aiv.present) throw pb::sdk::InputError(where + ": no AIC or AIV core in 'cores'");
  for (const json &c : in.member("components", true)) {
    ComponentWork cw;
    cw.core = in.text(pb::sdk::require(c, "core", where + ".components"), "components.core");
    cw.component = in.text(pb::sdk::require(c, "component", where + ".components"), "components.component");
    cw.by_class = in.amounts(pb::sdk::require(c, "by_class", where + ".components"), "components.by_class");
    cw.top = in.refs(pb::sdk::require(c, "top", where + ".components"), "components.top");
    std::string key = cw.core + "." + cw.component;
    view.components.emplace(std::move(key), std::move(cw));
  }
  view.issued_guaranteed = in.amounts(in.member("issued_guaranteed", false), "issued_guaranteed");
  view.issued_as_written = in.amounts(in.member("issued_as_written", false), "issued_as_written");
  view.scalar_as_written = in.amounts(in.member("scalar_as_written", false), "scalar_as_written");
  const json &issue = in.member("issue_top", false);
  for (auto it = issue.begin(); it != issue.end(); ++it) view.issue_top[it.key()] = in.refs(it.value(), "issue_top");
  view.vector_flop = in.amounts(in.member("vector_flop", false), "vector_flop");
  const json &transfers = in.member("transfers", true);
  view.transfers.reserve(transfers.size());
  for (size_t idx = 0; idx < transfers.size(); ++idx) {
    const json &r = in.row(transfers, "transfers", idx, 9);
    Transfer t;
    t.write = in.flag(r[0], "transfers");
    t.transfer_bytes = in.number(r[1], "transfers");
    t.packet_bytes = in.number(r[2], "transfers");
    t.path = in.text(r[3], "transfers");
    t.core = in.text(r[4], "transfers");
    t.bytes = in.amount(r[5], "transfers");
    t.line = static_cast<int>(in.number(r[6], "transfers"));
    t.gm_buffer = in.text(r[7], "transfers");
    if (!r[8].is_null()) t.arg = static_cast<int>(in.number(r[8], "transfers"));
    view.transfers.push_back(std::move(t));
  }
  const json &barriers = in.member("barriers", true);
  for (size_t idx = 0; idx < barriers.size(); ++idx) {
    const json &r = in.row(barriers, "barriers", idx, 5);
    view.barriers.push_back({in.text(r[0], "barriers"), in.text(r[1], "barriers"), in.text(r[2], "barriers"),
                             in.amount(r[3], "barriers"), in.lines(r[4], "barriers")});
  }
  const json &edges = in.member("edges", true);
  for (size_t idx = 0; idx < edges.size(); ++idx) {
    const json &r = in.row(edges, "edges", idx, 6);
    view.edges.push_back({in.text(r[0], "edges"), in.text(r[1], "edges"), in.flag(r[2], "edges"), in.flag(r[3], "edges"),
                          in.number(r[4], "edges"), in.lines(r[5], "edges")});
  }
  const json &loops = in.member("fallback_loops", true);
  for (size_t idx = 0; idx < loops.size(); ++idx) {
    const json &r = in.row(loops, "fallback_loops", idx, 8);
    view.fallback_loops.push_back({static_cast<int>(in.number(r[0], "fallback_loops")),
                                   static_cast<int>(in.number(r[1], "fallback_loops")), in.text(r[2], "fallback_loops"),
                                   in.number(r[3], "fallback_loops"), in.flag(r[4], "fallback_loops"),
                                   in.number(r[5], "fallback_loops"), in.number(r[6], "fallback_loops"),
                                   in.text(r[7], "fallback_loops")});
  }
  const json &fallbacks = in.member("fallbacks", true);
  for (size_t idx = 0; idx < fallbacks.size(); ++idx) {
    const json &r = in.row(fallbacks, "fallbacks", idx, 6);
    view.fallbacks.push_back({static_cast<int>(in.number(r[0], "fallbacks")), in.text(r[1], "fallbacks"),
                              in.text(r[2], "fallbacks"), in.text(r[3], "fallbacks"), in.number(r[4], "fallbacks"),
                              in.text(r[5], "fallbacks")});
  }
  const json &per_block = in.member("fallback_per_block", false);
  for (auto it = per_block.begin(); it != per_block.end(); ++it)
    view.fallback_per_block[it.key()] = in.number(it.value(), "fallback_per_block");
  view.vector_wasted_repeats = in.amounts(in.member("vector_wasted_repeats", false), "vector_wasted_repeats");
  view.vector_instructions = in.amounts(in.member("vector_instructions", false), "vector_instructions");
  const json &missing = in.member("missing", true);
  for (size_t idx = 0; idx < missing.size(); ++idx) {
    const json &r = in.row(missing, "missing", idx, 5);
    view.missing.push_back({in.text(r[0], "missing"), in.text(r[1], "missing"),
                            static_cast<int>(in.number(r[2], "missing")), in.lines(r[3], "missing"), in.text(r[4], "missing")});
  }
  for (const json &u : in.member("unmodelled", true)) view.unmodelled.push_back(in.text(u, "unmodelled"));
  // Members added with coverage; a document written before them has none.
  static const json kEmptyRows = json::array();
  auto optional_rows = [&](const char *key) -> const json & { return work.contains(key) ? in.member(key, true) : kEmptyRows; };
  const json &coverage = optional_rows("coverage");
  for (size_t idx = 0; idx < coverage.size(); ++idx) {
    const json &r = in.row(coverage, "coverage", idx, 10);
    CoverageRow c;
    c.core = in.text(r[0], "coverage");
    c.component = in.text(r[1], "coverage");
    c.unit = in.text(r[2], "coverage");
    c.ops_present = static_cast<int>(in.number(r[3], "coverage"));
    c.ops_counted = static_cast<int>(in.number(r[4], "coverage"));
    c.ops_given = static_cast<int>(in.number(r[5], "coverage"));
    c.ops_excluded = static_cast<int>(in.number(r[6], "coverage"));
    c.present = in.number(r[7], "coverage");
    c.counted = in.number(r[8], "coverage");
    c.present_known = in.flag(r[9], "coverage");
    std::string key = c.core + "." + c.component;
    view.coverage.emplace(std::move(key), std::move(c));
  }
  const json &uncounted = optional_rows("uncounted");
  for (size_t idx = 0; idx < uncounted.size(); ++idx) {
    const json &r = in.row(uncounted, "uncounted", idx, 9);
    view.uncounted.push_back({static_cast<int>(in.number(r[0], "uncounted")), in.text(r[1], "uncounted"),
                              in.text(r[2], "uncounted"), in.text(r[3], "uncounted"), in.text(r[4], "uncounted"),
                              in.text(r[5], "uncounted"), static_cast<int>(in.number(r[6], "uncounted")),
                              in.number(r[7], "uncounted"), in.flag(r[8], "uncounted")});
  }
  view.uncounted_total = work.contains("uncounted_total") ? static_cast<int>(in.number(work["uncounted_total"], "uncounted_total"))
                                                          : static_cast<int>(view.uncounted.size());
  const json &facts = optional_rows("given_facts");
  for (size_t idx = 0; idx < facts.size(); ++idx) {
    const json &r = in.row(facts, "given_facts", idx, 3);
    view.given_facts.push_back({in.text(r[0], "given_facts"), in.text(r[1], "given_facts"),
                                static_cast<int>(in.number(r[2], "given_facts"))});
  }
  const json &missing_rows = optional_rows("missing_args");
  for (size_t idx = 0; idx < missing_rows.size(); ++idx) {
    const json &r = in.row(missing_rows, "missing_args", idx, 3);
    view.missing_args.push_back({in.text(r[0], "missing_args"), in.text(r[1], "missing_args"), in.text(r[2], "missing_args")});
  }
  return view;
}

}  // namespace pb::models
