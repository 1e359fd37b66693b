//===- cpu_backend.cpp - perfbound.timing_cpu: the CPU timing backend -------===//
//
// A timing backend that builds and runs on any machine, so every path of the
// queued protocol (shield, queued events, flush, ramp, journal, watchdog) is
// exercised without an accelerator.
//
// A CPU has no device queue, so this backend makes one: a stream thread runs
// queued tasks in order, exactly like a device stream runs queued commands.
// An event is a task that reads CLOCK_MONOTONIC (std::chrono::steady_clock)
// when the stream reaches it; the launch shield is a task that blocks the
// stream on a condition variable until released (or until its timeout); the
// flush is a task that writes a buffer the size of the last-level cache.
// GEMMs call OpenBLAS: dgemm when an operand is fp64, else sgemm, with
// fp16/bf16 operands converted to fp32 once when the GEMM is created (they
// arrive pre-quantized) and the output rounded to the output dtype inside
// the timed call.
//
// Devices: device i is the i-th logical CPU of the process's affinity mask
// (sched_getaffinity: what a shell, taskset or a Slurm allocation gives the
// process). Opening device i pins the opening thread, and so the stream
// thread it starts, to that CPU and runs OpenBLAS single-threaded, so one
// worker per device measures on one core and several workers run side by
// side without sharing a core. A machine with 2 CPUs has 2 devices.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cblas.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <perfbound/sdk/plugin.hpp>

#include "../common/backend_support.hpp"
#include "../common/float_codec.hpp"

// Session objects are defined here; the ABI only sees opaque pointers.
struct pb_timing_event {
  int64_t timestamp_ns = 0;
  bool recorded = false;   // event_record was called
  bool completed = false;  // the stream reached it
};

namespace {

namespace codec = pb::timing_codec;
using pb::sdk::json;

using pb::timing_backend::dtype_bytes;
using pb::timing_backend::fail;
using pb::timing_backend::send;

/// nullopt when supported, else the reason. cblas takes int dimensions.
std::optional<std::string> unsupported_reason(const pb_timing_gemm_desc *desc) {
  return pb::timing_backend::basic_gemm_problem(desc, "cpu", 0x7fffffff);
}

/// The last-level cache size, or 0 when the system does not say.
size_t last_level_cache_bytes() {
  for (int name : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    long size = sysconf(name);
    if (size > 0) return static_cast<size_t>(size);
  }
  return 0;
}

constexpr size_t kFallbackFlushBytes = size_t{64} << 20;

/// The flush writes as many bytes as the last-level cache holds (NVBench and
/// OperatorX flush exactly the L2 size the same way), at least 8 MiB.
size_t flush_bytes() {
  size_t llc = last_level_cache_bytes();
  return llc > 0 ? std::max<size_t>(llc, size_t{8} << 20) : kFallbackFlushBytes;
}

/// The logical CPUs this process may run on, ascending.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

std::string no_such_device(uint32_t device_index, size_t count) {
  return "cpu backend: device " + std::to_string(device_index) + " does not exist (devices are the " +
         std::to_string(count) + " logical CPU(s) of this process's affinity mask, 0.." +
         std::to_string(count == 0 ? 0 : count - 1) + ")";
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    std::string value = line.substr(colon + 1);
    size_t first = value.find_first_not_of(" \t");
    return first == std::string::npos ? std::string() : value.substr(first);
  }
  return {};
}

/// In-order task queue served by one thread: the CPU's "device stream".
class Stream {
 public:
  Stream() : thread_([this] { serve(); }) {}
  ~Stream() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      shield_released_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  void enqueue(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    changed_.notify_all();
  }

  void synchronize() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return tasks_.empty() && !busy_; });
  }

  /// Queues the shield: the stream waits here until release_shield() or the
  /// timeout, whichever comes first.
  void enqueue_shield(double timeout_s) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shield_pending_ = true;
      shield_released_ = false;
      shield_expired_ = false;
    }
    enqueue([this, timeout_s] {
      std::unique_lock<std::mutex> lock(mutex_);
      auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
      bool released = changed_.wait_until(lock, deadline, [this] { return shield_released_; });
      if (!released) shield_expired_ = true;
    });
  }

  /// Returns false when the shield had already expired.
  bool release_shield(bool &had_shield) {
    bool expired = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      had_shield = shield_pending_;
      shield_pending_ = false;
      shield_released_ = true;
      expired = shield_expired_;
    }
    changed_.notify_all();
    return !expired;
  }

 private:
  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      changed_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty() && stopping_) return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      busy_ = true;
      lock.unlock();
      task();
      lock.lock();
      busy_ = false;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  bool busy_ = false;
  bool stopping_ = false;
  bool shield_pending_ = false;
  bool shield_released_ = true;
  bool shield_expired_ = false;
  std::thread thread_;  // last: starts after the state above is built
};

}  // namespace

