//===- perfbound/sdk/units.hpp - physical units as C++ types ---------------===//
//
// Two layers, one header:
//
//  1. Compile time. Quantity<Dim<B, F, C, S, R>> carries the exponents of
//     five base dimensions (bytes, FLOP, cycles, seconds, vector repeats).
//     Multiplying and dividing quantities combines the exponents, so
//       Bytes / Seconds        -> BytesPerSecond
//       Flop / FlopPerSecond   -> Seconds
//       Cycles / Hertz         -> Seconds   (Hertz is cycles per second)
//       BytesPerCycle * Hertz  -> BytesPerSecond
//     while adding, comparing or converting quantities of different
//     dimensions does not compile, with a message that starts with
//     "perfbound units:". A raw number has no unit: build a quantity
//     explicitly (`Bytes{4096}`) and read it back with `.value()`.
//
//  2. Run time. The one table of unit names a profile or a calibration file
//     may use ("GHz", "KiB", "TB/s", ...), each with the runtime Dimension it
//     measures and the factor to its canonical unit (B, Hz, s, B/s, ...).
//     The host's profile loader and every plugin read units through it, so a
//     unit means the same thing everywhere. `from_declared<Q>(value, unit)`
//     turns a number and a unit string into a typed quantity, refusing a unit
//     of another dimension.
//
// Header-only, C++17, no dependencies beyond the standard library.
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_UNITS_HPP
#define PERFBOUND_SDK_UNITS_HPP

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace pb::units {

// The runtime dimension names come first: the compile-time aliases below
// (Bytes, Flop, ...) reuse the same words.
/// What a number in a profile or calibration file measures. Count and Ratio
/// are both dimensionless; they differ in what values make sense.
enum class Dimension : int {
  Count,            // "1": cores, elements
  Ratio,            // "ratio": a fraction, e.g. a packet efficiency
  Bytes,            // "B"
  Flop,             // "FLOP"
  Frequency,        // "Hz" (cycles per second)
  Time,             // "s"
  Cycles,           // "cycle"
  Bandwidth,        // "B/s"
  FlopPerSecond,    // "FLOP/s"
  BytesPerCycle,    // "B/cycle"
  FlopPerCycle,     // "FLOP/cycle"
  RepeatsPerCycle,  // "repeat/cycle" (256-byte vector repeats)
};

//===----------------------------------------------------------------------===//
// Compile-time dimensions
//===----------------------------------------------------------------------===//

/// Exponents of the base dimensions: bytes, FLOP, cycles, seconds, repeats.
template <int B, int F, int C, int S, int R>
struct Dim {
  static constexpr int bytes = B;
  static constexpr int flop = F;
  static constexpr int cycles = C;
  static constexpr int seconds = S;
  static constexpr int repeats = R;
};

template <class D1, class D2>
using DimProduct = Dim<D1::bytes + D2::bytes, D1::flop + D2::flop, D1::cycles + D2::cycles,
                       D1::seconds + D2::seconds, D1::repeats + D2::repeats>;
template <class D1, class D2>
using DimQuotient = Dim<D1::bytes - D2::bytes, D1::flop - D2::flop, D1::cycles - D2::cycles,
                        D1::seconds - D2::seconds, D1::repeats - D2::repeats>;
using NoDim = Dim<0, 0, 0, 0, 0>;

namespace detail {
template <class>
inline constexpr bool kAlwaysFalse = false;
}  // namespace detail

/// A number with a dimension. Copyable, trivially cheap, constexpr.
template <class D>
class Quantity {
 public:
  using dimension = D;

  constexpr Quantity() = default;
  /// Explicit: `Bytes b{4096}` is fine, `Bytes b = 4096;` does not compile.
  constexpr explicit Quantity(double value) : value_(value) {}

  /// Converting between dimensions is always a mistake (bytes are not
  /// seconds); this template exists only to say so clearly.
  template <class D2, std::enable_if_t<!std::is_same_v<D2, D>, int> = 0>
  constexpr Quantity(const Quantity<D2> &) {  // NOLINT(google-explicit-constructor)
    static_assert(detail::kAlwaysFalse<D2>,
                  "perfbound units: cannot convert a quantity to a different dimension "
                  "(e.g. bytes to seconds); divide by a rate instead");
  }

  /// The number in the canonical unit of this dimension (B, s, Hz, ...).
  [[nodiscard]] constexpr double value() const { return value_; }

  /// A dimensionless quantity (a ratio, a count) reads as a plain number.
  template <class DD = D, std::enable_if_t<std::is_same_v<DD, NoDim>, int> = 0>
  constexpr operator double() const {  // NOLINT(google-explicit-constructor)
    return value_;
  }

  constexpr Quantity &operator+=(Quantity other) {
    value_ += other.value_;
    return *this;
  }
  constexpr Quantity &operator-=(Quantity other) {
    value_ -= other.value_;
    return *this;
  }
  constexpr Quantity &operator*=(double factor) {
    value_ *= factor;
    return *this;
  }
  constexpr Quantity &operator/=(double divisor) {
    value_ /= divisor;
    return *this;
  }
  constexpr Quantity operator-() const { return Quantity(-value_); }

 private:
  double value_ = 0.0;
};

// Names for the dimensions perfbound uses.
using Scalar = Quantity<NoDim>;
using Bytes = Quantity<Dim<1, 0, 0, 0, 0>>;
using Flop = Quantity<Dim<0, 1, 0, 0, 0>>;
using Cycles = Quantity<Dim<0, 0, 1, 0, 0>>;
using Seconds = Quantity<Dim<0, 0, 0, 1, 0>>;
using Repeats = Quantity<Dim<0, 0, 0, 0, 1>>;
using Hertz = Quantity<Dim<0, 0, 1, -1, 0>>;  // cycles per second
using BytesPerSecond = Quantity<Dim<1, 0, 0, -1, 0>>;
using FlopPerSecond = Quantity<Dim<0, 1, 0, -1, 0>>;
using BytesPerCycle = Quantity<Dim<1, 0, -1, 0, 0>>;
using FlopPerCycle = Quantity<Dim<0, 1, -1, 0, 0>>;
using RepeatsPerCycle = Quantity<Dim<0, 0, -1, 0, 1>>;

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

template <class D1, class D2>
constexpr Quantity<D1> operator+(Quantity<D1> a, Quantity<D2> b) {
  static_assert(std::is_same_v<D1, D2>, "perfbound units: cannot add or subtract quantities of different dimensions");
  return Quantity<D1>(a.value() + b.value());
}
template <class D1, class D2>
constexpr Quantity<D1> operator-(Quantity<D1> a, Quantity<D2> b) {
  static_assert(std::is_same_v<D1, D2>, "perfbound units: cannot add or subtract quantities of different dimensions");
  return Quantity<D1>(a.value() - b.value());
}

template <class D1, class D2>
constexpr Quantity<DimProduct<D1, D2>> operator*(Quantity<D1> a, Quantity<D2> b) {
  return Quantity<DimProduct<D1, D2>>(a.value() * b.value());
}
template <class D1, class D2>
constexpr Quantity<DimQuotient<D1, D2>> operator/(Quantity<D1> a, Quantity<D2> b) {
  return Quantity<DimQuotient<D1, D2>>(a.value() / b.value());
}
template <class D>
constexpr Quantity<D> operator*(Quantity<D> a, double factor) {
  return Quantity<D>(a.value() * factor);
}
template <class D>
constexpr Quantity<D> operator*(double factor, Quantity<D> a) {
  return Quantity<D>(factor * a.value());
}
template <class D>
constexpr Quantity<D> operator/(Quantity<D> a, double divisor) {
  return Quantity<D>(a.value() / divisor);
}
template <class D>
constexpr Quantity<DimQuotient<NoDim, D>> operator/(double numerator, Quantity<D> a) {
  return Quantity<DimQuotient<NoDim, D>>(numerator / a.value());
}

#define PB_UNITS_COMPARISON(op)                                                                                  \
  template <class D1, class D2>                                                                                  \
  constexpr bool operator op(Quantity<D1> a, Quantity<D2> b) {                                                   \
    static_assert(std::is_same_v<D1, D2>, "perfbound units: cannot compare quantities of different dimensions"); \
    return a.value() op b.value();                                                                               \
  }
PB_UNITS_COMPARISON(==)
PB_UNITS_COMPARISON(!=)
PB_UNITS_COMPARISON(<)
PB_UNITS_COMPARISON(<=)
PB_UNITS_COMPARISON(>)
PB_UNITS_COMPARISON(>=)
#undef PB_UNITS_COMPARISON

//===----------------------------------------------------------------------===//
// Run-time dimensions and the table of unit names
//===----------------------------------------------------------------------===//

/// Every runtime dimension, in declaration order.
inline constexpr Dimension kAllDimensions[] = {
    Dimension::Count,     Dimension::Ratio,         Dimension::Bytes,         Dimension::Flop,
    Dimension::Frequency, Dimension::Time,          Dimension::Cycles,        Dimension::Bandwidth,
    Dimension::FlopPerSecond, Dimension::BytesPerCycle, Dimension::FlopPerCycle, Dimension::RepeatsPerCycle,
};

/// Base-dimension exponents of a runtime dimension (same order as Dim).
struct Exponents {
  int bytes = 0, flop = 0, cycles = 0, seconds = 0, repeats = 0;
  constexpr bool operator==(const Exponents &o) const {
    return bytes == o.bytes && flop == o.flop && cycles == o.cycles && seconds == o.seconds && repeats == o.repeats;
  }
  constexpr bool operator!=(const Exponents &o) const { return !(*this == o); }
  constexpr Exponents operator*(const Exponents &o) const {
    return {bytes + o.bytes, flop + o.flop, cycles + o.cycles, seconds + o.seconds, repeats + o.repeats};
  }
  constexpr Exponents operator/(const Exponents &o) const {
    return {bytes - o.bytes, flop - o.flop, cycles - o.cycles, seconds - o.seconds, repeats - o.repeats};
  }
};

constexpr Exponents exponents(Dimension d) {
  switch (d) {
    case Dimension::Count:
    case Dimension::Ratio: return {};
    case Dimension::Bytes: return {1, 0, 0, 0, 0};
    case Dimension::Flop: return {0, 1, 0, 0, 0};
    case Dimension::Frequency: return {0, 0, 1, -1, 0};
    case Dimension::Time: return {0, 0, 0, 1, 0};
    case Dimension::Cycles: return {0, 0, 1, 0, 0};
    case Dimension::Bandwidth: return {1, 0, 0, -1, 0};
    case Dimension::FlopPerSecond: return {0, 1, 0, -1, 0};
    case Dimension::BytesPerCycle: return {1, 0, -1, 0, 0};
    case Dimension::FlopPerCycle: return {0, 1, -1, 0, 0};
    case Dimension::RepeatsPerCycle: return {0, 0, -1, 0, 1};
  }
  return {};
}

/// The runtime dimension with these exponents (dimensionless reads as
/// Ratio); nullopt when perfbound has no name for the combination.
constexpr std::optional<Dimension> dimension_with(Exponents e) {
  if (e == Exponents{}) return Dimension::Ratio;
  for (Dimension d : kAllDimensions)
    if (exponents(d) == e) return d;
  return std::nullopt;
}

/// The unit every number of dimension `d` is converted to on load.
constexpr std::string_view canonical_unit(Dimension d) {
  switch (d) {
    case Dimension::Count: return "1";
    case Dimension::Ratio: return "ratio";
    case Dimension::Bytes: return "B";
    case Dimension::Flop: return "FLOP";
    case Dimension::Frequency: return "Hz";
    case Dimension::Time: return "s";
    case Dimension::Cycles: return "cycle";
    case Dimension::Bandwidth: return "B/s";
    case Dimension::FlopPerSecond: return "FLOP/s";
    case Dimension::BytesPerCycle: return "B/cycle";
    case Dimension::FlopPerCycle: return "FLOP/cycle";
    case Dimension::RepeatsPerCycle: return "repeat/cycle";
  }
  return "?";
}

/// "a size in bytes", for messages ("unit 'GHz' is a frequency, but ...").
constexpr std::string_view dimension_name(Dimension d) {
  switch (d) {
    case Dimension::Count: return "a count";
    case Dimension::Ratio: return "a ratio";
    case Dimension::Bytes: return "a size in bytes";
    case Dimension::Flop: return "an amount of work in FLOP";
    case Dimension::Frequency: return "a frequency";
    case Dimension::Time: return "a time";
    case Dimension::Cycles: return "a number of cycles";
    case Dimension::Bandwidth: return "a bandwidth";
    case Dimension::FlopPerSecond: return "FLOP per second";
    case Dimension::BytesPerCycle: return "bytes per cycle";
    case Dimension::FlopPerCycle: return "FLOP per cycle";
    case Dimension::RepeatsPerCycle: return "vector repeats per cycle";
  }
  return "?";
}

/// One unit name: value_in_canonical_unit = value * factor.
struct UnitSpec {
  std::string_view name;
  Dimension dimension;
  double factor;
};

/// The one table of unit names. Decimal prefixes are powers of 1000 (GB,
/// TB/s, GHz), binary prefixes powers of 1024 (KiB, MiB). Names are exact:
/// "Gb" (bits) or "kb" are not units here.
inline constexpr UnitSpec kUnits[] = {
    {"1", Dimension::Count, 1.0},
    {"count", Dimension::Count, 1.0},
    {"ratio", Dimension::Ratio, 1.0},
    {"B", Dimension::Bytes, 1.0},
    {"KB", Dimension::Bytes, 1e3},
    {"MB", Dimension::Bytes, 1e6},
    {"GB", Dimension::Bytes, 1e9},
    {"TB", Dimension::Bytes, 1e12},
    {"KiB", Dimension::Bytes, 1024.0},
    {"MiB", Dimension::Bytes, 1048576.0},
    {"GiB", Dimension::Bytes, 1073741824.0},
    {"TiB", Dimension::Bytes, 1099511627776.0},
    {"FLOP", Dimension::Flop, 1.0},
    {"GFLOP", Dimension::Flop, 1e9},
    {"TFLOP", Dimension::Flop, 1e12},
    {"Hz", Dimension::Frequency, 1.0},
    {"kHz", Dimension::Frequency, 1e3},
    {"MHz", Dimension::Frequency, 1e6},
    {"GHz", Dimension::Frequency, 1e9},
    {"s", Dimension::Time, 1.0},
    {"ms", Dimension::Time, 1e-3},
    {"us", Dimension::Time, 1e-6},
    {"ns", Dimension::Time, 1e-9},
    {"cycle", Dimension::Cycles, 1.0},
    {"cycles", Dimension::Cycles, 1.0},
    {"B/s", Dimension::Bandwidth, 1.0},
    {"KB/s", Dimension::Bandwidth, 1e3},
    {"MB/s", Dimension::Bandwidth, 1e6},
    {"GB/s", Dimension::Bandwidth, 1e9},
    {"TB/s", Dimension::Bandwidth, 1e12},
    {"KiB/s", Dimension::Bandwidth, 1024.0},
    {"MiB/s", Dimension::Bandwidth, 1048576.0},
    {"GiB/s", Dimension::Bandwidth, 1073741824.0},
    {"TiB/s", Dimension::Bandwidth, 1099511627776.0},
    {"FLOP/s", Dimension::FlopPerSecond, 1.0},
    {"GFLOP/s", Dimension::FlopPerSecond, 1e9},
    {"TFLOP/s", Dimension::FlopPerSecond, 1e12},
    {"B/cycle", Dimension::BytesPerCycle, 1.0},
    {"FLOP/cycle", Dimension::FlopPerCycle, 1.0},
    {"repeat/cycle", Dimension::RepeatsPerCycle, 1.0},
};

/// Looks a unit name up in kUnits.
constexpr std::optional<UnitSpec> find_unit(std::string_view name) {
  for (const UnitSpec &unit : kUnits)
    if (unit.name == name) return unit;
  return std::nullopt;
}

/// The runtime dimension of a compile-time quantity type.
template <class Q>
constexpr Dimension dimension_of() {
  using D = typename Q::dimension;
  constexpr std::optional<Dimension> dim =
      dimension_with(Exponents{D::bytes, D::flop, D::cycles, D::seconds, D::repeats});
  static_assert(dim.has_value(), "perfbound units: this quantity type has no runtime unit name");
  return *dim;
}

/// "B/s" for BytesPerSecond, and so on.
template <class Q>
constexpr std::string_view canonical_unit_of() {
  return canonical_unit(dimension_of<Q>());
}

/// A number written with a unit name, as a typed quantity in canonical
/// units; nullopt when the unit is unknown or measures something else.
/// (A Count or a Ratio both read as Scalar.)
template <class Q>
constexpr std::optional<Q> from_declared(double value, std::string_view unit) {
  std::optional<UnitSpec> spec = find_unit(unit);
  if (!spec) return std::nullopt;
  using D = typename Q::dimension;
  if (exponents(spec->dimension) != Exponents{D::bytes, D::flop, D::cycles, D::seconds, D::repeats})
    return std::nullopt;
  return Q(value * spec->factor);
}

//===----------------------------------------------------------------------===//
// Numbers for people
//===----------------------------------------------------------------------===//

/// A number for messages: whole numbers below 1e15 without a fraction,
/// others with up to 6 significant digits ("196608", "1.8e+09", "0.25").
inline std::string format_number(double value) {
  char buffer[64];
  if (std::fabs(value) < 1e15 && value == std::floor(value))
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  else
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

/// A value in its canonical unit written for people: 1.8e9 Hz -> "1.8 GHz",
/// 196608 B -> "192 KiB" (binary prefixes when the size is a whole number of
/// them), 6.4e10 B -> "64 GB", 1.6e12 B/s -> "1.6 TB/s", 2.5e-6 s -> "2.5 us".
inline std::string human(double value, Dimension dimension) {
  struct Prefix {
    double factor;
    const char *name;
  };
  // Rounds to 6 significant digits first, so 1.79972484e9 Hz reads 1.79972.
  auto with = [&](double factor, const char *name) {
    return format_number(std::strtod(format_number(value / factor).c_str(), nullptr)) + " " + name;
  };
  auto decimal = [&](const char *suffix) {
    static constexpr Prefix kDecimal[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (const Prefix &p : kDecimal)
      if (std::fabs(value) >= p.factor) return with(p.factor, (std::string(p.name) + suffix).c_str());
    return format_number(value) + " " + suffix;
  };
  switch (dimension) {
    case Dimension::Bytes: {
      static constexpr Prefix kBinary[] = {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}};
      for (const Prefix &p : kBinary)
        if (value >= p.factor && std::fmod(value, p.factor) == 0 && value / p.factor < 1024) return with(p.factor, p.name);
      static constexpr Prefix kBytes[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}};
      for (const Prefix &p : kBytes)
        if (value >= p.factor) return with(p.factor, p.name);
      return format_number(value) + " B";
    }
    case Dimension::Frequency: return decimal("Hz");
    case Dimension::Bandwidth: return decimal("B/s");
    case Dimension::FlopPerSecond: return decimal("FLOP/s");
    case Dimension::Flop: return decimal("FLOP");
    case Dimension::Time: {
      static constexpr Prefix kTimes[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
      for (const Prefix &p : kTimes)
        if (std::fabs(value) >= p.factor) return with(p.factor, p.name);
      return format_number(value) + " s";
    }
    case Dimension::Count: return format_number(value);
    default: return format_number(value) + " " + std::string(canonical_unit(dimension));
  }
}

}  // namespace pb::units

#endif  // PERFBOUND_SDK_UNITS_HPP
