//===- process.cpp - external commands: no shell, a timeout, a log --------===//
#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <perfbound/sdk/shell.hpp>

extern char **environ;

namespace perfbound::validate {

namespace {

std::atomic<bool> g_interrupted{false};
struct sigaction g_previous_int {}, g_previous_term {};

/// Notes the request, then hands the signal to the handler that was there
/// before (the host's sets the cancel flag that pipelines run on behalf of
/// this command poll).
extern "C" void on_interrupt_signal(int sig) {
  g_interrupted.store(true);
  const struct sigaction &previous = sig == SIGINT ? g_previous_int : g_previous_term;
  if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
      previous.sa_handler != on_interrupt_signal)
    previous.sa_handler(sig);
}

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// waitpid that retries on EINTR; returns the pid, 0 when still running.
pid_t wait_child(pid_t pid, int &status, bool block) {
  while (true) {
    pid_t got = waitpid(pid, &status, block ? 0 : WNOHANG);
    if (got >= 0 || errno != EINTR) return got;
  }
}

}  // namespace

std::string display_command(const std::vector<std::string> &argv) {
  std::string out;
  for (const std::string &word : argv) {
    bool plain = !word.empty() && word.find_first_of(" \t\n'\"\\$`;&|<>(){}*?[]#~") == std::string::npos;
    out += (out.empty() ? "" : " ") + (plain ? word : pb::sdk::shell::quote(word));
  }
  return out;
}

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

bool interrupt_requested() { return g_interrupted.load(); }

std::string CommandResult::describe() const {
  std::ostringstream out;
  if (!start_error.empty()) {
    out << "could not start: " << start_error;
  } else if (interrupted) {
    out << "interrupted (its process group was killed)";
  } else if (timed_out) {
    out << "timed out after " << std::lround(wall_s) << " s (its process group was killed)";
  } else if (signal) {
    out << "killed by signal " << *signal << " (" << strsignal(*signal) << ")";
  } else if (exit_code) {
    out << "exited with " << *exit_code;
  }
  return out.str();
}

pb::sdk::json CommandResult::to_json() const {
  using pb::sdk::json;
  return json{{"argv", argv},
              {"exit_code", exit_code ? json(*exit_code) : json(nullptr)},
              {"signal", signal ? json(*signal) : json(nullptr)},
              {"timed_out", timed_out},
              {"interrupted", interrupted},
              {"start_error", start_error.empty() ? json(nullptr) : json(start_error)},
              {"wall_s", wall_s},
              {"log", log.string()},
              {"outcome", describe()}};
}

CommandResult run_command(const CommandSpec &spec) {
  CommandResult result;
  result.argv = spec.argv;
  result.log = spec.log;
  if (spec.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  if (!spec.log.parent_path().empty()) std::filesystem::create_directories(spec.log.parent_path());
  int log_fd = open(spec.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) throw pb::sdk::InfraError(spec.log.string() + ": cannot open the command log: " + std::strerror(errno));
  std::string header = "$ " + display_command(spec.argv) + (spec.cwd.empty() ? "" : "    # in " + spec.cwd.string()) + "\n";
  (void)!write(log_fd, header.data(), header.size());

  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char **entry = environ; *entry != nullptr; ++entry) {
    std::string text(*entry);
    std::string key = text.substr(0, text.find('='));
    if (spec.env.count(key) == 0) env_strings.push_back(std::move(text));
  }
  for (const auto &[key, value] : spec.env) env_strings.push_back(key + "=" + value);
  std::vector<char *> envp, argv;
  for (std::string &e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string cwd = spec.cwd.string();

  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    close(log_fd);
    throw pb::sdk::InfraError(std::string("pipe: ") + std::strerror(errno));
  }
  const Clock::time_point start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    close(error_pipe[0]);
    close(error_pipe[1]);
    result.start_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    int err = 0;
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      err = errno;
    } else {
      execvpe(argv[0], argv.data(), envp.data());
      err = errno;
    }
    (void)!write(error_pipe[1], &err, sizeof err);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent: no race with an early kill
  close(error_pipe[1]);
  close(log_fd);
  int child_errno = 0;
  ssize_t got = read(error_pipe[0], &child_errno, sizeof child_errno);
  close(error_pipe[0]);
  int status = 0;
  if (got == static_cast<ssize_t>(sizeof child_errno)) {
    wait_child(pid, status, true);
    result.start_error = (!cwd.empty() ? "'" + spec.argv[0] + "' in " + cwd + ": " : "'" + spec.argv[0] + "': ") +
                         std::strerror(child_errno);
    result.wall_s = since(start);
    std::ofstream(spec.log, std::ios::app) << "perfbound: could not start: " << result.start_error << "\n";
    return result;
  }
  while (true) {
    pid_t done = wait_child(pid, status, false);
    if (done == pid) break;
    const bool interrupted = interrupt_requested();
    if (interrupted || since(start) >= spec.timeout_s) {
      result.timed_out = !interrupted;
      result.interrupted = interrupted;
      kill(-pid, SIGTERM);
      for (int tick = 0; tick < 200 && wait_child(pid, status, false) == 0; ++tick)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      kill(-pid, SIGKILL);  // whatever is left of the group
      wait_child(pid, status, true);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.wall_s = since(start);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  std::ofstream(spec.log, std::ios::app) << "perfbound: " << result.describe() << " after " << result.wall_s << " s\n";
  return result;
}

std::string log_tail(const std::filesystem::path &log, size_t max_bytes) {
  std::ifstream in(log, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  if (text.size() > max_bytes) text = "..." + text.substr(text.size() - max_bytes);
  return text;
}

}  // namespace perfbound::validate
