// Seed 001's quick-return mechanism (seed 001 §5, Fig. 5 lost; topology
// reconstructed in docs/models/quick-return.md §2, decision A19) as a
// constrained mechanism in the DAE contract of kernels/linearize
// (actuated_system.hpp): n = 5 relative joint coordinates, m = 4 loop-closure
// equations of two cut translational joints, one degree of freedom.
//
// Topology (docs/models/quick-return.md §2, §6): two branches from the ground.
//   Branch A: body 1 (slotted lever) turns about O by z1; body 2 (link) turns
//   about the lever tip H by z2; body 3 (ram block) turns about the link tip I
//   by z3. Cut translational joint J: body 3 slides along the ground line
//   through r_J at angle α_J (the ram line, y = 5 m).
//   Branch B: body 4 (crank) turns about K by z4; body 5 (slider block) turns
//   about the crank tip L by z5. Cut translational joint M: body 5 slides in
//   the lever's slot, the x axis of body 1 through O.
// Absolute angles: θ1 = z1, θ2 = z1 + z2, θ3 = z1 + z2 + z3, θ4 = z4,
// θ5 = z4 + z5 (all counter-clockwise, radians).
//
// Loop closure (docs/models/quick-return.md §6.3), 4 equations:
//   Φ1 = θ3 − α_J                    J: body 3 keeps the direction of the ram line
//   Φ2 = u_J × (P_J − r_J)           J: body 3's joint point P_J stays on it
//   Φ3 = θ5 − θ1                     M: body 5 keeps the direction of the slot
//   Φ4 = u_1 × (P_M − O)             M: body 5's joint point P_M stays in the slot
// with u_J = (cos α_J, sin α_J), u_1 = (cos θ1, sin θ1), a × b = a_x b_y − a_y b_x.
//
// Equations of motion: from the bodies' frames by virtual power
// (rigid_body_system.hpp, seed 001 eq (8)): e = M(z) z̈ + c(z, ż) − Q_grav(z),
// the residual of seed 001 eqs (11)–(12) without the actuator. The energies
// (kinetic_energy, potential_energy) are written separately from explicit
// planar point velocities, so that tests/test_quick_return.cpp can check the
// residual against Lagrange's equations built from them.
//
// Cylinder (docs/models/quick-return.md §6.1, [A]): from the ground point Q to
// a point F of body 4 (the crank), by default its centre of mass N; s = |F − Q|.
#pragma once
#include <new>

#include "../core/dual.hpp"
#include "../core/small_matrix.hpp"
#include "hydraulically_actuated.hpp"
#include "input_schedule.hpp"
#include "rigid_body_system.hpp"

