// A planar serial chain of NB rigid bodies in relative joint coordinates,
// closed to the ground by one cut revolute joint: the four-bar of seeds
// 001/002 is PlanarLoopChain<3>.
//
// Semirecursive formulation (seed 001 §2.1, eqs 1–12; seed 002 eqs 1–8),
// written for the plane. Body j turns by the relative angle z_j about its
// proximal joint r_j, so its absolute angle is θ_j = z_1 + … + z_j. With
// Z_j = [ṡ_j; ω_j] (velocity of the body point at the origin, angular rate):
//
//   Z_j = Z_{j−1} + b_j ż_j,          b_j = [r_j,y; −r_j,x; 1]         eq (2)
//   Ż_j = Ż_{j−1} + b_j z̈_j + ḃ_j ż_j, ḃ_j = [ṙ_j,y; −ṙ_j,x; 0]        eq (3)
//
// The virtual-power equations (eq 8) projected on z_i give, for a serial
// chain, the moment about joint i of the inertia-minus-applied wrench of
// every body outboard of i:
//   r_i = b_iᵀ Σ_{j≥i} W_j,  W_j = [m_j g̈_j − f_j ; r_O-moment]       eq (11)
// i.e. M'(z) z̈ − Q'(z, ż) assembled by the backward accumulation Tᵀ; the
// actuator adds − F ∂s/∂z.
// CoM accelerations are computed as point accelerations,
//   g̈ = s̈ + ω̇ k×g + ω k×ġ,
// which is the literal derivative of ġ = ṡ + ω k×g; seed 001 eq (7) writes
// the velocity term as ω̃ω̃g, which drops ω̃ṡ (tests/test_mechanism.cpp checks
// ours against the Lagrangian form through energy conservation).
//
// Loop closure: the distal point of body NB coincides with the ground point
// E (two equations). Its Jacobian and its acceleration bias come from the
// same velocity/acceleration recursion as everything else.
#pragma once
#include "../core/dual.hpp"
#include "../core/small_matrix.hpp"

namespace hs {

// On lanes (R = Lanes<W>, kernels/core/lanes.hpp) every real is W
// instances' values; the body that carries the actuator is a structural
// choice, one for the whole batch (docs/models/lanes.md §4).
template <int NB, class R = double>
struct PlanarLoopChainParams {
  using Real = R;
  // Per body, in body coordinates: origin at the proximal joint, x axis at
  // absolute angle θ_j. `distal` is the next body's joint (for the last
  // body: its half of the cut joint).
  struct Body {
    R mass;     // [kg]
    R inertia;  // about the centre of mass [kg·m²]
    R com_x, com_y;
    R distal_x, distal_y;
  };
  Body body[NB];
  R base_x = 0.0, base_y = 0.0;  // ground pivot of body 1 [m]
  R cut_x = 0.0, cut_y = 0.0;    // ground point of the cut joint [m]
  R gravity_x = 0.0, gravity_y = -9.81;  // [m/s²]
  // Actuator: ground point G, moving point F on body `actuator_body`
  // (0-based), in that body's coordinates.
  R actuator_ground_x = 0.0, actuator_ground_y = 0.0;
  R actuator_local_x = 0.0, actuator_local_y = 0.0;
  // Initial relative joint angles [rad]. z_1 is the driving angle and is
  // kept; the others are guesses that select the assembly branch and are
  // corrected by the loop closure.
  R initial_angle[NB];
  // Last, after the reals: the lanes' transposition goes through the reals
  // as one block (kernels/core/lanes.hpp gather_lanes).
  int actuator_body = 0;
};

template <int NB>
struct PlanarLoopChain {
  static constexpr int nq = NB;
  static constexpr int nc = 2;
  using Params = PlanarLoopChainParams<NB>;
  template <class R>
  using ParamsOn = PlanarLoopChainParams<NB, R>;

  // Coordinates held during assembly and by the driving-angle outputs of a
  // run (settling time, tracking): the first ni joint angles, z_1 the crank
  // of the four-bar (docs/models/integrators.md §5, §11).
  HS_HD static void driving(int* indep) {
    for (int j = 0; j < nq - nc; ++j) indep[j] = j;
  }

  // Positions of everything, for one set of joint angles.
  template <class T>
  struct Pose {
    T cos_t[NB], sin_t[NB];  // of the absolute angles θ_j
    V2<T> joint[NB];         // r_j, proximal joint of body j
    V2<T> com[NB];           // g_j
    V2<T> end;               // distal point of the last body (cut joint)
    V2<T> actuator_point;    // r_F
  };
  template <class T>
  struct Motion {  // velocities Z_j = [ṡ_j; ω_j] and the CoM velocities
    V2<T> sdot[NB];
    T omega[NB];
    V2<T> com_vel[NB];
  };
  template <class T>
  struct Actuator {
    T length, rate;  // s = |r_F − r_G|, ṡ
    V2<T> unit;      // (r_F − r_G)/s
  };

