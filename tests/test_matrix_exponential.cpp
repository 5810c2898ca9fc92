// The per-thread matrix exponential and zero-order hold
// (kernels/core/matrix_exponential.hpp) against closed forms, against
// Eigen's MatrixFunctions (an independent implementation, evaluated in long
// double where it is the reference), and against quadrature / time
// integration of the continuous system.
//
// What "correct" means. The forward error of e^A computed in floating
// point is about kappa_exp(A) * u, kappa_exp(A) = ||L_A|| ||A|| / ||e^A|| the
// relative condition number (L_A the Fréchet derivative; kappa_exp >= ||A||,
// with equality for normal A; Higham, "Functions of Matrices", §10.2), plus
// a floor of a few u for rounding the result itself. So for general matrices
//     err <= u (kFloor + kKappaFactor kappa),
// kappa computed in the Frobenius norm from the Kronecker form of L_A.
// Over 700 random 8x8 matrices (non-normal, ||A||_1 from 0.03 to 4e3; a scan
// not part of this file) the worst was 2.2 u at kappa <= 10 and 0.42 u kappa
// at large kappa, i.e. at most 0.41 of the bound with kFloor = 4,
// kKappaFactor = 2 (the same for the ZOH's Phi and Gamma, 233 systems).
//
// Scalars and diagonals need their own bound. For x < 0 the numerator
// p_13(y) = sum_j b_j y^j of the Padé approximant at the scaled y = x / 2^s
// cancels (its terms sum to e^|y| times its value; for x > 0 the same
// happens in the denominator p_13(-y)), and each squaring doubles a relative
// error, so
//     |err| / e^x <= 3 u 2^s e^{|x|/2^s}      (<= 3 u e^5.4 |x| / 2.7 ~ 240 u |x|).
// Over 10^6 random x in [-100, 100] the worst was 0.47 of that bound (and
// 40 u |x|, at x near -5.4, where a plain "few u |x|" would have failed;
// Eigen's expm, the same algorithm, behaves the same). Where a test names
// odd-looking values (x = -3.2223872061158545 ...) they are the worst cases
// of such scans, so the tolerances are checked where they are tightest.
//
// Every test prints what it measured (err, tol and their ratio).
#include <gtest/gtest.h>

#include "host/eigen_dense.hpp"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kernels/core/matrix_exponential.hpp"
#include "reference_numerics.hpp"

using namespace hs;

namespace {

// The references are computed in long double; they must be more precise than double.
static_assert(std::numeric_limits<long double>::digits >= 64, "long double reference needs >= 64-bit mantissa");

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kFloor = 4.0, kKappaFactor = 2.0;  // see the top of the file
constexpr double kTheta13 = 5.371920351148152;

// Tolerance of a general matrix with condition number kappa.
double tol_kappa(double kappa) { return kEps * (kFloor + kKappaFactor * kappa); }

// Number of squarings the routine does for a given 1-norm (Higham 2005, Algorithm 2.3).
int squarings(double norm) {
  if (!(norm > kTheta13)) return 0;
  int e = 0;
  const double f = std::frexp(norm / kTheta13, &e);
  return f == 0.5 ? e - 1 : e;
}
// Relative-error bound of a scalar x computed with s squarings (top of file).
double tol_scalar(double x, int s) { return 3.0 * kEps * std::ldexp(1.0, s) * std::exp(std::fabs(x) / std::ldexp(1.0, s)); }

// splitmix64 + Box–Muller: the same matrices on every machine.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();  // u1 in (0, 1]
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
};

template <int R, int C>
using MatLD = Eigen::Matrix<long double, R, C>;

template <int R, int C>
MatLD<R, C> to_ld(const Mat<double, R, C>& A) {
  MatLD<R, C> M;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) M(i, j) = A(i, j);
  return M;
}
template <int R, int C>
Mat<double, R, C> from_eigen(const Eigen::Matrix<double, R, C>& A) {
  Mat<double, R, C> M;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) M(i, j) = A(i, j);
  return M;
}

// Frobenius norms of a Mat and of (ours - reference).
template <int R, int C>
double fro(const Mat<double, R, C>& A) {
  long double s = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) s += static_cast<long double>(A(i, j)) * A(i, j);
  return static_cast<double>(std::sqrt(s));
}
template <int R, int C>
double fro_diff(const Mat<double, R, C>& A, const MatLD<R, C>& B) {
  long double s = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const long double d = A(i, j) - B(i, j);
      s += d * d;
    }
  return static_cast<double>(std::sqrt(s));
}

