//===- main.cpp - the perfbound command-line tool -------------------------===//
#include <iostream>

#include <perfbound/sdk/text.hpp>
#include <set>

#include "commands.hpp"
#include "suggest.hpp"
#include "version.hpp"

using namespace perfbound;
using namespace perfbound::cli;

namespace {

const std::set<std::string> &host_commands() {
  static const std::set<std::string> kCommands = {"run", "lint", "print-resolved", "plugins", "plugin",
                                                  "schemas", "profile", "version", "help"};
  return kCommands;
}

/// Reads the global options that precede the command and returns the index
/// of the command word (argc when there is none).
int scan_globals(int argc, char **argv, GlobalOptions &globals) {
  for (int idx = 1; idx < argc; ++idx) {
    std::string arg = argv[idx];
    if (arg == "--plugin-path" && idx + 1 < argc) {
      globals.plugin_paths.emplace_back(argv[++idx]);
    } else if (arg.rfind("--plugin-path=", 0) == 0) {
      globals.plugin_paths.push_back(arg.substr(14));
    } else if (arg == "-v" || arg == "--verbose") {
      ++globals.verbosity;
    } else if (arg == "-vv") {
      globals.verbosity += 2;
    } else if (arg == "-q" || arg == "--quiet") {
      globals.verbosity = -1;
    } else if (arg == "--no-builtin-plugins") {
      globals.no_builtin_plugins = true;
    } else if (!arg.empty() && arg[0] == '-') {
      continue;  // left for CLI11 (--help, or an error)
    } else {
      return idx;
    }
  }
  return argc;
}

/// Runs a command offered by a plugin, if one matches. Returns -1 when no
/// plugin offers it.
int try_plugin_command(const std::string &name, int first, int argc, char **argv, const GlobalOptions &globals) {
  App app(globals);
  app.discover();
  const PluginInfo *info = app.plugins->find_command(name);
  if (info == nullptr) return -1;
  auto lib = app.plugins->load(info->id);
  if (!lib) {
    std::cerr << "perfbound: command '" << name << "' is provided by plugin '" << info->id
              << "', which could not be loaded: " << lib.error().message << "\n";
    return kExitInvalidInput;
  }
  const pb_command *cmd = (*lib)->command(name);
  if (cmd == nullptr) {
    std::cerr << "perfbound: plugin '" << info->id << "' no longer offers command '" << name << "'\n";
    return kExitInvalidInput;
  }
  install_interrupt_handler();
  std::vector<const char *> args;
  for (int idx = first; idx < argc; ++idx) args.push_back(argv[idx]);
  CallScope scope("command '" + name + "'");
  // Finished here, while `app` (and the plugins it loaded) still exists.
  return finish_command(cmd->main(cmd, app.host->c_host(), static_cast<int>(args.size()), args.data()));
}

std::string plugin_commands_footer(const GlobalOptions &globals) {
  GlobalOptions quiet = globals;
  quiet.verbosity = -2;
  App app(quiet);
  app.logger.set_min_severity(PB_SEVERITY_PLUGIN_MISBEHAVING);
  app.discover();
  std::string out;
  for (const PluginInfo &p : app.plugins->plugins())
    for (const CommandInfo &c : p.commands)
      out += "  " + c.name + std::string(c.name.size() < 16 ? 16 - c.name.size() : 1, ' ') + c.summary + "  [" + p.id + "]\n";
  return out.empty() ? out : "Commands provided by plugins:\n" + out;
}

}  // namespace

int main(int argc, char **argv) {
  GlobalOptions globals;
  int command_index = scan_globals(argc, argv, globals);
  if (command_index < argc) {
    std::string command = argv[command_index];
    if (host_commands().count(command) == 0) {
      int code = try_plugin_command(command, command_index, argc, argv, globals);
      if (code >= 0) return code;
    }
  }

  CommandContext ctx;
  CLI::App root{"perfbound - sound analytical lower bounds for Triton kernels on Ascend NPUs"};
  root.set_version_flag("--version", std::string("perfbound ") + kPerfboundVersion + " (" + git_sha() + ")");
  root.require_subcommand(1);
  int verbose = 0;
  bool quiet = false;
  root.add_option("--plugin-path", ctx.globals.plugin_paths,
                  "Directory to search for plugins (repeatable; searched before PERFBOUND_PLUGIN_PATH)")
      ->allow_extra_args(false);
  root.add_flag("-v,--verbose", verbose, "More output (-vv for debug)");
  root.add_flag("-q,--quiet", quiet, "Only errors");
  root.add_flag("--no-builtin-plugins", ctx.globals.no_builtin_plugins,
                "Do not search the plugin directory of this installation");
  root.fallthrough();
  register_pipeline_commands(root, ctx);
  register_plugin_commands(root, ctx);
  register_profile_commands(root, ctx);
  bool wants_help = false;
  for (int idx = 1; idx < argc; ++idx) wants_help = wants_help || std::string(argv[idx]) == "--help" || std::string(argv[idx]) == "-h";
  if (wants_help || command_index >= argc) {
    std::string footer = plugin_commands_footer(globals);
    root.footer(footer + "\nExit status: 0 ok, 1 failure, 2 usage error, 3 invalid input, 4 unsound bound, 5 infrastructure error, 130 interrupted.\n"
                         "Documentation: docs/cli.md");
  }
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    // CLI11 prints descriptions on one line; every text view fits 100 columns.
    std::cout << pb::sdk::text::wrap_lines(root.help());
    return kExitOk;
  } catch (const CLI::CallForAllHelp &) {
    std::cout << pb::sdk::text::wrap_lines(root.help("", CLI::AppFormatMode::All));
    return kExitOk;
  } catch (const CLI::CallForVersion &e) {
    return root.exit(e);
  } catch (const CLI::ParseError &e) {
    std::string message = e.what();
    if (command_index < argc && host_commands().count(argv[command_index]) == 0) {
      std::vector<std::string> names(host_commands().begin(), host_commands().end());
      message = std::string("unknown command '") + argv[command_index] + "'" + valid_list_suffix(argv[command_index], names, "commands");
    }
    std::cerr << "perfbound: " << message << "\nRun 'perfbound --help' for usage.\n";
    return kExitUsage;
  }
  if (!ctx.action) {
    std::cerr << pb::sdk::text::wrap_lines(root.help());
    return kExitUsage;
  }
  ctx.globals.verbosity = quiet ? -1 : verbose;
  App app(ctx.globals);
  return finish_command(ctx.action(app));
}
