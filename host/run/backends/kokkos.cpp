// Kokkos backend: the same InstanceKernel under Kokkos::parallel_for in the
// default execution space. Debian's Kokkos has the Serial space only; a
// user's CUDA/HIP/OpenMP Kokkos build works unchanged, because the data
// move through Views in the execution space's memory and the kernel is
// host/device code (HS_HD).
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

#include "host/run/backends/instance_kernel.hpp"
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

template <class T>
Kokkos::View<T*> to_device(const char* label, const T* data, size_t n) {
  Kokkos::View<T*> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < n; ++i) h(i) = data[i];
  Kokkos::deep_copy(d, h);
  return d;
}
template <class T>
void to_host(const Kokkos::View<T*>& d, T* data) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  for (size_t i = 0; i < d.extent(0); ++i) data[i] = h(i);
}

// A host execution space (Debian's Kokkos: Serial) runs the CPU backend's
// compilation of each kernel through its entry instead of compiling the
// integrators again (host/run/backends/host_kernel_entry.hpp); a device
// space (a user's CUDA or HIP Kokkos) compiles them for itself.
constexpr bool kHostSpace =
    Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, Kokkos::HostSpace>::accessible;

}  // namespace

std::string kokkos_execution_space() {
  ensure_kokkos();
  return Kokkos::DefaultExecutionSpace::name();
}

BatchResult run_batch_kokkos(const BatchSpec& spec) {
  ensure_kokkos();
  BatchResult out;
  with_batch_combination(spec, [&](auto combination) {
    using Integrator = typename decltype(combination)::Integrator;
    using Typed = TypedBatch<Integrator>;
    using Kernel = InstanceKernel<Integrator>;
    out = Typed::blank_result(spec);
    const long n = spec.instance_count();
    if (n == 0) return;
    const long m = out.samples_per_instance;
    const auto t0 = std::chrono::steady_clock::now();
    {
      const auto host_params = Typed::params(spec, 0, n);
      const std::vector<typename Typed::Summary> host_summaries(static_cast<size_t>(n));
      const std::vector<typename Typed::SampleT> host_samples(static_cast<size_t>(n * m), Typed::blank_sample());
      const auto params = to_device("params", host_params.data(), n);
      const auto summaries = to_device("summaries", host_summaries.data(), n);
      const auto trajectories = to_device("trajectories", host_samples.data(), host_samples.size());
      const auto reference = to_device("reference", spec.reference.data(), spec.reference.size());
      RunOptions opt = run_options(spec);
      if (opt.reference) opt.reference = reference.data();
      const Kernel kernel{params.data(), summaries.data(), trajectories.data(), m, spec.settings, opt, m, 1};
      if constexpr (kHostSpace) {
        // The CPU backend's compilation of the kernel (host_kernel_entry.hpp).
        const HostKernelCall call{instance_kernel_entry(spec), &kernel};
        Kokkos::parallel_for("hydrosweep::run_instances", Kokkos::RangePolicy<>(0, n), [call](const long i) { call(i); });
      } else {
        Kokkos::parallel_for("hydrosweep::run_instances", Kokkos::RangePolicy<>(0, n),
                             KOKKOS_LAMBDA(const long i) { kernel(i); });
      }
      Kokkos::fence();
      std::vector<typename Typed::Summary> s(static_cast<size_t>(n));
      std::vector<typename Typed::SampleT> t(host_samples.size());
      to_host(summaries, s.data());
      to_host(trajectories, t.data());
      for (long i = 0; i < n; ++i) {
        Typed::store(s[i], i, out);
        for (long k = 0; k < m; ++k) Typed::store(t[i * m + k], i, k, out);
      }
    }
    collect_failed_indices(out);
    if (spec.progress) spec.progress->fetch_add(n);
    out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.threads_used = Kokkos::DefaultExecutionSpace().concurrency();
  });
  return out;
}

// Stability maps: stability_point over the points in the default execution
// space, the same kernel function as the CPU and CUDA paths.
std::vector<StabilityPoint> run_stability_kokkos(const StabilityBatch& batch) {
  ensure_kokkos();
  const long n = batch.point_count();
  std::vector<StabilityPoint> out(static_cast<size_t>(n), blank_stability_point(Status::not_run));
  if (n == 0) return out;
  with_batch_combination(batch, [&](auto combination) {
        using System = typename decltype(combination)::System;
        const auto host_params = params_of_rows<typename System::Params>(*batch.model, batch.friction, batch.parameters.data(), n);
        const auto params = to_device("stability_params", host_params.data(), n);
        const auto points = to_device("stability_points", out.data(), n);
        const StabilityKernel<System> kernel{params.data(), batch.settings, points.data()};
        if constexpr (kHostSpace) {
          const HostKernelCall call{stability_kernel_entry(batch), &kernel};
          Kokkos::parallel_for("hydrosweep::stability_points", Kokkos::RangePolicy<>(0, n),
                               [call](const long i) { call(i); });
        } else {
          Kokkos::parallel_for("hydrosweep::stability_points", Kokkos::RangePolicy<>(0, n),
                               KOKKOS_LAMBDA(const long i) { kernel(i); });
        }
        Kokkos::fence();
        to_host(points, out.data());
      });
  return out;
}

}  // namespace hs
