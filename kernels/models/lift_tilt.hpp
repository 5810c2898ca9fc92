// Seed 004's parallel–serial Lift + Tilt manipulator (Petrović & Mattila,
// Mech. Mach. Theory 170 (2022)), planar, as a mechanism of the engine
// (docs/models/manipulator.md §1–§5, §11).
//
// Two revolute segments j = 1 (lift), 2 (tilt) in series. Each is a closed
// triangle loop: link L_j of the preceding body (the base for j = 1), link
// L_j1 of the following body turning in the main joint by q_j, and a
// hydraulic cylinder whose case pivots on L_j (q_j1-joint) and whose piston
// and rod pivot on L_j1 (q_j2-joint). Case and piston+rod are rigid bodies
// with mass (seed 004 §3, not massless actuators).
//
// Loop closure, seed 004 eqs (18)–(20) in the robust form of
// docs/models/manipulator.md §2: with p = (L_j + L_j1 cos q_j, L_j1 sin q_j)
// the rod pivot in {B0j},
//   x_j + x_j0 = |p|,   q_j1 = atan2(p_y, p_x),   q_j2 = q_j − q_j1,
// and the rates of eqs (21)–(23) as the derivatives of these along q_j.
//
// Dynamics: the virtual decomposition's Newton–Euler recursion, base → tip
// for the twists (eqs 24–31), one rigid-body equation per subsystem
// (eq 7/49: M_A d/dt V + C_A(ω) V + G_A = F*_A), tip → base for the forces
// with the closed forms of Theorems 3 and 4 (eqs 68, 69). The generalized
// force on q_j is f_cj ∂x_j/∂q_j (virtual power, §2.4), so the inverse
// dynamics τ(q, q̇, q̈) = M(q) q̈ + h(q, q̇) is the mechanism residual the
// integrators need; its q̈-derivative (dual numbers) is M. The time
// derivatives of the body-frame twists come from evaluating the same twist
// recursion on a time jet Dual<1> (q + q̇ε, q̇ + q̈ε): d/dt ^A V exactly,
// without hand-written acceleration formulas. The controller (kernels/
// control/vdc.hpp) runs the same recursion with required rates (eqs 38–45,
// 70–77).
//
// In the engine (DAE contract, kernels/models/dae_mechanism.hpp) the
// coordinates are x = (q_1, q_2, x_1, x_2): the two main joint angles and
// the two piston strokes, tied by the loop-closure equations (18)
//   Φ_j = x_j + x_j0 − |p_j(q_j)| = 0,
// so that each cylinder's stroke is a coordinate (the actuator length the
// circuit sees, s_j = x_j; pin to pin it is x_j + x_j0). The
// strokes carry no inertia of their own (the cylinder bodies move with
// q_j, eqs 19–23): the residual's x_j rows are zero, and the double step's
// projection R_zᵀ onto the constraint manifold turns the cylinder force on
// x_j into f_cj ∂x_j/∂q_j on q_j (docs/models/manipulator.md §3, §11.1).
// tests/test_manipulator.cpp checks τ against Lagrange's equations built
// from the energies of independently written world-frame kinematics.
#pragma once
#include "../core/dual.hpp"
#include "../core/small_matrix.hpp"
#include "../core/uninitialized.hpp"
#include "../hydraulics/components.hpp"

