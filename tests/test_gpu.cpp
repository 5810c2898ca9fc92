// CUDA backend against the CPU backend (ctest label "gpu"). Without a device
// every test skips with the reason; on a GPU machine:
//   ctest -L gpu --output-on-failure
//   compute-sanitizer --tool memcheck ./build/tests/test_gpu --gtest_filter='*Small*'
#include "tests/backend_agreement.hpp"

using namespace hs;

#define REQUIRE_CUDA()                                                        \
  do {                                                                        \
    std::string why_;                                                         \
    if (!backend_available(Backend::cuda, &why_)) GTEST_SKIP() << why_;       \
  } while (0)

// The acceptance check: 1024 random instances over the whole 10 s
// work cycle, final states within 1e-10 relative, identical status flags.
// (nvcc contracts a*b+c into FMAs, gcc in ISO mode does not: the two paths
// round differently, and 1e-10 bounds how far that may accumulate.)
TEST(Gpu, CudaAgreesWithCpuOn1024RandomInstances) {
  REQUIRE_CUDA();
  BatchSpec spec = backend_test::random_batch(1024, 42, 1000);
  const BatchResult cpu = run_batch_cpu(spec);
  const BatchResult gpu = run_batch_cuda(spec);
  backend_test::expect_agreement(cpu, gpu, 1e-10);
}

// Small batch for compute-sanitizer (memcheck): odd size (partial block),
// trajectories on, a reference trajectory for tracking_rms.
TEST(Gpu, SmallBatchWithTrajectoriesAndReference) {
  REQUIRE_CUDA();
  BatchSpec spec = backend_test::random_batch(37, 3, 250);
  spec.settings.duration = 2.0;
  spec.reference.assign(2001, 1.0);  // any z1(t): both backends read the same values
  const BatchResult cpu = run_batch_cpu(spec);
  const BatchResult gpu = run_batch_cuda(spec);
  for (size_t i = 0; i < cpu.summaries.size(); ++i)
    EXPECT_LE(backend_test::relative_difference(cpu.summaries[i].tracking_rms, gpu.summaries[i].tracking_rms), 1e-10) << i;
  ASSERT_EQ(cpu.trajectories.size(), gpu.trajectories.size());
  for (size_t k = 0; k < cpu.trajectories.size(); ++k)
    if (!std::isnan(cpu.trajectories[k].t)) {
      EXPECT_LE(backend_test::relative_difference(cpu.trajectories[k].q[0], gpu.trajectories[k].q[0]), 1e-10) << k;
    }
}

TEST(Gpu, EmptyBatch) {
  REQUIRE_CUDA();
  const BatchResult r = run_batch_cuda(BatchSpec{});
  EXPECT_TRUE(r.summaries.empty());
}
