//===- oracle_record.cpp - byte sets and the oracle's counters ------------===//
#include "oracle_record.hpp"

#include <algorithm>
#include <cassert>

namespace perfbound::ttir_oracle {

//===----------------------------------------------------------------------===//
// ByteSet
//===----------------------------------------------------------------------===//

void ByteSet::add(std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return;
  if (!iv_.empty()) {
    Interval &last = iv_.back();
    if (lo >= last.first && lo <= last.second) {  // overlaps or touches the last one, from inside
      last.second = std::max(last.second, hi);
      return;
    }
    if (lo < last.first) normalized_ = false;
    if (lo > last.second) {
      iv_.emplace_back(lo, hi);
      return;
    }
  }
  iv_.emplace_back(lo, hi);
}

void ByteSet::add(const ByteSet &other) {
  if (other.iv_.empty()) return;
  if (!iv_.empty()) normalized_ = false;
  if (!other.normalized_) normalized_ = false;
  iv_.insert(iv_.end(), other.iv_.begin(), other.iv_.end());
}

void ByteSet::normalize() {
  if (normalized_) return;
  std::sort(iv_.begin(), iv_.end());
  size_t out = 0;
  for (size_t idx = 0; idx < iv_.size(); ++idx) {
    if (out > 0 && iv_[idx].first <= iv_[out - 1].second) {
      iv_[out - 1].second = std::max(iv_[out - 1].second, iv_[idx].second);
    } else {
      iv_[out++] = iv_[idx];
    }
  }
  iv_.resize(out);
  normalized_ = true;
}

std::int64_t ByteSet::size() {
  normalize();
  std::int64_t total = 0;
  for (const Interval &i : iv_) total += i.second - i.first;
  return total;
}

bool ByteSet::covers(std::int64_t lo, std::int64_t hi) const {
  assert(normalized_);
  // The last interval starting at or before lo.
  auto it = std::upper_bound(iv_.begin(), iv_.end(), Interval{lo, INT64_MAX});
  if (it == iv_.begin()) return false;
  --it;
  return it->first <= lo && it->second >= hi;
}

const std::vector<ByteSet::Interval> &ByteSet::intervals() {
  normalize();
  return iv_;
}

ByteSet ByteSet::intersect(ByteSet &a, ByteSet &b) {
  a.normalize();
  b.normalize();
  ByteSet out;
  size_t i = 0, j = 0;
  while (i < a.iv_.size() && j < b.iv_.size()) {
    std::int64_t lo = std::max(a.iv_[i].first, b.iv_[j].first);
    std::int64_t hi = std::min(a.iv_[i].second, b.iv_[j].second);
    if (lo < hi) out.iv_.emplace_back(lo, hi);
    if (a.iv_[i].second < b.iv_[j].second) ++i; else ++j;
  }
  return out;
}

ByteSet ByteSet::subtract(ByteSet &a, ByteSet &b) {
  a.normalize();
  b.normalize();
  ByteSet out;
  size_t j = 0;
  for (const Interval &ai : a.iv_) {
    std::int64_t lo = ai.first;
    while (j < b.iv_.size() && b.iv_[j].second <= lo) ++j;
    size_t k = j;
    while (lo < ai.second) {
      if (k >= b.iv_.size() || b.iv_[k].first >= ai.second) {
        out.iv_.emplace_back(lo, ai.second);
        break;
      }
      if (b.iv_[k].first > lo) out.iv_.emplace_back(lo, b.iv_[k].first);
      lo = std::max(lo, b.iv_[k].second);
      ++k;
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Recorder
//===----------------------------------------------------------------------===//

Recorder::Recorder(std::vector<ArgInfo> args, int buffers, std::vector<std::int64_t> buffer_offset)
    : args_(std::move(args)), buffers_(buffers), buffer_offset_(std::move(buffer_offset)) {
  for (auto &per_dir : buffer_total_) per_dir.resize(static_cast<size_t>(buffers_));
}

void Recorder::begin_program(const std::array<std::int64_t, 3> &pid) {
  cur_ = Program();
  cur_.fig.pid = pid;
  cur_.must_read.resize(static_cast<size_t>(buffers_));
  cur_.written.resize(static_cast<size_t>(buffers_));
  cur_.atomic.resize(static_cast<size_t>(buffers_));
}

void Recorder::access(Direction dir, int elem_bytes, const std::vector<AccessLane> &lanes) {
  const double bytes = static_cast<double>(elem_bytes);
  cur_.fig.requested[dir] += bytes * static_cast<double>(lanes.size());
  for (const AccessLane &lane : lanes) {
    if (!lane.active) continue;
    cur_.fig.active[dir] += bytes;
    if (lane.arg < 0) {
      unknown_pointer_ = true;
      continue;
    }
    cur_.touched[{lane.arg, dir}].add(lane.byte, lane.byte + elem_bytes);
    const size_t buffer = static_cast<size_t>(args_[static_cast<size_t>(lane.arg)].buffer);
    const std::int64_t at = buffer_offset_[static_cast<size_t>(lane.arg)] + lane.byte;
    if (dir == kRead) {
      ByteSet &w = cur_.written[buffer];
      // A byte this program wrote before is in the core already.
      if (w.empty() || !w.covers(at, at + elem_bytes)) cur_.must_read[buffer].add(at, at + elem_bytes);
    } else if (dir == kWritten) {
      cur_.written[buffer].add(at, at + elem_bytes);
    } else {
      cur_.atomic[buffer].add(at, at + elem_bytes);
    }
  }
  // Later reads of this program ask the written set.
  if (dir == kWritten)
    for (ByteSet &w : cur_.written) w.normalize();
}

void Recorder::work(const std::string &cls, const std::string &key, double amount) {
  cur_.fig.work[cls][key] += amount;
}

void Recorder::end_program() {
  for (auto &[key, set] : cur_.touched) {
    cur_.fig.unique[key] = set.size();
    ByteSet &total = touched_total_[key];
    total.add(set);
    total.normalize();
  }
  std::array<std::vector<ByteSet> *, 3> per_dir{&cur_.must_read, &cur_.written, &cur_.atomic};
  for (int dir = 0; dir < 3; ++dir) {
    std::int64_t sum = 0;
    for (size_t b = 0; b < static_cast<size_t>(buffers_); ++b) {
      ByteSet &s = (*per_dir[static_cast<size_t>(dir)])[b];
      sum += s.size();
      ByteSet &total = buffer_total_[static_cast<size_t>(dir)][b];
      total.add(s);
      total.normalize();
    }
    cur_.fig.must_move[static_cast<size_t>(dir)] = sum;
  }
  reads_of_.push_back(std::move(cur_.must_read));
  writes_of_.push_back(std::move(cur_.written));
  done_.push_back(std::move(cur_.fig));
  cur_ = Program();
}

void Recorder::finish(OracleResult &out) {
  out.per_program = std::move(done_);
  for (auto &[key, set] : touched_total_) out.unique_total[key] = set.size();
  for (int dir = 0; dir < 3; ++dir) {
    std::int64_t sum = 0;
    for (ByteSet &s : buffer_total_[static_cast<size_t>(dir)]) sum += s.size();
    out.buffer_unique_total[static_cast<size_t>(dir)] = sum;
  }
  // Forced reads, per buffer: bytes read (not after an own write) that no
  // program writes, plus bytes written by exactly one program that read
  // them itself before writing.
  std::int64_t forced = 0;
  const size_t programs = reads_of_.size();
  for (size_t b = 0; b < static_cast<size_t>(buffers_); ++b) {
    ByteSet reads_all = buffer_total_[kRead][b];
    ByteSet writes_all = buffer_total_[kWritten][b];
    forced += ByteSet::subtract(reads_all, writes_all).size();
    // Sweep the writes of every program: where exactly one program writes,
    // the owner is the sum of the open owners' ids.
    struct Event {
      std::int64_t at;
      int delta;
      std::int64_t owner;
    };
    std::vector<Event> events;
    for (size_t p = 0; p < programs; ++p)
      for (const ByteSet::Interval &i : writes_of_[p][b].intervals()) {
        events.push_back({i.first, +1, static_cast<std::int64_t>(p)});
        events.push_back({i.second, -1, static_cast<std::int64_t>(p)});
      }
    if (events.empty()) continue;
    std::sort(events.begin(), events.end(), [](const Event &x, const Event &y) { return x.at < y.at; });
    std::map<std::int64_t, ByteSet> once_by_owner;
    int open = 0;
    std::int64_t owner_sum = 0;
    for (size_t idx = 0; idx < events.size();) {
      const std::int64_t at = events[idx].at;
      while (idx < events.size() && events[idx].at == at) {
        open += events[idx].delta;
        owner_sum += events[idx].delta * events[idx].owner;
        ++idx;
      }
      if (open == 1 && idx < events.size()) once_by_owner[owner_sum].add(at, events[idx].at);
    }
    for (auto &[owner, set] : once_by_owner)
      forced += ByteSet::intersect(set, reads_of_[static_cast<size_t>(owner)][b]).size();
  }
  out.forced_read = forced;
  if (unknown_pointer_)
    out.notes.push_back("an access went through a pointer not derived from a kernel argument: its bytes are "
                        "requested but in no argument's set");
}

Spread spread(const std::vector<double> &values) {
  Spread s;
  if (values.empty()) return s;
  s.min = s.max = values.front();
  for (double v : values) {
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    s.sum += v;
  }
  s.mean = s.sum / static_cast<double>(values.size());
  return s;
}

}  // namespace perfbound::ttir_oracle
