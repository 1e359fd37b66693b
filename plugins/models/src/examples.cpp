//===- examples.cpp - example inputs for `perfbound plugin check` ---------===//
#include "examples.hpp"

#include "hivm_view.hpp"
#include "term.hpp"

namespace pb::models {

namespace {

constexpr const char *kProfile = R"({"schema":"perfbound.profile/1","name":"example",
 "clock":{"frequency":{"value":1.8e9,"unit":"Hz","source":"example"}},
 "cores":{"aic":{"value":20,"unit":"1","source":"example"},"aiv":{"value":40,"unit":"1","source":"example"},
          "aiv_per_aic":{"value":2,"unit":"1","source":"example"}},
 "vector":{"repeat_bytes":{"value":256,"unit":"B","source":"example"},
           "repeats_per_cycle":{"value":1,"unit":"repeat/cycle","kind":"theoretical","source":"example"},
           "head_latency":{"value":13,"unit":"cycle","kind":"sustained","source":"example"}},
 "memory":{"hbm_bandwidth":{"value":1.6e12,"unit":"B/s","kind":"theoretical","source":"example"},
           "l2":{"value":201326592,"unit":"B","source":"example"}},
 "peak":{"cube_fp16":{"value":8192,"unit":"FLOP/cycle","kind":"theoretical","source":"example"},
         "vector_fp16":{"value":256,"unit":"FLOP/cycle","kind":"theoretical","source":"example"},
         "vector_fp32":{"value":128,"unit":"FLOP/cycle","kind":"theoretical","source":"example"}},
 "paths":{"gm_to_ub":{"value":128,"unit":"B/cycle","kind":"theoretical","source":"example"},
          "ub_to_gm":{"value":128,"unit":"B/cycle","kind":"theoretical","source":"example"},
          "gm_to_l1":{"value":256,"unit":"B/cycle","kind":"theoretical","source":"example"},
          "l0c_to_gm":{"value":128,"unit":"B/cycle","kind":"theoretical","source":"example"}},
 "calibration":null})";

// 8192 blocks x (2 loads of 8 KiB, 1 vadd of 2048 f32 = 32 repeats, 1 store of 8 KiB).
constexpr const char *kHivm = R"({"schema":"perfbound.hivm_program/1",
 "blocks":{"value":8192,"source":"launch.grid product"},
 "functions":[{"index":0,"name":"@add_kernel","core":"aiv","instances_per_block":1}],
 "ops":[
  {"id":0,"function":0,"op":"hivm.hir.load","line":10,"class":"dma","core":"aiv","pipes":["MTE2"],
   "count":{"value":1,"min":1,"max":1,"exact":true},"instructions":{"scalar":0,"issued":1},
   "exec":{"bytes":8192,"packet_bytes":8192,"src":"gm","dst":"ub","path":"gm_to_ub"},"block":{"bytes":8192,"issued_instructions":1}},
  {"id":1,"function":0,"op":"hivm.hir.load","line":11,"class":"dma","core":"aiv","pipes":["MTE2"],
   "count":{"value":1,"min":1,"max":1,"exact":true},"instructions":{"scalar":0,"issued":1},
   "exec":{"bytes":8192,"packet_bytes":8192,"src":"gm","dst":"ub","path":"gm_to_ub"},"block":{"bytes":8192,"issued_instructions":1}},
  {"id":2,"function":0,"op":"hivm.hir.vadd","line":12,"class":"vector_arith","core":"aiv","pipes":["V"],
   "count":{"value":1,"min":1,"max":1,"exact":true},"instructions":{"scalar":0,"issued":1},
   "exec":{"elements":2048,"flop":2048,"repeats":32,"masked_lanes":0,"dtype":"f32"},"block":{"repeats":32,"flop":2048,"issued_instructions":1}},
  {"id":3,"function":0,"op":"hivm.hir.store","line":13,"class":"dma","core":"aiv","pipes":["MTE3"],
   "count":{"value":1,"min":1,"max":1,"exact":true},"instructions":{"scalar":0,"issued":1},
   "exec":{"bytes":8192,"packet_bytes":8192,"src":"ub","dst":"gm","path":"ub_to_gm"},"block":{"bytes":8192,"issued_instructions":1}}],
 "loops":[],"fallbacks":[],"sync":{"barriers":[],"component_edges":[]}})";

constexpr const char *kDsl = R"({"schema":"perfbound.dsl_facts/1",
 "kernel":{"name":"add_kernel"},
 "signature":[{"index":3,"key":"n_elements","kind":"scalar","value":16777216}],
 "launch":{"grid":[8192,1,1],"programs":8192,"args":{"n_elements":16777216}},
 "cores":{"type":"aiv","count":40},
 "loops":[],"dots":[],
 "accesses":[
  {"id":0,"arg":0,"direction":"read","elements":2048,"element_bytes":4,"bytes_per_execution":8192,"shape":[2048],
   "executions_per_program":{"min":1,"max":1,"mean":1,"exact":true},"loop":null,"offset":"2048*pid_x + i0",
   "mask":{"expr":"2048*pid_x + i0 < n_elements","bounds":["n_elements"]}},
  {"id":1,"arg":1,"direction":"read","elements":2048,"element_bytes":4,"bytes_per_execution":8192,"shape":[2048],
   "executions_per_program":{"min":1,"max":1,"mean":1,"exact":true},"loop":null,"offset":"2048*pid_x + i0",
   "mask":{"expr":"2048*pid_x + i0 < n_elements","bounds":["n_elements"]}},
  {"id":2,"arg":2,"direction":"written","elements":2048,"element_bytes":4,"bytes_per_execution":8192,"shape":[2048],
   "executions_per_program":{"min":1,"max":1,"mean":1,"exact":true},"loop":null,"offset":"2048*pid_x + i0",
   "mask":{"expr":"2048*pid_x + i0 < n_elements","bounds":["n_elements"]}}],
 "bytes":{"unique_total":{"value":201326592,"exact":true},
  "read":{"unique_total":{"value":134217728,"exact":true},"unique_per_program_sum":{"value":134217728,"exact":true},
          "by_arg":[{"arg":0,"unique_total":{"value":67108864,"exact":true},"unique_per_program":{"min":8192,"exact":true}},
                    {"arg":1,"unique_total":{"value":67108864,"exact":true},"unique_per_program":{"min":8192,"exact":true}}]},
  "written":{"unique_total":{"value":67108864,"exact":true},"unique_per_program_sum":{"value":67108864,"exact":true},
          "by_arg":[{"arg":2,"unique_total":{"value":67108864,"exact":true},"unique_per_program":{"min":8192,"exact":true}}]}},
 "flop":{"vector":{"f32":{"per_program":{"min":2048,"max":2048,"mean":2048,"exact":true},"total":{"value":16777216,"exact":true}}}}})";

