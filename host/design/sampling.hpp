// Sampling for design-of-experiments and Monte Carlo studies: counter-based
// random streams, Latin hypercube and Sobol' designs on the unit cube, the
// marginal laws a study parameter can follow (inverse-CDF transforms), and the
// Saltelli design for variance-based sensitivity indices (host/results/analysis.hpp
// evaluates it). Standard library only.
//
// Reproducibility contract
//   * Every random number is a pure function of (seed, purpose, index): sample
//     i of a study is generated without generating samples 0..i-1, so a study
//     split into chunks, resumed, or run on any number of threads draws the
//     same sample. LHS is the one exception that needs the whole design: its
//     per-dimension permutations are drawn up front from the seed (n·d 32-bit
//     integers, cheap), after which point i is again available on its own.
//   * No std::*_distribution is used (their output is implementation-defined);
//     the generator (xoshiro256** seeded by splitmix64) and every transform
//     are written out here.
//   * Unit-cube designs use integer arithmetic and single, exactly rounded IEEE
//     operations only, so they are bit-identical on every platform. Mapped
//     parameter values go through std::erfc/std::exp/std::log, which are not
//     correctly rounded by every libm, and GCC contracts a*b+c to an FMA under
//     -march=native; they are bit-identical for a given build and agree to a few
//     ulps across platforms.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

// ---------------------------------------------------------------------------
// Random streams
// ---------------------------------------------------------------------------

// splitmix64 output function (Steele, Lea & Flood 2014, "Fast splittable
// pseudorandom number generators", OOPSLA; constants of Stafford's "Mix13").
// A bijection of 64-bit words with full avalanche: the building block for
// hashing (seed, purpose, index) into independent stream keys.
std::uint64_t mix64(std::uint64_t z);

// Domain separation: the same user seed feeds several unrelated streams (the
// LHS permutations must not be the Monte Carlo draws of the same seed).
enum class StreamPurpose : std::uint64_t {
  monte_carlo = 1,      // index = sample (row) index
  lhs_permutation = 2,  // index = dimension
  lhs_jitter = 3,       // index = sample (row) index
  sobol_scramble = 4,   // index = dimension
  bootstrap = 5,        // index = bootstrap resample
  user = 1000,          // first value free for callers
};

// 64-bit key of stream (seed, purpose, index).
std::uint64_t stream_key(std::uint64_t seed, StreamPurpose purpose, std::uint64_t index);

// xoshiro256** (Blackman & Vigna 2021, "Scrambled linear pseudorandom number
// generators", ACM TOMS 47(4)), state filled from splitmix64 as its authors
// recommend. Period 2^256 − 1; one stream per (seed, purpose, index).
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, StreamPurpose purpose, std::uint64_t index);
  std::uint64_t next_u64();
  // 52 random bits centred in their 2^-52 cell: (k + 1/2)·2^-52, so the value
  // lies in [2^-53, 1 − 2^-53], exactly representable, never 0 or 1 (inverse
  // CDFs of unbounded laws stay finite).
  double next_uniform();
  // Uniform integer in [0, n), n >= 1, without modulo bias: rejection below
  // 2^64 mod n (the arc4random_uniform scheme), platform-independent.
  std::uint64_t next_below(std::uint64_t n);

 private:
  std::array<std::uint64_t, 4> s_;
};

// ---------------------------------------------------------------------------
// Designs on the unit cube
// ---------------------------------------------------------------------------

// n × d points, row-major: point i is values[i*cols .. i*cols + cols).
struct SampleMatrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;

  SampleMatrix() = default;
  SampleMatrix(std::size_t n, std::size_t d) : rows(n), cols(d), values(n * d, 0.0) {}
  double& operator()(std::size_t i, std::size_t j) { return values[i * cols + j]; }
  double operator()(std::size_t i, std::size_t j) const { return values[i * cols + j]; }
  double* row(std::size_t i) { return values.data() + i * cols; }
  const double* row(std::size_t i) const { return values.data() + i * cols; }
};

// Monte Carlo: coordinate j of point `index` is the j-th draw of stream
// (seed, monte_carlo, index); values in (0, 1) as RandomStream::next_uniform.
void monte_carlo_unit_point(std::uint64_t seed, std::uint64_t index, std::size_t dimension, double* out);
// Points first_index .. first_index + n − 1.
SampleMatrix monte_carlo_unit(std::size_t n, std::size_t dimension, std::uint64_t seed, std::uint64_t first_index = 0);

// Latin hypercube (McKay, Beckman & Conover 1979): in every dimension the n
// strata [k/n, (k+1)/n) hold exactly one point each; dimension j uses an
// independent uniformly random permutation (Fisher–Yates, stream
// (seed, lhs_permutation, j)) and a uniformly random position inside the
// stratum (stream (seed, lhs_jitter, i)). Points are in [0, 1) and floor(n·x)
// equals the stratum index exactly in floating point.
class LatinHypercube {
 public:
  LatinHypercube(std::size_t n, std::size_t dimension, std::uint64_t seed);  // n in [1, 2^32)
  std::size_t size() const { return n_; }
  std::size_t dimension() const { return d_; }
  // Stratum of point i in dimension j.
  std::size_t stratum(std::size_t i, std::size_t j) const { return strata_[j * n_ + i]; }
  void point(std::size_t i, double* out) const;
  SampleMatrix design() const;

