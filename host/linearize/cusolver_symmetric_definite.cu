#include "host/linearize/cusolver_symmetric_definite.hpp"

#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <stdexcept>
#include <string>

#include "host/run/backends/cuda_support.hpp"

namespace hs {

std::vector<int> symmetric_definite_cusolver(const std::vector<double>& K, const std::vector<double>& M, int n, int count,
                                             std::vector<double>& w) {
  const size_t nn = static_cast<size_t>(n) * n;
  if (K.size() != nn * count || M.size() != nn * count)
    throw std::invalid_argument("symmetric_definite_cusolver: K and M must hold count x n x n values");
  w.assign(static_cast<size_t>(n) * count, 0.0);
  std::vector<int> info(static_cast<size_t>(count), 0);
  if (n == 0 || count == 0) return info;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw std::runtime_error("symmetric_definite_cusolver: no CUDA device is visible");
  }
  auto check = [](cusolverStatus_t s, const char* call) {
    if (s != CUSOLVER_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cuSOLVER error: ") + call + " returned status " + std::to_string(s));
  };
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

}  // namespace hs
