/* pb_host_ext_profile.h - host extension "perfbound.host.profile/1": load a
 * hardware profile from inside a plugin.
 *
 * Why: node kinds receive the profile as a document on an edge, but plugin
 * commands (e.g. `perfbound bench`, whose capacity preflight needs L0A/UB
 * sizes) have no pipeline. The host owns profile parsing and unit
 * conversion; this extension hands out the same perfbound.profile/1 document
 * a pipeline would see. Obtain it with
 * host->get_extension(host, PB_HOST_EXT_PROFILE).
 */
#ifndef PERFBOUND_PB_HOST_EXT_PROFILE_H
#define PERFBOUND_PB_HOST_EXT_PROFILE_H

#include "pb_defs.h"
#include "pb_host.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

#define PB_HOST_EXT_PROFILE "perfbound.host.profile/1"

typedef struct pb_host_ext_profile {
  uint32_t struct_size; /* sizeof(pb_host_ext_profile) as the host compiled it */

  /* Load the profile `name_or_dir`: a directory holding profile.toml, or the
   * name of a bundled profile ("ascend_910b3").
   * [thread-safe]
   * On PB_OK `sink` receives one perfbound.profile/1 JSON document. On
   * PB_ERR_INVALID_INPUT (not found, or invalid: every problem is logged with
   * file and key) `sink` is not called. */
  pb_status (*load)(const pb_host *host, const char *name_or_dir, pb_text_sink sink, void *sink_data);
} pb_host_ext_profile;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_HOST_EXT_PROFILE_H */
