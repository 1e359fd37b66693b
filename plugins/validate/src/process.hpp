//===- process.hpp - external commands: no shell, a timeout, a log --------===//
//
// Counterfactual orchestration and the remote runner start compilers,
// launchers, ssh and scp. Each runs from an argv (fork + execvp, never a
// shell, so no word splitting or quoting surprises), in its own process
// group so a timeout kills the whole tree, with stdout and stderr appended
// to a log file that starts with the command line. The result says how the
// command ended: exit code, signal, timeout, or "could not start".
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_PROCESS_HPP
#define PERFBOUND_VALIDATE_PROCESS_HPP

#include <filesystem>
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace perfbound::validate {

struct CommandSpec {
  std::vector<std::string> argv;            // argv[0] is looked up on PATH
  std::filesystem::path cwd;                // empty: the current directory
  std::map<std::string, std::string> env;   // added to (or replacing in) the environment
  double timeout_s = 600;
  std::filesystem::path log;                // appended to; required
};

struct CommandResult {
  std::vector<std::string> argv;
  std::optional<int> exit_code;  // when it exited
  std::optional<int> signal;     // when a signal ended it
  bool timed_out = false;
  bool interrupted = false;      // SIGINT/SIGTERM arrived while it ran
  std::string start_error;       // non-empty when it could not be started
  double wall_s = 0;
  std::filesystem::path log;

  [[nodiscard]] bool ok() const { return start_error.empty() && !timed_out && !interrupted && exit_code && *exit_code == 0; }
  /// "exited with 0", "timed out after 5 s (killed)", "could not start: ...".
  [[nodiscard]] std::string describe() const;
  [[nodiscard]] pb::sdk::json to_json() const;
};

/// Installs SIGINT/SIGTERM handlers that only set a flag (the host's own
/// Ctrl-C handler cannot reach a plugin command's children, which run in
/// their own process groups): run_command then kills the running command's
/// group, and the command returns exit status 130.
void install_interrupt_handlers();
bool interrupt_requested();

/// Runs one command to completion, timeout or interrupt. Never throws for a failing
/// command (that is in the result); throws InfraError only when the log
/// cannot be opened.
CommandResult run_command(const CommandSpec &spec);

/// The last `max_bytes` of a log file (for messages).
std::string log_tail(const std::filesystem::path &log, size_t max_bytes = 2000);

/// argv as one line, each word quoted when it holds anything a reader could
/// misread (for logs and messages only: nothing is ever run through a shell
/// locally).
std::string display_command(const std::vector<std::string> &argv);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_PROCESS_HPP
