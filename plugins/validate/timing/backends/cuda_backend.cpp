//===- cuda_backend.cpp - perfbound.timing_cuda: CUDA events + cuBLAS -------===//
//
// Built when the CUDA toolkit is found; runs where a GPU and its driver are.
// Events are cudaEvents recorded on one non-blocking stream (elapsed time from
// cudaEventElapsedTime, ms -> us); GEMMs are cublasGemmEx with fp32
// accumulation (fp64 for fp64); the launch shield is a one-thread kernel that
// spins on a mapped host word (cuda_shield.cu); the flush is a
// cudaMemsetAsync over twice the L2 size.
//
//===----------------------------------------------------------------------===//
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include <perfbound/sdk/plugin.hpp>

#include "../common/backend_support.hpp"

cudaError_t pb_cuda_enqueue_shield(const uint64_t *release_device, uint32_t *expired_device, uint64_t timeout_ns,
                                   cudaStream_t stream);

struct pb_timing_session {
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  void *flush_buffer = nullptr;
  size_t flush_bytes = 0;
  int flush_round = 0;
  uint64_t *release_host = nullptr;  // mapped pinned memory
  uint64_t *release_device = nullptr;
  uint32_t *expired_host = nullptr;
  uint32_t *expired_device = nullptr;
  bool shield_pending = false;
  std::string last_error;
};

struct pb_timing_gemm {
  pb_timing_gemm_desc desc{};
  void *a = nullptr;
  void *b = nullptr;
  void *c = nullptr;
  size_t c_bytes = 0;
};

struct pb_timing_event {
  cudaEvent_t event = nullptr;
  bool recorded = false;
};

namespace {

using pb::sdk::json;

using pb::timing_backend::fail;
using pb::timing_backend::send;

std::string cuda_text(const char *call, cudaError_t error) {
  return std::string(call) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
}

std::string blas_text(const char *call, cublasStatus_t status) {
  return std::string(call) + ": cuBLAS status " + std::to_string(static_cast<int>(status));
}

using pb::timing_backend::dtype_bytes;

cudaDataType_t cuda_type(uint32_t dtype) {
  switch (dtype) {
    case PB_TIMING_DTYPE_FP64: return CUDA_R_64F;
    case PB_TIMING_DTYPE_FP32: return CUDA_R_32F;
    case PB_TIMING_DTYPE_FP16: return CUDA_R_16F;
    default: return CUDA_R_16BF;
  }
}

/// nullopt when cublasGemmEx runs this combination, else why not.
std::optional<std::string> unsupported_reason(const pb_timing_gemm_desc *desc) {
  if (auto problem = pb::timing_backend::basic_gemm_problem(desc, "cuda", INT_MAX)) return problem;
  if (desc->a_dtype != desc->b_dtype) return "cuda backend: cublasGemmEx needs A and B of the same dtype";
  bool out_ok = false;
  switch (desc->a_dtype) {
    case PB_TIMING_DTYPE_FP64: out_ok = desc->out_dtype == PB_TIMING_DTYPE_FP64; break;
    case PB_TIMING_DTYPE_FP32: out_ok = desc->out_dtype == PB_TIMING_DTYPE_FP32; break;
    default: out_ok = desc->out_dtype == desc->a_dtype || desc->out_dtype == PB_TIMING_DTYPE_FP32; break;
  }
  if (!out_ok) return "cuda backend: this output dtype is not a cublasGemmEx combination for these inputs";
  return std::nullopt;
}

pb_status check_cuda(pb_timing_session *session, const char *call, cudaError_t error) {
  if (error == cudaSuccess) return PB_OK;
  return fail(session, error == cudaErrorMemoryAllocation ? PB_ERR_RESOURCE : PB_ERR_INFRA, cuda_text(call, error));
}

pb_status cuda_device_count(uint32_t *count, pb_text_sink sink, void *sink_data) {
  if (count == nullptr) return PB_ERR_INVALID_ARGUMENT;
  int devices = 0;
  cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess) {
    send(sink, sink_data, cuda_text("cudaGetDeviceCount", error));
    return PB_ERR_INFRA;
  }
  *count = static_cast<uint32_t>(devices);
  return PB_OK;
}

std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

