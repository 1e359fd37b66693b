//===- fuzz_sweep.cpp - libFuzzer target: sweep specs -----------------------===//
//
// A `perfbound sweep --configs SPEC.json` spec (a list of configurations or
// a range spec, docs/model.md §8), read as the command reads it: parsed as
// JSON, expanded by SweepModel::expand, evaluated and written as the sweep
// document. The models are built once, as the command builds them, from
// dsl_facts documents of our own (tests/fuzz/data/*.facts.json: `perfbound run
// pipelines/bound_dsl.toml` on examples/kernels/vector_add (an AIV kernel
// with 1-D mask tails) and tests/extract_ttir/kernels/blockptr_matmul.ttir (a
// mix kernel with a symbolic K loop)) and the ascend_910b3 hardware profile
// loaded by the host's load_profile. Every spec runs against both models.
// InputError is the reader refusing the spec.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <perfbound/sdk/json.hpp>

#include "fuzz_target.hpp"
#include "profile.hpp"
#include "rates.hpp"
#include "sweep.hpp"

namespace {

/// A range spec without "max_configs" gets this one (the code path of the
/// command's --max-configs: an even sample instead of every configuration).
/// The allowed 10^6 configurations take ~10 s of CPU per input under ASan,
/// the fuzzer's limit for a hang; larger specs are then sampled, not refused
/// (the refusal is replayed by tests/regress/sweep/product_over_limit.toml).
constexpr uint64_t kFuzzMaxConfigs = 20000;
/// The sweep document is written for at most this many configurations of a
/// spec (every configuration is still expanded and evaluated).
constexpr size_t kDocumentConfigs = 4096;

[[noreturn]] void setup_failed(const std::string &what) {
  std::fprintf(stderr, "fuzz_sweep: setup failed: %s\n", what.c_str());
  std::abort();
}

pb::sdk::json read_json(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) setup_failed(path + ": cannot read");
  pb::sdk::json doc = pb::sdk::json::parse(std::string(std::istreambuf_iterator<char>(in), {}), nullptr, false);
  if (doc.is_discarded()) setup_failed(path + ": not valid JSON");
  return doc;
}

const std::vector<pb::models::SweepModel> &models() {
  static const std::vector<pb::models::SweepModel> *built = [] {
    perfbound::ProfileLoad profile = perfbound::load_profile(PB_SOURCE_DIR "/hardware_profiles/ascend_910b3");
    if (profile.diagnostics.has_errors()) setup_failed(profile.diagnostics.format());
    const pb::models::Rates rates = pb::models::Rates::from_profile(profile.document, "ascend_910b3");
    auto *out = new std::vector<pb::models::SweepModel>;  // never freed: libFuzzer exits without unwinding
    for (const char *name : {"sweep_vector_add.facts.json", "sweep_blockptr_matmul.facts.json"}) {
      const std::string path = std::string(PB_SOURCE_DIR "/tests/fuzz/data/") + name;
      out->push_back(pb::models::SweepModel::build(read_json(path), rates, path));
    }
    return out;
  }();
  return *built;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::vector<pb::models::SweepModel> &all = models();
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  pb::sdk::json spec = pb::sdk::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded()) return 0;  // the command: "not valid JSON"
  if (spec.is_object() && !spec.contains("max_configs")) spec["max_configs"] = kFuzzMaxConfigs;
  for (const pb::models::SweepModel &model : all) {
    try {
      std::vector<pb::models::SweepConfig> configs = model.expand(spec, "fuzz.json");
      if (configs.size() > kDocumentConfigs) {
        for (const pb::models::SweepConfig &c : configs) (void)model.evaluate(c);
        configs.resize(kDocumentConfigs);
      }
      const pb::sdk::json doc = model.run(configs, std::nullopt, 1.5);
      (void)doc.dump(-1, ' ', false, pb::sdk::json::error_handler_t::strict);
    } catch (const pb::sdk::InputError &) {
    }
  }
  return 0;
}
