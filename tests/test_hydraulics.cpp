// kernels/hydraulics: valve laws and the three-volume circuit.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/hydraulics/three_volume_circuit.hpp"

using namespace hs;

namespace {
const CircuitParams kDefaults{};
}

TEST(Valve, FlowIsContinuousAtTheLaminarLimitForBothValves) {
  const CircuitConstants k = ThreeVolumeCircuit::constants(kDefaults);
  const double lim = kDefaults.laminar_limit;
  const double gammas[] = {k.C_vt, kDefaults.dcv_flow_coefficient * 10.0, kDefaults.dcv_flow_coefficient * -3.0};
  for (double g : gammas) {
    for (double side : {-1.0, 1.0}) {
      const double at = side * lim;
      // Left and right of ±Δp_lim, 2e-12·Δp_lim apart: a continuous law moves
      // by its slope (≤ γ/√Δp_lim) times the gap, ≤ 2e-12·|γ√Δp_lim|; measured
      // 1.5e-12 of it, with and without FMA. A jump would add its size.
      const double inside = orifice_flow(g, at * (1 - 1e-12), lim);
      const double outside = orifice_flow(g, at * (1 + 1e-12), lim);
      EXPECT_NEAR(inside, outside, 1e-11 * std::fabs(g * std::sqrt(lim)));
      // At the limit itself: measured 1 ulp (2.2e-16 relative); bound ~9 ulp.
      EXPECT_NEAR(orifice_flow(g, at, lim), side * g * std::sqrt(lim), 2e-15 * std::fabs(g * std::sqrt(lim)));
    }
  }
}

TEST(Valve, LaminarSlopeIsTwiceTheTurbulentSlopeAtTheLimit) {
  // docs/models/hydraulics.md §6.2: γ1 = γ2/√Δp_lim inside, γ2/(2√Δp_lim) just outside.
  // Closed forms at the same points, so only rounding separates them:
  // measured ≤ 1 ulp (1.7e-16 relative) with and without FMA; bounds ~9 ulp.
  const double g = 1.097e-6, lim = 2e5, beyond = lim * (1 + 1e-9);
  const double ulps9 = 2e-15;
  const auto in = orifice_flow(g, Dual<1>::variable(0.5 * lim, 0), lim);
  const auto out = orifice_flow(g, Dual<1>::variable(beyond, 0), lim);
  EXPECT_NEAR(in.v[0], g / std::sqrt(lim), ulps9 * g / std::sqrt(lim));
  EXPECT_NEAR(out.v[0], g / (2 * std::sqrt(beyond)), ulps9 * g / std::sqrt(lim));
  EXPECT_NEAR(orifice_flow(g, -4e6, lim), -g * std::sqrt(4e6), ulps9 * g * std::sqrt(4e6));
}

TEST(Circuit, DerivedConstantsMatchReferenceTable) {
  // docs/models/hydraulics.md §11: A2 = 5.0265e-3 m², A3 = 4.0644e-3 m², C_vt = 1.097e-6,
  // printed to 5 and 4 digits: bounds are half a unit of the last printed digit.
  const CircuitConstants k = ThreeVolumeCircuit::constants(kDefaults);
  EXPECT_NEAR(k.A_piston, 5.0265e-3, 5e-8);
  EXPECT_NEAR(k.A_rod, 4.0644e-3, 5e-8);
  EXPECT_NEAR(k.C_vt, 1.097e-6, 5e-10);
}

TEST(Circuit, ClosedValveWithEqualPressuresIsAnEquilibrium) {
  // docs/models/hydraulics.md §6.3: U = 0 and p1 = p2 give no flow for any p3, at rest.
  const CircuitConstants k = ThreeVolumeCircuit::constants(kDefaults);
  for (double p3 : {0.5e6, 3.5e6, 7e6}) {
    const double p[3] = {2.75e6, 2.75e6, p3};
    double pdot[3];
    ThreeVolumeCircuit::pressure_rates(kDefaults, k, p, 0.0, 0.0, 0.0, pdot);
    for (double r : pdot) EXPECT_EQ(r, 0.0);
  }
}

TEST(Circuit, VolumeTermMatchesPistonMotion) {
  // Pure piston motion with closed valve and p1 = p2: dp2/dt = −Be2 A2 ṡ / V2,
  // dp3/dt = +Be3 A3 ṡ / V3, with Be from seed 000 eq (75).
  const CircuitParams& c = kDefaults;
  const CircuitConstants k = ThreeVolumeCircuit::constants(c);
  const double p[3] = {3e6, 3e6, 3e6}, sdot = 0.01, ds = 0.1;
  double pdot[3];
  ThreeVolumeCircuit::pressure_rates(c, k, p, 0.0, ds, sdot, pdot);
  const double l2 = c.piston_chamber_length0 + ds, l3 = c.cylinder_length - l2;
  const double V2 = c.hose_volume_2 + k.A_piston * l2, V3 = c.hose_volume_3 + k.A_rod * l3;
  const double Be2 = 1 / (1 / c.oil_bulk_modulus + c.hose_volume_2 / (V2 * c.hose_bulk_modulus) +
                          k.A_piston * l2 / (V2 * c.cylinder_bulk_modulus));
  const double Be3 = 1 / (1 / c.oil_bulk_modulus + c.hose_volume_3 / (V3 * c.hose_bulk_modulus) +
                          k.A_rod * l3 / (V3 * c.cylinder_bulk_modulus));
  EXPECT_EQ(pdot[0], 0.0);
  // The same formula written out again: measured exact (0 error) with and
  // without FMA; ~20 operations, bound 1e-14 relative (~45 ulp).
  EXPECT_NEAR(pdot[1], -Be2 * k.A_piston * sdot / V2, 1e-14 * std::fabs(pdot[1]));
  EXPECT_NEAR(pdot[2], Be3 * k.A_rod * sdot / V3, 1e-14 * std::fabs(pdot[2]));
}

TEST(Circuit, ValvePortMappingFollowsSpoolSign) {
  // U > 0: pump feeds V1, V3 drains to tank. U < 0: V1 drains, pump feeds V3.
  const CircuitConstants k = ThreeVolumeCircuit::constants(kDefaults);
  const double p[3] = {3e6, 3e6, 3e6};
  double up[3], down[3];
  ThreeVolumeCircuit::pressure_rates(kDefaults, k, p, 5.0, 0.0, 0.0, up);
  ThreeVolumeCircuit::pressure_rates(kDefaults, k, p, -5.0, 0.0, 0.0, down);
  EXPECT_GT(up[0], 0.0);
  EXPECT_LT(up[2], 0.0);
  EXPECT_LT(down[0], 0.0);
  EXPECT_GT(down[2], 0.0);
}

TEST(Circuit, SpoolStepIsTheTrapezoidalRule) {
  // U1 = U0 + dt/2 (f(U0) + f(U1)) with f(U) = (U_ref − U)/τ.
  const double U0 = 1.0, Uref = 10.0, dt = 1e-3;
  const double U1 = ThreeVolumeCircuit::spool_step(kDefaults, U0, Uref, dt);
  const double rhs = U0 + 0.5 * dt * (ThreeVolumeCircuit::spool_rate(kDefaults, U0, Uref) +
                                      ThreeVolumeCircuit::spool_rate(kDefaults, U1, Uref));
  // U1 ≈ 1.09 V: measured 4.4e-16 (2 ulp) with and without FMA; bound ~9x.
  EXPECT_NEAR(U1, rhs, 4e-15);
}
