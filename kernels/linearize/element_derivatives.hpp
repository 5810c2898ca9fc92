// Exact derivatives of the small elements a constrained multibody system is
// assembled from (docs/models/nloop-and-flexible.md §6): a force element, a
// constraint element or a mass element acts on K of the system's
// coordinates, so its Jacobians and Hessians are K × K and come from
// fixed-size dual numbers whatever the size n of the system (N = 20 loops,
// n_p = 100 beam elements). The host assembles them into the global matrices
// (host/constrained/system.hpp).
//
// An element type E declares
//   static constexpr int K;      its local coordinates
//   static constexpr int R;      its outputs: K generalized forces (force
//                                element) or R constraint rows
//   template <class T> void forces(const T* q, const T* qd, T* f) const        (force element)
//   template <class T> void constraints(const T* q, T* phi) const              (constraint element)
//   void mass(const double* q, double* M) const                                (mass element, K × K row-major)
// q, qd: the element's K local coordinates and velocities.
#pragma once
#include "../core/dual.hpp"

namespace hs {

// f, ∂f/∂q and ∂f/∂q̇ (K × K row-major) of a force element at (q, q̇):
// one pass on Dual<2K>, q seeded in directions 0..K−1, q̇ in K..2K−1.
template <class E>
HS_HD void force_derivatives(const E& e, const double* q, const double* qd, double* f, double* df_dq,
                             double* df_dqd) {
  constexpr int K = E::K;
  using D = Dual<2 * K>;
  D qj[K], qdj[K], fj[K];
  for (int k = 0; k < K; ++k) {
    qj[k] = D::variable(q[k], k);
    qdj[k] = D::variable(qd[k], K + k);
  }
  e.forces(qj, qdj, fj);
  for (int r = 0; r < K; ++r) {
    f[r] = fj[r].a;
    for (int c = 0; c < K; ++c) {
      df_dq[r * K + c] = fj[r].v[c];
      df_dqd[r * K + c] = fj[r].v[K + c];
    }
  }
}

// Φ and Φ_q (R × K row-major) of a constraint element at q.
template <class E>
HS_HD void constraint_derivatives(const E& e, const double* q, double* phi, double* phi_q) {
  constexpr int K = E::K, R = E::R;
  using D = Dual<K>;
  D qj[K], pj[R];
  for (int k = 0; k < K; ++k) qj[k] = D::variable(q[k], k);
  e.constraints(qj, pj);
  for (int r = 0; r < R; ++r) {
    phi[r] = pj[r].a;
    for (int c = 0; c < K; ++c) phi_q[r * K + c] = pj[r].v[c];
  }
}

// ∂(Φ_qᵀλ)/∂q (K × K row-major, symmetric) of a constraint element for its
// R multipliers λ, with λ frozen (seed 003 eq (17)): the Hessian of the
// scalar λᵀΦ(q), from one pass on nested jets Dual<K, Dual<K>>.
template <class E>
HS_HD void constraint_hessian(const E& e, const double* q, const double* lambda, double* H) {
  constexpr int K = E::K, R = E::R;
  using Inner = Dual<K>;
  using D = Dual<K, Inner>;
  D qj[K], pj[R];
  for (int k = 0; k < K; ++k) {
    qj[k] = D(Inner::variable(q[k], k));
    qj[k].v[k] = Inner(1.0);
  }
  e.constraints(qj, pj);
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j) {
      double h = 0.0;
      for (int r = 0; r < R; ++r) h += lambda[r] * pj[r].v[i].v[j];
      H[i * K + j] = h;
    }
}

}  // namespace hs
