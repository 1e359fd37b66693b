//===- ttir_oracle.hpp - concrete execution of a TTIR kernel (the oracle) -===//
//
// A reference for the TTIR tier, independent of its analysis: every program
// of a small launch executes the kernel with concrete values (program ids,
// ranges, pointers as (argument, byte offset) per lane, loops iterated,
// branches decided, loaded values from memory), and the oracle counts what
// it did: per argument and direction the set of bytes touched, requested and
// active bytes, FLOP by the unit classes of docs/extract_ttir.md §3 (counted
// from the ops executed, re-implemented from that page), and the bytes an
// ideal machine must move (arguments that alias share bytes; a read of a
// byte the same program wrote before is no traffic).
//
// It shares with the extractor only the parsing (MLIR 19 and our `tt`
// dialect, dialect/tt_dialect.hpp, and the text preparation of
// src/ttir_text.hpp): no symbolic expression, trip count, affine form or
// evaluation of the analysis (tests/oracle_ttir checks the link).
//
// Values the program loads come from what the kernel stored before, the
// launch's `data` facts, or a seeded provider (integers in [0, int_range),
// floats in [-1, 1)): any data is a valid execution, so the extractor's
// strict figures, which hold for all data, must hold for these. Float
// arithmetic is done in double (no rounding to f16/bf16): values only steer
// data-dependent control flow.
//
// Budget: the oracle refuses, with the op's TTIR line and the program,
// past `op_budget` lane-operations (an op on a tensor of n lanes costs n, a
// dot M*N*K) over the launch.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_ORACLE_TTIR_ORACLE_HPP
#define PERFBOUND_EXTRACT_TTIR_ORACLE_TTIR_ORACLE_HPP

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace perfbound::ttir_oracle {

using json = pb::sdk::json;

/// A failure with a message for the user ("origin:line: ...").
struct Error {
  std::string message;
};

/// A value or an Error.
template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  explicit operator bool() const { return state_.index() == 0; }
  T &operator*() { return std::get<0>(state_); }
  const T &operator*() const { return std::get<0>(state_); }
  T *operator->() { return &std::get<0>(state_); }
  const T *operator->() const { return &std::get<0>(state_); }
  [[nodiscard]] const Error &error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

/// Where a pointer argument's bytes live: arguments with the same buffer
/// alias (the same tensor passed twice, or views of one tensor).
struct Placement {
  int buffer = 0;
  std::int64_t byte_offset = 0;
};

struct Options {
  /// Lane-operations over the whole launch before the oracle refuses.
  std::uint64_t op_budget = 200'000'000;
  /// Programs before the oracle refuses (each is executed).
  std::int64_t program_budget = 4096;
  /// Seed of the value provider for loaded data nobody gave.
  std::uint64_t seed = 1;
  /// Seeded integers are in [0, int_range).
  std::int64_t int_range = 16;
  /// Pointer arguments by index; absent ones get a buffer of their own.
  std::map<int, Placement> placement;
};

enum Direction { kRead = 0, kWritten = 1, kAtomic = 2 };
inline constexpr const char *kDirectionName[3] = {"read", "written", "atomic"};

/// One argument of the kernel.
struct ArgInfo {
  int index = 0;
  std::string key;  // the Python name from a named location, else "%argN"
  bool pointer = false;
  int buffer = -1;  // pointer arguments: the buffer its bytes are in
};

/// Work by unit class ("cube", "vector", "transcendental", "reduction",
/// "scan", "atomic") and key (cube unit class or element type).
using Work = std::map<std::string, std::map<std::string, double>>;

/// What one program did.
struct ProgramFigures {
  std::array<std::int64_t, 3> pid{};
  /// Bytes touched, per (argument, direction): the size of the union.
  std::map<std::pair<int, int>, std::int64_t> unique;
  /// Per direction: bytes of every lane of every access (masked included),
  /// and of the lanes that were active.
  std::array<double, 3> requested{};
  std::array<double, 3> active{};
  Work work;
  /// The traffic an ideal core must do: per direction, bytes of the union
  /// per buffer, summed over buffers; reads exclude bytes this program
  /// wrote before reading them.
  std::array<std::int64_t, 3> must_move{};
};

struct OracleResult {
  std::string kernel;
  int ttir_line = 0;
  std::vector<ArgInfo> args;
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::int64_t programs = 1;
  bool has_dot = false;  // a mix kernel (cores.type "aic")
  std::vector<ProgramFigures> per_program;
  /// Over the launch, per (argument, direction): the size of the union.
  std::map<std::pair<int, int>, std::int64_t> unique_total;
  /// Over the launch, per direction: the union per buffer, summed over
  /// buffers (reads exclude bytes a program wrote before reading them).
  std::array<std::int64_t, 3> buffer_unique_total{};
  /// Read bytes that must come from memory under any schedule: read by a
  /// program that did not write them first, and written by no other
  /// program (which could have run earlier and left them in the cache).
  std::int64_t forced_read = 0;
  std::uint64_t lane_ops = 0;
  /// What the oracle did not execute exactly (opaque ops whose results were
  /// seeded, accesses through pointers not derived from an argument).
  std::vector<std::string> notes;
};

/// Executes the kernel of `text` (selected by launch.kernel, "name" or
/// "name:LINE", or the only public `tt.func`) for every program of
/// `launch` (perfbound.launch/1: grid, args, data).
/// Errors: MLIR's diagnostic for text that does not parse; a missing
/// scalar argument; an op the oracle does not execute; the budgets.
Expected<OracleResult> run_oracle(std::string_view text, const std::string &origin, const json &launch,
                                  const Options &options = {});

/// A perfbound.dsl_facts/1 document holding the oracle's exact counts in
/// the members the DSL terms read (launch.programs, cores, flop, bytes),
/// every figure exact. Bytes are what an ideal machine must move: per
/// program the must-move traffic (one by_arg entry "all" with its
/// distribution over programs), over the launch the per-buffer unions,
/// reads in bytes.read.unique_total restricted to forced reads (the forced
/// HBM floor's input). `profile` gives cores.count.
/// With `credit_reuse` false the bytes are the touched ones instead (per
/// argument, no credit for aliasing arguments or for reads of a program's
/// own writes): what the extractor's figures mean today, which tells a
/// finding that review item 9 explains from any other.
json exact_facts(const OracleResult &result, const json &profile, bool credit_reuse = true);

/// {min, max, mean} of per-program values.
struct Spread {
  double min = 0, max = 0, mean = 0, sum = 0;
};
Spread spread(const std::vector<double> &values);

}  // namespace perfbound::ttir_oracle

#endif  // PERFBOUND_EXTRACT_TTIR_ORACLE_TTIR_ORACLE_HPP
