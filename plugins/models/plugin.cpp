//===- plugin.cpp - the perfbound.models plugin ----------------------------===//
//
// Kinds: one per bound term (grid_floor, component_floor, memory,
// serialization, issue_floor), each emitting perfbound.bound_term/1 from
// DSL facts or a HIVM program plus the profile; `combiner`, which composes
// whatever terms a pipeline wires in into perfbound.bound_report/1 (two
// limits, verdict, attribution, findings); and `sweep`, the DSL-tier bound
// of many launch configurations. Command: `perfbound sweep`.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/plugin.hpp>
#include <perfbound/pb_host_ext_profile.h>

#include <atomic>
#include <map>
#include <mutex>

#include "combine.hpp"
#include "critical_path.hpp"
#include "examples.hpp"
#include "render.hpp"
#include "sweep.hpp"
#include "terms.hpp"

namespace {

using pb::sdk::json;
namespace m = pb::models;

m::Rates read_rates(pb::sdk::RunContext &ctx) {
  return m::Rates::from_profile(ctx.json_input("profile"), ctx.origin("profile"));
}

m::TermOptions options_from(const pb::sdk::Params &params) {
  m::TermOptions o;
  const json &raw = params.raw();
  if (raw.contains("packet_efficiency")) o.packet_efficiency = raw["packet_efficiency"].get<std::string>();
  if (raw.contains("vector_barrier_latency")) o.vector_barrier_latency = raw["vector_barrier_latency"].get<std::string>();
  if (raw.contains("handoff_cycles") && raw["handoff_cycles"].is_number()) o.handoff_cycles = raw["handoff_cycles"].get<double>();
  if (raw.contains("issue_per_cycle")) o.issue_per_cycle = raw["issue_per_cycle"].get<double>();
  if (raw.contains("instruction_count")) o.instruction_count = raw["instruction_count"].get<std::string>();
  if (raw.contains("cache")) o.cache = raw["cache"].get<std::string>();
  if (!(o.issue_per_cycle > 0))
    throw pb::sdk::InputError("node '" + params.node_id() + "': issue_per_cycle must be positive");
  if (raw.contains("handoff_cycles") && !raw["handoff_cycles"].is_null() &&
      !((raw.contains("handoff_cycles") && raw["handoff_cycles"].is_number()) && raw["handoff_cycles"].get<double>() >= 0))
    throw pb::sdk::InputError("node '" + params.node_id() + "': handoff_cycles must be a non-negative number or null");
  return o;
}

/// The HIVM-tier view from whichever of `work` (already aggregated) or
/// `hivm` (the whole program, aggregated here) is connected.
m::HivmView read_view(pb::sdk::RunContext &ctx) {
  if (ctx.has_input("work")) return m::HivmView::from_work(ctx.json_input("work"), ctx.origin("work"));
  return m::HivmView::from_text(ctx.text_input("hivm"), ctx.origin("hivm"));
}

/// `hivm_work`: aggregates a hivm_program once into the perfbound.hivm_work/1
/// document the HIVM-tier terms and the combiner read (docs/model.md §3).
class HivmWork : public pb::sdk::Node {
 public:
  explicit HivmWork(const pb::sdk::CreateContext &) {}
  void run(pb::sdk::RunContext &ctx) override {
    // Aggregated while the text is parsed: the program is never held whole.
    ctx.set_output("work", m::HivmView::from_text(ctx.text_input("hivm"), ctx.origin("hivm")).to_work());
  }
};

/// A term kind: reads the tier it is given (exactly one of `dsl`, `work`,
/// `hivm`).
class TermNode : public pb::sdk::Node {
 public:
  using DslFn = m::Term (*)(const json &, const m::Rates &, const m::TermOptions &, const std::string &);
  using HivmFn = m::Term (*)(const m::HivmView &, const m::Rates &, const m::TermOptions &);
  TermNode(const pb::sdk::CreateContext &cc, std::string kind, DslFn dsl, HivmFn hivm)
      : kind_(std::move(kind)), node_(cc.params.node_id()), options_(options_from(cc.params)), dsl_(dsl), hivm_(hivm) {}