namespace hs {

// ---- parameters ------------------------------------------------------------

// A planar rigid body in its own frame: mass, centre of mass, moment of
// inertia about the centre of mass (docs/models/manipulator.md §3).
// R: double, or Lanes<W> for W instances in lockstep (kernels/core/lanes.hpp;
// every parameter of the manipulator is a real).
template <class R = double>
struct PlanarBodyT {
  R mass;     // [kg]
  R com_x, com_y;  // [m]
  R inertia;  // I_zz about the centre of mass [kg·m²]
};
using PlanarBody = PlanarBodyT<double>;

// One revolute segment's triangle (seed 004 Fig. 4, eqs 18–23).
template <class R = double>
struct RevoluteSegmentT {
  R base_link;     // L_j: q_j1-joint → q_j-joint [m]
  R rod_link;      // L_j1: q_j-joint → q_j2-joint [m]
  R zero_length;   // x_j0: pin-to-pin length at zero stroke [m]
  R rod_length;    // l_cj: piston end → q_j2-joint [m]
  PlanarBodyT<R> link;      // subsystem B1j (link L_j1 merged with the mass object O_1j)
  PlanarBodyT<R> cylinder;  // B3j, in {B3j} (x along the cylinder from the q_j1-joint)
  PlanarBodyT<R> piston;    // B4j, in {B4j} (x along the cylinder from the piston end)
};
using RevoluteSegment = RevoluteSegmentT<double>;

// Defaults: docs/models/manipulator.md §11.2 (geometry and inertias from the
// authors' public material [R], the payload an assumption [A]).
template <class R = double>
struct LiftTiltParamsT {
  using Real = R;
  RevoluteSegmentT<R> segment[2];
  // Lift boom part 2: the lift boom from the q_12-joint to the tilt joint,
  // subsystem B02 = {Bc2}, in {Bc2} (seed 004 merges it with L_21's base).
  PlanarBodyT<R> lift_boom_tip;
  // Base: {Bc1} at (base_x, base_y) in the world, turned by base_angle (α1).
  R base_x, base_y, base_angle;
  // {Bc2} in {Tc1} (the q_12-joint, oriented as {B11}): offset and turn α2.
  R joint2_offset_x, joint2_offset_y, joint2_angle;
  // Tool centre point in {B12}, and a payload: point mass (plus its own
  // inertia about its centre) at (payload_x, payload_y) in {B12}.
  R tcp_x, tcp_y;
  R payload_mass, payload_x, payload_y, payload_inertia;
  R gravity_x, gravity_y;  // world gravity acceleration [m/s²] (y up)
  // Initial main joint angles q_1, q_2 [rad] (held at assembly).
  R initial_angle[2];
};
using LiftTiltParams = LiftTiltParamsT<double>;

// ---- planar frames (docs/models/manipulator.md §2) ---------------------------

// ^A U_B of seed 004 eq (5) reduced to the plane: ^A R_B = R(θ), ^A r_AB = r.
// Twists V = (v_x, v_y, ω) and wrenches F = (f_x, f_y, m_z).
template <class T>
struct PlanarTransform {
  T c, s;    // cos θ, sin θ
  T rx, ry;  // origin of B in A
};
template <class T>
struct Planar3 {
  T x, y, w;  // (v_x, v_y, ω) or (f_x, f_y, m_z)
};

// ^B V = ^A U_Bᵀ ^A V (eq 3): v_B = Rᵀ(v_A + ω × r), ω_B = ω_A.
template <class T>
HS_HD HS_FORCEINLINE Planar3<T> twist_to(const PlanarTransform<T>& U, const Planar3<T>& V) {
  const T vx = V.x - V.w * U.ry, vy = V.y + V.w * U.rx;
  return {U.c * vx + U.s * vy, U.c * vy - U.s * vx, V.w};
}
// ^A F = ^A U_B ^B F (eq 4): f_A = R f_B, m_A = m_B + r × (R f_B).
template <class T>
HS_HD HS_FORCEINLINE Planar3<T> wrench_from(const PlanarTransform<T>& U, const Planar3<T>& F) {
  const T fx = U.c * F.x - U.s * F.y, fy = U.s * F.x + U.c * F.y;
  return {fx, fy, F.w + U.rx * fy - U.ry * fx};
}
template <class T>
HS_HD HS_FORCEINLINE Planar3<T> operator+(const Planar3<T>& a, const Planar3<T>& b) {
  return {a.x + b.x, a.y + b.y, a.w + b.w};
}

// The rigid-body equation of seed 004 eq (7)/(49) (matrices of
// docs/models/manipulator.md §3, planar form):
//   F* = M dV + C(ω) V + G,   G = −m (Rᵀ g, c × Rᵀ g)
// with ω the body's actual angular velocity (eq 8 uses it for the required
// twist too), (cos θ, sin θ) its absolute orientation and g the world
// gravity acceleration.
template <class T, class Tw, class R>
HS_HD HS_FORCEINLINE Planar3<T> net_wrench(const PlanarBodyT<R>& b, const Planar3<T>& V, const Planar3<T>& dV, const Tw& omega,
                                           const T& cos_abs, const T& sin_abs, const R& gx, const R& gy) {
  const R m = b.mass, cx = b.com_x, cy = b.com_y;
  const R I_o = b.inertia + m * (cx * cx + cy * cy);
  const T gbx = cos_abs * gx + sin_abs * gy, gby = cos_abs * gy - sin_abs * gx;  // Rᵀ g
  Planar3<T> F;
  F.x = m * (dV.x - cy * dV.w) + omega * (-m * V.y - m * cx * V.w) - m * gbx;
  F.y = m * (dV.y + cx * dV.w) + omega * (m * V.x - m * cy * V.w) - m * gby;
  F.w = -m * cy * dV.x + m * cx * dV.y + I_o * dV.w + omega * (m * cx * V.x + m * cy * V.y) - m * (cx * gby - cy * gbx);
  return F;
}

// Kinetic energy ½ Vᵀ M V of a body with twist V in its own frame.
template <class T, class R>
HS_HD HS_FORCEINLINE T body_kinetic_energy(const PlanarBodyT<R>& b, const Planar3<T>& V) {
  const R m = b.mass, cx = b.com_x, cy = b.com_y;
  const R I_o = b.inertia + m * (cx * cx + cy * cy);
  return 0.5 * m * (V.x * V.x + V.y * V.y) + m * V.w * (cx * V.y - cy * V.x) + 0.5 * I_o * V.w * V.w;
}

// Body B12 with a payload of mass payload_mass merged in (point mass at the
// payload's position plus its own inertia): one subsystem, as seed 004
// merges O_1j with L_j1. The plant's payload is P.payload_mass; a controller
// passes the mass its model assumes. A body of no mass has no centre and no
// inertia (zero: on lanes per lane, both sides computed).
template <class R>
HS_HD inline PlanarBodyT<R> tilt_with_payload(const LiftTiltParamsT<R>& P, const R& payload_mass) {
  const PlanarBodyT<R>& b = P.segment[1].link;
  const R m = b.mass + payload_mass;
  const auto massive = m > 0.0;
  const R divisor = choose(massive, m, R(1.0));
  PlanarBodyT<R> out;
  out.mass = m;
  out.com_x = (b.mass * b.com_x + payload_mass * P.payload_x) / divisor;
  out.com_y = (b.mass * b.com_y + payload_mass * P.payload_y) / divisor;
  auto d2 = [&](const R& x, const R& y) { return (x - out.com_x) * (x - out.com_x) + (y - out.com_y) * (y - out.com_y); };
  out.inertia = b.inertia + b.mass * d2(b.com_x, b.com_y) + P.payload_inertia + payload_mass * d2(P.payload_x, P.payload_y);
  out.com_x = choose(massive, out.com_x, R(0.0));
  out.com_y = choose(massive, out.com_y, R(0.0));
  out.inertia = choose(massive, out.inertia, R(0.0));
  return out;
}

// ---- one segment's loop (eqs 18–23) ------------------------------------------

template <class T>
struct SegmentPose {
  T c, s;          // cos q_j, sin q_j
  T length;        // x_j + x_j0 = |p|
  T stroke;        // x_j
  T c1, s1;        // cos q_j1, sin q_j1 (cylinder angle)
  T c2, s2;        // cos q_j2, sin q_j2 (rod-end angle)
  T dx_dq;         // ∂x_j/∂q_j = −L_j L_j1 sin q_j / |p|  (eq 21)
  T dq1_dq;        // ∂q_j1/∂q_j = L_j1 (p_x cos q_j + p_y sin q_j) / |p|²  (eq 22 with 21)
};

template <class T, class R>
HS_HD HS_FORCEINLINE SegmentPose<T> segment_pose(const RevoluteSegmentT<R>& g, const T& q) {
  SegmentPose<T> o;
  math::sincos(q, &o.s, &o.c);  // one argument reduction for both (the same bits as cos, sin apart)
  const T px = g.base_link + g.rod_link * o.c, py = g.rod_link * o.s;
  const T l2 = px * px + py * py;
  o.length = math::sqrt(l2);
  o.stroke = o.length - g.zero_length;
  const T inv_l = 1.0 / o.length;
  o.c1 = px * inv_l;
  o.s1 = py * inv_l;
  // q_j2 = q_j − q_j1 (the loop closes, docs/models/manipulator.md §2).
  o.c2 = o.c * o.c1 + o.s * o.s1;
  o.s2 = o.s * o.c1 - o.c * o.s1;
  o.dx_dq = -g.base_link * g.rod_link * o.s * inv_l;
  o.dq1_dq = g.rod_link * (px * o.c + py * o.s) / l2;
  return o;
}

// ---- the manipulator --------------------------------------------------------

struct LiftTilt {
  using Params = LiftTiltParams;
  template <class R>
  using ParamsOn = LiftTiltParamsT<R>;
  static constexpr int ndof = 2;  // q_1, q_2
  static constexpr int nb = 7;    // subsystems with a rigid-body equation
  // Subsystems (seed 004 eq 94 for n = 2, no prismatic segment; the base
  // B01 is fixed and carries no equation).
  enum Body { B11 = 0, B31, B41, B02, B12, B32, B42 };

