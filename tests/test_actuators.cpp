// Actuators as components (docs/models/hydraulics.md §13–14,
// docs/models/integrators.md §11): circuit components, the two-volume circuit,
// the hydraulic cylinder, input policies with memory (a sampled PI
// controller), and a model with two actuators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/actuators/hydraulic_cylinder.hpp"
#include "kernels/hydraulics/components.hpp"
#include "kernels/hydraulics/three_volume_circuit.hpp"
#include "kernels/hydraulics/two_volume_circuit.hpp"
#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/integrators/run_columns.hpp"
#include "kernels/models/actuated_parameters.hpp"
#include "kernels/models/four_bar.hpp"

using namespace hs;

namespace {

// The three-volume circuit's pressure rates as written before it was
// composed of components (the monolith of commit 595a69b), for a bitwise
// comparison.
void monolithic_rates(const CircuitParams& c, const CircuitConstants& k, const double* p, double U, double ds,
                      double sdot, double* pdot) {
  const double l2 = c.piston_chamber_length0 + ds;
  const double l3 = c.cylinder_length - l2;
  const double V1 = c.hose_volume_1;
  const double V2 = c.hose_volume_2 + k.A_piston * l2;
  const double V3 = c.hose_volume_3 + k.A_rod * l3;
  const double Be1 = 1.0 / (k.inv_B_oil + k.inv_B_hose);
  const double Be2 = 1.0 / (k.inv_B_oil + (c.hose_volume_2 * k.inv_B_hose + k.A_piston * l2 * k.inv_B_cyl) / V2);
  const double Be3 = 1.0 / (k.inv_B_oil + (c.hose_volume_3 * k.inv_B_hose + k.A_rod * l3 * k.inv_B_cyl) / V3);
  const double gamma_dcv = c.dcv_flow_coefficient * U;
  double Q_d1, Q_3d;
  if (U >= 0.0) {
    Q_d1 = orifice_flow(gamma_dcv, c.supply_pressure - p[0], c.laminar_limit);
    Q_3d = orifice_flow(gamma_dcv, p[2] - c.tank_pressure, c.laminar_limit);
  } else {
    Q_d1 = orifice_flow(gamma_dcv, p[0] - c.tank_pressure, c.laminar_limit);
    Q_3d = orifice_flow(gamma_dcv, c.supply_pressure - p[2], c.laminar_limit);
  }
  const double Q_t = orifice_flow(k.C_vt, p[0] - p[1], c.laminar_limit);
  pdot[0] = Be1 / V1 * (Q_d1 - Q_t);
  pdot[1] = Be2 / V2 * (Q_t - k.A_piston * sdot);
  pdot[2] = Be3 / V3 * (k.A_rod * sdot - Q_3d);
}

}  // namespace

TEST(Components, ThreeVolumeCircuitComposedIsBitwiseTheMonolith) {
  const CircuitParams c{};
  const CircuitConstants k = ThreeVolumeCircuit::constants(c);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> pr(0.05e6, 7.5e6), u(-10.0, 10.0), ds(-0.4, 0.4), v(-0.2, 0.2);
  for (int i = 0; i < 2000; ++i) {
    double p[3] = {pr(rng), pr(rng), pr(rng)};
    if (i % 7 == 0) p[1] = p[0] + 1e5 * (u(rng) / 10.0);  // throttle inside its laminar region
    const double U = i % 5 == 0 ? 0.0 : u(rng), d = ds(rng), sd = v(rng);
    double a[3], b[3];
    ThreeVolumeCircuit::pressure_rates(c, k, p, U, d, sd, a);
    monolithic_rates(c, k, p, U, d, sd, b);
    for (int j = 0; j < 3; ++j) ASSERT_EQ(a[j], b[j]) << "point " << i << " volume " << j;
  }
}

TEST(Components, SpoolsAndEffectiveBulkModulus) {
  // First-order spool: the trapezoid in closed form; ideal spool: U = U_ref.
  const double tau = 1.0 / (2.0 * kPi * 35.0), dt = 1e-3;
  const double U1 = hydraulics::FirstOrderSpool::step(tau, 2.0, 10.0, dt);
  EXPECT_NEAR(U1, 2.0 + 0.5 * dt * ((10.0 - 2.0) / tau + (10.0 - U1) / tau), 1e-13);
  EXPECT_EQ(hydraulics::IdealSpool::step(0.0, 2.0, 7.5, dt), 7.5);
  // A volume that is all hose has 1/B_e = 1/B_oil + 1/B_h; the general form agrees.
  const double V = 3e-5, ib_oil = 1 / 1.5e9, ib_h = 1 / 150e6;
  EXPECT_NEAR(hydraulics::effective_bulk_modulus(ib_oil, V * ib_h, V), hydraulics::hose_bulk_modulus(ib_oil, ib_h),
              1e-15 * 1.5e9);
}

