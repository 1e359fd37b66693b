//===- plugin_loader.hpp - plugin discovery and lazy loading --------------===//
//
// Discovery looks only in explicit directories, in this order:
//   1. every --plugin-path given on the command line,
//   2. every entry of PERFBOUND_PLUGIN_PATH (colon-separated),
//   3. the plugin directory of this build or installation
//      (<exe>/../lib/perfbound/plugins).
// Never the current directory, never the folder of a pipeline or an input:
// running a pipeline from a downloaded folder must not execute a library
// that sits beside it. The first plugin with a given id wins; later ones are
// reported as shadowed.
//
// A library with a manifest next to it (<lib>.pbplugin.json) is described
// from the manifest and not loaded until a pipeline node or command needs it.
// A library without one is probed in a child process (isolate.hpp) to read
// its descriptor; a crash, hang or exit there refuses the library and the
// host goes on. Only a library a node or command needs is loaded in-process.
// A refused library (not ELF, no entry symbol, ABI mismatch, a descriptor
// that breaks the rules, a stale manifest) is reported with its path and the
// reason and does not stop the others.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_PLUGIN_LOADER_HPP
#define PERFBOUND_HOST_PLUGIN_LOADER_HPP

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "expected.hpp"
#include "host_services.hpp"
#include "plugin_info.hpp"

namespace perfbound {

struct SearchDir {
  std::filesystem::path path;
  std::string origin;  // "--plugin-path", "PERFBOUND_PLUGIN_PATH", "built-in"
};

struct Refusal {
  std::filesystem::path file;
  std::string reason;
};

/// A library that has been opened, negotiated and validated.
class LoadedLibrary {
 public:
  ~LoadedLibrary();
  LoadedLibrary(const LoadedLibrary &) = delete;
  LoadedLibrary &operator=(const LoadedLibrary &) = delete;

  [[nodiscard]] const pb_plugin *plugin() const { return plugin_; }
  [[nodiscard]] const PluginInfo &info() const { return info_; }
  [[nodiscard]] const pb_node_kind *kind(std::string_view name) const;
  [[nodiscard]] const void *extension(const char *id) const;
  [[nodiscard]] const pb_command *command(std::string_view name) const;
  [[nodiscard]] bool initialized() const { return initialized_; }
  /// Identity of the library file for provenance: {"kind": "gnu-build-id" |
  /// "sha256", "value": hex}. The build id is read from the ELF note (no
  /// hashing of a large library); the SHA-256 is the fallback. Computed once.
  [[nodiscard]] const nlohmann::json &file_identity() const;

  /// Calls init() if not done yet. [main-thread]
  Status initialize(HostServices &host);

  struct OpenOptions {
    /// Collect every descriptor violation instead of refusing (the checker).
    bool keep_violations = false;
    /// Told each phase ("load", "negotiate", "describe") before it starts.
    std::function<void(const std::string &)> on_phase;
  };
  struct OpenResult {
    std::unique_ptr<LoadedLibrary> library;
    std::vector<std::string> violations;  // with keep_violations
  };
  /// Opens `path`, negotiates and validates. [main-thread]
  static Expected<OpenResult> open(const std::filesystem::path &path, HostServices &host, OpenOptions options);

 private:
  LoadedLibrary() = default;
  struct Handle;
  std::unique_ptr<Handle> handle_;
  const pb_plugin *plugin_ = nullptr;
  PluginInfo info_;
  bool initialized_ = false;
  mutable nlohmann::json identity_;
  mutable std::once_flag identity_once_;
};

/// What a child process learnt from a library: its description (library
/// path set, described_by "library") and, with keep_violations, every
/// descriptor violation.
struct ProbeResult {
  PluginInfo info;
  std::vector<std::string> violations;
};
/// Opens, negotiates and describes `path` in a child process with a deadline
/// per phase (plugin_inspection_timeout()); the host never maps the library.
/// A crash, hang or exit is an error such as "LIB: plugin crashed with
/// SIGSEGV during negotiate".
Expected<ProbeResult> probe_library(const std::filesystem::path &path, HostServices &host, bool keep_violations);

/// Checks the cheap things (exists, ELF, exports the entry symbol) without
/// running any of the library's code.
Status inspect_library_file(const std::filesystem::path &path);

class PluginRegistry {
 public:
  explicit PluginRegistry(HostServices &host);
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry &) = delete;
  PluginRegistry &operator=(const PluginRegistry &) = delete;

  /// Scans `dirs` in order. May be called once.
  void discover(const std::vector<SearchDir> &dirs);

  [[nodiscard]] const std::vector<PluginInfo> &plugins() const { return plugins_; }
  [[nodiscard]] const std::vector<Refusal> &refusals() const { return refusals_; }
  [[nodiscard]] const std::vector<std::string> &notes() const { return notes_; }
  [[nodiscard]] const std::vector<SearchDir> &search_dirs() const { return dirs_; }
  [[nodiscard]] const PluginInfo *find(std::string_view id) const;
  [[nodiscard]] std::vector<std::string> ids() const;
  /// The plugin offering CLI command `name`, or nullptr.
  [[nodiscard]] const PluginInfo *find_command(std::string_view name) const;

  /// Loads (once) and initialises the plugin `id`, checking that a manifest
  /// still matches the library. [main-thread]
  Expected<LoadedLibrary *> load(std::string_view id);
  [[nodiscard]] LoadedLibrary *loaded(std::string_view id) const;
  /// Ids loaded so far, in load order (what a run actually paid for).
  [[nodiscard]] std::vector<std::string> loaded_ids() const;

 private:
  void scan_dir(const SearchDir &dir);
  void add(PluginInfo info, std::unique_ptr<LoadedLibrary> library);

  HostServices &host_;
  std::vector<SearchDir> dirs_;
  std::vector<PluginInfo> plugins_;
  std::vector<Refusal> refusals_;
  std::vector<std::string> notes_;
  std::map<std::string, std::unique_ptr<LoadedLibrary>, std::less<>> loaded_;
  std::vector<std::string> load_order_;
  mutable std::mutex mutex_;
};

/// Directories from PERFBOUND_PLUGIN_PATH, in order.
std::vector<SearchDir> env_plugin_dirs();
/// The plugin directory next to the running executable.
std::filesystem::path builtin_plugin_dir();

}  // namespace perfbound

#endif  // PERFBOUND_HOST_PLUGIN_LOADER_HPP