  // Twists of every subsystem in its own frame and their absolute
  // orientations, at joint angles q with main-joint rates qd (actual or
  // required, eqs 24–31 / 38–45): the cylinder rates follow from q̇_j by
  // eqs (21)–(23) at the pose q.
  template <class T>
  struct Twists {
    Planar3<T> V[nb];
    T cos_abs[nb], sin_abs[nb];
    SegmentPose<T> seg[2];
  };

  template <class R>
  HS_HD static PlanarTransform<R> joint2_transform(const ParamsOn<R>& P) {
    // ^{Tc1}U_{Bc2}: constant (seed 004 eq 31, {E11} = {Bc2}).
    // math::sincos like every kernel: one polynomial on the host for one
    // instance and for lanes (docs/models/lanes.md §3, kernels/core/trig.hpp).
    R c, s;
    math::sincos(P.joint2_angle, &s, &c);
    return {c, s, P.joint2_offset_x, P.joint2_offset_y};
  }

  template <class T, class R>
  HS_HD static void rotate(const T& c, const T& s, const R& ca, const R& sa, T& co, T& so) {
    co = c * ca - s * sa;
    so = s * ca + c * sa;
  }

  // Base → tip: eqs (24)–(31) for j = 1, 2 with ^{Bc1}V = 0 (fixed base).
  template <class T, class R>
  HS_HD static Twists<T> twists(const ParamsOn<R>& P, const T* q, const T* qd) {
    Twists<T> o;
    R ca, sa;
    math::sincos(P.base_angle, &sa, &ca);
    const PlanarTransform<R> E1 = joint2_transform(P);
    T c0 = T(ca), s0 = T(sa);  // orientation of {Bcj}
    Planar3<T> Vc{T(0.0), T(0.0), T(0.0)};  // ^{Bcj}V
    for (int j = 0; j < 2; ++j) {
      const RevoluteSegmentT<R>& g = P.segment[j];
      const SegmentPose<T> sp = segment_pose(g, q[j]);
      o.seg[j] = sp;
      const T qd1 = sp.dq1_dq * qd[j];  // eq (22) via (21)
      const T xd = sp.dx_dq * qd[j];    // eq (21)
      // Link L_j1 (+ O_1j): eq (25).
      Planar3<T> V1 = twist_to(PlanarTransform<T>{sp.c, sp.s, T(g.base_link), T(0.0)}, Vc);
      V1.w = V1.w + qd[j];
      // Cylinder case: eq (27); piston + rod: eq (28).
      Planar3<T> V3 = twist_to(PlanarTransform<T>{sp.c1, sp.s1, T(0.0), T(0.0)}, Vc);
      V3.w = V3.w + qd1;
      Planar3<T> V4 = twist_to(PlanarTransform<T>{T(1.0), T(0.0), sp.length - g.rod_length, T(0.0)}, V3);
      V4.x = V4.x + xd;
      const int b1 = j == 0 ? B11 : B12, b3 = j == 0 ? B31 : B32, b4 = j == 0 ? B41 : B42;
      o.V[b1] = V1;
      o.V[b3] = V3;
      o.V[b4] = V4;
      o.cos_abs[b1] = c0 * sp.c - s0 * sp.s;
      o.sin_abs[b1] = s0 * sp.c + c0 * sp.s;
      const T c3 = c0 * sp.c1 - s0 * sp.s1, s3 = s0 * sp.c1 + c0 * sp.s1;
      o.cos_abs[b3] = c3;
      o.sin_abs[b3] = s3;
      o.cos_abs[b4] = c3;
      o.sin_abs[b4] = s3;
      if (j == 0) {
        // {Tc1} (eq 26) then {E11} = {Bc2} = B02 (eq 31).
        const Planar3<T> VT = twist_to(PlanarTransform<T>{T(1.0), T(0.0), T(g.rod_link), T(0.0)}, V1);
        Vc = twist_to(PlanarTransform<T>{T(E1.c), T(E1.s), T(E1.rx), T(E1.ry)}, VT);
        o.V[B02] = Vc;
        rotate(o.cos_abs[B11], o.sin_abs[B11], E1.c, E1.s, c0, s0);
        o.cos_abs[B02] = c0;
        o.sin_abs[B02] = s0;
      }
    }
    return o;
  }

