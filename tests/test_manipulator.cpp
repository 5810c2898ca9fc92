// Seed 004's Lift + Tilt manipulator under virtual decomposition control
// (kernels/models/lift_tilt.hpp, kernels/control/vdc.hpp,
// docs/models/manipulator.md).
//
// What is checked, and against what:
// - the Newton–Euler actuator forces of seed 004 eqs (68)–(69) against
//   Lagrange's equations built from the energies of world-frame kinematics
//   written separately (positions of every body from the frame definitions,
//   differentiated by dual numbers) — the independent second formulation the
//   issue asks for (seed 004 reports 0.2 % against Simscape);
// - the loop closure in its robust form against seed 004's arccos forms
//   (19)–(20) and its rates against eqs (21)–(23);
// - the closed-form inverse kinematics against the forward kinematics;
// - the quintic path's rest-to-rest boundary values;
// - the engine's energy balance without friction is second order in dt
//   (the integrator's error, cylinder work accounted);
// - the nominal closed loop tracks the A-B-C-D path (figures printed);
// - a cylinder that leaves its stroke is flagged with its status and time,
//   a valve voltage at its limit is reported with the time it started.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels/integrators/run.hpp"
#include "kernels/models/lift_tilt_descriptor.hpp"

using namespace hs;

namespace {

using Integrator = DoubleStepTrapezoidal<LiftTiltModel<BrownMcPhee>>;
using Frictionless = DoubleStepTrapezoidal<LiftTiltModel<NoFriction>>;

// Lagrange's equations τ = d/dt ∂T/∂q̇ − ∂T/∂q + ∂V/∂q from energies of the
// world-frame kinematics: T = Σ ½ m |ċ|² + ½ I_c θ̇² with c, θ from
// LiftTilt::world_pose (not the twist recursion). Outer Dual<4> over
// (q, q̇) carries ∂/∂(q, q̇); each component is a time jet Dual<1> whose ε
// part is d/dt along (q̇, q̈).
void lagrange_forces(const LiftTiltParams& P, const double* q, const double* qd, const double* qdd, double* tau) {
  using Tj = Dual<1>;
  using G = Dual<4, Tj>;
  auto var = [](double v, double vdot, int k) {
    Tj t(v);
    t.v[0] = vdot;
    return G::variable(t, k);
  };
  G qv[2] = {var(q[0], qd[0], 0), var(q[1], qd[1], 1)};
  G qdv[2] = {var(qd[0], qdd[0], 2), var(qd[1], qdd[1], 3)};
  // Positions along q and their time derivative along q̇: one more level.
  using P1 = Dual<1, G>;
  P1 qp[2];
  for (int j = 0; j < 2; ++j) {
    qp[j] = P1(qv[j]);
    qp[j].v[0] = qdv[j];
  }
  const auto w = LiftTilt::world_pose(P, qp);
  const auto b = LiftTilt::bodies(P);
  G T(0.0), V(0.0);
  for (int k = 0; k < LiftTilt::nb; ++k) {
    const auto c = w.origin[k] + LiftTilt::along(w.angle[k], b[k].com_x, b[k].com_y);
    const G vx = c.x.v[0], vy = c.y.v[0], om = w.angle[k].v[0];
    T += 0.5 * b[k].mass * (vx * vx + vy * vy) + 0.5 * b[k].inertia * om * om;
    V -= b[k].mass * (P.gravity_x * c.x.a + P.gravity_y * c.y.a);
  }
  const G L = T - V;
  for (int j = 0; j < 2; ++j) tau[j] = L.v[2 + j].v[0] - L.v[j].a;  // d/dt ∂L/∂q̇ − ∂L/∂q
}

}  // namespace

