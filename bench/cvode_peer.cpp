// Peer comparison: the seed 002 work cycle integrated the way a user
// without hydrosweep would, with SUNDIALS CVODE (variable-order,
// variable-step BDF; Newton; dense matrix and dense direct linear solver,
// difference-quotient Jacobian), one instance after another on one core.
// Both sides are compared at equal accuracy.
//
// The ODE given to CVODE is the model reduced to its independent
// coordinates (a "coordinate partitioning" ODE, the classic way to hand a
// closed-loop mechanism to a stiff ODE solver):
//   y = [z_i, ż_i, p1, p2, p3, U]
//   ż_i = ż_i,   z̈_i from the reduced dynamics,   ṗ = h(p, s, ṡ, U),
//   U̇ = (U_ref − U)/τ
// The physics is NOT re-implemented here: every right-hand side call runs
// the kernel functions the trapezoid runs,
//   DoubleStepTrapezoidal::solve_dependent  loop closure z_d(z_i), warm-started
//   DoubleStepTrapezoidal::evaluate         R_zᵀ(M z̈ − Q − F ∂s/∂z) and ṗ
// The reduced residual is affine in z̈_i, so one evaluation with z̈_i as a
// dual-number variable (value 0) gives residual = a + B z̈_i and z̈_i = −B⁻¹a.
// The partition (which joint is z_i) is the one initialize() picks (for the
// default model the coupler angle q[1]) and is kept for the whole cycle: the
// trapezoid may switch it on the way (factor-2 hysteresis on |det Φ_d|), but
// on this crank-rocker the fixed choice stays regular (a run would fail with
// a singular closure otherwise).
//
// The valve reference U_ref(t) is piecewise constant. Integrating across
// its jumps would make CVODE discover each one by error-test failures, so,
// as a competent user would, each constant segment is integrated separately
// (CVodeReInit at each switch time, tstop at the next).
//
// Accuracy: the error of the crank angle q[0] [rad] and of the pressures
// (max over the three volumes, relative to 1 MPa) against a CVODE reference
// at rtol = 1e-12, at the final state t = 10 s (the headline measure) and,
// as a check, the largest error over the trajectory sampled every 10 ms.
// Hydrosweep's trapezoid at dt = 1 ms is measured the same way; the CVODE
// tolerance that matches it is the loosest swept rtol (1e-4 … 1e-9 in
// half decades) whose two errors are both no larger than ours. For the
// work-precision picture the trapezoid is also run at dt = 0.5 … 10 ms.
//
// Throughput, one core: CVODE over --cycles instances (sequential, the
// solver object reused), hydrosweep with run_batch_cpu(threads = 1) over
// --instances instances, fastest of --repeats; both on the same ±10 %
// Coulomb-friction instance set as bench_cpu_throughput. hydrosweep runs as
// a user's run does, in 8-lane lockstep (docs/models/lanes.md); the same
// batch is also timed one instance at a time (lanes 1), at 4 lanes, and on
// all cores (threads 0) for the scaling figure.
//
//   bench_cvode_peer [--instances N] [--cycles K] [--repeats R] [--out FILE]
//
// With --loop, it is instead the "independent CVODE loop" of the end-to-end
// comparison (bench/cvode_end_to_end.py, docs/performance.md §1): a user's
// program that reads a design (CSV, one column per parameter of
// `hydrosweep parameters --model four-bar`), integrates every row with
// CVODE at one tolerance on T threads (one solver each) and writes one CSV
// line per instance: the final state and the largest pressures of the
// 10 ms samples.
//
//   bench_cvode_peer --loop DESIGN.csv --rtol R --results OUT.csv [--threads T]
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_config.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/design/design_rows.hpp"
#include "host/run/batch.hpp"
#include "kernels/integrators/double_step_trapezoidal.hpp"

namespace {

namespace hb = hs::bench;
using Model = hs::HydraulicFourBar<hs::BrownMcPhee>;
using Integrator = hs::DoubleStepTrapezoidal<Model>;
using Params = Integrator::Params;

const char* kUsage =
    "usage: bench_cvode_peer [--instances N] [--cycles K] [--repeats R] [--out FILE]\n"
    "  --instances N  instances timed for hydrosweep, run_batch_cpu threads=1 (default 200)\n"
    "  --cycles K     work cycles timed for CVODE at each tolerance (default 100)\n"
    "  --repeats R    timed runs per setting, the fastest is kept (default 3)\n"
    "  --out FILE     result file (default bench/results/cvode-peer-<machine>.json)\n"
    "   or: bench_cvode_peer --loop DESIGN.csv --rtol R --results OUT.csv [--threads T]\n"
    "  --loop FILE    the end-to-end loop: every row of FILE (a header of four-bar parameter names) through CVODE\n"
    "  --rtol R       CVODE's relative tolerance (absolute ones scale with it)\n"
    "  --results OUT  one CSV line per row: status, final q1 and p, max p of the 10 ms samples\n"
    "  --threads T    threads, one solver each (default 1)\n";

// Pressure scale of the error measure [Pa].
constexpr double kPressureScale = 1e6;

// ---------------------------------------------------------------------------
// The reduced ODE, evaluated with the kernel code

class ReducedOde {
 public:
  static constexpr int nq = Integrator::nq, nc = Integrator::nc, ni = Integrator::ni, np = Integrator::np;
  static_assert(Integrator::nw == 0, "friction states would have to join the CVODE state vector");
  // Layout of y.
  static constexpr int kZ = 0, kZdot = ni, kP = 2 * ni, kU = 2 * ni + np, n = 2 * ni + np + 1;

