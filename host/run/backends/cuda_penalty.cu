// The CUDA backend's kernels of one formulation (PenaltyFormulation): one GPU thread
// per instance (host/run/backends/cuda.cu dispatches here). A translation
// unit per formulation so that nvcc compiles them in parallel.
#include <cuda_runtime.h>

#include "host/cuda_support.hpp"
#include "host/run/backends/device_batch.hpp"
#include "kernels/integrators/formulations.hpp"

namespace hs {
BatchResult run_batch_cuda_penalty(const BatchSpec& spec, double device_bytes) {
  return device_batch::run<PenaltyFormulation>(spec, device_bytes,
                                  [](const auto& kernel, long count) { launch_for_each_index(kernel, count); });
}
}  // namespace hs