namespace hs {

// Everything a study can sweep: reals and fixed arrays only (copied to
// GPUs). Lengths in m, angles in rad, masses in kg, inertias in kg·m².
// Defaults: docs/models/quick-return.md §7 (seed001_quick_return() sets all).
// R = double for one instance, Lanes<W> for W in lockstep (every field a
// real: the lanes transpose the whole struct, docs/models/lanes.md §9).
template <class R = double>
struct QuickReturnParamsT {
  using Real = R;
  // Per body, in body coordinates: origin at the body's proximal joint
  // (O, H, I, K, L for bodies 1..5), x axis at the absolute angle θ_j.
  // `distal` is the next body's joint for bodies 1 (H), 2 (I) and 4 (L);
  // for bodies 3 and 5 it is the body's point of its cut translational
  // joint (P_J, P_M), by default the hinge itself (0, 0).
  struct Body {
    R mass;     // [kg]
    R inertia;  // about the centre of mass [kg·m²]
    R com_x, com_y;
    R distal_x, distal_y;
  };
  Body body[5];
  R lever_pivot_x = 0.0, lever_pivot_y = 0.0;  // O: ground pivot of body 1 [m]
  R crank_pivot_x = 0.0, crank_pivot_y = 3.0;  // K: ground pivot of body 4 [m]
  // Ram line of joint J: through (ram_line_x, ram_line_y) with direction
  // α_J = ram_line_angle, which is also the absolute angle θ3 that body 3
  // keeps. Φ1 is linear, θ3 − α_J: α_J must be the turn the joint
  // coordinates give (π for the seed's z(0)), not α_J ± 2π.
  R ram_line_x = 0.0, ram_line_y = 5.0;
  R ram_line_angle = kPi;
  R gravity_x = 0.0, gravity_y = -9.81;  // [m/s²]
  // Cylinder: ground point Q and point F on body 4 (the crank), in its frame.
  R actuator_ground_x = -0.96, actuator_ground_y = 3.0;
  R actuator_local_x = 0.5, actuator_local_y = 0.0;
  // Initial relative joint angles z(0) [rad]. z4 (the driving crank angle)
  // is held; the others are guesses that name the assembly mode
  // (docs/models/quick-return.md §6.4).
  R initial_angle[5];
};
using QuickReturnParams = QuickReturnParamsT<>;

struct QuickReturnDae {
  using Params = QuickReturnParams;
  // The parameters per lane (lockstep lanes, docs/models/lanes.md §9): every
  // function but the assembly guess takes them.
  template <class R>
  using ParamsOn = QuickReturnParamsT<R>;
  static constexpr int n = 5;   // z1..z5, relative joint angles
  static constexpr int m = 4;   // J and M, two equations each
  static constexpr int ni = 1;  // one degree of freedom
  static constexpr int nb = 5;  // bodies, for rigid_body_residual
  enum Coordinate { z1 = 0, z2, z3, z4, z5 };

  // The crank angle z4: the coordinate the cylinder drives, held by the
  // equilibrium and independent in the reduced Jacobian. Seed 001 reports
  // that full pivoting picks z4 as independent throughout its work cycle
  // (docs/models/quick-return.md §1, checked at z(0) in §6.4).
  HS_HD static void driving(int* indep) { indep[0] = z4; }
  HS_HD static int driving_coordinate() { return z4; }

  // --- Kinematics (docs/models/quick-return.md §6.2) -------------------------
  // Absolute angle of a body with its rate and acceleration.
  template <class T>
  struct Angle {
    T t;         // θ itself (the linear constraints need the turn, not just cos, sin)
    T c, s;      // cos θ, sin θ
    T w, a;      // θ̇, θ̈
  };
  // A point with its velocity and acceleration.
  template <class T>
  struct Point {
    V2<T> p, v, a;
  };
  // Everything the mechanism needs, at one state.
  template <class T>
  struct Kinematics {
    Angle<T> th[5];
    Point<T> H, I, L;  // joints: lever tip, link tip (ram hinge), crank tip
    Point<T> PJ, PM;   // points of the cut translational joints on bodies 3, 5
    Point<T> com[5];   // centres of mass
    Point<T> F;        // cylinder point on body 4
  };

  // R(θ) w for a body-fixed w: the one rotation every point takes.
  template <class T, class R>
  HS_HD static V2<T> rotated(const Angle<T>& th, const R& wx, const R& wy) {
    return V2<T>{th.c * wx - th.s * wy, th.s * wx + th.c * wy};
  }
  // p = q + R(θ) w for a body-fixed w: ṗ = q̇ + θ̇ k × Rw, p̈ = q̈ + θ̈ k × Rw − θ̇² Rw.
  template <class T, class R>
  HS_HD static Point<T> on_body(const Point<T>& q, const Angle<T>& th, const R& wx, const R& wy) {
    const V2<T> r = rotated(th, wx, wy);
    const V2<T> k_r = perp(r);
    // Built in place from its members (no zeroed point assigned member by member).
    return Point<T>{q.p + r, q.v + th.w * k_r, q.a + th.a * k_r - (th.w * th.w) * r};
  }
  template <class T, class R>
  HS_HD static Point<T> ground(const R& x, const R& y) {
    Point<T> g;
    g.p = V2<T>{T(x), T(y)};
    g.v = V2<T>{T(0.0), T(0.0)};
    g.a = g.v;
    return g;
  }
  // A parent point's position: a ground pivot's (positions only) or a body point's.
  template <class T>
  HS_HD static const V2<T>& position_of(const V2<T>& p) { return p; }
  template <class T>
  HS_HD static const V2<T>& position_of(const Point<T>& q) { return q.p; }

