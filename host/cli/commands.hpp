//===- commands.hpp - registration of the host's CLI subcommands ----------===//
//
// Each command file adds its subcommands to the CLI11 app and, when one is
// chosen, stores the action to run once global options are known. Adding a
// command touches its own file plus one line in main.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_CLI_COMMANDS_HPP
#define PERFBOUND_CLI_COMMANDS_HPP

#include <functional>

#include <CLI/CLI.hpp>

#include "app.hpp"

namespace perfbound::cli {

struct CommandContext {
  GlobalOptions globals;
  /// The chosen command; returns the exit code.
  std::function<int(App &)> action;
};

void register_pipeline_commands(CLI::App &root, CommandContext &ctx);  // run, lint, print-resolved
void register_plugin_commands(CLI::App &root, CommandContext &ctx);    // plugins, plugin check|manifest, schemas
void register_profile_commands(CLI::App &root, CommandContext &ctx);   // profile show|check

}  // namespace perfbound::cli

#endif  // PERFBOUND_CLI_COMMANDS_HPP
