//===- app.hpp - state shared by the perfbound CLI commands ---------------===//
#ifndef PERFBOUND_CLI_APP_HPP
#define PERFBOUND_CLI_APP_HPP

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine.hpp"
#include "host_services.hpp"
#include "json_schema.hpp"
#include "pipeline.hpp"
#include "plugin_loader.hpp"

namespace perfbound::cli {

/// Process exit codes (documented in docs/cli.md; plugin commands share them).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,       // the job ran and failed (a node failed, a check failed)
  kExitUsage = 2,         // bad command line
  kExitInvalidInput = 3,  // invalid pipeline, profile, plugin or input file
  kExitUnsound = 4,       // validation: a bound exceeded a measurement
  kExitInfra = 5,         // infrastructure missing (no measurement, no device)
  kExitInterrupted = 130, // Ctrl-C or SIGTERM (128 + SIGINT, as shells report it)
};

struct GlobalOptions {
  std::vector<std::string> plugin_paths;
  int verbosity = 0;  // -1 quiet, 0 warnings, 1 info, 2 debug
  bool no_builtin_plugins = false;
};

/// Owns the logger, host services, schemas and plugin registry for one
/// command, and knows how to lint and run pipelines.
class App {
 public:
  explicit App(GlobalOptions options);
  App(const App &) = delete;
  App &operator=(const App &) = delete;

  /// Discovers plugins on the explicit search path only (--plugin-path,
  /// PERFBOUND_PLUGIN_PATH, built-in); never a pipeline's or input's folder.
  void discover();
  [[nodiscard]] PluginCatalog catalog() const;
  /// Prints refused plugins and notes at the current verbosity.
  void report_discovery_problems(bool always);

  struct LoadedPipeline {
    std::optional<ResolvedPipeline> resolved;
    Diagnostics diagnostics;
  };
  /// Parse + override + resolve. `profile` is a --profile value ("" for none).
  LoadedPipeline load_pipeline(const std::filesystem::path &file, const std::vector<std::string> &sets,
                               const std::string &profile, ResolveMode mode);

  /// Lints and runs; the result is "invalid" when resolution failed.
  RunResult run_pipeline(const std::filesystem::path &file, const std::vector<std::string> &sets,
                         const std::string &profile, const RunOptions &options);

  Logger logger;
  std::unique_ptr<HostServices> host;
  SchemaRegistry schemas;
  std::vector<std::string> schema_problems;
  std::unique_ptr<PluginRegistry> plugins;
  GlobalOptions options;

 private:
  bool discovered_ = false;
};

/// Flushes std::cout; "" when every byte written to it so far reached the
/// file, else why ("No space left on device"). A report that could not be
/// written is a failure, not a success with nothing to show.
std::string flush_stdout();

/// The exit status of a command that returned `code`, once its output is
/// out: a failed write to stdout turns success into kExitFailure. When a
/// plugin call was abandoned (its thread may still run plugin code, so no
/// destructor and no unloading may run under it) the process ends here,
/// with _exit.
int finish_command(int code);

/// Set by SIGINT; nodes poll it through pb_run_context.cancelled().
std::atomic<bool> &cancel_flag();
void install_interrupt_handler();

}  // namespace perfbound::cli

#endif  // PERFBOUND_CLI_APP_HPP