  // The mechanism's points, listed once (docs/models/quick-return.md §6.2):
  // each lies on body j at the body-fixed vector (wx, wy) from its parent
  // point. The loop closure's five first (branch A: O → H → I → PJ; branch
  // B: K → L → PM), then, all_points, the centres of mass and the cylinder
  // point F. place(point, parent, j, wx, wy) writes one point, from the
  // ground pivots O and K given in place's own parent type.
  template <bool all_points, class R, class T, class Ground, class Place>
  HS_HD static void place_points(Kinematics<T>& k, const ParamsOn<R>& P, const Ground& O, const Ground& K,
                                 const Place& place) {
    const auto& b = P.body;
    place(k.H, O, 0, b[0].distal_x, b[0].distal_y);
    place(k.I, k.H, 1, b[1].distal_x, b[1].distal_y);
    place(k.PJ, k.I, 2, b[2].distal_x, b[2].distal_y);
    place(k.L, K, 3, b[3].distal_x, b[3].distal_y);
    place(k.PM, k.L, 4, b[4].distal_x, b[4].distal_y);
    if constexpr (all_points) {
      place(k.com[0], O, 0, b[0].com_x, b[0].com_y);
      place(k.com[1], k.H, 1, b[1].com_x, b[1].com_y);
      place(k.com[2], k.I, 2, b[2].com_x, b[2].com_y);
      place(k.com[3], K, 3, b[3].com_x, b[3].com_y);
      place(k.com[4], k.L, 4, b[4].com_x, b[4].com_y);
      place(k.F, K, 3, P.actuator_local_x, P.actuator_local_y);
    }
  }

  // Positions only (no rates given): every angle's t, c, s and every point's
  // p — or, all_points = false, only the points the loop closure reads (H,
  // I, PJ, L, PM; constraints_of without Φ̈). The angles' rates and the
  // points' velocities and accelerations are not written: the callers that
  // give no rates (the constraints and their Jacobian on jets, the frames of
  // the rigid-body residual, the potential energy) read none. Computing them
  // at zero rates, jets multiplied by zeros for every point, was most of the
  // quick-return's time (perf, docs/models/lanes.md §9,
  // docs/models/quick-return.md §6.2). The positions are on_body's p, the
  // same operations (the same bits).
  template <bool all_points, class R, class T>
  HS_HD static const Kinematics<T>& positions(Kinematics<T>& k, const ParamsOn<R>& P, const T* z) {
    set_angles(k, z);
    const V2<T> O{T(P.lever_pivot_x), T(P.lever_pivot_y)};
    const V2<T> K{T(P.crank_pivot_x), T(P.crank_pivot_y)};
    place_points<all_points>(k, P, O, K, [&](Point<T>& point, const auto& parent, int j, const R& wx, const R& wy) {
      // in place: k is unconstructed storage
      new (&point.p) V2<T>(position_of<T>(parent) + rotated(k.th[j], wx, wy));
    });
    return k;
  }
  // The absolute angles θ_j of the relative coordinates, with cos and sin.
  template <class T>
  HS_HD static void set_angles(Kinematics<T>& k, const T* z) {
    const T theta[5] = {z[0], z[0] + z[1], z[0] + z[1] + z[2], z[3], z[3] + z[4]};
    for (int j = 0; j < 5; ++j) {
      k.th[j].t = theta[j];
      math::sincos(theta[j], &k.th[j].s, &k.th[j].c);
    }
  }

