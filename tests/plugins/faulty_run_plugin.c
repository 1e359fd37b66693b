/* faulty_run_plugin.c - a valid plugin whose nodes fail at run time, the way
 * a vendor's private plugin might: inspecting and loading it is harmless,
 * only run() misbehaves. One kind per fault:
 *   ok     sets its output {"value": 1} (the control)
 *   crash  dereferences NULL (SIGSEGV)
 *   abort  calls abort() (SIGABRT)
 *   exit   calls exit(0): a process that "succeeds" with no report
 *   spin   loops forever and never looks at cancelled()
 *   stall  waits until cancelled() and then returns PB_ERR_CANCELLED
 * `perfbound run` must end with a non-zero status and a message naming the
 * node and plugin for each fault, never exit 0 and never hang past the
 * node's deadline (tests/host/test_node_faults.cpp). */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfbound/perfbound.h>

static pb_status c_create(const pb_node_kind *k, const pb_host *h, const char *id, const char *p, pb_node **out) {
  (void)h; (void)id; (void)p;
  *out = (pb_node *)k; /* the kind tells run() what to do */
  return PB_OK;
}
static void c_destroy(pb_node *n) { (void)n; }

static pb_status c_run(pb_node *node, const pb_run_context *ctx) {
  const char *name = ((const pb_node_kind *)node)->name;
  if (strcmp(name, "crash") == 0) {
    volatile int *volatile null_pointer = NULL;
    *null_pointer = 1;
  } else if (strcmp(name, "abort") == 0) {
    abort();
  } else if (strcmp(name, "exit") == 0) {
    exit(0);
  } else if (strcmp(name, "spin") == 0) {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  } else if (strcmp(name, "stall") == 0) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    while (!ctx->cancelled(ctx)) nanosleep(&pause, NULL);
    ctx->log(ctx, PB_SEVERITY_ERROR, "stopped: asked to stop before finishing");
    return PB_ERR_CANCELLED;
  }
  {
    const char *doc = "{\"schema\": \"perfbound_test.number/1\", \"value\": 1}";
    return ctx->set_output(ctx, "out", doc, strlen(doc));
  }
}

static const pb_port out_port = {sizeof(pb_port), "out", "perfbound_test.number/1", 0, "", NULL};
static const pb_port *const outputs[] = {&out_port};
#define KIND(n) {sizeof(pb_node_kind), n, "", 0, NULL, 1, outputs, 0, NULL, c_create, c_run, c_destroy}
static const pb_node_kind k_ok = KIND("ok");
static const pb_node_kind k_crash = KIND("crash");
static const pb_node_kind k_abort = KIND("abort");
static const pb_node_kind k_exit = KIND("exit");
static const pb_node_kind k_spin = KIND("spin");
static const pb_node_kind k_stall = KIND("stall");
static const pb_node_kind *const kinds[] = {&k_ok, &k_crash, &k_abort, &k_exit, &k_spin, &k_stall};
static const void *get_extension(const char *id) { (void)id; return NULL; }
static const pb_plugin plugin = {sizeof(pb_plugin), "perfbound_test.faulty", "Faulty-at-run-time test plugin", "0.1.0", "tests",
                                 "", 6, kinds, NULL, NULL, get_extension};

PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request, pb_negotiate_response *response) {
  (void)request;
  response->abi_major = PB_ABI_VERSION_MAJOR;
  response->abi_minor = PB_ABI_VERSION_MINOR;
  response->plugin = &plugin;
  return PB_OK;
}
