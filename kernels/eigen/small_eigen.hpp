// Eigenvalues of a small dense nonsymmetric real matrix, one matrix per
// thread (host and device), no allocation.
//
// The mathematics, in three similarity transformations (each preserves the
// eigenvalues; Golub & Van Loan, "Matrix Computations", 4th ed., ch. 7):
//
//  1. Balancing (Parlett & Reinsch 1969; LAPACK dgebal, job 'S'):
//     A <- D^{-1} A D with D diagonal, entries powers of 2 (so the scaling
//     itself is exact), chosen so that row i and column i have comparable
//     norms. The QR algorithm is backward stable *in norm*: it returns the
//     exact eigenvalues of A + E with ||E|| ~ eps ||A||. Our Jacobians mix
//     rows of size 1e-5 (pressure -> acceleration) with rows of 1e9..1e10
//     (pressure build-up), so ||A|| is set by the pressure rows and an
//     E of that size wipes out the small mechanical eigenvalues. Balancing
//     shrinks ||A|| to near its minimum over diagonal similarities, so the
//     same relative backward error becomes a small absolute one for every
//     eigenvalue (G&VL §7.5.7).
//
//  2. Householder reduction to upper Hessenberg form H = Q^T A Q
//     (G&VL Algorithm 7.4.2): n-2 reflectors zero each column below the
//     first subdiagonal. A QR step on a Hessenberg matrix costs O(n^2)
//     instead of O(n^3) and keeps the Hessenberg form.
//
//  3. Francis implicit double-shift QR (G&VL Algorithms 7.5.1 and 7.5.2;
//     the EISPACK hqr structure). Each step applies, implicitly, the two
//     shifts sigma, conj(sigma) = eigenvalues of the trailing 2x2 block, so a
//     complex-conjugate pair is handled in real arithmetic: the first column
//     of (H - sigma)(H - conj sigma) = H^2 - sH + tI (s = trace, t = det of
//     the 2x2) has only three nonzeros; a 3x3 reflector introduces a bulge
//     that n-2 further reflectors chase off the bottom (implicit Q theorem).
//     When a subdiagonal h(k,k-1) becomes negligible,
//         |h(k,k-1)| <= eps (|h(k-1,k-1)| + |h(k,k)|),
//     it is set to zero and the problem splits (deflation). A 1x1 block at
//     the bottom is a real eigenvalue, a 2x2 block a real or complex pair.
//     Convergence is normally quadratic; when a block has not deflated after
//     10 or 20 steps an "exceptional" shift breaks possible cycles (as EISPACK
//     and LAPACK dlahqr do).
//
// Eigenvalues only: without eigenvectors, a QR step needs to update only
// the active diagonal block (EISPACK hqr does the same), not the full
// Hessenberg matrix.
//
// Written for per-thread use in kernels (docs/models/README.md §5.2): fixed size N, all state
// in a local Mat<double, N, N>, no exceptions (a status code instead).
#pragma once
#include <cmath>

#include "kernels/core/balance.hpp"
#include "kernels/core/hd.hpp"
#include "kernels/core/small_matrix.hpp"

