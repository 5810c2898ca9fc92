// Eigenvalues of many small matrices at once.
//
// The per-thread kernel (kernels/eigen/small_eigen.hpp: balancing,
// Hessenberg reduction, Francis double-shift QR) over a batch: on all CPU
// cores (OpenMP) or one GPU thread per matrix (CUDA) — the same function in
// both, so the two agree up to FMA contraction. For comparison and for the
// symmetric problems it serves best, cuSOLVER: Xgeev called once per matrix
// (the library baseline; it has no batched nonsymmetric routine) and
// syevjBatched (batched Jacobi, symmetric only).
//
// Matrices are hs::Mat (row-major). Every routine returns one EigenResult
// per input matrix, in input order; a matrix that fails marks only its own
// status.
#pragma once
#include <omp.h>

#include <string>
#include <vector>

#include "kernels/core/small_matrix.hpp"
#include "kernels/eigen/small_eigen.hpp"

namespace hs {

// CPU: OpenMP parallel for over the batch (threads = 0: OpenMP default).
// Instantiated in host/run/eigen_batch.cpp for N = 6; other sizes compile from
// the definition below.
template <int N>
std::vector<EigenResult<N>> eigenvalues_batch_cpu(const std::vector<Mat<double, N, N>>& matrices, bool balance = true,
                                                  int threads = 0) {
  std::vector<EigenResult<N>> out(matrices.size());
  const long n = static_cast<long>(matrices.size());
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  // Equal work per matrix (a few QR steps each): static schedule.
#pragma omp parallel for schedule(static) num_threads(nt)
  for (long i = 0; i < n; ++i) out[i] = eigenvalues<N>(matrices[i], balance);
  return out;
}
extern template std::vector<EigenResult<6>> eigenvalues_batch_cpu<6>(const std::vector<Mat<double, 6, 6>>&, bool, int);

#ifdef HYDROSWEEP_HAVE_CUDA
// CUDA, one thread per matrix, the same kernel function as the CPU path.
// Needs a device (backend_available(Backend::cuda)); CUDA errors throw
// std::runtime_error naming the call. Instantiated for N = 6.
template <int N>
std::vector<EigenResult<N>> eigenvalues_batch_cuda(const std::vector<Mat<double, N, N>>& matrices, bool balance = true);

// cuSOLVER baseline: cusolverDnXgeev (eigenvalues only) once per matrix on
// one stream, workspace allocated once. status = Xgeev's info (0: ok);
// iterations = 0. Eigenvalue order: LAPACK's (pairs +im first).
// Instantiated for N = 6.
template <int N>
std::vector<EigenResult<N>> cusolver_geev_loop(const std::vector<Mat<double, N, N>>& matrices);

// cuSOLVER syevjBatched: eigenvalues of symmetric matrices (the lower
// triangle is read), e.g. the undamped modal problem M^{-1/2} K M^{-1/2}.
// re ascending, im = 0; status = syevj's info for that matrix (0: ok,
// > 0: Jacobi did not converge). N <= 32 (syevjBatched's limit).
// Instantiated for N = 6.
template <int N>
std::vector<EigenResult<N>> symmetric_eigenvalues_batched_cusolver(const std::vector<Mat<double, N, N>>& matrices);
#endif

}  // namespace hs
