//===- des_import.hpp - the predecessor's DES graph JSON as a Program ------===//
//
// Interop only: the predecessor's C++ scheduler wrote a "DES graph" JSON
// (schema_version "a3_hivm_des_v1") from a *filtered* dump. import_des()
// turns its records into a Program so that the same document, renderer and
// models can read it, and reports its known defects as warnings: FLOP is 0
// in every record (imported as unknown), bytes are 0 on some loads/stores
// (unknown), `repeat` was computed by the predecessor (recomputed here from
// elements), line numbers refer to the filtered dump, and the filter dropped
// real ops. Never ground truth; the raw dump is.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_DES_IMPORT_HPP
#define PERFBOUND_EXTRACT_HIVM_DES_IMPORT_HPP

#include <string_view>

#include "analyze.hpp"
#include "program.hpp"

namespace pb::hivm {

/// True when `text` is a JSON object carrying "schema_version": "a3_hivm_des_v1".
bool looks_like_des(std::string_view text);

/// Converts a DES graph. Throws SourceError (line of the JSON problem) on malformed input.
Program import_des(std::string_view text, const AnalysisOptions &options);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_DES_IMPORT_HPP