  // Positions always; velocities when zd is given, accelerations when zdd is
  // also given (otherwise zero). Without zd, positions() alone (the rates
  // are then not written).
  // Written into k, every member it promises (the callers keep k in Uninitialized
  // storage: a zeroed Kinematics of the lanes' jets is ~80 KB, docs/models/lanes.md §9).
  template <class R, class T>
  HS_HD static const Kinematics<T>& kinematics(Kinematics<T>& k, const ParamsOn<R>& P, const T* z, const T* zd = nullptr,
                                               const T* zdd = nullptr) {
    if (!zd) return positions<true>(k, P, z);
    set_angles(k, z);
    k.th[0].w = zd[0];
    k.th[1].w = zd[0] + zd[1];
    k.th[2].w = k.th[1].w + zd[2];
    k.th[3].w = zd[3];
    k.th[4].w = zd[3] + zd[4];
    if (zdd) {
      k.th[0].a = zdd[0];
      k.th[1].a = zdd[0] + zdd[1];
      k.th[2].a = k.th[1].a + zdd[2];
      k.th[3].a = zdd[3];
      k.th[4].a = zdd[3] + zdd[4];
    } else {
      for (int j = 0; j < 5; ++j) k.th[j].a = T(0.0);
    }
    const Point<T> O = ground<T>(P.lever_pivot_x, P.lever_pivot_y);
    const Point<T> K = ground<T>(P.crank_pivot_x, P.crank_pivot_y);
    // Each point constructed in place from on_body's result (no copy: k is
    // unconstructed storage, see above).
    place_points<true>(k, P, O, K, [&](Point<T>& point, const Point<T>& parent, int j, const R& wx, const R& wy) {
      new (&point) Point<T>(on_body(parent, k.th[j], wx, wy));
    });
    return k;
  }

  // --- Loop closure (docs/models/quick-return.md §6.3) ----------------------
  // Φ(z) from positions; Φ̈ from the same kinematics at (z, ż, z̈):
  // φ̈ = Φ_z z̈ + (Φ_z ż)_z ż, the acceleration constraint (z̈ = 0: the bias).
  template <class R, class T>
  HS_HD static void constraints(const ParamsOn<R>& P, const T* z, T* phi) {
    Uninitialized<Kinematics<T>, 1> k;
    constraints_of(P, positions<false>(k[0], P, z), phi, static_cast<T*>(nullptr));
  }
  template <class R, class T>
  HS_HD static void constraint_acceleration(const ParamsOn<R>& P, const T* z, const T* zd, const T* zdd, T* phidd) {
    T phi[m];
    Uninitialized<Kinematics<T>, 1> k;
    constraints_of(P, kinematics(k[0], P, z, zd, zdd), phi, phidd);
  }
  // Φ and, when phidd is given, Φ̈ (the kinematics must carry ż, z̈). For
  // Φ2, Φ4 = u × (P − r) with u turning at θ̇ (θ̇ = 0 for the ground line):
  //   d²/dt² [u × d] = ü × d + 2 u̇ × ḋ + u × d̈,  u̇ = θ̇ k × u, ü = θ̈ k × u − θ̇² u.
  template <class R, class T>
  HS_HD static void constraints_of(const ParamsOn<R>& P, const Kinematics<T>& k, T* phi, T* phidd) {
    R ca, sa;
    math::sincos(P.ram_line_angle, &sa, &ca);
    const V2<T> uJ{T(ca), T(sa)};
    const V2<T> dJ{k.PJ.p.x - P.ram_line_x, k.PJ.p.y - P.ram_line_y};
    const V2<T> u1{k.th[0].c, k.th[0].s};
    const V2<T> dM{k.PM.p.x - P.lever_pivot_x, k.PM.p.y - P.lever_pivot_y};
    phi[0] = k.th[2].t - P.ram_line_angle;
    phi[1] = cross(uJ, dJ);
    phi[2] = k.th[4].t - k.th[0].t;
    phi[3] = cross(u1, dM);
    if (phidd) {
      phidd[0] = k.th[2].a;
      phidd[1] = cross(uJ, k.PJ.a);
      phidd[2] = k.th[4].a - k.th[0].a;
      const T w = k.th[0].w;
      const V2<T> u1d = w * perp(u1);
      const V2<T> u1dd = k.th[0].a * perp(u1) - (w * w) * u1;
      phidd[3] = cross(u1dd, dM) + 2.0 * cross(u1d, k.PM.v) + cross(u1, k.PM.a);
    }
  }
  // --- Cylinder (docs/models/quick-return.md §6.1) ---------------------------
  // s = |F − Q|, F on the crank: depends on z4 only.
  template <class R, class T>
  HS_HD static T actuator_length(const ParamsOn<R>& P, const T* z) {
    T s4, c4;
    math::sincos(z[3], &s4, &c4);
    const T fx = P.crank_pivot_x + c4 * P.actuator_local_x - s4 * P.actuator_local_y - P.actuator_ground_x;
    const T fy = P.crank_pivot_y + s4 * P.actuator_local_x + c4 * P.actuator_local_y - P.actuator_ground_y;
    return math::sqrt(fx * fx + fy * fy);
  }

