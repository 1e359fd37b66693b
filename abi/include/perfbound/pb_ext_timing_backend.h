/* pb_ext_timing_backend.h - plugin extension "perfbound.ext.timing_backend/1":
 * a device on which the queued timing harness (`perfbound bench`) times GEMMs.
 *
 * Why: the timing protocol (warmups, wall-clock ramp, ten samples queued
 * behind a launch shield, a cache flush before each sample, upper median) is
 * the harness's and is defined once, in the harness. What differs between a
 * CPU, a CUDA GPU and an Ascend NPU is only how work is queued and timed on
 * the device. A backend offers exactly those primitives, in the vocabulary of
 * a device stream:
 *
 *   enqueue a call ........ gemm_enqueue
 *   record an event ....... event_record      (timestamps taken by the device
 *   read elapsed time ..... event_elapsed_us   when it reaches the event)
 *   hold the queue ........ shield_enqueue / shield_release
 *   flush caches .......... flush_enqueue
 *   wait for the queue .... synchronize
 *
 * and the harness composes them (docs/timing.md):
 *
 *   shield_enqueue(timeout)
 *   10 x { flush_enqueue; event_record(start[i]); gemm_enqueue; event_record(end[i]) }
 *   shield_release; synchronize; event_elapsed_us(start[i], end[i])
 *
 * Because the whole batch is queued while the shield holds the stream, the
 * host's launch gaps fall before the first bracket, never inside one.
 *
 * The harness finds backends with the host extension perfbound.host.plugins/1
 * (find(PB_EXT_TIMING_BACKEND)) and loads only the one a plan names. It runs
 * every case in a separate worker process; a backend may therefore keep
 * process-wide state (a driver context) without cleaning up after a case that
 * the harness's watchdog killed.
 *
 * Host buffers: row-major and densely packed. A is [m, k], B is [n, k] (the
 * OperatorX weight layout), the output C is [m, n] with C = A * B^T.
 * Element encodings, little-endian: FP64 and FP32 are IEEE-754 binary64 and
 * binary32; FP16 is IEEE-754 binary16 stored as uint16_t; BF16 is the upper
 * 16 bits of a binary32, stored as uint16_t.
 *
 * Errors: functions taking a session return a pb_status; on failure the
 * reason is available from last_error(session) until the next call on that
 * session. Functions without a session report the reason through a
 * pb_text_sink. Grow this table only by appending; readers check struct_size.
 */
#ifndef PERFBOUND_PB_EXT_TIMING_BACKEND_H
#define PERFBOUND_PB_EXT_TIMING_BACKEND_H

#include "pb_defs.h"
#include "pb_host.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

#define PB_EXT_TIMING_BACKEND "perfbound.ext.timing_backend/1"

/* Element types of GEMM operands (values of pb_timing_gemm_desc's dtype
 * fields). New types are appended with new values. */
#define PB_TIMING_DTYPE_FP64 1u
#define PB_TIMING_DTYPE_FP32 2u
#define PB_TIMING_DTYPE_FP16 3u
#define PB_TIMING_DTYPE_BF16 4u

/* One GEMM: C[m, n] = A[m, k] * B[n, k]^T. Ownership: caller; read during
 * the call only. */
typedef struct pb_timing_gemm_desc {
  uint32_t struct_size; /* sizeof(pb_timing_gemm_desc) as the caller compiled it */
  uint32_t a_dtype;     /* PB_TIMING_DTYPE_* */
  uint32_t b_dtype;
  uint32_t out_dtype;
  uint64_t m;
  uint64_t n;
  uint64_t k;
} pb_timing_gemm_desc;

/* Opaque objects owned by the backend. A session is one opened device with
 * one stream; gemms and events belong to the session that created them and
 * must be destroyed before it is closed. */
typedef struct pb_timing_session pb_timing_session;
typedef struct pb_timing_gemm pb_timing_gemm;
typedef struct pb_timing_event pb_timing_event;

