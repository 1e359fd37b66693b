//===- app.cpp - state shared by the perfbound CLI commands ---------------===//
#include "app.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "fault_guard.hpp"
#include "paths.hpp"
#include "profile.hpp"

namespace perfbound::cli {

namespace fs = std::filesystem;

std::atomic<bool> &cancel_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {
extern "C" void on_interrupt(int) {
  cancel_flag().store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills
  std::signal(SIGTERM, SIG_DFL);
}
}  // namespace

std::string flush_stdout() {
  errno = 0;
  std::cout.flush();
  if (std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout)) return {};
  const int saved = errno;
  std::cout.clear();  // so a later flush does not repeat the error
  return std::strerror(saved != 0 ? saved : EIO);
}

int finish_command(int code) {
  if (std::string why = flush_stdout(); !why.empty()) {
    std::cerr << "perfbound: cannot write to standard output: " << why << "\n";
    if (code == kExitOk) code = kExitFailure;
  }
  std::cerr.flush();
  if (abandoned_plugin_calls() > 0) {
    std::fflush(nullptr);
    _exit(code);
  }
  return code;
}

void install_interrupt_handler() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

App::App(GlobalOptions opts) : options(std::move(opts)) {
  pb_severity min = PB_SEVERITY_WARNING;
  if (options.verbosity < 0) min = PB_SEVERITY_ERROR;
  if (options.verbosity == 1) min = PB_SEVERITY_INFO;
  if (options.verbosity >= 2) min = PB_SEVERITY_DEBUG;
  logger.set_min_severity(min);
  host = std::make_unique<HostServices>(logger);
  plugins = std::make_unique<PluginRegistry>(*host);
  if (auto dir = find_data_dir("schemas")) {
    schema_problems = schemas.load_dir(*dir);
  } else {
    schema_problems.push_back("no schema directory found (looked in share/perfbound/schemas and the source tree)");
  }
  for (const std::string &p : schema_problems) logger.log(PB_SEVERITY_WARNING, "schemas", p);
  host->set_pipeline_runner([this](const std::string &path, const std::vector<std::string> &sets, std::string &out) {
    RunOptions ro;
    ro.cancel = &cancel_flag();
    RunResult result = run_pipeline(path, sets, "", ro);
    out = result.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (result.status == "invalid") return PB_ERR_INVALID_INPUT;
    return result.ok ? PB_OK : PB_ERR_INTERNAL;
  });
  host->set_plugin_directory(PluginDirectory{
      [this](const std::string &extension_id) {
        discover();
        json list = json::array();
        for (const PluginInfo &p : plugins->plugins())
          if (std::find(p.extensions.begin(), p.extensions.end(), extension_id) != p.extensions.end())
            list.push_back({{"id", p.id}, {"version", p.version}, {"library", p.library.string()}});
        return list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      },
      [this](const std::string &plugin_id, const std::string &extension_id) -> const void * {
        discover();
        auto lib = plugins->load(plugin_id);
        if (!lib) {
          logger.log(PB_SEVERITY_ERROR, "plugins", lib.error().message);
          return nullptr;
        }
        return (*lib)->extension(extension_id.c_str());
      }});
  host->set_profile_provider([this](const std::string &name_or_dir, std::string &out) {
    auto dir = locate_profile(name_or_dir, fs::current_path());
    if (!dir) {
      logger.log(PB_SEVERITY_ERROR, "profile", "hardware profile '" + name_or_dir + "' not found" + profile_not_found_hint(name_or_dir));
      return PB_ERR_INVALID_INPUT;
    }
    auto loaded = load_profile_document(*dir);
    if (!loaded) {
      logger.log(PB_SEVERITY_ERROR, "profile", loaded.error().message);
      return PB_ERR_INVALID_INPUT;
    }
    out = loaded->document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return PB_OK;
  });
}