  // --- Equations of motion (docs/models/quick-return.md §6.5) ----------------
  // Rigid-body view for rigid_body_residual: planar frames R_z(θ_j) and
  // centres of mass (x, y, 0).
  template <class R, class S>
  HS_HD static void frames(const ParamsOn<R>& P, const S* z, BodyFrame<S>* f) {
    Uninitialized<Kinematics<S>, 1> stored;
    const Kinematics<S>& k = kinematics(stored[0], P, z);
    for (int j = 0; j < nb; ++j) {
      f[j].R[0][0] = k.th[j].c;  f[j].R[0][1] = -k.th[j].s; f[j].R[0][2] = S(0.0);
      f[j].R[1][0] = k.th[j].s;  f[j].R[1][1] = k.th[j].c;  f[j].R[1][2] = S(0.0);
      f[j].R[2][0] = S(0.0);     f[j].R[2][1] = S(0.0);     f[j].R[2][2] = S(1.0);
      f[j].com[0] = k.com[j].p.x;
      f[j].com[1] = k.com[j].p.y;
      f[j].com[2] = S(0.0);
    }
  }
  // Planar bodies: only Ī_zz does work (ω = θ̇ k, so ω × Īω = 0).
  template <class R>
  HS_HD static BodyInertiaT<R> inertia(const ParamsOn<R>& P, int b) {
    return {P.body[b].mass, {R(0.0), R(0.0), P.body[b].inertia}};
  }

  // e = M(z) z̈ + c(z, ż) − Q_grav(z): seed 001 eqs (8), (11)–(12) without
  // the cylinder (ActuatedSystem adds −F ∂s/∂z).
  template <class R, class T>
  HS_HD static void mechanism_residual(const ParamsOn<R>& P, const T* z, const T* zd, const T* zdd, T* e) {
    mechanism_residual_along(P, UnitDirections<n>{}, z, zd, zdd, e);
  }
  // Dᵀe along the directions (the linearization's admissible motions).
  template <class R, class Dir, class T>
  HS_HD static void mechanism_residual_along(const ParamsOn<R>& P, const Dir& dir, const T* z, const T* zd,
                                             const T* zdd, T* e_dir) {
    const R gravity[3] = {P.gravity_x, P.gravity_y, R(0.0)};
    rigid_body_residual_along<QuickReturnDae>(P, gravity, dir, z, zd, zdd, e_dir);
  }

  // --- Energies (docs/models/quick-return.md §6.5) ---------------------------
  // T = Σ ½ m_j |ġ_j|² + ½ I_j θ̇_j², from explicit point velocities.
  template <class R, class T>
  HS_HD static T kinetic_energy(const ParamsOn<R>& P, const T* x, const T* xd) {
    Uninitialized<Kinematics<T>, 1> stored;
    const Kinematics<T>& k = kinematics(stored[0], P, x, xd);
    T E(0.0);
    for (int j = 0; j < nb; ++j) {
      const auto& v = k.com[j].v;
      E += 0.5 * P.body[j].mass * dot(v, v) + 0.5 * P.body[j].inertia * (k.th[j].w * k.th[j].w);
    }
    return E;
  }
  // V = −Σ m_j a_g · g_j (zero at the origin).
  template <class R, class T>
  HS_HD static T potential_energy(const ParamsOn<R>& P, const T* x) {
    Uninitialized<Kinematics<T>, 1> stored;
    const Kinematics<T>& k = kinematics(stored[0], P, x);
    T E(0.0);
    for (int j = 0; j < nb; ++j)
      E -= P.body[j].mass * (P.gravity_x * k.com[j].p.x + P.gravity_y * k.com[j].p.y);
    return E;
  }

