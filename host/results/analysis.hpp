// Statistics of study outputs: Monte Carlo summaries with bootstrap confidence
// intervals, failure probabilities with Wilson score intervals, and Sobol'
// sensitivity indices from a Saltelli design (host/design/sampling.hpp). Standard
// library only.
//
// Failed instances. A study writes NaN for an instance that did not finish
// (Newton failure, non-physical state). Every function here drops such
// outputs, says how many it dropped, and computes on the rest; it never lets a
// NaN into a mean. ±inf is dropped from moments and quantiles as well (no
// moment exists), but counts in a failure probability, where "y > limit" is
// still meaningful.
//
// Bootstrap. Percentile intervals (Efron & Tibshirani 1993, "An Introduction to
// the Bootstrap", ch. 13): B resamples of the valid data with replacement, the
// interval is the ((1−level)/2, (1+level)/2) quantiles (definition 7 below) of
// the B replicates. Resample b draws from stream (seed, bootstrap, b), so the
// intervals are a pure function of the data, B and the seed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace hs {

struct ConfidenceInterval {
  double lower = std::numeric_limits<double>::quiet_NaN();
  double upper = std::numeric_limits<double>::quiet_NaN();
  double level = std::numeric_limits<double>::quiet_NaN();  // e.g. 0.95
  bool contains(double v) const { return lower <= v && v <= upper; }
  double width() const { return upper - lower; }
};

struct BootstrapOptions {
  std::size_t resamples = 2000;  // Efron & Tibshirani (1993) advise >= 1000 for percentile intervals
  double level = 0.95;           // in (0, 1)
  std::uint64_t seed = 0x5EEDB007;
};

// Sample quantile, Hyndman & Fan (1996, "Sample quantiles in statistical
// packages", Am. Stat. 50, 361–365) definition 7 — the default of R, NumPy and
// Excel's PERCENTILE.INC: with h = (n−1)p on 0-based sorted data,
// Q(p) = x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]). Q(0) = min, Q(1) = max.
// `sorted` must be ascending and non-empty; p in [0, 1].
double quantile_sorted(const std::vector<double>& sorted, double p);

struct QuantileEstimate {
  double probability = 0.0;
  double value = std::numeric_limits<double>::quiet_NaN();
  ConfidenceInterval ci;
};

struct MonteCarloSummary {
  std::size_t count = 0;      // outputs given
  std::size_t valid = 0;      // finite outputs the statistics use
  std::size_t failed = 0;     // NaN: failed instances
  std::size_t infinite = 0;   // ±inf, excluded from the statistics
  double mean = std::numeric_limits<double>::quiet_NaN();
  double std_dev = std::numeric_limits<double>::quiet_NaN();  // unbiased variance (n − 1), square-rooted
  ConfidenceInterval mean_ci, std_dev_ci;
  std::vector<QuantileEstimate> quantiles;  // one per requested probability, same order
};

// Mean and standard deviation need valid >= 2 (std and every interval are NaN
// otherwise; the mean and quantiles need valid >= 1). probabilities in [0, 1].
MonteCarloSummary summarize_monte_carlo(const std::vector<double>& outputs,
                                        const std::vector<double>& probabilities = {0.05, 0.5, 0.95},
                                        const BootstrapOptions& options = {});

// Limit state g(y): the instance fails when y > limit (above) or y < limit (below).
enum class LimitState { above, below };

struct FailureProbability {
  std::size_t failures = 0;          // outputs violating the limit
  std::size_t valid = 0;             // non-NaN outputs (the trials)
  std::size_t failed_instances = 0;  // NaN outputs, excluded
  double estimate = std::numeric_limits<double>::quiet_NaN();  // failures / valid
  ConfidenceInterval ci;                                        // Wilson score interval
};

// Wilson (1927) score interval for a binomial proportion: the set of p whose
// score test is not rejected at `level`. Chosen over the exact Clopper–Pearson
// interval because it is closed-form, keeps close to nominal coverage (Brown,
// Cai & DasGupta 2001, Stat. Sci. 16, 101–133; Newcombe 1998, Stat. Med. 17,
// 857–872) and, unlike the Wald interval, is not degenerate at 0 failures — the
// usual case for a reliability study — where its upper end is z²/(n + z²).
ConfidenceInterval wilson_interval(std::size_t successes, std::size_t trials, double level = 0.95);
FailureProbability failure_probability(const std::vector<double>& outputs, double limit, LimitState state,
                                       double level = 0.95);

struct IndexEstimate {
  double value = std::numeric_limits<double>::quiet_NaN();
  ConfidenceInterval ci;
};

