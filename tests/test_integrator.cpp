// kernels/integrators: the double-step trapezoidal rule on the seed 002 work cycle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <vector>

#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/integrators/index1_trapezoidal.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/linearize/equilibrium.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/planar_chain_dae.hpp"

using namespace hs;
using Model = HydraulicFourBar<BrownMcPhee>;
using Integrator = DoubleStepTrapezoidal<Model>;
using Mech = Model::Mechanism;

namespace {

std::vector<Sample<3, 3>> trajectory(const FourBarParams& P, const IntegratorSettings& S, int stride,
                                     RunSummary<3, 3>* summary = nullptr) {
  std::vector<Sample<3, 3>> out;
  const auto r = run_instance<Integrator>(P, S, stride, [&](long, const Sample<3, 3>& s) { out.push_back(s); });
  if (summary) *summary = r;
  EXPECT_EQ(r.status, Status::ok);
  return out;
}

}  // namespace

TEST(DoubleStep, LoopClosureHoldsAtEveryStepOfTheWorkCycle) {
  const FourBarParams P = seed002_four_bar();
  const IntegratorSettings S;
  const auto traj = trajectory(P, S, 1);
  ASSERT_EQ(traj.size(), 10001u);
  double worst = 0.0;
  for (size_t k = 0; k < traj.size(); ++k) {
    const auto& s = traj[k];
    double phi[2];
    Mech::constraints(P.mechanism, Mech::pose(P.mechanism, s.q), phi);
    const double violation = std::fmax(std::fabs(phi[0]), std::fabs(phi[1]));
    worst = std::fmax(worst, violation);
    // The step reports |Φ|∞ at the positions it accepted (docs/models/integrators.md §3.6):
    // the same function of the same q, so the same bits.
    if (k > 0) {
      EXPECT_EQ(s.constraint_violation, violation) << "step " << k;
    }
  }
  // Each step accepts its positions only at |Φ|∞ ≤ constraint_tolerance
  // (1e-11 m), measured on the same pose: the bound holds exactly.
  EXPECT_LE(worst, S.constraint_tolerance);
  std::printf("max |Phi| over the cycle: %.3g m\n", worst);
}

TEST(DoubleStep, VelocitiesSatisfyTheVelocityConstraintAtEveryStep) {
  // The state at t_{k+1} takes ż_d = −Φ_d⁻¹Φ_i ż_i (eq 13) at the accepted
  // positions (docs/models/integrators.md §3.6): Φ_q q̇ = 0 up to the
  // rounding of the 2 x 2 solve, relative to Σ|Φ_q,rc q̇_c| (measured 2.1e-16).
  const FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  Integrator::State st;
  Integrator::Constants K;
  ASSERT_EQ(Integrator::initialize(P, S, st, K), Status::ok);
  Integrator::StepReport rep;
  double worst = 0.0;
  int moving_steps = 0;
  for (int n = 0; n < 10000; ++n) {
    ASSERT_EQ(Integrator::step(P, K, S, st, rep), Status::ok) << "step " << n;
    double J[2][3];
    Mech::constraint_jacobian(Mech::pose(P.mechanism, st.q), J);
    for (int r = 0; r < 2; ++r) {
      double v = 0.0, scale = 0.0;
      for (int c = 0; c < 3; ++c) {
        v += J[r][c] * st.qd[c];
        scale += std::fabs(J[r][c] * st.qd[c]);
      }
      if (scale > 1e-9) {
        worst = std::fmax(worst, std::fabs(v) / scale);
        ++moving_steps;
      }
    }
  }
  EXPECT_GT(moving_steps, 1000);
  EXPECT_LE(worst, 1e-15);
  std::printf("max |Phi_q qd| / sum |Phi_q,rc qd_c|: %.3g over %d rows of moving steps\n", worst, moving_steps);
}

