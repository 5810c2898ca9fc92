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

// Every registered model and every shipped model file with every friction law and semirecursive
// trapezoidal formulation (double step, penalty; not the index-1 reference
// integrator) on Kokkos: the same kernel over the same rows, bit-identical to
// the CPU backend (2 s of each model's cycle, 4 instances; the LuGre laws'
// states ride in the same Newton solve).
TEST(Backends, KokkosAgreesWithCpuOnEveryModelFormulationAndFrictionLaw) {
  std::string why;
  if (!backend_available(Backend::kokkos, &why)) GTEST_SKIP() << why;
  for (const ModelDescriptor* model : backend_test::compiled_models_and_model_files()) {
    const ModelDescriptor& m = *model;
    if (!m.supports_command("run")) continue;
    for (const auto& formulation : m.formulations)
    for (const auto& friction : m.friction_laws_of(formulation)) {
      if (formulation == "index1-baumgarte") continue;
      SCOPED_TRACE(m.name + " / " + friction + " / " + formulation);
      BatchSpec spec = backend_test::model_batch(m, 4, 11, 100, 2.0, friction);
      spec.formulation = formulation;
      const BatchResult cpu = run_batch_cpu(spec);
      EXPECT_EQ(backend_test::failed_count(cpu), 0);
      backend_test::expect_agreement(cpu, run_batch_kokkos(spec), 0.0, m);
    }
  }
}

// Stability maps on Kokkos: the same stability_point kernel function over
// the same parameter rows as the CPU path, both formulations, so every
// figure is bit-identical (measured: identical with Debian's Kokkos Serial).
#include "host/run/stability_map.hpp"
TEST(Backends, KokkosStabilityMapAgreesWithCpu) {
  std::string why;
  if (!backend_available(Backend::kokkos, &why)) GTEST_SKIP() << why;
  for (const char* model : {"four-bar", "four-bar-3d"}) {
    SCOPED_TRACE(model);
    const ModelDescriptor& m = *find_model(model);
    StabilityBatch batch;
    batch.model = &m;
    batch.friction = "bengisu-akay";
    auto at = [&](const char* name) { return m.find_parameter(name)->index; };
    for (int i = 0; i < 24; ++i) {
      std::vector<double> P = m.defaults;
      P[at("circuit.oil_bulk_modulus")] = 0.5e9 + 1.5e9 * i / 23.0;
      P[at("mechanism.initial_angle1")] += 0.02 * (i % 5);
      if (i == 7) P[at("mechanism.cut_x")] = 20.0;  // one point that cannot assemble
      batch.parameters.insert(batch.parameters.end(), P.begin(), P.end());
    }
    const auto cpu = run_stability_cpu(batch);
    const auto kokkos = run_stability_kokkos(batch);
    ASSERT_EQ(cpu.size(), kokkos.size());
    long ok = 0;
    for (size_t i = 0; i < cpu.size(); ++i) {
      EXPECT_EQ(cpu[i].status, kokkos[i].status) << i;
      ok += cpu[i].status == 0;
      EXPECT_EQ(cpu[i].structural_zeros, kokkos[i].structural_zeros) << i;
      EXPECT_EQ(cpu[i].overdamped, kokkos[i].overdamped) << i;
      for (int k = 0; k < 6; ++k) {
        EXPECT_TRUE(backend_test::identical(cpu[i].re[k], kokkos[i].re[k])) << i << " " << k;
        EXPECT_TRUE(backend_test::identical(cpu[i].im[k], kokkos[i].im[k])) << i << " " << k;
      }
      EXPECT_TRUE(backend_test::identical(cpu[i].max_real, kokkos[i].max_real)) << i;
      EXPECT_TRUE(backend_test::identical(cpu[i].crank_angle, kokkos[i].crank_angle)) << i;
    }
    EXPECT_EQ(ok, 23) << "every point but the one that cannot assemble";
    EXPECT_NE(cpu[7].status, 0);
  }
}

// The one host path (host/run/backends/space_batch.hpp) on the CPU's space in
// slices: a batch of 37 cut into slices of a few instances -- on the lockstep
// lanes without trajectories (slices a multiple of the lane width, the last
// group ragged), one instance at a time with them -- gives the bits of one
// slice, failed instances and lane counters included. Slicing moves
// instances between launches, never what an instance computes.
TEST(Backends, CpuSlicesGiveTheBitsOfOneSlice) {
  for (const int stride : {0, 50}) {
    SCOPED_TRACE("trajectory stride " + std::to_string(stride));
    BatchSpec spec = backend_test::random_batch(37, 13, stride, 3.0);
    const BatchResult whole = run_batch_cpu(spec);
    ASSERT_GT(backend_test::failed_count(whole), 0) << "the batch should contain failing instances";
    // Bytes for a few instances' buffers (their flat rows are a lower bound
    // of the typed records space_batch::slice_size counts).
    const double per_instance = static_cast<double>(whole.summary_width + whole.samples_per_instance * whole.sample_width) *
                                sizeof(double);
    spec.cpu_slice_bytes = 8.5 * per_instance;
    const BatchResult sliced = run_batch_cpu(spec);
    EXPECT_EQ(sliced.lanes_used, whole.lanes_used);
    if (stride == 0) {
      EXPECT_GT(whole.lanes_used, 1) << "no trajectories: the batch runs on lanes";
      EXPECT_EQ(sliced.lane_iterations, whole.lane_iterations);
      EXPECT_EQ(sliced.active_lane_iterations, whole.active_lane_iterations);
    }
    backend_test::expect_agreement(whole, sliced, 0.0);
  }
}
