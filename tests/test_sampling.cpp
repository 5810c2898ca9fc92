// host/sampling: random streams, Latin hypercube, Sobol' (Joe & Kuo 2008
// direction numbers, Owen scrambling), marginal laws, Saltelli design.
//
// Statistical checks use a fixed seed but tolerances of 5 standard errors
// (two-sided probability 6e-7 under the null), so they hold for essentially
// any seed and fail for a wrong law or a wrong moment formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "host/design/sampling.hpp"

using namespace hs;

namespace {
constexpr double eps = std::numeric_limits<double>::epsilon();
constexpr double pi = 3.14159265358979323846;

// Sample mean, unbiased variance and fourth central moment.
struct Moments {
  double mean = 0, var = 0, m4 = 0;
  std::size_t n = 0;
};
Moments moments(const std::vector<double>& x) {
  Moments m;
  m.n = x.size();
  for (double v : x) m.mean += v;
  m.mean /= static_cast<double>(m.n);
  double s2 = 0, s4 = 0;
  for (double v : x) {
    const double d = v - m.mean;
    s2 += d * d;
    s4 += d * d * d * d;
  }
  m.var = s2 / static_cast<double>(m.n - 1);
  m.m4 = s4 / static_cast<double>(m.n);
  return m;
}

// Mean and variance of x against expected values within 5 standard errors:
// SE(mean) = sqrt(var/n) (CLT); SE(sample variance) = sqrt((μ4 − σ⁴)/n) (delta
// method), with μ4 estimated from the sample itself.
void expect_moments_within_5_se(const std::vector<double>& x, double mean, double var, const std::string& what) {
  const Moments m = moments(x);
  const double n = static_cast<double>(m.n);
  EXPECT_NEAR(m.mean, mean, 5.0 * std::sqrt(var / n)) << what;
  EXPECT_NEAR(m.var, var, 5.0 * std::sqrt(std::max(m.m4 - m.var * m.var, 0.0) / n)) << what;
}

// Rows of new-joe-kuo-6.21201 as printed in the file (d, s, a, m_1..m_s),
// typed from the published table for an independent check of the embedded
// copy and for hand computation of points.
struct PublishedRow {
  std::size_t d;
  unsigned s, a;
  std::vector<std::uint32_t> m;
};
const std::vector<PublishedRow>& published_rows() {
  static const std::vector<PublishedRow> rows = {
      {2, 1, 0, {1}},
      {3, 2, 1, {1, 3}},
      {4, 3, 1, {1, 3, 1}},
      {7, 4, 4, {1, 3, 5, 13}},
      {10, 5, 7, {1, 1, 7, 11, 19}},
      {20, 7, 1, {1, 3, 7, 11, 23, 15, 103}},
      {21, 7, 4, {1, 3, 7, 13, 13, 15, 69}},
      {50, 8, 97, {1, 1, 1, 3, 23, 43, 57, 177}},
      {100, 9, 244, {1, 1, 5, 5, 11, 5, 45, 117, 217}},
      {200, 11, 227, {1, 3, 1, 3, 29, 25, 21, 155, 11, 191, 197}},
      {300, 11, 789, {1, 1, 7, 15, 1, 33, 31, 233, 161, 507, 387}},
  };
  return rows;
}

// Direction integers m_1..m_K of a published row by the recurrence of Bratley &
// Fox (1988) in the integer form of Joe & Kuo's notes (eq. for m_k):
// m_k = 2a_1 m_{k−1} ⊕ 2²a_2 m_{k−2} ⊕ … ⊕ 2^{s−1}a_{s−1} m_{k−s+1} ⊕ 2^s m_{k−s} ⊕ m_{k−s}.
// (The implementation uses the shifted form V_k = m_k 2^{32−k}; this is the other one.)
std::vector<std::uint64_t> direction_integers(const PublishedRow& row, unsigned K) {
  std::vector<std::uint64_t> m(K + 1, 0);
  for (unsigned k = 1; k <= row.s && k <= K; ++k) m[k] = row.m[k - 1];
  for (unsigned k = row.s + 1; k <= K; ++k) {
    std::uint64_t x = (m[k - row.s] << row.s) ^ m[k - row.s];
    for (unsigned l = 1; l < row.s; ++l)
      if ((row.a >> (row.s - 1 - l)) & 1u) x ^= m[k - l] << l;
    m[k] = x;
  }
  return m;
}

// Euler's totient, for the number of primitive polynomials of degree s over
// GF(2): φ(2^s − 1)/s (Lidl & Niederreiter, "Finite Fields", ch. 3).
std::uint64_t totient(std::uint64_t n) {
  std::uint64_t r = n;
  for (std::uint64_t p = 2; p * p <= n; ++p) {
    if (n % p) continue;
    while (n % p == 0) n /= p;
    r -= r / p;
  }
  if (n > 1) r -= r / n;
  return r;
}

// x^e mod poly over GF(2); poly of degree s includes its x^s and 1 terms.
std::uint64_t gf2_pow_x(std::uint64_t e, std::uint64_t poly, unsigned s) {
  auto mulmod = [&](std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    while (b) {
      if (b & 1) r ^= a;
      b >>= 1;
      a <<= 1;
      if ((a >> s) & 1) a ^= poly;
    }
    return r;
  };
  std::uint64_t result = 1, base = s == 1 ? 1 : 2;  // x mod (x + 1) = 1
  while (e) {
    if (e & 1) result = mulmod(result, base);
    base = mulmod(base, base);
    e >>= 1;
  }
  return result;
}

// Primitive: the order of x modulo poly is 2^s − 1 (x^(2^s−1) = 1 and
// x^((2^s−1)/q) ≠ 1 for every prime q dividing 2^s − 1).
bool is_primitive(std::uint64_t poly, unsigned s) {
  const std::uint64_t order = (std::uint64_t{1} << s) - 1;
  if (gf2_pow_x(order, poly, s) != 1) return false;
  std::uint64_t n = order;
  for (std::uint64_t q = 2; q * q <= n; ++q) {
    if (n % q) continue;
    while (n % q == 0) n /= q;
    if (gf2_pow_x(order / q, poly, s) == 1) return false;
  }
  return n == 1 || gf2_pow_x(order / n, poly, s) != 1;
}

// In dimension j of the first 2^m points, every dyadic interval
// [c 2^-k, (c+1) 2^-k), k = 0..m, holds exactly 2^(m−k) points: the 1-D
// projection is a (0, m, 1)-net in base 2.
void expect_dyadic_balance(const SampleMatrix& pts, unsigned m, const std::string& what) {
  ASSERT_EQ(pts.rows, std::size_t{1} << m);
  for (std::size_t j = 0; j < pts.cols; ++j) {
    for (unsigned k = 0; k <= m; ++k) {
      std::vector<std::size_t> count(std::size_t{1} << k, 0);
      for (std::size_t i = 0; i < pts.rows; ++i) {
        const double x = pts(i, j);
        ASSERT_TRUE(x >= 0.0 && x < 1.0) << what << " dim " << j + 1 << " point " << i;
        ++count[static_cast<std::size_t>(std::ldexp(x, static_cast<int>(k)))];
      }
      for (std::size_t c = 0; c < count.size(); ++c)
        ASSERT_EQ(count[c], std::size_t{1} << (m - k)) << what << ": dim " << j + 1 << ", interval " << c << "/2^" << k;
    }
  }
}
}  // namespace