  // The bodies' parameters, subsystem order, with a payload of the given
  // mass merged into B12 (the plant's: bodies(P) below). The other six are
  // the parameters' own, lent by address: copying them into an array cost
  // every evaluation 1.5 KB set and copied on 8 lanes (perf, docs/models/lanes.md §11).
  template <class R>
  struct Bodies {
    const ParamsOn<R>* P;
    PlanarBodyT<R> tilt;  // B12 with the payload
    HS_HD const PlanarBodyT<R>& operator[](int k) const {
      switch (k) {
        case B11: return P->segment[0].link;
        case B31: return P->segment[0].cylinder;
        case B41: return P->segment[0].piston;
        case B02: return P->lift_boom_tip;
        case B12: return tilt;
        case B32: return P->segment[1].cylinder;
        default: return P->segment[1].piston;  // B42
      }
    }
  };
  template <class R>
  HS_HD static Bodies<R> bodies(const ParamsOn<R>& P, const R& payload_mass) {
    return {&P, tilt_with_payload(P, payload_mass)};
  }
  template <class R>
  HS_HD static Bodies<R> bodies(const ParamsOn<R>& P) { return bodies(P, P.payload_mass); }

  // Tip → base (eqs 60–69): the actuator forces f_c1, f_c2 from the net
  // wrenches F*_A of the subsystems and the end-effector wrench F_D at the
  // tool centre point (in {B12}'s orientation; zero in free motion, A32).
  // Eq (68) for f_cj, eq (69) for the wrench handed to the preceding
  // structure. seg: the poses of the two loops.
  template <class T, class R>
  HS_HD static void actuator_forces(const ParamsOn<R>& P, const SegmentPose<T>* seg, const Planar3<T>* Fstar,
                                    const Planar3<T>& F_tcp, T* f_c) {
    const PlanarTransform<R> E1 = joint2_transform(P);
    // ^{E12}F = ^{D12}F acts at the TCP: ^{B12}U_{D12} with R = I, r = tcp.
    Planar3<T> F_E = F_tcp;
    PlanarTransform<T> U_B1E{T(1.0), T(0.0), T(P.tcp_x), T(P.tcp_y)};
    for (int j = 1; j >= 0; --j) {
      const RevoluteSegmentT<R>& g = P.segment[j];
      const SegmentPose<T>& sp = seg[j];
      const int b0 = j == 0 ? -1 : B02, b1 = j == 0 ? B11 : B12, b3 = j == 0 ? B31 : B32, b4 = j == 0 ? B41 : B42;
      // z_rᵀ(^{B1j}F* + ^{B1j}U_{E1j} ^{E1j}F) and the whole wrench at {B1j}.
      const Planar3<T> W1 = Fstar[b1] + wrench_from(U_B1E, F_E);
      const T arm = sp.length - g.rod_length;  // x_j + x_j0 − l_cj
      // Eq (68), Theorem 3.
      f_c[j] = Fstar[b4].x - W1.w / (g.rod_link * sp.s2) -
               (Fstar[b3].w + Fstar[b4].w + Fstar[b4].y * arm) * sp.c2 / (sp.length * sp.s2);
      if (j == 0) break;
      // Eq (69), Theorem 4: ^{Bcj}F = F*_B0 + U_B0B1 W1 + U_B2B3 (F*_B3 + U_B3B4 F*_B4).
      const Planar3<T> W4 = wrench_from(PlanarTransform<T>{T(1.0), T(0.0), arm, T(0.0)}, Fstar[b4]);
      Planar3<T> Fc = wrench_from(PlanarTransform<T>{sp.c, sp.s, T(g.base_link), T(0.0)}, W1) +
                      wrench_from(PlanarTransform<T>{sp.c1, sp.s1, T(0.0), T(0.0)}, Fstar[b3] + W4);
      Fc = Fc + Fstar[b0];
      // Segment 1 receives it at {E11} = {Bc2}: ^{B11}U_{E11} = ^{B11}U_{T11} ^{Tc1}U_{Bc2}.
      F_E = Fc;
      U_B1E = PlanarTransform<T>{T(E1.c), T(E1.s), T(P.segment[0].rod_link + E1.rx), T(E1.ry)};
    }
  }