  template <class T, class R>
  HS_HD static V2<T> to_global(const Pose<T>& p, int j, const R& lx, const R& ly) {
    return {p.joint[j].x + p.cos_t[j] * lx - p.sin_t[j] * ly, p.joint[j].y + p.sin_t[j] * lx + p.cos_t[j] * ly};
  }

  template <class T, class R>
  HS_HD static Pose<T> pose(const ParamsOn<R>& P, const T* z) {
    Pose<T> p;
    T theta = z[0];
    V2<T> r{T(P.base_x), T(P.base_y)};
    for (int j = 0; j < NB; ++j) {
      if (j > 0) theta = theta + z[j];
      math::sincos(theta, &p.sin_t[j], &p.cos_t[j]);
      p.joint[j] = r;
      p.com[j] = to_global(p, j, P.body[j].com_x, P.body[j].com_y);
      r = to_global(p, j, P.body[j].distal_x, P.body[j].distal_y);
    }
    p.end = r;
    {  // body `actuator_body` (run time): select_at keeps the pose in registers
      const int b = P.actuator_body;
      const V2<T> joint = select_at(p.joint, b);
      const T c = select_at(p.cos_t, b), s = select_at(p.sin_t, b);
      p.actuator_point = {joint.x + c * P.actuator_local_x - s * P.actuator_local_y,
                          joint.y + s * P.actuator_local_x + c * P.actuator_local_y};
    }
    return p;
  }

  // r_F alone, as pose computes it (the same operations, the same bits): the
  // joints up to the actuator's body, without the centres of mass and the
  // bodies beyond it. All an actuator length needs: the linearization's
  // passes carry it on jets of up to 24 doubles (PlanarChainDae::actuator_length,
  // docs/performance.md §3), where the whole pose cost ~3x as much.
  template <class T, class R>
  HS_HD static V2<T> actuator_point(const ParamsOn<R>& P, const T* z) {
    const int b = P.actuator_body;
    T theta = z[0], c, s;
    V2<T> r{T(P.base_x), T(P.base_y)};
    for (int j = 0; j < NB; ++j) {
      if (j > 0) theta = theta + z[j];
      math::sincos(theta, &s, &c);
      if (j == b) break;
      r = {r.x + c * P.body[j].distal_x - s * P.body[j].distal_y, r.y + s * P.body[j].distal_x + c * P.body[j].distal_y};
    }
    return {r.x + c * P.actuator_local_x - s * P.actuator_local_y, r.y + s * P.actuator_local_x + c * P.actuator_local_y};
  }

  // Assembly guess at the driving angle z_1 = initial_angle[0], in the
  // assembly mode of the guessed angles: what Newton on the closure starts
  // from (integrator initialization, equilibrium of the linearization).
  //
  // A four-bar (NB = 3) has two assemblies per crank angle (open, crossed),
  // the two intersections of the circles |D − C| = L2 about the crank tip C
  // and |E − D| = L3 about the cut point E. Newton from fixed guessed angles
  // lands on either one depending on the crank angle, so a crank-angle sweep
  // would switch branches silently. The branch is named by the orientation of
  // the triangle C, D, E, σ = sign((D − C) × (E − D)) = sign sin(z3 + β3 − β2)
  // (β_j: direction of body j's distal vector in body axes): it depends on the
  // guessed z3 alone and changes only through a singular configuration (C, D,
  // E collinear). D is placed on that side in closed form; z2, z3 are taken
  // within π of their guesses. Other NB, or a loop that cannot close at this
  // crank angle (|E − C| outside [|L2 − L3|, L2 + L3]): the guessed angles.
  HS_HD static void assembly_guess(const Params& P, double* z) {
    for (int k = 0; k < NB; ++k) z[k] = P.initial_angle[k];
    if constexpr (NB == 3) close_four_bar(P, z);
  }
  HS_HD static void close_four_bar(const Params& P, double* z) {
    const auto& b1 = P.body[0];
    const auto& b2 = P.body[1];
    const auto& b3 = P.body[2];
    const double c1 = math::cos(z[0]), s1 = math::sin(z[0]);
    const double Cx = P.base_x + c1 * b1.distal_x - s1 * b1.distal_y;
    const double Cy = P.base_y + s1 * b1.distal_x + c1 * b1.distal_y;
    const double L2 = ::sqrt(b2.distal_x * b2.distal_x + b2.distal_y * b2.distal_y);
    const double L3 = ::sqrt(b3.distal_x * b3.distal_x + b3.distal_y * b3.distal_y);
    const double beta2 = ::atan2(b2.distal_y, b2.distal_x), beta3 = ::atan2(b3.distal_y, b3.distal_x);
    const double vx = P.cut_x - Cx, vy = P.cut_y - Cy;
    const double dist = ::sqrt(vx * vx + vy * vy);
    if (!(dist > 0.0) || !(L2 > 0.0) || !(L3 > 0.0)) return;
    const double a = (L2 * L2 - L3 * L3 + dist * dist) / (2.0 * dist);  // along C→E
    const double h2 = L2 * L2 - a * a;                                   // squared offset from C→E
    if (!(h2 >= 0.0)) return;
    const double h = ::sqrt(h2);
    const double ux = vx / dist, uy = vy / dist;
    // (D − C) × (E − D) = (D − C) × v = −side·h·|v| for D − C = a û + side·h·perp(û).
    const double sigma = math::sin(z[2] + beta3 - beta2);
    const double side = sigma > 0.0 ? -1.0 : 1.0;
    const double Dx = Cx + a * ux - side * h * uy;
    const double Dy = Cy + a * uy + side * h * ux;
    const double theta2 = ::atan2(Dy - Cy, Dx - Cx) - beta2;
    const double theta3 = ::atan2(P.cut_y - Dy, P.cut_x - Dx) - beta3;
    auto near = [](double angle, double guess) {
      const double two_pi = 6.283185307179586476925;
      return angle + two_pi * ::nearbyint((guess - angle) / two_pi);
    };
    z[1] = near(theta2 - z[0], z[1]);
    z[2] = near(theta3 - theta2, z[2]);
  }

