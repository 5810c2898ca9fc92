// kernels/integrators: the double-step trapezoidal rule on the seed 002 work cycle.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/four_bar.hpp"

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
  const auto traj = trajectory(P, IntegratorSettings{}, 1);
  ASSERT_EQ(traj.size(), 10001u);
  double worst = 0.0;
  for (const auto& s : traj) {
    double phi[2];
    Mech::constraints(P.mechanism, Mech::pose(P.mechanism, s.q), phi);
    worst = std::fmax(worst, std::fmax(std::fabs(phi[0]), std::fabs(phi[1])));
  }
  EXPECT_LE(worst, 1e-10);
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
  for (const auto& s : traj) {
    EXPECT_LE(std::fabs(s.q[0] - first.q[0]), 1e-9);
    for (int k = 0; k < 3; ++k) EXPECT_LE(std::fabs(s.p[k] - first.p[k]), 1.0);
  }
}

TEST(DoubleStep, SecondOrderSelfConvergence) {
  // Self-convergence at dt, dt/2, dt/4 on the work cycle (valve opening,
  // motion, closing: t ≤ 3 s), with Newton tolerances far below the
  // discretization error. Observed order p = log2(|y_dt − y_dt/2| / |y_dt/2 − y_dt/4|).
  const FourBarParams P = seed002_four_bar();
  IntegratorSettings S;
  S.duration = 3.0;
  S.position_tolerance = 1e-13;
  S.pressure_tolerance = 1e-7;
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
  EXPECT_NEAR(order_q, 2.0, 0.2);
  EXPECT_NEAR(order_p, 2.0, 0.2);
}

TEST(DoubleStep, EnergyBalanceOverTheWorkCycle) {
  // Kinetic + potential − cylinder work − friction work, seed 002's check:
  // peak drift below 0.5 % of the maximum cylinder work (seed 002: 0.37 %).
  for (const FourBarParams& P : {seed002_four_bar(), seed001_four_bar()}) {
    RunSummary<3, 3> r;
    trajectory(P, IntegratorSettings{}, 0, &r);
    ASSERT_GT(r.max_cylinder_work, 1.0);
    EXPECT_LT(r.peak_energy_drift, 0.005 * r.max_cylinder_work)
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
    ctx.U = st.U;
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
      // Relative to the column's largest entry: FD error ~ ε f''/f' + round-off/ε ~ 1e-7.
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
  S.pressure_tolerance = 1e-6;
  const auto exact = run_instance<Integrator>(P, S, 0, [](long, const Sample<3, 3>&) {});
  S.tangent = Tangent::finite_difference;
  const auto fd = run_instance<Integrator>(P, S, 0, [](long, const Sample<3, 3>&) {});
  ASSERT_EQ(fd.status, Status::ok);
  EXPECT_NEAR(fd.q[0], exact.q[0], 1e-10);
  EXPECT_NEAR(fd.p[1], exact.p[1], 1e-3);
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
  P.circuit.supply_pressure = 20e6;
  const auto r = run_instance<Integrator>(P, S, 0, [](long, const Sample<3, 3>&) {});
  EXPECT_EQ(r.status, Status::pressure_out_of_range);
  EXPECT_GT(r.t_end, 1.0);
  EXPECT_LT(r.t_end, 10.0);
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
