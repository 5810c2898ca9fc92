#include "host/constrained/linearization.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "host/constrained/lapack.hpp"

namespace hs {

const char* method_name(ConstrainedMethod m) {
  switch (m) {
    case ConstrainedMethod::mcs: return "mcs";
    case ConstrainedMethod::rcs: return "rcs";
    case ConstrainedMethod::ucs: return "ucs";
  }
  return "?";
}

bool parse_constrained_method(const std::string& name, ConstrainedMethod& out) {
  for (ConstrainedMethod m : {ConstrainedMethod::mcs, ConstrainedMethod::rcs, ConstrainedMethod::ucs})
    if (name == method_name(m)) {
      out = m;
      return true;
    }
  return false;
}

Eigen::MatrixXd ConstrainedSystem::mass_matrix(const Eigen::VectorXd& q) const {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n_, n_);
  for (const auto& e : blocks_) e.block->add_mass(q, M);
  return M;
}

void ConstrainedSystem::forces(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& f,
                               Eigen::MatrixXd& df_dq, Eigen::MatrixXd& df_dqd) const {
  f = Eigen::VectorXd::Zero(n_);
  df_dq = Eigen::MatrixXd::Zero(n_, n_);
  df_dqd = Eigen::MatrixXd::Zero(n_, n_);
  for (const auto& e : blocks_) e.block->add_forces(q, qd, f, df_dq, df_dqd);
}

void ConstrainedSystem::constraints(const Eigen::VectorXd& q, Eigen::VectorXd& phi, Eigen::MatrixXd& phi_q) const {
  phi = Eigen::VectorXd::Zero(m_);
  phi_q = Eigen::MatrixXd::Zero(m_, n_);
  for (const auto& e : blocks_) e.block->add_constraints(q, phi, phi_q);
}

Eigen::MatrixXd ConstrainedSystem::constraint_hessian(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda) const {
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(n_, n_);
  for (const auto& e : blocks_) e.block->add_hessian(q, lambda, H);
  return H;
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Singular values (descending) above tolerance · σ_max: the numerical rank.
int rank_of(const Eigen::VectorXd& s, double tolerance) {
  int r = 0;
  for (long k = 0; k < s.size(); ++k)
    if (s[k] > tolerance * s[0]) ++r;
  return r;
}
int numerical_rank(const Eigen::MatrixXd& A, double tolerance) {
  if (A.size() == 0) return 0;
  return rank_of(Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues(), tolerance);
}

// The minimum-norm solution of A x = b (complete orthogonal decomposition).
Eigen::VectorXd min_norm_solve(const Eigen::MatrixXd& A, const Eigen::VectorXd& b) {
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(A);
  return cod.solve(b);
}

// The equilibrium forces and tangents at q (q̇ = 0).
struct Terms {
  Eigen::VectorXd f, phi;
  Eigen::MatrixXd df_dq, df_dqd, phi_q;
};
Terms terms_at(const ConstrainedSystem& sys, const Eigen::VectorXd& q) {
  Terms t;
  sys.forces(q, Eigen::VectorXd::Zero(sys.n()), t.f, t.df_dq, t.df_dqd);
  sys.constraints(q, t.phi, t.phi_q);
  return t;
}

// By increasing |Im s|, then decreasing Re s; a conjugate pair +ω first.
void sort_eigenvalues(std::vector<std::complex<double>>& s) {
  std::sort(s.begin(), s.end(), [](const std::complex<double>& a, const std::complex<double>& b) {
    const double fa = std::fabs(a.imag()), fb = std::fabs(b.imag());
    if (fa != fb) return fa < fb;
    if (a.real() != b.real()) return a.real() > b.real();
    return a.imag() > b.imag();
  });
  // QZ's conjugates can differ in the last bits of Re s: order each pair by Im.
  for (size_t k = 0; k + 1 < s.size(); ++k)
    if (s[k].imag() < 0.0 && std::abs(s[k] - std::conj(s[k + 1])) <= 1e-12 * std::abs(s[k])) {
      std::swap(s[k], s[k + 1]);
      ++k;
    }
}

// Second-order M s² + C s + K as the first-order pencil A v = s E v,
// v = (x, s x): A = [[0, I], [−K, −C]], E = [[I, 0], [0, M]].
void first_order_pencil(const Eigen::MatrixXd& M, const Eigen::MatrixXd& C, const Eigen::MatrixXd& K, Eigen::MatrixXd& A,
                        Eigen::MatrixXd& E) {
  const long n = M.rows();
  A = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  E = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  A.topRightCorner(n, n).setIdentity();
  A.bottomLeftCorner(n, n) = -K;
  A.bottomRightCorner(n, n) = -C;
  E.topLeftCorner(n, n).setIdentity();
  E.bottomRightCorner(n, n) = M;
}

}  // namespace

