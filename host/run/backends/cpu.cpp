// CPU backend: the kernel's run_instance over instances with OpenMP.
#include <chrono>
#include <cmath>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "host/run/batch.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "kernels/integrators/lockstep.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hs {

long BatchResult::failed() const {
  long n = 0;
  for (Status s : status) n += s != Status::ok;
  return n;
}

long BatchSpec::instance_count() const {
  const long p = model ? model->parameter_count() : 0;
  return p > 0 ? static_cast<long>(parameters.size()) / p : 0;
}

namespace {

// The lanes a batch runs with: 1 unless its integrator and run options have
// lanes (kernels/integrators/lockstep.hpp); automatic is 8.
template <class Integrator>
int lanes_for(const BatchSpec& spec, const RunOptions& options) {
  if (spec.lanes != 0 && spec.lanes != 1 && spec.lanes != 4 && spec.lanes != 8)
    throw std::invalid_argument("lanes: " + std::to_string(spec.lanes) + " is not one of 0 (automatic), 1, 4, 8");
  if constexpr (LockstepFor<Integrator>::value) {
    if (spec.lanes != 1 && lockstep_supported(spec.settings, options)) return spec.lanes == 0 ? 8 : spec.lanes;
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

}  // namespace

BatchResult run_batch_cpu(const BatchSpec& spec) {
  BatchResult out;
  with_batch_combination(spec, [&](auto combination) {
    using Integrator = typename decltype(combination)::Integrator;
    using Typed = TypedBatch<Integrator>;
    out = Typed::blank_result(spec);
    const long n = spec.instance_count();
#ifdef _OPENMP
    out.threads_used = spec.threads > 0 ? spec.threads : omp_get_max_threads();
#endif
    const auto t0 = std::chrono::steady_clock::now();
    const RunOptions options = run_options(spec);
    const auto base = Typed::base(*spec.model);
    bool cancelled = false;
    out.lanes_used = lanes_for<Integrator>(spec, options);
    if constexpr (LockstepFor<Integrator>::value) {
      if (out.lanes_used > 1) {
        if (out.lanes_used == 8) run_lockstep<Integrator, 8>(spec, options, out, cancelled);
        else run_lockstep<Integrator, 4>(spec, options, out, cancelled);
        out.cancelled = cancelled;
        collect_failed_indices(out);
        out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return;
      }
    }
    // One instance per task: each takes ~10 ms, so scheduling costs nothing
    // and small batches still use every core. Results go straight into the
    // flat rows (no typed copy of the batch).
#pragma omp parallel for schedule(dynamic, 1) num_threads(out.threads_used) reduction(|| : cancelled)
    for (long i = 0; i < n; ++i) {
      if (spec.cancel && spec.cancel->load(std::memory_order_relaxed)) {
        cancelled = true;  // the instance keeps blank_result's not_run
        continue;
      }
      const auto params = unpack_row(spec.model->parameters, spec.row(i), base);
      const long m = out.samples_per_instance;
      const auto summary = run_instance<Integrator>(params, spec.settings, options, [&](long k, const auto& sample) {
        if (k < m) Typed::store(sample, i, k, out);
      });
      Typed::store(summary, i, out);
      if (spec.progress) spec.progress->fetch_add(1, std::memory_order_relaxed);
    }
    out.cancelled = cancelled;
    collect_failed_indices(out);
    out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  return out;
}

}  // namespace hs
