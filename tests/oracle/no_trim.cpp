//===- no_trim.cpp - malloc_trim as a no-op in the check's executables -----===//
//
// The extractor's document writer hands freed pages back to the system
// before it writes each document (malloc_trim(0) in to_json_text: right for a
// plugin that analyses one large dump). The differential check runs the
// extractor two or three times per program, 10,000 programs per process: the
// released pages are faulted back in at once, and the page faults took half of
// the check's time (40 ms of CPU per program, 19 ms with this file). Linked
// only into the check's own executables (tests and the reproduction tool),
// never into the plugin; the extractor's output does not depend on it.
//
//===----------------------------------------------------------------------===//
#include <cstddef>

extern "C" int malloc_trim(size_t pad);

extern "C" int malloc_trim(size_t /*pad*/) { return 0; }
