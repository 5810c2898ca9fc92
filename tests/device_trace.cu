// Diagnostic, not a test: where does one instance on the GPU first leave the
// same instance on the CPU? Built with the CUDA backend (target device_trace),
// run by scripts/device_check.sh's "trace" step on a device.
//
// The combinations the device measured to disagree (host/run/device_verification.cpp)
// are traced stage by stage with the same kernel functions on both sides:
//   runs       the initial state, then after each step the state, the step's
//              Newton count and the first Newton iterate of the next step
//              (its residual f(x0) and increment dx0): the first step and the
//              first quantity that differ name the stage;
//   stability  the closed-loop equilibrium, A = ∂f/∂z, the zero-order hold
//              (Φ, Γ) and the point's eigenvalues.
// Each quantity is printed as "host device |difference|" where they differ
// by more than 1e-9 of their scale.
//
// Built with -DHS_LOG_DECISIONS (target device_trace_decisions), each
// combination also runs with the kernels' branch decisions logged on both
// sides (kernels/core/decision_log.hpp) and prints the first decision where
// the two runs part, the first logged value that differs and the closest calls
// before it (tests/decision_log_compare.hpp; docs/gpu.md §7).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "host/cuda_support.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "kernels/integrators/formulations.hpp"
#include "kernels/linearize/sampled_loop.hpp"
#include "kernels/catalog/catalog.hpp"
#ifdef HS_LOG_DECISIONS
#include "tests/decision_log_compare.hpp"
#include "tests/decision_trace.hpp"
#endif

