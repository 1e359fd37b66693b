//===- dsl_facts.cpp - evaluate a kernel model for one launch and profile -===//
//
// Three passes over the programs of the launch (program p = x + gx*(y + gy*z)):
//   1. counting: how often each access and op runs in each program (loop trip
//      counts evaluated with the launch values; conditions evaluated where
//      they depend on program ids and arguments only);
//   2. footprint: the intervals of bytes each access touches (affine offsets
//      and linear masks, per row of the tile), merged per pointer argument
//      into unique bytes per program and over the whole launch;
//   3. schedule and buffers: waves over the profile's cores, load balance of
//      the per-program work, and the live-tile peak against UB / L1 / L0C.
//
//===----------------------------------------------------------------------===//
#include "dsl_facts.hpp"

#include <perfbound/sdk/input_file.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <functional>
#include <unordered_map>

namespace perfbound::ttir {

namespace {

using json = pb::sdk::json;
using pb::sdk::InputError;

//===----------------------------------------------------------------------===//
// Quantities
//===----------------------------------------------------------------------===//

json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return json(static_cast<std::int64_t>(v));
  return json(v);
}

/// A number that is exact, an estimate (with the side it errs on), or unknown.
struct Qty {
  std::optional<double> value;
  bool exact = true;
  std::string bound;   // "lower" / "upper" for estimates that are bounds
  std::string reason;  // why not exact / why unknown

  static Qty of(double v) { return {v, true, "", ""}; }
  static Qty unknown(std::string why) { return {std::nullopt, false, "", std::move(why)}; }
  static Qty estimate(double v, std::string side, std::string why) { return {v, false, std::move(side), std::move(why)}; }

  [[nodiscard]] json to_json() const {
    json j;
    j["value"] = value ? number(*value) : json(nullptr);
    j["exact"] = value.has_value() && exact;
    if (value && !exact && !bound.empty()) j["bound"] = bound;
    if (!reason.empty()) j["reason"] = reason;
    return j;
  }
};

/// Distribution over programs of a per-program number.
struct Dist {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0;
  double weight = 0;
  bool known = true;
  bool exact = true;
  std::string bound;
  std::string reason;

  void add(double v, double w = 1) {
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v * w;
    weight += w;
  }
  void fail(const std::string &why) {
    if (known) reason = why;
    known = false;
  }
  void inexact(const std::string &side, const std::string &why) {
    if (exact) {
      bound = side;
      reason = why;
    }
    exact = false;
  }
  [[nodiscard]] Qty total() const {
    if (!known || weight == 0) return Qty::unknown(reason.empty() ? "no program was evaluated" : reason);
    return exact ? Qty::of(sum) : Qty::estimate(sum, bound, reason);
  }
  [[nodiscard]] json to_json() const {
    json j;
    bool ok = known && weight > 0;
    j["min"] = ok ? number(min) : json(nullptr);
    j["max"] = ok ? number(max) : json(nullptr);
    j["mean"] = ok ? number(sum / weight) : json(nullptr);
    j["exact"] = ok && exact;
    if (ok && !exact && !bound.empty()) j["bound"] = bound;
    if (!reason.empty() || !ok) j["reason"] = reason.empty() ? "no program was evaluated" : reason;
    return j;
  }
};

json loc_json(const SourceLoc &loc) {
  if (!loc.known()) return nullptr;
  json j{{"file", loc.file}, {"line", loc.line}, {"col", loc.col}, {"in_ttir", loc.in_ttir}};
  if (!loc.name.empty()) j["name"] = loc.name;
  return j;
}

json line_json(int line) { return line > 0 ? json(line) : json(nullptr); }

json python_json(const std::string &python) { return python.empty() ? json(nullptr) : json(python); }

/// `source` with the TTIR line and the innermost Python location beside it.
void add_source(json &j, const SourceLoc &loc) {
  j["source"] = loc_json(loc);
  j["ttir_line"] = line_json(loc.ttir_line);
  j["python_loc"] = python_json(loc.python);
}

/// An unresolved entry from a source location.
Unresolved unresolved_at(std::string what, std::string reason, const SourceLoc &loc, std::string hint = "") {
  return {std::move(what), std::move(reason), loc.line, loc.ttir_line, loc.python, std::move(hint)};
}

/// The hint for a loop whose trip count is not known.
std::string trips_hint(const SourceLoc &loc) {
  return loc.ttir_line > 0 ? "give trips.\"ttir:" + std::to_string(loc.ttir_line) + "\"" : "";
}

std::string axis_name(int axis) {
  static const char *const kAxis[] = {"x", "y", "z"};
  return axis >= 0 && axis < 3 ? kAxis[axis] : "?";
}

//===----------------------------------------------------------------------===//
// Launch and profile
//===----------------------------------------------------------------------===//

struct LaunchValues {
  std::int64_t grid[3] = {1, 1, 1};
  std::int64_t programs = 1;
  std::vector<std::optional<std::int64_t>> ints;
  json args = json::object();
  std::vector<std::string> ignored;
};

LaunchValues resolve_launch(const KernelModel &k, const json &launch) {
  LaunchValues out;
  if (!launch.is_object()) throw InputError("launch: expected a perfbound.launch/1 object");
  const json &grid = pb::sdk::require(launch, "grid", "launch");
  if (!grid.is_array() || grid.empty() || grid.size() > 3)
    throw InputError("launch.grid: expected 1 to 3 positive integers, got " + grid.dump());
  for (size_t axis = 0; axis < grid.size(); ++axis) {
    if (!grid[axis].is_number_integer() || grid[axis].get<std::int64_t>() < 1)
      throw InputError("launch.grid[" + std::to_string(axis) + "]: expected a positive integer, got " +
                       grid[axis].dump());
    out.grid[axis] = grid[axis].get<std::int64_t>();
  }
  double programs = static_cast<double>(out.grid[0]) * static_cast<double>(out.grid[1]) * static_cast<double>(out.grid[2]);
  if (programs > 1e12) throw InputError("launch.grid: " + grid.dump() + " is more than 10^12 programs");
  out.programs = out.grid[0] * out.grid[1] * out.grid[2];
  out.ints.assign(k.args.size(), std::nullopt);
  auto it = launch.find("args");
  if (it == launch.end()) return out;
  if (!it->is_object()) throw InputError("launch.args: expected an object keyed by argument name or position");
  for (const auto &[key, value] : it->items()) {
    const KernelArg *arg = nullptr;
    for (const KernelArg &a : k.args) {
      if ((!a.name.empty() && a.name == key) || key == "%arg" + std::to_string(a.index) ||
          key == std::to_string(a.index))
        arg = &a;
    }
    if (arg == nullptr) {
      std::string names;
      for (const KernelArg &a : k.args) names += (names.empty() ? "" : ", ") + a.key();
      throw InputError("launch.args." + key + ": kernel '" + k.name + "' has no argument '" + key +
                       "' (arguments: " + names + "; positions may be given as \"%argN\" or \"N\")");
    }
    if (arg->kind != ArgKind::Scalar) {
      out.ignored.push_back(key);
      continue;
    }
    if (!value.is_number() && !value.is_boolean())
      throw InputError("launch.args." + key + ": expected a number, got " + value.dump());
    out.args[arg->key()] = value;
    if (arg->is_float) continue;
    if (value.is_boolean()) {
      out.ints[static_cast<size_t>(arg->index)] = value.get<bool>() ? 1 : 0;
    } else if (value.is_number_integer()) {
      out.ints[static_cast<size_t>(arg->index)] = value.get<std::int64_t>();
    } else {
      double v = value.get<double>();
      if (v != std::floor(v) || std::fabs(v) > 9.0e18)
        throw InputError("launch.args." + key + ": argument '" + arg->key() + "' is " + arg->element_type +
                         ", got the non-integer " + value.dump());
      out.ints[static_cast<size_t>(arg->index)] = static_cast<std::int64_t>(v);
    }
  }
  return out;
}

struct Hardware {
  std::string name;
  std::int64_t aiv = 0, aic = 0, ub = 0, l1 = 0, l0c = 0;
};

std::int64_t profile_int(const json &profile, const char *group, const char *key) {
  std::string where = std::string("profile.") + group;
  const json &g = pb::sdk::require(profile, group, "profile");
  const json &q = pb::sdk::require(g, key, where);
  std::optional<double> v = pb::sdk::quantity_value(q, where + "." + key);
  if (!v || *v <= 0) throw InputError(where + "." + key + ": expected a positive value");
  return static_cast<std::int64_t>(*v);
}

Hardware read_profile(const json &profile) {
  Hardware hw;
  if (!profile.is_object()) throw InputError("profile: expected a perfbound.profile/1 object");
  hw.name = profile.value("name", "");
  hw.aiv = profile_int(profile, "cores", "aiv");
  hw.aic = profile_int(profile, "cores", "aic");
  hw.ub = profile_int(profile, "buffers", "ub");
  hw.l1 = profile_int(profile, "buffers", "l1");
  hw.l0c = profile_int(profile, "buffers", "l0c");
  return hw;
}

//===----------------------------------------------------------------------===//
// Given facts (launch.trips, launch.data)
//===----------------------------------------------------------------------===//

/// A user-given fact about the trips of the loop at one TTIR line.
struct TripFact {
  std::string key;  // trips."ttir:N"
  int line = 0;
  std::optional<std::int64_t> min, max, sum;
  bool grid = false;  // sum over the whole grid (else per block)
};

struct GivenFacts {
  std::map<int, TripFact> trips;                  // by TTIR line
  std::map<int, std::vector<std::int64_t>> data;  // by argument index
  std::map<int, std::string> data_key;            // argument index -> data."key"
  json echo = json::array();                      // every fact as given
  [[nodiscard]] bool empty() const { return trips.empty() && data.empty(); }
};

/// Reads a little-endian integer .npy array (any shape, C order), flattened.
std::vector<std::int64_t> read_npy(const std::string &path, const std::string &where) {
  // Regular files only, up to the data-file limit: /dev/zero or a FIFO is
  // refused, never read without end.
  std::string error;
  std::optional<std::string> read = pb::sdk::read_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!read) throw InputError(where + ": cannot read '" + path + "': " + error);
  const std::string &bytes = *read;
  auto bad = [&](const std::string &why) { return InputError(where + ": '" + path + "' is not a usable .npy file: " + why); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw bad("no \\x93NUMPY magic");
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0;
  size_t header_at = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw bad("truncated header");
    for (int b = 3; b >= 0; --b) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + static_cast<size_t>(b)]);
    header_at = 12;
  } else {
    throw bad("format version " + std::to_string(major));
  }
  if (header_at + header_len > bytes.size()) throw bad("truncated header");
  const std::string header = bytes.substr(header_at, header_len);
  auto field = [&](const std::string &name) -> std::string {
    size_t at = header.find("'" + name + "'");
    if (at == std::string::npos) throw bad("header without '" + name + "'");
    at = header.find(':', at);
    size_t start = header.find_first_not_of(' ', at + 1);
    if (start == std::string::npos) throw bad("malformed header");
    size_t end = header[start] == '\'' ? header.find('\'', start + 1) + 1
                 : header[start] == '(' ? header.find(')', start) + 1
                                        : header.find_first_of(",}", start);
    return header.substr(start, end - start);
  };
  std::string descr = field("descr");
  if (field("fortran_order").rfind("True", 0) == 0) throw bad("Fortran order is not supported");
  if (descr.size() < 5 || (descr[1] != '<' && descr[1] != '|' && descr[1] != '=') || (descr[2] != 'i' && descr[2] != 'u'))
    throw bad("dtype " + descr + " (expected little-endian integers, e.g. '<i4' or '<i8')");
  const int width = std::atoi(descr.substr(3, descr.size() - 4).c_str());
  if (width != 1 && width != 2 && width != 4 && width != 8) throw bad("dtype " + descr);
  const bool is_signed = descr[2] == 'i';
  std::string shape = field("shape");
  std::int64_t count = 1;
  for (size_t at = 0; at < shape.size();) {
    size_t digit = shape.find_first_of("0123456789", at);
    if (digit == std::string::npos) break;
    size_t end = shape.find_first_not_of("0123456789", digit);
    count *= std::stoll(shape.substr(digit, end - digit));
    at = end;
  }
  const size_t data_at = header_at + header_len;
  if (bytes.size() - data_at < static_cast<size_t>(count) * static_cast<size_t>(width))
    throw bad("shape " + shape + " needs " + std::to_string(count * width) + " bytes of data, the file has " +
              std::to_string(bytes.size() - data_at));
  std::vector<std::int64_t> out(static_cast<size_t>(count));
  for (size_t idx = 0; idx < out.size(); ++idx) {
    std::uint64_t v = 0;
    for (int b = width - 1; b >= 0; --b)
      v = (v << 8) | static_cast<unsigned char>(bytes[data_at + idx * static_cast<size_t>(width) + static_cast<size_t>(b)]);
    if (is_signed && width < 8 && (v >> (width * 8 - 1)) != 0) v |= ~std::uint64_t{0} << (width * 8);
    out[idx] = static_cast<std::int64_t>(v);
  }
  return out;
}

