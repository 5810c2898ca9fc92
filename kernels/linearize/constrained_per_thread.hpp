// Seed 003's MCS linearization of a small constrained system, one system per
// thread (CPU threads, CUDA threads), no allocation: the per-thread side of
// the size switch of docs/models/nloop-and-flexible.md §6 item 10. A model whose
// size is a study parameter (the N-loop linkage) is evaluated in arrays of a
// compile-time capacity NMAX ≥ n; larger systems, and RCS and UCS at every
// size (their QZ and eigenvector tests have no per-thread code here), take
// the host path (host/constrained/linearization.hpp).
//
// The same elements and the same exact local derivatives as the host path
// (kernels/linearize/element_derivatives.hpp): the model's build(p, a) is
// called with an Assembly that evaluates each element where it is declared
// and adds its blocks into fixed-size global arrays, so there is one
// description of the physics for both paths.
//
// Padding. A system of n < NMAX coordinates and m = n − NI constraints is
// completed to NMAX coordinates and MMAX = NMAX − NI constraints by coordinates
// q_j (j ≥ n) with a unit mass, no force and the constraint q_j = 0. The
// Newton matrix, Φ_q and M are then block diagonal ([system, 0; 0, padding]),
// a coordinate partition always takes the padded coordinates as dependent
// (their only nonzero is a unit in their own row), their rows of the velocity
// transformation R are zero, and the reduced matrices and eigenvalues are
// exactly the system's.
//
// Steps (docs/models/nloop-and-flexible.md §6, seed 003 §2.1, §5.1):
//   1. static equilibrium: Newton on (q, λ) with the bordered matrix
//      [∂f/∂q − ∂(Φ_qᵀλ)/∂q, −Φ_qᵀ; Φ_q, 0], LU with scaled partial pivoting,
//      a regularized least-squares step where it is singular (regularized_step);
//      then λ = (Φ_q Φ_qᵀ)⁻¹ Φ_q f, the least-squares (= minimum-norm at full
//      rank) multipliers, as the host path takes them;
//   2. coordinate partition by Gaussian elimination of Φ_q with complete
//      pivoting (as the host's full-pivoting LU): its pivot columns are the
//      dependent coordinates; a pivot below rank_tolerance · the first is a
//      rank-deficient Φ_q (status constraint_failure, as the host's SVD rank);
//   3. R = [I; −Φ_d⁻¹Φ_i] and M_r = RᵀMR, C_r = −Rᵀ(∂f/∂q̇)R,
//      K_r = Rᵀ(∂(Φ_qᵀλ)/∂q − ∂f/∂q)R (seed 003 eq (16));
//   4. the 2 NI eigenvalues of [0, I; −M_r⁻¹K_r, −M_r⁻¹C_r] (balanced
//      Hessenberg QR, kernels/eigen/small_eigen.hpp), ordered as the host
//      orders them (increasing |Im s|, then decreasing Re s, +ω first), and
//      the map's figures (stability_figures).
#pragma once
#include <cmath>

#include "../core/lu.hpp"
#include "../core/small_matrix.hpp"
#include "../eigen/small_eigen.hpp"
#include "element_derivatives.hpp"
#include "per_thread_capacity.hpp"
#include "stability.hpp"

namespace hs {

// What the per-thread equilibrium and partition take (the host's
// ConstrainedSettings carry the same three numbers).
struct PerThreadConstrainedSettings {
  int max_iterations = 50;
  double step_tolerance = 1e-13;  // converged when |δq|∞ ≤ this · max(1, |q|∞)
  double rank_tolerance = 1e-9;   // a partition pivot below this · the first: rank-deficient Φ_q
};

// The model's global quantities at (q, q̇ = 0, λ), NMAX coordinates, MMAX
// constraint rows, padded as the header says. It is the Assembly the
// model's build() is called with: each element's blocks are computed where
// the element is declared.
template <int NMAX, int MMAX>
struct FixedAssembly {
  const double* q;       // NMAX
  const double* lambda;  // MMAX (null: no constraint Hessian)
  Mat<double, NMAX, NMAX> M, df_dq, df_dqd, H;  // H: ∂(Φ_qᵀλ)/∂q
  Mat<double, MMAX, NMAX> phi_q;
  double f[NMAX], phi[MMAX];
  int rows = 0;