TEST(DoubleStep, StaticEquilibriumStaysAtRest) {
  // U_ref = 0 for 2 s from the static initial state: nothing may move.
  FourBarParams P = seed002_four_bar();
  P.input.count = 0;
  IntegratorSettings S;
  S.duration = 2.0;
  RunSummary<3, 3> r;
  const auto traj = trajectory(P, S, 1, &r);
  const auto& first = traj.front();
  // Measured over the 2000 steps: the crank angle does not move at all (0
  // with and without FMA); the pressures move by 4.4e-6 Pa with FMA (rounding
  // of the pressure rates, ~1e4 ulp of 2.75 MPa accumulated) and 0 without.
  // Bounds: 1e-12 rad (one ulp of z1 per step would give 4.4e-13 rad) and 5e-5 Pa
  // (~10x), far below the default Newton tolerance of 1e-2 Pa.
  for (const auto& s : traj) {
    EXPECT_LE(std::fabs(s.q[0] - first.q[0]), 1e-12);
    for (int k = 0; k < 3; ++k) EXPECT_LE(std::fabs(s.p[k] - first.p[k]), 5e-5);
  }
}

TEST(DoubleStep, SecondOrderSelfConvergence) {
  // Self-convergence at dt, dt/2, dt/4 on the work cycle (valve opening,
  // motion, closing: t ≤ 3 s), with Newton tolerances far below the
  // discretization error. Observed order p = log2(|y_dt − y_dt/2| / |y_dt/2 − y_dt/4|).
  //
  // The tolerances must also be reachable in floating point. The Newton
  // increments stall at a floor set by the rounding of the trapezoidal rates
  // ż = (2/dt) z + ẑ (eq 33), a cancellation of two terms of size 2|z|/dt: one
  // rounding moves ṡ, and through the oil's stiffness the pressure rate, by
  // K_h ε |z| 2/dt, with K_h = (Be2 A2/V2)|∂s/∂z| = 2.53e9 Pa/m · 0.5 m/rad
  // (seed 002 at 60°); the pressure row divides by 2/dt, so the increment
  // floor is K_h ε |z| ≈ 1.3e9 · 2.2e-16 · 1.05 ≈ 3e-7 Pa, whatever dt.
  // Measured (dt = 1 and 0.25 ms, t ≤ 3 s): 1.1e-7 Pa built without FMA
  // contraction (-ffp-contract=off, or no -march=native), 2.6e-10 Pa with
  // it (the FMA keeps (2/dt) z unrounded), against 1e-7 Pa asked before.
  // 1e-5 Pa sits ~100x above the worse floor (the GPU contracts differently
  // again) and ~3e5x below the smallest difference of p2 measured here (3.5 Pa).
  // The crank-angle floor is 6e-17 rad (sub-ulp): 1e-13 rad is reachable in both.
  const FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  S.duration = 3.0;
  S.position_tolerance = 1e-13;
  S.pressure_tolerance = 1e-5;
  double crank[3], p2[3];
  for (int level = 0; level < 3; ++level) {
    S.dt = 1e-3 / (1 << level);
    const auto r = run_instance<Integrator>(P, S, 0, [](long, const Sample<3, 3>&) {});
    ASSERT_EQ(r.status, Status::ok);
    crank[level] = r.q[0];
    p2[level] = r.p[1];
  }
  const double order_q = std::log2(std::fabs(crank[0] - crank[1]) / std::fabs(crank[1] - crank[2]));
  const double order_p = std::log2(std::fabs(p2[0] - p2[1]) / std::fabs(p2[1] - p2[2]));
  // Measured 1.9953 (crank) and 1.9718 (p2), the same to 4 digits with and
  // without FMA: the deviation from 2 is the pre-asymptotic error of dt = 1 ms,
  // not rounding. Bounds ~10x and ~7x of it.
  EXPECT_NEAR(order_q, 2.0, 0.05);
  EXPECT_NEAR(order_p, 2.0, 0.2);
}

