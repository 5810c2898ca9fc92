// Stability maps (`hydrosweep stability`): for every instance of a study, the
// static equilibrium at the crank angle mechanism.initial_angle1 with
// p3 = circuit.rod_side_initial_pressure and the valve closed, the reduced
// Jacobian of seed 000 there, its eigenvalues, and the figures a map shows
// (kernels/linearize/stability.hpp: stability_point).
//
// Every model whose physics has a Linearized form in the catalog
// (kernels/catalog/catalog.hpp) with the study's friction law: the
// open-loop four-bar family's equilibrium and reduced Jacobian (6
// eigenvalues), the lift-tilt's sampled closed loop about a held pose (10,
// kernels/linearize/sampled_loop.hpp). Every point is stored in one record
// type with room for the widest (StabilityRecord, eigenvalue_count in use).
#pragma once
#include <string>
#include <vector>

#include <stdexcept>

#include "host/run/batch.hpp"
#include "kernels/catalog/catalog.hpp"
#include "host/run/ranks.hpp"
#include "kernels/linearize/stability.hpp"
#include "host/run/backends/host_kernel_entry.hpp"

namespace hs {

// The study stage's types, named by the study-level functions only: declared,
// not included (host/study/study.hpp), so that the kernel units that include
// this header through host/run/backends/space_batch.hpp do not recompile when
// the study format or the design changes (docs/build.md §1).
struct StabilitySpec;
struct StudyRecord;
struct Design;

using StabilityPoint = StabilityRecord;

// The kernel settings of a study's [stability] table.
StabilitySettings stability_settings(const StabilitySpec& spec);

// A point that was not computed (status = s, everything else NaN / 0).
StabilityPoint blank_stability_point(Status s);

// Points of one model as parameter rows (like BatchSpec): parameters[i * P + k].
struct StabilityBatch {
  const ModelDescriptor* model = nullptr;
  std::string friction;
  std::vector<double> parameters;
  StabilitySettings settings;
  // Seed 003's constrained systems: [stability] method and UCS's penalty
  // (0: the model's default); the compiled models ignore them.
  std::string method;
  struct {
    double alpha = 0.0, xi = 0.0, omega = 0.0;
  } penalty;
  int threads = 0;          // CPU threads (0: all cores)
  // CPU: points per lockstep group (0: the widest lanes this build has, 1:
  // one point at a time; the same records either way, docs/models/lanes.md §12).
  int lanes = 0;
  // Points whose design is inadmissible (empty: none): no backend computes
  // them; run_stability flags them invalid_parameters.
  std::vector<char> inadmissible;
  bool admissible(long i) const { return inadmissible.empty() || !inadmissible[i]; }
  long point_count() const { return model ? static_cast<long>(parameters.size()) / model->parameter_count() : 0; }
};
// Calls f(StabilityCombination{}) for the batch's (physics, friction law)
// (kernels/catalog/catalog.hpp); throws std::invalid_argument naming the
// model if this build has no such combination. Every backend's entry.
template <class F>
void with_batch_combination(const StabilityBatch& batch, F&& f) {
  if (!batch.model) throw std::invalid_argument("stability batch without a model");
  if (!with_stability_combination(f, batch.model->physics, batch.friction))
    throw std::invalid_argument("model " + batch.model->name + " has no stability map with friction law '" +
                                batch.friction + "' in this build");
}

// One point per index: stability_record of the batch's (physics, friction
// law) -- what every backend runs (the CPU's OpenMP loop, Kokkos, the GPU).
template <class System>
struct StabilityKernel {
  const typename System::Params* params;
  StabilitySettings settings;
  StabilityRecord* out;
  HS_HD void operator()(long i) const { out[i] = stability_record<System>(params[i], settings); }
};
// StabilityKernel<System>'s entry for the batch's (physics, friction law),
// compiled in host/run/stability_map.cpp (host_kernel_entry.hpp); throws as
// with_batch_combination does.
HostKernelEntry stability_kernel_entry(const StabilityBatch& batch);

// The batch of every instance of a study (rows generated from the design).
StabilityBatch stability_batch(const StudyRecord& record, const Design& design, int threads);

// CPU: OpenMP parallel for (schedule dynamic) over the points, or over
// groups of them in lockstep lanes where the model's point has lanes.
std::vector<StabilityPoint> run_stability_cpu(const StabilityBatch& batch);
// The points in lockstep lanes of batch.lanes (0: the widest built) into out,
// when the batch's system has them (kernels/linearize/lockstep_stability.hpp);
// false, out untouched, if not (or batch.lanes = 1). Its own translation unit
// (host/run/backends/cpu_stability_lanes.cpp). Throws std::invalid_argument for
// a width this build lacks.
bool run_stability_cpu_lanes(const StabilityBatch& batch, std::vector<StabilityPoint>& out);
// Kokkos: parallel_for in the default execution space (built with Kokkos).
std::vector<StabilityPoint> run_stability_kokkos(const StabilityBatch& batch);
// A study: its instances are generated first; an inadmissible one
// (Study::instance_problem) is flagged invalid_parameters and skipped.
std::vector<StabilityPoint> run_stability_cpu(const StudyRecord& record, const Design& design, int threads);

// Where `hydrosweep stability` runs: the requested backend (the command
// line's, else the study's [execution] backend) resolved to cpu, kokkos or
// cuda. auto → cuda when a device is visible and this build has the CUDA
// stability kernel, else cpu. An explicit backend that cannot run throws
// std::invalid_argument (why).
// With the study's model and friction law, a combination a device measured
// to disagree with the CPU is refused on an explicit `cuda` and kept on the
// CPU by `auto` (host/run/device_verification.hpp).
Backend stability_backend(Backend requested, std::string* note = nullptr, const ModelDescriptor* model = nullptr,
                          const std::string& friction = "");
// Every instance of the study on `backend` (from stability_backend);
// threads: CPU threads (0: all cores); lanes: the CPU's points per lockstep
// group (StabilityBatch::lanes). Inadmissible instances are flagged
// invalid_parameters on every backend.
std::vector<StabilityPoint> run_stability(const StudyRecord& record,
                                          const Design& design, Backend backend, int threads, int lanes = 0);
// The same shared by several ranks (host/run/ranks.hpp): every rank calls it;
// each computes a contiguous share of the points, rank 0 receives all of them
// in study order (the others an empty vector). An error on any rank is
// thrown on every rank (host/run/rank_collectives.hpp).
std::vector<StabilityPoint> run_stability(const StudyRecord& record, const Design& design, Backend backend,
                                          int threads, const Ranks& ranks, int lanes = 0);
// Before a device run of seed 003's constrained systems: the model must have
// a per-thread MCS capacity, the method be mcs and every point fit it; else
// std::invalid_argument naming the method or the point, its n and the size key.
void check_device_constrained(const StabilityBatch& batch);
// OpenMP threads a CPU run with `threads` uses.
int stability_threads(int threads);

// The CUDA stability path's host logic (host/run/backends/device_batch.hpp:
// slices, device buffers, the copy back) on Thrust's OpenMP device system,
// for tests on machines without a GPU: the backend's code path on CPU
// threads, not a GPU run. Built with HYDROSWEEP_HAVE_DEVICE_CODE_PATH.
std::vector<StabilityPoint> run_stability_device_code_path_on_omp(const StabilityBatch& batch, double device_bytes);

#ifdef HYDROSWEEP_HAVE_CUDA
// CUDA: one thread per point (host/run/backends/cuda_stability.cu; built when
// that file is present, which defines HYDROSWEEP_HAVE_CUDA_STABILITY).
std::vector<StabilityPoint> run_stability_cuda(const StabilityBatch& batch);
#endif

}  // namespace hs