struct pb_timing_session {
  std::vector<unsigned char> flush_buffer = std::vector<unsigned char>(flush_bytes());
  unsigned char flush_round = 0;
  std::string last_error;
  // Last, so it is destroyed first: its destructor drains queued tasks,
  // which may still touch the members above.
  std::unique_ptr<Stream> stream = std::make_unique<Stream>();
};

struct pb_timing_gemm {
  pb_timing_gemm_desc desc{};
  bool use_fp64 = false;
  std::vector<float> a32, b32, c32;
  std::vector<double> a64, b64, c64;
  std::vector<unsigned char> out;  // C in the output dtype
};

namespace {

template <class T>
void widen(const void *src, uint32_t dtype, size_t count, std::vector<T> &dst) {
  dst.resize(count);
  const auto *bytes = static_cast<const unsigned char *>(src);
  for (size_t idx = 0; idx < count; ++idx) {
    switch (dtype) {
      case PB_TIMING_DTYPE_FP64: {
        double value = 0;
        std::memcpy(&value, bytes + idx * 8, 8);
        dst[idx] = static_cast<T>(value);
        break;
      }
      case PB_TIMING_DTYPE_FP32: {
        float value = 0;
        std::memcpy(&value, bytes + idx * 4, 4);
        dst[idx] = static_cast<T>(value);
        break;
      }
      case PB_TIMING_DTYPE_FP16:
      case PB_TIMING_DTYPE_BF16: {
        uint16_t bits = 0;
        std::memcpy(&bits, bytes + idx * 2, 2);
        float value = dtype == PB_TIMING_DTYPE_FP16 ? codec::fp16_to_float(bits) : codec::bf16_to_float(bits);
        dst[idx] = static_cast<T>(value);
        break;
      }
      default: break;
    }
  }
}

template <class T>
void narrow_output(const std::vector<T> &src, uint32_t dtype, std::vector<unsigned char> &out) {
  for (size_t idx = 0; idx < src.size(); ++idx) {
    switch (dtype) {
      case PB_TIMING_DTYPE_FP64: {
        auto value = static_cast<double>(src[idx]);
        std::memcpy(out.data() + idx * 8, &value, 8);
        break;
      }
      case PB_TIMING_DTYPE_FP32: {
        auto value = static_cast<float>(src[idx]);
        std::memcpy(out.data() + idx * 4, &value, 4);
        break;
      }
      case PB_TIMING_DTYPE_FP16:
      case PB_TIMING_DTYPE_BF16: {
        auto value = static_cast<float>(src[idx]);
        uint16_t bits = dtype == PB_TIMING_DTYPE_FP16 ? codec::float_to_fp16(value) : codec::float_to_bf16(value);
        std::memcpy(out.data() + idx * 2, &bits, 2);
        break;
      }
      default: break;
    }
  }
}

void run_gemm(pb_timing_gemm &gemm) {
  const auto m = static_cast<int>(gemm.desc.m);
  const auto n = static_cast<int>(gemm.desc.n);
  const auto k = static_cast<int>(gemm.desc.k);
  // Row-major C[m,n] = A[m,k] * B[n,k]^T.
  if (gemm.use_fp64) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, gemm.a64.data(), k, gemm.b64.data(), k, 0.0,
                gemm.c64.data(), n);
    narrow_output(gemm.c64, gemm.desc.out_dtype, gemm.out);
  } else {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, gemm.a32.data(), k, gemm.b32.data(), k, 0.0f,
                gemm.c32.data(), n);
    narrow_output(gemm.c32, gemm.desc.out_dtype, gemm.out);
  }
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

//===----------------------------------------------------------------------===//
// The C table
//===----------------------------------------------------------------------===//

pb_status cpu_device_count(uint32_t *count, pb_text_sink, void *) {
  if (count == nullptr) return PB_ERR_INVALID_ARGUMENT;
  *count = static_cast<uint32_t>(allowed_cpus().size());
  return PB_OK;
}

