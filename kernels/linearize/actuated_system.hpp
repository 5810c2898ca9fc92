// A constrained mechanism driven by double-acting cylinders of the
// three-volume circuit (one for the seeds' mechanisms, one per degree of
// freedom for a model file's), in the DAE form of seed 000 §2.2 (l = 0: no model
// of the project has nonholonomic constraints):
//
//   (9)  e(x, ẋ, ẍ, p) + C_xᵀ Λ = Q_applied,
//        e = e_mech(x, ẋ, ẍ) − F(p, ṡ) ∂s/∂x,   F = A2 p2 − A3 p3 − F_μ(ṡ)   eq (7)
//   (10) C(x) = 0                                                (m)
//   (12) ṗ = H(x, ẋ, p, U)                                       (r = 3 na), eq (74)
//   (13) U̇ = W(U, U_ref) = (U_ref − U)/τ                         (u = na), eq (4)
//
// with the actuator lengths s_a(x) and rates ṡ_a = ∂s_a/∂x ẋ. Each cylinder's
// force does virtual work F_a δs_a, hence the generalized force Σ_a F_a ∂s_a/∂x
// (docs/models/planar-multibody.md §10 for na > 1).
//
// Mechanism contract (PlanarChainDae, SpatialFourBarDae): n, m, ni, Params,
// mechanism_residual<T>, mechanism_residual_along<Dir, T> (Dᵀe_mech),
// constraints<S>, actuator_length<S>, kinetic_energy<T>(P, x, ẋ),
// potential_energy<T>(P, x), initial_guess, driving(indep),
// driving_coordinate(). Everything here is generic over it and over the
// friction policy, and every derivative is taken by dual numbers. The
// integrators run the same contract: the double step through DaeMechanism
// (kernels/models/dae_mechanism.hpp), Index1Baumgarte directly
// (docs/models/integrators.md §11).
#pragma once
#include <type_traits>

#include "../core/dual.hpp"
#include "../core/type_list.hpp"
#include "../friction/friction.hpp"
#include "../hydraulics/three_volume_circuit.hpp"
#include "../models/dae_mechanism.hpp"
#include "../models/hydraulically_actuated.hpp"

