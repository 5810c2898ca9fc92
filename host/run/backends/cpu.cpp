// CPU backend (OpenMP): the batch goes to the translation unit of its
// formulation and lane width (cpu_<formulation>[_lanes<W>].cpp,
// host/run/backends/cpu_batch.hpp).
#include <stdexcept>
#include <string>

#include "host/run/backends/cpu_batch.hpp"
#include "kernels/integrators/formulations.hpp"

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

// One translation unit per formulation and lane width, compiled in parallel.
BatchResult run_batch_cpu_double_step(const BatchSpec& spec);
BatchResult run_batch_cpu_double_step_lanes4(const BatchSpec& spec);
BatchResult run_batch_cpu_double_step_lanes8(const BatchSpec& spec);
BatchResult run_batch_cpu_penalty(const BatchSpec& spec);
BatchResult run_batch_cpu_penalty_lanes4(const BatchSpec& spec);
BatchResult run_batch_cpu_penalty_lanes8(const BatchSpec& spec);
BatchResult run_batch_cpu_index1_baumgarte(const BatchSpec& spec);
HostKernelEntry instance_kernel_entry_double_step(const BatchSpec& spec);
// A lane width's unit where this build has it (CMake HYDROSWEEP_LANE_WIDTHS), else none.
#ifdef HYDROSWEEP_HAVE_LANES4
#define HS_IF_LANES4(unit) unit
#else
#define HS_IF_LANES4(unit) nullptr
#endif
#ifdef HYDROSWEEP_HAVE_LANES8
#define HS_IF_LANES8(unit) unit
#else
#define HS_IF_LANES8(unit) nullptr
#endif
HostKernelEntry instance_kernel_entry_penalty(const BatchSpec& spec);
HostKernelEntry instance_kernel_entry_index1_baumgarte(const BatchSpec& spec);

BatchResult run_batch_cpu(const BatchSpec& spec) {
  // 1 unless the integrator has lockstep lanes; a (model, friction law,
  // formulation) this build lacks is refused here, by the combination lookup
  // (std::invalid_argument naming the model and what it supports).
  const int lanes = cpu_batch::batch_lanes(spec);
  // The formulations with lanes: their unit of one instance and of each width built.
  struct Units {
    const char* formulation;
    BatchResult (*one)(const BatchSpec&);
    BatchResult (*lanes4)(const BatchSpec&);
    BatchResult (*lanes8)(const BatchSpec&);
  };
  static const Units with_lanes[] = {
      {DoubleStepFormulation::name, run_batch_cpu_double_step, HS_IF_LANES4(run_batch_cpu_double_step_lanes4),
       HS_IF_LANES8(run_batch_cpu_double_step_lanes8)},
      {PenaltyFormulation::name, run_batch_cpu_penalty, HS_IF_LANES4(run_batch_cpu_penalty_lanes4),
       HS_IF_LANES8(run_batch_cpu_penalty_lanes8)},
  };
  for (const Units& u : with_lanes) {
    if (spec.formulation != u.formulation) continue;
    if (lanes == 1) return u.one(spec);
    const auto unit = lanes == 4 ? u.lanes4 : lanes == 8 ? u.lanes8 : nullptr;
    if (!unit) throw std::logic_error("lanes " + std::to_string(lanes) + " chosen but not built");
    return unit(spec);
  }
  if (lanes != 1) throw std::logic_error("formulation " + spec.formulation + " has lanes but no CPU lockstep unit");
  if (spec.formulation == Index1BaumgarteFormulation::name) return run_batch_cpu_index1_baumgarte(spec);
  throw std::logic_error("formulation " + spec.formulation + " has no CPU translation unit");
}

HostKernelEntry instance_kernel_entry(const BatchSpec& spec) {
  if (spec.formulation == DoubleStepFormulation::name) return instance_kernel_entry_double_step(spec);
  if (spec.formulation == PenaltyFormulation::name) return instance_kernel_entry_penalty(spec);
  if (spec.formulation == Index1BaumgarteFormulation::name) return instance_kernel_entry_index1_baumgarte(spec);
  with_batch_combination(spec, [](auto) {});  // an unknown formulation: the lookup's message names what the model has
  throw std::logic_error("formulation " + spec.formulation + " has no CPU translation unit");
}

}  // namespace hs
