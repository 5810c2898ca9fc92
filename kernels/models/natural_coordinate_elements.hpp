// Elements of planar multibody systems in natural coordinates (points' x, y
// as coordinates): uniform slender rods, point forces, spring-dampers to a
// ground point, distance and angle constraints. Each is the element
// contract of kernels/linearize/element_derivatives.hpp; the N-loop four-bar
// (nloop_linkage.hpp) is assembled from them. Equations:
// docs/models/nloop-and-flexible.md §3 (seed 003 §4.1).
#pragma once
#include "../core/dual.hpp"
#include "../core/hd.hpp"

namespace hs {
namespace natural {

// A uniform slender rod of mass m between a fixed point and a moving point:
// kinetic energy (m/6)|v|² → (m/3) I at the moving end (docs/models/nloop-and-flexible.md §3 item 4).
struct RodMassOneEnd {
  static constexpr int K = 2;
  double m;
  HS_HD void mass(const double*, double* M) const {
    M[0] = m / 3.0; M[1] = 0.0;
    M[2] = 0.0;     M[3] = m / 3.0;
  }
};

// A uniform slender rod between two moving points i, j: (m/6)[[2I, I], [I, 2I]]
// on (x_i, y_i, x_j, y_j) (consistent mass of the linear interpolation).
struct RodMassTwoEnds {
  static constexpr int K = 4;
  double m;
  HS_HD void mass(const double*, double* M) const {
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) M[r * 4 + c] = (r % 2 != c % 2) ? 0.0 : (r == c ? 2.0 : 1.0) * m / 6.0;
  }
};

// A constant force (fx, fy) at a point: a rod's weight m g/2 at each end.
struct PointForce {
  static constexpr int K = 2;
  double fx, fy;
  template <class T>
  HS_HD void forces(const T*, const T*, T* f) const {
    f[0] = T(fx);
    f[1] = T(fy);
  }
};

// A linear spring (stiffness k, natural length L0) with a dashpot c in
// parallel between a moving point and the ground point (ax, ay): force on
// the point −(k (L − L0) + c L̇) u, u the unit vector from the anchor
// (seed 003 §4.1; the dashpot of Table 2, docs/models/nloop-and-flexible.md §3 item 2).
struct AnchoredSpringDamper {
  static constexpr int K = 2;
  double ax, ay, k, L0, c;
  template <class T>
  HS_HD void forces(const T* q, const T* qd, T* f) const {
    const T dx = q[0] - ax, dy = q[1] - ay;
    const T L = math::sqrt(dx * dx + dy * dy);
    const T ux = dx / L, uy = dy / L;
    const T Ld = ux * qd[0] + uy * qd[1];
    const T tension = k * (L - L0) + c * Ld;
    f[0] = -tension * ux;
    f[1] = -tension * uy;
  }
};

// |P − A|² − l² = 0 for a moving point P and the ground point A (squared:
// no square root, regular at every configuration; seed 003 §4.1).
struct DistanceToGround {
  static constexpr int K = 2, R = 1;
  double ax, ay, l;
  template <class T>
  HS_HD void constraints(const T* q, T* phi) const {
    const T dx = q[0] - ax, dy = q[1] - ay;
    phi[0] = dx * dx + dy * dy - l * l;
  }
};

// |P_j − P_i|² − l² = 0 for two moving points (x_i, y_i, x_j, y_j).
struct Distance {
  static constexpr int K = 4, R = 1;
  double l;
  template <class T>
  HS_HD void constraints(const T* q, T* phi) const {
    const T dx = q[2] - q[0], dy = q[3] - q[1];
    phi[0] = dx * dx + dy * dy - l * l;
  }
};

// The angle φ of the line from the ground point A to P: (x − a_x) sin φ −
// (y − a_y) cos φ = 0 on (x, y, φ), whose ∂/∂φ is the distance |P − A|, so
// it is regular wherever the rod is (docs/models/nloop-and-flexible.md §3 item 5).
struct AngleOfLineFromGround {
  static constexpr int K = 3, R = 1;
  double ax, ay;
  template <class T>
  HS_HD void constraints(const T* q, T* phi) const {
    T s, c;
    math::sincos(q[2], &s, &c);
    phi[0] = (q[0] - ax) * s - (q[1] - ay) * c;
  }
};

}  // namespace natural
}  // namespace hs
