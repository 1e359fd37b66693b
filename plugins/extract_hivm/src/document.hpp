//===- document.hpp - Program -> perfbound.hivm_program/1 JSON -------------===//
//
// The JSON form of an analyzed program, described member by member in
// abi/schemas/perfbound.hivm_program.v1.schema.json. Also reads the inputs of
// the node kind: the profile (vector repeat bytes, cube fractals, AIV:AIC
// ratio) and the launch document (grid, scalar arguments, kernel name).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_DOCUMENT_HPP
#define PERFBOUND_EXTRACT_HIVM_DOCUMENT_HPP

#include <string>

#include <nlohmann/json.hpp>

#include "analyze.hpp"
#include "program.hpp"

namespace pb::hivm {

constexpr const char *kProgramSchema = "perfbound.hivm_program/1";
constexpr const char *kTextSchema = "perfbound.hivm_text/1";

struct SourceInfo {
  std::string origin;  // the path the text came from
  size_t bytes = 0;
};

/// Writes the perfbound.hivm_program/1 document as JSON text (streaming, no DOM).
std::string to_json_text(const Program &program, const SourceInfo &source, const AnalysisOptions &options);

/// The same document parsed into a DOM (tests, tools).
nlohmann::json to_json(const Program &program, const SourceInfo &source, const AnalysisOptions &options);

/// Fills the profile-derived options from a perfbound.profile/1 document.
/// Throws std::runtime_error naming the member when it is malformed.
void apply_profile(const nlohmann::json &profile, AnalysisOptions &options);

/// Fills the launch-derived options from a perfbound.launch/1 document.
void apply_launch(const nlohmann::json &launch, AnalysisOptions &options);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_DOCUMENT_HPP
