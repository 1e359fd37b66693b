//===- facts_json.hpp - quantities and locations as JSON ------------------===//
//
// The vocabulary every part of the dsl_facts document is written in: a Qty
// (a number that is exact, an estimate with the side it errs on, or unknown
// with a reason), a Dist (a per-program number over the programs of a
// launch), source locations, unit-class names of compute ops, and the
// direction of a memory access. From: a KernelModel's records only.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_FACTS_JSON_HPP
#define PERFBOUND_EXTRACT_TTIR_FACTS_JSON_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <perfbound/sdk/json.hpp>

#include "kernel_model.hpp"

namespace perfbound::ttir {

using json = pb::sdk::json;

/// An integral double as a JSON integer, anything else as a JSON number.
json number(double v);

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

json loc_json(const SourceLoc &loc);
json line_json(int line);
json python_json(const std::string &python);
/// `source` with the TTIR line and the innermost Python location beside it.
void add_source(json &j, const SourceLoc &loc);
/// An unresolved entry from a source location.
Unresolved unresolved_at(std::string what, std::string reason, const SourceLoc &loc, std::string hint = "");
/// The hint for a loop whose trip count is not known.
std::string trips_hint(const SourceLoc &loc);
/// "x", "y" or "z".
std::string axis_name(int axis);

/// "cube", "vector", ... : the document's name of a unit class.
std::string op_class_name(OpClass c);
/// The cube unit class of a dot by its operand types, e.g. "cube_fp16".
std::string cube_unit(const ComputeOp &op);

enum class Direction { Read = 0, Write = 1, Atomic = 2 };
inline constexpr const char *kDirectionName[] = {"read", "written", "atomic"};
Direction direction_of(const Access &a);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_FACTS_JSON_HPP
