// The CUDA backend's host logic (host/run/backends/device_batch.hpp) built by the
// host compiler against Thrust's OpenMP device system: the same slicing,
// buffers, sample-major layout and transposition (host/run/backends/space_batch.hpp)
// as on a GPU, with "device" memory in host memory and the launch a
// thrust::for_each over OpenMP threads. It exists so that CI, which has no
// GPU, runs that code for real (the gpu-labelled tests in tests/test_gpu.cpp);
// it exercises the backend's code path, not a GPU, and is not a user backend.
// This file is compiled with THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP
// (CMakeLists.txt).
#if !defined(THRUST_DEVICE_SYSTEM) || THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_OMP
#error "device_batch_omp.cpp must be built with THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP"
#endif
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>

#include <type_traits>

#include "host/run/backends/device_batch.hpp"

namespace hs {

namespace {
// kernel(i) for i in [0, count) on OpenMP threads, Thrust's OpenMP launch.
template <class Kernel>
void omp_for_each(const Kernel& kernel, long count) {
  thrust::for_each(thrust::device, thrust::counting_iterator<long>(0), thrust::counting_iterator<long>(count), kernel);
}
template <class K>
struct IsStabilityKernel : std::false_type {};
template <class System>
struct IsStabilityKernel<StabilityKernel<System>> : std::true_type {};
}  // namespace

// The integrators and stability kernels are not compiled here: the launch
// calls the CPU backend's compilation of the same kernel through its entry
// (host/run/backends/host_kernel_entry.hpp). Seed 003's per-thread
// constrained kernels have no other host compilation; they are compiled here.
std::vector<StabilityPoint> run_stability_device_code_path_on_omp(const StabilityBatch& batch, double device_bytes) {
  return device_batch::run_stability(batch, device_bytes, [&batch](const auto& kernel, long count) {
    using Kernel = std::decay_t<decltype(kernel)>;
    if constexpr (IsStabilityKernel<Kernel>::value)
      omp_for_each(HostKernelCall{stability_kernel_entry(batch), &kernel}, count);
    else
      omp_for_each(kernel, count);
  });
}

BatchResult run_batch_device_code_path_on_omp(const BatchSpec& spec, double device_bytes) {
  const HostKernelEntry entry = instance_kernel_entry(spec);
  return device_batch::run(spec, device_bytes, [entry](const auto& kernel, long count) {
    omp_for_each(HostKernelCall{entry, &kernel}, count);
  });
}

long device_batch_slice_size(const BatchSpec& spec, double device_bytes) {
  long slice = 0;
  with_batch_combination(spec, [&](auto combination) {
    using Combination = decltype(combination);
    if constexpr (Combination::on_device)
      slice = space_batch::slice_size<typename Combination::Integrator>(
          spec.instance_count(), sample_count(spec.settings, spec.trajectory_stride), device_bytes);
  });
  return slice;
}

}  // namespace hs
