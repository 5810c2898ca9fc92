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
//
// One source for one point (R = double, every backend) and for W points in
// lockstep (R = Lanes<W>, the CPU's stability maps: lockstep_stability.hpp,
// docs/models/lanes.md §12): the Newton loop runs while any lane iterates,
// each lane's convergence and failures a mask, its first failure its status;
// the rest are the same operations in the same order, so lane i is point i's
// scalar equilibrium bit for bit.
#pragma once
#include <type_traits>

#include "../actuators/hydraulic_cylinder.hpp"
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

// R: double, or Lanes<W> for W points (every real a lane each; the partition
// is the mechanism's driving one, the same in every lane).
template <class System, class R = double>
struct Equilibrium {
  static constexpr int n = System::n, m = System::m, ni = System::ni, r = System::r;
  R x[n];
  R p[r];
  R U = 0.0;
  R lambda[m];
  R actuator_force;  // F = A2 p2 − A3 p3 of the first actuator holding the load [N]
  R actuator_forces[System::na];  // every actuator's
  typename System::template ConstantsOn<R> K;
  int indep[ni], dep[m];  // coordinate partition (driving coordinates independent)
  R Cx[m][n];        // constraint Jacobian C_x(x⁰)
  R T[n][ni];        // admissible motions at x⁰: C_x T = 0, rows indep = I (eq 31)
  R constraint_residual;  // |C(x⁰)|∞
  R statics_residual;     // |e + C_xᵀΛ|∞ at rest [N or N·m]
};

namespace linearize_detail {
// C(x) and C_x(x) from one pass on Dual<n>.
template <class System, class PP, class S>
HS_HD void constraints_and_jacobian(const PP& P, const S* x, S* C, S (*Cx)[System::n]) {
  constexpr int n = System::n, m = System::m;
  jacobian<m, n>([&](const Dual<n, S>* xj, Dual<n, S>* Cj) { System::Mechanism::constraints(P.mechanism, xj, Cj); }, x,
                 C, Cx);
}

// Basis of the admissible motions for a partition: rows `indep` = I, rows
// `dep` = −C_d⁻¹ C_i (seed 000 eq 31, l = 0). False (on lanes: a mask false
// in the lanes) where C_d is singular.
template <class System, class S>
HS_HD auto admissible_basis(const S (*Cx)[System::n], const int* indep, const int* dep, S (*T)[System::ni]) {
  constexpr int m = System::m, ni = System::ni;
  Mat<S, m, m> Cd;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) Cd(i, j) = Cx[i][dep[j]];
  LaneIndex<S> perm[m];
  const auto ok = lu_factor(Cd, perm);
  if constexpr (std::is_same<decltype(ok), const bool>::value) {
    if (!ok) return false;
  }
  for (int j = 0; j < ni; ++j) {
    S b[m], y[m];
    for (int i = 0; i < m; ++i) b[i] = Cx[i][indep[j]];
    lu_solve(Cd, perm, b, y);
    for (int k = 0; k < ni; ++k) T[indep[k]][j] = S(k == j ? 1.0 : 0.0);
    for (int i = 0; i < m; ++i) T[dep[i]][j] = -y[i];
  }
  return ok;
}

// max_i |v_i| (a NaN entry is skipped, as the comparison skips it).
template <class S>
HS_HD S max_abs(const S* v, int n) {
  S r(0.0);
  for (int i = 0; i < n; ++i) r = choose(math::abs(v[i]) > r, math::abs(v[i]), r);
  return r;
}

// Where a condition holds in a lane that has not failed yet: that lane's
// status becomes `code` (its first failure is kept), and the scalar path
// returns (`stop`: true once no lane is left running).
template <class Mask, class St>
HS_HD bool fail_where(const Mask& condition, St& status, Status code) {
  using R = typename std::conditional<std::is_same<St, Status>::value, double, St>::type;
  const auto running = status == StatusOnT<R>::of(Status::ok);
  set_status_where(running && condition, status, code);
  return !any_lane(status == StatusOnT<R>::of(Status::ok));
}
}  // namespace linearize_detail

