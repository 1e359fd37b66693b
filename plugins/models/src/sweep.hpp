//===- sweep.hpp - DSL-tier bounds of many launch configurations ----------===//
//
// An autotuner asks the same question for many launches of one compiled
// kernel: grids and scalar arguments change, the TTIR (block sizes are
// constexpr) does not. The sweep compiles the dsl_facts of one launch into
// a closed-form model once, then evaluates each configuration in a few
// hundred nanoseconds:
//
//   varies with the launch            how
//   programs, waves, occupancy        grid product, ceil(programs / slots)
//   symbolic trip counts (K loops)    the loop's symbolic trip count, compiled
//   1-D mask tails (n_elements)       offset = k*pid_x + i0 < arg: min(arg, P*k)
//
// Work the model cannot vary in closed form (per-program or data-dependent
// loops, other masks, offsets that read arguments) is kept only for
// configurations that agree with the base launch on everything it depends
// on; otherwise it is dropped from that configuration's bound (a lower
// bound stays a lower bound) and the configuration says so.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_SWEEP_HPP
#define PERFBOUND_MODELS_SWEEP_HPP

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <perfbound/sdk/number.hpp>
#include <perfbound/sdk/plugin.hpp>

#include "rates.hpp"

namespace pb::models {

/// A compiled arithmetic expression over scalar arguments.
class SweepExpr {
 public:
  /// Parses `text` with argument names resolved through `arg_index`
  /// (returns -1 for unknown names); nullptr when it cannot be compiled.
  static std::unique_ptr<SweepExpr> compile(const std::string &text,
                                            const std::function<int(const std::string &)> &arg_index);
  [[nodiscard]] double eval(const double *args) const;
  [[nodiscard]] const std::vector<int> &args_used() const { return args_used_; }

  struct Node {
    enum Kind : unsigned char { Const, Arg, Add, Sub, Mul, Div, FloorDiv, CeilDiv, Rem, Min, Max, Neg } kind;
    double value;
    int a, b;
  };

 private:
  std::vector<Node> nodes_;  // postorder; the root is last
  std::vector<int> args_used_;
  friend class SweepParser;
};

/// One launch configuration.
struct SweepConfig {
  std::array<double, 3> grid{1, 1, 1};
  std::vector<double> args;  // by SweepModel::arg_keys
};

/// Terms the sweep evaluates, in this order.
enum SweepTerm : int { kSweepCube = 0, kSweepVector, kSweepRead, kSweepWrite, kSweepMemory, kSweepTermCount };
const char *sweep_term_name(int term);

struct SweepResult {
  double bound = 0;
  int binding = 0;
  std::array<double, kSweepTermCount> terms{};
  // What holds whatever the L2 held at launch, at theoretical/peak rates
  // only: the figures a safe pruning may use (docs/model.md §8).
  double strict_bound = 0;
  int strict_binding = 0;
  std::array<double, kSweepTermCount> strict_terms{};
  // The strict bound with the cold-cache HBM floor at the strict HBM figure:
  // sound when the measurement starts with a cold L2.
  double strict_cold_bound = 0;
  int strict_cold_binding = 0;
  bool partial = false;  // some work could not be varied and was dropped
};

class SweepModel {
 public:
  /// Compiles dsl_facts (one launch) and the profile's rates. Throws
  /// pb::sdk::InputError naming `origin` on a malformed document.
  static SweepModel build(const pb::sdk::json &dsl, const Rates &rates, const std::string &origin);

  [[nodiscard]] SweepResult evaluate(const SweepConfig &config) const;
  /// A config from {grid: [..], args: {key: value}}; missing args take the
  /// base launch's values.
  [[nodiscard]] SweepConfig config_from_json(const pb::sdk::json &value, const std::string &where) const;
  /// Configurations from a list or a range spec (docs/model.md §8).
  [[nodiscard]] std::vector<SweepConfig> expand(const pb::sdk::json &spec, const std::string &where) const;
  /// The sweep document for `configs`; prune above `threshold` seconds when
  /// given (safe pruning: only the strict bound, with the cold-cache HBM
  /// floor when `cache` is "cold", the measurement's L2 state), else above
  /// `factor` x the best bound.
  /// `listed` caps the entries of `configs` in the document (the first
  /// ones; `summary.evaluated` still counts all): the text and HTML views
  /// show at most kSweepTextRows / kSweepHtmlRows.
  [[nodiscard]] pb::sdk::json run(const std::vector<SweepConfig> &configs, std::optional<double> threshold,
                                  double factor, const std::string &cache = "unknown",
                                  size_t listed = static_cast<size_t>(-1)) const;
  /// The document of run() (with `profile` set) written to `out` as JSON one
  /// configuration at a time: memory holds the configurations and their
  /// results (~250 bytes each), never the document (~4 KB per
  /// configuration). `perfbound sweep --format json` (issue 27).
  void write_json(std::ostream &out, const std::vector<SweepConfig> &configs, std::optional<double> threshold, double factor,
                  const std::string &cache, const std::string &profile) const;

