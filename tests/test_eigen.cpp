// The per-thread eigenvalue kernel (kernels/eigen/small_eigen.hpp) and its
// CPU batch against Eigen's EigenSolver.
//
// What "correct" means for a nonsymmetric eigensolver: a backward-stable
// algorithm returns the exact eigenvalues of A + E with ||E|| <= c(n) eps ||A||,
// so a simple eigenvalue lambda_i moves by at most about kappa_i ||E||, with
// kappa_i = ||y_i|| ||x_i|| / |y_i^H x_i| (x_i, y_i right and left
// eigenvectors; G&VL §7.2.2). Both our routine and Eigen's are backward
// stable, so they must agree to ~kappa_i eps ||A||. The tests check that
// bound for every eigenvalue and, for the well-conditioned ones, a plain
// relative error of 1e-10.
#include <gtest/gtest.h>

#include "host/eigen_dense.hpp"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "eigen_test_support.hpp"
#include "host/run/eigen_batch.hpp"
#include "kernels/eigen/small_eigen.hpp"
#include "reference_numerics.hpp"

using namespace hs;
using namespace eigen_test;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

template <int N>
Mat<double, N, N> to_mat(const Eigen::MatrixXd& A) {
  Mat<double, N, N> M;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) M(i, j) = A(i, j);
  return M;
}

// Reference eigenvalues of A and their condition numbers kappa_i from
// Eigen's eigenvectors (reference_numerics.hpp: kappa_i = ||row_i(V^{-1})||
// ||col_i(V)||, infinite for a defective A).
struct Reference {
  std::vector<cplx> lambda;
  std::vector<double> kappa;
};
Reference reference(const Eigen::MatrixXd& A) {
  const reference_numerics::Spectrum<double> s = reference_numerics::spectrum(A, true);
  EXPECT_TRUE(s.converged);
  Reference r;
  r.lambda.assign(s.values.data(), s.values.data() + s.values.size());
  r.kappa = s.kappa;
  return r;
}

struct Stats {
  long matrices = 0, eigenvalues = 0, well_conditioned = 0, failures = 0;
  double max_rel_err_well = 0.0;   // over well-conditioned eigenvalues
  double max_bound_ratio = 0.0;    // max |err| / (kappa eps ||A||_F) over all
  long total_iterations = 0;
};

// For every eigenvalue, |err| <= kBoundFactor kappa eps ||A||_F: both
// solvers' backward errors are c(n) eps ||A|| with c(n) a low-degree
// polynomial (LAPACK's "modest multiple"; n <= 32 here), first-order
// perturbation theory turns each into kappa ||E||. Measured over the 10 000
// random matrices: max |err|/(kappa eps ||A||_F) = 10.9 (11.7 without
// -march=native; printed by TenThousandRandomMatricesAgainstEigen), so
// c(n) plus the sum of the two errors stays near 10 for n <= 32: bound 100.
// For the badly scaled inputs, our routine sees B = D A D^{-1} (rounded
// entrywise, a componentwise relative perturbation of A) and, after
// balancing, a matrix of norm comparable to ||A||, so the same bound on A's
// conditioning must hold: that is what balancing buys.
constexpr double kBoundFactor = 100.0;
// Well-conditioned: kappa ||A||_F / |lambda| <= 1e4. The bound above allows
// those a relative error of up to 1e4 * 100 * eps = 2.2e-10; measured on the
// fixed random set (the same matrices on every machine, eigen_test_support.hpp):
// at most 8.0e-13 (7.3e-13 without -march=native), bound 5e-12.
constexpr double kWellConditioned = 1e4;
constexpr double kRelTol = 5e-12;