// MCS: R from coordinate partitioning (full-pivoting LU of Φ_q picks the
// dependent coordinates), M_r = RᵀMR, C_r = RᵀC_qR, K_r = RᵀK_qR (seed 003 eq (16)
// with K_r = RᵀK_qR at an equilibrium, docs/models/nloop-and-flexible.md §6 item 3).
bool mcs_reduced_matrices(const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq, const ConstrainedSettings& S,
                          Eigen::MatrixXd& Mr, Eigen::MatrixXd& Cr, Eigen::MatrixXd& Kr, std::string& why) {
  const int n = sys.n(), m = sys.m();
  const Terms t = terms_at(sys, eq.q);
  const int rank = numerical_rank(t.phi_q, S.rank_tolerance);
  if (rank < m) {
    why = "mcs: the constraint Jacobian has rank " + std::to_string(rank) + " < m = " + std::to_string(m) +
          " at the equilibrium (a singular configuration): no fixed set of independent coordinates exists "
          "there; rcs and ucs handle it";
    return false;
  }
  Eigen::FullPivLU<Eigen::MatrixXd> lu(t.phi_q);
  const Eigen::VectorXi cols = lu.permutationQ().indices();  // pivot order: first m dependent
  const int ni = n - m;
  Eigen::MatrixXd Phi_d(m, m), Phi_i(m, ni);
  for (int k = 0; k < m; ++k) Phi_d.col(k) = t.phi_q.col(cols[k]);
  for (int j = 0; j < ni; ++j) Phi_i.col(j) = t.phi_q.col(cols[m + j]);
  const Eigen::MatrixXd G = Phi_d.partialPivLu().solve(Phi_i);
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(n, ni);
  for (int j = 0; j < ni; ++j) {
    R(cols[m + j], j) = 1.0;
    for (int k = 0; k < m; ++k) R(cols[k], j) = -G(k, j);
  }
  const Eigen::MatrixXd Kq = sys.constraint_hessian(eq.q, eq.lambda) - t.df_dq;
  Mr = R.transpose() * sys.mass_matrix(eq.q) * R;
  Kr = R.transpose() * Kq * R;
  Cr = R.transpose() * (-t.df_dqd) * R;
  return true;
}