template <int N>
Mat<double, N, N> matmul(const Mat<double, N, N>& X, const Mat<double, N, N>& Y) {
  Mat<double, N, N> Z = Mat<double, N, N>::zero();
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j) Z(i, j) += X(i, k) * Y(k, j);
  return Z;
}
template <int N>
Mat<double, N, N> scaled(const Mat<double, N, N>& A, double s) {
  Mat<double, N, N> B;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) B(i, j) = s * A(i, j);
  return B;
}
template <int N>
double norm1(const Mat<double, N, N>& A) {
  double n = 0;
  for (int j = 0; j < N; ++j) {
    double c = 0;
    for (int i = 0; i < N; ++i) c += std::fabs(A(i, j));
    n = std::max(n, c);
  }
  return n;
}

// Eigen's matrix exponential at dynamic size, compiled once for the suites in
// reference_numerics.cpp (with the eigen-solvers and the SVD below): every
// fixed size (4 to 16) instantiated its own unrolled copy of MatrixFunctions
// once, and the instantiations in this file cost 107 s of compile at -O1
// (issue 35, docs/build.md §1 item 8). The algorithm (Padé degree and scaling
// from the 1-norm) is the same at any size; only the summation order of the
// products may differ, by long double's rounding, 2000x below the double
// errors checked.
using MatXLD = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
MatXLD expm_reference(const MatXLD& A) { return reference_numerics::exponential(A); }
Eigen::MatrixXd expm_eigen_double(const Eigen::MatrixXd& A) { return reference_numerics::exponential(A); }

// Reference e^A: Eigen's MatrixFunctions in long double (x87: 64-bit
// mantissa, ~2000x more precise than double) on the same (double) entries.
template <int N>
MatLD<N, N> expm_ld(const Mat<double, N, N>& A) {
  return expm_reference(to_ld(A));
}

// kappa_exp(A) in the Frobenius norm: ||K(A)||_2 ||A||_F / ||e^A||_F, with
// K(A) the N^2 x N^2 matrix of the Fréchet derivative, column (p,q) =
// vec L_A(e_p e_q^T) = top-right block of exp([[A, e_p e_q^T], [0, A]])
// (Higham, "Functions of Matrices", eq. (3.16) and Algorithm 3.17).
template <int N>
double exp_condition(const Mat<double, N, N>& A) {
  const MatLD<N, N> Al = to_ld(A);
  Eigen::MatrixXd K(N * N, N * N);
  for (int p = 0; p < N; ++p)
    for (int q = 0; q < N; ++q) {
      MatLD<2 * N, 2 * N> Z = MatLD<2 * N, 2 * N>::Zero();
      Z.template topLeftCorner<N, N>() = Al;
      Z.template bottomRightCorner<N, N>() = Al;
      Z(p, N + q) = 1.0L;
      const MatLD<2 * N, 2 * N> EZ = expm_reference(Z);
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) K(i * N + j, p * N + q) = static_cast<double>(EZ(i, N + j));
    }
  const double normK = reference_numerics::largest_singular_value(K);
  const MatLD<N, N> E = expm_reference(Al);
  return normK * fro(A) / static_cast<double>(E.norm());
}

void report(const std::string& what, double err, double tol) {
  std::printf("[ measured ] %-52s err %.3e  tol %.3e  (tol/err %.1f)\n", what.c_str(), err, tol,
              err > 0 ? tol / err : std::numeric_limits<double>::infinity());
}

// An N x N random matrix with N(0, sigma^2) entries.
template <int N>
Mat<double, N, N> random_matrix(Rng& rng, double sigma) {
  Mat<double, N, N> A;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) A(i, j) = sigma * rng.normal();
  return A;
}

// A non-normal 8x8 test matrix: random N(0, 1/8) plus a strong strictly
// upper triangular part (departure from normality) and a stable shift.
Mat<double, 8, 8> non_normal_8x8(std::uint64_t seed, double upper) {
  Rng rng{seed};
  Mat<double, 8, 8> A = random_matrix<8>(rng, 1.0 / std::sqrt(8.0));
  for (int i = 0; i < 8; ++i) {
    A(i, i) -= 0.5;
    for (int j = i + 1; j < 8; ++j) A(i, j) += upper * rng.normal();
  }
  return A;
}

}  // namespace

// ---------------------------------------------------------------- e^A

// Diagonal: e^A = diag(e^{a_i}); every product and the solve keep the
// off-diagonal zeros exact, and each diagonal entry follows the scalar
// algorithm with the matrix's s (here 2): bound tol_scalar(a_i, s).
TEST(MatrixExponential, Diagonal) {
  const double d[8] = {-13.12212620287284, -5.0, -1.0, 0.0, 0.25, 1.0, 2.5, 7.0};
  Mat<double, 8, 8> A = Mat<double, 8, 8>::zero();
  for (int i = 0; i < 8; ++i) A(i, i) = d[i];
  Mat<double, 8, 8> E;
  ASSERT_TRUE(matrix_exponential(A, E));
  const int s = squarings(norm1(A));
  for (int i = 0; i < 8; ++i) {
    const long double ref = std::exp(static_cast<long double>(d[i]));
    const double err = static_cast<double>(std::fabs(E(i, i) - ref) / ref), tol = tol_scalar(d[i], s);
    char what[96];
    std::snprintf(what, sizeof what, "diagonal a=%.6g (s=%d): rel err", d[i], s);
    report(what, err, tol);
    EXPECT_LE(err, tol);
    for (int j = 0; j < 8; ++j) {
      if (j != i) {
        EXPECT_EQ(E(i, j), 0.0) << i << "," << j;
      }
    }
  }
}