// The equilibrium from the assembly guess x_guess (the mechanism's
// initial_guess per point: solve_equilibrium below). On lanes P is the
// points' ParamsOn<Lanes<W>> and the result a status per lane.
template <class System, class PP, class R>
HS_HD StatusOn<R> solve_equilibrium_from(const PP& P, const R* x_guess, Equilibrium<System, R>& eq,
                                         const EquilibriumSettings& S = EquilibriumSettings{}) {
  using Mech = typename System::Mechanism;
  using Mask = MaskOf<R>;
  constexpr int n = System::n, m = System::m, ni = System::ni;
  constexpr int na = System::na, npa = System::npa;
  static_assert(ni == na, "one actuator per degree of freedom: the statics fix each actuator's force");
  namespace d = linearize_detail;
  StatusOn<R> status = StatusOnT<R>::of(Status::ok);

  // 1. Assembly with the driving coordinate held.
  for (int k = 0; k < n; ++k) eq.x[k] = x_guess[k];
  Mech::driving(eq.indep);
  coordinate_complement<n, ni>(eq.indep, eq.dep);
  R C[m];
  auto& Cx = eq.Cx;  // at the last iterate: the assembled x⁰ once converged
  Mask iterating(true);  // lanes still assembling (a lane that stops keeps its x, so C_x stays its own)
  Mask assembled(false);
  eq.constraint_residual = R(0.0);
  for (int it = 0; it <= S.max_iterations; ++it) {
    d::constraints_and_jacobian<System>(P, eq.x, C, Cx);
    // Only the lanes still iterating take this iterate's residual (a lane
    // that stopped evaluates its own x again: the same bits).
    eq.constraint_residual = choose(iterating, d::max_abs(C, m), eq.constraint_residual);
    iterating = iterating && (eq.constraint_residual < 1e30);
    const Mask converged = iterating && (eq.constraint_residual <= S.constraint_tolerance);
    assembled = assembled || converged;
    iterating = iterating && !converged;
    if (!any_lane(iterating)) break;
    Mat<R, m, m> Cd;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) Cd(i, j) = Cx[i][eq.dep[j]];
    R step[m];
    iterating = iterating && solve_linear(Cd, C, step);
    if (!any_lane(iterating)) break;
    for (int j = 0; j < m; ++j) eq.x[eq.dep[j]] = choose(iterating, eq.x[eq.dep[j]] - step[j], eq.x[eq.dep[j]]);
  }
  if (d::fail_where(!assembled, status, Status::constraint_failure)) return status;
  const auto& T = eq.T;
  if (d::fail_where(!d::admissible_basis<System>(Cx, eq.indep, eq.dep, eq.T), status, Status::constraint_failure))
    return status;

  // 2. Statics: actuator forces from the projected balance, then pressures.
  eq.K = System::constants(P, eq.x);
  const R zero[n] = {};
  R e_mech[n], s, sdot, ds_dx[na][n];
  Mech::mechanism_residual(P.mechanism, eq.x, zero, zero, e_mech);
  for (int c = 0; c < na; ++c) System::actuator(P, eq.x, zero, s, sdot, ds_dx[c], c);
  if constexpr (na == 1) {
    R a(0.0), b(0.0);
    for (int k = 0; k < n; ++k) {
      a += T[k][0] * e_mech[k];
      b += T[k][0] * ds_dx[0][k];
    }
    // The actuator at a dead point: it cannot hold the load.
    if (d::fail_where(!(math::abs(b) > 1e-12), status, Status::invalid_parameters)) return status;
    eq.actuator_forces[0] = a / b;
  } else {
    Mat<R, na, na> B;
    R a[na];
    R scale(0.0);
    for (int j = 0; j < ni; ++j) {
      a[j] = 0.0;
      for (int k = 0; k < n; ++k) a[j] += T[k][j] * e_mech[k];
      for (int c = 0; c < na; ++c) {
        R b(0.0);
        for (int k = 0; k < n; ++k) b += T[k][j] * ds_dx[c][k];
        B(j, c) = b;
        scale = choose(math::abs(b) > scale, math::abs(b), scale);
      }
    }
    // The actuators at a dead point together (B singular): they cannot hold the load.
    if (d::fail_where(!(scale > 1e-12), status, Status::invalid_parameters)) return status;
    LaneIndex<R> perm[na];
    if (d::fail_where(!lu_factor(B, perm), status, Status::invalid_parameters)) return status;
    R det(1.0), bound(1.0);
    for (int j = 0; j < na; ++j) {
      det *= B(j, j);  // the factors' diagonal
      bound *= scale;
    }
    if (d::fail_where(!(math::abs(det) > 1e-12 * bound), status, Status::invalid_parameters)) return status;
    lu_solve(B, perm, a, eq.actuator_forces);
  }
  eq.actuator_force = eq.actuator_forces[0];
  for (int c = 0; c < na; ++c) {
    R p[npa];
    System::Circuit::static_pressures(P.actuator[c].circuit, eq.K.actuator[c].circuit, eq.actuator_forces[c], p);
    for (int k = 0; k < npa; ++k) {
      eq.p[c * npa + k] = p[k];
      // No oil can hold it.
      if (d::fail_where(!(p[k] > 0.0 && p[k] < 1e10), status, Status::invalid_parameters)) return status;
    }
  }
  eq.U = 0.0;

  // 3. Multipliers: e + C_xᵀΛ = 0 in the least-squares sense.
  R e[n];
  System::residual(P, eq.K, eq.x, zero, zero, eq.p, e);
  Mat<R, m, m> G;
  R rhs[m];
  for (int i = 0; i < m; ++i) {
    rhs[i] = 0.0;
    for (int k = 0; k < n; ++k) rhs[i] -= Cx[i][k] * e[k];
    for (int j = 0; j < m; ++j) {
      R g(0.0);
      for (int k = 0; k < n; ++k) g += Cx[i][k] * Cx[j][k];
      G(i, j) = g;
    }
  }
  if (d::fail_where(!solve_linear(G, rhs, eq.lambda), status, Status::constraint_failure)) return status;
  R res[n];
  for (int k = 0; k < n; ++k) {
    res[k] = e[k];
    for (int i = 0; i < m; ++i) res[k] += Cx[i][k] * eq.lambda[i];
  }
  eq.statics_residual = d::max_abs(res, n);
  return status;
}

// One point's equilibrium from the mechanism's assembly guess.
template <class System>
HS_HD Status solve_equilibrium(const typename System::Params& P, Equilibrium<System>& eq,
                               const EquilibriumSettings& S = EquilibriumSettings{}) {
  double x_guess[System::n];
  System::Mechanism::initial_guess(P.mechanism, x_guess);
  return solve_equilibrium_from<System>(P, x_guess, eq, S);
}

}  // namespace hs
