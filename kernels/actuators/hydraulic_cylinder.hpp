// A double-acting hydraulic cylinder as a component of a model
// (docs/models/integrators.md §11.2): cylinder geometry and its hydraulic
// circuit (kernels/hydraulics/) with a seal-friction law (kernels/friction/).
// It owns its states, the circuit pressures followed by the friction states,
//   y = [p_1 .. p_np | w_1 .. w_nw],   n_states = np + nw,
// and gives, from the actuator length s (elongation s − s0) and rate ṡ,
//   force          F = A2 p2 − A3 p3 − F_μ(ṡ, w)      (A1, seed 002 eq 20)
//   state rates    ṗ = h(p, s − s0, ṡ, U),  ẇ = u(w, ṡ)
//   static state   pressures holding a force F0 with the valve closed (§9)
//   admissibility  pressures in range, piston inside the cylinder (Status)
//   power terms    cylinder power F_p ṡ and friction power −F_μ ṡ (A18)
// The spool U is not one of its states: it is integrated in closed form
// outside Newton (A9, spool_step).
#pragma once
#include <type_traits>

#include "../core/dual.hpp"
#include "../friction/friction.hpp"
#include "../hydraulics/three_volume_circuit.hpp"
#include "../hydraulics/two_volume_circuit.hpp"

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

// The status of one instance (R = double) or of each lane (R = Lanes<W>: the
// codes above as the lanes' reals, kernels/core/lanes.hpp).
template <class R>
struct StatusOnT {
  using type = Status;
  HS_HD static Status of(Status s) { return s; }
  HS_HD static Status lane(Status s, int) { return s; }
};
#if !defined(__CUDACC__) && !defined(__HIPCC__)
template <int W>
struct StatusOnT<Lanes<W>> {
  using type = Lanes<W>;
  static Lanes<W> of(Status s) { return Lanes<W>(static_cast<double>(static_cast<int>(s))); }
  static Status lane(const Lanes<W>& s, int i) { return static_cast<Status>(static_cast<int>(s[i])); }
};
#endif
template <class R>
using StatusOn = typename StatusOnT<R>::type;
// status = code where c holds (the first failure of a lane is kept by its caller).
template <class Mask, class St>
HS_HD HS_FORCEINLINE void set_status_where(const Mask& c, St& status, Status code) {
  using R = typename std::conditional<std::is_same<St, Status>::value, double, St>::type;
  status = choose(c, StatusOnT<R>::of(code), status);
}

// Parameters of one cylinder: the same struct whatever the friction law, so
// one study table serves every law.
// On lanes (kernels/core/lanes.hpp) both are on the circuit's real type.
template <class CircuitParamsT>
struct CylinderParams {
  using Real = typename CircuitParamsT::Real;
  CircuitParamsT circuit;
  FrictionParamsT<Real> friction;
};

// Per-instance constants of one cylinder, derived once from its parameters
// and the reference configuration.
template <class CircuitConstantsT>
struct CylinderConstants {
  using Real = typename CircuitConstantsT::Real;
  CircuitConstantsT circuit;
  Real s0;  // actuator length where the chamber lengths are l2_0, l − l2_0 [m]
};

// Whether a circuit decides its spool at run time (a CircuitChoice:
// `run_time_spool`), or has one Spool type.
template <class C, class = void>
struct RunTimeSpool : std::false_type {};
template <class C>
struct RunTimeSpool<C, std::void_t<decltype(C::run_time_spool)>> : std::true_type {};

template <class CircuitT, class FrictionT>
struct HydraulicCylinder {
  using Circuit = CircuitT;
  using Friction = FrictionT;
  using Params = CylinderParams<typename Circuit::Params>;
  using Constants = CylinderConstants<typename Circuit::Constants>;
  // The same for R = Lanes<W>: W cylinders in lockstep (kernels/core/lanes.hpp).
  template <class R>
  using ParamsOn = CylinderParams<typename Circuit::template ParamsOn<R>>;
  template <class R>
  using ConstantsOn = CylinderConstants<typename Circuit::template ConstantsOn<R>>;
  static constexpr int np = Circuit::np;         // pressures
  static constexpr int nw = Friction::n_states;  // friction states
  static constexpr int n_states = np + nw;

  template <class R>
  HS_HD HS_FORCEINLINE static ConstantsOn<R> constants(const ParamsOn<R>& P, const R& s0) {
    ConstantsOn<R> K;
    // Every circuit gets the reference length; one whose chambers follow the
    // absolute stroke keeps it (servo_valve_circuit.hpp).
    K.circuit = Circuit::constants(P.circuit, s0);
    K.s0 = s0;
    return K;
  }

  // Pressure force on the piston in the extension direction [N].
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T piston_force(const ConstantsOn<R>& K, const T* p) { return Circuit::piston_force(K.circuit, p); }
  // Seal friction F_μ(ṡ) opposing the motion [N].
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T friction_force(const ParamsOn<R>& P, const T& sdot, const T* w, const T* wd) {
    return Friction::force(P.friction, sdot, w, wd);
  }

  // ṗ and ẇ at pressures p, friction states w, s − s0 = ds, ṡ, spool U.
  template <class R, class T, class TU>
  HS_HD HS_FORCEINLINE static void state_rates(const ParamsOn<R>& P, const ConstantsOn<R>& K, const T* p, const T* w,
                                               const TU& U, const T& ds, const T& sdot, T* pdot, T* wdot) {
    Circuit::pressure_rates(P.circuit, K.circuit, p, U, ds, sdot, pdot);
    Friction::state_rates(P.friction, sdot, w, wdot);
  }

