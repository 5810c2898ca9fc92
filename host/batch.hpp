// A batch: N instances of one model, each with its own parameters, run with
// one set of integrator settings. The backend decides only where the loop
// over instances runs; the per-instance work is run_instance() of kernels/.
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "kernels/integrators/run.hpp"
#include "kernels/models/four_bar.hpp"

namespace hs {

enum class FrictionModel { brown_mcphee, bengisu_akay, none };
enum class Formulation { double_step };

// Names as written in study files; false if unknown.
bool parse_friction_model(const std::string& name, FrictionModel& out);
bool parse_formulation(const std::string& name, Formulation& out);
std::string friction_model_name(FrictionModel m);
std::string formulation_name(Formulation f);

using FourBarSummary = RunSummary<3, 3>;
using FourBarSample = Sample<3, 3>;

struct BatchSpec {
  std::vector<FourBarParams> instances;
  IntegratorSettings settings;
  FrictionModel friction = FrictionModel::brown_mcphee;
  Formulation formulation = Formulation::double_step;
  int trajectory_stride = 0;  // record every n-th step (0: no trajectories)
  int threads = 0;            // 0: all cores (OpenMP default)
  double settling_rate = 1e-3;      // [rad/s] for RunSummary::settling_time
  std::vector<double> reference;    // z_1 at every step (tracking_rms); empty: none
  // Optional: instances not yet started are skipped once *cancel is true
  // (their status stays not_run); *progress counts finished instances.
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<long>* progress = nullptr;
};

// A trajectory sample that was never recorded (after a failure, or of an
// instance that did not run): every channel NaN (host/backends/dispatch.cpp).
FourBarSample blank_sample();

struct BatchResult {
  std::vector<FourBarSummary> summaries;  // one per instance, in input order
  // Trajectories, instance-major: trajectories[i * samples_per_instance + k].
  // Samples after a failure keep t = NaN.
  std::vector<FourBarSample> trajectories;
  long samples_per_instance = 0;
  double wall_seconds = 0.0;
  int threads_used = 1;
  bool cancelled = false;     // some instances were skipped (BatchSpec::cancel)
  std::vector<long> failed_indices;  // instances with status != ok, ascending
  long failed() const;
};

// Where the loop over instances runs. Every backend runs the same kernel
// code (host/backends/instance_kernel.hpp → kernels/ run_instance).
enum class Backend { automatic, cpu, cuda, kokkos };
bool parse_backend(const std::string& name, Backend& out);  // "auto", "cpu", "cuda", "kokkos"
std::string backend_name(Backend b);
// Whether this build has the backend and, for CUDA, a device; else why not.
bool backend_available(Backend b, std::string* why = nullptr);
// auto → cuda when a CUDA device is present, else cpu.
Backend resolve_backend(Backend b);
// A line describing where the backend runs (CPU model, GPU name, Kokkos execution space).
std::string backend_device(Backend b);
// First "model name" of /proc/cpuinfo; "unknown CPU" elsewhere.
std::string cpu_model();

// CPU backend: OpenMP over instances.
BatchResult run_batch_cpu(const BatchSpec& spec);
// Kokkos backend: Kokkos::parallel_for over instances in the default
// execution space (built when Kokkos is found).
BatchResult run_batch_kokkos(const BatchSpec& spec);
// CUDA backend: one thread per instance (built when nvcc is found; needs a device).
BatchResult run_batch_cuda(const BatchSpec& spec);
// The CUDA backend's host logic (host/backends/device_batch.hpp) on Thrust's
// OpenMP device system, for tests on machines without a GPU: it runs the
// backend's code path (slices of at most `device_bytes`, device buffers,
// sample-major layout and transposition, failed-instance compaction) on CPU
// threads. Not a GPU run and not a user backend. Built when the CUDA
// toolkit's Thrust headers are found (HYDROSWEEP_HAVE_DEVICE_CODE_PATH).
BatchResult run_batch_device_code_path_on_omp(const BatchSpec& spec, double device_bytes);
// Instances per slice of that code path for n instances of `samples` samples
// each in `device_bytes` (at least 1, at most n).
long device_batch_slice_size(long n, long samples, double device_bytes);
// Dispatch (b must be available; throws std::runtime_error otherwise).
BatchResult run_batch(const BatchSpec& spec, Backend b);

}  // namespace hs
