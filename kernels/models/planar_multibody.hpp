// A planar mechanism described as data (a user's model file,
// docs/model-files.md; docs/models/planar-multibody.md): one generic DAE
// mechanism whose bodies, joints, loop closures and cylinders are
// parameters, so that one compiled kernel per formulation runs every
// machine that fits its capacity (Capacity: coordinates, constraints,
// actuators, named points).
//
// Coordinates: relative joint coordinates of a spanning tree (seed 001 §2.1,
// as PlanarLoopChain): every body hangs from one tree joint on a point of its
// parent (a body or the ground), revolute (z = the body's angle relative to
// the parent) or prismatic (z = the slide along a direction of the parent).
// The body's frame has its origin at that joint. Loops are closed by cut
// joints between two points (seed 001 eq 13):
//   revolute cut    P_a − P_b = 0                                   (2 rows)
//   prismatic cut   θ_a − θ_b − α = 0,  u_b × (P_a − P_b) = 0        (2 rows)
//                   u_b = R(θ_b)(cos β, sin β): the slot direction β in b's frame
// Equations of motion by virtual power on the bodies' planar frames (the
// planar case of kernels/models/rigid_body_system.hpp eq (1)):
//   e_k = Σ_b m_b (g̈_b − a_grav) · ∂g_b/∂x_k + I_b θ̈_b ∂θ_b/∂x_k
// with g̈, θ̈ from the path jet (kernels/core/derivatives.hpp) and the
// partial velocities ∂g/∂x, ∂θ/∂x from the tree (mechanism_residual_along).
// Cylinders: s_a = |P_rod − P_base|.
//
// Capacity and padding (docs/models/planar-multibody.md §3): the kernel has
// Capacity::nq coordinates and Capacity::nc constraints; a described
// mechanism with fewer uses the first ones, and the rest are padding that
// cannot move: a padding coordinate k has the residual row e_k = ẍ_k (unit
// mass, no force) and, where a constraint row is left over, Φ_r = x_k. The
// degrees of freedom nq − nc are fixed by the capacity: the builder
// (host/registry/model_file.cpp) puts the file's driving coordinates first,
// then free padding up to ni, then the other joint coordinates, then the
// constrained padding, so that the driving coordinates are x_0 … x_{ni−1}
// (driving(), as every mechanism of the DAE contract declares them).
#pragma once
#include "../core/derivatives.hpp"
#include "../core/dual.hpp"
#include "../core/small_matrix.hpp"

namespace hs {

// NQ coordinates, NC constraints (two per cut joint, the rest padding), NA
// cylinders, NP named points.
template <int NQ, int NC, int NA, int NP>
struct PlanarCapacity {
  static constexpr int nq = NQ, nc = NC, na = NA, points = NP;
  static constexpr int bodies = NQ, cuts = NC / 2;
  static_assert(NQ > NC && NC >= 1, "a mechanism with at least one degree of freedom and one constraint row");
};

template <class Capacity>
struct PlanarMultibodyParams {
  // A point fixed to a body (or to the ground, body −1), in its frame.
  struct Point {
    double x, y;
    int body;
  };
  struct Body {
    double mass;     // [kg]
    double inertia;  // about the centre of mass [kg m²]
    double com_x, com_y;
    double initial;      // x(0) of its joint coordinate (a guess unless driving) [rad or m]
    double slide_angle;  // prismatic: slide direction in the parent's frame [rad]
    double orientation;  // prismatic: the body's fixed angle relative to its parent [rad]
    int joint_point;     // the parent's point it hangs from (index into point[])
    int prismatic;       // 0: revolute, 1: prismatic
    int slot;            // its coordinate's index in x
  };
  struct Cut {
    double axis_angle;      // prismatic: slot direction β in body b's frame [rad]
    double relative_angle;  // prismatic: θ_a − θ_b [rad]
    int point_a, point_b;
    int prismatic;
  };
  struct Cylinder {
    int base_point, rod_point;  // s = |rod − base|
  };
  Point point[Capacity::points];
  Body body[Capacity::bodies];  // parents before children
  Cut cut[Capacity::cuts];
  Cylinder cylinder[Capacity::na];
  double gravity_x = 0.0, gravity_y = -9.81;  // [m/s²]
  int bodies = 0, cuts = 0;
  // Padding rows Φ_r = x_{pad_slot[r]} for r ≥ 2·cuts; slot_used[k]: 1 for a
  // joint coordinate, 0 for padding.
  int pad_slot[Capacity::nc];
  int slot_used[Capacity::nq];
};

template <class Capacity>
struct PlanarMultibodyDae {
  using Params = PlanarMultibodyParams<Capacity>;
  static constexpr int n = Capacity::nq;
  static constexpr int m = Capacity::nc;
  static constexpr int ni = n - m;
  static constexpr int na = Capacity::na;