TEST(TwoVolumeCircuit, RatesMatchAHandComputation) {
  const TwoVolumeCircuitParams c{};
  const auto k = TwoVolumeCircuit::constants(c);
  const double p[2] = {3.0e6, 2.0e6}, U = 4.0, ds = 0.1, sdot = 0.02;
  double pdot[2];
  TwoVolumeCircuit::pressure_rates(c, k, p, U, ds, sdot, pdot);
  // By hand: A2 = π/4·0.08², A3 = A2 − π/4·0.035²; l2 = 0.6, l3 = 0.4;
  // V_A = 7.85e-5 + A2·0.6, V_B = 7.85e-5 + A3·0.4; 1/B_e = 1/B_oil + (V_h/B_h + V_c/B_c)/V;
  // U > 0: Q_A = C_vd U √(pP − p_A), Q_B = C_vd U √(p_B − pT) (both beyond the laminar limit).
  const double A2 = 0.25 * kPi * 0.0064, A3 = A2 - 0.25 * kPi * 0.035 * 0.035;
  const double VA = 7.85e-5 + A2 * 0.6, VB = 7.85e-5 + A3 * 0.4;
  const double BeA = 1 / (1 / 1.5e9 + (7.85e-5 / 150e6 + A2 * 0.6 / 31.5e9) / VA);
  const double BeB = 1 / (1 / 1.5e9 + (7.85e-5 / 150e6 + A3 * 0.4 / 31.5e9) / VB);
  const double QA = 1.069e-8 * 4.0 * std::sqrt(7.6e6 - 3.0e6), QB = 1.069e-8 * 4.0 * std::sqrt(2.0e6 - 0.1e6);
  // Different operation order from the kernel: measured ≤ 3e-16 relative; bound 1e-14.
  EXPECT_NEAR(pdot[0], BeA / VA * (QA - A2 * sdot), 1e-14 * std::fabs(pdot[0]));
  EXPECT_NEAR(pdot[1], BeB / VB * (A3 * sdot - QB), 1e-14 * std::fabs(pdot[1]));
  EXPECT_NEAR(TwoVolumeCircuit::piston_force(k, p), A2 * 3.0e6 - A3 * 2.0e6, 1e-9);
}

TEST(TwoVolumeCircuit, ClosedValveConservesOil) {
  // U = 0: no flow through the valve, so each volume changes pressure only
  // by the wall motion: ṗ_A = −B_A/V_A · A2 ṡ, ṗ_B = +B_B/V_B · A3 ṡ, and
  // nothing at rest whatever the pressures.
  const TwoVolumeCircuitParams c{};
  const auto k = TwoVolumeCircuit::constants(c);
  for (double pa : {0.5e6, 3e6, 7e6}) {
    const double p[2] = {pa, 3.5e6};
    double rest[2], moving[2];
    TwoVolumeCircuit::pressure_rates(c, k, p, 0.0, 0.05, 0.0, rest);
    EXPECT_EQ(rest[0], 0.0);
    EXPECT_EQ(rest[1], 0.0);
    TwoVolumeCircuit::pressure_rates(c, k, p, 0.0, 0.05, 0.03, moving);
    const double l2 = 0.55, l3 = 0.45;
    const double VA = c.hose_volume_A + k.A_piston * l2, VB = c.hose_volume_B + k.A_rod * l3;
    const double BeA = 1 / (k.inv_B_oil + (c.hose_volume_A * k.inv_B_hose + k.A_piston * l2 * k.inv_B_cyl) / VA);
    const double BeB = 1 / (k.inv_B_oil + (c.hose_volume_B * k.inv_B_hose + k.A_rod * l3 * k.inv_B_cyl) / VB);
    EXPECT_NEAR(moving[0], -BeA / VA * k.A_piston * 0.03, 1e-14 * std::fabs(moving[0]));
    EXPECT_NEAR(moving[1], BeB / VB * k.A_rod * 0.03, 1e-14 * std::fabs(moving[1]));
    // Oil mass in V_A: d(ρV)/dt ∝ V̇_A + V_A ṗ_A / B_A = A2 ṡ − A2 ṡ = 0.
    EXPECT_NEAR(k.A_piston * 0.03 + VA * moving[0] / BeA, 0.0, 1e-16);
  }
}

