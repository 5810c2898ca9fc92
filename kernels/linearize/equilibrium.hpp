// Static equilibrium of a hydraulically actuated mechanism (seed 000 §4.3,
// eqs 77–86; docs/models/linearization.md §3.3, §4), computed from the model itself:
//
// 1. Assembly: the driving coordinate(s) held (crank angle), the others
//    from C(x) = 0 by Newton with the dual-number Jacobian C_x.
// 2. Statics at rest, valve closed (U = 0): projected on the admissible
//    motions T (C_x T = 0), Tᵀ(e_mech − Σ_a F_a ∂s_a/∂x) = 0 gives the
//    actuator forces F_a (one per degree of freedom: ni = na equations,
//    B F = Tᵀe_mech with B_ja = T_jᵀ ∂s_a/∂x). No flow crosses the throttle,
//    so p1 = p2, and with p3 prescribed p2 = (F + A3 p3)/A2 (eqs 81–82), per
//    actuator.
// 3. Multipliers from D(x⁰)ᵀΛ⁰ = Q(x⁰, 0, p⁰), eq (79), by least squares
//    (normal equations C_x C_xᵀ Λ = −C_x e; exact since Tᵀe = 0).
// The printed closed forms (83), (85), (86) fail a virtual-work check
// (docs/models/linearization.md §4, decision A13), so nothing here uses them.
#pragma once
#include "../core/derivatives.hpp"
#include "../core/dual.hpp"
#include "../core/lu.hpp"
#include "../core/small_matrix.hpp"
#include "../models/hydraulically_actuated.hpp"

namespace hs {

struct EquilibriumSettings {
  double constraint_tolerance = 1e-12;  // |C|∞ of the assembly [m]
  int max_iterations = 50;
};

template <class System>
struct Equilibrium {
  static constexpr int n = System::n, m = System::m, ni = System::ni, r = System::r;
  double x[n];
  double p[r];
  double U = 0.0;
  double lambda[m];
  double actuator_force;  // F = A2 p2 − A3 p3 of the first actuator holding the load [N]
  double actuator_forces[System::na];  // every actuator's
  typename System::Constants K;
  int indep[ni], dep[m];  // coordinate partition (driving coordinates independent)
  double Cx[m][n];        // constraint Jacobian C_x(x⁰)
  double T[n][ni];        // admissible motions at x⁰: C_x T = 0, rows indep = I (eq 31)
  double constraint_residual;  // |C(x⁰)|∞
  double statics_residual;     // |e + C_xᵀΛ|∞ at rest [N or N·m]
};

namespace linearize_detail {
// C(x) and C_x(x) from one pass on Dual<n>.
template <class System, class S>
HS_HD void constraints_and_jacobian(const typename System::Params& P, const S* x, S* C, S (*Cx)[System::n]) {
  constexpr int n = System::n, m = System::m;
  jacobian<m, n>([&](const Dual<n, S>* xj, Dual<n, S>* Cj) { System::Mechanism::constraints(P.mechanism, xj, Cj); }, x,
                 C, Cx);
}

// Basis of the admissible motions for a partition: rows `indep` = I, rows
// `dep` = −C_d⁻¹ C_i (seed 000 eq 31, l = 0). False if C_d is singular.
template <class System, class S>
HS_HD bool admissible_basis(const S (*Cx)[System::n], const int* indep, const int* dep, S (*T)[System::ni]) {
  constexpr int m = System::m, ni = System::ni;
  Mat<S, m, m> Cd;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) Cd(i, j) = Cx[i][dep[j]];
  int perm[m];
  if (!lu_factor(Cd, perm)) return false;
  for (int j = 0; j < ni; ++j) {
    S b[m], y[m];
    for (int i = 0; i < m; ++i) b[i] = Cx[i][indep[j]];
    lu_solve(Cd, perm, b, y);
    for (int k = 0; k < ni; ++k) T[indep[k]][j] = S(k == j ? 1.0 : 0.0);
    for (int i = 0; i < m; ++i) T[dep[i]][j] = -y[i];
  }
  return true;
}

HS_HD inline double max_abs(const double* v, int n) {
  double r = 0.0;
  for (int i = 0; i < n; ++i) r = fabs(v[i]) > r ? fabs(v[i]) : r;
  return r;
}
}  // namespace linearize_detail

