// Lockstep lanes on the CPU (issue 16; docs/models/lanes.md §4): a batch of
// instances of one model run W at a time in the W lanes of Lanes<W>
// (kernels/core/lanes.hpp) through the same double-step code as the scalar
// path (DoubleStepTrapezoidal<Model, Lanes<W>>), the way a GPU warp runs 32
// instances; the penalty formulation likewise (PenaltyTrapezoidal<Model,
// Lanes<W>>). Each instance's summary is its scalar run_instance summary
// (kernels/integrators/run.hpp), bit for bit (tests/test_lockstep.cpp).
//
// What a lane batch shares: the structural choices a study does not sweep
// (the body that carries the actuator, the valve schedule's segments). The
// runner groups the instances that share them; every real parameter is
// each lane's own (the schedule's gain included).
//
// Initialization runs instance by instance on the scalar path (assembly and
// static state: once per run); the instances that start are gathered into
// lanes, and a ragged last group repeats its last instance in the spare lanes.
// Supported: the double step of models on PlanarLoopChain mechanisms, the
// 3D four-bar, the quick-return and the model files' mechanism
// (MechanismOnLanes), and the penalty formulation of the planar chains, the
// quick-return and the model files (FormulationOnLanes), with one of the
// hydraulic cylinders and an input policy with lanes (InputOnLanes: the
// open-loop schedule, the model files' schedules and PI controllers, seed
// 004's virtual decomposition controller; their memory, report and probe per
// lane), the exact tangent;
// lockstep_supported() says so at run time and the callers run the scalar
// path otherwise. Trajectories are recorded lane by lane: each lane's
// samples are its scalar run's (record(index, k, sample), as run_instance's).
//
// CPU only, like the lanes.
#pragma once
#if defined(__CUDACC__) || defined(__HIPCC__)
#error "kernels/integrators/lockstep.hpp is the CPU's lockstep runner"
#endif
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../control/vdc.hpp"
#include "../core/lanes.hpp"
#include "../models/input_schedule.hpp"
#include "../models/planar_loop_chain.hpp"
#include "../models/planar_multibody.hpp"
#include "double_step_trapezoidal.hpp"
#include "penalty_trapezoidal.hpp"
#include "run.hpp"