namespace {

void mcs(const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq, const ConstrainedSettings& S,
         ConstrainedLinearization& out) {
  const auto t0 = Clock::now();
  Eigen::MatrixXd Mr, Cr, Kr;
  if (!mcs_reduced_matrices(sys, eq, S, Mr, Cr, Kr, out.message)) {
    out.status = Status::constraint_failure;
    return;
  }
  const int ni = static_cast<int>(Mr.rows());
  out.total = 2 * ni;
  if (Cr.cwiseAbs().maxCoeff() == 0.0) {
    // Undamped: K_r v = ω² M_r v, symmetric-definite; s = ±i√(ω²). A
    // symmetric-definite solver's error is ~eps·ω²_max on every ω², which at
    // n_p = 100 (ω_max ~ 2e5 rad/s) is 1e-6 relative on ω_1. When K_r is
    // positive definite (a stable equilibrium) the inverted problem
    // M_r v = μ K_r v, μ = 1/ω², is solved instead: its error ~eps·μ_max
    // keeps the lowest modes, the ones a study reads, to round-off.
    Eigen::VectorXd w, mu;
    if (lapack::symmetric_definite(Mr, Kr, mu) && mu.minCoeff() > 0.0) {
      w.resize(ni);
      for (int k = 0; k < ni; ++k) w[k] = 1.0 / mu[ni - 1 - k];  // ascending ω²
    } else if (!lapack::symmetric_definite(Kr, Mr, w)) {
      out.status = Status::invalid_parameters;
      out.message = "mcs: the reduced mass matrix is not positive definite";
      return;
    }
    for (int k = 0; k < ni; ++k) {
      if (w[k] >= 0.0) {
        out.eigenvalues.push_back({0.0, std::sqrt(w[k])});
        out.eigenvalues.push_back({0.0, -std::sqrt(w[k])});
      } else {
        out.eigenvalues.push_back({std::sqrt(-w[k]), 0.0});
        out.eigenvalues.push_back({-std::sqrt(-w[k]), 0.0});
      }
    }
  } else {
    Eigen::MatrixXd A, E;
    first_order_pencil(Mr, Cr, Kr, A, E);
    const lapack::GeneralizedEigen ge = lapack::generalized(A, E, false);
    for (int k = 0; k < 2 * ni; ++k) out.eigenvalues.push_back(ge.eigenvalue(k));
  }
  out.seconds = seconds_since(t0);
}

// RCS: the descriptor pencil E ẏ = A y, y = (δq, δq̇, δλ) (seed 003 eqs (8)–(9), (17)),
// QZ; the 2(n − rank Φ_q) most finite eigenvalues are the true ones, the
// 3m (with a full-rank Φ_q) with β ≈ 0 the spurious infinite ones.
void rcs(const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq, const ConstrainedSettings& S,
         ConstrainedLinearization& out) {
  const int n = sys.n();
  const auto t0 = Clock::now();
  const Terms t = terms_at(sys, eq.q);
  // At a singular configuration (rank Φ_q = r < m) the pencil with all m rows
  // is singular (a multiplier direction in the null space of Φ_qᵀ is free):
  // the rows are compressed to the r independent combinations U_rᵀΦ_q (SVD),
  // which keeps the minimum-norm multipliers (they lie in range(Φ_q)).
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(t.phi_q, Eigen::ComputeThinU);
  const int rank = rank_of(svd.singularValues(), S.rank_tolerance);
  const Eigen::MatrixXd phi_q =
      rank < sys.m() ? Eigen::MatrixXd(svd.matrixU().leftCols(rank).transpose() * t.phi_q) : t.phi_q;
  const int m = static_cast<int>(phi_q.rows()), N = 2 * n + m;
  const Eigen::MatrixXd Kq = sys.constraint_hessian(eq.q, eq.lambda) - t.df_dq;
  const Eigen::MatrixXd M = sys.mass_matrix(eq.q);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(N, N), E = Eigen::MatrixXd::Zero(N, N);
  E.topLeftCorner(n, n).setIdentity();
  E.block(n, n, n, n) = M;
  A.block(0, n, n, n).setIdentity();
  A.block(n, 0, n, n) = -Kq;
  A.block(n, n, n, n) = t.df_dqd;  // −C_q = ∂f/∂q̇
  A.block(n, 2 * n, n, m) = -phi_q.transpose();
  A.block(2 * n, 0, m, n) = -phi_q;
  const lapack::GeneralizedEigen ge = lapack::generalized(A, E, false);
  // Finiteness |β| / |(α, β)| of each pair; keep the 2(n − rank) largest.
  std::vector<double> finite(N);
  for (int k = 0; k < N; ++k) {
    const double a = std::hypot(ge.alpha_r[k], ge.alpha_i[k]), b = std::fabs(ge.beta[k]);
    const double norm = std::hypot(a, b);
    finite[k] = norm > 0.0 ? b / norm : 0.0;  // α = β = 0 (a singular pencil's direction) counts as infinite
  }
  std::vector<int> order(N);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return finite[a] > finite[b]; });
  const int keep = 2 * (n - rank);
  for (int k = 0; k < keep; ++k) out.eigenvalues.push_back(ge.eigenvalue(order[k]));
  out.total = N;
  out.spurious = N - keep;
  out.separation = keep > 0 && keep < N ? finite[order[keep - 1]] / std::max(finite[order[keep]], 1e-300) : 0.0;
  out.seconds = seconds_since(t0);
}

