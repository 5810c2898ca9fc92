// A batch: N instances of one model, each with its own parameters, run with
// one set of integrator settings and one (friction law, formulation). The backend decides only where the loop
// over instances runs; the per-instance work is run_instance() of kernels/.
#pragma once
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/registry/backends.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/descriptor.hpp"

namespace hs {

// The study stage's products (host/study/study.hpp, host/design/design.hpp),
// named by batch_spec only: declared, not included, so that the kernel units
// that include this header (host/run/backends/) do not recompile when the
// study file's format or the design changes.
struct StudyRecord;
struct Design;

// A batch of one model, as flat rows of doubles: the host never sees the
// model's parameter struct or its typed results (docs/models/README.md §5.4).
struct BatchSpec {
  const ModelDescriptor* model = nullptr;
  std::string friction;     // a law the model supports (ModelDescriptor::friction_laws)
  std::string formulation;  // a formulation the model supports
  // Instance-major parameter rows: parameters[i * P + k] is parameter k
  // (model->parameters[k]) of instance i, P = model->parameter_count().
  std::vector<double> parameters;
  IntegratorSettings settings;
  int trajectory_stride = 0;  // record every n-th step (0: no trajectories)
  int threads = 0;            // 0: all cores (OpenMP default)
  // CPU backend: instances per lockstep SIMD group (docs/models/lanes.md):
  // 0 = automatic (the widest width built, where the model and run support
  // lanes, else 1), 1 = one instance per loop iteration, 4 or 8 = that many
  // in lockstep (a width this build has: built_lane_widths()).
  // The results are the same bits whatever the choice.
  int lanes = 0;
  // CPU backend: the bytes one slice's buffers may take (0: CpuSpace's
  // default, 64 MiB; host/run/backends/cpu_space.hpp). The results are the
  // same bits whatever the slices.
  double cpu_slice_bytes = 0.0;
  double settling_rate = 1e-3;      // [unit of the driving coordinate / s] for settling_time
  std::vector<double> reference;    // driving coordinate at every step (tracking_rms); empty: none
  // Optional: instances not yet started are skipped once *cancel is true
  // (their status stays not_run); *progress counts finished instances.
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<long>* progress = nullptr;

