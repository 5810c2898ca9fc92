// The CUDA backend's host logic, written on Thrust's device-system
// abstraction so that the same source runs in two builds:
//   - nvcc (host/run/backends/cuda.cu): Thrust's CUDA device system, device memory,
//     the instances launched as the run_instances kernel, one thread each;
//   - g++ (host/run/backends/device_batch_omp.cpp, THRUST_DEVICE_SYSTEM =
//     THRUST_DEVICE_SYSTEM_OMP): Thrust's OpenMP device system, where "device"
//     memory is host memory and the launch is a thrust::for_each. That build
//     exercises this file's logic in CI on machines without a GPU; it is the
//     backend's code path, not a GPU test.
// What lives here: Thrust's device system as an execution space of the one
// host path (host/run/backends/space_batch.hpp, which slices the batch to
// what fits in device memory, fills the buffers, lays the trajectories out
// sample-major -- sample k of all instances contiguous, so that a warp's
// threads write neighbouring addresses -- and copies back), the dispatch to
// the formulation's translation unit, and seed 003's per-thread kernels.
// What the including file supplies: launch(kernel, count), which runs
// kernel(i) for i in [0, count) and returns when all are done, and the bytes
// of device memory the batch may use.
#pragma once
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "host/run/backends/instance_kernel.hpp"
#include "host/run/backends/space_batch.hpp"
#include "host/run/stability_map.hpp"
#include "kernels/linearize/constrained_per_thread.hpp"

namespace hs {
namespace device_batch {

// Thrust's device system as the one host path's execution space
// (space_batch.hpp): device vectors, launch(kernel, count) supplied by the
// including file, slices within `device_bytes`, sample-major trajectories.
template <class Launch>
struct ThrustSpace {
  template <class T>
  using Buffer = thrust::device_vector<T>;
  static constexpr bool instance_major = false;  // sample k of all instances contiguous: coalesced writes
  static constexpr bool host_control = false;    // a device cannot read the host's cancel flag mid-launch

  double device_bytes;
  Launch launch_on_device;

  int threads() const { return 0; }
  double memory_bytes() const { return device_bytes; }
  template <class T>
  Buffer<T> upload(const std::vector<T>& host) const {
    return Buffer<T>(host.begin(), host.end());
  }
  template <class T>
  Buffer<T> filled(long n, const T& value) const {
    return Buffer<T>(static_cast<size_t>(n), value);
  }
  template <class T>
  static T* data(Buffer<T>& b) {
    return thrust::raw_pointer_cast(b.data());
  }
  template <class T>
  void download(Buffer<T>& b, std::vector<T>& host) const {
    host.resize(b.size());
    thrust::copy(b.begin(), b.end(), host.begin());
  }
  template <class Kernel, class Weight>
  void launch(const Kernel& kernel, long count, Weight&&) {
    launch_on_device(kernel, count);
  }
};
template <class Launch>
ThrustSpace<std::decay_t<Launch>> thrust_space(double device_bytes, Launch&& launch) {
  return ThrustSpace<std::decay_t<Launch>>{device_bytes, std::forward<Launch>(launch)};
}

// Every formulation (for run's template argument).
struct AnyFormulation {};

// The batch on the device system, for its (physics, friction, formulation).
// With Only = one formulation, only that formulation's kernels are
// instantiated (the CUDA build compiles one translation unit per
// formulation, in parallel); with Parts > 1, only those of the physics whose
// catalog position is Part modulo Parts (a formulation's kernels split over
// Parts units: catalog_position). Another combination is a logic error there.
template <class Only = AnyFormulation, int Part = 0, int Parts = 1, class Launch>
BatchResult run(const BatchSpec& spec, double device_bytes, Launch&& launch) {
  static_assert(Parts >= 1 && Part >= 0 && Part < Parts, "a part of the catalog");
  BatchResult out;
  with_batch_combination(spec, [&](auto combination) {
    using Combination = decltype(combination);
    constexpr bool selected =
        (std::is_same<Only, AnyFormulation>::value || std::is_same<Only, typename Combination::Formulation>::value) &&
        Combination::position % Parts == Part;
    if constexpr (Combination::on_device && selected) {
      auto space = thrust_space(device_bytes, launch);
      out = space_batch::run_instances<typename Combination::Integrator>(spec, space);
    }
    else if constexpr (Combination::on_device)
      throw std::logic_error("device batch of formulation " + spec.formulation + " dispatched to another translation unit");
    else
      throw std::invalid_argument("formulation " + spec.formulation + " of model " + spec.model->name +
                                  " is not built for the CUDA backend (" + spec.model->off_device_reason(spec.formulation) +
                                  "); use --backend cpu or kokkos");
  });
  return out;
}

// ---- stability maps on the same contract ---------------------------------------
// One point per index: StabilityKernel<System> (host/run/stability_map.hpp), the
// same kernel function as the CPU and Kokkos paths.

// Seed 003's small constrained systems, one point per thread by MCS
// (kernels/linearize/constrained_per_thread.hpp). The caller has checked that
// the method is mcs and that every point fits (host/run/stability_map.cpp);
// a point that does not is flagged invalid_parameters by the kernel.
template <class Model>
struct ConstrainedMcsKernel {
  const typename Model::Params* params;
  PerThreadConstrainedSettings constrained;
  StabilitySettings settings;
  StabilityRecord* points;
  HS_HD void operator()(long i) const { points[i] = constrained_mcs_point<Model>(params[i], constrained, settings); }
};

template <class Launch>
std::vector<StabilityPoint> run_stability(const StabilityBatch& batch, double device_bytes, Launch&& launch) {
  auto space = thrust_space(device_bytes, launch);
  std::vector<StabilityPoint> out;
  const bool constrained = with_per_thread_constrained_system(batch.model->name, [&](auto model) {
    using Model = decltype(model);
    out = space_batch::run_points<typename Model::Params>(
        batch, space, [&](const typename Model::Params* params, StabilityRecord* points) {
          return ConstrainedMcsKernel<Model>{params, PerThreadConstrainedSettings{}, batch.settings, points};
        });
  });
  if (constrained) return out;
  with_batch_combination(batch, [&](auto combination) {
    using System = typename decltype(combination)::System;
    out = space_batch::run_points<typename System::Params>(
        batch, space, [&](const typename System::Params* params, StabilityRecord* points) {
          return StabilityKernel<System>{params, batch.settings, points};
        });
  });
  return out;
}

}  // namespace device_batch
}  // namespace hs
