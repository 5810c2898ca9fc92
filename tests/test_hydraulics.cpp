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

// ---- the circuits as one compiled policy (kernels/hydraulics/circuit_choice.hpp) ----
// CircuitChoice runs the member its code names with the member's own
// operations: rates, slopes, force, statics, spool and stroke check in the
// same bits as the circuit compiled alone, on the member's slots (its last
// np); the unused slots have zero rates and hold the piston side's pressure.
#include <cstring>
#include "kernels/hydraulics/circuit_choice.hpp"
#include "kernels/hydraulics/servo_valve_circuit.hpp"
#include "kernels/hydraulics/two_volume_circuit.hpp"
namespace {
using Circuits = CircuitChoice<ThreeVolumeCircuit, TwoVolumeCircuit, ServoValveCircuit>;
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
template <int I>
void expect_choice_is_member() {
  using C = typename Circuits::template Member<I>;
  constexpr int off = Circuits::offset<I>;
  SCOPED_TRACE(testing::Message() << "member " << I);
  typename Circuits::Params cp;
  cp.circuit_code = I;
  const typename C::Params& mp = circuit_choice_detail::member<I>(cp.member);
  const double s0 = 0.3;
  const auto ck = Circuits::constants(cp, s0);
  const auto mk = C::constants(mp, s0);
  // Statics: the member's pressures on its slots, the unused ones the piston side's.
  double p_choice[Circuits::np], p_member[C::np];
  Circuits::static_pressures(cp, ck, 2.5e3, p_choice);
  C::static_pressures(mp, mk, 2.5e3, p_member);
  for (int j = 0; j < C::np; ++j) EXPECT_TRUE(same(p_choice[off + j], p_member[j])) << j;
  for (int j = 0; j < off; ++j) EXPECT_TRUE(same(p_choice[j], p_choice[Circuits::piston_side])) << j;
  EXPECT_TRUE(same(p_choice[Circuits::piston_side], p_member[C::piston_side]));
  // Rates and their slope along the piston-side pressure, at pressures off the
  // statics, both spool directions, the piston moving.
  double p[Circuits::np];
  for (int j = 0; j < Circuits::np; ++j) p[j] = 2.0e6 + 0.7e6 * j;
  for (double U : {-4.0, 0.0, 6.5})
    for (double sdot : {-0.05, 0.0, 0.03}) {
      double rc[Circuits::np], rm[C::np];
      Circuits::pressure_rates(cp, ck, p, U, 0.02, sdot, rc);
      C::pressure_rates(mp, mk, p + off, U, 0.02, sdot, rm);
      for (int j = 0; j < C::np; ++j) EXPECT_TRUE(same(rc[off + j], rm[j])) << "U " << U << " rate " << j;
      for (int j = 0; j < off; ++j) EXPECT_TRUE(same(rc[j], 0.0)) << "unused rate " << j;
      Dual<1> pd[Circuits::np], rcd[Circuits::np], rmd[C::np];
      for (int j = 0; j < Circuits::np; ++j) pd[j] = Dual<1>(p[j]);
      pd[Circuits::piston_side] = Dual<1>::variable(p[Circuits::piston_side], 0);
      Circuits::pressure_rates(cp, ck, pd, U, Dual<1>(0.02), Dual<1>(sdot), rcd);
      C::pressure_rates(mp, mk, pd + off, U, Dual<1>(0.02), Dual<1>(sdot), rmd);
      for (int j = 0; j < C::np; ++j) EXPECT_TRUE(same(rcd[off + j].v[0], rmd[j].v[0])) << "slope " << j;
    }
  EXPECT_TRUE(same(Circuits::piston_force(ck, p), C::piston_force(mk, p + off)));
  EXPECT_EQ(Circuits::spool_has_state(cp), C::Spool::has_state);
  EXPECT_TRUE(same(Circuits::spool_step(cp, 1.0, 3.0, 1e-3), C::spool_step(mp, 1.0, 3.0, 1e-3)));
  EXPECT_TRUE(same(Circuits::spool_rate(cp, 1.0, 3.0), C::spool_rate(mp, 1.0, 3.0)));
  for (double ds : {-10.0, 0.0, 0.1, 10.0})
    EXPECT_EQ(Circuits::stroke_admissible(cp, ck, ds), C::stroke_admissible(mp, mk, ds)) << ds;
}
}  // namespace

