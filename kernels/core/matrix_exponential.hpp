// Matrix exponential of a small dense real matrix, and the exact zero-order-
// hold discretization of a linear system built on it; one matrix per thread
// (host and device), no allocation, no exceptions (a bool status instead).
//
// The mathematics: scaling and squaring with diagonal Padé approximants,
// as in Higham, "The scaling and squaring method for the matrix exponential
// revisited", SIAM J. Matrix Anal. Appl. 26(4):1179-1193, 2005 (Algorithm
// 2.3; also Higham, "Functions of Matrices", SIAM 2008, Algorithm 10.20).
//
//  1. Padé approximant. r_m(x) = p_m(x) / p_m(-x), with
//         p_m(x) = sum_j b_j x^j,  b_j ∝ (2m-j)! m! / ((2m)! j! (m-j)!),
//     matches the Taylor series of e^x to order 2m. Split p_m(A) into its
//     even and odd parts, p_m(A) = V + U (V even, U = A * even polynomial),
//     then p_m(-A) = V - U and r_m(A) is the solution E of (V - U) E = V + U
//     (one LU factorization, N right-hand sides). For m = 13 the even
//     polynomials are evaluated from A^2, A^4, A^6 only (Higham eq. (2.3)):
//         U = A [A^6 (b13 A^6 + b11 A^4 + b9 A^2) + b7 A^6 + b5 A^4 + b3 A^2 + b1 I]
//         V =    A^6 (b12 A^6 + b10 A^4 + b8 A^2) + b6 A^6 + b4 A^4 + b2 A^2 + b0 I
//     i.e. 6 matrix products and one solve for a degree-13 approximant.
//
//  2. Why the thresholds theta_m. Higham writes r_m(A) = e^{A + dA} and bounds
//     the backward error ||dA|| / ||A|| by a function of ||A|| alone; theta_m is
//     the largest 1-norm for which that bound is <= u = 2^-53 (Table 2.3).
//     So: if ||A||_1 <= theta_m for m in {3, 5, 7, 9}, the cheapest such r_m
//     is already exact to working precision (2, 3, 4, 5 products); otherwise
//     A is scaled by 2^-s, s = ceil(log2(||A||_1 / theta_13)), r_13 is applied,
//     and the result is squared s times: e^A = (e^{A/2^s})^{2^s}. The scaling
//     by a power of 2 is exact. Degree 13 is the one Higham's cost analysis
//     finds cheapest once scaling is needed (Higham §2-3), theta_13 =
//     5.371920351148152 its threshold.
//
//  3. What to expect. The truncation (backward) error of the Padé step is
//     <= u ||A|| by the choice of theta_m; Higham §3 bounds the rounding
//     errors of evaluating r_m (the denominator V - U is well conditioned for
//     ||A||_1 <= theta_m, so the solve is benign); the squaring phase has no
//     such bound but behaves well in practice. The forward error is then about
//     kappa_exp(A) u, kappa_exp(A) >= ||A|| the condition number (equality for
//     normal A); tests/test_matrix_exponential.cpp measures <= 0.42 kappa u
//     plus a floor of ~2 u. One exception is built into the method: for a real
//     eigenvalue x the odd and even parts cancel at y = x / 2^s (in V + U for
//     y < 0, in V - U for y > 0, by a factor up to e^|y| <= e^theta13 ~ 215),
//     so e^x gets a relative error up to ~u 2^s e^{|y|}, i.e. up to ~40 u |x|
//     (measured near x = -5.4; Eigen's and MATLAB's expm share it).
//     Overscaling (more squarings than the spectrum needs, for strongly non-
//     normal A of large norm) is the other known weakness of this version;
//     Al-Mohy & Higham, SIAM J. Matrix Anal. Appl. 31(3):970-989, 2009, fix it
//     with ||A^k||^(1/k) estimates, not done here.
//
// Zero-order hold (Van Loan, "Computing integrals involving the matrix
// exponential", IEEE Trans. Automat. Control 23(3):395-404, 1978): for
// x' = A x + B u with u constant over [0, T],
//     x(T) = Phi x(0) + Gamma u,  Phi = e^{AT},  Gamma = int_0^T e^{As} ds B,
// and both come from one exponential of the block upper triangular
//     Z = [[A T, B T], [0, 0]],   e^Z = [[Phi, Gamma], [0, I]]
// (differentiate e^{Zt} in t: the top-right block solves G' = A G + B, G(0) = 0).
// Two exact similarities by powers of 2 come first.
// (a) The states: A T is balanced (kernels/core/balance.hpp), A T <- D^{-1} A T D,
// and the rows of B T divided by D, i.e. Z <- diag(D, I)^{-1} Z diag(D, I);
// Phi and Gamma get D back at the end (Phi <- D Phi D^{-1}, Gamma <- D Gamma).
// The balancing is kept only where it lowers ||A T||_1. Why: a plant whose
// states mix units (pressures in Pa next to angles in rad) has entries ~1e9 and
// ~1e-5 in A; its 1-norm is set by the large ones, so scaling and squaring
// takes ~20 squarings where the balanced matrix needs none, and the error of
// Phi, relative to ||Phi||, lands on the small entries that couple the
// mechanics to the pressures. Measured on a cylinder-and-mass plant at T = 1 ms
// (tests/test_matrix_exponential.cpp, MixedUnitsAgainstABalancedReference):
// Phi's error in balanced units 3.4e-11 without, 9.0e-17 with; the map's
// multipliers 4.7e-11 and 2.2e-16.
// (b) The inputs: the columns of B T are scaled by powers of 2, c_j, so that none
// has a larger 1-norm than max(||A T||_1, theta_3) (A T balanced): the
// similarity diag(I, C) Z diag(I, C)^{-1}, which only divides the
// top-right block of e^Z by C. Without it a B in different units (a pressure
// input, entries ~1e9) would set ||Z||_1, adding squarings that Phi does not
// need and that only cost accuracy; with it the degree and the number of
// squarings are those of e^{AT} alone (the top-left block of every product and
// of the block-triangular solve involves only A T, so Phi is e^{AT} up to the
// pivot order of the LU). Measured on an 8x8 system whose second input is in
// units 1e3 / 1e6 / 1e9 larger: without the scaling Phi's relative error is
// 5.5e-14 / 1.1e-10 / 3.4e-8, with it 1.9e-16 in all three. Each column's
// scaling is exact unless its entries span so many decades that the
// smallest become subnormal.
//
// Written for per-thread use in kernels (docs/models/README.md §5.2): fixed
// size, no allocation; matrix_exponential keeps five N x N temporaries on the
// stack besides the output, zero_order_hold the (N+M) x (N+M) matrix Z and the
// N scales of D plus those of matrix_exponential<N+M> (it exponentiates Z in
// place; Phi is the balancing's workspace). Loops have
// compile-time bounds except the s squarings (s <= 1023 for a finite norm).
#pragma once
#include <cmath>

