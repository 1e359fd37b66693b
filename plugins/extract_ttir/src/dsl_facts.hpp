//===- dsl_facts.hpp - evaluate a kernel model for one launch and profile -===//
//
// Turns a KernelModel (what the Triton program asks for, symbolically) into a
// perfbound.dsl_facts/1 document for one launch (grid + scalar arguments) and
// one hardware profile (core counts, on-chip buffers). The rules are written
// down in docs/extract_ttir.md; every number is exact, an estimate with the
// side it errs on, or null with a reason.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_DSL_FACTS_HPP
#define PERFBOUND_EXTRACT_TTIR_DSL_FACTS_HPP

#include <cstdint>
#include <string>

#include <perfbound/sdk/json.hpp>

#include "kernel_model.hpp"

namespace perfbound::ttir {

inline constexpr const char *kDslFactsSchema = "perfbound.dsl_facts/1";
inline constexpr const char *kTtirTextSchema = "perfbound.ttir_text/1";
inline constexpr const char *kLaunchSchema = "perfbound.launch/1";
inline constexpr const char *kProfileSchema = "perfbound.profile/1";

struct FactsOptions {
  /// Copies the compiler keeps of a tile loaded inside a loop (triton-ascend
  /// multi-buffers such loads by default).
  int multibuffer = 2;
  /// Rows (contiguous runs) enumerated to measure unique bytes; beyond it the
  /// unique figures become lower bounds.
  std::int64_t row_budget = 4'000'000;
  /// Programs enumerated when per-program work depends on the program id.
  std::int64_t program_budget = 1 << 20;
};

/// Picks the kernel to report: launch["kernel"] ("name", or "name:LINE" with
/// LINE the tt.func's 1-based line in the whole file), else the only public
/// kernel. Throws pb::sdk::InputError: MLIR's diagnostic when the kernel
/// asked for (or the only one) was refused (TtirModule::refused); the
/// candidates, refused ones marked, when none or several match.
const KernelModel &select_kernel(const TtirModule &module, const pb::sdk::json &launch);

/// Builds the perfbound.dsl_facts/1 document. Throws pb::sdk::InputError for
/// a launch or profile that cannot be used (wrong types, unknown argument
/// names, given facts the IR contradicts, named with the TTIR file and line);
/// everything else unknown is reported inside the document. With given facts
/// (launch.trips "ttir:N", launch.data) the strict figures stay and each one
/// a fact changes carries a `given` variant beside it.
pb::sdk::json build_dsl_facts(const TtirModule &module, const KernelModel &kernel, const pb::sdk::json &launch,
                              const pb::sdk::json &profile, const FactsOptions &options);

/// Renders a dsl_facts document as "text" or "md"; nullopt for other formats.
std::optional<std::string> render_dsl_facts(const pb::sdk::json &doc, std::string_view format);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_DSL_FACTS_HPP
