/* newer_minor_plugin.c - a plugin in plain C99 that claims ABI 1.(minor+1)
 * and appends a field to pb_plugin, as a future 1.x header would. A 1.0
 * host must load it (append-only growth) and ignore the unknown tail. */
#include <string.h>

#include <perfbound/perfbound.h>

/* What pb_plugin might look like one minor later: the 1.0 fields, then more. */
typedef struct future_plugin {
  pb_plugin base;
  const char *homepage; /* appended in "1.1" */
} future_plugin;

static pb_status identity_create(const pb_node_kind *kind, const pb_host *host, const char *node_id,
                                 const char *params_json, pb_node **out_node) {
  (void)kind; (void)host; (void)node_id; (void)params_json;
  static int token;
  *out_node = (pb_node *)&token;
  return PB_OK;
}

static pb_status identity_run(pb_node *node, const pb_run_context *ctx) {
  (void)node;
  const pb_document *in = ctx->input(ctx, "in", 0);
  if (in == NULL) {
    ctx->log(ctx, PB_SEVERITY_ERROR, "input 'in' is missing");
    return PB_ERR_INVALID_INPUT;
  }
  return ctx->set_output(ctx, "out", in->data, in->size);
}

static void identity_destroy(pb_node *node) { (void)node; }

static const pb_port in_port = {sizeof(pb_port), "in", "perfbound_test.number/1", 0, "any number", NULL};
static const pb_port out_port = {sizeof(pb_port), "out", "perfbound_test.number/1", 0, "the same number", NULL};
static const pb_port *const inputs[] = {&in_port};
static const pb_port *const outputs[] = {&out_port};

static const pb_node_kind identity = {
    sizeof(pb_node_kind), "identity", "Forwards its input", 1, inputs, 1, outputs, 0, NULL,
    identity_create, identity_run, identity_destroy};
static const pb_node_kind *const kinds[] = {&identity};

static const void *get_extension(const char *id) { (void)id; return NULL; }

static const future_plugin plugin = {
    {sizeof(future_plugin), "perfbound_test.newer_minor", "Newer-minor test plugin", "0.9.0", "tests",
     "Built against a hypothetical ABI 1.x+1", 1, kinds, NULL, NULL, get_extension},
    "https://example.invalid/newer"};

PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request, pb_negotiate_response *response) {
  if (request->abi_major_min > 1 || request->abi_major_max < 1) return PB_ERR_VERSION;
  response->abi_major = 1;
  response->abi_minor = PB_ABI_VERSION_MINOR + 1;
  response->plugin = &plugin.base;
  return PB_OK;
}
