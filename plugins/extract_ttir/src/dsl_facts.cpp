//===- dsl_facts.cpp - evaluate a kernel model for one launch and profile -===//
//
// The driver of the DSL facts: picks the kernel, reads the launch
// (launch_values.hpp), the profile and the given facts (given_facts.hpp),
// runs the Evaluation (evaluation.hpp: per-program counts, then unique
// bytes) and writes the document section by section (facts_document.hpp:
// schedule and buffers last). With given facts a second evaluation under
// them is put beside the strict figures.
//
//===----------------------------------------------------------------------===//
#include "dsl_facts.hpp"

#include <set>

#include "facts_document.hpp"

namespace perfbound::ttir {

using pb::sdk::InputError;

const KernelModel &select_kernel(const TtirModule &module, const json &launch) {
  auto describe = [](const std::string &name, int line) { return name + ":" + std::to_string(line); };
  std::string wanted;
  if (launch.is_object() && launch.contains("kernel") && launch["kernel"].is_string())
    wanted = launch["kernel"].get<std::string>();
  // "NAME:LINE" (LINE: the tt.func's 1-based line in the whole file) or "NAME".
  std::string wanted_name = wanted;
  int wanted_line = 0;
  if (size_t colon = wanted.rfind(':'); colon != std::string::npos && colon + 1 < wanted.size() &&
                                        wanted.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
                                        wanted.size() - colon - 1 <= 9) {
    wanted_name = wanted.substr(0, colon);
    wanted_line = std::stoi(wanted.substr(colon + 1));
  }
  auto matches = [&](const std::string &name, int line, bool is_public) {
    if (wanted.empty()) return is_public;
    if (wanted_line > 0) return name == wanted_name && line == wanted_line;
    return name == wanted;
  };
  std::vector<const KernelModel *> candidates;
  for (const KernelModel &k : module.kernels)
    if (matches(k.name, k.ttir_line, k.is_public)) candidates.push_back(&k);
  std::vector<const Refusal *> refused;
  for (const Refusal &r : module.refused)
    if (r.name.empty() ? wanted.empty() : matches(r.name, r.line, r.is_public)) refused.push_back(&r);
  if (wanted.empty() && candidates.empty() && refused.empty() && module.kernels.size() == 1)
    return module.kernels.front();
  if (candidates.size() == 1 && refused.empty()) return *candidates.front();
  // A refused function asked for (or the only one there is): MLIR's reason.
  if (candidates.empty() && refused.size() == 1) throw InputError(refused.front()->message);
  if (module.kernels.empty() && module.refused.empty()) throw InputError(module.origin + ": no tt.func in the TTIR");
  std::string list;
  for (const KernelModel &k : module.kernels)
    list += (list.empty() ? "" : ", ") + describe(k.name, k.ttir_line) + (k.is_public ? "" : " (private)");
  for (const Refusal &r : module.refused)
    if (!r.name.empty()) list += (list.empty() ? "" : ", ") + describe(r.name, r.line) + " (refused)";
  if (candidates.empty() && refused.empty())
    throw InputError(module.origin + ": no kernel named '" + wanted + "' (kernels: " + list + ")");
  const size_t n = candidates.size() + refused.size();
  std::string message = module.origin + ": " + std::to_string(n) + " kernels match" +
                        (wanted.empty() ? "" : " '" + wanted + "'") +
                        "; choose one with launch.kernel = \"NAME\" or \"NAME:LINE\" (kernels: " + list + ")";
  if (candidates.empty()) message += "\n" + refused.front()->message;
  throw InputError(message);
}

namespace {

/// The document for one launch; with `facts`, counted under the given facts
/// (the facts that changed a count are added to `used`).
json build_doc(const TtirModule &module, const KernelModel &k, const json &launch, const json &profile,
               const FactsOptions &options, const GivenFacts *facts, std::set<std::string> *used) {
  LaunchValues lv = resolve_launch(k, launch);
  Hardware hw = read_profile(profile);
  const ExprPool &pool = *k.pool;
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
    used->insert(ev.counter().facts_used.begin(), ev.counter().facts_used.end());
  }

  json doc = pb::sdk::make_document(kDslFactsSchema);
  FactsDoc d{module, k, lv, hw, options, ev, doc};
  for (const Unresolved &u : k.unresolved) d.add_entry(u);
  json missing = add_kernel_and_launch(d);
  const Loop *persistent = add_loops(d);
  add_accesses(d);
  add_bytes(d);
  add_work(d);
  add_schedule(d, persistent);
  add_buffers(d);

  for (const Unresolved &u : ev.counter().unresolved) d.add_entry(u);
  for (const json &m : missing)
    // No op line: the argument is declared at the tt.func line.
    d.add_entry({"launch value of " + m.get<std::string>(),
                 "not given in the launch table; quantities that need it are null", 0, k.ttir_line, k.loc.python, ""});
  doc["unresolved"] = d.unresolved;
  doc["evaluation"] = {{"programs_evaluated", ev.programs_evaluated},
                       {"uniform_programs", ev.uniform},
                       {"row_budget", options.row_budget},
                       {"program_budget", options.program_budget},
                       {"budget_reached", ev.unique().budget_hit}};
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