 private:
  std::size_t n_, d_;
  std::uint64_t seed_;
  std::vector<std::uint32_t> strata_;  // d blocks of n: permutation of 0..n−1 per dimension
};
SampleMatrix latin_hypercube(std::size_t n, std::size_t dimension, std::uint64_t seed);

// The Joe & Kuo (2008) initialisation of Sobol' dimension `dimension` (1-based,
// 2..sobol_max_dimension; dimension 1 is the van der Corput sequence and has
// no entry): primitive polynomial of degree `degree` with interior
// coefficients `a` (bit s−1−k of a is a_k, Joe & Kuo's encoding), and the odd
// initial direction integers m_1..m_degree, m_k < 2^k.
struct JoeKuoEntry {
  unsigned degree;
  unsigned a;
  const std::uint16_t* m;  // degree values
};
constexpr std::size_t sobol_max_dimension = 481;
JoeKuoEntry joe_kuo_entry(std::size_t dimension);

// Sobol' sequence (Sobol' 1967, USSR Comput. Math. Math. Phys. 7(4), 86–112)
// with the direction numbers of Joe & Kuo 2008
// ("new-joe-kuo-6.21201"), 32-bit, points in Gray-code order exactly as Joe &
// Kuo's sobol.cc generates them: index 0 is the origin, index 1 is
// (0.5, …, 0.5), index 2 is (0.75, 0.25, …). Point i is built directly from
// the bits of gray(i) = i ^ (i >> 1), so any index < 2^32 costs O(d·32).
//
// Scrambling (scramble = true): Owen's nested uniform scrambling in base 2
// (Owen 1995, "Randomly permuted (t,m,s)-nets and (t,s)-sequences", Lecture
// Notes in Statistics 106, 299–317): digit k+1 of
// a coordinate is flipped by a random bit attached to the node of the binary
// tree named by the k preceding (unscrambled) digits, independently for each
// node and dimension. The node bits come from a counter-based hash of
// (seed, dimension, node), so a scrambled point is again a pure function of its
// index. The 32 scrambled digits are followed by 21 random digits attached to
// the depth-32 node (the scrambled point is uniform inside its 2^-32 cell, as
// Owen's infinite-digit scramble makes it). Nested scrambling keeps every
// (t,m,s)-net property of the sequence and makes each point uniform on [0,1)^d.
class SobolSequence {
 public:
  SobolSequence(std::size_t dimension, bool scramble = false, std::uint64_t seed = 0);
  std::size_t dimension() const { return d_; }
  bool scrambled() const { return scramble_; }
  // index < 2^32.
  void point(std::uint64_t index, double* out) const;
  // Raw 32-bit digits of the unscrambled point (x = digits · 2^-32).
  std::uint32_t digits(std::uint64_t index, std::size_t j) const;
  SampleMatrix points(std::uint64_t first_index, std::size_t count) const;

 private:
  std::size_t d_;
  bool scramble_;
  std::vector<std::uint32_t> v_;             // d blocks of 32 direction numbers V_k · 2^32
  std::vector<std::uint64_t> scramble_key_;  // per dimension
};

struct SobolOptions {
  bool scramble = false;
  std::uint64_t seed = 0;
  // Start at index 1 instead of the origin. Useful for the unscrambled
  // sequence when the origin would map to −inf under an unbounded law; note
  // that the first 2^m points, not points 1..2^m, form the balanced net, and
  // that Owen (2022, "On dropping the first Sobol' point") recommends
  // scrambling instead.
  bool skip_first = false;
};
SampleMatrix sobol_design(std::size_t n, std::size_t dimension, const SobolOptions& options = {});

// ---------------------------------------------------------------------------
// Marginal laws of a study parameter
// ---------------------------------------------------------------------------

enum class DistributionKind { uniform, normal, truncated_normal, lognormal };

// kind and params, by kind:
//   uniform           {min, max}                 min < max, both finite
//   normal            {mean, std}                std > 0
//   truncated_normal  {mean, std, lo, hi}        the normal law conditioned on
//                                                [lo, hi]; std > 0, lo < hi, either
//                                                bound may be infinite; the interval
//                                                must carry probability mass
//                                                > 1e-300 (within ~37 std of mean)
//   lognormal         {median, sigma_log}        ln X ~ normal(ln median, sigma_log):
//                                                the median is in the parameter's
//                                                own unit and sigma_log is the
//                                                spread of ln X (≈ the coefficient
//                                                of variation when small);
//                                                mu = ln median. median > 0,
//                                                sigma_log > 0.
// Unused params are 0.
struct Distribution {
  DistributionKind kind = DistributionKind::uniform;
  std::array<double, 4> params{0.0, 1.0, 0.0, 0.0};