namespace hs {

// ---------------------------------------------------------------------------
// Parameters on lanes: the structs with structural fields (transpose_reals,
// kernels/core/lanes.hpp, does the reals).

// A struct whose reals come first, up to its first structural field at
// byte ScalarTail of one instance's struct and WideTail of the lanes' (the
// planar chain's actuator body, the controller's sample period): those
// reals per lane. The caller copies the structural tail, one for the batch.
template <int W, std::size_t ScalarTail, std::size_t WideTail, class Scalar, class Wide>
void transpose_leading_reals(const Scalar* in, int count, Wide& out) {
  constexpr int n_reals = static_cast<int>(ScalarTail / sizeof(double));
  static_assert(ScalarTail == n_reals * sizeof(double) && WideTail == n_reals * sizeof(Lanes<W>),
                "the reals come first, then the structural fields");
  transpose_reals<W>(in, count, out, n_reals);
}

// A mechanism whose parameters are reals only (the quick-return's): the
// whole struct transposed, nothing structural.
template <int W, class Scalar, class Wide>
void gather_mechanism(const Scalar* in, int count, Wide& out) {
  static_assert(sizeof(Wide) == W * sizeof(Scalar), "a mechanism of reals only, or one with its own gather");
  transpose_reals<W>(in, count, out);
}
// The planar chain's reals per lane and its actuator body, one for the batch.
template <int W, int NB>
void gather_mechanism(const PlanarLoopChainParams<NB>* in, int count, PlanarLoopChainParams<NB, Lanes<W>>& out) {
  using Scalar = PlanarLoopChainParams<NB>;
  using Wide = PlanarLoopChainParams<NB, Lanes<W>>;
  transpose_leading_reals<W, offsetof(Scalar, actuator_body), offsetof(Wide, actuator_body)>(in, count, out);
  out.actuator_body = in[0].actuator_body;
}
// A model file's mechanism: its reals per lane, its structure (the tree, the
// joints' types and slots, the points' bodies, the padding) one for the batch.
template <int W, class Capacity>
void gather_mechanism(const PlanarMultibodyParams<Capacity>* in, int count,
                      PlanarMultibodyParamsT<Capacity, Lanes<W>>& out) {
  for (int lane = 0; lane < W; ++lane)
    for_each_planar_multibody_field<Capacity>(
        out, in[lane < count ? lane : count - 1], [&](Lanes<W>& to, double from) { to.set(lane, from); },
        [&](int& to, int from) { if (lane == 0) to = from; });
}
// The mechanism's structural fields, the same in every lane of a batch: none
// for a mechanism of reals, the actuator body for the planar chain, a model
// file's tree.
template <class MP>
bool same_mechanism_structure(const MP&, const MP&) {
  return true;
}
template <int NB>
bool same_mechanism_structure(const PlanarLoopChainParams<NB>& a, const PlanarLoopChainParams<NB>& b) {
  return a.actuator_body == b.actuator_body;
}
template <class Capacity>
bool same_mechanism_structure(const PlanarMultibodyParams<Capacity>& a, const PlanarMultibodyParams<Capacity>& b) {
  bool same = true;
  for_each_planar_multibody_field<Capacity>(a, b, [](double, double) {}, [&](int x, int y) { same = same && x == y; });
  return same;
}
// The schedule's segments, one for the batch, and each lane's gain.
template <int W>
InputScheduleT<Lanes<W>> gather_input(const InputSchedule* in, int count) {
  InputScheduleT<Lanes<W>> out;
  out.count = in[0].count;
  for (int k = 0; k < InputSchedule::kMaxSegments; ++k) {
    out.start[k] = in[0].start[k];
    out.value[k] = in[0].value[k];
  }
  for (int i = 0; i < W; ++i) out.gain.set(i, in[i < count ? i : count - 1].gain);
  return out;
}

// A model file's inputs (CylinderInputs): per cylinder its schedule as
// above, its mode and coordinate one for the batch, its gains and limit per
// lane; the sample period one for the batch.
template <int W, int NA>
CylinderInputsParamsT<NA, Lanes<W>> gather_input(const CylinderInputsParams<NA>* in, int count) {
  CylinderInputsParamsT<NA, Lanes<W>> out;
  out.sample_period = in[0].sample_period;
  for (int a = 0; a < NA; ++a) {
    InputSchedule schedule[W];
    for (int i = 0; i < W; ++i) {
      const CylinderInputSetting& c = in[i < count ? i : count - 1].cylinder[a];
      schedule[i] = c.schedule;
      out.cylinder[a].proportional_gain.set(i, c.proportional_gain);
      out.cylinder[a].integral_gain.set(i, c.integral_gain);
      out.cylinder[a].voltage_limit.set(i, c.voltage_limit);
    }
    out.cylinder[a].schedule = gather_input<W>(schedule, W);
    out.cylinder[a].mode = in[0].cylinder[a].mode;
    out.cylinder[a].coordinate = in[0].cylinder[a].coordinate;
  }
  return out;
}

// Seed 004's controller (VdcController): its gains and its model per lane
// (the reals, first), its sample period and path one for the batch.
template <int W>
VdcParamsT<Lanes<W>> gather_input(const VdcParams* in, int count) {
  using Wide = VdcParamsT<Lanes<W>>;
  Wide out;
  transpose_leading_reals<W, offsetof(VdcParams, sample_period), offsetof(Wide, sample_period)>(in, count, out);
  out.sample_period = in[0].sample_period;
  out.path = in[0].path;
  return out;
}

// Whether two instances' inputs may share a batch: the same segments (the
// gain may differ), modes, coordinates and sample period.
inline bool same_input_structure(const InputSchedule& a, const InputSchedule& b) {
  if (a.count != b.count) return false;
  for (int k = 0; k < a.count; ++k)
    if (!(a.start[k] == b.start[k]) || !(a.value[k] == b.value[k])) return false;
  return true;
}
template <int NA>
bool same_input_structure(const CylinderInputsParams<NA>& a, const CylinderInputsParams<NA>& b) {
  if (!(a.sample_period == b.sample_period)) return false;
  for (int c = 0; c < NA; ++c)
    if (a.cylinder[c].mode != b.cylinder[c].mode || a.cylinder[c].coordinate != b.cylinder[c].coordinate ||
        !same_input_structure(a.cylinder[c].schedule, b.cylinder[c].schedule))
      return false;
  return true;
}

// The same sample period and path (its waypoints in use, its loops, its
// segment time).
inline bool same_input_structure(const VdcParams& a, const VdcParams& b) {
  const WaypointPath &u = a.path, &v = b.path;
  if (!(a.sample_period == b.sample_period) || u.count != v.count || u.loops != v.loops ||
      !(u.segment_time == v.segment_time))
    return false;
  for (int k = 0; k < u.count && k < WaypointPath::kMaxWaypoints; ++k)
    if (!(u.x[k] == v.x[k]) || !(u.y[k] == v.y[k])) return false;
  return true;
}

// Whether two instances may share a lane batch: the same structural choices.
template <class Params>
bool same_lane_structure(const Params& a, const Params& b) {
  return same_mechanism_structure(a.mechanism, b.mechanism) && same_input_structure(a.input, b.input);
}

// W instances' parameters (ActuatedParams: mechanism, actuators, input)
// into their lanes' (ParamsOn<Lanes<W>>): instance(lane) is lane's, already
// repeating the last instance in a ragged group's spare lanes. The lockstep
// runner's and the stability map's points on lanes
// (kernels/linearize/lockstep_stability.hpp).
template <int W, class InstanceOf, class Wide>
void gather_params(const InstanceOf& instance, Wide& PW) {
  using One = std::decay_t<decltype(instance(0))>;
  constexpr int na = static_cast<int>(sizeof(One::actuator) / sizeof(One::actuator[0]));
  decltype(One::mechanism) mech[W];
  decltype(One::input) input[W];
  std::remove_extent_t<decltype(One::actuator)> act[na][W];
  for (int lane = 0; lane < W; ++lane) {
    const One& p = instance(lane);
    mech[lane] = p.mechanism;
    input[lane] = p.input;
    for (int a = 0; a < na; ++a) act[a][lane] = p.actuator[a];
  }
  gather_mechanism<W>(mech, W, PW.mechanism);
  PW.input = gather_input<W>(input, W);
  for (int a = 0; a < na; ++a) transpose_reals<W>(act[a], W, PW.actuator[a]);
}

// ---------------------------------------------------------------------------
// The runner

// Lane utilization: lanes still iterating, summed over the Newton
// iterations, over the lanes × iterations run (the padding lanes of a ragged
// group count as idle). What a GPU warp would see on the same batch.
struct LockstepCounters {
  long active_lane_iterations = 0;
  long lane_iterations = 0;
  long groups = 0;
  double utilization() const {
    return lane_iterations > 0 ? static_cast<double>(active_lane_iterations) / lane_iterations : 0.0;
  }
};

// The formulations that have lanes: the integrator of one instance and the
// same formulation on the real R (Lanes<W>). One line per formulation.
template <class Integrator, class R>
struct IntegratorOn;
template <class Model, class R>
struct IntegratorOn<DoubleStepTrapezoidal<Model, double>, R> {
  using type = DoubleStepTrapezoidal<Model, R>;
};
template <class Model, class R>
struct IntegratorOn<PenaltyTrapezoidal<Model, double>, R> {
  using type = PenaltyTrapezoidal<Model, R>;
};

// The mechanisms with lanes: their parameters per lane (Mech::ParamsOn<R>)
// are a planar loop chain's, which gather_mechanism transposes with its
// actuator body (the planar chains, and the 3D four-bar: DaeMechanism<
// SpatialFourBarDae> takes the planar chain's parameters, docs/models/lanes.md
// §8), or reals only, transposed whole (the quick-return, §9).
template <class Mech>
struct IsPlanarLoopChain : std::false_type {};
template <int NB>
struct IsPlanarLoopChain<PlanarLoopChain<NB>> : std::true_type {};
template <class Params>
struct IsPlanarChainParams : std::false_type {};
template <int NB>
struct IsPlanarChainParams<PlanarLoopChainParams<NB>> : std::true_type {};
// Reals only: on a real twice as large with a double's alignment
// (Dual<1, double>) the struct is twice as large; a structural field (an int,
// a pointer) keeps its size and breaks the ratio. (Lanes<W> cannot tell: its
// alignment pads an int to a whole lane.)
template <class Mech>
constexpr bool params_are_reals_only =
    sizeof(typename Mech::template ParamsOn<Dual<1, double>>) == 2 * sizeof(typename Mech::Params);
template <class Params>
struct IsPlanarMultibodyParams : std::false_type {};
template <class Capacity>
struct IsPlanarMultibodyParams<PlanarMultibodyParamsT<Capacity, double>> : std::true_type {};
template <class Mech, class = void>
struct MechanismOnLanes : std::false_type {};
template <class Mech>
struct MechanismOnLanes<Mech, std::void_t<typename Mech::template ParamsOn<Lanes<4>>>>
    : std::integral_constant<bool, IsPlanarChainParams<typename Mech::Params>::value ||
                                       IsPlanarMultibodyParams<typename Mech::Params>::value ||
                                       params_are_reals_only<Mech>> {};

// The penalty formulation on lanes for the planar chains and the DAE
// mechanisms of at most 5 coordinates (the quick-return): on a DAE mechanism
// its residual nests the adapter's Dual<nq> jets inside Dual<nx>. For the
// quick-return (nq = 5) that took the penalty lane unit from 24 s to 81 s of
// compile on VM A, for 3.0x one instance at a time; for the 3D four-bar
// (nq = 10, 121 components per real) 2 min more per unit, for a formulation
// that runs it at a tenth of the double step's speed, so it stays one
// instance at a time (docs/models/lanes.md §8, §9).
template <class Integrator>
struct FormulationOnLanes : std::true_type {};
template <class Model>
struct FormulationOnLanes<PenaltyTrapezoidal<Model, double>>
    : std::integral_constant<bool, IsPlanarLoopChain<typename Model::Mechanism>::value ||
                                       Model::Mechanism::nq <= 5> {};

// Which integrators the lanes run (compile time): a formulation with lanes,
// of a model on a mechanism with lanes with hydraulic cylinders that have
// lane parameters and an input policy with lanes.
template <class Integrator, class = void>
struct LockstepFor : std::false_type {};
template <class Integrator>
struct LockstepFor<Integrator, std::void_t<typename IntegratorOn<Integrator, double>::type,
                                           typename Integrator::Model::Actuator::template ParamsOn<double>>>
    : std::integral_constant<bool,
                             MechanismOnLanes<typename Integrator::Model::Mechanism>::value &&
                                 FormulationOnLanes<Integrator>::value &&
                                 InputOnLanes<typename Integrator::Model::Input>::value> {};

// The multipliers of the penalty formulation's state (eq 18), gathered into
// the lanes with the rest; a formulation without them has none.
template <class State, class = void>
struct HasMultipliers : std::false_type {};
template <class State>
struct HasMultipliers<State, std::void_t<decltype(std::declval<State>().lambda)>> : std::true_type {};

// And what they run of it (run time): the exact tangent; otherwise the
// caller runs the scalar path.
inline bool lockstep_supported(const IntegratorSettings& S, const RunOptions&) {
  return S.tangent == Tangent::exact;
}

// A recorder that keeps nothing (runs without trajectories).
struct NoLaneRecord {
  template <class Sample>
  void operator()(long, long, const Sample&) const {}
};

// Integrator: one instance's (DoubleStepTrapezoidal<Model> or
// PenaltyTrapezoidal<Model>); the lanes run the same formulation on Lanes<W>.
template <class Integrator, int W>
struct Lockstep {
  using One = Integrator;
  using Model = typename One::Model;
  using Wide = typename IntegratorOn<One, Lanes<W>>::type;
  using L = Lanes<W>;
  using Mask = LaneMask<W>;
  using Summary = SummaryOf<One>;
  static constexpr int nq = One::nq, np = One::np, na = One::na;
  using Input = typename Model::Input;
  // A policy with a memory per lane (MemoryOn<R>); the open-loop schedule has none.
  static constexpr bool memory_on_lanes = !std::is_same<MemoryOf<Input, L>, typename Input::Memory>::value;
  using SampleT = SampleOf<One>;

