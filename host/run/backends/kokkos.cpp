// Kokkos backend: the one host path (space_batch.hpp) on Kokkos' default
// execution space, the same InstanceKernel under Kokkos::parallel_for. Debian's Kokkos has the Serial space only; a
// user's CUDA/HIP/OpenMP Kokkos build works unchanged, because the data
// move through Views in the execution space's memory and the kernel is
// host/device code (HS_HD).
#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "host/run/backends/instance_kernel.hpp"
#include "host/run/backends/space_batch.hpp"
#include "host/run/stability_map.hpp"

namespace hs {
namespace {

// Kokkos is initialised once per process, on first use, and finalised at
// exit (Kokkos requires finalize after every View is gone).
void ensure_kokkos() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!Kokkos::is_initialized()) {
      Kokkos::initialize();
      std::atexit([] { if (Kokkos::is_initialized()) Kokkos::finalize(); });
    }
  });
}

// A host execution space (Debian's Kokkos: Serial) runs the CPU backend's
// compilation of each kernel through its entry instead of compiling the
// integrators again (host/run/backends/host_kernel_entry.hpp); a device
// space (a user's CUDA or HIP Kokkos) compiles them for itself.
constexpr bool kHostSpace =
    Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, Kokkos::HostSpace>::accessible;

// Kokkos' default execution space as the one host path's space
// (host/run/backends/space_batch.hpp): Views in its memory space, the
// launch a parallel_for over [0, count). On a host space the launch calls
// `entry`, the CPU backend's compilation of the kernel; a device space
// compiles the kernel for itself and gets sample-major trajectories.
struct KokkosSpace {
  template <class T>
  using Buffer = Kokkos::View<T*>;
  static constexpr bool instance_major = kHostSpace;
  static constexpr bool host_control = false;

  HostKernelEntry entry = nullptr;

  int threads() const { return Kokkos::DefaultExecutionSpace().concurrency(); }
  // No slicing: the batch is already one chunk of the study (host/run/memory_budget.cpp).
  double memory_bytes() const { return 1e15; }
  template <class T>
  Buffer<T> upload(const std::vector<T>& host) const {
    Buffer<T> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("hydrosweep")), host.size());
    auto h = Kokkos::create_mirror_view(d);
    for (size_t i = 0; i < host.size(); ++i) h(i) = host[i];
    Kokkos::deep_copy(d, h);
    return d;
  }
  template <class T>
  Buffer<T> filled(long n, const T& value) const {
    return upload(std::vector<T>(static_cast<size_t>(n), value));
  }
  template <class T>
  static T* data(Buffer<T>& b) {
    return b.data();
  }
  template <class T>
  void download(Buffer<T>& d, std::vector<T>& host) const {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
    host.resize(d.extent(0));
    for (size_t i = 0; i < d.extent(0); ++i) host[i] = h(i);
  }
  template <class Kernel, class Weight>
  void launch(const Kernel& kernel, long count, Weight&&) const {
    if constexpr (kHostSpace) {
      const HostKernelCall call{entry, &kernel};
      Kokkos::parallel_for("hydrosweep::kernel", Kokkos::RangePolicy<>(0, count), [call](const long i) { call(i); });
    } else {
      Kokkos::parallel_for("hydrosweep::kernel", Kokkos::RangePolicy<>(0, count), KOKKOS_LAMBDA(const long i) { kernel(i); });
    }
    Kokkos::fence();
  }
};

}  // namespace

std::string kokkos_execution_space() {
  ensure_kokkos();
  return Kokkos::DefaultExecutionSpace::name();
}

BatchResult run_batch_kokkos(const BatchSpec& spec) {
  ensure_kokkos();
  KokkosSpace space;
  if constexpr (kHostSpace) space.entry = instance_kernel_entry(spec);
  BatchResult out;
  with_batch_combination(spec, [&](auto combination) {
    out = space_batch::run_instances<typename decltype(combination)::Integrator>(spec, space);
  });
  return out;
}

// Stability maps: the same StabilityKernel as the CPU and CUDA paths.
std::vector<StabilityPoint> run_stability_kokkos(const StabilityBatch& batch) {
  ensure_kokkos();
  KokkosSpace space;
  if constexpr (kHostSpace) space.entry = stability_kernel_entry(batch);
  std::vector<StabilityPoint> out;
  with_batch_combination(batch, [&](auto combination) {
    using System = typename decltype(combination)::System;
    out = space_batch::run_points<typename System::Params>(
        batch, space, [&](const typename System::Params* params, StabilityRecord* points) {
          return StabilityKernel<System>{params, batch.settings, points};
        });
  });
  return out;
}

}  // namespace hs
