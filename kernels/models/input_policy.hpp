// Input policies: what sets each actuator's valve reference U_ref
// (docs/models/integrators.md §11.3). A policy is a struct with
//
//   Params                      its parameters, the model Params' `input` member
//   Memory                      per-instance state of a controller, carried in the
//                               integrator's State (empty for an open-loop schedule)
//   observes                    constexpr bool: whether reference() reads the
//                               observation (the integrators build it only then)
//   sample_period(P)            [s]; 0: U_ref is evaluated at every step's
//                               midpoint t_k + dt/2 and held over the step (A9);
//                               T > 0: evaluated at the sampling instants
//                               t_k = t0 + j·m·dt, m = max(1, round(T/dt)), and
//                               held (zero-order hold) until the next one
//   initialize(P, memory)       memory at t0
//   reference(P, t, obs, memory, U_ref)  U_ref[a] for every actuator a, from the
//                               time, the sampled observation and the memory
//   last_switch(P, duration)    when the reference last changes by itself
//                               within the run (the settling clock's start)
//
// Optional members (a policy without them has none of these):
//   reads_model                 constexpr bool: initialize() and reference()
//                               take the whole model's Params (mechanism,
//                               actuators, input) instead of the input's alone
//                               (a model-based controller such as seed 004's
//                               VDC reads the geometry it controls)
//   Report, report(P, memory, Report&)   quantities of the run the
//                               policy measured (tracking errors, time in
//                               saturation), added to the run's summary row;
//                               Report is a struct of doubles with
//                               `width`, `unstarted(Report&)` (every field NaN)
//                               and a host-side `visit(const Report*, v)`
//                               naming its columns like run_columns' visitors
//   Probe, probe(P, memory, Probe&)   what the policy adds to every recorded
//                               trajectory sample (desired path, required
//                               forces, its last command), same shape
//
// The observation is the state at t_k, the start of the step (a sampled
// controller sees the past, never the implicit end of the step):
// Observation<nq, na, npa> (q, q̇, actuator lengths and rates, pressures).
#pragma once
#include <type_traits>

#include "../core/hd.hpp"
#include "../core/type_list.hpp"
#include "../integrators/settings.hpp"
#include "input_schedule.hpp"