// Rotation generator [[0, -w], [w, 0]] t: e = [[cos, -sin], [sin, cos]](wt).
// Normal with ||A||_2 = wt, so kappa = wt: bound tol_kappa(wt) (absolute,
// the entries are <= 1). wt = 30 needs 3 squarings, wt = 1000 eight; 1.1437
// and 2271.1 are the worst of 4e5 values of wt in [0.01, 3e3] (1.85 u and
// 1.23 u wt).
TEST(MatrixExponential, RotationGenerator) {
  for (const double wt : {0.1, 1.1436672462577178, 30.0, 1000.0, 2271.1258756560087}) {
    Mat<double, 2, 2> A;
    A(0, 0) = 0.0; A(0, 1) = -wt; A(1, 0) = wt; A(1, 1) = 0.0;
    Mat<double, 2, 2> E;
    ASSERT_TRUE(matrix_exponential(A, E));
    const long double c = std::cos(static_cast<long double>(wt)), s = std::sin(static_cast<long double>(wt));
    const double err = static_cast<double>(std::max(std::max(std::fabs(E(0, 0) - c), std::fabs(E(0, 1) + s)),
                                                    std::max(std::fabs(E(1, 0) - s), std::fabs(E(1, 1) - c))));
    const double tol = tol_kappa(wt);
    char what[96];
    std::snprintf(what, sizeof what, "rotation wt=%.6g (%d squarings): max abs err", wt, squarings(wt));
    report(what, err, tol);
    EXPECT_LE(err, tol);
  }
}

// Nilpotent Jordan block a S (S the shift, S^6 = 0): e^{aS} = sum_k a^k S^k / k!,
// a terminating series; r_m matches it to order 2m >= 6, so the result is
// exact up to rounding. Entry (i, i+k) of r_m(aS) is a^k times the k-th
// Taylor coefficient of r_m, which the triangular solve forms from terms of
// alternating sign: its relative error depends on m (and the squarings),
// not on a. Over a in ±[0.01, 300] the worst entrywise error was 17 u, at
// the corner entry; bound 32 u. The values below are the worst per path:
// a = 1.1 (degree 9), 5.065 (degree 13), 35.91 (3 squarings).
TEST(MatrixExponential, NilpotentJordanBlock) {
  for (const double a : {1.1, 5.065, 35.91}) {
    Mat<double, 6, 6> A = Mat<double, 6, 6>::zero();
    for (int i = 0; i + 1 < 6; ++i) A(i, i + 1) = a;
    Mat<double, 6, 6> E;
    ASSERT_TRUE(matrix_exponential(A, E));
    double worst = 0.0;  // relative, entrywise
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        if (j < i) {
          EXPECT_EQ(E(i, j), 0.0);
          continue;
        }
        long double ref = 1.0L;
        for (int k = 1; k <= j - i; ++k) ref *= static_cast<long double>(a) / k;
        worst = std::max(worst, static_cast<double>(std::fabs(E(i, j) - ref) / ref));
      }
    const double tol = 32.0 * kEps;
    char what[96];
    std::snprintf(what, sizeof what, "Jordan a=%g (%d squarings): max entrywise rel err", a, squarings(a));
    report(what, worst, tol);
    EXPECT_LE(worst, tol);
  }
}

