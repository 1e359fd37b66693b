/* pb_ext_render.h - plugin extension "perfbound.ext.render/1": turn a document
 * the plugin produces into human-readable text or Markdown.
 *
 * Why: the host prints reports in several formats over one report model
 * (text, json, md). JSON needs no help, but a good text rendering of a bound
 * report needs to know what the report means; the plugin that defines the
 * document knows best. Documents whose producer offers no renderer are
 * printed by the host's generic tree printer.
 */
#ifndef PERFBOUND_PB_EXT_RENDER_H
#define PERFBOUND_PB_EXT_RENDER_H

#include "pb_defs.h"
#include "pb_host.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

#define PB_EXT_RENDER "perfbound.ext.render/1"

typedef struct pb_ext_render {
  uint32_t struct_size; /* sizeof(pb_ext_render) as the plugin compiled it */

  /* Render one JSON document.
   * [thread-safe]
   * `schema`: the document's schema id. `json`/`size`: the document (owned by
   * the host, valid during the call, NUL-terminated at json[size]).
   * `format`: "text" or "md" (other values may be added; answer
   * PB_ERR_UNSUPPORTED for ones you do not know). Since the pictures
   * (docs/pictures.md) the host also asks for "html": an HTML fragment,
   * well-formed as XML, self-contained (inline SVG/CSS, no network), every
   * input string escaped (perfbound/sdk/html.hpp), which the host places in
   * its page; and "trace": one JSON object with a "traceEvents" array
   * (trace-event format), which the host merges across outputs.
   * Output goes through `sink`, which copies.
   * Returns PB_OK; PB_ERR_UNSUPPORTED when this plugin does not render that
   * schema or format (the host falls back to its generic printer);
   * PB_ERR_INVALID_INPUT when the document is malformed. */
  pb_status (*render)(const char *schema, const char *json, size_t size, const char *format,
                      pb_text_sink sink, void *sink_data);
} pb_ext_render;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_EXT_RENDER_H */
