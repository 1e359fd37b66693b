/* pb_node.h - node kinds: typed ports, parameters, and the create/run/destroy
 * life cycle of a node instance.
 *
 * A plugin offers one or more node kinds ("hivm_program", "issue_floor",
 * "combiner"). A pipeline file instantiates kinds as named nodes and wires an
 * output port of one node to an input port of another. Everything a node
 * reads or writes goes through its ports as documents (pb_document.h).
 *
 * Life cycle of one node instance, as driven by the host:
 *
 *     create(kind, host, node_id, params_json, &node)   -- once
 *     run(node, ctx)                                    -- once per pipeline run
 *     destroy(node)                                     -- once, always, if create succeeded
 *
 * Thread contract tags used below:
 *   [thread-safe]  may be called from any thread, concurrently with anything.
 *   [instance]     called on any thread, but never concurrently for the same
 *                  instance; different instances may run at the same time on
 *                  the host's thread pool, so kinds must not share mutable
 *                  global state without their own locking.
 *   [main-thread]  called only from the thread that loaded the library.
 */
#ifndef PERFBOUND_PB_NODE_H
#define PERFBOUND_PB_NODE_H

#include "pb_defs.h"
#include "pb_document.h"
#include "pb_host.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

/* --- Ports ---------------------------------------------------------------- */

/* The input may be left unconnected; run() then sees input_count == 0. */
#define PB_PORT_OPTIONAL (1u << 0)
/* The input accepts a list of documents (`inputs = { terms = ["a.t", "b.t"] }`).
 * Without this flag a port takes exactly one document. Ignored on outputs. */
#define PB_PORT_MULTI (1u << 1)

/* A named, typed input or output of a node kind.
 * Ownership: plugin; static storage, valid until the library is unloaded. */
typedef struct pb_port {
  uint32_t struct_size; /* sizeof(pb_port) as the plugin compiled it */
  /* Port name: [a-z][a-z0-9_]*, unique among the kind's inputs (resp.
   * outputs). Pipelines address it as "node.port". */
  const char *name;
  /* Schema id of the documents on this port, e.g. "perfbound.bound_term/1".
   * An edge type-checks when the producer's schema id equals this one. */
  const char *schema;
  /* Bitwise OR of PB_PORT_* flags. */
  uint32_t flags;
  /* One line for `perfbound plugins` and lint messages. May be "". */
  const char *description;
  /* --- ABI 1.1 --- */
  /* Name of a group of alternative inputs ([a-z][a-z0-9_]*), or NULL/"" for
   * none. A pipeline must connect exactly one input of each group, and the
   * host checks that before anything runs (e.g. a term that reads either
   * `dsl` or `hivm`). Inputs only; every port of a group must carry
   * PB_PORT_OPTIONAL, so a 1.0 host, which does not read this field, treats
   * them as plain optional inputs and leaves the check to the kind's run(). */
  const char *one_of;
} pb_port;

/* --- Parameters ----------------------------------------------------------- */

typedef enum pb_param_type {
  PB_PARAM_BOOL = 1,   /* JSON true/false */
  PB_PARAM_INT = 2,    /* JSON integer (int64 range) */
  PB_PARAM_FLOAT = 3,  /* JSON number (integers accepted) */
  PB_PARAM_STRING = 4, /* JSON string */
  PB_PARAM_JSON = 5    /* any JSON value (arrays, tables); the kind validates */
} pb_param_type;

/* The parameter must be given by the pipeline (it has no default). */
#define PB_PARAM_REQUIRED (1u << 0)
/* ABI 1.2: `minimum_json` itself is outside the range (value > minimum). */
#define PB_PARAM_MIN_EXCLUSIVE (1u << 1)
/* ABI 1.2: `maximum_json` itself is outside the range (value < maximum). */
#define PB_PARAM_MAX_EXCLUSIVE (1u << 2)

/* A parameter a node kind accepts in its pipeline `params = { ... }` table.
 * The host checks names, types and choices before anything runs, fills in
 * defaults, and passes the resolved set to create() as one JSON object.
 * Ownership: plugin; static storage, valid until unload. */
typedef struct pb_param {
  uint32_t struct_size; /* sizeof(pb_param) as the plugin compiled it */
  /* [a-z][a-z0-9_]* , unique within the kind. */
  const char *name;
  /* One of pb_param_type. */
  uint32_t type;
  /* Bitwise OR of PB_PARAM_* flags. */
  uint32_t flags;
  /* JSON text of the default value, NULL exactly when PB_PARAM_REQUIRED is
   * set. Must parse and match `type`. */
  const char *default_json;
  /* JSON array of the allowed values, or NULL for "any value of `type`". */
  const char *choices_json;
  /* One line for help output and lint messages. May be "". */
  const char *description;
  /* --- ABI 1.2 --- */
  /* The meaningful range of a PB_PARAM_INT or PB_PARAM_FLOAT parameter, as
   * JSON numbers, or NULL for no limit on that side (NULL for other types).
   * Inclusive unless PB_PARAM_MIN_EXCLUSIVE / PB_PARAM_MAX_EXCLUSIVE is set.
   * The host refuses a value outside it when the pipeline resolves (`lint`
   * and `run`), naming the node, the parameter and the range; the default
   * must lie inside. A FLOAT parameter is always refused when NaN or
   * infinite, range or not. A 1.1 host does not read these fields, so the
   * kind's create() keeps its own check. */
  const char *minimum_json;
  const char *maximum_json;
} pb_param;

