//===- cmd_plugins.cpp - `perfbound plugins`, `plugin check|manifest`, `schemas` ===//
#include <fstream>
#include <iostream>
#include <sstream>

#include <perfbound/sdk/text.hpp>

#include "commands.hpp"
#include "plugin_check.hpp"
#include "version.hpp"

namespace perfbound::cli {

namespace fs = std::filesystem;

namespace {

std::string port_line(const PortInfo &p) {
  std::string s = p.name + " : " + p.schema;
  if (!p.one_of.empty()) s += " (one of group '" + p.one_of + "': connect exactly one)";
  else if (p.optional()) s += " (optional)";
  if (p.multi()) s += " (list)";
  return s;
}

void print_plugins_text(App &app) {
  std::ostringstream os;
  const PluginRegistry &reg = *app.plugins;
  os << "plugin search path:\n";
  for (const SearchDir &d : reg.search_dirs()) os << "  " << d.path.string() << "  (" << d.origin << ")\n";
  os << "\n";
  for (const PluginInfo &p : reg.plugins()) {
    os << p.id << " " << p.version << "  [ABI " << p.abi_major << "." << p.abi_minor << ", described by "
              << p.described_by << "]\n";
    if (!p.name.empty()) os << "  " << p.name << (p.vendor.empty() ? "" : " - " + p.vendor) << "\n";
    os << "  library: " << p.library.string() << "\n";
    for (const KindInfo &k : p.kinds) {
      os << "  kind " << k.name << (k.description.empty() ? "" : ": " + k.description) << "\n";
      for (const PortInfo &port : k.inputs) os << "    in  " << port_line(port) << "\n";
      for (const PortInfo &port : k.outputs) os << "    out " << port_line(port) << "\n";
      for (const ParamInfo &par : k.params) {
        os << "    param " << par.name << " : " << param_type_name(par.type)
                  << (par.required ? " (required)" : " = " + par.default_value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        if (par.choices) os << " one of " << par.choices->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (par.minimum || par.maximum) os << " range " << par.range_text();
        if (!par.description.empty()) os << "  -- " << par.description;
        os << "\n";
      }
    }
    for (const CommandInfo &c : p.commands) os << "  command " << c.name << ": " << c.summary << "\n";
    if (!p.extensions.empty()) {
      os << "  extensions:";
      for (const std::string &e : p.extensions) os << " " << e;
      os << "\n";
    }
  }
  if (reg.plugins().empty()) os << "(no plugins found)\n";
  std::cout << pb::sdk::text::wrap_lines(os.str());  // 100 columns, continuation under the value
  // Refusals and notes stay one line each, "path: reason", as diagnostics do.
  for (const Refusal &r : reg.refusals()) std::cout << "refused: " << r.reason << "\n";
  for (const std::string &n : reg.notes()) std::cout << "note: " << n << "\n";
}

}  // namespace

void register_plugin_commands(CLI::App &root, CommandContext &ctx) {
  {
    auto json_out = std::make_shared<bool>(false);
    CLI::App *cmd = root.add_subcommand("plugins", "List the plugins found on the search path, without loading them when a manifest exists");
    cmd->add_flag("--json", *json_out, "Print as JSON");
    cmd->callback([&ctx, json_out]() {
      ctx.action = [=](App &app) -> int {
        app.discover();
        if (*json_out) {
          json j;
          j["schema"] = "perfbound.plugin_list/1";
          j["search_path"] = json::array();
          for (const SearchDir &d : app.plugins->search_dirs()) j["search_path"].push_back({{"path", d.path.string()}, {"origin", d.origin}});
          j["plugins"] = json::array();
          for (const PluginInfo &p : app.plugins->plugins()) {
            json e = p.descriptor_json();
            e["library"] = p.library.string();
            e["manifest"] = p.manifest.empty() ? json(nullptr) : json(p.manifest.string());
            e["described_by"] = p.described_by;
            j["plugins"].push_back(e);
          }
          j["refused"] = json::array();
          for (const Refusal &r : app.plugins->refusals()) j["refused"].push_back({{"file", r.file.string()}, {"reason", r.reason}});
          j["notes"] = app.plugins->notes();
          std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        } else {
          print_plugins_text(app);
        }
        return kExitOk;
      };
    });
  }
  {
    CLI::App *plugin = root.add_subcommand("plugin", "Check a plugin library or write its manifest");
    plugin->require_subcommand(1);
    auto lib = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    CLI::App *check = plugin->add_subcommand("check", "Load a plugin library and exercise every ABI rule, reporting each violation");
    check->add_option("library", *lib, "Path to the plugin shared library")->required();
    check->add_flag("--json", *json_out, "Print as JSON");
    check->footer("Exit status: 0 no violations; 1 violations found; 3 the file is not a loadable plugin.");
    check->callback([&ctx, lib, json_out]() {
      ctx.action = [=](App &app) -> int {
        // Vendor schemas published next to the library count too.
        std::error_code ec;
        fs::path lib_dir = fs::absolute(*lib).parent_path();
        bool has_schema = false;
        for (const auto &entry : fs::directory_iterator(lib_dir, ec))
          has_schema = has_schema || entry.path().string().find(".schema.json") != std::string::npos;
        if (has_schema) app.schemas.load_dir(lib_dir);
        PluginCheckReport report = check_plugin(*lib, *app.host, app.schemas);
        if (*json_out)
          std::cout << report.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        else
          std::cout << report.to_text();
        if (report.plugin_id.empty()) return kExitInvalidInput;
        return report.failures() == 0 ? kExitOk : kExitFailure;
      };
    });
    auto mlib = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    CLI::App *manifest = plugin->add_subcommand("manifest", "Write the manifest that lets the host describe a plugin without loading it");
    manifest->add_option("library", *mlib, "Path to the plugin shared library")->required();
    manifest->add_option("-o,--output", *out, "Manifest file to write (default: <library>.pbplugin.json next to it)");
    manifest->callback([&ctx, mlib, out]() {
      ctx.action = [=](App &app) -> int {
        // The library runs in a child process only; the host never maps it.
        auto probed = probe_library(*mlib, *app.host, false);
        if (!probed) {
          std::cerr << "perfbound: " << probed.error().message << "\n";
          return kExitInvalidInput;
        }
        fs::path lib_path(*mlib);
        fs::path target = out->empty() ? fs::path(lib_path.string() + ".pbplugin.json") : fs::path(*out);
        json m = probed->info.manifest_json(lib_path.filename().string());
        std::ofstream f(target);
        f << m.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        if (!f) {
          std::cerr << "perfbound: cannot write " << target.string() << "\n";
          return kExitFailure;
        }
        return kExitOk;
      };
    });
  }
  {
    auto id = std::make_shared<std::string>();
    CLI::App *cmd = root.add_subcommand("schemas", "List the published document schemas, or print one");
    cmd->add_option("id", *id, "Schema id to print, e.g. perfbound.bound_report/1");
    cmd->callback([&ctx, id]() {
      ctx.action = [=](App &app) -> int {
        if (id->empty()) {
          for (const std::string &s : app.schemas.ids()) std::cout << s << "\n";
          return kExitOk;
        }
        const json *s = app.schemas.find(*id);
        if (s == nullptr) {
          std::cerr << "perfbound: no published schema '" << *id << "' (run 'perfbound schemas' for the list)\n";
          return kExitInvalidInput;
        }
        std::cout << s->dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
      };
    });
  }
  {
    CLI::App *cmd = root.add_subcommand("version", "Print the version, build identity and plugin ABI");
    cmd->callback([&ctx]() {
      ctx.action = [](App &) -> int {
        std::cout << "perfbound " << kPerfboundVersion << " (" << git_sha() << ", " << kPerfboundBuildType << ")\n"
                  << "plugin ABI " << PB_ABI_VERSION_MAJOR << "." << PB_ABI_VERSION_MINOR << ", manifest format "
                  << PB_MANIFEST_FORMAT_VERSION << ", pipeline format 1\n";
        return kExitOk;
      };
    });
  }
}

}  // namespace perfbound::cli
