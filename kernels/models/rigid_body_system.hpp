// Equations of motion of rigid bodies described by arbitrary generalized
// coordinates x (absolute, relative, mixed), from their frames alone.
//
// A mechanism in this form only states, for any scalar S, where each body
// is: its rotation matrix R_b(x) and centre of mass g_b(x). The Newton–Euler
// equations projected on the coordinates (virtual power) give
//
//   e_k(x, ẋ, ẍ) = Σ_b  m_b (g̈_b − a_grav) · ∂g_b/∂x_k
//                     + (Ī_b ω̇_b + ω_b × Ī_b ω_b) · ∂ω_b/∂ẋ_k        (1)
//
// i.e. e = M(x) ẍ + c(x, ẋ) − Q_grav(x), the residual of seed 000 eq (9)
// without multipliers and actuator. ω_b is the angular velocity in body
// axes, ω̃_b = R_bᵀ Ṙ_b, and ω̇_b = vee(Ṙ_bᵀ Ṙ_b + R_bᵀ R̈_b).
//
// Projected on directions d_j instead (the columns of an n×nd matrix D),
// the same virtual power gives Dᵀe with ∂g/∂x d_j and vee(Rᵀ ∂R/∂x d_j):
// rigid_body_residual_along. The linearization needs only Tᵀe along the
// admissible motions T (nd = n − m), so its jets carry nd, not n, directions.
//
// Every derivative comes from dual numbers:
// - ∂g/∂x d_j and ∂ω/∂ẋ d_j = vee(Rᵀ ∂R/∂x d_j): one evaluation of the
//   frames on Dual<nd, T>, x seeded along the directions (unit ones for e).
// - ġ, g̈, Ṙ, R̈: one evaluation on the path jet Dual<1, Dual<1, T>> with
//   x(τ1, τ2) = x + ẋ τ1 + ẋ τ2 + ẍ τ1τ2, whose τ1τ2 coefficient is
//   f'(x) ẍ + ẋᵀ f''(x) ẋ = d²f/dt² (the mixed term of a hyper-dual).
// T may itself be a dual number: then e carries exact derivatives with
// respect to whatever T was seeded with (the linearization, kernels/linearize).
#pragma once
#include "../core/derivatives.hpp"
#include "../core/dual.hpp"
#include "../core/uninitialized.hpp"

namespace hs {

// One body as the mechanism states it, on scalar S.
template <class S>
struct BodyFrame {
  S R[3][3];  // body axes in the inertial frame (columns)
  S com[3];   // centre of mass
};

// Mass properties of one body: principal inertia about the CoM in body axes.
// R: double, or Lanes<W> for W instances in lockstep (docs/models/lanes.md).
template <class R = double>
struct BodyInertiaT {
  R mass;
  R inertia[3];  // Ī_xx, Ī_yy, Ī_zz
};
using BodyInertia = BodyInertiaT<double>;

namespace rigid_body_detail {
// vee of the skew part of A: (A32 − A23, A13 − A31, A21 − A12)/2.
template <class S>
HS_HD void vee_skew(const S (&A)[3][3], S* w) {
  w[0] = 0.5 * (A[2][1] - A[1][2]);
  w[1] = 0.5 * (A[0][2] - A[2][0]);
  w[2] = 0.5 * (A[1][0] - A[0][1]);
}
// Aᵀ B for 3×3.
template <class S>
HS_HD void at_b(const S (&A)[3][3], const S (&B)[3][3], S (&C)[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      S s = A[0][i] * B[0][j];
      s += A[1][i] * B[1][j];
      s += A[2][i] * B[2][j];
      C[i][j] = s;
    }
}
}  // namespace rigid_body_detail

// Residual (1) projected on the directions: e_dir[j] = Σ_k dir(k, j) e_k.
// Frames::n coordinates, Frames::nb bodies;
// Frames::frames<S>(P, x, BodyFrame<S>* out) and Frames::inertia(P, b).
// P: the mechanism's parameters, or its lanes' (gravity then per lane too).
template <class Frames, class Dir, class T, class Params, class G>
HS_HD void rigid_body_residual_along(const Params& P, const G (&gravity)[3], const Dir& dir, const T* x, const T* xd,
                                     const T* xdd, T* e_dir) {
  constexpr int n = Frames::n;
  constexpr int nb = Frames::nb;
  constexpr int nd = Dir::nd;
  using Jx = Dual<nd, T>;             // ∂/∂x along the directions
  using Path = PathJet<T>;            // d/dt and d²/dt² along the motion
  namespace d = rigid_body_detail;

  // Every entry below is written before it is read (Uninitialized).
  Uninitialized<Jx, n> xj;
  Uninitialized<Path, n> xp;
  for (int k = 0; k < n; ++k) xj[k] = along(x[k], dir, k);
  seed_path<T>(x, xd, xdd, n, xp.item);
  Uninitialized<BodyFrame<Jx>, nb> fj;
  Uninitialized<BodyFrame<Path>, nb> fp;
  Frames::frames(P, xj.item, fj.item);
  Frames::frames(P, xp.item, fp.item);

  for (int j = 0; j < nd; ++j) e_dir[j] = T(0.0);
  for (int b = 0; b < nb; ++b) {
    const auto I = Frames::inertia(P, b);
    // Values, rates and accelerations of the frame.
    T R[3][3], Rd[3][3], Rdd[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        R[i][j] = fp[b].R[i][j].a.a;
        Rd[i][j] = fp[b].R[i][j].v[0].a;
        Rdd[i][j] = fp[b].R[i][j].v[0].v[0];
      }
    T A[3][3], B[3][3], w[3], wd[3];
    d::at_b(R, Rd, A);
    d::vee_skew(A, w);  // ω = vee(Rᵀ Ṙ)
    d::at_b(Rd, Rd, A);
    d::at_b(R, Rdd, B);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) A[i][j] += B[i][j];
    d::vee_skew(A, wd);  // ω̇ = vee(ṘᵀṘ + RᵀR̈)
    // Inertial force and torque (body axes), minus gravity.
    T force[3], torque[3], Iw[3];
    for (int i = 0; i < 3; ++i) {
      force[i] = I.mass * (fp[b].com[i].v[0].v[0] - gravity[i]);
      Iw[i] = I.inertia[i] * w[i];
    }
    torque[0] = I.inertia[0] * wd[0] + (w[1] * Iw[2] - w[2] * Iw[1]);
    torque[1] = I.inertia[1] * wd[1] + (w[2] * Iw[0] - w[0] * Iw[2]);
    torque[2] = I.inertia[2] * wd[2] + (w[0] * Iw[1] - w[1] * Iw[0]);
    // Projection on each direction d: ∂g/∂x d and ∂ω/∂ẋ d = vee(Rᵀ ∂R/∂x d).
    for (int k = 0; k < nd; ++k) {
      T dR[3][3], C[3][3], dw[3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) dR[i][j] = fj[b].R[i][j].v[k];
      d::at_b(R, dR, C);
      d::vee_skew(C, dw);
      T ek = e_dir[k];
      for (int i = 0; i < 3; ++i) ek += force[i] * fj[b].com[i].v[k] + torque[i] * dw[i];
      e_dir[k] = ek;
    }
  }
}

