/* hostile_plugin.c - a library that attacks whoever merely inspects it.
 * Built once per HOSTILE_MODE, each copy in its own directory:
 *   1 segfaults in its constructor (runs at dlopen, before any perfbound code)
 *   2 aborts in its constructor
 *   3 spins forever in its constructor
 *   4 calls exit(0) in its constructor (would end the host "successfully")
 *   5 segfaults in perfbound_plugin_negotiate
 *   6 negotiates fine but hands back a descriptor full of wild pointers
 * `perfbound plugins`, `plugin check`, `plugin manifest` and `run` with such
 * a library on the search path must report it and go on: the host inspects
 * libraries in a child process (host/src/isolate.hpp). */
#include <stdint.h>
#include <stdlib.h>

#include <perfbound/perfbound.h>

#ifndef HOSTILE_MODE
#error "define HOSTILE_MODE"
#endif

#if HOSTILE_MODE >= 1 && HOSTILE_MODE <= 4
__attribute__((constructor)) static void hostile_constructor(void) {
#if HOSTILE_MODE == 1
  volatile int *volatile null_pointer = NULL;
  *null_pointer = 1;
#elif HOSTILE_MODE == 2
  abort();
#elif HOSTILE_MODE == 3
  volatile unsigned long spin = 0;
  for (;;) spin = spin + 1;
#else
  exit(0);
#endif
}
#endif

static const void *get_extension(const char *id) { (void)id; return NULL; }

#if HOSTILE_MODE == 6
/* Every pointer points nowhere a process may read. */
static const pb_plugin plugin = {sizeof(pb_plugin), (const char *)(uintptr_t)0x10, (const char *)(uintptr_t)0x18, "1.0.0",
                                 "", "", 3, (const pb_node_kind *const *)(uintptr_t)0xdead0000, NULL, NULL, get_extension};
#else
static const pb_plugin plugin = {sizeof(pb_plugin), "perfbound_test.hostile", "Hostile", "1.0.0", "tests", "", 0, NULL,
                                 NULL, NULL, get_extension};
#endif

PB_EXPORT pb_status perfbound_plugin_negotiate(const pb_negotiate_request *request, pb_negotiate_response *response) {
  (void)request;
#if HOSTILE_MODE == 5
  {
    volatile int *volatile null_pointer = NULL;
    *null_pointer = 1;
  }
#endif
  response->abi_major = PB_ABI_VERSION_MAJOR;
  response->abi_minor = PB_ABI_VERSION_MINOR;
  response->plugin = &plugin;
  return PB_OK;
}
