//===- test_support.hpp - helpers shared by the test suites ---------------===//
//
// Running the real `perfbound` binary, temporary directories, and locating
// ../shared (third-party data). Tests that need ../shared skip with a clear
// message when it is absent (a user's fresh clone has none).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_TEST_SUPPORT_HPP
#define PERFBOUND_TESTS_TEST_SUPPORT_HPP

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace pbtest {

namespace fs = std::filesystem;

inline std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void write_file(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// Text output with its 100-column wrapping undone: each line break and the
/// indentation after it become one space (to search a wrapped sentence).
inline std::string unwrapped(const std::string &text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    out += ' ';
  }
  return out;
}

/// A directory removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("perfbound-test-" + std::to_string(rd()) + std::to_string(::getpid()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  [[nodiscard]] const fs::path &path() const { return path_; }
  fs::path operator/(const std::string &name) const { return path_ / name; }

 private:
  fs::path path_;
};

struct CliResult {
  int code = -1;        // exit status, or 128 + the signal that ended it
  int end_signal = 0;   // the signal that ended it (0: it exited)
  std::string out;
  std::string err;
};

/// Starts `program` with `args` in a child, in `cwd` when given, with extra
/// environment variables, its stdout and stderr going to the two files (an
/// empty `out_path` discards stdout).
inline pid_t start_program(const std::string &program, const std::vector<std::string> &args, const fs::path &out_path,
                           const fs::path &err_path, const fs::path &cwd, const std::map<std::string, std::string> &env) {
  pid_t pid = fork();
  if (pid == 0) {
    int out_fd = open(out_path.empty() ? "/dev/null" : out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    for (const auto &[k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char *> argv;
    argv.push_back(const_cast<char *>(program.c_str()));
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

/// Waits for the child `pid` and collects what start_program captured.
inline CliResult finish_program(pid_t pid, const fs::path &out_path, const fs::path &err_path) {
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.end_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + r.end_signal;
  if (!out_path.empty()) r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

/// Runs a program with `args`, in `cwd` when given, with extra environment
/// variables; captures stdout and stderr.
inline CliResult run_program(const std::string &program, const std::vector<std::string> &args, const fs::path &cwd = {},
                             const std::map<std::string, std::string> &env = {}) {
  TempDir tmp;
  return finish_program(start_program(program, args, tmp / "stdout", tmp / "stderr", cwd, env), tmp / "stdout",
                        tmp / "stderr");
}

/// Runs the perfbound binary under test. PERFBOUND_PLUGIN_PATH is cleared so
/// the developer's environment cannot leak into a test.
inline CliResult run_cli(const std::vector<std::string> &args, const fs::path &cwd = {},
                         std::map<std::string, std::string> env = {}) {
  if (env.count("PERFBOUND_PLUGIN_PATH") == 0) env["PERFBOUND_PLUGIN_PATH"] = "";
  return run_program(PB_PERFBOUND_EXE, args, cwd, env);
}

/// Runs the perfbound binary under test like run_cli and sends it `signal`
/// after `delay` (a user's Ctrl-C, a batch system's SIGTERM). Its stdout,
/// possibly huge, is discarded.
inline CliResult run_cli_signalled(const std::vector<std::string> &args, int signal, std::chrono::milliseconds delay) {
  TempDir tmp;
  const pid_t pid = start_program(PB_PERFBOUND_EXE, args, {}, tmp / "stderr", {}, {{"PERFBOUND_PLUGIN_PATH", ""}});
  std::this_thread::sleep_for(delay);
  kill(pid, signal);
  return finish_program(pid, {}, tmp / "stderr");
}

inline fs::path plugin_dir(const std::string &name) { return fs::path(PB_TEST_PLUGIN_ROOT) / name; }
inline fs::path test_source_dir() { return fs::path(PB_TEST_SOURCE_DIR); }
inline fs::path source_dir() { return fs::path(PB_SOURCE_DIR); }
inline fs::path binary_dir() { return fs::path(PB_BINARY_DIR); }

/// ../shared next to the checkout, or $PERFBOUND_SHARED_DIR.
inline fs::path shared_dir() {
  if (const char *env = std::getenv("PERFBOUND_SHARED_DIR"); env != nullptr && *env != '\0') return env;
  return fs::path(PB_SHARED_DIR);
}
inline bool have_shared() {
  std::error_code ec;
  return fs::is_directory(shared_dir() / "data", ec);
}

/// Lines of `text` (without the newline).
inline std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

}  // namespace pbtest

/// Skips the rest of a doctest case when ../shared is absent.
#define PBTEST_REQUIRE_SHARED()                                                                            \
  do {                                                                                                     \
    if (!pbtest::have_shared()) {                                                                          \
      MESSAGE("SKIPPED: ../shared not found at " << pbtest::shared_dir().string()                          \
                                                 << " (set PERFBOUND_SHARED_DIR); real-data test not run"); \
      return;                                                                                              \
    }                                                                                                      \
  } while (0)

#endif  // PERFBOUND_TESTS_TEST_SUPPORT_HPP
