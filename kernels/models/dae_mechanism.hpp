// Any mechanism of the DAE contract (kernels/linearize/actuated_system.hpp:
// n coordinates x, m holonomic constraints C(x) = 0, the residual
// e(x, ẋ, ẍ) = M(x) ẍ + c(x, ẋ) − Q_grav(x), the actuator length s(x), the
// energies, the driving coordinates) presented through the semirecursive
// interface that DoubleStepTrapezoidal and HydraulicallyActuated use
// (PlanarLoopChain's: pose, motion, acceleration, constraints,
// constraint_jacobian, constraint_acceleration, add_joint_acceleration,
// actuator, actuator_jacobian, dynamics_residual, energies, assembly_guess,
// driving). docs/models/integrators.md §11.
//
// Nothing here knows the mechanism: every derivative comes from dual numbers.
//   Φ, Φ_x        one pass of C on Dual<n, T>, x_k + ε_k          (pose)
//   Φ̇_x ẋ         the τ1τ2 coefficient of C on the path jet
//                 Dual<1, Dual<1, T>>, x + ẋτ1 + ẋτ2 (= ẋᵀ∇²C ẋ,
//                 the bias of seed 001 eq (15), seed 000 eq (96))
//   s, ∂s/∂x      one pass of s on Dual<n, T>; ṡ = ∂s/∂x ẋ
//   M ẍ + c − Q   the mechanism's own residual, seed 000 eq (9)
// The scalar T is whatever the integrator evaluates the mechanism on:
// double, or Dual<ni> (the double step's kinematic scalar, derivatives along
// the independent coordinates); the jets above then nest over it
// (kernels/core/dual.hpp), and Φ_x, the bias, ∂s/∂x carry their exact
// derivatives along z_i.
//
// The fast path of a planar chain (PlanarLoopChain: the same quantities from
// its velocity/acceleration recursion) stays what HydraulicFourBar runs;
// DaeMechanism<PlanarChainDae<3>> runs the same physics through this adapter
// (tests/test_dae_integration.cpp compares the two).
#pragma once
#include <type_traits>

#include "../core/dual.hpp"
#include "../core/uninitialized.hpp"

