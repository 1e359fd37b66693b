//===- isolate.hpp - run plugin code in a child process with a deadline ---===//
//
// Inspecting a plugin (discovery without a manifest, `plugin check`,
// `plugin manifest`) runs the library's code: its constructors, its
// negotiate function, its descriptor tables. None of that may take the host
// down, so it runs in a forked child that reports the phase it is in
// ("load", "negotiate", "describe", ...) and finally one answer. The parent
// turns a signal, a timeout or an early exit into one sentence such as
// "plugin crashed with SIGSEGV during negotiate" and moves on.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_ISOLATE_HPP
#define PERFBOUND_HOST_ISOLATE_HPP

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

namespace perfbound {

/// How long one phase of a plugin inspection may take: PERFBOUND_PLUGIN_TIMEOUT
/// (seconds, 0.1 .. 600) or 5 s.
std::chrono::milliseconds plugin_inspection_timeout();

/// Lets the child name the phase it enters; each phase gets its own deadline.
using PhaseFn = std::function<void(const std::string &phase)>;

struct IsolatedOutcome {
  bool answered = false;  // the child delivered its answer
  std::string answer;     // the child's answer when answered
  std::string failure;    // otherwise: "plugin crashed with SIGSEGV during negotiate", ...
  std::string phase;      // the last phase the child entered
  // What ended a child that did not answer (at most one is set).
  bool timed_out = false;        // a deadline passed; the child was killed
  std::chrono::milliseconds deadline{0};  // the deadline that passed
  bool cancelled = false;        // the cancel flag was set; the child was killed
  int signal = 0;                // the signal that ended it
  int exit_code = -1;            // the status it exited with (without answering)
  std::string threw;             // the C++ exception that escaped `work`
};

struct IsolationLimits {
  /// Each phase may last this long (0: no per-phase deadline).
  std::chrono::milliseconds phase_timeout{0};
  /// Extra time for a phase that waits on an isolated child of its own (so
  /// the inner deadline fires first and is reported); none when unset.
  std::function<std::chrono::milliseconds(const std::string &phase)> phase_slack;
  /// The child as a whole may last this long (0: no overall deadline).
  std::chrono::milliseconds total_timeout{0};
  /// When it becomes true the child is killed (polled every 50 ms).
  const std::atomic<bool> *cancel = nullptr;
  /// Put the child in a process group of its own and kill the whole group
  /// (processes the plugin started included) when it is killed.
  bool own_process_group = false;
  /// Runs in the child right after fork, before `work`.
  std::function<void()> in_child;
};

/// Forks; the child runs `work` (stdout redirected to stderr so plugin chatter
/// cannot corrupt the host's output) and exits without running destructors.
/// A phase that lasts longer than `phase_timeout` gets the child killed.
IsolatedOutcome run_isolated(const std::function<std::string(const PhaseFn &)> &work,
                             std::chrono::milliseconds phase_timeout);
IsolatedOutcome run_isolated(const std::function<std::string(const PhaseFn &)> &work, const IsolationLimits &limits);

/// "SIGSEGV" for 11 (the name a user looks up), "signal N" when unknown.
std::string signal_name(int sig);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_ISOLATE_HPP
