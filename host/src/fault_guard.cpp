//===- fault_guard.cpp - name the node when in-process plugin code fails --===//
#include "fault_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace perfbound {

namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
constexpr int kMaxSignal = 65;

struct sigaction g_previous[kMaxSignal];
std::atomic<int> g_in_flight{0};
std::atomic<size_t> g_abandoned{0};
std::atomic<bool> g_in_child{false};
// The most recent call's description, for a fault on a thread the plugin
// started itself (no scope there). Written by FaultScope, read by handlers.
char g_last_text[480] = "";

thread_local FaultScope *t_scope = nullptr;

/// Async-signal-safe pieces of a message.
void put(const char *text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    ssize_t wrote = write(STDERR_FILENO, text, left);
    if (wrote <= 0) return;
    text += wrote;
    left -= static_cast<size_t>(wrote);
  }
}

const char *signal_abbrev(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "a fatal signal";
  }
}

}  // namespace

struct FaultGuardAccess {
  static const char *text(const FaultScope &scope) { return scope.text_; }
  static const char *phase(const FaultScope &scope) { return scope.phase_; }
};

namespace {

extern "C" void on_fatal_signal(int sig, siginfo_t *, void *) {
  const FaultScope *scope = t_scope;
  if (!g_in_child.load()) {
    if (scope != nullptr) {
      put("perfbound: ");
      put(FaultGuardAccess::text(*scope));
      put(" crashed with ");
      put(signal_abbrev(sig));
      put(" during ");
      put(FaultGuardAccess::phase(*scope));
      put("; the run is incomplete and no report was written (run the node isolated to contain a crash: "
          "--isolate all, or isolate = true on the node)\n");
    } else if (g_in_flight.load() > 0) {
      put("perfbound: crashed with ");
      put(signal_abbrev(sig));
      put(" on a thread the host did not start, while plugin code was running (the last node started: ");
      put(g_last_text);
      put("); the run is incomplete and no report was written\n");
    }
  }
  // Whatever handled the signal before (the default: end the process) does
  // so now; the signal is blocked while this handler runs, so raise() leaves
  // it pending until the handler returns.
  struct sigaction &previous = g_previous[sig];
  if (previous.sa_handler == SIG_IGN) previous.sa_handler = SIG_DFL;
  sigaction(sig, &previous, nullptr);
  raise(sig);
}

void on_exit_guard() {
  if (g_in_child.load() || g_in_flight.load() <= 0) return;
  const FaultScope *scope = t_scope;
  put("perfbound: ");
  put(scope != nullptr ? FaultGuardAccess::text(*scope) : g_last_text);
  put(" called exit() during ");
  put(scope != nullptr ? FaultGuardAccess::phase(*scope) : "its run");
  put("; the run is incomplete and no report was written (a plugin must return an error status, never end the "
      "process)\n");
  _exit(1);
}

/// An alternate signal stack for this thread, released when it ends.
struct AltStack {
  void *memory = nullptr;
  AltStack() {
    const size_t size = 64 * 1024;
    memory = std::malloc(size);
    if (memory == nullptr) return;
    stack_t stack{};
    stack.ss_sp = memory;
    stack.ss_size = size;
    if (sigaltstack(&stack, nullptr) != 0) {
      std::free(memory);
      memory = nullptr;
    }
  }
  ~AltStack() {
    if (memory == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    std::free(memory);
  }
  AltStack(const AltStack &) = delete;
  AltStack &operator=(const AltStack &) = delete;
};

}  // namespace

void install_fault_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kFatalSignals) {
      struct sigaction action {};
      action.sa_sigaction = on_fatal_signal;
      action.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&action.sa_mask);
      sigaction(sig, &action, &g_previous[sig]);
    }
    std::atexit(on_exit_guard);
  });
  thread_local AltStack alt_stack;
  (void)alt_stack;
}

FaultScope::FaultScope(const std::string &what, CallState &state) : state_(state), previous_(t_scope) {
  const size_t n = std::min(what.size(), kCapacity - 1);
  std::memcpy(text_, what.data(), n);
  text_[n] = '\0';
  std::memcpy(g_last_text, text_, n + 1);
  state_.store(0);
  g_in_flight.fetch_add(1);
  t_scope = this;
}

FaultScope::~FaultScope() { finish(); }

bool FaultScope::finish() {
  if (finished_) return state_.load() != 2;
  finished_ = true;
  t_scope = previous_;
  int expected = 0;
  if (state_.compare_exchange_strong(expected, 1)) {
    g_in_flight.fetch_sub(1);
    return true;
  }
  return false;  // abandoned by the engine (which took it out of the count)
}

bool abandon_plugin_call(CallState &state) {
  int expected = 0;
  if (!state.compare_exchange_strong(expected, 2)) return false;
  g_in_flight.fetch_sub(1);
  g_abandoned.fetch_add(1);
  return true;
}

size_t abandoned_plugin_calls() { return g_abandoned.load(); }

void fault_guard_in_child() { g_in_child.store(true); }

}  // namespace perfbound
