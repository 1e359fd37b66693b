//===- slurm.hpp - `perfbound bench slurm`: a plan as a Slurm job array ------===//
//
// Writes one sbatch script: an array with one task per shard, each task on
// one node with the devices it asked for, running `bench run --shard I/N
// --devices all --out-dir RUN/shard-I` (with --resume when that shard
// already has journals, so a resubmitted shard continues), and, when run as
// `bash job.sbatch --submit`, the submission itself: the array, then a merge
// job that depends on it (afterany) and runs `bench merge RUN/shard-* -o
// RUN/merged`. `perfbound bench slurm --submit` runs exactly that.
//
// Devices come from Slurm: CPU plans ask for --cpus-per-task=D and the
// task's CPU binding is the device list (the CPU backend's devices are the
// process's affinity mask); CUDA plans ask for --gres=gpu:D and Slurm sets
// CUDA_VISIBLE_DEVICES; ACL plans ask for --gres=npu:D, and the script
// exports the indices Slurm allocated on the node (SLURM_JOB_GPUS when the
// site names NPUs "gpu", else the IDX list `scontrol show job -d` prints for
// the gres) as ASCEND_RT_VISIBLE_DEVICES, after checking they are a list of
// numbers. No scheduler of our own, no ssh.
//
// Names and paths come from the user (a plan called `$(reboot).json`): none
// of them is ever read by a shell as anything but a literal word.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_SLURM_HPP
#define PERFBOUND_TIMING_SLURM_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pb::bench {

namespace fs = std::filesystem;

struct SlurmJob {
  fs::path plan;                       // absolute
  std::string plan_stem;
  std::string backend;                 // the plan's backend name
  uint32_t nodes = 1;                  // array tasks running at once
  uint32_t devices_per_node = 1;
  uint32_t shards = 1;                 // array tasks
  std::string partition;               // empty: the cluster's default
  std::string time;                    // empty: the partition's default
  std::string gres;                    // "" (CPU), "gpu", "npu", or what --gres named
  fs::path run_dir;                    // absolute: RUN/shard-I, RUN/merged, RUN/slurm
  fs::path script;                     // absolute path of the script itself
  fs::path perfbound;                  // absolute path of the perfbound executable
  std::vector<fs::path> plugin_dirs;   // --plugin-path for every command
  std::vector<std::string> run_args;   // extra `bench run` arguments (--case-timeout ...)
};

/// A Slurm time limit as sbatch takes it: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
bool valid_slurm_time(const std::string &text);

/// The gres a backend's devices are requested as ("" for the CPU backend).
std::string default_gres(const std::string &backend);

/// Why `job` cannot be written as a script, or "": a value that must sit in
/// an `#SBATCH` line (run directory, partition) but is not one word there,
/// a time limit sbatch would not read, a gres name that is not a plain name.
/// Everything else (plan, executable and plugin paths, run arguments) is
/// quoted and may hold any character.
std::string slurm_job_problem(const SlurmJob &job);

/// The script's text. Every string from outside on a command line or in an
/// assignment is one single-quoted word (pb::sdk::shell::quote), comments show
/// control characters as '?', and the merge job's --wrap command is quoted
/// word by word and then as a whole. Throws std::invalid_argument with
/// slurm_job_problem's message for a job it refuses.
std::string slurm_script(const SlurmJob &job);

/// The partitions `sinfo` lists, or nullopt (with `why`) when sinfo cannot run.
std::optional<std::vector<std::string>> slurm_partitions(std::string &why);

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_SLURM_HPP
