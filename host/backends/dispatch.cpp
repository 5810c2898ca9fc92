// Backend selection. The CUDA and Kokkos entry points exist only in builds
// that have them; this file turns their absence into clear errors.
#include <fstream>
#include <limits>
#include <stdexcept>

#include "host/backends/instance_kernel.hpp"

namespace hs {

#ifdef HYDROSWEEP_HAVE_CUDA
int cuda_device_count();           // host/backends/cuda.cu: 0 without a usable device
std::string cuda_device_name();    // of device 0
#endif
#ifdef HYDROSWEEP_HAVE_KOKKOS
std::string kokkos_execution_space();  // host/backends/kokkos.cpp
#endif

FourBarSample blank_sample() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  FourBarSample blank;
  blank.t = blank.U = blank.s = blank.sdot = blank.piston_force = blank.friction_force = blank.energy_drift = nan;
  for (double& q : blank.q) q = nan;
  for (double& p : blank.p) p = nan;
  return blank;
}

BatchResult blank_result(const BatchSpec& spec) {
  BatchResult out;
  const long n = static_cast<long>(spec.instances.size());
  out.summaries.assign(static_cast<size_t>(n), unstarted_summary<3, 3>(Status::not_run));
  out.samples_per_instance = sample_count(spec.settings, spec.trajectory_stride);
  out.trajectories.assign(static_cast<size_t>(n * out.samples_per_instance), blank_sample());
  return out;
}

void collect_failed_indices(BatchResult& out) {
  out.failed_indices.clear();
  for (size_t i = 0; i < out.summaries.size(); ++i)
    if (out.summaries[i].status != Status::ok) out.failed_indices.push_back(static_cast<long>(i));
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) return line.substr(line.find_first_not_of(' ', c + 1));
    }
  return "unknown CPU";
}

bool parse_backend(const std::string& name, Backend& out) {
  if (name == "auto") { out = Backend::automatic; return true; }
  if (name == "cpu") { out = Backend::cpu; return true; }
  if (name == "cuda") { out = Backend::cuda; return true; }
  if (name == "kokkos") { out = Backend::kokkos; return true; }
  return false;
}

std::string backend_name(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::kokkos: return "kokkos";
  }
  return "?";
}

bool backend_available(Backend b, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  switch (b) {
    case Backend::automatic:
    case Backend::cpu: return true;
    case Backend::cuda:
#ifdef HYDROSWEEP_HAVE_CUDA
      if (cuda_device_count() > 0) return true;
      return no("no CUDA device is visible (the CUDA backend is built; cudaGetDeviceCount found none)");
#else
      return no("this build has no CUDA backend (nvcc was not found when it was configured)");
#endif
    case Backend::kokkos:
#ifdef HYDROSWEEP_HAVE_KOKKOS
      return true;
#else
      return no("this build has no Kokkos backend (Kokkos was not found when it was configured; "
                "Debian: libtrilinos-kokkos-dev)");
#endif
  }
  return no("unknown backend");
}

Backend resolve_backend(Backend b) {
  if (b != Backend::automatic) return b;
  return backend_available(Backend::cuda) ? Backend::cuda : Backend::cpu;
}

std::string backend_device(Backend b) {
  switch (resolve_backend(b)) {
    case Backend::cuda:
#ifdef HYDROSWEEP_HAVE_CUDA
      return cuda_device_name();
#else
      break;
#endif
    case Backend::kokkos:
#ifdef HYDROSWEEP_HAVE_KOKKOS
      return "Kokkos " + kokkos_execution_space();
#else
      break;
#endif
    default: return cpu_model();
  }
  return "unavailable";
}

#ifndef HYDROSWEEP_HAVE_CUDA
BatchResult run_batch_cuda(const BatchSpec&) {
  std::string why;
  backend_available(Backend::cuda, &why);
  throw std::runtime_error("backend cuda: " + why);
}
#endif
#ifndef HYDROSWEEP_HAVE_KOKKOS
BatchResult run_batch_kokkos(const BatchSpec&) {
  std::string why;
  backend_available(Backend::kokkos, &why);
  throw std::runtime_error("backend kokkos: " + why);
}
#endif

BatchResult run_batch(const BatchSpec& spec, Backend b) {
  switch (resolve_backend(b)) {
    case Backend::cuda: return run_batch_cuda(spec);
    case Backend::kokkos: return run_batch_kokkos(spec);
    default: return run_batch_cpu(spec);
  }
}

}  // namespace hs
