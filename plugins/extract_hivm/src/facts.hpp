//===- facts.hpp - the user's data facts from the launch document ----------===//
//
// perfbound.launch/1 carries, besides the grid and scalar arguments, facts
// about data the kernel loads: `trips` (trip counts of loops the IR cannot
// count, keyed by dump line) and `data` (the contents of small index tensors,
// inline or from a .npy file). Both are read here; analyze.cpp evaluates them.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_FACTS_HPP
#define PERFBOUND_EXTRACT_HIVM_FACTS_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze.hpp"

namespace pb::hivm {

/// Reads launch.trips and launch.data into the options. Throws std::runtime_error
/// naming the key (`trips."1106".min: ...`) for a malformed fact or an unreadable file.
void apply_launch_facts(const nlohmann::json &launch, AnalysisOptions &options);

/// The elements of an integer .npy file (bool, int8..int64, uint8..uint64; C order), flat.
/// Throws std::runtime_error naming the file for anything else.
std::vector<int64_t> read_npy_integers(const std::string &path);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_FACTS_HPP
