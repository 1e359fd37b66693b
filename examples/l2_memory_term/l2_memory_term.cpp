//===- l2_memory_term.cpp - an L2-aware memory term as its own plugin -----===//
//
// Kind `l2_memory` of plugin `example.l2_memory`: the kernel's GM bytes at
// an effective bandwidth that mixes L2 and HBM,
//
//   BW_eff = h x BW_l2 + (1 - h) x BW_hbm,   h = min(1, L2 size / working set)
//   T      = bytes / min(BW_eff, active cores x per-core path rate)
//
// h is the largest share of the working set the L2 can hold, so BW_eff is
// the fastest mix the data could see: a lower bound as long as BW_l2 is an
// upper limit of the L2's rate (the parameter says where it comes from).
// It emits perfbound.bound_term/1 like the built-in terms, so the combiner
// composes it from the pipeline's TOML alone; the host is never rebuilt.
// Built against the installed ABI only (find_package(perfbound)).
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <perfbound/sdk/plugin.hpp>
#include <perfbound/sdk/units.hpp>

namespace {

using pb::sdk::json;
namespace u = pb::units;

std::optional<double> value_at(const json &doc, std::initializer_list<const char *> keys) {
  const json *cur = &doc;
  for (const char *k : keys) {
    if (!cur->is_object() || !cur->contains(k)) return std::nullopt;
    cur = &(*cur)[k];
  }
  if (cur->is_object() && cur->contains("value") && (*cur)["value"].is_number()) return (*cur)["value"].get<double>();
  if (cur->is_number()) return cur->get<double>();
  return std::nullopt;
}

/// GM bytes over the whole grid from a HIVM program: guaranteed per-block
/// DMA bytes on paths with a GM side, times the blocks.
std::optional<double> hivm_gm_bytes(const json &program, std::string &why) {
  std::optional<double> blocks = value_at(program, {"blocks"});
  if (!blocks) {
    why = "the HIVM program has no block count (give launch.grid)";
    return std::nullopt;
  }
  const json &totals = program.contains("totals") ? program["totals"]["per_block_min"] : json();
  double per_block = 0;
  if (totals.is_object())
    for (const auto &[core, t] : totals.items()) {
      if (!t.is_object() || !t.contains("mte") || !t["mte"].is_array()) continue;
      for (const json &m : t["mte"]) {
        std::string path = m.value("path", std::string());
        bool gm = path.rfind("gm_", 0) == 0 || (path.size() > 3 && path.compare(path.size() - 3, 3, "_gm") == 0);
        if (gm && m.contains("bytes") && m["bytes"].is_number()) per_block += m["bytes"].get<double>();
      }
    }
  return per_block * *blocks;
}

class L2Memory : public pb::sdk::Node {
 public:
  explicit L2Memory(const pb::sdk::Params &params)
      : l2_bandwidth_(params.number("l2_bandwidth")), source_(params.string("l2_bandwidth_source")) {
    if (l2_bandwidth_ < 0)
      throw pb::sdk::InputError("node '" + params.node_id() + "': l2_bandwidth must be >= 0 (0: unknown)");
  }