pb_status cuda_describe_device(uint32_t device_index, pb_text_sink sink, void *sink_data) {
  cudaDeviceProp properties{};
  cudaError_t error = cudaGetDeviceProperties(&properties, static_cast<int>(device_index));
  if (error != cudaSuccess) {
    send(sink, sink_data, cuda_text("cudaGetDeviceProperties", error));
    return PB_ERR_INFRA;
  }
  json identity;
  identity["name"] = properties.name;
  int driver = 0;
  int runtime = 0;
  identity["driver_version"] = cudaDriverGetVersion(&driver) == cudaSuccess ? json("CUDA " + version_text(driver)) : json(nullptr);
  identity["runtime_version"] = cudaRuntimeGetVersion(&runtime) == cudaSuccess ? json("CUDA runtime " + version_text(runtime)) : json(nullptr);
  char bus_id[32] = {};
  identity["bus_id"] = cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, static_cast<int>(device_index)) == cudaSuccess
                           ? json(std::string(bus_id))
                           : json(nullptr);
  identity["memory_bytes"] = static_cast<uint64_t>(properties.totalGlobalMem);
  identity["compute_capability"] = std::to_string(properties.major) + "." + std::to_string(properties.minor);
  int value = 0;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, static_cast<int>(device_index)) == cudaSuccess)
    identity["multiprocessors"] = value;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrL2CacheSize, static_cast<int>(device_index)) == cudaSuccess)
    identity["l2_cache_bytes"] = value;
  int blas_version = 0;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS) {
    if (cublasGetVersion(handle, &blas_version) == CUBLAS_STATUS_SUCCESS) identity["cublas_version"] = blas_version;
    cublasDestroy(handle);
  }
  send(sink, sink_data, identity.dump());
  return PB_OK;
}

pb_status cuda_gemm_supported(const pb_timing_gemm_desc *desc, pb_text_sink sink, void *sink_data) {
  if (desc == nullptr || desc->struct_size < sizeof(pb_timing_gemm_desc)) return PB_ERR_INVALID_ARGUMENT;
  if (auto reason = unsupported_reason(desc)) {
    send(sink, sink_data, *reason);
    return PB_ERR_UNSUPPORTED;
  }
  return PB_OK;
}

void release_session(pb_timing_session *session) {
  if (session == nullptr) return;
  if (session->stream != nullptr) cudaStreamSynchronize(session->stream);
  if (session->blas != nullptr) cublasDestroy(session->blas);
  if (session->flush_buffer != nullptr) cudaFree(session->flush_buffer);
  if (session->release_host != nullptr) cudaFreeHost(session->release_host);
  if (session->expired_host != nullptr) cudaFreeHost(session->expired_host);
  if (session->stream != nullptr) cudaStreamDestroy(session->stream);
  delete session;
}