namespace hs {

// The DAE form (and so the linearization and the index-1 reference
// integrator) takes static friction laws only: a law with states (LuGre) has
// no well-defined tangent at the equilibrium's v = 0 (|v| in its bristle
// ODE, docs/models/friction.md §8), and the index-1 form has no slot for them.
template <class Friction>
constexpr bool linearizable_friction = Friction::n_states == 0;

// The input policy the models of a DAE mechanism run: its `Input` when it
// declares one (the model files' mechanism, kernels/models/planar_multibody.hpp:
// CylinderInputs), else the open-loop valve schedule. Its Params are the
// model's `input`; the index-1 integrator runs it, the stability map
// linearizes with the valve closed and reads no input.
template <class Mechanism>
using DeclaredInput = typename Mechanism::Input;
template <class Mechanism>
using DaeInputPolicy = DeclaredOr<DeclaredInput, Mechanism, OpenLoopSchedule>;
// The circuit of a DAE mechanism's cylinders: the one it declares
// (`Circuit`: the model files' CircuitChoice), else the three-volume circuit
// of the seeds.
template <class Mechanism>
using DeclaredCircuit = typename Mechanism::Circuit;
template <class Mechanism>
using DaeCircuit = DeclaredOr<DeclaredCircuit, Mechanism, ThreeVolumeCircuit>;

// A spool opening per actuator: a scalar for every actuator (e.g. 0.0 in a
// residual, which does not read it), or an array U[a].
template <class T>
HS_HD const T& spool_of(const T& U, int) {
  return U;
}
template <class T, int N>
HS_HD const T& spool_of(const T (&U)[N], int a) {
  return U[a];
}

template <class MechanismT, class FrictionT>
struct ActuatedSystem {
  using Mechanism = MechanismT;
  using Friction = FrictionT;
  using Input = typename DaeInputPolicy<Mechanism>::type;
  using Circuit = typename DaeCircuit<Mechanism>::type;
  // Written on the actuator component (kernels/actuators/hydraulic_cylinder.hpp):
  // na cylinders, actuator a owning the pressures p[a·np … a·np + np − 1]
  // and spool U[a]; one degree of freedom per actuator at the equilibrium
  // (kernels/linearize/equilibrium.hpp). The index-1 form takes one.
  using Actuator = HydraulicCylinder<Circuit, Friction>;
  static constexpr int na = DaeActuatorCount<Mechanism>::value;
  static constexpr int n = Mechanism::n;
  static constexpr int m = Mechanism::m;
  static constexpr int ni = Mechanism::ni;
  static constexpr int npa = Circuit::np;  // pressures per actuator
  static constexpr int r = na * npa;
  static constexpr int u = na;
  static_assert(linearizable_friction<Friction>, "the DAE form takes static friction laws only");
  using Params = ActuatedParams<typename Mechanism::Params, typename Actuator::Params, na, typename Input::Params>;
  using Constants = ActuatedConstants<typename Actuator::Constants, na>;
  // The parameters and constants of W points in lockstep (R = Lanes<W>, a
  // stability map's points on lanes: kernels/linearize/lockstep_stability.hpp);
  // every function below takes either (PP: Params or ParamsOn<R>).
  template <class R>
  using ParamsOn = ActuatedParams<typename Mechanism::template ParamsOn<R>, typename Actuator::template ParamsOn<R>, na,
                                  typename Input::template ParamsOn<R>>;
  template <class R>
  using ConstantsOn = ActuatedConstants<typename Actuator::template ConstantsOn<R>, na>;

  // Each s0 at the configuration x0 (the equilibrium or the initial state), as
  // the integrators take it at t = 0.
  template <class PP, class R>
  HS_HD static ConstantsOn<R> constants(const PP& P, const R* x0) {
    ConstantsOn<R> K;
    for (int a = 0; a < na; ++a)
      K.actuator[a] = Actuator::constants(P.actuator[a], dae_actuator_length<Mechanism>(P.mechanism, x0, a));
    return K;
  }

  // Actuator a's s, ṡ = ∂s/∂x ẋ and ∂s/∂x d_j along the directions, from one
  // pass with x_k + Σ_j d_kj ε_j + ẋ_k ε_nd.
  template <class PP, class Dir, class T>
  HS_HD static void actuator_along(const PP& P, const Dir& dir, const T* x, const T* xd, T& s, T& sdot,
                                   T* ds_dir, int a = 0) {
    constexpr int nd = Dir::nd;
    using Jx = Dual<nd + 1, T>;
    Jx xj[n];
    for (int k = 0; k < n; ++k) {
      xj[k] = Jx(x[k]);
      for (int j = 0; j < nd; ++j) xj[k].v[j] = T(dir(k, j));
      xj[k].v[nd] = xd[k];
    }
    const Jx sj = dae_actuator_length<Mechanism>(P.mechanism, xj, a);
    s = sj.a;
    sdot = sj.v[nd];
    for (int j = 0; j < nd; ++j) ds_dir[j] = sj.v[j];
  }
  // Actuator a's s, ṡ and ∂s/∂x at (x, ẋ).
  template <class PP, class T>
  HS_HD static void actuator(const PP& P, const T* x, const T* xd, T& s, T& sdot, T* ds_dx, int a = 0) {
    actuator_along(P, UnitDirections<n>{}, x, xd, s, sdot, ds_dx, a);
  }