// ---------------------------------------------------------------------------
// Random streams
// ---------------------------------------------------------------------------

TEST(RandomStream, Mix64IsSplitmix64) {
  // Outputs 1..3 of the splitmix64 reference generator seeded with 0
  // (Steele, Lea & Flood 2014; Vigna's splitmix64.c): mix64(k·0x9E3779B97F4A7C15).
  EXPECT_EQ(mix64(0x9E3779B97F4A7C15ull), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(mix64(0x3C6EF372FE94F82Aull), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(mix64(0xDAA66D2C7DDF743Full), 0x06C45D188009454Full);
}

TEST(RandomStream, StreamsAreReproducibleAndDistinct) {
  RandomStream a(42, StreamPurpose::monte_carlo, 7), b(42, StreamPurpose::monte_carlo, 7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next_u64(), b.next_u64());
  // Neighbouring seeds, indices and purposes give different streams.
  std::set<std::uint64_t> first;
  for (std::uint64_t seed : {0ull, 1ull, 2ull})
    for (StreamPurpose p : {StreamPurpose::monte_carlo, StreamPurpose::lhs_jitter, StreamPurpose::bootstrap})
      for (std::uint64_t idx : {0ull, 1ull, 2ull}) first.insert(RandomStream(seed, p, idx).next_u64());
  EXPECT_EQ(first.size(), 27u);
}

TEST(RandomStream, UniformDrawsAreInsideTheOpenIntervalWithUniformMoments) {
  std::vector<double> x(1'000'000);
  RandomStream rng(2024, StreamPurpose::user, 0);
  for (double& v : x) {
    v = rng.next_uniform();
    ASSERT_TRUE(v > 0.0 && v < 1.0);
  }
  expect_moments_within_5_se(x, 0.5, 1.0 / 12.0, "U(0,1)");
}

TEST(RandomStream, NextBelowIsUnbiased) {
  // n = 7 does not divide 2^64: a plain modulo would still pass at this
  // sample size, but an off-by-one range (never 6, or 7 appearing) cannot.
  const std::uint64_t n = 7;
  const std::size_t draws = 700'000;
  std::vector<std::size_t> count(n, 0);
  RandomStream rng(5, StreamPurpose::user, 1);
  for (std::size_t i = 0; i < draws; ++i) {
    const std::uint64_t k = rng.next_below(n);
    ASSERT_LT(k, n);
    ++count[k];
  }
  // Each cell is Binomial(draws, 1/7): 5 standard errors.
  const double p = 1.0 / 7.0, expected = draws * p, se = std::sqrt(draws * p * (1 - p));
  for (std::size_t k = 0; k < n; ++k) EXPECT_NEAR(static_cast<double>(count[k]), expected, 5 * se) << k;
  EXPECT_EQ(rng.next_below(1), 0u);
}

// ---------------------------------------------------------------------------
// Monte Carlo design
// ---------------------------------------------------------------------------

TEST(MonteCarloDesign, PointsDoNotDependOnChunking) {
  const SampleMatrix all = monte_carlo_unit(100, 4, 99);
  const SampleMatrix tail = monte_carlo_unit(50, 4, 99, 50);
  for (std::size_t i = 0; i < 50; ++i)
    for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(tail(i, j), all(50 + i, j));
  double single[4];
  monte_carlo_unit_point(99, 73, 4, single);
  for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(single[j], all(73, j));
  EXPECT_NE(monte_carlo_unit(1, 4, 100)(0, 0), all(0, 0));
}

TEST(MonteCarloDesign, MappedSampleIsTheQuantileOfTheUnitSample) {
  const std::vector<Distribution> laws = {Distribution::uniform(1, 3), Distribution::normal(0, 2),
                                          Distribution::lognormal(5, 0.2)};
  const SampleMatrix unit = monte_carlo_unit(20, 3, 7, 1000);
  const SampleMatrix mapped = monte_carlo(laws, 20, 7, 1000);
  for (std::size_t i = 0; i < 20; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(mapped(i, j), laws[j].quantile(unit(i, j)));
}

// ---------------------------------------------------------------------------
// Latin hypercube
// ---------------------------------------------------------------------------

TEST(LatinHypercube, EveryStratumHoldsExactlyOnePointInEveryDimension) {
  for (auto [n, d] : std::vector<std::pair<std::size_t, std::size_t>>{
           {1, 1}, {2, 3}, {7, 5}, {64, 10}, {1000, 4}, {4096, 2}, {100003, 1}}) {
    const SampleMatrix x = latin_hypercube(n, d, 17);
    ASSERT_EQ(x.rows, n);
    ASSERT_EQ(x.cols, d);
    for (std::size_t j = 0; j < d; ++j) {
      std::vector<int> hits(n, 0);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(x(i, j) >= 0.0 && x(i, j) < 1.0);
        ++hits[static_cast<std::size_t>(x(i, j) * static_cast<double>(n))];
      }
      EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; })) << "n=" << n << " dim " << j;
    }
  }
}

