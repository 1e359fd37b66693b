//===- acl_backend.cpp - perfbound.timing_acl: Ascend NPU via CANN ACL ------===//
//
// Built only when the CANN toolkit headers (acl/acl.h, aclnnop/aclnn_matmul.h)
// are found; NEVER BUILT OR RUN in perfbound's own development environment,
// which has no CANN and no NPU (docs/timing.md, "Backends"). The calls follow
// the CANN runtime documentation cited in research/timing.md §1.2:
//   events ....... aclrtCreateEvent / aclrtRecordEvent / aclrtEventElapsedTime
//   GEMM ......... aclnnMatmulGetWorkspaceSize + aclnnMatmul (cubeMathType 0,
//                  KEEP_DTYPE); B [n,k] is passed as a transposed [k,n] view
//   shield ....... aclrtValueWait(flag, 1, GEQ) queued on the timing stream,
//                  released by aclrtValueWrite(flag, 1) on a second stream
//                  (supported on Atlas A2/A3/350). ValueWait has no timeout:
//                  a lost release is caught by the harness's watchdog.
//   flush ........ aclrtMemsetAsync over 384 MiB (twice the 192 MiB L2 of
//                  910B; triton-ascend flushes 192 MiB)
//
//===----------------------------------------------------------------------===//
#include <acl/acl.h>
#include <aclnnop/aclnn_matmul.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <perfbound/sdk/plugin.hpp>

#include "../common/backend_support.hpp"

struct pb_timing_session {
  int32_t device = 0;
  aclrtStream stream = nullptr;
  aclrtStream release_stream = nullptr;
  void *flush_buffer = nullptr;
  size_t flush_bytes = size_t{384} << 20;
  int32_t flush_round = 0;
  void *shield_flag = nullptr;  // 8 bytes of device memory
  bool shield_pending = false;
  std::string last_error;
};

struct pb_timing_gemm {
  pb_timing_gemm_desc desc{};
  void *a = nullptr;
  void *b = nullptr;
  void *c = nullptr;
  size_t c_bytes = 0;
  aclTensor *a_tensor = nullptr;
  aclTensor *b_tensor = nullptr;
  aclTensor *c_tensor = nullptr;
  void *workspace = nullptr;
  uint64_t workspace_bytes = 0;
};

struct pb_timing_event {
  aclrtEvent event = nullptr;
  bool recorded = false;
};