/// The kernel argument a launch key names (name, "%argN" or "N"), or nullptr.
const KernelArg *arg_named(const KernelModel &k, const std::string &key) {
  for (const KernelArg &a : k.args)
    if ((!a.name.empty() && a.name == key) || key == "%arg" + std::to_string(a.index) || key == std::to_string(a.index))
      return &a;
  return nullptr;
}

/// Reads launch.trips (keys "ttir:N"; other keys are HIVM lines and are left
/// to that extractor) and launch.data. A fact that names no loop or no
/// pointer argument is refused with the file and line.
GivenFacts read_facts(const KernelModel &k, const json &launch, const std::string &origin) {
  GivenFacts facts;
  if (!launch.is_object()) return facts;
  if (auto it = launch.find("trips"); it != launch.end()) {
    if (!it->is_object()) throw InputError("launch.trips: expected a table keyed by \"ttir:LINE\", got " + it->dump());
    for (const auto &[key, value] : it->items()) {
      if (key.rfind("ttir:", 0) != 0) continue;
      const std::string where = "launch.trips.\"" + key + "\"";
      TripFact f;
      f.key = "trips.\"" + key + "\"";
      const std::string digits = key.substr(5);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        throw InputError(where + ": expected \"ttir:LINE\" with the TTIR line of an scf.for or scf.while");
      f.line = std::stoi(digits);
      if (!value.is_object()) throw InputError(where + ": expected a table with min, max or sum, got " + value.dump());
      for (const auto &[member, v] : value.items()) {
        if (member == "over") {
          if (!v.is_string() || (v != "block" && v != "grid"))
            throw InputError(where + ".over: expected \"block\" or \"grid\", got " + v.dump());
          f.grid = v == "grid";
          continue;
        }
        if (member != "min" && member != "max" && member != "sum")
          throw InputError(where + ": unknown member '" + member + "' (expected min, max, sum, over)");
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
          throw InputError(where + "." + member + ": expected a non-negative integer, got " + v.dump());
        (member == "min" ? f.min : member == "max" ? f.max : f.sum) = v.get<std::int64_t>();
      }
      if (!f.min && !f.max && !f.sum) throw InputError(where + ": give at least one of min, max, sum");
      if (f.min && f.max && *f.min > *f.max)
        throw InputError(where + ": min = " + std::to_string(*f.min) + " is above max = " + std::to_string(*f.max));
      bool found = false;
      std::string lines;
      std::set<int> seen;
      for (const Loop &l : k.loops) {
        found = found || l.loc.ttir_line == f.line;
        if (l.loc.ttir_line > 0 && seen.insert(l.loc.ttir_line).second)
          lines += (lines.empty() ? "" : ", ") + std::to_string(l.loc.ttir_line);
      }
      if (!found)
        throw InputError(origin + ":" + digits + ": " + where + ": there is no scf.for or scf.while of kernel '" +
                         k.name + "' at this line (its loops are at TTIR lines " +
                         (lines.empty() ? std::string("none") : lines) + ")");
      facts.echo.push_back({{"fact", f.key}, {"value", value}});
      facts.trips[f.line] = std::move(f);
    }
  }
  if (auto it = launch.find("data"); it != launch.end()) {
    if (!it->is_object()) throw InputError("launch.data: expected a table keyed by argument name or position");
    for (const auto &[key, value] : it->items()) {
      const std::string where = "launch.data." + key;
      const KernelArg *arg = arg_named(k, key);
      if (arg == nullptr) throw InputError(where + ": kernel '" + k.name + "' has no argument '" + key + "'");
      if (arg->kind != ArgKind::Pointer || arg->is_float)
        throw InputError(where + ": argument '" + arg->key() + "' is " + arg->type +
                         ", not a pointer to integers: only loaded integers take given data");
      std::vector<std::int64_t> values;
      if (value.is_array()) {
        for (size_t idx = 0; idx < value.size(); ++idx) {
          if (!value[idx].is_number_integer())
            throw InputError(where + "[" + std::to_string(idx) + "]: expected an integer, got " + value[idx].dump());
          values.push_back(value[idx].get<std::int64_t>());
        }
      } else if (value.is_object() && value.size() == 1 && value.contains("npy") && value["npy"].is_string()) {
        // A relative path is read from the current directory (perfbound.launch/1).
        values = read_npy(value["npy"].get<std::string>(), where + ".npy");
      } else {
        throw InputError(where + ": expected an array of integers or { npy = \"file.npy\" }, got " + value.dump());
      }
      facts.data[arg->index] = std::move(values);
      facts.data_key[arg->index] = "data." + key;
      facts.echo.push_back({{"fact", "data." + key},
                            {"value", value.is_array() ? json("[" + std::to_string(value.size()) + " integers]")
                                                       : value},
                            {"elements", facts.data[arg->index].size()}});
    }
  }
  return facts;
}

//===----------------------------------------------------------------------===//
// The evaluation of one kernel under one launch
//===----------------------------------------------------------------------===//

std::string op_class_name(OpClass c) {
  switch (c) {
    case OpClass::Cube: return "cube";
    case OpClass::Vector: return "vector";
    case OpClass::Transcendental: return "transcendental";
    case OpClass::Reduction: return "reduction";
    case OpClass::Scan: return "scan";
    case OpClass::Index: return "index";
    case OpClass::Layout: return "layout";
    case OpClass::Scalar: return "scalar";
  }
  return "?";
}

/// Unit class of a dot for the profile's cube peaks (cube_fp16, ...).
std::string cube_unit(const ComputeOp &op) {
  auto norm = [](const std::string &t) -> std::string {
    if (t == "f16" || t == "fp16") return "fp16";
    if (t == "bf16") return "bf16";
    if (t == "f32") return "fp32";
    if (t == "i8" || t == "ui8") return "int8";
    if (t.rfind("f8", 0) == 0 || t == "e4m3" || t == "e5m2") return "fp8";
    if (t == "e2m1" || t == "e2m3" || t == "e3m2") return "fp4/6";
    if (t == "f64") return "fp64";
    return t;
  };
  std::string a = norm(op.a_dtype);
  std::string b = norm(op.b_dtype);
  return "cube_" + (a == b ? a : a + "x" + b);
}

struct Interval {
  std::int64_t lo;  // bytes, inclusive
  std::int64_t hi;  // bytes, exclusive
};

/// Sum of the lengths of the union of `v` (sorted in place).
double union_bytes(std::vector<Interval> &v) {
  std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.lo < b.lo; });
  double total = 0;
  std::int64_t cur_lo = 0;
  std::int64_t cur_hi = 0;
  bool open = false;
  for (const Interval &iv : v) {
    if (open && iv.lo <= cur_hi) {
      cur_hi = std::max(cur_hi, iv.hi);
      continue;
    }
    if (open) total += static_cast<double>(cur_hi - cur_lo);
    cur_lo = iv.lo;
    cur_hi = iv.hi;
    open = true;
  }
  if (open) total += static_cast<double>(cur_hi - cur_lo);
  return total;
}

enum class Direction { Read = 0, Write = 1, Atomic = 2 };
const char *kDirectionName[] = {"read", "written", "atomic"};

Direction direction_of(const Access &a) {
  if (a.atomic()) return Direction::Atomic;
  return a.writes() ? Direction::Write : Direction::Read;
}

/// What one program does (pass 1 results for one program).
struct ProgramCounts {
  std::vector<double> access;  // executions per access
  std::vector<double> op;      // executions per op
  std::vector<bool> access_unknown, op_unknown;
  std::vector<double> loop_exec;  // body executions per loop
  std::vector<double> loop_entries;  // times the loop is entered
  std::vector<std::int64_t> trip_min, trip_max;
  std::vector<bool> loop_unknown;
  std::vector<bool> loop_given;  // the trip count came from a trips fact
};

class Evaluation {
 public:
  Evaluation(const KernelModel &k, const LaunchValues &launch, const FactsOptions &options,
             const GivenFacts *facts = nullptr, std::string origin = "")
      : k_(k), pool_(*k.pool), namer_(k.namer()), ev_(pool_), concretizer_(pool_, namer_), launch_(launch),
        options_(options), facts_(facts), origin_(std::move(origin)) {
    env_.args = &launch_.ints;
    if (facts_ != nullptr && !facts_->data.empty()) env_.data = &facts_->data;
    for (int axis = 0; axis < 3; ++axis) env_.num_programs[axis] = launch_.grid[axis];
    env_.loop_iters.assign(k.loops.size(), std::nullopt);
    prepare_structure();
  }

  void run();
  json to_json_counts(json &doc, const Hardware &hw);

  // Results, read by the document builder.
  std::vector<Dist> access_exec, op_exec, loop_exec, loop_trip;
  std::vector<std::string> access_note, op_note;   // why an access/op count is an estimate
  std::vector<Qty> access_active;                   // active (mask-true) bytes over the launch
  std::vector<double> access_active_sum;
  std::vector<bool> access_active_ok;
  std::vector<std::string> access_active_why;
  std::vector<std::optional<AffineForm>> first_form;  // affine offset in the first program
  std::vector<std::string> first_form_why;
  struct Union {
    std::vector<Interval> global;
    Dist per_program;
    bool complete = true;       // every access of the group enumerated in every program
    std::string incomplete_why;
    int incomplete_line = 0;
    SourceLoc incomplete_loc;
  };
  std::map<std::pair<int, int>, Union> unions;  // (arg, direction)
  std::vector<double> program_bytes, program_flop;  // per enumerated program (non-uniform case)
  std::array<Dist, 3> dir_requested;                // per-program requested bytes by direction
  std::map<std::pair<std::string, std::string>, Dist> class_work;  // (class, dtype) -> per-program FLOP / ops
  bool uniform = true;
  bool counts_known = true;
  std::string counts_why;
  std::int64_t programs_evaluated = 0;
  bool budget_hit = false;
  std::vector<Unresolved> unresolved;
  std::set<std::string> facts_used;  // given facts that changed a count

  [[nodiscard]] std::string blame_text(ExprId blame) const;
  [[nodiscard]] const Evaluator &evaluator() const { return ev_; }

 private:
  void prepare_structure();
  void set_program(std::int64_t p);
  void count(int parent, double weight, ProgramCounts &pc);
  void mark_unknown(int loop, ProgramCounts &pc);
  void walk_iterations(int l, std::int64_t t, double w, ProgramCounts &pc);
  /// Refuses a trips fact the IR contradicts (the loop provably runs `t` times).
  void check_fact(const TripFact &fact, std::int64_t t, double w) const;
  void footprint(const ProgramCounts &pc, std::int64_t p);
  bool enumerate_rows(const Access &a, const AffineForm &form, const std::vector<LinearConstraint> &constraints,
                      const std::vector<int> &chain, size_t level, std::vector<Interval> &out, double &active);
  bool dims_rows(const Access &a, std::int64_t base, const AffineForm &form,
                 const std::vector<LinearConstraint> &constraints, const std::vector<std::int64_t> &residual,
                 std::vector<Interval> &out, double &active);
  void add_unresolved(Unresolved entry) {
    for (const Unresolved &u : unresolved)
      if (u.what == entry.what && u.reason == entry.reason) return;
    unresolved.push_back(std::move(entry));
  }

