//===- hang_backend.cpp - a timing backend with a deliberately hanging case -===//
//
// Test plugin "pbtest.timing_hang" (backend name "hang") for the watchdog
// tests. It runs fp32 GEMMs synchronously on the calling thread (a naive
// loop; events read the clock when recorded), prints one line to stdout per
// GEMM (to show native output capture), and HANGS in gemm_enqueue when m is
// 13: it first forks a sleeping grandchild (its pid written to
// $PBTEST_HANG_PIDFILE) so a test can check that the watchdog killed the
// whole process group, then blocks forever.
//
//===----------------------------------------------------------------------===//
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <perfbound/sdk/plugin.hpp>

struct pb_timing_session {
  std::string last_error;
  bool shield = false;
};
struct pb_timing_gemm {
  pb_timing_gemm_desc desc{};
  std::vector<float> a, b, c;
};
struct pb_timing_event {
  int64_t ns = 0;
  bool recorded = false;
};

namespace {

void send(pb_text_sink sink, void *data, const std::string &text) {
  if (sink != nullptr) sink(data, text.data(), text.size());
}

bool fp32_only(const pb_timing_gemm_desc *desc) {
  return desc->a_dtype == PB_TIMING_DTYPE_FP32 && desc->b_dtype == PB_TIMING_DTYPE_FP32 &&
         desc->out_dtype == PB_TIMING_DTYPE_FP32;
}

[[noreturn]] void hang_forever() {
  for (;;) pause();
}

pb_status count(uint32_t *out, pb_text_sink, void *) {
  *out = 1;
  return PB_OK;
}
pb_status describe_device(uint32_t, pb_text_sink sink, void *data) {
  send(sink, data, R"({"name":"hang test device","driver_version":null,"runtime_version":null,"bus_id":null,"memory_bytes":null})");
  return PB_OK;
}
pb_status supported(const pb_timing_gemm_desc *desc, pb_text_sink sink, void *data) {
  if (fp32_only(desc)) return PB_OK;
  send(sink, data, "hang backend: fp32 only");
  return PB_ERR_UNSUPPORTED;
}
pb_status open_session(uint32_t, pb_timing_session **out, pb_text_sink, void *) {
  *out = new pb_timing_session();
  return PB_OK;
}
void close_session(pb_timing_session *session) { delete session; }
const char *last_error(const pb_timing_session *session) { return session->last_error.c_str(); }
pb_status gemm_create(pb_timing_session *, const pb_timing_gemm_desc *desc, const void *a, const void *b,
                      pb_timing_gemm **out) {
  auto *gemm = new pb_timing_gemm();
  gemm->desc = *desc;
  gemm->a.resize(desc->m * desc->k);
  gemm->b.resize(desc->n * desc->k);
  gemm->c.resize(desc->m * desc->n);
  std::memcpy(gemm->a.data(), a, gemm->a.size() * 4);
  std::memcpy(gemm->b.data(), b, gemm->b.size() * 4);
  std::printf("hang backend: gemm m=%llu created\n", static_cast<unsigned long long>(desc->m));
  std::fflush(stdout);
  *out = gemm;
  return PB_OK;
}
pb_status gemm_enqueue(pb_timing_session *, pb_timing_gemm *gemm) {
  if (gemm->desc.m == 13) {
    if (pid_t child = fork(); child == 0) {
      if (const char *pidfile = std::getenv("PBTEST_HANG_PIDFILE")) {
        if (FILE *file = std::fopen(pidfile, "w")) {
          std::fprintf(file, "%d\n", static_cast<int>(getpid()));
          std::fclose(file);
        }
      }
      for (;;) pause();
    }
    hang_forever();
  }
  const uint64_t m = gemm->desc.m, n = gemm->desc.n, k = gemm->desc.k;
  for (uint64_t row = 0; row < m; ++row)
    for (uint64_t col = 0; col < n; ++col) {
      float sum = 0;
      for (uint64_t inner = 0; inner < k; ++inner) sum += gemm->a[row * k + inner] * gemm->b[col * k + inner];
      gemm->c[row * n + col] = sum;
    }
  return PB_OK;
}
pb_status gemm_read(pb_timing_session *, pb_timing_gemm *gemm, void *out, size_t bytes) {
  if (bytes < gemm->c.size() * 4) return PB_ERR_INVALID_ARGUMENT;
  std::memcpy(out, gemm->c.data(), gemm->c.size() * 4);
  return PB_OK;
}
void gemm_destroy(pb_timing_session *, pb_timing_gemm *gemm) { delete gemm; }
pb_status event_create(pb_timing_session *, pb_timing_event **out) {
  *out = new pb_timing_event();
  return PB_OK;
}
void event_destroy(pb_timing_session *, pb_timing_event *event) { delete event; }
pb_status event_record(pb_timing_session *, pb_timing_event *event) {
  event->ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  event->recorded = true;
  return PB_OK;
}
pb_status elapsed(pb_timing_session *, const pb_timing_event *start, const pb_timing_event *end, double *us) {
  if (!start->recorded || !end->recorded) return PB_ERR_INVALID_ARGUMENT;
  *us = static_cast<double>(end->ns - start->ns) / 1000.0;
  return PB_OK;
}
pb_status shield_enqueue(pb_timing_session *session, double) {
  session->shield = true;
  return PB_OK;
}
pb_status shield_release(pb_timing_session *session) {
  if (!session->shield) return PB_ERR_INVALID_ARGUMENT;
  session->shield = false;
  return PB_OK;
}
pb_status flush(pb_timing_session *) { return PB_OK; }
pb_status synchronize(pb_timing_session *) { return PB_OK; }

const pb_ext_timing_backend kHang = {
    sizeof(pb_ext_timing_backend), "hang", "steady_clock read when recorded (synchronous test backend)",
    "none: calls run synchronously", "none",
    count, describe_device, supported, open_session, close_session, last_error, gemm_create, gemm_enqueue, gemm_read,
    gemm_destroy, event_create, event_destroy, event_record, elapsed, shield_enqueue, shield_release, flush, synchronize,
};

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"pbtest.timing_hang", "Test timing backend that hangs when m == 13", "1.0.0"};
  spec.raw_extensions[PB_EXT_TIMING_BACKEND] = &kHang;
  return spec;
}

}  // namespace

extern "C" PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request,
                                                          pb_negotiate_response *response);
PB_PLUGIN_ENTRY(describe)