  HS_HD void evaluate_begin(const double* q_, const double* lambda_) {
    q = q_;
    lambda = lambda_;
    M = Mat<double, NMAX, NMAX>::zero();
    df_dq = df_dqd = H = M;
    phi_q = Mat<double, MMAX, NMAX>::zero();
    for (int k = 0; k < NMAX; ++k) f[k] = 0.0;
    for (int k = 0; k < MMAX; ++k) phi[k] = 0.0;
    rows = 0;
  }
  // The padding after the model's rows: coordinates n..NMAX−1.
  HS_HD void evaluate_end(int n) {
    for (int j = n; j < NMAX; ++j) {
      M(j, j) = 1.0;
      phi[rows] = q[j];
      phi_q(rows, j) = 1.0;
      ++rows;
    }
  }

  template <class E>
  HS_HD void mass(const E& e, const int* idx) {
    constexpr int K = E::K;
    double ql[K], Ml[K * K];
    for (int j = 0; j < K; ++j) ql[j] = q[idx[j]];
    e.mass(ql, Ml);
    for (int r = 0; r < K; ++r)
      for (int c = 0; c < K; ++c) M(idx[r], idx[c]) += Ml[r * K + c];
  }
  template <class E>
  HS_HD void force(const E& e, const int* idx) {
    constexpr int K = E::K;
    double ql[K], qdl[K], fl[K], Jq[K * K], Jqd[K * K];
    for (int j = 0; j < K; ++j) {
      ql[j] = q[idx[j]];
      qdl[j] = 0.0;  // a static equilibrium
    }
    force_derivatives(e, ql, qdl, fl, Jq, Jqd);
    for (int r = 0; r < K; ++r) {
      f[idx[r]] += fl[r];
      for (int c = 0; c < K; ++c) {
        df_dq(idx[r], idx[c]) += Jq[r * K + c];
        df_dqd(idx[r], idx[c]) += Jqd[r * K + c];
      }
    }
  }
  template <class E>
  HS_HD void constraint(const E& e, const int* idx) {
    constexpr int K = E::K, R = E::R;
    double ql[K], pl[R], Jl[R * K];
    for (int j = 0; j < K; ++j) ql[j] = q[idx[j]];
    constraint_derivatives(e, ql, pl, Jl);
    for (int r = 0; r < R; ++r) {
      phi[rows + r] = pl[r];
      for (int c = 0; c < K; ++c) phi_q(rows + r, idx[c]) += Jl[r * K + c];
    }
    if (lambda) {
      double ll[R], Hl[K * K];
      for (int r = 0; r < R; ++r) ll[r] = lambda[rows + r];
      constraint_hessian(e, ql, ll, Hl);
      for (int r = 0; r < K; ++r)
        for (int c = 0; c < K; ++c) H(idx[r], idx[c]) += Hl[r * K + c];
    }
    rows += R;
  }
};

// Gaussian elimination of A (R × C, R ≤ C) with complete pivoting: the
// pivot columns in order (the first R: dependent coordinates) and the
// smallest pivot over the first, the rank test of step 2.
template <int R, int C>
HS_HD double complete_pivoting_columns(Mat<double, R, C> A, int (&cols)[C]) {
  for (int c = 0; c < C; ++c) cols[c] = c;
  double first = 0.0, smallest = INFINITY;
  for (int k = 0; k < R; ++k) {
    int pr = k, pc = k;
    double best = -1.0;
    for (int i = k; i < R; ++i)
      for (int j = k; j < C; ++j)
        if (fabs(A(i, cols[j])) > best) {
          best = fabs(A(i, cols[j]));
          pr = i;
          pc = j;
        }
    if (k == 0) first = best;
    smallest = fmin(smallest, best);
    if (!(best > 0.0)) return 0.0;
    for (int j = 0; j < C; ++j) {
      const double t = A(k, j); A(k, j) = A(pr, j); A(pr, j) = t;
    }
    const int tc = cols[k]; cols[k] = cols[pc]; cols[pc] = tc;
    const double inv = 1.0 / A(k, cols[k]);
    for (int i = k + 1; i < R; ++i) {
      const double l = A(i, cols[k]) * inv;
      for (int j = k; j < C; ++j) A(i, cols[j]) -= l * A(k, cols[j]);
    }
  }
  return first > 0.0 ? smallest / first : 0.0;
}

// Increasing |Im s|, then decreasing Re s, +ω before −ω (the host's order,
// constrained_linearization.cpp sort_eigenvalues).
HS_HD inline bool frequency_order_before(double ra, double ia, double rb, double ib) {
  if (fabs(ia) != fabs(ib)) return fabs(ia) < fabs(ib);
  if (ra != rb) return ra > rb;
  return ia > ib;
}

// Where the Newton matrix J is singular (an iterate on a singular
// configuration, e.g. the linkage's guess φ = 0 with every rod on the x
// axis), the step of least norm among the least-squares ones, which the host
// path takes at every iterate (a complete orthogonal decomposition), is
// approached by the regularized normal equations (JᵀJ + μI) d = Jᵀr with
// μ = 1e-12 · max diag(JᵀJ): d → J⁺r as μ → 0, and μ that small changes the
// step only in directions J scales by less than 1e-6 of its largest. False
// where even that system is singular or not finite.
template <int NB>
HS_HD bool regularized_step(const Mat<double, NB, NB>& J, const double* r, double* d) {
  Mat<double, NB, NB> A;
  double b[NB], largest = 0.0;
  for (int i = 0; i < NB; ++i) {
    b[i] = 0.0;
    for (int k = 0; k < NB; ++k) b[i] += J(k, i) * r[k];
    for (int j = 0; j < NB; ++j) {
      double s = 0.0;
      for (int k = 0; k < NB; ++k) s += J(k, i) * J(k, j);
      A(i, j) = s;
    }
    largest = fmax(largest, A(i, i));
  }
  for (int i = 0; i < NB; ++i) A(i, i) += 1e-12 * largest;
  return solve_linear<NB>(A, b, d);
}

// λ = (Φ_q Φ_qᵀ)⁻¹ Φ_q f from an evaluation: the least-squares solution of
// Φ_qᵀλ = f, the minimum-norm one where Φ_q has full rank (the host path's
// multipliers), approached by regularization where it has not. False where
// even that fails.
template <int NMAX, int MMAX>
HS_HD bool least_squares_multipliers(const FixedAssembly<NMAX, MMAX>& a, double* lambda) {
  Mat<double, MMAX, MMAX> G;
  double b[MMAX];
  for (int i = 0; i < MMAX; ++i) {
    b[i] = 0.0;
    for (int c = 0; c < NMAX; ++c) b[i] += a.phi_q(i, c) * a.f[c];
    for (int j = 0; j < MMAX; ++j) {
      double s = 0.0;
      for (int c = 0; c < NMAX; ++c) s += a.phi_q(i, c) * a.phi_q(j, c);
      G(i, j) = s;
    }
  }
  if (solve_linear<MMAX>(G, b, lambda)) return true;
  // Φ_q rank-deficient (a singular configuration): the regularized normal
  // equations, whose solution tends to the minimum-norm one (as regularized_step).
  double largest = 0.0;
  for (int i = 0; i < MMAX; ++i) largest = fmax(largest, G(i, i));
  for (int i = 0; i < MMAX; ++i) G(i, i) += 1e-12 * largest;
  return solve_linear<MMAX>(G, b, lambda);
}

// One point of a stability map of a small constrained system by MCS (the
// header's steps 1–4). The record keeps the 2 NI eigenvalues (at most
// kConstrainedReportedEigenvalues, as the host path reports) and `reported` coordinate's equilibrium value
// in crank_angle, as the host path's record.
template <class Model>
HS_HD StabilityRecord constrained_mcs_point(const typename Model::Params& p, const PerThreadConstrainedSettings& C,
                                            const StabilitySettings& S) {
  constexpr int NMAX = Model::per_thread_coordinates, NI = Model::degrees_of_freedom, MMAX = NMAX - NI;
  constexpr int NB = NMAX + MMAX;
  static_assert(2 * NI <= kConstrainedReportedEigenvalues, "the record holds every eigenvalue of the per-thread path");
  StabilityRecord out;
  blank_stability(out, 0);
  if (!fits_per_thread<Model>(p)) {
    out.status = static_cast<int>(Status::invalid_parameters);
    return out;
  }
  const int n = Model::coordinates(p);
  double q[NMAX], lambda[MMAX];
  for (int k = 0; k < NMAX; ++k) q[k] = 0.0;
  for (int k = 0; k < MMAX; ++k) lambda[k] = 0.0;
  Model::initial_guess(p, q);
  FixedAssembly<NMAX, MMAX> a;
  // The multipliers Newton starts from: least squares at the guess (as the
  // host path; at a singular guess their curvature term is what lets Newton
  // leave it).
  a.evaluate_begin(q, nullptr);
  Model::build(p, a);
  a.evaluate_end(n);
  if (!least_squares_multipliers(a, lambda))
    for (int k = 0; k < MMAX; ++k) lambda[k] = 0.0;

  // 1. Equilibrium.
  bool converged = false;
  for (int it = 0; it < C.max_iterations && !converged; ++it) {
    a.evaluate_begin(q, lambda);
    Model::build(p, a);
    a.evaluate_end(n);
    Mat<double, NB, NB> J = Mat<double, NB, NB>::zero();
    double r[NB], d[NB];
    for (int i = 0; i < NMAX; ++i) {
      double fr = a.f[i];
      for (int j = 0; j < NMAX; ++j) J(i, j) = a.df_dq(i, j) - a.H(i, j);
      for (int k = 0; k < MMAX; ++k) {
        J(i, NMAX + k) = -a.phi_q(k, i);
        J(NMAX + k, i) = a.phi_q(k, i);
        fr -= a.phi_q(k, i) * lambda[k];
      }
      r[i] = -fr;
    }
    for (int k = 0; k < MMAX; ++k) r[NMAX + k] = -a.phi[k];
    if (!solve_linear<NB>(J, r, d) && !regularized_step<NB>(J, r, d)) {
      out.status = static_cast<int>(Status::constraint_failure);
      return out;
    }
    double step = 0.0, size = 1.0;
    for (int i = 0; i < NMAX; ++i) {
      q[i] += d[i];
      step = fmax(step, fabs(d[i]));
      size = fmax(size, fabs(q[i]));
    }
    for (int k = 0; k < MMAX; ++k) lambda[k] += d[NMAX + k];
    if (!(step < INFINITY)) break;
    converged = step <= C.step_tolerance * size;
  }
  if (!converged) {
    out.status = static_cast<int>(Status::newton_failure);
    return out;
  }
  // λ = (Φ_q Φ_qᵀ)⁻¹ Φ_q f at the converged q, then the Hessian with it.
  a.evaluate_begin(q, nullptr);
  Model::build(p, a);
  a.evaluate_end(n);
  if (!least_squares_multipliers(a, lambda)) {
    out.status = static_cast<int>(Status::constraint_failure);
    return out;
  }
  a.evaluate_begin(q, lambda);
  Model::build(p, a);
  a.evaluate_end(n);
  out.crank_angle = q[Model::reported_coordinate(p)];

  // 2. Partition.
  int cols[NMAX];
  if (!(complete_pivoting_columns<MMAX, NMAX>(a.phi_q, cols) > C.rank_tolerance)) {
    out.status = static_cast<int>(Status::constraint_failure);
    return out;
  }
  // 3. R = [I; −Φ_d⁻¹Φ_i] and the reduced matrices.
  Mat<double, MMAX, MMAX> Phi_d;
  for (int i = 0; i < MMAX; ++i)
    for (int k = 0; k < MMAX; ++k) Phi_d(i, k) = a.phi_q(i, cols[k]);
  int perm[MMAX];
  if (!lu_factor<MMAX>(Phi_d, perm)) {
    out.status = static_cast<int>(Status::constraint_failure);
    return out;
  }
  Mat<double, NMAX, NI> R = Mat<double, NMAX, NI>::zero();
  for (int j = 0; j < NI; ++j) {
    double rhs[MMAX], g[MMAX];
    for (int i = 0; i < MMAX; ++i) rhs[i] = a.phi_q(i, cols[MMAX + j]);
    lu_solve<MMAX>(Phi_d, perm, rhs, g);
    R(cols[MMAX + j], j) = 1.0;
    for (int k = 0; k < MMAX; ++k) R(cols[k], j) = -g[k];
  }
  Mat<double, NI, NI> Mr, Cr, Kr;
  for (int i = 0; i < NI; ++i)
    for (int j = 0; j < NI; ++j) {
      double m = 0.0, c = 0.0, k = 0.0;
      for (int u = 0; u < NMAX; ++u)
        for (int v = 0; v < NMAX; ++v) {
          const double w = R(u, i) * R(v, j);
          m += w * a.M(u, v);
          c -= w * a.df_dqd(u, v);
          k += w * (a.H(u, v) - a.df_dq(u, v));
        }
      Mr(i, j) = m;
      Cr(i, j) = c;
      Kr(i, j) = k;
    }
  // 4. Eigenvalues of the first-order form.
  Mat<double, 2 * NI, 2 * NI> A = Mat<double, 2 * NI, 2 * NI>::zero();
  for (int j = 0; j < NI; ++j) {
    double kc[NI], cc[NI], x[NI];
    for (int i = 0; i < NI; ++i) {
      kc[i] = Kr(i, j);
      cc[i] = Cr(i, j);
    }
    A(j, NI + j) = 1.0;
    if (!solve_linear<NI>(Mr, kc, x)) {
      out.status = static_cast<int>(Status::invalid_parameters);  // M_r not invertible
      return out;
    }
    for (int i = 0; i < NI; ++i) A(NI + i, j) = -x[i];
    solve_linear<NI>(Mr, cc, x);
    for (int i = 0; i < NI; ++i) A(NI + i, NI + j) = -x[i];
  }
  const EigenResult<2 * NI> ev = eigenvalues<2 * NI>(A);
  if (ev.status != eigen_ok) {
    out.status = static_cast<int>(Status::diverged);
    return out;
  }
  double re[2 * NI], im[2 * NI];
  for (int k = 0; k < 2 * NI; ++k) {
    re[k] = ev.re[k];
    im[k] = ev.im[k];
  }
  for (int i = 1; i < 2 * NI; ++i)
    for (int j = i; j > 0 && frequency_order_before(re[j], im[j], re[j - 1], im[j - 1]); --j) {
      const double tr = re[j], ti = im[j];
      re[j] = re[j - 1]; im[j] = im[j - 1];
      re[j - 1] = tr; im[j - 1] = ti;
    }
  out.status = static_cast<int>(Status::ok);
  out.eigenvalue_count = 2 * NI;
  for (int k = 0; k < 2 * NI; ++k) {
    out.re[k] = re[k];
    out.im[k] = im[k];
  }
  stability_figures(re, im, 2 * NI, S, out);
  return out;
}

}  // namespace hs
