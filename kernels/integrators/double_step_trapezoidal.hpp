// Fixed-step implicit trapezoidal rule, double-step (coordinate
// partitioning) semirecursive formulation: seed 001 §2.2 eqs (13)–(17) and
// §4 eqs (32)–(41), generic over a hydraulically actuated model.
//
// Primary variables x = [z_i | y_0 | y_1 | ...]: independent joint
// coordinates, then each actuator's states y_a = [p_a; w_a] (circuit
// pressures and friction states, seed 001 eq 48, seed 002 eq 47) at the
// compile-time offset ni + a·nsa (docs/models/integrators.md §11.2).
// Trapezoidal rule solved for the primaries, eqs (33)–(34):
//   ż_i = (2/dt) z_i + ẑ_i,   ẑ_i = −((2/dt) z_i,k + ż_i,k)
//   z̈_i = (4/dt²) z_i + ẑ̈_i,  ẑ̈_i = −((4/dt²) z_i,k + (4/dt) ż_i,k + z̈_i,k)
//   ṗ   = (2/dt) p + p̂,        p̂ = −((2/dt) p_k + ṗ_k)        (same for w)
// Residual, eq (38) without its common factor dt²/4 (a row scaling that
// leaves the Newton iterates unchanged):
//   f = [ R_zᵀ (M' z̈ − Q' − Σ_a F_a ∂s_a/∂z) ;  per actuator: ṗ_a − h(p_a, s_a, ṡ_a, U_a) ;  ẇ_a − u(w_a, ṡ_a) ]
// For every trial z_i the dependent coordinates solve the loop closure
// Φ(z_d; z_i) = 0 by an inner Newton iteration (docs/models/integrators.md §3.3), then
//   ż_d = −Φ_d⁻¹ Φ_i ż_i                         eq (13)
//   z̈_d = −Φ_d⁻¹ (Φ_i z̈_i + Φ̇_z ż)              eq (15)
// so the constraints hold to the inner tolerance at every step.
//
// Newton tangent: exact, by evaluating f once on Dual<nx> numbers. The
// inner solve runs on values; its derivative enters by the implicit
// function theorem, ∂z_d/∂z_i = −Φ_d⁻¹ Φ_i. Or by forward differences,
// eq (40)–(41), for comparison with the papers.
// The mechanism (kinematics, M'z̈ − Q', ∂s/∂z) depends on z_i alone, so it
// runs on Dual<ni> ("kinematic scalar"); the pressures and friction states
// act only through the actuator force F, which enters the reduced equations
// as − F R_zᵀ ∂s/∂z. Only F, the circuit and the friction law run on
// Dual<nx>. Same derivatives, a quarter of the work for the four-bar.
//
// Each spool U_a is integrated by the same rule in closed form (ambiguity A9);
// it is not a Newton unknown because its ODE is linear and decoupled. Its
// reference U_ref comes from the model's input policy (input_policy.hpp).
#pragma once
#include <type_traits>
#include <utility>

#include "../core/decision_log.hpp"
#include "../core/dual.hpp"
#include "../core/lu.hpp"
#include "../core/small_matrix.hpp"
#include "../models/hydraulically_actuated.hpp"
#include "newton_tangent.hpp"
#include "settings.hpp"

namespace hs {

// R = double: one instance, the scalar path of every backend. R = Lanes<W>
// (kernels/core/lanes.hpp, CPU only): W instances in lockstep, the same code
// with masks where the lanes diverge (docs/models/lanes.md §4): per-lane
// partitions (LaneIndex), per-lane loop-closure and Newton convergence (a
// lane that has converged keeps its iterate and its last evaluation while the
// others go on), per-lane pivoting, and a per-lane status. Each lane's
// results are its scalar run's, bit for bit.
template <class ModelT, class R = double>
struct DoubleStepTrapezoidal {
  using Model = ModelT;
  using Real = R;
  using Mask = MaskOf<R>;        // bool, or a mask of lanes
  using Index = LaneIndex<R>;    // int, or per-lane indices
  using StatusR = StatusOn<R>;   // Status, or per-lane status codes
  static constexpr bool one_instance = std::is_same<R, double>::value;
  using Mech = typename Model::Mechanism;
  using Friction = typename Model::Friction;
  using Circuit = typename Model::Circuit;
  using Actuator = typename Model::Actuator;
  using Actuators = typename Model::Actuators;
  using Input = typename Model::Input;
  using Params = typename ModelOn<Model, R>::Params;
  using Constants = typename ModelOn<Model, R>::Constants;
  static constexpr int nq = Model::nq;
  static constexpr int nc = Model::nc;
  static constexpr int na = Model::na;      // actuators
  static constexpr int npa = Model::npa;    // pressures per actuator
  static constexpr int nwa = Model::nwa;    // friction states per actuator
  static constexpr int nsa = Model::nsa;    // states per actuator
  static constexpr int np = Model::np;      // all pressures
  static constexpr int nw = Model::nw;      // all friction states
  static constexpr int ni = nq - nc;        // degrees of freedom
  static constexpr int nx = ni + np + nw;   // Newton unknowns
  // Offset of actuator a's states in x: pressures first, then friction states.
  HS_HD static constexpr int state_offset(int a) { return ni + a * nsa; }
  using Jet = Dual<nx, R>;

  // Which joint coordinates are independent (z_i) and dependent (z_d).
  struct Partition {
    Index indep[ni];
    Index dep[nc];
  };

  struct State {
    // Time on the step grid, t = t0 + steps·dt (grid_time), never a running
    // sum t += dt, which drifts ~1e-12 s off the grid over 1e4 steps. On
    // lanes the lanes step together: one grid for all.
    double t0 = 0.0;
    long steps = 0;
    double t = 0.0;
    R q[nq], qd[nq], qdd[nq];
    R p[np], pd[np];          // actuator a's pressures at a·npa
    Vec<R, nw> w, wd;         // actuator a's friction states at a·nwa
    R U[na] = {};             // spools
    R s_act[na] = {}, sdot_act[na] = {};  // actuator lengths and rates at t
    InputState<Input, na, R> input;  // the input policy's memory and held U_ref
    Partition part;  // the split of the next step, chosen at the end of the last (choose_partition)
  };

  // Scalar of the mechanism part for a residual on scalar T: R for R, and
  // Dual<ni, R> (derivatives along z_i only) for any dual number.
  template <class T>
  using Kinematic = typename HeadScalar<T, ni>::type;

  // Everything the model gives at one point of the trajectory.
  template <class T>
  struct Evaluation {
    using K = Kinematic<T>;
    K q[nq], qd[nq], qdd[nq];
    K s[na], sdot[na];      // actuator lengths and rates
    T piston_force[na];     // A2 p2 − A3 p3
    T friction_force[na];   // F_μ(ṡ)
    T reduced[ni];          // R_zᵀ (M' z̈ − Q' − Σ F_a ∂s_a/∂z), seed 001 eq (16)
    T pressure_rate[np];
    Vec<T, nw> friction_rate;
    K constraint_jacobian[nc][nq];  // Φ_z, for the next step's split (a state only: constraint_jacobian_at)
    R split_determinant;            // |det Φ_d| of the split evaluated with (values only; 0 if singular)
    K kinetic, potential;  // filled only when evaluate(..., Outputs::state or all)
  };

