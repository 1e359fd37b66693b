//===- schedule.cpp - cores and schedule sections -------------------------===//
//
// Which cores run the programs (a kernel with tt.dot is a mix kernel, one
// block per AIC; otherwise one program per AIV), the waves of a round-robin
// assignment over them, and the load balance of the per-program requested
// bytes and FLOP over the cores (from the Evaluation's per-program figures,
// or one program times the grid when programs are uniform).
//
#include "facts_document.hpp"

namespace perfbound::ttir {

void add_schedule(FactsDoc &fd, const Loop *persistent) {
  const KernelModel &k = fd.k;
  const LaunchValues &lv = fd.lv;
  const Hardware &hw = fd.hw;
  Evaluation &ev = fd.ev;
  const bool mix = k.has_dot;
  const std::int64_t cores = mix ? hw.aic : hw.aiv;
  fd.doc["cores"] = {{"type", mix ? "aic" : "aiv"},
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
  fd.doc["schedule"] = schedule;
}

}  // namespace perfbound::ttir
