//===- calibrate.cpp - `perfbound calibrate`: spec + raw outputs -> DB ----===//
#include "calibrate.hpp"

#include <perfbound/sdk/input_file.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <toml++/toml.h>

#include <perfbound/sdk/sha256.hpp>
#include <perfbound/sdk/units.hpp>

#include "expr.hpp"
#include "measurement.hpp"
#include "msprof_csv.hpp"
#include "stats.hpp"
#include "toml_reader.hpp"

namespace perfbound::validate {

namespace fs = std::filesystem;
namespace units = pb::units;
using pb::sdk::json;

double round_significant(double value) {
  if (value == 0 || !std::isfinite(value)) return value;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return std::strtod(buffer, nullptr);
}

std::string utc_date_from_us(double microseconds) {
  // Days since 1970-01-01 to a civil date (proleptic Gregorian calendar).
  auto days = static_cast<int64_t>(std::floor(microseconds / 1e6 / 86400.0));
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%04lld-%02u-%02u", static_cast<long long>(year), month, day);
  return buffer;
}

namespace {

/// 1 -> "1st", 2 -> "2nd", 13 -> "13th", 29 -> "29th".
std::string ordinal(size_t n) {
  const char *suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

std::string join(const std::vector<std::string> &items, const std::string &sep = ", ") {
  std::string out;
  for (const std::string &item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

/// The calibration spec is read with the plugin's TOML reader.
using Spec = TomlReader;

/// The unit of a time column from its name: "Task Duration(us)" -> 1e-6 s.
std::optional<double> seconds_per_unit_of_column(const std::string &column) {
  const std::pair<const char *, double> suffixes[] = {{"(us)", 1e-6}, {"(ms)", 1e-3}, {"(ns)", 1e-9}, {"(s)", 1.0}};
  for (const auto &[suffix, factor] : suffixes) {
    std::string s(suffix);
    if (column.size() >= s.size() && column.compare(column.size() - s.size(), s.size(), s) == 0) return factor;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Measurements
//===----------------------------------------------------------------------===//

/// The kept launches of one kernel in one msprof file.
struct Selection {
  const OpSummary *table = nullptr;
  std::string file;  // relative to the data directory
  std::string op;
  std::vector<Launch> launches;  // kept launches, by start time (measurement rule)
  size_t dropped = 0;

  [[nodiscard]] std::string describe() const {
    return "launches " + std::to_string(dropped + 1) + "-" + std::to_string(dropped + launches.size()) + " of op '" + op +
           "' by Task Start Time (" + std::to_string(launches.size()) + " kept)";
  }
};

class Calibrator {
  using Dimension = units::Dimension;

 public:
  Calibrator(const CalibrateOptions &options, Spec &spec) : options_(options), spec_(spec) {}

  json constant(const toml::table &entry, const std::string &id, const json &done_constants, int64_t default_drop) {
    constants_ = &done_constants;
    default_drop_ = default_drop;
    const std::string where = "constant '" + id + "'";
    const std::string measure = spec_.string(entry, "measure", where);
    json out = json::object();
    out["description"] = spec_.string(entry, "description", where);
    const std::string kind = spec_.string(entry, "kind", where);
    if (kind != "peak" && kind != "sustained")
      spec_.fail(spec_.require(entry, "kind", where),
                 where + ": kind must be \"peak\" (usable in a lower bound) or \"sustained\" (diagnostic only)");
    out["kind"] = kind;
    const std::string unit = spec_.string(entry, "unit", where);
    auto unit_spec = units::find_unit(unit);
    if (!unit_spec || units::canonical_unit(unit_spec->dimension) != unit)
      spec_.fail(spec_.require(entry, "unit", where), where + ": unit '" + unit + "' must be a canonical unit (B/s, FLOP/s, Hz, cycle, s, ratio, ...)");
    out["unit"] = unit;
    const std::string scope = spec_.string(entry, "scope", where);
    if (scope != "core" && scope != "chip") spec_.fail(spec_.require(entry, "scope", where), where + ": scope must be \"core\" or \"chip\"");
    out["scope"] = scope;
    for (const char *key : {"core", "theoretical", "note"})
      if (auto value = spec_.optional_string(entry, key, where)) out[key] = *value;
    if (out.contains("core") && out["core"] != "aic" && out["core"] != "aiv")
      spec_.fail(spec_.require(entry, "core", where), where + ": core must be \"aic\" or \"aiv\"");

    const std::vector<std::string> common = {"id", "description", "kind", "unit", "scope", "core", "theoretical",
                                             "note", "measure", "measured_on"};
    auto allowed = [&](std::vector<std::string> extra) {
      extra.insert(extra.end(), common.begin(), common.end());
      return extra;
    };
    Result result;
    if (measure == "msprof_rate") {
      spec_.check_keys(entry, allowed({"file", "op", "drop_first", "work", "work_column", "work_column_unit", "time_column", "statistic"}), where);
      result = msprof_rate(entry, where, kind);
    } else if (measure == "msprof_difference") {
      spec_.check_keys(entry, allowed({"with", "without", "time_column", "divide_by", "clock"}), where);
      result = msprof_difference(entry, where);
    } else if (measure == "msprof_intercept") {
      spec_.check_keys(entry, allowed({"op", "points", "x", "time_column", "drop_first", "clock"}), where);
      result = msprof_intercept(entry, where);
    } else if (measure == "msprof_slope") {
      spec_.check_keys(entry, allowed({"op", "points", "x", "time_column", "drop_first", "clock"}), where);
      result = msprof_slope(entry, where);
    } else if (measure == "sweep") {
      spec_.check_keys(entry, allowed({"file", "runs", "x", "x_unit", "bytes", "time", "reduce"}), where);
      result = sweep(entry, where, kind);
    } else {
      spec_.fail(spec_.require(entry, "measure", where),
                 where + ": unknown measure '" + measure + "'; known: msprof_rate, msprof_difference, msprof_intercept, msprof_slope, sweep");
    }
    if (result.dimension != unit_spec->dimension &&
        units::exponents(result.dimension) != units::exponents(unit_spec->dimension))
      spec_.fail(spec_.require(entry, "unit", where), where + ": the measurement yields " +
                                                          std::string(units::canonical_unit(result.dimension)) + ", not " + unit);
    if (kind == "peak" && !result.fastest)
      spec_.fail(spec_.require(entry, "kind", where),
                 where + ": a peak must be the fastest launch or run the hardware achieved (statistic = \"max\" or reduce = \"max\")");
    out["value"] = result.value;
    out["ci95"] = result.ci95;
    if (result.ci95.is_null()) out["ci95_reason"] = result.ci95_reason;
    out["n"] = result.n;
    out["statistic"] = result.statistic;
    if (!result.samples.is_null()) out["samples"] = result.samples;
    out["sources"] = result.sources;
    out["method"] = result.method;
    if (auto date = spec_.optional_string(entry, "measured_on", where))
      out["measured_on"] = *date;
    else
      out["measured_on"] = result.measured_on.empty() ? json(nullptr) : json(result.measured_on);
    return out;
  }

 private:
  struct Result {
    Dimension dimension = Dimension::Count;
    json value;
    json ci95;
    std::string ci95_reason;
    int64_t n = 0;
    std::string statistic;
    json samples;
    json sources = json::array();
    std::string method;
    std::string measured_on;
    bool fastest = false;
  };
  const OpSummary &load(const std::string &rel, const toml::node &node) {
    auto it = tables_.find(rel);
    if (it != tables_.end()) return *it->second;
    fs::path path = options_.data_dir / rel;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) spec_.fail(node, "measurement file '" + path.string() + "' does not exist");
    auto table = std::make_unique<OpSummary>(OpSummary::read(path));
    return *tables_.emplace(rel, std::move(table)).first->second;
  }

  json source(const std::string &rel, const std::string &rows) {
    std::optional<std::string> digest = pb::sdk::sha256_file(options_.data_dir / rel);
    if (!digest) throw pb::sdk::InputError((options_.data_dir / rel).string() + ": cannot read to hash");
    json s = {{"file", rel}, {"sha256", *digest}};
    if (!rows.empty()) s["rows"] = rows;
    return s;
  }

  Selection select(const toml::table &table, const std::string &where) {
    Selection sel;
    sel.file = spec_.string(table, "file", where);
    sel.op = spec_.string(table, "op", where);
    sel.table = &load(sel.file, spec_.require(table, "file", where));
    std::vector<Launch> found = sel.table->launches(sel.op);
    if (found.empty())
      spec_.fail(spec_.require(table, "op", where), where + ": no AI-core launch of op '" + sel.op + "' in " + sel.file +
                                                        "; kernels there: " + join(sel.table->kernel_names()));
    sel.dropped = static_cast<size_t>(spec_.integer(table, "drop_first", default_drop_, where));
    if (sel.dropped >= found.size())
      spec_.fail(table, where + ": drop_first = " + std::to_string(sel.dropped) + " leaves none of the " +
                            std::to_string(found.size()) + " launches of '" + sel.op + "'");
    sel.launches = keep_after_warmup(std::move(found), sel.dropped).kept;
    return sel;
  }

  /// Per-launch values of a time column, in seconds.
  std::vector<double> times(const Selection &sel, const std::string &column, const toml::node &node, const std::string &where) {
    std::optional<size_t> col = sel.table->find_column(column);
    if (!col) spec_.fail(node, where + ": no column '" + column + "' in " + sel.file + "; columns: " + join(sel.table->csv().header()));
    std::optional<double> factor = seconds_per_unit_of_column(column);
    if (!factor) spec_.fail(node, where + ": cannot tell the unit of column '" + column + "' (expected a (us), (ms), (ns) or (s) suffix)");
    std::vector<double> out;
    for (const Launch &launch : sel.launches) {
      double t = sel.table->launch_require_number(launch, *col);
      if (t <= 0) throw pb::sdk::InputError(sel.table->csv().where(launch.rows.front(), *col) + ": column '" + column + "' is " + units::format_number(t) +
                                            "; a time must be positive");
      out.push_back(t * *factor);
    }
    return out;
  }

  std::string first_date(const Selection &sel) {
    if (!sel.launches.front().start_us) return "";
    return utc_date_from_us(*sel.launches.front().start_us);
  }

  /// A constant computed earlier in the spec (e.g. the clock for cycles).
  double earlier_constant(const toml::table &entry, const std::string &key, Dimension want, const std::string &where) {
    std::string id = spec_.string(entry, key, where);
    const json &constants = *constants_;
    if (!constants.contains(id))
      spec_.fail(spec_.require(entry, key, where), where + ": '" + key + "' names constant '" + id +
                                                       "', which is not defined earlier in the spec");
    const json &c = constants[id];
    if (c.value("unit", json()) != std::string(units::canonical_unit(want)) || !c.value("value", json()).is_number())
      spec_.fail(spec_.require(entry, key, where), where + ": constant '" + id + "' is not a number in " +
                                                       std::string(units::canonical_unit(want)));
    return c.at("value").get<double>();
  }

  static json interval_json(const Interval &interval, const std::string &of) {
    return {{"low", round_significant(interval.low)}, {"high", round_significant(interval.high)}, {"of", of}};
  }

  Result msprof_rate(const toml::table &entry, const std::string &where, const std::string &kind) {
    (void)kind;
    Result r;
    Selection sel = select(entry, where);
    const std::string time_column = spec_.string(entry, "time_column", where);
    std::vector<double> seconds = times(sel, time_column, spec_.require(entry, "time_column", where), where);
    // Work per launch: spec arithmetic, or a per-launch column (cycles).
    std::vector<double> work(sel.launches.size());
    std::string work_text;
    Dimension work_dim;
    const bool has_expr = entry.get("work") != nullptr, has_column = entry.get("work_column") != nullptr;
    if (has_expr == has_column) spec_.fail(entry, where + ": give exactly one of 'work' (arithmetic) and 'work_column'");
    if (has_expr) {
      const toml::table &w = spec_.table(entry, "work", where);
      spec_.check_keys(w, {"expr", "unit", "meaning"}, where + " work");
      std::string expr = spec_.string(w, "expr", where + " work");
      std::string unit = spec_.string(w, "unit", where + " work");
      std::string meaning = spec_.string(w, "meaning", where + " work");
      auto spec = units::find_unit(unit);
      if (!spec || (spec->dimension != Dimension::Flop && spec->dimension != Dimension::Bytes && spec->dimension != Dimension::Cycles))
        spec_.fail(spec_.require(w, "unit", where), where + ": work unit '" + unit + "' must be FLOP, bytes or cycles");
      double amount = 0;
      try {
        amount = evaluate_expression(expr);
      } catch (const std::invalid_argument &e) {
        spec_.fail(spec_.require(w, "expr", where), where + ": work " + e.what());
      }
      if (amount <= 0) spec_.fail(spec_.require(w, "expr", where), where + ": work must be positive, got " + units::format_number(amount));
      std::fill(work.begin(), work.end(), amount * spec->factor);
      work_dim = spec->dimension;
      work_text = expr + " = " + units::format_number(amount) + " " + unit + " (" + meaning + ")";
    } else {
      std::string column = spec_.string(entry, "work_column", where);
      std::string unit = spec_.string(entry, "work_column_unit", where);
      auto spec = units::find_unit(unit);
      if (!spec || (spec->dimension != Dimension::Flop && spec->dimension != Dimension::Bytes && spec->dimension != Dimension::Cycles))
        spec_.fail(spec_.require(entry, "work_column_unit", where), where + ": work unit '" + unit + "' must be FLOP, bytes or cycles");
      std::optional<size_t> col = sel.table->find_column(column);
      if (!col) spec_.fail(spec_.require(entry, "work_column", where), where + ": no column '" + column + "' in " + sel.file);
      for (size_t idx = 0; idx < sel.launches.size(); ++idx)
        work[idx] = sel.table->launch_require_number(sel.launches[idx], *col) * spec->factor;
      work_dim = spec->dimension;
      work_text = "column '" + column + "' (" + unit + ")";
    }
    auto dim = units::dimension_with(units::exponents(work_dim) / units::exponents(Dimension::Time));
    r.dimension = *dim;
    std::vector<double> rates;
    for (size_t idx = 0; idx < seconds.size(); ++idx) rates.push_back(work[idx] / seconds[idx]);
    const std::string statistic = spec_.string(entry, "statistic", where);
    if (statistic != "max" && statistic != "median")
      spec_.fail(spec_.require(entry, "statistic", where), where + ": statistic must be \"max\" (the fastest launch) or \"median\"");
    double value = statistic == "max" ? *std::max_element(rates.begin(), rates.end()) : median(rates);
    r.fastest = statistic == "max";
    r.value = round_significant(value);
    r.statistic = statistic == "max" ? "fastest launch" : "median launch";
    r.n = static_cast<int64_t>(rates.size());
    r.samples = {{"min", round_significant(*std::min_element(rates.begin(), rates.end()))},
                 {"median", round_significant(median(rates))},
                 {"max", round_significant(*std::max_element(rates.begin(), rates.end()))}};
    size_t k = median_interval_rank(rates.size());
    if (auto ci = median_interval(rates)) {
      r.ci95 = interval_json(*ci, "the median launch");
    } else {
      r.ci95 = nullptr;
      r.ci95_reason = "fewer than 6 launches: no distribution-free 95 % interval of the median";
    }
    r.sources.push_back(source(sel.file, sel.describe()));
    r.measured_on = first_date(sel);
    std::string unit_name(units::canonical_unit(r.dimension));
    r.method = "In " + sel.file + ", take the rows with Op Name '" + sel.op +
               "' and an AI-core Task Type, sort them by Task Start Time(us) and drop the first " + std::to_string(sel.dropped) +
               "; for each of the " + std::to_string(rates.size()) + " launches left, rate = " + work_text + " / " + time_column +
               "; value = the " + (statistic == "max" ? "fastest launch" : "median of the rates") + " (" + unit_name + ")" +
               (k > 0 ? "; ci95 = the " + ordinal(k) + " and " + ordinal(rates.size() + 1 - k) +
                            " smallest rates (distribution-free 95 % interval of the median)"
                      : "") +
               ".";
    return r;
  }

  Result msprof_difference(const toml::table &entry, const std::string &where) {
    Result r;
    const std::string time_column = spec_.string(entry, "time_column", where);
    const toml::node &time_node = spec_.require(entry, "time_column", where);
    const toml::table &with_table = spec_.table(entry, "with", where);
    const toml::table &without_table = spec_.table(entry, "without", where);
    spec_.check_keys(with_table, {"file", "op", "drop_first"}, where + " with");
    spec_.check_keys(without_table, {"file", "op", "drop_first"}, where + " without");
    Selection with = select(with_table, where + " with");
    Selection without = select(without_table, where + " without");
    std::vector<double> t_with = times(with, time_column, time_node, where);
    std::vector<double> t_without = times(without, time_column, time_node, where);
    const toml::table &divide = spec_.table(entry, "divide_by", where);
    spec_.check_keys(divide, {"expr", "meaning"}, where + " divide_by");
    std::string expr = spec_.string(divide, "expr", where), meaning = spec_.string(divide, "meaning", where);
    double divisor = 0;
    try {
      divisor = evaluate_expression(expr);
    } catch (const std::invalid_argument &e) {
      spec_.fail(spec_.require(divide, "expr", where), where + ": divide_by " + e.what());
    }
    if (divisor <= 0) spec_.fail(spec_.require(divide, "expr", where), where + ": divide_by must be positive");
    double scale = 1.0 / divisor;
    r.dimension = Dimension::Time;
    std::string clock_text;
    if (entry.get("clock") != nullptr) {
      double f = earlier_constant(entry, "clock", Dimension::Frequency, where);
      scale *= f;
      r.dimension = Dimension::Cycles;
      clock_text = " x " + units::format_number(f) + " Hz (constant " + spec_.string(entry, "clock", where) + ")";
    }
    double m_with = median(t_with), m_without = median(t_without);
    r.value = round_significant((m_with - m_without) * scale);
    if (r.value.get<double>() <= 0)
      throw pb::sdk::InputError(spec_.file() + ": " + where + ": the median with (" + units::format_number(m_with * 1e6) +
                                " us) is not above the median without (" + units::format_number(m_without * 1e6) + " us)");
    r.statistic = "difference of medians";
    r.n = static_cast<int64_t>(t_with.size() + t_without.size());
    // Bonferroni: two 97.5 % intervals cover both medians with >= 95 %.
    auto ci_with = median_interval(t_with, 0.975), ci_without = median_interval(t_without, 0.975);
    size_t k_with = median_interval_rank(t_with.size(), 0.975), k_without = median_interval_rank(t_without.size(), 0.975);
    if (ci_with && ci_without) {
      r.ci95 = interval_json({(ci_with->low - ci_without->high) * scale, (ci_with->high - ci_without->low) * scale},
                             "the difference of the medians (Bonferroni)");
    } else {
      r.ci95 = nullptr;
      r.ci95_reason = "too few launches for a distribution-free interval";
    }
    r.sources.push_back(source(with.file, with.describe()));
    r.sources.push_back(source(without.file, without.describe()));
    r.measured_on = first_date(with);
    r.method = "Take the launches of op '" + with.op + "' in " + with.file + " (with) and of op '" + without.op + "' in " +
               without.file + " (without), each sorted by Task Start Time(us) after dropping the first " +
               std::to_string(with.dropped) + " and " + std::to_string(without.dropped) + "; value = (median " + time_column +
               " with - median without) / (" + expr + " = " + units::format_number(divisor) + ": " + meaning + ")" + clock_text +
               "; ci95 = (97.5 % interval of the median with - that of without) scaled the same way, each interval from the " +
               ordinal(k_with) + " (with) and " + ordinal(k_without) +
               " (without) smallest to as many from the largest launch (Bonferroni: both hold with >= 95 %).";
    return r;
  }

  /// The points of an msprof sweep ({file, x} per point, one op): per
  /// point the fastest launch (`min`) or the median of the time column over
  /// the kept launches.
  struct Sweep {
    std::vector<double> xs, ys;
    size_t launches_min = SIZE_MAX, dropped = 0;
    std::string op, x_name, time_column;
  };
  Sweep msprof_points(const toml::table &entry, const std::string &where, bool fastest, Result &r) {
    Sweep out;
    out.op = spec_.string(entry, "op", where);
    out.x_name = spec_.string(entry, "x", where);
    out.time_column = spec_.string(entry, "time_column", where);
    const toml::node &points_node = spec_.require(entry, "points", where);
    const toml::array *points = points_node.as_array();
    if (points == nullptr || points->size() < 3) spec_.fail(points_node, where + ": 'points' must be an array of at least 3 { file, x }");
    for (const toml::node &p : *points) {
      if (!p.is_table()) spec_.fail(p, where + ": each point is { file = \"...\", x = number }");
      toml::table point = *p.as_table();
      spec_.check_keys(point, {"file", "x"}, where + " point");
      const toml::node &x_node = spec_.require(point, "x", where);
      if (!x_node.is_number()) spec_.fail(x_node, where + ": x must be a number");
      point.insert_or_assign("op", out.op);
      if (const toml::node *drop = entry.get("drop_first"); drop != nullptr) {
        if (!drop->is_integer()) spec_.fail(*drop, where + ": 'drop_first' must be a whole number >= 0");
        point.insert_or_assign("drop_first", drop->as_integer()->get());
      }
      Selection sel = select(point, where);
      std::vector<double> t = times(sel, out.time_column, spec_.require(entry, "time_column", where), where);
      out.xs.push_back(x_node.value<double>().value());
      out.ys.push_back(fastest ? *std::min_element(t.begin(), t.end()) : median(t));
      out.launches_min = std::min(out.launches_min, t.size());
      out.dropped = sel.dropped;
      r.sources.push_back(source(sel.file, sel.describe()));
      if (r.measured_on.empty()) r.measured_on = first_date(sel);
    }
    return out;
  }

  /// Seconds, or cycles at the spec's `clock` constant when it names one
  /// (the result's dimension follows).
  double time_scale(const toml::table &entry, const std::string &where, Result &r, std::string &clock_text) {
    r.dimension = Dimension::Time;
    if (entry.get("clock") == nullptr) return 1.0;
    double f = earlier_constant(entry, "clock", Dimension::Frequency, where);
    r.dimension = Dimension::Cycles;
    clock_text = " x " + units::format_number(f) + " Hz (constant " + spec_.string(entry, "clock", where) + ")";
    return f;
  }

  /// A per-event latency: the slope of the fastest launch against the
  /// number of events on the kernel's serial chain (docs/model.md §3.6).
  /// The fastest launch, not the median: a latency is a minimum.
  Result msprof_slope(const toml::table &entry, const std::string &where) {
    Result r;
    Sweep sw = msprof_points(entry, where, true, r);
    LineFit fit = fit_line(sw.xs, sw.ys);
    std::string clock_text;
    const double scale = time_scale(entry, where, r, clock_text);
    if (!(fit.slope > 0))
      throw pb::sdk::InputError(spec_.file() + ": " + where + ": the fitted slope is " + units::format_number(fit.slope * 1e6) +
                                " us per " + sw.x_name + ", not positive: the sweep does not isolate a per-event cost");
    r.value = round_significant(fit.slope * scale);
    r.statistic = "slope of a least-squares line through the fastest launches";
    r.n = static_cast<int64_t>(sw.xs.size());
    r.ci95 = interval_json({fit.slope_ci95->low * scale, fit.slope_ci95->high * scale},
                           "the slope (Student t, " + std::to_string(sw.xs.size() - 2) + " degrees of freedom)");
    std::string xs_text;
    for (double x : sw.xs) xs_text += (xs_text.empty() ? "" : ", ") + units::format_number(x);
    r.method = "For each " + sw.x_name + " in {" + xs_text + "}, take the launches of op '" + sw.op +
               "' sorted by Task Start Time(us), drop the first " + std::to_string(sw.dropped) + " (at least " +
               std::to_string(sw.launches_min) + " left per point) and take the fastest " + sw.time_column +
               "; fit fastest = intercept + slope x " + sw.x_name + " by least squares (intercept " +
               units::format_number(fit.intercept * 1e6) + " us, R^2 " + units::format_number(fit.r_squared) +
               "); value = slope" + clock_text + "; ci95 = slope +- t(0.975, " + std::to_string(sw.xs.size() - 2) +
               ") = " + units::format_number(t_quantile_975(sw.xs.size() - 2)) + " x its standard error.";
    return r;
  }

  Result msprof_intercept(const toml::table &entry, const std::string &where) {
    Result r;
    Sweep sw = msprof_points(entry, where, false, r);
    const std::vector<double> &xs = sw.xs, &ys = sw.ys;
    const std::string &op = sw.op, &x_name = sw.x_name, &time_column = sw.time_column;
    const size_t launches_min = sw.launches_min, dropped = sw.dropped;
    LineFit fit = fit_line(xs, ys);
    std::string clock_text;
    const double scale = time_scale(entry, where, r, clock_text);
    if (fit.intercept <= 0)
      throw pb::sdk::InputError(spec_.file() + ": " + where + ": the fitted intercept is " + units::format_number(fit.intercept * 1e6) +
                                " us, not positive: the sweep does not isolate a fixed cost");
    r.value = round_significant(fit.intercept * scale);
    r.statistic = "intercept of a least-squares line";
    r.n = static_cast<int64_t>(xs.size());
    r.ci95 = interval_json({fit.intercept_ci95->low * scale, fit.intercept_ci95->high * scale},
                           "the intercept (Student t, " + std::to_string(xs.size() - 2) + " degrees of freedom)");
    std::string xs_text;
    for (double x : xs) xs_text += (xs_text.empty() ? "" : ", ") + units::format_number(x);
    r.method = "For each " + x_name + " in {" + xs_text + "}, take the launches of op '" + op +
               "' sorted by Task Start Time(us), drop the first " + std::to_string(dropped) + " (at least " +
               std::to_string(launches_min) + " left per point) and take the median " + time_column +
               "; fit median = intercept + slope x " + x_name + " by least squares (slope " +
               units::format_number(fit.slope * 1e6) + " us per unit, R^2 " + units::format_number(fit.r_squared) + "); value = intercept" +
               clock_text + "; ci95 = intercept +- t(0.975, " + std::to_string(xs.size() - 2) + ") = " +
               units::format_number(t_quantile_975(xs.size() - 2)) + " x its standard error.";
    return r;
  }

  Result sweep(const toml::table &entry, const std::string &where, const std::string &kind) {
    (void)kind;
    Result r;
    const std::string rel = spec_.string(entry, "file", where);
    const std::string pointer = spec_.string(entry, "runs", where);
    const std::string x_field = spec_.string(entry, "x", where), x_unit = spec_.string(entry, "x_unit", where);
    const std::string bytes_field = spec_.string(entry, "bytes", where), time_field = spec_.string(entry, "time", where);
    const std::string reduce = spec_.string(entry, "reduce", where);
    const toml::node &file_node = spec_.require(entry, "file", where);
    fs::path path = options_.data_dir / rel;
    std::string error;
    auto text = pb::sdk::read_json_input_file(path, pb::sdk::kMaxDataFileBytes, error);
    if (!text) spec_.fail(file_node, where + ": measurement file: " + error);
    json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded()) throw pb::sdk::InputError(pb::sdk::json_syntax_error_message(*text, path.string()));
    json::json_pointer ptr;
    try {
      ptr = json::json_pointer(pointer);
    } catch (const json::exception &) {
      spec_.fail(spec_.require(entry, "runs", where), where + ": 'runs' must be a JSON pointer such as \"/runs\"");
    }
    if (!doc.contains(ptr) || !doc[ptr].is_array() || doc[ptr].empty())
      spec_.fail(spec_.require(entry, "runs", where), where + ": " + rel + " has no non-empty array at " + pointer);
    double time_factor = 0;
    if (auto f = seconds_per_unit_of_column("(" + time_field.substr(time_field.rfind('_') + 1) + ")"))
      time_factor = *f;
    else
      spec_.fail(spec_.require(entry, "time", where), where + ": cannot tell the unit of '" + time_field + "' (expected a _us, _ms or _s suffix)");
    std::vector<std::pair<double, double>> points;  // (x, B/s)
    const json &runs = doc[ptr];
    for (size_t idx = 0; idx < runs.size(); ++idx) {
      const json &run = runs[idx];
      std::string at = path.string() + ": " + pointer + "/" + std::to_string(idx);
      for (const std::string &field : {x_field, bytes_field, time_field})
        if (!run.is_object() || !run.contains(field) || !run[field].is_number())
          throw pb::sdk::InputError(at + ": member '" + field + "' must be a number");
      double seconds = run[time_field].get<double>() * time_factor;
      if (seconds <= 0 || run[bytes_field].get<double>() <= 0) throw pb::sdk::InputError(at + ": bytes and time must be positive");
      points.emplace_back(run[x_field].get<double>(), run[bytes_field].get<double>() / seconds);
    }
    std::stable_sort(points.begin(), points.end());
    for (size_t idx = 1; idx < points.size(); ++idx)
      if (points[idx].first == points[idx - 1].first)
        throw pb::sdk::InputError(path.string() + ": two runs at " + x_field + " = " + units::format_number(points[idx].first));
    r.n = static_cast<int64_t>(points.size());
    r.ci95 = nullptr;
    r.ci95_reason = "the sweep file records one summary time per run (" + time_field + "), not the individual iterations";
    r.sources.push_back(source(rel, pointer));
    std::string per_run = "per run at " + pointer + ", rate = " + bytes_field + " B / (" + time_field + " x " +
                          units::format_number(time_factor) + " s)";
    if (reduce == "max") {
      auto best = std::max_element(points.begin(), points.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
      r.dimension = Dimension::Bandwidth;
      r.value = round_significant(best->second);
      r.statistic = "fastest run";
      r.fastest = true;
      r.method = "In " + rel + ", " + per_run + "; value = the fastest of the " + std::to_string(points.size()) + " runs (" +
                 x_field + " = " + units::format_number(best->first) + ").";
    } else if (reduce == "table" || reduce == "normalized_table") {
      const bool normalized = reduce == "normalized_table";
      const double reference = points.back().second;
      json table_points = json::array();
      for (const auto &[x, y] : points) table_points.push_back({x, round_significant(normalized ? y / reference : y)});
      r.dimension = normalized ? Dimension::Ratio : Dimension::Bandwidth;
      r.value = {{"x", x_field}, {"x_unit", x_unit}, {"points", table_points}};
      r.statistic = "table";
      r.method = "In " + rel + ", " + per_run + "; one point per run, (" + x_field + ", " +
                 (normalized ? "rate / rate at the largest " + x_field + " = " + units::format_number(points.back().first) + ")"
                             : "rate in B/s)") +
                 ", sorted by " + x_field + ".";
    } else {
      spec_.fail(spec_.require(entry, "reduce", where), where + ": reduce must be \"table\", \"normalized_table\" or \"max\"");
    }
    return r;
  }

  const CalibrateOptions &options_;
  Spec &spec_;
  const json *constants_ = nullptr;
  int64_t default_drop_ = 0;
  std::map<std::string, std::unique_ptr<OpSummary>> tables_;
};

}  // namespace

json calibrate(const CalibrateOptions &options) {
  const std::string spec_file = options.spec.string();
  toml::table root = parse_toml_file(spec_file);
  Spec spec(spec_file);
  spec.check_keys(root, {"format", "target", "description", "defaults", "constant"}, "calibration spec");
  const toml::node &format = spec.require(root, "format", "calibration spec");
  if (!format.is_integer() || format.as_integer()->get() != 1)
    spec.fail(format, "calibration spec: unsupported format (this perfbound reads format = 1)");
  int64_t default_drop = 0;
  if (const toml::node *defaults = root.get("defaults"); defaults != nullptr) {
    if (!defaults->is_table()) spec.fail(*defaults, "calibration spec: [defaults] must be a table");
    spec.check_keys(*defaults->as_table(), {"drop_first"}, "[defaults]");
    default_drop = spec.integer(*defaults->as_table(), "drop_first", 0, "[defaults]");
  }
  const toml::node &entries_node = spec.require(root, "constant", "calibration spec");
  const toml::array *entries = entries_node.as_array();
  if (entries == nullptr || entries->empty()) spec.fail(entries_node, "calibration spec: needs one or more [[constant]] tables");

  json doc = pb::sdk::make_document("perfbound.calibration/1");
  doc["target"] = spec.string(root, "target", "calibration spec");
  if (auto description = spec.optional_string(root, "description", "calibration spec")) doc["description"] = *description;
  std::optional<std::string> spec_digest = pb::sdk::sha256_file(options.spec);
  doc["generated"] = {{"tool", options.tool}, {"command", options.command}, {"spec", {{"file", spec_file}, {"sha256", spec_digest.value_or("")}}}};
  json constants = json::object();
  Calibrator calibrator(options, spec);
  for (const toml::node &node : *entries) {
    if (!node.is_table()) spec.fail(node, "calibration spec: each [[constant]] must be a table");
    const toml::table &entry = *node.as_table();
    std::string id = spec.string(entry, "id", "[[constant]]");
    bool valid_id = !id.empty() && std::islower(static_cast<unsigned char>(id[0])) &&
                    std::all_of(id.begin(), id.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
    if (!valid_id) spec.fail(spec.require(entry, "id", "[[constant]]"), "constant id '" + id + "' must be snake_case ([a-z][a-z0-9_]*)");
    if (constants.contains(id)) spec.fail(spec.require(entry, "id", "[[constant]]"), "constant id '" + id + "' is defined twice");
    constants[id] = calibrator.constant(entry, id, constants, default_drop);
  }
  doc["constants"] = constants;
  return doc;
}

//===----------------------------------------------------------------------===//
// The command
//===----------------------------------------------------------------------===//

namespace {

const char *kUsage =
    "usage: perfbound calibrate SPEC --data DIR --out FILE\n"
    "\n"
    "Derives a calibration database (perfbound.calibration/1) from raw microbenchmark\n"
    "outputs: msprof op_summary CSVs and JSON sweeps.\n"
    "\n"
    "  SPEC        calibration spec (TOML): for each constant, the measurement file,\n"
    "              kernel, column and the work of one launch (docs/profiles.md)\n"
    "  --data DIR  directory the spec's file paths are relative to (e.g. ../shared/data)\n"
    "  --out FILE  where to write the database ('-' for standard output)\n"
    "\n"
    "The exact command line is recorded in the output (generated.command).\n"
    "Exit status: 0 written; 2 usage error; 3 invalid spec or measurement file.\n";

std::string shell_word(const std::string &word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;") == std::string::npos) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

int calibrate_main(const std::vector<std::string> &args) {
  std::optional<std::string> spec, data, out;
  for (size_t idx = 1; idx < args.size(); ++idx) {
    const std::string &arg = args[idx];
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    }
    auto value = [&](std::optional<std::string> &slot) {
      if (idx + 1 >= args.size()) return false;
      slot = args[++idx];
      return true;
    };
    if (arg == "--data" || arg == "--out") {
      if (!value(arg == "--data" ? data : out)) {
        std::cerr << "perfbound calibrate: " << arg << " needs a value\n" << kUsage;
        return 2;
      }
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      std::cerr << "perfbound calibrate: unknown option '" << arg << "'\n" << kUsage;
      return 2;
    } else if (!spec) {
      spec = arg;
    } else {
      std::cerr << "perfbound calibrate: unexpected argument '" << arg << "'\n" << kUsage;
      return 2;
    }
  }
  if (!spec || !data || !out) {
    std::cerr << "perfbound calibrate: SPEC, --data and --out are required\n" << kUsage;
    return 2;
  }
  std::string command = "perfbound";
  for (const std::string &arg : args) command += " " + shell_word(arg);
  CalibrateOptions options{*spec, *data, command, "perfbound.validate " PERFBOUND_VALIDATE_VERSION};
  json doc;
  try {
    std::error_code ec;
    if (!fs::is_directory(*data, ec)) throw pb::sdk::InputError(*data + ": the --data directory does not exist");
    if (!fs::is_regular_file(*spec, ec)) throw pb::sdk::InputError(*spec + ": calibration spec not found");
    doc = calibrate(options);
  } catch (const pb::sdk::InputError &e) {
    std::cerr << "perfbound calibrate: " << e.what() << "\n";
    return 3;
  }
  std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (*out == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream file(*out, std::ios::binary | std::ios::trunc);
  if (!file || !(file << text)) {
    std::cerr << "perfbound calibrate: cannot write " << *out << "\n";
    return 1;
  }
  for (const auto &[id, c] : doc["constants"].items()) {
    std::string value = c["value"].is_number() ? units::format_number(c["value"].get<double>()) + " " + c["unit"].get<std::string>()
                                               : "table of " + std::to_string(c["value"]["points"].size()) + " points";
    std::cout << id << ": " << value << " (" << c["kind"].get<std::string>() << ", n=" << c["n"] << ")\n";
  }
  std::cout << "wrote " << *out << " (" << doc["constants"].size() << " constants)\n";
  return 0;
}

}  // namespace perfbound::validate
