// The CPU backend (OpenMP): the kernel's run_instance over instances, or
// lockstep groups of W instances in SIMD lanes. Included by one translation
// unit per formulation (cpu_double_step.cpp, cpu_penalty.cpp,
// cpu_index1_baumgarte.cpp) and, for the double step's lockstep lanes, one
// per lane width (cpu_double_step_lanes4.cpp, cpu_double_step_lanes8.cpp),
// each instantiating only its own integrators, so that the build compiles
// them in parallel: as one file it was the longest compilation of the build
// (18 min and 13 GB at -O1 with the sanitizers), alone on one core at the end
// of CI's two-core builds. cpu.cpp dispatches a batch to its unit by
// formulation name and lane width.
#pragma once
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "host/run/backends/instance_kernel.hpp"
#include "host/run/batch.hpp"
#include "kernels/integrators/lockstep.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hs {
namespace cpu_batch {

// The lanes a batch runs with: 1 unless its integrator and run options have
// lanes (kernels/integrators/lockstep.hpp); automatic is 8.
template <class Integrator>
int lanes_for(const BatchSpec& spec, const RunOptions& options) {
  if (spec.lanes != 0 && spec.lanes != 1 && spec.lanes != 4 && spec.lanes != 8)
    throw std::invalid_argument("lanes: " + std::to_string(spec.lanes) + " is not one of 0 (automatic), 1, 4, 8");
  if (spec.lanes > 1 && !lanes_built(spec.lanes))
    throw std::invalid_argument("lanes: " + std::to_string(spec.lanes) + " is not built here (this build has lanes " +
                                built_lane_widths() + "; CMake option HYDROSWEEP_LANE_WIDTHS)");
  if constexpr (LockstepFor<Integrator>::value) {
    if (spec.lanes != 1 && lockstep_supported(spec.settings, options)) return spec.lanes == 0 ? widest_lanes() : spec.lanes;
  }
  return 1;
}

// Groups of W instances in lockstep, one group per OpenMP task (a group of
// the ~10 ms instances keeps both the cores and the lanes busy on small
// batches). Same summaries as the scalar loop, bit for bit.
template <class Integrator, int W>
void run_lockstep(const BatchSpec& spec, const RunOptions& options, BatchResult& out, bool& cancelled) {
  using Typed = TypedBatch<Integrator>;
  using Model = typename Integrator::Model;
  const long n = spec.instance_count();
  const long groups = (n + W - 1) / W;
  long active = 0, total = 0;
  bool stopped = false;
#pragma omp parallel for schedule(dynamic, 1) num_threads(out.threads_used) reduction(|| : stopped) \
    reduction(+ : active, total)
  for (long g = 0; g < groups; ++g) {
    if (spec.cancel && spec.cancel->load(std::memory_order_relaxed)) {
      stopped = true;  // the group's instances keep blank_result's not_run
      continue;
    }
    const long first = g * W, count = std::min<long>(W, n - first);
    const auto params = Typed::params(spec, first, count);
    typename Typed::Summary summaries[W];
    LockstepCounters counters;
    Lockstep<Model, W>::run(params.data(), count, spec.settings, options, summaries, &counters);
    for (long k = 0; k < count; ++k) Typed::store(summaries[k], first + k, out);
    active += counters.active_lane_iterations;
    total += counters.lane_iterations;
    if (spec.progress) spec.progress->fetch_add(count, std::memory_order_relaxed);
  }
  cancelled = stopped;
  out.active_lane_iterations = active;
  out.lane_iterations = total;
}

// The lanes the batch runs with, 1 being the scalar path (the dispatcher's
// choice of translation unit).
inline int batch_lanes(const BatchSpec& spec) {
  int lanes = 1;
  const RunOptions options = run_options(spec);
  with_batch_combination(spec, [&](auto combination) {
    lanes = lanes_for<typename decltype(combination)::Integrator>(spec, options);
  });
  return lanes;
}

// The batch with one integrator, on W lanes (W = 1: one instance per task).
template <class Integrator, int W>
BatchResult run_typed(const BatchSpec& spec) {
  using Typed = TypedBatch<Integrator>;
  BatchResult out = Typed::blank_result(spec);
  const long n = spec.instance_count();
#ifdef _OPENMP
  out.threads_used = spec.threads > 0 ? spec.threads : omp_get_max_threads();
#endif
  const auto t0 = std::chrono::steady_clock::now();
  RunOptions options = run_options(spec);
  // Ctrl-C reaches inside the instances on this backend (RunOptions::cancel;
  // out.cancelled below discards the batch).
  options.cancel = spec.cancel;
  bool cancelled = false;
  out.lanes_used = W;
  if constexpr (W > 1) {
    if constexpr (LockstepFor<Integrator>::value) run_lockstep<Integrator, W>(spec, options, out, cancelled);
    else throw std::logic_error("formulation " + spec.formulation + " has no lockstep lanes");
  } else {
    // One instance per task: each takes ~10 ms, so scheduling costs nothing
    // and small batches still use every core. The instance runs through the
    // same InstanceKernel as every other backend (one compilation of the run
    // loop: instance_kernel_entry), its samples in a buffer of its own
    // pre-filled with blank samples, as on the GPU.
    using Kernel = InstanceKernel<Integrator>;
    const auto base = Typed::base(spec);
    const long m = out.samples_per_instance;
#pragma omp parallel for schedule(dynamic, 1) num_threads(out.threads_used) reduction(|| : cancelled)
    for (long i = 0; i < n; ++i) {
      if (spec.cancel && spec.cancel->load(std::memory_order_relaxed)) {
        cancelled = true;  // the instance keeps blank_result's not_run
        continue;
      }
      const auto params = unpack_row(spec.model->parameters, spec.row(i), base);
      typename Typed::Summary summary;
      std::vector<typename Typed::SampleT> samples;
      if (m > 0) samples.assign(static_cast<size_t>(m), Typed::blank_sample());
      const Kernel kernel{&params, &summary, samples.data(), m, spec.settings, options, /*instance_stride=*/0,
                          /*sample_stride=*/1};
      kernel(0);
      Typed::store(summary, i, out);
      for (long k = 0; k < m; ++k) Typed::store(samples[k], i, k, out);
      if (spec.progress) spec.progress->fetch_add(1, std::memory_order_relaxed);
    }
  }
  // An instance stopped inside its step loop (RunOptions::cancel) leaves
  // the batch incomplete too.
  out.cancelled = cancelled || (spec.cancel && spec.cancel->load(std::memory_order_relaxed));
  collect_failed_indices(out);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// The batch of formulation Formulation on W lanes, for its (physics,
// friction law): only that formulation's integrators, on W lanes, are
// instantiated.
template <class Formulation, int W>
BatchResult run(const BatchSpec& spec) {
  BatchResult out;
  with_batch_combination(spec, [&](auto combination) {
    using Combination = decltype(combination);
    if constexpr (std::is_same<typename Combination::Formulation, Formulation>::value)
      out = run_typed<typename Combination::Integrator, W>(spec);
    else
      throw std::logic_error("CPU batch of formulation " + spec.formulation +
                             " dispatched to the translation unit of " + Formulation::name);
  });
  return out;
}

// The entry of the batch's InstanceKernel, compiled in this unit
// (instance_kernel_entry; Kokkos and Thrust's OpenMP system call it).
template <class Formulation>
HostKernelEntry kernel_entry(const BatchSpec& spec) {
  HostKernelEntry entry = nullptr;
  with_batch_combination(spec, [&](auto combination) {
    using Combination = decltype(combination);
    if constexpr (std::is_same<typename Combination::Formulation, Formulation>::value)
      entry = &call_host_kernel<InstanceKernel<typename Combination::Integrator>>;
    else
      throw std::logic_error("kernel entry of formulation " + spec.formulation +
                             " asked of the translation unit of " + Formulation::name);
  });
  return entry;
}

}  // namespace cpu_batch
}  // namespace hs
