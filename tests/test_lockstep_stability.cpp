// A stability map's open-loop points in lockstep lanes
// (kernels/linearize/lockstep_stability.hpp, docs/models/lanes.md §12):
// every point's record (status, eigenvalues, figures, crank angle,
// pressures) must be its scalar stability_point's bit for bit, for groups of
// 1 … W points (ragged: the spare lanes repeat the last point), with points
// that fail at each stage among points that succeed: a loop that cannot
// close (constraint_failure in the assembly), a rod-side pressure no oil
// holds (invalid_parameters in the statics). The planar four-bar at W = 4
// and 8, the 3D four-bar and the quick-return at 8, each through the static
// friction laws' compiled choice, every law. The
// catalog's other systems (the model files) are checked through the host
// path in test_stability_cli.cpp. The friction law is one per map (the
// study's: the compiled choice reads it once for all lanes), so each law is
// a batch of its own.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/friction/law_choice.hpp"
#include "kernels/linearize/lockstep_stability.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/four_bar_descriptor.hpp"
#include "kernels/models/lift_tilt_descriptor.hpp"
#include "kernels/models/quick_return_descriptor.hpp"
#include "lockstep_checks.hpp"
#include "stability_checks.hpp"

using namespace hs;
using hs::lockstep_checks::vary_cylinder;
using hs::lockstep_checks::vary_mechanism;

namespace {

using StaticLaws = FirstOf<CompiledFrictionPolicies<FrictionLawRegistry>::type>::type;
static_assert(StaticLaws::n_states == 0, "the first compiled policy is the static choice");

template <class Record>
void expect_same_record(const Record& lanes, const Record& scalar, int i) {
  EXPECT_EQ(stability_checks::first_difference(lanes, scalar), "") << "point " << i << ": lanes status " << lanes.status
                                                                   << ", scalar status " << scalar.status;
}

// The crank angle the planar chain holds (the quick-return's stays).
void vary_held_angle(PlanarLoopChainParams<3>& m, std::mt19937_64& rng) {
  m.initial_angle[0] *= std::uniform_real_distribution<double>(0.8, 1.25)(rng);
}
void vary_held_angle(QuickReturnParams&, std::mt19937_64&) {}

// The nominal point with friction law `law` (one per map: the study's, as
// the compiled choice reads it for all lanes), its friction, circuit and
// mechanism varied (tests/lockstep_checks.hpp: one in five with a link that
// cannot close its loop); one in seven (i % 7 == 5) holding a rod-side pressure of
// 50 GPa, which no oil holds.
template <class Params>
std::vector<Params> varied_points(Params nominal, int n, unsigned seed, const char* law) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.8, 1.25);
  std::vector<Params> out(n, nominal);
  for (int i = 0; i < n; ++i) {
    Params& P = out[i];
    vary_mechanism(P.mechanism, rng, i);
    vary_held_angle(P.mechanism, rng);
    vary_cylinder(P.actuator[0], rng);
    auto& c = P.actuator[0].circuit;
    c.rod_side_initial_pressure *= u(rng);
    if (i % 7 == 5) c.rod_side_initial_pressure = 5e10;
    P.actuator[0].friction.law_code = friction_law_code_of(FrictionLawRegistry{}, law);
  }
  return out;
}

// Every group size 1 … W at every offset of 3W + 1 points: each record the
// scalar one. Returns how many points of each outcome the scalar path gave,
// so that a caller can require every stage's failure among them.
struct Outcomes {
  int ok = 0, constraint_failure = 0, invalid_parameters = 0;
};
template <class System, int W>
Outcomes expect_lanes_match_scalar(const std::vector<typename System::Params>& points) {
  using Record = StabilityOf<System>;
  const StabilitySettings S;
  const int n = static_cast<int>(points.size());
  std::vector<Record> scalar(points.size());
  Outcomes seen;
  for (int i = 0; i < n; ++i) {
    scalar[i] = stability_point<System>(points[i], S);
    const Status st = static_cast<Status>(scalar[i].status);
    seen.ok += st == Status::ok;
    seen.constraint_failure += st == Status::constraint_failure;
    seen.invalid_parameters += st == Status::invalid_parameters;
  }
  for (int count = 1; count <= W; ++count)
    for (int first = 0; first + count <= n; first += count) {
      SCOPED_TRACE(testing::Message() << "group of " << count << " from " << first << ", W = " << W);
      Record lanes[W];
      stability_points_on_lanes<System, W>(points.data() + first, count, S, lanes);
      for (int i = 0; i < count; ++i) expect_same_record(lanes[i], scalar[first + i], first + i);
    }
  return seen;
}

template <class System, int W, class Params>
void check_model(Params nominal, unsigned seed) {
  static_assert(StabilityOnLanes<System>::value, "the system's points run on lanes");
  for (const char* law : {"brown-mcphee", "bengisu-akay", "none"}) {
    SCOPED_TRACE(law);
    const Outcomes seen = expect_lanes_match_scalar<System, W>(varied_points(nominal, 3 * W + 1, seed, law));
    // The batch holds every outcome: points that succeed, and failures at the
    // assembly and at the statics.
    EXPECT_GT(seen.ok, W);
    EXPECT_GE(seen.constraint_failure, 1);
    EXPECT_GE(seen.invalid_parameters, 1);
  }
}

using PlanarSystem = PlanarFourBarPhysics::Linearized<StaticLaws>;
using SpatialSystem = SpatialFourBarPhysics::Linearized<StaticLaws>;
using QuickReturnSystem = QuickReturnPhysics::Linearized<StaticLaws>;

TEST(LockstepStability, PlanarFourBarPointsAreTheScalarOnesOnFourLanes) {
  check_model<PlanarSystem, 4>(seed002_four_bar(), 11);
}
TEST(LockstepStability, PlanarFourBarPointsAreTheScalarOnesOnEightLanes) {
  check_model<PlanarSystem, 8>(seed002_four_bar(), 12);
}
TEST(LockstepStability, SpatialFourBarPointsAreTheScalarOnes) { check_model<SpatialSystem, 8>(seed002_four_bar(), 13); }
TEST(LockstepStability, QuickReturnPointsAreTheScalarOnes) {
  check_model<QuickReturnSystem, 8>(seed001_quick_return(), 14);
}

// The manipulator's sampled closed loop computes its own point
// (sampled_loop.hpp): not on lanes; the open-loop systems are.
static_assert(!StabilityOnLanes<SampledClosedLoop<LiftTiltModel<BrownMcPhee>>>::value, "a closed loop's own point");

}  // namespace