  // Loop-closure tolerance of the right-hand side [m]. Tighter than the
  // trapezoid's 1e-11 because CVODE differentiates the right-hand side
  // numerically (Jacobian by difference quotients) and the reference runs
  // at rtol = 1e-12: a closure left at 1e-11 would be noise at that level.
  // With the warm start this costs at most one extra inner iteration.
  static constexpr double kClosureTolerance = 1e-13;

  // Consistent initial state from the trapezoid's own initialize(): the
  // same configuration, pressures and partition. False if it fails.
  bool start(const Params& P, double* y) {
    P_ = &P;
    Integrator::State st;
    const hs::IntegratorSettings defaults;
    max_closure_iterations_ = defaults.max_position_iterations;
    if (Integrator::initialize(P, defaults, st, K_) != hs::Status::ok) return false;
    part_ = st.part;
    for (int k = 0; k < nq; ++k) q_[k] = st.q[k];
    for (int j = 0; j < ni; ++j) {
      y[kZ + j] = st.q[part_.indep[j]];
      y[kZdot + j] = st.qd[part_.indep[j]];
    }
    for (int k = 0; k < np; ++k) y[kP + k] = st.p[k];
    y[kU] = st.U[0];
    return true;
  }

  // U_ref on the segment being integrated (constant there).
  void set_input(double u_ref) { u_ref_ = u_ref; }

  // ẏ = f(y). 0 on success, 1 (CVODE: recoverable, retry with a smaller
  // step) if the loop closure or the reduced mass matrix fails at y.
  int rhs(const double* y, double* ydot) {
    if (!closure(y, q_)) return 1;
    using D = hs::Dual<ni>;
    D q[nq], qd_i[ni], qdd_i[ni], p[np];
    for (int k = 0; k < nq; ++k) q[k] = D(q_[k]);
    for (int j = 0; j < ni; ++j) {
      qd_i[j] = D(y[kZdot + j]);
      qdd_i[j] = D::variable(0.0, j);
    }
    for (int k = 0; k < np; ++k) p[k] = D(y[kP + k]);
    Integrator::Evaluation<D> e;
    // Friction states: none (nw == 0), hence the null pointers.
    // y = p for the one actuator (no friction states).
    const double U[1] = {y[kU]};
    Integrator::evaluate(*P_, K_, part_, q, qd_i, qdd_i, p, static_cast<const D*>(nullptr), U, e,
                         Integrator::Outputs::residual);
    // reduced = a + B z̈_i  →  z̈_i = −B⁻¹ a   (B: reduced mass matrix).
    hs::Mat<double, ni, ni> B;
    double minus_a[ni], zdd[ni];
    for (int r = 0; r < ni; ++r) {
      minus_a[r] = -e.reduced[r].a;
      for (int c = 0; c < ni; ++c) B(r, c) = e.reduced[r].v[c];
    }
    if (!hs::solve_linear(B, minus_a, zdd)) return 1;
    for (int j = 0; j < ni; ++j) {
      ydot[kZ + j] = y[kZdot + j];
      ydot[kZdot + j] = zdd[j];
    }
    // The pressure rates depend on positions and velocities only, so their
    // values at z̈_i = 0 are the rates.
    for (int k = 0; k < np; ++k) ydot[kP + k] = e.pressure_rate[k].a;
    ydot[kU] = Model::Circuit::spool_rate(P_->actuator[0].circuit, y[kU], u_ref_);
    return 0;
  }

  // Which joint coordinate is z_i (for the record).
  int independent_coordinate(int j = 0) const { return part_.indep[j]; }

  // All joint coordinates at y (for the crank angle q[0]); false on failure.
  bool coordinates(const double* y, double* q) {
    for (int k = 0; k < nq; ++k) q[k] = q_[k];
    return closure(y, q);
  }

 private:
  // Dependent coordinates for the independent ones in y, starting from
  // (and updating) q: the warm start that keeps each solve at 1–2 Newton
  // iterations.
  bool closure(const double* y, double* q) const {
    double scratch[nc][ni], residual;
    // Solve on a copy: a failed solve must not spoil the warm start.
    double trial[nq];
    for (int k = 0; k < nq; ++k) trial[k] = q[k];
    for (int j = 0; j < ni; ++j) trial[part_.indep[j]] = y[kZ + j];
    if (!Integrator::solve_dependent(*P_, part_, kClosureTolerance, max_closure_iterations_, trial, scratch,
                                     &residual))
      return false;
    for (int k = 0; k < nq; ++k) q[k] = trial[k];
    return true;
  }

