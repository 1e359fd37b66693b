//===- given_facts.hpp - launch.trips and launch.data ---------------------===//
//
// The facts a user may give about loaded data (docs/extract_ttir.md, 3a):
// trips."ttir:N" (min / max / sum of the trips of the loop at TTIR line N)
// and data.ARG (the integers a pointer argument points to, inline or from a
// .npy file). From: the launch table and the kernel's loops and arguments;
// a fact that names no loop or no integer pointer is refused with the file
// and line.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_GIVEN_FACTS_HPP
#define PERFBOUND_EXTRACT_TTIR_GIVEN_FACTS_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "facts_json.hpp"

namespace perfbound::ttir {

/// A user-given fact about the trips of the loop at one TTIR line.
struct TripFact {
  std::string key;  // trips."ttir:N"
  int line = 0;
  std::optional<std::int64_t> min, max, sum;
  bool grid = false;  // sum over the whole grid (else per block)
};

struct GivenFacts {
  std::map<int, TripFact> trips;                  // by TTIR line
  std::map<int, std::vector<std::int64_t>> data;  // by argument index
  std::map<int, std::string> data_key;            // argument index -> data."key"
  json echo = json::array();                      // every fact as given
  [[nodiscard]] bool empty() const { return trips.empty() && data.empty(); }
};

/// Reads launch.trips (keys "ttir:N"; other keys are HIVM lines and are left
/// to that extractor) and launch.data.
GivenFacts read_facts(const KernelModel &k, const json &launch, const std::string &origin);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_GIVEN_FACTS_HPP
