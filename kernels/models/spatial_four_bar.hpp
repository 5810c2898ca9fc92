// The 3D hydraulically actuated four-bar of seed 000 §4 (Figs 4–5):
// bodies 2 (input link), 3 (coupler), 4 (output link) moving in the Y1Z1
// plane, modelled in 3D with n = 10 mixed coordinates, eq (65),
//
//   x = (x_G2, y_G2, z_G2, ψ2, θ2, φ2, φ32, φ43, s, α)
//
// and m = 9 holonomic constraints, eqs (67)–(71). Orientations, eq (66):
// R2 = R_Z(ψ2) R_Y(θ2) R_X(φ2), R3 = R2 R_X(φ32), R4 = R3 R_X(φ43),
// R_c = R_Z(ψ2) R_Y(θ2) R_X(α) (cylinder). The equations of motion come
// from the frames by rigid_body_residual (virtual power), and so do the
// energies. The double step runs it through DaeMechanism (four_bar_3d.hpp).
//
// Parameters: the planar four-bar's (PlanarLoopChainParams<3>), read in the
// Y1Z1 plane: a planar point (a, b) is (0, a, b) in 3D, a body-fixed planar
// vector (a, b) is (0, a, b) in body axes, the planar inertia about the CoM
// is Ī_xx. So the seed 002 defaults give seed 000's mechanism (L1 = 10,
// L2 = 2, L3 = 8, L4 = 5 m, d1 = 1 m; docs/models/four-bar-3d.md §5), and both
// formulations can be compared on the same parameters.
//
// Choices the text leaves open (docs/models/four-bar-3d.md §3–4):
// - Constraint 8 with O_c at Y = −d1 (the printed sign is a typo, docs/models/four-bar-3d.md §3, A15):
//   written as O_c + R_c (0, s, 0) − r_F = 0 (Y and Z rows).
// - The cylinder force acts at its rod end F (G2 for seed 000) along the
//   cylinder, so the actuator length s_act(x) = |r_F − O_c| is taken from
//   body 2's pose, not from the coordinate s: s and α are massless,
//   force-free kinematic coordinates and Λ8 = Λ9 = 0 at equilibrium, as in
//   seed 000 eq (84).
// - Slender rods: Ī_xx = Ī_zz = I (the planar inertia), Ī_yy = 0 (along the rod).
#pragma once
#include "planar_loop_chain.hpp"
#include "rigid_body_system.hpp"

namespace hs {

struct SpatialFourBarDae {
  using Params = PlanarLoopChainParams<3>;
  // The planar chain's parameters per lane (lockstep lanes, docs/models/lanes.md §8):
  // every function but the assembly guess takes them.
  template <class R>
  using ParamsOn = PlanarLoopChainParams<3, R>;
  static constexpr int n = 10;
  static constexpr int m = 9;
  static constexpr int ni = 1;
  static constexpr int nb = 3;  // bodies 2, 3, 4
  enum Coordinate { xG2 = 0, yG2, zG2, psi2, theta2, phi2, phi32, phi43, s, alpha };

  HS_HD static void driving(int* indep) { indep[0] = phi2; }
  HS_HD static int driving_coordinate() { return phi2; }