// Compare our eigenvalues of `input` (a similarity of A) with Eigen's of A.
template <int N>
void compare(const Eigen::MatrixXd& A, const Eigen::MatrixXd& input, Stats& st, const char* what) {
  const EigenResult<N> r = eigenvalues<N>(to_mat<N>(input));
  const Reference ref = reference(A);
  const double normA = A.norm();
  ++st.matrices;
  st.total_iterations += r.iterations;
  if (r.status != eigen_ok) {
    ++st.failures;
    ADD_FAILURE() << what << ": status " << r.status;
    return;
  }
  const std::vector<cplx> ours = as_complex(r);
  const std::vector<int> m = match(ours, ref.lambda);
  for (int i = 0; i < N; ++i) {
    const cplx l = ref.lambda[m[i]];
    const double kappa = ref.kappa[m[i]];
    const double err = std::abs(ours[i] - l);
    ++st.eigenvalues;
    const double bound = kBoundFactor * kappa * kEps * normA;
    st.max_bound_ratio = std::max(st.max_bound_ratio, err / (kappa * kEps * normA));
    EXPECT_LE(err, bound) << what << " N=" << N << " lambda=" << l << " ours=" << ours[i] << " kappa=" << kappa;
    if (kappa * normA <= kWellConditioned * std::abs(l)) {
      ++st.well_conditioned;
      const double rel = err / std::abs(l);
      st.max_rel_err_well = std::max(st.max_rel_err_well, rel);
      EXPECT_LE(rel, kRelTol) << what << " N=" << N << " lambda=" << l << " ours=" << ours[i] << " kappa=" << kappa;
    }
  }
}

// `count` random N x N matrices with N(0,1) entries, of which the last
// `scaled` are presented as D A D^{-1}, D = diag(10^u), u ~ U(-6, 6).
template <int N>
void random_set(int count, int scaled, uint64_t seed, Stats& plain, Stats& badly_scaled) {
  Rng rng{seed};
  for (int t = 0; t < count; ++t) {
    Eigen::MatrixXd A(N, N);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) A(i, j) = rng.normal();
    if (t < count - scaled) {
      compare<N>(A, A, plain, "random");
    } else {
      Eigen::VectorXd d(N);
      for (int i = 0; i < N; ++i) d(i) = std::pow(10.0, -6.0 + 12.0 * rng.uniform());
      const Eigen::MatrixXd B = d.asDiagonal() * A * d.cwiseInverse().asDiagonal();
      compare<N>(A, B, badly_scaled, "badly scaled");
    }
    if (::testing::Test::HasFailure()) return;  // one report is enough
  }
}

void print(const char* name, const Stats& s) {
  std::printf("%-14s %6ld matrices, %7ld eigenvalues, %5.1f %% well-conditioned, max rel err (well) %.2e, "
              "max |err|/(kappa eps ||A||) %.2f, %.2f QR steps/matrix, %ld failures\n",
              name, s.matrices, s.eigenvalues, 100.0 * s.well_conditioned / std::max<long>(1, s.eigenvalues),
              s.max_rel_err_well, s.max_bound_ratio, static_cast<double>(s.total_iterations) / std::max<long>(1, s.matrices),
              s.failures);
}

