// The block size of every device launch (launch_for_each_index,
// cuda_support.hpp), which the simulation kernels' per-thread slots of
// shared memory are sized by (instance_kernel.hpp).
#pragma once

namespace hs {
constexpr int kDeviceThreadsPerBlock = 128;
}  // namespace hs
