// The hydraulically actuated planar four-bar: PlanarLoopChain<3> (crank,
// coupler, rocker in relative joint angles, cut joint at the rocker's ground
// pivot) driven by the three-volume circuit. Two parameter sets:
//   seed002_four_bar(): the default model (seed 002 §4, also seed 000's mechanism)
//   seed001_four_bar(): the double-step/penalty four-bar of seed 001 §4.1
#pragma once
#include "hydraulically_actuated.hpp"
#include "planar_loop_chain.hpp"

namespace hs {

using PlanarFourBarMechanism = PlanarLoopChain<3>;
template <class Friction>
using HydraulicFourBar = HydraulicallyActuated<PlanarFourBarMechanism, Friction>;
// The parameter struct does not depend on the friction law.
using FourBarParams = HydraulicFourBar<NoFriction>::Params;

constexpr double kDeg = kPi / 180.0;

// A slender rod along the body x axis from its proximal joint: CoM at the
// middle, I = mL²/12 about the CoM.
inline PlanarLoopChainParams<3>::Body slender_rod(double length, double mass) {
  return {mass, mass * length * length / 12.0, 0.5 * length, 0.0, length, 0.0};
}

// Seed 002 four-bar (docs/models/four-bar.md §9.1–9.2, all [S] seed 002 unless noted):
// crank 2 m/16 kg, coupler 8 m/64 kg, rocker 5 m/40 kg, pivots O = (0,0),
// E = (10,0); cylinder from G = (−1,0) to the crank's centre of mass;
// z(0) = (60°, −37.90°, −93.58°); gravity −y [assumed as in seed 001, A14].
inline FourBarParams seed002_four_bar() {
  FourBarParams P;
  auto& m = P.mechanism;
  m.body[0] = slender_rod(2.0, 16.0);
  m.body[1] = slender_rod(8.0, 64.0);
  m.body[2] = slender_rod(5.0, 40.0);
  m.base_x = 0.0; m.base_y = 0.0;
  m.cut_x = 10.0; m.cut_y = 0.0;
  m.actuator_ground_x = -1.0; m.actuator_ground_y = 0.0;
  m.actuator_body = 0;
  m.actuator_local_x = 1.0; m.actuator_local_y = 0.0;
  m.initial_angle[0] = 60.0 * kDeg;
  m.initial_angle[1] = -37.90 * kDeg;
  m.initial_angle[2] = -93.58 * kDeg;
  P.input = seed002_work_cycle();
  return P;
}

// Seed 001 four-bar (docs/models/four-bar.md §9.3, [S]/[D]):
// boom 9 m/225 kg with the coupler joint C at 3 m, link √2 m/35 kg, link
// 2 m/50 kg closing at E = (0,−1); cylinder from G = (0,−2) to the CoM of
// body 3; z(0) = (0°, −135°, −45°). Same circuit as the default. Its static
// load (F_s0 = 11 029 N) needs p2 ≈ 5.0 MPa < pP = 7.6 MPa, so the default
// supply pressure holds it.
inline FourBarParams seed001_four_bar() {
  FourBarParams P;
  auto& m = P.mechanism;
  m.body[0] = slender_rod(9.0, 225.0);
  m.body[0].distal_x = 3.0;  // C = L1/3 along the boom
  m.body[1] = slender_rod(::sqrt(2.0), 35.0);
  m.body[2] = slender_rod(2.0, 50.0);
  m.base_x = 0.0; m.base_y = 0.0;
  m.cut_x = 0.0; m.cut_y = -1.0;
  m.actuator_ground_x = 0.0; m.actuator_ground_y = -2.0;
  m.actuator_body = 2;
  m.actuator_local_x = 1.0; m.actuator_local_y = 0.0;
  m.initial_angle[0] = 0.0;
  m.initial_angle[1] = -135.0 * kDeg;
  m.initial_angle[2] = -45.0 * kDeg;
  P.input = seed002_work_cycle();  // seed 001 eq (46) is the same schedule
  return P;
}

}  // namespace hs