namespace hs {

// The DAE contract's actuators (docs/models/integrators.md §11): a mechanism
// with several declares `static constexpr int na` and takes the actuator
// index, actuator_length(P, x, a); without `na` it has one,
// actuator_length(P, x).
template <class Dae, class = void>
struct DaeActuatorCount {
  static constexpr int value = 1;
  static constexpr bool indexed = false;
};
template <class Dae>
struct DaeActuatorCount<Dae, std::void_t<decltype(Dae::na)>> {
  static constexpr int value = Dae::na;
  static constexpr bool indexed = true;
};
template <class Dae, class S, class Params>
HS_HD S dae_actuator_length(const Params& P, const S* x, int a) {
  if constexpr (DaeActuatorCount<Dae>::indexed) return Dae::actuator_length(P, x, a);
  else { (void)a; return Dae::actuator_length(P, x); }
}

// The accelerations of a mechanism whose residual and constraints read the
// coordinates' ẍ directly: affine in ẍ trivially (the integrators' interface,
// docs/models/integrators.md §11). Shared by DaeMechanism and the planar
// mechanism of model files (planar_multibody.hpp).
template <int NQ>
struct CoordinateAccelerations {
  template <class T>
  struct Acceleration {
    T xdd[NQ];
  };
  template <class T, class Pose, class Motion>
  HS_HD static Acceleration<T> acceleration(const Pose&, const Motion&, const T* xdd) {
    Acceleration<T> a;
    for (int k = 0; k < NQ; ++k) a.xdd[k] = xdd[k];
    return a;
  }
  // Effect of a change dẍ_k of one coordinate's acceleration.
  template <class T, class Pose>
  HS_HD static void add_joint_acceleration(const Pose&, int k, const T& dxdd, Acceleration<T>& a) {
    a.xdd[k] += dxdd;
  }
  // The same with k per lane (the double step's partitions on lanes, LaneIndex).
  template <class T, class Pose, class Index>
  HS_HD static void add_joint_acceleration(const Pose&, const Index& k, const T& dxdd, Acceleration<T>& a) {
    assign_at(a.xdd, k, select_at(a.xdd, k) + dxdd);
  }
};

// Φ and Φ_x as a pose stores them (members phi[NC], jacobian[NC][NQ]) and
// ∂s/∂x as an actuator does (ds_dx[NQ]): the accessors of the integrators'
// interface for every mechanism whose pose and actuator hold them
// (DaeMechanism, PlanarMultibody).
template <int NQ, int NC>
struct StoredPoseConstraints {
  template <class Params, class Pose, class T>
  HS_HD static void constraints(const Params&, const Pose& p, T* phi) {
    for (int r = 0; r < NC; ++r) phi[r] = p.phi[r];
  }
  template <class Pose, class T>
  HS_HD static void constraint_jacobian(const Pose& p, T (*J)[NQ]) {
    for (int r = 0; r < NC; ++r)
      for (int k = 0; k < NQ; ++k) J[r][k] = p.jacobian[r][k];
  }
  // ∂s/∂x, stored by `actuator` beside s (the actuator's index is in `act`).
  template <class Params, class Pose, class Actuator, class T>
  HS_HD static void actuator_jacobian(const Params&, const Pose&, const Actuator& act, T* ds_dx, int = 0) {
    for (int k = 0; k < NQ; ++k) ds_dx[k] = act.ds_dx[k];
  }
};

// A DAE that declares `template <class R> using ParamsOn` (its parameters per
// lane) runs on lockstep lanes (docs/models/lanes.md §8): every function here
// takes the parameters as they come, one instance's or the lanes'. A DAE
// without has no DaeMechanism::ParamsOn (DaeParamsOn has no type).
template <class Dae, class R, class = void>
struct DaeParamsOn {};
template <class Dae, class R>
struct DaeParamsOn<Dae, R, std::void_t<typename Dae::template ParamsOn<R>>> {
  using type = typename Dae::template ParamsOn<R>;
};

template <class DaeT>
struct DaeMechanism : CoordinateAccelerations<DaeT::n>, StoredPoseConstraints<DaeT::n, DaeT::m> {
  using Dae = DaeT;
  using Params = typename Dae::Params;
  template <class R>
  using ParamsOn = typename DaeParamsOn<Dae, R>::type;
  static constexpr int nq = Dae::n;  // coordinates x
  static constexpr int nc = Dae::m;  // holonomic constraints
  static constexpr int ni = nq - nc;
  static constexpr int na = DaeActuatorCount<Dae>::value;  // actuators

  // Positions: x, and the constraints with their Jacobian at x. Keeps the
  // parameters (by address) for the bias of constraint_acceleration.
  template <class T, class PP = Params>
  struct Pose {
    const PP* params;
    T x[nq];
    T phi[nc];               // C(x)
    T jacobian[nc][nq];      // C_x(x)
  };
  template <class T>
  struct Motion {
    T x[nq], xd[nq];
  };
  // The accelerations are the coordinates' ẍ themselves: everything the
  // residual needs (CoordinateAccelerations).
  template <class T>
  using Acceleration = typename CoordinateAccelerations<nq>::template Acceleration<T>;
  template <class T>
  struct Actuator {
    T length, rate;  // s(x), ṡ = ∂s/∂x ẋ
    T ds_dx[nq];
  };

  // Coordinates held during assembly (the crank angle): the DAE contract's.
  HS_HD static void driving(int* indep) { Dae::driving(indep); }

  HS_HD static void assembly_guess(const Params& P, double* x) { Dae::initial_guess(P, x); }