// Large norm: A = Q D Q^T (Q random orthogonal, so A is normal and
// kappa = ||A||) with eigenvalues -0.5 ± 1000i, -2 ± 300i, -1000, -50, -1,
// -0.1: ||A||_1 ~ 2e3, nine squarings, and e^A is set by the slow modes.
TEST(MatrixExponential, LargeNorm) {
  // Q: modified Gram–Schmidt on the columns of a Gaussian matrix.
  Rng rng{42};
  Eigen::Matrix<double, 8, 8> Q;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) Q(i, j) = rng.normal();
  for (int j = 0; j < 8; ++j) {
    for (int k = 0; k < j; ++k) Q.col(j) -= Q.col(k).dot(Q.col(j)) * Q.col(k);
    Q.col(j).normalize();
  }
  Eigen::Matrix<double, 8, 8> D = Eigen::Matrix<double, 8, 8>::Zero();
  D(0, 0) = D(1, 1) = -0.5; D(0, 1) = -1000.0; D(1, 0) = 1000.0;
  D(2, 2) = D(3, 3) = -2.0; D(2, 3) = -300.0; D(3, 2) = 300.0;
  D(4, 4) = -1000.0; D(5, 5) = -50.0; D(6, 6) = -1.0; D(7, 7) = -0.1;
  const Mat<double, 8, 8> A = from_eigen<8, 8>(Q * D * Q.transpose());
  Mat<double, 8, 8> E;
  ASSERT_TRUE(matrix_exponential(A, E));
  const MatLD<8, 8> ref = expm_ld(A);
  const double err = fro_diff(E, ref) / static_cast<double>(ref.norm());
  const double kappa = exp_condition(A);
  const double tol = tol_kappa(kappa);
  char what[128];
  std::snprintf(what, sizeof what, "large norm ||A||_1=%.0f (%d sq., kappa %.3g): rel F err", norm1(A),
                squarings(norm1(A)), kappa);
  report(what, err, tol);
  EXPECT_LE(err, tol);
}

// A non-normal 8x8 matrix against Eigen's own expm in double (an independent
// implementation of the same algorithm) and in long double (the reference).
TEST(MatrixExponential, NonNormalAgainstEigen) {
  for (const double upper : {1.0, 4.0}) {
    const Mat<double, 8, 8> A = non_normal_8x8(7, upper);
    Mat<double, 8, 8> E;
    ASSERT_TRUE(matrix_exponential(A, E));
    Eigen::Matrix<double, 8, 8> Ad;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) Ad(i, j) = A(i, j);
    const Eigen::Matrix<double, 8, 8> eig_d = expm_eigen_double(Ad);
    const MatLD<8, 8> ref = expm_ld(A);
    const double kappa = exp_condition(A);
    const double err = fro_diff(E, ref) / static_cast<double>(ref.norm());
    const double err_eigen = fro_diff(from_eigen<8, 8>(eig_d), ref) / static_cast<double>(ref.norm());
    const double diff = fro_diff(E, MatLD<8, 8>(eig_d.cast<long double>())) / static_cast<double>(ref.norm());
    const double tol = tol_kappa(kappa);
    char what[128];
    std::snprintf(what, sizeof what, "non-normal u=%g ||A||_1=%.3g kappa %.3g: rel F err", upper, norm1(A), kappa);
    report(what, err, tol);
    std::printf("[ measured ]   Eigen's expm in double: rel F err %.3e (not checked)\n", err_eigen);
    report("  ours vs Eigen double: rel F difference", diff, tol);
    EXPECT_LE(err, tol);
    EXPECT_LE(diff, tol);
  }
}

// exp(A) exp(-A) = I and exp(A)^2 = exp(2A). With relative errors d1, d2 of
// the two factors (each <= tol_kappa(kappa)), to first order
// ||E1 E2 - I|| <= (d1 + d2) ||E1|| ||E2|| and
// ||E^2 - E(2A)|| / ||E(2A)|| <= 2 d1 ||E||^2 / ||E(2A)|| + d2.
// ||A||_1 ~ 1.5: A takes the degree-9 path and 2A the degree-13 one, so the
// second identity compares two different evaluations (with ||A|| > theta13
// it would hold by construction: 2A is scaled to the same matrix as A).
TEST(MatrixExponential, Identities) {
  Mat<double, 8, 8> A = non_normal_8x8(11, 0.3);
  A = scaled(A, 1.5 / norm1(A));
  const Mat<double, 8, 8> mA = scaled(A, -1.0), A2 = scaled(A, 2.0);
  Mat<double, 8, 8> E, Em, E2;
  ASSERT_TRUE(matrix_exponential(A, E));
  ASSERT_TRUE(matrix_exponential(mA, Em));
  ASSERT_TRUE(matrix_exponential(A2, E2));
  const double kA = exp_condition(A), kmA = exp_condition(mA), k2A = exp_condition(A2);

  Mat<double, 8, 8> P = matmul(E, Em);
  for (int i = 0; i < 8; ++i) P(i, i) -= 1.0;
  const double err1 = fro(P);
  const double tol1 = (tol_kappa(kA) + tol_kappa(kmA)) * fro(E) * fro(Em);
  report("exp(A) exp(-A) - I (F norm)", err1, tol1);
  EXPECT_LE(err1, tol1);

  const Mat<double, 8, 8> S = matmul(E, E);
  long double s = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) s += static_cast<long double>(S(i, j) - E2(i, j)) * (S(i, j) - E2(i, j));
  const double err2 = static_cast<double>(std::sqrt(s)) / fro(E2);
  const double tol2 = 2.0 * tol_kappa(kA) * fro(E) * fro(E) / fro(E2) + tol_kappa(k2A);
  report("exp(A)^2 - exp(2A) (rel F norm)", err2, tol2);
  EXPECT_LE(err2, tol2);
}

