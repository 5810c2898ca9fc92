// The "counterpart" of seed 000 §4.5 (docs/models/linearization.md §7): the index-1
// form of the DAE as an ODE in X = (x, v, p, U), size 2n + r + u,
//
//   (96)  [ M(x)   C_xᵀ ] [ v̇ ]   [ Q(x, v, p) + Q_applied        ]
//         [ C_x    0    ] [ Λ  ] = [ −vᵀ∇²C v − 2β C_x v − γ² C    ]
//         ẋ = v,  ṗ = H(x, v, p, U),  U̇ = W(U, U_ref)
//
// with β = γ = 0 the counterpart (95)–(98), with β, γ > 0 the
// Baumgarte-stabilised equations (89) of the nonlinear reference run. Its
// Jacobian by central differences, eq (100), has the eigenvalues of the
// reduced Jacobian plus 2(m + l) spurious zeros (docs/models/linearization.md §7, §9); the same Jacobian
// by dual numbers (exact) isolates the finite-difference error.
//
// The acceleration bias vᵀ∇²C v from one pass on the path jet (x + vτ1 + vτ2: the τ1τ2
// coefficient), as in rigid_body_system.hpp.
#pragma once
#include "../core/derivatives.hpp"
#include "../core/dual.hpp"
#include "../core/lu.hpp"
#include "../core/small_matrix.hpp"

namespace hs {

// The input-link torque pulse M2(t) of seed 000 eq (92), with its §4
// values: a ramp to M0 over [0, t1], held until t2, released after. The
// linear model starts at t2 (eq 94).
struct TorquePulse {
  double M0 = 250.0;          // [N·m]
  double t1 = 1.0, t2 = 1.5;  // [s]
  HS_HD double operator()(double t) const { return t < t1 ? M0 * t / t1 : (t <= t2 ? M0 : 0.0); }
};

template <class System>
struct Index1Form {
  static constexpr int n = System::n, m = System::m, r = System::r, u = System::u;
  static constexpr int N = 2 * n + r + u;  // state size
  static constexpr int ix = 0, iv = n, ip = 2 * n, iu = 2 * n + r;

  struct Forcing {
    double beta = 0.0, gamma = 0.0;  // Baumgarte parameters of eq (89)
    double U_ref = 0.0;              // valve reference [V]
    double applied[n] = {};          // Q_applied, e.g. the input-link torque M2 (eq 92)
  };

  // Ẋ = F(X) on any scalar T; false if the augmented matrix is singular.
  template <class T>
  HS_HD static bool rates(const typename System::Params& P, const typename System::Constants& K, const T* X,
                          const Forcing& f, T* Xdot, T* lambda = nullptr) {
    const T* x = X + ix;
    const T* v = X + iv;
    const T* p = X + ip;
    // Q = −e(x, v, 0, p); e is affine in ẍ, so column k of M is
    // e(x, v, e_k, p) − e(x, v, 0, p) (exact up to rounding; n + 1 passes on
    // T are much cheaper than one on the nested Dual<n, T>).
    T e0[n], ek[n], acc[n], Mx[n][n];
    for (int k = 0; k < n; ++k) acc[k] = T(0.0);
    System::evaluate(P, K, x, v, acc, p, X[iu], e0, Xdot + ip);  // e(x, v, 0, p) and ṗ = H
    for (int k = 0; k < n; ++k) {
      acc[k] = T(1.0);
      System::residual(P, K, x, v, acc, p, ek);
      acc[k] = T(0.0);
      for (int i = 0; i < n; ++i) Mx[i][k] = ek[i] - e0[i];
    }
    // C, C_x and the bias vᵀ∇²C v.
    using Jn = Dual<n, T>;
    Jn xj[n], Cj[m];
    PathJet<T> xp[n], Cp[m];
    seed_variables<n>(x, xj);
    seed_path<T>(x, v, nullptr, n, xp);  // τ1τ2 coefficient of C: the bias vᵀ∇²C v
    System::Mechanism::constraints(P.mechanism, xj, Cj);
    System::Mechanism::constraints(P.mechanism, xp, Cp);

    constexpr int na = n + m;
    Mat<T, na, na> A;
    T b[na], y[na];
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < n; ++k) A(i, k) = Mx[i][k];
      for (int j = 0; j < m; ++j) A(i, n + j) = Cj[j].v[i];
      b[i] = f.applied[i] - e0[i];  // Q + Q_applied
    }
    for (int j = 0; j < m; ++j) {
      T cdot(0.0);
      for (int k = 0; k < n; ++k) {
        A(n + j, k) = Cj[j].v[k];
        cdot += Cj[j].v[k] * v[k];
      }
      for (int k = 0; k < m; ++k) A(n + j, n + k) = T(0.0);
      b[n + j] = -path_second_rate(Cp[j]) - 2.0 * f.beta * cdot - f.gamma * f.gamma * Cj[j].a;
    }
    if (!solve_linear(A, b, y)) return false;
    for (int k = 0; k < n; ++k) {
      Xdot[ix + k] = v[k];
      Xdot[iv + k] = y[k];
    }
    if (lambda)
      for (int j = 0; j < m; ++j) lambda[j] = y[n + j];
    Xdot[iu] = (f.U_ref - X[iu]) / System::Circuit::spool_time_constant(P.actuator[0].circuit);  // eq (4)
    return true;
  }

  // Jacobian of F at X0 by central differences with absolute step h on
  // every component, eq (100). False if F fails or h vanishes against a
  // component of X0 (X0 ± h rounds to X0).
  HS_HD static bool jacobian_central(const typename System::Params& P, const typename System::Constants& K,
                                     const double* X0, const Forcing& f, double h, Mat<double, N, N>& J) {
    double X[N], Fp[N], Fm[N];
    for (int k = 0; k < N; ++k) X[k] = X0[k];
    for (int c = 0; c < N; ++c) {
      X[c] = X0[c] + h;
      if (!rates(P, K, X, f, Fp)) return false;
      X[c] = X0[c] - h;
      if (!rates(P, K, X, f, Fm)) return false;
      X[c] = X0[c];
      // (X0 + h) − (X0 − h) as represented, not 2h: removes the rounding
      // of the step itself (it matters for the pressures, ~1e6 Pa).
      const double step = (X0[c] + h) - (X0[c] - h);
      if (!(step > 0.0)) return false;  // h below the resolution of X0[c]
      for (int i = 0; i < N; ++i) J(i, c) = (Fp[i] - Fm[i]) / step;
    }
    return true;
  }

  // The same Jacobian exactly, from one pass on Dual<N>.
  HS_HD static bool jacobian_exact(const typename System::Params& P, const typename System::Constants& K,
                                   const double* X0, const Forcing& f, Mat<double, N, N>& J) {
    bool ok = true;
    double F0[N], Jr[N][N];
    jacobian<N, N>([&](const Dual<N>* X, Dual<N>* F) { ok = rates(P, K, X, f, F); }, X0, F0, Jr);
    if (!ok) return false;
    for (int i = 0; i < N; ++i)
      for (int c = 0; c < N; ++c) J(i, c) = Jr[i][c];
    return true;
  }

  // Consistent state of an equilibrium: X = (x⁰, 0, p⁰, U⁰).
  template <class Eq>
  HS_HD static void state_of(const Eq& eq, double* X) {
    for (int k = 0; k < n; ++k) { X[ix + k] = eq.x[k]; X[iv + k] = 0.0; }
    for (int k = 0; k < r; ++k) X[ip + k] = eq.p[k];
    X[iu] = eq.U;
  }
};

}  // namespace hs
