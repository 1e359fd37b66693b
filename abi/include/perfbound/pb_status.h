/* pb_status.h - status codes and log severities.
 *
 * Errors are values: every fallible call returns a pb_status. The human
 * explanation travels separately through a log callback with a severity
 * (pb_host.h, pb_node.h), so a status never needs an allocated string.
 */
#ifndef PERFBOUND_PB_STATUS_H
#define PERFBOUND_PB_STATUS_H

#include "pb_defs.h"

PB_EXTERN_C_BEGIN

typedef int32_t pb_status;

/* Success. */
#define PB_OK 0
/* An argument broke the documented contract (unknown port, NULL where a
 * value is required, output set twice). Names a caller bug. */
#define PB_ERR_INVALID_ARGUMENT 1
/* The input documents were readable but describe something the plugin
 * refuses (a parse error in a kernel file, an impossible launch). The plugin
 * logs the file and line. */
#define PB_ERR_INVALID_INPUT 2
/* Version negotiation failed: no ABI major in common. */
#define PB_ERR_VERSION 3
/* The request is valid but not supported by this plugin (e.g. a render
 * format it does not know). Callers may fall back to something else. */
#define PB_ERR_UNSUPPORTED 4
/* Out of memory or another resource. */
#define PB_ERR_RESOURCE 5
/* The run was cancelled through pb_run_context.cancelled(). */
#define PB_ERR_CANCELLED 6
/* An internal failure inside the plugin (a caught exception, a broken
 * invariant). The SDK's exception barrier returns this. */
#define PB_ERR_INTERNAL 7
/* An external system the plugin needs is missing or failed (a device, a
 * compiler, a remote host). Validation reports this as INFRA_ERROR. */
#define PB_ERR_INFRA 8

/* Severity of a log message. ERROR messages logged during a failing call
 * become the failure reason the host reports. */
typedef enum pb_severity {
  PB_SEVERITY_DEBUG = 0,
  PB_SEVERITY_INFO = 1,
  PB_SEVERITY_WARNING = 2,
  PB_SEVERITY_ERROR = 3,
  /* The plugin observed the host breaking this contract. */
  PB_SEVERITY_HOST_MISBEHAVING = 4,
  /* The plugin reports its own bug (an invariant it cannot keep). */
  PB_SEVERITY_PLUGIN_MISBEHAVING = 5
} pb_severity;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_STATUS_H */