TEST(LatinHypercube, SeedDeterminesTheDesign) {
  const SampleMatrix a = latin_hypercube(50, 3, 1), b = latin_hypercube(50, 3, 1), c = latin_hypercube(50, 3, 2);
  EXPECT_EQ(a.values, b.values);
  std::size_t same = 0;
  for (std::size_t k = 0; k < a.values.size(); ++k) same += a.values[k] == c.values[k];
  EXPECT_EQ(same, 0u);
}

TEST(LatinHypercube, PointIIsAvailableOnItsOwn) {
  const LatinHypercube lhs(200, 6, 3);
  const SampleMatrix all = lhs.design();
  double p[6];
  for (std::size_t i : {0u, 57u, 199u}) {
    lhs.point(i, p);
    for (std::size_t j = 0; j < 6; ++j) {
      EXPECT_EQ(p[j], all(i, j));
      EXPECT_EQ(static_cast<std::size_t>(p[j] * 200.0), lhs.stratum(i, j));
    }
  }
  EXPECT_THROW(lhs.point(200, p), std::out_of_range);
  EXPECT_THROW(LatinHypercube(0, 2, 1), std::invalid_argument);
}

TEST(LatinHypercube, PositionsAndPermutationsAreRandom) {
  // Within-stratum offsets n·x − k are U(0,1) (not stratum midpoints), and the
  // permutations of two dimensions are independent: their rank correlation has
  // mean 0 and standard deviation 1/sqrt(n − 1) (exact for random permutations).
  const std::size_t n = 20000, d = 4;
  const LatinHypercube lhs(n, d, 11);
  const SampleMatrix x = lhs.design();
  std::vector<double> offsets;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) offsets.push_back(x(i, j) * n - static_cast<double>(lhs.stratum(i, j)));
  expect_moments_within_5_se(offsets, 0.5, 1.0 / 12.0, "LHS offsets");
  for (std::size_t j = 1; j < d; ++j) {
    double sum = 0;
    const double mid = (n - 1) / 2.0;
    for (std::size_t i = 0; i < n; ++i) sum += (lhs.stratum(i, 0) - mid) * (lhs.stratum(i, j) - mid);
    const double rho = sum / (static_cast<double>(n) * (static_cast<double>(n) * n - 1) / 12.0);
    EXPECT_NEAR(rho, 0.0, 5.0 / std::sqrt(n - 1.0)) << "dims 1 and " << j + 1;
  }
}

// ---------------------------------------------------------------------------
// Sobol'
// ---------------------------------------------------------------------------

TEST(Sobol, EmbeddedTableMatchesPublishedRows) {
  for (const auto& row : published_rows()) {
    const JoeKuoEntry e = joe_kuo_entry(row.d);
    EXPECT_EQ(e.degree, row.s) << "d=" << row.d;
    EXPECT_EQ(e.a, row.a) << "d=" << row.d;
    for (unsigned k = 0; k < row.s; ++k) EXPECT_EQ(e.m[k], row.m[k]) << "d=" << row.d << " m_" << k + 1;
  }
  EXPECT_THROW(joe_kuo_entry(1), std::out_of_range);
  EXPECT_THROW(joe_kuo_entry(sobol_max_dimension + 1), std::out_of_range);
}

