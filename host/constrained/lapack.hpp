// The dense eigensolvers of the seed 003 linearizations, through LAPACK
// (Debian liblapack-dev; docs/models/nloop-and-flexible.md §6):
//   symmetric_definite   K v = ω² M v, M symmetric positive definite (dsygvd):
//                        MCS without damping, the flexible pendulum
//   generalized          A v = s E v, any real pencil, QZ (dggev), with the
//                        right eigenvectors on request: RCS (E singular) and
//                        UCS and damped MCS (first-order pencils)
// Both throw std::runtime_error naming the routine and LAPACK's info on failure.
#pragma once
#include "host/eigen_dense.hpp"

#include <complex>
#include <vector>

namespace hs {
namespace lapack {

// Eigenvalues w (ascending) of K v = w M v; K is symmetrized, M must be SPD.
// Returns false (and info) when M is not positive definite.
bool symmetric_definite(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, Eigen::VectorXd& w, int* info = nullptr);

// QZ of the pencil (A, E): eigenvalue k is (alpha_r + i alpha_i)[k] / beta[k]
// (beta = 0: infinite; alpha = beta = 0: the pencil is singular there).
// With vectors, column k of V is the right eigenvector (LAPACK's packing:
// a complex pair k, k+1 is V(:,k) ± i V(:,k+1)).
struct GeneralizedEigen {
  Eigen::VectorXd alpha_r, alpha_i, beta;
  Eigen::MatrixXd V;
  std::complex<double> eigenvalue(int k) const { return {alpha_r[k] / beta[k], alpha_i[k] / beta[k]}; }
  // Right eigenvector k as complex numbers.
  Eigen::VectorXcd vector(int k) const;
};
GeneralizedEigen generalized(const Eigen::MatrixXd& A, const Eigen::MatrixXd& E, bool vectors);

}  // namespace lapack
}  // namespace hs
