// Backend selection and the Kokkos backend against the CPU backend (both run
// the same kernel code, so they must agree; CI runs this with Debian's Serial
// Kokkos).
#include "tests/backend_agreement.hpp"

using namespace hs;

TEST(Backends, NamesAndAvailability) {
  for (const char* name : {"auto", "cpu", "cuda", "kokkos"}) {
    Backend b;
    ASSERT_TRUE(parse_backend(name, b));
    EXPECT_EQ(backend_name(b), name);
  }
  Backend b;
  EXPECT_FALSE(parse_backend("gpu", b));
  EXPECT_TRUE(backend_available(Backend::cpu));
  std::string why;
  if (!backend_available(Backend::cuda, &why)) {
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(resolve_backend(Backend::automatic), Backend::cpu);
    EXPECT_THROW(run_batch_cuda(BatchSpec{}), std::runtime_error);
  } else {
    EXPECT_EQ(resolve_backend(Backend::automatic), Backend::cuda);
  }
  EXPECT_FALSE(backend_device(Backend::cpu).empty());
}

TEST(Backends, KokkosAgreesWithCpu) {
  std::string why;
  if (!backend_available(Backend::kokkos, &why)) GTEST_SKIP() << why;
  BatchSpec spec = backend_test::random_batch(48, 7, 500);
  spec.reference.clear();
  const BatchResult cpu = run_batch_cpu(spec);
  const BatchResult kokkos = run_batch_kokkos(spec);
  // Same code and compiler: agreement far below the 1e-10 the CUDA test allows.
  backend_test::expect_agreement(cpu, kokkos, 1e-10);
}
