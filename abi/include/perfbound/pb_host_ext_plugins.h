/* pb_host_ext_plugins.h - host extension "perfbound.host.plugins/1": find
 * other plugins by the extensions they offer, and use those extensions.
 *
 * Why: some plugins are frameworks for other plugins (the timing harness
 * drives backend plugins that offer "perfbound.ext.timing_backend/1"). Plugins
 * never link each other; this extension lets one find and call another
 * through the host, which loads the other library lazily. The extensions the
 * host can find are those it records in manifests (docs/abi.md lists them).
 * Obtain it with host->get_extension(host, PB_HOST_EXT_PLUGINS).
 */
#ifndef PERFBOUND_PB_HOST_EXT_PLUGINS_H
#define PERFBOUND_PB_HOST_EXT_PLUGINS_H

#include "pb_defs.h"
#include "pb_host.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

#define PB_HOST_EXT_PLUGINS "perfbound.host.plugins/1"

typedef struct pb_host_ext_plugins {
  uint32_t struct_size; /* sizeof(pb_host_ext_plugins) as the host compiled it */

  /* List the discovered plugins that offer `extension_id`, without loading
   * them. `sink` receives one JSON array of {"id", "version", "library"}.
   * [main-thread] Returns PB_OK (possibly with an empty array). */
  pb_status (*find)(const pb_host *host, const char *extension_id, pb_text_sink sink, void *sink_data);

  /* Load plugin `plugin_id` if needed and return its extension table for
   * `extension_id`, or NULL when the plugin is unknown, cannot be loaded
   * (the reason is logged) or does not offer it. The table stays valid until
   * the host exits. [main-thread] */
  const void *(*get_extension)(const pb_host *host, const char *plugin_id, const char *extension_id);
} pb_host_ext_plugins;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_HOST_EXT_PLUGINS_H */
