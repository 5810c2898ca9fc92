// host/analysis: Monte Carlo summaries with bootstrap intervals, Wilson
// intervals for failure probabilities, Sobol' indices from a Saltelli design.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "host/results/analysis.hpp"
#include "host/design/sampling.hpp"

using namespace hs;

namespace {
constexpr double pi = 3.14159265358979323846;
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

std::vector<double> normal_sample(double mean, double std, std::size_t n, std::uint64_t seed) {
  return monte_carlo({Distribution::normal(mean, std)}, n, seed).values;
}

// Ishigami & Homma (1990) function, inputs U(−π, π).
constexpr double ishigami_a = 7.0, ishigami_b = 0.1;
double ishigami(const double* x) {
  return std::sin(x[0]) + ishigami_a * std::sin(x[1]) * std::sin(x[1]) +
         ishigami_b * std::pow(x[2], 4) * std::sin(x[0]);
}

// Closed-form partial variances for U(−π, π) inputs (Ishigami & Homma 1990;
// Sobol' & Levitan 1999, Comput. Phys. Commun. 117, 52–61):
// V1 = (1 + bπ⁴/5)²/2, V2 = a²/8, V13 = b²π⁸(1/18 − 1/50), V3 = V12 = V23 = V123 = 0,
// V = a²/8 + bπ⁴/5 + b²π⁸/18 + 1/2.
struct IshigamiIndices {
  double S[3], ST[3];
};
IshigamiIndices ishigami_indices() {
  const double a = ishigami_a, b = ishigami_b, pi4 = std::pow(pi, 4), pi8 = pi4 * pi4;
  const double V1 = 0.5 * (1 + b * pi4 / 5) * (1 + b * pi4 / 5);
  const double V2 = a * a / 8;
  const double V13 = b * b * pi8 * (1.0 / 18 - 1.0 / 50);
  const double V = a * a / 8 + b * pi4 / 5 + b * b * pi8 / 18 + 0.5;
  return {{V1 / V, V2 / V, 0.0}, {(V1 + V13) / V, V2 / V, V13 / V}};
}

// Ishigami outputs on the Saltelli design built on N points of a 6-D base.
std::vector<double> ishigami_outputs(const SampleMatrix& base) {
  const std::vector<Distribution> laws(3, Distribution::uniform(-pi, pi));
  const SampleMatrix x = map_to_distributions(saltelli_design(base), laws);
  std::vector<double> y(x.rows);
  for (std::size_t r = 0; r < x.rows; ++r) y[r] = ishigami(x.row(r));
  return y;
}

// Binomial pmf through lgamma (exact enough for coverage sums at n <= 1000).
double binomial_pmf(std::size_t k, std::size_t n, double p) {
  const double lc = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
  return std::exp(lc + k * std::log(p) + (n - k) * std::log1p(-p));
}
}  // namespace

// ---------------------------------------------------------------------------
// Quantiles and Monte Carlo summaries
// ---------------------------------------------------------------------------

TEST(Quantile, FollowsHyndmanFanDefinition7) {
  // h = (n−1)p on 0-based sorted data, linear between neighbours; worked by
  // hand for {1, 2, 3, 4}: h(0.25) = 0.75 → 1.75, h(0.5) = 1.5 → 2.5.
  const std::vector<double> x = {1, 2, 3, 4};
  EXPECT_EQ(quantile_sorted(x, 0.0), 1.0);
  EXPECT_EQ(quantile_sorted(x, 0.25), 1.75);
  EXPECT_EQ(quantile_sorted(x, 0.5), 2.5);
  EXPECT_EQ(quantile_sorted(x, 1.0), 4.0);
  EXPECT_EQ(quantile_sorted({7.0}, 0.3), 7.0);
  EXPECT_TRUE(std::isnan(quantile_sorted({}, 0.5)));
  EXPECT_TRUE(std::isnan(quantile_sorted(x, 1.1)));
}

