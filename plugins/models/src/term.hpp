//===- term.hpp - one bound term (perfbound.bound_term/1) ------------------===//
//
// The in-memory form of a term document, written by the term kinds and read
// back by the combiner (which also reads terms from vendor plugins, so
// reading is tolerant of members a vendor leaves out).
//
// Assurance, the one notion this file adds to the published contract:
//   strict      every rate is theoretical or a calibrated peak and every
//               count a guaranteed minimum (`sound: true`);
//   given       as strict, but some count holds only if a fact the user
//               gave about the data holds (launch `trips` / `data`); the
//               report echoes the facts; `strict_value` is without them;
//   argued      uses a sustained figure for which docs/model.md §2 gives a
//               written argument that the result is still a lower bound;
//               `strict_value` is the value without it (`sound: false`);
//   diagnostic  not a lower bound (attribution, predictions); never enters
//               a limit.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_TERM_HPP
#define PERFBOUND_MODELS_TERM_HPP

#include <optional>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

#include "rates.hpp"

namespace pb::models {

inline constexpr const char *kTermSchema = "perfbound.bound_term/1";
inline constexpr const char *kReportSchema = "perfbound.bound_report/1";
inline constexpr const char *kFindingsSchema = "perfbound.findings/1";
inline constexpr const char *kSweepSchema = "perfbound.sweep/1";
inline constexpr const char *kDslSchema = "perfbound.dsl_facts/1";
inline constexpr const char *kHivmSchema = "perfbound.hivm_program/1";
inline constexpr const char *kHivmWorkSchema = "perfbound.hivm_work/1";
inline constexpr const char *kProfileSchema = "perfbound.profile/1";

/// Ordered from the strongest claim to the weakest: a value that rests on
/// several takes the weakest (`weaker`).
enum class Assurance { Strict, Given, Argued, Diagnostic };
const char *assurance_name(Assurance a);
Assurance assurance_from(const std::string &name, Assurance fallback);
inline Assurance weaker(Assurance a, Assurance b) { return a > b ? a : b; }

/// A time in seconds that may be unknown (null + reason, never 0).
struct Time {
  std::optional<double> seconds;
  std::string reason;
  static Time known(double s) { return {s, {}}; }
  static Time unknown(std::string why) { return {std::nullopt, std::move(why)}; }
  [[nodiscard]] json to_json() const;
  static Time from_json(const json &value);
};

/// The term's value on one component of one core type.
struct ComponentValue {
  std::string core;       // aic | aiv | "" (chip-level)
  std::string component;  // cube, vector, scalar, mte1, mte2, mte3, fixpipe, hbm
  Time value;
  Time strict_value;      // without argued figures and without given facts
  Assurance assurance = Assurance::Strict;
  json work = json::object();
  json rate;              // the rate record(s), or null
  [[nodiscard]] std::string key() const { return core.empty() ? component : core + "." + component; }
};

struct NotCounted {
  std::string what;
  std::string reason;
};

struct Term {
  std::string name;                 // grid_floor, component_floor, memory, serialization, issue_floor, vendor names
  std::string tier = "hivm";        // dsl | hivm
  std::string role = "floor";       // floor | additive
  Time value;
  Time strict_value;
  Assurance assurance = Assurance::Strict;
  std::string component;            // binding component (msprof vocabulary)
  std::string core;                 // its core type, when one
  std::vector<ComponentValue> per_component;
  std::vector<RateRecord> rates;
  std::vector<std::string> rate_use;       // parallel to rates: bound | argued | diagnostic
  std::vector<std::string> rate_argument;  // parallel to rates: the argument for an argued rate
  json work = json::object();
  std::vector<NotCounted> not_counted;
  json evidence = json::array();
  json schedule;                    // blocks, slots, waves, ... (null when not used)
  json producer = json::object();
  std::string formula;

  void add_rate(const RateRecord &record, const std::string &use = "bound", const std::string &argument = {});
  /// Sets value/component/core from the largest non-diagnostic entry.
  void settle();
  [[nodiscard]] json to_json() const &;
  /// The same document, moving the JSON members out of a term that is done.
  [[nodiscard]] json to_json() &&;
  /// How much of a term document to read.
  enum class Read {
    All,      // every member
    Numbers,  // what composing limits needs: values, assurance, per-component values and work, schedule,
              // not_counted (no evidence, rate records, producer: the combiner keeps the document itself)
  };
  /// Reads a term document; throws pb::sdk::InputError naming `origin`.
  static Term from_json(const json &doc, const std::string &origin, Read read = Read::All);
};

/// Seconds for people: "257.7 us".
std::string human_seconds(double seconds);

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_TERM_HPP