template <class System>
HS_HD Status solve_equilibrium(const typename System::Params& P, Equilibrium<System>& eq,
                               const EquilibriumSettings& S = EquilibriumSettings{}) {
  using Mech = typename System::Mechanism;
  constexpr int n = System::n, m = System::m, ni = System::ni;
  constexpr int na = System::na, npa = System::npa;
  static_assert(ni == na, "one actuator per degree of freedom: the statics fix each actuator's force");
  namespace d = linearize_detail;

  // 1. Assembly with the driving coordinate held.
  Mech::initial_guess(P.mechanism, eq.x);
  Mech::driving(eq.indep);
  coordinate_complement<n, ni>(eq.indep, eq.dep);
  double C[m];
  auto& Cx = eq.Cx;  // at the last iterate: the assembled x⁰ once converged
  bool assembled = false;
  for (int it = 0; it <= S.max_iterations; ++it) {
    d::constraints_and_jacobian<System>(P, eq.x, C, Cx);
    eq.constraint_residual = d::max_abs(C, m);
    if (!(eq.constraint_residual < 1e30)) break;
    if (eq.constraint_residual <= S.constraint_tolerance) { assembled = true; break; }
    Mat<double, m, m> Cd;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) Cd(i, j) = Cx[i][eq.dep[j]];
    double step[m];
    if (!solve_linear(Cd, C, step)) break;
    for (int j = 0; j < m; ++j) eq.x[eq.dep[j]] -= step[j];
  }
  if (!assembled) return Status::constraint_failure;
  const auto& T = eq.T;
  if (!d::admissible_basis<System>(Cx, eq.indep, eq.dep, eq.T)) return Status::constraint_failure;

  // 2. Statics: actuator forces from the projected balance, then pressures.
  eq.K = System::constants(P, eq.x);
  const double zero[n] = {};
  double e_mech[n], s, sdot, ds_dx[na][n];
  Mech::mechanism_residual(P.mechanism, eq.x, zero, zero, e_mech);
  for (int c = 0; c < na; ++c) System::actuator(P, eq.x, zero, s, sdot, ds_dx[c], c);
  if constexpr (na == 1) {
    double a = 0.0, b = 0.0;
    for (int k = 0; k < n; ++k) {
      a += T[k][0] * e_mech[k];
      b += T[k][0] * ds_dx[0][k];
    }
    if (!(fabs(b) > 1e-12)) return Status::invalid_parameters;  // actuator at a dead point: cannot hold the load
    eq.actuator_forces[0] = a / b;
  } else {
    Mat<double, na, na> B;
    double a[na];
    double scale = 0.0;
    for (int j = 0; j < ni; ++j) {
      a[j] = 0.0;
      for (int k = 0; k < n; ++k) a[j] += T[k][j] * e_mech[k];
      for (int c = 0; c < na; ++c) {
        double b = 0.0;
        for (int k = 0; k < n; ++k) b += T[k][j] * ds_dx[c][k];
        B(j, c) = b;
        scale = fabs(b) > scale ? fabs(b) : scale;
      }
    }
    // The actuators at a dead point together (B singular): they cannot hold the load.
    int perm[na];
    if (!(scale > 1e-12) || !lu_factor(B, perm)) return Status::invalid_parameters;
    double det = 1.0, bound = 1.0;
    for (int j = 0; j < na; ++j) {
      det *= B(j, j);  // the factors' diagonal
      bound *= scale;
    }
    if (!(fabs(det) > 1e-12 * bound)) return Status::invalid_parameters;
    lu_solve(B, perm, a, eq.actuator_forces);
  }
  eq.actuator_force = eq.actuator_forces[0];
  for (int c = 0; c < na; ++c) {
    double p[npa];
    System::Circuit::static_pressures(P.actuator[c].circuit, eq.K.actuator[c].circuit, eq.actuator_forces[c], p);
    for (int k = 0; k < npa; ++k) {
      eq.p[c * npa + k] = p[k];
      if (!(p[k] > 0.0 && p[k] < 1e10)) return Status::invalid_parameters;  // no oil can hold it
    }
  }
  eq.U = 0.0;

  // 3. Multipliers: e + C_xᵀΛ = 0 in the least-squares sense.
  double e[n];
  System::residual(P, eq.K, eq.x, zero, zero, eq.p, e);
  Mat<double, m, m> G;
  double rhs[m];
  for (int i = 0; i < m; ++i) {
    rhs[i] = 0.0;
    for (int k = 0; k < n; ++k) rhs[i] -= Cx[i][k] * e[k];
    for (int j = 0; j < m; ++j) {
      double g = 0.0;
      for (int k = 0; k < n; ++k) g += Cx[i][k] * Cx[j][k];
      G(i, j) = g;
    }
  }
  if (!solve_linear(G, rhs, eq.lambda)) return Status::constraint_failure;
  double res[n];
  for (int k = 0; k < n; ++k) {
    res[k] = e[k];
    for (int i = 0; i < m; ++i) res[k] += Cx[i][k] * eq.lambda[i];
  }
  eq.statics_residual = d::max_abs(res, n);
  return Status::ok;
}

}  // namespace hs