  // --- Assembly (docs/models/quick-return.md §6.4) ---------------------------
  // z4 = initial_angle[3] held; the other angles in closed form, in the
  // assembly mode the guessed angles name. If a dyad cannot close, the
  // guesses are returned as they are (Newton then fails: constraint_failure).
  HS_HD static void initial_guess(const Params& P, double* z) {
    for (int j = 0; j < n; ++j) z[j] = P.initial_angle[j];
    const auto& b = P.body;
    // Branch B: the slider point P_M = L + R(θ1) d5 in the slot through O
    // along u_1: |L − O| sin(φ_L − θ1) + d5_y = 0, two roots θ1 a half-turn
    // apart; the guess picks the side of O the slider is on (sign of
    // cos(θ1 − φ_L)).
    const double c4 = math::cos(z[3]), s4 = math::sin(z[3]);
    const double Lx = P.crank_pivot_x + c4 * b[3].distal_x - s4 * b[3].distal_y - P.lever_pivot_x;
    const double Ly = P.crank_pivot_y + s4 * b[3].distal_x + c4 * b[3].distal_y - P.lever_pivot_y;
    const double rho = ::sqrt(Lx * Lx + Ly * Ly);
    if (!(rho > ::fabs(b[4].distal_y))) return;
    const double phiL = ::atan2(Ly, Lx);
    const double a5 = ::asin(b[4].distal_y / rho);
    double th1 = math::cos(P.initial_angle[0] - phiL) >= 0.0 ? phiL + a5 : phiL - kPi - a5;
    th1 = near_turn(th1, P.initial_angle[0]);
    // Branch A: I = H + ℓ2 (cos(θ2 + β2), sin(θ2 + β2)) with P_J on the ram
    // line: u_J × (H − r_J) + ℓ2 sin(θ2 + β2 − α_J) + d3_y = 0; the guess
    // picks the root by the sign of cos(θ2 + β2 − α_J).
    const double c1 = math::cos(th1), s1 = math::sin(th1);
    const double Hx = P.lever_pivot_x + c1 * b[0].distal_x - s1 * b[0].distal_y;
    const double Hy = P.lever_pivot_y + s1 * b[0].distal_x + c1 * b[0].distal_y;
    const double ca = math::cos(P.ram_line_angle), sa = math::sin(P.ram_line_angle);
    const double l2 = ::sqrt(b[1].distal_x * b[1].distal_x + b[1].distal_y * b[1].distal_y);
    const double beta2 = ::atan2(b[1].distal_y, b[1].distal_x);
    const double offset = ca * (Hy - P.ram_line_y) - sa * (Hx - P.ram_line_x) + b[2].distal_y;
    if (!(l2 > ::fabs(offset))) return;
    const double a2 = ::asin(-offset / l2);
    const double guess2 = P.initial_angle[0] + P.initial_angle[1];
    const double rel = math::cos(guess2 + beta2 - P.ram_line_angle) >= 0.0 ? a2 : kPi - a2;
    const double th2 = rel - beta2 + P.ram_line_angle;
    z[0] = th1;
    z[1] = near_turn(th2 - th1, P.initial_angle[1]);
    z[2] = P.ram_line_angle - (z[0] + z[1]);  // Φ1 = 0 exactly, not modulo 2π
    z[4] = z[0] - z[3];                       // Φ3 = 0 exactly
  }
  // a + 2πk closest to the reference.
  HS_HD static double near_turn(double a, double ref) {
    const double two_pi = 2.0 * kPi;
    return a + two_pi * ::floor((ref - a) / two_pi + 0.5);
  }
};

// The hydraulically actuated quick-return: the mechanism's parameters with
// the circuit, friction and input schedule (ActuatedParams, as the four-bar).
using QuickReturnModelParams = ActuatedParams<QuickReturnParams>;

// Seed 001 eq (47) work cycle (docs/models/quick-return.md §1, A9: the last
// zero segment is 8–10 s): 0 V on [0, 1), −10 V on [1, 4) (cylinder pulls),
// 0 on [4, 6.5), +10 V on [6.5, 8) (pushes), 0 on [8, 10].
inline InputSchedule seed001_quick_return_cycle() {
  InputSchedule s;
  const double t[] = {0.0, 1.0, 4.0, 6.5, 8.0}, u[] = {0.0, -10.0, 0.0, 10.0, 0.0};
  s.count = 5;
  for (int i = 0; i < 5; ++i) { s.start[i] = t[i]; s.value[i] = u[i]; }
  return s;
}

// A rectangular beam along the body x axis from its proximal joint: CoM at
// mid-length, I = mL²/12; the distal joint at its far end (seed 001 §5).
inline QuickReturnParams::Body quick_return_beam(double length, double mass) {
  return {mass, mass * length * length / 12.0, 0.5 * length, 0.0, length, 0.0};
}
// A square block of side L hinged at its centre of mass: I = m(L² + L²)/12 =
// mL²/6 (seed 001 §5), CoM and cut-joint point at the hinge
// (docs/models/quick-return.md §6.2).
inline QuickReturnParams::Body quick_return_block(double side, double mass) {
  return {mass, mass * side * side / 6.0, 0.0, 0.0, 0.0, 0.0};
}

// Seed 001 quick-return (docs/models/quick-return.md §1, §7): bodies 1, 2, 4
// beams of 5 / 1.2 / 1 m and 25 / 12 / 100 kg, bodies 3, 5 blocks of 0.3 m
// and 3 / 30 kg [S]; O = (0, 0), K = (0, 3) m [S/D]; ram line y = 5 m at
// α_J = π [D]; cylinder from Q = (−0.96, 3) m [S] to the crank's centre of
// mass N [A]; z(0) = (76.22°, 96.89°, 6.89°, 30.59°, 45.63°) [S] with z4 held;
// gravity −y, 9.81 m/s² [S]. Circuit: the four-bar's defaults ("identical"
// actuator, seed 001 §5), p3(0) = 3.5 MPa. Its static load needs
// p2(0) = 2.004 MPa < pP = 7.6 MPa (the cylinder pulls: F0 = −4151.56 N,
// docs/models/quick-return.md §6.6).
inline QuickReturnModelParams seed001_quick_return() {
  const double deg = kPi / 180.0;
  QuickReturnModelParams P;
  auto& m = P.mechanism;
  m.body[0] = quick_return_beam(5.0, 25.0);   // lever: H at its tip
  m.body[1] = quick_return_beam(1.2, 12.0);   // link: I at its tip
  m.body[2] = quick_return_block(0.3, 3.0);   // ram block, CoM at I [A]
  m.body[3] = quick_return_beam(1.0, 100.0);  // crank: L at its tip, N its CoM
  m.body[4] = quick_return_block(0.3, 30.0);  // slider block, CoM at L [S]
  m.lever_pivot_x = 0.0; m.lever_pivot_y = 0.0;
  m.crank_pivot_x = 0.0; m.crank_pivot_y = 3.0;
  m.ram_line_x = 0.0; m.ram_line_y = 5.0;
  m.ram_line_angle = kPi;
  m.gravity_x = 0.0; m.gravity_y = -9.81;
  m.actuator_ground_x = -0.96; m.actuator_ground_y = 3.0;
  m.actuator_local_x = 0.5; m.actuator_local_y = 0.0;
  const double z0[5] = {76.22, 96.89, 6.89, 30.59, 45.63};
  for (int j = 0; j < 5; ++j) m.initial_angle[j] = z0[j] * deg;
  P.actuator[0].circuit = CircuitParams{};  // p3(0) = rod_side_initial_pressure = 3.5 MPa
  P.input = seed001_quick_return_cycle();
  return P;
}

}  // namespace hs