  struct Started {
    long index;
    typename One::State state;
    typename One::Constants constants;
    typename One::template Evaluation<double> eval;
  };

  // The instances P[0 … n) into out[0 … n): each summary as run_instance's;
  // with opt.stride > 0, record(i, k, sample) for instance i's k-th sample,
  // as run_instance records it (the caller drops k beyond its buffer).
  template <class Record = NoLaneRecord>
  static void run(const typename One::Params* P, long n, const IntegratorSettings& S, const RunOptions& opt,
                  Summary* out, LockstepCounters* counters = nullptr, Record&& record = Record{}) {
    // Instances that started, waiting for a full group of their structure.
    std::vector<std::vector<Started>> waiting;
    for (long i = 0; i < n; ++i) {
      Started one;
      one.index = i;
      const Status init = One::initialize(P[i], S, one.state, one.constants, &one.eval);
      if (init != Status::ok) {
        out[i] = unstarted_summary<nq, np, na, InputReport<Input>>(init);
        continue;
      }
      std::vector<Started>* group = nullptr;
      for (auto& g : waiting)
        if (same_lane_structure(P[g.front().index], P[i])) { group = &g; break; }
      if (!group) { waiting.emplace_back(); group = &waiting.back(); }
      group->push_back(one);
      if (static_cast<int>(group->size()) == W) {
        run_group(P, *group, S, opt, out, counters, record);
        group->clear();
      }
    }
    for (auto& g : waiting)
      if (!g.empty()) run_group(P, g, S, opt, out, counters, record);
  }

