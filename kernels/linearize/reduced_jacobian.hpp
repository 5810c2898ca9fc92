// Reduced Jacobian of seed 000 (§3, eqs 53–64) at a static equilibrium,
// generic over the mechanism and the friction law (linearization.md §1.7):
//
//   state  X̃ = (x̃_ai | ẋ̃_ai | p̃ | Ũ),  size 2(n − m) + r + u   (l = 0)
//
//       [ 0                 I                 0                 0    ]
//   J = [ −m0⁻¹TᵀK_q T      m0⁻¹TᵀQ_ẋ T       m0⁻¹TᵀQ_p         0    ]   eq (64)
//       [ H_x T             H_ẋ T             H_p               H_U  ]
//       [ 0                 0                 0                 W_U  ]
//
//   m0 = TᵀM T (eq 57), K_q = ∂(C_xᵀΛ⁰)/∂x − Q_x (the multiplier/geometric
//   stiffness plus the applied-force stiffness), T = [I; −C_d⁻¹C_i] (eq 31).
// At an equilibrium ẋ⁰ = ẍ⁰ = 0, so V̄ = V̿ = U_a = V_a = 0 and the general
// eqs (53)–(60) reduce to this (§1.7); the l = 0 case has V^{h,ai} = T.
//
// Exact partial derivatives from dual numbers, one pass per argument group:
//   M = ∂e/∂ẍ, −Q_x = ∂e/∂x, −Q_ẋ = ∂e/∂ẋ, −Q_p = ∂e/∂p on Dual<n> / Dual<r>,
//   ∂(C_xᵀΛ)/∂x = ∇²(ΛᵀC) on the nested Dual<n, Dual<n>>,
//   H_x, H_ẋ, H_p, H_U the same way. H_U is one-sided (U → 0⁺): the
//   closed-centre valve switches ports at U = 0. It does not change the
//   eigenvalues (the Ũ row is decoupled: J is block triangular).
#pragma once
#include "equilibrium.hpp"

namespace hs {

// Every term of the linearization, for tests and diagnostics.
template <class System>
struct LinearizationTerms {
  static constexpr int n = System::n, m = System::m, ni = System::ni, r = System::r;
  double M[n][n];        // mass matrix
  double Kq[n][n];       // ∂(C_xᵀΛ)/∂x − Q_x
  double Qxd[n][n];      // ∂Q/∂ẋ (friction through ṡ)
  double Qp[n][r];       // ∂Q/∂p (cylinder areas × ∂s/∂x)
  double Hx[r][n], Hxd[r][n], Hp[r][r], HU[r];
  double WU;             // ∂W/∂U = −1/τ
  double Cx[m][n];
  double T[n][ni];       // admissible-motion basis of the partition
};

template <class System>
struct ReducedSize {
  static constexpr int value = 2 * System::ni + System::r + System::u;
};

// All partial derivatives at the equilibrium.
template <class System>
HS_HD bool linearization_terms(const typename System::Params& P, const Equilibrium<System>& eq,
                               LinearizationTerms<System>& L) {
  constexpr int n = System::n, m = System::m, r = System::r;
  using Dn = Dual<n>;
  using Dr = Dual<r>;
  namespace d = linearize_detail;

  // Constraint Jacobian and the multiplier Hessian ∇²(ΛᵀC).
  {
    using Dnn = Dual<n, Dn>;
    Dnn xj[n], Cj[m];
    for (int k = 0; k < n; ++k) xj[k] = Dnn::variable(Dn::variable(eq.x[k], k), k);
    System::Mechanism::constraints(P.mechanism, xj, Cj);
    Dnn lagrange(0.0);
    for (int i = 0; i < m; ++i) {
      for (int k = 0; k < n; ++k) L.Cx[i][k] = Cj[i].v[k].a;
      lagrange += eq.lambda[i] * Cj[i];
    }
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) L.Kq[j][k] = lagrange.v[j].v[k];
  }
  // Residual passes on Dual<n>: seeded on ẍ, x, ẋ in turn.
  Dn x[n], xd[n], xdd[n], p[r], e[n];
  for (int k = 0; k < r; ++k) p[k] = Dn(eq.p[k]);
  auto reset = [&]() {
    for (int k = 0; k < n; ++k) { x[k] = Dn(eq.x[k]); xd[k] = Dn(0.0); xdd[k] = Dn(0.0); }
  };
  reset();
  for (int k = 0; k < n; ++k) xdd[k] = Dn::variable(0.0, k);
  System::residual(P, eq.K, x, xd, xdd, p, e);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) L.M[i][k] = e[i].v[k];

  reset();
  for (int k = 0; k < n; ++k) x[k] = Dn::variable(eq.x[k], k);
  Dn h[r];
  System::evaluate(P, eq.K, x, xd, xdd, p, 0.0, e, h);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) L.Kq[i][k] += e[i].v[k];  // −Q_x
  for (int i = 0; i < r; ++i)
    for (int k = 0; k < n; ++k) L.Hx[i][k] = h[i].v[k];

  reset();
  for (int k = 0; k < n; ++k) xd[k] = Dn::variable(0.0, k);
  System::evaluate(P, eq.K, x, xd, xdd, p, 0.0, e, h);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) L.Qxd[i][k] = -e[i].v[k];
  for (int i = 0; i < r; ++i)
    for (int k = 0; k < n; ++k) L.Hxd[i][k] = h[i].v[k];

  // Pressures on Dual<r>.
  {
    Dr xr[n], zr[n], pr[r], er[n], hr[r];
    for (int k = 0; k < n; ++k) { xr[k] = Dr(eq.x[k]); zr[k] = Dr(0.0); }
    for (int k = 0; k < r; ++k) pr[k] = Dr::variable(eq.p[k], k);
    System::evaluate(P, eq.K, xr, zr, zr, pr, 0.0, er, hr);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < r; ++k) L.Qp[i][k] = -er[i].v[k];
    for (int i = 0; i < r; ++i)
      for (int k = 0; k < r; ++k) L.Hp[i][k] = hr[i].v[k];
  }
  // Spool on Dual<1>.
  {
    using D1 = Dual<1>;
    D1 x1[n], z1[n], p1[r], h1[r];
    for (int k = 0; k < n; ++k) { x1[k] = D1(eq.x[k]); z1[k] = D1(0.0); }
    for (int k = 0; k < r; ++k) p1[k] = D1(eq.p[k]);
    System::pressure_rates(P, eq.K, x1, z1, p1, D1::variable(eq.U, 0), h1);
    for (int i = 0; i < r; ++i) L.HU[i] = h1[i].v[0];
  }
  L.WU = System::spool_rate_derivative(P);
  return d::admissible_basis<System>(L.Cx, eq.indep, eq.dep, L.T);
}

