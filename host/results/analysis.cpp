// Statistics of study outputs. See host/results/analysis.hpp.
#include "host/results/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "host/design/sampling.hpp"

namespace hs {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

void check_level(double level, const char* where) {
  if (!(level > 0.0 && level < 1.0))
    throw std::invalid_argument(std::string(where) + ": confidence level " + std::to_string(level) +
                                " is not allowed (allowed: 0 < level < 1)");
}

// Percentile interval from bootstrap replicates (sorted in place).
ConfidenceInterval percentile_interval(std::vector<double>& replicates, double level) {
  ConfidenceInterval ci;
  ci.level = level;
  // A degenerate resample (e.g. all rows equal, V = 0) gives a NaN replicate;
  // NaN would break std::sort's ordering, so such replicates are left out.
  replicates.erase(std::remove_if(replicates.begin(), replicates.end(), [](double v) { return std::isnan(v); }),
                   replicates.end());
  if (replicates.empty()) return ci;
  std::sort(replicates.begin(), replicates.end());
  ci.lower = quantile_sorted(replicates, 0.5 * (1.0 - level));
  ci.upper = quantile_sorted(replicates, 0.5 * (1.0 + level));
  return ci;
}

// Resample counts: c[k] = how often item k of n is drawn in n draws with
// replacement, from stream (seed, bootstrap, b). Counts instead of an index
// list let statistics of sorted data be read off in O(n) without re-sorting.
void draw_counts(std::uint64_t seed, std::size_t b, std::size_t n, std::vector<std::uint32_t>& c) {
  c.assign(n, 0);
  RandomStream rng(seed, StreamPurpose::bootstrap, b);
  for (std::size_t i = 0; i < n; ++i) ++c[rng.next_below(n)];
}

// Order statistic of 0-based rank r of the resample given by cumulative counts
// `cum` (cum[k] = number of resampled values <= sorted[k]).
double order_statistic(const std::vector<double>& sorted, const std::vector<std::size_t>& cum, std::size_t r) {
  const auto it = std::upper_bound(cum.begin(), cum.end(), r);
  return sorted[static_cast<std::size_t>(it - cum.begin())];
}

// Definition-7 quantile of the resample, from its order statistics.
double resample_quantile(const std::vector<double>& sorted, const std::vector<std::size_t>& cum, double p) {
  const std::size_t n = sorted.size();
  const double h = static_cast<double>(n - 1) * p;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const double x_lo = order_statistic(sorted, cum, lo);
  if (lo + 1 >= n) return x_lo;
  return x_lo + (h - static_cast<double>(lo)) * (order_statistic(sorted, cum, lo + 1) - x_lo);
}
}  // namespace

double quantile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty() || std::isnan(p) || p < 0.0 || p > 1.0) return nan;
  const std::size_t n = sorted.size();
  const double h = static_cast<double>(n - 1) * p;
  const std::size_t lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
  if (lo + 1 >= n) return sorted[lo];
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

MonteCarloSummary summarize_monte_carlo(const std::vector<double>& outputs, const std::vector<double>& probabilities,
                                        const BootstrapOptions& options) {
  check_level(options.level, "summarize_monte_carlo");
  for (double p : probabilities)
    if (!(p >= 0.0 && p <= 1.0))
      throw std::invalid_argument("summarize_monte_carlo: quantile probability " + std::to_string(p) +
                                  " is not allowed (allowed: 0 <= p <= 1)");
  MonteCarloSummary s;
  s.count = outputs.size();
  std::vector<double> x;
  x.reserve(outputs.size());
  for (double y : outputs) {
    if (std::isnan(y))
      ++s.failed;
    else if (std::isinf(y))
      ++s.infinite;
    else
      x.push_back(y);
  }
  s.valid = x.size();
  s.quantiles.resize(probabilities.size());
  for (std::size_t q = 0; q < probabilities.size(); ++q) {
    s.quantiles[q].probability = probabilities[q];
    s.quantiles[q].ci.level = options.level;
  }
  s.mean_ci.level = s.std_dev_ci.level = options.level;
  const std::size_t n = x.size();
  if (n == 0) return s;

  std::sort(x.begin(), x.end());
  // Two-pass moments (Chan, Golub & LeVeque 1983): no cancellation from Σx².
  auto moments = [&](auto weight, double& mean, double& var) {
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) sum += weight(k) * x[k];
    mean = sum / static_cast<double>(n);
    double ss = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double dx = x[k] - mean;
      ss += weight(k) * dx * dx;
    }
    var = n > 1 ? ss / static_cast<double>(n - 1) : nan;
  };
  double var;
  moments([](std::size_t) { return 1.0; }, s.mean, var);
  s.std_dev = std::sqrt(var);
  for (auto& q : s.quantiles) q.value = quantile_sorted(x, q.probability);
  if (n < 2 || options.resamples == 0) return s;

  const std::size_t B = options.resamples;
  std::vector<double> rep_mean(B), rep_std(B);
  std::vector<std::vector<double>> rep_q(probabilities.size(), std::vector<double>(B));
  std::vector<std::uint32_t> c;
  std::vector<std::size_t> cum(n);
  for (std::size_t b = 0; b < B; ++b) {
    draw_counts(options.seed, b, n, c);
    double m, v;
    moments([&](std::size_t k) { return static_cast<double>(c[k]); }, m, v);
    rep_mean[b] = m;
    rep_std[b] = std::sqrt(v);
    std::size_t acc = 0;
    for (std::size_t k = 0; k < n; ++k) cum[k] = (acc += c[k]);
    for (std::size_t q = 0; q < probabilities.size(); ++q) rep_q[q][b] = resample_quantile(x, cum, probabilities[q]);
  }
  s.mean_ci = percentile_interval(rep_mean, options.level);
  s.std_dev_ci = percentile_interval(rep_std, options.level);
  for (std::size_t q = 0; q < probabilities.size(); ++q) s.quantiles[q].ci = percentile_interval(rep_q[q], options.level);
  return s;
}