  const KernelModel &k_;
  const ExprPool &pool_;
  ExprNamer namer_;
  Evaluator ev_;
  Concretizer concretizer_;
  const LaunchValues &launch_;
  const FactsOptions &options_;
  const GivenFacts *facts_;
  std::string origin_;
  EvalEnv env_;
  std::vector<std::vector<int>> child_loops_;    // by parent + 1
  std::vector<std::vector<int>> loop_accesses_;  // by loop + 1
  std::vector<std::vector<int>> loop_ops_;       // by loop + 1
  std::vector<bool> needs_iteration_;
  std::vector<std::vector<int>> access_chain_;   // loops outermost first
  std::vector<bool> cond_uses_loops_;            // access cond depends on a loop counter
  std::set<ExprId> reported_conds_;
  std::int64_t rows_left_ = 0;
  std::int64_t iterations_left_ = 0;
  std::vector<std::unordered_map<std::string, double>> seen_signature_;  // per access: signature -> active elements
  std::map<std::pair<int, int>, std::unordered_map<std::string, double>> per_program_cache_;
};

std::string Evaluation::blame_text(ExprId blame) const {
  if (blame == kNoExpr) return "it cannot be evaluated";
  const ExprNode &n = pool_.node(blame);
  switch (n.op) {
    case ExprOp::Arg:
      return "the launch value of argument '" + namer_.arg(static_cast<int>(n.value)) + "' is not given";
    case ExprOp::Opaque: {
      const OpaqueInfo &info = pool_.opaque_info(blame);
      return "it depends on " + info.reason + (info.line > 0 ? " (line " + std::to_string(info.line) + ")" : "");
    }
    case ExprOp::LoopIter: return "it changes with the counter of an enclosing loop";
    case ExprOp::Placeholder: return "it depends on a loop-carried value that is not an induction variable";
    case ExprOp::Dim: return "it varies inside the tile";
    default: return "it cannot be evaluated (division by zero?)";
  }
}

void Evaluation::prepare_structure() {
  size_t nl = k_.loops.size();
  child_loops_.assign(nl + 1, {});
  loop_accesses_.assign(nl + 1, {});
  loop_ops_.assign(nl + 1, {});
  for (const Loop &l : k_.loops) child_loops_[static_cast<size_t>(l.parent + 1)].push_back(l.id);
  for (const Access &a : k_.accesses) loop_accesses_[static_cast<size_t>(a.loop + 1)].push_back(a.id);
  for (size_t idx = 0; idx < k_.ops.size(); ++idx) loop_ops_[static_cast<size_t>(k_.ops[idx].loop + 1)].push_back(static_cast<int>(idx));
  // A loop is iterated one counter value at a time when something nested in
  // it (a loop bound or a condition) uses its counter.
  auto ancestors = [&](int loop) {
    std::vector<int> chain;
    for (int l = loop; l >= 0; l = k_.loops[static_cast<size_t>(l)].parent) chain.push_back(l);
    return chain;
  };
  needs_iteration_.assign(nl, false);
  // With given data, a loaded value depends on what its index depends on.
  const bool through_loads = env_.data != nullptr;
  auto uses_counter_of = [&](ExprId e, int loop_id) {
    ExprId it = const_cast<ExprPool &>(pool_).loop_iter(loop_id);
    return e != kNoExpr && pool_.contains(e, it, through_loads);
  };
  for (const Loop &inner : k_.loops)
    for (int anc : ancestors(inner.parent))
      for (ExprId e : {inner.lb, inner.ub, inner.step, inner.cond, inner.trip})
        if (uses_counter_of(e, anc)) needs_iteration_[static_cast<size_t>(anc)] = true;
  access_chain_.assign(k_.accesses.size(), {});
  cond_uses_loops_.assign(k_.accesses.size(), false);
  for (const Access &a : k_.accesses) {
    std::vector<int> chain = ancestors(a.loop);
    for (int anc : chain)
      if (uses_counter_of(a.cond, anc)) {
        needs_iteration_[static_cast<size_t>(anc)] = true;
        cond_uses_loops_[static_cast<size_t>(a.id)] = true;
      }
    std::reverse(chain.begin(), chain.end());
    access_chain_[static_cast<size_t>(a.id)] = chain;
  }
  for (const ComputeOp &op : k_.ops)
    for (int anc : ancestors(op.loop))
      if (uses_counter_of(op.cond, anc)) needs_iteration_[static_cast<size_t>(anc)] = true;
  for (const Access &a : k_.accesses)
    if (a.arg >= 0) unions[{a.arg, static_cast<int>(direction_of(a))}];
  // Per-program work is the same everywhere unless a loop bound or a
  // condition reads a program id.
  auto reads_pid = [&](ExprId e) {
    return e != kNoExpr &&
           pool_.contains_if(e, [](const ExprNode &n, ExprId) { return n.op == ExprOp::Pid; }, through_loads);
  };
  for (const Loop &l : k_.loops)
    for (ExprId e : {l.lb, l.ub, l.step, l.cond, l.trip})
      if (reads_pid(e)) uniform = false;
  for (const Access &a : k_.accesses)
    if (reads_pid(a.cond)) uniform = false;
  for (const ComputeOp &op : k_.ops)
    if (reads_pid(op.cond)) uniform = false;
}

void Evaluation::set_program(std::int64_t p) {
  env_.pid[0] = p % launch_.grid[0];
  env_.pid[1] = (p / launch_.grid[0]) % launch_.grid[1];
  env_.pid[2] = p / (launch_.grid[0] * launch_.grid[1]);
}

void Evaluation::walk_iterations(int l, std::int64_t t, double w, ProgramCounts &pc) {
  iterations_left_ -= t;
  for (std::int64_t it = 0; it < t; ++it) {
    env_.loop_iters[static_cast<size_t>(l)] = it;
    count(l, w, pc);
  }
  env_.loop_iters[static_cast<size_t>(l)].reset();
}

void Evaluation::check_fact(const TripFact &fact, std::int64_t t, double w) const {
  auto refuse = [&](const std::string &what) {
    std::string program = "program (" + std::to_string(env_.pid[0]) + ", " + std::to_string(env_.pid[1]) + ", " +
                          std::to_string(env_.pid[2]) + ")";
    throw InputError(origin_ + ":" + std::to_string(fact.line) + ": launch." + fact.key + ": " + what +
                     ", but the loop at this line runs " + std::to_string(t) + " times in " + program +
                     " (derived from the IR and the launch)");
  };
  if (fact.min && *fact.min > t) refuse("min = " + std::to_string(*fact.min));
  if (fact.max && *fact.max < t) refuse("max = " + std::to_string(*fact.max));
  if (fact.sum && !fact.grid && w == 1 && *fact.sum != t) refuse("sum = " + std::to_string(*fact.sum) + " per block");
}

void Evaluation::mark_unknown(int loop, ProgramCounts &pc) {
  pc.loop_unknown[static_cast<size_t>(loop)] = true;
  for (int a : loop_accesses_[static_cast<size_t>(loop + 1)]) pc.access_unknown[static_cast<size_t>(a)] = true;
  for (int o : loop_ops_[static_cast<size_t>(loop + 1)]) pc.op_unknown[static_cast<size_t>(o)] = true;
  for (int child : child_loops_[static_cast<size_t>(loop + 1)]) mark_unknown(child, pc);
}

void Evaluation::count(int parent, double weight, ProgramCounts &pc) {
  auto cond_factor = [&](ExprId cond, const std::string &what, const SourceLoc &loc, std::string &note) -> double {
    if (cond == kNoExpr) return 1;
    EvalResult r = ev_.eval(cond, env_);
    if (r.value) return *r.value != 0 ? 1 : 0;
    if (note.empty()) {
      note = "counted as always executed: its condition cannot be decided because " + blame_text(r.blame);
      // One entry per condition (an early return guards every op after it).
      if (reported_conds_.insert(cond).second)
        add_unresolved(unresolved_at("condition guarding the " + what + " at line " + std::to_string(loc.line) +
                                         " and what follows it",
                                     note, loc));
    }
    return 1;
  };
  for (int a : loop_accesses_[static_cast<size_t>(parent + 1)]) {
    const Access &acc = k_.accesses[static_cast<size_t>(a)];
    pc.access[static_cast<size_t>(a)] += weight * cond_factor(acc.cond, acc.op, acc.loc, access_note[static_cast<size_t>(a)]);
  }
  for (int o : loop_ops_[static_cast<size_t>(parent + 1)]) {
    const ComputeOp &op = k_.ops[static_cast<size_t>(o)];
    pc.op[static_cast<size_t>(o)] += weight * cond_factor(op.cond, op.op, op.loc, op_note[static_cast<size_t>(o)]);
  }
  for (int l : child_loops_[static_cast<size_t>(parent + 1)]) {
    const Loop &loop = k_.loops[static_cast<size_t>(l)];
    if (pc.loop_unknown[static_cast<size_t>(l)]) continue;
    double w = weight;
    if (loop.cond != kNoExpr) {
      EvalResult c = ev_.eval(loop.cond, env_);
      if (c.value && *c.value == 0) continue;
    }
    const TripFact *fact = nullptr;
    if (facts_ != nullptr) {
      auto f = facts_->trips.find(loop.loc.ttir_line);
      if (f != facts_->trips.end()) fact = &f->second;
    }
    // The before region of an scf.while runs once more than its body; facts
    // count the body.
    const std::int64_t extra = loop.region == WhileRegion::Before ? 1 : 0;
    EvalResult trip;
    if (loop.trip != kNoExpr) trip = ev_.eval(loop.trip, env_);
    if (trip.value && fact != nullptr) check_fact(*fact, std::max<std::int64_t>(0, *trip.value) - extra, w);
    double given_trip = -1;
    if (!trip.value && fact != nullptr) {
      if (fact->sum && w == 1) {
        given_trip = static_cast<double>(*fact->sum) / (fact->grid ? static_cast<double>(launch_.programs) : 1.0);
      } else if (fact->min) {
        given_trip = static_cast<double>(*fact->min);
      }
      if (given_trip >= 0 && needs_iteration_[static_cast<size_t>(l)] && given_trip != std::floor(given_trip))
        given_trip = -1;  // a grid mean cannot be walked iteration by iteration
      if (given_trip >= 0) given_trip += static_cast<double>(extra);
    }
    if (!trip.value && given_trip < 0) {
      if (loop.trip != kNoExpr)
        add_unresolved(unresolved_at("trip count of the loop at line " + std::to_string(loop.loc.line),
                                     "not evaluated: " + blame_text(trip.blame), loop.loc, trips_hint(loop.loc)));
      mark_unknown(l, pc);
      continue;
    }
    if (given_trip >= 0) {
      facts_used.insert(fact->key);
      pc.loop_given[static_cast<size_t>(l)] = true;
      const auto floor_trip = static_cast<std::int64_t>(std::floor(given_trip));
      pc.trip_min[static_cast<size_t>(l)] = std::min(pc.trip_min[static_cast<size_t>(l)], floor_trip);
      pc.trip_max[static_cast<size_t>(l)] =
          std::max(pc.trip_max[static_cast<size_t>(l)], static_cast<std::int64_t>(std::ceil(given_trip)));
      pc.loop_exec[static_cast<size_t>(l)] += w * given_trip;
      pc.loop_entries[static_cast<size_t>(l)] += w;
      if (given_trip == 0) continue;
      if (needs_iteration_[static_cast<size_t>(l)]) {
        if (iterations_left_ < floor_trip) {
          mark_unknown(l, pc);
          continue;
        }
        walk_iterations(l, floor_trip, w, pc);
      } else {
        count(l, w * given_trip, pc);
      }
      continue;
    }
    std::int64_t t = std::max<std::int64_t>(0, *trip.value);
    pc.trip_min[static_cast<size_t>(l)] = std::min(pc.trip_min[static_cast<size_t>(l)], t);
    pc.trip_max[static_cast<size_t>(l)] = std::max(pc.trip_max[static_cast<size_t>(l)], t);
    pc.loop_exec[static_cast<size_t>(l)] += w * static_cast<double>(t);
    pc.loop_entries[static_cast<size_t>(l)] += w;
    if (t == 0) continue;
    if (needs_iteration_[static_cast<size_t>(l)]) {
      if (iterations_left_ < t) {
        add_unresolved(unresolved_at("iterations of the loop at line " + std::to_string(loop.loc.line),
                                     "the loop must be walked iteration by iteration and exceeds the evaluation budget",
                                     loop.loc));
        mark_unknown(l, pc);
        continue;
      }
      walk_iterations(l, t, w, pc);
    } else {
      count(l, w * static_cast<double>(t), pc);
    }
  }
}