  // Dᵀe with e(x, ẋ, ẍ, p) = e_mech − Σ_a F_a ∂s_a/∂x (seed 000 eq 9 without
  // C_xᵀΛ and Q_applied), and H(x, ẋ, p, U) (eq 74 per actuator, chamber
  // lengths at s_a(x) − s0_a), sharing one evaluation of each actuator.
  // Either output may be null; ẍ is read only for e. U: one spool opening
  // for all, or U[a] (spool_of).
  template <class PP, class KK, class Dir, class T, class TU>
  HS_HD static void evaluate_along(const PP& P, const KK& K, const Dir& dir, const T* x, const T* xd,
                                   const T* xdd, const T* p, const TU& U, T* e_dir, T* pdot) {
    if (e_dir) Mechanism::mechanism_residual_along(P.mechanism, dir, x, xd, xdd, e_dir);
    actuation_along(P, K, dir, x, xd, p, U, e_dir, pdot);
  }
  // The cylinders' share: e_dir −= F_a ∂s_a/∂x D (when e_dir is not null) and
  // pdot = H. Separate from the mechanism so that a caller can run
  // e_mech, which depends on neither p nor U, on narrower jets.
  template <class PP, class KK, class Dir, class T, class TU>
  HS_HD static void actuation_along(const PP& P, const KK& K, const Dir& dir, const T* x, const T* xd,
                                    const T* p, const TU& U, T* e_dir, T* pdot) {
    for (int a = 0; a < na; ++a) {
      T s, sdot, ds_dir[Dir::nd];
      actuator_along(P, dir, x, xd, s, sdot, ds_dir, a);
      const T* pa = p + a * npa;
      if (e_dir) {
        const T F = Actuator::piston_force(K.actuator[a], pa) -
                    Actuator::friction_force(P.actuator[a], sdot, static_cast<const T*>(nullptr),
                                             static_cast<const T*>(nullptr));
        for (int j = 0; j < Dir::nd; ++j) e_dir[j] -= F * ds_dir[j];
      }
      if (pdot)
        Circuit::pressure_rates(P.actuator[a].circuit, K.actuator[a].circuit, pa, spool_of(U, a),
                                s - K.actuator[a].s0, sdot, pdot + a * npa);
    }
  }
  // e itself (unit directions) and H.
  template <class PP, class KK, class T, class TU>
  HS_HD static void evaluate(const PP& P, const KK& K, const T* x, const T* xd, const T* xdd, const T* p,
                             const TU& U, T* e, T* pdot) {
    evaluate_along(P, K, UnitDirections<n>{}, x, xd, xdd, p, U, e, pdot);
  }
  template <class PP, class KK, class T>
  HS_HD static void residual(const PP& P, const KK& K, const T* x, const T* xd, const T* xdd, const T* p,
                             T* e) {
    evaluate(P, K, x, xd, xdd, p, 0.0, e, static_cast<T*>(nullptr));
  }
  template <class PP, class KK, class T, class TU>
  HS_HD static void pressure_rates(const PP& P, const KK& K, const T* x, const T* xd, const T* p,
                                   const TU& U, T* pdot) {
    evaluate(P, K, x, xd, static_cast<const T*>(nullptr), p, U, static_cast<T*>(nullptr), pdot);
  }

  // W(U, U_ref) = (U_ref − U)/τ of actuator a, eq (4); ∂W/∂U = −1/τ. An
  // ideal spool has no state and no W: 0 (a linearization leaves its row
  // out, kernels/linearize/reduced_jacobian.hpp live_states).
  HS_HD static double spool_rate(const Params& P, double U, double U_ref, int a = 0) {
    return Circuit::spool_rate(P.actuator[a].circuit, U, U_ref);
  }
  template <class PP>
  HS_HD static auto spool_rate_derivative(const PP& P, int a = 0) -> decltype(Circuit::spool_time_constant(P.actuator[a].circuit)) {
    using R = decltype(Circuit::spool_time_constant(P.actuator[a].circuit));
    if (!Actuator::spool_has_state(P.actuator[a])) return R(0.0);
    return -1.0 / Circuit::spool_time_constant(P.actuator[a].circuit);
  }
};

}  // namespace hs
