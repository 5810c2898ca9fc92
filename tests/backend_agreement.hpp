// Shared by the backend tests: a batch of random instances of the default
// work cycle (some of which fail on purpose) and the comparison of two
// backends' results against the CPU reference.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "host/batch.hpp"
#include "host/parameters.hpp"

namespace hs::backend_test {

// n instances around the seed 002 defaults: friction, bulk modulus, valve
// time constant, supply pressure and valve gain drawn at random; a gain of
// up to 60 makes a few leave the pressure range mid-run.
inline BatchSpec random_batch(long n, unsigned seed, int stride) {
  BatchSpec spec;
  FourBarParams base;
  model_defaults("four-bar", base);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (long i = 0; i < n; ++i) {
    FourBarParams p = base;
    p.friction.coulomb_force *= 0.5 + u(rng);
    p.friction.static_force *= 0.5 + u(rng);
    p.circuit.oil_bulk_modulus *= 0.7 + 0.6 * u(rng);
    p.circuit.valve_time_constant *= 0.5 + u(rng);
    p.circuit.supply_pressure *= 0.8 + 0.4 * u(rng);
    p.input.gain = u(rng) < 0.05 ? 20.0 + 40.0 * u(rng) : 0.8 + 0.4 * u(rng);
    spec.instances.push_back(p);
  }
  spec.trajectory_stride = stride;
  spec.threads = 2;
  return spec;
}

inline double relative_difference(double a, double b) {
  if (a == b) return 0.0;
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  return std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), 1e-300});
}

// Same statuses and failed lists; final states, extremes and works within
// `tolerance` relative (a summary value that is 0 in one must be ~0 in the other).
inline void expect_agreement(const BatchResult& ref, const BatchResult& other, double tolerance) {
  ASSERT_EQ(ref.summaries.size(), other.summaries.size());
  EXPECT_EQ(ref.failed_indices, other.failed_indices);
  int failed = 0;
  for (size_t i = 0; i < ref.summaries.size(); ++i) {
    const auto &a = ref.summaries[i], &b = other.summaries[i];
    EXPECT_EQ(a.status, b.status) << "instance " << i;
    EXPECT_EQ(a.steps, b.steps) << "instance " << i;
    failed += a.status != Status::ok;
    double worst = 0.0;
    for (int k = 0; k < 3; ++k) {
      worst = std::max({worst, relative_difference(a.q[k], b.q[k]), relative_difference(a.p[k], b.p[k]),
                        relative_difference(a.p_max[k], b.p_max[k]), relative_difference(a.p_min[k], b.p_min[k])});
      // Joint rates are ~0 at rest: compare against the scale of the motion.
      worst = std::max(worst, std::fabs(a.qd[k] - b.qd[k]) / 1.0);
    }
    worst = std::max({worst, relative_difference(a.cylinder_work, b.cylinder_work), relative_difference(a.s, b.s)});
    EXPECT_LE(worst, tolerance) << "instance " << i;
  }
  EXPECT_GT(failed, 0) << "the batch should contain failing instances";
  ASSERT_EQ(ref.trajectories.size(), other.trajectories.size());
  for (size_t k = 0; k < ref.trajectories.size(); ++k) {
    const auto &a = ref.trajectories[k], &b = other.trajectories[k];
    ASSERT_TRUE((std::isnan(a.t) && std::isnan(b.t)) || a.t == b.t) << "sample " << k;
    if (!std::isnan(a.t)) {
      ASSERT_LE(relative_difference(a.p[1], b.p[1]), tolerance) << "sample " << k;
    }
  }
}

}  // namespace hs::backend_test
