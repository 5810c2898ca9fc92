// Balancing a small dense matrix by a diagonal similarity of powers of 2
// (Parlett & Reinsch 1969; the convergence test and the radix-2 step as in
// EISPACK balanc / LAPACK dgebal, job 'S'). One matrix per thread, host and
// device, no allocation.
//
// A <- D^{-1} A D, D = diag(d_0 … d_{N-1}), every d_i a power of 2, chosen so
// that row i and column i (without the diagonal, which the similarity leaves
// unchanged) have 1-norms within about a factor 2 of each other. The
// scaling is exact unless entries leave the normal range. Why it matters
// here: our Jacobians mix units (pressures in Pa next to angles in rad), so a
// backward-stable routine's error, which is relative to ||A||, is set by the
// 1e9..1e10 pressure-build-up rows; balancing brings ||A|| near its minimum
// over diagonal similarities (Golub & Van Loan, "Matrix Computations", 4th
// ed., §7.5.7). Used by the eigenvalue routine (kernels/eigen/small_eigen.hpp,
// step 1) and by the zero-order hold (kernels/core/matrix_exponential.hpp).
#pragma once
#include <cmath>

#include "hd.hpp"
#include "small_matrix.hpp"

namespace hs {

// A compile-time size as a value: the routines on a matrix's leading block
// take their size as `Size n` — an int (a run-time size) or FixedSize<N> (the
// whole matrix, a constant the loops unroll on). Not std::integral_constant:
// its conversion is a host function to nvcc without --expt-relaxed-constexpr.
template <int N>
struct FixedSize {
  HS_HD constexpr operator int() const { return N; }
};

// Balances A in place. If scale is not null, scale[i] receives d_i, so that
// the balanced A is D^{-1} A_in D, i.e. A_in(i, j) = A(i, j) d_i / d_j.
// Only the leading n × n block when n (a run-time size ≤ N) is given.
template <int N, class Size = FixedSize<N>>
HS_HD void balance_by_powers_of_two(Mat<double, N, N>& A, double* scale = nullptr, Size n = {}) {
  constexpr double radix = 2.0, radix2 = radix * radix;
  if (scale)
    for (int i = 0; i < n; ++i) scale[i] = 1.0;
  bool converged = false;
  // Each sweep changes some scale by at least a factor 2; a bound on the
  // sweeps only guards against pathological (denormal) inputs.
  for (int sweep = 0; sweep < 256 && !converged; ++sweep) {
    converged = true;
    for (int i = 0; i < n; ++i) {
      double c = 0.0, r = 0.0;
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        c += ::fabs(A(j, i));
        r += ::fabs(A(i, j));
      }
      // A zero row or column off the diagonal: no scaling can balance it
      // (dgebal would permute it away; for eigenvalues alone, leaving it is fine).
      if (c == 0.0 || r == 0.0) continue;
      const double s = c + r;
      double f = 1.0;
      // Find f = 2^k with c f ~ r / f, i.e. c f^2 within a factor radix^2 of r.
      double g = r / radix;
      while (c < g && f < 1e300) {
        f *= radix;
        c *= radix2;
      }
      g = r * radix;
      while (c >= g && f > 1e-300) {
        f /= radix;
        c /= radix2;
      }
      // Scale only when it reduces the row+column norm noticeably.
      if ((c + r) / f < 0.95 * s) {
        converged = false;
        const double finv = 1.0 / f;
        for (int j = 0; j < n; ++j) A(i, j) *= finv;
        for (int j = 0; j < n; ++j) A(j, i) *= f;
        if (scale) scale[i] *= f;
      }
    }
  }
}

}  // namespace hs