  // Inverse dynamics (docs/models/manipulator.md §3, §11.1): the actuator forces
  // f_c that move the manipulator with (q, q̇, q̈) against gravity and the
  // TCP wrench, and the generalized forces τ_j = f_cj ∂x_j/∂q_j
  // (= M(q) q̈ + h(q, q̇) with F_tcp = 0).
  // The twists of every subsystem and their time derivatives along the
  // motion: the recursion on time jets q + q̇ε (the pose moving with the
  // actual q̇) and r + ṙε (the main-joint rates r and their derivative ṙ:
  // actual q̇, q̈ for the dynamics, required q̇_r, q̈_r for the controller).
  template <class T, class R>
  HS_HD static Twists<Dual<1, T>> twists_moving(const ParamsOn<R>& P, const T* q, const T* qd, const T* r, const T* rdot) {
    using Jt = Dual<1, T>;
    Jt qj[2], rj[2];
    for (int j = 0; j < 2; ++j) {
      qj[j] = Jt(q[j]);
      qj[j].v[0] = qd[j];
      rj[j] = Jt(r[j]);
      rj[j].v[0] = rdot[j];
    }
    return twists(P, qj, rj);
  }

  template <class T, class R>
  HS_HD static void inverse_dynamics(const ParamsOn<R>& P, const T* q, const T* qd, const T* qdd, T* f_c, T* tau) {
    const auto tw = twists_moving(P, q, qd, qd, qdd);  // time jet: d/dt of every twist
    const Bodies<R> b = bodies(P);
    Uninitialized<Planar3<T>, nb> Fstar;  // every entry written below before it is read
    for (int k = 0; k < nb; ++k) {
      const Planar3<T> V{tw.V[k].x.a, tw.V[k].y.a, tw.V[k].w.a};
      const Planar3<T> dV{tw.V[k].x.v[0], tw.V[k].y.v[0], tw.V[k].w.v[0]};
      Fstar[k] = net_wrench(b[k], V, dV, V.w, tw.cos_abs[k].a, tw.sin_abs[k].a, P.gravity_x, P.gravity_y);
    }
    SegmentPose<T> seg[2];
    for (int j = 0; j < 2; ++j) seg[j] = value_pose(tw.seg[j]);
    const Planar3<T> zero{T(0.0), T(0.0), T(0.0)};
    actuator_forces(P, seg, Fstar.item, zero, f_c);
    for (int j = 0; j < 2; ++j) tau[j] = f_c[j] * seg[j].dx_dq;
  }