  // Φ(z) = r_end − r_E, seed 001 eq (13)'s closure of the cut joint.
  template <class T, class R>
  HS_HD static void constraints(const ParamsOn<R>& P, const Pose<T>& p, T* phi) {
    phi[0] = p.end.x - P.cut_x;
    phi[1] = p.end.y - P.cut_y;
  }

  // Φ_z (nc × nq, row-major): turning joint i moves the end by k × (r_end − r_i).
  template <class T>
  HS_HD static void constraint_jacobian(const Pose<T>& p, T (*J)[NB]) {
    for (int i = 0; i < NB; ++i) {
      const V2<T> d = perp(p.end - p.joint[i]);
      J[0][i] = d.x;
      J[1][i] = d.y;
    }
  }

  // Velocity recursion, eq (2).
  template <class T>
  HS_HD static Motion<T> motion(const Pose<T>& p, const T* zdot) {
    Motion<T> m;
    V2<T> s{T(0.0), T(0.0)};
    T w(0.0);
    for (int j = 0; j < NB; ++j) {
      s = s + zdot[j] * V2<T>{p.joint[j].y, -p.joint[j].x};
      w = w + zdot[j];
      m.sdot[j] = s;
      m.omega[j] = w;
      m.com_vel[j] = s + w * perp(p.com[j]);
    }
    return m;
  }

  // Velocity of a point fixed to body j.
  template <class T>
  HS_HD static V2<T> point_velocity(const Motion<T>& m, int j, const V2<T>& r) { return m.sdot[j] + m.omega[j] * perp(r); }

  // Acceleration recursion, eq (3), and the loop-closure acceleration Φ̈.
  // With z̈ = 0 the result is the bias Φ̇_z ż of the acceleration constraint.
  template <class T>
  struct Acceleration {
    V2<T> sddot[NB];
    T alpha[NB];
  };
  template <class T>
  HS_HD static Acceleration<T> acceleration(const Pose<T>& p, const Motion<T>& m, const T* zddot) {
    Acceleration<T> a;
    V2<T> s{T(0.0), T(0.0)};
    T al(0.0);
    for (int j = 0; j < NB; ++j) {
      // ṙ_j: the joint point moves with the previous body (ground for j = 0).
      const V2<T> rdot = j == 0 ? V2<T>{T(0.0), T(0.0)} : point_velocity(m, j - 1, p.joint[j]);
      const T zd = j == 0 ? m.omega[0] : m.omega[j] - m.omega[j - 1];
      s = s + zddot[j] * V2<T>{p.joint[j].y, -p.joint[j].x} + zd * V2<T>{rdot.y, -rdot.x};
      al = al + zddot[j];
      a.sddot[j] = s;
      a.alpha[j] = al;
    }
    return a;
  }
  // The accelerations are affine in z̈: add the effect of a change dz̈_k of
  // one joint acceleration (b_k dz̈_k on every body outboard of joint k).
  // k may be a per-lane index (LaneIndex): each lane adds from its own joint.
  template <class T, class I>
  HS_HD static void add_joint_acceleration(const Pose<T>& p, const I& k, const T& dzdd, Acceleration<T>& a) {
    const V2<T> joint = select_at(p.joint, k);
    const V2<T> bk = dzdd * V2<T>{joint.y, -joint.x};
    HS_UNROLL
    for (int j = 0; j < NB; ++j) {  // j ≥ k, written without a run-time start (select_at)
      const auto outboard = I(j) >= k;
      add_where(outboard, a.sddot[j], bk);
      add_where(outboard, a.alpha[j], dzdd);
    }
  }
  // Acceleration of a point r fixed to body j moving with velocity v.
  template <class T>
  HS_HD static V2<T> point_acceleration(const Motion<T>& m, const Acceleration<T>& a, int j, const V2<T>& r,
                                        const V2<T>& v) {
    return a.sddot[j] + a.alpha[j] * perp(r) + m.omega[j] * perp(v);
  }
  template <class T>
  HS_HD static void constraint_acceleration(const Pose<T>& p, const Motion<T>& m, const Acceleration<T>& a, T* out) {
    const V2<T> v = point_velocity(m, NB - 1, p.end);
    const V2<T> acc = point_acceleration(m, a, NB - 1, p.end, v);
    out[0] = acc.x;
    out[1] = acc.y;
  }

