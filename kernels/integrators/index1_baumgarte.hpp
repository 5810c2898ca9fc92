// The index-1 Baumgarte integrator (docs/models/integrators.md §8) under the
// integrator contract of run_instance (kernels/integrators/run.hpp,
// docs/models/integrators.md §11): the same instance, the same work cycle,
// the same summary as the double step, for any mechanism of the DAE contract.
//
// It wraps Index1Trapezoidal (the trapezoidal rule on X = (x, v, p, U),
// seed 000 eq 89, Baumgarte β = γ = 50 1/s as in seed 000's reference run
// §4.4) on Index1Form<ActuatedSystem<Mechanism, Friction>>, and adds only
// the contract around it:
// - initial state: the static equilibrium of kernels/linearize/equilibrium.hpp
//   (assembled with the driving coordinate held, at rest, valve closed,
//   static pressures with p1 = p2 and p3 prescribed: docs/models/integrators.md §5,
//   the double step's initial state computed by the shared equilibrium code);
// - the valve reference U_ref from P.input at the step midpoint and held over
//   the step, as the double step does (docs/models/integrators.md §3.7): the
//   spool U is a component of X, and its rate at t_k is taken with this
//   step's U_ref, so the trapezoid gives the double step's closed-form
//   spool_step (up to rounding);
// - the outputs run_instance books: energies, actuator length and rate,
//   piston and friction forces, |C|∞, Newton iterations.
// Friction laws with states are not supported (ActuatedSystem's static_assert).
#pragma once
#include "../linearize/actuated_system.hpp"
#include "../linearize/equilibrium.hpp"
#include "../models/dae_mechanism.hpp"
#include "../models/hydraulically_actuated.hpp"
#include "index1_trapezoidal.hpp"
#include "settings.hpp"

namespace hs {

template <class SystemT>
struct Index1Baumgarte {
  using System = SystemT;
  using Dae = typename System::Mechanism;
  using Friction = typename System::Friction;
  using Circuit = typename System::Circuit;
  using Stepper = Index1Trapezoidal<System>;
  using Form = typename Stepper::Form;
  // The admissibility check (pressures, stroke) is the hydraulic model's.
  using Model = ActuatedModel<DaeMechanism<Dae>, typename System::Actuator, 1, typename System::Input>;
  using Input = typename Model::Input;
  using Params = typename System::Params;
  using Constants = typename System::Constants;
  static_assert(std::is_same<Constants, typename Model::Constants>::value, "");
  static constexpr int na = System::na;
  static_assert(na == 1, "the index-1 reference takes one actuator (its state holds one spool)");
  static constexpr int nq = System::n;
  static constexpr int nc = System::m;
  static constexpr int np = System::r;
  static constexpr int N = Form::N;
  static constexpr double baumgarte_beta = 50.0, baumgarte_gamma = 50.0;  // [1/s], seed 000 §4.4

  struct State {
    double t0 = 0.0;
    long steps = 0;
    double t = 0.0;  // grid_time(t0, steps, dt)
    double q[nq], qd[nq];
    double p[np];
    double U[na] = {};
    double X[N], Fx[N];  // (x, v, p, U) and its rate at t
    InputState<Input, na> input;  // the input policy's memory and held U_ref
    typename Stepper::Workspace work;
  };

  template <class T>
  struct Evaluation {
    T kinetic, potential;
    T s[na], sdot[na];
    T piston_force[na], friction_force[na];
  };

  struct StepReport {
    int newton_iterations = 0;
    double constraint_residual = 0.0;  // |C(x)|∞ at t_{k+1}
  };

  HS_HD static int driving_coordinate() { return Dae::driving_coordinate(); }

  HS_HD static typename Form::Forcing forcing(double U_ref) {
    typename Form::Forcing f;
    f.beta = baumgarte_beta;
    f.gamma = baumgarte_gamma;
    f.U_ref = U_ref;
    return f;
  }

  HS_HD static void evaluate(const Params& P, const Constants& K, const double* X, Evaluation<double>& e) {
    const double* x = X + Form::ix;
    const double* v = X + Form::iv;
    double ds_dx[nq];
    System::actuator(P, x, v, e.s[0], e.sdot[0], ds_dx);
    e.piston_force[0] = System::Actuator::piston_force(K.actuator[0], X + Form::ip);
    e.friction_force[0] = System::Actuator::friction_force(P.actuator[0], e.sdot[0], static_cast<const double*>(nullptr),
                                                           static_cast<const double*>(nullptr));
    e.kinetic = Dae::kinetic_energy(P.mechanism, x, v);
    e.potential = Dae::potential_energy(P.mechanism, x);
  }

