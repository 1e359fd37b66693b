//===- process_inl.hpp - WorkerProcess::read_line (template) ---------------===//
#ifndef PERFBOUND_TIMING_PROCESS_INL_HPP
#define PERFBOUND_TIMING_PROCESS_INL_HPP

#include <algorithm>

namespace pb::bench {

template <class Interrupted, class Tick>
WorkerProcess::ReadStatus WorkerProcess::read_line(std::chrono::steady_clock::time_point deadline, std::string &line,
                                                   Interrupted interrupted, double tick_interval_s, Tick on_tick) {
  using Clock = std::chrono::steady_clock;
  auto next_tick = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(tick_interval_s));
  while (true) {
    if (interrupted()) return ReadStatus::kInterrupted;
    auto now = Clock::now();
    if (now >= deadline) return ReadStatus::kTimeout;
    if (tick_interval_s > 0 && now >= next_tick) {
      on_tick();
      next_tick = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(tick_interval_s));
    }
    auto wait = std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(50));
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
    ReadStatus status = poll_line(std::max(wait_ms, 1), line);
    if (status != ReadStatus::kTimeout) return status;
  }
}

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_PROCESS_INL_HPP
