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
};

/// Forks; the child runs `work` (stdout redirected to stderr so plugin chatter
/// cannot corrupt the host's output) and exits without running destructors.
/// A phase that lasts longer than `phase_timeout` gets the child killed.
IsolatedOutcome run_isolated(const std::function<std::string(const PhaseFn &)> &work,
                             std::chrono::milliseconds phase_timeout);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_ISOLATE_HPP
