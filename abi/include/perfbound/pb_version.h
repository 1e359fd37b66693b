/* pb_version.h - the ABI version of this header set and the compatibility rule.
 *
 * Three things are versioned separately:
 *   - the binary interface in these headers (PB_ABI_VERSION_MAJOR/MINOR, below);
 *   - each document schema ("perfbound.hivm_program/1": the number after '/');
 *   - the file formats of pipelines (`version = 1`) and plugin manifests
 *     (PB_MANIFEST_FORMAT_VERSION).
 *
 * Compatibility rule for the ABI:
 *   - A MINOR bump only appends: new fields at the end of structs (found via
 *     `struct_size`), new optional function pointers, new extension ids.
 *     A plugin built against 1.x loads in every 1.y host, whether y is smaller
 *     or larger than x. Each side reads a field only when the other side's
 *     `struct_size` says it is present.
 *   - A MAJOR bump may change anything. A host refuses a plugin whose major
 *     it does not speak, naming the file and both versions.
 */
#ifndef PERFBOUND_PB_VERSION_H
#define PERFBOUND_PB_VERSION_H

#include "pb_defs.h"

#define PB_ABI_VERSION_MAJOR 1u
#define PB_ABI_VERSION_MINOR 3u

/* History:
 *   1.0  the first stable ABI.
 *   1.1  pb_port.one_of: groups of alternative inputs, exactly one connected.
 *   1.2  pb_param.minimum_json / maximum_json (+ PB_PARAM_MIN_EXCLUSIVE,
 *        PB_PARAM_MAX_EXCLUSIVE): the meaningful range of a number parameter,
 *        enforced by the host when a pipeline resolves.
 *   1.3  pb_example.expected_at (+ PB_EXAMPLE_AT_RUN, PB_EXAMPLE_AT_CREATE):
 *        an example may declare a refusal by create(), e.g. of a bad
 *        parameter value, as its expected outcome. */

/* Format version of `<library>.pbplugin.json` manifests written next to a
 * plugin library (see pb_plugin.h, "Describing a plugin without loading it"). */
#define PB_MANIFEST_FORMAT_VERSION 1u

/* Longest string the host accepts from a plugin (ids, names, descriptions,
 * default values). Longer strings make the host refuse the library. */
#define PB_MAX_STRING_LENGTH 65536u

#endif /* PERFBOUND_PB_VERSION_H */
