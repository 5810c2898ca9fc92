// A model: a mechanism, a fixed number na of actuators and an input policy
// (docs/models/integrators.md §11). This is what the integrators see. It adds
// nothing mechanism-specific: any Mechanism exposing the PlanarLoopChain
// interface (pose, motion, acceleration, constraints, actuator,
// dynamics_residual, energies) works unchanged; a mechanism with several
// actuators declares `static constexpr int na` and takes the actuator index
// in actuator(P, pose, motion, a) and actuator_jacobian(P, pose, act, ds_dz, a)
// (MechanismActuators below; without `na` it has one actuator).
//
// Every actuator is of the same type (e.g. HydraulicCylinder<ThreeVolumeCircuit,
// Friction>, kernels/actuators/hydraulic_cylinder.hpp) with its own parameters
// and constants; actuator a owns the states y_a = [p | w] (pressures, friction
// states), which the double step's Newton unknowns hold at the compile-time
// offset ni + a·n_states.
#pragma once
#include <type_traits>

#include "../actuators/hydraulic_cylinder.hpp"
#include "../friction/friction.hpp"
#include "../hydraulics/three_volume_circuit.hpp"
#include "input_policy.hpp"
#include "input_schedule.hpp"

namespace hs {

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

// Parameters of one instance: the mechanism's, each actuator's and the input
// policy's. The same struct whatever the friction law, so one study table
// serves every law. The defaults are the one-cylinder, three-volume,
// open-loop models of the catalog.
template <class MechanismParams, class ActuatorParams = CylinderParams<CircuitParams>, int NA = 1,
          class InputParams = InputSchedule>
struct ActuatedParams {
  MechanismParams mechanism;
  ActuatorParams actuator[NA];
  InputParams input;
};

// Per-instance constants derived once from the parameters and the reference
// configuration (the integrators' initial state, the linearization's
// equilibrium): each actuator's (circuit constants, s0).
template <class ActuatorConstants = CylinderConstants<CircuitConstants>, int NA = 1>
struct ActuatedConstants {
  ActuatorConstants actuator[NA];
};

// How many actuators a mechanism drives (`na`, default one), and its
// actuator functions with an index whatever it declares.
template <class Mech, class = void>
struct MechanismActuatorCount {
  static constexpr int value = 1;
  static constexpr bool indexed = false;
};
template <class Mech>
struct MechanismActuatorCount<Mech, std::void_t<decltype(Mech::na)>> {
  static constexpr int value = Mech::na;
  static constexpr bool indexed = true;
};

template <class Mech>
struct MechanismActuators {
  static constexpr int na = MechanismActuatorCount<Mech>::value;
  // MP: the mechanism's Params, or its lanes' (Mech::ParamsOn<Lanes<W>>).
  template <class MP, class Pose, class Motion>
  HS_HD static auto actuator(const MP& P, const Pose& pose, const Motion& motion, int a) {
    if constexpr (MechanismActuatorCount<Mech>::indexed) return Mech::actuator(P, pose, motion, a);
    else { (void)a; return Mech::actuator(P, pose, motion); }
  }
  template <class MP, class Pose, class Act, class T>
  HS_HD static void actuator_jacobian(const MP& P, const Pose& pose, const Act& act, T* ds_dz, int a) {
    if constexpr (MechanismActuatorCount<Mech>::indexed) Mech::actuator_jacobian(P, pose, act, ds_dz, a);
    else { (void)a; Mech::actuator_jacobian(P, pose, act, ds_dz); }
  }
};

template <class MechanismT, class ActuatorT, int NA = 1, class InputT = OpenLoopSchedule>
struct ActuatedModel {
  using Mechanism = MechanismT;
  using Actuator = ActuatorT;
  using Input = InputT;
  using Friction = typename Actuator::Friction;
  using Circuit = typename Actuator::Circuit;
  using Actuators = MechanismActuators<Mechanism>;
  static constexpr int na = NA;
  static_assert(Actuators::na == NA, "the mechanism gives as many actuator lengths as the model has actuators");
  static constexpr int nq = Mechanism::nq;
  static constexpr int nc = Mechanism::nc;
  static constexpr int npa = Actuator::np;        // pressures per actuator
  static constexpr int nwa = Actuator::nw;        // friction states per actuator
  static constexpr int nsa = Actuator::n_states;  // states per actuator
  static constexpr int np = na * npa;             // all pressures, actuator a at a·npa
  static constexpr int nw = na * nwa;             // all friction states, actuator a at a·nwa

  using Params = ActuatedParams<typename Mechanism::Params, typename Actuator::Params, NA, typename Input::Params>;
  using Constants = ActuatedConstants<typename Actuator::Constants, NA>;
  using Observation = hs::Observation<nq, na, npa>;

  // Admissibility of a state after a step, actuator by actuator (the first
  // actuator that fails): NaN, pressure range, stroke. p: all pressures; s:
  // the actuator lengths. Per lane on lanes (P, K on R = Lanes<W>).
  template <class P_, class K_, class R>
  HS_HD static StatusOn<R> check(const P_& P, const K_& K, const R* p, const R* s, double p_min, double p_max) {
    StatusOn<R> status = Actuator::check(P.actuator[na - 1], K.actuator[na - 1], p + (na - 1) * npa, s[na - 1], p_min,
                                         p_max);
    for (int a = na - 2; a >= 0; --a) {
      const StatusOn<R> st = Actuator::check(P.actuator[a], K.actuator[a], p + a * npa, s[a], p_min, p_max);
      status = choose(st != StatusOnT<R>::of(Status::ok), st, status);
    }
    return status;
  }
};

// A model's parameters and constants on the real R: its own for double
// (whatever its parts), and for W instances in lockstep (R = Lanes<W>,
// kernels/core/lanes.hpp) those of its mechanism, actuator and input policy
// on lanes, for the parts that have them (docs/models/lanes.md §4).
template <class Model, class R>
struct ModelOn {
  using Params = ActuatedParams<typename Model::Mechanism::template ParamsOn<R>,
                                typename Model::Actuator::template ParamsOn<R>, Model::na,
                                typename Model::Input::template ParamsOn<R>>;
  using Constants = ActuatedConstants<typename Model::Actuator::template ConstantsOn<R>, Model::na>;
};
template <class Model>
struct ModelOn<Model, double> {
  using Params = typename Model::Params;
  using Constants = typename Model::Constants;
};

// The one-cylinder, three-volume, open-loop model of seeds 000–002.
template <class MechanismT, class FrictionT>
using HydraulicallyActuated = ActuatedModel<MechanismT, HydraulicCylinder<ThreeVolumeCircuit, FrictionT>, 1, OpenLoopSchedule>;

}  // namespace hs