  // Spool opening after a step of dt with U_ref held (A9).
  template <class R>
  HS_HD HS_FORCEINLINE static R spool_step(const ParamsOn<R>& P, const R& U, const R& U_ref, double dt) {
    return Circuit::spool_step(P.circuit, U, U_ref, dt);
  }

  // The pressure rates at the start of a step over which the spool opening
  // is U (docs/models/integrators.md §3.7): a spool with a state is
  // continuous, so the rates stored at the end of the previous step hold;
  // an ideal spool jumps to U at t_k (a zero-order-held input), so the
  // trapezoid's start rate is the one at t_k⁺, with U, not the stored one
  // taken with the previous opening U_prev (which would smear the hold by
  // half a step and make each jump a first-order error).
  // On lanes, the lanes whose opening jumped take the new rates.
  // A choice of circuits (circuit_choice.hpp) answers at run time whether
  // the running member's spool has a state.
  template <class R>
  HS_HD HS_FORCEINLINE static void step_start_rates(const ParamsOn<R>& P, const ConstantsOn<R>& K, const R* p,
                                                    const R& U_prev, const R& U, const R& s, const R& sdot, R* pdot) {
    if constexpr (RunTimeSpool<Circuit>::value) {
      if (!Circuit::spool_has_state(P.circuit)) jump_start_rates(P, K, p, U_prev, U, s, sdot, pdot);
    } else if constexpr (!Circuit::Spool::has_state) {
      jump_start_rates(P, K, p, U_prev, U, s, sdot, pdot);
    }
  }

  // Which of its states a cylinder's circuit uses (docs/models/linearization.md
  // §3.4): a choice of circuits leaves the first `unused_pressures` of its np
  // slots unused (zero rates, nothing reads them) when the running member
  // has fewer, and an ideal spool has no state (U = U_ref). A linearization
  // leaves those states out: each would add an eigenvalue that is no mode of
  // the machine (a zero for an unused slot, −1/τ with τ = 0 for the spool).
  template <class R>
  HS_HD HS_FORCEINLINE static int unused_pressures(const ParamsOn<R>& P) {
    if constexpr (RunTimeSpool<Circuit>::value)
      return Circuit::unused_pressures(P.circuit);
    else
      return 0;
  }
  template <class R>
  HS_HD HS_FORCEINLINE static bool spool_has_state(const ParamsOn<R>& P) {
    if constexpr (RunTimeSpool<Circuit>::value)
      return Circuit::spool_has_state(P.circuit);
    else
      return Circuit::Spool::has_state;
  }

  // Static state holding the force F0 at rest, valve closed (docs/models/hydraulics.md §9):
  // the circuit's static pressures, friction states zero.
  template <class R>
  HS_HD HS_FORCEINLINE static void static_state(const ParamsOn<R>& P, const ConstantsOn<R>& K, const R& F0, R* p, R* w) {
    Circuit::static_pressures(P.circuit, K.circuit, F0, p);
    for (int k = 0; k < nw; ++k) w[k] = R(0.0);
  }
  // The static piston-side pressure inside (p_min, p_max) (initial-state check).
  template <class R>
  HS_HD HS_FORCEINLINE static auto static_state_admissible(const R* p, double p_min, double p_max) {
    return p[Circuit::piston_side] > p_min && p[Circuit::piston_side] < p_max;
  }

  // Admissibility after a step: NaN, pressure range, stroke, the first that
  // fails in that order, pressure by pressure (per lane on lanes: the checks
  // are applied from the last to the first, each overriding the later ones).
  template <class R>
  HS_HD HS_FORCEINLINE static StatusOn<R> check(const ParamsOn<R>& P, const ConstantsOn<R>& K, const R* p, const R& s,
                                                double p_min, double p_max) {
    using St = StatusOnT<R>;
    StatusOn<R> status = choose(Circuit::stroke_admissible(P.circuit, K.circuit, s - K.s0), St::of(Status::ok),
                                St::of(Status::stroke_out_of_range));
    for (int k = np - 1; k >= 0; --k) {
      status = choose(p[k] < p_min || p[k] > p_max, St::of(Status::pressure_out_of_range), status);
      status = choose(!(p[k] == p[k]) || !(math::abs(p[k]) < 1e300), St::of(Status::diverged), status);
    }
    return status;
  }

  // The start rates of an ideal spool's step: fresh where U jumped.
  template <class R>
  HS_HD HS_FORCEINLINE static void jump_start_rates(const ParamsOn<R>& P, const ConstantsOn<R>& K, const R* p,
                                                    const R& U_prev, const R& U, const R& s, const R& sdot, R* pdot) {
    const auto jumped = U != U_prev;
    if (!any_lane(jumped)) return;
    if constexpr (std::is_same<R, double>::value) {
      Circuit::pressure_rates(P.circuit, K.circuit, p, U, s - K.s0, sdot, pdot);  // one instance: in place
    } else {
      R fresh[np];
      Circuit::pressure_rates(P.circuit, K.circuit, p, U, s - K.s0, sdot, fresh);
      for (int k = 0; k < np; ++k) pdot[k] = choose(jumped, fresh[k], pdot[k]);
    }
  }

  // Power of the pressures on the mechanism and of the seal friction (A18).
  HS_HD HS_FORCEINLINE static double cylinder_power(double piston_force, double sdot) { return piston_force * sdot; }
  HS_HD HS_FORCEINLINE static double friction_power(double friction_force, double sdot) { return -friction_force * sdot; }
};

}  // namespace hs
