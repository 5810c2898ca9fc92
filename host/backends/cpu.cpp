// CPU backend: the kernel's run_instance over instances with OpenMP.
#include <chrono>
#include <cmath>
#include <limits>

#include "host/batch.hpp"
#include "kernels/integrators/double_step_trapezoidal.hpp"

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

namespace {

template <class Friction>
void run_all(const BatchSpec& spec, BatchResult& out) {
  using Integrator = DoubleStepTrapezoidal<HydraulicFourBar<Friction>>;
  const long n = static_cast<long>(spec.instances.size());
  const long m = out.samples_per_instance;
  // One instance per task: each takes ~10 ms, so scheduling costs nothing
  // and small batches still use every core.
  RunOptions opt;
  opt.stride = spec.trajectory_stride;
  opt.settling_rate = spec.settling_rate;
  const long n_steps = static_cast<long>(spec.settings.duration / spec.settings.dt + 0.5);
  if (static_cast<long>(spec.reference.size()) == n_steps + 1) opt.reference = spec.reference.data();
  bool cancelled = false;
#pragma omp parallel for schedule(dynamic, 1) num_threads(out.threads_used) reduction(|| : cancelled)
  for (long i = 0; i < n; ++i) {
    if (spec.cancel && spec.cancel->load(std::memory_order_relaxed)) {
      out.summaries[i].status = Status::not_run;
      cancelled = true;
      continue;
    }
    FourBarSample* traj = m > 0 ? out.trajectories.data() + i * m : nullptr;
    out.summaries[i] = run_instance<Integrator>(spec.instances[i], spec.settings, opt,
                                                [&](long k, const FourBarSample& s) { if (k < m) traj[k] = s; });
    if (spec.progress) spec.progress->fetch_add(1, std::memory_order_relaxed);
  }
  out.cancelled = cancelled;
}

}  // namespace

BatchResult run_batch_cpu(const BatchSpec& spec) {
  BatchResult out;
  const long n = static_cast<long>(spec.instances.size());
  out.summaries.resize(n);
  out.samples_per_instance = sample_count(spec.settings, spec.trajectory_stride);
  FourBarSample blank{};
  blank.t = std::numeric_limits<double>::quiet_NaN();
  out.trajectories.assign(static_cast<size_t>(n * out.samples_per_instance), blank);
#ifdef _OPENMP
  out.threads_used = spec.threads > 0 ? spec.threads : omp_get_max_threads();
#endif
  const auto t0 = std::chrono::steady_clock::now();
  switch (spec.friction) {
    case FrictionModel::brown_mcphee: run_all<BrownMcPhee>(spec, out); break;
    case FrictionModel::bengisu_akay: run_all<BengisuAkay>(spec, out); break;
    case FrictionModel::none: run_all<NoFriction>(spec, out); break;
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace hs