  void run(pb::sdk::RunContext &ctx) override {
    const json &profile = ctx.json_input("profile");
    bool dsl = ctx.has_input("dsl"), hivm = ctx.has_input("hivm");
    if (dsl == hivm)
      throw pb::sdk::InputError("node '" + ctx.node_id() + "' (l2_memory): connect exactly one of 'dsl' or 'hivm'");
    json term = pb::sdk::make_document("perfbound.bound_term/1");
    term["term"] = "l2_memory";
    term["tier"] = dsl ? "dsl" : "hivm";
    term["role"] = "floor";
    term["component"] = "hbm";
    term["core"] = nullptr;
    term["producer"] = {{"plugin", "example.l2_memory"}, {"kind", "l2_memory"}, {"node", ctx.node_id()}};
    term["formula"] = "T = bytes / min(h x BW_l2 + (1 - h) x BW_hbm, active cores x per-core path); h = min(1, L2 / working set)";
    term["not_counted"] = json::array();
    term["per_component"] = json::array();

    std::string why;
    std::optional<double> bytes;
    if (dsl) {
      bytes = value_at(ctx.json_input("dsl"), {"bytes", "unique_total"});
      if (!bytes) why = "the DSL facts have no unique byte count";
    } else {
      bytes = hivm_gm_bytes(ctx.json_input("hivm"), why);
    }
    std::optional<double> l2 = value_at(profile, {"memory", "l2"});
    std::optional<double> hbm = value_at(profile, {"memory", "hbm_bandwidth"});
    if (!l2) why = "the profile has no L2 size (memory.l2 unknown)";
    if (!hbm) why = "the profile has no memory.hbm_bandwidth";
    if (l2_bandwidth_ <= 0) why = "no L2 bandwidth: set the node parameter l2_bandwidth (B/s)";
    term["rates"] = json::array({
        {{"name", "L2 (chip)"}, {"value", l2_bandwidth_ > 0 ? json(l2_bandwidth_) : json(nullptr)}, {"unit", "B/s"},
         {"kind", "theoretical"}, {"source", source_}, {"use", "bound"}},
        {{"name", "HBM (chip)"}, {"value", hbm ? json(*hbm) : json(nullptr)}, {"unit", "B/s"}, {"kind", "theoretical"},
         {"source", "profile:memory.hbm_bandwidth"}, {"use", "bound"}}});
    if (!bytes || !why.empty()) {
      term["value"] = {{"value", nullptr}, {"unit", "s"}, {"reason", why}};
      term["strict_value"] = term["value"];
      term["sound"] = false;
      term["assurance"] = "diagnostic";
      term["work"] = json::object();
      ctx.set_output("term", term);
      return;
    }
    double h = *bytes > 0 ? std::min(1.0, *l2 / *bytes) : 1.0;
    u::BytesPerSecond effective{h * l2_bandwidth_ + (1.0 - h) * *hbm};
    u::Seconds seconds = u::Bytes{*bytes} / effective;
    json value{{"value", seconds.value()}, {"unit", "s"}};
    term["value"] = value;
    term["strict_value"] = value;
    term["sound"] = true;
    term["assurance"] = "strict";
    term["work"] = {{"bytes", *bytes}, {"working_set", *bytes}, {"l2_bytes", *l2}, {"h", h},
                    {"effective_bandwidth", effective.value()}};
    term["per_component"].push_back({{"component", "hbm"}, {"core", nullptr}, {"value", value}, {"strict_value", value},
                                     {"assurance", "strict"}, {"work", term["work"]}, {"rate", nullptr}});
    term["not_counted"].push_back({{"what", "packet efficiency"}, {"reason", "this term models L2 residency only"}});
    ctx.set_output("term", term);
  }

 private:
  double l2_bandwidth_;
  std::string source_;
};

constexpr const char *kProfile = R"({"schema":"perfbound.profile/1","name":"example",
 "memory":{"l2":{"value":201326592,"unit":"B"},"hbm_bandwidth":{"value":1.6e12,"unit":"B/s"}}})";
constexpr const char *kDsl = R"({"schema":"perfbound.dsl_facts/1","bytes":{"unique_total":{"value":402653184,"exact":true}}})";

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"example.l2_memory", "L2-aware memory term", "0.1.0"};
  spec.vendor = "example";
  spec.description = "A memory term that mixes L2 and HBM bandwidth by the share of the working set the L2 can hold.";
  spec.kinds.push_back(pb::sdk::kind<L2Memory>(
      "l2_memory", "GM bytes at h x BW_l2 + (1 - h) x BW_hbm, h = min(1, L2 / working set)",
      {pb::sdk::optional_input("dsl", "perfbound.dsl_facts/1", "DSL facts (unique bytes)"),
       pb::sdk::optional_input("hivm", "perfbound.hivm_program/1", "HIVM program (DMA bytes with a GM side)"),
       pb::sdk::input("profile", "perfbound.profile/1", "memory.l2 and memory.hbm_bandwidth")},
      {pb::sdk::output("term", "perfbound.bound_term/1", "the term")},
      {pb::sdk::param("l2_bandwidth", PB_PARAM_FLOAT, 0.0, "aggregate L2 bandwidth in B/s (0: unknown, the term is null)"),
       pb::sdk::param("l2_bandwidth_source", std::string("parameter l2_bandwidth"), "where the L2 figure comes from")}));
  spec.examples.push_back({"l2_memory", "384 MiB working set, half of it L2-resident",
                           json{{"l2_bandwidth", 4e12}},
                           {{"dsl", "perfbound.dsl_facts/1", kDsl}, {"profile", "perfbound.profile/1", kProfile}},
                           PB_OK});
  spec.examples.push_back({"l2_memory", "neither tier connected (refused)", json{{"l2_bandwidth", 4e12}},
                           {{"profile", "perfbound.profile/1", kProfile}}, PB_ERR_INVALID_INPUT});
  spec.examples.push_back({"l2_memory", "a negative L2 bandwidth (refused at create)", json{{"l2_bandwidth", -1.0}}, {},
                           PB_ERR_INVALID_INPUT, PB_EXAMPLE_AT_CREATE});
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
