// The tests' compiled references (reference_numerics.hpp).
// Eigen first through host/eigen_dense.hpp (its AVX-512 false warnings
// silenced), before reference_numerics.hpp includes <Eigen/Core>.
#include "host/eigen_dense.hpp"
#include "reference_numerics.hpp"

#include <limits>
#include <unsupported/Eigen/MatrixFunctions>

namespace reference_numerics {

MatrixLD exponential(const MatrixLD& A) { return A.exp(); }
Eigen::MatrixXd exponential(const Eigen::MatrixXd& A) { return A.exp(); }

namespace {
template <class Real>
Spectrum<Real> spectrum_of(const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& A, bool with_vectors) {
  Eigen::EigenSolver<Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>> es(A, with_vectors);
  Spectrum<Real> s;
  s.converged = es.info() == Eigen::Success;
  s.values = es.eigenvalues();
  if (!with_vectors) return s;
  s.vectors = es.eigenvectors();
  const Eigen::FullPivLU<ComplexMatrix<Real>> lu(s.vectors);
  const bool invertible = lu.isInvertible();
  ComplexMatrix<Real> W;
  if (invertible) W = lu.inverse();
  for (int i = 0; i < s.vectors.cols(); ++i)
    s.kappa.push_back(invertible ? W.row(i).norm() * s.vectors.col(i).norm() : std::numeric_limits<Real>::infinity());
  return s;
}
}  // namespace

Spectrum<double> spectrum(const Eigen::MatrixXd& A, bool with_vectors) { return spectrum_of<double>(A, with_vectors); }
Spectrum<long double> spectrum(const MatrixLD& A, bool with_vectors) { return spectrum_of<long double>(A, with_vectors); }

ComplexVector<long double> solve(const ComplexMatrix<long double>& A, const ComplexVector<long double>& b) {
  return A.fullPivLu().solve(b);
}

double largest_singular_value(const Eigen::MatrixXd& A) {
  return Eigen::JacobiSVD<Eigen::MatrixXd, Eigen::NoQRPreconditioner>(A).singularValues()(0);
}

}  // namespace reference_numerics
