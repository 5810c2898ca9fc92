// Seed 003's three linearization families of a constrained multibody system
// about a static equilibrium (docs/models/nloop-and-flexible.md §2, §5, §6):
//   mcs  minimal coordinates: velocity projection q̇ = R ż onto the null space
//        of Φ_q by coordinate partitioning (seed 003 eqs (2)–(6), (16));
//        2(n − m) eigenvalues, exact, none spurious; fails (status
//        constraint_failure) where Φ_q loses rank, as the seed says
//   rcs  redundant coordinates and multipliers: the descriptor pencil of
//        eqs (8)–(10), (17), solved by QZ; 2n + m eigenvalues of which 3m are
//        infinite (spurious) and removed; minimum-norm multipliers at a
//        singular configuration
//   ucs  penalty (eqs (11)–(15), (18)) with Ξ = αI, Θ = 2ξωI, Ω = ω²I about the
//        penalty system's own equilibrium; 2n eigenvalues, 2m spurious ones
//        removed by the velocity constraint test |Φ_q v| / |v| > 1e-3
// Derivatives are exact (dual numbers in the elements); eigenproblems are
// dense LAPACK (host/constrained/lapack.hpp).
#pragma once
#include "host/eigen_dense.hpp"

#include <complex>
#include <string>
#include <vector>

#include "host/constrained/system.hpp"
#include "kernels/actuators/hydraulic_cylinder.hpp"  // Status

namespace hs {

enum class ConstrainedMethod { mcs, rcs, ucs };
const char* method_name(ConstrainedMethod m);
// "mcs", "rcs", "ucs"; false otherwise.
bool parse_constrained_method(const std::string& name, ConstrainedMethod& out);

struct PenaltySettings {
  double alpha = 1e6;  // Ξ = αI (seed 003: 1e6 four-bar, 1e7 pendulum)
  double xi = 1.0;     // Θ = 2ξωI
  double omega = 10.0; // Ω = ω²I [rad/s]
};

struct ConstrainedSettings {
  int max_iterations = 50;          // Newton, equilibrium
  double step_tolerance = 1e-13;    // converged when |δq|∞ ≤ this · max(1, |q|∞)
  double rank_tolerance = 1e-9;     // singular values of Φ_q below this · σ_max count as zero
  double ucs_constraint_threshold = 1e-3;  // |Φ_q v| / |v| above: a spurious UCS mode
  PenaltySettings penalty;
};

struct ConstrainedEquilibrium {
  Status status = Status::ok;
  std::string message;
  Eigen::VectorXd q, lambda;  // λ: the minimum-norm multipliers at q
  int rank = 0;               // of Φ_q at q
  int iterations = 0;
  double force_residual = 0.0;       // |f − Φ_qᵀλ|∞ [N]
  double constraint_residual = 0.0;  // |Φ|∞
};

// Static equilibrium of M q̈ = f − Φ_qᵀλ, Φ = 0 from q0: Newton on (q, λ) with
// minimum-norm steps (a rank-deficient Φ_q does not stop it), then λ re-taken as
// the minimum-norm solution of Φ_qᵀλ = f (seed 003 §5.1).
ConstrainedEquilibrium lagrange_equilibrium(const ConstrainedSystem& sys, const Eigen::VectorXd& q0,
                                            const ConstrainedSettings& S = {});

struct ConstrainedLinearization {
  Status status = Status::ok;
  std::string message;
  ConstrainedMethod method = ConstrainedMethod::mcs;
  // The true eigenvalues by increasing |Im s| (then Re), +ω before −ω.
  std::vector<std::complex<double>> eigenvalues;
  int total = 0;      // eigenvalues of the method's eigenproblem
  int spurious = 0;   // removed (RCS: infinite; UCS: failing the constraint test)
  // How clearly the spurious ones were told apart (> 1: a gap). RCS: the
  // smallest |β|/|(α, β)| kept over the largest removed; UCS: the smallest
  // constraint ratio removed over the largest kept; MCS: 0 (nothing removed).
  double separation = 0.0;
  double seconds = 0.0;  // linearization terms + eigenproblem (+ UCS discrimination), equilibrium excluded (seed 003 §5)
  Eigen::VectorXd q;     // the equilibrium linearized about (UCS: the penalty system's)
};

// MCS's reduced matrices at the equilibrium (seed 003 eq (16)): M_r, C_r, K_r
// of order n − m. False (and why) at a singular configuration.
bool mcs_reduced_matrices(const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq, const ConstrainedSettings& S,
                          Eigen::MatrixXd& Mr, Eigen::MatrixXd& Cr, Eigen::MatrixXd& Kr, std::string& why);

ConstrainedLinearization linearize_constrained(const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq,
                                               ConstrainedMethod method, const ConstrainedSettings& S = {});

}  // namespace hs