typedef struct pb_ext_timing_backend {
  uint32_t struct_size; /* sizeof(pb_ext_timing_backend) as the plugin compiled it */

  /* Short backend name used on the command line and in results: "cpu",
   * "cuda", "acl". [a-z][a-z0-9_]*. Static storage. */
  const char *name;
  /* One line each, recorded in every result so a reader knows what was
   * measured: what an event timestamp is, how the shield holds the queue, and
   * what the flush evicts. Static storage. */
  const char *event_clock;
  const char *shield_method;
  const char *flush_method;

  /* Number of usable devices.
   * [thread-safe] Returns PB_OK with *count set (possibly 0), or
   * PB_ERR_INFRA when the driver or runtime is missing or broken; the reason
   * goes to `reason_sink` (which copies). */
  pb_status (*device_count)(uint32_t *count, pb_text_sink reason_sink, void *reason_data);

  /* Identity of device `device_index` as one JSON object through `sink`:
   *   {"name": str, "driver_version": str|null, "runtime_version": str|null,
   *    "bus_id": str|null, "memory_bytes": int|null, ...}
   * A member whose value is unknown is null, and a member "<name>_reason"
   * says why. Extra members are allowed (they enter the hardware
   * fingerprint). Does not open the device for work.
   * [main-thread] Returns PB_OK; PB_ERR_INFRA with the reason through `sink`
   * (plain text, not JSON) when the device cannot be queried. */
  pb_status (*describe_device)(uint32_t device_index, pb_text_sink sink, void *sink_data);

  /* Whether this backend can run `desc` (dtype combination, sizes). Pure:
   * needs no device.
   * [thread-safe] Returns PB_OK when it can; PB_ERR_UNSUPPORTED with the
   * reason through `reason_sink` when it cannot; PB_ERR_INVALID_ARGUMENT for
   * a malformed desc. */
  pb_status (*gemm_supported)(const pb_timing_gemm_desc *desc, pb_text_sink reason_sink, void *reason_data);

  /* Open device `device_index`: create its context and one stream.
   * [main-thread] On PB_OK *out_session is a new session owned by the caller
   * until close(). On failure (PB_ERR_INFRA: no such device, driver error)
   * the reason goes to `error_sink` and *out_session is untouched. */
  pb_status (*open)(uint32_t device_index, pb_timing_session **out_session, pb_text_sink error_sink,
                    void *error_data);

  /* Release the stream and context. [main-thread] Takes ownership; `session`
   * is invalid afterwards. Never fails. */
  void (*close)(pb_timing_session *session);

  /* The reason for the last failed call on `session`, or "" when none.
   * [instance] Owned by the backend; valid until the next call on
   * `session`. Never NULL. */
  const char *(*last_error)(const pb_timing_session *session);

  /* Allocate device buffers for `desc` and copy the inputs in. `a` holds
   * m*k elements of desc->a_dtype, `b` holds n*k elements of desc->b_dtype;
   * both are read during the call only (the harness keeps its own copies for
   * the reference). [instance] On PB_OK *out_gemm is owned by the caller
   * until gemm_destroy(). PB_ERR_UNSUPPORTED when gemm_supported() would say
   * no; PB_ERR_RESOURCE when memory runs out. */
  pb_status (*gemm_create)(pb_timing_session *session, const pb_timing_gemm_desc *desc, const void *a,
                           const void *b, pb_timing_gemm **out_gemm);

  /* Queue one call of the GEMM on the session's stream; returns without
   * waiting for it to run. [instance] */
  pb_status (*gemm_enqueue)(pb_timing_session *session, pb_timing_gemm *gemm);

  /* Wait for the stream, then copy the output C (m*n elements of
   * desc->out_dtype) into `out`, whose capacity is `out_bytes`.
   * [instance] PB_ERR_INVALID_ARGUMENT when `out_bytes` is too small. */
  pb_status (*gemm_read_output)(pb_timing_session *session, pb_timing_gemm *gemm, void *out, size_t out_bytes);

  /* Free the GEMM's buffers. [instance] Takes ownership. Never fails. */
  void (*gemm_destroy)(pb_timing_session *session, pb_timing_gemm *gemm);

  /* Create a timing event. [instance] On PB_OK *out_event is owned by the
   * caller until event_destroy(). */
  pb_status (*event_create)(pb_timing_session *session, pb_timing_event **out_event);
  /* [instance] Takes ownership. Never fails. */
  void (*event_destroy)(pb_timing_session *session, pb_timing_event *event);

  /* Queue a timestamp: the event completes, with the device's time, when the
   * stream reaches it. [instance] */
  pb_status (*event_record)(pb_timing_session *session, pb_timing_event *event);

  /* Microseconds between two completed events of this session (call after
   * synchronize()). [instance] PB_ERR_INVALID_ARGUMENT when either event was
   * never recorded or has not completed. */
  pb_status (*event_elapsed_us)(pb_timing_session *session, const pb_timing_event *start,
                                const pb_timing_event *end, double *out_us);

  /* Queue the launch shield: the stream stops at it until shield_release(),
   * so the work queued behind it starts back to back. The shield gives up by
   * itself after `timeout_s` seconds (a lost release must not hang the
   * device) where the device can time out; a backend that cannot says so in
   * shield_method. [instance] */
  pb_status (*shield_enqueue)(pb_timing_session *session, double timeout_s);

  /* Let the stream pass the shield. [instance] Returns PB_OK when the shield
   * was still holding; PB_ERR_INFRA when it had already expired, in which
   * case host launch gaps may lie inside the brackets and the samples must
   * be discarded; PB_ERR_INVALID_ARGUMENT when no shield is queued. */
  pb_status (*shield_release)(pb_timing_session *session);

  /* Queue a flush that evicts the GEMM's operands from the caches the
   * device keeps between calls (CPU last-level cache, GPU/NPU L2).
   * [instance] */
  pb_status (*flush_enqueue)(pb_timing_session *session);

  /* Wait until everything queued on the stream has run. [instance] */
  pb_status (*synchronize)(pb_timing_session *session);
} pb_ext_timing_backend;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_EXT_TIMING_BACKEND_H */
