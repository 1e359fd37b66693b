//===- plugin_loader.cpp - plugin discovery and lazy loading --------------===//
#include "plugin_loader.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include "elf_symbols.hpp"
#include "isolate.hpp"
#include "sha256.hpp"

namespace perfbound {

namespace fs = std::filesystem;

struct LoadedLibrary::Handle {
  boost::dll::shared_library library;
};

LoadedLibrary::~LoadedLibrary() {
  if (initialized_ && plugin_ != nullptr && plugin_->deinit != nullptr) {
    CallScope scope("plugin '" + info_.id + "' deinit");
    plugin_->deinit();
  }
  // handle_ unloads the library when destroyed, after deinit.
}

const nlohmann::json &LoadedLibrary::file_identity() const {
  std::call_once(identity_once_, [this] {
    auto build_id = read_elf_build_id(info_.library);
    if (build_id && !build_id->empty()) {
      identity_ = {{"kind", "gnu-build-id"}, {"value", *build_id}};
      return;
    }
    auto digest = sha256_file(info_.library);
    identity_ = {{"kind", "sha256"}, {"value", digest ? nlohmann::json(*digest) : nlohmann::json(nullptr)}};
  });
  return identity_;
}

const pb_node_kind *LoadedLibrary::kind(std::string_view name) const {
  for (uint32_t idx = 0; idx < plugin_->node_kind_count; ++idx) {
    const pb_node_kind *k = plugin_->node_kinds[idx];
    if (k != nullptr && k->name != nullptr && name == k->name) return k;
  }
  return nullptr;
}

const void *LoadedLibrary::extension(const char *id) const { return plugin_->get_extension(id); }

const pb_command *LoadedLibrary::command(std::string_view name) const {
  const auto *ext = static_cast<const pb_ext_command *>(extension(PB_EXT_COMMAND));
  if (ext == nullptr) return nullptr;
  for (uint32_t idx = 0; idx < ext->command_count; ++idx) {
    const pb_command *c = ext->commands[idx];
    if (c != nullptr && c->name != nullptr && name == c->name) return c;
  }
  return nullptr;
}

Status LoadedLibrary::initialize(HostServices &host) {
  if (initialized_) return Status::success();
  if (plugin_->init != nullptr) {
    CallScope scope("plugin '" + info_.id + "' init");
    pb_status st = plugin_->init(host.c_host());
    if (st != PB_OK) {
      std::string why = scope.error_summary();
      return make_error(info_.library.string() + ": plugin init failed with status " + std::to_string(st) +
                        (why.empty() ? std::string() : ": " + why));
    }
  }
  initialized_ = true;
  return Status::success();
}

Status inspect_library_file(const fs::path &path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return make_error(path.string() + ": no such file");
  if (!fs::is_regular_file(path, ec)) return make_error(path.string() + ": not a regular file");
  auto symbols = read_elf_dynamic_symbols(path);
  if (!symbols) return symbols.error();
  if (std::find(symbols->begin(), symbols->end(), PB_ENTRY_SYMBOL) == symbols->end())
    return make_error(path.string() + ": does not export '" PB_ENTRY_SYMBOL "'; not a perfbound plugin");
  return Status::success();
}

Expected<LoadedLibrary::OpenResult> LoadedLibrary::open(const fs::path &path, HostServices &host,
                                                        OpenOptions options) {
  const std::string where = path.string();
  if (Status st = inspect_library_file(path); !st) return st.error();

  auto phase = [&](const char *name) {
    if (options.on_phase) options.on_phase(name);
  };
  phase("load");
  auto handle = std::make_unique<Handle>();
  try {
    handle->library.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception &e) {
    return make_error(where + ": cannot load: " + e.what());
  }
  if (!handle->library.has(PB_ENTRY_SYMBOL))
    return make_error(where + ": does not export '" PB_ENTRY_SYMBOL "'; not a perfbound plugin");
  auto &negotiate = handle->library.get<pb_status(const pb_negotiate_request *, pb_negotiate_response *)>(PB_ENTRY_SYMBOL);

  pb_negotiate_request request{};
  request.struct_size = sizeof(request);
  request.abi_major_min = PB_ABI_VERSION_MAJOR;
  request.abi_major_max = PB_ABI_VERSION_MAJOR;
  request.abi_minor = PB_ABI_VERSION_MINOR;
  request.host = host.c_host();
  pb_negotiate_response response{};
  response.struct_size = sizeof(response);

  pb_status status = PB_ERR_INTERNAL;
  std::string logged;
  phase("negotiate");
  {
    CallScope scope("plugin library '" + path.filename().string() + "' negotiate");
    status = negotiate(&request, &response);
    logged = scope.error_summary();
  }
  const std::string host_abi = std::to_string(PB_ABI_VERSION_MAJOR) + "." + std::to_string(PB_ABI_VERSION_MINOR);
  if (response.abi_major != 0 && (response.abi_major < request.abi_major_min || response.abi_major > request.abi_major_max))
    return make_error(where + ": built for perfbound plugin ABI " + std::to_string(response.abi_major) + "." +
                      std::to_string(response.abi_minor) + ", but this host speaks ABI " + host_abi +
                      " (majors must match); rebuild the plugin against this perfbound's headers");
  if (status == PB_ERR_VERSION)
    return make_error(where + ": refused version negotiation (host speaks ABI " + host_abi + ")" +
                      (logged.empty() ? std::string() : ": " + logged));
  if (status != PB_OK)
    return make_error(where + ": negotiation failed with status " + std::to_string(status) +
                      (logged.empty() ? std::string() : ": " + logged));
  if (response.abi_major == 0)
    return make_error(where + ": negotiation answered PB_OK without an ABI version");

  phase("describe");
  DescribeResult described = describe_plugin(response.plugin, response.abi_major, response.abi_minor);
  if (!described.violations.empty() && !options.keep_violations) {
    std::string msg = where + ": plugin descriptor breaks the ABI rules: " + described.violations.front();
    if (described.violations.size() > 1)
      msg += " (and " + std::to_string(described.violations.size() - 1) + " more; run 'perfbound plugin check " + where + "')";
    return make_error(msg);
  }
  std::unique_ptr<LoadedLibrary> lib(new LoadedLibrary());
  lib->handle_ = std::move(handle);
  lib->plugin_ = response.plugin;
  lib->info_ = std::move(described.info);
  lib->info_.library = fs::absolute(path).lexically_normal();
  lib->info_.described_by = "library";
  OpenResult result;
  result.library = std::move(lib);
  result.violations = std::move(described.violations);
  return result;
}

Expected<ProbeResult> probe_library(const fs::path &path, HostServices &host, bool keep_violations) {
  const std::string where = path.string();
  // The cheap checks read the file only; no need for a child.
  if (Status st = inspect_library_file(path); !st) return st.error();
  IsolatedOutcome outcome = run_isolated(
      [&](const PhaseFn &phase) {
        LoadedLibrary::OpenOptions options;
        options.keep_violations = keep_violations;
        options.on_phase = phase;
        auto opened = LoadedLibrary::open(path, host, options);
        if (!opened) return json{{"error", opened.error().message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        phase("report");
        return json{{"plugin", opened->library->info().descriptor_json()}, {"violations", opened->violations}}.dump(
            -1, ' ', false, json::error_handler_t::replace);
      },
      plugin_inspection_timeout());
  if (!outcome.answered) return make_error(where + ": " + outcome.failure);
  json answer = json::parse(outcome.answer, nullptr, false);
  if (answer.is_discarded() || !answer.is_object())
    return make_error(where + ": the child process inspecting the plugin gave no readable answer");
  if (answer.contains("error")) return make_error(answer.at("error").get<std::string>());
  ProbeResult result;
  for (const json &v : answer.value("violations", json::array()))
    if (v.is_string()) result.violations.push_back(v.get<std::string>());
  auto info = plugin_info_from_json(answer.value("plugin", json(nullptr)), where);
  // A descriptor that breaks the rules may not even describe itself; the
  // violations say why.
  if (!info && keep_violations && !result.violations.empty()) return result;
  if (!info) return info.error();
  result.info = std::move(*info);
  result.info.library = fs::absolute(path).lexically_normal();
  result.info.described_by = "library";
  return result;
}

PluginRegistry::PluginRegistry(HostServices &host) : host_(host) {}

PluginRegistry::~PluginRegistry() {
  // Unload in reverse order of loading.
  for (auto it = load_order_.rbegin(); it != load_order_.rend(); ++it) loaded_.erase(*it);
  loaded_.clear();
}

void PluginRegistry::add(PluginInfo info, std::unique_ptr<LoadedLibrary> library) {
  for (const PluginInfo &existing : plugins_) {
    if (existing.id == info.id) {
      notes_.push_back("plugin '" + info.id + "' from " + info.library.string() + " is shadowed by " +
                       existing.library.string() + " (found earlier in the search path)");
      return;
    }
  }
  if (library) {
    load_order_.push_back(info.id);
    loaded_[info.id] = std::move(library);
  }
  plugins_.push_back(std::move(info));
}

void PluginRegistry::scan_dir(const SearchDir &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir.path, ec)) {
    notes_.push_back("plugin search directory " + dir.path.string() + " (" + dir.origin + ") does not exist");
    return;
  }
  std::vector<fs::path> manifests;
  std::vector<fs::path> libraries;
  for (const auto &entry : fs::directory_iterator(dir.path, ec)) {
    const std::string name = entry.path().filename().string();
    auto ends_with = [&](std::string_view suffix) {
      return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends_with(".pbplugin.json"))
      manifests.push_back(entry.path());
    else if (ends_with(".so"))
      libraries.push_back(entry.path());
  }
  std::sort(manifests.begin(), manifests.end());
  std::sort(libraries.begin(), libraries.end());

  std::set<fs::path> covered;
  for (const fs::path &manifest : manifests) {
    auto info = read_manifest(manifest);
    if (!info) {
      refusals_.push_back({manifest, info.error().message});
      continue;
    }
    covered.insert(info->library);
    std::error_code exists_ec;
    if (!fs::exists(info->library, exists_ec)) {
      refusals_.push_back({manifest, "manifest names library " + info->library.string() + ", which does not exist"});
      continue;
    }
    if (info->abi_major != PB_ABI_VERSION_MAJOR) {
      refusals_.push_back({info->library, "manifest says the plugin was built for ABI " + std::to_string(info->abi_major) +
                                              "." + std::to_string(info->abi_minor) + ", but this host speaks ABI " +
                                              std::to_string(PB_ABI_VERSION_MAJOR) + "." +
                                              std::to_string(PB_ABI_VERSION_MINOR)});
      continue;
    }
    add(std::move(*info), nullptr);
  }
  for (const fs::path &lib : libraries) {
    if (covered.count(fs::absolute(lib).lexically_normal()) != 0) continue;
    auto probed = probe_library(lib, host_, false);
    if (!probed) {
      refusals_.push_back({lib, probed.error().message});
      continue;
    }
    add(std::move(probed->info), nullptr);
  }
}

void PluginRegistry::discover(const std::vector<SearchDir> &dirs) {
  std::set<fs::path> seen;
  for (const SearchDir &dir : dirs) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(dir.path, ec);
    if (ec) canonical = dir.path;
    if (!seen.insert(canonical).second) continue;
    dirs_.push_back({canonical, dir.origin});
    scan_dir({canonical, dir.origin});
  }
}