#include "balance.hpp"
#include "hd.hpp"
#include "lu.hpp"
#include "small_matrix.hpp"

// HS_NO_UNROLL before a loop asks the device compiler to keep it rolled. Fully
// unrolled, the N^3 loops here let nvcc promote all five temporaries to
// registers, which then spill (N = 8, sm_90: 7.6 KB stack frame and 15 KB of
// spill stores; with the marked loops rolled: 2.7 KB, no spills). Its
// definition belongs in hd.hpp, with the other compiler-dependent macros
// (_Pragma("unroll 1") under nvcc, nothing for host compilers); until hd.hpp
// defines it, it expands to nothing here.
#ifndef HS_NO_UNROLL
#define HS_NO_UNROLL
#endif

namespace hs {

namespace expm_detail {

// Higham 2005, Table 2.3 (u = 2^-53).
constexpr double kTheta3 = 1.495585217958292e-2;
constexpr double kTheta5 = 2.539398330063230e-1;
constexpr double kTheta7 = 9.504178996162932e-1;
constexpr double kTheta9 = 2.097847961257068e0;
constexpr double kTheta13 = 5.371920351148152e0;

HS_HD HS_FORCEINLINE bool is_finite(double x) { return x - x == 0.0; }

// 1-norm (largest column sum of |a_ij|); NaN or infinity as soon as a column
// has a non-finite entry (a plain max would silently skip a NaN column).
template <int R, int C>
HS_HD double norm1(const Mat<double, R, C>& A) {
  double n = 0.0;
  for (int j = 0; j < C; ++j) {
    double c = 0.0;
    for (int i = 0; i < R; ++i) c += ::fabs(A(i, j));
    if (!is_finite(c)) return c;
    if (c > n) n = c;
  }
  return n;
}

// Z = X Y; Z must not be X or Y.
template <int N>
HS_HD void matmul(const Mat<double, N, N>& X, const Mat<double, N, N>& Y, Mat<double, N, N>& Z) {
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0.0;
      for (int k = 0; k < N; ++k) s += X(i, k) * Y(k, j);
      Z(i, j) = s;
    }
}

// Odd part U and even part V of p_13(A) (Higham eq. (2.3)). A2 must hold A^2
// on entry; A4, A6 are scratch. A is overwritten (used as scratch once U is
// formed).
template <int N>
HS_HD void pade13(Mat<double, N, N>& A, const Mat<double, N, N>& A2, Mat<double, N, N>& A4,
                  Mat<double, N, N>& A6, Mat<double, N, N>& U, Mat<double, N, N>& V) {
  const double b[14] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                        1187353796428800.0,  129060195264000.0,   10559470521600.0,
                        670442572800.0,      33522128640.0,       1323241920.0,
                        40840800.0,          960960.0,            16380.0,
                        182.0,               1.0};
  matmul(A2, A2, A4);
  matmul(A4, A2, A6);
  // Odd part: U = A [A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I].
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) U(i, j) = b[13] * A6(i, j) + b[11] * A4(i, j) + b[9] * A2(i, j);
  matmul(A6, U, V);
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      V(i, j) += b[7] * A6(i, j) + b[5] * A4(i, j) + b[3] * A2(i, j) + (i == j ? b[1] : 0.0);
  matmul(A, V, U);
  // Even part, with A free for the inner sum:
  // V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I.
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) A(i, j) = b[12] * A6(i, j) + b[10] * A4(i, j) + b[8] * A2(i, j);
  matmul(A6, A, V);
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      V(i, j) += b[6] * A6(i, j) + b[4] * A4(i, j) + b[2] * A2(i, j) + (i == j ? b[0] : 0.0);
}