namespace hs {

// Result status.
enum EigenStatus : int {
  eigen_ok = 0,
  eigen_no_convergence = 1,  // no deflation within 30*N double-shift steps of one block (re/im of the
                             // eigenvalues not yet found are NaN)
  eigen_non_finite = 2,      // the input had a NaN or an infinity (results NaN)
};

// Eigenvalues re[k] + i im[k]. A complex pair occupies two adjacent slots,
// +im first then -im. Order: as they deflate (bottom of the Hessenberg
// matrix first), i.e. not sorted.
template <int N>
struct EigenResult {
  double re[N];
  double im[N];
  int status;      // EigenStatus
  int iterations;  // total Francis double-shift steps
};

namespace eigen_detail {

constexpr double kEps = 2.220446049250313e-16;    // DBL_EPSILON (unit roundoff * 2)
constexpr double kTiny = 2.2250738585072014e-308;  // DBL_MIN

HS_HD HS_FORCEINLINE bool is_finite(double x) { return x - x == 0.0; }

// Householder reduction to upper Hessenberg form, in place
// (G&VL Algorithm 7.4.2). Reflector k: P = I - tau v v^T, v(k+1) = 1,
// maps A(k+1:N, k) to (beta, 0, ..., 0).
template <int N, class Size>
HS_HD void hessenberg(Mat<double, N, N>& A, Size n) {
  for (int k = 0; k + 2 < n; ++k) {
    // Scale to avoid overflow/underflow in the norm.
    double scale = 0.0;
    for (int i = k + 1; i < n; ++i) scale = ::fmax(scale, ::fabs(A(i, k)));
    if (scale == 0.0) continue;
    double tail = 0.0;  // sum of squares below the subdiagonal entry
    for (int i = k + 2; i < n; ++i) {
      const double t = A(i, k) / scale;
      tail += t * t;
    }
    if (tail == 0.0) continue;  // already zero below the subdiagonal
    const double alpha = A(k + 1, k) / scale;
    const double norm = ::sqrt(alpha * alpha + tail);
    // beta has the opposite sign of alpha so that alpha - beta does not cancel.
    const double beta = alpha >= 0.0 ? -norm : norm;
    const double tau = (beta - alpha) / beta;
    const double vscale = 1.0 / ((alpha - beta) * scale);  // v(i) = A(i,k) / (A(k+1,k) - beta*scale)
    double v[N];
    v[k + 1] = 1.0;
    for (int i = k + 2; i < n; ++i) v[i] = A(i, k) * vscale;
    // Left: A(k+1:n, k+1:n) <- P A(k+1:n, k+1:n); column k becomes (beta*scale, 0, ...).
    for (int j = k + 1; j < n; ++j) {
      double s = 0.0;
      for (int i = k + 1; i < n; ++i) s += v[i] * A(i, j);
      s *= tau;
      for (int i = k + 1; i < n; ++i) A(i, j) -= s * v[i];
    }
    A(k + 1, k) = beta * scale;
    for (int i = k + 2; i < n; ++i) A(i, k) = 0.0;
    // Right: A(0:n, k+1:n) <- A(0:n, k+1:n) P.
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int j = k + 1; j < n; ++j) s += A(i, j) * v[j];
      s *= tau;
      for (int j = k + 1; j < n; ++j) A(i, j) -= s * v[j];
    }
  }
}

// Eigenvalues of [[a, b], [c, d]], stably: the larger-magnitude root of a
// real pair from the formula without cancellation, the other from the
// product of the roots (EISPACK hqr). Scaled so that squaring cannot
// overflow.
HS_HD inline void eig2x2(double a, double b, double c, double d, double& re1, double& im1, double& re2,
                         double& im2) {
  const double s = ::fmax(::fmax(::fabs(a), ::fabs(b)), ::fmax(::fabs(c), ::fabs(d)));
  if (s == 0.0) {
    re1 = re2 = im1 = im2 = 0.0;
    return;
  }
  a /= s; b /= s; c /= s; d /= s;
  const double p = 0.5 * (a - d);
  const double bc = b * c;
  const double q = p * p + bc;  // discriminant / 4
  if (q >= 0.0) {
    const double z = p + ::copysign(::sqrt(q), p);  // |z| >= |p|: no cancellation
    re1 = d + z;
    re2 = z != 0.0 ? d - bc / z : d;
    im1 = im2 = 0.0;
  } else {
    re1 = re2 = d + p;
    im1 = ::sqrt(-q);
    im2 = -im1;
  }
  re1 *= s; re2 *= s; im1 *= s; im2 *= s;
}

// Reflector P = I - tau v v^T with v = (1, v1, v2) mapping (x, y, z) to
// (beta, 0, 0); n = 2 ignores z. Returns false when (x, y, z) = 0 (P = I).
struct Reflector3 {
  double v1, v2, tau, beta;
};
HS_HD inline bool make_reflector(double x, double y, double z, Reflector3& R) {
  const double s = ::fabs(x) + ::fabs(y) + ::fabs(z);
  if (s == 0.0) return false;
  x /= s; y /= s; z /= s;
  const double norm = ::sqrt(x * x + y * y + z * z);
  const double beta = x >= 0.0 ? -norm : norm;
  R.tau = (beta - x) / beta;
  const double inv = 1.0 / (x - beta);
  R.v1 = y * inv;
  R.v2 = z * inv;
  R.beta = beta * s;
  return true;
}

