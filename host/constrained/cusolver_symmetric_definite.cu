#include "host/constrained/cusolver_symmetric_definite.hpp"

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "host/cuda_support.hpp"

namespace hs {
namespace {

// The checks both paths begin with: sizes, the outputs sized, a device.
// False when there is nothing to solve.
bool prepare(const char* who, const std::vector<double>& K, const std::vector<double>& M, int n, int count,
             std::vector<double>& w, std::vector<int>& info) {
  const size_t nn = static_cast<size_t>(n) * n;
  if (K.size() != nn * count || M.size() != nn * count)
    throw std::invalid_argument(std::string(who) + ": K and M must hold count x n x n values");
  w.assign(static_cast<size_t>(n) * count, 0.0);
  info.assign(static_cast<size_t>(count), 0);
  if (n == 0 || count == 0) return false;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw std::runtime_error(std::string(who) + ": no CUDA device is visible");
  }
  return true;
}

void check(cusolverStatus_t s, const char* call) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSOLVER error: ") + call + " returned status " + std::to_string(s));
}

}  // namespace

std::vector<int> symmetric_definite_cusolver(const std::vector<double>& K, const std::vector<double>& M, int n, int count,
                                             std::vector<double>& w) {
  const size_t nn = static_cast<size_t>(n) * n;
  std::vector<int> info;
  if (!prepare("symmetric_definite_cusolver", K, M, n, count, w, info)) return info;
  cusolverDnHandle_t h = nullptr;
  check(cusolverDnCreate(&h), "cusolverDnCreate");
  struct Guard {
    cusolverDnHandle_t h;
    ~Guard() { cusolverDnDestroy(h); }
  } guard{h};
  DeviceBuffer<double> dK(nn), dM(nn), dw(static_cast<size_t>(n));
  DeviceBuffer<int> dinfo(1);
  int lwork = 0;
  check(cusolverDnDsygvd_bufferSize(h, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, dK.ptr,
                                    n, dM.ptr, n, dw.ptr, &lwork),
        "cusolverDnDsygvd_bufferSize");
  DeviceBuffer<double> work(static_cast<size_t>(lwork > 0 ? lwork : 1));
  for (int i = 0; i < count; ++i) {
    HS_CUDA_CHECK(cudaMemcpy(dK.ptr, K.data() + i * nn, nn * sizeof(double), cudaMemcpyHostToDevice));
    HS_CUDA_CHECK(cudaMemcpy(dM.ptr, M.data() + i * nn, nn * sizeof(double), cudaMemcpyHostToDevice));
    check(cusolverDnDsygvd(h, CUSOLVER_EIG_TYPE_1, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, dK.ptr, n,
                           dM.ptr, n, dw.ptr, work.ptr, lwork, dinfo.ptr),
          "cusolverDnDsygvd");
    HS_CUDA_CHECK(cudaMemcpy(w.data() + static_cast<size_t>(i) * n, dw.ptr, n * sizeof(double), cudaMemcpyDeviceToHost));
    HS_CUDA_CHECK(cudaMemcpy(&info[i], dinfo.ptr, sizeof(int), cudaMemcpyDeviceToHost));
  }
  return info;
}