  std::vector<std::string> arg_keys;
  std::vector<double> base_args;
  /// Arguments an autotuner may change for one problem (spec member
  /// "tuning"); the others define the problem. Configurations are compared
  /// (best, pruning) only with those of the same problem.
  std::vector<std::string> tuning_args;
  /// Reads the spec's optional "tuning" list (names of arguments) into
  /// tuning_args; throws InputError naming `where` for an unknown name.
  void read_tuning(const pb::sdk::json &spec, const std::string &where);
  /// What a value of each scalar argument may be in a spec: a whole number
  /// from 0 to its integer type's maximum (the model reads them as sizes and
  /// trip bounds), any finite number for a float argument.
  std::vector<pb::sdk::NumberRange> arg_ranges;
  std::string kernel;
  std::vector<std::string> limitations;  // what the model cannot vary, with lines

 private:
  struct Loop {
    std::unique_ptr<SweepExpr> trip;  // null: not varied
    double base_trip = 1;
    int parent = -1;
    std::vector<int> depends;  // args the loop depends on (when not compiled)
  };
  struct Item {
    int term = kSweepCube;
    double work_per_exec = 0;   // FLOP or bytes per execution
    double base_exec = 0;       // executions per program (min) at the base launch
    int loop = -1;
    double time_per_unit = 0;   // seconds per unit of work per block slot (1 / per-block rate)
    double strict_time_per_unit = 0;  // the same at the rate a strict value may use (0: none)
    // Bytes only:
    bool contiguous_1d = false;  // offset k*pid_x + i0 masked by < arg
    int bound_arg = -1;
    double k = 0, elem_bytes = 0;
    double base_unique = 0;      // unique bytes at the base launch (fallback)
    bool fixed = false;          // cannot vary: kept only when the config equals the base
    int arg = -1;                // pointer argument index (bytes)
    bool counts_unique = false;  // contributes its bytes to the memory term
    bool write = false;          // memory items: written (or atomic) bytes
    std::vector<int> depends;
  };
  std::vector<Loop> loops_;
  std::vector<Item> items_;
  double slots_ = 1, aiv_instances_ = 1;
  double base_programs_ = 1;
  std::array<double, 3> base_grid_{1, 1, 1};
  double chip_bw_ = 0, block_bw_ = 0;  // B/s
  // Strict figures (0: none): HBM, and per block the read and write paths.
  double chip_bw_strict_ = 0, read_bw_strict_ = 0, write_bw_strict_ = 0;
  double l2_bytes_ = 0;                // L2 capacity (0: unknown)
  double read_bw_ = 0, write_bw_ = 0;  // B/s per block
  double vector_flop_base_ = 0;        // seconds of vector work per program (block slot) at the base launch
  double vector_flop_base_strict_ = 0; // the same at the rates a strict value may use
  int vector_depth_ = 0;

  /// What the document says beside each configuration's own entry: every
  /// result, the problems, the best, the pruning rule and the counts.
  struct Outcome {
    std::vector<SweepResult> results;
    size_t best = 0;
    std::vector<size_t> problem_args;  // argument indices that define a problem
    std::vector<size_t> problem;       // per configuration
    std::vector<size_t> problem_best, problem_size;
    std::vector<std::vector<double>> problem_values;
    std::optional<double> threshold;
    double factor = 1.5;
    bool cold = false;
    size_t pruned = 0, uncovered = 0;
  };
  [[nodiscard]] Outcome prepare(const std::vector<SweepConfig> &configs, std::optional<double> threshold, double factor,
                                const std::string &cache) const;
  /// The document without `configs` (and with `summary`).
  [[nodiscard]] pb::sdk::json header(const Outcome &o, const std::vector<SweepConfig> &configs) const;
  /// Whether configuration `idx` is pruned, and the figures that say why.
  struct Pruning {
    bool pruned = false;
    double cut = 0, compared_term = 0;
    int compared_binding = 0;
  };
  [[nodiscard]] Pruning pruning(const Outcome &o, size_t idx) const;
  /// One entry of `configs`.
  [[nodiscard]] pb::sdk::json entry(const Outcome &o, const std::vector<SweepConfig> &configs, size_t idx) const;

  [[nodiscard]] double loop_ratio(int loop, const SweepConfig &c) const;
  /// A configuration whose grid does not reach every element its arguments
  /// describe (a 1-D mask k*pid_x + i0 < n with grid_x * k < n): the warning.
  [[nodiscard]] std::string grid_coverage_warning(const SweepConfig &c) const;
  [[nodiscard]] bool same_as_base(const std::vector<int> &args, const SweepConfig &c) const;
};

/// The `sweep` node kind.
class SweepNode : public pb::sdk::Node {
 public:
  explicit SweepNode(const pb::sdk::Params &params);
  void run(pb::sdk::RunContext &ctx) override;

 private:
  pb::sdk::json configs_;
  std::optional<double> threshold_;
  double factor_ = 1.5;
  std::string cache_ = "unknown";
};

/// `perfbound sweep` (see --help).
int sweep_command(const pb::sdk::Host &host, const std::vector<std::string> &args);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_SWEEP_HPP
