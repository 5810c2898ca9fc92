// Small dense LU factorization with scaled partial pivoting, per thread.
//
// Used for the Newton tangents (a few unknowns: positions, pressures,
// friction states with very different units) and the dependent-coordinate
// solves of the double-step formulation. Rows are implicitly scaled by
// their largest entry when choosing pivots, so that a pressure row in Pa/s
// does not always win against a moment row in N·m; the factors themselves
// are not scaled, the solution is that of the original system.
#pragma once
#include <cmath>

#include "hd.hpp"
#include "dual.hpp"
#include "small_matrix.hpp"

namespace hs {

// Factor A in place as P A = L U (unit lower L). Returns false if a pivot is
// zero or not finite (singular to working precision). T may be Dual<M>: the
// pivots are chosen on values and the factors carry derivatives.
template <int N, class T>
HS_HD bool lu_factor(Mat<T, N, N>& A, int (&perm)[N]) {
  // Every loop is unrolled and every index a compile-time constant (the pivot
  // row p is reached by comparing, not by indexing), so on the GPU the matrix,
  // the scales and the permutation stay in registers instead of local memory
  // (issue 16; kernels/core/small_matrix.hpp select_at). Same operations in the
  // same order as the indexed form: the same bits on every backend.
  double row_scale[N];
  HS_UNROLL
  for (int i = 0; i < N; ++i) {
    perm[i] = i;
    double m = 0.0;
    HS_UNROLL
    for (int j = 0; j < N; ++j) m = fabs(value(A(i, j))) > m ? fabs(value(A(i, j))) : m;
    if (!(m > 0.0)) return false;
    row_scale[i] = 1.0 / m;
  }
  HS_UNROLL
  for (int k = 0; k < N; ++k) {
    int p = k;
    double best = fabs(value(A(k, k))) * row_scale[k];
    HS_UNROLL
    for (int i = k + 1; i < N; ++i) {
      const double c = fabs(value(A(i, k))) * row_scale[i];
      if (c > best) { best = c; p = i; }
    }
    if (!(best > 1e-300) || !(best < 1e300)) return false;
    HS_UNROLL
    for (int i = k + 1; i < N; ++i)
      if (i == p) {
        HS_UNROLL
        for (int j = 0; j < N; ++j) { const T t = A(k, j); A(k, j) = A(i, j); A(i, j) = t; }
        const double ts = row_scale[k]; row_scale[k] = row_scale[i]; row_scale[i] = ts;
        const int tp = perm[k]; perm[k] = perm[i]; perm[i] = tp;
      }
    const T inv = 1.0 / A(k, k);
    HS_UNROLL
    for (int i = k + 1; i < N; ++i) {
      const T l = A(i, k) * inv;
      A(i, k) = l;
      HS_UNROLL
      for (int j = k + 1; j < N; ++j) A(i, j) -= l * A(k, j);
    }
  }
  return true;
}

// Solve A x = b with the factors of lu_factor. The factors (S) and the
// right-hand side (T) may each be double or Dual<M>. b[perm[i]] is gathered by
// comparing (as in lu_factor), so b and x stay in registers on the GPU.
template <int N, class S, class T>
HS_HD void lu_solve(const Mat<S, N, N>& LU, const int (&perm)[N], const T* b, T* x) {
  T y[N];
  HS_UNROLL
  for (int i = 0; i < N; ++i) {
    y[i] = b[0];
    HS_UNROLL
    for (int r = 1; r < N; ++r)
      if (perm[i] == r) y[i] = b[r];
    HS_UNROLL
    for (int j = 0; j < i; ++j) y[i] -= LU(i, j) * y[j];
  }
  HS_UNROLL
  for (int i = N - 1; i >= 0; --i) {
    T s = y[i];
    HS_UNROLL
    for (int j = i + 1; j < N; ++j) s -= LU(i, j) * x[j];
    x[i] = s / LU(i, i);
  }
}

// Solve A x = b for small N in one call; false if A is singular.
template <int N, class S, class T>
HS_HD bool solve_linear(Mat<S, N, N> A, const T* b, T* x) {
  int perm[N];
  if (!lu_factor(A, perm)) return false;
  lu_solve(A, perm, b, x);
  return true;
}

}  // namespace hs
