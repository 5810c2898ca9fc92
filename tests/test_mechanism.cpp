// kernels/models: the planar loop chain against independent derivations.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/models/four_bar.hpp"

using namespace hs;
using Mech = PlanarFourBarMechanism;
using Integrator = DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>>;

namespace {

// Kinetic energy as a function of (q, q̇), on any scalar.
template <class T>
T kinetic(const Mech::Params& P, const T* q, const T* qd) {
  return Mech::kinetic_energy(P, Mech::motion(Mech::pose(P, q), qd));
}
template <class T>
T potential(const Mech::Params& P, const T* q) {
  return Mech::potential_energy(P, Mech::pose(P, q));
}
template <class T>
T actuator_length(const Mech::Params& P, const T* q) {
  const T zero[3] = {T(0.0), T(0.0), T(0.0)};
  const auto pose = Mech::pose(P, q);
  return Mech::actuator(P, pose, Mech::motion(pose, zero)).length;
}
// d/dt (∂T/∂q̇) along a motion through (q, q̇, q̈), exact: the momentum
// ∂T/∂q̇ (outer jet, along q̇) on the path q(τ) = q + τ q̇, q̇(τ) = q̇ + τ q̈
// (inner jet, along τ), differentiated at τ = 0.
void momentum_rate(const Mech::Params& P, const double* q, const double* qd, const double* qdd, double* out) {
  using Path = Dual<1>;
  using Jet = Dual<3, Path>;
  Jet qj[3], qdj[3];
  for (int k = 0; k < 3; ++k) {
    Path position(q[k]), velocity(qd[k]);
    position.v[0] = qd[k];
    velocity.v[0] = qdd[k];
    qj[k] = Jet(position);
    qdj[k] = Jet::variable(velocity, k);
  }
  const Jet T = kinetic(P, qj, qdj);
  for (int k = 0; k < 3; ++k) out[k] = T.v[k].v[0];
}

}  // namespace

// Assembly mode of a four-bar: σ = sign((D − C) × (E − D)), the orientation
// of the triangle crank tip C, coupler tip D, cut point E; for relative
// angles it is sign sin(z3 + β3 − β2) (β_j: direction of body j's distal
// vector in body axes).
static double assembly_orientation(const Mech::Params& P, const double* z) {
  const double b2 = std::atan2(P.body[1].distal_y, P.body[1].distal_x);
  const double b3 = std::atan2(P.body[2].distal_y, P.body[2].distal_x);
  return std::sin(z[2] + b3 - b2);
}

// The closed-form guess closes the loop exactly at every crank angle where
// the dyad can close, in the mode of the guessed z3, for both modes and both
// seed geometries; the two modes are distinct assemblies. (Newton from fixed
// guessed angles switched modes along a crank-angle sweep.) Cross-checks:
// the closure Φ from the pose recursion, and σ from the triangle's points.
TEST(PlanarFourBar, AssemblyGuessClosesTheLoopInTheGuessedMode) {
  for (const FourBarParams& base : {seed002_four_bar(), seed001_four_bar()}) {
    const Mech::Params nominal = base.mechanism;
    const double length = std::hypot(nominal.body[1].distal_x, nominal.body[1].distal_y);
    int closed = 0;
    for (int i = 0; i < 72; ++i) {
      for (int mode = 0; mode < 2; ++mode) {
        Mech::Params P = nominal;
        P.initial_angle[0] = i * 5.0 * kDeg;
        if (mode == 1) {  // the mirrored guess: σ of the opposite sign
          const double b2 = std::atan2(P.body[1].distal_y, P.body[1].distal_x);
          const double b3 = std::atan2(P.body[2].distal_y, P.body[2].distal_x);
          P.initial_angle[2] = -(P.initial_angle[2] + b3 - b2) - b3 + b2;
        }
        const double guessed = assembly_orientation(P, P.initial_angle);
        ASSERT_GT(std::abs(guessed), 1e-3);
        double z[3];
        Mech::assembly_guess(P, z);
        EXPECT_EQ(z[0], P.initial_angle[0]);
        const auto pose = Mech::pose(P, z);
        double phi[2];
        Mech::constraints(P, pose, phi);
        if (std::hypot(phi[0], phi[1]) > 1e-12 * length) continue;  // the dyad cannot close here
        ++closed;
        EXPECT_GT(assembly_orientation(P, z) * guessed, 0.0) << "crank " << i * 5 << " deg, mode " << mode;
        // σ from the points themselves: C = joint of body 2, D = joint of body 3, E = end.
        const V2<double> CD = pose.joint[2] - pose.joint[1], DE = pose.end - pose.joint[2];
        EXPECT_GT(cross(CD, DE) * guessed, 0.0);
        // Angles within π of the guesses.
        EXPECT_LE(std::abs(z[1] - P.initial_angle[1]), kPi + 1e-12);
        EXPECT_LE(std::abs(z[2] - P.initial_angle[2]), kPi + 1e-12);
      }
    }
    EXPECT_GE(closed, 72);  // both geometries close over at least half the crank circle in each mode
  }
}