//===----------------------------------------------------------------------===//
// Footprint enumeration
//===----------------------------------------------------------------------===//

bool Evaluation::dims_rows(const Access &a, std::int64_t base, const AffineForm &form,
                           const std::vector<LinearConstraint> &constraints, const std::vector<std::int64_t> &residual,
                           std::vector<Interval> &out, double &active) {
  const std::int64_t eb = std::max(1, (a.element_bits + 7) / 8);
  const auto rank = static_cast<int>(a.shape.size());
  if (rank == 0) {
    for (size_t c = 0; c < constraints.size(); ++c)
      if (residual[c] < 0) return true;
    if (rows_left_-- <= 0) return false;
    out.push_back({base * eb, (base + 1) * eb});
    active += 1;
    return true;
  }
  // The inner dimension: unit stride if any (the last such), else the last.
  int inner = rank - 1;
  for (int d = rank - 1; d >= 0; --d)
    if (std::llabs(form.coeff(d)) == 1) {
      inner = d;
      break;
    }
  const std::int64_t stride = form.coeff(inner);
  std::vector<std::int64_t> idx(static_cast<size_t>(rank), 0);
  std::vector<int> outer;
  for (int d = 0; d < rank; ++d)
    if (d != inner) outer.push_back(d);
  std::vector<std::int64_t> inner_coeff(constraints.size());
  for (size_t c = 0; c < constraints.size(); ++c) {
    std::int64_t v = 0;
    for (const auto &[var, coef] : constraints[c].terms)
      if (var == inner) v = coef;
    inner_coeff[c] = v;
  }
  while (true) {
    std::int64_t row_base = base;
    for (int d : outer) row_base += form.coeff(d) * idx[static_cast<size_t>(d)];
    std::int64_t lo = 0;
    std::int64_t hi = a.shape[static_cast<size_t>(inner)] - 1;
    for (size_t c = 0; c < constraints.size() && lo <= hi; ++c) {
      std::int64_t s = 0;
      for (const auto &[var, coef] : constraints[c].terms)
        if (var < kLoopVar && var != inner) s += coef * idx[static_cast<size_t>(var)];
      std::int64_t r = residual[c] - s;
      std::int64_t au = inner_coeff[c];
      if (au == 0) {
        if (r < 0) hi = lo - 1;
      } else if (au > 0) {
        hi = std::min(hi, floor_div(r, au));
      } else {
        lo = std::max(lo, ceil_div(r, au));
      }
    }
    if (lo <= hi) {
      active += static_cast<double>(hi - lo + 1);
      if (stride == 1 || stride == -1 || stride == 0) {
        if (rows_left_-- <= 0) return false;
        std::int64_t first = stride == 0 ? row_base : row_base + stride * (stride > 0 ? lo : hi);
        std::int64_t last = stride == 0 ? row_base : row_base + stride * (stride > 0 ? hi : lo);
        out.push_back({first * eb, (last + 1) * eb});
      } else {
        if (rows_left_ < hi - lo + 1) {
          rows_left_ = 0;
          return false;
        }
        rows_left_ -= hi - lo + 1;
        for (std::int64_t x = lo; x <= hi; ++x) out.push_back({(row_base + stride * x) * eb, (row_base + stride * x + 1) * eb});
      }
    }
    // Next row (odometer over the outer dimensions).
    size_t pos = outer.size();
    while (pos > 0) {
      int d = outer[pos - 1];
      if (++idx[static_cast<size_t>(d)] < a.shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
      --pos;
    }
    if (pos == 0) break;
  }
  return true;
}

bool Evaluation::enumerate_rows(const Access &a, const AffineForm &form, const std::vector<LinearConstraint> &constraints,
                                const std::vector<int> &chain, size_t level, std::vector<Interval> &out, double &active) {
  if (level == chain.size()) {
    if (cond_uses_loops_[static_cast<size_t>(a.id)]) {
      EvalResult c = ev_.eval(a.cond, env_);
      if (c.value && *c.value == 0) return true;
    }
    std::int64_t base = form.c0;
    for (const auto &[var, coef] : form.terms)
      if (var >= kLoopVar) base += coef * env_.loop_iters[static_cast<size_t>(var - kLoopVar)].value_or(0);
    std::vector<std::int64_t> residual(constraints.size());
    for (size_t c = 0; c < constraints.size(); ++c) {
      std::int64_t r = constraints[c].bound;
      for (const auto &[var, coef] : constraints[c].terms)
        if (var >= kLoopVar) r -= coef * env_.loop_iters[static_cast<size_t>(var - kLoopVar)].value_or(0);
      residual[c] = r;
    }
    return dims_rows(a, base, form, constraints, residual, out, active);
  }
  int l = chain[level];
  const Loop &loop = k_.loops[static_cast<size_t>(l)];
  EvalResult trip = ev_.eval(loop.trip, env_);
  if (!trip.value) return true;  // counted as unknown by the counting pass
  bool ok = true;
  for (std::int64_t t = 0; t < *trip.value && ok; ++t) {
    env_.loop_iters[static_cast<size_t>(l)] = t;
    ok = enumerate_rows(a, form, constraints, chain, level + 1, out, active);
  }
  env_.loop_iters[static_cast<size_t>(l)].reset();
  return ok;
}

void Evaluation::footprint(const ProgramCounts &pc, std::int64_t p) {
  // A member is one access with the outer loops of its chain that had to be
  // fixed (their counters sit inside a division or remainder, as in a
  // persistent tile loop) set to given values; the remaining loops and the
  // tile dimensions are affine.
  struct Member {
    int access;
    std::vector<std::pair<int, std::int64_t>> fixed;  // (loop, counter value)
    size_t free_from = 0;                             // first free level of the chain
    AffineForm form;
    std::vector<LinearConstraint> constraints;
    std::string signature;
  };
  std::map<std::pair<int, int>, std::vector<Member>> groups;
  std::int64_t member_budget = 1 << 16;
  for (const Access &a : k_.accesses) {
    auto key = std::make_pair(a.arg, static_cast<int>(direction_of(a)));
    if (a.arg < 0) continue;
    Union &u = unions[key];
    const auto id = static_cast<size_t>(a.id);
    auto incomplete = [&](const std::string &why, const SourceLoc &loc) {
      if (u.complete) {
        u.incomplete_why = why;
        u.incomplete_line = loc.line;
        u.incomplete_loc = loc;
      }
      u.complete = false;
      access_active_ok[id] = false;
      if (access_active_why[id].empty()) access_active_why[id] = why;
    };
    const std::string what = "the " + a.op + " at line " + std::to_string(a.loc.line);
    if (pc.access_unknown[id]) {
      incomplete(what + " runs an unknown number of times", a.loc);
      continue;
    }
    if (std::any_of(access_chain_[id].begin(), access_chain_[id].end(),
                    [&](int l) { return pc.loop_given[static_cast<size_t>(l)]; })) {
      incomplete(what + " sits in a loop whose trip count is given, not derived: its bytes are not enumerated", a.loc);
      continue;
    }
    if (pc.access[id] == 0) continue;
    if (!access_note[id].empty()) {
      incomplete(what + " runs under a condition that cannot be decided", a.loc);
      continue;
    }
    if (a.offset == kNoExpr) {
      incomplete(what + ": " + a.base_unknown, a.loc);
      continue;
    }
    const std::vector<int> &chain = access_chain_[id];
    std::string failure_why;
    std::function<bool(size_t, std::vector<std::pair<int, std::int64_t>> &)> make =
        [&](size_t level, std::vector<std::pair<int, std::int64_t>> &fixed) -> bool {
      VarRange ranges = [&](int var) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
        if (var < kLoopVar) {
          if (static_cast<size_t>(var) >= a.shape.size()) return std::nullopt;
          return std::make_pair(std::int64_t{0}, a.shape[static_cast<size_t>(var)] - 1);
        }
        auto l = static_cast<size_t>(var - kLoopVar);
        if (l >= pc.trip_max.size() || pc.trip_max[l] <= 0) return std::nullopt;
        return std::make_pair(std::int64_t{0}, pc.trip_max[l] - 1);
      };
      Member m;
      m.access = a.id;
      m.fixed = fixed;
      m.free_from = level;
      AffineFailure failure;
      bool affine = concretizer_.run(a.offset, env_, ranges, m.form, failure);
      bool never = false;
      if (affine && a.mask != kNoExpr)
        affine = mask_constraints(pool_, concretizer_, a.mask, env_, ranges, m.constraints, never, failure);
      if (!affine) {
        if (level < chain.size()) {
          // Fix the next loop's counter and try again inside.
          int l = chain[level];
          EvalResult trip = ev_.eval(k_.loops[static_cast<size_t>(l)].trip, env_);
          if (!trip.value) {
            failure_why = "the trip count of the loop at line " + std::to_string(k_.loops[static_cast<size_t>(l)].loc.line) +
                          " is not known";
            return false;
          }
          for (std::int64_t t = 0; t < *trip.value; ++t) {
            if (--member_budget < 0) {
              failure_why = "too many loop iterations to fix one by one";
              env_.loop_iters[static_cast<size_t>(l)].reset();
              return false;
            }
            env_.loop_iters[static_cast<size_t>(l)] = t;
            fixed.emplace_back(l, t);
            bool ok = make(level + 1, fixed);
            fixed.pop_back();
            if (!ok) {
              env_.loop_iters[static_cast<size_t>(l)].reset();
              return false;
            }
          }
          env_.loop_iters[static_cast<size_t>(l)].reset();
          return true;
        }
        failure_why = failure.why;
        return false;
      }
      if (!first_form[id]) first_form[id] = m.form;
      if (never) return true;
      std::string sig = std::to_string(m.form.c0) + ":";
      for (const auto &[var, coef] : m.form.terms) sig += std::to_string(var) + "*" + std::to_string(coef) + ",";
      for (const LinearConstraint &c : m.constraints) {
        sig += "|";
        for (const auto &[var, coef] : c.terms) sig += std::to_string(var) + "*" + std::to_string(coef) + ",";
        sig += "<=" + std::to_string(c.bound);
      }
      for (size_t j = level; j < chain.size(); ++j) {
        auto l = static_cast<size_t>(chain[j]);
        sig += "#" + std::to_string(pc.trip_min[l]) + "/" + std::to_string(pc.trip_max[l]);
      }
      if (cond_uses_loops_[id]) sig += "@" + std::to_string(p);  // per-iteration conditions: never merge programs
      m.signature = std::move(sig);
      groups[key].push_back(std::move(m));
      return true;
    };
    std::vector<std::pair<int, std::int64_t>> fixed;
    if (!make(0, fixed)) {
      if (first_form_why[id].empty()) first_form_why[id] = failure_why;
      incomplete("the offset or mask of " + what + " is not affine: " + failure_why, a.loc);
    }
  }
  for (auto &[key, u] : unions)
    if (groups.count(key) == 0) u.per_program.add(0);  // nothing of this argument runs in this program
  for (auto &[key, members] : groups) {
    Union &u = unions[key];
    // Per-program unique bytes, cached by the signature relative to the
    // program's lowest base (translated programs move the same bytes).
    std::int64_t min_base = std::numeric_limits<std::int64_t>::max();
    for (const Member &m : members) min_base = std::min(min_base, m.form.c0);
    std::vector<std::string> parts;
    for (const Member &m : members)
      parts.push_back(std::to_string(m.access) + "{" + std::to_string(m.form.c0 - min_base) +
                      m.signature.substr(m.signature.find(':')) + "}");
    std::sort(parts.begin(), parts.end());
    std::string normalized;
    for (const std::string &part : parts) normalized += part;
    auto &cache = per_program_cache_[key];
    auto cached = cache.find(normalized);
    std::vector<Interval> local;
    const bool need_local = cached == cache.end();
    bool ok = true;
    for (const Member &m : members) {
      const Access &a = k_.accesses[static_cast<size_t>(m.access)];
      const double eb = static_cast<double>(std::max(1, (a.element_bits + 7) / 8));
      auto &seen = seen_signature_[static_cast<size_t>(m.access)];
      auto hit = seen.find(m.signature);
      const bool need_global = hit == seen.end();
      if (!need_global) access_active_sum[static_cast<size_t>(m.access)] += hit->second * eb;
      if (!need_global && !need_local) continue;
      std::vector<Interval> rows;
      double active = 0;
      for (const auto &[l, t] : m.fixed) env_.loop_iters[static_cast<size_t>(l)] = t;
      ok = enumerate_rows(a, m.form, m.constraints, access_chain_[static_cast<size_t>(m.access)], m.free_from, rows,
                          active);
      for (const auto &[l, t] : m.fixed) env_.loop_iters[static_cast<size_t>(l)].reset();
      if (!ok) break;
      if (need_global) {
        seen.emplace(m.signature, active);
        access_active_sum[static_cast<size_t>(m.access)] += active * eb;
        u.global.insert(u.global.end(), rows.begin(), rows.end());
      }
      if (need_local) local.insert(local.end(), rows.begin(), rows.end());
    }
    if (!ok) {
      budget_hit = true;
      return;
    }
    double unique = need_local ? union_bytes(local) : cached->second;
    if (need_local) cache.emplace(std::move(normalized), unique);
    u.per_program.add(unique);
    // Keep the global list compact.
    if (u.global.size() > (1u << 20)) {
      std::vector<Interval> merged;
      std::sort(u.global.begin(), u.global.end(), [](const Interval &x, const Interval &y) { return x.lo < y.lo; });
      for (const Interval &iv : u.global) {
        if (!merged.empty() && iv.lo <= merged.back().hi)
          merged.back().hi = std::max(merged.back().hi, iv.hi);
        else
          merged.push_back(iv);
      }
      u.global.swap(merged);
    }
  }
}