  HS_HD static void driving(int* indep) {
    for (int j = 0; j < ni; ++j) indep[j] = j;
  }
  HS_HD static int driving_coordinate() { return 0; }

  // Where every body is on scalar S: its absolute angle (with cos, sin) and
  // the origin of its frame (its tree joint).
  template <class S>
  struct Placement {
    S theta, c, s;
    V2<S> origin;
  };
  template <class S>
  struct Placements {
    Placement<S> body[Capacity::bodies];
  };

  // Point p in the world, on the placements (ground points are constants).
  template <class S>
  HS_HD HS_FORCEINLINE static V2<S> world_point(const Params& P, const Placements<S>& pl, int p) {
    const auto& pt = P.point[p];
    if (pt.body < 0) return V2<S>{S(pt.x), S(pt.y)};
    const Placement<S>& b = pl.body[pt.body];
    return V2<S>{b.origin.x + b.c * pt.x - b.s * pt.y, b.origin.y + b.s * pt.x + b.c * pt.y};
  }
  template <class S>
  HS_HD HS_FORCEINLINE static S body_angle(const Placements<S>& pl, int b) {
    return b < 0 ? S(0.0) : pl.body[b].theta;
  }

  // The tree recursion (seed 001 eqs 1–2 in positions): parents first.
  template <class S>
  HS_HD static Placements<S> place(const Params& P, const S* x) {
    Placements<S> pl;
    for (int j = 0; j < P.bodies; ++j) {
      const auto& B = P.body[j];
      const int parent = P.point[B.joint_point].body;
      const S parent_theta = body_angle(pl, parent);
      const V2<S> at = world_point(P, pl, B.joint_point);
      Placement<S>& b = pl.body[j];
      if (B.prismatic) {
        b.theta = parent_theta + B.orientation;
        S su, cu;
        math::sincos(parent_theta + B.slide_angle, &su, &cu);
        b.origin = V2<S>{at.x + x[B.slot] * cu, at.y + x[B.slot] * su};
      } else {
        b.theta = parent_theta + x[B.slot];
        b.origin = at;
      }
      math::sincos(b.theta, &b.s, &b.c);
    }
    return pl;
  }

  // Φ(x): two rows per cut joint, then the padding rows.
  template <class S>
  HS_HD static void constraints(const Params& P, const S* x, S* phi) {
    const Placements<S> pl = place(P, x);
    for (int k = 0; k < P.cuts; ++k) {
      const auto& C = P.cut[k];
      const V2<S> a = world_point(P, pl, C.point_a), b = world_point(P, pl, C.point_b);
      if (C.prismatic) {
        const int body_a = P.point[C.point_a].body, body_b = P.point[C.point_b].body;
        const S theta_b = body_angle(pl, body_b);
        S su, cu;
        math::sincos(theta_b + C.axis_angle, &su, &cu);
        phi[2 * k] = body_angle(pl, body_a) - theta_b - C.relative_angle;
        phi[2 * k + 1] = cross(V2<S>{cu, su}, a - b);
      } else {
        phi[2 * k] = a.x - b.x;
        phi[2 * k + 1] = a.y - b.y;
      }
    }
    for (int r = 2 * P.cuts; r < m; ++r) phi[r] = x[P.pad_slot[r]];
  }

  template <class S>
  HS_HD static S actuator_length(const Params& P, const S* x, int a) {
    const Placements<S> pl = place(P, x);
    const V2<S> d = world_point(P, pl, P.cylinder[a].rod_point) - world_point(P, pl, P.cylinder[a].base_point);
    return math::sqrt(dot(d, d));
  }

