// Stability maps on the GPU: one thread per parameter point runs
// stability_point (equilibrium, reduced Jacobian, per-thread eigenvalues),
// the same kernel function as the CPU and Kokkos paths of
// host/run/stability_map.cpp and host/run/backends/kokkos.cpp. The host logic
// (slices sized from the free device memory, device buffers, the copy back)
// is device_batch::run_stability (host/run/backends/device_batch.hpp, on
// Thrust's device system), which CI also runs through Thrust's OpenMP device
// system; this file adds the launch.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "host/cuda_support.hpp"
#include "host/run/backends/device_batch.hpp"

namespace hs {
std::vector<StabilityPoint> run_stability_cuda(const StabilityBatch& batch) {
  std::string why;
  if (!backend_available(Backend::cuda, &why)) throw std::runtime_error("CUDA stability: " + why);
  // Slices take at most half the free device memory.
  size_t free_bytes = 0, total_bytes = 0;
  HS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return device_batch::run_stability(batch, 0.5 * static_cast<double>(free_bytes),
                                     [](const auto& kernel, long count) { launch_for_each_index(kernel, count); });
}

}  // namespace hs
