//===- examples.hpp - example inputs for `perfbound plugin check` ---------===//
//
// Small documents written by hand in the shape the extractors produce: the
// tutorial vector add (8192 blocks of 2048 f32, one load per operand, one
// vadd, one store) as DSL facts and as a HIVM program, and a profile with
// just the members the models read. Positive examples for every kind, and
// negative ones that must be refused with PB_ERR_INVALID_INPUT.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_EXAMPLES_HPP
#define PERFBOUND_MODELS_EXAMPLES_HPP

#include <perfbound/sdk/plugin.hpp>

namespace pb::models {

void add_examples(pb::sdk::PluginSpec &spec);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_EXAMPLES_HPP