  void run(pb::sdk::RunContext &ctx) override {
    bool has_dsl = dsl_ != nullptr && ctx.has_input("dsl");
    bool has_hivm = ctx.has_input("hivm"), has_work = ctx.has_input("work");
    if (int(has_dsl) + int(has_hivm) + int(has_work) != 1)
      throw pb::sdk::InputError("node '" + ctx.node_id() + "' (" + kind_ + "): connect exactly one of " +
                                (dsl_ != nullptr ? "'dsl' (perfbound.dsl_facts/1), " : "") +
                                "'work' (perfbound.hivm_work/1) or 'hivm' (perfbound.hivm_program/1)");
    m::Rates rates = read_rates(ctx);
    m::Term term;
    if (has_dsl) {
      term = dsl_(ctx.json_input("dsl"), rates, options_, ctx.origin("dsl"));
    } else if (kind_ == "memory" && ctx.has_input("unique")) {
      // The DSL tier's unique bytes per argument cap the HIVM tier's
      // cold-cache floor (docs/model.md §3.3).
      m::TermOptions options = options_;
      options.unique = m::UniqueBytes::from_dsl(ctx.json_input("unique"), ctx.origin("unique"));
      term = hivm_(read_view(ctx), rates, options);
    } else {
      term = hivm_(read_view(ctx), rates, options_);
    }
    term.producer = {{"plugin", "perfbound.models"}, {"kind", kind_}, {"node", node_}};
    ctx.set_output("term", std::move(term).to_json());
  }

 private:
  std::string kind_, node_;
  m::TermOptions options_;
  DslFn dsl_;
  HivmFn hivm_;
};

template <const char *Name, TermNode::DslFn Dsl, TermNode::HivmFn Hivm>
class Kind : public TermNode {
 public:
  explicit Kind(pb::sdk::CreateContext &cc) : TermNode(cc, Name, Dsl, Hivm) {}
};

constexpr char kGrid[] = "grid_floor";
constexpr char kComponent[] = "component_floor";
constexpr char kMemory[] = "memory";
constexpr char kSerial[] = "serialization";
constexpr char kIssue[] = "issue_floor";

using GridFloor = Kind<kGrid, &m::grid_floor_dsl, &m::grid_floor_hivm>;
using ComponentFloor = Kind<kComponent, &m::component_floor_dsl, &m::component_floor_hivm>;
using Memory = Kind<kMemory, &m::memory_dsl, &m::memory_hivm>;
using Serialization = Kind<kSerial, nullptr, &m::serialization_hivm>;
using IssueFloor = Kind<kIssue, nullptr, &m::issue_floor_hivm>;

/// `critical_path`: the longest chain through the block's orderings. It
/// reads the program itself: hivm_work has no op order.
class CriticalPath : public pb::sdk::Node {
 public:
  explicit CriticalPath(const pb::sdk::Params &params) : node_(params.node_id()) {
    const json &raw = params.raw();
    if (raw.contains("latency")) options_.latency = raw["latency"].get<std::string>();
    if (raw.contains("issue_per_cycle")) options_.issue_per_cycle = raw["issue_per_cycle"].get<double>();
  }
  void run(pb::sdk::RunContext &ctx) override {
    m::Rates rates = read_rates(ctx);
    m::Term term = m::critical_path_hivm_text(ctx.text_input("hivm"), ctx.origin("hivm"), ctx.json_input("profile"),
                                              rates, options_);
    term.producer = {{"plugin", "perfbound.models"}, {"kind", "critical_path"}, {"node", node_}};
    ctx.set_output("term", std::move(term).to_json());
  }

