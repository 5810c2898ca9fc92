// One mechanism contract, one integrator contract (docs/models/integrators.md §11):
// the double step on any DAE-contract mechanism through DaeMechanism, the 3D
// four-bar of seed 000 integrated over the seed 002 work cycle, and the
// index-1 Baumgarte integrator under run_instance.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/integrators/index1_baumgarte.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/four_bar_3d.hpp"
#include "kernels/models/planar_chain_dae.hpp"

using namespace hs;

namespace {

using PlanarFast = DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>>;
using PlanarThroughDae = DoubleStepTrapezoidal<HydraulicallyActuated<DaeMechanism<PlanarChainDae<3>>, BrownMcPhee>>;
using Spatial = DoubleStepTrapezoidal<HydraulicFourBar3d<BrownMcPhee>>;
using PlanarIndex1 = Index1Baumgarte<ActuatedSystem<PlanarChainDae<3>, BrownMcPhee>>;
using SpatialIndex1 = Index1Baumgarte<ActuatedSystem<SpatialFourBarDae, BrownMcPhee>>;

// A recorded run: the driving coordinate and the pressures at every sample,
// and the summary's figures.
struct Trace {
  Status status = Status::ok;
  long steps = 0;
  std::vector<double> t, crank, p[3];
  double max_constraint_violation = 0.0, peak_energy_drift = 0.0, max_cylinder_work = 0.0;
  double settling_time = 0.0;
  long newton_iterations = 0;
  double wall_seconds = 0.0;
};

template <class Integrator>
Trace trace(const FourBarParams& P, double dt, double duration, int stride) {
  IntegratorSettings S;
  S.dt = dt;
  S.duration = duration;
  RunOptions opt;
  opt.stride = stride;
  Trace out;
  const int drive = Integrator::driving_coordinate();
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_instance<Integrator>(P, S, opt, [&](long, const Sample<Integrator::nq, Integrator::np>& s) {
    out.t.push_back(s.t);
    out.crank.push_back(s.q[drive]);
    for (int k = 0; k < 3; ++k) out.p[k].push_back(s.p[k]);
  });
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.status = r.status;
  out.steps = r.steps;
  out.max_constraint_violation = r.max_constraint_violation;
  out.peak_energy_drift = r.peak_energy_drift;
  out.max_cylinder_work = r.max_cylinder_work;
  out.settling_time = r.settling_time;
  out.newton_iterations = r.newton_iterations;
  return out;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0.0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) d = std::max(d, std::fabs(a[k] - b[k]));
  return d;
}

double max_pressure_difference(const Trace& a, const Trace& b) {
  double d = 0.0;
  for (int k = 0; k < 3; ++k) d = std::max(d, max_difference(a.p[k], b.p[k]));
  return d;
}

// Stride recording every 10 ms at step dt.
int stride_10ms(double dt) { return static_cast<int>(std::lround(1e-2 / dt)); }

}  // namespace

// ---------------------------------------------------------------------------
// Task A: the double step on DAE-contract mechanisms.

// The driving coordinate of each formulation (run_instance's z_1), and the
// 3D initial state against the planar one: φ2 held at the planar crank
// angle, φ32 = z2 and φ43 = z3 (the relative joint angles, docs/models/four-bar-3d.md §2),
// the same s0 and static pressures.
TEST(DaeMechanism, DrivingCoordinateAndInitialState) {
  EXPECT_EQ(PlanarFast::driving_coordinate(), 0);
  EXPECT_EQ(PlanarThroughDae::driving_coordinate(), 0);
  EXPECT_EQ(Spatial::driving_coordinate(), SpatialFourBarDae::phi2);
  const FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  Spatial::State s3;
  Spatial::Constants K3;
  ASSERT_EQ(Spatial::initialize(P, S, s3, K3), Status::ok);
  PlanarFast::State s2;
  PlanarFast::Constants K2;
  ASSERT_EQ(PlanarFast::initialize(P, S, s2, K2), Status::ok);
  EXPECT_EQ(s3.q[SpatialFourBarDae::phi2], s2.q[0]);
  EXPECT_EQ(s3.q[SpatialFourBarDae::phi2], P.mechanism.initial_angle[0]);
  EXPECT_NEAR(s3.q[SpatialFourBarDae::phi32], s2.q[1], 1e-10);
  EXPECT_NEAR(s3.q[SpatialFourBarDae::phi43], s2.q[2], 1e-10);
  EXPECT_NEAR(K3.actuator[0].s0, K2.actuator[0].s0, 1e-12);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(s3.p[k], s2.p[k], 1e-9 * s2.p[k]);
  // Both start at rest with consistent accelerations: the statics hold them.
  EXPECT_LT(std::fabs(s3.qdd[SpatialFourBarDae::phi2]), 1e-12);
  // Full pivoting (docs/models/integrators.md §3.4) takes the coupler angle as
  // the independent coordinate in both formulations: φ32 and z_2.
  EXPECT_EQ(s3.part.indep[0], SpatialFourBarDae::phi32);
  EXPECT_EQ(s2.part.indep[0], 1);
}