  template <class T, class PP>
  HS_HD static Pose<T, PP> pose(const PP& P, const T* x) {
    using Jx = Dual<nq, T>;
    Pose<T, PP> p;
    p.params = &P;
    Uninitialized<Jx, nq> xj;  // every entry written before it is read
    Uninitialized<Jx, nc> Cj;
    for (int k = 0; k < nq; ++k) {
      p.x[k] = x[k];
      xj[k] = Jx::variable(x[k], k);
    }
    Dae::constraints(P, xj.item, Cj.item);
    for (int r = 0; r < nc; ++r) {
      p.phi[r] = Cj[r].a;
      for (int k = 0; k < nq; ++k) p.jacobian[r][k] = Cj[r].v[k];
    }
    return p;
  }


  template <class T, class PP>
  HS_HD static Motion<T> motion(const Pose<T, PP>& p, const T* xd) {
    Motion<T> m;
    for (int k = 0; k < nq; ++k) {
      m.x[k] = p.x[k];
      m.xd[k] = xd[k];
    }
    return m;
  }

  // C̈ = C_x ẍ + ẋᵀ∇²C ẋ (seed 001 eq 15 with Φ̇_z ż = ẋᵀ∇²C ẋ); with ẍ = 0
  // it is the bias alone. The bias: the τ1τ2 coefficient of C on the path
  // jet x + ẋτ1 + ẋτ2 (as Index1Form::rates, kernels/linearize/counterpart.hpp).
  template <class T, class PP>
  HS_HD static void constraint_acceleration(const Pose<T, PP>& p, const Motion<T>& m, const Acceleration<T>& a,
                                            T* out) {
    using Inner = Dual<1, T>;
    using Path = Dual<1, Inner>;
    Path xp[nq], Cp[nc];
    for (int k = 0; k < nq; ++k) {
      Inner lo(m.x[k]);
      lo.v[0] = m.xd[k];
      xp[k].a = lo;
      xp[k].v[0] = Inner(m.xd[k]);
    }
    Dae::constraints(*p.params, xp, Cp);
    for (int r = 0; r < nc; ++r) {
      T c = Cp[r].v[0].v[0];
      for (int k = 0; k < nq; ++k) c += p.jacobian[r][k] * a.xdd[k];
      out[r] = c;
    }
  }

  template <class T, class PP>
  HS_HD static Actuator<T> actuator(const PP& P, const Pose<T, PP>& p, const Motion<T>& m, int a = 0) {
    using Jx = Dual<nq, T>;
    Uninitialized<Jx, nq> xj;  // every entry written before it is read
    for (int k = 0; k < nq; ++k) xj[k] = Jx::variable(p.x[k], k);
    const Jx s = dae_actuator_length<Dae>(P, xj.item, a);
    Actuator<T> act;
    act.length = s.a;
    T rate(0.0);
    for (int k = 0; k < nq; ++k) {
      act.ds_dx[k] = s.v[k];
      rate += s.v[k] * m.xd[k];
    }
    act.rate = rate;
    return act;
  }

  // M(x) ẍ + c(x, ẋ) − Q_grav(x): the DAE residual, seed 000 eq (9) without
  // multipliers and cylinder (the integrator adds − F ∂s/∂x).
  template <class T, class PP>
  HS_HD static void dynamics_residual(const PP& P, const Pose<T, PP>& p, const Motion<T>& m, const Acceleration<T>& a,
                                      T* r) {
    Dae::mechanism_residual(P, p.x, m.xd, a.xdd, r);
  }

  template <class T, class PP>
  HS_HD static T kinetic_energy(const PP& P, const Motion<T>& m) {
    return Dae::kinetic_energy(P, m.x, m.xd);
  }
  template <class T, class PP>
  HS_HD static T potential_energy(const PP& P, const Pose<T, PP>& p) {
    return Dae::potential_energy(P, p.x);
  }
};

}  // namespace hs