// ---------------------------------------------------------------- zero-order hold

// Scalar: Phi = e^{aT}, Gamma = (e^{aT} - 1)/a b (expm1 avoids the
// cancellation). Both come from the same Padé evaluation of [[x, bT], [0, 0]],
// x = aT, with the squarings of x alone: bound tol_scalar(x, s) for both
// (the worst of 10^6 random x was 0.62 of it, for Gamma at x = 0.337).
// For x < 0 Gamma is better than that: Gamma = (1 - e^x) / |x| b is carried
// by the terms that do not cancel (its condition number is < 1), and over
// x in [-1000, 0] its error stayed below 3.4 u: bound 8 u. Apart from
// a = -2.5, T = 0.3, the values of x are the worst of those scans.
TEST(ZeroOrderHold, Scalar) {
  const double cases[][2] = {{-2.5, 0.3},  // {a, T}
                             {-0.25758730748059655, 1.0}, {0.33685429204619133, 1.0},
                             {-3.2223872061158545, 1.0},  {3.0897875800076195, 1.0},
                             {20.852424195283582, 1.0},   {-98.503940738695533, 1.0}};
  for (const auto& c : cases) {
    const double a = c[0], T = c[1], b = 1.7;
    Mat<double, 1, 1> A, B, Phi, Gamma;
    A(0, 0) = a;
    B(0, 0) = b;
    ASSERT_TRUE(zero_order_hold(A, B, T, Phi, Gamma));
    const long double aT = static_cast<long double>(a) * T;
    const long double phi = std::exp(aT), gamma = std::expm1(aT) / a * b;
    const double e_phi = static_cast<double>(std::fabs(Phi(0, 0) - phi) / phi);
    const double e_gam = static_cast<double>(std::fabs(Gamma(0, 0) - gamma) / std::fabs(gamma));
    const double x = a * T;
    const double tol = tol_scalar(x, squarings(std::fabs(x)));
    const double tol_gam = x < 0.0 ? 8.0 * kEps : tol;
    char what[96];
    std::snprintf(what, sizeof what, "ZOH scalar aT=%.6g (s=%d): rel err", x, squarings(std::fabs(x)));
    report(std::string(what) + " Phi", e_phi, tol);
    report(std::string(what) + " Gamma", e_gam, tol_gam);
    EXPECT_LE(e_phi, tol);
    EXPECT_LE(e_gam, tol_gam);
  }
}

// A = 0: Phi = I and Gamma = T B, both exact in exact arithmetic; the
// degree-3 path with Z^2 = 0 reproduces them to rounding.
TEST(ZeroOrderHold, ZeroA) {
  Rng rng{5};
  const Mat<double, 3, 3> A = Mat<double, 3, 3>::zero();
  Mat<double, 3, 2> B;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) B(i, j) = rng.normal() * (j == 0 ? 1.0 : 1e9);  // second input in other units
  const double T = 0.7;
  Mat<double, 3, 3> Phi;
  Mat<double, 3, 2> Gamma;
  ASSERT_TRUE(zero_order_hold(A, B, T, Phi, Gamma));
  double e_phi = 0.0, e_gam = 0.0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) e_phi = std::max(e_phi, std::fabs(Phi(i, j) - (i == j ? 1.0 : 0.0)));
    for (int j = 0; j < 2; ++j) {
      const long double ref = static_cast<long double>(T) * B(i, j);
      e_gam = std::max(e_gam, static_cast<double>(std::fabs(Gamma(i, j) - ref) / std::fabs(ref)));
    }
  }
  report("ZOH A=0: max |Phi - I|", e_phi, 0.0);
  report("ZOH A=0: max entrywise rel err of Gamma vs T B", e_gam, 2.0 * kEps);
  EXPECT_EQ(e_phi, 0.0);
  EXPECT_LE(e_gam, 2.0 * kEps);
}

namespace {

// The 8x8, 2-input system of the next tests: a stable non-normal A (the
// spectral abscissa is negative), B with its second input in other units.
struct System8 {
  Mat<double, 8, 8> A;
  Mat<double, 8, 2> B;
  double T = 0.5;
};
System8 system8(double b2_scale) {
  System8 s;
  s.A = non_normal_8x8(3, 1.0);
  Rng rng{9};
  for (int i = 0; i < 8; ++i) {
    s.B(i, 0) = rng.normal();
    s.B(i, 1) = b2_scale * rng.normal();
  }
  return s;
}

// Gamma = int_0^T e^{As} ds B by composite Simpson with n intervals, in
// long double, e^{As} at each node from Eigen (long double).
MatLD<8, 2> simpson_gamma(const System8& s, int n) {
  const MatLD<8, 8> Al = to_ld(s.A);
  const MatLD<8, 2> Bl = to_ld(s.B);
  const long double h = static_cast<long double>(s.T) / n;
  MatLD<8, 2> sum = MatLD<8, 2>::Zero();
  for (int k = 0; k <= n; ++k) {
    const long double w = (k == 0 || k == n) ? 1.0L : (k % 2 ? 4.0L : 2.0L);
    const MatLD<8, 8> Ek = expm_reference(Al * (h * k));
    sum += w * (Ek * Bl);
  }
  return sum * (h / 3.0L);
}

}  // namespace