TEST(Sobol, EmbeddedTableIsStructurallySound) {
  // Joe & Kuo take the primitive polynomials in increasing order of degree and,
  // within a degree, of their coefficient bits; each degree s contributes
  // φ(2^s − 1)/s of them. m_k must be odd and below 2^k. A transcription error
  // in a, s or m almost surely breaks one of these.
  std::vector<std::size_t> per_degree(13, 0);
  std::uint64_t previous_poly = 0;
  for (std::size_t d = 2; d <= sobol_max_dimension; ++d) {
    const JoeKuoEntry e = joe_kuo_entry(d);
    ASSERT_GE(e.degree, 1u);
    ASSERT_LE(e.degree, 12u);
    const std::uint64_t poly = (std::uint64_t{1} << e.degree) | (std::uint64_t{e.a} << 1) | 1u;
    ASSERT_LT(e.a, 1u << (e.degree > 0 ? e.degree - 1 : 0)) << "d=" << d;
    EXPECT_TRUE(is_primitive(poly, e.degree)) << "d=" << d;
    EXPECT_GT(poly, previous_poly) << "d=" << d;
    previous_poly = poly;
    ++per_degree[e.degree];
    for (unsigned k = 1; k <= e.degree; ++k) {
      EXPECT_EQ(e.m[k - 1] % 2, 1u) << "d=" << d << " m_" << k;
      EXPECT_LT(e.m[k - 1], 1u << k) << "d=" << d << " m_" << k;
    }
  }
  for (unsigned s = 1; s <= 12; ++s) EXPECT_EQ(per_degree[s], totient((1u << s) - 1) / s) << "degree " << s;
}

TEST(Sobol, FirstPointsAreThePublishedOnes) {
  // The first eight points of the 3-D sequence as printed by Joe & Kuo's
  // sobol.cc (and scipy.stats.qmc.Sobol(3, scramble=False)).
  const double expected[8][3] = {{0, 0, 0},           {0.5, 0.5, 0.5},     {0.75, 0.25, 0.25},   {0.25, 0.75, 0.75},
                                  {0.375, 0.375, 0.625}, {0.875, 0.875, 0.125}, {0.625, 0.125, 0.875}, {0.125, 0.625, 0.375}};
  const SampleMatrix x = sobol_design(8, 3);
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(x(i, j), expected[i][j]) << "point " << i << " dim " << j + 1;
}

TEST(Sobol, PointsMatchHandComputationFromPublishedDirectionIntegers) {
  // sobol.cc's recursion X_i = X_{i−1} ⊕ m_c 2^{K−c}, c = 1 + position of the
  // lowest zero bit of i − 1, on direction integers from the integer-form
  // recurrence: a different path from the implementation's direct Gray-code
  // construction with shifted direction numbers. Exact in doubles (dyadic).
  const unsigned K = 20;
  const std::size_t count = std::size_t{1} << 14;
  std::vector<PublishedRow> rows = published_rows();
  rows.insert(rows.begin(), PublishedRow{1, 0, 0, {}});  // dimension 1: m_k = 1 for all k
  std::vector<std::vector<std::uint64_t>> m;
  for (const auto& row : rows)
    m.push_back(row.d == 1 ? std::vector<std::uint64_t>(K + 1, 1) : direction_integers(row, K));
  std::vector<std::uint64_t> X(rows.size(), 0);
  const SobolSequence seq(301);
  std::vector<double> p(301);
  for (std::size_t i = 0; i < count; ++i) {
    unsigned c = 1;
    if (i > 0)
      for (std::size_t v = i - 1; v & 1; v >>= 1) ++c;
    seq.point(i, p.data());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (i > 0) X[r] ^= m[r][c] << (K - c);
      ASSERT_EQ(p[rows[r].d - 1], std::ldexp(static_cast<double>(X[r]), -static_cast<int>(K)))
          << "dimension " << rows[r].d << ", index " << i;
    }
  }
}

TEST(Sobol, PointAtIndexTwoToTheKMinusOneIsOneDirectionNumber) {
  // gray(2^k − 1) = 2^(k−1): that point is v_k = m_k / 2^k alone, read straight
  // off the published table.
  SobolSequence seq(301);
  std::vector<double> p(301);
  for (const auto& row : published_rows()) {
    for (unsigned k = 1; k <= row.s; ++k) {
      seq.point((std::uint64_t{1} << k) - 1, p.data());
      EXPECT_EQ(p[row.d - 1], std::ldexp(static_cast<double>(row.m[k - 1]), -static_cast<int>(k)))
          << "dimension " << row.d << ", k = " << k;
    }
  }
}

TEST(Sobol, EveryDyadicIntervalHoldsItsShareInEveryDimension) {
  // All 481 dimensions at m = 10, the first 8 dimensions up to m = 16; the
  // scrambled sequence must keep the property (Owen 1995).
  expect_dyadic_balance(sobol_design(1024, sobol_max_dimension), 10, "unscrambled");
  expect_dyadic_balance(sobol_design(1 << 16, 8), 16, "unscrambled");
  const SobolOptions scrambled{true, 12345, false};
  expect_dyadic_balance(sobol_design(1024, sobol_max_dimension, scrambled), 10, "scrambled");
  expect_dyadic_balance(sobol_design(1 << 16, 8, scrambled), 16, "scrambled");
}

