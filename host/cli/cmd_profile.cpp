//===- cmd_profile.cpp - `perfbound profile show|check` -------------------===//
#include <iostream>

#include "commands.hpp"
#include "paths.hpp"
#include "profile.hpp"
#include "report.hpp"

namespace perfbound::cli {

namespace fs = std::filesystem;

void register_profile_commands(CLI::App &root, CommandContext &ctx) {
  CLI::App *profile = root.add_subcommand("profile", "Show or check a hardware profile directory");
  profile->require_subcommand(1);
  {
    auto dir = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    CLI::App *show = profile->add_subcommand("show", "Print a profile with every value in canonical units and its source");
    show->add_option("dir", *dir, "Profile directory or bundled name (e.g. ascend_910b3)")->required();
    show->add_flag("--json", *json_out, "Print the perfbound.profile/1 document");
    show->callback([&ctx, dir, json_out]() {
      ctx.action = [=](App &) -> int {
        auto located = locate_profile(*dir, fs::current_path());
        if (!located) {
          std::cerr << "perfbound: hardware profile '" << *dir << "' not found\n";
          return kExitInvalidInput;
        }
        ProfileLoad load = load_profile(*located);
        if (load.diagnostics.has_errors()) {
          std::cerr << load.diagnostics.format();
          return kExitInvalidInput;
        }
        if (*json_out)
          std::cout << load.document.dump(2) << "\n";
        else
          std::cout << render_json_tree(load.document, false);
        return kExitOk;
      };
    });
  }
  {
    auto dir = std::make_shared<std::string>();
    CLI::App *check = profile->add_subcommand("check", "Check a profile: keys, units, values and sources");
    check->add_option("dir", *dir, "Profile directory or bundled name")->required();
    check->footer("Exit status: 0 no errors; 3 errors found.");
    check->callback([&ctx, dir]() {
      ctx.action = [=](App &) -> int {
        auto located = locate_profile(*dir, fs::current_path());
        if (!located) {
          std::cerr << "perfbound: hardware profile '" << *dir << "' not found\n";
          return kExitInvalidInput;
        }
        ProfileLoad load = load_profile(*located);
        std::cout << load.diagnostics.format();
        if (load.diagnostics.has_errors()) {
          std::cout << located->string() << ": " << load.diagnostics.error_count() << " error(s)\n";
          return kExitInvalidInput;
        }
        std::cout << located->string() << ": ok\n";
        return kExitOk;
      };
    });
  }
}

}  // namespace perfbound::cli
