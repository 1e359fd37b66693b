//===- render_numbers.hpp - numbers written for people, one way everywhere -===//
//
// Every figure the models plugin writes into text (reports, findings,
// verdicts, sweep tables) goes through these: four significant digits,
// thousands separators on counts, a unit always. The JSON documents keep
// the full numbers; only the words round.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_MODELS_RENDER_NUMBERS_HPP
#define PERFBOUND_MODELS_RENDER_NUMBERS_HPP

#include <cmath>
#include <cstdio>
#include <string>

namespace pb::models::fmt {

/// "16,777,216"; a value that is not a whole number keeps four significant
/// digits ("0.0833", "1,234.5" -> "1,235").
inline std::string count(double value) {
  if (!std::isfinite(value)) return value != value ? "NaN" : (value > 0 ? "inf" : "-inf");
  const double rounded = std::fabs(value) >= 1000 ? std::round(value) : value;
  if (rounded != std::floor(rounded) || std::fabs(rounded) >= 1e18) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
  }
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.0f", std::fabs(rounded));
  std::string body = digits;
  std::string out;
  const size_t n = body.size();
  for (size_t idx = 0; idx < n; ++idx) {
    if (idx > 0 && (n - idx) % 3 == 0) out += ',';
    out += body[idx];
  }
  return (rounded < 0 ? "-" : "") + out;
}

/// Four significant digits without exponent for ordinary magnitudes
/// ("165.3", "7.78", "0.0833"); an exponent beyond 1e9 or below 1e-4.
inline std::string sig4(double value) {
  if (!std::isfinite(value)) return value != value ? "NaN" : (value > 0 ? "inf" : "-inf");
  if (value == 0) return "0";
  const double a = std::fabs(value);
  char buffer[48];
  if (a >= 1e9 || a < 1e-4) {
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
  }
  if (a >= 1000) return count(value);
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

/// A share as a percentage, floored to one decimal so 99.96 % counted does
/// not read "100 %": "51.0 %", "100 %", "7.5 %".
inline std::string percent(double share) {
  if (!std::isfinite(share)) return "? %";
  if (share >= 1.0) return "100 %";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f %%", std::floor(share * 1000) / 10);
  return buffer;
}

/// Seconds with a unit and four significant digits: "165.3 us", "7.78 ms",
/// "0 s". ASCII "us" so columns of text line up.
inline std::string seconds(double s) {
  if (!std::isfinite(s)) return "unknown";
  if (s == 0) return "0 s";
  static const char *kUnits[] = {"ns", "us", "ms", "s"};
  const double a = std::fabs(s);
  int unit = a < 1e-6 ? 0 : a < 1e-3 ? 1 : a < 1 ? 2 : 3;
  double v = s * std::pow(1000.0, 3 - unit);
  // 999.96 us rounds to "1000 us": the next unit up reads better.
  if (unit < 3 && std::fabs(v) >= 999.95) v /= 1000, ++unit;
  return sig4(v) + " " + kUnits[unit];
}

}  // namespace pb::models::fmt

#endif  // PERFBOUND_MODELS_RENDER_NUMBERS_HPP
