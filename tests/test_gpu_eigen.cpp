// GPU eigenvalue paths (ctest label "gpu"); every test skips with the reason
// when no CUDA device is visible or the build has no CUDA backend.
//   ctest -L gpu --output-on-failure
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "eigen_test_support.hpp"
#include "host/run/batch.hpp"
#include "host/run/eigen_batch.hpp"

using namespace hs;
using namespace eigen_test;

#define REQUIRE_CUDA()                                                  \
  do {                                                                  \
    std::string why_;                                                   \
    if (!backend_available(Backend::cuda, &why_)) GTEST_SKIP() << why_; \
  } while (0)

namespace {

std::vector<Mat<double, 6, 6>> random_matrices(int n, uint64_t seed) {
  Rng rng{seed};
  std::vector<Mat<double, 6, 6>> out(n);
  for (auto& A : out)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = rng.normal();
  return out;
}

Eigen::MatrixXd to_eigen(const Mat<double, 6, 6>& A) {
  Eigen::MatrixXd M(6, 6);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) M(i, j) = A(i, j);
  return M;
}

}  // namespace

// Same function on both sides; only FMA contraction (nvcc contracts a*b+c,
// gcc in ISO mode does not) can make them differ, by rounding-level
// amounts amplified by the eigenvalue's conditioning: compare with 1e-12
// relative to the spectral radius, and only between converged results.
TEST(GpuEigen, PerThreadKernelAgreesWithCpuOn10000Matrices) {
  REQUIRE_CUDA();
  const auto batch = random_matrices(10000, 21);
  const auto cpu = eigenvalues_batch_cpu<6>(batch);
  const auto gpu = eigenvalues_batch_cuda<6>(batch);
  ASSERT_EQ(gpu.size(), cpu.size());
  double worst = 0.0;
  for (size_t b = 0; b < batch.size(); ++b) {
    ASSERT_EQ(cpu[b].status, eigen_ok) << b;
    ASSERT_EQ(gpu[b].status, eigen_ok) << b;
    const auto c = as_complex(cpu[b]);
    double radius = 0.0;
    for (cplx l : c) radius = std::max(radius, std::abs(l));
    const double d = matched_distance(c, as_complex(gpu[b]), radius);
    worst = std::max(worst, d);
    EXPECT_LE(d, 1e-12) << "matrix " << b;
  }
  std::printf("per-thread CUDA vs CPU: max difference / spectral radius %.2e\n", worst);
  EXPECT_TRUE(eigenvalues_batch_cuda<6>({}).empty());
}

TEST(GpuEigen, CusolverGeevLoopAgreesWithEigen) {
  REQUIRE_CUDA();
  const auto batch = random_matrices(100, 22);
  const auto out = cusolver_geev_loop<6>(batch);
  ASSERT_EQ(out.size(), batch.size());
  double worst = 0.0;
  for (size_t b = 0; b < batch.size(); ++b) {
    ASSERT_EQ(out[b].status, 0) << b;
    const Eigen::VectorXcd ref = Eigen::EigenSolver<Eigen::MatrixXd>(to_eigen(batch[b]), false).eigenvalues();
    const std::vector<cplx> r(ref.data(), ref.data() + 6);
    double radius = 0.0;
    for (cplx l : r) radius = std::max(radius, std::abs(l));
    const double d = matched_distance(as_complex(out[b]), r, radius);
    worst = std::max(worst, d);
    EXPECT_LE(d, 1e-10) << "matrix " << b;
  }
  std::printf("cusolverDnXgeev loop vs Eigen: max difference / spectral radius %.2e\n", worst);
}

// Symmetric matrices as in undamped modal analysis: S = L^{-1} K L^{-T}
// with M = L L^T, K = G G^T + I (SPD), i.e. M^{-1/2} K M^{-1/2} up to an
// orthogonal similarity.
TEST(GpuEigen, SyevjBatchedAgreesWithSelfAdjointEigenSolver) {
  REQUIRE_CUDA();
  Rng rng{23};
  const int n = 1000;
  std::vector<Mat<double, 6, 6>> batch(n);
  std::vector<Eigen::VectorXd> ref(n);
  for (int b = 0; b < n; ++b) {
    Eigen::MatrixXd G(6, 6), H(6, 6);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) { G(i, j) = rng.normal(); H(i, j) = rng.normal(); }
    const Eigen::MatrixXd K = G * G.transpose() + Eigen::MatrixXd::Identity(6, 6);
    const Eigen::MatrixXd M = H * H.transpose() + Eigen::MatrixXd::Identity(6, 6);
    const Eigen::MatrixXd L = M.llt().matrixL();
    Eigen::MatrixXd S = L.triangularView<Eigen::Lower>().solve(K);
    S = L.triangularView<Eigen::Lower>().solve(S.transpose()).eval();
    S = (0.5 * (S + S.transpose())).eval();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) batch[b](i, j) = S(i, j);
    ref[b] = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S, Eigen::EigenvaluesOnly).eigenvalues();  // ascending
  }
  const auto out = symmetric_eigenvalues_batched_cusolver<6>(batch);
  ASSERT_EQ(out.size(), batch.size());
  double worst = 0.0;
  for (int b = 0; b < n; ++b) {
    ASSERT_EQ(out[b].status, 0) << b;
    const double scale = ref[b].cwiseAbs().maxCoeff();
    for (int k = 0; k < 6; ++k) {
      // Symmetric eigenvalues are perfectly conditioned: |err| <= c eps ||S||.
      const double d = std::abs(out[b].re[k] - ref[b](k)) / scale;
      worst = std::max(worst, d);
      EXPECT_LE(d, 1e-12) << "matrix " << b << " eigenvalue " << k;
      EXPECT_EQ(out[b].im[k], 0.0);
    }
  }
  std::printf("cusolverDnDsyevjBatched vs Eigen: max difference / spectral radius %.2e\n", worst);
}
