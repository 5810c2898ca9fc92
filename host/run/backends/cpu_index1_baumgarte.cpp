// The CPU backend's batches of Index1BaumgarteFormulation, one instance per task: a translation unit of
// its own so that the build compiles the units in parallel
// (host/run/backends/cpu_batch.hpp; cpu.cpp dispatches here).
#include "host/run/backends/cpu_batch.hpp"
#include "kernels/integrators/formulations.hpp"

namespace hs {
BatchResult run_batch_cpu_index1_baumgarte(const BatchSpec& spec) { return cpu_batch::run<Index1BaumgarteFormulation, 1>(spec); }
HostKernelEntry instance_kernel_entry_index1_baumgarte(const BatchSpec& spec) { return cpu_batch::kernel_entry<Index1BaumgarteFormulation>(spec); }
}  // namespace hs
