//===- unique_bytes.hpp - bytes each argument's accesses touch ------------===//
//
// Pass 2 of the evaluation: the footprint of each access in one program, as
// intervals of bytes. The element offset (and a linear mask) is made affine
// in the tile dimensions and loop counters for the program (Concretizer);
// loops whose counters are not affine (inside a division, as in a persistent
// tile loop) are fixed one value at a time; rows of the tile are enumerated
// within a row budget. Intervals are merged per (pointer argument,
// direction) into unique bytes per program and over the launch. A group is
// incomplete (its figures lower bounds) where an access runs an unknown
// number of times, under an undecided condition, at a non-affine offset or
// past the budget. From: the KernelModel, one program's ProgramCounts and
// the launch values in the shared EvalEnv.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_UNIQUE_BYTES_HPP
#define PERFBOUND_EXTRACT_TTIR_UNIQUE_BYTES_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dsl_facts.hpp"
#include "program_counts.hpp"

namespace perfbound::ttir {

struct Interval {
  std::int64_t lo;  // bytes, inclusive
  std::int64_t hi;  // bytes, exclusive
};

/// Sum of the lengths of the union of `v` (sorted in place).
double union_bytes(std::vector<Interval> &v);

/// Enumerates unique bytes program by program (see the file comment).
class UniqueBytes : public ProgramPass {
 public:
  UniqueBytes(const KernelModel &k, const KernelStructure &s, Evaluator &ev, EvalEnv &env, const FactsOptions &options);

  /// Adds the footprint of program `p`, which executed `pc` (access_note:
  /// the counting pass's notes on undecided conditions).
  void add_program(const ProgramCounts &pc, const std::vector<std::string> &access_note, std::int64_t p);
  /// After the last program: marks everything incomplete unless all
  /// `programs` were enumerated within the budget.
  void finish(std::int64_t programs_evaluated, std::int64_t programs);

  struct Union {
    std::vector<Interval> global;
    Dist per_program;
    bool complete = true;       // every access of the group enumerated in every program
    std::string incomplete_why;
    int incomplete_line = 0;
    SourceLoc incomplete_loc;
  };
  std::map<std::pair<int, int>, Union> unions;  // (arg, direction)
  std::vector<double> access_active_sum;         // active (mask-true) bytes over the launch
  std::vector<bool> access_active_ok;
  std::vector<std::string> access_active_why;
  std::vector<std::optional<AffineForm>> first_form;  // affine offset in the first program
  std::vector<std::string> first_form_why;
  bool budget_hit = false;

 private:
  bool enumerate_rows(const Access &a, const AffineForm &form, const std::vector<LinearConstraint> &constraints,
                      const std::vector<int> &chain, size_t level, std::vector<Interval> &out, double &active);
  bool dims_rows(const Access &a, std::int64_t base, const AffineForm &form,
                 const std::vector<LinearConstraint> &constraints, const std::vector<std::int64_t> &residual,
                 std::vector<Interval> &out, double &active);

  Concretizer concretizer_;
  const FactsOptions &options_;
  std::int64_t rows_left_ = 0;
  std::vector<std::unordered_map<std::string, double>> seen_signature_;  // per access: signature -> active elements
  std::map<std::pair<int, int>, std::unordered_map<std::string, double>> per_program_cache_;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_UNIQUE_BYTES_HPP