TEST(LiftTiltDynamics, NewtonEulerForcesEqualLagrangesEquations) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    LiftTiltParams P = seed004_lift_tilt_mechanism();
    P.payload_mass = 300.0 * (0.5 + 0.5 * u(rng));
    P.payload_inertia = 20.0 * (0.5 + 0.5 * u(rng));
    P.payload_x += 0.3 * u(rng);
    // Poses of the working range (docs/models/manipulator.md §5), any rates.
    const double q[2] = {-1.2 + 0.35 * u(rng), -1.75 + 0.45 * u(rng)};
    const double qd[2] = {0.8 * u(rng), 0.8 * u(rng)};
    const double qdd[2] = {3.0 * u(rng), 3.0 * u(rng)};
    double f_c[2], tau[2], ref[2];
    LiftTilt::inverse_dynamics(P, q, qd, qdd, f_c, tau);
    lagrange_forces(P, q, qd, qdd, ref);
    for (int j = 0; j < 2; ++j) {
      const double scale = std::fabs(ref[j]) + 1.0;
      worst = std::fmax(worst, std::fabs(tau[j] - ref[j]) / scale);
      // f_cj itself: τ_j / (∂x_j/∂q_j) (eq 21).
      const double dx = segment_pose(P.segment[j], q[j]).dx_dq;
      EXPECT_NEAR(f_c[j], ref[j] / dx, 1e-12 * (std::fabs(ref[j] / dx) + 1.0));
    }
  }
  // Measured 1.2e-14; the issue asks for 1e-9 (seed 004: 0.2 % against Simscape).
  std::printf("max |tau_NE - tau_Lagrange| / (|tau| + 1 N m) over 200 states: %.3e\n", worst);
  EXPECT_LT(worst, 1e-13);
}

TEST(LiftTiltDynamics, LoopClosureMatchesSeedArccosFormsAndRates) {
  const LiftTiltParams P = seed004_lift_tilt_mechanism();
  for (int j = 0; j < 2; ++j) {
    const RevoluteSegment& g = P.segment[j];
    for (double q = -2.6; q <= -0.4; q += 0.2) {
      const SegmentPose<double> s = segment_pose(g, q);
      const double l = s.length, L = g.base_link, L1 = g.rod_link;
      // Eqs (18)–(20).
      EXPECT_NEAR(s.stroke, std::sqrt(L * L + L1 * L1 + 2 * L * L1 * std::cos(q)) - g.zero_length, 1e-14);
      const double q1 = -std::acos((L1 * L1 - l * l - L * L) / (-2.0 * l * L));
      const double q2 = -std::acos((L * L - l * l - L1 * L1) / (-2.0 * l * L1));
      EXPECT_NEAR(std::atan2(s.s1, s.c1), q1, 1e-12);
      EXPECT_NEAR(std::atan2(s.s2, s.c2), q2, 1e-12);
      EXPECT_NEAR(q1 + q2, q, 1e-12);  // the loop closes
      // Eqs (21)–(23) with q̇ = 1.
      const double xd = -L * L1 * std::sin(q) / l;
      EXPECT_NEAR(s.dx_dq, xd, 1e-14);
      EXPECT_NEAR(s.dq1_dq, -(l - L * std::cos(q1)) / (l * L * std::sin(q1)) * xd, 1e-12);
      EXPECT_NEAR(1.0 - s.dq1_dq, -(l - L1 * std::cos(q2)) / (l * L1 * std::sin(q2)) * xd, 1e-12);
    }
  }
}

TEST(LiftTiltKinematics, ClosedFormInverseKinematicsInvertsTheForwardKinematics) {
  const LiftTiltParams P = seed004_lift_tilt_mechanism();
  const double pts[5][2] = {{2.5, 1.0}, {3.0, 1.5}, {3.5, 1.0}, {3.0, 0.5}, {2.2, 1.8}};
  for (const auto& X : pts) {
    double q[2];
    ASSERT_TRUE(LiftTilt::inverse_kinematics(P, X[0], X[1], q));
    const V2<double> Y = LiftTilt::tcp(P, q);
    EXPECT_NEAR(Y.x, X[0], 1e-12);
    EXPECT_NEAR(Y.y, X[1], 1e-12);
    EXPECT_LT(q[0], 0.0);  // the working branch: q_j ∈ (−π, 0)
    EXPECT_LT(q[1], 0.0);
  }
  // The initial pose is recovered from its own TCP.
  const V2<double> X0 = LiftTilt::tcp(P, P.initial_angle);
  double q[2];
  ASSERT_TRUE(LiftTilt::inverse_kinematics(P, X0.x, X0.y, q));
  EXPECT_NEAR(q[0], P.initial_angle[0], 1e-12);
  EXPECT_NEAR(q[1], P.initial_angle[1], 1e-12);
  double far[2];
  EXPECT_FALSE(LiftTilt::inverse_kinematics(P, 9.0, 1.0, far));
}