namespace {

using pb::sdk::json;

constexpr uint32_t kValueWaitGeq = 0;  // ACL_VALUE_WAIT_GEQ / ACL_STREAM_WAIT_VALUE_GEQ

using pb::timing_backend::fail;
using pb::timing_backend::send;

std::string acl_text(const char *call, int code) {
  const char *detail = aclGetRecentErrMsg();
  return std::string(call) + " failed with ACL error " + std::to_string(code) + (detail != nullptr ? std::string(": ") + detail : "");
}

/// aclInit once per process.
bool ensure_init(std::string &error) {
  static std::once_flag once;
  static aclError status = ACL_SUCCESS;
  std::call_once(once, [] { status = aclInit(nullptr); });
  if (status != ACL_SUCCESS && status != ACL_ERROR_REPEAT_INITIALIZE) {
    error = acl_text("aclInit", status);
    return false;
  }
  return true;
}

aclDataType acl_type(uint32_t dtype) {
  switch (dtype) {
    case PB_TIMING_DTYPE_FP32: return ACL_FLOAT;
    case PB_TIMING_DTYPE_FP16: return ACL_FLOAT16;
    default: return ACL_BF16;
  }
}

std::optional<std::string> unsupported_reason(const pb_timing_gemm_desc *desc) {
  if (auto problem = pb::timing_backend::basic_gemm_problem(desc, "acl", uint64_t{1} << 31)) return problem;
  if (desc->a_dtype == PB_TIMING_DTYPE_FP64 || desc->b_dtype == PB_TIMING_DTYPE_FP64 || desc->out_dtype == PB_TIMING_DTYPE_FP64)
    return "acl backend: the cube unit has no fp64 GEMM";
  if (desc->a_dtype != desc->b_dtype || desc->out_dtype != desc->a_dtype)
    return "acl backend: aclnnMatmul (KEEP_DTYPE) needs A, B and the output in one dtype";
  return std::nullopt;
}

pb_status check(pb_timing_session *session, const char *call, int code) {
  if (code == ACL_SUCCESS) return PB_OK;
  return fail(session, PB_ERR_INFRA, acl_text(call, code));
}

pb_status acl_device_count(uint32_t *count, pb_text_sink sink, void *sink_data) {
  if (count == nullptr) return PB_ERR_INVALID_ARGUMENT;
  std::string error;
  if (!ensure_init(error)) {
    send(sink, sink_data, error);
    return PB_ERR_INFRA;
  }
  aclError status = aclrtGetDeviceCount(count);
  if (status != ACL_SUCCESS) {
    send(sink, sink_data, acl_text("aclrtGetDeviceCount", status));
    return PB_ERR_INFRA;
  }
  return PB_OK;
}

pb_status acl_describe_device(uint32_t device_index, pb_text_sink sink, void *sink_data) {
  std::string error;
  if (!ensure_init(error)) {
    send(sink, sink_data, error);
    return PB_ERR_INFRA;
  }
  aclError status = aclrtSetDevice(static_cast<int32_t>(device_index));
  if (status != ACL_SUCCESS) {
    send(sink, sink_data, acl_text("aclrtSetDevice", status));
    return PB_ERR_INFRA;
  }
  json identity;
  const char *soc = aclrtGetSocName();
  identity["name"] = soc != nullptr ? json(soc) : json(nullptr);
  int32_t major = 0;
  int32_t minor = 0;
  int32_t patch = 0;
  identity["runtime_version"] = aclrtGetVersion(&major, &minor, &patch) == ACL_SUCCESS
                                    ? json("ACL " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch))
                                    : json(nullptr);
  identity["driver_version"] = nullptr;
  identity["driver_version_reason"] = "ACL does not report the driver version; npu-smi does (--health npu-smi)";
  identity["bus_id"] = nullptr;
  identity["bus_id_reason"] = "ACL does not report the PCIe bus id; npu-smi does (--health npu-smi)";
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  identity["memory_bytes"] = aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes) == ACL_SUCCESS ? json(total_bytes) : json(nullptr);
  aclrtResetDevice(static_cast<int32_t>(device_index));
  send(sink, sink_data, identity.dump());
  return PB_OK;
}

pb_status acl_gemm_supported(const pb_timing_gemm_desc *desc, pb_text_sink sink, void *sink_data) {
  if (desc == nullptr || desc->struct_size < sizeof(pb_timing_gemm_desc)) return PB_ERR_INVALID_ARGUMENT;
  if (auto reason = unsupported_reason(desc)) {
    send(sink, sink_data, *reason);
    return PB_ERR_UNSUPPORTED;
  }
  return PB_OK;
}

void release_session(pb_timing_session *session) {
  if (session == nullptr) return;
  if (session->stream != nullptr) aclrtSynchronizeStream(session->stream);
  if (session->flush_buffer != nullptr) aclrtFree(session->flush_buffer);
  if (session->shield_flag != nullptr) aclrtFree(session->shield_flag);
  if (session->release_stream != nullptr) aclrtDestroyStream(session->release_stream);
  if (session->stream != nullptr) aclrtDestroyStream(session->stream);
  aclrtResetDevice(session->device);
  delete session;
}