 private:
  std::string node_;
  m::CriticalPathOptions options_;
};

class Combiner : public pb::sdk::Node {
 public:
  explicit Combiner(const pb::sdk::Params &params) {
    const json &measured = params.at("measured_us");
    if (measured.is_number()) {
      // At most a year, as every time perfbound reads (validate's range).
      if (!(measured.get<double>() > 0) || measured.get<double>() > 31536000e6)
        throw pb::sdk::InputError("node '" + params.node_id() + "': measured_us is " + measured.dump() +
                                  "; it must be > 0 and at most 31,536,000,000,000 us (a year), or null");
      options_.measured_seconds = measured.get<double>() * 1e-6;
    } else if (!measured.is_null()) {
      throw pb::sdk::InputError("node '" + params.node_id() + "': measured_us must be a number of microseconds or null");
    }
    options_.top_findings = static_cast<int>(params.integer("top_findings"));
  }

  void run(pb::sdk::RunContext &ctx) override {
    m::CombineInputs in;
    uint32_t n = ctx.input_count("terms");
    for (uint32_t idx = 0; idx < n; ++idx) {
      const json &doc = ctx.json_input("terms", idx);
      in.terms.push_back(m::Term::from_json(doc, ctx.origin("terms", idx), m::Term::Read::Numbers));
      in.term_documents.push_back(doc);
    }
    std::optional<m::Rates> rates;
    if (ctx.has_input("profile")) rates = read_rates(ctx);
    std::optional<m::HivmView> view;
    if (ctx.has_input("hivm") && ctx.has_input("work"))
      throw pb::sdk::InputError("node '" + ctx.node_id() + "' (combiner): connect 'work' or 'hivm', not both");
    if (ctx.has_input("hivm") || ctx.has_input("work")) view = read_view(ctx);
    in.hivm = view ? &*view : nullptr;
    in.dsl = ctx.has_input("dsl") ? &ctx.json_input("dsl") : nullptr;
    if (in.dsl != nullptr) in.dsl_origin = ctx.origin("dsl");
    in.rates = rates ? &*rates : nullptr;
    json report = m::combine(std::move(in), options_);
    ctx.set_output("findings", m::findings_document(report));
    ctx.set_output("report", std::move(report));
  }

