// kernels/friction: properties of docs/models/friction.md §1 for every static law.
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
  // Scan through v_s (the Bengisu–Akay branch switch) and 0 in steps of
  // 5e-7 m/s. A continuous law moves by at most its largest slope times the
  // step; both laws are steepest at v = 0 (Brown–McPhee 3.89e5, Bengisu–Akay
  // 3.32e5 N·s/m, closed forms below), and the largest moves measured are
  // exactly slope(0)·step (0.1944 N and 0.1662 N). A jump at a branch switch
  // would add its size. 1 % over that for the rounding of f − prev.
  const double step = 5e-7;
  const double lipschitz_bound = 1.01 * slope_at<TypeParam>(0.0) * step;
  double prev = TypeParam::force(kF, -0.05);
  for (int i = 1; i <= 200000; ++i) {
    const double v = -0.05 + i * step;
    const double f = TypeParam::force(kF, v);
    EXPECT_LT(std::fabs(f - prev), lipschitz_bound) << "v = " << v;
    prev = f;
  }
}

// The closed forms are evaluated here by other expressions than the laws'
// code; measured agreement: exact (0 error) with and without FMA. Bounds
// allow ~10 ulp: 1e-12 N on forces of 540–830 N (ulp 1.1e-13), 1e-9 N·s/m
// on slopes of 3.3e5–3.9e5 N·s/m (ulp 5.8e-11).
constexpr double kForceTolerance = 1e-12, kSlopeTolerance = 1e-9;

TEST(BrownMcPhee, ValueAndSlopeMatchClosedForms) {
  const double vs = kF.stribeck_velocity;
  // At v_s: F_c tanh 4 + (F_s − F_c)·1/(1)² + σ2 v_s.
  EXPECT_NEAR(BrownMcPhee::force(kF, vs),
              kF.coulomb_force * std::tanh(4.0) + (kF.static_force - kF.coulomb_force) + kF.viscous_coefficient * vs,
              kForceTolerance);
  // Slope at 0: 4F_c/v_s + (16/9)(F_s − F_c)/v_s + σ2 (docs/models/friction.md §3).
  EXPECT_NEAR(slope_at<BrownMcPhee>(0.0),
              4 * kF.coulomb_force / vs + 16.0 / 9.0 * (kF.static_force - kF.coulomb_force) / vs + kF.viscous_coefficient,
              kSlopeTolerance);
  // Stribeck bump: the stiction term peaks at v_s.
  const double d = 1e-7;
  const auto bump = [&](double v) { return BrownMcPhee::force(kF, v) - kF.coulomb_force * std::tanh(4 * v / vs) - kF.viscous_coefficient * v; };
  EXPECT_GT(bump(vs), bump(vs - d));
  EXPECT_GT(bump(vs), bump(vs + d));
}

TEST(BengisuAkay, ValueAndSlopeMatchClosedForms) {
  const double vs = kF.stribeck_velocity;
  EXPECT_NEAR(BengisuAkay::force(kF, vs), kF.static_force + kF.viscous_coefficient * vs, kForceTolerance);
  EXPECT_NEAR(slope_at<BengisuAkay>(0.0), 2 * kF.static_force / vs + kF.viscous_coefficient, kSlopeTolerance);
  // Sliding branch decays to Coulomb + viscous: at 1 m/s the Stribeck term is
  // down by e^(−ξ(v − v_s)) = e^(−199), far below rounding.
  const double v = 1.0;
  EXPECT_NEAR(BengisuAkay::force(kF, v), kF.coulomb_force + kF.viscous_coefficient * v, kForceTolerance);
}
