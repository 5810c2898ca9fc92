// LuGre and modified LuGre friction (kernels/friction/lugre.hpp,
// docs/models/friction.md §7–§8), checked against closed forms and
// behaviours by integrating their state equations with classical RK4 at
// steps far below their time scales (an integrator independent of the
// trapezoidal rule the engine uses).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/friction/lugre.hpp"
#include "run_support.hpp"

using namespace hs;

namespace {

// RK4 over [0, T] of y' = rate(t, y), n components.
template <int n, class Rate>
void rk4(double T, double dt, double* y, Rate&& rate) {
  const long steps = static_cast<long>(T / dt + 0.5);
  double k1[n], k2[n], k3[n], k4[n], tmp[n];
  for (long s = 0; s < steps; ++s) {
    const double t = s * dt;
    rate(t, y, k1);
    for (int i = 0; i < n; ++i) tmp[i] = y[i] + 0.5 * dt * k1[i];
    rate(t + 0.5 * dt, tmp, k2);
    for (int i = 0; i < n; ++i) tmp[i] = y[i] + 0.5 * dt * k2[i];
    rate(t + 0.5 * dt, tmp, k3);
    for (int i = 0; i < n; ++i) tmp[i] = y[i] + dt * k3[i];
    rate(t + dt, tmp, k4);
    for (int i = 0; i < n; ++i) y[i] += dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
}

double stribeck_closed_form(const FrictionParams& f, double v, double h) {
  const double g = f.coulomb_force + ((1.0 - h) * f.static_force - f.coulomb_force) *
                                         std::exp(-std::pow(std::fabs(v) / f.stribeck_velocity, f.stribeck_exponent));
  return (v > 0 ? g : -g) + f.viscous_coefficient * v;
}

}  // namespace

// At constant velocity the bristle settles at q_ss = g(v) sgn(v)/σ0 and the
// force at g(v) sgn v + σ2 v (seed 002 eqs 25–27) over the whole Stribeck
// curve, both signs.
TEST(LuGre, SteadyStateFollowsTheStribeckCurve) {
  const FrictionParams f;
  double worst = 0.0;
  for (double v : {1e-4, 1e-3, 4e-3, 1e-2, 5e-2, 0.3}) {
    for (double sgn : {1.0, -1.0}) {
      const double vel = sgn * v;
      // Relaxation rate σ0|v|/g ≤ 1e6·0.3/210 = 1.4e3 1/s; 30 time constants.
      const double a = f.lugre_stiffness * v / f.coulomb_force;
      double q = 0.0;
      rk4<1>(30.0 / std::fmin(a, f.lugre_stiffness * v / f.static_force), 0.05 / a, &q,
             [&](double, const double* y, double* d) { LuGre::state_rates(f, vel, y, d); });
      const double F = LuGre::force(f, vel, &q, static_cast<const double*>(nullptr));
      const double want = stribeck_closed_form(f, vel, 0.0);
      worst = std::fmax(worst, std::fabs(F - want) / std::fabs(want));
    }
  }
  std::printf("LuGre steady state: worst relative error %.2e\n", worst);
  EXPECT_LE(worst, 1e-9);  // e^-30 = 1e-13 left of the transient; RK4 error ~1e-12
}

TEST(ModifiedLuGre, SteadyStateHasTheFilmInTheStribeckCurve) {
  const FrictionParams f;
  const double Kf = (1.0 - f.coulomb_force / f.static_force) * std::pow(f.film_velocity, -2.0 / 3.0);
  double worst = 0.0;
  for (double v : {1e-3, 4e-3, 1e-2, 3e-2, 0.1, 0.3}) {
    for (double sgn : {1.0, -1.0}) {
      const double vel = sgn * v;
      double y[2] = {0.0, 0.0};
      // Film: 30 τ_hn; bristle far faster. Step 1e-5 s resolves σ0|v|/g ≤ 1.4e3 1/s.
      rk4<2>(30.0 * f.film_time_deceleration, 1e-5, y,
             [&](double, const double* w, double* d) { ModifiedLuGre::state_rates(f, vel, w, d); });
      const double h_ss = Kf * std::pow(std::fmin(v, f.film_velocity), 2.0 / 3.0);
      const double F = ModifiedLuGre::force(f, vel, y, static_cast<const double*>(nullptr));
      const double want = stribeck_closed_form(f, vel, h_ss);
      worst = std::fmax(worst, std::fabs(F - want) / std::fabs(want));
      if (v > f.film_velocity) {
        EXPECT_NEAR(std::fabs(F - f.viscous_coefficient * vel), f.coulomb_force, 1e-6);
      }
    }
  }
  std::printf("modified LuGre steady state: worst relative error %.2e\n", worst);
  EXPECT_LE(worst, 3e-8);  // measured 2.8e-9 (RK4 at 1e-5 s, the film's transient)
}

// A 10 kg slider loaded quasi-statically (a 10 s ramp, then held) by a
// force below breakaway: it moves by the pre-sliding deflection q = F/σ0 and
// stops; no drift afterwards.
TEST(LuGre, ConstantForceBelowBreakawayGivesPreSlidingWithoutDrift) {
  const FrictionParams f;
  const double m = 10.0;
  // Quasi-static: the creep rate while loading, Ḟ/(σ0 (1 − F/F_s)), stays far
  // below v_s up to 0.72 F_s (60 N/s: ≤ 2e-4 m/s = 0.04 v_s). A fast ramp
  // (1200 N/s) creeps at ~0.5 v_s near 0.5 F_s, the Stribeck curve falls and
  // the slider breaks away below F_s: the law's rate dependence, not drift.
  const double ramp = 10.0;
  for (double F_ext : {100.0, 400.0, 600.0}) {  // below F_c (210 N), twice between F_c and F_s (830 N)
    for (int law = 0; law < 2; ++law) {
      // y = [x, v, q, h]
      double y[4] = {0, 0, 0, 0};
      double t0 = 0.0;
      auto rate = [&](double tl, const double* s, double* d) {
        const double t = t0 + tl;
        double w[2] = {s[2], s[3]}, wd[2];
        if (law == 0) LuGre::state_rates(f, s[1], w, wd);
        else ModifiedLuGre::state_rates(f, s[1], w, wd);
        const double Fmu = law == 0 ? LuGre::force(f, s[1], w, wd) : ModifiedLuGre::force(f, s[1], w, wd);
        d[0] = s[1];
        d[1] = (F_ext * std::fmin(1.0, t / ramp) - Fmu) / m;
        d[2] = wd[0];
        d[3] = law == 0 ? 0.0 : wd[1];
      };
      rk4<4>(ramp + 1.0, 1e-5, y, rate);
      const double x1 = y[0];
      t0 = ramp + 1.0;
      rk4<4>(1.0, 1e-5, y, rate);
      std::printf("%s F = %.0f N: x = %.6e m (q = %.6e, F/sigma0 = %.6e), drift over the last 1 s %.2e m, v = %.2e m/s\n",
                  law ? "modified LuGre" : "LuGre", F_ext, y[0], y[2], F_ext / f.lugre_stiffness, y[0] - x1, y[1]);
      EXPECT_NEAR(y[2], F_ext / f.lugre_stiffness, 1e-6 * F_ext / f.lugre_stiffness);
      EXPECT_LE(std::fabs(y[0] - x1), 1e-9);
      EXPECT_LE(std::fabs(y[1]), 1e-8);
    }
  }
}

// A velocity cycle over the Stribeck range (0.001..0.009 m/s, around v_s): the film lags behind its steady state, thinner while accelerating
// (τ_hp) and thicker while decelerating (τ_hn), so at the same velocity the
// force is higher on the way up than on the way down (frictional lag).
TEST(ModifiedLuGre, VelocityCycleGivesAHysteresisLoopHigherWhileAccelerating) {
  const FrictionParams f;
  const double v0 = 0.005, v1 = 0.004, w = 2.0 * M_PI;  // 1 Hz, around v_s
  double y[2] = {0.0, 0.0};
  auto rate = [&](double t, const double* s, double* d) { ModifiedLuGre::state_rates(f, v0 + v1 * std::sin(w * t), s, d); };
  rk4<2>(10.0, 1e-5, y, rate);  // ten periods: periodic regime (τ_hn = 0.5 s)
  // Through the next period: the force where v crosses v0 upwards (t = 0 of
  // the period) and downwards (t = 0.5 s).
  auto force_at = [&](double v, const double* s) { return ModifiedLuGre::force(f, v, s, static_cast<const double*>(nullptr)); };
  const double F_up = force_at(v0, y);
  rk4<2>(0.5, 1e-5, y, [&](double t, const double* s, double* d) { rate(10.0 + t, s, d); });
  const double F_down = force_at(v0, y);
  std::printf("modified LuGre at v = %.3f m/s: accelerating %.3f N, decelerating %.3f N\n", v0, F_up, F_down);
  EXPECT_GT(F_up - F_down, 1.0);  // measured difference printed above
}

// Odd in v with odd states, zero at rest, and the dual-number slope equals a
// central difference (the Newton tangent), including v = 0.
TEST(LuGre, OddZeroAtRestAndExactSlope) {
  const FrictionParams f;
  const double q = 3e-4, h = 0.3;
  for (double v : {-0.02, -1e-3, 0.0, 1e-3, 0.02}) {
    const double w[2] = {q, h}, wm[2] = {-q, h};
    double r[2], rm[2];
    ModifiedLuGre::state_rates(f, v, w, r);
    ModifiedLuGre::state_rates(f, -v, wm, rm);
    EXPECT_NEAR(r[0], -rm[0], 1e-15 * (1 + std::fabs(r[0])));
    using D = Dual<1>;
    const D vd = D::variable(v, 0), wd[2] = {D(q), D(h)};
    D rd[2];
    ModifiedLuGre::state_rates(f, vd, wd, rd);
    if (v != 0.0) {
      const double e = 1e-7 * std::fabs(v);
      double rp[2], rq[2];
      ModifiedLuGre::state_rates(f, v + e, w, rp);
      ModifiedLuGre::state_rates(f, v - e, w, rq);
      EXPECT_NEAR(rd[0].v[0], (rp[0] - rq[0]) / (2 * e), 1e-6 * (1 + std::fabs(rd[0].v[0])));
    }
    EXPECT_TRUE(std::isfinite(rd[0].v[0]) && std::isfinite(rd[1].v[0])) << "v = " << v;
  }
  const double zero[2] = {0.0, 0.0};
  EXPECT_EQ(LuGre::force(f, 0.0, zero, static_cast<const double*>(nullptr)), 0.0);
}

// ---- through the engine: the four-bar work cycle (studies/seed002_work_cycle.toml) ----

namespace {

// The shipped work cycle with another friction law and step, on the CPU backend.
run_test::StudyRun work_cycle(const std::string& friction, double dt) {
  using namespace run_test;
  std::string t = shipped_study("seed002_work_cycle.toml");
  t = replaced(t, "friction = \"brown-mcphee\"", "friction = \"" + friction + "\"");
  t = replaced(t, "dt = 1e-3", "dt = " + std::to_string(dt));
  return run_study_text(t);
}

}  // namespace

// The laws' states are trapezoidal Newton unknowns of the double step: the
// work cycle runs, its energy balance closes to second order in dt (the
// drift falls 4× per halving: the friction states add no first-order
// error), and it stays far inside the 0.5 % of the cylinder work.
TEST(LuGreEngine, WorkCycleEnergyBalanceIsSecondOrder) {
  for (const char* law : {"lugre", "modified-lugre"}) {
    SCOPED_TRACE(law);
    const auto coarse = work_cycle(law, 1e-3), fine = work_cycle(law, 5e-4);
    ASSERT_EQ(coarse.result.status[0], Status::ok);
    ASSERT_EQ(fine.result.status[0], Status::ok);
    const double w = coarse.column("max_cylinder_work");
    EXPECT_GT(w, 50.0);  // the cycle does work (58.8 J)
    const double drift_coarse = coarse.column("peak_energy_drift"), drift_fine = fine.column("peak_energy_drift");
    std::printf("%s: peak energy drift %.3e J (dt 1 ms), %.3e J (0.5 ms), of %.1f J cylinder work\n", law,
                drift_coarse, drift_fine, w);
    EXPECT_LT(drift_coarse / w, 5e-4);  // measured 6.3e-5
    EXPECT_NEAR(drift_coarse / drift_fine, 4.0, 0.4);  // measured 3.99
  }
}

// While the cylinder slides steadily (the lowering stroke, ṡ ≈ −0.042 m/s,
// 8 v_s), the bristles sit at their steady deflection and the law's force is
// its steady state g(v) sgn v + σ2 v with g → F_c: the integrated states
// reproduce the closed form of the Stribeck curve in the running model.
TEST(LuGreEngine, SteadySlidingForceIsTheStribeckCurve) {
  for (const char* law : {"lugre", "modified-lugre"}) {
    SCOPED_TRACE(law);
    const auto w = work_cycle(law, 1e-3);
    ASSERT_EQ(w.result.status[0], Status::ok);
    const auto t = w.channel("t"), v = w.channel("sdot"), F = w.channel("friction_force");
    const FrictionParams f;  // the model's defaults
    double worst = 0.0;
    long n = 0;
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] < 6.0 || t[k] > 7.9) continue;  // mid-stroke, > 1 s after the valve opened
      ASSERT_LT(v[k], -8 * f.stribeck_velocity);
      const double speed = -v[k];
      const double g = f.coulomb_force + (f.static_force - f.coulomb_force) *
                                             std::exp(-std::pow(speed / f.stribeck_velocity, f.stribeck_exponent));
      worst = std::fmax(worst, std::fabs(F[k] - (-g + f.viscous_coefficient * v[k])));
      ++n;
    }
    EXPECT_GT(n, 100);
    std::printf("%s: steady sliding, worst |F - F_ss| %.3e N\n", law, worst);
    EXPECT_LT(worst, 1e-12);  // measured 1.4e-13 N (the trapezoidal steady state is exact; rounding of 224 N)
  }
}
