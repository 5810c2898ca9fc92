// The planar loop chain (semirecursive, relative joint coordinates z) seen
// as a constrained mechanism in the DAE form of seed 000 eqs (9)–(10):
//
//   e(z, ż, z̈) = M(z) z̈ + c(z, ż) − Q_grav(z)   (dynamics_residual, seed 001 eq 11)
//   Φ(z) = 0                                      (loop closure, 2 equations)
//   s(z) = |r_F − r_G|                            (actuator length)
//   T(z, ż), V(z)                                 (kinetic, potential energy)
//
// This is the mechanism contract of kernels/linearize (ActuatedSystem): the
// same planar four-bar the integrators run, with no model code repeated.
#pragma once
#include "planar_loop_chain.hpp"

namespace hs {

template <int NB>
struct PlanarChainDae {
  using Chain = PlanarLoopChain<NB>;
  using Params = PlanarLoopChainParams<NB>;
  // The chain's parameters per lane (a stability map's points in lockstep,
  // docs/models/lanes.md §12): every function but the assembly guess takes them.
  template <class R>
  using ParamsOn = PlanarLoopChainParams<NB, R>;
  static constexpr int n = NB;         // coordinates z
  static constexpr int m = Chain::nc;  // holonomic constraints
  static constexpr int ni = n - m;
  // Coordinates held by the equilibrium (the crank angle z_1) and taken as
  // independent by the reduced Jacobian.
  HS_HD static void driving(int* indep) {
    for (int j = 0; j < ni; ++j) indep[j] = j;
  }
  HS_HD static int driving_coordinate() { return 0; }

  template <class R, class T>
  HS_HD static void mechanism_residual(const ParamsOn<R>& P, const T* z, const T* zd, const T* zdd, T* e) {
    const auto pose = Chain::pose(P, z);
    const auto motion = Chain::motion(pose, zd);
    const auto acc = Chain::acceleration(pose, motion, zdd);
    Chain::dynamics_residual(P, pose, motion, acc, e);
  }
  // Dᵀe: the semirecursive residual is cheap for n = NB, so it is projected
  // after the fact rather than evaluated along the directions.
  template <class R, class Dir, class T>
  HS_HD static void mechanism_residual_along(const ParamsOn<R>& P, const Dir& dir, const T* z, const T* zd, const T* zdd,
                                             T* e_dir) {
    T e[n];
    mechanism_residual(P, z, zd, zdd, e);
    for (int j = 0; j < Dir::nd; ++j) {
      T s(0.0);
      for (int k = 0; k < n; ++k) s += dir(k, j) * e[k];
      e_dir[j] = s;
    }
  }
  template <class R, class T>
  HS_HD static void constraints(const ParamsOn<R>& P, const T* z, T* phi) {
    Chain::constraints(P, Chain::pose(P, z), phi);
  }
  template <class R, class T>
  HS_HD static T actuator_length(const ParamsOn<R>& P, const T* z) {
    const V2<T> f = Chain::actuator_point(P, z);  // pose's r_F, bodies up to the actuator's only
    const V2<T> d{f.x - P.actuator_ground_x, f.y - P.actuator_ground_y};
    return math::sqrt(dot(d, d));
  }
  // Kinetic and gravitational potential energy of the bodies (the energy
  // balance of docs/models/integrators.md §6), from the chain's own recursion.
  template <class R, class T>
  HS_HD static T kinetic_energy(const ParamsOn<R>& P, const T* z, const T* zd) {
    return Chain::kinetic_energy(P, Chain::motion(Chain::pose(P, z), zd));
  }
  template <class R, class T>
  HS_HD static T potential_energy(const ParamsOn<R>& P, const T* z) {
    return Chain::potential_energy(P, Chain::pose(P, z));
  }
  // Assembly guess: z_1 the driving angle, the others closed in the
  // assembly mode of the guessed angles (PlanarLoopChain::assembly_guess).
  HS_HD static void initial_guess(const Params& P, double* z) { Chain::assembly_guess(P, z); }
};

}  // namespace hs
