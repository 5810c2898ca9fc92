// The CUDA backend's host logic (host/run/backends/device_batch.hpp) built by the
// host compiler against Thrust's OpenMP device system: the same slicing,
// buffers, sample-major layout, transposition and failed-instance compaction
// as on a GPU, with "device" memory in host memory and the launch a
// thrust::for_each over OpenMP threads. It exists so that CI, which has no
// GPU, runs that code for real (the gpu-labelled tests in tests/test_gpu.cpp);
// it exercises the backend's code path, not a GPU, and is not a user backend.
// This file is compiled with THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP
// (CMakeLists.txt).
#if !defined(THRUST_DEVICE_SYSTEM) || THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_OMP
#error "device_batch_omp.cpp must be built with THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP"
#endif
#include <thrust/for_each.h>

#include "host/run/backends/device_batch.hpp"

namespace hs {

namespace {
// The launch of this build: kernel(i) for i in [0, count) on OpenMP threads.
const auto omp_launch = [](const auto& kernel, long count) {
  thrust::for_each(thrust::device, thrust::counting_iterator<long>(0), thrust::counting_iterator<long>(count), kernel);
};
}  // namespace

std::vector<StabilityPoint> run_stability_device_code_path_on_omp(const StabilityBatch& batch, double device_bytes) {
  return device_batch::run_stability(batch, device_bytes, omp_launch);
}

BatchResult run_batch_device_code_path_on_omp(const BatchSpec& spec, double device_bytes) {
  return device_batch::run(spec, device_bytes, omp_launch);
}

long device_batch_slice_size(const BatchSpec& spec, double device_bytes) {
  long slice = 0;
  with_batch_combination(spec, [&](auto combination) {
    using Combination = decltype(combination);
    if constexpr (Combination::on_device)
      slice = device_batch::slice_size<typename Combination::Integrator>(
          spec.instance_count(), sample_count(spec.settings, spec.trajectory_stride), device_bytes);
  });
  return slice;
}

}  // namespace hs