ConfidenceInterval wilson_interval(std::size_t successes, std::size_t trials, double level) {
  check_level(level, "wilson_interval");
  ConfidenceInterval ci;
  ci.level = level;
  if (trials == 0 || successes > trials) return ci;
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z = normal_quantile_upper(0.5 * (1.0 - level));  // two-sided: Φ^-1(1 − (1−level)/2)
  const double z2 = z * z;
  const double denom = 1.0 + z2 / n;
  const double centre = (p + z2 / (2.0 * n)) / denom;
  const double half = z * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom;
  // At 0 (n) successes the lower (upper) end is exactly 0 (1); rounding would
  // leave ±1e-17 there.
  ci.lower = successes == 0 ? 0.0 : std::max(0.0, centre - half);
  ci.upper = successes == trials ? 1.0 : std::min(1.0, centre + half);
  return ci;
}

FailureProbability failure_probability(const std::vector<double>& outputs, double limit, LimitState state,
                                       double level) {
  check_level(level, "failure_probability");
  if (std::isnan(limit)) throw std::invalid_argument("failure_probability: limit is NaN");
  FailureProbability f;
  for (double y : outputs) {
    if (std::isnan(y)) {
      ++f.failed_instances;
      continue;
    }
    ++f.valid;
    if (state == LimitState::above ? y > limit : y < limit) ++f.failures;
  }
  if (f.valid > 0) f.estimate = static_cast<double>(f.failures) / static_cast<double>(f.valid);
  f.ci = wilson_interval(f.failures, f.valid, level);
  return f;
}