// The planar four-bar through DaeMechanism<PlanarChainDae<3>> (every
// derivative by dual numbers) against its semirecursive fast path, 10 s work
// cycle, dt = 1 ms, Brown–McPhee: the same equations, evaluated with
// different roundings. Measured over the 1001 samples: crank angle 5.5e-13
// rad, pressures 1.6e-5 Pa (Release, -march=native; 7.7e-13 rad, 4.1e-5 Pa
// in the sanitizer flavour without FMA). The roundings decide where the
// inner closure solve stops below |Φ|∞ = 1e-11 m (one inner iteration more
// or less moves z_d by up to ~1e-11 m / link length), and nothing
// accumulates: with the
// closure tolerance at 1e-10, 1e-11, 1e-12, 1e-13 m the crank differences
// were 2.7e-14, 5.5e-13, 0, 1.6e-14 rad (an earlier build of this file,
// inlined differently, gave 2.2e-16 rad and 6e-9 Pa at 1e-11). Bounds ~10x.
TEST(DaeMechanism, PlanarChainThroughAdapterMatchesFastPath) {
  const FourBarParams P = seed002_four_bar();
  const Trace fast = trace<PlanarFast>(P, 1e-3, 10.0, 10);
  const Trace dae = trace<PlanarThroughDae>(P, 1e-3, 10.0, 10);
  ASSERT_EQ(fast.status, Status::ok);
  ASSERT_EQ(dae.status, Status::ok);
  ASSERT_EQ(dae.crank.size(), 1001u);
  const double dcrank = max_difference(fast.crank, dae.crank);
  const double dp = max_pressure_difference(fast, dae);
  std::printf("planar via adapter vs fast path: crank %.3g rad, pressures %.3g Pa; wall %.3f s vs %.3f s\n", dcrank,
              dp, dae.wall_seconds, fast.wall_seconds);
  EXPECT_LE(dcrank, 5e-12);
  EXPECT_LE(dp, 1.5e-4);
  std::printf("Newton iterations: %ld (adapter), %ld (fast path)\n", dae.newton_iterations, fast.newton_iterations);
  EXPECT_NEAR(static_cast<double>(dae.newton_iterations), static_cast<double>(fast.newton_iterations), 10.0);
}

// The 3D four-bar (n = 10, m = 9) over the 10 s work cycle at dt = 0.5 ms
// against the planar model on the same parameters: φ2 = z_1 at every 10 ms
// sample within 1e-6 rad. Measured 8.8e-13 rad, pressures 4.4e-5 Pa
// (sanitizer flavour without FMA: 8.1e-13 rad, 7.9e-5 Pa): full
// pivoting picks the coupler angle as the independent coordinate in both
// formulations (φ32 in 3D, z_2 in the plane, the same angle), so the
// trapezoidal rule integrates the same coordinate of the same ODE and only
// the inner closure tolerance (|Φ|∞ ≤ 1e-11 m on ~m-long links) separates
// them. Also: status ok, every step closed to the constraint tolerance, the
// energy balance (measured peak drift 1.13e-3 J of 61.8 J cylinder work,
// 1.8e-5, the planar model's figure), the same settling time.
TEST(SpatialFourBar, WorkCycleMatchesPlanarModel) {
  const FourBarParams P = seed002_four_bar();
  const double dt = 5e-4;
  const Trace planar = trace<PlanarFast>(P, dt, 10.0, stride_10ms(dt));
  const Trace spatial = trace<Spatial>(P, dt, 10.0, stride_10ms(dt));
  ASSERT_EQ(planar.status, Status::ok);
  ASSERT_EQ(spatial.status, Status::ok);
  EXPECT_EQ(spatial.steps, 20000);
  ASSERT_EQ(spatial.crank.size(), 1001u);
  double dcrank = 0.0;
  for (size_t k = 0; k < spatial.crank.size(); ++k) {
    EXPECT_EQ(spatial.t[k], planar.t[k]);
    EXPECT_NEAR(spatial.crank[k], planar.crank[k], 1e-6) << "t = " << spatial.t[k];
    dcrank = std::max(dcrank, std::fabs(spatial.crank[k] - planar.crank[k]));
  }
  const double dp = max_pressure_difference(planar, spatial);
  std::printf("3D vs planar, dt 0.5 ms: crank %.3g rad, pressures %.3g Pa; wall 3D %.3f s, planar %.3f s\n", dcrank, dp,
              spatial.wall_seconds, planar.wall_seconds);
  std::printf("3D: |C| %.3g m, peak drift %.6g J of %.6g J (planar %.6g J)\n", spatial.max_constraint_violation,
              spatial.peak_energy_drift, spatial.max_cylinder_work, planar.peak_energy_drift);
  EXPECT_LE(dcrank, 1e-11);  // 10x the measured agreement (the 1e-6 above is the requirement)
  EXPECT_LE(dp, 5e-4);
  EXPECT_LE(spatial.max_constraint_violation, IntegratorSettings{}.constraint_tolerance);
  EXPECT_GT(spatial.max_cylinder_work, 50.0);
  EXPECT_LE(spatial.peak_energy_drift, 5e-5 * spatial.max_cylinder_work);
  EXPECT_NEAR(spatial.settling_time, planar.settling_time, 0.5 * dt);
}