TEST(CircuitChoice, RunsTheMemberItsCodeNamesBitForBit) {
  static_assert(Circuits::np == 3 && Circuits::piston_side == 1, "the three-volume circuit's slots");
  static_assert(Circuits::offset<0> == 0 && Circuits::offset<1> == 1 && Circuits::offset<2> == 1, "last slots");
  expect_choice_is_member<0>();
  expect_choice_is_member<1>();
  expect_choice_is_member<2>();
  // The members differ: the choice did not run one circuit for every code.
  Circuits::Params cp;
  double p[3] = {3e6, 3e6, 2e6}, r0[3], r1[3];
  cp.circuit_code = 0;
  Circuits::pressure_rates(cp, Circuits::constants(cp, 0.3), p, 5.0, 0.0, 0.01, r0);
  cp.circuit_code = 1;
  Circuits::pressure_rates(cp, Circuits::constants(cp, 0.3), p, 5.0, 0.0, 0.01, r1);
  EXPECT_NE(r0[1], r1[1]);
}

// The servo valve's closed length (docs/models/hydraulics.md §16): a model
// file's cylinder gives its pin-to-pin length s, the chambers follow the
// stroke x = s − closed_length. The stroke reference is s0 − L, the rates at
// (s0, L) are the bits of those at (s0 − L, 0) (what the lift-tilt, L = 0,
// has always run), and the piston is admissible exactly for L < s0 + ds < L + S.
TEST(ServoValveCircuit, ClosedLengthShiftsTheStroke) {
  ServoValveCircuitParams shifted, plain;
  shifted.closed_length = 1.25;
  const double s0 = 1.5;  // x0 = 0.25 of S = 0.59
  const auto ks = ServoValveCircuit::constants(shifted, s0);
  const auto kp = ServoValveCircuit::constants(plain, s0 - shifted.closed_length);
  EXPECT_EQ(ks.stroke_ref, 0.25);
  EXPECT_TRUE(same(ServoValveCircuit::constants(plain, s0).stroke_ref, s0));  // L = 0: the length itself
  const double p[2] = {9.0e6, 4.0e6};
  for (double U : {-7.0, 0.0, 3.0})
    for (double ds : {-0.1, 0.0, 0.2}) {
      double rs[2], rp[2];
      ServoValveCircuit::pressure_rates(shifted, ks, p, U, ds, 0.02, rs);
      ServoValveCircuit::pressure_rates(plain, kp, p, U, ds, 0.02, rp);
      EXPECT_TRUE(same(rs[0], rp[0]) && same(rs[1], rp[1])) << U << " " << ds;
    }
  // The chamber a volume grows with the stroke: a longer closed length at the
  // same pins is a shorter stroke, a smaller volume, a faster pressure rise.
  ServoValveCircuitParams longer = shifted;
  longer.closed_length = 1.35;
  double r_short[2], r_long[2];
  ServoValveCircuit::pressure_rates(shifted, ks, p, 3.0, 0.0, 0.0, r_short);
  ServoValveCircuit::pressure_rates(longer, ServoValveCircuit::constants(longer, s0), p, 3.0, 0.0, 0.0, r_long);
  EXPECT_GT(r_long[0], r_short[0]);
  EXPECT_TRUE(ServoValveCircuit::stroke_admissible(shifted, ks, 0.0));
  EXPECT_TRUE(ServoValveCircuit::stroke_admissible(shifted, ks, 0.33));
  EXPECT_FALSE(ServoValveCircuit::stroke_admissible(shifted, ks, -0.25));  // x = 0: at the bottom
  EXPECT_FALSE(ServoValveCircuit::stroke_admissible(shifted, ks, 0.35));   // x = 0.60 > S
}
