/* pb_ext_examples.h - plugin extension "perfbound.ext.examples/1": small
 * example inputs for each node kind, with the status a run must return.
 *
 * Why: `perfbound plugin check LIB` exercises create/run/destroy on every
 * declared kind. Without examples it can only check that a run with missing
 * inputs fails cleanly; with them it runs real inputs, checks every output
 * against its published JSON Schema, and checks that the negative examples
 * are refused with the declared status instead of crashing.
 */
#ifndef PERFBOUND_PB_EXT_EXAMPLES_H
#define PERFBOUND_PB_EXT_EXAMPLES_H

#include "pb_defs.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

#define PB_EXT_EXAMPLES "perfbound.ext.examples/1"

/* One document fed to one input port. Static storage. */
typedef struct pb_example_input {
  uint32_t struct_size;
  const char *port;   /* input port name */
  uint32_t encoding;  /* pb_encoding */
  const char *schema; /* schema id of the document */
  const char *data;   /* NUL-terminated document */
} pb_example_input;

/* One example run of one node kind. Static storage. */
typedef struct pb_example {
  uint32_t struct_size;
  const char *kind;        /* node kind name */
  const char *title;       /* one line, e.g. "vector add, 16M elements" */
  const char *params_json; /* JSON object of parameters, or NULL for defaults */
  uint32_t input_count;
  const pb_example_input *const *inputs;
  /* The status run() must return: PB_OK for a positive example, e.g.
   * PB_ERR_INVALID_INPUT for a malformed input. With `expected_at` =
   * PB_EXAMPLE_AT_CREATE, the status create() must return instead. */
  pb_status expected_status;
  /* --- ABI 1.3 --- */
  /* Where the expected outcome happens: PB_EXAMPLE_AT_RUN (0, what a 1.2
   * plugin means) or PB_EXAMPLE_AT_CREATE: create() must refuse the
   * example's parameters with `expected_status` (not PB_OK) after logging
   * why, and run() is not called. A negative example of a bad parameter
   * value (a negative bandwidth, say) is declared this way. The host reads
   * this field only when struct_size says it is present. */
  uint32_t expected_at;
} pb_example;

/* Values of pb_example.expected_at (ABI 1.3). */
#define PB_EXAMPLE_AT_RUN 0u
#define PB_EXAMPLE_AT_CREATE 1u

typedef struct pb_ext_examples {
  uint32_t struct_size;
  uint32_t example_count;
  const pb_example *const *examples;
} pb_ext_examples;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_EXT_EXAMPLES_H */
