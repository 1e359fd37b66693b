/* pb_host.h - services the host offers to every plugin.
 *
 * The host hands a `const pb_host *` to the plugin during negotiation
 * (pb_plugin.h) and to every create call. The table stays valid until the
 * plugin's `deinit` returns. Host extensions (optional, versioned services)
 * are looked up by id with `get_extension`, exactly like plugin extensions.
 */
#ifndef PERFBOUND_PB_HOST_H
#define PERFBOUND_PB_HOST_H

#include "pb_defs.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

typedef struct pb_host pb_host;

/* A callback through which one side hands text to the other, which copies
 * `size` bytes before returning. May be called several times; the pieces are
 * concatenated. `text` need not be NUL-terminated. */
typedef void (*pb_text_sink)(void *sink_data, const char *text, size_t size);

struct pb_host {
  /* sizeof(pb_host) as the host compiled it. A plugin built against a newer
   * minor must check it before touching fields appended after 1.0. */
  uint32_t struct_size;
  /* ABI version the host implements. */
  uint32_t abi_major;
  uint32_t abi_minor;
  /* Host name and version, e.g. "perfbound" / "0.1.0". Never NULL. */
  const char *name;
  const char *version;
  /* Reserved for the host. Plugins must not touch it. */
  void *host_data;

  /* Log a message.
   * [thread-safe] Messages logged while the host is inside one of the
   * plugin's calls (create, run, a command) are attributed by the host to
   * that node or command; ERROR messages logged by a call that fails become
   * the failure reason shown to the user.
   * `message` is copied before return; it may be NULL-free UTF-8 of any
   * length (the host truncates at PB_MAX_STRING_LENGTH). */
  void (*log)(const pb_host *host, pb_severity severity, const char *message);

  /* Look up a host extension by id with revision, e.g.
   * "perfbound.host.pipeline/1". Returns NULL when the host does not offer
   * it; the plugin must then cope without it.
   * [thread-safe] The returned table is owned by the host and valid until the
   * plugin's deinit returns. */
  const void *(*get_extension)(const pb_host *host, const char *extension_id);
};

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_HOST_H */
