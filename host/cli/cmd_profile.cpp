//===- cmd_profile.cpp - `perfbound profile show|check` -------------------===//
#include <iostream>

#include <perfbound/sdk/text.hpp>

#include "commands.hpp"
#include "paths.hpp"
#include "profile.hpp"

namespace perfbound::cli {

namespace fs = std::filesystem;

namespace {

/// The profile directory as the user should read it in messages: relative to
/// the current directory when it lies below it, absolute otherwise.
std::optional<fs::path> locate_for_display(const std::string &name_or_dir) {
  auto located = locate_profile(name_or_dir, fs::current_path());
  if (!located) {
    std::cerr << "perfbound: hardware profile '" << name_or_dir << "' not found" << profile_not_found_hint(name_or_dir) << "\n";
    return std::nullopt;
  }
  fs::path relative = located->lexically_proximate(fs::current_path());
  if (!relative.empty() && *relative.begin() != "..") return relative;
  return located;
}

/// Schema violations of the loaded document. The calibration database is
/// validated on its own against perfbound.calibration/1, so a message names
/// calibration.json and the member at fault rather than "no alternative
/// matched" for the whole embedded object.
void add_schema_problems(App &app, const ProfileLoad &load, Diagnostics &diags) {
  if (!app.schemas.has("perfbound.profile/1") || load.files.empty()) return;
  json profile = load.document;
  json calibration = profile.contains("calibration") ? profile["calibration"] : json();
  profile["calibration"] = nullptr;
  for (const std::string &problem : app.schemas.validate("perfbound.profile/1", profile))
    diags.error({load.files.front().string(), 0, 0}, "", "does not follow the published schema perfbound.profile/1: " + problem);
  if (calibration.is_object() && load.files.size() > 1 && app.schemas.has("perfbound.calibration/1"))
    for (const std::string &problem : app.schemas.validate("perfbound.calibration/1", calibration))
      diags.error({load.files[1].string(), 0, 0}, "", "does not follow the published schema perfbound.calibration/1: " + problem);
}

}  // namespace

void register_profile_commands(CLI::App &root, CommandContext &ctx) {
  CLI::App *profile = root.add_subcommand("profile", "Show or check a hardware profile directory");
  profile->require_subcommand(1);
  {
    auto dir = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    CLI::App *show = profile->add_subcommand(
        "show", "Print a profile: every value in its canonical unit and a human form, its kind and source, then the calibration");
    show->add_option("dir", *dir, "Profile directory or bundled name (e.g. ascend_910b3)")->required();
    show->add_flag("--json", *json_out, "Print the perfbound.profile/1 document instead of the table");
    show->callback([&ctx, dir, json_out]() {
      ctx.action = [=](App &) -> int {
        auto located = locate_for_display(*dir);
        if (!located) return kExitInvalidInput;
        ProfileLoad load = load_profile(*located);
        if (load.diagnostics.has_errors()) {
          std::cerr << load.diagnostics.format();
          return kExitInvalidInput;
        }
        if (*json_out)
          std::cout << load.document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        else
          std::cout << pb::sdk::text::wrap_lines(render_profile_table(load.document));
        return kExitOk;
      };
    });
  }
  {
    auto dir = std::make_shared<std::string>();
    CLI::App *check = profile->add_subcommand(
        "check", "Check a profile: required keys, units and dimensions, sane ranges, sources, and the calibration database");
    check->add_option("dir", *dir, "Profile directory or bundled name")->required();
    check->footer(
        "Errors: a missing key, an unknown unit or one of the wrong dimension, a non-positive value or one outside the sane "
        "range of its key (docs/profiles.md), a number without a source, a malformed calibration constant, and a "
        "calibrated rate above its theoretical peak by more than its 95 % CI. Warnings: values marked unknown.\n"
        "Exit status: 0 no errors (warnings allowed); 3 errors found.");
    check->callback([&ctx, dir]() {
      ctx.action = [=](App &app) -> int {
        auto located = locate_for_display(*dir);
        if (!located) return kExitInvalidInput;
        ProfileLoad load = load_profile(*located);
        Diagnostics diags = load.diagnostics;
        if (!load.diagnostics.has_errors()) add_schema_problems(app, load, diags);
        std::cout << diags.format();
        size_t warnings = diags.items().size() - diags.error_count();
        std::string summary = located->string() + ": ";
        if (diags.has_errors()) {
          std::cout << summary << diags.error_count() << " error(s)"
                    << (warnings > 0 ? ", " + std::to_string(warnings) + " warning(s)" : std::string()) << "\n";
          return kExitInvalidInput;
        }
        std::cout << summary << "ok" << (warnings > 0 ? " (" + std::to_string(warnings) + " warning(s))" : std::string())
                  << "\n";
        return kExitOk;
      };
    });
  }
}

}  // namespace perfbound::cli