// `run` starts from the same guess: the integrator's initial state keeps the
// guessed assembly mode at every crank angle where it initializes.
TEST(PlanarFourBar, InitialStateKeepsTheAssemblyModeAroundTheCrankCircle) {
  int initialized = 0;
  for (int i = 0; i < 72; ++i) {
    FourBarParams P = seed002_four_bar();
    P.mechanism.initial_angle[0] = i * 5.0 * kDeg;
    Integrator::State s;
    Integrator::Constants K;
    if (Integrator::initialize(P, IntegratorSettings{}, s, K) != Status::ok) continue;  // cylinder would pull
    ++initialized;
    EXPECT_GT(assembly_orientation(P.mechanism, s.q) * assembly_orientation(P.mechanism, P.mechanism.initial_angle),
              0.0)
        << "crank " << i * 5 << " deg";
  }
  EXPECT_GE(initialized, 60);
}

TEST(PlanarFourBar, AssemblesSeed002InitialConfiguration) {
  // docs/models/four-bar.md §9.4 [D]: closure at z1 = 60°
  // gives z2 = −37.9044°, z3 = −93.5833°, |s| = √3, cylinder at 30°.
  const FourBarParams P = seed002_four_bar();
  Integrator::State s;
  Integrator::Constants K;
  ASSERT_EQ(Integrator::initialize(P, IntegratorSettings{}, s, K), Status::ok);
  // z1 is held at 60° exactly; only the conversion to degrees rounds (1 ulp measured).
  EXPECT_DOUBLE_EQ(s.q[0] / kDeg, 60.0);
  // The reference angles are printed to 4 decimals: half a unit of the last digit.
  EXPECT_NEAR(s.q[1] / kDeg, -37.9044, 5e-5);
  EXPECT_NEAR(s.q[2] / kDeg, -93.5833, 5e-5);
  // The closed-form assembly (PlanarLoopChain::assembly_guess) plus Newton's
  // polish closes the loop to rounding, far inside constraint_tolerance:
  // s0 and ds/dz1 measured exact (0 error, with and without FMA); bounds ~45 ulp.
  EXPECT_NEAR(K.actuator[0].s0, std::sqrt(3.0), 1e-14);
  double phi[2];
  Mech::constraints(P.mechanism, Mech::pose(P.mechanism, s.q), phi);
  // The assembly's contract is constraint_tolerance (1e-11 m), not a measured error.
  EXPECT_LT(std::fabs(phi[0]) + std::fabs(phi[1]), IntegratorSettings{}.constraint_tolerance);
  // ds/dz1 = −0.5 m/rad at 60° (docs/models/four-bar.md §9.4): only the crank carries the cylinder.
  Dual<1> q[3] = {Dual<1>::variable(s.q[0], 0), s.q[1], s.q[2]};
  EXPECT_NEAR(actuator_length(P.mechanism, q).v[0], -0.5, 1e-14);
}

TEST(PlanarFourBar, StaticCylinderForcesMatchVirtualWork) {
  // Seed 002 geometry: F(0) = −386.00 N (tension) by virtual work [D], printed
  // to 2 decimals: half a unit of the last digit (measured −386.0049 N).
  // Seed 001 four-bar: F_s0 = √2 g (3 m1 + 2 m2 + m3) = 11 029.38 N [S, D],
  // a closed form: measured exact (0 error with and without FMA); bound ~55 ulp.
  struct Case { FourBarParams P; double force; double tol; };
  const Case cases[] = {{seed002_four_bar(), -386.00, 0.005},
                        {seed001_four_bar(), std::sqrt(2.0) * 9.81 * (3 * 225 + 2 * 35 + 50), 1e-10}};
  for (const auto& c : cases) {
    Integrator::State s;
    Integrator::Constants K;
    ASSERT_EQ(Integrator::initialize(c.P, IntegratorSettings{}, s, K), Status::ok);
    EXPECT_NEAR(ThreeVolumeCircuit::piston_force(K.actuator[0].circuit, s.p), c.force, c.tol);
    EXPECT_EQ(s.p[0], s.p[1]);
    EXPECT_EQ(s.p[2], c.P.actuator[0].circuit.rod_side_initial_pressure);
  }
}

