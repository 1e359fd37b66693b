/* pb_plugin.h - the plugin descriptor, version negotiation and the one
 * exported entry symbol.
 *
 * A perfbound plugin is a shared library that exports exactly one symbol:
 *
 *     PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request,
 *                                                    pb_negotiate_response *response);
 *
 * Loading sequence, as driven by the host (each step must succeed before the
 * next; any failure unloads the library and names the file and reason):
 *
 *   1. dlopen the library; look up PB_ENTRY_SYMBOL.
 *   2. negotiate(): the host states the ABI majors it speaks and its minor;
 *      the plugin answers with the version it implements and its descriptor.
 *   3. The host validates every field of the answer and the descriptor:
 *      version in range, non-NULL function pointers, well-formed ids and
 *      names, unique ports, parseable parameter defaults, strings shorter
 *      than PB_MAX_STRING_LENGTH. One bad field refuses the whole library.
 *   4. init() (if non-NULL), once, before any create().
 *   5. Node instances are created, run and destroyed, possibly concurrently.
 *   6. deinit() (if non-NULL), once, after the last destroy(); then dlclose.
 *
 * Describing a plugin without loading it: the build writes a manifest
 * `<library-file-name>.pbplugin.json` next to the library (generated with
 * `perfbound plugin manifest LIB`). The host reads manifests to list plugins,
 * lint pipelines and resolve which libraries a pipeline needs, and loads a
 * library only when one of its nodes runs (loading MLIR costs ~76 ms). When
 * the library is finally loaded, the host compares its live descriptor to the
 * manifest and refuses a stale manifest.
 */
#ifndef PERFBOUND_PB_PLUGIN_H
#define PERFBOUND_PB_PLUGIN_H

#include "pb_defs.h"
#include "pb_host.h"
#include "pb_node.h"
#include "pb_status.h"
#include "pb_version.h"

PB_EXTERN_C_BEGIN

/* Name of the one symbol every plugin library exports. */
#define PB_ENTRY_SYMBOL "perfbound_plugin_negotiate"

typedef struct pb_plugin pb_plugin;

/* The plugin's self-description.
 * Ownership: plugin; static storage, valid until the library is unloaded.
 * The host reads it on any thread after negotiation. */
struct pb_plugin {
  uint32_t struct_size; /* sizeof(pb_plugin) as the plugin compiled it */

  /* Globally unique id, lowercase dotted: "<vendor>.<name>", e.g.
   * "perfbound.models" or "acme.l2_memory". Pipelines name plugins by id. */
  const char *id;
  /* Human name, e.g. "perfbound model terms". */
  const char *name;
  /* Plugin version, semantic versioning "MAJOR.MINOR.PATCH[-suffix]". */
  const char *version;
  /* Vendor and one-paragraph description. May be "". */
  const char *vendor;
  const char *description;

  /* The node kinds this plugin offers. Array of pointers; may be NULL when
   * the count is 0 (a plugin that only provides extensions, such as a
   * command). */
  uint32_t node_kind_count;
  const pb_node_kind *const *node_kinds;

  /* Optional (may be NULL). Called once after a successful negotiation and
   * descriptor validation, before any create().
   * [main-thread] Returns PB_OK, or an error after logging why through
   * host->log; the host then refuses the library. */
  pb_status (*init)(const pb_host *host);

  /* Optional (may be NULL). Called once after the last destroy(), before the
   * library is unloaded. [main-thread] Must not fail. */
  void (*deinit)(void);

  /* Look up a plugin extension by id with revision, e.g.
   * "perfbound.ext.render/1". Returns NULL for ids the plugin does not offer;
   * unknown ids must never be an error.
   * [thread-safe] The returned table is static, valid until unload.
   * Must not be NULL (a plugin without extensions returns NULL always). */
  const void *(*get_extension)(const char *extension_id);
};

/* What the host offers. Ownership: host; valid during negotiate(). */
typedef struct pb_negotiate_request {
  uint32_t struct_size; /* sizeof(pb_negotiate_request) as the host compiled it */
  /* Inclusive range of ABI majors the host speaks. */
  uint32_t abi_major_min;
  uint32_t abi_major_max;
  /* The host's minor for abi_major_max. Informational: a plugin built for a
   * newer minor still loads, but must check struct_size before using
   * appended host fields. */
  uint32_t abi_minor;
  /* Host services, valid until deinit() returns. Never NULL. */
  const pb_host *host;
} pb_negotiate_request;

/* What the plugin answers. Ownership: host (caller-allocated, zeroed).
 * The host sets struct_size to the capacity it allocated; the plugin writes
 * only fields that fit inside that size. */
typedef struct pb_negotiate_response {
  uint32_t struct_size;
  /* The ABI version the plugin implements. abi_major must lie within the
   * request's range; abi_minor is the minor the plugin was built against. */
  uint32_t abi_major;
  uint32_t abi_minor;
  /* The descriptor. Must be non-NULL on PB_OK. */
  const pb_plugin *plugin;
} pb_negotiate_response;

/* Signature of the entry symbol.
 * [main-thread] Called once per load, before anything else in the library.
 * Returns PB_OK after filling `response`; PB_ERR_VERSION when no requested
 * major is implemented (the plugin should still fill abi_major/abi_minor with
 * its own version so the host can say which version it was built for).
 * Must not call any host function other than host->log. */
typedef pb_status (*pb_negotiate_fn)(const pb_negotiate_request *request,
                                     pb_negotiate_response *response);

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_PLUGIN_H */