std::vector<int> symmetric_definite_cusolver_batched(const std::vector<double>& K, const std::vector<double>& M, int n,
                                                     int count, std::vector<double>& w) {
  const size_t nn = static_cast<size_t>(n) * n;
  if (n > 32) throw std::invalid_argument("symmetric_definite_cusolver_batched: order " + std::to_string(n) + " > 32");
  std::vector<int> info;
  if (!prepare("symmetric_definite_cusolver_batched", K, M, n, count, w, info)) return info;
  auto check_blas = [](cublasStatus_t s, const char* call) {
    if (s != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cuBLAS error: ") + call + " returned status " + std::to_string(s));
  };
  cusolverDnHandle_t h = nullptr;
  check(cusolverDnCreate(&h), "cusolverDnCreate");
  cublasHandle_t b = nullptr;
  if (cublasCreate(&b) != CUBLAS_STATUS_SUCCESS) {
    cusolverDnDestroy(h);
    throw std::runtime_error("cuBLAS error: cublasCreate failed");
  }
  syevjInfo_t params = nullptr;
  struct Guard {
    cusolverDnHandle_t h;
    cublasHandle_t b;
    syevjInfo_t* params;
    ~Guard() {
      if (*params) cusolverDnDestroySyevjInfo(*params);
      cublasDestroy(b);
      cusolverDnDestroy(h);
    }
  } guard{h, b, &params};
  check(cusolverDnCreateSyevjInfo(&params), "cusolverDnCreateSyevjInfo");
  const size_t total = nn * count;
  DeviceBuffer<double> dK(total), dM(total), dw(static_cast<size_t>(n) * count);
  DeviceBuffer<int> dinfo(static_cast<size_t>(count));
  HS_CUDA_CHECK(cudaMemcpy(dK.ptr, K.data(), total * sizeof(double), cudaMemcpyHostToDevice));
  HS_CUDA_CHECK(cudaMemcpy(dM.ptr, M.data(), total * sizeof(double), cudaMemcpyHostToDevice));
  // The pointer arrays of the potrf and trsm batched calls.
  std::vector<double*> hK(static_cast<size_t>(count)), hM(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    hK[i] = dK.ptr + i * nn;
    hM[i] = dM.ptr + i * nn;
  }
  DeviceBuffer<double*> pK(static_cast<size_t>(count)), pM(static_cast<size_t>(count));
  HS_CUDA_CHECK(cudaMemcpy(pK.ptr, hK.data(), count * sizeof(double*), cudaMemcpyHostToDevice));
  HS_CUDA_CHECK(cudaMemcpy(pM.ptr, hM.data(), count * sizeof(double*), cudaMemcpyHostToDevice));
  // 1. M = L Lᵀ (lower).
  check(cusolverDnDpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, pM.ptr, n, dinfo.ptr, count), "cusolverDnDpotrfBatched");
  HS_CUDA_CHECK(cudaMemcpy(info.data(), dinfo.ptr, count * sizeof(int), cudaMemcpyDeviceToHost));
  // 2. S = L⁻¹ K L⁻ᵀ: K ← L⁻¹ K, then K ← K L⁻ᵀ. A problem whose M failed
  // carries garbage on; its info says so and its eigenvalues are NaN below.
  const double one = 1.0;
  check_blas(cublasDtrsmBatched(b, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &one,
                                pM.ptr, n, pK.ptr, n, count),
             "cublasDtrsmBatched (left)");
  check_blas(cublasDtrsmBatched(b, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, n,
                                &one, pM.ptr, n, pK.ptr, n, count),
             "cublasDtrsmBatched (right)");
  // 3. Eigenvalues of S (its lower triangle), ascending.
  int lwork = 0;
  check(cusolverDnDsyevjBatched_bufferSize(h, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, dK.ptr, n, dw.ptr,
                                           &lwork, params, count),
        "cusolverDnDsyevjBatched_bufferSize");
  DeviceBuffer<double> work(static_cast<size_t>(std::max(lwork, 1)));
  DeviceBuffer<int> dinfo_j(static_cast<size_t>(count));
  check(cusolverDnDsyevjBatched(h, CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, n, dK.ptr, n, dw.ptr, work.ptr,
                                lwork, dinfo_j.ptr, params, count),
        "cusolverDnDsyevjBatched");
  std::vector<int> info_j(static_cast<size_t>(count), 0);
  HS_CUDA_CHECK(cudaMemcpy(info_j.data(), dinfo_j.ptr, count * sizeof(int), cudaMemcpyDeviceToHost));
  HS_CUDA_CHECK(cudaMemcpy(w.data(), dw.ptr, w.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (int i = 0; i < count; ++i) {
    if (info[i] == 0 && info_j[i] != 0) info[i] = n + info_j[i];
    if (info[i] != 0)
      for (int k = 0; k < n; ++k) w[static_cast<size_t>(i) * n + k] = std::numeric_limits<double>::quiet_NaN();
  }
  return info;
}

}  // namespace hs