TEST(DoubleStep, EnergyBalanceOverTheWorkCycle) {
  // Kinetic + potential − cylinder work − friction work (A18), seed 002's
  // check: peak drift against the maximum cylinder work. Seed 002 reports
  // 0.37 % for its own integrator; this one measures 0.0074 % (4.55e-3 J of
  // 61.8 J, seed 002 four-bar) and 0.00063 % (5.78e-3 J of 911 J, seed 001
  // four-bar), the same to 4 digits with and without FMA: the drift is the
  // rule's O(dt²) error in the quadratures, not rounding. Bounds ~7x and ~8x.
  struct Case { FourBarParams P; double relative_bound; };
  for (const Case& c : {Case{seed002_four_bar(), 5e-4}, Case{seed001_four_bar(), 5e-5}}) {
    const FourBarParams& P = c.P;
    RunSummary<3, 3> r;
    trajectory(P, IntegratorSettings{}, 0, &r);
    ASSERT_GT(r.max_cylinder_work, 1.0);
    EXPECT_LT(r.peak_energy_drift, c.relative_bound * r.max_cylinder_work)
        << "drift " << r.peak_energy_drift << " J, W_max " << r.max_cylinder_work << " J";
  }
}

TEST(DoubleStep, ExactAndFiniteDifferenceTangentsAgree) {
  // At states along the work cycle (rest, valve opening, motion, closing).
  const FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  Integrator::State st;
  Integrator::Constants K;
  ASSERT_EQ(Integrator::initialize(P, S, st, K), Status::ok);
  Integrator::StepReport rep;
  int checked = 0;
  for (int n = 1; n <= 6000; ++n) {
    ASSERT_EQ(Integrator::step(P, K, S, st, rep), Status::ok);
    if (n != 1005 && n != 2000 && n != 2510 && n != 5003 && n != 5800) continue;
    // A trial point near the next step's solution.
    Integrator::StepContext ctx;
    ctx.dt = S.dt;
    ctx.part = st.part;
    ctx.U[0] = st.U[0];
    double x[Integrator::nx];
    for (int k = 0; k < 3; ++k) {
      ctx.q_guess[k] = st.q[k];
      ctx.qd_hat[k] = -((2.0 / S.dt) * st.q[k] + st.qd[k]);
      ctx.qdd_hat[k] = -((4.0 / (S.dt * S.dt)) * st.q[k] + (4.0 / S.dt) * st.qd[k] + st.qdd[k]);
      ctx.pd_hat[k] = -((2.0 / S.dt) * st.p[k] + st.pd[k]);
      x[1 + k] = st.p[k] + S.dt * st.pd[k];
    }
    x[0] = st.q[st.part.indep[0]] + S.dt * st.qd[st.part.indep[0]];
    Mat<double, Integrator::nx, Integrator::nx> Je, Jf;
    double fe[Integrator::nx], ff[Integrator::nx];
    S.tangent = Tangent::exact;
    ASSERT_TRUE(Integrator::tangent(P, K, S, ctx, x, fe, Je));
    S.tangent = Tangent::finite_difference;
    ASSERT_TRUE(Integrator::tangent(P, K, S, ctx, x, ff, Jf));
    S.tangent = Tangent::exact;
    for (int c = 0; c < Integrator::nx; ++c) {
      // Relative to the column's largest entry: FD error ~ ε f''/f' + round-off/ε ~ 1e-7
      // (measured: worst 3.9e-7 at step 5003, column 3, with and without FMA).
      double scale = 0.0;
      for (int r = 0; r < Integrator::nx; ++r) scale = std::fmax(scale, std::fabs(Je(r, c)));
      for (int r = 0; r < Integrator::nx; ++r)
        EXPECT_NEAR(Jf(r, c), Je(r, c), 1e-6 * scale) << "step " << n << " entry (" << r << "," << c << ")";
    }
    ++checked;
  }
  EXPECT_EQ(checked, 5);
}

