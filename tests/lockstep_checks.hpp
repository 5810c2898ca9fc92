// What the lockstep suites check of a batch on lanes (kernels/integrators/
// lockstep.hpp, docs/models/lanes.md §4): every instance's summary, its
// controller's report and every recorded sample are its scalar run's
// (run_instance, kernels/integrators/run.hpp) bit for bit, for batches of
// 1 … 3W+1 instances (ragged tails), among which instances that finish, stop
// mid-run and never start.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "kernels/integrators/lockstep.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/quick_return.hpp"

namespace hs::lockstep_checks {

// The batches' own variations, shared by the lockstep suites (runs:
// test_lockstep.cpp; stability points: test_lockstep_stability.cpp). The
// mechanisms: masses and inertias scaled by U(0.8, 1.25), and every fifth
// instance (i % 5 == 3) given a link too short to close its loop, so that it
// never assembles.
inline void vary_mechanism(PlanarLoopChainParams<3>& m, std::mt19937_64& rng, int i) {
  std::uniform_real_distribution<double> u(0.8, 1.25);
  for (auto& b : m.body) { b.mass *= u(rng); b.inertia *= u(rng); }
  if (i % 5 == 3) m.body[1] = slender_rod(1.0, 64.0);  // the coupler
}
inline void vary_mechanism(QuickReturnParams& m, std::mt19937_64& rng, int i) {
  std::uniform_real_distribution<double> u(0.8, 1.25);
  for (auto& b : m.body) { b.mass *= u(rng); b.inertia *= u(rng); }
  if (i % 5 == 3) m.body[1] = quick_return_beam(0.1, 12.0);  // the link: the ram line out of its reach
}
// The cylinder's circuit (bulk moduli, valve, supply) and friction scaled by U(0.8, 1.25).
template <class Cylinder>
void vary_cylinder(Cylinder& a, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.8, 1.25);
  auto& c = a.circuit;
  c.oil_bulk_modulus *= u(rng);
  c.hose_bulk_modulus *= u(rng);
  c.dcv_flow_coefficient *= u(rng);
  c.supply_pressure *= u(rng);
  c.valve_time_constant *= u(rng);
  auto& f = a.friction;
  f.coulomb_force *= u(rng);
  f.static_force *= u(rng);
  f.viscous_coefficient *= u(rng);
  f.lugre_stiffness *= u(rng);
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

template <class Summary>
void expect_same_summary(const Summary& a, const Summary& b, const char* what, int i) {
  SCOPED_TRACE(testing::Message() << what << " instance " << i);
  EXPECT_EQ(static_cast<int>(a.status), static_cast<int>(b.status));
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.newton_iterations, b.newton_iterations);
  EXPECT_EQ(a.max_newton_iterations, b.max_newton_iterations);
  auto same = [&](double x, double y, const char* field) {
    EXPECT_TRUE(same_bits(x, y)) << field << ": lanes " << x << " scalar " << y;
  };
  same(a.t_end, b.t_end, "t_end");
  constexpr int nq = static_cast<int>(sizeof(a.q) / sizeof(a.q[0]));  // every coordinate (10 in 3D)
  constexpr int np = static_cast<int>(sizeof(a.p) / sizeof(a.p[0]));
  constexpr int na = static_cast<int>(sizeof(a.U) / sizeof(a.U[0]));
  for (int k = 0; k < nq; ++k) { same(a.q[k], b.q[k], "q"); same(a.qd[k], b.qd[k], "qd"); }
  for (int k = 0; k < np; ++k) {
    same(a.p[k], b.p[k], "p");
    same(a.p_min[k], b.p_min[k], "p_min");
    same(a.p_max[k], b.p_max[k], "p_max");
  }
  for (int k = 0; k < na; ++k) { same(a.U[k], b.U[k], "U"); same(a.s[k], b.s[k], "s"); }
  same(a.cylinder_work, b.cylinder_work, "cylinder_work");
  same(a.friction_work, b.friction_work, "friction_work");
  same(a.max_cylinder_work, b.max_cylinder_work, "max_cylinder_work");
  same(a.peak_energy_drift, b.peak_energy_drift, "peak_energy_drift");
  same(a.final_energy_drift, b.final_energy_drift, "final_energy_drift");
  same(a.max_constraint_violation, b.max_constraint_violation, "max_constraint_violation");
  same(a.settling_time, b.settling_time, "settling_time");
  same(a.tracking_rms, b.tracking_rms, "tracking_rms");
  // The input policy's report (a controller's tracking figures; none for a schedule).
  if (const auto* ra = a.input_record()) {
    EXPECT_EQ(std::memcmp(ra, b.input_record(), sizeof(*ra)), 0) << "the controller's report";
  }
}

