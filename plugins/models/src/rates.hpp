//===- rates.hpp - the rates a bound may use, read from a profile ---------===//
//
// A lower bound must use the fastest rate the hardware can reach. This file
// reads a perfbound.profile/1 document once and answers, per quantity, the
// rate a term uses together with where it came from and its kind:
//   - theoretical: a profile figure (datasheet, ISA, derivation);
//   - peak: a calibration constant measured while the unit was busy;
//   - sustained: a whole-task, contended or latency figure, usable in a
//     bound only with a written argument (docs/model.md §2);
//   - argued: a figure no public document gives (the profile says why it
//     is still an upper limit): like sustained, it never enters a strict
//     value; where a strict figure bounds it from above (the fastest
//     floating-point cube rate for an fp32 cube) that one does.
// When a theoretical figure and a calibrated peak both exist, the larger
// (faster) one is used, and the record says which. A rate the profile marks
// unknown comes back without a value and with the profile's reason.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_RATES_HPP
#define PERFBOUND_MODELS_RATES_HPP

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <perfbound/sdk/json.hpp>
#include <perfbound/sdk/units.hpp>

namespace pb::models {

using json = pb::sdk::json;

/// The member of `doc` at the path `keys`, or a null value when any step is
/// missing or not an object.
const json &json_at(const json &doc, std::initializer_list<const char *> keys);
namespace u = pb::units;

/// Repeats per second (repeat/s): what vector repeats are divided by.
using RepeatsPerSecond = u::Quantity<u::Dim<0, 0, 0, -1, 1>>;

enum class RateKind { Theoretical, Peak, Sustained, Argued };
const char *rate_kind_name(RateKind kind);
/// Whether a strict value may rest on a rate of this kind (theoretical or
/// peak, docs/model.md §2).
inline bool strict_kind(RateKind kind) { return kind == RateKind::Theoretical || kind == RateKind::Peak; }

/// What a term records about a rate it used (bound_term/1 `rates[]`).
struct RateRecord {
  std::string name;    // e.g. "cube bf16 (aic)"
  std::optional<double> value;  // canonical unit; nullopt when unknown
  std::string unit;    // canonical unit name
  RateKind kind = RateKind::Theoretical;
  std::string source;  // "profile:peak.cube_bf16", "calibration:hbm_read_allcore_peak"
  std::string note;    // why this one (e.g. "faster than the calibrated peak 13.13 TFLOP/s")
  std::string reason;  // why unknown
  [[nodiscard]] json to_json() const;
};

/// A rate with its typed value (nullopt when unknown) and its record.
template <class Q>
struct Rate {
  std::optional<Q> value;
  RateRecord record;
  /// For a rate whose kind may not enter a strict value: a strict rate that
  /// bounds it from above, when the profile has one (nullopt: work at this
  /// rate adds nothing to a strict value).
  std::optional<Q> strict_bound;
  [[nodiscard]] bool known() const { return value.has_value(); }
  /// The rate a strict value may use: the value itself when its kind is
  /// theoretical or peak, else the strict bound (or none).
  [[nodiscard]] std::optional<Q> strict() const { return strict_kind(record.kind) ? value : strict_bound; }
};

/// A table y(x) from the calibration (points sorted by x).
struct Table {
  std::vector<std::pair<double, double>> points;
  RateRecord record;
  /// Upper-envelope interpolation: the larger of the two bracketing points
  /// (so an efficiency read from it never falls below the measurement);
  /// clamped to the first/last point outside the table.
  [[nodiscard]] double upper(double x) const;
};

/// Everything the terms read from a profile, resolved once.
class Rates {
 public:
  /// Reads a perfbound.profile/1 document. Throws pb::sdk::InputError
  /// (naming `origin` and the member) when a required member is missing.
  static Rates from_profile(const json &profile, const std::string &origin);

  std::string profile_name;
  u::Hertz clock{0};
  RateRecord clock_record;
  double cores_aic = 0, cores_aiv = 0, aiv_per_aic = 0;
  u::Bytes repeat_bytes{0};

  /// Cube FLOP rate per AIC for an HIVM dtype ("bf16", "f16", "f32", "i8",
  /// "hf32", "tf32") or a DSL unit class ("cube_bf16", ...). HF32/TF32
  /// without a figure of their own take the fastest floating-point cube
  /// figure; an argued floating-point figure carries the fastest strict one
  /// as its strict bound.
  [[nodiscard]] Rate<u::FlopPerSecond> cube(const std::string &dtype) const;
  /// Vector FLOP rate per AIV for an element type ("f32", "f16", "bf16", ...).
  [[nodiscard]] Rate<u::FlopPerSecond> vector_flop(const std::string &dtype) const;
  /// Vector repeats per second per AIV.
  [[nodiscard]] const Rate<RepeatsPerSecond> &vector_repeats() const { return vector_repeats_; }
  /// A data path per core, by HIVM path ("gm_to_ub", "cc_to_gm", ...) or
  /// profile key ("gm_to_l1").
  [[nodiscard]] Rate<u::BytesPerSecond> path(const std::string &path) const;
  /// Whether the profile has the path at all (known or marked unknown).
  [[nodiscard]] bool has_path(const std::string &path) const;
  /// HBM bandwidth of the whole chip: max(memory.hbm_bandwidth,
  /// calibration hbm_read_allcore_peak).
  [[nodiscard]] const Rate<u::BytesPerSecond> &hbm() const { return hbm_; }
  /// The fastest sustained aggregate GM copy rate (calibration
  /// hbm_copy_aggregate_rate), or unknown.
  [[nodiscard]] const Rate<u::BytesPerSecond> &copy_aggregate() const { return copy_; }
  /// L2 capacity (null on a profile that marks it unknown).
  [[nodiscard]] const Rate<u::Bytes> &l2() const { return l2_; }
  /// Exposed vector-pipe latency per barrier (vector.head_latency, sustained).
  [[nodiscard]] const Rate<u::Cycles> &vector_latency() const { return vector_latency_; }
  /// Calibrated sustained costs (diagnostic unless argued).
  [[nodiscard]] const Rate<u::Cycles> &handoff() const { return handoff_; }
  [[nodiscard]] const Rate<u::Cycles> &barrier_all() const { return barrier_all_; }
  /// HBM packet efficiency (calibration hbm_packet_efficiency), or nullopt.
  [[nodiscard]] const std::optional<Table> &packet_efficiency() const { return eta_; }

  /// The HIVM path name for a DSL/profile key and back ("gm_to_l1" <-> "gm_to_cbuf").
  static std::string profile_path_key(const std::string &hivm_path);

 private:
  /// The profile's peak.<key> against its calibrated peak (the faster).
  [[nodiscard]] Rate<u::FlopPerSecond> cube_figure(const std::string &key) const;
  json profile_;
  Rate<RepeatsPerSecond> vector_repeats_;
  Rate<u::BytesPerSecond> hbm_;
  Rate<u::BytesPerSecond> copy_;
  Rate<u::Bytes> l2_;
  Rate<u::Cycles> vector_latency_;
  Rate<u::Cycles> handoff_;
  Rate<u::Cycles> barrier_all_;
  std::optional<Table> eta_;
  std::string origin_;
};

}  // namespace pb::models

#endif  // PERFBOUND_MODELS_RATES_HPP
