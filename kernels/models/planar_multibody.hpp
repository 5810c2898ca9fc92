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
#include "../control/cylinder_inputs.hpp"
#include "../hydraulics/circuit_choice.hpp"
#include "../hydraulics/servo_valve_circuit.hpp"
#include "../hydraulics/three_volume_circuit.hpp"
#include "../hydraulics/two_volume_circuit.hpp"
#include "dae_mechanism.hpp"

namespace hs {

// NQ coordinates, NC constraints (two per cut joint, the rest padding), NA
// cylinders, NP named points.
template <int NQ, int NC, int NA, int NP>
struct PlanarCapacity {
  static constexpr int nq = NQ, nc = NC, na = NA, points = NP;
  static constexpr int bodies = NQ, cuts = NC / 2;
  static_assert(NQ > NC && NC >= 1, "a mechanism with at least one degree of freedom and one constraint row");
};

// R: double, or Lanes<W> for W instances in lockstep (kernels/core/lanes.hpp):
// the reals per lane, the structure (which body a point is on, a joint's
// type and slot, the tree, the padding) the same in every lane of a batch.
template <class Capacity, class R = double>
struct PlanarMultibodyParamsT {
  using Real = R;
  // A point fixed to a body (or to the ground, body −1), in its frame.
  struct Point {
    R x, y;
    int body;
  };
  struct Body {
    R mass;     // [kg]
    R inertia;  // about the centre of mass [kg m²]
    R com_x, com_y;
    R initial;      // x(0) of its joint coordinate (a guess unless driving) [rad or m]
    R slide_angle;  // prismatic: slide direction in the parent's frame [rad]
    R orientation;  // prismatic: the body's fixed angle relative to its parent [rad]
    int joint_point;     // the parent's point it hangs from (index into point[])
    int prismatic;       // 0: revolute, 1: prismatic
    int slot;            // its coordinate's index in x
  };
  struct Cut {
    R axis_angle;      // prismatic: slot direction β in body b's frame [rad]
    R relative_angle;  // prismatic: θ_a − θ_b [rad]
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
  R gravity_x = 0.0, gravity_y = -9.81;  // [m/s²]
  int bodies = 0, cuts = 0;
  // Padding rows Φ_r = x_{pad_slot[r]} for r ≥ 2·cuts; slot_used[k]: 1 for a
  // joint coordinate, 0 for padding.
  int pad_slot[Capacity::nc];
  int slot_used[Capacity::nq];
};

template <class Capacity>
using PlanarMultibodyParams = PlanarMultibodyParamsT<Capacity, double>;

// Every field of two parameter sets side by side (host-side, for lanes):
// real(to_field, from_field) on the reals, structural(to_field, from_field)
// on the structure. One list of the fields for gathering instances into
// lanes and for telling whether two instances may share them
// (kernels/integrators/lockstep.hpp).
template <class Capacity, class To, class From, class Real, class Structural>
void for_each_planar_multibody_field(To& to, const From& from, Real&& real, Structural&& structural) {
  for (int i = 0; i < Capacity::points; ++i) {
    real(to.point[i].x, from.point[i].x);
    real(to.point[i].y, from.point[i].y);
    structural(to.point[i].body, from.point[i].body);
  }
  for (int b = 0; b < Capacity::bodies; ++b) {
    auto& t = to.body[b];
    const auto& f = from.body[b];
    real(t.mass, f.mass);
    real(t.inertia, f.inertia);
    real(t.com_x, f.com_x);
    real(t.com_y, f.com_y);
    real(t.initial, f.initial);
    real(t.slide_angle, f.slide_angle);
    real(t.orientation, f.orientation);
    structural(t.joint_point, f.joint_point);
    structural(t.prismatic, f.prismatic);
    structural(t.slot, f.slot);
  }
  for (int c = 0; c < Capacity::cuts; ++c) {
    real(to.cut[c].axis_angle, from.cut[c].axis_angle);
    real(to.cut[c].relative_angle, from.cut[c].relative_angle);
    structural(to.cut[c].point_a, from.cut[c].point_a);
    structural(to.cut[c].point_b, from.cut[c].point_b);
    structural(to.cut[c].prismatic, from.cut[c].prismatic);
  }
  for (int a = 0; a < Capacity::na; ++a) {
    structural(to.cylinder[a].base_point, from.cylinder[a].base_point);
    structural(to.cylinder[a].rod_point, from.cylinder[a].rod_point);
  }
  real(to.gravity_x, from.gravity_x);
  real(to.gravity_y, from.gravity_y);
  structural(to.bodies, from.bodies);
  structural(to.cuts, from.cuts);
  for (int r = 0; r < Capacity::nc; ++r) structural(to.pad_slot[r], from.pad_slot[r]);
  for (int k = 0; k < Capacity::nq; ++k) structural(to.slot_used[k], from.slot_used[k]);
}

template <class Capacity>
struct PlanarMultibodyDae {
  using Params = PlanarMultibodyParams<Capacity>;
  template <class R>
  using ParamsOn = PlanarMultibodyParamsT<Capacity, R>;
  static constexpr int n = Capacity::nq;
  static constexpr int m = Capacity::nc;
  static constexpr int ni = n - m;
  static constexpr int na = Capacity::na;
  // Its models' input: per cylinder a valve schedule or a stroke or joint
  // controller (docs/model-files.md §8).
  using Input = CylinderInputs<na>;
  // Its cylinders' circuit: each names its own (docs/model-files.md §4), one
  // compiled policy for all (kernels/hydraulics/circuit_choice.hpp).
  using Circuit = CircuitChoice<ThreeVolumeCircuit, TwoVolumeCircuit, ServoValveCircuit>;

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
  template <class S, class R>
  HS_HD HS_FORCEINLINE static V2<S> world_point(const ParamsOn<R>& P, const Placements<S>& pl, int p) {
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
  template <class S, class R>
  HS_HD static Placements<S> place(const ParamsOn<R>& P, const S* x) {
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
  template <class S, class R>
  HS_HD static void constraints(const ParamsOn<R>& P, const S* x, S* phi) {
    constraints_at(P, place(P, x), x, phi);
  }
  // Φ from placements already made at x.
  template <class S, class R>
  HS_HD static void constraints_at(const ParamsOn<R>& P, const Placements<S>& pl, const S* x, S* phi) {
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

  template <class S, class R>
  HS_HD static S actuator_length(const ParamsOn<R>& P, const S* x, int a) {
    const Placements<S> pl = place(P, x);
    const V2<S> d = world_point(P, pl, P.cylinder[a].rod_point) - world_point(P, pl, P.cylinder[a].base_point);
    return math::sqrt(dot(d, d));
  }

  // e = M(x) ẍ + c(x, ẋ) − Q_grav(x) from the bodies' placements (values),
  // their centres of mass' accelerations g̈_b and angular accelerations θ̈_b;
  // padding rows are ẍ_k (unit mass). The partial velocities come from the
  // tree itself (as the semirecursive eq (11) of seed 001 has them): turning
  // revolute joint k moves every point of the bodies outboard of it by
  // k × (g − r_k) and turns them by 1; sliding prismatic joint k moves them
  // by its direction u_k. So with the inertia-minus-gravity force f_b and
  // torque τ_b of each body,
  //   e_k = Σ_{b outboard of k} (g_b − r_k) × f_b + τ_b   (revolute)
  //   e_k = Σ_{b outboard of k} u_k · f_b                  (prismatic),
  // the virtual power of the header's equation without a pass on Dual<n>.
  template <class T, class R>
  HS_HD static void residual_from(const ParamsOn<R>& P, const Placements<T>& pl, const V2<T>* gdd, const T* thdd,
                                  const T* xdd, T* e) {
    for (int k = 0; k < n; ++k) e[k] = P.slot_used[k] ? T(0.0) : xdd[k];
    for (int b = 0; b < P.bodies; ++b) {
      const auto& B = P.body[b];
      const V2<T> f{B.mass * (gdd[b].x - P.gravity_x), B.mass * (gdd[b].y - P.gravity_y)};
      const T torque = B.inertia * thdd[b];
      const V2<T> g = com_of(P, pl, b);
      for (int k = b; k >= 0; k = P.point[P.body[k].joint_point].body) {  // up the tree to the ground
        const auto& J = P.body[k];
        if (J.prismatic) {
          T su, cu;
          math::sincos(body_angle(pl, P.point[J.joint_point].body) + J.slide_angle, &su, &cu);
          e[J.slot] += cu * f.x + su * f.y;
        } else {
          e[J.slot] += cross(g - pl.body[k].origin, f) + torque;
        }
      }
    }
  }
  template <class S, class R>
  HS_HD HS_FORCEINLINE static V2<S> com_of(const ParamsOn<R>& P, const Placements<S>& pl, int b) {
    const auto& q = pl.body[b];
    return V2<S>{q.origin.x + q.c * P.body[b].com_x - q.s * P.body[b].com_y,
                 q.origin.y + q.s * P.body[b].com_x + q.c * P.body[b].com_y};
  }
  // Projected on the directions (Dᵀe), with g̈, θ̈ from one pass on the path
  // jet x + ẋτ1 + ẋτ2 + ẍτ1τ2 (kernels/core/derivatives.hpp).
  template <class Dir, class T, class R>
  HS_HD static void mechanism_residual_along(const ParamsOn<R>& P, const Dir& dir, const T* x, const T* xd, const T* xdd,
                                             T* e_dir) {
    using Path = PathJet<T>;
    Path xp[n];
    seed_path<T>(x, xd, xdd, n, xp);
    const Placements<Path> fp = place(P, xp);
    Placements<T> pl;
    V2<T> gdd[Capacity::bodies];
    T thdd[Capacity::bodies];
    for (int b = 0; b < P.bodies; ++b) {
      const auto& q = fp.body[b];
      pl.body[b] = {path_value(q.theta), path_value(q.c), path_value(q.s),
                    V2<T>{path_value(q.origin.x), path_value(q.origin.y)}};
      const V2<Path> g = com_of(P, fp, b);
      gdd[b] = V2<T>{path_second_rate(g.x), path_second_rate(g.y)};
      thdd[b] = path_second_rate(q.theta);
    }
    T e[n];
    residual_from(P, pl, gdd, thdd, xdd, e);
    for (int j = 0; j < Dir::nd; ++j) {
      T sum(0.0);
      for (int k = 0; k < n; ++k) sum += T(dir(k, j)) * e[k];
      e_dir[j] = sum;
    }
  }
  template <class T, class R>
  HS_HD static void mechanism_residual(const ParamsOn<R>& P, const T* x, const T* xd, const T* xdd, T* e) {
    mechanism_residual_along(P, UnitDirections<n>{}, x, xd, xdd, e);
  }

  // T = Σ ½ m_b |ġ_b|² + ½ I_b θ̇_b², the rates from one pass on x + ẋε.
  template <class T, class R>
  HS_HD static T kinetic_energy(const ParamsOn<R>& P, const T* x, const T* xd) {
    using Rate = RateJet<T>;
    Rate xr[n];
    seed_rate<T>(x, xd, n, xr);
    const Placements<Rate> pl = place(P, xr);
    T E(0.0);
    for (int b = 0; b < P.bodies; ++b) {
      const auto& B = P.body[b];
      const V2<Rate> g = com_of(P, pl, b);
      const T w = pl.body[b].theta.v[0];
      E += 0.5 * B.mass * (g.x.v[0] * g.x.v[0] + g.y.v[0] * g.y.v[0]) + 0.5 * B.inertia * (w * w);
    }
    for (int k = 0; k < n; ++k)
      if (!P.slot_used[k]) E += 0.5 * xd[k] * xd[k];  // padding's unit mass (stays at rest)
    return E;
  }
  // V = −Σ m_b a_grav · g_b.
  template <class T, class R>
  HS_HD static T potential_energy(const ParamsOn<R>& P, const T* x) {
    const Placements<T> pl = place(P, x);
    T E(0.0);
    for (int b = 0; b < P.bodies; ++b) {
      const V2<T> g = com_of(P, pl, b);
      E -= P.body[b].mass * (P.gravity_x * g.x + P.gravity_y * g.y);
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

// The same mechanism through the integrators' semirecursive interface (the
// one PlanarLoopChain has; docs/models/integrators.md §11), for the double
// step and the penalty formulation: the constraint Jacobian and ∂s/∂x come
// from the tree in closed form instead of a pass on Dual<n> (DaeMechanism's
// generic way), which was most of the model's cost per Newton iteration
// (docs/models/planar-multibody.md §8). A point W of body b moves under
// joint k of its chain (seed 001 eq 2):
//   revolute k:  ∂W/∂x_k = k × (W − r_k),  ∂θ_b/∂x_k = 1
//   prismatic k: ∂W/∂x_k = u_k,            ∂θ_b/∂x_k = 0
// (r_k the joint's point, u_k its slide direction). The residual is the
// DAE's (mechanism_residual_along); the bias Φ̇_x ẋ comes from the path jet
// on Φ, as DaeMechanism takes it.
template <class Capacity>
struct PlanarMultibody : CoordinateAccelerations<Capacity::nq>, StoredPoseConstraints<Capacity::nq, Capacity::nc> {
  using Dae = PlanarMultibodyDae<Capacity>;
  using Params = typename Dae::Params;
  template <class R>
  using ParamsOn = typename Dae::template ParamsOn<R>;
  static constexpr int nq = Dae::n;
  static constexpr int nc = Dae::m;
  static constexpr int na = Dae::na;

  HS_HD static void driving(int* indep) { Dae::driving(indep); }
  HS_HD static void assembly_guess(const Params& P, double* x) { Dae::initial_guess(P, x); }

  template <class T, class R = double>
  struct Pose {
    const ParamsOn<R>* params;
    typename Dae::template Placements<T> pl;
    T x[nq];
    T phi[nc];
    T jacobian[nc][nq];
  };
  // The rates, and what the accelerations are at ẍ = 0 (the bias): of the
  // constraints (Φ̇_x ẋ) and of the centres of mass, from one pass on the
  // path jet x + ẋτ1 + ẋτ2. The accelerations are affine in ẍ: g̈_b = bias_b
  // + Σ_k ∂g_b/∂x_k ẍ_k, θ̈_b = Σ over its revolute joints ẍ_k.
  template <class T>
  struct Motion {
    T x[nq], xd[nq];
    T phi_bias[nc];
    V2<T> com_bias[Capacity::bodies];
  };
  template <class T>
  using Acceleration = typename CoordinateAccelerations<nq>::template Acceleration<T>;
  template <class T>
  struct Actuator {
    T length, rate;
    T ds_dx[nq];
  };

  // sign · ∂W/∂x into the rows (gx, gy) for the world point W of point p.
  template <class T, class R>
  HS_HD static void add_point_jacobian(const ParamsOn<R>& P, const typename Dae::template Placements<T>& pl, int p,
                                       const V2<T>& W, double sign, T* gx, T* gy) {
    for (int k = P.point[p].body; k >= 0; k = P.point[P.body[k].joint_point].body) {
      const auto& J = P.body[k];
      if (J.prismatic) {
        const int parent = P.point[J.joint_point].body;
        T su, cu;
        math::sincos(Dae::body_angle(pl, parent) + J.slide_angle, &su, &cu);
        gx[J.slot] += sign * cu;
        gy[J.slot] += sign * su;
      } else {
        gx[J.slot] -= sign * (W.y - pl.body[k].origin.y);
        gy[J.slot] += sign * (W.x - pl.body[k].origin.x);
      }
    }
  }
  // sign · ∂θ_b/∂x into row g.
  template <class T, class R>
  HS_HD static void add_angle_jacobian(const ParamsOn<R>& P, int b, double sign, T* g) {
    for (int k = b; k >= 0; k = P.point[P.body[k].joint_point].body)
      if (!P.body[k].prismatic) g[P.body[k].slot] += T(sign);
  }

  template <class T, class R>
  HS_HD static Pose<T, R> pose(const ParamsOn<R>& P, const T* x) {
    Pose<T, R> p;
    p.params = &P;
    for (int k = 0; k < nq; ++k) p.x[k] = x[k];
    p.pl = Dae::place(P, x);
    for (int r = 0; r < nc; ++r)
      for (int k = 0; k < nq; ++k) p.jacobian[r][k] = T(0.0);
    for (int c = 0; c < P.cuts; ++c) {
      const auto& C = P.cut[c];
      const V2<T> a = Dae::world_point(P, p.pl, C.point_a), b = Dae::world_point(P, p.pl, C.point_b);
      T* row0 = p.jacobian[2 * c];
      T* row1 = p.jacobian[2 * c + 1];
      if (C.prismatic) {  // Φ1 = θ_a − θ_b − α, Φ2 = u × (a − b)
        const int body_a = P.point[C.point_a].body, body_b = P.point[C.point_b].body;
        const T theta_b = Dae::body_angle(p.pl, body_b);
        T su, cu;
        math::sincos(theta_b + C.axis_angle, &su, &cu);
        const V2<T> d = a - b;
        p.phi[2 * c] = Dae::body_angle(p.pl, body_a) - theta_b - C.relative_angle;
        p.phi[2 * c + 1] = cross(V2<T>{cu, su}, d);
        add_angle_jacobian<T>(P, body_a, 1.0, row0);
        add_angle_jacobian<T>(P, body_b, -1.0, row0);
        // ∂Φ2 = (∂u) × d + u × ∂d, ∂u = k × u per turn of b: (k × u) × d = −u · d.
        T dx[nq], dy[nq], turn[nq];
        for (int k = 0; k < nq; ++k) dx[k] = dy[k] = turn[k] = T(0.0);
        add_point_jacobian<T>(P, p.pl, C.point_a, a, 1.0, dx, dy);
        add_point_jacobian<T>(P, p.pl, C.point_b, b, -1.0, dx, dy);
        add_angle_jacobian<T>(P, body_b, 1.0, turn);
        const T u_dot_d = cu * d.x + su * d.y;
        for (int k = 0; k < nq; ++k) row1[k] = cu * dy[k] - su * dx[k] - turn[k] * u_dot_d;
      } else {  // Φ = a − b
        p.phi[2 * c] = a.x - b.x;
        p.phi[2 * c + 1] = a.y - b.y;
        add_point_jacobian<T>(P, p.pl, C.point_a, a, 1.0, row0, row1);
        add_point_jacobian<T>(P, p.pl, C.point_b, b, -1.0, row0, row1);
      }
    }
    for (int r = 2 * P.cuts; r < nc; ++r) {
      p.phi[r] = x[P.pad_slot[r]];
      p.jacobian[r][P.pad_slot[r]] = T(1.0);
    }
    return p;
  }

  template <class T, class R>
  HS_HD static Motion<T> motion(const Pose<T, R>& p, const T* xd) {
    using Path = PathJet<T>;
    const ParamsOn<R>& P = *p.params;
    Motion<T> m;
    for (int k = 0; k < nq; ++k) {
      m.x[k] = p.x[k];
      m.xd[k] = xd[k];
    }
    Path xp[nq], cp[nc];
    seed_path<T>(m.x, m.xd, static_cast<const T*>(nullptr), nq, xp);
    const typename Dae::template Placements<Path> fp = Dae::place(P, xp);
    Dae::constraints_at(P, fp, xp, cp);
    for (int r = 0; r < nc; ++r) m.phi_bias[r] = path_second_rate(cp[r]);
    for (int b = 0; b < P.bodies; ++b) {
      const V2<Path> g = Dae::com_of(P, fp, b);
      m.com_bias[b] = V2<T>{path_second_rate(g.x), path_second_rate(g.y)};
    }
    return m;
  }
  // Φ̈ = Φ_x ẍ + ẋᵀ∇²Φ ẋ (the bias from motion()).
  template <class T, class R>
  HS_HD static void constraint_acceleration(const Pose<T, R>& p, const Motion<T>& m, const Acceleration<T>& a, T* out) {
    for (int r = 0; r < nc; ++r) {
      T c = m.phi_bias[r];
      for (int k = 0; k < nq; ++k) c += p.jacobian[r][k] * a.xdd[k];
      out[r] = c;
    }
  }

  // s = |W_rod − W_base|, ∂s/∂x = u_s · (∂W_rod − ∂W_base), ṡ = ∂s/∂x ẋ.
  template <class T, class R>
  HS_HD static Actuator<T> actuator(const ParamsOn<R>& P, const Pose<T, R>& p, const Motion<T>& m, int a = 0) {
    const int base = P.cylinder[a].base_point, rod = P.cylinder[a].rod_point;
    const V2<T> wb = Dae::world_point(P, p.pl, base), wr = Dae::world_point(P, p.pl, rod);
    const V2<T> d = wr - wb;
    Actuator<T> act;
    act.length = math::sqrt(dot(d, d));
    const V2<T> u = (1.0 / act.length) * d;
    T gx[nq], gy[nq];
    for (int k = 0; k < nq; ++k) gx[k] = gy[k] = T(0.0);
    add_point_jacobian<T>(P, p.pl, rod, wr, 1.0, gx, gy);
    add_point_jacobian<T>(P, p.pl, base, wb, -1.0, gx, gy);
    T rate(0.0);
    for (int k = 0; k < nq; ++k) {
      act.ds_dx[k] = u.x * gx[k] + u.y * gy[k];
      rate += act.ds_dx[k] * m.xd[k];
    }
    act.rate = rate;
    return act;
  }

  // The DAE's residual (residual_from) with g̈_b = bias_b + Σ_k ∂g_b/∂x_k ẍ_k.
  template <class T, class R>
  HS_HD static void dynamics_residual(const ParamsOn<R>& P, const Pose<T, R>& p, const Motion<T>& m, const Acceleration<T>& a,
                                      T* r) {
    V2<T> gdd[Capacity::bodies];
    T thdd[Capacity::bodies];
    for (int b = 0; b < P.bodies; ++b) {
      const V2<T> g = Dae::com_of(P, p.pl, b);
      V2<T> acc = m.com_bias[b];
      T alpha(0.0);
      for (int k = b; k >= 0; k = P.point[P.body[k].joint_point].body) {
        const auto& J = P.body[k];
        const T xdd = a.xdd[J.slot];
        if (J.prismatic) {
          T su, cu;
          math::sincos(Dae::body_angle(p.pl, P.point[J.joint_point].body) + J.slide_angle, &su, &cu);
          acc = acc + xdd * V2<T>{cu, su};
        } else {
          acc = acc + xdd * perp(g - p.pl.body[k].origin);
          alpha += xdd;
        }
      }
      gdd[b] = acc;
      thdd[b] = alpha;
    }
    Dae::residual_from(P, p.pl, gdd, thdd, a.xdd, r);
  }
  template <class T, class R>
  HS_HD static T kinetic_energy(const ParamsOn<R>& P, const Motion<T>& m) {
    return Dae::kinetic_energy(P, m.x, m.xd);
  }
  template <class T, class R>
  HS_HD static T potential_energy(const ParamsOn<R>& P, const Pose<T, R>& p) {
    return Dae::potential_energy(P, p.x);
  }
};

}  // namespace hs