// H(k:k+M-1, k:hi) <- P H(k:k+M-1, k:hi), M = 2 or 3 (the reflector's length).
template <int N, int M>
HS_HD HS_FORCEINLINE void reflect_rows(Mat<double, N, N>& H, const Reflector3& R, int k, int hi) {
  for (int j = k; j <= hi; ++j) {
    double p = H(k, j) + R.v1 * H(k + 1, j);
    if (M == 3) p += R.v2 * H(k + 2, j);
    p *= R.tau;
    H(k, j) -= p;
    H(k + 1, j) -= p * R.v1;
    if (M == 3) H(k + 2, j) -= p * R.v2;
  }
}

// H(i0:i1, k:k+M-1) <- H(i0:i1, k:k+M-1) P.
template <int N, int M>
HS_HD HS_FORCEINLINE void reflect_cols(Mat<double, N, N>& H, const Reflector3& R, int k, int i0, int i1) {
  for (int i = i0; i <= i1; ++i) {
    double p = H(i, k) + R.v1 * H(i, k + 1);
    if (M == 3) p += R.v2 * H(i, k + 2);
    p *= R.tau;
    H(i, k) -= p;
    H(i, k + 1) -= p * R.v1;
    if (M == 3) H(i, k + 2) -= p * R.v2;
  }
}

// Francis implicit double-shift QR on the Hessenberg matrix H, eigenvalues
// into out (G&VL Algorithm 7.5.2 with deflation; only the active window
// H(lo:hi, lo:hi) is updated since no Schur vectors are wanted).
template <int N, class Size>
HS_HD void hessenberg_qr(Mat<double, N, N>& H, EigenResult<N>& out, Size n) {
  // Reference size for the deflation test when both neighbouring diagonal
  // entries are zero (EISPACK uses the norm of the Hessenberg matrix).
  double hnorm = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = (i > 0 ? i - 1 : 0); j < n; ++j) hnorm += ::fabs(H(i, j));

  // Steps allowed per deflation (LAPACK dlahqr: 30 * max(10, n) per
  // eigenvalue search; 2-4 are typical).
  const int max_steps = 30 * n;
  int hi = n - 1;
  int its = 0;  // steps since the last deflation at the bottom
  while (hi >= 0) {
    // Find the top lo of the unreduced block that ends at hi.
    int lo = hi;
    while (lo > 0) {
      double ref = ::fabs(H(lo - 1, lo - 1)) + ::fabs(H(lo, lo));
      if (ref == 0.0) ref = hnorm;
      if (::fabs(H(lo, lo - 1)) <= kEps * ref || ::fabs(H(lo, lo - 1)) < kTiny) {
        H(lo, lo - 1) = 0.0;
        break;
      }
      --lo;
    }
    if (lo == hi) {  // 1x1 block: a real eigenvalue
      out.re[hi] = H(hi, hi);
      out.im[hi] = 0.0;
      hi -= 1;
      its = 0;
      continue;
    }
    if (lo == hi - 1) {  // 2x2 block: a real or complex pair
      eig2x2(H(hi - 1, hi - 1), H(hi - 1, hi), H(hi, hi - 1), H(hi, hi), out.re[hi - 1], out.im[hi - 1], out.re[hi],
             out.im[hi]);
      hi -= 2;
      its = 0;
      continue;
    }
    if constexpr (N < 3) {
      return;  // unreachable: a block of 3 or more needs N >= 3
    }
    if (its >= max_steps) {
      out.status = eigen_no_convergence;
      for (int k = 0; k <= hi; ++k) out.re[k] = out.im[k] = NAN;
      return;
    }

    // Shifts: s = sum, t = product of the two shifts.
    double s, t;
    if (its > 0 && its % 10 == 0) {
      // Exceptional shift after 10, 20, ... steps without deflation
      // (EISPACK hqr / LAPACK dlahqr): shifts at
      // h(hi,hi) + 0.75 w +- i sqrt(0.4375) w, w from the last two
      // subdiagonals, i.e. relative to h(hi,hi): sum 1.5 w, product w^2.
      const double w = ::fabs(H(hi, hi - 1)) + ::fabs(H(hi - 1, hi - 2));
      const double h = H(hi, hi);
      s = 2.0 * h + 1.5 * w;
      t = h * h + 1.5 * w * h + w * w;
    } else {
      s = H(hi - 1, hi - 1) + H(hi, hi);
      t = H(hi - 1, hi - 1) * H(hi, hi) - H(hi - 1, hi) * H(hi, hi - 1);
    }
    ++its;
    ++out.iterations;

    // First column of H^2 - sH + tI (three nonzeros).
    double x = H(lo, lo) * H(lo, lo) + H(lo, lo + 1) * H(lo + 1, lo) - s * H(lo, lo) + t;
    double y = H(lo + 1, lo) * (H(lo, lo) + H(lo + 1, lo + 1) - s);
    double z = H(lo + 1, lo) * H(lo + 2, lo + 1);

    // Chase the bulge (G&VL Algorithm 7.5.1): 3x3 reflectors at
    // k = lo..hi-2, each restoring column k-1 and pushing the bulge one
    // row down, then a 2x2 reflector at hi-1.
    // (k + 2 < N follows from k <= hi - 2; spelled out for the compiler's
    // bounds analysis, which otherwise warns about unreachable paths.)
    for (int k = lo; k <= hi - 2 && k + 2 < N; ++k) {
      Reflector3 R;
      if (make_reflector(x, y, z, R)) {
        if (k > lo) {
          H(k, k - 1) = R.beta;
          H(k + 1, k - 1) = 0.0;
          H(k + 2, k - 1) = 0.0;
        }
        reflect_rows<N, 3>(H, R, k, hi);
        reflect_cols<N, 3>(H, R, k, lo, k + 3 < hi ? k + 3 : hi);
      }  // else the bulge vanished exactly: nothing to do at this position
      x = H(k + 1, k);
      y = H(k + 2, k);
      z = k + 3 <= hi ? H(k + 3, k) : 0.0;
    }
    Reflector3 R;
    if (make_reflector(x, y, 0.0, R)) {
      const int k = hi - 1;
      if (k > lo) {
        H(k, k - 1) = R.beta;
        H(k + 1, k - 1) = 0.0;
      }
      reflect_rows<N, 2>(H, R, k, hi);
      reflect_cols<N, 2>(H, R, k, lo, hi);
    }
  }
}