  template <class T>
  HS_HD static SegmentPose<T> value_pose(const SegmentPose<Dual<1, T>>& s) {
    SegmentPose<T> o;
    o.c = s.c.a; o.s = s.s.a; o.length = s.length.a; o.stroke = s.stroke.a;
    o.c1 = s.c1.a; o.s1 = s.s1.a; o.c2 = s.c2.a; o.s2 = s.s2.a;
    o.dx_dq = s.dx_dq.a; o.dq1_dq = s.dq1_dq.a;
    return o;
  }

  // Kinetic energy Σ ½ Vᵀ M_A V from the twists.
  template <class T, class R>
  HS_HD static T kinetic_energy(const ParamsOn<R>& P, const T* q, const T* qd) {
    const Twists<T> tw = twists(P, q, qd);
    const Bodies<R> b = bodies(P);
    T E(0.0);
    for (int k = 0; k < nb; ++k) E += body_kinetic_energy(b[k], tw.V[k]);
    return E;
  }

  // ---- world-frame kinematics (potential energy, TCP, tests) ----------------

  // Origins and orientations of every subsystem frame in the world,
  // written directly from the frame definitions (docs/models/manipulator.md
  // §1), not through the twist recursion.
  template <class T>
  struct WorldPose {
    V2<T> origin[nb];
    T angle[nb];  // absolute orientation [rad]
    V2<T> tcp;
    T tcp_angle;
  };
  // R(angle) (x, y) for a body-fixed vector.
  template <class T, class X, class Y>
  HS_HD static V2<T> along(const T& angle, const X& x, const Y& y) {
    T c, s;
    math::sincos(angle, &s, &c);
    return {c * x - s * y, s * x + c * y};
  }
  // with_cylinders = false: the links' chain to the TCP alone (the cylinder
  // bodies' frames B3, B4 left unset), the same operations for what it sets
  // — the TCP's inverse kinematics and the controller need no cylinder angle
  // (an atan2 and a square root per segment).
  template <class T, class R, bool with_cylinders = true>
  HS_HD static WorldPose<T> world_pose(const ParamsOn<R>& P, const T* q) {
    WorldPose<T> w;
    V2<T> base{T(P.base_x), T(P.base_y)};
    T base_angle = T(P.base_angle);
    for (int j = 0; j < 2; ++j) {
      const RevoluteSegmentT<R>& g = P.segment[j];
      const int b1 = j == 0 ? B11 : B12, b3 = j == 0 ? B31 : B32, b4 = j == 0 ? B41 : B42;
      w.angle[b1] = base_angle + q[j];
      w.origin[b1] = base + along(base_angle, g.base_link, 0.0);
      if constexpr (with_cylinders) {
        const SegmentPose<T> sp = segment_pose(g, q[j]);
        // q_j1 = atan2(p_y, p_x) with segment_pose's p: only the world pose needs
        // the angle itself (the dynamics take its cosine and sine, c1 and s1).
        w.angle[b3] = base_angle + math::atan2(g.rod_link * sp.s, g.base_link + g.rod_link * sp.c);
        w.origin[b3] = base;
        w.angle[b4] = w.angle[b3];
        w.origin[b4] = base + along(w.angle[b3], sp.length - g.rod_length, 0.0);
      } else {
        (void)b3;
        (void)b4;
      }
      if (j == 0) {
        const V2<T> tc = w.origin[B11] + along(w.angle[B11], g.rod_link, 0.0);
        base = tc + along(w.angle[B11], P.joint2_offset_x, P.joint2_offset_y);
        base_angle = w.angle[B11] + P.joint2_angle;
        w.origin[B02] = base;
        w.angle[B02] = base_angle;
      }
    }
    w.tcp = w.origin[B12] + along(w.angle[B12], P.tcp_x, P.tcp_y);
    w.tcp_angle = w.angle[B12];
    return w;
  }

  // Potential energy of gravity, −Σ m g·r_c.
  template <class T, class R>
  HS_HD static T potential_energy(const ParamsOn<R>& P, const T* q) {
    const WorldPose<T> w = world_pose(P, q);
    const Bodies<R> b = bodies(P);
    T E(0.0);
    for (int k = 0; k < nb; ++k) {
      const V2<T> c = w.origin[k] + along(w.angle[k], b[k].com_x, b[k].com_y);
      E -= b[k].mass * (P.gravity_x * c.x + P.gravity_y * c.y);
    }
    return E;
  }

  // Tool centre point in the world.
  template <class T, class R>
  HS_HD static V2<T> tcp(const ParamsOn<R>& P, const T* q) { return world_pose<T, R, false>(P, q).tcp; }

