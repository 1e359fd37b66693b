/* pb_defs.h - portability macros shared by every perfbound ABI header.
 *
 * This is the only header that contains compiler- or platform-specific
 * preprocessor logic; every other ABI header includes it and stays plain C99.
 */
#ifndef PERFBOUND_PB_DEFS_H
#define PERFBOUND_PB_DEFS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define PB_EXTERN_C_BEGIN extern "C" {
#define PB_EXTERN_C_END }
#else
#define PB_EXTERN_C_BEGIN
#define PB_EXTERN_C_END
#endif

/* PB_EXPORT marks the single symbol a plugin library exports. Plugins are
 * expected to build with -fvisibility=hidden so that nothing else leaks:
 * two plugins that link different copies of a library must not interpose. */
#if defined(_WIN32)
#define PB_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define PB_EXPORT __attribute__((visibility("default")))
#else
#define PB_EXPORT
#endif

/* Boolean used across the boundary: 0 is false, anything else is true.
 * (C99 `bool` and C++ `bool` are not guaranteed to share a size on every
 * compiler an out-of-tree plugin may use, so the ABI never passes `bool`.) */
typedef uint32_t pb_bool;
#define PB_FALSE 0u
#define PB_TRUE 1u

#endif /* PERFBOUND_PB_DEFS_H */