  // What evaluate() fills besides the kinematics and the actuator forces:
  // the Newton residual's rows (reduced, pressure_rate, friction_rate), the
  // energies and Φ_z (the next step's split), or both. A step's converged
  // state needs only the energies and Φ_z (docs/models/integrators.md §3.4).
  enum class Outputs { residual, state, all };

  // A pose that holds Φ_z (its `jacobian`: the DAE mechanisms' and the
  // model files', StoredPoseConstraints) lends it to evaluate(), which copies
  // it into the evaluation only for a state; the others' Φ_z is computed
  // into the evaluation. A residual on jets skips a copy of nc × nq jets that
  // nobody reads (on 8 lanes, 2.5 KB per residual for the quick-return).
  template <class Pose, class = void>
  struct PoseHoldsJacobian : std::false_type {};
  template <class Pose>
  struct PoseHoldsJacobian<Pose, std::void_t<decltype(std::declval<const Pose&>().jacobian)>> : std::true_type {};
  template <class Pose, class K>
  HS_HD static auto constraint_jacobian_at(const Pose& pose, K (&into)[nc][nq], bool keep) -> const K (&)[nc][nq] {
    if constexpr (PoseHoldsJacobian<Pose>::value) {
      if (keep) Mech::constraint_jacobian(pose, into);
      return pose.jacobian;
    } else {
      Mech::constraint_jacobian(pose, into);
      return into;
    }
  }

  // The mechanism's driving coordinates independent, the others dependent
  // (ascending order): the split held during assembly.
  HS_HD static Partition driving_partition() {
    int indep[ni], dep[nc];
    Mech::driving(indep);
    coordinate_complement<nq, ni>(indep, dep);
    Partition part;
    for (int j = 0; j < ni; ++j) part.indep[j] = Index(indep[j]);
    for (int r = 0; r < nc; ++r) part.dep[r] = Index(dep[r]);
    return part;
  }
  // The coordinate whose rate and value run_instance reports as the driving
  // joint's (settling time, tracking RMS): the first driving coordinate.
  HS_HD static int driving_coordinate() {
    int indep[ni];
    Mech::driving(indep);
    return indep[0];
  }

  // ---------------------------------------------------------------------
  // Loop closure

  // Solve Φ(z_d; z_i) = 0 for the dependent coordinates of q (its z_d
  // entries are the starting guess). On success S = ∂z_d/∂z_i = −Φ_d⁻¹Φ_i
  // at the solution and *residual = |Φ|∞. Returns whether it succeeded; on
  // lanes, the mask of the lanes that did among those `pending` at entry:
  // the others' q, S and residual are left as they were, and a lane that has
  // converged stops moving while the others iterate.
  HS_HD static Mask solve_dependent(const Params& P, const Partition& part, double tol, int max_iterations,
                                    R (&q)[nq], R (*S)[ni], R* residual, Mask pending = Mask(true)) {
    Mask solved(false);
    for (int it = 0;; ++it) {
      const auto pose = Mech::pose(P.mechanism, q);
      R phi[nc], J[nc][nq];
      Mech::constraints(P.mechanism, pose, phi);
      Mech::constraint_jacobian(pose, J);
      Mat<R, nc, nc> Jd;
      for (int r = 0; r < nc; ++r)
        for (int c = 0; c < nc; ++c) Jd(r, c) = select_at(J[r], part.dep[c]);
      Index perm[nc];
      pending = pending && lu_factor(Jd, perm);
      R err(0.0);
      for (int r = 0; r < nc; ++r) err = choose(math::abs(phi[r]) > err, math::abs(phi[r]), err);
      pending = pending && (err < 1e30);
      const Mask converged = pending && HS_DECISION(closure_converged, err <= tol, err, tol);
      if (any_lane(converged)) {
        for (int j = 0; j < ni; ++j) {
          R b[nc], y[nc];
          for (int r = 0; r < nc; ++r) b[r] = select_at(J[r], part.indep[j]);
          lu_solve(Jd, perm, b, y);
          for (int r = 0; r < nc; ++r) S[r][j] = choose(converged, -y[r], S[r][j]);
        }
        *residual = choose(converged, err, *residual);
        solved = solved || converged;
        pending = pending && !converged;
      }
      if (it >= max_iterations) return solved;
      if (!any_lane(pending)) return solved;
      R d[nc];
      lu_solve(Jd, perm, phi, d);
      for (int c = 0; c < nc; ++c)
        assign_at(q, part.dep[c], choose(pending, select_at(q, part.dep[c]) - d[c], select_at(q, part.dep[c])));
    }
  }

  // Independent coordinates by Gaussian elimination with full pivoting on
  // Φ_z (seed 001 §2.2): the columns that never hold a pivot, both lists in
  // ascending coordinate order (a deterministic layout). Returns the product
  // of the pivots, |det Φ_d| of the chosen split.
  // Every index is a compile-time constant: the pivot's row and column, the
  // swaps and the lists are reached by comparing, as in lu_factor, so on the
  // GPU the matrix stays in registers (issue 16), and on lanes (V = R) each
  // lane pivots on its own Φ_z with its scalar run's operations in the same
  // order (docs/models/lanes.md §4). A zero pivot stops the elimination (the
  // split is then singular, det 0), lane by lane.
  template <class V, class I>
  HS_HD static V full_pivot_partition(const V (&Phi_q)[nc][nq], I (&indep)[ni], I (&dep)[nc]) {
    using M = MaskOf<V>;
    constexpr bool scalar = std::is_same<M, bool>::value;
    V J[nc][nq];
    HS_UNROLL
    for (int r = 0; r < nc; ++r)
      HS_UNROLL
      for (int c = 0; c < nq; ++c) J[r][c] = Phi_q[r][c];
    I col[nq];
    HS_UNROLL
    for (int c = 0; c < nq; ++c) col[c] = I(c);
    V det(1.0);
    M stopped(false);
    HS_UNROLL
    for (int k = 0; k < nc; ++k) {
      // The largest |J_rc| over r, c ≥ k, the first in row-major order.
      I pr(k), pc(k);
      V best = math::abs(J[k][k]);
      HS_UNROLL
      for (int r = k; r < nc; ++r)
        HS_UNROLL
        for (int c = k; c < nq; ++c) {
          const V m = math::abs(J[r][c]);
          const M larger = m > best;
          best = choose(larger, m, best);
          pr = choose(larger, I(r), pr);
          pc = choose(larger, I(c), pc);
        }
      const M go = !stopped;
      HS_UNROLL
      for (int r = k + 1; r < nc; ++r) {  // rows k <-> pr
        const M swap = go && (pr == I(r));
        HS_UNROLL
        for (int c = 0; c < nq; ++c) swap_where(swap, J[k][c], J[r][c]);
      }
      HS_UNROLL
      for (int c = k + 1; c < nq; ++c) {  // columns k <-> pc
        const M swap = go && (pc == I(c));
        HS_UNROLL
        for (int r = 0; r < nc; ++r) swap_where(swap, J[r][k], J[r][c]);
        swap_where(swap, col[k], col[c]);
      }
      det = choose(go, det * math::abs(J[k][k]), det);
      stopped = stopped || (J[k][k] == 0.0);
      if constexpr (scalar) {
        if (stopped) break;
      }
      HS_UNROLL
      for (int r = k + 1; r < nc; ++r) {
        const V l = J[r][k] / J[k][k];
        HS_UNROLL
        for (int c = k; c < nq; ++c) J[r][c] = choose(stopped, J[r][c], J[r][c] - l * J[k][c]);
      }
    }
    // Coordinate c is dependent if a pivot column moved it into the first nc.
    I n_indep(0), n_dep(0);
    HS_UNROLL
    for (int j = 0; j < ni; ++j) indep[j] = I(0);
    HS_UNROLL
    for (int r = 0; r < nc; ++r) dep[r] = I(0);
    HS_UNROLL
    for (int c = 0; c < nq; ++c) {
      M is_dep(false);
      HS_UNROLL
      for (int k = 0; k < nc; ++k) is_dep = is_dep || (col[k] == I(c));
      HS_UNROLL
      for (int j = 0; j < ni; ++j) indep[j] = choose(!is_dep && (n_indep == I(j)), I(c), indep[j]);
      HS_UNROLL
      for (int r = 0; r < nc; ++r) dep[r] = choose(is_dep && (n_dep == I(r)), I(c), dep[r]);
      n_indep = choose(is_dep, n_indep, n_indep + I(1));
      n_dep = choose(is_dep, n_dep + I(1), n_dep);
    }
    return det;
  }

