//===- paths.cpp - where the host finds its data files --------------------===//
#include "paths.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include "suggest.hpp"
#include "version.hpp"

#include <algorithm>
#include <set>

namespace perfbound {

namespace fs = std::filesystem;

fs::path executable_dir() { return fs::path(boost::dll::program_location()).parent_path(); }

std::vector<fs::path> data_dirs(const std::string &folder) {
  std::vector<fs::path> dirs;
  dirs.push_back((executable_dir() / ".." / "share" / "perfbound" / folder).lexically_normal());
  fs::path source = fs::path(kPerfboundSourceDir);
  if (folder == "schemas")
    dirs.push_back(source / "abi" / "schemas");
  else
    dirs.push_back(source / folder);
  return dirs;
}

std::optional<fs::path> find_data_dir(const std::string &folder) {
  for (const fs::path &dir : data_dirs(folder)) {
    std::error_code ec;
    if (fs::is_directory(dir, ec)) return dir;
  }
  return std::nullopt;
}

std::optional<fs::path> locate_profile(const std::string &name_or_path, const fs::path &base_dir) {
  std::error_code ec;
  fs::path as_path = fs::path(name_or_path).is_absolute() ? fs::path(name_or_path) : base_dir / name_or_path;
  if (fs::is_directory(as_path, ec) && fs::exists(as_path / "profile.toml", ec)) return fs::absolute(as_path).lexically_normal();
  if (name_or_path.find('/') != std::string::npos) return std::nullopt;
  for (const fs::path &dir : data_dirs("hardware_profiles")) {
    fs::path candidate = dir / name_or_path;
    if (fs::is_directory(candidate, ec) && fs::exists(candidate / "profile.toml", ec)) return candidate.lexically_normal();
  }
  return std::nullopt;
}

std::vector<std::string> bundled_profile_names() {
  std::set<std::string> names;
  for (const fs::path &dir : data_dirs("hardware_profiles")) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto &entry : fs::directory_iterator(dir, ec))
      if (fs::exists(entry.path() / "profile.toml", ec)) names.insert(entry.path().filename().string());
  }
  return {names.begin(), names.end()};
}

std::string profile_not_found_hint(const std::string &name_or_path) {
  const std::vector<std::string> names = bundled_profile_names();
  std::string word = fs::path(name_or_path).filename().string();
  if (word.empty()) word = name_or_path;
  return valid_list_suffix(word, names, "bundled profiles") +
         "; or give a directory holding profile.toml";
}

}  // namespace perfbound
