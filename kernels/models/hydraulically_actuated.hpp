// A mechanism driven by one double-acting cylinder of the three-volume
// circuit, with a pluggable seal-friction law: the "model" the integrators
// see. It adds nothing mechanism-specific: any Mechanism exposing the
// PlanarLoopChain interface (pose, motion, acceleration, constraints,
// actuator, dynamics_residual, energies) works unchanged.
#pragma once
#include "../friction/friction.hpp"
#include "../hydraulics/three_volume_circuit.hpp"
#include "input_schedule.hpp"

namespace hs {

// Why an instance stopped. Every instance can fail alone (docs/models/README.md §5.3).
enum class Status : int {
  ok = 0,
  diverged = 1,              // NaN or Inf in the state
  newton_failure = 2,        // trapezoidal Newton did not converge
  pressure_out_of_range = 3, // a pressure left [pressure_min, pressure_max]
  constraint_failure = 4,    // loop closure could not be solved (singular position)
  stroke_out_of_range = 5,   // piston reached a cylinder end (l2 ∉ (0, l))
  invalid_parameters = 6,    // assembly or static initial state impossible
  not_run = 7,               // skipped: the batch was cancelled before it started
};

inline const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::diverged: return "diverged";
    case Status::newton_failure: return "newton_failure";
    case Status::pressure_out_of_range: return "pressure_out_of_range";
    case Status::constraint_failure: return "constraint_failure";
    case Status::stroke_out_of_range: return "stroke_out_of_range";
    case Status::invalid_parameters: return "invalid_parameters";
    case Status::not_run: return "not_run";
  }
  return "unknown";
}

// Parameters of one instance: the same struct whatever the friction law,
// so one study table serves every law.
template <class MechanismParams>
struct ActuatedParams {
  MechanismParams mechanism;
  CircuitParams circuit;
  FrictionParams friction;
  InputSchedule input;
};

// Per-instance constants derived once from the parameters and the
// reference configuration (the integrators' initial state, the
// linearization's equilibrium).
struct ActuatedConstants {
  CircuitConstants circuit;
  double s0;  // actuator length where the chamber lengths are l2_0, l − l2_0 [m]
};

template <class MechanismT, class FrictionT>
struct HydraulicallyActuated {
  using Mechanism = MechanismT;
  using Friction = FrictionT;
  using Circuit = ThreeVolumeCircuit;
  static constexpr int nq = Mechanism::nq;
  static constexpr int nc = Mechanism::nc;
  static constexpr int np = Circuit::np;
  static constexpr int nw = Friction::n_states;

  using Params = ActuatedParams<typename Mechanism::Params>;
  using Constants = ActuatedConstants;  // s0: actuator length in the initial configuration

  // Admissibility of a state after a step: NaN, pressure range, stroke.
  HS_HD static Status check(const Params& P, const Constants& K, const double* p, double s, double p_min,
                            double p_max) {
    for (int k = 0; k < np; ++k) {
      if (!(p[k] == p[k]) || !(fabs(p[k]) < 1e300)) return Status::diverged;
      if (p[k] < p_min || p[k] > p_max) return Status::pressure_out_of_range;
    }
    const double l2 = Circuit::piston_chamber_length(P.circuit, s - K.s0);
    if (!(l2 > 0.0 && l2 < P.circuit.cylinder_length)) return Status::stroke_out_of_range;
    return Status::ok;
  }
};

}  // namespace hs