namespace hs {
namespace {

constexpr long kSteps = 1500;  // the default schedule opens the valve at t = 1 s

// One step's record: a flat list of doubles with a name per entry.
constexpr int kMaxRecord = 1024;
struct Record {
  int n = 0;
  double v[kMaxRecord];
  HS_HD void put(double x) {
    if (n < kMaxRecord) v[n++] = x;
  }
};

template <class I>
struct Names {
  static std::vector<std::string> of_step() {
    std::vector<std::string> s;
    s.push_back("status");
    s.push_back("t");
    for (int k = 0; k < I::nq; ++k) s.push_back("q[" + std::to_string(k) + "]");
    for (int k = 0; k < I::nq; ++k) s.push_back("qd[" + std::to_string(k) + "]");
    for (int k = 0; k < I::nq; ++k) s.push_back("qdd[" + std::to_string(k) + "]");
    for (int k = 0; k < I::np; ++k) s.push_back("p[" + std::to_string(k) + "]");
    for (int k = 0; k < I::np; ++k) s.push_back("pd[" + std::to_string(k) + "]");
    for (int a = 0; a < I::na; ++a) s.push_back("U[" + std::to_string(a) + "]");
    for (int j = 0; j < I::ni; ++j) s.push_back("indep[" + std::to_string(j) + "]");
    s.push_back("newton_iterations");
    for (int a = 0; a < I::na; ++a) s.push_back("next U[" + std::to_string(a) + "]");
    for (int k = 0; k < I::nx; ++k) s.push_back("next x0[" + std::to_string(k) + "]");
    for (int k = 0; k < I::nx; ++k) s.push_back("next f(x0)[" + std::to_string(k) + "]");
    for (int k = 0; k < I::nx; ++k) s.push_back("next dx0[" + std::to_string(k) + "]");
    for (int r = 0; r < I::nx; ++r)
      for (int c = 0; c < I::nx; ++c) s.push_back("next J(" + std::to_string(r) + "," + std::to_string(c) + ")");
    return s;
  }
};

// The first Newton iterate of the step from s, built as DoubleStepTrapezoidal::step
// builds it (kernels/integrators/double_step_trapezoidal.hpp): spools, predictor,
// tangent, increment.
template <class I>
HS_HD void first_iterate(const typename I::Params& P, const typename I::Constants& K, const IntegratorSettings& S,
                         typename I::State s, Record& r) {
  const double dt = S.dt;
  typename I::StepContext ctx;
  ctx.dt = dt;
  ctx.part = s.part;
  I::advance_spools(P, K, s, dt, ctx.U);
  for (int k = 0; k < I::nq; ++k) {
    ctx.q_guess[k] = s.q[k] + dt * s.qd[k] + 0.5 * dt * dt * s.qdd[k];
    ctx.qd_hat[k] = -((2.0 / dt) * s.q[k] + s.qd[k]);
    ctx.qdd_hat[k] = -((4.0 / (dt * dt)) * s.q[k] + (4.0 / dt) * s.qd[k] + s.qdd[k]);
  }
  double x[I::nx], f[I::nx], dx[I::nx];
  for (int j = 0; j < I::ni; ++j) x[j] = ctx.q_guess[s.part.indep[j]];
  I::predict_actuator_states(s, dt, I::ni, x, ctx.pd_hat, ctx.wd_hat.data());
  Mat<double, I::nx, I::nx> J;
  const bool ok = I::tangent(P, K, S, ctx, x, f, J);
  for (int k = 0; k < I::nx; ++k) f[k] = -f[k];
  const bool solved = ok && solve_linear(J, f, dx);
  for (int a = 0; a < I::na; ++a) r.put(ctx.U[a]);
  for (int k = 0; k < I::nx; ++k) r.put(x[k]);
  for (int k = 0; k < I::nx; ++k) r.put(ok ? -f[k] : NAN);
  for (int k = 0; k < I::nx; ++k) r.put(solved ? dx[k] : NAN);
  for (int i = 0; i < I::nx; ++i)
    for (int c = 0; c < I::nx; ++c) r.put(ok ? J(i, c) : NAN);
}

template <class I>
HS_HD void record_state(const typename I::State& s, Status status, int iterations, Record& r) {
  r.put(static_cast<double>(static_cast<int>(status)));
  r.put(s.t);
  for (int k = 0; k < I::nq; ++k) r.put(s.q[k]);
  for (int k = 0; k < I::nq; ++k) r.put(s.qd[k]);
  for (int k = 0; k < I::nq; ++k) r.put(s.qdd[k]);
  for (int k = 0; k < I::np; ++k) r.put(s.p[k]);
  for (int k = 0; k < I::np; ++k) r.put(s.pd[k]);
  for (int a = 0; a < I::na; ++a) r.put(s.U[a]);
  for (int j = 0; j < I::ni; ++j) r.put(s.part.indep[j]);
  r.put(iterations);
}

// What initialize computes, stage by stage (double_step_trapezoidal.hpp):
// the parameters as the executor sees them (raw doubles), the assembled
// coordinates, the residual at rest (gravity), each actuator's length and
// ∂s/∂q, and a path-jet probe (the nested duals the 3D mechanism uses).
template <class I>
HS_HD void init_probe(const typename I::Params& P, const IntegratorSettings& S, Record& r) {
  using Mech = typename I::Mech;
  constexpr int nq = I::nq, na = I::na;
  const double* raw = reinterpret_cast<const double*>(&P);
  const int words = static_cast<int>(sizeof(P) / sizeof(double));
  for (int k = 0; k < words && k < 400; ++k) r.put(raw[k]);
  typename I::State s;
  typename I::Constants K;
  r.put(static_cast<int>(I::initialize(P, S, s, K)));
  for (int k = 0; k < nq; ++k) r.put(s.q[k]);
  double zero[nq] = {};
  const auto pose = Mech::pose(P.mechanism, s.q);
  const auto motion = Mech::motion(pose, zero);
  const auto acc = Mech::acceleration(pose, motion, zero);
  double res[nq];
  Mech::dynamics_residual(P.mechanism, pose, motion, acc, res);
  for (int k = 0; k < nq; ++k) r.put(res[k]);
  for (int a = 0; a < na; ++a) {
    const auto act = I::Actuators::actuator(P.mechanism, pose, motion, a);
    double ds[nq];
    I::Actuators::actuator_jacobian(P.mechanism, pose, act, ds, a);
    r.put(act.length);
    for (int k = 0; k < nq; ++k) r.put(ds[k]);
  }
  for (int a = 0; a < I::np; ++a) r.put(s.p[a]);
  // initialize's static force, step by step (na == 1).
  for (int j = 0; j < I::ni; ++j) r.put(s.part.indep[j]);
  {
    double Sdep[I::nc][I::ni], qv[nq], resid = -1.0;
    for (int k = 0; k < nq; ++k) qv[k] = s.q[k];
    const bool solved = I::solve_dependent(P, s.part, S.constraint_tolerance, S.max_position_iterations, qv, Sdep, &resid);
    r.put(solved);
    r.put(resid);
    for (int k = 0; k < I::nc; ++k) r.put(Sdep[k][0]);
    const auto act = I::Actuators::actuator(P.mechanism, pose, motion, 0);
    double ds[nq];
    I::Actuators::actuator_jacobian(P.mechanism, pose, act, ds, 0);
    double reduced_r = res[s.part.indep[0]], reduced_s = ds[s.part.indep[0]];
    for (int k = 0; k < I::nc; ++k) {
      reduced_r += Sdep[k][0] * res[s.part.dep[k]];
      reduced_s += Sdep[k][0] * ds[s.part.dep[k]];
    }
    r.put(reduced_r);
    r.put(reduced_s);
    r.put(reduced_r / reduced_s);
    typename I::State s2;
    typename I::Constants K2;
    s2.p[0] = -1.0;
    const Status st2 = I::initialize(P, S, s2, K2);
    r.put(static_cast<int>(st2));
    for (int k = 0; k < I::np; ++k) r.put(s2.p[k]);
    double p_static[I::np > 0 ? I::np : 1];
    double w_static[I::nw > 0 ? I::nw : 1];
    I::Actuator::static_state(P.actuator[0], K2.actuator[0], reduced_r / reduced_s, p_static, w_static);
    for (int k = 0; k < I::npa; ++k) r.put(p_static[k]);
  }
  PathJet<double> x[2];
  const double x0[2] = {0.7, -1.3}, xd[2] = {0.3, 2.0}, xdd[2] = {-0.5, 0.25};
  seed_path<double>(x0, xd, xdd, 2, x);
  const PathJet<double> y = math::sin(x[0]) * math::cos(x[1]) + x[0] * x[1] * x[1];
  r.put(y.a.a);
  r.put(y.a.v[0]);
  r.put(y.v[0].a);
  r.put(y.v[0].v[0]);
}

template <class I>
__global__ void init_probe_kernel(const typename I::Params* P, IntegratorSettings S, Record* r) {
  init_probe<I>(*P, S, *r);
}

// records[0]: the initial state; records[n]: after step n.
template <class I>
HS_HD void trace_run(const typename I::Params& P, const IntegratorSettings& S, Record* records) {
  typename I::State st;
  typename I::Constants K;
  Status status = I::initialize(P, S, st, K);
  record_state<I>(st, status, 0, records[0]);
  first_iterate<I>(P, K, S, st, records[0]);
  for (long n = 1; n <= kSteps; ++n) {
    typename I::StepReport rep;
    if (status == Status::ok) status = I::step(P, K, S, st, rep);
    record_state<I>(st, status, rep.newton_iterations, records[n]);
    first_iterate<I>(P, K, S, st, records[n]);
  }
}

template <class I>
__global__ void trace_run_kernel(const typename I::Params* P, IntegratorSettings S, Record* records) {
  trace_run<I>(*P, S, records);
}

#ifdef HS_LOG_DECISIONS
// ~20 decisions per step of the planar models: 1500 steps take ~3e4 entries.
constexpr long kDecisionCapacity = 1L << 20;

template <class I>
__global__ void decision_run_kernel(const typename I::Params* P, IntegratorSettings S, long steps, DecisionLog* log) {
  typename I::State st;
  run_with_decision_log<I>(*P, S, steps, log, st);
}

// The device's log of a launch that wrote into `log` (its entries in `entries`).
decision_compare::Side read_back(const DeviceBuffer<DecisionLog>& log, const DeviceBuffer<DecisionEntry>& entries) {
  DecisionLog l;
  HS_CUDA_CHECK(cudaMemcpy(&l, log.ptr, sizeof l, cudaMemcpyDeviceToHost));
  decision_compare::Side side;
  side.count = l.count;
  side.entries.resize(static_cast<size_t>(decision_compare::stored_entries(l)));
  if (!side.entries.empty())
    HS_CUDA_CHECK(cudaMemcpy(side.entries.data(), entries.ptr, sizeof(DecisionEntry) * side.entries.size(),
                             cudaMemcpyDeviceToHost));
  return side;
}

// A device log of kDecisionCapacity entries, installed by the kernel it is passed to.
struct DeviceDecisionLog {
  DeviceBuffer<DecisionEntry> entries{static_cast<size_t>(kDecisionCapacity)};
  DeviceBuffer<DecisionLog> log{1};
  DeviceDecisionLog() {
    DecisionLog l;
    l.entries = entries.ptr;
    l.capacity = kDecisionCapacity;
    HS_CUDA_CHECK(cudaMemcpy(log.ptr, &l, sizeof l, cudaMemcpyHostToDevice));
  }
  decision_compare::Side read() const { return read_back(log, entries); }
};

// The whole trace's run (kSteps steps) with its decisions logged on both sides.
template <class I>
void compare_run_decisions(const typename I::Params& P, const IntegratorSettings& S,
                           const DeviceBuffer<typename I::Params>& dP, const std::string& what) {
  decision_compare::HostDecisionLog hl(kDecisionCapacity);
  typename I::State st;
  const DecisionRunReport hr = run_with_decision_log<I>(P, S, kSteps, &hl.log, st);
  const decision_compare::Side host = hl.side();
  DeviceDecisionLog dl;
  decision_run_kernel<I><<<1, 1>>>(dP.ptr, S, kSteps, dl.log.ptr);
  HS_CUDA_CHECK(cudaGetLastError());
  HS_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("%s (host: status %d after %ld steps, %ld Newton iterations)\n",
              decision_compare::describe(host, dl.read(), what).c_str(), static_cast<int>(hr.status), hr.steps_taken,
              hr.newton_iterations);
}
#endif

bool differs(double a, double b, double scale) {
  if (std::isnan(a) && std::isnan(b)) return false;
  return !(std::fabs(a - b) <= 1e-9 * scale);
}

// Prints the first record where host and device differ, and which entries.
void compare(const std::vector<Record>& host, const std::vector<Record>& device, const std::vector<std::string>& names,
             const char* what) {
  const int n = host[0].n;
  std::vector<double> scale(n, 1e-300);
  for (const Record& r : host)
    for (int k = 0; k < n; ++k) scale[k] = std::fmax(scale[k], std::fabs(r.v[k]));
  for (size_t step = 0; step < host.size(); ++step) {
    int shown = 0;
    for (int k = 0; k < n; ++k) {
      if (!differs(host[step].v[k], device[step].v[k], scale[k])) continue;
      if (shown == 0) std::printf("%s: first difference at step %zu (t = %.6f)\n", what, step, host[step].v[1]);
      if (shown++ < 40)
        std::printf("  %-22s host % .15e  device % .15e  |d|/scale %.2e\n",
                    k < static_cast<int>(names.size()) ? names[k].c_str() : "?", host[step].v[k], device[step].v[k],
                    std::fabs(host[step].v[k] - device[step].v[k]) / scale[k]);
    }
    if (shown > 0) break;
  }
  // The worst entry over the whole run, and the last record.
  double worst = 0.0;
  int worst_k = 0;
  size_t worst_step = 0;
  for (size_t step = 0; step < host.size(); ++step)
    for (int k = 0; k < n; ++k) {
      if (std::isnan(host[step].v[k]) && std::isnan(device[step].v[k])) continue;
      const double d = std::fabs(host[step].v[k] - device[step].v[k]) / scale[k];
      if (!(d <= worst)) { worst = d; worst_k = k; worst_step = step; }
    }
  std::printf("%s: worst |host - device| / scale %.3e (%s at step %zu); last record: q0 host % .12e device % .12e\n", what,
              worst, worst_k < static_cast<int>(names.size()) ? names[worst_k].c_str() : "?", worst_step,
              host.back().v[2], device.back().v[2]);
}

// The model's descriptor from its physics (kernels/models/*_descriptor.hpp),
// without the host registry: this program builds from headers alone.
template <class Physics>
const ModelDescriptor* find_in(const std::string& model) {
  static const std::vector<ModelDescriptor> all = Physics::describe();
  for (const auto& d : all)
    if (d.name == model) return &d;
  return nullptr;
}

template <class Physics, class Friction>
void trace_model(const std::string& model) {
  using I = typename DoubleStepFormulation::template Integrator<Physics, Friction>;
  const ModelDescriptor* m = find_in<Physics>(model);
  if (!m) {
    std::printf("%s: no such model\n", model.c_str());
    return;
  }
  const typename I::Params P = default_params<typename I::Params>(*m, Friction::name);
  IntegratorSettings S;
  std::vector<Record> host(kSteps + 1), device(kSteps + 1);
  trace_run<I>(P, S, host.data());
  DeviceBuffer<typename I::Params> dP(1);
  DeviceBuffer<Record> dR(kSteps + 1);
  HS_CUDA_CHECK(cudaMemcpy(dP.ptr, &P, sizeof(P), cudaMemcpyHostToDevice));
  HS_CUDA_CHECK(cudaMemset(dR.ptr, 0, sizeof(Record) * (kSteps + 1)));
  trace_run_kernel<I><<<1, 1>>>(dP.ptr, S, dR.ptr);
  HS_CUDA_CHECK(cudaGetLastError());
  HS_CUDA_CHECK(cudaDeviceSynchronize());
  HS_CUDA_CHECK(cudaMemcpy(device.data(), dR.ptr, sizeof(Record) * (kSteps + 1), cudaMemcpyDeviceToHost));
  const std::string what = model + " / " + Friction::name + " / double-step";
  compare(host, device, Names<I>::of_step(), what.c_str());
#ifdef HS_LOG_DECISIONS
  compare_run_decisions<I>(P, S, dP, what);
#endif
  {
    Record h, d;
    init_probe<I>(P, S, h);
    HS_CUDA_CHECK(cudaMemcpy(dR.ptr, &d, sizeof(Record), cudaMemcpyHostToDevice));
    init_probe_kernel<I><<<1, 1>>>(dP.ptr, S, dR.ptr);
    HS_CUDA_CHECK(cudaGetLastError());
    HS_CUDA_CHECK(cudaDeviceSynchronize());
    HS_CUDA_CHECK(cudaMemcpy(&d, dR.ptr, sizeof(Record), cudaMemcpyDeviceToHost));
    const int words = static_cast<int>(sizeof(P) / sizeof(double));
    int shown = 0;
    for (int k = 0; k < h.n; ++k) {
      const bool differ = !(h.v[k] == d.v[k]) && !(std::isnan(h.v[k]) && std::isnan(d.v[k]));
      if (differ && shown++ < 40)
        std::printf("  init probe [%d]%s: host % .15e device % .15e\n", k, k < words ? " (params)" : "", h.v[k], d.v[k]);
    }
    std::printf("%s init probe: %d entries (%d of them the parameters), %d differ bitwise\n", what.c_str(), h.n,
                words < 400 ? words : 400, shown);
  }
  std::printf("  %s at step 150: host q0 % .12e p0 % .12e U % .6e | device q0 % .12e p0 % .12e U % .6e\n",
              what.c_str(), host[150].v[2], host[150].v[2 + 3 * I::nq], host[150].v[2 + 3 * I::nq + 2 * I::np],
              device[150].v[2], device[150].v[2 + 3 * I::nq], device[150].v[2 + 3 * I::nq + 2 * I::np]);
}

// Closed-loop stability stages (kernels/linearize/sampled_loop.hpp).
template <class System, class Model>
HS_HD void trace_stability(const typename System::Params& P, const StabilitySettings& S, Record* r) {
  using Plant = typename System::Plant;
  using Input = typename System::Input;
  constexpr int N = System::N, ni = System::ni, na = System::na, npa = System::npa, nm = System::nm;
  const double T = Input::sample_period(P.input);
  double q_hold[ni];
  Input::held_pose(P, q_hold);
  typename Plant::Reference R;
  const bool ref_ok = Plant::reference(P, q_hold, R);
  r[0].put(ref_ok);
  double z[N], m[nm > 0 ? nm : 1] = {};
  double F[na];
  const bool hold_ok = Plant::holding_forces(P, R, F);
  r[0].put(hold_ok);
  for (int a = 0; a < na; ++a) r[0].put(F[a]);
  for (int j = 0; j < ni; ++j) {
    z[Plant::iz + j] = q_hold[j];
    z[Plant::izd + j] = 0.0;
  }
  for (int a = 0; a < na; ++a) {
    double w[Model::nwa > 0 ? Model::nwa : 1];
    Model::Actuator::static_state(P.actuator[a], R.K.actuator[a], F[a], z + Plant::ip + a * npa, w);
  }
  for (int k = 0; k < N; ++k) r[0].put(z[k]);  // start
#ifdef HS_LOG_DECISIONS
  mark_decision_log(1.0);  // the trace's own call of the equilibrium
#endif
  const Status st = System::equilibrium(P, R, q_hold, z, m);
  r[1].put(static_cast<int>(st));
  for (int k = 0; k < N; ++k) r[1].put(z[k]);  // equilibrium
  for (int k = 0; k < nm; ++k) r[1].put(m[k]);
  Mat<double, N, N> A;
  Mat<double, N, 2 * na> B;
  {
    using D = Dual<N>;
    D zj[N], fj[N];
    for (int k = 0; k < N; ++k) zj[k] = D::variable(z[k], k);
    const double u0[na] = {};
    Plant::rates(P, R, zj, u0, fj);
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < N; ++k) A(i, k) = fj[i].v[k];
    double f0[N], f1[N], s_eq[na], sdot_eq[na];
    Plant::rates(P, R, z, u0, f0, s_eq, sdot_eq);
    for (int i = 0; i < N; ++i) r[2].put(f0[i]);
    for (int a = 0; a < na; ++a)
      for (int side = 0; side < 2; ++side) {
        double u[na] = {};
        u[a] = side == 0 ? 1.0 : -1.0;
        Plant::rates(P, R, z, u, f1);
        for (int i = 0; i < N; ++i) B(i, side * na + a) = side == 0 ? f1[i] - f0[i] : f0[i] - f1[i];
      }
  }
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k) r[3].put(A(i, k));
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < 2 * na; ++k) r[4].put(B(i, k));
  Mat<double, N, N> Phi;
  Mat<double, N, 2 * na> Gamma;
  r[5].put(zero_order_hold(A, B, T, Phi, Gamma));
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k) r[5].put(Phi(i, k));
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < 2 * na; ++k) r[6].put(Gamma(i, k));
#ifdef HS_LOG_DECISIONS
  mark_decision_log(2.0);  // stability_point's: the same function from the same start