// Odd part (returned in Uout) and even part V of p_m(A) for m in {3, 5, 7, 9},
// from A^2, A^4, A^6, A^8 (Higham eqs. (2.1)-(2.2)). A2 holds A^2 on entry and
// is overwritten (A^8 goes there); A4 is scratch; Uout is A6's storage.
template <int N>
HS_HD void pade_low(int m, const Mat<double, N, N>& A, Mat<double, N, N>& A2, Mat<double, N, N>& A4,
                    Mat<double, N, N>& Uout, Mat<double, N, N>& U, Mat<double, N, N>& V) {
  double b[10] = {};  // unused entries stay 0 (and keep -Wmaybe-uninitialized quiet)
  if (m == 3) {
    b[0] = 120.0; b[1] = 60.0; b[2] = 12.0; b[3] = 1.0;
  } else if (m == 5) {
    b[0] = 30240.0; b[1] = 15120.0; b[2] = 3360.0; b[3] = 420.0; b[4] = 30.0; b[5] = 1.0;
  } else if (m == 7) {
    b[0] = 17297280.0; b[1] = 8648640.0; b[2] = 1995840.0; b[3] = 277200.0;
    b[4] = 25200.0; b[5] = 1512.0; b[6] = 56.0; b[7] = 1.0;
  } else {
    b[0] = 17643225600.0; b[1] = 8821612800.0; b[2] = 2075673600.0; b[3] = 302702400.0;
    b[4] = 30270240.0; b[5] = 2162160.0; b[6] = 110880.0; b[7] = 3960.0; b[8] = 90.0; b[9] = 1.0;
  }
  // U accumulates the even polynomial that multiplies A, V the even part.
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      U(i, j) = b[3] * A2(i, j) + (i == j ? b[1] : 0.0);
      V(i, j) = b[2] * A2(i, j) + (i == j ? b[0] : 0.0);
    }
  if (m >= 5) {
    matmul(A2, A2, A4);
    HS_NO_UNROLL
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) { U(i, j) += b[5] * A4(i, j); V(i, j) += b[4] * A4(i, j); }
  }
  if (m >= 7) {
    matmul(A4, A2, Uout);  // A^6
    HS_NO_UNROLL
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) { U(i, j) += b[7] * Uout(i, j); V(i, j) += b[6] * Uout(i, j); }
  }
  if (m >= 9) {
    matmul(A4, A4, A2);  // A^8 (A^2 is no longer needed)
    HS_NO_UNROLL
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) { U(i, j) += b[9] * A2(i, j); V(i, j) += b[8] * A2(i, j); }
  }
  matmul(A, U, Uout);
}

}  // namespace expm_detail