TEST(Sobol, FirstTwoDimensionsFormAZeroMTwoNet) {
  // Dimensions 1 and 2 form a (0,2)-sequence (Sobol' 1967): the first 2^m
  // points put exactly one point in every elementary box
  // [a 2^-k1, (a+1) 2^-k1) × [b 2^-k2, (b+1) 2^-k2), k1 + k2 = m.
  const unsigned m = 12;
  for (bool scramble : {false, true}) {
    const SampleMatrix x = sobol_design(1u << m, 2, {scramble, 77, false});
    for (unsigned k1 = 0; k1 <= m; ++k1) {
      std::set<std::pair<std::uint64_t, std::uint64_t>> boxes;
      for (std::size_t i = 0; i < x.rows; ++i)
        boxes.insert({static_cast<std::uint64_t>(std::ldexp(x(i, 0), static_cast<int>(k1))),
                      static_cast<std::uint64_t>(std::ldexp(x(i, 1), static_cast<int>(m - k1)))});
      EXPECT_EQ(boxes.size(), x.rows) << "k1 = " << k1 << (scramble ? " scrambled" : "");
    }
  }
}

TEST(Sobol, ScramblingIsSeededAndUniform) {
  const SampleMatrix a = sobol_design(256, 5, {true, 1, false});
  const SampleMatrix b = sobol_design(256, 5, {true, 1, false});
  const SampleMatrix c = sobol_design(256, 5, {true, 2, false});
  EXPECT_EQ(a.values, b.values);
  EXPECT_NE(a.values, c.values);
  // Under Owen scrambling each point is U(0,1)^d over the seeds: check the
  // origin's image and point 5 in two dimensions against U(0,1) moments.
  for (std::uint64_t index : {0u, 5u}) {
    std::vector<double> x1, x7;
    for (std::uint64_t seed = 0; seed < 20000; ++seed) {
      const SobolSequence seq(7, true, seed);
      double p[7];
      seq.point(index, p);
      x1.push_back(p[0]);
      x7.push_back(p[6]);
    }
    expect_moments_within_5_se(x1, 0.5, 1.0 / 12.0, "scrambled dim 1");
    expect_moments_within_5_se(x7, 0.5, 1.0 / 12.0, "scrambled dim 7");
  }
}

TEST(Sobol, ChunkedGenerationReproducesTheSequence) {
  for (bool scramble : {false, true}) {
    const SobolSequence seq(9, scramble, 4);
    const SampleMatrix all = seq.points(0, 1100);
    const SampleMatrix chunk = seq.points(1000, 100);
    for (std::size_t i = 0; i < 100; ++i)
      for (std::size_t j = 0; j < 9; ++j) EXPECT_EQ(chunk(i, j), all(1000 + i, j));
    const SampleMatrix skipped = sobol_design(10, 9, {scramble, 4, true});
    for (std::size_t i = 0; i < 10; ++i)
      for (std::size_t j = 0; j < 9; ++j) EXPECT_EQ(skipped(i, j), all(i + 1, j));
  }
}

TEST(Sobol, RejectsUnsupportedDimensionsAndIndices) {
  EXPECT_THROW(SobolSequence(0), std::invalid_argument);
  EXPECT_THROW(SobolSequence(sobol_max_dimension + 1), std::invalid_argument);
  const SobolSequence seq(2);
  double p[2];
  EXPECT_NO_THROW(seq.point((std::uint64_t{1} << 32) - 1, p));
  EXPECT_THROW(seq.point(std::uint64_t{1} << 32, p), std::out_of_range);
}

// ---------------------------------------------------------------------------
// Marginal laws
// ---------------------------------------------------------------------------

namespace {
// Densities written out independently of the implementation, for tolerances.
double density(const Distribution& law, double x) {
  const auto& p = law.params;
  auto phi = [](double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * pi); };
  switch (law.kind) {
    case DistributionKind::uniform:
      return 1.0 / (p[1] - p[0]);
    case DistributionKind::normal:
      return phi((x - p[0]) / p[1]) / p[1];
    case DistributionKind::truncated_normal: {
      // Parent density over the mass of [lo, hi], the mass taken from the
      // tail side (Φ(x) = erfc(−x/√2)/2) so that it keeps its digits far out.
      const double a = (p[2] - p[0]) / p[1], b = (p[3] - p[0]) / p[1];
      const double mass = a >= 0 ? 0.5 * std::erfc(a / std::sqrt(2.0)) - 0.5 * std::erfc(b / std::sqrt(2.0))
                                 : 0.5 * std::erfc(-b / std::sqrt(2.0)) - 0.5 * std::erfc(-a / std::sqrt(2.0));
      return phi((x - p[0]) / p[1]) / (p[1] * mass);
    }
    case DistributionKind::lognormal:
      return phi(std::log(x / p[0]) / p[1]) / (x * p[1]);
  }
  return 0;
}

std::vector<Distribution> test_laws() {
  const double inf = std::numeric_limits<double>::infinity();
  return {
      Distribution::uniform(2.0, 5.0),
      Distribution::normal(1.0, 0.3),
      Distribution::normal(-2e9, 5e7),                      // bulk-modulus-like magnitudes
      Distribution::truncated_normal(10.0, 2.0, 7.0, 14.0),  // straddles the mean
      Distribution::truncated_normal(0.0, 1.0, 2.0, inf),    // upper tail, one-sided
      Distribution::truncated_normal(0.0, 1.0, -inf, -1.0),  // lower tail, one-sided
      Distribution::truncated_normal(5.0, 1.0, 13.0, 14.0),  // 8 to 9 std above the mean
      Distribution::truncated_normal(0.0, 1.0, -31.0, -30.0),
      Distribution::lognormal(2.0, 0.5),
      Distribution::lognormal(1.5e9, 0.05),
  };
}
}  // namespace

