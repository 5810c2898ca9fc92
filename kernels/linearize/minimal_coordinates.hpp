// A model of the DAE contract (ActuatedModel over DaeMechanism<Dae>, any
// number of actuators, any circuit, a static friction law) written as an ODE
// in its independent coordinates (docs/models/linearization.md §11):
//
//   z = (z_i, ż_i, p),   size 2 n_i + n_p,   u: one valve input per actuator
//   ż_i' = z̈_i from  Tᵀ M T z̈_i = Tᵀ(Σ_a F_a ∂s_a/∂x − e_mech(x, ẋ, ẍ_b))   (seed 000 eq 57)
//   ṗ     = H(x, ẋ, p, u)                                                      (seed 000 eq 12)
//
// x(z_i) solves the constraints C(x) = 0 with the independent coordinates
// held (Newton from a reference configuration), ẋ = T ż_i with the
// admissible motions T = [I; −C_d⁻¹ C_i] (seed 000 eq 31), ẍ = T z̈_i + ẍ_b
// with the bias ẍ_b = −C_d⁻¹ ẋᵀ∇²C ẋ on the dependent rows (seed 001 eq 15),
// F_a = piston force − friction. Everything on a scalar T, so a pass on
// Dual<N> gives the exact Jacobian ∂ż/∂z (kernels/linearize/sampled_loop.hpp,
// the closed-loop stability map). The dependent coordinates are solved in
// double and corrected by one Newton step on T: exact first derivatives
// (implicit function theorem), which is all a linearization takes.
//
// This is seed 000's reduced model at any state, not only at an equilibrium:
// at an equilibrium its Jacobian equals the reduced Jacobian of eq (64)
// without the spool (tests/test_closed_loop_stability.cpp checks both on the
// four-bar), without the multipliers Λ (the constraints are solved, not
// adjoined).
#pragma once
#include "../core/dual.hpp"
#include "../core/lu.hpp"
#include "../core/small_matrix.hpp"
#include "../models/dae_mechanism.hpp"
#include "../models/hydraulically_actuated.hpp"

namespace hs {

template <class Model>
struct MinimalCoordinates {
  using Dae = typename Model::Mechanism::Dae;
  using Actuator = typename Model::Actuator;
  using Params = typename Model::Params;
  using Constants = typename Model::Constants;
  static constexpr int n = Dae::n, m = Dae::m, ni = n - m;
  static constexpr int na = Model::na, npa = Model::npa, np = Model::np;
  static constexpr int N = 2 * ni + np;  // state size
  static constexpr int iz = 0, izd = ni, ip = 2 * ni;
  static_assert(Actuator::nw == 0, "the ODE form takes static friction laws only (no friction states)");

  // The configuration the dependent coordinates are solved near, the
  // partition, the actuators' constants (s0 at the reference).
  struct Reference {
    double x[n];
    int indep[ni], dep[m];
    Constants K;
  };

  // C(x) and C_x on any scalar.
  template <class T>
  HS_HD static void constraints(const Params& P, const T* x, T* C, T (*Cx)[n]) {
    Dual<n, T> xj[n], Cj[m];
    for (int k = 0; k < n; ++k) xj[k] = Dual<n, T>::variable(x[k], k);
    Dae::constraints(P.mechanism, xj, Cj);
    for (int i = 0; i < m; ++i) {
      C[i] = Cj[i].a;
      for (int k = 0; k < n; ++k) Cx[i][k] = Cj[i].v[k];
    }
  }

  // Newton on the dependent coordinates of x (double) with the independent
  // ones held. False if it does not reach tol.
  HS_HD static bool assemble(const Params& P, const Reference& R, double* x, double tol = 1e-13, int max_iterations = 30) {
    for (int it = 0; it <= max_iterations; ++it) {
      double C[m], Cx[m][n];
      constraints(P, x, C, Cx);
      double r = 0.0;
      for (int i = 0; i < m; ++i) r = fabs(C[i]) > r ? fabs(C[i]) : r;
      if (!(r < 1e30)) return false;
      if (r <= tol) return true;
      Mat<double, m, m> Cd;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) Cd(i, j) = Cx[i][R.dep[j]];
      double step[m];
      if (!solve_linear(Cd, C, step)) return false;
      for (int j = 0; j < m; ++j) x[R.dep[j]] -= step[j];
    }
    return false;
  }

