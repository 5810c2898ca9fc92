// Fixed-step implicit trapezoidal rule, penalty-based semirecursive
// formulation: seed 001 §2.3 eqs (18)–(21) and §4 eqs (36), (39); seed 002
// eqs (9)–(12). docs/models/integrators.md §9.
//
// Primary variables x = [z | y_0 | y_1 | ...]: every joint coordinate (no
// partition), then each actuator's states as in the double step. The
// constraints are not solved; they are enforced by an index-3 augmented
// Lagrangian with penalty α (the same for every constraint):
//   M' z̈ + Φ_zᵀ α Φ + Φ_zᵀ λ = Q'                        eq (18)
//   λ ← λ + α Φ   after every Newton iteration            eq (19)
// with λ's first iterate the previous step's final λ. Residual, eq (39)
// without its common factor dt²/4:
//   f = [ M' z̈ − Q' − Σ_a F_a ∂s_a/∂z + Φ_zᵀ(αΦ + λ) ;  per actuator: ṗ_a − h ;  ẇ_a − u ]
// on the trapezoidal relations of eqs (33)–(34) for the full z. The Newton
// tangent holds λ fixed (exact on Dual<nx>, or forward differences).
//
// After convergence the velocities and accelerations are projected onto the
// constraint manifold's tangent, mass–damping–stiffness orthogonally
// (scleronomic constraints, eqs (20)–(21)):
//   [W + (dt²/4) α Φ_zᵀΦ_z] ż = W ż'
//   [W + (dt²/4) α Φ_zᵀΦ_z] z̈ = W z̈' − (dt²/4) α Φ_zᵀ (Φ̇_z ż)
//   W = M + (dt/2) C + (dt²/4) K,   C = ∂(−Q')/∂ż,  K = ∂(−Q')/∂z
// W is (dt²/4) times the z-block of the mechanical residual's Jacobian on
// the trapezoidal relations (pressures held), taken exactly from one
// evaluation on Dual<nq> at the converged point; both sides are divided by
// dt²/4 before solving.
//
// Everything of the model (mechanism, actuators, input, initial state) is
// the double step's: this formulation reuses its evaluation helpers and its
// initial state, and adds the consistent multipliers λ0 at t = 0.
//
// R = double: one instance, every backend. R = Lanes<W> (CPU only): W
// instances in lockstep (docs/models/lanes.md §4, §7): the same operations
// per lane, a lane that has converged keeps its iterate and its multipliers
// while the others iterate, and a lane that fails keeps the state it had at
// the start of the step, with its own status.
#pragma once
#include <type_traits>

#include "double_step_trapezoidal.hpp"

namespace hs {

template <class ModelT, class R = double>
struct PenaltyTrapezoidal : DoubleStepTrapezoidal<ModelT, R> {
  using Base = DoubleStepTrapezoidal<ModelT, R>;
  using Model = ModelT;
  using Real = R;
  using Mask = typename Base::Mask;
  using Index = typename Base::Index;
  using StatusR = typename Base::StatusR;
  static constexpr bool one_instance = Base::one_instance;
  using Mech = typename Base::Mech;
  using Params = typename Base::Params;
  using Constants = typename Base::Constants;
  template <class T>
  using Evaluation = typename Base::template Evaluation<T>;
  using StepReport = typename Base::StepReport;
  static constexpr int nq = Base::nq, nc = Base::nc, na = Base::na;
  static constexpr int npa = Base::npa, nwa = Base::nwa, nsa = Base::nsa;
  static constexpr int np = Base::np, nw = Base::nw;
  static constexpr int nx = nq + np + nw;  // Newton unknowns: every coordinate, then the actuator states
  using Jet = Dual<nx, R>;
  // The mechanism depends on z alone: it runs on Dual<nq> inside a Dual<nx>
  // residual (as the double step's on Dual<ni>).
  template <class T>
  using Kinematic = typename HeadScalar<T, nq>::type;

  struct State : Base::State {
    R lambda[nc];  // the multipliers λ of eq (18) at t
  };

