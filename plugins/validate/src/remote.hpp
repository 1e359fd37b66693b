//===- remote.hpp - run counterfactual steps on the host with the NPU -----===//
//
// Users whose NPU sits on another machine describe it in a host config:
//
//   version = 1
//   destination = "me@npu-box"        # what ssh connects to (or an ssh alias)
//   port = 22                         # optional
//   identity_file = "~/.ssh/id_npu"   # optional
//   ssh_options = ["-o", "ConnectTimeout=10"]   # optional, passed to ssh and scp
//   preamble = ["source /usr/local/Ascend/ascend-toolkit/set_env.sh"]
//   remote_dir = "/home/me/perfbound-runs"
//   msprof = ["msprof", "--output={out}"]       # prefix of the run command
//   [timeouts]                        # seconds, per step
//   sync = 300
//   compile = 900
//   run = 900
//   fetch = 300
//
// Steps, each one logged command with a timeout: sync (scp -r the variant
// directory to remote_dir/<run id>/), compile and run under msprof (ssh, in
// that directory, after the preamble), fetch (find the op_summary CSV the
// run left and scp it back). Locally nothing goes through a shell: ssh and
// scp are started from an argv. The remote side is a shell by nature (the
// preamble sources CANN's set_env.sh); every word of the compile and run
// commands is single-quoted there, so only the preamble is shell syntax.
// ssh runs with BatchMode=yes: a host that asks for a password fails fast
// instead of hanging until the timeout.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_REMOTE_HPP
#define PERFBOUND_VALIDATE_REMOTE_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "process.hpp"

namespace perfbound::validate {

struct RemoteHost {
  std::string destination;
  std::optional<int64_t> port;
  std::string identity_file;
  std::vector<std::string> ssh_options;
  std::vector<std::string> preamble;
  std::string remote_dir;
  std::vector<std::string> msprof = {"msprof", "--output={out}"};
  std::string ssh_program = "ssh";
  std::string scp_program = "scp";
  double sync_timeout_s = 300;
  double compile_timeout_s = 900;
  double run_timeout_s = 900;
  double fetch_timeout_s = 300;
  std::string source;  // the config file
};

/// Reads a host config; InputError "file:line:col: ..." when it is bad.
RemoteHost load_remote_host(const std::filesystem::path &file);

/// Single-quotes a word for a POSIX shell ("it's" -> 'it'\''s').
std::string shell_quote(const std::string &word);

/// One remote run directory: remote_dir/<run_id>. Every step appends to its
/// own log under `log_dir`.
class RemoteRunner {
 public:
  RemoteRunner(RemoteHost host, std::filesystem::path log_dir, std::string run_id);

  [[nodiscard]] std::string remote_root() const { return host_.remote_dir + "/" + run_id_; }

  /// Creates remote_root() and copies `local_dir` into it (scp -r): the
  /// directory arrives as remote_root()/<its name>.
  CommandResult sync(const std::filesystem::path &local_dir);
  /// Runs argv in `remote_cwd` after the preamble.
  CommandResult compile(const std::vector<std::string> &argv, const std::string &remote_cwd);
  /// Runs the msprof prefix ({out} -> `remote_out`) + argv in `remote_cwd`.
  CommandResult run_under_msprof(const std::vector<std::string> &argv, const std::string &remote_cwd,
                                 const std::string &remote_out);
  /// Finds the one file named like `pattern` (e.g. "op_summary_*.csv")
  /// under `remote_dir_path` and copies it to `local_path`. On failure the
  /// result says why (start_error when no or several files match).
  CommandResult fetch_matching(const std::string &remote_dir_path, const std::string &pattern,
                               const std::filesystem::path &local_path, std::string *remote_found = nullptr);
  /// Copies one remote file back.
  CommandResult fetch(const std::string &remote_path, const std::filesystem::path &local_path);

  /// The argv that runs `remote_command` on the host (for tests and logs).
  [[nodiscard]] std::vector<std::string> ssh_argv(const std::string &remote_command) const;
  /// The remote shell line for argv in cwd: cd, preamble, quoted words.
  [[nodiscard]] std::string remote_line(const std::vector<std::string> &argv, const std::string &remote_cwd) const;

 private:
  CommandResult ssh(const std::string &remote_command, const std::string &step, double timeout_s);
  [[nodiscard]] std::vector<std::string> scp_argv() const;
  /// scp with `args` (sources, destination). OpenSSH 9 copies over SFTP; a
  /// server without the SFTP subsystem refuses that, and the copy is retried
  /// once with `scp -O` (the legacy SCP protocol), which is then kept for
  /// the rest of the run. The log says so.
  CommandResult scp(const std::vector<std::string> &args, double timeout_s, const std::filesystem::path &log);

  RemoteHost host_;
  bool legacy_scp_ = false;  // the server needed scp -O
  std::filesystem::path log_dir_;
  std::string run_id_;
};

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_REMOTE_HPP
