// Kernels compiled once on the host and called by every backend that runs on
// host threads (docs/build.md §3).
#pragma once

namespace hs {

// ---- one compilation of each kernel for every backend on host threads --------
// A kernel (InstanceKernel<Integrator>, StabilityKernel<System>) is compiled
// once on the host, in the CPU backend's unit of its formulation
// (cpu_<formulation>.cpp) or in host/run/stability_map.cpp; the other backends
// that run on host threads -- Kokkos' host execution spaces and Thrust's
// OpenMP device system -- call that compilation through a HostKernelEntry
// instead of compiling the integrator again (each had been the build's
// longest translation unit; docs/build.md §3). nvcc compiles its own, for
// the GPU.
using HostKernelEntry = void (*)(const void* kernel, long i);
template <class Kernel>
void call_host_kernel(const void* kernel, long i) {
  (*static_cast<const Kernel*>(kernel))(i);
}
// kernel(i) through an entry: what such a backend launches.
struct HostKernelCall {
  HostKernelEntry entry;
  const void* kernel;
  void operator()(long i) const { entry(kernel, i); }
};

}  // namespace hs