// How the scalar runs of a batch ended.
struct Outcomes {
  int finished = 0, stopped = 0, unstarted = 0;
};
// The scalar runs' summaries, and the counters of the largest lane batch.
template <class One>
struct LanesMatch {
  std::vector<SummaryOf<One>> scalar;
  LockstepCounters counters;
};

// The instances `all` (at least 3W + 1) on W lanes against their scalar runs
// with the settings S and options opt (opt.stride > 0: trajectories too),
// for every batch size around the group boundaries. The batch must exercise
// lanes that finish, stop mid-run and never start. Returns the scalar
// summaries and the counters of the largest batch (lane utilization).
template <class One, int W>
LanesMatch<One> expect_lanes_match_scalar(const std::vector<typename One::Params>& all, const IntegratorSettings& S,
                                           const RunOptions& opt, const char* what) {
  static_assert(LockstepFor<One>::value, "the combination runs on lanes");
  using Samples = std::vector<SampleOf<One>>;
  std::vector<SummaryOf<One>> scalar(all.size());
  std::vector<Samples> scalar_samples(all.size());
  for (size_t i = 0; i < all.size(); ++i)
    scalar[i] = run_instance<One>(all[i], S, opt, [&](long k, const SampleOf<One>& smp) {
      EXPECT_EQ(k, static_cast<long>(scalar_samples[i].size()));
      scalar_samples[i].push_back(smp);
    });
  Outcomes outcome;
  for (const auto& r : scalar) {
    if (r.status == Status::ok) ++outcome.finished;
    else if (r.steps == 0 && r.t_end == 0.0) ++outcome.unstarted;
    else ++outcome.stopped;
  }
  EXPECT_GT(outcome.finished, 0);
  EXPECT_GT(outcome.stopped, 0);
  EXPECT_GT(outcome.unstarted, 0);
  std::printf("  %s, W = %d: %d finish, %d stop mid-run, %d never start\n", what, W, outcome.finished, outcome.stopped,
              outcome.unstarted);
  const int total = static_cast<int>(all.size());
  EXPECT_GE(total, 3 * W + 1);
  LanesMatch<One> result;
  for (int n : {1, 2, W - 1, W, W + 1, 2 * W + 3, 3 * W + 1}) {
    std::vector<SummaryOf<One>> lanes(n);
    std::vector<Samples> lane_samples(n);
    LockstepCounters counters;
    Lockstep<One, W>::run(all.data(), n, S, opt, lanes.data(), &counters, [&](long i, long k, const SampleOf<One>& smp) {
      EXPECT_EQ(k, static_cast<long>(lane_samples[i].size())) << "instance " << i;
      lane_samples[i].push_back(smp);
    });
    for (int i = 0; i < n; ++i) {
      expect_same_summary(lanes[i], scalar[i], what, i);
      EXPECT_EQ(lane_samples[i].size(), scalar_samples[i].size()) << "instance " << i;
      if (lane_samples[i].size() != scalar_samples[i].size()) continue;
      for (size_t k = 0; k < lane_samples[i].size(); ++k)
        EXPECT_EQ(std::memcmp(&lane_samples[i][k], &scalar_samples[i][k], sizeof(SampleOf<One>)), 0)
            << "instance " << i << " sample " << k;
    }
    if (n == 3 * W + 1) result.counters = counters;
  }
  result.scalar = std::move(scalar);
  return result;
}

}  // namespace hs::lockstep_checks