pb_status cpu_describe_device(uint32_t device_index, pb_text_sink sink, void *sink_data) {
  std::vector<int> cpus = allowed_cpus();
  if (device_index >= cpus.size()) {
    send(sink, sink_data, no_such_device(device_index, cpus.size()));
    return PB_ERR_INFRA;
  }
  json identity;
  std::string model = cpu_model_name();
  identity["name"] = model.empty() ? json(nullptr) : json(model);
  if (model.empty()) identity["name_reason"] = "/proc/cpuinfo has no 'model name' line";
  identity["driver_version"] = nullptr;
  identity["driver_version_reason"] = "a CPU has no device driver";
  identity["runtime_version"] = std::string("OpenBLAS ") + openblas_get_config();
  identity["bus_id"] = nullptr;
  identity["bus_id_reason"] = "the host CPU is not a PCI device";
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  identity["memory_bytes"] = pages > 0 && page_size > 0 ? json(static_cast<int64_t>(pages) * page_size) : json(nullptr);
  identity["logical_cpus"] = static_cast<int64_t>(sysconf(_SC_NPROCESSORS_ONLN));
  identity["cpu"] = cpus[device_index];
  identity["unique_id"] = "cpu" + std::to_string(cpus[device_index]);
  identity["device_meaning"] = "logical CPU " + std::to_string(cpus[device_index]) +
                               " (device " + std::to_string(device_index) +
                               " of the process's affinity mask); the stream thread and a single-threaded OpenBLAS "
                               "are pinned to it";
  identity["blas_core"] = openblas_get_corename();
  identity["blas_threads"] = 1;
  size_t llc = last_level_cache_bytes();
  identity["last_level_cache_bytes"] = llc > 0 ? json(llc) : json(nullptr);
  if (llc == 0) identity["last_level_cache_bytes_reason"] = "sysconf reports no cache size";
  identity["flush_bytes"] = flush_bytes();
  std::string text = identity.dump();
  send(sink, sink_data, text);
  return PB_OK;
}

pb_status cpu_gemm_supported(const pb_timing_gemm_desc *desc, pb_text_sink sink, void *sink_data) {
  if (desc == nullptr || desc->struct_size < sizeof(pb_timing_gemm_desc)) return PB_ERR_INVALID_ARGUMENT;
  if (auto reason = unsupported_reason(desc)) {
    send(sink, sink_data, *reason);
    return PB_ERR_UNSUPPORTED;
  }
  return PB_OK;
}

pb_status cpu_open(uint32_t device_index, pb_timing_session **out_session, pb_text_sink sink, void *sink_data) {
  if (out_session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  std::vector<int> cpus = allowed_cpus();
  if (device_index >= cpus.size()) {
    send(sink, sink_data, no_such_device(device_index, cpus.size()));
    return PB_ERR_INFRA;
  }
  // Pin this thread before the session starts its stream thread, which
  // inherits the mask; OpenBLAS then runs on the calling (stream) thread.
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[device_index], &set);
  if (int error = pthread_setaffinity_np(pthread_self(), sizeof set, &set); error != 0) {
    send(sink, sink_data, "cpu backend: cannot pin to logical CPU " + std::to_string(cpus[device_index]) + ": " +
                              std::strerror(error));
    return PB_ERR_INFRA;
  }
  openblas_set_num_threads(1);
  try {
    *out_session = new pb_timing_session();
  } catch (const std::exception &e) {
    send(sink, sink_data, std::string("cpu backend: cannot open: ") + e.what());
    return PB_ERR_RESOURCE;
  }
  return PB_OK;
}

void cpu_close(pb_timing_session *session) { delete session; }

const char *cpu_last_error(const pb_timing_session *session) {
  return session != nullptr ? session->last_error.c_str() : "";
}