TEST(HydraulicCylinder, ForceStaticStateAndAdmissibility) {
  using Cyl = HydraulicCylinder<ThreeVolumeCircuit, BrownMcPhee>;
  static_assert(Cyl::n_states == 3, "three pressures, no friction state");
  Cyl::Params P{};
  const Cyl::Constants K = Cyl::constants(P, 1.7);
  double p[3], w[1];
  Cyl::static_state(P, K, 12000.0, p, w);
  EXPECT_EQ(p[0], p[1]);
  EXPECT_EQ(p[2], P.circuit.rod_side_initial_pressure);
  EXPECT_NEAR(Cyl::piston_force(K, p), 12000.0, 1e-9);
  EXPECT_TRUE(Cyl::static_state_admissible(p, 0.0, 100e6));
  EXPECT_EQ(Cyl::check(P, K, p, 1.7, 0.0, 100e6), Status::ok);
  EXPECT_EQ(Cyl::check(P, K, p, 1.7 + 0.6, 0.0, 100e6), Status::stroke_out_of_range);  // l2 = 1.1 > l
  EXPECT_EQ(Cyl::check(P, K, p, 1.7, 0.0, 1e6), Status::pressure_out_of_range);
  // Friction opposes the motion; the powers of A18.
  const double Ff = Cyl::friction_force(P, 0.01, static_cast<const double*>(nullptr), static_cast<const double*>(nullptr));
  EXPECT_GT(Ff, 0.0);
  EXPECT_EQ(Cyl::friction_power(Ff, 0.01), -Ff * 0.01);
}

// ---------------------------------------------------------------------------
// An input policy with memory: a sampled PI controller on the crank angle.

namespace {

struct CrankPIParams {
  double target = 50.0 * kDeg;  // reference crank angle z1 [rad]
  double kp = 320.0;            // [V/rad]
  double ki = 5.0;              // [V/(rad s)]
  double period = 1e-3;         // sample period [s]
  double U_max = 10.0;          // valve saturation [V]
};

// U_ref = −(kp e + ki ∫e), e = target − z1 (extending the cylinder turns the
// crank clockwise, ∂s/∂z1 < 0). The integral is the controller's memory,
// advanced by the rectangle rule once per sample and frozen while saturated.
struct CrankPI {
  using Params = CrankPIParams;
  struct Memory {
    double integral = 0.0;  // ∫ e dt [rad s]
    long samples = 0;
  };
  static constexpr bool observes = true;
  static double sample_period(const Params& P) { return P.period; }
  static void initialize(const Params&, Memory& m) { m = Memory{}; }
  template <class Obs, int na>
  static void reference(const Params& P, double, const Obs& o, Memory& m, double (&U_ref)[na]) {
    const double e = P.target - o.q[0];
    double u = -(P.kp * e + P.ki * (m.integral + e * P.period));
    if (u > P.U_max) u = P.U_max;
    else if (u < -P.U_max) u = -P.U_max;
    else m.integral += e * P.period;
    ++m.samples;
    U_ref[0] = u;
    for (int a = 1; a < na; ++a) U_ref[a] = 0.0;
  }
  static double last_switch(const Params&, double) { return 0.0; }
};

using PIModel = ActuatedModel<PlanarFourBarMechanism, HydraulicCylinder<ThreeVolumeCircuit, BrownMcPhee>, 1, CrankPI>;
using PIIntegrator = DoubleStepTrapezoidal<PIModel>;

PIModel::Params pi_params() {
  const FourBarParams F = seed002_four_bar();
  PIModel::Params P;
  P.mechanism = F.mechanism;
  P.actuator[0] = F.actuator[0];
  return P;
}

}  // namespace

