// One host path for every backend (docs/code-layout.md §5): a batch of
// instances, or a stability map's points, run over an execution space. The
// CPU (OpenMP threads, cpu_batch.hpp), Thrust's device systems (CUDA, or
// OpenMP in CI: device_batch.hpp) and Kokkos (kokkos.cpp) differ only in the
// Space they hand to run_instances / run_points -- where buffers live, how a
// kernel is launched over [0, count), how much memory a slice may take --
// as Kokkos itself separates one functor from its execution space and views.
// Everything else happens here, once: slicing the batch to the space's
// memory, the parameters of a slice into the space, blank trajectories for
// samples a failed instance never records, the trajectory layout, the copies
// back into BatchResult's rows, progress, cancellation, failed indices.
//
// A Space provides:
//   template <class T> using Buffer;                    memory the kernel reads and writes
//   Buffer<T> upload(std::vector<T>) / filled(n, value) / T* data(Buffer<T>&)
//   void download(Buffer<T>&, std::vector<T>&)        the buffer's values to the host (it may move them)
//   void launch(const Kernel& k, long count, Weight w)  k(i) for i in [0, count), returns when all are done;
//                                                        w(i) is the instances item i covers (progress)
//   double memory_bytes() const                          what one slice's buffers may take
//   int threads() const                                  BatchResult::threads_used
//   static constexpr bool instance_major                 trajectory layout (else sample-major: coalesced on a GPU)
//   static constexpr bool host_control                   launch checks BatchSpec::cancel before each item and
//                                                        counts progress per item, and an instance may read the
//                                                        host's cancel flag inside its step loop
#pragma once
#include <algorithm>
#include <chrono>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "host/run/backends/instance_kernel.hpp"
#include "host/run/stability_map.hpp"