// Sorted by (real, imag) for exact comparisons.
std::vector<cplx> sorted(std::vector<cplx> v) {
  std::sort(v.begin(), v.end(), [](cplx a, cplx b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
  return v;
}

}  // namespace

// 10 000 random matrices: 7000 of size 6 (the four-bar's reduced Jacobian),
// 3000 spread over sizes 2..32; a fifth of each set badly scaled.
TEST(Eigen, TenThousandRandomMatricesAgainstEigen) {
  Stats plain, scaled;
  random_set<6>(7000, 1400, 1, plain, scaled);
  random_set<2>(250, 50, 2, plain, scaled);
  random_set<3>(250, 50, 3, plain, scaled);
  random_set<4>(250, 50, 4, plain, scaled);
  random_set<5>(250, 50, 5, plain, scaled);
  random_set<7>(250, 50, 7, plain, scaled);
  random_set<8>(250, 50, 8, plain, scaled);
  random_set<10>(250, 50, 10, plain, scaled);
  random_set<12>(250, 50, 12, plain, scaled);
  random_set<16>(250, 50, 16, plain, scaled);
  random_set<20>(250, 50, 20, plain, scaled);
  random_set<24>(250, 50, 24, plain, scaled);
  random_set<32>(250, 50, 32, plain, scaled);
  print("N(0,1)", plain);
  print("D A D^-1", scaled);
  EXPECT_EQ(plain.matrices + scaled.matrices, 10000);
  // Not vacuous: most eigenvalues face the strict 1e-10 relative test.
  EXPECT_GE(plain.well_conditioned, 0.8 * plain.eigenvalues);
  EXPECT_GE(scaled.well_conditioned, 0.8 * scaled.eigenvalues);
}

// Without balancing, the same badly scaled matrices lose accuracy: the
// backward error is now relative to ||D A D^{-1}||, up to 1e12 ||A||.
// (Documents why balancing is on by default.)
TEST(Eigen, BalancingIsWhatRecoversBadlyScaledMatrices) {
  Rng rng{99};
  double worst_balanced = 0.0, worst_unbalanced = 0.0;
  for (int t = 0; t < 200; ++t) {
    Eigen::MatrixXd A(6, 6);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = rng.normal();
    Eigen::VectorXd d(6);
    for (int i = 0; i < 6; ++i) d(i) = std::pow(10.0, -6.0 + 12.0 * rng.uniform());
    const Eigen::MatrixXd B = d.asDiagonal() * A * d.cwiseInverse().asDiagonal();
    const Reference ref = reference(A);
    for (bool balance : {true, false}) {
      const EigenResult<6> r = eigenvalues<6>(to_mat<6>(B), balance);
      const std::vector<cplx> ours = as_complex(r);
      const std::vector<int> m = match(ours, ref.lambda);
      double worst = 0.0;
      for (int i = 0; i < 6; ++i) worst = std::max(worst, std::abs(ours[i] - ref.lambda[m[i]]) / (ref.kappa[m[i]] * kEps * A.norm()));
      (balance ? worst_balanced : worst_unbalanced) = std::max(balance ? worst_balanced : worst_unbalanced, worst);
    }
  }
  std::printf("max |err|/(kappa eps ||A||): balanced %.3g, unbalanced %.3g\n", worst_balanced, worst_unbalanced);
  EXPECT_LE(worst_balanced, kBoundFactor);
  EXPECT_GT(worst_unbalanced, 1e3 * worst_balanced);
}

TEST(Eigen, DiagonalMatrixIsExact) {
  Mat<double, 5, 5> A = Mat<double, 5, 5>::zero();
  const double d[5] = {3.0, -1e-8, 2.5e7, 0.0, -4.0};
  for (int i = 0; i < 5; ++i) A(i, i) = d[i];
  const EigenResult<5> r = eigenvalues<5>(A);
  ASSERT_EQ(r.status, eigen_ok);
  EXPECT_EQ(r.iterations, 0);
  std::vector<cplx> expect(d, d + 5);
  EXPECT_EQ(sorted(as_complex(r)), sorted(expect));
}

// Upper triangular: already Hessenberg with zero subdiagonal, so every
// eigenvalue deflates at once and equals its diagonal entry exactly
// (balancing leaves the diagonal unchanged). Lower triangular goes through
// the full reduction and QR.
TEST(Eigen, TriangularMatrices) {
  Rng rng{7};
  Eigen::MatrixXd U = Eigen::MatrixXd::Zero(7, 7);
  for (int i = 0; i < 7; ++i)
    for (int j = i; j < 7; ++j) U(i, j) = rng.normal();
  const EigenResult<7> ru = eigenvalues<7>(to_mat<7>(U));
  ASSERT_EQ(ru.status, eigen_ok);
  std::vector<cplx> diag;
  for (int i = 0; i < 7; ++i) diag.emplace_back(U(i, i), 0.0);
  EXPECT_EQ(sorted(as_complex(ru)), sorted(diag));

  const Eigen::MatrixXd L = U.transpose();
  Stats st;
  compare<7>(L, L, st, "lower triangular");
  const EigenResult<7> rl = eigenvalues<7>(to_mat<7>(L));
  const std::vector<cplx> got = sorted(as_complex(rl)), want = sorted(diag);
  // Measured ≤ 4.0e-15 on entries of size ~1 (2.5e-15 with -march=native).
  for (int i = 0; i < 7; ++i) EXPECT_LE(std::abs(got[i] - want[i]), 3e-14) << i;
}

TEST(Eigen, AlreadyHessenberg) {
  Rng rng{8};
  for (int t = 0; t < 50; ++t) {
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(8, 8);
    for (int i = 0; i < 8; ++i)
      for (int j = std::max(0, i - 1); j < 8; ++j) H(i, j) = rng.normal();
    Stats st;
    compare<8>(H, H, st, "Hessenberg");
  }
}

// Companion matrix of prod (z - r_k): the roots come back. Polynomial
// roots are sensitive to the coefficients, but these are modest.
TEST(Eigen, CompanionMatricesWithKnownRoots) {
  auto companion = [](const std::vector<cplx>& roots) {
    const int n = static_cast<int>(roots.size());
    std::vector<cplx> c(1, 1.0);  // monic coefficients, highest degree first
    for (cplx r : roots) {
      std::vector<cplx> next(c.size() + 1, 0.0);
      for (size_t k = 0; k < c.size(); ++k) {
        next[k] += c[k];
        next[k + 1] -= r * c[k];
      }
      c = next;
    }
    Eigen::MatrixXd C = Eigen::MatrixXd::Zero(n, n);
    for (int j = 0; j < n; ++j) C(0, j) = -c[j + 1].real();  // real for conjugate-closed roots
    for (int i = 1; i < n; ++i) C(i, i - 1) = 1.0;
    return C;
  };
  const std::vector<std::vector<cplx>> cases = {
      {1.0, 2.0, 3.0, 4.0, 5.0, 6.0},
      {{-1.0, 2.0}, {-1.0, -2.0}, 0.5, -3.0, {2.0, 0.5}, {2.0, -0.5}},
      {{0.0, 1.0}, {0.0, -1.0}, {0.0, 3.0}, {0.0, -3.0}, 1e-3, -1e3},
  };
  for (const auto& roots : cases) {
    const Eigen::MatrixXd C = companion(roots);
    const EigenResult<6> r = eigenvalues<6>(to_mat<6>(C));
    ASSERT_EQ(r.status, eigen_ok);
    const std::vector<cplx> ours = as_complex(r);
    const std::vector<int> m = match(ours, roots);
    // Two checks: the backward-error bound with kappa from the reference
    // solver's eigenvectors (measured ≤ 0.02 of kappa eps ||C||), and a plain
    // relative error: these roots are only moderately sensitive to the
    // coefficients, measured ≤ 1.8e-13 (4.5e-14 without -march=native), bound 1e-12.
    const Reference ref = reference(C);
    const std::vector<int> mref = match(ours, ref.lambda);
    for (int i = 0; i < 6; ++i) {
      const cplx root = roots[m[i]];
      const double kappa = ref.kappa[mref[i]];
      EXPECT_LE(std::abs(ours[i] - root), kBoundFactor * kappa * kEps * C.norm())
          << "root " << root << " got " << ours[i];
      EXPECT_LE(std::abs(ours[i] - root), 1e-12 * std::abs(root)) << "root " << root << " got " << ours[i];
    }
  }
}

// Two structural zeros: columns 1 and 4 of a random 6x6 are zero (states
// that nothing depends on), so 0 is a semisimple double eigenvalue
// (eigenvectors e_1, e_4). The computed ones must be O(eps ||A||): within
// the backward-error bound kBoundFactor kappa eps ||A||_F with kappa from
// Eigen's eigenvectors, and within 200 eps ||A||_F outright (largest ratio
// printed: 26.5, 17.7 without -march=native).
TEST(Eigen, ExactZeroEigenvalues) {
  Rng rng{11};
  double worst = 0.0;
  for (int t = 0; t < 200; ++t) {
    Eigen::MatrixXd A(6, 6);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = (j == 1 || j == 4) ? 0.0 : rng.normal();
    const EigenResult<6> r = eigenvalues<6>(to_mat<6>(A));
    ASSERT_EQ(r.status, eigen_ok);
    const std::vector<cplx> ours = as_complex(r);
    const Reference ref = reference(A);
    const std::vector<int> m = match(ours, ref.lambda);
    int zeros = 0;
    for (int i = 0; i < 6; ++i) {
      if (std::abs(ref.lambda[m[i]]) > 1e-8) continue;  // the two zero eigenvalues
      ++zeros;
      const double mag = std::abs(ours[i]);
      worst = std::max(worst, mag / (kEps * A.norm()));
      EXPECT_LE(mag, kBoundFactor * ref.kappa[m[i]] * kEps * A.norm()) << t;
      EXPECT_LE(mag, 200 * kEps * A.norm()) << t;
    }
    EXPECT_EQ(zeros, 2) << t;
  }
  std::printf("structural zero eigenvalues: max |lambda| / (eps ||A||_F) = %.1f\n", worst);
}

TEST(Eigen, RotationGivesPureImaginaryPair) {
  Mat<double, 2, 2> R;
  R(0, 0) = 0.0; R(0, 1) = -2.5;
  R(1, 0) = 2.5; R(1, 1) = 0.0;
  const EigenResult<2> r = eigenvalues<2>(R);
  ASSERT_EQ(r.status, eigen_ok);
  EXPECT_EQ(r.re[0], 0.0);
  EXPECT_EQ(r.re[1], 0.0);
  EXPECT_EQ(r.im[0], 2.5);  // +im first
  EXPECT_EQ(r.im[1], -2.5);

  const double th = 0.3;
  R(0, 0) = std::cos(th); R(0, 1) = -std::sin(th);
  R(1, 0) = std::sin(th); R(1, 1) = std::cos(th);
  const EigenResult<2> q = eigenvalues<2>(R);
  EXPECT_NEAR(q.re[0], std::cos(th), 2 * kEps);
  EXPECT_NEAR(q.im[0], std::sin(th), 2 * kEps);
  EXPECT_NEAR(q.im[1], -std::sin(th), 2 * kEps);
}

// A Jordan block of size k is defective (kappa = inf): a perturbation of
// size eps moves its eigenvalue by ~eps^(1/k) (G&VL §7.2.2), so the right
// bound is ~ (eps ||A||)^(1/k) times a modest constant, not kappa eps.
TEST(Eigen, JordanBlocksWithinTheirHolderBound) {
  Rng rng{12};
  for (int block : {2, 3}) {
    for (int t = 0; t < 50; ++t) {
      // J = diag(J_block(2), -1, 3, ...) of size 6, hidden by a random
      // orthogonal similarity (rounding in Q J Q^T is the perturbation).
      Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, 6);
      for (int i = 0; i < block; ++i) {
        J(i, i) = 2.0;
        if (i + 1 < block) J(i, i + 1) = 1.0;
      }
      const double others[4] = {-1.0, 3.0, 0.5, -2.5};
      for (int i = block; i < 6; ++i) J(i, i) = others[i - block];
      Eigen::MatrixXd G(6, 6);
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) G(i, j) = rng.normal();
      const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(G).householderQ();
      const Eigen::MatrixXd A = Q * J * Q.transpose();
      const EigenResult<6> r = eigenvalues<6>(to_mat<6>(A));
      ASSERT_EQ(r.status, eigen_ok);
      const double holder = std::pow(kEps * A.norm(), 1.0 / block);
      int near_two = 0;
      for (int k = 0; k < 6; ++k) {
        const cplx l(r.re[k], r.im[k]);
        if (std::abs(l - 2.0) < 0.25) {
          ++near_two;
          EXPECT_LE(std::abs(l - 2.0), 10 * holder) << "block " << block << " got " << l;  // measured ≤ 1.2 holder
        } else {
          double best = 1e300;
          for (double o : others) best = std::min(best, std::abs(l - o));
          EXPECT_LE(best, 5e-14) << "block " << block << " got " << l;  // simple, κ ~ 1: measured ≤ 6.2e-15
        }
      }
      EXPECT_EQ(near_two, block);
    }
  }
}