// The controller's closed forms of the TCP chain (LiftTilt::tcp_arms,
// docs/models/manipulator.md §11.1): j + R(·)b + R(·)t is the world pose's TCP,
// J = ∂X/∂q and J̇q̇ = q̇ᵀ∇²X q̇ are those of dual numbers on the world pose
// (a Dual<2> for J; the τ1τ2 coefficient of X on the path jet q + q̇(τ1 + τ2)
// for J̇q̇), at 40 poses and rates. Measured: 9.9e-16 m, 1.4e-16 and 3.2e-16
// relative (a few ulps); tolerances 10× those.
TEST(LiftTiltKinematics, TcpChainClosedFormsAreTheJetsOfTheWorldPose) {
  const LiftTiltParams P = seed004_lift_tilt_mechanism();
  const auto chain = LiftTilt::tcp_chain(P);
  double worst_x = 0.0, worst_j = 0.0, worst_jd = 0.0;
  for (int k = 0; k < 40; ++k) {
    const double q[2] = {-2.4 + 0.05 * k, -0.5 - 0.04 * k}, qd[2] = {0.7 - 0.03 * k, -0.4 + 0.025 * k};
    const auto arm = LiftTilt::tcp_arms(P, chain, q);
    const V2<double> X = LiftTilt::tcp(P, q);
    worst_x = std::fmax(worst_x, std::hypot(chain.jx + arm.b[0] + arm.t[0] - X.x, chain.jy + arm.b[1] + arm.t[1] - X.y));
    using D2 = Dual<2>;
    const D2 q2[2] = {D2::variable(q[0], 0), D2::variable(q[1], 1)};
    const V2<D2> Xj = LiftTilt::tcp(P, q2);
    const double J[2][2] = {{-(arm.b[1] + arm.t[1]), -arm.t[1]}, {arm.b[0] + arm.t[0], arm.t[0]}};
    const double scale_j = std::hypot(Xj.x.v[0], Xj.y.v[0]);
    for (int j = 0; j < 2; ++j)
      worst_j = std::fmax(worst_j, std::fmax(std::fabs(J[0][j] - Xj.x.v[j]), std::fabs(J[1][j] - Xj.y.v[j])) / scale_j);
    using In = Dual<1>;
    using Path = Dual<1, In>;
    Path qp[2];
    for (int j = 0; j < 2; ++j) {
      In lo(q[j]);
      lo.v[0] = qd[j];
      qp[j].a = lo;
      qp[j].v[0] = In(qd[j]);
    }
    const V2<Path> Xp = LiftTilt::tcp(P, qp);
    const double w1 = qd[0], w2 = qd[0] + qd[1];
    const double jd[2] = {-(arm.b[0] * w1 * w1 + arm.t[0] * w2 * w2), -(arm.b[1] * w1 * w1 + arm.t[1] * w2 * w2)};
    const double scale_jd = std::hypot(Xp.x.v[0].v[0], Xp.y.v[0].v[0]);
    worst_jd = std::fmax(worst_jd, std::hypot(jd[0] - Xp.x.v[0].v[0], jd[1] - Xp.y.v[0].v[0]) / scale_jd);
  }
  std::printf("TCP %.2e m, J %.2e, Jdot qdot %.2e (relative)\n", worst_x, worst_j, worst_jd);
  EXPECT_LT(worst_x, 1e-14);
  EXPECT_LT(worst_j, 1.5e-15);
  EXPECT_LT(worst_jd, 3.5e-15);
}

