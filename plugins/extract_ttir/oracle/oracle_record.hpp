//===- oracle_record.hpp - what the oracle counts while a kernel runs -----===//
//
// MLIR-free. ByteSet is a set of byte addresses kept as half-open
// intervals. Recorder receives, from the interpreter (oracle_exec.cpp), every
// executed access with its concrete lanes and every unit of work, and keeps
// per program and over the launch the byte sets, requested and active bytes,
// the work by class and the ideal machine's must-move traffic.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_ORACLE_ORACLE_RECORD_HPP
#define PERFBOUND_EXTRACT_TTIR_ORACLE_ORACLE_RECORD_HPP

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ttir_oracle.hpp"

namespace perfbound::ttir_oracle {

/// A set of byte addresses as sorted, disjoint, non-adjacent half-open
/// intervals (after normalize()).
class ByteSet {
 public:
  using Interval = std::pair<std::int64_t, std::int64_t>;
  /// Adds [lo, hi); extends the last interval when it touches it.
  void add(std::int64_t lo, std::int64_t hi);
  void add(const ByteSet &other);
  /// Sorts and merges (amortised: only when something was added).
  void normalize();
  [[nodiscard]] std::int64_t size();
  /// Whether every byte of [lo, hi) is in the set; the set must be normalized.
  [[nodiscard]] bool covers(std::int64_t lo, std::int64_t hi) const;
  [[nodiscard]] const std::vector<Interval> &intervals();
  [[nodiscard]] bool empty() const { return iv_.empty(); }
  static ByteSet intersect(ByteSet &a, ByteSet &b);
  static ByteSet subtract(ByteSet &a, ByteSet &b);

 private:
  std::vector<Interval> iv_;
  bool normalized_ = true;
};

/// One lane of an executed access.
struct AccessLane {
  int arg = -1;            // the pointer argument, -1 for a pointer not derived from one
  std::int64_t byte = 0;   // byte offset in the argument
  bool active = true;      // mask true (and inside a block pointer's bounds)
};

class Recorder {
 public:
  Recorder(std::vector<ArgInfo> args, int buffers, std::vector<std::int64_t> buffer_offset);

  void begin_program(const std::array<std::int64_t, 3> &pid);
  /// One execution of an access op: every lane, `elem_bytes` each.
  void access(Direction dir, int elem_bytes, const std::vector<AccessLane> &lanes);
  void work(const std::string &cls, const std::string &key, double amount);
  void end_program();
  /// The launch figures (unique totals, forced reads) into `out`.
  void finish(OracleResult &out);

  [[nodiscard]] bool saw_unknown_pointer() const { return unknown_pointer_; }

 private:
  struct Program {
    ProgramFigures fig;
    std::map<std::pair<int, int>, ByteSet> touched;  // (arg, dir)
    std::vector<ByteSet> must_read, written, atomic;  // per buffer
  };
  std::vector<ArgInfo> args_;
  int buffers_ = 0;
  std::vector<std::int64_t> buffer_offset_;  // per argument: the argument's byte offset in its buffer
  Program cur_;
  std::vector<ProgramFigures> done_;
  std::map<std::pair<int, int>, ByteSet> touched_total_;
  std::array<std::vector<ByteSet>, 3> buffer_total_;
  // Per program, kept for the forced reads: must-read and written bytes per buffer.
  std::vector<std::vector<ByteSet>> reads_of_, writes_of_;
  bool unknown_pointer_ = false;
};

}  // namespace perfbound::ttir_oracle

#endif  // PERFBOUND_EXTRACT_TTIR_ORACLE_ORACLE_RECORD_HPP