// Cyclic permutation matrices are the classic case where the standard
// Francis shift stalls (all subdiagonals stay 1: the shifts are
// eigenvalues of the trailing 2x2 block, which is a "rotation" with equal
// residual); the exceptional shifts after 10 and 20 steps must break it.
// Eigenvalues: the n-th roots of unity.
TEST(Eigen, CyclicPermutationNeedsExceptionalShifts) {
  Mat<double, 4, 4> P4 = Mat<double, 4, 4>::zero();
  Mat<double, 5, 5> P5 = Mat<double, 5, 5>::zero();
  for (int i = 0; i < 4; ++i) P4((i + 1) % 4, i) = 1.0;
  for (int i = 0; i < 5; ++i) P5((i + 1) % 5, i) = 1.0;
  const EigenResult<4> r4 = eigenvalues<4>(P4);
  const EigenResult<5> r5 = eigenvalues<5>(P5);
  ASSERT_EQ(r4.status, eigen_ok);
  ASSERT_EQ(r5.status, eigen_ok);
  std::printf("cyclic permutation: %d QR steps (n = 4), %d (n = 5)\n", r4.iterations, r5.iterations);
  EXPECT_GT(r4.iterations, 10);  // converged only after the first exceptional shift
  auto roots = [](int n) {
    std::vector<cplx> v;
    for (int k = 0; k < n; ++k) v.push_back(std::polar(1.0, 2.0 * M_PI * k / n));
    return v;
  };
  const std::vector<cplx> o4 = as_complex(r4), o5 = as_complex(r5), w4 = roots(4), w5 = roots(5);
  const std::vector<int> m4 = match(o4, w4), m5 = match(o5, w5);
  // Unit-modulus roots, κ = 1 (normal matrix): measured ≤ 1.04e-15.
  for (int i = 0; i < 4; ++i) EXPECT_LE(std::abs(o4[i] - w4[m4[i]]), 1e-14) << o4[i];
  for (int i = 0; i < 5; ++i) EXPECT_LE(std::abs(o5[i] - w5[m5[i]]), 1e-14) << o5[i];
}