// Assemble J from the terms (eq 64). False if m0 is singular.
template <class System>
HS_HD bool assemble_reduced_jacobian(const LinearizationTerms<System>& L,
                                     Mat<double, ReducedSize<System>::value, ReducedSize<System>::value>& J) {
  constexpr int n = System::n, ni = System::ni, r = System::r;
  constexpr int N = ReducedSize<System>::value;
  constexpr int row_v = ni, row_p = 2 * ni, row_u = 2 * ni + r;
  J = Mat<double, N, N>::zero();
  // TᵀA T and TᵀB for the mechanical rows.
  auto project = [&](const double (*A)[n], int i, int j) {
    double s = 0.0;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) s += L.T[a][i] * A[a][b] * L.T[b][j];
    return s;
  };
  Mat<double, ni, ni> m0;
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < ni; ++j) m0(i, j) = project(L.M, i, j);
  int perm[ni];
  if (!lu_factor(m0, perm)) return false;
  // Right-hand sides of m0 X = B for the blocks J21, J22, J24, one column at a time.
  for (int c = 0; c < ni + ni + r; ++c) {
    double b[ni], y[ni];
    for (int i = 0; i < ni; ++i) {
      if (c < ni) b[i] = -project(L.Kq, i, c);                  // J21
      else if (c < 2 * ni) b[i] = project(L.Qxd, i, c - ni);    // J22
      else {                                                     // J24
        double s = 0.0;
        for (int a = 0; a < n; ++a) s += L.T[a][i] * L.Qp[a][c - 2 * ni];
        b[i] = s;
      }
    }
    lu_solve(m0, perm, b, y);
    for (int i = 0; i < ni; ++i) J(row_v + i, c) = y[i];
  }
  for (int i = 0; i < ni; ++i) J(i, ni + i) = 1.0;
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < ni; ++j) {
      double sx = 0.0, sv = 0.0;
      for (int a = 0; a < n; ++a) {
        sx += L.Hx[i][a] * L.T[a][j];
        sv += L.Hxd[i][a] * L.T[a][j];
      }
      J(row_p + i, j) = sx;        // J41 = H_x V^{h,ai} = H_x T
      J(row_p + i, ni + j) = sv;   // J42 = H_ẋ T
    }
    for (int k = 0; k < r; ++k) J(row_p + i, row_p + k) = L.Hp[i][k];
    J(row_p + i, row_u) = L.HU[i];
  }
  J(row_u, row_u) = L.WU;
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