// Gamma against quadrature, and Phi against e^{AT}. The second run puts the
// second input in units 1e9 larger (a pressure next to a force): the
// power-of-2 column scaling inside zero_order_hold must keep Phi as accurate
// as e^{AT} alone (without it, Phi's error was 3.4e-8 here) and Gamma's
// columns as accurate as before, relative to their own size.
TEST(ZeroOrderHold, AgainstSimpsonQuadrature) {
  for (const double b2_scale : {1.0, 1e9}) {
    const System8 s = system8(b2_scale);
    Mat<double, 8, 8> Phi;
    Mat<double, 8, 2> Gamma;
    ASSERT_TRUE(zero_order_hold(s.A, s.B, s.T, Phi, Gamma));
    // Simpson's error is O(h^4): the difference between n and n/2 intervals
    // estimates 15x the error of the finer one.
    const MatLD<8, 2> ref = simpson_gamma(s, 4000), coarse = simpson_gamma(s, 2000);
    const Mat<double, 8, 8> AT = scaled(s.A, s.T);
    const double kappa = exp_condition(AT);
    double err = 0.0, quad = 0.0;  // max over the two columns of the column-relative error
    for (int j = 0; j < 2; ++j) {
      long double d = 0, q = 0;
      for (int i = 0; i < 8; ++i) {
        d += (Gamma(i, j) - ref(i, j)) * (Gamma(i, j) - ref(i, j));
        q += (ref(i, j) - coarse(i, j)) * (ref(i, j) - coarse(i, j));
      }
      const double cn = static_cast<double>(ref.col(j).norm());
      err = std::max(err, static_cast<double>(std::sqrt(d)) / cn);
      quad = std::max(quad, static_cast<double>(std::sqrt(q)) / 15.0 / cn);
    }
    // Phi against e^{AT} from the routine itself (same degree and squarings,
    // thanks to the column scaling of B) and against the reference.
    Mat<double, 8, 8> E;
    ASSERT_TRUE(matrix_exponential(AT, E));
    const MatLD<8, 8> ref_phi = expm_ld(AT);
    double self = 0.0;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) self = std::max(self, std::fabs(Phi(i, j) - E(i, j)) / std::fabs(E(i, j)));
    const double e_phi = fro_diff(Phi, ref_phi) / static_cast<double>(ref_phi.norm());
    const double tol = tol_kappa(kappa) + 2.0 * quad;
    char what[128];
    std::snprintf(what, sizeof what, "ZOH 8x8 B2 x%g (kappa(AT) %.3g): Gamma vs Simpson", b2_scale, kappa);
    report(what, err, tol);
    std::printf("[ measured ]   Simpson error estimate %.3e; Phi rel F err %.3e; max entrywise |Phi - expm(AT)|/|.| %.3e\n",
                quad, e_phi, self);
    EXPECT_LE(err, tol);
    EXPECT_LE(e_phi, tol_kappa(kappa));
    // Same degree and squarings as e^{AT} alone; only the LU pivot order could
    // differ (its row scaling sees the B columns): measured identical.
    EXPECT_LE(self, 4.0 * kEps);
  }
}