// The eigenvalues of the leading n × n block (n: N itself as a compile-time
// constant, or a run-time size ≤ N).
template <int N, class Size>
HS_HD EigenResult<N> eigenvalues_of_block(Mat<double, N, N>& A, Size n, bool balance) {
  static_assert(N >= 1 && N <= 32, "eigenvalues<N>: per-thread routine for 1 <= N <= 32");
  EigenResult<N> out;
  out.status = eigen_ok;
  out.iterations = 0;
  for (int k = n; k < N; ++k) out.re[k] = out.im[k] = NAN;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (!is_finite(A(i, j))) {
        out.status = eigen_non_finite;
        for (int k = 0; k < N; ++k) out.re[k] = out.im[k] = NAN;
        return out;
      }
  if (balance) balance_by_powers_of_two(A, nullptr, n);  // kernels/core/balance.hpp
  hessenberg(A, n);
  hessenberg_qr(A, out, n);
  return out;
}
}  // namespace eigen_detail

// All eigenvalues of A (taken by value: it is the workspace). balance =
// false skips step 1 (for comparisons; balancing is what makes badly
// scaled Jacobians accurate).
template <int N>
HS_HD EigenResult<N> eigenvalues(Mat<double, N, N> A, bool balance = true) {
  return eigen_detail::eigenvalues_of_block(A, FixedSize<N>{}, balance);
}

// The eigenvalues of the leading n × n block A(0:n, 0:n), 1 <= n <= N, in
// re[0 … n−1], im[0 … n−1] (the rest NaN): a system whose state has fewer
// entries at run time than its compile-time size N (a model file's cylinder
// whose circuit leaves pressure slots and the spool unused,
// kernels/linearize/stability.hpp) runs the routine on its live states only.
template <int N>
HS_HD EigenResult<N> eigenvalues_of_leading_block(Mat<double, N, N> A, int n, bool balance = true) {
  return eigen_detail::eigenvalues_of_block(A, n, balance);
}

}  // namespace hs
