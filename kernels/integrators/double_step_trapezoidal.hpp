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

#include "../core/dual.hpp"
#include "../core/lu.hpp"
#include "../core/small_matrix.hpp"
#include "../models/hydraulically_actuated.hpp"
#include "newton_tangent.hpp"
#include "settings.hpp"

namespace hs {

template <class ModelT>
struct DoubleStepTrapezoidal {
  using Model = ModelT;
  using Mech = typename Model::Mechanism;
  using Friction = typename Model::Friction;
  using Circuit = typename Model::Circuit;
  using Actuator = typename Model::Actuator;
  using Actuators = typename Model::Actuators;
  using Input = typename Model::Input;
  using Params = typename Model::Params;
  using Constants = typename Model::Constants;
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
  using Jet = Dual<nx>;

  // Which joint coordinates are independent (z_i) and dependent (z_d).
  struct Partition {
    int indep[ni];
    int dep[nc];
  };

  struct State {
    // Time on the step grid, t = t0 + steps·dt (grid_time), never a running
    // sum t += dt, which drifts ~1e-12 s off the grid over 1e4 steps.
    double t0 = 0.0;
    long steps = 0;
    double t = 0.0;
    double q[nq], qd[nq], qdd[nq];
    double p[np], pd[np];          // actuator a's pressures at a·npa
    Vec<double, nw> w, wd;         // actuator a's friction states at a·nwa
    double U[na] = {};             // spools
    double s_act[na] = {}, sdot_act[na] = {};  // actuator lengths and rates at t
    InputState<Input, na> input;   // the input policy's memory and held U_ref
    Partition part;
    double constraint_jacobian[nc][nq];  // Φ_z at q, for the next partition check
  };

  // Scalar of the mechanism part for a residual on scalar T: double for
  // double, Dual<ni> (derivatives along z_i only) for any dual number.
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
    K constraint_jacobian[nc][nq];
    K kinetic, potential;  // filled only when evaluate(..., with_energy = true)
  };

  // The mechanism's driving coordinates independent, the others dependent
  // (ascending order): the split held during assembly.
  HS_HD static Partition driving_partition() {
    Partition part;
    Mech::driving(part.indep);
    coordinate_complement<nq, ni>(part.indep, part.dep);
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
  // at the solution and *residual = |Φ|∞.
  HS_HD static bool solve_dependent(const Params& P, const Partition& part, double tol, int max_iterations,
                                    double (&q)[nq], double (*S)[ni], double* residual) {
    for (int it = 0;; ++it) {
      const auto pose = Mech::pose(P.mechanism, q);
      double phi[nc], J[nc][nq];
      Mech::constraints(P.mechanism, pose, phi);
      Mech::constraint_jacobian(pose, J);
      Mat<double, nc, nc> Jd;
      for (int r = 0; r < nc; ++r)
        for (int c = 0; c < nc; ++c) Jd(r, c) = select_at(J[r], part.dep[c]);
      int perm[nc];
      if (!lu_factor(Jd, perm)) return false;
      double err = 0.0;
      for (int r = 0; r < nc; ++r) err = fabs(phi[r]) > err ? fabs(phi[r]) : err;
      if (!(err < 1e30)) return false;
      if (err <= tol) {
        for (int j = 0; j < ni; ++j) {
          double b[nc], y[nc];
          for (int r = 0; r < nc; ++r) b[r] = select_at(J[r], part.indep[j]);
          lu_solve(Jd, perm, b, y);
          for (int r = 0; r < nc; ++r) S[r][j] = -y[r];
        }
        *residual = err;
        return true;
      }
      if (it >= max_iterations) return false;
      double d[nc];
      lu_solve(Jd, perm, phi, d);
      for (int c = 0; c < nc; ++c) assign_at(q, part.dep[c], select_at(q, part.dep[c]) - d[c]);
    }
  }

  // Independent coordinates by Gaussian elimination with full pivoting on
  // Φ_z (seed 001 §2.2): the columns that never hold a pivot.
  // Returns the product of the pivots, |det Φ_d| of the chosen split.
  HS_HD static double full_pivot_partition(const double (&Phi_q)[nc][nq], Partition& part) {
    double J[nc][nq];
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nq; ++c) J[r][c] = Phi_q[r][c];
    int col[nq];
    for (int c = 0; c < nq; ++c) col[c] = c;
    double det = 1.0;
    for (int k = 0; k < nc; ++k) {
      int pr = k, pc = k;
      for (int r = k; r < nc; ++r)
        for (int c = k; c < nq; ++c)
          if (fabs(J[r][c]) > fabs(J[pr][pc])) { pr = r; pc = c; }
      for (int c = 0; c < nq; ++c) { const double t = J[k][c]; J[k][c] = J[pr][c]; J[pr][c] = t; }
      for (int r = 0; r < nc; ++r) { const double t = J[r][k]; J[r][k] = J[r][pc]; J[r][pc] = t; }
      const int tc = col[k]; col[k] = col[pc]; col[pc] = tc;
      det *= fabs(J[k][k]);
      if (J[k][k] == 0.0) break;
      for (int r = k + 1; r < nc; ++r) {
        const double l = J[r][k] / J[k][k];
        for (int c = k; c < nq; ++c) J[r][c] -= l * J[k][c];
      }
    }
    // Keep both lists in ascending coordinate order (deterministic layout).
    bool is_dep[nq] = {};
    for (int k = 0; k < nc; ++k) is_dep[col[k]] = true;
    int a = 0, b = 0;
    for (int c = 0; c < nq; ++c) {
      if (is_dep[c]) part.dep[b++] = c;
      else part.indep[a++] = c;
    }
    return det;
  }

