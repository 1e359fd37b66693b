//===- merge.hpp - one result from the journals of many devices and shards --===//
//
// `perfbound bench merge DIR... -o OUT` and a multi-device `bench run` build
// their result.json the same way: from journals of one plan. Journals must
// agree on the plan part of the fingerprint (plan hash, protocol, shape
// divisor, backend, case ids; the shard may differ) and on the source part
// (the perfbound binary and plugins); the hardware part may differ, that is
// the point. A case recorded by several journals keeps every record: one is
// used (the first ok one, in the order the journals were given), the others
// are listed as replicas (smoke cases, which every shard and every device
// runs on purpose) or duplicates (anything else). Cases no journal recorded
// are listed as missing.
//
// Per device (host, backend, device), the result lists rows, throughput
// (cases per hour of device time) and a sick-card verdict: on cases measured
// on several devices, a device whose latency differs from the median of the
// others by more than kSickCardRatio, or which fails where the others pass,
// disagrees; a device that disagrees on most of its compared cases is
// flagged. With only two devices a disagreement cannot say which one is
// sick, and both are marked suspect instead.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_MERGE_HPP
#define PERFBOUND_TIMING_MERGE_HPP

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pb::bench {

using json = nlohmann::json;
namespace fs = std::filesystem;

/// A latency this many times off the median of the other devices on the
/// same case is a disagreement (either direction).
inline constexpr double kSickCardRatio = 1.5;

struct MergeSource {
  std::string label;          // the journal's path
  json header;                // its perfbound.bench_journal_header/1
  std::vector<json> records;  // its records, file order
  uint64_t torn_bytes = 0;
};

/// The journals of a run directory: DIR/journal.jsonl (a single-device run)
/// and DIR/lanes/*/journal.jsonl (a multi-device run), sorted. Throws
/// pb::sdk::InputError when there is none.
std::vector<fs::path> journals_in(const fs::path &dir);

/// Reads one journal (a torn last line is ignored, as on resume).
MergeSource load_source(const fs::path &journal);

/// The merge key of a source's device: "host/backend:bus_id|unique_id|indexN".
std::string device_key(const json &header);

/// Checks that all sources belong to one plan, protocol and source build.
/// Throws pb::sdk::InputError ("merge refused: ...") naming both journals and
/// what differs.
void check_mergeable(const std::vector<MergeSource> &sources);

struct MergeOptions {
  std::string id;                 // the result's run id
  std::string state;              // empty: "complete" or "incomplete" from the missing cases
  json extra_run = json::object();  // members added to the run object
};

/// The merged perfbound.bench_result/1 document (run.kind = "merged").
json merge_sources(const std::vector<MergeSource> &sources, const MergeOptions &options);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_MERGE_HPP