  // Planar (a, b) body-fixed vectors relative to the crank's centre of mass.
  template <class S>
  struct Points {
    S R2[3][3], R3[3][3], R4[3][3], Rc[3][3];
    S G2[3], O1[3], C[3], G3[3], D[3], G4[3], O2[3], F[3];
  };
  // R_Z(ψ2) R_Y(θ2), shared with the cylinder, and R2 = R_Z R_Y R_X(φ2) (eq 66).
  template <class S>
  HS_HD static void crank_rotation(const S* x, S (&Rzy)[3][3], S (&R2)[3][3]) {
    rotation_zy(x[psi2], x[theta2], Rzy);
    times_rotation_x(Rzy, x[phi2], R2);
  }
  // The rod end F on body 2: all the actuator length needs (only the crank's
  // pose, not the whole chain: smaller jets in the linearization passes).
  template <class R, class S>
  HS_HD static void rod_end(const ParamsOn<R>& P, const S* x, const S (&R2)[3][3], S (&F)[3]) {
    const S G2[3] = {x[xG2], x[yG2], x[zG2]};
    const auto& a = P.body[P.actuator_body];
    point_in_body_plane(G2, R2, P.actuator_local_x - a.com_x, P.actuator_local_y - a.com_y, F);
  }
  // The bodies' rotations and the points along the chain O1 → C → D → O2,
  // written where the caller keeps them (the points, or the bodies' frames).
  template <class R, class S>
  HS_HD static void body_chain(const ParamsOn<R>& P, const S* x, S (&R2)[3][3], S (&R3)[3][3], S (&R4)[3][3],
                               S (&G2)[3], S (&C)[3], S (&G3)[3], S (&D)[3], S (&G4)[3], S (&Rzy)[3][3]) {
    crank_rotation(x, Rzy, R2);
    times_rotation_x(R2, x[phi32], R3);
    times_rotation_x(R3, x[phi43], R4);
    const auto& b2 = P.body[0];
    const auto& b3 = P.body[1];
    const auto& b4 = P.body[2];
    for (int i = 0; i < 3; ++i) G2[i] = x[xG2 + i];
    point_in_body_plane(G2, R2, b2.distal_x - b2.com_x, b2.distal_y - b2.com_y, C);
    point_in_body_plane(C, R3, b3.com_x, b3.com_y, G3);
    point_in_body_plane(C, R3, b3.distal_x, b3.distal_y, D);
    point_in_body_plane(D, R4, b4.com_x, b4.com_y, G4);
  }
  // Everything the constraints use: the chain plus the joints and the cylinder.
  template <class R, class S>
  HS_HD static void points(const ParamsOn<R>& P, const S* x, Points<S>& q) {
    Uninitialized<S[3][3], 1> Rzy;  // written by body_chain before it is read
    body_chain(P, x, q.R2, q.R3, q.R4, q.G2, q.C, q.G3, q.D, q.G4, Rzy[0]);
    times_rotation_x(Rzy[0], x[alpha], q.Rc);
    const auto& b2 = P.body[0];
    const auto& b4 = P.body[2];
    point_in_body_plane(q.G2, q.R2, -b2.com_x, -b2.com_y, q.O1);
    point_in_body_plane(q.D, q.R4, b4.distal_x, b4.distal_y, q.O2);
    rod_end(P, x, q.R2, q.F);
  }

  // Rigid-body view for rigid_body_residual: the chain written into the frames.
  template <class R, class S>
  HS_HD static void frames(const ParamsOn<R>& P, const S* x, BodyFrame<S>* f) {
    Uninitialized<S[3], 2> joint;  // C and D: written by body_chain before they are read
    Uninitialized<S[3][3], 1> Rzy;
    body_chain(P, x, f[0].R, f[1].R, f[2].R, f[0].com, joint[0], f[1].com, joint[1], f[2].com, Rzy[0]);
  }
  template <class R>
  HS_HD static BodyInertiaT<R> inertia(const ParamsOn<R>& P, int b) {
    const R I = P.body[b].inertia;
    return {P.body[b].mass, {I, R(0.0), I}};
  }

  template <class R, class T>
  HS_HD static void mechanism_residual(const ParamsOn<R>& P, const T* x, const T* xd, const T* xdd, T* e) {
    mechanism_residual_along(P, UnitDirections<n>{}, x, xd, xdd, e);
  }
  // Dᵀe along the directions, without the full gradient (the linearization).
  template <class R, class Dir, class T>
  HS_HD static void mechanism_residual_along(const ParamsOn<R>& P, const Dir& dir, const T* x, const T* xd, const T* xdd,
                                             T* e_dir) {
    const R gravity[3] = {R(0.0), P.gravity_x, P.gravity_y};
    rigid_body_residual_along<SpatialFourBarDae>(P, gravity, dir, x, xd, xdd, e_dir);
  }

  // Kinetic energy Σ_b ½ m_b |ġ_b|² + ½ ω_bᵀ Ī_b ω_b, ω_b in body axes from
  // ω̃_b = R_bᵀ Ṙ_b (docs/models/four-bar-3d.md §6): ġ_b and Ṙ_b from one pass of
  // the frames on the first-order path jet x + ẋτ.
  template <class R, class T>
  HS_HD static T kinetic_energy(const ParamsOn<R>& P, const T* x, const T* xd) {
    using Path = RateJet<T>;
    Uninitialized<Path, n> xp;  // written before they are read
    seed_rate<T>(x, xd, n, xp.item);
    Uninitialized<BodyFrame<Path>, nb> f;
    frames(P, xp.item, f.item);
    T energy(0.0);
    for (int b = 0; b < nb; ++b) {
      const BodyInertiaT<R> I = inertia(P, b);
      T Rb[3][3], Rd[3][3], A[3][3], w[3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          Rb[i][j] = f[b].R[i][j].a;
          Rd[i][j] = f[b].R[i][j].v[0];
        }
      rigid_body_detail::at_b(Rb, Rd, A);
      rigid_body_detail::vee_skew(A, w);
      for (int i = 0; i < 3; ++i) {
        const T gd = f[b].com[i].v[0];
        energy += 0.5 * I.mass * gd * gd + 0.5 * I.inertia[i] * w[i] * w[i];
      }
    }
    return energy;
  }
  // Gravitational potential energy −Σ_b m_b a_grav · g_b, a_grav = (0, gravity_x,
  // gravity_y) in the Y1Z1 plane (docs/models/four-bar-3d.md §5).
  template <class R, class T>
  HS_HD static T potential_energy(const ParamsOn<R>& P, const T* x) {
    Uninitialized<BodyFrame<T>, nb> f;  // written before it is read
    frames(P, x, f.item);
    T energy(0.0);
    for (int b = 0; b < nb; ++b) energy -= P.body[b].mass * (P.gravity_x * f[b].com[1] + P.gravity_y * f[b].com[2]);
    return energy;
  }

