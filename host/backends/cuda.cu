// CUDA backend: one GPU thread per instance, the whole horizon in one launch
// (the state of an instance lives in its thread's registers and local
// memory for all its steps), the same InstanceKernel as the CPU backend.
//
// Memory: plain cudaMalloc. Parameters and summaries are per-instance
// records read or written once per launch; trajectories are sample-major on
// the device (sample k of all instances contiguous) so that the threads of
// a warp write neighbouring addresses, and are transposed to the host's
// instance-major layout on the way back. A batch larger than what fits in
// free device memory runs in slices. Failed instances are counted and
// compacted into an index list with Thrust on the device.
//
// Every CUDA call is checked; a failure throws with the call, the place and
// CUDA's reason.
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "host/backends/cuda_support.hpp"
#include "host/backends/instance_kernel.hpp"

namespace hs {
namespace {

template <class Kernel>
__global__ void run_instances(Kernel kernel, long n) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) kernel(i);
}

struct NotOk {
  const FourBarSummary* summaries;
  __host__ __device__ bool operator()(long i) const { return summaries[i].status != Status::ok; }
};

constexpr int kBlock = 128;

}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error for the caller
    return 0;
  }
  return n;
}

std::string cuda_device_name() {
  cudaDeviceProp prop;
  HS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.totalGlobalMem >> 20) + " MiB)";
}

BatchResult run_batch_cuda(const BatchSpec& spec) {
  if (cuda_device_count() == 0) throw std::runtime_error("backend cuda: no CUDA device is visible");
  BatchResult out = blank_result(spec);
  const long n = static_cast<long>(spec.instances.size());
  const long m = out.samples_per_instance;
  out.threads_used = 0;
  if (n == 0) return out;
  const auto t0 = std::chrono::steady_clock::now();

  // Instances per slice: what fits in 80 % of the free memory.
  size_t free_bytes = 0, total_bytes = 0;
  HS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t per_instance = sizeof(FourBarParams) + sizeof(FourBarSummary) + m * sizeof(FourBarSample) + sizeof(long);
  const long slice = std::max<long>(1, std::min<long>(n, static_cast<long>(0.8 * free_bytes / per_instance)));

  DeviceBuffer<double> reference(spec.reference.size());
  if (!spec.reference.empty())
    HS_CUDA_CHECK(cudaMemcpy(reference.ptr, spec.reference.data(), spec.reference.size() * sizeof(double),
                             cudaMemcpyHostToDevice));
  RunOptions opt = run_options(spec);
  if (opt.reference) opt.reference = reference.ptr;

  std::vector<FourBarSample> host_traj(static_cast<size_t>(slice * m));
  for (long first = 0; first < n; first += slice) {
    if (spec.cancel && spec.cancel->load()) { out.cancelled = true; break; }
    const long count = std::min(slice, n - first);
    DeviceBuffer<FourBarParams> params(count);
    DeviceBuffer<FourBarSummary> summaries(count);
    DeviceBuffer<FourBarSample> trajectories(static_cast<size_t>(count * m));
    HS_CUDA_CHECK(cudaMemcpy(params.ptr, spec.instances.data() + first, count * sizeof(FourBarParams), cudaMemcpyHostToDevice));
    // Samples a failed instance never records stay blank, as on the CPU
    // (cudaMalloc'd memory is not initialised).
    if (m > 0)
      thrust::fill(thrust::device, thrust::device_pointer_cast(trajectories.ptr),
                   thrust::device_pointer_cast(trajectories.ptr) + count * m, blank_sample());
    with_friction(spec.friction, [&](auto friction) {
      const InstanceKernel<decltype(friction)> kernel{params.ptr, summaries.ptr, trajectories.ptr, m, spec.settings, opt,
                                                      /*instance_stride=*/1, /*sample_stride=*/count};
      const unsigned blocks = static_cast<unsigned>((count + kBlock - 1) / kBlock);
      run_instances<<<blocks, kBlock>>>(kernel, count);
      HS_CUDA_CHECK(cudaGetLastError());
      return 0;
    });
    HS_CUDA_CHECK(cudaDeviceSynchronize());

    // Batch reduction and compaction of the failed instances on the device.
    const NotOk not_ok{summaries.ptr};
    const long failed = thrust::count_if(thrust::device, thrust::counting_iterator<long>(0),
                                         thrust::counting_iterator<long>(count), not_ok);
    if (failed > 0) {
      thrust::device_vector<long> idx(failed);
      thrust::copy_if(thrust::device, thrust::counting_iterator<long>(0), thrust::counting_iterator<long>(count),
                      idx.begin(), not_ok);
      std::vector<long> h(failed);
      thrust::copy(idx.begin(), idx.end(), h.begin());
      for (long i : h) out.failed_indices.push_back(first + i);
    }

    HS_CUDA_CHECK(cudaMemcpy(out.summaries.data() + first, summaries.ptr, count * sizeof(FourBarSummary), cudaMemcpyDeviceToHost));
    if (m > 0) {
      HS_CUDA_CHECK(cudaMemcpy(host_traj.data(), trajectories.ptr, count * m * sizeof(FourBarSample), cudaMemcpyDeviceToHost));
      for (long i = 0; i < count; ++i)
        for (long k = 0; k < m; ++k) out.trajectories[(first + i) * m + k] = host_traj[k * count + i];
    }
    if (spec.progress) spec.progress->fetch_add(count);
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace hs