TEST(InputPolicy, SampledPIControllerHoldsTheCrankAtANewAngle) {
  const PIModel::Params P = pi_params();
  IntegratorSettings S;
  S.duration = 8.0;
  std::vector<double> z1, t;
  const auto r = run_instance<PIIntegrator>(P, S, 10, [&](long, const Sample<3, 3>& s) {
    z1.push_back(s.q[0]);
    t.push_back(s.t);
  });
  ASSERT_EQ(r.status, Status::ok);
  // Starts at 60°, held at 50°.
  EXPECT_NEAR(z1.front(), 60.0 * kDeg, 1e-12);
  double worst_late = 0.0;
  for (size_t i = 0; i < z1.size(); ++i)
    if (t[i] >= 5.0) worst_late = std::fmax(worst_late, std::fabs(z1[i] - P.input.target));
  std::printf("PI: final error %.3e rad, max |error| over [5, 8] s %.3e rad, final U %.3e V\n",
              r.q[0] - P.input.target, worst_late, r.U[0]);
  // Measured (kp 320 V/rad, ki 5 V/(rad s), T = 1 ms): final error −1.24e-4 rad,
  // max |error| over [5, 8] s 1.30e-4 rad (0.0075°; seal friction makes the
  // integral hunt slightly). Bounds: twice the measurement.
  EXPECT_LE(std::fabs(r.q[0] - P.input.target), 2.5e-4);
  EXPECT_LE(worst_late, 2.6e-4);
}

TEST(InputPolicy, ControllerMemoryLivesInTheIntegratorState) {
  // The memory advances once per sample (1 ms = one step here, 10 steps at dt = 0.1 ms).
  const PIModel::Params P = pi_params();
  for (double dt : {1e-3, 1e-4}) {
    IntegratorSettings S;
    S.dt = dt;
    PIIntegrator::State st;
    PIIntegrator::Constants K;
    ASSERT_EQ(PIIntegrator::initialize(P, S, st, K), Status::ok);
    PIIntegrator::StepReport rep;
    for (int n = 0; n < 100; ++n) ASSERT_EQ(PIIntegrator::step(P, K, S, st, rep), Status::ok);
    EXPECT_EQ(st.input.memory.samples, dt == 1e-3 ? 100 : 10);
  }
}

// ---------------------------------------------------------------------------
// Two actuators: the four-bar driven by two identical cylinders in parallel,
// attached at the same points, each with half the piston and rod areas, half
// the hose volumes, half the valve and throttle flow and half the seal
// friction, moves like the one-cylinder four-bar.

namespace {

struct TwinCylinderFourBar : PlanarLoopChain<3> {
  static constexpr int na = 2;
  template <class T>
  static Actuator<T> actuator(const Params& P, const Pose<T>& p, const Motion<T>& m, int) {
    return PlanarLoopChain<3>::actuator(P, p, m);
  }
  template <class T>
  static void actuator_jacobian(const Params& P, const Pose<T>& p, const Actuator<T>& act, T* ds_dz, int) {
    PlanarLoopChain<3>::actuator_jacobian(P, p, act, ds_dz);
  }
};

// The work cycle on every actuator's valve.
struct SharedSchedule : OpenLoopSchedule {
  template <class Obs, int na>
  static void reference(const Params& P, double t, const Obs&, Memory&, double (&U_ref)[na]) {
    for (int a = 0; a < na; ++a) U_ref[a] = P(t);
  }
};

using TwinModel = ActuatedModel<TwinCylinderFourBar, HydraulicCylinder<ThreeVolumeCircuit, BrownMcPhee>, 2, SharedSchedule>;
using TwinIntegrator = DoubleStepTrapezoidal<TwinModel>;
using SingleIntegrator = DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>>;
static_assert(TwinIntegrator::nx == 1 + 2 * 3, "[z_i | actuator 0 | actuator 1]");
static_assert(TwinIntegrator::state_offset(1) == 4, "actuator 1's states at ni + npa");

TwinModel::Params twin_params(const FourBarParams& F) {
  TwinModel::Params P;
  P.mechanism = F.mechanism;
  P.input = F.input;
  const double r = 1.0 / std::sqrt(2.0);
  for (int a = 0; a < 2; ++a) {
    auto& c = P.actuator[a].circuit;
    c = F.actuator[0].circuit;
    c.piston_diameter *= r;
    c.rod_diameter *= r;
    c.throttle_diameter *= r;
    c.hose_volume_1 *= 0.5;
    c.hose_volume_2 *= 0.5;
    c.hose_volume_3 *= 0.5;
    c.dcv_flow_coefficient *= 0.5;
    P.actuator[a].friction = F.actuator[0].friction;
    scale_friction(P.actuator[a].friction, 0.5);
  }
  return P;
}

}  // namespace

