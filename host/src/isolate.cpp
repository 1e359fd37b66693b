//===- isolate.cpp - run plugin code in a child process with a deadline ---===//
#include "isolate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

std::string signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev != nullptr) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
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

std::chrono::milliseconds plugin_inspection_timeout() {
  const char *env = std::getenv("PERFBOUND_PLUGIN_TIMEOUT");
  if (env != nullptr) {
    char *end = nullptr;
    double s = std::strtod(env, &end);
    if (end != env && *end == '\0' && std::isfinite(s) && s >= 0.1 && s <= 600)
      return std::chrono::milliseconds(static_cast<long long>(s * 1000));
  }
  return std::chrono::milliseconds(5000);
}

IsolatedOutcome run_isolated(const std::function<std::string(const PhaseFn &)> &work,
                             std::chrono::milliseconds phase_timeout) {
  IsolatedOutcome outcome;
  int fds[2];
  if (pipe(fds) != 0) {
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
    close(fds[0]);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    // A crash must end the child, whatever handlers the parent installed (a
    // test framework's, a crash reporter's).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) std::signal(sig, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGPIPE, SIG_IGN);
    const int out = fds[1];
    std::string answer;
    try {
      answer = work([out](const std::string &phase) { write_all(out, "P" + phase + "\n"); });
    } catch (const std::exception &e) {
      write_all(out, std::string("Pthrew a C++ exception: ") + e.what() + "\n");
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
  close(fds[1]);
  Reader reader;
  auto deadline = std::chrono::steady_clock::now() + phase_timeout;
  bool timed_out = false;
  for (;;) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
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
      deadline = std::chrono::steady_clock::now() + phase_timeout;
    }
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  outcome.phase = reader.phase.empty() ? "load" : reader.phase;
  const std::string during = " during " + outcome.phase;
  if (timed_out) {
    outcome.failure = "plugin timed out after " + seconds_text(phase_timeout) + " s" + during + " and was killed";
    return outcome;
  }
  if (WIFSIGNALED(wstatus)) {
    outcome.failure = "plugin crashed with " + signal_name(WTERMSIG(wstatus)) + during;
    return outcome;
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && reader.answered) {
    outcome.answered = true;
    outcome.answer = std::move(reader.answer);
    return outcome;
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 70 && reader.phase.rfind("threw", 0) == 0) {
    outcome.failure = "plugin " + reader.phase;
    return outcome;
  }
  outcome.failure = "plugin called exit(" + std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) + ")" + during;
  return outcome;
}

}  // namespace perfbound