// Residual (1) itself: projected on the unit directions.
template <class Frames, class T, class Params, class G>
HS_HD void rigid_body_residual(const Params& P, const G (&gravity)[3], const T* x, const T* xd, const T* xdd, T* e) {
  rigid_body_residual_along<Frames>(P, gravity, UnitDirections<Frames::n>{}, x, xd, xdd, e);
}

// Elementary rotations (seed 000 eq 66): about X, Y, Z by angle a.
template <class S>
HS_HD void rotation_x(const S& a, S (&R)[3][3]) {
  S s, c;
  math::sincos(a, &s, &c);
  R[0][0] = S(1.0); R[0][1] = S(0.0); R[0][2] = S(0.0);
  R[1][0] = S(0.0); R[1][1] = c;      R[1][2] = -s;
  R[2][0] = S(0.0); R[2][1] = s;      R[2][2] = c;
}
template <class S>
HS_HD void rotation_y(const S& a, S (&R)[3][3]) {
  S s, c;
  math::sincos(a, &s, &c);
  R[0][0] = c;      R[0][1] = S(0.0); R[0][2] = s;
  R[1][0] = S(0.0); R[1][1] = S(1.0); R[1][2] = S(0.0);
  R[2][0] = -s;     R[2][1] = S(0.0); R[2][2] = c;
}
template <class S>
HS_HD void rotation_z(const S& a, S (&R)[3][3]) {
  S s, c;
  math::sincos(a, &s, &c);
  R[0][0] = c;      R[0][1] = -s;     R[0][2] = S(0.0);
  R[1][0] = s;      R[1][1] = c;      R[1][2] = S(0.0);
  R[2][0] = S(0.0); R[2][1] = S(0.0); R[2][2] = S(1.0);
}
// C = A B (3×3).
template <class S>
HS_HD void mat3_mul(const S (&A)[3][3], const S (&B)[3][3], S (&C)[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      S s = A[i][0] * B[0][j];
      s += A[i][1] * B[1][j];
      s += A[i][2] * B[2][j];
      C[i][j] = s;
    }
}
// The products with an elementary rotation that the 3D mechanisms chain
// (seed 000 eq 66), without the products with its zeros and ones: on the
// jets the integrators evaluate them on (Dual<10, Dual<1, Lanes<8>>>: 1.4 KB
// a number) mat3_mul's 27 products were most of a pose. The same values as
// mat3_mul with rotation_x/y/z: a product with an exact 0 or 1 added to a sum
// changes it at most in the sign of an exact zero.
// C = A R_X(a).
template <class S>
HS_HD void times_rotation_x(const S (&A)[3][3], const S& a, S (&C)[3][3]) {
  S s, c;
  math::sincos(a, &s, &c);
  for (int i = 0; i < 3; ++i) {
    C[i][0] = A[i][0];
    C[i][1] = A[i][1] * c + A[i][2] * s;
    C[i][2] = A[i][1] * (-s) + A[i][2] * c;
  }
}
// R_Z(ψ) R_Y(θ).
template <class S>
HS_HD void rotation_zy(const S& psi, const S& theta, S (&C)[3][3]) {
  S sz, cz, sy, cy;
  math::sincos(psi, &sz, &cz);
  math::sincos(theta, &sy, &cy);
  C[0][0] = cz * cy; C[0][1] = -sz;     C[0][2] = cz * sy;
  C[1][0] = sz * cy; C[1][1] = cz;      C[1][2] = sz * sy;
  C[2][0] = -sy;     C[2][1] = S(0.0);  C[2][2] = cy;
}
// p + R v for a body-fixed vector v = (0, v1, v2) in the body's YZ plane
// (the planar mechanisms' vectors read in 3D), v1, v2 as reals (doubles, or
// per lane): the product with the zero component left out (the same value,
// but for the sign of an exact zero; a pass of Dual<10> jets spent a third of
// this function on it).
template <class S, class V1, class V2>
HS_HD void point_in_body_plane(const S (&p)[3], const S (&R)[3][3], const V1& v1, const V2& v2, S (&out)[3]) {
  for (int i = 0; i < 3; ++i) out[i] = p[i] + R[i][1] * v1 + R[i][2] * v2;
}

}  // namespace hs