void Evaluation::run() {
  const size_t na = k_.accesses.size();
  const size_t no = k_.ops.size();
  const size_t nl = k_.loops.size();
  access_exec.assign(na, {});
  op_exec.assign(no, {});
  loop_exec.assign(nl, {});
  loop_trip.assign(nl, {});
  access_note.assign(na, "");
  op_note.assign(no, "");
  access_active_sum.assign(na, 0);
  access_active_ok.assign(na, true);
  access_active_why.assign(na, "");
  first_form.assign(na, std::nullopt);
  first_form_why.assign(na, "");
  seen_signature_.assign(na, {});
  rows_left_ = options_.row_budget;
  iterations_left_ = 50'000'000;

  const std::int64_t programs = launch_.programs;
  const std::int64_t enumerable = std::min<std::int64_t>(programs, options_.program_budget);
  if (!uniform && programs > options_.program_budget) {
    counts_known = false;
    counts_why = "per-program work depends on the program id and the grid has " + std::to_string(programs) +
                 " programs, more than the evaluation budget of " + std::to_string(options_.program_budget);
  }
  bool footprint_on = true;
  for (std::int64_t p = 0; p < enumerable; ++p) {
    set_program(p);
    ProgramCounts pc;
    pc.access.assign(na, 0);
    pc.op.assign(no, 0);
    pc.access_unknown.assign(na, false);
    pc.op_unknown.assign(no, false);
    pc.loop_exec.assign(nl, 0);
    pc.loop_entries.assign(nl, 0);
    pc.trip_min.assign(nl, std::numeric_limits<std::int64_t>::max());
    pc.trip_max.assign(nl, 0);
    pc.loop_unknown.assign(nl, false);
    pc.loop_given.assign(nl, false);
    count(-1, 1.0, pc);
    const bool record = !uniform || p == 0;
    const double w = uniform ? static_cast<double>(programs) : 1.0;
    if (record && counts_known) {
      double bytes = 0;
      double flop = 0;
      bool work_known = true;
      std::array<double, 3> dir_bytes = {0, 0, 0};
      std::array<bool, 3> dir_known = {true, true, true};
      std::array<std::string, 3> dir_inexact;
      for (size_t a = 0; a < na; ++a) {
        const Access &acc = k_.accesses[a];
        auto dir = static_cast<size_t>(direction_of(acc));
        if (pc.access_unknown[a]) {
          access_exec[a].fail("it sits in a loop whose trip count is not known");
          dir_known[dir] = false;
          work_known = false;
          continue;
        }
        access_exec[a].add(pc.access[a], w);
        if (!access_note[a].empty()) {
          access_exec[a].inexact("upper", access_note[a]);
          if (dir_inexact[dir].empty()) dir_inexact[dir] = "the " + acc.op + " at line " + std::to_string(acc.loc.line) + " is " + access_note[a];
        }
        double b = pc.access[a] * static_cast<double>(acc.bytes());
        bytes += b;
        dir_bytes[dir] += b;
      }
      for (size_t dir = 0; dir < 3; ++dir) {
        if (!dir_known[dir]) {
          dir_requested[dir].fail("an access sits in a loop whose trip count is not known");
          continue;
        }
        dir_requested[dir].add(dir_bytes[dir], w);
        if (!dir_inexact[dir].empty()) dir_requested[dir].inexact("upper", dir_inexact[dir]);
      }
      std::map<std::pair<std::string, std::string>, double> key_sum;
      std::map<std::pair<std::string, std::string>, std::string> key_fail, key_inexact;
      for (size_t o = 0; o < no; ++o) {
        const ComputeOp &op = k_.ops[o];
        bool counts_ops = op.cls == OpClass::Scalar || op.cls == OpClass::Index || op.cls == OpClass::Layout;
        auto key = std::make_pair(op_class_name(op.cls), op.cls == OpClass::Cube ? cube_unit(op) : op.dtype);
        key_sum[key] += 0;
        if (pc.op_unknown[o]) {
          op_exec[o].fail("it sits in a loop whose trip count is not known");
          key_fail[key] = op.op + " at line " + std::to_string(op.loc.line) + " sits in a loop whose trip count is not known";
          if (!counts_ops) work_known = false;
          continue;
        }
        op_exec[o].add(pc.op[o], w);
        if (!op_note[o].empty()) {
          op_exec[o].inexact("upper", op_note[o]);
          key_inexact[key] = op.op + " at line " + std::to_string(op.loc.line) + " is " + op_note[o];
        }
        double per = counts_ops ? static_cast<double>(op.elements) : op.flop;
        key_sum[key] += pc.op[o] * per;
        if (!counts_ops) flop += pc.op[o] * op.flop;
      }
      for (const auto &[key, sum] : key_sum) {
        Dist &d = class_work[key];
        auto f = key_fail.find(key);
        if (f != key_fail.end()) {
          d.fail(f->second);
          continue;
        }
        d.add(sum, w);
        auto in = key_inexact.find(key);
        if (in != key_inexact.end()) d.inexact("upper", in->second);
      }
      for (size_t l = 0; l < nl; ++l) {
        if (pc.loop_unknown[l]) {
          loop_exec[l].fail("the trip count is not known");
          loop_trip[l].fail("the trip count is not known");
          continue;
        }
        loop_exec[l].add(pc.loop_exec[l], w);
        if (pc.loop_entries[l] > 0) {
          Dist &t = loop_trip[l];
          t.min = std::min(t.min, static_cast<double>(pc.trip_min[l]));
          t.max = std::max(t.max, static_cast<double>(pc.trip_max[l]));
          t.sum += pc.loop_exec[l] * w;
          t.weight += pc.loop_entries[l] * w;
        }
      }
      if (!uniform) {
        program_bytes.push_back(work_known ? bytes : std::nan(""));
        program_flop.push_back(work_known ? flop : std::nan(""));
      }
    }
    ++programs_evaluated;
    if (footprint_on) {
      footprint(pc, p);
      if (budget_hit) footprint_on = false;
    }
    if (uniform && !footprint_on) break;
  }
  if (budget_hit || programs_evaluated < programs) {
    for (auto &[key, u] : unions) {
      if (u.complete) {
        u.incomplete_why = budget_hit ? "the enumeration budget of " + std::to_string(options_.row_budget) +
                                            " rows was reached after " + std::to_string(programs_evaluated) + " of " +
                                            std::to_string(programs) + " programs"
                                      : "only " + std::to_string(programs_evaluated) + " of " +
                                            std::to_string(programs) + " programs were enumerated";
      }
      u.complete = false;
    }
    for (size_t a = 0; a < na; ++a) {
      access_active_ok[a] = false;
      if (access_active_why[a].empty()) access_active_why[a] = "not every program was enumerated";
    }
  }
  if (!counts_known) {
    for (Dist &d : access_exec) d.fail(counts_why);
    for (Dist &d : op_exec) d.fail(counts_why);
    for (Dist &d : loop_exec) d.fail(counts_why);
    for (Dist &d : loop_trip) d.fail(counts_why);
    for (Dist &d : dir_requested) d.fail(counts_why);
    for (const ComputeOp &op : k_.ops)
      class_work[{op_class_name(op.cls), op.cls == OpClass::Cube ? cube_unit(op) : op.dtype}].fail(counts_why);
  }
}

//===----------------------------------------------------------------------===//
// Document pieces
//===----------------------------------------------------------------------===//

/// Arguments and loaded values a mask compares against.
json mask_bounds(const KernelModel &k, ExprId mask) {
  json out = json::array();
  std::set<std::string> seen;
  const ExprPool &pool = *k.pool;
  ExprNamer namer = k.namer();
  (void)pool.contains_if(mask, [&](const ExprNode &n, ExprId id) {
    std::string name;
    if (n.op == ExprOp::Arg) name = namer.arg(static_cast<int>(n.value));
    if (n.op == ExprOp::Opaque) {
      const OpaqueInfo &info = pool.opaque_info(id);
      name = "value at line " + std::to_string(info.line) + " (" + info.reason + ")";
    }
    if (!name.empty() && seen.insert(name).second) out.push_back(name);
    return false;
  });
  return out;
}

/// The symbolic coefficient of Dim(d) in `offset` when the offset is linear in
/// it ("" when it is not).
std::string dim_stride_text(const KernelModel &k, ExprId offset, int d) {
  const ExprPool &pool = *k.pool;
  ExprId dim = const_cast<ExprPool &>(pool).dim(d);
  Poly p = pool.to_poly(offset);
  Poly coeff;
  for (const auto &[mono, c] : p) {
    size_t hits = static_cast<size_t>(std::count(mono.begin(), mono.end(), dim));
    bool nested = false;
    for (ExprId atom : mono)
      if (atom != dim && pool.node(atom).op != ExprOp::Dim && pool.contains(atom, dim)) nested = true;
    if (nested || hits > 1) return "";
    if (hits == 1) {
      Monomial rest;
      for (ExprId atom : mono)
        if (atom != dim) rest.push_back(atom);
      coeff[rest] += c;
    }
  }
  return pool.poly_to_string(coeff, k.namer());
}

