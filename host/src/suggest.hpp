//===- suggest.hpp - "did you mean" suggestions and valid-key lists -------===//
#ifndef PERFBOUND_HOST_SUGGEST_HPP
#define PERFBOUND_HOST_SUGGEST_HPP

#include <string>
#include <string_view>
#include <vector>

namespace perfbound {

/// Levenshtein distance between two strings.
size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `word`, or "" when none is close enough to be a
/// plausible typo (distance <= max(2, len/3)).
std::string nearest(std::string_view word, const std::vector<std::string> &candidates);

/// "; valid: a, b, c (did you mean 'b'?)" - the tail shared by every
/// unknown-name message. Lists at most 30 names.
std::string valid_list_suffix(std::string_view word, const std::vector<std::string> &candidates,
                              std::string_view what = "valid");

}  // namespace perfbound

#endif  // PERFBOUND_HOST_SUGGEST_HPP