struct SobolIndices {
  std::size_t dimension = 0;
  std::size_t base_rows = 0;     // N: outputs.size() / block (d + 2, or 2d + 2 with second order)
  std::size_t valid_rows = 0;    // base rows used
  std::size_t dropped_rows = 0;  // base rows with a non-finite output in their block
  std::vector<std::size_t> dropped;  // their indices r (block r = outputs r·b .. r·b + b − 1, b the block size)
  double output_mean = std::numeric_limits<double>::quiet_NaN();      // pooled over f(A), f(B)
  double output_variance = std::numeric_limits<double>::quiet_NaN();  // V, pooled over f(A), f(B), unbiased
  std::vector<IndexEstimate> first_order;  // S_i
  std::vector<IndexEstimate> total_order;  // S_Ti
  // Second-order indices S_jk (designs with B_A^(i) rows): d x d row-major,
  // entry (j, k) for j < k; the diagonal and below are NaN (as SALib's S2).
  // Empty without second order.
  std::vector<IndexEstimate> second_order;
};

// Sobol' indices from outputs in the layout of saltelli_design (N blocks of
// d+2: f(A), f(B), f(A_B^(0)), …, f(A_B^(d−1))). Estimators of Saltelli et al.
// (2010), Table 2:
//   first order  S_i  = (1/N) Σ_r f(B)_r (f(A_B^(i))_r − f(A)_r) / V      (Saltelli 2010, eq. (b))
//   total        S_Ti = (1/2N) Σ_r (f(A)_r − f(A_B^(i))_r)² / V          (Jansen 1999, eq. (f))
// (Jansen 1999, "Analysis of variance designs for model output", Comput. Phys.
// Commun. 117, 35–43)
// with V the unbiased variance of the 2N pooled f(A) and f(B) values. Outputs
// are first centred at their pooled mean: the estimators' expectations do not
// change (up to O(1/N), the mean being estimated), but the raw first-order
// estimator carries a term f0·mean(f(A_B^(i)) − f(A)) whose noise grows with
// |f0| (Sobol' 2001, Math. Comput. Simul. 55, 271–280, recommends subtracting
// f0). A base row with any non-finite output
// in its block is dropped whole (both estimators pair values within a block).
// Bootstrap: resample the valid base rows; percentile intervals. valid_rows < 2
// leaves every value NaN.
// second_order: the outputs are in blocks of 2d + 2 (f(B_A^(i)) after the
// f(A_B^(i)), host/design/sampling.hpp) and the pairs' indices are estimated as
// Saltelli (2002), eq. (12) and Theorem 1, as SALib does:
//   V^c_jk = (1/N) Σ_r (f(B_A^(j))_r f(A_B^(k))_r − f(A)_r f(B)_r) / V  (closed index of {j, k})
//   S_jk   = V^c_jk − S_j − S_k
// (B_A^(j) and A_B^(k) share exactly x_j from A and x_k from B; the first
// orders as above). Their bootstrap uses the same resamples.
SobolIndices sobol_indices(const std::vector<double>& outputs, std::size_t d, const BootstrapOptions& options = {},
                           bool second_order = false);

// Statistics of a Saltelli design. Its A and B rows are 2N independent draws
// of the inputs, but each A_B^(i) row repeats its block's A row in all inputs
// but one, so its output is correlated with f(A) and is no new draw: a mean,
// quantile or failure probability over all N(d+2) rows would weight the A
// values d + 1 times and B once, and its bootstrap interval (which assumes
// independent rows) would be too narrow. A study's Monte Carlo statistics and
// failure probability therefore use the A and B rows only (role
// i % (d + 2) = saltelli_role_a or saltelli_role_b, host/design/sampling.hpp);
// sobol_indices uses every row. Returns f(A_r), f(B_r) of every block in row
// order (2N values, NaNs kept: the statistics count them as failed).
// outputs.size() must be a whole number of blocks (d + 2, or 2d + 2 with
// second_order; d >= 1).
std::vector<double> saltelli_independent_rows(const std::vector<double>& outputs, std::size_t d,
                                              bool second_order = false);

// The bootstrap seed of a study's analysis: the study's [sample] seed mixed
// with a constant so the resamples do not reuse the design's random streams
// (host/results/study_analysis.cpp analyse; a results file's intervals are reproduced from it).
constexpr std::uint64_t kStudyBootstrapSalt = 0x5EEDB007ULL;
constexpr std::uint64_t study_bootstrap_seed(std::uint64_t study_seed) { return study_seed ^ kStudyBootstrapSalt; }

}  // namespace hs
