//===- cuda_shield.cu - the CUDA launch shield: a kernel that holds a stream -===//
//
// One thread spins until the host writes a non-zero value into a mapped
// (zero-copy) host word, or until `timeout_ns` of the GPU's global timer has
// passed, in which case it sets *expired. While it spins, the host queues
// the timed samples behind it on the same stream (the NVBench blocking-kernel
// idea, research/timing.md §2.1).
//
//===----------------------------------------------------------------------===//
#include <cstdint>

#include <cuda_runtime.h>

namespace {

__device__ uint64_t global_timer_ns() {
  uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void hold_stream(const volatile uint64_t *release, volatile uint32_t *expired, uint64_t timeout_ns) {
  uint64_t start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *expired = 1;
      return;
    }
  }
}

}  // namespace

/// Queues the shield kernel on `stream`; returns the launch error.
cudaError_t pb_cuda_enqueue_shield(const uint64_t *release_device, uint32_t *expired_device, uint64_t timeout_ns,
                                   cudaStream_t stream) {
  hold_stream<<<1, 1, 0, stream>>>(release_device, expired_device, timeout_ns);
  return cudaGetLastError();
}