TEST(Eigen, NonFiniteInputReportsStatus) {
  Mat<double, 6, 6> A = Mat<double, 6, 6>::zero();
  for (int i = 0; i < 6; ++i) A(i, i) = 1.0;
  A(2, 3) = std::numeric_limits<double>::quiet_NaN();
  EigenResult<6> r = eigenvalues<6>(A);
  EXPECT_EQ(r.status, eigen_non_finite);
  EXPECT_TRUE(std::isnan(r.re[0]));
  A(2, 3) = std::numeric_limits<double>::infinity();
  r = eigenvalues<6>(A);
  EXPECT_EQ(r.status, eigen_non_finite);
}

// The reduced Jacobian of a hydraulic four-bar at equilibrium, states
// (angle, rate, p1, p2, p3, spool): mechanics O(1), pressure rows O(1e9)
// (bulk modulus over volume), pressure -> acceleration O(1e-5) (piston
// area over inertia), a first-order spool at -220 1/s that nothing feeds
// back into (block triangular). Reference: Eigen on the same matrix with
// pressures in units of 10 MPa (T J T^{-1}, T = diag(1, 1, 1e-7 x3, 1)),
// where it is well scaled.
TEST(Eigen, HydraulicFourBarJacobian) {
  const double J[6][6] = {
      {0.0, 1.0, 0.0, 0.0, 0.0, 0.0},
      {-12.0, -0.8, 3.1e-5, -1.7e-5, 0.0, 0.0},
      {0.9e9, -2.3e9, -350.0, 0.0, 120.0, 1.1e10},
      {-0.6e9, 1.9e9, 0.0, -410.0, 0.0, -0.9e10},
      {0.0, 0.0, 260.0, 0.0, -520.0, 0.0},
      {0.0, 0.0, 0.0, 0.0, 0.0, -220.0},
  };
  Eigen::MatrixXd A(6, 6);
  Mat<double, 6, 6> M;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) A(i, j) = M(i, j) = J[i][j];
  Eigen::VectorXd t(6);
  t << 1.0, 1.0, 1e-7, 1e-7, 1e-7, 1.0;
  const Eigen::MatrixXd scaled = t.asDiagonal() * A * t.cwiseInverse().asDiagonal();
  const Reference ref = reference(scaled);

  for (bool balance : {true, false}) {
    const EigenResult<6> r = eigenvalues<6>(M, balance);
    ASSERT_EQ(r.status, eigen_ok);
    const std::vector<cplx> ours = as_complex(r);
    const std::vector<int> m = match(ours, ref.lambda);
    double worst = 0.0;
    for (int i = 0; i < 6; ++i) {
      const cplx l = ref.lambda[m[i]];
      const double rel = std::abs(ours[i] - l) / std::abs(l);
      worst = std::max(worst, rel);
      if (balance) {
        // Measured ≤ 5.2e-14 (1.2e-13 without -march=native, the real λ = 0.33).
        EXPECT_LE(rel, 1e-12) << "lambda " << l << " got " << ours[i] << " kappa " << ref.kappa[m[i]];
        std::printf("  hydraulic: lambda = %+.10e %+.10ei (kappa %.2g), rel err %.2e\n", l.real(), l.imag(),
                    ref.kappa[m[i]], rel);
      }
    }
    std::printf("hydraulic four-bar Jacobian, %s: max rel err %.2e (%d QR steps)\n",
                balance ? "balanced" : "not balanced", worst, r.iterations);
  }
  // Eigen without balancing on the unscaled matrix, for the record.
  const Eigen::VectorXcd raw = reference_numerics::spectrum(A, false).values;
  std::vector<cplx> rawv(raw.data(), raw.data() + 6);
  const std::vector<int> m = match(rawv, ref.lambda);
  double worst = 0.0;
  for (int i = 0; i < 6; ++i) worst = std::max(worst, std::abs(rawv[i] - ref.lambda[m[i]]) / std::abs(ref.lambda[m[i]]));
  std::printf("hydraulic four-bar Jacobian, Eigen::EigenSolver on the unscaled matrix: max rel err %.2e\n", worst);
}