std::string example_term() {
  return R"({"schema":"perfbound.bound_term/1","term":"memory","tier":"hivm","role":"floor",
   "value":{"value":1.6e-4,"unit":"s"},"strict_value":{"value":1.25e-4,"unit":"s"},"assurance":"argued","sound":false,
   "component":"hbm","core":null,"per_component":[{"component":"hbm","core":null,"value":{"value":1.6e-4,"unit":"s"},
   "strict_value":{"value":1.25e-4,"unit":"s"},"assurance":"argued"}],"rates":[],"work":{},"not_counted":[]})";
}

}  // namespace

void add_examples(pb::sdk::PluginSpec &spec) {
  using pb::sdk::ExampleInputSpec;
  const ExampleInputSpec profile{"profile", kProfileSchema, kProfile, PB_ENCODING_JSON};
  const ExampleInputSpec hivm{"hivm", kHivmSchema, kHivm, PB_ENCODING_JSON};
  const ExampleInputSpec dsl{"dsl", kDslSchema, kDsl, PB_ENCODING_JSON};
  for (const char *kind : {"grid_floor", "component_floor", "memory"}) {
    spec.examples.push_back({kind, "vector add, HIVM tier", std::nullopt, {hivm, profile}, PB_OK});
    spec.examples.push_back({kind, "vector add, DSL tier", std::nullopt, {dsl, profile}, PB_OK});
    spec.examples.push_back({kind, "both tiers at once (refused)", std::nullopt, {dsl, hivm, profile}, PB_ERR_INVALID_INPUT});
  }
  for (const char *kind : {"serialization", "issue_floor"})
    spec.examples.push_back({kind, "vector add, HIVM tier", std::nullopt, {hivm, profile}, PB_OK});
  // The aggregated work document of the same program, as the hivm_work node writes it.
  const ExampleInputSpec work{"work", kHivmWorkSchema, HivmView::from_json(pb::sdk::json::parse(kHivm), "example").to_work().dump(),
                              PB_ENCODING_JSON};
  spec.examples.push_back({"hivm_work", "vector add program", std::nullopt, {hivm}, PB_OK});
  spec.examples.push_back({"hivm_work", "a program without functions (refused)", std::nullopt,
                           {{"hivm", kHivmSchema, R"({"schema":"perfbound.hivm_program/1","ops":[]})", PB_ENCODING_JSON}},
                           PB_ERR_INVALID_INPUT});
  for (const char *kind : {"grid_floor", "component_floor", "memory", "serialization", "issue_floor"})
    spec.examples.push_back({kind, "vector add, aggregated HIVM work", std::nullopt, {work, profile}, PB_OK});
  spec.examples.push_back({"issue_floor", "work and program at once (refused)", std::nullopt, {work, hivm, profile},
                           PB_ERR_INVALID_INPUT});
  spec.examples.push_back({"issue_floor", "a profile without a clock (refused)", std::nullopt,
                           {hivm, {"profile", kProfileSchema, R"({"schema":"perfbound.profile/1","name":"x"})", PB_ENCODING_JSON}},
                           PB_ERR_INVALID_INPUT});
  spec.examples.push_back({"combiner", "one HIVM memory term", std::nullopt,
                           {{"terms", kTermSchema, example_term(), PB_ENCODING_JSON}, hivm, profile}, PB_OK});
  spec.examples.push_back({"combiner", "one HIVM memory term, aggregated work", std::nullopt,
                           {{"terms", kTermSchema, example_term(), PB_ENCODING_JSON}, work, profile}, PB_OK});
  spec.examples.push_back({"combiner", "a term without a tier (refused)", std::nullopt,
                           {{"terms", kTermSchema, R"({"schema":"perfbound.bound_term/1","term":"x","role":"floor","value":{"value":1,"unit":"s"}})",
                             PB_ENCODING_JSON}},
                           PB_ERR_INVALID_INPUT});
  spec.examples.push_back({"sweep", "vector add over n", pb::sdk::json{{"configs", {{"args", {{"n_elements", {1048576, 16777216}}}},
                                                                               {"grid_from", {{"x", "cdiv(n_elements, 2048)"}}}}}},
                           {dsl, profile}, PB_OK});
  spec.examples.push_back({"sweep", "an argument the kernel does not have (refused)",
                           pb::sdk::json{{"configs", {{{"args", {{"m", 1}}}}}}}, {dsl, profile}, PB_ERR_INVALID_INPUT});
}

}  // namespace pb::models
