// The per-instance work every backend runs: instance i's parameters in,
// its summary (and strided trajectory) out, through kernels/'s run_instance.
// The CPU (OpenMP), Kokkos and CUDA backends differ only in who calls
// operator()(i); nothing here depends on the backend.
//
// Backends are generic over the integrator (a RunCombination of the catalog,
// kernels/catalog/catalog.hpp): TypedBatch turns the batch's parameter
// rows into the model's Params and its typed results into the flat rows of
// BatchResult (kernels/integrators/run_columns.hpp).
#pragma once
#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

#include "kernels/catalog/catalog.hpp"
#include "host/device_block.hpp"
#include "host/run/backends/host_kernel_entry.hpp"
#include "host/run/batch.hpp"
#include "kernels/integrators/run_columns.hpp"

namespace hs {

// The static shared memory a block's run-loop carries may take on the GPU (of
// the 48 KB a block can have without opting in).
constexpr long kCarrySharedBytes = 40 * 1024;

template <class IntegratorT>
struct InstanceKernel {
  using Integrator = IntegratorT;
  using Params = typename Integrator::Params;
  using Summary = SummaryOf<Integrator>;
  using SampleT = SampleOf<Integrator>;
  const Params* params;     // n instances
  Summary* summaries;       // n
  SampleT* trajectories;    // n x samples (null when samples == 0)
  long samples;
  IntegratorSettings settings;
  RunOptions options;              // options.reference must point to memory the executor can read
  // Sample k of instance i is trajectories[i * instance_stride + k * sample_stride]:
  // instance-major (samples, 1) on the CPU, sample-major (1, n) on the GPU so
  // that neighbouring threads write neighbouring addresses (coalesced).
  long instance_stride, sample_stride;

  using Carry = RunCarry<Integrator>;
  // On the GPU the run loop's carry (summary and running sums, kernels/integrators/run.hpp) lives in a
  // per-thread slot of shared memory where one block's slots fit in kCarrySharedBytes: it then holds no
  // registers across the step and is not spilled to local memory (issue 16; docs/gpu.md §6).
  // Slots are an odd number of 8-byte words apart, so that a warp's 8-byte accesses to one field fall
  // in distinct banks.
  static constexpr long carry_slot_bytes = (((static_cast<long>(sizeof(Carry)) + 7) / 8) | 1) * 8;
  static constexpr bool carry_in_shared_memory = carry_slot_bytes * kDeviceThreadsPerBlock <= kCarrySharedBytes;
  static_assert(alignof(Carry) <= 8, "a carry slot is 8-byte aligned");

  HS_HD void operator()(long i) const {
    SampleT* traj = samples > 0 ? trajectories + i * instance_stride : nullptr;
    const long m = samples, ks = sample_stride;
    auto recorder = [traj, m, ks](long k, const SampleT& s) {
      if (k < m) traj[k * ks] = s;
    };
#if defined(__CUDA_ARCH__)
    if constexpr (carry_in_shared_memory) {
      // Raw bytes: a __shared__ array is not constructed; the slot is, by placement new.
      // launch_for_each_index runs blocks of kDeviceThreadsPerBlock threads.
      __shared__ alignas(8) unsigned char slots[carry_slot_bytes * kDeviceThreadsPerBlock];
      Carry& carry = *new (slots + carry_slot_bytes * threadIdx.x) Carry;
      run_instance<Integrator>(params[i], settings, options, recorder, carry);
      summaries[i] = carry.out;
      return;
    }
#endif
    Carry carry;
    run_instance<Integrator>(params[i], settings, options, recorder, carry);
    summaries[i] = carry.out;
  }
};

// InstanceKernel<Integrator>'s entry for the batch's (physics, friction law,
// formulation) (host/run/backends/cpu.cpp, by formulation); throws as
// with_batch_combination does.
HostKernelEntry instance_kernel_entry(const BatchSpec& spec);

// Run options of a batch (reference: host pointer; device backends copy it).
inline RunOptions run_options(const BatchSpec& spec) {
  RunOptions opt;
  opt.stride = spec.trajectory_stride;
  opt.settling_rate = spec.settling_rate;
  const long n_steps = static_cast<long>(spec.settings.duration / spec.settings.dt + 0.5);
  if (static_cast<long>(spec.reference.size()) == n_steps + 1) opt.reference = spec.reference.data();
  return opt;
}

// The model's default instance of its Params for a run with friction law
// `friction`: fields the parameter table does not name (e.g. which body
// carries the cylinder) keep the default, and the law is written into every
// actuator's parameters (the static laws share one compiled policy that reads
// it: catalog.hpp select_friction_law). The law is not optional: a run whose
// parameters named another law would compute that law's friction.
template <class Params>
Params default_params(const ModelDescriptor& m, const std::string& friction) {
  if (m.params_bytes.size() != sizeof(Params))
    throw std::logic_error("model " + m.name + ": its default instance does not match the kernel's parameters");
  Params p;
  std::memcpy(&p, m.params_bytes.data(), sizeof(Params));
  select_friction_law(p, friction);
  return p;
}
// Params of `count` instance-major parameter rows, with the batch's friction law.
template <class Params>
std::vector<Params> params_of_rows(const ModelDescriptor& m, const std::string& friction, const double* rows,
                                  long count) {
  const Params base = default_params<Params>(m, friction);
  const long P = m.parameter_count();
  std::vector<Params> out(static_cast<size_t>(count));
  for (long i = 0; i < count; ++i) out[i] = unpack_row(m.parameters, rows + i * P, base);
  return out;
}

// Rows in, typed values out and back, for one integrator.
template <class Integrator>
struct TypedBatch {
  static constexpr int nq = Integrator::nq, np = Integrator::np, na = Integrator::na;
  using Params = typename Integrator::Params;
  using Summary = SummaryOf<Integrator>;
  using SampleT = SampleOf<Integrator>;
  using Report = InputReport<typename Integrator::Model::Input>;
  using Probe = InputProbe<typename Integrator::Model::Input>;

