//===- throwing_plugin.cpp - an SDK plugin whose run() throws -------------===//
//
// The SDK's exception barrier must turn the throw into PB_ERR_INTERNAL plus
// an error message; the host must report the node as failed, keep the
// results of independent nodes, skip dependants and exit non-zero.
//
//===----------------------------------------------------------------------===//
#include <stdexcept>

#include <perfbound/sdk/plugin.hpp>

namespace {

class Boom : public pb::sdk::Node {
 public:
  explicit Boom(const pb::sdk::Params &) {}
  void run(pb::sdk::RunContext &) override { throw std::runtime_error("kaboom: the test plugin threw on purpose"); }
};

class Picky : public pb::sdk::Node {
 public:
  // Rejects a parameter value at create time (the kind validates beyond type).
  explicit Picky(const pb::sdk::Params &p) {
    if (p.integer("level") > 3) throw pb::sdk::InputError("level must be at most 3, got " + std::to_string(p.integer("level")));
  }
  void run(pb::sdk::RunContext &ctx) override {
    auto doc = pb::sdk::make_document("perfbound_test.number/1");
    doc["value"] = 0;
    ctx.set_output("out", doc);
  }
};

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound_test.throwing", "Throwing test plugin", "0.1.0"};
  spec.kinds.push_back(pb::sdk::kind<Boom>("boom", "Throws in run()", {pb::sdk::input("in", "perfbound_test.number/1")},
                                           {pb::sdk::output("out", "perfbound_test.number/1")}));
  spec.kinds.push_back(pb::sdk::kind<Picky>("picky", "Refuses level > 3 at create", {},
                                            {pb::sdk::output("out", "perfbound_test.number/1")},
                                            {pb::sdk::param("level", 1, "at most 3")}));
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