pb_status cpu_gemm_create(pb_timing_session *session, const pb_timing_gemm_desc *desc, const void *a, const void *b,
                          pb_timing_gemm **out_gemm) {
  if (session == nullptr || desc == nullptr || a == nullptr || b == nullptr || out_gemm == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_create: NULL argument");
  if (auto reason = unsupported_reason(desc)) return fail(session, PB_ERR_UNSUPPORTED, *reason);
  try {
    auto gemm = std::make_unique<pb_timing_gemm>();
    gemm->desc = *desc;
    gemm->desc.struct_size = sizeof(pb_timing_gemm_desc);
    gemm->use_fp64 = desc->a_dtype == PB_TIMING_DTYPE_FP64 || desc->b_dtype == PB_TIMING_DTYPE_FP64;
    size_t a_count = desc->m * desc->k;
    size_t b_count = desc->n * desc->k;
    size_t c_count = desc->m * desc->n;
    if (gemm->use_fp64) {
      widen(a, desc->a_dtype, a_count, gemm->a64);
      widen(b, desc->b_dtype, b_count, gemm->b64);
      gemm->c64.assign(c_count, 0.0);
    } else {
      widen(a, desc->a_dtype, a_count, gemm->a32);
      widen(b, desc->b_dtype, b_count, gemm->b32);
      gemm->c32.assign(c_count, 0.0f);
    }
    gemm->out.assign(c_count * dtype_bytes(desc->out_dtype), 0);
    *out_gemm = gemm.release();
  } catch (const std::bad_alloc &) {
    return fail(session, PB_ERR_RESOURCE, "gemm_create: out of memory");
  }
  return PB_OK;
}

pb_status cpu_gemm_enqueue(pb_timing_session *session, pb_timing_gemm *gemm) {
  if (session == nullptr || gemm == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_enqueue: NULL argument");
  session->stream->enqueue([gemm] { run_gemm(*gemm); });
  return PB_OK;
}

pb_status cpu_gemm_read_output(pb_timing_session *session, pb_timing_gemm *gemm, void *out, size_t out_bytes) {
  if (session == nullptr || gemm == nullptr || out == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_read_output: NULL argument");
  session->stream->synchronize();
  if (out_bytes < gemm->out.size())
    return fail(session, PB_ERR_INVALID_ARGUMENT,
                "gemm_read_output: buffer holds " + std::to_string(out_bytes) + " bytes, the output needs " +
                    std::to_string(gemm->out.size()));
  std::memcpy(out, gemm->out.data(), gemm->out.size());
  return PB_OK;
}

void cpu_gemm_destroy(pb_timing_session *session, pb_timing_gemm *gemm) {
  if (session != nullptr) session->stream->synchronize();  // a queued call may still use it
  delete gemm;
}

pb_status cpu_event_create(pb_timing_session *session, pb_timing_event **out_event) {
  if (session == nullptr || out_event == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_create: NULL argument");
  *out_event = new pb_timing_event();
  return PB_OK;
}

void cpu_event_destroy(pb_timing_session *session, pb_timing_event *event) {
  if (session != nullptr) session->stream->synchronize();
  delete event;
}

pb_status cpu_event_record(pb_timing_session *session, pb_timing_event *event) {
  if (session == nullptr || event == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_record: NULL argument");
  event->recorded = true;
  event->completed = false;
  session->stream->enqueue([event] {
    event->timestamp_ns = now_ns();
    event->completed = true;
  });
  return PB_OK;
}

pb_status cpu_event_elapsed_us(pb_timing_session *session, const pb_timing_event *start, const pb_timing_event *end,
                               double *out_us) {
  if (session == nullptr || start == nullptr || end == nullptr || out_us == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: NULL argument");
  if (!start->recorded || !end->recorded) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: an event was never recorded");
  if (!start->completed || !end->completed)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: an event has not completed (synchronize first)");
  *out_us = static_cast<double>(end->timestamp_ns - start->timestamp_ns) / 1000.0;
  return PB_OK;
}

pb_status cpu_shield_enqueue(pb_timing_session *session, double timeout_s) {
  if (session == nullptr || !(timeout_s > 0)) return fail(session, PB_ERR_INVALID_ARGUMENT, "shield_enqueue: bad argument");
  session->stream->enqueue_shield(timeout_s);
  return PB_OK;
}

pb_status cpu_shield_release(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  bool had_shield = false;
  bool held = session->stream->release_shield(had_shield);
  if (!had_shield) return fail(session, PB_ERR_INVALID_ARGUMENT, "shield_release: no shield is queued");
  if (!held) return fail(session, PB_ERR_INFRA, "the launch shield expired before it was released");
  return PB_OK;
}

pb_status cpu_flush_enqueue(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  session->stream->enqueue([session] {
    // A different byte each time, so no layer can skip the write.
    ++session->flush_round;
    std::memset(session->flush_buffer.data(), session->flush_round, session->flush_buffer.size());
  });
  return PB_OK;
}

pb_status cpu_synchronize(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  session->stream->synchronize();
  return PB_OK;
}

const pb_ext_timing_backend kCpuBackend = {
    sizeof(pb_ext_timing_backend),
    "cpu",
    "std::chrono::steady_clock (CLOCK_MONOTONIC) read by the stream thread when it reaches the event",
    "the stream thread blocks on a condition variable until released or until the timeout",
    "the stream thread writes a buffer the size of the last-level cache (64 MiB when the size is unknown)",
    cpu_device_count,
    cpu_describe_device,
    cpu_gemm_supported,
    cpu_open,
    cpu_close,
    cpu_last_error,
    cpu_gemm_create,
    cpu_gemm_enqueue,
    cpu_gemm_read_output,
    cpu_gemm_destroy,
    cpu_event_create,
    cpu_event_destroy,
    cpu_event_record,
    cpu_event_elapsed_us,
    cpu_shield_enqueue,
    cpu_shield_release,
    cpu_flush_enqueue,
    cpu_synchronize,
};

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.timing_cpu", "CPU timing backend (OpenBLAS)", "0.1.0"};
  spec.vendor = "perfbound";
  spec.description =
      "Times GEMMs on the host CPU for perfbound bench: a stream thread stands in for a device queue, "
      "OpenBLAS runs the GEMMs, fp16/bf16 are emulated through fp32.";
  spec.raw_extensions[PB_EXT_TIMING_BACKEND] = &kCpuBackend;
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