  // One group of 1 … W started instances in lockstep: run_instance's loop
  // (kernels/integrators/run.hpp) with a mask of the lanes still running.
  template <class Record>
  static void run_group(const typename One::Params* P, const std::vector<Started>& g, const IntegratorSettings& S,
                        const RunOptions& opt, Summary* out, LockstepCounters* counters, Record& record) {
    const int count = static_cast<int>(g.size());
    auto lane_instance = [&](int lane) -> const Started& { return g[lane < count ? lane : count - 1]; };
    // Parameters, constants, states and evaluations transposed.
    typename Wide::Params PW;
    gather_params<W>([&](int lane) -> const typename One::Params& { return P[lane_instance(lane).index]; }, PW);
    typename Wide::Constants KW;
    typename Wide::State st;
    typename Wide::template Evaluation<L> e;
    {
      typename One::Constants K[W];
      typename One::template Evaluation<double> ev[W];
      for (int lane = 0; lane < W; ++lane) {
        K[lane] = lane_instance(lane).constants;
        ev[lane] = lane_instance(lane).eval;
      }
      transpose_reals<W>(K, W, KW);
      transpose_reals<W>(ev, W, e);
      gather_state(g, st);
    }

    const double nan = __builtin_nan("");
    // The summary's quantities per lane (run_instance's names).
    StatusOn<L> status = StatusOnT<L>::of(Status::ok);
    L t_end(0.0), steps(0.0), newton_iterations(0.0), max_newton_iterations(0.0), max_constraint_violation(0.0);
    L p_min[np], p_max[np];
    for (int k = 0; k < np; ++k) { p_min[k] = st.p[k]; p_max[k] = st.p[k]; }
    L cylinder_work(0.0), friction_work(0.0), max_cylinder_work(0.0), peak_energy_drift(0.0), final_energy_drift(0.0);
    L t_last_moving(-1.0), tracking_sq(0.0);
    Mask moving(false);
    const L E0 = e.kinetic + e.potential;
    // The powers summed over the actuators (A18), as run_instance sums
    // HydraulicCylinder::cylinder_power and friction_power (F ṡ and −F_μ ṡ).
    auto cylinder_power = [&]() {
      L pw = e.piston_force[0] * e.sdot[0];
      for (int a = 1; a < na; ++a) pw += e.piston_force[a] * e.sdot[a];
      return pw;
    };
    auto friction_power = [&]() {
      L pw = -e.friction_force[0] * e.sdot[0];
      for (int a = 1; a < na; ++a) pw += -e.friction_force[a] * e.sdot[a];
      return pw;
    };
    L power_cyl = cylinder_power(), power_fr = friction_power();
    // Trajectories: run_instance's samples, lane by lane (its `sample`).
    long record_index = 0;
    int steps_since_record = 0;
    auto record_lanes = [&](const Mask& lanes, const L& drift, const L& iterations, const L& violation) {
      for (int lane = 0; lane < count; ++lane) {
        if (!lanes[lane]) continue;
        SampleT smp;
        input_probe<Input, na>(P[g[lane].index], input_of_lane(st, lane), smp);
        fill_sample<nq, np, na>(smp, st, e, [lane](const L& v) { return v[lane]; }, drift, iterations, violation);
        record(g[lane].index, record_index, smp);
      }
      ++record_index;
    };
    if (opt.stride > 0) record_lanes(Mask(true), L(0.0), L(0.0), L(0.0));

    const long n_steps = static_cast<long>(S.duration / S.dt + 0.5);
    const double t_switch = Model::Input::last_switch(P[g.front().index].input, S.duration);
    const int drive = One::driving_coordinate();
    Mask running(true);
    typename Wide::StepReport rep;
    for (long n = 0; n < n_steps && any_lane(running); ++n) {
      if (cancel_requested(opt, n)) break;  // the batch is cancelled: its chunk is discarded
      rep.active_lane_iterations = 0;
      rep.lane_iterations = 0;
      const L t_before(st.t);
      const StatusOn<L> step_status = Wide::step(PW, KW, S, st, rep, &e, running);
      if (counters) {
        // The padding lanes of a ragged group are copies of its last
        // instance, stepped with it, so the step counts them busy exactly
        // as often as that lane iterated: taken back out, they count idle
        // (a group of 1 in 8 lanes is 12.5 % utilized, not 100 %).
        const long padding = static_cast<long>(W - count) * static_cast<long>(rep.newton_iterations[count - 1]);
        counters->lane_iterations += rep.lane_iterations;
        counters->active_lane_iterations += rep.active_lane_iterations - padding;
      }
      const Mask failed = running && step_status != StatusOnT<L>::of(Status::ok);
      status = choose(failed, step_status, status);
      t_end = choose(failed, t_before, t_end);
      running = running && !failed;
      const Mask on = running;  // the lanes whose step succeeded
      steps = choose(on, L(static_cast<double>(n + 1)), steps);
      newton_iterations = choose(on, newton_iterations + rep.newton_iterations, newton_iterations);
      max_newton_iterations =
          choose(on && rep.newton_iterations > max_newton_iterations, rep.newton_iterations, max_newton_iterations);
      max_constraint_violation = choose(on && rep.constraint_residual > max_constraint_violation,
                                        rep.constraint_residual, max_constraint_violation);
      moving = choose(on, math::abs(st.qd[drive]) > opt.settling_rate, moving);
      t_last_moving = choose(on && moving, L(st.t), t_last_moving);
      if (opt.reference) {  // the same reference trajectory for every lane
        const L d = st.q[drive] - opt.reference[n + 1];
        tracking_sq = choose(on, tracking_sq + d * d, tracking_sq);
      }
      const L pc = cylinder_power(), pf = friction_power();
      cylinder_work = choose(on, cylinder_work + 0.5 * S.dt * (power_cyl + pc), cylinder_work);
      friction_work = choose(on, friction_work + 0.5 * S.dt * (power_fr + pf), friction_work);
      power_cyl = choose(on, pc, power_cyl);
      power_fr = choose(on, pf, power_fr);
      const L drift = e.kinetic + e.potential - E0 - cylinder_work - friction_work;
      max_cylinder_work = choose(on && math::abs(cylinder_work) > max_cylinder_work, math::abs(cylinder_work),
                                 max_cylinder_work);
      peak_energy_drift =
          choose(on && math::abs(drift) > peak_energy_drift, math::abs(drift), peak_energy_drift);
      final_energy_drift = choose(on, drift, final_energy_drift);
      const StatusOn<L> check = Model::check(PW, KW, st.p, e.s, S.pressure_min, S.pressure_max);
      for (int k = 0; k < np; ++k) {
        p_min[k] = choose(on && st.p[k] < p_min[k], st.p[k], p_min[k]);
        p_max[k] = choose(on && st.p[k] > p_max[k], st.p[k], p_max[k]);
      }
      // Every running lane has taken the same steps: one countdown (run_instance's).
      if (opt.stride > 0 && ++steps_since_record == opt.stride) {
        steps_since_record = 0;
        record_lanes(on, drift, rep.newton_iterations, rep.constraint_residual);
      }
      const Mask stopped = on && check != StatusOnT<L>::of(Status::ok);
      status = choose(stopped, check, status);
      t_end = choose(stopped, L(st.t), t_end);
      running = running && !stopped;
    }
    t_end = choose(running, L(st.t), t_end);
    if (counters) ++counters->groups;

    for (int lane = 0; lane < count; ++lane) {
      Summary& o = out[g[lane].index];
      o = Summary();
      o.status = StatusOnT<L>::lane(status, lane);
      o.t_end = t_end[lane];
      o.steps = static_cast<long>(steps[lane]);
      for (int k = 0; k < nq; ++k) { o.q[k] = st.q[k][lane]; o.qd[k] = st.qd[k][lane]; }
      for (int k = 0; k < np; ++k) {
        o.p[k] = st.p[k][lane];
        o.p_min[k] = p_min[k][lane];
        o.p_max[k] = p_max[k][lane];
      }
      for (int a = 0; a < na; ++a) {
        o.U[a] = st.U[a][lane];
        o.s[a] = e.s[a][lane];
      }
      o.cylinder_work = cylinder_work[lane];
      o.friction_work = friction_work[lane];
      o.max_cylinder_work = max_cylinder_work[lane];
      o.peak_energy_drift = peak_energy_drift[lane];
      o.final_energy_drift = final_energy_drift[lane];
      o.newton_iterations = static_cast<long>(newton_iterations[lane]);
      o.max_newton_iterations = static_cast<int>(max_newton_iterations[lane]);
      o.max_constraint_violation = max_constraint_violation[lane];
      const bool still_moving = moving[lane];
      const double t_moving = t_last_moving[lane];
      o.settling_time = still_moving ? nan : (t_moving > t_switch ? t_moving - t_switch : 0.0);
      o.tracking_rms = opt.reference && o.steps > 0 ? std::sqrt(tracking_sq[lane] / o.steps) : nan;
      input_report<Input, na>(P[g[lane].index], input_of_lane(st, lane), o);
    }
  }