TEST(TwoActuators, ParallelHalfCylindersMoveLikeOne) {
  const FourBarParams F = seed002_four_bar();
  const TwinModel::Params P = twin_params(F);
  const IntegratorSettings S;
  std::vector<Sample<3, 3>> one;
  std::vector<Sample<3, 6, 2>> two;
  const auto r1 = run_instance<SingleIntegrator>(F, S, 100, [&](long, const Sample<3, 3>& s) { one.push_back(s); });
  const auto r2 = run_instance<TwinIntegrator>(P, S, 100, [&](long, const Sample<3, 6, 2>& s) { two.push_back(s); });
  ASSERT_EQ(r1.status, Status::ok);
  ASSERT_EQ(r2.status, Status::ok);
  ASSERT_EQ(one.size(), two.size());
  double dq = 0.0, dp = 0.0, dF = 0.0, dsym = 0.0;
  for (size_t i = 0; i < one.size(); ++i) {
    for (int k = 0; k < 3; ++k) dq = std::fmax(dq, std::fabs(one[i].q[k] - two[i].q[k]));
    for (int k = 0; k < 3; ++k) {
      dp = std::fmax(dp, std::fabs(one[i].p[k] - two[i].p[k]));
      dp = std::fmax(dp, std::fabs(one[i].p[k] - two[i].p[3 + k]));
      dsym = std::fmax(dsym, std::fabs(two[i].p[k] - two[i].p[3 + k]));
    }
    dF = std::fmax(dF, std::fabs(one[i].piston_force[0] - (two[i].piston_force[0] + two[i].piston_force[1])));
  }
  std::printf("twin vs single over 10 s: max |dq| %.3e rad, |dp| %.3e Pa, |dF| %.3e N, actuator asymmetry %.3e Pa, "
              "dW_cyl %.3e J of %.3e J, dW_fr %.3e J of %.3e J, d(drift) %.3e J\n",
              dq, dp, dF, dsym, r2.cylinder_work - r1.cylinder_work, r1.cylinder_work,
              r2.friction_work - r1.friction_work, r1.friction_work, r2.peak_energy_drift - r1.peak_energy_drift);
  // The half cylinders' areas and coefficients differ from exact halves by
  // rounding only (sqrt(2) scalings), so the runs agree to rounding amplified by
  // 10^4 Newton-converged steps. Measured: |dq| 8.8e-14 rad, |dp| 1.8e-5 Pa
  // (of MPa), |dF| 1.5e-7 N, dW_cyl 1.8e-11 J of 61.6 J, dW_fr 2.1e-11 J of
  // -47.8 J; bounds ~10x.
  EXPECT_LE(dq, 1e-12);
  EXPECT_LE(dp, 2e-4);
  EXPECT_LE(dF, 2e-6);
  EXPECT_EQ(dsym, 0.0);  // identical actuators stay identical (measured: bit for bit)
  EXPECT_NEAR(r2.cylinder_work, r1.cylinder_work, 3e-12 * std::fabs(r1.cylinder_work));
  EXPECT_NEAR(r2.friction_work, r1.friction_work, 4e-12 * std::fabs(r1.friction_work));
  EXPECT_EQ(r2.s[0], r2.s[1]);
}

