// Batched eigenvalues on the GPU: the per-thread kernel (one thread per
// matrix, kernels/eigen/small_eigen.hpp — the code the CPU batch runs) and
// two cuSOLVER paths, the Xgeev-per-matrix baseline and syevjBatched for
// symmetric matrices (docs/models/README.md §5.5).
//
// Every CUDA and cuSOLVER call is checked; a failure throws
// std::runtime_error with the call, the place and the library's reason.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/cuda_support.hpp"
#include "host/run/batch.hpp"
#include "host/run/eigen_batch.hpp"

#define HS_CUSOLVER_CHECK(call)                                                                               \
  do {                                                                                                        \
    const cusolverStatus_t hs_st_ = (call);                                                                   \
    if (hs_st_ != CUSOLVER_STATUS_SUCCESS)                                                                    \
      throw std::runtime_error(std::string("cuSOLVER error: ") + #call + " at " + __FILE__ + ":" +          \
                               std::to_string(__LINE__) + ": " + cusolver_status_name(hs_st_));              \
  } while (0)

namespace hs {
namespace {

// cuSOLVER has no status-to-string function.
const char* cusolver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "cuSOLVER status (see cusolver_common.h)";
  }
}

// cuSOLVER handle (and optional objects) released on scope exit.
struct SolverHandle {
  cusolverDnHandle_t h = nullptr;
  SolverHandle() { HS_CUSOLVER_CHECK(cusolverDnCreate(&h)); }
  ~SolverHandle() {
    if (h) cusolverDnDestroy(h);
  }
  SolverHandle(const SolverHandle&) = delete;
  SolverHandle& operator=(const SolverHandle&) = delete;
};

void require_device(const char* what) {
  std::string why;
  if (!backend_available(Backend::cuda, &why)) throw std::runtime_error(std::string(what) + ": " + why);
}

template <int N>
__global__ void eigenvalues_kernel(const Mat<double, N, N>* matrices, EigenResult<N>* out, long n, bool balance) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = eigenvalues<N>(matrices[i], balance);
}

// Eigenvalues are per-thread register/local-memory work; 128 threads per
// block keeps enough warps resident with N = 6 (288 B of matrix per thread).
constexpr int kBlock = 128;

}  // namespace

template <int N>
std::vector<EigenResult<N>> eigenvalues_batch_cuda(const std::vector<Mat<double, N, N>>& matrices, bool balance) {
  require_device("eigenvalues_batch_cuda");
  const long n = static_cast<long>(matrices.size());
  std::vector<EigenResult<N>> out(matrices.size());
  if (n == 0) return out;
  DeviceBuffer<Mat<double, N, N>> d_in(matrices.size());
  DeviceBuffer<EigenResult<N>> d_out(matrices.size());
  HS_CUDA_CHECK(cudaMemcpy(d_in.ptr, matrices.data(), n * sizeof(Mat<double, N, N>), cudaMemcpyHostToDevice));
  const long blocks = (n + kBlock - 1) / kBlock;
  eigenvalues_kernel<N><<<static_cast<unsigned>(blocks), kBlock>>>(d_in.ptr, d_out.ptr, n, balance);
  HS_CUDA_CHECK(cudaGetLastError());
  HS_CUDA_CHECK(cudaDeviceSynchronize());
  HS_CUDA_CHECK(cudaMemcpy(out.data(), d_out.ptr, n * sizeof(EigenResult<N>), cudaMemcpyDeviceToHost));
  return out;
}