// Self-convergence of the 3D run: φ2 at t = 3 s with dt = 0.5, 0.25,
// 0.125 ms. Measured differences 6.90e-8 and 1.72e-8 rad, ratio 4.004.
TEST(SpatialFourBar, SecondOrderConvergence) {
  const FourBarParams P = seed002_four_bar();
  double crank[3];
  for (int i = 0; i < 3; ++i) {
    const Trace r = trace<Spatial>(P, 5e-4 / (1 << i), 3.0, 1);
    ASSERT_EQ(r.status, Status::ok);
    crank[i] = r.crank.back();
  }
  const double d1 = crank[0] - crank[1], d2 = crank[1] - crank[2];
  std::printf("3D phi2(3 s): differences %.4g, %.4g rad, ratio %.4f\n", d1, d2, d1 / d2);
  EXPECT_NEAR(d1 / d2, 4.0, 0.2);
  EXPECT_LT(std::fabs(d1), 1e-6);
}

// ---------------------------------------------------------------------------
// Task B: the index-1 Baumgarte integrator under run_instance.

// Same initial state as the double step (equilibrium.hpp's assembly and
// statics vs the double step's; the assembly tolerances differ, 1e-12 vs
// 1e-11 m).
TEST(Index1Baumgarte, StartsFromTheDoubleStepInitialState) {
  const FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  PlanarFast::State ds;
  PlanarFast::Constants Kd;
  ASSERT_EQ(PlanarFast::initialize(P, S, ds, Kd), Status::ok);
  PlanarIndex1::State ip;
  PlanarIndex1::Constants Kp;
  ASSERT_EQ(PlanarIndex1::initialize(P, S, ip, Kp), Status::ok);
  SpatialIndex1::State is;
  SpatialIndex1::Constants Ks;
  ASSERT_EQ(SpatialIndex1::initialize(P, S, is, Ks), Status::ok);
  EXPECT_EQ(PlanarIndex1::driving_coordinate(), 0);
  EXPECT_EQ(SpatialIndex1::driving_coordinate(), SpatialFourBarDae::phi2);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(ip.q[k], ds.q[k], 1e-10);
    EXPECT_EQ(ip.qd[k], 0.0);
  }
  EXPECT_EQ(is.q[SpatialFourBarDae::phi2], ds.q[0]);
  EXPECT_NEAR(is.q[SpatialFourBarDae::phi32], ds.q[1], 1e-10);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(ip.p[k], ds.p[k], 1e-9 * ds.p[k]);
    EXPECT_NEAR(is.p[k], ds.p[k], 1e-9 * ds.p[k]);
  }
  EXPECT_EQ(ip.U[0], 0.0);
  EXPECT_NEAR(Kp.actuator[0].s0, Kd.actuator[0].s0, 1e-12);
  EXPECT_NEAR(Ks.actuator[0].s0, Kd.actuator[0].s0, 1e-12);
}

// The planar four-bar, 10 s work cycle: index-1 Baumgarte vs the double
// step, both second order, so their difference shrinks by 4 when dt halves.
// Measured: crank 1.642e-9 → 4.127e-10 rad (ratio 3.98), pressures
// 1.317 → 0.331 Pa (3.97) from dt = 1 ms to 0.5 ms.
TEST(Index1Baumgarte, PlanarConvergesToTheDoubleStep) {
  const FourBarParams P = seed002_four_bar();
  double dcrank[2], dp[2];
  for (int i = 0; i < 2; ++i) {
    const double dt = 1e-3 / (1 << i);
    const Trace a = trace<PlanarIndex1>(P, dt, 10.0, stride_10ms(dt));
    const Trace b = trace<PlanarFast>(P, dt, 10.0, stride_10ms(dt));
    ASSERT_EQ(a.status, Status::ok);
    ASSERT_EQ(b.status, Status::ok);
    EXPECT_EQ(a.steps, b.steps);
    dcrank[i] = max_difference(a.crank, b.crank);
    dp[i] = max_pressure_difference(a, b);
    std::printf("planar index-1 vs double step, dt %g: crank %.4g rad, pressures %.4g Pa, |C| %.3g m, drift %.4g J\n",
                dt, dcrank[i], dp[i], a.max_constraint_violation, a.peak_energy_drift);
    EXPECT_LE(a.max_constraint_violation, 1e-8);  // Baumgarte-held drift: 8.8e-9 m at 1 ms, 2.2e-9 m at 0.5 ms
  }
  EXPECT_NEAR(dcrank[0] / dcrank[1], 4.0, 0.4);
  EXPECT_NEAR(dp[0] / dp[1], 4.0, 0.4);
  EXPECT_LT(dcrank[0], 1e-8);
}

