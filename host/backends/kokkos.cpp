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

#include "host/backends/instance_kernel.hpp"

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

}  // namespace

std::string kokkos_execution_space() {
  ensure_kokkos();
  return Kokkos::DefaultExecutionSpace::name();
}

BatchResult run_batch_kokkos(const BatchSpec& spec) {
  ensure_kokkos();
  BatchResult out = blank_result(spec);
  const long n = static_cast<long>(spec.instances.size());
  if (n == 0) return out;
  const auto t0 = std::chrono::steady_clock::now();
  with_friction(spec.friction, [&](auto friction) {
    using Kernel = InstanceKernel<decltype(friction)>;
    const auto params = to_device("params", spec.instances.data(), n);
    const auto summaries = to_device("summaries", out.summaries.data(), n);
    const auto trajectories = to_device("trajectories", out.trajectories.data(), out.trajectories.size());
    const auto reference = to_device("reference", spec.reference.data(), spec.reference.size());
    RunOptions opt = run_options(spec);
    if (opt.reference) opt.reference = reference.data();
    const Kernel kernel{params.data(), summaries.data(), trajectories.data(), out.samples_per_instance, spec.settings, opt,
                        out.samples_per_instance, 1};
    Kokkos::parallel_for("hydrosweep::run_instances", Kokkos::RangePolicy<>(0, n),
                         KOKKOS_LAMBDA(const long i) { kernel(i); });
    Kokkos::fence();
    to_host(summaries, out.summaries.data());
    to_host(trajectories, out.trajectories.data());
  });
  collect_failed_indices(out);
  if (spec.progress) spec.progress->fetch_add(n);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.threads_used = Kokkos::DefaultExecutionSpace().concurrency();
  return out;
}

}  // namespace hs