 private:
  m::CombineOptions options_;
};

// The host, for loading the profile the html roofline draws its ceilings
// from (set once in on_init, before any render call).
std::atomic<const pb_host *> g_host{nullptr};

/// The profile a document names (report: profile.name; sweep: profile), or
/// null when the host cannot load it (the roofline then says so).
std::optional<json> profile_of(const json &doc) {
  const json &p = doc.contains("profile") ? doc["profile"] : json();
  std::string name = p.is_string() ? p.get<std::string>() : p.is_object() ? p.value("name", std::string()) : std::string();
  const pb_host *host = g_host.load();
  if (name.empty() || host == nullptr) return std::nullopt;
  static std::mutex mutex;
  static std::map<std::string, std::optional<json>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const auto *ext = pb::sdk::Host(host).extension<pb_host_ext_profile>(PB_HOST_EXT_PROFILE);
  std::string text;
  std::optional<json> out;
  if (ext != nullptr &&
      ext->load(host, name.c_str(), [](void *d, const char *t, size_t n) { static_cast<std::string *>(d)->append(t, n); }, &text) == PB_OK)
    out = json::parse(text, nullptr, false);
  if (out && out->is_discarded()) out.reset();
  return cache[name] = out;
}

std::optional<std::string> render(std::string_view schema, const json &doc, std::string_view format) {
  if (format != "html") return m::render_document(schema, doc, format, nullptr);
  std::optional<json> profile = profile_of(doc);
  return m::render_document(schema, doc, format, profile ? &*profile : nullptr);
}

std::vector<pb::sdk::PortSpec> term_inputs(bool dsl) {
  // The tier's input: exactly one of these (the host checks it before the run).
  std::vector<pb::sdk::PortSpec> ports;
  if (dsl) ports.push_back(pb::sdk::alternative_input("dsl", m::kDslSchema, "tier", "DSL facts (the DSL tier)"));
  ports.push_back(pb::sdk::alternative_input("work", m::kHivmWorkSchema, "tier",
                                             "HIVM work from a hivm_work node (the HIVM tier, aggregated once per pipeline)"));
  ports.push_back(pb::sdk::alternative_input("hivm", m::kHivmSchema, "tier", "HIVM program (the HIVM tier, aggregated by this node)"));
  ports.push_back(pb::sdk::input("profile", m::kProfileSchema, "hardware profile with its calibration"));
  return ports;
}

std::vector<pb::sdk::PortSpec> term_output() {
  return {pb::sdk::output("term", m::kTermSchema, "the term (perfbound.bound_term/1)")};
}

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.models", "Bound models", "0.1.0"};
  spec.vendor = "perfbound";
  spec.description =
      "Bound terms (grid floor, component floor, memory, serialization, issue floor), the combiner with the two "
      "limits (DSL and HIVM tier), the verdict in msprof's vocabulary, five-way attribution and ranked findings, and "
      "the launch-configuration sweep.";
  spec.kinds.push_back(pb::sdk::kind<HivmWork>(
      "hivm_work", "Aggregates a HIVM program once into the per-core work every HIVM-tier term reads",
      {pb::sdk::input("hivm", m::kHivmSchema, "HIVM program (perfbound.extract_hivm)")},
      {pb::sdk::output("work", m::kHivmWorkSchema, "per-core work by component and class, transfers, barriers, edges, fallbacks")}));
  spec.kinds.push_back(pb::sdk::kind<GridFloor>(
      "grid_floor", "Total work over the cores, with waves and occupancy (DSL or HIVM tier)", term_inputs(true),
      term_output()));
  spec.kinds.push_back(pb::sdk::kind<ComponentFloor>(
      "component_floor", "Busiest core's busy time per component (cube, vector, scalar, MTE1-3, FIXPIPE) (DSL or HIVM)",
      term_inputs(true), term_output(),
      {pb::sdk::param("issue_per_cycle", PB_PARAM_FLOAT, 1.0, "instructions the scalar unit issues per cycle").at_least(0.01).at_most(64)}));
  std::vector<pb::sdk::PortSpec> memory_inputs = term_inputs(true);
  memory_inputs.push_back(pb::sdk::optional_input(
      "unique", m::kDslSchema,
      "DSL facts of the same launch (HIVM tier): each argument's unique bytes cap its DMA bytes in the cold-cache floor; "
      "without them the floor counts no argument's bytes (they may be re-reads)"));
  spec.kinds.push_back(pb::sdk::kind<Memory>(
      "memory", "GM traffic at the occupancy-aware HBM bandwidth with packet efficiency (DSL or HIVM tier)",
      memory_inputs, term_output(),
      {pb::sdk::choice_param("packet_efficiency", "transfer", {"transfer", "none"},
                             "transfer: apply the calibrated packet efficiency at each DMA's size (argued); none: peak only (strict)"),
       pb::sdk::choice_param("cache", "unknown", {"unknown", "cold", "warm"},
                             "L2 state at launch: unknown (the cold-cache HBM floor is argued), cold (a flushed "
                             "measurement: strict), warm (only bytes beyond the L2 cross HBM)")}));
  spec.kinds.push_back(pb::sdk::kind<Serialization>(
      "serialization", "Irreducible serialization added to its component: barrier latency, mandatory handoffs (HIVM)",
      term_inputs(false), term_output(),
      {pb::sdk::choice_param("vector_barrier_latency", "head_latency", {"head_latency", "none"},
                             "head_latency: expose vector.head_latency per pipe_barrier[PIPE_V] (argued); none: strict"),
       pb::sdk::param("handoff_cycles", PB_PARAM_JSON, nullptr,
                      "cycles per mandatory cross-core handoff (diagnostic); null = calibration mandatory_handoff_intercept")}));
  spec.kinds.push_back(pb::sdk::kind<IssueFloor>(
      "issue_floor", "Instructions issued per core by its scalar unit (HIVM)", term_inputs(false), term_output(),
      {pb::sdk::param("issue_per_cycle", PB_PARAM_FLOAT, 1.0, "instructions the scalar unit issues per cycle").at_least(0.01).at_most(64),
       pb::sdk::choice_param("instruction_count", "guaranteed", {"guaranteed", "as_written"},
                             "guaranteed: only instructions the backend cannot remove (strict); as_written: every IR op (argued)")}));
  spec.kinds.push_back(pb::sdk::kind<CriticalPath>(
      "critical_path",
      "Longest chain of work through in-order pipes, PIPE_ALL barriers and set_flag/wait_flag pairs, per block (HIVM)",
      {pb::sdk::input("hivm", m::kHivmSchema, "HIVM program (the op order; hivm_work has none)"),
       pb::sdk::input("profile", m::kProfileSchema, "hardware profile with its calibration")},
      term_output(),
      {pb::sdk::choice_param("latency", "calibrated", {"calibrated", "none"},
                             "calibrated: add the calibration's per-event latencies on the chain (argued); none: "
                             "throughput only (strict)"),
       pb::sdk::param("issue_per_cycle", PB_PARAM_FLOAT, 1.0,
                      "instructions the scalar unit issues per cycle (scalar work on the chain, argued)")
           .at_least(0.01)
           .at_most(64)}));
  spec.kinds.push_back(pb::sdk::kind<Combiner>(
      "combiner", "Composes the terms wired in into the bound report: two limits, verdict, attribution, findings",
      {pb::sdk::multi_input("terms", m::kTermSchema, "every term to compose (any tier, any plugin)"),
       pb::sdk::optional_input("dsl", m::kDslSchema, "DSL facts (kernel name when there is no HIVM)"),
       pb::sdk::optional_input("hivm", m::kHivmSchema, "HIVM program (attribution and findings)"),
       pb::sdk::optional_input("work", m::kHivmWorkSchema, "HIVM work (attribution and findings); or connect 'hivm'"),
       pb::sdk::optional_input("profile", m::kProfileSchema, "hardware profile (attribution rates)")},
      {pb::sdk::output("report", m::kReportSchema, "the bound report"),
       pb::sdk::output("findings", m::kFindingsSchema, "the ranked findings alone, for CI and agents")},
      {pb::sdk::param("measured_us", PB_PARAM_JSON, nullptr, "a measured time (us) to attribute the gap against; null: none"),
       pb::sdk::param("top_findings", PB_PARAM_INT, 10, "how many findings to keep")}));
  spec.kinds.push_back(pb::sdk::kind<m::SweepNode>(
      "sweep", "DSL-tier bounds of many launch configurations (grids, scalar arguments) in closed form",
      {pb::sdk::input("dsl", m::kDslSchema, "DSL facts of one launch of the kernel"),
       pb::sdk::input("profile", m::kProfileSchema, "hardware profile")},
      {pb::sdk::output("sweep", m::kSweepSchema, "each configuration's bound; pruned ones with the term that makes them slower")},
      {pb::sdk::param("configs", PB_PARAM_JSON, json::array(),
                      "configurations: [{grid: [..], args: {..}}, ...] or a range spec (docs/model.md §8)"),
       pb::sdk::param("threshold_us", PB_PARAM_JSON, nullptr, "prune above this time (us), e.g. a measured best; null: use factor"),
       pb::sdk::param("factor", PB_PARAM_FLOAT, 1.5, "without a threshold, prune above factor x the best bound"),
       pb::sdk::choice_param("cache", "unknown", {"unknown", "cold", "warm"},
                             "L2 state of the measurement behind threshold_us: cold adds the cold-cache HBM floor to "
                             "the strict bound a safe pruning compares; unknown/warm leave it out")}));
  spec.commands.push_back({"sweep", "DSL-tier bounds of many launch configurations (autotuner pruning)", m::sweep_command});
  spec.render = render;
  spec.on_init = [](const pb::sdk::Host &host) { g_host.store(host.raw()); };
  m::add_examples(spec);
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
