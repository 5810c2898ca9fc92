// Reduced Jacobian of seed 000 (§3, eqs 53–64) at a static equilibrium,
// generic over the mechanism and the friction law (docs/models/linearization.md §3.3):
//
//   state  X̃ = (x̃_ai | ẋ̃_ai | p̃ | Ũ),  size 2(n − m) + r + u   (l = 0;
//   r = 3 na pressures, u = na spools: one per cylinder)
//
//       [ 0                 I                 0                 0    ]
//   J = [ −m0⁻¹TᵀK_q T      m0⁻¹TᵀQ_ẋ T       m0⁻¹TᵀQ_p         0    ]   eq (64)
//       [ H_x T             H_ẋ T             H_p               H_U  ]
//       [ 0                 0                 0                 W_U  ]
//
//   m0 = TᵀM T (eq 57), K_q = ∂(C_xᵀΛ⁰)/∂x − Q_x (the multiplier/geometric
//   stiffness plus the applied-force stiffness), T = [I; −C_d⁻¹C_i] (eq 31).
// At an equilibrium ẋ⁰ = ẍ⁰ = 0, so V̄ = V̿ = U_a = V_a = 0 and the general
// eqs (53)–(60) reduce to this (docs/models/linearization.md §3.2–3.3); the l = 0 case has V^{h,ai} = T.
//
// Only projections on the admissible motions enter J: TᵀMT, TᵀK_qT,
// TᵀQ_ẋT, TᵀQ_p, H_xT, H_ẋT. So after C_x and T, every partial comes from
// directional derivatives along the columns of T (nd = n − m), never from
// full n×n matrices:
// - Tᵀ∇²(ΛᵀC)T: one pass of the constraints on Dual<ni, Dual<ni>>, both
//   levels seeded along T (the mixed second derivative of ΛᵀC(x + Tε + Tδ)).
// - everything else: one pass of Tᵀe and H on Dual<3ni + r + u>, seeded on
//   x along T, ẋ along T, ẍ along T, p and U; its mechanism part, which
//   depends on neither p nor U, on the first 3ni directions only.
// For the 3D four-bar (n = 10, ni = 1) the widest jet is the actuator's
// Dual<2, Dual<7>> (24 doubles) instead of Dual<10, Dual<10>> (121). H_U is one-sided (U → 0⁺): the closed-centre valve
// switches ports at U = 0. It does not change the eigenvalues (the Ũ row is
// decoupled: J is block triangular).
#pragma once
#include "../actuators/hydraulic_cylinder.hpp"
#include "equilibrium.hpp"