  // The reference at the driving coordinates `held` (the model's initial
  // guess for the others); constants at that configuration.
  HS_HD static bool reference(const Params& P, const double* held, Reference& R) {
    Dae::initial_guess(P.mechanism, R.x);
    Dae::driving(R.indep);
    coordinate_complement<n, ni>(R.indep, R.dep);
    for (int j = 0; j < ni; ++j) R.x[R.indep[j]] = held[j];
    if (!assemble(P, R, R.x)) return false;
    for (int a = 0; a < na; ++a)
      R.K.actuator[a] = Actuator::constants(P.actuator[a], dae_actuator_length<Dae>(P.mechanism, R.x, a));
    return true;
  }

  // x, ẋ, the admissible motions T (n × ni) and the bias acceleration ẍ_b at
  // (z_i, ż_i). False if the assembly or C_d fails.
  template <class T>
  HS_HD static bool kinematics(const Params& P, const Reference& R, const T* z, const T* zd, T* x, T* xd, T (*Tm)[ni],
                               T* xdd_bias) {
    double xv[n];
    for (int k = 0; k < n; ++k) xv[k] = R.x[k];
    for (int j = 0; j < ni; ++j) xv[R.indep[j]] = value(z[j]);
    if (!assemble(P, R, xv)) return false;
    // One Newton step on T from the assembled values: exact first derivatives.
    for (int j = 0; j < ni; ++j) x[R.indep[j]] = z[j];
    for (int j = 0; j < m; ++j) x[R.dep[j]] = T(xv[R.dep[j]]);
    {
      T C[m], Cx[m][n];
      constraints(P, x, C, Cx);
      Mat<double, m, m> Cd;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) Cd(i, j) = value(Cx[i][R.dep[j]]);
      T step[m];
      if (!solve_linear(Cd, C, step)) return false;
      for (int j = 0; j < m; ++j) x[R.dep[j]] -= step[j];
    }
    T C[m], Cx[m][n];
    constraints(P, x, C, Cx);
    Mat<T, m, m> Cd;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) Cd(i, j) = Cx[i][R.dep[j]];
    int perm[m];
    if (!lu_factor(Cd, perm)) return false;
    // T = [I; −C_d⁻¹ C_i] (seed 000 eq 31).
    for (int j = 0; j < ni; ++j) {
      T b[m], y[m];
      for (int i = 0; i < m; ++i) b[i] = Cx[i][R.indep[j]];
      lu_solve(Cd, perm, b, y);
      for (int k = 0; k < ni; ++k) Tm[R.indep[k]][j] = T(k == j ? 1.0 : 0.0);
      for (int i = 0; i < m; ++i) Tm[R.dep[i]][j] = -y[i];
    }
    for (int k = 0; k < n; ++k) {
      xd[k] = T(0.0);
      for (int j = 0; j < ni; ++j) xd[k] += Tm[k][j] * zd[j];
    }
    // ẋᵀ∇²C ẋ: the τ1τ2 coefficient of C on the path jet x + ẋτ1 + ẋτ2.
    using Inner = Dual<1, T>;
    using Path = Dual<1, Inner>;
    Path xp[n], Cp[m];
    for (int k = 0; k < n; ++k) {
      Inner lo(x[k]);
      lo.v[0] = xd[k];
      xp[k].a = lo;
      xp[k].v[0] = Inner(xd[k]);
    }
    Dae::constraints(P.mechanism, xp, Cp);
    T bias[m], y[m];
    for (int i = 0; i < m; ++i) bias[i] = Cp[i].v[0].v[0];
    lu_solve(Cd, perm, bias, y);
    for (int k = 0; k < n; ++k) xdd_bias[k] = T(0.0);
    for (int i = 0; i < m; ++i) xdd_bias[R.dep[i]] = -y[i];
    return true;
  }

  // ż = f(z, u) (the header's equations). u[a]: actuator a's valve input.
  // Also the actuator lengths s and rates ṡ when asked (the controller's
  // observation). False if the kinematics or Tᵀ M T fails.
  template <class T>
  HS_HD static bool rates(const Params& P, const Reference& R, const T* z, const double* u, T* zdot, T* s_out = nullptr,
                          T* sdot_out = nullptr) {
    T x[n], xd[n], Tm[n][ni], xdd[n];
    if (!kinematics(P, R, z + iz, z + izd, x, xd, Tm, xdd)) return false;
    // Generalized actuator forces Σ F_a ∂s_a/∂x, and the pressure rates.
    T g[n];
    for (int k = 0; k < n; ++k) g[k] = T(0.0);
    for (int a = 0; a < na; ++a) {
      Dual<n, T> xj[n];
      for (int k = 0; k < n; ++k) xj[k] = Dual<n, T>::variable(x[k], k);
      const Dual<n, T> sj = dae_actuator_length<Dae>(P.mechanism, xj, a);
      T sdot(0.0);
      for (int k = 0; k < n; ++k) sdot += sj.v[k] * xd[k];
      const T* p = z + ip + a * npa;
      const T F = Actuator::piston_force(R.K.actuator[a], p) -
                  Actuator::friction_force(P.actuator[a], sdot, static_cast<const T*>(nullptr), static_cast<const T*>(nullptr));
      for (int k = 0; k < n; ++k) g[k] += F * sj.v[k];
      Actuator::state_rates(P.actuator[a], R.K.actuator[a], p, static_cast<const T*>(nullptr), u[a], sj.a - R.K.actuator[a].s0,
                            sdot, zdot + ip + a * npa, static_cast<T*>(nullptr));
      if (s_out) s_out[a] = sj.a;
      if (sdot_out) sdot_out[a] = sdot;
    }
    // Tᵀ M T z̈ = Tᵀ(g − e(x, ẋ, ẍ_b)); e is affine in ẍ, so column k of
    // Tᵀ M T is Tᵀ(e(x, ẋ, ẍ_b + T e_k) − e(x, ẋ, ẍ_b)).
    T e0[n];
    Dae::mechanism_residual(P.mechanism, x, xd, xdd, e0);
    Mat<T, ni, ni> m0;
    for (int c = 0; c < ni; ++c) {
      T acc[n], ek[n];
      for (int k = 0; k < n; ++k) acc[k] = xdd[k] + Tm[k][c];
      Dae::mechanism_residual(P.mechanism, x, xd, acc, ek);
      for (int i = 0; i < ni; ++i) {
        T s(0.0);
        for (int k = 0; k < n; ++k) s += Tm[k][i] * (ek[k] - e0[k]);
        m0(i, c) = s;
      }
    }
    T rhs[ni], zdd[ni];
    for (int i = 0; i < ni; ++i) {
      T s(0.0);
      for (int k = 0; k < n; ++k) s += Tm[k][i] * (g[k] - e0[k]);
      rhs[i] = s;
    }
    if (!solve_linear(m0, rhs, zdd)) return false;
    for (int j = 0; j < ni; ++j) {
      zdot[iz + j] = z[izd + j];
      zdot[izd + j] = zdd[j];
    }
    return true;
  }

  // The actuator forces F_a holding the reference configuration at rest:
  // Tᵀ e_mech(x, 0, 0) = Σ_a F_a Tᵀ ∂s_a/∂x (n_i equations, one per actuator).
  // False if the actuators cannot hold the pose (singular).
  HS_HD static bool holding_forces(const Params& P, const Reference& R, double* F) {
    static_assert(ni == na, "a held pose needs one actuator per independent coordinate");
    double z[ni], zd[ni], x[n], xd[n], Tm[n][ni], xdd[n];
    for (int j = 0; j < ni; ++j) {
      z[j] = R.x[R.indep[j]];
      zd[j] = 0.0;
    }
    if (!kinematics(P, R, z, zd, x, xd, Tm, xdd)) return false;
    double e[n];
    Dae::mechanism_residual(P.mechanism, x, xd, xdd, e);
    Mat<double, ni, na> G;
    double rhs[ni];
    for (int a = 0; a < na; ++a) {
      Dual<n> xj[n];
      for (int k = 0; k < n; ++k) xj[k] = Dual<n>::variable(x[k], k);
      const Dual<n> sj = dae_actuator_length<Dae>(P.mechanism, xj, a);
      for (int i = 0; i < ni; ++i) {
        double s = 0.0;
        for (int k = 0; k < n; ++k) s += Tm[k][i] * sj.v[k];
        G(i, a) = s;
      }
    }
    for (int i = 0; i < ni; ++i) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += Tm[k][i] * e[k];
      rhs[i] = s;
    }
    Mat<double, ni, ni> Gs;
    for (int i = 0; i < ni; ++i)
      for (int j = 0; j < ni; ++j) Gs(i, j) = G(i, j);
    return solve_linear(Gs, rhs, F);
  }
};

}  // namespace hs