// One discrete step Phi x0 + Gamma u against classical RK4 in long double
// (20 000 steps of h = 2.5e-5: truncation ~ T (h |lambda|)^4 |lambda| / 120
// ~ 1e-19, rounding ~ sqrt(20 000) 1e-19 ~ 1e-17; printed below against
// Eigen's long double exponential of the augmented matrix).
TEST(ZeroOrderHold, DiscreteStepAgainstRK4) {
  const System8 s = system8(1.0);
  Mat<double, 8, 8> Phi;
  Mat<double, 8, 2> Gamma;
  ASSERT_TRUE(zero_order_hold(s.A, s.B, s.T, Phi, Gamma));
  Rng rng{17};
  Eigen::Matrix<long double, 8, 1> x0;
  for (int i = 0; i < 8; ++i) x0(i) = rng.normal();
  Eigen::Matrix<long double, 2, 1> u(0.3L, -1.2L);
  const MatLD<8, 8> Al = to_ld(s.A);
  const Eigen::Matrix<long double, 8, 1> Bu = to_ld(s.B) * u;
  const int n = 20000;
  const long double h = static_cast<long double>(s.T) / n;
  Eigen::Matrix<long double, 8, 1> x = x0;
  auto f = [&](const Eigen::Matrix<long double, 8, 1>& y) -> Eigen::Matrix<long double, 8, 1> { return Al * y + Bu; };
  for (int k = 0; k < n; ++k) {
    const auto k1 = f(x), k2 = f(x + 0.5L * h * k1), k3 = f(x + 0.5L * h * k2), k4 = f(x + h * k3);
    x += h / 6.0L * (k1 + 2.0L * k2 + 2.0L * k3 + k4);
  }
  long double d = 0;
  for (int i = 0; i < 8; ++i) {
    long double xi = 0;
    for (int j = 0; j < 8; ++j) xi += Phi(i, j) * x0(j);
    for (int j = 0; j < 2; ++j) xi += Gamma(i, j) * u(j);
    d += (xi - x(i)) * (xi - x(i));
  }
  const double err = static_cast<double>(std::sqrt(d) / x.norm());
  {
    // The same step with the constant input as a ninth state: x(T) is the top of
    // exp([[A T, B u T], [0, 0]]) [x0; 1].
    MatLD<9, 9> Z = MatLD<9, 9>::Zero();
    Z.topLeftCorner<8, 8>() = Al * static_cast<long double>(s.T);
    Z.block<8, 1>(0, 8) = Bu * static_cast<long double>(s.T);
    const MatLD<9, 9> EZ = expm_reference(Z);
    const Eigen::Matrix<long double, 8, 1> xv = EZ.topLeftCorner<8, 8>() * x0 + EZ.block<8, 1>(0, 8);
    std::printf("[ measured ]   RK4 reference vs Eigen long double: rel %.3e\n",
                static_cast<double>((x - xv).norm() / x.norm()));
  }
  const double kappa = exp_condition(scaled(s.A, s.T));
  const double tol = tol_kappa(kappa);
  report("ZOH step Phi x0 + Gamma u vs RK4: rel err", err, tol);
  EXPECT_LE(err, tol);
}

namespace {

// A hydraulic cylinder moving a mass, linearized about rest (the units the
// stability map's plants mix): states x [m], v [m/s], p1, p2 [Pa], input the
// valve voltage [V]. m v' = A1 p1 - A2 p2 - c v; p1' = beta/V1 (-A1 v - CL p1
// + Kq u); p2' = beta/V2 (A2 v - CL p2 - Kq u). The pressure-build-up entries
// are ~1e9, the pressure-to-acceleration ones ~1e-5: ||A T||_1 ~ 3e6 at the
// controller period T = 1 ms, while in units where a pressure is 2^24 Pa
// (~17 MPa) every entry of A T is below 0.3 in magnitude.
struct Hydraulic4 {
  Mat<double, 4, 4> A = Mat<double, 4, 4>::zero();
  Mat<double, 4, 1> B = Mat<double, 4, 1>::zero();
  double T = 1e-3;
};
Hydraulic4 hydraulic4() {
  const double m = 500.0, A1 = 5e-3, A2 = 3e-3, c = 1.5e4, beta = 8e8, V1 = 2e-3, V2 = 1.5e-3, CL = 1e-12,
               Kq = 1e-5;
  Hydraulic4 s;
  s.A(0, 1) = 1.0;
  s.A(1, 1) = -c / m;
  s.A(1, 2) = A1 / m;
  s.A(1, 3) = -A2 / m;
  s.A(2, 1) = -beta / V1 * A1;
  s.A(2, 2) = -beta / V1 * CL;
  s.A(3, 1) = beta / V2 * A2;
  s.A(3, 3) = -beta / V2 * CL;
  s.B(2, 0) = beta / V1 * Kq;
  s.B(3, 0) = -beta / V2 * Kq;
  return s;
}

}  // namespace