template <int N>
std::vector<EigenResult<N>> cusolver_geev_loop(const std::vector<Mat<double, N, N>>& matrices) {
  require_device("cusolver_geev_loop");
  const long n = static_cast<long>(matrices.size());
  std::vector<EigenResult<N>> out(matrices.size());
  if (n == 0) return out;
  // cuSOLVER is column-major and hs::Mat row-major: the device holds A^T,
  // which has the same eigenvalues, so no transpose is needed.
  DeviceBuffer<double> d_a(static_cast<size_t>(n) * N * N);
  DeviceBuffer<double> d_w(static_cast<size_t>(n) * 2 * N);  // per matrix: N real parts, then N imaginary parts
  DeviceBuffer<int> d_info(static_cast<size_t>(n));
  HS_CUDA_CHECK(cudaMemcpy(d_a.ptr, matrices.data(), n * sizeof(Mat<double, N, N>), cudaMemcpyHostToDevice));

  SolverHandle solver;
  cusolverDnParams_t params = nullptr;
  HS_CUSOLVER_CHECK(cusolverDnCreateParams(&params));
  struct ParamsGuard {
    cusolverDnParams_t p;
    ~ParamsGuard() { cusolverDnDestroyParams(p); }
  } params_guard{params};

  // All-real data types: W then holds 2N doubles (real parts, then
  // imaginary parts), the LAPACK dgeev convention. No eigenvectors:
  // VL/VR are not referenced (leading dimension 1 is allowed).
  size_t device_bytes = 0, host_bytes = 0;
  HS_CUSOLVER_CHECK(cusolverDnXgeev_bufferSize(solver.h, params, CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_NOVECTOR,
                                               N, CUDA_R_64F, d_a.ptr, N, CUDA_R_64F, d_w.ptr, CUDA_R_64F, nullptr, 1,
                                               CUDA_R_64F, nullptr, 1, CUDA_R_64F, &device_bytes, &host_bytes));
  DeviceBuffer<char> d_work(std::max<size_t>(device_bytes, 1));
  std::vector<char> h_work(std::max<size_t>(host_bytes, 1));
  for (long i = 0; i < n; ++i) {
    double* a = d_a.ptr + static_cast<size_t>(i) * N * N;
    double* w = d_w.ptr + static_cast<size_t>(i) * 2 * N;
    HS_CUSOLVER_CHECK(cusolverDnXgeev(solver.h, params, CUSOLVER_EIG_MODE_NOVECTOR, CUSOLVER_EIG_MODE_NOVECTOR, N,
                                      CUDA_R_64F, a, N, CUDA_R_64F, w, CUDA_R_64F, nullptr, 1, CUDA_R_64F, nullptr, 1,
                                      CUDA_R_64F, d_work.ptr, device_bytes, h_work.data(), host_bytes,
                                      d_info.ptr + i));
  }
  HS_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> w(static_cast<size_t>(n) * 2 * N);
  std::vector<int> info(static_cast<size_t>(n));
  HS_CUDA_CHECK(cudaMemcpy(w.data(), d_w.ptr, w.size() * sizeof(double), cudaMemcpyDeviceToHost));
  HS_CUDA_CHECK(cudaMemcpy(info.data(), d_info.ptr, info.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (long i = 0; i < n; ++i) {
    for (int k = 0; k < N; ++k) {
      out[i].re[k] = w[static_cast<size_t>(i) * 2 * N + k];
      out[i].im[k] = w[static_cast<size_t>(i) * 2 * N + N + k];
    }
    out[i].status = info[i];
    out[i].iterations = 0;
  }
  return out;
}

template <int N>
std::vector<EigenResult<N>> symmetric_eigenvalues_batched_cusolver(const std::vector<Mat<double, N, N>>& matrices) {
  static_assert(N <= 32, "cusolverDnDsyevjBatched handles n <= 32");
  require_device("symmetric_eigenvalues_batched_cusolver");
  const long n = static_cast<long>(matrices.size());
  std::vector<EigenResult<N>> out(matrices.size());
  if (n == 0) return out;
  // Row- vs column-major does not matter for a symmetric matrix.
  DeviceBuffer<double> d_a(static_cast<size_t>(n) * N * N);
  DeviceBuffer<double> d_w(static_cast<size_t>(n) * N);
  DeviceBuffer<int> d_info(static_cast<size_t>(n));
  HS_CUDA_CHECK(cudaMemcpy(d_a.ptr, matrices.data(), n * sizeof(Mat<double, N, N>), cudaMemcpyHostToDevice));

  SolverHandle solver;
  syevjInfo_t syevj = nullptr;
  HS_CUSOLVER_CHECK(cusolverDnCreateSyevjInfo(&syevj));
  struct SyevjGuard {
    syevjInfo_t p;
    ~SyevjGuard() { cusolverDnDestroySyevjInfo(p); }
  } syevj_guard{syevj};
  // Defaults: tolerance = machine precision, 100 sweeps, ascending order.
  HS_CUSOLVER_CHECK(cusolverDnXsyevjSetSortEig(syevj, 1));

  // syevjBatched takes an int batch size: run batches of at most 2^30.
  const long chunk_max = 1L << 30;
  for (long first = 0; first < n; first += chunk_max) {
    const int count = static_cast<int>(std::min(chunk_max, n - first));
    double* a = d_a.ptr + static_cast<size_t>(first) * N * N;
    double* w = d_w.ptr + static_cast<size_t>(first) * N;
    int lwork = 0;
    HS_CUSOLVER_CHECK(cusolverDnDsyevjBatched_bufferSize(solver.h, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N,
                                                         a, N, w, &lwork, syevj, count));
    DeviceBuffer<double> d_work(static_cast<size_t>(std::max(lwork, 1)));
    HS_CUSOLVER_CHECK(cusolverDnDsyevjBatched(solver.h, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, N, a, N, w,
                                              d_work.ptr, lwork, d_info.ptr + first, syevj, count));
  }
  HS_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> w(static_cast<size_t>(n) * N);
  std::vector<int> info(static_cast<size_t>(n));
  HS_CUDA_CHECK(cudaMemcpy(w.data(), d_w.ptr, w.size() * sizeof(double), cudaMemcpyDeviceToHost));
  HS_CUDA_CHECK(cudaMemcpy(info.data(), d_info.ptr, info.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (long i = 0; i < n; ++i) {
    for (int k = 0; k < N; ++k) {
      out[i].re[k] = w[static_cast<size_t>(i) * N + k];
      out[i].im[k] = 0.0;
    }
    out[i].status = info[i];
    out[i].iterations = 0;
  }
  return out;
}

template std::vector<EigenResult<6>> eigenvalues_batch_cuda<6>(const std::vector<Mat<double, 6, 6>>&, bool);
template std::vector<EigenResult<6>> cusolver_geev_loop<6>(const std::vector<Mat<double, 6, 6>>&);
template std::vector<EigenResult<6>> symmetric_eigenvalues_batched_cusolver<6>(const std::vector<Mat<double, 6, 6>>&);

}  // namespace hs