/// Element strides of each tile dimension when the offset is linear in every
/// dimension and the coefficients evaluate with the launch (program 0).
std::optional<std::vector<std::int64_t>> dim_strides(const KernelModel &k, const Access &a, const LaunchValues &lv) {
  if (a.offset == kNoExpr) return std::nullopt;
  const ExprPool &pool = *k.pool;
  Evaluator ev(pool);
  EvalEnv env;
  env.args = &lv.ints;
  for (int axis = 0; axis < 3; ++axis) env.num_programs[axis] = lv.grid[axis];
  env.loop_iters.assign(k.loops.size(), 0);
  Poly p = pool.to_poly(a.offset);
  std::vector<std::int64_t> strides(a.shape.size(), 0);
  for (const auto &[mono, c] : p) {
    int dim = -1;
    std::int64_t value = c;
    for (ExprId atom : mono) {
      const ExprNode &n = pool.node(atom);
      if (n.op == ExprOp::Dim) {
        if (dim >= 0) return std::nullopt;  // a product of two tile indices
        dim = static_cast<int>(n.value);
        continue;
      }
      if (n.dims != 0) return std::nullopt;  // a tile index inside a non-linear atom
    }
    if (dim < 0) continue;
    for (ExprId atom : mono) {
      if (pool.node(atom).op == ExprOp::Dim) continue;
      EvalResult r = ev.eval(atom, env);
      if (!r.value) return std::nullopt;
      value *= *r.value;
    }
    if (static_cast<size_t>(dim) < strides.size()) strides[static_cast<size_t>(dim)] += value;
  }
  return strides;
}

json signature_json(const KernelModel &k, const LaunchValues &lv) {
  json sig = json::array();
  for (const KernelArg &a : k.args) {
    json j;
    j["index"] = a.index;
    j["name"] = a.name.empty() ? json(nullptr) : json(a.name);
    j["key"] = a.key();
    j["type"] = a.type;
    switch (a.kind) {
      case ArgKind::Pointer: j["kind"] = "pointer"; break;
      case ArgKind::Scalar: j["kind"] = "scalar"; break;
      case ArgKind::TensorDesc: j["kind"] = "tensor_descriptor"; break;
      case ArgKind::Other: j["kind"] = "other"; break;
    }
    j["element_type"] = a.element_type;
    j["element_bytes"] = (a.element_bits + 7) / 8;
    j["divisibility"] = a.divisibility > 0 ? json(a.divisibility) : json(nullptr);
    j["used"] = a.used;
    if (a.kind == ArgKind::Scalar) {
      auto it = lv.args.find(a.key());
      j["value"] = it != lv.args.end() ? *it : json(nullptr);
    }
    sig.push_back(std::move(j));
  }
  return sig;
}

/// Live-tile peak of one buffer class with every dimension of size `from`
/// scaled to `to` (from == to: as written).
struct Peak {
  double bytes = 0;
  size_t point = 0;
};

Peak buffer_peak(const KernelModel &k, Buffer buffer, int multibuffer, std::int64_t from, std::int64_t to) {
  Peak best;
  for (size_t idx = 0; idx < k.live_points.size(); ++idx) {
    double sum = 0;
    for (int t : k.live_points[idx].tiles) {
      const Tile &tile = k.tiles[static_cast<size_t>(t)];
      if (tile.buffer != buffer) continue;
      double bytes = static_cast<double>(tile.bytes());
      for (std::int64_t s : tile.shape)
        if (s == from && from != to) bytes = bytes * static_cast<double>(to) / static_cast<double>(from);
      if (tile.loaded_in_loop) bytes *= multibuffer;
      sum += bytes;
    }
    if (sum > best.bytes) {
      best.bytes = sum;
      best.point = idx;
    }
  }
  return best;
}

json buffer_json(const KernelModel &k, Buffer buffer, const char *name, std::int64_t capacity, int multibuffer,
                 bool &all_ok) {
  json j;
  j["capacity"] = capacity;
  Peak peak = buffer_peak(k, buffer, multibuffer, 0, 0);
  j["footprint"] = Qty::estimate(peak.bytes, "",
                                 "estimate: the largest sum of live data tiles of the TTIR; the compiler may fuse, "
                                 "split or multi-buffer differently")
                       .to_json();
  bool ok = peak.bytes <= static_cast<double>(capacity);
  j["ok"] = ok;
  all_ok = all_ok && ok;
  j["peak_at"] = peak.bytes > 0 ? loc_json(k.live_points[peak.point].loc) : json(nullptr);
  if (j["peak_at"].is_object()) {
    j["peak_at"]["ttir_line"] = line_json(k.live_points[peak.point].loc.ttir_line);
    j["peak_at"]["python_loc"] = python_json(k.live_points[peak.point].loc.python);
  }
  json largest = json::array();
  if (peak.bytes > 0) {
    std::vector<int> tiles;
    for (int t : k.live_points[peak.point].tiles)
      if (k.tiles[static_cast<size_t>(t)].buffer == buffer) tiles.push_back(t);
    auto eff = [&](int t) {
      const Tile &tile = k.tiles[static_cast<size_t>(t)];
      return static_cast<double>(tile.bytes()) * (tile.loaded_in_loop ? multibuffer : 1);
    };
    std::stable_sort(tiles.begin(), tiles.end(), [&](int x, int y) { return eff(x) > eff(y); });
    for (size_t idx = 0; idx < tiles.size() && idx < 5; ++idx) {
      const Tile &tile = k.tiles[static_cast<size_t>(tiles[idx])];
      largest.push_back({{"name", tile.name},
                         {"op", tile.op},
                         {"shape", tile.shape},
                         {"dtype", tile.dtype},
                         {"bytes", number(eff(tiles[idx]))},
                         {"copies", tile.loaded_in_loop ? multibuffer : 1}});
      add_source(largest.back(), tile.loc);
    }
  }
  j["largest_live"] = largest;
  // The largest power-of-two size of each block dimension that still fits.
  std::set<std::int64_t> dims;
  for (const Tile &tile : k.tiles)
    if (tile.buffer == buffer)
      for (std::int64_t s : tile.shape)
        if (s > 1) dims.insert(s);
  json fitting = json::array();
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    std::int64_t d = *it;
    std::optional<std::int64_t> best;
    double best_bytes = 0;
    for (std::int64_t x = 1; x <= (std::int64_t{1} << 24); x *= 2) {
      Peak p = buffer_peak(k, buffer, multibuffer, d, x);
      if (p.bytes <= static_cast<double>(capacity)) {
        best = x;
        best_bytes = p.bytes;
      } else if (x >= d) {
        break;
      }
    }
    json f{{"dim", d}};
    f["largest"] = best ? json(*best) : json(nullptr);
    f["footprint_at_largest"] = best ? number(best_bytes) : json(nullptr);
    if (!best) f["reason"] = "does not fit even with this dimension at 1";
    fitting.push_back(std::move(f));
    if (fitting.size() >= 4) break;
  }
  j["largest_fitting"] = fitting;
  (void)name;
  return j;
}

}  // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

const KernelModel &select_kernel(const TtirModule &module, const json &launch) {
  if (module.kernels.empty()) throw InputError(module.origin + ": no tt.func in the TTIR");
  auto describe = [&](const KernelModel &k) { return k.name + ":" + std::to_string(k.ttir_line); };
  std::string wanted;
  if (launch.is_object() && launch.contains("kernel") && launch["kernel"].is_string())
    wanted = launch["kernel"].get<std::string>();
  std::vector<const KernelModel *> candidates;
  for (const KernelModel &k : module.kernels) {
    if (wanted.empty()) {
      if (k.is_public) candidates.push_back(&k);
    } else if (k.name == wanted || describe(k) == wanted) {
      candidates.push_back(&k);
    }
  }
  if (wanted.empty() && candidates.empty() && module.kernels.size() == 1) return module.kernels.front();
  if (candidates.size() == 1) return *candidates.front();
  std::string list;
  for (const KernelModel &k : module.kernels)
    list += (list.empty() ? "" : ", ") + describe(k) + (k.is_public ? "" : " (private)");
  if (candidates.empty())
    throw InputError(module.origin + ": no kernel named '" + wanted + "' (kernels: " + list + ")");
  throw InputError(module.origin + ": " + std::to_string(candidates.size()) + " kernels match" +
                   (wanted.empty() ? "" : " '" + wanted + "'") +
                   "; choose one with launch.kernel = \"NAME\" or \"NAME:LINE\" (kernels: " + list + ")");
}