TEST(LiftTiltPath, QuinticSegmentsStartAndEndAtRest) {
  WaypointPath w;
  EXPECT_EQ(path_segments(w), 9);  // start → A, then two A-B-C-D-A loops
  EXPECT_DOUBLE_EQ(path_end_time(w), 18.0);
  for (int k = 0; k <= 9; ++k) {
    const PathPoint p = path_at(w, 2.0, 0.4, 2.0 * k);
    double x, y;
    path_waypoint(w, 2.0, 0.4, k, x, y);
    EXPECT_NEAR(p.x, x, 1e-15);
    EXPECT_NEAR(p.y, y, 1e-15);
    EXPECT_EQ(p.vx, 0.0);
    EXPECT_EQ(p.ax, 0.0);
  }
  // Mid-segment: σ(½) = ½, σ'(½)/T = 15/8 / T.
  const PathPoint m = path_at(w, 2.0, 0.4, 3.0);  // A (2.5, 1) → B (3, 1.5)
  EXPECT_NEAR(m.x, 2.75, 1e-15);
  EXPECT_NEAR(m.vx, 0.5 * 1.875 / 2.0, 1e-15);
}

// The study check's path walk is kept per thread while its inputs (the
// geometry, the path, the strokes) do not change: instances that alternate
// between a reachable and an unreachable path, or differ in a stroke only,
// each get the answer of a walk of their own full parameters; instances that
// differ in a payload, a body's mass or a gain share one walk. The walk on
// the geometry alone (masses, payload, gravity zeroed) is the walk on the
// full mechanism.
TEST(LiftTiltPath, StudyCheckAnswersEachInstanceWhateverTheOrder) {
  LiftTiltModelParams good = seed004_lift_tilt();
  LiftTiltModelParams far = good;
  far.input.path.x[1] = 100.0;  // waypoint B out of reach
  LiftTiltModelParams short_stroke = good;
  short_stroke.actuator[1].circuit.stroke = 0.05;  // the tilt cylinder cannot follow the path
  LiftTiltModelParams heavier = good;
  heavier.input.force_feedback[0] *= 3.0;
  heavier.mechanism.payload_mass *= 2.0;
  heavier.mechanism.segment[0].link.mass *= 1.5;
  auto walk = [](const LiftTiltModelParams& p) {
    const double stroke[2] = {p.actuator[0].circuit.stroke, p.actuator[1].circuit.stroke};
    return lift_tilt_reach_problem(p.mechanism, p.input.path, stroke);
  };
  ASSERT_TRUE(walk(good).key.empty());
  ASSERT_EQ(walk(far).key, "controller.path.x2");
  ASSERT_FALSE(walk(short_stroke).key.empty());
  EXPECT_NE(walk(short_stroke).why.find("tilt cylinder stroke"), std::string::npos) << walk(short_stroke).why;
  for (const LiftTiltModelParams* p : {&good, &far, &short_stroke}) {
    const double stroke[2] = {p->actuator[0].circuit.stroke, p->actuator[1].circuit.stroke};
    const auto on_geometry = lift_tilt_reach_problem(lift_tilt_geometry(p->mechanism), p->input.path, stroke);
    EXPECT_EQ(on_geometry.key, walk(*p).key);
    EXPECT_EQ(on_geometry.why, walk(*p).why);
  }
  for (const LiftTiltModelParams* p :
       {&good, &far, &far, &good, &heavier, &short_stroke, &good, &short_stroke, &heavier, &far}) {
    const auto checked = lift_tilt_instance_check(*p, 1e-3, 20.0);
    EXPECT_EQ(checked.key, walk(*p).key);
    EXPECT_EQ(checked.why, walk(*p).why);
  }
}

