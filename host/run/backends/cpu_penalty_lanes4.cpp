// The CPU backend's batches of PenaltyFormulation, lockstep groups of 4 lanes: a translation unit of
// its own so that the build compiles the units in parallel
// (host/run/backends/cpu_batch.hpp; cpu.cpp dispatches here).
#include "host/run/backends/cpu_batch.hpp"
#include "kernels/integrators/formulations.hpp"

namespace hs {
BatchResult run_batch_cpu_penalty_lanes4(const BatchSpec& spec) { return cpu_batch::run<PenaltyFormulation, 4>(spec); }
}  // namespace hs
