//===- buffer_footprint.cpp - the buffers section -------------------------===//
//
// The on-chip buffer footprint: at each program point the analysis recorded
// (KernelModel::live_points) the live data tiles of each buffer class (UB,
// L1, L0C) are summed, tiles loaded inside a loop counted `multibuffer`
// times; the largest sum is the footprint, checked against the profile's
// capacity, with the largest power-of-two size of each block dimension that
// still fits.
//
#include "facts_document.hpp"

#include <set>

namespace perfbound::ttir {

namespace {

/// Live-tile peak of one buffer class with every dimension of size `from`
/// scaled to `to` (from == to: as written).
struct Peak {
  double bytes = 0;
  size_t point = 0;
};

Peak buffer_peak(const KernelModel &k, Buffer buffer, int multibuffer, std::int64_t from, std::int64_t to) {
  Peak best;
  for (size_t idx = 0; idx < k.live_points.size(); ++idx) {
    double sum = 0;
    for (int t : k.live_points[idx].tiles) {
      const Tile &tile = k.tiles[static_cast<size_t>(t)];
      if (tile.buffer != buffer) continue;
      double bytes = static_cast<double>(tile.bytes());
      for (std::int64_t s : tile.shape)
        if (s == from && from != to) bytes = bytes * static_cast<double>(to) / static_cast<double>(from);
      if (tile.loaded_in_loop) bytes *= multibuffer;
      sum += bytes;
    }
    if (sum > best.bytes) {
      best.bytes = sum;
      best.point = idx;
    }
  }
  return best;
}

json buffer_json(const KernelModel &k, Buffer buffer, const char *name, std::int64_t capacity, int multibuffer,
                 bool &all_ok) {
  json j;
  j["capacity"] = capacity;
  Peak peak = buffer_peak(k, buffer, multibuffer, 0, 0);
  j["footprint"] = Qty::estimate(peak.bytes, "",
                                 "estimate: the largest sum of live data tiles of the TTIR; the compiler may fuse, "
                                 "split or multi-buffer differently")
                       .to_json();
  bool ok = peak.bytes <= static_cast<double>(capacity);
  j["ok"] = ok;
  all_ok = all_ok && ok;
  j["peak_at"] = peak.bytes > 0 ? loc_json(k.live_points[peak.point].loc) : json(nullptr);
  if (j["peak_at"].is_object()) {
    j["peak_at"]["ttir_line"] = line_json(k.live_points[peak.point].loc.ttir_line);
    j["peak_at"]["python_loc"] = python_json(k.live_points[peak.point].loc.python);
  }
  json largest = json::array();
  if (peak.bytes > 0) {
    std::vector<int> tiles;
    for (int t : k.live_points[peak.point].tiles)
      if (k.tiles[static_cast<size_t>(t)].buffer == buffer) tiles.push_back(t);
    auto eff = [&](int t) {
      const Tile &tile = k.tiles[static_cast<size_t>(t)];
      return static_cast<double>(tile.bytes()) * (tile.loaded_in_loop ? multibuffer : 1);
    };
    std::stable_sort(tiles.begin(), tiles.end(), [&](int x, int y) { return eff(x) > eff(y); });
    for (size_t idx = 0; idx < tiles.size() && idx < 5; ++idx) {
      const Tile &tile = k.tiles[static_cast<size_t>(tiles[idx])];
      largest.push_back({{"name", tile.name},
                         {"op", tile.op},
                         {"shape", tile.shape},
                         {"dtype", tile.dtype},
                         {"bytes", number(eff(tiles[idx]))},
                         {"copies", tile.loaded_in_loop ? multibuffer : 1}});
      add_source(largest.back(), tile.loc);
    }
  }
  j["largest_live"] = largest;
  // The largest power-of-two size of each block dimension that still fits.
  std::set<std::int64_t> dims;
  for (const Tile &tile : k.tiles)
    if (tile.buffer == buffer)
      for (std::int64_t s : tile.shape)
        if (s > 1) dims.insert(s);
  json fitting = json::array();
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    std::int64_t d = *it;
    std::optional<std::int64_t> best;
    double best_bytes = 0;
    for (std::int64_t x = 1; x <= (std::int64_t{1} << 24); x *= 2) {
      Peak p = buffer_peak(k, buffer, multibuffer, d, x);
      if (p.bytes <= static_cast<double>(capacity)) {
        best = x;
        best_bytes = p.bytes;
      } else if (x >= d) {
        break;
      }
    }
    json f{{"dim", d}};
    f["largest"] = best ? json(*best) : json(nullptr);
    f["footprint_at_largest"] = best ? number(best_bytes) : json(nullptr);
    if (!best) f["reason"] = "does not fit even with this dimension at 1";
    fitting.push_back(std::move(f));
    if (fitting.size() >= 4) break;
  }
  j["largest_fitting"] = fitting;
  (void)name;
  return j;
}

}  // namespace

void add_buffers(FactsDoc &fd) {
  const KernelModel &k = fd.k;
  const Hardware &hw = fd.hw;
  const FactsOptions &options = fd.options;
  const bool mix = k.has_dot;
  json buffers;
  bool all_ok = true;
  buffers["multibuffer"] = options.multibuffer;
  buffers["ub"] = buffer_json(k, Buffer::UB, "ub", hw.ub, options.multibuffer, all_ok);
  buffers["l1"] = buffer_json(k, Buffer::L1, "l1", hw.l1, options.multibuffer, all_ok);
  buffers["l0c"] = buffer_json(k, Buffer::L0C, "l0c", hw.l0c, options.multibuffer, all_ok);
  buffers["buffer_ok"] = all_ok;
  buffers["model"] =
      mix ? "mix kernel: tiles loaded only for tt.dot operands in L1, dot results and accumulators in L0C, all other "
            "data tiles in UB"
          : "vector kernel: every data tile in UB";
  fd.doc["buffers"] = buffers;
}

}  // namespace perfbound::ttir
