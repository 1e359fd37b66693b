//===- stats.cpp - medians, order-statistic intervals, least squares ------===//
#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace perfbound::validate {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

size_t median_interval_rank(size_t n, double confidence) {
  const double tail = (1 - confidence) / 2;
  // P(B <= i) for B ~ Binomial(n, 1/2), accumulated in log space so large n
  // does not underflow 2^-n.
  double cumulative = 0;
  size_t k = 0;
  for (size_t i = 0; i <= n / 2; ++i) {
    double log_term = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                      std::lgamma(static_cast<double>(n - i) + 1) - static_cast<double>(n) * std::log(2.0);
    cumulative += std::exp(log_term);
    if (cumulative > tail) break;
    k = i + 1;  // P(B <= k-1) <= tail
  }
  return k;
}

std::optional<Interval> median_interval(std::vector<double> values, double confidence) {
  size_t k = median_interval_rank(values.size(), confidence);
  if (k == 0) return std::nullopt;
  std::sort(values.begin(), values.end());
  return Interval{values[k - 1], values[values.size() - k]};
}

double t_quantile_975(size_t dof) {
  static const double kTable[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                                  2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                                  2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (dof == 0) throw std::invalid_argument("t quantile with 0 degrees of freedom");
  return dof <= 30 ? kTable[dof - 1] : kTable[29];
}

LineFit fit_line(const std::vector<double> &x, const std::vector<double> &y) {
  if (x.size() != y.size() || x.size() < 2) throw std::invalid_argument("a line fit needs at least two (x, y) points");
  const double n = static_cast<double>(x.size());
  double x_mean = 0, y_mean = 0;
  for (size_t idx = 0; idx < x.size(); ++idx) {
    x_mean += x[idx] / n;
    y_mean += y[idx] / n;
  }
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t idx = 0; idx < x.size(); ++idx) {
    sxx += (x[idx] - x_mean) * (x[idx] - x_mean);
    sxy += (x[idx] - x_mean) * (y[idx] - y_mean);
    syy += (y[idx] - y_mean) * (y[idx] - y_mean);
  }
  if (sxx == 0) throw std::invalid_argument("a line fit needs at least two distinct x values");
  LineFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = y_mean - fit.slope * x_mean;
  double ss_res = 0;
  for (size_t idx = 0; idx < x.size(); ++idx) {
    double r = y[idx] - (fit.intercept + fit.slope * x[idx]);
    ss_res += r * r;
  }
  fit.r_squared = syy == 0 ? 1.0 : 1.0 - ss_res / syy;
  if (x.size() >= 3) {
    double s2 = ss_res / (n - 2);
    fit.intercept_se = std::sqrt(s2 * (1.0 / n + x_mean * x_mean / sxx));
    double half = t_quantile_975(x.size() - 2) * fit.intercept_se;
    fit.intercept_ci95 = Interval{fit.intercept - half, fit.intercept + half};
    fit.slope_se = std::sqrt(s2 / sxx);
    double slope_half = t_quantile_975(x.size() - 2) * fit.slope_se;
    fit.slope_ci95 = Interval{fit.slope - slope_half, fit.slope + slope_half};
  }
  return fit;
}

}  // namespace perfbound::validate