  // |det Φ_d| for a given split (0 where Φ_d is singular).
  HS_HD static R partition_determinant(const R (&Phi_q)[nc][nq], const Partition& part) {
    Mat<R, nc, nc> Jd;
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nc; ++c) Jd(r, c) = select_at(Phi_q[r], part.dep[c]);
    Index perm[nc];
    const Mask factored = lu_factor(Jd, perm);
    if constexpr (one_instance) {
      if (!factored) return 0.0;
    }
    R det(1.0);
    for (int k = 0; k < nc; ++k) det *= math::abs(Jd(k, k));
    return choose(factored, det, R(0.0));
  }

  // Keep the current split while it stays well conditioned; otherwise take
  // the full-pivoting choice (A21: hysteresis of a factor 2 on |det Φ_d|).
  // On lanes each lane decides on its own Φ_z, as its scalar run would.
  // Made at the end of a step, on Φ_z at the new positions (the expansion's,
  // below), for the next step: the same decision as at the start of the
  // next, without carrying Φ_z in the state from one step to the next
  // (issue 16: nc·nq fewer reals live across the whole run loop on the GPU).
  // current_det: |det Φ_d| of `part` at Φ_q, as partition_determinant gives it (the step passes the one
  // its state's evaluation factored anyway, evaluate(): the same factorization of the same Φ_d).
  HS_HD static void choose_partition(const R (&Phi_q)[nc][nq], Partition& part) {
    choose_partition(Phi_q, partition_determinant(Phi_q, part), part);
  }
  HS_HD static void choose_partition(const R (&Phi_q)[nc][nq], const R& current_det, Partition& part) {
    Partition best;
    const R best_det = full_pivot_partition(Phi_q, best.indep, best.dep);
    const Mask change = HS_DECISION(partition_change, current_det < 0.5 * best_det, current_det, 0.5 * best_det);
    for (int j = 0; j < ni; ++j) part.indep[j] = choose(change, best.indep[j], part.indep[j]);
    for (int r = 0; r < nc; ++r) part.dep[r] = choose(change, best.dep[r], part.dep[r]);
  }

  // ---------------------------------------------------------------------
  // Actuator rows, shared by every trapezoidal formulation of this model
  // (this one and PenaltyTrapezoidal): actuator a's piston and friction
  // forces and its state rates at its length s and rate ṡ, from the
  // actuators' states y (actuator a's at a·nsa: pressures, then friction
  // states), the friction-state rates wd (a·nwa) and the spools U. Writes
  // the rates at a·npa of pressure_rate and a·nwa of friction_rate; returns
  // the net force F_a = F_p − F_μ on the mechanism (seed 002 eq 20).
  template <class T>
  HS_HD HS_FORCEINLINE static T actuator_terms(const Params& P, const Constants& K, int a, const T& length,
                                               const T& sdot, const T* y, const T* wd, const R* U, T& piston_force,
                                               T& friction_force, T* pressure_rate, T* friction_rate,
                                               bool with_rates = true) {
    const T* p = y + a * nsa;
    const T* w = p + npa;
    piston_force = Actuator::piston_force(K.actuator[a], p);
    friction_force = Actuator::friction_force(P.actuator[a], sdot, w, wd + a * nwa);
    if (with_rates)
      Actuator::state_rates(P.actuator[a], K.actuator[a], p, w, U[a], length - K.actuator[a].s0, sdot,
                            pressure_rate + a * npa, friction_rate + a * nwa);
    return piston_force - friction_force;
  }

  // Actuator a on the mechanism at (pose, motion): its length s and rate ṡ,
  // ∂s_a/∂z (the mechanism's scalar Tk) and its actuator_terms (scalar T).
  template <class T, class Tk, class PoseT, class MotionT>
  HS_HD HS_FORCEINLINE static T actuator_on_mechanism(const Params& P, const Constants& K, const PoseT& pose,
                                                      const MotionT& motion, int a, const T* y, const T* wd,
                                                      const R* U, Tk& length, Tk& rate, Tk* ds_dz,
                                                      T& piston_force, T& friction_force, T* pressure_rate,
                                                      T* friction_rate, bool with_rates = true) {
    const auto act = Actuators::actuator(P.mechanism, pose, motion, a);
    length = act.length;
    rate = act.rate;
    Actuators::actuator_jacobian(P.mechanism, pose, act, ds_dz, a);
    return actuator_terms(P, K, a, Widen<T>::from(act.length), Widen<T>::from(act.rate), y, wd, U, piston_force,
                          friction_force, pressure_rate, friction_rate, with_rates);
  }

  // The actuators' states of s gathered as y (actuator a's at a·nsa:
  // pressures, then friction states), the layout of the Newton unknowns.
  HS_HD static void gather_actuator_states(const State& s, R* y) {
    for (int a = 0; a < na; ++a) {
      for (int k = 0; k < npa; ++k) y[a * nsa + k] = s.p[a * npa + k];
      for (int k = 0; k < nwa; ++k) y[a * nsa + npa + k] = s.w[a * nwa + k];
    }
  }

