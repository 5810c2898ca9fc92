// Backend selection and the Kokkos backend against the CPU backend (both run
// the same kernel code, so they must agree; CI runs this with Debian's Serial
// Kokkos).
#include "tests/backend_agreement.hpp"

#include <iostream>

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
  const BatchSpec spec = backend_test::random_batch(48, 7, 500);
  const BatchResult cpu = run_batch_cpu(spec);
  const BatchResult kokkos = run_batch_kokkos(spec);
  EXPECT_GT(backend_test::failed_count(cpu), 0) << "the batch should contain failing instances";
  // Same compiler, flags and kernel code (InstanceKernel → run_instance), one
  // instance per call on either side: nothing may round differently, so every
  // summary field and trajectory channel must be bit-identical (measured:
  // identical with Debian's Kokkos 3.4 Serial, in the -O3 -march=native build
  // and in the ASan + UBSan -O1 build without -march=native).
  const auto worst = backend_test::expect_agreement(cpu, kokkos, 0.0);
  std::cout << "Kokkos vs CPU, worst scaled difference: " << worst.text() << "\n";
}
