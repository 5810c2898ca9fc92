// Integrate one instance over the whole horizon and summarise it: the unit
// of work every backend runs per instance (one thread on the GPU, one
// loop iteration on the CPU). Generic over the integrator.
#pragma once
#include <atomic>
#include "../models/hydraulically_actuated.hpp"
#include "settings.hpp"

namespace hs {

// One recorded sample of a trajectory (stride set by the caller). Per
// actuator a: its spool, length, rate and forces at [a], its pressures at
// p[a·np/na ...] (docs/models/integrators.md §11). A policy with a Probe
// adds it as member `input` (input_policy.hpp); without one, nothing.
template <int nq, int np, int na = 1, class Probe = NoInputReport>
struct Sample : WithInputRecord<Probe> {
  double t;
  double q[nq];
  double p[np];
  double U[na];
  double s[na], sdot[na];      // actuator lengths and rates
  double piston_force[na], friction_force[na];
  double energy_drift;         // see RunSummary::peak_energy_drift
  // The step that reached this sample (0 at t = 0): its Newton iterations
  // and its constraint violation |Φ|∞ (the double step's loop-closure
  // residual; the penalty formulation's violation after convergence).
  double newton_iterations;
  double constraint_violation;  // [m]
};

// A policy with a Report adds it as member `input` (input_policy.hpp).
template <int nq, int np, int na = 1, class Report = NoInputReport>
struct RunSummary : WithInputRecord<Report> {
  Status status = Status::ok;
  double t_end = 0.0;           // time reached (the failure time if status != ok)
  long steps = 0;
  double q[nq] = {}, qd[nq] = {}, p[np] = {};
  double U[na] = {}, s[na] = {};  // per actuator
  double p_min[np], p_max[np];
  // Energy balance (ambiguity A18), summed over the actuators a:
  //   drift(t) = [T + V](t) − [T + V](0) − W_cyl(t) − W_fr(t)
  //   W_cyl = ∫ Σ_a (A2 p2 − A3 p3)_a ṡ_a dt,  W_fr = −∫ Σ_a F_μ,a ṡ_a dt  (trapezoidal quadrature)
  double cylinder_work = 0.0, friction_work = 0.0;
  double max_cylinder_work = 0.0;   // max_t |W_cyl(t)|
  double peak_energy_drift = 0.0;   // max_t |drift(t)|
  double final_energy_drift = 0.0;
  long newton_iterations = 0;       // total over all steps
  int max_newton_iterations = 0;
  double max_constraint_violation = 0.0;  // max_t |Φ|∞ [m]
  // Quantities of interest for design studies (RunOptions):
  //   settling_time: from the last switch of the valve reference U_ref to
  //     the end of the last step at which the driving joint still moved
  //     faster than settling_rate, |ż_1| > settling_rate (z_1: the
  //     integrator's driving_coordinate()); 0 if it never did
  //     after the switch; NaN if it was still moving at the end of the run.
  //   tracking_rms: RMS over the steps of z_1(t) − z_1,ref(t) against a
  //     reference trajectory (the nominal instance's); NaN without one.
  double settling_time = 0.0;
  double tracking_rms = 0.0;
};

struct RunOptions {
  int stride = 0;                     // record every stride-th step (0: none)
  double settling_rate = 1e-3;        // [rad/s], see RunSummary::settling_time
  const double* reference = nullptr;  // z_1 (driving coordinate) at steps 0..n_steps, or null
  // Host runs only: when *cancel turns true (Ctrl-C) an instance stops within
  // kCancelCheckSteps steps, as not_run, so that an hours-long instance is
  // interrupted within a second rather than at its end (issue 36). The
  // batch is then cancelled and its chunk discarded. Device code never reads it.
  const std::atomic<bool>* cancel = nullptr;
};
// Steps between two looks at RunOptions::cancel: ~0.1 s of the slowest
// model's steps, a relaxed load each.
constexpr long kCancelCheckSteps = 4096;
// Whether a host run was asked to stop, looked at every kCancelCheckSteps steps.
HS_HD inline bool cancel_requested(const RunOptions& opt, long step) {
#ifdef __CUDA_ARCH__
  (void)opt;
  (void)step;
  return false;
#else
  return opt.cancel && step % kCancelCheckSteps == kCancelCheckSteps - 1 && opt.cancel->load(std::memory_order_relaxed);
#endif
}

// The summary of an instance that never started (its parameters were refused
// by the host or by the integrator's initialization, or it was not run): no
// time passed and no step was taken; there is no state to describe, so every
// other real-valued output is NaN rather than a zero that reads like data.
template <int nq, int np, int na = 1, class Report = NoInputReport>
HS_HD RunSummary<nq, np, na, Report> unstarted_summary(Status status) {
  const double nan = __builtin_nan("");
  RunSummary<nq, np, na, Report> out;
  out.blank_input();
  out.status = status;
  out.t_end = 0.0;
  for (int k = 0; k < nq; ++k) out.q[k] = out.qd[k] = nan;
  for (int k = 0; k < np; ++k) out.p[k] = out.p_min[k] = out.p_max[k] = nan;
  for (int a = 0; a < na; ++a) out.U[a] = out.s[a] = nan;
  out.cylinder_work = out.friction_work = out.max_cylinder_work = nan;
  out.peak_energy_drift = out.final_energy_drift = nan;
  out.max_constraint_violation = out.settling_time = out.tracking_rms = nan;
  return out;
}

// The summary and sample types run_instance gives for an integrator.
template <class Integrator>
using SummaryOf = RunSummary<Integrator::nq, Integrator::np, Integrator::na,
                             InputReport<typename Integrator::Model::Input>>;
template <class Integrator>
using SampleOf = Sample<Integrator::nq, Integrator::np, Integrator::na, InputProbe<typename Integrator::Model::Input>>;

// A sample's fields from the integrator's state and evaluation, each value
// read through `at` (the value itself for one instance; lane i of Lanes<W> on
// lockstep lanes, kernels/integrators/lockstep.hpp): one order of fields for
// run_instance and the lanes. The policy's probe is the caller's.
template <int nq, int np, int na, class SampleT, class State, class Eval, class At, class D>
HS_HD void fill_sample(SampleT& smp, const State& st, const Eval& e, At&& at, const D& drift, const D& iterations,
                       const D& violation) {
  smp.t = st.t;
  for (int k = 0; k < nq; ++k) smp.q[k] = at(st.q[k]);
  for (int k = 0; k < np; ++k) smp.p[k] = at(st.p[k]);
  for (int a = 0; a < na; ++a) {
    smp.U[a] = at(st.U[a]);
    smp.s[a] = at(e.s[a]);
    smp.sdot[a] = at(e.sdot[a]);
    smp.piston_force[a] = at(e.piston_force[a]);
    smp.friction_force[a] = at(e.friction_force[a]);
  }
  smp.energy_drift = at(drift);
  smp.newton_iterations = at(iterations);
  smp.constraint_violation = at(violation);
}

// What run_instance carries from one step to the next besides the
// integrator's state: the summary it builds and the running values of its
// quadratures (the energy balance, the settling clock, the tracking error).
// The caller owns it, so that a backend can place it: the CUDA backend keeps
// it in a per-thread slot of shared memory, where it holds no registers across
// the step and is not spilled to local memory (host/run/backends/
// instance_kernel.hpp; issue 16). Updated once per step.
template <class Integrator>
struct RunCarry {
  SummaryOf<Integrator> out;
  double E0;                     // T + V at t = 0
  double power_cyl, power_fr;    // the powers at the last step's end (A18)
  double t_last_moving, tracking_sq;
};

// Integrate until settings.duration into carry.out; every `stride` steps
// (and at t = 0) record(index, sample) is called if stride > 0.
template <class Integrator, class Recorder>
HS_HD void run_instance(const typename Integrator::Params& P, const IntegratorSettings& S, const RunOptions& opt,
                        Recorder&& record, RunCarry<Integrator>& carry) {
  const int stride = opt.stride;
  constexpr int nq = Integrator::nq, np = Integrator::np, na = Integrator::na;
  using Model = typename Integrator::Model;
  using Actuator = typename Model::Actuator;
  using Input = typename Model::Input;
  using Report = InputReport<Input>;
  SummaryOf<Integrator>& out = carry.out;
  out = SummaryOf<Integrator>();
  typename Integrator::State st;
  typename Integrator::Constants K;
  typename Integrator::template Evaluation<double> e;
  const Status init = Integrator::initialize(P, S, st, K, &e);
  if (init != Status::ok) {  // st.p may never have been set
    out = unstarted_summary<nq, np, na, Report>(init);
    return;
  }
  out.status = init;
  for (int k = 0; k < np; ++k) { out.p_min[k] = st.p[k]; out.p_max[k] = st.p[k]; }

  carry.E0 = e.kinetic + e.potential;
  // Powers summed over the actuators (A18).
  auto cylinder_power = [&]() {
    double pw = Actuator::cylinder_power(e.piston_force[0], e.sdot[0]);
    for (int a = 1; a < na; ++a) pw += Actuator::cylinder_power(e.piston_force[a], e.sdot[a]);
    return pw;
  };
  auto friction_power = [&]() {
    double pw = Actuator::friction_power(e.friction_force[0], e.sdot[0]);
    for (int a = 1; a < na; ++a) pw += Actuator::friction_power(e.friction_force[a], e.sdot[a]);
    return pw;
  };
  carry.power_cyl = cylinder_power();
  carry.power_fr = friction_power();
  auto sample = [&](double drift, double iterations, double violation) {
    SampleOf<Integrator> smp;
    input_probe<Input, na>(P, st.input, smp);
    fill_sample<nq, np, na>(smp, st, e, [](double v) { return v; }, drift, iterations, violation);
    return smp;
  };
  long record_index = 0;
  int steps_since_record = 0;
  if (stride > 0) record(record_index++, sample(0.0, 0.0, 0.0));

  const long n_steps = static_cast<long>(S.duration / S.dt + 0.5);
  carry.t_last_moving = -1.0;
  carry.tracking_sq = 0.0;
  bool moving = false;
  typename Integrator::StepReport rep;
  // The driving joint z_1 of the outputs below: the integrator's driving
  // coordinate (x[0] of a planar chain, φ2 of the 3D four-bar).
  const int drive = Integrator::driving_coordinate();
  for (long n = 0; n < n_steps; ++n) {
    if (cancel_requested(opt, n)) { out.status = Status::not_run; break; }
    const Status status = Integrator::step(P, K, S, st, rep, &e);
    if (status != Status::ok) { out.status = status; break; }
    out.steps = n + 1;
    out.newton_iterations += rep.newton_iterations;
    if (rep.newton_iterations > out.max_newton_iterations) out.max_newton_iterations = rep.newton_iterations;
    if (rep.constraint_residual > out.max_constraint_violation) out.max_constraint_violation = rep.constraint_residual;

    moving = fabs(st.qd[drive]) > opt.settling_rate;
    if (moving) carry.t_last_moving = st.t;
    if (opt.reference) {
      const double d = st.q[drive] - opt.reference[n + 1];
      carry.tracking_sq += d * d;
    }

    const double pc = cylinder_power(), pf = friction_power();
    out.cylinder_work += 0.5 * S.dt * (carry.power_cyl + pc);
    out.friction_work += 0.5 * S.dt * (carry.power_fr + pf);
    carry.power_cyl = pc;
    carry.power_fr = pf;
    const double drift = e.kinetic + e.potential - carry.E0 - out.cylinder_work - out.friction_work;
    if (fabs(out.cylinder_work) > out.max_cylinder_work) out.max_cylinder_work = fabs(out.cylinder_work);
    if (fabs(drift) > out.peak_energy_drift) out.peak_energy_drift = fabs(drift);
    out.final_energy_drift = drift;

    Status check = Model::check(P, K, st.p, e.s, S.pressure_min, S.pressure_max);  // actuator by actuator
    for (int k = 0; k < np; ++k) {
      if (st.p[k] < out.p_min[k]) out.p_min[k] = st.p[k];
      if (st.p[k] > out.p_max[k]) out.p_max[k] = st.p[k];
    }
    // A countdown, not (n + 1) % stride: no 64-bit remainder (a subroutine call on the GPU) in the loop.
    if (stride > 0 && ++steps_since_record == stride) {
      steps_since_record = 0;
      record(record_index++, sample(drift, rep.newton_iterations, rep.constraint_residual));
    }
    if (check != Status::ok) { out.status = check; break; }
  }
  // Times come from the integrator's state, on the step grid t0 + k·dt
  // (grid_time, settings.hpp): t_end, the recorded t and the settling time
  // (t_last_moving − t_switch) carry no running-sum drift.
  out.t_end = st.t;
  const double nan = __builtin_nan("");
  // Last switch of U_ref within the run; the settling clock starts there.
  // Computed here, after the loop, so that it is not live across it (GPU registers).
  const double t_switch = Model::Input::last_switch(P.input, S.duration);
  out.settling_time = moving ? nan : (carry.t_last_moving > t_switch ? carry.t_last_moving - t_switch : 0.0);
  out.tracking_rms = opt.reference && out.steps > 0 ? sqrt(carry.tracking_sq / out.steps) : nan;
  for (int k = 0; k < nq; ++k) { out.q[k] = st.q[k]; out.qd[k] = st.qd[k]; }
  for (int k = 0; k < np; ++k) out.p[k] = st.p[k];
  for (int a = 0; a < na; ++a) {
    out.U[a] = st.U[a];
    out.s[a] = e.s[a];
  }
  input_report<Input, na>(P, st.input, out);
}

template <class Integrator, class Recorder>
HS_HD SummaryOf<Integrator> run_instance(const typename Integrator::Params& P, const IntegratorSettings& S,
                                         const RunOptions& opt, Recorder&& record) {
  RunCarry<Integrator> carry;
  run_instance<Integrator>(P, S, opt, record, carry);
  return carry.out;
}

template <class Integrator, class Recorder>
HS_HD SummaryOf<Integrator> run_instance(const typename Integrator::Params& P, const IntegratorSettings& S, int stride,
                                         Recorder&& record) {
  RunOptions opt;
  opt.stride = stride;
  return run_instance<Integrator>(P, S, opt, record);
}

// Number of samples run_instance records for a given stride.
HS_HD inline long sample_count(const IntegratorSettings& S, int stride) {
  if (stride <= 0) return 0;
  const long n_steps = static_cast<long>(S.duration / S.dt + 0.5);
  return 1 + n_steps / stride;
}

}  // namespace hs
