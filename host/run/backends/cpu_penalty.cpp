// The CPU backend's batches of PenaltyFormulation, one instance per task: a translation unit of
// its own so that the build compiles the units in parallel
// (host/run/backends/cpu_batch.hpp; cpu.cpp dispatches here).
#include "host/run/backends/cpu_batch.hpp"
#include "kernels/integrators/formulations.hpp"

namespace hs {
BatchResult run_batch_cpu_penalty(const BatchSpec& spec) { return cpu_batch::run<PenaltyFormulation, 1>(spec); }
HostKernelEntry instance_kernel_entry_penalty(const BatchSpec& spec) { return cpu_batch::kernel_entry<PenaltyFormulation>(spec); }
}  // namespace hs