// Mixed units (docs/models/manipulator.md §11.7): Phi and Gamma against
// Van Loan's exponential evaluated in long double in units where the matrix
// is balanced (pressures in 2^24 Pa: a change of units by a power of 2, exact
// in both directions), errors measured in those units (a similarity leaves
// the map's eigenvalues unchanged, so these are the errors that move them).
// The bound is the double routine's on the balanced matrix, tol_kappa with
// kappa = kappa_exp of the balanced A T; the multipliers mu of Phi (eigenvalues,
// as the stability map computes them: lambda = ln mu / T) against the
// reference's. Measured: 9.0e-17 (Phi), 1.5e-16 (Gamma), 2.2e-16 (mu); before
// zero_order_hold balanced A T (20 squarings of the unbalanced ||A T||_1 =
// 3.6e6) the same test measured 3.4e-11, 2.4e-11 and 4.7e-11.
TEST(ZeroOrderHold, MixedUnitsAgainstABalancedReference) {
  const Hydraulic4 s = hydraulic4();
  Mat<double, 4, 4> Phi;
  Mat<double, 4, 1> Gamma;
  ASSERT_TRUE(zero_order_hold(s.A, s.B, s.T, Phi, Gamma));
  const long double d[4] = {1.0L, 1.0L, 0x1p24L, 0x1p24L};  // the pressure unit, 2^24 Pa
  MatLD<5, 5> Z = MatLD<5, 5>::Zero();
  Mat<double, 4, 4> ATb;  // A T in the balanced units (exact: powers of 2)
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      ATb(i, j) = static_cast<double>(s.A(i, j) * s.T * d[j] / d[i]);
      Z(i, j) = static_cast<long double>(s.A(i, j)) * s.T * d[j] / d[i];
    }
    Z(i, 4) = static_cast<long double>(s.B(i, 0)) * s.T / d[i];
  }
  ASSERT_LE(norm1(ATb), 0.6);
  const MatLD<5, 5> EZ = expm_reference(Z);  // balanced Phi and Gamma
  long double dphi = 0, nphi = 0, dgam = 0, ngam = 0;
  Eigen::Matrix<double, 4, 4> phi_b;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const long double ours = Phi(i, j) * d[j] / d[i];
      phi_b(i, j) = static_cast<double>(ours);
      dphi += (ours - EZ(i, j)) * (ours - EZ(i, j));
      nphi += EZ(i, j) * EZ(i, j);
    }
    const long double ours = Gamma(i, 0) / d[i];
    dgam += (ours - EZ(i, 4)) * (ours - EZ(i, 4));
    ngam += EZ(i, 4) * EZ(i, 4);
  }
  const double e_phi = static_cast<double>(std::sqrt(dphi / nphi));
  const double e_gam = static_cast<double>(std::sqrt(dgam / ngam));
  const double kappa = exp_condition(ATb);
  const double tol = tol_kappa(kappa);
  char what[128];
  std::snprintf(what, sizeof what, "ZOH hydraulic 4x4 (kappa(balanced AT) %.3g): Phi", kappa);
  report(what, e_phi, tol);
  report("ZOH hydraulic 4x4: Gamma", e_gam, tol);
  EXPECT_LE(e_phi, tol);
  EXPECT_LE(e_gam, tol);
  // Multipliers: both spectra sorted by (real, imaginary part); |mu - mu_ref|.
  const MatXLD ref_b = EZ.topLeftCorner<4, 4>();
  const auto mu_ref = reference_numerics::spectrum(ref_b, false).values;
  const auto mu = reference_numerics::spectrum(Eigen::MatrixXd(phi_b), false).values;
  auto sorted = [](auto v) {
    std::vector<std::complex<long double>> out;
    for (int k = 0; k < 4; ++k) out.emplace_back(v(k).real(), v(k).imag());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag();
    });
    return out;
  };
  const auto a = sorted(mu), b = sorted(mu_ref);
  double e_mu = 0.0;
  for (int k = 0; k < 4; ++k) e_mu = std::max(e_mu, static_cast<double>(std::abs(a[k] - b[k])));
  std::printf("[ measured ]   multipliers:");
  for (int k = 0; k < 4; ++k) std::printf(" (%.9Lf, %.9Lf)", b[k].real(), b[k].imag());
  std::printf("\n");
  report("ZOH hydraulic 4x4: max |mu - mu_ref|", e_mu, tol);
  EXPECT_LE(e_mu, tol);
}

// ---------------------------------------------------------------- failures

TEST(MatrixExponential, NonFiniteInputFails) {
  Mat<double, 3, 3> A = Mat<double, 3, 3>::zero(), E;
  A(1, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(matrix_exponential(A, E));
  A(1, 2) = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(matrix_exponential(A, E));
  // Overflow of the result (e^800) is reported too.
  A = Mat<double, 3, 3>::zero();
  A(0, 0) = 800.0;
  EXPECT_FALSE(matrix_exponential(A, E));

  Mat<double, 3, 3> Phi;
  Mat<double, 3, 1> B = Mat<double, 3, 1>::zero(), Gamma;
  A = Mat<double, 3, 3>::zero();
  EXPECT_FALSE(zero_order_hold(A, B, std::numeric_limits<double>::quiet_NaN(), Phi, Gamma));
  B(2, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(zero_order_hold(A, B, 1.0, Phi, Gamma));
  B(2, 0) = 1.0;
  EXPECT_TRUE(zero_order_hold(A, B, 0.0, Phi, Gamma));  // T = 0: Phi = I, Gamma = 0
  EXPECT_EQ(Phi(1, 1), 1.0);
  EXPECT_EQ(Gamma(2, 0), 0.0);
}