  static Distribution uniform(double min, double max);
  static Distribution normal(double mean, double std);
  static Distribution truncated_normal(double mean, double std, double lo, double hi);
  static Distribution lognormal(double median, double sigma_log);

  // Inverse CDF for u in [0, 1]; u = 0 and u = 1 give the ends of the support
  // (±inf for unbounded laws). NaN for an invalid law or u outside [0, 1].
  double quantile(double u) const;
  double cdf(double x) const;
  // Closed forms.
  double mean() const;
  double variance() const;
  // Empty if the parameters are admissible, else one sentence naming the
  // offending parameter, its value and what is allowed, e.g.
  // "std = -1 is not allowed (allowed: finite std > 0)".
  std::string validate() const;
  // "normal(mean=1, std=0.1)".
  std::string describe() const;
};

// "uniform", "normal", "truncated-normal", "lognormal" (the study-file spelling).
const char* distribution_kind_name(DistributionKind kind);
// False if the name is not one of the above.
bool distribution_kind_from_name(const std::string& name, DistributionKind& out);

// Standard normal law: Φ via std::erfc (accurate in both tails when the tail
// side is chosen: Φ(x) = erfc(−x/√2)/2 has no cancellation for x < 0, the
// complement Q(x) = erfc(x/√2)/2 none for x > 0).
double normal_pdf(double z);
double normal_cdf(double z);
double normal_ccdf(double z);  // 1 − Φ(z) without cancellation
// Φ^-1(p): Acklam's rational approximation (relative error < 1.15e-9) refined
// by one Halley step on erfc (error then at the level of erfc's own rounding);
// p > 1/2 is reflected so that 1 − p is formed exactly (Sterbenz).
double normal_quantile(double p);
// Φ^-1(1 − q) for small q without forming 1 − q.
double normal_quantile_upper(double q);

// Column j of `unit` mapped through marginals[j].quantile. Throws
// std::invalid_argument if the sizes differ, a law is invalid, or a mapped
// value is not finite (e.g. u = 0 of the unscrambled Sobol' origin under an
// unbounded law: use skip_first or scrambling).
SampleMatrix map_to_distributions(const SampleMatrix& unit, const std::vector<Distribution>& marginals);
void map_point(const std::vector<Distribution>& marginals, const double* unit, double* out);

// Monte Carlo sample of the parameters: monte_carlo_unit mapped by the laws.
SampleMatrix monte_carlo(const std::vector<Distribution>& marginals, std::size_t n, std::uint64_t seed,
                         std::uint64_t first_index = 0);

// ---------------------------------------------------------------------------
// Saltelli design (Saltelli et al. 2010, "Variance based sensitivity analysis
// of model output. Design and estimator for the total sensitivity index",
// Comput. Phys. Commun. 181, 259–270)
// ---------------------------------------------------------------------------
//
// A base design of N points in [0,1)^(2d) (Sobol' of dimension 2d, as Saltelli
// 2010 prescribe, or Monte Carlo) is split into A = columns 0..d−1 and
// B = columns d..2d−1. The design has N(d+2) rows in N consecutive blocks,
// one per base row r:
//     row r(d+2) + 0      A_r
//     row r(d+2) + 1      B_r
//     row r(d+2) + 2 + i  A_B^(i)_r: A_r with column i taken from B_r  (i = 0..d−1)
// so a failed instance only spoils its own block and any row can be built from
// its base point alone. sobol_indices() in host/results/analysis.hpp reads this layout.
// With second-order indices (Saltelli 2002, "Making best use of model
// evaluations to compute sensitivity indices", Comput. Phys. Commun. 145,
// 280–297) each block has 2d + 2 rows: the d + 2 above, then
//     row r(2d+2) + d + 2 + i  B_A^(i)_r: B_r with column i taken from A_r
// (SALib's calc_second_order layout, with B moved second).
enum : std::size_t { saltelli_role_a = 0, saltelli_role_b = 1, saltelli_role_ab0 = 2 };
inline std::size_t saltelli_block_size(std::size_t d, bool second_order = false) {
  return second_order ? 2 * d + 2 : d + 2;
}
// The role of B_A^(0): B_A^(i) is role saltelli_role_ba0(d) + i.
inline std::size_t saltelli_role_ba0(std::size_t d) { return d + 2; }
// Row of role `role` (0 = A, 1 = B, 2 + i = A_B^(i), d + 2 + i = B_A^(i) when
// second_order) from one base point of 2d values.
void saltelli_point(const double* base_point, std::size_t d, std::size_t role, double* out, bool second_order = false);
// base: N × 2d. Result: N·saltelli_block_size(d, second_order) × d.
SampleMatrix saltelli_design(const SampleMatrix& base, bool second_order = false);

}  // namespace hs