namespace {

IntegratorSettings settings(double dt, double duration) {
  IntegratorSettings S;
  S.dt = dt;
  S.duration = duration;
  return S;
}

}  // namespace

// Without friction the energy balance T + V − E0 − W_cyl (the pressures' work
// on the mechanism) is the integrator's error alone: second order in dt.
TEST(LiftTiltRun, EnergyBalanceWithoutFrictionIsSecondOrder) {
  auto P = seed004_lift_tilt();
  P.input.sample_period = 4e-3;  // a whole number of steps for every dt below
  double drift[3];
  const double dts[3] = {2e-3, 1e-3, 5e-4};
  for (int k = 0; k < 3; ++k) {
    const auto r = run_instance<Frictionless>(P, settings(dts[k], 6.0), 0, [](long, const SampleOf<Frictionless>&) {});
    ASSERT_EQ(r.status, Status::ok);
    drift[k] = r.peak_energy_drift;
    std::printf("dt = %.1e s: peak energy drift %.4e J, cylinder work max %.4e J\n", dts[k], drift[k], r.max_cylinder_work);
  }
  const double ratio1 = drift[0] / drift[1], ratio2 = drift[1] / drift[2];
  std::printf("ratios %.3f %.3f (order 2: 4)\n", ratio1, ratio2);
  EXPECT_GT(ratio1, 3.5);
  EXPECT_LT(ratio1, 4.5);
  EXPECT_GT(ratio2, 3.5);
  EXPECT_LT(ratio2, 4.5);
}

// The paper's scenario (seed 004 §7): reach A, two A-B-C-D loops of 2 s
// quintic segments, ±10 V, p_s = 185 bar, p_r = 10 bar. Seed 004 prints no
// tracking figures (its Figs. 13–16 are lost); docs/models/manipulator.md §7
// compares the qualitative behaviour. Bounds: under 10 times the measured
// figures (RMS 0.13 mm, peak 0.24 mm at dt = 1 ms since the ideal spool's
// start-of-step rates take the held voltage, integrators.md §3.7; 0.26 and
// 0.48 mm before).
TEST(LiftTiltRun, NominalClosedLoopTracksThePath) {
  const auto P = seed004_lift_tilt();
  double p_lo = 1e300, p_hi = -1e300;
  const auto r = run_instance<Integrator>(P, settings(1e-3, 20.0), 10, [&](long, const SampleOf<Integrator>& s) {
    for (double p : s.p) {
      p_lo = std::fmin(p_lo, p);
      p_hi = std::fmax(p_hi, p);
    }
  });
  ASSERT_EQ(r.status, Status::ok);
  std::printf("TCP error RMS %.3e m, peak %.3e m, final %.3e m; pressures %.1f..%.1f bar; saturation %.3f s; "
              "Newton %.3f per step\n",
              r.input.tcp_error_rms, r.input.tcp_error_peak, r.input.tcp_error_final, p_lo / 1e5, p_hi / 1e5,
              r.input.saturation_time, double(r.newton_iterations) / r.steps);
  EXPECT_LT(r.input.tcp_error_rms, 1e-3);
  EXPECT_LT(r.input.tcp_error_peak, 2e-3);
  EXPECT_LT(r.input.tcp_error_final, 3e-6);  // holds A after the path (measured 3.7e-7 m)
  EXPECT_EQ(r.input.saturation_time, 0.0);
  EXPECT_EQ(r.input.pressure_violation_time, 0.0);
  EXPECT_GT(p_lo, P.actuator[0].circuit.return_pressure);
  EXPECT_LT(p_hi, P.actuator[0].circuit.supply_pressure);
}