// The CPU batch runs the same function per matrix: bitwise the same.
TEST(Eigen, CpuBatchMatchesSingleCalls) {
  Rng rng{13};
  std::vector<Mat<double, 6, 6>> batch(1000);
  for (auto& A : batch)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = rng.normal();
  const std::vector<EigenResult<6>> out = eigenvalues_batch_cpu<6>(batch);
  ASSERT_EQ(out.size(), batch.size());
  for (size_t b = 0; b < batch.size(); ++b) {
    const EigenResult<6> one = eigenvalues<6>(batch[b]);
    EXPECT_EQ(out[b].status, one.status);
    for (int k = 0; k < 6; ++k) {
      EXPECT_EQ(out[b].re[k], one.re[k]);
      EXPECT_EQ(out[b].im[k], one.im[k]);
    }
  }
  EXPECT_TRUE(eigenvalues_batch_cpu<6>({}).empty());
}

// The leading block of a larger matrix (eigenvalues_of_leading_block: a
// linearization whose instance has fewer states than its compile-time size,
// docs/models/linearization.md §3.4): the eigenvalues of A(0:n, 0:n) with
// whatever the rest holds are the bits eigenvalues<n> gives on that block as a
// matrix of its own (the same operations, the size a run-time value), badly
// scaled and balanced as the Jacobians are; the slots from n on are NaN.
TEST(Eigen, LeadingBlockIsTheBlockAlone) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (int trial = 0; trial < 200; ++trial) {
    Mat<double, 7, 7> block;
    Mat<double, 10, 10> A;
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 10; ++j) A(i, j) = 1e3 * u(rng);  // what the block leaves: not read
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 7; ++j) A(i, j) = block(i, j) = u(rng) * std::pow(10.0, 4.0 * (i == 2) - 3.0 * (j == 5));
    const EigenResult<7> alone = eigenvalues<7>(block);
    const EigenResult<10> leading = eigenvalues_of_leading_block<10>(A, 7);
    ASSERT_EQ(alone.status, eigen_ok);
    ASSERT_EQ(leading.status, eigen_ok);
    EXPECT_EQ(leading.iterations, alone.iterations);
    for (int k = 0; k < 7; ++k) {
      EXPECT_TRUE(same(leading.re[k], alone.re[k])) << trial << ", " << k;
      EXPECT_TRUE(same(leading.im[k], alone.im[k])) << trial << ", " << k;
    }
    for (int k = 7; k < 10; ++k) EXPECT_TRUE(std::isnan(leading.re[k]) && std::isnan(leading.im[k]));
  }
}