// The 3D four-bar on the index-1 integrator, work cycle at dt = 0.5 ms.
// Measured: φ2 within 7.2e-9 rad of the planar double step (the two
// integrators' O(dt²) difference, as in the planar test), |C|∞ 1.35e-9,
// peak drift 1.12e-3 J of 61.8 J.
TEST(Index1Baumgarte, SpatialRunsTheWorkCycle) {
  const FourBarParams P = seed002_four_bar();
  const double dt = 5e-4;
  const Trace a = trace<SpatialIndex1>(P, dt, 10.0, stride_10ms(dt));
  const Trace b = trace<PlanarFast>(P, dt, 10.0, stride_10ms(dt));
  ASSERT_EQ(a.status, Status::ok);
  EXPECT_EQ(a.steps, 20000);
  const double dcrank = max_difference(a.crank, b.crank);
  std::printf("3D index-1, dt 0.5 ms: crank vs planar double step %.4g rad, |C| %.3g m, drift %.4g of %.4g J, wall %.3f s\n",
              dcrank, a.max_constraint_violation, a.peak_energy_drift, a.max_cylinder_work, a.wall_seconds);
  EXPECT_LT(dcrank, 5e-8);
  EXPECT_LE(a.max_constraint_violation, 1e-8);
  EXPECT_LE(a.peak_energy_drift, 5e-5 * a.max_cylinder_work);
}

// The elementary-rotation products the 3D four-bar chains
// (kernels/models/rigid_body_system.hpp: times_rotation_x, rotation_zy,
// point_in_body_plane) against the plain 3 × 3 products they replace
// (mat3_mul with rotation_x/y/z, the full p + R v): the same values in every
// component of the jets the double step evaluates them on (Dual<10, Dual<1>>),
// the structural zeros included; only the sign of an exact zero may differ
// (0 == -0 here), a nonzero value is the same double.
TEST(SpatialFourBar, RotationProductsGiveTheFullProductsValues) {
  using J = Dual<10, Dual<1>>;
  auto same = [](double a, double b) { return a == b && (a != 0.0 || b == 0.0); };
  auto expect_same = [&](const J& a, const J& b, const char* what) {
    EXPECT_TRUE(same(a.a.a, b.a.a) && same(a.a.v[0], b.a.v[0])) << what;
    for (int k = 0; k < 10; ++k) EXPECT_TRUE(same(a.v[k].a, b.v[k].a) && same(a.v[k].v[0], b.v[k].v[0])) << what << " " << k;
  };
  J psi = J::variable(0.3, 0), theta = J::variable(-0.7, 1), phi = J::variable(1.1, 2);
  psi.a.v[0] = 0.25;
  theta.a.v[0] = -1.5;
  phi.a.v[0] = 2.0;
  J Rz[3][3], Ry[3][3], Rx[3][3], full_zy[3][3], fast_zy[3][3], full[3][3], fast[3][3];
  rotation_z(psi, Rz);
  rotation_y(theta, Ry);
  mat3_mul(Rz, Ry, full_zy);
  rotation_zy(psi, theta, fast_zy);
  rotation_x(phi, Rx);
  mat3_mul(full_zy, Rx, full);
  times_rotation_x(fast_zy, phi, fast);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      expect_same(fast_zy[i][j], full_zy[i][j], "R_Z R_Y");
      expect_same(fast[i][j], full[i][j], "R_Z R_Y R_X");
    }
  const J p[3] = {J::variable(0.4, 3), J::variable(-2.0, 4), J::variable(1.25, 5)};
  J in_plane[3], general[3];
  point_in_body_plane(p, full, 0.75, -1.5, in_plane);
  for (int i = 0; i < 3; ++i) general[i] = p[i] + full[i][0] * 0.0 + full[i][1] * 0.75 + full[i][2] * -1.5;
  for (int i = 0; i < 3; ++i) expect_same(in_plane[i], general[i], "p + R (0, v1, v2)");
}
