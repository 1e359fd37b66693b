//===- perfbound/sdk/cancel.hpp - stopping long loops when asked -----------===//
//
// A user's Ctrl-C (or a node's deadline) must end a 40 MB extraction or the
// reading of a 1 GB profiler CSV within a second or two, not when the loop is
// done. Readers deep inside a plugin do not hold the run context, so the
// request travels through one thread-local test:
//   - the SDK sets it while a node runs (pb_run_context.cancelled());
//   - a command sets it for its own flag with a CancelScope;
//   - a long loop calls poll_cancel() once per item: every 4096th call asks
//     the test and throws Error(PB_ERR_CANCELLED) when it says stop.
// Without a test (a standalone driver, a unit test) nothing is ever
// cancelled and a poll costs one increment and one branch.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_CANCEL_HPP
#define PERFBOUND_SDK_CANCEL_HPP

#include <cstdint>
#include <functional>
#include <utility>

#include "perfbound/sdk/json.hpp"  // Error

namespace pb::sdk {

namespace detail {
inline std::function<bool()> &cancel_test() {
  thread_local std::function<bool()> test;
  return test;
}
inline std::uint32_t &cancel_polls() {
  thread_local std::uint32_t polls = 0;
  return polls;
}
}  // namespace detail

/// While alive, `test` says on this thread whether the work should stop.
/// Nests: the previous test comes back when the scope ends.
class CancelScope {
 public:
  explicit CancelScope(std::function<bool()> test) : previous_(std::move(detail::cancel_test())) {
    detail::cancel_test() = std::move(test);
  }
  ~CancelScope() { detail::cancel_test() = std::move(previous_); }
  CancelScope(const CancelScope &) = delete;
  CancelScope &operator=(const CancelScope &) = delete;

 private:
  std::function<bool()> previous_;
};

/// This thread's test, to hand to a thread it starts for the same work
/// (`CancelScope scope(test)` there).
inline std::function<bool()> cancel_test_of_this_thread() { return detail::cancel_test(); }

/// True when this thread's work was asked to stop.
inline bool cancel_requested() {
  const std::function<bool()> &test = detail::cancel_test();
  return test && test();
}

/// Throws Error(PB_ERR_CANCELLED, "interrupted") when asked to stop.
inline void throw_if_cancelled() {
  if (cancel_requested()) throw Error(PB_ERR_CANCELLED, "interrupted: asked to stop before finishing");
}

/// For hot loops: asks every 4096th call (an item of a reader: a token, a
/// CSV row, an op), throwing like throw_if_cancelled().
inline void poll_cancel() {
  if ((++detail::cancel_polls() & 0xFFFu) == 0) throw_if_cancelled();
}

}  // namespace pb::sdk

#endif  // PERFBOUND_SDK_CANCEL_HPP
