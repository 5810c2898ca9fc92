// Eigen's dense algorithms as the tests' independent references (matrix
// exponential, eigenvalues with their condition numbers, linear solves and
// singular values in double and long double), compiled once in
// reference_numerics.cpp and linked by the suites that compare with them.
// Each instantiation of Eigen's EigenSolver or MatrixFunctions costs 8-15 s of
// compile time; instantiated in every suite that used them they were most of
// test_matrix_exponential's 107 s (docs/build.md §1 item 8).
#pragma once
#include <Eigen/Core>
#include <complex>
#include <vector>

namespace reference_numerics {

using MatrixLD = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
template <class Real>
using ComplexVector = Eigen::Matrix<std::complex<Real>, Eigen::Dynamic, 1>;
template <class Real>
using ComplexMatrix = Eigen::Matrix<std::complex<Real>, Eigen::Dynamic, Eigen::Dynamic>;

// e^A by Eigen's scaling and squaring with Padé approximants
// (unsupported/Eigen/MatrixFunctions), in the precision of A.
MatrixLD exponential(const MatrixLD& A);
Eigen::MatrixXd exponential(const Eigen::MatrixXd& A);

// The eigenvalues of A (Eigen's EigenSolver: Hessenberg reduction and the
// real Schur form, no balancing). With vectors: the right eigenvectors as
// V's columns and each eigenvalue's condition number
// kappa_i = ||row_i(V^-1)|| ||col_i(V)|| (the rows of V^-1 are the conjugated
// left eigenvectors with y_i^H x_i = 1; G&VL §7.2.2), infinite where V is
// singular (a defective A).
template <class Real>
struct Spectrum {
  bool converged = false;
  ComplexVector<Real> values;
  ComplexMatrix<Real> vectors;  // empty without vectors
  std::vector<Real> kappa;      // empty without vectors
};
Spectrum<double> spectrum(const Eigen::MatrixXd& A, bool with_vectors);
Spectrum<long double> spectrum(const MatrixLD& A, bool with_vectors);

// x with A x = b by LU with full pivoting.
ComplexVector<long double> solve(const ComplexMatrix<long double>& A, const ComplexVector<long double>& b);

// The largest singular value of A (Jacobi SVD, values only).
double largest_singular_value(const Eigen::MatrixXd& A);

}  // namespace reference_numerics