  const Params* P_ = nullptr;
  Integrator::Constants K_{};
  Integrator::Partition part_{};
  double q_[nq] = {};  // last consistent coordinates: the warm start
  double u_ref_ = 0.0;
  int max_closure_iterations_ = 25;
};

// ---------------------------------------------------------------------------
// What the error measure looks at: the crank angle and the pressures.

struct Observation {
  double crank_angle;                  // q[0] [rad]
  double pressure[ReducedOde::np];     // [Pa]
};

// Observations every kSampleInterval of the cycle, t = 0 included: the
// trajectory part of the error measure.
constexpr double kSampleInterval = 0.01;  // [s]; a multiple of every swept dt

struct Error {
  double crank_angle = NAN;  // |Δq[0]| [rad]
  double pressure = NAN;     // max_k |Δp_k| / 1 MPa
  bool within(const Error& bound) const { return crank_angle <= bound.crank_angle && pressure <= bound.pressure; }
  void widen(const Error& o) {
    crank_angle = std::isnan(crank_angle) ? o.crank_angle : std::max(crank_angle, o.crank_angle);
    pressure = std::isnan(pressure) ? o.pressure : std::max(pressure, o.pressure);
  }
};

Error difference(const Observation& ref, const Observation& x) {
  Error e;
  e.crank_angle = std::fabs(x.crank_angle - ref.crank_angle);
  e.pressure = 0.0;
  for (int k = 0; k < ReducedOde::np; ++k)
    e.pressure = std::max(e.pressure, std::fabs(x.pressure[k] - ref.pressure[k]) / kPressureScale);
  return e;
}

// Final-state error (the headline measure, at t = duration) and the largest
// error over the sampled trajectory (a check that the final state does not
// flatter either side: the cycle ends at rest).
struct Accuracy {
  Error final_state, trajectory;
};

Accuracy accuracy(const std::vector<Observation>& ref, const std::vector<Observation>& x) {
  Accuracy a;
  if (x.size() != ref.size() || x.empty()) return a;  // failed run: NaN errors
  for (size_t k = 0; k < x.size(); ++k) a.trajectory.widen(difference(ref[k], x[k]));
  a.final_state = difference(ref.back(), x.back());
  return a;
}

// ---------------------------------------------------------------------------
// CVODE driver

struct CvodeCounters {
  long steps = 0, rhs_evals = 0, jacobian_evals = 0, newton_iterations = 0, error_test_failures = 0,
       newton_failures = 0;
  CvodeCounters& operator+=(const CvodeCounters& o) {
    steps += o.steps; rhs_evals += o.rhs_evals; jacobian_evals += o.jacobian_evals;
    newton_iterations += o.newton_iterations; error_test_failures += o.error_test_failures;
    newton_failures += o.newton_failures;
    return *this;
  }
};

// One CVODE solver (BDF, Newton, dense direct linear solver), reused for
// every instance and segment through CVodeReInit, as a user running many
// cycles would.
class Cvode {
 public:
  static constexpr int n = ReducedOde::n;

  Cvode() {
#if SUNDIALS_VERSION_MAJOR >= 7
    SUNContext_Create(SUN_COMM_NULL, &ctx_);
#else
    SUNContext_Create(nullptr, &ctx_);
#endif
    y_ = N_VNew_Serial(n, ctx_);
    abstol_ = N_VNew_Serial(n, ctx_);
    A_ = SUNDenseMatrix(n, n, ctx_);
    solver_ = SUNLinSol_Dense(y_, A_, ctx_);
    mem_ = CVodeCreate(CV_BDF, ctx_);
    N_VConst(0.0, y_);
    CVodeInit(mem_, &Cvode::rhs_callback, 0.0, y_);
    CVodeSetLinearSolver(mem_, solver_, A_);
    CVodeSetUserData(mem_, &ode_);
    // The default limit (500 steps per CVode call) would stop the tight
    // reference runs; each call here may cover a whole input segment.
    CVodeSetMaxNumSteps(mem_, 50000000);
  }
  ~Cvode() {
    CVodeFree(&mem_);
    SUNLinSolFree(solver_);
    SUNMatDestroy(A_);
    N_VDestroy(abstol_);
    N_VDestroy(y_);
    SUNContext_Free(&ctx_);
  }
  Cvode(const Cvode&) = delete;
  Cvode& operator=(const Cvode&) = delete;

  // Absolute tolerances scaled with rtol from one set of units: 1 rad,
  // 100 rad/s, 1e8 Pa, 1 V (rtol = 1e-12 gives 1e-12 rad, 1e-10 rad/s,
  // 1e-4 Pa, 1e-12 V).
  static double absolute_tolerance(int component, double rtol) {
    if (component < ReducedOde::kZdot) return rtol;
    if (component < ReducedOde::kP) return 100.0 * rtol;
    if (component < ReducedOde::kU) return 1e8 * rtol;
    return rtol;
  }

  // Integrate one instance over [0, duration], segment by segment. With
  // `samples`, the state is also observed every kSampleInterval (by CVODE's
  // interpolation, which leaves the step sequence unchanged). Returns false
  // if the instance fails.
  bool run(const Params& P, double rtol, double duration, Observation* final_state,
           std::vector<Observation>* samples = nullptr) {
    counters_ = CvodeCounters{};
    if (samples) samples->clear();
    double* y = N_VGetArrayPointer(y_);
    if (!ode_.start(P, y)) return false;
    double* atol = N_VGetArrayPointer(abstol_);
    for (int k = 0; k < n; ++k) atol[k] = absolute_tolerance(k, rtol);
    if (samples && !observe(samples)) return false;

    // Segment boundaries: the schedule's switch times inside (0, duration).
    std::vector<double> bounds{0.0};
    for (int i = 0; i < P.input.count; ++i)
      if (P.input.start[i] > 0.0 && P.input.start[i] < duration) bounds.push_back(P.input.start[i]);
    bounds.push_back(duration);
    std::sort(bounds.begin(), bounds.end());

    long next_sample = 1;  // index of the next sample time, next_sample · kSampleInterval
    for (size_t s = 0; s + 1 < bounds.size(); ++s) {
      const double ta = bounds[s], tb = bounds[s + 1];
      if (!(tb > ta)) continue;
      ode_.set_input(P.input(ta));  // constant on [ta, tb)
      CVodeReInit(mem_, ta, y_);    // restart at order 1: the input jumped
      CVodeSVtolerances(mem_, rtol, abstol_);
      CVodeSetStopTime(mem_, tb);
      double t = ta;
      bool ok = true;
      // Output times inside the segment; the segment end is always one
      // (snapped, so that rounding of k·h cannot stop short of tb).
      while (ok && t < tb) {
        double tout = tb;
        bool sample = false;
        if (samples) {
          const double ts = next_sample * kSampleInterval;
          if (ts < tb - 1e-9 * kSampleInterval) { tout = ts; sample = true; }
          else if (ts <= tb + 1e-9 * kSampleInterval) sample = true;  // the sample is at tb
        }
        ok = CVode(mem_, tout, y_, &t, CV_NORMAL) >= 0;
        if (ok && sample) {
          ok = observe(samples);
          ++next_sample;
        }
      }
      counters_ += segment_counters();  // CVodeReInit resets them
      if (!ok) return false;
    }
    Observation last;
    if (!observe_into(last)) return false;
    if (final_state) *final_state = last;
    return true;
  }

