/* pb_ext_command.h - plugin extension "perfbound.ext.command/1": subcommands
 * of the `perfbound` CLI implemented by a plugin.
 *
 * Why: `perfbound validate` and `perfbound bench` belong to the validation
 * plugin, not to the host; a vendor may ship its own commands the same way.
 * Commands are listed in the plugin's manifest so `perfbound --help` shows
 * them without loading the library; the library is loaded only when the
 * command runs. A plugin command may not shadow a host command.
 */
#ifndef PERFBOUND_PB_EXT_COMMAND_H
#define PERFBOUND_PB_EXT_COMMAND_H

#include "pb_defs.h"
#include "pb_host.h"
#include "pb_status.h"

PB_EXTERN_C_BEGIN

#define PB_EXT_COMMAND "perfbound.ext.command/1"

typedef struct pb_command pb_command;

/* Ownership: plugin; static storage, valid until unload. */
struct pb_command {
  uint32_t struct_size; /* sizeof(pb_command) as the plugin compiled it */
  /* Command name as typed after `perfbound`: [a-z][a-z0-9-]* */
  const char *name;
  /* One line for `perfbound --help`. */
  const char *summary;
  /* Run the command.
   * [main-thread]
   * `command`: this table (lets one function serve several commands).
   * `argv[0]` is the command name; argv[1..argc-1] are the user's arguments,
   * valid during the call. The command owns the process's stdout and stderr
   * while it runs and handles `--help` itself.
   * Returns the process exit code (see docs/cli.md for the shared meanings:
   * 0 success, 1 failure, 2 usage error, 3 invalid input, 4 a bound was
   * unsound, 5 infrastructure error). Must not throw. */
  int (*main)(const pb_command *command, const pb_host *host, int argc, const char *const *argv);
};

typedef struct pb_ext_command {
  uint32_t struct_size; /* sizeof(pb_ext_command) as the plugin compiled it */
  uint32_t command_count;
  const pb_command *const *commands;
} pb_ext_command;

PB_EXTERN_C_END

#endif /* PERFBOUND_PB_EXT_COMMAND_H */
