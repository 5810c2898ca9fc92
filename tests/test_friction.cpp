// kernels/friction: properties of docs/models/friction.md §1 for every static law,
// and the static laws as one compiled policy (§10).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/friction/friction.hpp"
#include "kernels/friction/law_choice.hpp"

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

// ---- the static laws as one compiled policy (kernels/friction/law_choice.hpp) ----
// StaticFrictionChoice evaluates the law its law_code names: the same
// operations as that law compiled alone, so force and dual slope are the same
// bits (memcmp, no tolerance), on both sides of every branch point.
namespace {
using Choice = StaticFrictionChoice<BrownMcPhee, BengisuAkay, NoFriction>;
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class Law>
void expect_choice_is_law() {
  FrictionParams f = kF;
  f.law_code = IndexIn<Law, FrictionLawRegistry>::value;
  const double vs = f.stribeck_velocity;
  for (double v : {0.0, -0.0, 1e-9, -1e-6, 0.5 * vs, -vs, vs, std::nextafter(vs, 0.0), 1.0001 * vs, -3 * vs, 0.3, -7.0}) {
    EXPECT_TRUE(same_bits(Choice::force(f, v), Law::force(f, v))) << Law::name << " v = " << v;
    const Dual<1> x = Dual<1>::variable(v, 0);
    const Dual<1> a = Choice::force(f, x), b = Law::force(f, x);
    EXPECT_TRUE(same_bits(a.a, b.a) && same_bits(a.v[0], b.v[0])) << Law::name << " slope at v = " << v;
  }
}
}  // namespace

TEST(StaticFrictionChoice, EvaluatesTheLawItsCodeNamesBitForBit) {
  expect_choice_is_law<BrownMcPhee>();
  expect_choice_is_law<BengisuAkay>();
  expect_choice_is_law<NoFriction>();
  // The default code is the registry's first law, Brown–McPhee (a model's default law).
  EXPECT_EQ(FrictionParams{}.law_code, 0.0);
  EXPECT_EQ((IndexIn<BrownMcPhee, FrictionLawRegistry>::value), 0);
  // The laws differ where they should: the choice did not evaluate one law for every code.
  FrictionParams f = kF;
  f.law_code = IndexIn<BengisuAkay, FrictionLawRegistry>::value;
  const double bengisu = Choice::force(f, 0.02);
  f.law_code = IndexIn<BrownMcPhee, FrictionLawRegistry>::value;
  EXPECT_NE(Choice::force(f, 0.02), bengisu);
  f.law_code = IndexIn<NoFriction, FrictionLawRegistry>::value;
  EXPECT_EQ(Choice::force(f, 0.02), 0.0);
}

TEST(StaticFrictionChoice, GathersAListsStaticLawsAndKeepsTheLawsWithStates) {
  using Policies = CompiledFrictionPolicies<FrictionLawRegistry>::type;
  static_assert(std::is_same<Policies, TypeList<Choice, LuGre, ModifiedLuGre>>::value,
                "one policy for the static laws, one per law with states");
  static_assert(std::is_same<CompiledFrictionPolicies<TypeList<BrownMcPhee, NoFriction>>::type,
                             TypeList<StaticFrictionChoice<BrownMcPhee, NoFriction>>>::value,
                "a list of static laws only");
  static_assert(std::is_same<CompiledFrictionPolicies<TypeList<LuGre>>::type, TypeList<LuGre>>::value,
                "a list without static laws");
  EXPECT_EQ(friction_law_code_of(FrictionLawRegistry{}, "bengisu-akay"), 1);
  EXPECT_EQ(friction_law_code_of(FrictionLawRegistry{}, "none"), 4);
  EXPECT_EQ(friction_law_code_of(FrictionLawRegistry{}, "coulomb"), -1);
}