  // The chain to the TCP as the inverse kinematics sees it
  // (docs/models/manipulator.md §10): X = j + R(α1 + q1) b + R(α1 + q1 + α2 + q2) t,
  // j the lift joint (the origin of {B11}) in the world, b: lift joint → tilt
  // joint in {B11}, t: tilt joint → TCP in {B12}; with the constants of the
  // closed-form inverse kinematics (|b|², |t|², 2|b||t|, ∠t, ∠b). Parameters
  // only: a controller computes it once per run (VdcController's memory).
  template <class R>
  struct TcpChainT {
    R jx, jy, bx, by, tx, ty;
    R b2, t2, two_bt;     // |b|², |t|², 2|b||t|
    R angle_t, angle_b;   // ∠t, ∠b
  };
  template <class R>
  HS_HD static TcpChainT<R> tcp_chain(const ParamsOn<R>& P) {
    TcpChainT<R> c;
    R ca, sa;
    math::sincos(P.base_angle, &sa, &ca);
    c.jx = P.base_x + ca * P.segment[0].base_link;
    c.jy = P.base_y + sa * P.segment[0].base_link;
    R c2, s2;
    math::sincos(P.joint2_angle, &s2, &c2);
    c.bx = P.segment[0].rod_link + P.joint2_offset_x + c2 * P.segment[1].base_link;
    c.by = P.joint2_offset_y + s2 * P.segment[1].base_link;
    c.tx = P.tcp_x;
    c.ty = P.tcp_y;
    c.b2 = c.bx * c.bx + c.by * c.by;
    c.t2 = c.tx * c.tx + c.ty * c.ty;
    c.two_bt = 2.0 * math::sqrt(c.b2 * c.t2);
    c.angle_t = math::atan2(c.ty, c.tx);
    c.angle_b = math::atan2(c.by, c.bx);
    return c;
  }
  // R(α1 + q1) b and R(α1 + q1 + α2 + q2) t in the world at q: the TCP is
  // j plus both; its Jacobian and J̇q̇ are closed forms in them, ∂X/∂q2 =
  // S R(·)t, ∂X/∂q1 = S R(·)b + ∂X/∂q2 (S: a quarter turn), and the second
  // derivative along q̇: −R(·)b q̇1² − R(·)t (q̇1 + q̇2)².
  template <class R>
  struct TcpArms {
    R b[2], t[2];
  };
  template <class R>
  HS_HD static TcpArms<R> tcp_arms(const ParamsOn<R>& P, const TcpChainT<R>& c, const R* q) {
    const R a1 = P.base_angle + q[0];
    const R a2 = a1 + P.joint2_angle + q[1];
    R c1, s1, c2, s2;
    math::sincos(a1, &s1, &c1);
    math::sincos(a2, &s2, &c2);
    TcpArms<R> arm;
    arm.b[0] = c1 * c.bx - s1 * c.by;
    arm.b[1] = s1 * c.bx + c1 * c.by;
    arm.t[0] = c2 * c.tx - s2 * c.ty;
    arm.t[1] = s2 * c.tx + c2 * c.ty;
    return arm;
  }

