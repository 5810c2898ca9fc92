// The CUDA backend's host logic, written on Thrust's device-system
// abstraction so that the same source runs in two builds:
//   - nvcc (host/run/backends/cuda.cu): Thrust's CUDA device system, device memory,
//     the instances launched as the run_instances kernel, one thread each;
//   - g++ (host/run/backends/device_batch_omp.cpp, THRUST_DEVICE_SYSTEM =
//     THRUST_DEVICE_SYSTEM_OMP): Thrust's OpenMP device system, where "device"
//     memory is host memory and the launch is a thrust::for_each. That build
//     exercises this file's logic in CI on machines without a GPU; it is the
//     backend's code path, not a GPU test.
// What lives here, and so runs in both: slicing the batch to what fits in
// device memory, the device buffers, blank trajectories for samples a failed
// instance never records, the sample-major trajectory layout (sample k of all
// instances contiguous, so that a warp's threads write neighbouring addresses)
// and its transposition to the host's instance-major layout, the count and
// compaction of the failed instances on the device, the copies back.
// Stability maps run on the same contract (device_batch::run_stability): slices
// of points, device buffers, one point per index, the copy back.
// What the including file supplies: launch(kernel, count), which runs
// kernel(i) for i in [0, count) and returns when all are done, and the bytes
// of device memory the batch may use.
#pragma once
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "host/run/backends/instance_kernel.hpp"
#include "host/run/stability_map.hpp"
#include "kernels/linearize/constrained_per_thread.hpp"

