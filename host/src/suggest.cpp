//===- suggest.cpp - "did you mean" suggestions ---------------------------===//
#include "suggest.hpp"

#include <algorithm>
#include <numeric>

namespace perfbound {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1);
  std::vector<size_t> cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), size_t{0});
  for (size_t row = 1; row <= a.size(); ++row) {
    cur[0] = row;
    for (size_t col = 1; col <= b.size(); ++col) {
      size_t substitution = prev[col - 1] + (a[row - 1] == b[col - 1] ? 0 : 1);
      cur[col] = std::min({prev[col] + 1, cur[col - 1] + 1, substitution});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string> &candidates) {
  std::string best;
  size_t best_distance = static_cast<size_t>(-1);
  for (const std::string &c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  size_t limit = std::max<size_t>(2, word.size() / 3);
  if (best.empty() || best_distance > limit || best_distance == 0) return {};
  return best;
}

std::string valid_list_suffix(std::string_view word, const std::vector<std::string> &candidates,
                              std::string_view what) {
  std::string out;
  if (candidates.empty()) {
    out += "; there are none";
    return out;
  }
  std::vector<std::string> sorted = candidates;
  std::sort(sorted.begin(), sorted.end());
  out += "; ";
  out += what;
  out += ": ";
  size_t shown = std::min<size_t>(sorted.size(), 30);
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    out += sorted[i];
  }
  if (shown < sorted.size()) out += ", ... (" + std::to_string(sorted.size() - shown) + " more)";
  std::string near = nearest(word, candidates);
  if (!near.empty()) out += " (did you mean '" + near + "'?)";
  return out;
}

}  // namespace perfbound