  HS_HD static void copy_out(State& s) {
    for (int k = 0; k < nq; ++k) {
      s.q[k] = s.X[Form::ix + k];
      s.qd[k] = s.X[Form::iv + k];
    }
    for (int k = 0; k < np; ++k) s.p[k] = s.X[Form::ip + k];
    s.U[0] = s.X[Form::iu];
  }

  // The sampled observation of the state (input_policy.hpp); lengths from X.
  struct Observed {
    double s[na], sdot[na];
    typename Model::Observation o;
  };
  HS_HD static void observe(const Params& P, const State& st, Observed& ob) {
    double ds_dx[nq];
    System::actuator(P, st.X + Form::ix, st.X + Form::iv, ob.s[0], ob.sdot[0], ds_dx);
    ob.o.t = st.t;
    ob.o.q = st.q;
    ob.o.qd = st.qd;
    ob.o.s = ob.s;
    ob.o.sdot = ob.sdot;
    ob.o.p = st.p;
  }

  HS_HD static typename Stepper::Settings stepper_settings(const IntegratorSettings& S, const State& s) {
    // Newton tolerances: Index1Trapezoidal's (docs/models/integrators.md §8);
    // the iteration limit of the second attempt (fresh matrix): the study's.
    // Simplified Newton converges only linearly where the valve flow crosses
    // its laminar limit (the kink, docs/models/integrators.md §4): at dt = 1 ms
    // closing the valve of the work cycle takes 17 iterations at t = 8.033 s,
    // over the stepper's default 4 + 12.
    typename Stepper::Settings T;
    T.t0 = s.t0;
    T.dt = S.dt;
    T.max_newton_iterations = S.max_newton_iterations;
    return T;
  }

  HS_HD static Status initialize(const Params& P, const IntegratorSettings& S, State& s, Constants& K,
                                 Evaluation<double>* eval_out = nullptr) {
    Equilibrium<System> eq;
    if (solve_equilibrium<System>(P, eq) != Status::ok) return Status::invalid_parameters;
    if (!System::Actuator::static_state_admissible(eq.p, S.pressure_min, S.pressure_max)) return Status::invalid_parameters;
    K = eq.K;
    s.t0 = 0.0;
    s.steps = 0;
    s.t = s.t0;
    Form::state_of(eq, s.X);  // at rest, U = 0
    input_initialize<Input, na>(P, s.input);
    // The spool component of Fx is replaced at each step by the rate under
    // that step's U_ref, so the initial forcing's U_ref does not matter.
    if (!Form::rates(P, K, s.X, forcing(0.0), s.Fx)) return Status::invalid_parameters;
    s.work.valid = false;
    copy_out(s);
    if (eval_out) evaluate(P, K, s.X, *eval_out);
    return Status::ok;
  }

  HS_HD static Status step(const Params& P, const Constants& K, const IntegratorSettings& S, State& s,
                           StepReport& report, Evaluation<double>* eval_out = nullptr) {
    const double dt = S.dt;
    double U_refs[na];
    Observed ob;
    input_for_step<Input, na>(P, s.input, s.t0, s.steps, dt, [&]() {
      observe(P, s, ob);
      return ob.o;
    }, U_refs);
    const double U_ref = U_refs[0];
    const typename Form::Forcing f = forcing(U_ref);
    // The spool rate at t_k under this step's reference (the only component
    // of F that depends on U_ref).
    const double Fu = s.Fx[Form::iu];
    s.Fx[Form::iu] = Circuit::spool_rate(P.actuator[0].circuit, s.X[Form::iu], U_ref);
    const Status st = Stepper::step(P, K, stepper_settings(S, s), s.work, s.steps, s.X, s.Fx,
                                    [&](double, typename Form::Forcing& out) { out = f; }, &report.newton_iterations);
    if (st != Status::ok) {
      s.Fx[Form::iu] = Fu;  // left at the start of the step
      return st;
    }
    ++s.steps;
    s.t = grid_time(s.t0, s.steps, dt);
    copy_out(s);
    double C[nc];
    Dae::constraints(P.mechanism, s.q, C);
    double c = 0.0;
    for (int r = 0; r < nc; ++r) c = fabs(C[r]) > c ? fabs(C[r]) : c;
    report.constraint_residual = c;
    if (eval_out) evaluate(P, K, s.X, *eval_out);
    return Status::ok;
  }
};

}  // namespace hs