namespace hs {

// Every term of the linearization, projected on T, for tests and diagnostics.
// R: double, or Lanes<W> for W points in lockstep (lockstep_stability.hpp:
// each lane's terms are its point's, bit for bit; a struct of reals only).
template <class System, class R = double>
struct LinearizationTerms {
  static constexpr int n = System::n, m = System::m, ni = System::ni, r = System::r;
  R m0[ni][ni];     // TᵀM T, eq (57)
  R Kq[ni][ni];     // Tᵀ(∂(C_xᵀΛ)/∂x − Q_x)T
  R Qxd[ni][ni];    // TᵀQ_ẋT (friction through ṡ)
  R Qp[ni][r];      // TᵀQ_p (cylinder areas × ∂s/∂x T)
  R Hx[r][ni], Hxd[r][ni];  // H_xT, H_ẋT
  R Hp[r][r], HU[r][System::u];  // H_U: actuator a's pressures on its own spool U_a
  R WU[System::u];  // ∂W_a/∂U_a = −1/τ_a (W is diagonal: each spool follows its own reference)
};

template <class System>
struct ReducedSize {
  static constexpr int value = 2 * System::ni + System::r + System::u;
};

// Whether some instance of System may leave states of X̃ out (its
// cylinders' circuit is chosen at run time, or its spool is ideal).
template <class System>
constexpr bool may_leave_states_out() {
  using Circuit = typename System::Actuator::Circuit;
  if constexpr (RunTimeSpool<Circuit>::value)
    return true;
  else
    return !Circuit::Spool::has_state;
}

// The states of X̃ the instance P has, as indices into X̃ in order; returns
// their count (docs/models/linearization.md §3.4). Every x̃, ẋ̃; of cylinder
// a's pressures the slots its circuit uses (a model file's two-volume or
// servo-valve cylinder on the three slots of the circuit choice uses the
// last two); its spool if the spool has a state. A left-out state's row and
// column of J are zero but for the diagonal (nothing reads it, its rate is
// zero or −1/τ with τ = 0): it would add an eigenvalue that is no mode.
template <class System>
HS_HD int live_states(const typename System::Params& P, int* index) {
  constexpr int ni = System::ni, npa = System::npa;
  int count = 0;
  for (int k = 0; k < 2 * ni; ++k) index[count++] = k;
  for (int a = 0; a < System::na; ++a)
    for (int j = System::Actuator::unused_pressures(P.actuator[a]); j < npa; ++j) index[count++] = 2 * ni + a * npa + j;
  for (int a = 0; a < System::u; ++a)
    if (System::Actuator::spool_has_state(P.actuator[a])) index[count++] = 2 * ni + System::r + a;
  return count;
}

// All partial derivatives at the equilibrium, projected on T. PP: the
// System's Params, or its ParamsOn<R> for points on lanes.
template <class System, class PP, class R>
HS_HD bool linearization_terms(const PP& P, const Equilibrium<System, R>& eq, LinearizationTerms<System, R>& L) {
  constexpr int n = System::n, m = System::m, ni = System::ni, r = System::r, u = System::u;

  // The admissible motions T come with the equilibrium (eq 31).
  const auto& T = eq.T;
  const Directions<ni, R> along_T{T};

  // Tᵀ∇²(ΛᵀC)T.
  {
    using Di = Dual<ni, R>;
    using Dii = Dual<ni, Di>;
    Dii xj[n], Cj[m];
    for (int k = 0; k < n; ++k) {
      xj[k] = Dii(along(eq.x[k], along_T, k));
      for (int j = 0; j < ni; ++j) xj[k].v[j] = Di(T[k][j]);
    }
    System::Mechanism::constraints(P.mechanism, xj, Cj);
    Dii lagrange(0.0);
    for (int i = 0; i < m; ++i) lagrange += eq.lambda[i] * Cj[i];
    for (int i = 0; i < ni; ++i)
      for (int j = 0; j < ni; ++j) L.Kq[i][j] = lagrange.v[i].v[j];
  }
  // Tᵀe and H in one pass: directions x·T | ẋ·T | ẍ·T | p | U.
  {
    constexpr int ix = 0, ixd = ni, ixdd = 2 * ni, ip = 3 * ni, iu = 3 * ni + r;
    using Dw = Dual<3 * ni + r + u, R>;
    Dw x[n], xd[n], xdd[n], p[r], e[ni], h[r];
    for (int k = 0; k < n; ++k) {
      x[k] = Dw(eq.x[k]);
      xd[k] = Dw(0.0);
      xdd[k] = Dw(0.0);
      for (int j = 0; j < ni; ++j) {
        x[k].v[ix + j] = T[k][j];
        xd[k].v[ixd + j] = T[k][j];
        xdd[k].v[ixdd + j] = T[k][j];
      }
    }
    for (int k = 0; k < r; ++k) p[k] = Dw::variable(eq.p[k], ip + k);
    Dw U[u];
    for (int a = 0; a < u; ++a) U[a] = Dw::variable(eq.U, iu + a);
    {
      // e_mech depends on x, ẋ, ẍ only: its pass carries the first 3ni
      // directions (path jets of half the width for the four-bar).
      using Dm = Dual<3 * ni, R>;
      Dm xm[n], xdm[n], xddm[n], em[ni];
      for (int k = 0; k < n; ++k) {
        xm[k] = head<3 * ni>(x[k]);
        xdm[k] = head<3 * ni>(xd[k]);
        xddm[k] = head<3 * ni>(xdd[k]);
      }
      System::Mechanism::mechanism_residual_along(P.mechanism, along_T, xm, xdm, xddm, em);
      for (int i = 0; i < ni; ++i) e[i] = widen<3 * ni + r + u>(em[i]);
    }
    System::actuation_along(P, eq.K, along_T, x, xd, p, U, e, h);
    for (int i = 0; i < ni; ++i) {
      for (int j = 0; j < ni; ++j) {
        L.m0[i][j] = e[i].v[ixdd + j];
        L.Kq[i][j] += e[i].v[ix + j];  // −Q_x
        L.Qxd[i][j] = -e[i].v[ixd + j];
      }
      for (int k = 0; k < r; ++k) L.Qp[i][k] = -e[i].v[ip + k];
    }
    for (int i = 0; i < r; ++i) {
      for (int j = 0; j < ni; ++j) {
        L.Hx[i][j] = h[i].v[ix + j];
        L.Hxd[i][j] = h[i].v[ixd + j];
      }
      for (int k = 0; k < r; ++k) L.Hp[i][k] = h[i].v[ip + k];
      for (int a = 0; a < u; ++a) L.HU[i][a] = h[i].v[iu + a];
    }
  }
  for (int a = 0; a < u; ++a) L.WU[a] = System::spool_rate_derivative(P, a);
  return true;
}

// Assemble J from the terms (eq 64). False if m0 is singular.
template <class System>
HS_HD bool assemble_reduced_jacobian(const LinearizationTerms<System>& L,
                                     Mat<double, ReducedSize<System>::value, ReducedSize<System>::value>& J) {
  constexpr int ni = System::ni, r = System::r, u = System::u;
  constexpr int N = ReducedSize<System>::value;
  constexpr int row_v = ni, row_p = 2 * ni, row_u = 2 * ni + r;
  J = Mat<double, N, N>::zero();
  Mat<double, ni, ni> m0;
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < ni; ++j) m0(i, j) = L.m0[i][j];
  int perm[ni];
  if (!lu_factor(m0, perm)) return false;
  // Right-hand sides of m0 X = B for the blocks J21, J22, J24, one column at a time.
  for (int c = 0; c < ni + ni + r; ++c) {
    double b[ni], y[ni];
    for (int i = 0; i < ni; ++i) {
      if (c < ni) b[i] = -L.Kq[i][c];                  // J21
      else if (c < 2 * ni) b[i] = L.Qxd[i][c - ni];    // J22
      else b[i] = L.Qp[i][c - 2 * ni];                 // J24
    }
    lu_solve(m0, perm, b, y);
    for (int i = 0; i < ni; ++i) J(row_v + i, c) = y[i];
  }
  for (int i = 0; i < ni; ++i) J(i, ni + i) = 1.0;
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < ni; ++j) {
      J(row_p + i, j) = L.Hx[i][j];        // J41 = H_x V^{h,ai} = H_x T
      J(row_p + i, ni + j) = L.Hxd[i][j];  // J42 = H_ẋ T
    }
    for (int k = 0; k < r; ++k) J(row_p + i, row_p + k) = L.Hp[i][k];
    for (int a = 0; a < u; ++a) J(row_p + i, row_u + a) = L.HU[i][a];
  }
  for (int a = 0; a < u; ++a) J(row_u + a, row_u + a) = L.WU[a];
  return true;
}

template <class System>
HS_HD bool reduced_jacobian(const typename System::Params& P, const Equilibrium<System>& eq,
                            Mat<double, ReducedSize<System>::value, ReducedSize<System>::value>& J) {
  LinearizationTerms<System> L;
  if (!linearization_terms(P, eq, L)) return false;
  return assemble_reduced_jacobian(L, J);
}

}  // namespace hs