/* --- The run context ------------------------------------------------------ */

typedef struct pb_run_context pb_run_context;

/* What run() may do. Provided by the host; every pointer is non-NULL.
 * Ownership: host. Lifetime: valid only during the run() call it is passed to.
 * Thread contract: the functions may be called from the thread running run()
 * and from threads run() creates and joins before returning. */
struct pb_run_context {
  uint32_t struct_size; /* sizeof(pb_run_context) as the host compiled it */
  void *host_data;      /* reserved for the host */

  /* Id of the node being run, as written in the pipeline. */
  const char *node_id;

  /* Number of documents connected to input `port`: 0 for an unconnected
   * optional port, 1 for a single port, any number for a PB_PORT_MULTI port.
   * Returns 0 for a port name the kind does not declare. */
  uint32_t (*input_count)(const pb_run_context *ctx, const char *port);

  /* Borrow input document `index` (0-based) of `port`. Returns NULL when the
   * port is unknown or index >= input_count. The document is owned by the
   * host and valid until run() returns. */
  const pb_document *(*input)(const pb_run_context *ctx, const char *port, uint32_t index);

  /* Hand the JSON document for output `port` to the host, which copies
   * `size` bytes from `json` before returning (the buffer may be freed or
   * reused afterwards). The JSON must be an object whose "schema" member
   * equals the port's schema id; the host checks this and the published JSON
   * Schema after run() returns.
   * Returns PB_OK, or PB_ERR_INVALID_ARGUMENT for an undeclared port or a
   * second call for the same port. */
  pb_status (*set_output)(const pb_run_context *ctx, const char *port, const char *json, size_t size);

  /* Log a message attributed to this node. `message` is copied. ERROR
   * messages from a failing run() become the failure reason. */
  void (*log)(const pb_run_context *ctx, pb_severity severity, const char *message);

  /* Report progress of long work: `fraction` in [0,1], or negative when
   * unknown; `message` may be NULL. The host throttles what it prints. */
  void (*progress)(const pb_run_context *ctx, double fraction, const char *message);

  /* Returns PB_TRUE once the user asked to stop. Long runs should poll it and
   * return PB_ERR_CANCELLED. */
  pb_bool (*cancelled)(const pb_run_context *ctx);
};

/* --- Node kinds ----------------------------------------------------------- */

/* Opaque node instance, created and owned by the plugin. */
typedef struct pb_node pb_node;

typedef struct pb_node_kind pb_node_kind;

struct pb_node_kind {
  uint32_t struct_size; /* sizeof(pb_node_kind) as the plugin compiled it */
  /* Kind name: [a-z][a-z0-9_]*, unique within the plugin. */
  const char *name;
  /* One paragraph for `perfbound plugins`. May be "". */
  const char *description;

  /* Declared ports and parameters. Arrays of pointers (not of structs) so
   * each element carries its own struct_size and may grow independently.
   * A count of 0 allows a NULL array. Static storage. */
  uint32_t input_count;
  const pb_port *const *inputs;
  uint32_t output_count;
  const pb_port *const *outputs;
  uint32_t param_count;
  const pb_param *const *params;

  /* Create an instance.
   * [thread-safe]
   * `host`: the host services (same table as at negotiation).
   * `node_id`: the pipeline's name for this node; valid during the call.
   * `params_json`: a JSON object holding every declared parameter, defaults
   *   filled in, types already checked by the host; valid during the call.
   * `out_node`: receives the instance on PB_OK; untouched otherwise.
   * Returns PB_OK, or an error after logging why through host->log
   * (PB_ERR_INVALID_INPUT for parameter values the kind rejects). */
  pb_status (*create)(const pb_node_kind *kind, const pb_host *host, const char *node_id,
                      const char *params_json, pb_node **out_node);

  /* Run the node once over its inputs.
   * [instance]
   * Reads inputs and writes every declared output through `ctx`. A run that
   * returns PB_OK must have set every output port; the host treats a missing
   * output as plugin misbehaviour. On error, log the reason (file and line
   * for bad input) and return the matching status; outputs already set are
   * discarded. Must not throw or longjmp across this boundary. */
  pb_status (*run)(pb_node *node, const pb_run_context *ctx);

  /* Destroy an instance. Called exactly once for every successful create.
   * [instance] Must not fail. */
  void (*destroy)(pb_node *node);
};

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_NODE_H */