// Seed 004's performance index ρ = max |X_d − X| / max |Ẋ_d| (manipulator.md
// §11.8), the summary's performance_index, against a hand computation from
// the samples the run records at every controller sample: the error from the
// probe's TCP positions, the desired speed by central differences of the
// desired TCP positions (a relative error ~(T²/6)|X⃛_d|/|Ẋ_d| at the peak
// speed, where the quintic's jerk is largest: measured 6.7e-7 at T = 1 ms;
// tolerance 5e-6). Nominal ρ = 3.55e-4 s, as the hand computation
// from the trajectories found.
TEST(LiftTiltRun, PerformanceIndexIsThePeakErrorOverThePeakDesiredSpeed) {
  const auto P = seed004_lift_tilt();
  const double dt = 1e-3;
  const long per_sample = std::lround(P.input.sample_period / dt);
  ASSERT_GE(per_sample, 1);
  std::vector<double> xd, yd;
  double error_peak = 0.0;
  const auto r = run_instance<Integrator>(P, settings(dt, 20.0), int(per_sample), [&](long, const SampleOf<Integrator>& s) {
    const double ex = s.input.tcp_x_desired - s.input.tcp_x, ey = s.input.tcp_y_desired - s.input.tcp_y;
    error_peak = std::fmax(error_peak, std::sqrt(ex * ex + ey * ey));
    xd.push_back(s.input.tcp_x_desired);
    yd.push_back(s.input.tcp_y_desired);
  });
  ASSERT_EQ(r.status, Status::ok);
  double speed_peak = 0.0;
  for (size_t k = 1; k + 1 < xd.size(); ++k)
    speed_peak = std::fmax(speed_peak, std::hypot(xd[k + 1] - xd[k - 1], yd[k + 1] - yd[k - 1]) / (2.0 * P.input.sample_period));
  const double rho_by_hand = error_peak / speed_peak;
  std::printf("rho %.6e s (peak error %.4e m / peak desired speed %.5f m/s); by hand %.6e s, relative difference %.2e\n",
              r.input.performance_index, r.input.tcp_error_peak, r.input.tcp_error_peak / r.input.performance_index,
              rho_by_hand, std::fabs(r.input.performance_index / rho_by_hand - 1.0));
  EXPECT_EQ(r.input.tcp_error_peak, error_peak) << "the recorded samples hold every controller sample's error";
  EXPECT_NEAR(r.input.performance_index / rho_by_hand, 1.0, 5e-6);
  EXPECT_GT(speed_peak, 0.1) << "the path moves";
}

// A cylinder shorter than the path needs: stroke_out_of_range at the step
// that left (0, S), with the time, and the run stops there (the batch's other
// instances are unaffected: every instance runs alone).
TEST(LiftTiltRun, LeavingTheStrokeIsFlaggedWithItsTime) {
  auto P = seed004_lift_tilt();
  P.actuator[1].circuit.stroke = 0.35;  // the tilt cylinder needs 0.41 m at C
  const auto r = run_instance<Integrator>(P, settings(1e-3, 20.0), 0, [](long, const SampleOf<Integrator>&) {});
  EXPECT_EQ(r.status, Status::stroke_out_of_range);
  EXPECT_GT(r.t_end, 4.0);
  EXPECT_LT(r.t_end, 6.0);
  EXPECT_GE(r.s[1], 0.35);
  EXPECT_LT(r.s[1], 0.351);  // it stopped at the step that crossed
  std::printf("stroke_out_of_range at t = %.3f s, x2 = %.5f m\n", r.t_end, r.s[1]);
}

TEST(LiftTiltRun, VoltageSaturationIsReportedNotHidden) {
  auto P = seed004_lift_tilt();
  P.input.voltage_limit = 3.0;
  const auto r = run_instance<Integrator>(P, settings(1e-3, 20.0), 0, [](long, const SampleOf<Integrator>&) {});
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_GT(r.input.saturation_time, 0.0);
  EXPECT_GT(r.input.first_saturation_time, 0.0);
  EXPECT_LT(r.input.first_saturation_time, 18.0);
  std::printf("limit 3 V: saturated %.3f s from t = %.3f s; TCP error RMS %.3e m, peak %.3e m\n", r.input.saturation_time,
              r.input.first_saturation_time, r.input.tcp_error_rms, r.input.tcp_error_peak);
}