// ---- the laws with states as one compiled policy (DynamicFrictionChoice) ----
// The choice evaluates the named law's force and state rates with that law's
// own operations (same bits, value and dual slope), at states that exercise
// the modified law's film branches; the padded state of the law with fewer
// states has a zero rate and is never read.
namespace {
using DynamicChoice = DynamicFrictionChoice<LuGre, ModifiedLuGre>;
template <class Law>
void expect_dynamic_choice_is_law() {
  static_assert(DynamicChoice::n_states == 2, "modified LuGre's two states");
  FrictionParams f = kF;
  f.law_code = IndexIn<Law, FrictionLawRegistry>::value;
  const double vs = f.stribeck_velocity;
  for (double v : {0.0, -0.0, 1e-9, -1e-6, 0.5 * vs, -vs, 0.3 * f.film_velocity, 2 * f.film_velocity, -7.0})
    for (double q : {0.0, 4e-4, -2e-4})
      for (double h : {0.0, 0.1, -0.3}) {
        SCOPED_TRACE(std::string(Law::name) + " v = " + std::to_string(v) + " q = " + std::to_string(q) +
                     " h = " + std::to_string(h));
        // The choice's states: q, h; the law alone reads its first n_states.
        const double w[2] = {q, h}, wd[2] = {0.7 * v, -0.1};
        EXPECT_TRUE(same_bits(DynamicChoice::force(f, v, w, static_cast<const double*>(nullptr)),
                              Law::force(f, v, w, static_cast<const double*>(nullptr))));
        EXPECT_TRUE(same_bits(DynamicChoice::force(f, v, w, wd), Law::force(f, v, w, wd)));
        double rate_choice[2] = {NAN, NAN}, rate_law[2] = {NAN, NAN};
        DynamicChoice::state_rates(f, v, w, rate_choice);
        Law::state_rates(f, v, w, rate_law);
        for (int k = 0; k < Law::n_states; ++k) EXPECT_TRUE(same_bits(rate_choice[k], rate_law[k])) << "rate " << k;
        for (int k = Law::n_states; k < 2; ++k) EXPECT_TRUE(same_bits(rate_choice[k], 0.0)) << "padded rate " << k;
        // The dual slope along v of the force (the Newton tangent's column).
        const Dual<1> x = Dual<1>::variable(v, 0), wx[2] = {Dual<1>(q), Dual<1>(h)};
        const Dual<1> a = DynamicChoice::force(f, x, wx, static_cast<const Dual<1>*>(nullptr));
        const Dual<1> b = Law::force(f, x, wx, static_cast<const Dual<1>*>(nullptr));
        EXPECT_TRUE(same_bits(a.a, b.a) && same_bits(a.v[0], b.v[0])) << "slope";
      }
}
}  // namespace

TEST(DynamicFrictionChoice, EvaluatesTheLawItsCodeNamesBitForBit) {
  expect_dynamic_choice_is_law<LuGre>();
  expect_dynamic_choice_is_law<ModifiedLuGre>();
  // The two laws differ where the film matters: the choice did not evaluate one law for every code.
  FrictionParams f = kF;
  const double w[2] = {2e-4, 0.3};
  f.law_code = IndexIn<LuGre, FrictionLawRegistry>::value;
  const double lugre = DynamicChoice::force(f, 0.001, w, static_cast<const double*>(nullptr));
  f.law_code = IndexIn<ModifiedLuGre, FrictionLawRegistry>::value;
  EXPECT_NE(DynamicChoice::force(f, 0.001, w, static_cast<const double*>(nullptr)), lugre);
}

TEST(DynamicFrictionChoice, GathersTheLawsWithStatesWhereAPhysicsAsks) {
  static_assert(std::is_same<CompiledFrictionPolicies<FrictionLawRegistry, true>::type,
                             TypeList<Choice, DynamicChoice>>::value,
                "one policy for the static laws, one for the laws with states");
  static_assert(std::is_same<CompiledFrictionPolicies<TypeList<LuGre, BrownMcPhee>, true>::type,
                             TypeList<StaticFrictionChoice<BrownMcPhee>, DynamicFrictionChoice<LuGre>>>::value,
                "the statics first, whatever the list's order");
  static_assert(std::is_same<CompiledFrictionPolicies<TypeList<NoFriction>, true>::type,
                             TypeList<StaticFrictionChoice<NoFriction>>>::value,
                "a list without laws with states");
  SUCCEED();
}
