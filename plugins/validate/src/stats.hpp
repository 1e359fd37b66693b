//===- stats.hpp - the statistics behind calibration constants ------------===//
//
// Small, distribution-free where it can be, and simple enough to redo by
// hand: medians, order-statistic confidence intervals of a median, and an
// ordinary least-squares line with a Student-t interval on its intercept.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_STATS_HPP
#define PERFBOUND_VALIDATE_STATS_HPP

#include <cstddef>
#include <optional>
#include <vector>

namespace perfbound::validate {

/// Median (the mean of the two middle values for an even count). Requires
/// a non-empty vector.
double median(std::vector<double> values);

struct Interval {
  double low = 0;
  double high = 0;
};

/// Distribution-free confidence interval of the median: with the values
/// sorted x(1) <= ... <= x(n), the interval [x(k), x(n+1-k)] for the largest
/// k with P(Binomial(n, 1/2) <= k-1) <= (1 - confidence) / 2. nullopt when n
/// is too small for any k >= 1 (n < 6 at 95 %).
std::optional<Interval> median_interval(std::vector<double> values, double confidence = 0.95);
/// The k of median_interval (1-based rank of the lower end); 0 when none.
size_t median_interval_rank(size_t n, double confidence = 0.95);

/// Two-sided 97.5 % quantile of Student's t with `dof` degrees of freedom
/// (table for 1..30; 30's value beyond, which errs wide).
double t_quantile_975(size_t dof);

struct LineFit {
  double slope = 0;
  double intercept = 0;
  double r_squared = 0;
  double intercept_se = 0;           // standard error of the intercept
  std::optional<Interval> intercept_ci95;  // intercept +- t(0.975, n-2) * se; nullopt for n < 3
  double slope_se = 0;                     // standard error of the slope
  std::optional<Interval> slope_ci95;      // slope +- t(0.975, n-2) * se; nullopt for n < 3
};

/// Ordinary least squares y = intercept + slope * x. Requires >= 2 points
/// and at least two distinct x.
LineFit fit_line(const std::vector<double> &x, const std::vector<double> &y);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_STATS_HPP