namespace hs {
namespace space_batch {

// Instances per slice: parameters, summary and trajectory each within
// `bytes` (at least one instance; a multiple of `group` unless it is all).
inline long slice_size(long n, long samples, double bytes, double params_bytes, double summary_bytes,
                       double sample_bytes, long group = 1) {
  const double per_instance = params_bytes + summary_bytes + static_cast<double>(samples) * sample_bytes;
  long slice = std::max<long>(1, std::min<long>(n, static_cast<long>(bytes / per_instance)));
  if (slice < n && group > 1) slice = std::max(group, slice / group * group);
  return slice;
}
template <class Integrator>
long slice_size(long n, long samples, double bytes, long group = 1) {
  using Typed = TypedBatch<Integrator>;
  return slice_size(n, samples, bytes, sizeof(typename Typed::Params), sizeof(typename Typed::Summary),
                    sizeof(typename Typed::SampleT), group);
}

// Stability points per thread in one slice of a space with host buffers
// (run_points): ~10 ms of work per thread, buffers of a few MB.
constexpr long kHostPointsPerThread = 4096;

// The progress weight of a launch whose items are one instance or point each.
struct OnePerItem {
  long operator()(long) const { return 1; }
};

// One instance per launch item: every model, formulation and space.
struct OneInstance {
  static constexpr int width = 1;
};
// Lanes policies with width W > 1 (the CPU's lockstep lanes: cpu_batch.hpp
// LockstepLanes) provide `Counters` and kernel(params, summaries, counters,
// count, settings, options, trajectories, samples, instance_stride,
// sample_stride), whose item g runs instances [g W, g W + W) of the slice in
// lockstep, records their samples in InstanceKernel's layout and counts its
// lanes' iterations into counters[g].

// The summary columns the host derives from the kernel's (a model file's
// named points at the run's end, ModelDescriptor::derive_summary), for the
// instances [first, first + count) whose kernel columns are stored.
inline void derive_summary_columns(const BatchSpec& spec, long first, long count, BatchResult& out) {
  const ModelDescriptor& model = *spec.model;
  if (model.derived_summary_count == 0 || !model.derive_summary) return;
  const long kernel_width = model.kernel_summary_width();
  for (long i = first; i < first + count; ++i) {
    double* row = out.summaries.data() + i * out.summary_width;
    model.derive_summary(model, spec.row(i), row, row + kernel_width);
  }
}

// The batch on `space`, Lanes::width instances per launch item.
template <class Integrator, class Lanes = OneInstance, class Space>
BatchResult run_instances(const BatchSpec& spec, Space& space) {
  using Typed = TypedBatch<Integrator>;
  using Summary = typename Typed::Summary;
  using SampleT = typename Typed::SampleT;
  constexpr int W = Lanes::width;
  BatchResult out = Typed::blank_result(spec);
  out.threads_used = space.threads();
  out.lanes_used = W;
  const long n = spec.instance_count();
  const long m = out.samples_per_instance;
  if (n == 0) return out;
  const auto t0 = std::chrono::steady_clock::now();

  RunOptions options = run_options(spec);
  auto reference = space.upload(spec.reference);
  if (options.reference) options.reference = space.data(reference);
  // Ctrl-C reaches inside the instances where they can read the host's flag.
  if constexpr (Space::host_control) options.cancel = spec.cancel;
  const auto cancelled = [&spec] { return spec.cancel && spec.cancel->load(std::memory_order_relaxed); };

  const Summary unstarted = unstarted_summary<Typed::nq, Typed::np, Typed::na, typename Typed::Report>(Status::not_run);
  const long slice = slice_size<Integrator>(n, m, space.memory_bytes(), W);
  std::vector<Summary> summaries_here;
  std::vector<SampleT> samples_here;
  long active = 0, total = 0;
  for (long first = 0; first < n; first += slice) {
    if (cancelled()) break;
    const long count = std::min(slice, n - first);
    auto params = space.upload(Typed::params(spec, first, count));
    // An instance a cancellation skips keeps its unstarted summary (not_run);
    // samples a failed instance never records stay blank.
    auto summaries = space.filled(count, unstarted);
    auto trajectories = space.filled(count * m, Typed::blank_sample());
    // Sample k of instance i: instance-major (each thread its own rows) or
    // sample-major (a warp's threads write neighbouring addresses).
    const long instance_stride = Space::instance_major ? m : 1, sample_stride = Space::instance_major ? 1 : count;
    SampleT* const samples_out = m > 0 ? space.data(trajectories) : nullptr;
    if constexpr (W > 1) {
      const long groups = (count + W - 1) / W;
      using Counters = typename Lanes::Counters;
      auto counters = space.filled(groups, Counters{});
      space.launch(Lanes::kernel(space.data(params), space.data(summaries), space.data(counters), count, spec.settings,
                                 options, samples_out, m, instance_stride, sample_stride),
                   groups, [count](long g) { return std::min<long>(W, count - g * W); });
      std::vector<Counters> counted;
      space.download(counters, counted);
      for (const Counters& c : counted) {
        active += c.active_lane_iterations;
        total += c.lane_iterations;
      }
    } else {
      const InstanceKernel<Integrator> kernel{space.data(params), space.data(summaries), samples_out, m, spec.settings,
                                              options, instance_stride, sample_stride};
      space.launch(kernel, count, OnePerItem{});
    }
    if (m > 0) {
      space.download(trajectories, samples_here);
      for (long i = 0; i < count; ++i)
        for (long k = 0; k < m; ++k)
          Typed::store(samples_here[i * instance_stride + k * sample_stride], first + i, k, out);
    }
    space.download(summaries, summaries_here);
    for (long i = 0; i < count; ++i) Typed::store(summaries_here[i], first + i, out);
    derive_summary_columns(spec, first, count, out);
    if (!Space::host_control && spec.progress) spec.progress->fetch_add(count, std::memory_order_relaxed);
  }
  out.active_lane_iterations = active;
  out.lane_iterations = total;
  // Skipped instances, or an instance stopped inside its step loop, leave the batch incomplete.
  out.cancelled = cancelled();
  collect_failed_indices(out);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// How many points a stability kernel computes per launch item: its `width`
// (the CPU's points in lockstep lanes, host/run/backends/cpu_stability_lanes.cpp:
// run_group(first, count)), else one (operator()(j)).
template <class Kernel, class = void>
struct PointsPerItem : std::integral_constant<int, 1> {};
template <class Kernel>
struct PointsPerItem<Kernel, std::void_t<decltype(Kernel::width)>> : std::integral_constant<int, Kernel::width> {};

// A stability map's points on `space`: make_kernel(params, records) is the
// kernel of one slice (StabilityKernel, seed 003's per-thread MCS, or W points
// per item in lockstep lanes on a space with host buffers), Params its
// parameter type. The batch's inadmissible points are not computed; they
// keep blank_stability_point(not_run) for the caller to flag.
template <class Params, class Space, class MakeKernel>
std::vector<StabilityPoint> run_points(const StabilityBatch& batch, Space& space, MakeKernel&& make_kernel) {
  using Kernel = std::decay_t<decltype(make_kernel(static_cast<Params*>(nullptr), static_cast<StabilityRecord*>(nullptr)))>;
  constexpr int W = PointsPerItem<Kernel>::value;
  const long n = batch.point_count(), P = batch.model->parameter_count();
  std::vector<StabilityPoint> out(static_cast<size_t>(n), blank_stability_point(Status::not_run));
  // The admissible points, packed: the kernel's index j is point index[j].
  std::vector<long> index;
  index.reserve(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i)
    if (batch.admissible(i)) index.push_back(i);
  const long admissible = static_cast<long>(index.size());
  long slice = slice_size(admissible, 0, space.memory_bytes(), sizeof(Params), sizeof(StabilityRecord), 0);
  // A point takes microseconds on a CPU thread, so the host's share of a
  // slice counts there. A space whose buffers are host vectors (the CPU's)
  // runs slices of kHostPointsPerThread per thread through one reused
  // parameter buffer, each item unpacking its own row on its thread and
  // writing its record straight into `out` where the slice's points are
  // consecutive. Before, each slice of 64 MiB was gathered, unpacked,
  // zeroed, page-faulted and copied back on one thread: ~15 % of the planar
  // four-bar map's samples, and two threads held to 1.5x one
  // (docs/performance.md §3). A device space
  // keeps large slices (a GPU wants its points in flight) and uploads them.
  constexpr bool host_buffers = std::is_same<typename Space::template Buffer<Params>, std::vector<Params>>::value &&
                                std::is_same<typename Space::template Buffer<StabilityRecord>,
                                             std::vector<StabilityRecord>>::value;
  std::vector<StabilityRecord> here;
  if constexpr (host_buffers) {
    slice = std::min<long>(slice, kHostPointsPerThread * std::max(1, space.threads()));
    const Params base = default_params<Params>(*batch.model, batch.friction);
    std::vector<Params> params(static_cast<size_t>(std::min(slice, admissible)));
    for (long first = 0; first < admissible; first += slice) {
      const long count = std::min(slice, admissible - first);
      const bool consecutive = index[first + count - 1] - index[first] == count - 1;
      if (!consecutive) here.assign(static_cast<size_t>(count), blank_stability_point(Status::not_run));
      StabilityRecord* records = consecutive ? out.data() + index[first] : here.data();
      const auto kernel = make_kernel(params.data(), records);
      const long* slice_index = index.data() + first;
      // Item g: the points [g W, g W + W) of the slice (one point for W = 1).
      space.launch(
          [&](long g) {
            const long j0 = g * W, j1 = std::min<long>(count, j0 + W);
            for (long j = j0; j < j1; ++j)
              params[j] = unpack_row(batch.model->parameters, batch.parameters.data() + slice_index[j] * P, base);
            if constexpr (W > 1)
              kernel.run_group(j0, static_cast<int>(j1 - j0));
            else
              kernel(g);
          },
          (count + W - 1) / W, [count](long g) { return std::min<long>(W, count - g * W); });
      if (!consecutive)
        for (long j = 0; j < count; ++j) out[slice_index[j]] = here[j];
    }
  } else {
    static_assert(W == 1, "points in lockstep lanes run on a space with host buffers (the CPU's)");
    std::vector<double> rows;
    for (long first = 0; first < admissible; first += slice) {
      const long count = std::min(slice, admissible - first);
      rows.resize(static_cast<size_t>(count * P));
      for (long j = 0; j < count; ++j)
        std::copy_n(batch.parameters.data() + index[first + j] * P, P, rows.data() + j * P);
      auto params = space.upload(params_of_rows<Params>(*batch.model, batch.friction, rows.data(), count));
      auto records = space.filled(count, blank_stability_point(Status::not_run));
      space.launch(make_kernel(space.data(params), space.data(records)), count, OnePerItem{});
      space.download(records, here);
      for (long j = 0; j < count; ++j) out[index[first + j]] = here[j];
    }
  }
  return out;
}

}  // namespace space_batch
}  // namespace hs