// The penalty system's static equilibrium f(q) − Φ_qᵀ α ω² Φ(q) = 0 from the
// Lagrange one (seed 003 §3.3: Φ ≠ 0 balances f there).
bool penalty_equilibrium(const ConstrainedSystem& sys, Eigen::VectorXd& q, const ConstrainedSettings& S,
                         std::string& why) {
  const double k = S.penalty.alpha * S.penalty.omega * S.penalty.omega;
  for (int it = 0; it < S.max_iterations; ++it) {
    const Terms t = terms_at(sys, q);
    const Eigen::VectorXd lambda_p = k * t.phi;
    const Eigen::VectorXd r = t.f - t.phi_q.transpose() * lambda_p;
    const Eigen::MatrixXd Kp =
        sys.constraint_hessian(q, lambda_p) + k * t.phi_q.transpose() * t.phi_q - t.df_dq;
    const Eigen::VectorXd dq = Kp.fullPivLu().solve(r);
    if (!dq.allFinite()) break;
    q += dq;
    if (dq.cwiseAbs().maxCoeff() <= S.step_tolerance * std::max(1.0, q.cwiseAbs().maxCoeff())) return true;
  }
  why = "ucs: Newton on the penalty system's equilibrium did not converge in " + std::to_string(S.max_iterations) +
        " iterations";
  return false;
}

// UCS: M_p = M + Φ_qᵀΞΦ_q, C_p = Φ_qᵀΞΘΦ_q − ∂f/∂q̇, K_p = ∂(Φ_qᵀλ_p)/∂q + Φ_qᵀΞΩΦ_q − ∂f/∂q,
// λ_p = ΞΩΦ (seed 003 eq (18)); the first-order pencil by QZ with
// eigenvectors; a mode whose velocity part violates Φ_q v = 0 is spurious.
void ucs(const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq, const ConstrainedSettings& S,
         ConstrainedLinearization& out) {
  const int n = sys.n();
  Eigen::VectorXd q = eq.q;
  std::string why;
  if (!penalty_equilibrium(sys, q, S, why)) {
    out.status = Status::newton_failure;
    out.message = why;
    return;
  }
  out.q = q;
  const auto t0 = Clock::now();
  const double alpha = S.penalty.alpha, theta = 2.0 * S.penalty.xi * S.penalty.omega,
               omega2 = S.penalty.omega * S.penalty.omega;
  const Terms t = terms_at(sys, q);
  const Eigen::MatrixXd PtP = t.phi_q.transpose() * t.phi_q;
  const Eigen::MatrixXd Mp = sys.mass_matrix(q) + alpha * PtP;
  const Eigen::MatrixXd Cp = alpha * theta * PtP - t.df_dqd;
  const Eigen::MatrixXd Kp = sys.constraint_hessian(q, alpha * omega2 * t.phi) + alpha * omega2 * PtP - t.df_dq;
  Eigen::MatrixXd A, E;
  first_order_pencil(Mp, Cp, Kp, A, E);
  const lapack::GeneralizedEigen ge = lapack::generalized(A, E, true);
  double largest_kept = 0.0, smallest_removed = INFINITY;
  for (int k = 0; k < 2 * n; ++k) {
    const Eigen::VectorXcd v = ge.vector(k);
    Eigen::VectorXcd part = v.tail(n);  // velocity part
    if (part.norm() < 1e-12 * v.norm()) part = v.head(n);  // s ≈ 0: the position part
    const double ratio = (t.phi_q.cast<std::complex<double>>() * part).norm() / std::max(part.norm(), 1e-300);
    if (ratio < S.ucs_constraint_threshold) {
      out.eigenvalues.push_back(ge.eigenvalue(k));
      largest_kept = std::max(largest_kept, ratio);
    } else {
      ++out.spurious;
      smallest_removed = std::min(smallest_removed, ratio);
    }
  }
  out.total = 2 * n;
  out.separation = out.spurious > 0 ? smallest_removed / std::max(largest_kept, 1e-300) : 0.0;
  out.seconds = seconds_since(t0);
}

}  // namespace

