//===- process.hpp - child processes, the watchdog, device locks, files -----===//
//
// POSIX plumbing for the harness: running the SMI tool without a shell,
// spawning a worker in its own process group (so the watchdog can kill it and
// everything it started), flock()-based device locks that die with their
// holder, and durable file writes.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_PROCESS_HPP
#define PERFBOUND_TIMING_PROCESS_HPP

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pb::bench {

namespace fs = std::filesystem;

struct CaptureResult {
  bool started = false;     // false: could not run the program (see error)
  bool timed_out = false;   // killed after the deadline
  int exit_code = -1;       // when it exited normally
  int signal = 0;           // when a signal ended it
  std::string out;
  std::string err;
  std::string error;        // why it could not run
  [[nodiscard]] bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  /// "exit 1", "signal 9", "timed out after 10 s", "cannot run: ...".
  [[nodiscard]] std::string describe(double timeout_s) const;
};

/// Runs argv[0] (searched in PATH when it has no '/') with stdin from
/// /dev/null, capturing stdout and stderr; kills its process group after
/// `timeout_s`.
CaptureResult run_capture(const std::vector<std::string> &argv, double timeout_s);

/// A long-lived worker: requests go to its stdin, one JSON line each;
/// results come back on its fd 3, one line each; its stdout and stderr go to
/// files the worker itself redirects per case. It leads its own process group.
class WorkerProcess {
 public:
  /// Starts argv with stdout/stderr appended to `log_path`. Throws
  /// pb::sdk::InfraError when it cannot start.
  WorkerProcess(const std::vector<std::string> &argv, const fs::path &log_path);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess &) = delete;
  WorkerProcess &operator=(const WorkerProcess &) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  /// False when the worker is gone (broken pipe).
  bool send_line(const std::string &line);

  enum class ReadStatus { kLine, kTimeout, kClosed, kInterrupted };
  /// Waits for one result line until `deadline`, returning early with
  /// kInterrupted when `interrupted()` becomes true (checked every 50 ms) or
  /// with kTimeout at the deadline. `on_tick` runs about every
  /// `tick_interval_s` while waiting (health observations).
  template <class Interrupted, class Tick>
  ReadStatus read_line(std::chrono::steady_clock::time_point deadline, std::string &line, Interrupted interrupted,
                       double tick_interval_s, Tick on_tick);

  /// SIGKILL to the whole process group, then reap. Returns "signal 9" etc.
  std::string kill_group();
  /// Closes stdin (the worker exits at EOF) and reaps it, killing the group
  /// when it does not exit within `grace_s`. Returns how it ended.
  std::string finish(double grace_s);

 private:
  ReadStatus poll_line(int timeout_ms, std::string &line);
  pid_t pid_ = -1;
  int request_fd_ = -1;
  int result_fd_ = -1;
  std::string buffer_;
  bool reaped_ = false;
};

/// An exclusive lock on one device, held for the life of the object (and
/// released by the kernel if the process dies). The lock file names the
/// holder so a refused run can say who has the device.
class DeviceLock {
 public:
  /// Throws pb::sdk::InfraError naming the holder when the device is locked.
  DeviceLock(const fs::path &lock_dir, const std::string &device_key, const std::string &holder);
  ~DeviceLock();
  DeviceLock(const DeviceLock &) = delete;
  DeviceLock &operator=(const DeviceLock &) = delete;
  [[nodiscard]] const fs::path &path() const { return path_; }

 private:
  fs::path path_;
  int fd_ = -1;
};

/// The running executable (/proc/self/exe).
fs::path self_executable();
/// The shared library (or executable) containing `address`.
fs::path library_containing(const void *address);
/// This process's PID namespace, e.g. "pid:[4026531836]", or "" when unknown.
std::string pid_namespace();
std::string host_name();
/// UTC time as ISO 8601 with milliseconds.
std::string utc_now_iso();

/// Writes `text` to `path` through a temporary file, fsync and rename.
void write_file_durably(const fs::path &path, const std::string &text);
/// Reads a whole file; nullopt when it cannot be read.
std::optional<std::string> read_whole_file(const fs::path &path);

/// SIGINT/SIGTERM set a flag instead of killing the run, so the journal and
/// the worker are closed cleanly.
void install_stop_handlers();
bool stop_requested();

}  // namespace pb::bench

#include "process_inl.hpp"

#endif  // PERFBOUND_TIMING_PROCESS_HPP
