// Seed 003's planar flexible double pendulum in the floating frame of
// reference, any number n_p of two-node beam elements per link
// (docs/models/nloop-and-flexible.md §4; seed 003 §4.2, Figs 2–3; Shabana's
// FFR). A point of link b at axial coordinate x is r = R_b + A(θ_b)(ū₀ + S q_f),
// ū₀ = (x, 0), with each link's frame at its first node and tangent there.
// Per link: frame (R_x, R_y, θ) and (u, v, θ) at each of its n_p + 1 nodes:
// n = 2 (3 + 3(n_p + 1)) = 6n_p + 12. Constraints: link 1's first node on the
// ground point o (2), link 2's frame at link 1's deformed tip (2), each link's
// first-node elastic coordinates zero (3 + 3): m = 10.
//
// Elements (the contract of kernels/linearize/element_derivatives.hpp):
//   BeamElementInertia   consistent mass ∫ρA LᵀL dx and weight ∫ρA Lᵀg dx on
//                        (R_x, R_y, θ, u_1, v_1, θ_1, u_2, v_2, θ_2), L = [I₂, AĨū, AS],
//                        5-point Gauss (exact for these polynomial degrees)
//   BeamElementElastic   −K_e q_e: EA/l_e axial, Euler–Bernoulli EI/l_e³ bending;
//                        linear elasticity, no geometric stiffening, no rotary inertia
//   PinToGround, PinToBeamTip, Clamp: the constraints
#pragma once
#include <cmath>

#include "../core/dual.hpp"
#include "../core/hd.hpp"

namespace hs {
namespace ffr {

// 5-point Gauss–Legendre on [0, 1].
struct Gauss5 {
  static constexpr int n = 5;
  HS_HD static double point(int k) {
    constexpr double x[5] = {0.04691007703066800, 0.23076534494715845, 0.5, 0.76923465505284155,
                             0.95308992296933200};
    return x[k];
  }
  HS_HD static double weight(int k) {
    constexpr double w[5] = {0.11846344252809454, 0.23931433524968324, 0.28444444444444444, 0.23931433524968324,
                             0.11846344252809454};
    return w[k];
  }
};

// Shape functions of the element at ξ ∈ [0, 1]: axial [1 − ξ, ξ] on (u_1, u_2),
// transverse cubic Hermite on (v_1, θ_1, v_2, θ_2).
HS_HD inline void beam_shapes(double xi, double le, double* Na, double* Nv) {
  Na[0] = 1.0 - xi;
  Na[1] = xi;
  Nv[0] = 1.0 - 3.0 * xi * xi + 2.0 * xi * xi * xi;
  Nv[1] = le * (xi - 2.0 * xi * xi + xi * xi * xi);
  Nv[2] = 3.0 * xi * xi - 2.0 * xi * xi * xi;
  Nv[3] = le * (-xi * xi + xi * xi * xi);
}

// ∂r/∂q (2 × 9, column-major in L[c][0..1]) at ξ, and the local position ū.
template <class T>
HS_HD void beam_point(const T* q, double x0, double le, double xi, T L[9][2]) {
  double Na[2], Nv[4];
  beam_shapes(xi, le, Na, Nv);
  const T ux = x0 + xi * le + Na[0] * q[3] + Na[1] * q[6];
  const T uy = Nv[0] * q[4] + Nv[1] * q[5] + Nv[2] * q[7] + Nv[3] * q[8];
  T s, c;
  math::sincos(q[2], &s, &c);
  L[0][0] = T(1.0); L[0][1] = T(0.0);
  L[1][0] = T(0.0); L[1][1] = T(1.0);
  // ∂(Aū)/∂θ = A Ĩ ū, A = [[c, −s], [s, c]]
  L[2][0] = -s * ux - c * uy;
  L[2][1] = c * ux - s * uy;
  // A S: axial columns along A e_x, transverse along A e_y
  const double Sa[9] = {0, 0, 0, Na[0], 0, 0, Na[1], 0, 0};
  const double Sv[9] = {0, 0, 0, 0, Nv[0], Nv[1], 0, Nv[2], Nv[3]};
  for (int k = 3; k < 9; ++k) {
    L[k][0] = c * Sa[k] - s * Sv[k];
    L[k][1] = s * Sa[k] + c * Sv[k];
  }
}

struct BeamElementInertia {
  static constexpr int K = 9;
  double x0;          // axial position of the element's first node on the undeformed link [m]
  double le;          // element length [m]
  double rho_area;    // ρA [kg/m]
  double gx, gy;      // gravity [m/s²]
  HS_HD void mass(const double* q, double* M) const {
    for (int k = 0; k < K * K; ++k) M[k] = 0.0;
    for (int g = 0; g < Gauss5::n; ++g) {
      double L[9][2];
      beam_point(q, x0, le, Gauss5::point(g), L);
      const double w = rho_area * le * Gauss5::weight(g);
      for (int r = 0; r < K; ++r)
        for (int c = 0; c < K; ++c) M[r * K + c] += w * (L[r][0] * L[c][0] + L[r][1] * L[c][1]);
    }
  }
  // The weight's generalized force (the quadratic velocity terms vanish at
  // the static equilibrium and so does their derivative: q̇ enters squared).
  template <class T>
  HS_HD void forces(const T* q, const T*, T* f) const {
    for (int k = 0; k < K; ++k) f[k] = T(0.0);
    for (int g = 0; g < Gauss5::n; ++g) {
      T L[9][2];
      beam_point(q, x0, le, Gauss5::point(g), L);
      const double w = rho_area * le * Gauss5::weight(g);
      for (int k = 0; k < K; ++k) f[k] += w * (L[k][0] * gx + L[k][1] * gy);
    }
  }
};

struct BeamElementElastic {
  static constexpr int K = 6;  // (u_1, v_1, θ_1, u_2, v_2, θ_2)
  double le, EA, EI;
  template <class T>
  HS_HD void forces(const T* q, const T*, T* f) const {
    const double ka = EA / le, kb = EI / (le * le * le);
    f[0] = -ka * (q[0] - q[3]);
    f[3] = -ka * (q[3] - q[0]);
    // Euler–Bernoulli: EI/l³ [12, 6l, −12, 6l; 6l, 4l², −6l, 2l²; −12, −6l, 12, −6l; 6l, 2l², −6l, 4l²]
    const T v1 = q[1], t1 = q[2], v2 = q[4], t2 = q[5];
    f[1] = -kb * (12.0 * v1 + 6.0 * le * t1 - 12.0 * v2 + 6.0 * le * t2);
    f[2] = -kb * (6.0 * le * v1 + 4.0 * le * le * t1 - 6.0 * le * v2 + 2.0 * le * le * t2);
    f[4] = -kb * (-12.0 * v1 - 6.0 * le * t1 + 12.0 * v2 - 6.0 * le * t2);
    f[5] = -kb * (6.0 * le * v1 + 2.0 * le * le * t1 - 6.0 * le * v2 + 4.0 * le * le * t2);
  }
};

// A link's frame origin on a ground point: R − P = 0 on (R_x, R_y).
struct PinToGround {
  static constexpr int K = 2, R = 2;
  double px, py;
  template <class T>
  HS_HD void constraints(const T* q, T* phi) const {
    phi[0] = q[0] - px;
    phi[1] = q[1] - py;
  }
};

// Link 2's frame at link 1's deformed tip: R_1 + A(θ_1)(l + u_tip, v_tip) − R_2 = 0
// on (R_1x, R_1y, θ_1, u_tip, v_tip, R_2x, R_2y).
struct PinToBeamTip {
  static constexpr int K = 7, R = 2;
  double length;
  template <class T>
  HS_HD void constraints(const T* q, T* phi) const {
    T s, c;
    math::sincos(q[2], &s, &c);
    const T ux = length + q[3], uy = q[4];
    phi[0] = q[0] + c * ux - s * uy - q[5];
    phi[1] = q[1] + s * ux + c * uy - q[6];
  }
};

// Coordinates held at zero (a link's first-node (u, v, θ): the frame is
// attached and tangent there).
struct Clamp {
  static constexpr int K = 3, R = 3;
  template <class T>
  HS_HD void constraints(const T* q, T* phi) const {
    for (int k = 0; k < 3; ++k) phi[k] = q[k];
  }
};

}  // namespace ffr

struct FlexiblePendulumParams {
  int elements = 10;              // n_p per link
  double link_length = 4.0;       // l_p [m]
  double density = 1500.0;        // ρ [kg/m³]
  double young_modulus = 1e8;     // E [N/m²]
  double section_radius = 0.15;   // r_p [m]
  double gravity = 9.81;          // along −y [m/s²]
};

struct FlexiblePendulum {
  using Params = FlexiblePendulumParams;
  static constexpr const char* name = "flexible-pendulum";  // the catalog's model (constrained_descriptor.hpp)
  static int per_link(const Params& p) { return 3 + 3 * (p.elements + 1); }
  static int coordinates(const Params& p) { return 2 * per_link(p); }
  static int constraint_count(const Params&) { return 10; }
  static int frame(const Params& p, int link) { return link * per_link(p); }  // R_x; R_y, θ follow
  static int node(const Params& p, int link, int k) { return frame(p, link) + 3 + 3 * k; }  // u; v, θ follow

