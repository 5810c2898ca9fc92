// Stability maps on the GPU: one thread per parameter point runs
// stability_point (equilibrium, reduced Jacobian, per-thread eigenvalues),
// the same kernel function as the CPU path of host/run/stability.cpp.
// Parameters in, one StabilityResult<6> out per point; slices sized from
// the free device memory so any batch fits.
#include <algorithm>
#include <vector>

#include "host/run/backends/cuda_support.hpp"
#include "host/run/stability.hpp"
#include "host/run/backends/instance_kernel.hpp"

namespace hs {
namespace {

template <class System>
__global__ void stability_points(const typename System::Params* params, StabilitySettings settings, StabilityResult<6>* out,
                                 long n) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = stability_point<System>(params[i], settings);
}

template <class System>
void launch(const StabilityBatch& batch, std::vector<StabilityResult<6>>& out) {
  using Params = typename System::Params;
  const StabilitySettings settings = batch.settings;
  static_assert(ReducedSize<System>::value == 6, "stability maps store six eigenvalues per point");
  const long n = batch.point_count();
  out.resize(static_cast<size_t>(n));
  if (n == 0) return;
  size_t free_bytes = 0, total_bytes = 0;
  HS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t per_point = sizeof(Params) + sizeof(StabilityResult<6>);
  const long slice = std::max<long>(1, std::min<long>(n, static_cast<long>(free_bytes / 2 / per_point)));
  DeviceBuffer<Params> d_params(slice);
  DeviceBuffer<StabilityResult<6>> d_out(slice);
  // The per-thread Jacobian and QR workspace lives in local memory; 128
  // threads per block keeps enough blocks resident for the latency.
  constexpr int kBlock = 128;
  for (long first = 0; first < n; first += slice) {
    const long count = std::min(slice, n - first);
    const auto instances = params_of_rows<Params>(*batch.model, batch.parameters.data() + first * batch.model->parameter_count(), count);
    HS_CUDA_CHECK(cudaMemcpy(d_params.ptr, instances.data(), count * sizeof(Params), cudaMemcpyHostToDevice));
    const long blocks = (count + kBlock - 1) / kBlock;
    stability_points<System><<<static_cast<unsigned>(blocks), kBlock>>>(d_params.ptr, settings, d_out.ptr, count);
    HS_CUDA_CHECK(cudaGetLastError());
    HS_CUDA_CHECK(cudaMemcpy(out.data() + first, d_out.ptr, count * sizeof(StabilityResult<6>),
                             cudaMemcpyDeviceToHost));
  }
}

}  // namespace

std::vector<StabilityResult<6>> run_stability_cuda(const StabilityBatch& batch) {
  std::string why;
  if (!backend_available(Backend::cuda, &why)) throw std::runtime_error("CUDA stability: " + why);
  std::vector<StabilityResult<6>> out;
  if (!with_stability_combination([&](auto combination) { launch<typename decltype(combination)::System>(batch, out); },
                                  batch.model->physics, batch.friction))
    throw std::invalid_argument("model " + batch.model->name + " has no stability map with friction law '" +
                                batch.friction + "' in this build");
  return out;
}

}  // namespace hs
