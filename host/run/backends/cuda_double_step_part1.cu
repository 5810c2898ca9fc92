// The CUDA backend's kernels of the double-step formulation (DoubleStepFormulation), one GPU
// thread per instance (host/run/backends/cuda.cu dispatches here): the physics at odd catalog
// positions (catalog_position). The formulation's kernels are split over
// kDoubleStepDeviceUnits translation units so that nvcc compiles them in parallel: they were
// the CUDA build's longest unit (docs/build.md §10).
#include <cuda_runtime.h>

#include "host/cuda_support.hpp"
#include "host/run/backends/device_batch.hpp"
#include "kernels/integrators/formulations.hpp"

namespace hs {
BatchResult run_batch_cuda_double_step_part1(const BatchSpec& spec, double device_bytes) {
  return device_batch::run<DoubleStepFormulation, 1, kDoubleStepDeviceUnits>(
      spec, device_bytes, [](const auto& kernel, long count) { launch_for_each_index(kernel, count); });
}
}  // namespace hs
