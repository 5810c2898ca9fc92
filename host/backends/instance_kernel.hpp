// The per-instance work every backend runs: instance i's parameters in,
// its summary (and strided trajectory) out, through kernels/'s run_instance.
// The CPU (OpenMP), Kokkos and CUDA backends differ only in who calls
// operator()(i); nothing here depends on the backend.
#pragma once
#include "host/batch.hpp"
#include "kernels/integrators/double_step_trapezoidal.hpp"

namespace hs {

template <class Friction>
struct InstanceKernel {
  using Integrator = DoubleStepTrapezoidal<HydraulicFourBar<Friction>>;
  const FourBarParams* params;     // n instances
  FourBarSummary* summaries;       // n
  FourBarSample* trajectories;     // n x samples (null when samples == 0)
  long samples;
  IntegratorSettings settings;
  RunOptions options;              // options.reference must point to memory the executor can read
  // Sample k of instance i is trajectories[i * instance_stride + k * sample_stride]:
  // instance-major (samples, 1) on the CPU, sample-major (1, n) on the GPU so
  // that neighbouring threads write neighbouring addresses (coalesced).
  long instance_stride, sample_stride;

  HS_HD void operator()(long i) const {
    FourBarSample* traj = samples > 0 ? trajectories + i * instance_stride : nullptr;
    const long m = samples, ks = sample_stride;
    summaries[i] = run_instance<Integrator>(params[i], settings, options, [traj, m, ks](long k, const FourBarSample& s) {
      if (k < m) traj[k * ks] = s;
    });
  }
};

// Calls f(Friction{}) with the friction law of the batch.
template <class F>
auto with_friction(FrictionModel m, F&& f) {
  switch (m) {
    case FrictionModel::bengisu_akay: return f(BengisuAkay{});
    case FrictionModel::none: return f(NoFriction{});
    case FrictionModel::brown_mcphee: break;
  }
  return f(BrownMcPhee{});
}

// Run options of a batch (reference: host pointer; device backends copy it).
inline RunOptions run_options(const BatchSpec& spec) {
  RunOptions opt;
  opt.stride = spec.trajectory_stride;
  opt.settling_rate = spec.settling_rate;
  const long n_steps = static_cast<long>(spec.settings.duration / spec.settings.dt + 0.5);
  if (static_cast<long>(spec.reference.size()) == n_steps + 1) opt.reference = spec.reference.data();
  return opt;
}

// A result with every instance marked not_run and blank trajectories.
BatchResult blank_result(const BatchSpec& spec);
// out.failed_indices from the summaries, on the host (the CUDA backend
// compacts them on the device instead).
void collect_failed_indices(BatchResult& out);

}  // namespace hs
