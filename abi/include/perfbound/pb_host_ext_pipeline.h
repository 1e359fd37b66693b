/* pb_host_ext_pipeline.h - host extension "perfbound.host.pipeline/1": run a
 * pipeline file from inside a plugin.
 *
 * Why: commands such as `perfbound validate --corpus DIR` compute a bound per
 * case by running the ordinary bound pipeline with per-case overrides. The
 * host owns pipeline parsing, plugin loading and scheduling; this extension
 * lets a plugin use them without linking any host code.
 * Obtain it with host->get_extension(host, PB_HOST_EXT_PIPELINE).
 */
#ifndef PERFBOUND_PB_HOST_EXT_PIPELINE_H
#define PERFBOUND_PB_HOST_EXT_PIPELINE_H

#include "pb_defs.h"
#include "pb_host.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

#define PB_HOST_EXT_PIPELINE "perfbound.host.pipeline/1"

typedef struct pb_host_ext_pipeline {
  uint32_t struct_size; /* sizeof(pb_host_ext_pipeline) as the host compiled it */

  /* Lint and run the pipeline file at `pipeline_path`.
   * [main-thread] (from inside a command; not from a node's run()).
   * `sets`: `set_count` overrides in `--set` syntax ("hivm=path",
   * "launch.grid=[128,32]", "node.param=value"); valid during the call.
   * On return `sink` has received one JSON document of schema
   * "perfbound.run_result/1": per-node status and timing, every pipeline
   * output document, diagnostics and provenance - also when the run failed.
   * Returns PB_OK when every node succeeded; PB_ERR_INVALID_INPUT when the
   * pipeline or an input is invalid (lint errors are in the result);
   * PB_ERR_INTERNAL / PB_ERR_INFRA when a node failed. */
  pb_status (*run)(const pb_host *host, const char *pipeline_path, uint32_t set_count,
                   const char *const *sets, pb_text_sink sink, void *sink_data);
} pb_host_ext_pipeline;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_HOST_EXT_PIPELINE_H */
