//===- process.cpp - child processes, the watchdog, device locks, files -----===//
#include "process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <perfbound/sdk/json.hpp>

namespace pb::bench {

namespace {

std::string errno_text(int error) { return std::strerror(error); }

std::string wait_status_text(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

/// argv as a NULL-terminated char* array (pointers into `argv`).
std::vector<char *> c_argv(const std::vector<std::string> &argv) {
  std::vector<char *> out;
  out.reserve(argv.size() + 1);
  for (const std::string &arg : argv) out.push_back(const_cast<char *>(arg.c_str()));
  out.push_back(nullptr);
  return out;
}

/// In the child after fork(): report errno through `report_fd` and exit.
[[noreturn]] void child_fail(int report_fd) {
  int error = errno;
  ssize_t ignored = write(report_fd, &error, sizeof error);
  (void)ignored;
  _exit(127);
}

/// Reads what the child wrote to the exec-report pipe: 0 on a successful
/// exec (the pipe closed on exec), the child's errno otherwise.
int exec_error(int report_fd) {
  int error = 0;
  ssize_t got = 0;
  do {
    got = read(report_fd, &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  close(report_fd);
  return got == sizeof error ? error : 0;
}

std::atomic<bool> g_stop{false};

void on_stop_signal(int) { g_stop.store(true); }

}  // namespace

std::string CaptureResult::describe(double timeout_s) const {
  if (!started) return "cannot run: " + error;
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s";
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  return "exit " + std::to_string(exit_code);
}

CaptureResult run_capture(const std::vector<std::string> &argv, double timeout_s) {
  CaptureResult result;
  if (argv.empty()) {
    result.error = "empty command";
    return result;
  }
  int out_pipe[2];
  int err_pipe[2];
  int report_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 || pipe2(report_pipe, O_CLOEXEC) != 0) {
    result.error = "pipe: " + errno_text(errno);
    return result;
  }
  std::vector<char *> args = c_argv(argv);
  pid_t pid = fork();
  if (pid < 0) {
    result.error = "fork: " + errno_text(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], report_pipe[0], report_pipe[1]}) close(fd);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_pipe[1], 1) < 0 || dup2(err_pipe[1], 2) < 0)
      child_fail(report_pipe[1]);
    execvp(args[0], args.data());
    child_fail(report_pipe[1]);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(report_pipe[1]);
  if (int error = exec_error(report_pipe[0]); error != 0) {
    waitpid(pid, nullptr, 0);
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.error = argv[0] + ": " + errno_text(error);
    return result;
  }
  result.started = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(timeout_s));
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_count = 2;
  char chunk[8192];
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int fd_idx = 0; fd_idx < 2; ++fd_idx) {
      if (fds[fd_idx].fd < 0 || (fds[fd_idx].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t got = read(fds[fd_idx].fd, chunk, sizeof chunk);
      if (got > 0) {
        (fd_idx == 0 ? result.out : result.err).append(chunk, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[fd_idx].fd);
        fds[fd_idx].fd = -1;
        --open_count;
      }
    }
  }
  for (const pollfd &entry : fds)
    if (entry.fd >= 0) close(entry.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

//===----------------------------------------------------------------------===//
// WorkerProcess
//===----------------------------------------------------------------------===//

WorkerProcess::WorkerProcess(const std::vector<std::string> &argv, const fs::path &log_path) {
  int request_pipe[2];
  int result_pipe[2];
  int report_pipe[2];
  if (pipe2(request_pipe, O_CLOEXEC) != 0 || pipe2(result_pipe, O_CLOEXEC) != 0 || pipe2(report_pipe, O_CLOEXEC) != 0)
    throw pb::sdk::InfraError("cannot create worker pipes: " + errno_text(errno));
  int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) throw pb::sdk::InfraError("cannot open worker log " + log_path.string() + ": " + errno_text(errno));
  std::vector<char *> args = c_argv(argv);
  pid_t pid = fork();
  if (pid < 0) throw pb::sdk::InfraError("cannot fork a worker: " + errno_text(errno));
  if (pid == 0) {
    // Its own process group: the watchdog kills the group, and a Ctrl-C in
    // the terminal reaches the harness, which then stops the worker itself.
    setpgid(0, 0);
    if (result_pipe[1] == 3) fcntl(3, F_SETFD, 0);  // dup2(3, 3) would keep O_CLOEXEC
    if (dup2(request_pipe[0], 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0 || dup2(result_pipe[1], 3) < 0)
      child_fail(report_pipe[1]);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execv(args[0], args.data());
    child_fail(report_pipe[1]);
  }
  setpgid(pid, pid);
  close(log_fd);
  close(request_pipe[0]);
  close(result_pipe[1]);
  close(report_pipe[1]);
  pid_ = pid;
  request_fd_ = request_pipe[1];
  result_fd_ = result_pipe[0];
  if (int error = exec_error(report_pipe[0]); error != 0) {
    kill_group();
    throw pb::sdk::InfraError("cannot start the worker " + argv[0] + ": " + errno_text(error));
  }
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) kill_group();
  if (request_fd_ >= 0) close(request_fd_);
  if (result_fd_ >= 0) close(result_fd_);
}

bool WorkerProcess::send_line(const std::string &line) {
  if (request_fd_ < 0) return false;
  std::string data = line + "\n";
  size_t written = 0;
  // A worker that died leaves a broken pipe; ignore SIGPIPE for this write.
  struct sigaction ignore_pipe {};
  struct sigaction previous {};
  ignore_pipe.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore_pipe, &previous);
  bool ok = true;
  while (written < data.size()) {
    ssize_t got = write(request_fd_, data.data() + written, data.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ok = false;
      break;
    }
    written += static_cast<size_t>(got);
  }
  sigaction(SIGPIPE, &previous, nullptr);
  return ok;
}