SobolIndices sobol_indices(const std::vector<double>& outputs, std::size_t d, const BootstrapOptions& options,
                           bool second_order) {
  check_level(options.level, "sobol_indices");
  if (d == 0) throw std::invalid_argument("sobol_indices: dimension 0 is not allowed (allowed: d >= 1)");
  if (second_order && d < 2)
    throw std::invalid_argument("sobol_indices: second-order indices need d >= 2 (got d = " + std::to_string(d) + ")");
  const std::size_t block = saltelli_block_size(d, second_order);
  if (outputs.size() % block != 0)
    throw std::invalid_argument("sobol_indices: " + std::to_string(outputs.size()) +
                                " outputs are not a whole number of Saltelli blocks of " +
                                (second_order ? "2d + 2 = " : "d + 2 = ") + std::to_string(block));
  SobolIndices s;
  s.dimension = d;
  s.base_rows = outputs.size() / block;
  s.first_order.resize(d);
  s.total_order.resize(d);
  if (second_order) s.second_order.resize(d * d);
  for (std::size_t i = 0; i < d; ++i) s.first_order[i].ci.level = s.total_order[i].ci.level = options.level;
  for (auto& e : s.second_order) e.ci.level = options.level;

  // Valid blocks, copied contiguously.
  std::vector<double> f;
  f.reserve(outputs.size());
  for (std::size_t r = 0; r < s.base_rows; ++r) {
    const double* y = outputs.data() + r * block;
    if (std::all_of(y, y + block, [](double v) { return std::isfinite(v); }))
      f.insert(f.end(), y, y + block);
    else
      s.dropped.push_back(r);
  }
  s.dropped_rows = s.dropped.size();
  const std::size_t n = f.size() / block;
  s.valid_rows = n;
  if (n < 2) return s;

  double pooled = 0.0;
  for (std::size_t r = 0; r < n; ++r) pooled += f[r * block + saltelli_role_a] + f[r * block + saltelli_role_b];
  s.output_mean = pooled / (2.0 * static_cast<double>(n));
  for (double& v : f) v -= s.output_mean;

  // Estimates for row weights w_r (1 for the data, resample counts for a
  // bootstrap replicate; Σ w_r = n either way).
  std::vector<double> first(d), total(d), pair(second_order ? d * d : 0);
  const std::size_t ba0 = saltelli_role_ba0(d);
  auto estimate = [&](auto weight, double& variance) {
    double sum = 0.0;
    for (std::size_t r = 0; r < n; ++r) sum += weight(r) * (f[r * block + saltelli_role_a] + f[r * block + saltelli_role_b]);
    const double mean = sum / (2.0 * static_cast<double>(n));
    double ss = 0.0;
    std::fill(first.begin(), first.end(), 0.0);
    std::fill(total.begin(), total.end(), 0.0);
    std::fill(pair.begin(), pair.end(), 0.0);
    for (std::size_t r = 0; r < n; ++r) {
      const double w = weight(r);
      if (w == 0.0) continue;
      const double* y = f.data() + r * block;
      const double fa = y[saltelli_role_a], fb = y[saltelli_role_b];
      ss += w * ((fa - mean) * (fa - mean) + (fb - mean) * (fb - mean));
      for (std::size_t i = 0; i < d; ++i) {
        const double fab = y[saltelli_role_ab0 + i];
        first[i] += w * fb * (fab - fa);
        total[i] += w * (fa - fab) * (fa - fab);
      }
      if (second_order)
        for (std::size_t j = 0; j < d; ++j)
          for (std::size_t k = j + 1; k < d; ++k) pair[j * d + k] += w * (y[ba0 + j] * y[saltelli_role_ab0 + k] - fa * fb);
    }
    variance = ss / (2.0 * static_cast<double>(n) - 1.0);
    for (std::size_t i = 0; i < d; ++i) {
      first[i] = first[i] / static_cast<double>(n) / variance;
      total[i] = total[i] / (2.0 * static_cast<double>(n)) / variance;
    }
    for (std::size_t j = 0; j < d && second_order; ++j)
      for (std::size_t k = j + 1; k < d; ++k)
        pair[j * d + k] = pair[j * d + k] / static_cast<double>(n) / variance - first[j] - first[k];
  };
  double variance;
  estimate([](std::size_t) { return 1.0; }, variance);
  s.output_variance = variance;
  for (std::size_t i = 0; i < d; ++i) {
    s.first_order[i].value = first[i];
    s.total_order[i].value = total[i];
  }
  auto pairs = [&](auto&& visit) {
    for (std::size_t j = 0; j < d && second_order; ++j)
      for (std::size_t k = j + 1; k < d; ++k) visit(j * d + k);
  };
  pairs([&](std::size_t jk) { s.second_order[jk].value = pair[jk]; });
  if (options.resamples == 0) return s;

  const std::size_t B = options.resamples;
  std::vector<std::vector<double>> rep_first(d, std::vector<double>(B)), rep_total(d, std::vector<double>(B));
  std::vector<std::vector<double>> rep_pair(pair.size());
  pairs([&](std::size_t jk) { rep_pair[jk].resize(B); });
  std::vector<std::uint32_t> c;
  for (std::size_t b = 0; b < B; ++b) {
    draw_counts(options.seed, b, n, c);
    double v;
    estimate([&](std::size_t r) { return static_cast<double>(c[r]); }, v);
    for (std::size_t i = 0; i < d; ++i) {
      rep_first[i][b] = first[i];
      rep_total[i][b] = total[i];
    }
    pairs([&](std::size_t jk) { rep_pair[jk][b] = pair[jk]; });
  }
  for (std::size_t i = 0; i < d; ++i) {
    s.first_order[i].ci = percentile_interval(rep_first[i], options.level);
    s.total_order[i].ci = percentile_interval(rep_total[i], options.level);
  }
  pairs([&](std::size_t jk) { s.second_order[jk].ci = percentile_interval(rep_pair[jk], options.level); });
  return s;
}

std::vector<double> saltelli_independent_rows(const std::vector<double>& outputs, std::size_t d, bool second_order) {
  if (d == 0) throw std::invalid_argument("saltelli_independent_rows: dimension 0 is not allowed (allowed: d >= 1)");
  const std::size_t block = saltelli_block_size(d, second_order);
  if (outputs.size() % block != 0)
    throw std::invalid_argument("saltelli_independent_rows: " + std::to_string(outputs.size()) +
                                " outputs are not a whole number of Saltelli blocks of " +
                                (second_order ? "2d + 2 = " : "d + 2 = ") + std::to_string(block));
  std::vector<double> ab;
  ab.reserve(2 * (outputs.size() / block));
  for (std::size_t first = 0; first < outputs.size(); first += block) {
    ab.push_back(outputs[first + saltelli_role_a]);
    ab.push_back(outputs[first + saltelli_role_b]);
  }
  return ab;
}

}  // namespace hs
