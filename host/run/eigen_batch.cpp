// CPU batch of the per-thread eigenvalue kernel: the N = 6 instantiation
// (reduced Jacobians of the four-bar: angle, rate, three pressures, spool).
#include "host/run/eigen_batch.hpp"

namespace hs {
template std::vector<EigenResult<6>> eigenvalues_batch_cpu<6>(const std::vector<Mat<double, 6, 6>>&, bool, int);
}  // namespace hs