TEST(DoubleStep, FiniteDifferenceTangentGivesTheSameTrajectory) {
  const FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  S.duration = 3.0;
  S.position_tolerance = 1e-12;
  S.pressure_tolerance = 1e-5;
  const auto exact = run_instance<Integrator>(P, S, 0, [](long, const Sample<3, 3>&) {});
  S.tangent = Tangent::finite_difference;
  const auto fd = run_instance<Integrator>(P, S, 0, [](long, const Sample<3, 3>&) {});
  ASSERT_EQ(fd.status, Status::ok);
  // Two Newton paths to the same trapezoidal solution, apart by what the
  // increment tolerances leave (pressure 1e-5 Pa: reachable without FMA, see
  // SecondOrderSelfConvergence). Measured after 3000 steps: 2.2e-13 rad and
  // 1.3e-6 Pa with FMA, 2.4e-13 rad and 2.0e-6 Pa without. Bounds ~10x.
  EXPECT_NEAR(fd.q[0], exact.q[0], 2e-12);
  EXPECT_NEAR(fd.p[1], exact.p[1], 2e-5);
}

TEST(DoubleStep, EveryFrictionLawAndMechanismCompletesTheCycle) {
  for (const FourBarParams& P : {seed002_four_bar(), seed001_four_bar()}) {
    const auto a = run_instance<DoubleStepTrapezoidal<HydraulicFourBar<BengisuAkay>>>(P, IntegratorSettings{}, 0,
                                                                                        [](long, const Sample<3, 3>&) {});
    const auto b = run_instance<DoubleStepTrapezoidal<HydraulicFourBar<NoFriction>>>(P, IntegratorSettings{}, 0,
                                                                                       [](long, const Sample<3, 3>&) {});
    EXPECT_EQ(a.status, Status::ok);
    EXPECT_EQ(b.status, Status::ok);
    EXPECT_EQ(a.steps, 10000);
  }
}

TEST(DoubleStep, SeparateFailureStopsOnlyThatInstance) {
  // A supply pressure far above the admissible range drives p past pressure_max:
  // the run stops with a flag and the time it happened.
  FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  S.pressure_max = 5e6;
  P.actuator[0].circuit.supply_pressure = 20e6;
  const auto r = run_instance<Integrator>(P, S, 0, [](long, const Sample<3, 3>&) {});
  EXPECT_EQ(r.status, Status::pressure_out_of_range);
  // The valve opens at 1 s (seed 002 eq 46); the 20 MPa pump then raises p1
  // within the circuit's time constant, tens of ms (measured: the step ending
  // at 1.030 s, with and without FMA). It stops there, on the step grid.
  EXPECT_GT(r.t_end, 1.0);
  EXPECT_LT(r.t_end, 1.1);
  EXPECT_EQ(r.t_end, r.steps * S.dt);
}

TEST(DoubleStep, FullPivotingSelectsZ3ThroughoutForTheSeed001FourBar) {
  // Seed 001 §5: "z3 ... independent throughout the simulation" for its four-bar.
  const FourBarParams P = seed001_four_bar();
  IntegratorSettings S;
  Integrator::State st;
  Integrator::Constants K;
  ASSERT_EQ(Integrator::initialize(P, S, st, K), Status::ok);
  Integrator::StepReport rep;
  for (int n = 0; n < 10000; ++n) {
    ASSERT_EQ(st.part.indep[0], 2) << "t = " << st.t;
    ASSERT_EQ(Integrator::step(P, K, S, st, rep), Status::ok);
  }
}