  // Seed 000 eqs (67)–(71), in the order printed.
  template <class R, class S>
  HS_HD static void constraints(const ParamsOn<R>& P, const S* x, S* C) {
    Uninitialized<Points<S>, 1> stored;  // every point written by points() before it is read
    Points<S>& q = stored[0];
    points(P, x, q);
    C[0] = q.O1[0];                // r_O1 = O1 (3): revolute joint 1–2 at the base pivot
    C[1] = q.O1[1] - P.base_x;
    C[2] = q.O1[2] - P.base_y;
    C[3] = q.R2[1][0];             // u1 · v: X2 axis keeps no Y1 component
    C[4] = q.R2[2][0];             // u2 · v: nor a Z1 component (rotation about X1 only)
    C[5] = q.O2[1] - P.cut_x;      // r_O2 at the output link's ground pivot
    C[6] = q.O2[2] - P.cut_y;
    S cyl[3];                      // cylinder: O_c + R_c (0, s, 0) = r_F (Y, Z)
    for (int i = 0; i < 3; ++i) cyl[i] = q.Rc[i][1] * x[s];
    C[7] = P.actuator_ground_x + cyl[1] - q.F[1];
    C[8] = P.actuator_ground_y + cyl[2] - q.F[2];
  }

  template <class R, class S>
  HS_HD static S actuator_length(const ParamsOn<R>& P, const S* x) {
    Uninitialized<S[3][3], 2> rotation;  // Rzy, R2: written before they are read
    Uninitialized<S[3], 1> rod;
    S(&R2)[3][3] = rotation[1];
    S(&F)[3] = rod[0];
    crank_rotation(x, rotation[0], R2);
    rod_end(P, x, R2, F);
    const S dy = F[1] - P.actuator_ground_x;
    const S dz = F[2] - P.actuator_ground_y;
    return math::sqrt(F[0] * F[0] + dy * dy + dz * dz);
  }

  // Assembly guess from the planar data (eq 78 for the crank; the joint
  // angles from the planar closure in the guessed angles' assembly mode,
  // PlanarLoopChain::assembly_guess, then corrected by the 3D closure).
  HS_HD static void initial_guess(const Params& P, double* x) {
    const double a = P.initial_angle[0];
    const auto& b2 = P.body[0];
    const double c = math::cos(a), sn = math::sin(a);
    x[xG2] = 0.0;
    x[yG2] = P.base_x + c * b2.com_x - sn * b2.com_y;
    x[zG2] = P.base_y + sn * b2.com_x + c * b2.com_y;
    x[psi2] = 0.0;
    x[theta2] = 0.0;
    x[phi2] = a;
    double z[3];  // the planar joint angles, closed in the guess's assembly mode
    PlanarLoopChain<3>::assembly_guess(P, z);
    x[phi32] = z[1];
    x[phi43] = z[2];
    const auto& ab = P.body[P.actuator_body];
    const double fy = x[yG2] + c * (P.actuator_local_x - ab.com_x) - sn * (P.actuator_local_y - ab.com_y);
    const double fz = x[zG2] + sn * (P.actuator_local_x - ab.com_x) + c * (P.actuator_local_y - ab.com_y);
    const double dy = fy - P.actuator_ground_x, dz = fz - P.actuator_ground_y;
    x[s] = ::sqrt(dy * dy + dz * dz);
    x[alpha] = ::atan2(dz, dy);  // eq (78): tan α = (z_F − z_Oc)/(y_F − y_Oc)
  }
};

}  // namespace hs
