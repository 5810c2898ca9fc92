// The CPU backend (OpenMP): the one host path (space_batch.hpp) on the CPU's
// space (cpu_space.hpp), over instances or lockstep groups of W instances in
// SIMD lanes (LockstepLanes, its lanes policy). Included by one translation
// unit per formulation (cpu_double_step.cpp, cpu_penalty.cpp,
// cpu_index1_baumgarte.cpp) and, for the lockstep lanes of the double step and
// the penalty formulation, one per formulation and lane width
// (cpu_double_step_lanes4.cpp, ..., cpu_penalty_lanes8.cpp),
// each instantiating only its own integrators, so that the build compiles
// them in parallel: as one file it was the longest compilation of the build
// (18 min and 13 GB at -O1 with the sanitizers), alone on one core at the end
// of CI's two-core builds. cpu.cpp dispatches a batch to its unit by
// formulation name and lane width.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "host/run/backends/cpu_space.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "host/run/backends/space_batch.hpp"
#include "host/run/batch.hpp"
#include "kernels/integrators/lockstep.hpp"

namespace hs {
namespace cpu_batch {

// The lanes a batch runs with: 1 unless its integrator and run options have
// lanes (kernels/integrators/lockstep.hpp); automatic is 8.
template <class Integrator>
int lanes_for(const BatchSpec& spec, const RunOptions& options) {
  const int W = requested_lanes(spec.lanes);
  if constexpr (LockstepFor<Integrator>::value) {
    if (W > 1 && lockstep_supported(spec.settings, options)) return W;
  }
  return 1;
}

// Lockstep groups of W instances, one launch item each (space_batch.hpp's
// lanes policy): a group of the ~10 ms instances per task keeps both the
// cores and the lanes busy on small batches. Same summaries as one instance
// at a time, bit for bit.
template <class Integrator, int W>
struct LockstepLanes {
  static constexpr int width = W;
  using Counters = LockstepCounters;
  using Params = typename Integrator::Params;
  using Summary = SummaryOf<Integrator>;
  using SampleT = SampleOf<Integrator>;
  struct Kernel {
    const Params* params;
    Summary* summaries;
    Counters* counters;
    long count;
    IntegratorSettings settings;
    RunOptions options;
    // Sample k of instance i at trajectories[i * instance_stride + k * sample_stride]
    // (InstanceKernel's layout; null when samples == 0).
    SampleT* trajectories;
    long samples, instance_stride, sample_stride;
    void operator()(long g) const {
      const long first = g * W;
      SampleT* traj = trajectories;
      const long m = samples, is = instance_stride, ks = sample_stride;
      auto record = [traj, m, is, ks, first](long i, long k, const SampleT& s) {
        if (k < m) traj[(first + i) * is + k * ks] = s;
      };
      Lockstep<Integrator, W>::run(params + first, std::min<long>(W, count - first), settings, options,
                                   summaries + first, counters + g, record);
    }
  };
  static Kernel kernel(const Params* params, Summary* summaries, Counters* counters, long count,
                       const IntegratorSettings& settings, const RunOptions& options, SampleT* trajectories,
                       long samples, long instance_stride, long sample_stride) {
    return Kernel{params, summaries, counters, count, settings, options, trajectories, samples, instance_stride,
                  sample_stride};
  }
};

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

// The batch with one integrator, on W lanes (W = 1: one instance per task),
// through the one host path (space_batch.hpp) on the CPU's space. Each
// instance runs through the same InstanceKernel as every other backend (one
// compilation of the run loop: instance_kernel_entry).
template <class Integrator, int W>
BatchResult run_typed(const BatchSpec& spec) {
  CpuSpace space(spec.threads, spec.cancel, spec.progress, spec.cpu_slice_bytes);
  if constexpr (W > 1) {
    if constexpr (LockstepFor<Integrator>::value)
      return space_batch::run_instances<Integrator, LockstepLanes<Integrator, W>>(spec, space);
    else
      throw std::logic_error("formulation " + spec.formulation + " has no lockstep lanes");
  } else {
    return space_batch::run_instances<Integrator>(spec, space);
  }
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