  // Closed-form inverse kinematics of the TCP (docs/models/manipulator.md
  // §10): the joint angles that put the TCP at X in the working branch
  // (q_2 of the elbow of the default pose: the rod pivots clockwise of L_j,
  // q_j ∈ (−π, 0)). False if X is out of reach. On lanes (R = Lanes<W>) each
  // lane's own reach: the mask of the lanes in reach, every lane's angles
  // computed (those out of reach are NaN, for the caller to discard); one
  // instance returns at once when out of reach.
  template <class R>
  HS_HD static auto inverse_kinematics(const ParamsOn<R>& P, const R& X, const R& Y, R* q) {
    return inverse_kinematics(P, tcp_chain(P), X, Y, q);
  }
  template <class R>
  HS_HD static auto inverse_kinematics(const ParamsOn<R>& P, const TcpChainT<R>& c, const R& X, const R& Y, R* q) {
    const R bx = c.bx, by = c.by, tx = c.tx, ty = c.ty;
    const R dx = X - c.jx, dy = Y - c.jy;
    const R d2 = dx * dx + dy * dy;
    const R cg = (d2 - c.b2 - c.t2) / c.two_bt;
    const auto in_reach = cg > -1.0 && cg < 1.0;
    if (!any_lane(in_reach)) return in_reach;
    // γ: angle from b to R(α2 + q2) t; the elbow-down branch (γ < 0).
    const R gamma = -math::acos(cg);
    q[1] = gamma - c.angle_t + c.angle_b - P.joint2_angle;
    const R a = P.joint2_angle + q[1];
    R sin_a, cos_a;
    math::sincos(a, &sin_a, &cos_a);
    const R ex = bx + cos_a * tx - sin_a * ty, ey = by + sin_a * tx + cos_a * ty;
    q[0] = math::atan2(dy, dx) - math::atan2(ey, ex) - P.base_angle;
    // Wrap into (−π, π] (per lane: a NaN lane compares false and stays).
    for (int j = 0; j < 2; ++j) {
      for (auto over = q[j] > kPi; any_lane(over); over = q[j] > kPi) q[j] = choose(over, q[j] - 2.0 * kPi, q[j]);
      for (auto under = q[j] <= -kPi; any_lane(under); under = q[j] <= -kPi) q[j] = choose(under, q[j] + 2.0 * kPi, q[j]);
    }
    return in_reach;
  }
};

// ---- default instance ---------------------------------------------------------

// The laboratory crane of seed 004 §7 as the authors' public material
// describes it [R] (docs/models/manipulator.md §11.2): geometry, link, case
// and piston inertias; the extension and end object replaced by a payload
// point mass at the TCP [A]; the initial pose of [R] (encoder angles 45°,
// −90°: q_1 = θ_1 − 2.073505, q_2 = θ_2 − 0.411577).
inline LiftTiltParams seed004_lift_tilt_mechanism() {
  LiftTiltParams P;
  const PlanarBody cylinder{17.36281648, 0.35781210, 0.0, 0.90763033};
  const PlanarBody piston{10.34519231, 0.55785997, 0.0, 0.55785997};
  P.segment[0] = {1.0071227324212, 0.37610632101293, 0.83, 0.745,
                  PlanarBody{25.52660174, 0.23805608, 0.13201777, 0.67891020}, cylinder, piston};
  P.segment[1] = {1.132185817991, 0.30901132665325, 0.83, 0.745,
                  PlanarBody{33.92850233, 0.60504569, 0.27199376, 7.40915161}, cylinder, piston};
  P.lift_boom_tip = PlanarBody{54.58702836, 0.54319901, 0.10543875, 5.97255351};
  P.base_x = 0.185;
  P.base_y = -0.085;
  P.base_angle = 1.9515432018109;
  P.joint2_offset_x = 0.098495302558553;
  P.joint2_offset_y = 0.01838181329939;
  P.joint2_angle = 0.24548563270531;
  P.tcp_x = 2.352576;
  P.tcp_y = 0.858329;
  P.payload_mass = 100.0;
  P.payload_x = P.tcp_x;
  P.payload_y = P.tcp_y;
  P.payload_inertia = 0.0;
  P.gravity_x = 0.0;
  P.gravity_y = -9.81;
  P.initial_angle[0] = 0.25 * kPi - 2.073505;
  P.initial_angle[1] = -0.5 * kPi - 0.411577;
  return P;
}

// ---- the DAE form the engine integrates --------------------------------------

// x = (q_1, q_2, x_1, x_2), Φ_j = x_j + x_j0 − |p_j(q_j)| (eq 18), actuator
// j's length the stroke x_j, residual rows (τ_1, τ_2, 0, 0).
struct LiftTiltDae {
  using Params = LiftTiltParams;
  template <class R>
  using ParamsOn = LiftTiltParamsT<R>;
  static constexpr int n = 4;
  static constexpr int m = 2;
  static constexpr int ni = 2;
  static constexpr int na = 2;
  enum Coordinate { q1 = 0, q2, x1, x2 };

  HS_HD static void driving(int* indep) {
    indep[0] = q1;
    indep[1] = q2;
  }
  HS_HD static int driving_coordinate() { return q1; }

  HS_HD static void initial_guess(const Params& P, double* x) {
    x[q1] = P.initial_angle[0];
    x[q2] = P.initial_angle[1];
    for (int j = 0; j < 2; ++j) x[x1 + j] = value(segment_pose(P.segment[j], P.initial_angle[j]).stroke);
  }

  template <class S, class R>
  HS_HD static void constraints(const ParamsOn<R>& P, const S* x, S* phi) {
    for (int j = 0; j < 2; ++j) {
      const RevoluteSegmentT<R>& g = P.segment[j];
      S c, sn;
      math::sincos(x[q1 + j], &sn, &c);
      const S px = g.base_link + g.rod_link * c;
      const S py = g.rod_link * sn;
      phi[j] = x[x1 + j] + g.zero_length - math::sqrt(px * px + py * py);
    }
  }

  // The cylinder's "length" for its circuit is the stroke x_j itself (the
  // pin-to-pin length minus the constant x_j0): the chambers follow it
  // (servo_valve_circuit.hpp) and outputs s_1, s_2 read as strokes.
  template <class S, class R>
  HS_HD static S actuator_length(const ParamsOn<R>&, const S* x, int a) {
    return x[x1 + a];
  }

  // M(x) ẍ + c(x, ẋ) − Q_grav(x) (seed 000 eq (9) without the actuators):
  // the inverse dynamics in q, nothing on the strokes.
  template <class S, class R>
  HS_HD static void mechanism_residual(const ParamsOn<R>& P, const S* x, const S* xd, const S* xdd, S* r) {
    S f_c[2], tau[2];
    LiftTilt::inverse_dynamics(P, x, xd, xdd, f_c, tau);
    r[q1] = tau[0];
    r[q2] = tau[1];
    r[x1] = S(0.0);
    r[x2] = S(0.0);
  }

  template <class S, class R>
  HS_HD static S kinetic_energy(const ParamsOn<R>& P, const S* x, const S* xd) {
    return LiftTilt::kinetic_energy(P, x, xd);
  }
  template <class S, class R>
  HS_HD static S potential_energy(const ParamsOn<R>& P, const S* x) {
    return LiftTilt::potential_energy(P, x);
  }
};

}  // namespace hs