  // The spools at t_{k+1}: the input policy's U_ref, held over the step
  // (docs/models/integrators.md §11.3): an open-loop schedule is sampled at
  // the step midpoint (schedules switch on step boundaries, so U_ref is
  // constant over each step and the trapezoid stays second order across the
  // switches); a sampled controller sees the state at t_k. An ideal spool
  // takes its new opening at t_k, so the start rates of its pressures are
  // re-evaluated with it (HydraulicCylinder::step_start_rates).
  HS_HD static void advance_spools(const Params& P, const Constants& K, State& s, double dt, R* U) {
    R U_ref[na];
    // On lanes every lane is sampled with its own state (the lanes that do
    // not step take their memory back with the rest: keep_unstepped_lanes).
    input_for_step<Input, na>(P, s.input, s.t0, s.steps, dt, [&]() { return observation(s); }, U_ref);
    for (int a = 0; a < na; ++a) {
      U[a] = Actuator::spool_step(P.actuator[a], s.U[a], U_ref[a], dt);
      Actuator::step_start_rates(P.actuator[a], K.actuator[a], s.p + a * npa, s.U[a], U[a], s.s_act[a],
                                 s.sdot_act[a], s.pd + a * npa);
    }
  }

  // Actuator states in the Newton unknowns from offset nz (after the nz
  // coordinates): their predictor y_k + dt ẏ_k into x and the trapezoidal
  // constants p̂, ŵ (eq 34) into pd_hat, wd_hat.
  HS_HD static void predict_actuator_states(const State& s, double dt, int nz, R* x, R* pd_hat, R* wd_hat) {
    for (int a = 0; a < na; ++a) {
      for (int k = 0; k < npa; ++k) {
        const int i = a * npa + k;
        pd_hat[i] = -((2.0 / dt) * s.p[i] + s.pd[i]);
        x[nz + a * nsa + k] = s.p[i] + dt * s.pd[i];
      }
      for (int k = 0; k < nwa; ++k) {
        const int i = a * nwa + k;
        wd_hat[i] = -((2.0 / dt) * s.w[i] + s.wd[i]);
        x[nz + a * nsa + npa + k] = s.w[i] + dt * s.wd[i];
      }
    }
  }

  // The trapezoidal rates ṗ = (2/dt) p + p̂, ẇ = (2/dt) w + ŵ (eq 33) of the
  // actuator states in x from offset nz.
  template <class T>
  HS_HD HS_FORCEINLINE static void trapezoidal_actuator_rates(const T* x, int nz, double dt, const R* pd_hat,
                                                              const R* wd_hat, T* pd, T* wd) {
    for (int a = 0; a < na; ++a) {
      const T* p = x + nz + a * nsa;
      const T* w = p + npa;
      for (int k = 0; k < npa; ++k) pd[a * npa + k] = (2.0 / dt) * p[k] + pd_hat[a * npa + k];
      for (int k = 0; k < nwa; ++k) wd[a * nwa + k] = (2.0 / dt) * w[k] + wd_hat[a * nwa + k];
    }
  }
  // The actuator rows of the residual (eq 38), from offset nz: ṗ − h, ẇ − u.
  template <class T>
  HS_HD HS_FORCEINLINE static void actuator_residual_rows(int nz, const T* pd, const T* wd, const T* pressure_rate,
                                                          const T* friction_rate, T* f) {
    for (int a = 0; a < na; ++a) {
      for (int k = 0; k < npa; ++k) f[nz + a * nsa + k] = pd[a * npa + k] - pressure_rate[a * npa + k];
      for (int k = 0; k < nwa; ++k) f[nz + a * nsa + npa + k] = wd[a * nwa + k] - friction_rate[a * nwa + k];
    }
  }

  // x += Δx for nz coordinates followed by the actuator states; converged
  // when every coordinate, pressure and friction-state increment is within
  // its tolerance. Every component is tested: a NaN fails any comparison, so
  // a running max (fabs(d) > m ? fabs(d) : m) would skip it, and whether it
  // does depends on the instructions the compiler picks (maxsd keeps one
  // operand): a NaN increment then passed as converged.
  // One instance: Status::diverged (x untouched) or ok. Lanes: the mask of
  // the lanes whose increment is finite; x moves in those of them `pending`.
  template <int nz>
  HS_HD static auto newton_update(const IntegratorSettings& S, R* x, const R* dx, Mask& converged,
                                  Mask pending = Mask(true)) {
    constexpr int n = nz + na * nsa;
    Mask finite(true);
    for (int k = 0; k < n; ++k) {
      finite = finite && (math::abs(dx[k]) < 1e300);  // NaN or Inf
      if constexpr (one_instance) {
        if (!finite) return Status::diverged;
      }
    }
    const Mask move = pending && finite;
    R dq(0.0), dp(0.0), dw(0.0);
    auto step_and_max = [&](int k, R& m) {
      x[k] = choose(move, x[k] + dx[k], x[k]);
      m = choose(math::abs(dx[k]) > m, math::abs(dx[k]), m);
    };
    for (int j = 0; j < nz; ++j) step_and_max(j, dq);
    for (int a = 0; a < na; ++a) {
      const int o = nz + a * nsa;
      for (int k = o; k < o + npa; ++k) step_and_max(k, dp);
      for (int k = o + npa; k < o + nsa; ++k) step_and_max(k, dw);
    }
    converged = HS_DECISION(newton_converged,
                            dq <= S.position_tolerance && dp <= S.pressure_tolerance && dw <= S.friction_state_tolerance,
                            largest_ratio(dq, S.position_tolerance, dp, S.pressure_tolerance, dw, S.friction_state_tolerance),
                            1.0);
    if constexpr (one_instance) return Status::ok;
    else return finite;
  }

  // The converged actuator states (from offset nz of x), their trapezoidal
  // rates and the spools into the state.
  HS_HD static void store_actuator_states(const R* x, int nz, const R* pd_hat, const R* wd_hat, const R* U, double dt,
                                          State& s) {
    for (int a = 0; a < na; ++a) {
      for (int k = 0; k < npa; ++k) {
        const int i = a * npa + k;
        s.p[i] = x[nz + a * nsa + k];
        s.pd[i] = (2.0 / dt) * s.p[i] + pd_hat[i];
      }
      for (int k = 0; k < nwa; ++k) {
        const int i = a * nwa + k;
        s.w[i] = x[nz + a * nsa + npa + k];
        s.wd[i] = (2.0 / dt) * s.w[i] + wd_hat[i];
      }
      s.U[a] = U[a];
    }
  }

