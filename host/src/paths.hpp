//===- paths.hpp - where the host finds its data files --------------------===//
//
// Data that ships with perfbound (JSON Schemas, hardware profiles, example
// pipelines) is looked up next to the executable first
// (<exe>/../share/perfbound/...), which covers both the build tree and an
// installation, and then in the source tree this binary was built from.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_PATHS_HPP
#define PERFBOUND_HOST_PATHS_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace perfbound {

std::filesystem::path executable_dir();
/// Candidate directories for a data folder ("schemas", "hardware_profiles").
std::vector<std::filesystem::path> data_dirs(const std::string &folder);
/// The first candidate that exists, or nullopt.
std::optional<std::filesystem::path> find_data_dir(const std::string &folder);
/// Resolves a profile given as a directory path or as a bundled name.
std::optional<std::filesystem::path> locate_profile(const std::string &name_or_path,
                                                    const std::filesystem::path &base_dir);
/// The names of the bundled profiles (directories holding profile.toml), sorted.
std::vector<std::string> bundled_profile_names();
/// What to say when profile `name_or_path` is not found: the bundled names
/// and the nearest one ("; bundled: a, b (did you mean 'b'?)").
std::string profile_not_found_hint(const std::string &name_or_path);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_PATHS_HPP