  static Params base(const BatchSpec& spec) { return default_params<Params>(*spec.model, spec.friction); }
  // Params of instances [first, first + count).
  static std::vector<Params> params(const BatchSpec& spec, long first, long count) {
    return params_of_rows<Params>(*spec.model, spec.friction, spec.row(first), count);
  }
  static SampleT blank_sample() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    SampleT blank;
    blank.t = blank.energy_drift = blank.newton_iterations = blank.constraint_violation = nan;
    for (int a = 0; a < na; ++a)
      blank.U[a] = blank.s[a] = blank.sdot[a] = blank.piston_force[a] = blank.friction_force[a] = nan;
    for (double& q : blank.q) q = nan;
    for (double& p : blank.p) p = nan;
    blank.blank_input();
    return blank;
  }
  static void store(const Summary& s, long i, BatchResult& out) {
    out.status[i] = s.status;
    run_columns::flatten(s, out.summaries.data() + i * out.summary_width);
  }
  static void store(const SampleT& s, long i, long k, BatchResult& out) {
    run_columns::flatten(s, out.trajectories.data() + (i * out.samples_per_instance + k) * out.sample_width);
  }
  // A result with every instance marked not_run and blank trajectories.
  static BatchResult blank_result(const BatchSpec& spec) {
    static_assert(run_columns::summary_width<nq, np, na, Report>() > 0, "");
    BatchResult out;
    const long n = spec.instance_count();
    // The kernel's columns, then those the host derives from them (blank until derived).
    out.summary_width = run_columns::summary_width<nq, np, na, Report>() + spec.model->derived_summary_count;
    out.sample_width = run_columns::sample_width<nq, np, na, Probe>();
    if (static_cast<size_t>(out.summary_width) != spec.model->summary_columns.size() ||
        static_cast<size_t>(out.sample_width) != spec.model->trajectory_channels.size())
      throw std::logic_error("model " + spec.model->name + ": its output columns do not match the kernel's");
    out.status.assign(static_cast<size_t>(n), Status::not_run);
    out.summaries.resize(static_cast<size_t>(n * out.summary_width));
    out.unstarted_row.assign(static_cast<size_t>(out.summary_width), std::numeric_limits<double>::quiet_NaN());
    run_columns::flatten(unstarted_summary<nq, np, na, Report>(Status::not_run), out.unstarted_row.data());
    for (long i = 0; i < n; ++i)
      std::copy(out.unstarted_row.begin(), out.unstarted_row.end(), out.summaries.begin() + i * out.summary_width);
    out.samples_per_instance = sample_count(spec.settings, spec.trajectory_stride);
    out.trajectories.assign(static_cast<size_t>(n * out.samples_per_instance * out.sample_width),
                            std::numeric_limits<double>::quiet_NaN());
    return out;
  }
};

// Calls f(RunCombination{}) for the batch's (physics, friction, formulation);
// throws std::invalid_argument naming the model and what it supports if this
// build has no such combination.
template <class F>
void with_batch_combination(const BatchSpec& spec, F&& f) {
  if (!spec.model) throw std::invalid_argument("batch without a model");
  if (!with_run_combination(f, spec.model->physics, spec.friction, spec.formulation))
    throw std::invalid_argument("model " + spec.model->name + " cannot run with friction law '" + spec.friction +
                                "' and formulation '" + spec.formulation + "' in this build");
}

// out.failed_indices from the statuses, on the host (every backend:
// host/run/backends/space_batch.hpp).
void collect_failed_indices(BatchResult& out);

}  // namespace hs