TEST(MonteCarloSummary, BootstrapIntervalsCoverTheTrueValues) {
  // 4000 draws of N(3, 2²); 95% percentile intervals. The mean's interval has
  // half-width ≈ z·σ/√n = 0.062; its bootstrap width may differ from 2zσ/√n by
  // the sampling error of s (≈ 1/sqrt(2n) = 1.1%) and the Monte Carlo error of
  // the 2.5% and 97.5% replicate quantiles at B = 2000 (≈ 3% of the width):
  // 10% tolerance (about 3 of those combined errors; measured 5.8% at this seed).
  const double mu = 3, sigma = 2;
  const std::size_t n = 4000;
  const std::vector<double> probabilities = {0.05, 0.5, 0.95};
  const MonteCarloSummary s = summarize_monte_carlo(normal_sample(mu, sigma, n, 1), probabilities);
  EXPECT_EQ(s.count, n);
  EXPECT_EQ(s.valid, n);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_TRUE(s.mean_ci.contains(mu)) << s.mean_ci.lower << " " << s.mean_ci.upper;
  EXPECT_TRUE(s.mean_ci.contains(s.mean));
  EXPECT_NEAR(s.mean_ci.width(), 2 * 1.959963984540054 * sigma / std::sqrt(n), 0.1 * s.mean_ci.width());
  EXPECT_TRUE(s.std_dev_ci.contains(sigma)) << s.std_dev_ci.lower << " " << s.std_dev_ci.upper;
  ASSERT_EQ(s.quantiles.size(), probabilities.size());
  for (const auto& q : s.quantiles) {
    const double truth = mu + sigma * normal_quantile(q.probability);
    EXPECT_TRUE(q.ci.contains(truth)) << "p=" << q.probability << ": " << q.ci.lower << " " << q.ci.upper;
    EXPECT_TRUE(q.ci.lower <= q.value && q.value <= q.ci.upper);
  }
}

TEST(MonteCarloSummary, PercentileIntervalOfTheMeanHasNominalCoverage) {
  // 400 independent samples of n = 60 from N(0, 1), B = 500 each. At n = 60
  // the percentile interval behaves like mean ± z·s·sqrt((n−1)/n)/√n, whose
  // coverage under Student's t_59 is ≈ 0.943 (the known finite-n
  // undercoverage of the percentile interval). The observed coverage of
  // 400 trials has binomial standard error sqrt(0.943·0.057/400) = 0.0116:
  // accept 0.943 ± 4 SE.
  const std::size_t trials = 400, n = 60;
  std::size_t covered = 0;
  BootstrapOptions options;
  options.resamples = 500;
  for (std::size_t t = 0; t < trials; ++t) {
    options.seed = 1000 + t;
    const MonteCarloSummary s = summarize_monte_carlo(normal_sample(0.0, 1.0, n, 500 + t), {}, options);
    covered += s.mean_ci.contains(0.0);
  }
  const double coverage = static_cast<double>(covered) / trials;
  EXPECT_NEAR(coverage, 0.943, 4 * std::sqrt(0.943 * 0.057 / trials));
}

TEST(MonteCarloSummary, FailedInstancesAreCountedAndIgnored) {
  const std::vector<double> clean = normal_sample(1.0, 0.5, 300, 5);
  std::vector<double> dirty = clean;
  dirty.insert(dirty.begin() + 10, not_a_number);
  dirty.insert(dirty.begin() + 100, not_a_number);
  dirty.push_back(not_a_number);
  dirty.push_back(inf);
  const MonteCarloSummary a = summarize_monte_carlo(clean), b = summarize_monte_carlo(dirty);
  EXPECT_EQ(b.count, 304u);
  EXPECT_EQ(b.valid, 300u);
  EXPECT_EQ(b.failed, 3u);
  EXPECT_EQ(b.infinite, 1u);
  // Same valid data, same seed: identical statistics, bit for bit.
  EXPECT_EQ(b.mean, a.mean);
  EXPECT_EQ(b.std_dev, a.std_dev);
  EXPECT_EQ(b.mean_ci.lower, a.mean_ci.lower);
  EXPECT_EQ(b.mean_ci.upper, a.mean_ci.upper);
  EXPECT_EQ(b.std_dev_ci.upper, a.std_dev_ci.upper);
  for (std::size_t q = 0; q < a.quantiles.size(); ++q) {
    EXPECT_EQ(b.quantiles[q].value, a.quantiles[q].value);
    EXPECT_EQ(b.quantiles[q].ci.lower, a.quantiles[q].ci.lower);
  }
  EXPECT_TRUE(std::isfinite(b.mean));

  const MonteCarloSummary none = summarize_monte_carlo({not_a_number, not_a_number});
  EXPECT_EQ(none.valid, 0u);
  EXPECT_EQ(none.failed, 2u);
  EXPECT_TRUE(std::isnan(none.mean));
  EXPECT_TRUE(std::isnan(none.mean_ci.lower));
  const MonteCarloSummary one = summarize_monte_carlo({not_a_number, 4.0});
  EXPECT_EQ(one.mean, 4.0);
  EXPECT_TRUE(std::isnan(one.std_dev));
}