  long instance_count() const;
  const double* row(long i) const { return parameters.data() + i * model->parameter_count(); }
};

struct BatchResult {
  long summary_width = 0;   // C = model->summary_columns.size()
  long sample_width = 0;    // W = model->trajectory_channels.size()
  std::vector<Status> status;     // one per instance, in input order
  // summaries[i * C + c]: summary column c of instance i (NaN where a
  // failed or unstarted instance has no value).
  std::vector<double> summaries;
  // Trajectories, instance-major: trajectories[(i * samples_per_instance + k) * W + c]
  // is channel c of sample k of instance i. Samples never recorded (after a
  // failure) are NaN in every channel.
  std::vector<double> trajectories;
  long samples_per_instance = 0;
  double wall_seconds = 0.0;
  int threads_used = 1;
  // CPU backend: the lanes it ran with (1: one instance at a time), and the
  // lanes still iterating summed over Newton iterations, over the lanes ×
  // iterations run (utilization = their ratio; 0 and 0 without lanes).
  int lanes_used = 1;
  long active_lane_iterations = 0, lane_iterations = 0;
  bool cancelled = false;     // some instances were skipped (BatchSpec::cancel)
  std::vector<long> failed_indices;  // instances with status != ok, ascending
  // The summary row of an instance that never started (unstarted_summary:
  // no time passed, no step taken, every state value NaN).
  std::vector<double> unstarted_row;
  long failed() const;
  long instance_count() const { return static_cast<long>(status.size()); }
  // Marks instance i as never started with status s: the unstarted row, and
  // every trajectory sample blank (NaN). The host flags parameters the model
  // may not see this way, whatever the kernel made of them.
  void mark_unstarted(long i, Status s);
  double summary(long i, long column) const { return summaries[i * summary_width + column]; }
  const double* sample(long i, long k) const { return trajectories.data() + (i * samples_per_instance + k) * sample_width; }
};

// Where the loop over instances runs (Backend: host/registry/backends.hpp).
// Every backend runs the same kernel code (host/run/backends/instance_kernel.hpp
// → kernels/ run_instance).
// Whether this build has the backend and, for CUDA, a device; else why not.
bool backend_available(Backend b, std::string* why = nullptr);
// auto → cuda when a CUDA device is present, else cpu.
Backend resolve_backend(Backend b);
// A line describing where the backend runs (CPU model, GPU name, Kokkos execution space).
std::string backend_device(Backend b);
// With several ranks on a node, each takes its own device: the node's
// local_rank-th (mod the devices) for the CUDA backend; nothing for the others.
void use_device_of_local_rank(Backend b, int local_rank);
// First "model name" of /proc/cpuinfo; "unknown CPU" elsewhere.
std::string cpu_model();

// CPU backend: OpenMP over instances.
BatchResult run_batch_cpu(const BatchSpec& spec);
// Kokkos backend: Kokkos::parallel_for over instances in the default
// execution space (built when Kokkos is found).
BatchResult run_batch_kokkos(const BatchSpec& spec);
// CUDA backend: one thread per instance (built when nvcc is found; needs a device).
BatchResult run_batch_cuda(const BatchSpec& spec);
// The CUDA backend's host logic (host/run/backends/device_batch.hpp) on Thrust's
// OpenMP device system, for tests on machines without a GPU: it runs the
// backend's code path (slices of at most `device_bytes`, device buffers,
// sample-major layout and transposition) on CPU
// threads. Not a GPU run and not a user backend. Built when the CUDA
// toolkit's Thrust headers are found (HYDROSWEEP_HAVE_DEVICE_CODE_PATH).
BatchResult run_batch_device_code_path_on_omp(const BatchSpec& spec, double device_bytes);
// Instances per slice of that code path for the batch's instances in
// `device_bytes` (at least 1, at most the instance count).
long device_batch_slice_size(const BatchSpec& spec, double device_bytes);
// The lockstep widths this build has (CMake HYDROSWEEP_LANE_WIDTHS, the
// machine's vector width by default): whether W is one, the widest, and
// their list as text ("8", "4, 8").
inline bool lanes_built(int w) {
#ifdef HYDROSWEEP_HAVE_LANES4
  if (w == 4) return true;
#endif
#ifdef HYDROSWEEP_HAVE_LANES8
  if (w == 8) return true;
#endif
  (void)w;
  return false;
}
inline int widest_lanes() { return lanes_built(8) ? 8 : lanes_built(4) ? 4 : 1; }
inline std::string built_lane_widths() {
  std::string s;
  for (int w : {4, 8})
    if (lanes_built(w)) s += (s.empty() ? "" : ", ") + std::to_string(w);
  return s.empty() ? std::string("none") : s;
}

// The lane width a request names (BatchSpec::lanes, StabilityBatch::lanes:
// 0 the widest built, 1 none, 4 or 8), checked: std::invalid_argument names
// the values allowed and the widths this build has.
inline int requested_lanes(int lanes) {
  if (lanes != 0 && lanes != 1 && lanes != 4 && lanes != 8)
    throw std::invalid_argument("lanes: " + std::to_string(lanes) + " is not one of 0 (automatic), 1, 4, 8");
  if (lanes > 1 && !lanes_built(lanes))
    throw std::invalid_argument("lanes: " + std::to_string(lanes) + " is not built here (this build has lanes " +
                                built_lane_widths() + "; CMake option HYDROSWEEP_LANE_WIDTHS)");
  return lanes == 0 ? widest_lanes() : lanes;
}

// Dispatch (b must be available; throws std::runtime_error otherwise).
BatchResult run_batch(const BatchSpec& spec, Backend b);

// The batch of instances [first, first + count) of a study's design (count <
// 0: all), run as its record says. threads: 0 = all cores.
BatchSpec batch_spec(const StudyRecord& record, const Design& design, int threads = 0, long first = 0,
                     long count = -1);

}  // namespace hs