namespace {

/// The document for one launch; with `facts`, counted under the given facts
/// (the facts that changed a count are added to `used`).
json build_doc(const TtirModule &module, const KernelModel &k, const json &launch, const json &profile,
               const FactsOptions &options, const GivenFacts *facts, std::set<std::string> *used) {
  LaunchValues lv = resolve_launch(k, launch);
  Hardware hw = read_profile(profile);
  const ExprPool &pool = *k.pool;
  ExprNamer namer = k.namer();
  Evaluation ev(k, lv, options, facts, module.origin);
  ev.run();
  if (facts != nullptr) {
    if (const auto &range = ev.evaluator().range_error()) {
      const OpaqueInfo &info = pool.opaque_info(range->load);
      throw InputError(module.origin + ":" + std::to_string(info.ttir_line) + ": launch." +
                       facts->data_key.at(info.load_arg) + ": the load at this line reads element " +
                       std::to_string(range->index) + ", but the given data has " + std::to_string(range->size) +
                       " elements");
    }
    for (int arg : ev.evaluator().data_reads()) used->insert(facts->data_key.at(arg));
    used->insert(ev.facts_used.begin(), ev.facts_used.end());
  }

  json doc = pb::sdk::make_document(kDslFactsSchema);
  json unresolved = json::array();
  auto add_entry = [&](const Unresolved &u) {
    for (const json &e : unresolved)
      if (e["what"] == u.what && e["reason"] == u.reason) return;
    // `line` is the op's own location (Python when the TTIR has locations);
    // ttir_line and python_loc say which is which.
    json e{{"what", u.what}, {"reason", u.reason}, {"line", line_json(u.line)}};
    e["ttir_line"] = line_json(u.ttir_line);
    e["python_loc"] = python_json(u.python);
    e["line_is"] = u.line <= 0 ? json(nullptr) : json(u.python.empty() && u.line == u.ttir_line ? "ttir" : "python");
    if (!u.hint.empty()) e["hint"] = u.hint;
    unresolved.push_back(std::move(e));
  };
  auto add_unresolved = [&](const std::string &what, const std::string &reason, const SourceLoc &loc) {
    add_entry(unresolved_at(what, reason, loc));
  };
  for (const Unresolved &u : k.unresolved) add_entry(u);

  // --- kernel, signature, launch -------------------------------------------
  json kernels_in_file = json::array();
  for (const KernelModel &other : module.kernels)
    if (other.is_public) kernels_in_file.push_back(other.name);
  doc["kernel"] = {{"name", k.name},
                   {"source", loc_json(k.loc)},
                   {"ttir", {{"file", module.origin}, {"line", line_json(k.ttir_line)}}},
                   {"public_kernels_in_file", kernels_in_file}};
  doc["signature"] = signature_json(k, lv);
  json missing = json::array();
  for (const KernelArg &a : k.args)
    if (a.kind == ArgKind::Scalar && a.used && !a.is_float && !lv.ints[static_cast<size_t>(a.index)]) {
      missing.push_back(a.key());
    }
  doc["launch"] = {{"grid", {lv.grid[0], lv.grid[1], lv.grid[2]}},
                   {"programs", lv.programs},
                   {"args", lv.args},
                   {"missing_args", missing},
                   {"ignored_args", lv.ignored}};
  json pid_axes = json::array();
  json np_axes = json::array();
  for (int axis = 0; axis < 3; ++axis) {
    if (k.uses_program_id[axis]) pid_axes.push_back(axis_name(axis));
    if (k.uses_num_programs[axis]) np_axes.push_back(axis_name(axis));
  }
  doc["grid_axes"] = {{"program_id", pid_axes}, {"num_programs", np_axes}};

  // --- loops -----------------------------------------------------------------
  json loops = json::array();
  const Loop *persistent = nullptr;
  for (const Loop &l : k.loops) {
    json j;
    j["id"] = l.id;
    j["parent"] = l.parent >= 0 ? json(l.parent) : json(nullptr);
    j["kind"] = l.kind == LoopKind::For ? "for" : "while";
    add_source(j, l.loc);
    json trip;
    if (l.kind == LoopKind::While) {
      j["region"] = l.region == WhileRegion::Before ? "before" : "after";
      j["trip_pattern"] = l.trip_why;
    }
    if (l.trip == kNoExpr) {
      trip["symbolic"] = nullptr;
      trip["status"] = "unknown";
    } else {
      trip["symbolic"] = pool.to_string(l.trip, namer);
      std::int64_t c = 0;
      bool data = pool.first_opaque(l.trip) != kNoExpr;
      bool pid = pool.contains_if(l.trip, [](const ExprNode &n, ExprId) {
        return n.op == ExprOp::Pid || n.op == ExprOp::LoopIter;
      });
      trip["status"] = pool.is_const(l.trip, &c) ? "exact" : data ? "data-dependent" : pid ? "per-program" : "symbolic";
      if (l.kind == LoopKind::For) {
        j["lower"] = pool.to_string(l.lb, namer);
        j["upper"] = pool.to_string(l.ub, namer);
        j["step"] = pool.to_string(l.step, namer);
      }
    }
    trip["per_program"] = ev.loop_trip[static_cast<size_t>(l.id)].to_json();
    j["trip_count"] = trip;
    j["body_executions_per_program"] = ev.loop_exec[static_cast<size_t>(l.id)].to_json();
    j["persistent_axis"] = l.persistent_axis >= 0 ? json(axis_name(l.persistent_axis)) : json(nullptr);
    if (l.persistent_axis >= 0 && persistent == nullptr) persistent = &l;
    loops.push_back(std::move(j));
  }
  doc["loops"] = loops;

  // --- accesses --------------------------------------------------------------
  json accesses = json::array();
  std::vector<Qty> access_requested(k.accesses.size());
  for (const Access &a : k.accesses) {
    const auto id = static_cast<size_t>(a.id);
    json j;
    j["id"] = a.id;
    j["op"] = a.op;
    j["direction"] = kDirectionName[static_cast<int>(direction_of(a))];
    j["arg"] = a.arg >= 0 ? json(a.arg) : json(nullptr);
    j["arg_key"] = a.arg >= 0 ? json(k.args[static_cast<size_t>(a.arg)].key()) : json(nullptr);
    if (a.arg < 0) j["arg_reason"] = a.base_unknown;
    j["dtype"] = a.dtype;
    j["element_bytes"] = (a.element_bits + 7) / 8;
    j["shape"] = a.shape;
    j["elements"] = a.elements();
    j["bytes_per_execution"] = a.bytes();
    j["block_pointer"] = a.block_pointer;
    j["descriptor"] = a.descriptor;
    if (!a.detail.empty()) j["detail"] = a.detail;
    j["loop"] = a.loop >= 0 ? json(a.loop) : json(nullptr);
    j["conditional"] = a.cond != kNoExpr;
    j["offset"] = a.offset != kNoExpr ? json(pool.to_string(a.offset, namer)) : json(nullptr);
    if (a.mask != kNoExpr || !a.mask_kind.empty()) {
      json m;
      m["kind"] = a.mask_kind.empty() ? "mask operand" : a.mask_kind;
      m["expr"] = a.mask != kNoExpr ? json(pool.to_string(a.mask, namer)) : json(nullptr);
      m["bounds"] = a.mask != kNoExpr ? mask_bounds(k, a.mask) : json::array();
      m["other"] = a.has_other;
      j["mask"] = m;
    } else {
      j["mask"] = nullptr;
    }
    const Dist &exec = ev.access_exec[id];
    j["executions_per_program"] = exec.to_json();
    Qty req = exec.total();
    if (req.value) *req.value *= static_cast<double>(a.bytes());
    access_requested[id] = req;
    Dist req_pp = exec;
    req_pp.min *= static_cast<double>(a.bytes());
    req_pp.max *= static_cast<double>(a.bytes());
    req_pp.sum *= static_cast<double>(a.bytes());
    j["requested_bytes"] = {{"per_program", req_pp.to_json()}, {"total", req.to_json()}};
    Qty active = ev.access_active_ok[id] ? Qty::of(ev.access_active_sum[id])
                                         : Qty::unknown(ev.access_active_why[id].empty() ? "not enumerated"
                                                                                          : ev.access_active_why[id]);
    if (a.arg < 0) active = Qty::unknown(a.base_unknown);
    j["active_bytes"] = active.to_json();
    if (active.value && req.value && req.exact)
      j["masked_off_bytes"] = Qty::of(*req.value - *active.value).to_json();
    else
      j["masked_off_bytes"] = Qty::unknown(active.value ? "the requested bytes are not exact" : active.reason).to_json();
    // Contiguity along the last dimension (first program that runs it).
    json contiguity;
    if (a.shape.empty()) {
      contiguity["run_bytes"] = Qty::of(static_cast<double>(a.bytes())).to_json();
      contiguity["stride"] = nullptr;
    } else {
      const int last = static_cast<int>(a.shape.size()) - 1;
      std::string stride_text = a.offset != kNoExpr ? dim_stride_text(k, a.offset, last) : "";
      contiguity["stride"] = stride_text.empty() ? json(nullptr) : json(stride_text);
      const std::int64_t eb = (a.element_bits + 7) / 8;
      if (ev.first_form[id]) {
        const AffineForm &f = *ev.first_form[id];
        std::int64_t s = f.coeff(last);
        std::int64_t run = (s == 1 || s == -1) ? a.shape.back() : 1;
        contiguity["stride_elements"] = s;
        contiguity["run_bytes"] = Qty::of(static_cast<double>(run * eb)).to_json();
        // Whole-tile contiguity: dims merge while each stride is the size below.
        std::int64_t block = run;
        if (s == 1)
          for (int d = last - 1; d >= 0 && f.coeff(d) == block; --d) block *= a.shape[static_cast<size_t>(d)];
        contiguity["contiguous_block_bytes"] = Qty::of(static_cast<double>(block * eb)).to_json();
      } else if (auto strides = dim_strides(k, a, lv)) {
        // The base is unknown (e.g. offset by a loaded value) but the strides
        // of the tile dimensions are not: contiguity still follows.
        std::int64_t s = strides->back();
        std::int64_t run = (s == 1 || s == -1) ? a.shape.back() : 1;
        contiguity["stride_elements"] = s;
        contiguity["run_bytes"] = Qty::of(static_cast<double>(run * eb)).to_json();
        std::int64_t block = run;
        if (s == 1)
          for (int d = last - 1; d >= 0 && (*strides)[static_cast<size_t>(d)] == block; --d) block *= a.shape[static_cast<size_t>(d)];
        contiguity["contiguous_block_bytes"] = Qty::of(static_cast<double>(block * eb)).to_json();
      } else {
        std::string why = ev.first_form_why[id].empty() ? (a.arg < 0 ? a.base_unknown : "the access does not run")
                                                        : ev.first_form_why[id];
        contiguity["run_bytes"] = Qty::unknown(why).to_json();
        contiguity["contiguous_block_bytes"] = Qty::unknown(why).to_json();
      }
    }
    j["contiguity"] = contiguity;
    add_source(j, a.loc);
    accesses.push_back(std::move(j));
  }
  doc["accesses"] = accesses;

  // --- bytes per direction ---------------------------------------------------
  // Per-program totals: the sum over accesses of executions x bytes.
  json bytes = json::object();
  const double P = static_cast<double>(lv.programs);
  double grand_requested = 0;
  bool grand_known = true;
  bool grand_exact = true;
  double grand_unique = 0;
  bool grand_unique_exact = true;
  std::string grand_unique_why;
  for (int dir = 0; dir < 3; ++dir) {
    const Dist &rq = ev.dir_requested[static_cast<size_t>(dir)];
    bool known = rq.known && rq.weight > 0;
    bool exact = rq.exact;
    std::string why = rq.reason;
    double total = known ? rq.sum : 0;
    bool has_access = false;
    for (const Access &a : k.accesses)
      if (static_cast<int>(direction_of(a)) == dir) has_access = true;
    json d;
    if (!has_access) {
      known = true;
      exact = true;
      Dist zero;
      zero.add(0, P);
      d["requested"] = {{"per_program", zero.to_json()}, {"total", Qty::of(0).to_json()}};
    } else {
      d["requested"] = {{"per_program", rq.to_json()}, {"total", rq.total().to_json()}};
    }
    if (known) grand_requested += total;
    grand_known = grand_known && known;
    grand_exact = grand_exact && exact;
    // Unique bytes: union over the argument's accesses.
    Qty unique_total = Qty::of(0);
    Dist unique_pp_all;
    bool unique_known = true;
    bool unique_exact = true;
    std::string unique_why;
    double unique_pp_sum = 0;
    json by_arg = json::array();
    for (auto &[key, u] : ev.unions) {
      if (key.second != dir) continue;
      double g = union_bytes(u.global);
      json a_j;
      a_j["arg"] = key.first;
      a_j["arg_key"] = k.args[static_cast<size_t>(key.first)].key();
      Qty q = u.complete ? Qty::of(g) : Qty::estimate(g, "lower", u.incomplete_why);
      a_j["unique_total"] = q.to_json();
      Dist pp_u = u.per_program;
      if (!u.complete) pp_u.inexact("lower", u.incomplete_why);
      a_j["unique_per_program"] = pp_u.to_json();
      by_arg.push_back(a_j);
      *unique_total.value += g;
      unique_pp_sum += u.per_program.sum;
      if (!u.complete) {
        unique_exact = false;
        if (unique_why.empty()) unique_why = "argument " + k.args[static_cast<size_t>(key.first)].key() + ": " + u.incomplete_why;
        if (u.incomplete_line > 0)
          add_unresolved("unique bytes of " + k.args[static_cast<size_t>(key.first)].key(), u.incomplete_why,
                         u.incomplete_loc);
      }
    }
    for (const Access &a : k.accesses)
      if (static_cast<int>(direction_of(a)) == dir && a.arg < 0) {
        unique_exact = false;
        if (unique_why.empty()) unique_why = "the " + a.op + " at line " + std::to_string(a.loc.line) + ": " + a.base_unknown;
        add_unresolved("pointer of the " + a.op + " at line " + std::to_string(a.loc.line), a.base_unknown, a.loc);
      }
    Qty ut = unique_exact ? Qty::of(*unique_total.value) : Qty::estimate(*unique_total.value, "lower", unique_why);
    Qty upp = unique_exact ? Qty::of(unique_pp_sum) : Qty::estimate(unique_pp_sum, "lower", unique_why);
    if (!unique_known) ut = Qty::unknown(unique_why);
    d["unique_total"] = ut.to_json();
    d["unique_per_program_sum"] = upp.to_json();
    d["by_arg"] = by_arg;
    grand_unique += *unique_total.value;
    grand_unique_exact = grand_unique_exact && unique_exact;
    if (!unique_exact && grand_unique_why.empty()) grand_unique_why = unique_why;
    bytes[kDirectionName[dir]] = d;
  }
  bytes["requested_total"] =
      (grand_known ? (grand_exact ? Qty::of(grand_requested)
                                  : Qty::estimate(grand_requested, "upper", "a condition could not be decided"))
                   : Qty::unknown("the trip count of a loop is not known"))
          .to_json();
  bytes["unique_total"] = (grand_unique_exact ? Qty::of(grand_unique)
                                              : Qty::estimate(grand_unique, "lower", grand_unique_why))
                              .to_json();
  doc["bytes"] = bytes;

  // --- FLOP and op counts ------------------------------------------------------
  json dots = json::array();
  json reductions = json::array();
  for (size_t idx = 0; idx < k.ops.size(); ++idx) {
    const ComputeOp &op = k.ops[idx];
    const Dist &e = ev.op_exec[idx];
    if (op.cls == OpClass::Cube) {
      dots.push_back({{"op", op.op},
                      {"m", op.m},
                      {"n", op.n},
                      {"k", op.k},
                      {"a_dtype", op.a_dtype},
                      {"b_dtype", op.b_dtype},
                      {"acc_dtype", op.acc_dtype},
                      {"precision", op.precision},
                      {"unit_class", cube_unit(op)},
                      {"flop_per_execution", number(op.flop)},
                      {"executions_per_program", e.to_json()},
                      {"loop", op.loop >= 0 ? json(op.loop) : json(nullptr)}});
      add_source(dots.back(), op.loc);
    }
    if (op.cls == OpClass::Reduction || op.cls == OpClass::Scan) {
      reductions.push_back({{"op", op.op},
                            {"dtype", op.dtype},
                            {"elements", op.elements},
                            {"combine_ops", op.combine_ops},
                            {"detail", op.detail},
                            {"executions_per_program", e.to_json()},
                            {"loop", op.loop >= 0 ? json(op.loop) : json(nullptr)}});
      add_source(reductions.back(), op.loc);
    }
  }
  auto class_json = [&](const std::string &cls) {
    json out = json::object();
    for (const auto &[key, d] : ev.class_work) {
      if (key.first != cls) continue;
      out[key.second] = {{"per_program", d.to_json()}, {"total", d.total().to_json()}};
    }
    return out;
  };
  json flop = json::object();
  double flop_total = 0;
  bool flop_known = true;
  bool flop_exact = true;
  std::string flop_why;
  for (const char *cls : {"cube", "vector", "transcendental", "reduction", "scan"}) {
    flop[cls] = class_json(cls);
    for (const auto &[key, d] : ev.class_work) {
      if (key.first != cls) continue;
      Qty t = d.total();
      if (!t.value) {
        flop_known = false;
        if (flop_why.empty()) flop_why = t.reason;
        continue;
      }
      flop_total += *t.value;
      if (!t.exact) {
        flop_exact = false;
        if (flop_why.empty()) flop_why = t.reason;
      }
    }
  }
  flop["total"] = (flop_known ? (flop_exact ? Qty::of(flop_total) : Qty::estimate(flop_total, "upper", flop_why))
                              : Qty::unknown(flop_why))
                      .to_json();
  // Atomics: elements updated.
  json atomics = json::object();
  for (const Access &a : k.accesses) {
    if (!a.atomic()) continue;
    const Dist &e = ev.access_exec[static_cast<size_t>(a.id)];
    std::string key = a.detail + " " + a.dtype;
    Qty q = e.total();
    if (q.value) *q.value *= static_cast<double>(a.elements());
    atomics[key] = {{"elements_total", q.to_json()}};
    add_source(atomics[key], a.loc);
  }
  flop["atomic"] = atomics;
  doc["flop"] = flop;
  json ops = json::object();
  for (const char *cls : {"scalar", "index", "layout"}) ops[cls] = class_json(cls);
  doc["ops"] = ops;
  doc["dots"] = dots;
  doc["reductions"] = reductions;

  // --- cores, schedule ----------------------------------------------------------
  const bool mix = k.has_dot;
  const std::int64_t cores = mix ? hw.aic : hw.aiv;
  doc["cores"] = {{"type", mix ? "aic" : "aiv"},
                  {"count", cores},
                  {"profile", hw.name},
                  {"why", mix ? "the kernel has tt.dot: it compiles to a mix kernel, one block per AIC with its 2 AIVs, "
                                "cores.aic blocks in flight"
                              : "no tt.dot: a pure vector kernel, one program per AIV (cores.aiv)"}};
  const std::int64_t programs = lv.programs;
  const std::int64_t waves = (programs + cores - 1) / cores;
  const std::int64_t tail = programs - (waves - 1) * cores;
  json schedule;
  schedule["programs"] = programs;
  schedule["cores"] = cores;
  schedule["waves"] = waves;
  schedule["tail_wave_programs"] = tail;
  schedule["occupancy"] = static_cast<double>(programs) / static_cast<double>(waves * cores);
  schedule["programs_per_core"] = {{"min", programs >= cores ? programs / cores : 0}, {"max", waves}};
  schedule["assignment"] =
      "round-robin: program p = x + gx*(y + gy*z) runs on core p mod cores in wave floor(p / cores)";
  // Load balance of the per-program work over the cores.
  auto balance = [&](const std::vector<double> &work, double uniform_work, const char *what) -> std::pair<json, json> {
    std::vector<double> per_core(static_cast<size_t>(std::min(cores, std::max<std::int64_t>(programs, 1))), 0);
    if (ev.uniform) {
      if (!std::isfinite(uniform_work))
        return {Qty::unknown(std::string("the per-program ") + what + " is not known").to_json(),
                Qty::unknown(std::string("the per-program ") + what + " is not known").to_json()};
      if (uniform_work <= 0)
        return {Qty::unknown(std::string("the kernel has no ") + what).to_json(), Qty::of(0).to_json()};
      double mean = static_cast<double>(programs) * uniform_work / static_cast<double>(cores);
      double max = static_cast<double>(waves) * uniform_work;
      return {Qty::of(mean / max).to_json(), Qty::of(max).to_json()};
    }
    if (!ev.counts_known || static_cast<std::int64_t>(work.size()) < programs)
      return {Qty::unknown(ev.counts_why.empty() ? "not every program was evaluated" : ev.counts_why).to_json(),
              Qty::unknown(ev.counts_why.empty() ? "not every program was evaluated" : ev.counts_why).to_json()};
    double total = 0;
    for (size_t p = 0; p < work.size(); ++p) {
      if (std::isnan(work[p]))
        return {Qty::unknown(std::string("the ") + what + " of some program is not known").to_json(),
                Qty::unknown(std::string("the ") + what + " of some program is not known").to_json()};
      per_core[p % per_core.size()] += work[p];
      total += work[p];
    }
    double max = *std::max_element(per_core.begin(), per_core.end());
    if (max <= 0) return {Qty::unknown(std::string("the kernel has no ") + what).to_json(), Qty::of(0).to_json()};
    return {Qty::of(total / static_cast<double>(cores) / max).to_json(), Qty::of(max).to_json()};
  };
  double uniform_bytes = 0;
  double uniform_flop = 0;
  if (ev.uniform) {
    for (const Access &a : k.accesses) {
      const Dist &e = ev.access_exec[static_cast<size_t>(a.id)];
      uniform_bytes = e.known && std::isfinite(uniform_bytes) ? uniform_bytes + e.max * static_cast<double>(a.bytes())
                                                              : std::nan("");
    }
    for (size_t idx = 0; idx < k.ops.size(); ++idx) {
      const Dist &e = ev.op_exec[idx];
      uniform_flop = e.known && std::isfinite(uniform_flop) ? uniform_flop + e.max * k.ops[idx].flop : std::nan("");
    }
  }
  auto [bal_bytes, max_bytes] = balance(ev.program_bytes, uniform_bytes, "requested bytes");
  auto [bal_flop, max_flop] = balance(ev.program_flop, uniform_flop, "FLOP");
  schedule["load_balance"] = {{"bytes", bal_bytes}, {"flop", bal_flop}};
  schedule["busiest_core"] = {{"bytes", max_bytes}, {"flop", max_flop}};
  schedule["uniform_programs"] = ev.uniform;
  schedule["persistent"] = nullptr;
  if (persistent != nullptr) {
    schedule["persistent"] = {{"loop", persistent->id}, {"axis", axis_name(persistent->persistent_axis)}};
    add_source(schedule["persistent"], persistent->loc);
  }
  doc["schedule"] = schedule;

  // --- buffers ------------------------------------------------------------------
  json buffers;
  bool all_ok = true;
  buffers["multibuffer"] = options.multibuffer;
  buffers["ub"] = buffer_json(k, Buffer::UB, "ub", hw.ub, options.multibuffer, all_ok);
  buffers["l1"] = buffer_json(k, Buffer::L1, "l1", hw.l1, options.multibuffer, all_ok);
  buffers["l0c"] = buffer_json(k, Buffer::L0C, "l0c", hw.l0c, options.multibuffer, all_ok);
  buffers["buffer_ok"] = all_ok;
  buffers["model"] =
      mix ? "mix kernel: tiles loaded only for tt.dot operands in L1, dot results and accumulators in L0C, all other "
            "data tiles in UB"
          : "vector kernel: every data tile in UB";
  doc["buffers"] = buffers;

  for (const Unresolved &u : ev.unresolved) add_entry(u);
  for (const json &m : missing)
    // No op line: the argument is declared at the tt.func line.
    add_entry({"launch value of " + m.get<std::string>(),
               "not given in the launch table; quantities that need it are null", 0, k.ttir_line, k.loc.python, ""});
  doc["unresolved"] = unresolved;
  doc["evaluation"] = {{"programs_evaluated", ev.programs_evaluated},
                       {"uniform_programs", ev.uniform},
                       {"row_budget", options.row_budget},
                       {"program_budget", options.program_budget},
                       {"budget_reached", ev.budget_hit}};
  // Ops the analysis does not model: parsed, their work not counted.
  json not_counted = json::array();
  for (const NotCounted &n : k.not_counted) {
    json e{{"op", n.op}, {"reason", n.reason}};
    add_source(e, n.loc);
    not_counted.push_back(std::move(e));
  }
  doc["not_counted"] = not_counted;
  return doc;
}

/// Puts the figure of `given` beside each quantity of `strict` it differs
/// from, as `given` with assurance "given" and the facts it rests on. A
/// quantity is an object with `exact` ({value, exact} or a distribution).
void attach_given(json &strict, const json &given, const json &facts) {
  if (strict.is_object() && given.is_object()) {
    if (strict.contains("exact") && (strict.contains("value") || strict.contains("min"))) {
      if (strict != given) {
        json g = given;
        g["assurance"] = "given";
        g["facts"] = facts;
        strict["given"] = std::move(g);
      }
      return;
    }
    for (auto &[key, value] : strict.items()) {
      if (key == "unresolved" || key == "given") continue;
      auto it = given.find(key);
      if (it != given.end()) attach_given(value, *it, facts);
    }
  } else if (strict.is_array() && given.is_array() && strict.size() == given.size()) {
    for (size_t idx = 0; idx < strict.size(); ++idx) attach_given(strict[idx], given[idx], facts);
  }
}

}  // namespace

json build_dsl_facts(const TtirModule &module, const KernelModel &k, const json &launch, const json &profile,
                     const FactsOptions &options) {
  GivenFacts facts = read_facts(k, launch, module.origin);
  json doc = build_doc(module, k, launch, profile, options, nullptr, nullptr);
  if (facts.empty()) return doc;
  // The strict figures stay; what the facts change is added beside them.
  std::set<std::string> used;
  json given = build_doc(module, k, launch, profile, options, &facts, &used);
  json used_json = json::array();
  for (const std::string &f : used) used_json.push_back(f);
  attach_given(doc, given, used_json);
  doc["given"] = {{"facts", facts.echo},
                  {"used", used_json},
                  {"assurance", "given"},
                  {"note", "figures under `given` hold if the facts hold; the strict figures beside them do not use them"},
                  {"unresolved", given["unresolved"]}};
  return doc;
}

}  // namespace perfbound::ttir
