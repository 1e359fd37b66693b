//===- plugin.cpp - perfbound.extract_ttir: TTIR text -> perfbound.dsl_facts/1
//
// One node kind, `dsl_facts`: parses the TTIR text with MLIR (our `tt`
// dialect), models the kernel the launch names and evaluates it for the
// launch and the hardware profile. A renderer prints the document as text or
// Markdown. MLIR is linked here only: the host loads this library lazily.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/plugin.hpp>

#include "dsl_facts.hpp"
#include "ttir_analysis.hpp"

namespace {

using pb::sdk::json;
using perfbound::ttir::kDslFactsSchema;
using perfbound::ttir::kLaunchSchema;
using perfbound::ttir::kProfileSchema;
using perfbound::ttir::kTtirTextSchema;

class DslFacts : public pb::sdk::Node {
 public:
  explicit DslFacts(const pb::sdk::Params &params) {
    options_.multibuffer = static_cast<int>(params.integer("multibuffer"));
    options_.row_budget = params.integer("row_budget");
    options_.program_budget = params.integer("program_budget");
    const std::string where = "node '" + params.node_id() + "' params";
    const std::string split = params.string("split");
    std::optional<perfbound::ttir::SplitMode> mode = perfbound::ttir::split_mode_named(split);
    if (!mode) throw pb::sdk::InputError(where + ".split: expected auto, on or off, got '" + split + "'");
    split_ = *mode;
    if (options_.multibuffer < 1 || options_.multibuffer > 8)
      throw pb::sdk::InputError(where + ".multibuffer: expected 1 to 8, got " + std::to_string(options_.multibuffer));
    if (options_.row_budget < 1) throw pb::sdk::InputError(where + ".row_budget: expected a positive integer");
    if (options_.program_budget < 1) throw pb::sdk::InputError(where + ".program_budget: expected a positive integer");
  }

  void run(pb::sdk::RunContext &ctx) override {
    std::string_view text = ctx.text_input("ttir");
    std::string origin = ctx.origin("ttir");
    auto module = perfbound::ttir::analyze_ttir(text, origin, split_);
    if (!module) throw pb::sdk::InputError(module.error().message);
    const json &launch = ctx.json_input("launch");
    const json &profile = ctx.json_input("profile");
    const perfbound::ttir::KernelModel &kernel = perfbound::ttir::select_kernel(*module, launch);
    ctx.set_output("facts", perfbound::ttir::build_dsl_facts(*module, kernel, launch, profile, options_));
  }

 private:
  perfbound::ttir::FactsOptions options_;
  perfbound::ttir::SplitMode split_ = perfbound::ttir::SplitMode::Auto;
};

std::optional<std::string> render(std::string_view schema, const json &doc, std::string_view format) {
  if (schema != kDslFactsSchema) return std::nullopt;
  return perfbound::ttir::render_dsl_facts(doc, format);
}

// The shipped example kernel (examples/kernels/vector_add/vector_add.ttir.mlir),
// embedded at build time.
const char *const kVectorAddTtir =
#include "example_vector_add.inc"
    ;

// The members of perfbound.profile/1 this kind reads, with the Ascend 910B3
// values of hardware_profiles/ascend_910b3/profile.toml.
constexpr const char *kExampleProfile = R"({"schema":"perfbound.profile/1","name":"ascend_910b3",
 "cores":{"aic":{"value":20,"unit":"1","source":"profile.toml"},"aiv":{"value":40,"unit":"1","source":"profile.toml"}},
 "buffers":{"ub":{"value":196608,"unit":"B","source":"profile.toml"},"l1":{"value":524288,"unit":"B","source":"profile.toml"},
  "l0a":{"value":65536,"unit":"B","source":"profile.toml"},"l0b":{"value":65536,"unit":"B","source":"profile.toml"},
  "l0c":{"value":131072,"unit":"B","source":"profile.toml"}}})";

constexpr const char *kMalformedTtir = R"(module {
  tt.func public @broken(%arg0: !tt.ptr<f32>) {
    %0 = tt.get_program_id w : i32
    tt.return
  }
}
)";

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.extract_ttir", "TTIR front end (MLIR)", "0.1.0"};
  spec.vendor = "perfbound";
  spec.description =
      "Parses printed Triton TTIR (3.0-3.6, triton-ascend) with MLIR and emits the DSL-level facts of one kernel for "
      "one launch: bytes, FLOP by unit class, loops, schedule over the profile's cores and on-chip buffer footprint.";
  spec.kinds.push_back(pb::sdk::kind<DslFacts>(
      "dsl_facts", "What the Triton program asks for: per-program and total work of one kernel launch",
      {pb::sdk::input("ttir", kTtirTextSchema, "the TTIR text (kernel.asm['ttir'], triton-ascend kernel.ttir.mlir)"),
       pb::sdk::input("launch", kLaunchSchema, "grid and scalar arguments"),
       pb::sdk::input("profile", kProfileSchema, "hardware profile (cores, on-chip buffers)")},
      {pb::sdk::output("facts", kDslFactsSchema, "DSL-level facts")},
      {pb::sdk::param("multibuffer", 2, "copies the compiler keeps of a tile loaded inside a loop"),
       pb::sdk::param("row_budget", 4000000, "contiguous runs enumerated to measure unique bytes"),
       pb::sdk::param("program_budget", 1048576, "programs enumerated when work depends on the program id"),
       pb::sdk::choice_param("split", "auto", {"auto", "on", "off"},
                             "read the text as `// -----` sections, each on its own (lit --split-input-file): "
                             "auto = when it has such a line")}));
  spec.render = render;
  auto example = [&spec](const char *title, const char *ttir, const char *launch, pb_status expected) {
    spec.examples.push_back({"dsl_facts", title, std::nullopt,
                             {{"ttir", kTtirTextSchema, ttir, PB_ENCODING_TEXT},
                              {"launch", kLaunchSchema, launch},
                              {"profile", kProfileSchema, kExampleProfile}},
                             expected});
  };
  example("vector add, BLOCK_SIZE 2048, 16M f32 elements", kVectorAddTtir,
          R"({"schema":"perfbound.launch/1","grid":[8192,1,1],"args":{"n_elements":16777216}})", PB_OK);
  example("TTIR with an unknown grid axis", kMalformedTtir, R"({"schema":"perfbound.launch/1","grid":[1]})",
          PB_ERR_INVALID_INPUT);
  example("a launch argument the kernel does not have", kVectorAddTtir,
          R"({"schema":"perfbound.launch/1","grid":[8192],"args":{"n_elemnts":16777216}})", PB_ERR_INVALID_INPUT);
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