namespace hs {

// The sampled state a policy sees. Pointers into the integrator's state,
// valid during the call to reference(); on lanes (R = Lanes<W>) the lanes'
// states, the time the batch's.
template <int nq, int na, int npa, class R = double>
struct Observation {
  double t;      // sampling time t_k [s]
  const R* q;    // nq coordinates
  const R* qd;   // nq rates
  const R* s;    // na actuator lengths
  const R* sdot; // na actuator rates
  const R* p;    // na·npa pressures, actuator a at a·npa
};

// Today's open-loop valve schedule U_ref(t) (input_schedule.hpp) driving
// actuator 0; any further actuator's valve stays closed (U_ref = 0).
struct OpenLoopSchedule {
  using Params = InputSchedule;
  template <class R>
  using ParamsOn = InputScheduleT<R>;  // lanes: kernels/core/lanes.hpp
  struct Memory {};
  static constexpr bool observes = false;
  static constexpr bool on_lanes = true;  // its ParamsOn<Lanes<W>>: the lockstep lanes run it
  template <class R>
  HS_HD static double sample_period(const InputScheduleT<R>&) { return 0.0; }
  HS_HD static void initialize(const Params&, Memory&) {}
  template <class Obs, class R, int na>
  HS_HD static void reference(const InputScheduleT<R>& P, double t, const Obs&, Memory&, R (&U_ref)[na]) {
    U_ref[0] = P(t);
    for (int a = 1; a < na; ++a) U_ref[a] = R(0.0);
  }
  HS_HD static double last_switch(const Params& P, double duration) {
    double t_switch = 0.0;
    for (int k = 0; k < P.count; ++k)
      if (P.start[k] <= duration) t_switch = P.start[k];
    return t_switch;
  }
};

// Whether a policy reads the whole model's parameters (see above).
template <class Input, class = void>
struct InputReadsModel {
  static constexpr bool value = false;
};
template <class Input>
struct InputReadsModel<Input, std::void_t<decltype(Input::reads_model)>> {
  static constexpr bool value = Input::reads_model;
};
// The parameters a policy's initialize() and reference() take: the model's
// Params (with member `input`) or its input's alone.
template <class Input, class ModelParams>
HS_HD const auto& input_arguments(const ModelParams& P) {
  if constexpr (InputReadsModel<Input>::value) return P;
  else return P.input;
}

namespace run_columns {
// What an indexed output column is of (its unit and description come from
// the model's StateNames, kernels/integrators/run_columns.hpp); a policy's
// report and probe name their columns with Of::none. driving_coordinate: an
// unindexed column in the unit of the model's driving coordinate (tracking_rms).
enum class Of { none, coordinate, coordinate_rate, pressure, driving_coordinate };
}  // namespace run_columns

// A policy's report and probe, or none (an empty struct with no columns).
struct NoInputReport {
  static constexpr int width = 0;
  HS_HD static void unstarted(NoInputReport&) {}
  template <class V>
  static void visit(const NoInputReport*, V&&) {}
};
template <class Input>
using DeclaredReport = typename Input::Report;
template <class Input>
using DeclaredProbe = typename Input::Probe;
template <class Input>
using InputReport = typename DeclaredOr<DeclaredReport, Input, NoInputReport>::type;
template <class Input>
using InputProbe = typename DeclaredOr<DeclaredProbe, Input, NoInputReport>::type;

// A member `input` holding the policy's report (or probe), and nothing at all
// (an empty base, no storage) for a policy without one: the summaries and
// samples of the open-loop models keep their layout. Both forms answer
// blank_input() (every field NaN) and input_record() (null without one), so
// the code that fills and names rows needs no case for policies without.
template <class R>
struct WithInputRecord {
  R input;
  HS_HD void blank_input() { R::unstarted(input); }
  HS_HD const R* input_record() const { return &input; }
};
template <>
struct WithInputRecord<NoInputReport> {
  HS_HD void blank_input() {}
  HS_HD const NoInputReport* input_record() const { return nullptr; }
};

// Whether the lockstep lanes run a policy (`on_lanes`: its parameters and
// memory on Lanes<W>, kernels/integrators/lockstep.hpp).
template <class Input, class = void>
struct InputOnLanes : std::false_type {};
template <class Input>
struct InputOnLanes<Input, std::void_t<decltype(Input::on_lanes)>> : std::integral_constant<bool, Input::on_lanes> {};

// A policy's memory on R: its MemoryOn<R> when it has one (a controller
// whose memory runs on lanes, one value per lane), else its Memory.
template <class Input, class R, class = void>
struct MemoryOfT {
  using type = typename Input::Memory;
};
template <class Input, class R>
struct MemoryOfT<Input, R, std::void_t<typename Input::template MemoryOn<R>>> {
  using type = typename Input::template MemoryOn<R>;
};
template <class Input, class R>
using MemoryOf = typename MemoryOfT<Input, R>::type;

// What an integrator keeps of its policy: the controller memory and the
// references held since the last sample.
// On lanes (R = Lanes<W>) the memory and references are the lanes' own.
template <class Input, int na, class R = double>
struct InputState {
  MemoryOf<Input, R> memory;
  R U_ref[na];
};

// P: the model's Params (input_arguments picks what the policy reads).
template <class Input, int na, class ModelParams>
HS_HD void input_initialize(const ModelParams& P, InputState<Input, na>& s) {
  Input::initialize(input_arguments<Input>(P), s.memory);
  for (int a = 0; a < na; ++a) s.U_ref[a] = 0.0;
}

// The policy's report of the run (at its end), and its probe now.
template <class Input, int na, class ModelParams>
HS_HD void input_report(const ModelParams& P, const InputState<Input, na>& s, WithInputRecord<InputReport<Input>>& out) {
  if constexpr (!std::is_same<InputReport<Input>, NoInputReport>::value)
    Input::report(input_arguments<Input>(P), s.memory, out.input);
}
template <class Input, int na, class ModelParams>
HS_HD void input_probe(const ModelParams& P, const InputState<Input, na>& s, WithInputRecord<InputProbe<Input>>& out) {
  if constexpr (!std::is_same<InputProbe<Input>, NoInputReport>::value)
    Input::probe(input_arguments<Input>(P), s.memory, out.input);
}

// U_ref over step k (from t_k = t0 + k·dt): the policy's contract above.
// `observe()` returns the observation at t_k; it is called only when the
// policy reads it and a value is due.
template <class Input, int na, class ModelParams, class Observe, class R>
HS_HD void input_for_step(const ModelParams& PM, InputState<Input, na, R>& s, double t0, long k, double dt,
                          Observe&& observe, R (&U_ref)[na]) {
  const auto& P = input_arguments<Input>(PM);
  const double period = Input::sample_period(PM.input);
  if (period > 0.0) {
    long m = static_cast<long>(period / dt + 0.5);
    if (m < 1) m = 1;
    if (k % m == 0) {
      const double t = grid_time(t0, static_cast<double>(k), dt);
      if constexpr (Input::observes) Input::reference(P, t, observe(), s.memory, s.U_ref);
      else Input::reference(P, t, 0, s.memory, s.U_ref);
    }
  } else {
    const double t = grid_time(t0, k + 0.5, dt);
    if constexpr (Input::observes) Input::reference(P, t, observe(), s.memory, s.U_ref);
    else Input::reference(P, t, 0, s.memory, s.U_ref);
  }
  for (int a = 0; a < na; ++a) U_ref[a] = s.U_ref[a];
}

}  // namespace hs
