// Seed 003's N-loop four-bar linkage with springs and dampers, in natural
// coordinates, for any N (docs/models/nloop-and-flexible.md §3; seed 003 §4.1,
// Fig. 1): ground pivots A_i = (i l, 0), i = 0..N; N + 1 rods A_iB_i and N
// couplers B_{i−1}B_i, all of length l and mass m; in loop i a spring (k, L0)
// with a dashpot c on the diagonal B_i–A_{i−1}; gravity (g_x, g_y).
// Coordinates q = (x_B0, y_B0, …, x_BN, y_BN, φ), n = 2N + 3, φ the angle of
// rod A_NB_N from the x axis; constraints: 2N + 1 rod lengths and the
// φ-equation, m = 2N + 2; one degree of freedom.
//
// The topology is built through an Assembly (host/constrained/system.hpp):
//   a.mass(element, indices)  a.force(element, indices)  a.constraint(element, indices)
// with indices the element's K global coordinates.
#pragma once
#include <cmath>

#include "natural_coordinate_elements.hpp"

namespace hs {

struct NLoopLinkageParams {
  int loops = 1;                       // N
  double rod_length = 1.0;             // l_f [m]
  double rod_mass = 1.0;               // m_f [kg]
  double spring_stiffness = 25.0;      // k_f [N/m]
  double spring_length = 1.4142135623730951;  // l_f0 [m] (√2: unstressed in the square)
  double damping = 0.0;                // c_f [N s/m] (Table 2: 1)
  double gravity_x = 0.0;              // [m/s²] (+9.81 in the singular case)
  double gravity_y = -9.81;            // [m/s²]
  double angle_guess = 2.0;            // φ where the equilibrium search starts [rad]
};

struct NLoopLinkage {
  using Params = NLoopLinkageParams;
  static constexpr const char* name = "nloop-linkage";  // the catalog's model (constrained_descriptor.hpp)
  HS_HD static int coordinates(const Params& p) { return 2 * p.loops + 3; }
  HS_HD static int constraint_count(const Params& p) { return 2 * p.loops + 2; }
  HS_HD static int x(int i) { return 2 * i; }  // x_Bi; y_Bi is x(i) + 1
  HS_HD static int phi(const Params& p) { return 2 * p.loops + 2; }
  // The size switch (docs/models/nloop-and-flexible.md §6 item 10): up to N = 3 loops
  // (n = 9) a point runs per thread (kernels/linearize/constrained_per_thread.hpp)
  // on every backend; MCS reduces every N to this one degree of freedom.
  static constexpr int per_thread_coordinates = 9;
  static constexpr int degrees_of_freedom = 1;

  template <class Assembly>
  HS_HD static void build(const Params& p, Assembly& a) {
    const int N = p.loops;
    const double l = p.rod_length, m = p.rod_mass;
    const natural::PointForce half_weight{0.5 * m * p.gravity_x, 0.5 * m * p.gravity_y};
    for (int i = 0; i <= N; ++i) {  // rod A_iB_i, pinned at A_i
      const int b[2] = {x(i), x(i) + 1};
      a.mass(natural::RodMassOneEnd{m}, b);
      a.force(half_weight, b);  // the other half acts on the ground pivot
      a.constraint(natural::DistanceToGround{i * l, 0.0, l}, b);
    }
    for (int i = 1; i <= N; ++i) {  // coupler B_{i−1}B_i
      const int bb[4] = {x(i - 1), x(i - 1) + 1, x(i), x(i) + 1};
      a.mass(natural::RodMassTwoEnds{m}, bb);
      a.force(half_weight, bb);
      a.force(half_weight, bb + 2);
      a.constraint(natural::Distance{l}, bb);
    }
    for (int i = 1; i <= N; ++i) {  // loop i's spring-damper B_i–A_{i−1}
      const int b[2] = {x(i), x(i) + 1};
      a.force(natural::AnchoredSpringDamper{(i - 1) * l, 0.0, p.spring_stiffness, p.spring_length, p.damping}, b);
    }
    const int tip[3] = {x(N), x(N) + 1, phi(p)};
    a.constraint(natural::AngleOfLineFromGround{N * l, 0.0}, tip);
  }

  // The parallelogram branch B_i = A_i + l (cos φ, sin φ) at φ = angle_guess.
  HS_HD static void initial_guess(const Params& p, double* q) {
    for (int i = 0; i <= p.loops; ++i) {
      q[x(i)] = i * p.rod_length + p.rod_length * math::cos(p.angle_guess);
      q[x(i) + 1] = p.rod_length * math::sin(p.angle_guess);
    }
    q[phi(p)] = p.angle_guess;
  }
  // The coordinate a map reports as "the equilibrium angle" (Table 1's d).
  HS_HD static int reported_coordinate(const Params& p) { return phi(p); }
};

}  // namespace hs
