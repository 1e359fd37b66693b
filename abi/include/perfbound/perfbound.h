/* perfbound.h - umbrella header of the perfbound plugin ABI (C99).
 *
 * Start reading at pb_plugin.h (loading and negotiation), then pb_node.h
 * (node kinds and the run context) and pb_document.h (what travels on edges).
 * Extensions: pb_ext_render.h, pb_ext_command.h, pb_ext_examples.h (plugin
 * side) and pb_host_ext_pipeline.h, pb_host_ext_profile.h (host side).
 */
#ifndef PERFBOUND_PERFBOUND_H
#define PERFBOUND_PERFBOUND_H

#include "pb_defs.h"
#include "pb_document.h"
#include "pb_ext_command.h"
#include "pb_ext_examples.h"
#include "pb_ext_render.h"
#include "pb_ext_timing_backend.h"
#include "pb_host.h"
#include "pb_host_ext_pipeline.h"
#include "pb_host_ext_plugins.h"
#include "pb_host_ext_profile.h"
#include "pb_node.h"
#include "pb_plugin.h"
#include "pb_status.h"
#include "pb_version.h"

#endif /* PERFBOUND_PERFBOUND_H */
