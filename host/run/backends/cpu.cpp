// CPU backend: the kernel's run_instance over instances with OpenMP.
#include <chrono>
#include <cmath>
#include <limits>

#include "host/run/batch.hpp"
#include "host/run/backends/instance_kernel.hpp"

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
