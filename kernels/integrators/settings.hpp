// Settings of the fixed-step trapezoidal integrators (one set per study).
#pragma once
#include "../core/hd.hpp"

namespace hs {

// Time of step k on the grid of step dt that starts at t0: t0 + k·dt, one
// rounding from the exact grid point (none when the product is exact), the
// same at every k. Integrators keep the step count and use this, never a
// running sum t += dt, whose rounding errors accumulate: after 1e4 steps of
// 1e-3 s the sum sits ~1e-12 s off the grid, and so would t_end, recorded
// times and settling times. k may be a half-integer (the step midpoint).
// t0 = 0 (every integrator here starts there) makes it k·dt exactly as
// computed, contracted into an FMA or not.
HS_HD inline double grid_time(double t0, double k, double dt) { return t0 + k * dt; }

enum class Tangent : int {
  exact = 0,             // Jacobian from dual numbers (one residual pass in Dual<nx>)
  finite_difference = 1, // seed 001 eqs (40)–(41): forward differences, ε = 1e-8·max(1e-2, |x|)
};

struct IntegratorSettings {
  double dt = 1e-3;        // [s]  seeds 001/002
  double duration = 10.0;  // [s]
  Tangent tangent = Tangent::exact;
  int max_newton_iterations = 20;
  // Newton increment tolerances, seed 001 §5 / seed 002 §5 (applied to the
  // max-norm of each group of the increment, ambiguity A10).
  double position_tolerance = 1e-7;        // [rad]
  double pressure_tolerance = 1e-2;        // [Pa]
  double friction_state_tolerance = 1e-7;  // [model units]
  // Dependent-coordinate (loop closure) solve: |Φ|∞ below this [m].
  double constraint_tolerance = 1e-11;
  int max_position_iterations = 25;
  // Admissible absolute pressures; an instance leaving the range stops with
  // Status::pressure_out_of_range (the lumped model has no cavitation).
  double pressure_min = 0.0;    // [Pa]
  double pressure_max = 100e6;  // [Pa]
  // Penalty factor α of the penalty formulation (seed 001 §2.3, seed 002
  // §2: 1e11 in both; N/m for length constraints), the same for every
  // constraint. Unused by the other formulations.
  double penalty_factor = 1e11;
};

}  // namespace hs