ConstrainedEquilibrium lagrange_equilibrium(const ConstrainedSystem& sys, const Eigen::VectorXd& q0,
                                            const ConstrainedSettings& S) {
  const int n = sys.n(), m = sys.m();
  ConstrainedEquilibrium eq;
  eq.q = q0;
  Terms t = terms_at(sys, eq.q);
  eq.lambda = min_norm_solve(t.phi_q.transpose(), t.f);
  bool converged = false;
  for (eq.iterations = 1; eq.iterations <= S.max_iterations; ++eq.iterations) {
    // [−K_q  −Φ_qᵀ; Φ_q  0] (δq, δλ) = −(f − Φ_qᵀλ, Φ)
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n + m, n + m);
    J.topLeftCorner(n, n) = t.df_dq - sys.constraint_hessian(eq.q, eq.lambda);
    J.topRightCorner(n, m) = -t.phi_q.transpose();
    J.bottomLeftCorner(m, n) = t.phi_q;
    Eigen::VectorXd r(n + m);
    r.head(n) = t.f - t.phi_q.transpose() * eq.lambda;
    r.tail(m) = t.phi;
    const Eigen::VectorXd d = min_norm_solve(J, -r);
    if (!d.allFinite()) break;
    eq.q += d.head(n);
    eq.lambda += d.tail(m);
    t = terms_at(sys, eq.q);
    if (d.head(n).cwiseAbs().maxCoeff() <= S.step_tolerance * std::max(1.0, eq.q.cwiseAbs().maxCoeff())) {
      converged = true;
      break;
    }
  }
  eq.lambda = min_norm_solve(t.phi_q.transpose(), t.f);
  eq.rank = numerical_rank(t.phi_q, S.rank_tolerance);
  eq.force_residual = (t.f - t.phi_q.transpose() * eq.lambda).cwiseAbs().maxCoeff();
  eq.constraint_residual = m > 0 ? t.phi.cwiseAbs().maxCoeff() : 0.0;
  if (!converged) {
    eq.status = Status::newton_failure;
    eq.message = "equilibrium: Newton did not converge in " + std::to_string(S.max_iterations) + " iterations";
  }
  return eq;
}

ConstrainedLinearization linearize_constrained(const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq,
                                               ConstrainedMethod method, const ConstrainedSettings& S) {
  ConstrainedLinearization out;
  out.method = method;
  out.q = eq.q;
  if (eq.status != Status::ok) {
    out.status = eq.status;
    out.message = eq.message;
    return out;
  }
  switch (method) {
    case ConstrainedMethod::mcs: mcs(sys, eq, S, out); break;
    case ConstrainedMethod::rcs: rcs(sys, eq, S, out); break;
    case ConstrainedMethod::ucs: ucs(sys, eq, S, out); break;
  }
  sort_eigenvalues(out.eigenvalues);
  return out;
}

}  // namespace hs