TEST(NormalLaw, QuantileMatchesPublishedValues) {
  // z_{0.975} and z_{0.995} to 16 digits (as R's qnorm and scipy.stats.norm.ppf
  // print them); agreement to a few ulps (measured ≤ 1.0 ulp).
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 4 * eps * 1.96);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 4 * eps * 2.58);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 4 * eps * 1.96);
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  EXPECT_EQ(normal_quantile(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(normal_quantile(1.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(normal_quantile(1.5)));
}

TEST(NormalLaw, QuantileInvertsTheCdfAcrossBothTails) {
  // Lower tail: Φ(Φ^-1(p)) = p to relative accuracy 8ε(1 + z²). Rounding z by
  // one ulp (|δz| ≈ ε|z|) changes Φ by the relative amount (φ/Φ)|δz| ≈ |z|·ε|z|
  // in the tail (Mills ratio φ/Φ ≈ |z|), and erfc adds a few ulps of its own.
  // Measured ≤ 1.2 ε(1 + z²) over p = 1e-300 … 0.5, with and without -march=native.
  // Upper tail likewise through the complement, which the reflection keeps exact.
  for (double p = 1e-300; p < 0.5; p *= 3.7) {
    const double z = normal_quantile(p);
    EXPECT_NEAR(normal_cdf(z), p, 8 * eps * (1 + z * z) * p) << "p = " << p;
    const double zu = normal_quantile_upper(p);
    EXPECT_EQ(zu, -z) << "q = " << p;
    EXPECT_NEAR(normal_ccdf(zu), p, 8 * eps * (1 + z * z) * p) << "q = " << p;
  }
  // Reflection: Φ^-1(1 − p) = −Φ^-1(p) exactly when 1 − p is exact, i.e. for
  // dyadic p (0.3 or 0.01 would test the rounding of 1 − p instead).
  for (double p : {0.5, 0.25, 0.125, 0.375, 0x1p-10, 0x1p-40})
    EXPECT_EQ(normal_quantile(1.0 - p), -normal_quantile(p)) << p;
}

TEST(Distribution, QuantileOfCdfRoundTrips) {
  // x → u = F(x) → F^-1(u). u carries an absolute error of a few ε (erfc's
  // rounding; 1 − tiny near the upper end), which F^-1 turns into
  // Δx ≈ 4ε/f(x); F^-1 itself adds a few ulps of x. Tolerance 8ε/f(x) + 8ε|x|
  // (measured ≤ 0.76 (ε/f(x) + ε|x|)); |F(x) − u| measured ≤ 1.4e-13 (the far
  // tails of the truncated normals), bound 1e-12.
  for (const Distribution& law : test_laws()) {
    ASSERT_EQ(law.validate(), "") << law.describe();
    for (double u = 1e-6; u < 1.0 - 1e-6; u += 0.0371) {
      const double x = law.quantile(u);
      const double back = law.quantile(law.cdf(x));
      EXPECT_NEAR(back, x, 8 * eps / density(law, x) + 8 * eps * std::fabs(x)) << law.describe() << " u=" << u;
      EXPECT_NEAR(law.cdf(x), u, 1e-12) << law.describe() << " u=" << u;
    }
  }
}

TEST(Distribution, ClosedFormMomentsMatchQuadrature) {
  // Composite Simpson over the support (cut 12 std out where it is unbounded:
  // the neglected relative mass is < e^-72). 4000 panels; Simpson's error
  // h⁴ max|g''''|/180 is largest where the density is steep: for
  // truncated-normal(0, 1, −31, −30), h = 1/4000 and |f''''| ≈ 31⁴ f give
  // ≈ 2e-11 on the mass (measured 1.7e-11), and the one-sided laws over
  // [2, 14] leave 3.8e-12 on the mean and 1.8e-10 on the variance (measured,
  // with and without -march=native). Tolerances: mass 1e-10, mean 4e-11 of
  // |mean| + std, variance 1e-9 relative plus the conditioning term below.
  // Central moments are integrated directly (a second pass about the
  // quadrature mean), so the variance check is relative to the variance even
  // when |mean| >> std.
  for (const Distribution& law : test_laws()) {
    const auto& p = law.params;
    double lo = 0, hi = 0;
    switch (law.kind) {
      case DistributionKind::uniform:
        lo = p[0], hi = p[1];
        break;
      case DistributionKind::normal:
        lo = p[0] - 12 * p[1], hi = p[0] + 12 * p[1];
        break;
      case DistributionKind::truncated_normal:
        // An infinite bound is cut 12 std beyond the other end (or the mean):
        // the density there has fallen by e^-72 at least.
        lo = std::isfinite(p[2]) ? p[2] : std::min(p[3], p[0]) - 12 * p[1];
        hi = std::isfinite(p[3]) ? p[3] : std::max(p[2], p[0]) + 12 * p[1];
        break;
      case DistributionKind::lognormal:
        lo = std::log(p[0]) - 12 * p[1], hi = std::log(p[0]) + 12 * p[1];  // in ln x
        break;
    }
    // Simpson's rule for ∫ g(x) f(x) dx; for the lognormal in t = ln x (dx = x dt).
    auto integrate = [&](auto g) {
      const int panels = 4000;
      const double h = (hi - lo) / panels;
      double sum = 0;
      for (int k = 0; k <= panels; ++k) {
        const double w = (k == 0 || k == panels) ? 1 : (k % 2 ? 4 : 2);
        const double t = lo + k * h;
        const double x = law.kind == DistributionKind::lognormal ? std::exp(t) : t;
        const double f = law.kind == DistributionKind::lognormal ? density(law, x) * x : density(law, x);
        sum += w * g(x) * f;
      }
      return sum * h / 3;
    };
    const double mass = integrate([](double) { return 1.0; });
    const double mean = integrate([](double x) { return x; }) / mass;
    const double var = integrate([&](double x) { return (x - mean) * (x - mean); }) / mass;
    EXPECT_NEAR(mass, 1.0, 1e-10) << law.describe();
    EXPECT_NEAR(law.mean(), mean, 4e-11 * (std::fabs(mean) + std::sqrt(var))) << law.describe();
    // Far in a tail the closed form σ²[1 + (αφ(α) − βφ(β))/Z − λ²] subtracts
    // terms of size ≈ z²σ² (z: the bound nearest the mean) that carry relative
    // errors ≈ z²ε — erfc(z/√2) amplifies the rounding of its argument by its
    // log-derivative ≈ z² — leaving an absolute error ≈ z⁴εσ² (2e-10 at z = 31).
    double z_near = 0;
    if (law.kind == DistributionKind::truncated_normal && (p[2] > p[0] || p[3] < p[0]))
      z_near = std::min(std::fabs(p[2] - p[0]), std::fabs(p[3] - p[0])) / p[1];
    const double conditioning = 4 * std::pow(z_near, 4) * eps * p[1] * p[1];
    EXPECT_NEAR(law.variance(), var, 1e-9 * var + conditioning) << law.describe();
  }
}

TEST(Distribution, MonteCarloMomentsConvergeToClosedForms) {
  // 2·10^5 draws per law; 5 standard errors (see expect_moments_within_5_se).
  const std::size_t n = 200'000;
  std::uint64_t seed = 31;
  for (const Distribution& law : test_laws()) {
    const SampleMatrix x = monte_carlo({law}, n, seed++);
    expect_moments_within_5_se(x.values, law.mean(), law.variance(), law.describe());
  }
}

TEST(Distribution, TruncatedNormalStaysInsideItsBounds) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const Distribution& law : {Distribution::truncated_normal(0, 1, 30.0, 30.5),
                                  Distribution::truncated_normal(0, 1, -inf, -35.0),
                                  Distribution::truncated_normal(100, 5, 99.999, 100.001),
                                  Distribution::truncated_normal(0, 1, -0.5, 0.5)}) {
    ASSERT_EQ(law.validate(), "") << law.describe();
    const double lo = law.params[2], hi = law.params[3];
    EXPECT_EQ(law.quantile(0.0), lo);
    EXPECT_EQ(law.quantile(1.0), hi);
    double previous = -inf;
    for (double u = 1e-9; u < 1.0; u += 1.0 / 4099) {
      const double x = law.quantile(u);
      ASSERT_TRUE(x >= lo && x <= hi) << law.describe() << " u=" << u << " x=" << x;
      EXPECT_GE(x, previous) << law.describe() << " u=" << u;  // monotone
      previous = x;
    }
    const SampleMatrix s = monte_carlo({law}, 20000, 8);
    for (double x : s.values) ASSERT_TRUE(x >= lo && x <= hi) << law.describe();
  }
  // Far in the tail the law is nearly exponential with rate α: mean ≈ lo + 1/α.
  // More precisely E[X | X > a] = φ(a)/Q(a) = a + 1/a − 2/a³ + 10/a⁵ − 74/a⁷ + …
  // (the inverse of the Mills-ratio expansion Q/φ = 1/a − 1/a³ + 3/a⁵ − …,
  // alternating): through 10/a⁵ the remainder is below the first omitted
  // term, 74/a⁷ = 3.4e-9 at a = 30 (measured 3.4e-9; rounding of a mean of
  // 30 is ~1e-14); bound twice that term.
  const Distribution tail = Distribution::truncated_normal(0, 1, 30.0, inf);
  const double a = 30.0;
  EXPECT_NEAR(tail.mean(), a + 1 / a - 2 / std::pow(a, 3) + 10 / std::pow(a, 5), 2 * 74 / std::pow(a, 7));
}