  // ---------------------------------------------------------------------
  // Model evaluation at consistent positions q (dependent part carrying
  // ∂z_d/∂z_i when T is a dual number), given the independent velocities
  // and accelerations. y: the actuators' states, actuator a's at a·nsa
  // (pressures, then friction states); wd: the friction-state rates,
  // actuator a's at a·nwa; U: the spools.
  template <class T>
  HS_HD static void evaluate(const Params& P, const Constants& K, const Partition& part, const Kinematic<T>* q,
                             const Kinematic<T>* qd_i, const Kinematic<T>* qdd_i, const T* y, const T* wd,
                             const R* U, Evaluation<T>& e, Outputs what, R* closure_error = nullptr) {
    using Tk = Kinematic<T>;
    const bool rows = what != Outputs::state;
    const auto pose = Mech::pose(P.mechanism, q);
    if constexpr (std::is_same<Tk, R>::value) {
      if (closure_error) {  // |Φ|∞ at q, as solve_dependent measures it
        R phi[nc];
        Mech::constraints(P.mechanism, pose, phi);
        R err(0.0);
        for (int r = 0; r < nc; ++r) err = choose(math::abs(phi[r]) > err, math::abs(phi[r]), err);
        *closure_error = err;
      }
    }
    const auto& J = constraint_jacobian_at(pose, e.constraint_jacobian, what != Outputs::residual);
    Mat<Tk, nc, nc> Jd;
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nc; ++c) Jd(r, c) = select_at(J[r], part.dep[c]);
    Index perm[nc];
    const auto factored = lu_factor(Jd, perm);  // nonsingular: solve_dependent succeeded at these values
    if constexpr (std::is_same<Tk, R>::value) {
      // |det Φ_d| as partition_determinant computes it: the same factorization of the same Φ_d.
      R det(1.0);
      for (int k = 0; k < nc; ++k) det *= math::abs(Jd(k, k));
      e.split_determinant = choose(factored, det, R(0.0));
    }
    // G = Φ_d⁻¹ Φ_i, so R_z = [−G; I] in (dependent; independent) order.
    Tk G[nc][ni];
    for (int j = 0; j < ni; ++j) {
      Tk b[nc], y[nc];
      for (int r = 0; r < nc; ++r) b[r] = select_at(J[r], part.indep[j]);
      lu_solve(Jd, perm, b, y);
      for (int r = 0; r < nc; ++r) G[r][j] = y[r];
    }
    for (int k = 0; k < nq; ++k) e.q[k] = q[k];
    for (int j = 0; j < ni; ++j) {
      assign_at(e.qd, part.indep[j], qd_i[j]);
      assign_at(e.qdd, part.indep[j], qdd_i[j]);
    }
    for (int r = 0; r < nc; ++r) {
      Tk v(0.0);
      for (int j = 0; j < ni; ++j) v -= G[r][j] * qd_i[j];
      assign_at(e.qd, part.dep[r], v);         // eq (13)
      assign_at(e.qdd, part.dep[r], Tk(0.0));
    }
    const auto motion = Mech::motion(pose, e.qd);
    // Φ̈ with z̈_d = 0 is Φ_i z̈_i + Φ̇_z ż; eq (15) then gives z̈_d.
    Tk c[nc], d[nc];
    auto acc = Mech::acceleration(pose, motion, e.qdd);
    Mech::constraint_acceleration(pose, motion, acc, c);
    lu_solve(Jd, perm, c, d);
    for (int r = 0; r < nc; ++r) {
      assign_at(e.qdd, part.dep[r], -d[r]);
      Mech::add_joint_acceleration(pose, part.dep[r], select_at(e.qdd, part.dep[r]), acc);
    }