  template <class Assembly>
  static void build(const Params& p, Assembly& a) {
    const double area = M_PI * p.section_radius * p.section_radius;
    const double inertia = M_PI * std::pow(p.section_radius, 4) / 4.0;
    const double le = p.link_length / p.elements;
    for (int link = 0; link < 2; ++link) {
      const int f = frame(p, link);
      for (int e = 0; e < p.elements; ++e) {
        const int n1 = node(p, link, e), n2 = node(p, link, e + 1);
        const int idx[9] = {f, f + 1, f + 2, n1, n1 + 1, n1 + 2, n2, n2 + 1, n2 + 2};
        const ffr::BeamElementInertia inertial{e * le, le, p.density * area, 0.0, -p.gravity};
        a.mass(inertial, idx);
        a.force(inertial, idx);
        a.force(ffr::BeamElementElastic{le, p.young_modulus * area, p.young_modulus * inertia}, idx + 3);
      }
    }
    const int f1 = frame(p, 0), f2 = frame(p, 1), tip = node(p, 0, p.elements);
    const int ground[2] = {f1, f1 + 1};
    a.constraint(ffr::PinToGround{0.0, 0.0}, ground);
    const int pin[7] = {f1, f1 + 1, f1 + 2, tip, tip + 1, f2, f2 + 1};
    a.constraint(ffr::PinToBeamTip{p.link_length}, pin);
    for (int link = 0; link < 2; ++link) {
      const int n0 = node(p, link, 0);
      const int clamp[3] = {n0, n0 + 1, n0 + 2};
      a.constraint(ffr::Clamp{}, clamp);
    }
  }

  // Hanging straight down, undeformed: θ_1 = θ_2 = −π/2.
  static void initial_guess(const Params& p, double* q) {
    for (int k = 0; k < coordinates(p); ++k) q[k] = 0.0;
    q[frame(p, 0) + 2] = q[frame(p, 1) + 2] = -M_PI / 2.0;
    q[frame(p, 1) + 1] = -p.link_length;
  }
  static int reported_coordinate(const Params& p) { return frame(p, 0) + 2; }  // θ_1
};

}  // namespace hs