void App::discover() {
  if (discovered_) return;
  discovered_ = true;
  std::vector<SearchDir> dirs;
  for (const std::string &p : options.plugin_paths) dirs.push_back({fs::absolute(p), "--plugin-path"});
  for (SearchDir &d : env_plugin_dirs()) dirs.push_back({fs::absolute(d.path), d.origin});
  if (!options.no_builtin_plugins) dirs.push_back({builtin_plugin_dir(), "built-in"});
  plugins->discover(dirs);
  // Vendors publish the schemas of their own documents next to their
  // libraries; load *.schema.json from every plugin directory too.
  for (const SearchDir &d : plugins->search_dirs()) {
    std::error_code ec;
    if (!fs::is_directory(d.path, ec)) continue;
    bool has_schema = false;
    for (const auto &entry : fs::directory_iterator(d.path, ec))
      has_schema = has_schema || entry.path().string().find(".schema.json") != std::string::npos;
    if (!has_schema) continue;
    for (const std::string &p : schemas.load_dir(d.path)) logger.log(PB_SEVERITY_WARNING, "schemas", p);
  }
  report_discovery_problems(false);
}

void App::report_discovery_problems(bool always) {
  for (const Refusal &r : plugins->refusals())
    logger.log(always ? PB_SEVERITY_ERROR : PB_SEVERITY_WARNING, "plugin refused", r.reason);
  for (const std::string &note : plugins->notes())
    logger.log(always ? PB_SEVERITY_WARNING : PB_SEVERITY_INFO, "plugins", note);
}

PluginCatalog App::catalog() const {
  PluginCatalog cat;
  PluginRegistry *reg = plugins.get();
  cat.find = [reg](std::string_view id) { return reg->find(id); };
  cat.ids = reg->ids();
  for (const SearchDir &d : reg->search_dirs())
    cat.search_path += (cat.search_path.empty() ? "" : ", ") + d.path.string() + " (" + d.origin + ")";
  return cat;
}

App::LoadedPipeline App::load_pipeline(const fs::path &file, const std::vector<std::string> &sets,
                                       const std::string &profile, ResolveMode mode) {
  LoadedPipeline out;
  auto pipeline = parse_pipeline_file(file, out.diagnostics);
  if (!pipeline) return out;
  discover();
  std::vector<Override> overrides;
  for (const std::string &s : sets)
    if (auto ov = parse_override(s, out.diagnostics)) overrides.push_back(*ov);
  if (!profile.empty()) {
    std::vector<std::string> profile_inputs;
    for (const InputDecl &in : pipeline->inputs)
      if (in.kind == "profile") profile_inputs.push_back(in.name);
    if (profile_inputs.size() == 1)
      overrides.push_back({profile_inputs.front(), profile});
    else if (profile_inputs.empty())
      out.diagnostics.error({"<command line>", 0, 0}, "", "--profile given, but the pipeline has no input of kind \"profile\"");
    else
      out.diagnostics.error({"<command line>", 0, 0}, "", "--profile is ambiguous: the pipeline has several profile inputs; use --set NAME=DIR");
  }
  const bool structural_errors = out.diagnostics.has_errors();
  out.resolved = resolve_pipeline(std::move(*pipeline), catalog(), overrides, mode, &locate_profile, out.diagnostics);
  if (structural_errors) out.resolved.reset();
  out.diagnostics.sort_and_unique();
  return out;
}

RunResult App::run_pipeline(const fs::path &file, const std::vector<std::string> &sets, const std::string &profile,
                            const RunOptions &options_in) {
  LoadedPipeline loaded = load_pipeline(file, sets, profile, ResolveMode::Run);
  if (!loaded.resolved) {
    RunResult invalid;
    invalid.status = "invalid";
    invalid.diagnostics = loaded.diagnostics;
    invalid.resolved = {{"file", file.string()}};
    return invalid;
  }
  Engine engine(*host, *plugins, schemas, [](const fs::path &dir) { return load_profile_document(dir); });
  RunResult result = engine.run(*loaded.resolved, options_in);
  Diagnostics merged = loaded.diagnostics;
  merged.append(result.diagnostics);
  result.diagnostics = merged;
  return result;
}

}  // namespace perfbound::cli
