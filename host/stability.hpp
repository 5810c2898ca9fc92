// Stability maps (`hydrosweep stability`): for every instance of a study, the
// static equilibrium at the crank angle mechanism.initial_angle1 with
// p3 = circuit.rod_side_initial_pressure and the valve closed, the reduced
// Jacobian of seed 000 there, its eigenvalues, and the figures a map shows
// (kernels/linearize/stability.hpp: stability_point).
//
// Models: "four-bar" and "four-bar-seed001" → ActuatedSystem<PlanarChainDae<3>, F>
// (relative joint coordinates); "four-bar-3d" → ActuatedSystem<SpatialFourBarDae, F>
// (seed 000's 10 coordinates, 9 constraints). F = the study's friction law.
// Both have 6 reduced states (angle, rate, three pressures, spool), so every
// point is a StabilityResult<6>.
#pragma once
#include <string>
#include <vector>

#include "host/batch.hpp"
#include "host/study.hpp"
#include "kernels/linearize/stability.hpp"

namespace hs {

using StabilityPoint = StabilityResult<6>;

// The kernel settings of a study's [stability] table.
StabilitySettings stability_settings(const StabilitySpec& spec);

// True for the model that uses the spatial (seed 000, 3D) formulation.
bool stability_model_is_spatial(const std::string& model);

// A point that was not computed (status = s, everything else NaN / 0).
StabilityPoint blank_stability_point(Status s);

// CPU: OpenMP parallel for (schedule dynamic) over the instances; threads =
// 0: all cores. The study's instances are generated first; an inadmissible
// one (Study::instance_problem) is flagged invalid_parameters and skipped.
std::vector<StabilityPoint> run_stability_cpu(const Study& study, int threads);
// Same, over given parameters (every one is computed).
std::vector<StabilityPoint> run_stability_cpu(const std::vector<FourBarParams>& instances, const StabilitySettings& settings,
                                              bool spatial, FrictionModel friction, int threads);

// Where `hydrosweep stability` runs: the requested backend (the command
// line's, else the study's [execution] backend) resolved to cpu or cuda.
// auto → cuda when a device is visible and this build has the CUDA stability
// kernel, else cpu; kokkos → cpu (there is no Kokkos path; *note says so).
// An explicit cuda that cannot run throws std::invalid_argument (why).
Backend stability_backend(Backend requested, std::string* note = nullptr);
// Every instance of the study on `backend` (cpu or cuda, from
// stability_backend); threads: CPU threads (0: all cores). Inadmissible
// instances are flagged invalid_parameters on both.
std::vector<StabilityPoint> run_stability(const Study& study, Backend backend, int threads);
// OpenMP threads a CPU run with `threads` uses.
int stability_threads(int threads);

#ifdef HYDROSWEEP_HAVE_CUDA
// CUDA: one thread per point (host/backends/cuda_stability.cu; built when
// that file is present, which defines HYDROSWEEP_HAVE_CUDA_STABILITY).
std::vector<StabilityResult<6>> run_stability_cuda(const std::vector<FourBarParams>& instances, hs::StabilitySettings settings,
                                                   bool spatial, FrictionModel friction);
#endif

}  // namespace hs