const PluginInfo *PluginRegistry::find(std::string_view id) const {
  for (const PluginInfo &p : plugins_)
    if (p.id == id) return &p;
  return nullptr;
}

std::vector<std::string> PluginRegistry::ids() const {
  std::vector<std::string> out;
  for (const PluginInfo &p : plugins_) out.push_back(p.id);
  return out;
}

const PluginInfo *PluginRegistry::find_command(std::string_view name) const {
  for (const PluginInfo &p : plugins_)
    for (const CommandInfo &c : p.commands)
      if (c.name == name) return &p;
  return nullptr;
}

LoadedLibrary *PluginRegistry::loaded(std::string_view id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = loaded_.find(id);
  return it == loaded_.end() ? nullptr : it->second.get();
}

std::vector<std::string> PluginRegistry::loaded_ids() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return load_order_;
}

Expected<LoadedLibrary *> PluginRegistry::load(std::string_view id) {
  const PluginInfo *info = find(id);
  if (info == nullptr) {
    std::string searched;
    for (const SearchDir &d : dirs_) searched += (searched.empty() ? "" : ", ") + d.path.string() + " (" + d.origin + ")";
    return make_error("unknown plugin '" + std::string(id) + "'; searched " + (searched.empty() ? "no directory" : searched) +
                      " (add a directory with --plugin-path DIR or PERFBOUND_PLUGIN_PATH)");
  }
  LoadedLibrary *lib = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = loaded_.find(id);
    if (it != loaded_.end()) lib = it->second.get();
  }
  if (lib == nullptr) {
    auto opened = LoadedLibrary::open(info->library, host_, {});
    if (!opened) return opened.error();
    const PluginInfo &live = opened->library->info();
    {
      json want = info->descriptor_json();
      json got = live.descriptor_json();
      if (want != got && info->described_by != "manifest")
        return make_error(info->library.string() + ": the library changed since it was inspected at discovery; refusing to load it");
      if (want != got) {
        json patch = json::diff(want, got);
        std::string first = patch.empty() ? std::string("?") : patch.front().value("path", "?");
        return make_error(info->manifest.string() + ": stale manifest: the library now describes itself differently (first difference at '" +
                          first + "'); regenerate it with 'perfbound plugin manifest " + info->library.string() +
                          " -o " + info->manifest.string() + "'");
      }
    }
    lib = opened->library.get();
    std::lock_guard<std::mutex> lock(mutex_);
    load_order_.push_back(info->id);
    loaded_[info->id] = std::move(opened->library);
  }
  if (Status st = lib->initialize(host_); !st) return st.error();
  return lib;
}

std::vector<SearchDir> env_plugin_dirs() {
  std::vector<SearchDir> dirs;
  const char *env = std::getenv("PERFBOUND_PLUGIN_PATH");
  if (env == nullptr) return dirs;
  std::stringstream ss(env);
  std::string item;
  while (std::getline(ss, item, ':'))
    if (!item.empty()) dirs.push_back({fs::path(item), "PERFBOUND_PLUGIN_PATH"});
  return dirs;
}

fs::path builtin_plugin_dir() {
  fs::path exe = boost::dll::program_location();
  return (exe.parent_path() / ".." / "lib" / "perfbound" / "plugins").lexically_normal();
}

}  // namespace perfbound