namespace hs {
namespace device_batch {

template <class Summary>
struct NotOk {
  const Summary* summaries;
  HS_HD bool operator()(long i) const { return summaries[i].status != Status::ok; }
};

// Instances per slice: parameters, summary, trajectory and a failed index
// each, within `device_bytes` (at least one instance), for a kernel whose
// parameters, summary and sample take the given bytes.
inline long slice_size(long n, long samples, double device_bytes, double params_bytes, double summary_bytes,
                       double sample_bytes) {
  const double per_instance = params_bytes + summary_bytes + static_cast<double>(samples) * sample_bytes + sizeof(long);
  return std::max<long>(1, std::min<long>(n, static_cast<long>(device_bytes / per_instance)));
}
template <class Integrator>
long slice_size(long n, long samples, double device_bytes) {
  using Typed = TypedBatch<Integrator>;
  return slice_size(n, samples, device_bytes, sizeof(typename Typed::Params), sizeof(typename Typed::Summary),
                    sizeof(typename Typed::SampleT));
}

// Sample-major device trajectories (sample k of instance i at k * count + i)
// into the host's instance-major rows of instances [first, first + count).
template <class Typed>
void transpose_to_instance_major(const std::vector<typename Typed::SampleT>& sample_major, long first, long count,
                                 long samples, BatchResult& out) {
  for (long i = 0; i < count; ++i)
    for (long k = 0; k < samples; ++k) Typed::store(sample_major[k * count + i], first + i, k, out);
}

template <class Integrator, class Launch>
BatchResult run_typed(const BatchSpec& spec, double device_bytes, Launch&& launch) {
  using Typed = TypedBatch<Integrator>;
  using Summary = typename Typed::Summary;
  using SampleT = typename Typed::SampleT;
  BatchResult out = Typed::blank_result(spec);
  const long n = spec.instance_count();
  const long m = out.samples_per_instance;
  out.threads_used = 0;
  if (n == 0) return out;
  const auto t0 = std::chrono::steady_clock::now();
  const long slice = slice_size<Integrator>(n, m, device_bytes);

  const thrust::device_vector<double> reference(spec.reference.begin(), spec.reference.end());
  RunOptions opt = run_options(spec);
  if (opt.reference) opt.reference = thrust::raw_pointer_cast(reference.data());

  std::vector<SampleT> sample_major(static_cast<size_t>(slice * m));
  std::vector<Summary> summaries_here(static_cast<size_t>(slice));
  for (long first = 0; first < n; first += slice) {
    if (spec.cancel && spec.cancel->load()) { out.cancelled = true; break; }
    const long count = std::min(slice, n - first);
    const auto params_here = Typed::params(spec, first, count);
    const thrust::device_vector<typename Typed::Params> params(params_here.begin(), params_here.end());
    thrust::device_vector<Summary> summaries(static_cast<size_t>(count));
    // Samples a failed instance never records stay blank, as on the CPU.
    thrust::device_vector<SampleT> trajectories(static_cast<size_t>(count * m), Typed::blank_sample());
    const InstanceKernel<Integrator> kernel{thrust::raw_pointer_cast(params.data()),
                                            thrust::raw_pointer_cast(summaries.data()),
                                            thrust::raw_pointer_cast(trajectories.data()),
                                            m,
                                            spec.settings,
                                            opt,
                                            /*instance_stride=*/1,
                                            /*sample_stride=*/count};
    launch(kernel, count);

    // Batch reduction and compaction of the failed instances on the device.
    const NotOk<Summary> not_ok{thrust::raw_pointer_cast(summaries.data())};
    const thrust::counting_iterator<long> begin(0), end(count);
    const long failed = thrust::count_if(thrust::device, begin, end, not_ok);
    if (failed > 0) {
      thrust::device_vector<long> failed_on_device(static_cast<size_t>(failed));
      thrust::copy_if(thrust::device, begin, end, failed_on_device.begin(), not_ok);
      std::vector<long> failed_here(static_cast<size_t>(failed));
      thrust::copy(failed_on_device.begin(), failed_on_device.end(), failed_here.begin());
      for (long i : failed_here) out.failed_indices.push_back(first + i);
    }

    thrust::copy(summaries.begin(), summaries.end(), summaries_here.begin());
    for (long i = 0; i < count; ++i) Typed::store(summaries_here[i], first + i, out);
    if (m > 0) {
      thrust::copy(trajectories.begin(), trajectories.end(), sample_major.begin());
      transpose_to_instance_major<Typed>(sample_major, first, count, m, out);
    }
    if (spec.progress) spec.progress->fetch_add(count);
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
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
    if constexpr (Combination::on_device && selected)
      out = run_typed<typename Combination::Integrator>(spec, device_bytes, launch);
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

// Points per slice: parameters and a result each, within `device_bytes`.
inline long stability_slice_size(long n, double device_bytes, double params_bytes) {
  return std::max<long>(1, std::min<long>(n, static_cast<long>(device_bytes / (params_bytes + sizeof(StabilityRecord)))));
}

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

// The points of a map in slices that fit `device_bytes`: each slice's
// parameters to the device, make_kernel(params, points) launched over it,
// its records back into out.
template <class Params, class MakeKernel, class Launch>
void run_point_slices(const StabilityBatch& batch, double device_bytes, MakeKernel&& make_kernel, Launch&& launch,
                      std::vector<StabilityPoint>& out) {
  const long n = batch.point_count();
  const long slice = stability_slice_size(n, device_bytes, sizeof(Params));
  const long P = batch.model->parameter_count();
  for (long first = 0; first < n; first += slice) {
    const long count = std::min(slice, n - first);
    const auto here = params_of_rows<Params>(*batch.model, batch.friction, batch.parameters.data() + first * P, count);
    const thrust::device_vector<Params> params(here.begin(), here.end());
    thrust::device_vector<StabilityRecord> points(static_cast<size_t>(count));
    launch(make_kernel(thrust::raw_pointer_cast(params.data()), thrust::raw_pointer_cast(points.data())), count);
    thrust::copy(points.begin(), points.end(), out.begin() + first);
  }
}

template <class Launch>
std::vector<StabilityPoint> run_stability(const StabilityBatch& batch, double device_bytes, Launch&& launch) {
  const long n = batch.point_count();
  std::vector<StabilityPoint> out(static_cast<size_t>(n), blank_stability_point(Status::not_run));
  if (n == 0) return out;
  const bool constrained = with_per_thread_constrained_system(batch.model->name, [&](auto model) {
    using Model = decltype(model);
    run_point_slices<typename Model::Params>(
        batch, device_bytes,
        [&](const typename Model::Params* params, StabilityRecord* points) {
          return ConstrainedMcsKernel<Model>{params, PerThreadConstrainedSettings{}, batch.settings, points};
        },
        launch, out);
  });
  if (constrained) return out;
  with_batch_combination(batch, [&](auto combination) {
    using System = typename decltype(combination)::System;
    run_point_slices<typename System::Params>(
        batch, device_bytes,
        [&](const typename System::Params* params, StabilityRecord* points) {
          return StabilityKernel<System>{params, batch.settings, points};
        },
        launch, out);
  });
  return out;
}

}  // namespace device_batch
}  // namespace hs