  // Lane `lane`'s policy state as one instance's: its memory and held
  // references (a memory of reals on lanes; an empty one as it is).
  static InputState<Input, na> input_of_lane(const typename Wide::State& w, int lane) {
    InputState<Input, na> one;
    if constexpr (memory_on_lanes) one.memory = lane_of<W, Input::template MemoryOn>(w.input.memory, lane);
    for (int a = 0; a < na; ++a) one.U_ref[a] = w.input.U_ref[a][lane];
    return one;
  }

  // The started instances' states in the lanes (the grid is the batch's: every
  // initialized state starts at t0 = 0, step 0).
  static void gather_state(const std::vector<Started>& g, typename Wide::State& w) {
    const int count = static_cast<int>(g.size());
    typename One::State one[W];
    for (int lane = 0; lane < W; ++lane) one[lane] = g[lane < count ? lane : count - 1].state;
    w.t0 = one[0].t0;
    w.steps = one[0].steps;
    w.t = one[0].t;
    auto block = [&](auto member, auto& wide) {
      using Block = typename std::remove_cv<typename std::remove_reference<decltype(one[0].*member)>::type>::type;
      Block scalar[W];
      for (int lane = 0; lane < W; ++lane) std::memcpy(&scalar[lane], &(one[lane].*member), sizeof(Block));
      transpose_reals<W>(scalar, W, wide);
    };
    using S1 = typename One::State;
    block(&S1::q, w.q);
    block(&S1::qd, w.qd);
    block(&S1::qdd, w.qdd);
    block(&S1::p, w.p);
    block(&S1::pd, w.pd);
    block(&S1::w, w.w);
    block(&S1::wd, w.wd);
    block(&S1::U, w.U);
    block(&S1::s_act, w.s_act);
    block(&S1::sdot_act, w.sdot_act);
    if constexpr (HasMultipliers<S1>::value) block(&S1::lambda, w.lambda);
    if constexpr (memory_on_lanes) {
      MemoryOf<Input, double> memory[W];
      for (int lane = 0; lane < W; ++lane) memory[lane] = one[lane].input.memory;
      w.input.memory = gather_lanes<W, Input::template MemoryOn>(memory, W);
    }
    for (int lane = 0; lane < W; ++lane) {
      for (int a = 0; a < na; ++a) w.input.U_ref[a].set(lane, one[lane].input.U_ref[a]);
      for (int j = 0; j < One::ni; ++j) w.part.indep[j].set(lane, one[lane].part.indep[j]);
      for (int r = 0; r < One::nc; ++r) w.part.dep[r].set(lane, one[lane].part.dep[r]);
    }
  }
};

}  // namespace hs