TEST(PlanarFourBar, ConstraintJacobianAndBiasAreDerivativesOfClosure) {
  const auto P = seed001_four_bar().mechanism;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int trial = 0; trial < 20; ++trial) {
    const double q[3] = {u(rng), u(rng), u(rng)}, qd[3] = {u(rng), u(rng), u(rng)};
    // Φ_z from the recursion vs dual-number derivative of Φ.
    Dual<3> qj[3];
    for (int k = 0; k < 3; ++k) qj[k] = Dual<3>::variable(q[k], k);
    Dual<3> phi[2];
    Mech::constraints(P, Mech::pose(P, qj), phi);
    double J[2][3];
    const auto pose = Mech::pose(P, q);
    Mech::constraint_jacobian(pose, J);
    // Entries O(1 m), a few products of lengths and sin/cos each: measured
    // worst 6.7e-16 (3 ulp), with and without FMA; bound ~7x.
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(J[r][c], phi[r].v[c], 5e-15);
    // Φ̈ at z̈ = 0 is (d/dt Φ_z) ż: derivative of Φ_z ż along q̇.
    const double zero[3] = {0, 0, 0};
    const auto m = Mech::motion(pose, qd);
    double bias[2];
    Mech::constraint_acceleration(pose, m, Mech::acceleration(pose, m, zero), bias);
    Dual<1> qt[3];
    for (int k = 0; k < 3; ++k) qt[k] = q[k] + Dual<1>::variable(0.0, 0) * qd[k];
    Dual<1> Jt[2][3];
    Mech::constraint_jacobian(Mech::pose(P, qt), Jt);
    for (int r = 0; r < 2; ++r) {
      double expect = 0.0;
      for (int c = 0; c < 3; ++c) expect += Jt[r][c].v[0] * qd[c];
      // Measured worst 2.3e-15 where the bound is 1.6e-14 (FMA: 1.4e-15); ~7x.
      EXPECT_NEAR(bias[r], expect, 1e-14 * (1 + std::fabs(expect)));
    }
  }
}

TEST(PlanarFourBar, DynamicsResidualIsLagrangesEquations) {
  // r = d/dt(∂T/∂q̇) − ∂T/∂q + ∂V/∂q − F ∂s/∂q for arbitrary (q, q̇, q̈, F):
  // the recursive Newton–Euler residual (seed 001 eq 11) against the
  // Lagrangian built from the energies, every derivative exact (dual
  // numbers; d/dt(∂T/∂q̇) on nested jets), so the two agree to rounding.
  for (const FourBarParams& FP : {seed002_four_bar(), seed001_four_bar()}) {
    const auto& P = FP.mechanism;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1.5, 1.5);
    for (int trial = 0; trial < 20; ++trial) {
      const double q[3] = {u(rng), u(rng), u(rng)}, qd[3] = {u(rng), u(rng), u(rng)}, qdd[3] = {u(rng), u(rng), u(rng)};
      const double F = 1000.0 * u(rng);
      const auto pose = Mech::pose(P, q);
      const auto m = Mech::motion(pose, qd);
      const auto a = Mech::acceleration(pose, m, qdd);
      const auto act = Mech::actuator(P, pose, m);
      double r[3], ds_dz[3];
      Mech::dynamics_residual(P, pose, m, a, r);
      Mech::actuator_jacobian(P, pose, act, ds_dz);
      for (int k = 0; k < 3; ++k) r[k] -= F * ds_dz[k];

      double dp_dt[3];
      momentum_rate(P, q, qd, qdd, dp_dt);
      Dual<3> qj[3], qdj[3];
      for (int k = 0; k < 3; ++k) { qj[k] = Dual<3>::variable(q[k], k); qdj[k] = qd[k]; }
      const auto dT = kinetic(P, qj, qdj);
      const auto dV = potential(P, qj);
      const auto ds = actuator_length(P, qj);
      for (int k = 0; k < 3; ++k) {
        const double lagrange = dp_dt[k] - dT.v[k] + dV.v[k] - F * ds.v[k];
        // Rounding of a sum of four terms, each from a few dozen operations:
        // relative to the terms' magnitudes. Measured worst 1.3e-15 with FMA,
        // 1.0e-15 without (40 trials of seed 001 and 002, seed 11).
        const double terms = std::fabs(dp_dt[k]) + std::fabs(dT.v[k]) + std::fabs(dV.v[k]) + std::fabs(F * ds.v[k]);
        EXPECT_NEAR(r[k], lagrange, 1e-14 * terms) << "trial " << trial << " coordinate " << k;
      }
    }
  }
}