    Tk r[nq] = {};  // {}: read only with the rows, but GCC cannot tell
    if (rows) Mech::dynamics_residual(P.mechanism, pose, motion, acc, r);
    // Per actuator: length, rate, force and ∂s_a/∂z reduced on z_i.
    T F[na];
    Tk s_i[na][ni];
    for (int a = 0; a < na; ++a) {
      Tk ds_dz[nq];
      F[a] = actuator_on_mechanism(P, K, pose, motion, a, y, wd, U, e.s[a], e.sdot[a], ds_dz, e.piston_force[a],
                                   e.friction_force[a], e.pressure_rate, e.friction_rate.data(), rows);
      if (!rows) continue;
      for (int j = 0; j < ni; ++j) {
        Tk sj = select_at(ds_dz, part.indep[j]);
        for (int k = 0; k < nc; ++k) sj -= G[k][j] * select_at(ds_dz, part.dep[k]);
        s_i[a][j] = sj;
      }
    }
    // R_zᵀ (r − Σ F_a ∂s_a/∂z) = (r_i − Gᵀ r_d) − Σ F_a (∂s_a/∂z_i − Gᵀ ∂s_a/∂z_d), seed 001 eq (16).
    if (rows) {
      for (int j = 0; j < ni; ++j) {
        Tk rj = select_at(r, part.indep[j]);
        for (int k = 0; k < nc; ++k) rj -= G[k][j] * select_at(r, part.dep[k]);
        T v = Widen<T>::from(rj) - F[0] * Widen<T>::from(s_i[0][j]);
        for (int a = 1; a < na; ++a) v -= F[a] * Widen<T>::from(s_i[a][j]);
        e.reduced[j] = v;
      }
    }
    if (what != Outputs::residual) {
      e.kinetic = Mech::kinetic_energy(P.mechanism, motion);
      e.potential = Mech::potential_energy(P.mechanism, pose);
    }
  }

  // ---------------------------------------------------------------------
  // One trapezoidal step

  struct StepContext {
    double dt;
    R U[na];              // spools at t_{k+1}
    Partition part;
    R q_guess[nq];        // full coordinates; z_d entries warm-start the closure solve
    R dzd_dzi[nc][ni];    // ∂z_d/∂z_i at q_guess (zero before the first solve)
    R qd_hat[nq], qdd_hat[nq], pd_hat[np];
    Vec<R, nw> wd_hat;
    R constraint_residual;
  };

  // The model at x: the loop closure solved for x's z_i (ctx.q_guess then
  // holds the coordinates, ctx.constraint_residual |Φ|∞), the trapezoidal
  // rates of eq (33) into pd, wd and evaluate()'s `what` into e. False if the
  // loop closure cannot be solved (on lanes: the mask of the `pending` lanes
  // whose closure was solved).
  // Without `solve_closure` (values only): z_d is the warm start below, not
  // iterated, and *closure_error receives its |Φ|∞ from the evaluation's pose.
  template <class T>
  HS_HD static Mask evaluate_at(const Params& P, const Constants& K, const IntegratorSettings& S, StepContext& ctx,
                                const T* x, Evaluation<T>& e, T* pd, T* wd, Outputs what, Mask pending,
                                bool solve_closure = true, R* closure_error = nullptr) {
    const double dt = ctx.dt;
    // Warm start of the closure solve: z_d moved along ∂z_d/∂z_i of the last
    // solve by the change of z_i (implicit function theorem; first order, so
    // the solve starts O(|Δz_i|²) from its solution).
    for (int r = 0; r < nc; ++r) {
      R v = select_at(ctx.q_guess, ctx.part.dep[r]);
      for (int j = 0; j < ni; ++j) v += ctx.dzd_dzi[r][j] * (value(x[j]) - select_at(ctx.q_guess, ctx.part.indep[j]));
      assign_at(ctx.q_guess, ctx.part.dep[r], v);
    }
    for (int j = 0; j < ni; ++j) assign_at(ctx.q_guess, ctx.part.indep[j], value(x[j]));
    const Mask closed = solve_closure ? solve_dependent(P, ctx.part, S.constraint_tolerance, S.max_position_iterations,
                                                        ctx.q_guess, ctx.dzd_dzi, &ctx.constraint_residual, pending)
                                      : pending;
    const auto& dzd_dzi = ctx.dzd_dzi;
    if (!any_lane(closed)) return closed;
    using Tk = Kinematic<T>;
    Tk q[nq], zi[ni], qd_i[ni], qdd_i[ni];
    for (int j = 0; j < ni; ++j) {
      const Index k = ctx.part.indep[j];
      zi[j] = head<ni>(x[j]);
      assign_at(q, k, zi[j]);
      qd_i[j] = (2.0 / dt) * zi[j] + select_at(ctx.qd_hat, k);
      qdd_i[j] = (4.0 / (dt * dt)) * zi[j] + select_at(ctx.qdd_hat, k);
    }
    for (int r = 0; r < nc; ++r) {
      // Implicit function theorem: the value from the inner solve, the
      // derivative ∂z_d/∂z_i · dz_i.
      Tk v(select_at(ctx.q_guess, ctx.part.dep[r]));
      if constexpr (!std::is_same<Tk, R>::value)
        for (int j = 0; j < ni; ++j) v += dzd_dzi[r][j] * (zi[j] - value(zi[j]));
      assign_at(q, ctx.part.dep[r], v);
    }
    trapezoidal_actuator_rates(x, ni, dt, ctx.pd_hat, ctx.wd_hat.data(), pd, wd);
    evaluate(P, K, ctx.part, q, qd_i, qdd_i, x + ni, wd, ctx.U, e, what, closure_error);
    return closed;
  }

  // The state at the converged x, on values (docs/models/integrators.md
  // §3.4): z_d from the warm start, which is O(|Δz_i|²) off the closure, and
  // the model there with its |Φ|∞; where that is above the closure tolerance,
  // the closure solved and the model evaluated again. The first is what
  // solve_dependent's first pass would find converged, without a second pose,
  // Jacobian and factorization. On lanes: the mask of the `pending` lanes
  // with a state (the others' e is not meaningful).
  HS_HD static Mask converged_state(const Params& P, const Constants& K, const IntegratorSettings& S,
                                    StepContext& ctx, const R* x, Evaluation<R>& e, Mask pending) {
    R pd[np];
    // filled: with nw = 0 its placeholder is read by nobody, but GCC cannot tell
    Vec<R, nw> wd = Vec<R, nw>::filled(R(0.0));
    // Written by evaluate_at for every pending lane; NaN where it is not (no
    // lane pending: it returns before the model), so that no lane reads an
    // indeterminate value (NaN asks for the closure again, the safe side).
    R err = R(NAN);
    evaluate_at(P, K, S, ctx, x, e, pd, wd.data(), Outputs::state, pending, false, &err);
    const Mask redo = pending && HS_DECISION(state_closure_redo, !(err <= S.constraint_tolerance), err,
                                             S.constraint_tolerance);  // a NaN too
    ctx.constraint_residual = choose(pending && !redo, err, ctx.constraint_residual);
    if (!any_lane(redo)) return pending;
    if constexpr (one_instance) {
      return evaluate_at(P, K, S, ctx, x, e, pd, wd.data(), Outputs::state, true);
    } else {
#if !defined(__CUDACC__) && !defined(__HIPCC__)
      Evaluation<R> again;
      const Mask closed = evaluate_at(P, K, S, ctx, x, again, pd, wd.data(), Outputs::state, redo);
      choose_in_place(redo, again, e);
      return (pending && !redo) || closed;
#endif
    }
  }

  // Residual f(x) of eq (38); false if the loop closure cannot be solved
  // (on lanes: the mask of the `pending` lanes whose closure was solved).
  template <class T>
  HS_HD static Mask residual(const Params& P, const Constants& K, const IntegratorSettings& S, StepContext& ctx,
                             const T* x, T* f, Mask pending = Mask(true)) {
    Evaluation<T> e;
    T pd[np];
    Vec<T, nw> wd = Vec<T, nw>::filled(T(0.0));  // filled: as in converged_state
    const Mask closed = evaluate_at(P, K, S, ctx, x, e, pd, wd.data(), Outputs::residual, pending);
    if (!any_lane(closed)) return closed;
    for (int j = 0; j < ni; ++j) f[j] = e.reduced[j];
    actuator_residual_rows(ni, pd, wd.data(), e.pressure_rate, e.friction_rate.data(), f);
    return closed;
  }

  // Newton tangent and residual at x.
  HS_HD static Mask tangent(const Params& P, const Constants& K, const IntegratorSettings& S, StepContext& ctx,
                            const R* x, R* f, Mat<R, nx, nx>& J, Mask pending = Mask(true)) {
    return newton_tangent<nx>(S.tangent, x, f, J,
                              [&](const auto* xt, auto* ft) { return residual(P, K, S, ctx, xt, ft, pending); });
  }

  struct StepReport {
    // Newton iterations of the step (on lanes each lane's own).
    typename std::conditional<one_instance, int, R>::type newton_iterations = 0;
    R constraint_residual = 0.0;
    // Lane utilization on lanes: lanes that were still iterating, summed over
    // the Newton iterations of the step, and the lanes × iterations run (the
    // warp efficiency a GPU would see on the same batch: docs/models/lanes.md).
    int active_lane_iterations = 0;
    int lane_iterations = 0;
  };

  // Advance s by one step of S.dt. On failure s is left at the start of the
  // step. On lanes: the lanes of `active` are stepped, each lane's status is
  // returned, and a lane that fails or is not active keeps its state (and
  // *eval_out) as it was.
  HS_HD static StatusR step(const Params& P, const Constants& K, const IntegratorSettings& S, State& s,
                            StepReport& report, Evaluation<R>* eval_out = nullptr, Mask active = Mask(true)) {
    using St = StatusOnT<R>;
    const double dt = S.dt;
    typename std::conditional<one_instance, char, State>::type start{};  // lanes: to restore the lanes that stop
    if constexpr (!one_instance) start = s;
    StepContext ctx;
    ctx.dt = dt;
    ctx.part = s.part;
    advance_spools(P, K, s, dt, ctx.U);
    for (int k = 0; k < nq; ++k) {
      ctx.q_guess[k] = s.q[k] + dt * s.qd[k] + 0.5 * dt * dt * s.qdd[k];  // predictor, docs/models/integrators.md §3.2
      ctx.qd_hat[k] = -((2.0 / dt) * s.q[k] + s.qd[k]);
      ctx.qdd_hat[k] = -((4.0 / (dt * dt)) * s.q[k] + (4.0 / dt) * s.qd[k] + s.qdd[k]);
    }
    ctx.constraint_residual = R(0.0);
    for (int r = 0; r < nc; ++r)
      for (int j = 0; j < ni; ++j) ctx.dzd_dzi[r][j] = R(0.0);
    R x[nx];
    for (int j = 0; j < ni; ++j) x[j] = select_at(ctx.q_guess, s.part.indep[j]);
    predict_actuator_states(s, dt, ni, x, ctx.pd_hat, ctx.wd_hat.data());

    StatusR status = St::of(Status::ok);
    Mask pending = active;  // lanes still iterating
    report.newton_iterations = 0;
    int it = 0;
    while (it < S.max_newton_iterations) {
      ++it;
      report.lane_iterations += one_instance ? 1 : static_cast<int>(sizeof(R) / sizeof(double));
      report.active_lane_iterations += lane_count(pending);
      R f[nx];
      Mat<R, nx, nx> J;
      if constexpr (one_instance) {
        if (!tangent(P, K, S, ctx, x, f, J)) return Status::constraint_failure;
        for (int r = 0; r < nx; ++r) f[r] = -f[r];
        R dx[nx];
        if (!solve_newton_increment(J, f, dx)) return Status::newton_failure;
        bool converged = false;
        const Status update = newton_update<ni>(S, x, dx, converged);
        if (update != Status::ok) return update;
        if (converged) { pending = false; break; }
      } else {
        report.newton_iterations = choose(pending, report.newton_iterations + 1.0, report.newton_iterations);
        const Mask closed = tangent(P, K, S, ctx, x, f, J, pending);
        set_status_where(pending && !closed, status, Status::constraint_failure);
        pending = pending && closed;
        for (int r = 0; r < nx; ++r) f[r] = -f[r];
        R dxi[nx];
        const Mask solved = solve_newton_increment(J, f, dxi);
        set_status_where(pending && !solved, status, Status::newton_failure);
        pending = pending && solved;
        Mask converged;
        const Mask finite = newton_update<ni>(S, x, dxi, converged, pending);
        set_status_where(pending && !finite, status, Status::diverged);
        pending = pending && finite;
        pending = pending && !converged;
        if (!any_lane(pending)) break;
      }
    }
    if constexpr (one_instance) {
      report.newton_iterations = it;
      if (pending) return Status::newton_failure;
    } else {
      set_status_where(pending, status, Status::newton_failure);
    }

    // Consistent state at t_{k+1}: positions on the constraint manifold,
    // velocities/accelerations from eqs (13)–(15), rates from eqs (33)–(34):
    // the model evaluated on values at the converged x, without the
    // residual's rows (converged_state; docs/models/integrators.md §3.6).
    // Nothing of the Newton iterations' dual-number evaluations is kept
    // across the increment's solve (issue 16: the GPU kernel's live state).
    Evaluation<R> e;
    if constexpr (one_instance) {
      if (!converged_state(P, K, S, ctx, x, e, true)) return Status::constraint_failure;
    } else {
      const Mask ok = active && status == St::of(Status::ok);
      const Mask closed = converged_state(P, K, S, ctx, x, e, ok);
      set_status_where(ok && !closed, status, Status::constraint_failure);
    }
    report.constraint_residual = ctx.constraint_residual;
    choose_partition(e.constraint_jacobian, e.split_determinant, s.part);  // for the next step
    for (int k = 0; k < nq; ++k) {
      s.q[k] = e.q[k];
      s.qd[k] = e.qd[k];
      s.qdd[k] = e.qdd[k];
    }
    store_actuator_states(x, ni, ctx.pd_hat, ctx.wd_hat.data(), ctx.U, dt, s);
    for (int a = 0; a < na; ++a) {
      s.s_act[a] = e.s[a];
      s.sdot_act[a] = e.sdot[a];
    }
    ++s.steps;
    s.t = grid_time(s.t0, s.steps, dt);
    if constexpr (one_instance) {
      if (eval_out) *eval_out = e;
      return Status::ok;
    } else {
      return keep_unstepped_lanes<DoubleStepTrapezoidal>(active, status, start, s, e, eval_out);
    }
  }

  // On lanes, a step's end: the lanes that did not step (not active, or
  // failed) take back their state at the step's start (the grid, t0, steps
  // and t, is the batch's and moves on) and keep their evaluation; a lane that
  // was not active reports ok. Self: the formulation whose State and
  // choose_in_place these are (the penalty formulation's add its multipliers).
  template <class Self, class StateT>
  HS_HD static StatusR keep_unstepped_lanes(const Mask& active, StatusR status, const StateT& start, StateT& s,
                                            const Evaluation<R>& e, Evaluation<R>* eval_out) {
    const Mask stepped = active && status == StatusOnT<R>::of(Status::ok);
    Self::choose_in_place(!stepped, start, s);
    // A controller's memory: a lane whose step failed keeps the sample it
    // took at the step's start, as one instance's run does (its step leaves
    // the state at the start, the policy's memory advanced: run.hpp reports
    // it); a lane that was not active takes its memory back.
    if constexpr (sizeof(s.input.memory) >= sizeof(R)) Self::choose_in_place(!active, start.input.memory, s.input.memory);
    if (eval_out) {
      Evaluation<R> kept = *eval_out;
      Self::choose_in_place(stepped, e, kept);
      *eval_out = kept;
    }
    set_status_where(!active, status, Status::ok);
    return status;
  }