TEST(Distribution, ValidationNamesTheOffendingParameter) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    Distribution law;
    const char* mentions;
  };
  for (const Case& c : std::vector<Case>{{Distribution::normal(0, 0), "std"},
                                         {Distribution::normal(0, -1), "std"},
                                         {Distribution::normal(nan, 1), "mean"},
                                         {Distribution::normal(0, inf), "std"},
                                         {Distribution::uniform(3, 3), "min < max"},
                                         {Distribution::uniform(5, 1), "min < max"},
                                         {Distribution::uniform(-inf, 1), "min"},
                                         {Distribution::truncated_normal(0, 1, 2, 1), "lo < hi"},
                                         {Distribution::truncated_normal(0, 1, 1, 1), "lo < hi"},
                                         {Distribution::truncated_normal(0, 0, -1, 1), "std"},
                                         {Distribution::truncated_normal(0, 1, nan, 1), "lo"},
                                         {Distribution::truncated_normal(0, 1, 40, 41), "mass"},
                                         {Distribution::lognormal(0, 1), "median"},
                                         {Distribution::lognormal(-2, 1), "median"},
                                         {Distribution::lognormal(1, 0), "sigma_log"}}) {
    const std::string err = c.law.validate();
    EXPECT_NE(err.find(c.mentions), std::string::npos) << c.law.describe() << ": \"" << err << "\"";
    EXPECT_NE(err.find("allowed"), std::string::npos) << err;
    EXPECT_TRUE(std::isnan(c.law.quantile(0.5))) << c.law.describe();
  }
  for (const Distribution& law : test_laws()) EXPECT_EQ(law.validate(), "") << law.describe();
  EXPECT_EQ(Distribution::truncated_normal(0, 1, -inf, inf).validate(), "");
}