// E = e^A. Returns false if A has a NaN or an infinity, if the Padé
// denominator is singular to working precision, or if the result overflows
// (E is then unspecified). E may be the same object as A.
template <int N>
HS_HD bool matrix_exponential(const Mat<double, N, N>& A, Mat<double, N, N>& E) {
  using namespace expm_detail;
  const double norm = norm1(A);
  if (!is_finite(norm)) return false;
  int m = 13, s = 0;
  if (norm <= kTheta3) {
    m = 3;
  } else if (norm <= kTheta5) {
    m = 5;
  } else if (norm <= kTheta7) {
    m = 7;
  } else if (norm <= kTheta9) {
    m = 9;
  } else if (norm > kTheta13) {
    // Smallest s with norm / 2^s <= theta13: norm / theta13 = f 2^e, f in [0.5, 1).
    int e = 0;
    const double f = ::frexp(norm / kTheta13, &e);
    s = f == 0.5 ? e - 1 : e;
  }
  // From here on A is not read again (so E may alias it); E holds 2^-s A.
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) E(i, j) = ::ldexp(A(i, j), -s);

  Mat<double, N, N> P2, P4, P6, U, V;
  matmul(E, E, P2);
  const Mat<double, N, N>* odd = &U;
  if (m == 13) {
    pade13(E, P2, P4, P6, U, V);
  } else {
    pade_low(m, E, P2, P4, P6, U, V);
    odd = &P6;
  }
  // Solve (V - U) R = V + U: denominator into P2, numerator into P4.
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      P2(i, j) = V(i, j) - (*odd)(i, j);
      P4(i, j) = V(i, j) + (*odd)(i, j);
    }
  int perm[N];
  if (!lu_factor(P2, perm)) return false;
  double rhs[N], x[N];
  HS_NO_UNROLL
  for (int j = 0; j < N; ++j) {
    for (int i = 0; i < N; ++i) rhs[i] = P4(i, j);
    lu_solve(P2, perm, rhs, x);
    for (int i = 0; i < N; ++i) E(i, j) = x[i];
  }
  // Undo the scaling: e^A = (e^{A/2^s})^{2^s}.
  for (int k = 0; k < s; ++k) {
    matmul(E, E, P2);
    E = P2;
  }
  HS_NO_UNROLL
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      if (!is_finite(E(i, j))) return false;
  return true;
}

// Exact discretization of x' = A x + B u with u held constant over [0, T]:
// x(T) = Phi x(0) + Gamma u, Phi = e^{AT}, Gamma = int_0^T e^{As} ds B, from
// the exponential of [[A T, B T], [0, 0]] (Van Loan 1978; see the top of this
// file). Returns false under the conditions of matrix_exponential (T or an
// entry of A, B not finite, singular denominator, overflow); Phi and Gamma
// are then unspecified. T may be zero (Phi = I, Gamma = 0) or negative.
template <int N, int M>
HS_HD bool zero_order_hold(const Mat<double, N, N>& A, const Mat<double, N, M>& B, double T,
                           Mat<double, N, N>& Phi, Mat<double, N, M>& Gamma) {
  using namespace expm_detail;
  constexpr int K = N + M;
  // A T, balanced: D^{-1} A T D with d_i powers of 2 (exact), kept only where
  // it lowers the 1-norm. Phi is the workspace; D is undone on Phi and Gamma.
  double d[N];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) Phi(i, j) = A(i, j) * T;
  const double norm_in = norm1(Phi);
  if (!is_finite(norm_in)) return false;
  balance_by_powers_of_two(Phi, d);
  double norm_a = norm1(Phi);
  if (!(norm_a < norm_in)) {
    norm_a = norm_in;
    for (int i = 0; i < N; ++i) {
      d[i] = 1.0;
      for (int j = 0; j < N; ++j) Phi(i, j) = A(i, j) * T;
    }
  }
  Mat<double, K, K> Z;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) Z(i, j) = Phi(i, j);
  // Column j of D^{-1} B T is scaled by 2^-shift[j] so that its 1-norm is at
  // most max(||D^{-1} A T D||_1, theta3): exact, and undone on Gamma's column below.
  const double target = norm_a > kTheta3 ? norm_a : kTheta3;
  int shift[M];
  for (int j = 0; j < M; ++j) {
    double c = 0.0;
    for (int i = 0; i < N; ++i) c += ::fabs(B(i, j) * T / d[i]);
    if (!is_finite(c)) return false;
    shift[j] = 0;
    if (c > target) ::frexp(c / target, &shift[j]);  // c / target = f 2^e, f < 1: c 2^-e < target
    for (int i = 0; i < N; ++i) Z(i, N + j) = ::ldexp(B(i, j) * T / d[i], -shift[j]);
  }
  for (int i = N; i < K; ++i)
    for (int j = 0; j < K; ++j) Z(i, j) = 0.0;

  if (!matrix_exponential(Z, Z)) return false;
  // e^{[[A T, B T], [0, 0]]} = diag(D, I) e^Z diag(D, I)^{-1}.
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      Phi(i, j) = Z(i, j) * (d[i] / d[j]);
      if (!is_finite(Phi(i, j))) return false;
    }
  for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i) {
      Gamma(i, j) = ::ldexp(Z(i, N + j) * d[i], shift[j]);
      if (!is_finite(Gamma(i, j))) return false;
    }
  return true;
}

}  // namespace hs