#if !defined(__CUDACC__) && !defined(__HIPCC__)
  // On lanes: the lanes of c take `from`'s state, the others keep `to`'s.
  // The grid (t0, steps, t) is the batch's.
  static void choose_in_place(const Mask& c, const State& from, State& to) {
    choose_in_place(c, from.q, to.q);
    choose_in_place(c, from.qd, to.qd);
    choose_in_place(c, from.qdd, to.qdd);
    choose_in_place(c, from.p, to.p);
    choose_in_place(c, from.pd, to.pd);
    choose_in_place(c, from.w, to.w);
    choose_in_place(c, from.wd, to.wd);
    choose_in_place(c, from.U, to.U);
    choose_in_place(c, from.s_act, to.s_act);
    choose_in_place(c, from.sdot_act, to.sdot_act);
    choose_in_place(c, from.input.U_ref, to.input.U_ref);
    choose_in_place(c, from.part, to.part);
  }
  // Structs and arrays of reals only (lanes.hpp).
  template <class Block>
  static void choose_in_place(const Mask& c, const Block& from, Block& to) {
    hs::choose_in_place(c, from, to);
  }
#endif

  // The sampled observation of the state at t (input_policy.hpp); on lanes
  // the lanes' states.
  HS_HD static Observation<nq, na, npa, R> observation(const State& s) {
    Observation<nq, na, npa, R> o;
    o.t = s.t;
    o.q = s.q;
    o.qd = s.qd;
    o.s = s.s_act;
    o.sdot = s.sdot_act;
    o.p = s.p;
    return o;
  }

  // ---------------------------------------------------------------------
  // Initial state: assembled configuration at the given driving angle, at
  // rest, valves closed, each actuator in its static state (pressures in
  // static equilibrium with p3 prescribed and no throttle flow,
  // docs/models/hydraulics.md §9, integrators.md §5), computed from the model itself.
  // One instance's: lanes are initialized instance by instance and gathered
  // (kernels/integrators/lockstep.hpp).
  HS_HD static Status initialize(const Params& P, const IntegratorSettings& S, State& s, Constants& K,
                                 Evaluation<double>* eval_out = nullptr) {
    static_assert(one_instance, "initialize one instance; lanes gather initialized instances");
    s.t0 = 0.0;
    s.steps = 0;
    s.t = s.t0;
    for (int a = 0; a < na; ++a) s.U[a] = 0.0;
    input_initialize<Input, na>(P, s.input);
    Mech::assembly_guess(P.mechanism, s.q);  // in the assembly mode of the guessed angles
    for (int k = 0; k < nq; ++k) { s.qd[k] = 0.0; s.qdd[k] = 0.0; }
    // Assembly: hold the mechanism's driving coordinates (the first ni joint
    // angles of a PlanarLoopChain, φ2 of the 3D four-bar), solve for the rest.
    Partition hold = driving_partition();
    double S_[nc][ni], res;
    if (!solve_dependent(P, hold, S.constraint_tolerance, 4 * S.max_position_iterations, s.q, S_, &res))
      return Status::invalid_parameters;
    double Phi_q[nc][nq];
    Mech::constraint_jacobian(Mech::pose(P.mechanism, s.q), Phi_q);
    full_pivot_partition(Phi_q, s.part.indep, s.part.dep);

    // Static actuator forces: at rest R_zᵀ(r − Σ F_a ∂s_a/∂z) = 0.
    double zero[nq] = {};
    const auto pose = Mech::pose(P.mechanism, s.q);
    const auto motion = Mech::motion(pose, zero);
    const auto acc = Mech::acceleration(pose, motion, zero);
    // Project with R_z = ∂z/∂z_i from the split. Sdep first, then the
    // residual and the actuator Jacobians that use it: with the residual
    // computed before this solve, nvcc (CUDA 13, sm_90) built a kernel that
    // read a stale residual for the 3D four-bar (r_z projected to ~1e-18
    // instead of −162.5 N m, so F0 = 0 and p1 = p2 = p3 A3/A2 exactly), while
    // the same values printed correct afterwards and g++/clang agree; this order
    // gives the CPU's value on the device (measured on an H200, 2026-11-26,
    // tests/device_trace.cu; docs/gpu.md §3).
    double Sdep[nc][ni];
    double qv[nq];
    for (int k = 0; k < nq; ++k) qv[k] = s.q[k];
    if (!solve_dependent(P, s.part, S.constraint_tolerance, S.max_position_iterations, qv, Sdep, &res))
      return Status::invalid_parameters;
    double r[nq], ds_dz[na][nq];
    Mech::dynamics_residual(P.mechanism, pose, motion, acc, r);
    for (int a = 0; a < na; ++a) {
      const auto act = Actuators::actuator(P.mechanism, pose, motion, a);
      K.actuator[a] = Actuator::constants(P.actuator[a], act.length);
      Actuators::actuator_jacobian(P.mechanism, pose, act, ds_dz[a], a);
    }
    double F0[na];
    if constexpr (na == 1) {
      // One actuator: along the first independent direction.
      double reduced_r = select_at(r, s.part.indep[0]), reduced_s = select_at(ds_dz[0], s.part.indep[0]);
      for (int k = 0; k < nc; ++k) {
        reduced_r += Sdep[k][0] * select_at(r, s.part.dep[k]);
        reduced_s += Sdep[k][0] * select_at(ds_dz[0], s.part.dep[k]);
      }
      if (reduced_s == 0.0) return Status::invalid_parameters;  // actuator cannot hold the load
      F0[0] = reduced_r / reduced_s;
    } else {
      // Several actuators: B F = r̃ with B_ja = R_zᵀ ∂s_a/∂z, r̃ = R_zᵀ r, in the
      // least-norm sense F = Bᵀ (B Bᵀ)⁻¹ r̃ (docs/models/integrators.md §11.2):
      // the unique static forces when na = ni, equal shares for actuators in parallel.
      double B[ni][na], rr[ni];
      for (int j = 0; j < ni; ++j) {
        rr[j] = select_at(r, s.part.indep[j]);
        for (int k = 0; k < nc; ++k) rr[j] += Sdep[k][j] * select_at(r, s.part.dep[k]);
        for (int a = 0; a < na; ++a) {
          B[j][a] = select_at(ds_dz[a], s.part.indep[j]);
          for (int k = 0; k < nc; ++k) B[j][a] += Sdep[k][j] * select_at(ds_dz[a], s.part.dep[k]);
        }
      }
      Mat<double, ni, ni> BBt;
      for (int i = 0; i < ni; ++i)
        for (int j = 0; j < ni; ++j) {
          double v = 0.0;
          for (int a = 0; a < na; ++a) v += B[i][a] * B[j][a];
          BBt(i, j) = v;
        }
      double lam[ni];
      if (!solve_linear(BBt, rr, lam)) return Status::invalid_parameters;  // actuators cannot hold the load
      for (int a = 0; a < na; ++a) {
        F0[a] = 0.0;
        for (int j = 0; j < ni; ++j) F0[a] += B[j][a] * lam[j];
      }
    }
    for (int a = 0; a < na; ++a) {
      Actuator::static_state(P.actuator[a], K.actuator[a], F0[a], s.p + a * npa, s.w.data() + a * nwa);
      if (!Actuator::static_state_admissible(s.p + a * npa, S.pressure_min, S.pressure_max))
        return Status::invalid_parameters;
    }

    // Consistent accelerations: the reduced residual is affine in z̈_i.
    using Di = Dual<ni>;
    Di qi[nq], qd_i[ni], qdd_i[ni], y[na * nsa];
    Vec<Di, nw> wd;
    for (int k = 0; k < nq; ++k) qi[k] = Di(s.q[k]);
    for (int j = 0; j < ni; ++j) { qd_i[j] = Di(0.0); qdd_i[j] = Di::variable(0.0, j); }
    for (int a = 0; a < na; ++a) {
      for (int k = 0; k < npa; ++k) y[a * nsa + k] = Di(s.p[a * npa + k]);
      for (int k = 0; k < nwa; ++k) y[a * nsa + npa + k] = Di(0.0);
    }
    for (int k = 0; k < nw; ++k) wd[k] = Di(0.0);
    const double U0[na] = {};
    Evaluation<Di> ed;
    evaluate(P, K, s.part, qi, qd_i, qdd_i, y, wd.data(), U0, ed, Outputs::residual);
    Mat<double, ni, ni> A;
    double b[ni], a0[ni];
    for (int r2 = 0; r2 < ni; ++r2) {
      b[r2] = -ed.reduced[r2].a;
      for (int c = 0; c < ni; ++c) A(r2, c) = ed.reduced[r2].v[c];
    }
    if (!solve_linear(A, b, a0)) return Status::invalid_parameters;
    double qdi[ni] = {}, yv[na * nsa], wdv[nw > 0 ? nw : 1] = {};
    gather_actuator_states(s, yv);  // friction states zero (static_state)
    Evaluation<double> e;
    evaluate(P, K, s.part, s.q, qdi, a0, yv, wdv, U0, e, Outputs::all);
    for (int k = 0; k < nq; ++k) s.qdd[k] = e.qdd[k];
    for (int k = 0; k < np; ++k) s.pd[k] = e.pressure_rate[k];
    for (int k = 0; k < nw; ++k) s.wd[k] = e.friction_rate[k];
    for (int a = 0; a < na; ++a) {
      s.s_act[a] = e.s[a];
      s.sdot_act[a] = e.sdot[a];
    }
    if (eval_out) *eval_out = e;
    return Status::ok;
  }
};

}  // namespace hs
