/* no_entry_plugin.c - a shared library that is not a perfbound plugin: it
 * exports a function, but not perfbound_plugin_negotiate. */
#include <perfbound/pb_defs.h>

PB_EXPORT int some_other_function(int x) { return x + 1; }
