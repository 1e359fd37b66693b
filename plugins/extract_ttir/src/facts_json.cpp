//===- facts_json.cpp - quantities and locations as JSON ------------------===//
//===----------------------------------------------------------------------===//
#include "facts_json.hpp"

namespace perfbound::ttir {

json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return json(static_cast<std::int64_t>(v));
  return json(v);
}

json loc_json(const SourceLoc &loc) {
  if (!loc.known()) return nullptr;
  json j{{"file", loc.file.str()}, {"line", loc.line}, {"col", loc.col}, {"in_ttir", loc.in_ttir}};
  if (!loc.name.empty()) j["name"] = loc.name;
  return j;
}

json line_json(int line) { return line > 0 ? json(line) : json(nullptr); }

json python_json(const std::string &python) { return python.empty() ? json(nullptr) : json(python); }

void add_source(json &j, const SourceLoc &loc) {
  j["source"] = loc_json(loc);
  j["ttir_line"] = line_json(loc.ttir_line);
  j["python_loc"] = python_json(loc.python);
}

Unresolved unresolved_at(std::string what, std::string reason, const SourceLoc &loc, std::string hint) {
  return {std::move(what), std::move(reason), loc.line, loc.ttir_line, loc.python, std::move(hint)};
}

std::string trips_hint(const SourceLoc &loc) {
  return loc.ttir_line > 0 ? "give trips.\"ttir:" + std::to_string(loc.ttir_line) + "\"" : "";
}

std::string axis_name(int axis) {
  static const char *const kAxis[] = {"x", "y", "z"};
  return axis >= 0 && axis < 3 ? kAxis[axis] : "?";
}

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

Direction direction_of(const Access &a) {
  if (a.atomic()) return Direction::Atomic;
  return a.writes() ? Direction::Write : Direction::Read;
}

}  // namespace perfbound::ttir
