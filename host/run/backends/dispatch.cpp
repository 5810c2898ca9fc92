// Backend selection. The CUDA and Kokkos entry points exist only in builds
// that have them; this file turns their absence into clear errors.
#include <algorithm>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "host/run/backends/instance_kernel.hpp"

namespace hs {

#ifdef HYDROSWEEP_HAVE_CUDA
int cuda_device_count();           // host/run/backends/cuda.cu: 0 without a usable device
std::string cuda_device_name();    // of the current device
void use_cuda_device_of_local_rank(int local_rank);
#endif
#ifdef HYDROSWEEP_HAVE_KOKKOS
std::string kokkos_execution_space();  // host/run/backends/kokkos.cpp
#endif

void BatchResult::mark_unstarted(long i, Status s) {
  status[i] = s;
  std::copy(unstarted_row.begin(), unstarted_row.end(), summaries.begin() + i * summary_width);
  const long row = samples_per_instance * sample_width;
  std::fill_n(trajectories.begin() + i * row, row, std::numeric_limits<double>::quiet_NaN());
}

void collect_failed_indices(BatchResult& out) {
  out.failed_indices.clear();
  for (size_t i = 0; i < out.status.size(); ++i)
    if (out.status[i] != Status::ok) out.failed_indices.push_back(static_cast<long>(i));
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

void use_device_of_local_rank(Backend b, int local_rank) {
#ifdef HYDROSWEEP_HAVE_CUDA
  if (b == Backend::cuda) use_cuda_device_of_local_rank(local_rank);
#else
  (void)b;
  (void)local_rank;
#endif
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