TEST(MonteCarloSummary, IsReproducibleAndSeeded) {
  const std::vector<double> y = normal_sample(0, 1, 500, 9);
  BootstrapOptions o;
  const MonteCarloSummary a = summarize_monte_carlo(y, {0.5}, o), b = summarize_monte_carlo(y, {0.5}, o);
  EXPECT_EQ(a.mean_ci.lower, b.mean_ci.lower);
  EXPECT_EQ(a.quantiles[0].ci.upper, b.quantiles[0].ci.upper);
  o.seed += 1;
  const MonteCarloSummary c = summarize_monte_carlo(y, {0.5}, o);
  EXPECT_NE(a.mean_ci.lower, c.mean_ci.lower);
  EXPECT_THROW(summarize_monte_carlo(y, {1.5}), std::invalid_argument);
  o.level = 1.0;
  EXPECT_THROW(summarize_monte_carlo(y, {0.5}, o), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Failure probability
// ---------------------------------------------------------------------------

TEST(Wilson, MatchesNewcombe1998TableI) {
  // Newcombe (1998), Stat. Med. 17, 857–872, Table I, method 3 (score interval
  // without continuity correction), 95%, printed to 4 decimals.
  struct Case {
    std::size_t k, n;
    double lower, upper;
  };
  for (const Case& c : {Case{81, 263, 0.2553, 0.3662}, Case{15, 148, 0.0624, 0.1605}, Case{0, 20, 0.0, 0.1611},
                        Case{1, 29, 0.0061, 0.1718}}) {
    const ConfidenceInterval ci = wilson_interval(c.k, c.n, 0.95);
    EXPECT_NEAR(ci.lower, c.lower, 5e-5) << c.k << "/" << c.n;
    EXPECT_NEAR(ci.upper, c.upper, 5e-5) << c.k << "/" << c.n;
  }
  EXPECT_EQ(wilson_interval(0, 20).lower, 0.0);
  EXPECT_EQ(wilson_interval(20, 20).upper, 1.0);
  EXPECT_TRUE(std::isnan(wilson_interval(0, 0).lower));
}

TEST(Wilson, ExactCoverageIsCloseToNominal) {
  // Coverage C(p) = Σ_k Bin(k; n, p)·[p ∈ W(k)], summed exactly. The Wilson
  // interval's coverage oscillates about the nominal level as p varies (Brown,
  // Cai & DasGupta 2001); at n = 100 it stays within about [0.927, 0.976] for
  // p in [0.03, 0.97]. A wrong z (one-sided 1.645 gives ≈ 0.90) or a dropped
  // term leaves [0.925, 0.975] at these p.
  const std::size_t n = 100;
  for (double p : {0.05, 0.1, 0.2, 0.3, 0.5, 0.7}) {
    double coverage = 0;
    for (std::size_t k = 0; k <= n; ++k)
      if (wilson_interval(k, n, 0.95).contains(p)) coverage += binomial_pmf(k, n, p);
    EXPECT_GT(coverage, 0.925) << "p=" << p;
    EXPECT_LT(coverage, 0.975) << "p=" << p;
  }
}

TEST(FailureProbability, CountsViolationsAndExcludesFailedInstances) {
  const std::vector<double> y = {1.0, 5.0, not_a_number, 3.0, 7.0, not_a_number, 2.0, inf};
  const FailureProbability above = failure_probability(y, 2.5, LimitState::above);
  EXPECT_EQ(above.valid, 6u);
  EXPECT_EQ(above.failed_instances, 2u);
  EXPECT_EQ(above.failures, 4u);  // 5, 3, 7, inf
  EXPECT_DOUBLE_EQ(above.estimate, 4.0 / 6.0);
  EXPECT_EQ(above.ci.lower, wilson_interval(4, 6).lower);
  const FailureProbability below = failure_probability(y, 2.0, LimitState::below);
  EXPECT_EQ(below.failures, 1u);  // 1; 2.0 itself is not below the limit
  EXPECT_THROW(failure_probability(y, not_a_number, LimitState::above), std::invalid_argument);
}

TEST(FailureProbability, IntervalCoversTheTrueProbability) {
  // y ~ N(0, 1), failure y > 2: p = Q(2) = 0.02275.
  const std::vector<double> y = normal_sample(0.0, 1.0, 20000, 77);
  const FailureProbability f = failure_probability(y, 2.0, LimitState::above);
  const double p = normal_ccdf(2.0);
  EXPECT_TRUE(f.ci.contains(p)) << f.ci.lower << " " << f.ci.upper;
  // Half-width ≈ 1.96 sqrt(p(1−p)/n) = 0.0021 (the Wilson and Wald widths agree
  // to O(1/n) here): 20% tolerance (measured 2.5%; the half-width's own
  // sampling error through p̂ is ≈ 1/(2 sqrt(np)) = 2.3%, so 20% is ~9 of them).
  EXPECT_NEAR(f.ci.width() / 2, 1.96 * std::sqrt(p * (1 - p) / 20000), 0.2 * f.ci.width() / 2);
}

// ---------------------------------------------------------------------------
// Sobol' indices
// ---------------------------------------------------------------------------

TEST(Ishigami, ClosedFormIndicesMatchPublishedValues) {
  // The values tabulated for a = 7, b = 0.1 throughout the sensitivity-analysis
  // literature (e.g. Saltelli et al. 2008, "Global Sensitivity Analysis: The
  // Primer"), 4 decimals.
  const IshigamiIndices t = ishigami_indices();
  const double S[3] = {0.3139, 0.4424, 0.0}, ST[3] = {0.5576, 0.4424, 0.2437};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(t.S[i], S[i], 5e-5) << i;
    EXPECT_NEAR(t.ST[i], ST[i], 5e-5) << i;
  }
}

TEST(Ishigami, AnalyticIndicesLieInsideThe99PercentBootstrapIntervals) {
  // N = 2^14 base points of a scrambled Sobol' design in 2d = 6 dimensions
  // (Saltelli 2010's prescription), 99% percentile intervals from 1000
  // resamples of the base rows. The bootstrap treats the rows as independent,
  // which for a scrambled Sobol' design overstates the error (the QMC error is
  // smaller than the MC one), so the intervals are conservative; no widening.
  const std::size_t N = 1 << 14, d = 3;
  const std::vector<double> y = ishigami_outputs(sobol_design(N, 2 * d, {true, 2010, false}));
  BootstrapOptions o;
  o.resamples = 1000;
  o.level = 0.99;
  const SobolIndices s = sobol_indices(y, d, o);
  EXPECT_EQ(s.base_rows, N);
  EXPECT_EQ(s.valid_rows, N);
  EXPECT_EQ(s.dropped_rows, 0u);
  const IshigamiIndices t = ishigami_indices();
  for (std::size_t i = 0; i < d; ++i) {
    const auto& S = s.first_order[i];
    const auto& ST = s.total_order[i];
    EXPECT_TRUE(S.ci.contains(t.S[i])) << "S" << i + 1 << " = " << S.value << " [" << S.ci.lower << ", " << S.ci.upper
                                       << "], analytic " << t.S[i];
    EXPECT_TRUE(ST.ci.contains(t.ST[i])) << "ST" << i + 1 << " = " << ST.value << " [" << ST.ci.lower << ", "
                                         << ST.ci.upper << "], analytic " << t.ST[i];
    // Not vacuous: these estimators' standard deviations at N = 2^14 are
    // ~ sqrt(Var(f_B(f_AB − f_A))/N)/V ≈ 0.01 (Monte Carlo rate), so a 99%
    // interval is about 5 of them wide; 0.08 would admit an error of a
    // quarter of S1.
    EXPECT_LT(S.ci.width(), 0.08) << "S" << i + 1;
    EXPECT_LT(ST.ci.width(), 0.08) << "ST" << i + 1;
  }
  // V against the closed form 13.8446 (Sobol' & Levitan 1999): an unbiased
  // variance of 2N values has relative SE sqrt((κ − 1)/(2N)) ≈ 0.0059 for the
  // Ishigami output (kurtosis κ ≈ 2.15); 5 SE.
  const double pi4 = std::pow(pi, 4);
  const double V = ishigami_a * ishigami_a / 8 + ishigami_b * pi4 / 5 + ishigami_b * ishigami_b * pi4 * pi4 / 18 + 0.5;
  EXPECT_NEAR(s.output_variance, V, 5 * 0.0059 * V);
}

TEST(SobolIndices, SecondOrderOfIshigamiConvergeToTheClosedForm) {
  // Saltelli 2002 estimator (analysis.hpp) on the Ishigami function: S13 =
  // V13/V = 0.2437, S12 = S23 = 0 (closed forms above). Measured at N = 2^14
  // on scrambled Sobol' bases (seeds 2002, 1, 2, 3): |ΔS13| ≤ 6.3e-4,
  // |S12|, |S23| ≤ 7.8e-4 — the QMC error; tolerance 0.005 (6× the largest).
  // The bootstrap treats the rows as independent, so its 99% intervals
  // (half-width ~0.025 here) are conservative; they must contain the truth.
  const std::size_t N = 1 << 14, d = 3;
  const SampleMatrix base = sobol_design(N, 2 * d, {true, 2002, false});
  const std::vector<Distribution> laws(3, Distribution::uniform(-pi, pi));
  const SampleMatrix x = map_to_distributions(saltelli_design(base, true), laws);
  std::vector<double> y(x.rows);
  for (std::size_t r = 0; r < x.rows; ++r) y[r] = ishigami(x.row(r));
  BootstrapOptions o;
  o.resamples = 500;
  o.level = 0.99;
  const SobolIndices s = sobol_indices(y, d, o, true);
  ASSERT_EQ(s.second_order.size(), d * d);
  const IshigamiIndices t = ishigami_indices();
  const double S13 = t.ST[2];  // V13 / V: x3 acts only through its pair with x1
  const double truth[3][3] = {{0, 0, S13}, {0, 0, 0}, {0, 0, 0}};
  for (std::size_t j = 0; j < d; ++j)
    for (std::size_t k = 0; k < d; ++k) {
      const IndexEstimate& e = s.second_order[j * d + k];
      if (k <= j) {
        EXPECT_TRUE(std::isnan(e.value)) << j << k;
        continue;
      }
      EXPECT_NEAR(e.value, truth[j][k], 0.005) << "S" << j + 1 << k + 1;
      EXPECT_TRUE(e.ci.contains(truth[j][k])) << "S" << j + 1 << k + 1 << " = " << e.value << " [" << e.ci.lower << ", "
                                              << e.ci.upper << "]";
    }
  // The first and total orders read the same A, B, A_B^(i) rows as in the
  // first-order layout, with the same resamples: identical to the bit.
  const SobolIndices plain = sobol_indices(ishigami_outputs(base), d, o);
  for (std::size_t i = 0; i < d; ++i) {
    EXPECT_EQ(s.first_order[i].value, plain.first_order[i].value);
    EXPECT_EQ(s.total_order[i].value, plain.total_order[i].value);
    EXPECT_EQ(s.first_order[i].ci.lower, plain.first_order[i].ci.lower);
    EXPECT_EQ(s.total_order[i].ci.upper, plain.total_order[i].ci.upper);
  }
  EXPECT_TRUE(plain.second_order.empty());
  // A block is 2d + 2 values; d = 1 has no pairs.
  EXPECT_THROW(sobol_indices(std::vector<double>(3 * (d + 2)), d, o, true), std::invalid_argument);
  EXPECT_THROW(sobol_indices(std::vector<double>(8), 1, o, true), std::invalid_argument);
}

TEST(SobolIndices, InputTheModelIgnoresGetsExactlyZero) {
  // f = 2x1 − x3 ignores x2: f(A) = f(A_B^(2)) in every block, so both
  // numerators for x2 vanish identically. For the additive part S_i = ST_i =
  // c_i²/Σc² (4/5, 1/5) within the 99% intervals.
  const std::size_t N = 4096, d = 3;
  const SampleMatrix x = saltelli_design(sobol_design(N, 2 * d, {true, 3, false}));
  std::vector<double> y(x.rows);
  for (std::size_t r = 0; r < x.rows; ++r) y[r] = 2 * x(r, 0) - x(r, 2);
  BootstrapOptions o;
  o.resamples = 500;
  o.level = 0.99;
  const SobolIndices s = sobol_indices(y, d, o);
  EXPECT_EQ(s.first_order[1].value, 0.0);
  EXPECT_EQ(s.total_order[1].value, 0.0);
  EXPECT_EQ(s.total_order[1].ci.upper, 0.0);
  const double truth[3] = {0.8, 0.0, 0.2};
  for (std::size_t i : {0u, 2u}) {
    EXPECT_TRUE(s.first_order[i].ci.contains(truth[i])) << i;
    EXPECT_TRUE(s.total_order[i].ci.contains(truth[i])) << i;
  }
}

TEST(SobolIndices, BaseRowsWithFailedInstancesAreDroppedWhole) {
  const std::size_t N = 1024, d = 3, block = d + 2;
  const std::vector<double> clean = ishigami_outputs(sobol_design(N, 2 * d, {true, 8, false}));
  std::vector<double> dirty = clean;
  dirty[3 * block + 0] = not_a_number;    // f(A) of base row 3
  dirty[10 * block + 2] = not_a_number;   // two failures in base row 10
  dirty[10 * block + 4] = not_a_number;
  dirty[500 * block + 1] = inf;  // non-finite is dropped too
  std::vector<double> kept;
  for (std::size_t r = 0; r < N; ++r)
    if (r != 3 && r != 10 && r != 500) kept.insert(kept.end(), clean.begin() + r * block, clean.begin() + (r + 1) * block);

  BootstrapOptions o;
  o.resamples = 200;
  const SobolIndices a = sobol_indices(dirty, d, o), b = sobol_indices(kept, d, o);
  EXPECT_EQ(a.base_rows, N);
  EXPECT_EQ(a.valid_rows, N - 3);
  EXPECT_EQ(a.dropped_rows, 3u);
  EXPECT_EQ(a.dropped, (std::vector<std::size_t>{3, 10, 500}));
  // Identical to analysing the surviving rows alone, bit for bit.
  EXPECT_EQ(a.output_variance, b.output_variance);
  for (std::size_t i = 0; i < d; ++i) {
    EXPECT_EQ(a.first_order[i].value, b.first_order[i].value);
    EXPECT_EQ(a.total_order[i].value, b.total_order[i].value);
    EXPECT_EQ(a.first_order[i].ci.lower, b.first_order[i].ci.lower);
    EXPECT_EQ(a.total_order[i].ci.upper, b.total_order[i].ci.upper);
    EXPECT_TRUE(std::isfinite(a.first_order[i].value));
  }
}

TEST(SobolIndices, RejectsMalformedInput) {
  EXPECT_THROW(sobol_indices(std::vector<double>(11, 1.0), 3), std::invalid_argument);
  EXPECT_THROW(sobol_indices(std::vector<double>(10, 1.0), 0), std::invalid_argument);
  const SobolIndices s = sobol_indices(std::vector<double>(5, not_a_number), 3);
  EXPECT_EQ(s.valid_rows, 0u);
  EXPECT_EQ(s.dropped_rows, 1u);
  EXPECT_TRUE(std::isnan(s.first_order[0].value));
}
