// What every CUDA translation unit of the host needs: checked calls and a
// device buffer freed on scope exit (exceptions included).
//
// HS_CUDA_CHECK(call) throws std::runtime_error naming the call, the place
// and CUDA's reason, so a failing launch or allocation reaches the user as
// a message, never as a silent wrong result.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "host/device_block.hpp"

#define HS_CUDA_CHECK(call)                                                                                   \
  do {                                                                                                        \
    const cudaError_t hs_err_ = (call);                                                                       \
    if (hs_err_ != cudaSuccess)                                                                               \
      throw std::runtime_error(std::string("CUDA error: ") + #call + " at " + __FILE__ + ":" +              \
                               std::to_string(__LINE__) + ": " + cudaGetErrorString(hs_err_));               \
  } while (0)

namespace hs {

// How many translation units the double-step formulation's kernels are split
// over (cuda_double_step_part<k>.cu takes the physics whose catalog position
// is k modulo this number; cuda.cu dispatches by catalog_position).
constexpr int kDoubleStepDeviceUnits = 2;

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(size_t n) {
    if (n > 0) HS_CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

#ifdef __CUDACC__
// "Run this functor over an index range" on the GPU: kernel(i) for i in
// [0, count), one thread each, checked, synchronous. The launch the device
// backends hand to host/run/backends/device_batch.hpp (simulation and
// stability maps alike).
template <class Kernel>
__global__ void for_each_index(Kernel kernel, long count) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) kernel(i);
}
// Per-thread state (Newton matrices, QR workspace) lives in local memory;
// 128 threads per block keep enough blocks resident for the latency.
constexpr int kThreadsPerBlock = kDeviceThreadsPerBlock;  // device_block.hpp
template <class Kernel>
void launch_for_each_index(const Kernel& kernel, long count) {
  const unsigned blocks = static_cast<unsigned>((count + kThreadsPerBlock - 1) / kThreadsPerBlock);
  for_each_index<<<blocks, kThreadsPerBlock>>>(kernel, count);
  HS_CUDA_CHECK(cudaGetLastError());
  HS_CUDA_CHECK(cudaDeviceSynchronize());
}
#endif

}  // namespace hs
