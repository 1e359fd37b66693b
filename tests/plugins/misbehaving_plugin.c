/* misbehaving_plugin.c - valid descriptor, broken behaviour. Each kind breaks
 * one rule of pb_run_context: malformed JSON, the wrong schema, a missing
 * output, a document that violates its published JSON Schema, an output set
 * twice, and a NULL dereference (a crash `plugin check` must survive). */
#include <string.h>

#include <perfbound/perfbound.h>

static pb_status c_create(const pb_node_kind *k, const pb_host *h, const char *id, const char *p, pb_node **out) {
  (void)h; (void)id; (void)p;
  *out = (pb_node *)k; /* the kind tells run() what to do */
  return PB_OK;
}
static void c_destroy(pb_node *n) { (void)n; }

static pb_status emit(const pb_run_context *ctx, const char *json) { return ctx->set_output(ctx, "out", json, strlen(json)); }

static pb_status c_run(pb_node *node, const pb_run_context *ctx) {
  const pb_node_kind *kind = (const pb_node_kind *)node;
  const char *name = kind->name;
  if (strcmp(name, "malformed") == 0) return emit(ctx, "{\"schema\": \"perfbound_test.number/1\", \"value\": ");
  if (strcmp(name, "wrong_schema") == 0) return emit(ctx, "{\"schema\": \"perfbound_test.config/1\", \"x\": 1}");
  if (strcmp(name, "missing_output") == 0) return PB_OK;
  if (strcmp(name, "violates_schema") == 0) return emit(ctx, "{\"schema\": \"perfbound_test.number/1\", \"value\": \"seven\"}");
  if (strcmp(name, "twice") == 0) {
    emit(ctx, "{\"schema\": \"perfbound_test.number/1\", \"value\": 1}");
    emit(ctx, "{\"schema\": \"perfbound_test.number/1\", \"value\": 2}");
    return PB_OK;
  }
  if (strcmp(name, "crash") == 0) {
    volatile int *volatile null_pointer = NULL;
    *null_pointer = 1;
  }
  return PB_OK;
}

static const pb_port out_port = {sizeof(pb_port), "out", "perfbound_test.number/1", 0, "", NULL};
static const pb_port *const outputs[] = {&out_port};
#define KIND(n) {sizeof(pb_node_kind), n, "", 0, NULL, 1, outputs, 0, NULL, c_create, c_run, c_destroy}
static const pb_node_kind k_malformed = KIND("malformed");
static const pb_node_kind k_wrong = KIND("wrong_schema");
static const pb_node_kind k_missing = KIND("missing_output");
static const pb_node_kind k_violates = KIND("violates_schema");
static const pb_node_kind k_twice = KIND("twice");
static const pb_node_kind k_crash = KIND("crash");
static const pb_node_kind *const kinds[] = {&k_malformed, &k_wrong, &k_missing, &k_violates, &k_twice, &k_crash};
/* Examples whose create-time declarations (ABI 1.3) are wrong: create()
 * accepts every parameter, so a declared refusal never comes; a create-time
 * example expecting PB_OK, and an unknown expected_at, are malformed. */
#define EXAMPLE(title, status, at) {sizeof(pb_example), "missing_output", title, "{}", 0, NULL, status, at}
static const pb_example ex_no_refusal = EXAMPLE("declares a refusal create never makes", PB_ERR_INVALID_INPUT, PB_EXAMPLE_AT_CREATE);
static const pb_example ex_ok_at_create = EXAMPLE("expects PB_OK at create", PB_OK, PB_EXAMPLE_AT_CREATE);
static const pb_example ex_unknown_at = EXAMPLE("an unknown expected_at", PB_ERR_INVALID_INPUT, 7u);
static const pb_example *const examples[] = {&ex_no_refusal, &ex_ok_at_create, &ex_unknown_at};
static const pb_ext_examples examples_ext = {sizeof(pb_ext_examples), 3, examples};
static const void *get_extension(const char *id) { return strcmp(id, PB_EXT_EXAMPLES) == 0 ? (const void *)&examples_ext : NULL; }
static const pb_plugin plugin = {sizeof(pb_plugin), "perfbound_test.misbehaving", "Misbehaving test plugin", "0.1.0", "tests",
                                 "", 6, kinds, NULL, NULL, get_extension};

PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request, pb_negotiate_response *response) {
  (void)request;
  response->abi_major = PB_ABI_VERSION_MAJOR;
  response->abi_minor = PB_ABI_VERSION_MINOR;
  response->plugin = &plugin;
  return PB_OK;
}
