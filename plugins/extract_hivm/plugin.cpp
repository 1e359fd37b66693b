//===- plugin.cpp - the perfbound.extract_hivm plugin ----------------------===//
//
// Kind `hivm_program`: a raw HIVM dump (kernel.npuir.mlir, perfbound.hivm_text/1)
// plus the hardware profile and, optionally, the launch values in; one
// perfbound.hivm_program/1 document out. The same text port also accepts the
// predecessor's DES graph JSON (schema_version "a3_hivm_des_v1") for interop.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/plugin.hpp>

#include <algorithm>

#include "analyze.hpp"
#include "des_import.hpp"
#include "document.hpp"
#include "ir.hpp"
#include "render.hpp"
#include "vector_add_example.hpp"

namespace {

using pb::sdk::json;

constexpr const char *kProfileSchema = "perfbound.profile/1";
constexpr const char *kLaunchSchema = "perfbound.launch/1";
constexpr const char *kDslSchema = "perfbound.dsl_facts/1";

/// Triton argument names by position, from the TTIR extractor's signature:
/// the HIVM dump carries no names, so launch.args keyed by name reach the
/// HIVM tier through this edge.
void apply_signature(const json &facts, pb::hivm::AnalysisOptions &options, const std::string &origin) {
  if (!facts.is_object() || !facts.contains("signature") || !facts["signature"].is_array()) return;
  for (const json &arg : facts["signature"]) {
    if (!arg.is_object() || !arg.contains("index") || !arg["index"].is_number_integer()) continue;
    if (arg.contains("name") && arg["name"].is_string()) options.arg_names[arg["name"].get<std::string>()] = arg["index"].get<int64_t>();
  }
  std::string kernel;
  if (facts.contains("kernel") && facts["kernel"].is_object() && facts["kernel"].contains("name") && facts["kernel"]["name"].is_string())
    kernel = facts["kernel"]["name"].get<std::string>();
  options.arg_names_source = "the TTIR signature" + (kernel.empty() ? std::string() : " of " + kernel) + " (" + origin + ")";
}

class HivmProgram : public pb::sdk::Node {
 public:
  explicit HivmProgram(const pb::sdk::Params &params) {
    const std::string split = params.string("split");
    split_ = split == "on" ? pb::hivm::SplitMode::On : split == "off" ? pb::hivm::SplitMode::Off : pb::hivm::SplitMode::Auto;
  }

  void run(pb::sdk::RunContext &ctx) override {
    std::string_view text = ctx.text_input("hivm");
    const std::string origin = ctx.origin("hivm");
    pb::hivm::AnalysisOptions options;
    options.split = split_;
    try {
      pb::hivm::apply_profile(ctx.json_input("profile"), options);
    } catch (const std::exception &e) {
      throw pb::sdk::InputError(ctx.origin("profile") + ": " + e.what());
    }
    if (ctx.has_input("dsl")) apply_signature(ctx.json_input("dsl"), options, ctx.origin("dsl"));
    if (ctx.has_input("launch")) {
      try {
        pb::hivm::apply_launch(ctx.json_input("launch"), options);
      } catch (const std::exception &e) {
        throw pb::sdk::InputError(ctx.origin("launch") + ": " + e.what());
      }
    }
    // TTIR given where the HIVM dump goes: say which file is which instead
    // of a parse error deep in the text.
    if (const size_t tt = text.find("tt.func"); tt != std::string_view::npos && text.find("func.func") == std::string_view::npos) {
      const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(tt), '\n');
      throw pb::sdk::InputError(origin + ":" + std::to_string(line) +
                                ": this is TTIR (kernel.ttir.mlir, tt.func), not a HIVM dump: give it as --set ttir=" + origin +
                                " and the HIVM (kernel.npuir.mlir, func.func with hivm ops) as --set hivm=...");
    }
    pb::hivm::Program program;
    try {
      program = pb::hivm::looks_like_des(text) ? pb::hivm::import_des(text, options)
                                               : pb::hivm::analyze_text(text, options);
    } catch (const pb::hivm::SourceError &e) {
      throw pb::sdk::InputError(origin + ":" + std::to_string(e.line()) + ":" + std::to_string(e.col()) + ": " + e.what());
    } catch (const pb::hivm::FactError &e) {
      throw pb::sdk::InputError(ctx.origin("launch") + ": " + e.what());
    }
    // A launch argument that matched nothing is the user's mistake, not a
    // fact of the dump: say it on the console as well as in the document.
    for (const std::string &warning : program.warnings)
      if (warning.rfind("launch argument", 0) == 0 || warning.rfind("launch data", 0) == 0) ctx.warn(ctx.origin("launch") + ": " + warning);
    std::string document = pb::hivm::to_json_text(program, {origin, text.size()}, options);
    // The host copies the text: release the op records first, or they, the text and its
    // copy are alive together (26x the dump at the peak instead of 18x).
    program = pb::hivm::Program();
    ctx.set_output_text("program", document);
  }

 private:
  pb::hivm::SplitMode split_ = pb::hivm::SplitMode::Auto;
};

std::optional<std::string> render(std::string_view schema, const json &doc, std::string_view format) {
  if (schema != pb::hivm::kProgramSchema) return std::nullopt;
  return pb::hivm::render_program(doc, format);
}

