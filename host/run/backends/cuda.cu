// CUDA backend: one GPU thread per instance, the whole horizon in one launch
// (the state of an instance lives in its thread's registers and local
// memory for all its steps), the same InstanceKernel as the CPU backend.
//
// The host logic (slices, device buffers, sample-major trajectories and their
// transposition) is the one host path (host/run/backends/space_batch.hpp) on
// Thrust's device system (host/run/backends/device_batch.hpp); this file adds
// the device query and the kernel launch. Every CUDA call is checked; a failure throws with the call,
// the place and CUDA's reason.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "host/cuda_support.hpp"
#include "host/run/backends/device_batch.hpp"
#include "kernels/integrators/formulations.hpp"

namespace hs {
// One translation unit per formulation, compiled in parallel (cuda_penalty.cu),
// the double step's in kDoubleStepDeviceUnits (cuda_double_step_part<k>.cu, by
// the physics' catalog position): each instantiates only its kernels.
BatchResult run_batch_cuda_double_step_part0(const BatchSpec& spec, double device_bytes);
BatchResult run_batch_cuda_double_step_part1(const BatchSpec& spec, double device_bytes);
BatchResult run_batch_cuda_penalty(const BatchSpec& spec, double device_bytes);
static_assert(kDoubleStepDeviceUnits == 2, "one declaration and one dispatch per unit");

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error for the caller
    return 0;
  }
  return n;
}

// Rank r of a node's ranks takes device r mod (devices): one GPU per rank when
// there are as many ranks as GPUs (host/run/ranks.hpp).
void use_cuda_device_of_local_rank(int local_rank) {
  const int n = cuda_device_count();
  if (n > 0) HS_CUDA_CHECK(cudaSetDevice(local_rank % n));
}

std::string cuda_device_name() {
  int device = 0;
  HS_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  HS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.totalGlobalMem >> 20) + " MiB)";
}

BatchResult run_batch_cuda(const BatchSpec& spec) {
  if (cuda_device_count() == 0) throw std::runtime_error("backend cuda: no CUDA device is visible");
  // Slices take at most 80 % of the free device memory.
  size_t free_bytes = 0, total_bytes = 0;
  HS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double device_bytes = 0.8 * static_cast<double>(free_bytes);
  if (spec.formulation == PenaltyFormulation::name) return run_batch_cuda_penalty(spec, device_bytes);
  if (spec.formulation == DoubleStepFormulation::name && spec.model)
    return catalog_position(spec.model->physics) % kDoubleStepDeviceUnits == 1
               ? run_batch_cuda_double_step_part1(spec, device_bytes)
               : run_batch_cuda_double_step_part0(spec, device_bytes);
  // Formulations not built for the device: device_batch::run names the reason.
  return device_batch::run<Index1BaumgarteFormulation>(spec, device_bytes, [](const auto&, long) {});
}

}  // namespace hs
