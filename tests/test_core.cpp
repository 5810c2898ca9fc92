// kernels/core: dual numbers against finite differences, small LU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/core/dual.hpp"
#include "kernels/core/lu.hpp"

using namespace hs;

namespace {
// A function using every dual operation, on double or Dual<2>.
template <class T>
T mix(const T& x, const T& y) {
  namespace m = hs::math;
  T s, c;
  m::sincos(x * y, &s, &c);
  return m::sqrt(x * x + 1.0) * m::exp(-y) / (2.0 + c) + m::tanh(x - y) * s - m::atan2(y, x) + m::pow(x + 2.0, 1.5) -
         3.0 / (y + 4.0) + m::abs(x - 5.0);
}
}  // namespace

TEST(Dual, GradientMatchesCentralDifferences) {
  for (double x : {-1.3, 0.2, 0.9, 2.5}) {
    for (double y : {-0.7, 0.4, 1.8}) {
      const auto r = mix(Dual<2>::variable(x, 0), Dual<2>::variable(y, 1));
      // Same operations on the value part; FMA contraction may pair them
      // differently (measured: 1 ulp with FMA, 0 without; 4 ulp allowed).
      EXPECT_DOUBLE_EQ(r.a, mix(x, y));
      // Central differences: truncation O(h²) ~ 1e-10, round-off ~ 1e-16/h ~ 1e-11.
      // Measured worst 6.4e-10 (|g| = 7.5) and, relative to the bound below,
      // 2.6e-10 at |g| = 0.46 (~11x), the same with and without FMA.
      const double h = 1e-5;
      const double gx = (mix(x + h, y) - mix(x - h, y)) / (2 * h);
      const double gy = (mix(x, y + h) - mix(x, y - h)) / (2 * h);
      EXPECT_NEAR(r.v[0], gx, 2e-9 * (1 + std::fabs(gx)));
      EXPECT_NEAR(r.v[1], gy, 2e-9 * (1 + std::fabs(gy)));
    }
  }
}

TEST(Dual, SignIsOddAndZeroAtZero) {
  EXPECT_EQ(math::sign(0.0), 0.0);
  EXPECT_EQ(math::sign(-2.0), -1.0);
  EXPECT_EQ(math::sign(Dual<1>::variable(3.0, 0)), 1.0);
}

// The CPU's sin and cos (kernels/core/trig.hpp: one polynomial for one
// instance and for lanes) against long double sinl/cosl: within one ulp of
// the exact value over 1e6 arguments in [−10, 10] (the mechanisms' angles) and
// 1e6 log-spread over 1e-12 … 1e5 of both signs (measured worst 0.78 ulp; the
// C library's is 0.52); outside the polynomial's range and at the specials,
// the C library's values exactly.
TEST(Trig, SinAndCosAreWithinOneUlp) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> angle(-10.0, 10.0), unit(-1.0, 1.0), decade(-12.0, 5.0);
  auto ulps = [](double got, long double exact) {
    const double e = static_cast<double>(exact);
    const double ulp = std::nextafter(std::fabs(e), INFINITY) - std::fabs(e);
    return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
  };
  double worst = 0.0;
  for (int k = 0; k < 2000000; ++k) {
    const double x = k < 1000000 ? angle(rng) : unit(rng) * std::pow(10.0, decade(rng));
    double s, c;
    math::sincos(x, &s, &c);
    worst = std::max({worst, ulps(s, sinl(static_cast<long double>(x))), ulps(c, cosl(static_cast<long double>(x)))});
    ASSERT_EQ(s, math::sin(x));
    ASSERT_EQ(c, math::cos(x));
  }
  EXPECT_LT(worst, 1.0);
  for (double x : {1e5, -2e5, 1e300, static_cast<double>(INFINITY), static_cast<double>(NAN)}) {
    double s, c;
    math::sincos(x, &s, &c);
    EXPECT_TRUE(s == std::sin(x) || (std::isnan(s) && std::isnan(std::sin(x)))) << x;
    EXPECT_TRUE(c == std::cos(x) || (std::isnan(c) && std::isnan(std::cos(x)))) << x;
  }
  double s, c;
  math::sincos(-0.0, &s, &c);
  EXPECT_TRUE(std::signbit(s) && s == 0.0 && c == 1.0);
}

TEST(LU, SolvesBadlyScaledSystem) {
  // Rows in very different units (as a moment row next to a pressure row).
  Mat<double, 3, 3> A;
  const double a[3][3] = {{1e-3, 2e-3, 0.5e-3}, {4e9, 1e9, 3e9}, {0.5, 2.0, 1.0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j) = a[i][j];
  const double x_true[3] = {1.5, -2.0, 0.25};
  double b[3], x[3];
  for (int i = 0; i < 3; ++i) b[i] = a[i][0] * x_true[0] + a[i][1] * x_true[1] + a[i][2] * x_true[2];
  ASSERT_TRUE(solve_linear(A, b, x));
  // Partial pivoting is invariant to the row scaling: measured error 1.1e-16
  // with FMA, 5.6e-17 without (≤ 1 ulp of |x| ≤ 2); bound ~9x.
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(x[i], x_true[i], 1e-15);
}

TEST(LU, ReportsSingularMatrix) {
  Mat<double, 2, 2> A;
  A(0, 0) = 1; A(0, 1) = 2; A(1, 0) = 2; A(1, 1) = 4;
  double b[2] = {1, 2}, x[2];
  EXPECT_FALSE(solve_linear(A, b, x));
}

TEST(LU, DualMatrixGivesDerivativeOfSolution) {
  // x(t) = A(t)⁻¹ b with A(t) = [[2+t, 1], [1, 3]]; dx/dt = −A⁻¹ (dA/dt) x.
  const double t = 0.3;
  Mat<Dual<1>, 2, 2> A;
  A(0, 0) = 2.0 + Dual<1>::variable(t, 0); A(0, 1) = 1.0; A(1, 0) = 1.0; A(1, 1) = 3.0;
  Dual<1> b[2] = {1.0, 2.0}, x[2];
  ASSERT_TRUE(solve_linear(A, b, x));
  auto solve_at = [](double s, double* out) {
    Mat<double, 2, 2> M;
    M(0, 0) = 2.0 + s; M(0, 1) = 1.0; M(1, 0) = 1.0; M(1, 1) = 3.0;
    double bb[2] = {1.0, 2.0};
    solve_linear(M, bb, out);
  };
  double xp[2], xm[2];
  solve_at(t + 1e-6, xp);
  solve_at(t - 1e-6, xm);
  // Central difference with h = 1e-6: truncation h²·x‴/6 ~ 1e-13, round-off
  // ε|x|/h ~ 2e-10; measured 4.7e-11 with and without FMA.
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(x[i].v[0], (xp[i] - xm[i]) / 2e-6, 5e-10);
}