TEST(TwoActuators, ColumnsAreSuffixedPerActuator) {
  StateNames n;
  n.coordinate_units = {"rad", "rad", "rad"};
  n.coordinate_descriptions = {"a", "b", "c"};
  n.pressure_descriptions = {"1", "2", "3"};
  const auto sum = run_columns::summary_columns<3, 6, 2>(n);
  const auto ch = run_columns::trajectory_channels<3, 6, 2>(n);
  EXPECT_EQ(static_cast<int>(sum.size()), (run_columns::summary_width<3, 6, 2>()));
  EXPECT_EQ(static_cast<int>(ch.size()), (run_columns::sample_width<3, 6, 2>()));
  std::vector<std::string> names;
  for (const auto& c : sum) names.push_back(c.name);
  for (const char* want : {"p1_1", "p3_2", "p1_min_1", "p3_max_2", "U_1", "U_2", "s_1", "s_2", "cylinder_work"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  names.clear();
  for (const auto& c : ch) names.push_back(c.name);
  for (const char* want : {"p2_2", "sdot_2", "piston_force_1", "friction_force_2", "energy_drift"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  // One actuator: today's names.
  StateNames one = n;
  one.pressure_descriptions.resize(3);
  names.clear();
  for (const auto& c : run_columns::summary_columns<3, 3>(one)) names.push_back(c.name);
  for (const char* want : {"p1", "p3_min", "U", "s"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

// Parameters per actuator: every actuator's circuit and friction are study
// parameters, prefixed "actuator<k>." when there are several; a row sets the
// field of the actuator it names and no other.
TEST(TwoActuators, ParameterTableNamesEveryActuator) {
  const TwinModel::Params P = twin_params(seed002_four_bar());
  ParameterTableBuilder<TwinModel::Params> t(P);
  actuator_and_input_parameters(t);
  std::vector<std::string> names;
  for (const auto& p : t.table()) names.push_back(p.name);
  EXPECT_EQ(names.size(), 2u * (19 + 12) + 1);  // two (circuit + friction), input.gain
  for (const char* want : {"actuator1.circuit.piston_diameter", "actuator2.circuit.piston_diameter",
                           "actuator2.friction.coulomb_force", "input.gain"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  EXPECT_EQ(std::find(names.begin(), names.end(), "circuit.piston_diameter"), names.end());
  std::vector<double> row = pack_row(t.table(), P);
  const auto at = [&](const char* name) { return std::find(names.begin(), names.end(), name) - names.begin(); };
  EXPECT_EQ(row[at("actuator2.circuit.piston_diameter")], P.actuator[1].circuit.piston_diameter);
  row[at("actuator2.circuit.piston_diameter")] = 0.05;
  row[at("actuator1.friction.coulomb_force")] = 123.0;
  const TwinModel::Params Q = unpack_row(t.table(), row.data(), P);
  EXPECT_EQ(Q.actuator[1].circuit.piston_diameter, 0.05);
  EXPECT_EQ(Q.actuator[0].circuit.piston_diameter, P.actuator[0].circuit.piston_diameter);
  EXPECT_EQ(Q.actuator[0].friction.coulomb_force, 123.0);
  EXPECT_EQ(Q.actuator[1].friction.coulomb_force, P.actuator[1].friction.coulomb_force);
  // The order rules name parameters of the table, per actuator.
  const auto rules = circuit_rules(2);
  ASSERT_EQ(rules.size(), 6u);
  for (const auto& r : rules) {
    EXPECT_NE(std::find(names.begin(), names.end(), r.a), names.end()) << r.a;
    EXPECT_NE(std::find(names.begin(), names.end(), r.b), names.end()) << r.b;
  }
  // A circuit of other components has its own parameters: the two-volume
  // circuit has hoses A and B and no throttle.
  using TwoVolumeParams = ActuatedParams<decltype(FourBarParams::mechanism), CylinderParams<TwoVolumeCircuitParams>>;
  ParameterTableBuilder<TwoVolumeParams> t2{TwoVolumeParams{}};
  actuator_and_input_parameters(t2);
  names.clear();
  for (const auto& p : t2.table()) names.push_back(p.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "circuit.hose_volume_A"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "circuit.throttle_diameter"), names.end());
}

// The two-volume circuit is a new combination, not a new model: the same
// four-bar driven by it runs the work cycle.
TEST(TwoVolumeCircuit, DrivesTheFourBar) {
  using Model2 = ActuatedModel<PlanarFourBarMechanism, HydraulicCylinder<TwoVolumeCircuit, BrownMcPhee>, 1, OpenLoopSchedule>;
  using I2 = DoubleStepTrapezoidal<Model2>;
  static_assert(I2::nx == 1 + 2, "z_i and two pressures");
  const FourBarParams F = seed002_four_bar();
  Model2::Params P;
  P.mechanism = F.mechanism;
  P.input = F.input;
  P.actuator[0].friction = F.actuator[0].friction;
  IntegratorSettings S;
  S.duration = 4.0;
  const auto r = run_instance<I2>(P, S, 0, [](long, const Sample<3, 2>&) {});
  std::printf("two-volume four-bar: status %s, z1(4 s) = %.6f rad, p = (%.4e, %.4e) Pa, drift %.3e J of W_max %.3e J\n",
              status_name(r.status), r.q[0], r.p[0], r.p[1], r.peak_energy_drift, r.max_cylinder_work);
  ASSERT_EQ(r.status, Status::ok);
  // The valve opens at 1 s (U_ref = 10 V): the crank leaves 60 deg (measured
  // 0.8949 rad at 4 s, from 1.0472); the energy balance closes to 2.5e-4 of
  // the cylinder work (measured 6.3e-3 J of 25.2 J; bound 4x).
  EXPECT_LT(r.q[0], 60.0 * kDeg - 0.1);
  EXPECT_LE(r.peak_energy_drift, 1e-3 * r.max_cylinder_work);
}