pb_status cuda_open(uint32_t device_index, pb_timing_session **out_session, pb_text_sink sink, void *sink_data) {
  if (out_session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  auto session = std::make_unique<pb_timing_session>();
  session->device = static_cast<int>(device_index);
  auto step = [&](const char *call, cudaError_t error) {
    if (error == cudaSuccess) return true;
    send(sink, sink_data, cuda_text(call, error));
    return false;
  };
  int l2_bytes = 0;
  bool ok = step("cudaSetDevice", cudaSetDevice(session->device)) &&
            step("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&session->stream, cudaStreamNonBlocking)) &&
            step("cudaDeviceGetAttribute(L2)", cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, session->device));
  if (ok) {
    session->flush_bytes = std::max<size_t>(2 * static_cast<size_t>(l2_bytes), size_t{8} << 20);
    ok = step("cudaMalloc(flush)", cudaMalloc(&session->flush_buffer, session->flush_bytes)) &&
         step("cudaHostAlloc(release)", cudaHostAlloc(reinterpret_cast<void **>(&session->release_host), sizeof(uint64_t),
                                                      cudaHostAllocMapped)) &&
         step("cudaHostAlloc(expired)", cudaHostAlloc(reinterpret_cast<void **>(&session->expired_host), sizeof(uint32_t),
                                                      cudaHostAllocMapped)) &&
         step("cudaHostGetDevicePointer", cudaHostGetDevicePointer(reinterpret_cast<void **>(&session->release_device),
                                                                   session->release_host, 0)) &&
         step("cudaHostGetDevicePointer", cudaHostGetDevicePointer(reinterpret_cast<void **>(&session->expired_device),
                                                                   session->expired_host, 0));
  }
  if (ok) {
    cublasStatus_t status = cublasCreate(&session->blas);
    if (status == CUBLAS_STATUS_SUCCESS) status = cublasSetStream(session->blas, session->stream);
    if (status != CUBLAS_STATUS_SUCCESS) {
      send(sink, sink_data, blas_text("cublasCreate/cublasSetStream", status));
      ok = false;
    }
  }
  if (!ok) {
    release_session(session.release());
    return PB_ERR_INFRA;
  }
  *session->release_host = 1;
  *session->expired_host = 0;
  *out_session = session.release();
  return PB_OK;
}

void cuda_close(pb_timing_session *session) { release_session(session); }

const char *cuda_last_error(const pb_timing_session *session) { return session != nullptr ? session->last_error.c_str() : ""; }

pb_status cuda_gemm_create(pb_timing_session *session, const pb_timing_gemm_desc *desc, const void *a, const void *b,
                           pb_timing_gemm **out_gemm) {
  if (session == nullptr || desc == nullptr || a == nullptr || b == nullptr || out_gemm == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_create: NULL argument");
  if (auto reason = unsupported_reason(desc)) return fail(session, PB_ERR_UNSUPPORTED, *reason);
  auto gemm = std::make_unique<pb_timing_gemm>();
  gemm->desc = *desc;
  size_t a_bytes = desc->m * desc->k * dtype_bytes(desc->a_dtype);
  size_t b_bytes = desc->n * desc->k * dtype_bytes(desc->b_dtype);
  gemm->c_bytes = desc->m * desc->n * dtype_bytes(desc->out_dtype);
  pb_status status = check_cuda(session, "cudaMalloc(A)", cudaMalloc(&gemm->a, a_bytes));
  if (status == PB_OK) status = check_cuda(session, "cudaMalloc(B)", cudaMalloc(&gemm->b, b_bytes));
  if (status == PB_OK) status = check_cuda(session, "cudaMalloc(C)", cudaMalloc(&gemm->c, gemm->c_bytes));
  if (status == PB_OK) status = check_cuda(session, "cudaMemcpy(A)", cudaMemcpy(gemm->a, a, a_bytes, cudaMemcpyHostToDevice));
  if (status == PB_OK) status = check_cuda(session, "cudaMemcpy(B)", cudaMemcpy(gemm->b, b, b_bytes, cudaMemcpyHostToDevice));
  if (status != PB_OK) {
    cudaFree(gemm->a);
    cudaFree(gemm->b);
    cudaFree(gemm->c);
    return status;
  }
  *out_gemm = gemm.release();
  return PB_OK;
}

pb_status cuda_gemm_enqueue(pb_timing_session *session, pb_timing_gemm *gemm) {
  if (session == nullptr || gemm == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_enqueue: NULL argument");
  const pb_timing_gemm_desc &desc = gemm->desc;
  const auto m = static_cast<int>(desc.m);
  const auto n = static_cast<int>(desc.n);
  const auto k = static_cast<int>(desc.k);
  // Row-major C[m,n] = A[m,k] B[n,k]^T is column-major C^T[n,m] = B A^T:
  // B (column-major k x n) transposed times A (column-major k x m).
  cublasStatus_t status;
  if (desc.a_dtype == PB_TIMING_DTYPE_FP64) {
    const double alpha = 1.0;
    const double beta = 0.0;
    status = cublasGemmEx(session->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, gemm->b, CUDA_R_64F, k, gemm->a,
                          CUDA_R_64F, k, &beta, gemm->c, CUDA_R_64F, n, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
  } else {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    status = cublasGemmEx(session->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, gemm->b, cuda_type(desc.b_dtype), k,
                          gemm->a, cuda_type(desc.a_dtype), k, &beta, gemm->c, cuda_type(desc.out_dtype), n,
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (status != CUBLAS_STATUS_SUCCESS) return fail(session, PB_ERR_INFRA, blas_text("cublasGemmEx", status));
  return PB_OK;
}

pb_status cuda_gemm_read_output(pb_timing_session *session, pb_timing_gemm *gemm, void *out, size_t out_bytes) {
  if (session == nullptr || gemm == nullptr || out == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_read_output: NULL argument");
  if (out_bytes < gemm->c_bytes) return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_read_output: buffer too small");
  pb_status status = check_cuda(session, "cudaStreamSynchronize", cudaStreamSynchronize(session->stream));
  if (status != PB_OK) return status;
  return check_cuda(session, "cudaMemcpy(C)", cudaMemcpy(out, gemm->c, gemm->c_bytes, cudaMemcpyDeviceToHost));
}

void cuda_gemm_destroy(pb_timing_session *session, pb_timing_gemm *gemm) {
  if (gemm == nullptr) return;
  if (session != nullptr) cudaStreamSynchronize(session->stream);
  cudaFree(gemm->a);
  cudaFree(gemm->b);
  cudaFree(gemm->c);
  delete gemm;
}

pb_status cuda_event_create(pb_timing_session *session, pb_timing_event **out_event) {
  if (session == nullptr || out_event == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_create: NULL argument");
  auto event = std::make_unique<pb_timing_event>();
  pb_status status = check_cuda(session, "cudaEventCreate", cudaEventCreate(&event->event));
  if (status != PB_OK) return status;
  *out_event = event.release();
  return PB_OK;
}

void cuda_event_destroy(pb_timing_session *, pb_timing_event *event) {
  if (event == nullptr) return;
  cudaEventDestroy(event->event);
  delete event;
}

pb_status cuda_event_record(pb_timing_session *session, pb_timing_event *event) {
  if (session == nullptr || event == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_record: NULL argument");
  event->recorded = true;
  return check_cuda(session, "cudaEventRecord", cudaEventRecord(event->event, session->stream));
}

pb_status cuda_event_elapsed_us(pb_timing_session *session, const pb_timing_event *start, const pb_timing_event *end,
                                double *out_us) {
  if (session == nullptr || start == nullptr || end == nullptr || out_us == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: NULL argument");
  if (!start->recorded || !end->recorded) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: an event was never recorded");
  float ms = 0;
  cudaError_t error = cudaEventElapsedTime(&ms, start->event, end->event);
  if (error == cudaErrorNotReady) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: an event has not completed");
  pb_status status = check_cuda(session, "cudaEventElapsedTime", error);
  if (status != PB_OK) return status;
  *out_us = static_cast<double>(ms) * 1000.0;
  return PB_OK;
}

pb_status cuda_shield_enqueue(pb_timing_session *session, double timeout_s) {
  if (session == nullptr || !(timeout_s > 0)) return fail(session, PB_ERR_INVALID_ARGUMENT, "shield_enqueue: bad argument");
  *reinterpret_cast<volatile uint64_t *>(session->release_host) = 0;
  *reinterpret_cast<volatile uint32_t *>(session->expired_host) = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  auto timeout_ns = static_cast<uint64_t>(timeout_s * 1e9);
  pb_status status = check_cuda(session, "shield kernel launch",
                                pb_cuda_enqueue_shield(session->release_device, session->expired_device, timeout_ns,
                                                       session->stream));
  if (status != PB_OK) {
    *reinterpret_cast<volatile uint64_t *>(session->release_host) = 1;
    return status;
  }
  session->shield_pending = true;
  return PB_OK;
}

pb_status cuda_shield_release(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  if (!session->shield_pending) return fail(session, PB_ERR_INVALID_ARGUMENT, "shield_release: no shield is queued");
  session->shield_pending = false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  bool expired = *reinterpret_cast<volatile uint32_t *>(session->expired_host) != 0;
  *reinterpret_cast<volatile uint64_t *>(session->release_host) = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (expired) return fail(session, PB_ERR_INFRA, "the launch shield kernel timed out before it was released");
  return PB_OK;
}

pb_status cuda_flush_enqueue(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  session->flush_round = (session->flush_round + 1) & 0xff;
  return check_cuda(session, "cudaMemsetAsync(flush)",
                    cudaMemsetAsync(session->flush_buffer, session->flush_round, session->flush_bytes, session->stream));
}

pb_status cuda_synchronize(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  return check_cuda(session, "cudaStreamSynchronize", cudaStreamSynchronize(session->stream));
}

const pb_ext_timing_backend kCudaBackend = {
    sizeof(pb_ext_timing_backend),
    "cuda",
    "cudaEvent recorded on the timing stream; cudaEventElapsedTime (ms, ~0.5 us resolution) x 1000",
    "a one-thread kernel spins on a mapped host word until released, or until 30 s of %globaltimer pass",
    "cudaMemsetAsync over a device buffer of twice the L2 cache size (at least 8 MiB)",
    cuda_device_count,
    cuda_describe_device,
    cuda_gemm_supported,
    cuda_open,
    cuda_close,
    cuda_last_error,
    cuda_gemm_create,
    cuda_gemm_enqueue,
    cuda_gemm_read_output,
    cuda_gemm_destroy,
    cuda_event_create,
    cuda_event_destroy,
    cuda_event_record,
    cuda_event_elapsed_us,
    cuda_shield_enqueue,
    cuda_shield_release,
    cuda_flush_enqueue,
    cuda_synchronize,
};

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.timing_cuda", "CUDA timing backend (CUDA events, cuBLAS)", "0.1.0"};
  spec.vendor = "perfbound";
  spec.description =
      "Times GEMMs on an NVIDIA GPU for perfbound bench: cudaEvents on one stream, cublasGemmEx, a spin-kernel "
      "launch shield and an L2 flush by cudaMemsetAsync.";
  spec.raw_extensions[PB_EXT_TIMING_BACKEND] = &kCudaBackend;
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
