// The CPU backend's batches of DoubleStepFormulation, one instance per task: a translation unit of
// its own so that the build compiles the units in parallel
// (host/run/backends/cpu_batch.hpp; cpu.cpp dispatches here).
#include "host/run/backends/cpu_batch.hpp"
#include "kernels/integrators/formulations.hpp"

namespace hs {
BatchResult run_batch_cpu_double_step(const BatchSpec& spec) { return cpu_batch::run<DoubleStepFormulation, 1>(spec); }
HostKernelEntry instance_kernel_entry_double_step(const BatchSpec& spec) { return cpu_batch::kernel_entry<DoubleStepFormulation>(spec); }
}  // namespace hs
