//===- analyze.hpp - from HIVM text to a Program ---------------------------===//
//
// analyze_text() reads a raw dump (parser.hpp) and builds one OpRecord per
// operation of every function: pipe and core, bytes/elements/FLOP/repeats/
// packets per execution, how often it runs per block (loop trip counts and
// branch conditions, enumerated exactly where the bounds are constants and
// bounded with intervals where they are not), scalar and issued
// instructions, eligibility and scalar fallbacks. A driver in analyze.cpp
// composes one pass per job over the function model (function_ir.hpp):
// walk.hpp builds it, value_eval.hpp evaluates values, trip_count.hpp counts
// executions, op_quantities.hpp and counts.hpp give the quantities,
// eligibility.hpp and records.hpp finish the records; sync.hpp then derives
// handoffs, barriers and component edges. docs/extract_hivm.md §11 says
// which function decides what.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_ANALYZE_HPP
#define PERFBOUND_EXTRACT_HIVM_ANALYZE_HPP

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "program.hpp"

namespace pb::hivm {

struct Fractal {
  int64_t m = 16, k = 16, n = 16;
};

/// A fact the user gives about a loop's trip count (launch `trips`), keyed by dump line.
struct TripFact {
  std::string key;  // as written: "1106" or "hivm:1106"
  uint32_t line = 0;
  std::optional<int64_t> min, max, sum;
  bool sum_over_grid = false;  // sum over every block (else per block)
};

/// The contents of a tensor argument (launch `data`), flat, C order.
struct DataFact {
  std::string key;  // as written: "7", "%arg7" or a name
  std::vector<int64_t> values;
  std::string source;  // "inline" or the .npy path
};

/// One launch argument as given (launch.args): its number, and what kind of JSON
/// value it was, so the argument's declared type can refuse it.
struct LaunchArgValue {
  LaunchArgValue() = default;
  /// A number as a JSON number would give it (an integer when whole).
  LaunchArgValue(double v)  // NOLINT(google-explicit-constructor): a number
      : value(v), integer(v == std::floor(v) && std::fabs(v) < 9.2e18),
        exact(integer ? static_cast<int64_t>(v) : 0), text(integer ? std::to_string(exact) : std::to_string(v)) {}
  double value = 0;
  bool boolean = false;  // given as true/false
  bool integer = false;  // given as a JSON integer (exact in `exact`)
  int64_t exact = 0;     // the integer, when `integer` and it fits in int64
  bool fits = true;      // false: an integer beyond int64
  std::string text;      // as given, for messages
};

/// A launch fact that cannot be used (names no argument): the launch document's error.
class FactError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Lit files (mlir-opt --split-input-file): `auto` cuts the input at its
/// `// -----` lines when it has one, `on` always, `off` never.
enum class SplitMode { Auto, On, Off };

struct AnalysisOptions {
  // From the profile.
  int64_t vector_repeat_bytes = 256;
  std::string vector_repeat_source = "default: 256-byte repeats (ascend.md §3.4)";
  uint32_t vector_cores_per_cube_core = 2;  // AIV instances per block of a mix kernel
  std::map<std::string, Fractal> fractal;   // by dtype ("bf16", "fp16"->"f16" ...)
  // From the launch document.
  bool have_launch = false;
  std::vector<int64_t> grid;                 // programs per axis
  std::map<std::string, LaunchArgValue> args;  // launch args by key ("n_elements", "%arg3", "3")
  std::vector<std::string> optional_args;    // launch.optional_args: keys that may match no argument
  std::map<std::string, int64_t> arg_names;  // Triton argument names -> positions (the TTIR signature)
  std::string arg_names_source;              // where arg_names come from ("" when no TTIR is wired in)
  std::string kernel;                        // launch.kernel: "NAME" or "NAME:LINE" (see select in analyze.cpp)
  SplitMode split = SplitMode::Auto;         // the extractor's `split` parameter
  std::vector<TripFact> trips;               // user-given trip facts (launch.trips)
  std::vector<DataFact> data;                // user-given tensor contents (launch.data)
  [[nodiscard]] bool has_facts() const { return !trips.empty() || !data.empty(); }
  // Limits.
  uint64_t enumeration_budget = 1u << 14;    // executions enumerated per op before switching to intervals
  uint64_t grid_budget = 1u << 18;           // block x execution evaluations per op for exact grid sums
};

/// An empty Program with what the options fix: repeat size, and the block count
/// when the launch gives a grid.
Program start_program(const AnalysisOptions &options);

/// Reads and analyzes a whole dump. Throws SourceError for malformed input and for a
/// fact that contradicts the IR (at the line it names), FactError for a data fact that
/// names no argument or a kernel selection that matches nothing or too much. With
/// facts, the records are computed without them (strict) and again with them
/// (Program::given).
///
/// A lit file (options.split) is cut into its inputs and one is analysed: the one
/// holding the selected kernel (options.kernel), or the only one with functions. In
/// it, the functions analysed are those named NAME, or, when none is, those whose
/// name starts with NAME (the _mix_aic/_mix_aiv halves of a mix kernel); NAME:LINE
/// also requires one of them at LINE (1-based, in the whole file). Without a
/// selection every function is analysed.
/// [thread-safe: no shared state]
Program analyze_text(std::string_view text, const AnalysisOptions &options);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_ANALYZE_HPP