  // |det Φ_d| for a given split.
  HS_HD static double partition_determinant(const double (&Phi_q)[nc][nq], const Partition& part) {
    Mat<double, nc, nc> Jd;
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nc; ++c) Jd(r, c) = select_at(Phi_q[r], part.dep[c]);
    int perm[nc];
    if (!lu_factor(Jd, perm)) return 0.0;
    double det = 1.0;
    for (int k = 0; k < nc; ++k) det *= fabs(Jd(k, k));
    return det;
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
                                               const T& sdot, const T* y, const T* wd, const double* U, T& piston_force,
                                               T& friction_force, T* pressure_rate, T* friction_rate) {
    const T* p = y + a * nsa;
    const T* w = p + npa;
    piston_force = Actuator::piston_force(K.actuator[a], p);
    friction_force = Actuator::friction_force(P.actuator[a], sdot, w, wd + a * nwa);
    Actuator::state_rates(P.actuator[a], K.actuator[a], p, w, U[a], length - K.actuator[a].s0, sdot,
                          pressure_rate + a * npa, friction_rate + a * nwa);
    return piston_force - friction_force;
  }

  // Actuator a on the mechanism at (pose, motion): its length s and rate ṡ,
  // ∂s_a/∂z (the mechanism's scalar Tk) and its actuator_terms (scalar T).
  template <class T, class Tk, class PoseT, class MotionT>
  HS_HD HS_FORCEINLINE static T actuator_on_mechanism(const Params& P, const Constants& K, const PoseT& pose,
                                                      const MotionT& motion, int a, const T* y, const T* wd,
                                                      const double* U, Tk& length, Tk& rate, Tk* ds_dz,
                                                      T& piston_force, T& friction_force, T* pressure_rate,
                                                      T* friction_rate) {
    const auto act = Actuators::actuator(P.mechanism, pose, motion, a);
    length = act.length;
    rate = act.rate;
    Actuators::actuator_jacobian(P.mechanism, pose, act, ds_dz, a);
    return actuator_terms(P, K, a, Widen<T>::from(act.length), Widen<T>::from(act.rate), y, wd, U, piston_force,
                          friction_force, pressure_rate, friction_rate);
  }

  // The actuators' states of s gathered as y (actuator a's at a·nsa:
  // pressures, then friction states), the layout of the Newton unknowns.
  HS_HD static void gather_actuator_states(const State& s, double* y) {
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
  HS_HD static void advance_spools(const Params& P, const Constants& K, State& s, double dt, double* U) {
    double U_ref[na];
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
  HS_HD static void predict_actuator_states(const State& s, double dt, int nz, double* x, double* pd_hat,
                                            double* wd_hat) {
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
  HS_HD HS_FORCEINLINE static void trapezoidal_actuator_rates(const T* x, int nz, double dt, const double* pd_hat,
                                                              const double* wd_hat, T* pd, T* wd) {
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
  template <int nz>
  HS_HD static Status newton_update(const IntegratorSettings& S, double* x, const double* dx, bool& converged) {
    constexpr int n = nz + na * nsa;
    for (int k = 0; k < n; ++k)
      if (!(fabs(dx[k]) < 1e300)) return Status::diverged;  // NaN or Inf
    double dq = 0.0, dp = 0.0, dw = 0.0;
    for (int j = 0; j < nz; ++j) { x[j] += dx[j]; dq = fabs(dx[j]) > dq ? fabs(dx[j]) : dq; }
    for (int a = 0; a < na; ++a) {
      const int o = nz + a * nsa;
      for (int k = o; k < o + npa; ++k) { x[k] += dx[k]; dp = fabs(dx[k]) > dp ? fabs(dx[k]) : dp; }
      for (int k = o + npa; k < o + nsa; ++k) { x[k] += dx[k]; dw = fabs(dx[k]) > dw ? fabs(dx[k]) : dw; }
    }
    converged = dq <= S.position_tolerance && dp <= S.pressure_tolerance && dw <= S.friction_state_tolerance;
    return Status::ok;
  }

  // The converged actuator states (from offset nz of x), their trapezoidal
  // rates and the spools into the state.
  HS_HD static void store_actuator_states(const double* x, int nz, const double* pd_hat, const double* wd_hat,
                                          const double* U, double dt, State& s) {
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
                             const double* U, Evaluation<T>& e, bool with_energy) {
    using Tk = Kinematic<T>;
    const auto pose = Mech::pose(P.mechanism, q);
    auto& J = e.constraint_jacobian;
    Mech::constraint_jacobian(pose, J);
    Mat<Tk, nc, nc> Jd;
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nc; ++c) Jd(r, c) = select_at(J[r], part.dep[c]);
    int perm[nc];
    lu_factor(Jd, perm);  // nonsingular: solve_dependent succeeded at these values
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

    Tk r[nq];
    Mech::dynamics_residual(P.mechanism, pose, motion, acc, r);
    // Per actuator: length, rate, force and ∂s_a/∂z reduced on z_i.
    T F[na];
    Tk s_i[na][ni];
    for (int a = 0; a < na; ++a) {
      Tk ds_dz[nq];
      F[a] = actuator_on_mechanism(P, K, pose, motion, a, y, wd, U, e.s[a], e.sdot[a], ds_dz, e.piston_force[a],
                                   e.friction_force[a], e.pressure_rate, e.friction_rate.data());
      for (int j = 0; j < ni; ++j) {
        Tk sj = select_at(ds_dz, part.indep[j]);
        for (int k = 0; k < nc; ++k) sj -= G[k][j] * select_at(ds_dz, part.dep[k]);
        s_i[a][j] = sj;
      }
    }
    // R_zᵀ (r − Σ F_a ∂s_a/∂z) = (r_i − Gᵀ r_d) − Σ F_a (∂s_a/∂z_i − Gᵀ ∂s_a/∂z_d), seed 001 eq (16).
    for (int j = 0; j < ni; ++j) {
      Tk rj = select_at(r, part.indep[j]);
      for (int k = 0; k < nc; ++k) rj -= G[k][j] * select_at(r, part.dep[k]);
      T v = Widen<T>::from(rj) - F[0] * Widen<T>::from(s_i[0][j]);
      for (int a = 1; a < na; ++a) v -= F[a] * Widen<T>::from(s_i[a][j]);
      e.reduced[j] = v;
    }
    if (with_energy) {
      e.kinetic = Mech::kinetic_energy(P.mechanism, motion);
      e.potential = Mech::potential_energy(P.mechanism, pose);
    }
  }

  // Value of an evaluation at x + dx from its value and gradient at x.
  // A Dual<ni> (kinematic) quantity uses the first ni entries of dx, the z_i.
  template <int N>
  HS_HD static double expand(const Dual<N>& v, const double* dx) {
    double r = v.a;
    for (int k = 0; k < N; ++k) r += v.v[k] * dx[k];
    return r;
  }
  HS_HD static void expand(const Evaluation<Jet>& a, const double* dx, Evaluation<double>& e) {
    for (int k = 0; k < nq; ++k) {
      e.q[k] = expand(a.q[k], dx);
      e.qd[k] = expand(a.qd[k], dx);
      e.qdd[k] = expand(a.qdd[k], dx);
    }
    for (int k = 0; k < na; ++k) {
      e.s[k] = expand(a.s[k], dx);
      e.sdot[k] = expand(a.sdot[k], dx);
      e.piston_force[k] = expand(a.piston_force[k], dx);
      e.friction_force[k] = expand(a.friction_force[k], dx);
    }
    for (int j = 0; j < ni; ++j) e.reduced[j] = expand(a.reduced[j], dx);
    for (int k = 0; k < np; ++k) e.pressure_rate[k] = expand(a.pressure_rate[k], dx);
    for (int k = 0; k < nw; ++k) e.friction_rate[k] = expand(a.friction_rate[k], dx);
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nq; ++c) e.constraint_jacobian[r][c] = expand(a.constraint_jacobian[r][c], dx);
    e.kinetic = expand(a.kinetic, dx);
    e.potential = expand(a.potential, dx);
  }

  // ---------------------------------------------------------------------
  // One trapezoidal step

  struct StepContext {
    double dt;
    double U[na];              // spools at t_{k+1}
    Partition part;
    double q_guess[nq];        // full coordinates; z_d entries warm-start the closure solve
    double qd_hat[nq], qdd_hat[nq], pd_hat[np];
    Vec<double, nw> wd_hat;
    double constraint_residual;
  };

  // Residual f(x) of eq (38); false if the loop closure cannot be solved.
  // With `out`, the full evaluation (energies included) is returned too.
  template <class T>
  HS_HD static bool residual(const Params& P, const Constants& K, const IntegratorSettings& S, StepContext& ctx,
                             const T* x, T* f, Evaluation<T>* out = nullptr) {
    const double dt = ctx.dt;
    for (int j = 0; j < ni; ++j) assign_at(ctx.q_guess, ctx.part.indep[j], value(x[j]));
    double dzd_dzi[nc][ni];
    if (!solve_dependent(P, ctx.part, S.constraint_tolerance, S.max_position_iterations, ctx.q_guess, dzd_dzi,
                         &ctx.constraint_residual))
      return false;
    using Tk = Kinematic<T>;
    Tk q[nq], zi[ni], qd_i[ni], qdd_i[ni];
    T pd[np];
    Vec<T, nw> wd;
    for (int j = 0; j < ni; ++j) {
      const int k = ctx.part.indep[j];
      zi[j] = head<ni>(x[j]);
      q[k] = zi[j];
      qd_i[j] = (2.0 / dt) * zi[j] + ctx.qd_hat[k];
      qdd_i[j] = (4.0 / (dt * dt)) * zi[j] + ctx.qdd_hat[k];
    }
    for (int r = 0; r < nc; ++r) {
      // Implicit function theorem: the value from the inner solve, the
      // derivative ∂z_d/∂z_i · dz_i.
      Tk v(select_at(ctx.q_guess, ctx.part.dep[r]));
      for (int j = 0; j < ni; ++j) v += dzd_dzi[r][j] * (zi[j] - value(zi[j]));
      assign_at(q, ctx.part.dep[r], v);
    }
    trapezoidal_actuator_rates(x, ni, dt, ctx.pd_hat, ctx.wd_hat.data(), pd, wd.data());
    Evaluation<T> local;
    Evaluation<T>& e = out ? *out : local;
    evaluate(P, K, ctx.part, q, qd_i, qdd_i, x + ni, wd.data(), ctx.U, e, out != nullptr);
    for (int j = 0; j < ni; ++j) f[j] = e.reduced[j];
    actuator_residual_rows(ni, pd, wd.data(), e.pressure_rate, e.friction_rate.data(), f);
    return true;
  }

  // Newton tangent and residual at x. With the exact tangent, `jet_eval`
  // (if given) receives the evaluation with its derivatives along x.
  HS_HD static bool tangent(const Params& P, const Constants& K, const IntegratorSettings& S, StepContext& ctx,
                            const double* x, double* f, Mat<double, nx, nx>& J,
                            Evaluation<Jet>* jet_eval = nullptr) {
    return newton_tangent<nx>(S.tangent, x, f, J, [&](const auto* xt, auto* ft) {
      using T = typename std::remove_const<typename std::remove_pointer<decltype(xt)>::type>::type;
      if constexpr (std::is_same<T, Jet>::value) return residual(P, K, S, ctx, xt, ft, jet_eval);
      else return residual(P, K, S, ctx, xt, ft);
    });
  }

  struct StepReport {
    int newton_iterations = 0;
    double constraint_residual = 0.0;
  };

  // Advance s by one step of S.dt. On failure s is left at the start of the step.
  HS_HD static Status step(const Params& P, const Constants& K, const IntegratorSettings& S, State& s,
                           StepReport& report, Evaluation<double>* eval_out = nullptr) {
    const double dt = S.dt;
    StepContext ctx;
    ctx.dt = dt;
    // Keep the current split while it stays well conditioned; otherwise take
    // the full-pivoting choice (A21: hysteresis of a factor 2 on |det Φ_d|).
    {
      Partition best;
      const double best_det = full_pivot_partition(s.constraint_jacobian, best);
      if (partition_determinant(s.constraint_jacobian, s.part) < 0.5 * best_det) s.part = best;
    }
    ctx.part = s.part;
    advance_spools(P, K, s, dt, ctx.U);
    for (int k = 0; k < nq; ++k) {
      ctx.q_guess[k] = s.q[k] + dt * s.qd[k] + 0.5 * dt * dt * s.qdd[k];  // predictor, docs/models/integrators.md §3.2
      ctx.qd_hat[k] = -((2.0 / dt) * s.q[k] + s.qd[k]);
      ctx.qdd_hat[k] = -((4.0 / (dt * dt)) * s.q[k] + (4.0 / dt) * s.qd[k] + s.qdd[k]);
    }
    double x[nx];
    for (int j = 0; j < ni; ++j) x[j] = select_at(ctx.q_guess, s.part.indep[j]);
    predict_actuator_states(s, dt, ni, x, ctx.pd_hat, ctx.wd_hat.data());

    bool converged = false;
    int it = 0;
    double dx[nx];
    Evaluation<Jet> last;  // evaluation of the last iterate, with ∂/∂x
    while (it < S.max_newton_iterations) {
      ++it;
      double f[nx];
      Mat<double, nx, nx> J;
      if (!tangent(P, K, S, ctx, x, f, J, &last)) return Status::constraint_failure;
      for (int r = 0; r < nx; ++r) f[r] = -f[r];
      if (!solve_linear(J, f, dx)) return Status::newton_failure;
      const Status update = newton_update<ni>(S, x, dx, converged);
      if (update != Status::ok) return update;
      if (converged) break;
    }
    report.newton_iterations = it;
    if (!converged) return Status::newton_failure;

    // Consistent state at t_{k+1}: positions on the constraint manifold,
    // velocities/accelerations from eqs (13)–(15), rates from eqs (33)–(34).
    // With the exact tangent the last evaluation already holds every
    // quantity and its derivative along x, so the state at x + Δx is
    // its first-order expansion, exact to O(|Δx|²) ≤ O(tol²) (Δx passed
    // the convergence test): no further model evaluation is needed.
    Evaluation<double> e;
    if (S.tangent == Tangent::exact) {
      expand(last, dx, e);
    } else {
      double f[nx];
      if (!residual(P, K, S, ctx, x, f, &e)) return Status::constraint_failure;
    }
    report.constraint_residual = ctx.constraint_residual;
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nq; ++c) s.constraint_jacobian[r][c] = e.constraint_jacobian[r][c];
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
    if (eval_out) *eval_out = e;
    return Status::ok;
  }

  // The sampled observation of the state at t (input_policy.hpp).
  HS_HD static typename Model::Observation observation(const State& s) {
    typename Model::Observation o;
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
  HS_HD static Status initialize(const Params& P, const IntegratorSettings& S, State& s, Constants& K,
                                 Evaluation<double>* eval_out = nullptr) {
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
    Mech::constraint_jacobian(Mech::pose(P.mechanism, s.q), s.constraint_jacobian);
    full_pivot_partition(s.constraint_jacobian, s.part);

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
    // tests/device_trace.cu; README "GPU").
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
    evaluate(P, K, s.part, qi, qd_i, qdd_i, y, wd.data(), U0, ed, false);
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
    evaluate(P, K, s.part, s.q, qdi, a0, yv, wdv, U0, e, true);
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
