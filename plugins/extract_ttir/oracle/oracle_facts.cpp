//===- oracle_facts.cpp - the oracle's exact counts as a dsl_facts document -===//
//
// MLIR-free. exact_facts writes the members of perfbound.dsl_facts/1 that the
// DSL terms read (plugins/models/src/terms.cpp: launch.programs, cores.type,
// flop.<class>.<key>.{per_program, total}, bytes.<dir>.{unique_total,
// unique_per_program_sum, by_arg[].unique_per_program}, bytes.unique_total),
// every figure exact, so that the same terms give the time an ideal machine
// needs for the oracle's counts.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "oracle_record.hpp"
#include "ttir_oracle.hpp"

namespace perfbound::ttir_oracle {

namespace {

json qty(double v) { return json{{"value", v}, {"exact", true}}; }

json dist(const std::vector<double> &values) {
  Spread s = spread(values);
  return json{{"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"exact", true}};
}

}  // namespace

json exact_facts(const OracleResult &r, const json &profile, bool credit_reuse) {
  json doc;
  doc["schema"] = "perfbound.dsl_facts/1";
  doc["kernel"] = {{"name", r.kernel}, {"ttir_line", r.ttir_line}};
  doc["launch"] = {{"grid", {r.grid[0], r.grid[1], r.grid[2]}},
                   {"programs", r.programs},
                   {"args", json::object()},
                   {"missing_args", json::array()},
                   {"ignored_args", json::array()}};
  std::int64_t cores = 1;
  const char *core_key = r.has_dot ? "aic" : "aiv";
  if (profile.contains("cores") && profile["cores"].contains(core_key)) {
    const json &c = profile["cores"][core_key];
    if (c.is_number()) cores = c.get<std::int64_t>();
    else if (c.is_object() && c.contains("value") && c["value"].is_number()) cores = c["value"].get<std::int64_t>();
  }
  doc["cores"] = {{"type", core_key},
                  {"count", cores},
                  {"profile", profile.value("name", std::string("unknown"))},
                  {"why", "the TTIR oracle: a kernel with tt.dot runs as a mix kernel"}};

  // FLOP by class and key: per program and total.
  json flop = json::object();
  double flop_total = 0;
  for (const char *cls : {"cube", "vector", "transcendental", "reduction", "scan"}) {
    std::map<std::string, std::vector<double>> by_key;
    for (size_t p = 0; p < r.per_program.size(); ++p) {
      auto c = r.per_program[p].work.find(cls);
      if (c == r.per_program[p].work.end()) continue;
      for (const auto &[key, amount] : c->second) {
        std::vector<double> &v = by_key[key];
        v.resize(r.per_program.size(), 0.0);
        v[p] = amount;
      }
    }
    json group = json::object();
    for (const auto &[key, values] : by_key) {
      Spread s = spread(values);
      group[key] = {{"per_program", dist(values)}, {"total", qty(s.sum)}};
      flop_total += s.sum;
    }
    flop[cls] = group;
  }
  flop["atomic"] = json::object();
  flop["total"] = qty(flop_total);
  doc["flop"] = flop;

  // Bytes an ideal machine must move.
  json bytes = json::object();
  double requested_total = 0, all = 0;
  for (int dir = 0; dir < 3; ++dir) {
    std::vector<double> requested, must;
    for (const ProgramFigures &p : r.per_program) {
      requested.push_back(p.requested[static_cast<size_t>(dir)]);
      double touched = 0;
      for (const auto &[key, n] : p.unique)
        if (key.second == dir) touched += static_cast<double>(n);
      must.push_back(credit_reuse ? static_cast<double>(p.must_move[static_cast<size_t>(dir)]) : touched);
    }
    Spread rq = spread(requested), mm = spread(must);
    requested_total += rq.sum;
    double touched_union = 0;
    for (const auto &[key, n] : r.unique_total)
      if (key.second == dir) touched_union += static_cast<double>(n);
    const double launch_union =
        credit_reuse ? static_cast<double>(r.buffer_unique_total[static_cast<size_t>(dir)]) : touched_union;
    const double forced = credit_reuse ? static_cast<double>(r.forced_read) : touched_union;
    json d;
    d["requested"] = {{"per_program", dist(requested)}, {"total", qty(rq.sum)}};
    d["unique_total"] = qty(dir == kRead ? forced : launch_union);
    all += launch_union;
    d["unique_per_program_sum"] = qty(mm.sum);
    d["by_arg"] = json::array({json{{"arg", -1},
                                    {"arg_key", "all (per-buffer union)"},
                                    {"unique_total", qty(launch_union)},
                                    {"unique_per_program", dist(must)}}});
    bytes[kDirectionName[dir]] = d;
  }
  bytes["requested_total"] = qty(requested_total);
  bytes["unique_total"] = qty(all);
  doc["bytes"] = bytes;
  return doc;
}

}  // namespace perfbound::ttir_oracle