  // The mechanical and actuator terms at (z, ż, z̈) and actuator states y.
  template <class T>
  struct Terms {
    using K = Kinematic<T>;
    K phi[nc];              // Φ(z)
    K jacobian[nc][nq];     // Φ_z
    T mechanical[nq];       // M' z̈ − Q' − Σ F_a ∂s_a/∂z  (no constraint forces)
    T pressure_rate[np];
    Vec<T, nw> friction_rate;
    K s[na], sdot[na];
    T piston_force[na], friction_force[na];
  };

  template <class T>
  HS_HD static void evaluate(const Params& P, const Constants& K, const Kinematic<T>* z, const Kinematic<T>* zd,
                             const Kinematic<T>* zdd, const T* y, const T* wd, const R* U, Terms<T>& e) {
    using Tk = Kinematic<T>;
    const auto pose = Mech::pose(P.mechanism, z);
    Mech::constraints(P.mechanism, pose, e.phi);
    Mech::constraint_jacobian(pose, e.jacobian);
    const auto motion = Mech::motion(pose, zd);
    const auto acc = Mech::acceleration(pose, motion, zdd);
    Tk r[nq];
    Mech::dynamics_residual(P.mechanism, pose, motion, acc, r);
    for (int k = 0; k < nq; ++k) e.mechanical[k] = Widen<T>::from(r[k]);
    for (int a = 0; a < na; ++a) {
      Tk ds_dz[nq];
      const T F = Base::actuator_on_mechanism(P, K, pose, motion, a, y, wd, U, e.s[a], e.sdot[a], ds_dz,
                                              e.piston_force[a], e.friction_force[a], e.pressure_rate,
                                              e.friction_rate.data());
      for (int k = 0; k < nq; ++k) e.mechanical[k] -= F * Widen<T>::from(ds_dz[k]);
    }
  }

  struct StepContext {
    double dt, alpha;
    R U[na];  // spools at t_{k+1}
    R qd_hat[nq], qdd_hat[nq], pd_hat[np];
    Vec<R, nw> wd_hat;
    R lambda[nc];  // the current iterate's multipliers
  };

  // The trapezoidal velocities and accelerations of z (eq 33).
  template <class Tk>
  HS_HD static void trapezoidal_motion(const StepContext& ctx, const Tk* z, Tk* zd, Tk* zdd) {
    for (int k = 0; k < nq; ++k) {
      zd[k] = (2.0 / ctx.dt) * z[k] + ctx.qd_hat[k];
      zdd[k] = (4.0 / (ctx.dt * ctx.dt)) * z[k] + ctx.qdd_hat[k];
    }
  }

  // Residual f(x) of eq (39), λ held at ctx.lambda.
  template <class T>
  HS_HD static void residual(const Params& P, const Constants& K, const StepContext& ctx, const T* x, T* f) {
    using Tk = Kinematic<T>;
    Tk z[nq], zd[nq], zdd[nq];
    for (int k = 0; k < nq; ++k) z[k] = head<nq>(x[k]);
    trapezoidal_motion(ctx, z, zd, zdd);
    T pd[np];
    Vec<T, nw> wd = Vec<T, nw>::filled(T(0.0));  // filled: with nw = 0 its placeholder is read by nobody, but GCC cannot tell
    Base::trapezoidal_actuator_rates(x, nq, ctx.dt, ctx.pd_hat, ctx.wd_hat.data(), pd, wd.data());
    Terms<T> e;
    evaluate(P, K, z, zd, zdd, x + nq, wd.data(), ctx.U, e);
    // Constraint forces Φ_zᵀ(αΦ + λ), eq (18).
    T force[nc];
    for (int r = 0; r < nc; ++r) force[r] = Widen<T>::from(ctx.alpha * e.phi[r] + ctx.lambda[r]);
    for (int k = 0; k < nq; ++k) {
      T v = e.mechanical[k];
      for (int r = 0; r < nc; ++r) v += Widen<T>::from(e.jacobian[r][k]) * force[r];
      f[k] = v;
    }
    Base::actuator_residual_rows(nq, pd, wd.data(), e.pressure_rate, e.friction_rate.data(), f);
  }

