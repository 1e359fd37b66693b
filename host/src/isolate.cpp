//===- isolate.cpp - run plugin code in a child process with a deadline ---===//
#include "isolate.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace perfbound {

namespace {

void write_all(int fd, const std::string &text) {
  size_t written = 0;
  while (written < text.size()) {
    ssize_t w = write(fd, text.data() + written, text.size() - written);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    written += static_cast<size_t>(w);
  }
}

std::string seconds_text(std::chrono::milliseconds ms) {
  double s = static_cast<double>(ms.count()) / 1000.0;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", s);
  return buf;
}

// Wire format, child to parent: "P<phase>\n" for each phase, then "R" and the
// answer up to end of file.
struct Reader {
  std::string buffer;
  std::string phase;
  bool answered = false;
  std::string answer;
  bool phase_changed = false;

  void feed(const char *data, size_t size) {
    if (answered) {
      answer.append(data, size);
      return;
    }
    buffer.append(data, size);
    while (!answered && !buffer.empty()) {
      if (buffer[0] == 'R') {
        answered = true;
        answer = buffer.substr(1);
        buffer.clear();
        return;
      }
      size_t nl = buffer.find('\n');
      if (nl == std::string::npos) return;
      if (buffer[0] == 'P') {
        phase = buffer.substr(1, nl - 1);
        phase_changed = true;
      }
      buffer.erase(0, nl + 1);
    }
  }
};

}  // namespace

std::string signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev != nullptr) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

std::chrono::milliseconds plugin_inspection_timeout() {
  const char *env = std::getenv("PERFBOUND_PLUGIN_TIMEOUT");
  if (env != nullptr) {
    char *end = nullptr;
    double s = std::strtod(env, &end);
    if (end != env && *end == '\0' && std::isfinite(s) && s >= 0.1 && s <= 600)
      return std::chrono::milliseconds(static_cast<long long>(s * 1000));
    // Said once per process, not silently replaced.
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      std::fprintf(stderr, "perfbound: warning: PERFBOUND_PLUGIN_TIMEOUT='%s' is not a number of seconds from 0.1 to 600; "
                           "using the default, 5\n", env);
  }
  return std::chrono::milliseconds(5000);
}

IsolatedOutcome run_isolated(const std::function<std::string(const PhaseFn &)> &work,
                             std::chrono::milliseconds phase_timeout) {
  IsolationLimits limits;
  limits.phase_timeout = phase_timeout;
  return run_isolated(work, limits);
}

IsolatedOutcome run_isolated(const std::function<std::string(const PhaseFn &)> &work, const IsolationLimits &limits) {
  IsolatedOutcome outcome;
  int fds[2];
  // Nodes run isolated in parallel: a child forked by another thread while
  // this pipe's write end is open in the parent would hold it, and this
  // reader would not see end of file until that other child ended. So pipe,
  // fork and closing the write end happen under one lock.
  static std::mutex fork_mutex;
  std::unique_lock<std::mutex> fork_lock(fork_mutex);
  if (pipe2(fds, O_CLOEXEC) != 0) {
    outcome.failure = std::string("cannot create a pipe to isolate the plugin: ") + std::strerror(errno);
    return outcome;
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    outcome.failure = std::string("cannot fork to isolate the plugin: ") + std::strerror(errno);
    return outcome;
  }
  if (pid == 0) {
    fork_lock.unlock();  // a nested isolation (plugin check) locks it again in the child
    close(fds[0]);
    if (limits.own_process_group) setpgid(0, 0);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    // A crash must end the child, whatever handlers the parent installed (a
    // test framework's, a crash reporter's, the host's fault guard).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) std::signal(sig, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGPIPE, SIG_IGN);
    const int out = fds[1];
    std::string answer;
    try {
      if (limits.in_child) limits.in_child();
      answer = work([out](const std::string &phase) { write_all(out, "P" + phase + "\n"); });
    } catch (const std::exception &e) {
      std::string what = e.what();
      for (char &c : what)
        if (c == '\n') c = ' ';
      write_all(out, std::string("Pthrew a C++ exception: ") + what + "\n");
      std::fflush(nullptr);
      _exit(70);
    } catch (...) {
      _exit(70);
    }
    write_all(out, "R" + answer);
    close(out);
    std::fflush(nullptr);
    _exit(0);
  }
  if (limits.own_process_group) setpgid(pid, pid);  // both sides: no race with the kill below
  close(fds[1]);
  fork_lock.unlock();
  Reader reader;
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  auto phase_deadline = [&](const std::string &phase) {
    if (limits.phase_timeout.count() <= 0) return Clock::time_point::max();
    auto span = limits.phase_timeout;
    if (limits.phase_slack) span += limits.phase_slack(phase);
    return Clock::now() + span;
  };
  auto deadline = phase_deadline("load");
  std::chrono::milliseconds deadline_span = limits.phase_timeout;
  const auto total_deadline =
      limits.total_timeout.count() > 0 ? started + limits.total_timeout : Clock::time_point::max();
  for (;;) {
    auto now = Clock::now();
    if (now >= deadline || now >= total_deadline) {
      outcome.timed_out = true;
      outcome.deadline = now >= total_deadline ? limits.total_timeout : deadline_span;
      break;
    }
    if (limits.cancel != nullptr && limits.cancel->load()) {
      outcome.cancelled = true;
      break;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(std::min(deadline, total_deadline) - now).count();
    long long wait_ms = std::min<long long>(left, limits.cancel != nullptr ? 50 : 1000);
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::max<long long>(wait_ms, 1)));
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (r == 0) continue;
    char buf[65536];
    ssize_t got = read(fds[0], buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of file: the child exited or closed the pipe
    reader.feed(buf, static_cast<size_t>(got));
    if (reader.phase_changed) {
      reader.phase_changed = false;
      deadline = phase_deadline(reader.phase);
      deadline_span = limits.phase_timeout + (limits.phase_slack ? limits.phase_slack(reader.phase) : std::chrono::milliseconds(0));
    }
  }
  close(fds[0]);
  if (outcome.timed_out || outcome.cancelled) {
    if (limits.own_process_group) kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  outcome.phase = reader.phase.empty() ? "load" : reader.phase;
  const std::string during = " during " + outcome.phase;
  if (outcome.timed_out) {
    outcome.failure = "plugin timed out after " + seconds_text(outcome.deadline) + " s" + during + " and was killed";
    return outcome;
  }
  if (outcome.cancelled) {
    outcome.failure = "plugin was stopped" + during + " (interrupted)";
    return outcome;
  }
  if (WIFSIGNALED(wstatus)) {
    outcome.signal = WTERMSIG(wstatus);
    outcome.failure = "plugin crashed with " + signal_name(outcome.signal) + during;
    return outcome;
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && reader.answered) {
    outcome.answered = true;
    outcome.answer = std::move(reader.answer);
    return outcome;
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 70 && reader.phase.rfind("threw", 0) == 0) {
    outcome.threw = reader.phase;
    outcome.failure = "plugin " + reader.phase;
    return outcome;
  }
  outcome.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  outcome.failure = "plugin called exit(" + std::to_string(outcome.exit_code) + ")" + during;
  return outcome;
}

}  // namespace perfbound
