//===- fault_guard.hpp - name the node when in-process plugin code fails --===//
//
// A node that runs in the host's own process (not isolated) can still end
// it: a SIGSEGV or SIGABRT in the plugin's run, or a call to exit(). Neither
// can be survived, but neither may pass silently or anonymously. While a
// plugin call is in flight on a thread, a FaultScope names it; then
//   - a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP,
//     SIGSYS) writes "perfbound: node 'x' (plugin p/kind) crashed with
//     SIGSEGV during run; the run is incomplete ..." to stderr and re-raises
//     the signal under the handler that was there before, so the process
//     still ends by that signal (a shell sees 128 + N);
//   - exit() while a call is in flight writes "... called exit() during run
//     ..." and ends the process with status 1 instead of the plugin's status
//     (exit(0) would otherwise pass for success).
// Handlers run on an alternate signal stack, so a stack overflow is named
// too. A call the engine gave up on (its deadline passed and it did not stop)
// is abandoned: it no longer counts, and the process must end with _exit once
// its report is out, because the thread may still be running plugin code
// (unloading the library under it, or destroying the host objects it calls
// back into, would crash).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_FAULT_GUARD_HPP
#define PERFBOUND_HOST_FAULT_GUARD_HPP

#include <atomic>
#include <cstddef>
#include <string>

namespace perfbound {

/// Installs the signal handlers and the exit() guard (once per process) and
/// gives the calling thread an alternate signal stack (once per thread).
void install_fault_guard();

/// The life of one plugin call, shared between the thread making it and the
/// engine watching its deadline: 0 in flight, 1 returned, 2 abandoned.
using CallState = std::atomic<int>;

/// While alive, a plugin call described by `what` ("node 'x' (plugin
/// p/kind)") is in flight on this thread. Strictly nested per thread.
class FaultScope {
 public:
  FaultScope(const std::string &what, CallState &state);
  ~FaultScope();
  FaultScope(const FaultScope &) = delete;
  FaultScope &operator=(const FaultScope &) = delete;
  /// Names the phase now running; `phase` must outlive the scope (a literal).
  void phase(const char *phase) { phase_ = phase; }
  /// The call returned. False when the engine had already abandoned it: the
  /// caller must then touch nothing the engine owns and leave.
  bool finish();

 private:
  static constexpr size_t kCapacity = 480;
  char text_[kCapacity];  // written before the call, read by the handlers
  const char *volatile phase_ = "create";
  CallState &state_;
  bool finished_ = false;
  FaultScope *previous_ = nullptr;
  friend struct FaultGuardAccess;
};

/// From the engine's thread: gives up on the call whose state this is.
/// True when it was still in flight (it is now abandoned and counted).
bool abandon_plugin_call(CallState &state);

/// Plugin calls abandoned so far in this process. When non-zero the process
/// must end with _exit (see above).
size_t abandoned_plugin_calls();

/// In a child process made to run a node in isolation: the parent reports
/// what happens there, so the guard stays silent (exit() keeps its status).
void fault_guard_in_child();

}  // namespace perfbound

#endif  // PERFBOUND_HOST_FAULT_GUARD_HPP