TEST(Distribution, KindNamesRoundTrip) {
  for (DistributionKind k : {DistributionKind::uniform, DistributionKind::normal, DistributionKind::truncated_normal,
                             DistributionKind::lognormal}) {
    DistributionKind back;
    ASSERT_TRUE(distribution_kind_from_name(distribution_kind_name(k), back));
    EXPECT_EQ(back, k);
  }
  DistributionKind unused;
  EXPECT_FALSE(distribution_kind_from_name("gaussian", unused));
}

TEST(Distribution, MappingRejectsTheSobolOriginUnderAnUnboundedLaw) {
  const std::vector<Distribution> laws = {Distribution::normal(0, 1), Distribution::uniform(0, 1)};
  EXPECT_THROW(map_to_distributions(sobol_design(4, 2), laws), std::invalid_argument);
  EXPECT_NO_THROW(map_to_distributions(sobol_design(4, 2, {false, 0, true}), laws));
  EXPECT_NO_THROW(map_to_distributions(sobol_design(4, 2, {true, 9, false}), laws));
  EXPECT_THROW(map_to_distributions(sobol_design(4, 3), laws), std::invalid_argument);
  EXPECT_THROW(map_to_distributions(sobol_design(4, 1, {true, 1, false}), {Distribution::normal(0, -1)}),
               std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Saltelli design
// ---------------------------------------------------------------------------

TEST(SaltelliDesign, BlocksFollowTheDocumentedLayout) {
  const std::size_t d = 3, N = 5;
  SampleMatrix base(N, 2 * d);
  for (std::size_t r = 0; r < N; ++r)
    for (std::size_t c = 0; c < 2 * d; ++c) base(r, c) = 10.0 * r + c;  // A = c 0..2, B = c 3..5
  const SampleMatrix s = saltelli_design(base);
  ASSERT_EQ(s.rows, N * (d + 2));
  ASSERT_EQ(s.cols, d);
  for (std::size_t r = 0; r < N; ++r) {
    const std::size_t row0 = r * (d + 2);
    for (std::size_t j = 0; j < d; ++j) {
      EXPECT_EQ(s(row0 + 0, j), base(r, j));      // A
      EXPECT_EQ(s(row0 + 1, j), base(r, d + j));  // B
      for (std::size_t i = 0; i < d; ++i)         // A_B^(i)
        EXPECT_EQ(s(row0 + 2 + i, j), j == i ? base(r, d + j) : base(r, j));
    }
  }
  EXPECT_THROW(saltelli_design(SampleMatrix(2, 3)), std::invalid_argument);
  double out[3];
  EXPECT_THROW(saltelli_point(base.row(0), d, d + 2, out), std::out_of_range);
}

TEST(SaltelliDesign, SecondOrderBlocksAddBWithOneColumnFromA) {
  // Saltelli 2002: blocks of 2d + 2 rows, the d + 2 of the first-order design
  // unchanged, then B_A^(i) = B with column i from A (sampling.hpp).
  const std::size_t d = 3, N = 4;
  SampleMatrix base(N, 2 * d);
  for (std::size_t r = 0; r < N; ++r)
    for (std::size_t c = 0; c < 2 * d; ++c) base(r, c) = 10.0 * r + c;
  const SampleMatrix first = saltelli_design(base), s = saltelli_design(base, true);
  ASSERT_EQ(saltelli_block_size(d, true), 2 * d + 2);
  ASSERT_EQ(s.rows, N * (2 * d + 2));
  for (std::size_t r = 0; r < N; ++r) {
    const std::size_t row0 = r * (2 * d + 2);
    for (std::size_t role = 0; role < d + 2; ++role)
      for (std::size_t j = 0; j < d; ++j) EXPECT_EQ(s(row0 + role, j), first(r * (d + 2) + role, j)) << r << " " << role;
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j < d; ++j)
        EXPECT_EQ(s(row0 + saltelli_role_ba0(d) + i, j), j == i ? base(r, j) : base(r, d + j)) << r << " " << i;
  }
  double out[3];
  EXPECT_NO_THROW(saltelli_point(base.row(0), d, 2 * d + 1, out, true));
  EXPECT_THROW(saltelli_point(base.row(0), d, 2 * d + 2, out, true), std::out_of_range);
}