  // |Φ(z)|∞ and Φ(z) at the coordinates z.
  HS_HD static R constraint_values(const Params& P, const R* z, R* phi) {
    const auto pose = Mech::pose(P.mechanism, z);
    Mech::constraints(P.mechanism, pose, phi);
    R m(0.0);
    for (int r = 0; r < nc; ++r) m = choose(math::abs(phi[r]) > m, math::abs(phi[r]), m);
    return m;
  }

  // Advance s by one step of S.dt. On failure s is left at the start of the
  // step. On lanes: the lanes of `active` are stepped, each lane's status is
  // returned, and a lane that fails or is not active keeps its state (and
  // *eval_out) as it was (the double step's contract).
  HS_HD static StatusR step(const Params& P, const Constants& K, const IntegratorSettings& S, State& s,
                            StepReport& report, Evaluation<R>* eval_out = nullptr, Mask active = Mask(true)) {
    using St = StatusOnT<R>;
    const double dt = S.dt;
    typename std::conditional<one_instance, char, State>::type start{};  // lanes: to restore the lanes that stop
    if constexpr (!one_instance) start = s;
    StepContext ctx;
    ctx.dt = dt;
    ctx.alpha = S.penalty_factor;
    Base::advance_spools(P, K, s, dt, ctx.U);
    R x[nx];
    for (int k = 0; k < nq; ++k) {
      x[k] = s.q[k] + dt * s.qd[k] + 0.5 * dt * dt * s.qdd[k];  // predictor, docs/models/integrators.md §3.2
      ctx.qd_hat[k] = -((2.0 / dt) * s.q[k] + s.qd[k]);
      ctx.qdd_hat[k] = -((4.0 / (dt * dt)) * s.q[k] + (4.0 / dt) * s.qd[k] + s.qdd[k]);
    }
    Base::predict_actuator_states(s, dt, nq, x, ctx.pd_hat, ctx.wd_hat.data());
    for (int r = 0; r < nc; ++r) ctx.lambda[r] = s.lambda[r];

    StatusR status = St::of(Status::ok);
    Mask pending = active;  // lanes still iterating
    report.newton_iterations = 0;
    int it = 0;
    R phi[nc], violation(0.0);  // Φ and |Φ|∞ at the latest iterate
    while (it < S.max_newton_iterations) {
      ++it;
      report.lane_iterations += one_instance ? 1 : static_cast<int>(sizeof(R) / sizeof(double));
      report.active_lane_iterations += lane_count(pending);
      R f[nx], dx[nx];
      Mat<R, nx, nx> J;
      newton_tangent<nx>(S.tangent, x, f, J, [&](const auto* xt, auto* ft) {
        residual(P, K, ctx, xt, ft);
        return Mask(true);
      });
      for (int r = 0; r < nx; ++r) f[r] = -f[r];
      if constexpr (one_instance) {
        if (!solve_newton_increment(J, f, dx)) return Status::newton_failure;
        bool converged = false;
        const Status update = Base::template newton_update<nq>(S, x, dx, converged);
        if (update != Status::ok) return update;
        // Multiplier update with Φ at the new positions, eq (19).
        violation = constraint_values(P, x, phi);
        for (int r = 0; r < nc; ++r) ctx.lambda[r] += ctx.alpha * phi[r];
        if (converged) { pending = false; break; }
      } else {
        report.newton_iterations = choose(pending, report.newton_iterations + 1.0, report.newton_iterations);
        const Mask solved = solve_newton_increment(J, f, dx);
        set_status_where(pending && !solved, status, Status::newton_failure);
        pending = pending && solved;
        Mask converged;
        const Mask finite = Base::template newton_update<nq>(S, x, dx, converged, pending);
        set_status_where(pending && !finite, status, Status::diverged);
        const Mask moved = pending && finite;
        // Eq (19) in the lanes whose iterate moved.
        const R v = constraint_values(P, x, phi);
        violation = choose(moved, v, violation);
        for (int r = 0; r < nc; ++r) ctx.lambda[r] = choose(moved, ctx.lambda[r] + ctx.alpha * phi[r], ctx.lambda[r]);
        pending = moved && !converged;
        if (!any_lane(pending)) break;
      }
    }
    if constexpr (one_instance) {
      report.newton_iterations = it;
      if (pending) return Status::newton_failure;
      if (!(violation < 1e30)) return Status::diverged;
    } else {
      set_status_where(pending, status, Status::newton_failure);
      set_status_where(active && status == St::of(Status::ok) && !(violation < 1e30), status, Status::diverged);
    }

    // Projections, eqs (20)–(21) divided by dt²/4: A = W̃ + α Φ_zᵀΦ_z with
    // W̃ = ∂(mechanical)/∂z on the trapezoidal relations (= (4/dt²) W).
    R qd[nq], qdd[nq];
    {
      using D = Dual<nq, R>;
      D z[nq], zd[nq], zdd[nq], y[na * nsa];
      Vec<D, nw> wd = Vec<D, nw>::filled(D(0.0));
      for (int k = 0; k < nq; ++k) z[k] = D::variable(x[k], k);
      trapezoidal_motion(ctx, z, zd, zdd);
      for (int k = 0; k < na * nsa; ++k) y[k] = D(x[nq + k]);
      R pdv[np];
      Vec<R, nw> wdv = Vec<R, nw>::filled(R(0.0));
      Base::trapezoidal_actuator_rates(x, nq, dt, ctx.pd_hat, ctx.wd_hat.data(), pdv, wdv.data());
      for (int k = 0; k < nw; ++k) wd[k] = D(wdv[k]);
      Terms<D> e;
      evaluate(P, K, z, zd, zdd, y, wd.data(), ctx.U, e);
      Mat<R, nq, nq> W, A;
      for (int r = 0; r < nq; ++r)
        for (int c = 0; c < nq; ++c) {
          W(r, c) = e.mechanical[r].v[c];
          R g(0.0);
          for (int k = 0; k < nc; ++k) g += e.jacobian[k][r].a * e.jacobian[k][c].a;
          A(r, c) = W(r, c) + ctx.alpha * g;
        }
      Index perm[nq];
      const auto factored = lu_factor(A, perm);
      if constexpr (one_instance) {
        if (!factored) return Status::newton_failure;
      } else {
        set_status_where(active && status == St::of(Status::ok) && !factored, status, Status::newton_failure);
      }
      R b[nq];
      for (int r = 0; r < nq; ++r) {
        R v(0.0);
        for (int c = 0; c < nq; ++c) v += W(r, c) * zd[c].a;
        b[r] = v;
      }
      lu_solve(A, perm, b, qd);
      // Φ̇_z ż at the projected velocities: C̈ with z̈ = 0.
      const auto pose = Mech::pose(P.mechanism, x);
      const auto motion = Mech::motion(pose, qd);
      R zero[nq];
      for (int k = 0; k < nq; ++k) zero[k] = R(0.0);
      const auto acc0 = Mech::acceleration(pose, motion, zero);
      R bias[nc];
      Mech::constraint_acceleration(pose, motion, acc0, bias);
      for (int r = 0; r < nq; ++r) {
        R v(0.0);
        for (int c = 0; c < nq; ++c) v += W(r, c) * zdd[c].a;
        for (int k = 0; k < nc; ++k) v -= ctx.alpha * e.jacobian[k][r].a * bias[k];
        b[r] = v;
      }
      lu_solve(A, perm, b, qdd);
    }

    // The state at t_{k+1}, and what run_instance reads of it (energies at
    // the projected velocities).
    report.constraint_residual = violation;
    for (int k = 0; k < nq; ++k) {
      s.q[k] = x[k];
      s.qd[k] = qd[k];
      s.qdd[k] = qdd[k];
    }
    Base::store_actuator_states(x, nq, ctx.pd_hat, ctx.wd_hat.data(), ctx.U, dt, s);
    for (int r = 0; r < nc; ++r) s.lambda[r] = ctx.lambda[r];
    Evaluation<R> e;
    observe(P, K, s, e);
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
      return Base::template keep_unstepped_lanes<PenaltyTrapezoidal>(active, status, start, s, e, eval_out);
    }
  }

#if !defined(__CUDACC__) && !defined(__HIPCC__)
  // On lanes: the lanes of c take `from`'s state (the double step's and the
  // multipliers), the others keep `to`'s. The grid is the batch's.
  static void choose_in_place(const Mask& c, const State& from, State& to) {
    Base::choose_in_place(c, static_cast<const typename Base::State&>(from), static_cast<typename Base::State&>(to));
    hs::choose_in_place(c, from.lambda, to.lambda);
  }
  template <class Block>
  static void choose_in_place(const Mask& c, const Block& from, Block& to) {
    hs::choose_in_place(c, from, to);
  }
#endif