// Time is t0 + k·dt (grid_time, kernels/integrators/settings.hpp), not a
// running sum t += dt: summing 1e-3 ten thousand times ends ~1e-12 s away
// from 10 s, and the recorded times, t_end and the settling time with it.
// Every time here must equal k·dt as computed, to the bit.
TEST(DoubleStep, TimeStaysOnTheStepGrid) {
  const FourBarParams P = seed002_four_bar();
  const IntegratorSettings S;  // dt = 1e-3 s, 10 s: the seed 002 work cycle
  RunOptions opt;
  opt.stride = 7;  // samples at steps 0, 7, 14, ...: not a divisor of the run
  std::vector<Sample<3, 3>> samples;
  const auto r = run_instance<Integrator>(P, S, opt, [&](long, const Sample<3, 3>& s) { samples.push_back(s); });
  ASSERT_EQ(r.status, Status::ok);
  ASSERT_EQ(r.steps, 10000);
  EXPECT_EQ(r.t_end, r.steps * S.dt) << std::setprecision(17) << r.t_end;
  EXPECT_EQ(r.t_end, 10.0);  // 10000 · fl(1e-3) rounds to 10 (the running sum gives 9.999999999999897)
  ASSERT_EQ(samples.size(), 1u + 10000 / 7);
  for (size_t i = 0; i < samples.size(); ++i)
    ASSERT_EQ(samples[i].t, static_cast<long>(7 * i) * S.dt)
        << "sample " << i << std::setprecision(17) << ": t = " << samples[i].t;
  // Settling: from the last switch of U_ref (8 s, seed 002 eq 46) to the end
  // of the last step with |ż1| > settling_rate, a grid time k·dt.
  const double t_switch = P.input.start[P.input.count - 1];
  ASSERT_EQ(t_switch, 8.0);
  ASSERT_GT(r.settling_time, 0.0);
  // settling_time = fl(k·dt) − 8 is exact (both in [8, 16), same ulp), so
  // adding 8 back gives the grid time itself. (Written as a sum: k·dt − 8
  // would be contracted into an FMA that skips the rounding of k·dt.)
  const long k_last_moving = std::lround((t_switch + r.settling_time) / S.dt);
  EXPECT_EQ(t_switch + r.settling_time, k_last_moving * S.dt) << std::setprecision(17) << r.settling_time;
  EXPECT_GT(k_last_moving, 8000);
}

// The index-1 reference integrator takes the step index and evaluates the
// forcing at t_{k+1} = t0 + (k+1)·dt: a forcing that switches at a grid time
// (TorquePulse at t2 = 1.5 s = 15000 steps of 1e-4 s) switches at that step,
// where k·dt + dt can land an ulp on the other side.
TEST(Index1Trapezoidal, ForcingIsEvaluatedOnTheStepGrid) {
  using System = ActuatedSystem<PlanarChainDae<3>, BrownMcPhee>;
  using Stepper = Index1Trapezoidal<System>;
  using Form = Stepper::Form;
  const FourBarParams P = seed002_four_bar();
  Equilibrium<System> eq;
  ASSERT_EQ(solve_equilibrium<System>(P, eq), Status::ok);
  Stepper::Settings S;  // dt = 1e-4 s
  int off_grid_by_sum = 0;
  // k = 14999 ends at t2; at k = 6, 13, 24999, 999999 the sum fl(fl(k·dt) + dt)
  // misses fl((k+1)·dt) by an ulp (checked below).
  for (long k : {6L, 13L, 14999L, 24999L, 999999L}) {
    double X[Form::N], F[Form::N];
    Form::state_of(eq, X);
    Form::Forcing f0;
    ASSERT_TRUE(Form::rates(P, eq.K, X, f0, F));
    Stepper::Workspace W;
    double seen = -1.0;
    const auto forcing = [&](double t, Form::Forcing&) { seen = t; };
    ASSERT_EQ(Stepper::step(P, eq.K, S, W, k, X, F, forcing), Status::ok);
    EXPECT_EQ(seen, (k + 1) * S.dt) << "step " << k;
    volatile double t_k = k * S.dt;  // rounded, as a caller's t would be (no FMA with the sum)
    off_grid_by_sum += (t_k + S.dt != (k + 1) * S.dt);
  }
  EXPECT_EQ(off_grid_by_sum, 4);  // the test tells the grid from the sum
}
