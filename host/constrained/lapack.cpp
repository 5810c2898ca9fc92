#include "host/constrained/lapack.hpp"

#include <stdexcept>
#include <string>

extern "C" {
void dsygvd_(const int* itype, const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* b,
             const int* ldb, double* w, double* work, const int* lwork, int* iwork, const int* liwork, int* info);
void dggev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* b, const int* ldb,
            double* alphar, double* alphai, double* beta, double* vl, const int* ldvl, double* vr, const int* ldvr,
            double* work, const int* lwork, int* info);
}

namespace hs {
namespace lapack {

bool symmetric_definite(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, Eigen::VectorXd& w, int* info_out) {
  const int n = static_cast<int>(K.rows());
  Eigen::MatrixXd a = 0.5 * (K + K.transpose()), b = 0.5 * (M + M.transpose());
  w.resize(n);
  if (n == 0) return true;
  const int itype = 1;
  int info = 0, lwork = -1, liwork = -1, iwork_query = 0;
  double work_query = 0.0;
  dsygvd_(&itype, "N", "L", &n, a.data(), &n, b.data(), &n, w.data(), &work_query, &lwork, &iwork_query, &liwork, &info);
  lwork = static_cast<int>(work_query);
  liwork = iwork_query;
  std::vector<double> work(static_cast<size_t>(std::max(lwork, 1)));
  std::vector<int> iwork(static_cast<size_t>(std::max(liwork, 1)));
  dsygvd_(&itype, "N", "L", &n, a.data(), &n, b.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info_out) *info_out = info;
  if (info > n) return false;  // the leading minor of order info − n of M is not positive definite
  if (info != 0) throw std::runtime_error("LAPACK dsygvd failed (info " + std::to_string(info) + ")");
  return true;
}

Eigen::VectorXcd GeneralizedEigen::vector(int k) const {
  const long n = V.rows();
  Eigen::VectorXcd v(n);
  if (alpha_i[k] == 0.0) {
    for (long r = 0; r < n; ++r) v[r] = {V(r, k), 0.0};
  } else if (alpha_i[k] > 0.0) {
    for (long r = 0; r < n; ++r) v[r] = {V(r, k), V(r, k + 1)};
  } else {
    for (long r = 0; r < n; ++r) v[r] = {V(r, k - 1), -V(r, k)};
  }
  return v;
}

GeneralizedEigen generalized(const Eigen::MatrixXd& A_in, const Eigen::MatrixXd& E_in, bool vectors) {
  const int n = static_cast<int>(A_in.rows());
  Eigen::MatrixXd a = A_in, b = E_in;
  GeneralizedEigen out;
  out.alpha_r.resize(n);
  out.alpha_i.resize(n);
  out.beta.resize(n);
  if (vectors) out.V.resize(n, n);
  if (n == 0) return out;
  const char* jobvr = vectors ? "V" : "N";
  int info = 0, lwork = -1, one = 1;
  double work_query = 0.0, dummy = 0.0;
  double* vr = vectors ? out.V.data() : &dummy;
  const int ldvr = vectors ? n : 1;
  dggev_("N", jobvr, &n, a.data(), &n, b.data(), &n, out.alpha_r.data(), out.alpha_i.data(), out.beta.data(), &dummy,
         &one, vr, &ldvr, &work_query, &lwork, &info);
  lwork = static_cast<int>(work_query);
  std::vector<double> work(static_cast<size_t>(std::max(lwork, 1)));
  dggev_("N", jobvr, &n, a.data(), &n, b.data(), &n, out.alpha_r.data(), out.alpha_i.data(), out.beta.data(), &dummy,
         &one, vr, &ldvr, work.data(), &lwork, &info);
  if (info != 0) throw std::runtime_error("LAPACK dggev (QZ) failed (info " + std::to_string(info) + ")");
  return out;
}

}  // namespace lapack
}  // namespace hs