  // The terms at a state (its positions, velocities, accelerations, actuator states and rates).
  HS_HD static void evaluate_state(const Params& P, const Constants& K, const State& s, Terms<R>& e) {
    R y[na * nsa];
    Base::gather_actuator_states(s, y);
    evaluate(P, K, s.q, s.qd, s.qdd, y, s.wd.data(), s.U, e);
  }

  // The outputs' view of a state (run_instance: actuator lengths, rates,
  // forces, energies) from the state itself.
  HS_HD static void observe(const Params& P, const Constants& K, const State& s, Evaluation<R>& out) {
    Terms<R> e;
    evaluate_state(P, K, s, e);
    for (int k = 0; k < nq; ++k) {
      out.q[k] = s.q[k];
      out.qd[k] = s.qd[k];
      out.qdd[k] = s.qdd[k];
    }
    for (int a = 0; a < na; ++a) {
      out.s[a] = e.s[a];
      out.sdot[a] = e.sdot[a];
      out.piston_force[a] = e.piston_force[a];
      out.friction_force[a] = e.friction_force[a];
    }
    for (int k = 0; k < np; ++k) out.pressure_rate[k] = e.pressure_rate[k];
    for (int k = 0; k < nw; ++k) out.friction_rate[k] = e.friction_rate[k];
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nq; ++c) out.constraint_jacobian[r][c] = e.jacobian[r][c];
    const auto pose = Mech::pose(P.mechanism, s.q);
    const auto motion = Mech::motion(pose, s.qd);
    out.kinetic = Mech::kinetic_energy(P.mechanism, motion);
    out.potential = Mech::potential_energy(P.mechanism, pose);
  }

  // Initial state: the double step's (assembled, at rest, static pressures,
  // consistent accelerations), and the multipliers that hold it: at a
  // consistent state the mechanical residual lies in the range of Φ_zᵀ, so
  // Φ_zᵀ λ0 = −mechanical has the exact solution (Φ_z Φ_zᵀ) λ0 = −Φ_z mechanical.
  // One instance's: lanes gather initialized instances (kernels/integrators/lockstep.hpp).
  HS_HD static Status initialize(const Params& P, const IntegratorSettings& S, State& s, Constants& K,
                                 Evaluation<double>* eval_out = nullptr) {
    static_assert(one_instance, "initialize one instance; lanes gather initialized instances");
    const Status st = Base::initialize(P, S, s, K, eval_out);
    if (st != Status::ok) return st;
    Terms<double> e;
    evaluate_state(P, K, s, e);
    Mat<double, nc, nc> G;
    double b[nc];
    for (int r = 0; r < nc; ++r) {
      double v = 0.0;
      for (int k = 0; k < nq; ++k) v -= e.jacobian[r][k] * e.mechanical[k];
      b[r] = v;
      for (int c = 0; c < nc; ++c) {
        double g = 0.0;
        for (int k = 0; k < nq; ++k) g += e.jacobian[r][k] * e.jacobian[c][k];
        G(r, c) = g;
      }
    }
    if (!solve_linear(G, b, s.lambda)) return Status::invalid_parameters;
    return Status::ok;
  }
};

}  // namespace hs