  // e = M(x) ẍ + c(x, ẋ) − Q_grav(x), projected on the directions (Dᵀe);
  // padding rows add ẍ_k. The partial velocities come from the tree itself
  // (as the semirecursive eq (11) of seed 001 has them): turning revolute
  // joint k moves every point of the bodies outboard of it by
  // k × (g − r_k) and turns them by 1; sliding prismatic joint k moves them
  // by its direction u_k. So with the inertia-minus-gravity force f_b and
  // torque τ_b of each body (g̈, θ̈ from one pass on the path jet),
  //   e_k = Σ_{b outboard of k} (g_b − r_k) × f_b + τ_b   (revolute)
  //   e_k = Σ_{b outboard of k} u_k · f_b                  (prismatic),
  // the virtual power of the header's equation without a pass on Dual<n>.
  template <class Dir, class T>
  HS_HD static void mechanism_residual_along(const Params& P, const Dir& dir, const T* x, const T* xd, const T* xdd,
                                             T* e_dir) {
    using Path = PathJet<T>;
    Path xp[n];
    seed_path<T>(x, xd, xdd, n, xp);
    const Placements<Path> fp = place(P, xp);
    T e[n];
    for (int k = 0; k < n; ++k) e[k] = P.slot_used[k] ? T(0.0) : xdd[k];  // padding: unit mass
    for (int b = 0; b < P.bodies; ++b) {
      const auto& B = P.body[b];
      const auto& pp = fp.body[b];
      const Path gx = pp.origin.x + pp.c * B.com_x - pp.s * B.com_y;
      const Path gy = pp.origin.y + pp.s * B.com_x + pp.c * B.com_y;
      const V2<T> f{B.mass * (path_second_rate(gx) - P.gravity_x), B.mass * (path_second_rate(gy) - P.gravity_y)};
      const T torque = B.inertia * path_second_rate(pp.theta);
      const V2<T> g{path_value(gx), path_value(gy)};
      // Up the tree from b to the ground: every joint it hangs from.
      for (int k = b; k >= 0; k = P.point[P.body[k].joint_point].body) {
        const auto& J = P.body[k];
        if (J.prismatic) {
          const int parent = P.point[J.joint_point].body;
          const T phi = (parent < 0 ? T(0.0) : path_value(fp.body[parent].theta)) + J.slide_angle;
          T su, cu;
          math::sincos(phi, &su, &cu);
          e[J.slot] += cu * f.x + su * f.y;
        } else {
          const V2<T> r{path_value(fp.body[k].origin.x), path_value(fp.body[k].origin.y)};
          e[J.slot] += cross(g - r, f) + torque;
        }
      }
    }
    for (int j = 0; j < Dir::nd; ++j) {
      T sum(0.0);
      for (int k = 0; k < n; ++k) sum += T(dir(k, j)) * e[k];
      e_dir[j] = sum;
    }
  }
  template <class T>
  HS_HD static void mechanism_residual(const Params& P, const T* x, const T* xd, const T* xdd, T* e) {
    mechanism_residual_along(P, UnitDirections<n>{}, x, xd, xdd, e);
  }

  // T = Σ ½ m_b |ġ_b|² + ½ I_b θ̇_b², the rates from one pass on x + ẋε.
  template <class T>
  HS_HD static T kinetic_energy(const Params& P, const T* x, const T* xd) {
    using Rate = Dual<1, T>;
    Rate xr[n];
    for (int k = 0; k < n; ++k) {
      xr[k] = Rate(x[k]);
      xr[k].v[0] = xd[k];
    }
    const Placements<Rate> pl = place(P, xr);
    T E(0.0);
    for (int b = 0; b < P.bodies; ++b) {
      const auto& B = P.body[b];
      const auto& q = pl.body[b];
      const Rate gx = q.origin.x + q.c * B.com_x - q.s * B.com_y;
      const Rate gy = q.origin.y + q.s * B.com_x + q.c * B.com_y;
      E += 0.5 * B.mass * (gx.v[0] * gx.v[0] + gy.v[0] * gy.v[0]) + 0.5 * B.inertia * (q.theta.v[0] * q.theta.v[0]);
    }
    for (int k = 0; k < n; ++k)
      if (!P.slot_used[k]) E += 0.5 * xd[k] * xd[k];  // padding's unit mass (stays at rest)
    return E;
  }
  // V = −Σ m_b a_grav · g_b.
  template <class T>
  HS_HD static T potential_energy(const Params& P, const T* x) {
    const Placements<T> pl = place(P, x);
    T E(0.0);
    for (int b = 0; b < P.bodies; ++b) {
      const auto& B = P.body[b];
      const auto& q = pl.body[b];
      const T gx = q.origin.x + q.c * B.com_x - q.s * B.com_y;
      const T gy = q.origin.y + q.s * B.com_x + q.c * B.com_y;
      E -= B.mass * (P.gravity_x * gx + P.gravity_y * gy);
    }
    return E;
  }

  // The file's initial joint coordinates: the driving ones held, the others
  // guesses that name the assembly mode (closed by the integrator's Newton
  // on Φ); padding at 0.
  HS_HD static void initial_guess(const Params& P, double* x) {
    for (int k = 0; k < n; ++k) x[k] = 0.0;
    for (int j = 0; j < P.bodies; ++j) x[P.body[j].slot] = P.body[j].initial;
  }
};

}  // namespace hs