#endif
  const auto point = System::stability_point(P, S);
  r[7].put(point.status);
  r[7].put(point.max_real);
  for (int k = 0; k < point.eigenvalue_count && k < 64; ++k) {
    r[7].put(point.re[k]);
    r[7].put(point.im[k]);
  }
}

template <class System, class Model>
__global__ void trace_stability_kernel(const typename System::Params* P, StabilitySettings S, Record* r) {
  trace_stability<System, Model>(*P, S, r);
}
#ifdef HS_LOG_DECISIONS
template <class System, class Model>
__global__ void trace_stability_logged_kernel(const typename System::Params* P, StabilitySettings S, Record* r,
                                              DecisionLog* log) {
  install_decision_log(log);
  trace_stability<System, Model>(*P, S, r);
  install_decision_log(nullptr);
}
#endif

template <class Physics, class Friction>
void trace_stability_model(const std::string& model) {
  using System = typename Physics::template Linearized<Friction>;
  using Model = typename Physics::template Model<Friction>;
  const ModelDescriptor* m = find_in<Physics>(model);
  const typename System::Params P = default_params<typename System::Params>(*m, Friction::name);
  StabilitySettings S;
  constexpr int kStages = 8;
  std::vector<Record> host(kStages), device(kStages);
  trace_stability<System, Model>(P, S, host.data());
  DeviceBuffer<typename System::Params> dP(1);
  DeviceBuffer<Record> dR(kStages);
  HS_CUDA_CHECK(cudaMemcpy(dP.ptr, &P, sizeof(P), cudaMemcpyHostToDevice));
  HS_CUDA_CHECK(cudaMemcpy(dR.ptr, device.data(), sizeof(Record) * kStages, cudaMemcpyHostToDevice));
  trace_stability_kernel<System, Model><<<1, 1>>>(dP.ptr, S, dR.ptr);
  HS_CUDA_CHECK(cudaGetLastError());
  HS_CUDA_CHECK(cudaDeviceSynchronize());
  HS_CUDA_CHECK(cudaMemcpy(device.data(), dR.ptr, sizeof(Record) * kStages, cudaMemcpyDeviceToHost));
  const char* stage[kStages] = {"reference+start", "equilibrium", "f(z_eq)", "A", "B", "Phi", "Gamma", "eigenvalues"};
  for (int s = 0; s < kStages; ++s) {
    int shown = 0;
    for (int k = 0; k < host[s].n; ++k) {
      const double a = host[s].v[k], b = device[s].v[k];
      const double scale = std::fmax(std::fabs(a), 1e-12);
      if (!differs(a, b, scale)) continue;
      if (shown++ < 20) std::printf("  %s %s[%d]: host % .15e device % .15e\n", model.c_str(), stage[s], k, a, b);
    }
    std::printf("%s stability stage %-16s %d entries, %d differ (1e-9 relative)\n", model.c_str(), stage[s], host[s].n,
                shown);
  }
#ifdef HS_LOG_DECISIONS
  {
    // The same stages with their decisions logged (marks 1 and 2: the
    // trace's call of the equilibrium, then stability_point's).
    std::vector<Record> h(kStages);
    decision_compare::HostDecisionLog hl(kDecisionCapacity);
    install_decision_log(&hl.log);
    trace_stability<System, Model>(P, S, h.data());
    install_decision_log(nullptr);
    const decision_compare::Side host_log = hl.side();
    DeviceDecisionLog dl;
    const std::vector<Record> fresh(kStages);
    HS_CUDA_CHECK(cudaMemcpy(dR.ptr, fresh.data(), sizeof(Record) * kStages, cudaMemcpyHostToDevice));
    trace_stability_logged_kernel<System, Model><<<1, 1>>>(dP.ptr, S, dR.ptr, dl.log.ptr);
    HS_CUDA_CHECK(cudaGetLastError());
    HS_CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("%s", decision_compare::describe(host_log, dl.read(), model + " stability").c_str());
  }
#endif
}

}  // namespace
}  // namespace hs

int main() {
  using namespace hs;
  try {
    HS_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 256 * 1024));
    trace_model<PlanarFourBarPhysics, BrownMcPhee>("four-bar");  // agrees (control)
    trace_model<PlanarFourBarPhysics, NoFriction>("four-bar");   // did not move on the GPU
    trace_model<QuickReturnPhysics, ModifiedLuGre>("quick-return");  // Newton failed at the first step on the GPU
    trace_model<SpatialFourBarPhysics, NoFriction>("four-bar-3d");
    trace_model<SpatialFourBarPhysics, BrownMcPhee>("four-bar-3d");
    trace_stability_model<LiftTiltPhysics, BrownMcPhee>("lift-tilt");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "device_trace: %s\n", e.what());
    return 1;
  }
  return 0;
}
