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
   * PB_ERR_INVALID_INPUT for a malformed input. */
  pb_status expected_status;
} pb_example;

typedef struct pb_ext_examples {
  uint32_t struct_size;
  uint32_t example_count;
  const pb_example *const *examples;
} pb_ext_examples;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_EXT_EXAMPLES_H */
