//===- bench_plugin.cpp - a trivial plugin, built five times with five ids -===//
//
// BENCH_PLUGIN_ID selects the id, so the host benchmark can discover and load
// five distinct plugins. The "pass" kind forwards the sum of its inputs: the
// cheapest real node, so a 100-node pipeline measures scheduling overhead.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/plugin.hpp>

namespace {

class Pass : public pb::sdk::Node {
 public:
  explicit Pass(const pb::sdk::Params &) {}
  void run(pb::sdk::RunContext &ctx) override {
    double sum = 1;
    for (const pb::sdk::json *doc : ctx.json_inputs("in")) sum += doc->at("value").get<double>();
    pb::sdk::json out = pb::sdk::make_document("perfbound_bench.value/1");
    out["value"] = sum;
    ctx.set_output("out", out);
  }
};

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{BENCH_PLUGIN_ID, "benchmark plugin", "1.0.0"};
  spec.kinds.push_back(pb::sdk::kind<Pass>("pass", "Sums its inputs plus one",
                                           {pb::sdk::multi_input("in", "perfbound_bench.value/1")},
                                           {pb::sdk::output("out", "perfbound_bench.value/1")}));
  // A source needs no inputs: make "in" optional on a second kind.
  spec.kinds.push_back(pb::sdk::kind<Pass>("start", "Emits 1",
                                           {pb::sdk::PortSpec{"in", "perfbound_bench.value/1", PB_PORT_OPTIONAL | PB_PORT_MULTI, "", {}}},
                                           {pb::sdk::output("out", "perfbound_bench.value/1")}));
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