  template <class T, class R>
  HS_HD static Actuator<T> actuator(const ParamsOn<R>& P, const Pose<T>& p, const Motion<T>& m) {
    Actuator<T> act;
    const V2<T> d{p.actuator_point.x - P.actuator_ground_x, p.actuator_point.y - P.actuator_ground_y};
    act.length = math::sqrt(dot(d, d));
    act.unit = (1.0 / act.length) * d;
    const V2<T> v = select_at(m.sdot, P.actuator_body) + select_at(m.omega, P.actuator_body) * perp(p.actuator_point);
    act.rate = dot(v, act.unit);
    return act;
  }

  // Generalized residual M'(z) z̈ − Q'(z, ż) of the bodies under gravity,
  // seed 001 eq (11). The actuator enters the equations of motion as
  // − F ∂s/∂z (actuator_jacobian): kept apart because F depends on the
  // pressures while everything here depends on the joint coordinates only,
  // which lets the integrators differentiate the mechanism with respect to
  // the independent coordinates alone.
  template <class T, class R>
  HS_HD static void dynamics_residual(const ParamsOn<R>& P, const Pose<T>& p, const Motion<T>& m,
                                      const Acceleration<T>& a, T* r) {
    // Accumulated wrench about the origin of all bodies outboard of joint i.
    V2<T> force{T(0.0), T(0.0)};
    T moment(0.0);
    for (int j = NB - 1; j >= 0; --j) {
      const auto& B = P.body[j];
      const V2<T> gacc = point_acceleration(m, a, j, p.com[j], m.com_vel[j]);
      // Inertia minus gravity at the CoM; rotational inertia about the CoM.
      const V2<T> fj{B.mass * (gacc.x - P.gravity_x), B.mass * (gacc.y - P.gravity_y)};
      force = force + fj;
      moment = moment + cross(p.com[j], fj) + B.inertia * a.alpha[j];
      // b_jᵀ W: moment about joint j.
      r[j] = moment - cross(p.joint[j], force);
    }
  }

  // ∂s/∂z: turning joint j (j ≤ actuator body) moves r_F by k × (r_F − r_j),
  // which lengthens the actuator by ((k × (r_F − r_j)) · u) = (r_F − r_j) × u.
  // The actuator force F (extension positive) contributes − F ∂s/∂z to the
  // residual (virtual power of F u at r_F).
  template <class T, class R>
  HS_HD static void actuator_jacobian(const ParamsOn<R>& P, const Pose<T>& p, const Actuator<T>& act, T* ds_dz) {
    for (int j = 0; j < NB; ++j)
      ds_dz[j] = j <= P.actuator_body ? cross(p.actuator_point - p.joint[j], act.unit) : T(0.0);
  }

  // Kinetic and potential energy (gravity), for the energy balance.
  template <class T, class R>
  HS_HD static T kinetic_energy(const ParamsOn<R>& P, const Motion<T>& m) {
    T e(0.0);
    for (int j = 0; j < NB; ++j)
      e = e + 0.5 * P.body[j].mass * dot(m.com_vel[j], m.com_vel[j]) + 0.5 * P.body[j].inertia * m.omega[j] * m.omega[j];
    return e;
  }
  template <class T, class R>
  HS_HD static T potential_energy(const ParamsOn<R>& P, const Pose<T>& p) {
    T e(0.0);
    for (int j = 0; j < NB; ++j) e = e - P.body[j].mass * (P.gravity_x * p.com[j].x + P.gravity_y * p.com[j].y);
    return e;
  }
};

}  // namespace hs
