// CPU backend: the kernel's run_instance over instances with OpenMP.
#include <chrono>
#include <cmath>
#include <limits>

#include "host/batch.hpp"
#include "host/backends/instance_kernel.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hs {

bool parse_friction_model(const std::string& name, FrictionModel& out) {
  if (name == "brown-mcphee") { out = FrictionModel::brown_mcphee; return true; }
  if (name == "bengisu-akay") { out = FrictionModel::bengisu_akay; return true; }
  if (name == "none") { out = FrictionModel::none; return true; }
  return false;
}
bool parse_formulation(const std::string& name, Formulation& out) {
  if (name == "double-step") { out = Formulation::double_step; return true; }
  return false;
}
std::string friction_model_name(FrictionModel m) {
  switch (m) {
    case FrictionModel::brown_mcphee: return "brown-mcphee";
    case FrictionModel::bengisu_akay: return "bengisu-akay";
    case FrictionModel::none: return "none";
  }
  return "?";
}
std::string formulation_name(Formulation) { return "double-step"; }

long BatchResult::failed() const {
  long n = 0;
  for (const auto& s : summaries) n += s.status != Status::ok;
  return n;
}

BatchResult run_batch_cpu(const BatchSpec& spec) {
  BatchResult out = blank_result(spec);
  const long n = static_cast<long>(spec.instances.size());
#ifdef _OPENMP
  out.threads_used = spec.threads > 0 ? spec.threads : omp_get_max_threads();
#endif
  const auto t0 = std::chrono::steady_clock::now();
  bool cancelled = false;
  with_friction(spec.friction, [&](auto friction) {
    const InstanceKernel<decltype(friction)> kernel{spec.instances.data(), out.summaries.data(), out.trajectories.data(),
                                                    out.samples_per_instance, spec.settings, run_options(spec),
                                                    out.samples_per_instance, 1};
    // One instance per task: each takes ~10 ms, so scheduling costs nothing
    // and small batches still use every core.
#pragma omp parallel for schedule(dynamic, 1) num_threads(out.threads_used) reduction(|| : cancelled)
    for (long i = 0; i < n; ++i) {
      if (spec.cancel && spec.cancel->load(std::memory_order_relaxed)) {
        cancelled = true;  // the instance keeps blank_result's not_run
        continue;
      }
      kernel(i);
      if (spec.progress) spec.progress->fetch_add(1, std::memory_order_relaxed);
    }
  });
  out.cancelled = cancelled;
  collect_failed_indices(out);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace hs
