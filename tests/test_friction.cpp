// kernels/friction: properties of §2 for every static law.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/friction/friction.hpp"

using namespace hs;

namespace {
const FrictionParams kF{};

template <class Law>
double slope_at(double v) {
  return Law::force(kF, Dual<1>::variable(v, 0)).v[0];
}
}  // namespace

template <class Law>
class StaticFriction : public ::testing::Test {};
using Laws = ::testing::Types<BrownMcPhee, BengisuAkay>;
TYPED_TEST_SUITE(StaticFriction, Laws);

TYPED_TEST(StaticFriction, IsOddAndZeroAtRest) {
  EXPECT_EQ(TypeParam::force(kF, 0.0), 0.0);
  for (double v : {1e-6, 1e-3, 0.005, 0.02, 0.3}) EXPECT_DOUBLE_EQ(TypeParam::force(kF, -v), -TypeParam::force(kF, v));
}

TYPED_TEST(StaticFriction, IsContinuousEverywhere) {
  // Scan through v_s (the Bengisu–Akay branch switch) and 0.
  double prev = TypeParam::force(kF, -0.05);
  for (int i = 1; i <= 200000; ++i) {
    const double v = -0.05 + i * 5e-7;
    const double f = TypeParam::force(kF, v);
    // Largest slope is at v = 0 (≤ 2F_s/v_s + σ2 ≈ 3.3e5 N·s/m): steps of 5e-7 m/s move ≤ 0.17 N.
    EXPECT_LT(std::fabs(f - prev), 0.2) << "v = " << v;
    prev = f;
  }
}

TEST(BrownMcPhee, ValueAndSlopeMatchClosedForms) {
  const double vs = kF.stribeck_velocity;
  // At v_s: F_c tanh 4 + (F_s − F_c)·1/(1)² + σ2 v_s.
  EXPECT_NEAR(BrownMcPhee::force(kF, vs),
              kF.coulomb_force * std::tanh(4.0) + (kF.static_force - kF.coulomb_force) + kF.viscous_coefficient * vs,
              1e-9);
  // Slope at 0: 4F_c/v_s + (16/9)(F_s − F_c)/v_s + σ2 (§2.2).
  EXPECT_NEAR(slope_at<BrownMcPhee>(0.0),
              4 * kF.coulomb_force / vs + 16.0 / 9.0 * (kF.static_force - kF.coulomb_force) / vs + kF.viscous_coefficient,
              1e-8);
  // Stribeck bump: the stiction term peaks at v_s.
  const double d = 1e-7;
  const auto bump = [&](double v) { return BrownMcPhee::force(kF, v) - kF.coulomb_force * std::tanh(4 * v / vs) - kF.viscous_coefficient * v; };
  EXPECT_GT(bump(vs), bump(vs - d));
  EXPECT_GT(bump(vs), bump(vs + d));
}

TEST(BengisuAkay, ValueAndSlopeMatchClosedForms) {
  const double vs = kF.stribeck_velocity;
  EXPECT_NEAR(BengisuAkay::force(kF, vs), kF.static_force + kF.viscous_coefficient * vs, 1e-9);
  EXPECT_NEAR(slope_at<BengisuAkay>(0.0), 2 * kF.static_force / vs + kF.viscous_coefficient, 1e-8);
  // Sliding branch decays to Coulomb + viscous.
  const double v = 1.0;
  EXPECT_NEAR(BengisuAkay::force(kF, v), kF.coulomb_force + kF.viscous_coefficient * v, 1e-6);
}
