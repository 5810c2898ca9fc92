// Small dense LU factorization with scaled partial pivoting, per thread.
//
// Used for the Newton tangents (a few unknowns: positions, pressures,
// friction states with very different units) and the dependent-coordinate
// solves of the double-step formulation. Rows are implicitly scaled by
// their largest entry when choosing pivots, so that a pressure row in Pa/s
// does not always win against a moment row in N·m; the factors themselves
// are not scaled, the solution is that of the original system.
//
// Few divisions (docs/models/integrators.md §3.5): the sm_90 GPU has no
// FP64 divide, each one is a reciprocal seed and about ten dependent FP64
// instructions. The scaled comparison |a_ik|/m_i > |a_pk|/m_p is made as
// |a_ik|·m_p > |a_pk|·m_i (the row maxima m > 0). The pivots' reciprocals
// 1/u_kk, computed once for the multipliers, can be kept (inv_pivot) for
// back substitutions that multiply by them instead of dividing by u_kk:
// one more rounding per unknown (≤ 1.5 ulp instead of 0.5), which the
// Newton iterations that use it correct; the other solves divide.
#pragma once
#include <cmath>
#include <type_traits>

#include "hd.hpp"
#include "dual.hpp"
#include "small_matrix.hpp"

namespace hs {

// Factor A in place as P A = L U (unit lower L); inv_pivot[k] = 1/u_kk.
// Returns false if a scaled pivot |u_kk|/m_k is not in (1e-300, 1e300)
// (singular to working precision, or not finite). T may be Dual<M>: the
// pivots are chosen on values and the factors carry derivatives.
//
// On lanes (T on Lanes<W>, kernels/core/lanes.hpp) every lane pivots on its
// own values: the pivot row and the permutation are per-lane indices
// (LaneIndex), the row swaps are choices per lane, and the result is a mask of
// the lanes whose factorization succeeded. A lane that fails goes on
// computing (its values are discarded by the caller); the others get exactly
// their scalar factors (docs/models/lanes.md).
template <int N, class T, class I>
HS_HD auto lu_factor(Mat<T, N, N>& A, I (&perm)[N], T (&inv_pivot)[N]) {
  // Every loop is unrolled and every index a compile-time constant (the pivot
  // row p is reached by comparing, not by indexing), so on the GPU the matrix,
  // the scales and the permutation stay in registers instead of local memory
  // (issue 16; kernels/core/small_matrix.hpp select_at). Same operations in the
  // same order as the indexed form: the same bits on every backend.
  using V = ValueOf<T>;
  using Mask = MaskOf<V>;
  constexpr bool one_instance = std::is_same<Mask, bool>::value;
  Mask ok(true);
  V row_max[N];  // m_i = max_j |a_ij|, swapped with the rows
  HS_UNROLL
  for (int i = 0; i < N; ++i) {
    perm[i] = I(i);
    V m(0.0);
    HS_UNROLL
    for (int j = 0; j < N; ++j) m = choose(math::abs(value(A(i, j))) > m, math::abs(value(A(i, j))), m);
    if constexpr (one_instance) {
      if (!(m > 0.0)) return false;
    } else {
      ok = ok && (m > 0.0);
    }
    row_max[i] = m;
  }
  HS_UNROLL
  for (int k = 0; k < N; ++k) {
    I p(k);
    // The candidate of largest |a_ik|/m_i, compared without dividing (exact
    // ties keep the upper row; products of entries up to ~1e154 are finite).
    V best = math::abs(value(A(k, k))), best_max = row_max[k];
    HS_UNROLL
    for (int i = k + 1; i < N; ++i) {
      const V c = math::abs(value(A(i, k)));
      const Mask larger = c * best_max > best * row_max[i];
      best = choose(larger, c, best);
      best_max = choose(larger, row_max[i], best_max);
      p = choose(larger, I(i), p);
    }
    if constexpr (one_instance) {
      if (!(best > 1e-300 * best_max) || !(best < 1e300 * best_max)) return false;
    } else {
      ok = ok && (best > 1e-300 * best_max) && (best < 1e300 * best_max);
    }
    HS_UNROLL
    for (int i = k + 1; i < N; ++i) {
      const Mask swap = p == I(i);
      if (any_lane(swap)) {
        HS_UNROLL
        for (int j = 0; j < N; ++j) swap_where(swap, A(k, j), A(i, j));
        swap_where(swap, row_max[k], row_max[i]);
        swap_where(swap, perm[k], perm[i]);
      }
    }
    const T inv = 1.0 / A(k, k);
    inv_pivot[k] = inv;
    HS_UNROLL
    for (int i = k + 1; i < N; ++i) {
      const T l = A(i, k) * inv;
      A(i, k) = l;
      HS_UNROLL
      for (int j = k + 1; j < N; ++j) A(i, j) -= l * A(k, j);
    }
  }
  if constexpr (one_instance) return true;
  else return ok;
}
template <int N, class T, class I>
HS_HD auto lu_factor(Mat<T, N, N>& A, I (&perm)[N]) {
  T inv_pivot[N];
  return lu_factor(A, perm, inv_pivot);
}

namespace lu_detail {
// P b, then L y = P b and U x = y; divide(i, s) gives s / u_ii.
template <int N, class S, class T, class I, class Divide>
HS_HD HS_FORCEINLINE void substitute(const Mat<S, N, N>& LU, const I (&perm)[N], const T* b, T* x, Divide&& divide) {
  T y[N];
  HS_UNROLL
  for (int i = 0; i < N; ++i) {
    y[i] = b[0];
    HS_UNROLL
    for (int r = 1; r < N; ++r) y[i] = choose(perm[i] == I(r), b[r], y[i]);
    HS_UNROLL
    for (int j = 0; j < i; ++j) y[i] -= LU(i, j) * y[j];
  }
  HS_UNROLL
  for (int i = N - 1; i >= 0; --i) {
    T s = y[i];
    HS_UNROLL
    for (int j = i + 1; j < N; ++j) s -= LU(i, j) * x[j];
    x[i] = divide(i, s);
  }
}
}  // namespace lu_detail

// Solve A x = b with the factors of lu_factor. The factors (S) and the
// right-hand side (T) may each be double or Dual<M> (or the same on lanes).
// b[perm[i]] is gathered by comparing (as in lu_factor), so b and x stay in
// registers on the GPU.
template <int N, class S, class T, class I>
HS_HD void lu_solve(const Mat<S, N, N>& LU, const I (&perm)[N], const T* b, T* x) {
  lu_detail::substitute(LU, perm, b, x, [&](int i, const T& s) { return s / LU(i, i); });
}
// The same multiplying by lu_factor's inv_pivot instead of dividing by u_ii
// (one more rounding per unknown): for the Newton iterations.
template <int N, class S, class T, class I>
HS_HD void lu_solve(const Mat<S, N, N>& LU, const I (&perm)[N], const S (&inv_pivot)[N], const T* b, T* x) {
  lu_detail::substitute(LU, perm, b, x, [&](int i, const T& s) { return s * inv_pivot[i]; });
}

// Solve A x = b for small N in one call; false if A is singular.
// On lanes: a mask of the lanes that solved (the others' x is discarded).
template <int N, class S, class T>
HS_HD auto solve_linear(Mat<S, N, N> A, const T* b, T* x) {
  LaneIndex<ValueOf<S>> perm[N];
  const auto ok = lu_factor(A, perm);
  if constexpr (std::is_same<decltype(ok), const bool>::value) {
    if (!ok) return false;
  }
  lu_solve(A, perm, b, x);
  return ok;
}
// The same for a Newton increment J Δx = −f: multiplies by the pivots'
// reciprocals instead of dividing (one more rounding per unknown, ~1e-16 of
// an increment that is itself below the tolerance at convergence). The
// trapezoidal formulations' Newton loops use it, nothing else.
template <int N, class S, class T>
HS_HD auto solve_newton_increment(Mat<S, N, N> A, const T* b, T* x) {
  LaneIndex<ValueOf<S>> perm[N];
  S inv_pivot[N];
  const auto ok = lu_factor(A, perm, inv_pivot);
  if constexpr (std::is_same<decltype(ok), const bool>::value) {
    if (!ok) return false;
  }
  lu_solve(A, perm, inv_pivot, b, x);
  return ok;
}

}  // namespace hs
