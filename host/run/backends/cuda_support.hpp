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

#define HS_CUDA_CHECK(call)                                                                                   \
  do {                                                                                                        \
    const cudaError_t hs_err_ = (call);                                                                       \
    if (hs_err_ != cudaSuccess)                                                                               \
      throw std::runtime_error(std::string("CUDA error: ") + #call + " at " + __FILE__ + ":" +              \
                               std::to_string(__LINE__) + ": " + cudaGetErrorString(hs_err_));               \
  } while (0)

namespace hs {

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

}  // namespace hs
