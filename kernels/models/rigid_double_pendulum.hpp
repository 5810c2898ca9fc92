// The rigid planar double pendulum in natural coordinates: two uniform
// slender rods (mass m, length l each), the first pinned to the ground at the
// origin, the second to the first's free end, under gravity g along −y
// (docs/models/nloop-and-flexible.md §7). It is the rigid limit of seed 003's
// flexible double pendulum (§4.2: the flexible links' first frequencies
// approach this system's as E grows), assembled from the elements of the
// N-loop linkage (natural_coordinate_elements.hpp):
//   q = [x1, y1, x2, y2, θ1]   B1 = (x1, y1), B2 = (x2, y2), θ1 the angle of the
//                               first rod (reported: the map's "crank angle")
//   Φ = [ |B1|² − l²,  |B2 − B1|² − l²,  x1 sin θ1 − y1 cos θ1 ]   (m = 3, 2 DOF)
// Its small oscillations about the hanging equilibrium have a closed form
// (§7): ω² = (g/l) a with 7a² − 42a + 27 = 0.
#pragma once
#include "natural_coordinate_elements.hpp"

namespace hs {

struct RigidDoublePendulumParams {
  double rod_length = 4.0;     // l [m] (seed 003's flexible pendulum: l_p = 4 m)
  double rod_mass = 282.74;    // m [kg] (ρ π r² l of that pendulum's links: 1500 · π 0.15² · 4)
  double gravity = 9.81;       // g along −y [m/s²]
  double angle_guess = -1.3;   // θ1 where the equilibrium search starts [rad] (hanging: −π/2)
};

struct RigidDoublePendulum {
  using Params = RigidDoublePendulumParams;
  static constexpr const char* name = "rigid-double-pendulum";  // the catalog's model
  HS_HD static int coordinates(const Params&) { return 5; }
  HS_HD static int constraint_count(const Params&) { return 3; }

  template <class Assembly>
  HS_HD static void build(const Params& p, Assembly& a) {
    const double l = p.rod_length, m = p.rod_mass;
    const natural::PointForce half_weight{0.0, -0.5 * m * p.gravity};
    const int b1[2] = {0, 1}, b12[4] = {0, 1, 2, 3}, b2[2] = {2, 3}, angle[3] = {0, 1, 4};
    a.mass(natural::RodMassOneEnd{m}, b1);  // rod 1, pinned at the origin
    a.force(half_weight, b1);               // its other half acts on the ground pin
    a.constraint(natural::DistanceToGround{0.0, 0.0, l}, b1);
    a.mass(natural::RodMassTwoEnds{m}, b12);  // rod 2, B1–B2
    a.force(half_weight, b1);
    a.force(half_weight, b2);
    a.constraint(natural::Distance{l}, b12);
    a.constraint(natural::AngleOfLineFromGround{0.0, 0.0}, angle);
  }

  // Both rods along θ1 = angle_guess.
  HS_HD static void initial_guess(const Params& p, double* q) {
    const double c = math::cos(p.angle_guess), s = math::sin(p.angle_guess);
    q[0] = p.rod_length * c;
    q[1] = p.rod_length * s;
    q[2] = 2.0 * p.rod_length * c;
    q[3] = 2.0 * p.rod_length * s;
    q[4] = p.angle_guess;
  }
  HS_HD static int reported_coordinate(const Params&) { return 4; }
};

}  // namespace hs
