//===- skeleton.cpp - the smallest useful out-of-tree perfbound plugin ----===//
//
// One node kind, "scale": reads a perfbound.bound_term/1-like number document
// and multiplies it. Copy this directory to start a plugin of your own.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/plugin.hpp>

namespace {

class Scale : public pb::sdk::Node {
 public:
  explicit Scale(const pb::sdk::Params &params) : factor_(params.number("factor")) {}

  void run(pb::sdk::RunContext &ctx) override {
    const pb::sdk::json &in = ctx.json_input("in");
    double value = pb::sdk::require_number(in, "value", ctx.origin("in"));
    pb::sdk::json out = pb::sdk::make_document("skeleton.number/1");
    out["value"] = value * factor_;
    ctx.set_output("out", out);
  }

 private:
  double factor_;
};

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"skeleton.example", "Skeleton plugin", "0.1.0"};
  spec.vendor = "you";
  spec.kinds.push_back(pb::sdk::kind<Scale>("scale", "Multiplies a number",
                                            {pb::sdk::input("in", "skeleton.number/1")},
                                            {pb::sdk::output("out", "skeleton.number/1")},
                                            {pb::sdk::param("factor", PB_PARAM_FLOAT, 2.0, "the multiplier")}));
  spec.examples.push_back({"scale", "doubles 21", std::nullopt,
                           {{"in", "skeleton.number/1", R"({"schema":"skeleton.number/1","value":21})"}}, PB_OK});
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
