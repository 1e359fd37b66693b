//===- testlist.hpp - OperatorX testlists: parsing and per-entry validation -===//
//
// A testlist is a JSON array of {type, args, sources[], name[]} (OperatorX
// operatorx/testlists/*.json; format in research/timing.md §1.1). A file that
// is not a JSON array is refused as a whole; an entry that is malformed or
// asks for something the harness cannot measure becomes an error entry with a
// reason naming the file, the line and the member, and is never measured.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_TESTLIST_HPP
#define PERFBOUND_TIMING_TESTLIST_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dtype.hpp"

namespace pb::bench {

using json = nlohmann::json;

struct GemmShape {
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
  Dtype a = Dtype::kFp32;
  Dtype b = Dtype::kFp32;
  Dtype out = Dtype::kFp32;
};

struct TestlistEntry {
  size_t index = 0;
  int line = 0;          // 1-based line where the entry starts
  json raw;              // the entry as written
  std::string type;      // "" when absent
  std::vector<std::string> sources;
  std::vector<std::string> roles;  // the entry's "name" list
  std::optional<GemmShape> gemm;   // set when the entry is valid
  json tiling;                     // args.tiling, or null
  std::string error;               // non-empty: "file:line: entry N: why"
};

struct Testlist {
  std::filesystem::path path;
  std::string sha256;
  std::vector<TestlistEntry> entries;
};

/// Reads and validates a testlist. Throws pb::sdk::InputError (with
/// "path:line:") when the file is unreadable, not JSON or not an array.
Testlist load_testlist(const std::filesystem::path &path);
/// The same, from text already in memory (`origin` names it in messages).
Testlist parse_testlist(const std::string &text, const std::filesystem::path &origin);

/// 1-based line numbers where each element of a top-level JSON array starts.
/// Empty when `text` does not start with an array. Only meaningful for text
/// that parses as JSON.
std::vector<int> array_element_lines(const std::string &text);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_TESTLIST_HPP