WorkerProcess::ReadStatus WorkerProcess::poll_line(int timeout_ms, std::string &line) {
  size_t newline = buffer_.find('\n');
  if (newline != std::string::npos) {
    line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    return ReadStatus::kLine;
  }
  if (result_fd_ < 0) return ReadStatus::kClosed;
  pollfd entry{result_fd_, POLLIN, 0};
  int ready = poll(&entry, 1, timeout_ms);
  if (ready <= 0) return ReadStatus::kTimeout;
  char chunk[65536];
  ssize_t got = read(result_fd_, chunk, sizeof chunk);
  if (got < 0 && errno == EINTR) return ReadStatus::kTimeout;
  if (got <= 0) {
    close(result_fd_);
    result_fd_ = -1;
    return ReadStatus::kClosed;
  }
  buffer_.append(chunk, static_cast<size_t>(got));
  return poll_line(0, line);
}

std::string WorkerProcess::kill_group() {
  if (reaped_ || pid_ <= 0) return "already reaped";
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  return wait_status_text(status);
}

std::string WorkerProcess::finish(double grace_s) {
  if (reaped_) return "already reaped";
  if (request_fd_ >= 0) {
    close(request_fd_);
    request_fd_ = -1;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(grace_s));
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    pid_t got = waitpid(pid_, &status, WNOHANG);
    if (got == pid_) {
      reaped_ = true;
      kill(-pid_, SIGKILL);  // anything it left behind in its group
      return wait_status_text(status);
    }
    usleep(10000);
  }
  return kill_group() + " (did not exit within the grace period)";
}

//===----------------------------------------------------------------------===//
// DeviceLock
//===----------------------------------------------------------------------===//

DeviceLock::DeviceLock(const fs::path &lock_dir, const std::string &device_key, const std::string &holder) {
  std::error_code ec;
  fs::create_directories(lock_dir, ec);
  std::string file_name = "perfbound-bench-";
  for (char c : device_key) file_name += std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' ? c : '_';
  path_ = lock_dir / (file_name + ".lock");
  fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw pb::sdk::InfraError("cannot open the device lock " + path_.string() + ": " + errno_text(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    std::string holder_text = read_whole_file(path_).value_or("");
    close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw pb::sdk::InfraError("device " + device_key + " is in use by another perfbound bench run (" +
                                (holder_text.empty() ? std::string("holder unknown") : holder_text) +
                                "); two runs never share a device. Lock file: " + path_.string());
    throw pb::sdk::InfraError("cannot lock " + path_.string() + ": " + errno_text(error));
  }
  if (ftruncate(fd_, 0) == 0) {
    ssize_t ignored = write(fd_, holder.data(), holder.size());
    (void)ignored;
  }
}

DeviceLock::~DeviceLock() {
  if (fd_ >= 0) {
    if (ftruncate(fd_, 0) != 0) {
      // Nothing useful to do: the lock is released by close() below anyway.
    }
    flock(fd_, LOCK_UN);
    close(fd_);
  }
}

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

fs::path self_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw pb::sdk::InfraError("cannot find the perfbound executable (/proc/self/exe): " + ec.message());
  return exe;
}

fs::path library_containing(const void *address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  fs::path path = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path(info.dli_fname) : path;
}

std::string pid_namespace() {
  std::error_code ec;
  fs::path ns = fs::read_symlink("/proc/self/ns/pid", ec);
  return ec ? std::string() : ns.string();
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::string utc_now_iso() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char with_millis[48];
  std::snprintf(with_millis, sizeof with_millis, "%s.%03lldZ", text, static_cast<long long>(millis));
  return with_millis;
}

void write_file_durably(const fs::path &path, const std::string &text) {
  fs::path temp = path;
  temp += ".tmp";
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw pb::sdk::InfraError("cannot write " + temp.string() + ": " + errno_text(errno));
  size_t written = 0;
  while (written < text.size()) {
    ssize_t got = write(fd, text.data() + written, text.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      int error = errno;
      close(fd);
      throw pb::sdk::InfraError("cannot write " + temp.string() + ": " + errno_text(error));
    }
    written += static_cast<size_t>(got);
  }
  fsync(fd);
  close(fd);
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) throw pb::sdk::InfraError("cannot rename " + temp.string() + " to " + path.string() + ": " + ec.message());
}

std::optional<std::string> read_whole_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool stop_requested() { return g_stop.load(); }

}  // namespace pb::bench