// A profile with just what the kind reads, for the examples.
constexpr const char *kExampleProfile = R"({"schema":"perfbound.profile/1",
  "cores":{"aic":{"value":20,"unit":"1","source":"example"},"aiv":{"value":40,"unit":"1","source":"example"}},
  "vector":{"repeat_bytes":{"value":256,"unit":"B","source":"example"}},
  "cube":{"fractal":{"bf16":{"m":16,"k":16,"n":16,"source":"example"}}}})";

constexpr const char *kExampleLaunch =
    R"({"schema":"perfbound.launch/1","grid":[8192],"args":{"3":16777216}})";

// Cut off in the middle of an operand list: must fail with the line of the '(' left open.
constexpr const char *kGarbledDump = R"(// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @k(%arg0: memref<?xf32, #hivm.address_space<gm>>) {
  %c0_i64 = arith.constant 0 : i64
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%arg0 : memref<?xf32, #hivm.address_space<gm>>) outs(%0 : memref<64xf32,
)";

constexpr const char *kExampleDes = R"({"schema_version":"a3_hivm_des_v1","clock_ghz":1.85,"operations":[
 {"id":0,"name":"load","pipe":"PIPE_MTE2_V","line":3,"bytes":512,"elements":128,"flops":0,"loop_multiplier":4,
  "core_type":"VECTOR","src_space":"gm","dst_space":"ub","elem_type":"f32","event_id":"","sender_pipe":"PIPE_UNKNOWN",
  "receiver_pipe":"PIPE_UNKNOWN","read_buffers":[],"write_buffers":["%1 : memref<128xf32, #hivm.address_space<ub>>"]},
 {"id":1,"name":"vadd","pipe":"PIPE_V","line":4,"bytes":512,"elements":128,"flops":0,"loop_multiplier":4,
  "core_type":"VECTOR","elem_type":"f32","event_id":"","sender_pipe":"PIPE_UNKNOWN","receiver_pipe":"PIPE_UNKNOWN",
  "read_buffers":["%1 : memref<128xf32, #hivm.address_space<ub>>"],"write_buffers":[]}]})";

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.extract_hivm", "HIVM extractor", "0.1.0"};
  spec.vendor = "perfbound";
  spec.description =
      "Reads the post-sync HIVM that triton-ascend dumps as kernel.npuir.mlir (TRITON_DEBUG=1) with its own MLIR "
      "parser (no libMLIR) and produces per-op pipe/core records, bytes, vector repeats, cube FLOP, scalar and "
      "issued instructions, loop multipliers, handoffs, barriers and component edges.";
  spec.kinds.push_back(pb::sdk::kind<HivmProgram>(
      "hivm_program",
      "A raw HIVM dump to op records, per-block totals per core and pipe, and synchronisation (perfbound.hivm_program/1)",
      {pb::sdk::input("hivm", pb::hivm::kTextSchema,
                      "the raw kernel.npuir.mlir text (or a predecessor DES graph JSON, imported with warnings)"),
       pb::sdk::input("profile", kProfileSchema, "vector.repeat_bytes, cores.aic/aiv (AIV instances per block), cube.fractal"),
       pb::sdk::optional_input("launch", kLaunchSchema,
                               "grid and Triton scalar arguments (\"%argN\"/\"N\") for dynamic sizes, trip counts and the block count; "
                               "trips (trip-count facts by dump line) and data (index tensor contents) for loops on loaded data"),
       pb::sdk::optional_input("dsl", kDslSchema,
                               "the TTIR extractor's facts of the same kernel: their signature names the Triton arguments, so "
                               "launch.args and launch.data may be keyed by name")},
      {pb::sdk::output("program", pb::hivm::kProgramSchema, "the analyzed program")},
      {pb::sdk::choice_param("split", "auto", {"auto", "on", "off"},
                             "lit files: cut the input at its '// -----' lines (mlir-opt --split-input-file) and "
                             "analyse one input, the one holding launch.kernel (\"NAME\" or \"NAME:LINE\"); auto: when "
                             "the file has such a line")}));
  spec.render = render;
  spec.examples.push_back({"hivm_program",
                           "the bundled vector_add dump, n = 16M",
                           std::nullopt,
                           {{"hivm", pb::hivm::kTextSchema, pb::hivm::kVectorAddExample, PB_ENCODING_TEXT},
                            {"profile", kProfileSchema, kExampleProfile},
                            {"launch", kLaunchSchema, kExampleLaunch}},
                           PB_OK});
  spec.examples.push_back({"hivm_program",
                           "a truncated dump (an operand list left open)",
                           std::nullopt,
                           {{"hivm", pb::hivm::kTextSchema, kGarbledDump, PB_ENCODING_TEXT},
                            {"profile", kProfileSchema, kExampleProfile}},
                           PB_ERR_INVALID_INPUT});
  spec.examples.push_back({"hivm_program",
                           "a predecessor DES graph (interop)",
                           std::nullopt,
                           {{"hivm", pb::hivm::kTextSchema, kExampleDes, PB_ENCODING_TEXT},
                            {"profile", kProfileSchema, kExampleProfile}},
                           PB_OK});
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