pb_status acl_open(uint32_t device_index, pb_timing_session **out_session, pb_text_sink sink, void *sink_data) {
  if (out_session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  std::string error;
  if (!ensure_init(error)) {
    send(sink, sink_data, error);
    return PB_ERR_INFRA;
  }
  auto session = std::make_unique<pb_timing_session>();
  session->device = static_cast<int32_t>(device_index);
  auto step = [&](const char *call, aclError code) {
    if (code == ACL_SUCCESS) return true;
    send(sink, sink_data, acl_text(call, code));
    return false;
  };
  bool ok = step("aclrtSetDevice", aclrtSetDevice(session->device)) &&
            step("aclrtCreateStream", aclrtCreateStream(&session->stream)) &&
            step("aclrtCreateStream(release)", aclrtCreateStream(&session->release_stream)) &&
            step("aclrtMalloc(flush)", aclrtMalloc(&session->flush_buffer, session->flush_bytes, ACL_MEM_MALLOC_HUGE_FIRST)) &&
            step("aclrtMalloc(shield flag)", aclrtMalloc(&session->shield_flag, sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST));
  if (!ok) {
    release_session(session.release());
    return PB_ERR_INFRA;
  }
  *out_session = session.release();
  return PB_OK;
}

void acl_close(pb_timing_session *session) { release_session(session); }

const char *acl_last_error(const pb_timing_session *session) { return session != nullptr ? session->last_error.c_str() : ""; }

void free_gemm(pb_timing_gemm *gemm) {
  if (gemm->a_tensor != nullptr) aclDestroyTensor(gemm->a_tensor);
  if (gemm->b_tensor != nullptr) aclDestroyTensor(gemm->b_tensor);
  if (gemm->c_tensor != nullptr) aclDestroyTensor(gemm->c_tensor);
  if (gemm->workspace != nullptr) aclrtFree(gemm->workspace);
  if (gemm->a != nullptr) aclrtFree(gemm->a);
  if (gemm->b != nullptr) aclrtFree(gemm->b);
  if (gemm->c != nullptr) aclrtFree(gemm->c);
  delete gemm;
}

pb_status acl_gemm_create(pb_timing_session *session, const pb_timing_gemm_desc *desc, const void *a, const void *b,
                          pb_timing_gemm **out_gemm) {
  if (session == nullptr || desc == nullptr || a == nullptr || b == nullptr || out_gemm == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_create: NULL argument");
  if (auto reason = unsupported_reason(desc)) return fail(session, PB_ERR_UNSUPPORTED, *reason);
  auto *gemm = new pb_timing_gemm();
  gemm->desc = *desc;
  const auto m = static_cast<int64_t>(desc->m);
  const auto n = static_cast<int64_t>(desc->n);
  const auto k = static_cast<int64_t>(desc->k);
  size_t bytes = pb::timing_backend::dtype_bytes(desc->a_dtype);
  size_t a_bytes = static_cast<size_t>(m * k) * bytes;
  size_t b_bytes = static_cast<size_t>(n * k) * bytes;
  gemm->c_bytes = static_cast<size_t>(m * n) * bytes;
  pb_status status = check(session, "aclrtMalloc(A)", aclrtMalloc(&gemm->a, a_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  if (status == PB_OK) status = check(session, "aclrtMalloc(B)", aclrtMalloc(&gemm->b, b_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  if (status == PB_OK) status = check(session, "aclrtMalloc(C)", aclrtMalloc(&gemm->c, gemm->c_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  if (status == PB_OK)
    status = check(session, "aclrtMemcpy(A)", aclrtMemcpy(gemm->a, a_bytes, a, a_bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  if (status == PB_OK)
    status = check(session, "aclrtMemcpy(B)", aclrtMemcpy(gemm->b, b_bytes, b, b_bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  if (status == PB_OK) {
    aclDataType type = acl_type(desc->a_dtype);
    const int64_t a_dims[2] = {m, k};
    const int64_t a_strides[2] = {k, 1};
    // B is stored [n, k]; aclnnMatmul wants [k, n]: a transposed view.
    const int64_t b_view[2] = {k, n};
    const int64_t b_strides[2] = {1, k};
    const int64_t b_storage[2] = {n, k};
    const int64_t c_dims[2] = {m, n};
    const int64_t c_strides[2] = {n, 1};
    gemm->a_tensor = aclCreateTensor(a_dims, 2, type, a_strides, 0, ACL_FORMAT_ND, a_dims, 2, gemm->a);
    gemm->b_tensor = aclCreateTensor(b_view, 2, type, b_strides, 0, ACL_FORMAT_ND, b_storage, 2, gemm->b);
    gemm->c_tensor = aclCreateTensor(c_dims, 2, type, c_strides, 0, ACL_FORMAT_ND, c_dims, 2, gemm->c);
    if (gemm->a_tensor == nullptr || gemm->b_tensor == nullptr || gemm->c_tensor == nullptr)
      status = fail(session, PB_ERR_INFRA, "aclCreateTensor failed");
  }
  if (status == PB_OK) {
    // Size the workspace once; every enqueue builds a fresh executor.
    aclOpExecutor *executor = nullptr;
    status = check(session, "aclnnMatmulGetWorkspaceSize",
                   aclnnMatmulGetWorkspaceSize(gemm->a_tensor, gemm->b_tensor, gemm->c_tensor, 0, &gemm->workspace_bytes,
                                               &executor));
    if (status == PB_OK && gemm->workspace_bytes > 0)
      status = check(session, "aclrtMalloc(workspace)",
                     aclrtMalloc(&gemm->workspace, gemm->workspace_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  if (status != PB_OK) {
    free_gemm(gemm);
    return status;
  }
  *out_gemm = gemm;
  return PB_OK;
}

pb_status acl_gemm_enqueue(pb_timing_session *session, pb_timing_gemm *gemm) {
  if (session == nullptr || gemm == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_enqueue: NULL argument");
  uint64_t workspace_bytes = 0;
  aclOpExecutor *executor = nullptr;
  pb_status status = check(session, "aclnnMatmulGetWorkspaceSize",
                           aclnnMatmulGetWorkspaceSize(gemm->a_tensor, gemm->b_tensor, gemm->c_tensor, 0, &workspace_bytes,
                                                       &executor));
  if (status != PB_OK) return status;
  if (workspace_bytes > gemm->workspace_bytes)
    return fail(session, PB_ERR_INFRA, "aclnnMatmul asked for a larger workspace than when the GEMM was created");
  return check(session, "aclnnMatmul", aclnnMatmul(gemm->workspace, workspace_bytes, executor, session->stream));
}

pb_status acl_gemm_read_output(pb_timing_session *session, pb_timing_gemm *gemm, void *out, size_t out_bytes) {
  if (session == nullptr || gemm == nullptr || out == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_read_output: NULL argument");
  if (out_bytes < gemm->c_bytes) return fail(session, PB_ERR_INVALID_ARGUMENT, "gemm_read_output: buffer too small");
  pb_status status = check(session, "aclrtSynchronizeStream", aclrtSynchronizeStream(session->stream));
  if (status != PB_OK) return status;
  return check(session, "aclrtMemcpy(C)", aclrtMemcpy(out, out_bytes, gemm->c, gemm->c_bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

void acl_gemm_destroy(pb_timing_session *session, pb_timing_gemm *gemm) {
  if (gemm == nullptr) return;
  if (session != nullptr) aclrtSynchronizeStream(session->stream);
  free_gemm(gemm);
}

pb_status acl_event_create(pb_timing_session *session, pb_timing_event **out_event) {
  if (session == nullptr || out_event == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_create: NULL argument");
  auto event = std::make_unique<pb_timing_event>();
  pb_status status = check(session, "aclrtCreateEvent", aclrtCreateEvent(&event->event));
  if (status != PB_OK) return status;
  *out_event = event.release();
  return PB_OK;
}

void acl_event_destroy(pb_timing_session *, pb_timing_event *event) {
  if (event == nullptr) return;
  aclrtDestroyEvent(event->event);
  delete event;
}

pb_status acl_event_record(pb_timing_session *session, pb_timing_event *event) {
  if (session == nullptr || event == nullptr) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_record: NULL argument");
  event->recorded = true;
  return check(session, "aclrtRecordEvent", aclrtRecordEvent(event->event, session->stream));
}

pb_status acl_event_elapsed_us(pb_timing_session *session, const pb_timing_event *start, const pb_timing_event *end,
                               double *out_us) {
  if (session == nullptr || start == nullptr || end == nullptr || out_us == nullptr)
    return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: NULL argument");
  if (!start->recorded || !end->recorded) return fail(session, PB_ERR_INVALID_ARGUMENT, "event_elapsed_us: an event was never recorded");
  float ms = 0;
  pb_status status = check(session, "aclrtEventElapsedTime", aclrtEventElapsedTime(&ms, start->event, end->event));
  if (status != PB_OK) return status;
  *out_us = static_cast<double>(ms) * 1000.0;
  return PB_OK;
}

pb_status acl_shield_enqueue(pb_timing_session *session, double timeout_s) {
  if (session == nullptr || !(timeout_s > 0)) return fail(session, PB_ERR_INVALID_ARGUMENT, "shield_enqueue: bad argument");
  pb_status status = check(session, "aclrtMemsetAsync(shield flag)",
                           aclrtMemsetAsync(session->shield_flag, sizeof(uint64_t), 0, sizeof(uint64_t), session->stream));
  if (status == PB_OK)
    status = check(session, "aclrtValueWait", aclrtValueWait(session->shield_flag, 1, kValueWaitGeq, session->stream));
  if (status == PB_OK) session->shield_pending = true;
  return status;
}

pb_status acl_shield_release(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  if (!session->shield_pending) return fail(session, PB_ERR_INVALID_ARGUMENT, "shield_release: no shield is queued");
  session->shield_pending = false;
  pb_status status = check(session, "aclrtValueWrite", aclrtValueWrite(session->shield_flag, 1, 0, session->release_stream));
  if (status == PB_OK) status = check(session, "aclrtSynchronizeStream(release)", aclrtSynchronizeStream(session->release_stream));
  return status;
}

pb_status acl_flush_enqueue(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  session->flush_round = (session->flush_round + 1) & 0xff;
  return check(session, "aclrtMemsetAsync(flush)",
               aclrtMemsetAsync(session->flush_buffer, session->flush_bytes, session->flush_round, session->flush_bytes,
                                session->stream));
}

pb_status acl_synchronize(pb_timing_session *session) {
  if (session == nullptr) return PB_ERR_INVALID_ARGUMENT;
  return check(session, "aclrtSynchronizeStream", aclrtSynchronizeStream(session->stream));
}

const pb_ext_timing_backend kAclBackend = {
    sizeof(pb_ext_timing_backend),
    "acl",
    "aclrtEvent recorded on the timing stream; aclrtEventElapsedTime (ms) x 1000",
    "aclrtValueWait(flag >= 1) on the timing stream, released by aclrtValueWrite on a second stream; no device-side "
    "timeout (the harness watchdog covers a lost release)",
    "aclrtMemsetAsync over 384 MiB of device memory (twice the 910B L2)",
    acl_device_count,
    acl_describe_device,
    acl_gemm_supported,
    acl_open,
    acl_close,
    acl_last_error,
    acl_gemm_create,
    acl_gemm_enqueue,
    acl_gemm_read_output,
    acl_gemm_destroy,
    acl_event_create,
    acl_event_destroy,
    acl_event_record,
    acl_event_elapsed_us,
    acl_shield_enqueue,
    acl_shield_release,
    acl_flush_enqueue,
    acl_synchronize,
};

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.timing_acl", "Ascend timing backend (ACL events, aclnnMatmul)", "0.1.0"};
  spec.vendor = "perfbound";
  spec.description =
      "Times GEMMs on an Ascend NPU for perfbound bench through CANN ACL. Built only where CANN is installed; "
      "not validated on hardware by perfbound's developers (docs/timing.md).";
  spec.raw_extensions[PB_EXT_TIMING_BACKEND] = &kAclBackend;
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
