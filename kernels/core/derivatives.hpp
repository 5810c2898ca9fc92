// Seeding and reading dual numbers in one place (docs/models/README.md §5.4):
// the Jacobian of a functor, derivatives along given directions, and the
// "path jet" that gives a second time derivative. Call sites say which
// derivative they want instead of writing offsets into .v[] themselves.
#pragma once
#include "dual.hpp"

namespace hs {

// x_k + ε_k: variables for the Jacobian with respect to all of x.
template <int N, class T>
HS_HD void seed_variables(const T* x, Dual<N, T>* xj) {
  for (int k = 0; k < N; ++k) xj[k] = Dual<N, T>::variable(x[k], k);
}

// y = f(x) and J = ∂f/∂x (M outputs × N inputs) from one pass of
// f(const Dual<N, T>* x, Dual<N, T>* y) on dual numbers.
template <int M, int N, class T, class F>
HS_HD void jacobian(F&& f, const T* x, T* y, T (*J)[N]) {
  Dual<N, T> xj[N], yj[M];
  seed_variables<N>(x, xj);
  f(static_cast<const Dual<N, T>*>(xj), yj);
  for (int r = 0; r < M; ++r) {
    y[r] = yj[r].a;
    for (int c = 0; c < N; ++c) J[r][c] = yj[r].v[c];
  }
}

// x + Σ_j d_j ε_j with d_j the columns of `dir` (dir(k, j), Dir::nd of
// them), plus one more direction ε_nd along `extra` when given (a rate ẋ):
// one pass gives the derivatives along every column and along ẋ.
template <int ND, class T, class Dir>
HS_HD void seed_directions(const T* x, const Dir& dir, int n, Dual<ND, T>* xj, const T* extra = nullptr) {
  for (int k = 0; k < n; ++k) {
    xj[k] = Dual<ND, T>(x[k]);
    for (int j = 0; j < Dir::nd; ++j) xj[k].v[j] = T(dir(k, j));
    if (extra) xj[k].v[Dir::nd] = extra[k];
  }
}

// The rate jet x + ẋτ: for any f, the τ coefficient of f(x(τ)) is
// ḟ = f'(x)ẋ (velocities for the kinetic energies).
template <class T>
using RateJet = Dual<1, T>;
template <class T>
HS_HD void seed_rate(const T* x, const T* xd, int n, RateJet<T>* xr) {
  for (int k = 0; k < n; ++k) {
    xr[k] = RateJet<T>(x[k]);
    xr[k].v[0] = xd[k];
  }
}

// The path jet x(τ1, τ2) = x + ẋτ1 + ẋτ2 + ẍτ1τ2: for any f, the τ1
// coefficient of f(x(τ)) is ḟ = f'(x)ẋ and the τ1τ2 coefficient is
// f̈ = f'(x)ẍ + ẋᵀf''(x)ẋ (the mixed term of a hyper-dual number). With
// ẍ = 0 (xdd null) the τ1τ2 coefficient is the bias ẋᵀf''ẋ alone.
template <class T>
using PathJet = Dual<1, Dual<1, T>>;

template <class T>
HS_HD void seed_path(const T* x, const T* xd, const T* xdd, int n, PathJet<T>* xp) {
  using Inner = Dual<1, T>;
  for (int k = 0; k < n; ++k) {
    Inner lo(x[k]);
    lo.v[0] = xd[k];
    xp[k].a = lo;
    Inner hi(xd[k]);
    if (xdd) hi.v[0] = xdd[k];
    xp[k].v[0] = hi;
  }
}
template <class T>
HS_HD T path_value(const PathJet<T>& f) { return f.a.a; }
template <class T>
HS_HD T path_rate(const PathJet<T>& f) { return f.a.v[0]; }
template <class T>
HS_HD T path_second_rate(const PathJet<T>& f) { return f.v[0].v[0]; }

}  // namespace hs
