// Seed 004's manipulator under its virtual decomposition controller on the
// lockstep lanes (docs/models/lanes.md §11): W instances of the Lift + Tilt
// model in the lanes of Lanes<W> through the same double step and the same
// controller code as the scalar path. Every instance's summary, controller
// report and recorded samples (with the controller's probe) are its scalar
// run's bit for bit (tests/lockstep_checks.hpp), for batches of 1 … 3W+1
// instances, with every real of the plant and of the controller varied per
// instance, and lanes that
//   - saturate their valves (a voltage limit of 2 V: the limit and the
//     first saturation time are each lane's),
//   - lose the path out of reach (the crane's base 1.5 m further from the
//     waypoints: from ~1.5 s the inverse kinematics fails in that lane alone,
//     which closes its valves and keeps its memory while the others track),
//   - stop mid-run (a lift cylinder too short for the path: stroke_out_of_range
//     at ~1 s),
//   - never start (a rod-side pressure no bore side can balance).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/catalog/catalog.hpp"
#include "kernels/integrators/lockstep.hpp"
#include "kernels/models/lift_tilt_descriptor.hpp"
#include "lockstep_checks.hpp"

using namespace hs;

namespace {

// The policy the catalog compiles for the manipulator's laws (one static choice).
using Laws = FirstOf<FrictionPoliciesOf<LiftTiltPhysics>>::type;
using One = DoubleStepTrapezoidal<LiftTiltModel<Laws>>;
using Params = One::Params;

std::vector<Params> varied_instances(int n, const char* law) {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> u(0.9, 1.1);
  Params nominal = seed004_lift_tilt();
  const int code = friction_law_code_of(FrictionLawRegistry{}, law);
  EXPECT_GE(code, 0) << law;
  for (auto& a : nominal.actuator) a.friction.law_code = code;
  std::vector<Params> out(n, nominal);
  for (int i = 0; i < n; ++i) {
    Params& P = out[i];
    P.mechanism.payload_mass *= u(rng);
    P.mechanism.segment[1].link.mass *= u(rng);
    for (auto& a : P.actuator) {
      a.circuit.oil_bulk_modulus *= u(rng);
      a.circuit.supply_pressure *= u(rng);
      const double valve = u(rng);
      a.circuit.valve_coefficient_pa *= valve;
      a.circuit.valve_coefficient_at *= valve;
      a.circuit.valve_coefficient_pb *= valve;
      a.circuit.valve_coefficient_bt *= valve;
      a.friction.coulomb_force *= u(rng);
      a.friction.static_force = a.friction.coulomb_force;
      a.friction.viscous_coefficient *= u(rng);
    }
    VdcParams& c = P.input;
    c.joint_gain *= u(rng);
    c.velocity_gain *= u(rng);
    c.model_payload_mass *= u(rng);
    for (int j = 0; j < 2; ++j) {
      c.force_feedback[j] *= u(rng);
      c.velocity_feedback[j] *= u(rng);
      c.model_bulk_modulus[j] *= u(rng);
      c.model_valve_coefficient[j] *= u(rng);
    }
    switch (i % 5) {
      case 1: P.actuator[0].circuit.stroke = 0.40; break;                 // stops mid-run (reaches 0.44 m at 2 s)
      case 2: c.voltage_limit = 2.0; break;                               // saturates
      case 3: P.actuator[1].circuit.rod_side_initial_pressure = 5e8; break;  // never starts
      case 4: P.mechanism.base_x -= 1.5; break;                           // the path leaves its reach
      default: break;
    }
  }
  return out;
}

template <int W>
void manipulator_lockstep_matches_scalar(const char* law, double duration) {
  IntegratorSettings S;
  S.duration = duration;
  RunOptions opt;
  opt.stride = 7;  // every 7th step: the controller's probe at its last sample
  const auto all = varied_instances(3 * W + 1, law);
  const auto match = lockstep_checks::expect_lanes_match_scalar<One, W>(all, S, opt, law);
  int saturated = 0, out_of_reach = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& r = match.scalar[i];
    if (r.status == Status::ok && r.input.saturation_time > 0.0) ++saturated;
    // The lanes whose path leaves their reach: the samples at which the
    // inverse kinematics fails (their summaries are compared above).
    const Params& P = all[i];
    const V2<double> X0 = LiftTilt::tcp(P.mechanism, P.mechanism.initial_angle);
    int missed = 0;
    for (long k = 0; k * P.input.sample_period < duration; ++k) {
      const PathPoint X = path_at(P.input.path, X0.x, X0.y, k * P.input.sample_period);
      double q[2];
      if (!LiftTilt::inverse_kinematics(P.mechanism, X.x, X.y, q)) ++missed;
    }
    if (r.status == Status::ok && missed > 0) ++out_of_reach;
  }
  std::printf("    %d lanes saturate, %d lose the path out of reach\n", saturated, out_of_reach);
  EXPECT_GT(saturated, 0);
  EXPECT_GT(out_of_reach, 0);
}

}  // namespace

TEST(LockstepManipulator, BrownMcPheeW8) { manipulator_lockstep_matches_scalar<8>(BrownMcPhee::name, 3.0); }
TEST(LockstepManipulator, NoFrictionW4) { manipulator_lockstep_matches_scalar<4>(NoFriction::name, 3.0); }
