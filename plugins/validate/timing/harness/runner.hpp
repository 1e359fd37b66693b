//===- runner.hpp - `perfbound bench run`: the process that owns the journal -===//
//
// The runner never touches the device itself. It loads the plan, fingerprints
// the run, locks the device, and hands one case at a time to a worker process
// (`perfbound bench worker`, a fresh exec of this same binary in its own
// process group). Each case has a deadline; on expiry the worker's whole
// process group is killed, the case is recorded as "timeout", and the next
// case gets a new worker. Around every case it consults the health gate, and
// after every case it appends the row to the journal (fsync) and rewrites
// result.json and summary.md.
//
// Why exec rather than fork: the runner has loaded plugins, OpenBLAS thread
// pools or a GPU runtime may live in it, and neither survives fork() in a
// multithreaded process; a fresh exec gives the worker a clean process with
// its own device context, and the same binary guarantees the same plugins.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_RUNNER_HPP
#define PERFBOUND_TIMING_RUNNER_HPP

#include <filesystem>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include <optional>
#include <vector>

#include <perfbound/sdk/plugin.hpp>

#include "shard.hpp"

namespace pb::bench {

/// A command-line mistake (exit 2), as opposed to bad input files (exit 3).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  std::filesystem::path plan_path;
  std::filesystem::path out_dir;
  bool resume = false;
  uint32_t device_index = 0;
  /// --devices: one lane per device, under out_dir/lanes/ (empty: a
  /// single-device run on device_index, writing to out_dir itself).
  std::vector<uint32_t> devices;
  bool all_devices = false;          // --devices all
  std::optional<ShardSpec> shard;    // --shard I/N
  std::vector<std::string> smi_devices;  // --smi-device per --devices entry
  double case_timeout_s = 600;
  double cooldown_s = 0;
  std::string health_tool = "none";  // none | npu-smi | nvidia-smi
  std::string smi_program;           // defaults to the tool's name
  std::string smi_device;            // "NPU[:CHIP]"; defaults to the device index
  double idle_interval_s = 1.0;
  double idle_timeout_s = 60;
  double health_interval_s = 2.0;
  std::filesystem::path lock_dir;    // defaults to $PERFBOUND_LOCK_DIR or /tmp/perfbound-locks
  bool keep_going = false;           // run the measure phase even after a smoke failure
  bool progress = true;
  std::string format = "text";       // of the final report on stdout
};

/// Runs a plan. Returns the exit code (docs/cli.md): 0 every case ok or
/// skipped, 1 some case failed or the smoke phase stopped the run, 130
/// interrupted. Throws UsageError, pb::sdk::InputError (bad plan, refused
/// resume) and pb::sdk::InfraError (no device, device locked).
int run_plan(const pb::sdk::Host &host, const RunOptions &options, std::ostream &out, std::ostream &progress);

/// The hidden `perfbound bench worker` loop: opens the device, then measures
/// one case per request line on stdin, answering on fd 3.
int worker_main(const pb::sdk::Host &host, const std::string &backend_plugin, uint32_t device_index);

/// The bench plugin's version (recorded in fingerprints and results).
inline constexpr const char *kBenchVersion = "0.1.0";

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_RUNNER_HPP
