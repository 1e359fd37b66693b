/* pb_document.h - the unit of data that travels along a pipeline edge.
 *
 * Nodes never share memory or C++ objects. They exchange documents: UTF-8
 * text tagged with a schema id such as "perfbound.hivm_program/1". Most
 * documents are JSON objects whose top-level "schema" member repeats that id;
 * raw inputs (a kernel's IR text) are passed as TEXT so that a 100 MB dump is
 * not escaped into a JSON string.
 *
 * Why a schema id with a revision: a port declares the schema it accepts, and
 * the host type-checks every edge before anything runs. A schema grows by
 * adding optional members; a member that changes meaning gets a new revision.
 *
 * Unknown values: a number that could not be determined is JSON null plus a
 * reason next to it, never 0. The published JSON Schemas (abi/schemas/) say
 * where nulls are allowed.
 */
#ifndef PERFBOUND_PB_DOCUMENT_H
#define PERFBOUND_PB_DOCUMENT_H

#include "pb_defs.h"

PB_EXTERN_C_BEGIN

typedef enum pb_encoding {
  /* `data` is one JSON value (an object with a "schema" member). */
  PB_ENCODING_JSON = 0,
  /* `data` is arbitrary UTF-8 text (a file's contents). */
  PB_ENCODING_TEXT = 1
} pb_encoding;

/* A read-only view of a document owned by the host.
 *
 * Ownership: host. Lifetime: valid until the call that received it returns
 * (pb_node_kind.run). A plugin that needs the contents later copies them. */
typedef struct pb_document {
  /* sizeof(pb_document) as the host compiled it. Read later fields only when
   * struct_size says they are present. */
  uint32_t struct_size;
  /* One of pb_encoding. */
  uint32_t encoding;
  /* Schema id, e.g. "perfbound.hivm_program/1". Never NULL. */
  const char *schema;
  /* The bytes. Always followed by a NUL byte at data[size], so text can be
   * handed to C string functions; may contain no other NUL. Never NULL. */
  const char *data;
  /* Number of bytes in `data`, not counting the terminating NUL. */
  size_t size;
  /* Where the document came from, for diagnostics: an absolute file path for
   * documents read from disk, or "node.port" for documents produced by a node.
   * Never NULL. Plugins put it in error messages ("<origin>:<line>: ..."). */
  const char *origin;
} pb_document;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_DOCUMENT_H */