  const CvodeCounters& counters() const { return counters_; }
  int independent_coordinate() const { return ode_.independent_coordinate(); }

 private:
  static int rhs_callback(sunrealtype, N_Vector y, N_Vector ydot, void* user) {
    return static_cast<ReducedOde*>(user)->rhs(N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
  }
  bool observe_into(Observation& o) {
    const double* y = N_VGetArrayPointer(y_);
    double q[ReducedOde::nq];
    if (!ode_.coordinates(y, q)) return false;
    o.crank_angle = q[0];
    for (int k = 0; k < ReducedOde::np; ++k) o.pressure[k] = y[ReducedOde::kP + k];
    return true;
  }
  bool observe(std::vector<Observation>* samples) {
    Observation o;
    if (!observe_into(o)) return false;
    samples->push_back(o);
    return true;
  }
  CvodeCounters segment_counters() const {
    CvodeCounters c;
    long rhs = 0, rhs_jacobian = 0;
    CVodeGetNumSteps(mem_, &c.steps);
    CVodeGetNumRhsEvals(mem_, &rhs);
    CVodeGetNumLinRhsEvals(mem_, &rhs_jacobian);  // difference-quotient Jacobian columns
    c.rhs_evals = rhs + rhs_jacobian;
    CVodeGetNumJacEvals(mem_, &c.jacobian_evals);
    CVodeGetNumNonlinSolvIters(mem_, &c.newton_iterations);
    CVodeGetNumErrTestFails(mem_, &c.error_test_failures);
    CVodeGetNumNonlinSolvConvFails(mem_, &c.newton_failures);
    return c;
  }

  SUNContext ctx_ = nullptr;
  N_Vector y_ = nullptr, abstol_ = nullptr;
  SUNMatrix A_ = nullptr;
  SUNLinearSolver solver_ = nullptr;
  void* mem_ = nullptr;
  ReducedOde ode_;
  CvodeCounters counters_;
};

// ---------------------------------------------------------------------------
// Measurements

using Clock = std::chrono::steady_clock;

struct CvodeResult {
  double rtol = 0;
  Accuracy accuracy;
  CvodeCounters counters;   // of the nominal instance (the accuracy run)
  double wall_seconds = 0;  // fastest repeat over the timed cycles
  long cycles = 0, failed = 0;
  double work_cycles_per_second(double duration) const {
    return cycles * duration / hb::kWorkCycleSeconds / wall_seconds;
  }
};

CvodeResult measure_cvode(Cvode& cvode, double rtol, const Params& nominal, const std::vector<Observation>& ref,
                          const std::vector<Params>& timed, double duration, int repeats) {
  CvodeResult r;
  r.rtol = rtol;
  std::vector<Observation> samples;
  if (cvode.run(nominal, rtol, duration, nullptr, &samples)) r.accuracy = accuracy(ref, samples);
  r.counters = cvode.counters();
  r.cycles = static_cast<long>(timed.size());
  for (int rep = 0; rep < repeats; ++rep) {
    long failed = 0;
    Observation last;
    const auto t0 = Clock::now();
    for (const auto& P : timed) failed += !cvode.run(P, rtol, duration, &last);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (rep == 0 || wall < r.wall_seconds) r.wall_seconds = wall;
    r.failed = failed;
  }
  return r;
}

struct OursResult {
  double dt = 0;
  Accuracy accuracy;
  long steps_nominal = 0;
  double wall_seconds = 0;  // fastest repeat
  long instances = 0, failed = 0, steps = 0, newton_iterations = 0;
  double simulated_seconds = 0;
  int lanes = 1, threads = 1;
  double lane_utilization = 0;  // lanes still iterating over lanes × Newton iterations run
  double instance_steps_per_second() const { return steps / wall_seconds; }
  double work_cycles_per_second() const { return simulated_seconds / hb::kWorkCycleSeconds / wall_seconds; }
  double mean_newton_iterations() const { return steps > 0 ? static_cast<double>(newton_iterations) / steps : 0; }
};

// lanes: BatchSpec::lanes (0: automatic, 8 here); threads: 1 (one core) or 0 (all).
OursResult measure_ours(double dt, const Params& nominal, const std::vector<Observation>& ref,
                        const std::vector<Params>& timed, double duration, int repeats, int lanes = 0,
                        int threads = 1) {
  OursResult r;
  r.dt = dt;
  hs::IntegratorSettings settings;  // the defaults, but for dt and the duration
  settings.dt = dt;
  settings.duration = duration;

  // Accuracy on the nominal instance, observed on the same time grid.
  // Through run_batch_cpu like the timed runs, not run_instance: a call to
  // run_instance here would instantiate the integrator's step in this
  // translation unit, and the linker may then give run_batch_cpu this
  // file's copy of it (different inlining, measurably different speed)
  // instead of the library's.
  // The host takes parameter rows of the registered model (pack_row).
  const hs::ModelDescriptor& model = *hs::find_model("four-bar");
  hs::BatchSpec one;
  one.model = &model;
  one.friction = "brown-mcphee";
  one.formulation = "double-step";
  one.parameters = hs::pack_row(model.parameters, nominal);
  one.settings = settings;
  one.trajectory_stride = static_cast<int>(std::lround(kSampleInterval / dt));
  one.threads = 1;
  const hs::BatchResult traj = hs::run_batch_cpu(one);
  auto channel = [&](const std::string& name) {
    for (size_t c = 0; c < model.trajectory_channels.size(); ++c)
      if (model.trajectory_channels[c].name == name) return static_cast<long>(c);
    return -1L;
  };
  if (traj.status[0] == hs::Status::ok) {
    std::vector<Observation> samples(static_cast<size_t>(traj.samples_per_instance));
    for (size_t k = 0; k < samples.size(); ++k) {
      samples[k].crank_angle = traj.sample(0, k)[channel("q1")];
      for (int i = 0; i < ReducedOde::np; ++i) samples[k].pressure[i] = traj.sample(0, k)[channel("p" + std::to_string(i + 1))];
    }
    r.accuracy = accuracy(ref, samples);
  }
  r.steps_nominal = static_cast<long>(traj.summary(0, model.summary_column("steps")));

  hs::BatchSpec spec = one;
  spec.parameters.clear();
  for (const auto& p : timed) {
    const std::vector<double> row = hs::pack_row(model.parameters, p);
    spec.parameters.insert(spec.parameters.end(), row.begin(), row.end());
  }
  spec.trajectory_stride = 0;
  spec.threads = threads;  // 1: one core, like CVODE
  spec.lanes = lanes;
  for (int rep = 0; rep < repeats; ++rep) {
    const hs::BatchResult res = hs::run_batch_cpu(spec);
    if (rep > 0 && res.wall_seconds >= r.wall_seconds) continue;
    r.wall_seconds = res.wall_seconds;
    r.lanes = res.lanes_used;
    r.threads = res.threads_used;
    r.lane_utilization = res.lane_iterations > 0
                             ? static_cast<double>(res.active_lane_iterations) / static_cast<double>(res.lane_iterations)
                             : 0.0;
    r.instances = res.instance_count();
    r.failed = res.failed();
    r.steps = static_cast<long>(hb::column_sum(res, model, "steps"));
    r.newton_iterations = static_cast<long>(hb::column_sum(res, model, "newton_iterations"));
    r.simulated_seconds = r.steps * dt;
  }
  return r;
}

// Error-matched choice: the loosest setting (the list runs loosest first)
// whose two errors of the chosen kind are both no larger than `bound`.
template <class Result, class Pick>
const Result* loosest_within(const std::vector<Result>& list, const Error& bound, Pick pick) {
  for (const auto& r : list)
    if (pick(r.accuracy).within(bound)) return &r;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Output

void write_accuracy(hb::Json& j, const Accuracy& a) {
  j.field("crank_angle_error_rad", a.final_state.crank_angle)
      .field("pressure_error_rel_1MPa", a.final_state.pressure)
      .field("trajectory_max_crank_angle_error_rad", a.trajectory.crank_angle)
      .field("trajectory_max_pressure_error_rel_1MPa", a.trajectory.pressure);
}

void write_cvode(hb::Json& j, const char* key, const CvodeResult& r, const OursResult& ours, double duration) {
  j.begin_object(key).field("rtol", r.rtol);
  write_accuracy(j, r.accuracy);
  j.field("work_cycles_per_s", r.work_cycles_per_second(duration))
      .field("wall_s", r.wall_seconds)
      .field("cycles_timed", r.cycles)
      .field("failed_cycles", r.failed)
      .field("steps_per_cycle", r.counters.steps)
      .field("rhs_evals_per_cycle", r.counters.rhs_evals)
      .field("jacobian_evals_per_cycle", r.counters.jacobian_evals)
      .field("newton_iterations_per_cycle", r.counters.newton_iterations)
      .field("error_test_failures_per_cycle", r.counters.error_test_failures)
      .field("throughput_ratio_hydrosweep_dt_1ms_to_this", ours.work_cycles_per_second() / r.work_cycles_per_second(duration))
      .end_object();
}

void write_ours(hb::Json& j, const char* key, const OursResult& r) {
  j.begin_object(key).field("dt_s", r.dt);
  write_accuracy(j, r.accuracy);
  j.field("work_cycles_per_s", r.work_cycles_per_second())
      .field("instance_steps_per_s", r.instance_steps_per_second())
      .field("mean_newton_iterations_per_step", r.mean_newton_iterations())
      .field("steps_per_cycle", r.steps_nominal)
      .field("wall_s", r.wall_seconds)
      .field("instances_timed", r.instances)
      .field("failed_instances", r.failed)
      .field("lanes", r.lanes)
      .field("lane_utilization", r.lane_utilization)
      .field("threads", r.threads)
      .end_object();
}

void print_row(const char* name, const std::string& setting, const Accuracy& a, long steps, const std::string& rhs,
               double cycles_per_second, const char* mark) {
  std::printf("%-22s %-13s %10.2e %10.2e %10.2e %10.2e %8ld %8s %10.1f%s\n", name, setting.c_str(),
              a.final_state.crank_angle, a.final_state.pressure, a.trajectory.crank_angle, a.trajectory.pressure,
              steps, rhs.c_str(), cycles_per_second, mark);
}

std::string format(const char* fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}


// ---------------------------------------------------------------------------
// The end-to-end loop (--loop)

// The design's rows as four-bar parameters: the file read as a study's
// `method = "rows"` design is (host/design/design_rows.hpp), each column a
// parameter of the registered model's table in its range; the other fields
// keep the nominal values. Exits 2 naming the file, line and column.
std::vector<Params> read_design(const std::string& path, const Params& nominal) {
  const hs::ModelDescriptor& model = *hs::find_model("four-bar");
  hs::DesignRows rows;
  try {
    rows = hs::read_design_rows(path, {}, "", 1L << 30);
  } catch (const hs::DesignRowsError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(2);
  }
  std::vector<const hs::ParameterInfo*> column;
  for (const std::string& name : rows.columns) {
    column.push_back(model.find_parameter(name));
    if (!column.back()) {
      std::fprintf(stderr, "%s: column %s is not a four-bar parameter (hydrosweep parameters --model four-bar)\n",
                   path.c_str(), name.c_str());
      std::exit(2);
    }
  }
  const std::vector<double> base = hs::pack_row(model.parameters, nominal);
  std::vector<Params> design;
  for (long i = 0; i < rows.row_count(); ++i) {
    std::vector<double> row = base;
    for (size_t k = 0; k < column.size(); ++k) {
      const double v = rows.values(static_cast<size_t>(i), k);
      if (!column[k]->admits(v)) {
        std::fprintf(stderr, "%s, column %s: %.17g is outside %s\n", rows.where(i).c_str(), column[k]->name.c_str(), v,
                     column[k]->range_text().c_str());
        std::exit(2);
      }
      row[static_cast<size_t>(column[k]->index)] = v;
    }
    design.push_back(hs::unpack_row(model.parameters, row.data(), nominal));
  }
  return design;
}

int run_loop(const hb::Args& args) {
  const std::string design_path = args.get("--loop", "");
  const std::string results_path = args.get("--results", "");
  const double rtol = args.number("--rtol", 0.0);
  const int threads = static_cast<int>(args.number("--threads", 1));
  if (results_path.empty() || !(rtol > 0.0 && rtol < 1.0) || threads < 1 || threads > 1024) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const double duration = hs::IntegratorSettings{}.duration;
  const std::vector<Params> design = read_design(design_path, hs::seed002_four_bar());
  struct Row {
    bool ok = false;
    Observation last{}, peak{};
  };
  std::vector<Row> rows(design.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    Cvode cvode;  // one solver per thread, reused for its rows
    std::vector<Observation> samples;
    for (size_t i; (i = next++) < design.size();) {
      Row& r = rows[i];
      r.ok = cvode.run(design[i], rtol, duration, &r.last, &samples);
      if (!r.ok) continue;
      r.peak = samples.front();
      for (const Observation& o : samples)
        for (int k = 0; k < ReducedOde::np; ++k) r.peak.pressure[k] = std::max(r.peak.pressure[k], o.pressure[k]);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();

  std::FILE* out = std::fopen(results_path.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "%s: cannot be written\n", results_path.c_str());
    return 1;
  }
  std::fprintf(out, "instance,status,q1,p1,p2,p3,p1_max,p2_max,p3_max\n");
  long failed = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    failed += !r.ok;
    std::fprintf(out, "%zu,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", i, r.ok ? "ok" : "failed",
                 r.last.crank_angle, r.last.pressure[0], r.last.pressure[1], r.last.pressure[2], r.peak.pressure[0],
                 r.peak.pressure[1], r.peak.pressure[2]);
  }
  const bool written = std::fclose(out) == 0;
  if (failed > 0) std::fprintf(stderr, "%ld of %zu rows failed\n", failed, rows.size());
  return written ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  if (!args.get("--loop", "").empty()) {
    args.check_known({"--loop", "--rtol", "--results", "--threads"}, {}, kUsage);
    return run_loop(args);
  }
  args.check_known({"--instances", "--cycles", "--repeats", "--out"}, {}, kUsage);
  const long n_ours = static_cast<long>(args.number("--instances", 200));
  const long n_cvode = static_cast<long>(args.number("--cycles", 100));
  const int repeats = static_cast<int>(args.number("--repeats", 3));
  const std::string out_path =
      args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/cvode-peer-" + hb::machine_tag() + ".json");
  if (n_ours < 1 || n_cvode < 1 || repeats < 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }

  const hs::IntegratorSettings defaults;  // dt = 1 ms, 10 s
  const double duration = defaults.duration;
  const Params nominal = hs::seed002_four_bar();
  const std::vector<Params> instances = hb::perturbed_four_bars(std::max(n_ours, n_cvode));
  const std::vector<Params> ours_set(instances.begin(), instances.begin() + n_ours);
  const std::vector<Params> cvode_set(instances.begin(), instances.begin() + n_cvode);

  std::printf("bench_cvode_peer: seed 002 four-bar, brown-mcphee, %.3g s work cycle, %s, SUNDIALS %s\n", duration,
              hb::cpu_model().c_str(), SUNDIALS_VERSION);

  Cvode cvode;
  // Reference, and its self-consistency (rtol 1e-11 against 1e-12).
  const double ref_rtol = 1e-12;
  std::vector<Observation> ref, check;
  if (!cvode.run(nominal, ref_rtol, duration, nullptr, &ref)) {
    std::fprintf(stderr, "the CVODE reference run failed\n");
    return 1;
  }
  const long ref_steps = cvode.counters().steps;
  const Accuracy ref_uncertainty =
      cvode.run(nominal, 1e-11, duration, nullptr, &check) ? accuracy(ref, check) : Accuracy{};
  std::printf("reference: CVODE rtol %.0e, %ld steps, z_i = q[%d]; at t = %g s: q[0] = %.12f rad, "
              "p = %.6f %.6f %.6f MPa\n",
              ref_rtol, ref_steps, cvode.independent_coordinate(), duration, ref.back().crank_angle,
              ref.back().pressure[0] / 1e6, ref.back().pressure[1] / 1e6, ref.back().pressure[2] / 1e6);
  std::printf("reference self-check, rtol 1e-11 vs 1e-12: final %.1e rad, %.1e MPa; trajectory %.1e rad, %.1e MPa\n",
              ref_uncertainty.final_state.crank_angle, ref_uncertainty.final_state.pressure,
              ref_uncertainty.trajectory.crank_angle, ref_uncertainty.trajectory.pressure);

  // Hydrosweep: the default dt = 1 ms (the headline) and, for the
  // work-precision picture, other steps dividing the schedule's switch times.
  std::vector<OursResult> ours_sweep;
  for (double dt : {10e-3, 5e-3, 2e-3, 1e-3, 0.5e-3})
    ours_sweep.push_back(measure_ours(dt, nominal, ref, ours_set, duration, repeats));
  const OursResult* ours = nullptr;
  for (const auto& r : ours_sweep)
    if (r.dt == defaults.dt) ours = &r;
  // The same batch one instance at a time and at 4 lanes (one core), and in
  // lanes on all cores.
  const OursResult one_lane = measure_ours(defaults.dt, nominal, ref, ours_set, duration, repeats, 1);
  // 4 lanes where this build has them (an AVX-512 build compiles 8 only: docs/models/lanes.md §6).
  std::optional<OursResult> four_lanes;
  if (hs::lanes_built(4)) four_lanes = measure_ours(defaults.dt, nominal, ref, ours_set, duration, repeats, 4);
  const OursResult all_cores = measure_ours(defaults.dt, nominal, ref, ours_set, duration, repeats, 0, 0);

  // CVODE: half-decade sweep of rtol, 1e-4 … 1e-9, loosest first.
  std::vector<CvodeResult> cvode_sweep;
  for (int e = 8; e <= 18; ++e)
    cvode_sweep.push_back(measure_cvode(cvode, std::pow(10.0, -0.5 * e), nominal, ref, cvode_set, duration, repeats));

  auto final_error = [](const Accuracy& a) { return a.final_state; };
  auto trajectory_error = [](const Accuracy& a) { return a.trajectory; };
  const CvodeResult* matched = loosest_within(cvode_sweep, ours->accuracy.final_state, final_error);
  const CvodeResult* matched_trajectory = loosest_within(cvode_sweep, ours->accuracy.trajectory, trajectory_error);
  const CvodeResult* at_1e6 = nullptr;
  for (const auto& r : cvode_sweep)
    if (std::fabs(std::log10(r.rtol) + 6.0) < 1e-9) at_1e6 = &r;
  // The reverse question: the largest dt of ours as accurate as CVODE at rtol 1e-6.
  const OursResult* ours_matching_1e6 =
      at_1e6 ? loosest_within(ours_sweep, at_1e6->accuracy.final_state, final_error) : nullptr;
  const OursResult* ours_matching_1e6_trajectory =
      at_1e6 ? loosest_within(ours_sweep, at_1e6->accuracy.trajectory, trajectory_error) : nullptr;

  std::printf("\nerrors against the reference: final state at t = %g s, and max over the trajectory (every %g ms)\n",
              duration, 1e3 * kSampleInterval);
  std::printf("%-22s %-13s %10s %10s %10s %10s %8s %8s %10s\n", "integrator", "setting", "final q0", "final p",
              "traj q0", "traj p", "steps", "RHS", "cycles/s");
  std::printf("%-22s %-13s %10s %10s %10s %10s %8s %8s %10s\n", "", "", "[rad]", "[MPa]", "[rad]", "[MPa]",
              "/cycle", "/cycle", "(1 core)");
  for (const auto& r : ours_sweep)
    print_row("hydrosweep trapezoid", format("dt %g ms", 1e3 * r.dt), r.accuracy, r.steps_nominal, "-",
              r.work_cycles_per_second(), &r == ours ? "  <- default" : "");
  for (const auto& r : cvode_sweep)
    print_row("CVODE BDF, dense", format("rtol %.1e", r.rtol), r.accuracy, r.counters.steps,
              std::to_string(r.counters.rhs_evals), r.work_cycles_per_second(duration),
              &r == matched ? "  <- matched (final)" : &r == matched_trajectory ? "  <- matched (trajectory)" : "");

  std::printf("\nhydrosweep, dt 1 ms, 1 thread, %d lanes (utilization %.3f), %ld instances: %.4g instance-steps/s, "
              "%.1f work cycles/s, %.3f Newton iterations/step\n",
              ours->lanes, ours->lane_utilization, ours->instances, ours->instance_steps_per_second(),
              ours->work_cycles_per_second(), ours->mean_newton_iterations());
  std::printf("same batch, 1 thread, one instance at a time: %.1f work cycles/s; %d lanes / one = %.2f\n",
              one_lane.work_cycles_per_second(), ours->lanes,
              ours->work_cycles_per_second() / one_lane.work_cycles_per_second());
  if (four_lanes)
    std::printf("same batch, 1 thread, %d lanes (utilization %.3f): %.1f work cycles/s; / one = %.2f\n",
                four_lanes->lanes, four_lanes->lane_utilization, four_lanes->work_cycles_per_second(),
                four_lanes->work_cycles_per_second() / one_lane.work_cycles_per_second());
  else
    std::printf("same batch, 4 lanes: not built here (lanes %s)\n", hs::built_lane_widths().c_str());
  std::printf("same batch, all cores (%d threads), %d lanes: %.1f work cycles/s; all cores / one core = %.2f\n",
              all_cores.threads, all_cores.lanes, all_cores.work_cycles_per_second(),
              all_cores.work_cycles_per_second() / ours->work_cycles_per_second());
  if (matched)
    std::printf("CVODE error-matched on the final state (rtol %.1e): %.1f work cycles/s; hydrosweep/CVODE = %.2f\n",
                matched->rtol, matched->work_cycles_per_second(duration),
                ours->work_cycles_per_second() / matched->work_cycles_per_second(duration));
  else
    std::printf("no swept CVODE tolerance reaches hydrosweep's final-state error\n");
  if (matched_trajectory)
    std::printf("CVODE error-matched on the trajectory (rtol %.1e): %.1f work cycles/s; hydrosweep/CVODE = %.2f\n",
                matched_trajectory->rtol, matched_trajectory->work_cycles_per_second(duration),
                ours->work_cycles_per_second() / matched_trajectory->work_cycles_per_second(duration));
  if (at_1e6)
    std::printf("CVODE at rtol 1e-6: %.1f work cycles/s; hydrosweep (dt 1 ms)/CVODE = %.2f\n",
                at_1e6->work_cycles_per_second(duration),
                ours->work_cycles_per_second() / at_1e6->work_cycles_per_second(duration));
  for (const auto& [match, kind] : {std::make_pair(ours_matching_1e6, "final state"),
                                     std::make_pair(ours_matching_1e6_trajectory, "trajectory")})
    if (match)
      std::printf("largest swept dt as accurate as CVODE rtol 1e-6 (%s): %g ms, %.1f work cycles/s; "
                  "hydrosweep/CVODE = %.2f\n",
                  kind, 1e3 * match->dt, match->work_cycles_per_second(),
                  match->work_cycles_per_second() / at_1e6->work_cycles_per_second(duration));
  for (const auto& r : ours_sweep)
    if (r.failed > 0) std::printf("warning: %ld hydrosweep instances failed at dt %g ms\n", r.failed, 1e3 * r.dt);
  for (const auto& r : cvode_sweep)
    if (r.failed > 0) std::printf("warning: %ld CVODE cycles failed at rtol %.1e\n", r.failed, r.rtol);

  hb::Json j;
  j.begin_object().field("benchmark", "cvode_peer");
  hb::write_machine(j);
  j.begin_object("workload")
      .field("model", "four-bar (seed 002)")
      .field("friction", "brown-mcphee")
      .field("duration_s", duration)
      .field("error_measure",
             "|dq[0]| [rad] and max_k |dp_k| / 1 MPa against the reference: at t = duration (headline) and "
             "max over samples every 10 ms (trajectory)")
      .field("timing", "one core; fastest of `repeats` runs over the timed set")
      .field("repeats", repeats)
      .field("timed_instances",
             "friction.coulomb_force scaled by U(0.9, 1.1), splitmix64 seed 2024 (same set as bench_cpu_throughput)")
      .field("sundials_version", SUNDIALS_VERSION)
      .field("cvode_setup",
             "BDF, Newton, dense SUNMatrix + dense SUNLinearSolver, difference-quotient Jacobian; "
             "y = [z_i, zdot_i, p1, p2, p3, U]; atol = rtol * [1 rad, 100 rad/s, 1e8 Pa x3, 1 V]; "
             "CVodeReInit + tstop at each input switch time; RHS = kernel solve_dependent + evaluate")
      .field("cvode_independent_coordinate", cvode.independent_coordinate())
      .end_object();
  j.begin_object("reference")
      .field("integrator", "CVODE")
      .field("rtol", ref_rtol)
      .field("steps", ref_steps)
      .field("crank_angle_rad", ref.back().crank_angle)
      .field("p1_Pa", ref.back().pressure[0])
      .field("p2_Pa", ref.back().pressure[1])
      .field("p3_Pa", ref.back().pressure[2]);
  j.begin_object("self_check_rtol_1e-11");
  write_accuracy(j, ref_uncertainty);
  j.end_object().end_object();
  write_ours(j, "hydrosweep", *ours);
  write_ours(j, "hydrosweep_one_lane", one_lane);
  if (four_lanes) write_ours(j, "hydrosweep_four_lanes", *four_lanes);
  write_ours(j, "hydrosweep_all_cores", all_cores);
  j.field("lanes_speedup_over_one_lane", ours->work_cycles_per_second() / one_lane.work_cycles_per_second())
      .field("all_cores_speedup_over_one_core", all_cores.work_cycles_per_second() / ours->work_cycles_per_second());
  j.begin_array("hydrosweep_dt_sweep");
  for (const auto& r : ours_sweep) write_ours(j, nullptr, r);
  j.end_array();
  j.begin_array("cvode_sweep");
  for (const auto& r : cvode_sweep) write_cvode(j, nullptr, r, *ours, duration);
  j.end_array();
  if (matched) write_cvode(j, "cvode_error_matched", *matched, *ours, duration);
  if (matched_trajectory) write_cvode(j, "cvode_error_matched_trajectory", *matched_trajectory, *ours, duration);
  if (at_1e6) write_cvode(j, "cvode_rtol_1e-6", *at_1e6, *ours, duration);
  if (ours_matching_1e6) write_ours(j, "hydrosweep_matching_cvode_rtol_1e-6", *ours_matching_1e6);
  if (ours_matching_1e6_trajectory)
    write_ours(j, "hydrosweep_matching_cvode_rtol_1e-6_trajectory", *ours_matching_1e6_trajectory);
  j.end_object();
  if (!hb::save_result(out_path, j)) return 1;
  return 0;
}
